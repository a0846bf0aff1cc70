//! `charter auth` end to end, as a user runs it: the spawned binary logs in to the gmail pack
//! against a real OAuth 2 server (npm `oauth2-mock-server`, its `/authorize` standing in for the
//! browser's consent page: it redirects with a code), stores the refresh token (0600), and
//! `charter call` then reaches an API stub that accepts only tokens the server issued. Every
//! command runs with `RUST_LOG=trace` and no secret may appear in any of its output.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use charter_testkit::oauth::{ApiStub, OAuthServer, test_client};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_charter");
const CLIENT_ID: &str = "4711-charter.apps.example";
const CLIENT_SECRET: &str = "canary-google-client-secret-5e1";

/// The command with a clean environment for the gmail pack: its endpoints on 127.0.0.1, the
/// config directory in `config`, trace logging.
fn charter(args: &[&str], config: &Path, oauth: &OAuthServer, api: &ApiStub) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env("CHARTER_CONFIG_DIR", config)
        .env("CHARTER_GMAIL_TOKEN_URL", oauth.token_url())
        .env("CHARTER_GMAIL_AUTHORIZATION_URL", oauth.authorize_url())
        .env("CHARTER_GMAIL_BASE_URL", &api.base)
        .env("GOOGLE_CLIENT_ID", CLIENT_ID)
        .env("GOOGLE_CLIENT_SECRET", CLIENT_SECRET)
        .env("RUST_LOG", "trace")
        .env_remove("GOOGLE_ACCESS_TOKEN")
        .env_remove("GOOGLE_REFRESH_TOKEN")
        .env_remove("HTTP_PROXY")
        .env_remove("HTTPS_PROXY")
        .env_remove("http_proxy")
        .env_remove("https_proxy")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

