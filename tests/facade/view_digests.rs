//! Every shipped tool's views pinned: one line per tool in `tests/golden/view_digests.txt` with
//! a digest of each view's schema text, size, labels, property spans and path savings. A change
//! to how schemas are written shows here as the list of tools whose views changed; when it is
//! deliberate, rewrite the file with `CHARTER_BLESS=1 cargo test --test facade view_digests` and say
//! why in the commit.

use std::fmt::Write as _;
use std::path::Path;

use charter::table::{ToolDef, ViewKey};

/// FNV-1a, 64 bits: stable across platforms and Rust versions (unlike `DefaultHasher`).
struct Fnv(u64);

impl Fnv {
    fn add(&mut self, bytes: &[u8]) {
        for b in bytes.iter().chain([0xFF].iter()) {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
}

fn digest(tool: &ToolDef) -> String {
    let mut h = Fnv(0xCBF2_9CE4_8422_2325);
    for view in tool.views {
        let key = match view.key {
            ViewKey::Default => "default".to_owned(),
            ViewKey::Unmatched => "unmatched".to_owned(),
            ViewKey::Label(l) => format!("label:{l}"),
        };
        h.add(key.as_bytes());
        h.add(view.schema.as_bytes());
        h.add(&view.tokens.to_le_bytes());
        h.add(view.active.join(",").as_bytes());
        h.add(&[u8::from(view.widest)]);
        for s in view.spans {
            h.add(format!("{}:{:?}:{:?}", s.name, s.property, s.required).as_bytes());
        }
        for p in view.paths {
            h.add(format!("{}:{}:{}", p.path, p.depth, p.saves).as_bytes());
        }
    }
    format!("{:016x}", h.0)
}

#[test]
fn shipped_views_are_pinned() {
    let mut now = String::new();
    for table in charter::packs::ALL {
        for tool in table.tools {
            writeln!(now, "{} {}", tool.name, digest(tool)).unwrap();
        }
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/view_digests.txt");
    if std::env::var_os("CHARTER_BLESS").is_some() {
        std::fs::write(&path, &now).unwrap();
    }
    let pinned = std::fs::read_to_string(&path).unwrap_or_default();
    let changed: Vec<&str> = now
        .lines()
        .filter(|l| !pinned.lines().any(|p| p == *l))
        .collect();
    let gone: Vec<&str> = pinned
        .lines()
        .filter(|p| !now.lines().any(|l| l == *p))
        .collect();
    assert!(
        changed.is_empty() && gone.is_empty(),
        "{} tools' views differ from tests/golden/view_digests.txt (CHARTER_BLESS=1 rewrites it):\n{}\n(pinned: {} lines)",
        changed.len(),
        changed.join("\n"),
        gone.len()
    );
}
