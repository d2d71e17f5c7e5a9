/* SPDX-License-Identifier: GPL-2.0 */
/* floor(log2(x)) for the logic headers that need it (vivace, prague): six
 * shifts, no loop and no clz builtin, so the verifier and the host tests
 * see the same straight-line code. */
#ifndef ILOG2_H
#define ILOG2_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

/* floor(log2(x)) for x > 0; 0 for x = 0. */
static __always_inline __u32 ilog2_u64(__u64 x)
{
	__u32 r = 0;

	if (x >> 32) { x >>= 32; r += 32; }
	if (x >> 16) { x >>= 16; r += 16; }
	if (x >> 8) { x >>= 8; r += 8; }
	if (x >> 4) { x >>= 4; r += 4; }
	if (x >> 2) { x >>= 2; r += 2; }
	if (x >> 1) r += 1;
	return r;
}

#endif /* ILOG2_H */
