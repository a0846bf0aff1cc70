//! Refresh tokens kept on disk by `charter auth login`, one file per pack, readable only by the
//! user: `<config>/credentials/<pack>.json` with mode 0600 in a 0700 directory.
//!
//! `<config>` is `$CHARTER_CONFIG_DIR`, else `$XDG_CONFIG_HOME/charter`, else
//! `~/.config/charter` (`%APPDATA%\charter` on Windows). [`TokenStore`] is also a
//! [`CredentialProvider`] answering refresh-token queries of the process's own user (never one
//! made for an end user of a multi-user host).

use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::CharterError;
use crate::http::credentials::{CredentialKind, CredentialProvider, CredentialQuery, Secret};
use crate::table::BoxFuture;

/// The variable that moves the config directory (tests, several profiles).
pub const CONFIG_DIR_ENV: &str = "CHARTER_CONFIG_DIR";

/// What `charter auth login` stored for one pack.
#[derive(Clone)]
pub struct StoredLogin {
    /// The refresh token.
    pub refresh_token: Secret,
    /// The client it was issued to (not secret; shown by `charter auth status`).
    pub client_id: String,
    /// The scopes asked for.
    pub scopes: Vec<String>,
    /// The token endpoint it was obtained from.
    pub token_url: String,
    /// When, in seconds since the Unix epoch.
    pub created_at: u64,
}

impl fmt::Debug for StoredLogin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredLogin")
            .field("refresh_token", &self.refresh_token)
            .field("client_id", &self.client_id)
            .field("scopes", &self.scopes)
            .field("token_url", &self.token_url)
            .field("created_at", &self.created_at)
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
        Ok(Some(StoredLogin {
            refresh_token: Secret::new(file.refresh_token),
            client_id: file.client_id,
            scopes: file.scopes,
            token_url: file.token_url,
            created_at: file.created_at,
        }))
    }

    /// Stores `pack`'s login (replacing any), created with mode 0600 and renamed into place so
    /// no reader sees half a file. Returns its path.
    pub fn save(&self, pack: &str, login: &StoredLogin) -> Result<PathBuf, StoreError> {
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| StoreError::Io { path, source }
        };
        create_private_dir(&self.dir).map_err(io(&self.dir))?;
        let file = File {
            refresh_token: login.refresh_token.expose().to_owned(),
            client_id: login.client_id.clone(),
            scopes: login.scopes.clone(),
            token_url: login.token_url.clone(),
            created_at: login.created_at,
        };
        let text = serde_json::to_vec_pretty(&file).expect("a stored login serialises");
        let path = self.path(pack);
        let temp = self
            .dir
            .join(format!(".{pack}.json.{}", std::process::id()));
        let _ = std::fs::remove_file(&temp);
        let mut out = private_file(&temp).map_err(io(&temp))?;
        out.write_all(&text).map_err(io(&temp))?;
        out.sync_all().map_err(io(&temp))?;
        std::fs::rename(&temp, &path).map_err(io(&path))?;
        Ok(path)
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
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

#[cfg(unix)]
fn check_private(path: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::PermissionsExt as _;
    let meta = std::fs::metadata(path).map_err(|source| StoreError::Io {
        path: path.to_owned(),
        source,
    })?;
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(StoreError::TooOpen(path.to_owned()));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_: &Path) -> Result<(), StoreError> {
    Ok(())
}
