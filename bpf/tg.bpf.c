// SPDX-License-Identifier: GPL-2.0
/*
 * tg: TG, throughput guidance (the NATCP paper's "TG [23]"). While
 * NetAssist's bandwidth feedback is fresh, cwnd = BL_Bw x the connection's
 * own smoothed RTT and the flow is paced at BL_Bw; without it, plain Cubic.
 * The rule and where it comes from: tg_logic.h; the machinery: netassist.h.
 */
#include "netassist.h"

char _license[] SEC("license") = "GPL";

NA_DEFINE_CC(tg, NA_TG);
