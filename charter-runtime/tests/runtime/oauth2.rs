//! OAuth 2 credentials against a real authorization server (npm `oauth2-mock-server`, started
//! by `charter_testkit::oauth`) and an API on 127.0.0.1 that accepts only tokens that server issued:
//! both grants, caching and renewal at expiry, single-flight renewal under 100 concurrent calls,
//! one renewal and one retry on a 401, revoked refresh tokens, a token endpoint that is down,
//! unavailable or slow, per-user tokens, and no secret in any log line, error or output.

use crate::http_support;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use charter_runtime::http::oauth::store::{StoredAccess, StoredLogin, TokenStore};
use charter_runtime::http::{CredentialKind, HttpExecutor, Secret, StaticCredentials, from_fn};
use charter_runtime::session::HttpCaller;
use charter_runtime::table::*;
use charter_runtime::{CallContext, CharterError};
use charter_testkit::oauth::{ApiStub, OAuthServer};
use http_support::*;
use serde_json::{Value, json};

const CLIENT_ID: &str = "client-4711.apps.example";
/// Canaries: if any of these shows up in a log line, error or output, a secret leaked.
const CLIENT_SECRET: &str = "canary-client-secret-9f3b";
const REFRESH: &str = "canary-refresh-token-77aa";

static REFRESHING: OAuth2 = OAuth2::new(
    Grant::RefreshToken,
    "https://token.invalid/token",
    "GOOG_CLIENT_ID",
)
.with_access_token_env("GOOG_ACCESS_TOKEN")
.with_authorization_url("https://login.invalid/authorize", "")
.with_client_secret_env("GOOG_CLIENT_SECRET")
.with_refresh_token_env("GOOG_REFRESH_TOKEN")
.with_scopes(&["mail.read"]);
static MACHINE: OAuth2 = OAuth2::new(
    Grant::ClientCredentials,
    "https://token.invalid/token",
    "SHOP_CLIENT_ID",
)
.with_client_secret_env("SHOP_CLIENT_SECRET")
.with_scopes(&["read_orders", "write_orders"])
.with_client_auth(ClientAuth::Basic);
static GOOG: HttpPack = pack("goog", Auth::OAuth2(&REFRESHING));
static SHOP: HttpPack = pack("shop", Auth::OAuth2(&MACHINE));
static OTHER: HttpPack = pack("other", Auth::Bearer { env: "OTHER_TOKEN" });
static NO_FIELDS: ObjectShape = ObjectShape::of(&[]);
static GOOG_ROUTE: Route = route(&GOOG, Method::Get, "/whoami");
static GOOG_TOOL: ToolDef = tool("goog_whoami", &NO_FIELDS, &GOOG_ROUTE);
static SHOP_ROUTE: Route = route(&SHOP, Method::Get, "/whoami");
static SHOP_TOOL: ToolDef = tool("shop_whoami", &NO_FIELDS, &SHOP_ROUTE);
static OTHER_ROUTE: Route = route(&OTHER, Method::Get, "/whoami");
static OTHER_TOOL: ToolDef = tool("other_whoami", &NO_FIELDS, &OTHER_ROUTE);

fn credentials() -> StaticCredentials {
    StaticCredentials::new()
        .with("GOOG_CLIENT_ID", CLIENT_ID)
        .with("GOOG_CLIENT_SECRET", CLIENT_SECRET)
        .with("GOOG_REFRESH_TOKEN", REFRESH)
        .with("SHOP_CLIENT_ID", CLIENT_ID)
        .with("SHOP_CLIENT_SECRET", CLIENT_SECRET)
        .with("OTHER_TOKEN", "other-static-token")
}

struct World {
    oauth: OAuthServer,
    api: ApiStub,
}

async fn world() -> World {
    let oauth = OAuthServer::start().await;
    oauth
        .control(json!({
            "clients": { CLIENT_ID: CLIENT_SECRET },
            "refresh_tokens": { REFRESH: "alice" },
            "static_tokens": { "other-static-token": "other-user", "static-access-token": "static-user" },
        }))
        .await;
    let api = ApiStub::start(&oauth).await;
    World { oauth, api }
}

fn executor(
    w: &World,
    provider: impl charter_runtime::http::CredentialProvider + 'static,
) -> HttpExecutor {
    let mut builder = HttpExecutor::builder().no_proxy().credentials(provider);
    for label in ["goog", "shop", "other"] {
        builder = builder
            .base_url(label, w.api.base.clone())
            .token_url(label, w.oauth.token_url());
    }
    builder.build().unwrap()
}

