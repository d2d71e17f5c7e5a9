// SPDX-License-Identifier: GPL-2.0-only
//! The server-side agent: receives NetAssist feedback on a UDP socket in the
//! server's namespace, drops what is malformed, unauthenticated, stale or
//! replayed (counting why), and writes the rest into the `feedback` map of
//! every loaded NetAssist congestion control, stamped with the agent's
//! CLOCK_MONOTONIC time: the programs' fallback timer runs against that stamp.
use std::net::{Ipv4Addr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};
use bpfload::netassist::{Feedback, FeedbackMaps, FLAG_CARRIED, NETASSIST_CCS};
// CLOCK_MONOTONIC µs: the clock of tcp_mstamp, which the programs compare
// `updated_us` with.
use emu::clock::now_us as monotonic_us;
use serde::Serialize;

use crate::guard::{admit, Counts, CountsSnapshot, Guard};
use crate::wire::{realtime_us, Key, Kind};

pub struct AgentConfig {
    pub key: Option<Key>,
    /// Feedback taken longer ago than this is stale.
    pub max_age_us: u64,
    /// The fallback timer the programs apply.
    pub timeout_us: u32,
    /// Eq. 1's alpha, percent.
    pub alpha_pct: u32,
    /// `FLAG_*` bits of `bpfload::netassist` written with every entry
    /// (beside the datagram's own carried flag).
    pub flags: u32,
}

#[derive(Debug, Default)]
struct AgentCounts {
    datagrams: Counts,
    /// Feedback about a UE this agent does not serve.
    foreign_ue: AtomicU64,
    map_writes: AtomicU64,
    map_errors: AtomicU64,
}

#[derive(Debug, Clone, Serialize)]
pub struct AgentStats {
    pub datagrams: CountsSnapshot,
    pub foreign_ue: u64,
    pub map_writes: u64,
    pub map_errors: u64,
    /// The congestion controls whose maps it wrote.
    pub maps: Vec<String>,
}

pub struct Agent {
    stop: Arc<AtomicBool>,
    counts: Arc<AgentCounts>,
    thread: Option<JoinHandle<Vec<&'static str>>>,
}

impl Agent {
    /// Serves feedback about `ues` arriving on `sock` (bound in the server's
    /// namespace).
    pub fn start(sock: UdpSocket, ues: Vec<Ipv4Addr>, cfg: AgentConfig) -> Result<Agent> {
        sock.set_nonblocking(true)?;
        let stop = Arc::new(AtomicBool::new(false));
        let counts = Arc::new(AgentCounts::default());
        let (s, c) = (stop.clone(), counts.clone());
        let thread = std::thread::Builder::new()
            .name("netassist-agent".into())
            .spawn(move || run(sock, &ues, &cfg, &s, &c))
            .context("starting the NetAssist agent")?;
        Ok(Agent {
            stop,
            counts,
            thread: Some(thread),
        })
    }

    pub fn stats(&self) -> AgentStats {
        self.snapshot(Vec::new())
    }

    fn snapshot(&self, maps: Vec<&'static str>) -> AgentStats {
        let c = &self.counts;
        AgentStats {
            datagrams: c.datagrams.snapshot(),
            foreign_ue: c.foreign_ue.load(Relaxed),
            map_writes: c.map_writes.load(Relaxed),
            map_errors: c.map_errors.load(Relaxed),
            maps: maps.into_iter().map(str::to_string).collect(),
        }
    }

    /// Stops it and removes the entries it wrote.
    pub fn stop(mut self) -> Result<AgentStats> {
        self.stop.store(true, Relaxed);
        let maps = match self.thread.take() {
            Some(t) => t
                .join()
                .map_err(|_| anyhow::anyhow!("the NetAssist agent panicked"))?,
            None => Vec::new(),
        };
        Ok(self.snapshot(maps))
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        self.stop.store(true, Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn run(
    sock: UdpSocket,
    ues: &[Ipv4Addr],
    cfg: &AgentConfig,
    stop: &AtomicBool,
    c: &AgentCounts,
) -> Vec<&'static str> {
    let mut maps = FeedbackMaps::open(NETASSIST_CCS);
    let mut guard = Guard::new(cfg.max_age_us);
    let mut buf = [0u8; 512];
    let mut last_refresh = monotonic_us();
    while !stop.load(Relaxed) {
        // 100 ms bounds how late a stop is seen.
        let _ = plumbing::wait::ready(
            &sock,
            plumbing::PollFlags::POLLIN,
            Duration::from_millis(100),
        );
        // A congestion control loaded after we started.
        if monotonic_us() - last_refresh > 1_000_000 {
            maps.refresh(NETASSIST_CCS);
            last_refresh = monotonic_us();
        }
        while let Ok((n, _)) = sock.recv_from(&mut buf) {
            let Some(m) = admit(
                &buf[..n],
                cfg.key.as_ref(),
                &mut guard,
                &c.datagrams,
                realtime_us(),
            ) else {
                continue;
            };
            if m.kind != Kind::Feedback || !ues.contains(&m.ue) {
                c.foreign_ue.fetch_add(1, Relaxed);
                continue;
            }
            let fb = Feedback {
                bw_Bps: m.bw_bps,
                updated_us: monotonic_us(),
                min_rtt_us: m.min_rtt_us,
                beta: m.beta.max(1) as u32,
                seq: m.seq,
                timeout_us: cfg.timeout_us,
                alpha_pct: cfg.alpha_pct,
                flags: cfg.flags | if m.carried { FLAG_CARRIED } else { 0 },
            };
            match maps.write(m.ue, &fb) {
                Ok(()) => c.map_writes.fetch_add(1, Relaxed),
                Err(_) => c.map_errors.fetch_add(1, Relaxed),
            };
        }
    }
    for ue in ues {
        maps.remove(*ue);
    }
    maps.names()
}
