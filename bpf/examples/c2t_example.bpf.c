// SPDX-License-Identifier: GPL-2.0
/*
 * c2t_example: the smallest congestion control a `bpf` scheme file can name
 * (docs/schemes.md): NewReno through the kernel's own kfuncs, registered as
 * "c2t_example". It stands for a user's own object: c2tcp loads it from its
 * path for a run and unloads it after, as it does its own. Built by
 * crates/bpfload/build.rs into its OUT_DIR (bpfload::EXAMPLE_OBJECT) for the
 * tests; a user builds theirs with
 *   clang -O2 -g -target bpf -I<dir of vmlinux.h> -c mine.bpf.c -o mine.bpf.o
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define TCP_CONG_NON_RESTRICTED 0x1 /* selectable by unprivileged programs */

char _license[] SEC("license") = "GPL";

extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

SEC("struct_ops")
__u32 BPF_PROG(c2t_example_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(c2t_example_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(c2t_example_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops c2t_example = {
	.ssthresh = (void *)c2t_example_ssthresh,
	.cong_avoid = (void *)c2t_example_cong_avoid,
	.undo_cwnd = (void *)c2t_example_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "c2t_example",
};
