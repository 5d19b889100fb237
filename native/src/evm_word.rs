//! The EVM interpreter's KECCAK256 opcode in one call: hash a range of the frame's memory where it lies and hand
//! the digest back as the BigInt stack word, so the opcode neither copies its input nor parses a digest in JS.

use std::ptr;

use crate::keccak::{self, DIGEST_LEN};
use crate::napi::{self, napi_callback_info, napi_env, napi_value, throw_type_error};
use crate::{ERR_INVALID_ARG_TYPE, ERR_INVALID_ARG_VALUE};

/// The 256-bit big-endian number `bytes` as four 64-bit words, least significant first (N-API's BigInt order).
pub fn be_words(bytes: &[u8; 32]) -> [u64; 4] {
    let mut words = [0u64; 4];
    for (i, chunk) in bytes.chunks_exact(8).enumerate() {
        let mut lane = [0u8; 8];
        lane.copy_from_slice(chunk);
        words[3 - i] = u64::from_be_bytes(lane);
    }
    words
}

/// keccak-256 of `data[offset, offset + len)` as a number, or `None` when the range is not inside `data`.
pub fn keccak256_word(data: &[u8], offset: usize, len: usize) -> Option<[u64; 4]> {
    let input = data.get(offset..offset.checked_add(len)?)?;
    let mut digest = [0u8; DIGEST_LEN];
    keccak::keccak256_into(input, &mut digest);
    Some(be_words(&digest))
}

/// A JS number that is an integer in [0, 2^53), as usize.
unsafe fn index_arg(env: napi_env, value: napi_value) -> Option<usize> {
    let v = unsafe { napi::f64_value(env, value) }?;
    (v >= 0.0 && v.fract() == 0.0 && v < 9_007_199_254_740_992.0).then_some(v as usize)
}

/// `keccak256Word(data: Uint8Array, offset: number, len: number): bigint` — keccak-256 of data[offset, offset + len)
/// as a BigInt (the digest read big-endian). TypeError for a range outside data.
pub unsafe extern "C" fn js_keccak256_word(env: napi_env, info: napi_callback_info) -> napi_value {
    let Some([data_arg, offset_arg, len_arg]) = (unsafe { napi::args::<3>(env, info) }) else {
        return ptr::null_mut();
    };
    let Some(data) = (unsafe { napi::u8_slice(env, data_arg) }) else {
        let msg = "keccak256Word: data must be a Uint8Array";
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_TYPE, msg) };
    };
    let offset = unsafe { index_arg(env, offset_arg) };
    let len = unsafe { index_arg(env, len_arg) };
    let (Some(offset), Some(len)) = (offset, len) else {
        let msg = "keccak256Word: offset and len must be non-negative integers";
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_VALUE, msg) };
    };
    let Some(words) = keccak256_word(data, offset, len) else {
        let msg = format!(
            "keccak256Word: range [{offset}, {offset} + {len}) is outside data (length {})",
            data.len()
        );
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_VALUE, &msg) };
    };
    unsafe { napi::bigint_from_words(env, &words) }.unwrap_or(ptr::null_mut())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_the_digest_read_big_endian() {
        let mut bytes = [0u8; 32];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = i as u8;
        }
        let w = be_words(&bytes);
        assert_eq!(w[3], 0x0001_0203_0405_0607);
        assert_eq!(w[0], 0x1819_1a1b_1c1d_1e1f);
    }

    #[test]
    fn hashes_the_range_and_refuses_ranges_outside() {
        // keccak256("") = c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470
        let w = keccak256_word(&[1, 2, 3], 3, 0).expect("empty range at the end");
        assert_eq!(w[3], 0xc5d2_4601_86f7_233c);
        assert_eq!(w[0], 0x7bfa_d804_5d85_a470);
        assert!(keccak256_word(&[1, 2, 3], 2, 2).is_none());
        assert!(keccak256_word(&[1, 2, 3], usize::MAX, 2).is_none());
    }
}
