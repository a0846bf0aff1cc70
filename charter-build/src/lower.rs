//! The resolved pack as `charter_schema` shapes: the tree the emitter writes every view's
//! schema from (natively, here in the build script) and the tree `generate` prints as the
//! table's statics, so the text the model reads and the rules validation applies come from one
//! tree. Build scripts are short-lived: the tree is leaked to get the `'static` references the
//! shape types hold.
//!
//! A named type becomes a [`Named`]. A recursive one is written once under `$defs`, so where it
//! is used only its name matters: every use refers to a stub carrying the name, and its body
//! (whose own references are stubs too) goes in [`Lowered::defs`], in declaration order.

use charter_schema::{
    ArrayRules, Doc, Field, Format, ListStyle, Location, Named, Num, NumberRules, ObjectShape,
    Shape, StringRules,
};

use crate::model::{FieldModel, GroupsModel, Node, NodeKind, NumModel, PackModel, Ty};
use crate::pack::{FormatName, In, Number, Style};

/// Groups of field names (`require_one_of` or `require_exactly_one_of`).
pub type GroupLists = &'static [&'static [&'static str]];

/// A pack's shapes.
#[derive(Debug)]
pub struct Lowered {
    /// Each tool's arguments, in tool order.
    pub inputs: Vec<&'static ObjectShape>,
    /// Each tool's own groups (`require_one_of`, `require_exactly_one_of`), in tool order.
    pub groups: Vec<(GroupLists, GroupLists)>,
    /// Every named type a tool uses, in declaration order (recursive ones with their bodies).
    pub types: Vec<&'static Named>,
    /// The recursive ones among them, in declaration order: a tool's `$defs` universe.
    pub defs: &'static [&'static Named],
    /// Each tool's result shape (`None`: it declares none), in tool order.
    pub results: Vec<Option<&'static Shape>>,
}

fn leak<T>(v: T) -> &'static T {
    Box::leak(Box::new(v))
}

fn leak_slice<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

fn groups(list: &[Vec<String>]) -> GroupLists {
    leak_slice(
        list.iter()
            .map(|g| leak_slice(g.iter().map(|n| leak_str(n)).collect()))
            .collect(),
    )
}

/// Lowers a resolved pack.
pub fn lower(pack: &PackModel) -> Lowered {
    let mut l = Lowerer {
        pack,
        named: vec![None; pack.types.len()],
        // A stub says only what a use of the type writes: its name (for `$ref`) and its own
        // description (the use's, when it has none).
        stubs: pack
            .types
            .iter()
            .map(|t| {
                t.recursive.then(|| {
                    let shape: &'static Shape = match &t.node.description {
                        Some(d) => leak(Shape::Doc(leak(
                            Doc::new(&Shape::Any).with_description(leak_str(d)),
                        ))),
                        None => &Shape::Any,
                    };
                    leak(Named::new(leak_str(&t.name), shape).with_recursive(true))
                })
            })
            .collect(),
    };
    let inputs = pack
        .tools
        .iter()
        .map(|t| leak(l.object(&t.params, &GroupsModel::default())))
        .collect();
    let groups = pack
        .tools
        .iter()
        .map(|t| (groups(&t.require_one_of), groups(&t.require_exactly_one_of)))
        .collect();
    let results = pack
        .tools
        .iter()
        .map(|t| t.result.as_ref().ok().map(|ty| l.ty(ty)))
        .collect();
    // Recursive bodies, and every used type (a static each in the generated code).
    let mut types = Vec::new();
    let mut defs = Vec::new();
    for (i, t) in pack.types.iter().enumerate() {
        if !t.used {
            continue;
        }
        let named = if t.recursive {
            let real: &'static Named =
                leak(Named::new(leak_str(&t.name), l.typed(&t.node)).with_recursive(true));
            defs.push(real);
            real
        } else {
            l.named(i)
        };
        types.push(named);
    }
    Lowered {
        inputs,
        groups,
        types,
        defs: leak_slice(defs),
        results,
    }
}

struct Lowerer<'m> {
    pack: &'m PackModel,
    /// Non-recursive named types built so far.
    named: Vec<Option<&'static Named>>,
    /// The stand-ins of recursive types (by type index).
    stubs: Vec<Option<&'static Named>>,
}

