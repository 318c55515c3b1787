/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The minimal XDP forwarders every per-packet ratio of `make bench` is
 * taken against (docs/performance.md). Written apart from the leaf on
 * purpose: nothing of bpf/ or include/ is used, so a change to the leaf
 * cannot make its yardstick cheaper or dearer.
 *
 * Both parse Ethernet, IPv4, UDP and (on port 4791) the BTH's destination
 * QP, decrement the TTL with an incremental checksum update, write the
 * MACs and redirect through a devmap to the one egress port they are
 * given. The stateful one (XL_BASE_STATEFUL) also keeps a flow table: one
 * LRU hash lookup keyed by the 5-tuple and QP (insert on a miss), one
 * clock read, the last-seen time written through the lookup's pointer, a
 * packet count per flow and one per-CPU counter. Anything else passes. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define ETH_P_IP_ 0x0800
#define ROCE_PORT 4791

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the bench before load: where to send, and with which MACs. */
const volatile __u32 egress_ifindex;
const volatile __u8 src_mac[6];
const volatile __u8 dst_mac[6];

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} base_tx SEC(".maps");

#ifdef XL_BASE_STATEFUL
struct base_flow {
	__u32 saddr, daddr;
	__u16 sport, dport;
	__u32 proto_qp; /* protocol << 24 | destination QP */
};

struct base_flow_state {
	__u64 last_ns;
	__u64 packets;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536); /* the bench sets its size before load */
	__type(key, struct base_flow);
	__type(value, struct base_flow_state);
} base_flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} base_packets SEC(".maps");
#endif

static __always_inline __u16 csum_fold(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)sum;
}

static __always_inline int forward(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	struct udphdr *udp;
	__u32 qp = 0, sum;
	__u16 old;

	if ((void *)(iph + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP_))
		return XDP_PASS;
	if (iph->ihl != 5 || iph->ttl <= 1 || iph->protocol != IPPROTO_UDP)
		return XDP_PASS;
	udp = (void *)(iph + 1);
	if ((void *)(udp + 1) > end)
		return XDP_PASS;
	if (udp->dest == bpf_htons(ROCE_PORT)) {
		__u8 *bth = (void *)(udp + 1);

		if ((void *)(bth + 12) > end)
			return XDP_PASS;
		qp = (__u32)bth[5] << 16 | (__u32)bth[6] << 8 | bth[7];
	}
#ifdef XL_BASE_STATEFUL
	{
		struct base_flow k = { iph->saddr, iph->daddr, udp->source, udp->dest,
				       (__u32)IPPROTO_UDP << 24 | qp };
		struct base_flow_state *fs = bpf_map_lookup_elem(&base_flows, &k);
		__u64 now = bpf_ktime_get_ns();
		__u32 zero = 0;
		__u64 *n;

		if (!fs) {
			struct base_flow_state init = { now, 0 };

			bpf_map_update_elem(&base_flows, &k, &init, BPF_ANY);
			fs = bpf_map_lookup_elem(&base_flows, &k);
		}
		if (fs) {
			fs->last_ns = now;
			fs->packets++;
		}
		n = bpf_map_lookup_elem(&base_packets, &zero);
		if (n)
			(*n)++;
	}
#else
	(void)qp;
#endif
	/* TTL - 1, checksum updated over the TTL/protocol word (RFC 1624) */
	old = *(__u16 *)&iph->ttl;
	iph->ttl--;
	sum = (__u16)~iph->check + (__u16)~old + *(__u16 *)&iph->ttl;
	iph->check = (__u16)~csum_fold(sum);
	__builtin_memcpy(eth->h_dest, (const void *)dst_mac, 6);
	__builtin_memcpy(eth->h_source, (const void *)src_mac, 6);
	return bpf_redirect_map(&base_tx, egress_ifindex, 0);
}
