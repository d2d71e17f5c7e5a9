// SPDX-License-Identifier: GPL-2.0-only
//! CellReplay's light stage: for each packet entering a direction, when it
//! is released towards the heavy stage and whether it may skip the heavy
//! queue (module comment of `cellreplay` for the model). Pure state
//! machine: µs in, µs out, nothing allocated.
use std::sync::Arc;

use super::{LightTrace, SizeOffsets, OPPORTUNITY_BYTES};
use crate::clock::Micros;

#[derive(Debug, Clone)]
pub struct LightStage {
    trace: Arc<LightTrace>,
    offsets: Option<Arc<SizeOffsets>>,
    idle_us: Micros,
    /// Absolute µs of the light trace's time 0.
    origin: Micros,
    /// The current train: when it started, its base delay, the row whose
    /// opportunities it uses (its time in the trace), the next opportunity
    /// and the bytes left in it. None before the first packet.
    train: Option<Train>,
    /// The previous packet's release as the light trace gave it (before
    /// the size offset and the order clamp): idleness is measured from it.
    last_release: Micros,
    /// The previous packet's actual release: no packet leaves before it.
    end_release: Micros,
}

#[derive(Debug, Clone)]
struct Train {
    start: Micros,
    base: Micros,
    /// Trace time the train's row was read at (µs into the trace).
    trace_t: Micros,
    next: usize,
    bytes_left: u32,
}

/// Where the light stage sends a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    /// When it leaves the light stage, absolute µs.
    pub at: Micros,
    /// Whether it may leave the link at once (heavy queue empty) rather
    /// than join the heavy queue.
    pub light: bool,
}

impl LightStage {
    pub fn new(
        trace: Arc<LightTrace>,
        offsets: Option<Arc<SizeOffsets>>,
        idle_us: Micros,
        origin: Micros,
    ) -> LightStage {
        LightStage {
            trace,
            offsets,
            idle_us,
            origin,
            train: None,
            last_release: 0,
            end_release: 0,
        }
    }

    /// A packet of `len` bytes entering at `now` (absolute µs).
    #[inline]
    pub fn admit(&mut self, now: Micros, len: u32) -> Release {
        let idle = match &self.train {
            None => true,
            Some(t) => now + t.base > self.last_release + self.idle_us,
        };
        let (mut at, mut light) = if idle {
            // A new train: the base delay in effect now, the packet its first.
            let trace_t = now.saturating_sub(self.origin);
            let (base, _) = self.trace.at(trace_t);
            self.train = Some(Train {
                start: now,
                base,
                trace_t,
                next: 0,
                bytes_left: OPPORTUNITY_BYTES.saturating_sub(len),
            });
            (now + base, true)
        } else {
            let train = self.train.as_mut().expect("not idle: a train runs");
            let (_, offsets) = self.trace.at(train.trace_t);
            let since = now - train.start;
            // Opportunities whose time passed unused are lost.
            while train.next < offsets.len() && since > offsets[train.next] {
                train.next += 1;
                train.bytes_left = OPPORTUNITY_BYTES;
            }
            if train.bytes_left < len {
                train.next += 1;
                train.bytes_left = OPPORTUNITY_BYTES;
            }
            train.bytes_left = train.bytes_left.saturating_sub(len);
            match offsets.get(train.next) {
                Some(&off) => (train.start + train.base + off, true),
                None => {
                    // The train is used up: on to the heavy queue.
                    let last = offsets.last().copied().unwrap_or(0);
                    (now + train.base.max(last), false)
                }
            }
        };
        self.last_release = at;
        if let Some(o) = &self.offsets {
            let shifted = at as i64 + o.at(len);
            if shifted >= self.end_release as i64 {
                at = shifted as Micros;
            }
        }
        if at < self.end_release {
            // Never before the packet ahead; it then queues behind it.
            at = self.end_release;
            light = false;
        }
        self.end_release = at;
        Release { at, light }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Base delay 20 ms; a train of 4 light opportunities at 0, 2, 4, 6 ms.
    fn stage(idle_us: Micros) -> LightStage {
        let t = LightTrace::parse(Path::new("l"), "0 20 0 2 4 6\n1000 20 0 2 4 6\n2000 20 0\n")
            .unwrap();
        LightStage::new(Arc::new(t), None, idle_us, 0)
    }

    #[test]
    fn a_lone_packet_sees_the_base_delay() {
        let mut s = stage(0);
        assert_eq!(
            s.admit(5_000, 1500),
            Release {
                at: 25_000,
                light: true
            }
        );
        // Long after: a new train, the base delay again.
        assert_eq!(
            s.admit(500_000, 100),
            Release {
                at: 520_000,
                light: true
            }
        );
    }

    #[test]
    fn a_burst_takes_the_trains_opportunities_then_the_heavy_queue() {
        let mut s = stage(0);
        let r: Vec<Release> = (0..6).map(|_| s.admit(10_000, 1500)).collect();
        let at: Vec<Micros> = r.iter().map(|r| r.at).collect();
        // First at the base delay, then 2, 4, 6 ms later: the train's pace.
        assert_eq!(&at[..4], &[30_000, 32_000, 34_000, 36_000]);
        assert!(r[..4].iter().all(|r| r.light));
        // The train is used up: the rest go to the heavy queue.
        assert!(r[4..].iter().all(|r| !r.light && r.at >= 36_000), "{r:?}");
    }

    #[test]
    fn small_packets_share_an_opportunity_and_passed_ones_are_lost() {
        let mut s = stage(50_000);
        // Three 500-byte packets share opportunity 0; the fourth takes the next.
        for _ in 0..3 {
            assert_eq!(s.admit(0, 500).at, 20_000);
        }
        assert_eq!(s.admit(0, 500).at, 22_000);
        // 5 ms into the train: the 4 ms opportunity has passed; the 6 ms one.
        assert_eq!(
            s.admit(5_000, 1500),
            Release {
                at: 26_000,
                light: true
            }
        );
    }

    #[test]
    fn idle_time_decides_when_a_new_train_starts() {
        // idle 0: a packet whose earliest release comes after the last
        // release starts a new train.
        let mut s = stage(0);
        s.admit(0, 1500);
        assert_eq!(s.admit(1_000, 1500).at, 21_000, "new train (21 > 20 ms)");
        // idle 50 ms: the same packet continues the train.
        let mut s = stage(50_000);
        s.admit(0, 1500);
        assert_eq!(s.admit(1_000, 1500).at, 22_000);
    }

    #[test]
    fn size_offsets_apply_without_reordering() {
        let t = LightTrace::parse(Path::new("l"), "0 20 0 2\n1000 20 0\n2000 20 0\n").unwrap();
        let o = SizeOffsets::parse(Path::new("o"), "100 0\n200 5\n").unwrap();
        let mut s = LightStage::new(Arc::new(t), Some(Arc::new(o)), 0, 0);
        assert_eq!(s.admit(0, 200).at, 25_000);
        // Its offset (0) would put it before the previous: it is held back.
        assert_eq!(
            s.admit(0, 100),
            Release {
                at: 25_000,
                light: false
            }
        );
    }
}
