// SPDX-License-Identifier: GPL-2.0-only
//! One direction of the emulator without any I/O: delay line → (loss) →
//! bottleneck queue → trace-driven link, run in time order up to "now".
//! The event loop feeds it packets and writes what it hands back.
use std::net::Ipv4Addr;
use std::sync::Arc;

use crate::clock::Micros;
use crate::delay::DelayLine;
use crate::link::{Link, OPPORTUNITY_BYTES};
use crate::log::Log;
use crate::loss::Loss;
use crate::packet::{Packet, Pool, BUF_SIZE, HDR};
use crate::pcap::{Capture, Event};
use crate::queue::{DropReason, Drops, Queue};
use crate::stats::{bump, Counters};
use crate::tso::{self, Frame};

/// The largest packet the link carries (the TUN devices' MTU).
pub const MTU: u32 = 1500;

pub struct Pipeline {
    pub pool: Pool,
    delay: DelayLine,
    loss: Loss,
    queue: Box<dyn Queue>,
    link: Link,
    log: Option<Log>,
    /// The pcapng capture, at the same points as the log's lines.
    capture: Option<Capture>,
    counters: Arc<Counters>,
    drops: Drops,
    /// Only IPv4 packets to this address go through (None: any packet).
    expect_dst: Option<Ipv4Addr>,
    /// Where a segment is built when no pooled buffer is left (to log its drop).
    spare: Box<[u8]>,
}

impl Pipeline {
    #[allow(clippy::too_many_arguments)] // one per stage; built in one place
    pub fn new(
        delay: DelayLine,
        loss: Loss,
        queue: Box<dyn Queue>,
        link: Link,
        log: Option<Log>,
        counters: Arc<Counters>,
        pool: Pool,
        expect_dst: Option<Ipv4Addr>,
    ) -> Pipeline {
        Pipeline {
            pool,
            delay,
            loss,
            queue,
            link,
            log,
            capture: None,
            counters,
            drops: Drops::with_capacity(1024),
            expect_dst,
            spare: vec![0u8; BUF_SIZE].into_boxed_slice(),
        }
    }

    /// Records every packet's arrival, departure and drop in `capture` too.
    pub fn set_capture(&mut self, capture: Capture) {
        self.capture = Some(capture);
    }

    /// Takes a packet that entered the emulator at `now`. Packets that are
    /// not IPv4 to the expected address are recycled and counted as foreign.
    #[inline]
    pub fn arrive(&mut self, mut p: Packet, now: Micros) {
        if let Some(dst) = self.expect_dst {
            let d = p.data();
            if d.len() < 20 || d[0] >> 4 != 4 || d[16..20] != dst.octets() {
                bump(&self.counters.foreign, 1);
                self.pool.put(p.buf);
                return;
            }
        }
        p.arrival = now;
        p.flow = 0;
        self.delay.push(p);
    }

    /// Takes a frame (virtio-net header + packet) that did not fit in one
    /// packet buffer or is a GSO super-packet (`tso`): a TCP super-packet
    /// enters as the MTU segments it stands for, one after the other, all
    /// arriving at `now`; anything else is an oversize drop of its real length.
    pub fn arrive_frame(&mut self, frame: &[u8], now: Micros) {
        let split = match tso::classify(frame) {
            Frame::Tcp(s) => s,
            Frame::Plain | Frame::Unsupported => {
                let len = frame.len().saturating_sub(HDR) as u32;
                let data = frame.get(HDR..).unwrap_or(&[]);
                self.drop_unqueued(data, len, now, DropReason::Oversize);
                return;
            }
        };
        for i in 0..split.count {
            let len = split.len(i);
            if HDR + len > BUF_SIZE {
                self.drop_unqueued(split.headers(frame), len as u32, now, DropReason::Oversize);
                continue;
            }
            match self.pool.get() {
                Some(mut buf) => {
                    tso::segment(frame, &split, i, &mut buf);
                    self.arrive(Packet::new(buf, len as u32, now), now);
                }
                None => {
                    // Every buffer is in use: the emulator is full.
                    let mut spare = std::mem::take(&mut self.spare);
                    tso::segment(frame, &split, i, &mut spare);
                    self.drop_unqueued(&spare[HDR..HDR + len], len as u32, now, DropReason::Tail);
                    self.spare = spare;
                }
            }
        }
    }

