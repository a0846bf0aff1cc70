//! Pins and from-context fields (docs/design.md §6): fields the deployment takes out of the
//! model's hands, spliced out of the tool's schema.

use serde_json::Value;

use super::ToolSession;
use super::entry::{Kind, Narrowing};
use crate::error::DeclarationError;
use crate::mode;
use crate::table::{ToolDef, View};
use crate::tokens::text_tokens;
use crate::validate;

impl ToolSession {
    /// Fixes a top-level field of a tool to a value: it leaves the model's view and is sent on
    /// every call. Refused when the field does not exist or the session mode withholds it.
    pub fn pin(&mut self, tool: &str, field: &str, value: Value) -> Result<(), DeclarationError> {
        let (i, def, view, f) = self.narrowable(tool, field, "pinned")?;
        let value = validate::validate_field_value(def.name, f, view, value, &self.tools.patterns)
            .map_err(|problems| {
                DeclarationError::new(format!(
                    "the pin of `{}` on tool `{}` is refused: {problems}",
                    f.name, def.name
                ))
            })?;
        self.narrow(i, def, view, |n| n.pins.push((f.name, value)))
    }

    /// Fills a top-level field of a tool from `CallContext::values[key]` on every call: it leaves
    /// the model's view and the model can never set it.
    pub fn from_context(
        &mut self,
        tool: &str,
        field: &str,
        key: &str,
    ) -> Result<(), DeclarationError> {
        if key.trim().is_empty() {
            return Err(DeclarationError::new(format!(
                "tool `{tool}`: field `{field}` is filled from an empty context key; name the CallContext value"
            )));
        }
        let (i, def, view, f) = self.narrowable(tool, field, "filled from context")?;
        let key = key.to_owned();
        self.narrow(i, def, view, |n| n.context.push((f.name, key)))
    }

    /// Finds a top-level field the deployment may take out of the model's hands.
    fn narrowable(
        &self,
        tool: &str,
        field: &str,
        what: &str,
    ) -> Result<
        (
            usize,
            &'static ToolDef,
            &'static View,
            &'static crate::table::Field,
        ),
        DeclarationError,
    > {
        let i = self.tools.lookup(tool).ok_or_else(|| {
            DeclarationError::new(format!("no tool named `{tool}` in this session"))
        })?;
        let entry = &self.tools.entries[i];
        let Kind::Static { def, view, .. } = entry.kind else {
            return Err(DeclarationError::new(format!(
                "tool `{tool}` comes from a toolkit: only fields of compiled tables can be {what}"
            )));
        };
        if field.contains(['.', '/']) {
            return Err(DeclarationError::new(format!(
                "tool `{tool}`: `{field}` is not a top-level field; only top-level fields can be {what}"
            )));
        }
        let Some(f) = def.input.fields.iter().find(|f| f.name == field) else {
            let names: Vec<&str> = def.input.fields.iter().map(|f| f.name).collect();
            return Err(DeclarationError::new(format!(
                "tool `{tool}` has no top-level field `{field}`; its fields are: {}",
                names.join(", ")
            )));
        };
        if let Some(reason) = mode::withheld_reason(f, view) {
            return Err(DeclarationError::new(format!(
                "tool `{tool}`: field `{field}` cannot be {what}: under {} it is withheld ({reason})",
                mode::describe_view(view)
            )));
        }
        if let Some(already) = entry.narrowed(field) {
            return Err(DeclarationError::new(format!(
                "tool `{tool}`: field `{field}` is already {already}"
            )));
        }
        Ok((i, def, view, f))
    }

    /// Applies one narrowing and re-splices the tool's schema without every narrowed field.
    fn narrow(
        &mut self,
        i: usize,
        def: &'static ToolDef,
        view: &'static View,
        add: impl FnOnce(&mut Narrowing),
    ) -> Result<(), DeclarationError> {
        let mut next = match &self.tools.entries[i].narrowing {
            Some(n) => Narrowing {
                pins: n.pins.clone(),
                context: n.context.clone(),
                schema: String::new(),
                tokens: 0,
            },
            None => Narrowing {
                pins: Vec::new(),
                context: Vec::new(),
                schema: String::new(),
                tokens: 0,
            },
        };
        add(&mut next);
        let removed: Vec<&str> = next
            .pins
            .iter()
            .map(|(f, _)| *f)
            .chain(next.context.iter().map(|(f, _)| *f))
            .collect();
        next.schema = mode::splice_schema_in(def.name, view, self.tools.dialect, &removed)?;
        next.tokens = text_tokens(&next.schema);
        self.tools.entries[i].narrowing = Some(Box::new(next));
        self.disclosure.state_mut().generation += 1;
        Ok(())
    }
}
