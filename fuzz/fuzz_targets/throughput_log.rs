// SPDX-License-Identifier: GPL-2.0-only
//! Throughput logs (`c2tcp trace import`: `emu::import::read_gnettrack`,
//! `read_plain`; byte 0 picks the format). What parses is a schedule from 0
//! whose steps increase and lie inside it, and whose opportunities (even,
//! and Poisson when small) are a runnable trace of that length.
#![no_main]
use std::path::Path;

use emu::import::{self, GNetTrackFilter, Spacing};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let file = Path::new("log.csv");
    let parsed = match pick % 3 {
        0 => import::read_plain(file, text),
        1 => import::read_gnettrack(file, text, &GNetTrackFilter::default()),
        _ => import::read_gnettrack(
            file,
            text,
            &GNetTrackFilter {
                states: Vec::new(),
                ..Default::default()
            },
        ),
    };
    let Ok(s) = parsed else {
        return;
    };
    assert_eq!(s.steps[0].start_ms, 0);
    assert!(s.steps.windows(2).all(|w| w[0].start_ms < w[1].start_ms));
    assert!(s.steps.last().unwrap().start_ms < s.duration_ms);
    // Generating a long trace is slow; the schedule's checks are the point.
    if s.mean_mbps() * s.duration_ms as f64 > 2e7 {
        return;
    }
    for spacing in [Spacing::Even, Spacing::Poisson { seed: 1 }] {
        if let Ok(o) = s.opportunities(spacing) {
            assert!(o.windows(2).all(|w| w[0] <= w[1]));
            assert_eq!(*o.last().unwrap(), s.duration_ms);
        }
    }
});
