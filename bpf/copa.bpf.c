// SPDX-License-Identifier: GPL-2.0
/*
 * copa: Copa (Arun and Balakrishnan, NSDI 2018) as the paper has it: the
 * default mode (delta = 0.5) and the switch to the competitive mode when
 * the queue has not emptied within five RTTs. See copa.h and copa_logic.h.
 */
#include "copa.h"

char _license[] SEC("license") = "GPL";

COPA_DEFINE_CC(copa, 1);
