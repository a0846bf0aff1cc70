//! [`HttpExecutor`]: one reqwest client (one connection pool) that sends YAML-pack tool calls.
//!
//! Per call: resolve the base URL (API override, then `CHARTER_<PACK>_BASE_URL`, then the pack),
//! build the request, resolve the credential (before anything leaves), send with the tool's
//! timeout, follow declared redirects by hand (dropping credentials when one leaves the
//! origin), read at most the response cap, and shape the answer. One INFO event per call.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use reqwest::header::{
    AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, COOKIE, HeaderName, HeaderValue, LOCATION,
    PROXY_AUTHORIZATION,
};
use reqwest::{StatusCode, Url};
use serde_json::Value;

use crate::context::CallContext;
use crate::error::{ApiError, CharterError};
use crate::table::{Auth, BoxFuture, HttpCaller, HttpPack, Route, ToolDef, ToolOutput};

use super::credentials::{
    CredentialProvider, CredentialQuery, EnvCredentials, Masker, Secret, missing,
};
use super::oauth::shared::GrantStore;
use super::oauth::store::TokenStore;
use super::oauth::{DEFAULT_TOKEN_TIMEOUT, TokenSource};
use super::request::{PreparedRequest, auth_header, basic_pair, build_request};
use super::response::{DEFAULT_MAX_RESPONSE_BYTES, api_error, shape_response};

/// The timeout of a tool that declares none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Idle connections kept per API host. A burst of a thousand calls opens a thousand connections;
/// kept idle, each holds its buffers (about 28 KiB) until it closes ([`DEFAULT_IDLE_TIMEOUT`]),
/// which a server measured as memory not given back after the burst (`bench/http-load.sh`). A few dozen cover the steady
/// concurrency of one agent team against one API.
pub const DEFAULT_MAX_IDLE_PER_HOST: usize = 32;

/// How long a connection may sit idle before it closes (30 s). The pool looks for expired
/// connections once per this period, so one closes between 30 and 60 s after its last call: inside
/// the 90 s in which the HTTP server hands freed memory back after sessions close. With reqwest's
/// 90 s, the connections of a burst of `RunCode` programs (about 16 KiB each, their read buffers
/// and channels) closed 90 to 180 s after it, when nothing gave their pages back any more:
/// measured with heaptrack, they were the 1.2 MB still in use 100 s after 100 programs
/// (docs/code-mode.md). APIs close idle connections after about as long (nginx 75 s, load
/// balancers 60 s), so few connections outlive 30 s of quiet anyway.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// Sends YAML-pack tool calls. Cheap to clone (the client and provider are shared); hold one per
/// process so every session reuses its connections.
#[derive(Clone)]
pub struct HttpExecutor {
    client: reqwest::Client,
    credentials: Arc<dyn CredentialProvider>,
    tokens: Arc<TokenSource>,
    default_timeout: Duration,
    max_response_bytes: usize,
    base_urls: HashMap<String, String>,
}

impl fmt::Debug for HttpExecutor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpExecutor")
            .field("default_timeout", &self.default_timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("base_urls", &self.base_urls)
            .field("tokens", &self.tokens)
            .finish_non_exhaustive()
    }
}

/// Configures an [`HttpExecutor`].
pub struct HttpExecutorBuilder {
    credentials: Arc<dyn CredentialProvider>,
    token_urls: HashMap<String, String>,
    token_timeout: Duration,
    stored_logins: Option<TokenStore>,
    shared_tokens: Option<Arc<dyn GrantStore>>,
    default_timeout: Duration,
    connect_timeout: Duration,
    max_response_bytes: usize,
    base_urls: HashMap<String, String>,
    system_proxy: bool,
    user_agent: String,
    max_idle_per_host: usize,
    idle_timeout: Duration,
}

impl fmt::Debug for HttpExecutorBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpExecutorBuilder")
            .field("default_timeout", &self.default_timeout)
            .field("max_response_bytes", &self.max_response_bytes)
            .finish_non_exhaustive()
    }
}

