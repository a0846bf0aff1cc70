//! The per-provider dialects (docs/dialects.md), text for text.

use super::*;
use crate::num;
use crate::shape::*;

const STR: Shape = Shape::String(StringRules::NONE);
const INT: Shape = Shape::Integer(NumberRules::NONE);

fn both(root: &Root<'_>) -> (String, String) {
    (
        emit(root, Labels::WIDEST, Target::OpenAiStrict).text,
        emit(root, Labels::WIDEST, Target::Gemini).text,
    )
}

static LEVEL: Shape = Shape::Integer(NumberRules {
    enum_values: &[num!(1), num!(2)],
    ..NumberRules::NONE
});
static EMAIL: Shape = Shape::String(StringRules {
    format: Some(Format::Uri),
    max_length: Some(9),
    ..StringRules::NONE
});
static TAGS: Shape = Shape::Map(&STR);
static ANY: Shape = Shape::Any;
static NULLABLE: Shape = Shape::Nullable(&STR);
static EITHER: Shape = Shape::OneOf(&[STR, INT]);
static SET: Shape = Shape::Array(ArrayRules {
    unique_items: true,
    ..ArrayRules::of(&STR)
});
static INNER: ObjectShape = ObjectShape {
    fields: &[Field::new("a", "A.", &STR), Field::new("b", "B.", &STR)],
    require_one_of: &[&["a"], &["b"]],
    require_exactly_one_of: &[],
};
static OBJ: Shape = Shape::Object(ObjectShape {
    fields: INNER.fields,
    require_one_of: INNER.require_one_of,
    require_exactly_one_of: &[],
});
static IN: ObjectShape = ObjectShape::of(&[
    Field {
        required: true,
        ..Field::new("name", "Name.", &STR)
    },
    Field {
        default: Some("1"),
        ..Field::new("level", "Level.", &LEVEL)
    },
    Field::new("site", "Site.", &EMAIL),
    Field::new("tags", "Tags.", &TAGS),
    Field::new("data", "Data.", &ANY),
    Field {
        required: true,
        ..Field::new("clear", "Clear.", &NULLABLE)
    },
    Field::new("either", "Either.", &EITHER),
    Field::new("set", "Set.", &SET),
    Field::new("obj", "Obj.", &OBJ),
]);

#[test]
fn openai_strict() {
    let (strict, _) = both(&Root::of(&IN));
    assert_eq!(
        strict,
        concat!(
            r#"{"type":"object","properties":{"#,
            r#""name":{"type":"string","description":"Name."},"#,
            r#""level":{"description":"Level. Default: 1.","anyOf":[{"type":"integer","enum":[1,2]},{"type":"null"}]},"#,
            r#""site":{"description":"Site.","anyOf":[{"type":"string","description":"Format: uri."},{"type":"null"}]},"#,
            r#""tags":{"description":"Tags.","anyOf":[{"type":"array","items":{"type":"object","properties":{"key":{"type":"string"},"value":{"type":"string"}},"required":["key","value"],"additionalProperties":false}},{"type":"null"}]},"#,
            r#""data":{"description":"Data.","anyOf":[{"type":"string","description":"Any JSON value, written as JSON text."},{"type":"null"}]},"#,
            r#""clear":{"description":"Clear.","anyOf":[{"type":"string"},{"type":"null"}]},"#,
            r#""either":{"description":"Either.","anyOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]},"#,
            r#""set":{"description":"Set.","anyOf":[{"type":"array","items":{"type":"string"}},{"type":"null"}]},"#,
            r#""obj":{"description":"Obj.","anyOf":[{"type":"object","description":"Give at least one of: `a`, or `b`.","properties":{"a":{"description":"A.","anyOf":[{"type":"string"},{"type":"null"}]},"b":{"description":"B.","anyOf":[{"type":"string"},{"type":"null"}]}},"required":["a","b"],"additionalProperties":false},{"type":"null"}]}"#,
            r#"},"required":["name","level","site","tags","data","clear","either","set","obj"],"additionalProperties":false}"#
        )
    );
}

