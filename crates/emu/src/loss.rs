// SPDX-License-Identifier: GPL-2.0-only
//! Bernoulli loss (mm-loss): each packet is lost with probability `p`,
//! from a seeded generator so runs are repeatable.
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub struct Loss {
    p: f64,
    rng: StdRng,
}

impl Loss {
    pub fn new(p: f64, seed: u64) -> Loss {
        Loss {
            p,
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// Whether the next packet is lost.
    #[inline]
    pub fn lose(&mut self) -> bool {
        self.p > 0.0 && self.rng.gen::<f64>() < self.p
    }
}

/// Checks a loss probability given on the command line or in a config.
pub fn validate(p: f64, what: &str) -> anyhow::Result<f64> {
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        anyhow::bail!("{what} must be a probability between 0 and 1, got {p}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_is_close_to_p_and_seeded() {
        let mut l = Loss::new(0.1, 42);
        let lost = (0..100_000).filter(|_| l.lose()).count();
        assert!((9_000..11_000).contains(&lost), "{lost}");
        let mut a = Loss::new(0.3, 1);
        let mut b = Loss::new(0.3, 1);
        assert!((0..1000).all(|_| a.lose() == b.lose()));
        let mut none = Loss::new(0.0, 1);
        assert!((0..1000).all(|_| !none.lose()));
        assert!(validate(1.5, "--downlink-loss")
            .unwrap_err()
            .to_string()
            .contains("--downlink-loss"));
    }
}
