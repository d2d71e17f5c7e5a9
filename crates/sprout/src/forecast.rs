// SPDX-License-Identifier: GPL-2.0-only
//! The packet-delivery forecast (paper §3.3): for each of the next ticks, a
//! cautious quantile (5% by default) of the cumulative number of packets the
//! link will deliver.
//!
//! As in the authors' code, the belief is treated as a mixture of "components",
//! one per rate bin. For each component the distribution of cumulative
//! deliveries after 1..=horizon ticks is computed once at start-up: evolve the
//! rate one tick, take that tick's count distribution (a mixture of Poissons),
//! convolve it into the running total, repeat. (Like the original, consecutive
//! ticks' counts are convolved as if independent given the start bin.) At run
//! time only a weighted sum over bins remains: the mixture's CDF is
//! `Σ_j P(bin j) · CDF_j,t(c)`, and the quantile is found by bisection on `c`.
use crate::inference::Inference;
use crate::model::Model;

/// Tail mass dropped from each component's cumulative distribution.
const TRIM: f64 = 1e-12;
/// Bins with less probability than this do not take part in a forecast.
const ACTIVE_MIN: f64 = 1e-12;

pub struct Forecaster {
    horizon: usize,
    bins: usize,
    /// Per (bin, tick): first count tabulated, number of entries, offset in `cdf`.
    lo: Vec<u32>,
    len: Vec<u32>,
    off: Vec<usize>,
    /// P(cumulative count ≤ c) for c in lo..lo+len; 0 below, 1 above.
    cdf: Vec<f64>,
    /// Scratch: indices of bins that carry probability.
    active: Vec<u32>,
}

impl Forecaster {
    pub fn new(model: &Model) -> Self {
        let n = model.bins();
        let h = model.params.horizon;
        let kc = model.max_count + 1;
        let mut f = Forecaster {
            horizon: h,
            bins: n,
            lo: vec![0; n * h],
            len: vec![0; n * h],
            off: vec![0; n * h],
            cdf: Vec::new(),
            active: Vec::with_capacity(n),
        };
        let mut d = vec![0.0; n];
        let mut tmp = vec![0.0; n];
        let mut tick = vec![0.0; kc];
        let mut cum: Vec<f64> = Vec::new();
        let mut next: Vec<f64> = Vec::new();
        for j in 0..n {
            d.iter_mut().for_each(|x| *x = 0.0);
            d[j] = 1.0;
            cum.clear();
            cum.push(1.0);
            let mut cum_lo = 0usize;
            for t in 0..h {
                // The rate during the next tick is one tick of motion away.
                model.evolve_into(&d, &mut tmp);
                std::mem::swap(&mut d, &mut tmp);
                tick.iter_mut().for_each(|x| *x = 0.0);
                for (i, &w) in d.iter().enumerate() {
                    if w > 1e-300 {
                        for (acc, p) in tick.iter_mut().zip(model.tick_pmf_row(i)) {
                            *acc += w * p;
                        }
                    }
                }
                let (t_lo, t_hi) = trim_range(&tick, TRIM);
                next.clear();
                next.resize(cum.len() + (t_hi - t_lo + 1) - 1, 0.0);
                for (a, &pa) in cum.iter().enumerate() {
                    if pa == 0.0 {
                        continue;
                    }
                    for (b, &pb) in tick[t_lo..=t_hi].iter().enumerate() {
                        next[a + b] += pa * pb;
                    }
                }
                let (n_lo, n_hi) = trim_range(&next, TRIM);
                cum.clear();
                cum.extend_from_slice(&next[n_lo..=n_hi]);
                cum_lo += t_lo + n_lo;

                let idx = j * h + t;
                f.lo[idx] = cum_lo as u32;
                f.len[idx] = cum.len() as u32;
                f.off[idx] = f.cdf.len();
                let total: f64 = cum.iter().sum();
                let mut run = 0.0;
                for &p in &cum {
                    run += p;
                    f.cdf.push((run / total).min(1.0));
                }
            }
        }
        f
    }

    pub fn horizon(&self) -> usize {
        self.horizon
    }

    /// Fills `out[t]` (t < horizon) with the `quantile` of cumulative packets
    /// delivered by the end of tick t+1. Non-decreasing in t. No allocation.
    pub fn forecast(&mut self, inference: &Inference, quantile: f64, out: &mut [u32]) {
        let p = inference.probabilities();
        debug_assert_eq!(p.len(), self.bins);
        self.active.clear();
        let mut weight = 0.0;
        for (j, &pj) in p.iter().enumerate() {
            if pj > ACTIVE_MIN {
                self.active.push(j as u32);
                weight += pj;
            }
        }
        let target = quantile * weight;
        let mut floor = 0u32;
        for (t, slot) in out.iter_mut().enumerate().take(self.horizon) {
            let (mut a, mut b) = (u32::MAX, 0u32);
            for &j in &self.active {
                let idx = j as usize * self.horizon + t;
                a = a.min(self.lo[idx]);
                b = b.max(self.lo[idx] + self.len[idx]);
            }
            // Smallest c in [a, b] with mixture CDF(c) >= target; CDF(b) = 1.
            while a < b {
                let mid = a + (b - a) / 2;
                if self.mixture_cdf(p, t, mid) >= target {
                    b = mid;
                } else {
                    a = mid + 1;
                }
            }
            // The exact quantile never decreases with t; guard rounding.
            floor = floor.max(a);
            *slot = floor;
        }
    }

