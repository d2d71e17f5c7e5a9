// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of bpf/netassist_logic.h (NATCP and NACubic arithmetic). */
#include <stdio.h>

#include "../netassist_logic.h"

#include "check.h"

/* Eq. 1: 12 Mbit/s (1.5 MB/s) x 20 ms x 2 = 60 000 bytes = 40 segments of
 * 1500 wire bytes; 20 each for two flows; never below 2. */
static void test_eq1(void)
{
	CHECK_EQ(na_target_cwnd(1500000, 20000, 200, 1, 1500), 40);
	CHECK_EQ(na_target_cwnd(1500000, 20000, 200, 2, 1500), 20);
	CHECK_EQ(na_target_cwnd(1500000, 20000, 100, 1, 1500), 20);
	CHECK_EQ(na_target_cwnd(1500000, 20000, 200, 0, 1500), 40); /* beta 0 read as 1 */
	CHECK_EQ(na_target_cwnd(12500, 10000, 200, 1, 1500), 2);    /* 100 kbit/s: the floor */
	/* A terabyte per second for 10 s does not overflow: it saturates. */
	CHECK_EQ(na_target_cwnd(~0ull, ~0u, ~0u, 1, 1500), 0x7fffffff);
	/* 100 Gbit/s at 10 ms: 2 x 12.5 GB/s x 0.01 s / 1500. */
	CHECK_EQ(na_target_cwnd(12500000000ull, 10000, 200, 1, 1500), 166666);
}

/* Pacing is the flow's share in payload bytes: 1448 of every 1500. */
static void test_pacing(void)
{
	CHECK_EQ(na_pacing_rate(1500000, 1, 1448, 1500), 1448000);
	CHECK_EQ(na_pacing_rate(1500000, 2, 1448, 1500), 724000);
	CHECK_EQ(na_pacing_rate(1500000, 1, 1448, 0), 1500000);
}

static void test_freshness(void)
{
	CHECK_EQ(na_fresh(5000000, 200000, 5100000), 1);
	CHECK_EQ(na_fresh(5000000, 200000, 5200000), 1);
	CHECK_EQ(na_fresh(5000000, 200000, 5200001), 0);
	CHECK_EQ(na_fresh(5000000, 200000, 4999000), 1); /* stamped "after now" */
	CHECK_EQ(na_fresh(0, 200000, 1), 0);             /* never written */
}

/* NATCP's window: BBR's target around eq. 1 (bbr_target_cwnd of Linux 4.13). */
static void test_natcp_window(void)
{
	/* 12 Mbit/s at 20 ms: eq. 1 is 40 segments of 1500 wire bytes. Paced
	 * at 1 448 000 payload bytes/s, ~1.4 KB per ms: the TSO goal is its
	 * floor of 2, so 40 + 6 = 46. */
	CHECK_EQ(na_bbr_tso_goal(1448000, 1448), 2);
	CHECK_EQ(na_natcp_cwnd(1500000, 20000, 200, 1, 1500, 1448, 1448000, 0), 46);
	/* Eq. 1 is rounded up, then the sum to an even number: 10.7 -> 11,
	 * + 6 = 17 -> 18. */
	CHECK_EQ(na_natcp_cwnd(401250, 20000, 200, 1, 1500, 1448, 387300, 0), 18);
	/* 48 Mbit/s: 5.8 MB/s of payload is 5.6 KB per ms, a goal of 3. */
	CHECK_EQ(na_bbr_tso_goal(5792000, 1448), 3);
	CHECK_EQ(na_natcp_cwnd(6000000, 10000, 200, 1, 1500, 1448, 5792000, 0), 80 + 9 + 1);
	/* Below 1.2 Mbit/s the goal is 1 segment. */
	CHECK_EQ(na_bbr_tso_goal(100000, 1448), 1);
	/* An empty period (bandwidth 0, unpaced): BBR's minimum of 4. */
	CHECK_EQ(na_natcp_cwnd(0, 10000, 200, 1, 1500, 1448, 0, 0), 4);
	/* Two flows each take half of eq. 1 and their own headroom. */
	CHECK_EQ(na_natcp_cwnd(1500000, 20000, 200, 2, 1500, 1448, 724000, 0), 20 + 6);
	/* The goal saturates at 127 segments (10 Gbit/s of pacing). */
	CHECK_EQ(na_bbr_tso_goal(1250000000ull, 1448), 127);
	/* NA_FB_EQ1_WINDOW: eq. 1 alone, as NACubic's cap. */
	CHECK_EQ(na_natcp_cwnd(1500000, 20000, 200, 1, 1500, 1448, 1448000, NA_FB_EQ1_WINDOW), 40);
	CHECK_EQ(na_natcp_cwnd(0, 10000, 200, 1, 1500, 1448, 0, NA_FB_EQ1_WINDOW), 2);
	/* Saturates like eq. 1. */
	CHECK_EQ(na_natcp_cwnd(~0ull, ~0u, ~0u, 1, 1500, 1448, ~0ull, 0), 0x7fffffff);
}

