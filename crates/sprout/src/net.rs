// SPDX-License-Identifier: GPL-2.0-only
//! The two programs on real UDP sockets: a saturating sender and a receiver.
//! Each runs one flow on one socket, in one thread, sleeping in `ppoll` until
//! a datagram arrives or its logic's next deadline; both stop on a flag (set
//! from SIGINT/SIGTERM by [`install_stop_signals`]) and return a report.
//! The reports' types are also how they are read back (the harness parses
//! the JSON files into them), so a renamed field does not read as 0.
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use hdrhistogram::Histogram;
use plumbing::PollFlags;
use serde::{Deserialize, Serialize};

use crate::receiver::{Receiver, ReceiverConfig, ReceiverCounters};
use crate::sender::{Sender, SenderConfig, SenderCounters};
use crate::wire::{self, DropCounts, Packet};
use crate::Variant;

/// CLOCK_MONOTONIC in µs: one clock for every process on the machine (and in
/// every network namespace), so the receiver can compute one-way delays.
pub fn monotonic_us() -> u64 {
    plumbing::clock::monotonic_us()
}

/// CPU time of the calling thread, ns.
fn thread_cpu_ns() -> u64 {
    plumbing::clock::thread_cpu_ns()
}

/// Makes SIGINT and SIGTERM set the returned flag (and interrupt `ppoll`)
/// instead of killing the process, so the programs can write their report.
pub fn install_stop_signals() -> Result<&'static AtomicBool> {
    use plumbing::signals::{catch, Restart};
    use plumbing::Signal;
    catch(&[Signal::SIGINT, Signal::SIGTERM], Restart::No).context("installing the stop-signal handlers")
}

/// Waits until `fd` is ready for `events` or `deadline_us` passes (or a signal).
fn wait(sock: &UdpSocket, events: PollFlags, deadline_us: u64) {
    // EINTR (a stop signal) and timeouts both just return to the loop.
    plumbing::wait::sleep_until_us(sock, events, deadline_us);
}

/// Sends one datagram, waiting for socket buffer space if needed.
fn send(sock: &UdpSocket, buf: &[u8], to: Option<SocketAddr>) -> std::io::Result<()> {
    for _ in 0..100 {
        let r = match to {
            Some(a) => sock.send_to(buf, a),
            None => sock.send(buf),
        };
        match r {
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                wait(sock, PollFlags::POLLOUT, monotonic_us() + 10_000)
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(
        ErrorKind::WouldBlock,
        "socket buffer stayed full for a second",
    ))
}

/// A sender's flight can be 5 ticks of forecast at once (hundreds of
/// packets); on a fast path it lands faster than one wake-up, so give the
/// socket room for it (past rmem_max when we may).
fn grow_receive_buffer(sock: &UdpSocket) {
    use nix::sys::socket::{setsockopt, sockopt};
    const WANT: usize = 8 << 20;
    if setsockopt(sock, sockopt::RcvBufForce, &WANT).is_err() {
        let _ = setsockopt(sock, sockopt::RcvBuf, &WANT);
    }
}

/// Which end wrote a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Receiver,
    Sender,
}

/// Why an endpoint stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EndedBy {
    /// The sender said bye (receiver only).
    Bye,
    /// SIGINT or SIGTERM.
    Signal,
    /// The given duration passed.
    Duration,
    /// Nothing arrived for the idle timeout (receiver only).
    Idle,
}

