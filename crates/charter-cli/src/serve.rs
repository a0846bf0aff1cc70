//! `charter mcp`: serve packs over MCP.

use std::io::Write;
use std::process::ExitCode;

use charter_mcp::{HttpOptions, McpServer, ServerOptions, Transport};
use charter_runtime::table::Table;

use crate::args::McpArgs;
use crate::{Failure, packs, runtime};

pub(crate) fn run(
    args: McpArgs,
    tables: &[&'static Table],
    err: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    let tables = packs::select(tables, &args.packs)?;
    let server = McpServer::new(
        &tables,
        ServerOptions {
            progressive: args.progressive,
            threshold: args.threshold,
            mode: args.mode.clone(),
            ranking: args.ranking,
            http: Some(crate::executor::LazyHttp::shared()),
            ..ServerOptions::default()
        },
    )?;
    let rt = runtime()?;
    match &args.http {
        None => {
            writeln!(err, "{}", server.start_line(&Transport::Stdio))?;
            err.flush()?;
            rt.block_on(server.serve_stdio())?;
        }
        Some(addr) => {
            let options = HttpOptions {
                allow_hosts: args.allow_hosts.clone(),
                allow_origins: args.allow_origins.clone(),
            };
            let http = rt.block_on(server.bind_http(addr, options))?;
            writeln!(err, "{}", server.start_line(&Transport::Http(http.url())))?;
            err.flush()?;
            rt.block_on(http.run())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
