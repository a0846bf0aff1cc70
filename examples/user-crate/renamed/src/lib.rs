//! charter depended on as `tools` (`tools = { package = "charter-tools", ... }`): `::charter`
//! does not exist in this crate, so every macro is told the facade's path with `crate = "..."`
//! and the pack compiler with `Builder::runtime_path`. If any generated path still said
//! `::charter`, this crate would not compile.

/// The packs `build.rs` compiled: `packs::tracker::TOOLS`.
pub mod packs {
    include!(concat!(env!("OUT_DIR"), "/packs.rs"));
}

/// How urgent an issue is.
#[derive(tools::Schema, serde::Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[charter(crate = "tools")]
#[serde(rename_all = "lowercase")]
pub enum Urgency {
    /// Fix now.
    High,
    /// Fix this week.
    Low,
}

/// Suggest a priority for an issue.
#[tools::tool(read_only, idempotent, crate = "tools")]
pub fn priority(
    #[charter(desc = "How urgent the issue is.")] urgency: Urgency,
    #[charter(desc = "Whether customers are affected.")] customer_facing: bool,
) -> &'static str {
    match (urgency, customer_facing) {
        (Urgency::High, true) => "P0",
        (Urgency::High, false) | (Urgency::Low, true) => "P1",
        (Urgency::Low, false) => "P2",
    }
}

tools::pack!(
    crate = "tools";
    /// This crate's Rust-function tools.
    pub static TEAM = "team", "Helpers for this team's issue workflow.", [priority]
);

#[cfg(test)]
mod tests {
    use super::*;
    use tools::table::Exec;

    #[tokio::test]
    async fn the_renamed_crates_tools_are_declared_and_run() {
        assert_eq!(TEAM.pack, "team");
        let tool = &TEAM.tools[0];
        assert_eq!(tool.name, "team_priority");
        let Exec::Rust(handler) = tool.exec else {
            panic!("a Rust tool")
        };
        let out = handler(
            serde_json::json!({"urgency": "high", "customer_facing": true}),
            &tools::CallContext::new(),
        )
        .await
        .expect("valid arguments");
        assert_eq!(out.text, "P0");
        // The derived enum's schema is in the tool's schema text (a tag is a one-value `enum`,
        // which every model API takes; `const` is refused by Gemini).
        let schema = tool.views[0].schema;
        assert!(
            schema.contains(r#"{"type":"string","description":"Fix this week.","enum":["low"]}"#),
            "{schema}"
        );
        // The pack compiled with `runtime_path("::tools")`.
        assert_eq!(packs::tracker::TOOLS.pack, "tracker");
        assert!(!packs::tracker::TOOLS.tools.is_empty());
    }
}
