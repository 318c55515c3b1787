// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <stdlib.h>
#include "sim/csv.h"
#include "sim/flow_trace.h"

/* One line into tr->pk[tr->n]: 0, or -1 refused (said). */
static int take_line(const struct xl_csv *c, struct xl_flow_trace *tr)
{
	unsigned long long t, flow, len;

	if (xl_csv_u64(c, 0, "time_ns", 0, &t) || xl_csv_u64(c, 1, "flow", 0, &flow) ||
	    xl_csv_u64(c, 2, "bytes", 0, &len))
		return -1;
	if (t > XL_TRACE_MAX_NS) /* --duration's bound: the replay steps through it all */
		return xl_csv_refuse(c, "time_ns", "%llu is out of range 0..%llu (an hour)", t,
				     XL_TRACE_MAX_NS);
	if (tr->n && t < tr->pk[tr->n - 1].t_ns)
		return xl_csv_refuse(c, "time_ns",
				     "%llu is before the previous packet's %llu "
				     "(time must not decrease)",
				     t, (unsigned long long)tr->pk[tr->n - 1].t_ns);
	if (flow >= XL_TRACE_MAX_FLOWS)
		return xl_csv_refuse(c, "flow", "%llu is out of range 0..%d", flow,
				     XL_TRACE_MAX_FLOWS - 1);
	if (len == 0 || len > 65535) /* an IP packet, a GRO aggregate at most */
		return xl_csv_refuse(c, "bytes", "%llu is out of range 1..65535", len);
	tr->pk[tr->n++] = (struct xl_flow_packet){ .t_ns = t,
						   .flow = (__u32)flow,
						   .bytes = (__u32)len };
	if (flow >= tr->flows)
		tr->flows = (__u32)flow + 1;
	return 0;
}

int xl_flow_trace_read(const char *path, struct xl_flow_trace *tr)
{
	struct xl_csv c;
	__u64 cap = 0;
	int rc;

	*tr = (struct xl_flow_trace){ 0 };
	if (xl_csv_open(&c, path, "time_ns,flow,bytes"))
		return -1;
	while ((rc = xl_csv_next(&c)) > 0) {
		if (tr->n == cap) {
			struct xl_flow_packet *more;

			cap = cap ? 2 * cap : 4096;
			more = realloc(tr->pk, cap * sizeof(*more));
			if (!more) {
				rc = xl_csv_refuse(&c, NULL, "out of memory");
				break;
			}
			tr->pk = more;
		}
		rc = take_line(&c, tr);
		if (rc)
			break;
	}
	if (!rc && !tr->n)
		rc = xl_csv_refuse(&c, NULL, "no packets");
	xl_csv_close(&c);
	if (rc)
		xl_flow_trace_free(tr);
	return rc;
}

void xl_flow_trace_free(struct xl_flow_trace *tr)
{
	free(tr->pk);
	*tr = (struct xl_flow_trace){ 0 };
}
