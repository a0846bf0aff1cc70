//! Every shipped pack on the wire: each module drives a `ToolSession` over one pack against a
//! recording axum server on 127.0.0.1 that checks the exact request an API would receive.

mod google_stub;
mod wire_stub;

mod dialects;
mod firecrawl;
mod gcalendar;
mod gdrive_gsheets;
mod github;
mod gmail;
mod google_docs_forms;
mod granola;
mod linear;
mod notion;
mod notion_data_sources;
mod outlook;
mod request_rules;
mod requests;
mod shopify;
mod slack;
mod stripe;
mod tavily;
