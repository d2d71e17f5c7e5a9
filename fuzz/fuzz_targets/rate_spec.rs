// SPDX-License-Identifier: GPL-2.0-only
//! Rate specs given instead of a trace file (`emu::rate_spec::parse`:
//! `constant:MBPS`, `steps:START_S:MBPS,...@PERIOD_S`). What parses is a
//! runnable trace within the rate limits, named by its spec.
#![no_main]
use emu::rate_spec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(spec) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(Some(t)) = rate_spec::parse(spec) else {
        return;
    };
    assert!(rate_spec::is_rate_spec(spec));
    assert!(t.opportunities.windows(2).all(|w| w[0] <= w[1]));
    assert!(t.period_ms() > 0);
    let s = t.summary();
    // A whole second holds whole opportunities: a little above the limit.
    assert!(s.peak_mbps <= rate_spec::MAX_MBPS + 1.0, "{spec}: peak {}", s.peak_mbps);
});
