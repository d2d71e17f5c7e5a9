/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PCC Vivace (Dong et al., "PCC Vivace: Online-Learning Congestion Control",
 * NSDI 2018): the utility function and the rate controller, as plain C that
 * bpf/vivace.bpf.c and the host test bpf/tests/vivace_logic_test.c compile.
 *
 * Vivace does not react to packets; it runs experiments. Time is cut into
 * monitor intervals (MIs) of about one RTT; each MI sends at one rate x and,
 * once all its packets are acknowledged or lost, scores that rate with
 *
 *     u(x) = x^t - b * x * dRTT/dT - c * x * L           (paper, eq. 1)
 *
 * x in Mbit/s, dRTT/dT the RTT gradient over the MI (seconds of RTT growth
 * per second), L the MI's loss rate; t = 0.9, b = 900, c = 11.35. x^t with
 * t < 1 makes the game among senders concave, so they converge to a fair
 * share; the RTT term penalises building a queue (its gradient is positive
 * exactly while the sender exceeds the bottleneck); the loss term is linear,
 * so a loss rate below the marginal gain of x^t (t * x^(t-1) / c, about 6%
 * at 12 Mbit/s) does not outweigh sending faster: random loss is tolerated,
 * congestion loss (which grows with x) is not.
 *
 * The rate follows the utility's gradient (section 4):
 *
 *  - Starting phase: double the rate every MI while utility rises; at the
 *    first fall go back to the last good rate.
 *  - Probing: two pairs of MIs at r(1+eps) and r(1-eps), in random order
 *    within each pair. If both pairs say the same direction, the utility
 *    gradient gamma = (u+ - u-) / (x+ - x-) (averaged over the pairs) starts
 *    a move; otherwise probe again.
 *  - Moving: each MI changes the rate by m * theta0 * gamma, gamma from this
 *    MI and the previous one. The confidence amplifier m grows while the
 *    direction stays the same (after a "swing buffer" of MIs following a
 *    reversal) so a long way is covered fast; the dynamic change boundary
 *    omega caps each change at omega * r, omega growing by a step each time
 *    the cap binds and falling back when it does not, so one noisy gradient
 *    cannot throw the rate far. A reversal of direction ends the move and
 *    starts probing again.
 *
 * How MIs are delimited and measured follows the authors' kernel module
 * (PCCproject/PCC-Kernel, branch vivace, src/tcp_pcc.c), which this is a
 * reading of: an MI starts at the current data_segs_out; it stops sending
 * when at least VIVACE_MI_MIN_PKTS were sent and its first packet has been
 * accounted for (delivered or lost: about one RTT), and it is complete when
 * all but VIVACE_IGNORE_PKTS of its packets are accounted for. Its
 * statistics skip the first VIVACE_IGNORE_PKTS packets' worth of ACKs (they
 * may belong to the previous MI). The RTT gradient is the change of the
 * smoothed RTT across the MI's ACKs over the MI's sending time; changes
 * smaller than two packet times or 3% are noise and count as zero.
 *
 * Fixed point: rates are bytes/s (u64), utilities are thousandths of
 * (Mbit/s)^0.9, x^0.9 = 2^(0.9 log2 x) with log2 by repeated squaring and
 * 2^f = e^(f ln 2) by its Taylor series (the module's pcc_exp() idea, with
 * the argument kept below ln 2 so a dozen terms are exact to 2^-30). No
 * signed division: BPF before cpu v4 has none.
 */
#ifndef VIVACE_LOGIC_H
#define VIVACE_LOGIC_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define VV_SUBPROG static inline
#define VV_OPAQUE(x) ((void)0)
#else
#define VV_SUBPROG __attribute__((noinline))
/* Hides x's known range from clang, so the bound check below is kept for
 * the verifier instead of being folded into an earlier comparison. */
#define VV_OPAQUE(x) asm volatile("" : "+r"(x))
#endif

#include "ilog2.h"

/* ---- constants, each with its source ---- */

/* Utility exponent t = 0.9, as VIVACE_T_NUM / VIVACE_T_DEN (the paper's
 * utility function; PCC-Uspace kExponent). */
