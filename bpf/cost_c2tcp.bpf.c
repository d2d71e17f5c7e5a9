// SPDX-License-Identifier: GPL-2.0-only
/*
 * C2TCP's object, bpf/c2tcp.bpf.c, compiled again under names of its own for
 * `c2tcp cost` (crates/bpfload/src/cost.rs): registered as `cost_c2tcp` (the
 * name is set before load) only while a measurement runs, with maps of its
 * own, so its programs' bpf_stats count the measurement's sockets alone —
 * the shared `c2tcp` keeps serving every other flow on the machine, and is
 * never touched. The per-ACK code is the same code.
 *
 * Only the congestion control is loaded (the socket-option, sock_create and
 * iterator programs are compiled but not loaded): sockets get their Target
 * from this instance's configuration map, written before registering.
 *
 * cost_c2_ack_event is the empty per-ACK hook that bpf/cost_cubic.bpf.c has
 * too (set as in_ack_event from user space): what the timing adds.
 */
#define c2tcp_init cost_c2_init
#define c2tcp_release cost_c2_release
#define c2tcp_pkts_acked cost_c2_pkts_acked
#define c2tcp_ssthresh cost_c2_ssthresh
#define c2tcp_cong_avoid cost_c2_cong_avoid
#define c2tcp_set_state cost_c2_set_state
#define c2tcp_cwnd_event cost_c2_cwnd_event
#define c2tcp_cwnd_event_tx_start cost_c2_cwnd_event_tx_start
#define c2tcp_undo_cwnd cost_c2_undo_cwnd
#define c2tcp_setsockopt cost_c2_setsockopt
#define c2tcp_setsockopt_eperm cost_c2_setsockopt_eperm
#define c2tcp_getsockopt cost_c2_getsockopt
#define c2tcp_sock_create cost_c2_sock_create
#define c2tcp_connections cost_c2_connections
#define c2tcp_sk_map cost_c2_sk_map
#define c2tcp_config_map cost_c2_config
#define c2tcp_cgroups cost_c2_cgroups
#define c2tcp_hz cost_c2_hz
#define c2tcp cost_c2tcp_ops
#include "c2tcp.bpf.c"

SEC("struct_ops")
void BPF_PROG(cost_c2_ack_event, struct sock *sk, __u32 flags)
{
}
