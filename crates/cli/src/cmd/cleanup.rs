//! `c2tcp cleanup`: removes what killed emulator runs left behind.
use std::process::ExitCode;

use anyhow::{bail, Result};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Result<ExitCode> {
    if !nix::unistd::geteuid().is_root() {
        bail!("cleanup needs root (it removes network devices, routes and processes)");
    }
    let removed = emu::topology::cleanup()?;
    if removed.is_empty() {
        println!("nothing to clean up: no emulator leftovers (processes, TUN devices, guard routes, slot locks)");
    }
    for r in &removed {
        println!("removed {r}");
    }
    Ok(ExitCode::SUCCESS)
}
