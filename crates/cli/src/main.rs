// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp`: one binary for the congestion control, the emulator and the
//! experiments. Each subcommand lives in its own module under `cmd/`.
#![forbid(unsafe_code)]
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;

/// `c2tcp --version`: the crate version and the commit it was built from.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (git ",
    env!("C2TCP_GIT_COMMIT"),
    ")"
);

#[derive(Parser)]
#[command(
    name = "c2tcp",
    version = VERSION,
    about = "C2TCP (Cellular Controlled-Delay TCP) for stock Linux, with a trace-driven cellular link emulator",
    long_about = "C2TCP (Cellular Controlled-Delay TCP) for stock Linux, with a trace-driven cellular link emulator.\n\n\
        Start with `sudo c2tcp doctor`, then `sudo c2tcp load`: every program can then pick the `c2tcp` \
        congestion control and set its delay Target with the SOL_C2TCP socket option (include/c2tcp.h)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check that this machine can run c2tcp (root, BTF, struct_ops, kfuncs, cgroup v2, TUN, netns)
    Doctor(cmd::doctor::Args),
    /// Load the BPF congestion controls into the kernel (idempotent; survives this command)
    Load(cmd::bpf::LoadArgs),
    /// Unload them: unregister, detach the socket-option programs, remove the pins
    Unload(cmd::bpf::UnloadArgs),
    /// Show what is loaded and what it costs per call
    Status(cmd::bpf::StatusArgs),
    /// A delay Target per cgroup (set, get, list, clear) for applications that set none
    Target(cmd::target::Args),
    /// Live table of every open c2tcp connection: Target and its source, alpha, RTTs, cwnd, rates
    Top(cmd::top::Args),
    /// Run COMMAND behind an emulated cellular link (Mahimahi's mm-delay + mm-link)
    Emulate(cmd::emulate::Args),
    /// Trace tools: stats, synthetic traces, rate schedules
    Trace(cmd::trace::Args),
    /// Remove what killed emulator runs left behind
    Cleanup(cmd::cleanup::Args),
    /// Run a scenario (or one flow given by flags) through the emulator and measure it
    Run(cmd::run::Args),
    /// Run schemes x traces x parameters x repetitions, in parallel and resumable, then report
    Bench(cmd::bench::Args),
    /// C2TCP's per-ACK cost beside the kernel's Cubic (timed the same way) and CPU per GB of both, over veth
    Cost(cmd::cost::Args),
    /// Write the Markdown/HTML report, tables and plots of a bench or run directory
    Report(cmd::report::Args),
    /// Each paper's claims (claims/*.toml) checked against a bench root: holds / differs / not run
    Claims(cmd::claims::Args),
    /// SproutTunnel: carry any IP traffic over Sprout through a TUN device (one end)
    #[command(name = "sprout-tunnel")]
    SproutTunnel(cmd::sprout_tunnel::Args),
    /// Sprout receiver: one flow over UDP, JSON summary on exit
    #[command(name = "sprout-recv", hide = true)]
    SproutRecv(cmd::sprout::RecvArgs),
    /// Sprout saturating sender: one flow over UDP, JSON summary on exit
    #[command(name = "sprout-send", hide = true)]
    SproutSend(cmd::sprout::SendArgs),
    /// Verus receiver: acks one flow over UDP, JSON summary on exit
    #[command(name = "verus-recv", hide = true)]
    VerusRecv(cmd::verus::RecvArgs),
    /// Verus saturating sender: one flow over UDP, JSON summary on exit
    #[command(name = "verus-send", hide = true)]
    VerusSend(cmd::verus::SendArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Doctor(a) => cmd::doctor::run(a),
        Command::Load(a) => cmd::bpf::load(a),
        Command::Unload(a) => cmd::bpf::unload(a),
        Command::Status(a) => cmd::bpf::status(a),
        Command::Target(a) => cmd::target::run(a),
        Command::Top(a) => cmd::top::run(a),
        Command::Emulate(a) => cmd::emulate::run(a),
        Command::Trace(a) => cmd::trace::run(a),
        Command::Cleanup(a) => cmd::cleanup::run(a),
        Command::Run(a) => cmd::run::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Cost(a) => cmd::cost::run(a),
        Command::Report(a) => cmd::report::run(a),
        Command::Claims(a) => cmd::claims::run(a),
        Command::SproutTunnel(a) => cmd::sprout_tunnel::run(a),
        Command::SproutRecv(a) => cmd::sprout::recv(a),
        Command::SproutSend(a) => cmd::sprout::send(a),
        Command::VerusRecv(a) => cmd::verus::recv(a),
        Command::VerusSend(a) => cmd::verus::send(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("c2tcp: {e:#}");
            ExitCode::FAILURE
        }
    }
}
