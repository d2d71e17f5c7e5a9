/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ABC's sender (Accel-Brake Control, Goyal et al., NSDI 2020): the router
 * (crates/emu/src/queue/abc.rs) leaves each ECN-capable packet ECT
 * ("accelerate") or sets CE ("brake"); the receiver echoes every mark; the
 * sender moves its window by +1 per accelerate and -1 per brake. If a
 * fraction f of an RTT's packets are accelerates, the window changes by
 * w·(2f - 1) in that RTT, so the sending rate one RTT later is 2f times the
 * rate that drew the marks: the router picks f = target rate / (2 x current
 * rate) and the senders reach the target rate within an RTT.
 *
 * On top, ABC adds Reno's additive increase (+1 per window of delivered
 * packets), which makes competing ABC flows converge to fairness, and keeps
 * at least ABC_MIN_CWND packets in flight (the authors' floor of 5).
 *
 * Per ACK the sender needs how many packets the ACK newly delivered and how
 * many of those carried CE. The kernel counts both, tp->delivered and
 * tp->delivered_ce, from the receiver's echo (Accurate ECN's CE counter, or
 * the ECE flag of a DCTCP-style echo); the deltas since the previous ACK
 * are the accelerates and brakes. A real loss halves the window once per
 * recovery episode, as Reno does (the authors' module ignores losses).
 *
 * The echo: every mark must reach the sender, so the receiver runs this
 * congestion control too and echoes CE per packet as DCTCP's receiver does
 * (ce_echo.h says why not Accurate ECN on this kernel).
 */
#ifndef ABC_LOGIC_H
#define ABC_LOGIC_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

#include "ce_echo.h"

#define ABC_MIN_CWND 5u      /* the authors' floor (tcp_abc.c) */
#define ABC_PACING_GAIN 2u   /* pace at 2 x cwnd / sRTT, as tcp_abc.c */

struct abc_state {
	__u32 prior_delivered;    /* tp->delivered at the previous ACK */
	__u32 prior_delivered_ce; /* tp->delivered_ce at the previous ACK */
	__u32 ai_count;           /* delivered packets toward the next +1 */
	__u32 undo_cwnd;          /* the window before the last loss halving */
	__u32 accelerates;        /* totals, for tests and debugging */
	__u32 brakes;
	struct ce_echo echo;      /* receiver: the per-packet CE echo */
};

static __always_inline void abc_init_state(struct abc_state *s, __u32 delivered,
					   __u32 delivered_ce, __u32 cwnd)
{
	s->prior_delivered = delivered;
	s->prior_delivered_ce = delivered_ce;
	s->ai_count = 0;
	s->undo_cwnd = cwnd;
	s->accelerates = 0;
	s->brakes = 0;
	s->echo.prior_rcv_nxt = 0;
	s->echo.ce_state = 0;
}

/*
 * The window after an ACK, given the kernel's cumulative counters now.
 * `grow` is 0 while the connection recovers from a loss: brakes still
 * count, accelerates and the additive increase wait until it is over.
 */
static __always_inline __u32 abc_on_ack(struct abc_state *s, __u32 cwnd, __u32 delivered,
					__u32 delivered_ce, int grow)
{
	__u32 acked = delivered - s->prior_delivered;
	__u32 ce = delivered_ce - s->prior_delivered_ce;
	__s64 w = cwnd;

	s->prior_delivered = delivered;
	s->prior_delivered_ce = delivered_ce;
	if (ce > acked) /* a CE count ahead of delivery: never more brakes than packets */
		ce = acked;
	s->accelerates += acked - ce;
	s->brakes += ce;
	if (grow) {
		w += (__s64)(acked - ce);
		s->ai_count += acked;
		if (s->ai_count >= cwnd) {
			s->ai_count -= cwnd;
			w += 1;
		}
	}
	w -= ce;
	if (w < ABC_MIN_CWND)
		w = ABC_MIN_CWND;
	if (w > 0x7fffffff)
		w = 0x7fffffff;
	return (__u32)w;
}

/* Reno's reaction to a real loss: half the window, remembered for undo. */
static __always_inline __u32 abc_on_loss(struct abc_state *s, __u32 cwnd)
{
	__u32 half = cwnd / 2;

	s->undo_cwnd = cwnd;
	return half < ABC_MIN_CWND ? ABC_MIN_CWND : half;
}

/* Pacing rate, bytes/s: ABC_PACING_GAIN x cwnd x mss / sRTT (0: no RTT yet). */
static __always_inline __u64 abc_pacing_rate(__u32 cwnd, __u32 mss, __u32 srtt_us)
{
	if (!srtt_us)
		return 0;
	return (__u64)ABC_PACING_GAIN * cwnd * mss * 1000000ull / srtt_us;
}

#endif /* ABC_LOGIC_H */
