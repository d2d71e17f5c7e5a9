// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of bpf/abc_logic.h. */
#include <stdio.h>

#include "../abc_logic.h"
#include "check.h"

/* +1 per accelerate, -1 per brake, counted from the kernel's deltas. */
static void test_plus_one_per_accelerate_minus_one_per_brake(void)
{
	struct abc_state s;
	__u32 d = 1000, ce = 40, w = 50;

	abc_init_state(&s, d, ce, w);
	/* A delayed ACK of 2 packets, neither marked: +2. */
	d += 2;
	w = abc_on_ack(&s, w, d, ce, 1);
	CHECK_EQ(w, 52);
	/* 2 packets, one brake: +1 - 1. */
	d += 2;
	ce += 1;
	w = abc_on_ack(&s, w, d, ce, 1);
	CHECK_EQ(w, 52);
	/* 3 packets, all brakes: -3. */
	d += 3;
	ce += 3;
	w = abc_on_ack(&s, w, d, ce, 1);
	CHECK_EQ(w, 49);
	CHECK_EQ(s.accelerates, 3);
	CHECK_EQ(s.brakes, 4);
	/* An ACK that delivered nothing (a window update): no change. */
	w = abc_on_ack(&s, w, d, ce, 1);
	CHECK_EQ(w, 49);
}

/* A fraction f of accelerates over one window changes it by w(2f - 1):
 * f = 1/2 holds the window (plus Reno's +1 per window), f = 1/4 halves it. */
static void test_a_window_at_fraction_f(void)
{
	struct abc_state s;
	__u32 d = 0, ce = 0, w = 100, i;

	abc_init_state(&s, d, ce, w);
	for (i = 0; i < 100; i++) { /* every other packet braked */
		d++;
		ce += i & 1;
		w = abc_on_ack(&s, w, d, ce, 1);
	}
	CHECK_EQ(w, 100); /* +50 - 50 */
	CHECK_EQ(s.ai_count, 100);
	d++; /* one more accelerate completes a window: +1, and Reno's +1 */
	w = abc_on_ack(&s, w, d, ce, 1);
	CHECK_EQ(w, 102);
	abc_init_state(&s, d, ce, w = 100);
	for (i = 0; i < 100; i++) { /* one in four an accelerate */
		d++;
		ce += (i % 4) != 0;
		w = abc_on_ack(&s, w, d, ce, 1);
	}
	/* 100 x (2/4 - 1) = -50; the additive increase adds one when the
	 * delivered count (67) passes the shrinking window (66). */
	CHECK_EQ(w, 51);
}

/* Floors, wrap-around of the kernel's u32 counters, recovery, loss. */
static void test_floor_wrap_recovery_and_loss(void)
{
	struct abc_state s;
	__u32 d = 0xfffffffe, ce = 0xffffffff, w = 6;

	abc_init_state(&s, d, ce, w);
	d += 4; /* wraps */
	ce += 4;
	w = abc_on_ack(&s, w, d, ce, 1);
	CHECK_EQ(w, ABC_MIN_CWND);
	/* While recovering, accelerates do not grow the window. */
	w = 20;
	d += 5;
	w = abc_on_ack(&s, w, d, ce, 0);
	CHECK_EQ(w, 20);
	/* More CE than delivered (counters read mid-update): capped at acked. */
	d += 1;
	ce += 3;
	w = abc_on_ack(&s, w, d, ce, 1);
	CHECK_EQ(w, 19);
	CHECK_EQ(abc_on_loss(&s, 40), 20);
	CHECK_EQ(s.undo_cwnd, 40);
	CHECK_EQ(abc_on_loss(&s, 7), ABC_MIN_CWND);
	/* 2 x 10 x 1448 B / 20 ms = 1.448 MB/s. */
	CHECK_EQ(abc_pacing_rate(10, 1448, 20000), 1448000);
	CHECK_EQ(abc_pacing_rate(10, 1448, 0), 0);
}

int main(void)
{
	test_plus_one_per_accelerate_minus_one_per_brake();
	test_a_window_at_fraction_f();
	test_floor_wrap_recovery_and_loss();
	if (failures) {
		fprintf(stderr, "abc_logic_test: %d failure(s)\n", failures);
		return 1;
	}
	printf("abc_logic_test: ok\n");
	return 0;
}
