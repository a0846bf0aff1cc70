//! Text helpers: doc comments, serde's rename rules, plain names.

use proc_macro2::Span;
use syn::{Attribute, Expr, ExprLit, Lit};

/// Whether a property name is plain text: no quote, backslash or control character (a name a
/// model would have to escape is refused where it is declared).
pub fn plain_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c != '"' && c != '\\' && !c.is_control())
}

/// One line of a doc comment with the span of its attribute.
#[derive(Debug, Clone)]
pub struct DocLine {
    pub text: String,
    pub span: Span,
}

/// The doc comment lines, one leading space stripped from each (as rustdoc and schemars do).
/// A `#[doc = ...]` that is not a string literal is an error.
pub fn doc_lines(attrs: &[Attribute]) -> Result<Vec<DocLine>, syn::Error> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        // `#[doc(hidden)]` and friends carry no text.
        let syn::Meta::NameValue(nv) = &attr.meta else {
            continue;
        };
        match &nv.value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) => {
                let value = s.value();
                for (i, line) in value.split('\n').enumerate() {
                    // A block doc comment holds several lines in one attribute.
                    let line = if i == 0 {
                        line.strip_prefix(' ').unwrap_or(line)
                    } else {
                        line
                    };
                    lines.push(DocLine {
                        text: line.trim_end().to_owned(),
                        span: attr.pound_token.span,
                    });
                }
            }
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "charter reads descriptions at compile time: write the doc comment as a string literal",
                ));
            }
        }
    }
    Ok(lines)
}

/// The description a doc comment gives: its lines joined with `\n`, trimmed.
pub fn description(lines: &[DocLine]) -> String {
    lines
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

/// serde's `rename_all` rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    /// A variant name (PascalCase in Rust) under this rule, as serde renames it.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            Self::Pascal => variant.to_owned(),
            Self::Lower => variant.to_ascii_lowercase(),
            Self::Upper => variant.to_ascii_uppercase(),
            Self::Camel => variant[..1].to_ascii_lowercase() + &variant[1..],
            Self::Snake => {
                let mut snake = String::new();
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            Self::ScreamingSnake => Self::Snake.apply_to_variant(variant).to_ascii_uppercase(),
            Self::Kebab => Self::Snake.apply_to_variant(variant).replace('_', "-"),
            Self::ScreamingKebab => Self::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }

    /// A field name (snake_case in Rust) under this rule, as serde renames it.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_owned(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            Self::Camel => {
                let pascal = Self::Pascal.apply_to_field(field);
                pascal[..1].to_ascii_lowercase() + &pascal[1..]
            }
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => Self::ScreamingSnake.apply_to_field(field).replace('_', "-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_lines_skip_doc_lists_and_refuse_computed_text() {
        let attrs: Vec<Attribute> = vec![
            syn::parse_quote!(#[doc = " First line."]),
            syn::parse_quote!(#[doc(hidden)]),
            syn::parse_quote!(#[doc = "  indented"]),
        ];
        let lines = doc_lines(&attrs).unwrap();
        assert_eq!(description(&lines), "First line.\n indented");
        let computed: Vec<Attribute> = vec![syn::parse_quote!(#[doc = concat!("a", "b")])];
        assert!(doc_lines(&computed).is_err());
    }

    #[test]
    fn rename_rules_match_serde() {
        assert_eq!(RenameRule::Camel.apply_to_field("due_on_date"), "dueOnDate");
        assert_eq!(
            RenameRule::ScreamingKebab.apply_to_field("due_on"),
            "DUE-ON"
        );
        assert_eq!(
            RenameRule::Snake.apply_to_variant("VeryUrgent"),
            "very_urgent"
        );
        assert_eq!(
            RenameRule::Kebab.apply_to_variant("VeryUrgent"),
            "very-urgent"
        );
        assert_eq!(
            RenameRule::Camel.apply_to_variant("VeryUrgent"),
            "veryUrgent"
        );
    }
}
