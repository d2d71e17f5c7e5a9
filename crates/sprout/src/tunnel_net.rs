// SPDX-License-Identifier: GPL-2.0-only
//! One end of SproutTunnel (Sprout paper §4.3) on a real TUN device and a
//! real UDP socket: any IP traffic routed into the device crosses to the
//! other end inside Sprout data packets, and comes out of the other end's
//! device.
//!
//! Each end is both a Sprout sender (its device's packets, towards the peer)
//! and a Sprout receiver (the peer's packets, answered with a forecast every
//! tick), on one socket. Per wake-up, in one thread:
//!
//! 1. packets waiting on the device go into the per-flow queues (`tunnel`);
//! 2. datagrams waiting on the socket: a forecast goes to our sender and sets
//!    the queues' limit (the forecast's bytes over its horizon; drops from
//!    the head of the longest queue); data goes to our receiver, and a
//!    payload it accepts (not a duplicate) is written to the device;
//! 3. the receiver's ended ticks make feedback for the peer;
//! 4. the queues fill the sender's window round-robin, one IP packet per
//!    datagram; with nothing queued the sender only heartbeats;
//! 5. sleep in `ppoll` on both descriptors until the next tick or heartbeat.
//!
//! The device's MTU is the Sprout packet size minus the data header, so
//! every IP packet fits one datagram. With `records`, every packet carried
//! either way is written there (`tunnel_log`: entered, sent or dropped,
//! received), so the flows inside can be measured one by one. The device is not persistent: it and
//! its routes disappear when this process exits, however it exits.
use std::io::ErrorKind;
use std::net::{Ipv4Addr, SocketAddr, UdpSocket};
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use emu::tun::Tun;
use hdrhistogram::Histogram;
use netns::Netns;
use serde::{Deserialize, Serialize};
use udpflow::endpoint::{bind_receiver, drain_from, monotonic_us, send_retrying, DelayMs, EndedBy};

use crate::receiver::{Receiver, ReceiverConfig, ReceiverCounters};
use crate::sender::{Sender, SenderConfig, SenderCounters};
use crate::tunnel::{flow_key, QueueCounters, TunnelQueues};
use crate::tunnel_log::{Record, RecordWriter};
use crate::wire::{self, DropCounts, Packet, DATA_HEADER};

pub struct TunnelOpts {
    /// TUN device to create (must not exist).
    pub device: String,
    /// This end's address on the device, and the other end's.
    pub address: Ipv4Addr,
    pub peer_address: Ipv4Addr,
    /// Extra prefixes routed into the tunnel ("10.1.0.0/16").
    pub routes: Vec<String>,
    /// UDP address this end listens on.
    pub listen: SocketAddr,
    /// The other end's UDP address; None: learnt from its first datagram.
    pub peer: Option<SocketAddr>,
    pub sender: SenderConfig,
    pub receiver: ReceiverConfig,
    /// Stop after this long (None: until a signal).
    pub duration: Option<Duration>,
    /// Write the per-packet records here (`tunnel_log`).
    pub records: Option<std::path::PathBuf>,
}

/// The records file, if asked for; its first write error ends the tunnel.
struct Records {
    w: Option<(
        RecordWriter<std::io::BufWriter<std::fs::File>>,
        std::path::PathBuf,
    )>,
}

impl Records {
    fn open(path: Option<&std::path::Path>) -> Result<Records> {
        let w = match path {
            None => None,
            Some(p) => {
                let f = std::fs::File::create(p)
                    .with_context(|| format!("creating {}", p.display()))?;
                let w = RecordWriter::new(std::io::BufWriter::with_capacity(1 << 16, f))
                    .with_context(|| format!("writing {}", p.display()))?;
                Some((w, p.to_path_buf()))
            }
        };
        Ok(Records { w })
    }

    fn on(&self) -> bool {
        self.w.is_some()
    }

