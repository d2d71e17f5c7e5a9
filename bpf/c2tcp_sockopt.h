/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel side of the c2tcp socket option: the option numbers (mirroring
 * include/c2tcp.h, which is the userspace API) and the per-socket record kept
 * in BPF socket storage. The cgroup/setsockopt program writes the
 * configuration half, the congestion control reads it and owns the state half,
 * and cgroup/getsockopt reports both as struct c2tcp_info.
 */
#ifndef C2TCP_SOCKOPT_H
#define C2TCP_SOCKOPT_H

#include "c2tcp_logic.h"

#define SOL_C2TCP 0xC2C2
#define C2TCP_TARGET 1
#define C2TCP_ALPHA 2
#define C2TCP_INFO 3
#define C2TCP_VARIANT 4

#define C2TCP_TARGET_MIN_US 1000u
#define C2TCP_TARGET_MAX_US 10000000u
#define C2TCP_ALPHA_MIN_PCT 100u
#define C2TCP_ALPHA_MAX_PCT 1000u

#define C2TCP_INFO_VERSION 2
#define C2TCP_INFO_V1_SIZE 40
#define C2TCP_INFO_V2_SIZE 52

/* Same layout as struct c2tcp_info in include/c2tcp.h (all u32). */
struct c2tcp_info {
	__u32 version;
	__u32 target_us;
	__u32 alpha_pct;
	__u32 min_rtt_us;
	__u32 setpoint_us;
	__u32 interval_us;
	__u32 last_avg_rtt_us;
	__u32 condition;
	__u32 bad_events;
	__u32 tune_cycles;
	/* version 2 */
	__u32 variant;         /* the socket's C2TCP_VARIANT, base resolved (1 jsac, 2 paper) */
	__u32 behaviours;      /* C2TCP_B_* in force */
	__u32 skipped_samples; /* RTT samples the blind window discarded */
};

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
