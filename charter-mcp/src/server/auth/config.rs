//! The auth file (`charter mcp --http ADDR --auth FILE`), in YAML: who may call, and what each
//! caller gets.
//!
//! ```yaml
//! resource: https://mcp.example.com/mcp       # this server's canonical URL: a JWT's `aud`
//! issuers:
//!   - issuer: https://login.example.com       # jwks_uri discovered from its metadata
//!   - issuer: https://other.example.com
//!     jwks_uri: https://other.example.com/keys
//! api_keys: keys.yaml                         # relative to this file
//! scopes_supported: [charter:read, charter:write]
//! callers:                                    # first match wins; no match: 403
//!   - subject: alice
//!     packs: [github]
//!     credentials_user: $subject               # per-user credentials keyed on the subject
//!   - scopes: [charter:read]
//!     read_only: true
//! ```
//!
//! The API key file maps each key to a subject and scopes; a key is given as `sha256:` (the hex
//! digest, so the file holds no secret) or as `key:` (the key itself, 16 characters or more).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

/// Why the auth file (or the API key file it names) cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum AuthConfigError {
    /// The file cannot be read.
    #[error("cannot read {path}: {reason}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        reason: String,
    },
    /// The YAML does not parse or has an unknown or mistyped field.
    #[error("{path}: {reason}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message, with line and column.
        reason: String,
    },
    /// A value is out of range or inconsistent.
    #[error("{path}: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where.
        reason: String,
    },
}

/// A trusted token issuer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuerConfig {
    /// The issuer identifier, compared exactly with a token's `iss`.
    pub issuer: String,
    /// Where its signing keys are published; `None`: read `jwks_uri` from its metadata
    /// (`/.well-known/openid-configuration` or `/.well-known/oauth-authorization-server`).
    pub jwks_uri: Option<String>,
}

/// What a matching caller gets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grant {
    /// The packs served (`None`: every pack the server serves).
    pub packs: Option<Vec<String>>,
    /// Only tools annotated read-only are listed, found and callable.
    pub read_only: bool,
    /// The session mode (tier) instead of the server's.
    pub mode: Option<String>,
    /// The end user pack calls act for (`CallContext::user`, which per-user credential providers
    /// key on); `$subject` is the caller's own subject. `None`: the server's own credentials.
    pub credentials_user: Option<String>,
}

/// One `callers:` entry: who it matches and what they get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Matches only this subject (`sub` of a JWT, `subject` of an API key).
    pub subject: Option<String>,
    /// Matches only a caller holding every one of these scopes.
    pub scopes: Vec<String>,
    /// What a matching caller gets.
    pub grant: Grant,
}

impl Rule {
    /// Whether a caller with this subject and these scopes matches.
    pub fn matches(&self, subject: Option<&str>, scopes: &[String]) -> bool {
        self.subject.as_deref().is_none_or(|s| Some(s) == subject)
            && self.scopes.iter().all(|s| scopes.contains(s))
    }
}

/// One static API key: its SHA-256 digest (the key itself is not kept) and who it stands for.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey {
    /// SHA-256 of the key.
    pub digest: [u8; 32],
    /// The caller's subject.
    pub subject: String,
    /// The caller's scopes.
    pub scopes: Vec<String>,
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiKey")
            .field("subject", &self.subject)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

