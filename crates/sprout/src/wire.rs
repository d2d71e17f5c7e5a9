// SPDX-License-Identifier: GPL-2.0-only
//! The datagram format, version 2: written and parsed here and nowhere else.
//! (Version 2 added the payload flag for SproutTunnel; version 1 data packets
//! were version 2's payload-less ones, so only the version byte differs.)
//!
//! All integers are big-endian. Every datagram starts with
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 4 | magic `"SPRT"` |
//! | 4 | 1 | version (2) |
//! | 5 | 1 | kind: 1 data, 2 feedback, 3 bye |
//! | 6 | 2 | total datagram length (catches truncation) |
//! | 8 | 4 | session (chosen by the sender, echoed by the receiver) |
//!
//! **Data** (sender → receiver), 48-byte header then, to the length, zero
//! padding or (flag bit 1) a payload the receiver hands on (SproutTunnel's IP
//! packets): time-to-next ms `u16` @12 (0 = another packet follows at once),
//! flags `u16` @14 (bit 0 = heartbeat, bit 1 = payload; others must be 0;
//! not both), seq `u64` @16 (stream offset
//! of this datagram's first byte; every datagram byte counts), throwaway
//! `u64` @24 (≤ seq: every byte before it is received-or-lost once this
//! datagram arrives), packet number `u64` @32, send time µs `u64` @40
//! (sender's CLOCK_MONOTONIC).
//!
//! **Feedback** (receiver → sender), 36 + 8·n bytes: forecast tick `u32` @12
//! (increases), received-or-lost bytes `u64` @16, bytes received `u64` @24,
//! n `u8` @32 (1..=16), 3 zero bytes, then n cumulative byte forecasts `u64`
//! (non-decreasing) for the next n ticks.
//!
//! **Bye** (sender → receiver at the end), 32 bytes: 4 zero bytes @12,
//! packets sent `u64` @16, bytes sent `u64` @24 (`udpflow::wire::Bye`, the
//! kind every transport here shares).
//!
//! Anything else — short, foreign, another version, inconsistent — is an
//! error value, never a panic. The header and its checks are the ones
//! every transport here shares (`udpflow::wire`); the kinds are ours.
use udpflow::wire::{
    check_header, parse_bye, u16_at, u32_at, u64_at, write_header, Protocol, KIND_BYE,
};
pub use udpflow::wire::{Bye, DropCounts, BYE_LEN, MAX_DATAGRAM};

use crate::MAX_HORIZON;

pub const MAGIC: [u8; 4] = *b"SPRT";
pub const VERSION: u8 = 2;
pub const DATA_HEADER: usize = 48;
pub const FEEDBACK_HEADER: usize = 36;

