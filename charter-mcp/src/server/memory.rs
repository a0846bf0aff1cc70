//! Giving the memory of closed sessions back to the system.
//!
//! A thousand MCP sessions over HTTP take a few hundred MiB; when they close, their memory is
//! freed, but glibc's allocator keeps freed pages inside its per-thread arenas for reuse and
//! returns only the top of each heap. Measured with `bench/http-load.sh`, a server's resident
//! memory then climbed round after round of sessions although nothing was still allocated. A
//! server for a team runs for weeks under bursts like that, so after sessions close it asks the
//! allocator to hand free pages back (`malloc_trim`). Elsewhere (musl, other systems) this does
//! nothing.

use std::time::Duration;

/// How long after the last closed session freed memory is still handed back: rmcp keeps a
/// closed session's stored answers for a minute before it drops them.
pub(crate) const TRIM_WINDOW: Duration = Duration::from_secs(90);

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
