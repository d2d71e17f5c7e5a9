// SPDX-License-Identifier: GPL-2.0-only
//! Verus's delay profile (paper §3, "delay profiler"): the curve from sending window (in
//! packets) to the delay packets sent under it see.
//!
//! - Samples: every acknowledged packet carries the window it was sent
//!   under; its delay updates that window's point, an EWMA keeping 7/8 of
//!   the old value (the authors' `wList[w] = ewma(wList[w], delay, 0.875)`).
//!   Packets acknowledged during loss recovery are not sampled.
//! - Refit, once a second outside slow start (the authors' profile thread):
//!   a penalised cubic spline ([`crate::pspline`]) through the points with
//!   one basis function per 15 windows of range (fewer windows per basis
//!   function when the range is short, never fewer than 5 functions); the
//!   points at or above the "curve stop" (the window at which slow start
//!   lost a packet) are forgotten first.
//! - Lookups: the delay the curve gives a window ([`Profile::delay_at`],
//!   the authors' `calcDelayCurveInv`), and its inverse, the largest window
//!   before the first one whose delay exceeds a target
//!   ([`Profile::window_for`], `calcDelayCurve`). Before the first fit
//!   both read the raw points.
//!
//! Recording and lookups do not allocate; a refit does (it is periodic).
use crate::pspline::{FitError, PSpline};

/// Largest window the profile covers, packets (`MAX_W_DELAY_CURVE`,
/// verus.hpp:49).
pub const MAX_WINDOW: usize = 40_000;
/// Weight of the old value in a window's delay EWMA (verus_server.cpp,
/// `updateUponReceivingPacket`: `ewma(wList[w], delay, 0.875)`).
pub const POINT_EWMA_OLD: f64 = 0.875;
/// Windows of the profile's range per spline basis function (the profile
/// thread's `N = 15.0`; the fit has `max_w / N` functions).
pub const WINDOWS_PER_BASIS: f64 = 15.0;
/// Fewest basis functions: `N` is lowered until `max_w / N ≥ 5`
/// (verus_server.cpp, `delayProfile_thread`).
pub const MIN_BASIS: f64 = 5.0;
/// ALGLIB's `rho` of `spline1dfitpenalized(xi, yi, max_i/N, 2.0, …)`.
pub const PENALTY_RHO: f64 = 2.0;
/// How often the curve is refit, µs (`CURVE_TIMER 1e6`, verus.hpp:39).
pub const REFIT_EVERY_US: u64 = 1_000_000;
/// When the spline is missing, the raw-point lookup retries with the target
/// lowered by this much, ms (`calcDelayCurve(delay - DELTA2)`; δ2 = 2 ms).
const RAW_LOOKUP_STEP_MS: f64 = crate::estimator::DELTA2_MS;

/// Why a refit produced no curve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefitError {
    /// Fewer than 5 windows sampled: the authors restart slow start.
    TooFewWindows,
    /// The fit itself failed (the authors also restart slow start).
    Fit(FitError),
}

pub struct Profile {
    /// Delay EWMA per window, ms; negative: never sampled.
    points: Vec<f64>,
    /// Largest window sampled since the last refit or clear.
    max_sampled: usize,
    /// Windows at or above this are dropped at the next refit.
    curve_stop: usize,
    spline: Option<PSpline>,
    /// Scratch for refits, kept to reuse their capacity.
    xs: Vec<f64>,
    ys: Vec<f64>,
    pub refits: u64,
}

impl Default for Profile {
    fn default() -> Self {
        Self::new()
    }
}

impl Profile {
    pub fn new() -> Self {
        Profile {
            points: vec![-1.0; MAX_WINDOW],
            max_sampled: 0,
            curve_stop: MAX_WINDOW,
            spline: None,
            xs: Vec::new(),
            ys: Vec::new(),
            refits: 0,
        }
    }

    /// Forgets everything (a restart of slow start).
    pub fn clear(&mut self) {
        self.points.fill(-1.0);
        self.max_sampled = 0;
        self.curve_stop = MAX_WINDOW;
        self.spline = None;
    }

    /// One acknowledged packet sent under `window` saw `delay_ms`.
    pub fn record(&mut self, window: u32, delay_ms: f64) {
        let w = (window as usize).min(MAX_WINDOW - 1);
        let p = &mut self.points[w];
        *p = if *p < 0.0 {
            delay_ms
        } else {
            POINT_EWMA_OLD * *p + (1.0 - POINT_EWMA_OLD) * delay_ms
        };
        self.max_sampled = self.max_sampled.max(w);
    }

