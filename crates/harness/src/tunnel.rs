// SPDX-License-Identifier: GPL-2.0-only
//! A scenario's flows through a tunnel over the emulated link: the
//! `[tunnel]` table (`via = "sprout"`: SproutTunnel, Sprout paper §4.3,
//! §5.7), or `c2tcp run --tunnel sprout`.
//!
//! ```text
//!  server netns                                              UE netns
//!  senders ─► sprt0 ─► c2tcp sprout-tunnel ══ UDP over the emulated link ══ c2tcp sprout-tunnel ─► sprt0 ─► receivers
//!  100.127.0.1         (per-flow queues, Sprout's window)                                          100.127.0.2
//! ```
//!
//! The runner starts one tunnel end in each namespace once the emulator is
//! up (the server end learns the UE end's address from its first datagram),
//! waits for both devices, and gives the flows the tunnel's addresses
//! instead of the link's, so every flow's packets, both ways, cross the link
//! inside Sprout datagrams. After the flows end it stops both ends (SIGTERM;
//! the devices and their routes vanish with the processes, and the
//! processes die with the runner: `Netns::command`).
//!
//! Measuring. The emulator's logs now see only the tunnel's UDP datagrams
//! (analysed aside in `link/`). The flows are measured where the truth
//! is: each tunnel end records every IP packet it carries (read from its
//! device and sent in Sprout packet n, or dropped from the longest queue's
//! head; or Sprout packet n's payload written to its device:
//! `sprout::tunnel_log`), both ends on the emulator's clock. Joining one
//! end's `s`/`d` records with the other end's `r` records by packet
//! number gives, per carried packet, when it entered the tunnel and when it
//! came out; those become `tunnel-downlink.log` / `tunnel-uplink.log` in the
//! emulator's log format (the link's delivery opportunities copied from
//! its own log), and the run's analysis reads those instead:
//!
//! - arrival (`+`): entry into the tunnel + the link's propagation delay;
//! - departure (`-`): written out of the far end's device, with queueing
//!   delay = transit − propagation (the tunnel's queue, Sprout's, the
//!   link's), so one-way delay = transit, entry to exit;
//! - drop (`d … head`): dropped from the head of the longest queue.
//!
//! So a flow's throughput is its bytes out of the far end's device, its
//! delays those of its own packets from entry to exit, and capacity,
//! utilisation and the omniscient sender's delay come from the link's own
//! opportunities: the tunnel's overhead (48 bytes of Sprout header per
//! packet, its heartbeats and feedback) is paid by the flows, as in the
//! paper.
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use metrics::log::{Event, LogReader};
use metrics::{AnalysisConfig, FlowGroup, FlowMatch, LogHeader};
use netns::Netns;
use serde::{Deserialize, Serialize};
use sprout::tunnel::FlowKey;
use sprout::tunnel_log::{self, Record};
use sprout::tunnel_net::TunnelReport;

/// Which tunnel. One kind so far.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Via {
    /// SproutTunnel (`c2tcp sprout-tunnel`).
    Sprout,
}

/// A scenario's `[tunnel]` table.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TunnelOptions {
    /// `"sprout"`: SproutTunnel.
    pub via: Via,
    /// Both ends' receivers' forecast percentile (Sprout's confidence), %.
    #[serde(default = "default_confidence")]
    pub confidence: f64,
    /// Top of the ends' rate model, Mbit/s [default: sprout-tunnel's, 30].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rate_mbps: Option<f64>,
}

fn default_confidence() -> f64 {
    5.0
}

impl TunnelOptions {
    /// `--tunnel WORD`: `sprout`, or `none` (no tunnel, whatever the file says).
    pub fn from_word(word: &str) -> Result<Option<TunnelOptions>, String> {
        match word {
            "none" => Ok(None),
            "sprout" => Ok(Some(TunnelOptions {
                via: Via::Sprout,
                confidence: default_confidence(),
                max_rate_mbps: None,
            })),
            w => Err(format!("`{w}`: give sprout (SproutTunnel) or none")),
        }
    }

