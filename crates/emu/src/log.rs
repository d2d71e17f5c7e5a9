// SPDX-License-Identifier: GPL-2.0-only
//! The per-direction event log, in Mahimahi's format with µs precision and
//! drop lines (spec: docs/log-format.md). Lines are formatted into a buffer
//! without allocating; full buffers (and, from the forwarding loop, any
//! buffer half a second old) go to a writer thread, so the emulator thread
//! never waits on the disk. A failed write (a full disk) is kept in the
//! log's [`LogHealth`], which the runner polls to stop the run at once.
//! With logging off none of this runs.
use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::net::Ipv4Addr;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use anyhow::{Context, Result};

use crate::clock::{write_ms3, write_u64, Micros};
use crate::queue::DropReason;
use crate::relay::Relay;
use logformat::MarkCause;

const BUF_BYTES: usize = 1 << 20;
/// Flush when less than this is left: more than the longest line.
const HEADROOM: usize = 256;

/// The first write error of a log, shared by its writer thread (which sets
/// it) and whoever watches the run (which reads it; never the packet path).
#[derive(Clone, Debug, Default)]
pub struct LogHealth(Arc<OnceLock<String>>);

impl LogHealth {
    /// `writing <path>: <error>` once a write has failed.
    pub fn error(&self) -> Option<&str> {
        self.0.get().map(String::as_str)
    }

    pub(crate) fn fail(&self, path: &Path, e: &std::io::Error) {
        let _ = self.0.set(format!("writing {}: {e}", path.display()));
    }
}

/// What the header says about the run (written and parsed by `logformat`,
/// its one owner).
pub use logformat::LogHeader;

/// A flow's 5-tuple as the log names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FlowKey {
    pub proto: u8,
    pub src: Ipv4Addr,
    pub sport: u16,
    pub dst: Ipv4Addr,
    pub dport: u16,
}

impl FlowKey {
    /// Reads the 5-tuple of an IPv4 packet (ports 0 when absent, e.g. ICMP
    /// or a later fragment); anything else is one "other" flow.
    pub fn of(pkt: &[u8]) -> FlowKey {
        let none = FlowKey {
            proto: 0,
            src: Ipv4Addr::UNSPECIFIED,
            sport: 0,
            dst: Ipv4Addr::UNSPECIFIED,
            dport: 0,
        };
        if pkt.len() < 20 || pkt[0] >> 4 != 4 {
            return none;
        }
        let ihl = (pkt[0] & 0x0f) as usize * 4;
        let proto = pkt[9];
        let src = Ipv4Addr::new(pkt[12], pkt[13], pkt[14], pkt[15]);
        let dst = Ipv4Addr::new(pkt[16], pkt[17], pkt[18], pkt[19]);
        let first_fragment = u16::from_be_bytes([pkt[6], pkt[7]]) & 0x1fff == 0;
        let (sport, dport) = if matches!(proto, 6 | 17) && first_fragment && pkt.len() >= ihl + 4 {
            (
                u16::from_be_bytes([pkt[ihl], pkt[ihl + 1]]),
                u16::from_be_bytes([pkt[ihl + 2], pkt[ihl + 3]]),
            )
        } else {
            (0, 0)
        };
        FlowKey {
            proto,
            src,
            sport,
            dst,
            dport,
        }
    }

    fn proto_name(&self) -> &'static str {
        match self.proto {
            6 => "tcp",
            17 => "udp",
            1 => "icmp",
            _ => "other",
        }
    }
}

pub struct Log {
    relay: Relay<u8>,
    base: Micros,
    flows: HashMap<FlowKey, u32>,
    /// The last flow looked up: a burst (the segments of one TSO
    /// super-packet, a window of one flow) skips the hash map's SipHash.
    last_flow: Option<(FlowKey, u32)>,
}

impl Log {
    /// Creates `path` and writes the header; `base` is the run's start (µs,
    /// a whole millisecond), which every line's time is relative to, and
    /// the header's base timestamp.
    pub fn create(path: &Path, base: Micros, header: &LogHeader) -> Result<Log> {
        let mut file =
            File::create(path).with_context(|| format!("creating log {}", path.display()))?;
        let header = LogHeader {
            base_timestamp_ms: Some(base / 1000),
            ..header.clone()
        };
        header
            .write_to(&mut file)
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(Log {
            relay: Relay::spawn("log", "emu-log", path, BUF_BYTES, base, file, |f, buf| {
                f.write_all(buf)
            })?,
            base,
            flows: HashMap::with_capacity(1024),
            last_flow: None,
        })
    }

