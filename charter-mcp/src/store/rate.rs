//! The per-caller rate limit counted across the fleet: the same GCRA as each instance's own
//! limiter (`governor`), its state (the caller's theoretical arrival time) kept in the store at
//! `rate:<digest of the caller>` and advanced by one script, on Redis's clock, so that instances
//! whose clocks differ still count one rate.

use std::num::NonZeroU32;
use std::sync::LazyLock;
use std::time::Duration;

use redis::Script;

use super::{FleetStore, StoreError, digest};

/// `KEYS[1]`: the caller's state; `ARGV[1]`: the emission interval, `ARGV[2]`: the burst
/// tolerance (both µs). Returns 0 when admitted (and advances the state), else the µs to wait.
static GCRA: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "local t = redis.call('TIME') \
         local now = tonumber(t[1]) * 1000000 + tonumber(t[2]) \
         local tat = tonumber(redis.call('GET', KEYS[1]) or now) \
         if tat < now then tat = now end \
         local allow_at = tat - tonumber(ARGV[2]) \
         if now < allow_at then return allow_at - now end \
         local next = tat + tonumber(ARGV[1]) \
         redis.call('SET', KEYS[1], next, 'PX', math.floor((next - now) / 1000) + 1000) \
         return 0",
    )
});

/// The fleet's limiter for one server's rate.
pub(crate) struct FleetRate {
    store: FleetStore,
    interval_us: u64,
    tolerance_us: u64,
}

impl FleetRate {
    /// `per_second` requests a second per caller, `burst` of them at once.
    pub(crate) fn new(store: FleetStore, per_second: NonZeroU32, burst: NonZeroU32) -> Self {
        let interval_us = 1_000_000 / u64::from(per_second.get()).max(1);
        FleetRate {
            store,
            interval_us,
            tolerance_us: interval_us * u64::from(burst.get() - 1),
        }
    }

    /// `Ok(None)` when `caller` may make one more request now (counted), `Ok(Some(wait))` when
    /// not before `wait`.
    pub(crate) async fn check(&self, caller: &str) -> Result<Option<Duration>, StoreError> {
        let name = self.store.name(&["rate", &digest(&[caller])]);
        let (interval, tolerance) = (self.interval_us, self.tolerance_us);
        let wait: i64 = self
            .store
            .run(|mut redis| async move {
                GCRA.key(&name)
                    .arg(interval)
                    .arg(tolerance)
                    .invoke_async(&mut redis)
                    .await
            })
            .await?;
        Ok((wait > 0).then(|| Duration::from_micros(wait as u64)))
    }
}
