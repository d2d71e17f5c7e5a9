/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * c2tcp.h - the userspace API of the c2tcp congestion control.
 *
 * After `c2tcp load`, any TCP socket can use C2TCP:
 *
 *     setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, "c2tcp", 5);
 *
 * and give it the average-delay Target it needs (microseconds):
 *
 *     uint32_t target_us = 50000;
 *     setsockopt(fd, SOL_C2TCP, C2TCP_TARGET, &target_us, sizeof(target_us));
 *
 * The options are served by a BPF cgroup/{set,get}sockopt program attached to
 * the cgroup-v2 root, so they work for every process on the machine. The values
 * live in per-socket BPF storage; a listening socket's settings are copied to
 * the connections it accepts.
 *
 * Errors: a value out of range or a wrong optlen gives EINVAL; an unknown
 * option name at SOL_C2TCP gives ENOPROTOOPT; when c2tcp is not loaded every
 * SOL_C2TCP option gives ENOPROTOOPT (the kernel's own answer for an unknown
 * level). Other levels are never touched.
 */
#ifndef C2TCP_H
#define C2TCP_H

#ifdef __KERNEL__
#error "c2tcp.h is the userspace API; BPF code includes bpf/c2tcp_sockopt.h"
#endif

#include <stdint.h>

/* Socket option level of c2tcp (not a protocol number the kernel knows). */
#define SOL_C2TCP 0xC2C2

/* uint32_t, microseconds, 1000..10000000: the average delay the application
 * wants. Settable before connect() and at any time during the connection. */
#define C2TCP_TARGET 1
#define C2TCP_TARGET_MIN_US 1000u
#define C2TCP_TARGET_MAX_US 10000000u

/* uint32_t, percent, 100..1000: pins alpha (Setpoint = alpha * minRTT) and
 * stops the Tuner. 0 hands alpha back to the Tuner. */
#define C2TCP_ALPHA 2
#define C2TCP_ALPHA_MIN_PCT 100u
#define C2TCP_ALPHA_MAX_PCT 1000u

/* getsockopt only: struct c2tcp_info. optlen must be at least
 * C2TCP_INFO_V1_SIZE; the kernel side writes min(optlen, its size) bytes and
 * sets optlen to what it wrote. Later versions only append fields. */
#define C2TCP_INFO 3

enum c2tcp_condition {
	C2TCP_COND_GOOD = 0,
	C2TCP_COND_NORMAL = 1,
	C2TCP_COND_BAD = 2,
};

struct c2tcp_info {
	uint32_t version;         /* 1 */
	uint32_t target_us;       /* Target in force (set, or the load-time default) */
	uint32_t alpha_pct;       /* current alpha x 100 */
	uint32_t min_rtt_us;      /* global minimum RTT of the connection */
	uint32_t setpoint_us;     /* alpha x min_rtt */
	uint32_t interval_us;     /* current Interval (Setpoint / sqrt(N) after N Bad) */
	uint32_t last_avg_rtt_us; /* average RTT of the last completed tuning cycle */
	uint32_t condition;       /* enum c2tcp_condition */
	uint32_t bad_events;      /* imaginary drops so far (cwnd set to 1) */
	uint32_t tune_cycles;     /* completed 500 ms tuning cycles */
};

#define C2TCP_INFO_VERSION 1
#define C2TCP_INFO_V1_SIZE 40

#endif /* C2TCP_H */