impl Default for HttpExecutorBuilder {
    fn default() -> Self {
        Self {
            credentials: Arc::new(EnvCredentials),
            token_urls: HashMap::new(),
            token_timeout: DEFAULT_TOKEN_TIMEOUT,
            stored_logins: None,
            shared_tokens: None,
            default_timeout: DEFAULT_TIMEOUT,
            connect_timeout: Duration::from_secs(10),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            base_urls: HashMap::new(),
            system_proxy: true,
            user_agent: concat!("charter/", env!("CARGO_PKG_VERSION")).to_owned(),
            max_idle_per_host: DEFAULT_MAX_IDLE_PER_HOST,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
        }
    }
}

impl HttpExecutorBuilder {
    /// Where secrets come from (default: [`EnvCredentials`]).
    pub fn credentials(mut self, provider: impl CredentialProvider + 'static) -> Self {
        self.credentials = Arc::new(provider);
        self
    }

    /// A provider already shared elsewhere.
    pub fn credentials_arc(mut self, provider: Arc<dyn CredentialProvider>) -> Self {
        self.credentials = provider;
        self
    }

    /// The timeout of tools that declare none (default 30 s). Covers the whole exchange:
    /// connecting, every redirect hop and reading the body.
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = timeout;
        self
    }

    /// How long connecting may take (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// The largest response body read (default 10 MiB); a larger one is a transport error.
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// Sends the pack labelled `pack` to `url` instead of its declared base URL (a proxy, an
    /// enterprise host, a test server). Wins over `CHARTER_<PACK>_BASE_URL`.
    pub fn base_url(mut self, pack: impl Into<String>, url: impl Into<String>) -> Self {
        self.base_urls.insert(pack.into(), url.into());
        self
    }

    /// Sends the OAuth 2 token requests of the pack labelled `pack` to `url` (a test server, a
    /// tenant-specific endpoint). Wins over `CHARTER_<PACK>_TOKEN_URL`.
    pub fn token_url(mut self, pack: impl Into<String>, url: impl Into<String>) -> Self {
        self.token_urls.insert(pack.into(), url.into());
        self
    }

    /// How long a token endpoint may take to answer (default 15 s); past it the call fails
    /// with a credential error.
    pub fn token_timeout(mut self, timeout: Duration) -> Self {
        self.token_timeout = timeout;
        self
    }

    /// Renews OAuth 2 packs from the logins `charter auth login` stored, when the credential
    /// provider has no refresh token for the process's own user (never for an end user). Safe
    /// with several processes on one login and a provider that rotates refresh tokens: one
    /// process renews at a time, under an OS file lock beside the login, writes the new tokens
    /// back atomically, and the others use what it obtained (`oauth::store`).
    pub fn stored_logins(mut self, store: TokenStore) -> Self {
        self.stored_logins = Some(store);
        self
    }

    /// Keeps every OAuth 2 grant's tokens in a store several instances share (`charter mcp
    /// --store redis://...`): an access token one instance obtained serves them all, a
    /// rotating refresh token is written back there, and a renewal is made by one instance at
    /// a time (`oauth::shared`). A stored login is then the grant's starting point only.
    pub fn shared_tokens(mut self, store: Arc<dyn GrantStore>) -> Self {
        self.shared_tokens = Some(store);
        self
    }

    /// How many idle connections to one API host are kept for reuse (default
    /// [`DEFAULT_MAX_IDLE_PER_HOST`]); connections beyond it close once their call is answered.
    pub fn max_idle_per_host(mut self, connections: usize) -> Self {
        self.max_idle_per_host = connections;
        self
    }

    /// How long an idle connection is kept for reuse (default [`DEFAULT_IDLE_TIMEOUT`]); it
    /// closes within twice this after its last call.
    pub fn idle_timeout(mut self, idle: Duration) -> Self {
        self.idle_timeout = idle;
        self
    }

    /// Ignores the `HTTP(S)_PROXY` environment variables (on by default).
    pub fn no_proxy(mut self) -> Self {
        self.system_proxy = false;
        self
    }

    /// The `User-Agent` sent on every request (some APIs, GitHub's among them, require one).
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// The executor. Fails only when the TLS or HTTP client cannot be set up.
    pub fn build(self) -> Result<HttpExecutor, CharterError> {
        let mut builder = reqwest::Client::builder()
            .tls_backend_preconfigured(tls_config()?)
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(self.connect_timeout)
            .pool_max_idle_per_host(self.max_idle_per_host)
            .pool_idle_timeout(self.idle_timeout)
            .user_agent(self.user_agent);
        if !self.system_proxy {
            builder = builder.no_proxy();
        }
        let client = builder.build().map_err(|e| {
            CharterError::Transport(format!(
                "cannot set up the HTTP client: {}",
                error_chain(&e)
            ))
        })?;
        Ok(HttpExecutor {
            client,
            credentials: self.credentials,
            tokens: Arc::new(TokenSource::new(
                self.token_urls,
                self.token_timeout,
                self.stored_logins,
                self.shared_tokens,
            )),
            default_timeout: self.default_timeout,
            max_response_bytes: self.max_response_bytes,
            base_urls: self.base_urls,
        })
    }
}

