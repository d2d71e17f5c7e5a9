// SPDX-License-Identifier: GPL-2.0-only
//! FQ-CoDel (RFC 8290), Linux's default qdisc: arriving packets are hashed
//! by their 5-tuple into one of `FLOWS` queues, each with its own CoDel
//! (target 5 ms, interval 100 ms). Dequeue is deficit round robin with a
//! quantum of one MTU over two lists: a flow that becomes active joins
//! *new flows*, which are served first, so a sparse flow (a packet now and
//! then) leaves at once whatever a bulk flow has queued; a flow that used
//! up its quantum moves to the tail of *old flows*. When the whole queue is
//! over its limit, the flow with the largest backlog loses its head packet.
//! ECN is on by default, as in Linux: CoDel marks ECT packets CE instead of
//! dropping them.
//!
//! Differences from Linux's sch_fq_codel: the hash is of the IPv4 5-tuple
//! without a random perturbation (runs are reproducible); an overflow drops
//! one packet from the fattest flow rather than a batch of up to 64 (half its
//! backlog); CoDel's "backlog at most one MTU" exemption looks at the flow's
//! own backlog, not the whole qdisc's; the quantum is 1500 bytes (an IP MTU:
//! our link carries IP packets, Linux's 1514 counts the Ethernet header).
use std::collections::VecDeque;

use super::codel::{CodelParams, CodelVars};
use super::{Arg, Discipline, DropReason, Drops, Fifo, Limit, Queue, QueueSpec};
use crate::clock::Micros;
use crate::packet::{Packet, HDR};

/// Flow queues (RFC 8290 §5.1, Linux's `flows` default).
pub const FLOWS: usize = 1024;
/// The DRR quantum, bytes: one MTU.
pub const QUANTUM: i32 = 1500;
/// The whole queue's packet limit when none is given (Linux's default).
pub const DEFAULT_PACKET_LIMIT: u64 = 10_240;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Active {
    No,
    New,
    Old,
}

#[derive(Debug)]
struct Flow {
    fifo: Fifo,
    codel: CodelVars,
    deficit: i32,
    active: Active,
}

#[derive(Debug)]
pub struct FqCodel {
    flows: Vec<Flow>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    params: CodelParams,
    limit: Limit,
    packets: usize,
    bytes: usize,
}

/// The flow queue of an IPv4 packet: FNV-1a over addresses, protocol and
/// (for TCP/UDP) ports; anything else goes to queue 0.
fn bucket(p: &Packet) -> usize {
    let Some(ip) = p.buf.get(HDR..HDR + p.len as usize) else {
        return 0;
    };
    if ip.len() < 20 || ip[0] >> 4 != 4 {
        return 0;
    }
    let ihl = usize::from(ip[0] & 0x0f) * 4;
    let mut h: u32 = 0x811c_9dc5;
    let mut mix = |bytes: &[u8]| {
        for &b in bytes {
            h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
    };
    mix(&ip[12..20]);
    mix(&ip[9..10]);
    if matches!(ip[9], 6 | 17) && ip.len() >= ihl + 4 {
        mix(&ip[ihl..ihl + 4]);
    }
    h as usize % FLOWS
}

impl FqCodel {
    /// `limit` bounds the whole queue (10 240 packets when empty).
    pub fn new(limit: Limit, target: Micros, interval: Micros, ecn: bool) -> FqCodel {
        let limit = if limit == Limit::default() {
            Limit {
                packets: Some(DEFAULT_PACKET_LIMIT),
                bytes: None,
            }
        } else {
            limit
        };
        FqCodel {
            flows: (0..FLOWS)
                .map(|_| Flow {
                    fifo: Fifo::with_capacity(Limit::default(), 0),
                    codel: CodelVars::default(),
                    deficit: 0,
                    active: Active::No,
                })
                .collect(),
            new_flows: VecDeque::with_capacity(FLOWS),
            old_flows: VecDeque::with_capacity(FLOWS),
            params: CodelParams {
                target,
                interval,
                ecn,
            },
            limit,
            packets: 0,
            bytes: 0,
        }
    }

    fn over_limit(&self) -> bool {
        self.limit.packets.is_some_and(|n| self.packets as u64 > n)
            || self.limit.bytes.is_some_and(|b| self.bytes as u64 > b)
    }

    /// Drops the head of the flow with the most bytes queued.
    fn drop_from_fattest(&mut self, drops: &mut Drops) {
        let fattest = self
            .new_flows
            .iter()
            .chain(self.old_flows.iter())
            .copied()
            .max_by_key(|&i| self.flows[i].fifo.bytes());
        if let Some(p) = fattest.and_then(|i| self.flows[i].fifo.pop()) {
            self.packets -= 1;
            self.bytes -= p.len as usize;
            drops.push((p, DropReason::Head));
        }
    }
}

impl Discipline for FqCodel {
    const NAME: &'static str = "fq_codel";
    const ABOUT: &'static str =
        "FQ-CoDel (RFC 8290, Linux's default): per-flow CoDel, DRR; 10240 packets by default";
    /// Linux's per-flow CoDel defaults.
    const ARGS: &'static [Arg] = &[
        Arg::ms(
            "target",
            5.0,
            (0.1, 10_000.0),
            "each flow queue's CoDel target",
        ),
        Arg::ms(
            "interval",
            100.0,
            (1.0, 100_000.0),
            "each flow queue's CoDel interval",
        ),
    ];
    /// Linux marks by default.
    const ECN: Option<bool> = Some(true);
    fn from_spec(spec: &QueueSpec, _seed: u64) -> FqCodel {
        FqCodel::new(
            spec.limit,
            spec.micros("target"),
            spec.micros("interval"),
            spec.ecn,
        )
    }
}

