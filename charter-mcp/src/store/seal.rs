//! What the shared store holds is sealed with AES-256-GCM (ring), under a key every instance
//! reads from its environment: Redis, its backups and anyone who can read them see random
//! bytes, never a token.
//!
//! A sealed value is `c1` · key id (4 bytes) · nonce (12 random bytes) · ciphertext and tag, and
//! its associated data is the Redis key it is stored under, so a value copied to another key
//! (another grant, another session) does not open. The key id names which key sealed it: after
//! a key change, values sealed under the previous key (`CHARTER_STORE_KEY_PREVIOUS`) still open
//! and are sealed under the new one when next written.

use base64::Engine as _;
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom as _, SystemRandom};

/// The variable holding the store key: 32 random bytes, base64 or hex.
pub const KEY_ENV: &str = "CHARTER_STORE_KEY";
/// The variable holding the key before the current one, while values sealed under it remain.
pub const PREVIOUS_KEY_ENV: &str = "CHARTER_STORE_KEY_PREVIOUS";

const VERSION: &[u8; 2] = b"c1";
const ID_LEN: usize = 4;
const TAG_LEN: usize = 16;

/// The keys values are sealed with. Never printed.
pub struct StoreKey {
    current: Key,
    previous: Option<Key>,
}

struct Key {
    id: [u8; ID_LEN],
    key: LessSafeKey,
}

impl std::fmt::Debug for StoreKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreKey")
            .field("id", &hex(&self.current.id))
            .field("previous", &self.previous.as_ref().map(|k| hex(&k.id)))
            .finish()
    }
}

/// Why a key could not be read. Names the variable, never its value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The variable is not set.
    #[error(
        "{KEY_ENV} is not set: the shared store seals every token it keeps with it. Set it to 32 \
         random bytes in base64 (e.g. `openssl rand -base64 32`), the same on every instance"
    )]
    Missing,
    /// The variable does not hold 32 bytes of base64 or hex.
    #[error(
        "{0} must hold 32 random bytes as base64 (44 characters) or hex (64 characters), e.g. \
         from `openssl rand -base64 32`"
    )]
    Malformed(&'static str),
}

impl StoreKey {
    /// The keys from `CHARTER_STORE_KEY` (required) and `CHARTER_STORE_KEY_PREVIOUS`.
    pub fn from_env() -> Result<Self, KeyError> {
        let read = |name: &'static str| {
            std::env::var(name)
                .ok()
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
                .map(|v| Key::parse(&v).ok_or(KeyError::Malformed(name)))
                .transpose()
        };
        let current = read(KEY_ENV)?.ok_or(KeyError::Missing)?;
        let previous = read(PREVIOUS_KEY_ENV)?;
        Ok(StoreKey { current, previous })
    }

    /// A key from its 32 bytes (tests, hosts that hold the key elsewhere).
    pub fn from_bytes(bytes: &[u8; 32]) -> Self {
        StoreKey {
            current: Key::new(bytes),
            previous: None,
        }
    }

    /// Seals `plain` for storage under `name`.
    pub(crate) fn seal(&self, name: &str, plain: &[u8]) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_LEN];
        // The system's generator does not fail on the platforms charter runs on; if it ever did,
        // a zero nonce reused would be a disaster, so refuse to go on.
        SystemRandom::new()
            .fill(&mut nonce)
            .expect("the system random generator works");
        let mut data = plain.to_vec();
        self.current
            .key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(name.as_bytes()),
                &mut data,
            )
            .expect("AES-GCM seals any length charter writes");
        let mut out = Vec::with_capacity(VERSION.len() + ID_LEN + NONCE_LEN + data.len());
        out.extend_from_slice(VERSION);
        out.extend_from_slice(&self.current.id);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&data);
        out
    }

    /// Opens what [`seal`](Self::seal) wrote under `name`; `None` when it was sealed under
    /// another key, stored under another name, or altered.
    pub(crate) fn open(&self, name: &str, sealed: &[u8]) -> Option<Vec<u8>> {
        let rest = sealed.strip_prefix(VERSION.as_slice())?;
        if rest.len() < ID_LEN + NONCE_LEN + TAG_LEN {
            return None;
        }
        let (id, rest) = rest.split_at(ID_LEN);
        let (nonce, data) = rest.split_at(NONCE_LEN);
        let key = [Some(&self.current), self.previous.as_ref()]
            .into_iter()
            .flatten()
            .find(|k| k.id == id)?;
        let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
        let mut data = data.to_vec();
        let plain = key
            .key
            .open_in_place(nonce, Aad::from(name.as_bytes()), &mut data)
            .ok()?;
        Some(plain.to_vec())
    }
}

