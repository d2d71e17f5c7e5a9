// SPDX-License-Identifier: GPL-2.0-only
//! One direction's thread: read packets from one TUN device, run them
//! through the direction's pipeline (delay, loss, queue, trace-driven
//! link), write what departs to the other device, and measure how late
//! each write is against its delivery opportunity.
//!
//! The loop: read up to [`READ_BATCH`] packets (straight into pooled
//! buffers; a TSO super-packet is made contiguous in one frame buffer and
//! split by the pipeline), serving the link up to each packet's arrival
//! first; then serve the link up to now, run the pipeline's timers, and
//! sleep until its next deadline or a packet, at most [`MAX_SLEEP_US`]
//! (deadlines nearer than [`SPIN_US`] are met by polling). Departures are
//! written in merged GSO batches when the device takes them (`gso.rs`).
use std::io::ErrorKind;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};

use crate::clock::{now_us, set_minimal_timer_slack, Micros};
use crate::gso::Batcher;
use crate::packet::{Packet, BUF_SIZE, HDR};
use crate::pipeline::Pipeline;
use crate::queue::DropReason;
use crate::stats::{ErrorHistogram, SchedError};
use crate::tso::{GSO_NONE, MAX_FRAME};
use crate::tun::Tun;

/// Packets read per wake-up before the link is served again.
const READ_BATCH: usize = 64;
/// Longest sleep: bounds how late a stop request is seen and how much idle
/// trace is caught up at once.
const MAX_SLEEP_US: Micros = 10_000;
/// Deadlines nearer than this are waited for by polling rather than
/// sleeping: a wake-up from ppoll can come ~50 µs late.
const SPIN_US: Micros = 60;

/// Writes departures as they come out of the pipeline and measures how
/// late each write is compared with its opportunity.
struct Sender<'a> {
    to: &'a Tun,
    batcher: Batcher,
    hist: ErrorHistogram,
    outbox: Vec<(Packet, Micros)>,
}

impl Sender<'_> {
    /// Runs the pipeline up to `now` and writes whatever departs.
    fn advance(&mut self, pl: &mut Pipeline, now: Micros) {
        let outbox = &mut self.outbox;
        pl.advance(now, &mut |p, t| outbox.push((p, t)));
        if self.outbox.is_empty() {
            return;
        }
        let (to, hist) = (self.to, &mut self.hist);
        let mut errors = 0;
        self.batcher.for_each_write(
            &mut self.outbox,
            |frame| {
                let now = now_us();
                if to.writev(frame).is_err() {
                    errors += 1;
                }
                now
            },
            |pkts, now| {
                for (_, t) in pkts {
                    hist.record(now.saturating_sub(*t));
                }
            },
        );
        for (p, _) in self.outbox.drain(..) {
            pl.pool.put(p.buf);
        }
        if errors > 0 {
            pl.count_write_errors(errors);
        }
    }
}

/// One direction's thread: read `from`, run the pipeline, write `to`,
/// until `stop`; returns the write lateness measured.
pub(crate) fn forward(
    mut pl: Pipeline,
    from: &Tun,
    to: &Tun,
    stop: &AtomicBool,
    gso: bool,
) -> Result<Option<SchedError>> {
    set_minimal_timer_slack();
    let mut tx = Sender {
        to,
        batcher: Batcher::new(gso),
        hist: ErrorHistogram::default(),
        outbox: Vec::with_capacity(4096),
    };
    let mut scratch = vec![0u8; BUF_SIZE];
    // Where a read continues past the packet buffer: a TSO super-packet (or
    // an oversize packet), made contiguous here before it is split. One
    // allocation for the thread's life.
    let mut frame = vec![0u8; BUF_SIZE.max(MAX_FRAME)].into_boxed_slice();
    while !stop.load(Ordering::Relaxed) {
        for _ in 0..READ_BATCH {
            let (mut buf, pooled) = match pl.pool.get() {
                Some(b) => (b, true),
                None => (std::mem::take(&mut scratch).into_boxed_slice(), false),
            };
            // Straight into the packet buffer; what does not fit goes on in `frame`.
            let read = from.read2(&mut buf, &mut frame[BUF_SIZE..]);
            let now = now_us();
            // Everything due before this packet came in happens first.
            tx.advance(&mut pl, now);
            match read {
                Ok(n) if n >= HDR && n <= BUF_SIZE && buf[1] == GSO_NONE => {
                    if pooled {
                        pl.arrive(Packet::new(buf, (n - HDR) as u32, now), now);
                        continue;
                    }
                    // Every buffer is in use: the emulator is full.
                    pl.drop_unqueued(&buf[HDR..n], (n - HDR) as u32, now, DropReason::Tail);
                }
                Ok(n) if n >= HDR => {
                    // A super-packet (or a packet larger than a buffer): its
                    // start is in `buf`, the rest already in place behind it.
                    frame[..BUF_SIZE].copy_from_slice(&buf);
                    pl.arrive_frame(&frame[..n], now);
                }
                Ok(_) => {}
                Err(ref e)
                    if e.raw_os_error() == Some(libc::EFAULT)
                        || e.raw_os_error() == Some(libc::EINVAL) =>
                {
                    // Larger than our buffers: the kernel discarded it; size unknown (logged as 0).
                    pl.drop_unqueued(&[], 0, now, DropReason::Oversize);
                }
                Err(ref e)
                    if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e).with_context(|| format!("reading from {}", from.name())),
            }
            let would_block = matches!(read, Err(ref e) if e.kind() == ErrorKind::WouldBlock);
            if pooled {
                pl.pool.put(buf);
            } else {
                scratch = buf.into_vec();
            }
            if would_block {
                break;
            }
        }
        tx.advance(&mut pl, now_us());
        let now = now_us();
        pl.tick(now);
        let wait = pl
            .next_deadline()
            .map_or(MAX_SLEEP_US, |d| d.saturating_sub(now).min(MAX_SLEEP_US));
        if wait > SPIN_US {
            plumbing::wait::sleep(
                from,
                plumbing::PollFlags::POLLIN,
                std::time::Duration::from_micros(wait - SPIN_US / 2),
            );
        }
        // Else: loop straight back (a non-blocking read, then the deadline).
    }
    pl.finish()?;
    Ok(tx.hist.summary())
}
