/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copa's BPF side, shared by copa.bpf.c (the paper's Copa: the default mode
 * and the switch to the competitive mode) and copafixed.bpf.c (delta held
 * at 0.5, as mvfst's Copa runs it); copa_logic.h has the algorithm and
 * every deviation from the paper, genericCC and mvfst.
 *
 * cong_control() runs on every ACK instead of the kernel's window
 * machinery: it hands the rate sample (its RTT, the packets it delivered
 * and marked lost) to the controller and applies its window and its
 * pacing rate, 2 cwnd / RTTstanding, through sk_pacing_rate with the
 * kernel's internal pacing engaged (SK_PACING_NEEDED, no fq qdisc needed).
 * With cong_control() set the kernel neither recomputes the pacing rate
 * nor runs PRR in recovery, so a loss changes nothing but what Copa itself
 * does with it (the competitive mode's halving of 1/delta); an RTO
 * (TCP_CA_Loss) sets the minimum window and restarts slow start.
 *
 * The controller's state (three windowed filters and more, ~140 bytes)
 * does not fit icsk_ca_priv's 104 bytes; it lives in socket-local storage,
 * freed with the socket.
 *
 * Kernels before 6.10 call cong_control(sk, rs): each congestion control
 * has a second struct_ops, <cc>_pre610, with that form, and the loader
 * registers the one the running kernel takes (the rate sample is all Copa
 * reads).
 */
#ifndef COPA_H
#define COPA_H

#include "tcp_ca_common.h"
#include "copa_logic.h"

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct copa);
} copa_state SEC(".maps");

static __always_inline void copa_apply(struct sock *sk, const struct copa *c)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 rate = c->pacing_rate;

	if (rate)
		sk->sk_pacing_rate = rate < sk->sk_max_pacing_rate ? rate : sk->sk_max_pacing_rate;
	tcp_set_cwnd(tp, copa_cwnd(c));
}

static __always_inline void copa_bpf_init(struct sock *sk, int mode_switch)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct copa *c;

	c = bpf_sk_storage_get(&copa_state, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!c)
		return; /* no memory: the socket keeps its window, unpaced */
	copa_start(c, tp->tcp_mstamp, tp->snd_cwnd, mode_switch);
	if (tp->srtt_us)
		c->pacing_rate = copa_pacing_rate(c->cwnd_fp, tp->srtt_us >> 3, tp->mss_cache);
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
	copa_apply(sk, c);
}

static __always_inline void copa_bpf_ack(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct copa *c = bpf_sk_storage_get(&copa_state, sk, 0, 0);
	struct copa_ack a;

	if (!c)
		return;
	a.now_us = tp->tcp_mstamp;
	a.rtt_us = rs->rtt_us;
	a.srtt_us = tp->srtt_us >> 3;
	a.acked = rs->acked_sacked;
	a.losses = rs->losses > 0 ? (__u32)rs->losses : 0;
	a.mss = tp->mss_cache;
	a.cwnd_limited = tcp_is_cwnd_limited(sk);
	copa_on_ack(c, &a);
	copa_apply(sk, c);
}

static __always_inline void copa_bpf_set_state(struct sock *sk, __u8 new_state)
{
	struct copa *c;

	if (new_state != TCP_CA_Loss)
		return;
	c = bpf_sk_storage_get(&copa_state, sk, 0, 0);
	if (!c)
		return;
	copa_on_rto(c, tcp_sk(sk)->mss_cache);
	copa_apply(sk, c);
}

/*
 * One congestion control: its programs (named <cc>_<hook>, as `c2tcp
 * status` expects) and its two struct_ops; mode_switch 1 for the paper's
 * Copa, 0 to hold delta at 0.5.
 */
#define COPA_DEFINE_CC(cc, mode_switch)                                                              \
	SEC("struct_ops")                                                                            \
	void BPF_PROG(cc##_init, struct sock *sk)                                                    \
	{                                                                                            \
		copa_bpf_init(sk, mode_switch);                                                      \
	}                                                                                            \
	SEC("struct_ops")                                                                            \
	void BPF_PROG(cc##_cong_control, struct sock *sk, __u32 ack, int flag,                       \
		      const struct rate_sample *rs)                                                  \
	{                                                                                            \
		copa_bpf_ack(sk, rs);                                                                \
	}                                                                                            \
	SEC("struct_ops")                                                                            \
	void BPF_PROG(cc##_cong_control_pre610, struct sock *sk, const struct rate_sample *rs)       \
	{                                                                                            \
		copa_bpf_ack(sk, rs);                                                                \
	}                                                                                            \
	SEC("struct_ops")                                                                            \
	void BPF_PROG(cc##_set_state, struct sock *sk, __u8 new_state)                               \
	{                                                                                            \
		copa_bpf_set_state(sk, new_state);                                                   \
	}                                                                                            \
	SEC("struct_ops")                                                                            \
	__u32 BPF_PROG(cc##_ssthresh, struct sock *sk)                                               \
	{                                                                                            \
		return TCP_INFINITE_SSTHRESH; /* Copa has no slow-start threshold */                 \
	}                                                                                            \
	SEC("struct_ops")                                                                            \
	__u32 BPF_PROG(cc##_undo_cwnd, struct sock *sk)                                              \
	{                                                                                            \
		return tcp_sk(sk)->snd_cwnd; /* a loss never cut the window */                       \
	}                                                                                            \
	SEC(".struct_ops.link")                                                                      \
	struct tcp_congestion_ops cc = {                                                             \
		.init = (void *)cc##_init,                                                           \
		.cong_control = (void *)cc##_cong_control,                                           \
		.set_state = (void *)cc##_set_state,                                                 \
		.ssthresh = (void *)cc##_ssthresh,                                                   \
		.undo_cwnd = (void *)cc##_undo_cwnd,                                                 \
		.flags = TCP_CONG_NON_RESTRICTED,                                                    \
		.name = #cc,                                                                         \
	};                                                                                           \
	SEC(".struct_ops.link")                                                                      \
	struct tcp_congestion_ops cc##_pre610 = {                                                    \
		.init = (void *)cc##_init,                                                           \
		.cong_control = (void *)cc##_cong_control_pre610,                                    \
		.set_state = (void *)cc##_set_state,                                                 \
		.ssthresh = (void *)cc##_ssthresh,                                                   \
		.undo_cwnd = (void *)cc##_undo_cwnd,                                                 \
		.flags = TCP_CONG_NON_RESTRICTED,                                                    \
		.name = #cc,                                                                         \
	}

#endif /* COPA_H */
