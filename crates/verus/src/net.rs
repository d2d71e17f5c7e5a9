// SPDX-License-Identifier: GPL-2.0-only
//! Verus on real UDP sockets: the programs behind `c2tcp verus-send` and
//! `c2tcp verus-recv`. Each runs one flow on one non-blocking socket in one
//! thread, sleeping in `ppoll` until a datagram arrives or the protocol
//! logic's next deadline (the sender's 5-ms epochs), and ends with a JSON
//! report.
//!
//! Unlike the authors' client, which greets the server and is then sent to,
//! our sender speaks first (the runner's flows start at the sender); the
//! receiver acks whoever sent the first data packet.
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use hdrhistogram::Histogram;
use nix::poll::PollFlags;
use serde::{Deserialize, Serialize};

use crate::receiver::{Receiver, ReceiverCounters};
use crate::sender::{Sender, SenderConfig, SenderCounters};
use crate::wire::{self, DropCounts, Packet};

/// CLOCK_MONOTONIC in µs: one clock for every process on the machine (and in
/// every network namespace), so the receiver can compute one-way delays.
pub fn monotonic_us() -> u64 {
    plumbing::clock::monotonic_us()
}

/// Makes SIGINT and SIGTERM set the returned flag (and interrupt `ppoll`)
/// instead of killing the process, so the programs can write their report.
pub fn install_stop_signals() -> Result<&'static AtomicBool> {
    use plumbing::signals::{catch, Restart};
    use plumbing::Signal;
    catch(&[Signal::SIGINT, Signal::SIGTERM], Restart::No)
        .context("installing the stop-signal handlers")
}

/// Waits until the socket is ready for `events` or `deadline_us` passes (or a signal).
fn wait(sock: &UdpSocket, events: PollFlags, deadline_us: u64) {
    plumbing::wait::sleep_until_us(sock, events, deadline_us);
}

