//! Tables described in JSON, for tests that need many small tables inline: builds leaked
//! `&'static` tables the way the pack compiler would. (Fixture packs that can be compiled ahead
//! of time go through `charter-build` instead: see [`crate::synthetic_catalogue`].)
//!
//! Each view's schema text, size, spans and path costs are written from the same [`Shape`] tree
//! validation reads, by the one schema emitter the pack compiler and `#[charter::tool]` use
//! (`charter_schema::emit`), so a table described here reads exactly as a compiled one.
//! Recursive types (`ref`) are not supported here; hand-build those.
//!
//! ```text
//! {"pack": "tracker", "description": "...", "tools": [
//!   {"name": "issues_create", "description": "...", "mode": "create", "hints": ["ticket"],
//!    "annotations": {"read_only": true}, "http": {"method": "POST", "path": "/issues"},
//!    "handler": "name-in-handlers", "result": {"type": "array", "items": {"type": "string"}},
//!    "params": {"title": {"type": "string", "required": true, "description": "...",
//!                         "min_length": 1, "modes": ["pro"], "from_context": "key", ...}}}]}
//! ```
//!
//! Field keys are the pack format's: `type` (`string`, `integer`, `number`, `boolean`, `object`,
//! `array`, `map`, `any`), `description`, `required`, `enum`, `default`, `minimum`, `maximum`,
//! `min_length`, `max_length`, `pattern`, `format`, `items`, `min_items`, `max_items`, `unique_items`,
//! `properties`, `values`, `nullable`, `one_of`, `modes`, `from_context`, `in`, `wire`, `style`,
//! `allow_slash`. A tool without `http` runs [`echo`] (or the named handler). `result` is the
//! tool's result shape (docs/results.md), in the same keys.

use charter_schema::emit::{Groups, Labels, Root, Target, emit, typescript};
use serde_json::{Map, Value};

use charter_runtime::context::CallContext;
use charter_runtime::error::CharterError;
use charter_runtime::table::{
    Annotations, ArrayRules, Auth, BodyEncoding, BoxFuture, DialectSchema, DialectSchemas, Exec,
    Field, Format, Handler, HttpPack, ListStyle, Location, Method, Num, NumberRules, ObjectShape,
    Output, OutputSchema, PathCost, Route, SearchData, Shape, StringRules, Table, ToolDef,
    ToolOutput, View, ViewKey,
};

/// A handler that answers with the arguments it received (pins and context values merged), so a
/// test can see exactly what reached the executed call.
pub fn echo<'a>(
    arguments: Value,
    _ctx: &'a CallContext,
) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
    Box::pin(async move { Ok(ToolOutput::json(arguments)) })
}

/// Builds a table from a description; panics with the reason when it is malformed.
pub fn table(description: Value) -> &'static Table {
    table_with(description, &[])
}

/// Builds a table whose tools may name a handler from `handlers`.
pub fn table_with(description: Value, handlers: &[(&str, Handler)]) -> &'static Table {
    try_table(&description, handlers).unwrap_or_else(|e| panic!("bad table description: {e}"))
}

/// Builds a table from a description, or says what is wrong with it.
pub fn try_table(
    description: &Value,
    handlers: &[(&str, Handler)],
) -> Result<&'static Table, String> {
    let pack = str_of(description, "pack")?.ok_or("a table needs `pack`")?;
    let pack = leak_str(pack.to_owned());
    let summary = leak_str(
        str_of(description, "description")?
            .unwrap_or("A test pack.")
            .to_owned(),
    );
    let http_pack: &'static HttpPack =
        leak_one(HttpPack::new(pack, "http://127.0.0.1:9", "", Auth::None));
    let tools = description
        .get("tools")
        .and_then(Value::as_array)
        .ok_or("a table needs a `tools` array")?;
    let mut defs = Vec::with_capacity(tools.len());
    for tool in tools {
        defs.push(tool_def(pack, http_pack, tool, handlers)?);
    }
    Ok(leak_one(Table::new(pack, summary, leak(defs))))
}

