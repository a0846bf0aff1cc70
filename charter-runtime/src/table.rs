//! The static tool table: everything about a tool that can be known before the program runs.
//!
//! Every type here is built in `const` context by generated code (the pack compiler in
//! `charter-build` and the `#[charter::tool]` macro), so a table is `&'static` data in the
//! binary's read-only section. The structs are `#[non_exhaustive]` (a field can be added in a
//! minor release): outside this crate they are read through their public fields and built with
//! their const constructors, `new` and the `with_*` methods. Nothing at run time derives, serialises or sizes a schema: the
//! schema text of every mode view and its size are constants, written by `charter_schema`'s
//! emitter from the [`Shape`] tree validation reads next to them.

use std::future::Future;
use std::pin::Pin;

use crate::context::CallContext;
use crate::error::CharterError;

mod construct;

/// The tools of one pack: what `charter::packs::github::TOOLS` is.
#[derive(Debug)]
#[non_exhaustive]
pub struct Table {
    /// The pack label, `[a-z0-9-]+` (no underscore: the first `_` of a qualified name splits
    /// pack from tool).
    pub pack: &'static str,
    /// One line saying what the pack is for.
    pub description: &'static str,
    /// The tools, in declaration order.
    pub tools: &'static [ToolDef],
}

/// One tool, whatever its source (YAML pack or Rust function). `Clone` copies references only
/// (a server's per-caller subsets of a table are built from clones).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolDef {
    /// The published name, `<pack>_<tool>`, at most 50 characters.
    pub name: &'static str,
    /// The pack label.
    pub pack: &'static str,
    /// The tool's own name inside its pack, `[a-z0-9_]+`.
    pub tool: &'static str,
    /// What the model reads to decide whether to call it.
    pub description: &'static str,
    /// The MCP four.
    pub annotations: Annotations,
    /// The author mode (`create`, `update`, ...): which operation this tool is. In force in every
    /// view, beside the session mode.
    pub mode: Option<&'static str>,
    /// The full argument shape, every field of every mode; views decide what is visible.
    pub input: &'static ObjectShape,
    /// "At least one of" groups of top-level fields (model names): a call must give every
    /// field of at least one group (`[["reviewers"], ["team_reviewers"]]`). Empty: no such rule.
    /// The schema tells them in its root's `description` (no combinator at the root:
    /// docs/design.md §3).
    pub require_one_of: &'static [&'static [&'static str]],
    /// "Exactly one of" groups of top-level fields: a call must give every field of exactly one
    /// group (`[["issue_id"], ["comment_id"]]`), as JSON Schema's `oneOf` of `required` lists
    /// would. Empty: no such rule. Independent of `require_one_of`.
    pub require_exactly_one_of: &'static [&'static [&'static str]],
    /// The mode views. `views[0]` is [`ViewKey::Default`] (no session mode), `views[1]` is
    /// [`ViewKey::Unmatched`] (a session mode no field of this tool carries), then one
    /// [`ViewKey::Label`] per custom label its fields carry, sorted.
    pub views: &'static [View],
    /// Precomputed text the ToolSearch ranking reads.
    pub search: SearchData,
    /// What the tool answers: its result's shape and schema, or why none is declared.
    pub output: Output,
    /// How a validated call runs.
    pub exec: Exec,
}

/// What a tool answers, decided at build time (docs/results.md): MCP's `outputSchema` and
/// code mode's result type come from it, never from a guess at run time.
#[derive(Debug, Clone, Copy)]
pub enum Output {
    /// The answer's shape and schema.
    Schema(&'static OutputSchema),
    /// No shape is declared, and why: a named downgrade.
    Unknown(Gap),
}

impl Output {
    /// The schema, when one is declared.
    pub const fn schema(&self) -> Option<&'static OutputSchema> {
        match self {
            Output::Schema(s) => Some(s),
            Output::Unknown(_) => None,
        }
    }

    /// Why no schema is declared, when none is.
    pub const fn gap(&self) -> Option<Gap> {
        match self {
            Output::Schema(_) => None,
            Output::Unknown(g) => Some(*g),
        }
    }
}

/// Why a tool declares no result shape (the rule crate's names).
pub use charter_terms::results::Gap;

/// A tool's result, as the emitter wrote it at build time.
#[derive(Debug)]
#[non_exhaustive]
pub struct OutputSchema {
    /// The answer's shape: an HTTP tool's answer after its projection and pagination, a Rust
    /// tool's return type.
    pub shape: &'static Shape,
    /// The shape as compact JSON Schema text (`charter_schema::emit::Target::Result`: objects
    /// open). Its root is any shape: [`OutputSchema::wraps`] says whether MCP gets it under
    /// `items`.
    pub schema: &'static str,
    /// `json_tokens` of `schema`.
    pub tokens: u32,
}

/// Two result schemas are the same when they say the same (their text is written from the shape).
impl PartialEq for OutputSchema {
    fn eq(&self, other: &Self) -> bool {
        self.schema == other.schema
    }
}

impl OutputSchema {
    /// A result schema: `shape` written as `schema`, `tokens` long.
    pub const fn new(shape: &'static Shape, schema: &'static str, tokens: u32) -> OutputSchema {
        OutputSchema {
            shape,
            schema,
            tokens,
        }
    }

    /// Whether the answer is not an object, so MCP's `structuredContent` (an object) carries it
    /// under [`charter_terms::results::ITEMS`], and the `outputSchema` says so.
    pub const fn wraps(&self) -> bool {
        !matches!(self.shape.bare(), Shape::Object(_) | Shape::Map(_))
    }

    /// The schema of the object MCP's `structuredContent` holds, in two pieces of text around
    /// [`OutputSchema::schema`]: empty for an object answer, `{"type":"object","properties":
    /// {"items":` and `},"required":["items"]}` for any other.
    pub const fn object_wrapper(&self) -> (&'static str, &'static str) {
        if self.wraps() {
            (
                r#"{"type":"object","properties":{"items":"#,
                r#"},"required":["items"]}"#,
            )
        } else {
            ("", "")
        }
    }

    /// The `structuredContent` of an answer: the answer itself when it is an object, else the
    /// object `{"items": answer}` the `outputSchema` describes.
    pub fn structured(&self, answer: serde_json::Value) -> serde_json::Value {
        if self.wraps() {
            let mut map = serde_json::Map::new();
            map.insert(charter_terms::results::ITEMS.to_owned(), answer);
            serde_json::Value::Object(map)
        } else {
            answer
        }
    }
}

/// The MCP tool annotations (the rule crate's type, with its defaults per HTTP method).
pub use charter_terms::http::Annotations;

/// Which session mode a [`View`] answers: `Default` (no session mode: the widest view, narrowed
/// only by the tool's author mode), `Unmatched` (a mode no field of this tool carries: labelled
/// fields fail closed) or `Label` (a session mode equal to this label).
pub type ViewKey = charter_terms::views::ViewKey<&'static str>;

/// One mode view of a tool: what the model sees under one session mode.
#[derive(Debug)]
#[non_exhaustive]
pub struct View {
    /// The session mode this view answers.
    pub key: ViewKey,
    /// The parameter schema as compact JSON text, exactly as it goes on the wire.
    pub schema: &'static str,
    /// `json_tokens` of `schema` (its character count divided by 4).
    pub tokens: u32,
    /// The labels in force in this view (the author mode and the session mode). Validation reads
    /// them with [`Field::visible_in`] to refuse withheld fields.
    pub active: &'static [&'static str],
    /// Whether every custom-labelled field is shown (no mode at all is in force).
    pub widest: bool,
    /// Selectable argument paths with what dropping each would save, most expensive first.
    pub paths: &'static [PathCost],
    /// Where each top-level property sits in `schema`, so a session can drop a pinned or
    /// from-context property by splicing text instead of re-deriving the schema.
    pub spans: &'static [PropSpan],
    /// Code mode's TypeScript declaration of the call in this view, `(args: {..}): Promise<..>`
    /// (docs/code-mode.md): what ToolSearch answers with in code mode, after the tool's
    /// description and access (`github.issues_list`). Written at build time by
    /// `charter_schema::emit::typescript` from the tree the schema is written from; empty in a
    /// hand-built view (ToolSearch then shows the schema).
    pub signature: &'static str,
    /// `text_tokens` of `signature`.
    pub signature_tokens: u32,
    /// The view in the provider dialects that differ from the portable form, written by the
    /// same emitter at build time (docs/dialects.md). `None` for a view written by hand: every
    /// dialect is then given `schema`.
    pub dialects: Option<&'static DialectSchemas>,
}

