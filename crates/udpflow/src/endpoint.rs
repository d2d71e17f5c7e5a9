// SPDX-License-Identifier: GPL-2.0-only
//! One flow's endpoint on a real UDP socket, the parts every transport here
//! does the same way.
//!
//! An endpoint binds one non-blocking socket (the receiver on `--listen`,
//! the sender on `--bind` and connected to the receiver), drains it until it
//! would block, runs its protocol logic, and sleeps in `ppoll` until the
//! socket is readable or the next deadline. SIGINT/SIGTERM only raise a flag
//! (and end the sleep), so the endpoint still writes its report. A receiver
//! ends on the sender's bye, a signal, its duration, or silence
//! ([`ReceiverLife`]); it measures goodput over the flow's life, first to
//! last arrival, not its own uptime.
//!
//! Nothing here allocates per datagram.
use std::io::{self, ErrorKind};
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use hdrhistogram::Histogram;
use plumbing::PollFlags;
use serde::{Deserialize, Serialize};

/// CLOCK_MONOTONIC in µs: one clock for every process on the machine (and in
/// every network namespace), so the receiver can compute one-way delays.
#[inline]
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

/// Waits until the socket is ready for `events` or `deadline_us` passes (or
/// a signal): the loop looks at everything again however it woke.
#[inline]
pub fn wait(sock: &UdpSocket, events: PollFlags, deadline_us: u64) {
    plumbing::wait::sleep_until_us(sock, events, deadline_us);
}

/// A sender's flight can land faster than one wake-up: give the socket room
/// for it (8 MiB, past rmem_max when we may — we usually run as root).
pub fn grow_receive_buffer(sock: &UdpSocket) {
    use nix::sys::socket::{setsockopt, sockopt};
    const WANT: usize = 8 << 20;
    if setsockopt(sock, sockopt::RcvBufForce, &WANT).is_err() {
        let _ = setsockopt(sock, sockopt::RcvBuf, &WANT);
    }
}

/// The receiver's socket: bound to `listen`, non-blocking, room for flights.
pub fn bind_receiver(listen: SocketAddr) -> Result<UdpSocket> {
    let sock = UdpSocket::bind(listen).with_context(|| format!("binding UDP {listen}"))?;
    sock.set_nonblocking(true)?;
    grow_receive_buffer(&sock);
    Ok(sock)
}

/// The sender's socket: bound to `bind` (default: any address of
/// `connect`'s family), connected to `connect`, non-blocking.
pub fn connect_sender(connect: SocketAddr, bind: Option<SocketAddr>) -> Result<UdpSocket> {
    let bind = bind.unwrap_or_else(|| {
        if connect.is_ipv4() {
            "0.0.0.0:0".parse().unwrap()
        } else {
            "[::]:0".parse().unwrap()
        }
    });
    let sock = UdpSocket::bind(bind).with_context(|| format!("binding UDP {bind}"))?;
    sock.connect(connect)
        .with_context(|| format!("connecting UDP to {connect}"))?;
    sock.set_nonblocking(true)?;
    Ok(sock)
}

/// Sends one datagram (to `to`, or to the connected peer), waiting for
/// socket buffer space when it is full, for up to a second.
pub fn send_retrying(sock: &UdpSocket, buf: &[u8], to: Option<SocketAddr>) -> io::Result<()> {
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
    Err(io::Error::new(
        ErrorKind::WouldBlock,
        "socket buffer stayed full for a second",
    ))
}

/// What a receive error means to a loop that drains the socket: `Ok(true)`
/// when it is empty (stop draining), `Ok(false)` for errors to read past —
/// ICMP errors from earlier sends (the peer not up yet) and signals — and
/// the error itself otherwise.
#[inline]
pub fn drained(e: io::Error) -> Result<bool> {
    match e.kind() {
        ErrorKind::WouldBlock => Ok(true),
        ErrorKind::ConnectionRefused | ErrorKind::Interrupted => Ok(false),
        _ => Err(e).context("receiving"),
    }
}