    /// Where this log's first write error shows.
    pub fn health(&self) -> LogHealth {
        self.relay.health()
    }

    /// Called by the forwarding loop once per wake-up (not per packet):
    /// hands the buffer to the writer when it has waited long enough.
    #[inline]
    pub fn tick(&mut self, now: Micros) {
        self.relay.tick(now);
    }

    #[inline]
    fn room(&mut self) {
        if self.relay.buf.capacity() - self.relay.buf.len() < HEADROOM {
            self.relay.hand_over();
        }
    }

    #[inline]
    fn time(&mut self, t: Micros) {
        self.room();
        write_ms3(&mut self.relay.buf, t.saturating_sub(self.base));
    }

    /// The flow id of a packet, announcing the flow with a `# flow` line
    /// the first time it is seen.
    pub fn flow_id(&mut self, pkt: &[u8]) -> u32 {
        let key = FlowKey::of(pkt);
        match self.last_flow {
            Some((k, id)) if k == key => return id,
            _ => {}
        }
        if let Some(&id) = self.flows.get(&key) {
            self.last_flow = Some((key, id));
            return id;
        }
        let id = self.flows.len() as u32 + 1;
        self.flows.insert(key, id);
        self.last_flow = Some((key, id));
        self.room();
        let line = format!(
            "# flow {id} {} {}:{} > {}:{}\n",
            key.proto_name(),
            key.src,
            key.sport,
            key.dst,
            key.dport
        );
        self.relay.buf.extend_from_slice(line.as_bytes());
        id
    }

    /// `<t> + <bytes> <flow>`: arrival at the bottleneck queue.
    #[inline]
    pub fn arrival(&mut self, t: Micros, bytes: u32, flow: u32) {
        self.time(t);
        self.relay.buf.extend_from_slice(b" + ");
        self.tail2(bytes as u64, flow as u64);
    }

    /// `<t> # <bytes>`: a delivery opportunity.
    #[inline]
    pub fn opportunity(&mut self, t: Micros, bytes: u32) {
        self.time(t);
        self.relay.buf.extend_from_slice(b" # ");
        write_u64(&mut self.relay.buf, bytes as u64);
        self.relay.buf.push(b'\n');
    }

