// SPDX-License-Identifier: GPL-2.0
/*
 * vivace: PCC Vivace as a BPF congestion control (vivace_logic.h has the
 * algorithm). Rate-based: cong_control() runs on every ACK instead of the
 * kernel's cwnd machinery, feeds the ACK's counters to the controller and
 * applies its answer as sk_pacing_rate, with a cwnd of 2 x rate x sRTT so
 * the window never limits the rate. Internal TCP pacing is engaged by
 * setting sk_pacing_status to SK_PACING_NEEDED (no fq qdisc needed), as the
 * authors' module and BBR do.
 *
 * The controller's state (four monitor intervals, about 400 bytes) does not
 * fit icsk_ca_priv's 104 bytes, and BTF-typed socket memory cannot be
 * indexed by a variable; it lives in socket-local storage, which the kernel
 * frees with the socket.
 *
 * Loss: Vivace scores loss, it does not react to it. ssthresh stays
 * infinite and undo keeps cwnd; since cong_control() is set the kernel's PRR
 * does not shrink cwnd in recovery either. During TCP_CA_Loss (an RTO) the
 * counters are not trustworthy, so measuring pauses until it ends.
 */
#include "tcp_ca_common.h"
#include "vivace_logic.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct vivace);
} vivace_state SEC(".maps");

static __always_inline void vivace_ack_of(const struct sock *sk, struct vivace_ack *a)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	a->now_us = tp->tcp_mstamp;
	a->segs_out = tp->data_segs_out;
	a->delivered = tp->delivered;
	a->lost = tp->lost;
	a->srtt_us = tp->srtt_us >> 3;
	a->mss = tp->mss_cache;
	a->rand = 0;
}

static __always_inline void vivace_apply(struct sock *sk, const struct vivace *v)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 rate = v->pace_rate;

	sk->sk_pacing_rate = rate < sk->sk_max_pacing_rate ? rate : sk->sk_max_pacing_rate;
	tcp_set_cwnd(tp, vivace_cwnd(rate, tp->srtt_us >> 3, tp->mss_cache));
}

SEC("struct_ops")
void BPF_PROG(vivace_init, struct sock *sk)
{
	struct vivace_ack a;
	struct vivace *v;

	v = bpf_sk_storage_get(&vivace_state, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!v)
		return; /* no memory: the socket keeps its initial window, unpaced */
	vivace_ack_of(sk, &a);
	vv_init(v, &a);
	tcp_sk(sk)->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
	vivace_apply(sk, v);
}

SEC("struct_ops")
void BPF_PROG(vivace_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct vivace_ack a;
	struct vivace *v;

	v = bpf_sk_storage_get(&vivace_state, sk, 0, 0);
	if (!v)
		return;
	vivace_ack_of(sk, &a);
	a.rand = bpf_get_prandom_u32();
	vv_on_ack(v, &a);
	vivace_apply(sk, v);
}

SEC("struct_ops")
void BPF_PROG(vivace_set_state, struct sock *sk, __u8 new_state)
{
	struct vivace_ack a;
	struct vivace *v;

	v = bpf_sk_storage_get(&vivace_state, sk, 0, 0);
	if (!v)
		return;
	if (!v->in_loss && new_state == TCP_CA_Loss) {
		vv_enter_loss(v);
	} else if (v->in_loss && new_state != TCP_CA_Loss) {
		vivace_ack_of(sk, &a);
		a.rand = bpf_get_prandom_u32();
		vv_leave_loss(v, &a, tcp_packets_in_flight(tcp_sk(sk)));
	}
}

SEC("struct_ops")
__u32 BPF_PROG(vivace_ssthresh, struct sock *sk)
{
	return TCP_INFINITE_SSTHRESH; /* Vivace has no slow-start threshold */
}

SEC("struct_ops")
__u32 BPF_PROG(vivace_undo_cwnd, struct sock *sk)
{
	return tcp_sk(sk)->snd_cwnd; /* it never cut cwnd on a loss */
}

SEC(".struct_ops.link")
struct tcp_congestion_ops vivace = {
	.init = (void *)vivace_init,
	.cong_control = (void *)vivace_cong_control,
	.set_state = (void *)vivace_set_state,
	.ssthresh = (void *)vivace_ssthresh,
	.undo_cwnd = (void *)vivace_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "vivace",
};
