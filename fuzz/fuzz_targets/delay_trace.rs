// SPDX-License-Identifier: GPL-2.0-only
//! Delay traces (`emu::delay::DelayTrace::parse`, after the same
//! `decode_text` as `DelayTrace::load`): both formats, any resolution the
//! first bytes choose. What parses gives a delay of at most a minute at
//! any time, and a delay line fed from it never reorders packets.
#![no_main]
use std::path::Path;

use emu::delay::DelayTrace;
use emu::trace::decode_text;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (res, body) = match data.split_first() {
        Some((r, b)) => (
            [1.0, 0.001, 0.5, 10.0, 1000.0, 0.0, f64::NAN, 60_000.0][*r as usize % 8],
            b,
        ),
        None => return,
    };
    let Ok(text) = decode_text(body.to_vec()) else {
        return;
    };
    let Ok(t) = DelayTrace::parse(Path::new("fuzz.delay"), &text, res) else {
        return;
    };
    let min = t.min_us();
    for at in [0u64, 1, 999, 1_000, 123_456, 60_000_000, 3_600_000_000, u64::MAX / 2] {
        let d = t.delay_at(at);
        assert!(d <= 60_000_000, "a delay of {d} µs at {at} µs");
        assert!(d >= min);
    }
});
