//! Integers as the APIs read them: whole numbers within 64 bits, sent as JSON integers.

use serde_json::Value;

/// What an integer outside 64 bits is told: the APIs read integers as 64-bit, and a larger
/// one would go on the wire as a float (`9.98e37`).
pub(super) const INTEGER_RANGE: &str =
    "an integer from -9223372036854775808 to 18446744073709551615";

/// A whole number as a JSON integer (`5.0` becomes `5`), or `None` outside `i64`/`u64`.
pub(super) fn exact_integer(value: &Value) -> Option<Value> {
    let Value::Number(n) = value else { return None };
    if n.is_i64() || n.is_u64() {
        return Some(value.clone());
    }
    let f = n.as_f64()?;
    // 2^63 and 2^64 are exact as f64; the ranges are half-open at the top.
    if (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&f) {
        Some(Value::from(f as i64))
    } else if (0.0..18_446_744_073_709_551_616.0).contains(&f) {
        Some(Value::from(f as u64))
    } else {
        None
    }
}

pub(super) fn is_whole(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.is_i64()
                || n.is_u64()
                || n.as_f64()
                    .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
        }
        _ => false,
    }
}
