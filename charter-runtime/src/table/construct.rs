//! Const constructors of the table types, the only way to build them outside this crate.
//!
//! The table structs are `#[non_exhaustive]`, so a field can be added without a breaking
//! release; generated code (the pack compiler's output, `#[charter::tool]`, `charter::pack!`)
//! and hand-built tables (examples, tests, per-caller subsets) build them here instead of with
//! struct literals. Each type has a `new` taking what it cannot do without, and `with_*`
//! methods for the rest, each defaulting to "none" (an empty list, `None`, `false`): a field
//! added later gets a `with_*` and a default, and every caller keeps compiling. All are `const`,
//! so a table stays `&'static` data built at compile time.

use super::{
    Annotations, Auth, BodyEncoding, ClientAuth, DialectSchema, DialectSchemas, Envelope, Exec,
    Gap, Grant, HttpPack, Method, OAuth2, ObjectShape, Output, Pagination, PathCost, PropSpan,
    Route, SearchData, Table, ToolDef, UrlVar, View, ViewKey,
};

/// The argument shape of a tool without arguments.
const NO_INPUT: &ObjectShape = &ObjectShape::of(&[]);

/// The schema text of a tool without arguments.
const NO_ARGUMENTS: &str = r#"{"type":"object","properties":{},"additionalProperties":false}"#;

/// The views of a tool without arguments and modes: the widest view and the unmatched one.
const NO_ARGUMENT_VIEWS: &[View] = &[
    View::new(
        ViewKey::Default,
        NO_ARGUMENTS,
        charter_terms::tokens::text_tokens(NO_ARGUMENTS),
    )
    .with_widest(true),
    View::new(
        ViewKey::Unmatched,
        NO_ARGUMENTS,
        charter_terms::tokens::text_tokens(NO_ARGUMENTS),
    ),
];

impl Table {
    /// The table of pack `pack` (`[a-z0-9-]+`) holding `tools`, in declaration order.
    pub const fn new(
        pack: &'static str,
        description: &'static str,
        tools: &'static [ToolDef],
    ) -> Table {
        Table {
            pack,
            description,
            tools,
        }
    }
}

impl ToolDef {
    /// Tool `tool` of pack `pack`, published as `name` (`<pack>_<tool>`), running as `exec`.
    ///
    /// Until told otherwise it takes no arguments (its views are those of an empty object),
    /// claims none of the MCP annotations, has no author mode and no search text beyond its
    /// name: set them with the `with_*` methods.
    pub const fn new(
        name: &'static str,
        pack: &'static str,
        tool: &'static str,
        description: &'static str,
        exec: Exec,
    ) -> ToolDef {
        ToolDef {
            name,
            pack,
            tool,
            description,
            annotations: Annotations::new(),
            mode: None,
            input: NO_INPUT,
            require_one_of: &[],
            require_exactly_one_of: &[],
            views: NO_ARGUMENT_VIEWS,
            search: SearchData::EMPTY,
            output: Output::Unknown(Gap::HandBuilt),
            exec,
        }
    }

    /// What the tool answers (a result schema, or why there is none).
    pub const fn with_output(mut self, output: Output) -> ToolDef {
        self.output = output;
        self
    }

    /// The MCP annotations.
    pub const fn with_annotations(mut self, annotations: Annotations) -> ToolDef {
        self.annotations = annotations;
        self
    }

    /// The author mode (`create`, `update`, ...).
    pub const fn with_mode(mut self, mode: &'static str) -> ToolDef {
        self.mode = Some(mode);
        self
    }

    /// The argument shape; give the views written from it with [`ToolDef::with_views`].
    pub const fn with_input(mut self, input: &'static ObjectShape) -> ToolDef {
        self.input = input;
        self
    }

