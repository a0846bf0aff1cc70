//! Groups in schemas: a tool's "at least one of" / "exactly one of" groups of its parameters at
//! the root, and a nested object's groups of its properties (the pack format's `require_one_of`
//! and `require_exactly_one_of`).
//!
//! Below the root they are an `anyOf` / `oneOf` of `required` lists, which every model API
//! accepts there. At the root no combinator is allowed (Anthropic's and OpenAI's APIs refuse a
//! tool whose `input_schema` / `parameters` has `anyOf`, `oneOf`, `allOf`, `enum` or `not` at
//! the top level), so a tool's groups are told in the root's `description`
//! ([`charter_terms::groups::sentence`]); validation enforces them either way.

use serde_json::{Map, Value};

use super::{ViewSchema, view_schema};
use crate::mode::ViewSpec;
use crate::model::{GroupsModel, ToolModel, TypeModel};

/// A tool's view schema: [`view_schema`] with its groups as a sentence in the root's
/// `description`, counted in its size (the sentence stays when a path goes).
pub fn tool_view_schema(types: &[TypeModel], tool: &ToolModel, view: &ViewSpec) -> ViewSchema {
    let sentence =
        charter_terms::groups::sentence(&tool.require_one_of, &tool.require_exactly_one_of);
    view_schema(types, &tool.params, view, sentence.as_deref())
}

/// A nested object's groups: `anyOf` / `oneOf` of `required` lists. On a nullable object they
/// sit in its object branch (`"anyOf":[{"type":"object",..,"oneOf":[..]},{"type":"null"}]`), so
/// `null` never meets them.
pub(super) fn object_groups(m: &mut Map<String, Value>, groups: &GroupsModel) {
    let list = |groups: &[Vec<String>]| {
        let branches = groups.iter().map(|g| serde_json::json!({ "required": g }));
        Value::Array(branches.collect())
    };
    if !groups.at_least_one.is_empty() {
        m.insert("anyOf".into(), list(&groups.at_least_one));
    }
    if !groups.exactly_one.is_empty() {
        m.insert("oneOf".into(), list(&groups.exactly_one));
    }
}
