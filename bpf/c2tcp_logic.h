/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C2TCP's window-refining module as a pure state machine.
 *
 * C2TCP (Abbasloo, Xu, Chao; IEEE JSAC 2019) rides on an unmodified loss-based
 * TCP (here: the kernel's Cubic). On every ACK that carries an RTT sample it
 * runs three blocks:
 *
 *  Condition Detector (Alg. 1). MINRTT is the global minimum RTT of the
 *  connection and Setpoint = alpha * MINRTT. A sample below Setpoint is a
 *  Good condition: Interval is reset to Setpoint and N to 1. The first sample
 *  at or above Setpoint starts a watch of one Interval (Normal condition). If
 *  no sample came back below Setpoint by the end of that Interval, the minimum
 *  RTT of the whole Interval was above Setpoint: a Bad condition. Bad repeats,
 *  each time after Interval/sqrt(N) with N counting consecutive Bads, exactly
 *  like CoDel's drop schedule. No timer is needed: the watch is checked when
 *  the next ACK arrives.
 *
 *  Action Enforcer (Alg. 2). Good: grow cwnd by Setpoint/RTT extra segments
 *  per RTT on top of Cubic's own growth (an additive increase, so AIMD
 *  fairness holds). Normal: leave Cubic alone. Bad: an "imaginary drop" - set
 *  ssthresh from Cubic's own recalculation and cwnd to 1, as a timeout would.
 *
 *  Tuner (Alg. 3 in the multiplicative form of eq. 16, as the authors' code
 *  does). Every 500 ms take the average RTT of the cycle and move alpha toward
 *  the application's Target:
 *      avg > Target:  alpha <- alpha * (1 - 2 (avg - Target) / avg)
 *      avg < Target:  alpha <- alpha * (1 + (Target - avg) / (2 avg))
 *  and clamp alpha to [1, 10]. The first aims the next cycle's average at
 *  avg - 2(avg - Target), the second, more cautiously, at
 *  Target - (Target - avg)/2 (Fig. 4 of the paper).
 *
 * Variants. `paper` is Algorithms 1-3 as printed (above). `jsac` is what
 * the authors' released code does, which is what produced the paper's
 * numbers (their JSAC-release Tuner, src/server.cc on branch v2.0-jsac-19,
 * and their kernel module, linux-4-13-1-orca-c2tcp-0521.patch). It differs
 * in five behaviours, each a switch of its own (C2TCP_B_*) so that any
 * subset can run:
 *
 *  BLIND_WINDOW    the module is called at the end of Cubic's bictcp_acked,
 *                  behind "if (epoch_start && jiffies - epoch_start < HZ)
 *                  return": for 1 s after Cubic opens an epoch nothing
 *                  happens - no detection, growth, min-RTT update or Tuner
 *                  sample. A Bad ends the window (Cubic's ssthresh zeroes
 *                  epoch_start); the next one opens when Cubic's congestion
 *                  avoidance starts a new epoch.
 *  ANCHORED_TUNER  every 500 ms alpha is recomputed from the anchor
 *                  Target/minRTT, in whole ms and percent, then eq. 16's
 *                  factor, clamped only on the side it moves to (>= 1 after
 *                  a decrease, <= 10 after an increase); a cycle with no
 *                  samples (or avg = Target) leaves alpha at the bare anchor.
 *                  Alpha has no memory across cycles.
 *  MS_GOOD_TEST    Good iff floor(rtt_ms) <= floor(floor(minrtt_ms) * alpha):
 *                  whole milliseconds and <=, so at alpha = 1 a sample in
 *                  the min RTT's millisecond is Good.
 *  SHARED_GROWTH   Good adds floor(Setpoint_ms / rtt_ms) to Cubic's own
 *                  snd_cwnd_cnt on every ACK; cwnd grows by cnt / cwnd.
 *                  No cwnd-limited or CA_Open gate.
 *  ACK_INTERVAL    Interval = the current Setpoint, recomputed on every
 *                  ACK (not frozen at the last Good); 1/sqrt(N) by CoDel's
 *                  Newton step, as the module copies it from CoDel.
 *
 * A third variant, `drain` (issue 44: C2TCP on 5G-era links, where a
 * 100-packet buffer is half a BDP and a recording's outages fill a deep
 * one), is jsac with three more switches (docs/c2tcp.md, "C2TCP on today's
 * cells", has the runs that chose them and the ablation that is to test
 * each):
 *
 *  BDP_FLOOR       a Bad cuts cwnd not to 1 but to the packets the path
 *                  delivered in the last min RTT (never above cwnd, never
 *                  0): in flight minus that is the standing queue, which
 *                  then drains within one queueing delay while the link
 *                  stays busy; cwnd 1 drains the pipe too, and regrowing a
 *                  300-packet window from 1 costs many round trips. The
 *                  measure: windows of at least one min RTT over the
 *                  socket's delivered count, each scaled to one min RTT.
 *  HOLD_SSTHRESH   a Bad recomputes ssthresh only once cwnd is back at
 *                  the last cut's ssthresh; one that comes while cwnd is
 *                  still below it keeps it, as TCP keeps ssthresh when its
 *                  timer fires again before the recovery from the first
 *                  timeout is over (RFC 5681 section 3.1) - the paper calls
 *                  the imaginary drop a timeout. Through an outage the
 *                  window is cut again and again: recomputing ssthresh from
 *                  the window just cut takes it to 2 in three Bads and
 *                  leaves the recovery to Cubic's slow climb. The kernel's
 *                  own cuts (a timeout in the outage, a loss) keep it the
 *                  same way (the ssthresh hook asks this function too).
 *  PACING          the kernel paces the socket itself (sk_pacing_status =
 *                  SK_PACING_NEEDED: 2 x cwnd/sRTT in slow start, 1.2 x
 *                  after), so a window no bigger than the path's does not
 *                  arrive as one burst into a shallow buffer.
 *
 * Everything is integer arithmetic (us, alpha in thousandths), so the same
 * code compiles into the BPF program and into the host unit tests.
 */
