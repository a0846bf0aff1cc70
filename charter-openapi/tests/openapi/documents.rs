//! Imports every operation of every vendored OpenAPI document (`openapi/*.json.gz` at the
//! repository root): each operation becomes a tool or is reported with a reason, and the
//! generated pack parses and passes the pack checks.
//!
//! Run with `-- --nocapture` to see the per-document table (also written to
//! `target/openapi-import-counts.md`).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use charter_openapi::{ImportOptions, Progress, Stage, import};

/// (file, pack label, operations in the document per its README).
const DOCUMENTS: &[(&str, &str, usize)] = &[
    ("github.json", "github", 845),
    ("stripe.json", "stripe", 452),
    ("slack.json", "slack", 174),
    ("notion.json", "notion", 13),
    ("google-gmail.json", "gmail", 79),
    ("google-calendar.json", "gcalendar", 37),
    ("google-drive.json", "gdrive", 50),
    ("google-sheets.json", "gsheets", 17),
    ("google-docs.json", "gdocs", 3),
    ("google-forms.json", "gforms", 9),
];

fn parse_yaml(text: &str) -> serde_json::Value {
    let mut options = serde_saphyr::Options::default();
    options.budget = None;
    serde_saphyr::from_str_with_options(text, options)
        .unwrap_or_else(|e| panic!("the pack is not YAML: {e}"))
}

#[test]
fn every_operation_becomes_a_tool_or_is_reported() {
    let mut table = String::from(
        "| document | pack | operations | tools | skipped | notes | generated descriptions | pack YAML |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let mut total_tools = 0;
    for &(file, label, expected_ops) in DOCUMENTS {
        let text = charter_testkit::openapi::read(file);
        let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
        let mut options = ImportOptions::new(label);
        let sink = Arc::clone(&seen);
        options.progress = Some(Arc::new(move |p| sink.lock().unwrap().push(p)));
        let out = import(&text, &options).unwrap_or_else(|e| panic!("{file}: {e}"));

        assert_eq!(out.operations, expected_ops, "{file}: operations selected");
        assert_eq!(
            out.tools + out.skipped.len(),
            expected_ops,
            "{file}: every operation is a tool or skipped"
        );
        for s in &out.skipped {
            assert!(
                !s.reason.trim().is_empty(),
                "{file}: {} skipped without a reason",
                s.operation
            );
        }
        for n in &out.notes {
            assert!(
                !n.message.trim().is_empty(),
                "{file}: note without a message"
            );
        }
        let progress = seen.lock().unwrap();
        assert!(
            progress.iter().any(|p| p.stage == Stage::Parsed),
            "{file}: parse progress"
        );
        let last_ops = progress
            .iter()
            .rfind(|p| p.stage == Stage::Operations)
            .expect("operation progress");
        assert_eq!(
            (last_ops.done, last_ops.total),
            (expected_ops, expected_ops),
            "{file}"
        );
        assert!(
            progress
                .iter()
                .any(|p| p.stage == Stage::Written && p.done == out.tools),
            "{file}"
        );

        // The text parses as YAML and declares exactly the reported tools.
        let pack = parse_yaml(&out.yaml);
        assert_eq!(pack["pack"], label);
        assert_eq!(
            pack["tools"].as_object().map(|t| t.len()),
            Some(out.tools),
            "{file}"
        );
        for (name, _) in pack["tools"].as_object().unwrap() {
            assert!(
                format!("{label}_{name}").len() <= 50,
                "{file}: {name} is too long"
            );
        }

        // The real pack checker: parse, every check, resolution.
        let t = std::time::Instant::now();
        let model =
            charter_build::load_str(&format!("{label}.yaml"), &out.yaml).unwrap_or_else(|diags| {
                let first: Vec<String> = diags.iter().take(20).map(ToString::to_string).collect();
                panic!(
                    "{file}: the imported pack fails the checks ({} mistakes):\n{}",
                    diags.len(),
                    first.join("\n")
                )
            });
        let checked = t.elapsed();
        assert_eq!(
            charter_build::summary(&model).tools.len(),
            out.tools,
            "{file}"
        );
        // Deterministic: the same document gives the same text.
        if label == "slack" || label == "notion" {
            let again = import(&text, &ImportOptions::new(label)).expect("imports again");
            assert_eq!(again.yaml, out.yaml, "{file}: two imports differ");
        }
        println!("== {file}: checked in {checked:?}\n{}", out.report());
        if let Some(dump) = std::env::var_os("CHARTER_OPENAPI_OUT") {
            let dump = PathBuf::from(dump);
            std::fs::create_dir_all(&dump).expect("dump dir");
            std::fs::write(dump.join(format!("{label}.yaml")), &out.yaml).expect("write pack");
            std::fs::write(dump.join(format!("{label}.report.txt")), out.report())
                .expect("write report");
        }
        let _ = writeln!(
            table,
            "| {file} | {label} | {} | {} | {} | {} | {} | {} KB |",
            out.operations,
            out.tools,
            out.skipped.len(),
            out.notes.len(),
            out.stats.generated_descriptions,
            out.yaml.len() / 1024
        );
        total_tools += out.tools;
    }
    let _ = writeln!(
        table,
        "| **all** | | {} | {total_tools} | | | | |",
        DOCUMENTS.iter().map(|d| d.2).sum::<usize>()
    );
    println!("{table}");
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    let _ = std::fs::write(target.join("openapi-import-counts.md"), &table);
}

/// Code generation for every imported pack (the importer cuts tools over the size limit down,
/// so every one is of a size an agent can be given), one thread per document.
#[test]
fn imported_packs_generate_code() {
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for &(file, label, _) in DOCUMENTS {
            handles.push(scope.spawn(move || {
                let text = charter_testkit::openapi::read(file);
                let out = import(&text, &ImportOptions::new(label))
                    .unwrap_or_else(|e| panic!("{file}: {e}"));
                let code =
                    charter_build::compile_str(&format!("{label}.yaml"), &out.yaml, "::charter")
                        .unwrap_or_else(|e| panic!("{file}: code generation failed: {e}"));
                let pack = parse_yaml(&out.yaml);
                for (tool, _) in pack["tools"].as_object().expect("tools") {
                    assert!(
                        code.contains(&format!("\"{label}_{tool}\"")),
                        "{file}: {tool} missing from the generated code"
                    );
                }
                println!("{file}: {} KB of code", code.len() / 1024);
            }));
        }
        for h in handles {
            if let Err(e) = h.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
}
