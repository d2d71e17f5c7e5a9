// SPDX-License-Identifier: GPL-2.0-only
//! Packet captures of what one direction of the link did, as pcapng
//! (Wireshark, tshark, tcpdump -r read it).
//!
//! One Enhanced Packet Block per event, at the same points as the log's
//! lines (docs/log-format.md), so the counts agree: a packet's arrival at
//! the bottleneck queue (after the propagation delay; flag "inbound"), its
//! departure (flag "outbound", comment `departure queue_delay=<ms>`) or its
//! drop (comment `drop <reason>`: `tail` queue full, `head` drophead,
//! `codel`/`pie` AQM, `loss` the loss model, `oversize`). Each block holds
//! the packet's first [`SNAP`] bytes (IPv4 and TCP headers with options)
//! and its full length; timestamps are µs of wall-clock time (the
//! interface's `if_tsresol` is 6), taken from the emulator's monotonic
//! clock plus the wall-clock offset at the start. Link type RAW (bare IP,
//! as the TUN devices carry).
//!
//! On the packet path an event is one copy of at most [`SNAP`] bytes into a
//! pre-allocated record buffer; full buffers (and any half a second old) go
//! to a writer thread that formats the blocks, as the log does. No
//! allocation per packet once the buffers circulate.
//!
//! The format is written by hand (below, ~60 lines): the blocks we need are
//! three fixed layouts of the pcapng specification (draft-ietf-opsawg-pcapng,
//! §4.1 SHB, §4.2 IDB, §4.3 EPB with `opt_comment` and `epb_flags`); the
//! tests read our files back with an independent parser (`pcap-file`).
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};

use crate::clock::Micros;
use crate::log::LogHealth;
use crate::queue::DropReason;
use crate::relay::Relay;

/// Bytes of each packet kept: IPv4 (20–60) and TCP (20–60) headers.
pub const SNAP: usize = 128;
/// Records per buffer handed to the writer.
const RECORDS: usize = 8192;
/// pcapng's LINKTYPE_RAW: bare IPv4/IPv6 packets.
const LINKTYPE_RAW: u16 = 101;

/// What happened to the packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Arrival,
    /// With its queueing delay, whether the queue marked it CE and whether
    /// it went through an L4S queue.
    Departure(Micros, bool, bool),
    Drop(DropReason),
}

#[derive(Clone, Copy)]
struct Record {
    t: Micros,
    len: u32,
    caplen: u16,
    event: Event,
    head: [u8; SNAP],
}

const EMPTY: Record = Record {
    t: 0,
    len: 0,
    caplen: 0,
    event: Event::Arrival,
    head: [0; SNAP],
};

/// One direction's capture, owned by its pipeline.
pub struct Capture {
    relay: Relay<Record>,
}

impl Capture {
    /// Creates `path` and writes the section and interface headers;
    /// `comment` describes the capture (direction, trace, queue), `now` is
    /// the monotonic µs of the first hand-over check.
    pub fn create(path: &Path, comment: &str, now: Micros) -> Result<Capture> {
        let file =
            File::create(path).with_context(|| format!("creating capture {}", path.display()))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        write_headers(&mut out, comment).with_context(|| format!("writing {}", path.display()))?;
        // Monotonic → wall clock, once: the capture's times are then wall
        // times as Wireshark expects, with the emulator's µs spacing.
        let wall_offset = wall_us().saturating_sub(crate::clock::now_us());
        let relay = Relay::spawn(
            "capture",
            "emu-pcap",
            path,
            RECORDS,
            now,
            out,
            move |out, records| {
                records
                    .iter()
                    .try_for_each(|r| write_packet(out, r, wall_offset))
            },
        )?;
        Ok(Capture { relay })
    }

    /// Where the capture's first write error shows.
    pub fn health(&self) -> LogHealth {
        self.relay.health()
    }

    /// Records one event of a packet whose bytes are `data` (`len` its
    /// full length; `data` may be empty for one too large to read).
    #[inline]
    pub fn record(&mut self, t: Micros, data: &[u8], len: u32, event: Event) {
        if self.relay.buf.len() == self.relay.buf.capacity() {
            self.relay.hand_over();
        }
        let n = data.len().min(SNAP);
        self.relay.buf.push(EMPTY);
        let r = self.relay.buf.last_mut().expect("just pushed");
        r.t = t;
        r.len = len;
        r.caplen = n as u16;
        r.event = event;
        r.head[..n].copy_from_slice(&data[..n]);
    }

