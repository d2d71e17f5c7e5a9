// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of bpf/westwood_logic.h and bpf/vegas_logic.h. */
#include <stdio.h>

#include "../vegas_logic.h"
#include "../westwood_logic.h"

#include "check.h"

/* A steady 1000 packets/s of 1448 bytes converges to 1.448 MB/s, and the
 * ssthresh after a loss is the pipe at the minimum RTT. */
static void test_westwood_converges_to_the_delivery_rate(void)
{
	struct westwood_est w;
	__u64 t = 1000;
	__u32 delivered = 0;
	int i;

	ww_est_init(&w, t, delivered);
	ww_est_rtt(&w, 40000);
	ww_est_rtt(&w, 20000);
	ww_est_rtt(&w, 30000);
	CHECK_EQ(w.rtt_min_us, 20000);
	CHECK_EQ(ww_est_ssthresh(&w, 1448), 0); /* no estimate yet */
	for (i = 0; i < 400; i++) { /* 1 ms per ACK of one packet, 20 s */
		t += 1000;
		delivered += 1;
		ww_est_rtt(&w, 40000);
		ww_est_ack(&w, t, delivered, 1448);
	}
	/* Windows of 40 ms (the RTT) plus at most one ACK spacing. */
	if (w.bw_est < 1448000ULL * 95 / 100 || w.bw_est > 1448000ULL * 105 / 100) {
		fprintf(stderr, "bw_est %llu, want ~1448000\n", (unsigned long long)w.bw_est);
		failures++;
	}
	/* 1.448 MB/s x 20 ms / 1448 B = 20 segments (+-5%). */
	if (ww_est_ssthresh(&w, 1448) < 19 || ww_est_ssthresh(&w, 1448) > 21) {
		fprintf(stderr, "ssthresh %u, want ~20\n", ww_est_ssthresh(&w, 1448));
		failures++;
	}
}

/* Sampling never happens faster than every 50 ms, whatever the RTT. */
static void test_westwood_minimum_window(void)
{
	struct westwood_est w;

	ww_est_init(&w, 0, 0);
	ww_est_rtt(&w, 1000);
	ww_est_ack(&w, 40000, 100, 1000);
	CHECK_EQ(w.have_sample, 0);
	ww_est_ack(&w, 50001, 100, 1000);
	CHECK_EQ(w.have_sample, 1);
	CHECK_EQ(w.bw_est, 100ULL * 1000 * 1000000 / 50001);
}

/* After a timeout the next RTT sample becomes the new minimum. */
static void test_westwood_rtt_min_reset(void)
{
	struct westwood_est w;

	ww_est_init(&w, 0, 0);
	ww_est_rtt(&w, 10000);
	ww_est_rtt(&w, 50000);
	CHECK_EQ(w.rtt_min_us, 10000);
	w.reset_rtt_min = 1;
	ww_est_rtt(&w, 50000);
	CHECK_EQ(w.rtt_min_us, 50000);
	ww_est_rtt(&w, 60000);
	CHECK_EQ(w.rtt_min_us, 50000);
}

/* A tiny estimate still leaves ssthresh at 2. */
static void test_westwood_ssthresh_floor(void)
{
	struct westwood_est w;

	ww_est_init(&w, 0, 0);
	w.have_sample = 1;
	w.bw_est = 1000;
	w.rtt_min_us = 10000;
	CHECK_EQ(ww_est_ssthresh(&w, 1448), 2);
}

static void test_vegas_diff_and_decisions(void)
{
	/* cwnd 20, base 20 ms, rtt 25 ms: 20 x 5/25 = 4 packets queued. */
	CHECK_EQ(vegas_diff(20, 20000, 25000), 4);
	CHECK_EQ(vegas_diff(20, 20000, 20000), 0);
	CHECK_EQ(vegas_diff(20, 20000, 19000), 0); /* below base: no queue */
	CHECK_EQ(vegas_target_cwnd(20, 20000, 25000), 16);
	/* Congestion avoidance: < alpha grow, > beta shrink, else hold. */
	CHECK_EQ(vegas_decide(0, 0), VEGAS_GROW);
	CHECK_EQ(vegas_decide(1, 0), VEGAS_GROW);
	CHECK_EQ(vegas_decide(2, 0), VEGAS_HOLD);
	CHECK_EQ(vegas_decide(4, 0), VEGAS_HOLD);
	CHECK_EQ(vegas_decide(5, 0), VEGAS_SHRINK);
	/* Slow start ends once more than gamma packets queue. */
	CHECK_EQ(vegas_decide(1, 1), VEGAS_GROW);
	CHECK_EQ(vegas_decide(2, 1), VEGAS_LEAVE_SS);
}

/* Closed loop on a fluid model (10 ms base RTT, 1000 packets/s): Vegas
 * settles with 2-4 packets queued. */
static void test_vegas_settles_between_alpha_and_beta(void)
{
	const double bw = 1000.0, base = 0.010;
	unsigned cwnd = 30, round;
	__u32 diff = 0;

	for (round = 0; round < 200; round++) {
		double bdp = bw * base;
		double queue = cwnd > bdp ? cwnd - bdp : 0;
		__u32 rtt_us = (__u32)((base + queue / bw) * 1e6);

		diff = vegas_diff(cwnd, (__u32)(base * 1e6), rtt_us);
		switch (vegas_decide(diff, 0)) {
		case VEGAS_GROW: cwnd++; break;
		case VEGAS_SHRINK: cwnd--; break;
		default: break;
		}
	}
	if (diff < VEGAS_ALPHA || diff > VEGAS_BETA) {
		fprintf(stderr, "vegas settled with %u packets queued (cwnd %u)\n", diff, cwnd);
		failures++;
	}
}

int main(void)
{
	test_westwood_converges_to_the_delivery_rate();
	test_westwood_minimum_window();
	test_westwood_rtt_min_reset();
	test_westwood_ssthresh_floor();
	test_vegas_diff_and_decisions();
	test_vegas_settles_between_alpha_and_beta();
	if (failures) {
		fprintf(stderr, "westwood_vegas_logic_test: %d failure(s)\n", failures);
		return 1;
	}
	printf("westwood_vegas_logic_test: all checks passed\n");
	return 0;
}
