//! tern's N-API module. Exports are thin wrappers: they check arguments, borrow the JS memory, call the pure Rust
//! code in the modules below and write results in place. Bad arguments throw a TypeError; nothing here panics
//! (release builds abort on panic, which would take the process down).

pub mod fdlimit;
pub mod keccak;
mod napi;
pub mod rlp;
pub mod trie;

use std::ffi::CStr;
use std::ptr;

use keccak::DIGEST_LEN;
use napi::{napi_callback_info, napi_env, napi_value, throw_type_error};

const ERR_INVALID_ARG_TYPE: &CStr = c"ERR_INVALID_ARG_TYPE";
const ERR_INVALID_ARG_VALUE: &CStr = c"ERR_INVALID_ARG_VALUE";
const ERR_OUT_OF_RANGE: &CStr = c"ERR_OUT_OF_RANGE";

/// `keccak256(data: Uint8Array): Buffer` — the 32-byte digest.
unsafe extern "C" fn js_keccak256(env: napi_env, info: napi_callback_info) -> napi_value {
    let Some([arg]) = (unsafe { napi::args::<1>(env, info) }) else {
        return ptr::null_mut();
    };
    let Some(data) = (unsafe { napi::u8_slice(env, arg) }) else {
        let msg = "keccak256: data must be a Uint8Array";
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_TYPE, msg) };
    };
    let Some((result, out)) = (unsafe { napi::create_buffer(env, DIGEST_LEN) }) else {
        return ptr::null_mut();
    };
    if let Some(digest) = out.first_chunk_mut::<DIGEST_LEN>() {
        keccak::keccak256_into(data, digest);
    }
    result
}

/// `keccak256Scratch(scratch: Uint8Array, len: number): void` — hashes scratch[0, len) and writes the digest to
/// scratch[len, len + 32). It allocates nothing: creating a Buffer through N-API costs more than the hash of a
/// short input, and so does reading a small on-heap Uint8Array (V8 must move it off-heap first). The JS wrapper
/// copies short inputs into one long-lived scratch array instead.
unsafe extern "C" fn js_keccak256_scratch(env: napi_env, info: napi_callback_info) -> napi_value {
    let Some([scratch_arg, len_arg]) = (unsafe { napi::args::<2>(env, info) }) else {
        return ptr::null_mut();
    };
    let Some(scratch) = (unsafe { napi::u8_slice_mut(env, scratch_arg) }) else {
        let msg = "keccak256Scratch: scratch must be a Uint8Array";
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_TYPE, msg) };
    };
    let Some(len) = (unsafe { napi::f64_value(env, len_arg) }) else {
        let msg = "keccak256Scratch: len must be a number";
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_TYPE, msg) };
    };
    let Some(room) = scratch.len().checked_sub(DIGEST_LEN) else {
        let msg = "keccak256Scratch: scratch must hold at least 32 bytes";
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_VALUE, msg) };
    };
    if !(len >= 0.0 && len.fract() == 0.0 && len <= room as f64) {
        let msg = format!(
            "keccak256Scratch: len must be an integer in [0, {room}] (scratch length - 32), got {len}"
        );
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_VALUE, &msg) };
    }
    let (input, rest) = scratch.split_at_mut(len as usize);
    if let Some(digest) = rest.first_chunk_mut::<DIGEST_LEN>() {
        keccak::keccak256_into(input, digest);
    }
    ptr::null_mut()
}

/// `keccak256Packed(data: Uint8Array, offsets: Uint32Array): Buffer` — digests of data[offsets[i], offsets[i+1])
/// back to back, 32 bytes each, written straight into the one result Buffer.
unsafe extern "C" fn js_keccak256_packed(env: napi_env, info: napi_callback_info) -> napi_value {
    let Some([data_arg, offsets_arg]) = (unsafe { napi::args::<2>(env, info) }) else {
        return ptr::null_mut();
    };
    let Some(data) = (unsafe { napi::u8_slice(env, data_arg) }) else {
        let msg = "keccak256Packed: data must be a Uint8Array";
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_TYPE, msg) };
    };
    let Some(offsets) = (unsafe { napi::u32_slice(env, offsets_arg) }) else {
        let msg = "keccak256Packed: offsets must be a Uint32Array";
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_TYPE, msg) };
    };
    // Validate before allocating so a bad call costs nothing and throws the precise error.
    let n = match keccak::check_offsets(offsets, data.len()) {
        Ok(n) => n,
        Err(err) => {
            return unsafe { throw_type_error(env, ERR_INVALID_ARG_VALUE, &offsets_message(err)) };
        }
    };
    let Some((result, out)) = (unsafe { napi::create_buffer(env, n * DIGEST_LEN) }) else {
        return ptr::null_mut();
    };
    if let Err(err) = keccak::keccak256_packed_into(data, offsets, out) {
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_VALUE, &offsets_message(err)) };
    }
    result
}

