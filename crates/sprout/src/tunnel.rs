// SPDX-License-Identifier: GPL-2.0-only
//! SproutTunnel's queue discipline (Sprout paper, §4.3), pure: what one
//! tunnel end does with the IP packets its TUN device hands it before Sprout
//! may send them.
//!
//! The paper: "separating each flow into its own queue, and filling up the
//! Sprout window in round-robin fashion among the flows that have pending
//! data. The total queue length of all flows is limited to the receiver's
//! most recent estimate of the number of packets that can be delivered over
//! the life of the forecast. When the queue lengths exceed this value, the
//! tunnel endpoints drop packets from the head of the longest queue."
//!
//! So, here:
//!
//! - a flow is an IPv4 5-tuple (protocol, addresses, and for TCP and UDP the
//!   ports); anything else (ICMP, IPv6, fragments after the first) is keyed
//!   by what it has, so it still gets a queue of its own;
//! - `dequeue(window)` visits the flows with pending packets round-robin,
//!   starting after the one served last, and returns the first head packet
//!   that fits in the window: a flow with a small packet is not held up by
//!   another's large one;
//! - the limit is bytes (Sprout's forecasts count bytes): the last entry of
//!   the receiver's cumulative forecast. Lengths are compared in bytes too,
//!   and the drop takes the longest queue's oldest packet — the one most
//!   likely to arrive too late to matter — until the total fits. The limit
//!   never goes below one full packet, so a lone packet can wait for the
//!   window to open even when the forecast says "outage";
//! - before the first forecast there is no limit (`None`): the tunnel's
//!   sender has its initial window to learn the link with.
//!
//! Flows whose queue empties are forgotten (and their round-robin place
//! with them), so the set stays as small as the number of busy flows.
//!
//! Each packet may carry a stamp (its time of arrival at the tunnel, for
//! the tunnel's per-packet records: `enqueue_stamped`, `dequeue_stamped`),
//! and with `record_drops` the packets dropped are kept for `take_drops`.
use std::collections::VecDeque;

/// The flow a packet belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowKey {
    pub proto: u8,
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub sport: u16,
    pub dport: u16,
}

/// The flow of an IP packet (as a TUN device without packet information
/// hands it): IPv4 5-tuples; anything else gets a key from what it has.
pub fn flow_key(packet: &[u8]) -> FlowKey {
    let mut k = FlowKey {
        proto: 0,
        src: [0; 4],
        dst: [0; 4],
        sport: 0,
        dport: 0,
    };
    if packet.len() < 20 || packet[0] >> 4 != 4 {
        // Not IPv4 (or truncated): one queue per IP version.
        k.proto = packet.first().map_or(0, |b| 0xf0 | b >> 4);
        return k;
    }
    let ihl = usize::from(packet[0] & 0x0f) * 4;
    k.proto = packet[9];
    k.src.copy_from_slice(&packet[12..16]);
    k.dst.copy_from_slice(&packet[16..20]);
    let first_fragment = u16::from_be_bytes([packet[6], packet[7]]) & 0x1fff == 0;
    if (k.proto == 6 || k.proto == 17) && first_fragment && packet.len() >= ihl + 4 && ihl >= 20 {
        k.sport = u16::from_be_bytes([packet[ihl], packet[ihl + 1]]);
        k.dport = u16::from_be_bytes([packet[ihl + 2], packet[ihl + 3]]);
    }
    k
}

struct FlowQueue {
    key: FlowKey,
    /// Packets and their stamps, oldest first.
    packets: VecDeque<(Vec<u8>, u64)>,
    bytes: usize,
}

/// A packet the limit dropped (kept only with `record_drops`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dropped {
    pub key: FlowKey,
    pub len: usize,
    /// The stamp it was queued with.
    pub stamp: u64,
}

/// What the queues did, for the tunnel's report.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct QueueCounters {
    pub enqueued_packets: u64,
    pub dequeued_packets: u64,
    /// Dropped from the head of the longest queue to fit the limit.
    pub dropped_packets: u64,
    pub dropped_bytes: u64,
    /// Most flows with pending packets at once.
    pub max_flows: u64,
}

/// One tunnel end's per-flow queues.
pub struct TunnelQueues {
    /// Flows with pending packets, in round-robin order.
    flows: Vec<FlowQueue>,
    /// Index in `flows` of the next flow to serve.
    next: usize,
    total_bytes: usize,
    /// Bytes the queues may hold (None: no forecast yet).
    limit: Option<usize>,
    /// Floor of the limit: one full packet.
    min_limit: usize,
    pub counters: QueueCounters,
    /// Some: the dropped packets since the last `take_drops`.
    drops: Option<Vec<Dropped>>,
}

impl TunnelQueues {
    /// `max_packet`: the largest packet the tunnel carries (the limit's floor).
    pub fn new(max_packet: usize) -> Self {
        TunnelQueues {
            flows: Vec::new(),
            next: 0,
            total_bytes: 0,
            limit: None,
            min_limit: max_packet,
            counters: QueueCounters::default(),
            drops: None,
        }
    }

