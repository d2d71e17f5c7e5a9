// SPDX-License-Identifier: GPL-2.0-only
//! Throughput logs turned into Mahimahi traces (`c2tcp trace import`).
//!
//! Public 5G measurements are mostly throughput sampled about once a
//! second, not the per-packet delivery opportunities a Mahimahi trace
//! holds. Two formats are read:
//!
//! - **G-NetTrack CSV** (the UCC 5G dataset, Raca et al., MMSys 2020): a
//!   header row, then ~1 row a second with `Timestamp`
//!   (`YYYY.MM.DD_HH.MM.SS`), `DL_bitrate`/`UL_bitrate` (kbit/s),
//!   `NetworkMode` and `State` (`D` downloading, `I` idle, `V`/`VD` video).
//!   The clock is whole seconds, so two rows can share a timestamp (their
//!   rates are averaged) and a second can be skipped (the rate before it
//!   holds). Rows the filters leave out (by default those not `D`: the app
//!   was not downloading, so their rate says nothing of the link) are cut
//!   out of the timeline, the rows around them joined.
//! - **Plain CSV**, `time,Mbit/s` a row (seconds, increasing; an optional
//!   header row; `#` comments), which covers per-second iPerf logs.
//!
//! Either way a row's rate holds from its time until the next row's (the
//! last row for one second); the schedule starts at 0. A 1-s rate says
//! nothing of what happens inside the second, so the opportunities are
//! spread over it by one of two rules ([`Spacing`]):
//!
//! - `even`: equally spaced, the fraction carried to the next millisecond
//!   (`synth::from_rate`, the machinery of `trace from-rate`);
//! - `poisson`: the count of each row's interval is the same as `even`
//!   gives (carry included), but their times are a Poisson process's given
//!   that count: independent uniform milliseconds in the interval, sorted,
//!   from a seeded generator.
//!
//! Both keep every interval's rate to within one opportunity; neither can
//! restore what the log never had: bursts, sub-second outages, scheduler
//! granularity and the delay of the cell (a throughput log has no delay).
//!
//! A G-NetTrack download log is a test loop (download, ping, download):
//! each restart is a second or two near zero and a ramp, marked by the ping
//! test's row. [`crate::restarts`] finds them over the whole log, before the
//! filters; a schedule's steps say which are a restart's, and
//! [`Schedule::bridge_restarts`] cuts them out of its timeline (after any
//! window, so a window is the same stretch of the recording either way).
use std::path::Path;

use anyhow::{bail, Context, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::rate_spec::check_mbps;
use crate::restarts::{self, Rule};
use crate::synth;

/// How opportunities are placed inside each logged interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spacing {
    Even,
    /// Uniform (Poisson given the count), seeded.
    Poisson {
        seed: u64,
    },
}

/// Which rate column of a G-NetTrack log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Down,
    Up,
}

impl Direction {
    fn column(self) -> &'static str {
        match self {
            Direction::Down => "DL_bitrate",
            Direction::Up => "UL_bitrate",
        }
    }
}

/// What to keep of a G-NetTrack log.
#[derive(Debug, Clone)]
pub struct GNetTrackFilter {
    pub direction: Direction,
    /// Keep only rows whose `State` is one of these (empty: every row).
    pub states: Vec<String>,
    /// Keep only rows whose `NetworkMode` is one of these (empty: every row).
    pub network_modes: Vec<String>,
}

impl Default for GNetTrackFilter {
    fn default() -> Self {
        GNetTrackFilter {
            direction: Direction::Down,
            states: vec!["D".into()],
            network_modes: Vec::new(),
        }
    }
}

/// One step of the rate schedule a log gives: from `start_ms` on, `mbps`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    pub start_ms: u64,
    pub mbps: f64,
    /// Every row of the step is part of a restart of the recorder's
    /// download ([`crate::restarts`]).
    pub restart: bool,
}

/// A log read into a schedule, with what was left out.
#[derive(Debug, Clone)]
pub struct Schedule {
    pub steps: Vec<Step>,
    pub duration_ms: u64,
    /// Rows read, and rows the filters left out.
    pub rows: usize,
    pub rows_skipped: usize,
    /// Rows per `NetworkMode` among those kept (G-NetTrack only), sorted.
    pub network_modes: Vec<(String, usize)>,
    /// The longest time between two consecutive rows, ms.
    pub longest_gap_ms: u64,
    /// Restart markers (ping test rows) in the whole log; None when the log
    /// has no column that could hold one (a plain log, or a G-NetTrack log
    /// without its PING* columns).
    pub markers: Option<usize>,
}