fn tool_def(
    pack: &'static str,
    http_pack: &'static HttpPack,
    spec: &Value,
    handlers: &[(&str, Handler)],
) -> Result<ToolDef, String> {
    let tool = str_of(spec, "name")?.ok_or("a tool needs `name`")?;
    let name = leak_str(format!("{pack}_{tool}"));
    let description = str_of(spec, "description")?
        .unwrap_or("A test tool.")
        .to_owned();
    let mode = str_of(spec, "mode")?.map(|m| leak_str(m.to_owned()));
    let params = match spec.get("params") {
        None => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => return Err(format!("{name}: `params` must be an object")),
    };
    let mut fields = Vec::with_capacity(params.len());
    for (field_name, field_spec) in &params {
        fields.push(
            field(field_name, field_spec, true).map_err(|e| format!("{name}.{field_name}: {e}"))?,
        );
    }
    let input: &'static ObjectShape = leak_one(ObjectShape::of(leak(fields)));
    let (exec, method) = exec(name, http_pack, spec, input, handlers)?;
    let mut annotations = method.map(Annotations::for_method).unwrap_or_default();
    if let Some(a) = spec.get("annotations") {
        let flag = |k: &str, d: bool| a.get(k).and_then(Value::as_bool).unwrap_or(d);
        annotations = Annotations::new()
            .with_read_only(flag("read_only", annotations.read_only))
            .with_idempotent(flag("idempotent", annotations.idempotent))
            .with_destructive(flag("destructive", annotations.destructive))
            .with_open_world(flag("open_world", annotations.open_world));
    }
    let hints: Vec<&'static str> = match spec.get("hints") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(|h| leak_str(h.to_lowercase()))
            .collect(),
        Some(_) => return Err(format!("{name}: `hints` must be an array")),
    };
    let require_one_of = groups_of(spec, "require_one_of")?;
    let require_exactly_one_of = groups_of(spec, "require_exactly_one_of")?;
    let groups = Groups {
        at_least_one: require_one_of,
        exactly_one: require_exactly_one_of,
    };
    let views = views(input, groups, mode);
    // The stemmed terms, as the pack compiler generates them.
    let terms = charter_terms::ToolTerms::new(
        tool,
        hints.iter().copied(),
        &description,
        input
            .fields
            .iter()
            .filter(|f| {
                f.from_context.is_none()
                    && !f.modes.iter().any(|m| charter_terms::modes::is_reserved(m))
            })
            .map(|f| f.name),
    );
    let vectors =
        charter_terms::semantic::TokenTable::shipped().tool_vectors(name, &description, &hints);
    let search = SearchData::new(leak_str(description.to_lowercase()), leak(hints))
        .with_terms(leak_str(terms.joined()), leak(terms.fields()))
        .with_vectors(leak(vectors));
    let def = ToolDef::new(
        name,
        pack,
        leak_str(tool.to_owned()),
        leak_str(description),
        exec,
    )
    .with_annotations(annotations)
    .with_input(input)
    .with_require_one_of(require_one_of)
    .with_require_exactly_one_of(require_exactly_one_of)
    .with_views(views)
    .with_search(search);
    let def = match spec.get("result") {
        None => def,
        Some(result) => {
            let shape = shape(result).map_err(|e| format!("{name}.result: {e}"))?;
            let text = charter_schema::emit::emit_shape(shape, Target::Result);
            let tokens = charter_terms::tokens::text_tokens(&text);
            def.with_output(Output::Schema(leak_one(OutputSchema::new(
                shape,
                leak_str(text),
                tokens,
            ))))
        }
    };
    Ok(match mode {
        Some(mode) => def.with_mode(mode),
        None => def,
    })
}

