/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record `c2tcp top` reads: one per socket that has c2tcp socket storage,
 * written by the c2tcp_connections iterator (bpf/c2tcp.bpf.c) with
 * bpf_seq_write. The iterator walks the storage map itself, so it sees the
 * sockets of every network namespace; the loader pins its link as
 * /sys/fs/bpf/c2tcp/c2tcp/connections, and every read(2) of that file runs a
 * fresh walk. crates/bpfload/src/connections.rs parses it by these offsets
 * and refuses a record whose `size` differs.
 */
#ifndef C2TCP_TOP_H
#define C2TCP_TOP_H

struct c2tcp_conn_record {
	__u32 size;            /* sizeof(struct c2tcp_conn_record): 136 */
	__u32 netns_ino;       /* inode of the socket's network namespace */
	__u64 cgroup_id;       /* cgroup whose setting gave the Target; 0: none */
	__u64 pacing_rate;     /* sk_pacing_rate, bytes/s (~0: unlimited) */
	__u64 delivery_rate;   /* bytes/s, as TCP_INFO's tcpi_delivery_rate */
	__u16 family;          /* AF_INET or AF_INET6 */
	__u8 state;            /* TCP_ESTABLISHED, ... */
	__u8 running;          /* the c2tcp congestion control owns the socket */
	__u16 sport;           /* host order */
	__u16 dport;           /* host order */
	__u8 saddr[16];        /* IPv4 in the first 4 bytes */
	__u8 daddr[16];
	char cc[16];           /* the socket's congestion control */
	__u32 target_us;       /* Target in force; 0 with no min RTT yet and no default */
	__u32 target_source;   /* enum c2tcp_target_source */
	__u32 variant;         /* C2TCP_VARIANT as set (0: the load-time default) */
	__u32 alpha_pct;
	__u32 min_rtt_us;
	__u32 srtt_us;         /* smoothed RTT */
	__u32 last_avg_rtt_us; /* average RTT of the last tuning cycle */
	__u32 condition;       /* enum c2tcp_condition */
	__u32 bad_events;
	__u32 tune_cycles;
	__u32 snd_cwnd;        /* packets */
	__u32 mss;
};

#endif /* C2TCP_TOP_H */