#ifndef C2TCP_LOGIC_H
#define C2TCP_LOGIC_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

#define C2TCP_TUNE_PERIOD_US 500000ULL
#define C2TCP_ALPHA_ONE 1000u            /* alpha is kept in thousandths */
#define C2TCP_ALPHA_MIN 1000u            /* alpha = 1 */
#define C2TCP_ALPHA_MAX 10000u           /* alpha = 10 */
#define C2TCP_ALPHA_INIT 1500u           /* the authors' experiments: 1.5 */
#define C2TCP_GROWTH_SCALE 1024u         /* fixed point of the Good-growth credit */
#define C2TCP_N_MAX 65536u               /* Interval/sqrt(N) bottoms out at Interval/256 */
/* The anchored Tuner's bare anchor is not clamped (as the authors'); these
 * only keep the arithmetic in range: alpha in [0.01, 100]. */
#define C2TCP_ALPHA_SAFE_MIN 10u
#define C2TCP_ALPHA_SAFE_MAX 100000u
#define C2TCP_REC_INV_SQRT_SHIFT 16      /* CoDel's 1/sqrt(N) in Q0.16 */

/* The behaviours of the authors' code (see above), C2TCP_B_*, and the
 * C2TCP_VARIANT value (a base variant in bits 0-7, behaviours forced on in
 * bits 8-15 and forced off in bits 16-23) are the socket option's ABI: one
 * owner, the public header. */
#include "../include/c2tcp.h"

/* Is v a valid C2TCP_VARIANT value? */
static __always_inline int c2tcp_variant_valid(__u32 v)
{
	__u32 base = v & 0xff, on = (v >> C2TCP_VARIANT_ON_SHIFT) & 0xff,
	      off = (v >> C2TCP_VARIANT_OFF_SHIFT) & 0xff;

	return base <= C2TCP_VARIANT_MAX && !(v >> 24) && !(on & ~C2TCP_B_ALL) &&
	       !(off & ~C2TCP_B_ALL) && !(on & off);
}

/* Applies a C2TCP_VARIANT value to a behaviour set: its base replaces the
 * set (jsac: the authors' five, paper: none, drain: its own; 0 keeps it),
 * then its forced bits. */
