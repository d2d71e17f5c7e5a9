// SPDX-License-Identifier: GPL-2.0-only
//! What a receiver of NetAssist datagrams checks after the codec: freshness
//! (against its own CLOCK_REALTIME) and replay (per UE and kind, a sender's
//! session and sequence number only move forward), plus the counts of what
//! it dropped and why.
use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use serde::Serialize;

use crate::wire::{Kind, Message, Reject};

/// Accepts datagrams that are fresh and new.
pub struct Guard {
    max_age_us: u64,
    last: HashMap<(Ipv4Addr, Kind), Seen>,
}

#[derive(Clone, Copy)]
struct Seen {
    session: u32,
    seq: u32,
    timestamp_us: u64,
}

impl Guard {
    /// `max_age_us`: a datagram taken longer ago than this (or that far in
    /// the future: a clock gone wrong) is stale.
    pub fn new(max_age_us: u64) -> Guard {
        Guard {
            max_age_us,
            last: HashMap::new(),
        }
    }

    /// Checks `m` at realtime `now_us`; on success it becomes the newest.
    /// Within a session the sequence number must grow. A new session (the
    /// sender restarted) is taken when its timestamp is newer than the last
    /// accepted one, so old sessions cannot be replayed once a newer one
    /// spoke, and not at all once stale.
    pub fn check(&mut self, m: &Message, now_us: u64) -> Result<(), Reject> {
        if m.timestamp_us.abs_diff(now_us) > self.max_age_us {
            return Err(Reject::Stale);
        }
        let key = (m.ue, m.kind);
        if let Some(s) = self.last.get(&key) {
            let newer = if m.session == s.session {
                m.seq > s.seq
            } else {
                m.timestamp_us > s.timestamp_us
            };
            if !newer {
                return Err(Reject::Replayed);
            }
        }
        self.last.insert(
            key,
            Seen {
                session: m.session,
                seq: m.seq,
                timestamp_us: m.timestamp_us,
            },
        );
        Ok(())
    }
}

/// Received, accepted and dropped datagrams by reason.
#[derive(Debug, Default)]
pub struct Counts {
    pub received: AtomicU64,
    pub accepted: AtomicU64,
    pub truncated: AtomicU64,
    /// Bad magic, unknown version or kind.
    pub malformed: AtomicU64,
    pub unauthenticated: AtomicU64,
    pub bad_mac: AtomicU64,
    pub stale: AtomicU64,
    pub replayed: AtomicU64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CountsSnapshot {
    pub received: u64,
    pub accepted: u64,
    pub truncated: u64,
    pub malformed: u64,
    pub unauthenticated: u64,
    pub bad_mac: u64,
    pub stale: u64,
    pub replayed: u64,
}

impl Counts {
    pub fn reject(&self, r: Reject) {
        let c = match r {
            Reject::Truncated => &self.truncated,
            Reject::BadMagic | Reject::BadVersion | Reject::BadKind => &self.malformed,
            Reject::Unauthenticated | Reject::Unverifiable => &self.unauthenticated,
            Reject::BadMac => &self.bad_mac,
            Reject::Stale => &self.stale,
            Reject::Replayed => &self.replayed,
        };
        c.fetch_add(1, Relaxed);
    }

