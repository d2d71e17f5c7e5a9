// SPDX-License-Identifier: GPL-2.0-only
//! A FIFO that admits the arriving packet and drops from the head (the
//! oldest packets) until it is within its limit again.
use super::{Discipline, DropReason, Drops, Fifo, Limit, Queue, QueueSpec, SizeLimit};
use crate::clock::Micros;
use crate::packet::Packet;

#[derive(Debug)]
pub struct DropHead(Fifo);

impl DropHead {
    pub fn new(limit: Limit) -> DropHead {
        DropHead(Fifo::new(limit))
    }
}

impl Discipline for DropHead {
    const NAME: &'static str = "drophead";
    const ABOUT: &'static str = "a FIFO dropping its oldest packets past its size limit";
    const SIZE_LIMIT: SizeLimit = SizeLimit::Required;
    fn from_spec(spec: &QueueSpec, _seed: u64) -> DropHead {
        DropHead::new(spec.limit)
    }
}

impl Queue for DropHead {
    fn enqueue(&mut self, p: Packet, _now: Micros, drops: &mut Drops) {
        while !self.0.fits(p.len) {
            match self.0.pop() {
                Some(old) => drops.push((old, DropReason::Head)),
                None => {
                    // Larger than the whole byte limit on its own.
                    drops.push((p, DropReason::Head));
                    return;
                }
            }
        }
        self.0.push(p);
    }
    super::fifo_backed!(0);
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

    #[test]
    fn drops_the_oldest_first() {
        let mut q = DropHead::new(Limit {
            packets: Some(3),
            bytes: None,
        });
        let d = offer(&mut q, &[100, 200, 300, 400, 500], 0);
        assert_eq!(d, vec![(100, DropReason::Head), (200, DropReason::Head)]);
        assert_eq!(drain(&mut q, 0), vec![2, 3, 4]);
    }

    #[test]
    fn byte_limit_drops_as_many_as_needed() {
        let mut q = DropHead::new(Limit {
            packets: None,
            bytes: Some(3000),
        });
        let d = offer(&mut q, &[1000, 1000, 1000, 2500], 0);
        assert_eq!(
            d,
            vec![
                (1000, DropReason::Head),
                (1000, DropReason::Head),
                (1000, DropReason::Head)
            ]
        );
        assert_eq!(drain(&mut q, 0), vec![3]);
        assert_eq!(offer(&mut q, &[4000], 0), vec![(4000, DropReason::Head)]);
    }
}
