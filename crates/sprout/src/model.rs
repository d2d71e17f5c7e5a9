// SPDX-License-Identifier: GPL-2.0-only
//! Sprout's link model (paper §3.1) and everything about it that can be
//! computed once at start-up.
//!
//! The link delivers packets as a Poisson process whose rate λ moves by
//! Brownian motion (σ packets/s per √s) and has a sticky outage state λ = 0
//! that is left at the outage escape rate λz. λ is discretised into `bins`
//! values, bin `i` standing for `i · max_rate / (bins − 1)` packets/s, so bin 0
//! is exactly the outage. Time moves in ticks of `tick_s` seconds.
//!
//! A "packet" is one MTU-sized datagram: the receiver divides the bytes it got
//! by the packet size, the sender multiplies packet forecasts back into bytes.

/// The model's constants. `Default` gives the paper's values with the maximum
/// rate raised for today's LTE traces (see `docs/sprout.md`).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// Number of discrete rate values, bin 0 being the outage.
    pub bins: usize,
    /// Highest rate the model can represent, packets per second.
    pub max_rate_pps: f64,
    /// Brownian motion of λ, packets/s per √s (paper: 200).
    pub sigma: f64,
    /// Rate at which an outage ends, per second (paper: 1).
    pub outage_escape_rate: f64,
    /// Length of one tick, seconds (paper: 0.02).
    pub tick_s: f64,
    /// Number of ticks forecast (paper: 8, i.e. 160 ms).
    pub horizon: usize,
}

/// Default maximum rate: 2500 packets/s, i.e. 30 Mbit/s of 1500-byte packets.
/// The paper's 1000 (12 Mbit/s) is below the mean rate of TMobile-LTE-short
/// (1380 packets/s).
pub const DEFAULT_MAX_RATE_PPS: f64 = 2500.0;
/// Default bins: 512 over 2500 packets/s are 4.9 packets/s wide, about the
/// paper's resolution (256 over 1000: 3.9). 256 over 2500 (9.8 wide) starved
/// the slow traces (docs/sprout.md, "bin width").
pub const DEFAULT_BINS: usize = 512;

impl Default for Params {
    fn default() -> Self {
        Params {
            bins: DEFAULT_BINS,
            max_rate_pps: DEFAULT_MAX_RATE_PPS,
            sigma: 200.0,
            outage_escape_rate: 1.0,
            tick_s: 0.02,
            horizon: 8,
        }
    }
}

impl Params {
    /// Checks the values, naming the one that is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if !(2..=4096).contains(&self.bins) {
            return Err(format!("bins must be in 2..=4096, got {}", self.bins));
        }
        if !(self.max_rate_pps.is_finite() && self.max_rate_pps > 0.0 && self.max_rate_pps <= 1e6) {
            return Err(format!(
                "max rate must be in (0, 1e6] packets/s, got {}",
                self.max_rate_pps
            ));
        }
        if !(self.sigma.is_finite() && self.sigma > 0.0) {
            return Err(format!("sigma must be positive, got {}", self.sigma));
        }
        if !(self.outage_escape_rate.is_finite() && self.outage_escape_rate >= 0.0) {
            return Err(format!(
                "outage escape rate must be >= 0, got {}",
                self.outage_escape_rate
            ));
        }
        if !(self.tick_s.is_finite() && self.tick_s > 0.0 && self.tick_s <= 1.0) {
            return Err(format!("tick must be in (0, 1] s, got {}", self.tick_s));
        }
        if !(1..=crate::MAX_HORIZON).contains(&self.horizon) {
            return Err(format!(
                "horizon must be in 1..={}, got {}",
                crate::MAX_HORIZON,
                self.horizon
            ));
        }
        Ok(())
    }

    /// The defaults with another maximum rate and as many bins as keep the
    /// default bin width (the resolution at low rates is what matters).
    pub fn with_max_rate(max_rate_pps: f64) -> Self {
        let d = Params::default();
        let bins = (d.bins as f64 * max_rate_pps / DEFAULT_MAX_RATE_PPS)
            .round()
            .max(2.0) as usize;
        Params {
            bins,
            max_rate_pps,
            ..d
        }
    }

    /// Width of one rate bin, packets/s.
    pub fn bin_width(&self) -> f64 {
        self.max_rate_pps / (self.bins - 1) as f64
    }
}