const KIND_DATA: u8 = 1;
const KIND_FEEDBACK: u8 = 2;
const FLAG_HEARTBEAT: u16 = 1;
const FLAG_PAYLOAD: u16 = 2;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Data {
    pub session: u32,
    pub time_to_next_ms: u16,
    pub heartbeat: bool,
    /// The bytes after the header are a payload (`payload_of`), not padding.
    pub payload: bool,
    pub seq: u64,
    pub throwaway: u64,
    pub pkt_no: u64,
    pub send_time_us: u64,
    /// Whole datagram length, header included.
    pub len: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Feedback {
    pub session: u32,
    pub tick: u32,
    pub received_or_lost: u64,
    pub received_bytes: u64,
    pub n: usize,
    /// Cumulative bytes forecast by the end of each of the next `n` ticks.
    pub counts: [u64; MAX_HORIZON],
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Packet {
    Data(Data),
    Feedback(Feedback),
    Bye(Bye),
}

/// This protocol on the shared header: its magic, version and name.
pub struct Format;

impl Protocol for Format {
    const NAME: &'static str = "Sprout";
    const MAGIC: [u8; 4] = MAGIC;
    const VERSION: u8 = VERSION;
}

/// Why a datagram was not accepted ("not a Sprout datagram", ...).
pub type WireError = udpflow::wire::WireError<Format>;

/// Parses one datagram. Never panics, whatever the bytes.
pub fn parse(b: &[u8]) -> Result<Packet, WireError> {
    let header = check_header::<Format>(b)?;
    let session = header.session;
    match header.kind {
        KIND_DATA => {
            if b.len() < DATA_HEADER {
                return Err(WireError::Truncated);
            }
            let flags = u16_at(b, 14);
            if flags & !(FLAG_HEARTBEAT | FLAG_PAYLOAD) != 0
                || flags == FLAG_HEARTBEAT | FLAG_PAYLOAD
            {
                return Err(WireError::Field("flags"));
            }
            let seq = u64_at(b, 16);
            let throwaway = u64_at(b, 24);
            if throwaway > seq {
                return Err(WireError::Field("throwaway"));
            }
            if seq.checked_add(b.len() as u64).is_none() {
                return Err(WireError::Field("seq"));
            }
            Ok(Packet::Data(Data {
                session,
                time_to_next_ms: u16_at(b, 12),
                heartbeat: flags & FLAG_HEARTBEAT != 0,
                payload: flags & FLAG_PAYLOAD != 0,
                seq,
                throwaway,
                pkt_no: u64_at(b, 32),
                send_time_us: u64_at(b, 40),
                len: b.len(),
            }))
        }
        KIND_FEEDBACK => {
            if b.len() < FEEDBACK_HEADER {
                return Err(WireError::Truncated);
            }
            let n = b[32] as usize;
            if n == 0 || n > MAX_HORIZON {
                return Err(WireError::Field("forecast length"));
            }
            if b[33..36] != [0, 0, 0] {
                return Err(WireError::Field("reserved"));
            }
            if b.len() != FEEDBACK_HEADER + 8 * n {
                return Err(WireError::Length {
                    declared: FEEDBACK_HEADER + 8 * n,
                    actual: b.len(),
                });
            }
            let mut counts = [0u64; MAX_HORIZON];
            let mut prev = 0;
            for (i, c) in counts.iter_mut().enumerate().take(n) {
                *c = u64_at(b, FEEDBACK_HEADER + 8 * i);
                if *c < prev {
                    return Err(WireError::Field("forecast decreases"));
                }
                prev = *c;
            }
            let received_or_lost = u64_at(b, 16);
            let received_bytes = u64_at(b, 24);
            Ok(Packet::Feedback(Feedback {
                session,
                tick: u32_at(b, 12),
                received_or_lost,
                received_bytes,
                n,
                counts,
            }))
        }
        KIND_BYE => parse_bye(b, session).map(Packet::Bye),
        k => Err(WireError::Kind(k)),
    }
}

fn header(buf: &mut [u8], kind: u8, len: usize, session: u32) {
    write_header::<Format>(buf, kind, len, session);
}

/// Writes a data datagram of `d.len` bytes (≥ [`DATA_HEADER`], ≤ 65535) into
/// `buf` and returns its length. The bytes after the header are zeroed (a
/// payload-carrying `d` gets a zero payload: use [`write_data_with`]).
pub fn write_data(d: &Data, buf: &mut [u8]) -> usize {
    let n = write_data_header(d, buf);
    buf[DATA_HEADER..n].fill(0);
    n
}

/// Writes a payload-carrying data datagram: `d.len` must be the header plus
/// `payload`'s length and `d.payload` set.
pub fn write_data_with(d: &Data, payload: &[u8], buf: &mut [u8]) -> usize {
    assert!(d.payload && d.len == DATA_HEADER + payload.len());
    let n = write_data_header(d, buf);
    buf[DATA_HEADER..n].copy_from_slice(payload);
    n
}

/// The payload of a data datagram parsed as `d` from `bytes` (empty unless
/// `d.payload`).
pub fn payload_of<'a>(d: &Data, bytes: &'a [u8]) -> &'a [u8] {
    if d.payload {
        &bytes[DATA_HEADER..d.len]
    } else {
        &[]
    }
}

