//! Refresh tokens kept on disk by `charter auth login`, one file per pack, readable only by the
//! user: `<config>/credentials/<pack>.json` with mode 0600 in a 0700 directory.
//!
//! `<config>` is `$CHARTER_CONFIG_DIR`, else `$XDG_CONFIG_HOME/charter`, else
//! `~/.config/charter` (`%APPDATA%\charter` on Windows).
//!
//! Several processes use one login at once (each MCP client spawns its own `charter mcp`), and
//! a provider may rotate the refresh token on every renewal and accept each one once. So the
//! file is also the login's [`GrantStore`](super::shared::GrantStore): it holds the current
//! refresh token and the access token last obtained with its expiry, a renewal is made by one
//! process at a time under an OS file lock beside the file (`<pack>.json.lock`, see `lock`),
//! and every write goes to a temporary file in the same directory, synced, then renamed over
//! the old one (and the directory synced), so a crash at any point leaves either the old login
//! or the new one, never half of either.
//!
//! [`TokenStore`] is also a [`CredentialProvider`] answering refresh-token queries of the
//! process's own user (never one made for an end user of a multi-user host); an executor given
//! the store with [`HttpExecutorBuilder::stored_logins`](crate::http::HttpExecutorBuilder::stored_logins)
//! renews through it instead, rotation-safe.

mod lock;

use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::error::CharterError;
use crate::http::credentials::{CredentialKind, CredentialProvider, CredentialQuery, Secret};
use crate::table::BoxFuture;

pub use lock::LoginLock;

/// The variable that moves the config directory (tests, several profiles).
pub const CONFIG_DIR_ENV: &str = "CHARTER_CONFIG_DIR";

/// What `charter auth login` stored for one pack, and what renewals wrote back since.
#[derive(Clone)]
pub struct StoredLogin {
    /// The refresh token (the newest one, when the provider rotates them).
    pub refresh_token: Secret,
    /// The client it was issued to (not secret; shown by `charter auth status`).
    pub client_id: String,
    /// The scopes asked for.
    pub scopes: Vec<String>,
    /// The token endpoint it was obtained from.
    pub token_url: String,
    /// When, in seconds since the Unix epoch.
    pub created_at: u64,
    /// When a rotating provider last replaced the refresh token, in seconds since the Unix
    /// epoch (`None`: never).
    pub rotated_at: Option<u64>,
    /// The access token last obtained with it, which every process using the login shares.
    pub access: Option<StoredAccess>,
}

/// An access token kept beside the refresh token that obtained it.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredAccess {
    /// The access token.
    pub token: Secret,
    /// When it was obtained, in milliseconds since the Unix epoch.
    pub obtained_at_ms: u64,
    /// When it expires, in milliseconds since the Unix epoch (`None`: not said).
    pub expires_at_ms: Option<u64>,
}

impl fmt::Debug for StoredLogin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredLogin")
            .field("refresh_token", &self.refresh_token)
            .field("client_id", &self.client_id)
            .field("scopes", &self.scopes)
            .field("token_url", &self.token_url)
            .field("created_at", &self.created_at)
            .field("rotated_at", &self.rotated_at)
            .field("access", &self.access.as_ref().map(|_| "***"))
            .finish()
    }
}

#[derive(Serialize, Deserialize)]
struct File {
    refresh_token: String,
    client_id: String,
    #[serde(default)]
    scopes: Vec<String>,
    #[serde(default)]
    token_url: String,
    #[serde(default)]
    created_at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rotated_at: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    access_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    access_token_obtained_at_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    access_token_expires_at_ms: Option<u64>,
}

impl File {
    fn of(login: &StoredLogin) -> Self {
        let access = login.access.as_ref();
        File {
            refresh_token: login.refresh_token.expose().to_owned(),
            client_id: login.client_id.clone(),
            scopes: login.scopes.clone(),
            token_url: login.token_url.clone(),
            created_at: login.created_at,
            rotated_at: login.rotated_at,
            access_token: access.map(|a| a.token.expose().to_owned()),
            access_token_obtained_at_ms: access.map(|a| a.obtained_at_ms),
            access_token_expires_at_ms: access.and_then(|a| a.expires_at_ms),
        }
    }

    fn login(self) -> StoredLogin {
        let access = self
            .access_token
            .filter(|t| !t.is_empty())
            .map(|token| StoredAccess {
                token: Secret::new(token),
                obtained_at_ms: self.access_token_obtained_at_ms.unwrap_or(0),
                expires_at_ms: self.access_token_expires_at_ms,
            });
        StoredLogin {
            refresh_token: Secret::new(self.refresh_token),
            client_id: self.client_id,
            scopes: self.scopes,
            token_url: self.token_url,
            created_at: self.created_at,
            rotated_at: self.rotated_at,
            access,
        }
    }
}

