// SPDX-License-Identifier: GPL-2.0-only
//! The two socket programs behind `c2tcp trace capture send` and `recv`:
//! one non-blocking UDP socket each way, one thread, `ppoll` until the next
//! thing to do. Progress goes to a callback (the CLI draws it) four times a
//! second; SIGINT/SIGTERM end a capture early and still write what it got.
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use udpflow::endpoint::{
    bind_receiver, connect_sender, drain, drain_from, install_stop_signals, monotonic_us,
    new_session, send_retrying, wait,
};
use udpflow::PollFlags;

use crate::recorder::{Recorder, Summary};
use crate::sender::Window;
use crate::wire::{self, Ack, Datagram, ACK_LEN, DATA_LEN};

const PROGRESS_EVERY_US: u64 = 250_000;
/// The loop wakes at least this often to refill the window and expire.
const TICK_US: u64 = 2_000;

pub struct SendOptions {
    /// The receiver's address.
    pub to: SocketAddr,
    /// Our data socket's address (default: any).
    pub bind: Option<SocketAddr>,
    /// Where the receiver sends its ACKs, when not back over the data path.
    pub feedback_listen: Option<SocketAddr>,
    pub duration: Duration,
}

/// What the sender shows and reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SendProgress {
    pub elapsed_s: f64,
    pub window: u32,
    pub in_flight: usize,
    pub rtt_ms: f64,
    pub saturated: bool,
    pub sent: u64,
    pub acked: u64,
    pub lost: u64,
}

fn send_progress(w: &Window, start_us: u64, now_us: u64) -> SendProgress {
    SendProgress {
        elapsed_s: (now_us - start_us) as f64 / 1e6,
        window: w.n(),
        in_flight: w.in_flight(),
        rtt_ms: w.last_rtt_ms(),
        saturated: w.saturated(),
        sent: w.sent(),
        acked: w.acked(),
        lost: w.lost(),
    }
}

/// Keeps the link to `to` saturated for the duration (or until a stop signal).
pub fn run_sender(
    o: &SendOptions,
    mut progress: impl FnMut(&SendProgress),
) -> Result<SendProgress> {
    let stop = install_stop_signals()?;
    let data = connect_sender(o.to, o.bind)?;
    let feedback = o.feedback_listen.map(bind_receiver).transpose()?;
    let acks: &UdpSocket = feedback.as_ref().unwrap_or(&data);
    let session = new_session();
    let mut w = Window::new();
    let mut out = [0u8; DATA_LEN];
    let mut inbuf = [0u8; 2048];
    let start = monotonic_us();
    let end = start + o.duration.as_micros() as u64;
    let mut next_progress = start;
    let mut refused = 0u64;
    loop {
        let now = monotonic_us();
        if now >= end || stop.load(std::sync::atomic::Ordering::Relaxed) {
            let p = send_progress(&w, start, now);
            progress(&p);
            if p.acked == 0 {
                anyhow::bail!(
                    "no ACK came back from {} in {:.1} s ({} sends refused): is `trace capture recv` running there{}?",
                    o.to,
                    p.elapsed_s,
                    refused,
                    o.feedback_listen
                        .map_or(String::new(), |a| format!(" with --feedback-to {a}"))
                );
            }
            return Ok(p);
        }
        w.expire(now);
        while let Some(d) = w.next(now) {
            wire::write_data(&mut out, session, &d);
            match send_retrying(&data, &out, None) {
                Ok(()) => {}
                // The receiver not up yet, or gone (the ICMP error of an
                // earlier datagram): the packet is lost like any other.
                Err(e) if receiver_absent(&e) => refused += 1,
                Err(e) => return Err(e).with_context(|| format!("sending to {}", o.to)),
            }
        }
        let mut on = |b: &[u8]| {
            if let Ok((s, Datagram::Ack(a))) = wire::parse(b) {
                if s == session {
                    w.on_ack(&a, monotonic_us());
                }
            }
        };
        if feedback.is_some() {
            drain_from(acks, &mut inbuf, |b, _| on(b))?;
        } else {
            drain(acks, &mut inbuf, on)?;
        }
        if now >= next_progress {
            progress(&send_progress(&w, start, now));
            next_progress = now + PROGRESS_EVERY_US;
        }
        wait(acks, PollFlags::POLLIN, (now + TICK_US).min(end));
    }
}

