// SPDX-License-Identifier: GPL-2.0-only
//! Small values from the command line and scenario tables: the socket
//! option's C2TCP_VARIANT (`sockopt::Variant`'s `FromStr`, `from_raw`)
//! and Target (`sockopt::target_us_from_ms`), `--set KNOB=VALUE`
//! (`harness::plan::parse_knob_setting`) and `--shard K/N`
//! (`harness::bench::Shard`). Variants print and encode to themselves;
//! an accepted Target is within the header's range; a raw value the
//! kernel side would refuse never decodes.
#![no_main]
use harness::bench::Shard;
use harness::plan::parse_knob_setting;
use libfuzzer_sys::fuzz_target;
use sockopt::{target_us_from_ms, Variant, C2TCP_TARGET_MAX_US, C2TCP_TARGET_MIN_US};

fuzz_target!(|data: &[u8]| {
    if data.len() >= 8 {
        let raw = u32::from_le_bytes(data[..4].try_into().unwrap());
        if let Some(v) = Variant::from_raw(raw) {
            assert_eq!(v.to_raw(), raw);
            assert_eq!(v.to_string().parse::<Variant>(), Ok(v));
        }
        let ms = f64::from_le_bytes(data[..8].try_into().unwrap());
        if let Ok(us) = target_us_from_ms(ms) {
            assert!((C2TCP_TARGET_MIN_US..=C2TCP_TARGET_MAX_US).contains(&us), "{ms} ms -> {us} µs");
        }
    }
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(v) = s.parse::<Variant>() {
        let raw = v.to_raw();
        assert_eq!(Variant::from_raw(raw), Some(v), "`{s}` encodes to {raw:#x}, which does not decode");
        assert_eq!(v.to_string().parse::<Variant>(), Ok(v));
    }
    if let Ok(ms) = s.trim().parse::<f64>() {
        if let Ok(us) = target_us_from_ms(ms) {
            assert!((C2TCP_TARGET_MIN_US..=C2TCP_TARGET_MAX_US).contains(&us));
        }
    }
    if let Ok((key, _value)) = parse_knob_setting(s) {
        assert!(!key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    }
    if let Ok(shard) = s.parse::<Shard>() {
        assert!(shard.k >= 1 && shard.k <= shard.n);
        // Job k-1 is this shard's, the next one is not (unless it is the only shard).
        assert!(shard.holds(shard.k - 1));
        assert_eq!(shard.holds(shard.k), shard.n == 1);
    }
});
