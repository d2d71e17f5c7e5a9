/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compound TCP (Tan, Song, Zhang, Sridharan, "A Compound TCP Approach for
 * High-Speed and Long Distance Networks", INFOCOM 2006; IETF draft
 * draft-sridharan-tcpm-ctcp), the decision part, as Windows runs it.
 *
 * The sending window is the sum of two windows,
 *
 *     win = cwnd + dwnd,
 *
 * cwnd the loss-based one (Reno: +1/win per ACK, halved on loss) and dwnd the
 * delay-based one, which adds a scalable (HighSpeed-like) increase while the
 * path shows no queue and retreats as the queue grows, so the sum stays
 * roughly flat at the point where the queue starts to build. Once per RTT,
 * with baseRTT the smallest RTT seen and RTT the round's smallest, the
 * packets the flow keeps queued are, as in Vegas,
 *
 *     diff = win x (RTT - baseRTT) / RTT,
 *
 * and (paper §3, draft §3):
 *
 *     diff <  gamma:  dwnd += max(alpha x win^k - 1, 0)
 *     diff >= gamma:  dwnd  = max(dwnd - zeta x diff, 0)
 *     on loss:        dwnd  = max(win x (1 - beta) - cwnd / 2, 0)
 *
 * with alpha = 1/8, beta = 1/2, k = 3/4, zeta = 1 and gamma = 30 packets.
 * The delay component works only once win exceeds low_wnd = 41 packets;
 * below it CTCP is Reno. Windows' later gamma auto-tuning (TUBE) is not
 * here: gamma is the paper's fixed 30.
 *
 * win^(3/4) in integers: the fourth root of win^3, by two integer square
 * roots, with 4 fractional bits kept (win capped at 2^15 packets for it).
 */
#ifndef COMPOUND_LOGIC_H
#define COMPOUND_LOGIC_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

#define CTCP_ALPHA_SHIFT 3u  /* alpha = 1/8 */
#define CTCP_GAMMA 30u	     /* packets queued that count as congestion */
#define CTCP_ZETA 1u	     /* dwnd falls by zeta x diff */
#define CTCP_LOW_WND 41u     /* below this window CTCP is Reno */
#define CTCP_POW_CAP 32768u  /* win^3 << 16 stays under 2^64 */

/*
 * floor(sqrt(a)) for a < 2^62 by Newton's iteration from above, a fixed 40
 * rounds and no data-dependent branch inside the loop: the verifier walks
 * every path of a program, and a bit-by-bit root's 2^32 of them is too many.
 * From x = 2^32 the error at least halves each round, so 32 rounds reach
 * floor(sqrt(a)) or one above it even for a = 1; the last step settles it.
 */
static __always_inline __u64 ctcp_isqrt(__u64 a)
{
	__u64 x = 1ull << 32;
	int i;

	if (!a)
		return 0;
	for (i = 0; i < 40; i++)
		x = (x + a / x) >> 1;
	if (x * x > a)
		x--;
	if ((x + 1) * (x + 1) <= a)
		x++;
	return x;
}

/* win^(3/4) x 16. */
static __always_inline __u64 ctcp_pow34_x16(__u32 win)
{
	__u64 w = win > CTCP_POW_CAP ? CTCP_POW_CAP : win;

	/* (w^3 x 2^16)^(1/4) = w^(3/4) x 2^4 */
	return ctcp_isqrt(ctcp_isqrt(w * w * w << 16));
}

/* Packets the flow keeps queued: win x (rtt - base) / rtt. */
static __always_inline __u32 ctcp_diff(__u32 win, __u32 base_rtt_us, __u32 rtt_us)
{
	if (!rtt_us || rtt_us <= base_rtt_us)
		return 0;
	return (__u32)((__u64)win * (rtt_us - base_rtt_us) / rtt_us);
}

/* dwnd after a round (one RTT) with `diff` packets queued. */
static __always_inline __u32 ctcp_dwnd_after_round(__u32 cwnd, __u32 dwnd, __u32 diff)
{
	__u32 win = cwnd + dwnd;
	__u64 inc16;

	if (win < CTCP_LOW_WND)
		return 0;
	if (diff >= CTCP_GAMMA)
		return dwnd > CTCP_ZETA * diff ? dwnd - CTCP_ZETA * diff : 0;
	/* alpha x win^k - 1, in 1/16 packets, floored at 0. */
	inc16 = ctcp_pow34_x16(win) >> CTCP_ALPHA_SHIFT;
	if (inc16 <= 16)
		return dwnd;
	return dwnd + (__u32)((inc16 - 16) >> 4);
}

/* dwnd after a loss: win x (1 - beta) - cwnd / 2, with beta = 1/2. */
static __always_inline __u32 ctcp_dwnd_after_loss(__u32 cwnd, __u32 dwnd)
{
	__u32 half_win = (cwnd + dwnd) / 2, half_cwnd = cwnd / 2;

	return half_win > half_cwnd ? half_win - half_cwnd : 0;
}

/* The loss window after a loss: Reno's halving, at least 2. */
static __always_inline __u32 ctcp_cwnd_after_loss(__u32 cwnd)
{
	return cwnd / 2 > 2 ? cwnd / 2 : 2;
}

/*
 * Reno's congestion-avoidance growth of the loss window, +1/win per ACK
 * (the paper counts against the whole window, not cwnd): `*cnt` collects
 * acked packets until a whole win of them has been acked.
 */
static __always_inline __u32 ctcp_cwnd_after_ack(__u32 cwnd, __u32 dwnd, __u32 *cnt, __u32 acked)
{
	__u32 win = cwnd + dwnd;

	if (!win)
		win = 1;
	*cnt += acked;
	if (*cnt >= win) {
		cwnd += *cnt / win;
		*cnt %= win;
	}
	return cwnd;
}

#endif /* COMPOUND_LOGIC_H */