#define VIVACE_T_NUM 9
#define VIVACE_T_DEN 10
/* RTT-gradient coefficient b = 900 (the paper's utility function; PCC-Uspace
 * kRTTCoefficient). */
#define VIVACE_B 900
/* Loss coefficient c = 11.35, in hundredths (paper's utility function). */
#define VIVACE_C_CENTI 1135
/* Probing step eps = 5% (paper's probing; module PCC_PROBING_EPS). */
#define VIVACE_EPS_PCT 5
/* theta0: a utility gradient of 1 per Mbit/s moves the rate by 1 Mbit/s
 * (PCC-Uspace kUtilityGradientToRateChangeFactor; bytes/s here). */
#define VIVACE_THETA0_BPS 125000ULL
/* Confidence amplifier m starts at 2 and grows by 1 per same-direction MI
 * once the swing buffer (at most 2 MIs, grown by each reversal) is spent
 * (module PCC_AMP_MIN, PCC_MAX_SWING_BUFFER). */
#define VIVACE_AMP_MIN 2
#define VIVACE_SWING_MAX 2
/* Dynamic change boundary omega: 10% of the rate, +7% each time it binds
 * (module PCC_MIN_CHANGE_BOUND, PCC_CHANGE_BOUND_STEP; per mille). */
#define VIVACE_BOUND_MIN_PM 100
#define VIVACE_BOUND_STEP_PM 70
/* Two rates closer than 2% give no usable gradient; a move is at least 1.1x
 * that (module PCC_MIN_RATE_DIFF_RATIO_FOR_GRAD and its min_step). */
#define VIVACE_MIN_DIFF_PM 20
#define VIVACE_MIN_STEP_PM 22
/* MI length and the ACKs skipped at its edges (module
 * PCC_INTERVAL_MIN_PACKETS, PCC_IGNORE_PACKETS). */
#define VIVACE_MI_MIN_PKTS 50
#define VIVACE_IGNORE_PKTS 10
/* RTT inflation below 3% is noise (module PCC_LAT_INFL_FILTER), in ppm. */
#define VIVACE_LAT_FILTER_PPM 30000
/* In the starting phase loss below 10% is ignored (module: loss_ratio < 100
 * per mille in start_mode), so slow-start bursts do not end it early. */
#define VIVACE_START_LOSS_IGNORE_PPM 100000
/* Rate floor: 2 packets per RTT and 1024 B/s (module
 * PCC_RATE_MIN_PACKETS_PER_RTT, PCC_RATE_MIN); ceiling 100 Gbit/s (ours:
 * keeps the fixed-point products below 2^63). */
#define VIVACE_RATE_MIN_PKTS_PER_RTT 2
#define VIVACE_RATE_MIN 1024ULL
#define VIVACE_RATE_MAX 12500000000ULL
/* First rate: the initial window (10 packets) per RTT, as a window-based
 * start would send (ours; the module starts at a fixed 512 KB/s). */
#define VIVACE_INIT_PKTS_PER_RTT 10
/* cwnd = 2 x rate x sRTT, at least 4 packets (module pcc_set_cwnd). */
#define VIVACE_CWND_RTTS 2
#define VIVACE_CWND_MIN 4

#define VIVACE_MIS 4 /* two probing pairs */
#define VIVACE_US 1000000ULL

enum vivace_mode {
	VIVACE_STARTING = 0,
	VIVACE_PROBING = 1,
	VIVACE_MOVING = 2,
};

struct vivace_mi {
	__u64 rate;          /* bytes/s this MI sends at */
	__u64 send_start_us;
	__u64 send_end_us;
	__u64 recv_start_us; /* first and last ACK counted for it */
	__u64 recv_end_us;
	__s64 utility;
	__u32 sent_base;     /* data_segs_out at its start (0: not started) */
	__u32 sent_end;      /* data_segs_out when it stopped sending (0: sending) */
	__u32 start_rtt_us;  /* sRTT at its first and last counted ACK */
	__u32 end_rtt_us;
	__u32 lost;
	__u32 delivered;
};

