// SPDX-License-Identifier: GPL-2.0-only
//! The trace-driven link: at each opportunity of the trace it may send
//! [`OPPORTUNITY_BYTES`] bytes from the queue. Byte accounting is
//! Mahimahi's: several small packets can share one opportunity, a packet
//! larger than what is left carries over into the next opportunity (it
//! departs when its last byte is sent), and bytes with nothing to send are
//! wasted.
use crate::clock::Micros;
use crate::packet::Packet;
use crate::queue::{Drops, Queue};
use crate::trace::Cursor;

/// Bytes per delivery opportunity: the trace format's, see there.
pub use crate::trace::OPPORTUNITY_BYTES;

pub struct Link {
    cursor: Cursor,
    /// Absolute µs of trace time 0.
    start: Micros,
    /// The packet being sent and the bytes of it still to send.
    in_transit: Option<(Packet, u32)>,
}

impl Link {
    pub fn new(cursor: Cursor, start: Micros) -> Link {
        Link {
            cursor,
            start,
            in_transit: None,
        }
    }

    /// Absolute µs of the next opportunity, None once a `--once` trace ended.
    #[inline]
    pub fn next_opportunity(&self) -> Option<Micros> {
        self.cursor.peek_us().map(|t| self.start + t)
    }

    /// Whether a packet is partly sent.
    pub fn busy(&self) -> bool {
        self.in_transit.is_some()
    }

    pub fn ended(&self) -> bool {
        self.cursor.ended()
    }

    /// Uses the next opportunity (call only when `next_opportunity` is Some):
    /// packets dequeued at its time `t`; each one whose last byte goes out
    /// is passed to `depart`. Returns `t`.
    pub fn use_opportunity(
        &mut self,
        queue: &mut dyn Queue,
        drops: &mut Drops,
        mut depart: impl FnMut(Packet, Micros),
    ) -> Micros {
        let t = self
            .next_opportunity()
            .expect("use_opportunity after the trace ended");
        self.cursor.advance();
        let mut budget = OPPORTUNITY_BYTES;
        while budget > 0 {
            let (p, left) = match self.in_transit.take() {
                Some(x) => x,
                None => match queue.dequeue(t, drops) {
                    Some(p) => {
                        let len = p.len;
                        (p, len)
                    }
                    None => break,
                },
            };
            if left <= budget {
                budget -= left;
                depart(p, t);
            } else {
                self.in_transit = Some((p, left - budget));
                budget = 0;
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{Infinite, Queue};
    use crate::trace::{Cursor, Trace};
    use std::path::Path;

    fn link(trace: &str) -> Link {
        let t = Trace::parse(Path::new("t"), trace).unwrap();
        Link::new(Cursor::new(&t, 0, false).unwrap(), 0)
    }

    /// Runs `n` opportunities over packets of `sizes` queued at time 0;
    /// returns (departure ms, packet size) in order.
    fn run(trace: &str, sizes: &[u32], n: usize) -> Vec<(u64, u32)> {
        let mut l = link(trace);
        let mut q = Infinite::new();
        let mut drops = Drops::new();
        for &s in sizes {
            q.enqueue(Packet::bare(s, 0), 0, &mut drops);
        }
        let mut out = Vec::new();
        for _ in 0..n {
            l.use_opportunity(&mut q, &mut drops, |p, t| out.push((t / 1000, p.len)));
        }
        out
    }

    #[test]
    fn one_mtu_packet_per_opportunity() {
        assert_eq!(
            run("1\n2\n3\n", &[1500; 3], 3),
            vec![(1, 1500), (2, 1500), (3, 1500)]
        );
    }

    #[test]
    fn small_packets_share_an_opportunity() {
        // 28 ACK-sized packets fit in 1500 bytes (28 * 52 = 1456); the 29th waits.
        let out = run("1\n2\n", &[52; 29], 2);
        assert_eq!(out.iter().filter(|(t, _)| *t == 1).count(), 28);
        assert_eq!(out.last(), Some(&(2, 52)));
    }

    #[test]
    fn a_packet_can_span_opportunities_and_unused_bytes_are_wasted() {
        // 1000 + 1000: the second needs 500 bytes of the second opportunity.
        assert_eq!(run("1\n2\n", &[1000, 1000], 2), vec![(1, 1000), (2, 1000)]);
        // Repeated timestamps are several opportunities in the same ms.
        assert_eq!(run("5\n5\n", &[1500, 1500], 2), vec![(5, 1500), (5, 1500)]);
        // An idle opportunity's bytes are lost: a packet queued later only
        // gets the next one.
        let mut l = link("1\n2\n");
        let mut q = Infinite::new();
        let mut drops = Drops::new();
        let mut out = Vec::new();
        l.use_opportunity(&mut q, &mut drops, |p, t| out.push((t, p.len)));
        q.enqueue(Packet::bare(1500, 1500), 1500, &mut drops);
        q.enqueue(Packet::bare(100, 1500), 1500, &mut drops);
        l.use_opportunity(&mut q, &mut drops, |p, t| out.push((t, p.len)));
        assert_eq!(out, vec![(2000, 1500)]);
        assert!(
            !l.busy() && q.packets() == 1,
            "the 100-byte packet waits for the next opportunity"
        );
    }

    #[test]
    fn trace_loops() {
        let out = run("1\n2\n", &[1500; 4], 4);
        assert_eq!(
            out.iter().map(|o| o.0).collect::<Vec<_>>(),
            vec![1, 2, 3, 4]
        );
    }
}
