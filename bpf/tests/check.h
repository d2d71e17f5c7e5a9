/* SPDX-License-Identifier: GPL-2.0 */
/* What the host unit tests of the bpf/ logic headers share: a failure count and an
 * equality check that reports file, line and both values. */
#ifndef LOGIC_TEST_CHECK_H
#define LOGIC_TEST_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK_EQ(got, want)                                                        \
	do {                                                                       \
		unsigned long long g_ = (unsigned long long)(got);                 \
		unsigned long long w_ = (unsigned long long)(want);                \
		if (g_ != w_) {                                                    \
			fprintf(stderr, "%s:%d: %s = %llu, want %llu\n", __FILE__, \
				__LINE__, #got, g_, w_);                           \
			failures++;                                                \
		}                                                                  \
	} while (0)

#endif
