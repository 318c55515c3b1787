// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The stateful minimal forwarder (forwarder.h): a flow table beside the
 * stateless one's work. */
#define XL_BASE_STATEFUL
#include "forwarder.h"

SEC("xdp")
int base_stateful(struct xdp_md *ctx)
{
	return forward(ctx);
}