async fn call(
    exec: &HttpExecutor,
    tool: &'static ToolDef,
    ctx: &CallContext,
) -> Result<Value, CharterError> {
    let Exec::Http(route) = tool.exec else {
        unreachable!()
    };
    exec.call(tool, route, json!({}), ctx)
        .await
        .map(|out| out.structured.expect("a JSON answer"))
}

/// The goog call fails with the API's own 401.
async fn assert_refused_401(exec: &HttpExecutor) {
    let err = call(exec, &GOOG_TOOL, &CallContext::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, CharterError::Api(e) if e.status == 401),
        "{err:?}"
    );
}

/// The call's error, which must be a credential error, as the model reads it.
async fn credential_error(exec: &HttpExecutor, tool: &'static ToolDef) -> String {
    let err = call(exec, tool, &CallContext::new()).await.unwrap_err();
    assert!(matches!(err, CharterError::Credential(_)), "{err:?}");
    err.to_string()
}

fn assert_no_secret(text: &str, secrets: &[String]) {
    for secret in secrets {
        assert!(
            !text.contains(secret.as_str()),
            "a secret leaked into: {text}"
        );
    }
}

/// Lets `d` pass on the runtime's clock, which the token cache reads: paused, advanced, resumed,
/// so a token outlives its lifetime at once and the servers' I/O runs on real time again after.
/// Current-thread runtimes only (tokio pauses no other).
async fn pass(d: Duration) {
    tokio::time::pause();
    tokio::time::advance(d).await;
    tokio::time::resume();
}

#[tokio::test]
async fn the_refresh_token_grant_gets_a_token_the_api_accepts_and_it_is_cached() {
    let w = world().await;
    let exec = executor(&w, credentials());
    let ctx = CallContext::new();
    let answer = call(&exec, &GOOG_TOOL, &ctx).await.unwrap();
    assert_eq!(answer["user"], "alice");
    for _ in 0..5 {
        call(&exec, &GOOG_TOOL, &ctx).await.unwrap();
    }
    let stats = w.oauth.stats().await;
    assert_eq!(stats["token_requests"], 1, "one token, cached for its hour");
    assert_eq!(stats["by_grant"]["refresh_token"], 1);
    assert_eq!(w.api.count(), 6);
}

#[tokio::test]
async fn the_client_credentials_grant_sends_the_scopes_with_basic_client_auth() {
    let w = world().await;
    let exec = executor(&w, credentials());
    let answer = call(&exec, &SHOP_TOOL, &CallContext::new()).await.unwrap();
    assert_eq!(answer["user"], format!("client:{CLIENT_ID}"));
    let stats = w.oauth.stats().await;
    assert_eq!(stats["by_grant"]["client_credentials"], 1);
    assert_eq!(stats["last_scope"], "read_orders write_orders");
    assert_eq!(stats["last_client_auth"], "basic");

    // A wrong secret is refused by the server: a credential error naming the variables.
    let wrong = executor(
        &w,
        credentials().with("SHOP_CLIENT_SECRET", "not-the-secret"),
    );
    let text = credential_error(&wrong, &SHOP_TOOL).await;
    assert!(text.contains("HTTP 401 `invalid_client`"), "{text}");
    assert!(
        text.contains("check SHOP_CLIENT_ID and SHOP_CLIENT_SECRET"),
        "{text}"
    );
    // The server's error_description echoes the secret it got; charter does not repeat it.
    assert_no_secret(
        &text,
        &["not-the-secret".to_owned(), CLIENT_SECRET.to_owned()],
    );
}