    /// The fields' ranges, named as the scenario names them.
    pub fn validate(&self) -> Result<()> {
        if !(self.confidence > 0.0 && self.confidence < 100.0) {
            bail!(
                "tunnel.confidence: {} is out of range (0, 100) (a percentile)",
                self.confidence
            );
        }
        if let Some(m) = self.max_rate_mbps {
            if !(m.is_finite() && (1.0..=100.0).contains(&m)) {
                bail!("tunnel.max_rate_mbps: {m} is out of range [1, 100]");
            }
        }
        Ok(())
    }
}

/// The tunnel's addresses on its devices (shared address space, a /30 in
/// the run's own namespaces; never routed anywhere else).
pub const SERVER_ADDR: Ipv4Addr = Ipv4Addr::new(100, 127, 0, 1);
pub const UE_ADDR: Ipv4Addr = Ipv4Addr::new(100, 127, 0, 2);
/// The tunnel's UDP port at both ends (the flows use 6000 + i).
pub const PORT: u16 = 7000;
const DEVICE: &str = "sprt0";

fn stats_path(out: &Path, end: &str) -> PathBuf {
    out.join(format!("tunnel-{end}.json"))
}
fn records_path(out: &Path, end: &str) -> PathBuf {
    out.join(format!("tunnel-{end}.records"))
}
fn stderr_path(out: &Path, end: &str) -> PathBuf {
    out.join(format!("tunnel-{end}.stderr"))
}

