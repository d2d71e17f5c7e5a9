// SPDX-License-Identifier: GPL-2.0-only
//! One run of a scenario: a server namespace and a UE namespace, the emulator
//! between them, the flows, and the files that describe what happened.
//!
//! ```text
//!  server netns ──TUN── emulator (this process) ──TUN── UE netns
//!  senders (downlink)   delay → queue → trace link    receivers (downlink)
//! ```
//!
//! Both namespaces are anonymous and have no route to any real interface, so
//! nothing leaves the machine, and they vanish with this process. The run
//! writes into its directory (the names are `results`'): `run.json` (status first `running`, then
//! `done`, `interrupted` or `failed`), the emulator's Mahimahi-format
//! `downlink.log` / `uplink.log`, `flows.json`, `tcpinfo.csv` (per-flow
//! TCP_INFO / C2TCP_INFO samples), `rxctl.csv` (the receiver-side
//! controller's decisions, when a scheme uses one), for NetAssist runs
//! `netassist.json` and `netassist-flow<N>.csv`, and the analysis
//! (`metrics.json`, ...).
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use bpfload::usage::BpfUse;
use emu::{DirectionConfig, Emulator, EmulatorConfig};
use netns::Netns;

use results::{RunId, RunInfo, RunStatus};

use crate::flows::{self, FlowOutcome};
use crate::plan::{CheckedScenario, Needs, Plan, HOST_ECN_SYSCTL};
use crate::run_files::{write_flow_files, write_json, Setup};
use crate::trace_ref::{self, TraceRef};

/// How a run executes, beside its scenario.
#[derive(Clone)]
pub struct RunOptions {
    pub out: PathBuf,
    /// Directory of the scenario file, for relative trace paths.
    pub scenario_dir: Option<PathBuf>,
    /// Seeds the emulator's random loss and PIE.
    pub seed: u64,
    /// TCP_INFO sampling period of the senders.
    pub sample_every: Duration,
    /// Called about once a second with the elapsed and total seconds.
    pub progress: Option<Arc<dyn Fn(f64, f64) + Send + Sync>>,
    /// How run.json names this run (a bench's job's, or a lone run's
    /// from `identity::of_run`).
    pub identity: RunId,
    /// The `c2tcp` binary that runs helper endpoints in the namespaces
    /// (Sprout's `sprout-recv` / `sprout-send`): the caller says which.
    pub helper_exe: PathBuf,
    /// Trace files the run must find with this content (a bench's job,
    /// perhaps listed on another machine); checked before anything starts.
    pub traces: Vec<TraceRef>,
}

impl RunOptions {
    /// `helper_exe`: the `c2tcp` binary for helper endpoints.
    pub fn new(out: &Path, helper_exe: &Path, identity: RunId) -> RunOptions {
        RunOptions {
            out: out.to_path_buf(),
            helper_exe: helper_exe.to_path_buf(),
            scenario_dir: None,
            seed: 1,
            sample_every: Duration::from_millis(100),
            progress: None,
            identity,
            traces: Vec::new(),
        }
    }
}

