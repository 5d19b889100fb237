//! tern's N-API module. Exports are thin wrappers: they check arguments, borrow the JS memory, call the pure Rust
//! code in the modules below and write results in place. Bad arguments throw a TypeError; nothing here panics
//! (release builds abort on panic, which would take the process down).

mod evm_word;
pub mod fdlimit;
pub mod keccak;
mod napi;
pub mod rlp;
pub mod trie;
pub mod trie_update;

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

/// Trie nodes read through a JS function `getNode(hash: Uint8Array): Uint8Array | undefined`, one call per node,
/// each in its own handle scope. The hash is written into one scratch Uint8Array the caller passed (a Buffer per
/// call would cost more than the rest of the call, and its external memory drives V8 into extra collections), and
/// the node's bytes are decoded before the scope closes, so they are never copied.
struct JsNodeSource {
    env: napi_env,
    func: napi_value,
    recv: napi_value,
    scratch: napi_value,
}

impl trie_update::NodeSource for JsNodeSource {
    fn with_node<R>(
        &mut self,
        hash: &[u8; 32],
        f: impl FnOnce(Option<&[u8]>) -> R,
    ) -> Result<R, trie_update::UpdateError> {
        let env = self.env;
        // Looked up again each time: JS ran since the last call. Checked to hold 32 bytes before the first.
        match unsafe { napi::u8_slice_mut(env, self.scratch) } {
            Some(scratch) if scratch.len() >= hash.len() => {
                scratch[..hash.len()].copy_from_slice(hash)
            }
            _ => return Err(trie_update::UpdateError::ScratchGone),
        }
        let mut scope: napi::napi_handle_scope = ptr::null_mut();
        if unsafe { napi::napi_open_handle_scope(env, &mut scope) } != napi::NAPI_OK {
            return Err(trie_update::UpdateError::Source);
        }
        let mut ret: napi_value = ptr::null_mut();
        let status = unsafe {
            napi::napi_call_function(env, self.recv, self.func, 1, &self.scratch, &mut ret)
        };
        let result = if status == napi::NAPI_OK {
            // Anything but a Uint8Array (undefined, as a store answers for an absent key) is a missing node.
            Ok(f(unsafe { napi::u8_slice(env, ret) }))
        } else {
            Err(trie_update::UpdateError::Source)
        };
        unsafe { napi::napi_close_handle_scope(env, scope) };
        result
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `trieApplyUpdates(roots, jobEnds, keys, keyOffsets, values, valueOffsets, getNode, scratch): Buffer` — applies
/// updates to several tries over a node store read through `getNode(scratch)`, scratch[0, 32) holding the hash of
/// the node wanted (see trie_update.rs). Job j has old root
/// roots[32j, 32j + 32) and updates [jobEnds[j-1], jobEnds[j]) of the packed keys and values (an empty value
/// deletes). Returns one Buffer: the new roots (32 bytes per job), the number N of new nodes (u32), the offsets of
/// their RLPs in the RLP part ((N + 1) × u32, from 0 to its length; u32s in the host's byte order, 4-aligned when
/// the Buffer is), their hashes (N × 32) and their RLPs back to back. A missing node throws an Error coded
/// TRIE_MISSING_NODE, a malformed one TRIE_BAD_NODE; an exception from getNode propagates.
unsafe extern "C" fn js_trie_apply_updates(env: napi_env, info: napi_callback_info) -> napi_value {
    let Some(
        [
            roots_arg,
            ends_arg,
            keys_arg,
            key_offsets_arg,
            values_arg,
            value_offsets_arg,
            func,
            scratch,
        ],
    ) = (unsafe { napi::args::<8>(env, info) })
    else {
        return ptr::null_mut();
    };
    let func_name = "trieApplyUpdates";
    let Some(roots) = (unsafe { napi::u8_slice(env, roots_arg) }) else {
        let msg = "trieApplyUpdates: roots must be a Uint8Array";
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_TYPE, msg) };
    };
    let Some(ends) = (unsafe { napi::u32_slice(env, ends_arg) }) else {
        let msg = "trieApplyUpdates: jobEnds must be a Uint32Array";
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_TYPE, msg) };
    };
    let names = ("keys", "keyOffsets");
    let Some(keys) = (unsafe { packed_arg(env, func_name, names, keys_arg, key_offsets_arg) })
    else {
        return ptr::null_mut();
    };
    let names = ("values", "valueOffsets");
    let Some(values) =
        (unsafe { packed_arg(env, func_name, names, values_arg, value_offsets_arg) })
    else {
        return ptr::null_mut();
    };
    if keys.len() != values.len() || roots.len() != 32 * ends.len() {
        let msg = "trieApplyUpdates: roots must hold 32 bytes per job, and keys and values must be as many";
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_VALUE, msg) };
    }
    if keys.iter().any(|k| k.len() > trie_update::MAX_KEY_LEN) {
        let max = trie_update::MAX_KEY_LEN;
        let msg = format!("trieApplyUpdates: keys must be at most {max} bytes");
        return unsafe { napi::throw_range_error(env, ERR_OUT_OF_RANGE, &msg) };
    }
    let mut jobs = Vec::with_capacity(ends.len());
    let mut from = 0usize;
    for (j, &end) in ends.iter().enumerate() {
        let end = end as usize;
        if end < from || end > keys.len() {
            let msg = format!(
                "trieApplyUpdates: jobEnds[{j}] = {end} must be in [{from}, {}]",
                keys.len()
            );
            return unsafe { throw_type_error(env, ERR_INVALID_ARG_VALUE, &msg) };
        }
        let mut root = [0u8; 32];
        root.copy_from_slice(&roots[32 * j..32 * j + 32]);
        let updates = keys[from..end]
            .iter()
            .copied()
            .zip(values[from..end].iter().copied())
            .collect();
        jobs.push(trie_update::Job { root, updates });
        from = end;
    }
    if from != keys.len() {
        let msg = "trieApplyUpdates: the last of jobEnds must be the number of keys";
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_VALUE, msg) };
    }
    if (unsafe { napi::u8_slice(env, scratch) }).is_none_or(|s| s.len() < 32) {
        let msg = "trieApplyUpdates: scratch must be a Uint8Array of at least 32 bytes";
        return unsafe { throw_type_error(env, ERR_INVALID_ARG_TYPE, msg) };
    }
    let mut recv: napi_value = ptr::null_mut();
    if unsafe { napi::napi_get_undefined(env, &mut recv) } != napi::NAPI_OK {
        unsafe { napi::throw_error_unless_pending(env, c"ERR_NAPI", "napi_get_undefined failed") };
        return ptr::null_mut();
    }
    let mut source = JsNodeSource {
        env,
        func,
        recv,
        scratch,
    };
    let out = match trie_update::apply_updates_many(&jobs, &mut source) {
        Ok(out) => out,
        Err(err) => {
            let (code, msg) = match err {
                trie_update::UpdateError::MissingNode(h) => (
                    c"TRIE_MISSING_NODE",
                    format!("trie node 0x{} is missing from the node store", hex(&h)),
                ),
                trie_update::UpdateError::BadNode(msg) => (c"TRIE_BAD_NODE", msg),
                trie_update::UpdateError::Source => (
                    c"ERR_NAPI",
                    "trieApplyUpdates: getNode could not be called".into(),
                ),
                trie_update::UpdateError::ScratchGone => (
                    c"ERR_INVALID_ARG_VALUE",
                    "trieApplyUpdates: scratch was detached or shrunk by getNode".into(),
                ),
            };
            unsafe { napi::throw_error_unless_pending(env, code, &msg) };
            return ptr::null_mut();
        }
    };
    let n = out.hashes.len();
    let rlp_len = out.rlp_len();
    if u32::try_from(rlp_len).is_err() {
        let msg = "trieApplyUpdates: the new nodes exceed 4 GiB, the reach of u32 offsets";
        return unsafe { napi::throw_range_error(env, ERR_OUT_OF_RANGE, msg) };
    }
    let total = 32 * out.roots.len() + 4 + 4 * (n + 1) + 32 * n + rlp_len;
    let Some((result, buf)) = (unsafe { napi::create_buffer(env, total) }) else {
        return ptr::null_mut();
    };
    let mut at = 0;
    let mut put = |bytes: &[u8]| {
        buf[at..at + bytes.len()].copy_from_slice(bytes);
        at += bytes.len();
    };
    for r in &out.roots {
        put(r);
    }
    // Native byte order: JS reads the count and offsets through a Uint32Array view, not byte by byte.
    put(&(n as u32).to_ne_bytes());
    let mut offset = 0u32;
    put(&offset.to_ne_bytes());
    for len in &out.lengths {
        offset += len;
        put(&offset.to_ne_bytes());
    }
    for h in &out.hashes {
        put(h);
    }
    for i in 0..n {
        put(out.node_rlp(i));
    }
    result
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
            && napi::export_function(env, exports, c"keccak256Word", evm_word::js_keccak256_word)
            && napi::export_function(env, exports, c"trieRoot", js_trie_root)
            && napi::export_function(env, exports, c"secureTrieRoot", js_secure_trie_root)
            && napi::export_function(env, exports, c"orderedTrieRoot", js_ordered_trie_root)
            && napi::export_function(env, exports, c"trieApplyUpdates", js_trie_apply_updates)
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
