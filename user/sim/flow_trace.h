/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The packets of flows as `xdpleaf sim flowlet --trace` replays them: CSV
 * lines time_ns,flow,bytes (bench/jct/trace.py writes them from a lab
 * cell's captures), time not decreasing, flows numbered from 0. */
#ifndef XL_SIM_FLOW_TRACE_H
#define XL_SIM_FLOW_TRACE_H

#include <linux/types.h>

#define XL_TRACE_MAX_FLOWS 65536
#define XL_TRACE_MAX_NS 3600000000000ULL

struct xl_flow_packet {
	__u64 t_ns;
	__u32 flow;
	__u32 bytes;
};

struct xl_flow_trace {
	struct xl_flow_packet *pk;
	__u64 n;
	__u32 flows; /* the largest flow number + 1 */
};

/* The whole file, read before anything is replayed: 0, or -1 with the
 * file, line, field and fault on stderr (nothing kept). */
int xl_flow_trace_read(const char *path, struct xl_flow_trace *tr);
void xl_flow_trace_free(struct xl_flow_trace *tr);

#endif
