// SPDX-License-Identifier: GPL-2.0-only
//! The datagram format, version 1: written and parsed here and nowhere else.
//!
//! All integers are big-endian. Every datagram starts with
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 4 | magic `"SPRT"` |
//! | 4 | 1 | version (1) |
//! | 5 | 1 | kind: 1 data, 2 feedback, 3 bye |
//! | 6 | 2 | total datagram length (catches truncation) |
//! | 8 | 4 | session (chosen by the sender, echoed by the receiver) |
//!
//! **Data** (sender → receiver), 48-byte header then zero padding to the length:
//! time-to-next ms `u16` @12 (0 = another packet follows at once), flags `u16`
//! @14 (bit 0 = heartbeat; others must be 0), seq `u64` @16 (stream offset
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
//! packets sent `u64` @16, bytes sent `u64` @24.
//!
//! Anything else — short, foreign, another version, inconsistent — is an
//! error value, never a panic.
use crate::MAX_HORIZON;

pub const MAGIC: [u8; 4] = *b"SPRT";
pub const VERSION: u8 = 1;
pub const DATA_HEADER: usize = 48;
pub const FEEDBACK_HEADER: usize = 36;
pub const BYE_LEN: usize = 32;
/// Largest datagram either end sends or accepts.
pub const MAX_DATAGRAM: usize = 65507;

const KIND_DATA: u8 = 1;
const KIND_FEEDBACK: u8 = 2;
const KIND_BYE: u8 = 3;
const FLAG_HEARTBEAT: u16 = 1;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Data {
    pub session: u32,
    pub time_to_next_ms: u16,
    pub heartbeat: bool,
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
pub struct Bye {
    pub session: u32,
    pub packets_sent: u64,
    pub bytes_sent: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Packet {
    Data(Data),
    Feedback(Feedback),
    Bye(Bye),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Not ours: no magic.
    Foreign,
    /// Shorter than its header or its declared length.
    Truncated,
    /// Another version of the protocol.
    Version(u8),
    /// Unknown kind.
    Kind(u8),
    /// Declared length differs from the datagram's.
    Length { declared: usize, actual: usize },
    /// A field with an impossible value.
    Field(&'static str),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Foreign => write!(f, "not a Sprout datagram"),
            WireError::Truncated => write!(f, "truncated"),
            WireError::Version(v) => write!(f, "version {v}, expected {VERSION}"),
            WireError::Kind(k) => write!(f, "unknown kind {k}"),
            WireError::Length { declared, actual } => {
                write!(f, "length {actual}, header says {declared}")
            }
            WireError::Field(name) => write!(f, "bad field {name}"),
        }
    }
}

/// Counts of dropped datagrams, by reason.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DropCounts {
    pub foreign: u64,
    pub truncated: u64,
    pub bad_version: u64,
    pub bad_kind: u64,
    pub bad_length: u64,
    pub bad_field: u64,
}

impl DropCounts {
    pub fn record(&mut self, e: &WireError) {
        match e {
            WireError::Foreign => self.foreign += 1,
            WireError::Truncated => self.truncated += 1,
            WireError::Version(_) => self.bad_version += 1,
            WireError::Kind(_) => self.bad_kind += 1,
            WireError::Length { .. } => self.bad_length += 1,
            WireError::Field(_) => self.bad_field += 1,
        }
    }

