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

/* Where a socket's Target came from, in the order they override each other. */
enum c2tcp_target_source {
	C2TCP_SOURCE_DEFAULT = 0, /* nothing set: the load-time default */
	C2TCP_SOURCE_CGROUP = 1,  /* `c2tcp target set` on the creator's cgroup or an ancestor */
	C2TCP_SOURCE_SOCKET = 2,  /* the application's own C2TCP_TARGET */
};

/* One per socket, in a BPF_MAP_TYPE_SK_STORAGE map with BPF_F_CLONE so that a
 * listener's settings pass to the connections it accepts. */
struct c2tcp_sk {
	__u32 target_us;        /* 0: the load-time default */
	__u32 pinned_alpha_pct; /* 0: the Tuner moves alpha */
	__u32 running;          /* 1 while the c2tcp congestion control owns the socket */
	__u32 variant;          /* C2TCP_VARIANT as set; 0: the load-time default */
	__u32 target_source;    /* enum c2tcp_target_source of target_us */
	__u32 paced;            /* 1 while we hold sk_pacing_status at SK_PACING_NEEDED */
	__u64 cgroup_id;        /* the cgroup whose setting applied; 0: none */
	struct c2tcp_state st;
};

/* `c2tcp target set`: one entry per cgroup in a hash map keyed by the
 * cgroup-v2 id (the inode number of its directory). A socket takes the
 * setting of the nearest cgroup, from its creator's up to the root, that has
 * one, once, when it is created; later changes apply to new sockets. */
struct c2tcp_cgroup_setting {
	__u32 target_us; /* C2TCP_TARGET_MIN_US..C2TCP_TARGET_MAX_US */
	__u32 variant;   /* a C2TCP_VARIANT value; 0: the socket keeps the load-time default */
};

/* Cgroup levels searched (the root is level 0). systemd's deepest units sit
 * at level 3 or 4; 32 leaves room for containers and nested slices. */
#define C2TCP_CGROUP_MAX_DEPTH 32
#define C2TCP_CGROUP_MAX_ENTRIES 4096

/* Load-time configuration, one entry in an array map. */
struct c2tcp_config {
	__u32 default_target_us; /* 0: 2 x min RTT, as the authors' server does */
	__u32 default_variant;   /* a C2TCP_VARIANT value with base 1, 2 or 3; 0: jsac */
};

#endif /* C2TCP_SOCKOPT_H */
