//! A pack's declared GraphQL schema (`graphql_schema:`): every tool's document is validated
//! against it (fields, arguments, variable and input types, enum values: the GraphQL
//! specification's validation rules, through `apollo-compiler`), and every parameter against its
//! variable's custom scalar, enum or input object.
//!
//! The check needs charter-build's `graphql-schema` feature. Without it, a declared schema is
//! only checked to exist (the documents are then checked as a pack without a schema is).

use std::path::{Path, PathBuf};

use crate::diagnostic::{Loc, Sink};
use crate::pack::Pack;

/// A parsed, valid schema; without the `graphql-schema` feature none can exist.
#[cfg(feature = "graphql-schema")]
pub(crate) type Schema = apollo_compiler::validation::Valid<apollo_compiler::Schema>;
/// A parsed, valid schema; without the `graphql-schema` feature none can exist.
#[cfg(not(feature = "graphql-schema"))]
pub(crate) enum Schema {}

/// The declared schema file, relative to the pack file's folder.
fn schema_path(pack: &Pack, declared: &str) -> PathBuf {
    Path::new(&pack.file)
        .parent()
        .unwrap_or(Path::new(""))
        .join(declared)
}

/// Reads and parses the pack's schema, reporting a missing, unreadable or invalid file at the
/// declaration.
pub(super) fn load(s: &mut Sink, pack: &Pack) -> Option<Schema> {
    let declared = pack.graphql_schema.as_ref()?;
    let path = schema_path(pack, &declared.value);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            s.err(
                declared.loc,
                format!(
                    "cannot read the GraphQL schema `{}` ({e}): the path is relative to the pack file",
                    path.display()
                ),
            );
            return None;
        }
    };
    parse(s, pack, &path, bytes)
}

#[cfg(not(feature = "graphql-schema"))]
fn parse(_: &mut Sink, _: &Pack, _: &Path, _: Vec<u8>) -> Option<Schema> {
    None
}

#[cfg(feature = "graphql-schema")]
fn parse(s: &mut Sink, pack: &Pack, path: &Path, bytes: Vec<u8>) -> Option<Schema> {
    use std::io::Read;
    let at = pack.graphql_schema.as_ref()?.loc;
    let text = if path.extension().is_some_and(|e| e == "gz") {
        let mut out = String::new();
        if let Err(e) = flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut out) {
            s.err(
                at,
                format!("cannot gunzip the GraphQL schema `{}`: {e}", path.display()),
            );
            return None;
        }
        out
    } else {
        match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(_) => {
                s.err(
                    at,
                    format!("the GraphQL schema `{}` is not UTF-8 text", path.display()),
                );
                return None;
            }
        }
    };
    match apollo_compiler::Schema::parse_and_validate(text, path) {
        Ok(schema) => Some(schema),
        Err(e) => {
            let first = e.errors.iter().next().map(|d| {
                let at = d
                    .line_column_range()
                    .map(|r| format!(" (line {}, column {})", r.start.line, r.start.column))
                    .unwrap_or_default();
                format!("{}{at}", d.error)
            });
            s.err(
                at,
                format!(
                    "the GraphQL schema `{}` is not a valid schema (SDL): {}",
                    path.display(),
                    first.unwrap_or_default()
                ),
            );
            None
        }
    }
}

/// Why a parameter does not fit its variable's type, and where, when it is deeper than the
/// parameter's own type (an input object's property, an enum value).
#[derive(Debug)]
pub(in crate::check) struct Misfit {
    pub(in crate::check) at: Option<Loc>,
    pub(in crate::check) why: String,
}

impl Misfit {
    pub(in crate::check) fn new(why: impl Into<String>) -> Self {
        Self {
            at: None,
            why: why.into(),
        }
    }

    #[cfg_attr(not(feature = "graphql-schema"), allow(dead_code))]
    pub(in crate::check) fn at(at: Loc, why: impl Into<String>) -> Self {
        Self {
            at: Some(at),
            why: why.into(),
        }
    }

    /// Places a misfit found without a location of its own at `at`.
    #[cfg_attr(not(feature = "graphql-schema"), allow(dead_code))]
    pub(in crate::check) fn or_at(self, at: Loc) -> Self {
        Self {
            at: self.at.or(Some(at)),
            why: self.why,
        }
    }
}

/// What the schema check needs of the tool check it runs inside: the pack's casing, and the
/// check of a nested parameter against its GraphQL type (which may lead back here). A trait, so
/// this module depends on neither `tool` nor `graphql`.
#[cfg_attr(not(feature = "graphql-schema"), allow(dead_code))]
pub(in crate::check) trait Inside {
    /// How the pack spells parameter names on the wire.
    fn casing(&self) -> &crate::pack::Casing;
    /// Whether `spec` fits the GraphQL type `ty`.
    fn graphql_fits(
        &self,
        spec: &crate::pack::Spec,
        ty: &crate::graphql_syntax::GqlType,
    ) -> Result<(), Misfit>;
}

