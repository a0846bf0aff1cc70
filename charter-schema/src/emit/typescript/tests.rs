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

fn widest(root: &Root<'_>, returns: Returns<'_>) -> String {
    signature(root, Labels::WIDEST, returns).0
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
    let (text, tokens) = signature(&Root::of(&IN), Labels::WIDEST, Returns::Any);
    assert_eq!(
        text,
        "(args: {\n  /** Repository owner. */ owner: string;\n  /** Which *\\/ issues, by state. */ state?: \"open\" | \"closed\";\n  level?: 1 | -2;\n  \"per-page\"?: number;\n}): Promise<any>"
    );
    assert_eq!(tokens as usize, text.chars().count() / 4);
}

#[test]
fn nothing_shown_nothing_required() {
    static NONE: ObjectShape = ObjectShape::of(&[]);
    assert_eq!(widest(&Root::of(&NONE), Returns::Any), "(): Promise<any>");
    static OPT: ObjectShape = ObjectShape::of(&[Field::new("q", "", &STR)]);
    assert_eq!(
        widest(&Root::of(&OPT), Returns::Any),
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
        widest(&Root::of(&IN), Returns::Any),
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
        signature(&root, narrow, Returns::Any).0,
        "(args?: {\n  // Give at least one of: a, or b.\n  a?: string;\n}): Promise<any>"
    );
    assert!(widest(&root, Returns::Any).contains("  b?: string;\n"));
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
        widest(&root, Returns::Any),
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
        widest(&Root::of(&IN), Returns::Kept(&keep)),
        "(): Promise<{number; labels: {name; color}; user: {login}; pull_request: {head: {ref}; html_url}}>"
    );
}

#[test]
fn const_evaluation_matches_the_native_call() {
    static IN: ObjectShape = ObjectShape::of(&[required(Field::new("q", "Query.", &STR))]);
    const ROOT: Root<'static> = Root::of(&IN);
    const M: Measure = signature_measure(&ROOT, Labels::WIDEST, Returns::Kept(&["id"]));
    const S: SignatureText<{ M.bytes }> =
        signature_text(&ROOT, Labels::WIDEST, Returns::Kept(&["id"]));
    let (text, tokens) = signature(&ROOT, Labels::WIDEST, Returns::Kept(&["id"]));
    assert_eq!(crate::emit::utf8(&S.text), text);
    assert_eq!(S.tokens, tokens);
}

#[test]
fn the_result_from_a_shape() {
    static NULL_STR: Shape = Shape::Nullable(&STR);
    static TASK: Shape = Shape::Object(ObjectShape::of(&[
        required(Field::new("title", "The task's title.", &STR)),
        required(Field::new("done", "", &Shape::Bool)),
        // An `Option<String>` field: absent or `null` in what serde writes, which a result's
        // `?` says (no `| null` beside it).
        Field::new("note", "", &STR),
        // Nullable and optional: `?` says it too.
        Field::new("due", "", &NULL_STR),
        Field::new("meta", "", &Shape::Any),
    ]));
    static TASKS: Shape = Shape::Array(ArrayRules::of(&TASK));
    static IN: ObjectShape = ObjectShape::of(&[required(Field::new("q", "", &STR))]);
    assert_eq!(
        widest(&Root::of(&IN), Returns::Shape(&TASKS)),
        "(args: {\n  q: string;\n}): Promise<{/** The task's title. */ title: string; done: boolean; note?: string; due?: string; meta?: any}[]>"
    );
    // Arguments keep their own rule: an optional member is not `| null`.
    static ARG: ObjectShape = ObjectShape::of(&[Field::new("t", "", &TASK)]);
    let text = widest(&Root::of(&ARG), Returns::Shape(&NULL_STR));
    assert!(text.contains("t?: {"), "{text}");
    assert!(text.contains("; note?: string; due"), "{text}");
    assert!(text.ends_with("}): Promise<string | null>"), "{text}");
    static NONE: ObjectShape = ObjectShape::of(&[]);
    assert_eq!(
        widest(&Root::of(&NONE), Returns::Shape(&INT)),
        "(): Promise<number>"
    );
    assert_eq!(
        widest(&Root::of(&NONE), Returns::Kept(&[])),
        "(): Promise<any>"
    );
}

