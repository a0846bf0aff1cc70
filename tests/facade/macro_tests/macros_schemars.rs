//! `schemars` 1.x as an oracle: for every supported shape, the schema `#[derive(charter::Schema)]`
//! builds at compile time equals what schemars derives for the same type at run time, after
//! the normalisation docs/design.md §3 asks for.
//!
//! Normalisation (applied to both sides, so each rule is visible here):
//! - drop `$schema`, `title` and `default` (schemars serialises `#[serde(default)]` values; charter
//!   cannot at compile time and does not send defaults);
//! - drop `format` on numbers (`int32`, `uint`, `double`: schemars adds them, charter does not);
//! - drop `description` where charter never puts one: the root, array `items` and map values
//!   (a type's own doc comment; charter describes the property holding it instead);
//! - every object with `properties` gets `additionalProperties: false` (schemars adds it only
//!   under `deny_unknown_fields`);
//! - an optional property (not in `required`) is not nullable: charter's `Option<T>` field is
//!   absent-or-`T`, while schemars also accepts `null` (`type: [T, "null"]` or `anyOf` with
//!   `null`); elsewhere (`Vec<Option<T>>`) both sides use `anyOf: [T, {"type": "null"}]`.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use charter::Schema;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Deserialize;
use serde_json::{Map, Value, json};

#[derive(Clone, Copy, PartialEq)]
enum Pos {
    Root,
    Property { optional: bool },
    Items,
    MapValue,
    Variant,
}

fn strip_null(obj: &mut Map<String, Value>) -> bool {
    let mut had = false;
    if let Some(Value::Array(types)) = obj.get_mut("type")
        && types.iter().any(|t| t == "null")
    {
        types.retain(|t| t != "null");
        had = true;
        if types.len() == 1 {
            let t = types[0].clone();
            obj.insert("type".into(), t);
        }
    }
    if let Some(Value::Array(values)) = obj.get_mut("enum")
        && values.iter().any(Value::is_null)
    {
        values.retain(|v| !v.is_null());
        had = true;
    }
    had
}

/// `anyOf: [S, {"type":"null"}]` (with siblings): `S` merged with the siblings.
fn unwrap_null_any_of(obj: &mut Map<String, Value>) -> bool {
    let Some(Value::Array(any)) = obj.get("anyOf") else {
        return false;
    };
    if any.len() != 2 || any[1] != json!({"type": "null"}) {
        return false;
    }
    let inner = any[0].as_object().cloned().unwrap_or_default();
    obj.remove("anyOf");
    for (k, v) in inner {
        obj.entry(k).or_insert(v);
    }
    true
}

fn normalise(v: &mut Value, pos: Pos) {
    let Some(obj) = v.as_object_mut() else { return };
    for key in ["$schema", "title", "default"] {
        obj.remove(key);
    }
    if matches!(pos, Pos::Root | Pos::Items | Pos::MapValue) {
        obj.remove("description");
    }
    match pos {
        Pos::Property { optional: true } => {
            strip_null(obj);
            unwrap_null_any_of(obj);
        }
        _ => {
            if strip_null(obj) {
                // schemars' `type: [T, "null"]` becomes charter's `anyOf: [T, null]`.
                let mut inner = std::mem::take(obj);
                let description = inner.remove("description");
                obj.insert(
                    "anyOf".into(),
                    json!([Value::Object(inner), {"type": "null"}]),
                );
                if let Some(d) = description {
                    obj.insert("description".into(), d);
                }
            }
        }
    }
    // A one-value enum where schemars writes `const`: the emitter's tags are `enum` of one, which
    // every dialect accepts (Gemini's refuses `const`).
    if let Some(c) = obj.remove("const") {
        obj.insert("enum".into(), json!([c]));
    }
    if matches!(obj.get("type"), Some(t) if t == "integer" || t == "number") {
        obj.remove("format");
    }
    if obj.contains_key("properties") {
        obj.entry("additionalProperties").or_insert(json!(false));
    }
    let required: Vec<Value> = obj
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        for (name, prop) in props.iter_mut() {
            let optional = !required.contains(&Value::String(name.clone()));
            normalise(prop, Pos::Property { optional });
        }
    }
    if let Some(items) = obj.get_mut("items") {
        normalise(items, Pos::Items);
    }
    if let Some(ap) = obj.get_mut("additionalProperties")
        && ap.is_object()
    {
        normalise(ap, Pos::MapValue);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(subs)) = obj.get_mut(key) {
            for s in subs {
                normalise(s, Pos::Variant);
            }
        }
    }
}

