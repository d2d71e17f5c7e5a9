// SPDX-License-Identifier: GPL-2.0-only
//! Link specs as users give them (`emu::LinkSpec::parse`: a rate spec,
//! `constant:MBPS` or `steps:START_S:MBPS,...@PERIOD_S`, a trace file, or
//! CellReplay's `cellreplay:LIGHT,HEAVY,...`). What parses prints as
//! written, and a rate spec that parses makes a runnable trace within the
//! rate limits, named by its spec (what parsing let through, making the
//! trace does not refuse).
#![no_main]
use emu::rate_spec::{self, TraceSpec};
use emu::LinkSpec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(spec) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(link) = LinkSpec::parse(spec) else {
        return;
    };
    assert_eq!(link.to_string(), spec);
    let LinkSpec::Trace(TraceSpec::Rate(rate)) = link else {
        return;
    };
    let t = rate
        .trace()
        .unwrap_or_else(|e| panic!("`{spec}` parsed, but its trace is refused: {e:#}"));
    assert_eq!(t.path.to_str(), Some(spec));
    assert!(t.opportunities.windows(2).all(|w| w[0] <= w[1]));
    assert!(t.period_ms() > 0);
    let s = t.summary();
    // A whole second holds whole opportunities: a little above the limit.
    assert!(s.peak_mbps <= rate_spec::MAX_MBPS + 1.0, "{spec}: peak {}", s.peak_mbps);
});
