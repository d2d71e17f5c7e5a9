// SPDX-License-Identifier: GPL-2.0
/*
 * westwood: TCP Westwood+ as a BPF congestion control (this kernel has no
 * tcp_westwood module and loads no modules). Reno's growth and undo through
 * the kernel's kfuncs; the bandwidth estimate and the BWE x RTTmin ssthresh
 * are westwood_logic.h. State lives in icsk_ca_priv.
 */
#include "tcp_ca_common.h"
#include "westwood_logic.h"

char _license[] SEC("license") = "GPL";

_Static_assert(sizeof(struct westwood_est) <= 104, "icsk_ca_priv is 104 bytes");

static __always_inline struct westwood_est *ww(const struct sock *sk)
{
	return (struct westwood_est *)inet_csk_ca(sk);
}

SEC("struct_ops")
void BPF_PROG(westwood_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	ww_est_init(ww(sk), tp->tcp_mstamp, tp->delivered);
}

SEC("struct_ops")
void BPF_PROG(westwood_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	if (sample->rtt_us > 0)
		ww_est_rtt(ww(sk), (__u32)sample->rtt_us);
}

SEC("struct_ops")
void BPF_PROG(westwood_in_ack_event, struct sock *sk, __u32 flags)
{
	struct tcp_sock *tp = tcp_sk(sk);

	ww_est_ack(ww(sk), tp->tcp_mstamp, tp->delivered, tp->mss_cache);
}

SEC("struct_ops")
__u32 BPF_PROG(westwood_ssthresh, struct sock *sk)
{
	__u32 s = ww_est_ssthresh(ww(sk), tcp_sk(sk)->mss_cache);

	return s ? s : tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(westwood_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
void BPF_PROG(westwood_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	/* After a timeout the path may have changed: relearn RTTmin. */
	if (event == CA_EVENT_LOSS)
		ww(sk)->reset_rtt_min = 1;
}

SEC("struct_ops")
__u32 BPF_PROG(westwood_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops westwood = {
	.init = (void *)westwood_init,
	.pkts_acked = (void *)westwood_pkts_acked,
	.in_ack_event = (void *)westwood_in_ack_event,
	.ssthresh = (void *)westwood_ssthresh,
	.cong_avoid = (void *)westwood_cong_avoid,
	.cwnd_event = (void *)westwood_cwnd_event,
	.undo_cwnd = (void *)westwood_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "westwood",
};
