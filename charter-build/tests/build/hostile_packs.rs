//! Hostile packs (SECURITY.md): whatever a pack file holds, the compiler answers with
//! diagnostics (`file:line:col`) or code, in bounded time, memory and stack.

use charter_build::{BuildError, compile_str, load_str};
use charter_terms::names::MAX_PACK_BYTES;

const HEAD: &str = "pack: demo\ndescription: A demo API.\nbase_url: https://api.demo.example\n";

/// Runs `f` on a thread with a 1 MiB stack (half a spawned thread's default): a recursion as
/// deep as the hostile input would overflow it.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(f)
        .unwrap()
        .join()
        .expect("no panic, no overflow")
}

fn mistakes(text: &str) -> Vec<String> {
    match load_str("hostile.yaml", text) {
        Ok(_) => Vec::new(),
        Err(diags) => diags.iter().map(ToString::to_string).collect(),
    }
}

#[test]
fn a_pack_over_the_size_limit_is_refused_before_parsing() {
    let mut text = HEAD.to_owned();
    text.push_str("# ");
    text.push_str(&"x".repeat(MAX_PACK_BYTES));
    let found = mistakes(&text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("hostile.yaml:1:1: the pack is too large"),
        "{}",
        found[0]
    );
    assert!(found[0].contains("8 MiB"), "{}", found[0]);
}

