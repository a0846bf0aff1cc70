//! One stored login, many `charter` processes, against a real OAuth 2 server that rotates
//! refresh tokens and accepts each one once (npm `oauth2-mock-server`, `rotate: true`): the
//! spawned binaries renew one at a time under the login's file lock, write the new refresh token
//! back, and use what the first one obtained. Every process logs at debug level and no secret
//! may appear in any of its output.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use charter_testkit::oauth::{ApiStub, OAuthServer};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

const BIN: &str = env!("CARGO_BIN_EXE_charter");
const CLIENT_ID: &str = "4711-charter.apps.example";
const CLIENT_SECRET: &str = "canary-google-client-secret-5e1";
/// The refresh token the login starts with (a canary: it must never be printed).
const FIRST_REFRESH: &str = "canary-first-refresh-token-0b7";
/// An access token that expired an hour ago.
const EXPIRED_ACCESS: &str = "canary-expired-access-token-91c";

/// The command for the gmail pack with its endpoints on 127.0.0.1 and the login in `config`.
fn charter(args: &[&str], config: &Path, oauth: &OAuthServer, api: &ApiStub) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env("CHARTER_CONFIG_DIR", config)
        .env("CHARTER_GMAIL_TOKEN_URL", oauth.token_url())
        .env("CHARTER_GMAIL_BASE_URL", &api.base)
        .env("GOOGLE_CLIENT_ID", CLIENT_ID)
        .env("GOOGLE_CLIENT_SECRET", CLIENT_SECRET)
        .env("RUST_LOG", "debug")
        .env_remove("GOOGLE_ACCESS_TOKEN")
        .env_remove("GOOGLE_REFRESH_TOKEN")
        .env_remove("HTTP_PROXY")
        .env_remove("HTTPS_PROXY")
        .env_remove("http_proxy")
        .env_remove("https_proxy")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

/// A server that rotates refresh tokens, and a stored login whose access token has expired.
async fn world() -> (OAuthServer, ApiStub, PathBuf) {
    let oauth = OAuthServer::start().await;
    oauth
        .control(json!({
            "clients": {CLIENT_ID: CLIENT_SECRET},
            "refresh_tokens": {FIRST_REFRESH: "johndoe"},
            "rotate": true,
        }))
        .await;
    let api = ApiStub::start(&oauth).await;
    let config = tempdir();
    let dir = config.join("credentials");
    std::fs::create_dir_all(&dir).unwrap();
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let login = json!({
        "refresh_token": FIRST_REFRESH,
        "client_id": CLIENT_ID,
        "scopes": ["https://www.googleapis.com/auth/gmail.modify"],
        "token_url": oauth.token_url(),
        "created_at": now_ms / 1000 - 86_400,
        "access_token": EXPIRED_ACCESS,
        "access_token_obtained_at_ms": now_ms - 7_200_000,
        "access_token_expires_at_ms": now_ms - 3_600_000,
    });
    write_private(&dir.join("gmail.json"), &login);
    (oauth, api, config)
}

#[cfg(unix)]
fn write_private(path: &Path, value: &Value) {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    std::fs::set_permissions(
        path.parent().unwrap(),
        std::fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .unwrap();
    std::io::Write::write_all(&mut file, value.to_string().as_bytes()).unwrap();
}

#[cfg(not(unix))]
fn write_private(path: &Path, value: &Value) {
    std::fs::write(path, value.to_string()).unwrap();
}

fn stored(config: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(config.join("credentials/gmail.json")).unwrap()).unwrap()
}

