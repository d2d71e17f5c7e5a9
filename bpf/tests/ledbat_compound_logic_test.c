// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of bpf/ledbat_logic.h and bpf/compound_logic.h. */
#include <stdio.h>

#include "../compound_logic.h"
#include "../ledbat_logic.h"
#include "check.h"

#define MIN_US 60000000ull

/* The queueing delay is the newest samples' minimum over the history's
 * minimum, whatever the clocks' offset, also across the 2^32 wrap. */
static void test_ledbat_delay_cancels_the_offset(void)
{
	struct ledbat_delays d;
	__u32 offset = 0xfffff000u; /* 20 ms base straddles the wrap */

	ledbat_delays_init(&d);
	CHECK_EQ(ledbat_queuing_delay(&d), 0);
	ledbat_delays_add(&d, offset + 20000, 1000);
	CHECK_EQ(ledbat_queuing_delay(&d), 0);
	ledbat_delays_add(&d, offset + 60000, 2000);
	ledbat_delays_add(&d, offset + 70000, 3000);
	ledbat_delays_add(&d, offset + 80000, 4000);
	ledbat_delays_add(&d, offset + 90000, 5000);
	/* current = min(60, 70, 80, 90) ms = 60, base 20: 40 ms queued */
	CHECK_EQ(ledbat_queuing_delay(&d), 40000);
	/* One low sample among the last four wins (noise filter). */
	ledbat_delays_add(&d, offset + 30000, 6000);
	CHECK_EQ(ledbat_queuing_delay(&d), 10000);
}

/* A base minimum ages out after BASE_HISTORY minutes, not before. */
static void test_ledbat_base_history_rolls_over(void)
{
	struct ledbat_delays d;
	__u64 t = 0;
	int m;

	ledbat_delays_init(&d);
	ledbat_delays_add(&d, 10000, t); /* an old, low base: 10 ms */
	for (m = 1; m <= 9; m++) {
		t += MIN_US;
		ledbat_delays_add(&d, 50000, t);
	}
	/* Nine minutes later the old minimum still counts. */
	CHECK_EQ(ledbat_queuing_delay(&d), 40000);
	t += MIN_US;
	ledbat_delays_add(&d, 50000, t);
	/* Ten new minutes: the 10 ms slot is overwritten, base is 50 ms. */
	CHECK_EQ(d.base_n, LEDBAT_BASE_HISTORY);
	CHECK_EQ(ledbat_queuing_delay(&d), 0);
}

/* Gain 1: an empty queue adds one packet per window of ACKs, a queue at the
 * target holds, twice the target removes one per window. */
static void test_ledbat_window_steers_to_the_target(void)
{
	__s64 acc = 0;
	__u32 cwnd = 20, i;

	for (i = 0; i < 20; i++)
		cwnd = ledbat_cwnd_after_ack(cwnd, &acc, 0, LEDBAT_TARGET_US, 1, 1);
	CHECK_EQ(cwnd, 21);
	acc = 0;
	for (i = 0; i < 100; i++)
		cwnd = ledbat_cwnd_after_ack(cwnd, &acc, LEDBAT_TARGET_US, LEDBAT_TARGET_US, 1, 1);
	CHECK_EQ(cwnd, 21);
	acc = 0;
	for (i = 0; i < 21; i++)
		cwnd = ledbat_cwnd_after_ack(cwnd, &acc, 2 * LEDBAT_TARGET_US, LEDBAT_TARGET_US, 1, 1);
	CHECK_EQ(cwnd, 20);
	/* Half the target: half a packet per window. */
	acc = 0;
	for (i = 0; i < 40; i++)
		cwnd = ledbat_cwnd_after_ack(cwnd, &acc, LEDBAT_TARGET_US / 2, LEDBAT_TARGET_US, 1, 1);
	CHECK_EQ(cwnd, 21);
}

/* Not cwnd-limited: no growth; a huge queue never takes cwnd under 2. */
static void test_ledbat_limits(void)
{
	__s64 acc = 0;
	__u32 cwnd = 10, i;

	for (i = 0; i < 100; i++)
		cwnd = ledbat_cwnd_after_ack(cwnd, &acc, 0, LEDBAT_TARGET_US, 1, 0);
	CHECK_EQ(cwnd, 10);
	cwnd = ledbat_cwnd_after_ack(cwnd, &acc, 5000000, LEDBAT_TARGET_US, 10, 1);
	CHECK_EQ(cwnd, LEDBAT_MIN_CWND);
	CHECK_EQ(ledbat_loss_cwnd(3), 2);
	CHECK_EQ(ledbat_loss_cwnd(40), 20);
	CHECK_EQ(ledbat_keep_slow_start(49999, LEDBAT_TARGET_US), 1);
	CHECK_EQ(ledbat_keep_slow_start(50000, LEDBAT_TARGET_US), 0);
}

