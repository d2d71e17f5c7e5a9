// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of bpf/ce_echo.h, the receiver's DCTCP-style echo. */
#include <stdio.h>

#include "../ce_echo.h"
#include "check.h"

/* An immediate ACK at each flip of the CE state, the delayed one first
 * (with the old state and the old rcv_nxt) if pending. */
static void test_the_echo_follows_each_flip(void)
{
	struct ce_echo e = { .prior_rcv_nxt = 1000, .ce_state = 0 };
	__u32 prior, prior_ce;

	CHECK_EQ(ce_echo_packet(&e, 0, 2448, 1, &prior, &prior_ce), 0); /* no flip */
	CHECK_EQ(ce_echo_packet(&e, 1, 3896, 0, &prior, &prior_ce), CE_ECHO_ACK_NOW);
	CHECK_EQ(prior_ce, 0);
	CHECK_EQ(ce_echo_packet(&e, 1, 5344, 1, &prior, &prior_ce), 0);
	CHECK_EQ(ce_echo_packet(&e, 0, 6792, 1, &prior, &prior_ce),
		 CE_ECHO_ACK_NOW | CE_ECHO_PRIOR);
	CHECK_EQ(prior, 5344); /* the delayed ACK covers up to the last CE packet */
	CHECK_EQ(prior_ce, 1);
	CHECK_EQ(e.ce_state, 0);
	CHECK_EQ(e.prior_rcv_nxt, 6792);
}

int main(void)
{
	test_the_echo_follows_each_flip();
	if (failures) {
		fprintf(stderr, "ce_echo_test: %d failure(s)\n", failures);
		return 1;
	}
	printf("ce_echo_test: ok\n");
	return 0;
}
