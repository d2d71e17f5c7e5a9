/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copa (Arun and Balakrishnan, "Copa: Practical Delay-Based Congestion
 * Control for the Internet", NSDI 2018), the decision part, as plain C that
 * bpf/copa.bpf.c and the host test bpf/tests/copa_logic_test.c compile.
 *
 * Copa aims at a sending rate that, under a Markovian model of packet
 * arrivals, maximises log(throughput) - delta * log(delay); the paper shows
 * that rate is
 *
 *     lambda_t = 1 / (delta * d_q)                       (paper, eq. 1)
 *
 * packets per second, d_q the queueing delay, so a flow alone on a link of
 * mu packets/s sits where d_q = 1/(delta * mu): 1/delta packets of standing
 * queue, two at the default delta = 0.5. Every ACK:
 *
 *   1. RTTstanding = the smallest RTT of the last srtt/2 (a queue that has
 *      lasted that long is real, not ACK jitter), RTTmin = the smallest of
 *      the last 10 s; d_q = RTTstanding - RTTmin.
 *   2. The current rate is lambda = cwnd / RTTstanding. If lambda <=
 *      lambda_t, cwnd += v / (delta * cwnd), otherwise cwnd -= v / (delta *
 *      cwnd) (per packet acknowledged): one RTT moves cwnd by v/delta
 *      packets toward the target.
 *   3. The velocity v starts at 1. Once an RTT the window is compared with
 *      the one recorded an RTT ago: up or down. After three RTTs in the same
 *      direction v doubles every RTT; a change of direction resets it to 1
 *      (at once when the per-ACK decision flips while v > 1, as mvfst's
 *      Copa.cpp does, so a large v never pushes the wrong way).
 *   4. Slow start: cwnd doubles per RTT (+1 per packet acknowledged) until
 *      the rate first exceeds the target.
 *   5. Pacing at 2 * cwnd / RTTstanding, so that ACK clocking, not the
 *      pacer, limits the window while packets are spread over the RTT.
 *
 * Competitive mode (paper section 2.2). Next to a buffer-filling flow
 * (Cubic) the queue never empties and Copa's target would starve it. A Copa
 * flow alone drains the queue regularly (its window oscillates around the
 * target, about once every five RTTs), so Copa watches for that: the queue
 * counts as nearly empty when an RTT sample is within 10 % of the recent
 * span (the largest RTT of the last five RTTs less RTTmin) above RTTmin. If
 * that has happened within the last five RTTs, the default mode (delta =
 * 0.5); if not, the competitive mode, where 1/delta grows by 1 every RTT
 * and halves on a loss (at most once an RTT), an AIMD on 1/delta that lets
 * Copa claim a share as Reno would; 1/delta never falls below the
 * default's 2 (genericCC's update_delta()).
 *
 * Sources read (none copied): the paper; the authors' genericCC
 * (venkatarun95/genericCC, markoviancc.cc: update_intersend_time(),
 * update_delta(); rtt-window.cc: is_copa()); mvfst (facebook/mvfst,
 * quic/congestion_control/Copa.cpp: onPacketAcked(),
 * checkAndUpdateDirection(), changeDirection()).
 *
 * Where ours differs, and why:
 *  - d_q from RTTstanding, as the paper says. mvfst's default
 *    (copaUseRttStanding off) takes the latest RTT instead.
 *  - The mode switch watches five RTTs, as the paper's text; genericCC's
 *    is_copa() uses windows of four smoothed RTTs. It also compares the
 *    minimum RTT of that window with the threshold; we remember when a
 *    sample last fell under it, which is the same test without a windowed
 *    minimum (a three-sample estimator can miss a brief dip, and the dips
 *    are what this test looks for).
 *  - RTTmin, RTTstanding and the recent maximum are Nichols' three-sample
 *    windowed estimator (win_minmax.h) instead of genericCC's deque of
 *    every sample: constant space per socket, as BPF needs, at the price of
 *    an answer up to a quarter window stale.
 *  - v is halved while v/delta exceeds cwnd (genericCC's bound on
 *    update_amt), so one RTT never changes the window by more than itself.
 *  - The window grows only while the flight fills it (the kernel's
 *    tcp_is_cwnd_limited()): neither reference has an application- or
 *    receiver-limited sender, and without this an idle or rwnd-limited
 *    flow would grow cwnd without bound, since its RTT shows no queue.
 *  - Loss in the default mode changes nothing (the paper; mvfst). An RTO
 *    (TCP's persistent congestion) sets cwnd to the minimum as mvfst does,
 *    and restarts slow start, which mvfst leaves as a TODO: after a timeout
 *    the path's state is unknown and the target takes RTTs to measure.
 *  - 1/delta is capped at 65 536 in the competitive mode (ours: keeps the
 *    fixed-point products in range; far beyond any share a loss allows).
 *  - Minimum cwnd 2 packets (genericCC and mvfst's minCwndInMss).
 *  - "Nearly empty" is also a queue of at most three packets' transmission
 *    (1/delta = 2 of the default mode's equilibrium and the one in
 *    service, capped at a tenth of RTTmin), however small 10 % of the
 *    span is: RTTmin is the luckiest
 *    sample of 10 s, and on a slotted link the best of five RTTs sits a
 *    packet or two above it; without the margin a lone flow went
 *    competitive on a steady 24 Mbit/s link (copa_update_mode()).
 *
 * Fixed point, no floating point (this runs per ACK in BPF): cwnd in 1/1024
 * packet, 1/delta in 1/256, times in µs, rates in bytes/s. The rate test
 * lambda <= lambda_t is cwnd * d_q <= RTTstanding / delta, a product of
 * integers, so no rate is ever divided out.
 */
#ifndef COPA_LOGIC_H
#define COPA_LOGIC_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

#include "win_minmax.h"

#define COPA_CWND_SHIFT 10			/* cwnd in 1/1024 packet */
#define COPA_INV_DELTA_SHIFT 8			/* 1/delta in 1/256 */
#define COPA_INV_DELTA_DEFAULT (2u << COPA_INV_DELTA_SHIFT) /* delta = 0.5 */
#define COPA_INV_DELTA_STEP (1u << COPA_INV_DELTA_SHIFT)    /* +1 per RTT */
#define COPA_INV_DELTA_MAX (1u << 24)		/* 1/delta <= 65 536 (ours) */
#define COPA_MIN_RTT_WIN_US 10000000u		/* RTTmin: the last 10 s */
#define COPA_SAME_DIRECTION_RTTS 3		/* before v starts doubling */
#define COPA_MODE_WIN_RTTS 5			/* the queue must empty within */
#define COPA_EMPTY_PCT 10			/* "nearly empty": within 10 % */
#define COPA_EMPTY_PKTS 3			/* or 3 packets (ours: below) */
#define COPA_MIN_CWND 2u			/* packets */
#define COPA_MAX_CWND (1u << 20)		/* packets (ours: arithmetic) */
#define COPA_MAX_VELOCITY (1u << 16)
#define COPA_PACING_GAIN 2			/* pacing at 2 cwnd / RTTstanding */
#define COPA_MAX_ACKED (1u << 16)		/* packets in one ACK (ours) */

enum copa_direction {
	COPA_DIR_NONE = 0,
	COPA_DIR_UP = 1,
	COPA_DIR_DOWN = 2,
};

struct copa {
	struct win_minmax min_rtt;	/* RTTmin: min over 10 s */
	struct win_minmax standing;	/* RTTstanding: min over srtt/2 */
	struct win_minmax recent_max;	/* max over the last 5 RTTs */
	__u64 cwnd_fp;			/* packets << COPA_CWND_SHIFT */
	__u64 record_cwnd_fp;		/* cwnd when the direction was last taken */
	__u64 pacing_rate;		/* bytes/s */
	__u32 inv_delta;		/* 1/delta << COPA_INV_DELTA_SHIFT */
	__u32 velocity;
	__u32 record_t;			/* µs: when the direction was last taken */
	__u32 delta_t;			/* µs: last competitive +1 */
	__u32 loss_t;			/* µs: last competitive halving */
	__u32 empty_t;			/* µs: the queue last seen nearly empty */
	__u32 rtt_standing_us;		/* the latest values, for export and tests */
	__u32 rtt_min_us;
	__u32 mode_switches;		/* default <-> competitive, both ways */
	__u8 direction;			/* enum copa_direction */
	__u8 same_direction;		/* RTTs the direction has been the same */
	__u8 slow_start;
	__u8 competitive;
	__u8 have_rtt;
	__u8 have_record;
	__u8 mode_switch;		/* 0: delta stays 0.5 (mvfst's Copa) */
	__u8 pad;
};

/* What the sender knows at one ACK. */
struct copa_ack {
	__u64 now_us;
	__s64 rtt_us;		/* this ACK's RTT sample; < 0: none */
	__u32 srtt_us;		/* the connection's smoothed RTT */
	__u32 acked;		/* packets newly acknowledged (and SACKed) */
	__u32 losses;		/* packets newly marked lost */
	__u32 mss;
	__u8 cwnd_limited;	/* the flight fills cwnd (may grow) */
};

static __always_inline __u32 copa_cwnd(const struct copa *c)
{
	return (__u32)(c->cwnd_fp >> COPA_CWND_SHIFT);
}

static __always_inline void copa_set_cwnd(struct copa *c, __u64 cwnd_fp)
{
	if (cwnd_fp < ((__u64)COPA_MIN_CWND << COPA_CWND_SHIFT))
		cwnd_fp = (__u64)COPA_MIN_CWND << COPA_CWND_SHIFT;
	if (cwnd_fp > ((__u64)COPA_MAX_CWND << COPA_CWND_SHIFT))
		cwnd_fp = (__u64)COPA_MAX_CWND << COPA_CWND_SHIFT;
	c->cwnd_fp = cwnd_fp;
}

static __always_inline void copa_reset_velocity(struct copa *c)
{
	c->velocity = 1;
	c->same_direction = 0;
}

static __always_inline void copa_start(struct copa *c, __u64 now_us, __u32 init_cwnd, int mode_switch)
{
	__builtin_memset(c, 0, sizeof(*c));
	c->mode_switch = !!mode_switch;
	copa_set_cwnd(c, (__u64)init_cwnd << COPA_CWND_SHIFT);
	c->inv_delta = COPA_INV_DELTA_DEFAULT;
	c->velocity = 1;
	c->slow_start = 1;
	c->record_t = (__u32)now_us;
}

/* Pacing rate for a window over RTTstanding (bytes/s), at least one packet
 * per RTT's worth of bytes over a second. */
static __always_inline __u64 copa_pacing_rate(__u64 cwnd_fp, __u32 rtt_us, __u32 mss)
{
	__u64 bytes = (cwnd_fp * mss) >> COPA_CWND_SHIFT;

	if (!rtt_us)
		rtt_us = 1;
	return COPA_PACING_GAIN * bytes * 1000000ULL / rtt_us;
}

/*
 * The rate test: is lambda = cwnd / RTTstanding at or below lambda_t =
 * 1 / (delta * d_q)? Equivalently cwnd * d_q <= RTTstanding / delta, with
 * cwnd in 1/1024 packet and 1/delta in 1/256: both sides in the same unit
 * after multiplying the right by 4. No queue at all: the target is
 * infinite.
 */
static __always_inline int copa_below_target(__u64 cwnd_fp, __u32 standing_us, __u32 min_us,
					     __u32 inv_delta)
{
	__u32 dq = standing_us > min_us ? standing_us - min_us : 0;

	if (!dq)
		return 1;
	return cwnd_fp * dq <= ((__u64)standing_us * inv_delta) << (COPA_CWND_SHIFT - COPA_INV_DELTA_SHIFT);
}

/* Once an RTT: the direction the window took, and the velocity. */
static __always_inline void copa_update_direction(struct copa *c, __u32 now, __u32 srtt_us)
{
	__u8 dir;

	if (!c->have_record) {
		c->have_record = 1;
		c->record_t = now;
		c->record_cwnd_fp = c->cwnd_fp;
		return;
	}
	if (now - c->record_t < srtt_us)
		return;
	dir = c->cwnd_fp > c->record_cwnd_fp ? COPA_DIR_UP : COPA_DIR_DOWN;
	if (dir != c->direction) {
		copa_reset_velocity(c);
	} else {
		if (c->same_direction < 255)
			c->same_direction++;
		if (c->same_direction >= COPA_SAME_DIRECTION_RTTS && c->velocity < COPA_MAX_VELOCITY)
			c->velocity <<= 1;
	}
	c->direction = dir;
	c->record_t = now;
	c->record_cwnd_fp = c->cwnd_fp;
}

/* The per-ACK decision went against the direction a large v was built for:
 * back to v = 1, and the direction taken from here. */
static __always_inline void copa_change_direction(struct copa *c, __u8 dir, __u32 now)
{
	if (c->direction == dir || c->velocity <= 1)
		return;
	c->direction = dir;
	copa_reset_velocity(c);
	c->record_t = now;
	c->record_cwnd_fp = c->cwnd_fp;
}

/* The mode, and delta with it (genericCC's update_delta()). `rtt` is this
 * ACK's sample: the queue is nearly empty when it is within 10 % of the
 * recent span above RTTmin; competitive when that has not happened for five
 * RTTs. */
static __always_inline void copa_update_mode(struct copa *c, const struct copa_ack *a, __u32 now,
					     __u32 rtt, int has_rtt, __u32 min_us, __u32 recent_max)
{
	__u32 above = rtt > min_us ? rtt - min_us : 0;
	__u32 span = recent_max > min_us ? recent_max - min_us : 0;
	__u8 competitive;

	/* One packet's transmission (RTTstanding / cwnd) is the finest queue a
	 * sample can show. A queue of COPA_EMPTY_PKTS of them counts as empty:
	 * the default mode's own equilibrium (1/delta = 2 packets) plus the one
	 * in service. RTTmin is the luckiest sample of 10 s, and a link that
	 * serves in slots (a cellular TTI, the emulator's 1 ms opportunities)
	 * or an ACK that waits for its pair puts the best sample of five RTTs
	 * a packet or two above it: without this margin a lone flow at 24
	 * Mbit/s never saw its queue "empty" (its best sample of five RTTs
	 * ~0.9 ms above RTTmin, a packet 0.5 ms), went competitive and, with
	 * nothing lost on a deep buffer, grew its queue without bound. */
	__u32 pkt_us = (__u32)(((__u64)c->rtt_standing_us << COPA_CWND_SHIFT) / c->cwnd_fp);
	/* At most a tenth of RTTmin: the packet time is our own (RTT / cwnd),
	 * longer than the link's when we share it, and a collapsed window
	 * beside a buffer-filler must not call its queue of tens of ms empty. */
	__u32 margin_us = COPA_EMPTY_PKTS * pkt_us < min_us / 10 ? COPA_EMPTY_PKTS * pkt_us : min_us / 10;

	if (has_rtt && ((__u64)above * 100 <= (__u64)span * COPA_EMPTY_PCT || above <= margin_us))
		c->empty_t = now;
	competitive = c->mode_switch && now - c->empty_t > COPA_MODE_WIN_RTTS * a->srtt_us;
	if (competitive != c->competitive) {
		c->competitive = competitive;
		c->mode_switches++;
		c->delta_t = now;
		c->loss_t = now;
	}
	if (!competitive) {
		c->inv_delta = COPA_INV_DELTA_DEFAULT;
		return;
	}
	if (a->losses && now - c->loss_t >= a->srtt_us) {
		c->inv_delta >>= 1;
		c->loss_t = now;
		c->delta_t = now;
	} else if (now - c->delta_t >= a->srtt_us) {
		c->inv_delta += COPA_INV_DELTA_STEP;
		c->delta_t = now;
	}
	if (c->inv_delta < COPA_INV_DELTA_DEFAULT)
		c->inv_delta = COPA_INV_DELTA_DEFAULT;
	if (c->inv_delta > COPA_INV_DELTA_MAX)
		c->inv_delta = COPA_INV_DELTA_MAX;
}

/* One ACK. The window and pacing rate to apply are copa_cwnd(c) and
 * c->pacing_rate. */
static __always_inline void copa_on_ack(struct copa *c, const struct copa_ack *a)
{
	__u32 now = (__u32)a->now_us;
	__u32 srtt = a->srtt_us ? a->srtt_us : 1;
	__u32 min_us, standing_us, recent_max, acked, rtt = 0;
	__u64 step_fp, change_fp;
	int increase;

	if (a->rtt_us >= 0) {
		rtt = a->rtt_us > 0xffffffffLL ? 0xffffffffu : (__u32)a->rtt_us;
		if (!c->have_rtt) {
			c->have_rtt = 1;
			win_reset(&c->min_rtt, now, rtt);
			win_reset(&c->standing, now, rtt);
			win_reset(&c->recent_max, now, rtt);
			c->empty_t = now;
		}
		win_min(&c->min_rtt, COPA_MIN_RTT_WIN_US, now, rtt);
		win_min(&c->standing, srtt / 2, now, rtt);
		win_max(&c->recent_max, COPA_MODE_WIN_RTTS * srtt, now, rtt);
	}
	if (!c->have_rtt)
		return;
	min_us = win_get(&c->min_rtt);
	standing_us = win_get(&c->standing);
	recent_max = win_get(&c->recent_max);
	if (standing_us < min_us) /* the estimators' staleness: never below */
		standing_us = min_us;
	c->rtt_min_us = min_us;
	c->rtt_standing_us = standing_us;

	copa_update_mode(c, a, now, rtt, a->rtt_us >= 0, min_us, recent_max);

	increase = copa_below_target(c->cwnd_fp, standing_us, min_us, c->inv_delta);
	if (!(increase && c->slow_start))
		copa_update_direction(c, now, srtt);

	acked = a->acked < COPA_MAX_ACKED ? a->acked : COPA_MAX_ACKED;
	/* v/delta may not exceed cwnd: halve v while it does (genericCC). */
	if (c->velocity > 1 &&
	    (__u64)c->velocity * c->inv_delta > (c->cwnd_fp >> (COPA_CWND_SHIFT - COPA_INV_DELTA_SHIFT)))
		c->velocity >>= 1;
	/* v/delta packets per RTT, spread over the cwnd packets of the RTT. */
	step_fp = ((__u64)c->velocity * c->inv_delta) << (COPA_CWND_SHIFT - COPA_INV_DELTA_SHIFT);
	if (step_fp > c->cwnd_fp) /* until the halving has caught up */
		step_fp = c->cwnd_fp;
	change_fp = ((__u64)acked * step_fp << COPA_CWND_SHIFT) / c->cwnd_fp;

	if (increase) {
		if (!a->cwnd_limited) {
			/* not using the window: no evidence it may grow */
		} else if (c->slow_start) {
			copa_set_cwnd(c, c->cwnd_fp + ((__u64)acked << COPA_CWND_SHIFT));
		} else {
			copa_change_direction(c, COPA_DIR_UP, now);
			copa_set_cwnd(c, c->cwnd_fp + change_fp);
		}
	} else {
		copa_change_direction(c, COPA_DIR_DOWN, now);
		c->slow_start = 0;
		copa_set_cwnd(c, c->cwnd_fp > change_fp ? c->cwnd_fp - change_fp : 0);
	}
	c->pacing_rate = copa_pacing_rate(c->cwnd_fp, standing_us, a->mss);
}

/* A retransmission timeout: TCP's persistent congestion. The window goes to
 * the minimum, as mvfst's Copa does, and slow start begins again. */
static __always_inline void copa_on_rto(struct copa *c, __u32 mss)
{
	copa_set_cwnd(c, (__u64)COPA_MIN_CWND << COPA_CWND_SHIFT);
	c->slow_start = 1;
	c->direction = COPA_DIR_NONE;
	c->have_record = 0;
	copa_reset_velocity(c);
	c->pacing_rate = copa_pacing_rate(c->cwnd_fp, c->rtt_standing_us ? c->rtt_standing_us : 1000, mss);
}

#endif /* COPA_LOGIC_H */
