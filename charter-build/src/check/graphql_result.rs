//! A GraphQL tool's result shape, derived at build time from its document's selection set
//! against the pack's `graphql_schema` (docs/results.md, "GraphQL tools").
//!
//! The runtime answers a GraphQL call with the response body, `{"data": {...}}` (a non-empty
//! `errors` fails the call, so `data` is complete on success), projected by `response.keep`
//! when the tool declares it (`charter_runtime::http::response::shape_response`). The shape
//! describes exactly that answer, so a correct answer always validates:
//!
//! - an object's members are its response keys (the alias, else the field name), each
//!   `required` (GraphQL returns every selected field), except a field only some of the
//!   concrete types of an interface or union select (a type condition), or one under
//!   `@skip`/`@include` with a variable: optional;
//! - a nullable GraphQL type is `nullable`, a non-null one is not (the server enforces it: a
//!   `null` there becomes an error, and an error fails the call);
//! - `String` and enums are strings (without their values: an API adds values), `Int` an
//!   integer, `Float` a number, `Boolean` a boolean, `ID` a string or an integer (the
//!   specification serialises it as a string, but some servers send a number: the shape takes
//!   both rather than refuse a correct answer, and still refuses an object or `null`), the
//!   custom scalars in [`TEXT_SCALARS`] strings, any other custom scalar `any`;
//! - a shape over [`MAX_NODES`] nodes has its deepest members cut to `any`.
//!
//! The root is open (as every result object is), so `extensions` (Shopify's query cost) and an
//! empty `errors` need no declaration. A document the derivation cannot type (the schema check
//! reports why) leaves the tool without a derived shape; a derivation never fails a build.

mod shape;

use std::cell::{Cell, OnceCell};

use apollo_compiler::ast::{DirectiveList, Type, Value};
use apollo_compiler::collections::HashMap;
use apollo_compiler::executable::{Field, Selection, SelectionSet};
use apollo_compiler::schema::{ExtendedType, Implementers};
use apollo_compiler::{ExecutableDocument, Name, Node};

use self::shape::{Kind, Member, Shape, fit, merge, merge_members, project, projection};
use super::graphql_schema::Schema;
use crate::pack::{Pack, Spec, Tool};
use charter_terms::http::path_segments;

/// The size budget of a derived shape, in nodes: the OpenAPI importer's default
/// (`charter_openapi::results::Options::max_nodes`), so both kinds of pack answer alike.
pub(super) const MAX_NODES: usize = 150;

/// The custom scalars that are strings, each checked against its description in the vendored
/// schemas (packs/schemas/): Linear's `DateTime`, `TimelessDate` (ISO 8601) and `UUID` (RFC
/// 4122); Shopify's `DateTime`, `Date`, `URL`, `HTML`, `FormattedString`, `Color`,
/// `UtcOffset`, `ARN`, `StorefrontID` (text by their descriptions and examples) and `Decimal`,
/// `Money`, `BigInt`, `UnsignedInt64` ("serialized as a string", "encoded as a string").
/// Every other custom scalar is `any`: Linear's `JSON` and `JSONObject`, `Duration` ("strings
/// or integers"), the `...OrDuration` and notification-type scalars.
pub(super) const TEXT_SCALARS: &[&str] = &[
    "ARN",
    "BigInt",
    "Color",
    "Date",
    "DateTime",
    "Decimal",
    "FormattedString",
    "HTML",
    "Money",
    "StorefrontID",
    "TimelessDate",
    "URL",
    "UUID",
    "UnsignedInt64",
    "UtcOffset",
];

/// Fields walked for one tool beyond which the rest is `any`: a bound on the work of
/// deriving, since a field under several type conditions is derived once for each.
const MAX_WORK: usize = 20_000;

/// Each tool's derived result shape, in tool order: `None` for a tool that declares its own
/// (`response.shape`, a results-file entry or gap), that has no `graphql` document, or whose
/// document the derivation cannot type.
pub(super) fn results(schema: &Schema, pack: &Pack) -> Vec<Option<Spec>> {
    let implementers = OnceCell::new();
    pack.tools
        .iter()
        .map(|tool| derive(schema, &implementers, tool).map(|(shape, _)| shape))
        .collect()
}