    /// `<t> - <bytes> <queue_delay> <flow>[ ce[:<cause>]][ l]`: departure;
    /// ` ce` when the queue marked it Congestion Experienced (` ce:step`,
    /// `:coupled`, `:classic`, `:overload` when it tells why), ` l` when it
    /// went through an L4S queue (DualPI2's L queue, an L4S marker's ECT(1)).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn departure(
        &mut self,
        t: Micros,
        bytes: u32,
        queue_delay: Micros,
        flow: u32,
        ce: bool,
        cause: Option<MarkCause>,
        l4s: bool,
    ) {
        self.time(t);
        self.relay.buf.extend_from_slice(b" - ");
        write_u64(&mut self.relay.buf, bytes as u64);
        self.relay.buf.push(b' ');
        write_ms3(&mut self.relay.buf, queue_delay);
        self.relay.buf.push(b' ');
        write_u64(&mut self.relay.buf, flow as u64);
        if ce {
            self.relay.buf.extend_from_slice(b" ce");
            if let Some(c) = cause {
                self.relay.buf.push(b':');
                self.relay.buf.extend_from_slice(c.name().as_bytes());
            }
        }
        if l4s {
            self.relay.buf.extend_from_slice(b" l");
        }
        self.relay.buf.push(b'\n');
    }

    /// `<t> d <bytes> <reason> <flow>`: drop.
    #[inline]
    pub fn drop(&mut self, t: Micros, bytes: u32, reason: DropReason, flow: u32) {
        self.time(t);
        self.relay.buf.extend_from_slice(b" d ");
        write_u64(&mut self.relay.buf, bytes as u64);
        self.relay.buf.push(b' ');
        self.relay.buf.extend_from_slice(reason.name().as_bytes());
        self.relay.buf.push(b' ');
        write_u64(&mut self.relay.buf, flow as u64);
        self.relay.buf.push(b'\n');
    }

    fn tail2(&mut self, a: u64, b: u64) {
        write_u64(&mut self.relay.buf, a);
        self.relay.buf.push(b' ');
        write_u64(&mut self.relay.buf, b);
        self.relay.buf.push(b'\n');
    }

    /// Writes everything out and closes the file.
    pub fn finish(mut self) -> Result<()> {
        self.relay.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn udp(src: [u8; 4], sport: u16, dst: [u8; 4], dport: u16) -> Vec<u8> {
        let mut p = vec![0u8; 28];
        p[0] = 0x45;
        p[9] = 17;
        p[12..16].copy_from_slice(&src);
        p[16..20].copy_from_slice(&dst);
        p[20..22].copy_from_slice(&sport.to_be_bytes());
        p[22..24].copy_from_slice(&dport.to_be_bytes());
        p
    }

    #[test]
    fn writes_the_documented_format() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("down.log");
        let base = 5_000_000;
        let header = LogHeader::emu(0, "downlink", 1500, 10.0, "droptail:packets=100", 0.0);
        let mut log = Log::create(&path, base, &header).unwrap();
        let a = udp([100, 96, 0, 1], 5000, [100, 96, 0, 2], 6000);
        let f = log.flow_id(&a);
        assert_eq!(log.flow_id(&a), f, "same flow, same id");
        let g = log.flow_id(&udp([100, 96, 0, 1], 5001, [100, 96, 0, 2], 6000));
        log.arrival(base + 1_234_567, 1500, f);
        log.opportunity(base + 1_235_000, 1500);
        log.departure(base + 1_235_000, 1500, 433, f, false, None, false);
        log.departure(base + 1_235_000, 1500, 433, f, true, None, false);
        log.departure(base + 1_235_000, 1500, 433, f, true, None, true);
        log.departure(base + 1_235_000, 1500, 433, f, false, None, true);
        log.departure(
            base + 1_235_000,
            1500,
            433,
            f,
            true,
            Some(MarkCause::Step),
            true,
        );
        log.drop(base + 1_236_001, 52, DropReason::Codel, g);
        log.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "# base timestamp: 5000\n\
             # c2tcp-emu v1 direction=downlink opportunity_bytes=1500 delay_ms=10 queue=droptail:packets=100 loss=0\n\
             # flow 1 udp 100.96.0.1:5000 > 100.96.0.2:6000\n\
             # flow 2 udp 100.96.0.1:5001 > 100.96.0.2:6000\n\
             1234.567 + 1500 1\n\
             1235.000 # 1500\n\
             1235.000 - 1500 0.433 1\n\
             1235.000 - 1500 0.433 1 ce\n\
             1235.000 - 1500 0.433 1 ce l\n\
             1235.000 - 1500 0.433 1 l\n\
             1235.000 - 1500 0.433 1 ce:step l\n\
             1236.001 d 52 codel 2\n"
        );
    }

    fn header() -> LogHeader {
        LogHeader::emu(0, "downlink", 1500, 0.0, "infinite", 0.0)
    }

    #[test]
    fn a_failed_write_names_the_file_and_shows_within_a_second() {
        // A FIFO whose reader goes away after the header: every later write
        // fails (EPIPE), as a full disk's would (ENOSPC).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("downlink.log");
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let reader_path = path.clone();
        let reader = std::thread::spawn(move || {
            use std::io::Read;
            let mut f = File::open(reader_path).unwrap();
            let mut head = [0u8; 20];
            f.read_exact(&mut head).unwrap();
        });
        let mut log = Log::create(&path, 0, &header()).unwrap();
        reader.join().unwrap();
        let health = log.health();
        log.opportunity(1000, 1500);
        log.tick(1000);
        assert_eq!(health.error(), None, "nothing handed over yet");
        // Half a second on, the forwarding loop's tick hands the buffer over.
        log.tick(crate::relay::HAND_OVER_US + 1000);
        let start = std::time::Instant::now();
        while health.error().is_none() && start.elapsed() < std::time::Duration::from_secs(1) {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let e = health.error().expect("the write error within a second");
        assert!(
            e.starts_with(&format!("writing {}: ", path.display())) && e.contains("Broken pipe"),
            "{e}"
        );
        let closed = log.finish().unwrap_err();
        assert!(format!("{closed:#}").contains("downlink.log"), "{closed:#}");
    }

    #[test]
    fn a_full_disk_at_creation_names_the_file() {
        let e = Log::create(Path::new("/dev/full"), 0, &header())
            .err()
            .unwrap();
        assert_eq!(
            format!("{e:#}"),
            "writing /dev/full: No space left on device (os error 28)"
        );
    }

    #[test]
    fn large_logs_cross_buffers_intact() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.log");
        let header = LogHeader::emu(0, "uplink", 1500, 0.0, "infinite", 0.0);
        let mut log = Log::create(&path, 0, &header).unwrap();
        for i in 0..200_000u64 {
            log.opportunity(i * 1000, 1500);
        }
        drop(log);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(lines.len(), 200_000);
        assert_eq!(lines[199_999], "199999.000 # 1500");
    }
}