#[cfg(feature = "graphql-schema")]
pub(super) use with_schema::{document, fits};

/// Without the feature no schema exists, so neither check can be reached.
#[cfg(not(feature = "graphql-schema"))]
pub(super) fn document(
    _: &mut Sink,
    schema: &Schema,
    _: &crate::pack::Sp<String>,
    _: &crate::pack::Tool,
) {
    match *schema {}
}

/// Without the feature no schema exists, so neither check can be reached.
#[cfg(not(feature = "graphql-schema"))]
pub(super) fn fits(
    _: &impl Inside,
    schema: &Schema,
    _: &crate::pack::Spec,
    _: &str,
) -> Result<(), Misfit> {
    match *schema {}
}

#[cfg(feature = "graphql-schema")]
mod with_schema {
    use apollo_compiler::ExecutableDocument;
    use apollo_compiler::schema::ExtendedType;

    use super::Schema;
    use super::{Inside, Misfit};
    use crate::diagnostic::Sink;
    use crate::graphql_syntax::GqlType;
    use crate::pack::{Kind, Sp, Spec, Tool};

    /// Validates `doc` against the schema; each error is placed inside the document. A
    /// deprecated field or argument it selects is a warning, unless the tool names it in
    /// `graphql_deprecated` (a name there that the document does not use deprecated is an
    /// error: the allowance outlived its reason).
    pub(in crate::check) fn document(s: &mut Sink, schema: &Schema, doc: &Sp<String>, tool: &Tool) {
        let origin = tool.graphql_origin;
        let e = match ExecutableDocument::parse_and_validate(schema, doc.value.as_str(), "graphql")
        {
            Ok(valid) => {
                let used = deprecated(&valid);
                for accepted in &tool.graphql_deprecated {
                    if !used.iter().any(|(name, _, _)| name == &accepted.value) {
                        let names: Vec<&str> = used.iter().map(|(n, _, _)| n.as_str()).collect();
                        let uses = if names.is_empty() {
                            String::from(": remove it")
                        } else {
                            format!(" (it uses {})", names.join(", "))
                        };
                        s.err(
                            accepted.loc,
                            format!(
                                "`graphql_deprecated` names `{}`, which the document does not use deprecated{uses}",
                                accepted.value
                            ),
                        );
                    }
                }
                for (name, span, reason) in used {
                    if tool.graphql_deprecated.iter().any(|a| a.value == name) {
                        continue;
                    }
                    let at = match (span.line_column_range(&valid.sources), origin) {
                        (Some(r), Some(o)) => o.at(r.start.line, r.start.column),
                        _ => doc.loc,
                    };
                    s.warn(
                        at,
                        format!(
                            "the `graphql` document uses `{name}`, which the pack's schema deprecates: {reason} (or name it in the tool's `graphql_deprecated`)"
                        ),
                    );
                }
                return;
            }
            Err(e) => e,
        };
        for d in e.errors.iter() {
            let at = match (d.line_column_range(), origin) {
                (Some(r), Some(o)) => o.at(r.start.line, r.start.column),
                _ => doc.loc,
            };
            s.err(
                at,
                format!(
                    "the `graphql` document does not fit the pack's schema: {}",
                    d.error
                ),
            );
        }
    }

    /// Every field and argument a valid document selects that its schema marks
    /// `@deprecated`: what, where, and the schema's reason.
    fn deprecated(
        doc: &ExecutableDocument,
    ) -> Vec<(String, apollo_compiler::parser::SourceSpan, String)> {
        use apollo_compiler::ast::DirectiveList;
        use apollo_compiler::executable::{Selection, SelectionSet};
        fn reason(directives: &DirectiveList) -> Option<String> {
            let d = directives.get("deprecated")?;
            Some(
                d.specified_argument_by_name("reason")
                    .and_then(|v| v.as_str())
                    .unwrap_or("No longer supported")
                    .to_owned(),
            )
        }
        fn walk(
            set: &SelectionSet,
            out: &mut Vec<(String, apollo_compiler::parser::SourceSpan, String)>,
        ) {
            for sel in &set.selections {
                match sel {
                    Selection::Field(f) => {
                        if let (Some(why), Some(at)) =
                            (reason(&f.definition.directives), f.location())
                        {
                            out.push((format!("{}.{}", set.ty, f.name), at, why));
                        }
                        for arg in &f.arguments {
                            let def = f.definition.argument_by_name(&arg.name);
                            if let (Some(why), Some(at)) =
                                (def.and_then(|d| reason(&d.directives)), arg.location())
                            {
                                out.push((format!("{}({}:)", f.name, arg.name), at, why));
                            }
                        }
                        walk(&f.selection_set, out);
                    }
                    Selection::InlineFragment(i) => walk(&i.selection_set, out),
                    Selection::FragmentSpread(_) => {}
                }
            }
        }
        let mut out = Vec::new();
        for op in doc.operations.iter() {
            walk(&op.selection_set, &mut out);
        }
        for f in doc.fragments.values() {
            walk(&f.selection_set, &mut out);
        }
        out
    }

