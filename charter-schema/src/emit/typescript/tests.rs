use super::*;
use crate::emit::Groups;
use crate::num;
use crate::shape::*;

const STR: Shape = Shape::String(StringRules::NONE);
const INT: Shape = Shape::Integer(NumberRules::NONE);

const fn required(f: Field) -> Field {
    Field {
        required: true,
        ..f
    }
}

fn widest(root: &Root<'_>, keep: &[&str]) -> String {
    signature(root, Labels::WIDEST, keep).0
}

#[test]
fn arguments_with_docs_enums_and_optional_members() {
    static STATE: Shape = Shape::String(StringRules {
        enum_values: &["open", "closed"],
        ..StringRules::NONE
    });
    static LEVELS: Shape = Shape::Integer(NumberRules {
        enum_values: &[num!(1), num!(-2)],
        ..NumberRules::NONE
    });
    static IN: ObjectShape = ObjectShape::of(&[
        required(Field::new("owner", "Repository owner.", &STR)),
        Field::new("state", "Which */ issues,\nby state.", &STATE),
        Field::new("level", "", &LEVELS),
        Field::new("per-page", "", &INT),
    ]);
    let (text, tokens) = signature(&Root::of(&IN), Labels::WIDEST, &[]);
    assert_eq!(
        text,
        "(args: {\n  /** Repository owner. */ owner: string;\n  /** Which *\\/ issues, by state. */ state?: \"open\" | \"closed\";\n  level?: 1 | -2;\n  \"per-page\"?: number;\n}): Promise<any>"
    );
    assert_eq!(tokens as usize, text.chars().count() / 4);
}

#[test]
fn nothing_shown_nothing_required() {
    static NONE: ObjectShape = ObjectShape::of(&[]);
    assert_eq!(widest(&Root::of(&NONE), &[]), "(): Promise<any>");
    static OPT: ObjectShape = ObjectShape::of(&[Field::new("q", "", &STR)]);
    assert_eq!(
        widest(&Root::of(&OPT), &[]),
        "(args?: {\n  q?: string;\n}): Promise<any>"
    );
}

#[test]
fn nested_lists_maps_nullable_and_alternatives() {
    static ITEM: Shape = Shape::Object(ObjectShape::of(&[
        required(Field::new("a", "The a.", &STR)),
        Field::new("b", "", &INT),
    ]));
    static NULL_STR: Shape = Shape::Nullable(&STR);
    static LIST: Shape = Shape::Array(ArrayRules::of(&ITEM));
    static NULLS: Shape = Shape::Array(ArrayRules::of(&NULL_STR));
    static MAP: Shape = Shape::Map(&Shape::Any);
    static ALTS: Shape = Shape::OneOf(&[STR, Shape::Bool]);
    static IN: ObjectShape = ObjectShape::of(&[
        required(Field::new("items", "", &LIST)),
        Field::new("tags", "", &NULLS),
        Field::new("meta", "", &MAP),
        Field::new("x", "", &ALTS),
        Field::new("n", "", &NULL_STR),
    ]);
    assert_eq!(
        widest(&Root::of(&IN), &[]),
        "(args: {\n  items: {/** The a. */ a: string; b?: number}[];\n  tags?: (string | null)[];\n  meta?: Record<string, any>;\n  x?: string | boolean;\n  n?: string | null;\n}): Promise<any>"
    );
}

#[test]
fn views_hide_fields_and_groups_are_a_comment() {
    static IN: ObjectShape = ObjectShape::of(&[
        Field::new("a", "", &STR),
        Field {
            modes: &["admin"],
            ..Field::new("b", "", &STR)
        },
        Field {
            from_context: Some("tenant"),
            ..Field::new("t", "", &STR)
        },
    ]);
    let root = Root {
        input: &IN,
        groups: Groups {
            at_least_one: &[&["a"], &["b"]],
            exactly_one: &[],
        },
        defs: &[],
    };
    let narrow = Labels {
        active: &["read"],
        widest: false,
    };
    assert_eq!(
        signature(&root, narrow, &[]).0,
        "(args?: {\n  // Give at least one of: a, or b.\n  a?: string;\n}): Promise<any>"
    );
    assert!(widest(&root, &[]).contains("  b?: string;\n"));
}

#[test]
fn recursive_types_are_declared_after() {
    static NODE: Named = Named {
        name: "Node",
        shape: &Shape::Object(ObjectShape::of(&[Field::new("children", "", &KIDS)])),
        recursive: true,
    };
    static KIDS: Shape = Shape::Array(ArrayRules::of(&Shape::Named(&NODE)));
    static IN: ObjectShape = ObjectShape::of(&[Field::new("tree", "", &Shape::Named(&NODE))]);
    let root = Root {
        input: &IN,
        groups: Groups::NONE,
        defs: &[&NODE],
    };
    assert_eq!(
        widest(&root, &[]),
        "(args?: {\n  tree?: Node;\n}): Promise<any>\ntype Node = {children?: Node[]}"
    );
}

#[test]
fn the_result_from_kept_paths() {
    static IN: ObjectShape = ObjectShape::of(&[]);
    let keep = [
        "number",
        "labels.name",
        "user.login",
        "labels.color",
        "pull_request.head.ref",
        "pull_request.html_url",
        "number",
    ];
    assert_eq!(
        widest(&Root::of(&IN), &keep),
        "(): Promise<{number; labels: {name; color}; user: {login}; pull_request: {head: {ref}; html_url}}>"
    );
}

#[test]
fn const_evaluation_matches_the_native_call() {
    static IN: ObjectShape = ObjectShape::of(&[required(Field::new("q", "Query.", &STR))]);
    const ROOT: Root<'static> = Root::of(&IN);
    const M: Measure = signature_measure(&ROOT, Labels::WIDEST, &["id"]);
    const S: SignatureText<{ M.bytes }> = signature_text(&ROOT, Labels::WIDEST, &["id"]);
    let (text, tokens) = signature(&ROOT, Labels::WIDEST, &["id"]);
    assert_eq!(crate::emit::utf8(&S.text), text);
    assert_eq!(S.tokens, tokens);
}
