// SPDX-License-Identifier: GPL-2.0-only
//! The Verus sender (paper §3, the authors' `verus_server.cpp`), for an
//! always-backlogged application. Pure: the caller passes the time (µs,
//! any monotonic origin), sends the datagrams this writes and hands it the
//! acks that arrive.
//!
//! - **Slow start**: one packet, then per ack the window grows by one and
//!   the sender tops the flight up to it (doubling per RTT). Every ack also
//!   samples the delay profile. It ends on the first loss once the cut
//!   window is above 20 packets (windows at or above the loss are then
//!   dropped from the profile), on a delay over 500 ms, on a timeout, or
//!   when the socket buffer is full.
//! - **Epochs** (5 ms) after slow start: the estimator moves the target
//!   delay ([`crate::estimator`]), the window is the profile's window for
//!   it ([`crate::profile`]), and the epoch sends what it takes to reach
//!   that window by the time the current flight is acked. The profile is
//!   refit once a second.
//! - **Losses**: a packet missing from the ack sequence is declared lost
//!   150 ms after the gap was seen. The first loss of a loss phase cuts the
//!   window to at most M = 0.7 × the window the lost packet was sent under, and the
//!   target delay to the profile's delay at that window. During the phase
//!   acks grow the window by 1/W (Reno-like) and only lower the target, and
//!   they do not sample the profile; the phase ends with the first ack of
//!   a packet sent under a window no larger than the cut one.
//! - **Timeout**: no ack for max(150 ms, min(1 s, 5 × the last delay)): the
//!   flight is written off and the target delay falls to d_min; with nothing
//!   ever acked, slow start starts over (as it does when the profile cannot
//!   be fit or gives no window for the target).
//!
//! Sending a datagram and taking an ack do not allocate: the in-flight
//! record and the missing-packet queue are fixed rings (`flight.rs`).
//! Losses, timeouts and restarts are `recovery.rs`'s.
use crate::estimator::{Estimator, EPOCH_US, R};
use crate::profile::{Profile, RefitError, REFIT_EVERY_US};
use crate::wire::{self, Ack, Bye, Data, Stamp, DATA_HEADER};

mod flight;
mod recovery;
#[cfg(test)]
mod tests;

use flight::{SeqFifo, Slot, SlotState, RING};
use recovery::timeout_us;

/// Multiplicative decrease on a loss (`VERUS_M_DECREASE 0.7`,
/// verus.hpp:38; paper M).
pub const M_DECREASE: f64 = 0.7;
/// A missing packet is lost this long after its gap was seen, µs
/// (`MISSING_PKT_EXPIRY 150.0` ms, verus.hpp:48).
pub const MISSING_EXPIRY_US: u64 = 150_000;
/// Slow start ends when a delay exceeds this, ms (`SS_EXIT_THRESHOLD 500.0`,
/// verus.hpp:44).
pub const SS_EXIT_THRESHOLD_MS: f64 = 500.0;
/// Timeout before the first ack of a slow start, µs (`SS_INIT_TIMEOUT 1000.0`
/// ms, verus.hpp:45).
pub const SS_INIT_TIMEOUT_US: u64 = 1_000_000;
/// Bounds of the timeout, 5 × the last delay (`MIN_TIMEOUT 150.0`,
/// `MAX_TIMEOUT 1000.0` ms, verus.hpp:46-47; verus_server.cpp:649).
pub const MIN_TIMEOUT_US: u64 = 150_000;
pub const MAX_TIMEOUT_US: u64 = 1_000_000;
pub const TIMEOUT_RTTS: f64 = 5.0;
/// Slow start ends on a loss only if the cut window is above this, packets
/// (verus_server.cpp:566).
pub const SS_LOSS_EXIT_WINDOW: f64 = 20.0;
/// Windows at or above max(this, the lost packet's) leave the profile when
/// slow start ends on a loss (`curveStop = fmax(100, pdu->w)`, :567).
pub const CURVE_STOP_FLOOR: usize = 100;
/// Target delay after slow start ends on a long delay or a full buffer, as a
/// fraction of the largest allowed delay R × d_min (`0.75*dMin*VERUS_R`, :640).
pub const SS_EXIT_TARGET_OF_MAX: f64 = 0.75;
/// Window cut when the socket buffer fills in slow start (`0.49 * pdu->w`, :347).
pub const SS_BUFFER_FULL_DECREASE: f64 = 0.49;

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub session: u32,
    /// Datagram bytes of a data packet (UDP payload).
    pub packet_size: usize,
}

