// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The stateless minimal forwarder (forwarder.h). */
#include "forwarder.h"

SEC("xdp")
int base_stateless(struct xdp_md *ctx)
{
	return forward(ctx);
}
