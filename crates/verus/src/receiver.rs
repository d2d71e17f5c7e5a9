// SPDX-License-Identifier: GPL-2.0-only
//! The Verus receiver (the authors' `verus_client.cpp`): it acknowledges
//! every data packet at once by echoing its stamp (slow-start id, sequence
//! number, window, send time), so the sender measures each packet's round
//! trip and knows which window it was sent under. Pure: the caller passes
//! the time and sends the acks this writes. Taking a datagram does not
//! allocate.
use crate::wire::{self, Ack, Bye, Data, Packet};

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ReceiverCounters {
    pub data_packets: u64,
    /// Bytes of data datagrams of our session.
    pub bytes_received: u64,
    pub other_session: u64,
    /// Acks or other kinds a receiver does not expect.
    pub unexpected_kind: u64,
    pub dropped: wire::DropCounts,
    pub acks_written: u64,
}

#[derive(Default)]
pub struct Receiver {
    session: Option<u32>,
    bye: Option<Bye>,
    pub counters: ReceiverCounters,
}

impl Receiver {
    pub fn new() -> Self {
        Self::default()
    }

    /// The sender's session, once a data datagram arrived.
    pub fn session(&self) -> Option<u32> {
        self.session
    }

    /// The sender's goodbye, if it arrived.
    pub fn bye(&self) -> Option<&Bye> {
        self.bye.as_ref()
    }

    /// Takes one datagram. For a data packet of our session, writes its ack
    /// into `ack_buf` and returns the packet and the ack's length; malformed
    /// datagrams are counted (`counters.dropped`) and dropped.
    pub fn on_datagram(&mut self, bytes: &[u8], ack_buf: &mut [u8]) -> Option<(Data, usize)> {
        let p = match wire::parse(bytes) {
            Ok(p) => p,
            Err(e) => {
                self.counters.dropped.record(&e);
                return None;
            }
        };
        match p {
            Packet::Data(d) => {
                let session = *self.session.get_or_insert(d.stamp.session);
                if d.stamp.session != session {
                    self.counters.other_session += 1;
                    return None;
                }
                self.counters.data_packets += 1;
                self.counters.bytes_received += d.len as u64;
                let n = wire::write_ack(
                    &Ack {
                        stamp: d.stamp,
                        bytes_received: self.counters.bytes_received,
                        packets_received: self.counters.data_packets,
                    },
                    ack_buf,
                );
                self.counters.acks_written += 1;
                Some((d, n))
            }
            Packet::Bye(b) if Some(b.session) == self.session => {
                self.bye = Some(b);
                None
            }
            Packet::Bye(_) => {
                self.counters.other_session += 1;
                None
            }
            Packet::Ack(_) => {
                self.counters.unexpected_kind += 1;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Stamp, DATA_HEADER};

    fn data(session: u32, seq: u64) -> Vec<u8> {
        let mut b = vec![0u8; 200];
        let stamp = Stamp {
            session,
            ss_id: 1,
            seq,
            window: 12,
            send_time_us: 5,
        };
        let n = wire::write_data(&Data { stamp, len: 200 }, &mut b, true);
        b.truncate(n);
        b
    }

    #[test]
    fn acks_echo_the_stamp_with_the_totals() {
        let mut r = Receiver::new();
        let mut ack = [0u8; wire::ACK_LEN];
        for seq in 1..=3 {
            let (d, n) = r.on_datagram(&data(9, seq), &mut ack).unwrap();
            let Ok(Packet::Ack(a)) = wire::parse(&ack[..n]) else {
                panic!()
            };
            assert_eq!(a.stamp, d.stamp);
            assert_eq!((a.packets_received, a.bytes_received), (seq, 200 * seq));
        }
        // Another sender's data is not acked; the first sender's bye ends it.
        assert!(r.on_datagram(&data(10, 1), &mut ack).is_none());
        assert_eq!(r.counters.other_session, 1);
        let mut b = [0u8; wire::BYE_LEN];
        let n = wire::write_bye(
            &Bye {
                session: 9,
                packets_sent: 3,
                bytes_sent: 600,
            },
            &mut b,
        );
        assert!(r.on_datagram(&b[..n], &mut ack).is_none());
        assert_eq!(r.bye().map(|b| b.packets_sent), Some(3));
    }

    /// Malformed datagrams are counted by reason and dropped, never acked.
    #[test]
    fn garbage_is_counted_and_dropped() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let mut r = Receiver::new();
        let mut ack = [0u8; wire::ACK_LEN];
        let good = data(9, 1);
        let mut acked = 0;
        for _ in 0..20_000 {
            let mut v = good.clone();
            let i = rng.gen_range(0..DATA_HEADER);
            v[i] ^= 1 << rng.gen_range(0..8);
            v.truncate(rng.gen_range(0..=v.len()));
            if r.on_datagram(&v, &mut ack).is_some() {
                acked += 1;
            }
        }
        let c = &r.counters;
        assert_eq!(c.data_packets, acked);
        assert!(c.dropped.total() > 10_000, "{c:?}");
        assert!(
            c.dropped.truncated > 0 && c.dropped.foreign > 0 && c.dropped.bad_field > 0,
            "{c:?}"
        );
    }
}
