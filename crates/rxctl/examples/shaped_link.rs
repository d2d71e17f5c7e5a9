// SPDX-License-Identifier: GPL-2.0-only
//! Runs one long flow and optional short flows over a tbf-shaped veth
//! between two namespaces (root needed), with plain receivers or under
//! rxctl, and prints the results; `--csv PATH` writes the controller's
//! record. Used to measure the figures in docs/receiver-side.md.
//!
//! cargo run --release -p rxctl --example shaped_link -- dfcsd 8mbit 300000 3.0 128000 [--csv out.csv]
//! (scheme: cubic | dfcsd | drwa; rate; tbf queue bytes; short-flow start s; short-flow size)
#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Duration;

use common::{Bottleneck, FlowSpec};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let get = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let scheme = get(0, "dfcsd");
    let rate = get(1, "8mbit");
    let queue: u32 = get(2, "300000").parse()?;
    let short_at: f64 = get(3, "3.0").parse()?;
    let short_size: u64 = get(4, "128000").parse()?;
    let csv = args
        .iter()
        .position(|a| a == "--csv")
        .and_then(|i| args.get(i + 1).cloned());
    let cfg = match scheme.as_str() {
        "cubic" => None,
        s => Some(rxctl::Config::new(
            rxctl::scheme(s)
                .ok_or_else(|| anyhow::anyhow!("unknown scheme {s}"))?
                .0,
        )),
    };
    let b = Bottleneck::new(&rate, queue)?;
    let mut flows = vec![FlowSpec {
        label: "long".into(),
        start: Duration::ZERO,
        size: None,
    }];
    if short_size > 0 {
        flows.push(FlowSpec {
            label: "short".into(),
            start: Duration::from_secs_f64(short_at),
            size: Some(short_size),
        });
    }
    let dur = Duration::from_secs_f64(short_at + 8.0);
    let (res, records) = common::run(&b, &flows, dur, cfg)?;
    for r in &res {
        let (from, to) = (
            Duration::from_secs_f64(short_at - 1.0),
            Duration::from_secs_f64(short_at),
        );
        let q = r.mean_queueing_ms(from, to);
        let g = r.goodput(Duration::from_secs_f64(0.5), to);
        println!(
            "{:6} bytes {:9} fct {:>8} retrans {:3} queueing(1 s before short) {} goodput(0.5 s..short) {}",
            r.label,
            r.bytes,
            r.fct.map_or("-".into(), |d| format!("{:.3}s", d.as_secs_f64())),
            r.retrans,
            q.map_or("-".into(), |q| format!("{q:.1} ms")),
            g.map_or("-".into(), |g| format!("{:.2} Mbit/s", g * 8e-6)),
        );
    }
    if std::env::var_os("SAMPLES").is_some() {
        for s in &res[0].samples {
            let ms = |us: u32| us as f64 / 1e3;
            println!(
                "tx {:.2} srtt {:.1} min {:.1} acked {}",
                s.t.as_secs_f64(),
                ms(s.srtt_us),
                ms(s.min_rtt_us),
                s.bytes_acked
            );
        }
    }
    if let Some(p) = csv {
        rxctl::write_csv_file(&records, std::path::Path::new(&p))?;
    }
    Ok(())
}
