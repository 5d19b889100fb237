//! Keccak-256 (the original Keccak padding Ethereum uses, not FIPS-202 SHA3-256).
//!
//! The permutation keeps the state in 25 lanes of locals and runs two rounds per loop
//! iteration (A -> E -> A), so no lane is copied back between rounds.

/// Rate of Keccak-256 in bytes (1600 - 2 * 256 bits).
pub const RATE: usize = 136;
const RATE_LANES: usize = RATE / 8;

/// Digest length in bytes.
pub const DIGEST_LEN: usize = 32;

const RC: [u64; 24] = [
    0x0000_0000_0000_0001,
    0x0000_0000_0000_8082,
    0x8000_0000_0000_808a,
    0x8000_0000_8000_8000,
    0x0000_0000_0000_808b,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8009,
    0x0000_0000_0000_008a,
    0x0000_0000_0000_0088,
    0x0000_0000_8000_8009,
    0x0000_0000_8000_000a,
    0x0000_0000_8000_808b,
    0x8000_0000_0000_008b,
    0x8000_0000_0000_8089,
    0x8000_0000_0000_8003,
    0x8000_0000_0000_8002,
    0x8000_0000_0000_0080,
    0x0000_0000_0000_800a,
    0x8000_0000_8000_000a,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8080,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8008,
];

/// One full Keccak round (theta, rho, pi, chi, iota) reading lanes from `$a` and writing them to `$e`.
/// Lane index is x + 5y; each output row y' is chi over the five lanes pi moves into it, so one row
/// needs only five temporaries.
macro_rules! round {
    ($a:ident, $e:ident, $rc:expr) => {{
        let c0 = $a[0] ^ $a[5] ^ $a[10] ^ $a[15] ^ $a[20];
        let c1 = $a[1] ^ $a[6] ^ $a[11] ^ $a[16] ^ $a[21];
        let c2 = $a[2] ^ $a[7] ^ $a[12] ^ $a[17] ^ $a[22];
        let c3 = $a[3] ^ $a[8] ^ $a[13] ^ $a[18] ^ $a[23];
        let c4 = $a[4] ^ $a[9] ^ $a[14] ^ $a[19] ^ $a[24];
        let d0 = c4 ^ c1.rotate_left(1);
        let d1 = c0 ^ c2.rotate_left(1);
        let d2 = c1 ^ c3.rotate_left(1);
        let d3 = c2 ^ c4.rotate_left(1);
        let d4 = c3 ^ c0.rotate_left(1);

        let b0 = $a[0] ^ d0;
        let b1 = ($a[6] ^ d1).rotate_left(44);
        let b2 = ($a[12] ^ d2).rotate_left(43);
        let b3 = ($a[18] ^ d3).rotate_left(21);
        let b4 = ($a[24] ^ d4).rotate_left(14);
        $e[0] = b0 ^ (!b1 & b2) ^ $rc;
        $e[1] = b1 ^ (!b2 & b3);
        $e[2] = b2 ^ (!b3 & b4);
        $e[3] = b3 ^ (!b4 & b0);
        $e[4] = b4 ^ (!b0 & b1);

        let b0 = ($a[3] ^ d3).rotate_left(28);
        let b1 = ($a[9] ^ d4).rotate_left(20);
        let b2 = ($a[10] ^ d0).rotate_left(3);
        let b3 = ($a[16] ^ d1).rotate_left(45);
        let b4 = ($a[22] ^ d2).rotate_left(61);
        $e[5] = b0 ^ (!b1 & b2);
        $e[6] = b1 ^ (!b2 & b3);
        $e[7] = b2 ^ (!b3 & b4);
        $e[8] = b3 ^ (!b4 & b0);
        $e[9] = b4 ^ (!b0 & b1);

        let b0 = ($a[1] ^ d1).rotate_left(1);
        let b1 = ($a[7] ^ d2).rotate_left(6);
        let b2 = ($a[13] ^ d3).rotate_left(25);
        let b3 = ($a[19] ^ d4).rotate_left(8);
        let b4 = ($a[20] ^ d0).rotate_left(18);
        $e[10] = b0 ^ (!b1 & b2);
        $e[11] = b1 ^ (!b2 & b3);
        $e[12] = b2 ^ (!b3 & b4);
        $e[13] = b3 ^ (!b4 & b0);
        $e[14] = b4 ^ (!b0 & b1);

        let b0 = ($a[4] ^ d4).rotate_left(27);
        let b1 = ($a[5] ^ d0).rotate_left(36);
        let b2 = ($a[11] ^ d1).rotate_left(10);
        let b3 = ($a[17] ^ d2).rotate_left(15);
        let b4 = ($a[23] ^ d3).rotate_left(56);
        $e[15] = b0 ^ (!b1 & b2);
        $e[16] = b1 ^ (!b2 & b3);
        $e[17] = b2 ^ (!b3 & b4);
        $e[18] = b3 ^ (!b4 & b0);
        $e[19] = b4 ^ (!b0 & b1);

        let b0 = ($a[2] ^ d2).rotate_left(62);
        let b1 = ($a[8] ^ d3).rotate_left(55);
        let b2 = ($a[14] ^ d4).rotate_left(39);
        let b3 = ($a[15] ^ d0).rotate_left(41);
        let b4 = ($a[21] ^ d1).rotate_left(2);
        $e[20] = b0 ^ (!b1 & b2);
        $e[21] = b1 ^ (!b2 & b3);
        $e[22] = b2 ^ (!b3 & b4);
        $e[23] = b3 ^ (!b4 & b0);
        $e[24] = b4 ^ (!b0 & b1);
    }};
}

