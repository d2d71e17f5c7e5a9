// SPDX-License-Identifier: GPL-2.0-only
//! The Sprout receiver's logic (paper §3.2–3.4). Pure: the caller passes the
//! time (µs) with every datagram and asks for ticks.
//!
//! Every tick (20 ms, counted from the first datagram) it evolves its
//! estimator, observes the packets that arrived in the tick — unless none
//! arrived while the sender had announced it would be idle (time-to-next), as
//! an empty queue then says nothing about the link — and produces a feedback
//! datagram: the forecast with the received-or-lost byte count.
use std::collections::BTreeMap;

use crate::ewma::Ewma;
use crate::forecast::Forecaster;
use crate::inference::Inference;
use crate::model::{Model, Params};
use crate::wire::{self, Bye, Data, Feedback, Packet, WireError};
use crate::{Variant, MAX_HORIZON};

#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    pub variant: Variant,
    pub params: Params,
    /// Forecast quantile: 0.05 is the paper's "95% sure" (Fig. 9 also 0.25,
    /// 0.5, 0.75). Sprout only.
    pub confidence: f64,
    /// Datagram bytes that make one packet of the model.
    pub packet_size: usize,
    pub ewma_gain: f64,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig {
            variant: Variant::Sprout,
            params: Params::default(),
            confidence: 0.05,
            packet_size: crate::DEFAULT_PACKET_SIZE,
            ewma_gain: crate::ewma::DEFAULT_GAIN,
        }
    }
}

enum Estimator {
    Sprout {
        model: Box<Model>,
        inference: Inference,
        forecaster: Box<Forecaster>,
    },
    Ewma(Ewma),
}

/// Bytes received or written off as lost (§3.4).
#[derive(Default)]
struct RecvQueue {
    /// Every byte before this is received or lost.
    throwaway: u64,
    /// Datagrams received at or after `throwaway`: seq → length.
    above: BTreeMap<u64, u32>,
    above_bytes: u64,
}

enum Arrival {
    New,
    Duplicate,
    /// Behind the throwaway point: already written off.
    Late,
}

impl RecvQueue {
    fn on_data(&mut self, seq: u64, len: u32, throwaway: u64) -> Arrival {
        if throwaway > self.throwaway {
            self.throwaway = throwaway;
            // Datagrams tile the seq space, so none straddles the throwaway point.
            while let Some((&s, &l)) = self.above.first_key_value() {
                if s >= throwaway {
                    break;
                }
                self.above.pop_first();
                self.above_bytes -= l as u64;
            }
        }
        if seq < self.throwaway {
            return Arrival::Late;
        }
        if self.above.insert(seq, len).is_some() {
            return Arrival::Duplicate;
        }
        self.above_bytes += len as u64;
        Arrival::New
    }

    fn received_or_lost(&self) -> u64 {
        self.throwaway + self.above_bytes
    }
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ReceiverCounters {
    pub data_packets: u64,
    pub heartbeats: u64,
    /// Bytes of data and heartbeat datagrams, duplicates excluded.
    pub bytes_received: u64,
    pub duplicates: u64,
    pub late: u64,
    pub other_session: u64,
    /// Feedback or other kinds a receiver does not expect.
    pub unexpected_kind: u64,
    pub dropped: wire::DropCounts,
    pub ticks: u64,
    pub ticks_observed: u64,
    /// Empty ticks not observed because the sender had announced a pause.
    pub ticks_skipped: u64,
    /// Highest packet number seen + 1.
    pub packets_seen: u64,
}

pub struct Receiver {
    cfg: ReceiverConfig,
    tick_us: u64,
    est: Estimator,
    session: Option<u32>,
    tick_start_us: Option<u64>,
    tick_no: u32,
    /// Packets (datagram bytes / packet size) that arrived in the current tick.
    count: f64,
    /// Empty ticks starting before this are not observed.
    silent_until_us: u64,
    recvq: RecvQueue,
    forecast: [u32; MAX_HORIZON],
    bye: Option<Bye>,
    pub counters: ReceiverCounters,
}

impl Receiver {
    /// Builds the estimator's tables (a fraction of a second for Sprout).
    pub fn new(cfg: ReceiverConfig) -> Result<Self, String> {
        cfg.params.validate()?;
        if !(cfg.confidence > 0.0 && cfg.confidence < 1.0) {
            return Err(format!(
                "confidence must be in (0, 1), got {}",
                cfg.confidence
            ));
        }
        if cfg.packet_size < wire::DATA_HEADER || cfg.packet_size > wire::MAX_DATAGRAM {
            return Err(format!(
                "packet size must be in {}..={}, got {}",
                wire::DATA_HEADER,
                wire::MAX_DATAGRAM,
                cfg.packet_size
            ));
        }
        if !(cfg.ewma_gain > 0.0 && cfg.ewma_gain <= 1.0) {
            return Err(format!(
                "EWMA gain must be in (0, 1], got {}",
                cfg.ewma_gain
            ));
        }
        let est = match cfg.variant {
            Variant::Sprout => {
                let model = Model::new(cfg.params.clone())?;
                let inference = Inference::new(&model);
                let forecaster = Forecaster::new(&model);
                Estimator::Sprout {
                    model: Box::new(model),
                    inference,
                    forecaster: Box::new(forecaster),
                }
            }
            Variant::SproutEwma => Estimator::Ewma(Ewma::new(cfg.ewma_gain)),
        };
        let tick_us = (cfg.params.tick_s * 1e6).round() as u64;
        Ok(Receiver {
            cfg,
            tick_us,
            est,
            session: None,
            tick_start_us: None,
            tick_no: 0,
            count: 0.0,
            silent_until_us: 0,
            recvq: RecvQueue::default(),
            forecast: [0; MAX_HORIZON],
            bye: None,
            counters: ReceiverCounters::default(),
        })
    }

