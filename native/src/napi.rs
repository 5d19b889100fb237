//! The part of Node-API (js_native_api.h / node_api.h) this crate calls, declared by hand because crates.io is
//! unreachable, plus small helpers that turn raw status codes into `Option`s.
//!
//! The symbols are not linked against anything: the module is a cdylib loaded into the node process, whose
//! executable exports them, so the dynamic loader resolves them at `process.dlopen` time.
#![allow(non_camel_case_types)]

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::ptr;

#[repr(C)]
pub struct napi_env__ {
    _private: [u8; 0],
}
#[repr(C)]
pub struct napi_value__ {
    _private: [u8; 0],
}
#[repr(C)]
pub struct napi_callback_info__ {
    _private: [u8; 0],
}

pub type napi_env = *mut napi_env__;
pub type napi_value = *mut napi_value__;
pub type napi_callback_info = *mut napi_callback_info__;
#[repr(C)]
pub struct napi_handle_scope__ {
    _private: [u8; 0],
}
pub type napi_handle_scope = *mut napi_handle_scope__;
pub type napi_status = c_int;
pub type napi_typedarray_type = c_int;
pub type napi_callback =
    Option<unsafe extern "C" fn(env: napi_env, info: napi_callback_info) -> napi_value>;

pub const NAPI_OK: napi_status = 0;
pub const NAPI_UINT8_ARRAY: napi_typedarray_type = 1;
pub const NAPI_UINT32_ARRAY: napi_typedarray_type = 6;