    /// Runs every event due by `now` in time order. A packet leaving the
    /// delay line at the same µs as an opportunity misses it, as in Mahimahi.
    /// Departing packets go to `out(packet, opportunity time)`.
    #[inline]
    pub fn advance(&mut self, now: Micros, out: &mut impl FnMut(Packet, Micros)) {
        loop {
            let opp = self.link.next_opportunity();
            if let Some(r) = self.delay.next_release() {
                if r <= now && opp.is_none_or(|o| r < o) {
                    let p = self.delay.pop_due(now).expect("due packet");
                    self.enter_queue(p, out);
                    continue;
                }
            }
            match opp {
                Some(o) if o <= now => self.opportunity(out),
                _ => break,
            }
        }
        self.counters.queued.store(
            (self.queue.packets() + self.link.busy() as usize) as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
        if self.link.ended() {
            self.counters
                .trace_ended
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// When `advance` must next run for a departure to be written on time:
    /// the next opportunity while something is queued or being sent; else
    /// the first opportunity the oldest packet in the delay line can use
    /// (or its release, when an opportunity comes before it). None: nothing
    /// pending. A release alone needs no wake-up: `advance` replays every
    /// event in time order with its own timestamps, so a packet released at
    /// r and handled later enters the queue at r all the same (log, AQM and
    /// drops see r). Waking for each release made the thread spin on empty
    /// reads whenever a release was due within the spin window — at multi-
    /// Gbit/s rates, always (94 % of its reads came back empty).
    pub fn next_deadline(&self) -> Option<Micros> {
        let opp = self.link.next_opportunity();
        let release = self.delay.next_release();
        if self.queue.packets() > 0 || self.link.busy() {
            opp.or(release)
        } else if self.delay.front_is_light() {
            // CellReplay: it leaves on release, no opportunity needed.
            release
        } else {
            release.map(|r| opp.map_or(r, |o| o.max(r)))
        }
    }

    /// Packets inside the emulator (delay line, queue, link).
    pub fn in_flight(&self) -> usize {
        self.delay.len() + self.queue.packets() + self.link.busy() as usize
    }

    fn enter_queue(&mut self, mut p: Packet, out: &mut impl FnMut(Packet, Micros)) {
        let t = p.arrival;
        bump(&self.counters.arrivals, 1);
        bump(&self.counters.arrival_bytes, p.len as u64);
        if let Some(log) = self.log.as_mut() {
            p.flow = log.flow_id(p.data());
            log.arrival(t, p.len, p.flow);
        }
        if let Some(c) = self.capture.as_mut() {
            c.record(t, p.data(), p.len, Event::Arrival);
        }
        if p.len > MTU {
            self.drops.push((p, DropReason::Oversize));
        } else if self.loss.lose() {
            self.drops.push((p, DropReason::Loss));
        } else if p.light && self.queue.packets() == 0 && !self.link.busy() {
            // CellReplay's light stage: nothing queued at the heavy stage,
            // so it leaves now, with no queueing delay.
            self.depart(p, t, out);
        } else {
            self.queue.enqueue(p, t, &mut self.drops);
        }
        self.recycle_drops(t);
    }

    /// A packet leaving the link at `t` without an opportunity (CellReplay's
    /// light stage): counted, logged and captured as any departure.
    fn depart(&mut self, p: Packet, t: Micros, out: &mut impl FnMut(Packet, Micros)) {
        bump(&self.counters.departures, 1);
        bump(&self.counters.departure_bytes, p.len as u64);
        if let Some(log) = self.log.as_mut() {
            log.departure(t, p.len, 0, p.flow, p.marked, p.mark_cause, p.l4s);
        }
        if let Some(c) = self.capture.as_mut() {
            c.record(t, p.data(), p.len, Event::Departure(0, p.marked, p.l4s));
        }
        out(p, t);
    }

    /// A packet that could not enter the emulator (no buffer, or too large
    /// to read): logged as arriving and dropped at once, at `now`.
    pub fn drop_unqueued(&mut self, data: &[u8], len: u32, now: Micros, reason: DropReason) {
        bump(&self.counters.arrivals, 1);
        bump(&self.counters.arrival_bytes, len as u64);
        self.counters.dropped(reason);
        if let Some(log) = self.log.as_mut() {
            let flow = log.flow_id(data);
            log.arrival(now, len, flow);
            log.drop(now, len, reason, flow);
        }
        if let Some(c) = self.capture.as_mut() {
            c.record(now, data, len, Event::Arrival);
            c.record(now, data, len, Event::Drop(reason));
        }
    }

    fn opportunity(&mut self, out: &mut impl FnMut(Packet, Micros)) {
        bump(&self.counters.opportunities, 1);
        let Pipeline {
            queue,
            link,
            log,
            capture,
            counters,
            drops,
            ..
        } = self;
        if let Some(log) = log.as_mut() {
            log.opportunity(
                link.next_opportunity().expect("opportunity"),
                OPPORTUNITY_BYTES,
            );
        }
        let t = link.use_opportunity(&mut **queue, drops, |p, t| {
            bump(&counters.departures, 1);
            bump(&counters.departure_bytes, p.len as u64);
            if p.marked {
                bump(&counters.ce_marks, 1);
            }
            if p.l4s {
                bump(&counters.l4s_departures, 1);
            }
            if let Some(log) = log.as_mut() {
                log.departure(
                    t,
                    p.len,
                    t - p.arrival,
                    p.flow,
                    p.marked,
                    p.mark_cause,
                    p.l4s,
                );
            }
            if let Some(c) = capture.as_mut() {
                c.record(
                    t,
                    p.data(),
                    p.len,
                    Event::Departure(t - p.arrival, p.marked, p.l4s),
                );
            }
            out(p, t);
        });
        self.recycle_drops(t);
    }

    fn recycle_drops(&mut self, t: Micros) {
        for (p, reason) in self.drops.drain(..) {
            self.counters.dropped(reason);
            if let Some(log) = self.log.as_mut() {
                log.drop(t, p.len, reason, p.flow);
            }
            if let Some(c) = self.capture.as_mut() {
                c.record(t, p.data(), p.len, Event::Drop(reason));
            }
            self.pool.put(p.buf);
        }
    }

    /// Counts writes of departed packets that the receiving device refused.
    pub fn count_write_errors(&self, n: u64) {
        bump(&self.counters.write_errors, n);
    }

    /// Once per wake-up of the forwarding loop: lets the log hand a buffer
    /// that has waited long enough to its writer.
    #[inline]
    pub fn tick(&mut self, now: Micros) {
        if let Some(log) = self.log.as_mut() {
            log.tick(now);
        }
        if let Some(c) = self.capture.as_mut() {
            c.tick(now);
        }
    }

    /// Flushes and closes the log.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        let capture = match self.capture.take() {
            Some(c) => c.finish(),
            None => Ok(()),
        };
        match self.log.take() {
            Some(log) => log.finish(),
            None => Ok(()),
        }
        .and(capture)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::BUF_SIZE;
    use crate::queue::QueueSpec;
    use crate::trace::{Cursor, Trace};
    use std::path::Path;

    fn pipeline(trace: &str, delay: Micros, queue: &str, loss: f64) -> (Pipeline, Arc<Counters>) {
        let t = Trace::parse(Path::new("t"), trace).unwrap();
        let counters = Arc::new(Counters::default());
        let p = Pipeline::new(
            DelayLine::new(delay),
            Loss::new(loss, 1),
            queue.parse::<QueueSpec>().unwrap().build(1),
            Link::new(Cursor::new(&t, 0, false).unwrap(), 0),
            None,
            counters.clone(),
            Pool::new(16, 1 << 16),
            None,
        );
        (p, counters)
    }

    fn packet(pool: &mut Pool, len: u32) -> Packet {
        let buf = pool.get().unwrap();
        assert_eq!(buf.len(), BUF_SIZE);
        Packet::new(buf, len, 0)
    }

    #[test]
    fn delay_then_queue_then_link() {
        // One opportunity per ms; 10 ms delay: a packet in at 0.3 ms is
        // queued at 10.3 ms and leaves at the 11 ms opportunity.
        let (mut pl, c) = pipeline("1\n", 10_000, "infinite", 0.0);
        let p = packet(&mut pl.pool, 1500);
        pl.arrive(p, 300);
        assert_eq!(pl.next_deadline(), Some(10_300));
        // A second packet behind it changes nothing: the first to leave decides.
        let p = packet(&mut pl.pool, 1500);
        pl.arrive(p, 10_200);
        assert_eq!(pl.next_deadline(), Some(10_300));
        let mut out = Vec::new();
        pl.advance(10_300, &mut |p, t| out.push((p.len, t)));
        assert!(out.is_empty());
        assert_eq!(pl.next_deadline(), Some(11_000));
        // Queued now: the next opportunity, not the second packet's release
        // (20.2 ms), which is replayed in order when 11 ms comes.
        assert_eq!(pl.next_deadline(), Some(11_000));
        pl.advance(11_000, &mut |p, t| out.push((p.len, t)));
        assert_eq!(out, vec![(1500, 11_000)]);
        // Queue empty: the first opportunity after the second packet's release.
        assert_eq!(pl.next_deadline(), Some(20_200));
        pl.advance(25_000, &mut |p, t| out.push((p.len, t)));
        assert_eq!(out, vec![(1500, 11_000), (1500, 21_000)]);
        let s = c.snapshot();
        assert_eq!((s.arrivals, s.departures, s.opportunities), (2, 2, 25));
        assert_eq!(pl.next_deadline(), None);
    }

    #[test]
    fn oversize_and_loss_are_dropped_and_counted() {
        let (mut pl, c) = pipeline("1\n", 0, "infinite", 1.0);
        let p = packet(&mut pl.pool, 1600);
        pl.arrive(p, 0);
        let p = packet(&mut pl.pool, 100);
        pl.arrive(p, 0);
        pl.advance(5_000, &mut |_, _| panic!("nothing departs"));
        let s = c.snapshot();
        assert_eq!(
            (s.arrivals, s.drops.oversize, s.drops.loss, s.departures),
            (2, 1, 1, 0)
        );
        assert_eq!(pl.pool.in_use(), 0, "dropped buffers are recycled");
    }

    #[test]
    fn a_late_caller_still_gets_trace_times() {
        // Waking up 3.7 ms late: opportunities at 1, 2, 3 ms are used in order.
        let (mut pl, _) = pipeline("1\n", 0, "infinite", 0.0);
        for _ in 0..3 {
            let p = packet(&mut pl.pool, 1500);
            pl.arrive(p, 0);
        }
        let mut out = Vec::new();
        pl.advance(3_700, &mut |_, t| out.push(t));
        assert_eq!(out, vec![1_000, 2_000, 3_000]);
    }

    /// CellReplay: a synthetic pair. Light: base delay 30 ms, trains of 5
    /// opportunities 1 ms apart. Heavy: 2 opportunities per ms (24
    /// Mbit/s) every 10th ms only, i.e. 2.4 Mbit/s on average.
    fn cellreplay_pipeline() -> (Pipeline, Arc<Counters>) {
        use crate::cellreplay::{LightStage, LightTrace};
        let light = LightTrace::parse(
            Path::new("light"),
            "0 30 0 1 2 3 4\n5000 30 0 1 2 3 4\n10000 30 0 1 2 3 4\n",
        )
        .unwrap();
        let heavy: String = (1..=1000)
            .filter(|ms| ms % 10 == 0)
            .flat_map(|ms| [ms, ms])
            .map(|ms| format!("{ms}\n"))
            .collect();
        let heavy = Trace::parse(Path::new("heavy"), &heavy).unwrap();
        let counters = Arc::new(Counters::default());
        let stage = LightStage::new(Arc::new(light), None, 0, 0);
        let p = Pipeline::new(
            DelayLine::cellreplay(stage),
            Loss::new(0.0, 1),
            "infinite".parse::<QueueSpec>().unwrap().build(1),
            Link::new(Cursor::new(&heavy, 0, false).unwrap(), 0),
            None,
            counters.clone(),
            Pool::new(256, 1 << 16),
            None,
        );
        (p, counters)
    }

    #[test]
    fn cellreplay_lone_packet_sees_the_light_delay_and_a_burst_the_heavy_rate() {
        let (mut pl, _) = cellreplay_pipeline();
        let mut out: Vec<Micros> = Vec::new();
        // A lone packet after idle: the base delay, not a heavy opportunity
        // (the next heavy one after 30.3 ms would be at 40 ms).
        let p = packet(&mut pl.pool, 1500);
        pl.arrive(p, 300);
        assert_eq!(pl.next_deadline(), Some(30_300));
        pl.advance(30_300, &mut |_, t| out.push(t));
        assert_eq!(out, vec![30_300]);
        // Much later, a burst of 105 packets, longer than the 5-packet train:
        // the first 5 leave at the train's pace (30, 31, ... 34 ms after),
        // the rest at the heavy trace's 2 per 10 ms.
        out.clear();
        let t0 = 2_000_000;
        for _ in 0..105 {
            let p = packet(&mut pl.pool, 1500);
            pl.arrive(p, t0);
        }
        pl.advance(t0 + 3_000_000, &mut |_, t| out.push(t));
        assert_eq!(out.len(), 105);
        let light: Vec<Micros> = out[..5].iter().map(|t| t - t0).collect();
        assert_eq!(light, vec![30_000, 31_000, 32_000, 33_000, 34_000]);
        // The heavy part: 100 packets at 2 per 10 ms take ~500 ms, the
        // heavy trace's 2.4 Mbit/s, not the light train's 12 Mbit/s.
        let heavy_s = (out[104] - out[5]) as f64 / 1e6;
        let mbps: f64 = 99.0 * 1500.0 * 8.0 / heavy_s / 1e6;
        assert!((mbps - 2.4).abs() < 0.1, "heavy part at {mbps:.2} Mbit/s");
        assert!(out.windows(2).all(|w| w[0] <= w[1]), "in order");
        // Idle again: the next lone packet sees the base delay again.
        out.clear();
        let t1 = t0 + 4_000_000;
        let p = packet(&mut pl.pool, 100);
        pl.arrive(p, t1);
        pl.advance(t1 + 100_000, &mut |_, t| out.push(t));
        assert_eq!(out, vec![t1 + 30_000]);
    }
}