fn offsets_message(err: keccak::OffsetsError) -> String {
    packed_message("keccak256Packed", "offsets", err)
}

fn packed_message(func: &str, name: &str, err: keccak::OffsetsError) -> String {
    match err {
        keccak::OffsetsError::Decreasing { index } => format!(
            "{func}: {name} must not decrease ({name}[{index}] < {name}[{}])",
            index - 1
        ),
        keccak::OffsetsError::OutOfRange {
            index,
            offset,
            data_len,
        } => format!(
            "{func}: {name}[{index}] = {offset} is past the end of data (length {data_len})"
        ),
    }
}

/// Reads one packed argument pair (a Uint8Array and its Uint32Array offsets) into slices, or throws naming it.
///
/// # Safety
/// `env` and the values must belong to the running callback; the slices must not outlive it.
unsafe fn packed_arg<'a>(
    env: napi_env,
    func: &str,
    names: (&str, &str),
    data_arg: napi_value,
    offsets_arg: napi_value,
) -> Option<Vec<&'a [u8]>> {
    let Some(data) = (unsafe { napi::u8_slice(env, data_arg) }) else {
        let msg = format!("{func}: {} must be a Uint8Array", names.0);
        unsafe { throw_type_error(env, ERR_INVALID_ARG_TYPE, &msg) };
        return None;
    };
    let Some(offsets) = (unsafe { napi::u32_slice(env, offsets_arg) }) else {
        let msg = format!("{func}: {} must be a Uint32Array", names.1);
        unsafe { throw_type_error(env, ERR_INVALID_ARG_TYPE, &msg) };
        return None;
    };
    if let Err(err) = keccak::check_offsets(offsets, data.len()) {
        let msg = packed_message(func, names.1, err);
        unsafe { throw_type_error(env, ERR_INVALID_ARG_VALUE, &msg) };
        return None;
    }
    Some(trie::unpack(data, offsets))
}

/// Returns a 32-byte root as a new Buffer.
///
/// # Safety
/// `env` must be the running callback's env.
unsafe fn root_buffer(env: napi_env, root: &[u8; 32]) -> napi_value {
    let Some((result, out)) = (unsafe { napi::create_buffer(env, root.len()) }) else {
        return ptr::null_mut();
    };
    out.copy_from_slice(root);
    result
}

/// A root over parallel key and value slices, None when a key is too long for it.
type RootFn = fn(&[&[u8]], &[&[u8]]) -> Option<[u8; 32]>;

/// Shared body of `trieRoot` and `secureTrieRoot`: (keys, keyOffsets, values, valueOffsets) -> 32-byte root.
///
/// # Safety
/// `env` and `info` must be the values Node passed to the running callback.
unsafe fn keyed_root(
    env: napi_env,
    info: napi_callback_info,
    func: &str,
    root: RootFn,
) -> napi_value {
    let Some([keys_arg, key_offsets_arg, values_arg, value_offsets_arg]) =
        (unsafe { napi::args::<4>(env, info) })
    else {
        return ptr::null_mut();
    };
    let names = ("keys", "keyOffsets");
    let Some(keys) = (unsafe { packed_arg(env, func, names, keys_arg, key_offsets_arg) }) else {
        return ptr::null_mut();
    };
    let names = ("values", "valueOffsets");
    let Some(values) = (unsafe { packed_arg(env, func, names, values_arg, value_offsets_arg) })
    else {
        return ptr::null_mut();
    };
    if keys.len() != values.len() {
        let msg = format!(
            "{func}: {} keys but {} values (keyOffsets and valueOffsets must have the same length)",
            keys.len(),
            values.len()
        );
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_VALUE, &msg) };
    }
    match root(&keys, &values) {
        Some(r) => unsafe { root_buffer(env, &r) },
        None => {
            let max = trie::MAX_KEY_LEN;
            let msg =
                format!("{func}: keys must be at most {max} bytes (the recursion depth bound)");
            unsafe { napi::throw_range_error(env, ERR_OUT_OF_RANGE, &msg) }
        }
    }
}

/// `trieRoot(keys, keyOffsets, values, valueOffsets): Buffer` — the Merkle-Patricia root of the packed entries.
unsafe extern "C" fn js_trie_root(env: napi_env, info: napi_callback_info) -> napi_value {
    unsafe { keyed_root(env, info, "trieRoot", checked_trie_root) }
}

/// [`trie::trie_root`], or None when a key is longer than [`trie::MAX_KEY_LEN`].
fn checked_trie_root(keys: &[&[u8]], values: &[&[u8]]) -> Option<[u8; 32]> {
    if keys.iter().any(|k| k.len() > trie::MAX_KEY_LEN) {
        return None;
    }
    Some(trie::trie_root(keys, values))
}

