// SPDX-License-Identifier: GPL-2.0-only
//! FlowLogic against a fluid bottleneck model: each rule's equilibrium, its
//! bounds, the kernel's own clamp, bursts that are not round trips.
use super::*;
use crate::params::{DfcsdParams, DrwaParams, RtacParams};
use std::time::Duration;

const MSS: u32 = 1448;

/// A window-limited flow over a fluid bottleneck: `rate` bytes per ms,
/// `base` µs of RTT without queueing, and `extra` µs of queueing caused
/// by others, which builds after this flow's first flight. With window W
/// the RTT is max(base, W/rate) + extra and the flow delivers W per RTT.
/// The kernel's first timestamp sample sees the empty queue (the first
/// flight), as on a real link.
struct Link {
    rate: f64,
    base: u64,
    extra: u64,
}

struct Sim {
    link: Link,
    clamp: u32,
    bytes: f64,
    t_us: u64,
    decisions: Vec<Decision>,
    sets: usize,
    /// The sender's own cwnd: it sends min(cwnd, window) per RTT.
    sender_cwnd: u32,
}

impl Sim {
    fn new(link: Link, kernel_clamp: u32) -> Sim {
        Sim {
            link,
            clamp: kernel_clamp,
            bytes: 0.0,
            t_us: 0,
            decisions: Vec::new(),
            sets: 0,
            sender_cwnd: u32::MAX,
        }
    }

    fn rtt(&self, w: u32) -> u64 {
        (self.link.base as f64).max(w as f64 / self.link.rate * 1e3) as u64 + self.link.extra
    }

    /// Runs `ms` ticks of 1 ms; `w0` is the window the kernel advertises
    /// before the controller has decided anything.
    fn run(&mut self, logic: &mut FlowLogic, ms: u64, w0: u32, gamma: f64) {
        for _ in 0..ms {
            let w = logic.rwnd().map_or(w0, |_| self.clamp);
            let in_flight = w.min(self.sender_cwnd);
            let rtt = self.rtt(in_flight);
            self.bytes += in_flight as f64 / rtt as f64 * 1000.0;
            self.t_us += 1000;
            let o = Obs {
                t_us: self.t_us,
                bytes_received: self.bytes as u64,
                rcv_wnd: w,
                mss: MSS,
                kernel_rcv_rtt_us: if self.t_us <= 1000 {
                    self.link.base as u32
                } else {
                    0
                },
                kernel_min_rtt_us: 0,
                clamp: self.clamp,
                // The first flight's echoes see the empty queue too.
                echo_rtt_us: if self.t_us <= 1000 {
                    self.link.base as u32
                } else {
                    rtt as u32
                },
            };
            let out = logic.tick(&o, gamma);
            if let Some(c) = out.set_clamp {
                self.clamp = c;
                self.sets += 1;
            }
            self.decisions.extend(out.decision);
        }
    }
}

fn cfg(rule: Rule) -> Config {
    let mut c = Config::new(rule);
    c.min_period = Duration::from_millis(10);
    c
}

fn span_cfg(rule: Rule) -> Config {
    let mut c = cfg(rule);
    c.rtt_source = RttSource::WindowSpan;
    c
}

fn dfcsd() -> (Config, DfcsdParams) {
    let p = DfcsdParams::default();
    (cfg(Rule::Dfcsd(p)), p)
}

// 4 Mbit/s = 500 bytes/ms; 20 ms base RTT: BDP = 10 000 bytes = 6.9 packets.
fn link() -> Link {
    Link {
        rate: 500.0,
        base: 20_000,
        extra: 0,
    }
}

fn pkts(bytes: u32) -> f64 {
    bytes as f64 / MSS as f64
}

