// SPDX-License-Identifier: GPL-2.0-only
//! The running emulator: two TUN devices (one per namespace), one thread
//! per direction, and the teardown that leaves nothing behind.
//!
//! ```no_run
//! # fn main() -> anyhow::Result<()> {
//! use emu::{DirectionConfig, Emulator, EmulatorConfig};
//! let server = netns::Netns::new("server")?;
//! let ue = netns::Netns::new("ue")?;
//! let mut cfg = EmulatorConfig::new(
//!     DirectionConfig::from_trace_file("traces/TMobile-LTE-driving.down".as_ref())?,
//!     DirectionConfig::from_trace_file("traces/TMobile-LTE-driving.up".as_ref())?,
//! );
//! cfg.delay_us = 10_000;
//! cfg.downlink.queue = "droptail:packets=100".parse()?;
//! let emu = Emulator::start(cfg, &server, &ue)?;
//! // server reaches the UE at emu.inside_addr(), the UE the server at emu.outside_addr()
//! let stats = emu.stop()?;
//! println!("{} packets delivered downlink", stats.downlink.departures);
//! # Ok(()) }
//! ```
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use anyhow::{Context, Result};
use netns::Netns;
use serde::Serialize;

use crate::clock::{now_us, set_realtime, Micros};
use crate::delay::{DelayLine, DelayTrace};
use crate::forward::forward;
use crate::link::{Link, OPPORTUNITY_BYTES};
use crate::log::{Log, LogHeader, LogHealth};
use crate::loss::{Loss, LossModel};
use crate::packet::Pool;
use crate::pipeline::{Pipeline, MTU};
use crate::queue::QueueSpec;
use crate::stats::{Counters, DirectionStats, SchedError};
use crate::topology::Slot;
use crate::trace::{Cursor, Trace};
use crate::tun::Tun;

/// One direction: its trace, queue, loss and optional log file.
#[derive(Debug, Clone)]
pub struct DirectionConfig {
    pub trace: Arc<Trace>,
    pub queue: QueueSpec,
    /// Random loss at the queue's entrance: Bernoulli (`0.01.into()`) or
    /// Gilbert–Elliott (`"ge:p=0.01,r=0.25".parse()?`).
    pub loss: LossModel,
    pub log: Option<PathBuf>,
    /// A one-way delay that varies over time (`delay::DelayTrace`); it
    /// replaces `EmulatorConfig::delay_us` for this direction.
    pub delay_trace: Option<Arc<DelayTrace>>,
    /// Write a pcapng capture of this direction here (`pcap`).
    pub pcap: Option<PathBuf>,
    /// CellReplay's model (`cellreplay`): its light stage replaces the
    /// delay (`EmulatorConfig::delay_us` and `delay_trace` are not used for
    /// this direction) and `trace` is its heavy trace.
    pub cellreplay: Option<Arc<crate::cellreplay::CellReplay>>,
}

impl DirectionConfig {
    /// An infinite queue, no loss, no log.
    pub fn new(trace: Trace) -> DirectionConfig {
        DirectionConfig {
            trace: Arc::new(trace),
            queue: QueueSpec::default(),
            loss: LossModel::default(),
            log: None,
            delay_trace: None,
            pcap: None,
            cellreplay: None,
        }
    }

    pub fn from_trace_file(path: &Path) -> Result<DirectionConfig> {
        Ok(DirectionConfig::new(Trace::load(path)?))
    }
}

#[derive(Debug, Clone)]
pub struct EmulatorConfig {
    /// outside → inside (server → UE).
    pub downlink: DirectionConfig,
    /// inside → outside (UE → server).
    pub uplink: DirectionConfig,
    /// One-way propagation delay, applied in each direction (mm-delay), µs.
    pub delay_us: Micros,
    /// Stop delivering when a trace ends instead of looping it.
    pub once: bool,
    /// Skip the first ms of both traces.
    pub trace_offset_ms: u64,
    /// Seeds loss and PIE; the same seed repeats the same random choices.
    pub seed: u64,
    /// Run the forwarding threads as SCHED_FIFO (when privileged): keeps
    /// the scheduling error low on a busy machine.
    pub realtime: bool,
    /// Merge TCP segments that leave at the same instant into one GSO write,
    /// as a receiver's GRO would (see `gso`); needed for high rates.
    pub gso: bool,
    /// Let senders hand the TUN devices TCP super-packets (TSO, up to 64 KiB
    /// a read) that the emulator splits into the MTU packets the link carries
    /// (see `tso`): one read and no software segmentation or checksum in the
    /// sender per ~44 packets; what the link does is the same packet by
    /// packet. Needed for multi-Gbit/s rates.
    pub tso: bool,
    /// Most packets one direction holds (delay line + queue) before it drops
    /// arrivals as `tail`: bounds memory with an infinite queue (2 KiB each).
    pub max_packets: usize,
}