    /// "At least one of" groups of top-level fields ([`ToolDef::require_one_of`]).
    pub const fn with_require_one_of(
        mut self,
        groups: &'static [&'static [&'static str]],
    ) -> ToolDef {
        self.require_one_of = groups;
        self
    }

    /// "Exactly one of" groups of top-level fields ([`ToolDef::require_exactly_one_of`]).
    pub const fn with_require_exactly_one_of(
        mut self,
        groups: &'static [&'static [&'static str]],
    ) -> ToolDef {
        self.require_exactly_one_of = groups;
        self
    }

    /// The mode views, in the order [`ToolDef::views`] says.
    pub const fn with_views(mut self, views: &'static [View]) -> ToolDef {
        self.views = views;
        self
    }

    /// What ToolSearch reads about the tool.
    pub const fn with_search(mut self, search: SearchData) -> ToolDef {
        self.search = search;
        self
    }
}

impl View {
    /// The view answering `key`, whose schema text is `schema`, `tokens` its `text_tokens`.
    ///
    /// Until told otherwise no label is in force, it is not the widest view, and it records no
    /// paths, spans, signature or dialect texts (sessions then give `schema` in every dialect).
    pub const fn new(key: ViewKey, schema: &'static str, tokens: u32) -> View {
        View {
            key,
            schema,
            tokens,
            active: &[],
            widest: false,
            paths: &[],
            spans: &[],
            signature: "",
            signature_tokens: 0,
            dialects: None,
        }
    }

    /// The labels in force in this view.
    pub const fn with_active(mut self, active: &'static [&'static str]) -> View {
        self.active = active;
        self
    }

    /// Whether every custom-labelled field is shown.
    pub const fn with_widest(mut self, widest: bool) -> View {
        self.widest = widest;
        self
    }

    /// The selectable argument paths, most expensive first.
    pub const fn with_paths(mut self, paths: &'static [PathCost]) -> View {
        self.paths = paths;
        self
    }

    /// Where each top-level property sits in the schema text.
    pub const fn with_spans(mut self, spans: &'static [PropSpan]) -> View {
        self.spans = spans;
        self
    }

    /// Code mode's TypeScript declaration of the call, `tokens` its `text_tokens`.
    pub const fn with_signature(mut self, signature: &'static str, tokens: u32) -> View {
        self.signature = signature;
        self.signature_tokens = tokens;
        self
    }

    /// The view in the dialects whose text differs from the portable form.
    pub const fn with_dialects(mut self, dialects: &'static DialectSchemas) -> View {
        self.dialects = Some(dialects);
        self
    }
}

impl DialectSchemas {
    /// A view in OpenAI's strict mode and in Gemini's declarations.
    pub const fn new(openai_strict: DialectSchema, gemini: DialectSchema) -> DialectSchemas {
        DialectSchemas {
            openai_strict,
            gemini,
            anthropic_strict: None,
        }
    }

    /// The view in Anthropic's strict dialect (`None`: it cannot go strict).
    pub const fn with_anthropic_strict(mut self, schema: Option<DialectSchema>) -> DialectSchemas {
        self.anthropic_strict = schema;
        self
    }
}

impl DialectSchema {
    /// A view's text in one dialect, its `text_tokens` and its top-level property spans.
    pub const fn new(
        schema: &'static str,
        tokens: u32,
        spans: &'static [PropSpan],
    ) -> DialectSchema {
        DialectSchema {
            schema,
            tokens,
            spans,
        }
    }
}

impl SearchData {
    /// The lowercased description and hints; no precomputed terms (the session derives them
    /// when it indexes the catalogue).
    pub const fn new(description_lc: &'static str, hints: &'static [&'static str]) -> SearchData {
        SearchData {
            description_lc,
            hints,
            terms: "",
            fields: &[],
            vectors: &[],
        }
    }

    /// The precomputed stemmed terms and, for each, the fields it occurs in
    /// ([`SearchData::terms`](SearchData#structfield.terms)).
    pub const fn with_terms(mut self, terms: &'static str, fields: &'static [u8]) -> SearchData {
        self.terms = terms;
        self.fields = fields;
        self
    }

    /// The compiled semantic vectors ([`SearchData::vectors`](SearchData#structfield.vectors)).
    pub const fn with_vectors(mut self, vectors: &'static [u8]) -> SearchData {
        self.vectors = vectors;
        self
    }
}

impl HttpPack {
    /// Pack `label`'s HTTP settings: its base URL, the variable overriding it, and its
    /// credential. No constant headers, query parameters or body members, no envelope.
    pub const fn new(
        label: &'static str,
        base_url: &'static str,
        base_url_env: &'static str,
        auth: Auth,
    ) -> HttpPack {
        HttpPack {
            label,
            base_url,
            base_url_env,
            auth,
            headers: &[],
            query: &[],
            body: &[],
            envelope: None,
        }
    }

    /// Headers sent on every call.
    pub const fn with_headers(mut self, headers: &'static [(&'static str, &'static str)]) -> Self {
        self.headers = headers;
        self
    }

    /// Query parameters sent on every call.
    pub const fn with_query(mut self, query: &'static [(&'static str, &'static str)]) -> Self {
        self.query = query;
        self
    }

    /// Body members (name, JSON text) sent on every call.
    pub const fn with_body(mut self, body: &'static [(&'static str, &'static str)]) -> Self {
        self.body = body;
        self
    }