/// Keccak-f[1600], 24 rounds, in place.
#[inline]
pub fn keccak_f1600(state: &mut [u64; 25]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("bmi1") && std::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU has the features the function is compiled for (checked just above).
        return unsafe { keccak_f1600_bmi(state) };
    }
    keccak_f1600_portable(state)
}

/// The same permutation compiled with BMI1/BMI2 (andn for `!b & c`, rorx for the rotations: fewer instructions
/// per round); chosen at run time, so the module still runs on CPUs without them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2")]
unsafe fn keccak_f1600_bmi(state: &mut [u64; 25]) {
    keccak_f1600_portable(state)
}

#[inline(always)]
fn keccak_f1600_portable(state: &mut [u64; 25]) {
    let mut a = *state;
    let mut e = [0u64; 25];
    let mut i = 0;
    while i < 24 {
        round!(a, e, RC[i]);
        round!(e, a, RC[i + 1]);
        i += 2;
    }
    *state = a;
}

#[inline(always)]
fn lane(bytes: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[8 * i..8 * i + 8]);
    u64::from_le_bytes(w)
}

/// keccak-256 of `data`, written into `out`.
#[inline]
pub fn keccak256_into(data: &[u8], out: &mut [u8; DIGEST_LEN]) {
    let mut state = [0u64; 25];
    let mut blocks = data.chunks_exact(RATE);
    for block in &mut blocks {
        for (i, s) in state.iter_mut().take(RATE_LANES).enumerate() {
            *s ^= lane(block, i);
        }
        keccak_f1600(&mut state);
    }
    // Last block: the remainder (possibly empty) with Keccak's pad10*1 and domain byte 0x01.
    let rem = blocks.remainder();
    let mut last = [0u8; RATE];
    last[..rem.len()].copy_from_slice(rem);
    last[rem.len()] = 0x01;
    last[RATE - 1] |= 0x80;
    for (i, s) in state.iter_mut().take(RATE_LANES).enumerate() {
        *s ^= lane(&last, i);
    }
    keccak_f1600(&mut state);
    for (chunk, s) in out.chunks_exact_mut(8).zip(state.iter()) {
        chunk.copy_from_slice(&s.to_le_bytes());
    }
}

/// keccak-256 of `data`.
#[inline]
pub fn keccak256(data: &[u8]) -> [u8; DIGEST_LEN] {
    let mut out = [0u8; DIGEST_LEN];
    keccak256_into(data, &mut out);
    out
}

/// Why a packed batch was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetsError {
    /// `offsets[index]` is smaller than `offsets[index - 1]`.
    Decreasing { index: usize },
    /// `offsets[index]` points past the end of the data.
    OutOfRange {
        index: usize,
        offset: u32,
        data_len: usize,
    },
}

/// Checks that `offsets` is non-decreasing and within `data_len`; returns the number of inputs (len - 1).
/// An empty `offsets` describes zero inputs.
pub fn check_offsets(offsets: &[u32], data_len: usize) -> Result<usize, OffsetsError> {
    let mut prev = 0u32;
    for (index, &offset) in offsets.iter().enumerate() {
        if offset as usize > data_len {
            return Err(OffsetsError::OutOfRange {
                index,
                offset,
                data_len,
            });
        }
        if index > 0 && offset < prev {
            return Err(OffsetsError::Decreasing { index });
        }
        prev = offset;
    }
    Ok(offsets.len().saturating_sub(1))
}

