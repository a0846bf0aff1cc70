//! The inner loop of the semantic layer: the cosines of a query with one tool's records. A
//! search scores every record of every tool (about 5,600 over the shipped packs), so this loop
//! is most of a hybrid query's time: with AVX2 (detected at run time, as `memchr` does) one
//! record is eight widening multiply-adds; elsewhere the portable loop, which the compiler
//! vectorizes for the baseline target.

use super::{DIMS, RECORD};

/// The cosines (times the query's length) of all of a tool's text and of its best part, from
/// its records; `NEG_INFINITY` as the best part when it has none.
pub(super) type Kernel = fn(&[i16; DIMS], &[u8]) -> (f32, f32);

/// The fastest kernel this processor runs.
pub(super) fn best() -> Kernel {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return avx2::tool;
    }
    portable
}

/// A record's inverse length and components.
fn split(record: &[u8]) -> (f32, &[u8; DIMS]) {
    let (inv, values) = record.split_at(4);
    let inv = f32::from_le_bytes([inv[0], inv[1], inv[2], inv[3]]);
    (inv, values.try_into().expect("a record is RECORD bytes"))
}

/// Folds a tool's records, each scored by `dot`.
#[inline(always)]
fn fold(vectors: &[u8], mut dot: impl FnMut(&[u8; DIMS]) -> i32) -> (f32, f32) {
    let mut records = vectors.chunks_exact(RECORD).map(|r| {
        let (inv, values) = split(r);
        dot(values) as f32 * inv
    });
    let whole = records.next().unwrap_or(0.0);
    (whole, records.fold(f32::NEG_INFINITY, f32::max))
}

pub(super) fn portable(query: &[i16; DIMS], vectors: &[u8]) -> (f32, f32) {
    fold(vectors, |values| {
        let mut sum = 0i32;
        for i in 0..DIMS {
            sum += i32::from(query[i]) * i32::from(values[i] as i8);
        }
        sum
    })
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{DIMS, fold};

    pub(super) fn tool(query: &[i16; DIMS], vectors: &[u8]) -> (f32, f32) {
        // SAFETY: chosen by `best` only where the processor has AVX2.
        unsafe { tool_avx2(query, vectors) }
    }

    #[target_feature(enable = "avx2")]
    fn tool_avx2(query: &[i16; DIMS], vectors: &[u8]) -> (f32, f32) {
        // SAFETY: each load reads 32 (query) or 16 (record) bytes inside its array.
        let q: [__m256i; 8] = std::array::from_fn(|i| unsafe {
            _mm256_loadu_si256(query.as_ptr().add(i * 16).cast())
        });
        fold(vectors, |values| {
            let p = values.as_ptr();
            let mut acc = _mm256_setzero_si256();
            for (i, q) in q.iter().enumerate() {
                // SAFETY: bytes 16·i to 16·i + 15 of a DIMS-byte array.
                let bytes = unsafe { _mm_loadu_si128(p.add(i * 16).cast()) };
                acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_cvtepi8_epi16(bytes), *q));
            }
            let s = _mm_add_epi32(
                _mm256_castsi256_si128(acc),
                _mm256_extracti128_si256(acc, 1),
            );
            let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
            let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
            _mm_cvtsi128_si32(s)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_gives_the_portable_sums() {
        let mut query = [0i16; DIMS];
        for (i, q) in query.iter_mut().enumerate() {
            *q = (i as i16 * 37 % 255) - 127;
        }
        let mut vectors = Vec::new();
        for r in 0..3u32 {
            vectors.extend_from_slice(&(0.5f32 / (r + 1) as f32).to_le_bytes());
            vectors.extend(
                (0..DIMS as u32)
                    .map(|i| (i.wrapping_mul(2_654_435_761).wrapping_add(r * 97) >> 13) as u8),
            );
        }
        let want = portable(&query, &vectors);
        assert!(want.0 != 0.0 && want.1.is_finite());
        assert_eq!(best()(&query, &vectors), want);
        assert_eq!(best()(&query, &vectors[..RECORD]).1, f32::NEG_INFINITY);
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            assert_eq!(avx2::tool(&query, &vectors), want);
        }
    }
}