/// Both tunnel ends, running.
pub struct Running {
    /// server, UE.
    children: Vec<(&'static str, Child)>,
    out: PathBuf,
}

/// Starts both ends around the link (`server_link` / `ue_link`: the
/// emulator's addresses) and waits until both devices are up.
pub fn start(
    opts: &TunnelOptions,
    server: &Netns,
    ue: &Netns,
    server_link: Ipv4Addr,
    ue_link: Ipv4Addr,
    helper_exe: &Path,
    out: &Path,
) -> Result<Running> {
    let exe = helper_exe
        .to_str()
        .with_context(|| format!("non-UTF-8 path {}", helper_exe.display()))?;
    let mut running = Running {
        children: Vec::new(),
        out: out.to_path_buf(),
    };
    for (end, ns, listen, me, other, peer) in [
        ("server", server, server_link, SERVER_ADDR, UE_ADDR, None),
        ("ue", ue, ue_link, UE_ADDR, SERVER_ADDR, Some(server_link)),
    ] {
        let stderr = std::fs::File::create(stderr_path(out, end))
            .with_context(|| format!("creating {}", stderr_path(out, end).display()))?;
        let mut cmd = ns.command(exe);
        cmd.args(["sprout-tunnel", "--listen", &format!("{listen}:{PORT}")])
            .args([
                "--address",
                &me.to_string(),
                "--peer-address",
                &other.to_string(),
            ])
            .args(["--device", DEVICE])
            .args(["--confidence", &opts.confidence.to_string()])
            .arg("--stats")
            .arg(stats_path(out, end))
            .arg("--records")
            .arg(records_path(out, end))
            .stdout(Stdio::null())
            .stderr(stderr);
        if let Some(m) = opts.max_rate_mbps {
            cmd.args(["--max-rate-mbps", &m.to_string()]);
        }
        if let Some(p) = peer {
            cmd.args(["--peer", &format!("{p}:{PORT}")]);
        }
        let child = cmd
            .spawn()
            .with_context(|| format!("starting the tunnel's {end} end ({exe} sprout-tunnel)"))?;
        running.children.push((end, child));
    }
    // Both ends build their model's tables before their device exists.
    let deadline = Instant::now() + Duration::from_secs(20);
    for (ns, i) in [(server, 0), (ue, 1)] {
        while !device_up(ns) {
            let (end, child) = &mut running.children[i];
            if let Some(status) = child.try_wait()? {
                let why = std::fs::read_to_string(stderr_path(out, end)).unwrap_or_default();
                bail!(
                    "the tunnel's {end} end exited ({status}) before its device was up: {}",
                    why.trim()
                );
            }
            if Instant::now() >= deadline {
                bail!("the tunnel's {end} end did not bring {DEVICE} up within 20 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    Ok(running)
}

fn device_up(ns: &Netns) -> bool {
    ns.command("ip")
        .args(["-o", "addr", "show", "dev", DEVICE])
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success() && !o.stdout.is_empty())
}

/// What both ends reported (`tunnel.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Reports {
    pub server: TunnelReport,
    pub ue: TunnelReport,
}

impl Running {
    /// The addresses the flows use in place of the link's: server, UE.
    pub fn addrs(&self) -> (Ipv4Addr, Ipv4Addr) {
        (SERVER_ADDR, UE_ADDR)
    }

    /// Stops both ends (SIGTERM, then SIGKILL after 10 s) and reads their
    /// reports; writes `tunnel.json`.
    pub fn stop(mut self) -> Result<Reports> {
        let children = std::mem::take(&mut self.children);
        let mut failed = None;
        for (end, mut child) in children {
            let status = stop_child(&mut child)?;
            if !status.success() && failed.is_none() {
                let why = std::fs::read_to_string(stderr_path(&self.out, end)).unwrap_or_default();
                failed = Some(format!(
                    "the tunnel's {end} end failed ({status}): {}",
                    why.trim()
                ));
            }
        }
        if let Some(f) = failed {
            bail!(f);
        }
        let read = |end: &str| -> Result<TunnelReport> {
            let p = stats_path(&self.out, end);
            let text =
                std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
            serde_json::from_str(&text)
                .with_context(|| format!("{}: not a sprout-tunnel report", p.display()))
        };
        let r = Reports {
            server: read("server")?,
            ue: read("ue")?,
        };
        let text = serde_json::to_string_pretty(&r)? + "\n";
        let p = self.out.join("tunnel.json");
        wholefile::write(&p, text.as_bytes())
            .with_context(|| format!("writing {}", p.display()))?;
        Ok(r)
    }
}

impl Drop for Running {
    /// A run that failed before `stop`: the ends go at once.
    fn drop(&mut self) {
        for (_, child) in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn stop_child(child: &mut Child) -> Result<std::process::ExitStatus> {
    if let Some(s) = child.try_wait()? {
        return Ok(s);
    }
    plumbing::process::terminate(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(s) = child.try_wait()? {
            return Ok(s);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            return Ok(child.wait()?);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The run's logs as the tunnel's flows saw them: `tunnel-downlink.log`
/// from the server end's sent/dropped records and the UE end's received
/// ones, `tunnel-uplink.log` the other way round; the link's logs give
/// the header and the delivery opportunities. Returns the two paths.
pub fn write_logs(out: &Path) -> Result<(PathBuf, PathBuf)> {
    let server = read_records(&records_path(out, "server"))?;
    let ue = read_records(&records_path(out, "ue"))?;
    let down = out.join("tunnel-downlink.log");
    let up = out.join("tunnel-uplink.log");
    join(&out.join("downlink.log"), &server, &ue, &down)?;
    join(&out.join("uplink.log"), &ue, &server, &up)?;
    Ok((down, up))
}

fn read_records(path: &Path) -> Result<Vec<Record>> {
    let f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut v = Vec::new();
    for (i, line) in BufReader::new(f).lines().enumerate() {
        let line = line.with_context(|| format!("reading {}", path.display()))?;
        if let Some(r) = tunnel_log::parse_line(&line)
            .map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), i + 1))?
        {
            v.push(r);
        }
    }
    Ok(v)
}

/// One event of the joined log: time (µs since the base), its order among
/// events at the same µs, its line.
type Line = (u64, u8, String);

fn ms3(us: u64) -> String {
    format!("{}.{:03}", us / 1000, us % 1000)
}

fn proto_name(p: u8) -> &'static str {
    match p {
        6 => "tcp",
        17 => "udp",
        1 => "icmp",
        _ => "other",
    }
}

/// One direction's log: `sending`'s s/d records joined with `receiving`'s
/// r records, the opportunities of the link's log `link_log`.
fn join(link_log: &Path, sending: &[Record], receiving: &[Record], dest: &Path) -> Result<()> {
    let mut reader = LogReader::open(link_log)?;
    let mut lines: Vec<Line> = Vec::new();
    while let Some(ev) = reader.next_event()? {
        if let Event::Opportunity { t, bytes } = ev {
            lines.push((t, 0, format!("{} # {bytes}", ms3(t))));
        }
    }
    let link: LogHeader = reader.header().clone();
    let Some(base_ms) = link.base_timestamp_ms else {
        bail!("{}: no base timestamp", link_log.display());
    };
    let base = base_ms * 1000;
    let prop = (link.delay_ms.unwrap_or(0.0) * 1000.0).round() as u64;
    let rel = |abs: u64| abs.saturating_sub(base);

    let written: HashMap<u64, u64> = receiving
        .iter()
        .filter_map(|r| match r {
            Record::Received {
                pkt_no, written_us, ..
            } => Some((*pkt_no, *written_us)),
            _ => None,
        })
        .collect();
    let mut flows: HashMap<FlowKey, u32> = HashMap::new();
    let mut flow_lines: Vec<String> = Vec::new();
    let mut id_of = |k: FlowKey| -> u32 {
        let n = flows.len() as u32 + 1;
        *flows.entry(k).or_insert_with(|| {
            flow_lines.push(format!(
                "# flow {n} {} {}:{} > {}:{}",
                proto_name(k.proto),
                Ipv4Addr::from(k.src),
                k.sport,
                Ipv4Addr::from(k.dst),
                k.dport
            ));
            n
        })
    };
    for r in sending {
        match *r {
            Record::Sent {
                enqueued_us,
                pkt_no,
                len,
                flow,
                ..
            } => {
                let id = id_of(flow);
                match written.get(&pkt_no) {
                    Some(&w) => {
                        let transit = w.saturating_sub(enqueued_us);
                        let queue = transit.saturating_sub(prop);
                        let arrival = rel(w) - queue.min(rel(w));
                        lines.push((arrival, 1, format!("{} + {len} {id}", ms3(arrival))));
                        lines.push((
                            rel(w),
                            2,
                            format!("{} - {len} {} {id}", ms3(rel(w)), ms3(queue)),
                        ));
                    }
                    // Lost on the link, or still on its way at the end.
                    None => {
                        let arrival = rel(enqueued_us + prop);
                        lines.push((arrival, 1, format!("{} + {len} {id}", ms3(arrival))));
                    }
                }
            }
            Record::Dropped {
                enqueued_us,
                dropped_us,
                len,
                flow,
            } => {
                let id = id_of(flow);
                let arrival = rel(enqueued_us + prop);
                let at = rel(dropped_us + prop).max(arrival);
                lines.push((arrival, 1, format!("{} + {len} {id}", ms3(arrival))));
                lines.push((at, 3, format!("{} d {len} head {id}", ms3(at))));
            }
            Record::Received { .. } => {}
        }
    }
    lines.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    let header = LogHeader {
        queue: Some("sprout-tunnel".into()),
        ..link
    };
    wholefile::write_with(dest, |f| -> std::io::Result<()> {
        let mut w = std::io::BufWriter::new(f);
        header.write_to(&mut w)?;
        writeln!(
            w,
            "# the flows inside SproutTunnel: arrival = entry into the tunnel + propagation, \
             departure = exit from the far end, queue delay = transit - propagation (harness/src/tunnel.rs)"
        )?;
        for l in &flow_lines {
            writeln!(w, "{l}")?;
        }
        let mut buf = String::new();
        for (_, _, l) in &lines {
            buf.clear();
            let _ = writeln!(buf, "{l}");
            w.write_all(buf.as_bytes())?;
        }
        w.flush()
    })
    .with_context(|| format!("writing {}", dest.display()))
}

/// What the link itself carried: the emulator's logs analysed for the
/// tunnel's datagrams, written into `link/` (data downlink, the way back
/// on the uplink's log).
pub fn analyze_link(warmup_s: f64, duration_s: f64, out: &Path) -> Result<()> {
    let cfg = AnalysisConfig {
        warmup_s,
        duration_s: Some(duration_s - warmup_s),
        select: vec![FlowMatch::port(PORT)],
        groups: vec![FlowGroup {
            label: "sprout-tunnel".into(),
            members: vec![FlowMatch::port(PORT)],
        }],
        ..Default::default()
    };
    let log = out.join("downlink.log");
    let a = metrics::analyze(&log, &cfg).with_context(|| format!("analysing {}", log.display()))?;
    results::write_analysis(&out.join("link"), &a)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(sport: u16) -> FlowKey {
        FlowKey {
            proto: 17,
            src: [100, 127, 0, 1],
            dst: [100, 127, 0, 2],
            sport,
            dport: 6001,
        }
    }

    /// A link log with opportunities every ms from 0 to 999 ms.
    fn link_log(dir: &Path) -> PathBuf {
        let p = dir.join("downlink.log");
        let mut head = Vec::new();
        LogHeader::emu(5000, "downlink", 1504, 20.0, "infinite", 0.0)
            .write_to(&mut head)
            .unwrap();
        let mut text = String::from_utf8(head).unwrap();
        for ms in 0..1000 {
            let _ = writeln!(text, "{ms}.000 # 1504");
        }
        std::fs::write(&p, text).unwrap();
        p
    }

    /// Entry at 5 100 ms (absolute), exit 60 ms later: queue 40 ms over the
    /// 20-ms propagation; a drop; one packet lost.
    #[test]
    fn records_join_into_a_log_the_analysis_measures() {
        let dir = tempfile::tempdir().unwrap();
        let link = link_log(dir.path());
        let base = 5_000_000;
        let mut sending = Vec::new();
        let mut receiving = Vec::new();
        for i in 0..10u64 {
            let enq = base + 100_000 + i * 50_000;
            sending.push(Record::Sent {
                enqueued_us: enq,
                sent_us: enq + 1000,
                pkt_no: i,
                len: 1000,
                flow: key(6001),
            });
            if i != 9 {
                receiving.push(Record::Received {
                    pkt_no: i,
                    written_us: enq + 60_000,
                    len: 1000,
                    flow: key(6001),
                });
            }
        }
        sending.push(Record::Dropped {
            enqueued_us: base + 200_000,
            dropped_us: base + 210_000,
            len: 500,
            flow: key(6001),
        });
        let dest = dir.path().join("tunnel-downlink.log");
        join(&link, &sending, &receiving, &dest).unwrap();
        let text = std::fs::read_to_string(&dest).unwrap();
        assert!(
            text.contains("# flow 1 udp 100.127.0.1:6001 > 100.127.0.2:6001"),
            "{text}"
        );
        // Packet 0: entered at 100 ms, out at 160 ms: at the queue after the
        // 20-ms propagation, 40 ms queued.
        assert!(text.contains("\n120.000 + 1000 1\n"), "{text}");
        assert!(text.contains("\n160.000 - 1000 40.000 1\n"), "{text}");
        assert!(text.contains(" d 500 head 1\n"), "{text}");
        let cfg = AnalysisConfig {
            select: vec![FlowMatch::port(6001)],
            ..Default::default()
        };
        let a = metrics::analyze(&dest, &cfg).unwrap();
        let m = &a.aggregate;
        assert_eq!(m.p95_queue_delay_ms, Some(40.0));
        assert_eq!(m.avg_delay_ms, Some(60.0), "one-way = transit");
        // 9 packets of 1000 bytes out in the window.
        assert!(m.throughput_mbps > 0.0);
    }
}