impl EmulatorConfig {
    pub fn new(downlink: DirectionConfig, uplink: DirectionConfig) -> EmulatorConfig {
        EmulatorConfig {
            downlink,
            uplink,
            delay_us: 0,
            once: false,
            trace_offset_ms: 0,
            seed: 1,
            realtime: true,
            gso: true,
            tso: true,
            max_packets: 200_000,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct EmulatorStats {
    pub downlink: DirectionStats,
    pub uplink: DirectionStats,
}

pub struct Emulator;

/// A started emulator. Dropping it stops it too (errors then go unreported).
pub struct RunningEmulator {
    slot: Option<Slot>,
    outside: Netns,
    inside: Netns,
    stop: Arc<AtomicBool>,
    threads: Vec<(&'static str, JoinHandle<Result<Option<SchedError>>>)>,
    counters: [Arc<Counters>; 2],
    /// The logs' write errors, for [`RunningEmulator::check`].
    logs: Vec<LogHealth>,
    start_us: Micros,
    stopped: bool,
}

impl Emulator {
    /// Creates a TUN device in each namespace (outside gets the base
    /// address, inside the UE address, each a route to the other and
    /// nothing else), guards the run's /30 in `outside` with an unreachable
    /// route, and starts one forwarding thread per direction.
    pub fn start(cfg: EmulatorConfig, outside: &Netns, inside: &Netns) -> Result<RunningEmulator> {
        for (what, d) in [("downlink", &cfg.downlink), ("uplink", &cfg.uplink)] {
            d.loss.validate(&format!("{what} loss"))?;
        }
        let slot = Slot::acquire()?;
        let (out_addr, in_addr) = (slot.outside_addr(), slot.inside_addr());
        let subnet = slot.subnet();
        // From here on, a failure drops `guard`, which undoes what was done.
        let mut guard = RunningEmulator {
            slot: None,
            outside: outside.try_clone()?,
            inside: inside.try_clone()?,
            stop: Arc::new(AtomicBool::new(false)),
            threads: Vec::new(),
            counters: [Arc::default(), Arc::default()],
            logs: Vec::new(),
            start_us: 0,
            stopped: false,
        };
        outside.ip(&["route", "replace", "unreachable", &subnet])?;
        guard.slot = Some(slot);
        let slot = guard.slot.as_ref().unwrap();
        let out_tun = Arc::new(make_tun(
            outside,
            &slot.outside_ifname(),
            out_addr,
            in_addr,
            cfg.tso,
        )?);
        let in_tun = Arc::new(make_tun(
            inside,
            &slot.inside_ifname(),
            in_addr,
            out_addr,
            cfg.tso,
        )?);

        // Trace time 0 on a whole ms, so trace opportunities fall on whole
        // ms of the log's base timestamp.
        let start = now_us() / 1000 * 1000;
        guard.start_us = start;
        let directions = [
            (
                "downlink",
                &cfg.downlink,
                out_tun.clone(),
                in_tun.clone(),
                in_addr,
            ),
            ("uplink", &cfg.uplink, in_tun, out_tun, out_addr),
        ];
        for (i, (name, d, from, to, dst)) in directions.into_iter().enumerate() {
            let pipeline = pipeline(&cfg, name, d, i, start, dst, &mut guard)?;
            let stop = guard.stop.clone();
            let realtime = cfg.realtime;
            let gso = cfg.gso;
            let handle = std::thread::Builder::new()
                .name(format!("emu-{name}"))
                .spawn(move || {
                    if realtime {
                        set_realtime();
                    }
                    forward(pipeline, &from, &to, &stop, gso)
                })
                .context("starting an emulator thread")?;
            guard.threads.push((name, handle));
        }
        Ok(guard)
    }
}

/// Direction `i`'s pipeline (`name`, `d`, towards `dst`): its trace from
/// the offset, its log (whose header says what the link is) and capture,
/// its delay line (fixed, a delay trace, or CellReplay's light stage), loss
/// and queue, each seeded from the run's seed; trace time 0 at `start`.
/// The log's and capture's health go to `guard`, as do its counters.
fn pipeline(
    cfg: &EmulatorConfig,
    name: &str,
    d: &DirectionConfig,
    i: usize,
    start: Micros,
    dst: Ipv4Addr,
    guard: &mut RunningEmulator,
) -> Result<Pipeline> {
    let cursor = Cursor::new(&d.trace, cfg.trace_offset_ms, cfg.once)?;
    let log = match &d.log {
        Some(path) => {
            let queue = d.queue.to_string();
            // With a delay trace: its smallest delay (the log's one-way
            // delays are then lower bounds; docs/emulator.md). With
            // CellReplay: the light trace's smallest base delay.
            let delay_us = match (&d.cellreplay, &d.delay_trace) {
                (Some(c), _) => c.light.min_delay_us(),
                (None, Some(t)) => t.min_us(),
                (None, None) => cfg.delay_us,
            };
            let header = LogHeader::emu(
                start / 1000,
                name,
                OPPORTUNITY_BYTES,
                delay_us as f64 / 1000.0,
                &queue,
                d.loss.mean_loss(),
            );
            let log = Log::create(path, start, &header)?;
            guard.logs.push(log.health());
            Some(log)
        }
        None => None,
    };
    let seed = cfg.seed.wrapping_mul(2).wrapping_add(i as u64);
    let delay = match (&d.cellreplay, &d.delay_trace) {
        (Some(c), _) => DelayLine::cellreplay(c.stage(start)),
        (None, Some(t)) => DelayLine::from_trace(t.clone(), start),
        (None, None) => DelayLine::new(cfg.delay_us),
    };
    let mut pipeline = Pipeline::new(
        delay,
        Loss::new(d.loss, seed),
        d.queue.build(seed ^ 0x9e37_79b9),
        Link::new(cursor, start),
        log,
        guard.counters[i].clone(),
        Pool::new(1024, cfg.max_packets),
        Some(dst),
    );
    if let Some(path) = &d.pcap {
        let about = format!(
            "c2tcp emulate {name}: trace {}, queue {}, loss {}",
            d.trace.path.display(),
            d.queue,
            d.loss
        );
        let capture = crate::pcap::Capture::create(path, &about, start)?;
        guard.logs.push(capture.health());
        pipeline.set_capture(capture);
    }
    Ok(pipeline)
}

/// How long a closed TUN device may take to disappear: a forked child's
/// copy of its descriptor lives until that child's exec, milliseconds even on
/// a loaded machine.
const DEVICE_GONE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Waits until network device `name` no longer exists in `ns`; one thread
/// in the namespace polls, every 5 ms.
fn wait_until_gone(ns: &Netns, name: &str) -> Result<()> {
    let deadline = std::time::Instant::now() + DEVICE_GONE_TIMEOUT;
    let owned = name.to_string();
    let gone = ns.run(move || loop {
        // No index for the name: the device is gone.
        if nix::net::if_::if_nametoindex(owned.as_str()).is_err() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    })?;
    if !gone {
        anyhow::bail!(
            "TUN device {name} (in {}) still exists {:?} after its descriptor was closed: \
             another process holds it",
            ns.label(),
            DEVICE_GONE_TIMEOUT
        );
    }
    Ok(())
}

fn make_tun(ns: &Netns, name: &str, local: Ipv4Addr, peer: Ipv4Addr, tso: bool) -> Result<Tun> {
    let owned = name.to_string();
    let tun = ns.run(move || Tun::create(&owned))??;
    if tso {
        // Before the device is up and long before any socket connects
        // through it (a socket learns its route's offloads when it connects).
        tun.enable_tso()?;
    }
    // No IPv6 chatter (router solicitations) on the emulated link; absent
    // when IPv6 is off, hence best effort.
    let _ = ns.sysctl(&format!("net.ipv6.conf.{name}.disable_ipv6"), "1");
    ns.ip(&["link", "set", "dev", name, "mtu", &MTU.to_string(), "up"])?;
    ns.ip(&[
        "addr",
        "add",
        &local.to_string(),
        "peer",
        &peer.to_string(),
        "dev",
        name,
    ])?;
    Ok(tun)
}

impl RunningEmulator {
    /// The outside (server side, "base") address: MAHIMAHI_BASE.
    pub fn outside_addr(&self) -> Ipv4Addr {
        self.slot
            .as_ref()
            .expect("slot held while running")
            .outside_addr()
    }

    /// The inside (UE) address.
    pub fn inside_addr(&self) -> Ipv4Addr {
        self.slot
            .as_ref()
            .expect("slot held while running")
            .inside_addr()
    }

    /// The TUN devices' names: (outside, inside).
    pub fn ifnames(&self) -> (String, String) {
        let slot = self.slot.as_ref().expect("slot held while running");
        (slot.outside_ifname(), slot.inside_ifname())
    }

    /// The run's address block, e.g. `100.96.0.4/30`.
    pub fn subnet(&self) -> String {
        self.slot
            .as_ref()
            .expect("slot held while running")
            .subnet()
    }

    /// The environment to give programs run for this emulator (on either
    /// side): MAHIMAHI_BASE and C2TCP_BASE (the outside address), C2TCP_UE
    /// (the inside address), and the slot, by which `c2tcp cleanup` finds
    /// processes a killed run left behind.
    pub fn child_env(&self) -> Vec<(&'static str, String)> {
        let base = self.outside_addr().to_string();
        vec![
            ("MAHIMAHI_BASE", base.clone()),
            ("C2TCP_BASE", base),
            ("C2TCP_UE", self.inside_addr().to_string()),
            (
                crate::topology::SLOT_ENV,
                self.slot
                    .as_ref()
                    .expect("slot held while running")
                    .index()
                    .to_string(),
            ),
        ]
    }

    /// Trace time 0, µs of CLOCK_MONOTONIC (the logs' base timestamp × 1000).
    pub fn start_us(&self) -> Micros {
        self.start_us
    }

    /// Live counters (scheduling error only at stop).
    pub fn stats(&self) -> EmulatorStats {
        EmulatorStats {
            downlink: self.counters[0].snapshot(),
            uplink: self.counters[1].snapshot(),
        }
    }

    /// Fails with the first log write error (`writing <path>: <error>`,
    /// e.g. a full disk): a run whose log has a hole cannot be measured,
    /// so its watcher stops it. Cheap; poll it a few times a second.
    pub fn check(&self) -> Result<()> {
        match self.logs.iter().find_map(LogHealth::error) {
            Some(e) => Err(anyhow::anyhow!("{e}")),
            None => Ok(()),
        }
    }

    /// Whether a `once` trace has run out in either direction.
    pub fn trace_ended(&self) -> bool {
        self.counters
            .iter()
            .any(|c| c.trace_ended.load(Ordering::Relaxed))
    }

    /// Stops forwarding, flushes the logs, removes the devices, closes
    /// sockets still aimed at the run's addresses, lifts the guard route and
    /// frees the slot. Returns the final figures.
    pub fn stop(mut self) -> Result<EmulatorStats> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<EmulatorStats> {
        self.stopped = true;
        self.stop.store(true, Ordering::Relaxed);
        let mut stats = self.stats();
        let mut first_err = None;
        for (name, handle) in self.threads.drain(..) {
            let result = handle
                .join()
                .map_err(|_| anyhow::anyhow!("{name} thread panicked"))
                .and_then(|r| r);
            match result {
                Ok(sched) if name == "downlink" => stats.downlink.sched_error = sched,
                Ok(sched) => stats.uplink.sched_error = sched,
                Err(e) => first_err = first_err.or(Some(e.context(format!("emulator {name}")))),
            }
        }
        let final_counts = self.stats();
        stats.downlink = DirectionStats {
            sched_error: stats.downlink.sched_error.take(),
            ..final_counts.downlink
        };
        stats.uplink = DirectionStats {
            sched_error: stats.uplink.sched_error.take(),
            ..final_counts.uplink
        };
        // The threads held our last references to the TUN devices, but a
        // child another thread of this process forks in the meantime holds a
        // copy until its exec closes it (`Netns::command`'s pre_exec forks
        // the whole descriptor table): wait until both devices are gone, so
        // the slot is never handed on while its names are still taken.
        if let Some(slot) = self.slot.take() {
            for (ns, name) in [
                (&self.outside, slot.outside_ifname()),
                (&self.inside, slot.inside_ifname()),
            ] {
                if let Err(e) = wait_until_gone(ns, &name) {
                    first_err = first_err.or(Some(e));
                }
            }
            let subnet = slot.subnet();
            let _ = netns::run_checked(
                self.outside.command("ss").args(["-K", "dst", &subnet]),
                "ss -K",
            );
            if let Err(e) = self.outside.ip(&["route", "del", "unreachable", &subnet]) {
                first_err = first_err.or(Some(e));
            }
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok(stats),
        }
    }
}

impl Drop for RunningEmulator {
    fn drop(&mut self) {
        if !self.stopped {
            let _ = self.shutdown();
        }
    }
}
