//! `charter mcp --http` runs with glibc's per-thread cache off.
//!
//! glibc keeps up to seven freed chunks of each small size (to 1 KiB) in a cache of the thread
//! that freed them, and `malloc_trim` never gives those back. The server's long-lived thread
//! frees what a burst of sessions and code mode's programs allocated anywhere in the heap the
//! burst grew, so those cached chunks kept about 1 MiB of its pages resident for good after 100
//! concurrent programs (docs/code-mode.md, "Costs"). glibc reads the cache's size only as a
//! process starts (`GLIBC_TUNABLES`, no `mallopt`), so the HTTP server starts itself once more
//! with `glibc.malloc.tcache_count=0` added, unless the user chose a count (theirs stands: that
//! is the way to keep the cache). The stdio server is left alone: it serves one client, and its
//! start-up time is a target of its own.
//!
//! The restarted process puts the user's `GLIBC_TUNABLES` back (or removes it) as it starts, so
//! the processes it spawns (upstream MCP servers) do not inherit the setting. Built for Linux
//! with glibc only (elsewhere there is no such cache, or no `/proc/self/exe`).

use std::ffi::{OsStr, OsString};

/// glibc's environment variable of allocator settings, read as a process starts.
const TUNABLES: &str = "GLIBC_TUNABLES";
/// The setting the server turns off: how many chunks of each size a thread's cache keeps.
const CACHE_COUNT: &str = "glibc.malloc.tcache_count";
/// Set in the restarted process only, to the user's `GLIBC_TUNABLES` (`=` and its value, or
/// `-` when there was none): says the restart happened, so it never happens twice.
const RESTARTED: &str = "CHARTER_RESTARTED_FOR_TUNABLES";

/// Called as `charter mcp --http` starts, before any thread: restarts the process with the
/// cache off (returns only if the restart cannot happen), or, in the restarted process, puts the
/// user's environment back.
pub(crate) fn http_server_start() {
    use std::os::unix::process::CommandExt;
    if let Some(original) = std::env::var_os(RESTARTED) {
        restore(&original);
        tracing::debug!("running with glibc's per-thread cache off");
        return;
    }
    let user = std::env::var_os(TUNABLES);
    let Some(tuned) = with_cache_off(user.as_deref()) else {
        return;
    };
    let mut args = std::env::args_os();
    let Some(program) = args.next() else {
        return;
    };
    let error = std::process::Command::new("/proc/self/exe")
        .arg0(program)
        .args(args)
        .env(TUNABLES, tuned)
        .env(RESTARTED, remembered(user.as_deref()))
        .exec();
    tracing::warn!(
        "could not restart with glibc's per-thread cache off ({error}); serving with it on"
    );
}

/// The user's `GLIBC_TUNABLES` with the cache turned off, or `None` when they set its size.
fn with_cache_off(user: Option<&OsStr>) -> Option<OsString> {
    let off = format!("{CACHE_COUNT}=0");
    let Some(user) = user.filter(|u| !u.is_empty()) else {
        return Some(off.into());
    };
    let chosen = user
        .as_encoded_bytes()
        .split(|&b| b == b':')
        .any(|setting| setting.starts_with(format!("{CACHE_COUNT}=").as_bytes()));
    if chosen {
        return None;
    }
    let mut tuned = user.to_owned();
    tuned.push(":");
    tuned.push(off);
    Some(tuned)
}

/// How [`RESTARTED`] carries the user's `GLIBC_TUNABLES` (which may be any bytes).
fn remembered(user: Option<&OsStr>) -> OsString {
    match user {
        Some(value) => {
            let mut kept = OsString::from("=");
            kept.push(value);
            kept
        }
        None => "-".into(),
    }
}

/// The user's `GLIBC_TUNABLES` that [`remembered`] carried.
fn recalled(kept: &OsStr) -> Option<&OsStr> {
    let bytes = kept.as_encoded_bytes().strip_prefix(b"=")?;
    // SAFETY: the bytes after an ASCII prefix of an OsStr's encoded bytes are themselves a
    // whole OsStr's encoding (they were one when pushed).
    Some(unsafe { OsStr::from_encoded_bytes_unchecked(bytes) })
}

fn restore(kept: &OsStr) {
    let original = recalled(kept).map(OsStr::to_owned);
    // SAFETY: called as the process starts, before the runtime, the telemetry or anything else
    // has made a thread, so nothing reads the environment at the same time.
    unsafe {
        match original {
            Some(value) => std::env::set_var(TUNABLES, value),
            None => std::env::remove_var(TUNABLES),
        }
        std::env::remove_var(RESTARTED);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuned(user: Option<&str>) -> Option<String> {
        with_cache_off(user.map(OsStr::new)).map(|t| t.into_string().unwrap())
    }

    #[test]
    fn the_cache_is_turned_off_beside_the_users_settings_unless_they_sized_it() {
        assert_eq!(tuned(None).unwrap(), "glibc.malloc.tcache_count=0");
        assert_eq!(tuned(Some("")).unwrap(), "glibc.malloc.tcache_count=0");
        assert_eq!(
            tuned(Some("glibc.malloc.arena_max=3")).unwrap(),
            "glibc.malloc.arena_max=3:glibc.malloc.tcache_count=0"
        );
        assert_eq!(tuned(Some("glibc.malloc.tcache_count=7")), None);
        assert_eq!(
            tuned(Some("glibc.malloc.arena_max=3:glibc.malloc.tcache_count=2")),
            None
        );
        // Another setting whose name only begins the same is not the count.
        assert!(tuned(Some("glibc.malloc.tcache_count_x=1")).is_some());
    }

    #[test]
    fn the_users_tunables_come_back_as_they_were() {
        for user in [None, Some(""), Some("glibc.malloc.arena_max=3")] {
            let kept = remembered(user.map(OsStr::new));
            assert_eq!(recalled(&kept), user.map(OsStr::new));
        }
    }
}