impl Queue for FqCodel {
    fn enqueue(&mut self, p: Packet, _now: Micros, drops: &mut Drops) {
        let i = bucket(&p);
        self.packets += 1;
        self.bytes += p.len as usize;
        let flow = &mut self.flows[i];
        flow.fifo.push(p);
        if flow.active == Active::No {
            flow.active = Active::New;
            flow.deficit = QUANTUM;
            self.new_flows.push_back(i);
        }
        while self.over_limit() {
            self.drop_from_fattest(drops);
        }
    }

    fn dequeue(&mut self, now: Micros, drops: &mut Drops) -> Option<Packet> {
        loop {
            let (i, from_new) = match self.new_flows.front() {
                Some(&i) => (i, true),
                None => (*self.old_flows.front()?, false),
            };
            let flow = &mut self.flows[i];
            if flow.deficit <= 0 {
                flow.deficit += QUANTUM;
                flow.active = Active::Old;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(i);
                continue;
            }
            let before = (flow.fifo.packets(), flow.fifo.bytes());
            let got = flow.codel.dequeue(&mut flow.fifo, &self.params, now, drops);
            // Whatever left the flow (sent or dropped by CoDel) leaves the totals.
            self.packets -= before.0 - flow.fifo.packets();
            self.bytes -= before.1 - flow.fifo.bytes();
            match got {
                Some(p) => {
                    flow.deficit -= p.len as i32;
                    return Some(p);
                }
                None => {
                    // An emptied new flow goes to the old list once (RFC 8290
                    // §4.2, so it cannot cycle through new flows), unless no
                    // old flow waits; an emptied old flow becomes inactive.
                    if from_new {
                        self.new_flows.pop_front();
                        if self.old_flows.is_empty() {
                            flow.active = Active::No;
                        } else {
                            flow.active = Active::Old;
                            self.old_flows.push_back(i);
                        }
                    } else {
                        self.old_flows.pop_front();
                        flow.active = Active::No;
                    }
                }
            }
        }
    }

    fn packets(&self) -> usize {
        self.packets
    }
    fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::ecn;
    use crate::packet::testpkt::ipv4;

    /// A bulk flow (port 1) keeps 200 packets queued while a sparse flow
    /// (port 2) sends one packet every 20 ms; the link sends one packet per
    /// ms. Returns each flow's mean sojourn (ms), and the (marks, CoDel
    /// drops) of the bulk flow.
    fn bulk_and_sparse(ecn_on: bool, field: u8) -> (f64, f64, usize, usize) {
        let mut q = FqCodel::new(Limit::default(), 5_000, 100_000, ecn_on);
        let mut drops = Drops::new();
        let mut sojourn = [(0u64, 0u64); 3];
        let (mut marks, mut codel_drops) = (0, 0);
        let mut bulk_queued = 0usize;
        for ms in 0..3000u64 {
            let now = ms * 1000;
            while bulk_queued < 200 {
                q.enqueue(ipv4(1500, field, 1, now), now, &mut drops);
                bulk_queued += 1;
            }
            if ms % 20 == 0 {
                q.enqueue(ipv4(100, field, 2, now), now, &mut drops);
            }
            if let Some(p) = q.dequeue(now, &mut drops) {
                let port = usize::from(p.data()[21]);
                sojourn[port].0 += now - p.arrival;
                sojourn[port].1 += 1;
                if port == 1 {
                    bulk_queued -= 1;
                    marks += p.marked as usize;
                }
            }
            for (p, r) in drops.drain(..) {
                assert_eq!(p.data()[21], 1, "only the bulk flow loses packets");
                assert_eq!(r, DropReason::Codel);
                bulk_queued -= 1;
                codel_drops += 1;
            }
        }
        let mean = |(sum, n): (u64, u64)| sum as f64 / n.max(1) as f64 / 1000.0;
        (mean(sojourn[1]), mean(sojourn[2]), marks, codel_drops)
    }

    #[test]
    fn a_sparse_flow_is_isolated_from_a_bulk_one() {
        let (bulk, sparse, _, _) = bulk_and_sparse(false, ecn::NOT_ECT);
        // The bulk flow sits behind its own ~200-packet queue (CoDel drops
        // keep refilling it); the sparse one waits at most for the packet
        // being sent.
        assert!(bulk > 100.0, "bulk {bulk} ms");
        assert!(sparse <= 1.0, "sparse {sparse} ms vs bulk {bulk} ms");
    }

    #[test]
    fn ecn_marks_ect_and_drops_not_ect() {
        let (_, sparse, marks, drops) = bulk_and_sparse(true, ecn::ECT0);
        assert!(marks > 10 && drops == 0, "{marks} marks, {drops} drops");
        assert!(sparse <= 1.0, "{sparse}");
        let (_, _, marks, drops) = bulk_and_sparse(true, ecn::NOT_ECT);
        assert!(marks == 0 && drops > 10, "{marks} marks, {drops} drops");
    }

    #[test]
    fn overflow_drops_from_the_fattest_flow() {
        let limit = Limit {
            packets: Some(10),
            bytes: None,
        };
        let mut q = FqCodel::new(limit, 5_000, 100_000, true);
        let mut drops = Drops::new();
        for _ in 0..9 {
            q.enqueue(ipv4(1500, ecn::ECT0, 1, 0), 0, &mut drops);
        }
        q.enqueue(ipv4(100, ecn::ECT0, 2, 0), 0, &mut drops);
        assert!(drops.is_empty());
        q.enqueue(ipv4(100, ecn::ECT0, 2, 0), 0, &mut drops);
        assert_eq!(drops.len(), 1);
        assert_eq!((drops[0].0.data()[21], drops[0].1), (1, DropReason::Head));
        assert_eq!((q.packets(), q.bytes()), (10, 8 * 1500 + 200));
    }
}
