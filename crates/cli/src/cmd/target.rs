// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp target set|get|list|clear`: a Target per cgroup, for applications
//! that do not set their own (bpfload::cgroups has the mechanism).
use std::process::ExitCode;

use anyhow::{bail, Result};
use bpfload::cgroups::{self, Cgroup, Setting};
use bpfload::lock::BpfLock;

#[derive(clap::Args)]
#[command(
    long_about = "A delay Target per cgroup, for applications that do not set their own.\n\n\
        A TCP socket created by a process in CGROUP, or in a cgroup below it, runs C2TCP with \
        that Target (the nearest cgroup with a setting wins) unless the application sets \
        C2TCP_TARGET itself. The setting is read when the socket is created: changing or \
        clearing it applies to sockets created afterwards; open connections keep theirs. \
        Settings stay until cleared or `c2tcp unload`.\n\n\
        CGROUP is a cgroup-v2 path relative to the cgroup-v2 mount (`system.slice/video.slice`), \
        as /proc/PID/cgroup prints it (`/system.slice/video.slice`), or absolute under the mount."
)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Give CGROUP's new c2tcp sockets a Target (and optionally a variant)
    Set(SetArgs),
    /// Show CGROUP's own setting and the one its sockets get now
    Get(GetArgs),
    /// Every cgroup that has a setting
    List(ListArgs),
    /// Remove CGROUP's setting: its new sockets get the next ancestor's, or the load-time default
    Clear(ClearArgs),
}

#[derive(clap::Args)]
struct SetArgs {
    /// cgroup-v2 path (relative to the cgroup-v2 mount, or absolute)
    cgroup: String,
    /// Average-delay Target in milliseconds (1 to 10000)
    #[arg(long, value_name = "MS")]
    target: f64,
    /// C2TCP variant for the cgroup's sockets (`jsac`, `paper`, `drain`, with +/-BEHAVIOUR); default:
    /// the load-time one
    #[arg(long, value_name = "VARIANT")]
    variant: Option<sockopt::Variant>,
}

#[derive(clap::Args)]
struct GetArgs {
    /// cgroup-v2 path (relative to the cgroup-v2 mount, or absolute)
    cgroup: String,
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct ListArgs {
    /// Print JSON instead of text
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct ClearArgs {
    /// cgroup-v2 path (relative to the cgroup-v2 mount, or absolute)
    #[arg(required_unless_present = "stale")]
    cgroup: Option<String>,
    /// Instead: remove the settings of cgroups that no longer exist
    #[arg(long, conflicts_with = "cgroup")]
    stale: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    bpfload::sys::require_root("c2tcp target")?;
    match args.command {
        Command::Set(a) => set(a),
        Command::Get(a) => get(a),
        Command::List(a) => list(a),
        Command::Clear(a) => clear(a),
    }
}

fn ms(us: u32) -> String {
    format!("{} ms", us as f64 / 1000.0)
}

fn target_us(ms: f64) -> Result<u32> {
    let us = sockopt::target_us_from_ms(ms).map_err(|e| anyhow::anyhow!("--target: {e}"))?;
    cgroups::check_target_us(us)?;
    Ok(us)
}

fn describe(cg: &Cgroup, s: &Setting) -> String {
    let variant = if s.variant == sockopt::Variant::default() {
        String::new()
    } else {
        format!(", variant {}", s.variant)
    };
    format!("{}: Target {}{variant}", cg.name, ms(s.target_us))
}

fn set(a: SetArgs) -> Result<ExitCode> {
    let setting = Setting {
        target_us: target_us(a.target)?,
        variant: a.variant.unwrap_or_default(),
    };
    let cg = cgroups::resolve(&a.cgroup)?;
    // Shared: no unload can remove the map under us.
    let _lock = BpfLock::shared()?;
    cgroups::set(&cg, &setting)?;
    println!(
        "{} (for sockets created from now on)",
        describe(&cg, &setting)
    );
    Ok(ExitCode::SUCCESS)
}

fn get(a: GetArgs) -> Result<ExitCode> {
    let cg = cgroups::resolve(&a.cgroup)?;
    let own = cgroups::get(&cg)?;
    let effective = cgroups::effective(&cg)?;
    let default_us = bpfload::cc::c2tcp_default_target_us().unwrap_or(0);
    if a.json {
        let setting = |s: &Setting| serde_json::json!({"target_us": s.target_us, "variant": s.variant.to_string()});
        let v = serde_json::json!({
            "cgroup": cg.name,
            "cgroup_id": cg.id,
            "own": own.as_ref().map(setting),
            "effective": effective.as_ref().map(|(from, s)| {
                let mut v = setting(s);
                v["from"] = from.name.clone().into();
                v
            }),
            "default_target_us": default_us,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    match (&own, &effective) {
        (Some(s), _) => println!("{}", describe(&cg, s)),
        (None, Some((from, s))) => {
            println!(
                "{}: no setting of its own; inherits {}",
                cg.name,
                describe(from, s)
            )
        }
        (None, None) => println!(
            "{}: no setting; its sockets get the default Target ({})",
            cg.name,
            if default_us == 0 {
                "2 x min RTT".to_string()
            } else {
                ms(default_us)
            }
        ),
    }
    Ok(ExitCode::SUCCESS)
}

pub fn print_entries(entries: &[cgroups::Entry]) {
    for e in entries {
        let name = e
            .cgroup
            .clone()
            .unwrap_or_else(|| format!("(removed cgroup, id {})", e.cgroup_id));
        let variant = if e.variant == "default" {
            String::new()
        } else {
            format!("  variant {}", e.variant)
        };
        println!("  {name:<40} Target {}{variant}", ms(e.target_us));
    }
}

fn list(a: ListArgs) -> Result<ExitCode> {
    let Some(entries) = cgroups::list()? else {
        bail!("c2tcp is not loaded: run `sudo c2tcp load` first");
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&entries)?);
    } else if entries.is_empty() {
        println!("no cgroup has a Target (set one with `c2tcp target set CGROUP --target MS`)");
    } else {
        print_entries(&entries);
    }
    Ok(ExitCode::SUCCESS)
}

fn clear(a: ClearArgs) -> Result<ExitCode> {
    let _lock = BpfLock::shared()?;
    if a.stale {
        let Some(entries) = cgroups::list()? else {
            bail!("c2tcp is not loaded: run `sudo c2tcp load` first");
        };
        let mut n = 0;
        for e in entries.iter().filter(|e| e.cgroup.is_none()) {
            n += cgroups::clear_id(e.cgroup_id)? as usize;
        }
        println!("removed {n} setting(s) of cgroups that no longer exist");
        return Ok(ExitCode::SUCCESS);
    }
    let cg = cgroups::resolve(a.cgroup.as_deref().unwrap_or_default())?;
    if cgroups::clear(&cg)? {
        println!(
            "{}: setting removed (for sockets created from now on)",
            cg.name
        );
    } else {
        println!("{}: had no setting", cg.name);
    }
    Ok(ExitCode::SUCCESS)
}