#[test]
fn dfcsd_grows_while_the_backlog_is_under_gamma_and_settles_at_it() {
    let (c, p) = dfcsd();
    let mut logic = FlowLogic::new(&c);
    let mut sim = Sim::new(link(), 1 << 20);
    sim.run(&mut logic, 8_000, 4 * MSS, p.gamma_max);
    let d = &sim.decisions;
    // While below BDP + γ it only grows, one MSS per decision.
    let first_hold = d
        .iter()
        .position(|d| d.step != 1)
        .expect("it stops growing");
    assert!(first_hold > 10, "grew only {first_hold} times");
    assert!(d[..first_hold]
        .windows(2)
        .all(|w| w[1].rwnd == w[0].rwnd + MSS));
    assert!(d[..first_hold]
        .iter()
        .all(|d| d.backlog.unwrap() < p.gamma_max));
    // Equilibrium: the window is BDP + γ packets, the backlog γ, held.
    let w = pkts(logic.rwnd().unwrap());
    let want = 10_000.0 / MSS as f64 + p.gamma_max;
    assert!(
        (w - want).abs() <= 1.0,
        "window {w:.1} packets, want {want:.1}"
    );
    let tail = &d[d.len() - 20..];
    assert!(
        tail.iter()
            .all(|d| (d.backlog.unwrap() - p.gamma_max).abs() <= 1.0),
        "{tail:?}"
    );
    assert!(
        tail.iter().filter(|d| d.step == 0).count() >= 15,
        "{tail:?}"
    );
    assert_eq!(logic.base_rtt_us(), Some(20_000));
}

#[test]
fn dfcsd_shrinks_while_the_backlog_is_above_gamma() {
    let p = DfcsdParams {
        start_at_fixed_point: false,
        ..DfcsdParams::default()
    };
    let c = cfg(Rule::Dfcsd(p));
    let mut logic = FlowLogic::new(&c);
    let mut sim = Sim::new(link(), 1 << 20);
    // The kernel offered 60 packets: ~53 queued.
    sim.run(&mut logic, 20_000, 60 * MSS, p.gamma_max);
    let d = &sim.decisions;
    let first_hold = d
        .iter()
        .position(|d| d.step != -1)
        .expect("it stops shrinking");
    assert!(first_hold > 30, "shrank only {first_hold} times");
    assert!(d[..first_hold]
        .iter()
        .all(|d| d.backlog.unwrap() > p.gamma_max));
    let w = pkts(logic.rwnd().unwrap());
    assert!(
        (w - (6.9 + p.gamma_max)).abs() <= 1.0,
        "window {w:.1} packets"
    );
    // Each decision took one RTT: RTTs fall as the queue drains.
    let gaps: Vec<u64> = d.windows(2).map(|w| w[1].t_us - w[0].t_us).collect();
    // 60 packets: 174 ms; BDP + γ = 17 packets: 49 ms.
    assert!(
        gaps[0] > 150_000 && *gaps.last().unwrap() < 55_000,
        "{:?}",
        &gaps[..3]
    );
}

#[test]
fn dfcsd_starts_at_its_fixed_point_below_the_kernels_window() {
    let (c, p) = dfcsd();
    let mut logic = FlowLogic::new(&c);
    let mut sim = Sim::new(link(), 1 << 20);
    // The kernel offered 60 packets (~53 queued): the first decision
    // goes straight to BDP + γ (6.9 + 10 packets), then holds there.
    sim.run(&mut logic, 3_000, 60 * MSS, p.gamma_max);
    let d = &sim.decisions;
    assert_eq!(d[0].step, 0);
    let first = pkts(d[0].rwnd);
    assert!(
        (first - (6.9 + p.gamma_max)).abs() <= 1.0,
        "first window {first:.1} packets"
    );
    assert!(
        d[1..].iter().all(|d| (pkts(d.rwnd) - first).abs() <= 1.5),
        "{:?}",
        &d[..5]
    );
    // A window under the fixed point is left to the rule: it grows.
    let mut logic = FlowLogic::new(&c);
    let mut sim = Sim::new(link(), 1 << 20);
    sim.run(&mut logic, 1_000, 4 * MSS, p.gamma_max);
    assert_eq!(sim.decisions[0].step, 1);
}

#[test]
fn a_smaller_gamma_keeps_a_smaller_queue() {
    let (c, p) = dfcsd();
    let run = |gamma: f64| {
        let mut logic = FlowLogic::new(&c);
        let mut sim = Sim::new(link(), 1 << 20);
        sim.run(&mut logic, 10_000, 20 * MSS, gamma);
        logic.rwnd().unwrap()
    };
    let (short, long) = (run(p.gamma_max), run(p.gamma_min));
    assert!(
        pkts(short) - pkts(long) >= p.gamma_max - p.gamma_min - 1.5,
        "{short} vs {long}"
    );
}

