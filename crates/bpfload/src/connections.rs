// SPDX-License-Identifier: GPL-2.0-only
//! What `c2tcp top` shows: every open connection c2tcp runs on, read from
//! the kernel in one pass.
//!
//! `c2tcp load` pins a BPF iterator over c2tcp's socket storage as
//! `/sys/fs/bpf/c2tcp/c2tcp/connections`. Reading that file runs the
//! iterator (`c2tcp_connections` in bpf/c2tcp.bpf.c): it visits each socket
//! that has c2tcp storage, in every network namespace, and writes one
//! `struct c2tcp_conn_record` (bpf/c2tcp_top.h) with the socket's addresses,
//! congestion control, Target and its source, C2TCP's state and TCP's cwnd
//! and rates. No application is asked anything.
use std::fs;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::sys;

/// The pinned iterator link's file name in c2tcp's pin directory.
pub const ITER_PIN: &str = "connections";

/// sizeof(struct c2tcp_conn_record).
pub const RECORD_SIZE: usize = 136;

const AF_INET6: u16 = 10;
const TCP_ESTABLISHED: u8 = 1;
const TCP_CLOSE: u8 = 7;
const TCP_LISTEN: u8 = 10;

/// TCP states as /proc/net/tcp numbers them.
const STATES: [&str; 13] = [
    "?",
    "established",
    "syn-sent",
    "syn-recv",
    "fin-wait-1",
    "fin-wait-2",
    "time-wait",
    "close",
    "close-wait",
    "last-ack",
    "listen",
    "closing",
    "new-syn-recv",
];

#[derive(Debug, Clone, Serialize)]
pub struct Connection {
    pub local: SocketAddr,
    pub remote: SocketAddr,
    /// Inode of the socket's network namespace (`ls -l /proc/PID/ns/net`).
    pub netns: u32,
    pub state: &'static str,
    pub cc: String,
    pub target_us: u32,
    /// `socket` (its own C2TCP_TARGET), `cgroup` (`c2tcp target set`) or `default`.
    pub target_source: &'static str,
    /// The cgroup whose setting gave the Target (its id; see `c2tcp target list`).
    pub cgroup_id: Option<u64>,
    /// C2TCP_VARIANT as set on the socket or its cgroup (`default`: the load-time one).
    pub variant: String,
    pub alpha_pct: u32,
    pub min_rtt_us: u32,
    pub srtt_us: u32,
    pub last_avg_rtt_us: u32,
    /// `good`, `normal` or `bad` (C2TCP's condition detector).
    pub condition: &'static str,
    pub bad_events: u32,
    pub tune_cycles: u32,
    /// Congestion window, packets.
    pub cwnd: u32,
    pub mss: u32,
    /// Pacing rate in bit/s; None when TCP does not pace this socket.
    pub pacing_rate_bps: Option<u64>,
    /// Delivery rate in bit/s (TCP_INFO's tcpi_delivery_rate).
    pub delivery_rate_bps: u64,
}

struct Reader<'a>(&'a [u8], usize);

impl Reader<'_> {
    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let b: [u8; N] = self.0[self.1..self.1 + N].try_into().unwrap();
        self.1 += N;
        b
    }
    fn u8(&mut self) -> u8 {
        self.bytes::<1>()[0]
    }
    fn u16(&mut self) -> u16 {
        u16::from_ne_bytes(self.bytes())
    }
    fn u32(&mut self) -> u32 {
        u32::from_ne_bytes(self.bytes())
    }
    fn u64(&mut self) -> u64 {
        u64::from_ne_bytes(self.bytes())
    }
}

fn ip(family: u16, raw: [u8; 16]) -> IpAddr {
    if family == AF_INET6 {
        let v6 = Ipv6Addr::from(raw);
        // A dual-stack socket talking IPv4 (`::ffff:a.b.c.d`) is shown as IPv4.
        v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4)
    } else {
        IpAddr::V4(Ipv4Addr::new(raw[0], raw[1], raw[2], raw[3]))
    }
}