    /// Keeps every dropped packet's key, length and stamp for `take_drops`.
    pub fn record_drops(&mut self) {
        self.drops.get_or_insert_with(Vec::new);
    }

    /// The packets dropped since the last call (none unless `record_drops`).
    pub fn take_drops(&mut self) -> Vec<Dropped> {
        self.drops.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Bytes queued over all flows.
    pub fn total_bytes(&self) -> usize {
        self.total_bytes
    }

    /// Flows with pending packets.
    pub fn flows(&self) -> usize {
        self.flows.len()
    }

    /// The receiver's latest forecast: bytes it expects delivered over the
    /// forecast's life. Drops from the longest queue until the total fits.
    pub fn set_limit(&mut self, forecast_bytes: u64) {
        let limit = usize::try_from(forecast_bytes).unwrap_or(usize::MAX);
        self.limit = Some(limit.max(self.min_limit));
        self.enforce();
    }

    /// Queues `packet` behind its flow's others, then enforces the limit.
    pub fn enqueue(&mut self, packet: Vec<u8>) {
        self.enqueue_stamped(packet, 0)
    }

    /// `enqueue` with a stamp that `dequeue_stamped` hands back.
    pub fn enqueue_stamped(&mut self, packet: Vec<u8>, stamp: u64) {
        let key = flow_key(&packet);
        let len = packet.len();
        let i = match self.flows.iter().position(|f| f.key == key) {
            Some(i) => i,
            None => {
                // A new flow joins the round at its end, as the last served.
                let at = self.next;
                self.flows.insert(
                    at,
                    FlowQueue {
                        key,
                        packets: VecDeque::new(),
                        bytes: 0,
                    },
                );
                self.next = (at + 1) % self.flows.len();
                self.counters.max_flows = self.counters.max_flows.max(self.flows.len() as u64);
                at
            }
        };
        let f = &mut self.flows[i];
        f.packets.push_back((packet, stamp));
        f.bytes += len;
        self.total_bytes += len;
        self.counters.enqueued_packets += 1;
        self.enforce();
    }

    /// The next packet to send within `window` bytes: the head of the first
    /// flow, round-robin from the one after the last served, whose head
    /// fits. None when nothing fits (or nothing is queued).
    pub fn dequeue(&mut self, window: usize) -> Option<Vec<u8>> {
        self.dequeue_stamped(window).map(|(p, _)| p)
    }

    /// `dequeue`, with the packet's stamp.
    pub fn dequeue_stamped(&mut self, window: usize) -> Option<(Vec<u8>, u64)> {
        let n = self.flows.len();
        let i = (0..n).map(|k| (self.next + k) % n).find(|&i| {
            self.flows[i]
                .packets
                .front()
                .is_some_and(|(p, _)| p.len() <= window)
        })?;
        let p = self.take_head(i);
        self.counters.dequeued_packets += 1;
        Some(p)
    }

    /// Removes flow `i`'s head packet; a flow left empty leaves the round.
    /// The round continues after `i`.
    fn take_head(&mut self, i: usize) -> (Vec<u8>, u64) {
        let f = &mut self.flows[i];
        let (p, stamp) = f
            .packets
            .pop_front()
            .expect("a flow in the round has packets");
        f.bytes -= p.len();
        self.total_bytes -= p.len();
        if f.packets.is_empty() {
            self.flows.remove(i);
            self.next = if self.flows.is_empty() {
                0
            } else {
                i % self.flows.len()
            };
        } else {
            self.next = (i + 1) % self.flows.len();
        }
        (p, stamp)
    }

    /// Drops the head of the longest queue (bytes) until the total fits.
    fn enforce(&mut self) {
        let Some(limit) = self.limit else { return };
        while self.total_bytes > limit {
            let next = self.next;
            let (i, _) = self
                .flows
                .iter()
                .enumerate()
                .max_by_key(|(_, f)| f.bytes)
                .expect("bytes queued means a flow");
            let key = self.flows[i].key;
            let (p, stamp) = self.take_head(i);
            // A drop is not a turn: the round stays where it was.
            self.next = next.min(self.flows.len().saturating_sub(1));
            self.counters.dropped_packets += 1;
            self.counters.dropped_bytes += p.len() as u64;
            if let Some(d) = &mut self.drops {
                d.push(Dropped {
                    key,
                    len: p.len(),
                    stamp,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IPv4 packet of `len` bytes, protocol `proto`, ports sport -> dport,
    /// its first payload byte `tag` (to tell packets apart).
    fn ip(proto: u8, sport: u16, dport: u16, len: usize, tag: u8) -> Vec<u8> {
        let mut p = vec![0u8; len.max(29)];
        p[0] = 0x45;
        p[9] = proto;
        p[12..16].copy_from_slice(&[10, 0, 0, 1]);
        p[16..20].copy_from_slice(&[10, 0, 0, 2]);
        p[20..22].copy_from_slice(&sport.to_be_bytes());
        p[22..24].copy_from_slice(&dport.to_be_bytes());
        p[28] = tag;
        p
    }

    #[test]
    fn the_flow_is_the_five_tuple() {
        let a = flow_key(&ip(6, 40000, 5201, 100, 0));
        assert_eq!((a.proto, a.sport, a.dport), (6, 40000, 5201));
        assert_eq!(a.src, [10, 0, 0, 1]);
        assert_ne!(a, flow_key(&ip(17, 40000, 5201, 100, 0)));
        assert_ne!(a, flow_key(&ip(6, 40001, 5201, 100, 0)));
        // ICMP: no ports; a later fragment: no ports either.
        assert_eq!(flow_key(&ip(1, 7, 8, 100, 0)).sport, 0);
        let mut frag = ip(17, 1, 2, 100, 0);
        frag[7] = 10;
        assert_eq!(flow_key(&frag).sport, 0);
        // IPv6 and garbage get a queue of their own, not a panic.
        assert_eq!(flow_key(&[0x60; 40]).proto, 0xf6);
        assert_eq!(flow_key(&[]).proto, 0);
    }

    #[test]
    fn flows_share_the_window_round_robin() {
        let mut q = TunnelQueues::new(1500);
        for t in 0..4 {
            q.enqueue(ip(6, 1, 1, 1500, t)); // bulk
        }
        q.enqueue(ip(17, 2, 2, 200, 100)); // interactive
        q.enqueue(ip(17, 2, 2, 200, 101));
        let order: Vec<u8> = std::iter::from_fn(|| q.dequeue(10_000))
            .map(|p| p[28])
            .collect();
        assert_eq!(order, [0, 100, 1, 101, 2, 3]);
        assert_eq!((q.total_bytes(), q.flows()), (0, 0));
    }

    #[test]
    fn a_small_packet_passes_a_large_one_that_does_not_fit() {
        let mut q = TunnelQueues::new(1500);
        q.enqueue(ip(6, 1, 1, 1500, 0));
        q.enqueue(ip(17, 2, 2, 200, 1));
        assert_eq!(q.dequeue(1000).map(|p| p[28]), Some(1));
        assert_eq!(q.dequeue(1000), None);
        assert_eq!(q.dequeue(1500).map(|p| p[28]), Some(0));
    }

    /// Over the limit, the longest queue loses its oldest packets; the
    /// short interactive queue keeps all of its.
    #[test]
    fn over_the_forecast_the_longest_queue_loses_its_head() {
        let mut q = TunnelQueues::new(1500);
        for t in 0..10 {
            q.enqueue(ip(6, 1, 1, 1500, t));
        }
        q.enqueue(ip(17, 2, 2, 200, 100));
        q.set_limit(3 * 1500 + 200);
        assert_eq!(q.total_bytes(), 3 * 1500 + 200);
        assert_eq!(q.counters.dropped_packets, 7);
        let order: Vec<u8> = std::iter::from_fn(|| q.dequeue(10_000))
            .map(|p| p[28])
            .collect();
        // The bulk flow's three newest survive, and the interactive packet.
        assert_eq!(order.len(), 4);
        assert!(order.contains(&100) && order.contains(&7) && order.contains(&9));
        assert!(!order.contains(&0));
        // New packets beyond the limit are handled the same way.
        q.set_limit(1500);
        q.enqueue(ip(6, 1, 1, 1500, 20));
        q.enqueue(ip(6, 1, 1, 1500, 21));
        assert_eq!(q.dequeue(10_000).map(|p| p[28]), Some(21));
    }

    #[test]
    fn stamps_travel_with_their_packets_and_drops_are_recorded() {
        let mut q = TunnelQueues::new(1500);
        q.record_drops();
        for t in 0..3 {
            q.enqueue_stamped(ip(6, 1, 1, 1500, t), 100 + u64::from(t));
        }
        q.enqueue_stamped(ip(17, 2, 2, 200, 9), 500);
        q.set_limit(1500 + 200);
        let drops = q.take_drops();
        assert_eq!(
            drops
                .iter()
                .map(|d| (d.stamp, d.len, d.key.proto))
                .collect::<Vec<_>>(),
            [(100, 1500, 6), (101, 1500, 6)]
        );
        assert!(q.take_drops().is_empty());
        let got: Vec<(u8, u64)> = std::iter::from_fn(|| q.dequeue_stamped(10_000))
            .map(|(p, s)| (p[28], s))
            .collect();
        assert_eq!(got, [(2, 102), (9, 500)]);
    }

    #[test]
    fn no_limit_before_the_first_forecast_and_never_below_a_packet() {
        let mut q = TunnelQueues::new(1500);
        for t in 0..50 {
            q.enqueue(ip(6, 1, 1, 1500, t));
        }
        assert_eq!(q.counters.dropped_packets, 0);
        q.set_limit(0); // an outage forecast
        assert_eq!(q.total_bytes(), 1500);
        assert_eq!(q.dequeue(1500).map(|p| p[28]), Some(49));
    }
}
