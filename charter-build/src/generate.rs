//! Rust generation: each resolved pack becomes `pub mod <label> { pub static TOOLS: Table }`
//! built with `quote` and formatted with `prettyplease`. Everything is `static` data: the shapes
//! are printed from the tree the view schemas were written from ([`crate::lower`]; named types
//! are `Named` statics that refer to each other, which is how recursion is expressed), the view
//! schemas, sizes, spans and paths are literals (nothing is const-evaluated when the pack
//! compiles), and each tool's route is a static pointing at the pack's `HttpPack` static.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::lower::Lowered;
use crate::mode::ViewKey;
use crate::model::{AuthModel, BodyModel, PackModel, PaginationModel, ToolModel};
use crate::pack::{EnvelopeDecl, HttpMethod};
use crate::schema::{
    PropSpan, ViewDialects, ViewSchema, tool_view_dialects, tool_view_schema, tool_view_signature,
};

mod shapes;

/// Why generation failed (not a pack mistake: a bad runtime path).
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The runtime path is not a Rust path.
    #[error("runtime path `{0}` is not a Rust path (use `crate` or `::charter`)")]
    RuntimePath(String),
    /// The generated tokens did not parse (a compiler bug).
    #[error("generated code does not parse: {0}")]
    Parse(String),
}

/// The Rust module name of a pack label: `-` becomes `_`; a leading digit gets a `_` prefix;
/// keywords are raw identifiers (`self`, `super`, `crate`, `Self` get a `_` suffix).
pub fn module_name(label: &str) -> String {
    let mut name = label.replace('-', "_");
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    if matches!(name.as_str(), "self" | "super" | "crate" | "Self" | "_") {
        name.push('_');
        return name;
    }
    if syn::parse_str::<syn::Ident>(&name).is_err() {
        return format!("r#{name}");
    }
    name
}

fn module_ident(label: &str) -> syn::Ident {
    let name = module_name(label);
    match name.strip_prefix("r#") {
        Some(raw) => syn::Ident::new_raw(raw, proc_macro2::Span::call_site()),
        None => syn::Ident::new(&name, proc_macro2::Span::call_site()),
    }
}

fn s(v: &str) -> Literal {
    Literal::string(v)
}

/// A string literal, raw (`r#"..."#`) when the text holds quotes, so schemas stay readable.
fn text(v: &str) -> Literal {
    if !v.contains('"') || v.contains('\r') {
        return s(v);
    }
    // Enough `#`s that no `"###` inside the text closes the literal early.
    let mut longest = 0;
    let mut run: Option<usize> = None;
    for c in v.chars() {
        match (c, run) {
            ('"', _) => run = Some(0),
            ('#', Some(n)) => {
                run = Some(n + 1);
                longest = longest.max(n + 1);
            }
            _ => run = None,
        }
    }
    let hashes = "#".repeat(longest + 1);
    format!("r{hashes}\"{v}\"{hashes}")
        .parse()
        .unwrap_or_else(|_| s(v))
}