struct vivace {
	struct vivace_mi mi[VIVACE_MIS];
	__u64 rate;         /* the rate decisions are about */
	__u64 pace_rate;    /* what the sender paces at right now */
	__u64 prev_rate;    /* starting/moving: the last scored rate ... */
	__s64 prev_utility; /* ... and its utility */
	__u32 counted;      /* delivered + lost - spare: packets accounted for */
	__u32 spare;        /* accounting drift after an RTO (module's "spare") */
	__u32 lost_base;    /* tp->lost, tp->delivered at the previous ACK */
	__u32 delivered_base;
	__s32 amplifier;
	__s32 swing_buffer;
	__s32 bound_pm;     /* omega, per mille of the rate */
	__s32 dir;          /* direction of the last move: +1, -1, 0 none */
	__u32 decisions;    /* MIs scored, for tests and curiosity */
	__u8 mode;          /* enum vivace_mode */
	__u8 send_index;    /* MI now sending */
	__u8 recv_index;    /* MI now being acknowledged */
	__u8 wait;          /* all MIs of this round sent: hold the rate */
	__u8 in_loss;       /* TCP_CA_Loss: counters are not trustworthy */
	__u8 have_prev;
	__u8 pad[2];
};

/* What one ACK tells the controller (tcp_sock fields, as the kernel keeps them). */
struct vivace_ack {
	__u64 now_us;    /* tp->tcp_mstamp */
	__u32 segs_out;  /* tp->data_segs_out */
	__u32 delivered; /* tp->delivered */
	__u32 lost;      /* tp->lost */
	__u32 srtt_us;   /* tp->srtt_us >> 3 */
	__u32 mss;       /* tp->mss_cache */
	__u32 rand;      /* random bits: the order of the probing pairs */
};

/* ---- fixed-point helpers ---- */

static __always_inline __u64 vv_abs(__s64 v)
{
	return v < 0 ? (__u64)(-v) : (__u64)v;
}

/* a / b rounded toward zero, b > 0, without a signed division instruction. */
static __always_inline __s64 vv_sdiv(__s64 a, __u64 b)
{
	__u64 q = vv_abs(a) / b;

	return a < 0 ? -(__s64)q : (__s64)q;
}

/* log2(x) in Q16, x >= 1: the integer part is the top bit; each squaring of
 * the mantissa (in [1, 2), Q30) yields one more fractional bit. */
static __always_inline __s64 vv_log2_q16(__u64 x)
{
	__u32 msb = ilog2_u64(x);
	__u64 m = msb >= 30 ? x >> (msb - 30) : x << (30 - msb);
	__s64 frac = 0;
	int i;

	for (i = 15; i >= 0; i--) {
		__u64 bit;

		m = (m * m) >> 30; /* in [1, 4) */
		bit = m >> 31;     /* >= 2: one more bit, renormalise (branch-free:
				    * keeps the verifier's paths linear) */
		m >>= bit;
		frac |= (__s64)bit << i;
	}
	return ((__s64)msb << 16) | frac;
}

#define VV_LN2_Q30 744261118ULL /* ln 2 x 2^30 */

/* 2^y for y in Q16 (may be negative), result in Q16: 2^floor(y) times
 * e^(frac(y) ln 2) by Taylor series, frac(y) ln 2 < 0.7. */
static __always_inline __u64 vv_exp2_q16(__s64 y)
{
	__s64 k = y >> 16; /* floor, arithmetic shift */
	__u64 z = ((__u64)(y & 0xffff) * VV_LN2_Q30) >> 16; /* Q30 */
	__u64 term = 1ULL << 30, sum = 1ULL << 30;
	int i;

	for (i = 1; i <= 12; i++) {
		term = ((term * z) >> 30) / i;
		sum += term;
	}
	/* sum is 2^frac in Q30; the result is sum x 2^k in Q16. */
	if (k >= 14)
		return k - 14 >= 30 ? ~0ULL : sum << (k - 14);
	if (14 - k >= 63)
		return 0;
	return sum >> (14 - k);
}

