// SPDX-License-Identifier: GPL-2.0-only
//! The knobs (flow parameters) of the built-in schemes: each a name, a
//! sentence, and a range or a word check.
use super::knob::Knob;

/// `variant = "jsac" | "paper" | "drain"`, optionally with +BEHAVIOUR / -BEHAVIOUR.
fn c2tcp_variant_word(w: &str) -> Result<(), String> {
    w.parse::<sockopt::Variant>().map(|_| ())
}

/// One switch per behaviour (sockopt::variant: the authors' five, the drain
/// variant's three), on top of `variant`: 1 forces it on, 0 off.
macro_rules! c2tcp_switch {
    ($name:literal, $about:literal) => {
        Knob {
            name: $name,
            about: $about,
            min: 0.0,
            max: 1.0,
            word: None,
            default: None,
            sysctl: None,
        }
    };
}

pub(crate) const VARIANT: Knob = Knob {
    name: "variant",
    about: "jsac (the authors' released behaviour, default), paper (Algorithms 1-3 as printed) or \
            drain (jsac whose imaginary drop drains the queue, not the pipe), then any +BEHAVIOUR/-BEHAVIOUR",
    min: 0.0,
    max: 0.0,
    word: Some(c2tcp_variant_word),
    default: None,
    sysctl: None,
};
pub(crate) const TARGET_MS: Knob = Knob {
    name: "target_ms",
    about: "average-delay Target given through SOL_C2TCP",
    min: sockopt::C2TCP_TARGET_MIN_MS,
    max: sockopt::C2TCP_TARGET_MAX_MS,
    word: None,
    default: None,
    sysctl: None,
};
pub(crate) const ALPHA: Knob = Knob {
    name: "alpha",
    about: "pin alpha (Setpoint = alpha x minRTT) and stop the Tuner",
    min: sockopt::C2TCP_ALPHA_MIN,
    max: sockopt::C2TCP_ALPHA_MAX,
    word: None,
    default: None,
    sysctl: None,
};

pub(super) const C2TCP_KNOBS: &[Knob] = &[
    VARIANT,
    c2tcp_switch!(
        "blind_window",
        "1: nothing for 1 s after a Cubic epoch start (authors' hook position)"
    ),
    c2tcp_switch!(
        "anchored_tuner",
        "1: alpha re-anchored at Target/minRTT every cycle (JSAC Tuner)"
    ),
    c2tcp_switch!(
        "ms_good_test",
        "1: Good iff rtt_ms <= Setpoint_ms, in whole ms"
    ),
    c2tcp_switch!(
        "shared_growth",
        "1: Good growth Setpoint_ms/rtt_ms per ACK on Cubic's counter, no gate"
    ),
    c2tcp_switch!(
        "ack_interval",
        "1: Interval = current Setpoint on every ACK; CoDel's Newton step"
    ),
    c2tcp_switch!(
        "bdp_floor",
        "1: a Bad cuts cwnd to the packets delivered in the last min RTT, not to 1 (drain)"
    ),
    c2tcp_switch!(
        "hold_ssthresh",
        "1: a Bad while cwnd is below ssthresh keeps ssthresh, as a repeated timeout does (drain)"
    ),
    c2tcp_switch!(
        "pacing",
        "1: the kernel's own pacing at 1.2 x cwnd/sRTT (2 x in slow start) (drain)"
    ),
    TARGET_MS,
    ALPHA,
];
/// Sprout's receiver model (`c2tcp sprout-recv`, docs/sprout.md).
pub(super) const SPROUT_KNOBS: &[Knob] = &[CONFIDENCE, MAX_RATE_MBPS, RTT_LOOKAHEAD, SPROUT_SENDER];

pub(crate) const CONFIDENCE: Knob = Knob {
    name: "confidence",
    about: "forecast percentile, % (paper Fig. 9: 5, 25, 50, 75; default 5)",
    min: 0.1,
    max: 99.9,
    word: None,
    default: None,
    sysctl: None,
};
pub(crate) const MAX_RATE_MBPS: Knob = Knob {
    name: "max_rate_mbps",
    about: "top of the receiver's rate model, Mbit/s (default 30 = 2500 packets/s: the LTE traces' \
            typical rates; the paper's 12 is below TMobile-LTE's mean). Bins scale to stay 4.9 packets/s wide",
    min: 1.0,
    max: 100.0,
    word: None,
    default: None,
    sysctl: None,
};

