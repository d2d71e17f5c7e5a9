/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arithmetic of NATCP and NACubic (Abbasloo et al., "Toward Optimal
 * Performance with Network Assisted TCP at Mobile Edge", HotEdge 2019), pure
 * and integer-only so that the BPF programs and the host unit test
 * (bpf/tests/netassist_logic_test.c) compile the same code.
 *
 * NetAssist tells the server, per UE, the bottleneck bandwidth BL_Bw (bytes/s
 * of IP packets the cellular link offered in the last period) and the
 * minimum RTT; the UE tells it beta, its number of flows. Eq. 1:
 *
 *     cwnd = alpha x minRTT x BL_Bw / beta        (alpha = 2)
 *
 * in bytes on the wire; divided by the bytes one segment takes on the wire
 * (MSS + TCP header with options + IPv4 header) it is in segments, the unit
 * of snd_cwnd. Pacing is the flow's share of the bandwidth, BL_Bw / beta
 * (the paper's BL_Bw with one flow), converted to payload bytes/s because
 * the kernel paces skb->len, which excludes the headers.
 *
 * The kernel's own loss recovery is mirrored here too: a congestion control
 * that implements cong_control() switches off the kernel's PRR
 * (tcp_cwnd_reduction) and pacing update, so the programs redo them.
 */
#ifndef NETASSIST_LOGIC_H
#define NETASSIST_LOGIC_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

#define NA_MIN_CWND 2u           /* segments: never starve the ACK clock */
#define NA_IPV4_HDR 20u
#define NA_USEC_PER_SEC 1000000ull
#define NA_MAX_BW (1ull << 40)       /* bytes/s: a terabyte per second */
#define NA_MAX_RTT_US 10000000u      /* 10 s */
#define NA_MAX_ALPHA_PCT 1000u       /* alpha 10 */

/* Per-socket mode, also what the exported flow state reports. */
enum na_mode {
	NA_MODE_WAITING = 0,  /* no feedback yet: plain Cubic */
	NA_MODE_ASSISTED = 1, /* fresh feedback: eq. 1 and pacing */
	NA_MODE_FALLBACK = 2, /* feedback stopped: plain Cubic until it returns */
};

/* Feedback is usable while it is younger than its timeout. A zero bandwidth
 * (never measured) is no feedback at all. */
static __always_inline int na_fresh(__u64 bw_Bps, __u64 updated_us, __u32 timeout_us, __u64 now_us)
{
	if (!bw_Bps || !updated_us)
		return 0;
	/* An entry stamped after `now` (another CPU's clock read) is fresh. */
	if (now_us <= updated_us)
		return 1;
	return now_us - updated_us <= timeout_us;
}

/* Eq. 1 in segments of `wire` bytes, at least NA_MIN_CWND. */
static __always_inline __u32 na_target_cwnd(__u64 bw_Bps, __u32 min_rtt_us, __u32 alpha_pct, __u32 beta,
					    __u32 wire)
{
	__u64 bytes, segs;

	if (!beta)
		beta = 1;
	if (!wire)
		wire = 1500;
	/* Clamped so that no product below exceeds 2^61. */
	if (bw_Bps > NA_MAX_BW)
		bw_Bps = NA_MAX_BW;
	if (min_rtt_us > NA_MAX_RTT_US)
		min_rtt_us = NA_MAX_RTT_US;
	if (alpha_pct > NA_MAX_ALPHA_PCT)
		alpha_pct = NA_MAX_ALPHA_PCT;
	if (bw_Bps > (1ull << 34))
		bytes = (bw_Bps / 100) * alpha_pct / NA_USEC_PER_SEC * min_rtt_us;
	else
		bytes = bw_Bps * alpha_pct / 100 * min_rtt_us / NA_USEC_PER_SEC;
	segs = bytes / ((__u64)beta * wire);
	if (segs < NA_MIN_CWND)
		segs = NA_MIN_CWND;
	if (segs > 0x7fffffffull)
		segs = 0x7fffffffull;
	return (__u32)segs;
}

/* The flow's share of the bandwidth in payload bytes/s. */
static __always_inline __u64 na_pacing_rate(__u64 bw_Bps, __u32 beta, __u32 mss, __u32 wire)
{
	if (!beta)
		beta = 1;
	if (!wire || mss > wire)
		return bw_Bps / beta;
	return bw_Bps / beta * mss / wire;
}

/* tcp_cwnd_reduction() (PRR, RFC 6937) of net/ipv4/tcp_input.c: how many
 * segments may be sent beyond those in flight. `prr_delivered` already
 * includes this ACK's `newly_acked_sacked`. */
static __always_inline int na_prr_sndcnt(__u32 ssthresh, __u32 in_flight, __u32 prr_delivered, __u32 prr_out,
					 __u32 prior_cwnd, int newly_acked_sacked, int newly_lost, int una_advanced)
{
	int delta = (int)ssthresh - (int)in_flight;
	int sndcnt;

	if (delta < 0) {
		__u64 dividend = (__u64)ssthresh * prr_delivered + prior_cwnd - 1;

		sndcnt = (int)(dividend / prior_cwnd) - (int)prr_out;
	} else {
		sndcnt = (int)prr_delivered - (int)prr_out;
		if (sndcnt < newly_acked_sacked)
			sndcnt = newly_acked_sacked;
		if (una_advanced && !newly_lost)
			sndcnt++;
		if (sndcnt > delta)
			sndcnt = delta;
	}
	/* Force a fast retransmit upon entering fast recovery. */
	if (sndcnt < (prr_out ? 0 : 1))
		sndcnt = prr_out ? 0 : 1;
	return sndcnt;
}

/* tcp_update_pacing_rate(): ss_ratio % of cwnd x mss / srtt in slow start
 * (below half of ssthresh), ca_ratio % otherwise. srtt_us8 is tp->srtt_us
 * (eight times the smoothed RTT). */
static __always_inline __u64 na_kernel_pacing_rate(__u32 mss, __u32 cwnd, __u32 packets_out, __u32 ssthresh,
						   __u32 srtt_us8, __u32 ss_ratio, __u32 ca_ratio)
{
	__u64 rate = (__u64)mss * ((NA_USEC_PER_SEC / 100) << 3);

	rate *= cwnd < ssthresh / 2 ? ss_ratio : ca_ratio;
	rate *= cwnd > packets_out ? cwnd : packets_out;
	if (srtt_us8)
		rate /= srtt_us8;
	return rate;
}

#endif /* NETASSIST_LOGIC_H */