static void test_compound_pow_and_sqrt(void)
{
	CHECK_EQ(ctcp_isqrt(0), 0);
	CHECK_EQ(ctcp_isqrt(99), 9);
	CHECK_EQ(ctcp_isqrt(1ull << 62), 1ull << 31);
	/* 16^(3/4) = 8, 10000^(3/4) = 1000, x 16 */
	CHECK_EQ(ctcp_pow34_x16(16), 128);
	CHECK_EQ(ctcp_pow34_x16(10000), 16000);
}

/* The delay window: Reno below low_wnd; alpha x win^k - 1 per round with
 * no queue (win 10000: 1000 / 8 - 1 = 124); no growth from gamma on. */
static void test_compound_dwnd_grows_without_queue(void)
{
	CHECK_EQ(ctcp_dwnd_after_round(30, 5, 0), 0);
	CHECK_EQ(ctcp_dwnd_after_round(10000, 0, 0), 124);
	/* win 41: 41^0.75 / 8 = 2.03, minus 1: one packet */
	CHECK_EQ(ctcp_dwnd_after_round(41, 0, 29), 1);
	CHECK_EQ(ctcp_dwnd_after_round(41, 0, 30), 0);
}

/* The test: the delay window shrinks as the queue grows. With the
 * same windows and baseRTT 20 ms, a longer round RTT (more queued) leaves a
 * strictly smaller delay window until it reaches 0. */
static void test_compound_dwnd_shrinks_as_the_queue_grows(void)
{
	__u32 cwnd = 100, dwnd = 200, rtt, prev = dwnd + 1, now, diff;

	for (rtt = 22000; rtt <= 80000; rtt += 2000) {
		diff = ctcp_diff(cwnd + dwnd, 20000, rtt);
		now = ctcp_dwnd_after_round(cwnd, dwnd, diff);
		if (diff >= CTCP_GAMMA && (now > prev || (now == prev && prev > 0))) {
			fprintf(stderr, "rtt %u: dwnd %u not below %u\n", rtt, now, prev);
			failures++;
		}
		if (diff >= CTCP_GAMMA)
			prev = now;
	}
	CHECK_EQ(prev, 0); /* 300 x 60/80 = 225 queued: more than dwnd */
	/* A round of dwnd updates converges where diff ~ gamma. */
	dwnd = 0;
	for (rtt = 0; rtt < 200; rtt++) {
		/* a 20 ms path carrying 100 packets per 20 ms: queue = win - 100 */
		__u32 win = cwnd + dwnd;
		__u32 r = win > 100 ? 20000 * win / 100 : 20000;

		dwnd = ctcp_dwnd_after_round(cwnd, dwnd, ctcp_diff(win, 20000, r));
	}
	diff = cwnd + dwnd > 100 ? cwnd + dwnd - 100 : 0;
	if (diff > 2 * CTCP_GAMMA) {
		fprintf(stderr, "queue %u packets, want about gamma %u\n", diff, CTCP_GAMMA);
		failures++;
	}
}

static void test_compound_loss(void)
{
	/* win 300 = 100 + 200 -> 150 = 50 + 100 */
	CHECK_EQ(ctcp_cwnd_after_loss(100), 50);
	CHECK_EQ(ctcp_dwnd_after_loss(100, 200), 100);
	CHECK_EQ(ctcp_dwnd_after_loss(100, 0), 0);
	CHECK_EQ(ctcp_cwnd_after_loss(3), 2);
}

/* Reno's +1 per window of ACKs, counted against the whole window. */
static void test_compound_reno_growth(void)
{
	__u32 cnt = 0, cwnd = 50, i;

	for (i = 0; i < 99; i++)
		cwnd = ctcp_cwnd_after_ack(cwnd, 50, &cnt, 1);
	CHECK_EQ(cwnd, 50);
	cwnd = ctcp_cwnd_after_ack(cwnd, 50, &cnt, 1);
	CHECK_EQ(cwnd, 51);
	CHECK_EQ(cnt, 0);
}

int main(void)
{
	test_ledbat_delay_cancels_the_offset();
	test_ledbat_base_history_rolls_over();
	test_ledbat_window_steers_to_the_target();
	test_ledbat_limits();
	test_compound_pow_and_sqrt();
	test_compound_dwnd_grows_without_queue();
	test_compound_dwnd_shrinks_as_the_queue_grows();
	test_compound_loss();
	test_compound_reno_growth();
	if (failures) {
		fprintf(stderr, "ledbat/compound logic: %d failure(s)\n", failures);
		return 1;
	}
	printf("ledbat/compound logic: ok\n");
	return 0;
}