    pub fn config(&self) -> &ReceiverConfig {
        &self.cfg
    }

    /// The sender's session, once a data datagram arrived.
    pub fn session(&self) -> Option<u32> {
        self.session
    }

    /// The sender's goodbye, if it arrived.
    pub fn bye(&self) -> Option<&Bye> {
        self.bye.as_ref()
    }

    /// Handles one datagram. Returns the data header of an accepted data
    /// datagram; malformed datagrams are counted and returned as errors.
    pub fn on_datagram(&mut self, now_us: u64, bytes: &[u8]) -> Result<Option<Data>, WireError> {
        let packet = match wire::parse(bytes) {
            Ok(p) => p,
            Err(e) => {
                self.counters.dropped.record(&e);
                return Err(e);
            }
        };
        match packet {
            Packet::Data(d) => {
                match self.session {
                    None => {
                        self.session = Some(d.session);
                        self.tick_start_us = Some(now_us);
                    }
                    Some(s) if s != d.session => {
                        self.counters.other_session += 1;
                        return Ok(None);
                    }
                    Some(_) => {}
                }
                match self.recvq.on_data(d.seq, d.len as u32, d.throwaway) {
                    Arrival::Duplicate => {
                        self.counters.duplicates += 1;
                        return Ok(None);
                    }
                    Arrival::Late => self.counters.late += 1,
                    Arrival::New => {}
                }
                self.count += d.len as f64 / self.cfg.packet_size as f64;
                self.silent_until_us = self
                    .silent_until_us
                    .max(now_us + d.time_to_next_ms as u64 * 1000);
                self.counters.bytes_received += d.len as u64;
                if d.heartbeat {
                    self.counters.heartbeats += 1;
                } else {
                    self.counters.data_packets += 1;
                }
                self.counters.packets_seen = self.counters.packets_seen.max(d.pkt_no + 1);
                Ok(Some(d))
            }
            Packet::Bye(b) => {
                if Some(b.session) == self.session {
                    self.bye = Some(b);
                } else {
                    self.counters.other_session += 1;
                }
                Ok(None)
            }
            Packet::Feedback(_) => {
                self.counters.unexpected_kind += 1;
                Ok(None)
            }
        }
    }

    /// When the current tick ends, once the first datagram started the clock.
    pub fn next_tick_us(&self) -> Option<u64> {
        self.tick_start_us.map(|t| t + self.tick_us)
    }

    /// Ends the current tick if `now` is past it: evolve, observe, forecast.
    /// Returns the feedback to send. Call until None to catch up.
    pub fn poll_tick(&mut self, now_us: u64) -> Option<Feedback> {
        let start = self.tick_start_us?;
        if now_us < start + self.tick_us {
            return None;
        }
        let observe = self.count > 0.0 || start >= self.silent_until_us;
        // The authors' rounding: any arrival counts as at least one packet
        // (so heartbeats alone say "the link is alive", and EWMA, which
        // starts at zero, can get going).
        let k = if self.count > 0.0 && self.count < 1.0 {
            1
        } else {
            self.count.round() as usize
        };
        let h = self.cfg.params.horizon;
        match &mut self.est {
            Estimator::Sprout {
                model,
                inference,
                forecaster,
            } => {
                inference.evolve(model);
                if observe {
                    inference.observe(model, k);
                }
                forecaster.forecast(inference, self.cfg.confidence, &mut self.forecast[..h]);
            }
            Estimator::Ewma(e) => {
                if observe {
                    e.observe(k as f64);
                }
                e.forecast(&mut self.forecast[..h]);
            }
        }
        self.counters.ticks += 1;
        if observe {
            self.counters.ticks_observed += 1;
        } else {
            self.counters.ticks_skipped += 1;
        }
        self.count = 0.0;
        self.tick_start_us = Some(start + self.tick_us);
        self.tick_no = self.tick_no.wrapping_add(1);
        let mut counts = [0u64; MAX_HORIZON];
        for (c, &p) in counts.iter_mut().zip(&self.forecast[..h]) {
            *c = p as u64 * self.cfg.packet_size as u64;
        }
        Some(Feedback {
            session: self.session.unwrap_or(0),
            tick: self.tick_no,
            received_or_lost: self.recvq.received_or_lost(),
            received_bytes: self.counters.bytes_received,
            n: h,
            counts,
        })
    }

