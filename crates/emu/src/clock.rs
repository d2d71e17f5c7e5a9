// SPDX-License-Identifier: GPL-2.0-only
//! The emulator's clock: CLOCK_MONOTONIC in microseconds (never steps with
//! wall-clock changes), and the timer slack that makes sleeps precise.

/// Microseconds since an arbitrary fixed point (CLOCK_MONOTONIC).
pub type Micros = u64;

/// Now, in µs of CLOCK_MONOTONIC (a vDSO call, no syscall).
#[inline]
pub fn now_us() -> Micros {
    plumbing::clock::monotonic_us()
}

/// Makes this thread's timed sleeps (ppoll) wake as close to the deadline as
/// the kernel can: the default slack of 50 µs would eat a quarter of our
/// 200 µs scheduling-error budget.
pub fn set_minimal_timer_slack() {
    plumbing::clock::set_minimal_timer_slack();
}

/// Puts this thread in the SCHED_FIFO real-time class (low priority 10),
/// so compilers and other busy processes on a small machine cannot delay a
/// delivery by a whole scheduler tick. Its busy-waits are bounded (tens of
/// µs before a deadline) and the kernel's RT throttling caps it anyway.
/// Returns false (and changes nothing) without the privilege.
pub fn set_realtime() -> bool {
    let param = libc::sched_param { sched_priority: 10 };
    // SAFETY: sched_setscheduler on the calling thread (0) with a valid param.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}

/// Formats `us` (relative µs) as milliseconds with exactly 3 decimals into
/// `out`, without allocating: `1234567` → `1234.567`.
pub fn write_ms3(out: &mut Vec<u8>, us: u64) {
    write_u64(out, us / 1000);
    let frac = us % 1000;
    out.push(b'.');
    out.push(b'0' + (frac / 100) as u8);
    out.push(b'0' + (frac / 10 % 10) as u8);
    out.push(b'0' + (frac % 10) as u8);
}

/// Appends the decimal digits of `v`.
pub fn write_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ms_with_three_decimals() {
        let mut v = Vec::new();
        write_ms3(&mut v, 1_234_567);
        v.push(b' ');
        write_ms3(&mut v, 5);
        v.push(b' ');
        write_ms3(&mut v, 0);
        assert_eq!(String::from_utf8(v).unwrap(), "1234.567 0.005 0.000");
    }

    #[test]
    fn clock_is_monotonic_and_in_microseconds() {
        let a = now_us();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let b = now_us();
        assert!(b - a >= 20_000 && b - a < 2_000_000, "{a} -> {b}");
    }
}