/// A view's schema in the dialects whose text differs from the portable form
/// (docs/dialects.md). `openai` and `anthropic` are the portable form itself.
#[derive(Debug)]
#[non_exhaustive]
pub struct DialectSchemas {
    /// OpenAI's strict mode (`strict: true`): every object closed, every property required
    /// (`null` for absent), maps as lists of `{key, value}`.
    pub openai_strict: DialectSchema,
    /// Gemini's function declarations (`parameters`, the OpenAPI 3.0 subset): `nullable`,
    /// string enums, `anyOf` only.
    pub gemini: DialectSchema,
    /// Anthropic's strict tool use (`strict: true`): every object closed, what its grammar
    /// cannot enforce told in descriptions. `None` when the view cannot go strict (it reaches a
    /// recursive type: the named downgrade `recursive-not-strict`, docs/dialects.md), so it is
    /// served as the portable form without `strict`: decided at build time, like the text.
    pub anthropic_strict: Option<DialectSchema>,
}

/// One view in one dialect: its text, size and top-level property spans.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct DialectSchema {
    /// The parameter schema as compact JSON text, exactly as that API is sent it.
    pub schema: &'static str,
    /// `json_tokens` of `schema`.
    pub tokens: u32,
    /// Where each top-level property sits in `schema` (as [`View::spans`]).
    pub spans: &'static [PropSpan],
}