/// The sender's window rule, shared by both variants (same sender).
pub(crate) const RTT_LOOKAHEAD: Knob = Knob {
    name: "rtt_lookahead",
    about:
        "1: the window looks one min RTT past 100 ms of forecast (default); 0: the paper's window",
    min: 0.0,
    max: 1.0,
    word: None,
    default: None,
    sysctl: None,
};

fn sprout_sender_word(w: &str) -> Result<(), String> {
    match w {
        "ours" | "authors" => Ok(()),
        _ => Err(format!("sender = {w:?}: ours or authors")),
    }
}

/// Which sender: the paper's rules (ours) or the authors' code.
pub(crate) const SPROUT_SENDER: Knob = Knob {
    name: "sender",
    about: "ours (the paper's drain of the queue estimate, with the RTT look-ahead; default) or authors \
            (alfalfa's sproutconn.cc: drains the cumulative forecast each tick, no look-ahead)",
    min: 0.0,
    max: 0.0,
    word: Some(sprout_sender_word),
    default: None,
    sysctl: None,
};

pub(super) const SPROUT_EWMA_KNOBS: &[Knob] = &[RTT_LOOKAHEAD, SPROUT_SENDER];

/// NetAssist's feedback mode for the run (netassist::meter::Feedback).
fn netassist_feedback_word(w: &str) -> Result<(), String> {
    match netassist::meter::Feedback::parse(w) {
        Some(_) => Ok(()),
        None => Err(format!(
            "feedback = {w:?}: one of {}",
            netassist::meter::Feedback::NAMES.join(", ")
        )),
    }
}

/// NetAssist's feedback, a setting of the run's one NetAssist: every
/// NetAssisted flow of a run must give the same.
pub(crate) const FEEDBACK: Knob = Knob {
    name: "feedback",
    about: "NetAssist's feedback: live (the period just ended, an empty one as 0; default), carry \
            (live, an empty period as the last non-zero bandwidth), replay (the authors' oracle: \
            each period's capacity at its start)",
    min: 0.0,
    max: 0.0,
    word: Some(netassist_feedback_word),
    default: None,
    sysctl: None,
};
/// NATCP's window: eq. 1 with the headroom of the authors' BBR-based NATCP.
pub(crate) const HEADROOM: Knob = Knob {
    name: "headroom",
    about: "1: NATCP's window is eq. 1 plus BBR's headroom (3 TSO goals, even, >= 4), as the \
            authors' BBR-based NATCP (default); 0: eq. 1 alone",
    min: 0.0,
    max: 1.0,
    word: None,
    default: None,
    sysctl: None,
};
/// NATCP's assumed delay cap (the authors' `tcp_bbr_enable_maxdelay`).
pub(crate) const MAXDELAY: Knob = Knob {
    name: "maxdelay",
    about: "1: NATCP's window loses BBR's headroom while its RTT is above NetAssist's minimum RTT, the \
            delay cap we assume of the authors' BBR (tcp_bbr_enable_maxdelay, its patch not public); \
            0: no cap (default)",
    min: 0.0,
    max: 1.0,
    word: None,
    default: None,
    sysctl: None,
};
pub(super) const NATCP_KNOBS: &[Knob] = &[FEEDBACK, HEADROOM, MAXDELAY];
pub(super) const NETASSISTED_KNOBS: &[Knob] = &[FEEDBACK];