static __always_inline __u32 c2tcp_apply_variant(__u32 set, __u32 v)
{
	__u32 base = v & 0xff;

	if (base == C2TCP_VARIANT_JSAC)
		set = C2TCP_B_JSAC;
	else if (base == C2TCP_VARIANT_PAPER)
		set = 0;
	else if (base == C2TCP_VARIANT_DRAIN)
		set = C2TCP_B_DRAIN;
	set |= (v >> C2TCP_VARIANT_ON_SHIFT) & C2TCP_B_ALL;
	set &= ~((v >> C2TCP_VARIANT_OFF_SHIFT) & C2TCP_B_ALL);
	return set;
}

/* The behaviours in force for a socket whose C2TCP_VARIANT is v, under the
 * load-time default (a variant value; jsac when its base is 0). */
static __always_inline __u32 c2tcp_behaviours(__u32 v, __u32 load_default)
{
	return c2tcp_apply_variant(c2tcp_apply_variant(C2TCP_B_JSAC, load_default), v);
}

enum c2tcp_cond {
	C2TCP_GOOD = 0,
	C2TCP_NORMAL = 1,
	C2TCP_BAD = 2,
};

enum c2tcp_action {
	C2TCP_ACT_NONE = 0,    /* Normal, or still watching: Cubic decides */
	C2TCP_ACT_GROW = 1,    /* Good: extra Setpoint/RTT segments per RTT */
	C2TCP_ACT_BACKOFF = 2, /* Bad: ssthresh = recalc, cwnd = 1 */
};

struct c2tcp_state {
	__u64 next_check_us;    /* end of the current watch */
	__u64 cycle_start_us;   /* start of the tuning cycle (0: none yet) */
	__u64 cycle_rtt_sum_us; /* sum of RTT samples in the tuning cycle */
	__u32 cycle_rtt_cnt;
	__u32 min_rtt_us;       /* global minimum RTT, 0 before the first sample */
	__u32 alpha_milli;      /* alpha x 1000 */
	__u32 setpoint_us;      /* alpha x min_rtt (whole ms with MS_GOOD_TEST) */
	__u32 base_interval_us; /* Interval, reset to Setpoint on Good */
	__u32 interval_us;      /* the watch in force: base_interval / sqrt(N-1) */
	__u32 n_bad;            /* N of Alg. 1: 1 + consecutive Bad conditions */
	__u32 condition;        /* enum c2tcp_cond */
	__u32 watching;         /* 0 = Alg. 1's first_time: no watch started */
	__u32 last_avg_rtt_us;
	__u32 bad_events;
	__u32 tune_cycles;
	__u32 growth_credit;    /* Good growth owed, in 1/(cwnd*SCALE) segments */
	__u32 behaviours;       /* C2TCP_B_* in force */
	__u32 skipped_samples;  /* RTT samples the blind window discarded */
	__u32 rec_inv_sqrt;     /* ACK_INTERVAL: CoDel's 1/sqrt(N), Q0.16 */
	/* BDP_FLOOR: what the path delivered per min RTT */
	__u32 win_delivered;    /* the socket's delivered count when the window opened */
	__u32 bdp_pkts;         /* packets delivered in the last full window, per min RTT */
	__u64 win_start_us;     /* when the window opened (0: not yet) */
};

static __always_inline void c2tcp_state_init(struct c2tcp_state *st, __u32 behaviours)
{
	__builtin_memset(st, 0, sizeof(*st));
	st->alpha_milli = C2TCP_ALPHA_INIT;
	st->n_bad = 1;
	st->condition = C2TCP_GOOD;
	st->behaviours = behaviours;
	st->rec_inv_sqrt = ~0u >> C2TCP_REC_INV_SQRT_SHIFT;
}

/* floor(sqrt(x)) for x < 2^58, bit by bit: bounded, no floating point, and
 * branch-free so the BPF verifier walks one path instead of 2^29. */
static __always_inline __u64 c2tcp_isqrt(__u64 x)
{
	__u64 res = 0, bit = 1ULL << 56, t, take;
	int i;

	for (i = 0; i < 29; i++) {
		t = res + bit;
		/* take = all ones when x >= t (both < 2^59, so the sign bit of
		 * x - t is the comparison) */
		take = ((x - t) >> 63) - 1;
		x -= t & take;
		res = (res >> 1) + (bit & take);
		bit >>= 2;
	}
	return res;
}

