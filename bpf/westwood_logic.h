/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Westwood+ bandwidth estimation (Mascolo et al.; Grieco & Mascolo, "TCP
 * Westwood and Easy RED to improve fairness in high-speed networks", 2002).
 *
 * Westwood keeps Reno's window growth but replaces its blind halving: the
 * sender estimates the bandwidth its ACKs reveal and, after a loss, sets
 * ssthresh to the pipe that bandwidth fills at the minimum RTT, BWE x RTTmin.
 * A random (non-congestion) loss then costs little, which is why it was
 * proposed for wireless paths.
 *
 * Westwood+ samples the bandwidth once per RTT (at least every 50 ms) as the
 * bytes delivered in that window divided by its length, and smooths the
 * samples with two cascaded 7/8 low-pass filters. Bytes delivered include
 * SACKed ones (the kernel's tp->delivered), so duplicate ACKs during a loss
 * still count as delivery, as Westwood intends.
 */
#ifndef WESTWOOD_LOGIC_H
#define WESTWOOD_LOGIC_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

#define WESTWOOD_RTT_MIN_WIN_US 50000u /* never sample faster than 50 ms */

struct westwood_est {
	__u64 win_start_us;   /* start of the current sampling window */
	__u64 bw_ns_est;      /* first filter stage, bytes/s */
	__u64 bw_est;         /* the estimate, bytes/s */
	__u32 win_delivered;  /* tp->delivered at the window start (packets) */
	__u32 rtt_us;         /* latest RTT sample */
	__u32 rtt_min_us;     /* minimum RTT (0: none yet) */
	__u32 reset_rtt_min;  /* take the next sample as the new minimum */
	__u32 have_sample;
	__u32 pad;
};

static __always_inline __u64 ww_filter(__u64 old, __u64 sample)
{
	return (7 * old + sample) >> 3;
}

static __always_inline void ww_est_init(struct westwood_est *w, __u64 now_us, __u32 delivered)
{
	__builtin_memset(w, 0, sizeof(*w));
	w->win_start_us = now_us;
	w->win_delivered = delivered;
}

static __always_inline void ww_est_rtt(struct westwood_est *w, __u32 rtt_us)
{
	if (!rtt_us)
		return;
	w->rtt_us = rtt_us;
	if (w->reset_rtt_min || !w->rtt_min_us || rtt_us < w->rtt_min_us)
		w->rtt_min_us = rtt_us;
	w->reset_rtt_min = 0;
}

/* Called on every ACK: closes the sampling window once it is an RTT long. */
static __always_inline void ww_est_ack(struct westwood_est *w, __u64 now_us,
					 __u32 delivered, __u32 mss)
{
	__u64 delta = now_us - w->win_start_us;
	__u32 win = w->rtt_us > WESTWOOD_RTT_MIN_WIN_US ? w->rtt_us : WESTWOOD_RTT_MIN_WIN_US;
	__u64 bytes, sample;

	if (delta <= win)
		return;
	bytes = (__u64)(delivered - w->win_delivered) * mss;
	sample = bytes * 1000000ULL / delta;
	if (!w->have_sample) {
		w->bw_ns_est = sample;
		w->bw_est = sample;
		w->have_sample = 1;
	} else {
		w->bw_ns_est = ww_filter(w->bw_ns_est, sample);
		w->bw_est = ww_filter(w->bw_est, w->bw_ns_est);
	}
	w->win_start_us = now_us;
	w->win_delivered = delivered;
}

/* ssthresh after a loss: BWE x RTTmin in segments, at least 2; 0 when there
 * is no estimate yet (the caller falls back to Reno's halving). */
static __always_inline __u32 ww_est_ssthresh(const struct westwood_est *w, __u32 mss)
{
	__u64 segs;

	if (!w->have_sample || !w->rtt_min_us || !mss)
		return 0;
	segs = w->bw_est * w->rtt_min_us / 1000000ULL / mss;
	return segs < 2 ? 2 : (segs > 0x7fffffff ? 0x7fffffff : (__u32)segs);
}

#endif /* WESTWOOD_LOGIC_H */
