// SPDX-License-Identifier: GPL-2.0-only
//! Verus on real UDP sockets: the programs behind `c2tcp verus-send` and
//! `c2tcp verus-recv`. Each runs one flow on one non-blocking socket in one
//! thread, sleeping in `ppoll` until a datagram arrives or the protocol
//! logic's next deadline (the sender's 5-ms epochs), and ends with a JSON
//! report.
//!
//! Unlike the authors' client, which greets the server and is then sent to,
//! our sender speaks first (the runner's flows start at the sender); the
//! receiver acks whoever sent the first data packet.
//!
//! The socket plumbing, the stop signals, the receiver's life and the
//! report's shared words are `udpflow::endpoint`'s, and the sender's loop
//! `udpflow::sender`'s, as Sprout's are.
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::Result;
use serde::{Deserialize, Serialize};
use udpflow::endpoint::{
    bind_receiver, connect_sender, drain_from, grow_receive_buffer, mbps, wait, ReceiverLife,
};
use udpflow::sender::{self, SenderLogic, WhenFull};
use udpflow::PollFlags;

pub use udpflow::endpoint::{
    install_stop_signals, monotonic_us, new_session, DelayMs, EndedBy, Role,
};

use crate::receiver::{Receiver, ReceiverCounters};
use crate::sender::{Sender, SenderConfig, SenderCounters};
use crate::wire::{self, DropCounts, Packet};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReceiverReport {
    pub role: Role,
    pub listen: String,
    pub peer: Option<String>,
    pub duration_s: f64,
    /// bye | signal | duration | idle
    pub ended_by: EndedBy,
    pub bytes_received: u64,
    pub goodput_mbps: f64,
    pub packets_received: u64,
    /// Every datagram dropped as not parseable (breakdown in `counters.dropped`).
    pub malformed_dropped: u64,
    pub acks_sent: u64,
    pub send_errors: u64,
    /// Send-to-receive delay of data packets (sender's stamp vs our clock:
    /// meaningful because both ends share the machine's monotonic clock).
    pub one_way_delay_ms: DelayMs,
    /// The sender's totals from its bye (None: no bye arrived).
    pub sender_packets_sent: Option<u64>,
    pub counters: ReceiverCounters,
}

pub struct ReceiverOpts {
    pub listen: SocketAddr,
    /// Stop after this long (None: until bye, signal or idle).
    pub duration: Option<Duration>,
    /// Stop when nothing arrived for this long after the flow started.
    pub idle_timeout: Duration,
}

