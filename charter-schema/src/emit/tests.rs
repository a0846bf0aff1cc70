use super::*;
use crate::num;
use crate::shape::*;
use crate::view::PathCost;

const STR: Shape = Shape::String(StringRules::NONE);
const INT: Shape = Shape::Integer(NumberRules::NONE);

const fn field(name: &'static str, description: &'static str, shape: &'static Shape) -> Field {
    Field::new(name, description, shape)
}

const fn required(f: Field) -> Field {
    Field {
        required: true,
        ..f
    }
}

fn text(root: &Root<'_>) -> Emitted {
    emit(root, Labels::WIDEST, Target::Portable)
}

#[test]
fn compact_text_in_one_member_order() {
    static Q: Shape = Shape::String(StringRules {
        enum_values: &["x", "y"],
        ..StringRules::NONE
    });
    static N: Shape = Shape::Integer(NumberRules {
        minimum: Some(num!(1)),
        maximum: Some(num!(9)),
        enum_values: &[],
    });
    static IN: ObjectShape = ObjectShape::of(&[
        Field {
            default: Some("\"x\""),
            ..field("q", "Q.", &Q)
        },
        required(field("n", "N.", &N)),
    ]);
    let v = text(&Root::of(&IN));
    assert_eq!(
        v.text,
        r#"{"type":"object","properties":{"q":{"type":"string","description":"Q.","enum":["x","y"],"default":"x"},"n":{"type":"integer","description":"N.","minimum":1,"maximum":9}},"required":["n"],"additionalProperties":false}"#
    );
    assert_eq!(v.tokens as usize, v.text.chars().count() / 4);
}

#[test]
fn no_parameters() {
    static IN: ObjectShape = ObjectShape::of(&[]);
    let v = text(&Root::of(&IN));
    assert_eq!(
        v.text,
        r#"{"type":"object","properties":{},"additionalProperties":false}"#
    );
    assert!(v.paths.is_empty() && v.spans.is_empty());
}

#[test]
fn nullable_values_are_any_of_with_null() {
    static S: Shape = Shape::Nullable(&Shape::String(StringRules {
        enum_values: &["a"],
        ..StringRules::NONE
    }));
    static ALTS: Shape = Shape::Nullable(&Shape::OneOf(&[STR, INT]));
    static FREE: Shape = Shape::Map(&Shape::Any);
    static ITEMS: Shape = Shape::Array(ArrayRules {
        unique_items: true,
        ..ArrayRules::of(&Shape::Nullable(&INT))
    });
    static IN: ObjectShape = ObjectShape::of(&[
        field("s", "S.", &S),
        field("o", "O.", &ALTS),
        field("f", "Free.", &FREE),
        field("l", "L.", &ITEMS),
    ]);
    let v = text(&Root::of(&IN));
    assert_eq!(
        v.text,
        concat!(
            r#"{"type":"object","properties":{"#,
            r#""s":{"description":"S.","anyOf":[{"type":"string","enum":["a"]},{"type":"null"}]},"#,
            r#""o":{"description":"O.","oneOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]},"#,
            r#""f":{"type":"object","description":"Free.","additionalProperties":true},"#,
            r#""l":{"type":"array","description":"L.","items":{"anyOf":[{"type":"integer"},{"type":"null"}]},"uniqueItems":true}"#,
            r#"},"additionalProperties":false}"#
        )
    );
}

#[test]
fn groups_are_a_sentence_at_the_root_and_combinators_below() {
    static INNER: Shape = Shape::Nullable(&Shape::Object(ObjectShape {
        fields: &[field("url", "U.", &STR), field("number", "N.", &INT)],
        require_one_of: &[],
        require_exactly_one_of: &[&["url"], &["number"]],
    }));
    static IN: ObjectShape = ObjectShape::of(&[
        field("reviewers", "R.", &STR),
        field("team_reviewers", "T.", &STR),
        field("dup", "D.", &INNER),
    ]);
    let root = Root {
        input: &IN,
        groups: Groups {
            at_least_one: &[&["reviewers"], &["team_reviewers"]],
            exactly_one: &[],
        },
        defs: &[],
    };
    let v = text(&root);
    assert!(
        v.text.starts_with(
            r#"{"type":"object","description":"Give at least one of: `reviewers`, or `team_reviewers`.","properties":{"#
        ),
        "{}",
        v.text
    );
    assert!(v.text.contains(
        r#""dup":{"description":"D.","anyOf":[{"type":"object","properties":{"url":{"type":"string","description":"U."},"number":{"type":"integer","description":"N."}},"oneOf":[{"required":["url"]},{"required":["number"]}],"additionalProperties":false},{"type":"null"}]}"#
    ));
    let words = charter_terms::groups::sentence(&[&["reviewers"][..], &["team_reviewers"]], &[]);
    assert!(v.text.contains(&words.unwrap()), "one wording");
}

