//! A real Redis server on 127.0.0.1 for the tests of a fleet's shared store (Debian's
//! `redis-server`, which `.ci/run` installs): started on a free port with its own directory,
//! stopped and started again on the same port with its data (append-only file, synced on every
//! write, as a deployment that keeps rotated refresh tokens must run it), killed on drop.
//!
//! Without `redis-server` the test fails and says what to install: it never passes without
//! running. `CHARTER_REDIS_SERVER` may name the binary.

use std::io::Read as _;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running (or stopped) Redis server.
pub struct Redis {
    child: Option<Child>,
    /// Its port on 127.0.0.1.
    pub port: u16,
    dir: PathBuf,
}

fn binary() -> PathBuf {
    std::env::var_os("CHARTER_REDIS_SERVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("redis-server"))
}

impl Redis {
    /// Starts a server on a free port of 127.0.0.1 and waits until it answers.
    pub fn start() -> Redis {
        let works = Command::new(binary())
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(
            works,
            "this test needs a Redis server and `redis-server` is not installed: install it \
             (Debian/Ubuntu: `apt-get install redis-server`), or set CHARTER_REDIS_SERVER to \
             its path"
        );
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let dir = std::env::temp_dir().join(format!("charter-redis-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a directory for Redis");
        let mut redis = Redis {
            child: None,
            port,
            dir,
        };
        redis.restart();
        redis
    }

    /// `redis://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Stops the server (SIGKILL: what it wrote is on disk already).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port with its data, and waits until it answers.
    pub fn restart(&mut self) {
        self.stop();
        let child = Command::new(binary())
            .args(["--bind", "127.0.0.1", "--port"])
            .arg(self.port.to_string())
            .arg("--dir")
            .arg(&self.dir)
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--protected-mode",
                "yes",
                "--daemonize",
                "no",
                "--loglevel",
                "warning",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.answers() {
            assert!(
                Instant::now() < deadline,
                "redis-server did not answer on port {} within 20 s",
                self.port
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether it answers `PING`.
    fn answers(&self) -> bool {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
        if std::io::Write::write_all(&mut stream, b"PING\r\n").is_err() {
            return false;
        }
        let mut answer = [0u8; 7];
        stream.read_exact(&mut answer).is_ok() && &answer == b"+PONG\r\n"
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
