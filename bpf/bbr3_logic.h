/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BBRv3 (Cardwell et al.; Google's v3 branch of github.com/google/bbr,
 * net/ipv4/tcp_bbr.c, and draft-ietf-ccwg-bbr), the whole state machine as
 * plain C that bpf/bbr3.bpf.c and the host test bpf/tests/bbr3_logic_test.c
 * compile. Its inputs are what the kernel hands a congestion control at an
 * ACK (struct bbr3_in: the socket's counters and the rate sample); its
 * outputs are the window and the pacing rate (struct bbr3_out).
 *
 * BBR builds a model of the path from two filters and sends at its pace:
 *
 *   bw      the bottleneck bandwidth: the max of the delivery-rate samples
 *           of the last one or two bandwidth-probing cycles (bw_hi[2],
 *           flipped at the end of each probe's feedback);
 *   min_rtt the two-way propagation delay: the min RTT of the last 10 s.
 *
 *   BDP = bw * min_rtt; pacing_rate = pacing_gain * bw * 99 %;
 *   cwnd  = cwnd_gain * BDP + ACK-aggregation allowance, at least 4.
 *
 * v2 and v3 add a model of what the path tolerates, bounds learnt from loss
 * and (where the path marks) ECN:
 *
 *   inflight_hi  the most data in flight that probing found safe: when a
 *                probe's loss rate exceeds 2 % (BBRLossThresh) it becomes
 *                max(flight at the loss, 0.7 x the target inflight);
 *   inflight_lo, bw_lo  short-term bounds when not probing: each round
 *                with a loss cuts them to 0.7 x (beta = 0.3, so the cut is
 *                the draft's BBRBeta 0.7), never below what the last round
 *                delivered; they are forgotten when the next probe starts.
 *
 * The state machine:
 *
 *   STARTUP   pacing gain 2.77 (4 ln 2, the smallest that doubles the rate
 *             each round), cwnd gain 2, until the bandwidth stops growing
 *             by 25 % for three rounds, or a Recovery round with at least
 *             six loss events and a loss rate above 2 %;
 *   DRAIN     pacing gain 0.35 (1/2.885), until the flight is at most one
 *             BDP;
 *   PROBE_BW  a cycle of four phases:
 *     DOWN    gain 0.91: drain what UP queued, until the flight is below
 *             both the BDP and inflight_hi less 15 % headroom; -> CRUISE;
 *     CRUISE  gain 1.0, the flight kept to inflight_hi less the headroom,
 *             responding to loss through inflight_lo; waits until it is
 *             time to probe: 2-3 s of wall clock (random), or as many
 *             rounds as a Reno flow with this BDP would take (at most 63,
 *             with 0-1 random rounds), whichever is first;
 *     REFILL  gain 1.0 for one round with the short-term bounds reset, so
 *             the pipe is full before probing;
 *     UP      gain 1.25, cwnd gain 2.25; inflight_hi grows by 1, 2, 4, ...
 *             packets per round while the window is limited by it; ends
 *             when the bandwidth plateaus (three rounds under 25 %
 *             growth), when the flight reaches an inflight_hi that the
 *             previous probe found too high, or on loss above 2 %
 *             (inflight_hi cut as above); -> DOWN;
 *   PROBE_RTT when 5 s pass without a new low RTT: cwnd at half the BDP
 *             (at least 4) for 200 ms and a round, then back to PROBE_BW
 *             (CRUISE) or STARTUP.
 *
 * ECN, off by default as in the branch: the branch responds to CE only on a
 * route flagged "ecn_low" (shallow-threshold marking, precise ACKs) and
 * below 5 ms of min RTT. Mainline has no such route flag; here the sender
 * asking for ECN (net.ipv4.tcp_ecn = 1, which Linux's default 2 never does)
 * stands in for it, and the 5 ms limit stays (bbr3_in.ecn_max_rtt_us; 0: any
 * RTT). For such a connection an EWMA (gain 1/16) of the CE fraction per
 * round cuts inflight_lo to (1 - alpha/3), a round with more than half CE
 * ends a probe as loss does, and two such rounds end STARTUP. The marks
 * need a receiver that echoes them per packet (DCTCP-style, bpf/ce_echo.h):
 * a classic RFC 3168 receiver repeats ECE until CWR and overstates them.
 *
 * Every constant is the v3 branch's (tcp_bbr.c, its static const table);
 * the draft agrees except that its ProbeBW_DOWN gain is 0.90 where the code
 * has 0.91.
 *
 * What a BPF congestion control on a mainline kernel cannot do as the v3
 * kernel does, and what we do instead:
 *
 *  - Per-packet loss and flight. The branch extends struct rate_sample
 *    with rs->lost and rs->tx_in_flight (losses seen, and data in flight,
 *    since the acknowledged packet was sent, from state stored in its
 *    skb), and adds a skb_marked_lost() hook that checks the loss rate at
 *    each lost packet. Mainline has neither, and BPF cannot read the skb.
 *    We snapshot tp->delivered, tp->lost and tp->delivered_ce at every
 *    packet-timed round start (the last two rounds kept) and take the
 *    counters at the packet's send time as the interpolation, by its
 *    rs->prior_delivered, between the snapshots around it; tx_in_flight is
 *    rs->prior_in_flight, the flight before this ACK, which equals the
 *    flight at the send in steady state and overstates it by what a probe
 *    added since (so a probe's loss threshold is a little looser). The
 *    loss check runs at the ACK that reports losses (rs->losses > 0), with
 *    those packets as the "lost skb" of the branch's
 *    bbr_inflight_hi_from_lost_skb().
 *  - Tail-loss-probe recovery (CA_EVENT_TLP_RECOVERY) and PLB's rehash on
 *    persistent CE are branch-only kernel hooks: not done.
 *  - TSO sizing. The branch's tso_segs() hook sizes bursts from the pacing
 *    rate plus a min-RTT allowance (64 KB halved per 512 µs of min RTT).
 *    Mainline offers BPF only min_tso_segs(), so the kernel's
 *    tcp_tso_autosize() sizes them from the pacing rate alone, with our
 *    min_tso_segs() (1 below 1.2 Mbit/s, else 2, as mainline BBR): at our
 *    cellular rates and RTTs of 20 ms and more the allowance is zero and
 *    nothing changes; on a LAN bursts are smaller than the branch's. The
 *    cwnd's quantization budget (3 bursts) uses the branch's formula.
 *  - The "fast path" that skips the model for app-limited ACKs (a CPU
 *    saving) is not taken: every ACK runs the full update.
 *  - fast_ack_mode and TCP_ECN_ECT_PERMANENT (branch-only socket fields),
 *    and get_info() (ss's bbr fields): not set.
 *  - Time in µs (tcp_mstamp) where the branch uses jiffies for the min-RTT
 *    and PROBE_RTT clocks: the same periods, finer.
 *
 * Fixed point as in the kernel: bandwidth in packets/µs << 24 (u32), gains
 * in 1/256 (BBR_UNIT), no floating point. No signed division.
 */
#ifndef BBR3_LOGIC_H
#define BBR3_LOGIC_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

#include "ilog2.h"

#define B3_BW_SCALE 24
#define B3_BW_UNIT (1ULL << B3_BW_SCALE)
#define B3_SCALE 8
#define B3_UNIT (1u << B3_SCALE)

/* ---- the v3 branch's parameters (tcp_bbr.c), each named there bbr_<x> ---- */
#define B3_MIN_RTT_WIN_US 10000000ULL		/* min_rtt_win_sec = 10 */
#define B3_PROBE_RTT_MODE_US 200000ULL		/* probe_rtt_mode_ms = 200 */
#define B3_PROBE_RTT_WIN_US 5000000ULL		/* probe_rtt_win_ms = 5000 */
#define B3_PROBE_RTT_CWND_GAIN (B3_UNIT / 2)	/* probe_rtt_cwnd_gain = 0.5 */
#define B3_TSO_RTT_SHIFT 9			/* tso_rtt_shift */
#define B3_PACING_MARGIN_PCT 1			/* pacing_margin_percent */
#define B3_STARTUP_PACING_GAIN (B3_UNIT * 277 / 100 + 1)
#define B3_STARTUP_CWND_GAIN (B3_UNIT * 2)
#define B3_DRAIN_GAIN (B3_UNIT * 1000 / 2885)
#define B3_CWND_GAIN (B3_UNIT * 2)
#define B3_GAIN_UP (B3_UNIT * 5 / 4)
#define B3_GAIN_DOWN (B3_UNIT * 91 / 100)
#define B3_CWND_MIN_TARGET 4
#define B3_FULL_BW_THRESH (B3_UNIT * 5 / 4)
#define B3_FULL_BW_CNT 3
#define B3_EXTRA_ACKED_GAIN B3_UNIT
#define B3_EXTRA_ACKED_WIN_RTTS 5
#define B3_ACK_EPOCH_ACKED_RESET (1u << 20)
#define B3_EXTRA_ACKED_MAX_US 100000ULL
#define B3_ECN_MAX_RTT_US 5000			/* ecn_max_rtt_us */
#define B3_BETA (B3_UNIT * 30 / 100)		/* cut to 1 - 0.3 = 0.7 */
#define B3_ECN_ALPHA_GAIN (B3_UNIT / 16)
#define B3_ECN_ALPHA_INIT B3_UNIT
#define B3_ECN_FACTOR (B3_UNIT / 3)
#define B3_ECN_THRESH (B3_UNIT / 2)
#define B3_ECN_REPROBE_GAIN (B3_UNIT / 2)
#define B3_LOSS_THRESH (B3_UNIT * 2 / 100)	/* 2 % */
#define B3_FULL_LOSS_CNT 6
#define B3_FULL_ECN_CNT 2
#define B3_INFLIGHT_HEADROOM (B3_UNIT * 15 / 100)
#define B3_BW_PROBE_CWND_GAIN 1			/* + 0.25 in UP */
#define B3_BW_PROBE_MAX_ROUNDS 63
#define B3_BW_PROBE_RAND_ROUNDS 2
#define B3_BW_PROBE_BASE_US 2000000u
#define B3_BW_PROBE_RAND_US 1000000u
/* The kernel's constants the formulas use. */
#define B3_GSO_LEGACY_MAX 65536u
#define B3_MAX_TCP_HEADER 320u			/* x86-64's L1_CACHE_ALIGN(128 + MAX_HEADER) */
#define B3_CA_OPEN 0
#define B3_CA_RECOVERY 3
#define B3_CA_LOSS 4

enum bbr3_mode {
	BBR3_STARTUP = 0,
	BBR3_DRAIN = 1,
	BBR3_PROBE_BW = 2,
	BBR3_PROBE_RTT = 3,
};

/* PROBE_BW's phases, numbered as the kernel's cycle_idx. */
enum bbr3_phase {
	BBR3_UP = 0,
	BBR3_DOWN = 1,
	BBR3_CRUISE = 2,
	BBR3_REFILL = 3,
};

/* What the incoming ACKs say about our probing. */
enum bbr3_ack_phase {
	BBR3_ACKS_INIT = 0,
	BBR3_ACKS_REFILLING = 1,
	BBR3_ACKS_PROBE_STARTING = 2,
	BBR3_ACKS_PROBE_FEEDBACK = 3,
	BBR3_ACKS_PROBE_STOPPING = 4,
};

struct bbr3 {
	__u64 cycle_mstamp;		/* µs: this PROBE_BW phase's start */
	__u64 ack_epoch_mstamp;		/* µs: ACK-aggregation epoch start */
	__u64 min_rtt_stamp;		/* µs */
	__u64 probe_rtt_min_stamp;	/* µs */
	__u64 probe_rtt_done_stamp;	/* µs; 0 = not yet at the PROBE_RTT cwnd */
	__u32 min_rtt_us;		/* min RTT of 10 s (~0: none yet) */
	__u32 probe_rtt_min_us;		/* min RTT of 5 s */
	__u32 next_rtt_delivered;	/* tp->delivered ending this round */
	__u32 prior_cwnd;		/* the last good cwnd, restored after */
	__u32 full_bw;			/* bw at the last 25 % growth */
	__u32 loss_round_delivered;	/* tp->delivered ending the loss round */
	__u32 undo_bw_lo;
	__u32 undo_inflight_lo;
	__u32 undo_inflight_hi;
	__u32 bw_latest;		/* max delivery rate of the last round */
	__u32 bw_lo;			/* short-term bound (~0: none) */
	__u32 bw_hi[2];			/* max-filter of the last 1-2 cycles */
	__u32 inflight_latest;		/* max delivered volume of the last round */
	__u32 inflight_lo;		/* short-term bound (~0: none) */
	__u32 inflight_hi;		/* long-term bound (~0: none) */
	__u32 bw_probe_up_cnt;		/* packets ACKed per +1 of inflight_hi */
	__u32 bw_probe_up_acks;
	__u32 probe_wait_us;		/* DOWN/CRUISE's wall-clock wait */
	__u32 alpha_last_delivered;
	__u32 alpha_last_delivered_ce;
	__u32 ack_epoch_acked;
	__u32 extra_acked[2];
	/* Ours: the counters at the last two round starts ([0] the newer),
	 * standing in for the branch's per-skb tx state (see the header). */
	__u32 snap_round_delivered;	/* tp->delivered ending the snapshot round */
	__u32 snap_delivered[2];
	__u32 snap_lost[2];
	__u32 snap_ce[2];
	__u32 last_delivered_ce;	/* tp->delivered_ce at the last ACK */
	__u32 pacing_gain;		/* 1/256 */
	__u32 cwnd_gain;		/* 1/256 */
	__u32 ecn_alpha;		/* 1/256 */
	__u8 mode;			/* enum bbr3_mode */
	__u8 cycle_idx;			/* enum bbr3_phase */
	__u8 prev_ca_state;
	__u8 round_start;
	__u8 idle_restart;
	__u8 probe_rtt_round_done;
	__u8 full_bw_reached;
	__u8 full_bw_cnt;
	__u8 full_bw_now;
	__u8 has_seen_rtt;
	__u8 extra_acked_win_rtts;
	__u8 extra_acked_win_idx;
	__u8 startup_ecn_rounds;
	__u8 loss_in_cycle;
	__u8 ecn_in_cycle;
	__u8 ecn_eligible;
	__u8 bw_probe_samples;
	__u8 prev_probe_too_high;
	__u8 stopped_risky_probe;
	__u8 rounds_since_probe;
	__u8 loss_round_start;
	__u8 loss_in_round;
	__u8 ecn_in_round;
	__u8 ack_phase;			/* enum bbr3_ack_phase */
	__u8 loss_events_in_round;
	__u8 bw_probe_up_rounds;
	__u8 init_cwnd;
	__u8 initialized;
};

/* What the kernel hands the congestion control at an ACK. */
struct bbr3_in {
	__u64 now_us;			/* tp->tcp_mstamp */
	__u64 delivered_mstamp;		/* tp->delivered_mstamp */
	__u64 edt_ahead_us;		/* tp->tcp_wstamp_ns ahead of now, µs */
	__u64 pacing_rate;		/* sk->sk_pacing_rate, bytes/s */
	__u64 max_pacing_rate;		/* sk->sk_max_pacing_rate */
	__u32 delivered;		/* tp->delivered */
	__u32 delivered_ce;		/* tp->delivered_ce */
	__u32 lost;			/* tp->lost */
	__u32 cwnd;			/* tp->snd_cwnd */
	__u32 cwnd_clamp;		/* tp->snd_cwnd_clamp */
	__u32 prior_cwnd;		/* tp->prior_cwnd */
	__u32 inflight;			/* tcp_packets_in_flight() */
	__u32 srtt_us;			/* smoothed RTT, 0: no sample yet */
	__u32 tcp_min_rtt_us;		/* tcp_min_rtt(): the kernel's, for init */
	__u32 mss;			/* tp->mss_cache */
	__u32 pacing_shift;		/* sk->sk_pacing_shift */
	__u32 min_tso_segs;		/* net.ipv4.tcp_min_tso_segs */
	__u32 rand;			/* uniformly random */
	__u32 ecn_max_rtt_us;		/* ECN only below this min RTT; 0: any */
	__u8 ca_state;			/* icsk_ca_state */
	__u8 cwnd_limited;		/* tp->is_cwnd_limited */
	__u8 ecn_ok;			/* the connection negotiated ECN */
	__u8 app_limited;		/* tp->app_limited != 0 */
	/* struct rate_sample */
	__s64 rs_interval_us;
	__s64 rs_rtt_us;
	__s32 rs_delivered;
	__s32 rs_losses;
	__u32 rs_prior_delivered;
	__u32 rs_acked_sacked;
	__u32 rs_prior_in_flight;
	__u8 rs_is_app_limited;
	__u8 rs_is_ack_delayed;
};

/* What to apply to the socket. */
struct bbr3_out {
	__u64 pacing_rate;		/* bytes/s */
	__u32 cwnd;
	__u32 ssthresh;			/* 0: leave it */
	__u32 app_limited;		/* 0: leave it; else tp->app_limited */
};

/* The rate sample as BBR reads it, with our estimates of the branch's
 * per-skb fields. */
struct bbr3_rs {
	__s64 interval_us;
	__s64 rtt_us;
	__s32 delivered;
	__u32 acked_sacked;
	__u32 prior_in_flight;
	__u32 tx_in_flight;
	__u32 lost;			/* lost since the packet was sent */
	__u32 delivered_ce;		/* CE-marked since the packet was sent */
	__u32 losses;			/* newly lost at this ACK */
	__u8 is_app_limited;
	__u8 is_ack_delayed;
	__u8 is_ece;
};

/* What one ACK's processing carries from step to step. */
struct bbr3_ctx {
	__u32 cwnd;			/* the window as it evolves in this ACK */
	__u32 sample_bw;		/* this ACK's delivery rate */
};

static __always_inline __u32 b3_min32(__u32 a, __u32 b) { return a < b ? a : b; }
static __always_inline __u32 b3_max32(__u32 a, __u32 b) { return a > b ? a : b; }
static __always_inline __u64 b3_min64(__u64 a, __u64 b) { return a < b ? a : b; }

/* ---- the model's readings ---- */

static __always_inline __u32 b3_max_bw(const struct bbr3 *b)
{
	return b3_max32(b->bw_hi[0], b->bw_hi[1]);
}

static __always_inline __u32 b3_bw(const struct bbr3 *b)
{
	return b3_min32(b3_max_bw(b), b->bw_lo);
}

static __always_inline __u32 b3_extra_acked(const struct bbr3 *b)
{
	return b3_max32(b->extra_acked[0], b->extra_acked[1]);
}

/* bw (packets/µs << 24) with a gain and a margin, in bytes/s; the order of
 * operations keeps it within u64 up to ~2.9 Tbit/s at gain 2.89. */
static __always_inline __u64 b3_rate_Bps(__u64 bw, __u32 gain, __u32 mss, __u32 margin_pct)
{
	__u64 rate = bw * mss;

	rate *= gain;
	rate >>= B3_SCALE;
	rate *= 1000000ULL / 100 * (100 - margin_pct);
	rate >>= B3_BW_SCALE;
	return rate ? rate : 1;
}

static __always_inline __u64 b3_pacing_rate_for(const struct bbr3_in *in, __u32 bw, __u32 gain)
{
	return b3_min64(b3_rate_Bps(bw, gain, in->mss, B3_PACING_MARGIN_PCT), in->max_pacing_rate);
}

/* Before any bandwidth sample: the initial window per RTT (1 ms if no RTT
 * yet), at the STARTUP gain. */
static __always_inline void b3_init_pacing_rate(struct bbr3 *b, const struct bbr3_in *in,
						struct bbr3_out *out, struct bbr3_ctx *x)
{
	__u32 rtt = 1000;
	__u64 bw;

	if (in->srtt_us) {
		rtt = in->srtt_us;
		b->has_seen_rtt = 1;
	}
	bw = ((__u64)x->cwnd << B3_BW_SCALE) / rtt;
	out->pacing_rate = b3_pacing_rate_for(in, (__u32)b3_min64(bw, 0xffffffffu),
						 B3_STARTUP_PACING_GAIN);
}

static __always_inline void b3_set_pacing_rate(struct bbr3 *b, const struct bbr3_in *in,
					       struct bbr3_out *out, struct bbr3_ctx *x, __u32 bw, __u32 gain)
{
	__u64 rate = b3_pacing_rate_for(in, bw, gain);

	if (!b->has_seen_rtt && in->srtt_us)
		b3_init_pacing_rate(b, in, out, x);
	/* Until the pipe is known full, the rate only rises. */
	if (b->full_bw_reached || rate > out->pacing_rate)
		out->pacing_rate = rate;
}

/* The burst size the kernel would build at this pacing rate, with the
 * branch's min-RTT allowance (for the quantization budget only). */
static __always_inline __u32 b3_tso_segs_goal(const struct bbr3 *b, const struct bbr3_in *in,
					      __u64 pacing_rate)
{
	__u64 bytes = in->pacing_shift < 64 ? pacing_rate >> in->pacing_shift : 0;
	__u32 r = b->min_rtt_us >> B3_TSO_RTT_SHIFT;
	__u32 segs;

	if (r < 32)
		bytes += B3_GSO_LEGACY_MAX >> r;
	bytes = b3_min64(bytes, B3_GSO_LEGACY_MAX - 1 - B3_MAX_TCP_HEADER);
	segs = in->mss ? (__u32)(bytes / in->mss) : 1;
	return b3_max32(segs, in->min_tso_segs);
}

/* ceil(bw * min_rtt * gain) packets; the initial window until an RTT. */
static __always_inline __u32 b3_bdp(const struct bbr3 *b, __u32 bw, __u32 gain)
{
	__u64 w;

	if (b->min_rtt_us == ~0u)
		return b->init_cwnd;
	w = (__u64)bw * b->min_rtt_us;
	return (__u32)((((w * gain) >> B3_SCALE) + B3_BW_UNIT - 1) / B3_BW_UNIT);
}

/* Room for three full bursts (sender qdisc, TSO engine, receiver's GRO),
 * at least 4 packets, and 2 more in UP so even a tiny BDP probes. */
static __always_inline __u32 b3_quantization_budget(const struct bbr3 *b, const struct bbr3_in *in,
						    struct bbr3_out *out,
						    __u32 cwnd)
{
	cwnd = b3_max32(cwnd, 3 * b3_tso_segs_goal(b, in, out->pacing_rate));
	cwnd = b3_max32(cwnd, B3_CWND_MIN_TARGET);
	if (b->mode == BBR3_PROBE_BW && b->cycle_idx == BBR3_UP)
		cwnd += 2;
	return cwnd;
}

static __always_inline __u32 b3_inflight(const struct bbr3 *b, const struct bbr3_in *in,
					 struct bbr3_out *out, __u32 bw,
					 __u32 gain)
{
	return b3_quantization_budget(b, in, out, b3_bdp(b, bw, gain));
}

/* Data of ours in the network when the next departure (paced into the
 * future: its EDT) leaves: the flight less what the path delivers by then,
 * plus that burst when the flight is being raised. */
static __always_inline __u32 b3_in_net_at_edt(const struct bbr3 *b, const struct bbr3_in *in,
					      struct bbr3_out *out,
					      __u32 inflight_now)
{
	__u64 delivered = ((__u64)b3_bw(b) * in->edt_ahead_us) >> B3_BW_SCALE;
	__u64 at_edt = inflight_now;

	if (b->pacing_gain > B3_UNIT)
		at_edt += b3_tso_segs_goal(b, in, out->pacing_rate);
	return delivered >= at_edt ? 0 : (__u32)(at_edt - delivered);
}

/* The extra window ACK aggregation calls for, at most 100 ms of bw. */
static __always_inline __u32 b3_ack_aggregation_cwnd(const struct bbr3 *b)
{
	__u64 max_aggr = ((__u64)b3_bw(b) * B3_EXTRA_ACKED_MAX_US) >> B3_BW_SCALE;
	__u64 aggr = ((__u64)B3_EXTRA_ACKED_GAIN * b3_extra_acked(b)) >> B3_SCALE;

	return (__u32)b3_min64(aggr, max_aggr);
}

static __always_inline __u32 b3_probe_rtt_cwnd(const struct bbr3 *b)
{
	return b3_max32(B3_CWND_MIN_TARGET, b3_bdp(b, b3_bw(b), B3_PROBE_RTT_CWND_GAIN));
}

static __always_inline void b3_save_cwnd(struct bbr3 *b, __u32 cwnd)
{
	if (b->prev_ca_state < B3_CA_RECOVERY && b->mode != BBR3_PROBE_RTT)
		b->prior_cwnd = cwnd;
	else /* recovery or PROBE_RTT cut it: keep the larger */
		b->prior_cwnd = b3_max32(b->prior_cwnd, cwnd);
}

static __always_inline __u32 b3_target_inflight(const struct bbr3 *b, const struct bbr3_in *in,
						struct bbr3_out *out, const struct bbr3_ctx *x)
{
	return b3_min32(b3_inflight(b, in, out, b3_bw(b), B3_UNIT), x->cwnd);
}

static __always_inline int b3_is_probing_bandwidth(const struct bbr3 *b)
{
	return b->mode == BBR3_STARTUP ||
	       (b->mode == BBR3_PROBE_BW && (b->cycle_idx == BBR3_REFILL || b->cycle_idx == BBR3_UP));
}

static __always_inline int b3_elapsed_in_phase(const struct bbr3 *b, const struct bbr3_in *in, __u64 us)
{
	return (__s64)(in->now_us - (b->cycle_mstamp + us)) > 0;
}

/* inflight_hi less the 15 % headroom left for other flows, at least 4. */
static __always_inline __u32 b3_inflight_with_headroom(const struct bbr3 *b)
{
	__u32 headroom;

	if (b->inflight_hi == ~0u)
		return ~0u;
	headroom = (__u32)(((__u64)b->inflight_hi * B3_INFLIGHT_HEADROOM) >> B3_SCALE);
	headroom = b3_max32(headroom, 1);
	if (b->inflight_hi < headroom + B3_CWND_MIN_TARGET)
		return B3_CWND_MIN_TARGET;
	return b->inflight_hi - headroom;
}

/* ---- filters and signals ---- */

static __always_inline void b3_reset_full_bw(struct bbr3 *b)
{
	b->full_bw = 0;
	b->full_bw_cnt = 0;
	b->full_bw_now = 0;
}

static __always_inline void b3_advance_max_bw_filter(struct bbr3 *b)
{
	if (!b->bw_hi[1])
		return; /* nothing in this window: keep the old one */
	b->bw_hi[0] = b->bw_hi[1];
	b->bw_hi[1] = 0;
}

static __always_inline void b3_reset_lower_bounds(struct bbr3 *b)
{
	b->bw_lo = ~0u;
	b->inflight_lo = ~0u;
}

static __always_inline void b3_reset_congestion_signals(struct bbr3 *b)
{
	b->loss_in_round = 0;
	b->ecn_in_round = 0;
	b->loss_in_cycle = 0;
	b->ecn_in_cycle = 0;
	b->bw_latest = 0;
	b->inflight_latest = 0;
}

/* A loss in this round: the loss round then runs until everything now in
 * flight is delivered, to see the whole extent of it. */
static __always_inline void b3_note_loss(struct bbr3 *b, const struct bbr3_in *in)
{
	if (!b->loss_in_round)
		b->loss_round_delivered = in->delivered;
	b->loss_in_round = 1;
	b->loss_in_cycle = 1;
}

/* Packet-timed round trips: a round ends when a packet sent after its
 * start is delivered. */
static __always_inline void b3_update_round_start(struct bbr3 *b, const struct bbr3_in *in,
						  const struct bbr3_rs *rs)
{
	b->round_start = 0;
	if (rs->interval_us > 0 && (__s32)(in->rs_prior_delivered - b->next_rtt_delivered) >= 0) {
		b->next_rtt_delivered = in->delivered;
		b->round_start = 1;
	}
}

static __always_inline void b3_calculate_bw_sample(struct bbr3_ctx *x, const struct bbr3_rs *rs)
{
	__u64 bw = 0;

	if (rs->interval_us > 0 && rs->delivered >= 0)
		bw = (((__u64)rs->delivered << B3_BW_SCALE) + (__u64)rs->interval_us - 1) /
		     (__u64)rs->interval_us;
	x->sample_bw = (__u32)b3_min64(bw, 0xffffffffu);
}

/* The windowed max of data ACKed beyond what bw explains, over 5-10 rounds
 * (1-2 in STARTUP): the allowance for ACK aggregation. */
static __always_inline void b3_update_ack_aggregation(struct bbr3 *b, const struct bbr3_in *in,
						      struct bbr3_ctx *x,
						      const struct bbr3_rs *rs)
{
	__u32 win = B3_EXTRA_ACKED_WIN_RTTS, extra;
	__u64 epoch_us, expected;

	if (!rs->acked_sacked || rs->delivered < 0 || rs->interval_us <= 0)
		return;
	if (b->round_start) {
		if (b->extra_acked_win_rtts < 0x1f)
			b->extra_acked_win_rtts++;
		if (!b->full_bw_reached)
			win = 1;
		if (b->extra_acked_win_rtts >= win) {
			b->extra_acked_win_rtts = 0;
			b->extra_acked_win_idx = !b->extra_acked_win_idx;
			b->extra_acked[b->extra_acked_win_idx & 1] = 0;
		}
	}
	epoch_us = in->delivered_mstamp > b->ack_epoch_mstamp ? in->delivered_mstamp - b->ack_epoch_mstamp : 0;
	expected = ((__u64)b3_bw(b) * epoch_us) >> B3_BW_SCALE;
	/* ACKs slower than bw, or a very old epoch: start a new one. */
	if (b->ack_epoch_acked <= expected ||
	    b->ack_epoch_acked + rs->acked_sacked >= B3_ACK_EPOCH_ACKED_RESET) {
		b->ack_epoch_acked = 0;
		b->ack_epoch_mstamp = in->delivered_mstamp;
		expected = 0;
	}
	b->ack_epoch_acked = b3_min32(0xfffff, b->ack_epoch_acked + rs->acked_sacked);
	extra = (__u32)(b->ack_epoch_acked - expected);
	extra = b3_min32(extra, x->cwnd);
	if (extra > b->extra_acked[b->extra_acked_win_idx & 1])
		b->extra_acked[b->extra_acked_win_idx & 1] = extra;
}

/* ---- the upper bounds: inflight_hi ---- */

/* Did this sample's loss (or CE) rate exceed what probing tolerates? */
static __always_inline int b3_is_inflight_too_high(const struct bbr3 *b, const struct bbr3_rs *rs)
{
	if (rs->lost > 0 && rs->tx_in_flight) {
		__u32 thresh = (__u32)(((__u64)rs->tx_in_flight * B3_LOSS_THRESH) >> B3_SCALE);

		if (rs->lost > thresh)
			return 1;
	}
	if (rs->delivered_ce > 0 && rs->delivered > 0 && b->ecn_eligible) {
		__u32 thresh = (__u32)(((__u64)rs->delivered * B3_ECN_THRESH) >> B3_SCALE);

		if (rs->delivered_ce > thresh)
			return 1;
	}
	return 0;
}

/* The flight at which the loss rate crossed 2 %, solving
 *   (lost_prev + p) / (inflight_prev + p) = loss_thresh
 * for the prefix p of the `losses` packets reported lost now. */
static __always_inline __u32 b3_inflight_hi_from_lost(const struct bbr3_rs *rs)
{
	__u32 pcount = rs->losses > 0 ? rs->losses : 1;
	__u64 budget, prefix;
	__u32 inflight_prev, lost_prev;

	if (rs->tx_in_flight < pcount || rs->lost < pcount)
		return rs->tx_in_flight;
	inflight_prev = rs->tx_in_flight - pcount;
	lost_prev = rs->lost - pcount;
	budget = ((__u64)inflight_prev * B3_LOSS_THRESH + B3_UNIT - 1) >> B3_SCALE;
	if (lost_prev >= budget) {
		prefix = 0;
	} else {
		prefix = ((budget - lost_prev) << B3_SCALE) / (B3_UNIT - B3_LOSS_THRESH);
	}
	return (__u32)b3_min64(inflight_prev + prefix, 0xffffffffu);
}

static __always_inline void b3_set_cycle_idx(struct bbr3 *b, __u8 idx)
{
	b->cycle_idx = idx;
}

/* The wait before the next probe: 0-1 random rounds added to the Reno
 * count, and 2-3 s of wall clock. */
static __always_inline void b3_pick_probe_wait(struct bbr3 *b, const struct bbr3_in *in)
{
	b->rounds_since_probe = (__u8)(in->rand % B3_BW_PROBE_RAND_ROUNDS);
	b->probe_wait_us = B3_BW_PROBE_BASE_US + (in->rand >> 8) % B3_BW_PROBE_RAND_US;
}

static __always_inline void b3_start_probe_refill(struct bbr3 *b, const struct bbr3_in *in, __u32 up_rounds)
{
	b3_reset_lower_bounds(b);
	b->bw_probe_up_rounds = (__u8)up_rounds;
	b->bw_probe_up_acks = 0;
	b->stopped_risky_probe = 0;
	b->ack_phase = BBR3_ACKS_REFILLING;
	b->next_rtt_delivered = in->delivered;
	b3_set_cycle_idx(b, BBR3_REFILL);
}

/* Each round of UP doubles the growth of inflight_hi: 1, 2, 4, ...
 * packets, as packets per increment = cwnd / 2^rounds. */
static __always_inline void b3_raise_inflight_hi_slope(struct bbr3 *b, const struct bbr3_ctx *x)
{
	__u32 growth = 1u << (b->bw_probe_up_rounds & 31);

	if (b->bw_probe_up_rounds < 30)
		b->bw_probe_up_rounds++;
	b->bw_probe_up_cnt = b3_max32(x->cwnd / growth, 1);
}

static __always_inline void b3_start_probe_up(struct bbr3 *b, const struct bbr3_in *in, struct bbr3_ctx *x)
{
	b->ack_phase = BBR3_ACKS_PROBE_STARTING;
	b->next_rtt_delivered = in->delivered;
	b->cycle_mstamp = in->now_us;
	b3_reset_full_bw(b);
	b->full_bw = x->sample_bw;
	b3_set_cycle_idx(b, BBR3_UP);
	b3_raise_inflight_hi_slope(b, x);
}

static __always_inline void b3_start_probe_down(struct bbr3 *b, const struct bbr3_in *in)
{
	b3_reset_congestion_signals(b);
	b->bw_probe_up_cnt = ~0u;
	b3_pick_probe_wait(b, in);
	b->cycle_mstamp = in->now_us;
	b->ack_phase = BBR3_ACKS_PROBE_STOPPING;
	b->next_rtt_delivered = in->delivered;
	b3_set_cycle_idx(b, BBR3_DOWN);
}

static __always_inline void b3_start_probe_cruise(struct bbr3 *b)
{
	if (b->inflight_lo != ~0u)
		b->inflight_lo = b3_min32(b->inflight_lo, b->inflight_hi);
	b3_set_cycle_idx(b, BBR3_CRUISE);
}

/* Too much loss (or CE) while probing: inflight_hi comes down to the
 * flight where it happened, at least 0.7 x the target, once per probe. */
static __always_inline void b3_handle_inflight_too_high(struct bbr3 *b, const struct bbr3_in *in,
							struct bbr3_out *out, const struct bbr3_ctx *x,
							const struct bbr3_rs *rs)
{
	b->prev_probe_too_high = 1;
	b->bw_probe_samples = 0;
	if (!rs->is_app_limited) {
		__u64 floor = ((__u64)b3_target_inflight(b, in, out, x) * (B3_UNIT - B3_BETA)) >> B3_SCALE;

		b->inflight_hi = (__u32)(rs->tx_in_flight > floor ? rs->tx_in_flight : floor);
	}
	if (b->mode == BBR3_PROBE_BW && b->cycle_idx == BBR3_UP)
		b3_start_probe_down(b, in);
}

/* In UP without too much loss: raise inflight_hi while it is what limits. */
static __always_inline void b3_probe_inflight_hi_upward(struct bbr3 *b, const struct bbr3_in *in,
							struct bbr3_ctx *x,
							const struct bbr3_rs *rs)
{
	if (!in->cwnd_limited || x->cwnd < b->inflight_hi)
		return;
	b->bw_probe_up_acks += rs->acked_sacked;
	if (b->bw_probe_up_acks >= b->bw_probe_up_cnt) {
		__u32 delta = b->bw_probe_up_acks / b->bw_probe_up_cnt;

		b->bw_probe_up_acks -= delta * b->bw_probe_up_cnt;
		b->inflight_hi += delta;
	}
	if (b->round_start)
		b3_raise_inflight_hi_slope(b, x);
}

/* Returns 1 when it decided a state transition. */
static __always_inline int b3_adapt_upper_bounds(struct bbr3 *b, const struct bbr3_in *in,
						 struct bbr3_out *out, struct bbr3_ctx *x,
						 const struct bbr3_rs *rs)
{
	if (b->ack_phase == BBR3_ACKS_PROBE_STARTING && b->round_start)
		b->ack_phase = BBR3_ACKS_PROBE_FEEDBACK;
	if (b->ack_phase == BBR3_ACKS_PROBE_STOPPING && b->round_start) {
		/* The probe's feedback is over. */
		b->bw_probe_samples = 0;
		b->ack_phase = BBR3_ACKS_INIT;
		if (b->mode == BBR3_PROBE_BW && !rs->is_app_limited)
			b3_advance_max_bw_filter(b);
		/* It reached a previously too-high inflight_hi and saw no
		 * loss this time: probe again, holding there a round. */
		if (b->mode == BBR3_PROBE_BW && b->stopped_risky_probe && !b->prev_probe_too_high) {
			b3_start_probe_refill(b, in, 0);
			return 1;
		}
	}
	if (b3_is_inflight_too_high(b, rs)) {
		if (b->bw_probe_samples)
			b3_handle_inflight_too_high(b, in, out, x, rs);
	} else {
		if (b->inflight_hi == ~0u)
			return 0;
		/* A higher level was safe: random loss must not ratchet it down. */
		if (rs->tx_in_flight > b->inflight_hi)
			b->inflight_hi = rs->tx_in_flight;
		if (b->mode == BBR3_PROBE_BW && b->cycle_idx == BBR3_UP)
			b3_probe_inflight_hi_upward(b, in, x, rs);
	}
	return 0;
}

/* ---- the lower bounds: bw_lo, inflight_lo ---- */

static __always_inline void b3_init_lower_bounds(struct bbr3 *b, const struct bbr3_ctx *x, int init_bw)
{
	if (init_bw && b->bw_lo == ~0u)
		b->bw_lo = b3_max_bw(b);
	if (b->inflight_lo == ~0u)
		b->inflight_lo = x->cwnd;
}

/* Once a round when not probing: a round with loss cuts bw_lo and
 * inflight_lo to 0.7 x, but not below what this round delivered; a round
 * with CE cuts inflight_lo by alpha/3. */
static __always_inline void b3_adapt_lower_bounds(struct bbr3 *b, const struct bbr3_ctx *x)
{
	__u32 ecn_inflight_lo = ~0u;

	if (b3_is_probing_bandwidth(b))
		return;
	if (b->ecn_in_round) {
		__u32 cut = B3_UNIT - ((b->ecn_alpha * B3_ECN_FACTOR) >> B3_SCALE);

		b3_init_lower_bounds(b, x, 0);
		ecn_inflight_lo = (__u32)(((__u64)b->inflight_lo * cut) >> B3_SCALE);
	}
	if (b->loss_in_round) {
		__u32 cut = B3_UNIT - B3_BETA;

		b3_init_lower_bounds(b, x, 1);
		b->bw_lo = b3_max32(b->bw_latest, (__u32)(((__u64)b->bw_lo * cut) >> B3_SCALE));
		b->inflight_lo = b3_max32(b->inflight_latest,
					  (__u32)(((__u64)b->inflight_lo * cut) >> B3_SCALE));
	}
	b->inflight_lo = b3_min32(b->inflight_lo, ecn_inflight_lo);
	b->bw_lo = b3_max32(1, b->bw_lo);
}

/* The latest round's delivery rate and volume, and the loss rounds. */
static __always_inline void b3_update_latest_delivery_signals(struct bbr3 *b, const struct bbr3_in *in,
							      const struct bbr3_ctx *x,
							      const struct bbr3_rs *rs)
{
	b->loss_round_start = 0;
	if (rs->interval_us <= 0 || !rs->acked_sacked)
		return;
	b->bw_latest = b3_max32(b->bw_latest, x->sample_bw);
	b->inflight_latest = b3_max32(b->inflight_latest, rs->delivered > 0 ? (__u32)rs->delivered : 0);
	if ((__s32)(in->rs_prior_delivered - b->loss_round_delivered) >= 0) {
		b->loss_round_delivered = in->delivered;
		b->loss_round_start = 1;
	}
}

static __always_inline void b3_advance_latest_delivery_signals(struct bbr3 *b, const struct bbr3_ctx *x,
							       const struct bbr3_rs *rs)
{
	if (b->loss_round_start) {
		b->bw_latest = x->sample_bw;
		b->inflight_latest = rs->delivered > 0 ? (__u32)rs->delivered : 0;
	}
}

static __always_inline void b3_update_congestion_signals(struct bbr3 *b, struct bbr3_ctx *x,
							 const struct bbr3_rs *rs)
{
	if (rs->interval_us <= 0 || !rs->acked_sacked)
		return;
	if (!rs->is_app_limited || x->sample_bw >= b3_max_bw(b))
		b->bw_hi[1] = b3_max32(x->sample_bw, b->bw_hi[1]);
	b->loss_in_round |= rs->losses > 0;
	if (!b->loss_round_start)
		return;
	b3_adapt_lower_bounds(b, x);
	b->loss_in_round = 0;
	b->ecn_in_round = 0;
}

/* ---- ECN ---- */

static __always_inline void b3_handle_queue_too_high_in_startup(struct bbr3 *b, const struct bbr3_in *in,
								struct bbr3_out *out)
{
	__u32 bdp;

	b->full_bw_reached = 1;
	bdp = b3_inflight(b, in, out, b3_max_bw(b), B3_UNIT);
	b->inflight_hi = b3_max32(bdp, b->inflight_latest);
}

/* Once a round: the EWMA of the CE fraction. */
static __always_inline void b3_update_ecn_alpha(struct bbr3 *b, const struct bbr3_in *in,
						struct bbr3_out *out)
{
	__u32 delivered, delivered_ce;
	__u64 ce_ratio, alpha;

	if (!b->ecn_eligible && in->ecn_ok && (!in->ecn_max_rtt_us || b->min_rtt_us <= in->ecn_max_rtt_us))
		b->ecn_eligible = 1;
	if (!b->ecn_eligible)
		return;
	delivered = in->delivered - b->alpha_last_delivered;
	delivered_ce = in->delivered_ce - b->alpha_last_delivered_ce;
	if (!delivered || (__s32)delivered < 0 || (__s32)delivered_ce < 0)
		return;
	ce_ratio = ((__u64)delivered_ce << B3_SCALE) / delivered;
	alpha = ((__u64)(B3_UNIT - B3_ECN_ALPHA_GAIN) * b->ecn_alpha) >> B3_SCALE;
	alpha += (B3_ECN_ALPHA_GAIN * ce_ratio) >> B3_SCALE;
	b->ecn_alpha = (__u32)b3_min64(alpha, B3_UNIT);
	b->alpha_last_delivered = in->delivered;
	b->alpha_last_delivered_ce = in->delivered_ce;
	/* STARTUP ends after two rounds over half CE. */
	if (!b->full_bw_reached) {
		if (ce_ratio >= B3_ECN_THRESH)
			b->startup_ecn_rounds++;
		else
			b->startup_ecn_rounds = 0;
		if (b->startup_ecn_rounds >= B3_FULL_ECN_CNT)
			b3_handle_queue_too_high_in_startup(b, in, out);
	}
}

/* ---- PROBE_BW ---- */

static __always_inline int b3_is_reno_coexistence_probe_time(const struct bbr3 *b, const struct bbr3_in *in,
							     struct bbr3_out *out, const struct bbr3_ctx *x)
{
	__u32 rounds = b3_min32(B3_BW_PROBE_MAX_ROUNDS, b3_target_inflight(b, in, out, x));

	return b->rounds_since_probe >= rounds;
}

/* Time to probe? The wall clock or the Reno count; and after a cycle with
 * CE but no loss, at once when the marks stop, with a first step of half
 * inflight_hi. */
static __always_inline int b3_check_time_to_probe_bw(struct bbr3 *b, const struct bbr3_in *in,
						     struct bbr3_out *out, struct bbr3_ctx *x)
{
	if (b->ecn_eligible && b->ecn_in_cycle && !b->loss_in_cycle && in->ca_state == B3_CA_OPEN) {
		__u64 vol = ((__u64)b->inflight_hi * B3_ECN_REPROBE_GAIN) >> B3_SCALE;

		b3_start_probe_refill(b, in, ilog2_u64(vol));
		return 1;
	}
	if (b3_elapsed_in_phase(b, in, b->probe_wait_us) || b3_is_reno_coexistence_probe_time(b, in, out,
											      x)) {
		b3_start_probe_refill(b, in, 0);
		return 1;
	}
	return 0;
}

static __always_inline int b3_check_time_to_cruise(const struct bbr3 *b, const struct bbr3_in *in,
						   struct bbr3_out *out,
						   __u32 inflight, __u32 bw)
{
	if (inflight > b3_inflight_with_headroom(b))
		return 0;
	return inflight <= b3_inflight(b, in, out, bw, B3_UNIT);
}

static __always_inline void b3_update_cycle_phase(struct bbr3 *b, const struct bbr3_in *in,
						  struct bbr3_out *out, struct bbr3_ctx *x,
const struct bbr3_rs *rs)
{
	__u32 inflight, bw;
	int done = 0;

	if (!b->full_bw_reached)
		return;
	if (b3_adapt_upper_bounds(b, in, out, x, rs))
		return;
	if (b->mode != BBR3_PROBE_BW)
		return;
	inflight = b3_in_net_at_edt(b, in, out, rs->prior_in_flight);
	bw = b3_max_bw(b);

	switch (b->cycle_idx) {
	case BBR3_CRUISE:
		b3_check_time_to_probe_bw(b, in, out, x);
		break;
	case BBR3_REFILL:
		/* A round of refill: its samples now reflect the full pipe. */
		if (b->round_start) {
			b->bw_probe_samples = 1;
			b3_start_probe_up(b, in, x);
		}
		break;
	case BBR3_UP:
		if (b->prev_probe_too_high && inflight >= b->inflight_hi) {
			b->stopped_risky_probe = 1;
			done = 1;
		} else if (in->cwnd_limited && x->cwnd >= b->inflight_hi) {
			/* inflight_hi limits the growth: not a plateau */
			b3_reset_full_bw(b);
			b->full_bw = x->sample_bw;
		} else if (b->full_bw_now) {
			done = 1; /* the bandwidth stopped growing */
		}
		if (done) {
			b->prev_probe_too_high = 0;
			b3_start_probe_down(b, in);
		}
		break;
	case BBR3_DOWN:
		if (b3_check_time_to_probe_bw(b, in, out, x))
			break;
		if (b3_check_time_to_cruise(b, in, out, inflight, bw))
			b3_start_probe_cruise(b);
		break;
	}
}

/* ---- STARTUP, DRAIN, PROBE_RTT ---- */

static __always_inline void b3_exit_probe_rtt(struct bbr3 *b, const struct bbr3_in *in)
{
	b3_reset_lower_bounds(b);
	if (b->full_bw_reached) {
		b->mode = BBR3_PROBE_BW;
		/* Raising the flight after PROBE_RTT risks loss: the next
		 * probe is scheduled afresh, and the flight is below the BDP,
		 * so cruise. */
		b3_start_probe_down(b, in);
		b3_start_probe_cruise(b);
	} else {
		b->mode = BBR3_STARTUP;
	}
}

static __always_inline void b3_check_probe_rtt_done(struct bbr3 *b, const struct bbr3_in *in,
						    struct bbr3_ctx *x)
{
	if (!(b->probe_rtt_done_stamp && (__s64)(in->now_us - b->probe_rtt_done_stamp) > 0))
		return;
	b->probe_rtt_min_stamp = in->now_us; /* the next PROBE_RTT in 5 s */
	x->cwnd = b3_max32(x->cwnd, b->prior_cwnd);
	b3_exit_probe_rtt(b, in);
}

static __always_inline void b3_check_loss_too_high_in_startup(struct bbr3 *b, const struct bbr3_in *in,
							      struct bbr3_out *out,
							      const struct bbr3_rs *rs)
{
	if (b->full_bw_reached)
		return;
	if (rs->losses && b->loss_events_in_round < 0xf)
		b->loss_events_in_round++;
	if (b->loss_round_start && in->ca_state == B3_CA_RECOVERY &&
	    b->loss_events_in_round >= B3_FULL_LOSS_CNT && b3_is_inflight_too_high(b, rs)) {
		b3_handle_queue_too_high_in_startup(b, in, out);
		return;
	}
	if (b->loss_round_start)
		b->loss_events_in_round = 0;
}

/* The pipe is full when three non-app-limited rounds grow bw by < 25 %. */
static __always_inline void b3_check_full_bw_reached(struct bbr3 *b, const struct bbr3_ctx *x,
						     const struct bbr3_rs *rs)
{
	__u32 thresh;

	if (b->full_bw_now || rs->is_app_limited)
		return;
	thresh = (__u32)(((__u64)b->full_bw * B3_FULL_BW_THRESH) >> B3_SCALE);
	if (x->sample_bw >= thresh) {
		b3_reset_full_bw(b);
		b->full_bw = x->sample_bw;
		return;
	}
	if (!b->round_start)
		return;
	b->full_bw_cnt++;
	b->full_bw_now = b->full_bw_cnt >= B3_FULL_BW_CNT;
	b->full_bw_reached |= b->full_bw_now;
}

static __always_inline void b3_check_drain(struct bbr3 *b, const struct bbr3_in *in, struct bbr3_out *out)
{
	if (b->mode == BBR3_STARTUP && b->full_bw_reached) {
		b->mode = BBR3_DRAIN;
		/* ssthresh for monitoring only: STARTUP is over. */
		out->ssthresh = b3_inflight(b, in, out, b3_max_bw(b), B3_UNIT);
		b3_reset_congestion_signals(b);
	}
	if (b->mode == BBR3_DRAIN &&
	    b3_in_net_at_edt(b, in, out, in->inflight) <= b3_inflight(b, in, out, b3_max_bw(b), B3_UNIT)) {
		b->mode = BBR3_PROBE_BW;
		b3_start_probe_down(b, in);
	}
}

/* The two min-RTT filters, and PROBE_RTT's entry and timing. */
static __always_inline void b3_update_min_rtt(struct bbr3 *b, const struct bbr3_in *in,
					      struct bbr3_out *out, struct bbr3_ctx *x,
const struct bbr3_rs *rs)
{
	int probe_rtt_expired, min_rtt_expired;

	probe_rtt_expired = (__s64)(in->now_us - (b->probe_rtt_min_stamp + B3_PROBE_RTT_WIN_US)) > 0;
	if (rs->rtt_us >= 0 &&
	    ((__u64)rs->rtt_us < b->probe_rtt_min_us || (probe_rtt_expired && !rs->is_ack_delayed))) {
		b->probe_rtt_min_us = (__u32)b3_min64((__u64)rs->rtt_us, 0xfffffffeu);
		b->probe_rtt_min_stamp = in->now_us;
	}
	min_rtt_expired = (__s64)(in->now_us - (b->min_rtt_stamp + B3_MIN_RTT_WIN_US)) > 0;
	if (b->probe_rtt_min_us <= b->min_rtt_us || min_rtt_expired) {
		b->min_rtt_us = b->probe_rtt_min_us;
		b->min_rtt_stamp = b->probe_rtt_min_stamp;
	}

	if (probe_rtt_expired && !b->idle_restart && b->mode != BBR3_PROBE_RTT) {
		b->mode = BBR3_PROBE_RTT;
		b3_save_cwnd(b, x->cwnd);
		b->probe_rtt_done_stamp = 0;
		b->ack_phase = BBR3_ACKS_PROBE_STOPPING;
		b->next_rtt_delivered = in->delivered;
	}

	if (b->mode == BBR3_PROBE_RTT) {
		/* Its low rate samples are not the path's. */
		__u32 mark = in->delivered + in->inflight;

		out->app_limited = mark ? mark : 1;
		/* At the low window for max(200 ms, one round). */
		if (!b->probe_rtt_done_stamp && in->inflight <= b3_probe_rtt_cwnd(b)) {
			b->probe_rtt_done_stamp = in->now_us + B3_PROBE_RTT_MODE_US;
			b->probe_rtt_round_done = 0;
			b->next_rtt_delivered = in->delivered;
		} else if (b->probe_rtt_done_stamp) {
			if (b->round_start)
				b->probe_rtt_round_done = 1;
			if (b->probe_rtt_round_done)
				b3_check_probe_rtt_done(b, in, x);
		}
	}
	if (rs->delivered > 0)
		b->idle_restart = 0;
}

static __always_inline void b3_update_gains(struct bbr3 *b)
{
	switch (b->mode) {
	case BBR3_STARTUP:
		b->pacing_gain = B3_STARTUP_PACING_GAIN;
		b->cwnd_gain = B3_STARTUP_CWND_GAIN;
		break;
	case BBR3_DRAIN:
		b->pacing_gain = B3_DRAIN_GAIN;
		b->cwnd_gain = B3_STARTUP_CWND_GAIN;
		break;
	case BBR3_PROBE_BW:
		b->pacing_gain = b->cycle_idx == BBR3_UP ? B3_GAIN_UP :
				 b->cycle_idx == BBR3_DOWN ? B3_GAIN_DOWN : B3_UNIT;
		b->cwnd_gain = B3_CWND_GAIN;
		if (b->cycle_idx == BBR3_UP)
			b->cwnd_gain += B3_UNIT * B3_BW_PROBE_CWND_GAIN / 4;
		break;
	default:
		b->pacing_gain = B3_UNIT;
		b->cwnd_gain = B3_UNIT;
		break;
	}
}

/* Toward the target: grow by what was ACKed (slow-start-like) while below
 * it, snap down to it once the pipe is known full; PROBE_RTT's cap. */
static __always_inline void b3_set_cwnd(struct bbr3 *b, const struct bbr3_in *in, struct bbr3_out *out,
					struct bbr3_ctx *x, __u32 acked, __u32 bw, __u32 gain)
{
	__u32 cwnd = x->cwnd, target;

	if (acked) {
		target = b3_bdp(b, bw, gain);
		target += b3_ack_aggregation_cwnd(b);
		target = b3_quantization_budget(b, in, out, target);
		if (b->full_bw_reached) {
			cwnd += acked;
			if (cwnd >= target)
				cwnd = target;
		} else if (cwnd < target || cwnd < 2u * b->init_cwnd) {
			cwnd += acked;
		}
		cwnd = b3_max32(cwnd, B3_CWND_MIN_TARGET);
	}
	cwnd = b3_min32(cwnd, in->cwnd_clamp);
	if (b->mode == BBR3_PROBE_RTT)
		cwnd = b3_min32(cwnd, b3_probe_rtt_cwnd(b));
	x->cwnd = cwnd;
}

/* The inflight model's bound on cwnd for the phase. */
static __always_inline void b3_bound_cwnd_for_inflight_model(struct bbr3 *b, struct bbr3_ctx *x)
{
	__u32 cap = ~0u;

	if (!b->initialized)
		return;
	if (b->mode == BBR3_PROBE_BW && b->cycle_idx != BBR3_CRUISE)
		cap = b->inflight_hi; /* probing: may it fit? */
	else if (b->mode == BBR3_PROBE_RTT || (b->mode == BBR3_PROBE_BW && b->cycle_idx == BBR3_CRUISE))
		cap = b3_inflight_with_headroom(b);
	cap = b3_min32(cap, b->inflight_lo);
	cap = b3_max32(cap, B3_CWND_MIN_TARGET);
	x->cwnd = b3_min32(cap, x->cwnd);
}

/* ---- the branch's per-skb state, estimated (see the header) ---- */

/* The counter value at the moment the tp->delivered counter read P,
 * interpolated between two snapshots (da, xa) and (db, xb), da <= P. */
static __always_inline __u32 b3_interp(__u32 da, __u32 xa, __u32 db, __u32 xb, __u32 p)
{
	__u32 span = db - da, off = p - da;

	if (xb == xa || !span || (__s32)off <= 0)
		return xa;
	if (off >= span)
		return xb;
	return xa + (__u32)(((__u64)(xb - xa) * off) / span);
}

/* Rolls the snapshots at each packet-timed round (its own count, which
 * phase changes do not restart). */
static __always_inline void b3_snapshot_round(struct bbr3 *b, const struct bbr3_in *in)
{
	if ((__s32)(in->rs_prior_delivered - b->snap_round_delivered) < 0)
		return;
	b->snap_delivered[1] = b->snap_delivered[0];
	b->snap_lost[1] = b->snap_lost[0];
	b->snap_ce[1] = b->snap_ce[0];
	b->snap_delivered[0] = in->delivered;
	b->snap_lost[0] = in->lost;
	b->snap_ce[0] = in->delivered_ce;
	b->snap_round_delivered = in->delivered;
}

static __always_inline void b3_rate_sample(struct bbr3 *b, const struct bbr3_in *in, struct bbr3_rs *rs)
{
	__u32 p = in->rs_prior_delivered, lost_at, ce_at;

	rs->interval_us = in->rs_interval_us;
	rs->rtt_us = in->rs_rtt_us;
	rs->delivered = in->rs_delivered;
	rs->acked_sacked = in->rs_acked_sacked;
	rs->prior_in_flight = in->rs_prior_in_flight;
	rs->tx_in_flight = in->rs_prior_in_flight;
	rs->losses = in->rs_losses > 0 ? (__u32)in->rs_losses : 0;
	rs->is_app_limited = in->rs_is_app_limited;
	rs->is_ack_delayed = in->rs_is_ack_delayed;
	rs->is_ece = in->delivered_ce != b->last_delivered_ce;
	b->last_delivered_ce = in->delivered_ce;

	if ((__s32)(p - b->snap_delivered[0]) >= 0) {
		/* Sent in the current snapshot round: between its start and now. */
		lost_at = b3_interp(b->snap_delivered[0], b->snap_lost[0], in->delivered, in->lost, p);
		ce_at = b3_interp(b->snap_delivered[0], b->snap_ce[0], in->delivered, in->delivered_ce, p);
	} else {
		lost_at = b3_interp(b->snap_delivered[1], b->snap_lost[1], b->snap_delivered[0],
				    b->snap_lost[0], p);
		ce_at = b3_interp(b->snap_delivered[1], b->snap_ce[1], b->snap_delivered[0], b->snap_ce[0],
				  p);
	}
	rs->lost = in->lost - lost_at;
	rs->delivered_ce = in->delivered_ce - ce_at;
	/* The flight included at least the packets lost since. */
	if (rs->tx_in_flight < rs->lost)
		rs->tx_in_flight = rs->lost;
}

/* The branch's skb_marked_lost(), run at the ACK that reports the losses:
 * while probing, is the loss rate up to them too high, and from which
 * flight on? */
static __always_inline void b3_on_losses(struct bbr3 *b, const struct bbr3_in *in, struct bbr3_out *out,
					 struct bbr3_ctx *x, const struct bbr3_rs *rs)
{
	struct bbr3_rs lrs;

	b3_note_loss(b, in);
	if (!b->bw_probe_samples)
		return;
	lrs = *rs;
	if (b3_is_inflight_too_high(b, &lrs)) {
		lrs.tx_in_flight = b3_inflight_hi_from_lost(&lrs);
		b3_handle_inflight_too_high(b, in, out, x, &lrs);
	}
}

/* ---- entry points ---- */

static __always_inline void b3_start(struct bbr3 *b, const struct bbr3_in *in, struct bbr3_out *out)
{
	struct bbr3_ctx x = { .cwnd = in->cwnd };

	__builtin_memset(b, 0, sizeof(*b));
	b->initialized = 1;
	b->init_cwnd = (__u8)b3_min32(0x7f, in->cwnd);
	b->prior_cwnd = in->prior_cwnd;
	b->next_rtt_delivered = in->delivered;
	b->prev_ca_state = B3_CA_OPEN;
	b->probe_rtt_min_us = in->tcp_min_rtt_us;
	b->probe_rtt_min_stamp = in->now_us;
	b->min_rtt_us = in->tcp_min_rtt_us;
	b->min_rtt_stamp = in->now_us;
	b->ack_epoch_mstamp = in->now_us;
	b->mode = BBR3_STARTUP;
	/* Loss-round accounting starts after the first full flight. */
	b->loss_round_delivered = in->delivered + 1;
	b->bw_lo = ~0u;
	b->inflight_lo = ~0u;
	b->inflight_hi = ~0u;
	b->bw_probe_up_cnt = ~0u;
	b->ack_phase = BBR3_ACKS_INIT;
	b->ecn_alpha = B3_ECN_ALPHA_INIT;
	b->snap_round_delivered = in->delivered;
	b->snap_delivered[0] = b->snap_delivered[1] = in->delivered;
	b->snap_lost[0] = b->snap_lost[1] = in->lost;
	b->snap_ce[0] = b->snap_ce[1] = in->delivered_ce;
	b->last_delivered_ce = in->delivered_ce;
	out->ssthresh = 0x7fffffff;
	out->app_limited = 0;
	out->cwnd = in->cwnd;
	b3_init_pacing_rate(b, in, out, &x);
	b3_update_gains(b);
}

/*
 * One ACK is bbr_main() of the branch, in five steps. In BPF each step is a
 * global function, which the verifier checks once on its own: inlined into
 * one program, their branches multiply past the verifier's million
 * instructions. Each returns 0 (a global function returns a scalar).
 */
#ifdef __bpf__
#define B3_STEP __attribute__((noinline))
#else
#define B3_STEP static inline
#endif

/* The rate sample with our per-skb estimates, the losses it reports (the
 * branch's skb_marked_lost() calls, which the kernel makes before
 * cong_control()), the round, ECN's alpha, the bandwidth sample and the
 * latest round's delivery. */
B3_STEP int b3_step_signals(struct bbr3 *b, const struct bbr3_in *in, struct bbr3_out *out,
			    struct bbr3_ctx *x,
			    struct bbr3_rs *rs)
{
	if (!b || !in || !out || !x || !rs)
		return 0;
	b3_rate_sample(b, in, rs);
	b3_snapshot_round(b, in);
	if (rs->losses)
		b3_on_losses(b, in, out, x, rs);
	b3_update_round_start(b, in, rs);
	if (b->round_start) {
		if (b->rounds_since_probe < 0xff)
			b->rounds_since_probe++;
		b3_update_ecn_alpha(b, in, out);
	}
	b->ecn_in_round |= b->ecn_eligible && rs->is_ece;
	b3_calculate_bw_sample(x, rs);
	b3_update_latest_delivery_signals(b, in, x, rs);
	return 0;
}

/* bbr_update_model(), up to the PROBE_BW cycle. */
B3_STEP int b3_step_model(struct bbr3 *b, const struct bbr3_in *in, struct bbr3_out *out, struct bbr3_ctx *x,
			  struct bbr3_rs *rs)
{
	if (!b || !in || !out || !x || !rs)
		return 0;
	b3_update_congestion_signals(b, x, rs);
	b3_update_ack_aggregation(b, in, x, rs);
	b3_check_loss_too_high_in_startup(b, in, out, rs);
	b3_check_full_bw_reached(b, x, rs);
	b3_check_drain(b, in, out);
	return 0;
}

B3_STEP int b3_step_cycle(struct bbr3 *b, const struct bbr3_in *in, struct bbr3_out *out, struct bbr3_ctx *x,
			  struct bbr3_rs *rs)
{
	if (!b || !in || !out || !x || !rs)
		return 0;
	b3_update_cycle_phase(b, in, out, x, rs);
	return 0;
}

B3_STEP int b3_step_min_rtt(struct bbr3 *b, const struct bbr3_in *in, struct bbr3_out *out,
			    struct bbr3_ctx *x,
			    struct bbr3_rs *rs)
{
	if (!b || !in || !out || !x || !rs)
		return 0;
	b3_update_min_rtt(b, in, out, x, rs);
	return 0;
}

/* The gains, the pacing rate and the window from the model. */
B3_STEP int b3_step_control(struct bbr3 *b, const struct bbr3_in *in, struct bbr3_out *out,
			    struct bbr3_ctx *x,
			    struct bbr3_rs *rs)
{
	__u32 bw;

	if (!b || !in || !out || !x || !rs)
		return 0;
	b3_update_gains(b);
	bw = b3_bw(b);
	b3_set_pacing_rate(b, in, out, x, bw, b->pacing_gain);
	b3_set_cwnd(b, in, out, x, rs->acked_sacked, bw, b->cwnd_gain);
	b3_bound_cwnd_for_inflight_model(b, x);
	b3_advance_latest_delivery_signals(b, x, rs);
	b->prev_ca_state = in->ca_state;
	b->loss_in_cycle |= rs->lost > 0;
	b->ecn_in_cycle |= rs->delivered_ce > 0;
	out->cwnd = x->cwnd;
	return 0;
}

static __always_inline void b3_on_ack(struct bbr3 *b, const struct bbr3_in *in, struct bbr3_out *out)
{
	struct bbr3_ctx x = { .cwnd = in->cwnd };
	struct bbr3_rs rs;

	out->pacing_rate = in->pacing_rate;
	out->cwnd = in->cwnd;
	out->ssthresh = 0;
	out->app_limited = 0;
	b3_step_signals(b, in, out, &x, &rs);
	b3_step_model(b, in, out, &x, &rs);
	b3_step_cycle(b, in, out, &x, &rs);
	b3_step_min_rtt(b, in, out, &x, &rs);
	b3_step_control(b, in, out, &x, &rs);
}

/* The first send after idle: while app-limited, pace at bw rather than
 * the probing gain; end a PROBE_RTT that the idle time covered. */
static __always_inline void b3_on_tx_start(struct bbr3 *b, const struct bbr3_in *in, struct bbr3_out *out)
{
	struct bbr3_ctx x = { .cwnd = in->cwnd };

	out->pacing_rate = in->pacing_rate;
	out->cwnd = in->cwnd;
	out->ssthresh = 0;
	out->app_limited = 0;
	if (!in->app_limited)
		return;
	b->idle_restart = 1;
	b->ack_epoch_mstamp = in->now_us;
	b->ack_epoch_acked = 0;
	if (b->mode == BBR3_PROBE_BW)
		b3_set_pacing_rate(b, in, out, &x, b3_bw(b), B3_UNIT);
	else if (b->mode == BBR3_PROBE_RTT)
		b3_check_probe_rtt_done(b, in, &x);
	out->cwnd = x.cwnd;
}

/* Entering Recovery or Loss: keep what undo needs. Returns the ssthresh to
 * report (BBR leaves it as it is). */
static __always_inline void b3_on_ssthresh(struct bbr3 *b, __u32 cwnd)
{
	b3_save_cwnd(b, cwnd);
	b->undo_bw_lo = b->bw_lo;
	b->undo_inflight_lo = b->inflight_lo;
	b->undo_inflight_hi = b->inflight_hi;
}

/* A spurious recovery: the bounds as they were; the cwnd to restore. */
static __always_inline __u32 b3_on_undo(struct bbr3 *b)
{
	b3_reset_full_bw(b);
	b->loss_in_round = 0;
	b->bw_lo = b3_max32(b->bw_lo, b->undo_bw_lo);
	b->inflight_lo = b3_max32(b->inflight_lo, b->undo_inflight_lo);
	b->inflight_hi = b3_max32(b->inflight_hi, b->undo_inflight_hi);
	return b->prior_cwnd;
}

/* A change of the connection's CA state; returns the cwnd to set (the
 * given one when nothing changes). */
static __always_inline __u32 b3_on_state(struct bbr3 *b, __u8 new_state, __u32 cwnd)
{
	if (new_state == B3_CA_LOSS) {
		b->prev_ca_state = B3_CA_LOSS;
		b3_reset_full_bw(b);
		/* An RTO: inflight_lo needs the window from before it. */
		if (!b3_is_probing_bandwidth(b) && b->inflight_lo == ~0u)
			b->inflight_lo = b3_max32(cwnd, b->prior_cwnd);
	} else if (b->prev_ca_state == B3_CA_LOSS) {
		cwnd = b3_max32(cwnd, b->prior_cwnd);
	}
	return cwnd;
}

/* Mainline BBR's min_tso_segs(): bursts of 1 below ~1.2 Mbit/s. */
static __always_inline __u32 b3_min_tso_segs(__u64 pacing_rate)
{
	return pacing_rate < (1200000 >> 3) ? 1 : 2;
}

#endif /* BBR3_LOGIC_H */
