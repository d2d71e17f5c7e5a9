// SPDX-License-Identifier: GPL-2.0
/*
 * ect1: the L4S identifier on the wire for chosen TCP flows. A tc egress
 * program (clsact, direct action) on the sender's device rewrites the ECN
 * field of IPv4 TCP packets from ECT(0) to ECT(1) (RFC 9331) when their
 * destination port is in `ect1_ports`; every other packet, and every
 * packet that is not ECT(0) (SYNs, pure ACKs, retransmissions are Not-ECT;
 * CE stays CE), passes untouched. The IPv4 header checksum is updated
 * incrementally for the one 16-bit word that holds the TOS byte.
 *
 * Why here: TCP Prague must send ECT(1), but Linux's TCP sets ECT(0) for an
 * ECN connection (INET_ECN_xmit) and a struct_ops congestion control cannot
 * write the IP header (AccECN's ECT(1) negotiation for CCs came after 6.18).
 * A GSO super-packet is one skb whose header every segment copies, so the
 * rewrite covers all its segments.
 *
 * The device must be an L3 one (TUN: the IP header at offset 0), as the
 * emulator's are. The runner (crates/harness/src/ect1.rs) fills the map and
 * attaches the program; `ect1_rewritten` counts the packets rewritten.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

char _license[] SEC("license") = "GPL";

#define TC_ACT_OK 0
#define ETH_P_IP 0x0800
#define IPPROTO_TCP 6
#define ECN_MASK 0x3
#define ECN_ECT1 0x1
#define ECN_ECT0 0x2
#define IP_CSUM_OFF 10

/* Destination ports (network byte order) whose packets get ECT(1). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u16);
	__type(value, __u8);
} ect1_ports SEC(".maps");

/* Packets rewritten, at index 0. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} ect1_rewritten SEC(".maps");

SEC("tc")
int ect1_egress(struct __sk_buff *skb)
{
	__u8 head[2];  /* version/IHL and TOS: the checksummed word */
	__u8 proto;
	__u16 ports[2];
	__u32 zero = 0;
	__u16 old_word, new_word;
	__u64 *count;

	if (skb->protocol != bpf_htons(ETH_P_IP))
		return TC_ACT_OK;
	if (bpf_skb_load_bytes(skb, 0, head, sizeof(head)) ||
	    bpf_skb_load_bytes(skb, 9, &proto, 1))
		return TC_ACT_OK;
	if (head[0] >> 4 != 4 || proto != IPPROTO_TCP || (head[1] & ECN_MASK) != ECN_ECT0)
		return TC_ACT_OK;
	if (bpf_skb_load_bytes(skb, (head[0] & 0xf) * 4, ports, sizeof(ports)))
		return TC_ACT_OK;
	if (!bpf_map_lookup_elem(&ect1_ports, &ports[1]))
		return TC_ACT_OK;
	__builtin_memcpy(&old_word, head, 2);
	head[1] = (head[1] & ~ECN_MASK) | ECN_ECT1;
	__builtin_memcpy(&new_word, head, 2);
	if (bpf_l3_csum_replace(skb, IP_CSUM_OFF, old_word, new_word, 2) ||
	    bpf_skb_store_bytes(skb, 1, &head[1], 1, 0))
		return TC_ACT_OK;
	count = bpf_map_lookup_elem(&ect1_rewritten, &zero);
	if (count)
		__sync_fetch_and_add(count, 1);
	return TC_ACT_OK;
}