/// What dropping one argument path saves, and where a top-level property sits in a view's
/// schema text: recorded by the schema emitter while it writes the text (`charter_schema`).
pub use charter_schema::{PathCost, PropSpan};

/// What ToolSearch reads about a tool, prepared at build time: lowercased text for the classic
/// ranking, stemmed terms for the relevance ranking, vectors for the semantic layer.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct SearchData {
    /// The description, lowercased.
    pub description_lc: &'static str,
    /// Words users say for the tool (declared search hints), lowercased.
    pub hints: &'static [&'static str],
    /// The tool's search terms, stemmed by `charter_terms` (its own name's parts, hints,
    /// description and top-level parameter names), each once, sorted, joined by single spaces.
    /// Empty for a hand-built definition: the session then derives them from the name, hints
    /// and description when it indexes the catalogue.
    pub terms: &'static str,
    /// For each term of `terms`, in order, the fields it occurs in (`charter_terms::field` bits).
    pub fields: &'static [u8],
    /// The tool's semantic vectors, compiled by `charter_terms::semantic` (`TokenTable::tool_vectors`).
    /// Empty for a hand-built definition: the session then derives them when it indexes the
    /// catalogue for [`Ranking::Hybrid`](crate::search::Ranking::Hybrid).
    pub vectors: &'static [u8],
}

impl SearchData {
    /// No search text at all (what [`ToolDef::new`] starts from).
    pub const EMPTY: SearchData = SearchData {
        description_lc: "",
        hints: &[],
        terms: "",
        fields: &[],
        vectors: &[],
    };

    /// The precomputed terms with their fields, or `None` when none were generated (or they do
    /// not line up with `fields`, which generated code never does).
    pub fn terms(&self) -> Option<SearchTerms> {
        let n = if self.terms.is_empty() {
            0
        } else {
            self.terms.bytes().filter(|b| *b == b' ').count() + 1
        };
        (n > 0 && n == self.fields.len()).then_some(SearchTerms {
            terms: self.terms,
            fields: self.fields,
        })
    }
}

/// The precomputed terms of one tool (see [`SearchData::terms`]).
#[derive(Debug, Clone, Copy)]
pub struct SearchTerms {
    terms: &'static str,
    fields: &'static [u8],
}

impl SearchTerms {
    /// Each term with the fields it occurs in.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u8)> + 'static {
        self.terms.split(' ').zip(self.fields.iter().copied())
    }
}

/// How a validated call runs.
#[derive(Clone, Copy)]
pub enum Exec {
    /// A YAML-pack tool: an HTTP request built from its route.
    Http(&'static Route),
    /// A `#[charter::tool]` function.
    Rust(Handler),
}

/// Executes YAML-pack tools ([`Exec::Http`]); `charter_runtime::http::HttpExecutor` is the
/// implementation (one client and connection pool, shared by every session that holds it).
///
/// Declared beside the table rather than in the session, so the HTTP layer depends on the
/// table and the session depends on both, never the other way round.
pub trait HttpCaller: Send + Sync {
    /// Sends the request for one validated call (pins and from-context values merged in).
    fn call<'a>(
        &'a self,
        tool: &'static ToolDef,
        route: &'static Route,
        arguments: serde_json::Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>>;
}

impl std::fmt::Debug for Exec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exec::Http(route) => f.debug_tuple("Http").field(route).finish(),
            Exec::Rust(_) => f.write_str("Rust(..)"),
        }
    }
}

/// A boxed future answering one tool call.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The entry point generated for a `#[charter::tool]` function: takes the validated arguments
/// (pins and from-context values already merged in) and the per-call context.
pub type Handler = for<'a> fn(
    serde_json::Value,
    &'a CallContext,
) -> BoxFuture<'a, Result<ToolOutput, CharterError>>;