#[test]
fn the_window_never_falls_below_two_mss() {
    // A standing queue the flow cannot drain (another flow's): DFCSD with
    // a near-zero allowance and DRWA both hit the floor and stay there.
    let tiny = DfcsdParams {
        gamma_max: 0.1,
        gamma_min: 0.1,
        ..DfcsdParams::default()
    };
    for rule in [Rule::Dfcsd(tiny), Rule::Drwa(DrwaParams::default())] {
        let mut logic = FlowLogic::new(&cfg(rule));
        let mut sim = Sim::new(
            Link {
                rate: 500.0,
                base: 20_000,
                extra: 400_000,
            },
            1 << 20,
        );
        sim.run(&mut logic, 30_000, 30 * MSS, 0.1);
        assert!(
            sim.decisions.iter().all(|d| d.rwnd >= 2 * MSS),
            "{}",
            rule.name()
        );
        assert_eq!(logic.rwnd(), Some(2 * MSS), "{}", rule.name());
        assert_eq!(sim.clamp, 2 * MSS);
    }
}

#[test]
fn the_window_never_exceeds_the_kernels_own_clamp_and_overrides_are_undone() {
    let (c, p) = dfcsd();
    let mut logic = FlowLogic::new(&c);
    // The kernel's clamp is 12 packets; the rule would like ~17.
    let mut sim = Sim::new(link(), 12 * MSS);
    sim.run(&mut logic, 5_000, 4 * MSS, p.gamma_max);
    assert_eq!(logic.rwnd(), Some(12 * MSS));
    assert!(sim.decisions.iter().all(|d| d.rwnd <= 12 * MSS));
    // Autotuning raises the kernel's clamp: ours is written back at the
    // next tick, and the rule may now grow up to the new maximum.
    sim.clamp = 1 << 20;
    let sets = sim.sets;
    sim.run(&mut logic, 1, 0, p.gamma_max);
    assert_eq!(sim.sets, sets + 1);
    assert!(sim.clamp <= 13 * MSS, "{}", sim.clamp);
    assert_eq!(logic.kernel_overrides(), 1);
    assert_eq!(logic.kernel_max(), 1 << 20);
    sim.run(&mut logic, 5_000, 0, p.gamma_max);
    assert!(pkts(logic.rwnd().unwrap()) > 15.0);
}

/// RTAC from the kernel's large opening window: halves while the
/// backlog is past 2 max_th, then settles with a backlog near max_th
/// (crate::rtac's equilibrium), the window BDP + that backlog.
#[test]
fn rtac_settles_with_a_backlog_inside_reds_band() {
    let p = RtacParams::default();
    let mut logic = FlowLogic::new(&cfg(Rule::Rtac(p)));
    let mut sim = Sim::new(link(), 1 << 20);
    sim.run(&mut logic, 20_000, 100 * MSS, 0.0);
    let d = &sim.decisions;
    assert!(
        d[0].mark_p == Some(1.0) && d[0].rwnd == 50 * MSS,
        "{:?}",
        d[0]
    );
    let tail = &d[d.len() - 20..];
    for x in tail {
        let b = x.backlog.unwrap();
        assert!(b > p.max_th - 2.0 && b < p.max_th + 2.0, "{tail:?}");
        assert!(x.gamma.is_none() && x.cwnd_est.is_none());
    }
    let w = pkts(logic.rwnd().unwrap());
    assert!(
        w > 10_000.0 / MSS as f64 + p.min_th,
        "window {w:.1} packets"
    );
}

#[test]
fn drwa_settles_where_the_rtt_is_lambda_times_the_minimum() {
    let p = DrwaParams::default();
    let mut logic = FlowLogic::new(&cfg(Rule::Drwa(p)));
    let mut sim = Sim::new(link(), 1 << 20);
    sim.run(&mut logic, 20_000, 60 * MSS, 0.0);
    let last = sim.decisions.last().unwrap();
    // RTT = 3 x 20 ms: a window of 3 BDP = 30 000 bytes.
    let ratio = last.rtt_us as f64 / 20_000.0;
    assert!((ratio - p.lambda).abs() < 0.3, "RTT/RTTmin = {ratio:.2}");
    let w = logic.rwnd().unwrap() as f64;
    assert!((w / 30_000.0 - 1.0).abs() < 0.1, "window {w}");
    // DRWA's own formula on the recorded quantities.
    let prev = &sim.decisions[sim.decisions.len() - 2];
    assert!(last.cwnd_est.unwrap() > 0 && prev.rwnd >= 2 * MSS);
}