fn oracle<T: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true);
    let mut v = settings.into_generator().root_schema_for::<T>().to_value();
    assert!(v.get("$defs").is_none(), "schemars needed $defs: {v}");
    normalise(&mut v, Pos::Root);
    v
}

fn ours(text: &str) -> Value {
    let mut v: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("invalid JSON {text}: {e}"));
    normalise(&mut v, Pos::Root);
    v
}

/// Compares charter's compile-time schema of `$t` with schemars' after normalisation, and checks
/// charter's text is compact JSON that round-trips.
macro_rules! same {
    ($t:ty) => {{
        const TEXT: &str = charter::schema_text!($t);
        let raw: Value = serde_json::from_str(TEXT).unwrap();
        assert_eq!(raw.to_string(), TEXT, "not compact JSON");
        assert_eq!(
            ours(TEXT),
            oracle::<$t>(),
            "\ncharter: {TEXT}\nschemars: {}",
            oracle::<$t>()
        );
    }};
}

#[derive(Deserialize, JsonSchema, Schema)]
#[allow(dead_code)]
struct Primitives {
    /// A flag.
    flag: bool,
    /// Text.
    text: String,
    /// One character.
    letter: char,
    /// i8.
    a: i8,
    /// i16.
    b: i16,
    /// i32.
    c: i32,
    /// i64.
    d: i64,
    /// isize.
    e: isize,
    /// u8.
    f: u8,
    /// u16.
    g: u16,
    /// u32.
    h: u32,
    /// u64.
    i: u64,
    /// usize.
    j: usize,
    /// f32.
    k: f32,
    /// f64.
    l: f64,
}

#[derive(Deserialize, JsonSchema, Schema)]
#[allow(dead_code)]
struct Point {
    /// Across.
    x: i32,
    /// Down.
    y: i32,
}

#[derive(Deserialize, JsonSchema, Schema)]
#[allow(dead_code)]
struct Collections {
    /// A list.
    list: Vec<String>,
    /// A queue.
    queue: VecDeque<u8>,
    /// A set.
    set: HashSet<String>,
    /// An ordered set.
    ordered: BTreeSet<i64>,
    /// Exactly three.
    triple: [f64; 3],
    /// By name.
    map: HashMap<String, u32>,
    /// By name, ordered.
    btree: BTreeMap<String, Vec<bool>>,
    /// Boxed.
    boxed: Box<Point>,
    /// Maybe.
    maybe: Option<u16>,
    /// Maybe a list.
    maybe_list: Option<Vec<String>>,
    /// Maybe a point.
    maybe_point: Option<Point>,
    /// Holes.
    holes: Vec<Option<u8>>,
    /// Points.
    points: Vec<Point>,
    /// Points by name.
    named_points: BTreeMap<String, Point>,
    /// Nested.
    nested: Vec<Vec<Option<Point>>>,
}

/// A type-level doc comment (charter describes the property that holds the type instead).
#[derive(Deserialize, JsonSchema, Schema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Renamed {
    /// Renamed by the rule.
    due_on_date: String,
    /// Renamed explicitly.
    #[serde(rename = "ID")]
    id: u64,
    /// Has a default.
    #[serde(default)]
    page_size: u32,
    /// Has a default from a function.
    #[serde(default = "ten")]
    limit: u32,
    /// Skipped entirely.
    #[serde(skip)]
    cache: Vec<u8>,
    /// Never read.
    #[serde(skip_deserializing)]
    internal: bool,
    /// Also accepted as `colour`.
    #[serde(alias = "colour")]
    color: Option<String>,
    /// Written only when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    /// A multi-line description:
    ///   indented, and
    /// with "quotes" and a \ backslash.
    r#type: String,
}

fn ten() -> u32 {
    10
}

#[derive(Deserialize, JsonSchema, Schema, Default)]
#[serde(default, rename_all = "SCREAMING-KEBAB-CASE")]
#[allow(dead_code)]
struct AllDefault {
    /// One.
    first_value: u8,
    /// Two.
    second_value: String,
}

#[derive(Deserialize, JsonSchema, Schema)]
#[serde(rename_all = "kebab-case")]
#[allow(dead_code)]
enum Priority {
    Low,
    Normal,
    VeryHigh,
}

#[derive(Deserialize, JsonSchema, Schema)]
#[allow(dead_code)]
enum Documented {
    Plain,
    /// A documented unit variant.
    Special,
    #[serde(rename = "other")]
    Other,
    #[serde(skip)]
    Hidden,
}