/// A `charter mcp --pack gmail` over stdio, spoken to in raw JSON-RPC lines.
struct Mcp {
    child: Child,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Mcp {
    async fn start(config: &Path, oauth: &OAuthServer, api: &ApiStub) -> Self {
        let mut child = charter(&["mcp", "--pack", "gmail"], config, oauth, api)
            .spawn()
            .unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut mcp = Mcp { child, lines };
        mcp.send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}}),
        )
        .await;
        let answer = mcp.next().await;
        assert_eq!(answer["id"], 1, "{answer}");
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        mcp
    }

    async fn send(&mut self, message: &Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(60), self.lines.next_line())
            .await
            .expect("an answer within 60 s")
            .unwrap()
            .expect("the server is still running");
        serde_json::from_str(&line).unwrap()
    }

    /// Sends `n` calls of gmail's labels at once and returns how many succeeded for johndoe.
    async fn calls(&mut self, n: u64) -> usize {
        let mut batch = String::new();
        for id in 0..n {
            let call = json!({"jsonrpc": "2.0", "id": 100 + id, "method": "tools/call",
                "params": {"name": "gmail_labels_list", "arguments": {"user_id": "me"}}});
            batch.push_str(&format!("{call}\n"));
        }
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(batch.as_bytes()).await.unwrap();
        let mut ok = 0;
        for _ in 0..n {
            let answer = self.next().await;
            let result = &answer["result"];
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            if result["isError"] != json!(true) && text.contains("johndoe") {
                ok += 1;
            } else {
                eprintln!("a call failed: {answer}");
            }
        }
        ok
    }

    /// Closes stdin, waits for the exit and returns stderr.
    async fn finish(mut self) -> String {
        drop(self.child.stdin.take());
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .await
            .unwrap();
        let status = tokio::time::timeout(Duration::from_secs(30), self.child.wait())
            .await
            .unwrap()
            .unwrap();
        assert!(status.success(), "{stderr}");
        stderr
    }
}

