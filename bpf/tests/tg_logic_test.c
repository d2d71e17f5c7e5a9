// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of bpf/tg_logic.h (TG: window = guided bandwidth x SRTT). */
#include <stdio.h>

#include "../tg_logic.h"

#include "check.h"

/* 12 Mbit/s (1.5 MB/s) x 20 ms = 30 000 bytes = 20 segments of 1500 wire
 * bytes: half of NATCP's eq. 1 (alpha 2) at the same RTT; the window grows
 * with the RTT the sender measures, queue included. */
static void test_window(void)
{
	CHECK_EQ(tg_target_cwnd(1500000, 20000, 1500), 20);
	CHECK_EQ(tg_target_cwnd(1500000, 20000, 1500) * 2, na_target_cwnd(1500000, 20000, 200, 1, 1500));
	CHECK_EQ(tg_target_cwnd(1500000, 120000, 1500), 120); /* 100 ms of queue on top */
	CHECK_EQ(tg_target_cwnd(12500, 10000, 1500), 2);      /* 100 kbit/s: the floor */
	CHECK_EQ(tg_target_cwnd(1500000, 20000, 0), 20);      /* wire 0 read as 1500 */
	CHECK_EQ(tg_target_cwnd(1500000, 0, 1500), 0);        /* no RTT yet: no window */
	/* Saturates instead of overflowing. */
	CHECK_EQ(tg_target_cwnd(~0ull, ~0u, 1), 0x7fffffff);
	/* 100 Gbit/s at 10 ms: 12.5 GB/s x 0.01 s / 1500. */
	CHECK_EQ(tg_target_cwnd(12500000000ull, 10000, 1500), 83333);
}

static void test_srtt_and_pacing(void)
{
	CHECK_EQ(tg_srtt_us(8 * 23456), 23456);
	CHECK_EQ(tg_srtt_us(7), 0);
	/* All of the bandwidth, in payload bytes: 1448 of every 1500. */
	CHECK_EQ(tg_pacing_rate(1500000, 1448, 1500), 1448000);
	CHECK_EQ(tg_pacing_rate(1500000, 1448, 0), 1500000);
}

int main(void)
{
	test_window();
	test_srtt_and_pacing();
	if (failures) {
		fprintf(stderr, "tg_logic_test: %d failure(s)\n", failures);
		return 1;
	}
	printf("tg_logic_test: ok\n");
	return 0;
}
