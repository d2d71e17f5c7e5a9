/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel side of the c2tcp socket option: the per-socket record kept in BPF
 * socket storage. The option numbers, ranges, C2TCP_VARIANT bits and struct
 * c2tcp_info are include/c2tcp.h's (via c2tcp_logic.h), their one owner.
 * The cgroup/setsockopt program writes the configuration half, the congestion
 * control reads it and owns the state half, and cgroup/getsockopt reports both
 * as struct c2tcp_info.
 */
#ifndef C2TCP_SOCKOPT_H
#define C2TCP_SOCKOPT_H

#include "c2tcp_logic.h" /* includes ../include/c2tcp.h */

/* One per socket, in a BPF_MAP_TYPE_SK_STORAGE map with BPF_F_CLONE so that a
 * listener's settings pass to the connections it accepts. */
struct c2tcp_sk {
	__u32 target_us;        /* 0: the load-time default */
	__u32 pinned_alpha_pct; /* 0: the Tuner moves alpha */
	__u32 running;          /* 1 while the c2tcp congestion control owns the socket */
	__u32 variant;          /* C2TCP_VARIANT as set; 0: the load-time default */
	struct c2tcp_state st;
};

/* Load-time configuration, one entry in an array map. */
struct c2tcp_config {
	__u32 default_target_us; /* 0: 2 x min RTT, as the authors' server does */
	__u32 default_variant;   /* a C2TCP_VARIANT value with base 1 or 2; 0: jsac */
};

#endif /* C2TCP_SOCKOPT_H */