/// One tool's shape (and how many members were cut to fit [`MAX_NODES`]).
fn derive(
    schema: &Schema,
    implementers: &OnceCell<HashMap<Name, Implementers>>,
    tool: &Tool,
) -> Option<(Spec, usize)> {
    if tool.result.is_some() || tool.result_gap.is_some() {
        return None;
    }
    let doc = tool.graphql.as_ref()?;
    let valid =
        ExecutableDocument::parse_and_validate(schema, doc.value.as_str(), "graphql").ok()?;
    let operation = valid.operations.get(None).ok()?;
    let walker = Walker {
        schema,
        doc: &valid,
        implementers,
        work: Cell::new(0),
    };
    let data = walker.object(&[&operation.selection_set]);
    let mut root = Shape::new(Kind::Object(vec![Member {
        key: "data".to_owned(),
        shape: data,
        required: true,
    }]));
    let paths = projection(tool);
    if !paths.is_empty() {
        let split: Vec<Vec<&str>> = paths.iter().map(|p| path_segments(p)).collect();
        let refs: Vec<&[&str]> = split.iter().map(Vec::as_slice).collect();
        root = project(root, &refs);
    }
    let cuts = fit(&mut root, MAX_NODES);
    Some((root.spec(doc.loc), cuts))
}

/// Whether a selection is in the answer: always, never (`@skip(if: true)`,
/// `@include(if: false)`), or depending on a variable.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Presence {
    Always,
    Never,
    Maybe,
}

fn presence(directives: &DirectiveList) -> Presence {
    let mut out = Presence::Always;
    for (name, skip_when) in [("skip", true), ("include", false)] {
        let Some(d) = directives.get(name) else {
            continue;
        };
        match d.specified_argument_by_name("if").map(|v| &**v) {
            Some(Value::Boolean(b)) if *b == skip_when => return Presence::Never,
            Some(Value::Boolean(_)) => {}
            _ => out = Presence::Maybe,
        }
    }
    out
}

/// The fields one concrete type's answer holds: each response key with the field selections
/// that give it, and whether one of them is always selected.
type Collected<'d> = Vec<(&'d Name, Vec<&'d Node<Field>>, bool)>;

/// Walks one valid document's selections against the schema.
struct Walker<'a> {
    schema: &'a Schema,
    doc: &'a ExecutableDocument,
    /// Every interface's implementers, computed once per pack when first needed.
    implementers: &'a OnceCell<HashMap<Name, Implementers>>,
    /// Fields walked so far (see [`MAX_WORK`]).
    work: Cell<usize>,
}

