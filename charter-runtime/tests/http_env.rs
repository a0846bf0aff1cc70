//! What the environment controls: `CHARTER_<PACK>_BASE_URL` and the default credential
//! provider. One test in its own binary, because it sets environment variables: they are set
//! before any other thread (the runtime, the servers) exists.

#[path = "runtime/http_support/mod.rs"]
mod http_support;

use charter_runtime::http::HttpExecutor;
use charter_runtime::session::HttpCaller;
use charter_runtime::table::*;
use charter_runtime::{CallContext, CharterError};
use http_support::*;
use serde_json::json;

static ENVPACK: HttpPack = HttpPack::new(
    "envpack",
    "http://declared-base.invalid",
    "CHARTER_ENVPACK_BASE_URL",
    Auth::Bearer {
        env: "ENVPACK_TOKEN",
    },
);
static UNSET: HttpPack = HttpPack::new(
    "unset",
    "http://base-url.invalid",
    "CHARTER_UNSET_BASE_URL",
    Auth::Header {
        name: "X-Key",
        prefix: "",
        env: "UNSET_PACK_KEY",
    },
);
static EMPTY: HttpPack = pack(
    "empty",
    Auth::Basic {
        env: "EMPTY_PACK_KEY",
    },
);
static NO_FIELDS: ObjectShape = ObjectShape::of(&[]);
static PING_ROUTE: Route = route(&ENVPACK, Method::Get, "/ping");
static PING: ToolDef = tool("envpack_ping", &NO_FIELDS, &PING_ROUTE);
static UNSET_ROUTE: Route = route(&UNSET, Method::Get, "/ping");
static UNSET_TOOL: ToolDef = tool("unset_ping", &NO_FIELDS, &UNSET_ROUTE);
static EMPTY_ROUTE: Route = route(&EMPTY, Method::Get, "/ping");
static EMPTY_TOOL: ToolDef = tool("empty_ping", &NO_FIELDS, &EMPTY_ROUTE);

#[test]
fn base_url_and_credentials_come_from_the_environment_unless_the_api_says_otherwise() {
    let by_env = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let by_api = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let env_base = format!("http://{}/prefix", by_env.local_addr().unwrap());
    // SAFETY: no other thread exists yet in this test binary's only test.
    unsafe {
        std::env::set_var("CHARTER_ENVPACK_BASE_URL", &env_base);
        std::env::set_var("ENVPACK_TOKEN", "env-token-1");
        std::env::remove_var("UNSET_PACK_KEY");
        std::env::remove_var("CHARTER_UNSET_BASE_URL");
        std::env::set_var("EMPTY_PACK_KEY", "");
    }

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let env_server = Stub::start_on(by_env, |_| Reply::json(200, json!({"via": "env"})));
        let api_server = Stub::start_on(by_api, |_| Reply::json(200, json!({"via": "api"})));
        let ctx = CallContext::new();

        // The environment variable overrides the declared base URL; the default provider reads
        // the pack's variable.
        let exec = HttpExecutor::builder().no_proxy().build().unwrap();
        assert_eq!(exec.base_url(&ENVPACK), env_base);
        assert_eq!(exec.base_url(&UNSET), "http://base-url.invalid");
        let out = exec.call(&PING, &PING_ROUTE, json!({}), &ctx).await.unwrap();
        assert_eq!(out.structured, Some(json!({"via": "env"})));
        let r = env_server.only();
        assert_eq!(r.path, "/prefix/ping");
        assert_eq!(r.header("authorization"), Some("Bearer env-token-1"));

        // The API wins over the environment.
        let exec = exec.with_base_url("envpack", api_server.base.clone());
        let out = exec.call(&PING, &PING_ROUTE, json!({}), &ctx).await.unwrap();
        assert_eq!(out.structured, Some(json!({"via": "api"})));
        assert_eq!(api_server.only().header("authorization"), Some("Bearer env-token-1"));

        // An unset or empty variable is a credential error naming it; nothing is sent.
        let exec = HttpExecutor::builder()
            .no_proxy()
            .base_url("unset", api_server.base.clone())
            .base_url("empty", api_server.base.clone())
            .build()
            .unwrap();
        for (tool, route, var) in [(&UNSET_TOOL, &UNSET_ROUTE, "UNSET_PACK_KEY"), (&EMPTY_TOOL, &EMPTY_ROUTE, "EMPTY_PACK_KEY")] {
            let err = exec.call(tool, route, json!({}), &ctx).await.unwrap_err();
            assert_eq!(
                err,
                CharterError::Credential(format!(
                    "the `{}` pack needs a credential: set the environment variable {var} (or configure the \
                     executor's credential provider)",
                    route.pack.label
                ))
            );
        }
        assert_eq!(api_server.requests().len(), 1);
    });
}