#[tokio::test]
async fn an_expired_token_is_renewed_before_use() {
    let w = world().await;
    w.oauth.control(json!({"expires_in": 2})).await;
    let exec = executor(&w, credentials());
    let ctx = CallContext::new();
    call(&exec, &GOOG_TOOL, &ctx).await.unwrap();
    call(&exec, &GOOG_TOOL, &ctx).await.unwrap();
    assert_eq!(w.oauth.token_requests().await, 1);
    // Past its lifetime (renewed a tenth of it early), the cached token is not sent: a new one is.
    pass(Duration::from_millis(2100)).await;
    let answer = call(&exec, &GOOG_TOOL, &ctx).await.unwrap();
    assert_eq!(answer["user"], "alice");
    assert_eq!(w.oauth.token_requests().await, 2);
    assert_eq!(
        w.api.count(),
        3,
        "no request went out with the expired token"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_calls_with_an_expired_token_send_one_token_request() {
    let w = world().await;
    w.oauth.control(json!({"expires_in": 1})).await;
    let exec = Arc::new(executor(&w, credentials()));
    let ctx = CallContext::new();
    call(&exec, &GOOG_TOOL, &ctx).await.unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    w.oauth
        .control(json!({"expires_in": 3600, "mode": "slow", "delay_ms": 200}))
        .await;
    let before = w.oauth.token_requests().await;
    let calls = (0..100).map(|_| {
        let exec = exec.clone();
        tokio::spawn(async move { call(&exec, &GOOG_TOOL, &CallContext::new()).await })
    });
    for answer in futures::future::join_all(calls).await {
        assert_eq!(answer.unwrap().unwrap()["user"], "alice");
    }
    assert_eq!(w.oauth.token_requests().await - before, 1, "single flight");
    assert_eq!(w.api.count(), 101);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_renews_the_token_once_and_retries_once_never_looping() {
    let w = world().await;
    let exec = Arc::new(executor(&w, credentials()));
    call(&exec, &GOOG_TOOL, &CallContext::new()).await.unwrap();
    // The server revokes every access token it issued: the API now answers 401 to the cached
    // one. Ten concurrent calls see the 401; exactly one renewal follows.
    w.oauth.control(json!({"revoke_all_access": true})).await;
    let calls = (0..10).map(|_| {
        let exec = exec.clone();
        tokio::spawn(async move { call(&exec, &GOOG_TOOL, &CallContext::new()).await })
    });
    for answer in futures::future::join_all(calls).await {
        assert_eq!(answer.unwrap().unwrap()["user"], "alice");
    }
    assert_eq!(w.oauth.token_requests().await, 2, "one renewal for all");
    // A call that saw the 401 was sent again; one that started after the renewal went out once
    // with the new token (how many did which depends on scheduling).
    let sent = w.api.count() - 1;
    assert!((11..=20).contains(&sent), "{sent} requests for 10 calls");

    // An API that refuses every token: one renewal, one retry, then its 401 is the answer.
    w.api.always_401.store(true, Ordering::SeqCst);
    let (api_before, tokens_before) = (w.api.count(), w.oauth.token_requests().await);
    assert_refused_401(&exec).await;
    assert_eq!(w.api.count() - api_before, 2);
    assert_eq!(w.oauth.token_requests().await - tokens_before, 1);
}

#[tokio::test]
async fn a_revoked_refresh_token_is_a_credential_error_saying_what_to_renew() {
    let w = world().await;
    w.oauth.control(json!({"revoke_refresh": [REFRESH]})).await;
    let exec = executor(&w, credentials());
    let text = credential_error(&exec, &GOOG_TOOL).await;
    assert!(text.contains("HTTP 400 `invalid_grant`"), "{text}");
    assert!(text.contains("run `charter auth login goog`"), "{text}");
    assert!(
        text.contains("set GOOG_REFRESH_TOKEN to a fresh one"),
        "{text}"
    );
    // The server's error_description names the refresh token; the error does not.
    assert_no_secret(&text, &[REFRESH.to_owned(), CLIENT_SECRET.to_owned()]);
    assert_eq!(w.api.count(), 0, "no request leaves without a token");
    // Nothing configured at all: every way to configure it, by name.
    let bare = executor(&w, StaticCredentials::new());
    let err = call(&bare, &GOOG_TOOL, &CallContext::new())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "credential error: the `goog` pack needs an OAuth 2 credential: run `charter auth login \
         goog` (with GOOG_CLIENT_ID and GOOG_CLIENT_SECRET set), or set GOOG_REFRESH_TOKEN and \
         GOOG_CLIENT_ID and GOOG_CLIENT_SECRET, or set GOOG_ACCESS_TOKEN to an access token"
    );
}

#[tokio::test]
async fn a_token_endpoint_that_is_down_unavailable_or_slow_fails_that_pack_only() {
    let w = world().await;
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/token", l.local_addr().unwrap())
    };
    let down = HttpExecutor::builder()
        .no_proxy()
        .credentials(credentials())
        .base_url("goog", w.api.base.clone())
        .base_url("other", w.api.base.clone())
        .token_url("goog", closed)
        .build()
        .unwrap();
    let ctx = CallContext::new();
    let err = call(&down, &GOOG_TOOL, &ctx).await.unwrap_err().to_string();
    assert!(
        err.contains("cannot reach the token endpoint: cannot connect"),
        "{err}"
    );
    assert!(err.contains("try again later"), "{err}");
    // The same executor still serves the other pack.
    assert_eq!(
        call(&down, &OTHER_TOOL, &ctx).await.unwrap()["user"],
        "other-user"
    );

    w.oauth.control(json!({"mode": "unavailable"})).await;
    let exec = executor(&w, credentials());
    let err = call(&exec, &GOOG_TOOL, &ctx).await.unwrap_err().to_string();
    assert!(
        err.contains("HTTP 503 `temporarily_unavailable`; try again later"),
        "{err}"
    );

    w.oauth
        .control(json!({"mode": "slow", "delay_ms": 3000}))
        .await;
    let slow = HttpExecutor::builder()
        .no_proxy()
        .credentials(credentials())
        .base_url("goog", w.api.base.clone())
        .token_url("goog", w.oauth.token_url())
        .token_timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let err = call(&slow, &GOOG_TOOL, &ctx).await.unwrap_err().to_string();
    assert!(err.contains("did not answer within 300 ms"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "the timeout cut the wait"
    );
    // Back to normal: the next call renews (a failure is not cached past its wave).
    w.oauth.control(json!({"mode": "normal"})).await;
    assert_eq!(
        call(&slow, &GOOG_TOOL, &ctx).await.unwrap()["user"],
        "alice"
    );
}

#[tokio::test]
async fn per_user_refresh_tokens_get_per_user_access_tokens_never_shared() {
    let w = world().await;
    w.oauth
        .control(json!({"refresh_tokens": {"rt-of-ann": "ann", "rt-of-bob": "bob"}}))
        .await;
    let provider = from_fn(|q| {
        let value = match (q.kind, q.user.as_deref()) {
            (CredentialKind::ClientId, _) => CLIENT_ID,
            (CredentialKind::ClientSecret, _) => CLIENT_SECRET,
            (CredentialKind::RefreshToken, Some("ann")) => "rt-of-ann",
            (CredentialKind::RefreshToken, Some("bob")) => "rt-of-bob",
            _ => return None,
        };
        Some(value.into())
    });
    let exec = executor(&w, provider);
    let (ann, bob) = (
        CallContext::new().for_user("ann"),
        CallContext::new().for_user("bob"),
    );
    for _ in 0..3 {
        assert_eq!(call(&exec, &GOOG_TOOL, &ann).await.unwrap()["user"], "ann");
        assert_eq!(call(&exec, &GOOG_TOOL, &bob).await.unwrap()["user"], "bob");
    }
    assert_eq!(
        w.oauth.token_requests().await,
        2,
        "one token per user, each cached"
    );
    // A user the provider does not know gets a credential error, not someone else's token.
    let eve = CallContext::new().for_user("eve");
    let err = call(&exec, &GOOG_TOOL, &eve).await.unwrap_err().to_string();
    assert!(
        err.contains("needs an OAuth 2 credential for this end user"),
        "{err}"
    );
}

#[tokio::test]
async fn a_static_access_token_wins_and_is_never_renewed() {
    let w = world().await;
    let exec = executor(
        &w,
        credentials().with("GOOG_ACCESS_TOKEN", "static-access-token"),
    );
    assert_eq!(
        call(&exec, &GOOG_TOOL, &CallContext::new()).await.unwrap()["user"],
        "static-user"
    );
    w.api.always_401.store(true, Ordering::SeqCst);
    assert_refused_401(&exec).await;
    assert_eq!(w.oauth.token_requests().await, 0);
    assert_eq!(w.api.count(), 2, "a static token is not retried");
}

#[tokio::test(flavor = "current_thread")]
async fn no_secret_reaches_a_log_line_an_error_an_answer_or_debug_output() {
    let logs = capture_tracing();
    let w = world().await;
    w.oauth.control(json!({"expires_in": 1})).await;
    let exec = executor(&w, credentials());
    let ctx = CallContext::new();
    let mut seen = Vec::new();
    seen.push(format!("{:?}", call(&exec, &GOOG_TOOL, &ctx).await));
    pass(Duration::from_millis(1100)).await;
    seen.push(format!("{:?}", call(&exec, &GOOG_TOOL, &ctx).await));
    w.oauth.control(json!({"revoke_all_access": true})).await;
    seen.push(format!("{:?}", call(&exec, &GOOG_TOOL, &ctx).await));
    w.oauth
        .control(json!({"revoke_refresh": [REFRESH], "expires_in": 3600}))
        .await;
    pass(Duration::from_millis(1100)).await;
    let failed = call(&exec, &GOOG_TOOL, &ctx).await;
    assert!(failed.is_err());
    seen.push(format!("{:?} {}", failed, failed.as_ref().unwrap_err()));
    seen.push(format!("{exec:?} {:?}", credentials()));
    let mut secrets = w.oauth.issued_secrets().await;
    assert!(secrets.len() >= 3, "tokens were issued: {secrets:?}");
    secrets.extend([CLIENT_SECRET.to_owned(), REFRESH.to_owned()]);
    let logs = logs.text();
    assert!(
        logs.contains("oauth token request"),
        "the token requests are logged"
    );
    assert_no_secret(&logs, &secrets);
    for text in seen {
        assert_no_secret(&text, &secrets);
    }
}

/// A stored login (`charter auth login`) in a fresh config directory.
fn stored_login(w: &World, access: Option<StoredAccess>) -> std::path::PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "charter-oauth2-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let login = StoredLogin {
        refresh_token: Secret::new(REFRESH),
        client_id: CLIENT_ID.to_owned(),
        scopes: vec!["mail.read".to_owned()],
        token_url: w.oauth.token_url(),
        created_at: 0,
        rotated_at: None,
        access,
    };
    TokenStore::at(&dir).save("goog", &login).unwrap();
    dir
}

