// SPDX-License-Identifier: GPL-2.0-only
//! The axes: where the ticks go (1-2-5 on log axes, round steps on linear
//! ones), how their values are written, and the padded range around data.
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::prelude::*;

use super::Scale;

/// Ticks at "nice" values: 1-2-5 decades on log axes (finer, then linear
/// steps, when the data span too little of a decade), round steps on linear.
pub(super) fn ticks(scale: Scale, lo: f64, hi: f64) -> Vec<f64> {
    if !scale.is_log() {
        return linear_ticks(lo, hi);
    }
    let (a, b) = (scale.value_at(lo), scale.value_at(hi));
    let (lo, hi) = (a.min(b), a.max(b));
    let at = |mantissas: &[f64]| {
        let mut out = Vec::new();
        for decade in (lo.log10().floor() as i32)..=(hi.log10().ceil() as i32) {
            for m in mantissas {
                let v = m * 10f64.powi(decade);
                if v >= lo && v <= hi {
                    out.push(scale.axis_at(v));
                }
            }
        }
        out
    };
    // 1-2-5 per decade, powers of ten alone over many decades (their labels
    // would run into each other), finer steps within less than a decade.
    let coarse = at(&[1.0, 2.0, 5.0]);
    if coarse.len() > 12 {
        return at(&[1.0]);
    }
    if coarse.len() >= 3 {
        return coarse;
    }
    let fine = at(&[1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    if fine.len() >= 3 {
        return fine;
    }
    linear_ticks(lo, hi)
        .into_iter()
        .filter(|&v| v > 0.0)
        .map(|v| scale.axis_at(v))
        .collect()
}

fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let raw = (hi - lo) / 6.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(raw);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// A linear f64 axis with our own ticks (plotters' `with_key_points` on f64
/// loses the value formatter that `configure_mesh` needs).
pub(super) struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<f64>,
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let fraction = (value - self.lo) / (self.hi - self.lo);
        limit.0 + (fraction * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// Decimals that tell neighbouring ticks apart (values, not axis units).
pub(super) fn tick_decimals(values: &[f64]) -> usize {
    let spacing = values
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .filter(|d| *d > 0.0)
        .fold(f64::MAX, f64::min);
    if spacing == f64::MAX {
        return 2;
    }
    (-spacing.log10()).ceil().clamp(0.0, 6.0) as usize
}

pub(super) fn tick_label(v: f64, decimals: usize) -> String {
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

pub(super) fn padded(lo: f64, hi: f64, fraction: f64) -> (f64, f64) {
    if hi - lo < 1e-12 {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        (lo - pad, hi + pad)
    } else {
        let pad = (hi - lo) * fraction;
        (lo - pad, hi + pad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_ticks_fall_on_one_two_five() {
        let t: Vec<f64> = ticks(Scale::Log, 0.5f64.log10(), 30f64.log10())
            .iter()
            .map(|u| 10f64.powf(*u))
            .collect();
        let rounded: Vec<f64> = t.iter().map(|v| (v * 1000.0).round() / 1000.0).collect();
        assert_eq!(rounded, [0.5, 1.0, 2.0, 5.0, 10.0, 20.0]);
        let wide: Vec<f64> = ticks(Scale::Log, 0.0005f64.log10(), 20000f64.log10())
            .iter()
            .map(|u| 10f64.powf(*u))
            .collect();
        assert_eq!(wide.len(), 8, "one tick a decade, 0.001-10000: {wide:?}");
        let reversed = ticks(Scale::ReversedLog, -(100f64.log10()), -(10f64.log10()));
        assert_eq!(reversed.len(), 4, "10, 20, 50, 100: {reversed:?}");
        let narrow: Vec<f64> = ticks(Scale::Log, 118f64.log10(), 256f64.log10())
            .iter()
            .map(|u| 10f64.powf(*u).round())
            .collect();
        assert_eq!(
            narrow,
            [125.0, 150.0, 175.0, 200.0, 225.0, 250.0],
            "150 and 200 are too few: linear steps"
        );
        assert_eq!(
            ticks(Scale::Linear, 0.0, 60.0),
            [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0]
        );
    }

    #[test]
    fn tick_labels_tell_neighbours_apart() {
        assert_eq!(tick_label(50.0, tick_decimals(&[10.0, 20.0, 50.0])), "50");
        assert_eq!(tick_label(2.5, tick_decimals(&[2.0, 2.5, 3.0])), "2.5");
        assert_eq!(tick_label(0.05, tick_decimals(&[0.05, 0.1, 0.2])), "0.05");
        assert_eq!(
            tick_label(2000.0, tick_decimals(&[0.1, 0.2, 0.5, 2000.0])),
            "2000"
        );
        assert_eq!(
            tick_label(170.5, tick_decimals(&[170.0, 170.5, 171.0])),
            "170.5"
        );
        assert_eq!(tick_label(0.0, 3), "0");
    }
}