/// How the tool runs: an HTTP route on the table's pack (with its method), or a Rust handler.
fn exec(
    name: &str,
    http_pack: &'static HttpPack,
    spec: &Value,
    input: &'static ObjectShape,
    handlers: &[(&str, Handler)],
) -> Result<(Exec, Option<Method>), String> {
    Ok(match spec.get("http") {
        Some(http) => {
            let method = match str_of(http, "method")?.unwrap_or("GET") {
                "GET" => Method::Get,
                "HEAD" => Method::Head,
                "POST" => Method::Post,
                "PUT" => Method::Put,
                "PATCH" => Method::Patch,
                "DELETE" => Method::Delete,
                other => return Err(format!("{name}: unknown method {other}")),
            };
            let path = leak_str(str_of(http, "path")?.unwrap_or("/").to_owned());
            let body = if input.fields.iter().any(|f| f.location == Location::Body) {
                BodyEncoding::Json
            } else {
                BodyEncoding::None
            };
            let route = leak_one(Route::new(http_pack, method, path).with_body(body));
            (Exec::Http(route), Some(method))
        }
        None => {
            let handler = match str_of(spec, "handler")? {
                None => echo as Handler,
                Some(h) => handlers
                    .iter()
                    .find(|(n, _)| *n == h)
                    .map(|(_, f)| *f)
                    .ok_or_else(|| format!("{name}: no handler named {h}"))?,
            };
            (Exec::Rust(handler), None)
        }
    })
}

fn field(name: &str, spec: &Value, top: bool) -> Result<Field, String> {
    let description = str_of(spec, "description")?
        .map(str::to_owned)
        .unwrap_or_else(|| format!("The {name}."));
    let modes: Vec<&'static str> = match spec.get("modes") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|m| {
                m.as_str()
                    .map(|m| leak_str(m.to_owned()))
                    .ok_or("`modes` must hold strings")
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`modes` must be an array".into()),
    };
    let location = match str_of(spec, "in")? {
        None => Location::Arg,
        Some("path") if top => Location::Path,
        Some("query") if top => Location::Query,
        Some("header") if top => Location::Header,
        Some("body") if top => Location::Body,
        Some(other) => return Err(format!("`in: {other}` is not allowed here")),
    };
    let style = match str_of(spec, "style")? {
        None | Some("repeat") => ListStyle::Repeat,
        Some("brackets") => ListStyle::Brackets,
        Some("comma") => ListStyle::Comma,
        Some(other) => return Err(format!("unknown style {other}")),
    };
    let flag = |k: &str| spec.get(k).and_then(Value::as_bool).unwrap_or(false);
    let mut field = Field::new(
        leak_str(name.to_owned()),
        leak_str(description),
        shape(spec)?,
    )
    .with_wire(leak_str(str_of(spec, "wire")?.unwrap_or(name).to_owned()))
    .with_required(flag("required"))
    .with_modes(leak(modes))
    .with_location(location)
    .with_style(style)
    .with_allow_slash(flag("allow_slash"));
    field.default = spec.get("default").map(|d| leak_str(d.to_string()));
    field.from_context = str_of(spec, "from_context")?.map(|k| leak_str(k.to_owned()));
    Ok(field)
}