/// keccak-256 of each input `data[offsets[i]..offsets[i + 1]]`, digests written back to back into `out`.
/// Rejects bad offsets with [`check_offsets`] (so the slicing below cannot panic); `out` must hold 32 bytes per input.
pub fn keccak256_packed_into(
    data: &[u8],
    offsets: &[u32],
    out: &mut [u8],
) -> Result<(), OffsetsError> {
    let n = check_offsets(offsets, data.len())?;
    debug_assert_eq!(out.len(), n * DIGEST_LEN);
    for (bounds, digest) in offsets.windows(2).zip(out.chunks_exact_mut(DIGEST_LEN)) {
        let input = &data[bounds[0] as usize..bounds[1] as usize];
        // chunks_exact_mut yields exactly DIGEST_LEN bytes, so first_chunk_mut always succeeds.
        if let Some(digest) = digest.first_chunk_mut::<DIGEST_LEN>() {
            keccak256_into(input, digest);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Deterministic input: byte i is (i * 7 + 3) mod 256 — the same pattern the TS tests use.
    fn pattern(len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| (i.wrapping_mul(7).wrapping_add(3)) as u8)
            .collect()
    }

    #[test]
    fn empty() {
        assert_eq!(
            hex(&keccak256(b"")),
            "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
        );
    }

    #[test]
    fn abc() {
        assert_eq!(
            hex(&keccak256(b"abc")),
            "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"
        );
    }

    #[test]
    fn fox() {
        assert_eq!(
            hex(&keccak256(b"The quick brown fox jumps over the lazy dog")),
            "4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15"
        );
    }

    #[test]
    fn zero_permutation() {
        // Keccak-f[1600] of the all-zero state; first lanes from the Keccak team's KeccakF-1600 intermediate values.
        let mut s = [0u64; 25];
        keccak_f1600(&mut s);
        assert_eq!(s[0], 0xF1258F7940E1DDE7);
        assert_eq!(s[1], 0x84D5CCF933C0478A);
        assert_eq!(s[24], 0xEAF1FF7B5CECA249);
    }

    #[test]
    fn pattern_vectors_across_block_boundaries() {
        // Computed with the `keccak` npm package (an independent implementation) over pattern(len).
        let cases: [(usize, &str); 12] = [
            (
                0,
                "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
            ),
            (
                1,
                "69c322e3248a5dfc29d73c5b0553b0185a35cd5bb6386747517ef7e53b15e287",
            ),
            (
                31,
                "8522dc30be01c01348c0591309ac2948c9ae4ce02facbb745f85a5297286d3dd",
            ),
            (
                32,
                "04d1b47ed3b04c5ff6a0280293cb2ab55bd297c9c2e0c3449831b419285d7df2",
            ),
            (
                33,
                "6aa134a68136f6d487895406a25cc734a9b20cb805cd09b7c1dcb29bcd490fe6",
            ),
            (
                135,
                "00ef96af9cf4b24c7f269d922294444a197d0a33638c2e56634c57e892103a8f",
            ),
            (
                136,
                "742061bcad767ed4c4f5883b1dcb1aad11afdcc140dc469d953759b127b9f9ed",
            ),
            (
                137,
                "e3371f61e770abf254c34239c3b0099ad90594507415bc81dd0a10b9692bbf2a",
            ),
            (
                271,
                "4401c4afbe16ff911bdbf2d38e556e5b861f3fdf0f9d4306b1c46f6ae4f73584",
            ),
            (
                272,
                "ac141fd7b0a0ffcd2e967254d508da3ec616596493c36fa304425647d90e6de5",
            ),
            (
                1000,
                "80cdc8dd52cbb3dbaea8f383209893fa2bb52efbd5aedbb4b26dcfe307fcdc9b",
            ),
            (
                100000,
                "42350b8598669d17e07ef0f32083916166e0310d9faf2859dde1377b1d50826c",
            ),
        ];
        for (len, want) in cases {
            assert_eq!(hex(&keccak256(&pattern(len))), want, "length {len}");
        }
    }

    #[test]
    fn packed_matches_single() {
        let data = pattern(1000);
        let offsets = [0u32, 0, 1, 32, 168, 168, 500, 1000];
        let mut out = vec![0u8; 7 * DIGEST_LEN];
        keccak256_packed_into(&data, &offsets, &mut out).unwrap();
        for i in 0..7 {
            let want = keccak256(&data[offsets[i] as usize..offsets[i + 1] as usize]);
            assert_eq!(&out[32 * i..32 * i + 32], &want[..], "input {i}");
        }
    }

    #[test]
    fn packed_zero_inputs() {
        let mut out = [0u8; 0];
        assert_eq!(check_offsets(&[], 0), Ok(0));
        assert_eq!(check_offsets(&[0], 0), Ok(0));
        keccak256_packed_into(&[], &[0], &mut out).unwrap();
    }

    #[test]
    fn offsets_rejected() {
        assert_eq!(
            check_offsets(&[0, 5, 3], 10),
            Err(OffsetsError::Decreasing { index: 2 })
        );
        assert_eq!(
            check_offsets(&[0, 11], 10),
            Err(OffsetsError::OutOfRange {
                index: 1,
                offset: 11,
                data_len: 10
            })
        );
        assert_eq!(check_offsets(&[3, 10], 10), Ok(1));
    }
}