    /// Points at or above `window` are dropped at the next refit (slow
    /// start's losses: those windows overflowed the buffer).
    pub fn set_curve_stop(&mut self, window: usize) {
        self.curve_stop = window.min(MAX_WINDOW);
    }

    /// The raw point of `window` (None: never sampled).
    pub fn point(&self, window: usize) -> Option<f64> {
        self.points.get(window).copied().filter(|p| *p >= 0.0)
    }

    pub fn have_curve(&self) -> bool {
        self.spline.is_some()
    }

    /// Refits the curve through the sampled points. On an error the previous
    /// curve stays.
    pub fn refit(&mut self) -> Result<(), RefitError> {
        self.xs.clear();
        self.ys.clear();
        let mut max_w = 1usize;
        for w in 1..MAX_WINDOW {
            if self.points[w] < 0.0 {
                continue;
            }
            if w < self.curve_stop {
                self.xs.push(w as f64);
                self.ys.push(self.points[w]);
                max_w = w;
            } else {
                self.points[w] = -1.0;
            }
        }
        self.curve_stop = MAX_WINDOW;
        let mut n = WINDOWS_PER_BASIS;
        while (max_w as f64) / n < MIN_BASIS {
            n -= 1.0;
            if n < 1.0 {
                return Err(RefitError::TooFewWindows);
            }
        }
        let basis = ((max_w as f64) / n) as usize;
        let s = PSpline::fit(&self.xs, &self.ys, basis, PENALTY_RHO).map_err(RefitError::Fit)?;
        self.spline = Some(s);
        self.refits += 1;
        Ok(())
    }

    /// The curve at `window`: inside the fitted range the spline, beyond it
    /// the spline's end slope continued as a line.
    fn curve(s: &PSpline, window: f64) -> f64 {
        let (_, end) = s.domain();
        if window <= end {
            return s.eval(window);
        }
        let slope = s.eval(end) - s.eval(end - 1.0);
        s.eval(end) + slope * (window - end)
    }

    /// The delay the profile gives `window` (`calcDelayCurveInv`); before
    /// the first fit, that window's raw point if sampled.
    pub fn delay_at(&self, window: f64) -> Option<f64> {
        match &self.spline {
            Some(s) => Some(Self::curve(s, window)),
            None => self.point((window.max(0.0) as usize).min(MAX_WINDOW - 1)),
        }
    }

    /// The window whose delay is `delay_ms` on the profile
    /// (`calcDelayCurve`): one less than the smallest window ≥ 2 whose delay
    /// exceeds it. None when no window up to [`MAX_WINDOW`] does (the
    /// authors then restart slow start). Does not allocate.
    pub fn window_for(&self, delay_ms: f64) -> Option<u32> {
        let Some(s) = &self.spline else {
            return Some(self.raw_window_for(delay_ms));
        };
        let (_, end) = s.domain();
        let last_inside = (end.floor() as usize).min(MAX_WINDOW - 1);
        for w in 2..=last_inside {
            if s.eval(w as f64) > delay_ms {
                return Some(w as u32 - 1);
            }
        }
        // Beyond the samples: the line continuing the curve's end.
        let from = (last_inside + 1).max(2);
        let (f_end, slope) = (s.eval(end), s.eval(end) - s.eval(end - 1.0));
        if slope <= 0.0 {
            return (f_end > delay_ms && from < MAX_WINDOW).then_some(from as u32 - 1);
        }
        // Smallest integer w ≥ from with f_end + slope (w − end) > delay.
        let w = (end + (delay_ms - f_end) / slope).floor() + 1.0;
        let w = w.max(from as f64);
        (w < MAX_WINDOW as f64).then(|| w as u32 - 1)
    }

