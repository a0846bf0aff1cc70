//! Shapes: the arguments a tool takes, as static data. Validation walks them at run time and the
//! emitter ([`crate::emit`]) writes each view's JSON Schema text from them at build time, so the
//! text the model reads and the rules a call is held to come from one tree.
//!
//! Every type here is built in `const` context by generated code (the pack compiler's output
//! and `#[charter::tool]`), or leaked by a build script or a test, so everything is `'static`.
//! The structs are `#[non_exhaustive]`: outside this crate they are built with the const
//! constructors of `construct` (`new`, `of` or `NONE`, then `with_*`).

mod construct;

/// The shape of a value, mirroring its JSON schema.
#[derive(Debug)]
pub enum Shape {
    /// Anything (a free-form JSON value).
    Any,
    /// `true` or `false`.
    Bool,
    /// A whole number.
    Integer(NumberRules),
    /// Any number.
    Number(NumberRules),
    /// A string.
    String(StringRules),
    /// A list.
    Array(ArrayRules),
    /// An object with declared fields; undeclared keys are refused.
    Object(ObjectShape),
    /// An object with arbitrary keys whose values share one shape.
    Map(&'static Shape),
    /// The inner shape, or `null`.
    Nullable(&'static Shape),
    /// Exactly one of several shapes (JSON Schema's `oneOf`).
    OneOf(&'static [Shape]),
    /// At least one of several shapes (`anyOf`: serde's untagged enums, where the first that
    /// fits wins).
    AnyOf(&'static [Shape]),
    /// A shape with what the schema says about it beside its rules: a description and a default
    /// (array items, map values, alternatives and named types carry these; a field's own are on
    /// its [`Field`], which win).
    Doc(&'static Doc),
    /// A named type of a pack. Inlined where it is used unless recursive: a recursive type is
    /// written once under `$defs` and referenced (`{"$ref":"#/$defs/Name"}`).
    Named(&'static Named),
}

impl Shape {
    /// The shape with [`Shape::Doc`] and [`Shape::Named`] wrappers taken off (what validation
    /// and the HTTP layer look at).
    pub const fn bare(&self) -> &Shape {
        let mut s = self;
        loop {
            s = match s {
                Shape::Doc(d) => d.shape,
                Shape::Named(n) => n.shape,
                other => return other,
            };
        }
    }
}

/// A description and a default around a shape (see [`Shape::Doc`]).
#[non_exhaustive]
#[derive(Debug)]
pub struct Doc {
    /// What the model reads about the value.
    pub description: Option<&'static str>,
    /// The default the API applies, as JSON text (schema only; never sent).
    pub default: Option<&'static str>,
    /// The shape itself.
    pub shape: &'static Shape,
}

/// A named type (see [`Shape::Named`]).
#[non_exhaustive]
#[derive(Debug)]
pub struct Named {
    /// Its name, unique in its pack (the `$defs` key of a recursive type).
    pub name: &'static str,
    /// Its shape (a [`Shape::Doc`] carries its own description and default).
    pub shape: &'static Shape,
    /// Whether it reaches itself: then it is written under `$defs` and referenced, and paths
    /// do not descend into it.
    pub recursive: bool,
}

/// A number as the schema writes it and validation compares it: the JSON text (a `const fn`
/// cannot print an `f64`) and its value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Num {
    /// The value.
    pub value: f64,
    /// Its JSON text (`1`, `-0.5`, `1e100`), exactly as the schema shows it.
    pub text: &'static str,
}

impl Num {
    /// A number and its JSON text (`Num::new(1.5, "1.5")`; the [`num!`](crate::num) macro writes
    /// the text of a literal for you).
    pub const fn new(value: f64, text: &'static str) -> Num {
        Num { value, text }
    }
}

/// A [`Num`] from a numeric literal: `num!(1)`, `num!(-128)`, `num!(0.5)`.
#[macro_export]
macro_rules! num {
    (- $lit:literal) => {
        $crate::Num::new(-($lit as f64), concat!("-", stringify!($lit)))
    };
    ($lit:literal) => {
        $crate::Num::new($lit as f64, stringify!($lit))
    };
}

/// Bounds on a number.
#[non_exhaustive]
#[derive(Debug, Clone, Copy)]
pub struct NumberRules {
    /// Inclusive lower bound.
    pub minimum: Option<Num>,
    /// Inclusive upper bound.
    pub maximum: Option<Num>,
    /// Allowed values, if restricted.
    pub enum_values: &'static [Num],
}

impl Default for NumberRules {
    fn default() -> Self {
        Self::NONE
    }
}

/// Constraints on a string.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, Default)]
pub struct StringRules {
    /// Allowed values, if restricted.
    pub enum_values: &'static [&'static str],
    /// Minimum length in characters.
    pub min_length: Option<u32>,
    /// Maximum length in characters.
    pub max_length: Option<u32>,
    /// A regular expression the whole value must match (unanchored, as JSON Schema).
    pub pattern: Option<&'static str>,
    /// A declared format.
    pub format: Option<Format>,
}

/// String formats a pack may declare; validation checks each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// RFC 3339 date-time.
    DateTime,
    /// RFC 3339 full-date (`2026-11-30`).
    Date,
    /// An RFC 3339 date-time whose offset may be left out (a local time, read in a time zone
    /// given beside it: Google Calendar's `dateTime` with `timeZone`).
    DateTimeLocal,
    /// An e-mail address.
    Email,
    /// An absolute URI.
    Uri,
    /// A UUID.
    Uuid,
    /// Base64 with the URL-safe alphabet (RFC 4648 §5), padded or not.
    Base64Url,
}

impl Format {
    /// The JSON Schema spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Format::DateTime => "date-time",
            Format::Date => "date",
            Format::DateTimeLocal => "date-time-local",
            Format::Email => "email",
            Format::Uri => "uri",
            Format::Uuid => "uuid",
            Format::Base64Url => "base64url",
        }
    }
}

/// Constraints on a list.
#[non_exhaustive]
#[derive(Debug, Clone, Copy)]
pub struct ArrayRules {
    /// The shape of every item.
    pub items: &'static Shape,
    /// Minimum number of items.
    pub min_items: Option<u32>,
    /// Maximum number of items.
    pub max_items: Option<u32>,
    /// Whether no two items may be equal (JSON Schema's `uniqueItems`: Rust's sets).
    pub unique_items: bool,
}

/// An object with declared fields, in declaration order.
#[non_exhaustive]
#[derive(Debug)]
pub struct ObjectShape {
    /// The fields.
    pub fields: &'static [Field],
    /// "At least one of" groups of these fields (model names), checked at this object's path
    /// and shown as an `anyOf` of `required` lists in its schema. Empty: no such rule. At the
    /// top level a tool's own groups are given to the emitter beside it ([`crate::Groups`]).
    pub require_one_of: &'static [&'static [&'static str]],
    /// "Exactly one of" groups of these fields, shown as a `oneOf` of `required` lists.
    pub require_exactly_one_of: &'static [&'static [&'static str]],
}

/// One declared field, at any depth.
#[non_exhaustive]
#[derive(Debug)]
pub struct Field {
    /// The key the model sends.
    pub name: &'static str,
    /// The key on the wire (after the pack's casing rule or an explicit wire name).
    pub wire: &'static str,
    /// What the model reads about it (empty: the schema says nothing, as for an internally
    /// tagged enum's tag).
    pub description: &'static str,
    /// Its shape.
    pub shape: &'static Shape,
    /// Whether the model must send it.
    pub required: bool,
    /// Mode labels: empty for a field every view shows; `response_only` and `disabled` are
    /// never shown; any other label is custom.
    pub modes: &'static [&'static str],
    /// The default the API applies, as JSON text (documentation and schema only; never sent).
    pub default: Option<&'static str>,
    /// Where a top-level field goes in the HTTP request ([`Location::Arg`] for Rust tools and
    /// nested fields).
    pub location: Location,
    /// How a query list is spelled.
    pub style: ListStyle,
    /// Whether a path argument may contain `/`.
    pub allow_slash: bool,
    /// A host-only field filled per call from `CallContext` under this key, never model-visible.
    pub from_context: Option<&'static str>,
}

impl Field {
    /// Whether this field is shown (and settable) in a view with these labels in force.
    #[inline]
    pub const fn visible_in(&self, active: &[&str], widest: bool) -> bool {
        charter_terms::modes::field_shown(self.modes, active, widest, self.from_context.is_some())
    }
}

/// Where an HTTP argument goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// A Rust function argument, or a field nested inside another.
    Arg,
    /// A `{placeholder}` in the URL template.
    Path,
    /// The query string.
    Query,
    /// A request header.
    Header,
    /// The request body.
    Body,
    /// The request body's top level, member by member: a map argument whose keys sit beside the
    /// other body fields, for APIs that take free keys there (a Microsoft Graph open extension's
    /// app data beside `extensionName`). A key that another body field sends is refused.
    BodySpread,
}

/// How a list goes into a query string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ListStyle {
    /// `tag=a&tag=b`
    #[default]
    Repeat,
    /// `tag[]=a&tag[]=b`
    Brackets,
    /// `tag=a,b`
    Comma,
}
