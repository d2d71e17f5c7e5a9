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
 * Everything is integer arithmetic in microseconds (alpha in thousandths), so
 * the same code compiles into the BPF program and into the host unit tests.
 * Unlike the authors' code, the module runs on every ACK with an RTT sample:
 * their hook sat behind Cubic's HyStart delay check and skipped the refinement
 * for about a second after each Cubic epoch start.
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
	__u32 setpoint_us;      /* alpha x min_rtt */
	__u32 base_interval_us; /* Interval, reset to Setpoint on Good */
	__u32 interval_us;      /* the watch in force: base_interval / sqrt(N-1) */
	__u32 n_bad;            /* N of Alg. 1: 1 + consecutive Bad conditions */
	__u32 condition;        /* enum c2tcp_cond */
	__u32 watching;         /* 0 = Alg. 1's first_time: no watch started */
	__u32 last_avg_rtt_us;
	__u32 bad_events;
	__u32 tune_cycles;
	__u32 growth_credit;    /* Good growth owed, in 1/(cwnd*SCALE) segments */
};

static __always_inline void c2tcp_state_init(struct c2tcp_state *st)
{
	__builtin_memset(st, 0, sizeof(*st));
	st->alpha_milli = C2TCP_ALPHA_INIT;
	st->n_bad = 1;
	st->condition = C2TCP_GOOD;
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
 * Feed one RTT sample taken at now_us. target_us is the Target in force
 * (already resolved from the socket option or the default); pinned_alpha_milli
 * is non-zero when the application pinned alpha, which stops the Tuner.
 * Returns what the Action Enforcer must do now.
 */
static __always_inline enum c2tcp_action
c2tcp_on_rtt(struct c2tcp_state *st, __u64 now_us, __u32 rtt_us,
	     __u32 target_us, __u32 pinned_alpha_milli)
{
	enum c2tcp_action act = C2TCP_ACT_NONE;

	if (rtt_us == 0)
		return C2TCP_ACT_NONE;

	/* Tuner: one cycle is 500 ms of samples. */
	if (st->cycle_start_us == 0)
		st->cycle_start_us = now_us;
	st->cycle_rtt_sum_us += rtt_us;
	st->cycle_rtt_cnt++;
	if (now_us - st->cycle_start_us >= C2TCP_TUNE_PERIOD_US) {
		st->last_avg_rtt_us = (__u32)(st->cycle_rtt_sum_us / st->cycle_rtt_cnt);
		if (!pinned_alpha_milli)
			st->alpha_milli = c2tcp_tune_alpha(st->alpha_milli,
							   st->last_avg_rtt_us, target_us);
		st->tune_cycles++;
		st->cycle_start_us = now_us;
		st->cycle_rtt_sum_us = 0;
		st->cycle_rtt_cnt = 0;
	}
	if (pinned_alpha_milli)
		st->alpha_milli = pinned_alpha_milli;

	/* Condition Detector (Alg. 1). */
	if (st->min_rtt_us == 0 || rtt_us < st->min_rtt_us)
		st->min_rtt_us = rtt_us;
	st->setpoint_us = (__u32)(((__u64)st->alpha_milli * st->min_rtt_us) / C2TCP_ALPHA_ONE);

	if (rtt_us < st->setpoint_us) {
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
	} else if (now_us > st->next_check_us) {
		st->condition = C2TCP_BAD;
		st->interval_us = c2tcp_interval_div_sqrt(st->base_interval_us, st->n_bad);
		st->next_check_us = now_us + st->interval_us;
		if (st->n_bad < C2TCP_N_MAX)
			st->n_bad++;
		st->bad_events++;
		st->growth_credit = 0;
		act = C2TCP_ACT_BACKOFF;
	}
	return act;
}

/*
 * Good condition: cwnd grows by Setpoint/RTT segments per RTT on top of the
 * loss-based TCP, i.e. by acked * Setpoint / (RTT * cwnd) per ACK (eq. 1).
 * The fraction is carried in growth_credit. Returns whole segments to add.
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

#endif /* C2TCP_LOGIC_H */
