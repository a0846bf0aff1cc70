//! Shared by the HTTP integration tests: the test kit's recording stub (a real server on 127.0.0.1
//! that records every request byte for byte), const helpers to build table items, and a tracing
//! capture.

#![allow(dead_code)]

use std::io::Write;
use std::sync::{Arc, Mutex};

use charter_runtime::table::*;

#[allow(unused_imports)] // each test binary uses what it needs
pub use charter_testkit::stub::{Recorded, Reply, Stub};

// ---------------------------------------------------------------------------------------------
// Table helpers: every table type is const-constructible.

pub static STRING: Shape = Shape::String(StringRules::NONE);
pub static INTEGER: Shape = Shape::Integer(NumberRules::NONE);
pub static BOOL: Shape = Shape::Bool;
pub static ANY: Shape = Shape::Any;
pub static STRINGS: Shape = Shape::Array(ArrayRules::of(&STRING));
pub static INTEGERS: Shape = Shape::Array(ArrayRules::of(&INTEGER));
pub static STRING_MAP: Shape = Shape::Map(&STRING);

pub const fn field(name: &'static str, shape: &'static Shape, location: Location) -> Field {
    Field::new(name, "A field.", shape).with_location(location)
}

pub const fn wired(
    name: &'static str,
    wire: &'static str,
    shape: &'static Shape,
    location: Location,
) -> Field {
    field(name, shape, location).with_wire(wire)
}

pub const fn pack(label: &'static str, auth: Auth) -> HttpPack {
    HttpPack::new(label, "http://base-url.invalid", "", auth)
}

pub const fn route(pack: &'static HttpPack, method: Method, path: &'static str) -> Route {
    Route::new(pack, method, path)
}

pub const fn tool(
    name: &'static str,
    fields: &'static ObjectShape,
    route: &'static Route,
) -> ToolDef {
    ToolDef::new(name, route.pack.label, name, "A tool.", Exec::Http(route))
        .with_annotations(charter_runtime::Annotations::for_method(route.method))
        .with_input(fields)
        .with_views(&[])
        .with_search(SearchData::new("a tool.", &[]))
}

// ---------------------------------------------------------------------------------------------
// Tracing capture.

/// Everything tracing prints while the guard lives (on this thread: use current-thread runtimes).
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

pub struct CapturedWriter(Arc<Mutex<Vec<u8>>>);

impl Write for CapturedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = CapturedWriter;
    fn make_writer(&'a self) -> Self::Writer {
        CapturedWriter(self.0.clone())
    }
}

/// Captures every event at TRACE level, ours and reqwest's/hyper's, from every test of the
/// binary: one global subscriber (per-thread ones race with tracing's callsite-interest cache).
pub fn capture_tracing() -> Captured {
    static GLOBAL: std::sync::OnceLock<Captured> = std::sync::OnceLock::new();
    GLOBAL
        .get_or_init(|| {
            let captured = Captured::default();
            let subscriber = tracing_subscriber::fmt()
                .with_writer(captured.clone())
                .with_max_level(tracing::Level::TRACE)
                .with_ansi(false)
                .finish();
            tracing::subscriber::set_global_default(subscriber)
                .expect("one global subscriber per test binary");
            captured
        })
        .clone()
}
