// SPDX-License-Identifier: GPL-2.0-only
//! CellReplay's per-size latency offsets: a larger packet takes longer over
//! the air, which the light trace's fixed-size train cannot show. One row
//! per size, `SIZE OFFSET_MS`, the sizes 100, 200, 300, … bytes in order;
//! a packet's offset is interpolated between the sizes around it (the first
//! row's below 100 bytes, the last row's above the last size).
use std::path::Path;

use anyhow::{bail, Result};

/// The step between the rows' sizes, bytes.
const STEP: u32 = 100;

#[derive(Debug, Clone)]
pub struct SizeOffsets {
    /// Offset in µs for 100, 200, … bytes.
    us: Vec<i64>,
}

impl SizeOffsets {
    pub fn load(path: &Path) -> Result<SizeOffsets> {
        let text = crate::trace::read_text(path)?;
        SizeOffsets::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<SizeOffsets> {
        let f = path.display();
        let mut us = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let s = raw.trim();
            if s.is_empty() || s.starts_with('#') {
                continue;
            }
            let line = i + 1;
            let want = STEP * (us.len() as u32 + 1);
            let mut cols = s.split_whitespace();
            let (Some(size), Some(off), None) = (cols.next(), cols.next(), cols.next()) else {
                bail!("{f}:{line}: expected `SIZE OFFSET_MS`");
            };
            if size.parse::<u32>().ok() != Some(want) {
                bail!("{f}:{line}: size `{size}`: the sizes must be 100, 200, 300, … in order (expected {want})");
            }
            let Some(ms) = off
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && x.abs() <= 10_000.0)
            else {
                bail!("{f}:{line}: offset `{off}` is not a number of ms (|offset| <= 10000)");
            };
            us.push((ms * 1000.0).round() as i64);
        }
        if us.is_empty() {
            bail!("{f}: no rows: expected `SIZE OFFSET_MS` for sizes 100, 200, …");
        }
        Ok(SizeOffsets { us })
    }

    /// The offset of a packet of `len` bytes, µs.
    #[inline]
    pub fn at(&self, len: u32) -> i64 {
        let idx = (len / STEP) as usize;
        if idx == 0 {
            return self.us[0];
        }
        if idx >= self.us.len() {
            return *self.us.last().expect("one row at least");
        }
        let (a, b) = (self.us[idx - 1], self.us[idx]);
        a + (b - a) * (len % STEP) as i64 / STEP as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_interpolate_by_size() {
        let o = SizeOffsets::parse(Path::new("o"), "100 0.5\n200 1.5\n300 1.0\n").unwrap();
        assert_eq!(o.at(40), 500);
        assert_eq!(o.at(150), 1000);
        assert_eq!(o.at(250), 1250);
        assert_eq!(o.at(1500), 1000);
        for (text, says) in [
            ("100 1\n300 2\n", "o:2: size `300`"),
            ("100 x\n", "o:1: offset `x`"),
            ("100\n", "o:1: expected"),
            ("", "no rows"),
        ] {
            let e = format!(
                "{:#}",
                SizeOffsets::parse(Path::new("o"), text).unwrap_err()
            );
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }
}
