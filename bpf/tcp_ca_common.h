/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every congestion control in bpf/ shares: the kernel kfuncs it may call
 * (the built-in Cubic and Reno pieces), the little inline helpers the kernel
 * keeps in headers BPF cannot include, and a few constants that BTF does not
 * carry because they are #defines.
 */
#ifndef TCP_CA_COMMON_H
#define TCP_CA_COMMON_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "ce_echo.h"

#define TCP_CONG_NON_RESTRICTED 0x1 /* selectable by unprivileged programs */
#define TCP_CONG_NEEDS_ECN 0x2      /* negotiate ECN, send ECT, see each CE */
#define TCP_ECN_DEMAND_CWR 0x4      /* the receiver sets ECE on its ACKs */
/* Negotiate Accurate ECN (RFC 9768) whatever net.ipv4.tcp_ecn says, on both
 * ends (include/net/tcp.h, upstream 100f946b8d44: Linux 7.0, and 6.18.y's
 * stable backport). KernelForm::apply clears it where the kernel's
 * TCP_CONG_MASK lacks it (the struct_ops would be refused with EINVAL). */
#define TCP_CONG_NEEDS_ACCECN 0x4
/* tp->ecn_flags' feedback mode (include/net/tcp.h, from 6.18): RFC 3168 or
 * AccECN, both while the handshake is pending. */
#define TCP_ECN_MODE_RFC3168 0x1
#define TCP_ECN_MODE_ACCECN 0x10
#define TCP_ECN_MODE_ANY (TCP_ECN_MODE_RFC3168 | TCP_ECN_MODE_ACCECN)
#define TCP_INFINITE_SSTHRESH 0x7fffffff
#define USEC_PER_MSEC 1000ULL
#define USEC_PER_SEC 1000000ULL

#ifndef EINVAL
#define EINVAL 22
#endif
#ifndef ENOMEM
#define ENOMEM 12
#endif
#ifndef ENOPROTOOPT
#define ENOPROTOOPT 92
#endif

/* The kernel's Cubic and Reno pieces, exported to struct_ops programs as
 * kfuncs since Linux 5.13 (tcp_cubic's and tcp_cong's kfunc sets). Every one
 * is called unconditionally: a kernel that lacks one refuses the object by
 * that name (`c2tcp doctor` says which), where a weak kfunc tested with
 * bpf_ksym_exists() would need an ldimm64 of a kfunc, which only 6.4 and
 * later accept. */
extern void cubictcp_init(struct sock *sk) __ksym;
extern __u32 cubictcp_recalc_ssthresh(struct sock *sk) __ksym;
extern void cubictcp_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern void cubictcp_state(struct sock *sk, __u8 new_state) __ksym;
/* Linux 7.1 split Cubic's only event, the restart after idle
 * (CA_EVENT_TX_START), out of cwnd_event into a hook of its own,
 * cwnd_event_tx_start, and renamed the kfunc. Each kernel has one of the
 * two; both are weak so that the object opens on either, and the loader
 * loads only the program whose kfunc the kernel has (crates/bpfload,
 * features.rs: cwnd_event_tx_start). */
extern void cubictcp_cwnd_event(struct sock *sk, enum tcp_ca_event event) __ksym __weak;
extern void cubictcp_cwnd_event_tx_start(struct sock *sk) __ksym __weak;
extern void cubictcp_acked(struct sock *sk, const struct ack_sample *sample) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;
extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked) __ksym;
extern void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked) __ksym;

/*
 * struct tcp_congestion_ops with 7.1's cwnd_event_tx_start, for the objects
 * that set it. libbpf finds the kernel's type by the name before "___" and
 * matches the members by name: a member the running kernel lacks is left out
 * and its program not loaded, so one object serves kernels before and after
 * 7.1. Only the members our objects set are here.
 */
