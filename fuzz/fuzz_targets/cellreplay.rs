// SPDX-License-Identifier: GPL-2.0-only
//! CellReplay's files (`emu::cellreplay`): the light trace and the size
//! offsets (byte 0 picks). What parses feeds the light stage, whose
//! releases never go back in time and never come before the arrival.
#![no_main]
use std::path::Path;
use std::sync::Arc;

use emu::cellreplay::{LightStage, LightTrace, SizeOffsets};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    if pick % 2 == 1 {
        if let Ok(o) = SizeOffsets::parse(Path::new("offsets"), text) {
            for len in [0, 40, 100, 150, 1500, 9000] {
                assert!(o.at(len).abs() <= 10_000_000);
            }
        }
        return;
    }
    let Ok(t) = LightTrace::parse(Path::new("light"), text) else {
        return;
    };
    assert!(t.period_us() > 0);
    let mut stage = LightStage::new(Arc::new(t), None, 0, 0);
    let (mut now, mut last) = (0u64, 0u64);
    for (i, &b) in rest.iter().take(200).enumerate() {
        now += (b as u64) * 97;
        let r = stage.admit(now, 40 + (i as u32 * 131) % 1461);
        assert!(r.at >= now && r.at >= last, "release {} at {now}, after {last}", r.at);
        last = r.at;
    }
});