/* v, or the largest __u32 when it does not fit: the Setpoint of a huge
 * alpha x minRTT (the anchored Tuner's alpha 100 at a 43 s RTT) saturates
 * instead of wrapping to a short one. */
static __always_inline __u32 c2tcp_sat_u32(__u64 v)
{
	return v > 0xffffffffULL ? 0xffffffffu : (__u32)v;
}

/* interval / sqrt(n), in microseconds (n >= 1). */
static __always_inline __u32 c2tcp_interval_div_sqrt(__u32 interval_us, __u32 n)
{
	__u64 root_q20; /* sqrt(n) * 2^20 */

	if (n <= 1)
		return interval_us;
	if (n > C2TCP_N_MAX)
		n = C2TCP_N_MAX;
	root_q20 = c2tcp_isqrt((__u64)n << 40);
	return (__u32)(((__u64)interval_us << 20) / root_q20);
}

/* The Tuner's step (Alg. 3 with eq. 16). Returns the new alpha in thousandths. */
static __always_inline __u32 c2tcp_tune_alpha(__u32 alpha_milli, __u32 avg_us, __u32 target_us)
{
	__u64 a = alpha_milli;

	if (avg_us == 0 || target_us == 0)
		return alpha_milli;
	if (avg_us > target_us) {
		/* alpha * (1 - 2(avg - T)/avg) = alpha * (2T - avg) / avg */
		if ((__u64)avg_us >= 2ULL * target_us)
			a = 0;
		else
			a = a * (2ULL * target_us - avg_us) / avg_us;
	} else if (avg_us < target_us) {
		/* alpha * (1 + (T - avg)/(2 avg)) = alpha * (T + avg) / (2 avg) */
		a = a * ((__u64)target_us + avg_us) / (2ULL * avg_us);
	}
	if (a < C2TCP_ALPHA_MIN)
		a = C2TCP_ALPHA_MIN;
	if (a > C2TCP_ALPHA_MAX)
		a = C2TCP_ALPHA_MAX;
	return (__u32)a;
}

/*
 * The anchored Tuner of the authors' JSAC release (src/server.cc), in its
 * own units: whole ms, alpha in percent, the authors' integer expressions.
 * Returns alpha in percent. avg_ms = 0 means a cycle without samples.
 */
static __always_inline __u32 c2tcp_tune_anchored_pct(__u32 avg_ms, __u32 min_ms, __u32 target_ms)
{
	__u64 a, step;

	if (min_ms == 0)
		min_ms = 1; /* the authors' server divides by zero here and exits */
	a = (__u64)target_ms * 100 / min_ms;
	if (avg_ms > target_ms) {
		/* alpha - 2 (avg - T) alpha / avg, no lower than 1 */
		step = 2ULL * (avg_ms - target_ms) * a / avg_ms;
		a = step >= a ? 0 : a - step;
		if (a < C2TCP_ALPHA_MIN / 10)
			a = C2TCP_ALPHA_MIN / 10;
	} else if (avg_ms != 0 && avg_ms < target_ms) {
		/* alpha + ((T - avg) alpha / 2) / avg, no higher than 10 */
		a += ((__u64)(target_ms - avg_ms) * a / 2) / avg_ms;
		if (a > C2TCP_ALPHA_MAX / 10)
			a = C2TCP_ALPHA_MAX / 10;
	}
	return (__u32)a;
}

