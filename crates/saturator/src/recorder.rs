// SPDX-License-Identifier: GPL-2.0-only
//! The receiver's record: the arrival time of every packet the sender sent
//! saturated, as a Mahimahi trace (one line per arrival, ms since the first).
use std::io::Write;

use serde::Serialize;

use crate::wire::Data;

#[derive(Debug, Default)]
pub struct Recorder {
    /// Arrival of the first saturated packet, µs (CLOCK_MONOTONIC).
    t0_us: Option<u64>,
    /// ms since t0 of every saturated arrival, in arrival order.
    arrivals_ms: Vec<u32>,
    /// Packets that arrived before the sender saw a full queue.
    warmup: u64,
    highest_seq: Option<u64>,
    /// Packets missing from the sequence (lost, or still to come reordered).
    gaps: u64,
}

/// What a capture recorded, beside the trace (`--summary`).
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// CLOCK_MONOTONIC µs of the trace's time 0 (its first arrival): lines
    /// up the record with anything else timed on this machine.
    pub start_monotonic_us: Option<u64>,
    pub packets: u64,
    pub duration_ms: u64,
    pub mean_mbps: f64,
    pub warmup_packets: u64,
    pub missing_packets: u64,
}

impl Recorder {
    pub fn new() -> Self {
        Recorder {
            arrivals_ms: Vec::with_capacity(1 << 20),
            ..Default::default()
        }
    }

    pub fn on_data(&mut self, d: &Data, now_us: u64) {
        match self.highest_seq {
            Some(h) if d.seq > h => self.gaps += d.seq - h - 1,
            Some(_) => self.gaps = self.gaps.saturating_sub(1), // a late one
            None => {}
        }
        self.highest_seq = Some(self.highest_seq.map_or(d.seq, |h| h.max(d.seq)));
        if !d.saturated {
            self.warmup += 1;
            return;
        }
        let t0 = *self.t0_us.get_or_insert(now_us);
        self.arrivals_ms
            .push((now_us.saturating_sub(t0) / 1000).min(u32::MAX as u64) as u32);
    }

    pub fn packets(&self) -> u64 {
        self.arrivals_ms.len() as u64
    }

    pub fn summary(&self) -> Summary {
        let packets = self.packets();
        let duration_ms = self.arrivals_ms.last().map_or(0, |&m| m as u64);
        Summary {
            start_monotonic_us: self.t0_us,
            packets,
            duration_ms,
            mean_mbps: if duration_ms > 0 {
                packets as f64 * 1500.0 * 8.0 / (duration_ms as f64 * 1000.0)
            } else {
                0.0
            },
            warmup_packets: self.warmup,
            missing_packets: self.gaps,
        }
    }

    /// The Mahimahi trace. Time 0 is written as 1 ms: a trace's last line
    /// is its period, and the format counts from the start of the record.
    pub fn write_trace(&self, out: &mut impl Write) -> std::io::Result<()> {
        for &ms in &self.arrivals_ms {
            writeln!(out, "{}", ms.max(1))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64, saturated: bool) -> Data {
        Data {
            seq,
            sent_us: 0,
            saturated,
        }
    }

    #[test]
    fn records_saturated_arrivals_from_the_first_one() {
        let mut r = Recorder::new();
        r.on_data(&data(0, false), 500);
        r.on_data(&data(1, true), 10_000);
        r.on_data(&data(2, true), 10_400);
        r.on_data(&data(4, true), 12_000);
        r.on_data(&data(3, true), 13_000);
        let s = r.summary();
        assert_eq!((s.packets, s.warmup_packets, s.missing_packets), (4, 1, 0));
        assert_eq!(s.start_monotonic_us, Some(10_000));
        let mut out = Vec::new();
        r.write_trace(&mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "1\n1\n2\n3\n");
    }
}
