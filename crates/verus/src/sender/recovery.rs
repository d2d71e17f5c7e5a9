// SPDX-License-Identifier: GPL-2.0-only
//! What the sender does when packets go missing or acks stop: losses (a
//! refused send, a gap that expires), timeouts, the end of slow start they
//! may bring, and starting over.
use super::*;

impl Sender {
    /// The datagram [`Sender::poll_transmit`] just wrote could not be sent
    /// (the socket buffer is full): it is taken back and counts as a loss,
    /// and nothing more is sent until the next epoch (verus_server.cpp:341-367).
    pub fn transmit_refused(&mut self, now_us: u64) {
        self.counters.send_refused += 1;
        let seq = self.pkt_seq;
        let window = self.slot(seq).window as f64;
        self.slot(seq).state = SlotState::Free;
        self.pkt_seq -= 1;
        self.w_crt = self.w_crt.saturating_sub(1);
        self.counters.data_packets -= 1;
        self.counters.bytes_sent -= self.cfg.packet_size as u64;
        self.to_send = 0;
        if self.slow_start {
            self.loss_phase = true;
            self.exit_slow_start = true;
            self.w_bar = SS_BUFFER_FULL_DECREASE * window;
            self.est.d_est = SS_EXIT_TARGET_OF_MAX * self.est.d_min * R;
            self.end_slow_start(now_us);
        } else {
            self.w_bar = (M_DECREASE * self.w_bar).max(1.0);
            self.est.d_est = self.profile.delay_at(self.w_bar).unwrap_or(self.est.d_min);
        }
    }

    /// Declares lost the missing packets whose gap is older than the expiry
    /// (`removeExpiredPacketsFromSeqQueue`).
    pub(super) fn expire_missing(&mut self, now_us: u64) {
        let mut first = true;
        while let Some(seq) = self.missing.front() {
            let slot = *self.slot(seq);
            let SlotState::Missing { since_us } = slot.state else {
                self.missing.pop();
                continue;
            };
            if slot.seq != seq {
                self.missing.pop();
                continue;
            }
            if now_us < since_us + MISSING_EXPIRY_US {
                break;
            }
            self.missing.pop();
            self.slot(seq).state = SlotState::Free;
            self.counters.losses += 1;
            self.w_crt = self.w_crt.saturating_sub(1);
            if !first {
                continue;
            }
            first = false;
            if !self.loss_phase {
                self.loss_phase = true;
                self.counters.loss_phases += 1;
                self.w_bar = self.w_bar.min(M_DECREASE * slot.window as f64);
                let d = if self.slow_start {
                    self.profile.point(self.w_bar as usize)
                } else {
                    self.profile.delay_at(self.w_bar)
                };
                self.est.d_est = d.unwrap_or(self.est.d_min);
            }
            if self.slow_start && self.w_bar.floor() > SS_LOSS_EXIT_WINDOW {
                self.profile
                    .set_curve_stop(CURVE_STOP_FLOOR.max(slot.window as usize));
                self.end_slow_start(now_us);
                self.w_crt = 0;
                self.seq_last = self.pkt_seq;
                self.clear_missing();
            }
        }
    }

    pub(super) fn end_slow_start(&mut self, now_us: u64) {
        self.slow_start = false;
        self.counters.slow_start_exits += 1;
        // The profile is fit at once, then every second.
        self.next_refit_us = Some(now_us);
    }

    /// Forgets the missing packets: an ack of one of them is late from now on.
    fn clear_missing(&mut self) {
        while let Some(seq) = self.missing.front() {
            let slot = self.slot(seq);
            if slot.seq == seq && matches!(slot.state, SlotState::Missing { .. }) {
                slot.state = SlotState::Free;
            }
            self.missing.pop();
        }
    }

    /// No ack for the timeout (`TimeoutHandler`).
    pub(super) fn on_timeout(&mut self, now_us: u64) {
        self.counters.timeouts += 1;
        if self.seq_last == 0 {
            self.restart_slow_start(now_us);
            return;
        }
        if self.slow_start {
            self.end_slow_start(now_us);
        } else {
            // Nothing is in flight any more.
            self.loss_phase = true;
            self.w_crt = 0;
            self.est.d_est = self.est.d_min;
            self.seq_last = self.pkt_seq;
            self.clear_missing();
        }
        self.timeout_at_us = now_us + timeout_us(self.last_delay_ms);
    }

    /// Starts over: slow start with a new id, an empty profile
    /// (`restartSlowStart`).
    pub(super) fn restart_slow_start(&mut self, now_us: u64) {
        self.counters.slow_start_restarts += 1;
        self.est = Estimator::new();
        self.profile.clear();
        self.clear_missing();
        self.seq_last = 0;
        self.pkt_seq = 0;
        self.w_bar = 1.0;
        self.w_crt = 0;
        self.slow_start = true;
        self.loss_phase = false;
        self.exit_slow_start = false;
        self.next_refit_us = None;
        self.ss_id += 1;
        self.to_send = 1;
        self.timeout_at_us = now_us + SS_INIT_TIMEOUT_US;
        self.last_ack_us = now_us;
    }
}

/// The ack timeout after a delay of `delay_ms`: 5 delays within [150 ms, 1 s].
pub(super) fn timeout_us(delay_ms: f64) -> u64 {
    ((TIMEOUT_RTTS * delay_ms * 1000.0) as u64).clamp(MIN_TIMEOUT_US, MAX_TIMEOUT_US)
}