/* x^0.9 for x in kbit/s, result in thousandths of (Mbit/s)^0.9. */
static __always_inline __u64 vv_pow_t_milli(__u64 x_kbps)
{
	__u64 x_q16 = x_kbps * 65536 / 1000; /* Mbit/s, Q16 */
	__s64 l, y;

	if (!x_q16)
		return 0;
	l = vv_log2_q16(x_q16) - (16LL << 16); /* log2 of x in Mbit/s, Q16 */
	y = vv_sdiv(l * VIVACE_T_NUM, VIVACE_T_DEN);
	return (vv_exp2_q16(y) * 1000) >> 16;
}

/* ---- the utility of one monitor interval ---- */

/*
 * u(x) of a complete MI in thousandths, x = its rate: its delivered and lost
 * packets, the sRTT change between its first and last counted ACK over how
 * long it sent, and how long its ACKs took to come back (for the noise
 * threshold of two packet times).
 *
 * In BPF this is a global function, verified once on its own rather than
 * inline at each of its five call sites.
 */
VV_SUBPROG __s64 vivace_utility(const struct vivace_mi *mi, __u32 mss, int starting)
{
	__u64 x_kbps, throughput = 0, loss_ppm, thresh = 0, rate, send_dur_us, recv_dur_us;
	__u32 delivered, lost;
	__s64 lat_ppm = 0, u, rtt_diff_us;

	if (!mi || !mi->delivered)
		return 0;
	rate = mi->rate;
	delivered = mi->delivered;
	lost = mi->lost;
	rtt_diff_us = (__s64)mi->end_rtt_us - (__s64)mi->start_rtt_us;
	send_dur_us = mi->send_end_us - mi->send_start_us;
	recv_dur_us = mi->recv_end_us - mi->recv_start_us;
	if (rate > VIVACE_RATE_MAX)
		rate = VIVACE_RATE_MAX;
	x_kbps = rate * 8 / 1000;
	if (recv_dur_us)
		throughput = (__u64)delivered * mss * VIVACE_US / recv_dur_us;
	if (throughput)
		thresh = 2 * VIVACE_US * mss / throughput; /* two packet times, us */
	if (send_dur_us) {
		if (rtt_diff_us > 10000000)
			rtt_diff_us = 10000000;
		if (rtt_diff_us < -10000000)
			rtt_diff_us = -10000000;
		lat_ppm = vv_sdiv(rtt_diff_us * (__s64)VIVACE_US, send_dur_us);
		if (lat_ppm > 10000000)
			lat_ppm = 10000000;
		if (lat_ppm < -10000000)
			lat_ppm = -10000000;
	}
	if (vv_abs(rtt_diff_us) < thresh || vv_abs(lat_ppm) < VIVACE_LAT_FILTER_PPM)
		lat_ppm = 0;
	if (starting && lat_ppm < 0)
		lat_ppm = 0;
	loss_ppm = (__u64)lost * VIVACE_US / ((__u64)lost + delivered);
	if (starting && loss_ppm < VIVACE_START_LOSS_IGNORE_PPM)
		loss_ppm = 0;

	u = (__s64)vv_pow_t_milli(x_kbps);
	/* b x lat: 1000 x 900 x (x_kbps / 1000) x (lat_ppm / 1e6) */
	u -= vv_sdiv((__s64)x_kbps * VIVACE_B * lat_ppm, VIVACE_US);
	/* c x L: 1000 x 11.35 x (x_kbps / 1000) x (loss_ppm / 1e6) */
	u -= (__s64)(x_kbps * VIVACE_C_CENTI * loss_ppm / 100000000ULL);
	return u;
}

/* ---- rate control ---- */

static __always_inline __u64 vv_clamp_rate(__u64 rate, __u32 srtt_us, __u32 mss)
{
	__u64 floor = (__u64)VIVACE_RATE_MIN_PKTS_PER_RTT * mss * VIVACE_US / (srtt_us ? srtt_us : 1000);

	if (floor < VIVACE_RATE_MIN)
		floor = VIVACE_RATE_MIN;
	if (rate < floor)
		rate = floor;
	if (rate > VIVACE_RATE_MAX)
		rate = VIVACE_RATE_MAX;
	return rate;
}