    /// Once per wake-up of the forwarding loop.
    #[inline]
    pub fn tick(&mut self, now: Micros) {
        self.relay.tick(now);
    }

    /// Writes everything out and closes the file.
    pub fn finish(mut self) -> Result<()> {
        self.relay.close()
    }
}

fn wall_us() -> Micros {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as Micros)
}

/// The text of an event's comment.
pub fn comment(event: Event) -> String {
    match event {
        Event::Arrival => "arrival".into(),
        Event::Departure(q, ce, l4s) => format!(
            "departure queue_delay={}.{:03}ms{}{}",
            q / 1000,
            q % 1000,
            if ce { " ce" } else { "" },
            if l4s { " l" } else { "" }
        ),
        Event::Drop(r) => format!("drop {}", r.name()),
    }
}

// --- pcapng blocks (host byte order; the SHB's magic tells readers which) ---

fn pad4(n: usize) -> usize {
    (n + 3) & !3
}

/// An option: code, length, value padded to 4 bytes.
fn option(out: &mut Vec<u8>, code: u16, value: &[u8]) {
    out.extend_from_slice(&code.to_ne_bytes());
    out.extend_from_slice(&(value.len() as u16).to_ne_bytes());
    out.extend_from_slice(value);
    out.resize(pad4(out.len()), 0);
}

/// Wraps `body` as a block of `kind`: type, total length, body, length.
fn block(w: &mut impl Write, kind: u32, body: &[u8]) -> std::io::Result<()> {
    let total = (12 + body.len()) as u32;
    w.write_all(&kind.to_ne_bytes())?;
    w.write_all(&total.to_ne_bytes())?;
    w.write_all(body)?;
    w.write_all(&total.to_ne_bytes())
}

/// Section header (with `comment` and the writer's name) and one RAW
/// interface with µs timestamps.
pub fn write_headers(w: &mut impl Write, comment: &str) -> std::io::Result<()> {
    let mut shb = Vec::with_capacity(128);
    shb.extend_from_slice(&0x1A2B_3C4Du32.to_ne_bytes());
    shb.extend_from_slice(&1u16.to_ne_bytes());
    shb.extend_from_slice(&0u16.to_ne_bytes());
    shb.extend_from_slice(&(-1i64).to_ne_bytes()); // section length unknown
    option(&mut shb, 1, comment.as_bytes()); // opt_comment
    option(&mut shb, 4, b"c2tcp emulate"); // shb_userappl
    option(&mut shb, 0, &[]);
    block(w, 0x0A0D_0D0A, &shb)?;
    let mut idb = Vec::with_capacity(32);
    idb.extend_from_slice(&LINKTYPE_RAW.to_ne_bytes());
    idb.extend_from_slice(&0u16.to_ne_bytes());
    idb.extend_from_slice(&(SNAP as u32).to_ne_bytes());
    option(&mut idb, 9, &[6]); // if_tsresol: 10^-6 s
    option(&mut idb, 0, &[]);
    block(w, 1, &idb)
}

/// One Enhanced Packet Block at wall time `t_us`.
pub fn write_epb(
    w: &mut impl Write,
    t_us: u64,
    data: &[u8],
    len: u32,
    event: Event,
) -> std::io::Result<()> {
    let mut epb = Vec::with_capacity(64 + SNAP);
    epb.extend_from_slice(&0u32.to_ne_bytes()); // interface 0
    epb.extend_from_slice(&((t_us >> 32) as u32).to_ne_bytes());
    epb.extend_from_slice(&(t_us as u32).to_ne_bytes());
    epb.extend_from_slice(&(data.len() as u32).to_ne_bytes());
    epb.extend_from_slice(&len.max(data.len() as u32).to_ne_bytes());
    epb.extend_from_slice(data);
    epb.resize(pad4(epb.len()), 0);
    option(&mut epb, 1, comment(event).as_bytes());
    // epb_flags bits 0-1: direction, 1 inbound, 2 outbound (0 for a drop).
    let flags: u32 = match event {
        Event::Arrival => 1,
        Event::Departure(..) => 2,
        Event::Drop(_) => 0,
    };
    option(&mut epb, 2, &flags.to_ne_bytes());
    option(&mut epb, 0, &[]);
    block(w, 6, &epb)
}

fn write_packet(w: &mut impl Write, r: &Record, wall_offset: Micros) -> std::io::Result<()> {
    write_epb(
        w,
        r.t + wall_offset,
        &r.head[..r.caplen as usize],
        r.len,
        r.event,
    )
}
