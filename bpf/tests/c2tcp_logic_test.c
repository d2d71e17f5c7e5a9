// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of bpf/c2tcp_logic.h: the exact code the BPF program runs,
 * driven with hand-made RTT sequences so every decision is deterministic.
 * Build and run: make test-logic
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../c2tcp_logic.h"
#include "check.h"


#define MS(x) ((__u64)(x) * 1000ULL)

/* The paper variant: Algorithms 1-3 as printed. */
static struct c2tcp_state fresh(void)
{
	struct c2tcp_state st;

	c2tcp_state_init(&st, 0);
	return st;
}

static struct c2tcp_state with(__u32 behaviours)
{
	struct c2tcp_state st;

	c2tcp_state_init(&st, behaviours);
	return st;
}

/* A sample outside any blind window. */
static enum c2tcp_action on_rtt(struct c2tcp_state *st, __u64 now_us, __u32 rtt_us,
				__u32 target_us, __u32 pin)
{
	return c2tcp_on_rtt(st, now_us, rtt_us, target_us, pin, 0);
}

/* The paper's Fig. 2: good -> normal -> bad -> repeated bad at Interval/sqrt(N)
 * -> good, then the same delays again read as Normal because the history
 * differs. alpha pinned at 1.5 so the Tuner stays out of the story. */
static void test_fig2_story(void)
{
	struct c2tcp_state st = fresh();
	const __u32 pin = 1500, target = MS(50);

	/* t=0: 20 ms, the first sample: min RTT 20, Setpoint 30, Good. */
	CHECK_EQ(on_rtt(&st, MS(1), MS(20), target, pin), C2TCP_ACT_GROW);
	CHECK_EQ(st.min_rtt_us, MS(20));
	CHECK_EQ(st.setpoint_us, MS(30));
	CHECK_EQ(st.interval_us, MS(30));
	CHECK_EQ(st.condition, C2TCP_GOOD);

	/* t0 = 10 ms: above Setpoint for the first time -> Normal, watch 30 ms. */
	CHECK_EQ(on_rtt(&st, MS(10), MS(35), target, pin), C2TCP_ACT_NONE);
	CHECK_EQ(st.condition, C2TCP_NORMAL);
	CHECK_EQ(st.next_check_us, MS(40));
	/* Still within the Interval: nothing. */
	CHECK_EQ(on_rtt(&st, MS(25), MS(36), target, pin), C2TCP_ACT_NONE);
	CHECK_EQ(on_rtt(&st, MS(40), MS(36), target, pin), C2TCP_ACT_NONE);
	CHECK_EQ(st.condition, C2TCP_NORMAL);

	/* t1 + Interval: the whole Interval stayed above Setpoint -> Bad (N=1). */
	CHECK_EQ(on_rtt(&st, MS(41), MS(37), target, pin), C2TCP_ACT_BACKOFF);
	CHECK_EQ(st.condition, C2TCP_BAD);
	CHECK_EQ(st.bad_events, 1);
	CHECK_EQ(st.interval_us, MS(30));
	CHECK_EQ(st.next_check_us, MS(71));

	/* Still high: the next Bad comes after Interval/sqrt(2), then /sqrt(3). */
	CHECK_EQ(on_rtt(&st, MS(60), MS(40), target, pin), C2TCP_ACT_NONE);
	CHECK_EQ(on_rtt(&st, MS(72), MS(40), target, pin), C2TCP_ACT_BACKOFF);
	CHECK_EQ(st.interval_us, 21213); /* 30000 / 1.41421 */
	CHECK_EQ(st.next_check_us, MS(72) + 21213);
	CHECK_EQ(on_rtt(&st, MS(90), MS(40), target, pin), C2TCP_ACT_NONE);
	CHECK_EQ(on_rtt(&st, MS(94), MS(40), target, pin), C2TCP_ACT_BACKOFF);
	CHECK_EQ(st.interval_us, 17320); /* 30000 / 1.73205 */
	CHECK_EQ(st.bad_events, 3);

	/* t3: a sample below Setpoint -> Good, Interval and N reset. */
	CHECK_EQ(on_rtt(&st, MS(100), MS(25), target, pin), C2TCP_ACT_GROW);
	CHECK_EQ(st.condition, C2TCP_GOOD);
	CHECK_EQ(st.n_bad, 1);
	CHECK_EQ(st.interval_us, MS(30));

	/* t5: the same delays as at t2 now read as Normal (fresh watch). */
	CHECK_EQ(on_rtt(&st, MS(110), MS(40), target, pin), C2TCP_ACT_NONE);
	CHECK_EQ(st.condition, C2TCP_NORMAL);
	CHECK_EQ(st.bad_events, 3);
}

