/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TCP Vegas (Brakmo, O'Malley, Peterson, SIGCOMM 1994), the decision part.
 *
 * Once per RTT Vegas compares the throughput it expects with an empty queue,
 * cwnd / BaseRTT, with the throughput it gets, cwnd / RTT, where BaseRTT is
 * the smallest RTT ever seen and RTT the smallest seen during the last round.
 * The difference, expressed as the packets it keeps queued in the network,
 *
 *     diff = (Expected - Actual) x BaseRTT = cwnd x (RTT - BaseRTT) / RTT,
 *
 * steers the window: below alpha (2 packets) the path has room, grow by one
 * packet per RTT; above beta (4) it is queueing, shrink by one; in between,
 * hold. In slow start, a diff above gamma (1) ends slow start early, with
 * cwnd cut to what the path carries at BaseRTT (+1).
 */
#ifndef VEGAS_LOGIC_H
#define VEGAS_LOGIC_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

#define VEGAS_ALPHA 2u
#define VEGAS_BETA 4u
#define VEGAS_GAMMA 1u

enum vegas_step {
	VEGAS_GROW = 0,    /* cwnd + 1 (or slow start) */
	VEGAS_HOLD = 1,
	VEGAS_SHRINK = 2,  /* cwnd - 1 */
	VEGAS_LEAVE_SS = 3 /* cwnd = min(cwnd, target + 1), leave slow start */
};

/* Packets Vegas estimates it keeps queued: cwnd x (rtt - base) / rtt. */
static __always_inline __u32 vegas_diff(__u32 cwnd, __u32 base_rtt_us, __u32 rtt_us)
{
	if (!rtt_us || rtt_us <= base_rtt_us)
		return 0;
	return (__u32)((__u64)cwnd * (rtt_us - base_rtt_us) / rtt_us);
}

/* The window that fills the path at BaseRTT: cwnd x base / rtt. */
static __always_inline __u32 vegas_target_cwnd(__u32 cwnd, __u32 base_rtt_us, __u32 rtt_us)
{
	if (!rtt_us)
		return cwnd;
	return (__u32)((__u64)cwnd * base_rtt_us / rtt_us);
}

static __always_inline enum vegas_step vegas_decide(__u32 diff, int in_slow_start)
{
	if (in_slow_start)
		return diff > VEGAS_GAMMA ? VEGAS_LEAVE_SS : VEGAS_GROW;
	if (diff < VEGAS_ALPHA)
		return VEGAS_GROW;
	if (diff > VEGAS_BETA)
		return VEGAS_SHRINK;
	return VEGAS_HOLD;
}

#endif /* VEGAS_LOGIC_H */
