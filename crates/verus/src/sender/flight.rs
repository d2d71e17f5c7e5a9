// SPDX-License-Identifier: GPL-2.0-only
//! The sender's record of what is in flight, in fixed rings so that sending
//! and taking an ack never allocate: one slot per sequence number (modulo
//! the ring) and the queue of packets missing from the ack sequence.
/// Slots of the in-flight ring (a power of two, above the largest window).
pub(super) const RING: usize = 1 << 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SlotState {
    Free,
    Outstanding,
    /// In the gap before an acked packet since this time.
    Missing {
        since_us: u64,
    },
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Slot {
    pub(super) seq: u64,
    /// The sending window it went out under.
    pub(super) window: u32,
    pub(super) state: SlotState,
}

/// A fixed-capacity FIFO of sequence numbers (the missing-packet queue).
pub(super) struct SeqFifo {
    buf: Vec<u64>,
    head: usize,
    len: usize,
}

impl SeqFifo {
    pub(super) fn new() -> Self {
        SeqFifo {
            buf: vec![0; RING],
            head: 0,
            len: 0,
        }
    }
    /// False when full (the entry is then not queued).
    pub(super) fn push(&mut self, seq: u64) -> bool {
        if self.len == self.buf.len() {
            return false;
        }
        let i = (self.head + self.len) % self.buf.len();
        self.buf[i] = seq;
        self.len += 1;
        true
    }
    pub(super) fn front(&self) -> Option<u64> {
        (self.len > 0).then(|| self.buf[self.head])
    }
    pub(super) fn pop(&mut self) {
        if self.len > 0 {
            self.head = (self.head + 1) % self.buf.len();
            self.len -= 1;
        }
    }
}
