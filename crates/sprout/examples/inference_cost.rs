// SPDX-License-Identifier: GPL-2.0-only
//! Receiver inference cost per tick (evolve + observe + 5% forecast), the
//! hot path of `sprout-recv`, for a few model sizes.
//!
//! cargo run --release -p sprout --example inference_cost [TICKS]
use std::time::Instant;

use rand::SeedableRng;
use rand_distr::{Distribution, Poisson};
use sprout::forecast::Forecaster;
use sprout::inference::Inference;
use sprout::model::{Model, Params};

fn main() {
    let ticks: usize = std::env::args()
        .nth(1)
        .map_or(20_000, |s| s.parse().expect("TICKS"));
    println!(
        "{:>5} {:>9} {:>10} {:>12} {:>12} {:>12}",
        "bins", "max_pps", "startup_ms", "tables_MB", "ns/tick", "p99_ns"
    );
    for (bins, max) in [(256, 1000.0), (256, 2500.0), (512, 2500.0), (512, 5000.0)] {
        let t0 = Instant::now();
        let model = Model::new(Params {
            bins,
            max_rate_pps: max,
            ..Params::default()
        })
        .unwrap();
        let mut fc = Forecaster::new(&model);
        let startup = t0.elapsed().as_secs_f64() * 1e3;
        let mut inf = Inference::new(&model);
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let mut out = [0u32; 8];
        let mut ns = Vec::with_capacity(ticks);
        for i in 0..ticks {
            // A rate that wanders between 10% and 90% of the maximum, with an
            // outage now and then, so the belief is sometimes broad.
            let phase = (i as f64 / 500.0).sin() * 0.4 + 0.5;
            let k = if i % 2000 < 50 {
                0
            } else {
                Poisson::new(max * phase * 0.02).unwrap().sample(&mut rng) as usize
            };
            let t = Instant::now();
            inf.evolve(&model);
            inf.observe(&model, k);
            fc.forecast(&inf, 0.05, &mut out);
            ns.push(t.elapsed().as_nanos() as u64);
            std::hint::black_box(&out);
        }
        let mean = ns.iter().sum::<u64>() as f64 / ns.len() as f64;
        ns.sort_unstable();
        let p99 = ns[ns.len() * 99 / 100];
        println!(
            "{bins:>5} {max:>9} {startup:>10.1} {:>12.1} {mean:>12.0} {p99:>12}",
            fc.table_bytes() as f64 / 1e6
        );
    }
}
