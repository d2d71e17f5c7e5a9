// SPDX-License-Identifier: GPL-2.0-only
//! The UDP endpoints' JSON reports as the runner reads them
//! (`harness::flows::parse_endpoint_report`, the text behind
//! `read_report`): Sprout's, Verus's and webrtc-gcc's (the Go program's
//! `--stats`), sender and receiver; the first byte picks which.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((which, body)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(body) else {
        return;
    };
    let program = ["sprout", "verus", "webrtc-gcc"][(which % 3) as usize];
    let sender = which & 0x80 != 0;
    let _ = harness::flows::parse_endpoint_report(program, sender, text);
});
