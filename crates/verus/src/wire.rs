// SPDX-License-Identifier: GPL-2.0-only
//! The datagram format, version 1: written and parsed here and nowhere else.
//!
//! All integers are big-endian. Every datagram starts with
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 4 | magic `"VRUS"` |
//! | 4 | 1 | version (1) |
//! | 5 | 1 | kind: 1 data, 2 ack, 3 bye |
//! | 6 | 2 | total datagram length (catches truncation) |
//! | 8 | 4 | session (chosen by the sender, echoed by the receiver) |
//!
//! **Data** (sender → receiver), 40-byte header then zero padding to the
//! length: slow-start epoch `u32` @12 (the authors' `ss_id`: bumped by every
//! restart of slow start, so acks of an older one are ignored), seq `u64`
//! @16 (packet number, from 1), window `u32` @24 (the sending window, in
//! packets, this packet was sent under: the profile's x), 4 zero bytes @28,
//! send time µs `u64` @32 (sender's CLOCK_MONOTONIC).
//!
//! **Ack** (receiver → sender), 56 bytes: the data header's fields @12..40
//! echoed, then the receiver's totals: bytes received `u64` @40 and packets
//! received `u64` @48 (duplicates excluded).
//!
//! **Bye** (sender → receiver at the end), 32 bytes: 4 zero bytes @12,
//! packets sent `u64` @16, bytes sent `u64` @24 (`udpflow::wire::Bye`, the
//! kind every transport here shares).
//!
//! Anything else — short, foreign, another version, inconsistent — is an
//! error value, never a panic. The header and its checks are the ones
//! every transport here shares (`udpflow::wire`); the kinds are ours.
use udpflow::wire::{
    check_header, exact_len, parse_bye, u32_at, u64_at, write_header, Protocol, KIND_BYE,
};
pub use udpflow::wire::{Bye, DropCounts, BYE_LEN, MAX_DATAGRAM};

pub const MAGIC: [u8; 4] = *b"VRUS";
pub const VERSION: u8 = 1;
pub const DATA_HEADER: usize = 40;
pub const ACK_LEN: usize = 56;

const KIND_DATA: u8 = 1;
const KIND_ACK: u8 = 2;

