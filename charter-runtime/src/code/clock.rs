//! The CPU time of the calling thread: what a program has spent running, its waits for tool
//! answers (the thread blocked) and other programs' work never counted.

use std::time::Duration;

/// CPU time the calling thread has used so far.
#[cfg(unix)]
pub(super) fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through the pointer, which is valid for the
    // call; CLOCK_THREAD_CPUTIME_ID exists on every Unix this builds for. On failure `ts` keeps
    // zero, which only makes the limit later, never a crash.
    unsafe {
        libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts);
    }
    Duration::new(
        ts.tv_sec.max(0) as u64,
        ts.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// Elsewhere, time since the thread first asked: the limit then counts waits as well.
#[cfg(not(unix))]
pub(super) fn thread_cpu() -> Duration {
    thread_local! {
        static START: std::time::Instant = std::time::Instant::now();
    }
    START.with(|start| start.elapsed())
}
