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
 *
 * This header is the single owner of the option's ABI: the BPF side
 * (bpf/c2tcp_sockopt.h, bpf/c2tcp_logic.h) includes it, and crates/sockopt's
 * tests check the Rust mirror against it. It is UAPI-style (__u32 from
 * <linux/types.h>), and BPF code that includes vmlinux.h first can include it
 * too. Userspace still gets <stdint.h>, as before.
 */
#ifndef C2TCP_H
#define C2TCP_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#if !defined(__KERNEL__) && !defined(__bpf__)
#include <stdint.h>
#endif
#endif

/* Socket option level of c2tcp (not a protocol number the kernel knows). */
#define SOL_C2TCP 0xC2C2

/* __u32, microseconds, 1000..10000000: the average delay the application
 * wants. Settable before connect() and at any time during the connection.
 * Without it a socket runs with its creator's cgroup Target (`c2tcp target
 * set`, nearest cgroup wins, taken when the socket is created), else the
 * load-time default; getsockopt returns the Target in force. */
#define C2TCP_TARGET 1
#define C2TCP_TARGET_MIN_US 1000u
#define C2TCP_TARGET_MAX_US 10000000u

/* __u32, percent, 100..1000: pins alpha (Setpoint = alpha * minRTT) and
 * stops the Tuner. 0 hands alpha back to the Tuner. */
#define C2TCP_ALPHA 2
#define C2TCP_ALPHA_MIN_PCT 100u
#define C2TCP_ALPHA_MAX_PCT 1000u

/* getsockopt only: struct c2tcp_info. optlen must be at least
 * C2TCP_INFO_V1_SIZE: the kernel side writes the longest version that fits
 * (the version-1 fields, 40 bytes; version 2's, 52; the whole struct) and
 * sets optlen to what it wrote. Later versions only append fields. */
#define C2TCP_INFO 3

/* __u32: which C2TCP runs on this socket. Bits 0-7, the base variant:
 * C2TCP_VARIANT_DEFAULT (the load-time default, `c2tcp load --variant`),
 * C2TCP_VARIANT_JSAC (the authors' released code, the default default),
 * C2TCP_VARIANT_PAPER (Algorithms 1-3 as printed) or C2TCP_VARIANT_DRAIN
 * (jsac whose imaginary drop drains the queue instead of the pipe:
 * docs/c2tcp.md, "C2TCP on today's cells"). Bits 8-15: behaviours forced
 * on, bits 16-23: forced off (C2TCP_B_* below; a bit in both, an unknown
 * bit or base > 3 gives EINVAL). getsockopt returns the value set (0 when
 * none was). Settable before connect() and during the connection.
 * Example: paper plus the blind window only:
 *     C2TCP_VARIANT_PAPER | C2TCP_B_BLIND_WINDOW << C2TCP_VARIANT_ON_SHIFT */
#define C2TCP_VARIANT 4
#define C2TCP_VARIANT_DEFAULT 0u
#define C2TCP_VARIANT_JSAC 1u
#define C2TCP_VARIANT_PAPER 2u
#define C2TCP_VARIANT_DRAIN 3u
#define C2TCP_VARIANT_MAX C2TCP_VARIANT_DRAIN
#define C2TCP_VARIANT_ON_SHIFT 8
#define C2TCP_VARIANT_OFF_SHIFT 16

/* The five behaviours of the authors' code that Algorithms 1-3 do not have
 * (docs/c2tcp.md explains each). jsac = all five, paper = none. */
#define C2TCP_B_BLIND_WINDOW 0x01u   /* nothing for 1 s after a Cubic epoch start */
#define C2TCP_B_ANCHORED_TUNER 0x02u /* alpha re-anchored at Target/minRTT each cycle */
#define C2TCP_B_MS_GOOD_TEST 0x04u   /* Good iff rtt_ms <= Setpoint_ms, whole ms */
#define C2TCP_B_SHARED_GROWTH 0x08u  /* Good growth on Cubic's snd_cwnd_cnt, every ACK */
#define C2TCP_B_ACK_INTERVAL 0x10u   /* Interval = current Setpoint; CoDel's Newton step */
#define C2TCP_B_JSAC 0x1fu           /* the authors' five: the jsac variant */
/* Three that neither has, the drain variant's own (docs/c2tcp.md). */
#define C2TCP_B_BDP_FLOOR 0x20u      /* a Bad cuts cwnd to the packets delivered in the last min RTT, not 1 */
#define C2TCP_B_HOLD_SSTHRESH 0x40u  /* a Bad while cwnd < ssthresh keeps ssthresh, as a repeated RTO does */
#define C2TCP_B_PACING 0x80u         /* the kernel's own pacing (sk_pacing_status = SK_PACING_NEEDED) */
#define C2TCP_B_DRAIN (C2TCP_B_JSAC | C2TCP_B_BDP_FLOOR | C2TCP_B_HOLD_SSTHRESH | C2TCP_B_PACING)
#define C2TCP_B_ALL 0xffu            /* every behaviour: what the on/off bits may name */

enum c2tcp_condition {
	C2TCP_COND_GOOD = 0,
	C2TCP_COND_NORMAL = 1,
	C2TCP_COND_BAD = 2,
};

struct c2tcp_info {
	__u32 version;            /* 3 */
	__u32 target_us;          /* Target in force (set, or the load-time default) */
	__u32 alpha_pct;          /* current alpha x 100 */
	__u32 min_rtt_us;         /* global minimum RTT of the connection */
	__u32 setpoint_us;        /* alpha x min_rtt */
	__u32 interval_us;        /* current Interval (Setpoint / sqrt(N) after N Bad) */
	__u32 last_avg_rtt_us;    /* average RTT of the last completed tuning cycle */
	__u32 condition;          /* enum c2tcp_condition */
	__u32 bad_events;         /* imaginary drops so far (cwnd set to 1) */
	__u32 tune_cycles;        /* completed 500 ms tuning cycles */
	/* version 2 */
	__u32 variant;            /* C2TCP_VARIANT in force, base resolved (1 jsac, 2 paper, 3 drain) */
	__u32 behaviours;         /* C2TCP_B_* in force */
	__u32 skipped_samples;    /* RTT samples the blind window discarded */
	/* version 3 */
	__u32 bdp_pkts;           /* packets delivered per min RTT, last window (with C2TCP_B_BDP_FLOOR) */
	__u32 paced;              /* 1 while C2TCP holds the kernel's pacing on (C2TCP_B_PACING) */
};

#define C2TCP_INFO_VERSION 3
#define C2TCP_INFO_V1_SIZE 40
#define C2TCP_INFO_V2_SIZE 52
#define C2TCP_INFO_V3_SIZE 60

#endif /* C2TCP_H */
