//! A large tool (about 20 KB of schema per view, 180 paths) stays within rustc's const-eval
//! budget, and its spans and path costs stay exact. Generated fields; see `tests/macros.rs` for
//! the behaviour itself.

use charter::json_tokens;
use serde_json::Value;

#[derive(serde::Deserialize, charter::Schema)]
#[allow(dead_code)]
pub struct Inner {
    /// Inner 0: described at some length.
    g0: u32,
    /// Inner 1: described at some length.
    g1: u32,
    /// Inner 2: described at some length.
    g2: u32,
    /// Inner 3: described at some length.
    g3: u32,
    /// Inner 4: described at some length.
    g4: u32,
    /// Inner 5: described at some length.
    g5: u32,
    /// Inner 6: described at some length.
    g6: u32,
    /// Inner 7: described at some length.
    g7: u32,
    /// Inner 8: described at some length.
    g8: u32,
    /// Inner 9: described at some length.
    g9: u32,
    /// Inner 10: described at some length.
    g10: u32,
    /// Inner 11: described at some length.
    g11: u32,
    /// Inner 12: described at some length.
    g12: u32,
    /// Inner 13: described at some length.
    g13: u32,
    /// Inner 14: described at some length.
    g14: u32,
    /// Inner 15: described at some length.
    g15: u32,
    /// Inner 16: described at some length.
    g16: u32,
    /// Inner 17: described at some length.
    g17: u32,
    /// Inner 18: described at some length.
    g18: u32,
    /// Inner 19: described at some length.
    g19: u32,
}

#[derive(serde::Deserialize, charter::Schema)]
#[allow(dead_code)]
pub struct Big {
    /// Field number 0: a reasonably long description, as a real API would carry.
    f0: Option<Vec<String>>,
    /// Field number 1: a reasonably long description, as a real API would carry.
    f1: Option<Vec<String>>,
    /// Field number 2: a reasonably long description, as a real API would carry.
    f2: Option<Vec<String>>,
    /// Field number 3: a reasonably long description, as a real API would carry.
    f3: Option<Vec<String>>,
    /// Field number 4: a reasonably long description, as a real API would carry.
    f4: Option<Vec<String>>,
    /// Field number 5: a reasonably long description, as a real API would carry.
    f5: Option<Vec<String>>,
    /// Field number 6: a reasonably long description, as a real API would carry.
    f6: Option<Vec<String>>,
    /// Field number 7: a reasonably long description, as a real API would carry.
    f7: Option<Vec<String>>,
    /// Field number 8: a reasonably long description, as a real API would carry.
    f8: Option<Vec<String>>,
    /// Field number 9: a reasonably long description, as a real API would carry.
    f9: Option<Vec<String>>,
    /// Field number 10: a reasonably long description, as a real API would carry.
    f10: Option<Vec<String>>,
    /// Field number 11: a reasonably long description, as a real API would carry.
    f11: Option<Vec<String>>,
    /// Field number 12: a reasonably long description, as a real API would carry.
    f12: Option<Vec<String>>,
    /// Field number 13: a reasonably long description, as a real API would carry.
    f13: Option<Vec<String>>,
    /// Field number 14: a reasonably long description, as a real API would carry.
    f14: Option<Vec<String>>,
    /// Field number 15: a reasonably long description, as a real API would carry.
    f15: Option<Vec<String>>,
    /// Field number 16: a reasonably long description, as a real API would carry.
    f16: Option<Vec<String>>,
    /// Field number 17: a reasonably long description, as a real API would carry.
    f17: Option<Vec<String>>,
    /// Field number 18: a reasonably long description, as a real API would carry.
    f18: Option<Vec<String>>,
    /// Field number 19: a reasonably long description, as a real API would carry.
    f19: Option<Vec<String>>,
    /// Field number 20: a reasonably long description, as a real API would carry.
    f20: Option<Vec<String>>,
    /// Field number 21: a reasonably long description, as a real API would carry.
    f21: Option<Vec<String>>,
    /// Field number 22: a reasonably long description, as a real API would carry.
    f22: Option<Vec<String>>,
    /// Field number 23: a reasonably long description, as a real API would carry.
    f23: Option<Vec<String>>,
    /// Field number 24: a reasonably long description, as a real API would carry.
    f24: Option<Vec<String>>,
    /// Field number 25: a reasonably long description, as a real API would carry.
    f25: Option<Vec<String>>,
    /// Field number 26: a reasonably long description, as a real API would carry.
    f26: Option<Vec<String>>,
    /// Field number 27: a reasonably long description, as a real API would carry.
    f27: Option<Vec<String>>,
    /// Field number 28: a reasonably long description, as a real API would carry.
    f28: Option<Vec<String>>,
    /// Field number 29: a reasonably long description, as a real API would carry.
    f29: Option<Vec<String>>,
    /// Field number 30: a reasonably long description, as a real API would carry.
    f30: Option<Vec<String>>,
    /// Field number 31: a reasonably long description, as a real API would carry.
    f31: Option<Vec<String>>,
    /// Field number 32: a reasonably long description, as a real API would carry.
    f32: Option<Vec<String>>,
    /// Field number 33: a reasonably long description, as a real API would carry.
    f33: Option<Vec<String>>,
    /// Field number 34: a reasonably long description, as a real API would carry.
    f34: Option<Vec<String>>,
    /// Field number 35: a reasonably long description, as a real API would carry.
    f35: Option<Vec<String>>,
    /// Field number 36: a reasonably long description, as a real API would carry.
    f36: Option<Vec<String>>,
    /// Field number 37: a reasonably long description, as a real API would carry.
    f37: Option<Vec<String>>,
    /// Field number 38: a reasonably long description, as a real API would carry.
    f38: Option<Vec<String>>,
    /// Field number 39: a reasonably long description, as a real API would carry.
    f39: Option<Vec<String>>,
    /// Nested.
    inner: Vec<Inner>,
    /// Nested again.
    other: Inner,
}