/// A tree node: a recursive named type.
static NODE: Named = Named {
    name: "Node",
    shape: &Shape::Doc(&Doc {
        description: Some("A tree node."),
        default: None,
        shape: &Shape::Object(ObjectShape::of(&[
            required(field("name", "The name.", &STR)),
            field(
                "children",
                "Subtrees.",
                &Shape::Array(ArrayRules::of(&Shape::Named(&NODE))),
            ),
        ])),
    }),
    recursive: true,
};

#[test]
fn recursive_types_are_defs_and_refs() {
    static TREE: Shape = Shape::Nullable(&Shape::Named(&NODE));
    static OTHER: Shape = Shape::Named(&NODE);
    static IN: ObjectShape = ObjectShape::of(&[
        field("tree", "The tree.", &TREE),
        field("other", "", &OTHER),
    ]);
    let root = Root {
        input: &IN,
        groups: Groups::NONE,
        defs: &[&NODE],
    };
    let v = text(&root);
    assert_eq!(
        v.text,
        concat!(
            r#"{"type":"object","properties":{"#,
            r##""tree":{"description":"The tree.","anyOf":[{"$ref":"#/$defs/Node"},{"type":"null"}]},"##,
            r##""other":{"$ref":"#/$defs/Node","description":"A tree node."}},"##,
            r#""additionalProperties":false,"$defs":{"Node":{"type":"object","description":"A tree node.","#,
            r#""properties":{"name":{"type":"string","description":"The name."},"#,
            r##""children":{"type":"array","description":"Subtrees.","items":{"$ref":"#/$defs/Node","description":"A tree node."}}},"##,
            r#""required":["name"],"additionalProperties":false}}}"#
        )
    );
    // Dropping either property keeps `$defs` (the other still refers); dropping both (the
    // saving of each is measured by a pass without it) is exact.
    for p in &v.paths {
        let without = measure_without(&root, Labels::WIDEST, Target::Portable, ROOT, &p.path);
        assert_eq!(p.saves, v.tokens - without.tokens(), "{}", p.path);
    }
    assert_eq!(v.paths.len(), 2, "recursive types are not descended");
}

/// Removes `(a, b)` from `text`.
fn splice(text: &str, (a, b): (u32, u32)) -> String {
    format!("{}{}", &text[..a as usize], &text[b as usize..])
}

#[test]
fn every_span_splices_to_the_schema_without_that_property() {
    static A: Field = required(field("a", "A.", &STR));
    static B: Field = field("b", "B é.", &STR);
    static C: Field = required(field("c", "C.", &INT));
    let sets: [&[&Field]; 5] = [&[&A], &[&B, &A], &[&A, &C], &[&A, &B, &C], &[&B, &B, &B]];
    let mut spliced = 0;
    for set in sets {
        let fields: Vec<Field> = set.iter().map(|f| copy(f)).collect();
        let input: &'static ObjectShape = Box::leak(Box::new(ObjectShape::of(fields.leak())));
        let full = text(&Root::of(input));
        assert_eq!(full.spans.len(), set.len());
        for (i, span) in full.spans.iter().enumerate() {
            let mut t = full.text.clone();
            if let Some(r) = span.required {
                t = splice(&t, r);
            }
            t = splice(&t, span.property);
            let rest: Vec<Field> = input
                .fields
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, f)| copy(f))
                .collect();
            let smaller: &'static ObjectShape = Box::leak(Box::new(ObjectShape::of(rest.leak())));
            assert_eq!(t, text(&Root::of(smaller)).text, "splicing {}", span.name);
            let cost = full.paths.iter().find(|p| p.path == span.name).unwrap();
            assert_eq!(cost.saves, full.tokens - (t.chars().count() / 4) as u32);
            spliced += 1;
        }
    }
    assert_eq!(spliced, 11);
}

fn copy(f: &Field) -> Field {
    Field {
        name: f.name,
        wire: f.wire,
        description: f.description,
        shape: f.shape,
        required: f.required,
        modes: f.modes,
        default: f.default,
        location: f.location,
        style: f.style,
        allow_slash: f.allow_slash,
        from_context: f.from_context,
    }
}