struct tcp_congestion_ops___c2tcp {
	__u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, __u32 ack, __u32 acked);
	void (*set_state)(struct sock *sk, __u8 new_state);
	void (*cwnd_event)(struct sock *sk, enum tcp_ca_event ev);
	void (*cwnd_event_tx_start)(struct sock *sk);
	void (*in_ack_event)(struct sock *sk, __u32 flags);
	void (*pkts_acked)(struct sock *sk, const struct ack_sample *sample);
	__u32 (*min_tso_segs)(struct sock *sk);
	void (*cong_control)(struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs);
	__u32 (*undo_cwnd)(struct sock *sk);
	__u32 (*sndbuf_expand)(struct sock *sk);
	char name[16];
	__u32 flags;
	void (*init)(struct sock *sk);
	void (*release)(struct sock *sk);
};

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline struct inet_connection_sock *inet_csk(const struct sock *sk)
{
	return (struct inet_connection_sock *)sk;
}

static __always_inline void *inet_csk_ca(const struct sock *sk)
{
	return (void *)inet_csk(sk)->icsk_ca_priv;
}

static __always_inline bool tcp_in_slow_start(const struct tcp_sock *tp)
{
	return tp->snd_cwnd < tp->snd_ssthresh;
}

/* tcp_is_cwnd_limited() from include/net/tcp.h */
static __always_inline bool tcp_is_cwnd_limited(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (tcp_in_slow_start(tp))
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return !!BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited);
}

/* The kernel's tcp_packets_in_flight(): sent, not yet acked, sacked or lost. */
static __always_inline __u32 tcp_packets_in_flight(const struct tcp_sock *tp)
{
	return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out;
}

/* Set cwnd within [1, snd_cwnd_clamp]: the stack must never see 0. */
static __always_inline void tcp_set_cwnd(struct tcp_sock *tp, __u32 cwnd)
{
	if (cwnd < 1)
		cwnd = 1;
	if (cwnd > tp->snd_cwnd_clamp)
		cwnd = tp->snd_cwnd_clamp;
	tp->snd_cwnd = cwnd;
}

/* ECE on the receiver's next ACKs, or not. */
static __always_inline void ce_echo_set_ece(struct tcp_sock *tp, __u32 ce)
{
	if (ce)
		tp->ecn_flags |= TCP_ECN_DEMAND_CWR;
	else
		tp->ecn_flags &= ~TCP_ECN_DEMAND_CWR;
}

/* Whether the connection negotiated AccECN (the kernel's
 * tcp_ecn_mode_accecn()); always false before 6.18, whose ecn_flags never
 * has the bit. */
static __always_inline bool tcp_ecn_mode_accecn(const struct tcp_sock *tp)
{
	return (tp->ecn_flags & TCP_ECN_MODE_ANY) == TCP_ECN_MODE_ACCECN;
}

/* The receiver's side of ce_echo.h, from a cwnd_event(): each data
 * packet's CE bit echoed on the ACKs that cover it. Not on an AccECN
 * connection: there the kernel counts every CE packet itself
 * (tp->received_ce, sent in the ACE field and the AccECN option), so
 * ECE is not a flag to set (it is a bit of the ACE counter) and the
 * sender's kernel adds exact counts to tp->delivered_ce. */
static __always_inline void ce_echo_event(struct sock *sk, struct ce_echo *e,
					  enum tcp_ca_event ev)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct inet_connection_sock *icsk = inet_csk(sk);
	__u32 act, prior, prior_ce;

	if (ev != CA_EVENT_ECN_IS_CE && ev != CA_EVENT_ECN_NO_CE)
		return;
	if (tcp_ecn_mode_accecn(tp))
		return;
	act = ce_echo_packet(e, ev == CA_EVENT_ECN_IS_CE, tp->rcv_nxt,
			     icsk->icsk_ack.pending & ICSK_ACK_TIMER, &prior, &prior_ce);
	if (act & CE_ECHO_PRIOR) {
		ce_echo_set_ece(tp, prior_ce);
		bpf_tcp_send_ack(sk, prior);
	}
	if (act & CE_ECHO_ACK_NOW)
		icsk->icsk_ack.pending |= ICSK_ACK_NOW;
	ce_echo_set_ece(tp, ev == CA_EVENT_ECN_IS_CE);
}

#endif /* TCP_CA_COMMON_H */
