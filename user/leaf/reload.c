// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* `xdpleaf reload` of a leaf instance: the maps the configuration fills
 * rewritten in place from a new, fully validated file (docs/operations.md).
 * The programs, links, flow table, rates, queues, counters and neighbours
 * stay; entries the new file no longer has are removed after the new ones
 * are in. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "base/log.h"
#include "pin_names.h"
#include "instance/tcx_link.h"
#include "leaf.skel.h"
#include "instance/upgrade.h"
#include "leaf/loader.h"
#include "leaf/reload.h"
#include "leaf/fwd_gen.h"

/* The ports must be the loaded ones, in the same order (their counter
 * slots) and roles: those the links and counters are made of. */
static int same_ports(struct leaf *skel, const struct xl_config *cfg)
{
	int fd = bpf_map__fd(skel->maps.ports), n = 0;
	__u32 key, next;
	void *prev = NULL;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		n++;
	}
	if (n != cfg->n_ports)
		goto changed;
	for (int i = 0; i < cfg->n_ports; i++) {
		struct xl_port p;

		if (bpf_map_lookup_elem(fd, &cfg->ports[i].ifindex, &p) ||
		    p.slot != (__u32)i || p.role != cfg->ports[i].role)
			goto changed;
	}
	return 0;
changed:
	xl_err("%s: the ports differ from the loaded ones (which "
	       "ports, their order or roles): reload changes routes, groups, rates, "
	       "classes and settings; for other ports unload and load", cfg->path);
	return -1;
}

/* Remove from an LPM trie every route the new configuration lacks. */
static void prune_routes(int fd, size_t key_size, const struct xl_config *cfg, int family)
{
	__u8 key[sizeof(struct xl_lpm6_key)], next[sizeof(struct xl_lpm6_key)];
	__u8 gone[256][sizeof(struct xl_lpm6_key)];
	int n_gone = 0;
	void *prev = NULL;

	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		const struct xl_lpm6_key *k = (const void *)next;
		bool keep = false;

		memcpy(key, next, key_size);
		prev = key;
		for (int i = 0; i < cfg->n_routes && !keep; i++) {
			const struct xl_cfg_route *r = &cfg->routes[i];

			keep = r->family == family && r->prefixlen == k->prefixlen &&
			       !memcmp(r->addr, k->addr, family == AF_INET ? 4 : 16);
		}
		if (!keep && n_gone < 256)
			memcpy(gone[n_gone++], next, key_size);
	}
	for (int i = 0; i < n_gone; i++)
		bpf_map_delete_elem(fd, gone[i]);
}

/* Zero the array entries past what the configuration has (groups,
 * classes), and drop the VLANs it no longer lists. */
static void prune_rest(struct leaf *skel, const struct xl_config *cfg)
{
	struct xl_group g = {};
	struct xl_class c = {};
	struct xl_vlan_key k, next;
	void *prev = NULL;
	int fd = bpf_map__fd(skel->maps.port_vlans);

	for (__u32 id = cfg->n_groups; id < XL_MAX_GROUPS; id++)
		bpf_map_update_elem(bpf_map__fd(skel->maps.groups), &id, &g, BPF_ANY);
	for (__u32 id = cfg->n_classes; id < XL_MAX_CLASSES; id++)
		bpf_map_update_elem(bpf_map__fd(skel->maps.classes), &id, &c, BPF_ANY);
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		bool keep = false;

		k = next;
		prev = &k;
		for (int i = 0; i < cfg->n_ports && !keep; i++)
			keep = cfg->ports[i].ifindex == k.ifindex && k.vid < 4096 &&
			       (cfg->ports[i].vlans[k.vid / 8] & (1U << (k.vid % 8)));
		if (!keep) {
			bpf_map_delete_elem(fd, &k);
			prev = NULL; /* the walk starts again past a deletion */
		}
	}
}

/* The hook is the links': reload keeps them. `auto` is content with
 * either (it chose once, at load). */
static int same_hook(const char *instance, const struct xl_config *cfg)
{
	bool tc = xl_tcx_ingress_pinned(instance);

	if (cfg->hook == XL_HOOK_AUTO || tc == (cfg->hook == XL_HOOK_AT_TC))
		return 0;
	xl_err("%s: hook = %s, but the instance is attached at %s: "
	       "reload keeps the attachment; to move it, unload and load", cfg->path,
	       cfg->hook == XL_HOOK_AT_TC ? "tc" : "xdp", tc ? "tc" : "xdp");
	return -1;
}

int xl_leaf_reload(const struct xl_config *cfg, const char *instance)
{
	struct leaf *skel = leaf__open();
	int err = -1;

	if (!skel) {
		xl_err("cannot open BPF object: %s", strerror(errno));
		return -1;
	}
	/* the maps are the instance's own, nothing is loaded: writes go to
	 * the running dataplane */
	if (xl_upgrade_adopt_maps(skel->obj, instance) || same_ports(skel, cfg) ||
	    same_hook(instance, cfg))
		goto out;
	if (bpf_map__max_entries(skel->maps.flows) != (cfg->flow_table_size ?
						       cfg->flow_table_size : XL_FLOW_TABLE_SIZE)) {
		xl_err("%s: flow_table_size changed (loaded %u): a table "
		       "cannot be resized in place; unload and load", cfg->path,
		       bpf_map__max_entries(skel->maps.flows));
		goto out;
	}
	if (xl_leaf_fill_maps(skel, cfg))
		goto out;
	prune_routes(bpf_map__fd(skel->maps.routes4), sizeof(struct xl_lpm4_key), cfg, AF_INET);
	prune_routes(bpf_map__fd(skel->maps.routes6), sizeof(struct xl_lpm6_key), cfg, AF_INET6);
	prune_rest(skel, cfg);
	/* the pruned routes and ports too: the caches are stale now */
	if (xl_fwd_changed(bpf_map__fd(skel->maps.fwd_gen)))
		xl_err("cannot write fwd_gen: %s", strerror(errno));
	else
		err = 0;
out:
	leaf__destroy(skel);
	return err;
}
