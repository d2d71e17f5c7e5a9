// SPDX-License-Identifier: GPL-2.0-only
//! The two programs on real UDP sockets: a saturating sender and a receiver.
//! Each runs one flow on one socket, in one thread, sleeping in `ppoll` until
//! a datagram arrives or its logic's next deadline; both stop on a flag (set
//! from SIGINT/SIGTERM by [`install_stop_signals`]) and return a report.
//! The reports' types are also how they are read back (the harness parses
//! the JSON files into them), so a renamed field does not read as 0.
//!
//! The socket plumbing, the stop signals, the receiver's life and the
//! report's shared words are `udpflow::endpoint`'s, and the sender's loop
//! `udpflow::sender`'s, as Verus's are.
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::Result;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use udpflow::endpoint::{
    bind_receiver, connect_sender, drain_from, mbps, send_retrying, wait, ReceiverLife,
};
use udpflow::sender::{self, SenderLogic, WhenFull};
use udpflow::PollFlags;

pub use udpflow::endpoint::{
    install_stop_signals, monotonic_us, new_session, DelayMs, EndedBy, Role,
};

use crate::receiver::{Receiver, ReceiverConfig, ReceiverCounters};
use crate::sender::{Sender, SenderConfig, SenderCounters};
use crate::wire::{self, DropCounts, Packet};
use crate::Variant;