/* A sample exactly at Setpoint is not Good ("rtt < Setpoint"). */
static void test_setpoint_boundary(void)
{
	struct c2tcp_state st = fresh();

	on_rtt(&st, MS(1), MS(20), MS(50), 1500);
	CHECK_EQ(on_rtt(&st, MS(2), MS(30), MS(50), 1500), C2TCP_ACT_NONE);
	CHECK_EQ(st.condition, C2TCP_NORMAL);
}

/* A new global minimum lowers Setpoint at once. */
static void test_min_rtt_tracks_global_min(void)
{
	struct c2tcp_state st = fresh();

	on_rtt(&st, MS(1), MS(40), MS(50), 1500);
	CHECK_EQ(st.setpoint_us, MS(60));
	on_rtt(&st, MS(2), MS(20), MS(50), 1500);
	CHECK_EQ(st.min_rtt_us, MS(20));
	CHECK_EQ(st.setpoint_us, MS(30));
	on_rtt(&st, MS(3), MS(100), MS(50), 1500);
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
		on_rtt(&st, MS(1) + t, MS(60), MS(50), 0);
	CHECK_EQ(st.tune_cycles, 1);
	CHECK_EQ(st.last_avg_rtt_us, MS(60));
	CHECK_EQ(st.alpha_milli, 1500 * 40 / 60);

	st = fresh();
	for (t = 0; t <= MS(1000); t += MS(10))
		on_rtt(&st, MS(1) + t, MS(20), MS(80), 0);
	CHECK_EQ(st.tune_cycles, 2);
	CHECK_EQ(st.alpha_milli, c2tcp_tune_alpha(c2tcp_tune_alpha(1500, MS(20), MS(80)), MS(20), MS(80)));

	st = fresh();
	for (t = 0; t <= MS(1000); t += MS(10))
		on_rtt(&st, MS(1) + t, MS(200), MS(50), 3000);
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

	CHECK_EQ(on_rtt(&st, MS(1), 0, MS(50), 0), C2TCP_ACT_NONE);
	CHECK_EQ(st.min_rtt_us, 0);
	CHECK_EQ(st.cycle_rtt_cnt, 0);
}


/* ---- the authors' behaviours (jsac) ---- */

/* BLIND_WINDOW: samples inside Cubic's blind second change nothing - not the
 * detector, not the min RTT, not the Tuner's average - and are counted. */
static void test_blind_window_changes_nothing(void)
{
	struct c2tcp_state st = with(C2TCP_B_BLIND_WINDOW), before;
	__u64 t;

	on_rtt(&st, MS(1), MS(20), MS(50), 0);
	on_rtt(&st, MS(10), MS(40), MS(50), 0); /* a watch starts */
	before = st;
	/* A new minimum, long-high samples past the watch, past a 500 ms cycle. */
	CHECK_EQ(c2tcp_on_rtt(&st, MS(20), MS(5), MS(50), 0, 1), C2TCP_ACT_NONE);
	for (t = MS(30); t < MS(900); t += MS(10))
		CHECK_EQ(c2tcp_on_rtt(&st, t, MS(400), MS(50), 0, 1), C2TCP_ACT_NONE);
	CHECK_EQ(st.skipped_samples, 1 + (MS(900) - MS(30)) / MS(10));
	st.skipped_samples = 0;
	CHECK_EQ(memcmp(&st, &before, sizeof(st)), 0);
	CHECK_EQ(st.cycle_rtt_cnt, 2);

	/* Outside the window the same sample is a Bad at once. */
	CHECK_EQ(on_rtt(&st, MS(900), MS(400), MS(50), 0), C2TCP_ACT_BACKOFF);

	/* Without the switch, "blind" is ignored: the paper runs on every ACK. */
	st = fresh();
	on_rtt(&st, MS(1), MS(20), MS(50), 0);
	CHECK_EQ(c2tcp_on_rtt(&st, MS(2), MS(5), MS(50), 0, 1), C2TCP_ACT_GROW);
	CHECK_EQ(st.min_rtt_us, MS(5));
	CHECK_EQ(st.skipped_samples, 0);
}

