// SPDX-License-Identifier: GPL-2.0-only
//! Claims files (`report::claims::spec::parse`, what `c2tcp claims` reads
//! from `claims/*.toml`). What parses has unique ids, a check each, a
//! bench inside the bench root, and bounds that print.
#![no_main]
use std::collections::BTreeSet;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use report::claims::spec;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(f) = spec::parse(text, Path::new("fuzzed.toml")) else {
        return;
    };
    let mut ids = BTreeSet::new();
    for c in &f.claims {
        assert!(ids.insert(c.id.clone()), "id {:?} twice", c.id);
        assert!(!c.checks.is_empty());
        assert!(!c.bench.is_empty() && !Path::new(&c.bench).is_absolute());
        for k in &c.checks {
            let _ = k.bound_text();
            let _ = k.holds(0.0);
            let _ = k.holds(f64::NAN);
        }
    }
});