/// The call every step makes: gmail's labels, which needs a token.
const LABELS: &[&str] = &["call", "gmail_labels_list", r#"{"user_id":"me"}"#];

/// Runs to completion, adding both outputs to the transcript checked for secrets.
async fn step(transcript: &mut String, cmd: Command) -> (i32, String, String) {
    let (code, out, err) = run(cmd).await;
    transcript.push_str(&out);
    transcript.push_str(&err);
    (code, out, err)
}

/// Runs to completion: (exit code, stdout, stderr).
async fn run(mut cmd: Command) -> (i32, String, String) {
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

fn query_of(url: &str) -> Vec<(String, String)> {
    reqwest::Url::parse(url)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_with_pkce_stores_a_private_refresh_token_that_calls_then_use() {
    let oauth = OAuthServer::start().await;
    oauth
        .control(json!({"clients": {CLIENT_ID: CLIENT_SECRET}}))
        .await;
    let api = ApiStub::start(&oauth).await;
    let config = tempdir();
    let mut transcript = String::new();

    // 1. `charter auth login gmail` prints the URL and waits for the redirect.
    let mut login = charter(&["auth", "login", "gmail"], &config, &oauth, &api)
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(login.stdout.take().unwrap());
    let mut url = String::new();
    while url.is_empty() {
        let mut line = String::new();
        let n = tokio::time::timeout(Duration::from_secs(30), stdout.read_line(&mut line))
            .await
            .expect("the URL is printed")
            .unwrap();
        assert!(n > 0, "login exited before printing a URL");
        transcript.push_str(&line);
        if let Some(u) = line.trim().strip_prefix(&oauth.authorize_url()) {
            url = format!("{}{u}", oauth.authorize_url());
        }
    }
    let params = query_of(&url);
    let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    assert_eq!(get("response_type").as_deref(), Some("code"));
    assert_eq!(get("client_id").as_deref(), Some(CLIENT_ID));
    assert_eq!(get("code_challenge_method").as_deref(), Some("S256"));
    assert_eq!(get("code_challenge").map(|c| c.len()), Some(43));
    assert_eq!(get("access_type").as_deref(), Some("offline"));
    assert_eq!(get("prompt").as_deref(), Some("consent"));
    assert!(
        get("scope")
            .unwrap()
            .contains("https://www.googleapis.com/auth/gmail.modify")
    );
    let redirect = get("redirect_uri").unwrap();
    assert!(
        redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"),
        "{redirect}"
    );
    assert!(
        !url.contains(CLIENT_SECRET),
        "the secret never goes in the URL"
    );

    // 2. An answer with another state (a forged redirect) is refused; the login goes on.
    let http = test_client();
    let forged = http
        .get(format!("{redirect}?code=forged&state=not-the-state"))
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 400);

    // 3. The "browser" opens the URL: the server redirects to the loopback with a code.
    let browser = reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::limited(3))
        .build()
        .unwrap();
    let page = browser.get(&url).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("charter is logged in"));
    let status = tokio::time::timeout(Duration::from_secs(30), login.wait())
        .await
        .unwrap()
        .unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).await.unwrap();
    let mut stderr = String::new();
    login
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .await
        .unwrap();
    transcript.push_str(&rest);
    transcript.push_str(&stderr);
    assert!(status.success(), "{transcript}");
    assert!(
        rest.contains("Logged in: the refresh token of `gmail` is stored in"),
        "{rest}"
    );
    let stats = oauth.stats().await;
    assert_eq!(stats["by_grant"]["authorization_code"], 1, "{stats}");

    // 4. The file holds the refresh token the server issued, readable only by the user.
    let file = config.join("credentials/gmail.json");
    let stored: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let issued = stats["issued_refresh"][0].as_str().unwrap();
    assert_eq!(stored["refresh_token"], issued);
    assert_eq!(stored["client_id"], CLIENT_ID);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dir = std::fs::metadata(file.parent().unwrap())
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(dir, 0o700);
    }

    // 5. `charter call` finds the stored login and the access token the login obtained: the
    //    API accepts it, with no renewal.
    assert!(stored["access_token"].is_string());
    let (code, out, err) = step(&mut transcript, charter(LABELS, &config, &oauth, &api)).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(r#""id":"johndoe""#), "{out}");
    assert_eq!(
        oauth.stats().await["by_grant"]["refresh_token"],
        Value::Null
    );

    // 5b. Once the API refuses that token, the stored refresh token renews it.
    oauth.control(json!({"revoke_all_access": true})).await;
    let (code, out, err) = step(&mut transcript, charter(LABELS, &config, &oauth, &api)).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(r#""id":"johndoe""#), "{out}");
    assert_eq!(oauth.stats().await["by_grant"]["refresh_token"], 1);

    // 6. `charter auth status` says what gmail uses, never a secret.
    let (code, out, err) = step(
        &mut transcript,
        charter(
            &["auth", "status", "--pack", "gmail,github"],
            &config,
            &oauth,
            &api,
        ),
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("gmail: oauth2 refresh_token;"), "{out}");
    assert!(out.contains("GOOGLE_ACCESS_TOKEN unset"), "{out}");
    assert!(out.contains("GOOGLE_CLIENT_SECRET set"), "{out}");
    assert!(
        out.contains(
            "stored login (logged in just now, refresh token never rotated, client \
             4711-charter.apps.example)"
        ),
        "{out}"
    );
    assert!(out.contains("uses the stored login"), "{out}");
    assert!(out.contains("github: GITHUB_TOKEN"), "{out}");

    // 7. A revoked refresh token: the call's error (what the model reads) says what to renew.
    oauth
        .control(json!({"revoke_refresh": [issued], "revoke_all_access": true}))
        .await;
    let (code, out, err) = step(&mut transcript, charter(LABELS, &config, &oauth, &api)).await;
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("`invalid_grant`"), "{out}");
    assert!(
        out.contains("run `charter auth login gmail`, or set GOOGLE_REFRESH_TOKEN"),
        "{out}"
    );

    // 8. Logout deletes the file; the next call says how to log in.
    let (code, out, err) = step(
        &mut transcript,
        charter(&["auth", "logout", "gmail"], &config, &oauth, &api),
    )
    .await;
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Removed the stored login of `gmail`"), "{out}");
    assert!(!file.exists());
    let (code, out, err) = step(&mut transcript, charter(LABELS, &config, &oauth, &api)).await;
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("run `charter auth login gmail`"), "{out}");

    // Trace logging was on throughout: no secret in any line of any command.
    assert!(transcript.contains("TRACE"), "trace logging was captured");
    let mut secrets = oauth.issued_secrets().await;
    secrets.push(CLIENT_SECRET.to_owned());
    for secret in &secrets {
        assert!(
            !transcript.contains(secret.as_str()),
            "a secret leaked:\n{transcript}"
        );
    }
}

#[tokio::test]
async fn login_refuses_a_pack_without_a_browser_login_and_names_those_with_one() {
    let oauth = OAuthServer::start().await;
    let api = ApiStub::start(&oauth).await;
    let config = tempdir();
    let (code, _, err) = run(charter(&["auth", "login", "github"], &config, &oauth, &api)).await;
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("`github` does not log in through a browser"),
        "{err}"
    );
    assert!(err.contains("gmail"), "{err}");
    let mut no_client = charter(&["auth", "login", "gmail"], &config, &oauth, &api);
    no_client.env_remove("GOOGLE_CLIENT_ID");
    let (code, _, err) = run(no_client).await;
    assert_eq!(code, 1);
    assert!(
        err.contains(
            "logging in to `gmail` needs an OAuth client of your own: set GOOGLE_CLIENT_ID"
        ),
        "{err}"
    );
}

fn tempdir() -> std::path::PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "charter-auth-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
