// SPDX-License-Identifier: GPL-2.0
/*
 * refused_cc: a struct_ops congestion control that any kernel refuses, for
 * the tests of what happens when a scheme cannot load (a bench runs every
 * other scheme and fails this one's runs with the reason). Its cong_avoid
 * writes tcp_sock.srtt_us, which struct_ops programs may not write, so the
 * verifier rejects it; it opens and passes `bpf` scheme files' checks like
 * any user object. Built by crates/bpfload/build.rs (bpfload::REFUSED_OBJECT).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

SEC("struct_ops")
__u32 BPF_PROG(refused_cc_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(refused_cc_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	((struct tcp_sock *)sk)->srtt_us = 0; /* not writable: refused */
}

SEC("struct_ops")
__u32 BPF_PROG(refused_cc_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops refused_cc = {
	.ssthresh = (void *)refused_cc_ssthresh,
	.cong_avoid = (void *)refused_cc_cong_avoid,
	.undo_cwnd = (void *)refused_cc_undo_cwnd,
	.name = "refused_cc",
};
