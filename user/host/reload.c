// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf reload` of a host instance: DCQCN's settings, the events'
 * and the ports' addresses rewritten in the running maps; the RP's and
 * NP's flows and the counters stay. The ports must be the loaded ones
 * (their tcx links). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "host.skel.h"
#include "instance/pins.h"
#include "instance/upgrade.h"
#include "host/loader.h"
#include "host/reload.h"

/* Every configured port has its ingress link pinned, and no other. */
static int same_ports(const struct xl_config *cfg, const char *instance)
{
	char dir[256];
	struct dirent *e;
	int n = 0, ok = 1;
	DIR *d;

	xl_pin_path(dir, sizeof(dir), instance, NULL);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t pl = strlen(XL_PIN_LINK_TCX_IN);
		int found = 0;

		if (strncmp(e->d_name, XL_PIN_LINK_TCX_IN, pl))
			continue;
		n++;
		for (int i = 0; i < cfg->n_ports; i++)
			found |= !strcmp(e->d_name + pl, cfg->ports[i].ifname);
		ok &= found;
	}
	closedir(d);
	if (ok && n == cfg->n_ports)
		return 0;
	xl_err("%s: the ports differ from the loaded ones: reload "
	       "changes [dcqcn] and the settings; for other ports unload and load",
	       cfg->path);
	return -1;
}

int xl_host_reload(const struct xl_config *cfg, const char *instance)
{
	struct host *skel;
	int err = -1;

	if (same_ports(cfg, instance))
		return -1;
	skel = host__open();
	if (!skel) {
		xl_err("cannot open BPF object: %s", strerror(errno));
		return -1;
	}
	if (!xl_upgrade_adopt_maps(skel->obj, instance) && !xl_host_fill_maps(skel, cfg))
		err = 0;
	host__destroy(skel);
	return err;
}