/* ANCHORED_TUNER: the authors' integer arithmetic (ms, percent). */
static void test_anchored_tuner_formula(void)
{
	/* min 20 ms, T 50 ms: anchor 250 */
	CHECK_EQ(c2tcp_tune_anchored_pct(0, 20, 50), 250);      /* empty cycle: the anchor */
	CHECK_EQ(c2tcp_tune_anchored_pct(50, 20, 50), 250);     /* avg = T: the anchor */
	CHECK_EQ(c2tcp_tune_anchored_pct(60, 20, 50), 250 - 2 * 10 * 250 / 60);
	CHECK_EQ(c2tcp_tune_anchored_pct(40, 20, 50), 250 + (10 * 250 / 2) / 40);
	CHECK_EQ(c2tcp_tune_anchored_pct(20, 20, 50), 250 + (30 * 250 / 2) / 20);
	CHECK_EQ(c2tcp_tune_anchored_pct(100, 20, 50), 100);    /* clamped at 1 below */
	CHECK_EQ(c2tcp_tune_anchored_pct(2000, 20, 50), 100);
	CHECK_EQ(c2tcp_tune_anchored_pct(1, 2, 50), 1000);      /* clamped at 10 above */
	/* The bare anchor is not clamped: T below the min RTT gives alpha < 1, */
	CHECK_EQ(c2tcp_tune_anchored_pct(0, 60, 50), 83);
	/* and a decrease from an anchor above 10 is clamped only below. */
	CHECK_EQ(c2tcp_tune_anchored_pct(55, 4, 50), 1250 - 2 * 5 * 1250 / 55);
	/* min RTT under 1 ms reads as 1 ms instead of dividing by zero */
	CHECK_EQ(c2tcp_tune_anchored_pct(0, 0, 50), 5000);
}

/* ANCHORED_TUNER: alpha after a cycle depends only on Target, min RTT and the
 * cycle's average - not on alpha before it; an empty cycle gives the anchor. */
static void test_anchored_tuner_has_no_memory(void)
{
	__u32 b = C2TCP_B_ANCHORED_TUNER | C2TCP_B_BLIND_WINDOW;
	struct c2tcp_state x = with(b), y = with(b);
	__u64 t;

	y.alpha_milli = 7000; /* a different history */
	for (t = 0; t <= MS(500); t += MS(10)) {
		on_rtt(&x, MS(1) + t, t ? MS(60) : MS(20), MS(50), 0);
		on_rtt(&y, MS(1) + t, t ? MS(60) : MS(20), MS(50), 0);
	}
	CHECK_EQ(x.tune_cycles, 1);
	CHECK_EQ(x.alpha_milli, 10 * c2tcp_tune_anchored_pct(59, 20, 50)); /* avg 59.2 ms */
	CHECK_EQ(y.alpha_milli, x.alpha_milli);

	/* A whole cycle inside the blind window: alpha = Target / min RTT. */
	for (t = MS(510); t <= MS(1020); t += MS(10))
		c2tcp_on_rtt(&x, MS(1) + t, MS(400), MS(50), 0, 1);
	CHECK_EQ(x.tune_cycles, 2);
	CHECK_EQ(x.alpha_milli, 2500);
	CHECK_EQ(x.last_avg_rtt_us, 59215); /* the last cycle that had samples */

	/* The paper's Tuner carries alpha over. */
	x = fresh();
	y = fresh();
	y.alpha_milli = 3000;
	for (t = 0; t <= MS(500); t += MS(10)) {
		on_rtt(&x, MS(1) + t, MS(40), MS(50), 0);
		on_rtt(&y, MS(1) + t, MS(40), MS(50), 0);
	}
	CHECK_EQ(x.alpha_milli, c2tcp_tune_alpha(1500, MS(40), MS(50)));
	CHECK_EQ(y.alpha_milli, c2tcp_tune_alpha(3000, MS(40), MS(50)));
}