impl EndedBy {
    /// The word the report says.
    pub fn name(self) -> &'static str {
        match self {
            EndedBy::Bye => "bye",
            EndedBy::Signal => "signal",
            EndedBy::Duration => "duration",
            EndedBy::Idle => "idle",
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CpuPerTick {
    pub ticks: u64,
    pub mean_ns: f64,
    pub p99_ns: u64,
    pub max_ns: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DelayMs {
    pub samples: u64,
    pub mean: f64,
    pub p95: f64,
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
    let sock =
        UdpSocket::bind(opts.listen).with_context(|| format!("binding UDP {}", opts.listen))?;
    sock.set_nonblocking(true)?;
    grow_receive_buffer(&sock);
    let listen = sock.local_addr()?;
    let mut cpu = Histogram::<u64>::new_with_bounds(1, 10_000_000_000, 3)?;
    let mut cpu_sum = 0u64;
    let mut delay = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3)?;
    let mut buf = vec![0u8; wire::MAX_DATAGRAM + 1];
    let mut fbuf = [0u8; wire::FEEDBACK_HEADER + 8 * crate::MAX_HORIZON];
    let mut peer: Option<SocketAddr> = None;
    let (mut feedback_sent, mut send_errors) = (0u64, 0u64);
    let start = monotonic_us();
    let end = opts.duration.map(|d| start + d.as_micros() as u64);
    let idle_us = opts.idle_timeout.as_micros() as u64;
    let mut last_rx: Option<u64> = None;
    let mut first_rx: Option<u64> = None;
    let ended_by = loop {
        let now = monotonic_us();
        if stop.load(Ordering::SeqCst) {
            break EndedBy::Signal;
        }
        if end.is_some_and(|e| now >= e) {
            break EndedBy::Duration;
        }
        if r.bye().is_some() {
            break EndedBy::Bye;
        }
        if last_rx.is_some_and(|t| now >= t + idle_us) {
            break EndedBy::Idle;
        }
        loop {
            match sock.recv_from(&mut buf) {
                Ok((n, from)) => {
                    let now = monotonic_us();
                    if let Ok(Some(d)) = r.on_datagram(now, &buf[..n]) {
                        peer.get_or_insert(from);
                        last_rx = Some(now);
                        first_rx.get_or_insert(now);
                        if !d.heartbeat {
                            let _ = delay.record(now.saturating_sub(d.send_time_us).max(1));
                        }
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                // ICMP errors from earlier sends, signals: keep going.
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::ConnectionRefused | ErrorKind::Interrupted
                    ) => {}
                Err(e) => return Err(e).context("receiving"),
            }
        }
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
            match send(&sock, &fbuf[..n], Some(to)) {
                Ok(()) => feedback_sent += 1,
                Err(_) => send_errors += 1,
            }
        }
        let mut deadline = monotonic_us() + 100_000;
        if let Some(t) = r.next_tick_us() {
            deadline = deadline.min(t);
        }
        if let Some(e) = end {
            deadline = deadline.min(e);
        }
        if let Some(t) = last_rx {
            deadline = deadline.min(t + idle_us);
        }
        wait(&sock, PollFlags::POLLIN, deadline);
    };
    // Goodput over the flow's life (first to last arrival), not our uptime.
    let flow_s = match (first_rx, last_rx) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e6,
        _ => 0.0,
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
        duration_s: (monotonic_us() - start) as f64 / 1e6,
        ended_by,
        bytes_received: c.bytes_received,
        goodput_mbps: if flow_s > 0.0 {
            c.bytes_received as f64 * 8.0 / flow_s / 1e6
        } else {
            0.0
        },
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
        one_way_delay_ms: DelayMs {
            samples: delay.len(),
            mean: delay.mean() / 1e3,
            p95: delay.value_at_quantile(0.95) as f64 / 1e3,
        },
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

/// A random-enough session number: it only tells flows apart.
pub fn new_session() -> u32 {
    let t = monotonic_us();
    (std::process::id().rotate_left(16) ^ (t as u32) ^ ((t >> 32) as u32)).max(1)
}

/// Sends as fast as the forecast allows for `duration`, then says bye.
pub fn run_sender(opts: SenderOpts, stop: &AtomicBool) -> Result<SenderReport> {
    let bind = opts.bind.unwrap_or_else(|| {
        if opts.connect.is_ipv4() {
            "0.0.0.0:0".parse().unwrap()
        } else {
            "[::]:0".parse().unwrap()
        }
    });
    let sock = UdpSocket::bind(bind).with_context(|| format!("binding UDP {bind}"))?;
    sock.connect(opts.connect)
        .with_context(|| format!("connecting UDP to {}", opts.connect))?;
    sock.set_nonblocking(true)?;
    let local = sock.local_addr()?;
    let mut s = Sender::new(opts.config.clone());
    let mut buf = vec![0u8; wire::MAX_DATAGRAM + 1];
    let mut dropped = DropCounts::default();
    let (mut unexpected, mut send_errors) = (0u64, 0u64);
    let start = monotonic_us();
    let end = start + opts.duration.as_micros() as u64;
    let mut out = vec![0u8; opts.config.packet_size.max(wire::BYE_LEN)];
    let ended_by = loop {
        if stop.load(Ordering::SeqCst) {
            break EndedBy::Signal;
        }
        if monotonic_us() >= end {
            break EndedBy::Duration;
        }
        loop {
            match sock.recv(&mut buf) {
                Ok(n) => match wire::parse(&buf[..n]) {
                    Ok(Packet::Feedback(fb)) => {
                        s.on_feedback(monotonic_us(), &fb);
                    }
                    Ok(_) => unexpected += 1,
                    Err(e) => dropped.record(&e),
                },
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                // The receiver is not up yet (ICMP port unreachable): heartbeats go on.
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::ConnectionRefused | ErrorKind::Interrupted
                    ) => {}
                Err(e) => return Err(e).context("receiving"),
            }
        }
        let now = monotonic_us();
        while let Some(n) = s.poll_transmit(now, &mut out) {
            if send(&sock, &out[..n], None).is_err() {
                send_errors += 1;
            }
        }
        let deadline = s.next_event_us(monotonic_us()).min(end);
        wait(&sock, PollFlags::POLLIN, deadline);
    };
    let duration_s = (monotonic_us() - start) as f64 / 1e6;
    // Three byes: one may be lost; the receiver also stops when idle.
    let n = s.write_bye(&mut out);
    for _ in 0..3 {
        let _ = send(&sock, &out[..n], None);
    }
    let c = s.counters.clone();
    Ok(SenderReport {
        role: Role::Sender,
        variant: opts.variant,
        connect: opts.connect.to_string(),
        local: local.to_string(),
        session: opts.config.session,
        packet_size: opts.config.packet_size,
        rtt_lookahead: opts.config.rtt_lookahead,
        min_rtt_ms: s.min_rtt_us() as f64 / 1000.0,
        duration_s,
        ended_by,
        bytes_sent: s.bytes_sent(),
        packets_sent: s.packets_sent(),
        bytes_delivered: c.received_bytes,
        throughput_mbps: c.received_bytes as f64 * 8.0 / duration_s.max(1e-9) / 1e6,
        malformed_dropped: dropped.total(),
        dropped,
        unexpected_kind: unexpected,
        send_errors,
        counters: c,
    })
}