/// A flight can land faster than one wake-up: give the socket room for it
/// (past rmem_max when we may).
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
pub struct DelayMs {
    pub samples: u64,
    pub mean: f64,
    pub p95: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReceiverReport {
    pub role: Role,
    pub listen: String,
    pub peer: Option<String>,
    pub duration_s: f64,
    /// bye | signal | duration | idle
    pub ended_by: EndedBy,
    pub bytes_received: u64,
    pub goodput_mbps: f64,
    pub packets_received: u64,
    /// Every datagram dropped as not parseable (breakdown in `counters.dropped`).
    pub malformed_dropped: u64,
    pub acks_sent: u64,
    pub send_errors: u64,
    /// Send-to-receive delay of data packets (sender's stamp vs our clock:
    /// meaningful because both ends share the machine's monotonic clock).
    pub one_way_delay_ms: DelayMs,
    /// The sender's totals from its bye (None: no bye arrived).
    pub sender_packets_sent: Option<u64>,
    pub counters: ReceiverCounters,
}

pub struct ReceiverOpts {
    pub listen: SocketAddr,
    /// Stop after this long (None: until bye, signal or idle).
    pub duration: Option<Duration>,
    /// Stop when nothing arrived for this long after the flow started.
    pub idle_timeout: Duration,
}

/// Serves one flow: binds `listen`, acks every data packet of the first
/// sender, returns when the sender says bye, a signal arrives, the duration
/// passes or the flow goes idle.
pub fn run_receiver(opts: ReceiverOpts, stop: &AtomicBool) -> Result<ReceiverReport> {
    let sock =
        UdpSocket::bind(opts.listen).with_context(|| format!("binding UDP {}", opts.listen))?;
    sock.set_nonblocking(true)?;
    grow_receive_buffer(&sock);
    let listen = sock.local_addr()?;
    let mut r = Receiver::new();
    let mut delay = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3)?;
    let mut buf = vec![0u8; wire::MAX_DATAGRAM + 1];
    let mut abuf = [0u8; wire::ACK_LEN];
    let mut peer: Option<SocketAddr> = None;
    let (mut acks_sent, mut send_errors) = (0u64, 0u64);
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
                    let Some((d, len)) = r.on_datagram(&buf[..n], &mut abuf) else {
                        continue;
                    };
                    let to = *peer.get_or_insert(from);
                    last_rx = Some(now);
                    first_rx.get_or_insert(now);
                    let _ = delay.record(now.saturating_sub(d.stamp.send_time_us).max(1));
                    // An ack the socket cannot take now is a lost ack: the
                    // sender's loss detection handles it as the network's.
                    match sock.send_to(&abuf[..len], to) {
                        Ok(_) => acks_sent += 1,
                        Err(_) => send_errors += 1,
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
        let mut deadline = monotonic_us() + 100_000;
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
    Ok(ReceiverReport {
        role: Role::Receiver,
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
        packets_received: c.data_packets,
        malformed_dropped: c.dropped.total(),
        acks_sent,
        send_errors,
        one_way_delay_ms: DelayMs {
            samples: delay.len(),
            mean: delay.mean() / 1e3,
            p95: delay.value_at_quantile(0.95) as f64 / 1e3,
        },
        sender_packets_sent: r.bye().map(|b| b.packets_sent),
        counters: c,
    })
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SenderReport {
    pub role: Role,
    pub connect: String,
    pub local: String,
    pub session: u32,
    pub packet_size: usize,
    pub duration_s: f64,
    /// signal | duration
    pub ended_by: EndedBy,
    pub bytes_sent: u64,
    pub packets_sent: u64,
    /// Bytes the receiver reported received in its latest ack.
    pub bytes_delivered: u64,
    pub throughput_mbps: f64,
    /// The smallest round trip seen and the final target delay, ms.
    pub min_rtt_ms: f64,
    pub final_target_delay_ms: f64,
    pub final_window: f64,
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
    pub duration: Duration,
}

/// A random-enough session number: it only tells flows apart.
pub fn new_session() -> u32 {
    let t = monotonic_us();
    (std::process::id().rotate_left(16) ^ (t as u32) ^ ((t >> 32) as u32)).max(1)
}

/// Sends as the Verus window allows for `duration`, then says bye.
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
    grow_receive_buffer(&sock);
    let local = sock.local_addr()?;
    let mut s = Sender::new(opts.config.clone());
    let mut buf = vec![0u8; wire::MAX_DATAGRAM + 1];
    // Only headers are written into it: the padding stays zero.
    let mut out = vec![0u8; opts.config.packet_size.max(wire::BYE_LEN)];
    let mut dropped = DropCounts::default();
    let (mut unexpected, mut send_errors) = (0u64, 0u64);
    let start = monotonic_us();
    let end = start + opts.duration.as_micros() as u64;
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
                    Ok(Packet::Ack(a)) => {
                        s.on_ack(monotonic_us(), &a);
                    }
                    Ok(_) => unexpected += 1,
                    Err(e) => dropped.record(&e),
                },
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                // The receiver is not up yet (ICMP port unreachable): the
                // timeout restarts slow start.
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::ConnectionRefused | ErrorKind::Interrupted
                    ) => {}
                Err(e) => return Err(e).context("receiving"),
            }
        }
        let now = monotonic_us();
        s.poll(now);
        while let Some(n) = s.poll_transmit(now, &mut out) {
            match sock.send(&out[..n]) {
                Ok(_) => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    s.transmit_refused(now);
                    break;
                }
                // Sent as far as Verus knows; the network lost it.
                Err(_) => send_errors += 1,
            }
        }
        let deadline = s.next_event_us().min(end);
        wait(&sock, PollFlags::POLLIN, deadline);
    };
    let duration_s = (monotonic_us() - start) as f64 / 1e6;
    // Three byes: one may be lost; the receiver also stops when idle.
    let n = s.write_bye(&mut out);
    for _ in 0..3 {
        let _ = sock.send(&out[..n]);
    }
    let c = s.counters.clone();
    Ok(SenderReport {
        role: Role::Sender,
        connect: opts.connect.to_string(),
        local: local.to_string(),
        session: opts.config.session,
        packet_size: opts.config.packet_size,
        duration_s,
        ended_by,
        bytes_sent: s.bytes_sent(),
        packets_sent: s.packets_sent(),
        bytes_delivered: c.received_bytes,
        throughput_mbps: c.received_bytes as f64 * 8.0 / duration_s.max(1e-9) / 1e6,
        min_rtt_ms: s.est.d_min,
        final_target_delay_ms: s.est.d_est,
        final_window: s.window(),
        malformed_dropped: dropped.total(),
        dropped,
        unexpected_kind: unexpected,
        send_errors,
        counters: c,
    })
}