/* cwnd that never limits the pacing rate: 2 x rate x sRTT, >= 4 packets. */
static __always_inline __u32 vivace_cwnd(__u64 rate, __u32 srtt_us, __u32 mss)
{
	__u64 cwnd = rate * VIVACE_CWND_RTTS * (srtt_us ? srtt_us : 1000) / VIVACE_US / (mss ? mss : 1);

	if (cwnd < VIVACE_CWND_MIN)
		cwnd = VIVACE_CWND_MIN;
	return cwnd > 0x7fffffff ? 0x7fffffff : (__u32)cwnd;
}

static __always_inline struct vivace_mi *vv_mi(struct vivace *v, __u32 i)
{
	VV_OPAQUE(i);
	return &v->mi[i & (VIVACE_MIS - 1)];
}

/* Sends the next MI (or keeps v->rate while waiting for the ACKs). */
static __always_inline void vv_start_interval(struct vivace *v, const struct vivace_ack *a)
{
	__u64 rate = v->rate;

	if (!v->wait) {
		struct vivace_mi *mi = vv_mi(v, v->send_index);

		mi->sent_end = 0;
		mi->lost = 0;
		mi->delivered = 0;
		mi->sent_base = a->segs_out ? a->segs_out : 1;
		mi->send_start_us = a->now_us;
		mi->send_end_us = a->now_us;
		mi->recv_start_us = 0;
		mi->recv_end_us = 0;
		rate = mi->rate;
	}
	v->pace_rate = vv_clamp_rate(rate, a->srtt_us, a->mss);
}

static __always_inline void vv_setup_single(struct vivace *v, __u8 mode)
{
	v->mode = mode;
	v->mi[0].rate = v->rate;
	v->mi[0].sent_base = 0;
	v->send_index = 0;
	v->recv_index = 0;
	v->wait = 0;
}

static __always_inline void vv_setup_probing(struct vivace *v, __u32 rand)
{
	__u64 hi = v->rate * (100 + VIVACE_EPS_PCT) / 100;
	__u64 lo = v->rate * (100 - VIVACE_EPS_PCT) / 100;
	int i;

	v->mode = VIVACE_PROBING;
	for (i = 0; i < VIVACE_MIS; i += 2) {
		int lo_first = (rand >> (i / 2)) & 1;

		v->mi[i].rate = lo_first ? lo : hi;
		v->mi[i + 1].rate = lo_first ? hi : lo;
		v->mi[i].sent_base = 0;
		v->mi[i + 1].sent_base = 0;
	}
	v->send_index = 0;
	v->recv_index = 0;
	v->wait = 0;
}

/*
 * theta0 x gamma in bytes/s: gamma = du / dx with u in thousandths and x in
 * Mbit/s (125000 B/s). 0 when the rates are too close for a usable gradient.
 */
static __always_inline __s64 vv_grad_step(__u64 r1, __s64 u1, __u64 r2, __s64 u2)
{
	__u64 dr = r2 > r1 ? r2 - r1 : r1 - r2;
	__s64 du = u2 - u1;

	if (!r1 || dr * 1000 / r1 < VIVACE_MIN_DIFF_PM)
		return 0;
	if (r2 < r1)
		du = -du;
	if (du > 1000000000LL)
		du = 1000000000LL;
	if (du < -1000000000LL)
		du = -1000000000LL;
	/* theta0 x (du / 1000) / (dr / 125000) */
	return vv_sdiv(du * (__s64)(VIVACE_THETA0_BPS * 125), dr);
}

/* Amplifier, change boundary and minimum step applied to a raw step. */
static __always_inline __s64 vv_shape_step(struct vivace *v, __s64 step)
{
	__u64 mag, cap, min_step;

	mag = vv_abs(step) * (__u64)v->amplifier;
	cap = v->rate * (__u64)v->bound_pm / 1000;
	if (mag > cap) {
		mag = cap;
		v->bound_pm += VIVACE_BOUND_STEP_PM;
	} else {
		v->bound_pm = VIVACE_BOUND_MIN_PM;
	}
	min_step = v->rate * VIVACE_MIN_STEP_PM / 1000;
	if (mag < min_step)
		mag = min_step;
	return step < 0 ? -(__s64)mag : (__s64)mag;
}