#[test]
fn nested_paths_save_exactly_what_a_pass_without_them_saves() {
    static POINT: Named = Named {
        name: "Point",
        shape: &Shape::Doc(&Doc {
            description: Some("A point."),
            default: None,
            shape: &Shape::Object(ObjectShape::of(&[
                required(field("x", "X.", &Shape::Number(NumberRules::NONE))),
                required(field("y", "Y.", &Shape::Number(NumberRules::NONE))),
            ])),
        }),
        recursive: false,
    };
    static STATE: Shape = Shape::String(StringRules {
        enum_values: &["open", "closed", "all"],
        ..StringRules::NONE
    });
    static TAG: Shape = Shape::Object(ObjectShape::of(&[field("name", "The tag name.", &STR)]));
    static FILTER: Shape = Shape::Nullable(&Shape::Object(ObjectShape::of(&[
        required(field("state", "The state to match.", &STATE)),
        field("range", "Where.", &Shape::Named(&POINT)),
        field("tags", "Tags.", &Shape::Array(ArrayRules::of(&TAG))),
    ])));
    static IN: ObjectShape = ObjectShape::of(&[
        field("filter", "F.", &FILTER),
        field("tree", "A tree.", &Shape::Named(&NODE)),
    ]);
    let root = Root {
        input: &IN,
        groups: Groups::NONE,
        defs: &[&NODE],
    };
    let full = text(&root);
    let names: Vec<&str> = full.paths.iter().map(|p| p.path.as_str()).collect();
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
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }
    assert_eq!(names.len(), 8);
    assert_eq!(names[0], "filter");
    assert!(full.paths.windows(2).all(|w| w[0].saves >= w[1].saves));
    // Each saving against a pass that leaves the property out: find the owning object's walk
    // index by walking the paths in walk order (preorder), as the emitter numbers them.
    let walk = [
        "filter",
        "filter.state",
        "filter.range",
        "filter.range.x",
        "filter.range.y",
        "filter.tags",
        "filter.tags.name",
        "tree",
    ];
    for p in &full.paths {
        let (parent, name) = match p.path.rsplit_once('.') {
            Some((parent, name)) => (walk.iter().position(|w| *w == parent).unwrap(), name),
            None => (ROOT, p.path.as_str()),
        };
        let without = measure_without(&root, Labels::WIDEST, Target::Portable, parent, name);
        assert!(without.chars < full.text.chars().count(), "{}", p.path);
        assert_eq!(p.saves, full.tokens - without.tokens(), "{}", p.path);
        assert_eq!(p.depth as usize, p.path.split('.').count());
    }
}

#[test]
fn labels_choose_the_fields() {
    static IN: ObjectShape = ObjectShape::of(&[
        field("a", "A.", &STR),
        Field {
            modes: &["pro"],
            ..field("pro_only", "P.", &STR)
        },
        Field {
            from_context: Some("k"),
            ..field("customer", "C.", &STR)
        },
    ]);
    let props = |labels: Labels<'_>| -> Vec<&'static str> {
        emit(&Root::of(&IN), labels, Target::Portable)
            .spans
            .iter()
            .map(|s| s.name)
            .collect()
    };
    assert_eq!(props(Labels::WIDEST), ["a", "pro_only"]);
    let none = Labels {
        active: &[],
        widest: false,
    };
    assert_eq!(props(none), ["a"]);
    let pro = Labels {
        active: &["pro"],
        widest: false,
    };
    assert_eq!(props(pro), ["a", "pro_only"]);
}

/// The same view evaluated in `const` context, as `#[charter::tool]` does.
mod constant {
    use super::*;

    static POINTS: Shape = Shape::Array(ArrayRules::of(&Shape::Object(ObjectShape::of(&[
        required(field("x", "X.", &INT)),
        required(field("y", "Y.", &INT)),
    ]))));
    static IN: ObjectShape = ObjectShape::of(&[
        required(field("a", "A é.", &STR)),
        field("p", "Points.", &POINTS),
        required(field("b", "B.", &INT)),
    ]);
    const ROOT_OF: Root<'static> = Root::of(&IN);
    const M: Measure = measure(&ROOT_OF, Labels::WIDEST, Target::Portable);
    const V: ViewText<{ M.bytes }, { M.spans }, { M.paths }, { M.path_text }> =
        view_text(&ROOT_OF, Labels::WIDEST, Target::Portable);
    const TEXT: [u8; M.bytes] = V.text;
    const PT: [u8; M.path_text] = V.path_text;
    const PATHS: [PathCost; M.paths] = path_costs(&V.raw, &PT);

    #[test]
    fn const_and_native_agree() {
        let native = emit(&ROOT_OF, Labels::WIDEST, Target::Portable);
        assert_eq!(utf8(&TEXT), native.text);
        assert_eq!(V.tokens, native.tokens);
        assert_eq!(V.spans.to_vec(), native.spans);
        let consts: Vec<(String, u8, u32)> = PATHS
            .iter()
            .map(|p| (p.path.to_owned(), p.depth, p.saves))
            .collect();
        let natives: Vec<(String, u8, u32)> = native
            .paths
            .iter()
            .map(|p| (p.path.clone(), p.depth, p.saves))
            .collect();
        assert_eq!(consts, natives);
        assert_eq!(
            natives.iter().map(|p| p.0.as_str()).collect::<Vec<_>>(),
            ["p", "a", "p.x", "p.y", "b"]
        );
    }

    #[test]
    fn a_lone_shape() {
        static S: Shape = Shape::Array(ArrayRules {
            min_items: Some(12),
            max_items: Some(12),
            ..ArrayRules::of(&Shape::Nullable(&Shape::Integer(NumberRules {
                minimum: Some(num!(0)),
                maximum: Some(num!(255)),
                enum_values: &[],
            })))
        });
        assert_eq!(
            emit_shape(&S, Target::Portable),
            r#"{"type":"array","items":{"anyOf":[{"type":"integer","minimum":0,"maximum":255},{"type":"null"}]},"minItems":12,"maxItems":12}"#
        );
        assert_eq!(num!(-128).text, "-128");
        assert_eq!(num!(-128).value, -128.0);
        assert_eq!(num!(0.5).text, "0.5");
    }
}
