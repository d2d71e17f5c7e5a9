// SPDX-License-Identifier: GPL-2.0-only
//! The NetAssist datagram: one fixed-size, versioned, big-endian record,
//! optionally followed by an HMAC-SHA-256 of it.
//!
//! ```text
//! off len field
//!  0   2  magic "NA" (0x4e41)
//!  2   1  version (1)
//!  3   1  kind: 1 feedback (NetAssist -> server), 2 flow report (UE -> NetAssist)
//!  4   1  flags: bit 0 an HMAC follows; bit 1 the bandwidth was carried over an outage
//!  5   1  reserved (0)
//!  6   2  period, ms
//!  8   4  session: random, chosen when the sender starts
//! 12   4  sequence number, +1 per datagram of the session
//! 16   8  timestamp: CLOCK_REALTIME µs when the figures were taken
//! 24   4  the UE's IPv4 address
//! 28   8  bottleneck bandwidth, bytes/s of IP packets (feedback; 0 in a report)
//! 36   4  minimum RTT, µs (feedback; 0 in a report)
//! 40   2  beta: the UE's active flows
//! 42   2  reserved (0)
//! 44  32  HMAC-SHA-256 over bytes 0..44, keyed by the shared key file (flag bit 0)
//! ```
//!
//! 44 bytes plain, 76 authenticated. Anything else is malformed. Encoding and
//! decoding never allocate.
use std::net::Ipv4Addr;
use std::path::Path;

use anyhow::{bail, Context, Result};
use hmac::{Hmac, Mac};
use serde::Serialize;
use sha2::Sha256;

pub const MAGIC: u16 = 0x4e41;
pub const VERSION: u8 = 1;
pub const BODY_LEN: usize = 44;
pub const MAC_LEN: usize = 32;
pub const MAX_LEN: usize = BODY_LEN + MAC_LEN;

const FLAG_MAC: u8 = 1;
const FLAG_CARRIED: u8 = 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Kind {
    /// NetAssist to the server's agent: bandwidth, min RTT, beta.
    Feedback = 1,
    /// The UE's reporter to NetAssist: beta.
    FlowReport = 2,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message {
    pub kind: Kind,
    /// The bandwidth is the last non-zero one, carried through an outage.
    pub carried: bool,
    pub period_ms: u16,
    pub session: u32,
    pub seq: u32,
    pub timestamp_us: u64,
    pub ue: Ipv4Addr,
    pub bw_bps: u64,
    pub min_rtt_us: u32,
    pub beta: u16,
}

/// Why a datagram was dropped. Each has its counter in the agent's and
/// NetAssist's statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reject {
    /// Not 44 or 76 bytes, or not as long as its flags say.
    Truncated,
    BadMagic,
    /// A version this build does not speak.
    BadVersion,
    BadKind,
    /// No HMAC, but the receiver has a key.
    Unauthenticated,
    /// An HMAC, but the receiver has no key to check it with.
    Unverifiable,
    /// The HMAC does not match (forged or corrupted).
    BadMac,
    /// Older than the receiver's maximum age, or too far in the future.
    Stale,
    /// A session/sequence number already seen (or older).
    Replayed,
}

/// A shared secret for HMAC-SHA-256, read from a key file.
#[derive(Clone)]
pub struct Key(Vec<u8>);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Key({} bytes)", self.0.len())
    }
}

impl Key {
    /// At least 16 bytes; the key is the bytes as they are (e.g.
    /// `head -c 32 /dev/urandom > netassist.key`).
    pub fn from_bytes(b: &[u8]) -> Result<Key> {
        if b.len() < 16 {
            bail!("a NetAssist key needs at least 16 bytes, got {}", b.len());
        }
        Ok(Key(b.to_vec()))
    }

    pub fn from_file(path: &Path) -> Result<Key> {
        let b = std::fs::read(path)
            .with_context(|| format!("reading the NetAssist key file {}", path.display()))?;
        Key::from_bytes(&b).with_context(|| format!("key file {}", path.display()))
    }