#[derive(Deserialize, JsonSchema, Schema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum External {
    Empty,
    /// A circle.
    Circle {
        /// The radius.
        radius: f64,
    },
    Label(String),
    Located(Point),
    #[serde(rename_all = "camelCase")]
    Boxed {
        /// Left edge.
        left_edge: f64,
        /// Maybe a colour.
        colour: Option<Priority>,
    },
}

#[derive(Deserialize, JsonSchema, Schema)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[allow(dead_code)]
enum Internal {
    /// Nothing happened.
    Idle,
    Moved {
        /// Where to.
        to_point: Point,
        /// How fast.
        #[serde(default)]
        speed: f32,
    },
}

#[derive(Deserialize, JsonSchema, Schema)]
#[serde(untagged)]
#[allow(dead_code)]
enum Untagged {
    /// Just a number.
    Number(f64),
    Words(Vec<String>),
    Pair {
        /// The key.
        key: String,
        /// The value.
        value: Option<i32>,
    },
}

#[derive(Deserialize, JsonSchema, Schema)]
#[allow(dead_code)]
struct Meters(f64);

#[derive(Deserialize, JsonSchema, Schema)]
#[serde(transparent)]
#[allow(dead_code)]
struct Wrapper {
    inner: Vec<Point>,
}

#[derive(Deserialize, JsonSchema, Schema)]
#[allow(dead_code)]
struct Page<T> {
    /// The items.
    items: Vec<T>,
    /// The next cursor.
    next: Option<String>,
}

#[derive(Deserialize, JsonSchema, Schema)]
#[allow(dead_code)]
struct Everything {
    /// Primitives.
    primitives: Primitives,
    /// Collections.
    collections: Collections,
    /// Renamed.
    renamed: Renamed,
    /// Defaults.
    all_default: AllDefault,
    /// A priority.
    priority: Priority,
    /// Maybe a priority.
    maybe_priority: Option<Priority>,
    /// Documented.
    documented: Documented,
    /// External.
    external: External,
    /// Maybe external.
    maybe_external: Option<External>,
    /// Internal.
    internal: Vec<Internal>,
    /// Untagged.
    untagged: Untagged,
    /// A length.
    length: Meters,
    /// Wrapped.
    wrapper: Wrapper,
    /// A page.
    page: Page<Page<Point>>,
}

#[test]
fn primitives() {
    same!(Primitives);
}

#[test]
fn collections() {
    same!(Collections);
}

#[test]
fn serde_renames_defaults_and_skips() {
    same!(Renamed);
    same!(AllDefault);
}

#[test]
fn unit_enums() {
    same!(Priority);
    same!(Documented);
}

#[test]
fn externally_tagged() {
    same!(External);
}

#[test]
fn internally_tagged() {
    same!(Internal);
}

#[test]
fn untagged() {
    same!(Untagged);
}

#[test]
fn newtype_transparent_and_generic() {
    same!(Meters);
    same!(Wrapper);
    same!(Page<Point>);
    same!(Page<Option<Priority>>);
}

#[test]
fn top_level_containers() {
    same!(Vec<Option<Point>>);
    same!(BTreeMap<String, External>);
    same!(Option<Priority>);
    same!([Internal; 2]);
}

#[test]
fn everything_nested() {
    same!(Everything);
}

/// A tool's parameters are the properties of an object schema: the same as schemars gives for a
/// struct with those fields.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct SearchArgs {
    /// What to look for.
    query: String,
    /// At most this many.
    limit: Option<u32>,
    /// Which kinds.
    kinds: Vec<Priority>,
    /// Where.
    near: Option<Point>,
}

/// Search for things.
#[charter::tool(read_only)]
fn search(
    #[charter(desc = "What to look for.")] query: &str,
    #[charter(desc = "At most this many.")] limit: Option<u32>,
    #[charter(desc = "Which kinds.")] kinds: &[Priority],
    #[charter(desc = "Where.")] near: Option<&Point>,
) -> String {
    format!("{query} {limit:?} {} {}", kinds.len(), near.is_some())
}

charter::pack!(static PACK = "oracle", "Oracle tools.", [search]);

#[test]
fn tool_schema_equals_schemars_struct() {
    let def = &PACK.tools[0];
    for view in def.views {
        assert_eq!(ours(view.schema), oracle::<SearchArgs>(), "{}", view.schema);
    }
}
