// SPDX-License-Identifier: GPL-2.0-only
//! Runs Sprout and Sprout-EWMA over the millisecond path model on Mahimahi
//! traces and prints throughput and queueing delay per trace.
//!
//! cargo run --release -p sprout --example trace_sim -- SECONDS MAX_RATE_PPS BINS TRACE.down...
//! (the matching .up trace is used for feedback when it exists)
use std::path::Path;

use sprout::model::Params;
use sprout::receiver::{Receiver, ReceiverConfig};
use sprout::sender::{Sender, SenderConfig};
use sprout::sim::{self, SimConfig};
use sprout::Variant;

fn main() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let secs: u64 = args.remove(0).parse()?;
    let max: f64 = args.remove(0).parse()?;
    let bins: usize = args.remove(0).parse()?;
    println!(
        "{:28} {:12} {:>8} {:>8} {:>6} {:>9} {:>9}",
        "trace", "variant", "cap", "tput", "util", "mean_ms", "p95_ms"
    );
    for path in &args {
        let down = sim::read_trace(Path::new(path))?;
        let up_path = path.replace(".down", ".up");
        let up = if up_path != *path && Path::new(&up_path).exists() {
            Some(sim::read_trace(Path::new(&up_path))?)
        } else {
            None
        };
        let cfg = SimConfig {
            down_trace: down,
            up_trace: up,
            one_way_delay_ms: 10,
            queue_packets: None,
            duration_ms: secs * 1000,
            skip_ms: 5000,
        };
        for (variant, conf) in [
            (Variant::Sprout, 0.05),
            (Variant::Sprout, 0.25),
            (Variant::Sprout, 0.5),
            (Variant::Sprout, 0.75),
            (Variant::SproutEwma, 0.05),
        ] {
            let rc = ReceiverConfig {
                variant,
                confidence: conf,
                params: Params {
                    max_rate_pps: max,
                    bins,
                    ..Params::default()
                },
                ..ReceiverConfig::default()
            };
            let r = sim::run(
                &cfg,
                Sender::new(SenderConfig::new(1)),
                Receiver::new(rc).map_err(anyhow::Error::msg)?,
            );
            let name = Path::new(path).file_name().unwrap().to_string_lossy();
            let label = if variant == Variant::Sprout {
                format!("sprout@{}", (conf * 100.0) as u32)
            } else {
                "ewma".into()
            };
            println!(
                "{:28} {:12} {:8.2} {:8.2} {:6.2} {:9.1} {:9.1}",
                name,
                label,
                r.capacity_mbps,
                r.throughput_mbps,
                r.utilization,
                r.mean_delay_ms,
                r.p95_delay_ms
            );
        }
    }
    Ok(())
}
