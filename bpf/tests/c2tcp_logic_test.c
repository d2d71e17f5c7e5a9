// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of bpf/c2tcp_logic.h: the exact code the BPF program runs,
 * driven with hand-made RTT sequences so every decision is deterministic.
 * Build and run: make test-logic
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../c2tcp_logic.h"

#include "check.h"

#define MS(x) ((__u64)(x) * 1000ULL)

static struct c2tcp_state fresh(void)
{
	struct c2tcp_state st;

	c2tcp_state_init(&st);
	return st;
}

/* The paper's Fig. 2: good -> normal -> bad -> repeated bad at Interval/sqrt(N)
 * -> good, then the same delays again read as Normal because the history
 * differs. alpha pinned at 1.5 so the Tuner stays out of the story. */
static void test_fig2_story(void)
{
	struct c2tcp_state st = fresh();
	const __u32 pin = 1500, target = MS(50);

	/* t=0: 20 ms, the first sample: min RTT 20, Setpoint 30, Good. */
	CHECK_EQ(c2tcp_on_rtt(&st, MS(1), MS(20), target, pin), C2TCP_ACT_GROW);
	CHECK_EQ(st.min_rtt_us, MS(20));
	CHECK_EQ(st.setpoint_us, MS(30));
	CHECK_EQ(st.interval_us, MS(30));
	CHECK_EQ(st.condition, C2TCP_GOOD);

	/* t0 = 10 ms: above Setpoint for the first time -> Normal, watch 30 ms. */
	CHECK_EQ(c2tcp_on_rtt(&st, MS(10), MS(35), target, pin), C2TCP_ACT_NONE);
	CHECK_EQ(st.condition, C2TCP_NORMAL);
	CHECK_EQ(st.next_check_us, MS(40));
	/* Still within the Interval: nothing. */
	CHECK_EQ(c2tcp_on_rtt(&st, MS(25), MS(36), target, pin), C2TCP_ACT_NONE);
	CHECK_EQ(c2tcp_on_rtt(&st, MS(40), MS(36), target, pin), C2TCP_ACT_NONE);
	CHECK_EQ(st.condition, C2TCP_NORMAL);

	/* t1 + Interval: the whole Interval stayed above Setpoint -> Bad (N=1). */
	CHECK_EQ(c2tcp_on_rtt(&st, MS(41), MS(37), target, pin), C2TCP_ACT_BACKOFF);
	CHECK_EQ(st.condition, C2TCP_BAD);
	CHECK_EQ(st.bad_events, 1);
	CHECK_EQ(st.interval_us, MS(30));
	CHECK_EQ(st.next_check_us, MS(71));

	/* Still high: the next Bad comes after Interval/sqrt(2), then /sqrt(3). */
	CHECK_EQ(c2tcp_on_rtt(&st, MS(60), MS(40), target, pin), C2TCP_ACT_NONE);
	CHECK_EQ(c2tcp_on_rtt(&st, MS(72), MS(40), target, pin), C2TCP_ACT_BACKOFF);
	CHECK_EQ(st.interval_us, 21213); /* 30000 / 1.41421 */
	CHECK_EQ(st.next_check_us, MS(72) + 21213);
	CHECK_EQ(c2tcp_on_rtt(&st, MS(90), MS(40), target, pin), C2TCP_ACT_NONE);
	CHECK_EQ(c2tcp_on_rtt(&st, MS(94), MS(40), target, pin), C2TCP_ACT_BACKOFF);
	CHECK_EQ(st.interval_us, 17320); /* 30000 / 1.73205 */
	CHECK_EQ(st.bad_events, 3);

	/* t3: a sample below Setpoint -> Good, Interval and N reset. */
	CHECK_EQ(c2tcp_on_rtt(&st, MS(100), MS(25), target, pin), C2TCP_ACT_GROW);
	CHECK_EQ(st.condition, C2TCP_GOOD);
	CHECK_EQ(st.n_bad, 1);
	CHECK_EQ(st.interval_us, MS(30));

	/* t5: the same delays as at t2 now read as Normal (fresh watch). */
	CHECK_EQ(c2tcp_on_rtt(&st, MS(110), MS(40), target, pin), C2TCP_ACT_NONE);
	CHECK_EQ(st.condition, C2TCP_NORMAL);
	CHECK_EQ(st.bad_events, 3);
}

