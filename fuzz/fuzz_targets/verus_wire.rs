// SPDX-License-Identifier: GPL-2.0-only
//! Any bytes: parse never panics; what parses re-encodes to a datagram that
//! parses to the same value; a receiver fed the bytes never panics either.
#![no_main]
use libfuzzer_sys::fuzz_target;
use verus::receiver::Receiver;
use verus::wire::{self, Packet};

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = wire::parse(data) {
        let mut buf = vec![0u8; data.len().max(64)];
        let n = match &p {
            Packet::Data(d) => wire::write_data(d, &mut buf, true),
            Packet::Ack(a) => wire::write_ack(a, &mut buf),
            Packet::Bye(b) => wire::write_bye(b, &mut buf),
        };
        assert_eq!(n, data.len());
        assert_eq!(wire::parse(&buf[..n]), Ok(p));
    }
    let mut ack = [0u8; wire::ACK_LEN];
    let _ = Receiver::new().on_datagram(data, &mut ack);
});
