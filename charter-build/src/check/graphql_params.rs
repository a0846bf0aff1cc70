//! A GraphQL tool's document against its body parameters.

use super::graphql_schema::Misfit;
use super::tool::Cx;
use crate::diagnostic::Sink;
use crate::graphql_syntax as graphql;
use crate::pack::{Field, Kind, Sp, Spec, Tool};

impl Cx<'_> {
    pub(super) fn graphql(
        &self,
        s: &mut Sink,
        tool: &Tool,
        doc: &Sp<String>,
        body_params: &[&Field],
    ) {
        if let Some(schema) = self.schema {
            super::graphql_schema::document(s, schema, doc, tool);
        } else if let Some(first) = tool.graphql_deprecated.first() {
            s.err(
                first.loc,
                "`graphql_deprecated` names deprecated parts of a schema, but the pack declares no `graphql_schema`",
            );
        }
        let info = match graphql::scan(&doc.value) {
            Ok(info) => info,
            Err(e) => {
                s.err(doc.loc, format!("invalid `graphql` document: {e}"));
                return;
            }
        };
        // The request carries no `operationName`, so the server must find exactly one.
        if info.operations.len() > 1 {
            s.err(
                doc.loc,
                format!(
                    "the `graphql` document holds {} operations, but a tool sends no `operationName`: keep one operation per tool (fragments may stay)",
                    info.operations.len()
                ),
            );
        }
        if info
            .operations
            .iter()
            .any(|o| o.kind == graphql::OpKind::Subscription)
        {
            s.err(
                doc.loc,
                "a `subscription` streams events, but a tool reads one response: use a `query` or a `mutation`",
            );
        }
        // GraphQL validation rules "All Variable Uses Defined" and "All Variables Used".
        let declared: Vec<&graphql::VarDef> = info.definitions().collect();
        for used in &info.used {
            if !declared.iter().any(|d| &d.name == used) {
                s.err(
                    doc.loc,
                    format!(
                        "GraphQL variable `${used}` is used but the operation does not declare it: add `${used}: Type` to its variable definitions (`query Name(${used}: String) {{ ... }}`)"
                    ),
                );
            }
        }
        for d in &declared {
            if !info.used.contains(&d.name) {
                s.err(
                    doc.loc,
                    format!(
                        "GraphQL variable `${}` is declared but never used, which servers refuse: use it or remove it (and its parameter)",
                        d.name
                    ),
                );
            }
        }
        let wires: Vec<(String, &Field)> = body_params
            .iter()
            .map(|p| {
                (
                    self.pack.casing.wire_name(
                        &p.name.value,
                        p.spec.wire.as_ref().map(|w| w.value.as_str()),
                    ),
                    *p,
                )
            })
            .collect();
        for var in &info.variables {
            if !wires.iter().any(|(w, _)| w == var) {
                s.err(
                    doc.loc,
                    format!(
                        "GraphQL variable `${var}` has no parameter: add `{var}: {{ in: body, type: ..., description: ... }}` (or a `wire: {var}`)"
                    ),
                );
            }
        }
        for (w, p) in &wires {
            if !info.variables.iter().any(|v| v == w) {
                s.err(
                    p.name.loc,
                    format!(
                        "parameter `{}` is sent as GraphQL variable `${w}`, which the document never uses: declare it in the operation or remove the parameter",
                        p.name.value
                    ),
                );
            } else if let Some(def) = declared.iter().find(|d| &d.name == w) {
                self.graphql_variable(s, p, def);
            }
        }
    }

    /// A body parameter against the type its GraphQL variable declares: what the server would
    /// refuse (a missing non-null value, a null, a value of another scalar type) is a build
    /// error. Custom scalars, enums and input objects are checked when the pack declares its
    /// schema (`graphql_schema`).
    fn graphql_variable(&self, s: &mut Sink, p: &Field, def: &graphql::VarDef) {
        let spec = &p.spec;
        let name = &p.name.value;
        if def.ty.is_non_null() && !def.has_default {
            if !spec.is_required() && spec.from_context.is_none() {
                s.err(
                    p.name.loc,
                    format!(
                        "parameter `{name}` is optional, but GraphQL variable `${}: {}` must be given: add `required: true`, or declare the variable nullable (`{}`)",
                        def.name,
                        def.ty,
                        def.ty.nullable()
                    ),
                );
            }
            if let Some(n) = spec.nullable.as_ref().filter(|n| n.value) {
                s.err(
                    n.loc,
                    format!(
                        "parameter `{name}` accepts null, but GraphQL variable `${}: {}` refuses it: remove `nullable: true` or declare the variable nullable",
                        def.name, def.ty
                    ),
                );
            }
        }
        if let Err(Misfit { at, why }) = self.graphql_fits(spec, def.ty.nullable()) {
            let at = at.unwrap_or_else(|| {
                spec.kind
                    .as_ref()
                    .map(|k| k.loc)
                    .or(spec.reference.as_ref().map(|r| r.loc))
                    .unwrap_or(p.name.loc)
            });
            s.err(
                at,
                format!(
                    "parameter `{name}` does not fit GraphQL variable `${}: {}`: {why}",
                    def.name, def.ty
                ),
            );
        }
    }

    /// Whether values of `spec` are valid for the GraphQL input type `ty` (outer `!` removed).
    pub(super) fn graphql_fits(&self, spec: &Spec, ty: &graphql::GqlType) -> Result<(), Misfit> {
        use graphql::GqlType;
        let spec = self.resolved(spec);
        if let Some(alternatives) = &spec.one_of {
            for alt in &alternatives.value {
                self.graphql_fits(alt, ty)?;
            }
            return Ok(());
        }
        let Some(kind) = spec.kind.as_ref().map(|k| k.value) else {
            return Ok(()); // no type: reported elsewhere
        };
        match ty {
            GqlType::NonNull(inner) => self.graphql_fits(spec, inner),
            GqlType::List(inner) => match (kind, &spec.items) {
                (Kind::Array, Some(items)) => {
                    if inner.is_non_null() && self.resolved(items).is_nullable() {
                        return Err(Misfit::new(format!(
                            "its items may be null, but the list holds `{inner}`: remove `nullable: true` from `items`"
                        )));
                    }
                    self.graphql_fits(items, inner.nullable())
                }
                (Kind::Array | Kind::Any, _) => Ok(()),
                // GraphQL coerces a single value into a list of one.
                _ => self.graphql_fits(spec, inner.nullable()),
            },
            GqlType::Named(n) => {
                let fits: &[Kind] = match n.as_str() {
                    "Int" => &[Kind::Integer],
                    "Float" => &[Kind::Number, Kind::Integer],
                    "String" => &[Kind::String],
                    "ID" => &[Kind::String, Kind::Integer],
                    "Boolean" => &[Kind::Boolean],
                    _ => return self.schema_fits(spec, n),
                };
                if kind == Kind::Any || fits.contains(&kind) {
                    Ok(())
                } else {
                    let want: Vec<&str> = fits.iter().map(|k| k.as_str()).collect();
                    Err(Misfit::new(format!(
                        "`{n}` takes {}, but the parameter is {}: declare `type: {}`",
                        fits[0].article(),
                        kind.article(),
                        want.join("` or `type: ")
                    )))
                }
            }
        }
    }

    /// A named type that is not a built-in scalar, against the pack's schema when it declares
    /// one (without a schema, anything fits).
    fn schema_fits(&self, spec: &Spec, name: &str) -> Result<(), Misfit> {
        match self.schema {
            Some(schema) => super::graphql_schema::fits(self, schema, spec, name),
            None => Ok(()),
        }
    }
}

impl super::graphql_schema::Inside for Cx<'_> {
    fn casing(&self) -> &crate::pack::Casing {
        &self.pack.casing
    }

    fn graphql_fits(&self, spec: &Spec, ty: &graphql::GqlType) -> Result<(), Misfit> {
        Cx::graphql_fits(self, spec, ty)
    }
}