/// Reads every datagram waiting on the connected socket `sock` into `buf`,
/// handing each to `on`, until the socket would block.
#[inline]
pub fn drain(sock: &UdpSocket, buf: &mut [u8], mut on: impl FnMut(&[u8])) -> Result<()> {
    loop {
        match sock.recv(buf) {
            Ok(n) => on(&buf[..n]),
            Err(e) => {
                if drained(e)? {
                    return Ok(());
                }
            }
        }
    }
}

/// [`drain`] for an unconnected socket: `on` also gets the sender's address.
#[inline]
pub fn drain_from(
    sock: &UdpSocket,
    buf: &mut [u8],
    mut on: impl FnMut(&[u8], SocketAddr),
) -> Result<()> {
    loop {
        match sock.recv_from(buf) {
            Ok((n, from)) => on(&buf[..n], from),
            Err(e) => {
                if drained(e)? {
                    return Ok(());
                }
            }
        }
    }
}

/// A random-enough session number: it only tells flows apart.
pub fn new_session() -> u32 {
    let t = monotonic_us();
    (std::process::id().rotate_left(16) ^ (t as u32) ^ ((t >> 32) as u32)).max(1)
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

/// One-way delays, ms: send-to-receive of data packets (the sender's stamp
/// against our clock — meaningful because both ends share the machine's
/// monotonic clock).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DelayMs {
    pub samples: u64,
    pub mean: f64,
    pub p95: f64,
}

impl DelayMs {
    /// A histogram for delays in µs (up to an hour), made once per flow.
    pub fn histogram() -> Result<Histogram<u64>> {
        Ok(Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3)?)
    }

    /// Records one delay, µs (at least 1: the histogram's floor).
    #[inline]
    pub fn record(h: &mut Histogram<u64>, now_us: u64, send_time_us: u64) {
        let _ = h.record(now_us.saturating_sub(send_time_us).max(1));
    }

    /// The summary of a histogram [`DelayMs::histogram`] made.
    pub fn of(h: &Histogram<u64>) -> DelayMs {
        DelayMs {
            samples: h.len(),
            mean: h.mean() / 1e3,
            p95: h.value_at_quantile(0.95) as f64 / 1e3,
        }
    }
}

/// A sender's life: it sends for a given duration from when it started.
pub struct SenderLife {
    start_us: u64,
    end_us: u64,
}

impl SenderLife {
    pub fn start(duration: Duration) -> Self {
        let start_us = monotonic_us();
        SenderLife {
            start_us,
            end_us: start_us + duration.as_micros() as u64,
        }
    }

    /// Why to stop now, if at all: a signal, then the duration.
    #[inline]
    pub fn ended(&self, stop: &AtomicBool) -> Option<EndedBy> {
        if stop.load(Ordering::SeqCst) {
            return Some(EndedBy::Signal);
        }
        if monotonic_us() >= self.end_us {
            return Some(EndedBy::Duration);
        }
        None
    }

    /// When the duration ends, µs of [`monotonic_us`].
    #[inline]
    pub fn end_us(&self) -> u64 {
        self.end_us
    }

    /// Seconds since [`SenderLife::start`].
    pub fn uptime_s(&self) -> f64 {
        (monotonic_us() - self.start_us) as f64 / 1e6
    }
}

/// Mbit/s of `bytes` over `seconds` (a zero time counts as 1 ns).
pub fn mbps(bytes: u64, seconds: f64) -> f64 {
    bytes as f64 * 8.0 / seconds.max(1e-9) / 1e6
}

/// A receiver's life: when it started, when it must end, and when data
/// arrived first and last.
pub struct ReceiverLife {
    start_us: u64,
    end_us: Option<u64>,
    idle_us: u64,
    first_rx: Option<u64>,
    last_rx: Option<u64>,
}

impl ReceiverLife {
    /// Starts now; ends after `duration` (None: never by time) or when
    /// nothing arrived for `idle_timeout` once the flow started.
    pub fn start(duration: Option<Duration>, idle_timeout: Duration) -> Self {
        let start_us = monotonic_us();
        ReceiverLife {
            start_us,
            end_us: duration.map(|d| start_us + d.as_micros() as u64),
            idle_us: idle_timeout.as_micros() as u64,
            first_rx: None,
            last_rx: None,
        }
    }

