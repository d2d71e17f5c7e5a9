// SPDX-License-Identifier: GPL-2.0-only
//! A download log's restarts, found so that `c2tcp trace import
//! --bridge-restarts` can cut them out.
//!
//! The UCC 5G dataset (Raca et al., MMSys 2020) is not a link's capacity
//! but G-NetTrack Pro's 1-s throughput of a phone running a test loop:
//! download a file for about ten seconds, run a ping test, download again.
//! Each restart shows in the log as a second or two near zero and then a
//! ramp, which a trace replays as outages the cell never had. The log marks
//! every restart: the ping test writes its result (`PINGAVG`, `PINGMIN`,
//! `PINGMAX`, `PINGSTDEV`, or only `PINGLOSS` when every ping was lost) on
//! one row. In the 21 download runs there are 3 272 such rows, 13–16 s apart
//! for 99 % of them, and 3 268 repeat a neighbouring row's rate: a marker row
//! is a second logged twice, not a sample of its own.
//!
//! The rule, for each marker row m (docs/5g.md, "The recording's restarts",
//! gives the data it rests on):
//!
//! 1. A download is the rows between two markers (the log's ends count as
//!    markers). Its *level* is the median rate of its rows at least
//!    [`Rule::edge`] rows from both ends, or of all its rows when it has
//!    none that far in; an empty download has level 0.
//! 2. The restart is the marker row; the rows just before it whose rate is
//!    below [`Rule::below`] times the level of the download that ends, at
//!    most [`Rule::before`] of them, the first row at or above it ending the
//!    run; and the rows just after it below that fraction of the level of
//!    the download that starts, at most [`Rule::after`].
//! 3. Every other row is kept, however low: a dip away from a marker, or
//!    longer than the caps, is the cell's.
//!
//! Why these numbers (`scripts/ucc-restarts.py` prints them from the
//! dataset's zip): rows below half their download's level are 4–5 % of the
//! 5G rows three to six rows before a marker (6–10 % of LTE, 8–11 % of
//! HSPA+ rows): the cell's own dips. They are 76–87 % of the 5G and LTE rows
//! just before, at and just after a marker, and still 35, 21, 14 and 8 % of
//! the 5G rows two to five rows after it (the ramp: slow start at the
//! server's ~70-ms ping, and the 5G leg coming back). Before a marker such
//! runs are one row long 2 194 times and two rows 228 times (three or more
//! 146 times of 3 272); after one, up to six rows (seven or more 5 times).
//! Once the rule has bridged its rows, those left below half their level
//! are 0–3.7 % at every offset from −2 to +6, no more than the 4.8–6.6 %
//! further from a marker.
//!
//! This is a property of one recorder's logs: a log with no ping rows has
//! no markers, and the rule finds nothing in it.

/// The rule's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rule {
    /// A row is part of a restart below this fraction of its download's level.
    pub below: f64,
    /// At most this many rows before a marker.
    pub before: usize,
    /// At most this many rows after a marker.
    pub after: usize,
    /// A download's level is taken from its rows at least this far from
    /// both of its ends.
    pub edge: usize,
}

impl Rule {
    /// The rule as the UCC dataset's logs justify it (module header).
    pub const UCC: Rule = Rule {
        below: 0.5,
        before: 2,
        after: 6,
        edge: 3,
    };
}

/// The rows of a restart: `rates` in the log's order, `markers[i]` when row
/// i carries a ping test's result.
pub fn restart_rows(rates: &[f64], markers: &[bool], rule: &Rule) -> Vec<bool> {
    assert_eq!(rates.len(), markers.len(), "one marker flag per rate");
    let mut out = vec![false; rates.len()];
    let marks: Vec<usize> = (0..rates.len()).filter(|&i| markers[i]).collect();
    for (j, &m) in marks.iter().enumerate() {
        // The downloads on either side: rows (prev, m) and (m, next), the
        // log's ends standing in for a missing marker.
        let prev = j.checked_sub(1).map(|p| marks[p]);
        let next = marks.get(j + 1).copied();
        let first = prev.map_or(0, |p| p + 1);
        let end = next.unwrap_or(rates.len());
        out[m] = true;
        let ending = level(&rates[first..m], prev.is_some(), true, rule.edge);
        for k in (first..m).rev().take(rule.before) {
            if rates[k] >= rule.below * ending {
                break;
            }
            out[k] = true;
        }
        let starting = level(&rates[m + 1..end], true, next.is_some(), rule.edge);
        for k in (m + 1..end).take(rule.after) {
            if rates[k] >= rule.below * starting {
                break;
            }
            out[k] = true;
        }
    }
    out
}

