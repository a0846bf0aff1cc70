//! Piece trees and their flattening into one string in `const` context.

// ---------------------------------------------------------------------------------------------
// Pieces.

/// One piece of schema text: literal JSON text or a nested tree (another type's members).
#[derive(Debug, Clone, Copy)]
pub enum Piece {
    /// JSON text, already escaped.
    Str(&'static str),
    /// Another tree, spliced in place.
    Tree(&'static [Piece]),
    /// An unsigned number written in decimal (array lengths of `[T; N]`).
    Uint(u64),
}

pub(super) const fn digits(mut n: u64) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// The length in bytes of the text a piece tree flattens to.
pub const fn pieces_len(pieces: &[Piece]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < pieces.len() {
        n += match pieces[i] {
            Piece::Str(s) => s.len(),
            Piece::Tree(t) => pieces_len(t),
            Piece::Uint(u) => digits(u),
        };
        i += 1;
    }
    n
}

pub(super) const fn write_pieces(pieces: &[Piece], buf: &mut [u8], mut at: usize) -> usize {
    let mut i = 0;
    while i < pieces.len() {
        match pieces[i] {
            Piece::Str(s) => {
                let b = s.as_bytes();
                let mut j = 0;
                while j < b.len() {
                    buf[at] = b[j];
                    at += 1;
                    j += 1;
                }
            }
            Piece::Tree(t) => at = write_pieces(t, buf, at),
            Piece::Uint(mut u) => {
                let d = digits(u);
                let mut k = d;
                while k > 0 {
                    buf[at + k - 1] = b'0' + (u % 10) as u8;
                    u /= 10;
                    k -= 1;
                }
                at += d;
            }
        }
        i += 1;
    }
    at
}

/// The text of a piece tree as bytes; `N` must be [`pieces_len`] of the tree.
pub const fn flatten<const N: usize>(pieces: &[Piece]) -> [u8; N] {
    let mut buf = [0u8; N];
    let end = write_pieces(pieces, &mut buf, 0);
    assert!(end == N, "flatten: N is not pieces_len of the tree");
    buf
}

/// `bytes` as `&str`, in `const` context (panics at compile time on invalid UTF-8, which the
/// pieces, all built from Rust string literals, never produce).
pub const fn utf8(bytes: &'static [u8]) -> &'static str {
    match core::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(_) => panic!("schema text is not UTF-8"),
    }
}

/// The text of a piece tree at run time, for tests and debugging: tables never call it.
pub fn render(pieces: &[Piece]) -> String {
    let mut buf = vec![0u8; pieces_len(pieces)];
    write_pieces(pieces, &mut buf, 0);
    String::from_utf8(buf).expect("pieces are UTF-8")
}

/// The schema text of a type implementing [`Schema`], as a `&'static str` constant built at
/// compile time: `charter::schema_text!(Vec<Note>)`.
#[macro_export]
macro_rules! schema_text {
    ($t:ty) => {
        $crate::__const_text!(&[
            $crate::schema::Piece::Str("{"),
            $crate::schema::Piece::Tree(<$t as $crate::schema::Schema>::MEMBERS),
            $crate::schema::Piece::Str("}"),
        ])
    };
}

/// Flattens a piece tree into a `&'static str` constant (generated code).
#[doc(hidden)]
#[macro_export]
macro_rules! __const_text {
    ($pieces:expr) => {{
        const __P: &[$crate::schema::Piece] = $pieces;
        const __L: usize = $crate::schema::pieces_len(__P);
        const __B: [u8; __L] = $crate::schema::flatten::<__L>(__P);
        $crate::schema::utf8(&__B)
    }};
}

/// The [`PathCost`](crate::table::PathCost)s of a schema constant, sorted (generated code).
#[doc(hidden)]
#[macro_export]
macro_rules! __const_paths {
    ($schema:expr) => {{
        const __S: &str = $schema;
        const __NL: (usize, usize) = $crate::schema::path_sizes(__S);
        const __N: usize = __NL.0;
        const __TL: usize = __NL.1;
        const __W: $crate::schema::PathWalk<__N, __TL> =
            $crate::schema::path_walk::<__N, __TL>(__S);
        const __T: [u8; __TL] = __W.text;
        const __PS: [$crate::table::PathCost; __N] = $crate::schema::paths::<__N>(&__W.raw, &__T);
        &__PS
    }};
}

/// The [`PropSpan`](crate::table::PropSpan)s of a schema constant (generated code).
#[doc(hidden)]
#[macro_export]
macro_rules! __const_spans {
    ($schema:expr) => {{
        const __S: &str = $schema;
        const __N: usize = $crate::schema::prop_count(__S);
        const __SP: [$crate::table::PropSpan; __N] = $crate::schema::spans::<__N>(__S);
        &__SP
    }};
}

/// The qualified name `<pack>_<tool>` as a `&'static str` constant (generated code).
#[doc(hidden)]
#[macro_export]
macro_rules! __const_qualified {
    ($pack:expr, $tool:expr) => {{
        const __L: usize = $crate::schema::qualified_len($pack, $tool);
        const __B: [u8; __L] = $crate::schema::qualify::<__L>($pack, $tool);
        $crate::schema::utf8(&__B)
    }};
}