/// Runs to completion: (exit code, stdout, stderr).
async fn run(mut cmd: Command) -> (i32, String, String) {
    cmd.stdin(Stdio::null());
    let out = tokio::time::timeout(Duration::from_secs(60), cmd.output())
        .await
        .expect("the command finished")
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const LABELS: &[&str] = &["call", "gmail_labels_list", r#"{"user_id":"me"}"#];

async fn assert_no_secret(oauth: &OAuthServer, transcript: &str) {
    let mut secrets = oauth.issued_secrets().await;
    secrets.extend([CLIENT_SECRET, FIRST_REFRESH, EXPIRED_ACCESS].map(str::to_owned));
    for secret in &secrets {
        assert!(
            !transcript.contains(secret.as_str()),
            "a secret leaked:\n{transcript}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_processes_on_one_rotating_login_renew_once_and_the_newest_token_is_stored() {
    let (oauth, api, config) = world().await;
    let mut servers = Vec::new();
    for _ in 0..5 {
        servers.push(Mcp::start(&config, &oauth, &api).await);
    }
    // Every process sends its 20 calls at once, all processes together.
    let results = futures::future::join_all(servers.iter_mut().map(|s| s.calls(20))).await;
    let mut transcript = String::new();
    for server in servers {
        transcript.push_str(&server.finish().await);
    }
    assert_eq!(results, vec![20; 5], "100 of 100 calls succeed");
    let stats = oauth.stats().await;
    assert_eq!(
        stats["token_requests"], 1,
        "exactly one token request: {stats}"
    );
    assert_eq!(stats["spent_reused"], 0, "{stats}");

    // The file holds the newest refresh token, and says it rotated.
    let newest = stats["issued_refresh"].as_array().unwrap().last().cloned();
    let file = stored(&config);
    assert_eq!(Some(file["refresh_token"].clone()), newest, "{stats}");
    assert!(file["rotated_at"].as_u64().is_some());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(config.join("credentials/gmail.json")).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    }
    let leftovers: Vec<String> = std::fs::read_dir(config.join("credentials"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // A sixth process, after the API stopped accepting every access token issued so far: it
    // must renew with the stored refresh token, which works only if it is the newest.
    oauth.control(json!({"revoke_all_access": true})).await;
    let (code, out, err) = run(charter(LABELS, &config, &oauth, &api)).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("johndoe"), "{out}");
    let stats = oauth.stats().await;
    assert_eq!(stats["token_requests"], 2, "{stats}");
    let newest = stats["issued_refresh"].as_array().unwrap().last().cloned();
    assert_eq!(Some(stored(&config)["refresh_token"].clone()), newest);

    // `charter auth status` says when it rotated, never a secret.
    let (code, status, err) = run(charter(
        &["auth", "status", "--pack", "gmail"],
        &config,
        &oauth,
        &api,
    ))
    .await;
    assert_eq!(code, 0, "{err}");
    assert!(
        status.contains("refresh token rotated just now"),
        "{status}"
    );
    transcript.push_str(&out);
    transcript.push_str(&err);
    transcript.push_str(&status);
    assert!(transcript.contains("DEBUG"), "debug logging was captured");
    assert_no_secret(&oauth, &transcript).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_killed_while_renewing_loses_nothing_and_the_others_proceed() {
    let (oauth, api, config) = world().await;
    // The token endpoint takes 30 s: the first process is still waiting when it is killed.
    oauth
        .control(json!({"mode": "slow", "delay_ms": 30_000}))
        .await;
    let mut holder = charter(LABELS, &config, &oauth, &api).spawn().unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while oauth.token_requests().await == 0 {
        assert!(tokio::time::Instant::now() < deadline, "no token request");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Two more processes wait for the lock the first one holds: each says so on stderr once it
    // is blocked, which is when the count below means something.
    let (blocked, mut told) = tokio::sync::mpsc::unbounded_channel();
    let waiting: Vec<_> = (0..2)
        .map(|_| {
            let mut cmd = charter(LABELS, &config, &oauth, &api);
            cmd.stdin(Stdio::null());
            let mut child = cmd.spawn().unwrap();
            let stderr = child.stderr.take().unwrap();
            let blocked = blocked.clone();
            let stderr = tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                let mut all = String::new();
                while let Ok(Some(line)) = lines.next_line().await {
                    if line.contains("waiting for the login's refresh lock") {
                        let _ = blocked.send(());
                    }
                    all.push_str(&line);
                    all.push('\n');
                }
                all
            });
            (child, stderr)
        })
        .collect();
    drop(blocked);
    for _ in 0..2 {
        tokio::time::timeout(Duration::from_secs(30), told.recv())
            .await
            .expect("both processes reach the lock")
            .expect("a process said it waits");
    }
    assert_eq!(oauth.token_requests().await, 1, "the others wait");
    // Back to normal before the kill: the holder's request keeps the delay it arrived with, and
    // a waiting process that takes the lock at once must not meet the slow mode (its own 15 s
    // token timeout would end it on a loaded machine before the test switched modes).
    oauth.control(json!({"mode": "normal"})).await;
    holder.start_kill().unwrap();
    holder.wait().await.unwrap();
    // Nothing was lost: the login holds the token the killed process had sent, or the one a
    // waiting process has already renewed it into.
    let held = stored(&config)["refresh_token"].clone();
    let issued = oauth.stats().await["issued_refresh"].clone();
    assert!(
        held == FIRST_REFRESH || issued.as_array().is_some_and(|i| i.contains(&held)),
        "the login holds neither the first refresh token nor an issued one"
    );
    let mut transcript = String::new();
    for (child, stderr) in waiting {
        let output = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
            .await
            .expect("the command finished")
            .unwrap();
        let (code, out) = (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        );
        let err = stderr.await.unwrap();
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("johndoe"), "{out}");
        transcript.push_str(&out);
        transcript.push_str(&err);
    }
    let stats = oauth.stats().await;
    // The killed process's request was never processed; one renewal served both others.
    assert_eq!(stats["by_grant"]["refresh_token"], 1, "{stats}");
    assert_eq!(stats["spent_reused"], 0, "{stats}");
    let newest = stats["issued_refresh"].as_array().unwrap().last().cloned();
    assert_eq!(Some(stored(&config)["refresh_token"].clone()), newest);
    assert_no_secret(&oauth, &transcript).await;
}

fn tempdir() -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "charter-shared-login-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