    /// Whether `spec` fits the named schema type `name` (a custom scalar, an enum or an input
    /// object; the built-in scalars are checked without a schema).
    pub(in crate::check) fn fits(
        cx: &impl Inside,
        schema: &Schema,
        spec: &Spec,
        name: &str,
    ) -> Result<(), Misfit> {
        let Some(ty) = schema.types.get(name) else {
            return Err(Misfit::new(format!("the schema has no type `{name}`")));
        };
        let kind = spec.kind.as_ref().map(|k| k.value);
        if kind == Some(Kind::Any) {
            return Ok(());
        }
        match ty {
            ExtendedType::Scalar(_) => {
                let json_like = name.to_ascii_lowercase().contains("json");
                match kind {
                    Some(Kind::Object | Kind::Map | Kind::Array) if !json_like => {
                        Err(Misfit::new(format!(
                            "the custom scalar `{name}` is written as a string or number, but the parameter is {}",
                            kind.unwrap_or(Kind::Any).article()
                        )))
                    }
                    _ => Ok(()),
                }
            }
            ExtendedType::Enum(e) => {
                if kind != Some(Kind::String) {
                    return Err(Misfit::new(format!(
                        "the enum `{name}` takes a string, but the parameter is {}: declare `type: string` and its `enum`",
                        kind.unwrap_or(Kind::Any).article()
                    )));
                }
                for v in spec.enum_values.iter().flat_map(|e| e.value.iter()) {
                    let Some(text) = v.value.as_str() else {
                        continue; // a non-string value is reported by the enum checks
                    };
                    if !e.values.keys().any(|k| k.as_str() == text) {
                        let known: Vec<&str> = e.values.keys().map(|k| k.as_str()).collect();
                        return Err(Misfit::at(
                            v.loc,
                            format!(
                                "`{text}` is not a value of the enum `{name}`: use one of {}",
                                known.join(", ")
                            ),
                        ));
                    }
                }
                Ok(())
            }
            ExtendedType::InputObject(input) => {
                if matches!(kind, Some(Kind::Map)) {
                    return Ok(());
                }
                if kind != Some(Kind::Object) {
                    return Err(Misfit::new(format!(
                        "the input object `{name}` takes an object, but the parameter is {}",
                        kind.unwrap_or(Kind::Any).article()
                    )));
                }
                let props = spec.properties.as_ref().map_or(&[][..], |p| &p.value[..]);
                for prop in props {
                    let wire = cx.casing().wire_name(
                        &prop.name.value,
                        prop.spec.wire.as_ref().map(|w| w.value.as_str()),
                    );
                    let Some(field) = input.fields.get(wire.as_str()) else {
                        let known: Vec<&str> = input.fields.keys().map(|k| k.as_str()).collect();
                        return Err(Misfit::at(
                            prop.name.loc,
                            format!(
                                "`{}` (sent as `{wire}`) is not a field of the input object `{name}`: its fields are {}",
                                prop.name.value,
                                known.join(", ")
                            ),
                        ));
                    };
                    let ty = GqlType::from_schema(&field.ty);
                    cx.graphql_fits(&prop.spec, ty.nullable())
                        .map_err(|m| m.or_at(prop.name.loc))?;
                }
                for (field, def) in &input.fields {
                    let needed = def.ty.is_non_null() && def.default_value.is_none();
                    let given = props.iter().any(|p| {
                        p.spec.is_required()
                            && cx.casing().wire_name(
                                &p.name.value,
                                p.spec.wire.as_ref().map(|w| w.value.as_str()),
                            ) == field.as_str()
                    });
                    if needed && !given {
                        return Err(Misfit::new(format!(
                            "the input object `{name}` requires `{field}: {}`: add it as a required property",
                            def.ty
                        )));
                    }
                }
                Ok(())
            }
            _ => Err(Misfit::new(format!(
                "`{name}` is an output type, which a variable cannot hold"
            ))),
        }
    }

    impl GqlType {
        /// The crate's own form of a schema type.
        pub(crate) fn from_schema(ty: &apollo_compiler::ast::Type) -> GqlType {
            use apollo_compiler::ast::Type;
            match ty {
                Type::Named(n) => GqlType::Named(n.to_string()),
                Type::NonNullNamed(n) => GqlType::NonNull(Box::new(GqlType::Named(n.to_string()))),
                Type::List(inner) => GqlType::List(Box::new(GqlType::from_schema(inner))),
                Type::NonNullList(inner) => GqlType::NonNull(Box::new(GqlType::List(Box::new(
                    GqlType::from_schema(inner),
                )))),
            }
        }
    }
}
