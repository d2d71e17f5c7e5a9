// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's Cubic behind BPF programs that do nothing else, for `c2tcp
 * cost` (crates/bpfload/src/cost.rs): every hook calls the kernel's own
 * function, as bpf/c2tcp.bpf.c's hooks do, so its programs' bpf_stats time
 * the kernel's Cubic the same way C2TCP's programs are timed. Registered as
 * `cost_cubic` only while a measurement runs (an unpinned link).
 *
 * Why this and not fentry/fexit on cubictcp_*: on this machine kind every
 * fentry/fexit program, on a kernel function or on a BPF program, is refused
 * at load with EPERM (DESIGN.md), and there are no kprobes; bpf_stats is the
 * one timer both sides can share.
 *
 * cost_cu_ack_event is empty: the kernel calls in_ack_event on every ACK, so
 * its ns per call is what the timing adds to any hook (the same empty hook
 * is added to C2TCP's instance, bpf/cost_c2tcp.bpf.c).
 */
#include "tcp_ca_common.h"

char _license[] SEC("license") = "GPL";

SEC("struct_ops")
void BPF_PROG(cost_cu_init, struct sock *sk)
{
	cubictcp_init(sk);
}

SEC("struct_ops")
__u32 BPF_PROG(cost_cu_ssthresh, struct sock *sk)
{
	return cubictcp_recalc_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(cost_cu_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	cubictcp_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
void BPF_PROG(cost_cu_set_state, struct sock *sk, __u8 new_state)
{
	cubictcp_state(sk, new_state);
}

SEC("struct_ops")
void BPF_PROG(cost_cu_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	cubictcp_cwnd_event(sk, event);
}

SEC("struct_ops")
void BPF_PROG(cost_cu_cwnd_event_tx_start, struct sock *sk)
{
	cubictcp_cwnd_event_tx_start(sk);
}

SEC("struct_ops")
void BPF_PROG(cost_cu_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	cubictcp_acked(sk, sample);
}

SEC("struct_ops")
__u32 BPF_PROG(cost_cu_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC("struct_ops")
void BPF_PROG(cost_cu_ack_event, struct sock *sk, __u32 flags)
{
}

SEC(".struct_ops.link")
struct tcp_congestion_ops___c2tcp cost_cubic_ops = {
	.init = (void *)cost_cu_init,
	.ssthresh = (void *)cost_cu_ssthresh,
	.cong_avoid = (void *)cost_cu_cong_avoid,
	.set_state = (void *)cost_cu_set_state,
	.cwnd_event = (void *)cost_cu_cwnd_event,
	.cwnd_event_tx_start = (void *)cost_cu_cwnd_event_tx_start,
	.in_ack_event = (void *)cost_cu_ack_event,
	.pkts_acked = (void *)cost_cu_pkts_acked,
	.undo_cwnd = (void *)cost_cu_undo_cwnd,
	.name = "cost_cubic",
};