#[test]
fn gemini() {
    let (_, gemini) = both(&Root::of(&IN));
    assert_eq!(
        gemini,
        concat!(
            r#"{"type":"object","properties":{"#,
            r#""name":{"type":"string","description":"Name."},"#,
            r#""level":{"type":"integer","description":"Level. One of: 1, 2.","default":1},"#,
            r#""site":{"type":"string","description":"Site. Format: uri.","maxLength":9},"#,
            r#""tags":{"type":"array","description":"Tags.","items":{"type":"object","properties":{"key":{"type":"string"},"value":{"type":"string"}},"required":["key","value"]}},"#,
            r#""data":{"type":"string","description":"Data. Any JSON value, written as JSON text."},"#,
            r#""clear":{"nullable":true,"type":"string","description":"Clear."},"#,
            r#""either":{"description":"Either.","anyOf":[{"type":"string"},{"type":"integer"}]},"#,
            r#""set":{"type":"array","description":"Set.","items":{"type":"string"}},"#,
            r#""obj":{"type":"object","description":"Obj. Give at least one of: `a`, or `b`.","properties":{"a":{"type":"string","description":"A."},"b":{"type":"string","description":"B."}}}"#,
            r#"},"required":["name","clear"]}"#
        )
    );
}

#[test]
fn spans_splice_in_every_dialect() {
    for target in [
        Target::OpenAiStrict,
        Target::Gemini,
        Target::AnthropicStrict,
    ] {
        let v = emit(&Root::of(&IN), Labels::WIDEST, target);
        assert_eq!(v.spans.len(), IN.fields.len());
        for s in &v.spans {
            let (a, b) = (s.property.0 as usize, s.property.1 as usize);
            let key = format!("\"{}\":", s.name);
            let core = v.text[a..b].trim_matches(',');
            assert!(core.starts_with(&key), "{target:?} {}: {core}", s.name);
        }
    }
}

static NODE_SHAPE: Shape = Shape::Object(ObjectShape::of(&[Field::new(
    "children",
    "Subtrees.",
    &Shape::Array(ArrayRules::of(&Shape::Named(&NODE))),
)]));
static NODE: Named = Named {
    name: "Node",
    shape: &NODE_SHAPE,
    recursive: true,
};
static TREE: ObjectShape =
    ObjectShape::of(&[Field::new("root", "The root.", &Shape::Named(&NODE))]);

/// A tool whose one argument is a recursive type.
fn tree() -> Root<'static> {
    Root {
        input: &TREE,
        groups: Groups::NONE,
        defs: &TREE_DEFS,
    }
}
static TREE_DEFS: [&Named; 1] = [&NODE];