impl SenderConfig {
    pub fn new(session: u32) -> Self {
        SenderConfig {
            session,
            packet_size: crate::DEFAULT_PACKET_SIZE,
        }
    }
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SenderCounters {
    pub data_packets: u64,
    pub bytes_sent: u64,
    pub acks: u64,
    /// Acks of an earlier slow start, ignored.
    pub acks_stale: u64,
    pub acks_other_session: u64,
    /// Acks of packets never sent.
    pub acks_inconsistent: u64,
    /// Acks of packets already declared lost (or written off by a timeout).
    pub acks_late: u64,
    pub losses: u64,
    pub loss_phases: u64,
    pub timeouts: u64,
    pub slow_start_exits: u64,
    pub slow_start_restarts: u64,
    pub epochs: u64,
    /// Epochs that sent nothing because the target sat on d_min.
    pub epochs_paused: u64,
    /// Epoch slots that passed while the sender was not woken (a late
    /// wake-up runs one epoch, not a burst of them).
    pub epochs_skipped: u64,
    /// Epoch slots spent in slow start (no epoch work).
    pub slow_start_epochs: u64,
    pub refits: u64,
    /// Sends the socket refused (buffer full): treated as losses.
    pub send_refused: u64,
    /// The receiver's totals from the latest ack.
    pub received_bytes: u64,
    pub received_packets: u64,
}

pub struct Sender {
    cfg: SenderConfig,
    pub est: Estimator,
    pub profile: Profile,
    slots: Vec<Slot>,
    missing: SeqFifo,
    /// Last sequence number sent in this slow-start epoch (`pktSeq`).
    pkt_seq: u64,
    /// Highest in-order acked sequence number (`seqLast`).
    seq_last: u64,
    ss_id: u32,
    /// Sending window, packets (`wBar`).
    w_bar: f64,
    /// Packets in flight (`wCrt`).
    w_crt: u64,
    /// Packets the sender may send now (`tempS`).
    to_send: u64,
    slow_start: bool,
    /// Slow start just ended on a long delay or a full buffer (`exitSlowStart`).
    exit_slow_start: bool,
    loss_phase: bool,
    started: bool,
    next_epoch_us: u64,
    next_refit_us: Option<u64>,
    timeout_at_us: u64,
    last_delay_ms: f64,
    last_ack_us: u64,
    pub counters: SenderCounters,
}

impl Sender {
    pub fn new(cfg: SenderConfig) -> Self {
        assert!(cfg.packet_size >= DATA_HEADER && cfg.packet_size <= wire::MAX_DATAGRAM);
        Sender {
            cfg,
            est: Estimator::new(),
            profile: Profile::new(),
            slots: vec![
                Slot {
                    seq: 0,
                    window: 0,
                    state: SlotState::Free
                };
                RING
            ],
            missing: SeqFifo::new(),
            pkt_seq: 0,
            seq_last: 0,
            ss_id: 0,
            w_bar: 1.0,
            w_crt: 0,
            to_send: 0,
            slow_start: true,
            exit_slow_start: false,
            loss_phase: false,
            started: false,
            next_epoch_us: 0,
            next_refit_us: None,
            timeout_at_us: 0,
            last_delay_ms: 0.0,
            last_ack_us: 0,
            counters: SenderCounters::default(),
        }
    }

    pub fn config(&self) -> &SenderConfig {
        &self.cfg
    }
    /// The sending window, packets.
    pub fn window(&self) -> f64 {
        self.w_bar
    }
    pub fn in_flight(&self) -> u64 {
        self.w_crt
    }
    pub fn in_slow_start(&self) -> bool {
        self.slow_start
    }
    pub fn in_loss_phase(&self) -> bool {
        self.loss_phase
    }
    pub fn packets_sent(&self) -> u64 {
        self.counters.data_packets
    }
    pub fn bytes_sent(&self) -> u64 {
        self.counters.bytes_sent
    }

