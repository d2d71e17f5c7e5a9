// SPDX-License-Identifier: GPL-2.0
/*
 * nacubic: NACubic, the backward-compatible network-assisted TCP: the
 * kernel's Cubic, its cwnd capped at eq. 1 and paced at the flow's share of
 * BL_Bw while NetAssist's feedback is fresh; plain Cubic without it. See
 * netassist.h.
 */
#include "netassist.h"

char _license[] SEC("license") = "GPL";

NA_DEFINE_CC(nacubic, NA_NACUBIC);
