// SPDX-License-Identifier: GPL-2.0-only
//! Bottleneck queues: one discipline per type behind the [`Queue`] trait,
//! each declaring its own name, arguments, defaults, ranges and help
//! ([`Discipline`], `kind.rs`), and [`QueueSpec`], the parsed form of
//! `droptail:packets=100` or of Mahimahi's split `--downlink-queue droptail
//! --downlink-queue-args packets=100`.
//!
//! A new discipline is its file (the queue type, `impl Queue`, `impl
//! Discipline`) and one line in `disciplines!` below
//! (docs/schemes.md walks through one).
use std::collections::VecDeque;

use crate::clock::Micros;
use crate::packet::Packet;

mod kind;
mod spec;

pub use kind::{help, Arg, Discipline, QueueKind, SizeLimit, Unit};
pub use spec::QueueSpec;

/// Declares each discipline's module, re-exports its queue type and
/// registers it, in the order `--help` lists them: one line a discipline.
macro_rules! disciplines {
    ($($module:ident :: $queue:ident,)*) => {
        $(mod $module; pub use $module::$queue;)*
        /// Every discipline, in the order `--help` lists them.
        const ALL: &[QueueKind] = &[$(QueueKind::of::<$queue>(),)*];
    };
}

disciplines! {
    infinite::Infinite,
    droptail::DropTail,
    drophead::DropHead,
    codel::CoDel,
    pie::Pie,
    fq_codel::FqCodel,
    abc::Abc,
    dualpi2::DualPi2,
    l4s_ramp::L4sRamp,
    l4s_cell::L4sCell,
}

pub use dualpi2::{DualPi2Params, Marks as DualPi2Marks, Step as DualPi2Step};
pub use l4s_cell::Law as L4sCellLaw;
pub use l4s_ramp::ramp_probability;

pub use logformat::DropReason;

/// Packets a queue dropped during one call, for the caller to log and recycle.
pub type Drops = Vec<(Packet, DropReason)>;

/// A bottleneck queue discipline (most are built on one [`Fifo`]; fq_codel
/// on many). `now` is the emulator clock in µs; a packet's `arrival` is when
/// it entered this queue. An AQM that marks instead of dropping sets CE with
/// [`Packet::mark_ce`], which flags the packet `marked` for the log.
pub trait Queue: Send {
    /// Offers an arriving packet; whatever gets dropped (it, or packets
    /// already queued) goes to `drops`.
    fn enqueue(&mut self, p: Packet, now: Micros, drops: &mut Drops);
    /// The next packet to send, or None when empty; AQM drops go to `drops`.
    /// The link calls it at every delivery opportunity it has room in, so
    /// also when the queue is empty (ABC counts those calls as capacity).
    fn dequeue(&mut self, now: Micros, drops: &mut Drops) -> Option<Packet>;
    fn packets(&self) -> usize;
    fn bytes(&self) -> usize;
}

/// The [`Queue`] methods of a discipline whose packets are all in one
/// [`Fifo`] field and that drops only at enqueue.
macro_rules! fifo_backed {
    ($field:tt) => {
        fn dequeue(&mut self, _now: Micros, _drops: &mut Drops) -> Option<Packet> {
            self.$field.pop()
        }
        fn packets(&self) -> usize {
            self.$field.packets()
        }
        fn bytes(&self) -> usize {
            self.$field.bytes()
        }
    };
}
pub(crate) use fifo_backed;

/// A size limit in bytes and/or packets (None = unlimited).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limit {
    pub bytes: Option<u64>,
    pub packets: Option<u64>,
}

/// The FIFO every discipline is built on, with byte and packet counts.
#[derive(Debug, Default)]
pub struct Fifo {
    q: VecDeque<Packet>,
    bytes: usize,
    pub limit: Limit,
}

impl Fifo {
    pub fn new(limit: Limit) -> Fifo {
        Fifo::with_capacity(limit, 4096)
    }

    /// A FIFO with room for `capacity` packets before it first grows
    /// (fq_codel's per-flow queues start at 0: most buckets stay unused).
    pub fn with_capacity(limit: Limit, capacity: usize) -> Fifo {
        Fifo {
            q: VecDeque::with_capacity(capacity),
            bytes: 0,
            limit,
        }
    }

    /// Whether the queue would respect its limit with `extra` more bytes in one more packet.
    #[inline]
    pub fn fits(&self, extra: u32) -> bool {
        self.limit
            .bytes
            .is_none_or(|b| (self.bytes + extra as usize) as u64 <= b)
            && self
                .limit
                .packets
                .is_none_or(|n| (self.q.len() + 1) as u64 <= n)
    }

    #[inline]
    pub fn push(&mut self, p: Packet) {
        self.bytes += p.len as usize;
        self.q.push_back(p);
    }

    /// The packet at the head, if any.
    #[inline]
    pub fn head(&self) -> Option<&Packet> {
        self.q.front()
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.len as usize;
        Some(p)
    }

    pub fn packets(&self) -> usize {
        self.q.len()
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::*;

    /// Enqueues packets of the given sizes at time `now`, returning the drops' sizes and reasons.
    pub fn offer(q: &mut dyn Queue, sizes: &[u32], now: Micros) -> Vec<(u32, DropReason)> {
        let mut drops = Drops::new();
        for (i, &s) in sizes.iter().enumerate() {
            let mut p = Packet::bare(s, now);
            p.flow = i as u32;
            q.enqueue(p, now, &mut drops);
        }
        drops.into_iter().map(|(p, r)| (p.len, r)).collect()
    }

    pub fn drain(q: &mut dyn Queue, now: Micros) -> Vec<u32> {
        let mut drops = Drops::new();
        std::iter::from_fn(|| q.dequeue(now, &mut drops))
            .map(|p| p.flow)
            .collect()
    }
}
