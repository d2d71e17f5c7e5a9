// SPDX-License-Identifier: GPL-2.0-only
//! `load`, `unload`, `status`: the kernel side of c2tcp.
use std::process::ExitCode;

use anyhow::{bail, Result};
use bpfload::lock::BpfLock;
use bpfload::{LoadOptions, LoadOutcome};

#[derive(clap::Args)]
pub struct LoadArgs {
    /// Congestion controls to load (default: all of them)
    names: Vec<String>,
    /// Target (ms) for c2tcp sockets that never set one; default: 2 x the connection's min RTT
    #[arg(long, value_name = "MS")]
    default_target: Option<f64>,
    /// C2TCP for sockets that choose none (C2TCP_VARIANT): `jsac`, the authors' released
    /// behaviour, `paper`, Algorithms 1-3 as printed, or `drain`, jsac whose imaginary drop
    /// drains the queue and not the pipe; each may add +BEHAVIOUR or -BEHAVIOUR
    /// (blind_window, anchored_tuner, ms_good_test, shared_growth, ack_interval, bdp_floor,
    /// hold_ssthresh, pacing)
    #[arg(long, value_name = "VARIANT", default_value = "jsac")]
    variant: sockopt::Variant,
}

#[derive(clap::Args)]
pub struct UnloadArgs {
    /// Congestion controls to unload (default: all of them)
    names: Vec<String>,
}

#[derive(clap::Args)]
pub struct StatusArgs {
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
}

fn target_us(ms: Option<f64>) -> Result<u32> {
    let Some(ms) = ms else { return Ok(0) };
    sockopt::target_us_from_ms(ms).map_err(|e| anyhow::anyhow!("--default-target: {e}"))
}

pub fn load(args: LoadArgs) -> Result<ExitCode> {
    let opts = LoadOptions {
        default_target_us: target_us(args.default_target)?,
        default_variant: args.variant,
    };
    if args.variant.base == sockopt::variant::Base::Default {
        bail!("--variant: the load-time default must start with jsac, paper or drain");
    }
    bpfload::sys::require_root("c2tcp load")?;
    // An unknown name is refused at once, not after waiting for the lock
    // (which a running bench holds for its whole life).
    bpfload::cc::select(&args.names)?;
    let _lock = BpfLock::exclusive()?;
    let results = bpfload::load_each(&args.names, &opts)?;
    // Loaded on purpose now: runs must not unload them when they finish.
    let loaded: Vec<&str> = results
        .iter()
        .filter(|(_, r)| r.is_ok())
        .map(|(n, _)| *n)
        .collect();
    bpfload::usage::clear_marks(&loaded);
    let mut refused = Vec::new();
    for (name, outcome) in results {
        match outcome {
            Ok(LoadOutcome::Loaded) => println!("{name}: loaded"),
            Ok(LoadOutcome::AlreadyLoaded { reconfigured: true }) => {
                println!("{name}: already loaded; options updated")
            }
            Ok(LoadOutcome::AlreadyLoaded {
                reconfigured: false,
            }) => println!("{name}: already loaded"),
            Err(e) => {
                eprintln!("{name}: not loaded: {e:#}");
                refused.push(name);
            }
        }
    }
    if refused.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!(
        "c2tcp load: {} could not be loaded on this kernel (`c2tcp doctor` says what it lacks){}",
        refused.join(", "),
        if loaded.is_empty() {
            String::new()
        } else {
            format!("; {} loaded", loaded.join(", "))
        }
    );
    Ok(ExitCode::FAILURE)
}

pub fn unload(args: UnloadArgs) -> Result<ExitCode> {
    bpfload::sys::require_root("c2tcp unload")?;
    bpfload::cc::select(&args.names)?;
    let _lock = BpfLock::exclusive()?;
    let removed = bpfload::unload(&args.names)?;
    bpfload::usage::clear_marks(&removed);
    if removed.is_empty() {
        println!("nothing was loaded");
    }
    for name in removed {
        println!("{name}: unloaded");
    }
    Ok(ExitCode::SUCCESS)
}

pub fn status(args: StatusArgs) -> Result<ExitCode> {
    let st = bpfload::status();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&st)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("default congestion control: {}", st.default_cc);
    match st.c2tcp_default_target_us {
        Some(0) => println!("c2tcp default Target: 2 x min RTT"),
        Some(us) => println!("c2tcp default Target: {:.1} ms", us as f64 / 1000.0),
        None => {}
    }
    if let Some(v) = &st.c2tcp_default_variant {
        println!("c2tcp default variant: {v}");
    }
    match &st.c2tcp_cgroup_targets {
        Some(e) if e.is_empty() => println!("c2tcp cgroup Targets: none"),
        Some(e) => {
            println!("c2tcp cgroup Targets (`c2tcp target list`):");
            super::target::print_entries(e);
        }
        None => {}
    }
    for cc in &st.ccs {
        let state = match (cc.pinned, cc.registered) {
            (true, true) => "loaded",
            (false, true) => {
                "registered, but not by `c2tcp load` (run `c2tcp load` to take it over)"
            }
            (true, false) => "pinned but not registered (run `c2tcp unload` then `c2tcp load`)",
            (false, false) => "not loaded",
        };
        println!(
            "{:<10} {state}{}",
            cc.name,
            if cc.selectable {
                "; selectable by any program"
            } else {
                ""
            }
        );
        for p in &cc.programs {
            let cost = p
                .avg_ns
                .map(|n| format!("{n} ns/call"))
                .unwrap_or_else(|| "-".into());
            println!(
                "    {:<16} id {:<6} calls {:<10} {cost}",
                p.name, p.id, p.run_cnt
            );
        }
    }
    if st.ccs.iter().any(|c| !c.programs.is_empty()) && !st.bpf_stats_enabled {
        println!("(per-call cost needs `sysctl kernel.bpf_stats_enabled=1`)");
    }
    Ok(ExitCode::SUCCESS)
}
