//! Keys of a spread map argument ([`Location::BodySpread`]): they land beside the other body
//! fields, so one that another body field sends is refused, never left to overwrite it (nor to
//! set a field the view withholds).

use serde_json::{Map, Value};

use super::{Issue, escape, got};
use crate::table::{Field, Location};

/// One issue per key of a spread map argument in `map` that a declared body field of `fields`
/// also sends (by wire name), at the key's path (`/data/extensionName`).
pub fn spread_collisions(fields: &[Field], map: &Map<String, Value>) -> Vec<Issue> {
    let mut issues = Vec::new();
    for spread in fields.iter().filter(|f| f.location == Location::BodySpread) {
        let Some(Value::Object(members)) = map.get(spread.name) else {
            continue;
        };
        for (key, value) in members {
            let taken = fields
                .iter()
                .find(|f| f.location == Location::Body && f.wire == key);
            if let Some(owner) = taken {
                issues.push(Issue {
                    path: format!("/{}/{}", escape(spread.name), escape(key)),
                    expected: format!(
                        "no `{key}` here: the field `{}` sends it, so set it there",
                        owner.name
                    ),
                    got: got(value),
                });
            }
        }
    }
    issues
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Shape;
    use serde_json::json;

    const fn field(name: &'static str, wire: &'static str, location: Location) -> Field {
        static ANY_MAP: Shape = Shape::Map(&Shape::Any);
        Field::new(name, "", &ANY_MAP)
            .with_wire(wire)
            .with_location(location)
    }

    static FIELDS: [Field; 4] = [
        field("message_id", "messageId", Location::Path),
        field("odata_type", "@odata.type", Location::Body),
        field("extension_name", "extensionName", Location::Body),
        field("data/x", "data", Location::BodySpread),
    ];

    #[test]
    fn a_key_another_body_field_sends_is_refused_at_its_path() {
        let args = json!({"data/x": {"extensionName": "X", "@odata.type": "t", "messageId": "m",
                                     "extension_name": 1, "vip": true}});
        let issues = spread_collisions(&FIELDS, args.as_object().unwrap());
        let found: Vec<(&str, &str, &str)> = issues
            .iter()
            .map(|i| (i.path.as_str(), i.expected.as_str(), i.got.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "/data~1x/extensionName",
                    "no `extensionName` here: the field `extension_name` sends it, so set it there",
                    "string \"X\""
                ),
                (
                    "/data~1x/@odata.type",
                    "no `@odata.type` here: the field `odata_type` sends it, so set it there",
                    "string \"t\""
                ),
            ],
            "a path field's wire name and a model name are not body keys"
        );
        let fine = json!({"data/x": {"vip": true}, "extension_name": "X"});
        assert!(spread_collisions(&FIELDS, fine.as_object().unwrap()).is_empty());
        let not_a_map = json!({"data/x": null});
        assert!(spread_collisions(&FIELDS, not_a_map.as_object().unwrap()).is_empty());
    }
}