impl Lowerer<'_> {
    /// The [`Named`] of non-recursive type `i` (built once), or the stub of a recursive one.
    fn named(&mut self, i: usize) -> &'static Named {
        if let Some(stub) = self.stubs[i] {
            return stub;
        }
        if let Some(n) = self.named[i] {
            return n;
        }
        let t = &self.pack.types[i];
        let n: &'static Named = leak(Named::new(leak_str(&t.name), self.typed(&t.node)));
        self.named[i] = Some(n);
        n
    }

    /// A node with its own description and default (a named type's body, list items, map
    /// values): on a [`Doc`] when it has either.
    fn typed(&mut self, node: &Node) -> &'static Shape {
        let bare: &'static Shape = leak(self.node(node));
        if node.description.is_none() && node.default.is_none() {
            return bare;
        }
        let mut doc = Doc::new(bare);
        doc.description = node.description.as_deref().map(leak_str);
        doc.default = node.default.as_ref().map(|d| leak_str(&d.to_string()));
        leak(Shape::Doc(leak(doc)))
    }

    /// A shape in a place that is not a field (list items, map values, alternatives): with its
    /// own description and default.
    fn ty(&mut self, ty: &Ty) -> &'static Shape {
        match ty {
            Ty::Inline(node) => self.typed(node),
            Ty::Ref { description, .. } => {
                let shape = self.reference(ty);
                match description {
                    Some(d) => leak(Shape::Doc(leak(
                        Doc::new(shape).with_description(leak_str(d)),
                    ))),
                    None => shape,
                }
            }
        }
    }

    /// A field's shape: its description and default are the field's own.
    fn field_shape(&mut self, ty: &Ty) -> &'static Shape {
        match ty {
            Ty::Inline(node) => leak(self.node(node)),
            Ty::Ref { .. } => self.reference(ty),
        }
    }

    /// A use of a named type: `Named`, or `Nullable(Named)` when the use allows `null` and the
    /// type does not already.
    fn reference(&mut self, ty: &Ty) -> &'static Shape {
        let Ty::Ref {
            index, nullable, ..
        } = ty
        else {
            unreachable!("called on references only")
        };
        let named = self.named(*index);
        let shape: &'static Shape = leak(Shape::Named(named));
        if *nullable && !self.pack.types[*index].node.nullable {
            leak(Shape::Nullable(shape))
        } else {
            shape
        }
    }

    /// An inline node's shape, without its description and default (its place says them).
    fn node(&mut self, node: &Node) -> Shape {
        let inner = match &node.kind {
            NodeKind::Any => return Shape::Any,
            NodeKind::Bool => Shape::Bool,
            NodeKind::Integer(n) => Shape::Integer(numbers(n)),
            NodeKind::Number(n) => Shape::Number(numbers(n)),
            NodeKind::String(s) => {
                let mut rules = StringRules::NONE.with_enum_values(leak_slice(
                    s.enum_values.iter().map(|v| leak_str(v)).collect(),
                ));
                rules.min_length = s.min_length;
                rules.max_length = s.max_length;
                rules.pattern = s.pattern.as_deref().map(leak_str);
                rules.format = s.format.map(format);
                Shape::String(rules)
            }
            NodeKind::Array {
                items,
                min_items,
                max_items,
            } => {
                let mut rules = ArrayRules::of(self.ty(items));
                rules.min_items = *min_items;
                rules.max_items = *max_items;
                Shape::Array(rules)
            }
            NodeKind::Object(fields, groups) => Shape::Object(self.object(fields, groups)),
            NodeKind::Map(values) => Shape::Map(self.ty(values)),
            NodeKind::OneOf(alts) => {
                let alts: Vec<Shape> = alts.iter().map(|a| self.alternative(a)).collect();
                Shape::OneOf(leak_slice(alts))
            }
        };
        if node.nullable {
            Shape::Nullable(leak(inner))
        } else {
            inner
        }
    }

    /// A `one_of` alternative, as a value (the slice holds shapes, not references).
    fn alternative(&mut self, ty: &Ty) -> Shape {
        match ty {
            Ty::Inline(node) if node.description.is_none() && node.default.is_none() => {
                self.node(node)
            }
            _ => match self.ty(ty) {
                Shape::Doc(d) => Shape::Doc(d),
                Shape::Named(n) => Shape::Named(n),
                Shape::Nullable(s) => Shape::Nullable(s),
                _ => unreachable!("a described node or a reference"),
            },
        }
    }

    fn object(&mut self, fields: &[FieldModel], g: &GroupsModel) -> ObjectShape {
        let fields: Vec<Field> = fields.iter().map(|f| self.field(f)).collect();
        ObjectShape::of(leak_slice(fields))
            .with_require_one_of(groups(&g.at_least_one))
            .with_require_exactly_one_of(groups(&g.exactly_one))
    }

    fn field(&mut self, f: &FieldModel) -> Field {
        let shape = self.field_shape(&f.ty);
        let mut field = Field::new(leak_str(&f.name), leak_str(&f.description), shape)
            .with_wire(leak_str(&f.wire))
            .with_required(f.required)
            .with_modes(leak_slice(f.modes.iter().map(|m| leak_str(m)).collect()))
            .with_location(match f.location {
                None => Location::Arg,
                Some(In::Path) => Location::Path,
                Some(In::Query) => Location::Query,
                Some(In::Header) => Location::Header,
                Some(In::Body) if f.spread => Location::BodySpread,
                Some(In::Body) => Location::Body,
            })
            .with_style(match f.style {
                Style::Repeat => ListStyle::Repeat,
                Style::Brackets => ListStyle::Brackets,
                Style::Comma => ListStyle::Comma,
            })
            .with_allow_slash(f.allow_slash);
        // What may be absent is set as it is (a `with_*` takes a value that is there).
        field.default = f.default.as_ref().map(|d| leak_str(&d.to_string()));
        field.from_context = f.from_context.as_deref().map(leak_str);
        field
    }
}

fn num(n: &Number) -> Num {
    Num {
        value: n.as_f64().unwrap_or(0.0),
        text: leak_str(&n.to_string()),
    }
}

fn numbers(n: &NumModel) -> NumberRules {
    let mut rules =
        NumberRules::NONE.with_enum_values(leak_slice(n.enum_values.iter().map(num).collect()));
    rules.minimum = n.minimum.as_ref().map(num);
    rules.maximum = n.maximum.as_ref().map(num);
    rules
}

fn format(f: FormatName) -> Format {
    match f {
        FormatName::DateTime => Format::DateTime,
        FormatName::Date => Format::Date,
        FormatName::DateTimeLocal => Format::DateTimeLocal,
        FormatName::Email => Format::Email,
        FormatName::Uri => Format::Uri,
        FormatName::Uuid => Format::Uuid,
        FormatName::Base64Url => Format::Base64Url,
    }
}
