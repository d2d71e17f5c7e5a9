// SPDX-License-Identifier: GPL-2.0-only
//! A FIFO that drops the arriving packet when it would exceed the limit.
use super::{Discipline, DropReason, Drops, Fifo, Limit, Queue, QueueSpec, SizeLimit};
use crate::clock::Micros;
use crate::packet::Packet;

#[derive(Debug)]
pub struct DropTail(Fifo);

impl DropTail {
    pub fn new(limit: Limit) -> DropTail {
        DropTail(Fifo::new(limit))
    }
}

impl Discipline for DropTail {
    const NAME: &'static str = "droptail";
    const ABOUT: &'static str = "a FIFO dropping arrivals past its size limit";
    const SIZE_LIMIT: SizeLimit = SizeLimit::Required;
    fn from_spec(spec: &QueueSpec, _seed: u64) -> DropTail {
        DropTail::new(spec.limit)
    }
}

impl Queue for DropTail {
    fn enqueue(&mut self, p: Packet, _now: Micros, drops: &mut Drops) {
        if self.0.fits(p.len) {
            self.0.push(p);
        } else {
            drops.push((p, DropReason::Tail));
        }
    }
    super::fifo_backed!(0);
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn packet_limit_drops_arrivals() {
        let mut q = DropTail::new(Limit {
            packets: Some(3),
            bytes: None,
        });
        let d = offer(&mut q, &[100, 200, 300, 400, 500], 0);
        assert_eq!(d, vec![(400, DropReason::Tail), (500, DropReason::Tail)]);
        assert_eq!((q.packets(), q.bytes()), (3, 600));
        assert_eq!(drain(&mut q, 0), vec![0, 1, 2]);
    }

    #[test]
    fn byte_limit_admits_what_fits() {
        let mut q = DropTail::new(Limit {
            packets: None,
            bytes: Some(3000),
        });
        // 1500 + 1000 fit, 1500 would make 4000, the 500 still fits exactly.
        let d = offer(&mut q, &[1500, 1000, 1500, 500], 0);
        assert_eq!(d, vec![(1500, DropReason::Tail)]);
        assert_eq!(q.bytes(), 3000);
        assert_eq!(drain(&mut q, 0), vec![0, 1, 3]);
    }
}
