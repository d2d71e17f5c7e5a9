// SPDX-License-Identifier: GPL-2.0
/*
 * vegas: TCP Vegas as a BPF congestion control (this kernel has no tcp_vegas
 * module). RTT samples feed BaseRTT (all-time minimum) and the round's
 * minimum; once per RTT (an ACK beyond the snd_nxt noted at the round's
 * start) vegas_logic.h decides grow / hold / shrink / leave slow start. Vegas
 * runs only in the Open state; during loss recovery and with too few RTT
 * samples in a round it behaves as Reno, as the paper prescribes.
 */
#include "tcp_ca_common.h"
#include "vegas_logic.h"

char _license[] SEC("license") = "GPL";

struct vegas {
	__u32 base_rtt_us;  /* minimum RTT ever seen */
	__u32 round_min_us; /* minimum RTT of this round */
	__u32 round_cnt;    /* RTT samples in this round */
	__u32 beg_snd_nxt;  /* the round ends when this is acked */
	__u32 enabled;
};

_Static_assert(sizeof(struct vegas) <= 104, "icsk_ca_priv is 104 bytes");

static __always_inline struct vegas *vg(const struct sock *sk)
{
	return (struct vegas *)inet_csk_ca(sk);
}

static __always_inline void vegas_new_round(struct sock *sk)
{
	struct vegas *v = vg(sk);

	v->beg_snd_nxt = tcp_sk(sk)->snd_nxt;
	v->round_cnt = 0;
	v->round_min_us = 0x7fffffff;
}

SEC("struct_ops")
void BPF_PROG(vegas_init, struct sock *sk)
{
	struct vegas *v = vg(sk);

	v->base_rtt_us = 0x7fffffff;
	v->enabled = 1;
	vegas_new_round(sk);
}

SEC("struct_ops")
void BPF_PROG(vegas_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct vegas *v = vg(sk);
	__u32 rtt;

	if (sample->rtt_us <= 0)
		return;
	rtt = (__u32)sample->rtt_us + 1; /* never 0 */
	if (rtt < v->base_rtt_us)
		v->base_rtt_us = rtt;
	if (rtt < v->round_min_us)
		v->round_min_us = rtt;
	v->round_cnt++;
}

SEC("struct_ops")
void BPF_PROG(vegas_set_state, struct sock *sk, __u8 new_state)
{
	struct vegas *v = vg(sk);

	if (new_state == TCP_CA_Open) {
		v->enabled = 1;
		vegas_new_round(sk);
	} else {
		v->enabled = 0;
	}
}

SEC("struct_ops")
void BPF_PROG(vegas_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	if (event == CA_EVENT_CWND_RESTART || event == CA_EVENT_TX_START)
		vegas_new_round(sk);
}

/* Linux 7.1 and later report the restart after idle here instead. */
SEC("struct_ops")
void BPF_PROG(vegas_cwnd_event_tx_start, struct sock *sk)
{
	vegas_new_round(sk);
}

SEC("struct_ops")
void BPF_PROG(vegas_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct vegas *v = vg(sk);
	__u32 cwnd = tp->snd_cwnd, diff, target;

	if (!v->enabled) {
		tcp_reno_cong_avoid(sk, ack, acked);
		return;
	}
	if ((__s32)(ack - v->beg_snd_nxt) <= 0) {
		/* Mid-round: only slow start moves the window. */
		if (tcp_in_slow_start(tp) && tcp_is_cwnd_limited(sk))
			tcp_slow_start(tp, acked);
		return;
	}
	/* A round (one RTT) is over. */
	if (v->round_cnt <= 2) {
		/* Too few samples to tell delayed ACKs from queueing. */
		tcp_reno_cong_avoid(sk, ack, acked);
	} else {
		diff = vegas_diff(cwnd, v->base_rtt_us, v->round_min_us);
		switch (vegas_decide(diff, tcp_in_slow_start(tp))) {
		case VEGAS_LEAVE_SS:
			target = vegas_target_cwnd(cwnd, v->base_rtt_us, v->round_min_us) + 1;
			if (target < cwnd)
				cwnd = target;
			tcp_set_cwnd(tp, cwnd < 2 ? 2 : cwnd);
			tp->snd_ssthresh = tp->snd_cwnd > 2 ? tp->snd_cwnd - 1 : 2;
			break;
		case VEGAS_SHRINK:
			tcp_set_cwnd(tp, cwnd > 2 ? cwnd - 1 : 2);
			if (tp->snd_ssthresh > tp->snd_cwnd)
				tp->snd_ssthresh = tp->snd_cwnd;
			break;
		case VEGAS_GROW:
			if (!tcp_is_cwnd_limited(sk))
				break;
			if (tcp_in_slow_start(tp))
				tcp_slow_start(tp, acked);
			else
				tcp_set_cwnd(tp, cwnd + 1);
			break;
		case VEGAS_HOLD:
			break;
		}
	}
	vegas_new_round(sk);
}

SEC("struct_ops")
__u32 BPF_PROG(vegas_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
__u32 BPF_PROG(vegas_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops___c2tcp vegas = {
	.init = (void *)vegas_init,
	.pkts_acked = (void *)vegas_pkts_acked,
	.set_state = (void *)vegas_set_state,
	.cwnd_event = (void *)vegas_cwnd_event,
	.cwnd_event_tx_start = (void *)vegas_cwnd_event_tx_start,
	.cong_avoid = (void *)vegas_cong_avoid,
	.ssthresh = (void *)vegas_ssthresh,
	.undo_cwnd = (void *)vegas_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "vegas",
};
