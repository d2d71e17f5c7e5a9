// SPDX-License-Identifier: GPL-2.0-only
//! A shaped bottleneck between two namespaces, and flows across it, for the
//! privileged tests and the `shaped_link` example: a server namespace sends
//! over a veth whose egress is a `tbf` (rate + a deep byte queue, the
//! eNodeB's buffer) to a UE namespace, where the receivers run, optionally
//! under an `rxctl::Controller`. Everything vanishes with the process.
#![allow(dead_code)]
use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use netns::{veth_pair, Netns};
use rxctl::{Config, Controller, FlowRecord};

pub const SERVER: Ipv4Addr = Ipv4Addr::new(10, 201, 0, 1);
pub const UE: Ipv4Addr = Ipv4Addr::new(10, 201, 0, 2);

pub struct Bottleneck {
    pub server: Netns,
    pub ue: Netns,
}

impl Bottleneck {
    /// `rate` as tc takes it (`8mbit`), `queue_bytes` of tbf queue.
    pub fn new(rate: &str, queue_bytes: u32) -> Result<Bottleneck> {
        let server = Netns::new("rxctl-server")?;
        let ue = Netns::new("rxctl-ue")?;
        veth_pair(&server, "rxs", &ue, "rxu")?;
        server.ip(&["addr", "add", &format!("{SERVER}/24"), "dev", "rxs"])?;
        ue.ip(&["addr", "add", &format!("{UE}/24"), "dev", "rxu"])?;
        // burst: two full frames, so tbf paces packet by packet.
        let limit = queue_bytes.to_string();
        netns::run_checked(
            server.command("tc").args([
                "qdisc", "add", "dev", "rxs", "root", "tbf", "rate", rate, "burst", "3028",
                "limit", &limit,
            ]),
            "tc qdisc add tbf",
        )?;
        Ok(Bottleneck { server, ue })
    }
}

#[derive(Debug, Clone)]
pub struct FlowSpec {
    pub label: String,
    pub start: Duration,
    /// A sized flow, else bulk until the run's end.
    pub size: Option<u64>,
}

#[derive(Debug, Clone, Default)]
pub struct FlowResult {
    pub label: String,
    pub bytes: u64,
    /// Last byte received, since the flow's start (sized flows).
    pub fct: Option<Duration>,
    /// Sender-side TCP_INFO every 20 ms.
    pub samples: Vec<Sample>,
    pub retrans: u32,
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// Since the run's start.
    pub t: Duration,
    pub srtt_us: u32,
    pub min_rtt_us: u32,
    pub bytes_acked: u64,
}

impl FlowResult {
    fn within(&self, from: Duration, to: Duration) -> impl Iterator<Item = &Sample> {
        self.samples.iter().filter(move |s| s.t >= from && s.t < to)
    }

    /// Mean sender-side queueing delay (srtt − min_rtt), ms, in [from, to).
    pub fn mean_queueing_ms(&self, from: Duration, to: Duration) -> Option<f64> {
        let v: Vec<f64> = self
            .within(from, to)
            .map(|s| s.srtt_us.saturating_sub(s.min_rtt_us) as f64 / 1e3)
            .collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    }

    /// Mean sender-side smoothed RTT, ms, in [from, to).
    pub fn mean_srtt_ms(&self, from: Duration, to: Duration) -> Option<f64> {
        let v: Vec<f64> = self
            .within(from, to)
            .map(|s| s.srtt_us as f64 / 1e3)
            .collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    }

    /// Goodput (acknowledged bytes per second) in [from, to).
    pub fn goodput(&self, from: Duration, to: Duration) -> Option<f64> {
        let first = self.within(from, to).next()?;
        let last = self.within(from, to).last()?;
        let dt = (last.t - first.t).as_secs_f64();
        (dt > 0.0).then(|| (last.bytes_acked - first.bytes_acked) as f64 / dt)
    }
}