/* NA_FB_MAX_DELAY: the headroom's window only while the RTT is at or below
 * the target delay (NetAssist's minimum RTT); eq. 1 alone above it. */
static void test_natcp_delay_cap(void)
{
	__u32 with = na_natcp_cwnd(1500000, 20000, 200, 1, 1500, 1448, 1448000, 0);
	__u32 eq1 = na_target_cwnd(1500000, 20000, 200, 1, 1500);

	CHECK_EQ(with, 46);
	CHECK_EQ(eq1, 40);
	/* No queue of its own: the RTT at the target, or below it. */
	CHECK_EQ(na_natcp_delay_capped(with, eq1, 20000, 20000), 46);
	CHECK_EQ(na_natcp_delay_capped(with, eq1, 15000, 20000), 46);
	/* One microsecond above the target: eq. 1 alone. */
	CHECK_EQ(na_natcp_delay_capped(with, eq1, 20001, 20000), 40);
	CHECK_EQ(na_natcp_delay_capped(with, eq1, 900000, 20000), 40);
	/* No RTT sample yet. */
	CHECK_EQ(na_natcp_delay_capped(with, eq1, 0, 20000), 46);
	/* Never above the headroom's window (an empty period: both at floors). */
	CHECK_EQ(na_natcp_delay_capped(4, 2, 50000, 10000), 2);
	CHECK_EQ(na_natcp_delay_capped(4, 9, 50000, 10000), 4);
}

/* PRR as the kernel computes it (RFC 6937 section 3). */
static void test_prr(void)
{
	/* 20 in flight, ssthresh 14, prior cwnd 20: proportional part. After 4
	 * delivered, 14 x 4 / 20 rounded up = 3 may have been sent; 1 was. */
	CHECK_EQ(na_prr_sndcnt(14, 20, 4, 1, 20, 1, 0, 1), 2);
	/* The first ACK of a recovery always lets a retransmission out. */
	CHECK_EQ(na_prr_sndcnt(14, 20, 1, 0, 20, 1, 0, 0), 1);
	/* Below ssthresh: slow-start-like reduction bound, at most the gap. */
	CHECK_EQ(na_prr_sndcnt(14, 10, 8, 3, 20, 2, 0, 1), 4);
	CHECK_EQ(na_prr_sndcnt(14, 12, 8, 3, 20, 2, 0, 1), 2);
	/* A loss on this ACK: no extra segment for the advancing una. */
	CHECK_EQ(na_prr_sndcnt(14, 10, 5, 3, 20, 2, 1, 1), 2);
}

/* tcp_update_pacing_rate(): 200 % in slow start, 120 % after. */
static void test_kernel_pacing(void)
{
	/* 10 x 1448 bytes per 10 ms (srtt_us holds 8 x 10000) = 1.448 MB/s. */
	CHECK_EQ(na_kernel_pacing_rate(1448, 10, 5, 100, 80000, 200, 120), 2896000);
	CHECK_EQ(na_kernel_pacing_rate(1448, 10, 5, 10, 80000, 200, 120), 1737600);
	CHECK_EQ(na_kernel_pacing_rate(1448, 10, 20, 10, 80000, 200, 120), 3475200);
}

int main(void)
{
	test_eq1();
	test_pacing();
	test_freshness();
	test_natcp_window();
	test_natcp_delay_cap();
	test_prr();
	test_kernel_pacing();
	if (failures) {
		fprintf(stderr, "netassist_logic_test: %d failure(s)\n", failures);
		return 1;
	}
	printf("netassist_logic_test: all passed\n");
	return 0;
}
