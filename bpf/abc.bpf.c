// SPDX-License-Identifier: GPL-2.0
/*
 * abc: ABC's sender as a BPF congestion control (abc_logic.h has the
 * algorithm; the router's marking is the emulator's `abc` queue).
 *
 * cong_control() runs on every ACK in place of the kernel's cwnd machinery
 * (so neither the ECE-triggered CWR state nor PRR shrinks the window behind
 * our back): it reads how many packets the ACK newly delivered and how many
 * of them the receiver reported CE (tp->delivered, tp->delivered_ce), moves
 * the window by +1/-1 per accelerate/brake, and paces at 2 x cwnd / sRTT.
 * TCP_CONG_NEEDS_ECN makes the connection negotiate ECN and send ECT
 * whatever net.ipv4.tcp_ecn says. The receiver must echo every mark: it
 * runs this congestion control too (the runner makes `abc` the namespaces'
 * default), whose cwnd_event() echoes CE per packet as DCTCP's receiver
 * does (ce_echo.h says why not Accurate ECN on this kernel).
 *
 * Loss: entering Recovery halves the window once (Reno); during Recovery
 * brakes still count but nothing grows; undo restores the halved window.
 * After an RTO the kernel has set cwnd to 1 and the ACKs grow it again.
 */
#include "tcp_ca_common.h"
#include "abc_logic.h"

char _license[] SEC("license") = "GPL";

_Static_assert(sizeof(struct abc_state) <= 104, "icsk_ca_priv is 104 bytes");

static __always_inline struct abc_state *abc_of(const struct sock *sk)
{
	return (struct abc_state *)inet_csk_ca(sk);
}

static __always_inline void abc_pace(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 rate = abc_pacing_rate(tp->snd_cwnd, tp->mss_cache, tp->srtt_us >> 3);

	if (rate)
		sk->sk_pacing_rate = rate < sk->sk_max_pacing_rate ? rate : sk->sk_max_pacing_rate;
}

SEC("struct_ops")
void BPF_PROG(abc_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);

	abc_init_state(abc_of(sk), tp->delivered, tp->delivered_ce, tp->snd_cwnd);
	abc_of(sk)->echo.prior_rcv_nxt = tp->rcv_nxt;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
}

SEC("struct_ops")
void BPF_PROG(abc_cong_control, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u8 state = inet_csk(sk)->icsk_ca_state;

	tcp_set_cwnd(tp, abc_on_ack(abc_of(sk), tp->snd_cwnd, tp->delivered, tp->delivered_ce,
				    state != TCP_CA_Recovery));
	abc_pace(sk);
}

SEC("struct_ops")
void BPF_PROG(abc_set_state, struct sock *sk, __u8 new_state)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (new_state == TCP_CA_Recovery && inet_csk(sk)->icsk_ca_state < TCP_CA_Recovery)
		tcp_set_cwnd(tp, abc_on_loss(abc_of(sk), tp->snd_cwnd));
}

/* The receiver's side: each data packet's ECN field, as DCTCP's echo. */
SEC("struct_ops")
void BPF_PROG(abc_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	ce_echo_event(sk, &abc_of(sk)->echo, ev);
}

SEC("struct_ops")
__u32 BPF_PROG(abc_ssthresh, struct sock *sk)
{
	/* Called on CWR (every echoed CE) too: ABC has no slow-start threshold. */
	return TCP_INFINITE_SSTHRESH;
}

SEC("struct_ops")
__u32 BPF_PROG(abc_undo_cwnd, struct sock *sk)
{
	__u32 before = abc_of(sk)->undo_cwnd, now = tcp_sk(sk)->snd_cwnd;

	return before > now ? before : now;
}

SEC(".struct_ops.link")
struct tcp_congestion_ops abc = {
	.init = (void *)abc_init,
	.cong_control = (void *)abc_cong_control,
	.set_state = (void *)abc_set_state,
	.cwnd_event = (void *)abc_cwnd_event,
	.ssthresh = (void *)abc_ssthresh,
	.undo_cwnd = (void *)abc_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED | TCP_CONG_NEEDS_ECN,
	.name = "abc",
};