/// A big tool.
#[charter::tool]
fn big(
    #[charter(desc = "Everything.")] big: Big,
    #[charter(desc = "More of it.")] more: Vec<Big>,
    #[charter(desc = "Pro only.", mode = "pro")] extra: Option<Inner>,
) -> usize {
    let _ = (big, more, extra);
    1
}

charter::pack!(static BIG = "big", "Big.", [big]);

fn drop_path(schema: &mut Value, path: &str) {
    let parts: Vec<_> = path.split('.').collect();
    let mut obj = schema;
    for part in &parts[..parts.len() - 1] {
        obj = &mut obj["properties"][*part];
        while obj.get("properties").is_none() {
            obj = &mut obj["items"];
        }
    }
    let last = parts[parts.len() - 1];
    obj["properties"]
        .as_object_mut()
        .unwrap()
        .remove(last)
        .unwrap();
    let o = obj.as_object_mut().unwrap();
    if let Some(req) = o.get_mut("required").and_then(Value::as_array_mut) {
        req.retain(|r| r != last);
        if req.is_empty() {
            o.remove("required");
        }
    }
}

#[test]
fn big_schema_paths_are_exact() {
    let def = &BIG.tools[0];
    assert_eq!(def.views.len(), 3);
    for view in def.views {
        assert!(view.schema.len() > 15_000, "{}", view.schema.len());
        let full: Value = serde_json::from_str(view.schema).unwrap();
        assert_eq!(view.tokens, json_tokens(&full));
        assert!(view.paths.len() > 150, "{}", view.paths.len());
        for p in view.paths {
            let mut without = full.clone();
            drop_path(&mut without, p.path);
            assert_eq!(
                p.saves,
                json_tokens(&full) - json_tokens(&without),
                "{}",
                p.path
            );
        }
    }
}
