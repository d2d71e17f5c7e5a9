/* SPDX-License-Identifier: GPL-2.0 */
/* The one assertion the host logic tests need: compare as integers, report
 * file, line and expression, keep going, count failures. */
#ifndef BPF_TESTS_CHECK_H
#define BPF_TESTS_CHECK_H

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