#[test]
fn a_window_that_arrives_as_one_burst_is_not_a_round_trip() {
    // 54 Mbit/s, 4 ms minimum RTT, the window at 2 MSS: each window
    // arrives within one tick, then nothing until the next round trip.
    for rule in [
        Rule::Drwa(DrwaParams::default()),
        Rule::Dfcsd(DfcsdParams::default()),
    ] {
        let mut logic = FlowLogic::new(&span_cfg(rule));
        let (mut bytes, mut w) = (0u64, 2 * MSS);
        for ms in 1..=400u64 {
            if ms % 4 == 0 {
                bytes += w as u64;
            }
            let o = Obs {
                t_us: ms * 1000,
                bytes_received: bytes,
                rcv_wnd: w,
                mss: MSS,
                kernel_min_rtt_us: 4_000,
                clamp: logic.rwnd().unwrap_or(1 << 20),
                ..Obs::default()
            };
            logic.tick(&o, 10.0);
            w = logic.rwnd().unwrap_or(w);
        }
        assert!(
            logic.base_rtt_us().unwrap() >= 4_000,
            "{}: base {:?}",
            rule.name(),
            logic.base_rtt_us()
        );
        assert!(
            w > 4 * MSS,
            "{}: the window stayed at {w} bytes",
            rule.name()
        );
    }
}

#[test]
fn no_decision_without_an_rtt_sample() {
    let (c, p) = dfcsd();
    let mut logic = FlowLogic::new(&c);
    // Nothing received: no sample, no window written, the kernel's stays
    // (a handshake RTT alone is a base, not a current RTT).
    for ms in 1..500u64 {
        let o = Obs {
            t_us: ms * 1000,
            mss: MSS,
            rcv_wnd: 65_535,
            clamp: 100_000,
            kernel_min_rtt_us: 300,
            ..Obs::default()
        };
        assert_eq!(logic.tick(&o, p.gamma_max), TickOut::default());
    }
    assert_eq!(logic.rwnd(), None);
}

#[test]
fn a_sender_held_by_its_own_cwnd_is_read_as_a_queue_only_by_the_window_span() {
    // The sender keeps 10 MSS in flight (3 packets queued at 4 Mbit/s over
    // 20 ms) under the kernel's 100-MSS window. The echo RTT is the path's
    // (29 ms): DFCSD's backlog rwnd·(1 − base/RTT) then settles rwnd near
    // γ/(1 − base/RTT) = 32 packets, never below the sender's cwnd. The
    // window's span is the sender's pace (10x longer), so the same rule
    // pulls rwnd down to about the sender's cwnd + γ.
    let cwnd = 10 * MSS;
    let mut lowest = Vec::new();
    for source in [RttSource::TimestampEcho, RttSource::WindowSpan] {
        let (mut c, p) = dfcsd();
        c.rtt_source = source;
        let mut logic = FlowLogic::new(&c);
        let mut sim = Sim::new(link(), 1 << 20);
        sim.sender_cwnd = cwnd;
        sim.run(&mut logic, 20_000, 100 * MSS, p.gamma_max);
        let low = sim.decisions.iter().map(|d| d.rwnd).min().unwrap();
        lowest.push((source, low, logic.rwnd().unwrap()));
    }
    let (_, echo_low, echo_end) = lowest[0];
    let (_, span_low, _) = lowest[1];
    assert!(
        echo_low > 2 * cwnd,
        "echo: rwnd fell to {:.1} packets",
        pkts(echo_low)
    );
    assert!(
        (pkts(echo_end) - 32.3).abs() < 3.0,
        "echo: rwnd {:.1} packets",
        pkts(echo_end)
    );
    assert!(
        span_low < cwnd + 12 * MSS,
        "span: rwnd only fell to {:.1} packets",
        pkts(span_low)
    );
}
