// SPDX-License-Identifier: GPL-2.0-only
//! A millisecond-stepped model of a Mahimahi-style path, to exercise the
//! sender and receiver logic on real traces without sockets, deterministically
//! and faster than real time. It is a test tool, not the project's emulator:
//! each direction is a fixed propagation delay followed by a FIFO drained by
//! the trace's delivery opportunities (1504 bytes each, whole packets only,
//! unused bytes of an opportunity wasted; the trace loops).
use std::collections::VecDeque;
use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::receiver::Receiver;
use crate::sender::Sender;
use crate::wire::{self, Packet};
use crate::IP_UDP_OVERHEAD;

/// Bytes one delivery opportunity carries (Mahimahi's accounting).
pub const OPPORTUNITY_BYTES: usize = 1504;

/// Reads a Mahimahi trace: one millisecond timestamp per line.
pub fn read_trace(path: &Path) -> Result<Vec<u64>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let t: u64 = line.parse().with_context(|| {
            format!(
                "{}:{}: not a millisecond count: {line:?}",
                path.display(),
                i + 1
            )
        })?;
        if out.last().is_some_and(|&l| t < l) {
            bail!("{}:{}: timestamps go backwards", path.display(), i + 1);
        }
        out.push(t);
    }
    if out.is_empty() || *out.last().unwrap() == 0 {
        bail!("{}: empty trace", path.display());
    }
    Ok(out)
}

/// One direction: delay line, then a queue served by a trace.
struct Link {
    /// Opportunities per millisecond of one trace period.
    opportunities: Vec<u32>,
    delay_ms: u64,
    limit_packets: Option<usize>,
    in_flight: VecDeque<(u64, Vec<u8>)>,
    /// (time it entered the queue, datagram)
    queue: VecDeque<(u64, Vec<u8>)>,
    drops: u64,
}

impl Link {
    fn new(trace: Option<&[u64]>, delay_ms: u64, limit_packets: Option<usize>) -> Self {
        let opportunities = match trace {
            Some(t) => {
                let period = *t.last().unwrap() as usize;
                let mut o = vec![0u32; period];
                for &ms in t {
                    // Mahimahi's trace repeats with period = last timestamp.
                    o[(ms as usize).saturating_sub(1) % period] += 1;
                }
                o
            }
            None => Vec::new(),
        };
        Link {
            opportunities,
            delay_ms,
            limit_packets,
            in_flight: VecDeque::new(),
            queue: VecDeque::new(),
            drops: 0,
        }
    }

    fn send(&mut self, now_ms: u64, d: Vec<u8>) {
        self.in_flight.push_back((now_ms + self.delay_ms, d));
    }

    /// Advances to `now_ms`; returns (queueing delay ms, datagram) departures.
    fn step(&mut self, now_ms: u64, out: &mut Vec<(u64, Vec<u8>)>) -> u64 {
        while self.in_flight.front().is_some_and(|(t, _)| *t <= now_ms) {
            let (_, d) = self.in_flight.pop_front().unwrap();
            if self.limit_packets.is_some_and(|l| self.queue.len() >= l) {
                self.drops += 1;
            } else {
                self.queue.push_back((now_ms, d));
            }
        }
        if self.opportunities.is_empty() {
            // An unlimited link.
            out.extend(self.queue.drain(..).map(|(t, d)| (now_ms - t, d)));
            return 0;
        }
        let n = self.opportunities[(now_ms as usize) % self.opportunities.len()] as u64;
        for _ in 0..n {
            let mut budget = OPPORTUNITY_BYTES;
            while let Some((_, d)) = self.queue.front() {
                let size = d.len() + IP_UDP_OVERHEAD;
                if size > budget {
                    break;
                }
                budget -= size;
                let (t, d) = self.queue.pop_front().unwrap();
                out.push((now_ms - t, d));
            }
        }
        n
    }
}

#[derive(Clone, Debug)]
pub struct SimConfig {
    pub down_trace: Vec<u64>,
    /// None: an unlimited uplink.
    pub up_trace: Option<Vec<u64>>,
    pub one_way_delay_ms: u64,
    /// Droptail limit of each queue, packets; None: unlimited.
    pub queue_packets: Option<usize>,
    pub duration_ms: u64,
    /// Measurements start after this.
    pub skip_ms: u64,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct SimResult {
    pub capacity_mbps: f64,
    pub throughput_mbps: f64,
    pub utilization: f64,
    /// Queueing delay at the downlink bottleneck of data packets, ms.
    pub mean_delay_ms: f64,
    pub p95_delay_ms: f64,
    pub drops: u64,
}

/// Runs a saturating sender against a receiver over the modelled path.
pub fn run(cfg: &SimConfig, mut sender: Sender, mut receiver: Receiver) -> SimResult {
    let mut down = Link::new(
        Some(&cfg.down_trace),
        cfg.one_way_delay_ms,
        cfg.queue_packets,
    );
    let mut up = Link::new(
        cfg.up_trace.as_deref(),
        cfg.one_way_delay_ms,
        cfg.queue_packets,
    );
    let mut buf = vec![0u8; wire::MAX_DATAGRAM];
    let mut fbuf = vec![0u8; 256];
    let mut out = Vec::new();
    let mut delays: Vec<u64> = Vec::new();
    let (mut opportunities, mut delivered_bytes) = (0u64, 0u64);
    for ms in 0..cfg.duration_ms {
        let now_us = ms * 1000;
        out.clear();
        let n = down.step(ms, &mut out);
        let measuring = ms >= cfg.skip_ms;
        if measuring {
            opportunities += n;
        }
        for (delay, d) in out.drain(..) {
            if measuring && d.len() > wire::DATA_HEADER {
                delays.push(delay);
                delivered_bytes += (d.len() + IP_UDP_OVERHEAD) as u64;
            }
            let _ = receiver.on_datagram(now_us, &d);
        }
        while let Some(fb) = receiver.poll_tick(now_us) {
            let n = wire::write_feedback(&fb, &mut fbuf);
            up.send(ms, fbuf[..n].to_vec());
        }
        up.step(ms, &mut out);
        for (_, d) in out.drain(..) {
            if let Ok(Packet::Feedback(fb)) = wire::parse(&d) {
                sender.on_feedback(now_us, &fb);
            }
        }
        while let Some(n) = sender.poll_transmit(now_us, &mut buf) {
            down.send(ms, buf[..n].to_vec());
        }
    }
    let secs = (cfg.duration_ms - cfg.skip_ms) as f64 / 1000.0;
    let capacity = opportunities as f64 * OPPORTUNITY_BYTES as f64 * 8.0 / secs / 1e6;
    let throughput = delivered_bytes as f64 * 8.0 / secs / 1e6;
    delays.sort_unstable();
    let mean = delays.iter().sum::<u64>() as f64 / delays.len().max(1) as f64;
    let p95 = delays
        .get((delays.len() as f64 * 0.95) as usize)
        .copied()
        .unwrap_or(0) as f64;
    SimResult {
        capacity_mbps: capacity,
        throughput_mbps: throughput,
        utilization: throughput / capacity.max(1e-9),
        mean_delay_ms: mean,
        p95_delay_ms: p95,
        drops: down.drops + up.drops,
    }
}
