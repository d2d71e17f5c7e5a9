// SPDX-License-Identifier: GPL-2.0-only
//! When the sender speaks although the window allows nothing: a header-only
//! heartbeat after a silence of one interval, the interval doubling (up to
//! a cap) while no feedback reports a delivery since the last heartbeat, so
//! that an outage does not fill the bottleneck's queue with them
//! ([`super::HEARTBEAT_MAX_US`]).
pub(super) struct Heartbeats {
    /// The interval after data, or after a heartbeat that was delivered.
    base_us: u64,
    /// Longest interval of the backoff.
    max_us: u64,
    /// Silence after which the last heartbeat went out.
    gap_us: u64,
    /// The receiver's reported byte count when the last heartbeat was sent
    /// (None: the last datagram was data).
    received_at_heartbeat: Option<u64>,
    last_send_us: Option<u64>,
}

impl Heartbeats {
    pub(super) fn new(base_us: u64, max_us: u64) -> Heartbeats {
        Heartbeats {
            base_us,
            max_us: max_us.max(base_us),
            gap_us: base_us,
            received_at_heartbeat: None,
            last_send_us: None,
        }
    }

    /// The gap before the next heartbeat: the base interval after data or a
    /// heartbeat the receiver has since reported a delivery for (`received`
    /// its latest count); otherwise twice the last gap, up to the cap.
    fn next_gap_us(&self, received: u64) -> u64 {
        match self.received_at_heartbeat {
            Some(r) if received <= r => (self.gap_us * 2).min(self.max_us),
            _ => self.base_us,
        }
    }

    /// When the next heartbeat is due (`now` before anything was sent).
    pub(super) fn due_us(&self, now_us: u64, received: u64) -> u64 {
        self.last_send_us
            .map_or(now_us, |t| t + self.next_gap_us(received))
    }

    /// A datagram went out at `now`: a heartbeat backs the next one off,
    /// data resets the interval.
    pub(super) fn on_send(&mut self, now_us: u64, heartbeat: bool, received: u64) {
        if heartbeat {
            self.gap_us = self.next_gap_us(received);
            self.received_at_heartbeat = Some(received);
        } else {
            self.gap_us = self.base_us;
            self.received_at_heartbeat = None;
        }
        self.last_send_us = Some(now_us);
    }
}