/// Runs the checked scenario into `opts.out`. Returns Done, or Interrupted
/// when `interrupt` was raised before the end (the partial results are kept
/// and analysed); a failure is recorded in run.json and returned as the
/// error.
pub fn run(
    checked: CheckedScenario,
    opts: &RunOptions,
    interrupt: &AtomicBool,
) -> Result<RunStatus> {
    fs::create_dir_all(&opts.out).with_context(|| format!("creating {}", opts.out.display()))?;
    let mut info = RunInfo::started(opts.identity.clone());
    info.seed = Some(opts.seed);
    info.write(&opts.out)?; // "interrupted" until it finishes

    // Traces named by content (a bench's job) are checked before the plan.
    let verified = trace_ref::verify(checked, &opts.traces);
    let plan = verified.and_then(|c| Plan::resolve(c, opts.scenario_dir.as_deref()));
    let result = plan.and_then(|plan| {
        let sc = plan.scenario();
        let link = &plan.link;
        info.duration_s = Some(sc.link.duration_s);
        info.duration_from_trace = sc.link.duration_from_trace;
        info.write(&opts.out)?;
        let mut setup = Setup {
            scenario: sc,
            seed: opts.seed,
            downlink_trace: link.downlink_name.clone(),
            uplink_trace: link.uplink_name.clone(),
            downlink_queue: plan.checked.downlink_queue().to_string(),
            uplink_queue: plan.checked.uplink_queue().to_string(),
            emulator: None,
            ect1_rewritten: None,
        };
        let r = execute(&plan, opts, interrupt, &mut setup);
        // The run's own error first; setup.json's (a full disk) only if none.
        let written = write_json(&opts.out.join(results::SETUP_JSON), &setup);
        r.and_then(|notes| written.map(|()| notes))
    });
    let result = result.map(|notes| info.notes = notes);
    let interrupted = interrupt.load(Ordering::Relaxed);
    match &result {
        Ok(()) if interrupted => {} // stays "interrupted", partial results kept
        Ok(()) => info.finished(None),
        Err(_) if interrupted => {}
        Err(e) => info.finished(Some(format!("{e:#}"))),
    }
    if interrupted {
        info.error = Some("interrupted before the end; partial results".into());
    }
    // Last, after every other file is whole and synced: `done` means done.
    info.write(&opts.out)?;
    result.map(|()| info.status)
}

/// `interrupt` is the outside world's stop request (Ctrl-C, SIGTERM); the
/// flows have their own flag, raised when the run's time is up or it is
/// interrupted. The steps, in order: the BPF congestion controls held,
/// the namespaces, the emulator, what runs beside the flows (NetAssist, a
/// tunnel, the ECT(1) marker), the flows for the run's time, everything
/// torn down, then the analysis.
fn execute(
    plan: &Plan,
    opts: &RunOptions,
    interrupt: &AtomicBool,
    setup: &mut Setup<'_>,
) -> Result<Vec<String>> {
    let sc = plan.scenario();
    let needs = plan.checked.needs();
    // BPF congestion controls the flows need stay loaded while we run.
    let _bpf = BpfUse::acquire_with(&needs.bpf, &needs.objects)?;
    let (server, ue) = namespaces(&needs)?;
    let emulator = Emulator::start(emulator_config(plan, opts), &server, &ue)?;
    let beside = Beside::start(plan, opts, &needs, &server, &ue, &emulator)?;
    let (outcomes, failure) = run_flows(plan, opts, interrupt, &server, &ue, &emulator, &beside);
    // Everything is torn down whatever happened; the first failure is the
    // one reported.
    let torn = beside.stop(&opts.out);
    let stopped = emulator.stop();
    if let Ok(stats) = &stopped {
        setup.emulator = Some(stats.clone());
    }
    if let Some(e) = failure {
        return Err(e);
    }
    torn.netassist_written.transpose()?;
    setup.ect1_rewritten = torn.ect1_detached.transpose()?;
    let tunnel_reports = torn.tunnel_stopped.transpose()?;
    stopped?;
    write_flow_files(&opts.out, &outcomes)?;
    let analysis = match tunnel_reports {
        None => crate::analysis::analyze(sc, &opts.out, &outcomes)?,
        Some(_) => {
            // The flows inside the tunnel, from its ends' records; the
            // link's own view (the tunnel's datagrams) aside in link/.
            let (down, up) = crate::tunnel::write_logs(&opts.out)?;
            crate::tunnel::analyze_link(sc.link.warmup_s, sc.link.duration_s, &opts.out)?;
            crate::analysis::analyze_logs(sc, &opts.out, &outcomes, &down, &up)?
        }
    };
    if interrupt.load(Ordering::Relaxed) {
        return Ok(Vec::new()); // partial by design; `interrupted` says so
    }
    // Only now may the run call itself done: every flow ran and moved data.
    crate::measured::check(&outcomes, setup.emulator.as_ref(), Some(&analysis))
}