/// rustls with the ring provider (no aws-lc, no C beyond ring): the platform's roots, or
/// Mozilla's (webpki-roots) when the platform has none (a minimal container).
fn tls_config() -> Result<rustls::ClientConfig, CharterError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| CharterError::Transport(format!("cannot set up TLS: {e}")))?;
    let mut config = match rustls_platform_verifier::Verifier::new(provider) {
        Ok(verifier) => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth(),
        Err(_) => {
            let roots = rustls::RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            builder.with_root_certificates(roots).with_no_client_auth()
        }
    };
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// What the INFO event reports about one call.
#[derive(Default)]
struct CallLog {
    status: u16,
    bytes_received: usize,
    bytes_returned: usize,
    redirects: u8,
    /// Whether a 401 renewed the OAuth 2 token and the call was sent again.
    renewed: bool,
}

/// The credential of one attempt: the header, what masks it, and the OAuth 2 access token it
/// carries (a token that can be renewed when the API refuses it).
#[derive(Default)]
struct Credential {
    header: Option<(HeaderName, HeaderValue)>,
    masker: Masker,
    renewable: Option<Secret>,
}

impl HttpExecutor {
    /// An executor with the defaults: credentials from the environment, 30 s timeout, 10 MiB cap.
    pub fn new() -> Result<Self, CharterError> {
        Self::builder().build()
    }

    /// A builder to configure credentials, timeouts, the response cap and base URLs.
    pub fn builder() -> HttpExecutorBuilder {
        HttpExecutorBuilder::default()
    }

    /// This executor sending the pack labelled `pack` to `url` (wins over the environment).
    pub fn with_base_url(mut self, pack: impl Into<String>, url: impl Into<String>) -> Self {
        self.base_urls.insert(pack.into(), url.into());
        self
    }

