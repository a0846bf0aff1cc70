//! Groups in schemas: a tool's "at least one of" / "exactly one of" groups of its parameters at
//! the root, and a nested object's groups of its properties (the pack format's `require_one_of`
//! and `require_exactly_one_of`), as `anyOf` / `oneOf` of `required` lists.

use serde_json::{Map, Value};

use super::{ViewSchema, json, schema_without, tokens, view_schema};
use crate::mode::ViewSpec;
use crate::model::{GroupsModel, ToolModel, TypeModel};

/// A tool's view schema: [`view_schema`] plus its "at least one of" groups as an `anyOf` of
/// `required` lists and its "exactly one of" groups as a `oneOf`, counted in its size and in
/// what dropping each path saves (the groups stay when a path goes). Property spans are
/// unchanged: the groups go after them.
pub fn tool_view_schema(types: &[TypeModel], tool: &ToolModel, view: &ViewSpec) -> ViewSchema {
    let mut schema = view_schema(types, &tool.params, view);
    let member = group_members(&tool.require_one_of, &tool.require_exactly_one_of);
    if member.is_empty() {
        return schema;
    }
    with_groups(&mut schema.text, &member);
    schema.tokens = tokens(&schema.text);
    for cost in &mut schema.paths {
        let path: Vec<String> = cost.path.split('.').map(str::to_owned).collect();
        let mut without = schema_without(types, &tool.params, view, &path);
        with_groups(&mut without, &member);
        cost.saves = schema.tokens.saturating_sub(tokens(&without));
    }
    schema.paths.sort_by_key(|p| std::cmp::Reverse(p.saves));
    schema
}

/// `,"anyOf":[{"required":[..]},..]` and/or `,"oneOf":[..]` for the groups given; empty for none.
fn group_members(at_least_one: &[Vec<String>], exactly_one: &[Vec<String>]) -> String {
    let mut member = String::new();
    for (key, groups) in [("anyOf", at_least_one), ("oneOf", exactly_one)] {
        if groups.is_empty() {
            continue;
        }
        let list: Vec<Value> = groups
            .iter()
            .map(|g| serde_json::json!({ "required": g }))
            .collect();
        member.push_str(&format!(r#","{key}":{}"#, json(&Value::Array(list))));
    }
    member
}

/// Inserts `member` before the root's closing `,"additionalProperties":false` (the last
/// top-level member before any `$defs`).
fn with_groups(text: &mut String, member: &str) {
    const CLOSE: &str = r#","additionalProperties":false"#;
    let at = match text.find(r#","$defs":"#) {
        Some(defs) => text[..defs].rfind(CLOSE),
        None => text.rfind(CLOSE),
    }
    .expect("the root schema closes its properties");
    text.insert_str(at, member);
}

/// A nested object's groups: `anyOf` / `oneOf` of `required` lists. `required` lets `null`
/// through, so on a nullable object `null` would match every `oneOf` branch: there the groups
/// go in `"anyOf":[{"type":"null"},{..groups..}]` instead.
pub(super) fn object_groups(m: &mut Map<String, Value>, groups: &GroupsModel, nullable: bool) {
    let list = |groups: &[Vec<String>]| {
        let branches = groups.iter().map(|g| serde_json::json!({ "required": g }));
        Value::Array(branches.collect())
    };
    let mut members = Map::new();
    if !groups.at_least_one.is_empty() {
        members.insert("anyOf".into(), list(&groups.at_least_one));
    }
    if !groups.exactly_one.is_empty() {
        members.insert("oneOf".into(), list(&groups.exactly_one));
    }
    if nullable && !groups.exactly_one.is_empty() {
        let null = serde_json::json!({ "type": "null" });
        m.insert(
            "anyOf".into(),
            Value::Array(vec![null, Value::Object(members)]),
        );
    } else {
        m.extend(members);
    }
}
