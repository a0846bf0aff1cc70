//! Parameter schemas (docs/design.md §3): one compact JSON Schema text per view, its size, the
//! exact saving of dropping each argument path, and where each top-level property sits in the
//! text. They are written by `charter_schema`'s emitter (the one `#[charter::tool]` evaluates in
//! `const` context and the test kit calls) from the pack's shapes ([`crate::lower`]), natively
//! here in the build script, so generated code carries them as literals and compiling a pack
//! const-evaluates nothing.

use charter_schema::emit::{Groups, Labels, Root, Target, emit, typescript};

use crate::lower::Lowered;
use crate::mode::ViewSpec;
use crate::model::PackModel;

pub use charter_schema::emit::Emitted as ViewSchema;
pub use charter_schema::view::PropSpan;

/// The schema of view `view` of tool `tool` (its index in the pack) in the portable form.
pub fn tool_view_schema(lowered: &Lowered, tool: usize, view: &ViewSpec) -> ViewSchema {
    tool_view_in(lowered, tool, view, Target::Portable)
}

/// A view in the dialects whose text differs from the portable form (docs/dialects.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewDialects {
    /// OpenAI's strict mode.
    pub openai_strict: ViewSchema,
    /// Gemini's function declarations.
    pub gemini: ViewSchema,
    /// Anthropic's strict tool use; `None` when the view reaches a recursive type, which its
    /// grammar cannot take (served as the portable form without `strict`).
    pub anthropic_strict: Option<ViewSchema>,
}

/// View `view` of tool `tool` in every dialect that differs from the portable form.
pub fn tool_view_dialects(lowered: &Lowered, tool: usize, view: &ViewSpec) -> ViewDialects {
    let anthropic_strict = tool_view_in(lowered, tool, view, Target::AnthropicStrict);
    ViewDialects {
        openai_strict: tool_view_in(lowered, tool, view, Target::OpenAiStrict),
        gemini: tool_view_in(lowered, tool, view, Target::Gemini),
        anthropic_strict: (anthropic_strict.defs == 0).then_some(anthropic_strict),
    }
}

/// View `view` of tool `tool` in `target`.
pub fn tool_view_in(lowered: &Lowered, tool: usize, view: &ViewSpec, target: Target) -> ViewSchema {
    let active: Vec<&str> = view.active.iter().map(String::as_str).collect();
    let (at_least_one, exactly_one) = lowered.groups[tool];
    let root = Root {
        input: lowered.inputs[tool],
        groups: Groups {
            at_least_one,
            exactly_one,
        },
        defs: lowered.defs,
    };
    let labels = Labels {
        active: &active,
        widest: view.widest,
    };
    emit(&root, labels, target)
}

/// Code mode's TypeScript signature of view `view` of tool `tool` (docs/code-mode.md), and its
/// size in tokens: from the same tree and labels as its schema, the result's type from the
/// tool's declared result shape, else from its `response.keep` paths.
pub fn tool_view_signature(
    lowered: &Lowered,
    tool: usize,
    view: &ViewSpec,
    keep: &[String],
) -> (String, u32) {
    let active: Vec<&str> = view.active.iter().map(String::as_str).collect();
    let (at_least_one, exactly_one) = lowered.groups[tool];
    let root = Root {
        input: lowered.inputs[tool],
        groups: Groups {
            at_least_one,
            exactly_one,
        },
        defs: lowered.defs,
    };
    let labels = Labels {
        active: &active,
        widest: view.widest,
    };
    let keep: Vec<&str> = keep.iter().map(String::as_str).collect();
    let returns = match lowered.results[tool] {
        Some(shape) => typescript::Returns::Shape(shape),
        None => typescript::Returns::Kept(&keep),
    };
    typescript::signature(&root, labels, returns)
}

