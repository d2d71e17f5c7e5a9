/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP Prague's window logic (draft-briscoe-iccrg-prague-congestion-control,
 * with the L4S team's tcp_prague.c, v0.7 of 2024, read for the choices the
 * draft leaves open); pure, so that bpf/prague.bpf.c and the host test
 * bpf/tests/prague_logic_test.c compile the same code. docs/l4s.md says
 * where each constant comes from and where ours differs.
 *
 * Prague is DCTCP made safe for the Internet. The bottleneck marks CE early
 * (an L4S AQM: DualPI2's L queue, a cell's ramp), often and in proportion to
 * the queue, and the sender answers each round trip in proportion to the
 * marks instead of halving:
 *
 *   alpha  <- alpha + g (F - alpha)      once a round trip, g = 1/16, F the
 *                                        fraction of that round's packets
 *                                        the receiver echoed as CE;
 *   cwnd   <- cwnd (1 - alpha / 2)       on CE, at most once a round trip
 *                                        (the kernel's CWR state);
 *   cwnd   <- cwnd + ai / cwnd           per packet acknowledged without CE
 *                                        (additive increase, one packet a
 *                                        round trip when ai = 1; counting
 *                                        only unmarked packets keeps the
 *                                        increase "unsaturated", ~(1 - p)).
 *
 * The window is kept in 1/2^20 packets (PRAGUE_CWND_UNIT) so that small,
 * frequent reductions add up instead of rounding away; the kernel's
 * snd_cwnd follows it step by step (+acked, -1 per ACK, never below 2), so
 * a reduction is spread over the ACKs of a round as PRR would spread it
 * and, after a timeout, the kernel's cwnd of 1 grows back as in slow start.
 *
 * Slow start doubles the window until the first CE or loss. The first CE
 * halves the window, as classic TCP would, and alpha starts from 0 after it
 * (tcp_prague.c's alpha_mode 0). A loss halves the window once per
 * recovery (Reno), undone if the loss was spurious.
 *
 * Pacing: the larger of the window and the packets in flight per smoothed
 * RTT (twice that in slow start), never below 100 kbit/s, so a window cut
 * below two packets still sends at a rate instead of stalling.
 *
 * Rate mode (tcp_prague.c v0.7's `prague_cwnd_mode` 2, "switch"): once a
 * CE has been seen, at or below a window of 4 packets of 1500 B
 * (`prague_cwnd_transit`) Prague keeps a rate instead of a window, and,
 * when RTT-independent, acts on the rate:
 *
 *   rate <- rate + MTU / (W_v x vrtt)   per unmarked packet acked, W_v the
 *                                       rate's packets per vrtt: one MTU
 *                                       per vrtt each vrtt, vrtt =
 *                                       max(25 ms, srtt);
 *   rate <- max(rate (1 - alpha / 2), 100 kbit/s)   on CE, at most once per
 *                                       25 ms;
 *   rate <- rate / 2                    on a loss;
 *
 * the window follows as rate x slow srtt (an EWMA of srtt with gain 1/128,
 * `hsrtt`), and the pacing rate is the rate +3 % in the first half of each
 * vrtt after an alpha update and -3 % in the second, which draws a steady
 * trickle of marks from a step AQM instead of DCTCP's on-off rounds. Above
 * the transit, or before the first CE, the window rules above apply and the
 * rate follows the window. v0.7 also shrinks the MSS below 1 Mbit/s so two
 * packets still leave every 25 ms; a congestion control cannot set the MSS
 * from BPF, so ours sends full packets (docs/l4s.md). For the same reason
 * the rate grows whenever the sender is not application-limited (v0.7's
 * first form of the test, `tp->app_limited`), not only when the window of
 * 2 is full: with full-size packets a paced flow below 2 packets per RTT
 * never fills it.
 *
 * RTT independence (the draft's "reduced RTT-dependence", tcp_prague.c's
 * rate scaling): after PRAGUE_RTT_TRANSITION rounds out of slow start,
 * a flow whose smoothed RTT is below PRAGUE_RTT_TARGET grows by
 * (srtt / target)^2 of a packet per round and reacts (alpha update, CWR) at
 * most once per target RTT, so it takes about the rate of a flow at the
 * target RTT instead of a share inversely proportional to its own RTT.
 *
 * Classic-ECN fallback: a Classic ECN AQM (CoDel, PIE with ECN) marks rarely
 * and expects a halving per mark; alpha, near 0 there, would barely react.
 * The detection scores each round from the RTT's variation and standing
 * queue (tcp_prague.c's heuristic: +0.5 log2(mdev / 750 us), plus
 * +0.5 log2(depth / 2 ms) when the queue is deeper than 2 ms; score in
 * [0, 17], sticky at both ends), and once it passes 8 alpha is floored at
 * 0.625 x min(score - 8, 1) for each reduction, so the flow backs off as a
 * Classic one would.
 */
#ifndef PRAGUE_LOGIC_H
#define PRAGUE_LOGIC_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

#include "ce_echo.h"
#include "ilog2.h"

#define PRAGUE_ALPHA_BITS 20u               /* alpha in 1/2^20 */
#define PRAGUE_MAX_ALPHA (1u << PRAGUE_ALPHA_BITS)
#define PRAGUE_SHIFT_G 4u                   /* EWMA gain g = 1/16 */
#define PRAGUE_CWND_UNIT 20u                /* window in 1/2^20 packets */
#define PRAGUE_ONE_CWND (1ull << PRAGUE_CWND_UNIT)
#define PRAGUE_MIN_CWND 2u
#define PRAGUE_RTT_TARGET_US 25000u         /* the draft's reference RTT */
#define PRAGUE_RTT_TRANSITION 4u            /* rounds before RTT independence */
#define PRAGUE_MIN_RATE 12500u              /* pacing floor, bytes/s: 100 kbit/s */
#define PRAGUE_RTT_MAX_SCALED_US 100000u    /* above: no scaling (tcp_prague.c) */
#define PRAGUE_MTU_SYS 1500u                /* tcp_prague.c MTU_SYS */
#define PRAGUE_CWND_TRANSIT 4u              /* rate mode at or below 4 x MTU_SYS */
#define PRAGUE_RATE_OFFSET 4u               /* pacing +-4/128 (~3 %) a half vrtt */
#define PRAGUE_OFFSET_UNIT 7u
#define PRAGUE_HSRTT_SHIFT 7u               /* the slow srtt's gain, 1/128 */

/* Classic-ECN detection's score, in alpha's units (1.0 = PRAGUE_MAX_ALPHA). */
#define PRAGUE_L_STICKY (8ull << PRAGUE_ALPHA_BITS)   /* below: pure L4S */
#define PRAGUE_CLASSIC (PRAGUE_L_STICKY + PRAGUE_MAX_ALPHA)
#define PRAGUE_C_STICKY (PRAGUE_CLASSIC + PRAGUE_L_STICKY) /* the cap */
#define PRAGUE_V0_US 750u                   /* reference RTT deviation */
#define PRAGUE_D0_US 2000u                  /* reference queue depth */
#define PRAGUE_SLOW_SHIFT_MAX 18u           /* the slow estimators' gain */

struct prague_state {
	__u64 frac_cwnd;          /* the window, 1/2^20 packets */
	__u64 loss_frac_cwnd;     /* frac_cwnd before the last loss halving */
	__u64 srtt_slow;          /* slow smoothed RTT, us << 20 */
	__u64 mdev_slow;          /* slow mean deviation of the RTT, us << 20 */
	__u32 upscaled_alpha;     /* alpha << PRAGUE_SHIFT_G */
	__u32 ai_ack_increase;    /* increase per acked packet, x 1/2^20 x cwnd */
	__u32 loss_cwnd;          /* snd_cwnd before the last loss halving */
	__u32 prior_delivered;    /* tp->delivered at the previous ACK */
	__u32 prior_delivered_ce; /* tp->delivered_ce at the previous ACK */
	__u32 round_delivered;    /* tp->delivered at the round's start */
	__u32 round_delivered_ce; /* tp->delivered_ce at the round's start */
	__u32 next_seq;           /* the round ends when snd_una reaches it */
	__u32 round;              /* rounds since slow start ended */
	__u32 cwr_stamp_us;       /* last reduction on CE (low 32 bits of us) */
	__u32 alpha_stamp_us;     /* last alpha update */
	__u32 classic_ecn;        /* classic-ECN score, alpha's units */
	__u32 rate;               /* the rate, bytes/s (rate mode's, else the window's) */
	__u32 hsrtt;              /* slow srtt, us << PRAGUE_HSRTT_SHIFT (0: none yet) */
	__u8 saw_ce;              /* a CE came back: there is an AQM */
	__u8 in_loss;             /* in a loss recovery */
	__u8 slow_shift;          /* gain of the slow estimators, 1/2^shift */
	__u8 ecn_fallback;        /* apply the classic-ECN fallback */
	__u8 rate_mode;           /* at or below the transit: the rate rules */
	struct ce_echo echo;      /* receiver: the per-packet CE echo */
};

/* What the kernel says at an ACK. */
struct prague_ack {
	__u32 delivered, delivered_ce; /* tp's cumulative counters */
	__u32 snd_cwnd, snd_ssthresh, snd_cwnd_clamp;
	__u32 snd_una, snd_nxt;
	__u32 srtt_us;                 /* smoothed RTT, us (tp->srtt_us >> 3) */
	__u32 min_rtt_us;              /* windowed minimum RTT, ~0 if none */
	__u32 now_us;                  /* tp->tcp_mstamp, low 32 bits */
	__u32 mtu;                     /* bytes of a full packet (MSS + headers) */
	int cwnd_limited;              /* tcp_is_cwnd_limited() */
	int app_limited;               /* tp->app_limited: the sender ran out of data */
};

/* What the kernel must be told after it: snd_cwnd and snd_ssthresh. */
struct prague_window {
	__u32 snd_cwnd, snd_ssthresh;
};

static __always_inline int prague_in_slow_start(__u32 cwnd, __u32 ssthresh)
{
	return cwnd < ssthresh;
}

/* log2(x) in alpha's units (x 2^20), x >= 1: the integer part exact, the
 * fraction by linear interpolation of the mantissa (at most 0.086 low). */
static __always_inline __u64 prague_log2(__u64 x)
{
	__u32 k = ilog2_u64(x ? x : 1);
	__u64 mantissa = k >= PRAGUE_ALPHA_BITS ? (x >> (k - PRAGUE_ALPHA_BITS))
						: (x << (PRAGUE_ALPHA_BITS - k));

	return ((__u64)k << PRAGUE_ALPHA_BITS) + mantissa - PRAGUE_MAX_ALPHA;
}

static __always_inline __u32 prague_cwnd_of(__u64 frac_cwnd)
{
	__u64 c = (frac_cwnd + PRAGUE_ONE_CWND - 1) >> PRAGUE_CWND_UNIT;

	return c > 0xffffffffull ? 0xffffffffu : (c ? (__u32)c : 1);
}

/* The virtual RTT, us: the RTT-independence target or srtt if longer. */
static __always_inline __u64 prague_vrtt_us(__u32 srtt_us)
{
	return srtt_us > PRAGUE_RTT_TARGET_US ? srtt_us : PRAGUE_RTT_TARGET_US;
}

/* The RTT the rate mode converts with: the slow srtt, else srtt. */
static __always_inline __u32 prague_hsrtt_us(const struct prague_state *s, __u32 srtt_us)
{
	__u32 h = s->hsrtt >> PRAGUE_HSRTT_SHIFT;

	return h ? h : srtt_us;
}

/* The window (1/2^20 packets) that `rate` bytes/s keeps in flight over
 * `rtt_us` with packets of `mtu` bytes, rounded up. */
static __always_inline __u64 prague_rate_to_frac(__u64 rate, __u32 rtt_us, __u32 mtu)
{
	/* x: packets x 10^6; x 2^20 / 10^6 without overflowing. */
	__u64 x = (rate * rtt_us + mtu - 1) / (mtu ? mtu : 1);

	return x + (x * 48576 + 999999) / 1000000;
}

/* The rate (bytes/s) of the window `frac` per `rtt_us`, never below
 * 100 kbit/s (tcp_prague.c's prague_frac_cwnd_to_pacing_rate). */
static __always_inline __u64 prague_frac_to_rate(__u64 frac, __u32 rtt_us, __u32 mtu)
{
	__u64 bytes = ((__u64)mtu * frac + (PRAGUE_ONE_CWND >> 1)) >> PRAGUE_CWND_UNIT;
	__u64 rate = rtt_us ? bytes * 1000000ull / rtt_us : PRAGUE_MIN_RATE;

	return rate < PRAGUE_MIN_RATE ? PRAGUE_MIN_RATE : rate;
}

static __always_inline __u32 prague_rate_u32(__u64 rate)
{
	return rate > 0xffffffffull ? 0xffffffffu : (__u32)rate;
}

/* The additive increase per acked packet for the next round, in 1/2^20 of
 * a packet times cwnd: 1 packet a round, or (srtt / target)^2 of one when
 * the flow is RTT-independent and its RTT is below the target. */
static __always_inline __u32 prague_ai(const struct prague_state *s, __u32 srtt_us)
{
	__u64 r = srtt_us, t = PRAGUE_RTT_TARGET_US;

	if (s->round < PRAGUE_RTT_TRANSITION || !r || r >= t || r > PRAGUE_RTT_MAX_SCALED_US)
		return PRAGUE_MAX_ALPHA;
	return (__u32)(((r * r << PRAGUE_CWND_UNIT) + (t * t >> 1)) / (t * t));
}

/* Whether the flow reacts once per target RTT rather than once per RTT. */
static __always_inline int prague_rtt_independent(const struct prague_state *s, __u32 cwnd,
						  __u32 ssthresh)
{
	return s->round >= PRAGUE_RTT_TRANSITION && !prague_in_slow_start(cwnd, ssthresh);
}

static __always_inline void prague_new_round(struct prague_state *s, const struct prague_ack *a)
{
	__u32 shift;

	s->next_seq = a->snd_nxt;
	s->round_delivered = a->delivered;
	s->round_delivered_ce = a->delivered_ce;
	if (!prague_in_slow_start(a->snd_cwnd, a->snd_ssthresh) && s->round < 0xffffffffu)
		s->round++;
	s->ai_ack_increase = prague_ai(s, a->srtt_us);
	/* The slow estimators average over about cwnd^1.5 samples, a few
	 * rounds (tcp_prague.c's g_srtt_shift from the window). */
	shift = ilog2_u64(a->snd_cwnd ? a->snd_cwnd : 1);
	shift += (shift >> 1) + 1;
	s->slow_shift = shift > PRAGUE_SLOW_SHIFT_MAX ? PRAGUE_SLOW_SHIFT_MAX : shift;
}

static __always_inline void prague_init_state(struct prague_state *s, const struct prague_ack *a,
					      __u32 ecn_fallback)
{
	s->frac_cwnd = (__u64)a->snd_cwnd << PRAGUE_CWND_UNIT;
	s->loss_frac_cwnd = 0;
	s->srtt_slow = (__u64)a->srtt_us << PRAGUE_ALPHA_BITS;
	s->mdev_slow = 0;
	s->upscaled_alpha = 0; /* the first CE halves instead (prague_on_ack) */
	s->loss_cwnd = 0;
	s->prior_delivered = a->delivered;
	s->prior_delivered_ce = a->delivered_ce;
	s->round = 0;
	s->cwr_stamp_us = a->now_us;
	s->alpha_stamp_us = a->now_us;
	s->classic_ecn = 0;
	s->saw_ce = a->delivered_ce != 0;
	s->in_loss = 0;
	s->ecn_fallback = ecn_fallback;
	s->rate_mode = 0;
	s->hsrtt = a->srtt_us << PRAGUE_HSRTT_SHIFT;
	s->rate = prague_rate_u32(prague_frac_to_rate(s->frac_cwnd, a->srtt_us, a->mtu));
	s->echo.prior_rcv_nxt = 0;
	s->echo.ce_state = 0;
	prague_new_round(s, a);
	s->round = 0;
}

/* One RTT sample (us) into the slow estimators of the classic detection. */
static __always_inline void prague_rtt_sample(struct prague_state *s, __u32 rtt_us)
{
	__u64 m = (__u64)rtt_us << PRAGUE_ALPHA_BITS;
	__u64 err = m > s->srtt_slow ? m - s->srtt_slow : s->srtt_slow - m;
	__u32 g = s->slow_shift;

	if (!s->srtt_slow) {
		s->srtt_slow = m;
		return;
	}
	if (m > s->srtt_slow)
		s->srtt_slow += (m - s->srtt_slow) >> g;
	else
		s->srtt_slow -= (s->srtt_slow - m) >> g;
	if (err > s->mdev_slow)
		s->mdev_slow += (err - s->mdev_slow) >> g;
	else
		s->mdev_slow -= (s->mdev_slow - err) >> g;
}

/* A round's classic-ECN evidence: half the log2 of the RTT's deviation
 * over 750 us (negative when calmer), plus half the log2 of the standing
 * queue over 2 ms when it is deeper than that. */
static __always_inline void prague_classic_detection(struct prague_state *s, __u32 min_rtt_us)
{
	__u64 mdev_us = s->mdev_slow >> PRAGUE_ALPHA_BITS, srtt_us = s->srtt_slow >> PRAGUE_ALPHA_BITS;
	__s64 score = s->classic_ecn, v;

	if (!srtt_us || min_rtt_us == 0xffffffffu)
		return;
	/* Halves by shifts, symmetric around 0 (BPF has no signed division). */
	v = (__s64)prague_log2(mdev_us ? mdev_us : 1) - (__s64)prague_log2(PRAGUE_V0_US);
	score += v >= 0 ? v >> 1 : -((-v) >> 1);
	if (srtt_us > min_rtt_us + PRAGUE_D0_US)
		score += (__s64)((prague_log2(srtt_us - min_rtt_us) - prague_log2(PRAGUE_D0_US)) >> 1);
	if (score < 0)
		score = 0;
	if (score > (__s64)PRAGUE_C_STICKY)
		score = PRAGUE_C_STICKY;
	s->classic_ecn = (__u32)score;
}

/* alpha for a reduction: floored at 0.625 x min(score - 8, 1) once the
 * score says a Classic ECN AQM marks this path (and the fallback is on). */
static __always_inline __u32 prague_reduction_alpha(const struct prague_state *s)
{
	__u32 alpha = s->upscaled_alpha >> PRAGUE_SHIFT_G;
	__u64 c;

	if (!s->ecn_fallback || s->classic_ecn <= PRAGUE_L_STICKY)
		return alpha;
	c = (s->classic_ecn < PRAGUE_CLASSIC ? s->classic_ecn : PRAGUE_CLASSIC) - PRAGUE_L_STICKY;
	c = (c >> 1) + (c >> 3);
	return c > alpha ? (__u32)c : alpha;
}

/* At the end of a round trip: alpha's EWMA from the round's CE fraction
 * (once there is evidence of an AQM, and when RTT-independent at most
 * once per target RTT), the classic detection, the next round. */
static __always_inline void prague_round_end(struct prague_state *s, const struct prague_ack *a)
{
	int indep = prague_rtt_independent(s, a->snd_cwnd, a->snd_ssthresh);

	if (indep && a->now_us - s->alpha_stamp_us < PRAGUE_RTT_TARGET_US)
		return;
	if (s->saw_ce) {
		__u32 acked = a->delivered - s->round_delivered;
		__u32 ce = a->delivered_ce - s->round_delivered_ce;
		__u64 f = 0, alpha = s->upscaled_alpha;

		if (ce) {
			if (ce > acked)
				ce = acked;
			f = ((__u64)ce << PRAGUE_ALPHA_BITS) / (acked ? acked : 1);
		}
		alpha = alpha - (alpha >> PRAGUE_SHIFT_G) + f;
		if (alpha > ((__u64)PRAGUE_MAX_ALPHA << PRAGUE_SHIFT_G))
			alpha = (__u64)PRAGUE_MAX_ALPHA << PRAGUE_SHIFT_G;
		s->upscaled_alpha = (__u32)alpha;
		s->alpha_stamp_us = a->now_us;
		prague_classic_detection(s, a->min_rtt_us);
	}
	/* tcp_prague.c's hsrtt: srtt smoothed once an alpha update, 1/128. */
	s->hsrtt = s->hsrtt + a->srtt_us - (s->hsrtt >> PRAGUE_HSRTT_SHIFT);
	prague_new_round(s, a);
}

/* snd_cwnd one step toward the fractional window: up by as many packets as
 * were acked (slow start's pace), down by one; the ssthresh follows a
 * decrease, which is what ends slow start. */
static __always_inline struct prague_window prague_follow(const struct prague_state *s,
							  const struct prague_ack *a, __u32 acked)
{
	struct prague_window w = { a->snd_cwnd, a->snd_ssthresh };
	__u32 target = prague_cwnd_of(s->frac_cwnd);

	if (target < PRAGUE_MIN_CWND)
		target = PRAGUE_MIN_CWND;
	if (w.snd_cwnd > target && w.snd_cwnd > PRAGUE_MIN_CWND) {
		w.snd_cwnd--;
		w.snd_ssthresh = w.snd_cwnd;
	} else if (w.snd_cwnd < target && w.snd_cwnd < a->snd_cwnd_clamp) {
		__u32 step = acked ? acked : 1;

		w.snd_cwnd = target - w.snd_cwnd < step ? target : w.snd_cwnd + step;
		if (w.snd_cwnd > a->snd_cwnd_clamp)
			w.snd_cwnd = a->snd_cwnd_clamp;
	}
	return w;
}

/* Whether the rate rules apply: at or below the transit, and
 * RTT-independent (v0.7: cwnd_mode 1 && prague_is_rtt_indep). */
static __always_inline int prague_rate_mode(const struct prague_state *s,
					    const struct prague_ack *a)
{
	return s->rate_mode && prague_rtt_independent(s, a->snd_cwnd, a->snd_ssthresh);
}

/* Rate mode's additive increase for `clean` unmarked packets acked: each
 * adds MTU_SYS / vrtt divided by the rate's packets per vrtt, so the rate
 * grows by one MTU_SYS per vrtt every vrtt; the window follows the rate. */
static __always_inline void prague_rate_increase(struct prague_state *s,
						 const struct prague_ack *a, __u32 clean)
{
	__u64 vrtt = prague_vrtt_us(a->srtt_us);
	__u64 inc = (__u64)clean * PRAGUE_MTU_SYS * 1000000ull / vrtt;
	__u64 mtu = a->mtu ? a->mtu : PRAGUE_MTU_SYS;
	__u64 per_vrtt = ((__u64)s->rate * vrtt + mtu * 1000000ull - 1) / (mtu * 1000000ull);
	__u64 frac;

	if (per_vrtt)
		s->rate = prague_rate_u32(s->rate + (inc + (per_vrtt >> 1)) / per_vrtt);
	frac = prague_rate_to_frac(s->rate, prague_hsrtt_us(s, a->srtt_us), a->mtu);
	s->frac_cwnd = frac > s->frac_cwnd + clean ? frac : s->frac_cwnd + clean;
}

/* v0.7's switch, after every ACK: once a CE has been seen, a window of at
 * most PRAGUE_CWND_TRANSIT packets of MTU_SYS is rate mode, the window
 * then following the rate; otherwise window mode, the rate following the
 * window. */
static __always_inline void prague_switch_mode(struct prague_state *s,
					       const struct prague_ack *a, __u32 snd_cwnd)
{
	__u64 mtu = a->mtu ? a->mtu : PRAGUE_MTU_SYS;

	if (s->saw_ce && (__u64)snd_cwnd * mtu <= PRAGUE_CWND_TRANSIT * PRAGUE_MTU_SYS) {
		s->rate_mode = 1;
		s->frac_cwnd = prague_rate_to_frac(s->rate, prague_hsrtt_us(s, a->srtt_us), a->mtu);
	} else {
		s->rate_mode = 0;
		if (a->srtt_us)
			s->rate = prague_rate_u32(prague_frac_to_rate(s->frac_cwnd, a->srtt_us, a->mtu));
	}
}

/* Every ACK (cong_control): growth for the packets acked without CE, the
 * round's bookkeeping, and snd_cwnd one step toward the window. */
static __always_inline struct prague_window prague_on_ack(struct prague_state *s,
							  const struct prague_ack *a)
{
	__u32 acked = a->delivered - s->prior_delivered;
	__u32 ce = a->delivered_ce - s->prior_delivered_ce;
	struct prague_window w;
	__u32 clean;

	s->prior_delivered = a->delivered;
	s->prior_delivered_ce = a->delivered_ce;
	if (ce > acked)
		ce = acked;
	if (ce && !s->saw_ce) {
		/* The first CE: there is an AQM; halve, as classic TCP would. */
		s->frac_cwnd = (s->frac_cwnd + 1) >> 1;
		s->saw_ce = 1;
	}
	clean = acked - ce;
	if (prague_rate_mode(s, a)) {
		/* v0.7's test in rate mode is the application's, not the window's
		 * (the header says why). */
		if (clean && !s->in_loss && !a->app_limited)
			prague_rate_increase(s, a, clean);
	} else if (clean && !s->in_loss && a->cwnd_limited) {
		if (prague_in_slow_start(a->snd_cwnd, a->snd_ssthresh)) {
			s->frac_cwnd += (__u64)clean << PRAGUE_CWND_UNIT;
		} else {
			/* +ai over a window's worth of ACKs, divided by the fractional
			 * window (v0.7), so a window under one packet still grows one
			 * packet a round, not one an ACK. */
			__u64 frac = s->frac_cwnd ? s->frac_cwnd : 1;
			__u64 inc = (((__u64)clean * s->ai_ack_increase << PRAGUE_CWND_UNIT) +
				     (frac >> 1)) / frac;

			s->frac_cwnd += inc > clean ? inc : clean;
		}
		/* The rate follows the window (v0.7: max(rate, the window's)). */
		if (a->srtt_us) {
			__u64 r = prague_frac_to_rate(s->frac_cwnd, a->srtt_us, a->mtu);

			if (r > s->rate)
				s->rate = prague_rate_u32(r);
		}
	}
	if ((__s32)(a->snd_una - s->next_seq) >= 0)
		prague_round_end(s, a);
	w = prague_follow(s, a, clean);
	prague_switch_mode(s, a, w.snd_cwnd);
	return w;
}

/* The ssthresh after a reduction: the reduced window, so that slow start
 * ends there (snd_cwnd then walks down to it, one packet an ACK). */
static __always_inline __u32 prague_reduced_ssthresh(const struct prague_state *s)
{
	__u32 c = prague_cwnd_of(s->frac_cwnd);

	return c < PRAGUE_MIN_CWND ? PRAGUE_MIN_CWND : c;
}

/* The kernel entered CWR on an echoed CE: cwnd x (1 - alpha/2), unless an
 * RTT-independent flow reduced less than a target RTT ago. Returns the
 * ssthresh. */
static __always_inline __u32 prague_on_cwr(struct prague_state *s, const struct prague_ack *a)
{
	__u64 reduction;

	if (prague_rtt_independent(s, a->snd_cwnd, a->snd_ssthresh) &&
	    a->now_us - s->cwr_stamp_us < PRAGUE_RTT_TARGET_US)
		return a->snd_ssthresh;
	s->cwr_stamp_us = a->now_us;
	if (prague_rate_mode(s, a)) {
		/* rate x (1 - alpha/2), never below 100 kbit/s. */
		reduction = ((__u64)prague_reduction_alpha(s) * (s->rate >> 1) +
			     (PRAGUE_MAX_ALPHA >> 1)) >> PRAGUE_ALPHA_BITS;
		s->rate = s->rate - reduction < PRAGUE_MIN_RATE ? PRAGUE_MIN_RATE
								: (__u32)(s->rate - reduction);
		s->frac_cwnd = prague_rate_to_frac(s->rate, prague_hsrtt_us(s, a->srtt_us), a->mtu);
		return prague_reduced_ssthresh(s);
	}
	reduction = ((__u64)prague_reduction_alpha(s) * (s->frac_cwnd >> 1) +
		     (PRAGUE_MAX_ALPHA >> 1)) >> PRAGUE_ALPHA_BITS;
	s->frac_cwnd -= reduction;
	if (a->srtt_us)
		s->rate = prague_rate_u32(prague_frac_to_rate(s->frac_cwnd, a->srtt_us, a->mtu));
	return prague_reduced_ssthresh(s);
}

/* A loss (Recovery or a timeout): half the window (in rate mode half the
 * rate), remembered for undo. Returns the ssthresh. */
static __always_inline __u32 prague_on_loss(struct prague_state *s, const struct prague_ack *a)
{
	s->loss_cwnd = a->snd_cwnd;
	s->loss_frac_cwnd = s->frac_cwnd;
	if (prague_rate_mode(s, a)) {
		s->rate -= s->rate >> 1;
		s->frac_cwnd = prague_rate_to_frac(s->rate, prague_hsrtt_us(s, a->srtt_us), a->mtu);
	} else {
		s->frac_cwnd -= s->frac_cwnd >> 1;
		if (s->frac_cwnd < ((__u64)PRAGUE_MIN_CWND << PRAGUE_CWND_UNIT))
			s->frac_cwnd = (__u64)PRAGUE_MIN_CWND << PRAGUE_CWND_UNIT;
		if (a->srtt_us)
			s->rate = prague_rate_u32(prague_frac_to_rate(s->frac_cwnd, a->srtt_us, a->mtu));
	}
	s->in_loss = 1;
	return prague_reduced_ssthresh(s);
}

/* The loss was spurious: the window (and rate) before it, and the progress
 * since. */
static __always_inline __u32 prague_undo(struct prague_state *s, const struct prague_ack *a)
{
	__u32 rtt = s->rate_mode ? prague_hsrtt_us(s, a->srtt_us) : a->srtt_us;

	if (s->loss_frac_cwnd > s->frac_cwnd)
		s->frac_cwnd = s->loss_frac_cwnd;
	if (rtt) {
		__u64 r = prague_frac_to_rate(s->frac_cwnd, rtt, a->mtu);

		if (r > s->rate)
			s->rate = prague_rate_u32(r);
	}
	s->in_loss = 0;
	return s->loss_cwnd > a->snd_cwnd ? s->loss_cwnd : a->snd_cwnd;
}

/* Pacing rate, bytes/s. In rate mode the rate, +3 % in the first half of
 * the vrtt since the last alpha update and -3 % in the second (v0.7's
 * prague_update_pacing_rate). Otherwise the larger of the window and the
 * packets in flight (`in_flight`) per smoothed RTT. Either way twice that
 * while the window is below half the ssthresh (slow start's ACK clock sends
 * two packets per ACK), never below PRAGUE_MIN_RATE; 0 without an RTT yet. */
static __always_inline __u64 prague_pacing_rate(const struct prague_state *s,
						const struct prague_ack *a, __u32 in_flight)
{
	__u64 window = s->frac_cwnd, bytes, rate;

	if (!a->srtt_us)
		return 0;
	if (prague_rate_mode(s, a)) {
		__u64 offset = ((__u64)s->rate * PRAGUE_RATE_OFFSET) >> PRAGUE_OFFSET_UNIT;

		rate = a->now_us - s->alpha_stamp_us < prague_vrtt_us(a->srtt_us) / 2
			       ? s->rate + offset
			       : s->rate - offset;
	} else {
		if (((__u64)in_flight << PRAGUE_CWND_UNIT) > window)
			window = (__u64)in_flight << PRAGUE_CWND_UNIT;
		bytes = ((__u64)a->mtu * window + (PRAGUE_ONE_CWND >> 1)) >> PRAGUE_CWND_UNIT;
		rate = bytes * 1000000ull / a->srtt_us;
	}
	if (rate < PRAGUE_MIN_RATE)
		rate = PRAGUE_MIN_RATE;
	return a->snd_cwnd < a->snd_ssthresh / 2 ? rate << 1 : rate;
}

#endif /* PRAGUE_LOGIC_H */