    fn slot(&mut self, seq: u64) -> &mut Slot {
        &mut self.slots[seq as usize & (RING - 1)]
    }

    /// Runs what is due at `now`: the start, timeouts, missing-packet
    /// expiry, the epoch and the profile refit.
    pub fn poll(&mut self, now_us: u64) {
        if !self.started {
            self.started = true;
            self.to_send = 1;
            self.timeout_at_us = now_us + SS_INIT_TIMEOUT_US;
            self.next_epoch_us = now_us + EPOCH_US;
            self.last_ack_us = now_us;
        }
        if now_us >= self.timeout_at_us {
            self.on_timeout(now_us);
        }
        self.expire_missing(now_us);
        if now_us >= self.next_epoch_us {
            self.epoch(now_us);
            // One epoch per wake-up, on the 5-ms grid unless far behind.
            self.next_epoch_us += EPOCH_US;
            if self.next_epoch_us <= now_us {
                self.counters.epochs_skipped += (now_us - self.next_epoch_us) / EPOCH_US + 1;
                self.next_epoch_us = now_us + EPOCH_US;
            }
        }
        if !self.slow_start && self.next_refit_us.is_some_and(|t| now_us >= t) {
            self.next_refit_us = Some(now_us + REFIT_EVERY_US);
            match self.profile.refit() {
                Ok(()) => self.counters.refits += 1,
                Err(RefitError::TooFewWindows) | Err(RefitError::Fit(_)) => {
                    self.restart_slow_start(now_us)
                }
            }
        }
    }

    /// When [`Sender::poll`] next has something to do.
    pub fn next_event_us(&self) -> u64 {
        let mut t = self.next_epoch_us.min(self.timeout_at_us);
        if let Some(seq) = self.missing.front() {
            if let SlotState::Missing { since_us } = self.slots[seq as usize & (RING - 1)].state {
                t = t.min(since_us + MISSING_EXPIRY_US);
            }
        }
        if !self.slow_start {
            if let Some(r) = self.next_refit_us {
                t = t.min(r);
            }
        }
        t
    }

    /// Writes the next data datagram into `buf` (its first `packet_size`
    /// bytes past the header must be zero: only the header is written), or
    /// None when the window allows nothing now. Does not allocate.
    pub fn poll_transmit(&mut self, now_us: u64, buf: &mut [u8]) -> Option<usize> {
        if self.to_send == 0 {
            return None;
        }
        self.to_send -= 1;
        self.pkt_seq += 1;
        let window = self.w_bar.max(0.0) as u32;
        let stamp = Stamp {
            session: self.cfg.session,
            ss_id: self.ss_id,
            seq: self.pkt_seq,
            window,
            send_time_us: now_us,
        };
        let n = wire::write_data(
            &Data {
                stamp,
                len: self.cfg.packet_size,
            },
            buf,
            false,
        );
        let seq = self.pkt_seq;
        *self.slot(seq) = Slot {
            seq,
            window,
            state: SlotState::Outstanding,
        };
        self.w_crt += 1;
        self.counters.data_packets += 1;
        self.counters.bytes_sent += n as u64;
        Some(n)
    }

