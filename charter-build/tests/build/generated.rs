//! The fixture pack's generated code and view schemas, pinned: insta snapshots of both, and
//! the committed golden file the facade compiles (`tests/golden/fixture_pack.rs` at the
//! workspace root). Regenerate the golden file with `CHARTER_BLESS=1 cargo test -p
//! charter-build --test build generated::`; review snapshots with `cargo insta review` (or
//! `INSTA_UPDATE=always`).

use std::path::Path;

use charter_build::__private::ViewKey;

const FIXTURE: &str = include_str!("../fixtures/tracker.yaml");
/// The name the golden file's header carries: workspace-relative, the same on every machine.
const FIXTURE_NAME: &str = "charter-build/tests/fixtures/tracker.yaml";

fn golden_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/fixture_pack.rs")
}

#[test]
fn golden_file_is_fresh() {
    let code = charter_build::compile_str(FIXTURE_NAME, FIXTURE, "::charter").unwrap();
    let path = golden_path();
    if std::env::var_os("CHARTER_BLESS").is_some() {
        charter_build::write_if_changed(&path, &code).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == code,
        "{} is stale: regenerate it with `CHARTER_BLESS=1 cargo test -p charter-build --test build generated::`",
        path.display()
    );
}

#[test]
fn generated_code() {
    // The facade's own path (`crate`), where the golden file uses `::charter`.
    let code = charter_build::compile_str(FIXTURE_NAME, FIXTURE, "crate").unwrap();
    assert!(code.contains("use crate::table::*;"));
    assert!(code.contains("pub static ALL: &[&crate::table::Table] = &[&tracker::TOOLS];"));
    insta::assert_snapshot!("fixture_code", code);
}

#[test]
fn view_schemas() {
    let model = charter_build::load_str(FIXTURE_NAME, FIXTURE).unwrap();
    for tool in charter_build::__private::view_schemas(&model) {
        let mut out = String::new();
        for (view, schema) in &tool.views {
            let key = match &view.key {
                ViewKey::Default => "Default".to_owned(),
                ViewKey::Unmatched => "Unmatched".to_owned(),
                ViewKey::Label(l) => format!("Label({l})"),
            };
            let pretty: serde_json::Value = serde_json::from_str(&schema.text).unwrap();
            out.push_str(&format!(
                "== {key} active={:?} widest={} tokens={}\n{}\n",
                view.active,
                view.widest,
                schema.tokens,
                serde_json::to_string_pretty(&pretty).unwrap()
            ));
            for p in &schema.paths {
                out.push_str(&format!(
                    "  path {} (depth {}) saves {}\n",
                    p.path, p.depth, p.saves
                ));
            }
        }
        insta::assert_snapshot!(format!("schema_{}", tool.tool), out);
    }
}

/// The complete example of `docs/pack-format.md` passes every check.
#[test]
fn the_documented_example_compiles() {
    let doc = include_str!("../../../docs/pack-format.md");
    let start = doc.find("```yaml\n").expect("the doc has a yaml example") + "```yaml\n".len();
    let end = start + doc[start..].find("```").unwrap();
    let model =
        charter_build::load_str("docs/pack-format.md", &doc[start..end]).unwrap_or_else(|d| {
            panic!(
                "{}",
                d.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        });
    assert_eq!(model.label(), "tracker");
    assert_eq!(charter_build::summary(&model).tools.len(), 3);
}

/// `spread: true` on a body map reaches the table as `Location::BodySpread`; an offset
/// pagination as `Pagination::Offset`.
#[test]
fn spread_maps_and_offset_pages_are_generated() {
    let pack = r#"
pack: notes
description: Notes.
base_url: https://notes.example
tools:
  notes_create:
    description: Create a note with the app's own keys.
    method: POST
    path: /notes
    params:
      title: { in: body, type: string, description: The title. }
      data: { in: body, type: map, spread: true, values: { type: string }, description: Keys beside the title. }
  notes_list:
    description: List notes.
    method: GET
    path: /notes
    params:
      skip: { in: query, type: integer, description: Notes to skip. }
    response:
      pagination: { style: offset, param: skip }
"#;
    let code = charter_build::compile_str("notes.yaml", pack, "::charter").unwrap();
    let compact: String = code.split_whitespace().collect();
    assert!(
        compact.contains(r#"Field::new("data","Keysbesidethetitle.""#)
            && compact.contains(".with_location(Location::BodySpread)"),
        "{code}"
    );
    assert_eq!(compact.matches("Location::BodySpread").count(), 1);
    assert_eq!(compact.matches(".with_location(Location::Body)").count(), 1);
    assert!(
        compact.contains(r#".with_pagination(Pagination::Offset{param:"skip",size_param:None,})"#),
        "{code}"
    );
}