    /// The authorization-code login (`charter auth login`) through this executor's client,
    /// credentials and token-endpoint overrides.
    pub fn login(&self) -> super::oauth::login::Login<'_> {
        super::oauth::login::Login {
            http: &self.client,
            credentials: &*self.credentials,
            tokens: &self.tokens,
        }
    }

    /// The base URL in force for a pack: the API override, else the non-empty environment
    /// variable `pack.base_url_env`, else the declared one.
    pub fn base_url(&self, pack: &HttpPack) -> String {
        if let Some(url) = self.base_urls.get(pack.label) {
            return url.clone();
        }
        if !pack.base_url_env.is_empty()
            && let Ok(url) = std::env::var(pack.base_url_env)
            && !url.trim().is_empty()
        {
            return url.trim().to_owned();
        }
        pack.base_url.to_owned()
    }

    /// Runs one validated call of `tool` (pins and from-context values already merged in).
    pub async fn execute(
        &self,
        tool: &ToolDef,
        route: &'static Route,
        arguments: Value,
        ctx: &CallContext,
    ) -> Result<ToolOutput, CharterError> {
        let started = Instant::now();
        let mut log = CallLog::default();
        let result = self
            .execute_logged(tool, route, &arguments, ctx, &mut log)
            .await;
        let outcome = match &result {
            Ok(_) => "ok",
            Err(CharterError::Api(_)) => "api_error",
            Err(CharterError::Validation(_)) => "validation_error",
            Err(CharterError::Credential(_)) => "credential_error",
            Err(CharterError::Transport(_)) => "transport_error",
            Err(CharterError::Declaration(_)) => "declaration_error",
            Err(CharterError::Tool(_)) => "tool_error",
        };
        tracing::info!(
            tool = tool.name,
            method = route.method.as_str(),
            url = route.path,
            status = log.status,
            elapsed_ms = started.elapsed().as_millis() as u64,
            bytes_received = log.bytes_received,
            bytes_returned = log.bytes_returned,
            redirects = log.redirects,
            renewed = log.renewed,
            outcome,
            "http call"
        );
        result
    }

    async fn execute_logged(
        &self,
        tool: &ToolDef,
        route: &'static Route,
        arguments: &Value,
        ctx: &CallContext,
        log: &mut CallLog,
    ) -> Result<ToolOutput, CharterError> {
        let base = self.base_url(route.pack);
        if base.is_empty() {
            return Err(no_base_url(route.pack));
        }
        let base = fill_base_url(route.pack, &base, |var| std::env::var(var).ok())?;
        let request = build_request(tool, route, &base, arguments, ctx)?;
        let credential = self.credential(route.pack, ctx, None).await?;
        let renewable = credential.renewable.clone();
        let retry = renewable.as_ref().map(|_| request.clone());
        let result = self.attempt(route, request, credential, log).await;
        // An OAuth 2 token the API refused is renewed once and the call sent once more; a second
        // refusal is the answer (never a loop).
        let output = match (result, retry, renewable) {
            (Err(CharterError::Api(e)), Some(request), Some(stale)) if e.status == 401 => {
                log.renewed = true;
                let credential = self.credential(route.pack, ctx, Some(&stale)).await?;
                self.attempt(route, request, credential, log).await?
            }
            (result, _, _) => result?,
        };
        log.bytes_returned = output.text.len();
        Ok(output)
    }

    /// The credential for one call of `pack`: none, a static secret, or an OAuth 2 access token
    /// (renewed first when it is `stale`). A static access token configured for an OAuth 2 pack
    /// wins over renewal and is never renewed.
    async fn credential(
        &self,
        pack: &'static HttpPack,
        ctx: &CallContext,
        stale: Option<&Secret>,
    ) -> Result<Credential, CharterError> {
        let static_secret = match pack.auth.env() {
            Some(env) => {
                let query = CredentialQuery::token(pack.label, env, ctx.user.clone());
                let secret = self.credentials.resolve(&query).await?;
                match (secret, pack.auth) {
                    (Some(secret), _) => Some(secret),
                    (None, Auth::OAuth2(_)) => None,
                    (None, _) => return Err(missing(&query)),
                }
            }
            None => None,
        };
        let (secret, renewable) = match (static_secret, pack.auth) {
            (_, Auth::None) => return Ok(Credential::default()),
            (Some(secret), _) => (secret, false),
            (None, Auth::OAuth2(oauth)) => {
                let token = self
                    .tokens
                    .access_token(
                        &self.client,
                        &*self.credentials,
                        pack,
                        oauth,
                        ctx.user.clone(),
                        stale,
                    )
                    .await?;
                (token, true)
            }
            (None, _) => unreachable!("a static scheme without a secret returned above"),
        };
        let pair =
            matches!(pack.auth, Auth::Basic { .. }).then(|| basic_pair(&secret).into_owned());
        Ok(Credential {
            header: auth_header(&pack.auth, &secret)?,
            masker: Masker::for_secret(&secret, pair.as_deref()),
            renewable: renewable.then_some(secret),
        })
    }

    /// One exchange under the tool's timeout.
    async fn attempt(
        &self,
        route: &'static Route,
        request: PreparedRequest,
        credential: Credential,
        log: &mut CallLog,
    ) -> Result<ToolOutput, CharterError> {
        let timeout = route
            .timeout_ms
            .map(|ms| Duration::from_millis(u64::from(ms)))
            .unwrap_or(self.default_timeout);
        let Credential { header, masker, .. } = credential;
        let exchange = self.exchange(route, request, header, &masker, log);
        match tokio::time::timeout(timeout, exchange).await {
            Ok(result) => result,
            Err(_) => Err(CharterError::Transport(format!(
                "{} {} timed out after {} ms",
                route.method.as_str(),
                route.path,
                timeout.as_millis()
            ))),
        }
    }

    async fn exchange(
        &self,
        route: &'static Route,
        request: PreparedRequest,
        mut credential: Option<(HeaderName, HeaderValue)>,
        masker: &Masker,
        log: &mut CallLog,
    ) -> Result<ToolOutput, CharterError> {
        let PreparedRequest {
            mut method,
            url,
            mut headers,
            mut body,
        } = request;
        let mut url = Url::parse(&url).map_err(|e| {
            CharterError::Declaration(crate::error::DeclarationError::new(format!(
                "pack `{}`: the request URL built from base URL `{}` is invalid: {e}",
                route.pack.label,
                self.base_url(route.pack)
            )))
        })?;
        let origin = url.origin();
        let mut hops: u8 = 0;

        let response = loop {
            let mut builder = self
                .client
                .request(method.clone(), url.clone())
                .headers(headers.clone());
            if let Some((name, value)) = &credential {
                builder = builder.header(name, value);
            }
            if let Some(bytes) = &body {
                builder = builder.body(bytes.clone());
            }
            let response = builder
                .send()
                .await
                .map_err(|e| transport(route, &e, masker))?;
            let status = response.status();
            log.status = status.as_u16();
            let location = response.headers().get(LOCATION).cloned();
            let (true, Some(location)) = (status.is_redirection(), location) else {
                break response;
            };

            let target = location.to_str().ok().and_then(|l| url.join(l).ok());
            let Some(target) = target.filter(|t| matches!(t.scheme(), "http" | "https")) else {
                return Err(redirect_error(
                    route,
                    status,
                    "the redirect target is not a valid http(s) URL",
                ));
            };
            if hops >= route.max_redirects {
                let why = if route.max_redirects == 0 {
                    format!(
                        "redirect to {} not followed: this tool declares no redirects",
                        without_query(&target)
                    )
                } else {
                    format!(
                        "more than {} redirects (last to {})",
                        route.max_redirects,
                        without_query(&target)
                    )
                };
                return Err(redirect_error(route, status, &why));
            }
            if target.origin() != origin && credential.is_some() {
                // Leaving the origin: nothing that authenticates us goes along, and it never
                // comes back on later hops either.
                if let Some((name, _)) = credential.take() {
                    headers.remove(name);
                }
            }
            if target.origin() != origin {
                for name in [AUTHORIZATION, PROXY_AUTHORIZATION, COOKIE] {
                    headers.remove(name);
                }
            }
            let to_get = status == StatusCode::SEE_OTHER
                || (matches!(status, StatusCode::MOVED_PERMANENTLY | StatusCode::FOUND)
                    && method == reqwest::Method::POST);
            if to_get && method != reqwest::Method::HEAD {
                method = reqwest::Method::GET;
                body = None;
                headers.remove(CONTENT_TYPE);
                headers.remove(CONTENT_LENGTH);
            }
            hops += 1;
            log.redirects = hops;
            url = target;
        };

        let status = response.status().as_u16();
        let response_headers = response.headers().clone();
        let bytes = self.read_body(route, response, masker, log).await?;
        let bytes = mask_bytes(masker, bytes);
        if status >= 400 {
            return Err(CharterError::Api(api_error(
                route,
                status,
                &response_headers,
                &bytes,
                SystemTime::now(),
            )));
        }
        let content_type = response_headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok());
        let output = shape_response(route, status, content_type, &bytes)?;
        Ok(super::pagination::with_link_cursor(
            route,
            &response_headers,
            output,
        ))
    }

    async fn read_body(
        &self,
        route: &'static Route,
        mut response: reqwest::Response,
        masker: &Masker,
        log: &mut CallLog,
    ) -> Result<Vec<u8>, CharterError> {
        let cap = self.max_response_bytes;
        let too_large = |size: String| {
            CharterError::Transport(format!(
                "{} {}: the response body ({size}) exceeds the {cap}-byte limit; narrow the request \
                 (filters, a smaller page) or raise the executor's max_response_bytes",
                route.method.as_str(),
                route.path
            ))
        };
        if let Some(length) = response.content_length()
            && length > cap as u64
        {
            return Err(too_large(format!("{length} bytes")));
        }
        let mut bytes =
            Vec::with_capacity(response.content_length().map_or(8 * 1024, |l| l as usize));
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| transport(route, &e, masker))?
        {
            if bytes.len() + chunk.len() > cap {
                return Err(too_large("more than that".to_owned()));
            }
            bytes.extend_from_slice(&chunk);
            log.bytes_received = bytes.len();
        }
        log.bytes_received = bytes.len();
        Ok(bytes)
    }
}

