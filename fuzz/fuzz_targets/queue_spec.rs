// SPDX-License-Identifier: GPL-2.0-only
//! Queue and loss specs (`emu::QueueSpec`'s and `emu::loss::LossModel`'s
//! `FromStr`: `--queue codel:target=5`, `--loss ge:p=0.01,r=0.3`, the
//! scenario's `queue`/`loss` strings). What parses prints (Display, the
//! log header's form) to a spec that parses to the same value.
#![no_main]
use emu::loss::LossModel;
use emu::queue::QueueSpec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(q) = s.parse::<QueueSpec>() {
        let text = q.to_string();
        let again: QueueSpec = text
            .parse()
            .unwrap_or_else(|e| panic!("`{s}` printed as `{text}`, which does not parse: {e:#}"));
        assert_eq!(again, q, "`{s}` printed as `{text}`");
    }
    if let Ok(m) = s.parse::<LossModel>() {
        let text = m.to_string();
        let again: LossModel = text
            .parse()
            .unwrap_or_else(|e| panic!("`{s}` printed as `{text}`, which does not parse: {e:#}"));
        assert_eq!(again, m, "`{s}` printed as `{text}`");
        let p = m.mean_loss();
        assert!((0.0..=1.0).contains(&p), "`{s}`: mean loss {p}");
    }
});
