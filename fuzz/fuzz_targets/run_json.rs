// SPDX-License-Identifier: GPL-2.0-only
//! `run.json` (`results::RunInfo::parse`, what `RunInfo::read`, the
//! report, `discover` and `merge` read). What parses is of a version this
//! code reads and writes back (as `RunInfo::write` does) to text that
//! parses to the same record.
#![no_main]
use libfuzzer_sys::fuzz_target;
use results::RunInfo;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(info) = RunInfo::parse(text) else {
        return;
    };
    let back = serde_json::to_string_pretty(&info).expect("run.json serializes");
    let again = RunInfo::parse(&back)
        .unwrap_or_else(|e| panic!("a run.json written back does not parse: {e:#}\n{back}"));
    assert_eq!(again, info, "{back}");
});
