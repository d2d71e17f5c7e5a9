// SPDX-License-Identifier: GPL-2.0-only
//! Mahimahi delivery traces, plain or gzip (`emu::trace::decode_text`
//! then `Trace::parse`: what `Trace::load` does with a file's bytes).
//! What parses is a trace the emulator can run: non-decreasing, ending
//! after 0 ms; written back one timestamp a line it parses to the same
//! opportunities; a cursor over it loops forward in time without a panic.
#![no_main]
use std::path::Path;

use emu::trace::{decode_text, Cursor, Trace};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = decode_text(data.to_vec()) else {
        return;
    };
    let Ok(t) = Trace::parse(Path::new("fuzz.trace"), &text) else {
        return;
    };
    assert!(t.opportunities.windows(2).all(|w| w[0] <= w[1]));
    assert!(t.period_ms() > 0);
    let back: String = t.opportunities.iter().map(|o| format!("{o}\n")).collect();
    let again = Trace::parse(Path::new("fuzz.trace"), &back).expect("a trace written back parses");
    assert_eq!(again.opportunities, t.opportunities);
    let _ = t.summary();
    // The emulator starts a cursor somewhere inside the trace and walks it.
    let offset = t.opportunities[t.opportunities.len() / 2] % t.period_ms();
    if let Ok(mut c) = Cursor::new(&t, offset, false) {
        let mut prev = 0;
        for _ in 0..(2 * t.opportunities.len()).min(10_000) {
            let Some(now) = c.peek_us() else { break };
            assert!(now >= prev, "the cursor went back in time: {now} < {prev}");
            prev = now;
            c.advance();
        }
    }
});
