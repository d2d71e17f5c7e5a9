// SPDX-License-Identifier: GPL-2.0-only
//! Any bytes: parse never panics; what parses re-encodes to a datagram that
//! parses to the same value (`sprout::wire::parse`, what the receiver and
//! the sender run on every datagram).
#![no_main]
use libfuzzer_sys::fuzz_target;
use sprout::wire::{self, Packet};

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = wire::parse(data) {
        let mut buf = vec![0u8; data.len().max(64)];
        let n = match &p {
            Packet::Data(d) if d.payload => {
                wire::write_data_with(d, wire::payload_of(d, data), &mut buf)
            }
            Packet::Data(d) => wire::write_data(d, &mut buf),
            Packet::Feedback(f) => wire::write_feedback(f, &mut buf),
            Packet::Bye(b) => wire::write_bye(b, &mut buf),
        };
        assert_eq!(n, data.len());
        assert_eq!(wire::parse(&buf[..n]), Ok(p));
    }
});