/// The parsed auth file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthConfig {
    /// This server's canonical URL (`https://host/mcp`): the audience a JWT must name and the
    /// `resource` of its metadata. `None`: the bound loopback URL (refused on other addresses).
    pub resource: Option<String>,
    /// Trusted JWT issuers.
    pub issuers: Vec<IssuerConfig>,
    /// Static API keys.
    pub api_keys: Vec<ApiKey>,
    /// Scopes announced in the metadata and in `WWW-Authenticate`.
    pub scopes_supported: Vec<String>,
    /// Per-caller rules, first match wins; empty: every authenticated caller gets everything.
    pub callers: Vec<Rule>,
    /// Clock skew allowed on `exp` and `nbf`, in seconds (default 30).
    pub leeway_seconds: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    resource: Option<String>,
    #[serde(default)]
    issuers: Vec<IssuerDoc>,
    api_keys: Option<PathBuf>,
    #[serde(default)]
    scopes_supported: Vec<String>,
    #[serde(default)]
    callers: Vec<RuleDoc>,
    leeway_seconds: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IssuerDoc {
    issuer: String,
    jwks_uri: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleDoc {
    subject: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
    packs: Option<Vec<String>>,
    #[serde(default)]
    read_only: bool,
    mode: Option<String>,
    credentials_user: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeysDoc {
    keys: Vec<KeyDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyDoc {
    key: Option<String>,
    sha256: Option<String>,
    subject: String,
    #[serde(default)]
    scopes: Vec<String>,
}

/// The shortest API key accepted in a key file (a guessable key is no authentication).
pub const MIN_KEY_CHARS: usize = 16;

const DEFAULT_LEEWAY_SECONDS: u64 = 30;

impl AuthConfig {
    /// Reads and checks an auth file, and the API key file it names.
    pub fn load(path: &Path) -> Result<Self, AuthConfigError> {
        let doc: FileDoc = read_yaml(path)?;
        let invalid = |reason: String| AuthConfigError::Invalid {
            path: path.to_owned(),
            reason,
        };
        if let Some(resource) = &doc.resource {
            check_url("resource", resource, false).map_err(invalid)?;
        }
        let mut issuers = Vec::with_capacity(doc.issuers.len());
        for (n, i) in doc.issuers.into_iter().enumerate() {
            check_url(&format!("issuers[{n}].issuer"), &i.issuer, true).map_err(invalid)?;
            if let Some(uri) = &i.jwks_uri {
                check_url(&format!("issuers[{n}].jwks_uri"), uri, true).map_err(invalid)?;
            }
            issuers.push(IssuerConfig {
                issuer: i.issuer,
                jwks_uri: i.jwks_uri,
            });
        }
        let api_keys = match &doc.api_keys {
            Some(file) => {
                let file = path.parent().unwrap_or(Path::new(".")).join(file);
                load_keys(&file)?
            }
            None => Vec::new(),
        };
        if issuers.is_empty() && api_keys.is_empty() {
            return Err(invalid(
                "no way to authenticate: add `issuers:` (JWTs) or `api_keys:` (a key file)".into(),
            ));
        }
        let mut callers = Vec::with_capacity(doc.callers.len());
        for (n, r) in doc.callers.into_iter().enumerate() {
            if r.mode.as_deref().is_some_and(|m| m.trim().is_empty()) {
                return Err(invalid(format!("callers[{n}].mode is empty")));
            }
            if r.credentials_user
                .as_deref()
                .is_some_and(|u| u.trim().is_empty())
            {
                return Err(invalid(format!("callers[{n}].credentials_user is empty")));
            }
            callers.push(Rule {
                subject: r.subject,
                scopes: r.scopes,
                grant: Grant {
                    packs: r.packs,
                    read_only: r.read_only,
                    mode: r.mode,
                    credentials_user: r.credentials_user,
                },
            });
        }
        Ok(AuthConfig {
            resource: doc.resource,
            issuers,
            api_keys,
            scopes_supported: doc.scopes_supported,
            callers,
            leeway_seconds: doc.leeway_seconds.unwrap_or(DEFAULT_LEEWAY_SECONDS),
        })
    }
}

fn read_yaml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, AuthConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| AuthConfigError::Read {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    serde_saphyr::from_str(&text).map_err(|e| AuthConfigError::Parse {
        path: path.to_owned(),
        reason: e.to_string(),
    })
}

/// Reads an API key file. Errors name the entry and its subject, never the key.
fn load_keys(path: &Path) -> Result<Vec<ApiKey>, AuthConfigError> {
    let doc: KeysDoc = read_yaml(path)?;
    let invalid = |reason: String| AuthConfigError::Invalid {
        path: path.to_owned(),
        reason,
    };
    let mut keys: Vec<ApiKey> = Vec::with_capacity(doc.keys.len());
    for (n, k) in doc.keys.into_iter().enumerate() {
        let at = format!("keys[{n}] (subject `{}`)", k.subject);
        if k.subject.trim().is_empty() {
            return Err(invalid(format!("keys[{n}]: the subject is empty")));
        }
        let digest = match (k.key, k.sha256) {
            (Some(key), None) => {
                if key.chars().count() < MIN_KEY_CHARS {
                    return Err(invalid(format!(
                        "{at}: the key is shorter than {MIN_KEY_CHARS} characters"
                    )));
                }
                sha256(key.as_bytes())
            }
            (None, Some(hex)) => parse_hex_digest(&hex)
                .ok_or_else(|| invalid(format!("{at}: sha256 is not 64 hexadecimal digits")))?,
            _ => {
                return Err(invalid(format!(
                    "{at}: give exactly one of `key` and `sha256`"
                )));
            }
        };
        if keys.iter().any(|other| other.digest == digest) {
            return Err(invalid(format!("{at}: the same key is listed twice")));
        }
        keys.push(ApiKey {
            digest,
            subject: k.subject,
            scopes: k.scopes,
        });
    }
    Ok(keys)
}

/// SHA-256 of `bytes`.
pub(crate) fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn parse_hex_digest(hex: &str) -> Option<[u8; 32]> {
    let hex = hex.trim();
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// An absolute http(s) URL; an issuer or key URL must be https unless it is on loopback.
fn check_url(field: &str, value: &str, secure: bool) -> Result<(), String> {
    let Some((scheme, rest)) = value.split_once("://") else {
        return Err(format!("{field} `{value}` is not an absolute URL"));
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if host.is_empty() {
        return Err(format!("{field} `{value}` has no host"));
    }
    match scheme {
        "https" => Ok(()),
        "http" if !secure || is_loopback_authority(host) => Ok(()),
        "http" => Err(format!(
            "{field} `{value}` must be https (plain http only on loopback)"
        )),
        _ => Err(format!("{field} `{value}` is not an http(s) URL")),
    }
}

/// Whether `host[:port]` names this machine.
pub(crate) fn is_loopback_authority(authority: &str) -> bool {
    let host = match authority.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => authority,
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn temp_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("charter-auth-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_full_file_loads_with_its_key_file() {
        let dir = temp_dir("full");
        write(
            &dir,
            "keys.yaml",
            "keys:\n  - key: abcdefghijklmnop-1\n    subject: ci\n    scopes: [charter:read]\n  - sha256: \"9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08\"\n    subject: bot\n",
        );
        let path = write(
            &dir,
            "auth.yaml",
            "resource: https://mcp.example.com/mcp\nissuers:\n  - issuer: https://login.example.com\napi_keys: keys.yaml\ncallers:\n  - scopes: [charter:read]\n    read_only: true\n    credentials_user: $subject\n",
        );
        let config = AuthConfig::load(&path).unwrap();
        assert_eq!(config.api_keys.len(), 2);
        assert_eq!(config.api_keys[0].digest, sha256(b"abcdefghijklmnop-1"));
        assert_eq!(config.api_keys[1].digest, sha256(b"test"));
        assert_eq!(config.leeway_seconds, 30);
        assert!(config.callers[0].grant.read_only);
        assert!(config.callers[0].matches(None, &["charter:read".into()]));
        assert!(!config.callers[0].matches(Some("ci"), &[]));
        let debug = format!("{config:?}");
        assert!(!debug.contains("abcdefghijklmnop"), "{debug}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_files_say_what_and_where_without_the_key() {
        let dir = temp_dir("bad");
        let cases = [
            ("issuers: []\n", "no way to authenticate"),
            (
                "issuers:\n  - issuer: http://login.example.com\n",
                "must be https",
            ),
            (
                "resource: mcp.example.com\nissuers:\n  - issuer: https://a.example\n",
                "not an absolute URL",
            ),
            (
                "issuers:\n  - issuer: https://a.example\n    audience: x\n",
                "audience",
            ),
            (
                "issuers:\n  - issuer: https://a.example\ncallers:\n  - mode: \"\"\n",
                "callers[0].mode",
            ),
        ];
        for (text, says) in cases {
            let path = write(&dir, "auth.yaml", text);
            let err = AuthConfig::load(&path).unwrap_err().to_string();
            assert!(err.contains(says), "{text}: {err}");
            assert!(err.contains("auth.yaml"), "{err}");
        }
        for (keys, says) in [
            (
                "keys:\n  - key: short-secret\n    subject: a\n",
                "shorter than 16",
            ),
            (
                "keys:\n  - key: long-enough-secret-1\n    subject: a\n  - key: long-enough-secret-1\n    subject: b\n",
                "twice",
            ),
            ("keys:\n  - sha256: zz\n    subject: a\n", "64 hexadecimal"),
            ("keys:\n  - subject: a\n", "exactly one"),
        ] {
            write(&dir, "keys.yaml", keys);
            let path = write(&dir, "auth.yaml", "api_keys: keys.yaml\n");
            let err = AuthConfig::load(&path).unwrap_err().to_string();
            assert!(err.contains(says), "{keys}: {err}");
            assert!(err.contains("keys.yaml"), "{err}");
            assert!(!err.contains("secret"), "a key leaked into {err}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