    fn mac(&self) -> Hmac<Sha256> {
        <Hmac<Sha256> as Mac>::new_from_slice(&self.0).expect("HMAC takes keys of any length")
    }
}

/// Writes `m` into `out`, with an HMAC when `key` is given; returns the
/// datagram's length.
pub fn encode(m: &Message, key: Option<&Key>, out: &mut [u8; MAX_LEN]) -> usize {
    let mut flags = 0;
    if key.is_some() {
        flags |= FLAG_MAC;
    }
    if m.carried {
        flags |= FLAG_CARRIED;
    }
    out[0..2].copy_from_slice(&MAGIC.to_be_bytes());
    out[2] = VERSION;
    out[3] = m.kind as u8;
    out[4] = flags;
    out[5] = 0;
    out[6..8].copy_from_slice(&m.period_ms.to_be_bytes());
    out[8..12].copy_from_slice(&m.session.to_be_bytes());
    out[12..16].copy_from_slice(&m.seq.to_be_bytes());
    out[16..24].copy_from_slice(&m.timestamp_us.to_be_bytes());
    out[24..28].copy_from_slice(&m.ue.octets());
    out[28..36].copy_from_slice(&m.bw_bps.to_be_bytes());
    out[36..40].copy_from_slice(&m.min_rtt_us.to_be_bytes());
    out[40..42].copy_from_slice(&m.beta.to_be_bytes());
    out[42..44].copy_from_slice(&[0, 0]);
    match key {
        None => BODY_LEN,
        Some(k) => {
            let mut mac = k.mac();
            mac.update(&out[..BODY_LEN]);
            out[BODY_LEN..MAX_LEN].copy_from_slice(&mac.finalize().into_bytes());
            MAX_LEN
        }
    }
}

fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}
fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}
fn be64(b: &[u8]) -> u64 {
    u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}

/// Parses and authenticates one datagram. With a key, only datagrams
/// carrying a valid HMAC pass; without one, only plain ones.
pub fn decode(buf: &[u8], key: Option<&Key>) -> Result<Message, Reject> {
    if buf.len() < BODY_LEN {
        return Err(Reject::Truncated);
    }
    if be16(&buf[0..2]) != MAGIC {
        return Err(Reject::BadMagic);
    }
    if buf[2] != VERSION {
        return Err(Reject::BadVersion);
    }
    let flags = buf[4];
    let want = if flags & FLAG_MAC != 0 {
        MAX_LEN
    } else {
        BODY_LEN
    };
    if buf.len() != want {
        return Err(Reject::Truncated);
    }
    match (key, flags & FLAG_MAC != 0) {
        (Some(_), false) => return Err(Reject::Unauthenticated),
        (None, true) => return Err(Reject::Unverifiable),
        (Some(k), true) => {
            let mut mac = k.mac();
            mac.update(&buf[..BODY_LEN]);
            // verify_slice compares in constant time.
            mac.verify_slice(&buf[BODY_LEN..MAX_LEN])
                .map_err(|_| Reject::BadMac)?;
        }
        (None, false) => {}
    }
    let kind = match buf[3] {
        1 => Kind::Feedback,
        2 => Kind::FlowReport,
        _ => return Err(Reject::BadKind),
    };
    Ok(Message {
        kind,
        carried: flags & FLAG_CARRIED != 0,
        period_ms: be16(&buf[6..8]),
        session: be32(&buf[8..12]),
        seq: be32(&buf[12..16]),
        timestamp_us: be64(&buf[16..24]),
        ue: Ipv4Addr::from(be32(&buf[24..28])),
        bw_bps: be64(&buf[28..36]),
        min_rtt_us: be32(&buf[36..40]),
        beta: be16(&buf[40..42]),
    })
}