/* MS_GOOD_TEST: whole ms and <=, so at alpha = 1 a sample in the min RTT's
 * millisecond is Good; the paper's strict µs test finds it Normal. */
static void test_whole_ms_good_test(void)
{
	struct c2tcp_state st = with(C2TCP_B_MS_GOOD_TEST);

	CHECK_EQ(on_rtt(&st, MS(1), 20400, MS(50), 1000), C2TCP_ACT_GROW);
	CHECK_EQ(st.setpoint_us, MS(20));
	CHECK_EQ(on_rtt(&st, MS(2), 20900, MS(50), 1000), C2TCP_ACT_GROW);
	CHECK_EQ(st.condition, C2TCP_GOOD);
	CHECK_EQ(on_rtt(&st, MS(3), 21000, MS(50), 1000), C2TCP_ACT_NONE);
	CHECK_EQ(st.condition, C2TCP_NORMAL);
	/* alpha 1.5 on a 20.4 ms min: Setpoint floor(20 x 1.5) = 30 ms, 30.9 is Good */
	st = with(C2TCP_B_MS_GOOD_TEST);
	on_rtt(&st, MS(1), 20400, MS(50), 1500);
	CHECK_EQ(on_rtt(&st, MS(2), 30900, MS(50), 1500), C2TCP_ACT_GROW);

	st = fresh();
	CHECK_EQ(on_rtt(&st, MS(1), 20400, MS(50), 1000), C2TCP_ACT_NONE);
	CHECK_EQ(on_rtt(&st, MS(2), 20900, MS(50), 1000), C2TCP_ACT_NONE);
}

/* SHARED_GROWTH: floor(Setpoint_ms / rtt_ms) into the shared counter per ACK;
 * cwnd grows by cnt / cwnd, remainder kept, clamped. */
static void test_shared_counter_growth(void)
{
	struct c2tcp_state st = with(C2TCP_B_SHARED_GROWTH);
	__u32 cwnd = 10, cnt = 8;

	st.setpoint_us = MS(30);
	c2tcp_shared_growth(&st, MS(20), &cwnd, &cnt, 1000); /* +1 */
	CHECK_EQ(cwnd, 10);
	CHECK_EQ(cnt, 9);
	c2tcp_shared_growth(&st, 20999, &cwnd, &cnt, 1000); /* 30 / 20 = 1 */
	CHECK_EQ(cwnd, 11);
	CHECK_EQ(cnt, 0);
	/* Setpoint 300 ms, RTT 20 ms: 15 per ACK; cwnd 5 -> +3, remainder 0 */
	st.setpoint_us = MS(300);
	cwnd = 5;
	cnt = 2;
	c2tcp_shared_growth(&st, MS(20), &cwnd, &cnt, 1000);
	CHECK_EQ(cwnd, 8);
	CHECK_EQ(cnt, 2);
	/* RTT under 1 ms counts as 1 ms; the clamp holds */
	cwnd = 5;
	cnt = 0;
	c2tcp_shared_growth(&st, 500, &cwnd, &cnt, 20);
	CHECK_EQ(cwnd, 20);
	/* RTT above Setpoint adds nothing */
	cwnd = 5;
	cnt = 1;
	c2tcp_shared_growth(&st, MS(301), &cwnd, &cnt, 1000);
	CHECK_EQ(cnt, 1);
	CHECK_EQ(cwnd, 5);
}

/* ACK_INTERVAL: the watch and the Bad schedule use the Setpoint in force now,
 * and 1/sqrt(N) comes from CoDel's Newton step. */