/* The end of a 500 ms tuning cycle: the cycle's average, and alpha's move. */
static __always_inline void c2tcp_end_cycle(struct c2tcp_state *st, __u64 now_us,
					    __u32 target_us, __u32 pinned_alpha_milli)
{
	__u32 avg_us = 0;
	__u64 a;

	if (st->cycle_rtt_cnt) {
		avg_us = (__u32)(st->cycle_rtt_sum_us / st->cycle_rtt_cnt);
		st->last_avg_rtt_us = avg_us;
	}
	if (!pinned_alpha_milli) {
		if (st->behaviours & C2TCP_B_ANCHORED_TUNER) {
			a = 10ULL * c2tcp_tune_anchored_pct(avg_us / 1000, st->min_rtt_us / 1000,
							    target_us / 1000);
			if (a < C2TCP_ALPHA_SAFE_MIN)
				a = C2TCP_ALPHA_SAFE_MIN;
			if (a > C2TCP_ALPHA_SAFE_MAX)
				a = C2TCP_ALPHA_SAFE_MAX;
			st->alpha_milli = (__u32)a;
		} else if (avg_us) {
			st->alpha_milli = c2tcp_tune_alpha(st->alpha_milli, avg_us, target_us);
		}
	}
	st->tune_cycles++;
	st->cycle_start_us = now_us;
	st->cycle_rtt_sum_us = 0;
	st->cycle_rtt_cnt = 0;
}

/* CoDel's Newton step for rec_inv_sqrt = 1/sqrt(n_bad), as the authors'
 * module copies it from include/net/codel_impl.h. */
static __always_inline void c2tcp_newton_step(struct c2tcp_state *st)
{
	__u32 invsqrt = st->rec_inv_sqrt << C2TCP_REC_INV_SQRT_SHIFT;
	__u32 invsqrt2 = (__u32)(((__u64)invsqrt * invsqrt) >> 32);
	__u64 val = (3ULL << 32) - ((__u64)st->n_bad * invsqrt2);

	val >>= 2; /* avoid overflow in the following multiply */
	val = (val * invsqrt) >> (32 - 2 + 1);
	st->rec_inv_sqrt = (__u32)(val >> C2TCP_REC_INV_SQRT_SHIFT);
}

/* CoDel's control law: interval x rec_inv_sqrt. */
static __always_inline __u32 c2tcp_interval_by_inv_sqrt(__u32 interval_us, __u32 rec_inv_sqrt)
{
	return (__u32)(((__u64)interval_us * (rec_inv_sqrt << C2TCP_REC_INV_SQRT_SHIFT)) >> 32);
}

/*
 * Feed one ACK with an RTT sample taken at now_us. target_us is the Target
 * in force (already resolved from the socket option or the default);
 * pinned_alpha_milli is non-zero when the application pinned alpha, which
 * stops the Tuner. blind is true inside Cubic's 1 s after an epoch start (the
 * caller reads Cubic's state; it matters only with BLIND_WINDOW). Returns
 * what the Action Enforcer must do now.
 */