/// CLOCK_REALTIME in µs: the datagrams' timestamps (comparable across
/// hosts whose clocks are synchronised, unlike CLOCK_MONOTONIC).
pub fn realtime_us() -> u64 {
    plumbing::clock::realtime_us()
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> Message {
        Message {
            kind: Kind::Feedback,
            carried: true,
            period_ms: 50,
            session: 0xdead_beef,
            seq: 7,
            timestamp_us: 1_700_000_000_123_456,
            ue: Ipv4Addr::new(100, 96, 0, 2),
            bw_bps: 1_234_567,
            min_rtt_us: 11_250,
            beta: 3,
        }
    }

    fn key() -> Key {
        Key::from_bytes(b"0123456789abcdef0123456789abcdef").unwrap()
    }

    #[test]
    fn round_trip_plain_and_authenticated() {
        let mut buf = [0u8; MAX_LEN];
        let n = encode(&sample(), None, &mut buf);
        assert_eq!(n, BODY_LEN);
        assert_eq!(decode(&buf[..n], None), Ok(sample()));
        let n = encode(&sample(), Some(&key()), &mut buf);
        assert_eq!(n, MAX_LEN);
        assert_eq!(decode(&buf[..n], Some(&key())), Ok(sample()));
        let report = Message {
            kind: Kind::FlowReport,
            carried: false,
            bw_bps: 0,
            min_rtt_us: 0,
            ..sample()
        };
        let n = encode(&report, Some(&key()), &mut buf);
        assert_eq!(decode(&buf[..n], Some(&key())), Ok(report));
        // The wire is big-endian and the magic leads.
        assert_eq!(&buf[..4], &[0x4e, 0x41, 1, 2]);
    }

    #[test]
    fn forged_and_mismatched_authentication_is_refused() {
        let mut buf = [0u8; MAX_LEN];
        let n = encode(&sample(), Some(&key()), &mut buf);
        // Any changed bit of the body or of the MAC fails.
        for i in [0usize, 10, 29, 43, 50, 75] {
            let mut forged = buf;
            forged[i] ^= 1;
            let got = decode(&forged[..n], Some(&key()));
            assert!(
                matches!(got, Err(Reject::BadMac) | Err(Reject::BadMagic)),
                "byte {i}: {got:?}"
            );
        }
        // A forger with another key.
        let other = Key::from_bytes(b"fedcba9876543210fedcba9876543210").unwrap();
        let m = encode(&sample(), Some(&other), &mut buf);
        assert_eq!(decode(&buf[..m], Some(&key())), Err(Reject::BadMac));
        // Plain datagrams to a keyed receiver, and the other way round.
        let p = encode(&sample(), None, &mut buf);
        assert_eq!(
            decode(&buf[..p], Some(&key())),
            Err(Reject::Unauthenticated)
        );
        let a = encode(&sample(), Some(&key()), &mut buf);
        assert_eq!(decode(&buf[..a], None), Err(Reject::Unverifiable));
        assert!(Key::from_bytes(b"short").is_err());
    }

    #[test]
    fn truncated_and_malformed_datagrams_are_refused() {
        let mut buf = [0u8; MAX_LEN];
        let n = encode(&sample(), Some(&key()), &mut buf);
        for len in [0, 1, 20, BODY_LEN - 1, BODY_LEN, n - 1] {
            assert_eq!(
                decode(&buf[..len], Some(&key())),
                Err(Reject::Truncated),
                "len {len}"
            );
        }
        let p = encode(&sample(), None, &mut buf);
        let mut long = [0u8; BODY_LEN + 1];
        long[..p].copy_from_slice(&buf[..p]);
        assert_eq!(decode(&long, None), Err(Reject::Truncated));
        let mut bad = buf;
        bad[2] = 2;
        assert_eq!(decode(&bad[..p], None), Err(Reject::BadVersion));
        bad = buf;
        bad[3] = 9;
        assert_eq!(decode(&bad[..p], None), Err(Reject::BadKind));
        bad = buf;
        bad[0] = b'X';
        assert_eq!(decode(&bad[..p], None), Err(Reject::BadMagic));
    }
}
