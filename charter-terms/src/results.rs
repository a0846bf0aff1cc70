//! What a tool answers (docs/results.md): the names of the reasons a tool has no declared
//! result shape, and where a list answer sits when it must be an object.

/// The member a list answer is put under where the answer must be an object: MCP's
/// `structuredContent` (and the `outputSchema` describing it), and a page walked by a `Link`
/// header cursor (`{"items": [...], "next_cursor": "..."}`).
pub const ITEMS: &str = "items";

/// The member that carries the next page's cursor beside [`ITEMS`] when the cursor came in a
/// `Link` header.
pub const NEXT_CURSOR: &str = "next_cursor";

/// Why a tool declares no result shape: a named downgrade, never a guessed schema.
///
/// ```
/// use charter_terms::results::Gap;
///
/// assert_eq!(Gap::parse("not-json"), Some(Gap::NotJson));
/// assert_eq!(Gap::NotJson.as_str(), "not-json");
/// assert_eq!(Gap::parse("unknown"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Gap {
    /// The pack declares no shape for the tool (and has no results file naming it).
    NotDeclared,
    /// The API description the shapes are generated from has no operation for the tool's
    /// method and path.
    NoOperation,
    /// The description's success response declares no JSON schema.
    NoSchema,
    /// The success response is not JSON (text, binary, or no content).
    NotJson,
    /// A GraphQL tool whose result is not derived from its selection.
    Graphql,
    /// A Rust tool whose return type has no schema (`T` does not implement the trait that
    /// gives one, or cannot be named where the table is built).
    UntypedReturn,
    /// A hand-built definition that states no result.
    HandBuilt,
}

impl Gap {
    /// Every gap, in the order docs list them.
    pub const ALL: [Gap; 7] = [
        Gap::NotDeclared,
        Gap::NoOperation,
        Gap::NoSchema,
        Gap::NotJson,
        Gap::Graphql,
        Gap::UntypedReturn,
        Gap::HandBuilt,
    ];

    /// The name results files, `charter tools --json` and docs use.
    pub const fn as_str(self) -> &'static str {
        match self {
            Gap::NotDeclared => "not-declared",
            Gap::NoOperation => "no-operation",
            Gap::NoSchema => "no-schema",
            Gap::NotJson => "not-json",
            Gap::Graphql => "graphql",
            Gap::UntypedReturn => "untyped-return",
            Gap::HandBuilt => "hand-built",
        }
    }

    /// The gap named `name`, if it is one.
    pub fn parse(name: &str) -> Option<Gap> {
        Gap::ALL.into_iter().find(|g| g.as_str() == name)
    }

    /// What the gap means, in a sentence.
    pub const fn meaning(self) -> &'static str {
        match self {
            Gap::NotDeclared => "the pack declares no result shape for this tool",
            Gap::NoOperation => "the API description has no operation for this method and path",
            Gap::NoSchema => "the API description's success response declares no JSON schema",
            Gap::NotJson => "the API answers with something other than JSON",
            Gap::Graphql => "the result of a GraphQL selection is not derived yet",
            Gap::UntypedReturn => "the Rust return type has no schema",
            Gap::HandBuilt => "the definition was built by hand without a result",
        }
    }
}