static __always_inline enum c2tcp_action
c2tcp_on_rtt(struct c2tcp_state *st, __u64 now_us, __u32 rtt_us,
	     __u32 target_us, __u32 pinned_alpha_milli, int blind)
{
	enum c2tcp_action act = C2TCP_ACT_NONE;
	__u32 b = st->behaviours, interval, min_ms;
	int good;

	if (rtt_us == 0)
		return C2TCP_ACT_NONE;

	/* Tuner: a cycle is 500 ms. The authors' anchored Tuner is a clock
	 * of its own, so its cycles also end inside the blind window. */
	if (st->cycle_start_us == 0)
		st->cycle_start_us = now_us;
	if (blind && (b & C2TCP_B_BLIND_WINDOW)) {
		st->skipped_samples++;
		if ((b & C2TCP_B_ANCHORED_TUNER) &&
		    now_us - st->cycle_start_us >= C2TCP_TUNE_PERIOD_US)
			c2tcp_end_cycle(st, now_us, target_us, pinned_alpha_milli);
		return C2TCP_ACT_NONE;
	}
	st->cycle_rtt_sum_us += rtt_us;
	st->cycle_rtt_cnt++;
	if (now_us - st->cycle_start_us >= C2TCP_TUNE_PERIOD_US)
		c2tcp_end_cycle(st, now_us, target_us, pinned_alpha_milli);
	if (pinned_alpha_milli)
		st->alpha_milli = pinned_alpha_milli;

	/* Condition Detector (Alg. 1). */
	if (st->min_rtt_us == 0 || rtt_us < st->min_rtt_us)
		st->min_rtt_us = rtt_us;
	if (b & C2TCP_B_MS_GOOD_TEST) {
		min_ms = st->min_rtt_us / 1000;
		st->setpoint_us =
			c2tcp_sat_u32(((__u64)min_ms * st->alpha_milli / C2TCP_ALPHA_ONE) * 1000);
		good = rtt_us / 1000 <= st->setpoint_us / 1000;
	} else {
		st->setpoint_us =
			c2tcp_sat_u32(((__u64)st->alpha_milli * st->min_rtt_us) / C2TCP_ALPHA_ONE);
		good = rtt_us < st->setpoint_us;
	}
	/* The Interval a watch or a Bad uses: the Setpoint now, or the one
	 * of the last Good (Alg. 1 as printed). */
	if (b & C2TCP_B_ACK_INTERVAL)
		st->base_interval_us = st->setpoint_us;

	if (good) {
		st->base_interval_us = st->setpoint_us;
		st->interval_us = st->setpoint_us;
		st->condition = C2TCP_GOOD;
		st->watching = 0;
		st->n_bad = 1;
		act = C2TCP_ACT_GROW;
	} else if (!st->watching) {
		if (st->base_interval_us == 0) /* high from the very first sample */
			st->base_interval_us = st->setpoint_us;
		st->interval_us = st->base_interval_us;
		st->condition = C2TCP_NORMAL;
		st->next_check_us = now_us + st->interval_us;
		st->watching = 1;
		/* CoDel's 1/sqrt(N) is kept in step with N whatever the
		 * behaviours: ACK_INTERVAL may be switched on mid-streak (a
		 * C2TCP_VARIANT set during the connection), and a Newton step
		 * from a stale estimate at a large N wraps to a near-zero
		 * Interval. */
		st->rec_inv_sqrt = ~0u >> C2TCP_REC_INV_SQRT_SHIFT;
		c2tcp_newton_step(st);
	} else if (now_us > st->next_check_us) {
		st->condition = C2TCP_BAD;
		if (b & C2TCP_B_ACK_INTERVAL)
			interval = c2tcp_interval_by_inv_sqrt(st->base_interval_us, st->rec_inv_sqrt);
		else
			interval = c2tcp_interval_div_sqrt(st->base_interval_us, st->n_bad);
		st->interval_us = interval;
		st->next_check_us = now_us + interval;
		if (st->n_bad < C2TCP_N_MAX)
			st->n_bad++;
		c2tcp_newton_step(st); /* in step with N, as above */
		st->bad_events++;
		st->growth_credit = 0;
		act = C2TCP_ACT_BACKOFF;
	}
	return act;
}

/*
 * Good condition, as printed: cwnd grows by Setpoint/RTT segments per RTT on
 * top of the loss-based TCP, i.e. by acked * Setpoint / (RTT * cwnd) per ACK
 * (eq. 1). The fraction is carried in growth_credit. Returns whole segments
 * to add. (The caller grows only while cwnd-limited and in CA_Open.)
 */
static __always_inline __u32 c2tcp_good_growth(struct c2tcp_state *st, __u32 cwnd,
					       __u32 acked, __u32 rtt_us)
{
	__u64 per_ack, credit, unit;
	__u32 segs;

	if (cwnd == 0 || rtt_us == 0 || acked == 0)
		return 0;
	/* Setpoint/RTT <= alpha <= 10 while Good, so this stays small. */
	per_ack = ((__u64)st->setpoint_us * C2TCP_GROWTH_SCALE) / rtt_us;
	credit = (__u64)st->growth_credit + per_ack * acked;
	unit = (__u64)cwnd * C2TCP_GROWTH_SCALE;
	segs = (__u32)(credit / unit);
	st->growth_credit = (__u32)(credit - (__u64)segs * unit);
	return segs;
}

/*
 * Good condition, as the authors' module does it (SHARED_GROWTH): every ACK
 * adds floor(Setpoint_ms / rtt_ms) to the loss-based TCP's own snd_cwnd_cnt;
 * once that reaches cwnd, cwnd grows by cnt / cwnd (up to clamp) and the
 * remainder stays. The same counter then feeds Cubic's own increase.
 */