static void test_interval_follows_current_alpha(void)
{
	struct c2tcp_state st = with(C2TCP_B_ACK_INTERVAL), paper = fresh();
	__u32 n, prev_bad_at;
	__u64 t;
	double y;

	on_rtt(&st, MS(1), MS(20), MS(50), 1500);     /* Good, Setpoint 30 */
	on_rtt(&paper, MS(1), MS(20), MS(50), 1500);
	on_rtt(&st, MS(10), MS(70), MS(50), 3000);    /* alpha now 3: Setpoint 60 */
	on_rtt(&paper, MS(10), MS(70), MS(50), 3000);
	CHECK_EQ(st.next_check_us, MS(10) + MS(60));  /* the current Setpoint */
	CHECK_EQ(paper.next_check_us, MS(10) + MS(30)); /* the last Good's */

	/* Bads at Interval x rec_inv_sqrt(N), CoDel's Newton recurrence
	 * y(N) = y(N-1) (3 - N y(N-1)^2) / 2 from y(1) = 1 (coarse at first:
	 * 0.5 at N = 2), which approaches 1/sqrt(N). */
	CHECK_EQ(on_rtt(&st, MS(71), MS(70), MS(50), 3000), C2TCP_ACT_BACKOFF);
	prev_bad_at = MS(71);
	for (n = 2, t = MS(71), y = 1.0; n <= 40; t += 100) {
		if (on_rtt(&st, t, MS(70), MS(50), 3000) != C2TCP_ACT_BACKOFF)
			continue;
		y = y * (3.0 - (double)(n - 1) * y * y) / 2.0; /* Newton at the count before */
		{
			double want = 60000.0 * y, got = (double)(t - prev_bad_at);
			if (fabs(got - want) > 0.01 * want + 100) {
				fprintf(stderr, "Bad %u came %.0f us after the previous, want ~%.0f\n",
					n, got, want);
				failures++;
				break;
			}
		}
		prev_bad_at = (__u32)t;
		n++;
	}
	CHECK_EQ(n, 41);
	/* by then the schedule is CoDel's Interval/sqrt(N) within 3 % */
	CHECK_EQ(fabs(y * sqrt(39.0) - 1.0) < 0.03, 1);
}

/* ACK_INTERVAL switched on in the middle of a Bad streak (a C2TCP_VARIANT
 * set during the connection): the next Bads keep CoDel's schedule from the
 * streak's N. Before the fix the Newton step ran only under ACK_INTERVAL,
 * so it started from 1/sqrt(1) at N = 10 and wrapped to a watch of 0-1 us:
 * a Bad on every ACK (found by c2tcp_logic_prop_test). */
static void test_ack_interval_switched_on_mid_streak(void)
{
	struct c2tcp_state st = fresh(); /* paper: no ACK_INTERVAL */
	__u64 t;
	__u32 bads = 0;

	on_rtt(&st, MS(1), MS(20), MS(50), 1500); /* Good, Setpoint 30 */
	for (t = MS(10); bads < 9; t += 1000)
		bads += on_rtt(&st, t, MS(40), MS(50), 1500) == C2TCP_ACT_BACKOFF;
	CHECK_EQ(st.n_bad, 10);
	st.behaviours = C2TCP_B_ACK_INTERVAL;
	while (on_rtt(&st, t, MS(40), MS(50), 1500) != C2TCP_ACT_BACKOFF)
		t += 1000;
	/* 30 ms x ~1/sqrt(10): CoDel's estimate, about 9.5 ms, not ~0 */
	CHECK_EQ(st.interval_us > MS(8) && st.interval_us < MS(11), 1);
}

/* A Setpoint that does not fit 32 bits saturates instead of wrapping: the
 * anchored Tuner's bare alpha 100 (no sample in its first cycle, min RTT
 * 0) times a 50 s RTT is 5 000 s. */
static void test_setpoint_saturates(void)
{
	struct c2tcp_state st = with(C2TCP_B_ANCHORED_TUNER);

	c2tcp_on_rtt(&st, 1, MS(50000), MS(50), 0, 0);
	st.alpha_milli = C2TCP_ALPHA_SAFE_MAX;
	on_rtt(&st, 2, MS(50000), MS(50), 0);
	CHECK_EQ(st.setpoint_us, 0xffffffffu);
}