impl Key {
    fn new(bytes: &[u8; 32]) -> Self {
        let digest = ring::digest::digest(
            &ring::digest::SHA256,
            &[b"charter store key id\0".as_slice(), bytes].concat(),
        );
        let mut id = [0u8; ID_LEN];
        id.copy_from_slice(&digest.as_ref()[..ID_LEN]);
        let key = LessSafeKey::new(
            UnboundKey::new(&AES_256_GCM, bytes).expect("32 bytes is an AES-256 key"),
        );
        Key { id, key }
    }

    /// 32 bytes from base64 (standard or URL-safe, padded or not) or hex.
    fn parse(text: &str) -> Option<Self> {
        use base64::engine::general_purpose::{
            STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD,
        };
        let bytes = if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            (0..32)
                .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok())
                .collect::<Option<Vec<u8>>>()?
        } else {
            [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
                .iter()
                .find_map(|engine| engine.decode(text).ok())?
        };
        let bytes: [u8; 32] = bytes.try_into().ok()?;
        Some(Key::new(&bytes))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_value_opens_only_under_its_name_and_key_and_shows_nothing() {
        let key = StoreKey::from_bytes(&[7u8; 32]);
        let sealed = key.seal("charter:grant:abc", b"refresh-token-canary");
        assert!(
            !sealed
                .windows(b"canary".len())
                .any(|w| w == b"canary".as_slice())
        );
        assert_eq!(
            key.open("charter:grant:abc", &sealed).as_deref(),
            Some(b"refresh-token-canary".as_slice())
        );
        // Another name, another key, or one altered byte: nothing.
        assert_eq!(key.open("charter:grant:abd", &sealed), None);
        assert_eq!(
            StoreKey::from_bytes(&[8u8; 32]).open("charter:grant:abc", &sealed),
            None
        );
        let mut altered = sealed.clone();
        *altered.last_mut().unwrap() ^= 1;
        assert_eq!(key.open("charter:grant:abc", &altered), None);
        // Two seals of the same value differ (fresh nonces).
        assert_ne!(
            sealed,
            key.seal("charter:grant:abc", b"refresh-token-canary")
        );
    }

    #[test]
    fn a_value_sealed_under_the_previous_key_still_opens() {
        let old = StoreKey::from_bytes(&[1u8; 32]);
        let sealed = old.seal("n", b"v");
        let rotated = StoreKey {
            current: Key::new(&[2u8; 32]),
            previous: Some(Key::new(&[1u8; 32])),
        };
        assert_eq!(rotated.open("n", &sealed).as_deref(), Some(b"v".as_slice()));
    }

    #[test]
    fn keys_are_read_as_base64_or_hex_of_32_bytes() {
        assert!(Key::parse("qL8f2nW9mXcGJ0d5T1vY3kZrUeHbOaPs4iCtNyQwLjA=").is_some());
        assert!(Key::parse("qL8f2nW9mXcGJ0d5T1vY3kZrUeHbOaPs4iCtNyQwLjA").is_some());
        assert!(Key::parse(&"ab".repeat(32)).is_some());
        assert!(Key::parse("too-short").is_none());
        assert!(Key::parse(&"ab".repeat(31)).is_none());
        let shown = format!("{:?}", StoreKey::from_bytes(&[9u8; 32]));
        assert!(!shown.contains("9, 9"), "{shown}");
    }
}