/// `head` and a `.with_<field>(value)` for each field that differs from its default: the
/// const constructors of the shape types and `Annotations` (their structs are
/// `#[non_exhaustive]`), so the code says only what a field, rule or tool sets.
fn with_chain(head: TokenStream, fields: Vec<(&str, TokenStream, bool)>) -> TokenStream {
    let withs = fields
        .into_iter()
        .filter(|(_, _, is_default)| !is_default)
        .map(|(field, value, _)| {
            let method = format_ident!("with_{}", field);
            quote!(.#method(#value))
        });
    quote!(#head #(#withs)*)
}

/// The literal of a bound that is there (`0` stands in for one that is not, never printed).
fn u_or_zero(v: Option<u32>) -> TokenStream {
    lit(u(v.unwrap_or(0)))
}

/// A literal as tokens (a [`with_chain`] value).
fn lit(l: Literal) -> TokenStream {
    quote!(#l)
}

fn u(v: u32) -> Literal {
    Literal::u32_unsuffixed(v)
}

fn opt_str(v: Option<&str>) -> TokenStream {
    match v {
        Some(v) => {
            let v = s(v);
            quote!(Some(#v))
        }
        None => quote!(None),
    }
}

/// The stemmed search terms of a tool and the fields each occurs in (`SearchData::terms` and
/// `fields`): its own name, hints, description and the top-level parameters a model can set.
fn search_terms(t: &ToolModel) -> (Literal, TokenStream) {
    let params = t
        .params
        .iter()
        .filter(|f| {
            f.from_context.is_none()
                && !f.modes.iter().any(|m| charter_terms::modes::is_reserved(m))
        })
        .map(|f| f.name.as_str());
    let terms = charter_terms::ToolTerms::new(
        &t.tool,
        t.hints.iter().map(String::as_str),
        &t.description,
        params,
    );
    let fields = terms.fields().into_iter().map(Literal::u8_unsuffixed);
    (s(&terms.joined()), quote!(&[#(#fields),*]))
}

/// The name of tool `tool`'s views static. A tool name may start with a digit, which no Rust
/// identifier may: it then gets a leading `_`, which no tool name has, so it cannot collide.
fn views_ident(tool: &str) -> syn::Ident {
    let upper = tool.to_ascii_uppercase();
    if upper.starts_with(|c: char| c.is_ascii_digit()) {
        format_ident!("_{upper}_VIEWS")
    } else {
        format_ident!("{upper}_VIEWS")
    }
}

/// `static NAME: &str = "...";`
fn cold_text(name: &syn::Ident, value: &str) -> TokenStream {
    let value = text(value);
    quote!(static #name: &str = #value;)
}

/// The cold statics of the views of tool `t` that show the same fields (`base`): the signature
/// and the dialect texts, the spans of those, and the view's `DialectSchemas`.
fn cold_statics(t: &ToolModel, base: &str, signature: &str, d: &ViewDialects) -> TokenStream {
    let ident = |k: &str| format_ident!("{base}_{k}");
    let doc = format!(
        " Code mode's declaration and the dialects' schemas of `{}` (the views showing these \
         fields): no `tools/list` reads them.",
        t.name
    );
    let signature = cold_text(&ident("SIGNATURE"), signature);
    let one = |k: &str, v: &ViewSchema| {
        let (name, spans_name) = (ident(k), ident(&format!("{k}_SPANS")));
        let text = cold_text(&name, &v.text);
        let n = Literal::usize_unsuffixed(v.spans.len());
        let spans = span_items(&v.spans);
        let tokens = u(v.tokens);
        let stat = quote! {
            #text
            static #spans_name: [PropSpan; #n] = [#(#spans),*];
        };
        (
            stat,
            quote!(DialectSchema::new(#name, #tokens, &#spans_name)),
        )
    };
    let (strict_statics, strict) = one("STRICT", &d.openai_strict);
    let (gemini_statics, gemini) = one("GEMINI", &d.gemini);
    let (anthropic_statics, anthropic) = match &d.anthropic_strict {
        Some(v) => {
            let (statics, v) = one("ANTHROPIC_STRICT", v);
            (statics, quote!(Some(#v)))
        }
        None => (TokenStream::new(), quote!(None)),
    };
    let dialects = ident("DIALECTS");
    quote! {
        #[doc = #doc]
        #signature
        #strict_statics
        #gemini_statics
        #anthropic_statics
        static #dialects: DialectSchemas = DialectSchemas::new(#strict, #gemini)
            .with_anthropic_strict(#anthropic);
    }
}

/// The `PropSpan` literals of a view.
fn span_items(spans: &[PropSpan]) -> impl Iterator<Item = TokenStream> + '_ {
    spans.iter().map(|sp| {
        let name = s(sp.name);
        let (a, b) = (u(sp.property.0), u(sp.property.1));
        let required = match sp.required {
            Some((c, d)) => {
                let (c, d) = (u(c), u(d));
                quote!(Some((#c, #d)))
            }
            None => quote!(None),
        };
        quote!(PropSpan { name: #name, property: (#a, #b), required: #required })
    })
}

fn strs<'a>(items: impl IntoIterator<Item = &'a str>) -> TokenStream {
    let items = items.into_iter().map(s);
    quote!(&[#(#items),*])
}

/// The name stem of the `n`th schema shared by several views of `tool`. A tool name may start
/// with a digit (`0items_list`, found by the `pack_compile` fuzz target), which no Rust
/// identifier may: such a stem gets a leading `_`, which no tool name has, so it cannot collide.
fn shared_view_base(tool: &str, n: usize) -> String {
    let upper = tool.to_ascii_uppercase();
    if upper.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{upper}_{n}")
    } else {
        format!("{upper}_{n}")
    }
}

struct Gen<'a> {
    pack: &'a PackModel,
    /// The pack's shapes: what the views are written from and the statics are printed from.
    lowered: Lowered,
}

impl Gen<'_> {
    /// The `schema`, `paths` and `spans` expressions of a view.
    fn view_parts(v: &ViewSchema) -> [TokenStream; 3] {
        let schema = text(&v.text);
        let paths = v.paths.iter().map(|p| {
            let path = s(&p.path);
            let depth = Literal::u8_unsuffixed(p.depth);
            let saves = u(p.saves);
            quote!(PathCost { path: #path, depth: #depth, saves: #saves })
        });
        let spans = span_items(&v.spans);
        [
            quote!(#schema),
            quote!(&[#(#paths),*]),
            quote!(&[#(#spans),*]),
        ]
    }

    /// The views of a tool, and the statics and consts they refer to: for each set of views that
    /// show the same fields (`Default` and `Unmatched` of a tool without labels have one schema)
    /// the cold statics ([`cold_statics`]: signature and dialects, shared as the fields are), and
    /// consts for the schema, paths and spans when several views share them.
    fn views(
        t: &ToolModel,
        schemas: &[ViewSchema],
        signatures: &[(String, u32)],
        dialects: &[ViewDialects],
    ) -> (Vec<TokenStream>, Vec<TokenStream>) {
        // The schema texts seen, in order: the `n` of each set's statics (`ISSUES_LIST_<n>_...`).
        let mut seen: Vec<&str> = Vec::new();
        let mut consts = Vec::new();
        let mut views = Vec::new();
        for (((v, schema), (signature, signature_tokens)), d) in
            t.views.iter().zip(schemas).zip(signatures).zip(dialects)
        {
            let repeated = schemas.iter().filter(|o| o.text == schema.text).count() > 1;
            let first = !seen.contains(&schema.text.as_str());
            if first {
                seen.push(&schema.text);
            }
            let n = seen
                .iter()
                .position(|t| *t == schema.text)
                .unwrap_or_default();
            let base = shared_view_base(&t.tool, n);
            if first {
                consts.push(cold_statics(t, &base, signature, d));
            }
            let cold = ["SIGNATURE", "DIALECTS"].map(|k| format_ident!("{base}_{k}"));
            let [signature_expr, dialects_expr] = &cold;
            let [schema_expr, paths, spans] = if !repeated {
                Self::view_parts(schema)
            } else {
                let idents = ["SCHEMA", "PATHS", "SPANS"].map(|k| format_ident!("{base}_{k}"));
                if first {
                    let [a, b, c] = Self::view_parts(schema);
                    let [ia, ib, ic] = &idents;
                    let doc = format!(
                        " Shared by the views of `{}` that show the same fields.",
                        t.name
                    );
                    consts.push(quote! {
                        #[doc = #doc]
                        const #ia: &str = #a;
                        const #ib: &[PathCost] = #b;
                        const #ic: &[PropSpan] = #c;
                    });
                }
                idents.map(|i| quote!(#i))
            };
            let key = match &v.key {
                ViewKey::Default => quote!(ViewKey::Default),
                ViewKey::Unmatched => quote!(ViewKey::Unmatched),
                ViewKey::Label(l) => {
                    let l = s(l);
                    quote!(ViewKey::Label(#l))
                }
            };
            let tokens = u(schema.tokens);
            let signature_tokens = u(*signature_tokens);
            // Only what differs from `View::new`'s defaults, then what every generated view has.
            let mut with = Vec::new();
            if !v.active.is_empty() {
                let active = strs(v.active.iter().map(String::as_str));
                with.push(quote!(.with_active(#active)));
            }
            if v.widest {
                with.push(quote!(.with_widest(true)));
            }
            views.push(quote! {
                View::new(#key, #schema_expr, #tokens)
                    #(#with)*
                    .with_paths(#paths)
                    .with_spans(#spans)
                    .with_signature(#signature_expr, #signature_tokens)
                    .with_dialects(&#dialects_expr)
            });
        }
        (views, consts)
    }

    fn route_ident(tool: &ToolModel) -> syn::Ident {
        format_ident!("ROUTE_{}", tool.tool.to_ascii_uppercase())
    }

    /// The `ToolDef` expression of tool `index`, and the consts its views share.
    fn tool(&self, index: usize, t: &ToolModel) -> (TokenStream, Vec<TokenStream>) {
        let name = s(&t.name);
        let pack = s(&self.pack.label);
        let tool = s(&t.tool);
        let description = s(&t.description);
        let a = t.annotations;
        let annotations = with_chain(
            quote!(Annotations::new()),
            vec![
                ("read_only", quote!(true), !a.read_only),
                ("idempotent", quote!(true), !a.idempotent),
                ("destructive", quote!(true), !a.destructive),
                ("open_world", quote!(true), !a.open_world),
            ],
        );
        let input = shapes::object(self.lowered.inputs[index]);
        let (at_least_one, exactly_one) = self.lowered.groups[index];
        let schemas: Vec<ViewSchema> = t
            .views
            .iter()
            .map(|v| tool_view_schema(&self.lowered, index, v))
            .collect();
        let signatures: Vec<(String, u32)> = t
            .views
            .iter()
            .map(|v| tool_view_signature(&self.lowered, index, v, &t.keep))
            .collect();
        let dialects: Vec<ViewDialects> = t
            .views
            .iter()
            .map(|v| tool_view_dialects(&self.lowered, index, v))
            .collect();
        let (views, mut consts) = Self::views(t, &schemas, &signatures, &dialects);
        let views_static = views_ident(&t.tool);
        let n = Literal::usize_unsuffixed(views.len());
        consts.push(quote! {
            static #views_static: [View; #n] = [#(#views),*];
        });
        let description_lc = s(&t.description.to_lowercase());
        let hints_lc: Vec<String> = t.hints.iter().map(|h| h.to_lowercase()).collect();
        let hints = strs(hints_lc.iter().map(String::as_str));
        let (search_terms, search_fields) = search_terms(t);
        let vectors = Literal::byte_string(
            &charter_terms::semantic::TokenTable::shipped().tool_vectors(
                &t.name,
                &t.description,
                &t.hints.iter().map(String::as_str).collect::<Vec<_>>(),
            ),
        );
        let route = Self::route_ident(t);
        // `ToolDef::new`'s defaults left out: no author mode, no groups.
        let mut with = Vec::new();
        if let Some(mode) = &t.mode {
            let mode = s(mode);
            with.push(quote!(.with_mode(#mode)));
        }
        if !at_least_one.is_empty() {
            let groups = group_list(at_least_one);
            with.push(quote!(.with_require_one_of(#groups)));
        }
        if !exactly_one.is_empty() {
            let groups = group_list(exactly_one);
            with.push(quote!(.with_require_exactly_one_of(#groups)));
        }
        with.push(self.output(index, t));
        let def = quote! {
            ToolDef::new(#name, #pack, #tool, #description, Exec::Http(&#route))
                .with_annotations(#annotations)
                #(#with)*
                .with_input(&#input)
                .with_views(&#views_static)
                .with_search(SearchData::new(#description_lc, #hints).with_terms(#search_terms, #search_fields).with_vectors(#vectors))
        };
        (def, consts)
    }

    /// `.with_output(..)`: the result shape and its schema text (written here by the emitter, in
    /// its `Result` target), or the gap that says why there is none.
    fn output(&self, index: usize, t: &ToolModel) -> TokenStream {
        match (self.lowered.results[index], &t.result) {
            (Some(shape), _) => {
                let schema =
                    charter_schema::emit::emit_shape(shape, charter_schema::Target::Result);
                let tokens = u(charter_terms::tokens::text_tokens(&schema));
                let text = text(&schema);
                let shape = shapes::shape_ref(shape);
                quote!(.with_output(Output::Schema(&OutputSchema::new(#shape, #text, #tokens))))
            }
            (None, result) => {
                let gap = match result {
                    Err(gap) => *gap,
                    Ok(_) => charter_terms::results::Gap::NotDeclared,
                };
                let variant = format_ident!("{}", format!("{gap:?}"));
                quote!(.with_output(Output::Unknown(Gap::#variant)))
            }
        }
    }

    fn route(&self, t: &ToolModel) -> TokenStream {
        let ident = Self::route_ident(t);
        let method = format_ident!(
            "{}",
            match t.method {
                HttpMethod::Get => "Get",
                HttpMethod::Head => "Head",
                HttpMethod::Post => "Post",
                HttpMethod::Put => "Put",
                HttpMethod::Patch => "Patch",
                HttpMethod::Delete => "Delete",
            }
        );
        let path = s(&t.path);
        let body = format_ident!(
            "{}",
            match t.body {
                BodyModel::None => "None",
                BodyModel::Json => "Json",
                BodyModel::Form => "Form",
            }
        );
        // Only what differs from `Route::new`'s defaults.
        let mut with = Vec::new();
        if !matches!(t.body, BodyModel::None) {
            with.push(quote!(.with_body(BodyEncoding::#body)));
        }
        if let Some(doc) = &t.graphql {
            let doc = text(doc);
            with.push(quote!(.with_graphql(#doc)));
        }
        if !t.keep.is_empty() {
            let projection = strs(t.keep.iter().map(String::as_str));
            with.push(quote!(.with_projection(#projection)));
        }
        if let Some(p) = &t.pagination {
            let pagination = match p {
                PaginationModel::Cursor { next, param } => {
                    let (next, param) = (s(next), s(param));
                    quote!(Pagination::Cursor { next: #next, param: #param })
                }
                PaginationModel::Page { param, size_param } => {
                    let param = s(param);
                    let size = opt_str(size_param.as_deref());
                    quote!(Pagination::Page { param: #param, size_param: #size })
                }
                PaginationModel::Offset { param, size_param } => {
                    let param = s(param);
                    let size = opt_str(size_param.as_deref());
                    quote!(Pagination::Offset { param: #param, size_param: #size })
                }
            };
            with.push(quote!(.with_pagination(#pagination)));
        }
        if let Some(ms) = t.timeout_ms {
            let ms = u(ms);
            with.push(quote!(.with_timeout_ms(#ms)));
        }
        if t.redirects != 0 {
            let redirects = Literal::u8_unsuffixed(t.redirects);
            with.push(quote!(.with_max_redirects(#redirects)));
        }
        if !t.headers.is_empty() {
            let headers = pairs(&t.headers);
            with.push(quote!(.with_headers(#headers)));
        }
        if !t.query.is_empty() {
            let query = pairs(&t.query);
            with.push(quote!(.with_query(#query)));
        }
        let doc = format!(" How `{}` is sent.", t.name);
        quote! {
            #[doc = #doc]
            static #ident: Route = Route::new(&HTTP, Method::#method, #path) #(#with)*;
        }
    }

    fn http_pack(&self) -> TokenStream {
        let p = self.pack;
        let label = s(&p.label);
        let base_url = s(&p.base_url);
        let env = s(&p.base_url_env);
        let auth = match &p.auth {
            AuthModel::None => quote!(Auth::None),
            AuthModel::Bearer { env } => {
                let env = s(env);
                quote!(Auth::Bearer { env: #env })
            }
            AuthModel::Basic { env } => {
                let env = s(env);
                quote!(Auth::Basic { env: #env })
            }
            AuthModel::Header { name, prefix, env } => {
                let (name, prefix, env) = (s(name), s(prefix), s(env));
                quote!(Auth::Header { name: #name, prefix: #prefix, env: #env })
            }
            AuthModel::OAuth2(_) => quote!(Auth::OAuth2(&OAUTH2)),
        };
        let oauth2 = match &p.auth {
            AuthModel::OAuth2(m) => crate::oauth_model::generate(m),
            _ => TokenStream::new(),
        };
        // Only what differs from `HttpPack::new`'s defaults.
        let mut with = Vec::new();
        for (list, method) in [
            (&p.headers, "with_headers"),
            (&p.query, "with_query"),
            (&p.body, "with_body"),
        ] {
            if !list.is_empty() {
                let (list, method) = (pairs(list), format_ident!("{method}"));
                with.push(quote!(.#method(#list)));
            }
        }
        if let Some(envelope) = &p.envelope {
            let envelope = match envelope {
                EnvelopeDecl::GraphQl => quote!(Envelope::GraphQl),
                EnvelopeDecl::GraphQlUserErrors => quote!(Envelope::GraphQlUserErrors),
                EnvelopeDecl::OkFlag { field, error_field } => {
                    let (f, e) = (s(field), s(error_field));
                    quote!(Envelope::OkFlag { field: #f, error_field: #e })
                }
            };
            with.push(quote!(.with_envelope(#envelope)));
        }
        quote! {
            #oauth2
            /// What every tool of this pack shares: base URL, auth, constants, envelope.
            static HTTP: HttpPack = HttpPack::new(#label, #base_url, #env, #auth) #(#with)*;
        }
    }

    fn module(&self, runtime: &syn::Path) -> TokenStream {
        let p = self.pack;
        let module = module_ident(&p.label);
        let label = s(&p.label);
        let description = s(&p.description);
        let module_doc = format!(" The `{}` pack ({}): {}", p.label, p.file, p.description);
        let tools_doc = format!(" The {} tools of the `{}` pack.", p.tools.len(), p.label);
        let (tools, shared): (Vec<TokenStream>, Vec<Vec<TokenStream>>) = p
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| self.tool(i, t))
            .unzip();
        let shared = shared.into_iter().flatten();
        let count = Literal::usize_unsuffixed(p.tools.len());
        let routes = p.tools.iter().map(|t| self.route(t));
        let http = self.http_pack();
        let types = self.lowered.types.iter().map(|n| shapes::named_static(n));
        quote! {
            #[doc = #module_doc]
            pub mod #module {
                use #runtime::table::*;

                #[doc = #tools_doc]
                pub static TOOLS: Table = Table::new(#label, #description, &TOOL_DEFS);
                static TOOL_DEFS: [ToolDef; #count] = [#(#tools),*];

                #http
                #(#routes)*
                #(#shared)*
                #(#types)*
            }
        }
    }
}

/// A `&[(name, value)]` slice of string constants.
fn pairs(list: &[(String, String)]) -> TokenStream {
    let items = list.iter().map(|(k, v)| {
        let (k, v) = (s(k), text(v));
        quote!((#k, #v))
    });
    quote!(&[#(#items),*])
}

/// Generates the Rust source of these packs: one `pub mod <label>` each and `pub static ALL`.
pub fn file(packs: &[PackModel], runtime: &str) -> Result<String, GenerateError> {
    let runtime: syn::Path =
        syn::parse_str(runtime).map_err(|_| GenerateError::RuntimePath(runtime.to_owned()))?;
    let modules = packs.iter().map(|p| {
        Gen {
            pack: p,
            lowered: crate::lower::lower(p),
        }
        .module(&runtime)
    });
    let all = packs.iter().map(|p| {
        let m = module_ident(&p.label);
        quote!(&#m::TOOLS)
    });
    let tokens = quote! {
        #(#modules)*

        /// Every pack compiled here.
        // A binary that passes only some tables (`&packs::tracker::TOOLS`) leaves this unused.
        #[allow(dead_code)]
        pub static ALL: &[&#runtime::table::Table] = &[#(#all),*];
    };
    let sources: Vec<&str> = packs.iter().map(|p| p.file.as_str()).collect();
    let header = if sources.is_empty() {
        "// @generated by charter-build (no packs). Do not edit.\n\n".to_owned()
    } else {
        format!(
            "// @generated by charter-build from {}. Do not edit: change the pack and rebuild.\n\n",
            sources.join(", ")
        )
    };
    let text = tokens.to_string();
    if text.len() > PRETTY_LIMIT {
        return Ok(header + &text);
    }
    let parsed: syn::File =
        syn::parse_str(&text).map_err(|e| GenerateError::Parse(e.to_string()))?;
    Ok(header + &prettyplease::unparse(&parsed))
}

/// Generated code over this size is written as the token stream prints it, not formatted.
/// Parsing it back with `syn` and printing it with prettyplease is most of generation's time and
/// memory on a large document (a 60 MB file: 4.3 s of 5 s), and no one reads a file that size;
/// the compiler checks it either way. The shipped packs and every golden file stay well under.
const PRETTY_LIMIT: usize = 16 << 20;

/// `&[&["a"], &["b", "c"]]`: groups of names as a table constant.
fn group_list(groups: &[&[&str]]) -> TokenStream {
    let items = groups.iter().map(|g| strs(g.iter().copied()));
    quote!(&[#(#items),*])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names() {
        assert_eq!(module_name("github"), "github");
        assert_eq!(module_name("google-calendar"), "google_calendar");
        assert_eq!(module_name("1password"), "_1password");
        assert_eq!(module_name("type"), "r#type");
        assert_eq!(module_name("self"), "self_");
    }
}