impl HttpCaller for HttpExecutor {
    fn call<'a>(
        &'a self,
        tool: &'static ToolDef,
        route: &'static Route,
        arguments: Value,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolOutput, CharterError>> {
        Box::pin(self.execute(tool, route, arguments, ctx))
    }
}

/// The body with every secret masked, so nothing downstream (errors, the model's answer) can
/// carry one an API echoed back.
fn mask_bytes(masker: &Masker, bytes: Vec<u8>) -> Vec<u8> {
    if masker.is_empty() {
        return bytes;
    }
    match std::str::from_utf8(&bytes) {
        Ok(text) if masker.hits(text) => masker.mask(text).into_bytes(),
        _ => bytes,
    }
}

fn redirect_error(route: &'static Route, status: StatusCode, why: &str) -> CharterError {
    CharterError::Api(ApiError {
        status: status.as_u16(),
        method: route.method.as_str(),
        url_template: route.path,
        body: why.to_owned(),
        retry_after_secs: None,
    })
}

/// A URL without its query and fragment (which may carry signatures or identifiers).
fn without_query(url: &Url) -> String {
    let mut url = url.clone();
    url.set_query(None);
    url.set_fragment(None);
    url.to_string()
}

/// A transport error: the cause chain, without the URL (its query may carry identifiers) and
/// with any secret masked.
fn transport(route: &'static Route, error: &reqwest::Error, masker: &Masker) -> CharterError {
    let kind = if error.is_connect() {
        "cannot connect"
    } else if error.is_timeout() {
        "timed out"
    } else if error.is_body() || error.is_decode() {
        "the response body could not be read"
    } else {
        "the request failed"
    };
    let detail = error_chain(error);
    CharterError::Transport(masker.mask(&format!(
        "{} {}: {kind}: {detail}",
        route.method.as_str(),
        route.path
    )))
}

