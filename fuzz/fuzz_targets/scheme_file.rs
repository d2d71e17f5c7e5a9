// SPDX-License-Identifier: GPL-2.0-only
//! Scheme files (`harness::scheme::file::parse`, what every
//! `schemes/*.toml`, `$C2TCP_SCHEMES` file and `--scheme-file` goes
//! through, and a bench's child again with the carried text). What parses
//! is a scheme whose knobs have finite ranges holding their defaults, and
//! whose command lines fill in without an unknown placeholder.
#![no_main]
use std::path::PathBuf;

use harness::scheme::file::{parse, Carried};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let c = Carried {
        path: PathBuf::from("/nonexistent/schemes/fuzzed.toml"),
        text: text.to_string(),
    };
    let Ok(s) = parse(&c) else {
        return;
    };
    assert_eq!(s.carried, c);
    for k in &s.scheme.knobs {
        assert!(k.min.is_finite() && k.max.is_finite() && k.min <= k.max, "{}", k.name);
    }
    // The same text parses the same way again (a bench's child does).
    let again = parse(&c).expect("a scheme file parses twice");
    assert_eq!(again.scheme.name, s.scheme.name);
});