/// Why the store could not be read or written. Names the file, never its content.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No config directory could be determined.
    #[error("no config directory: set {CONFIG_DIR_ENV}, XDG_CONFIG_HOME or HOME")]
    NoDirectory,
    /// A file operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not what `charter auth login` writes.
    #[error("{0}: not a stored login (delete it and run `charter auth login` again)")]
    Malformed(PathBuf),
    /// Others can read the file.
    #[error("{0}: readable by other users; run `chmod 600` on it (or log in again)")]
    TooOpen(PathBuf),
    /// Another process held the login's refresh lock for longer than the wait allowed.
    #[error("{path}: another charter process has held the refresh lock for over {waited_ms} ms")]
    Busy {
        /// The lock file.
        path: PathBuf,
        /// How long this process waited.
        waited_ms: u128,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + use<> {
    let path = path.to_owned();
    move |source| StoreError::Io { path, source }
}

/// The refresh tokens of one config directory.
#[derive(Debug, Clone)]
pub struct TokenStore {
    dir: PathBuf,
}

impl TokenStore {
    /// The store under the platform's config directory (see the module docs).
    pub fn open_default() -> Result<Self, StoreError> {
        default_dir().map(Self::at).ok_or(StoreError::NoDirectory)
    }

    /// The store under `config_dir` (files go in its `credentials/`).
    pub fn at(config_dir: impl Into<PathBuf>) -> Self {
        TokenStore {
            dir: config_dir.into().join("credentials"),
        }
    }

    /// The file holding `pack`'s login.
    pub fn path(&self, pack: &str) -> PathBuf {
        self.dir.join(format!("{pack}.json"))
    }

    /// The file whose OS lock makes `pack`'s renewals one at a time.
    pub fn lock_path(&self, pack: &str) -> PathBuf {
        self.dir.join(format!("{pack}.json.lock"))
    }

    /// `pack`'s login, if one is stored.
    pub fn load(&self, pack: &str) -> Result<Option<StoredLogin>, StoreError> {
        let path = self.path(pack);
        let text = match std::fs::read(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(StoreError::Io { path, source }),
        };
        check_private(&path)?;
        let file: File =
            serde_json::from_slice(&text).map_err(|_| StoreError::Malformed(path.clone()))?;
        if file.refresh_token.is_empty() {
            return Err(StoreError::Malformed(path));
        }
        Ok(Some(file.login()))
    }

    /// Stores `pack`'s login (replacing any) under its lock, so it never interleaves with a
    /// renewal another process is writing back. Returns its path.
    pub fn save(&self, pack: &str, login: &StoredLogin) -> Result<PathBuf, StoreError> {
        let lock = self.lock_blocking(pack)?;
        let path = self.write(pack, login);
        drop(lock);
        path
    }

    /// Writes `pack`'s file atomically: a new file created with mode 0600 in the same 0700
    /// directory, synced, renamed over the old one, the directory synced. The caller holds the
    /// lock, so leftovers of a writer that crashed are removed first.
    fn write(&self, pack: &str, login: &StoredLogin) -> Result<PathBuf, StoreError> {
        static WRITES: AtomicU64 = AtomicU64::new(0);
        create_private_dir(&self.dir).map_err(io(&self.dir))?;
        self.remove_leftovers(pack);
        let text = serde_json::to_vec_pretty(&File::of(login)).expect("a stored login serialises");
        let path = self.path(pack);
        let temp = self.dir.join(format!(
            ".{pack}.json.{}.{}",
            std::process::id(),
            WRITES.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_file(&temp);
        let written = (|| {
            let mut out = private_file(&temp).map_err(io(&temp))?;
            out.write_all(&text).map_err(io(&temp))?;
            out.sync_all().map_err(io(&temp))?;
            std::fs::rename(&temp, &path).map_err(io(&path))
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        written?;
        sync_dir(&self.dir).map_err(io(&self.dir))?;
        Ok(path)
    }

    /// Temporary files a writer left when it died between creating and renaming one.
    fn remove_leftovers(&self, pack: &str) {
        let prefix = format!(".{pack}.json.");
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }

    /// Deletes `pack`'s login; `false` when there was none.
    pub fn remove(&self, pack: &str) -> Result<bool, StoreError> {
        let path = self.path(pack);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(source) => Err(StoreError::Io { path, source }),
        }
    }
}

impl CredentialProvider for TokenStore {
    fn resolve<'a>(
        &'a self,
        query: &'a CredentialQuery,
    ) -> BoxFuture<'a, Result<Option<Secret>, CharterError>> {
        // Only the process's own user: a login on this machine never serves an end user.
        let answer = if query.kind == CredentialKind::RefreshToken && query.user.is_none() {
            self.load(query.pack)
                .map(|login| login.map(|l| l.refresh_token))
                .map_err(|e| CharterError::Credential(format!("stored login: {e}")))
        } else {
            Ok(None)
        };
        Box::pin(std::future::ready(answer))
    }
}

/// `$CHARTER_CONFIG_DIR`, `$XDG_CONFIG_HOME/charter`, `~/.config/charter` or
/// `%APPDATA%\charter`.
pub fn default_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var(CONFIG_DIR_ENV) {
        return Some(dir);
    }
    if cfg!(windows) {
        return var("APPDATA").map(|d| d.join("charter"));
    }
    var("XDG_CONFIG_HOME")
        .filter(|d| d.is_absolute())
        .map(|d| d.join("charter"))
        .or_else(|| var("HOME").map(|h| h.join(".config").join("charter")))
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(unix)]
fn private_options() -> std::fs::OpenOptions {
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut options = std::fs::OpenOptions::new();
    options.mode(0o600);
    options
}

#[cfg(not(unix))]
fn private_options() -> std::fs::OpenOptions {
    std::fs::OpenOptions::new()
}

fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    private_options().write(true).create_new(true).open(path)
}

/// Makes a rename in `dir` durable (on Unix a directory is synced through a handle to it).
#[cfg(unix)]
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn check_private(path: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::PermissionsExt as _;
    let meta = std::fs::metadata(path).map_err(io(path))?;
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(StoreError::TooOpen(path.to_owned()));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_: &Path) -> Result<(), StoreError> {
    Ok(())
}
