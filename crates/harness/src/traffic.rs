// SPDX-License-Identifier: GPL-2.0-only
//! Our own traffic: one TCP connection per flow, bulk (until a deadline) or
//! sized (a number of bytes, then its completion time is recorded).
//!
//! The sender chooses the congestion control and, for c2tcp, the Target and
//! alpha through SOL_C2TCP *before* connect(), as an application would; every
//! `sample_every` it records TCP_INFO (and C2TCP_INFO) for the time series.
//! The receiver listens, counts bytes and notes when the last byte of a sized
//! flow arrived. Both are plain blocking-free loops over poll(2), meant to run
//! on threads that entered the sender's and the receiver's namespaces; all
//! times are seconds since the run's start on one monotonic clock.
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddrV4, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use plumbing::{tcp, wait, PollFlags};
use serde::Serialize;
use sockopt::C2tcpInfo;

use crate::scheme::params::C2tcpOptions;

const CHUNK: usize = 64 * 1024;

#[derive(Debug, Clone)]
pub struct SendSpec {
    pub cc: String,
    /// SOL_C2TCP's Target, pinned alpha and variant, for c2tcp sockets
    /// (None: the load-time defaults).
    pub c2tcp: C2tcpOptions,
    pub dst: SocketAddrV4,
    /// When to connect, and when a bulk flow stops at the latest.
    pub start_at: Instant,
    pub stop_at: Instant,
    /// A sized flow sends this many bytes, then closes its side.
    pub size_bytes: Option<u64>,
    pub sample_every: Duration,
}

#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    pub t_s: f64,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub srtt_us: u32,
    pub min_rtt_us: u32,
    pub total_retrans: u32,
    pub delivery_rate_bps: u64,
    pub bytes_acked: u64,
    /// Packets delivered, and those the receiver echoed as CE (the counts
    /// an ECN congestion control reads: tcpi_delivered, tcpi_delivered_ce).
    pub delivered: u32,
    pub delivered_ce: u32,
    /// The AccECN option's counters had advanced: the connection negotiated
    /// Accurate ECN (`TcpInfo::accecn_seen`).
    pub accecn: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c2tcp: Option<C2tcpInfo>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct SendReport {
    pub cc: String,
    pub bytes_written: u64,
    pub connected_at_s: Option<f64>,
    /// When a sized flow had handed its last byte to the kernel.
    pub last_write_at_s: Option<f64>,
    pub total_retrans: u32,
    pub bytes_retrans: u64,
    #[serde(skip)]
    pub samples: Vec<Sample>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct RecvReport {
    pub bytes: u64,
    pub accepted_at_s: Option<f64>,
    pub first_byte_at_s: Option<f64>,
    pub last_byte_at_s: Option<f64>,
    /// When all bytes of a sized flow had arrived.
    pub completed_at_s: Option<f64>,
    pub error: Option<String>,
}

fn secs(run_start: Instant, t: Instant) -> f64 {
    t.saturating_duration_since(run_start).as_secs_f64()
}

/// A TCP socket with the congestion control and C2TCP options applied,
/// connected to `dst` (blocking connect, then non-blocking I/O).
pub fn connect_with(spec: &SendSpec) -> Result<TcpStream> {
    let sock = tcp::socket_v4().context("socket")?;
    sockopt::set_congestion(&sock, &spec.cc)
        .with_context(|| format!("selecting congestion control `{}` (is it loaded?)", spec.cc))?;
    if let Some(t) = spec.c2tcp.target_us {
        sockopt::set_target_us(&sock, t).context("setting C2TCP_TARGET")?;
    }
    if let Some(a) = spec.c2tcp.alpha_pct {
        sockopt::set_alpha_pct(&sock, a).context("setting C2TCP_ALPHA")?;
    }
    if let Some(v) = spec.c2tcp.variant {
        sockopt::set_variant(&sock, v).with_context(|| format!("setting C2TCP_VARIANT {v}"))?;
    }
    // Not past the flow's end: a link in outage must not hold the run.
    let limit = spec.stop_at.saturating_duration_since(Instant::now());
    let stream = tcp::connect_v4_within(sock, spec.dst, limit)
        .with_context(|| format!("connecting to {}", spec.dst))?;
    stream.set_nonblocking(true)?;
    Ok(stream)
}

fn sample(stream: &TcpStream, t_s: f64, c2tcp: bool) -> Option<Sample> {
    let ti = sockopt::tcp_info(stream).ok()?;
    Some(Sample {
        t_s,
        cwnd: ti.snd_cwnd,
        ssthresh: ti.snd_ssthresh,
        srtt_us: ti.rtt,
        min_rtt_us: ti.min_rtt,
        total_retrans: ti.total_retrans,
        delivery_rate_bps: ti.delivery_rate.saturating_mul(8),
        bytes_acked: ti.bytes_acked,
        delivered: ti.delivered,
        delivered_ce: ti.delivered_ce,
        accecn: ti.accecn_seen(),
        c2tcp: if c2tcp {
            sockopt::c2tcp_info(stream).ok()
        } else {
            None
        },
    })
}

/// Runs one sending flow to completion (deadline, size, or `stop`).
pub fn send(spec: &SendSpec, run_start: Instant, stop: &AtomicBool) -> SendReport {
    let mut report = SendReport {
        cc: spec.cc.clone(),
        ..Default::default()
    };
    if let Err(e) = send_inner(spec, run_start, stop, &mut report) {
        report.error = Some(format!("{e:#}"));
    }
    report
}

fn send_inner(
    spec: &SendSpec,
    run_start: Instant,
    stop: &AtomicBool,
    r: &mut SendReport,
) -> Result<()> {
    sleep_until(spec.start_at, stop);
    if stop.load(Ordering::Relaxed) || Instant::now() >= spec.stop_at {
        return Ok(());
    }
    let mut stream = connect_with(spec)?;
    r.connected_at_s = Some(secs(run_start, Instant::now()));
    let is_c2tcp = spec.cc == "c2tcp";
    let chunk = vec![0x43u8; CHUNK];
    let mut next_sample = Instant::now();
    loop {
        let now = Instant::now();
        if now >= next_sample {
            if let Some(s) = sample(&stream, secs(run_start, now), is_c2tcp) {
                r.samples.push(s);
            }
            next_sample += spec.sample_every;
        }
        if now >= spec.stop_at || stop.load(Ordering::Relaxed) {
            break;
        }
        let remaining = spec.size_bytes.map(|s| s.saturating_sub(r.bytes_written));
        if remaining == Some(0) {
            // Sized flow fully handed over: wait for the receiver to close.
            if r.last_write_at_s.is_none() {
                r.last_write_at_s = Some(secs(run_start, now));
                stream.shutdown(std::net::Shutdown::Write)?;
            }
            let wait = next_sample.min(spec.stop_at).saturating_duration_since(now);
            if wait::ready(&stream, PollFlags::POLLIN, wait)? {
                let mut b = [0u8; 64];
                match stream.read(&mut b) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e)
                        if e.kind() == ErrorKind::WouldBlock
                            || e.kind() == ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            continue;
        }
        let n = remaining.map_or(CHUNK, |rem| rem.min(CHUNK as u64) as usize);
        match stream.write(&chunk[..n]) {
            Ok(w) => r.bytes_written += w as u64,
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                let wait = next_sample
                    .min(spec.stop_at)
                    .saturating_duration_since(Instant::now());
                wait::ready(&stream, PollFlags::POLLOUT, wait)?;
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e).context("sending"),
        }
    }
    if let Ok(ti) = sockopt::tcp_info(&stream) {
        r.total_retrans = ti.total_retrans;
        r.bytes_retrans = ti.bytes_retrans;
    }
    Ok(())
}

