//! Const constructors of the shape types, the way to build them outside this crate.
//!
//! The shape structs are `#[non_exhaustive]`, so a field can be added without a breaking
//! release (as the runtime's table structs are: `charter_runtime::table`'s `construct`).
//! Generated code (the pack compiler's output, `#[charter::tool]`, `#[derive(Schema)]`) and
//! hand-built shapes build them here instead of with struct literals: `new` (or `of`, or the
//! `NONE` constant) takes what a value cannot do without, and `with_*` methods set the rest,
//! each defaulting to "none" (an empty list, `None`, `false`). All are `const`, so a shape stays
//! `&'static` data built at compile time.

use super::{
    ArrayRules, Doc, Field, Format, ListStyle, Location, Named, Num, NumberRules, ObjectShape,
    Shape, StringRules,
};

impl Field {
    /// A field of a Rust tool or a nested object: `name` on the wire too, an argument, optional,
    /// unlabelled, with no default; set the rest with the `with_*` methods.
    pub const fn new(
        name: &'static str,
        description: &'static str,
        shape: &'static Shape,
    ) -> Field {
        Field {
            name,
            wire: name,
            description,
            shape,
            required: false,
            modes: &[],
            default: None,
            location: Location::Arg,
            style: ListStyle::Repeat,
            allow_slash: false,
            from_context: None,
        }
    }

    /// The key on the wire, where it differs from the name.
    pub const fn with_wire(mut self, wire: &'static str) -> Field {
        self.wire = wire;
        self
    }

    /// Whether the model must send it.
    pub const fn with_required(mut self, required: bool) -> Field {
        self.required = required;
        self
    }

    /// Its mode labels ([`Field::modes`]).
    pub const fn with_modes(mut self, modes: &'static [&'static str]) -> Field {
        self.modes = modes;
        self
    }

    /// The default the API applies, as JSON text.
    pub const fn with_default(mut self, default: &'static str) -> Field {
        self.default = Some(default);
        self
    }

    /// Where a top-level field goes in the HTTP request.
    pub const fn with_location(mut self, location: Location) -> Field {
        self.location = location;
        self
    }

    /// How a query list is spelled.
    pub const fn with_style(mut self, style: ListStyle) -> Field {
        self.style = style;
        self
    }

    /// Whether a path argument may contain `/`.
    pub const fn with_allow_slash(mut self, allow_slash: bool) -> Field {
        self.allow_slash = allow_slash;
        self
    }

    /// Filled per call from `CallContext` under this key, never model-visible.
    pub const fn with_from_context(mut self, key: &'static str) -> Field {
        self.from_context = Some(key);
        self
    }
}

impl ObjectShape {
    /// An object of these fields, without groups.
    pub const fn of(fields: &'static [Field]) -> ObjectShape {
        ObjectShape {
            fields,
            require_one_of: &[],
            require_exactly_one_of: &[],
        }
    }

    /// "At least one of" groups of its fields ([`ObjectShape::require_one_of`]).
    pub const fn with_require_one_of(
        mut self,
        groups: &'static [&'static [&'static str]],
    ) -> ObjectShape {
        self.require_one_of = groups;
        self
    }

    /// "Exactly one of" groups of its fields ([`ObjectShape::require_exactly_one_of`]).
    pub const fn with_require_exactly_one_of(
        mut self,
        groups: &'static [&'static [&'static str]],
    ) -> ObjectShape {
        self.require_exactly_one_of = groups;
        self
    }
}

impl NumberRules {
    /// No bounds, no enum.
    pub const NONE: NumberRules = NumberRules {
        minimum: None,
        maximum: None,
        enum_values: &[],
    };

    /// The inclusive lower bound.
    pub const fn with_minimum(mut self, minimum: Num) -> NumberRules {
        self.minimum = Some(minimum);
        self
    }

    /// The inclusive upper bound.
    pub const fn with_maximum(mut self, maximum: Num) -> NumberRules {
        self.maximum = Some(maximum);
        self
    }

    /// The allowed values.
    pub const fn with_enum_values(mut self, values: &'static [Num]) -> NumberRules {
        self.enum_values = values;
        self
    }
}

impl StringRules {
    /// Any string.
    pub const NONE: StringRules = StringRules {
        enum_values: &[],
        min_length: None,
        max_length: None,
        pattern: None,
        format: None,
    };

    /// The allowed values.
    pub const fn with_enum_values(mut self, values: &'static [&'static str]) -> StringRules {
        self.enum_values = values;
        self
    }

    /// The minimum length in characters.
    pub const fn with_min_length(mut self, min: u32) -> StringRules {
        self.min_length = Some(min);
        self
    }

    /// The maximum length in characters.
    pub const fn with_max_length(mut self, max: u32) -> StringRules {
        self.max_length = Some(max);
        self
    }

    /// A regular expression the whole value must match.
    pub const fn with_pattern(mut self, pattern: &'static str) -> StringRules {
        self.pattern = Some(pattern);
        self
    }

    /// A declared format.
    pub const fn with_format(mut self, format: Format) -> StringRules {
        self.format = Some(format);
        self
    }
}

impl ArrayRules {
    /// A list of `items` without bounds.
    pub const fn of(items: &'static Shape) -> ArrayRules {
        ArrayRules {
            items,
            min_items: None,
            max_items: None,
            unique_items: false,
        }
    }

    /// The minimum number of items.
    pub const fn with_min_items(mut self, min: u32) -> ArrayRules {
        self.min_items = Some(min);
        self
    }

    /// The maximum number of items.
    pub const fn with_max_items(mut self, max: u32) -> ArrayRules {
        self.max_items = Some(max);
        self
    }

    /// Whether no two items may be equal.
    pub const fn with_unique_items(mut self, unique: bool) -> ArrayRules {
        self.unique_items = unique;
        self
    }
}

impl Doc {
    /// `shape` without a description or a default yet.
    pub const fn new(shape: &'static Shape) -> Doc {
        Doc {
            description: None,
            default: None,
            shape,
        }
    }

    /// What the model reads about the value.
    pub const fn with_description(mut self, description: &'static str) -> Doc {
        self.description = Some(description);
        self
    }

    /// The default the API applies, as JSON text.
    pub const fn with_default(mut self, default: &'static str) -> Doc {
        self.default = Some(default);
        self
    }
}

impl Named {
    /// The type `name` of its pack, of this shape, not recursive.
    pub const fn new(name: &'static str, shape: &'static Shape) -> Named {
        Named {
            name,
            shape,
            recursive: false,
        }
    }

    /// Whether it reaches itself ([`Named::recursive`]).
    pub const fn with_recursive(mut self, recursive: bool) -> Named {
        self.recursive = recursive;
        self
    }
}