#[test]
fn a_pack_file_over_the_size_limit_is_refused_without_reading_it_whole() {
    let dir = std::env::temp_dir().join(format!("charter-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("huge.yaml");
    let file = std::fs::File::create(&path).unwrap();
    // Sparse: 1 GiB on paper, nothing on disk.
    file.set_len(1 << 30).unwrap();
    let err = charter_build::check_file(&path).unwrap_err();
    assert!(err[0].message.contains("too large"), "{}", err[0]);
    let err = charter_build::Builder::new()
        .pack_file(&path)
        .out_file(dir.join("out.rs"))
        .cargo_directives(false)
        .compile()
        .unwrap_err();
    assert!(matches!(err, BuildError::Io { .. }), "{err}");
    assert!(err.to_string().contains("too large"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_pack_that_is_not_utf8_is_refused_with_the_offset() {
    let dir = std::env::temp_dir().join(format!("charter-hostile-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("latin1.yaml");
    std::fs::write(&path, b"pack: demo\ndescription: caf\xe9\n").unwrap();
    let err = charter_build::check_file(&path).unwrap_err();
    assert!(
        err[0].message.contains("not UTF-8") && err[0].message.contains("offset 27"),
        "{}",
        err[0]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_billion_laughs_pack_is_refused_in_bounded_time() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    text.push_str(HEAD);
    let found = on_small_stack(move || mistakes(&text));
    assert!(!found.is_empty());
    assert!(
        found.iter().all(|d| d.starts_with("hostile.yaml:")),
        "{found:?}"
    );
}

#[test]
fn yaml_nested_10000_levels_deep_is_refused_on_a_small_stack() {
    let block = format!("{HEAD}x:\n  {}x\n", "- ".repeat(10_000));
    let flow = format!("{HEAD}x: {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
    let found = on_small_stack(move || (mistakes(&block), mistakes(&flow)));
    for list in [found.0, found.1] {
        assert_eq!(list.len(), 1, "{list:?}");
        assert!(list[0].contains("invalid YAML"), "{}", list[0]);
    }
}

#[test]
fn a_type_that_refers_to_itself_without_end_is_reported_not_expanded() {
    let text = format!(
        "{HEAD}types:\n  A: {{ ref: B }}\n  B: {{ ref: A }}\ntools:\n  t:\n    description: T.\n    method: POST\n    path: /t\n    params:\n      x: {{ in: body, ref: A, description: X. }}\n"
    );
    let found = on_small_stack(move || mistakes(&text));
    assert!(!found.is_empty());
}

#[test]
fn duplicate_keys_at_every_level_are_each_reported() {
    let text = format!(
        "{HEAD}pack: other\ntools:\n  t:\n    description: T.\n    description: U.\n    method: GET\n    path: /t\n  t:\n    description: V.\n    method: GET\n    path: /v\n"
    );
    let found = mistakes(&text);
    let dups = found
        .iter()
        .filter(|d| d.contains("duplicate") || d.contains("more than once"))
        .count();
    assert!(dups >= 3, "{found:?}");
}

#[test]
fn control_characters_and_bidi_overrides_in_names_are_refused() {
    for name in ["t\u{202e}x", "t\u{0}", "T", "t-x", "t__x", "ｔ"] {
        let yaml = format!(
            "{HEAD}tools:\n  {}:\n    description: T.\n    method: GET\n    path: /t\n",
            serde_json::to_string(name).unwrap()
        );
        let found = mistakes(&yaml);
        assert!(!found.is_empty(), "{name:?} accepted");
    }
}

#[test]
fn a_base_url_or_template_pointing_elsewhere_is_the_authors_declaration() {
    // A pack declares its host once; a URL template cannot name another one.
    // (`//evil.example/x` is accepted: joined after the declared host it is only a path on it.)
    for path in [
        "http://evil.example/x",
        "@evil.example/x",
        "evil.example/x",
        "x",
        "?x=1",
        "/a#frag",
    ] {
        let yaml = format!(
            "{HEAD}tools:\n  t:\n    description: T.\n    method: GET\n    path: {}\n",
            serde_json::to_string(path).unwrap()
        );
        let found = mistakes(&yaml);
        assert!(!found.is_empty(), "{path:?} accepted as a URL template");
    }
}

#[test]
fn strings_that_would_break_generated_rust_stay_data() {
    let nasty = "\"); panic!(\"pwned\"); (\"\\ */ /* #[ r#\"x\"# \u{0}";
    let yaml = format!(
        "pack: demo\ndescription: {d}\nbase_url: https://api.demo.example\ntools:\n  t:\n    description: {d}\n    method: GET\n    path: /t\n    params:\n      q: {{ in: query, type: string, description: {d}, enum: [{d}] }}\n",
        d = serde_json::to_string(nasty).unwrap()
    );
    let code = compile_str("hostile.yaml", &yaml, "::charter").expect("compiles");
    syn::parse_file(&code).expect("generated code parses");
    // The text is inside literals: no `panic!` token anywhere in the generated code.
    fn no_panic(tokens: proc_macro2::TokenStream) {
        let mut prev_panic = false;
        for t in tokens {
            match t {
                proc_macro2::TokenTree::Group(g) => no_panic(g.stream()),
                proc_macro2::TokenTree::Ident(i) => {
                    prev_panic = i == "panic";
                    continue;
                }
                proc_macro2::TokenTree::Punct(p) => {
                    assert!(!(prev_panic && p.as_char() == '!'), "spliced")
                }
                proc_macro2::TokenTree::Literal(_) => {}
            }
            prev_panic = false;
        }
    }
    no_panic(code.parse().expect("tokens"));
    assert!(code.contains("pwned"), "the text is kept, as data");
}

/// Found by the `pack_compile` fuzz target: a tool name may start with a digit (`0items_list`),
/// and the constant holding the schema its views share was named after it, which is not a Rust
/// identifier (a panic in `quote`). Such a pack now generates code that parses.
#[test]
fn a_tool_name_starting_with_a_digit_generates_valid_rust() {
    let pack = include_str!("../../../fuzz/corpus/pack_compile/tool_name_with_leading_digit.yaml");
    let code = compile_str("demo.yaml", pack, "crate").expect("the pack compiles");
    syn::parse_file(&code).expect("the generated code parses");
    assert!(code.contains("\"demo_0items_list\""), "{code}");
}

/// Each of 30 types uses the next twice: written out, the tool's schema would be 2^30 copies
/// of the last type. Its size is counted with each type once, and the tool is refused at its
/// name, with the size and the limit, without a schema being written.
#[test]
fn a_schema_that_doubles_thirty_times_is_refused_without_being_written() {
    let mut text = HEAD.to_owned();
    text.push_str("types:\n");
    for i in 0..30 {
        text.push_str(&format!(
            "  T{i}:\n    type: object\n    description: Level {i}.\n    properties:\n      left: {{ ref: T{n}, description: Left. }}\n      right: {{ ref: T{n}, description: Right. }}\n",
            n = i + 1
        ));
    }
    text.push_str("  T30:\n    type: object\n    description: The leaf.\n    properties:\n      x: { type: string, description: X. }\n");
    text.push_str("tools:\n  put_tree:\n    description: Puts a tree.\n    method: POST\n    path: /trees\n    params:\n      tree: { in: body, ref: T0, description: The tree., required: true }\n  get_tree:\n    description: Gets a tree.\n    method: GET\n    path: /trees/{id}\n    params:\n      id: { in: path, type: string, required: true, description: The id. }\n");
    let line = 1 + text.lines().position(|l| l == "  put_tree:").unwrap();
    let found = on_small_stack(move || mistakes(&text));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(&format!("hostile.yaml:{line}:3: tool `demo_put_tree`")),
        "{}",
        found[0]
    );
    let limit = charter_terms::tokens::MAX_VIEW_TOKENS;
    assert!(
        found[0].contains(&format!("over the limit of {limit} tokens")),
        "{}",
        found[0]
    );
    let size: u64 = found[0]
        .split("is at least ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the size is named");
    assert!(size > 1 << 30, "{size}");
}
