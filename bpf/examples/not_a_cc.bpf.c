// SPDX-License-Identifier: GPL-2.0
/*
 * not_a_cc: a BPF object with no struct_ops map (a socket filter that keeps
 * every packet), so the tests can check that a `bpf` scheme file naming it
 * is refused before anything runs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

SEC("socket")
int keep_all(struct __sk_buff *skb)
{
	return skb->len;
}