unsafe extern "C" {
    pub fn napi_create_function(
        env: napi_env,
        utf8name: *const c_char,
        length: usize,
        cb: napi_callback,
        data: *mut c_void,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_set_named_property(
        env: napi_env,
        object: napi_value,
        utf8name: *const c_char,
        value: napi_value,
    ) -> napi_status;
    pub fn napi_get_cb_info(
        env: napi_env,
        cbinfo: napi_callback_info,
        argc: *mut usize,
        argv: *mut napi_value,
        this_arg: *mut napi_value,
        data: *mut *mut c_void,
    ) -> napi_status;
    pub fn napi_get_typedarray_info(
        env: napi_env,
        typedarray: napi_value,
        type_: *mut napi_typedarray_type,
        length: *mut usize,
        data: *mut *mut c_void,
        arraybuffer: *mut napi_value,
        byte_offset: *mut usize,
    ) -> napi_status;
    pub fn napi_create_buffer(
        env: napi_env,
        size: usize,
        data: *mut *mut c_void,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_create_bigint_words(
        env: napi_env,
        sign_bit: c_int,
        word_count: usize,
        words: *const u64,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_get_value_double(env: napi_env, value: napi_value, result: *mut f64)
    -> napi_status;
    pub fn napi_throw_error(env: napi_env, code: *const c_char, msg: *const c_char) -> napi_status;
    pub fn napi_throw_type_error(
        env: napi_env,
        code: *const c_char,
        msg: *const c_char,
    ) -> napi_status;
    pub fn napi_throw_range_error(
        env: napi_env,
        code: *const c_char,
        msg: *const c_char,
    ) -> napi_status;
    pub fn napi_is_exception_pending(env: napi_env, result: *mut bool) -> napi_status;
    pub fn napi_create_object(env: napi_env, result: *mut napi_value) -> napi_status;
    pub fn napi_create_double(env: napi_env, value: f64, result: *mut napi_value) -> napi_status;
    pub fn napi_call_function(
        env: napi_env,
        recv: napi_value,
        func: napi_value,
        argc: usize,
        argv: *const napi_value,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_get_undefined(env: napi_env, result: *mut napi_value) -> napi_status;
    pub fn napi_open_handle_scope(env: napi_env, result: *mut napi_handle_scope) -> napi_status;
    pub fn napi_close_handle_scope(env: napi_env, scope: napi_handle_scope) -> napi_status;
}

/// The first `N` arguments of a call; missing ones are `undefined`, extra ones are ignored.
///
/// # Safety
/// `env` and `info` must be the values Node passed to the running callback.
pub unsafe fn args<const N: usize>(
    env: napi_env,
    info: napi_callback_info,
) -> Option<[napi_value; N]> {
    let mut argv = [ptr::null_mut(); N];
    let mut argc = N;
    let status = unsafe {
        napi_get_cb_info(
            env,
            info,
            &mut argc,
            argv.as_mut_ptr(),
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    (status == NAPI_OK).then_some(argv)
}

/// The elements of a typed array of the given kind, or `None` if `value` is anything else.
///
/// # Safety
/// `env` must be the running callback's env, and the slice must not outlive the callback (the backing store is
/// kept alive by the handle scope and does not move once N-API has handed out its pointer).
unsafe fn typed_array<'a, T>(
    env: napi_env,
    value: napi_value,
    want: napi_typedarray_type,
) -> Option<&'a [T]> {
    let mut kind: napi_typedarray_type = -1;
    let mut len = 0usize;
    let mut data: *mut c_void = ptr::null_mut();
    let status = unsafe {
        napi_get_typedarray_info(
            env,
            value,
            &mut kind,
            &mut len,
            &mut data,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    if status != NAPI_OK || kind != want {
        return None;
    }
    // An empty view may have no backing store at all (null data).
    if len == 0 {
        return Some(&[]);
    }
    if data.is_null() || !(data as usize).is_multiple_of(align_of::<T>()) {
        return None;
    }
    Some(unsafe { std::slice::from_raw_parts(data as *const T, len) })
}

/// The bytes of a `Uint8Array` (a `Buffer` is one).
///
/// # Safety
/// As for [`typed_array`].
pub unsafe fn u8_slice<'a>(env: napi_env, value: napi_value) -> Option<&'a [u8]> {
    unsafe { typed_array(env, value, NAPI_UINT8_ARRAY) }
}

/// The bytes of a `Uint8Array`, writable in place.
///
/// # Safety
/// As for [`typed_array`], and no other slice over the same memory may be alive while this one is.
pub unsafe fn u8_slice_mut<'a>(env: napi_env, value: napi_value) -> Option<&'a mut [u8]> {
    let bytes: &[u8] = unsafe { typed_array(env, value, NAPI_UINT8_ARRAY) }?;
    // JS memory is not Rust-owned; the exclusivity the caller guarantees is what makes this sound.
    Some(unsafe { std::slice::from_raw_parts_mut(bytes.as_ptr() as *mut u8, bytes.len()) })
}

/// The elements of a `Uint32Array`.
///
/// # Safety
/// As for [`typed_array`].
pub unsafe fn u32_slice<'a>(env: napi_env, value: napi_value) -> Option<&'a [u32]> {
    unsafe { typed_array(env, value, NAPI_UINT32_ARRAY) }
}

/// A JS number as f64, or `None` if `value` is not a number.
///
/// # Safety
/// `env` must be the running callback's env.
pub unsafe fn f64_value(env: napi_env, value: napi_value) -> Option<f64> {
    let mut out = 0f64;
    let status = unsafe { napi_get_value_double(env, value, &mut out) };
    (status == NAPI_OK).then_some(out)
}

/// A new non-negative BigInt from its 64-bit words, least significant first. On failure a JS exception is pending.
///
/// # Safety
/// `env` must be the running callback's env.
pub unsafe fn bigint_from_words(env: napi_env, words: &[u64]) -> Option<napi_value> {
    let mut value: napi_value = ptr::null_mut();
    let status =
        unsafe { napi_create_bigint_words(env, 0, words.len(), words.as_ptr(), &mut value) };
    if status != NAPI_OK {
        unsafe { throw_error_unless_pending(env, c"ERR_NAPI", "could not create a BigInt") };
        return None;
    }
    Some(value)
}

/// A new plain object `{name: number, ...}`. On failure a JS exception is pending.
///
/// # Safety
/// `env` must be the running callback's env.
pub unsafe fn number_object(env: napi_env, fields: &[(&CStr, f64)]) -> Option<napi_value> {
    let mut object: napi_value = ptr::null_mut();
    if unsafe { napi_create_object(env, &mut object) } != NAPI_OK {
        unsafe { throw_error_unless_pending(env, c"ERR_NAPI", "could not create an object") };
        return None;
    }
    for (name, v) in fields {
        let mut value: napi_value = ptr::null_mut();
        let ok = unsafe { napi_create_double(env, *v, &mut value) } == NAPI_OK
            && unsafe { napi_set_named_property(env, object, name.as_ptr(), value) } == NAPI_OK;
        if !ok {
            unsafe {
                throw_error_unless_pending(env, c"ERR_NAPI", "could not set an object property")
            };
            return None;
        }
    }
    Some(object)
}

/// A new `Buffer` of `len` bytes and its memory, for the caller to fill in place (no copy back).
/// On failure a JS exception is pending.
///
/// # Safety
/// `env` must be the running callback's env; the slice must not outlive the callback.
pub unsafe fn create_buffer<'a>(env: napi_env, len: usize) -> Option<(napi_value, &'a mut [u8])> {
    let mut data: *mut c_void = ptr::null_mut();
    let mut value: napi_value = ptr::null_mut();
    let status = unsafe { napi_create_buffer(env, len, &mut data, &mut value) };
    if status != NAPI_OK {
        unsafe {
            throw_error_unless_pending(
                env,
                c"ERR_MEMORY_ALLOCATION_FAILED",
                "could not allocate the result Buffer",
            )
        };
        return None;
    }
    if len == 0 {
        return Some((value, &mut []));
    }
    if data.is_null() {
        unsafe {
            throw_error_unless_pending(
                env,
                c"ERR_MEMORY_ALLOCATION_FAILED",
                "could not allocate the result Buffer",
            )
        };
        return None;
    }
    Some((value, unsafe {
        std::slice::from_raw_parts_mut(data as *mut u8, len)
    }))
}

fn c_message(msg: &str) -> CString {
    // Messages are ours and hold no NUL; should one slip in, drop it rather than fail to throw.
    CString::new(msg.replace('\0', "")).unwrap_or_default()
}

/// Throws a JS `TypeError` with an error code (`err.code`); returns the null `napi_value` a callback then returns.
///
/// # Safety
/// `env` must be the running callback's env.
pub unsafe fn throw_type_error(env: napi_env, code: &CStr, msg: &str) -> napi_value {
    let msg = c_message(msg);
    unsafe { napi_throw_type_error(env, code.as_ptr(), msg.as_ptr()) };
    ptr::null_mut()
}

/// Throws a JS `RangeError` with an error code; returns the null `napi_value` a callback then returns.
///
/// # Safety
/// `env` must be the running callback's env.
pub unsafe fn throw_range_error(env: napi_env, code: &CStr, msg: &str) -> napi_value {
    let msg = c_message(msg);
    unsafe { napi_throw_range_error(env, code.as_ptr(), msg.as_ptr()) };
    ptr::null_mut()
}

/// Throws a JS `Error` unless an exception is already pending (N-API may have thrown the more precise one).
///
/// # Safety
/// `env` must be the running callback's env.
pub unsafe fn throw_error_unless_pending(env: napi_env, code: &CStr, msg: &str) {
    let mut pending = false;
    let status = unsafe { napi_is_exception_pending(env, &mut pending) };
    if status == NAPI_OK && !pending {
        let msg = c_message(msg);
        unsafe { napi_throw_error(env, code.as_ptr(), msg.as_ptr()) };
    }
}

/// Sets `exports[name]` to a JS function calling `cb`. Returns false if N-API refused.
///
/// # Safety
/// `env` and `exports` must be the values Node passed to module registration.
pub unsafe fn export_function(
    env: napi_env,
    exports: napi_value,
    name: &CStr,
    cb: unsafe extern "C" fn(napi_env, napi_callback_info) -> napi_value,
) -> bool {
    let mut func: napi_value = ptr::null_mut();
    let status = unsafe {
        napi_create_function(
            env,
            name.as_ptr(),
            usize::MAX,
            Some(cb),
            ptr::null_mut(),
            &mut func,
        )
    };
    status == NAPI_OK
        && unsafe { napi_set_named_property(env, exports, name.as_ptr(), func) } == NAPI_OK
}
