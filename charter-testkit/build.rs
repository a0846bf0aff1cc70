//! Compiles the synthetic catalogue through the real pack compiler: ten packs of 100 tools each
//! (`RESOURCES × VERBS`) with realistic descriptions and argument shapes (nested objects,
//! arrays, enums, formats, mode labels, from-context fields), written as pack files into
//! `OUT_DIR` and compiled with `charter_build::Builder` into `OUT_DIR/synthetic.rs`.

use std::path::PathBuf;

use serde_json::{Value, json};

const RESOURCES: [&str; 20] = [
    "issues",
    "comments",
    "labels",
    "milestones",
    "projects",
    "repos",
    "users",
    "teams",
    "events",
    "files",
    "messages",
    "threads",
    "invoices",
    "customers",
    "charges",
    "refunds",
    "subscriptions",
    "webhooks",
    "reports",
    "tags",
];
const VERBS: [&str; 5] = ["list", "get", "create", "update", "delete"];
/// The pack labels, in catalogue order.
const PACKS: [&str; 10] = [
    "github", "stripe", "slack", "linear", "gmail", "calendar", "notion", "jira", "hubspot",
    "zendesk",
];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut builder = charter_build::Builder::new()
        .runtime_path("::charter_runtime")
        .out_file(out.join("synthetic.rs"));
    for pack in PACKS {
        let file = out.join(format!("{pack}.yaml"));
        // JSON is YAML: the pack file is the description serialised.
        let text = serde_json::to_string_pretty(&synthetic_pack(pack)).expect("a JSON value");
        charter_build::write_if_changed(&file, &text).expect("OUT_DIR is writable");
        builder = builder.pack_file(&file);
    }
    if let Err(error) = builder.compile() {
        panic!("the synthetic catalogue does not compile: {error}");
    }
}

fn synthetic_pack(pack: &str) -> Value {
    let mut tools = serde_json::Map::new();
    for resource in RESOURCES {
        let one = resource.trim_end_matches('s');
        for verb in VERBS {
            tools.insert(
                format!("{resource}_{verb}"),
                synthetic_tool(pack, resource, one, verb),
            );
        }
    }
    json!({
        "pack": pack,
        "description": format!("The {pack} API."),
        "base_url": "http://127.0.0.1:9",
        "tools": tools,
    })
}

fn synthetic_tool(pack: &str, resource: &str, one: &str, verb: &str) -> Value {
    let workspace = json!({"in": "path", "type": "string", "required": true,
        "description": format!("The {pack} workspace or account that owns the {resource}.")});
    let id = json!({"in": "path", "type": "string", "required": true, "pattern": "^[A-Za-z0-9_-]+$",
        "description": format!("The identifier of the {one}.")});
    let labels = json!({"in": "body", "type": "array", "max_items": 20, "items": {"type": "string", "max_length": 50},
        "description": format!("Labels to attach to the {one}; replaces the current set.")});
    let metadata = json!({"in": "body", "type": "map", "values": {"type": "string", "max_length": 500},
        "description": "Free-form key/value pairs stored with the object."});
    let (description, params, method, path) = match verb {
        "list" => (
            format!(
                "List the {resource} of a {pack} workspace, newest first. Filter by state, label and creation time; returns at most per_page items and a cursor for the next page."
            ),
            json!({
                "workspace": workspace,
                "state": {"in": "query", "type": "string", "enum": ["open", "closed", "all"], "default": "open",
                    "description": format!("Which {resource} to list by state.")},
                "labels": {"in": "query", "type": "array", "style": "comma", "items": {"type": "string"},
                    "description": format!("Only {resource} carrying all of these labels.")},
                "since": {"in": "query", "type": "string", "format": "date-time",
                    "description": "Only items created at or after this time (RFC 3339)."},
                "per_page": {"in": "query", "type": "integer", "minimum": 1, "maximum": 100,
                    "description": "Results per page (1-100)."},
                "cursor": {"in": "query", "type": "string", "description": "The cursor from the previous page."},
                "internal_score": {"in": "query", "type": "number", "modes": ["pro"],
                    "description": "Minimum triage score (pro tier)."}
            }),
            "GET",
            format!("/{{workspace}}/{resource}"),
        ),
        "get" => (
            format!(
                "Get one {one} of a {pack} workspace by its identifier, with its full details and history."
            ),
            json!({
                "workspace": workspace,
                "id": id,
                "expand": {"in": "query", "type": "array", "items": {"type": "string", "enum": ["owner", "history", "links"]},
                    "description": "Related objects to include in the answer."}
            }),
            "GET",
            format!("/{{workspace}}/{resource}/{{id}}"),
        ),
        "create" => (
            format!(
                "Create a {one} in a {pack} workspace. Title is required; labels, assignee, due date and metadata are optional. Returns the new {one}."
            ),
            json!({
                "workspace": workspace,
                "title": {"in": "body", "type": "string", "required": true, "min_length": 1, "max_length": 256,
                    "description": format!("A one-line summary of the {one}.")},
                "body": {"in": "body", "type": "string", "max_length": 65536,
                    "description": "The long description, in Markdown."},
                "labels": labels,
                "assignee": {"in": "body", "type": "object", "description": "Who the new item is assigned to.",
                    "properties": {
                        "login": {"type": "string", "required": true, "description": "The assignee's login."},
                        "notify": {"type": "boolean", "description": "Whether to notify the assignee."}
                    }},
                "due_on": {"in": "body", "type": "string", "format": "date", "description": "The due date (YYYY-MM-DD)."},
                "metadata": metadata,
                "priority": {"in": "body", "type": "integer", "minimum": 0, "maximum": 4, "modes": ["pro"],
                    "description": "Priority from 0 (none) to 4 (urgent), pro tier."},
                "customer_id": {"in": "body", "type": "string", "from_context": "customer_id",
                    "description": "The customer the item is filed for."}
            }),
            "POST",
            format!("/{{workspace}}/{resource}"),
        ),
        "update" => (
            format!(
                "Update a {one} in a {pack} workspace. Only the fields sent change; labels replace the current set."
            ),
            json!({
                "workspace": workspace,
                "id": id,
                "title": {"in": "body", "type": "string", "min_length": 1, "max_length": 256, "description": "The new title."},
                "state": {"in": "body", "type": "string", "enum": ["open", "closed"], "description": "The new state."},
                "labels": labels,
                "metadata": metadata
            }),
            "PATCH",
            format!("/{{workspace}}/{resource}/{{id}}"),
        ),
        _ => (
            format!("Delete a {one} from a {pack} workspace for good. This cannot be undone."),
            json!({ "workspace": workspace, "id": id }),
            "DELETE",
            format!("/{{workspace}}/{resource}/{{id}}"),
        ),
    };
    json!({
        "description": description,
        "method": method,
        "path": path,
        "hints": [one],
        "params": params,
    })
}
