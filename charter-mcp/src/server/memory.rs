//! Giving the memory of closed sessions back to the system, when the process's owner asks
//! (`HttpOptions::release_memory`: the allocator is the host's, so a library never does this
//! on its own).
//!
//! A thousand MCP sessions over HTTP take a few hundred MiB; when they close, their memory is
//! freed, but glibc's allocator keeps freed pages inside its per-thread arenas for reuse and
//! returns only the top of each heap. Measured with `bench/http-load.sh`, a server's resident
//! memory then climbed round after round of sessions although nothing was still allocated. A
//! server for a team runs for weeks under bursts like that, so after sessions close it can ask
//! the allocator to hand free pages back (`malloc_trim`). Elsewhere (musl, other systems) this
//! does nothing.
//!
//! `malloc_trim` cannot give everything back: glibc gives each thread that allocates an arena
//! of its own, up to eight per core, and keeps up to seven freed chunks of each small size in a
//! per-thread cache. Both are the process's settings, read from its environment as it starts
//! (`MALLOC_ARENA_MAX`, `GLIBC_TUNABLES=glibc.malloc.tcache_count=0`): an operator who wants
//! them sets them (docs/deployment.md, "Allocator settings"); this library sets neither.

use std::time::Duration;

/// How long after the last closed session freed memory is still handed back: rmcp keeps a
/// closed session's stored answers for a minute before it drops them, and the connections the
/// sessions' calls left idle close within twice the executor's idle timeout (60 s).
pub(crate) const TRIM_WINDOW: Duration = Duration::from_secs(90);

// The idle connections a burst leaves must close while the trims still run (the housekeeping
// looks every 10 s): past the window, their pages stayed resident (docs/code-mode.md).
const _: () = assert!(
    TRIM_WINDOW.as_secs() >= 2 * charter_runtime::http::DEFAULT_IDLE_TIMEOUT.as_secs() + 10
);

/// Hands the allocator's free pages back to the system, and logs (at debug level) how much heap
/// is still in use: the figure `bench/http-load.sh` reads to tell kept memory from live memory.
pub(crate) fn give_back() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: malloc_trim and mallinfo2 only walk the allocator's own lists under its locks
        // (a pad of 0 keeps nothing extra at the top of the heap); neither has preconditions.
        let info = unsafe {
            libc::malloc_trim(0);
            libc::mallinfo2()
        };
        tracing::debug!(
            heap_in_use = info.uordblks + info.hblkhd,
            heap_kept_free = info.fordblks,
            "gave freed memory back"
        );
    }
}
