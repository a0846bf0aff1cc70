//! The MCP server's JSON-RPC input, in process: `charter_mcp::McpServer::serve_io` over an
//! in-memory duplex pipe, exactly the code `charter mcp` runs on stdio.
//!
//! Input: byte 0 picks the eager or the progressive server; the rest is written to the server
//! after a valid `initialize`, as the client's next lines. Then a `ping` with a known id is sent.
//! Properties: no panic; that last request is answered (the server is still serving, whatever
//! came before); nothing reaches the network (HTTP tools run on an executor that refuses every
//! call). The final request is a `ping`, not a `tools/list`: listing all 815 tools costs about
//! 4 ms, which held the target to 240 executions a second; the fuzzer still reaches `tools/list`
//! through its inputs.
#![no_main]

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use charter_mcp::{McpServer, ServerOptions};
use charter_runtime::session::HttpCaller;
use charter_runtime::table::{BoxFuture, Route, ToolDef};
use charter_runtime::{CallContext, CharterError, ToolOutput};
use libfuzzer_sys::fuzz_target;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

struct Offline;

impl HttpCaller for Offline {
    fn call<'a>(
        &'a self,
        _tool: &'static ToolDef,
        _route: &'static Route,
        _arguments: serde_json::Value,
        _ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(async { Err(CharterError::Transport("offline (fuzzing)".into())) })
    }
}

fn server(progressive: bool) -> &'static McpServer {
    static SERVERS: OnceLock<[McpServer; 2]> = OnceLock::new();
    let make = |progressive| {
        McpServer::new(
            charter::packs::ALL,
            ServerOptions::new()
                .with_disclosure(if progressive {
                    charter_mcp::Disclosure::ListChanged
                } else {
                    charter_mcp::Disclosure::Eager
                })
                .with_http(Arc::new(Offline)),
        )
        .expect("server")
    };
    &SERVERS.get_or_init(|| [make(false), make(true)])[usize::from(progressive)]
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    })
}

const INIT: &str = concat!(
    r#"{"jsonrpc":"2.0","id":"fuzz-init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n"
);
const FINAL: &str = "\n{\"jsonrpc\":\"2.0\",\"id\":\"fuzz-final\",\"method\":\"ping\"}\n";

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    let server = server(pick & 1 == 1);
    runtime().block_on(async move {
        let (client, server_side) = tokio::io::duplex(64 * 1024);
        let (server_read, server_write) = tokio::io::split(server_side);
        let serving = tokio::spawn(async move { server.serve_io(server_read, server_write).await });
        let (client_read, mut client_write) = tokio::io::split(client);
        let mut lines = BufReader::new(client_read).lines();
        let writing = async move {
            client_write.write_all(INIT.as_bytes()).await?;
            client_write.write_all(input).await?;
            client_write.write_all(FINAL.as_bytes()).await?;
            client_write.flush().await?;
            Ok::<_, std::io::Error>(client_write)
        };
        let reading = async {
            while let Some(line) = lines.next_line().await.ok().flatten() {
                if line.contains("\"fuzz-final\"") {
                    assert!(
                        line.contains("\"result\""),
                        "the final ping failed: {line}"
                    );
                    return true;
                }
            }
            false
        };
        let (written, answered) = tokio::time::timeout(Duration::from_secs(20), async {
            tokio::join!(writing, reading)
        })
        .await
        .expect("the server answered within 20 s");
        assert!(
            answered,
            "the server stopped serving before the final request"
        );
        drop(written);
        drop(lines);
        let _ = tokio::time::timeout(Duration::from_secs(5), serving).await;
    });
});
