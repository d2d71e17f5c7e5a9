// SPDX-License-Identifier: GPL-2.0-only
//! Bayesian inference of the link rate λ (paper §3.2): once per tick, evolve
//! the distribution, multiply by the Poisson likelihood of what was observed,
//! normalise. This is the receiver's hot path: no allocation, O(bins · band).
use crate::model::Model;

/// Probabilities below this are flushed to zero so the arithmetic never runs
/// into subnormal numbers (which are slow) after long runs of evidence.
const FLUSH: f64 = 1e-200;

/// The belief about λ: a probability per rate bin.
pub struct Inference {
    p: Vec<f64>,
    scratch: Vec<f64>,
}

impl Inference {
    /// All rates equally probable (paper: "at program startup").
    pub fn new(model: &Model) -> Self {
        let n = model.bins();
        Inference {
            p: vec![1.0 / n as f64; n],
            scratch: vec![0.0; n],
        }
    }

    /// Back to the uniform prior.
    pub fn reset(&mut self) {
        let n = self.p.len() as f64;
        self.p.iter_mut().for_each(|x| *x = 1.0 / n);
    }

    pub fn probabilities(&self) -> &[f64] {
        &self.p
    }

    /// Sets a distribution (tests; must have one value per bin).
    pub fn set_probabilities(&mut self, p: &[f64]) {
        self.p.copy_from_slice(p);
        self.normalize();
    }

    /// Applies one tick of Brownian motion and outage stickiness.
    pub fn evolve(&mut self, model: &Model) {
        model.evolve_into(&self.p, &mut self.scratch);
        std::mem::swap(&mut self.p, &mut self.scratch);
    }

    /// Multiplies by the likelihood of `packets` deliveries in one tick and
    /// normalises. If the observation is impossible under every rate the
    /// belief allows (e.g. a burst right after a certain outage), the prior
    /// carries no usable information and the likelihood alone is kept.
    pub fn observe(&mut self, model: &Model, packets: usize) {
        let row = model.likelihood_row(packets);
        for (p, l) in self.p.iter_mut().zip(row) {
            *p *= l;
        }
        if !self.normalize() {
            self.p.copy_from_slice(row);
            self.normalize();
        }
    }

    /// Scales to sum 1; false if there was no mass to scale.
    fn normalize(&mut self) -> bool {
        let sum: f64 = self.p.iter().sum();
        if !(sum.is_finite() && sum > 0.0) {
            return false;
        }
        let inv = 1.0 / sum;
        for p in self.p.iter_mut() {
            *p *= inv;
            if *p < FLUSH {
                *p = 0.0;
            }
        }
        true
    }

    /// Expected rate, packets/s.
    pub fn mean_rate(&self, model: &Model) -> f64 {
        self.p.iter().zip(&model.rates).map(|(p, r)| p * r).sum()
    }

    /// Probability of the outage state.
    pub fn outage_probability(&self) -> f64 {
        self.p[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Params;
    use rand::SeedableRng;
    use rand_distr::{Distribution, Poisson};

    #[test]
    fn converges_to_a_constant_observed_rate() {
        let model = Model::new(Params::default()).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for rate in [150.0, 800.0, 2000.0] {
            let mut inf = Inference::new(&model);
            let poisson = Poisson::new(rate * 0.02).unwrap();
            let mut est = Vec::new();
            for _ in 0..500 {
                inf.evolve(&model);
                inf.observe(&model, poisson.sample(&mut rng) as usize);
                est.push(inf.mean_rate(&model));
            }
            // Average the estimate over the last 200 ticks: it tracks the
            // true rate within 10% (the model lets λ drift, so any single
            // tick's estimate is noisy by design).
            let tail: f64 = est[300..].iter().sum::<f64>() / 200.0;
            assert!(
                (tail - rate).abs() < 0.1 * rate,
                "rate {rate}: estimate {tail}"
            );
            assert!(inf.outage_probability() < 1e-6);
        }
    }

    #[test]
    fn empty_ticks_move_mass_to_the_outage() {
        let model = Model::new(Params::default()).unwrap();
        let mut inf = Inference::new(&model);
        for _ in 0..100 {
            inf.evolve(&model);
            inf.observe(&model, 20); // 1000 packets/s
        }
        assert!(inf.outage_probability() < 1e-9);
        for _ in 0..100 {
            inf.evolve(&model);
            inf.observe(&model, 0);
        }
        assert!(
            inf.outage_probability() > 0.5,
            "outage {}",
            inf.outage_probability()
        );
        assert!(
            inf.mean_rate(&model) < 20.0,
            "mean {}",
            inf.mean_rate(&model)
        );
    }

    #[test]
    fn an_impossible_observation_falls_back_to_the_likelihood() {
        let model = Model::new(Params::default()).unwrap();
        let mut inf = Inference::new(&model);
        let mut certain = vec![0.0; model.bins()];
        certain[0] = 1.0;
        inf.set_probabilities(&certain);
        // A certain outage cannot produce any packet at all.
        inf.observe(&model, 150);
        let s: f64 = inf.probabilities().iter().sum();
        assert!((s - 1.0).abs() < 1e-9);
        assert!(
            inf.mean_rate(&model) > 0.8 * model.params.max_rate_pps,
            "mean {}",
            inf.mean_rate(&model)
        );
    }
}