    pub fn snapshot(&self) -> CountsSnapshot {
        CountsSnapshot {
            received: self.received.load(Relaxed),
            accepted: self.accepted.load(Relaxed),
            truncated: self.truncated.load(Relaxed),
            malformed: self.malformed.load(Relaxed),
            unauthenticated: self.unauthenticated.load(Relaxed),
            bad_mac: self.bad_mac.load(Relaxed),
            stale: self.stale.load(Relaxed),
            replayed: self.replayed.load(Relaxed),
        }
    }
}

/// Decodes and checks one datagram, counting the outcome.
pub fn admit(
    buf: &[u8],
    key: Option<&crate::wire::Key>,
    guard: &mut Guard,
    counts: &Counts,
    now_us: u64,
) -> Option<Message> {
    counts.received.fetch_add(1, Relaxed);
    match crate::wire::decode(buf, key).and_then(|m| guard.check(&m, now_us).map(|()| m)) {
        Ok(m) => {
            counts.accepted.fetch_add(1, Relaxed);
            Some(m)
        }
        Err(r) => {
            counts.reject(r);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{encode, Key, MAX_LEN};

    fn msg(session: u32, seq: u32, ts: u64) -> Message {
        Message {
            kind: Kind::Feedback,
            carried: false,
            period_ms: 50,
            session,
            seq,
            timestamp_us: ts,
            ue: Ipv4Addr::new(100, 96, 0, 2),
            bw_bps: 1_000_000,
            min_rtt_us: 10_000,
            beta: 1,
        }
    }

    const NOW: u64 = 1_700_000_000_000_000;

    #[test]
    fn stale_and_replayed_datagrams_are_dropped() {
        let mut g = Guard::new(200_000);
        assert_eq!(g.check(&msg(1, 1, NOW), NOW + 1_000), Ok(()));
        assert_eq!(
            g.check(&msg(1, 1, NOW), NOW + 2_000),
            Err(Reject::Replayed),
            "the same datagram again"
        );
        assert_eq!(
            g.check(&msg(1, 0, NOW + 5), NOW + 2_000),
            Err(Reject::Replayed),
            "an older sequence number"
        );
        assert_eq!(
            g.check(&msg(1, 2, NOW - 300_000), NOW),
            Err(Reject::Stale),
            "taken 300 ms ago"
        );
        assert_eq!(
            g.check(&msg(1, 2, NOW + 300_000), NOW),
            Err(Reject::Stale),
            "from the future"
        );
        assert_eq!(g.check(&msg(1, 2, NOW + 50_000), NOW + 51_000), Ok(()));
        // A restarted sender (new session) is taken when newer, not when older.
        assert_eq!(
            g.check(&msg(2, 1, NOW + 40_000), NOW + 60_000),
            Err(Reject::Replayed)
        );
        assert_eq!(g.check(&msg(2, 1, NOW + 100_000), NOW + 101_000), Ok(()));
        // The old session's datagram, captured and sent again.
        assert_eq!(
            g.check(&msg(1, 2, NOW + 50_000), NOW + 151_000),
            Err(Reject::Replayed),
            "the old session"
        );
        // Other UEs and kinds have their own sequence.
        let mut other = msg(2, 1, NOW + 100_000);
        other.ue = Ipv4Addr::new(100, 96, 0, 6);
        assert_eq!(g.check(&other, NOW + 101_000), Ok(()));
    }

    #[test]
    fn admit_counts_every_outcome() {
        let key = Key::from_bytes(&[7u8; 32]).unwrap();
        let (mut g, counts) = (Guard::new(200_000), Counts::default());
        let mut buf = [0u8; MAX_LEN];
        let n = encode(&msg(1, 1, NOW), Some(&key), &mut buf);
        assert!(admit(&buf[..n], Some(&key), &mut g, &counts, NOW).is_some());
        assert!(admit(&buf[..n], Some(&key), &mut g, &counts, NOW).is_none()); // replay
        assert!(admit(&buf[..n - 3], Some(&key), &mut g, &counts, NOW).is_none()); // truncated
        let mut forged = buf;
        forged[30] ^= 0x80;
        assert!(admit(&forged[..n], Some(&key), &mut g, &counts, NOW).is_none());
        let p = encode(&msg(1, 9, NOW), None, &mut buf);
        assert!(admit(&buf[..p], Some(&key), &mut g, &counts, NOW).is_none());
        let s = encode(&msg(1, 10, NOW - 1_000_000), Some(&key), &mut buf);
        assert!(admit(&buf[..s], Some(&key), &mut g, &counts, NOW).is_none());
        let snap = counts.snapshot();
        assert_eq!(
            snap,
            CountsSnapshot {
                received: 6,
                accepted: 1,
                truncated: 1,
                malformed: 0,
                unauthenticated: 1,
                bad_mac: 1,
                stale: 1,
                replayed: 1
            }
        );
    }
}
