// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp cleanup`: removes what killed runs left behind: emulator
//! processes, TUN devices, guard routes and slot locks, and congestion
//! controls a run auto-loaded but could not unload; cgroup Targets of
//! cgroups that no longer exist, and cgroups killed tests left.
use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Result<ExitCode> {
    bpfload::sys::require_root(
        "c2tcp cleanup (it removes network devices, routes, processes and BPF programs)",
    )?;
    let mut removed = emu::topology::cleanup()?;
    match bpfload::usage::cleanup_autoloaded() {
        Ok(ccs) => removed.extend(
            ccs.into_iter()
                .map(|cc| format!("auto-loaded congestion control {cc}")),
        ),
        Err(e) => eprintln!("c2tcp cleanup: {e:#}"),
    }
    match bpfload::cgroups::cleanup() {
        Ok(gone) => removed.extend(gone),
        Err(e) => eprintln!("c2tcp cleanup: {e:#}"),
    }
    if removed.is_empty() {
        println!("nothing to clean up: no emulator leftovers (processes, TUN devices, guard routes, slot locks) and no auto-loaded congestion controls, stale cgroup Targets or test cgroups");
    }
    for r in &removed {
        println!("removed {r}");
    }
    Ok(ExitCode::SUCCESS)
}