#[test]
fn a_results_recursive_type_outside_defs_is_any() {
    static NODE: Named = Named {
        name: "Node",
        shape: &Shape::Object(ObjectShape::of(&[Field::new("children", "", &KIDS)])),
        recursive: true,
    };
    static KIDS: Shape = Shape::Array(ArrayRules::of(&Shape::Named(&NODE)));
    static NONE: ObjectShape = ObjectShape::of(&[]);
    assert_eq!(
        widest(&Root::of(&NONE), Returns::Shape(&KIDS)),
        "(): Promise<any[]>"
    );
    // Declared by the tool (its arguments may reach it too): by name, declared after the
    // signature as arguments see it.
    let root = Root {
        input: &NONE,
        groups: Groups::NONE,
        defs: &[&NODE],
    };
    assert_eq!(
        widest(&root, Returns::Shape(&KIDS)),
        "(): Promise<Node[]>\ntype Node = {children?: Node[]}"
    );
}

#[test]
fn a_typed_result_in_const_matches_the_native_call() {
    static OUT: Shape = Shape::Object(ObjectShape::of(&[
        required(Field::new("ok", "Whether it worked, ✓.", &Shape::Bool)),
        Field::new("why", "", &STR),
    ]));
    static IN: ObjectShape = ObjectShape::of(&[required(Field::new("q", "Query.", &STR))]);
    const ROOT: Root<'static> = Root::of(&IN);
    const R: Returns<'static> = Returns::Shape(&OUT);
    const M: Measure = signature_measure(&ROOT, Labels::WIDEST, R);
    const S: SignatureText<{ M.bytes }> = signature_text(&ROOT, Labels::WIDEST, R);
    let (text, tokens) = signature(&ROOT, Labels::WIDEST, R);
    assert_eq!(crate::emit::utf8(&S.text), text);
    assert_eq!((M.bytes, M.chars), (text.len(), text.chars().count()));
    assert_eq!(S.tokens, tokens);
    assert!(text.ends_with("Promise<{/** Whether it worked, ✓. */ ok: boolean; why?: string}>"));
}

#[test]
fn a_results_objects_past_two_levels_are_object_arguments_are_whole() {
    static ADDRESS: Shape = Shape::Object(ObjectShape::of(&[Field::new("city", "", &STR)]));
    static INVOICE: Shape = Shape::Object(ObjectShape::of(&[
        Field::new("id", "", &STR),
        Field::new("address", "", &ADDRESS),
    ]));
    static INVOICES: Shape = Shape::Array(ArrayRules::of(&INVOICE));
    static PAGE: Shape = Shape::Object(ObjectShape::of(&[Field::new("data", "", &INVOICES)]));
    static IN: ObjectShape = ObjectShape::of(&[Field::new("filter", "", &INVOICE)]);
    assert_eq!(
        widest(&Root::of(&IN), Returns::Shape(&PAGE)),
        "(args?: {\n  filter?: {id?: string; address?: {city?: string}};\n}): Promise<{data?: {id?: string; address?: object}[]}>"
    );
}

#[test]
fn alternatives_past_the_results_depth_say_object_once() {
    static EXPANDABLE: Shape = Shape::AnyOf(&[
        STR,
        Shape::Object(ObjectShape::of(&[Field::new("email", "", &STR)])),
        Shape::Object(ObjectShape::of(&[Field::new("deleted", "", &STR)])),
    ]);
    static INVOICE: Shape =
        Shape::Object(ObjectShape::of(&[Field::new("customer", "", &EXPANDABLE)]));
    static INVOICES: Shape = Shape::Array(ArrayRules::of(&INVOICE));
    static PAGE: Shape = Shape::Object(ObjectShape::of(&[Field::new("data", "", &INVOICES)]));
    static IN: ObjectShape = ObjectShape::of(&[]);
    assert_eq!(
        widest(&Root::of(&IN), Returns::Shape(&PAGE)),
        "(): Promise<{data?: {customer?: string | object}[]}>"
    );
    // Within the depth each alternative is spelt out.
    assert_eq!(
        widest(&Root::of(&IN), Returns::Shape(&INVOICE)),
        "(): Promise<{customer?: string | {email?: string} | {deleted?: string}}>"
    );
}
