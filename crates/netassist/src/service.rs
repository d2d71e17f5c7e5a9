// SPDX-License-Identifier: GPL-2.0-only
//! The NetAssist service for one UE: every period it takes the link's
//! figures from the [`Meter`] when they are due (a live period's at its end,
//! a replayed one's at its start), adds the UE's flow count from its latest
//! flow report, and sends the feedback datagram to the server's agent after
//! its own one-way delay.
//!
//! It runs on one thread with one UDP socket (bound in the NetAssist
//! namespace, which reaches the server and the UE over their own veths, never
//! through the emulated link). The delay is implemented here, in the sender:
//! a datagram is built when its period ends and written `delay` later. The
//! thread sleeps in ppoll on the socket, so flow reports are read as they
//! come, until the next period end or the next due datagram.
use std::collections::VecDeque;
use std::net::{SocketAddrV4, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::guard::{admit, Counts, CountsSnapshot, Guard};
use crate::meter::Meter;
use crate::wire::{encode, realtime_us, Key, Kind, Message, MAX_LEN};
use emu::clock::now_us;

pub struct ServiceConfig {
    pub ue: std::net::Ipv4Addr,
    pub agent: SocketAddrV4,
    pub period_us: u64,
    /// One-way delay from NetAssist to the server.
    pub delay_us: u64,
    pub key: Option<Key>,
    /// CLOCK_MONOTONIC µs of trace time 0 (the emulator's start).
    pub start_us: u64,
    /// Intervals [from, to) µs of the run (see `Service::set_origin`)
    /// during which nothing is sent: a scripted NetAssist outage.
    pub silent: Vec<(u64, u64)>,
    /// Flow reports older than this no longer count: beta goes back to 1.
    pub report_max_age_us: u64,
}

#[derive(Debug, Default)]
pub struct ServiceCounts {
    pub periods: AtomicU64,
    pub sent: AtomicU64,
    pub send_errors: AtomicU64,
    /// Periods whose feedback was withheld (paused or scripted silence).
    pub withheld: AtomicU64,
    /// Periods whose bandwidth was carried over an outage of the link
    /// (`Feedback::Carry`).
    pub carried: AtomicU64,
    /// Periods in which the link offered nothing, reported as 0.
    pub empty: AtomicU64,
    /// Periods before the link first offered any capacity.
    pub no_capacity: AtomicU64,
    pub last_beta: AtomicU64,
    pub reports: Counts,
}

#[derive(Debug, Clone, Serialize)]
pub struct ServiceStats {
    pub periods: u64,
    pub sent: u64,
    pub send_errors: u64,
    pub withheld: u64,
    pub carried: u64,
    pub empty: u64,
    pub no_capacity: u64,
    pub last_beta: u64,
    /// The UE's flow reports.
    pub reports: CountsSnapshot,
}

impl ServiceCounts {
    pub fn snapshot(&self) -> ServiceStats {
        ServiceStats {
            periods: self.periods.load(Relaxed),
            sent: self.sent.load(Relaxed),
            send_errors: self.send_errors.load(Relaxed),
            withheld: self.withheld.load(Relaxed),
            carried: self.carried.load(Relaxed),
            empty: self.empty.load(Relaxed),
            no_capacity: self.no_capacity.load(Relaxed),
            last_beta: self.last_beta.load(Relaxed),
            reports: self.reports.snapshot(),
        }
    }
}

/// A running NetAssist.
pub struct Service {
    /// CLOCK_MONOTONIC µs of the run's time 0, which `silent` counts from.
    origin_us: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    paused: Arc<AtomicBool>,
    counts: Arc<ServiceCounts>,
    thread: Option<JoinHandle<Result<()>>>,
}

impl Service {
    /// Starts the service on `sock` (bound, in the NetAssist namespace).
    pub fn start(sock: UdpSocket, meter: Meter, cfg: ServiceConfig) -> Result<Service> {
        sock.set_nonblocking(true)?;
        let stop = Arc::new(AtomicBool::new(false));
        let paused = Arc::new(AtomicBool::new(false));
        let counts = Arc::new(ServiceCounts::default());
        let origin_us = Arc::new(AtomicU64::new(cfg.start_us));
        let (s, p, c, o) = (
            stop.clone(),
            paused.clone(),
            counts.clone(),
            origin_us.clone(),
        );
        let thread = std::thread::Builder::new()
            .name("netassist".into())
            .spawn(move || run(sock, meter, cfg, &s, &p, &c, &o))
            .context("starting the NetAssist thread")?;
        Ok(Service {
            origin_us,
            stop,
            paused,
            counts,
            thread: Some(thread),
        })
    }

    /// Sets the run's time 0 (CLOCK_MONOTONIC µs) for the silent intervals;
    /// until then they count from trace time 0.
    pub fn set_origin(&self, mono_us: u64) {
        self.origin_us.store(mono_us, Relaxed);
    }

    /// Withholds feedback (the measurement goes on) until `resume`.
    pub fn pause(&self) {
        self.paused.store(true, Relaxed);
    }

    pub fn resume(&self) {
        self.paused.store(false, Relaxed);
    }

    pub fn stats(&self) -> ServiceStats {
        self.counts.snapshot()
    }

    pub fn stop(mut self) -> Result<ServiceStats> {
        self.shutdown()?;
        Ok(self.counts.snapshot())
    }

    fn shutdown(&mut self) -> Result<()> {
        self.stop.store(true, Relaxed);
        match self.thread.take() {
            Some(t) => t
                .join()
                .map_err(|_| anyhow::anyhow!("the NetAssist thread panicked"))?,
            None => Ok(()),
        }
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// Sleeps until `deadline` (monotonic µs) at most, waking for a datagram.
fn wait(sock: &UdpSocket, deadline: u64) {
    let left = deadline.saturating_sub(now_us()).min(100_000);
    plumbing::wait::sleep(
        sock,
        plumbing::PollFlags::POLLIN,
        Duration::from_micros(left),
    );
}

fn run(
    sock: UdpSocket,
    mut meter: Meter,
    cfg: ServiceConfig,
    stop: &AtomicBool,
    paused: &AtomicBool,
    c: &ServiceCounts,
    origin_us: &AtomicU64,
) -> Result<()> {
    let session: u32 = rand::random();
    let mut seq: u32 = 0;
    let mut guard = Guard::new(cfg.report_max_age_us);
    // Datagrams waiting out the one-way delay: (due, bytes, length).
    let mut pending: VecDeque<(u64, [u8; MAX_LEN], usize)> = VecDeque::with_capacity(16);
    let (mut beta, mut beta_at) = (1u16, 0u64);
    let mut rx = [0u8; 512];
    let period_ms = (cfg.period_us / 1000).min(u16::MAX as u64) as u16;
    c.last_beta.store(1, Relaxed);
    while !stop.load(Relaxed) {
        // Flow reports from the UE.
        while let Ok((n, _)) = sock.recv_from(&mut rx) {
            if let Some(m) = admit(
                &rx[..n],
                cfg.key.as_ref(),
                &mut guard,
                &c.reports,
                realtime_us(),
            ) {
                if m.kind == Kind::FlowReport && m.ue == cfg.ue {
                    beta = m.beta.max(1);
                    beta_at = now_us();
                    c.last_beta.store(beta as u64, Relaxed);
                }
            }
        }
        let now = now_us();
        // The periods whose figures are due (at their end; replayed, at
        // their start).
        while cfg.start_us + meter.due_us() <= now {
            let due = meter.due_us();
            c.periods.fetch_add(1, Relaxed);
            let Some(f) = meter.measure() else {
                c.no_capacity.fetch_add(1, Relaxed);
                continue;
            };
            if f.carried {
                c.carried.fetch_add(1, Relaxed);
            } else if f.bw_bps == 0 {
                c.empty.fetch_add(1, Relaxed);
            }
            let run_t = (cfg.start_us + due).saturating_sub(origin_us.load(Relaxed));
            if paused.load(Relaxed) || cfg.silent.iter().any(|&(a, b)| run_t >= a && run_t < b) {
                c.withheld.fetch_add(1, Relaxed);
                continue;
            }
            if now.saturating_sub(beta_at) > cfg.report_max_age_us {
                beta = 1;
            }
            seq = seq.wrapping_add(1);
            let m = Message {
                kind: Kind::Feedback,
                carried: f.carried,
                period_ms,
                session,
                seq,
                timestamp_us: realtime_us(),
                ue: cfg.ue,
                bw_bps: f.bw_bps,
                min_rtt_us: f.min_rtt_us,
                beta,
            };
            let mut buf = [0u8; MAX_LEN];
            let n = encode(&m, cfg.key.as_ref(), &mut buf);
            pending.push_back((cfg.start_us + due + cfg.delay_us, buf, n));
        }
        // The datagrams whose delay is over.
        while let Some(&(due, ref buf, n)) = pending.front() {
            if due > now_us() {
                break;
            }
            match sock.send_to(&buf[..n], cfg.agent) {
                Ok(_) => c.sent.fetch_add(1, Relaxed),
                Err(_) => c.send_errors.fetch_add(1, Relaxed),
            };
            pending.pop_front();
        }
        let next = pending
            .front()
            .map_or(u64::MAX, |p| p.0)
            .min(cfg.start_us + meter.due_us());
        wait(&sock, next);
    }
    Ok(())
}
