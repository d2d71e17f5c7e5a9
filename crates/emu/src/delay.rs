// SPDX-License-Identifier: GPL-2.0-only
//! One-way propagation delay (mm-delay), in µs: a FIFO whose packets are
//! released a delay after they entered it. The delay is fixed, or follows
//! a delay trace ([`DelayTrace`]): each packet takes the delay in effect
//! when it enters.
//!
//! Packets never reorder: when the delay falls faster than time passes (a
//! step from 80 ms down to 20 ms), a packet is released no earlier than
//! the one before it, as on a real path whose queue-free latency dropped
//! (the later packet cannot overtake the earlier one). So the release time
//! is max(arrival + delay(arrival), previous release), computed once at
//! entry and kept in the packet's `arrival` field while it waits.
//!
//! Delay trace formats (one value a line, `#` comments and blank lines
//! ignored; plain or gzip):
//! - **Mahimahi's `mm-file-delay`** (its PR #135): one integer delay in ms
//!   per line, line i holding for [i·R, (i+1)·R) ms of emulation time with
//!   R the resolution (default 1 ms); the file loops.
//! - **Intervals**: `START_MS DELAY_MS` per line (decimals allowed), the
//!   delay from START_MS on, the first at 0, starts increasing; the last
//!   delay holds for ever (no loop).
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::clock::Micros;
use crate::packet::Packet;

/// A one-way delay schedule: `(start_us, delay_us)` segments from 0,
/// looping with `period_us` when set.
#[derive(Debug, Clone, PartialEq)]
pub struct DelayTrace {
    pub path: PathBuf,
    segments: Vec<(Micros, Micros)>,
    period_us: Option<Micros>,
}

/// The longest delay a trace may hold: a minute (a typo guard, not a
/// physical limit).
const MAX_DELAY_MS: f64 = 60_000.0;

impl DelayTrace {
    /// Reads a delay trace; `resolution_ms` is the step of one-column
    /// (mm-file-delay) files.
    pub fn load(path: &Path, resolution_ms: f64) -> Result<DelayTrace> {
        let text = crate::trace::read_text(path)?;
        DelayTrace::parse(path, &text, resolution_ms)
    }

    /// Parses a delay trace; `path` only names it in errors.
    pub fn parse(path: &Path, text: &str, resolution_ms: f64) -> Result<DelayTrace> {
        let at = |line: usize| format!("{}:{line}", path.display());
        if !(resolution_ms.is_finite() && resolution_ms >= 0.001) {
            bail!(
                "{}: the delay trace's resolution must be at least 0.001 ms, got {resolution_ms}",
                path.display()
            );
        }
        let ms = |line: usize, s: &str, what: &str| -> Result<f64> {
            let v: f64 = s
                .parse()
                .with_context(|| format!("{}: `{s}` is not a number of ms ({what})", at(line)))?;
            if !(v.is_finite() && (0.0..=MAX_DELAY_MS).contains(&v)) {
                bail!(
                    "{}: {what} {v} ms is not between 0 and {MAX_DELAY_MS} ms",
                    at(line)
                );
            }
            Ok(v)
        };
        let us = |ms: f64| (ms * 1000.0).round() as Micros;
        let mut segments: Vec<(Micros, Micros)> = Vec::new();
        let mut columns = None;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let s = raw.split('#').next().unwrap_or("").trim();
            if s.is_empty() {
                continue;
            }
            let fields: Vec<&str> = s.split_whitespace().collect();
            if fields.len() > 2 {
                bail!(
                    "{}: expected `DELAY_MS` or `START_MS DELAY_MS`, got `{s}`",
                    at(line)
                );
            }
            match columns {
                None => columns = Some(fields.len()),
                Some(n) if n != fields.len() => bail!(
                    "{}: {} column(s) here but {n} on the first line: a delay trace is all `DELAY_MS` \
                     (mm-file-delay) or all `START_MS DELAY_MS`",
                    at(line),
                    fields.len()
                ),
                Some(_) => {}
            }
            if let [start, delay] = fields[..] {
                let start = us(ms(line, start, "start")?);
                let delay = us(ms(line, delay, "delay")?);
                match segments.last() {
                    None if start != 0 => {
                        bail!("{}: the first interval must start at 0 ms", at(line))
                    }
                    Some(&(prev, _)) if start <= prev => {
                        bail!(
                            "{}: start {} ms is not after the previous line's {} ms",
                            at(line),
                            start as f64 / 1000.0,
                            prev as f64 / 1000.0
                        )
                    }
                    _ => segments.push((start, delay)),
                }
            } else {
                let delay = us(ms(line, fields[0], "delay")?);
                segments.push((segments.len() as Micros * us(resolution_ms), delay));
            }
        }
        if segments.is_empty() {
            bail!(
                "{}: no lines: a delay trace needs at least one delay",
                path.display()
            );
        }
        let period_us = (columns == Some(1)).then(|| segments.len() as Micros * us(resolution_ms));
        Ok(DelayTrace {
            path: path.into(),
            segments,
            period_us,
        })
    }

    /// The delay in effect `t` µs after the emulation's start.
    #[inline]
    pub fn delay_at(&self, t: Micros) -> Micros {
        let t = match self.period_us {
            Some(p) => t % p,
            None => t,
        };
        // Segments start at 0, so at least one starts at or before t.
        let i = self.segments.partition_point(|&(start, _)| start <= t) - 1;
        self.segments[i].1
    }

    /// The smallest delay the trace holds, µs.
    pub fn min_us(&self) -> Micros {
        self.segments.iter().map(|s| s.1).min().unwrap_or(0)
    }
}