static __always_inline void vv_move_by(struct vivace *v, __s64 step, const struct vivace_ack *a)
{
	__s64 r = (__s64)v->rate + step;

	v->rate = vv_clamp_rate(r > 0 ? (__u64)r : 0, a->srtt_us, a->mss);
}

static __always_inline void vv_decide_starting(struct vivace *v, const struct vivace_ack *a)
{
	__s64 u = vivace_utility(&v->mi[0], a->mss, 1);

	if (!v->have_prev || u > v->prev_utility) {
		v->have_prev = 1;
		v->prev_utility = u;
		v->prev_rate = v->rate;
		v->rate = vv_clamp_rate(v->rate * 2, a->srtt_us, a->mss);
		vv_setup_single(v, VIVACE_STARTING);
	} else {
		v->rate = v->prev_rate; /* the last rate whose utility rose */
		vv_setup_probing(v, a->rand);
	}
}

static __always_inline void vv_decide_probing(struct vivace *v, const struct vivace_ack *a)
{
	__s64 u[VIVACE_MIS];
	__s64 g0, g1;
	int i, d0, d1;

	for (i = 0; i < VIVACE_MIS; i++)
		u[i] = vivace_utility(&v->mi[i], a->mss, 0);
	/* Per pair, the step the gradient asks for (from lower to higher rate). */
	g0 = vv_grad_step(v->mi[0].rate, u[0], v->mi[1].rate, u[1]);
	g1 = vv_grad_step(v->mi[2].rate, u[2], v->mi[3].rate, u[3]);
	d0 = g0 > 0 ? 1 : (g0 < 0 ? -1 : 0);
	d1 = g1 > 0 ? 1 : (g1 < 0 ? -1 : 0);
	if (d0 == 0 || d0 != d1) {
		vv_setup_probing(v, a->rand); /* inconclusive: stay and probe again */
		return;
	}
	/* The second pair's winner is where the move starts from. */
	if ((u[3] > u[2]) == (v->mi[3].rate > v->mi[2].rate)) {
		v->prev_rate = v->mi[3].rate;
		v->prev_utility = u[3];
	} else {
		v->prev_rate = v->mi[2].rate;
		v->prev_utility = u[2];
	}
	v->have_prev = 1;
	if (d0 != v->dir) {
		v->amplifier = VIVACE_AMP_MIN;
		v->bound_pm = VIVACE_BOUND_MIN_PM;
	}
	v->dir = d0;
	v->rate = v->prev_rate;
	vv_move_by(v, vv_shape_step(v, vv_sdiv(g0 + g1, 2)), a);
	vv_setup_single(v, VIVACE_MOVING);
}

static __always_inline void vv_decide_moving(struct vivace *v, const struct vivace_ack *a)
{
	__s64 u = vivace_utility(&v->mi[0], a->mss, 0);
	__s64 step = vv_grad_step(v->prev_rate, v->prev_utility, v->rate, u);
	int d = step > 0 ? 1 : (step < 0 ? -1 : v->dir);

	if (d == v->dir) {
		if (v->swing_buffer > 0)
			v->swing_buffer--;
		else
			v->amplifier++;
	} else {
		/* A reversal: start small and careful again. */
		v->swing_buffer = v->swing_buffer + 1 < VIVACE_SWING_MAX ? v->swing_buffer + 1 : VIVACE_SWING_MAX;
		v->amplifier = VIVACE_AMP_MIN;
		v->bound_pm = VIVACE_BOUND_MIN_PM;
	}
	if (!step)
		step = d; /* gradient unusable: keep going the same way, minimum step */
	v->prev_rate = v->rate;
	v->prev_utility = u;
	vv_move_by(v, vv_shape_step(v, step), a);
	if (d != v->dir) {
		v->dir = d;
		vv_setup_probing(v, a->rand);
	} else {
		vv_setup_single(v, VIVACE_MOVING);
	}
}

