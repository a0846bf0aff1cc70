//! A fleet: several `charter mcp --http --store redis://...` instances (the spawned binary)
//! sharing a real Redis on 127.0.0.1 (`charter_testkit::redis`, Debian's `redis-server`), against
//! a real OAuth 2 server that rotates refresh tokens and accepts each once (npm
//! `oauth2-mock-server`) and an API that accepts only the tokens it issued. Each instance logs at
//! debug level; no secret may show in any log or in any byte Redis holds.

#[path = "fleet/parts.rs"]
mod parts;

use std::time::{Duration, Instant};

use charter_testkit::redis::Redis;
use parts::{Instance, Session, assert_none_in, http, redis_dump, secrets, world};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_instances_renew_once_for_300_calls_and_the_newest_token_survives_them() {
    let redis = Redis::start();
    let (oauth, api) = world().await;
    let mut instances = Vec::new();
    for _ in 0..3 {
        instances.push(Instance::start(&redis.url(), &oauth, &api, &[]).await);
    }
    assert!(
        instances[0]
            .log()
            .contains("charter: sharing OAuth 2 tokens"),
        "{}",
        instances[0].log()
    );
    let client = http();
    let mut sessions = Vec::new();
    for instance in &instances {
        sessions.push(Session::open(&client, &instance.url).await);
    }
    // 300 calls at once, 100 through each instance.
    let calls = (0..300).map(|i| {
        let (session, url) = (sessions[i % 3].clone(), instances[i % 3].url.clone());
        async move { session.labels(&url).await }
    });
    let answers = futures::future::join_all(calls).await;
    let ok = answers
        .iter()
        .filter(|a| !a.is_tool_error() && a.text().contains("johndoe"))
        .count();
    assert_eq!(ok, 300, "e.g. {}", answers[0].body);
    let stats = oauth.stats().await;
    assert_eq!(stats["token_requests"], 1, "exactly one renewal: {stats}");
    assert_eq!(stats["spent_reused"], 0, "{stats}");

    // All three exit. A fourth starts configured with the first refresh token, which is spent:
    // once every access token is refused, it can renew only with the newest one, from Redis.
    let mut logs: Vec<String> = instances.iter().map(Instance::log).collect();
    drop(instances);
    oauth.control(json!({"revoke_all_access": true})).await;
    let fourth = Instance::start(&redis.url(), &oauth, &api, &[]).await;
    let session = Session::open(&client, &fourth.url).await;
    let answer = session.labels(&fourth.url).await;
    assert!(answer.text().contains("johndoe"), "{}", answer.body);
    let stats = oauth.stats().await;
    assert_eq!(stats["token_requests"], 2, "{stats}");
    assert_eq!(stats["spent_reused"], 0, "{stats}");
    logs.push(fourth.log());

    // What Redis holds, key by key: grants, locks, rate counters, sessions; never a secret,
    // never a session id.
    let mut secrets = secrets(&oauth).await;
    secrets.extend(sessions.iter().map(|s| s.id.clone()));
    secrets.push(session.id.clone());
    let dump = redis_dump(&redis.url()).await;
    assert!(
        dump.iter().any(|(k, _)| k.starts_with("charter:grant:")),
        "{:?}",
        dump.iter().map(|(k, _)| k).collect::<Vec<_>>()
    );
    assert!(dump.iter().any(|(k, _)| k.starts_with("charter:session:")));
    for (key, value) in &dump {
        assert_none_in(&secrets, key.as_bytes(), "a Redis key name");
        assert_none_in(&secrets, value, &format!("the value at {key}"));
    }
    let all = logs.concat();
    assert!(all.contains("DEBUG"), "debug logging was captured");
    assert_none_in(&secrets, all.as_bytes(), "an instance's log");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_per_caller_rate_limit_holds_across_the_fleet() {
    let redis = Redis::start();
    let (oauth, api) = world().await;
    let mut instances = Vec::new();
    for _ in 0..3 {
        let instance = Instance::start(&redis.url(), &oauth, &api, &["--rate-limit", "10"]).await;
        instances.push(instance);
    }
    // One caller (this machine's address, no session) sends about 60 requests a second, spread
    // over the three instances, for three seconds.
    let client = http();
    let started = Instant::now();
    let mut last = started;
    let (mut admitted, mut refused) = (0u32, 0u32);
    let mut tick = tokio::time::interval(Duration::from_millis(16));
    for i in 0..180 {
        tick.tick().await;
        let response = client
            .post(&instances[i % 3].url)
            .header("Accept", "application/json, text/event-stream")
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
            .send()
            .await
            .unwrap();
        last = Instant::now();
        if response.status() == 429 {
            refused += 1;
        } else {
            admitted += 1;
        }
    }
    // 10 a second with bursts of 20: 20 at once, then one every 100 ms.
    let elapsed = (last - started).as_secs_f64();
    let limit = 20.0 + 10.0 * elapsed;
    let off = (f64::from(admitted) - limit).abs() / limit;
    eprintln!(
        "fleet rate: {admitted} admitted, {refused} refused in {elapsed:.2} s; limit {limit:.1}"
    );
    assert!(
        off <= 0.10,
        "{admitted} admitted ({refused} refused) in {elapsed:.2} s against a fleet-wide limit \
         of {limit:.0}: {:.0} % off",
        off * 100.0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_progressive_session_started_on_one_instance_is_served_by_the_others_with_its_tools() {
    let redis = Redis::start();
    let (oauth, api) = world().await;
    let mut instances = Vec::new();
    for _ in 0..3 {
        let instance = Instance::start(&redis.url(), &oauth, &api, &["--progressive"]).await;
        instances.push(instance);
    }
    let (a, b, c) = (&instances[0].url, &instances[1].url, &instances[2].url);
    let client = http();
    let session = Session::open(&client, a).await;
    assert_eq!(session.list(a).await.tool_names(), ["ToolSearch"]);
    let search = |query: &str| json!({"query": query});
    let loaded = session
        .call(a, "ToolSearch", search("select:gmail_labels_list"))
        .await;
    assert!(!loaded.is_tool_error(), "{}", loaded.body);

    // The next request goes to another instance, which never saw the session.
    let listed = session.list(b).await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert_eq!(listed.tool_names(), ["ToolSearch", "gmail_labels_list"]);
    let answer = session.labels(b).await;
    assert!(answer.text().contains("johndoe"), "{}", answer.body);

    // A load on a third instance reaches the first, which holds the session in memory.
    let more = session
        .call(c, "ToolSearch", search("select:gmail_labels_get"))
        .await;
    assert!(!more.is_tool_error(), "{}", more.body);
    assert_eq!(
        session.list(a).await.tool_names(),
        ["ToolSearch", "gmail_labels_list", "gmail_labels_get"]
    );

    // A session nobody started is unknown everywhere.
    let forged = Session {
        id: "not-a-session".to_owned(),
        ..session.clone()
    };
    assert_eq!(forged.list(b).await.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_session_answers_only_the_caller_that_started_it_on_every_instance() {
    const ALICE: &str = "alice-key-0123456789abcdef";
    const BOB: &str = "bob-key-0123456789abcdef01";
    let redis = Redis::start();
    let (oauth, api) = world().await;
    let dir = std::env::temp_dir().join(format!("charter-fleet-auth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("auth.yaml"), "api_keys: keys.yaml\n").unwrap();
    std::fs::write(
        dir.join("keys.yaml"),
        format!("keys:\n  - key: {ALICE}\n    subject: alice\n  - key: {BOB}\n    subject: bob\n"),
    )
    .unwrap();
    let auth = dir.join("auth.yaml");
    let mut instances = Vec::new();
    for _ in 0..2 {
        let args = ["--auth", auth.to_str().unwrap()];
        instances.push(Instance::start(&redis.url(), &oauth, &api, &args).await);
    }
    let (a, b) = (&instances[0].url, &instances[1].url);
    let client = http();
    let alice = Session::open_as(&client, a, Some(&format!("Bearer {ALICE}"))).await;
    assert_eq!(alice.list(a).await.status, 200);
    // Bob holding Alice's session id, on the instance that never saw it: refused.
    let bob = Session {
        auth: Some(format!("Bearer {BOB}")),
        ..alice.clone()
    };
    let refused = bob.list(b).await;
    assert!(refused.body.contains("another caller"), "{}", refused.body);
    assert!(refused.tool_names().is_empty(), "{}", refused.body);
    // Alice, there: served.
    let listed = alice.list(b).await;
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert!(
        listed
            .tool_names()
            .contains(&"gmail_labels_list".to_owned())
    );
    let mut secrets = secrets(&oauth).await;
    secrets.extend([ALICE, BOB, alice.id.as_str()].map(str::to_owned));
    for (key, value) in redis_dump(&redis.url()).await {
        assert_none_in(&secrets, key.as_bytes(), "a Redis key name");
        assert_none_in(&secrets, &value, &format!("the value at {key}"));
    }
    for instance in &instances {
        assert_none_in(&secrets, instance.log().as_bytes(), "an instance's log");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_stopped_mid_run_gives_clear_errors_and_service_resumes_when_it_is_back() {
    let mut redis = Redis::start();
    let (oauth, api) = world().await;
    let mut instances = Vec::new();
    for _ in 0..3 {
        instances.push(Instance::start(&redis.url(), &oauth, &api, &[]).await);
    }
    let client = http();
    let (a, b) = (instances[0].url.clone(), instances[1].url.clone());
    let session = Session::open(&client, &a).await;
    for instance in &instances {
        let s = Session::open(&client, &instance.url).await;
        assert!(s.labels(&instance.url).await.text().contains("johndoe"));
    }

    redis.stop();
    // A token each instance holds in memory still serves; the rate limit is counted here.
    for instance in &instances {
        let s = Session::open(&client, &instance.url).await;
        for _ in 0..3 {
            let answer = s.labels(&instance.url).await;
            assert!(answer.text().contains("johndoe"), "{}", answer.body);
        }
    }
    // A renewal needs the store: the model reads why.
    oauth.control(json!({"revoke_all_access": true})).await;
    let answer = session.labels(&a).await;
    assert!(answer.is_tool_error(), "{}", answer.body);
    let text = answer.text();
    assert!(
        text.contains(&format!(
            "the shared store (redis://127.0.0.1:{}",
            redis.port
        )) && text.contains(") is unreachable"),
        "{text}"
    );
    assert!(text.contains("try again later"), "{text}");
    // A session another instance started cannot be restored meanwhile: said, not hidden.
    let restored = session.list(&b).await;
    assert_eq!(restored.status, 500, "{}", restored.body);
    assert!(restored.body.contains("unreachable"), "{}", restored.body);

    redis.restart();
    // Service resumes: the renewal uses the newest refresh token, which Redis kept.
    let deadline = Instant::now() + Duration::from_secs(20);
    let answer = loop {
        let answer = session.labels(&a).await;
        if answer.text().contains("johndoe") || Instant::now() > deadline {
            break answer;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(answer.text().contains("johndoe"), "{}", answer.body);
    // An instance retries the store at most twice a second while it is down.
    let listed = loop {
        let listed = session.list(&b).await;
        if listed.status == 200 || Instant::now() > deadline {
            break listed;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(listed.status, 200, "{}", listed.body);
    assert_eq!(oauth.stats().await["spent_reused"], 0);

    // No panic; each outage logged once per instance, and its end.
    for instance in &mut instances {
        assert!(instance.alive(), "{}", instance.log());
        let log = instance.log();
        assert!(!log.contains("panicked"), "{log}");
        let outages = log
            .matches("calls that need the shared store fail until it is back")
            .count();
        assert_eq!(outages, 1, "{log}");
    }
    assert!(
        instances[0]
            .log()
            .contains("the shared store is reachable again")
    );
    let secrets = secrets(&oauth).await;
    for instance in &instances {
        assert_none_in(&secrets, instance.log().as_bytes(), "an instance's log");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_killed_while_holding_the_refresh_lock_blocks_the_others_only_until_it_expires()
{
    let redis = Redis::start();
    let (oauth, api) = world().await;
    let mut instances = Vec::new();
    for _ in 0..3 {
        instances.push(Instance::start(&redis.url(), &oauth, &api, &[]).await);
    }
    let client = http();
    let mut sessions = Vec::new();
    for instance in &instances {
        sessions.push(Session::open(&client, &instance.url).await);
    }
    // The token endpoint hangs: the first instance holds the lock while it waits.
    oauth
        .control(json!({"mode": "slow", "delay_ms": 60_000}))
        .await;
    let holder = {
        let (session, url) = (sessions[0].clone(), instances[0].url.clone());
        tokio::spawn(async move { session.labels(&url).await })
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while oauth.token_requests().await == 0 {
        assert!(Instant::now() < deadline, "no token request");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let started = Instant::now();
    let waiting: Vec<_> = (1..3)
        .map(|i| {
            let (session, url) = (sessions[i].clone(), instances[i].url.clone());
            tokio::spawn(async move { session.labels(&url).await })
        })
        .collect();
    // Each says so in its log once it is blocked, which is when the count below means something.
    while !instances[1..]
        .iter()
        .all(|i| i.log().contains("waiting for the login's refresh lock"))
    {
        assert!(
            Instant::now() < deadline,
            "the others never reached the lock"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(oauth.token_requests().await, 1, "the others wait");
    instances[0].child.start_kill().unwrap();
    instances[0].child.wait().await.unwrap();
    oauth.control(json!({"mode": "normal"})).await;
    for task in waiting {
        let answer = task.await.unwrap();
        assert!(answer.text().contains("johndoe"), "{}", answer.body);
    }
    let waited = started.elapsed();
    // The lock lives 10 s without its holder extending it; the token request alone takes 60.
    assert!(waited < Duration::from_secs(30), "{waited:?}");
    let _ = holder.await;
    let stats = oauth.stats().await;
    assert_eq!(stats["by_grant"]["refresh_token"], 1, "{stats}");
    assert_eq!(stats["spent_reused"], 0, "{stats}");
}

#[test]
fn a_store_without_its_key_or_at_a_tls_url_is_refused_at_start() {
    let run = |url: &str, key: Option<&str>| {
        let mut cmd = std::process::Command::new(parts::BIN);
        cmd.args([
            "mcp",
            "--http",
            "127.0.0.1:0",
            "--pack",
            "gmail",
            "--store",
            url,
        ])
        .env_remove("CHARTER_STORE_KEY")
        .env_remove("CHARTER_STORE_KEY_PREVIOUS");
        if let Some(key) = key {
            cmd.env("CHARTER_STORE_KEY", key);
        }
        let out = cmd.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run("redis://127.0.0.1:1", None);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("CHARTER_STORE_KEY is not set"), "{err}");
    assert!(err.contains("openssl rand -base64 32"), "{err}");
    let (code, err) = run("redis://127.0.0.1:1", Some("not-a-key-canary"));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("must hold 32 random bytes"), "{err}");
    assert!(!err.contains("not-a-key-canary"), "{err}");
    let (code, err) = run("rediss://:pw-canary@127.0.0.1:1", Some(parts::STORE_KEY));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("TLS (rediss://) is not built in"), "{err}");
    assert!(!err.contains("pw-canary"), "{err}");
}