/// The fields a data packet carries and its ack echoes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub session: u32,
    pub ss_id: u32,
    pub seq: u64,
    pub window: u32,
    pub send_time_us: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Data {
    pub stamp: Stamp,
    /// Whole datagram length, header included.
    pub len: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ack {
    pub stamp: Stamp,
    pub bytes_received: u64,
    pub packets_received: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packet {
    Data(Data),
    Ack(Ack),
    Bye(Bye),
}

/// This protocol on the shared header: its magic, version and name.
pub struct Format;

impl Protocol for Format {
    const NAME: &'static str = "Verus";
    const MAGIC: [u8; 4] = MAGIC;
    const VERSION: u8 = VERSION;
}

/// Why a datagram was not accepted ("not a Verus datagram", ...).
pub type WireError = udpflow::wire::WireError<Format>;

/// The stamp @8..40 of a data datagram or an ack (length already checked).
fn stamp_at(b: &[u8]) -> Result<Stamp, WireError> {
    if b[28..32] != [0, 0, 0, 0] {
        return Err(WireError::Field("reserved"));
    }
    let seq = u64_at(b, 16);
    if seq == 0 {
        return Err(WireError::Field("seq"));
    }
    Ok(Stamp {
        session: u32_at(b, 8),
        ss_id: u32_at(b, 12),
        seq,
        window: u32_at(b, 24),
        send_time_us: u64_at(b, 32),
    })
}

/// Parses one datagram. Never panics, whatever the bytes.
pub fn parse(b: &[u8]) -> Result<Packet, WireError> {
    let header = check_header::<Format>(b)?;
    match header.kind {
        KIND_DATA => {
            if b.len() < DATA_HEADER {
                return Err(WireError::Truncated);
            }
            Ok(Packet::Data(Data {
                stamp: stamp_at(b)?,
                len: b.len(),
            }))
        }
        KIND_ACK => {
            exact_len(b, ACK_LEN)?;
            let bytes_received = u64_at(b, 40);
            let packets_received = u64_at(b, 48);
            if packets_received > bytes_received {
                return Err(WireError::Field("packets received"));
            }
            Ok(Packet::Ack(Ack {
                stamp: stamp_at(b)?,
                bytes_received,
                packets_received,
            }))
        }
        KIND_BYE => parse_bye(b, header.session).map(Packet::Bye),
        k => Err(WireError::Kind(k)),
    }
}

fn header(buf: &mut [u8], kind: u8, len: usize, session: u32) {
    write_header::<Format>(buf, kind, len, session);
}

fn write_stamp(s: &Stamp, buf: &mut [u8]) {
    buf[12..16].copy_from_slice(&s.ss_id.to_be_bytes());
    buf[16..24].copy_from_slice(&s.seq.to_be_bytes());
    buf[24..28].copy_from_slice(&s.window.to_be_bytes());
    buf[28..32].fill(0);
    buf[32..40].copy_from_slice(&s.send_time_us.to_be_bytes());
}

/// Writes a data datagram of `d.len` bytes (≥ [`DATA_HEADER`], ≤ 65535) into
/// `buf` and returns its length. Writes only the header when `pad` is false
/// (the caller's buffer already holds zeros past it).
pub fn write_data(d: &Data, buf: &mut [u8], pad: bool) -> usize {
    assert!(
        d.len >= DATA_HEADER && d.len <= u16::MAX as usize && buf.len() >= d.len,
        "data length {}",
        d.len
    );
    assert!(d.stamp.seq != 0, "seq 0");
    header(buf, KIND_DATA, d.len, d.stamp.session);
    write_stamp(&d.stamp, buf);
    if pad {
        buf[DATA_HEADER..d.len].fill(0);
    }
    d.len
}

/// Writes an ack; returns its length.
pub fn write_ack(a: &Ack, buf: &mut [u8]) -> usize {
    assert!(a.stamp.seq != 0 && a.packets_received <= a.bytes_received);
    header(buf, KIND_ACK, ACK_LEN, a.stamp.session);
    write_stamp(&a.stamp, buf);
    buf[40..48].copy_from_slice(&a.bytes_received.to_be_bytes());
    buf[48..56].copy_from_slice(&a.packets_received.to_be_bytes());
    ACK_LEN
}

/// Writes a bye datagram; returns its length.
pub fn write_bye(b: &Bye, buf: &mut [u8]) -> usize {
    udpflow::wire::write_bye::<Format>(b, buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use udpflow::wire::testing::garbage;

    fn stamp() -> Stamp {
        Stamp {
            session: 0xdead_beef,
            ss_id: 2,
            seq: 1 << 40,
            window: 137,
            send_time_us: 987_654_321,
        }
    }

    fn samples() -> Vec<Vec<u8>> {
        let mut buf = vec![0u8; 2000];
        let mut out = Vec::new();
        for len in [1472, DATA_HEADER] {
            let n = write_data(
                &Data {
                    stamp: stamp(),
                    len,
                },
                &mut buf,
                true,
            );
            out.push(buf[..n].to_vec());
        }
        let n = write_ack(
            &Ack {
                stamp: stamp(),
                bytes_received: 1 << 33,
                packets_received: 12_345,
            },
            &mut buf,
        );
        out.push(buf[..n].to_vec());
        let n = write_bye(
            &Bye {
                session: 3,
                packets_sent: 10,
                bytes_sent: 14720,
            },
            &mut buf,
        );
        out.push(buf[..n].to_vec());
        out
    }

    #[test]
    fn round_trips() {
        let good = samples();
        assert_eq!(good[0].len(), 1472);
        assert_eq!(
            parse(&good[0]),
            Ok(Packet::Data(Data {
                stamp: stamp(),
                len: 1472
            }))
        );
        assert!(good[0][DATA_HEADER..].iter().all(|&b| b == 0));
        assert_eq!(
            parse(&good[2]),
            Ok(Packet::Ack(Ack {
                stamp: stamp(),
                bytes_received: 1 << 33,
                packets_received: 12_345
            }))
        );
        assert!(matches!(parse(&good[3]), Ok(Packet::Bye(b)) if b.packets_sent == 10));
    }

    #[test]
    fn refuses_what_is_not_a_valid_datagram() {
        let good = samples();
        assert_eq!(parse(b"SPRT\x01\x01"), Err(WireError::Foreign));
        assert_eq!(parse(b""), Err(WireError::Foreign));
        let mut v = good[2].clone();
        v[4] = 2;
        assert_eq!(parse(&v), Err(WireError::Version(2)));
        let mut v = good[2].clone();
        v[5] = 9;
        assert_eq!(parse(&v), Err(WireError::Kind(9)));
        let mut v = good[2].clone();
        v[30] = 1;
        assert_eq!(parse(&v), Err(WireError::Field("reserved")));
        let mut v = good[1].clone();
        v[16..24].fill(0);
        assert_eq!(parse(&v), Err(WireError::Field("seq")));
        // An ack claiming more packets than bytes.
        let mut v = good[2].clone();
        v[40..48].copy_from_slice(&5u64.to_be_bytes());
        assert_eq!(parse(&v), Err(WireError::Field("packets received")));
        // An ack with extra bytes, its length field updated to match.
        let mut v = good[2].clone();
        v.push(0);
        let n = v.len() as u16;
        v[6..8].copy_from_slice(&n.to_be_bytes());
        assert_eq!(
            parse(&v),
            Err(WireError::Length {
                declared: ACK_LEN,
                actual: ACK_LEN + 1
            })
        );
        // Every truncation of every kind is refused.
        for g in &good {
            for cut in 0..g.len() {
                assert!(
                    parse(&g[..cut]).is_err(),
                    "accepted {cut} of {} bytes",
                    g.len()
                );
            }
        }
    }

    /// Garbage, truncations and bit flips never panic; whatever parses
    /// re-encodes to the same bytes.
    #[test]
    fn randomized_garbage_never_panics() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x7e25);
        let good = samples();
        let mut buf = vec![0u8; 70000];
        let mut accepted = 0;
        for round in 0..200_000 {
            let v = garbage::<Format>(&mut rng, round, &good);
            if let Ok(p) = parse(&v) {
                accepted += 1;
                let n = match &p {
                    Packet::Data(d) => write_data(d, &mut buf, true),
                    Packet::Ack(a) => write_ack(a, &mut buf),
                    Packet::Bye(b) => write_bye(b, &mut buf),
                };
                assert_eq!(n, v.len());
                assert_eq!(parse(&buf[..n]).as_ref(), Ok(&p));
                if !matches!(p, Packet::Data(_)) {
                    assert_eq!(&buf[..n], &v[..]);
                }
            }
        }
        assert!(accepted > 1000, "accepted {accepted}");
    }
}