/// What [`Schedule::bridge_restarts`] cut: each restart (a run of
/// consecutive restart steps) as [start, end) ms of the schedule it was cut
/// from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bridged {
    pub spans: Vec<(u64, u64)>,
}

impl Bridged {
    /// Time cut, ms.
    pub fn cut_ms(&self) -> u64 {
        self.spans.iter().map(|(a, b)| b - a).sum()
    }
}

/// A row read: its time (ms since some origin), rate, whether kept, and
/// whether it is part of a restart.
struct Row {
    line: usize,
    t_ms: i64,
    mbps: f64,
    keep: bool,
    restart: bool,
}

/// The columns G-NetTrack's ping test fills on the row it logs its result
/// in, one restart's marker (`PINGLOSS` alone when every ping was lost).
const PING_COLUMNS: [&str; 5] = ["PINGAVG", "PINGMIN", "PINGMAX", "PINGSTDEV", "PINGLOSS"];

/// Seconds since 1970 of a G-NetTrack `YYYY.MM.DD_HH.MM.SS` timestamp
/// (the phone's local time; only differences matter here).
fn gnettrack_time(s: &str) -> Option<i64> {
    let (date, time) = s.trim().split_once('_')?;
    let num = |x: &str| x.parse::<i64>().ok();
    let d: Vec<i64> = date.split('.').map(num).collect::<Option<_>>()?;
    let t: Vec<i64> = time.split('.').map(num).collect::<Option<_>>()?;
    let (&[y, m, day], &[hh, mm, ss]) = (&d[..], &t[..]) else {
        return None;
    };
    // A four-digit year: a log's clock, and milliseconds that fit an i64.
    let sane = (1970..=9999).contains(&y) && (1..=12).contains(&m) && (1..=31).contains(&day);
    if !sane || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    // Days from the civil date (H. Hinnant's algorithm, proleptic Gregorian).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// The rows of a CSV text as (1-based line, fields), blank lines and `#`
/// comments skipped, fields trimmed. Neither format quotes its fields, so
/// a comma always separates (a hand-split keeps each row's line exact).
fn csv_rows(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines().enumerate().filter_map(|(i, raw)| {
        let s = raw.trim();
        (!s.is_empty() && !s.starts_with('#'))
            .then(|| (i + 1, s.split(',').map(str::trim).collect()))
    })
}

/// Reads a G-NetTrack CSV (`file` names it in errors).
pub fn read_gnettrack(file: &Path, text: &str, filter: &GNetTrackFilter) -> Result<Schedule> {
    let f = file.display();
    let mut rows_in = csv_rows(text);
    let (head_line, headers) = rows_in
        .next()
        .with_context(|| format!("{f}: empty: a G-NetTrack log starts with its header row"))?;
    let col = |name: &str| {
        headers.iter().position(|h| *h == name).with_context(|| {
            format!("{f}:{head_line}: no `{name}` column: not a G-NetTrack log (its header names Timestamp, DL_bitrate, UL_bitrate, NetworkMode, State)")
        })
    };
    let (ts, rate) = (col("Timestamp")?, col(filter.direction.column())?);
    let state = col("State").ok();
    let mode = col("NetworkMode").ok();
    let pings: Vec<usize> = PING_COLUMNS.iter().filter_map(|c| col(c).ok()).collect();
    let mut markers = Vec::new();
    if state.is_none() && !filter.states.is_empty() {
        bail!("{f}:{head_line}: no `State` column to keep rows by (pass --state all)");
    }
    if mode.is_none() && !filter.network_modes.is_empty() {
        bail!("{f}:{head_line}: no `NetworkMode` column to keep rows by");
    }
    let mut rows = Vec::new();
    let mut modes = std::collections::BTreeMap::<String, usize>::new();
    for (line, rec) in rows_in {
        let field = |i: usize, name: &str| {
            rec.get(i)
                .copied()
                .with_context(|| format!("{f}:{line}: the row ends before its `{name}` field"))
        };
        let stamp = field(ts, "Timestamp")?;
        let secs = gnettrack_time(stamp).with_context(|| {
            format!("{f}:{line}: Timestamp `{stamp}` is not YYYY.MM.DD_HH.MM.SS")
        })?;
        let col_name = filter.direction.column();
        let kbps_text = field(rate, col_name)?;
        let kbps: f64 = kbps_text
            .parse()
            .ok()
            .filter(|k: &f64| k.is_finite() && *k >= 0.0)
            .with_context(|| {
                format!(
                    "{f}:{line}: {col_name} `{kbps_text}` is not a rate in kbit/s (a number >= 0)"
                )
            })?;
        let mbps = kbps / 1000.0;
        check_mbps(&format!("{f}:{line}: {col_name}"), mbps, false)?;
        let matches = |i: Option<usize>, want: &[String], name: &str| -> Result<bool> {
            match i {
                Some(i) if !want.is_empty() => {
                    let v = field(i, name)?;
                    Ok(want.iter().any(|w| w == v))
                }
                _ => Ok(true),
            }
        };
        let keep = matches(state, &filter.states, "State")?
            && matches(mode, &filter.network_modes, "NetworkMode")?;
        if keep {
            if let Some(i) = mode {
                *modes
                    .entry(field(i, "NetworkMode")?.to_string())
                    .or_default() += 1;
            }
        }
        // A missing or `-` field is no result (the row may end early).
        markers.push(
            pings
                .iter()
                .any(|&i| rec.get(i).is_some_and(|v| !v.is_empty() && *v != "-")),
        );
        rows.push(Row {
            line,
            t_ms: secs * 1000,
            mbps,
            keep,
            restart: false,
        });
    }
    // Restarts are found over the log as recorded, every row in its place.
    let rates: Vec<f64> = rows.iter().map(|r| r.mbps).collect();
    for (row, restart) in rows
        .iter_mut()
        .zip(restarts::restart_rows(&rates, &markers, &Rule::UCC))
    {
        row.restart = restart;
    }
    let mut schedule = schedule(file, rows, true)?;
    schedule.markers = (!pings.is_empty()).then(|| markers.iter().filter(|&&m| m).count());
    let mut modes: Vec<_> = modes.into_iter().collect();
    modes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    schedule.network_modes = modes;
    Ok(schedule)
}

/// Reads a plain `time,Mbit/s` CSV (`file` names it in errors).
pub fn read_plain(file: &Path, text: &str) -> Result<Schedule> {
    let f = file.display();
    let mut rows = Vec::new();
    for (i, (line, rec)) in csv_rows(text).enumerate() {
        let (Some(&a), Some(&b), None) = (rec.first(), rec.get(1), rec.get(2)) else {
            bail!(
                "{f}:{line}: expected `SECONDS,MBPS`, got {} field(s)",
                rec.len()
            );
        };
        let (Ok(t), Ok(mbps)) = (a.parse::<f64>(), b.parse::<f64>()) else {
            if i == 0 && a.parse::<f64>().is_err() {
                continue; // a header row
            }
            bail!("{f}:{line}: `{a},{b}` is not `SECONDS,MBPS` (two numbers)");
        };
        if !(t.is_finite() && (0.0..=1e10).contains(&t)) {
            bail!("{f}:{line}: time `{a}` is not a number of seconds >= 0");
        }
        check_mbps(&format!("{f}:{line}: rate"), mbps, false)?;
        rows.push(Row {
            line,
            t_ms: (t * 1000.0).round() as i64,
            mbps,
            keep: true,
            restart: false,
        });
    }
    schedule(file, rows, false)
}

/// Rows (time-ordered) into steps: rows sharing a time averaged (only when
/// `same_time_ok`, else refused), each holding until the next time (the
/// last for 1 s), rows not kept cut out of the timeline.
fn schedule(file: &Path, rows: Vec<Row>, same_time_ok: bool) -> Result<Schedule> {
    let f = file.display();
    if rows.is_empty() {
        bail!("{f}: no rows: a log needs at least one rate");
    }
    let mut steps = Vec::new();
    let (mut clock, mut longest_gap_ms, mut skipped) = (0u64, 0u64, 0usize);
    let mut i = 0;
    while i < rows.len() {
        let t = rows[i].t_ms;
        let n = rows[i..].iter().take_while(|r| r.t_ms == t).count();
        if n > 1 && !same_time_ok {
            bail!(
                "{f}:{}: time {} s repeats the previous row's: times must increase",
                rows[i + 1].line,
                t as f64 / 1000.0
            );
        }
        let next = rows.get(i + n);
        let len_ms = match next {
            Some(r) if r.t_ms < t => bail!(
                "{f}:{}: time goes back ({} s after {} s): rows must be in time order",
                r.line,
                r.t_ms as f64 / 1000.0,
                t as f64 / 1000.0
            ),
            Some(r) => (r.t_ms - t) as u64,
            None => 1000,
        };
        longest_gap_ms = longest_gap_ms.max(len_ms);
        let group = &rows[i..i + n];
        let kept: Vec<&Row> = group.iter().filter(|r| r.keep).collect();
        skipped += n - kept.len();
        if !kept.is_empty() {
            let mbps = kept.iter().map(|r| r.mbps).sum::<f64>() / kept.len() as f64;
            steps.push(Step {
                start_ms: clock,
                mbps,
                // A second that also holds a row of its own stays.
                restart: kept.iter().all(|r| r.restart),
            });
            clock += len_ms;
        }
        i += n;
    }
    if steps.is_empty() {
        bail!("{f}: every row was left out by the filters (e.g. no row is in State D): nothing to import");
    }
    if clock > crate::trace::MAX_TIMESTAMP_MS {
        bail!(
            "{f}: the log lasts {} s, longer than a week, the longest trace c2tcp runs",
            clock / 1000
        );
    }
    Ok(Schedule {
        steps,
        duration_ms: clock,
        rows: rows.len(),
        rows_skipped: skipped,
        network_modes: Vec::new(),
        longest_gap_ms,
        markers: None,
    })
}

impl Schedule {
    /// The schedule cut to [start_ms, end_ms) (end None: to the end),
    /// starting at 0 again.
    pub fn window(&self, start_ms: u64, end_ms: Option<u64>) -> Result<Schedule> {
        let end = end_ms.unwrap_or(self.duration_ms).min(self.duration_ms);
        if end <= start_ms {
            bail!(
                "the window {}–{} s is empty: the log lasts {} s",
                start_ms as f64 / 1000.0,
                end as f64 / 1000.0,
                self.duration_ms as f64 / 1000.0
            );
        }
        let mut steps: Vec<Step> = Vec::new();
        for (i, s) in self.steps.iter().enumerate() {
            let step_end = self
                .steps
                .get(i + 1)
                .map_or(self.duration_ms, |n| n.start_ms);
            if step_end <= start_ms || s.start_ms >= end {
                continue;
            }
            steps.push(Step {
                start_ms: s.start_ms.max(start_ms) - start_ms,
                ..*s
            });
        }
        Ok(Schedule {
            steps,
            duration_ms: end - start_ms,
            ..self.clone()
        })
    }

    /// The schedule with its restarts' steps cut out, the steps on either
    /// side joined (as rows the filters leave out are), and what was cut.
    pub fn bridge_restarts(&self) -> Result<(Schedule, Bridged)> {
        if self.markers.is_none() {
            bail!(
                "this log has no restart markers: only a G-NetTrack log's ping test rows ({}) mark its \
                 download's restarts",
                PING_COLUMNS.join(", ")
            );
        }
        let (mut steps, mut clock, mut cut) = (Vec::new(), 0, Bridged::default());
        for (i, s) in self.steps.iter().enumerate() {
            let end = self
                .steps
                .get(i + 1)
                .map_or(self.duration_ms, |n| n.start_ms);
            if !s.restart {
                steps.push(Step {
                    start_ms: clock,
                    ..*s
                });
                clock += end - s.start_ms;
            } else if let Some(last) = cut.spans.last_mut().filter(|l| l.1 == s.start_ms) {
                last.1 = end; // the same restart goes on
            } else {
                cut.spans.push((s.start_ms, end));
            }
        }
        if steps.is_empty() {
            bail!("every second of the log is part of a restart: nothing is left to bridge to");
        }
        let schedule = Schedule {
            steps,
            duration_ms: clock,
            ..self.clone()
        };
        Ok((schedule, cut))
    }

    /// Mean rate over the schedule, Mbit/s.
    pub fn mean_mbps(&self) -> f64 {
        let mut bits = 0.0;
        for (i, s) in self.steps.iter().enumerate() {
            let end = self
                .steps
                .get(i + 1)
                .map_or(self.duration_ms, |n| n.start_ms);
            bits += s.mbps * (end - s.start_ms) as f64;
        }
        bits / self.duration_ms as f64
    }

    /// The delivery opportunities, placed by `spacing`.
    pub fn opportunities(&self, spacing: Spacing) -> Result<Vec<u64>> {
        let total = self.mean_mbps() * self.duration_ms as f64 / synth::MBPS_PER_OPPORTUNITY_PER_MS;
        if total > synth::MAX_OPPORTUNITIES as f64 {
            bail!(
                "the log makes {total:.0} delivery opportunities, more than the {} a trace may hold \
                 in memory: import a window of it (--start/--end)",
                synth::MAX_OPPORTUNITIES
            );
        }
        match spacing {
            Spacing::Even => {
                let s: Vec<(f64, f64)> = self
                    .steps
                    .iter()
                    .map(|s| (s.start_ms as f64 / 1000.0, s.mbps))
                    .collect();
                synth::from_rate(&s, self.duration_ms)
            }
            Spacing::Poisson { seed } => self.poisson(seed, total),
        }
    }

    /// Each step's count as `even` gives it (fractions carried on), at
    /// uniform random milliseconds of the step, sorted.
    fn poisson(&self, seed: u64, total: f64) -> Result<Vec<u64>> {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut out = Vec::with_capacity(total as usize + 2);
        let mut carry = 0.0f64;
        for (i, s) in self.steps.iter().enumerate() {
            let end = self
                .steps
                .get(i + 1)
                .map_or(self.duration_ms, |n| n.start_ms);
            let len = end - s.start_ms;
            if len == 0 {
                continue;
            }
            let want = s.mbps / synth::MBPS_PER_OPPORTUNITY_PER_MS * len as f64 + carry;
            // The epsilon as in from_rate: 1000 Mbit/s must not lose one to rounding.
            let n = (want + 1e-9).floor();
            carry = want - n;
            let first = out.len();
            // Timestamps are 1-based ms: the step's ms are start+1 ..= end.
            out.extend((0..n as u64).map(|_| s.start_ms + rng.gen_range(1..=len)));
            out[first..].sort_unstable();
        }
        if out.is_empty() {
            bail!("the log has no capacity at all (every rate is 0)");
        }
        if out.last() != Some(&self.duration_ms) {
            out.push(self.duration_ms);
        }
        Ok(out)
    }
}

/// The input formats `c2tcp trace import` reads.
#[derive(Debug, Clone)]
pub enum Format {
    GNetTrack(GNetTrackFilter),
    Plain,
}

/// Reads `path` (plain or gzip) in `format`.
pub fn read(path: &Path, format: &Format) -> Result<Schedule> {
    let text = crate::trace::read_text(path)?;
    match format {
        Format::GNetTrack(filter) => read_gnettrack(path, &text, filter),
        Format::Plain => read_plain(path, &text),
    }
}

/// A short account of an imported log, for the command's output.
pub fn describe(path: &Path, s: &Schedule) -> String {
    let mut out = format!(
        "{}: {} rows ({} left out by the filters), {:.0} s, mean {:.2} Mbit/s, longest gap between rows {:.0} s",
        path.display(),
        s.rows,
        s.rows_skipped,
        s.duration_ms as f64 / 1000.0,
        s.mean_mbps(),
        s.longest_gap_ms as f64 / 1000.0
    );
    if let Some(n) = s.markers {
        out += &format!("; {n} restart markers (ping test rows)");
    }
    if !s.network_modes.is_empty() {
        let kept: usize = s.network_modes.iter().map(|m| m.1).sum();
        let modes: Vec<String> = s
            .network_modes
            .iter()
            .map(|(m, n)| format!("{m} {:.0} %", 100.0 * *n as f64 / kept as f64))
            .collect();
        out += &format!("; rows by NetworkMode: {}", modes.join(", "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gnettrack_timestamps_count_seconds() {
        let a = gnettrack_time("2020.02.14_13.21.26").unwrap();
        let b = gnettrack_time("2020.02.15_00.00.01").unwrap();
        assert_eq!(b - a, 10 * 3600 + 38 * 60 + 35);
        assert_eq!(gnettrack_time("1970.01.01_00.00.00"), Some(0));
        // 2020 is a leap year: 29 February exists and 1 March follows it.
        let feb29 = gnettrack_time("2020.02.29_00.00.00").unwrap();
        assert_eq!(
            gnettrack_time("2020.03.01_00.00.00").unwrap() - feb29,
            86_400
        );
        for bad in [
            "2020.13.01_00.00.00",
            "2020.02.14 13:21:26",
            "x",
            "2020.02.14_13.21",
            // Found by the throughput_log fuzz target: its milliseconds overflowed.
            "2020602020.02.14_13.21.30",
            "-5.02.14_13.21.30",
        ] {
            assert_eq!(gnettrack_time(bad), None, "{bad}");
        }
    }
}