    /// The latest forecast, cumulative packets per tick.
    pub fn forecast_packets(&self) -> &[u32] {
        &self.forecast[..self.cfg.params.horizon]
    }

    /// The estimator's current rate, packets/s (the posterior mean for Sprout).
    pub fn rate_estimate_pps(&self) -> f64 {
        match &self.est {
            Estimator::Sprout {
                model, inference, ..
            } => inference.mean_rate(model),
            Estimator::Ewma(e) => e.rate_per_tick() / self.cfg.params.tick_s,
        }
    }

    /// Probability of an outage (Sprout; 0 for EWMA).
    pub fn outage_probability(&self) -> f64 {
        match &self.est {
            Estimator::Sprout { inference, .. } => inference.outage_probability(),
            Estimator::Ewma(_) => 0.0,
        }
    }

    pub fn received_or_lost(&self) -> u64 {
        self.recvq.received_or_lost()
    }

    /// Packets the sender sent that never arrived (exact once the bye came).
    pub fn packets_lost(&self) -> u64 {
        let sent = self
            .bye
            .as_ref()
            .map_or(self.counters.packets_seen, |b| b.packets_sent);
        sent.saturating_sub(self.counters.data_packets + self.counters.heartbeats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::DATA_HEADER;

    const P: usize = crate::DEFAULT_PACKET_SIZE;

    struct Feed {
        seq: u64,
        pkt: u64,
        buf: Vec<u8>,
    }

    impl Feed {
        fn new() -> Self {
            Feed {
                seq: 0,
                pkt: 0,
                buf: vec![0; 2000],
            }
        }
        fn datagram(&mut self, len: usize, ttn_ms: u16) -> Vec<u8> {
            let d = Data {
                session: 9,
                time_to_next_ms: ttn_ms,
                heartbeat: len == DATA_HEADER,
                payload: false,
                seq: self.seq,
                throwaway: self.seq,
                pkt_no: self.pkt,
                send_time_us: 0,
                len,
            };
            self.seq += len as u64;
            self.pkt += 1;
            let n = wire::write_data(&d, &mut self.buf);
            self.buf[..n].to_vec()
        }
    }

    fn receiver(variant: Variant) -> Receiver {
        Receiver::new(ReceiverConfig {
            variant,
            ..ReceiverConfig::default()
        })
        .unwrap()
    }

    /// `per_tick` packets in each of `ticks` ticks; returns the last feedback.
    fn run(
        r: &mut Receiver,
        feed: &mut Feed,
        t: &mut u64,
        ticks: usize,
        per_tick: usize,
        ttn_ms: u16,
    ) -> Feedback {
        let mut last = None;
        for _ in 0..ticks {
            for i in 0..per_tick {
                r.on_datagram(
                    *t + 1 + i as u64,
                    &feed.datagram(P, if i + 1 == per_tick { ttn_ms } else { 0 }),
                )
                .unwrap();
            }
            *t += 20_000;
            // The clock started with the first datagram, at 1 µs.
            while let Some(f) = r.poll_tick(*t + 1) {
                last = Some(f);
            }
        }
        last.unwrap()
    }

    #[test]
    fn sprout_forecast_follows_the_observed_rate_and_drops_in_an_outage() {
        let mut r = receiver(Variant::Sprout);
        let mut feed = Feed::new();
        let mut t = 0;
        let fb = run(&mut r, &mut feed, &mut t, 200, 20, 0); // 1000 packets/s
        assert!(
            (r.rate_estimate_pps() - 1000.0).abs() < 100.0,
            "{}",
            r.rate_estimate_pps()
        );
        assert!(fb.counts[..8].windows(2).all(|w| w[0] <= w[1]));
        let per_tick = fb.counts[7] as f64 / 8.0 / P as f64;
        assert!(
            per_tick > 10.0 && per_tick < 20.0,
            "5% forecast {per_tick} packets/tick for a 20/tick link"
        );
        assert_eq!(fb.received_or_lost, feed.seq);
        // The link stops; the sender did not announce a pause.
        let fb = run(&mut r, &mut feed, &mut t, 50, 0, 0);
        assert!(r.outage_probability() > 0.5, "{}", r.outage_probability());
        assert_eq!(fb.counts[7], 0, "{:?}", &fb.counts[..8]);
        assert_eq!(r.counters.ticks_skipped, 0);
    }

    #[test]
    fn an_announced_pause_is_not_an_outage() {
        // Same arrivals twice: 1000 packets/s, then one packet per 100 ms;
        // one sender announces its pauses (time-to-next 100 ms), one does not.
        let mut results = Vec::new();
        for ttn in [100, 0] {
            let mut r = receiver(Variant::Sprout);
            let mut feed = Feed::new();
            let mut t = 0;
            run(&mut r, &mut feed, &mut t, 100, 20, 0);
            for _ in 0..20 {
                run(&mut r, &mut feed, &mut t, 1, 1, ttn);
                run(&mut r, &mut feed, &mut t, 4, 0, 0);
            }
            results.push((
                r.counters.ticks_skipped,
                r.rate_estimate_pps(),
                r.outage_probability(),
            ));
        }
        let (announced, silent) = (results[0], results[1]);
        assert_eq!(announced.0, 80, "every empty tick of the pauses is skipped");
        assert_eq!(silent.0, 0);
        // Observing the empty ticks drags the silent sender's estimate into
        // the outage; the announced pauses leave only the 1-packet ticks.
        assert!(announced.1 > 2.0 * silent.1, "{announced:?} vs {silent:?}");
        assert!(
            silent.2 > 0.5 && announced.2 < silent.2 / 2.0,
            "{announced:?} vs {silent:?}"
        );
    }

    #[test]
    fn ewma_forecasts_rate_times_time_and_lags_an_outage() {
        let mut r = receiver(Variant::SproutEwma);
        let mut feed = Feed::new();
        let mut t = 0;
        let fb = run(&mut r, &mut feed, &mut t, 200, 20, 0);
        assert_eq!(fb.counts[0], 19 * P as u64, "floor(20·(1−(7/8)^200))");
        assert_eq!(fb.counts[7], 159 * P as u64);
        let mut s = receiver(Variant::Sprout);
        let mut feed2 = Feed::new();
        let mut t2 = 0;
        run(&mut s, &mut feed2, &mut t2, 200, 20, 0);
        // 100 ms into an outage EWMA still forecasts half the rate; Sprout less.
        let e = run(&mut r, &mut feed, &mut t, 5, 0, 0);
        let sp = run(&mut s, &mut feed2, &mut t2, 5, 0, 0);
        assert!(e.counts[7] > 60 * P as u64, "{:?}", &e.counts[..8]);
        assert!(
            sp.counts[7] < e.counts[7] / 2,
            "sprout {:?} ewma {:?}",
            &sp.counts[..8],
            &e.counts[..8]
        );
    }

    #[test]
    fn received_or_lost_writes_off_gaps_behind_the_throwaway_point() {
        let mut q = RecvQueue::default();
        assert!(matches!(q.on_data(0, 100, 0), Arrival::New));
        // 100..200 lost; 200..300 arrives with throwaway 100.
        assert!(matches!(q.on_data(200, 100, 100), Arrival::New));
        assert_eq!(q.received_or_lost(), 100 + 100);
        assert!(matches!(q.on_data(200, 100, 100), Arrival::Duplicate));
        // A packet whose throwaway is 300 writes off 100..200 too.
        assert!(matches!(q.on_data(300, 100, 300), Arrival::New));
        assert_eq!(q.received_or_lost(), 400);
        assert!(matches!(q.on_data(100, 100, 100), Arrival::Late));
        assert_eq!(q.received_or_lost(), 400);
    }

    #[test]
    fn other_sessions_and_garbage_are_counted_not_used() {
        let mut r = receiver(Variant::SproutEwma);
        let mut feed = Feed::new();
        r.on_datagram(0, &feed.datagram(P, 0)).unwrap();
        let mut other = feed.datagram(P, 0);
        other[8] ^= 0xff;
        assert_eq!(r.on_datagram(1, &other), Ok(None));
        assert!(r.on_datagram(2, b"hello").is_err());
        assert!(r.on_datagram(3, &feed.datagram(P, 0)[..100]).is_err());
        assert_eq!(r.counters.other_session, 1);
        assert_eq!(r.counters.dropped.total(), 2);
        assert_eq!(r.counters.data_packets, 1);
    }
}