#[test]
fn recursive_types_in_each_dialect() {
    let (strict, gemini) = both(&tree());
    assert!(
        strict.contains(r##""root":{"description":"The root.","anyOf":[{"$ref":"#/$defs/Node"},{"type":"null"}]}"##),
        "{strict}"
    );
    assert!(
        strict.contains(r##""items":{"$ref":"#/$defs/Node"}"##),
        "{strict}"
    );
    assert!(strict.contains(r#""$defs":{"Node":"#), "{strict}");
    assert!(
        gemini.contains(r##""root":{"ref":"#/defs/Node","description":"The root."}"##),
        "{gemini}"
    );
    assert!(gemini.contains(r#""defs":{"Node":"#), "{gemini}");
}

#[test]
fn an_object_without_properties_lists_none_in_strict_mode() {
    static NONE: ObjectShape = ObjectShape::of(&[]);
    let (strict, gemini) = both(&Root::of(&NONE));
    assert_eq!(
        strict,
        r#"{"type":"object","properties":{},"required":[],"additionalProperties":false}"#
    );
    assert_eq!(gemini, r#"{"type":"object","properties":{}}"#);
}

static BOUNDED: ObjectShape = ObjectShape::of(&[
    Field {
        default: Some("30"),
        ..Field::new(
            "per_page",
            "Page size.",
            &Shape::Integer(NumberRules {
                minimum: Some(num!(1)),
                maximum: Some(num!(100)),
                ..NumberRules::NONE
            }),
        )
    },
    Field::new(
        "code",
        "Code.",
        &Shape::String(StringRules {
            pattern: Some("^[A-Z]{2}$"),
            min_length: Some(2),
            ..StringRules::NONE
        }),
    ),
    Field::new(
        "ids",
        "Ids.",
        &Shape::Array(ArrayRules {
            min_items: Some(2),
            max_items: Some(5),
            ..ArrayRules::of(&STR)
        }),
    ),
    Field::new(
        "some",
        "Some.",
        &Shape::Array(ArrayRules {
            min_items: Some(1),
            ..ArrayRules::of(&STR)
        }),
    ),
]);

#[test]
fn anthropic_strict() {
    let text = |input| emit(&Root::of(input), Labels::WIDEST, Target::AnthropicStrict).text;
    assert_eq!(
        text(&IN),
        concat!(
            r#"{"type":"object","properties":{"#,
            r#""name":{"type":"string","description":"Name."},"#,
            r#""level":{"description":"Level. Default: 1.","enum":[1,2]},"#,
            r#""site":{"type":"string","description":"Site.","format":"uri"},"#,
            r#""tags":{"type":"array","description":"Tags.","items":{"type":"object","properties":{"key":{"type":"string"},"value":{"type":"string"}},"required":["key","value"],"additionalProperties":false}},"#,
            r#""data":{"type":"string","description":"Data. Any JSON value, written as JSON text."},"#,
            r#""clear":{"description":"Clear.","anyOf":[{"type":"string"},{"type":"null"}]},"#,
            r#""either":{"description":"Either.","anyOf":[{"type":"string"},{"type":"integer"}]},"#,
            r#""set":{"type":"array","description":"Set.","items":{"type":"string"}},"#,
            r#""obj":{"type":"object","description":"Obj. Give at least one of: `a`, or `b`.","properties":{"a":{"type":"string","description":"A."},"b":{"type":"string","description":"B."}},"additionalProperties":false}"#,
            r#"},"required":["name","clear"],"additionalProperties":false}"#
        )
    );
    assert_eq!(
        text(&BOUNDED),
        concat!(
            r#"{"type":"object","properties":{"#,
            r#""per_page":{"type":"integer","description":"Page size. Minimum: 1. Maximum: 100. Default: 30."},"#,
            r#""code":{"type":"string","description":"Code. Pattern: ^[A-Z]{2}$."},"#,
            r#""ids":{"type":"array","description":"Ids. Minimum items: 2. Maximum items: 5.","items":{"type":"string"}},"#,
            r#""some":{"type":"array","description":"Some.","items":{"type":"string"},"minItems":1}"#,
            r#"},"additionalProperties":false}"#
        )
    );
}

#[test]
fn a_recursive_view_is_counted() {
    let root = tree();
    assert_eq!(
        measure(&root, Labels::WIDEST, Target::AnthropicStrict).defs,
        1
    );
    assert_eq!(
        measure(&Root::of(&BOUNDED), Labels::WIDEST, Target::AnthropicStrict).defs,
        0
    );
}

/// An answer's form: open objects (an answer may carry fields its description never listed),
/// `anyOf` for alternatives (open objects overlap, `oneOf` would refuse a right answer), and
/// "anything" written type by type, never an untyped `{}`.
#[test]
fn results_are_open_say_any_outright_and_take_overlapping_alternatives() {
    assert_eq!(
        emit(&Root::of(&IN), Labels::WIDEST, Target::Result).text,
        concat!(
            r#"{"type":"object","properties":{"#,
            r#""name":{"type":"string","description":"Name."},"#,
            r#""level":{"type":"integer","description":"Level.","enum":[1,2],"default":1},"#,
            r#""site":{"type":"string","description":"Site.","format":"uri","maxLength":9},"#,
            r#""tags":{"type":"object","description":"Tags.","additionalProperties":{"type":"string"}},"#,
            r#""data":{"description":"Data.","anyOf":[{"type":"string"},{"type":"number"},{"type":"boolean"},{"type":"object"},{"type":"array"},{"type":"null"}]},"#,
            r#""clear":{"description":"Clear.","anyOf":[{"type":"string"},{"type":"null"}]},"#,
            r#""either":{"description":"Either.","anyOf":[{"type":"string"},{"type":"integer"}]},"#,
            r#""set":{"type":"array","description":"Set.","items":{"type":"string"},"uniqueItems":true},"#,
            r#""obj":{"type":"object","description":"Obj.","properties":{"a":{"type":"string","description":"A."},"b":{"type":"string","description":"B."}},"anyOf":[{"required":["a"]},{"required":["b"]}]}"#,
            r#"},"required":["name","clear"]}"#
        )
    );
    // A map of anything is the free object, open as every answer's object.
    static FREE: Shape = Shape::Map(&ANY);
    static HOLDS: ObjectShape = ObjectShape::of(&[Field::new("free", "", &FREE)]);
    assert_eq!(
        emit(&Root::of(&HOLDS), Labels::WIDEST, Target::Result).text,
        r#"{"type":"object","properties":{"free":{"type":"object"}}}"#
    );
}