/// Runs the flows (Cubic senders) for at most `duration`; with `ctl`, every
/// receiver is registered with one controller for the UE. Sized flows end
/// the run early once all of them have completed (bulk ones are stopped).
pub fn run(
    b: &Bottleneck,
    flows: &[FlowSpec],
    duration: Duration,
    ctl: Option<Config>,
) -> Result<(Vec<FlowResult>, Vec<FlowRecord>)> {
    let start = Instant::now();
    let ctl = match ctl {
        Some(mut cfg) => {
            cfg.epoch = start;
            // Created in the UE namespace, where its sysctl check belongs.
            Some(Arc::new(b.ue.run(move || Controller::spawn(cfg))??))
        }
        None => None,
    };
    let end = start + duration;
    let sized_left = Arc::new(Mutex::new(
        flows.iter().filter(|f| f.size.is_some()).count(),
    ));
    let mut handles = Vec::new();
    for (i, f) in flows.iter().enumerate() {
        let port = 5100 + i as u16;
        let listener =
            b.ue.run(move || TcpListener::bind(SocketAddrV4::new(UE, port)))??;
        let (ctl_rx, spec_rx, left) = (ctl.clone(), f.clone(), sized_left.clone());
        let rx = b.ue.spawn("rx", move || {
            receive(listener, &spec_rx, start, end, ctl_rx.as_deref(), &left)
        })?;
        let spec_tx = f.clone();
        let left_tx = sized_left.clone();
        let tx = b
            .server
            .spawn("tx", move || send(port, &spec_tx, start, end, &left_tx))?;
        handles.push((rx, tx));
    }
    let mut results = Vec::new();
    for (rx, tx) in handles {
        let (bytes, fct) = rx
            .join()
            .map_err(|_| anyhow::anyhow!("receiver panicked"))???;
        let mut r = tx
            .join()
            .map_err(|_| anyhow::anyhow!("sender panicked"))???;
        r.bytes = bytes;
        r.fct = fct;
        results.push(r);
    }
    let records = match ctl {
        Some(c) => c.stop(),
        None => Vec::new(),
    };
    Ok((results, records))
}

fn all_sized_done(left: &Mutex<usize>, any_sized: bool) -> bool {
    any_sized && *left.lock().unwrap() == 0
}

fn send(
    port: u16,
    f: &FlowSpec,
    start: Instant,
    end: Instant,
    left: &Mutex<usize>,
) -> Result<FlowResult> {
    let mut r = FlowResult {
        label: f.label.clone(),
        ..Default::default()
    };
    let any_sized = *left.lock().unwrap() > 0;
    std::thread::sleep((start + f.start).saturating_duration_since(Instant::now()));
    let mut s = TcpStream::connect(SocketAddrV4::new(UE, port)).context("connect")?;
    sockopt::set_congestion(&s, "cubic")?;
    s.set_write_timeout(Some(Duration::from_millis(20)))?;
    let chunk = vec![0x5au8; 16 * 1024];
    let mut sent = 0u64;
    let mut next_sample = Instant::now();
    loop {
        let now = Instant::now();
        if now >= next_sample {
            let ti = sockopt::tcp_info(&s)?;
            if ti.min_rtt > 0 {
                r.samples.push(Sample {
                    t: now - start,
                    srtt_us: ti.rtt,
                    min_rtt_us: ti.min_rtt,
                    bytes_acked: ti.bytes_acked,
                });
            }
            next_sample = now + Duration::from_millis(20);
        }
        let want = f.size.map_or(chunk.len() as u64, |size| {
            (size - sent).min(chunk.len() as u64)
        });
        if want == 0 || now >= end || (f.size.is_none() && all_sized_done(left, any_sized)) {
            break;
        }
        match s.write(&chunk[..want as usize]) {
            Ok(n) => sent += n as u64,
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(e).context("send"),
        }
    }
    r.retrans = sockopt::tcp_info(&s)?.total_retrans;
    s.shutdown(std::net::Shutdown::Write)?;
    Ok(r)
}

fn receive(
    listener: TcpListener,
    f: &FlowSpec,
    start: Instant,
    end: Instant,
    ctl: Option<&Controller>,
    left: &Mutex<usize>,
) -> Result<(u64, Option<Duration>)> {
    let (mut c, _) = listener.accept().context("accept")?;
    let id = ctl.map(|ctl| ctl.register(&c, &f.label)).transpose()?;
    c.set_read_timeout(Some(Duration::from_millis(20)))?;
    let mut buf = vec![0u8; 256 * 1024];
    let (mut bytes, mut fct) = (0u64, None);
    // Bulk flows read until their sender closes; sized ones until complete.
    while Instant::now() < end + Duration::from_secs(5) {
        match c.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                bytes += n as u64;
                if f.size == Some(bytes) {
                    fct = Some(Instant::now() - (start + f.start));
                    *left.lock().unwrap() -= 1;
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(e).context("receive"),
        }
    }
    if let (Some(ctl), Some(id)) = (ctl, id) {
        ctl.unregister(id);
    }
    Ok((bytes, fct))
}