/// A download's level: the median of its rows `edge` or more from each end
/// that is a marker (`from_marker`, `to_marker`; the log's own start or end
/// is not one, so no row is set aside there), else of all its rows; 0 when
/// it has none.
fn level(rows: &[f64], from_marker: bool, to_marker: bool, edge: usize) -> f64 {
    // Marker at index -1 and/or rows.len(): a row at index i is
    // i + 1 rows after the first and rows.len() - i rows before the last.
    let lo = if from_marker {
        edge.saturating_sub(1)
    } else {
        0
    };
    let cut = if to_marker { edge.saturating_sub(1) } else { 0 };
    let hi = rows.len().saturating_sub(cut);
    let body = if lo < hi { &rows[lo..hi] } else { rows };
    median(body)
}

fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rates and markers from a compact form: `P` before a rate marks its row.
    fn log(spec: &str) -> (Vec<f64>, Vec<bool>) {
        spec.split_whitespace()
            .map(|t| match t.strip_prefix('P') {
                Some(r) => (r.parse::<f64>().unwrap(), true),
                None => (t.parse::<f64>().unwrap(), false),
            })
            .unzip()
    }

    /// The rows the rule bridges, as indices.
    fn bridged(spec: &str) -> Vec<usize> {
        let (rates, markers) = log(spec);
        let out = restart_rows(&rates, &markers, &Rule::UCC);
        (0..out.len()).filter(|&i| out[i]).collect()
    }

    #[test]
    fn a_restart_is_bridged_and_the_downloads_around_it_kept() {
        // A 200-Mbit/s download ends (0 in its last second), the ping row
        // repeats that second, the next download ramps 15, 90, then runs.
        assert_eq!(
            bridged("200 210 190 205 195 200 0 P0 15 90 200 210 190 205 200 195"),
            vec![6, 7, 8, 9]
        );
        // A download that ended mid-second (70 of 200) and a ramp that
        // reaches half the level within its first second: one row each side.
        assert_eq!(
            bridged("200 210 190 205 195 200 70 P70 120 200 210 190 205 200 195"),
            vec![6, 7]
        );
    }

    #[test]
    fn the_cells_own_dips_are_kept() {
        // A 2-s dip to 0 in the middle of a download, three rows or more
        // from any marker: kept, and it does not pull the level down.
        let spec = "200 210 190 205 0 0 200 190 0 P0 20 200 210 190 205 0 0 200 190 210";
        assert_eq!(bridged(spec), vec![8, 9, 10]);
        // A download that stays low (a slow cell, or the 5G leg not there):
        // its level is its own, so its first second at 20 is not a ramp.
        assert_eq!(
            bridged("200 210 190 205 195 200 0 P0 5 20 21 19 22 20 21 20 19 0 P0 22 20"),
            vec![6, 7, 8, 17, 18]
        );
        // An outage that goes on after a restart (8 s, in a download that
        // is mostly at 200): the cap keeps all but the first six rows.
        assert_eq!(
            bridged("200 210 190 205 195 200 0 P0 0 0 0 0 0 0 0 0 200 210 190 205 195 200 210 190 205 200"),
            vec![6, 7, 8, 9, 10, 11, 12, 13]
        );
        // A download that is all outage has level 0: only the marker goes.
        assert_eq!(bridged("0 0 0 0 0 P0 0 0 0 0 0"), vec![5]);
        // Before a marker, at most two rows.
        assert_eq!(
            bridged("200 210 190 205 195 0 0 0 P0 200 210 190 205 195"),
            vec![6, 7, 8]
        );
    }

    #[test]
    fn the_edges_of_the_log() {
        // No marker, nothing bridged, however low.
        assert_eq!(bridged("0 0 200 0 0"), Vec::<usize>::new());
        assert_eq!(bridged(""), Vec::<usize>::new());
        // A marker on the first row: nothing before it; on the last row:
        // nothing after it.
        assert_eq!(bridged("P0 10 200 210 190 205 195"), vec![0, 1]);
        assert_eq!(bridged("200 210 190 205 195 0 P0"), vec![5, 6]);
        // A log that is one marker row.
        assert_eq!(bridged("P0"), vec![0]);
        // Two markers in a row: an empty download between them.
        assert_eq!(
            bridged("200 210 190 205 195 0 P0 P0 10 200 210 190 205 195"),
            vec![5, 6, 7, 8]
        );
        // A short download between two restarts: its level comes from all
        // of its rows (none is three from both ends).
        assert_eq!(
            bridged("200 210 190 205 195 0 P0 10 100 100 0 P0 10 200 210 190 205 195"),
            vec![5, 6, 7, 10, 11, 12]
        );
    }

    #[test]
    fn the_level_sets_aside_the_rows_near_a_marker_only() {
        // From the log's start: every row up to `edge` from the marker.
        assert_eq!(level(&[1.0, 2.0, 3.0, 4.0, 5.0], false, true, 3), 2.0);
        // Between two markers: the rows 3 or more from both.
        assert_eq!(
            level(&[0.0, 9.0, 5.0, 6.0, 7.0, 9.0, 0.0], true, true, 3),
            6.0
        );
        // Too short for that: all of them.
        assert_eq!(level(&[0.0, 10.0, 20.0], true, true, 3), 10.0);
        assert_eq!(level(&[], true, true, 3), 0.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
    }
}