fn shape(spec: &Value) -> Result<&'static Shape, String> {
    let base = if let Some(alts) = spec.get("one_of") {
        let alts = alts.as_array().ok_or("`one_of` must be an array")?;
        let shapes: Vec<Shape> = alts
            .iter()
            .map(|a| shape(a).map(own))
            .collect::<Result<_, _>>()?;
        Shape::OneOf(leak(shapes))
    } else {
        let ty = str_of(spec, "type")?.ok_or("a field needs `type` or `one_of`")?;
        let u32_of = |k: &str| spec.get(k).and_then(Value::as_u64).map(|n| n as u32);
        let numbers = || {
            let mut rules = NumberRules::NONE.with_enum_values(leak(
                spec.get("enum")
                    .and_then(Value::as_array)
                    .map(|e| e.iter().filter_map(num).collect())
                    .unwrap_or_default(),
            ));
            rules.minimum = spec.get("minimum").and_then(num);
            rules.maximum = spec.get("maximum").and_then(num);
            rules
        };
        match ty {
            "any" => Shape::Any,
            "boolean" => Shape::Bool,
            "integer" => Shape::Integer(numbers()),
            "number" => Shape::Number(numbers()),
            "string" => {
                let mut rules = StringRules::NONE.with_enum_values(leak(
                    spec.get("enum")
                        .and_then(Value::as_array)
                        .map(|e| {
                            e.iter()
                                .filter_map(Value::as_str)
                                .map(|s| leak_str(s.to_owned()))
                                .collect()
                        })
                        .unwrap_or_default(),
                ));
                rules.min_length = u32_of("min_length");
                rules.max_length = u32_of("max_length");
                rules.pattern = str_of(spec, "pattern")?.map(|p| leak_str(p.to_owned()));
                rules.format = match str_of(spec, "format")? {
                    None => None,
                    Some("date-time") => Some(Format::DateTime),
                    Some("date") => Some(Format::Date),
                    Some("date-time-local") => Some(Format::DateTimeLocal),
                    Some("email") => Some(Format::Email),
                    Some("uri") => Some(Format::Uri),
                    Some("uuid") => Some(Format::Uuid),
                    Some("base64url") => Some(Format::Base64Url),
                    Some(other) => return Err(format!("unknown format {other}")),
                };
                Shape::String(rules)
            }
            "array" => {
                let items = shape(spec.get("items").ok_or("an array needs `items`")?)?;
                let mut rules = ArrayRules::of(items).with_unique_items(
                    spec.get("unique_items")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                );
                rules.min_items = u32_of("min_items");
                rules.max_items = u32_of("max_items");
                Shape::Array(rules)
            }
            "object" => {
                let props = match spec.get("properties") {
                    None => Map::new(),
                    Some(Value::Object(map)) => map.clone(),
                    Some(_) => return Err("`properties` must be an object".into()),
                };
                let fields: Vec<Field> = props
                    .iter()
                    .map(|(n, s)| field(n, s, false).map_err(|e| format!("{n}: {e}")))
                    .collect::<Result<_, _>>()?;
                Shape::Object(
                    ObjectShape::of(leak(fields))
                        .with_require_one_of(groups_of(spec, "require_one_of")?)
                        .with_require_exactly_one_of(groups_of(spec, "require_exactly_one_of")?),
                )
            }
            "map" => Shape::Map(shape(spec.get("values").ok_or("a map needs `values`")?)?),
            other => return Err(format!("unknown type {other}")),
        }
    };
    let base = leak_one(base);
    if spec
        .get("nullable")
        .and_then(Value::as_bool)
        .unwrap_or(false)
    {
        Ok(leak_one(Shape::Nullable(base)))
    } else {
        Ok(base)
    }
}

/// A number with its JSON text, as the schema shows it.
fn num(v: &Value) -> Option<Num> {
    Some(Num {
        value: v.as_f64()?,
        text: leak_str(v.to_string()),
    })
}

/// `key: [["a"], ["b", "c"]]` of a tool or object spec, leaked.
fn groups_of(spec: &Value, key: &str) -> Result<&'static [&'static [&'static str]], String> {
    let Some(list) = spec.get(key) else {
        return Ok(&[]);
    };
    let bad = || format!("`{key}` must be a list of name lists");
    let groups = list.as_array().ok_or_else(bad)?.iter().map(|g| {
        let names = g
            .as_array()
            .ok_or_else(bad)?
            .iter()
            .map(|n| n.as_str().map(|s| leak_str(s.to_owned())).ok_or_else(bad));
        Ok(leak(names.collect::<Result<Vec<_>, String>>()?) as &'static [&'static str])
    });
    Ok(leak(groups.collect::<Result<Vec<_>, String>>()?))
}

/// Moves a leaked shape's content into an owned `Shape` for a `one_of` slice (the leaked box is
/// small and tests are short-lived).
fn own(shape: &'static Shape) -> Shape {
    match shape {
        Shape::Any => Shape::Any,
        Shape::Bool => Shape::Bool,
        Shape::Integer(r) => Shape::Integer(*r),
        Shape::Number(r) => Shape::Number(*r),
        Shape::String(r) => Shape::String(*r),
        Shape::Array(r) => Shape::Array(*r),
        Shape::Object(o) => Shape::Object(
            ObjectShape::of(o.fields)
                .with_require_one_of(o.require_one_of)
                .with_require_exactly_one_of(o.require_exactly_one_of),
        ),
        Shape::Map(s) => Shape::Map(s),
        Shape::Nullable(s) => Shape::Nullable(s),
        Shape::OneOf(s) => Shape::OneOf(s),
        Shape::AnyOf(s) => Shape::AnyOf(s),
        Shape::Doc(d) => Shape::Doc(d),
        Shape::Named(n) => Shape::Named(n),
    }
}