/// One record; None for a socket that is not an open connection (a
/// listener, one never connected, one closed).
fn parse(rec: &[u8]) -> Result<Option<Connection>> {
    let mut r = Reader(rec, 0);
    let size = r.u32() as usize;
    if size != RECORD_SIZE {
        bail!("the connections iterator writes {size}-byte records, this c2tcp reads {RECORD_SIZE}: load c2tcp again with this build (`c2tcp unload c2tcp && c2tcp load c2tcp`)");
    }
    let netns = r.u32();
    let cgroup_id = r.u64();
    let pacing = r.u64();
    let delivery = r.u64();
    let family = r.u16();
    let state = r.u8();
    let _running = r.u8();
    let sport = r.u16();
    let dport = r.u16();
    let saddr = r.bytes::<16>();
    let daddr = r.bytes::<16>();
    let cc_raw = r.bytes::<16>();
    let cc_len = cc_raw.iter().position(|&b| b == 0).unwrap_or(16);
    let cc = String::from_utf8_lossy(&cc_raw[..cc_len]).into_owned();
    let target_us = r.u32();
    let source = r.u32();
    let variant = r.u32();
    let alpha_pct = r.u32();
    let min_rtt_us = r.u32();
    let srtt_us = r.u32();
    let last_avg_rtt_us = r.u32();
    let condition = r.u32();
    let bad_events = r.u32();
    let tune_cycles = r.u32();
    let cwnd = r.u32();
    let mss = r.u32();
    if state == TCP_LISTEN || state == TCP_CLOSE || state == 0 || cc != "c2tcp" {
        return Ok(None);
    }
    Ok(Some(Connection {
        local: SocketAddr::new(ip(family, saddr), sport),
        remote: SocketAddr::new(ip(family, daddr), dport),
        netns,
        state: STATES.get(state as usize).copied().unwrap_or("?"),
        cc,
        target_us,
        target_source: match source {
            1 => "cgroup",
            2 => "socket",
            _ => "default",
        },
        cgroup_id: (source == 1 && cgroup_id != 0).then_some(cgroup_id),
        variant: sockopt::Variant::from_raw(variant)
            .map(|v| v.to_string())
            .unwrap_or_else(|| format!("{variant:#x}")),
        alpha_pct,
        min_rtt_us,
        srtt_us,
        last_avg_rtt_us,
        condition: match condition {
            0 => "good",
            1 => "normal",
            _ => "bad",
        },
        bad_events,
        tune_cycles,
        cwnd,
        mss,
        // ~0 is the kernel's "no pacing limit".
        pacing_rate_bps: (pacing != u64::MAX && pacing != u32::MAX as u64).then(|| pacing * 8),
        delivery_rate_bps: delivery * 8,
    }))
}

/// `top` cannot run on this host: the kernel refuses or lacks the iterator
/// (`features.rs`), so c2tcp was loaded without it.
#[derive(Debug)]
pub struct Unavailable(pub String);

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`c2tcp top` cannot run on this host: {}. c2tcp was loaded without its connections \
             iterator; C2TCP itself, its socket option and per-cgroup Targets work (`c2tcp doctor` lists what \
             this kernel allows)",
            self.0
        )
    }
}

impl std::error::Error for Unavailable {}

/// Why this kernel gives c2tcp no connections iterator, or None when it does.
pub fn unavailable() -> Option<String> {
    use crate::features::{probe, Feature, Presence};
    match probe().presence(Feature::SkStorageIterator) {
        Presence::Present => None,
        Presence::Missing(d) | Presence::Refused(d) | Presence::Unknown(d) => Some(d.clone()),
    }
}

/// Every open connection on the c2tcp congestion control, in all network
/// namespaces. An empty list when there are none; an error when c2tcp is
/// not loaded.
pub fn connections() -> Result<Vec<Connection>> {
    let dir = sys::pin_dir("c2tcp");
    let pin = dir.join(ITER_PIN);
    if !dir.join("ops").exists() {
        bail!("c2tcp is not loaded: run `sudo c2tcp load` first");
    }
    if !pin.exists() {
        if let Some(why) = unavailable() {
            return Err(Unavailable(why).into());
        }
        bail!(
            "the loaded c2tcp has no connections iterator ({}): it was loaded by an older c2tcp; run `sudo c2tcp unload c2tcp && sudo c2tcp load c2tcp`",
            pin.display()
        );
    }
    let raw = fs::read(&pin).with_context(|| format!("reading {}", pin.display()))?;
    if raw.len() % RECORD_SIZE != 0 {
        bail!(
            "{}: {} bytes is not a whole number of {RECORD_SIZE}-byte records",
            pin.display(),
            raw.len()
        );
    }
    let mut out = Vec::new();
    for rec in raw.chunks(RECORD_SIZE) {
        if let Some(c) = parse(rec)? {
            out.push(c);
        }
    }
    Ok(out)
}

