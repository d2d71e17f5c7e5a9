// SPDX-License-Identifier: GPL-2.0-only
//! Saturator's datagrams (`saturator::wire::parse`, what `c2tcp trace
//! capture send/recv` read off their sockets): any bytes parse or are
//! refused without a panic; what parses re-encodes to the same bytes (the
//! data datagram's padding aside) and parses to the same value.
#![no_main]
use libfuzzer_sys::fuzz_target;
use saturator::wire::{self, Datagram, ACK_LEN, DATA_LEN};

fuzz_target!(|data: &[u8]| {
    let Ok((session, dgram)) = wire::parse(data) else {
        return;
    };
    match dgram {
        Datagram::Data(d) => {
            assert_eq!(data.len(), DATA_LEN);
            let mut buf = [0u8; DATA_LEN];
            buf.copy_from_slice(data); // the padding as it came
            wire::write_data(&mut buf, session, &d);
            assert_eq!(&buf[..], data);
            assert_eq!(wire::parse(&buf), Ok((session, dgram)));
        }
        Datagram::Ack(a) => {
            assert_eq!(data.len(), ACK_LEN);
            let mut buf = [0u8; ACK_LEN];
            wire::write_ack(&mut buf, session, &a);
            assert_eq!(&buf[..], data);
            assert_eq!(wire::parse(&buf), Ok((session, dgram)));
        }
    }
});
