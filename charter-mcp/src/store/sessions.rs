//! MCP sessions (2025-11-25 and earlier) in the shared store, so that any instance serves any
//! request of a session: rmcp restores a session it does not know from its `initialize`
//! ([`SessionStore`], at `session:<digest>`), and the handler reads what charter adds
//! ([`SessionRecord`]): the caller the session belongs to (`:owner`, bound once with `SET NX`) and
//! the tools a progressive session loaded, in load order (`:tools`, a list each load appends to,
//! so loads on two instances at once both land).
//!
//! The key names carry a digest of the session id (the id is what grants the session), and
//! every value is sealed.

use charter_runtime::table::BoxFuture;
use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};

use super::{FleetStore, StoreError, digest};

/// What charter keeps of one session beyond rmcp's `initialize`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SessionRecord {
    /// A digest of the caller that started it (`None`: started without authentication).
    pub(crate) owner: Option<String>,
    /// The tools it loaded, in load order.
    pub(crate) loaded: Vec<String>,
}

/// The store's session side.
#[derive(Debug, Clone)]
pub(crate) struct FleetSessions(pub(crate) FleetStore);

impl FleetSessions {
    fn base(&self, id: &str) -> String {
        self.0.name(&["session", &digest(&["mcp-session", id])])
    }

    fn ttl_ms(&self) -> u64 {
        self.0.options().session_ttl.as_millis() as u64
    }

    /// The session's record, binding it to `owner` first if nobody owns it yet (the first
    /// caller to use a session owns it, on whichever instance).
    pub(crate) async fn attach(
        &self,
        id: &str,
        owner: Option<&str>,
    ) -> Result<SessionRecord, StoreError> {
        let base = self.base(id);
        let (owner_name, tools_name) = (format!("{base}:owner"), format!("{base}:tools"));
        let sealed_owner = owner.map(|o| self.0.seal_key().seal(&owner_name, o.as_bytes()));
        let ttl = self.ttl_ms();
        let (names, ttl_arg) = ((owner_name.clone(), tools_name.clone()), ttl);
        let (bound, tools): (Option<Vec<u8>>, Vec<Vec<u8>>) = self
            .0
            .run(|mut redis| async move {
                let mut pipe = redis::pipe();
                if let Some(sealed) = sealed_owner {
                    pipe.cmd("SET")
                        .arg(&names.0)
                        .arg(sealed)
                        .arg("NX")
                        .arg("PX")
                        .arg(ttl_arg)
                        .ignore();
                }
                pipe.cmd("GET")
                    .arg(&names.0)
                    .cmd("LRANGE")
                    .arg(&names.1)
                    .arg(0)
                    .arg(-1);
                pipe.query_async(&mut redis).await
            })
            .await?;
        let key = self.0.seal_key();
        let owner = match bound {
            Some(raw) => {
                let plain = key
                    .open(&owner_name, &raw)
                    .ok_or_else(|| self.0.sealed_error())?;
                Some(String::from_utf8(plain).map_err(|_| self.0.sealed_error())?)
            }
            None => None,
        };
        let mut loaded = Vec::with_capacity(tools.len());
        for raw in tools {
            let plain = key
                .open(&tools_name, &raw)
                .ok_or_else(|| self.0.sealed_error())?;
            let name = String::from_utf8(plain).map_err(|_| self.0.sealed_error())?;
            if !loaded.contains(&name) {
                loaded.push(name);
            }
        }
        Ok(SessionRecord { owner, loaded })
    }

    /// The tools the session loaded, in load order.
    pub(crate) async fn loaded(&self, id: &str) -> Result<Vec<String>, StoreError> {
        Ok(self.attach(id, None).await?.loaded)
    }

    /// Appends tools the session just loaded here.
    pub(crate) async fn push_loaded(&self, id: &str, names: &[String]) -> Result<(), StoreError> {
        if names.is_empty() {
            return Ok(());
        }
        let base = self.base(id);
        let tools = format!("{base}:tools");
        let sealed: Vec<Vec<u8>> = names
            .iter()
            .map(|n| self.0.seal_key().seal(&tools, n.as_bytes()))
            .collect();
        let ttl = self.ttl_ms();
        let keys = [base.clone(), format!("{base}:owner"), tools.clone()];
        self.0
            .run(|mut redis| async move {
                let mut pipe = redis::pipe();
                pipe.cmd("RPUSH").arg(&tools).arg(sealed).ignore();
                for key in &keys {
                    pipe.cmd("PEXPIRE").arg(key).arg(ttl).ignore();
                }
                pipe.query_async::<()>(&mut redis).await
            })
            .await
    }
}

fn boxed(error: StoreError) -> SessionStoreError {
    Box::new(error)
}

impl SessionStore for FleetSessions {
    fn load<'life0, 'life1, 'async_trait>(
        &'life0 self,
        session_id: &'life1 str,
    ) -> BoxFuture<'async_trait, Result<Option<SessionState>, SessionStoreError>>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(async move {
            let name = self.base(session_id);
            let get = name.clone();
            let raw: Option<Vec<u8>> = self
                .0
                .run(|mut redis| async move {
                    redis::cmd("GET").arg(&get).query_async(&mut redis).await
                })
                .await
                .map_err(boxed)?;
            let Some(raw) = raw else { return Ok(None) };
            let plain = self
                .0
                .seal_key()
                .open(&name, &raw)
                .ok_or_else(|| boxed(self.0.sealed_error()))?;
            let state = serde_json::from_slice(&plain).map_err(|_| boxed(self.0.sealed_error()))?;
            Ok(Some(state))
        })
    }

    fn store<'life0, 'life1, 'life2, 'async_trait>(
        &'life0 self,
        session_id: &'life1 str,
        state: &'life2 SessionState,
    ) -> BoxFuture<'async_trait, Result<(), SessionStoreError>>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        'life2: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(async move {
            let name = self.base(session_id);
            let plain = serde_json::to_vec(state).map_err(|e| Box::new(e) as SessionStoreError)?;
            let sealed = self.0.seal_key().seal(&name, &plain);
            let ttl = self.ttl_ms();
            self.0
                .run(|mut redis| async move {
                    redis::cmd("SET")
                        .arg(&name)
                        .arg(sealed)
                        .arg("PX")
                        .arg(ttl)
                        .query_async::<()>(&mut redis)
                        .await
                })
                .await
                .map_err(boxed)
        })
    }

    fn delete<'life0, 'life1, 'async_trait>(
        &'life0 self,
        session_id: &'life1 str,
    ) -> BoxFuture<'async_trait, Result<(), SessionStoreError>>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(async move {
            let base = self.base(session_id);
            let keys = [
                base.clone(),
                format!("{base}:owner"),
                format!("{base}:tools"),
            ];
            self.0
                .run(|mut redis| async move {
                    redis::cmd("DEL")
                        .arg(&keys[..])
                        .query_async::<()>(&mut redis)
                        .await
                })
                .await
                .map_err(boxed)
        })
    }
}
