/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The receiver's per-packet CE echo of DCTCP (RFC 8257 §3.2, the kernel's
 * tcp_dctcp.h), which ABC's and Prague's senders need to count every mark.
 *
 * Classic ECN's receiver (RFC 3168) sets ECE on every ACK from the first CE
 * until the sender's CWR, which turns one mark into a window of them.
 * Accurate ECN counts them exactly; Prague asks for it where the kernel has
 * TCP_CONG_NEEDS_ACCECN (7.0, 6.18.y's backport; docs/l4s.md), and this
 * echo stays off on an AccECN connection (tcp_ca_common.h). Elsewhere (an
 * older kernel, or a peer answering classic ECN) the receiver runs the
 * same congestion control, whose cwnd_event() sees each
 * data packet's CE bit (CA_EVENT_ECN_IS_CE/NO_CE, raised for a CC with
 * TCP_CONG_NEEDS_ECN): ECE goes on an ACK iff the packets it acknowledges
 * carried CE, an ACK is sent at once whenever the CE state flips, and, if
 * an ACK was being delayed at the flip, that ACK first, with the old state.
 * The sender's kernel then counts CE-echoed packets in tp->delivered_ce.
 */
#ifndef CE_ECHO_H
#define CE_ECHO_H

#ifndef __bpf__
#include <linux/types.h>
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

struct ce_echo {
	__u32 prior_rcv_nxt; /* rcv_nxt after the previous data packet */
	__u32 ce_state;      /* whether that packet carried CE */
};

/* What the echo must do for a data packet. */
#define CE_ECHO_ACK_NOW 1u /* the CE state flipped: acknowledge at once */
#define CE_ECHO_PRIOR 2u   /* first send the delayed ACK, with the old state */

/* A data packet arrived (is_ce: it carried CE; rcv_nxt: after it). Returns
 * CE_ECHO_* and the state the delayed ACK, if any, must carry. */
static __always_inline __u32 ce_echo_packet(struct ce_echo *e, __u32 is_ce, __u32 rcv_nxt,
					     int ack_delayed, __u32 *prior_rcv_nxt,
					     __u32 *prior_ce)
{
	__u32 act = 0;

	*prior_rcv_nxt = e->prior_rcv_nxt;
	*prior_ce = e->ce_state;
	if (e->ce_state != is_ce) {
		act |= CE_ECHO_ACK_NOW;
		if (ack_delayed)
			act |= CE_ECHO_PRIOR;
	}
	e->prior_rcv_nxt = rcv_nxt;
	e->ce_state = is_ce;
	return act;
}

#endif /* CE_ECHO_H */
