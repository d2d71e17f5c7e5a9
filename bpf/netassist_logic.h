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
 * NATCP's window is eq. 1 with the headroom the authors' implementation had
 * (na_natcp_cwnd below): their NATCP was a modified kernel BBR whose window
 * is BBR's target; NACubic caps Cubic at eq. 1 itself.
 *
 * A period with no capacity reports a bandwidth of 0 (the paper's average
 * over an empty period, and the authors' replayed feedback): eq. 1 then
 * gives the floor, and a pacing rate of 0 means unpaced to the kernel.
 * Feedback is fresh by its age alone; "never measured" is no map entry.
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

/* na_feedback.flags, written by the agent (bpfload::netassist::FLAG_*). */
#define NA_FB_CARRIED 1u    /* the bandwidth was carried over an empty period */
#define NA_FB_EQ1_WINDOW 2u /* NATCP's window is eq. 1 alone, without BBR's headroom */
#define NA_FB_MAX_DELAY 4u  /* NATCP's assumed delay cap: eq. 1 alone while the RTT is above the target */

/* Feedback is usable while it is younger than its timeout. A bandwidth of 0
 * is a measurement (an empty period), not missing feedback: the entry exists
 * only once the agent wrote one. */
static __always_inline int na_fresh(__u64 updated_us, __u32 timeout_us, __u64 now_us)
{
	if (!updated_us)
		return 0;
	/* An entry stamped after `now` (another CPU's clock read) is fresh. */
	if (now_us <= updated_us)
		return 1;
	return now_us - updated_us <= timeout_us;
}

/* Eq. 1 in bytes on the wire for one of `beta` flows, before the division. */
static __always_inline __u64 na_eq1_bytes(__u64 bw_Bps, __u32 min_rtt_us, __u32 alpha_pct)
{
	/* Clamped so that no product below exceeds 2^61. */
	if (bw_Bps > NA_MAX_BW)
		bw_Bps = NA_MAX_BW;
	if (min_rtt_us > NA_MAX_RTT_US)
		min_rtt_us = NA_MAX_RTT_US;
	if (alpha_pct > NA_MAX_ALPHA_PCT)
		alpha_pct = NA_MAX_ALPHA_PCT;
	if (bw_Bps > (1ull << 34))
		return (bw_Bps / 100) * alpha_pct / NA_USEC_PER_SEC * min_rtt_us;
	return bw_Bps * alpha_pct / 100 * min_rtt_us / NA_USEC_PER_SEC;
}

static __always_inline __u32 na_saturate(__u64 segs)
{
	return segs > 0x7fffffffull ? 0x7fffffffu : (__u32)segs;
}

/* Eq. 1 in segments of `wire` bytes, at least NA_MIN_CWND: NACubic's cap,
 * and NATCP's window without the headroom (NA_FB_EQ1_WINDOW). */
static __always_inline __u32 na_target_cwnd(__u64 bw_Bps, __u32 min_rtt_us, __u32 alpha_pct, __u32 beta,
					    __u32 wire)
{
	__u64 segs;

	if (!beta)
		beta = 1;
	if (!wire)
		wire = 1500;
	segs = na_eq1_bytes(bw_Bps, min_rtt_us, alpha_pct) / ((__u64)beta * wire);
	if (segs < NA_MIN_CWND)
		segs = NA_MIN_CWND;
	return na_saturate(segs);
}

/*
 * NATCP's window: eq. 1 as the target of the authors' implementation, a
 * modified kernel BBR (Linux 4.13, whose patch is not public). Its window
 * was BBR's bbr_target_cwnd() with eq. 1's product in place of BBR's own
 * bandwidth x min RTT x gain (the authors' server sets BBR's bandwidth,
 * target delay and a cwnd gain of 2 per feedback); we assume the patch left
 * the rest of that function and bbr_set_cwnd() as they were:
 *
 *   - eq. 1 rounded up to whole segments (BBR rounds its BDP up);
 *   - plus 3 TSO goals, "enough full-sized skbs in flight to utilize end
 *     systems": a goal is the segments of ~1 ms at the pacing rate
 *     (tcp_tso_autosize: rate >> 10 bytes), at least 2 segments at 1.2
 *     Mbit/s or more, else 1, at most 127;
 *   - rounded up to an even number (fewer delayed ACKs);
 *   - at least 4 segments (bbr_cwnd_min_target).
 *
 * So NATCP carries 6 segments or more beyond eq. 1 at cellular rates, and
 * 4 through an empty period, where NACubic, a pure eq. 1 cap, does not.
 */
#define NA_BBR_MIN_TSO_RATE 150000u /* bytes/s: bbr_min_tso_rate, 1.2 Mbit/s */
#define NA_BBR_TSO_GOAL_MAX 127u
#define NA_BBR_CWND_MIN 4u

/* BBR's TSO goal at a pacing rate of `rate` payload bytes/s. */
static __always_inline __u32 na_bbr_tso_goal(__u64 rate, __u32 mss)
{
	__u32 min_segs = rate < NA_BBR_MIN_TSO_RATE ? 1 : 2;
	__u64 segs = mss ? (rate >> 10) / mss : 0;

	if (segs < min_segs)
		segs = min_segs;
	return segs > NA_BBR_TSO_GOAL_MAX ? NA_BBR_TSO_GOAL_MAX : (__u32)segs;
}

static __always_inline __u32 na_natcp_cwnd(__u64 bw_Bps, __u32 min_rtt_us, __u32 alpha_pct, __u32 beta,
					   __u32 wire, __u32 mss, __u64 pacing_rate, __u32 flags)
{
	__u64 per_flow, segs;

	if (flags & NA_FB_EQ1_WINDOW)
		return na_target_cwnd(bw_Bps, min_rtt_us, alpha_pct, beta, wire);
	if (!beta)
		beta = 1;
	if (!wire)
		wire = 1500;
	per_flow = (__u64)beta * wire;
	segs = (na_eq1_bytes(bw_Bps, min_rtt_us, alpha_pct) + per_flow - 1) / per_flow;
	segs += 3 * na_bbr_tso_goal(pacing_rate, mss);
	segs = (segs + 1) & ~1ull;
	if (segs < NA_BBR_CWND_MIN)
		segs = NA_BBR_CWND_MIN;
	return na_saturate(segs);
}

/*
 * The delay cap we assume of the authors' BBR. Their natcp.sh sets the
 * patch's sysctl tcp_bbr_enable_maxdelay = 1, and their server sets, with
 * every feedback, BBR's target delay (TCP_BBR_TRGTDEL_MS = the feedback's
 * minRtt + 2 x the one-way delay: the minimum RTT NetAssist reports, which
 * is ours). The patch is not public, so what "maxdelay" did is an
 * assumption; ours, the one with no free parameter: while the connection's
 * latest RTT sample is above that target, NATCP's window is eq. 1 alone
 * (`eq1`), the window that target delay allows at the fed-back bandwidth;
 * at or below it (no queue of its own), eq. 1 with BBR's headroom
 * (`with_headroom`). No sample yet (0): the headroom's window.
 */
static __always_inline __u32 na_natcp_delay_capped(__u32 with_headroom, __u32 eq1, __u32 rtt_us,
						   __u32 target_us)
{
	if (!rtt_us || rtt_us <= target_us)
		return with_headroom;
	return eq1 < with_headroom ? eq1 : with_headroom;
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
