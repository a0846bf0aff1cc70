//! MCP server and client bridge (work in progress).