static __always_inline void c2tcp_shared_growth(const struct c2tcp_state *st, __u32 rtt_us,
						__u32 *cwnd, __u32 *cwnd_cnt, __u32 clamp)
{
	__u32 rtt_ms = rtt_us / 1000;
	__u64 cnt, delta, grown;

	if (rtt_ms == 0)
		rtt_ms = 1;
	/* 64 bits: at a window near 2^32 the counter and the window would
	 * wrap in 32 (bpf/tests/c2tcp_logic_prop_test.c). */
	cnt = (__u64)*cwnd_cnt + (st->setpoint_us / 1000) / rtt_ms;
	if (*cwnd == 0 || cnt < *cwnd) {
		*cwnd_cnt = c2tcp_sat_u32(cnt);
		return;
	}
	delta = cnt / *cwnd;
	*cwnd_cnt = (__u32)(cnt - delta * *cwnd); /* < cwnd */
	grown = *cwnd + delta;
	*cwnd = grown > clamp ? clamp : (__u32)grown;
}

/*
 * BDP_FLOOR's measure: packets the path delivered per min RTT, from the
 * socket's own delivered count (tcp_sock.delivered, which counts every
 * packet the receiver got, SACKed or cumulatively ACKed). Windows of at
 * least one min RTT follow each other; at the end of one, its count is
 * scaled to exactly one min RTT (a window stretched by an outage counts
 * the outage's low rate). Called on every ACK with an RTT sample, blind or
 * not; one division per window, none per ACK.
 */
static __always_inline void c2tcp_track_delivered(struct c2tcp_state *st, __u64 now_us,
						  __u32 delivered)
{
	__u64 elapsed = now_us - st->win_start_us;

	if (st->win_start_us == 0 || now_us < st->win_start_us) {
		st->win_start_us = now_us ? now_us : 1;
		st->win_delivered = delivered;
		return;
	}
	if (st->min_rtt_us == 0 || elapsed < st->min_rtt_us)
		return;
	/* u32 difference: the count wraps after 2^32 packets */
	st->bdp_pkts = c2tcp_sat_u32((__u64)(__u32)(delivered - st->win_delivered) *
				     st->min_rtt_us / elapsed);
	st->win_start_us = now_us;
	st->win_delivered = delivered;
}

/*
 * The Action Enforcer's Bad: the window after an imaginary drop. As printed
 * and as released, 1. With BDP_FLOOR, the packets the path delivered in the
 * last min RTT: the standing queue (in flight minus that) drains within one
 * queueing delay and the link stays busy, where cwnd 1 drains the pipe as
 * well. Never above the window in force, never 0.
 */
static __always_inline __u32 c2tcp_backoff_cwnd(const struct c2tcp_state *st, __u32 cwnd)
{
	__u32 w = 1;

	if ((st->behaviours & C2TCP_B_BDP_FLOOR) && st->bdp_pkts > w)
		w = st->bdp_pkts;
	if (w > cwnd)
		w = cwnd;
	return w ? w : 1;
}

#define C2TCP_INFINITE_SSTHRESH 0x7fffffffu /* the kernel's TCP_INFINITE_SSTHRESH */

/*
 * Does a Bad recompute ssthresh from the loss-based TCP? Always, as printed
 * and as released. With HOLD_SSTHRESH only when the window has climbed back
 * to the last cut's ssthresh (or none was ever set): a Bad that comes while
 * cwnd is still below ssthresh - still climbing back from an earlier cut -
 * keeps ssthresh (and Cubic's W_max), as TCP keeps ssthresh when its
 * retransmission timer fires again before the recovery from the first
 * timeout is over (RFC 5681 section 3.1, eq. 4's note; Linux's
 * tcp_enter_loss recomputes it only out of Loss and Recovery), for the
 * paper treats an imaginary drop as a timeout. Through an outage the window
 * is cut again and again: recomputing ssthresh from the window just cut
 * takes it to 2 in three Bads, and when the link comes back Cubic climbs
 * from there at a few packets per round trip.
 */
static __always_inline int c2tcp_backoff_sets_ssthresh(const struct c2tcp_state *st, __u32 cwnd,
						       __u32 ssthresh)
{
	return !(st->behaviours & C2TCP_B_HOLD_SSTHRESH) || cwnd >= ssthresh ||
	       ssthresh >= C2TCP_INFINITE_SSTHRESH;
}

#endif /* C2TCP_LOGIC_H */