/// Where a direction's delay comes from.
#[derive(Debug, Clone)]
enum Schedule {
    Fixed(Micros),
    /// A trace, read relative to the emulation's start (µs, monotonic clock).
    Trace(std::sync::Arc<DelayTrace>, Micros),
    /// CellReplay's light stage: a release time per packet, and whether it
    /// may skip the heavy queue (`cellreplay`).
    CellReplay(Box<crate::cellreplay::LightStage>),
}

pub struct DelayLine {
    schedule: Schedule,
    q: VecDeque<Packet>,
    /// The last packet's release time: the next one leaves no earlier.
    last_release: Micros,
}

impl DelayLine {
    pub fn new(delay: Micros) -> DelayLine {
        DelayLine::with(Schedule::Fixed(delay))
    }

    /// Delays that follow `trace`, whose time 0 is `start` (µs).
    pub fn from_trace(trace: std::sync::Arc<DelayTrace>, start: Micros) -> DelayLine {
        DelayLine::with(Schedule::Trace(trace, start))
    }

    /// CellReplay's light stage in place of a propagation delay.
    pub fn cellreplay(stage: crate::cellreplay::LightStage) -> DelayLine {
        DelayLine::with(Schedule::CellReplay(Box::new(stage)))
    }

    fn with(schedule: Schedule) -> DelayLine {
        DelayLine {
            schedule,
            q: VecDeque::with_capacity(4096),
            last_release: 0,
        }
    }

    /// Takes a packet whose `arrival` is when it entered the emulator.
    #[inline]
    pub fn push(&mut self, mut p: Packet) {
        let delay = match &mut self.schedule {
            Schedule::Fixed(d) => *d,
            Schedule::Trace(t, start) => t.delay_at(p.arrival.saturating_sub(*start)),
            Schedule::CellReplay(stage) => {
                let r = stage.admit(p.arrival, p.len);
                p.light = r.light;
                r.at - p.arrival
            }
        };
        // Kept in `arrival` until release (see the module comment).
        p.arrival = (p.arrival + delay).max(self.last_release);
        self.last_release = p.arrival;
        self.q.push_back(p);
    }

    /// Whether the oldest packet may leave the link at once on release
    /// (CellReplay's light stage, with the heavy queue empty).
    #[inline]
    pub fn front_is_light(&self) -> bool {
        self.q.front().is_some_and(|p| p.light)
    }

    /// When the oldest packet leaves the delay line.
    #[inline]
    pub fn next_release(&self) -> Option<Micros> {
        self.q.front().map(|p| p.arrival)
    }

    /// The oldest packet, if due by `now`, with `arrival` set to its release time.
    #[inline]
    pub fn pop_due(&mut self, now: Micros) -> Option<Packet> {
        if self.next_release()? > now {
            return None;
        }
        self.q.pop_front()
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn releases_in_order_after_the_delay() {
        let mut d = DelayLine::new(10_500);
        d.push(Packet::bare(100, 1_000));
        d.push(Packet::bare(200, 1_200));
        assert_eq!(d.next_release(), Some(11_500));
        assert!(d.pop_due(11_499).is_none());
        let p = d.pop_due(11_500).unwrap();
        assert_eq!((p.len, p.arrival), (100, 11_500));
        assert!(d.pop_due(11_600).is_none());
        assert_eq!(d.pop_due(20_000).unwrap().arrival, 11_700);
        assert!(d.is_empty());
    }

    fn parse(text: &str, res: f64) -> Result<DelayTrace> {
        DelayTrace::parse(Path::new("d.txt"), text, res)
    }

    #[test]
    fn mm_file_delay_format_steps_by_resolution_and_loops() {
        let t = parse("10\n20\n30\n", 5.0).unwrap();
        let at = |ms: u64| t.delay_at(ms * 1000) / 1000;
        assert_eq!(
            [at(0), at(4), at(5), at(14), at(15), at(16)],
            [10, 10, 20, 30, 10, 10]
        );
        assert_eq!(t.min_us(), 10_000);
    }

    #[test]
    fn interval_format_holds_the_last_delay() {
        let t = parse("# start delay\n0 20\n1000 80.5\n2000 20\n", 1.0).unwrap();
        assert_eq!(t.delay_at(999_999), 20_000);
        assert_eq!(t.delay_at(1_000_000), 80_500);
        assert_eq!(t.delay_at(50_000_000), 20_000);
    }

    #[test]
    fn errors_name_file_and_line() {
        for (text, says) in [
            ("", "d.txt: no lines"),
            ("10\nx\n", "d.txt:2: `x`"),
            ("10\n-1\n", "d.txt:2: delay -1"),
            ("0 10\n5\n", "d.txt:2: 1 column"),
            ("5 10\n", "d.txt:1: the first interval must start at 0"),
            ("0 10\n0 20\n", "d.txt:2: start 0 ms"),
            ("1 2 3\n", "d.txt:1: expected"),
            ("99999999\n", "not between 0 and"),
        ] {
            let e = format!("{:#}", parse(text, 1.0).unwrap_err());
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_falling_delay_never_reorders() {
        // 80 ms until 1 s, then 20 ms: packets sent just after the step
        // would overtake those sent just before it.
        let t = Arc::new(parse("0 80\n1000 20\n", 1.0).unwrap());
        let start = 5_000_000;
        let mut d = DelayLine::from_trace(t, start);
        for (i, ms) in [990u64, 999, 1000, 1001, 1100].into_iter().enumerate() {
            d.push(Packet::bare(i as u32 + 1, start + ms * 1000));
        }
        let mut out = Vec::new();
        while let Some(p) = d.pop_due(u64::MAX) {
            out.push((p.len, (p.arrival - start) / 1000));
        }
        // In order; held back to 1079 ms until the new delay catches up.
        assert_eq!(out, [(1, 1070), (2, 1079), (3, 1079), (4, 1079), (5, 1120)]);
    }
}