    /// `calcDelayCurve` before the first fit: the first window ≥ 2 whose raw
    /// point exceeds the target; if none does, the target lowered by δ2
    /// until one does (an unsampled point counts as −1 ms, so this ends).
    fn raw_window_for(&self, delay_ms: f64) -> u32 {
        // Lowerings of the target window w needs to qualify.
        let need = |p: f64| -> f64 {
            if p > delay_ms {
                0.0
            } else {
                ((delay_ms - p) / RAW_LOOKUP_STEP_MS).floor() + 1.0
            }
        };
        // Past the largest sampled window every point is −1: only the first
        // of them can be the answer.
        let last = (self.max_sampled + 1).clamp(2, MAX_WINDOW - 1);
        let mut best = (f64::INFINITY, 2usize);
        for w in 2..=last {
            let k = need(self.points[w]);
            if k < best.0 {
                best = (k, w);
                if k == 0.0 {
                    break;
                }
            }
        }
        best.1 as u32 - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A link of `bdp` packets' pipe and 20 ms base delay: flat, then each
    /// extra packet queues 1 ms.
    fn link(bdp: f64) -> impl Fn(f64) -> f64 {
        move |w| 20.0 + (w - bdp).max(0.0)
    }

    fn sampled(max_w: u32, noise_ms: f64, seed: u64) -> Profile {
        let truth = link(30.0);
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut p = Profile::new();
        for _ in 0..20 {
            for w in 1..=max_w {
                let d = truth(w as f64) + rng.gen_range(-noise_ms..=noise_ms);
                p.record(w, d.max(0.1));
            }
        }
        p
    }

    #[test]
    fn a_point_is_an_ewma_of_its_samples() {
        let mut p = Profile::new();
        assert_eq!(p.point(7), None);
        p.record(7, 40.0);
        assert_eq!(p.point(7), Some(40.0));
        p.record(7, 80.0);
        assert_eq!(p.point(7), Some(0.875 * 40.0 + 0.125 * 80.0));
        // Windows past the end share the last point.
        p.record(u32::MAX, 5.0);
        assert_eq!(p.point(MAX_WINDOW - 1), Some(5.0));
    }

    /// The fit through noisy samples recovers the link, and the inverse
    /// lookup gives the window that makes the target delay.
    #[test]
    fn fit_and_inverse_lookup_recover_the_link() {
        let mut p = sampled(120, 3.0, 7);
        p.refit().unwrap();
        assert!(p.have_curve());
        let truth = link(30.0);
        for w in [10.0, 30.0, 60.0, 100.0] {
            let d = p.delay_at(w).unwrap();
            assert!((d - truth(w)).abs() < 3.0, "w {w}: {d} vs {}", truth(w));
        }
        // 50 ms: 20 queued packets over the 30-packet pipe, window 60.
        let w = p.window_for(50.0).unwrap() as f64;
        assert!((w - 60.0).abs() <= 3.0, "window for 50 ms: {w}");
        // Monotone in the target.
        let ws: Vec<u32> = [30.0, 40.0, 60.0, 80.0]
            .iter()
            .map(|d| p.window_for(*d).unwrap())
            .collect();
        assert!(ws.windows(2).all(|w| w[0] < w[1]), "{ws:?}");
    }

    /// Beyond the sampled windows the curve continues as a line: a target
    /// above every sample still maps to a (larger) window.
    #[test]
    fn targets_beyond_the_samples_extrapolate() {
        let mut p = sampled(60, 0.5, 3);
        p.refit().unwrap();
        let w = p.window_for(100.0).unwrap() as f64;
        assert!((w - 110.0).abs() <= 6.0, "{w}");
        // A flat profile (no queue ever seen) gives no window for a target
        // above it: the authors restart slow start.
        let mut flat = Profile::new();
        for w in 1..=50 {
            flat.record(w, 20.0);
        }
        flat.refit().unwrap();
        assert_eq!(flat.window_for(40.0), None);
        assert_eq!(flat.window_for(10.0), Some(1));
    }

    #[test]
    fn curve_stop_forgets_the_windows_that_overflowed() {
        let mut p = sampled(200, 0.5, 5);
        p.set_curve_stop(100);
        p.refit().unwrap();
        assert_eq!(p.point(150), None);
        assert!(p.point(99).is_some());
        // The next refit keeps everything again.
        p.record(150, 140.0);
        p.refit().unwrap();
        assert!(p.point(150).is_some());
    }

    #[test]
    fn too_few_windows_cannot_be_fit() {
        let mut p = Profile::new();
        for w in 1..=4 {
            p.record(w, 20.0);
        }
        assert_eq!(p.refit(), Err(RefitError::TooFewWindows));
        assert!(!p.have_curve());
        p.record(5, 21.0);
        assert_eq!(p.refit(), Ok(()));
    }

    /// Before the first fit the raw points answer, lowering the target by
    /// δ2 while no point exceeds it.
    #[test]
    fn raw_lookup_before_the_first_fit() {
        let mut p = Profile::new();
        for w in 1..=10 {
            p.record(w, 20.0 + w as f64);
        }
        // Window 6 is the first above 25.5 ms.
        assert_eq!(p.window_for(25.5), Some(5));
        // Nothing above 40 ms: lowered 40 → 38 → … → 28 < 30 (window 10), the
        // first window above 28 ms is 9.
        assert_eq!(p.window_for(40.0), Some(8));
        assert_eq!(p.delay_at(3.0), Some(23.0));
        assert_eq!(p.delay_at(30.0), None);
        // Nothing sampled: window 1.
        assert_eq!(Profile::new().window_for(50.0), Some(1));
    }
}