/// The run's two namespaces, the server's and the UE's, with what the
/// flows' schemes set in both: ECN, the receivers' congestion control, a
/// scheme file's sysctls (only ever there: a sysctl that is not
/// per-namespace does not exist inside one).
fn namespaces(needs: &Needs) -> Result<(Netns, Netns)> {
    let server = Netns::new("server")?;
    let ue = Netns::new("ue")?;
    // ECN is per namespace: both ends ask for it.
    if let Some(ecn) = needs.host_ecn {
        for ns in [&server, &ue] {
            ns.sysctl(HOST_ECN_SYSCTL, &ecn.to_string())
                .context("setting net.ipv4.tcp_ecn for the run's ECN-capable scheme")?;
        }
    }
    // Receivers that must run a congestion control (ABC's echo) get it as
    // the namespaces' default; it is loaded for the whole run.
    if let Some(cc) = needs.receiver_cc {
        for ns in [&server, &ue] {
            ns.sysctl("net.ipv4.tcp_congestion_control", cc)
                .with_context(|| format!("making {cc} the receivers' congestion control"))?;
        }
    }
    for (name, value) in &needs.sysctls {
        for ns in [&server, &ue] {
            ns.sysctl(name, value)
                .with_context(|| format!("setting {name} = {value} for the run's scheme"))?;
        }
    }
    Ok((server, ue))
}

/// The emulator's two directions: the plan's traces and queues, the
/// scenario's loss, delay and offset, the logs (and captures) in the run
/// directory.
fn emulator_config(plan: &Plan, opts: &RunOptions) -> EmulatorConfig {
    let (sc, link) = (plan.scenario(), &plan.link);
    let mut down = DirectionConfig::new(link.downlink.clone());
    down.cellreplay = link.downlink_cellreplay.clone();
    down.queue = plan.checked.downlink_queue().clone();
    down.loss = sc.link.downlink_loss().into();
    down.log = Some(opts.out.join(results::DOWNLINK_LOG));
    let mut up = DirectionConfig::new(link.uplink.clone());
    up.cellreplay = link.uplink_cellreplay.clone();
    up.queue = plan.checked.uplink_queue().clone();
    up.loss = sc.link.uplink_loss().into();
    up.log = Some(opts.out.join(results::UPLINK_LOG));
    if sc.link.pcap {
        down.pcap = Some(opts.out.join(results::DOWNLINK_PCAP));
        up.pcap = Some(opts.out.join(results::UPLINK_PCAP));
    }
    let mut cfg = EmulatorConfig::new(down, up);
    cfg.delay_us = (sc.link.delay_ms * 1000.0).round() as u64;
    cfg.trace_offset_ms = (sc.link.trace_offset_s * 1000.0).round() as u64;
    cfg.seed = opts.seed;
    cfg
}

/// What runs beside the flows, each when a flow needs it: NetAssist (its
/// agent and the UE's reporter), a tunnel the flows go through, the ECT(1)
/// marker on the senders' devices.
struct Beside<'a> {
    netassist: Option<netassist::Deployment>,
    tunnel: Option<crate::tunnel::Running>,
    ect1: Option<crate::ect1::Ect1Marker<'a>>,
}

/// How tearing [`Beside`] down went, each part's result kept for the
/// caller to report in its order.
struct Torn {
    netassist_written: Option<Result<()>>,
    tunnel_stopped: Option<Result<crate::tunnel::Reports>>,
    ect1_detached: Option<Result<u64>>,
}