impl<'a> Walker<'a> {
    /// The object the selection sets `sets` (every selection of one response key) answer
    /// with. An abstract type answers with one of its concrete types: each concrete type's
    /// fields are collected as execution collects them (a fragment applies when its type
    /// condition includes the type), the types selecting the same fields share one shape,
    /// and the shapes are merged, so a field some types lack is optional.
    fn object(&self, sets: &[&'a SelectionSet]) -> Shape {
        let concrete = self.concrete(sets);
        let mut groups: Vec<Collected<'a>> = Vec::new();
        for ty in &concrete {
            let mut fields = Vec::new();
            for set in sets {
                self.collect(set, ty, false, &mut fields, 0);
            }
            if !groups.iter().any(|g| same(g, &fields)) {
                groups.push(fields);
            }
        }
        if groups.is_empty() {
            return Shape::any(); // an interface nothing implements: no answer to describe
        }
        let alternatives: Vec<Vec<Member>> = groups.iter().map(|g| self.members(g)).collect();
        let mut members = merge_members(alternatives);
        let mut order = Vec::new();
        for set in sets {
            self.keys_in_order(set, &mut order, 0);
        }
        members.sort_by_key(|m| {
            order
                .iter()
                .position(|k| k.as_str() == m.key)
                .unwrap_or(usize::MAX)
        });
        Shape::new(Kind::Object(members))
    }

    /// The concrete object types a value selected by every one of `sets` may be.
    fn concrete(&self, sets: &[&SelectionSet]) -> Vec<Name> {
        let mut out = self.possible(&sets[0].ty);
        for set in &sets[1..] {
            let other = self.possible(&set.ty);
            out.retain(|t| other.contains(t));
        }
        out
    }

    /// The concrete object types of a named type (itself, a union's members, an interface's
    /// implementers).
    fn possible(&self, ty: &Name) -> Vec<Name> {
        match self.schema.types.get(ty) {
            Some(ExtendedType::Object(_)) => vec![ty.clone()],
            Some(ExtendedType::Union(u)) => u.members.iter().map(|m| m.name.clone()).collect(),
            Some(ExtendedType::Interface(_)) => self
                .implementers
                .get_or_init(|| self.schema.implementers_map())
                .get(ty)
                .map(|i| i.objects.iter().cloned().collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// Collects the fields of `set` that an answer of the object type `ty` holds (the
    /// GraphQL specification's CollectFields). `maybe`: under a conditional directive.
    fn collect(
        &self,
        set: &'a SelectionSet,
        ty: &Name,
        maybe: bool,
        out: &mut Collected<'a>,
        depth: usize,
    ) {
        if depth > 64 {
            return; // fragment cycles are refused by validation; never loop on one anyway
        }
        for selection in &set.selections {
            let maybe = match presence(selection.directives()) {
                Presence::Never => continue,
                Presence::Maybe => true,
                Presence::Always => maybe,
            };
            let (inner, condition) = match selection {
                Selection::Field(f) => {
                    match out.iter_mut().find(|(k, _, _)| *k == f.response_key()) {
                        Some((_, fields, always)) => {
                            fields.push(f);
                            *always |= !maybe;
                        }
                        None => out.push((f.response_key(), vec![f], !maybe)),
                    }
                    continue;
                }
                Selection::InlineFragment(i) => (&i.selection_set, i.type_condition.as_ref()),
                Selection::FragmentSpread(s) => match self.doc.fragments.get(&s.fragment_name) {
                    Some(f) => (&f.selection_set, Some(f.type_condition())),
                    None => continue,
                },
            };
            let applies = condition.is_none_or(|c| c == ty || self.schema.is_subtype(c, ty));
            if applies {
                self.collect(inner, ty, maybe, out, depth + 1);
            }
        }
    }

    /// Every response key of `set`, fragments included, in document order.
    fn keys_in_order(&self, set: &'a SelectionSet, out: &mut Vec<&'a Name>, depth: usize) {
        if depth > 64 {
            return;
        }
        for selection in &set.selections {
            match selection {
                Selection::Field(f) => {
                    if !out.contains(&f.response_key()) {
                        out.push(f.response_key());
                    }
                }
                Selection::InlineFragment(i) => {
                    self.keys_in_order(&i.selection_set, out, depth + 1)
                }
                Selection::FragmentSpread(s) => {
                    if let Some(f) = self.doc.fragments.get(&s.fragment_name) {
                        self.keys_in_order(&f.selection_set, out, depth + 1);
                    }
                }
            }
        }
    }

    /// The members of one concrete type's answer.
    fn members(&self, fields: &Collected<'a>) -> Vec<Member> {
        fields
            .iter()
            .map(|(key, selections, always)| Member {
                key: key.to_string(),
                shape: self.field(selections),
                required: *always,
            })
            .collect()
    }

    /// The value of one response key, from every selection of it (merged as execution merges
    /// their selection sets); each selection's own type gives the lists and the nulls.
    fn field(&self, selections: &[&'a Node<Field>]) -> Shape {
        let work = self.work.get() + 1;
        self.work.set(work);
        let Some(first) = selections.first() else {
            return Shape::any();
        };
        if work > MAX_WORK {
            return Shape::any();
        }
        let name = first.ty().inner_named_type();
        let inner = match self.schema.types.get(name) {
            Some(ExtendedType::Object(_) | ExtendedType::Interface(_) | ExtendedType::Union(_)) => {
                let sets: Vec<&SelectionSet> =
                    selections.iter().map(|f| &f.selection_set).collect();
                self.object(&sets)
            }
            Some(ExtendedType::Scalar(_)) => Shape::new(scalar(name.as_str())),
            Some(ExtendedType::Enum(_)) => Shape::new(Kind::String),
            _ => Shape::any(),
        };
        selections
            .iter()
            .map(|f| wrap(f.ty(), inner.clone()))
            .reduce(merge)
            .unwrap_or_else(Shape::any)
    }
}

/// Whether two concrete types' answers hold the same field selections.
fn same(a: &Collected<'_>, b: &Collected<'_>) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|((ka, fa, aa), (kb, fb, ab))| {
            ka == kb
                && aa == ab
                && fa.len() == fb.len()
                && fa.iter().zip(fb).all(|(x, y)| x.ptr_eq(y))
        })
}

/// A scalar's kind: the built-in ones, [`TEXT_SCALARS`], else any value.
fn scalar(name: &str) -> Kind {
    match name {
        "String" => Kind::String,
        "ID" => Kind::Id,
        "Int" => Kind::Integer,
        "Float" => Kind::Number,
        "Boolean" => Kind::Boolean,
        _ if TEXT_SCALARS.contains(&name) => Kind::String,
        _ => Kind::Any,
    }
}

/// `inner` under a field type's list and non-null wrappers.
fn wrap(ty: &Type, inner: Shape) -> Shape {
    match ty {
        Type::Named(_) => Shape {
            nullable: true,
            ..inner
        },
        Type::NonNullNamed(_) => Shape {
            nullable: false,
            ..inner
        },
        Type::List(items) => Shape {
            kind: Kind::Array(Box::new(wrap(items, inner))),
            nullable: true,
        },
        Type::NonNullList(items) => Shape::new(Kind::Array(Box::new(wrap(items, inner)))),
    }
}

#[cfg(test)]
mod tests;