    /// Takes an ack; false if it was ignored (another session, an earlier
    /// slow start, a packet never sent). Does not allocate.
    pub fn on_ack(&mut self, now_us: u64, ack: &Ack) -> bool {
        let s = &ack.stamp;
        if s.session != self.cfg.session {
            self.counters.acks_other_session += 1;
            return false;
        }
        if s.ss_id < self.ss_id {
            self.counters.acks_stale += 1;
            return false;
        }
        if s.ss_id > self.ss_id || s.seq > self.pkt_seq || s.send_time_us > now_us {
            self.counters.acks_inconsistent += 1;
            return false;
        }
        self.counters.acks += 1;
        self.counters.received_bytes = self.counters.received_bytes.max(ack.bytes_received);
        self.counters.received_packets = self.counters.received_packets.max(ack.packets_received);
        let delay_ms = (now_us - s.send_time_us) as f64 / 1000.0;
        self.last_delay_ms = delay_ms;
        if self.slow_start && delay_ms > SS_EXIT_THRESHOLD_MS {
            self.w_bar = M_DECREASE * s.window as f64;
            self.est.d_est = SS_EXIT_TARGET_OF_MAX * self.est.d_min * R;
            self.loss_phase = true;
            self.exit_slow_start = true;
            self.end_slow_start(now_us);
        }
        self.timeout_at_us = now_us + timeout_us(delay_ms);
        if self.loss_phase && s.window as f64 <= self.w_bar {
            self.est.clear_epoch();
            self.loss_phase = false;
            self.exit_slow_start = false;
        }
        let seq = s.seq;
        if seq == self.seq_last + 1 {
            self.sample(delay_ms, s.window);
        } else if seq < self.seq_last {
            let slot = *self.slot(seq);
            if slot.seq == seq && matches!(slot.state, SlotState::Missing { .. }) {
                // Its queue entry stays; expiry skips it.
                self.slot(seq).state = SlotState::Free;
                self.sample(delay_ms, s.window);
            } else {
                self.counters.acks_late += 1;
            }
        } else {
            for gap in self.seq_last + 1..seq {
                let slot = self.slot(gap);
                if slot.seq == gap && slot.state == SlotState::Outstanding {
                    slot.state = SlotState::Missing { since_us: now_us };
                    if !self.missing.push(gap) {
                        self.slot(gap).state = SlotState::Free;
                    }
                }
            }
            self.sample(delay_ms, s.window);
        }
        if seq > self.seq_last {
            self.seq_last = seq;
            self.last_ack_us = now_us;
        }
        let slot = self.slot(seq);
        if slot.seq == seq && slot.state == SlotState::Outstanding {
            slot.state = SlotState::Free;
        }
        if self.slow_start {
            // Top the flight up to the window. The authors' sending thread
            // sends at once, so their `wCrt` already counts what the previous
            // ack released; ours is sent after the batch of acks, so it is
            // counted here (`to_send`).
            self.w_bar += 1.0;
            let flight = (self.w_crt + self.to_send) as f64;
            self.to_send += (self.w_bar - flight).max(0.0) as u64;
        }
        true
    }

    /// An acked packet's delay (`updateUponReceivingPacket`).
    fn sample(&mut self, delay_ms: f64, window: u32) {
        self.w_crt = self.w_crt.saturating_sub(1);
        self.est.on_delay(delay_ms);
        if !self.loss_phase {
            self.profile.record(window, delay_ms);
        } else {
            self.w_bar += 1.0 / self.w_bar;
            if self.profile.have_curve() {
                if let Some(d) = self.profile.delay_at(self.w_bar) {
                    self.est.d_est = self.est.d_est.min(d);
                }
            }
        }
    }

    /// One 5-ms epoch after slow start (the authors' main loop).
    fn epoch(&mut self, now_us: u64) {
        if self.slow_start {
            self.counters.slow_start_epochs += 1;
            return;
        }
        self.counters.epochs += 1;
        let since_ack_ms = now_us.saturating_sub(self.last_ack_us) as f64 / 1000.0;
        let step = self
            .est
            .epoch(since_ack_ms, self.exit_slow_start, self.w_crt);
        let Some(w) = self.profile.window_for(self.est.d_est) else {
            self.restart_slow_start(now_us);
            return;
        };
        self.w_bar = (w as f64).max(1.0);
        let budget = self.est.epoch_budget(self.w_bar, self.w_crt);
        self.est.end_epoch(step.d_max);
        if step.pause {
            self.counters.epochs_paused += 1;
        } else {
            self.to_send += budget;
        }
    }

    /// The goodbye datagram; returns its length.
    pub fn write_bye(&self, buf: &mut [u8]) -> usize {
        wire::write_bye(
            &Bye {
                session: self.cfg.session,
                packets_sent: self.counters.data_packets,
                bytes_sent: self.counters.bytes_sent,
            },
            buf,
        )
    }
}