    fn write(&mut self, r: Record) -> Result<()> {
        if let Some((w, p)) = &mut self.w {
            w.write(&r)
                .with_context(|| format!("writing {}", p.display()))?;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        if let Some((w, p)) = &mut self.w {
            w.flush()
                .with_context(|| format!("writing {}", p.display()))?;
        }
        Ok(())
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TunnelReport {
    pub device: String,
    pub mtu: usize,
    pub listen: String,
    pub peer: Option<String>,
    pub duration_s: f64,
    /// signal | duration
    pub ended_by: EndedBy,
    /// IP packets read from the device (towards the peer).
    pub packets_in: u64,
    pub bytes_in: u64,
    /// IP packets written to the device (from the peer).
    pub packets_out: u64,
    pub bytes_out: u64,
    pub device_write_errors: u64,
    /// Longer than the MTU (cannot happen unless the MTU was raised by hand).
    pub oversize_dropped: u64,
    /// The per-flow queues: enqueued, sent, dropped from the longest's head.
    pub queues: QueueCounters,
    /// From the peer's send to our device, of the payload packets received
    /// (the shared monotonic clock; the peer's queueing not included).
    pub one_way_delay_ms: DelayMs,
    pub malformed_dropped: u64,
    pub dropped: DropCounts,
    pub send_errors: u64,
    pub sender: SenderCounters,
    pub receiver: ReceiverCounters,
}

/// Creates the device, addresses and routes it, and brings it up.
fn set_up_device(opts: &TunnelOpts, mtu: usize) -> Result<Tun> {
    let tun = Tun::create_plain(&opts.device)?;
    let here = Netns::current("tunnel")?;
    let dev = opts.device.as_str();
    here.ip(&[
        "addr",
        "add",
        &opts.address.to_string(),
        "peer",
        &opts.peer_address.to_string(),
        "dev",
        dev,
    ])?;
    here.ip(&["link", "set", "dev", dev, "mtu", &mtu.to_string(), "up"])?;
    for r in &opts.routes {
        here.ip(&["route", "add", r, "dev", dev])
            .with_context(|| format!("--route {r}"))?;
    }
    Ok(tun)
}

/// Sleeps until the device or the socket is readable or `deadline_us`.
fn wait_either(a: BorrowedFd<'_>, b: BorrowedFd<'_>, deadline_us: u64) {
    use nix::poll::{ppoll, PollFd, PollFlags};
    use nix::sys::time::TimeSpec;
    let us = deadline_us.saturating_sub(monotonic_us());
    let mut fds = [
        PollFd::new(a, PollFlags::POLLIN),
        PollFd::new(b, PollFlags::POLLIN),
    ];
    // EINTR (a signal) just returns: the loop checks the stop flag.
    let _ = ppoll(
        &mut fds,
        Some(TimeSpec::from_duration(Duration::from_micros(us))),
        None,
    );
}

/// Runs one tunnel end until `stop` or the duration; the device is gone
/// when this returns.
pub fn run_tunnel(opts: TunnelOpts, stop: &AtomicBool) -> Result<TunnelReport> {
    let mtu = opts.sender.packet_size - DATA_HEADER;
    if mtu < 576 {
        bail!(
            "packet size {} leaves an MTU of {mtu} on the device; IPv4 needs 576",
            opts.sender.packet_size
        );
    }
    // Tables first, so a device that exists is a tunnel ready to carry.
    let mut receiver = Receiver::new(opts.receiver.clone()).map_err(anyhow::Error::msg)?;
    let mut sender = Sender::new(opts.sender.clone());
    let sock: UdpSocket = bind_receiver(opts.listen)?;
    let mut records = Records::open(opts.records.as_deref())?;
    let tun = set_up_device(&opts, mtu)?;
    let mut queues = TunnelQueues::new(mtu);
    if records.on() {
        queues.record_drops();
    }
    let mut peer = opts.peer;
    let mut r = TunnelReport {
        device: opts.device.clone(),
        mtu,
        listen: sock.local_addr()?.to_string(),
        peer: None,
        duration_s: 0.0,
        ended_by: EndedBy::Signal,
        packets_in: 0,
        bytes_in: 0,
        packets_out: 0,
        bytes_out: 0,
        device_write_errors: 0,
        oversize_dropped: 0,
        queues: QueueCounters::default(),
        one_way_delay_ms: DelayMs::of(&DelayMs::histogram()?),
        malformed_dropped: 0,
        dropped: DropCounts::default(),
        send_errors: 0,
        sender: SenderCounters::default(),
        receiver: ReceiverCounters::default(),
    };
    let mut delay: Histogram<u64> = DelayMs::histogram()?;
    let mut rbuf = vec![0u8; wire::MAX_DATAGRAM + 1];
    let mut pkt = vec![0u8; 65536];
    let mut out = vec![0u8; opts.sender.packet_size.max(wire::BYE_LEN)];
    let mut fbuf = [0u8; wire::FEEDBACK_HEADER + 8 * crate::MAX_HORIZON];
    let start_us = monotonic_us();
    let end_us = opts
        .duration
        .map_or(u64::MAX, |d| start_us + d.as_micros() as u64);
    loop {
        if stop.load(Ordering::Relaxed) {
            r.ended_by = EndedBy::Signal;
            break;
        }
        if monotonic_us() >= end_us {
            r.ended_by = EndedBy::Duration;
            break;
        }
        // 1. The device's packets into the per-flow queues.
        loop {
            match tun.read(&mut pkt) {
                Ok(0) => break,
                Ok(n) if n > mtu => r.oversize_dropped += 1,
                Ok(n) => {
                    r.packets_in += 1;
                    r.bytes_in += n as u64;
                    queues.enqueue_stamped(pkt[..n].to_vec(), monotonic_us());
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e).with_context(|| format!("reading {}", opts.device)),
            }
        }
        // 2. The peer's datagrams.
        let mut written: Vec<Record> = Vec::new();
        drain_from(&sock, &mut rbuf, |bytes, from| {
            let now = monotonic_us();
            match wire::parse(bytes) {
                Ok(Packet::Feedback(fb)) => {
                    if sender.on_feedback(now, &fb) {
                        if let Some(limit) = sender.forecast_bytes() {
                            queues.set_limit(limit);
                        }
                    }
                }
                Ok(_) => {
                    if let Ok(Some(d)) = receiver.on_datagram(now, bytes) {
                        peer.get_or_insert(from);
                        let payload = wire::payload_of(&d, bytes);
                        if !payload.is_empty() {
                            DelayMs::record(&mut delay, now, d.send_time_us);
                            match tun.write(payload) {
                                Ok(_) => {
                                    r.packets_out += 1;
                                    r.bytes_out += payload.len() as u64;
                                    if records.on() {
                                        written.push(Record::Received {
                                            pkt_no: d.pkt_no,
                                            written_us: monotonic_us(),
                                            len: payload.len(),
                                            flow: flow_key(payload),
                                        });
                                    }
                                }
                                Err(_) => r.device_write_errors += 1,
                            }
                        }
                    }
                }
                Err(e) => r.dropped.record(&e),
            }
        })?;
        for rec in written {
            records.write(rec)?;
        }
        for d in queues.take_drops() {
            records.write(Record::Dropped {
                enqueued_us: d.stamp,
                dropped_us: monotonic_us(),
                len: d.len,
                flow: d.key,
            })?;
        }
        let Some(to) = peer else {
            wait_either(
                tun.as_fd(),
                sock.as_fd(),
                end_us.min(monotonic_us() + 50_000),
            );
            continue;
        };
        // 3. Our receiver's forecast for the peer's sender (the newest only).
        let mut feedback = None;
        while let Some(fb) = receiver.poll_tick(monotonic_us()) {
            feedback = Some(fb);
        }
        if let Some(fb) = feedback {
            let n = wire::write_feedback(&fb, &mut fbuf);
            if send_retrying(&sock, &fbuf[..n], Some(to)).is_err() {
                r.send_errors += 1;
            }
        }
        // 4. The queues into the window, round-robin; else a heartbeat.
        let now = monotonic_us();
        loop {
            let room = sender.payload_room(now);
            let n = if let Some((p, enqueued_us)) = queues.dequeue_stamped(room) {
                let left = room - p.len();
                let more = queues.total_bytes() > 0 && left > 2 * DATA_HEADER;
                let n = sender.send_payload(now, &p, more, &mut out);
                if records.on() {
                    if let Ok(Packet::Data(d)) = wire::parse(&out[..n]) {
                        records.write(Record::Sent {
                            enqueued_us,
                            sent_us: now,
                            pkt_no: d.pkt_no,
                            len: p.len(),
                            flow: flow_key(&p),
                        })?;
                    }
                }
                n
            } else if let Some(n) = sender.poll_heartbeat(now, &mut out) {
                n
            } else {
                break;
            };
            if send_retrying(&sock, &out[..n], Some(to)).is_err() {
                r.send_errors += 1;
            }
        }
        // 5. Sleep until something arrives or a tick / heartbeat is due.
        let mut deadline = sender.next_event_us(monotonic_us()).min(end_us);
        if let Some(t) = receiver.next_tick_us() {
            deadline = deadline.min(t);
        }
        wait_either(tun.as_fd(), sock.as_fd(), deadline);
    }
    drop(tun); // the device and its routes go with the descriptor
    records.finish()?;
    r.duration_s = (monotonic_us() - start_us) as f64 / 1e6;
    r.peer = peer.map(|p| p.to_string());
    r.queues = queues.counters.clone();
    r.one_way_delay_ms = DelayMs::of(&delay);
    r.malformed_dropped = r.dropped.total();
    r.sender = sender.counters.clone();
    r.receiver = receiver.counters.clone();
    Ok(r)
}