// ---------------------------------------------------------------------------------------------
// Views and schema text.

/// The custom labels (not `response_only` / `disabled`) carried by fields at any depth, sorted.
pub fn labels(input: &ObjectShape) -> Vec<&'static str> {
    fn walk_object(o: &ObjectShape, out: &mut Vec<&'static str>) {
        for f in o.fields {
            out.extend(
                f.modes
                    .iter()
                    .copied()
                    .filter(|m| !charter_terms::modes::is_reserved(m)),
            );
            walk_shape(f.shape, out);
        }
    }
    fn walk_shape(s: &Shape, out: &mut Vec<&'static str>) {
        match s {
            Shape::Object(o) => walk_object(o, out),
            Shape::Array(r) => walk_shape(r.items, out),
            Shape::Map(s) | Shape::Nullable(s) => walk_shape(s, out),
            Shape::OneOf(ss) => ss.iter().for_each(|s| walk_shape(s, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk_object(input, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

/// Every view of a tool, enumerated by the rule crate exactly as the compiler lays them out:
/// `Default`, `Unmatched`, then one per custom label, sorted; each written by the schema
/// emitter the compiler and `#[charter::tool]` use (`charter_schema::emit`).
pub fn views(
    input: &'static ObjectShape,
    groups: Groups<'static>,
    author: Option<&'static str>,
) -> &'static [View] {
    let out: Vec<View> = charter_terms::views::views(author, labels(input))
        .into_iter()
        .map(|spec| {
            let key = match spec.key {
                charter_terms::views::ViewKey::Default => ViewKey::Default,
                charter_terms::views::ViewKey::Unmatched => ViewKey::Unmatched,
                charter_terms::views::ViewKey::Label(l) => ViewKey::Label(leak_str(l)),
            };
            let active = spec.active.into_iter().map(leak_str).collect();
            view(input, groups, key, active, spec.widest)
        })
        .collect();
    leak(out)
}

/// One view: schema text, tokens, spans and path costs, as the emitter writes them.
fn view(
    input: &'static ObjectShape,
    groups: Groups<'static>,
    key: ViewKey,
    active: Vec<&'static str>,
    widest: bool,
) -> View {
    let active = leak(active);
    let root = Root {
        input,
        groups,
        defs: &[],
    };
    let labels = Labels { active, widest };
    let emitted = emit(&root, labels, Target::Portable);
    let (signature, signature_tokens) =
        typescript::signature(&root, labels, typescript::Returns::Any);
    let paths: Vec<PathCost> = emitted
        .paths
        .into_iter()
        .map(|p| PathCost {
            path: leak_str(p.path),
            depth: p.depth,
            saves: p.saves,
        })
        .collect();
    let dialects = DialectSchemas::new(
        dialect(&root, Labels { active, widest }, Target::OpenAiStrict),
        dialect(&root, Labels { active, widest }, Target::Gemini),
    )
    .with_anthropic_strict(Some(dialect(
        &root,
        Labels { active, widest },
        Target::AnthropicStrict,
    )));
    View::new(key, leak_str(emitted.text), emitted.tokens)
        .with_active(active)
        .with_widest(widest)
        .with_paths(leak(paths))
        .with_spans(leak(emitted.spans))
        .with_signature(leak_str(signature), signature_tokens)
        .with_dialects(Box::leak(Box::new(dialects)))
}

/// One view in one dialect, as the pack compiler would write it.
fn dialect(root: &Root<'static>, labels: Labels<'static>, target: Target) -> DialectSchema {
    let emitted = emit(root, labels, target);
    DialectSchema::new(leak_str(emitted.text), emitted.tokens, leak(emitted.spans))
}

// ---------------------------------------------------------------------------------------------
// Leaking helpers: test tables live for the whole process, like compiled ones.

fn leak_str(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn leak<T>(items: Vec<T>) -> &'static [T] {
    Box::leak(items.into_boxed_slice())
}

fn leak_one<T>(item: T) -> &'static T {
    Box::leak(Box::new(item))
}

fn str_of<'v>(spec: &'v Value, key: &str) -> Result<Option<&'v str>, String> {
    match spec.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!("`{key}` must be a string, not {other}")),
    }
}