    fn mixture_cdf(&self, p: &[f64], t: usize, c: u32) -> f64 {
        let mut s = 0.0;
        for &j in &self.active {
            let idx = j as usize * self.horizon + t;
            let lo = self.lo[idx];
            let f = if c < lo {
                0.0
            } else if c - lo >= self.len[idx] {
                1.0
            } else {
                self.cdf[self.off[idx] + (c - lo) as usize]
            };
            s += p[j as usize] * f;
        }
        s
    }

    /// Bytes of precomputed tables (for the docs' cost figures).
    pub fn table_bytes(&self) -> usize {
        self.cdf.len() * 8 + self.lo.len() * (4 + 4 + 8)
    }
}

/// Indices [lo, hi] keeping all but `eps` of the mass on each side.
fn trim_range(v: &[f64], eps: f64) -> (usize, usize) {
    let total: f64 = v.iter().sum();
    let mut lo = 0;
    let mut run = 0.0;
    while lo + 1 < v.len() && run + v[lo] < eps * total {
        run += v[lo];
        lo += 1;
    }
    let mut hi = v.len() - 1;
    run = 0.0;
    while hi > lo && run + v[hi] < eps * total {
        run += v[hi];
        hi -= 1;
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Params;

    fn setup() -> (Model, Forecaster, Inference) {
        let model = Model::new(Params::default()).unwrap();
        let f = Forecaster::new(&model);
        let inf = Inference::new(&model);
        (model, f, inf)
    }

    fn certain(model: &Model, inf: &mut Inference, bin: usize) {
        let mut p = vec![0.0; model.bins()];
        p[bin] = 1.0;
        inf.set_probabilities(&p);
    }

    #[test]
    fn median_of_a_certain_rate_is_rate_times_time() {
        let (model, mut f, mut inf) = setup();
        certain(&model, &mut inf, 51); // 1000 packets/s: 20 per tick
        let mut out = [0u32; 8];
        f.forecast(&inf, 0.5, &mut out);
        for (t, &c) in out.iter().enumerate() {
            let expect = model.rates[51] * 0.02 * (t + 1) as f64;
            assert!(
                (c as f64 - expect).abs() <= 0.05 * expect + 2.0,
                "tick {t}: {c} vs {expect}"
            );
        }
    }

    #[test]
    fn forecast_is_non_decreasing_and_ordered_by_confidence() {
        let (model, mut f, mut inf) = setup();
        for bin in [3, 40, 128, 250] {
            certain(&model, &mut inf, bin);
            let mut q = [[0u32; 8]; 4];
            for (row, conf) in q.iter_mut().zip([0.05, 0.25, 0.5, 0.75]) {
                f.forecast(&inf, conf, row);
                assert!(
                    row.windows(2).all(|w| w[0] <= w[1]),
                    "bin {bin} q {conf}: {row:?}"
                );
            }
            for t in 0..8 {
                assert!(
                    q[0][t] <= q[1][t] && q[1][t] <= q[2][t] && q[2][t] <= q[3][t],
                    "bin {bin} tick {t}: {q:?}"
                );
            }
            // Caution costs something at real rates.
            if bin >= 40 {
                assert!(q[0][7] < q[2][7], "bin {bin}: {q:?}");
            }
        }
    }

    #[test]
    fn a_certain_outage_forecasts_nothing() {
        let (model, mut f, mut inf) = setup();
        certain(&model, &mut inf, 0);
        let mut out = [0u32; 8];
        f.forecast(&inf, 0.05, &mut out);
        assert_eq!(out, [0; 8]);
    }

    /// The hot path (evolve + observe + forecast) must cost a small fraction
    /// of the 20 ms tick; ~25 µs in release on this machine kind
    /// (docs/sprout.md). The bound is a ratio of the tick and generous for
    /// shared cores and unoptimised builds.
    #[test]
    fn a_tick_of_inference_costs_a_small_fraction_of_the_tick() {
        let (model, mut f, mut inf) = setup();
        let mut out = [0u32; 8];
        let t = std::time::Instant::now();
        let n = 500;
        for i in 0..n {
            inf.evolve(&model);
            inf.observe(&model, 10 + (i % 20));
            f.forecast(&inf, 0.05, &mut out);
        }
        let per_tick = t.elapsed().as_secs_f64() / n as f64;
        assert!(
            per_tick < 0.1 * model.params.tick_s,
            "{:.0} µs per tick",
            per_tick * 1e6
        );
    }
}