/* A sample exactly at Setpoint is not Good ("rtt < Setpoint"). */
static void test_setpoint_boundary(void)
{
	struct c2tcp_state st = fresh();

	c2tcp_on_rtt(&st, MS(1), MS(20), MS(50), 1500);
	CHECK_EQ(c2tcp_on_rtt(&st, MS(2), MS(30), MS(50), 1500), C2TCP_ACT_NONE);
	CHECK_EQ(st.condition, C2TCP_NORMAL);
}

/* A new global minimum lowers Setpoint at once. */
static void test_min_rtt_tracks_global_min(void)
{
	struct c2tcp_state st = fresh();

	c2tcp_on_rtt(&st, MS(1), MS(40), MS(50), 1500);
	CHECK_EQ(st.setpoint_us, MS(60));
	c2tcp_on_rtt(&st, MS(2), MS(20), MS(50), 1500);
	CHECK_EQ(st.min_rtt_us, MS(20));
	CHECK_EQ(st.setpoint_us, MS(30));
	c2tcp_on_rtt(&st, MS(3), MS(100), MS(50), 1500);
	CHECK_EQ(st.min_rtt_us, MS(20));
}

static void test_tune_alpha_formula(void)
{
	/* avg > T: alpha (2T - avg) / avg */
	CHECK_EQ(c2tcp_tune_alpha(1500, MS(55), MS(50)), 1500 * 45 / 55);
	CHECK_EQ(c2tcp_tune_alpha(3000, MS(60), MS(50)), 3000 * 40 / 60);
	/* avg < T: alpha (T + avg) / (2 avg) */
	CHECK_EQ(c2tcp_tune_alpha(1500, MS(25), MS(50)), 2250);
	CHECK_EQ(c2tcp_tune_alpha(2000, MS(40), MS(50)), 2000 * 90 / 80);
	/* equal: unchanged */
	CHECK_EQ(c2tcp_tune_alpha(1700, MS(50), MS(50)), 1700);
	/* clamping to [1, 10] */
	CHECK_EQ(c2tcp_tune_alpha(1500, MS(100), MS(50)), C2TCP_ALPHA_MIN); /* avg = 2T */
	CHECK_EQ(c2tcp_tune_alpha(1500, MS(500), MS(50)), C2TCP_ALPHA_MIN);
	CHECK_EQ(c2tcp_tune_alpha(1100, MS(52), MS(50)), 1100 * 48 / 52);
	CHECK_EQ(c2tcp_tune_alpha(1100, MS(58), MS(50)), C2TCP_ALPHA_MIN);
	CHECK_EQ(c2tcp_tune_alpha(9000, MS(1), MS(50)), C2TCP_ALPHA_MAX);
	CHECK_EQ(c2tcp_tune_alpha(9000, 1, 10000000), C2TCP_ALPHA_MAX);
}

/* The Tuner runs on the 500 ms cycle from RTT samples: an average above the
 * Target shrinks alpha, below it grows alpha; a pinned alpha is left alone
 * while the cycles and averages are still reported. */