/// Send errors that mean "nobody listens there (yet, or any more)".
fn receiver_absent(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionRefused | NetworkUnreachable | HostUnreachable
    )
}

pub struct RecvOptions {
    pub listen: SocketAddr,
    /// Send ACKs here instead of back to the data's source.
    pub feedback_to: Option<SocketAddr>,
    /// How long to record, from the first saturated arrival.
    pub duration: Duration,
    /// Give up when no data arrives for this long (before or during the record).
    pub idle_timeout: Duration,
    pub output: PathBuf,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct RecvProgress {
    pub recorded_s: f64,
    pub packets: u64,
    /// Over the last progress interval.
    pub mbps: f64,
}

/// How a capture ended, with what it recorded.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RecvReport {
    pub ended_by: &'static str,
    pub output: PathBuf,
    #[serde(flatten)]
    pub summary: Summary,
}

/// Records arrivals for the duration, then writes the trace (whole or not at all).
pub fn run_receiver(
    o: &RecvOptions,
    mut progress: impl FnMut(&RecvProgress),
) -> Result<RecvReport> {
    let stop = install_stop_signals()?;
    let sock = bind_receiver(o.listen)?;
    let feedback = match o.feedback_to {
        Some(to) => {
            let any: SocketAddr = if to.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" }.parse()?;
            Some(UdpSocket::bind(any).context("binding the feedback socket")?)
        }
        None => None,
    };
    let mut rec = Recorder::new();
    let mut session = None;
    let mut ack = [0u8; ACK_LEN];
    let mut inbuf = [0u8; 2048];
    let mut last_arrival = monotonic_us();
    let mut next_progress = last_arrival;
    let mut last_count = 0u64;
    let mut send_error = None;
    let ended_by = loop {
        let now = monotonic_us();
        let mut on = |b: &[u8], from: SocketAddr| {
            let Ok((s, Datagram::Data(d))) = wire::parse(b) else {
                return;
            };
            if *session.get_or_insert(s) != s {
                return; // another capture's sender: not ours to record
            }
            let t = monotonic_us();
            last_arrival = t;
            rec.on_data(&d, t);
            wire::write_ack(
                &mut ack,
                s,
                &Ack {
                    seq: d.seq,
                    sent_us: d.sent_us,
                },
            );
            let r = match (&feedback, o.feedback_to) {
                (Some(f), Some(to)) => send_retrying(f, &ack, Some(to)),
                _ => send_retrying(&sock, &ack, Some(from)),
            };
            if let Err(e) = r {
                send_error.get_or_insert(e);
            }
        };
        drain_from(&sock, &mut inbuf, &mut on)?;
        if let Some(e) = send_error.take() {
            return Err(e).context("sending an ACK");
        }
        let summary = rec.summary();
        if let Some(t0) = summary.start_monotonic_us {
            if now.saturating_sub(t0) >= o.duration.as_micros() as u64 {
                break "duration";
            }
        }
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break "signal";
        }
        if now.saturating_sub(last_arrival) >= o.idle_timeout.as_micros() as u64 {
            break "idle";
        }
        if now >= next_progress {
            let packets = rec.packets();
            progress(&RecvProgress {
                recorded_s: summary
                    .start_monotonic_us
                    .map_or(0.0, |t0| now.saturating_sub(t0) as f64 / 1e6),
                packets,
                mbps: (packets - last_count) as f64 * 1500.0 * 8.0 / PROGRESS_EVERY_US as f64,
            });
            last_count = packets;
            next_progress = now + PROGRESS_EVERY_US;
        }
        wait(&sock, PollFlags::POLLIN, now + 10_000);
    };
    let summary = rec.summary();
    if summary.packets == 0 {
        anyhow::bail!(
            "no saturated packet arrived on {} (ended by {ended_by}): nothing to write to {}",
            o.listen,
            o.output.display()
        );
    }
    let mut text = Vec::with_capacity(summary.packets as usize * 6);
    rec.write_trace(&mut text)?;
    wholefile::write(&o.output, &text)
        .with_context(|| format!("writing {}", o.output.display()))?;
    Ok(RecvReport {
        ended_by,
        output: o.output.clone(),
        summary,
    })
}