/// CPU time of the calling thread, ns.
fn thread_cpu_ns() -> u64 {
    plumbing::clock::thread_cpu_ns()
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CpuPerTick {
    pub ticks: u64,
    pub mean_ns: f64,
    pub p99_ns: u64,
    pub max_ns: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReceiverReport {
    pub role: Role,
    pub variant: Variant,
    pub confidence_percent: f64,
    pub max_rate_pps: f64,
    pub bins: usize,
    pub packet_size: usize,
    pub listen: String,
    pub peer: Option<String>,
    pub duration_s: f64,
    /// bye | signal | duration | idle
    pub ended_by: EndedBy,
    pub bytes_received: u64,
    pub goodput_mbps: f64,
    pub packets_received: u64,
    pub packets_lost: u64,
    /// Every datagram dropped as not parseable (breakdown in `counters.dropped`).
    pub malformed_dropped: u64,
    pub feedback_sent: u64,
    pub send_errors: u64,
    /// Time to build the estimator's tables.
    pub startup_ms: f64,
    /// Thread CPU time per tick of evolve + observe + forecast.
    pub inference_cpu_per_tick: CpuPerTick,
    /// Send-to-receive delay of data packets (sender's stamp vs our clock:
    /// meaningful because both ends share the machine's monotonic clock).
    pub one_way_delay_ms: DelayMs,
    pub final_rate_estimate_pps: f64,
    pub counters: ReceiverCounters,
}

pub struct ReceiverOpts {
    pub listen: SocketAddr,
    pub config: ReceiverConfig,
    /// Stop after this long (None: until bye, signal or idle).
    pub duration: Option<Duration>,
    /// Stop when nothing arrived for this long after the flow started.
    pub idle_timeout: Duration,
}

/// Serves one flow: binds `listen`, answers the first sender's data with a
/// forecast every tick, returns when the sender says bye, a signal arrives,
/// the duration passes or the flow goes idle.
pub fn run_receiver(opts: ReceiverOpts, stop: &AtomicBool) -> Result<ReceiverReport> {
    // Tables first: once the port is bound (what a launcher waits for), the
    // receiver is ready to answer.
    let t0 = std::time::Instant::now();
    let mut r = Receiver::new(opts.config.clone()).map_err(anyhow::Error::msg)?;
    let startup_ms = t0.elapsed().as_secs_f64() * 1e3;
    let sock = bind_receiver(opts.listen)?;
    let listen = sock.local_addr()?;
    let mut cpu = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 3)?;
    let mut cpu_sum = 0u64;
    let mut delay = DelayMs::histogram()?;
    let mut buf = vec![0u8; wire::MAX_DATAGRAM + 1];
    let mut fbuf = [0u8; wire::FEEDBACK_HEADER + 8 * crate::MAX_HORIZON];
    let mut peer: Option<SocketAddr> = None;
    let (mut feedback_sent, mut send_errors) = (0u64, 0u64);
    let mut life = ReceiverLife::start(opts.duration, opts.idle_timeout);
    let ended_by = loop {
        if let Some(why) = life.ended(monotonic_us(), stop, r.bye().is_some()) {
            break why;
        }
        // ICMP errors from earlier sends, signals: keep going.
        drain_from(&sock, &mut buf, |bytes, from| {
            let now = monotonic_us();
            if let Ok(Some(d)) = r.on_datagram(now, bytes) {
                peer.get_or_insert(from);
                life.arrived(now);
                if !d.heartbeat {
                    DelayMs::record(&mut delay, now, d.send_time_us);
                }
            }
        })?;
        let mut feedback = None;
        loop {
            let c0 = thread_cpu_ns();
            let fb = r.poll_tick(monotonic_us());
            let c1 = thread_cpu_ns();
            let Some(fb) = fb else { break };
            let ns = (c1 - c0).max(1);
            cpu_sum += ns;
            let _ = cpu.record(ns);
            feedback = Some(fb);
        }
        if let (Some(fb), Some(to)) = (feedback, peer) {
            let n = wire::write_feedback(&fb, &mut fbuf);
            match send_retrying(&sock, &fbuf[..n], Some(to)) {
                Ok(()) => feedback_sent += 1,
                Err(_) => send_errors += 1,
            }
        }
        wait(&sock, PollFlags::POLLIN, life.deadline(r.next_tick_us()));
    };
    let c = r.counters.clone();
    let cfg = r.config();
    Ok(ReceiverReport {
        role: Role::Receiver,
        variant: cfg.variant,
        confidence_percent: cfg.confidence * 100.0,
        max_rate_pps: cfg.params.max_rate_pps,
        bins: cfg.params.bins,
        packet_size: cfg.packet_size,
        listen: listen.to_string(),
        peer: peer.map(|p| p.to_string()),
        duration_s: life.uptime_s(),
        ended_by,
        bytes_received: c.bytes_received,
        goodput_mbps: life.goodput_mbps(c.bytes_received),
        packets_received: c.data_packets + c.heartbeats,
        packets_lost: r.packets_lost(),
        malformed_dropped: c.dropped.total(),
        feedback_sent,
        send_errors,
        startup_ms,
        inference_cpu_per_tick: CpuPerTick {
            ticks: cpu.len(),
            mean_ns: if cpu.is_empty() {
                0.0
            } else {
                cpu_sum as f64 / cpu.len() as f64
            },
            p99_ns: cpu.value_at_quantile(0.99),
            max_ns: cpu.max(),
        },
        one_way_delay_ms: DelayMs::of(&delay),
        final_rate_estimate_pps: r.rate_estimate_pps(),
        counters: c,
    })
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SenderReport {
    pub role: Role,
    /// Label only: the sender is the same for both variants.
    pub variant: Variant,
    pub connect: String,
    pub local: String,
    pub session: u32,
    pub packet_size: usize,
    /// The window looked one minimum RTT past 100 ms of forecast (false: the
    /// paper's window), and that minimum RTT (0: never sampled).
    pub rtt_lookahead: bool,
    /// The queue estimate's drain: the paper's or the authors' code's.
    #[serde(default)]
    pub drain: crate::sender::Drain,
    pub min_rtt_ms: f64,
    pub duration_s: f64,
    /// signal | duration
    pub ended_by: EndedBy,
    pub bytes_sent: u64,
    pub packets_sent: u64,
    /// Bytes the receiver reported received in its latest feedback.
    pub bytes_delivered: u64,
    pub throughput_mbps: f64,
    pub malformed_dropped: u64,
    pub dropped: DropCounts,
    pub unexpected_kind: u64,
    pub send_errors: u64,
    pub counters: SenderCounters,
}

pub struct SenderOpts {
    pub connect: SocketAddr,
    /// Local address (e.g. a fixed port for the emulator's 5-tuple).
    pub bind: Option<SocketAddr>,
    pub config: SenderConfig,
    pub variant: Variant,
    pub duration: Duration,
}

/// Sends as fast as the forecast allows for `duration`, then says bye.
pub fn run_sender(opts: SenderOpts, stop: &AtomicBool) -> Result<SenderReport> {
    let sock = connect_sender(opts.connect, opts.bind)?;
    let local = sock.local_addr()?;
    let mut s = Sender::new(opts.config.clone());
    let run = sender::run(&sock, &mut s, opts.duration, opts.config.packet_size, stop)?;
    let c = s.counters.clone();
    Ok(SenderReport {
        role: Role::Sender,
        variant: opts.variant,
        connect: opts.connect.to_string(),
        local: local.to_string(),
        session: opts.config.session,
        packet_size: opts.config.packet_size,
        rtt_lookahead: opts.config.rtt_lookahead,
        drain: opts.config.drain,
        min_rtt_ms: s.min_rtt_us() as f64 / 1000.0,
        duration_s: run.duration_s,
        ended_by: run.ended_by,
        bytes_sent: s.bytes_sent(),
        packets_sent: s.packets_sent(),
        bytes_delivered: c.received_bytes,
        throughput_mbps: mbps(c.received_bytes, run.duration_s),
        malformed_dropped: run.dropped.total(),
        dropped: run.dropped,
        unexpected_kind: run.unexpected,
        send_errors: run.send_errors,
        counters: c,
    })
}

/// The sender's logic in udpflow's loop: it reads the receiver's forecasts,
/// and a datagram the socket cannot take now waits for room (the forecast
/// decided it; the heartbeats go on while the receiver is not up).
impl SenderLogic for Sender {
    type Protocol = wire::Format;
    const WHEN_FULL: WhenFull = WhenFull::Retry;

    fn on_datagram(&mut self, now_us: u64, bytes: &[u8]) -> Result<bool, wire::WireError> {
        match wire::parse(bytes)? {
            Packet::Feedback(fb) => {
                self.on_feedback(now_us, &fb);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn poll_transmit(&mut self, now_us: u64, out: &mut [u8]) -> Option<usize> {
        Sender::poll_transmit(self, now_us, out)
    }

    fn next_event_us(&self, now_us: u64) -> u64 {
        Sender::next_event_us(self, now_us)
    }

    fn write_bye(&self, out: &mut [u8]) -> usize {
        Sender::write_bye(self, out)
    }
}
