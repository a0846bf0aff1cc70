//! The checks of `#[derive(Schema)]` that need the whole container.

use std::collections::HashMap;

use proc_macro2::Span;

use super::ast::{Container, Data, Field, Style, Tagging};
use crate::errors::Errors;
use crate::text::plain_name;

pub(crate) fn check_fields(fields: &[Field], reserved: Option<&str>, errors: &mut Errors) {
    let mut seen: HashMap<&str, Span> = HashMap::new();
    for f in fields {
        if !plain_name(&f.name) {
            errors.at(
                f.name_span,
                format!(
                    "the property name {:?} needs JSON escapes; charter refuses it",
                    f.name
                ),
            );
        }
        if reserved == Some(f.name.as_str()) {
            errors.at(
                f.name_span,
                format!(
                    "`{}` is the enum's tag: a field cannot have the same name",
                    f.name
                ),
            );
        }
        if seen.insert(f.name.as_str(), f.name_span).is_some() {
            errors.at(
                f.name_span,
                format!("two fields are named `{}` on the wire", f.name),
            );
        }
        match &f.desc {
            Some(d) if !d.is_empty() => {}
            _ => errors.spanned(
                &f.ident,
                format!(
                    "field `{}` needs a doc comment: every property is described (docs/design.md §3)",
                    f.ident
                ),
            ),
        }
    }
}

pub fn container(c: &Container, errors: &mut Errors) {
    match &c.data {
        Data::Struct(fields) => check_fields(fields, None, errors),
        Data::Transparent(_) => {}
        Data::Enum(variants) => {
            let tag = match &c.tagging {
                Tagging::Internal(t, span) => {
                    if !plain_name(t) {
                        errors.at(*span, "the tag name needs JSON escapes; charter refuses it");
                    }
                    Some(t.as_str())
                }
                _ => None,
            };
            let mut seen: HashMap<&str, Span> = HashMap::new();
            for v in variants {
                if !plain_name(&v.name) {
                    errors.at(
                        v.name_span,
                        format!(
                            "the variant name {:?} needs JSON escapes; charter refuses it",
                            v.name
                        ),
                    );
                }
                if seen.insert(v.name.as_str(), v.name_span).is_some() {
                    errors.at(
                        v.name_span,
                        format!("two variants are named `{}` on the wire", v.name),
                    );
                }
                if let Style::Struct(fields) = &v.style {
                    check_fields(fields, tag, errors);
                }
            }
        }
    }
}