impl<'a> Beside<'a> {
    fn start(
        plan: &Plan,
        opts: &RunOptions,
        needs: &Needs,
        server: &'a Netns,
        ue: &'a Netns,
        emulator: &emu::RunningEmulator,
    ) -> Result<Beside<'a>> {
        let sc = plan.scenario();
        // NATCP/NACubic flows need NetAssist, its agent and the UE's reporter.
        let netassist = match plan.checked.netassist() {
            Some(na_opts) if needs.netassist => {
                let model = netassist::LinkModel {
                    downlink: &plan.link.downlink,
                    uplink: &plan.link.uplink,
                    trace_offset_ms: (sc.link.trace_offset_s * 1000.0).round() as u64,
                    once: false,
                    delay_us: (sc.link.delay_ms * 1000.0).round() as u64,
                    start_us: emulator.start_us(),
                };
                Some(
                    netassist::Deployment::start(
                        server,
                        ue,
                        emulator.inside_addr(),
                        &model,
                        na_opts,
                    )
                    .context("starting NetAssist")?,
                )
            }
            None if needs.netassist => {
                anyhow::bail!("a NetAssisted flow without NetAssist settings")
            }
            _ => None,
        };
        // A scenario's flows through a tunnel: its two ends around the link,
        // the flows addressed to the tunnel's ends instead of the link's.
        let tunnel = match &sc.tunnel {
            None => None,
            Some(t) => Some(
                crate::tunnel::start(
                    t,
                    server,
                    ue,
                    emulator.outside_addr(),
                    emulator.inside_addr(),
                    &opts.helper_exe,
                    &opts.out,
                )
                .context("starting the tunnel")?,
            ),
        };
        // ECT(1) on the wire for the flows that send it (Prague's), set by a
        // tc program on each sender's device.
        let ect1 = ect1_marker(plan, server, ue, emulator)?;
        Ok(Beside {
            netassist,
            tunnel,
            ect1,
        })
    }

    /// Stops each, whatever the others' results.
    fn stop(self, out: &Path) -> Torn {
        Torn {
            netassist_written: self.netassist.map(|na| {
                na.stop()
                    .and_then(|s| write_json(&out.join(results::NETASSIST_JSON), &s))
            }),
            tunnel_stopped: self.tunnel.map(|t| t.stop()),
            ect1_detached: self.ect1.map(|m| m.detach()),
        }
    }
}

