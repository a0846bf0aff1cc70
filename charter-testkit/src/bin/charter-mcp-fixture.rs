//! The MCP fixture servers as a process: `charter_testkit::mcp::run_fixture` (feature `mcp`).

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    charter_testkit::mcp::run_fixture(&args).await;
}