fn sleep_until(t: Instant, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= t {
            return;
        }
        std::thread::sleep((t - now).min(Duration::from_millis(50)));
    }
}

/// Called with the accepted connection before its first read, e.g. to hand
/// it to the receiver-side controller; an error ends the flow.
pub type OnAccept<'a> = &'a mut dyn FnMut(&TcpStream) -> Result<()>;

/// Accepts one connection on `listener` and reads it until EOF, `stop_at`,
/// or `stop`; `expect` marks a sized flow's completion.
pub fn receive(
    listener: TcpListener,
    expect: Option<u64>,
    stop_at: Instant,
    run_start: Instant,
    stop: &AtomicBool,
    on_accept: Option<OnAccept<'_>>,
) -> RecvReport {
    let mut r = RecvReport::default();
    if let Err(e) = receive_inner(
        listener, expect, stop_at, run_start, stop, on_accept, &mut r,
    ) {
        r.error = Some(format!("{e:#}"));
    }
    r
}

fn receive_inner(
    listener: TcpListener,
    expect: Option<u64>,
    stop_at: Instant,
    run_start: Instant,
    stop: &AtomicBool,
    on_accept: Option<OnAccept<'_>>,
    r: &mut RecvReport,
) -> Result<()> {
    listener.set_nonblocking(true)?;
    let tick = Duration::from_millis(50);
    let mut conn = loop {
        if stop.load(Ordering::Relaxed) || Instant::now() >= stop_at {
            return Ok(());
        }
        match listener.accept() {
            Ok((c, _)) => break c,
            Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted => {
                wait::ready(&listener, PollFlags::POLLIN, tick)?;
            }
            Err(e) => return Err(e).context("accepting"),
        }
    };
    r.accepted_at_s = Some(secs(run_start, Instant::now()));
    if let Some(hook) = on_accept {
        hook(&conn)?;
    }
    conn.set_nonblocking(true)?;
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        if stop.load(Ordering::Relaxed) || Instant::now() >= stop_at {
            break;
        }
        match conn.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                let now = secs(run_start, Instant::now());
                r.first_byte_at_s.get_or_insert(now);
                r.last_byte_at_s = Some(now);
                r.bytes += n as u64;
                if expect.is_some_and(|e| r.bytes >= e) && r.completed_at_s.is_none() {
                    r.completed_at_s = Some(now);
                }
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted => {
                let wait = stop_at.saturating_duration_since(Instant::now()).min(tick);
                wait::ready(&conn, PollFlags::POLLIN, wait)?;
            }
            Err(e) if e.kind() == ErrorKind::ConnectionReset => break,
            Err(e) => return Err(e).context("receiving"),
        }
    }
    // Closing tells a sized flow's sender we are done.
    let _ = conn.flush();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn loopback_pair(size: Option<u64>, secs_limit: u64) -> (SendReport, RecvReport) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let start = Instant::now();
        let stop = Arc::new(AtomicBool::new(false));
        let stop_at = start + Duration::from_secs(secs_limit);
        let s2 = stop.clone();
        let rx = std::thread::spawn(move || receive(listener, size, stop_at, start, &s2, None));
        let spec = SendSpec {
            cc: "reno".into(),
            c2tcp: C2tcpOptions::default(),
            dst: SocketAddrV4::new([127, 0, 0, 1].into(), port),
            start_at: start,
            stop_at,
            size_bytes: size,
            sample_every: Duration::from_millis(20),
        };
        let tx = send(&spec, start, &stop);
        (tx, rx.join().unwrap())
    }

    #[test]
    fn a_sized_flow_completes_and_both_sides_agree() {
        let (tx, rx) = loopback_pair(Some(3_000_001), 10);
        assert!(tx.error.is_none(), "{:?}", tx.error);
        assert!(rx.error.is_none(), "{:?}", rx.error);
        assert_eq!(tx.bytes_written, 3_000_001);
        assert_eq!(rx.bytes, 3_000_001);
        let done = rx.completed_at_s.unwrap();
        assert!(done >= rx.first_byte_at_s.unwrap());
        assert!(
            done < 10.0,
            "the flow should finish long before the deadline"
        );
        assert_eq!(tx.cc, "reno");
    }

    #[test]
    fn a_bulk_flow_stops_at_its_deadline_and_is_sampled() {
        let (tx, rx) = loopback_pair(None, 1);
        assert!(tx.error.is_none(), "{:?}", tx.error);
        assert!(tx.bytes_written > 0 && rx.bytes > 0);
        assert!(rx.bytes <= tx.bytes_written);
        assert!(rx.completed_at_s.is_none());
        // ~1 s at one sample per 20 ms.
        assert!(tx.samples.len() >= 20, "{} samples", tx.samples.len());
        assert!(tx.samples.iter().any(|s| s.cwnd > 0));
        assert!(tx.samples.windows(2).all(|w| w[0].t_s <= w[1].t_s));
    }

    #[test]
    fn the_accept_hook_sees_the_connection_and_its_error_ends_the_flow() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let start = Instant::now();
        let peer = std::thread::spawn(move || {
            let mut s = TcpStream::connect(addr).unwrap();
            let _ = s.write_all(&[1u8; 1000]);
            s
        });
        let mut seen = None;
        let mut hook = |c: &TcpStream| -> Result<()> {
            seen = Some(c.peer_addr()?);
            anyhow::bail!("controller refused")
        };
        let r = receive(
            listener,
            None,
            start + Duration::from_secs(5),
            start,
            &AtomicBool::new(false),
            Some(&mut hook),
        );
        let local = peer.join().unwrap().local_addr().unwrap();
        assert_eq!(seen, Some(local));
        assert!(r.error.unwrap().contains("controller refused"));
        assert_eq!(r.bytes, 0, "nothing is read once the hook failed");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn an_unknown_congestion_control_is_a_clear_error() {
        let start = Instant::now();
        let spec = SendSpec {
            cc: "no-such-cc".into(),
            c2tcp: C2tcpOptions::default(),
            dst: SocketAddrV4::new([127, 0, 0, 1].into(), 9),
            start_at: start,
            stop_at: start + Duration::from_secs(1),
            size_bytes: None,
            sample_every: Duration::from_millis(100),
        };
        let r = send(&spec, start, &AtomicBool::new(false));
        let e = r.error.unwrap();
        assert!(e.contains("no-such-cc"), "{e}");
    }
}
