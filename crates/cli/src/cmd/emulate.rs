// SPDX-License-Identifier: GPL-2.0-only
//! `c2tcp emulate`: Mahimahi's `mm-delay D mm-link UP DOWN -- CMD` in one
//! command. COMMAND runs in a fresh network namespace (the UE); the
//! caller's namespace is the other end.
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use emu::loss::LossModel;
use emu::{DirectionConfig, Emulator, EmulatorConfig, EmulatorStats, QueueSpec};
use netns::Netns;
use plumbing::{process, signals, Signal};

#[derive(clap::Args)]
#[command(after_help = after_help())]
pub struct Args {
    /// Downlink (caller side → COMMAND): a trace file (plain or .gz),
    /// constant:MBPS, steps:START_S:MBPS,...@PERIOD_S, or CellReplay's model,
    /// cellreplay:LIGHT,HEAVY[,offsets=FILE][,idle=MS]
    #[arg(long, value_name = "TRACE")]
    downlink: String,
    /// Uplink (COMMAND → caller side): a trace file, constant:MBPS, steps:... or cellreplay:...
    #[arg(long, value_name = "TRACE")]
    uplink: String,
    /// One-way propagation delay each way, ms (fractions allowed), like mm-delay
    #[arg(long, value_name = "MS", default_value_t = 0.0)]
    delay: f64,
    /// A one-way delay trace for the downlink instead of --delay: one delay
    /// in ms per line, each for --delay-resolution ms, looping (Mahimahi's
    /// mm-file-delay format), or `START_MS DELAY_MS` lines (the last holds)
    #[arg(long, value_name = "FILE")]
    downlink_delay_trace: Option<PathBuf>,
    /// A one-way delay trace for the uplink instead of --delay
    #[arg(long, value_name = "FILE")]
    uplink_delay_trace: Option<PathBuf>,
    /// How long each line of a one-column delay trace holds, ms
    #[arg(long, value_name = "MS", default_value_t = 1.0)]
    delay_resolution: f64,
    /// Stop when a trace ends instead of looping it (COMMAND is then stopped)
    #[arg(long)]
    once: bool,
    /// Downlink queue, QUEUE or QUEUE:ARGS (the queues are listed below)
    #[arg(long, value_name = "QUEUE", default_value = "infinite")]
    downlink_queue: String,
    /// Downlink queue arguments, e.g. packets=100 or target=5,interval=100,packets=1000
    #[arg(long, value_name = "ARGS")]
    downlink_queue_args: Option<String>,
    /// Uplink queue
    #[arg(long, value_name = "QUEUE", default_value = "infinite")]
    uplink_queue: String,
    /// Uplink queue arguments
    #[arg(long, value_name = "ARGS")]
    uplink_queue_args: Option<String>,
    /// Write the downlink's log here (docs/log-format.md)
    #[arg(long, value_name = "FILE")]
    downlink_log: Option<PathBuf>,
    /// Write the uplink's log here
    #[arg(long, value_name = "FILE")]
    uplink_log: Option<PathBuf>,
    /// Write a pcapng capture of the downlink here: every packet's headers at
    /// its arrival at the queue, its departure or its drop (with the reason)
    #[arg(long, value_name = "FILE")]
    downlink_pcap: Option<PathBuf>,
    /// Write a pcapng capture of the uplink here
    #[arg(long, value_name = "FILE")]
    uplink_pcap: Option<PathBuf>,
    /// Both captures at once: BASE.downlink.pcapng and BASE.uplink.pcapng
    #[arg(long, value_name = "BASE", conflicts_with_all = ["downlink_pcap", "uplink_pcap"])]
    pcap: Option<PathBuf>,
    /// Downlink loss: a Bernoulli probability P, or Gilbert–Elliott bursts
    /// ge:p=P,r=R[,good=G][,bad=B] (P(Good→Bad), P(Bad→Good) per packet; loss
    /// probability in Good, default 0, and in Bad, default 1)
    #[arg(long, value_name = "MODEL", default_value = "0")]
    downlink_loss: String,
    /// Uplink loss: P or ge:p=P,r=R[,good=G][,bad=B]
    #[arg(long, value_name = "MODEL", default_value = "0")]
    uplink_loss: String,
    /// Skip the first MS milliseconds of both traces
    #[arg(long, value_name = "MS", default_value_t = 0)]
    trace_offset: u64,
    /// Seed for loss and PIE
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the final per-direction figures (packets, bytes, drops by
    /// reason, capacity, scheduling error) as JSON here
    #[arg(long, value_name = "FILE")]
    stats: Option<PathBuf>,
    /// No start/end summary on stderr
    #[arg(short, long)]
    quiet: bool,
    /// Program and arguments to run behind the link (default: $SHELL)
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

/// The help after the options: the queues as emu registers them.
fn after_help() -> String {
    let before = "COMMAND runs inside a new network namespace behind the emulated link; the caller's \
namespace is the other side. MAHIMAHI_BASE and C2TCP_BASE hold the caller side's address, C2TCP_UE \
COMMAND's own. The exit status is COMMAND's.\n\n\
Mahimahi equivalent:\n  \
mm-delay 10 mm-link up down --downlink-queue=droptail --downlink-queue-args=packets=100 -- cmd\n  \
c2tcp emulate --delay 10 --uplink up --downlink down --downlink-queue=droptail --downlink-queue-args=packets=100 -- cmd\n\n\
";
    let after = "CellReplay's model (NSDI 2025; docs/emulator.md): `--downlink cellreplay:LIGHT,HEAVY[,offsets=FILE][,idle=MS]` \
with LIGHT its base-delay and light-opportunity trace (`TIME_MS BASE_DELAY_MS OFFSET_MS...` a row), HEAVY a Mahimahi \
trace (or constant:MBPS), offsets its per-size latency offsets (`SIZE OFFSET_MS`); the light trace's base delay \
replaces --delay for that direction. mm-cellular's traces read as they are:\n  \
mm-cellular 8 up-delay-light-pdo down-delay-light-pdo up-heavy-pdo down-heavy-pdo --psize-latency-offset-down=lo-down ...\n  \
c2tcp emulate --uplink cellreplay:up-delay-light-pdo,up-heavy-pdo --downlink cellreplay:down-delay-light-pdo,down-heavy-pdo,offsets=lo-down -- cmd\n\n\
Ctrl-C and SIGTERM stop COMMAND and tear everything down (with a terminal, Ctrl-C goes to COMMAND, as in a \
shell, and the run ends when COMMAND does).";
    format!(
        "{before}{}With ecn=1 ECN-capable packets are marked CE instead of dropped (logged as a trailing \
         `ce` on the departure); either `--downlink-queue droptail --downlink-queue-args packets=100` \
         or `--downlink-queue droptail:packets=100`.\n\n{after}",
        emu::queue::help()
    )
}

fn queue(flag: &str, name: &str, args: Option<&str>) -> Result<QueueSpec> {
    let spec = match (name.contains(':'), args) {
        (true, Some(_)) => {
            bail!("--{flag} {name} already has arguments; drop --{flag}-args or the `:...` part")
        }
        (true, None) => name.parse(),
        (false, args) => QueueSpec::from_parts(name, args),
    };
    spec.with_context(|| format!("--{flag}"))
}

fn direction(
    what: &str,
    trace: &str,
    queue: QueueSpec,
    loss: &str,
    log: Option<PathBuf>,
) -> Result<DirectionConfig> {
    let loss: LossModel = loss.parse().with_context(|| format!("--{what}-loss"))?;
    // A trace, a rate spec, or CellReplay's pair, its files as given.
    let link = emu::LinkSpec::parse(trace)
        .and_then(|l| l.load(&|f| Ok(PathBuf::from(f))))
        .with_context(|| format!("--{what}"))?;
    if let Some(w) = emu::rate_spec::rate_warning(&link.trace) {
        eprintln!("c2tcp emulate: --{what}: {w}");
    }
    let mut d = DirectionConfig::new(link.trace);
    d.cellreplay = link.cellreplay.map(std::sync::Arc::new);
    d.queue = queue;
    d.loss = loss;
    d.log = log;
    Ok(d)
}

pub fn run(a: Args) -> Result<ExitCode> {
    if !(a.delay.is_finite() && a.delay >= 0.0) {
        bail!(
            "--delay must be a non-negative number of ms, got {}",
            a.delay
        );
    }
    let downlink = direction(
        "downlink",
        &a.downlink,
        queue(
            "downlink-queue",
            &a.downlink_queue,
            a.downlink_queue_args.as_deref(),
        )?,
        &a.downlink_loss,
        a.downlink_log.clone(),
    )?;
    let uplink = direction(
        "uplink",
        &a.uplink,
        queue(
            "uplink-queue",
            &a.uplink_queue,
            a.uplink_queue_args.as_deref(),
        )?,
        &a.uplink_loss,
        a.uplink_log.clone(),
    )?;
    let (mut downlink, mut uplink) = (downlink, uplink);
    let with_suffix = |base: &PathBuf, dir: &str| {
        let mut name = base.clone().into_os_string();
        name.push(format!(".{dir}.pcapng"));
        PathBuf::from(name)
    };
    downlink.pcap = a
        .downlink_pcap
        .clone()
        .or_else(|| a.pcap.as_ref().map(|b| with_suffix(b, "downlink")));
    uplink.pcap = a
        .uplink_pcap
        .clone()
        .or_else(|| a.pcap.as_ref().map(|b| with_suffix(b, "uplink")));
    for (flag, file, d) in [
        (
            "--downlink-delay-trace",
            &a.downlink_delay_trace,
            &mut downlink,
        ),
        ("--uplink-delay-trace", &a.uplink_delay_trace, &mut uplink),
    ] {
        if let Some(path) = file {
            let t = emu::delay::DelayTrace::load(path, a.delay_resolution).context(flag)?;
            d.delay_trace = Some(std::sync::Arc::new(t));
        }
    }
    bpfload::sys::require_root("c2tcp emulate (a network namespace and TUN devices)")?;
    let mut cfg = EmulatorConfig::new(downlink, uplink);
    cfg.delay_us = (a.delay * 1000.0).round() as u64;
    cfg.once = a.once;
    cfg.trace_offset_ms = a.trace_offset;
    cfg.seed = a.seed;

    let command = if a.command.is_empty() {
        vec![std::env::var("SHELL").unwrap_or_else(|_| "/bin/sh".into())]
    } else {
        a.command.clone()
    };
    super::interrupt::install();
    let outside = Netns::current("caller")?;
    let inside = Netns::new("ue")?;
    let summary = format!(
        "downlink {} ({}), uplink {} ({}), delay {} ms each way",
        a.downlink, cfg.downlink.queue, a.uplink, cfg.uplink.queue, a.delay
    );
    let emu = Emulator::start(cfg, &outside, &inside)?;
    if !a.quiet {
        eprintln!(
            "c2tcp emulate: {summary}; caller side {} (MAHIMAHI_BASE), COMMAND side {}",
            emu.outside_addr(),
            emu.inside_addr()
        );
    }
    let interactive = nix::unistd::isatty(0).unwrap_or(false);
    let mut cmd = inside.command(&command[0]);
    cmd.args(&command[1..]).envs(emu.child_env());
    if !interactive {
        // Its own process group, so stopping it reaches its children too.
        cmd.process_group(0);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            let _ = emu.stop();
            return Err(e).with_context(|| format!("starting {}", command[0]));
        }
    };
    let pid = child.id() as i32;
    // A log that cannot be written (a full disk) ends the emulation.
    let mut log_error = None;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        // The last signal that asked us to stop decides.
        let stop_for_signal = match signals::last() {
            Some(Signal::SIGTERM | Signal::SIGHUP) => true,
            Some(Signal::SIGINT) => !interactive,
            _ => false,
        };
        log_error = emu.check().err();
        if stop_for_signal || (a.once && emu.trace_ended()) || log_error.is_some() {
            if !a.quiet {
                let why = match &log_error {
                    Some(e) => format!("{e:#}"),
                    None if stop_for_signal => "signal received".into(),
                    None => "trace ended (--once)".into(),
                };
                eprintln!("c2tcp emulate: {why}; stopping {}", command[0]);
            }
            break terminate(&mut child, pid, !interactive)?;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // Whatever COMMAND left running behind the link goes with it.
    for p in inside.pids().unwrap_or_default() {
        // A pid found in our own UE namespace.
        process::signal(p, Signal::SIGKILL);
    }
    let stats = emu.stop();
    if let Some(e) = log_error {
        return Err(e);
    }
    let stats = stats?;
    if !a.quiet {
        report(&stats);
    }
    if let Some(path) = &a.stats {
        std::fs::write(path, serde_json::to_string_pretty(&stats)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let code = status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    Ok(ExitCode::from(code.clamp(0, 255) as u8))
}

/// SIGTERM to COMMAND (its group when it has one), SIGKILL after 2 s.
fn terminate(
    child: &mut std::process::Child,
    pid: i32,
    group: bool,
) -> Result<std::process::ExitStatus> {
    let target = if group { -pid } else { pid };
    // Our own child (or its process group).
    process::signal(target, Signal::SIGTERM);
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(2) {
        if let Some(s) = child.try_wait()? {
            return Ok(s);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    process::signal(target, Signal::SIGKILL);
    Ok(child.wait()?)
}

fn report(s: &EmulatorStats) {
    for (name, d) in [("downlink", &s.downlink), ("uplink", &s.uplink)] {
        eprintln!(
            "c2tcp emulate: {name}: {} packets in, {} out ({:.1} of {:.1} MB offered), dropped {} (tail {}, head {}, codel {}, pie {}, loss {}, oversize {}), CE-marked {}",
            d.arrivals,
            d.departures,
            d.departure_bytes as f64 / 1e6,
            d.capacity_bytes as f64 / 1e6,
            d.drops.total(),
            d.drops.tail,
            d.drops.head,
            d.drops.codel,
            d.drops.pie,
            d.drops.loss,
            d.drops.oversize,
            d.ce_marks
        );
    }
}