/// [`trie::secure_trie_root`]: hashed keys have no length limit.
fn any_secure_trie_root(keys: &[&[u8]], values: &[&[u8]]) -> Option<[u8; 32]> {
    Some(trie::secure_trie_root(keys, values))
}

/// `secureTrieRoot(keys, keyOffsets, values, valueOffsets): Buffer` — as trieRoot with keccak-256 keys.
unsafe extern "C" fn js_secure_trie_root(env: napi_env, info: napi_callback_info) -> napi_value {
    unsafe { keyed_root(env, info, "secureTrieRoot", any_secure_trie_root) }
}

/// `orderedTrieRoot(values, valueOffsets): Buffer` — root of the trie holding value i under RLP(i).
unsafe extern "C" fn js_ordered_trie_root(env: napi_env, info: napi_callback_info) -> napi_value {
    let Some([values_arg, offsets_arg]) = (unsafe { napi::args::<2>(env, info) }) else {
        return ptr::null_mut();
    };
    let func = "orderedTrieRoot";
    let names = ("values", "valueOffsets");
    let Some(values) = (unsafe { packed_arg(env, func, names, values_arg, offsets_arg) }) else {
        return ptr::null_mut();
    };
    unsafe { root_buffer(env, &trie::ordered_trie_root(&values)) }
}

/// `{soft, hard}` as a JS object (Infinity for unlimited), or throws an Error coded ERR_FDLIMIT.
///
/// # Safety
/// `env` must be the running callback's env.
unsafe fn fd_limit_result(env: napi_env, func: &str, r: std::io::Result<(f64, f64)>) -> napi_value {
    match r {
        Ok((soft, hard)) => {
            unsafe { napi::number_object(env, &[(c"soft", soft), (c"hard", hard)]) }
                .unwrap_or(ptr::null_mut())
        }
        Err(err) => {
            let msg = format!("{func}: {err}");
            unsafe { napi::throw_error_unless_pending(env, ERR_FDLIMIT, &msg) };
            ptr::null_mut()
        }
    }
}

const ERR_FDLIMIT: &CStr = c"ERR_FDLIMIT";

/// `getFdLimit(): {soft: number, hard: number}` — the open-file limit (RLIMIT_NOFILE) of this process.
unsafe extern "C" fn js_get_fd_limit(env: napi_env, _info: napi_callback_info) -> napi_value {
    unsafe { fd_limit_result(env, "getFdLimit", fdlimit::get_fd_limit()) }
}

/// `setFdLimit(soft: number): {soft, hard}` — sets the soft open-file limit (Infinity: unlimited), keeping the hard
/// one; the operating system refuses more than the hard limit (an Error coded ERR_FDLIMIT).
unsafe extern "C" fn js_set_fd_limit(env: napi_env, info: napi_callback_info) -> napi_value {
    let Some([arg]) = (unsafe { napi::args::<1>(env, info) }) else {
        return ptr::null_mut();
    };
    let Some(soft) = (unsafe { napi::f64_value(env, arg) }) else {
        let msg = "setFdLimit: soft must be a number";
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_TYPE, msg) };
    };
    if soft.is_nan() || soft < 0.0 || (soft.is_finite() && soft.fract() != 0.0) {
        let msg =
            format!("setFdLimit: soft must be a non-negative integer or Infinity, got {soft}");
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_VALUE, &msg) };
    }
    unsafe { fd_limit_result(env, "setFdLimit", fdlimit::set_fd_limit(soft)) }
}

/// Node-API version this module needs (8 is what Node 20 guarantees); Node reads it before registering.
#[unsafe(no_mangle)]
pub extern "C" fn node_api_module_get_api_version_v1() -> i32 {
    8
}

/// Module entry point, found by name when Node loads the .node file.
///
/// # Safety
/// Called by Node with a valid env and exports object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn napi_register_module_v1(env: napi_env, exports: napi_value) -> napi_value {
    let ok = unsafe {
        napi::export_function(env, exports, c"keccak256", js_keccak256)
            && napi::export_function(env, exports, c"keccak256Scratch", js_keccak256_scratch)
            && napi::export_function(env, exports, c"keccak256Packed", js_keccak256_packed)
            && napi::export_function(env, exports, c"trieRoot", js_trie_root)
            && napi::export_function(env, exports, c"secureTrieRoot", js_secure_trie_root)
            && napi::export_function(env, exports, c"orderedTrieRoot", js_ordered_trie_root)
            && (!fdlimit::SUPPORTED
                || (napi::export_function(env, exports, c"getFdLimit", js_get_fd_limit)
                    && napi::export_function(env, exports, c"setFdLimit", js_set_fd_limit)))
    };
    if !ok {
        let msg = "tern_native: could not register exports";
        unsafe { napi::throw_error_unless_pending(env, c"ERR_NATIVE_INIT", msg) };
        return ptr::null_mut();
    }
    exports
}
