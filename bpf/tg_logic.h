/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TG, throughput guidance: the arithmetic of the `tg` congestion control,
 * pure and integer-only so that the BPF program (tg.bpf.c, through
 * netassist.h) and the host test (bpf/tests/tg_logic_test.c) compile the
 * same code.
 *
 * What TG is. The IETF drafts on mobile throughput guidance (Jain, Terzis,
 * Flinck et al., draft-flinck-mobile-throughput-guidance-00..04, 2014-2017;
 * Szilagyi and Terzis at ICCRG, IETF 93) have the cellular network tell the
 * TCP server the throughput the radio downlink can give the UE; how the
 * server uses it is left to the server. NATCP's paper (Abbasloo et al.,
 * HotEdge 2019, sections 2.3 and 3) compares against "TG [23]" fed by the
 * same 50 ms NetAssist bandwidth feedback NATCP gets, with the RTT left to
 * the end host: "TG scheme, which uses only BW feedback and counts on RTT
 * measurements at the server". Our reading of that, with nothing tuned:
 *
 *     cwnd   = BL_Bw x SRTT / wire bytes per segment      (>= 2 segments)
 *     pacing = BL_Bw in payload bytes/s
 *
 * i.e. the bandwidth-delay product with the guided bandwidth and the
 * sender's own smoothed RTT (the kernel's srtt, which includes whatever
 * queue the flow itself built), against NATCP's 2 x minRTT x BL_Bw / beta
 * with NetAssist's centralised minimum RTT. Two choices the paper does not
 * spell out, and why:
 *  - SRTT, not the kernel's windowed minimum: the paper's argument
 *    (section 2.3) is that an end host's delay estimate, made over a few
 *    RTTs, carries the queueing delay of a link whose capacity swings; the
 *    smoothed RTT is what a TCP sender measures. With SRTT the window
 *    exactly sustains any queue already there (BL_Bw x (base + q) is the
 *    BDP plus the queue): nothing drains it, which is the weakness the
 *    paper attributes to TG.
 *  - No division by the UE's flow count: a throughput guidance is per UE
 *    and TG "has no mechanism to resolve fairness" (section 3, Fig. 5), so
 *    every flow of a UE takes all of it.
 * Without fresh guidance (none yet, or older than the fallback timer) the
 * sender is the kernel's Cubic, as NATCP's is (netassist.h).
 */
#ifndef TG_LOGIC_H
#define TG_LOGIC_H

#include "netassist_logic.h"

/* The window in segments of `wire` bytes: bw_Bps x rtt_us, at least
 * NA_MIN_CWND, saturating rather than overflowing. 0 when there is no RTT
 * estimate yet (the caller stays in Cubic). */
static __always_inline __u32 tg_target_cwnd(__u64 bw_Bps, __u32 rtt_us, __u32 wire)
{
	__u64 segs;

	if (!rtt_us)
		return 0;
	if (!wire)
		wire = 1500;
	if (bw_Bps > NA_MAX_BW)
		bw_Bps = NA_MAX_BW;
	if (rtt_us > NA_MAX_RTT_US)
		rtt_us = NA_MAX_RTT_US;
	/* 2^40 x 10^7 < 2^64: the product fits before the division. */
	segs = bw_Bps * rtt_us / NA_USEC_PER_SEC / wire;
	if (segs < NA_MIN_CWND)
		segs = NA_MIN_CWND;
	if (segs > 0x7fffffffull)
		segs = 0x7fffffffull;
	return (__u32)segs;
}

/* The sender's RTT estimate in us from the kernel's srtt_us (8 x SRTT). */
static __always_inline __u32 tg_srtt_us(__u32 srtt_us8)
{
	return srtt_us8 >> 3;
}

/* Pacing: all of the guided bandwidth, in payload bytes/s (beta ignored). */
static __always_inline __u64 tg_pacing_rate(__u64 bw_Bps, __u32 mss, __u32 wire)
{
	return na_pacing_rate(bw_Bps, 1, mss, wire);
}

#endif /* TG_LOGIC_H */
