// SPDX-License-Identifier: GPL-2.0-only
//! A penalised cubic regression spline ("P-spline", Eilers & Marx 1996): the
//! smooth curve through noisy (x, y) samples that Verus's delay profile is.
//!
//! The authors fit the profile with ALGLIB's `spline1dfitpenalized(x, y, M,
//! rho)`: a cubic spline with `M` basis functions spread evenly over the
//! samples' range, chosen to minimise the squared error plus a penalty on
//! its curvature whose weight is `10^rho`, scaled to the data. The same
//! idea, in its smallest form:
//!
//! - basis: `M` uniform cubic B-splines over `[x_min, x_max]`, i.e. `M − 3`
//!   equal intervals; a point touches the 4 basis functions of its interval;
//! - fit: the coefficients `c` minimise `|B c − y|² + λ |D c|²`, where `D`
//!   takes second differences of neighbouring coefficients (the discrete
//!   curvature: a straight line costs nothing). The normal equations
//!   `(BᵀB + λ DᵀD) c = Bᵀy` are banded (half-bandwidth 3), solved by a
//!   banded Cholesky factorisation in O(M);
//! - `λ = 10^(rho − 3) · trace(BᵀB) / trace(DᵀD)`: at the authors' `rho = 2`
//!   the curvature penalty weighs a tenth of the data on average, ALGLIB's
//!   "moderate amount of nonlinearity" as we read it (its own scaling is
//!   internal): the curve follows a knee within a basis interval or two but
//!   not single noisy samples, and intervals without any sample are bridged
//!   smoothly (where a plain least-squares spline would be singular). The
//!   unit tests pin the behaviour this choice gives.
//!
//! Why not a crate: docs/dependencies.md ("verus").
use std::fmt;

/// Why a fit was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FitError {
    /// Fewer than 4 basis functions, or x and y of different lengths.
    Shape,
    /// Fewer than two distinct x values: no curve is defined.
    Degenerate,
    /// A NaN or infinite sample.
    NotFinite,
}

impl fmt::Display for FitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FitError::Shape => write!(f, "need >= 4 basis functions and as many x as y"),
            FitError::Degenerate => write!(f, "need two distinct x values"),
            FitError::NotFinite => write!(f, "a sample is not finite"),
        }
    }
}

/// The fitted curve.
#[derive(Clone, Debug)]
pub struct PSpline {
    x_min: f64,
    h: f64,
    intervals: usize,
    coef: Vec<f64>,
}

/// The 4 uniform cubic B-spline weights at position `t` ∈ [0, 1] of an interval.
fn weights(t: f64) -> [f64; 4] {
    let s = 1.0 - t;
    let t2 = t * t;
    let t3 = t2 * t;
    [
        s * s * s / 6.0,
        (3.0 * t3 - 6.0 * t2 + 4.0) / 6.0,
        (-3.0 * t3 + 3.0 * t2 + 3.0 * t + 1.0) / 6.0,
        t3 / 6.0,
    ]
}

/// The fitted curve's `M`×`M` normal matrix, lower band only: `band[j][d]` is
/// entry (j, j − d), d ≤ 3.
type Band = Vec<[f64; 4]>;

impl PSpline {
    /// Fits `basis` (≥ 4) cubic B-splines to the samples with penalty
    /// exponent `rho` (see the module comment).
    pub fn fit(x: &[f64], y: &[f64], basis: usize, rho: f64) -> Result<PSpline, FitError> {
        if basis < 4 || x.len() != y.len() {
            return Err(FitError::Shape);
        }
        if x.iter().chain(y).any(|v| !v.is_finite()) || !rho.is_finite() {
            return Err(FitError::NotFinite);
        }
        let x_min = x.iter().copied().fold(f64::INFINITY, f64::min);
        let x_max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if x.is_empty() || x_max <= x_min {
            return Err(FitError::Degenerate);
        }
        let intervals = basis - 3;
        let mut s = PSpline {
            x_min,
            h: (x_max - x_min) / intervals as f64,
            intervals,
            coef: vec![0.0; basis],
        };
        let mut band: Band = vec![[0.0; 4]; basis];
        let mut rhs = vec![0.0; basis];
        for (&xi, &yi) in x.iter().zip(y) {
            let (i, w) = s.locate(xi);
            for p in 0..4 {
                rhs[i + p] += w[p] * yi;
                for q in 0..=p {
                    band[i + p][p - q] += w[p] * w[q];
                }
            }
        }
        let data_trace: f64 = band.iter().map(|r| r[0]).sum();
        // DᵀD: each second difference (1, −2, 1) over coefficients r..r+2.
        const D: [f64; 3] = [1.0, -2.0, 1.0];
        let penalty_trace = 6.0 * (basis - 2) as f64;
        let lambda = 10f64.powf(rho - 3.0) * data_trace / penalty_trace;
        for r in 0..basis - 2 {
            for p in 0..3 {
                for q in 0..=p {
                    band[r + p][p - q] += lambda * D[p] * D[q];
                }
            }
        }
        s.coef = solve_banded(band, rhs).ok_or(FitError::Degenerate)?;
        Ok(s)
    }

    /// The interval `x` falls in (the end ones extended) and the weights of
    /// its 4 basis functions.
    fn locate(&self, x: f64) -> (usize, [f64; 4]) {
        let u = (x - self.x_min) / self.h;
        let i = (u.floor().max(0.0) as usize).min(self.intervals - 1);
        (i, weights(u - i as f64))
    }