    /// Why to stop now, if at all, in this order: a signal, the duration,
    /// the sender's bye, silence.
    #[inline]
    pub fn ended(&self, now_us: u64, stop: &AtomicBool, bye: bool) -> Option<EndedBy> {
        if stop.load(Ordering::SeqCst) {
            return Some(EndedBy::Signal);
        }
        if self.end_us.is_some_and(|e| now_us >= e) {
            return Some(EndedBy::Duration);
        }
        if bye {
            return Some(EndedBy::Bye);
        }
        if self.last_rx.is_some_and(|t| now_us >= t + self.idle_us) {
            return Some(EndedBy::Idle);
        }
        None
    }

    /// A datagram of the flow arrived at `now_us`.
    #[inline]
    pub fn arrived(&mut self, now_us: u64) {
        self.last_rx = Some(now_us);
        self.first_rx.get_or_insert(now_us);
    }

    /// When to wake at the latest: `next_us` (the logic's next event, if
    /// any), the end, the idle limit, and at most 100 ms from now.
    #[inline]
    pub fn deadline(&self, next_us: Option<u64>) -> u64 {
        let mut deadline = monotonic_us() + 100_000;
        for t in [next_us, self.end_us, self.last_rx.map(|t| t + self.idle_us)]
            .into_iter()
            .flatten()
        {
            deadline = deadline.min(t);
        }
        deadline
    }

    /// Seconds since [`ReceiverLife::start`].
    pub fn uptime_s(&self) -> f64 {
        (monotonic_us() - self.start_us) as f64 / 1e6
    }

    /// Goodput over the flow's life (first to last arrival), Mbit/s; 0 when
    /// it had no length.
    pub fn goodput_mbps(&self, bytes: u64) -> f64 {
        match (self.first_rx, self.last_rx) {
            (Some(a), Some(b)) if b > a => bytes as f64 * 8.0 / ((b - a) as f64 / 1e6) / 1e6,
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_receiver_ends_for_the_first_reason_in_order() {
        let stop = AtomicBool::new(false);
        let mut life = ReceiverLife::start(Some(Duration::from_secs(10)), Duration::from_secs(1));
        let t0 = life.start_us;
        assert_eq!(life.ended(t0, &stop, false), None);
        // Silence counts only once the flow started.
        assert_eq!(life.ended(t0 + 5_000_000, &stop, false), None);
        life.arrived(t0 + 100);
        assert_eq!(
            life.ended(t0 + 1_000_100, &stop, false),
            Some(EndedBy::Idle)
        );
        assert_eq!(life.ended(t0 + 500, &stop, true), Some(EndedBy::Bye));
        assert_eq!(
            life.ended(t0 + 10_000_000, &stop, true),
            Some(EndedBy::Duration)
        );
        stop.store(true, Ordering::SeqCst);
        assert_eq!(life.ended(t0, &stop, true), Some(EndedBy::Signal));
        assert!(life.deadline(None) <= t0 + 1_000_100);
    }

    #[test]
    fn goodput_is_over_the_flow_not_the_uptime() {
        let mut life = ReceiverLife::start(None, Duration::from_secs(1));
        assert_eq!(life.goodput_mbps(1_000), 0.0);
        life.arrived(1_000_000);
        assert_eq!(life.goodput_mbps(1_000), 0.0);
        life.arrived(2_000_000);
        assert!((life.goodput_mbps(1_000_000) - 8.0).abs() < 1e-9);
    }

    #[test]
    fn a_datagram_crosses_loopback_and_an_empty_socket_reads_as_drained() {
        let rx = bind_receiver("127.0.0.1:0".parse().unwrap()).unwrap();
        let tx = connect_sender(rx.local_addr().unwrap(), None).unwrap();
        send_retrying(&tx, b"hello", None).unwrap();
        wait(&rx, PollFlags::POLLIN, monotonic_us() + 1_000_000);
        let mut buf = [0u8; 16];
        let (n, from) = rx.recv_from(&mut buf).unwrap();
        assert_eq!((&buf[..n], from), (&b"hello"[..], tx.local_addr().unwrap()));
        let e = rx.recv_from(&mut buf).unwrap_err();
        assert!(drained(e).unwrap());
    }
}