fn error_chain(error: &reqwest::Error) -> String {
    let mut parts = Vec::new();
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(error);
    while let Some(e) = source {
        let text = e.to_string();
        if !parts.contains(&text) {
            parts.push(text);
        }
        source = e.source();
    }
    if parts.is_empty() {
        // reqwest's own message names the URL; drop it.
        let mut text = error.to_string();
        if let Some(cut) = text.find(" for url (") {
            text.truncate(cut);
        }
        parts.push(text);
    }
    parts.join(": ")
}

/// Fills each `{setting}` of a base URL (a shop's subdomain, a tenant) from the deployment's
/// `CHARTER_<PACK>_<SETTING>` (docs/pack-format.md, `base_url`). A missing or unsafe value is an
/// error naming the variable, and nothing is sent.
fn fill_base_url(
    pack: &HttpPack,
    base: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<String, CharterError> {
    let Ok(found) = charter_terms::http::placeholders(base) else {
        return Ok(base.to_owned());
    };
    let mut url = base.to_owned();
    for (_, name) in found {
        let var = charter_terms::names::pack_env(pack.label, name);
        let value = lookup(&var).map(|v| v.trim().to_owned());
        let problem = match &value {
            None => "is not set".to_owned(),
            Some(v) if v.is_empty() => "is empty".to_owned(),
            Some(v) if !charter_terms::names::valid_base_url_value(v) => {
                "must hold only letters, digits, `.` and `-`".to_owned()
            }
            Some(_) => String::new(),
        };
        if !problem.is_empty() {
            return Err(CharterError::Declaration(
                crate::error::DeclarationError::new(format!(
                    "pack `{}` needs {var} (the `{{{name}}}` of its base URL {base}), which {problem}: set it, or give the whole URL through {} or `HttpExecutor::with_base_url`",
                    pack.label, pack.base_url_env
                )),
            ));
        }
        url = url.replace(&format!("{{{name}}}"), value.as_deref().unwrap_or(""));
    }
    Ok(url)
}

/// A pack imported without a usable server URL leaves it to the deployment.
fn no_base_url(pack: &HttpPack) -> CharterError {
    let how = if pack.base_url_env.is_empty() {
        "give it through `HttpExecutor::with_base_url`".to_owned()
    } else {
        format!(
            "set the environment variable {} (e.g. `https://api.example.com/v1`) or give it through `HttpExecutor::with_base_url`",
            pack.base_url_env
        )
    };
    CharterError::Declaration(crate::error::DeclarationError::new(format!(
        "pack `{}` has no base URL: {how}",
        pack.label
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    static SHOP: HttpPack = HttpPack {
        label: "shopify",
        base_url: "https://{shop}.myshopify.com/admin/api/2026-10/graphql.json",
        base_url_env: "CHARTER_SHOPIFY_BASE_URL",
        auth: Auth::None,
        headers: &[],
        query: &[],
        body: &[],
        envelope: None,
    };

    fn fill(value: Option<&str>) -> Result<String, CharterError> {
        fill_base_url(&SHOP, SHOP.base_url, |var| {
            assert_eq!(var, "CHARTER_SHOPIFY_SHOP");
            value.map(str::to_owned)
        })
    }

    #[test]
    fn base_url_settings_are_filled_from_the_pack_variable() {
        assert_eq!(
            fill(Some(" my-store ")).unwrap(),
            "https://my-store.myshopify.com/admin/api/2026-10/graphql.json"
        );
        for (value, why) in [
            (None, "is not set"),
            (Some(""), "is empty"),
            (Some("evil.example/x"), "only letters"),
            (Some("a@b"), "only letters"),
        ] {
            let err = fill(value).unwrap_err().to_string();
            assert!(err.contains("CHARTER_SHOPIFY_SHOP"), "{err}");
            assert!(err.contains(why), "{err}");
        }
        // A URL without placeholders is left alone and reads nothing.
        let plain = fill_base_url(&SHOP, "https://api.example.com/v1", |_| unreachable!());
        assert_eq!(plain.unwrap(), "https://api.example.com/v1");
    }
}
