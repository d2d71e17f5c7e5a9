// SPDX-License-Identifier: GPL-2.0-only
//! A fixed one-way propagation delay (mm-delay), in µs: a FIFO whose
//! packets are released `delay` after they entered it.
use std::collections::VecDeque;

use crate::clock::Micros;
use crate::packet::Packet;

pub struct DelayLine {
    delay: Micros,
    q: VecDeque<Packet>,
}

impl DelayLine {
    pub fn new(delay: Micros) -> DelayLine {
        DelayLine {
            delay,
            q: VecDeque::with_capacity(4096),
        }
    }

    /// Takes a packet whose `arrival` is when it entered the emulator.
    #[inline]
    pub fn push(&mut self, p: Packet) {
        self.q.push_back(p);
    }

    /// When the oldest packet leaves the delay line.
    #[inline]
    pub fn next_release(&self) -> Option<Micros> {
        self.q.front().map(|p| p.arrival + self.delay)
    }

    /// The oldest packet, if due by `now`, with `arrival` set to its release time.
    #[inline]
    pub fn pop_due(&mut self, now: Micros) -> Option<Packet> {
        if self.next_release()? > now {
            return None;
        }
        let mut p = self.q.pop_front()?;
        p.arrival += self.delay;
        Some(p)
    }

    pub fn len(&self) -> usize {
        self.q.len()
    }

    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_in_order_after_the_delay() {
        let mut d = DelayLine::new(10_500);
        d.push(Packet::bare(100, 1_000));
        d.push(Packet::bare(200, 1_200));
        assert_eq!(d.next_release(), Some(11_500));
        assert!(d.pop_due(11_499).is_none());
        let p = d.pop_due(11_500).unwrap();
        assert_eq!((p.len, p.arrival), (100, 11_500));
        assert!(d.pop_due(11_600).is_none());
        assert_eq!(d.pop_due(20_000).unwrap().arrival, 11_700);
        assert!(d.is_empty());
    }
}
