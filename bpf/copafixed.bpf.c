// SPDX-License-Identifier: GPL-2.0
/*
 * copafixed: Copa with delta held at 0.5, no competitive mode: how mvfst's
 * Copa (facebook/mvfst, quic/congestion_control/Copa.cpp) and genericCC's
 * constant_delta:0.5 run it. See copa.h and copa_logic.h; docs/peers.md
 * says why both forms are here.
 */
#include "copa.h"

char _license[] SEC("license") = "GPL";

COPA_DEFINE_CC(copafixed, 0);