    /// How failures hidden inside a 200 are detected.
    pub const fn with_envelope(mut self, envelope: Envelope) -> Self {
        self.envelope = Some(envelope);
        self
    }
}

impl Route {
    /// A `method` request to `path` (relative to the pack's base URL). No body, no GraphQL
    /// document, the whole response kept, no pagination, the executor's timeout, no redirect
    /// followed, no constants of its own.
    pub const fn new(pack: &'static HttpPack, method: Method, path: &'static str) -> Route {
        Route {
            pack,
            method,
            path,
            body: BodyEncoding::None,
            graphql: None,
            projection: &[],
            pagination: None,
            timeout_ms: None,
            max_redirects: 0,
            headers: &[],
            query: &[],
        }
    }

    /// How body fields are encoded.
    pub const fn with_body(mut self, body: BodyEncoding) -> Route {
        self.body = body;
        self
    }

    /// The GraphQL document sent with the arguments as its variables.
    pub const fn with_graphql(mut self, document: &'static str) -> Route {
        self.graphql = Some(document);
        self
    }

    /// The dotted paths kept from the response.
    pub const fn with_projection(mut self, projection: &'static [&'static str]) -> Route {
        self.projection = projection;
        self
    }

    /// How the endpoint pages.
    pub const fn with_pagination(mut self, pagination: Pagination) -> Route {
        self.pagination = Some(pagination);
        self
    }

    /// This tool's timeout in milliseconds.
    pub const fn with_timeout_ms(mut self, timeout_ms: u32) -> Route {
        self.timeout_ms = Some(timeout_ms);
        self
    }

    /// How many redirects to follow.
    pub const fn with_max_redirects(mut self, max_redirects: u8) -> Route {
        self.max_redirects = max_redirects;
        self
    }

    /// This tool's own header constants.
    pub const fn with_headers(mut self, headers: &'static [(&'static str, &'static str)]) -> Self {
        self.headers = headers;
        self
    }

    /// This tool's own query constants.
    pub const fn with_query(mut self, query: &'static [(&'static str, &'static str)]) -> Self {
        self.query = query;
        self
    }
}

impl OAuth2 {
    /// Tokens from `token_url` by `grant`, the client id in `client_id_env`, sent as
    /// `Authorization: Bearer <token>`. Nothing else declared (empty strings, empty lists),
    /// the client authenticating with form fields.
    pub const fn new(grant: Grant, token_url: &'static str, client_id_env: &'static str) -> OAuth2 {
        OAuth2 {
            header: "Authorization",
            prefix: "Bearer ",
            access_token_env: "",
            grant,
            token_url,
            token_url_env: "",
            authorization_url: "",
            authorization_url_env: "",
            url_vars: &[],
            client_id_env,
            client_secret_env: "",
            refresh_token_env: "",
            scopes: &[],
            client_auth: ClientAuth::Body,
            authorization_params: &[],
        }
    }

    /// The header the access token goes in, and the text before it.
    pub const fn with_header(mut self, header: &'static str, prefix: &'static str) -> OAuth2 {
        self.header = header;
        self.prefix = prefix;
        self
    }

    /// A variable holding a ready access token.
    pub const fn with_access_token_env(mut self, env: &'static str) -> OAuth2 {
        self.access_token_env = env;
        self
    }

    /// The variable overriding the token endpoint.
    pub const fn with_token_url_env(mut self, env: &'static str) -> OAuth2 {
        self.token_url_env = env;
        self
    }

    /// Where a user consents, and the variable overriding it (may be empty).
    pub const fn with_authorization_url(mut self, url: &'static str, env: &'static str) -> OAuth2 {
        self.authorization_url = url;
        self.authorization_url_env = env;
        self
    }

    /// The placeholders of the URLs.
    pub const fn with_url_vars(mut self, url_vars: &'static [UrlVar]) -> OAuth2 {
        self.url_vars = url_vars;
        self
    }

    /// The variable holding the client secret.
    pub const fn with_client_secret_env(mut self, env: &'static str) -> OAuth2 {
        self.client_secret_env = env;
        self
    }

    /// The variable holding a refresh token.
    pub const fn with_refresh_token_env(mut self, env: &'static str) -> OAuth2 {
        self.refresh_token_env = env;
        self
    }

    /// The scopes requested.
    pub const fn with_scopes(mut self, scopes: &'static [&'static str]) -> OAuth2 {
        self.scopes = scopes;
        self
    }

    /// How the client authenticates to the token endpoint.
    pub const fn with_client_auth(mut self, client_auth: ClientAuth) -> OAuth2 {
        self.client_auth = client_auth;
        self
    }

    /// Extra query parameters of the authorization URL.
    pub const fn with_authorization_params(
        mut self,
        params: &'static [(&'static str, &'static str)],
    ) -> OAuth2 {
        self.authorization_params = params;
        self
    }
}

impl UrlVar {
    /// Placeholder `{name}`, read from `env`, `default` when unset (empty: required).
    pub const fn new(name: &'static str, env: &'static str, default: &'static str) -> UrlVar {
        UrlVar { name, env, default }
    }
}
