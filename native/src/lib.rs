//! tern's N-API module. Exports are thin wrappers: they check arguments, borrow the JS memory, call the pure Rust
//! code in the modules below and write results in place. Bad arguments throw a TypeError; nothing here panics
//! (release builds abort on panic, which would take the process down).

pub mod keccak;
mod napi;

use std::ffi::CStr;
use std::ptr;

use keccak::DIGEST_LEN;
use napi::{napi_callback_info, napi_env, napi_value, throw_type_error};

const ERR_INVALID_ARG_TYPE: &CStr = c"ERR_INVALID_ARG_TYPE";
const ERR_INVALID_ARG_VALUE: &CStr = c"ERR_INVALID_ARG_VALUE";

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
    match err {
        keccak::OffsetsError::Decreasing { index } => format!(
            "keccak256Packed: offsets must not decrease (offsets[{index}] < offsets[{}])",
            index - 1
        ),
        keccak::OffsetsError::OutOfRange {
            index,
            offset,
            data_len,
        } => format!(
            "keccak256Packed: offsets[{index}] = {offset} is past the end of data (length {data_len})"
        ),
    }
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
    };
    if !ok {
        let msg = "tern_native: could not register exports";
        unsafe { napi::throw_error_unless_pending(env, c"ERR_NATIVE_INIT", msg) };
        return ptr::null_mut();
    }
    exports
}