    /// The curve at `x`; outside the samples' range, the end piece's cubic
    /// continued (as ALGLIB does). Does not allocate.
    pub fn eval(&self, x: f64) -> f64 {
        let (i, w) = self.locate(x);
        w.iter().zip(&self.coef[i..i + 4]).map(|(w, c)| w * c).sum()
    }

    /// The range of x the curve was fit on.
    pub fn domain(&self) -> (f64, f64) {
        (self.x_min, self.x_min + self.h * self.intervals as f64)
    }
}

/// Solves the symmetric positive-definite banded system by Cholesky
/// factorisation in place; None if it is not positive definite.
fn solve_banded(mut a: Band, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    // l(j, k) for k ≤ j ≤ k + 3 lives in a[j][j − k].
    for j in 0..n {
        for d in (0..=3.min(j)).rev() {
            let k = j - d;
            let mut sum = a[j][d];
            for m in j.saturating_sub(3)..k {
                sum -= a[j][j - m] * a[k][k - m];
            }
            if d == 0 {
                if sum <= 0.0 || !sum.is_finite() {
                    return None;
                }
                a[j][0] = sum.sqrt();
            } else {
                a[j][d] = sum / a[k][0];
            }
        }
    }
    for j in 0..n {
        let mut sum = b[j];
        for m in j.saturating_sub(3)..j {
            sum -= a[j][j - m] * b[m];
        }
        b[j] = sum / a[j][0];
    }
    for j in (0..n).rev() {
        let mut sum = b[j];
        for m in j + 1..(j + 4).min(n) {
            sum -= a[m][m - j] * b[m];
        }
        b[j] = sum / a[j][0];
    }
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn the_basis_weights_sum_to_one() {
        for t in [0.0, 0.1, 0.5, 0.9, 1.0] {
            let w = weights(t);
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{t}: {w:?}");
        }
    }

    /// A straight line costs no penalty: it is reproduced exactly, whatever
    /// rho, and extended as a line.
    #[test]
    fn fits_a_line_exactly() {
        let x: Vec<f64> = (1..=60).map(f64::from).collect();
        let y: Vec<f64> = x.iter().map(|x| 20.0 + 0.5 * x).collect();
        for rho in [-3.0, 2.0, 6.0] {
            let s = PSpline::fit(&x, &y, 8, rho).unwrap();
            for xi in [1.0, 7.5, 33.0, 60.0, 70.0] {
                assert!(
                    (s.eval(xi) - (20.0 + 0.5 * xi)).abs() < 1e-6,
                    "rho {rho} x {xi}"
                );
            }
        }
        assert_eq!(s_domain(&x), (1.0, 60.0));
    }

    fn s_domain(x: &[f64]) -> (f64, f64) {
        PSpline::fit(x, x, 5, 2.0).unwrap().domain()
    }

    /// Noisy samples of a hockey stick (flat, then rising: a delay profile)
    /// are smoothed: the fit is far closer to the true curve than the noise.
    #[test]
    fn smooths_noise_around_a_knee() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let truth = |w: f64| if w < 40.0 { 40.0 } else { 40.0 + (w - 40.0) };
        let x: Vec<f64> = (1..=150).map(f64::from).collect();
        let y: Vec<f64> = x
            .iter()
            .map(|&w| truth(w) + rng.gen_range(-8.0..8.0))
            .collect();
        let s = PSpline::fit(&x, &y, 150 / 15, 2.0).unwrap();
        let mut worst: f64 = 0.0;
        let mut mean_err = 0.0;
        for &w in &x {
            let e = (s.eval(w) - truth(w)).abs();
            mean_err += e / x.len() as f64;
            if !(30.0..=50.0).contains(&w) {
                worst = worst.max(e);
            }
        }
        assert!(mean_err < 2.5, "mean error {mean_err}");
        assert!(worst < 6.0, "worst error away from the knee {worst}");
    }

    /// Samples with a hole (no windows 50..120 observed) still fit, bridged.
    #[test]
    fn bridges_a_gap_in_the_samples() {
        let x: Vec<f64> = (1..50).chain(120..160).map(f64::from).collect();
        let y: Vec<f64> = x.iter().map(|w| 10.0 + w).collect();
        let s = PSpline::fit(&x, &y, 40, 2.0).unwrap();
        assert!((s.eval(85.0) - 95.0).abs() < 3.0, "{}", s.eval(85.0));
    }

    #[test]
    fn refuses_what_defines_no_curve() {
        assert_eq!(
            PSpline::fit(&[1.0, 2.0], &[1.0], 5, 2.0).unwrap_err(),
            FitError::Shape
        );
        assert_eq!(
            PSpline::fit(&[1.0, 2.0], &[1.0, 2.0], 3, 2.0).unwrap_err(),
            FitError::Shape
        );
        assert_eq!(
            PSpline::fit(&[3.0, 3.0], &[1.0, 2.0], 5, 2.0).unwrap_err(),
            FitError::Degenerate
        );
        assert_eq!(
            PSpline::fit(&[], &[], 5, 2.0).unwrap_err(),
            FitError::Degenerate
        );
        assert_eq!(
            PSpline::fit(&[1.0, f64::NAN], &[1.0, 2.0], 5, 2.0).unwrap_err(),
            FitError::NotFinite
        );
    }
}