fn write_data_header(d: &Data, buf: &mut [u8]) -> usize {
    assert!(
        d.len >= DATA_HEADER && d.len <= u16::MAX as usize && buf.len() >= d.len,
        "data length {}",
        d.len
    );
    assert!(d.throwaway <= d.seq);
    assert!(
        !(d.heartbeat && d.payload),
        "a heartbeat carries no payload"
    );
    header(buf, KIND_DATA, d.len, d.session);
    buf[12..14].copy_from_slice(&d.time_to_next_ms.to_be_bytes());
    let mut flags = if d.heartbeat { FLAG_HEARTBEAT } else { 0 };
    if d.payload {
        flags |= FLAG_PAYLOAD;
    }
    buf[14..16].copy_from_slice(&flags.to_be_bytes());
    buf[16..24].copy_from_slice(&d.seq.to_be_bytes());
    buf[24..32].copy_from_slice(&d.throwaway.to_be_bytes());
    buf[32..40].copy_from_slice(&d.pkt_no.to_be_bytes());
    buf[40..48].copy_from_slice(&d.send_time_us.to_be_bytes());
    d.len
}

/// Writes a feedback datagram; returns its length.
pub fn write_feedback(f: &Feedback, buf: &mut [u8]) -> usize {
    assert!((1..=MAX_HORIZON).contains(&f.n));
    assert!(
        f.counts[..f.n].windows(2).all(|w| w[0] <= w[1]),
        "forecast must not decrease"
    );
    let len = FEEDBACK_HEADER + 8 * f.n;
    header(buf, KIND_FEEDBACK, len, f.session);
    buf[12..16].copy_from_slice(&f.tick.to_be_bytes());
    buf[16..24].copy_from_slice(&f.received_or_lost.to_be_bytes());
    buf[24..32].copy_from_slice(&f.received_bytes.to_be_bytes());
    buf[32] = f.n as u8;
    buf[33..36].fill(0);
    for (i, c) in f.counts[..f.n].iter().enumerate() {
        buf[FEEDBACK_HEADER + 8 * i..FEEDBACK_HEADER + 8 * i + 8].copy_from_slice(&c.to_be_bytes());
    }
    len
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

    fn data() -> Data {
        Data {
            session: 0xdead_beef,
            time_to_next_ms: 50,
            heartbeat: false,
            payload: false,
            seq: 1 << 40,
            throwaway: (1 << 40) - 3000,
            pkt_no: 12345,
            send_time_us: 987_654_321,
            len: 1472,
        }
    }

    fn feedback() -> Feedback {
        let mut counts = [0u64; MAX_HORIZON];
        for (i, c) in counts.iter_mut().enumerate().take(8) {
            *c = 1472 * 3 * (i as u64 + 1);
        }
        Feedback {
            session: 7,
            tick: 99,
            received_or_lost: 1 << 33,
            received_bytes: (1 << 33) - 1472,
            n: 8,
            counts,
        }
    }

    fn samples() -> Vec<Vec<u8>> {
        let mut buf = vec![0u8; 2000];
        let mut out = Vec::new();
        let n = write_data(&data(), &mut buf);
        out.push(buf[..n].to_vec());
        let hb = Data {
            heartbeat: true,
            len: DATA_HEADER,
            ..data()
        };
        let n = write_data(&hb, &mut buf);
        out.push(buf[..n].to_vec());
        let n = write_feedback(&feedback(), &mut buf);
        out.push(buf[..n].to_vec());
        let p = Data {
            payload: true,
            len: DATA_HEADER + 5,
            ..data()
        };
        let n = write_data_with(&p, b"hello", &mut buf);
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
        let mut buf = vec![0u8; 2000];
        let n = write_data(&data(), &mut buf);
        assert_eq!(n, 1472);
        assert_eq!(parse(&buf[..n]), Ok(Packet::Data(data())));
        let hb = Data {
            heartbeat: true,
            len: DATA_HEADER,
            time_to_next_ms: 0,
            ..data()
        };
        let n = write_data(&hb, &mut buf);
        assert_eq!(parse(&buf[..n]), Ok(Packet::Data(hb)));
        let n = write_feedback(&feedback(), &mut buf);
        assert_eq!(n, FEEDBACK_HEADER + 64);
        assert_eq!(parse(&buf[..n]), Ok(Packet::Feedback(feedback())));
        let bye = Bye {
            session: 3,
            packets_sent: 10,
            bytes_sent: 14720,
        };
        let n = write_bye(&bye, &mut buf);
        assert_eq!(parse(&buf[..n]), Ok(Packet::Bye(bye)));
    }

    #[test]
    fn payload_round_trips_byte_for_byte() {
        let mut buf = vec![0u8; 2000];
        let ip: Vec<u8> = (0..1400u32).map(|i| (i * 7) as u8).collect();
        let d = Data {
            payload: true,
            len: DATA_HEADER + ip.len(),
            ..data()
        };
        let n = write_data_with(&d, &ip, &mut buf);
        let Ok(Packet::Data(got)) = parse(&buf[..n]) else {
            panic!("did not parse")
        };
        assert_eq!(got, d);
        assert_eq!(payload_of(&got, &buf[..n]), &ip[..]);
        // Padding is not a payload.
        let n = write_data(&data(), &mut buf);
        let Ok(Packet::Data(got)) = parse(&buf[..n]) else {
            panic!("did not parse")
        };
        assert!(payload_of(&got, &buf[..n]).is_empty());
    }

    #[test]
    fn rejects_what_is_not_ours() {
        let good = samples();
        assert_eq!(parse(b""), Err(WireError::Foreign));
        assert_eq!(parse(b"GET / HTTP/1.1\r\n"), Err(WireError::Foreign));
        assert_eq!(parse(b"SPRT"), Err(WireError::Truncated));
        let mut v = good[0].clone();
        v[4] = 1;
        assert_eq!(parse(&v), Err(WireError::Version(1)));
        let mut v = good[0].clone();
        v[5] = 9;
        assert_eq!(parse(&v), Err(WireError::Kind(9)));
        let mut v = good[0].clone();
        v.push(0);
        assert!(matches!(parse(&v), Err(WireError::Length { .. })));
        let mut v = good[0].clone();
        v[15] = 4; // unknown flag
        assert_eq!(parse(&v), Err(WireError::Field("flags")));
        let mut v = good[0].clone();
        v[15] = 3; // a heartbeat with a payload
        assert_eq!(parse(&v), Err(WireError::Field("flags")));
        let mut v = good[0].clone();
        v[24..32].copy_from_slice(&u64::MAX.to_be_bytes()); // throwaway > seq
        assert_eq!(parse(&v), Err(WireError::Field("throwaway")));
        let mut v = good[2].clone();
        v[FEEDBACK_HEADER..FEEDBACK_HEADER + 8].copy_from_slice(&u64::MAX.to_be_bytes());
        assert_eq!(parse(&v), Err(WireError::Field("forecast decreases")));
        let mut v = good[2].clone();
        v[32] = 0;
        assert_eq!(parse(&v), Err(WireError::Field("forecast length")));
        // Every truncation of every kind is refused.
        for g in &good {
            for cut in 0..g.len() {
                assert!(
                    parse(&g[..cut]).is_err(),
                    "accepted {} of {} bytes",
                    cut,
                    g.len()
                );
            }
        }
    }

    /// Garbage, truncations and bit flips never panic; whatever parses
    /// re-encodes to the same bytes (for the header fields we define).
    #[test]
    fn randomized_garbage_never_panics() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed);
        let good = samples();
        let mut buf = vec![0u8; 70000];
        let mut accepted = 0;
        for round in 0..200_000 {
            let v = garbage::<Format>(&mut rng, round, &good);
            if let Ok(p) = parse(&v) {
                accepted += 1;
                let n = match &p {
                    Packet::Data(d) if d.payload => write_data_with(d, payload_of(d, &v), &mut buf),
                    Packet::Data(d) => write_data(d, &mut buf),
                    Packet::Feedback(f) => write_feedback(f, &mut buf),
                    Packet::Bye(b) => write_bye(b, &mut buf),
                };
                assert_eq!(n, v.len());
                assert_eq!(parse(&buf[..n]).as_ref(), Ok(&p));
                if !matches!(p, Packet::Data(ref d) if !d.payload) {
                    assert_eq!(&buf[..n], &v[..]);
                }
            }
        }
        // Bit flips in payload/field bytes do parse: the test saw both sides.
        assert!(accepted > 1000, "accepted {accepted}");
    }
}