    pub fn total(&self) -> u64 {
        self.foreign
            + self.truncated
            + self.bad_version
            + self.bad_kind
            + self.bad_length
            + self.bad_field
    }
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(b[at..at + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(b[at..at + 8].try_into().unwrap())
}

/// Parses one datagram. Never panics, whatever the bytes.
pub fn parse(b: &[u8]) -> Result<Packet, WireError> {
    if b.len() < 4 || b[..4] != MAGIC {
        return Err(WireError::Foreign);
    }
    if b.len() < 12 {
        return Err(WireError::Truncated);
    }
    if b[4] != VERSION {
        return Err(WireError::Version(b[4]));
    }
    let declared = u16_at(b, 6) as usize;
    if declared != b.len() {
        return Err(if declared > b.len() {
            WireError::Truncated
        } else {
            WireError::Length {
                declared,
                actual: b.len(),
            }
        });
    }
    let session = u32_at(b, 8);
    match b[5] {
        KIND_DATA => {
            if b.len() < DATA_HEADER {
                return Err(WireError::Truncated);
            }
            let flags = u16_at(b, 14);
            if flags & !FLAG_HEARTBEAT != 0 {
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
        KIND_BYE => {
            if b.len() != BYE_LEN {
                return Err(if b.len() < BYE_LEN {
                    WireError::Truncated
                } else {
                    WireError::Length {
                        declared: BYE_LEN,
                        actual: b.len(),
                    }
                });
            }
            if b[12..16] != [0, 0, 0, 0] {
                return Err(WireError::Field("reserved"));
            }
            Ok(Packet::Bye(Bye {
                session,
                packets_sent: u64_at(b, 16),
                bytes_sent: u64_at(b, 24),
            }))
        }
        k => Err(WireError::Kind(k)),
    }
}

fn header(buf: &mut [u8], kind: u8, len: usize, session: u32) {
    buf[..4].copy_from_slice(&MAGIC);
    buf[4] = VERSION;
    buf[5] = kind;
    buf[6..8].copy_from_slice(&(len as u16).to_be_bytes());
    buf[8..12].copy_from_slice(&session.to_be_bytes());
}

/// Writes a data datagram of `d.len` bytes (≥ [`DATA_HEADER`], ≤ 65535) into
/// `buf` and returns its length.
pub fn write_data(d: &Data, buf: &mut [u8]) -> usize {
    assert!(
        d.len >= DATA_HEADER && d.len <= u16::MAX as usize && buf.len() >= d.len,
        "data length {}",
        d.len
    );
    assert!(d.throwaway <= d.seq);
    header(buf, KIND_DATA, d.len, d.session);
    buf[12..14].copy_from_slice(&d.time_to_next_ms.to_be_bytes());
    let flags = if d.heartbeat { FLAG_HEARTBEAT } else { 0 };
    buf[14..16].copy_from_slice(&flags.to_be_bytes());
    buf[16..24].copy_from_slice(&d.seq.to_be_bytes());
    buf[24..32].copy_from_slice(&d.throwaway.to_be_bytes());
    buf[32..40].copy_from_slice(&d.pkt_no.to_be_bytes());
    buf[40..48].copy_from_slice(&d.send_time_us.to_be_bytes());
    buf[DATA_HEADER..d.len].fill(0);
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
    header(buf, KIND_BYE, BYE_LEN, b.session);
    buf[12..16].fill(0);
    buf[16..24].copy_from_slice(&b.packets_sent.to_be_bytes());
    buf[24..32].copy_from_slice(&b.bytes_sent.to_be_bytes());
    BYE_LEN
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn data() -> Data {
        Data {
            session: 0xdead_beef,
            time_to_next_ms: 50,
            heartbeat: false,
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
    fn rejects_what_is_not_ours() {
        let good = samples();
        assert_eq!(parse(b""), Err(WireError::Foreign));
        assert_eq!(parse(b"GET / HTTP/1.1\r\n"), Err(WireError::Foreign));
        assert_eq!(parse(b"SPRT"), Err(WireError::Truncated));
        let mut v = good[0].clone();
        v[4] = 2;
        assert_eq!(parse(&v), Err(WireError::Version(2)));
        let mut v = good[0].clone();
        v[5] = 9;
        assert_eq!(parse(&v), Err(WireError::Kind(9)));
        let mut v = good[0].clone();
        v.push(0);
        assert!(matches!(parse(&v), Err(WireError::Length { .. })));
        let mut v = good[0].clone();
        v[15] = 2; // unknown flag
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
            let mut v: Vec<u8> = match round % 4 {
                0 => (0..rng.gen_range(0..200)).map(|_| rng.gen()).collect(),
                1 => {
                    // Our magic and version, random rest.
                    let mut v: Vec<u8> = (0..rng.gen_range(0..120)).map(|_| rng.gen()).collect();
                    for (i, b) in MAGIC.iter().chain([VERSION].iter()).enumerate() {
                        if i < v.len() {
                            v[i] = *b;
                        }
                    }
                    v
                }
                _ => {
                    let mut v = good[rng.gen_range(0..good.len())].clone();
                    for _ in 0..rng.gen_range(1..4) {
                        let i = rng.gen_range(0..v.len());
                        v[i] ^= 1 << rng.gen_range(0..8);
                    }
                    v.truncate(rng.gen_range(0..=v.len()));
                    v
                }
            };
            if round % 7 == 0 && v.len() >= 8 {
                let len = v.len() as u16;
                v[6..8].copy_from_slice(&len.to_be_bytes());
            }
            if let Ok(p) = parse(&v) {
                accepted += 1;
                let n = match &p {
                    Packet::Data(d) => write_data(d, &mut buf),
                    Packet::Feedback(f) => write_feedback(f, &mut buf),
                    Packet::Bye(b) => write_bye(b, &mut buf),
                };
                assert_eq!(n, v.len());
                assert_eq!(parse(&buf[..n]).as_ref(), Ok(&p));
                if !matches!(p, Packet::Data(_)) {
                    assert_eq!(&buf[..n], &v[..]);
                }
            }
        }
        // Bit flips in payload/field bytes do parse: the test saw both sides.
        assert!(accepted > 1000, "accepted {accepted}");
    }

    #[test]
    fn drop_counts_add_up() {
        let mut d = DropCounts::default();
        for e in [
            WireError::Foreign,
            WireError::Truncated,
            WireError::Version(3),
            WireError::Field("x"),
        ] {
            d.record(&e);
        }
        assert_eq!(d.total(), 4);
        assert_eq!(d.foreign, 1);
    }
}