/// What a tool hands back to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The text the model reads.
    pub text: String,
    /// The same answer as JSON, when it is JSON (MCP `structuredContent`).
    pub structured: Option<serde_json::Value>,
}

impl ToolOutput {
    /// A plain-text answer.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            structured: None,
        }
    }

    /// A JSON answer; the text is its compact rendering.
    pub fn json(value: serde_json::Value) -> Self {
        Self {
            text: value.to_string(),
            structured: Some(value),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Shapes: what validation reads and the schema emitter writes from, as static data. They live in
// the dependency-free `charter-schema` crate, so the pack compiler (in build scripts) builds the
// same tree natively.

pub use charter_schema::{
    ArrayRules, Doc, Field, Format, ListStyle, Location, Named, Num, NumberRules, ObjectShape,
    Shape, StringRules,
};

// ---------------------------------------------------------------------------------------------
// HTTP routes.

/// What an HTTP pack declares once for all its tools.
#[derive(Debug)]
#[non_exhaustive]
pub struct HttpPack {
    /// The pack label.
    pub label: &'static str,
    /// The base URL every URL template is joined to.
    pub base_url: &'static str,
    /// The environment variable that overrides the base URL (`CHARTER_GITHUB_BASE_URL`).
    pub base_url_env: &'static str,
    /// How the credential goes on the request.
    pub auth: Auth,
    /// Headers sent on every call, after the arguments (the model cannot override them).
    pub headers: &'static [(&'static str, &'static str)],
    /// Query parameters sent on every call, after the arguments.
    pub query: &'static [(&'static str, &'static str)],
    /// Body members sent on every call (name, JSON text), after the arguments.
    pub body: &'static [(&'static str, &'static str)],
    /// How failures hidden inside a 200 are detected.
    pub envelope: Option<Envelope>,
}

/// How a pack authenticates. The secret comes from a credential provider per call; by default
/// from the named environment variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// No credential.
    None,
    /// `Authorization: Bearer <secret>`.
    Bearer {
        /// The environment variable holding the token.
        env: &'static str,
    },
    /// A named header holding the secret, with an optional prefix.
    Header {
        /// The header name.
        name: &'static str,
        /// Text before the secret (`Token `), often empty.
        prefix: &'static str,
        /// The environment variable holding the secret.
        env: &'static str,
    },
    /// HTTP basic: the secret is `user:password`, or a bare key used as the user name (Stripe).
    Basic {
        /// The environment variable holding the secret.
        env: &'static str,
    },
    /// An OAuth 2 access token the executor obtains and renews from a token endpoint (or a
    /// static access token, when one is configured).
    OAuth2(&'static OAuth2),
}

impl Auth {
    /// The environment variable holding a ready-to-send secret, if any (for OAuth 2: the
    /// optional static access token).
    pub const fn env(&self) -> Option<&'static str> {
        match self {
            Auth::None => None,
            Auth::Bearer { env } | Auth::Header { env, .. } | Auth::Basic { env } => Some(env),
            Auth::OAuth2(o) if o.access_token_env.is_empty() => None,
            Auth::OAuth2(o) => Some(o.access_token_env),
        }
    }

    /// Whether calls carry a credential at all.
    pub const fn is_none(&self) -> bool {
        matches!(self, Auth::None)
    }
}

/// An OAuth 2 credential a pack declares: where access tokens come from and how they are sent.
///
/// Empty strings mean "not declared". URLs may hold `{name}` placeholders filled from
/// [`UrlVar`]s at run time (a tenant, a shop).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuth2 {
    /// The header the access token goes in (`Authorization`).
    pub header: &'static str,
    /// Text before the token (`Bearer `).
    pub prefix: &'static str,
    /// A variable holding a ready access token; when set it is used as is, never renewed.
    pub access_token_env: &'static str,
    /// How access tokens are obtained.
    pub grant: Grant,
    /// The token endpoint.
    pub token_url: &'static str,
    /// The variable overriding the token endpoint (`CHARTER_GMAIL_TOKEN_URL`).
    pub token_url_env: &'static str,
    /// Where a user consents (`charter auth login`), if the provider has one.
    pub authorization_url: &'static str,
    /// The variable overriding the authorization endpoint (`CHARTER_GMAIL_AUTHORIZATION_URL`).
    pub authorization_url_env: &'static str,
    /// Placeholders of the URLs, each read from a variable.
    pub url_vars: &'static [UrlVar],
    /// The variable holding the client id.
    pub client_id_env: &'static str,
    /// The variable holding the client secret (empty: a public client).
    pub client_secret_env: &'static str,
    /// The variable holding a refresh token (the `refresh_token` grant).
    pub refresh_token_env: &'static str,
    /// Scopes requested at login and with `client_credentials`.
    pub scopes: &'static [&'static str],
    /// How the client authenticates to the token endpoint.
    pub client_auth: ClientAuth,
    /// Extra query parameters of the authorization URL (Google: `access_type=offline`).
    pub authorization_params: &'static [(&'static str, &'static str)],
}

