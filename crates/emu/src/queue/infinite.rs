// SPDX-License-Identifier: GPL-2.0-only
//! An unbounded FIFO (Mahimahi's default): never drops.
use super::{Discipline, Drops, Fifo, Limit, Queue, QueueSpec, SizeLimit};
use crate::clock::Micros;
use crate::packet::Packet;

#[derive(Debug)]
pub struct Infinite(Fifo);

impl Infinite {
    pub fn new() -> Infinite {
        Infinite(Fifo::new(Limit::default()))
    }
}

impl Default for Infinite {
    fn default() -> Self {
        Self::new()
    }
}

impl Discipline for Infinite {
    const NAME: &'static str = "infinite";
    const ABOUT: &'static str = "an unbounded FIFO (Mahimahi's default): never drops";
    const SIZE_LIMIT: SizeLimit = SizeLimit::Unbounded;
    fn from_spec(_spec: &QueueSpec, _seed: u64) -> Infinite {
        Infinite::new()
    }
}

impl Queue for Infinite {
    fn enqueue(&mut self, p: Packet, _now: Micros, _drops: &mut Drops) {
        self.0.push(p);
    }
    super::fifo_backed!(0);
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn keeps_everything_in_order() {
        let mut q = Infinite::new();
        assert!(offer(&mut q, &[1500; 10_000], 0).is_empty());
        assert_eq!(q.bytes(), 15_000_000);
        assert_eq!(drain(&mut q, 0), (0..10_000).collect::<Vec<_>>());
    }
}
