// SPDX-License-Identifier: GPL-2.0-only
//! Saturator's two datagrams, behind udpflow's 12-byte header (magic
//! `SATR`). All integers big-endian.
//!
//! - data (kind 1), padded to [`DATA_LEN`] so each is one full 1 500-byte
//!   IPv4 packet, one trace line: seq (8), sender's send time µs (8),
//!   flags (1: bit 0 = saturated), then padding;
//! - ack (kind 2), [`ACK_LEN`] bytes: seq (8), the echoed send time (8).
use udpflow::wire::{
    check_header, exact_len, u64_at, write_header, Protocol, WireError, HEADER_LEN,
};

pub struct Saturator;

impl Protocol for Saturator {
    const NAME: &'static str = "Saturator";
    const MAGIC: [u8; 4] = *b"SATR";
    const VERSION: u8 = 1;
}

pub type Error = WireError<Saturator>;

pub const KIND_DATA: u8 = 1;
pub const KIND_ACK: u8 = 2;
/// UDP payload of a 1 500-byte IPv4 packet (20 IP + 8 UDP header bytes).
pub const DATA_LEN: usize = 1472;
pub const ACK_LEN: usize = HEADER_LEN + 16;
const FLAG_SATURATED: u8 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Data {
    pub seq: u64,
    pub sent_us: u64,
    pub saturated: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ack {
    pub seq: u64,
    pub sent_us: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Datagram {
    Data(Data),
    Ack(Ack),
}

/// Writes `d` into the first [`DATA_LEN`] bytes of `buf` (padding untouched).
pub fn write_data(buf: &mut [u8; DATA_LEN], session: u32, d: &Data) {
    write_header::<Saturator>(buf, KIND_DATA, DATA_LEN, session);
    buf[12..20].copy_from_slice(&d.seq.to_be_bytes());
    buf[20..28].copy_from_slice(&d.sent_us.to_be_bytes());
    buf[28] = if d.saturated { FLAG_SATURATED } else { 0 };
}

pub fn write_ack(buf: &mut [u8; ACK_LEN], session: u32, a: &Ack) {
    write_header::<Saturator>(buf, KIND_ACK, ACK_LEN, session);
    buf[12..20].copy_from_slice(&a.seq.to_be_bytes());
    buf[20..28].copy_from_slice(&a.sent_us.to_be_bytes());
}

/// Parses one datagram and its session; never panics.
pub fn parse(b: &[u8]) -> Result<(u32, Datagram), Error> {
    let h = check_header::<Saturator>(b)?;
    match h.kind {
        KIND_DATA => {
            exact_len(b, DATA_LEN)?;
            if b[28] & !FLAG_SATURATED != 0 {
                return Err(WireError::Field("flags"));
            }
            Ok((
                h.session,
                Datagram::Data(Data {
                    seq: u64_at(b, 12),
                    sent_us: u64_at(b, 20),
                    saturated: b[28] & FLAG_SATURATED != 0,
                }),
            ))
        }
        KIND_ACK => {
            exact_len(b, ACK_LEN)?;
            Ok((
                h.session,
                Datagram::Ack(Ack {
                    seq: u64_at(b, 12),
                    sent_us: u64_at(b, 20),
                }),
            ))
        }
        k => Err(WireError::Kind(k)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_what_is_not_ours() {
        let mut buf = [0u8; DATA_LEN];
        let d = Data {
            seq: 7,
            sent_us: 123_456,
            saturated: true,
        };
        write_data(&mut buf, 9, &d);
        assert_eq!(parse(&buf), Ok((9, Datagram::Data(d))));
        let mut ack = [0u8; ACK_LEN];
        let a = Ack {
            seq: 7,
            sent_us: 123_456,
        };
        write_ack(&mut ack, 9, &a);
        assert_eq!(parse(&ack), Ok((9, Datagram::Ack(a))));
        assert_eq!(parse(&buf[..100]), Err(WireError::Truncated));
        assert_eq!(parse(b"GET / HTTP/1.1"), Err(WireError::Foreign));
        buf[28] = 0x80;
        assert_eq!(parse(&buf), Err(WireError::Field("flags")));
    }
}