/// Runs the flows, each from its start time, until the run's end (or an
/// interrupt, or a failure: a flow that would not start, the emulator's
/// log failing to write), then stops them and collects what they saw. The
/// UE's receiver-side controller, when a flow needs it, lives as long.
fn run_flows(
    plan: &Plan,
    opts: &RunOptions,
    interrupt: &AtomicBool,
    server: &Netns,
    ue: &Netns,
    emulator: &emu::RunningEmulator,
    beside: &Beside<'_>,
) -> (Vec<FlowOutcome>, Option<anyhow::Error>) {
    let sc = plan.scenario();
    let (server_addr, ue_addr) = beside
        .tunnel
        .as_ref()
        .map_or((emulator.outside_addr(), emulator.inside_addr()), |t| {
            t.addrs()
        });
    let run_start = Instant::now();
    if let Some(na) = &beside.netassist {
        na.set_origin(emu::clock::now_us());
    }
    let run_end = run_start + Duration::from_secs_f64(sc.link.duration_s);
    // Receiver-side control: one controller for the UE, created in its
    // namespace (it checks the namespace's tcp_shrink_window) before any
    // flow starts; its records line up with the run's time axis.
    let rxctl = match plan.checked.receiver_rule() {
        Some(rule) => {
            let mut cfg = rxctl::Config::new(rule);
            cfg.epoch = run_start;
            cfg.rtt_source = plan.checked.receiver_rtt();
            match ue.run(move || rxctl::Controller::spawn(cfg)) {
                Ok(Ok(c)) => Some(Arc::new(c)),
                Ok(Err(e)) | Err(e) => return (Vec::new(), Some(e)),
            }
        }
        None => None,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let ctx = flows::RunCtx {
        server,
        ue,
        server_addr,
        ue_addr,
        run_start,
        run_end,
        stop: stop.clone(),
        out: &opts.out,
        helper_exe: &opts.helper_exe,
        sample_every: opts.sample_every,
        rxctl: rxctl.clone(),
    };
    let (running, mut failure) = start_flows(&ctx, plan, interrupt);
    if failure.is_none() {
        failure = wait_until(
            run_end,
            interrupt,
            run_start,
            sc.link.duration_s,
            opts.progress.as_deref(),
            &|| emulator.check(),
        )
        .err();
    }
    // Time is up (or we were stopped): endpoints see the stop flag.
    stop.store(true, Ordering::Relaxed);
    let mut outcomes: Vec<FlowOutcome> = running
        .into_iter()
        .map(|mut f| {
            if failure.is_some() {
                f.abort();
            }
            f.finish()
        })
        .collect();
    outcomes.sort_by_key(|o| o.index);
    if let Some(ctl) = rxctl {
        // Every receiver has ended: stop() lets go of what is left.
        let written = rxctl::write_csv_file(&ctl.stop(), &opts.out.join(results::RXCTL_CSV));
        if let Err(e) = written {
            failure.get_or_insert(e);
        }
    }
    (outcomes, failure)
}

/// Starts the flows in order of their start times (iperf3 waits for its
/// own), until one fails to start or the run is interrupted.
fn start_flows(
    ctx: &flows::RunCtx<'_>,
    plan: &Plan,
    interrupt: &AtomicBool,
) -> (Vec<Box<dyn flows::RunningFlow>>, Option<anyhow::Error>) {
    let sc = plan.scenario();
    let mut order: Vec<usize> = (0..sc.flows.len()).collect();
    order.sort_by(|a, b| sc.flows[*a].start_s.total_cmp(&sc.flows[*b].start_s));
    let mut running = Vec::new();
    for i in order {
        if interrupt.load(Ordering::Relaxed) {
            break;
        }
        match flows::start(ctx, i, &sc.flows[i], &plan.checked.flows()[i]) {
            Ok(f) => running.push(f),
            Err(e) => {
                let e = e.context(format!("starting flow {i} ({})", sc.flows[i].scheme));
                return (running, Some(e));
            }
        }
    }
    (running, None)
}

/// The ECT(1) tc program on the sender's device of every flow whose scheme
/// sends ECT(1) (their destination ports), or None when no flow does.
fn ect1_marker<'a>(
    plan: &Plan,
    server: &'a Netns,
    ue: &'a Netns,
    emulator: &emu::RunningEmulator,
) -> Result<Option<crate::ect1::Ect1Marker<'a>>> {
    use crate::ect1::{Ect1Marker, SenderSide};
    use crate::scenario::Direction;
    let sc = plan.scenario();
    let (outside, inside) = emulator.ifnames();
    let mut down = SenderSide {
        ns: server,
        ifname: outside,
        ports: Vec::new(),
    };
    let mut up = SenderSide {
        ns: ue,
        ifname: inside,
        ports: Vec::new(),
    };
    for (i, (flow, setup)) in sc.flows.iter().zip(plan.checked.flows()).enumerate() {
        if !setup.scheme.sends_ect1() {
            continue;
        }
        if sc.tunnel.is_some() {
            anyhow::bail!(
                "flows[{i}]: `{}` sends ECT(1), which a tunnel's datagrams would not carry",
                flow.scheme
            );
        }
        let port = flows::BASE_PORT + i as u16;
        match flow.direction {
            Direction::Downlink => down.ports.push(port),
            Direction::Uplink => up.ports.push(port),
        }
    }
    let sides: Vec<SenderSide> = [down, up]
        .into_iter()
        .filter(|s| !s.ports.is_empty())
        .collect();
    if sides.is_empty() {
        return Ok(None);
    }
    Ok(Some(
        Ect1Marker::attach(sides).context("setting ECT(1) on Prague's flows")?,
    ))
}

/// Sleeps until `end`, waking at least every 200 ms for `interrupt`, to
/// report progress and to `check` the run's health (its error ends the
/// wait and the run).
fn wait_until(
    end: Instant,
    interrupt: &AtomicBool,
    start: Instant,
    total: f64,
    progress: Option<&(dyn Fn(f64, f64) + Send + Sync)>,
    check: &dyn Fn() -> Result<()>,
) -> Result<()> {
    while !interrupt.load(Ordering::Relaxed) {
        check()?;
        let now = Instant::now();
        if now >= end {
            break;
        }
        if let Some(p) = progress {
            p(now.duration_since(start).as_secs_f64(), total);
        }
        std::thread::sleep((end - now).min(Duration::from_millis(200)));
    }
    if let Some(p) = progress {
        p(total.min(start.elapsed().as_secs_f64()), total);
    }
    Ok(())
}