/* An MI has sent enough: its minimum packets, and its first packet is back. */
static __always_inline int vv_send_ended(struct vivace *v, struct vivace_mi *mi, const struct vivace_ack *a)
{
	if ((__s32)(a->segs_out - mi->sent_base) < VIVACE_MI_MIN_PKTS)
		return 0;
	if ((__s32)(v->counted - mi->sent_base) > 0) {
		mi->sent_end = a->segs_out;
		return 1;
	}
	return 0;
}

/* An MI is complete: all but its last few packets are accounted for. */
static __always_inline int vv_recv_ended(const struct vivace *v, const struct vivace_mi *mi)
{
	return mi->sent_end && (__s32)(v->counted - (mi->sent_end - VIVACE_IGNORE_PKTS)) > 0;
}

static __always_inline void vv_init(struct vivace *v, const struct vivace_ack *a)
{
	__builtin_memset(v, 0, sizeof(*v));
	v->amplifier = VIVACE_AMP_MIN;
	v->bound_pm = VIVACE_BOUND_MIN_PM;
	v->rate = vv_clamp_rate((__u64)VIVACE_INIT_PKTS_PER_RTT * a->mss * VIVACE_US /
				(a->srtt_us ? a->srtt_us : 100000), a->srtt_us, a->mss);
	v->counted = a->delivered + a->lost;
	v->lost_base = a->lost;
	v->delivered_base = a->delivered;
	vv_setup_single(v, VIVACE_STARTING);
	vv_start_interval(v, a);
}

/* Every ACK: close the sending MI, count this ACK into the MI being
 * acknowledged, and decide when it is complete. v->pace_rate is the answer. */
static __always_inline void vv_on_ack(struct vivace *v, const struct vivace_ack *a)
{
	struct vivace_mi *mi;
	__u32 before;

	if (v->in_loss)
		goto end;
	if (!v->wait) {
		mi = vv_mi(v, v->send_index);
		if (vv_send_ended(v, mi, a)) {
			mi->send_end_us = a->now_us;
			v->send_index++;
			if (v->send_index >= VIVACE_MIS || v->mode != VIVACE_PROBING)
				v->wait = 1;
			vv_start_interval(v, a);
		}
	}

	mi = vv_mi(v, v->recv_index);
	before = v->counted;
	v->counted = a->delivered + a->lost - v->spare;
	if (!mi->sent_base)
		goto end;
	if ((__s32)(before - (mi->sent_base + VIVACE_IGNORE_PKTS)) > 0) {
		if (mi->lost + mi->delivered == 0) {
			mi->recv_start_us = a->now_us;
			mi->start_rtt_us = a->srtt_us;
		}
		mi->recv_end_us = a->now_us;
		mi->end_rtt_us = a->srtt_us;
		mi->lost += a->lost - v->lost_base;
		mi->delivered += a->delivered - v->delivered_base;
	}
	if (vv_recv_ended(v, mi)) {
		v->recv_index++;
		v->decisions++;
		if (v->mode == VIVACE_STARTING) {
			vv_decide_starting(v, a);
			vv_start_interval(v, a);
		} else if (v->mode == VIVACE_MOVING) {
			vv_decide_moving(v, a);
			vv_start_interval(v, a);
		} else if (v->recv_index >= VIVACE_MIS) {
			vv_decide_probing(v, a);
			vv_start_interval(v, a);
		}
	}
end:
	v->lost_base = a->lost;
	v->delivered_base = a->delivered;
}

/* Entering TCP_CA_Loss (an RTO): hold the rate and stop measuring. */
static __always_inline void vv_enter_loss(struct vivace *v)
{
	v->in_loss = 1;
	v->wait = 1;
	v->pace_rate = v->rate;
}

/* Leaving it: retransmissions made delivered + lost drift from
 * data_segs_out; note the drift (module's "spare") and probe afresh. */
static __always_inline void vv_leave_loss(struct vivace *v, const struct vivace_ack *a, __u32 in_flight)
{
	v->spare = a->delivered + a->lost + in_flight - a->segs_out;
	v->counted = a->delivered + a->lost - v->spare;
	v->in_loss = 0;
	vv_setup_probing(v, a->rand);
	vv_start_interval(v, a);
}

#endif /* VIVACE_LOGIC_H */