static void test_tuner_cycles(void)
{
	struct c2tcp_state st = fresh();
	__u64 t;

	for (t = 0; t <= MS(500); t += MS(10))
		c2tcp_on_rtt(&st, MS(1) + t, MS(60), MS(50), 0);
	CHECK_EQ(st.tune_cycles, 1);
	CHECK_EQ(st.last_avg_rtt_us, MS(60));
	CHECK_EQ(st.alpha_milli, 1500 * 40 / 60);

	st = fresh();
	for (t = 0; t <= MS(1000); t += MS(10))
		c2tcp_on_rtt(&st, MS(1) + t, MS(20), MS(80), 0);
	CHECK_EQ(st.tune_cycles, 2);
	CHECK_EQ(st.alpha_milli, c2tcp_tune_alpha(c2tcp_tune_alpha(1500, MS(20), MS(80)), MS(20), MS(80)));

	st = fresh();
	for (t = 0; t <= MS(1000); t += MS(10))
		c2tcp_on_rtt(&st, MS(1) + t, MS(200), MS(50), 3000);
	CHECK_EQ(st.tune_cycles, 2);
	CHECK_EQ(st.alpha_milli, 3000);
	CHECK_EQ(st.last_avg_rtt_us, MS(200));
}

/* Good growth: Setpoint/RTT extra segments per RTT, fraction carried over. */
static void test_good_growth(void)
{
	struct c2tcp_state st = fresh();
	__u32 i, added = 0;

	st.setpoint_us = MS(30);
	/* cwnd 10, RTT 20 ms: 1.5 segments per RTT = per 10 acked segments. */
	for (i = 0; i < 10; i++)
		added += c2tcp_good_growth(&st, 10, 1, MS(20));
	CHECK_EQ(added, 1);
	for (i = 0; i < 10; i++)
		added += c2tcp_good_growth(&st, 10, 1, MS(20));
	CHECK_EQ(added, 3);
	/* Stretch ACKs count every acked segment. */
	st.growth_credit = 0;
	CHECK_EQ(c2tcp_good_growth(&st, 10, 20, MS(20)), 3);
	CHECK_EQ(c2tcp_good_growth(&st, 0, 1, MS(20)), 0);
}

static void test_isqrt(void)
{
	__u64 x;

	for (x = 0; x < 100000; x++) {
		__u64 r = c2tcp_isqrt(x);
		if (!(r * r <= x && (r + 1) * (r + 1) > x)) {
			fprintf(stderr, "isqrt(%llu) = %llu\n", (unsigned long long)x, (unsigned long long)r);
			failures++;
			break;
		}
	}
	CHECK_EQ(c2tcp_isqrt(((__u64)C2TCP_N_MAX) << 40), 1ULL << 28);
	CHECK_EQ(c2tcp_isqrt((1ULL << 58) - 1), (1ULL << 29) - 1);
	CHECK_EQ(c2tcp_interval_div_sqrt(30000, 1), 30000);
	CHECK_EQ(c2tcp_interval_div_sqrt(30000, 4), 15000);
	CHECK_EQ(c2tcp_interval_div_sqrt(30000, 100), 3000);
	CHECK_EQ(c2tcp_interval_div_sqrt(30000, 1u << 30), 30000 / 256);
	for (x = 2; x < 5000; x++) {
		double want = 30000.0 / sqrt((double)x);
		double got = c2tcp_interval_div_sqrt(30000, (__u32)x);
		if (fabs(got - want) > 1.0) {
			fprintf(stderr, "interval_div_sqrt(30000, %llu) = %.0f, want %.1f\n",
				(unsigned long long)x, got, want);
			failures++;
			break;
		}
	}
}

/* Samples without an RTT change nothing. */
static void test_zero_rtt_ignored(void)
{
	struct c2tcp_state st = fresh();

	CHECK_EQ(c2tcp_on_rtt(&st, MS(1), 0, MS(50), 0), C2TCP_ACT_NONE);
	CHECK_EQ(st.min_rtt_us, 0);
	CHECK_EQ(st.cycle_rtt_cnt, 0);
}

int main(void)
{
	test_fig2_story();
	test_setpoint_boundary();
	test_min_rtt_tracks_global_min();
	test_tune_alpha_formula();
	test_tuner_cycles();
	test_good_growth();
	test_isqrt();
	test_zero_rtt_ignored();
	if (failures) {
		fprintf(stderr, "c2tcp_logic_test: %d failure(s)\n", failures);
		return 1;
	}
	printf("c2tcp_logic_test: all checks passed\n");
	return 0;
}
