//! `charter auth`: log in to OAuth 2 packs, show what each pack would authenticate with, log
//! out. The login is the authorization-code flow with PKCE (S256) and a loopback redirect on
//! 127.0.0.1 (an ephemeral port); the refresh token it yields is stored by
//! [`TokenStore`] in a file only the user can read, where `charter mcp` finds it.

use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use charter_runtime::http::oauth::login::Authorization;
use charter_runtime::http::oauth::store::TokenStore;
use charter_runtime::table::{Auth, Exec, Grant, HttpPack, OAuth2, Table};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

use crate::args::{AuthCommand, AuthLoginArgs, PackArgs};
use crate::{Failure, packs, runtime};

pub(crate) fn run(
    command: AuthCommand,
    tables: &[&'static Table],
    out: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    match command {
        AuthCommand::Login(args) => login(args, tables, out),
        AuthCommand::Status(args) => status(&args, tables, out),
        AuthCommand::Logout(args) => {
            let pack = http_pack(tables, &args.pack)?;
            let store = store()?;
            let path = store.path(pack.label);
            let removed = store.remove(pack.label).map_err(credential)?;
            if removed {
                writeln!(
                    out,
                    "Removed the stored login of `{}` ({}). The provider still honours the refresh \
                     token until you revoke charter's access in your account's security settings.",
                    pack.label,
                    path.display()
                )?;
            } else {
                writeln!(
                    out,
                    "`{}` has no stored login ({}).",
                    pack.label,
                    path.display()
                )?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn credential(e: impl std::fmt::Display) -> Failure {
    Failure::Credential(e.to_string())
}

fn store() -> Result<TokenStore, Failure> {
    TokenStore::open_default().map_err(credential)
}

/// The HTTP settings of the pack labelled `label`.
fn http_pack(tables: &[&'static Table], label: &str) -> Result<&'static HttpPack, Failure> {
    let args = PackArgs {
        packs: vec![label.to_owned()],
    };
    let table = packs::select(tables, &args)?[0];
    pack_of(table)
        .ok_or_else(|| Failure::Usage(format!("`{label}` has no HTTP tools, so no credential")))
}

fn pack_of(table: &'static Table) -> Option<&'static HttpPack> {
    table.tools.iter().find_map(|t| match t.exec {
        Exec::Http(route) => Some(route.pack),
        Exec::Rust(_) => None,
    })
}

fn login(
    args: AuthLoginArgs,
    tables: &[&'static Table],
    out: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    let pack = http_pack(tables, &args.pack)?;
    let loginable = |p: &HttpPack| matches!(p.auth, Auth::OAuth2(o) if o.grant == Grant::RefreshToken && !o.authorization_url.is_empty());
    if !loginable(pack) {
        let able: Vec<&str> = tables
            .iter()
            .filter_map(|t| pack_of(t))
            .filter(|p| loginable(p))
            .map(|p| p.label)
            .collect();
        return Err(Failure::Usage(format!(
            "`{}` does not log in through a browser (its credential is a key or token you set; \
             see `charter auth status`); packs that do: {}",
            pack.label,
            if able.is_empty() {
                "none".to_owned()
            } else {
                able.join(", ")
            }
        )));
    }
    if let Auth::OAuth2(oauth) = pack.auth {
        let unset: Vec<&str> = [oauth.client_id_env, oauth.client_secret_env]
            .into_iter()
            .filter(|env| !env.is_empty() && set(env) == "unset")
            .collect();
        if !unset.is_empty() {
            return Err(Failure::Credential(format!(
                "logging in to `{}` needs an OAuth client of your own: set {} (the pack's page \
                 in docs/packs/ says how to create one)",
                pack.label,
                unset.join(" and ")
            )));
        }
    }
    let store = store()?;
    let executor = crate::executor::executor().map_err(credential)?;
    let rt = runtime()?;
    let login = rt.block_on(async {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let redirect_uri = format!("http://{}/callback", listener.local_addr()?);
        let authorization = executor
            .login()
            .authorization(pack, &redirect_uri)
            .await
            .map_err(credential)?;
        writeln!(
            out,
            "Open this URL in a browser to let charter use `{}`:\n\n  {}\n\nWaiting for the \
             redirect to {redirect_uri} ...",
            pack.label, authorization.url
        )?;
        out.flush()?;
        let deadline = Instant::now() + Duration::from_secs(args.timeout);
        let code = receive_code(&listener, &authorization, deadline).await?;
        executor
            .login()
            .exchange_code(pack, &authorization, &code)
            .await
            .map_err(credential)
    })?;
    let path = store.save(pack.label, &login).map_err(credential)?;
    writeln!(
        out,
        "Logged in: the refresh token of `{}` is stored in {} (readable only by you); \
         `charter mcp --pack {}` uses it from now on.",
        pack.label,
        path.display(),
        pack.label
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Serves the loopback redirect until one brings a code with the right `state` (a request with
/// another state is refused and waiting goes on) or the provider reports an error.
async fn receive_code(
    listener: &TcpListener,
    authorization: &Authorization,
    deadline: Instant,
) -> Result<String, Failure> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let accepted = tokio::time::timeout(left, listener.accept()).await;
        let Ok(accepted) = accepted else {
            return Err(Failure::Credential(
                "no redirect arrived in time; run `charter auth login` again".to_owned(),
            ));
        };
        let (mut stream, _) = accepted?;
        let Some(target) = request_target(&mut stream).await else {
            continue;
        };
        let Some(query) = target.strip_prefix("/callback") else {
            reply(&mut stream, 404, "Not found.").await;
            continue;
        };
        let pairs: Vec<(String, String)> =
            reqwest::Url::parse(&format!("http://127.0.0.1/callback{query}"))
                .map(|u| u.query_pairs().into_owned().collect())
                .unwrap_or_default();
        let get = |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        if get("state") != Some(authorization.state.as_str()) {
            reply(&mut stream, 400, "This answer does not belong to the login in progress (state mismatch); it was ignored.").await;
            continue;
        }
        if let Some(error) = get("error") {
            reply(&mut stream, 400, "The login was refused; see the terminal.").await;
            let error = charter_runtime::http::oauth::token::error_code_text(error);
            return Err(Failure::Credential(format!(
                "the provider refused the login (`{error}`)"
            )));
        }
        let Some(code) = get("code").filter(|c| !c.is_empty()) else {
            reply(&mut stream, 400, "The redirect carries no code.").await;
            continue;
        };
        reply(
            &mut stream,
            200,
            "charter is logged in. You can close this window.",
        )
        .await;
        return Ok(code.to_owned());
    }
}

/// The request target of one HTTP/1 request (read up to the end of its head, at most 16 KiB).
async fn request_target(stream: &mut TcpStream) -> Option<String> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf))
            .await
            .ok()?
            .ok()?;
        if n == 0 || head.len() > 16 * 1024 {
            return None;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let line = head.split(|b| *b == b'\r').next()?;
    let line = std::str::from_utf8(line).ok()?;
    let mut parts = line.split(' ');
    let (method, target) = (parts.next()?, parts.next()?);
    (method == "GET").then(|| target.to_owned())
}

async fn reply(stream: &mut TcpStream, status: u16, text: &str) {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Bad Request",
    };
    let body = format!("<!doctype html><title>charter</title><p>{text}</p>\n");
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

fn status(
    args: &PackArgs,
    tables: &[&'static Table],
    out: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    let store = TokenStore::open_default().ok();
    for table in packs::select(tables, args)? {
        let Some(pack) = pack_of(table) else { continue };
        let line = match pack.auth {
            Auth::None => "no credential needed".to_owned(),
            Auth::OAuth2(oauth) => oauth_status(pack, oauth, store.as_ref()),
            _ => {
                let env = pack.auth.env().unwrap_or_default();
                format!("{env}: {}", set(env))
            }
        };
        writeln!(out, "{}: {line}", pack.label)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn set(env: &str) -> &'static str {
    match std::env::var_os(env) {
        Some(v) if !v.is_empty() => "set",
        _ => "unset",
    }
}

/// One OAuth 2 pack's sources, in the order the executor tries them, and which one wins.
fn oauth_status(pack: &HttpPack, oauth: &OAuth2, store: Option<&TokenStore>) -> String {
    let mut parts = Vec::new();
    let mut uses = None;
    if !oauth.access_token_env.is_empty() {
        let s = set(oauth.access_token_env);
        parts.push(format!("{} {s}", oauth.access_token_env));
        if s == "set" {
            uses = Some(format!(
                "the access token in {} (never renewed)",
                oauth.access_token_env
            ));
        }
    }
    let client_ready = set(oauth.client_id_env) == "set"
        && (oauth.client_secret_env.is_empty() || set(oauth.client_secret_env) == "set");
    for env in [oauth.client_id_env, oauth.client_secret_env] {
        if !env.is_empty() {
            parts.push(format!("{env} {}", set(env)));
        }
    }
    if oauth.grant == Grant::ClientCredentials {
        if uses.is_none() && client_ready {
            uses = Some("the client_credentials grant".to_owned());
        }
    } else {
        let s = set(oauth.refresh_token_env);
        parts.push(format!("{} {s}", oauth.refresh_token_env));
        if uses.is_none() && s == "set" && client_ready {
            uses = Some(format!("the refresh token in {}", oauth.refresh_token_env));
        }
        match store.map(|st| (st.load(pack.label), st.path(pack.label))) {
            Some((Ok(Some(login)), _)) => {
                let rotated = match login.rotated_at {
                    Some(at) => format!("refresh token rotated {}", ago(at)),
                    None => "refresh token never rotated".to_owned(),
                };
                parts.push(format!(
                    "stored login (logged in {}, {rotated}, client {})",
                    ago(login.created_at),
                    login.client_id
                ));
                if uses.is_none() && client_ready {
                    uses = Some("the stored login".to_owned());
                }
            }
            Some((Ok(None), _)) => parts.push("no stored login".to_owned()),
            Some((Err(e), _)) => parts.push(format!("stored login unusable: {e}")),
            None => {}
        }
    }
    let uses = uses.unwrap_or_else(|| {
        if oauth.grant == Grant::RefreshToken && !oauth.authorization_url.is_empty() {
            format!("nothing yet: run `charter auth login {}`", pack.label)
        } else {
            "nothing yet: set the variables above".to_owned()
        }
    });
    format!(
        "oauth2 {}; {}; uses {uses}",
        oauth.grant.as_str(),
        parts.join(", ")
    )
}

/// How long ago a Unix time was, in words.
fn ago(at: u64) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let secs = now.saturating_sub(at);
    match secs {
        0..120 => "just now".to_owned(),
        120..7200 => format!("{} minutes ago", secs / 60),
        7200..172_800 => format!("{} hours ago", secs / 3600),
        _ => format!("{} days ago", secs / 86_400),
    }
}