/// Serves one flow: binds `listen`, acks every data packet of the first
/// sender, returns when the sender says bye, a signal arrives, the duration
/// passes or the flow goes idle.
pub fn run_receiver(opts: ReceiverOpts, stop: &AtomicBool) -> Result<ReceiverReport> {
    let sock = bind_receiver(opts.listen)?;
    let listen = sock.local_addr()?;
    let mut r = Receiver::new();
    let mut delay = DelayMs::histogram()?;
    let mut buf = vec![0u8; wire::MAX_DATAGRAM + 1];
    let mut abuf = [0u8; wire::ACK_LEN];
    let mut peer: Option<SocketAddr> = None;
    let (mut acks_sent, mut send_errors) = (0u64, 0u64);
    let mut life = ReceiverLife::start(opts.duration, opts.idle_timeout);
    let ended_by = loop {
        if let Some(why) = life.ended(monotonic_us(), stop, r.bye().is_some()) {
            break why;
        }
        drain_from(&sock, &mut buf, |bytes, from| {
            let now = monotonic_us();
            let Some((d, len)) = r.on_datagram(bytes, &mut abuf) else {
                return;
            };
            let to = *peer.get_or_insert(from);
            life.arrived(now);
            DelayMs::record(&mut delay, now, d.stamp.send_time_us);
            // An ack the socket cannot take now is a lost ack: the
            // sender's loss detection handles it as the network's.
            match sock.send_to(&abuf[..len], to) {
                Ok(_) => acks_sent += 1,
                Err(_) => send_errors += 1,
            }
        })?;
        wait(&sock, PollFlags::POLLIN, life.deadline(None));
    };
    let c = r.counters.clone();
    Ok(ReceiverReport {
        role: Role::Receiver,
        listen: listen.to_string(),
        peer: peer.map(|p| p.to_string()),
        duration_s: life.uptime_s(),
        ended_by,
        bytes_received: c.bytes_received,
        goodput_mbps: life.goodput_mbps(c.bytes_received),
        packets_received: c.data_packets,
        malformed_dropped: c.dropped.total(),
        acks_sent,
        send_errors,
        one_way_delay_ms: DelayMs::of(&delay),
        sender_packets_sent: r.bye().map(|b| b.packets_sent),
        counters: c,
    })
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SenderReport {
    pub role: Role,
    pub connect: String,
    pub local: String,
    pub session: u32,
    pub packet_size: usize,
    pub duration_s: f64,
    /// signal | duration
    pub ended_by: EndedBy,
    pub bytes_sent: u64,
    pub packets_sent: u64,
    /// Bytes the receiver reported received in its latest ack.
    pub bytes_delivered: u64,
    pub throughput_mbps: f64,
    /// The smallest round trip seen and the final target delay, ms.
    pub min_rtt_ms: f64,
    pub final_target_delay_ms: f64,
    pub final_window: f64,
    pub malformed_dropped: u64,
    pub dropped: DropCounts,
    pub unexpected_kind: u64,
    pub send_errors: u64,
    pub counters: SenderCounters,
}

pub struct SenderOpts {
    pub connect: SocketAddr,
    /// Local address (e.g. a fixed port for the emulator's 5-tuple).
    pub bind: Option<SocketAddr>,
    pub config: SenderConfig,
    pub duration: Duration,
}

/// Sends as the Verus window allows for `duration`, then says bye.
pub fn run_sender(opts: SenderOpts, stop: &AtomicBool) -> Result<SenderReport> {
    let sock = connect_sender(opts.connect, opts.bind)?;
    grow_receive_buffer(&sock);
    let local = sock.local_addr()?;
    let mut s = Sender::new(opts.config.clone());
    let run = sender::run(&sock, &mut s, opts.duration, opts.config.packet_size, stop)?;
    let c = s.counters.clone();
    Ok(SenderReport {
        role: Role::Sender,
        connect: opts.connect.to_string(),
        local: local.to_string(),
        session: opts.config.session,
        packet_size: opts.config.packet_size,
        duration_s: run.duration_s,
        ended_by: run.ended_by,
        bytes_sent: s.bytes_sent(),
        packets_sent: s.packets_sent(),
        bytes_delivered: c.received_bytes,
        throughput_mbps: mbps(c.received_bytes, run.duration_s),
        min_rtt_ms: s.est.d_min,
        final_target_delay_ms: s.est.d_est,
        final_window: s.window(),
        malformed_dropped: run.dropped.total(),
        dropped: run.dropped,
        unexpected_kind: run.unexpected,
        send_errors: run.send_errors,
        counters: c,
    })
}

/// The sender's logic in udpflow's loop: it reads the receiver's acks, runs
/// its epoch timer before sending, and takes back a packet the socket
/// cannot take now (the receiver not up yet reads past: the timeout
/// restarts slow start).
impl SenderLogic for Sender {
    type Protocol = wire::Format;
    const WHEN_FULL: WhenFull = WhenFull::GiveBack;

    fn on_datagram(&mut self, now_us: u64, bytes: &[u8]) -> Result<bool, wire::WireError> {
        match wire::parse(bytes)? {
            Packet::Ack(a) => {
                self.on_ack(now_us, &a);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn poll(&mut self, now_us: u64) {
        Sender::poll(self, now_us);
    }

    fn poll_transmit(&mut self, now_us: u64, out: &mut [u8]) -> Option<usize> {
        Sender::poll_transmit(self, now_us, out)
    }

    fn transmit_refused(&mut self, now_us: u64) {
        Sender::transmit_refused(self, now_us);
    }

    fn next_event_us(&self, _now_us: u64) -> u64 {
        Sender::next_event_us(self)
    }

    fn write_bye(&self, out: &mut [u8]) -> usize {
        Sender::write_bye(self, out)
    }
}