/// The precomputed tables. Immutable after construction.
pub struct Model {
    pub params: Params,
    /// Rate of each bin, packets/s.
    pub rates: Vec<f64>,
    /// Half-width of the evolution band, in bins.
    pub band: usize,
    /// `kernel[i * (2·band+1) + (j + band − i)]` = P(λ moves from bin j to bin i in one tick).
    pub kernel: Vec<f64>,
    /// Largest per-tick count tabulated; larger observations are clamped to it.
    pub max_count: usize,
    /// `likelihood[k * bins + i]` ∝ P(k packets in a tick | bin i), each row
    /// scaled so its maximum is 1 (the scale cancels in normalisation and keeps
    /// a whole row from underflowing).
    pub likelihood: Vec<f64>,
    /// `tick_pmf[i * (max_count+1) + k]` = P(k packets in a tick | bin i), with
    /// the tail beyond `max_count` folded into the last entry.
    pub tick_pmf: Vec<f64>,
}

/// Standard normal CDF.
fn phi(z: f64) -> f64 {
    0.5 * libm::erfc(-z / std::f64::consts::SQRT_2)
}

/// ln P(k | Poisson(mu)).
pub fn ln_poisson(mu: f64, k: usize) -> f64 {
    if mu <= 0.0 {
        return if k == 0 { 0.0 } else { f64::NEG_INFINITY };
    }
    k as f64 * mu.ln() - mu - libm::lgamma(k as f64 + 1.0)
}

impl Model {
    pub fn new(params: Params) -> Result<Self, String> {
        params.validate()?;
        let n = params.bins;
        let width = params.bin_width();
        let rates: Vec<f64> = (0..n).map(|i| i as f64 * width).collect();

        // Brownian step per tick; the band covers ±6 standard deviations.
        let sd = params.sigma * params.tick_s.sqrt();
        let band = ((6.0 * sd / width).ceil() as usize).max(1);
        let bw = 2 * band + 1;
        let mut kernel = vec![0.0; n * bw];
        // Mass that bin j sends to each bin i, truncated to the band and the
        // range [0, max] and renormalised: λ stays inside the model.
        let mut col = vec![0.0; n];
        let stay = (-params.outage_escape_rate * params.tick_s).exp();
        for j in 0..n {
            col.iter_mut().for_each(|c| *c = 0.0);
            let lo = j.saturating_sub(band);
            let hi = (j + band).min(n - 1);
            // From the outage, Brownian motion only applies once λ escapes:
            // the outage lasts an exponential time with rate λz.
            let first = if j == 0 { 1 } else { lo };
            let mut total = 0.0;
            for (i, c) in col.iter_mut().enumerate().take(hi + 1).skip(first) {
                let upper = (rates[i] + width / 2.0 - rates[j]) / sd;
                let lower = (rates[i] - width / 2.0 - rates[j]) / sd;
                *c = phi(upper) - phi(lower);
                total += *c;
            }
            for c in col.iter_mut().take(hi + 1).skip(first) {
                *c /= total;
            }
            if j == 0 {
                col.iter_mut().for_each(|c| *c *= 1.0 - stay);
                col[0] = stay;
            }
            for (i, &c) in col.iter().enumerate().take(hi + 1).skip(lo) {
                kernel[i * bw + (j + band - i)] = c;
            }
        }

        // Counts per tick: cover the top rate's mean plus 12 standard deviations.
        let top_mean = params.max_rate_pps * params.tick_s;
        let max_count = (top_mean + 12.0 * top_mean.sqrt() + 12.0).ceil() as usize;
        let kc = max_count + 1;
        let mut tick_pmf = vec![0.0; n * kc];
        for i in 0..n {
            let mu = rates[i] * params.tick_s;
            let row = &mut tick_pmf[i * kc..(i + 1) * kc];
            let mut sum = 0.0;
            for (k, p) in row.iter_mut().enumerate().take(max_count) {
                *p = ln_poisson(mu, k).exp();
                sum += *p;
            }
            row[max_count] = (1.0 - sum).max(0.0);
        }
        let mut likelihood = vec![0.0; kc * n];
        for k in 0..kc {
            let row = &mut likelihood[k * n..(k + 1) * n];
            let logs: Vec<f64> = rates
                .iter()
                .map(|r| ln_poisson(r * params.tick_s, k))
                .collect();
            let top = logs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            for (l, &lg) in row.iter_mut().zip(&logs) {
                *l = (lg - top).exp();
            }
        }
        Ok(Model {
            params,
            rates,
            band,
            kernel,
            max_count,
            likelihood,
            tick_pmf,
        })
    }