/// True for an established connection (the others are opening or closing).
pub fn is_established(c: &Connection) -> bool {
    c.state == STATES[TCP_ESTABLISHED as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record laid out as bpf/c2tcp_top.h says, field by field.
    fn record(state: u8, cc: &str, family: u16, saddr: [u8; 16]) -> Vec<u8> {
        let mut r = Vec::new();
        r.extend((RECORD_SIZE as u32).to_ne_bytes());
        r.extend(4026531840u32.to_ne_bytes()); // netns
        r.extend(77u64.to_ne_bytes()); // cgroup id
        r.extend(1_250_000u64.to_ne_bytes()); // pacing, bytes/s
        r.extend(625_000u64.to_ne_bytes()); // delivery, bytes/s
        r.extend(family.to_ne_bytes());
        r.push(state);
        r.push(1);
        r.extend(40000u16.to_ne_bytes());
        r.extend(5001u16.to_ne_bytes());
        r.extend(saddr);
        r.extend([10, 77, 0, 2].iter().chain(&[0u8; 12]));
        let mut name = [0u8; 16];
        name[..cc.len()].copy_from_slice(cc.as_bytes());
        r.extend(name);
        // target, source (cgroup), variant (paper), alpha, min RTT, srtt,
        // avg RTT, condition (bad), bad events, cycles, cwnd, mss
        for v in [
            50_000u32, 1, 2, 150, 20_000, 25_000, 31_000, 2, 3, 9, 42, 1448,
        ] {
            r.extend(v.to_ne_bytes());
        }
        assert_eq!(r.len(), RECORD_SIZE);
        r
    }

    #[test]
    fn records_parse_by_the_header_layout() {
        let v4 = [10, 77, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let c = parse(&record(TCP_ESTABLISHED, "c2tcp", 2, v4))
            .unwrap()
            .unwrap();
        assert_eq!(c.local.to_string(), "10.77.0.1:40000");
        assert_eq!(c.remote.to_string(), "10.77.0.2:5001");
        assert_eq!(
            (c.state, c.cc.as_str(), c.target_us, c.target_source),
            ("established", "c2tcp", 50_000, "cgroup")
        );
        assert_eq!(
            (c.cgroup_id, c.variant.as_str(), c.alpha_pct),
            (Some(77), "paper", 150)
        );
        assert_eq!(
            (c.min_rtt_us, c.srtt_us, c.last_avg_rtt_us, c.condition),
            (20_000, 25_000, 31_000, "bad")
        );
        assert_eq!(
            (c.bad_events, c.tune_cycles, c.cwnd, c.mss),
            (3, 9, 42, 1448)
        );
        assert_eq!(
            (c.pacing_rate_bps, c.delivery_rate_bps),
            (Some(10_000_000), 5_000_000)
        );
        // IPv4 on a dual-stack socket reads as IPv4.
        let mut mapped = [0u8; 16];
        mapped[10..12].copy_from_slice(&[0xff, 0xff]);
        mapped[12..].copy_from_slice(&[127, 0, 0, 1]);
        let c = parse(&record(TCP_ESTABLISHED, "c2tcp", AF_INET6, mapped))
            .unwrap()
            .unwrap();
        assert_eq!(c.local.ip().to_string(), "127.0.0.1");
        // Listeners, unconnected sockets and other congestion controls are not listed.
        assert!(parse(&record(TCP_LISTEN, "c2tcp", 2, v4))
            .unwrap()
            .is_none());
        assert!(parse(&record(TCP_CLOSE, "c2tcp", 2, v4)).unwrap().is_none());
        assert!(parse(&record(TCP_ESTABLISHED, "cubic", 2, v4))
            .unwrap()
            .is_none());
        // A record of another size is refused with the fix.
        let mut other = record(TCP_ESTABLISHED, "c2tcp", 2, v4);
        other[..4].copy_from_slice(&128u32.to_ne_bytes());
        assert!(parse(&other)
            .unwrap_err()
            .to_string()
            .contains("load c2tcp again"));
    }
}
