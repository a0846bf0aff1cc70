//! `Builder` (the build-script API) and `check_file` over real files in a scratch directory,
//! and one real `cargo build` of a scratch crate whose build script calls the builder.

use std::path::{Path, PathBuf};
use std::process::Command;

use charter_build::{BuildError, Builder};

const PACK_A: &str = "pack: alpha\ndescription: A.\nbase_url: https://a.example\ntools:\n  items_list:\n    description: List items.\n    method: GET\n    path: /items\n    params:\n      limit: { in: query, type: integer, description: How many. }\n";
const PACK_B: &str = "pack: beta-two\ndescription: B.\nbase_url: https://b.example\nauth: { scheme: header, header: X-Api-Key, prefix: 'Key ', env: BETA_KEY }\ntools:\n  things_get:\n    description: Get a thing.\n    method: GET\n    path: /things/{id}\n    params:\n      id: { in: path, type: string, required: true, description: The id. }\n";

const PACK_C: &str = "pack: gamma\ndescription: C.\nbase_url: https://c.example/api\nauth: { scheme: basic, env: GAMMA_KEY }\ncasing: camel\nenvelope: { kind: graphql }\ntools:\n  viewer_get:\n    description: Who am I.\n    graphql: 'query Viewer($orgName: String) { viewer { login } organization(login: $orgName) { name } }'\n    params:\n      org_name: { type: string, description: The organisation. }\n";

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("charter-build-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn compiles_a_directory_and_writes_only_when_changed() {
    let dir = scratch("dir");
    write(&dir.join("packs/alpha.yaml"), PACK_A);
    write(&dir.join("packs/beta.yml"), PACK_B);
    write(&dir.join("packs/notes.txt"), "not a pack");
    let out = dir.join("out/packs.rs");
    let build = || {
        Builder::new()
            .runtime_path("crate")
            .packs_from_dir(dir.join("packs"))
            .out_file(&out)
            .cargo_directives(false)
            .compile()
            .unwrap()
    };
    let first = build();
    assert_eq!(first.packs, ["alpha", "beta-two"]);
    assert!(first.written);
    let code = std::fs::read_to_string(&out).unwrap();
    assert!(code.contains("pub mod alpha {"));
    assert!(
        code.contains("pub mod beta_two {"),
        "`-` becomes `_` in the module name"
    );
    assert!(
        code.contains(
            "pub static ALL: &[&crate::table::Table] = &[&alpha::TOOLS, &beta_two::TOOLS];"
        )
    );
    let compact: String = code.split_whitespace().collect();
    assert!(compact.contains(r#""CHARTER_BETA_TWO_BASE_URL",Auth::Header{"#));
    assert!(compact.contains(r#"prefix:"Key""#));
    let modified = std::fs::metadata(&out).unwrap().modified().unwrap();

    let second = build();
    assert!(!second.written, "same code: the file is left alone");
    assert_eq!(
        std::fs::metadata(&out).unwrap().modified().unwrap(),
        modified
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn only_enabled_packs_are_compiled() {
    let dir = scratch("enabled");
    write(&dir.join("packs/alpha.yaml"), PACK_A);
    write(&dir.join("packs/beta.yaml"), PACK_B);
    let out = dir.join("packs.rs");
    let done = Builder::new()
        .packs_from_dir(dir.join("packs"))
        .enabled(|label| label == "beta-two")
        .out_file(&out)
        .cargo_directives(false)
        .compile()
        .unwrap();
    assert_eq!(done.packs, ["beta-two"]);
    assert_eq!(done.skipped, ["alpha"]);
    let code = std::fs::read_to_string(&out).unwrap();
    assert!(!code.contains("mod alpha"));
    assert!(code.contains("&[&beta_two::TOOLS]"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_directory_holds_no_packs() {
    let dir = scratch("missing");
    let out = dir.join("packs.rs");
    let done = Builder::new()
        .packs_from_dir(dir.join("nope"))
        .out_file(&out)
        .cargo_directives(false)
        .compile()
        .unwrap();
    assert!(done.packs.is_empty());
    let code = std::fs::read_to_string(&out).unwrap();
    assert!(code.contains("pub static ALL: &[&::charter::table::Table] = &[];"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mistakes_fail_the_build_and_leave_the_output_alone() {
    let dir = scratch("broken");
    write(&dir.join("packs/alpha.yaml"), PACK_A);
    let out = dir.join("packs.rs");
    write(&out, "// previous output\n");
    // Two mistakes in one file and a clash with alpha's name in another: all three reported.
    write(
        &dir.join("packs/beta.yaml"),
        "pack: alpha\ndescription: B.\nbase_url: https://b.example\ntools:\n  items_list:\n    description: Clash.\n    method: GET\n    path: /items/{id}\n",
    );
    let err = Builder::new()
        .packs_from_dir(dir.join("packs"))
        .out_file(&out)
        .cargo_directives(false)
        .compile()
        .unwrap_err();
    let BuildError::Pack(diags) = &err else {
        panic!("{err}")
    };
    let rendered: Vec<String> = diags.iter().map(ToString::to_string).collect();
    assert_eq!(rendered.len(), 2, "{rendered:#?}");
    let alpha = dir.join("packs/alpha.yaml").display().to_string();
    let beta = dir.join("packs/beta.yaml").display().to_string();
    assert!(
        rendered.contains(&format!(
            "{beta}:5:3: `alpha_items_list` is already published by {alpha}:5:3; rename this tool or give the pack another label"
        )),
        "{rendered:#?}"
    );
    assert!(
        rendered
            .iter()
            .any(|r| r.contains("beta.yaml:8:11: placeholder `{id}`")),
        "{rendered:#?}"
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "// previous output\n"
    );
    assert!(err.to_string().starts_with("2 mistake(s) in the packs:\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_file_summarises_a_good_pack() {
    let dir = scratch("check");
    let file = dir.join("alpha.yaml");
    write(&file, PACK_A);
    let summary = charter_build::check_file(&file).unwrap();
    assert_eq!(summary.label, "alpha");
    assert_eq!(summary.tools.len(), 1);
    let t = &summary.tools[0];
    assert_eq!(
        (t.name.as_str(), t.method, t.path.as_str(), t.views),
        ("alpha_items_list", "GET", "/items", 2)
    );
    let model = charter_build::load_str("alpha.yaml", PACK_A).unwrap();
    let schema = &charter_build::__private::view_schemas(&model)[0].views[0].1;
    assert_eq!(t.tokens, schema.tokens);
    let missing = charter_build::check_file(dir.join("nope.yaml")).unwrap_err();
    assert!(
        missing[0]
            .to_string()
            .contains("nope.yaml:1:1: cannot read the pack"),
        "{}",
        missing[0]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_runtime_path_is_an_error_not_a_panic() {
    let err = charter_build::compile_str("a.yaml", PACK_A, "not a path").unwrap_err();
    assert!(
        err.to_string().contains("runtime path `not a path`"),
        "{err}"
    );
}

/// A real `cargo build` of a scratch crate whose build script uses the builder with runtime
/// path `::charter_runtime`: good packs (every auth scheme but bearer, which the facade's golden
/// fixture covers) compile into working tables; a broken one fails the build with
/// `file:line:col: message` from `cargo::error=`.
#[test]
fn a_build_script_reports_mistakes_through_cargo() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.join("..").canonicalize().unwrap();
    let dir = scratch("crate");
    // Without debug info: nothing reads it, and a clean run compiles the 60 dependencies faster.
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"scratch-pack-user\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n[workspace]\n\n[dependencies]\ncharter-runtime = {{ path = {:?}, default-features = false }}\nserde_json = {{ version = \"1\", features = [\"preserve_order\"] }}\n\n[build-dependencies]\ncharter-build = {{ path = {:?} }}\n\n[profile.dev]\ndebug = false\n",
            root.join("charter-runtime"),
            root.join("charter-build"),
        ),
    );
    write(
        &dir.join("build.rs"),
        "fn main() {\n    let _ = charter_build::Builder::new().runtime_path(\"::charter_runtime\").packs_from_dir(\"packs\").compile();\n}\n",
    );
    write(
        &dir.join("src/main.rs"),
        r#"mod packs {
    include!(concat!(env!("OUT_DIR"), "/packs.rs"));
}
fn main() {
    for t in packs::ALL {
        println!("{} {} {}", t.pack, t.tools[0].name, t.tools[0].views[0].tokens);
    }
    let tool = &packs::gamma::TOOLS.tools[0];
    let charter_runtime::table::Exec::Http(r) = tool.exec else { panic!("not http") };
    println!("{:?} {:?} {}", r.pack.auth, r.pack.envelope, tool.input.fields[0].wire);
}
"#,
    );
    write(&dir.join("packs/alpha.yaml"), PACK_A);
    write(&dir.join("packs/beta.yaml"), PACK_B);
    write(&dir.join("packs/gamma.yaml"), PACK_C);
    // Reuse the lock file so the scratch crate resolves exactly the workspace's versions.
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // A target directory kept between runs (cargo's per-test scratch space), so a second run
    // compiles the scratch crate alone, not its 60 dependencies again.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("builder-scratch");
    let run = |args: &[&str]| {
        Command::new(&cargo)
            .args(args)
            .arg("--offline")
            .arg("-q")
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(&dir)
            .output()
            .unwrap()
    };
    let ok = run(&["run"]);
    let stdout = String::from_utf8_lossy(&ok.stdout);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let tokens = |pack: &str| {
        let model = charter_build::load_str("p.yaml", pack).unwrap();
        charter_build::__private::view_schemas(&model)[0].views[0]
            .1
            .tokens
    };
    let lines: Vec<String> = stdout.lines().map(str::to_owned).collect();
    assert_eq!(
        lines,
        [
            format!("alpha alpha_items_list {}", tokens(PACK_A)),
            format!("beta-two beta-two_things_get {}", tokens(PACK_B)),
            format!("gamma gamma_viewer_get {}", tokens(PACK_C)),
            r#"Basic { env: "GAMMA_KEY" } Some(GraphQl) orgName"#.to_owned(),
        ]
    );

    write(
        &dir.join("packs/alpha.yaml"),
        &PACK_A
            .replace("description: How many.", "descripton: How many.")
            .replace("pack: alpha", "pack: Alpha"),
    );
    let failed = run(&["build"]);
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(!failed.status.success());
    assert!(
        stderr.contains("packs/alpha.yaml:1:7: invalid pack label `Alpha`"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "packs/alpha.yaml:10:42: unknown key `descripton` in a parameter; did you mean `description`?"
        ),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