    pub fn bins(&self) -> usize {
        self.params.bins
    }

    /// One tick of evolution of `from` into `to` (both of length `bins`). No allocation.
    pub fn evolve_into(&self, from: &[f64], to: &mut [f64]) {
        let n = self.bins();
        let band = self.band;
        let bw = 2 * band + 1;
        for (i, out) in to.iter_mut().enumerate().take(n) {
            let lo = i.saturating_sub(band);
            let hi = (i + band).min(n - 1);
            let row = &self.kernel[i * bw..(i + 1) * bw];
            let mut acc = 0.0;
            for j in lo..=hi {
                acc += row[j + band - i] * from[j];
            }
            *out = acc;
        }
    }

    /// The likelihood row for an observation of `k` packets (clamped).
    pub fn likelihood_row(&self, k: usize) -> &[f64] {
        let n = self.bins();
        let k = k.min(self.max_count);
        &self.likelihood[k * n..(k + 1) * n]
    }

    /// The count distribution of one tick at a certain rate bin.
    pub fn tick_pmf_row(&self, bin: usize) -> &[f64] {
        let kc = self.max_count + 1;
        &self.tick_pmf[bin * kc..(bin + 1) * kc]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evolution_preserves_mass_and_the_outage_is_sticky() {
        let m = Model::new(Params::default()).unwrap();
        let n = m.bins();
        let mut p = vec![0.0; n];
        p[0] = 1.0;
        let mut q = vec![0.0; n];
        m.evolve_into(&p, &mut q);
        let sum: f64 = q.iter().sum();
        assert!((sum - 1.0).abs() < 1e-12, "mass {sum}");
        // exp(-1/s · 20 ms) of the outage stays put.
        assert!((q[0] - (-0.02f64).exp()).abs() < 1e-12, "stay {}", q[0]);
        // A bin in the middle spreads symmetrically with σ·√τ ≈ 28 packets/s.
        p.iter_mut().for_each(|x| *x = 0.0);
        p[128] = 1.0;
        m.evolve_into(&p, &mut q);
        let mean: f64 = q.iter().zip(&m.rates).map(|(a, r)| a * r).sum();
        let var: f64 = q
            .iter()
            .zip(&m.rates)
            .map(|(a, r)| a * (r - mean).powi(2))
            .sum();
        assert!((mean - m.rates[128]).abs() < 1e-6);
        let sd = var.sqrt();
        assert!(
            (sd - 28.28).abs() < 0.1 * 28.28 + m.params.bin_width() / 2.0,
            "sd {sd}"
        );
        assert!((q[127] - q[129]).abs() < 1e-12);
    }

    #[test]
    fn tables_are_distributions() {
        let m = Model::new(Params {
            max_rate_pps: 1000.0,
            ..Params::default()
        })
        .unwrap();
        for i in [0, 1, 100, 255] {
            let s: f64 = m.tick_pmf_row(i).iter().sum();
            assert!((s - 1.0).abs() < 1e-9, "bin {i}: {s}");
        }
        for k in [0, 1, 20, m.max_count] {
            let row = m.likelihood_row(k);
            let top = row.iter().cloned().fold(0.0, f64::max);
            assert!((top - 1.0).abs() < 1e-12);
        }
        // Zero packets are most likely in the outage; a lot of packets at the top.
        assert_eq!(m.likelihood_row(0)[0], 1.0);
        assert_eq!(m.likelihood_row(m.max_count)[m.bins() - 1], 1.0);
    }

    #[test]
    fn another_maximum_keeps_the_default_bin_width() {
        let d = Params::default();
        assert_eq!(Params::with_max_rate(DEFAULT_MAX_RATE_PPS), d);
        let p = Params::with_max_rate(2.0 * DEFAULT_MAX_RATE_PPS);
        assert_eq!(p.bins, 2 * d.bins);
        assert!((p.bin_width() - d.bin_width()).abs() < 0.01 * d.bin_width());
        assert_eq!(Params::with_max_rate(1.0).bins, 2);
    }

    #[test]
    fn bad_params_are_named() {
        let e = Params {
            bins: 1,
            ..Params::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.contains("bins"));
        let e = Params {
            max_rate_pps: f64::NAN,
            ..Params::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.contains("max rate"));
    }
}