/// Every view of every tool of a pack: `[tool][view]`.
pub fn pack_schemas(model: &PackModel) -> Vec<Vec<ViewSchema>> {
    let lowered = crate::lower::lower(model);
    model
        .tools
        .iter()
        .enumerate()
        .map(|(i, t)| {
            t.views
                .iter()
                .map(|v| tool_view_schema(&lowered, i, v))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use charter_terms::tokens::text_tokens as tokens;
    use serde_json::Value;

    use super::*;

    fn pack(tools: &str) -> PackModel {
        let yaml = format!(
            "pack: t\ndescription: Test.\nbase_url: https://t.example\ntypes:\n  Node:\n    type: object\n    description: A tree node.\n    properties:\n      name: {{ type: string, description: The name., required: true }}\n      children: {{ type: array, description: Subtrees., items: {{ ref: Node }} }}\n  Point:\n    type: object\n    description: A point.\n    properties:\n      x: {{ type: number, description: X., required: true }}\n      y: {{ type: number, description: Y., required: true }}\ntools:\n{tools}"
        );
        crate::load_str("t.yaml", &yaml).unwrap_or_else(|d| panic!("{d:#?}"))
    }

    fn default_view(m: &PackModel, i: usize) -> ViewSchema {
        pack_schemas(m).swap_remove(i).swap_remove(0)
    }

    const TOOL: &str = "  a_b:\n    description: D.\n    method: POST\n    path: /a\n    params:\n";

    #[test]
    fn compact_text_exactly() {
        let m = pack(&format!(
            "{TOOL}      q: {{ in: query, type: string, enum: [x, y], default: x, description: Q. }}\n      n: {{ in: body, type: integer, minimum: 1, maximum: 9, required: true, description: N. }}\n"
        ));
        let v = default_view(&m, 0);
        assert_eq!(
            v.text,
            r#"{"type":"object","properties":{"q":{"type":"string","description":"Q.","enum":["x","y"],"default":"x"},"n":{"type":"integer","description":"N.","minimum":1,"maximum":9}},"required":["n"],"additionalProperties":false}"#
        );
        assert_eq!(v.tokens as usize, v.text.chars().count() / 4);
    }

    #[test]
    fn no_parameters() {
        let m = pack("  a_b:\n    description: D.\n    method: GET\n    path: /a\n");
        let v = default_view(&m, 0);
        assert_eq!(
            v.text,
            r#"{"type":"object","properties":{},"additionalProperties":false}"#
        );
        assert!(v.paths.is_empty() && v.spans.is_empty());
    }

    #[test]
    fn nullable_map_and_one_of() {
        let m = pack(&format!(
            "{TOOL}      s: {{ in: body, type: string, nullable: true, enum: [a], description: S. }}\n      m: {{ in: body, type: map, values: {{ type: integer }}, description: M. }}\n      f: {{ in: body, type: map, description: Free. }}\n      o: {{ in: body, nullable: true, one_of: [{{ type: string }}, {{ ref: Point }}], description: O. }}\n"
        ));
        let v: Value = serde_json::from_str(&default_view(&m, 0).text).unwrap();
        let p = &v["properties"];
        assert_eq!(
            p["s"],
            serde_json::json!({"description": "S.", "anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]})
        );
        assert_eq!(
            p["m"],
            serde_json::json!({"type": "object", "description": "M.", "additionalProperties": {"type": "integer"}})
        );
        assert_eq!(p["f"]["additionalProperties"], true);
        assert_eq!(p["o"]["oneOf"][0], serde_json::json!({"type": "string"}));
        assert_eq!(
            p["o"]["oneOf"][1]["properties"]["x"]["type"], "number",
            "non-recursive refs are inlined"
        );
        assert_eq!(p["o"]["oneOf"][1]["additionalProperties"], false);
        assert_eq!(p["o"]["oneOf"][2], serde_json::json!({"type": "null"}));
        assert!(v.get("$defs").is_none(), "no $defs without recursion");
    }

    #[test]
    fn refs_inline_unless_recursive() {
        let m = pack(&format!(
            "{TOOL}      at: {{ in: body, ref: Point, description: Where. }}\n      tree: {{ in: body, ref: Node, nullable: true, description: The tree. }}\n      other: {{ in: body, ref: Node }}\n      list: {{ in: body, type: array, items: {{ ref: Node }}, description: Trees. }}\n"
        ));
        let v: Value = serde_json::from_str(&default_view(&m, 0).text).unwrap();
        let p = &v["properties"];
        assert_eq!(
            p["at"]["description"], "Where.",
            "the use site's description wins"
        );
        assert_eq!(p["at"]["required"], serde_json::json!(["x", "y"]));
        assert_eq!(p["tree"]["anyOf"][0]["$ref"], "#/$defs/Node");
        assert_eq!(p["tree"]["anyOf"][1]["type"], "null");
        assert_eq!(
            p["other"],
            serde_json::json!({"$ref": "#/$defs/Node", "description": "A tree node."})
        );
        assert_eq!(
            p["list"]["items"],
            serde_json::json!({"$ref": "#/$defs/Node", "description": "A tree node."}),
            "items without a description of their own take the type's"
        );
        assert_eq!(
            v["$defs"]["Node"]["properties"]["children"]["items"]["$ref"],
            "#/$defs/Node"
        );
        assert_eq!(v["$defs"].as_object().unwrap().len(), 1);
    }

    /// Splices `(a, b)` out of `text`.
    fn splice(text: &str, (a, b): (u32, u32)) -> String {
        format!("{}{}", &text[..a as usize], &text[b as usize..])
    }

    #[test]
    fn every_span_splices_to_the_schema_of_the_tool_without_that_parameter() {
        // 1, 2 and 3 parameters; 0, 1, 2 and 3 of them required, in every position.
        let params: [&[(&str, &str)]; 6] = [
            &[("a", "required: true")],
            &[("a", ""), ("b", "required: true")],
            &[("a", "required: true"), ("b", "required: true")],
            &[("a", "required: true"), ("b", ""), ("c", "required: true")],
            &[
                ("a", "required: true"),
                ("b", "required: true"),
                ("c", "required: true"),
            ],
            &[("a", ""), ("b", ""), ("c", "")],
        ];
        let yaml = |ps: &[(&str, &str)]| {
            let lines: String = ps
                .iter()
                .map(|(n, extra)| {
                    format!(
                        "      {n}: {{ in: body, type: string, {extra}, description: The {n}. }}\n"
                    )
                    .replace(", ,", ",")
                })
                .collect();
            format!("{TOOL}{lines}")
        };
        let mut spliced = 0;
        for ps in params {
            let full = default_view(&pack(&yaml(ps)), 0);
            assert_eq!(full.spans.len(), ps.len());
            for span in &full.spans {
                let text = match span.required {
                    Some(r) => splice(&full.text, r),
                    None => full.text.clone(),
                };
                let text = splice(&text, span.property);
                let rest: Vec<(&str, &str)> = ps
                    .iter()
                    .copied()
                    .filter(|(n, _)| *n != span.name)
                    .collect();
                let expected = if rest.is_empty() {
                    r#"{"type":"object","properties":{},"additionalProperties":false}"#.to_owned()
                } else {
                    default_view(&pack(&yaml(&rest)), 0).text
                };
                assert_eq!(text, expected, "splicing `{}`", span.name);
                let cost = full.paths.iter().find(|p| p.path == span.name).unwrap();
                assert_eq!(cost.saves, full.tokens - tokens(&text));
                spliced += 1;
            }
        }
        assert_eq!(spliced, 14);
    }

    #[test]
    fn nested_paths_descend_objects_items_and_plain_types() {
        let m = pack(&format!(
            "{TOOL}      filter:\n        in: body\n        type: object\n        description: F.\n        properties:\n          state: {{ type: string, enum: [open, closed, all], description: The state to match., required: true }}\n          range: {{ ref: Point, description: Where. }}\n          tags:\n            type: array\n            description: Tags.\n            items:\n              type: object\n              properties:\n                name: {{ type: string, description: The tag name. }}\n      tree: {{ in: body, ref: Node, description: A tree. }}\n"
        ));
        let full = default_view(&m, 0);
        let paths: Vec<&str> = full.paths.iter().map(|p| p.path.as_str()).collect();
        for expected in [
            "filter",
            "filter.state",
            "filter.range",
            "filter.range.x",
            "filter.range.y",
            "filter.tags",
            "filter.tags.name",
            "tree",
        ] {
            assert!(paths.contains(&expected), "{expected} in {paths:?}");
        }
        assert!(
            !paths.iter().any(|p| p.starts_with("tree.")),
            "recursive types are not descended"
        );
        for p in &full.paths {
            assert_eq!(p.depth as usize, p.path.split('.').count());
            assert!(p.saves > 0, "{}", p.path);
        }
        assert!(full.paths.windows(2).all(|w| w[0].saves >= w[1].saves));
        assert_eq!(full.paths[0].path, "filter");
    }

    #[test]
    fn groups_are_told_in_the_roots_description() {
        let m = pack(
            "  a_b:\n    description: D.\n    method: POST\n    path: /a\n    require_exactly_one_of: [[x], [y]]\n    params:\n      x: { in: body, type: string, description: X. }\n      y: { in: body, type: string, description: Y. }\n",
        );
        let v: Value = serde_json::from_str(&default_view(&m, 0).text).unwrap();
        assert_eq!(v["description"], "Give exactly one of: `x`, or `y`.");
        assert!(v.get("oneOf").is_none(), "no combinator at the root");
    }

    #[test]
    fn tokens_count_characters() {
        assert_eq!(tokens(""), 0);
        assert_eq!(tokens("abcd"), 1);
        assert_eq!(tokens("\"ééé\""), 1);
    }
}
