// SPDX-License-Identifier: GPL-2.0-only
//! CellReplay's light trace: one row per recorded packet train,
//! `TIME_MS BASE_DELAY_MS OFFSET_MS...`, space-separated: when the train
//! was sent, the one-way delay of its first packet, and the arrival times
//! of its packets after the first's (the first is 0). The offsets of all
//! rows are kept in one vector, each row a range of it, so a lookup on the
//! packet path allocates nothing.
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

#[derive(Debug, Clone)]
pub struct LightTrace {
    pub path: PathBuf,
    /// (time ms, base delay µs, offsets' range) per row, times non-decreasing.
    rows: Vec<(u64, u64, Range<usize>)>,
    /// Every row's light-opportunity offsets, µs after the train's start.
    offsets: Vec<u64>,
}

impl LightTrace {
    pub fn load(path: &Path) -> Result<LightTrace> {
        let text = crate::trace::read_text(path)?;
        LightTrace::parse(path, &text)
    }

    /// Parses light-trace text; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<LightTrace> {
        let f = path.display();
        let (mut rows, mut offsets) = (Vec::new(), Vec::new());
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let s = raw.trim();
            if s.is_empty() || s.starts_with('#') {
                continue;
            }
            let mut cols = s.split_whitespace();
            let mut int = |what: &str| -> Result<Option<u64>> {
                match cols.next() {
                    None => Ok(None),
                    Some(w) => match w.parse::<u64>() {
                        Ok(v) if v <= crate::trace::MAX_TIMESTAMP_MS => Ok(Some(v)),
                        _ => bail!("{f}:{line}: {what} `{w}` is not a whole number of ms"),
                    },
                }
            };
            let t = int("time")?.expect("a non-empty line has a first column");
            let Some(delay) = int("base delay")? else {
                bail!("{f}:{line}: expected `TIME_MS BASE_DELAY_MS OFFSET_MS...`, got one column");
            };
            if let Some(&(prev, _, _)) = rows.last() {
                if t < prev {
                    bail!("{f}:{line}: time {t} ms is before the previous row's {prev}: times must not decrease");
                }
            }
            let start = offsets.len();
            let mut prev_off = 0;
            while let Some(o) = int("offset")? {
                if o < prev_off {
                    bail!("{f}:{line}: offset {o} ms is before the previous one ({prev_off}): a train's packets arrive in order");
                }
                prev_off = o;
                offsets.push(o * 1000);
            }
            rows.push((t, delay * 1000, start..offsets.len()));
        }
        if rows.len() < 3 {
            bail!(
                "{f}: {} rows: a light trace needs at least three (`TIME_MS BASE_DELAY_MS OFFSET_MS...`)",
                rows.len()
            );
        }
        if rows.last().unwrap().0 == 0 {
            bail!("{f}: the last row's time is 0: the trace has no length to loop over");
        }
        Ok(LightTrace {
            path: path.into(),
            rows,
            offsets,
        })
    }

    /// The loop period: the last row's time, µs.
    pub fn period_us(&self) -> u64 {
        self.rows.last().expect("three rows at least").0 * 1000
    }

    /// The base delay at `t_us` into the trace (looped), interpolated
    /// linearly between the rows around it, and that row's offsets (µs).
    #[inline]
    pub fn at(&self, t_us: u64) -> (u64, &[u64]) {
        let t = t_us % self.period_us();
        // The row in effect: the last whose time is <= t (the first when
        // t is before every row), never the last row (it only closes the loop).
        let next = self
            .rows
            .partition_point(|r| r.0 * 1000 <= t)
            .clamp(1, self.rows.len() - 1);
        let (t0, d0, ref range) = self.rows[next - 1];
        let (t1, d1, _) = self.rows[next];
        let (t0, t1) = (t0 * 1000, t1 * 1000);
        let delay = if t1 > t0 && t > t0 {
            let frac = (t - t0).min(t1 - t0) as f64 / (t1 - t0) as f64;
            (d0 as f64 + frac * (d1 as f64 - d0 as f64)).round() as u64
        } else {
            d0
        };
        (delay, &self.offsets[range.clone()])
    }

    /// The smallest base delay of any row, µs (the log's propagation delay).
    pub fn min_delay_us(&self) -> u64 {
        self.rows.iter().map(|r| r.1).min().unwrap_or(0)
    }

    /// Rows, for reports.
    pub fn rows(&self) -> usize {
        self.rows.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<LightTrace> {
        LightTrace::parse(Path::new("light"), text)
    }

    #[test]
    fn rows_interpolate_and_loop() {
        let t = parse("0 20 0 1 1 3\n100 30 0 2\n200 20 0\n").unwrap();
        assert_eq!(t.period_us(), 200_000);
        assert_eq!(t.at(0), (20_000, &[0, 1000, 1000, 3000][..]));
        // Halfway between rows 0 and 1: 25 ms; row 0's train.
        assert_eq!(t.at(50_000).0, 25_000);
        assert_eq!(t.at(150_000), (25_000, &[0, 2000][..]));
        // Looped: 250 ms is 50 ms again.
        assert_eq!(t.at(250_000).0, 25_000);
        assert_eq!(t.min_delay_us(), 20_000);
    }

    #[test]
    fn bad_rows_name_file_and_line() {
        for (text, says) in [
            ("0 20 0\n1 x 0\n2 20\n", "light:2: base delay `x`"),
            ("0 20 0\n5 20 0\n3 20 0\n", "light:3: time 3 ms is before"),
            ("0 20 0 5 2\n1 20\n2 20\n", "light:1: offset 2 ms"),
            ("0 20\n7\n9 20\n", "light:2: expected"),
            ("0 20\n1 20\n", "2 rows"),
            ("0 20\n0 20\n0 20\n", "no length"),
            ("0 20 0\n1 -3 0\n2 20\n", "light:2:"),
        ] {
            let e = format!("{:#}", parse(text).unwrap_err());
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }
}
