// SPDX-License-Identifier: GPL-2.0
/*
 * ledbat: LEDBAT (RFC 6817) as a BPF congestion control. No kernel ships one
 * (the out-of-tree tcp_ledbat modules stopped at 2.6/3.x kernels, and this
 * kernel loads no modules), so the algorithm is ledbat_logic.h and this file
 * only feeds it.
 *
 * One-way delay from a sender-only CC: every ACK of a receiver that uses TCP
 * timestamps (RFC 7323; Linux, Windows and macOS all do by default) carries
 * TSval, the receiver's clock when it sent the ACK, and TSecr, our own clock
 * echoed from the data segment it acknowledges. TSval - TSecr is the data's
 * forward delay plus an unknown constant (the clocks' offset), exactly what
 * LEDBAT's base-delay history is built to cancel; unlike the RTT it does not
 * include the ACKs' return path, so a queue on the reverse direction (the
 * uplink of a cellular set-up carrying its own traffic) does not make LEDBAT
 * back off. Both clocks tick in milliseconds unless the connection negotiated
 * microsecond timestamps (tcp_usec_ts); a foreign receiver with a coarser
 * clock would look ms-grained too (RFC 7323 allows 1 ms to 1 s ticks) - we
 * assume 1 ms, as every common stack uses. Without timestamps we fall back to
 * the RTT sample as the delay, as LEDBAT-over-TCP implementations that lack
 * one-way delay do (Apple's, Windows' LEDBAT++).
 */
#include "tcp_ca_common.h"
#include "ledbat_logic.h"

char _license[] SEC("license") = "GPL";

struct ledbat {
	struct ledbat_delays d;
	__s64 acc;	  /* the window's fraction, µs x packets */
	__u32 rtt_proxy;  /* 1: no timestamps on this connection, RTT used */
};

_Static_assert(sizeof(struct ledbat) <= 104, "icsk_ca_priv is 104 bytes");

static __always_inline struct ledbat *lb(const struct sock *sk)
{
	return (struct ledbat *)inet_csk_ca(sk);
}

SEC("struct_ops")
void BPF_PROG(ledbat_init, struct sock *sk)
{
	struct ledbat *l = lb(sk);

	ledbat_delays_init(&l->d);
	l->acc = 0;
	l->rtt_proxy = !BPF_CORE_READ_BITFIELD(tcp_sk(sk), rx_opt.tstamp_ok);
}

/* One delay sample per ACK that acknowledges data. */
SEC("struct_ops")
void BPF_PROG(ledbat_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ledbat *l = lb(sk);
	__u32 tsval, tsecr, unit_us;

	if (l->rtt_proxy) {
		if (sample->rtt_us > 0)
			ledbat_delays_add(&l->d, (__u32)sample->rtt_us, tp->tcp_mstamp);
		return;
	}
	if (!BPF_CORE_READ_BITFIELD(tp, rx_opt.saw_tstamp))
		return;
	tsval = tp->rx_opt.rcv_tsval;
	tsecr = tp->rx_opt.rcv_tsecr;
	if (!tsecr)
		return;
	/* tcp_usec_ts (6.7) marks a connection with microsecond timestamps;
	 * before it every TCP timestamp is in milliseconds. */
	unit_us = bpf_core_field_exists(tp->tcp_usec_ts) && BPF_CORE_READ_BITFIELD(tp, tcp_usec_ts) ? 1 : 1000;
	/* Modulo 2^32 throughout: only differences of samples matter. */
	ledbat_delays_add(&l->d, (tsval - tsecr) * unit_us, tp->tcp_mstamp);
}

SEC("struct_ops")
void BPF_PROG(ledbat_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ledbat *l = lb(sk);
	__u32 q;

	if (l->d.cur_n == 0) {
		/* No delay sample yet: nothing to steer by. */
		tcp_reno_cong_avoid(sk, ack, acked);
		return;
	}
	q = ledbat_queuing_delay(&l->d);
	if (tcp_in_slow_start(tp)) {
		if (ledbat_keep_slow_start(q, LEDBAT_TARGET_US)) {
			if (tcp_is_cwnd_limited(sk))
				tcp_slow_start(tp, acked);
			return;
		}
		/* Half the target reached: leave slow start for good. */
		tp->snd_ssthresh = tp->snd_cwnd > LEDBAT_MIN_CWND ? tp->snd_cwnd : LEDBAT_MIN_CWND;
		l->acc = 0;
	}
	tcp_set_cwnd(tp, ledbat_cwnd_after_ack(tp->snd_cwnd, &l->acc, q, LEDBAT_TARGET_US, acked,
					       tcp_is_cwnd_limited(sk)));
}

SEC("struct_ops")
void BPF_PROG(ledbat_set_state, struct sock *sk, __u8 new_state)
{
	if (new_state == TCP_CA_Recovery || new_state == TCP_CA_Loss)
		lb(sk)->acc = 0;
}

SEC("struct_ops")
__u32 BPF_PROG(ledbat_ssthresh, struct sock *sk)
{
	return ledbat_loss_cwnd(tcp_sk(sk)->snd_cwnd);
}

SEC("struct_ops")
__u32 BPF_PROG(ledbat_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops ledbat = {
	.init = (void *)ledbat_init,
	.pkts_acked = (void *)ledbat_pkts_acked,
	.cong_avoid = (void *)ledbat_cong_avoid,
	.set_state = (void *)ledbat_set_state,
	.ssthresh = (void *)ledbat_ssthresh,
	.undo_cwnd = (void *)ledbat_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "ledbat",
};
