//! The C math functions the binary calls (QuickJS's `Math.sin`, `Math.pow` and the others code
//! mode's programs use), from the pure-Rust `libm` (the Rust project's port of musl's) rather
//! than glibc's `libm.so.6`.
//!
//! Why: defined in the binary, they leave the linker (rustc passes `--as-needed`) no symbol to
//! take from `libm.so.6`, so the dynamic loader no longer opens, maps and relocates it as every
//! server starts: about 0.07 ms and 0.3 MiB resident of each process (docs/mcp.md, "Little done
//! before `initialize`"). The list is what `nm -D --undefined-only` showed the binary importing
//! from `libm.so.6`; a function added later and not listed here brings the library back, which
//! the `charter mcp` test that reads the server's mappings reports.

use std::ffi::{c_int, c_long};

/// One `extern "C"` definition per `double f(double)` function.
macro_rules! unary {
    ($($name:ident),* $(,)?) => {$(
        #[unsafe(no_mangle)]
        extern "C" fn $name(x: f64) -> f64 {
            libm::$name(x)
        }
    )*};
}

unary!(
    acos, acosh, asin, asinh, atan, atanh, cos, cosh, exp, expm1, log, log10, log1p, log2, sin,
    sinh, tan, tanh,
);

#[unsafe(no_mangle)]
extern "C" fn atan2(y: f64, x: f64) -> f64 {
    libm::atan2(y, x)
}

#[unsafe(no_mangle)]
extern "C" fn hypot(x: f64, y: f64) -> f64 {
    libm::hypot(x, y)
}

#[unsafe(no_mangle)]
extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

#[unsafe(no_mangle)]
extern "C" fn logf(x: f32) -> f32 {
    libm::logf(x)
}

#[unsafe(no_mangle)]
extern "C" fn scalbn(x: f64, n: c_int) -> f64 {
    libm::scalbn(x, n)
}

/// `frexp(x, &e)`: C returns the exponent through the pointer.
///
/// # Safety
/// The caller (C code) passes a valid, writable `int`.
#[unsafe(no_mangle)]
unsafe extern "C" fn frexp(x: f64, exp: *mut c_int) -> f64 {
    let (mantissa, e) = libm::frexp(x);
    // SAFETY: C's contract for frexp: `exp` points to an int the caller owns.
    unsafe { exp.write(e) };
    mantissa
}

/// `lrint`: rounded in the current (default, to-nearest-even) mode; a NaN or a value out of
/// range is unspecified in C, and gives 0 or the nearest bound here.
#[unsafe(no_mangle)]
extern "C" fn lrint(x: f64) -> c_long {
    libm::rint(x) as c_long
}
