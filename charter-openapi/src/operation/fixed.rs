//! Operations told apart by a query or fragment written into the path: AWS's
//! `POST /#X-Amz-Target=Service.Operation`, `GET /?Action=DescribeThings&Version=2016-11-15`,
//! S3's `/{Bucket}?uploads`. The path keeps its template; each `key=value` becomes a constant
//! header or query value of the tool (docs/openapi-import.md, "Fixed values").

use serde_json::{Map, Value};

use super::super::NoteKind;
use super::super::doc;
use super::super::model::{In, Issue, Param};
use super::{Refusal, note};

/// A path split into its template and the constants written after `?` or `#`.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Fixed {
    /// The URL template, without the query or fragment.
    pub path: String,
    /// Header constants.
    pub headers: Vec<(String, String)>,
    /// Query constants (`uploads` alone is `uploads=`).
    pub query: Vec<(String, String)>,
}

/// Splits `path`. A key after `?` is a query value; after `#` it is a header when the
/// operation declares a header parameter of that name or the key starts with `X-`, else a
/// query value (AWS's `#Action=` is the query protocol's action).
pub(crate) fn split(
    path: &str,
    declared: &[(String, &Map<String, Value>, bool)],
) -> Result<Fixed, Refusal> {
    let cut = path.find(['?', '#']).unwrap_or(path.len());
    let mut fixed = Fixed {
        path: path[..cut].to_owned(),
        ..Fixed::default()
    };
    let mut rest = &path[cut..];
    while let Some(marker) = rest.chars().next() {
        let end = rest[1..].find(['?', '#']).map_or(rest.len(), |i| i + 1);
        for pair in rest[1..end].split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let (key, value) = (doc::percent_decode(key), doc::percent_decode(value));
            if key.is_empty() || key.contains(['{', '}']) || value.contains(['{', '}']) {
                return Err(Refusal::Skip(format!(
                    "the path `{path}` carries the query or fragment `{pair}`, which is not a fixed `key=value`; declare this tool by hand"
                )));
            }
            let declared_in = declared.iter().find_map(|(_, p, _)| {
                (p.get("name").and_then(Value::as_str) == Some(key.as_str()))
                    .then(|| p.get("in").and_then(Value::as_str))
                    .flatten()
            });
            let header = marker == '#'
                && (declared_in == Some("header")
                    || (declared_in.is_none() && key.to_ascii_lowercase().starts_with("x-")));
            if header {
                if !valid_header(&key, &value) {
                    return Err(Refusal::Skip(format!(
                        "the path `{path}` carries the header `{key}: {value}`, which is not a valid HTTP header"
                    )));
                }
                fixed.headers.push((key, value));
            } else {
                fixed.query.push((key, value));
            }
        }
        rest = &rest[end..];
    }
    Ok(fixed)
}

fn valid_header(name: &str, value: &str) -> bool {
    charter_terms::http::valid_header_name(name)
        && value
            .bytes()
            .all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
}

/// Leaves out the parameters a constant replaces (AWS also declares `Action` and
/// `X-Amz-Target` as parameters whose only value is the constant), with a note each.
pub(super) fn drop_replaced(fixed: &Fixed, params: &mut Vec<Param>, issues: &mut Vec<Issue>) {
    params.retain(|p| {
        let wire = p.wire.as_deref().unwrap_or(&p.name);
        let constant = match p.location {
            In::Header => fixed
                .headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(wire)),
            In::Query => fixed.query.iter().find(|(k, _)| k == wire),
            In::Path | In::Body => None,
        };
        let Some((key, value)) = constant else {
            return true;
        };
        note(
            issues,
            NoteKind::ParameterDropped,
            format!(
                "{} parameter `{wire}` left out: the path fixes `{key}` to `{value}`",
                p.location.as_str()
            ),
        );
        false
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(path: &str) -> Fixed {
        split(path, &[]).unwrap_or_else(|_| panic!("{path} refused"))
    }

    #[test]
    fn fragments_and_queries_become_constants() {
        let f = fixed("/#X-Amz-Target=DynamoDB_20120810.GetItem");
        assert_eq!(f.path, "/");
        assert_eq!(
            f.headers,
            [(
                "X-Amz-Target".to_owned(),
                "DynamoDB_20120810.GetItem".to_owned()
            )]
        );
        let f = fixed("/#Action=DescribeThings&Version=2016-11-15");
        assert_eq!(f.path, "/");
        assert!(f.headers.is_empty());
        assert_eq!(f.query.len(), 2);
        let f = fixed("/{Bucket}?uploads");
        assert_eq!(
            (
                f.path.as_str(),
                f.query[0].0.as_str(),
                f.query[0].1.as_str()
            ),
            ("/{Bucket}", "uploads", "")
        );
        let f = fixed("/a?x=1%202#X-Y=z");
        assert_eq!(f.query, [("x".to_owned(), "1 2".to_owned())]);
        assert_eq!(f.headers, [("X-Y".to_owned(), "z".to_owned())]);
        assert_eq!(fixed("/plain").path, "/plain");
    }

    #[test]
    fn what_is_not_a_constant_is_refused() {
        assert!(split("/?q={query}", &[]).is_err());
        assert!(split("/#X-Bad Header=1", &[]).is_err());
    }
}