/// The OAuth 2 grant that renews access tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Grant {
    /// A refresh token (from `charter auth login`, a variable or the credential provider).
    RefreshToken,
    /// The client's own id and secret (a service account, an app installation).
    ClientCredentials,
}

impl Grant {
    /// The `grant_type` value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Grant::RefreshToken => "refresh_token",
            Grant::ClientCredentials => "client_credentials",
        }
    }
}

/// How the client id and secret reach the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClientAuth {
    /// `client_id` and `client_secret` form fields (`client_secret_post`).
    Body,
    /// HTTP basic with the id and secret (`client_secret_basic`).
    Basic,
}

/// A `{name}` placeholder of an OAuth 2 URL, filled from a variable (a tenant, a shop name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct UrlVar {
    /// The placeholder name.
    pub name: &'static str,
    /// The variable holding the value.
    pub env: &'static str,
    /// The value when the variable is unset (empty: required).
    pub default: &'static str,
}

/// A failure inside a 200 response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Envelope {
    /// A GraphQL response: a non-empty `errors` array is a failure.
    GraphQl,
    /// A GraphQL API that reports refused mutations in the payload (Shopify): a non-empty
    /// `errors` array, or a non-empty `userErrors` (or `<name>UserErrors`, as
    /// `orderCancelUserErrors`) array in any `data.<field>` payload, is a failure.
    GraphQlUserErrors,
    /// A boolean flag (Slack's `ok`): `false` is a failure, with the message under `error_field`.
    OkFlag {
        /// The flag member.
        field: &'static str,
        /// The member holding the error text.
        error_field: &'static str,
    },
}

/// The HTTP methods a tool may use (the rule lives in `charter-terms`, beside the annotation
/// defaults each implies: [`Annotations::for_method`]).
pub use charter_terms::http::Method;

/// How the body is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyEncoding {
    /// No body (no body fields declared).
    None,
    /// `application/json`.
    Json,
    /// `application/x-www-form-urlencoded`, nested keys in bracket notation.
    Form,
}

/// How a list endpoint pages, so a host or agent can walk it (never looped silently).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pagination {
    /// A cursor read from the response and sent back as an argument.
    Cursor {
        /// Dotted path of the next cursor in the response (`response_metadata.next_cursor`).
        next: &'static str,
        /// The argument that takes it (`cursor`, `starting_after`).
        param: &'static str,
    },
    /// A page number argument.
    Page {
        /// The argument holding the page number.
        param: &'static str,
        /// The argument holding the page size, if any.
        size_param: Option<&'static str>,
    },
    /// An offset argument counting items skipped (`offset` with `limit`): APIs that page by
    /// position, not page number, so the next offset is this one plus the items just received.
    Offset {
        /// The argument holding the number of items to skip.
        param: &'static str,
        /// The argument holding the page size, if any.
        size_param: Option<&'static str>,
    },
}

/// Everything needed to turn a validated call into a request.
#[derive(Debug)]
#[non_exhaustive]
pub struct Route {
    /// The pack-level settings.
    pub pack: &'static HttpPack,
    /// The method.
    pub method: Method,
    /// The URL template relative to the base URL (`/repos/{owner}/{repo}/issues`).
    pub path: &'static str,
    /// How body fields are encoded.
    pub body: BodyEncoding,
    /// A GraphQL document sent as `{"query": ..., "variables": {arguments}}`.
    pub graphql: Option<&'static str>,
    /// Dotted paths kept from the response (empty: keep everything). On an array, applied to
    /// every item.
    pub projection: &'static [&'static str],
    /// How the endpoint pages, if it does.
    pub pagination: Option<Pagination>,
    /// The per-tool timeout in milliseconds (`None`: the executor's default).
    pub timeout_ms: Option<u32>,
    /// How many redirects to follow (0: none, the default).
    pub max_redirects: u8,
    /// This tool's own header constants, sent after the pack's (and replacing them under the
    /// same name): an operation told apart by a fixed header (`X-Amz-Target`).
    pub headers: &'static [(&'static str, &'static str)],
    /// This tool's own query constants, likewise (`Action=DescribeThings`).
    pub query: &'static [(&'static str, &'static str)],
}
