//! The string formats a pack may declare (`date-time`, `date`, `email`, `uri`, `uuid`), checked
//! without a regex, and what validation tells the model a format expects.

use crate::table::Format;

pub(super) fn format_expected(format: Format) -> &'static str {
    match format {
        Format::DateTime => "an RFC 3339 date-time such as 2026-11-30T09:30:00Z",
        Format::Date => "a date such as 2026-11-30",
        Format::DateTimeLocal => {
            "an RFC 3339 date-time such as 2026-11-30T09:30:00+01:00, or 2026-11-30T09:30:00 in the given time zone"
        }
        Format::Email => "an e-mail address such as ada@example.com",
        Format::Uri => "an absolute URI such as https://example.com/x",
        Format::Uuid => "a UUID such as 123e4567-e89b-12d3-a456-426614174000",
        Format::Base64Url => "base64url text (A-Z a-z 0-9 - _, `=` padding only at the end)",
    }
}

/// Whether `s` is in `format`.
pub fn format_ok(format: Format, s: &str) -> bool {
    match format {
        Format::DateTime => is_date_time(s),
        Format::Date => is_date(s),
        Format::DateTimeLocal => is_date_time(s) || is_date_time(&format!("{s}Z")),
        Format::Email => is_email(s),
        Format::Uri => is_uri(s),
        Format::Uuid => is_uuid(s),
        Format::Base64Url => is_base64url(s),
    }
}

pub(super) fn digits(s: &[u8]) -> Option<u32> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(s.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0')))
}

pub(super) fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) =
        (digits(&b[0..4]), digits(&b[5..7]), digits(&b[8..10]))
    else {
        return false;
    };
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

pub(super) fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 20 || !matches!(b[10], b'T' | b't' | b' ') || !is_date(&s[..10]) {
        return false;
    }
    let t = &b[11..];
    if t.len() < 9 || t[2] != b':' || t[5] != b':' {
        return false;
    }
    let (Some(h), Some(m), Some(sec)) = (digits(&t[0..2]), digits(&t[3..5]), digits(&t[6..8]))
    else {
        return false;
    };
    if h > 23 || m > 59 || sec > 60 {
        return false;
    }
    let mut rest = &t[8..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    match rest {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            matches!((digits(&[*h1, *h2]), digits(&[*m1, *m2])), (Some(h), Some(m)) if h <= 23 && m <= 59)
        }
        _ => false,
    }
}

pub(super) fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    let clean = |p: &str| !p.is_empty() && !p.chars().any(|c| c.is_whitespace() || c.is_control());
    clean(local)
        && clean(domain)
        && !local.contains('@')
        && domain.contains('.')
        && domain.split('.').all(|label| !label.is_empty())
}

pub(super) fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

pub(super) fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// Whether `s` decodes as base64url: the URL-safe alphabet, a length that is not one past a
/// multiple of four (no 6-bit remainder), and `=` padding, if any, only to a multiple of four.
pub(super) fn is_base64url(s: &str) -> bool {
    let data = s.trim_end_matches('=');
    let pad = s.len() - data.len();
    !data.is_empty()
        && data
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
        && data.len() % 4 != 1
        && (pad == 0 || (pad <= 2 && s.len().is_multiple_of(4)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert!(is_date("2024-02-29"));
        assert!(!is_date("2023-02-29"));
        assert!(!is_date("2024-13-01"));
        assert!(!is_date("2024-1-01"));
        assert!(is_date_time("2026-11-30T09:30:00Z"));
        assert!(is_date_time("2026-11-30t09:30:00.123+02:00"));
        assert!(!is_date_time("2026-11-30T25:30:00Z"));
        assert!(!is_date_time("2026-11-30T09:30:00"));
        assert!(!is_date_time("2026-11-30T09:30:00.Z"));
        assert!(is_email("ada@example.com"));
        assert!(!is_email("ada@example"));
        assert!(!is_email("a da@example.com"));
        assert!(!is_email("@example.com"));
        assert!(is_uri("https://example.com/x?y=1"));
        assert!(is_uri("urn:isbn:0451450523"));
        assert!(!is_uri("example.com/x"));
        assert!(!is_uri("1http://x"));
        assert!(is_uuid("123e4567-e89b-12d3-a456-426614174000"));
        assert!(!is_uuid("123e4567e89b12d3a456426614174000"));
        let local = |s: &str| format_ok(Format::DateTimeLocal, s);
        assert!(local("2025-03-21T15:00:00") && local("2025-03-21T15:00:00.5+01:00"));
        assert!(!local("0747-81-15T67:97:00") && !local("2025-02-30T15:00:00"));
        assert!(!local("2025-03-21T15:00:00ZZ") && !local("2025-03-21T15:00"));
        assert!(is_base64url("SGVsbG8_-w"));
        assert!(is_base64url("SGVsbG8="));
        assert!(!is_base64url("SGVsbG8"[..5].as_ref()));
        assert!(!is_base64url("A"));
        assert!(!is_base64url("A==="));
        assert!(!is_base64url("SGVsbG8+/w=="));
        assert!(!is_base64url("SGV=sbG8"));
        assert!(!is_base64url(""));
    }
}
