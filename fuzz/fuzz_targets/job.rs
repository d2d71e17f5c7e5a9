// SPDX-License-Identifier: GPL-2.0-only
//! Bench jobs (`harness::bench::Job::parse`, what `c2tcp run --job` reads
//! from a `c2tcp bench --list` line or file). What parses prints
//! (`to_line`) to a line that parses to the same job.
#![no_main]
use harness::bench::Job;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(job) = Job::parse(text) else {
        return;
    };
    let line = job.to_line().expect("a job prints");
    let back = Job::parse(&line).unwrap_or_else(|e| panic!("a printed job does not parse: {e:#}\n{line}"));
    assert_eq!(back, job, "{line}");
});