/// An executor as one `charter` process builds it: no refresh token configured, the stored
/// logins of `dir`.
fn login_executor(w: &World, dir: &std::path::Path) -> HttpExecutor {
    let provider = StaticCredentials::new()
        .with("GOOG_CLIENT_ID", CLIENT_ID)
        .with("GOOG_CLIENT_SECRET", CLIENT_SECRET);
    HttpExecutor::builder()
        .no_proxy()
        .credentials(provider)
        .stored_logins(TokenStore::at(dir))
        .base_url("goog", w.api.base.clone())
        .token_url("goog", w.oauth.token_url())
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn executors_sharing_a_rotating_stored_login_renew_once_and_write_the_new_token_back() {
    let w = world().await;
    w.oauth.control(json!({"rotate": true})).await;
    let dir = stored_login(&w, None);
    // Four executors stand for four processes: each has its own cache.
    let executors: Vec<Arc<HttpExecutor>> =
        (0..4).map(|_| Arc::new(login_executor(&w, &dir))).collect();
    let calls = executors.iter().flat_map(|exec| {
        (0..10).map(move |_| {
            let exec = exec.clone();
            tokio::spawn(async move { call(&exec, &GOOG_TOOL, &CallContext::new()).await })
        })
    });
    for answer in futures::future::join_all(calls.collect::<Vec<_>>()).await {
        assert_eq!(answer.unwrap().unwrap()["user"], "alice");
    }
    let stats = w.oauth.stats().await;
    assert_eq!(stats["token_requests"], 1, "{stats}");
    let login = TokenStore::at(&dir).load("goog").unwrap().unwrap();
    let newest = stats["issued_refresh"].as_array().unwrap().last().cloned();
    assert_eq!(Some(json!(login.refresh_token.expose())), newest);
    assert!(login.rotated_at.is_some());
    assert!(login.access.is_some());

    // Every access token refused: each executor sees a 401 and renews through the file; one
    // renewal serves all four, with the refresh token the first renewal wrote.
    w.oauth.control(json!({"revoke_all_access": true})).await;
    for exec in &executors {
        assert_eq!(
            call(exec, &GOOG_TOOL, &CallContext::new()).await.unwrap()["user"],
            "alice"
        );
    }
    let stats = w.oauth.stats().await;
    assert_eq!(stats["token_requests"], 2, "{stats}");
    assert_eq!(stats["spent_reused"], 0, "{stats}");

    // A stored login is the process's own: an end user's call never uses it.
    let err = call(
        &executors[0],
        &GOOG_TOOL,
        &CallContext::new().for_user("bob"),
    )
    .await
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("needs an OAuth 2 credential for this end user"),
        "{err}"
    );
}

#[tokio::test]
async fn a_rotated_refresh_token_without_a_store_is_followed_in_memory() {
    let w = world().await;
    w.oauth
        .control(json!({"rotate": true, "expires_in": 1}))
        .await;
    let exec = executor(&w, credentials());
    let ctx = CallContext::new();
    for _ in 0..3 {
        assert_eq!(
            call(&exec, &GOOG_TOOL, &ctx).await.unwrap()["user"],
            "alice"
        );
        pass(Duration::from_millis(1100)).await;
    }
    let stats = w.oauth.stats().await;
    assert_eq!(stats["by_grant"]["refresh_token"], 3, "{stats}");
    assert_eq!(stats["spent_reused"], 0, "{stats}");
}
