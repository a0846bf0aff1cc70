//! Giving the memory of closed sessions back to the system.
//!
//! A thousand MCP sessions over HTTP take a few hundred MiB; when they close, their memory is
//! freed, but glibc's allocator keeps freed pages inside its per-thread arenas for reuse and
//! returns only the top of each heap. Measured with `bench/http-load.sh`, a server's resident
//! memory then climbed round after round of sessions although nothing was still allocated. A
//! server for a team runs for weeks under bursts like that, so after sessions close it asks the
//! allocator to hand free pages back (`malloc_trim`). Elsewhere (musl, other systems) this does
//! nothing.
//!
//! `malloc_trim` cannot give everything back: glibc gives each thread that allocates an arena
//! of its own, up to eight per core, and code mode runs every `RunCode` program on a thread of
//! its own; memory left in those arenas after the programs end stayed resident (5.8 MiB above
//! the level before 100 concurrent programs, `bench/code-load.sh`, DETAIL=1 to see where). So
//! the HTTP server bounds the arenas to one per core ([`bound_arenas`]): only that many threads
//! run at once, so they seldom wait for each other's arena, and the programs' memory goes back
//! to a few arenas the trim does empty.
//!
//! Nor can `malloc_trim` give back what glibc's per-thread cache (tcache) holds: up to seven
//! freed chunks of each size to 1 KiB, kept by the thread that freed them, anywhere in the heap
//! a burst grew; about 1 MiB stayed resident after 100 programs. glibc reads the cache's size
//! only as a process starts, so this library cannot change it: the `charter` binary restarts
//! its HTTP server once with `GLIBC_TUNABLES=glibc.malloc.tcache_count=0`
//! (`charter-cli/src/allocator.rs`), and an embedder's binary sets that itself.

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

/// At most this many glibc arenas, the main one included, for a machine of `cores`: one per
/// core, and never fewer than two (the server's own thread keeps the main one). `None` when the
/// user chose a number (`MALLOC_ARENA_MAX`, or `arena_max` in `GLIBC_TUNABLES`): theirs stands.
fn arena_limit(cores: usize, chosen_by_user: bool) -> Option<usize> {
    (!chosen_by_user).then_some(cores.max(2))
}

/// Bounds glibc's arenas ([`arena_limit`]). Effective while the process has no more than eight
/// arenas (glibc fixes its limit when it makes the ninth), so it is called as the server starts.
pub(crate) fn bound_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let chosen_by_user = std::env::var_os("MALLOC_ARENA_MAX").is_some()
            || std::env::var("GLIBC_TUNABLES").is_ok_and(|t| t.contains("arena_max"));
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        if let Some(limit) = arena_limit(cores, chosen_by_user) {
            let limit = i32::try_from(limit).unwrap_or(i32::MAX);
            // SAFETY: mallopt only sets a parameter of the allocator under its lock; M_ARENA_MAX
            // takes any positive count.
            let set = unsafe { libc::mallopt(libc::M_ARENA_MAX, limit) };
            tracing::debug!(
                arenas = limit,
                set = set == 1,
                "bounded the allocator's arenas"
            );
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::arena_limit;

    #[test]
    fn arenas_are_one_per_core_at_least_two_unless_the_user_chose() {
        assert_eq!(arena_limit(1, false), Some(2));
        assert_eq!(arena_limit(2, false), Some(2));
        assert_eq!(arena_limit(16, false), Some(16));
        assert_eq!(arena_limit(16, true), None);
    }
}