// Receiver-side rules: the parameters worth sweeping (rxctl's `params.rs`
// gives the defaults and the reasons for them). One UE runs one controller,
// so every controlled flow of a scenario must give the same values.
/// Where the receiver's RTT comes from (rxctl::RttSource).
fn rxctl_rtt_word(w: &str) -> Result<(), String> {
    match rxctl::RttSource::parse(w) {
        Some(_) => Ok(()),
        None => Err(format!(
            "rtt_source = {w:?}: one of {}",
            rxctl::RttSource::ALL.map(|s| s.name()).join(", ")
        )),
    }
}
pub(crate) const RTT_SOURCE: Knob = Knob {
    name: "rtt_source",
    about: "the receiver's RTT: timestamp_echo (each segment's TSecr against when that TSval left, the \
            DFCSD paper's with timestamps; default), window_span (the time the advertised window takes \
            to arrive, the paper's without) or kernel_timestamps (tcpi_rcv_rtt, for comparison)",
    min: 0.0,
    max: 0.0,
    word: Some(rxctl_rtt_word),
    default: None,
    sysctl: None,
};
pub(super) const DFCSD_KNOBS: &[Knob] = &[GAMMA_MAX, GAMMA_MIN, GAMMA_K, RTT_SOURCE];
pub(crate) const GAMMA_MAX: Knob = Knob {
    name: "gamma_max",
    about: "DFCSD allowance of the smallest flow, packets (default 10)",
    min: 0.5,
    max: 1000.0,
    word: None,
    default: None,
    sysctl: None,
};
pub(crate) const GAMMA_MIN: Knob = Knob {
    name: "gamma_min",
    about: "DFCSD allowance of the largest flow, packets, > 0 (default 2)",
    min: 0.1,
    max: 1000.0,
    word: None,
    default: None,
    sysctl: None,
};
pub(crate) const GAMMA_K: Knob = Knob {
    name: "gamma_k",
    about: "DFCSD decay of the allowance with the bytes received (default 3)",
    min: 0.0,
    max: 50.0,
    word: None,
    default: None,
    sysctl: None,
};
pub(super) const DRWA_KNOBS: &[Knob] = &[DRWA_LAMBDA, RTT_SOURCE];
pub(crate) const DRWA_LAMBDA: Knob = Knob {
    name: "drwa_lambda",
    about: "DRWA gain: queueing settles at (lambda - 1) base RTTs (default 3)",
    min: 1.0,
    max: 10.0,
    word: None,
    default: None,
    sysctl: None,
};

/// The video sender's rate bounds (`webrtc-gcc send`, docs/webrtc.md).
pub(super) const WEBRTC_GCC_KNOBS: &[Knob] = &[INITIAL_KBPS, MIN_KBPS, MAX_KBPS, FPS];
pub(crate) const INITIAL_KBPS: Knob = Knob {
    name: "initial_kbps",
    about: "GCC's start rate, kbit/s (default 300, libwebrtc's)",
    min: 5.0,
    max: 50_000.0,
    word: None,
    default: None,
    sysctl: None,
};
pub(crate) const MIN_KBPS: Knob = Knob {
    name: "min_kbps",
    about: "GCC's floor, kbit/s (default 30, libwebrtc's)",
    min: 5.0,
    max: 50_000.0,
    word: None,
    default: None,
    sysctl: None,
};
pub(crate) const MAX_KBPS: Knob = Knob {
    name: "max_kbps",
    about:
        "GCC's ceiling, the encoder's top rate, kbit/s (default 2500, libwebrtc's VP8 720p maximum)",
    min: 5.0,
    max: 50_000.0,
    word: None,
    default: None,
    sysctl: None,
};
pub(crate) const FPS: Knob = Knob {
    name: "fps",
    about: "frames per second of the synthetic source (default 30)",
    min: 1.0,
    max: 240.0,
    word: None,
    default: None,
    sysctl: None,
};

pub(super) const RTAC_KNOBS: &[Knob] = &[RTAC_MIN_TH, RTAC_MAX_TH, RTAC_MAX_P, RTT_SOURCE];
pub(crate) const RTAC_MIN_TH: Knob = Knob {
    name: "rtac_min_th",
    about: "RTAC's RED min_th on the estimated backlog, packets (default 5, Floyd's)",
    min: 0.0,
    max: 1000.0,
    word: None,
    default: None,
    sysctl: None,
};
pub(crate) const RTAC_MAX_TH: Knob = Knob {
    name: "rtac_max_th",
    about: "RTAC's RED max_th, packets, > min_th (default 15 = 3 x min_th, Floyd's)",
    min: 0.5,
    max: 1000.0,
    word: None,
    default: None,
    sysctl: None,
};
pub(crate) const RTAC_MAX_P: Knob = Knob {
    name: "rtac_max_p",
    about: "RTAC's RED mark probability at max_th (default 0.1, Floyd's)",
    min: 0.001,
    max: 1.0,
    word: None,
    default: None,
    sysctl: None,
};
