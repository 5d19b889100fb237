//! The process's open-file limit (RLIMIT_NOFILE), read and set through libc's getrlimit/setrlimit, declared here by
//! hand (no libc crate: crates.io is unreachable). What tern-exec's `--fdlimit` raises, as geth's common/fdlimit.
//!
//! Only Linux and macOS are covered; elsewhere [`SUPPORTED`] is false and the N-API wrappers are not exported, so
//! the JS side falls back to `prlimit`.

use std::ffi::c_int;
use std::io;

/// `rlim_t`: `unsigned long` on Linux (64 bits on 64-bit targets), `__uint64_t` on macOS.
#[cfg(target_os = "linux")]
type RlimT = std::ffi::c_ulong;
#[cfg(target_os = "macos")]
type RlimT = u64;
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
type RlimT = u64;

/// `struct rlimit { rlim_t rlim_cur; rlim_t rlim_max; }`
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct RLimit {
    rlim_cur: RlimT,
    rlim_max: RlimT,
}

/// RLIMIT_NOFILE: 7 on Linux (5 on MIPS, 6 on SPARC), 8 on macOS.
#[cfg(all(
    target_os = "linux",
    not(any(
        target_arch = "mips",
        target_arch = "mips64",
        target_arch = "sparc",
        target_arch = "sparc64"
    ))
))]
const RLIMIT_NOFILE: c_int = 7;
#[cfg(all(target_os = "linux", any(target_arch = "mips", target_arch = "mips64")))]
const RLIMIT_NOFILE: c_int = 5;
#[cfg(all(
    target_os = "linux",
    any(target_arch = "sparc", target_arch = "sparc64")
))]
const RLIMIT_NOFILE: c_int = 6;
#[cfg(target_os = "macos")]
const RLIMIT_NOFILE: c_int = 8;

/// RLIM_INFINITY: all ones on Linux, 2^63 - 1 on macOS.
#[cfg(target_os = "linux")]
const RLIM_INFINITY: RlimT = RlimT::MAX;
#[cfg(target_os = "macos")]
const RLIM_INFINITY: RlimT = (1u64 << 63) - 1;

/// Whether this platform has the functions below.
pub const SUPPORTED: bool = cfg!(any(target_os = "linux", target_os = "macos"));

#[cfg(any(target_os = "linux", target_os = "macos"))]
unsafe extern "C" {
    fn getrlimit(resource: c_int, rlim: *mut RLimit) -> c_int;
    fn setrlimit(resource: c_int, rlim: *const RLimit) -> c_int;
}

/// A limit as a number JS can hold: `f64::INFINITY` for RLIM_INFINITY (values above 2^53 lose precision, which no
/// real file-descriptor limit reaches).
#[cfg(any(target_os = "linux", target_os = "macos"))]
fn to_f64(v: RlimT) -> f64 {
    if v == RLIM_INFINITY {
        f64::INFINITY
    } else {
        v as f64
    }
}

/// The soft (current) and hard (maximum) limits on open files.
#[cfg(any(target_os = "linux", target_os = "macos"))]
fn read() -> io::Result<RLimit> {
    let mut lim = RLimit::default();
    // SAFETY: `lim` is a valid, writable struct rlimit for the duration of the call.
    if unsafe { getrlimit(RLIMIT_NOFILE, &mut lim) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(lim)
}

/// (soft, hard), `f64::INFINITY` standing for unlimited.
#[cfg(any(target_os = "linux", target_os = "macos"))]
pub fn get_fd_limit() -> io::Result<(f64, f64)> {
    let lim = read()?;
    Ok((to_f64(lim.rlim_cur), to_f64(lim.rlim_max)))
}

/// Sets the soft limit to `soft` (infinite or above the representable range: RLIM_INFINITY), keeping the hard limit.
/// The kernel refuses (EINVAL) a soft limit above the hard one; lowering is always allowed. Returns the new
/// (soft, hard) as read back.
#[cfg(any(target_os = "linux", target_os = "macos"))]
pub fn set_fd_limit(soft: f64) -> io::Result<(f64, f64)> {
    if soft.is_nan() || soft < 0.0 {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    }
    let mut lim = read()?;
    lim.rlim_cur = if soft.is_infinite() || soft >= RLIM_INFINITY as f64 {
        RLIM_INFINITY
    } else {
        soft as RlimT
    };
    // SAFETY: `lim` is a valid struct rlimit for the duration of the call.
    if unsafe { setrlimit(RLIMIT_NOFILE, &lim) } != 0 {
        return Err(io::Error::last_os_error());
    }
    get_fd_limit()
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
pub fn get_fd_limit() -> io::Result<(f64, f64)> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
pub fn set_fd_limit(_soft: f64) -> io::Result<(f64, f64)> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

#[cfg(all(test, any(target_os = "linux", target_os = "macos")))]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// The limit is per process and tests run on parallel threads: one test at a time touches it.
    static LIMIT: Mutex<()> = Mutex::new(());

    #[test]
    fn reads_a_soft_limit_not_above_the_hard_one() {
        let _guard = LIMIT.lock().unwrap_or_else(|e| e.into_inner());
        let (soft, hard) = get_fd_limit().unwrap();
        assert!(soft >= 1.0);
        assert!(soft <= hard);
    }

    #[test]
    fn lowers_and_restores_the_soft_limit() {
        let _guard = LIMIT.lock().unwrap_or_else(|e| e.into_inner());
        let (soft, hard) = get_fd_limit().unwrap();
        let lower = (soft - 1.0).max(64.0).min(soft);
        let (now, now_hard) = set_fd_limit(lower).unwrap();
        assert_eq!(now, lower);
        assert_eq!(now_hard, hard);
        let (back, _) = set_fd_limit(soft).unwrap();
        assert_eq!(back, soft);
    }

    #[test]
    fn refuses_more_than_the_hard_limit_and_bad_values() {
        let _guard = LIMIT.lock().unwrap_or_else(|e| e.into_inner());
        let (soft, hard) = get_fd_limit().unwrap();
        if hard.is_finite() {
            assert!(set_fd_limit(hard + 1.0).is_err());
        }
        assert!(set_fd_limit(-1.0).is_err());
        assert!(set_fd_limit(f64::NAN).is_err());
        assert_eq!(get_fd_limit().unwrap().0, soft);
    }
}