/* C2TCP_VARIANT values: base, forced-on and forced-off behaviours. */
static void test_variant_encoding(void)
{
	const __u32 on = C2TCP_VARIANT_ON_SHIFT, off = C2TCP_VARIANT_OFF_SHIFT;

	CHECK_EQ(c2tcp_behaviours(C2TCP_VARIANT_JSAC, 0), C2TCP_B_JSAC);
	CHECK_EQ(C2TCP_B_JSAC, 0x1f); /* the authors' five, as before the drain variant */
	CHECK_EQ(c2tcp_behaviours(C2TCP_VARIANT_PAPER, 0), 0);
	CHECK_EQ(c2tcp_behaviours(0, 0), C2TCP_B_JSAC);                  /* default default: jsac */
	CHECK_EQ(c2tcp_behaviours(C2TCP_VARIANT_DRAIN, 0), C2TCP_B_DRAIN);
	CHECK_EQ(c2tcp_behaviours(0, C2TCP_VARIANT_DRAIN), C2TCP_B_DRAIN);
	CHECK_EQ(C2TCP_B_DRAIN & C2TCP_B_JSAC, C2TCP_B_JSAC & C2TCP_B_DRAIN);
	CHECK_EQ(c2tcp_behaviours(C2TCP_VARIANT_DRAIN | C2TCP_B_PACING << off, 0),
		 C2TCP_B_DRAIN & ~C2TCP_B_PACING);
	CHECK_EQ(c2tcp_behaviours(C2TCP_VARIANT_JSAC | C2TCP_B_BDP_FLOOR << on, 0),
		 C2TCP_B_JSAC | C2TCP_B_BDP_FLOOR);
	CHECK_EQ(c2tcp_behaviours(0, C2TCP_VARIANT_PAPER), 0);
	CHECK_EQ(c2tcp_behaviours(C2TCP_VARIANT_PAPER | C2TCP_B_BLIND_WINDOW << on, 0),
		 C2TCP_B_BLIND_WINDOW);
	CHECK_EQ(c2tcp_behaviours(C2TCP_VARIANT_JSAC | C2TCP_B_SHARED_GROWTH << off, 0),
		 C2TCP_B_JSAC & ~C2TCP_B_SHARED_GROWTH);
	/* forced bits on top of the load-time default */
	CHECK_EQ(c2tcp_behaviours(C2TCP_B_MS_GOOD_TEST << on, C2TCP_VARIANT_PAPER),
		 C2TCP_B_MS_GOOD_TEST);
	CHECK_EQ(c2tcp_behaviours(0, C2TCP_VARIANT_PAPER | C2TCP_B_ACK_INTERVAL << on),
		 C2TCP_B_ACK_INTERVAL);
	CHECK_EQ(c2tcp_variant_valid(0), 1);
	CHECK_EQ(c2tcp_variant_valid(2 | 0x1f << on), 1);
	CHECK_EQ(c2tcp_variant_valid(3), 1);
	CHECK_EQ(c2tcp_variant_valid(4), 0);
	CHECK_EQ(c2tcp_variant_valid(1 | 0x20 << on), 1);
	CHECK_EQ(c2tcp_variant_valid(2 | 0xffu << off), 1);
	CHECK_EQ(c2tcp_variant_valid(3 | 0x80 << on | 0x80 << off), 0);
	CHECK_EQ(c2tcp_variant_valid(1 | 1 << on | 1 << off), 0);
	CHECK_EQ(c2tcp_variant_valid(1u << 24), 0);
}

/* BDP_FLOOR's measure: delivered packets per min RTT, over windows of at
 * least a min RTT, each scaled to exactly one. */
static void test_delivered_per_min_rtt(void)
{
	struct c2tcp_state st = with(C2TCP_B_BDP_FLOOR);

	/* The first call opens a window; without a min RTT none closes. */
	c2tcp_track_delivered(&st, MS(1), 100);
	CHECK_EQ(st.win_start_us, MS(1));
	CHECK_EQ(st.win_delivered, 100);
	c2tcp_track_delivered(&st, MS(5), 150);
	CHECK_EQ(st.bdp_pkts, 0);
	CHECK_EQ(st.win_start_us, MS(1));
	/* min RTT 20 ms: the window closes at 21 ms, 100 packets in 20 ms. */
	on_rtt(&st, MS(5), MS(20), MS(50), 1500);
	c2tcp_track_delivered(&st, MS(20), 190);
	CHECK_EQ(st.bdp_pkts, 0);
	c2tcp_track_delivered(&st, MS(21), 200);
	CHECK_EQ(st.bdp_pkts, 100);
	CHECK_EQ(st.win_start_us, MS(21));
	CHECK_EQ(st.win_delivered, 200);
	/* A window closed late is scaled to one min RTT: 50 in 25 ms -> 40. */
	c2tcp_track_delivered(&st, MS(46), 250);
	CHECK_EQ(st.bdp_pkts, 40);
	/* An outage stretches the window: 10 packets in 2 s is 0.1 per 20 ms. */
	c2tcp_track_delivered(&st, MS(2046), 260);
	CHECK_EQ(st.bdp_pkts, 0);
	/* The delivered count wraps at 2^32. */
	st.win_delivered = 0xfffffff0u;
	c2tcp_track_delivered(&st, MS(2066), 0x10);
	CHECK_EQ(st.bdp_pkts, 0x20);
	/* A clock that steps back restarts the window and keeps the figure. */
	c2tcp_track_delivered(&st, MS(5), 0x30);
	CHECK_EQ(st.win_start_us, MS(5));
	CHECK_EQ(st.bdp_pkts, 0x20);
}

