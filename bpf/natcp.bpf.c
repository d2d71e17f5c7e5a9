// SPDX-License-Identifier: GPL-2.0
/*
 * natcp: NATCP, the clean-slate network-assisted TCP. While NetAssist's
 * feedback is fresh, cwnd = 2 x minRTT x BL_Bw / beta (eq. 1) and the flow
 * is paced at its share of BL_Bw; without it, plain Cubic. See netassist.h.
 */
#include "netassist.h"

char _license[] SEC("license") = "GPL";

NA_DEFINE_CC(natcp, NA_NATCP);