/* The Bad's window: 1 as printed and released; with BDP_FLOOR what the path
 * delivered in the last min RTT, but never above the window in force. */
static void test_backoff_window(void)
{
	struct c2tcp_state st = with(C2TCP_B_JSAC);

	st.bdp_pkts = 300;
	CHECK_EQ(c2tcp_backoff_cwnd(&st, 500), 1);
	CHECK_EQ(c2tcp_backoff_cwnd(&st, 1), 1);
	st = with(0);
	st.bdp_pkts = 300;
	CHECK_EQ(c2tcp_backoff_cwnd(&st, 500), 1);
	st = with(C2TCP_B_DRAIN);
	CHECK_EQ(c2tcp_backoff_cwnd(&st, 500), 1); /* nothing measured yet */
	st.bdp_pkts = 300;
	CHECK_EQ(c2tcp_backoff_cwnd(&st, 500), 300);
	CHECK_EQ(c2tcp_backoff_cwnd(&st, 200), 200); /* never raises it */
	CHECK_EQ(c2tcp_backoff_cwnd(&st, 0), 1);     /* never 0 */
	st.bdp_pkts = 0xffffffffu;
	CHECK_EQ(c2tcp_backoff_cwnd(&st, 0xfffffffeu), 0xfffffffeu);
}

/* HOLD_SSTHRESH: a Bad recomputes ssthresh only once cwnd is back at it
 * (or none was set yet); without the behaviour, always. */
static void test_hold_ssthresh_while_climbing_back(void)
{
	struct c2tcp_state held = with(C2TCP_B_DRAIN), plain = with(C2TCP_B_JSAC);

	CHECK_EQ(c2tcp_backoff_sets_ssthresh(&held, 10, C2TCP_INFINITE_SSTHRESH), 1);
	CHECK_EQ(c2tcp_backoff_sets_ssthresh(&held, 300, 200), 1);
	CHECK_EQ(c2tcp_backoff_sets_ssthresh(&held, 200, 200), 1);
	CHECK_EQ(c2tcp_backoff_sets_ssthresh(&held, 199, 200), 0);
	CHECK_EQ(c2tcp_backoff_sets_ssthresh(&held, 1, 2), 0);
	CHECK_EQ(c2tcp_backoff_sets_ssthresh(&plain, 199, 200), 1);
	CHECK_EQ(c2tcp_backoff_sets_ssthresh(&plain, 1, 2), 1);
	CHECK_EQ(c2tcp_backoff_sets_ssthresh(&plain, 10, C2TCP_INFINITE_SSTHRESH), 1);
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
	test_blind_window_changes_nothing();
	test_anchored_tuner_formula();
	test_anchored_tuner_has_no_memory();
	test_whole_ms_good_test();
	test_shared_counter_growth();
	test_interval_follows_current_alpha();
	test_variant_encoding();
	test_ack_interval_switched_on_mid_streak();
	test_setpoint_saturates();
	test_delivered_per_min_rtt();
	test_backoff_window();
	test_hold_ssthresh_while_climbing_back();
	if (failures) {
		fprintf(stderr, "c2tcp_logic_test: %d failure(s)\n", failures);
		return 1;
	}
	printf("c2tcp_logic_test: all checks passed\n");
	return 0;
}
