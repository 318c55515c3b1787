// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Unit tests for user/config/config.c. Run from the repository root (fixtures are
 * read from tests/configs, or from $XL_CONFIG_DIR).
 *
 * Each file in tests/configs/bad starts with "# expect: LINE: substring";
 * a second line "# needs: interfaces" marks the one that is only wrong on a
 * machine without that interface (it is loaded with check_interfaces, and
 * must load cleanly without). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "config/config_keys.h"
#include "config/key_show.h"
#include "base/names.h"
#include "stderr_capture.h"
#include "base/units.h"
#include "events.h"

static const char *conf_dir(void)
{
	const char *d = getenv("XL_CONFIG_DIR");

	return d && *d ? d : "tests/configs";
}

static void fixture_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", conf_dir(), rel);
}

/* Writes text to a temporary file and loads it. */
static int load_text(const char *text, bool check_interfaces, struct xl_config *cfg,
		     char *err, size_t errlen, char *path, size_t pathlen)
{
	char tmpl[] = "/tmp/xl-test-config-XXXXXX";
	int fd = mkstemp(tmpl), rc;
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(path, pathlen, "%s", tmpl);
	rc = xl_config_load(tmpl, check_interfaces, cfg, err, errlen);
	unlink(tmpl);
	return rc;
}

static int find_port(const struct xl_config *cfg, const char *name)
{
	for (int i = 0; i < cfg->n_ports; i++)
		if (!strcmp(cfg->ports[i].ifname, name))
			return i;
	return -1;
}

static const struct xl_cfg_route *find_route(const struct xl_config *cfg, const char *pfx)
{
	char a[INET6_ADDRSTRLEN], s[64];

	for (int i = 0; i < cfg->n_routes; i++) {
		const struct xl_cfg_route *r = &cfg->routes[i];

		inet_ntop(r->family, r->addr, a, sizeof(a));
		snprintf(s, sizeof(s), "%s/%u", a, r->prefixlen);
		if (!strcmp(s, pfx))
			return r;
	}
	return NULL;
}

static bool all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* ---- good fixtures ---- */

static void test_good_fixture(void **state)
{
	struct xl_config cfg;
	char path[512], err[XL_ERR_MAX] = "";

	fixture_path(path, sizeof(path), *state);
	if (xl_config_load(path, false, &cfg, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	assert_string_equal(cfg.path, path);
	assert_true(cfg.n_ports > 0);
	/* Indices are resolved and in range. */
	for (int i = 0; i < cfg.n_ports; i++) {
		const struct xl_cfg_port *p = &cfg.ports[i];

		if (p->role == XL_ROLE_UPLINK) {
			assert_in_range(p->group_id, 0, cfg.n_groups - 1);
			assert_string_equal(cfg.groups[p->group_id].name, p->group);
		} else {
			assert_int_equal(p->group_id, -1);
		}
		assert_int_equal(p->ifindex, 0);
	}
	for (int i = 0; i < cfg.n_routes; i++) {
		const struct xl_cfg_route *r = &cfg.routes[i];

		assert_string_equal(r->target, r->kind == XL_ROUTE_PORT ?
				    cfg.ports[r->target_id].ifname :
				    cfg.groups[r->target_id].name);
	}
	/* Groups: a known mode, a timeout and skew in range, and the capacity
	 * rule. */
	assert_in_range(cfg.flow_table_size, 1024, 4 << 20);
	for (int i = 0; i < cfg.n_groups; i++) {
		const struct xl_cfg_group *g = &cfg.groups[i];
		int with = 0, without = 0;

		assert_in_range(g->n_members, 1, XL_MAX_GROUP_MEMBERS);
		assert_in_range(g->lb_mode, XL_LB_HASH, XL_LB_MODES - 1);
		assert_in_range(g->flowlet_timeout_ns, 1000, 1000000000);
		assert_in_range(g->path_skew_ns, 0, 1000000000);
		assert_in_range(g->spray_reorder, 0, XL_SPRAY_REORDERS - 1);
		for (int j = 0; j < cfg.n_ports; j++)
			if (cfg.ports[j].group_id == i)
				cfg.ports[j].rate_bps ? with++ : without++;
		assert_int_equal(with + without, g->n_members);
		if (g->lb_mode == XL_LB_FLOWLET || g->lb_mode == XL_LB_SPRAY)
			assert_true(!with || !without);
	}
	/* Ports: queue settings in range. */
	for (int i = 0; i < cfg.n_ports; i++) {
		const struct xl_cfg_port *p = &cfg.ports[i];

		assert_true(p->rate_bps == 0 ||
			    (p->rate_bps >= 1000000 && p->rate_bps <= 1600000000000ULL));
		assert_in_range(p->gamma_ppm, 1, 1000000);
		assert_in_range(p->buffer_bytes, 2048, 256 << 20);
		assert_in_range(p->overflow, XL_OVERFLOW_DROP, XL_OVERFLOW_MARK);
	}
	/* Classes: the built-ins first, names filled, profiles sane, every
	 * DSCP mapped to an existing class. */
	assert_in_range(cfg.n_classes, 3, XL_MAX_CLASSES);
	assert_string_equal(cfg.classes[XL_CLASS_DEFAULT].name, "default");
	assert_string_equal(cfg.classes[XL_CLASS_CNP].name, "cnp");
	assert_string_equal(cfg.classes[XL_CLASS_ROCE].name, "roce");
	for (int i = 0; i < cfg.n_classes; i++) {
		assert_true(cfg.classes[i].name[0]);
		assert_true(cfg.classes[i].wred.kmin < cfg.classes[i].wred.kmax);
		assert_in_range(cfg.classes[i].wred.flags, 0,
				XL_CLASS_NO_MARK | XL_CLASS_NO_DROP | XL_CLASS_FIT);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(cfg.classes[i].name, cfg.classes[j].name);
		if (i > XL_CLASS_ROCE)
			assert_true(cfg.classes[i].line > 0);
	}
	for (int d = 0; d < 64; d++)
		assert_in_range(cfg.dscp_class[d], 0, cfg.n_classes - 1);
	/* Mode: a host has only ports (with a rate if its RP runs) and DCQCN
	 * settings in range; a leaf has no host settings at all. */
	if (cfg.node_role == XL_NODE_HOST) {
		const struct xl_host_cfg *h = &cfg.host;
		const struct xl_dcqcn_params *p = &h->rp;

		assert_in_range(cfg.n_ports, 1, 4);
		assert_int_equal(cfg.n_groups, 0);
		assert_int_equal(cfg.n_routes, 0);
		assert_int_equal(cfg.n_classes, 3);
		assert_in_range(h->cnp_interval_ns, 1000, 1000000000);
		assert_in_range(h->cnp_scope, XL_CNP_PER_QP, XL_CNP_PER_PORT);
		assert_in_range(h->cnp_dscp, 0, 63);
		assert_in_range(h->np_enabled, 0, 1);
		assert_in_range(h->rp_enabled, 0, 1);
		assert_in_range(p->variant, XL_DCQCN_PAPER, XL_DCQCN_NVIDIA);
		assert_in_range(p->clamp, 0, 1);
		assert_in_range(p->f, 1, 1000);
		assert_int_equal(p->line_rate, 0); /* the loader sets it per port */
		assert_in_range(p->g, 1, XL_Q32_ONE - 1);
		if (p->variant == XL_DCQCN_NVIDIA) {
			assert_in_range(p->alpha_first, 1, XL_Q32_ONE);
			assert_in_range(p->t_dec_ns, 1, 1000000000);
			assert_int_equal(p->b_bytes, 0);
			assert_int_equal(p->clamp, 0);
		} else {
			assert_int_equal(p->alpha_first, 0);
			assert_int_equal(p->t_dec_ns, 0);
		}
		assert_in_range(p->k_ns, 1, 1000000000);
		assert_in_range(p->t_ns, 2, 1000000000);
		for (int i = 0; i < cfg.n_ports; i++) {
			assert_int_equal(cfg.ports[i].role, XL_ROLE_DOWNLINK);
			if (h->rp_enabled)
				assert_true(cfg.ports[i].rate_bps >= p->min_rate);
		}
	} else {
		assert_int_equal(cfg.node_role, XL_NODE_LEAF);
		assert_true(all_zero(&cfg.host, sizeof(cfg.host)));
		assert_int_equal(cfg.dcqcn_line, 0);
	}
	xl_config_free(&cfg);
	assert_null(cfg.routes);
	assert_int_equal(cfg.n_routes, 0);
}

static void test_good_minimal(void **state)
{
	struct xl_config cfg;
	char path[512], err[XL_ERR_MAX] = "";

	(void)state;
	fixture_path(path, sizeof(path), "good/minimal.conf");
	assert_int_equal(xl_config_load(path, false, &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.n_ports, 1);
	assert_string_equal(cfg.ports[0].ifname, "s1");
	assert_int_equal(cfg.ports[0].line, 2);
	assert_int_equal(cfg.ports[0].role, XL_ROLE_DOWNLINK);
	assert_int_equal(cfg.ports[0].group_id, -1);
	assert_false(cfg.ports[0].has_nexthop4);
	assert_false(cfg.ports[0].has_nexthop6);
	assert_int_equal(cfg.n_groups, 0);
	assert_int_equal(cfg.n_routes, 0);
	assert_int_equal(cfg.malformed, XL_MALFORMED_PASS);
	assert_int_equal(cfg.attach_mode, XL_ATTACH_NATIVE);
	assert_int_equal(cfg.hook, XL_HOOK_AUTO);
	assert_int_equal(cfg.flow_table_size, XL_FLOW_TABLE_SIZE);
	assert_int_equal(cfg.flow_table_size, 65536);
	/* hook = tc, in a file of its own */
	fixture_path(path, sizeof(path), "good/hook-tc.conf");
	{
		struct xl_config tc;

		assert_int_equal(xl_config_load(path, false, &tc, err, sizeof(err)), 0);
		assert_int_equal(tc.hook, XL_HOOK_AT_TC);
		assert_int_equal(tc.attach_mode, XL_ATTACH_NATIVE);
		xl_config_free(&tc);
	}
	/* No rate: an unlimited port, with the queue defaults. */
	assert_int_equal(cfg.ports[0].rate_bps, 0);
	assert_int_equal(cfg.ports[0].gamma_ppm, 1000000);
	assert_int_equal(cfg.ports[0].buffer_bytes, XL_DEFAULT_BUFFER);
	assert_int_equal(cfg.ports[0].overflow, XL_OVERFLOW_DROP);
	/* The built-in classes, with the paper's profile (roce's fitted to
	 * each port's buffer). */
	assert_int_equal(cfg.n_classes, 3);
	assert_string_equal(cfg.classes[0].name, "default");
	assert_int_equal(cfg.classes[0].line, 0);
	assert_int_equal(cfg.classes[0].wred.kmin, 5120);
	assert_int_equal(cfg.classes[0].wred.kmax, 204800);
	assert_int_equal(cfg.classes[0].wred.pmax, 42949673); /* round(0.01 * 2^32) */
	assert_int_equal(cfg.classes[0].wred.flags, 0);
	assert_string_equal(cfg.classes[1].name, "cnp");
	assert_int_equal(cfg.classes[1].line, 0);
	assert_int_equal(cfg.classes[1].wred.kmin, 5120);
	assert_int_equal(cfg.classes[1].wred.kmax, 204800);
	assert_int_equal(cfg.classes[1].wred.pmax, 42949673);
	assert_int_equal(cfg.classes[1].wred.flags, XL_CLASS_NO_MARK | XL_CLASS_NO_DROP);
	assert_string_equal(cfg.classes[2].name, "roce");
	assert_int_equal(cfg.classes[2].line, 0);
	assert_int_equal(cfg.classes[2].wred.kmin, 5120);
	assert_int_equal(cfg.classes[2].wred.kmax, 204800);
	assert_int_equal(cfg.classes[2].wred.pmax, 42949673);
	assert_int_equal(cfg.classes[2].wred.flags, XL_CLASS_FIT);
	for (int d = 0; d < 64; d++)
		assert_int_equal(cfg.dscp_class[d], d == 48 ? 1 : d == 26 ? 2 : XL_CLASS_DEFAULT);
	xl_config_free(&cfg);
}

static void test_good_leaf(void **state)
{
	static const __u8 v6[16] = { 0xfd, 0, 0, 2 };
	struct xl_config cfg;
	char path[512], name[16], pfx[64], err[XL_ERR_MAX] = "";
	const struct xl_cfg_route *r;
	__u8 a[16];
	int n, i;

	(void)state;
	fixture_path(path, sizeof(path), "good/leaf.conf");
	assert_int_equal(xl_config_load(path, false, &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.n_ports, 8);
	assert_int_equal(cfg.n_groups, 1);
	assert_int_equal(cfg.n_routes, 10);
	assert_string_equal(cfg.groups[0].name, "spine");
	assert_int_equal(cfg.groups[0].n_members, 4);
	assert_int_equal(cfg.groups[0].lb_mode, XL_LB_HASH);
	assert_int_equal(cfg.groups[0].flowlet_timeout_ns, XL_DEFAULT_FLOWLET_TIMEOUT_NS);
	assert_int_equal(cfg.flow_table_size, XL_FLOW_TABLE_SIZE);
	assert_int_equal(cfg.malformed, XL_MALFORMED_PASS);
	assert_int_equal(cfg.attach_mode, XL_ATTACH_NATIVE);
	/* xdp_mode set, hook not: auto takes it as hook = xdp */
	assert_int_equal(cfg.hook, XL_HOOK_AT_XDP);
	for (n = 1; n <= 4; n++) {
		snprintf(name, sizeof(name), "s%d", n);
		i = find_port(&cfg, name);
		assert_true(i >= 0);
		assert_int_equal(cfg.ports[i].role, XL_ROLE_DOWNLINK);

		snprintf(pfx, sizeof(pfx), "10.1.%d.0/24", n);
		assert_non_null(r = find_route(&cfg, pfx));
		assert_int_equal(r->family, AF_INET);
		assert_int_equal(r->kind, XL_ROUTE_PORT);
		assert_int_equal(r->target_id, i);
		snprintf(pfx, sizeof(pfx), "fd00:1:%d::/64", n);
		assert_non_null(r = find_route(&cfg, pfx));
		assert_int_equal(r->family, AF_INET6);
		assert_int_equal(r->target_id, i);

		snprintf(name, sizeof(name), "u%d", n);
		i = find_port(&cfg, name);
		assert_true(i >= 0);
		assert_int_equal(cfg.ports[i].role, XL_ROLE_UPLINK);
		assert_string_equal(cfg.ports[i].group, "spine");
		assert_int_equal(cfg.ports[i].group_id, 0);
		assert_true(cfg.ports[i].has_nexthop4 && cfg.ports[i].has_nexthop6);
		snprintf(pfx, sizeof(pfx), "10.254.%d.2", n);
		inet_pton(AF_INET, pfx, a);
		assert_memory_equal(cfg.ports[i].nexthop4, a, 4);
		snprintf(pfx, sizeof(pfx), "fd00:254:%d::2", n);
		inet_pton(AF_INET6, pfx, a);
		assert_memory_equal(cfg.ports[i].nexthop6, a, 16);
	}
	assert_non_null(r = find_route(&cfg, "10.2.0.0/16"));
	assert_int_equal(r->kind, XL_ROUTE_GROUP);
	assert_int_equal(r->target_id, 0);
	assert_non_null(r = find_route(&cfg, "fd00:2::/32"));
	assert_int_equal(r->kind, XL_ROUTE_GROUP);
	assert_int_equal(r->prefixlen, 32);
	assert_memory_equal(r->addr, v6, 16);
	assert_string_equal(r->target, "spine");
	xl_config_free(&cfg);
}

static const struct xl_cfg_class *find_class(const struct xl_config *cfg, const char *name)
{
	for (int i = 0; i < cfg->n_classes; i++)
		if (!strcmp(cfg->classes[i].name, name))
			return &cfg->classes[i];
	return NULL;
}

/* The default buffer: 1 MiB, at most 2 ms of the port's rate, at least
 * two 1518-byte frames; no rate (no queue) keeps 1 MiB. */
static void test_default_buffer(void **state)
{
	(void)state;
	assert_int_equal(xl_default_buffer(0), 1048576);
	assert_int_equal(xl_default_buffer(100000000000ULL), 1048576);
	assert_int_equal(xl_default_buffer(4194304000ULL), 1048576); /* exactly 2 ms */
	assert_int_equal(xl_default_buffer(4000000000ULL), 1000000);
	assert_int_equal(xl_default_buffer(100000000ULL), 25000);
	assert_int_equal(xl_default_buffer(50000000ULL), 12500);
	assert_int_equal(xl_default_buffer(12000000ULL), 3036);    /* 3000: the floor */
	assert_int_equal(xl_default_buffer(1000000ULL), 3036);
}

static void test_good_ecn_leaf(void **state)
{
	struct xl_config cfg;
	char path[512], err[XL_ERR_MAX] = "";
	const struct xl_cfg_port *p;
	const struct xl_cfg_class *k;

	(void)state;
	fixture_path(path, sizeof(path), "good/ecn-leaf.conf");
	if (xl_config_load(path, false, &cfg, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(cfg.n_ports, 5);

	p = &cfg.ports[find_port(&cfg, "s1")];
	assert_int_equal(p->rate_bps, 1000000000ULL);
	assert_int_equal(p->gamma_ppm, 950000);
	assert_int_equal(p->bulk_gamma_ppm, XL_BULK_GAMMA_DEFAULT_PPM);
	assert_int_equal(p->buffer_bytes, 200 * 1024);
	assert_int_equal(p->overflow, XL_OVERFLOW_DROP);
	assert_int_equal(p->line_overhead, XL_DEFAULT_LINE_OVERHEAD);

	p = &cfg.ports[find_port(&cfg, "s2")];
	assert_int_equal(p->rate_bps, 0);
	assert_int_equal(p->gamma_ppm, 1000000);
	assert_int_equal(p->buffer_bytes, XL_DEFAULT_BUFFER);
	assert_int_equal(p->overflow, XL_OVERFLOW_DROP);

	p = &cfg.ports[find_port(&cfg, "u1")];
	assert_int_equal(p->role, XL_ROLE_UPLINK);
	assert_int_equal(p->rate_bps, 2500000000ULL);
	assert_int_equal(p->gamma_ppm, 1000000);
	assert_int_equal(p->buffer_bytes, 4 << 20);
	assert_int_equal(p->overflow, XL_OVERFLOW_MARK);

	p = &cfg.ports[find_port(&cfg, "u2")];
	assert_int_equal(p->rate_bps, 0);

	p = &cfg.ports[find_port(&cfg, "u3")];
	assert_int_equal(p->rate_bps, 400000000ULL);
	assert_int_equal(p->gamma_ppm, 1000000);
	/* no buffer: 2 ms of 400 Mbit/s, below the 1 MiB default */
	assert_int_equal(p->buffer_bytes, 100000);
	assert_int_equal(p->overflow, XL_OVERFLOW_DROP);

	/* Built-ins keep ids 0-2; user classes follow in file order. */
	assert_int_equal(cfg.n_classes, 5);
	k = &cfg.classes[0];
	assert_string_equal(k->name, "default");
	assert_int_equal(k->line, 61);
	assert_int_equal(k->wred.kmin, 5120);    /* kept */
	assert_int_equal(k->wred.kmax, 300 * 1024);
	assert_int_equal(k->wred.pmax, 42949673); /* kept */
	assert_int_equal(k->wred.flags, 0);
	k = &cfg.classes[1];
	assert_string_equal(k->name, "cnp");
	assert_int_equal(k->line, 57);
	assert_int_equal(k->wred.kmin, 5120);
	assert_int_equal(k->wred.kmax, 204800);
	assert_int_equal(k->wred.pmax, 0xFFFFFFFFU); /* 100 % */
	assert_int_equal(k->wred.flags, XL_CLASS_NO_MARK | XL_CLASS_NO_DROP);
	k = &cfg.classes[2]; /* left without a DSCP: rdma claims 26 */
	assert_string_equal(k->name, "roce");
	assert_int_equal(k->wred.flags, XL_CLASS_FIT);
	k = &cfg.classes[3];
	assert_ptr_equal(k, find_class(&cfg, "rdma"));
	assert_int_equal(k->line, 42);
	assert_int_equal(k->wred.kmin, 100 * 1024);
	assert_int_equal(k->wred.kmax, 400 * 1024);
	assert_int_equal(k->wred.pmax, 858993459); /* round(0.2 * 2^32) */
	assert_int_equal(k->wred.flags, 0);
	k = &cfg.classes[4];
	assert_ptr_equal(k, find_class(&cfg, "bulk"));
	assert_int_equal(k->line, 49);
	assert_int_equal(k->wred.kmin, 0);
	assert_int_equal(k->wred.kmax, 1 << 20);
	assert_int_equal(k->wred.pmax, 1U << 31);
	assert_int_equal(k->wred.flags, XL_CLASS_NO_DROP);

	for (int d = 0; d < 64; d++) {
		int want = XL_CLASS_DEFAULT;

		if (d == 26 || d == 27)
			want = 3;
		else if (d == 10 || d == 12 || d == 14)
			want = 4;
		else if (d == 46)
			want = 1;
		if (cfg.dscp_class[d] != want)
			fail_msg("DSCP %d: class %d, want %d", d, cfg.dscp_class[d], want);
	}
	xl_config_free(&cfg);
}

static void test_good_style(void **state)
{
	struct xl_config cfg;
	char path[512], err[XL_ERR_MAX] = "";

	(void)state;
	fixture_path(path, sizeof(path), "good/style.conf");
	assert_int_equal(xl_config_load(path, false, &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.malformed, XL_MALFORMED_DROP);
	assert_int_equal(cfg.attach_mode, XL_ATTACH_GENERIC);
	assert_int_equal(cfg.hook, XL_HOOK_AT_XDP);
	assert_int_equal(cfg.n_ports, 1);
	assert_string_equal(cfg.ports[0].ifname, "u1");
	assert_int_equal(cfg.ports[0].line, 9);
	assert_int_equal(cfg.ports[0].role, XL_ROLE_UPLINK);
	assert_false(cfg.ports[0].has_nexthop4);
	assert_true(cfg.ports[0].has_nexthop6);
	assert_int_equal(cfg.n_routes, 1);
	assert_int_equal(cfg.routes[0].line, 6);
	assert_int_equal(cfg.routes[0].kind, XL_ROUTE_GROUP);
	assert_string_equal(cfg.routes[0].target, "spine");
	assert_int_equal(cfg.groups[0].line, 14);
	xl_config_free(&cfg);
}

static void test_good_edge_prefixes(void **state)
{
	struct xl_config cfg;
	char path[512], err[XL_ERR_MAX] = "";

	(void)state;
	fixture_path(path, sizeof(path), "good/edge-prefixes.conf");
	assert_int_equal(xl_config_load(path, false, &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.n_routes, 4);
	assert_int_equal(find_route(&cfg, "0.0.0.0/0")->prefixlen, 0);
	assert_int_equal(find_route(&cfg, "::/0")->family, AF_INET6);
	assert_int_equal(find_route(&cfg, "10.1.1.7/32")->prefixlen, 32);
	assert_int_equal(find_route(&cfg, "fd00:1::7/128")->prefixlen, 128);
	xl_config_free(&cfg);
}

static const struct xl_cfg_group *find_group(const struct xl_config *cfg, const char *name)
{
	for (int i = 0; i < cfg->n_groups; i++)
		if (!strcmp(cfg->groups[i].name, name))
			return &cfg->groups[i];
	return NULL;
}

static void test_good_lb_modes(void **state)
{
	static const struct {
		const char *name;
		enum xl_lb_mode mode;
		unsigned long long timeout_ns;
		int line, members;
	} want[] = {
		{ "ecmp", XL_LB_HASH, XL_DEFAULT_FLOWLET_TIMEOUT_NS, 22, 2 },
		{ "fl", XL_LB_FLOWLET, 50000, 37, 2 },
		{ "fl-norate", XL_LB_FLOWLET, XL_DEFAULT_FLOWLET_TIMEOUT_NS, 47, 1 },
		{ "letflow", XL_LB_FLOWLET_RANDOM, 2500000, 51, 2 },
		{ "spray", XL_LB_SPRAY, XL_DEFAULT_FLOWLET_TIMEOUT_NS, 80, 2 },
	};
	static const struct { const char *port, *group; unsigned long long rate; } ports[] = {
		{ "h1", "ecmp", 10000000000ULL }, { "h2", "ecmp", 0 },
		{ "f1", "fl", 10000000000ULL }, { "f2", "fl", 40000000000ULL },
		{ "g1", "fl-norate", 0 },
		{ "r1", "letflow", 25000000000ULL }, { "r2", "letflow", 0 },
		{ "p1", "spray", 100000000000ULL }, { "p2", "spray", 100000000000ULL },
	};
	struct xl_config cfg;
	char path[512], err[XL_ERR_MAX] = "";
	const struct xl_cfg_group *g;

	(void)state;
	fixture_path(path, sizeof(path), "good/lb-modes.conf");
	if (xl_config_load(path, false, &cfg, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(cfg.flow_table_size, 256 * 1024);
	assert_int_equal(cfg.n_groups, 5);
	assert_int_equal(cfg.n_ports, 10);
	assert_int_equal(cfg.n_routes, 6);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		g = find_group(&cfg, want[i].name);
		assert_non_null(g);
		assert_ptr_equal(g, &cfg.groups[i]); /* file order */
		assert_int_equal(g->lb_mode, want[i].mode);
		assert_int_equal(g->flowlet_timeout_ns, want[i].timeout_ns);
		assert_int_equal(g->line, want[i].line);
		assert_int_equal(g->n_members, want[i].members);
		/* the rule's keys at their defaults */
		assert_int_equal(g->path_skew_ns, XL_DEFAULT_PATH_SKEW_NS);
		assert_true(g->path_skew_auto);
		assert_int_equal(g->spray_reorder, XL_SPRAY_FREE);
	}
	for (size_t i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
		int p = find_port(&cfg, ports[i].port);

		assert_true(p >= 0);
		assert_string_equal(cfg.groups[cfg.ports[p].group_id].name, ports[i].group);
		assert_int_equal(cfg.ports[p].rate_bps, ports[i].rate);
	}
	assert_int_equal(find_route(&cfg, "10.5.0.0/16")->target_id, 3);
	xl_config_free(&cfg);
}

/* The reorder-free rule's keys: flowlet_timeout auto or a floor,
 * path_skew, spray_reorder; and their defaults. */
static void test_good_reorder(void **state)
{
	static const struct {
		const char *name;
		enum xl_lb_mode mode;
		unsigned long long timeout_ns;
		unsigned int skew_ns, spray_reorder;
	} want[] = {
		{ "auto", XL_LB_FLOWLET, XL_DEFAULT_FLOWLET_TIMEOUT_NS, 100000, XL_SPRAY_FREE },
		{ "floor", XL_LB_FLOWLET_RANDOM, 3000000, 0, XL_SPRAY_FREE },
		{ "safe", XL_LB_SPRAY, XL_DEFAULT_FLOWLET_TIMEOUT_NS, 10000, XL_SPRAY_SAFE },
		{ "free", XL_LB_SPRAY, XL_DEFAULT_FLOWLET_TIMEOUT_NS, XL_DEFAULT_PATH_SKEW_NS,
		  XL_SPRAY_FREE },
		{ "defaults", XL_LB_FLOWLET, XL_DEFAULT_FLOWLET_TIMEOUT_NS,
		  XL_DEFAULT_PATH_SKEW_NS, XL_SPRAY_FREE },
	};
	struct xl_config cfg;
	char path[512], err[XL_ERR_MAX] = "";

	(void)state;
	/* the defaults the docs give, written out */
	assert_int_equal(XL_DEFAULT_FLOWLET_TIMEOUT_NS, 50000);
	assert_int_equal(XL_DEFAULT_PATH_SKEW_NS, 25000);
	fixture_path(path, sizeof(path), "good/reorder.conf");
	if (xl_config_load(path, false, &cfg, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(cfg.n_groups, 5);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct xl_cfg_group *g = find_group(&cfg, want[i].name);

		assert_non_null(g);
		assert_int_equal(g->lb_mode, want[i].mode);
		assert_int_equal(g->flowlet_timeout_ns, want[i].timeout_ns);
		assert_int_equal(g->path_skew_ns, want[i].skew_ns);
		assert_int_equal(g->spray_reorder, want[i].spray_reorder);
	}
	xl_config_free(&cfg);
}

/* ---- host mode ---- */

/* The defaults of docs/config.md, written out (not taken from
 * xl_dcqcn_defaults, so a change there shows up here). */
static void assert_paper_defaults(const struct xl_dcqcn_params *p)
{
	assert_int_equal(p->variant, XL_DCQCN_PAPER);
	assert_int_equal(p->clamp, 1);
	assert_int_equal(p->f, 5);
	assert_int_equal(p->line_rate, 0);
	assert_int_equal(p->g, 1ULL << 24); /* 1/256 */
	assert_int_equal(p->alpha_first, 0);
	assert_int_equal(p->k_ns, 55000);
	assert_int_equal(p->t_ns, 55000);
	assert_int_equal(p->t_dec_ns, 0);
	assert_int_equal(p->b_bytes, 10000000); /* 10 MB, decimal */
	assert_int_equal(p->r_ai, 40000000);
	assert_int_equal(p->r_hai, 200000000);
	assert_int_equal(p->min_rate, 100000000);
}

static void test_good_host_paper(void **state)
{
	struct xl_dcqcn_params want;
	struct xl_config cfg;
	char path[512], err[XL_ERR_MAX] = "";

	(void)state;
	fixture_path(path, sizeof(path), "good/host-paper.conf");
	if (xl_config_load(path, false, &cfg, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(cfg.node_role, XL_NODE_HOST);
	assert_int_equal(cfg.dcqcn_line, 0);
	assert_int_equal(cfg.n_ports, 1);
	assert_string_equal(cfg.ports[0].ifname, "eth0");
	assert_int_equal(cfg.ports[0].rate_bps, 100000000000ULL);
	assert_int_equal(cfg.host.cnp_interval_ns, 50000);
	assert_int_equal(cfg.host.cnp_interval_ns, XL_CNP_INTERVAL_DEFAULT_NS);
	assert_int_equal(cfg.host.cnp_scope, XL_CNP_PER_QP);
	assert_int_equal(cfg.host.cnp_dscp, 48);
	assert_int_equal(cfg.host.np_enabled, 1);
	assert_int_equal(cfg.host.rp_enabled, 1);
	assert_paper_defaults(&cfg.host.rp);
	xl_dcqcn_defaults(&want, XL_DCQCN_PAPER, 0);
	assert_memory_equal(&cfg.host.rp, &want, sizeof(want));
	xl_config_free(&cfg);
}

/* The same settings written in two orders (variant first, and variant
 * last with [xdpleaf] at the end) load the same. */
static void test_good_host_nvidia(void **state)
{
	static const struct { const char *file; int dcqcn_line; } files[] = {
		{ "good/host-nvidia.conf", 14 },
		{ "good/host-nvidia-late.conf", 11 },
	};
	struct xl_host_cfg first;
	struct xl_config cfg;
	char path[512], err[XL_ERR_MAX] = "";

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		const struct xl_dcqcn_params *p = &cfg.host.rp;

		fixture_path(path, sizeof(path), files[i].file);
		if (xl_config_load(path, false, &cfg, err, sizeof(err)))
			fail_msg("%s", err);
		assert_int_equal(cfg.node_role, XL_NODE_HOST);
		assert_int_equal(cfg.dcqcn_line, files[i].dcqcn_line);
		assert_int_equal(cfg.n_ports, 2);
		assert_int_equal(cfg.ports[find_port(&cfg, "eth0")].rate_bps, 100000000000ULL);
		assert_int_equal(cfg.ports[find_port(&cfg, "eth1")].rate_bps, 200000000000ULL);
		assert_int_equal(cfg.host.np_enabled, 1);
		assert_int_equal(cfg.host.rp_enabled, 1);
		assert_int_equal(cfg.host.cnp_scope, XL_CNP_PER_PORT);
		assert_int_equal(cfg.host.cnp_interval_ns, 4000);
		assert_int_equal(cfg.host.cnp_dscp, 48);
		assert_int_equal(p->variant, XL_DCQCN_NVIDIA);
		assert_int_equal(p->g, 1ULL << 24);           /* set: not 5/1024 */
		assert_int_equal(p->alpha_first, XL_Q32_ONE); /* set: not 1023/1024 */
		assert_int_equal(p->k_ns, 1000);
		assert_int_equal(p->t_dec_ns, 4000);
		assert_int_equal(p->t_ns, 300000);
		assert_int_equal(p->f, 1);
		assert_int_equal(p->r_ai, 20000000);
		assert_int_equal(p->r_hai, 200000000);
		assert_int_equal(p->min_rate, 1000000000);
		assert_int_equal(p->b_bytes, 0);
		assert_int_equal(p->clamp, 0);
		assert_int_equal(p->line_rate, 0);
		if (!i)
			first = cfg.host;
		else
			assert_memory_equal(&cfg.host, &first, sizeof(first));
		xl_config_free(&cfg);
	}
}

static void test_good_host_np_only(void **state)
{
	struct xl_config cfg;
	char path[512], err[XL_ERR_MAX] = "";

	(void)state;
	fixture_path(path, sizeof(path), "good/host-np-only.conf");
	if (xl_config_load(path, false, &cfg, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(cfg.node_role, XL_NODE_HOST);
	assert_int_equal(cfg.dcqcn_line, 10);
	assert_int_equal(cfg.n_ports, 2);
	assert_int_equal(cfg.ports[0].rate_bps, 0);
	assert_int_equal(cfg.ports[1].rate_bps, 0);
	assert_int_equal(cfg.host.np_enabled, 1);
	assert_int_equal(cfg.host.rp_enabled, 0);
	assert_int_equal(cfg.host.cnp_scope, XL_CNP_PER_PORT);
	assert_int_equal(cfg.host.cnp_interval_ns, 4000);
	assert_int_equal(cfg.host.cnp_dscp, 46);
	assert_paper_defaults(&cfg.host.rp); /* kept, unused */
	xl_config_free(&cfg);
}

/* ---- bad fixtures ---- */

struct expect {
	int line;
	char substr[256];
	bool needs_interfaces;
};

static void read_expect(const char *path, struct expect *e)
{
	char l1[512], l2[512] = "";
	FILE *f = fopen(path, "r");
	int n = 0;

	assert_non_null(f);
	assert_non_null(fgets(l1, sizeof(l1), f));
	if (!fgets(l2, sizeof(l2), f))
		l2[0] = 0;
	fclose(f);
	l1[strcspn(l1, "\n")] = 0;
	if (sscanf(l1, "# expect: %d: %n", &e->line, &n) != 1 || !n || !l1[n])
		fail_msg("%s: first line must be '# expect: LINE: substring'", path);
	snprintf(e->substr, sizeof(e->substr), "%s", l1 + n);
	e->needs_interfaces = !strncmp(l2, "# needs: interfaces", 19);
}

static void test_bad_fixture(void **state)
{
	struct xl_config cfg;
	char path[512], want[600], err[XL_ERR_MAX] = "";
	struct expect e;

	fixture_path(path, sizeof(path), *state);
	read_expect(path, &e);
	if (e.needs_interfaces) {
		/* Only the environment is wrong: the file itself is fine. */
		if (xl_config_load(path, false, &cfg, err, sizeof(err)))
			fail_msg("%s without interface check: %s", path, err);
		xl_config_free(&cfg);
	}
	memset(&cfg, 0xa5, sizeof(cfg)); /* load must not rely on a clean cfg */
	assert_int_equal(xl_config_load(path, e.needs_interfaces, &cfg, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "%s:%d: ", path, e.line);
	if (strncmp(err, want, strlen(want)) || !strstr(err, e.substr))
		fail_msg("%s\n  got:  %s\n  want: %s...%s", path, err, want, e.substr);
	assert_null(strchr(err, '\n'));
	assert_true(all_zero(&cfg, sizeof(cfg)));
}

/* Every fixture on disk is in the lists below, and there are enough. */
#define GOOD_FILES(X) X(minimal) X(leaf) X(style) X(edge-prefixes) X(ecn-leaf) X(lb-modes) X(reorder) \
	X(host-paper) X(host-nvidia) X(host-nvidia-late) X(host-np-only) X(bpf-leaf) X(hook-tc)

#define BAD_FILES(X) \
	X(unknown-section) X(unknown-key-port) X(unknown-key-xdpleaf) \
	X(bad-hook) X(hook-tc-xdp-mode) X(hook-host) \
	X(vlans-4095) X(vlans-invalid) X(vlans-range-reversed) \
	X(key-outside-section) X(duplicate-key) X(duplicate-port) X(duplicate-group) \
	X(duplicate-route) X(duplicate-xdpleaf) X(xdpleaf-with-name) \
	X(port-name-missing) X(port-name-too-long) X(port-name-invalid) \
	X(group-name-invalid) X(group-name-too-long) X(group-name-empty) \
	X(section-unclosed) X(section-empty) X(no-equals) X(empty-value) \
	X(prefix-syntax) X(prefix-len-garbage) X(prefix-len-33) X(prefix-len-129) \
	X(prefix-host-bits) X(prefix-host-bits-v6) X(prefix-no-length) \
	X(nexthop4-invalid) X(nexthop4-is-ipv6) X(nexthop6-is-ipv4) \
	X(bad-role) X(bad-malformed) X(bad-xdp-mode) X(mode-invalid) X(lb-mode-invalid) \
	X(uplink-no-group) X(uplink-no-nexthop) X(downlink-with-group) \
	X(downlink-with-nexthop) X(group-undefined) X(group-no-members) \
	X(group-too-many-members) X(too-many-ports) X(route-no-target) \
	X(route-both-targets) X(route-unknown-port) X(route-unknown-group) \
	X(no-ports) X(missing-interface) \
	X(rate-syntax) X(rate-range) X(gamma-zero) X(gamma-above-one) \
	X(buffer-range) X(overflow-invalid) X(gamma-without-rate) X(dscp-64) \
	X(dscp-two-classes) X(dscp-in-default) X(latency-in-cnp) X(kmin-not-below-kmax) \
	X(pmax-150-percent) X(pmax-negative) X(mark-maybe) X(too-many-classes) \
	X(class-name-too-long) X(unknown-key-class) \
	X(flowlet-timeout-syntax) X(flowlet-timeout-range) X(flowlet-timeout-no-unit) \
	X(flowlet-timeout-hash) X(flowlet-timeout-auto-case) X(path-skew-hash) \
	X(path-skew-spray-free) X(path-skew-range) X(spray-reorder-flowlet) \
	X(spray-reorder-invalid) X(flow-table-size-range) X(capacity-mixed) \
	X(dcqcn-in-leaf) X(host-group) X(host-route) X(host-uplink) X(host-gamma) \
	X(host-no-rate) X(host-min-rate) X(host-too-many-ports) \
	X(dcqcn-variant-invalid) X(dcqcn-g-zero) X(dcqcn-g-one) X(dcqcn-g-above-one) \
	X(dcqcn-b-nvidia) X(dcqcn-clamp-nvidia) X(dcqcn-alpha-first-paper) \
	X(dcqcn-cnp-dscp-64) X(dcqcn-cnp-interval-zero) X(dcqcn-cnp-scope-switch) \
	X(dcqcn-unknown-key) X(dcqcn-duplicate)

#define GOOD_NAME(n) "good/" #n ".conf",
#define BAD_NAME(n) "bad/" #n ".conf",
static const char *const good_files[] = { GOOD_FILES(GOOD_NAME) };
static const char *const bad_files[] = { BAD_FILES(BAD_NAME) };

static bool listed(const char *rel, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], rel))
			return true;
	return false;
}

static void check_dir(const char *sub, const char *const *list, size_t n)
{
	char dir[512], rel[300];
	struct dirent *d;
	size_t seen = 0;
	DIR *dp;

	fixture_path(dir, sizeof(dir), sub);
	dp = opendir(dir);
	assert_non_null(dp);
	while ((d = readdir(dp))) {
		size_t len = strlen(d->d_name);

		if (len < 5 || strcmp(d->d_name + len - 5, ".conf"))
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", sub, d->d_name);
		if (!listed(rel, list, n))
			fail_msg("%s is not listed in tests/unit/test_config.c", rel);
		seen++;
	}
	closedir(dp);
	assert_int_equal(seen, n);
}

static void test_fixture_lists_complete(void **state)
{
	(void)state;
	check_dir("good", good_files, sizeof(good_files) / sizeof(good_files[0]));
	check_dir("bad", bad_files, sizeof(bad_files) / sizeof(bad_files[0]));
	assert_true(sizeof(bad_files) / sizeof(bad_files[0]) >= 15);
}

/* ---- xl_parse_prefix ---- */

static void test_prefix_ok(void **state)
{
	static const struct { const char *s; int fam; __u32 plen; const char *addr; } ok[] = {
		{ "0.0.0.0/0", AF_INET, 0, "0.0.0.0" },
		{ "10.0.0.0/8", AF_INET, 8, "10.0.0.0" },
		{ "10.128.0.0/9", AF_INET, 9, "10.128.0.0" },
		{ "10.1.1.128/25", AF_INET, 25, "10.1.1.128" },
		{ "10.1.1.7/32", AF_INET, 32, "10.1.1.7" },
		{ "255.255.255.255/32", AF_INET, 32, "255.255.255.255" },
		{ "10.1.1.0/024", AF_INET, 24, "10.1.1.0" },
		{ "::/0", AF_INET6, 0, "::" },
		{ "fe80::/10", AF_INET6, 10, "fe80::" },
		{ "fd00:1:2::/64", AF_INET6, 64, "fd00:1:2::" },
		{ "fd00::1/128", AF_INET6, 128, "fd00::1" },
		{ "::ffff:10.0.0.0/104", AF_INET6, 104, "::ffff:10.0.0.0" },
	};
	__u8 addr[16], want[16];
	char err[128];
	__u32 plen;
	int fam;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		memset(addr, 0xff, sizeof(addr));
		memset(want, 0, sizeof(want));
		if (xl_parse_prefix(ok[i].s, &fam, addr, &plen, err, sizeof(err)))
			fail_msg("%s: %s", ok[i].s, err);
		assert_int_equal(fam, ok[i].fam);
		assert_int_equal(plen, ok[i].plen);
		assert_int_equal(inet_pton(ok[i].fam, ok[i].addr, want), 1);
		assert_memory_equal(addr, want, 16); /* IPv4: tail zeroed */
	}
}

static void test_prefix_bad(void **state)
{
	static const struct { const char *s, *why; } bad[] = {
		{ "10.1.1.7", "missing prefix length in '10.1.1.7' (write 10.1.1.7/32 for a single host)" },
		{ "fd00::7", "(write fd00::7/128 for a single host)" },
		{ "10.0.0.0/33", "prefix length /33 out of range for IPv4 (0-32)" },
		{ "::/129", "prefix length /129 out of range for IPv6 (0-128)" },
		{ "10.0.0.0/99999999999999999999", "out of range for IPv4" },
		{ "10.1.1.5/24", "host bits set beyond /24 (did you mean 10.1.1.0/24?)" },
		{ "10.1.1.64/25", "did you mean 10.1.1.0/25?" },
		{ "10.0.0.0/0", "did you mean 0.0.0.0/0?" },
		{ "fd00::1/64", "did you mean fd00::/64?" },
		{ "fd00:2:1::/32", "did you mean fd00:2::/32?" },
		{ "garbage", "missing prefix length" },
		{ "garbage/24", "invalid IPv4 address 'garbage'" },
		{ "10.1.1/24", "invalid IPv4 address '10.1.1'" },
		{ "1.2.3.4.5/8", "invalid IPv4 address" },
		{ "/8", "invalid IPv4 address ''" },
		{ "fd00:::1/64", "invalid IPv6 address 'fd00:::1'" },
		{ "fe80::1%eth0/64", "invalid IPv6 address" },
		{ "10.0.0.0/", "invalid prefix length ''" },
		{ "10.0.0.0/-1", "invalid prefix length '-1'" },
		{ "10.0.0.0/+8", "invalid prefix length '+8'" },
		{ "10.0.0.0/ 8", "invalid prefix length ' 8'" },
		{ "10.0.0.0/8 ", "invalid prefix length '8 '" },
		{ "10.0.0.0/8/8", "invalid prefix length '8/8'" },
		{ "", "missing prefix length" },
	};
	__u8 addr[16];
	char err[128];
	__u32 plen = 77;
	int fam = 77;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (!xl_parse_prefix(bad[i].s, &fam, addr, &plen, err, sizeof(err)))
			fail_msg("'%s' was accepted", bad[i].s);
		if (!strstr(err, bad[i].why))
			fail_msg("'%s': got '%s', want '%s'", bad[i].s, err, bad[i].why);
	}
	assert_int_equal(fam, 77); /* outputs untouched on error */
	assert_int_equal(plen, 77);
	/* A tiny or absent error buffer is fine. */
	assert_int_equal(xl_parse_prefix("x", &fam, addr, &plen, err, 4), -1);
	assert_string_equal(err, "mis");
	assert_int_equal(xl_parse_prefix("x", &fam, addr, &plen, NULL, 0), -1);
}

/* ---- loading: interfaces, errors, text forms ---- */

static void test_interfaces(void **state)
{
	struct xl_config cfg;
	char path[64], err[XL_ERR_MAX] = "", want[128];

	(void)state;
	assert_int_equal(load_text("[port lo]\n", true, &cfg, err, sizeof(err),
				   path, sizeof(path)), 0);
	assert_int_equal(cfg.ports[0].ifindex, if_nametoindex("lo"));
	assert_true(cfg.ports[0].ifindex > 0);
	xl_config_free(&cfg);

	assert_int_equal(load_text("[port lo]\n", false, &cfg, err, sizeof(err),
				   path, sizeof(path)), 0);
	assert_int_equal(cfg.ports[0].ifindex, 0);
	xl_config_free(&cfg);

	assert_int_equal(load_text("[port lo]\n\n[port nosuchif0]\n", true, &cfg, err,
				   sizeof(err), path, sizeof(path)), -1);
	snprintf(want, sizeof(want), "%s:3: interface 'nosuchif0' does not exist", path);
	assert_string_equal(err, want);
}

static void test_cannot_open(void **state)
{
	struct xl_config cfg;
	char err[XL_ERR_MAX];

	(void)state;
	assert_int_equal(xl_config_load("/nonexistent/xdpleaf.conf", false, &cfg, err,
					sizeof(err)), -1);
	assert_string_equal(err, "/nonexistent/xdpleaf.conf:0: cannot open: "
			    "No such file or directory");
	assert_true(all_zero(&cfg, sizeof(cfg)));
	/* A small or absent error buffer must not break anything. */
	assert_int_equal(xl_config_load("/nonexistent/x", false, &cfg, err, 5), -1);
	assert_string_equal(err, "/non");
	assert_int_equal(xl_config_load("/nonexistent/x", false, &cfg, NULL, 0), -1);
}

/* Routes live on the heap: an error found after they were read frees them. */
static void test_error_after_routes(void **state)
{
	struct xl_config cfg;
	char path[64], err[XL_ERR_MAX];

	(void)state;
	assert_int_equal(load_text("[route 10.1.0.0/16]\nport = s1\n"
				   "[route 10.2.0.0/16]\nport = s9\n[port s1]\n",
				   false, &cfg, err, sizeof(err), path, sizeof(path)), -1);
	assert_non_null(strstr(err, ":4: route 10.2.0.0/16: port 's9' is not defined"));
	assert_true(all_zero(&cfg, sizeof(cfg)));
}

static void test_many_routes(void **state)
{
	enum { N = 5000 };
	size_t cap = 64 + N * 40, len = 0;
	char *text = malloc(cap), path[64], err[XL_ERR_MAX] = "";
	struct xl_config cfg;

	(void)state;
	assert_non_null(text);
	len += snprintf(text + len, cap - len, "[port s1]\n");
	for (int i = 0; i < N; i++)
		len += snprintf(text + len, cap - len, "[route 10.%d.%d.0/24]\nport = s1\n",
				i / 256, i % 256);
	if (load_text(text, false, &cfg, err, sizeof(err), path, sizeof(path)))
		fail_msg("%s", err);
	free(text);
	assert_int_equal(cfg.n_routes, N);
	assert_int_equal(cfg.routes[N - 1].line, 2 + 2 * (N - 1));
	assert_non_null(find_route(&cfg, "10.19.135.0/24"));
	assert_int_equal(cfg.routes[N - 1].target_id, 0);
	xl_config_free(&cfg);
}

/* Line endings, BOM, comment rules and line length, with the exact error. */
static void test_text_forms(void **state)
{
	static const struct { const char *text; const char *want; } cases[] = {
		/* accepted (want NULL) */
		{ "\xef\xbb\xbf[port s1]\r\nrole = uplink\r\ngroup = g\r\n"
		  "nexthop4 = 10.0.0.1\r\n[group g]\r\n", NULL },
		{ "  [ port s1 ]   ;c\n\trole=downlink\n\n\t\n", NULL },
		{ "[port s1]\nrole = downlink # comment\n", NULL },
		{ "[port s1]\nrole = downlink ; comment\n", NULL },
		{ "[port s1]\n# role = nonsense\n; role = nonsense\n", NULL },
		{ "[port s1]\n[route 10.0.0.0/8]\nport = s1", NULL }, /* no final newline */
		/* rejected */
		{ "[port s1]\nrole = downlink#x\n", ":2: invalid role 'downlink#x'" },
		{ "[port s1]\nrole: downlink\n", ":2: expected 'key = value'" },
		{ "[port s1]\n= downlink\n", ":2: expected 'key = value'" },
		{ "[port s1] extra\n", ":1: section header must end with ']'" },
		{ "[Port s1]\n", ":1: unknown section type 'Port'" },
		{ "[port s1]\nRole = downlink\n", ":2: unknown key 'Role'" },
		{ "[port s1]\nrole = Uplink\n", ":2: invalid role 'Uplink'" },
		{ "[port s1]\n[route 10.0.0.0/8]\nport = s1\ngroup = g\n",
		  ":4: route has both port and group" },
		{ "[port s1]\n[route 10.0.0.0/8]\nport = s1\nport = s1\n",
		  ":4: duplicate key 'port' (first at line 3)" },
		{ "[port s1]\n[route 10.0.0.0/8]\nport = a/b\n", ":3: invalid interface name 'a/b'" },
		{ "[port s1]\nnexthop4 = 10.0.0.1\nrole = uplink\n",
		  ":1: uplink port s1 needs a group" },
		{ "[port s1]\nnexthop4 = 10.0.0.1\ngroup = g\n[group g]\n",
		  ":2: nexthop4 is only allowed on uplinks (port s1 is a downlink)" },
		{ "", ":0: no ports defined" },
		{ "# only a comment\n", ":0: no ports defined" },
	};
	struct xl_config cfg;
	char path[64], err[XL_ERR_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		err[0] = 0;
		rc = load_text(cases[i].text, false, &cfg, err, sizeof(err), path, sizeof(path));
		if (!cases[i].want) {
			if (rc)
				fail_msg("case %zu: %s", i, err);
			xl_config_free(&cfg);
		} else if (!rc || !strstr(err, cases[i].want) || strncmp(err, path, strlen(path))) {
			fail_msg("case %zu: got '%s', want '%s'", i, rc ? err : "success",
				 cases[i].want);
		}
	}
}

static void test_long_line(void **state)
{
	static const char *const ends[] = { "\n", "\r\n", "" };
	char text[1024], path[64], err[XL_ERR_MAX];
	struct xl_config cfg;
	int n;

	(void)state;
	/* 199 characters is the limit, whatever ends the line */
	for (size_t i = 0; i < 3; i++) {
		n = snprintf(text, sizeof(text), "[port s1]\n# %0197d%s", 0, ends[i]);
		assert_int_equal(n, 10 + 199 + strlen(ends[i]));
		if (load_text(text, false, &cfg, err, sizeof(err), path, sizeof(path)))
			fail_msg("end %zu: %s", i, err);
		xl_config_free(&cfg);
	}
	snprintf(text, sizeof(text), "[port s1]\n# %0198d\r\n", 0);
	assert_int_equal(load_text(text, false, &cfg, err, sizeof(err), path, sizeof(path)), -1);
	assert_non_null(strstr(err, ":2: line too long (max 199 characters)"));
}

/* ---- queue and class values ---- */

/* Loads text; want_err NULL: must load (cfg left loaded), else the error
 * must contain want_err (give ":LINE: message"). */
static bool load_case(const char *text, const char *want_err, struct xl_config *cfg,
		      const char *what)
{
	char path[64], err[XL_ERR_MAX] = "";
	int rc = load_text(text, false, cfg, err, sizeof(err), path, sizeof(path));

	if (!want_err) {
		if (rc)
			fail_msg("%s: %s", what, err);
		return true;
	}
	if (!rc || strncmp(err, path, strlen(path)) || !strstr(err, want_err))
		fail_msg("%s: got '%s', want '%s'", what, rc ? err : "success", want_err);
	assert_true(all_zero(cfg, sizeof(*cfg)));
	return false;
}

static void test_port_queue_values(void **state)
{
	static const struct {
		const char *key, *value;
		unsigned long long want;
		const char *err;
	} cases[] = {
		{ "rate", "1M", 1000000, NULL },
		{ "rate", "1000000", 1000000, NULL },
		{ "rate", "100M", 100000000, NULL },
		{ "rate", "2.5G", 2500000000ULL, NULL },
		{ "rate", "25G", 25000000000ULL, NULL },
		{ "rate", "400G", 400000000000ULL, NULL },
		{ "rate", "1.6T", 1600000000000ULL, NULL },
		{ "rate", "1600G", 1600000000000ULL, NULL },
		{ "rate", "0.001G", 1000000, NULL },
		{ "rate", "1000.5K", 1000500, NULL },
		{ "rate", "1.000001M", 1000001, NULL },
		{ "rate", "1000000.0", 1000000, NULL },
		{ "rate", "007G", 7000000000ULL, NULL },
		{ "rate", "999999", 0, ":3: rate '999999' out of range (1M..1600G bit/s)" },
		{ "rate", "0", 0, ":3: rate '0' out of range" },
		{ "rate", "0.999999M", 0, ":3: rate '0.999999M' out of range" },
		{ "rate", "1600000000001", 0, ":3: rate '1600000000001' out of range" },
		{ "rate", "1.600001T", 0, ":3: rate '1.600001T' out of range" },
		{ "rate", "2T", 0, ":3: rate '2T' out of range" },
		{ "rate", "99999999999999999999999999G", 0, ":3: rate '99999999999999999999999999G' out of range (1M..1600G" },
		{ "rate", "18446744073709551617", 0, ":3: rate '18446744073709551617' out of range (1M..1600G" },
		{ "rate", "1000000.5", 0, ":3: rate '1000000.5' is not a whole number of bit/s" },
		{ "rate", "1g", 0, ":3: invalid rate '1g' (bit/s: a number with at most 6 decimals" },
		{ "rate", "1 G", 0, ":3: invalid rate '1 G'" },
		{ "rate", "1Gbit", 0, ":3: invalid rate '1Gbit'" },
		{ "rate", "1GG", 0, ":3: invalid rate '1GG'" },
		{ "rate", "G", 0, ":3: invalid rate 'G'" },
		{ "rate", "-1G", 0, ":3: invalid rate '-1G'" },
		{ "rate", "+1G", 0, ":3: invalid rate '+1G'" },
		{ "rate", ".5G", 0, ":3: invalid rate '.5G'" },
		{ "rate", "5.G", 0, ":3: invalid rate '5.G'" },
		{ "rate", "1.2.3G", 0, ":3: invalid rate '1.2.3G'" },
		{ "rate", "1e9", 0, ":3: invalid rate '1e9'" },
		{ "rate", "0x10G", 0, ":3: invalid rate '0x10G'" },
		{ "rate", "1.0000001G", 0, ":3: invalid rate '1.0000001G'" },
		{ "gamma", "1", 1000000, NULL },
		{ "gamma", "1.000000", 1000000, NULL },
		{ "gamma", "0.95", 950000, NULL },
		{ "gamma", "0.5", 500000, NULL },
		{ "gamma", "0.000001", 1, NULL },
		{ "gamma", "00.9", 900000, NULL },
		{ "gamma", "0", 0, ":3: gamma '0' out of range (0 < gamma <= 1)" },
		{ "gamma", "0.000000", 0, ":3: gamma '0.000000' out of range" },
		{ "gamma", "1.000001", 0, ":3: gamma '1.000001' out of range" },
		{ "gamma", "1.5", 0, ":3: gamma '1.5' out of range" },
		{ "gamma", "99999999999999999999999", 0, ":3: gamma '99999999999999999999999' out of range (0 < gamma <= 1)" },
		{ "gamma", "0.0000001", 0, ":3: invalid gamma '0.0000001' (a number with at most 6 decimals" },
		{ "gamma", "-0.5", 0, ":3: invalid gamma '-0.5'" },
		{ "gamma", "95%", 0, ":3: invalid gamma '95%'" },
		{ "gamma", ".9", 0, ":3: invalid gamma '.9'" },
		/* bulk_gamma reads as gamma does, its messages name it */
		{ "bulk_gamma", "1", 1000000, NULL },
		{ "bulk_gamma", "0.95", 950000, NULL },
		{ "bulk_gamma", "0.8", 800000, NULL },
		{ "bulk_gamma", "0.000001", 1, NULL },
		{ "bulk_gamma", "0", 0, ":3: bulk_gamma '0' out of range (0 < bulk_gamma <= 1)" },
		{ "bulk_gamma", "1.000001", 0, ":3: bulk_gamma '1.000001' out of range (0 < bulk_gamma <= 1)" },
		{ "bulk_gamma", "0.0000001", 0, ":3: invalid bulk_gamma '0.0000001' (a number with at most 6 decimals" },
		{ "bulk_gamma", "95%", 0, ":3: invalid bulk_gamma '95%'" },
		{ "buffer", "2K", 2048, NULL },
		{ "buffer", "2048", 2048, NULL },
		{ "buffer", "200K", 204800, NULL },
		{ "buffer", "1M", 1048576, NULL },
		{ "buffer", "256M", 268435456, NULL },
		{ "buffer", "262144K", 268435456, NULL },
		{ "buffer", "2047", 0, ":3: buffer '2047' out of range (2K..256M bytes)" },
		{ "buffer", "1K", 0, ":3: buffer '1K' out of range (2K..256M bytes)" },
		{ "buffer", "0", 0, ":3: buffer '0' out of range" },
		{ "buffer", "257M", 0, ":3: buffer '257M' out of range" },
		{ "buffer", "262145K", 0, ":3: buffer '262145K' out of range" },
		{ "buffer", "268435457", 0, ":3: buffer '268435457' out of range" },
		{ "buffer", "99999999999999999999999999K", 0, ":3: buffer '99999999999999999999999999K' out of range (2K..256M" },
		{ "buffer", "1.5M", 0, ":3: invalid buffer '1.5M' (bytes: a whole number with an optional K = 1024" },
		{ "buffer", "1G", 0, ":3: invalid buffer '1G'" },
		{ "buffer", "200k", 0, ":3: invalid buffer '200k'" },
		{ "buffer", "200KB", 0, ":3: invalid buffer '200KB'" },
		{ "buffer", "-2K", 0, ":3: invalid buffer '-2K'" },
		{ "overflow", "drop", XL_OVERFLOW_DROP, NULL },
		{ "overflow", "mark", XL_OVERFLOW_MARK, NULL },
		{ "overflow", "Mark", 0, ":3: invalid overflow 'Mark' (allowed: drop, mark)" },
		{ "line_overhead", "24", 24, NULL },
		{ "line_overhead", "0", 0, NULL },
		{ "line_overhead", "256", 256, NULL },
		{ "line_overhead", "257", 0, ":3: line_overhead '257' out of range (0-256)" },
		{ "line_overhead", "-1", 0, ":3: invalid line_overhead '-1' (a whole number 0-256)" },
		{ "line_overhead", "24B", 0, ":3: invalid line_overhead '24B'" },
	};
	struct xl_config cfg;
	char text[256], what[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct xl_cfg_port *p = &cfg.ports[0];
		unsigned long long got;

		/* The key on line 3, after a rate (or a role for rate itself). */
		snprintf(text, sizeof(text), "[port s1]\n%s\n%s = %s\n",
			 strcmp(cases[i].key, "rate") ? "rate = 10G" : "role = downlink",
			 cases[i].key, cases[i].value);
		snprintf(what, sizeof(what), "%s = %s", cases[i].key, cases[i].value);
		if (!load_case(text, cases[i].err, &cfg, what))
			continue;
		got = !strcmp(cases[i].key, "rate") ? p->rate_bps :
		      !strcmp(cases[i].key, "gamma") ? p->gamma_ppm :
		      !strcmp(cases[i].key, "bulk_gamma") ? p->bulk_gamma_ppm :
		      !strcmp(cases[i].key, "buffer") ? p->buffer_bytes :
		      !strcmp(cases[i].key, "line_overhead") ? p->line_overhead : p->overflow;
		if (got != cases[i].want)
			fail_msg("%s: got %llu, want %llu", what, got, cases[i].want);
		xl_config_free(&cfg);
	}
}

enum class_field { F_KMIN, F_KMAX, F_PMAX, F_FLAGS };

static void test_class_values(void **state)
{
	static const struct {
		const char *key, *value;
		enum class_field f;
		unsigned long long want;
		const char *err;
	} cases[] = {
		{ "kmin", "0", F_KMIN, 0, NULL },
		{ "kmin", "5K", F_KMIN, 5120, NULL },
		{ "kmin", "100000", F_KMIN, 100000, NULL },
		{ "kmin", "255M", F_KMIN, 255U << 20, NULL },
		{ "kmin", "257M", F_KMIN, 0, ":5: kmin '257M' out of range (0..256M bytes)" },
		{ "kmin", "5KB", F_KMIN, 0, ":5: invalid kmin '5KB'" },
		{ "kmax", "1", F_KMAX, 1, NULL },
		{ "kmax", "256M", F_KMAX, 256U << 20, NULL },
		{ "kmax", "268435457", F_KMAX, 0, ":5: kmax '268435457' out of range (0..256M bytes)" },
		{ "kmax", "0.5K", F_KMAX, 0, ":5: invalid kmax '0.5K'" },
		{ "pmax", "1%", F_PMAX, 42949673, NULL },      /* round(0.01 * 2^32) */
		{ "pmax", "0.01", F_PMAX, 42949673, NULL },
		{ "pmax", "0.010000", F_PMAX, 42949673, NULL },
		{ "pmax", "0", F_PMAX, 0, NULL },
		{ "pmax", "0%", F_PMAX, 0, NULL },
		{ "pmax", "0.5", F_PMAX, 1U << 31, NULL },
		{ "pmax", "50%", F_PMAX, 1U << 31, NULL },
		{ "pmax", "0.2", F_PMAX, 858993459, NULL },     /* 858993459.2 */
		{ "pmax", "20%", F_PMAX, 858993459, NULL },
		{ "pmax", "0.000001", F_PMAX, 4295, NULL },     /* 4294.967296 */
		{ "pmax", "0.000001%", F_PMAX, 43, NULL },      /* 42.94967296 */
		{ "pmax", "99.999999%", F_PMAX, 4294967253U, NULL },
		{ "pmax", "1", F_PMAX, 0xFFFFFFFFU, NULL },     /* 2^32 clamped */
		{ "pmax", "1.000000", F_PMAX, 0xFFFFFFFFU, NULL },
		{ "pmax", "100%", F_PMAX, 0xFFFFFFFFU, NULL },
		{ "pmax", "1.000001", F_PMAX, 0, ":5: pmax '1.000001' out of range (0..1, or 0%..100%)" },
		{ "pmax", "100.000001%", F_PMAX, 0, ":5: pmax '100.000001%' out of range" },
		{ "pmax", "150%", F_PMAX, 0, ":5: pmax '150%' out of range" },
		{ "pmax", "2", F_PMAX, 0, ":5: pmax '2' out of range" },
		{ "pmax", "99999999999999999999999%", F_PMAX, 0, ":5: pmax '99999999999999999999999%' out of range (0..1" },
		{ "pmax", "-1", F_PMAX, 0, ":5: invalid pmax '-1' (a fraction 0..1 such as 0.01, or a percentage such as 1%" },
		{ "pmax", "1 %", F_PMAX, 0, ":5: invalid pmax '1 %'" },
		{ "pmax", "%", F_PMAX, 0, ":5: invalid pmax '%'" },
		{ "pmax", "1%%", F_PMAX, 0, ":5: invalid pmax '1%%'" },
		{ "pmax", "0.0000001", F_PMAX, 0, ":5: invalid pmax '0.0000001'" },
		{ "pmax", "1/100", F_PMAX, 0, ":5: invalid pmax '1/100'" },
		{ "mark", "no", F_FLAGS, XL_CLASS_NO_MARK, NULL },
		{ "mark", "yes", F_FLAGS, 0, NULL },
		{ "mark", "YES", F_FLAGS, 0, ":5: invalid mark 'YES' (allowed: yes, no)" },
		{ "drop", "no", F_FLAGS, XL_CLASS_NO_DROP, NULL },
		{ "drop", "yes", F_FLAGS, 0, NULL },
		{ "drop", "0", F_FLAGS, 0, ":5: invalid drop '0' (allowed: yes, no)" },
		{ "latency", "yes", F_FLAGS, XL_CLASS_LATENCY, NULL },
		{ "latency", "no", F_FLAGS, 0, NULL },
		{ "latency", "on", F_FLAGS, 0, ":5: invalid latency 'on' (allowed: yes, no)" },
	};
	struct xl_config cfg;
	char text[256], what[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct xl_wred *w = &cfg.classes[3].wred;
		unsigned long long got;

		/* The key on line 5; the other bound of the pair is wide open. */
		snprintf(text, sizeof(text), "[port s1]\n[class c]\ndscp = 1\n%s\n%s = %s\n",
			 !strcmp(cases[i].key, "kmin") ? "kmax = 256M" :
			 !strcmp(cases[i].key, "kmax") ? "kmin = 0" : "",
			 cases[i].key, cases[i].value);
		snprintf(what, sizeof(what), "%s = %s", cases[i].key, cases[i].value);
		if (!load_case(text, cases[i].err, &cfg, what))
			continue;
		assert_int_equal(cfg.n_classes, 4);
		got = cases[i].f == F_KMIN ? w->kmin : cases[i].f == F_KMAX ? w->kmax :
		      cases[i].f == F_PMAX ? w->pmax : w->flags;
		if (got != cases[i].want)
			fail_msg("%s: got %llu, want %llu", what, got, cases[i].want);
		xl_config_free(&cfg);
	}
}

/* The dscp list syntax: the DSCPs in mask end in the new class (id 3), 48 in
 * cnp, 26 in roce unless the new class takes it, the rest in default; or the
 * error. */
static void test_dscp_values(void **state)
{
	static const struct {
		const char *value;
		unsigned long long mask; /* the DSCPs that end in class 3 */
		const char *err;
	} cases[] = {
		{ "0", 1ULL << 0, NULL },
		{ "63", 1ULL << 63, NULL },
		{ "026", 1ULL << 26, NULL },
		{ "26 27", 3ULL << 26, NULL },
		{ "26,27", 3ULL << 26, NULL },
		{ "26, 27", 3ULL << 26, NULL },
		{ "1,2 ,, 3\t4,", 0x1eULL, NULL },
		{ ",5", 1ULL << 5, NULL },
		{ "64", 0, ":3: DSCP 64 out of range (0-63)" },
		{ "1 99999999999999999999", 0, ":3: DSCP 99999999999999999999 out of range (0-63)" },
		{ ",", 0, ":3: dscp needs at least one value (0-63)" },
		{ "1 1", 0, ":3: DSCP 1 is listed twice" },
		{ "1,01", 0, ":3: DSCP 1 is listed twice" },
		{ "1 x", 0, ":3: invalid DSCP 'x' (numbers 0-63, separated by spaces or commas)" },
		{ "-1", 0, ":3: invalid DSCP '-1'" },
		{ "1;2", 0, ":3: invalid DSCP '1;2'" },
		{ "1-3", 0, ":3: invalid DSCP '1-3'" },
		{ "0x1a", 0, ":3: invalid DSCP '0x1a'" },
	};
	struct xl_config cfg;
	char text[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "[port s1]\n[class c]\ndscp = %s\n", cases[i].value);
		if (!load_case(text, cases[i].err, &cfg, cases[i].value))
			continue;
		for (int d = 0; d < 64; d++) {
			int want = cases[i].mask & (1ULL << d) ? 3 : d == 48 ? 1 :
				   d == 26 ? 2 : 0;

			if (cfg.dscp_class[d] != want)
				fail_msg("'%s': DSCP %d in class %d, want %d", cases[i].value, d,
					 cfg.dscp_class[d], want);
		}
		xl_config_free(&cfg);
	}
}

/* The built-in roce class: DSCP 26 and the paper's thresholds fitted to
 * each port's buffer, until [class roce] sets kmin or kmax (then used as
 * they are) or dscp, or another class claims 26. */
static void test_roce_class(void **state)
{
	static const struct {
		const char *text;
		int fit, dscp26, dscp24; /* classes of DSCPs 26 and 24 */
	} cases[] = {
		{ "[port s1]\n", 1, 2, 0 },
		{ "[port s1]\n[class roce]\npmax = 20%\n", 1, 2, 0 },
		{ "[port s1]\n[class roce]\nkmax = 100K\n", 0, 2, 0 },
		{ "[port s1]\n[class roce]\nkmin = 1K\n", 0, 2, 0 },
		{ "[port s1]\n[class roce]\ndscp = 24\n", 1, 0, 2 },
		{ "[port s1]\n[class rdma]\ndscp = 26\n", 1, 3, 0 },
		{ "[port s1]\n[class roce]\ndscp = 24 26\n", 1, 2, 2 },
	};
	struct xl_config cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!load_case(cases[i].text, NULL, &cfg, cases[i].text))
			continue;
		assert_string_equal(cfg.classes[XL_CLASS_ROCE].name, "roce");
		if (!!(cfg.classes[XL_CLASS_ROCE].wred.flags & XL_CLASS_FIT) != cases[i].fit ||
		    cfg.dscp_class[26] != cases[i].dscp26 || cfg.dscp_class[24] != cases[i].dscp24)
			fail_msg("'%s': fit %u, DSCP 26 in %u, 24 in %u", cases[i].text,
				 cfg.classes[XL_CLASS_ROCE].wred.flags & XL_CLASS_FIT,
				 cfg.dscp_class[26], cfg.dscp_class[24]);
		xl_config_free(&cfg);
	}
}

/* Class sections and port queue keys as a whole: what is accepted, and
 * every rule with its exact line. */
static void test_class_rules(void **state)
{
	static const struct { const char *text, *err; } cases[] = {
		/* accepted (err NULL) */
		{ "[port s1]\n[class abcdefghijklmno]\ndscp = 1\n", NULL },
		{ "[port s1]\n[class default]\n[class cnp]\n", NULL },
		{ "[port s1]\n[class rdma]\ndscp = 48\n[class cnp]\ndscp = 49\n", NULL },
		/* any number of latency classes, the built-ins default and roce too */
		{ "[port s1]\n[class a]\ndscp = 18\nlatency = yes\n[class b]\ndscp = 20\n"
		  "latency = yes\n[class default]\nlatency = yes\n[class roce]\nlatency = no\n",
		  NULL },
		{ "[port s1]\nrate = 1G\ngamma = 0.9\nbuffer = 64K\noverflow = mark\n", NULL },
		{ "[port s1]\n[class c1]\ndscp=1\n[class c2]\ndscp=2\n[class c3]\ndscp=3\n"
		  "[class c4]\ndscp=4\n[class c5]\ndscp=5\n"
		  "[class default]\nkmin=1K\n[class cnp]\nkmin=1K\n[class roce]\nkmin=1K\n", NULL },
		/* rejected */
		{ "[port s1]\n[class]\n", ":2: section [class] needs a name: [class NAME]" },
		{ "[port s1]\n[class a.b]\n", ":2: invalid class name 'a.b' (allowed: A-Z a-z 0-9 _ -)" },
		{ "[port s1]\n[class abcdefghijklmnop]\n",
		  ":2: class name 'abcdefghijklmnop' is too long (max 15 characters)" },
		{ "[port s1]\n[class c]\ndscp = 1\n\n[class c]\n",
		  ":5: duplicate section [class c] (first at line 2)" },
		{ "[port s1]\n[class default]\n[class default]\n",
		  ":3: duplicate section [class default] (first at line 2)" },
		{ "[port s1]\n[class cnp]\nkmin = 1K\n[class cnp]\n",
		  ":4: duplicate section [class cnp] (first at line 2)" },
		{ "[port s1]\n[class c]\nkmin = 1K\n",
		  ":2: class 'c' has no dscp (set dscp = the DSCP values 0-63 it takes)" },
		{ "[port s1]\n[class c]\ndscp = 1\ndscp = 2\n",
		  ":4: duplicate key 'dscp' (first at line 3)" },
		{ "[port s1]\n[class c]\ndscp = 1\nkmin = 1K\nkmin = 2K\n",
		  ":5: duplicate key 'kmin' (first at line 4)" },
		{ "[port s1]\n[class default]\ndscp = 0\n",
		  ":3: dscp is not allowed in [class default]: it takes every DSCP that no other class claims" },
		{ "[port s1]\n[class default]\nkmin = 300K\n",
		  ":3: kmin must be less than kmax in class 'default' (kmin 307200 bytes, kmax 204800 bytes)" },
		{ "[port s1]\n[class cnp]\nlatency = yes\n",
		  ":3: latency is not allowed in [class cnp]: CNPs are congestion notifications, "
		  "not requests (a latency class is for requests, e.g. dscp = 18)" },
		{ "[port s1]\n[class cnp]\ndscp = 46\nlatency = no\n",
		  ":4: latency is not allowed in [class cnp]" },
		{ "[port s1]\n[class cnp]\nkmax = 5K\n",
		  ":3: kmin must be less than kmax in class 'cnp' (kmin 5120 bytes, kmax 5120 bytes)" },
		{ "[port s1]\n[class c]\nkmin = 10K\ndscp = 1\nkmax = 10K\n",
		  ":5: kmin must be less than kmax in class 'c'" },
		{ "[port s1]\n[class c]\nkmax = 1K\ndscp = 1\nkmin = 2K\n",
		  ":5: kmin must be less than kmax in class 'c'" },
		{ "[port s1]\n[class c]\ndscp = 48\n",
		  ":3: DSCP 48 is already in class 'cnp' (its built-in DSCP; to use it here, set another dscp in [class cnp])" },
		{ "[port s1]\n[class cnp]\nmark = yes\n[class c]\ndscp = 1 48\n",
		  ":5: DSCP 48 is already in class 'cnp' (its built-in DSCP" },
		{ "[port s1]\n[class cnp]\ndscp = 26\n[class r]\ndscp = 26\n",
		  ":5: DSCP 26 is already in class 'cnp' (line 3)" },
		{ "[port s1]\n[class r]\ndscp = 26\n[class cnp]\ndscp = 7 26\n",
		  ":5: DSCP 26 is already in class 'r' (line 3)" },
		{ "[port s1]\n[class c1]\ndscp=1\n[class c2]\ndscp=2\n[class c3]\ndscp=3\n"
		  "[class c4]\ndscp=4\n[class c5]\ndscp=5\n[class c6]\n",
		  ":12: too many classes (max 8, counting the built-in default, cnp and roce)" },
		{ "[port s1]\n[class c]\nrate = 1G\n",
		  ":3: unknown key 'rate' in [class] section (allowed: " },
		/* no new global keys */
		{ "[xdpleaf]\nrate = 1G\n[port s1]\n",
		  ":2: unknown key 'rate' in [xdpleaf] section (allowed: " },
		{ "[xdpleaf]\ndscp = 1\n[port s1]\n", ":2: unknown key 'dscp' in [xdpleaf] section" },
		{ "[xdpleaf]\npmax = 1%\n[port s1]\n", ":2: unknown key 'pmax' in [xdpleaf] section" },
		{ "[port s1]\ndscp = 1\n", ":2: unknown key 'dscp' in [port] section" },
		{ "[port s1]\n[group g]\nrate = 1G\n", ":3: unknown key 'rate' in [group] section" },
		/* queue keys need a rate; the first one in the file is named */
		{ "[port s1]\nbuffer = 1M\noverflow = mark\n",
		  ":2: buffer has no effect without rate (port s1 has no rate: set one, or remove buffer)" },
		{ "[port s1]\noverflow = mark\ngamma = 1\n", ":2: overflow has no effect without rate" },
		{ "[port s1]\nline_overhead = 0\n", ":2: line_overhead has no effect without rate" },
		{ "[port s1]\ngamma = 1\n[port s2]\nrate = 1G\n", ":2: gamma has no effect without rate" },
		{ "[port s1]\nbulk_gamma = 0.9\n",
		  ":2: bulk_gamma has no effect without rate (port s1 has no rate: set one, or remove bulk_gamma)" },
		{ "[port s1]\nrole = uplink\ngroup = g\nnexthop4 = 10.0.0.1\nbuffer = 1M\n[group g]\n",
		  ":5: buffer has no effect without rate" },
	};
	struct xl_config cfg;
	char what[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(what, sizeof(what), "case %zu", i);
		if (load_case(cases[i].text, cases[i].err, &cfg, what))
			xl_config_free(&cfg);
	}
}

/* ---- load balancing: xl_parse_duration, xl_parse_count, group keys ---- */

#define US 1000ULL
#define MS 1000000ULL
#define SEC 1000000000ULL
#define U64_MAX 18446744073709551615ULL

static void test_duration(void **state)
{
	static const struct {
		const char *v;
		unsigned long long lo, hi, want;
		const char *err; /* NULL: accepted, want is the value */
	} cases[] = {
		/* the edges of the unit grid */
		{ "1ns", 1, SEC, 1, NULL },
		{ "0ns", 0, SEC, 0, NULL },
		{ "0ns", 1, SEC, 0, "duration '0ns' out of range (1ns..1s)" },
		{ "0.000000001s", 1, SEC, 1, NULL },
		{ "0.001us", 1, SEC, 1, NULL },
		{ "0.0005us", 0, SEC, 0, "duration '0.0005us' is not a whole number of nanoseconds" },
		{ "0.0005us", 1, SEC, 0, "duration '0.0005us' out of range (1ns..1s)" },
		{ "1.5ns", 1, SEC, 0, "duration '1.5ns' is not a whole number of nanoseconds" },
		{ "1.0ns", 1, SEC, 1, NULL },
		{ "0.0000000005s", 0, SEC, 0, "invalid duration '0.0000000005s' (a number with at most 9 decimals" },
		{ "1us", US, SEC, 1000, NULL },
		{ "1000ns", US, SEC, 1000, NULL },
		{ "0.001ms", US, SEC, 1000, NULL },
		{ "999ns", US, SEC, 0, "duration '999ns' out of range (1us..1s)" },
		{ "0.000999ms", US, SEC, 0, "duration '0.000999ms' out of range (1us..1s)" },
		{ "0.999999ms", US, SEC, 999999, NULL },
		{ "100us", US, SEC, 100000, NULL },
		{ "2.5ms", US, SEC, 2500000, NULL },
		{ "2.500ms", US, SEC, 2500000, NULL },
		{ "0.0025s", US, SEC, 2500000, NULL },
		{ "2500us", US, SEC, 2500000, NULL },
		{ "1.000001ms", US, SEC, 1000001, NULL },
		{ "007us", US, SEC, 7000, NULL },
		{ "1s", US, SEC, SEC, NULL },
		{ "1000ms", US, SEC, SEC, NULL },
		{ "1.000000000s", US, SEC, SEC, NULL },
		{ "1000000000ns", US, SEC, SEC, NULL },
		{ "1000000001ns", US, SEC, 0, "duration '1000000001ns' out of range (1us..1s)" },
		{ "1.000000001s", US, SEC, 0, "out of range (1us..1s)" },
		{ "2s", US, SEC, 0, "duration '2s' out of range (1us..1s)" },
		/* whatever the range, in its best unit */
		{ "5ms", 1500, 3 * MS, 0, "duration '5ms' out of range (1500ns..3ms)" },
		{ "1ns", 0, U64_MAX, 1, NULL },
		{ "0ns", 1, 0, 0, "out of range (1ns..0ns)" },
		/* overflow: exact up to 2^64-1 ns, out of range past it */
		{ "18446744073709551615ns", 0, U64_MAX, U64_MAX, NULL },
		{ "18446744073.709551615s", 0, U64_MAX, U64_MAX, NULL },
		{ "18446744073709551616ns", 0, U64_MAX,
		  0, "duration '18446744073709551616ns' out of range (0ns..18446744073709551615ns)" },
		{ "18446744073.709551616s", 0, U64_MAX, 0, "out of range (0ns..18446744073709551615ns)" },
		{ "18446744074s", 0, U64_MAX, 0, "out of range" },
		{ "18446744073709552us", 0, U64_MAX, 0, "out of range" },
		{ "99999999999999999999999999999s", 0, U64_MAX, 0, "out of range" },
		{ "99999999999999999999999999999.5ns", US, SEC, 0, "out of range (1us..1s)" },
		/* garbage */
		{ "", US, SEC, 0, "invalid duration '' (a number with at most 9 decimals followed directly by ns, us, ms or s, e.g. 100us or 2.5ms)" },
		{ "100", US, SEC, 0, "duration '100' has no unit (write ns, us, ms or s right after the number, e.g. 100us)" },
		{ "2.5", US, SEC, 0, "duration '2.5' has no unit" },
		{ "us", US, SEC, 0, "invalid duration 'us'" },
		{ "100 us", US, SEC, 0, "invalid duration '100 us'" },
		{ " 100us", US, SEC, 0, "invalid duration ' 100us'" },
		{ "100us ", US, SEC, 0, "invalid duration '100us '" },
		{ "100usec", US, SEC, 0, "invalid duration '100usec'" },
		{ "100uss", US, SEC, 0, "invalid duration '100uss'" },
		{ "100US", US, SEC, 0, "invalid duration '100US'" },
		{ "1S", US, SEC, 0, "invalid duration '1S'" },
		{ "1Ms", US, SEC, 0, "invalid duration '1Ms'" },
		{ "100\xc2\xb5s", US, SEC, 0, "invalid duration" }, /* micro sign */
		{ "1m", US, SEC, 0, "invalid duration '1m'" },
		{ "1sec", US, SEC, 0, "invalid duration '1sec'" },
		{ "1ms500us", US, SEC, 0, "invalid duration '1ms500us'" },
		{ "-1ms", US, SEC, 0, "invalid duration '-1ms'" },
		{ "+1ms", US, SEC, 0, "invalid duration '+1ms'" },
		{ ".5ms", US, SEC, 0, "invalid duration '.5ms'" },
		{ "5.ms", US, SEC, 0, "invalid duration '5.ms'" },
		{ "1.2.3ms", US, SEC, 0, "invalid duration '1.2.3ms'" },
		{ "1,5ms", US, SEC, 0, "invalid duration '1,5ms'" },
		{ "1e3us", US, SEC, 0, "invalid duration '1e3us'" },
		{ "0x10us", US, SEC, 0, "invalid duration '0x10us'" },
	};
	char err[256];
	__u64 out;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		out = 12345;
		err[0] = 0;
		rc = xl_parse_duration(cases[i].v, cases[i].lo, cases[i].hi, &out, err, sizeof(err));
		if (!cases[i].err) {
			if (rc)
				fail_msg("'%s': %s", cases[i].v, err);
			if (out != cases[i].want)
				fail_msg("'%s': got %llu ns, want %llu", cases[i].v,
					 (unsigned long long)out, cases[i].want);
		} else {
			if (rc != -1 || !strstr(err, cases[i].err))
				fail_msg("'%s': got %d '%s', want '%s'", cases[i].v, rc, err,
					 cases[i].err);
			assert_int_equal(out, 12345); /* untouched on error */
			assert_null(strchr(err, '\n'));
		}
	}
	/* A tiny or absent error buffer is fine. */
	assert_int_equal(xl_parse_duration("x", 0, 1, &out, err, 4), -1);
	assert_string_equal(err, "inv");
	assert_int_equal(xl_parse_duration("x", 0, 1, &out, NULL, 0), -1);
	assert_int_equal(xl_parse_duration("5s", 0, 1, &out, NULL, 0), -1);
}

static void test_count(void **state)
{
	static const struct {
		const char *v;
		unsigned int lo, hi, want;
		const char *err;
	} cases[] = {
		{ "1024", 1024, 4 << 20, 1024, NULL },
		{ "1K", 1024, 4 << 20, 1024, NULL },
		{ "64K", 1024, 4 << 20, 65536, NULL },
		{ "65536", 1024, 4 << 20, 65536, NULL },
		{ "100000", 1024, 4 << 20, 100000, NULL },
		{ "4M", 1024, 4 << 20, 4 << 20, NULL },
		{ "4096K", 1024, 4 << 20, 4 << 20, NULL },
		{ "4194304", 1024, 4 << 20, 4 << 20, NULL },
		{ "1023", 1024, 4 << 20, 0, "flows '1023' out of range (1K..4M)" },
		{ "0", 1024, 4 << 20, 0, "flows '0' out of range (1K..4M)" },
		{ "4194305", 1024, 4 << 20, 0, "flows '4194305' out of range (1K..4M)" },
		{ "4097K", 1024, 4 << 20, 0, "flows '4097K' out of range" },
		{ "5M", 1024, 4 << 20, 0, "flows '5M' out of range" },
		{ "99999999999999999999999M", 1024, 4 << 20, 0, "out of range (1K..4M)" },
		{ "7", 3, 1000, 7, NULL },
		{ "1K", 3, 1000, 0, "flows '1K' out of range (3..1000)" },
		{ "1.5K", 1024, 4 << 20, 0, "invalid flows '1.5K' (a whole number with an optional K = 1024 or M = 1048576, e.g. 64K)" },
		{ "64k", 1024, 4 << 20, 0, "invalid flows '64k'" },
		{ "64 K", 1024, 4 << 20, 0, "invalid flows '64 K'" },
		{ "1G", 1024, 4 << 20, 0, "invalid flows '1G'" },
		{ "-1024", 1024, 4 << 20, 0, "invalid flows '-1024'" },
		{ "0x400", 1024, 4 << 20, 0, "invalid flows '0x400'" },
		{ "", 1024, 4 << 20, 0, "invalid flows ''" },
	};
	char err[256];
	__u32 out;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		out = 777;
		err[0] = 0;
		rc = xl_parse_count("flows", cases[i].v, cases[i].lo, cases[i].hi, &out, err,
				    sizeof(err));
		if (!cases[i].err) {
			if (rc)
				fail_msg("'%s': %s", cases[i].v, err);
			assert_int_equal(out, cases[i].want);
		} else {
			if (rc != -1 || !strstr(err, cases[i].err))
				fail_msg("'%s': got %d '%s', want '%s'", cases[i].v, rc, err,
					 cases[i].err);
			assert_int_equal(out, 777);
		}
	}
}

/* lb_mode, flowlet_timeout, path_skew, spray_reorder and flow_table_size
 * as written in a file: the
 * value stored, or the error at its line (3). */
static void test_lb_values(void **state)
{
	static const struct {
		const char *key, *value, *mode;
		unsigned long long want;
		const char *err;
	} cases[] = {
		{ "lb_mode", "hash", NULL, XL_LB_HASH, NULL },
		{ "lb_mode", "flowlet", NULL, XL_LB_FLOWLET, NULL },
		{ "lb_mode", "flowlet-random", NULL, XL_LB_FLOWLET_RANDOM, NULL },
		{ "lb_mode", "spray", NULL, XL_LB_SPRAY, NULL },
		{ "lb_mode", "conga", NULL, 0, ":3: invalid lb_mode 'conga' (allowed: hash, flowlet, flowlet-random, spray)" },
		{ "lb_mode", "Flowlet", NULL, 0, ":3: invalid lb_mode 'Flowlet' (allowed: hash, flowlet, flowlet-random, spray)" },
		{ "lb_mode", "flowlet_random", NULL, 0, ":3: invalid lb_mode 'flowlet_random'" },
		{ "lb_mode", "letflow", NULL, 0, ":3: invalid lb_mode 'letflow'" },
		{ "lb_mode", "ecmp", NULL, 0, ":3: invalid lb_mode 'ecmp'" },
		{ "flowlet_timeout", "1us", "flowlet", 1000, NULL },
		{ "flowlet_timeout", "1000ns", "flowlet", 1000, NULL },
		{ "flowlet_timeout", "50us", "flowlet", 50000, NULL },
		{ "flowlet_timeout", "100us", "flowlet-random", 100000, NULL },
		{ "flowlet_timeout", "0.5ms", "flowlet", 500000, NULL },
		{ "flowlet_timeout", "2.5ms", "flowlet-random", 2500000, NULL },
		{ "flowlet_timeout", "1s", "flowlet", 1000000000, NULL },
		{ "flowlet_timeout", "1000ms", "flowlet", 1000000000, NULL },
		{ "flowlet_timeout", "999ns", "flowlet", 0, ":3: flowlet_timeout: duration '999ns' out of range (1us..1s)" },
		{ "flowlet_timeout", "0us", "flowlet", 0, ":3: flowlet_timeout: duration '0us' out of range (1us..1s)" },
		{ "flowlet_timeout", "1001ms", "flowlet", 0, ":3: flowlet_timeout: duration '1001ms' out of range (1us..1s)" },
		{ "flowlet_timeout", "100", "flowlet", 0, ":3: flowlet_timeout: duration '100' has no unit" },
		{ "flowlet_timeout", "100 us", "flowlet", 0, ":3: flowlet_timeout: invalid duration '100 us'" },
		{ "flowlet_timeout", "1.5us", "flowlet", 1500, NULL },
		{ "flowlet_timeout", "1.0005us", "flowlet", 0, ":3: flowlet_timeout: duration '1.0005us' is not a whole number of nanoseconds" },
		{ "flowlet_timeout", "auto", "flowlet", XL_DEFAULT_FLOWLET_TIMEOUT_NS, NULL },
		{ "flowlet_timeout", "auto", "flowlet-random", XL_DEFAULT_FLOWLET_TIMEOUT_NS, NULL },
		{ "flowlet_timeout", "Auto", "flowlet", 0, ":3: flowlet_timeout: invalid duration 'Auto'" },
		{ "flowlet_timeout", "automatic", "flowlet", 0, ":3: flowlet_timeout: invalid duration 'automatic'" },
		{ "path_skew", "0us", "flowlet", 0, NULL },
		{ "path_skew", "0ns", "spray", 0, ":3: path_skew has no effect with spray_reorder = free, the default (group g: set spray_reorder = safe, or remove path_skew)" },
		{ "path_skew", "25us", "flowlet-random", 25000, NULL },
		{ "path_skew", "2.5ms", "flowlet", 2500000, NULL },
		{ "path_skew", "1s", "flowlet", 1000000000, NULL },
		{ "path_skew", "1001ms", "flowlet", 0, ":3: path_skew: duration '1001ms' out of range (0ns..1s)" },
		{ "path_skew", "25", "flowlet", 0, ":3: path_skew: duration '25' has no unit" },
		{ "path_skew", "-1us", "flowlet", 0, ":3: path_skew: invalid duration '-1us'" },
		{ "path_skew", "auto", "flowlet", XL_DEFAULT_PATH_SKEW_NS, NULL },
		{ "path_skew", "Auto", "flowlet", 0, ":3: path_skew: invalid duration 'Auto'" },
		{ "spray_reorder", "safe", "spray", XL_SPRAY_SAFE, NULL },
		{ "spray_reorder", "free", "spray", XL_SPRAY_FREE, NULL },
		{ "spray_reorder", "Free", "spray", 0, ":3: invalid spray_reorder 'Free' (allowed: free, safe)" },
		{ "spray_reorder", "unsafe", "spray", 0, ":3: invalid spray_reorder 'unsafe' (allowed: free, safe)" },
		{ "flow_table_size", "1024", NULL, 1024, NULL },
		{ "flow_table_size", "1K", NULL, 1024, NULL },
		{ "flow_table_size", "65536", NULL, 65536, NULL },
		{ "flow_table_size", "100000", NULL, 100000, NULL },
		{ "flow_table_size", "1M", NULL, 1 << 20, NULL },
		{ "flow_table_size", "4M", NULL, 4 << 20, NULL },
		{ "flow_table_size", "4194304", NULL, 4 << 20, NULL },
		{ "flow_table_size", "1023", NULL, 0, ":3: flow_table_size '1023' out of range (1K..4M)" },
		{ "flow_table_size", "4194305", NULL, 0, ":3: flow_table_size '4194305' out of range (1K..4M)" },
		{ "flow_table_size", "0", NULL, 0, ":3: flow_table_size '0' out of range (1K..4M)" },
		{ "flow_table_size", "64k", NULL, 0, ":3: invalid flow_table_size '64k' (a whole number with an optional K = 1024 or M = 1048576" },
		{ "flow_table_size", "0.5M", NULL, 0, ":3: invalid flow_table_size '0.5M'" },
	};
	struct xl_config cfg;
	char text[512], what[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned long long got;
		bool global = !strcmp(cases[i].key, "flow_table_size");

		/* The key on line 3 of [xdpleaf] or of a group with one member. */
		if (global)
			snprintf(text, sizeof(text), "[xdpleaf]\nmalformed = pass\n%s = %s\n"
				 "[port s1]\n", cases[i].key, cases[i].value);
		else
			snprintf(text, sizeof(text), "[group g]\n%s%s\n%s = %s\n"
				 "[port u1]\nrole = uplink\ngroup = g\nnexthop4 = 10.0.0.1\n",
				 cases[i].mode ? "lb_mode = " : "", cases[i].mode ? cases[i].mode : "",
				 cases[i].key, cases[i].value);
		snprintf(what, sizeof(what), "%s = %s", cases[i].key, cases[i].value);
		if (!load_case(text, cases[i].err, &cfg, what))
			continue;
		if (global) {
			got = cfg.flow_table_size;
			assert_int_equal(cfg.n_groups, 0);
		} else {
			const struct xl_cfg_group *g = &cfg.groups[0];

			got = !strcmp(cases[i].key, "lb_mode") ? g->lb_mode :
			      !strcmp(cases[i].key, "path_skew") ? g->path_skew_ns :
			      !strcmp(cases[i].key, "spray_reorder") ? g->spray_reorder :
			      g->flowlet_timeout_ns;
			/* the other keys keep their defaults */
			if (strcmp(cases[i].key, "flowlet_timeout"))
				assert_int_equal(g->flowlet_timeout_ns, XL_DEFAULT_FLOWLET_TIMEOUT_NS);
			if (strcmp(cases[i].key, "path_skew"))
				assert_int_equal(g->path_skew_ns, XL_DEFAULT_PATH_SKEW_NS);
			assert_int_equal(g->flowlet_auto, strcmp(cases[i].key, "flowlet_timeout") ||
					 !strcmp(cases[i].value, "auto"));
			/* auto unless a duration was given */
			assert_int_equal(g->path_skew_auto, strcmp(cases[i].key, "path_skew") ||
					 !strcmp(cases[i].value, "auto"));
			if (strcmp(cases[i].key, "spray_reorder"))
				assert_int_equal(g->spray_reorder, XL_SPRAY_FREE);
			assert_int_equal(cfg.flow_table_size, XL_FLOW_TABLE_SIZE);
		}
		if (got != cases[i].want)
			fail_msg("%s: got %llu, want %llu", what, got, cases[i].want);
		xl_config_free(&cfg);
	}
}

/* Group rules: flowlet_timeout only where there are flowlets, the capacity
 * rule of flowlet and spray; each with its exact line. */
static void test_lb_rules(void **state)
{
#define U(n, g, rate) "[port u" #n "]\nrole = uplink\ngroup = " g "\nnexthop4 = 10.0.0." #n \
	"\n" rate
#define R "rate = 10G\n"
	static const struct { const char *text, *err; } cases[] = {
		/* accepted (err NULL) */
		{ "[group g]\nlb_mode = flowlet\nflowlet_timeout = 1ms\n" U(1, "g", ""), NULL },
		{ "[group g]\nflowlet_timeout = 1ms\nlb_mode = flowlet-random\n" U(1, "g", ""), NULL },
		{ "[group g]\nlb_mode = flowlet\n" U(1, "g", R) U(2, "g", R) U(3, "g", "rate = 40G\n"), NULL },
		{ "[group g]\nlb_mode = flowlet\n" U(1, "g", "") U(2, "g", "") U(3, "g", ""), NULL },
		{ "[group g]\nlb_mode = spray\n" U(1, "g", R) U(2, "g", R), NULL },
		{ "[group g]\nlb_mode = spray\n" U(1, "g", "") U(2, "g", ""), NULL },
		{ "[group g]\nlb_mode = hash\n" U(1, "g", R) U(2, "g", ""), NULL },
		{ "[group g]\n" U(1, "g", R) U(2, "g", ""), NULL },
		{ "[group g]\nlb_mode = flowlet-random\n" U(1, "g", "") U(2, "g", R), NULL },
		{ "[group g]\nlb_mode = spray\nspray_reorder = free\n" U(1, "g", ""), NULL },
		{ "[group g]\nspray_reorder = safe\npath_skew = 10us\nlb_mode = spray\n" U(1, "g", ""), NULL },
		{ "[group g]\nlb_mode = flowlet-random\npath_skew = 0us\nflowlet_timeout = auto\n"
		  U(1, "g", ""), NULL },
		/* one group's rates do not count in another's */
		{ "[group g]\nlb_mode = flowlet\n[group h]\nlb_mode = spray\n"
		  U(1, "g", R) U(2, "g", R) U(3, "h", "") U(4, "h", ""), NULL },
		/* rejected: flowlet_timeout without flowlets, at its key */
		{ "[group g]\nflowlet_timeout = 1ms\n" U(1, "g", ""),
		  ":2: flowlet_timeout has no effect with lb_mode hash, the default (group g: set lb_mode = flowlet or flowlet-random, or remove flowlet_timeout)" },
		{ "[group g]\nlb_mode = hash\nflowlet_timeout = 1ms\n" U(1, "g", ""),
		  ":3: flowlet_timeout has no effect with lb_mode hash (group g: set lb_mode" },
		{ "[group g]\nflowlet_timeout = 100us\nlb_mode = spray\n" U(1, "g", ""),
		  ":2: flowlet_timeout has no effect with lb_mode spray (group g: set lb_mode" },
		/* rejected: path_skew where nothing follows the rule, spray_reorder
		 * without spray, at their keys, whatever the order */
		{ "[group g]\npath_skew = 25us\n" U(1, "g", ""),
		  ":2: path_skew has no effect with lb_mode hash, the default (group g: set lb_mode = flowlet, flowlet-random or spray, or remove path_skew)" },
		{ "[group g]\nlb_mode = hash\npath_skew = 25us\n" U(1, "g", ""),
		  ":3: path_skew has no effect with lb_mode hash (group g: set lb_mode" },
		{ "[group g]\nlb_mode = spray\nspray_reorder = free\npath_skew = 25us\n" U(1, "g", ""),
		  ":4: path_skew has no effect with spray_reorder = free (group g: set spray_reorder = safe, or remove path_skew)" },
		{ "[group g]\npath_skew = 25us\nspray_reorder = free\nlb_mode = spray\n" U(1, "g", ""),
		  ":2: path_skew has no effect with spray_reorder = free" },
		{ "[group g]\nlb_mode = flowlet\nspray_reorder = safe\n" U(1, "g", ""),
		  ":3: spray_reorder has no effect with lb_mode flowlet (group g: set lb_mode = spray, or remove spray_reorder)" },
		{ "[group g]\nspray_reorder = free\n" U(1, "g", ""),
		  ":2: spray_reorder has no effect with lb_mode hash, the default (group g: set lb_mode = spray" },
		{ "[group g]\nlb_mode = spray\npath_skew = 1us\npath_skew = 2us\n",
		  ":4: duplicate key 'path_skew' (first at line 3)" },
		{ "[port s1]\npath_skew = 1us\n",
		  ":2: unknown key 'path_skew' in [port] section" },
		/* ... checked before a later section's mistakes */
		{ "[group g]\nlb_mode = spray\nflowlet_timeout = 100us\n[port u1]\nrole = bad\n",
		  ":3: flowlet_timeout has no effect with lb_mode spray" },
		/* a bad value is reported as such, not as "no effect" */
		{ "[group g]\nflowlet_timeout = 5s\n" U(1, "g", ""),
		  ":2: flowlet_timeout: duration '5s' out of range (1us..1s)" },
		{ "[group g]\nlb_mode = flowlet\nflowlet_timeout = 1ms\nflowlet_timeout = 2ms\n",
		  ":4: duplicate key 'flowlet_timeout' (first at line 3)" },
		{ "[group g]\nlb_mode = flowlet\nlb_mode = spray\n",
		  ":3: duplicate key 'lb_mode' (first at line 2)" },
		{ "[xdpleaf]\nflow_table_size = 64K\nflow_table_size = 64K\n",
		  ":3: duplicate key 'flow_table_size' (first at line 2)" },
		{ "[port s1]\nflowlet_timeout = 1ms\n",
		  ":2: unknown key 'flowlet_timeout' in [port] section" },
		{ "[port s1]\n[group g]\nflow_table_size = 1M\n",
		  ":3: unknown key 'flow_table_size' in [group] section (allowed: " },
		{ "[xdpleaf]\nlb_mode = flowlet\n[port s1]\n",
		  ":2: unknown key 'lb_mode' in [xdpleaf] section (allowed: " },
		/* rejected: mixed capacities, at the group, first with and first without */
		{ "[group g]\nlb_mode = flowlet\n" U(1, "g", R) U(2, "g", R) U(3, "g", ""),
		  ":1: group 'g' (lb_mode flowlet) has mixed capacities: u1 has rate, u3 has none; give all members a rate or none" },
		{ "[port s1]\n" U(1, "g", "") U(2, "g", R) U(3, "g", "") U(4, "g", R)
		  "[group g]\nlb_mode = spray\n",
		  ":20: group 'g' (lb_mode spray) has mixed capacities: u2 has rate, u1 has none" },
		{ "[group g]\nlb_mode = flowlet-random\n[group h]\nlb_mode = spray\n"
		  U(1, "g", R) U(2, "g", "") U(3, "h", R) U(4, "h", ""),
		  ":3: group 'h' (lb_mode spray) has mixed capacities: u3 has rate, u4 has none" },
		/* an undefined group is reported first (it is the cause) */
		{ "[group g]\nlb_mode = flowlet\n" U(1, "g", R) U(2, "x", ""),
		  ":10: group 'x' is not defined" },
	};
#undef U
#undef R
	struct xl_config cfg;
	char what[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(what, sizeof(what), "case %zu", i);
		if (load_case(cases[i].text, cases[i].err, &cfg, what))
			xl_config_free(&cfg);
	}
}

/* ---- DCQCN values ---- */

/* Fractions in Q32: exact for n/2^k, round(value * 2^32) otherwise. */
static void test_q32(void **state)
{
	static const struct {
		const char *v;
		bool one_ok;
		unsigned long long want;
		const char *err;
	} cases[] = {
		{ "1/256", false, 1ULL << 24, NULL },
		{ "5/1024", false, 5ULL << 22, NULL },
		{ "1023/1024", true, 1023ULL << 22, NULL },
		{ "1023/1024", false, 1023ULL << 22, NULL },
		{ "0.00390625", false, 1ULL << 24, NULL },   /* 1/256 as a decimal */
		{ "0.0048828125", false, 0, "invalid g '0.0048828125'" }, /* 10 decimals */
		{ "0.5", false, 1ULL << 31, NULL },
		{ "1/2", false, 1ULL << 31, NULL },
		{ "2/4", false, 1ULL << 31, NULL },
		{ "01/0256", false, 1ULL << 24, NULL },
		{ "1", true, 1ULL << 32, NULL },
		{ "1/1", true, 1ULL << 32, NULL },
		{ "1.0", true, 1ULL << 32, NULL },
		{ "1.000000000", true, 1ULL << 32, NULL },
		{ "7/7", true, 1ULL << 32, NULL },
		{ "1/3", false, 1431655765, NULL },          /* 1431655765.33 */
		{ "2/3", false, 2863311531ULL, NULL },       /* 2863311530.67 */
		{ "0.001", false, 4294967, NULL },           /* 4294967.296 */
		{ "0.000000001", false, 4, NULL },           /* 4.29: never rounds to 0 */
		{ "1/4294967295", false, 1, NULL },
		{ "4294967294/4294967295", false, 4294967295ULL, NULL },
		{ "0.999999999", false, 4294967292ULL, NULL }, /* 4294967291.7 */
		{ "0", false, 0, "g '0' out of range (0 < g < 1)" },
		{ "0/5", false, 0, "g '0/5' out of range (0 < g < 1)" },
		{ "0.000000000", false, 0, "out of range (0 < g < 1)" },
		{ "1", false, 0, "g '1' out of range (0 < g < 1)" },
		{ "256/256", false, 0, "g '256/256' out of range (0 < g < 1)" },
		{ "1.0", false, 0, "g '1.0' out of range" },
		{ "2/1", false, 0, "g '2/1' out of range (0 < g < 1)" },
		{ "2/1", true, 0, "g '2/1' out of range (0 < g <= 1)" },
		{ "1.000000001", true, 0, "out of range (0 < g <= 1)" },
		{ "1.5", true, 0, "g '1.5' out of range" },
		{ "99999999999999999999999", true, 0, "out of range (0 < g <= 1)" },
		{ "0", true, 0, "g '0' out of range (0 < g <= 1)" },
		{ "1/0", false, 0, "invalid g '1/0' (zero denominator)" },
		{ "0/0", false, 0, "invalid g '0/0' (zero denominator)" },
		{ "1/4294967296", false, 0, "invalid g '1/4294967296' (numerator and denominator at most 4294967295)" },
		{ "4294967296/4294967297", false, 0, "at most 4294967295" },
		{ "", false, 0, "invalid g '' (a fraction such as 1/256, or a decimal 0..1 with at most 9 decimals such as 0.0039)" },
		{ "abc", false, 0, "invalid g 'abc'" },
		{ "1/", false, 0, "invalid g '1/'" },
		{ "/256", false, 0, "invalid g '/256'" },
		{ "1//256", false, 0, "invalid g '1//256'" },
		{ "1/2/4", false, 0, "invalid g '1/2/4'" },
		{ "-1/256", false, 0, "invalid g '-1/256'" },
		{ "1/-256", false, 0, "invalid g '1/-256'" },
		{ "+1/256", false, 0, "invalid g '+1/256'" },
		{ "1 / 256", false, 0, "invalid g '1 / 256'" },
		{ "0.5/2", false, 0, "invalid g '0.5/2'" },
		{ ".5", false, 0, "invalid g '.5'" },
		{ "5.", false, 0, "invalid g '5.'" },
		{ "1e-3", false, 0, "invalid g '1e-3'" },
		{ "0x10/256", false, 0, "invalid g '0x10/256'" },
		{ "50%", false, 0, "invalid g '50%'" },
		{ "0.0000000001", false, 0, "invalid g '0.0000000001'" },
	};
	char err[256];
	__u64 out;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		out = 12345;
		err[0] = 0;
		rc = xl_parse_q32("g", cases[i].v, cases[i].one_ok, &out, err, sizeof(err));
		if (!cases[i].err) {
			if (rc)
				fail_msg("'%s': %s", cases[i].v, err);
			if (out != cases[i].want)
				fail_msg("'%s': got %llu, want %llu", cases[i].v,
					 (unsigned long long)out, cases[i].want);
		} else {
			if (rc != -1 || !strstr(err, cases[i].err))
				fail_msg("'%s': got %d '%s', want '%s'", cases[i].v, rc, err,
					 cases[i].err);
			assert_int_equal(out, 12345); /* untouched on error */
		}
	}
	assert_int_equal(xl_parse_q32("g", "x", false, &out, err, 4), -1);
	assert_string_equal(err, "inv");
	assert_int_equal(xl_parse_q32("g", "x", false, &out, NULL, 0), -1);
}

static void test_uint(void **state)
{
	static const struct {
		const char *v;
		unsigned int lo, hi, want;
		const char *err;
	} cases[] = {
		{ "0", 0, 63, 0, NULL },
		{ "48", 0, 63, 48, NULL },
		{ "63", 0, 63, 63, NULL },
		{ "063", 0, 63, 63, NULL },
		{ "64", 0, 63, 0, "n '64' out of range (0-63)" },
		{ "99999999999999999999999", 0, 63, 0, "out of range (0-63)" },
		{ "0", 1, 1000, 0, "n '0' out of range (1-1000)" },
		{ "1000", 1, 1000, 1000, NULL },
		{ "4294967295", 0, 4294967295U, 4294967295U, NULL },
		{ "4294967296", 0, 4294967295U, 0, "out of range (0-4294967295)" },
		{ "", 0, 63, 0, "invalid n '' (a whole number 0-63)" },
		{ "1.5", 1, 1000, 0, "invalid n '1.5' (a whole number 1-1000)" },
		{ "-1", 0, 63, 0, "invalid n '-1'" },
		{ "+1", 0, 63, 0, "invalid n '+1'" },
		{ "1K", 1, 1000, 0, "invalid n '1K'" },
		{ "0x10", 0, 63, 0, "invalid n '0x10'" },
		{ " 1", 0, 63, 0, "invalid n ' 1'" },
	};
	char err[256];
	__u32 out;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		out = 777;
		rc = xl_parse_uint("n", cases[i].v, cases[i].lo, cases[i].hi, &out, err, sizeof(err));
		if (!cases[i].err) {
			if (rc)
				fail_msg("'%s': %s", cases[i].v, err);
			assert_int_equal(out, cases[i].want);
		} else {
			if (rc != -1 || !strstr(err, cases[i].err))
				fail_msg("'%s': got %d '%s', want '%s'", cases[i].v, rc, err,
					 cases[i].err);
			assert_int_equal(out, 777);
		}
	}
}

static unsigned long long host_field(const struct xl_host_cfg *h, const char *key)
{
	static const struct { const char *key; size_t off, size; } fields[] = {
#define F(k, m) { k, offsetof(struct xl_host_cfg, m), sizeof(((struct xl_host_cfg *)0)->m) }
		F("np", np_enabled), F("rp", rp_enabled), F("cnp_interval", cnp_interval_ns),
		F("cnp_scope", cnp_scope), F("cnp_dscp", cnp_dscp), F("variant", rp.variant),
		F("g", rp.g), F("alpha_first", rp.alpha_first), F("k", rp.k_ns),
		F("t", rp.t_ns), F("t_dec", rp.t_dec_ns), F("b", rp.b_bytes), F("f", rp.f),
		F("clamp", rp.clamp), F("r_ai", rp.r_ai), F("r_hai", rp.r_hai),
		F("min_rate", rp.min_rate),
#undef F
	};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (strcmp(fields[i].key, key))
			continue;
		if (fields[i].size == 4)
			return *(const __u32 *)((const char *)h + fields[i].off);
		return *(const __u64 *)((const char *)h + fields[i].off);
	}
	fail_msg("no field for key %s", key);
	return 0;
}

/* Each [dcqcn] key as written on line 7, after variant on line 6: the
 * value stored (the other keys keep the variant's defaults), or the error. */
static void test_dcqcn_values(void **state)
{
	static const struct {
		const char *variant, *key, *value;
		unsigned long long want;
		const char *err;
	} cases[] = {
		{ "paper", "np", "yes", 1, NULL },
		{ "paper", "np", "no", 0, NULL },
		{ "paper", "np", "off", 0, ":7: invalid np 'off' (allowed: yes, no)" },
		{ "nvidia", "rp", "yes", 1, NULL },
		{ "nvidia", "rp", "no", 0, NULL },
		{ "nvidia", "rp", "No", 0, ":7: invalid rp 'No' (allowed: yes, no)" },
		{ "paper", "cnp_interval", "50us", 50000, NULL },
		{ "paper", "cnp_interval", "4us", 4000, NULL },
		{ "paper", "cnp_interval", "1us", 1000, NULL },
		{ "paper", "cnp_interval", "1s", 1000000000, NULL },
		{ "paper", "cnp_interval", "0.5ms", 500000, NULL },
		{ "paper", "cnp_interval", "999ns", 0, ":7: cnp_interval: duration '999ns' out of range (1us..1s)" },
		{ "paper", "cnp_interval", "0us", 0, ":7: cnp_interval: duration '0us' out of range (1us..1s)" },
		{ "paper", "cnp_interval", "2s", 0, ":7: cnp_interval: duration '2s' out of range" },
		{ "paper", "cnp_interval", "50", 0, ":7: cnp_interval: duration '50' has no unit" },
		{ "paper", "cnp_scope", "qp", XL_CNP_PER_QP, NULL },
		{ "paper", "cnp_scope", "port", XL_CNP_PER_PORT, NULL },
		{ "paper", "cnp_scope", "switch", 0, ":7: invalid cnp_scope 'switch' (allowed: qp, port)" },
		{ "paper", "cnp_dscp", "48", 48, NULL },
		{ "paper", "cnp_dscp", "0", 0, NULL },
		{ "paper", "cnp_dscp", "63", 63, NULL },
		{ "paper", "cnp_dscp", "64", 0, ":7: cnp_dscp '64' out of range (0-63)" },
		{ "paper", "cnp_dscp", "-1", 0, ":7: invalid cnp_dscp '-1' (a whole number 0-63)" },
		{ "paper", "cnp_dscp", "cs6", 0, ":7: invalid cnp_dscp 'cs6'" },
		{ "paper", "g", "1/256", 1ULL << 24, NULL },
		{ "paper", "g", "1/16", 1ULL << 28, NULL },
		{ "nvidia", "g", "5/1024", 5ULL << 22, NULL },
		{ "nvidia", "g", "0.0625", 1ULL << 28, NULL },
		{ "paper", "g", "0", 0, ":7: g '0' out of range (0 < g < 1)" },
		{ "paper", "g", "1", 0, ":7: g '1' out of range (0 < g < 1)" },
		{ "paper", "g", "2/1", 0, ":7: g '2/1' out of range (0 < g < 1)" },
		{ "paper", "g", "1/0", 0, ":7: invalid g '1/0' (zero denominator)" },
		{ "nvidia", "alpha_first", "1023/1024", 1023ULL << 22, NULL },
		{ "nvidia", "alpha_first", "1", 1ULL << 32, NULL },
		{ "nvidia", "alpha_first", "0.5", 1ULL << 31, NULL },
		{ "nvidia", "alpha_first", "0", 0, ":7: alpha_first '0' out of range (0 < alpha_first <= 1)" },
		{ "nvidia", "alpha_first", "1025/1024", 0, ":7: alpha_first '1025/1024' out of range (0 < alpha_first <= 1)" },
		{ "paper", "k", "55us", 55000, NULL },
		{ "nvidia", "k", "1us", 1000, NULL },
		{ "paper", "k", "1ns", 1, NULL },
		{ "paper", "k", "1s", 1000000000, NULL },
		{ "paper", "k", "0ns", 0, ":7: k: duration '0ns' out of range (1ns..1s)" },
		{ "paper", "k", "1001ms", 0, ":7: k: duration '1001ms' out of range (1ns..1s)" },
		{ "paper", "t", "55us", 55000, NULL },
		{ "nvidia", "t", "300us", 300000, NULL },
		{ "nvidia", "t", "1.5us", 1500, NULL },
		{ "paper", "t", "2ns", 2, NULL },
		{ "paper", "t", "1s", 1000000000, NULL },
		{ "paper", "t", "1ns", 0, ":7: t: duration '1ns' out of range (2ns..1s)" },
		{ "paper", "t", "0s", 0, ":7: t: duration '0s' out of range (2ns..1s)" },
		{ "paper", "t", "55", 0, ":7: t: duration '55' has no unit" },
		{ "nvidia", "t_dec", "4us", 4000, NULL },
		{ "nvidia", "t_dec", "1ns", 1, NULL },
		{ "nvidia", "t_dec", "0us", 0, ":7: t_dec: duration '0us' out of range (1ns..1s)" },
		/* b: plain digits (K/M would be powers of 1024, the paper's
		 * 10 MB is 10^7), the same as sim dcqcn --set b= */
		{ "paper", "b", "10000000", 10000000, NULL },
		{ "paper", "b", "0", 0, NULL },
		{ "paper", "b", "10485760", 10485760, NULL },
		{ "paper", "b", "268435456", 268435456, NULL },
		{ "paper", "b", "268435457", 0, ":7: b '268435457' out of range (0..268435456 bytes)" },
		{ "paper", "b", "99999999999999999999999", 0, ":7: b '99999999999999999999999' out of range" },
		{ "paper", "b", "10M", 0, ":7: invalid b '10M' (bytes: a plain whole number, no K or M; "
		  "the paper's 10 MB is 10000000)" },
		{ "paper", "b", "150K", 0, ":7: invalid b '150K' (bytes: a plain whole number, no K or M" },
		{ "paper", "b", "10MB", 0, ":7: invalid b '10MB' (bytes: a plain whole number" },
		{ "paper", "b", "1e7", 0, ":7: invalid b '1e7'" },
		{ "paper", "b", "-1", 0, ":7: invalid b '-1'" },
		{ "paper", "b", "10000000.0", 0, ":7: invalid b '10000000.0'" },
		{ "paper", "f", "5", 5, NULL },
		{ "paper", "f", "1", 1, NULL },
		{ "nvidia", "f", "1000", 1000, NULL },
		{ "paper", "f", "0", 0, ":7: f '0' out of range (1-1000)" },
		{ "paper", "f", "1001", 0, ":7: f '1001' out of range (1-1000)" },
		{ "paper", "f", "2.5", 0, ":7: invalid f '2.5' (a whole number 1-1000)" },
		{ "paper", "clamp", "yes", 1, NULL },
		{ "paper", "clamp", "no", 0, NULL },
		{ "paper", "clamp", "true", 0, ":7: invalid clamp 'true' (allowed: yes, no)" },
		{ "paper", "r_ai", "40M", 40000000, NULL },
		{ "nvidia", "r_ai", "5M", 5000000, NULL },
		{ "nvidia", "r_ai", "1M", 1000000, NULL },
		{ "paper", "r_ai", "500K", 0, ":7: r_ai: rate '500K' out of range (1M..1600G bit/s)" },
		{ "paper", "r_ai", "40 M", 0, ":7: r_ai: invalid rate '40 M'" },
		{ "paper", "r_hai", "200M", 200000000, NULL },
		{ "nvidia", "r_hai", "0.05G", 50000000, NULL },
		{ "paper", "r_hai", "0", 0, ":7: r_hai: rate '0' out of range" },
		{ "paper", "min_rate", "100M", 100000000, NULL },
		{ "nvidia", "min_rate", "1M", 1000000, NULL },
		{ "nvidia", "min_rate", "400G", 400000000000ULL, NULL }, /* = the port's rate */
		{ "nvidia", "min_rate", "401G", 0, ":7: min_rate 401G is above port s1's rate 400G" },
		{ "nvidia", "min_rate", "0.5M", 0, ":7: min_rate: rate '0.5M' out of range (1M..1600G bit/s)" },
	};
	struct xl_config cfg;
	struct xl_dcqcn_params defaults;
	char text[512], what[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct xl_host_cfg want;
		unsigned long long got;
		bool nvidia = !strcmp(cases[i].variant, "nvidia");

		snprintf(text, sizeof(text), "[xdpleaf]\nmode = host\n[port s1]\nrate = 400G\n"
			 "[dcqcn]\nvariant = %s\n%s = %s\n", cases[i].variant, cases[i].key,
			 cases[i].value);
		snprintf(what, sizeof(what), "%s: %s = %s", cases[i].variant, cases[i].key,
			 cases[i].value);
		if (!load_case(text, cases[i].err, &cfg, what))
			continue;
		assert_int_equal(cfg.dcqcn_line, 5);
		got = host_field(&cfg.host, cases[i].key);
		if (got != cases[i].want)
			fail_msg("%s: got %llu, want %llu", what, got, cases[i].want);
		/* Everything else: the defaults of the variant. */
		xl_dcqcn_defaults(&defaults, nvidia ? XL_DCQCN_NVIDIA : XL_DCQCN_PAPER, 0);
		want = (struct xl_host_cfg){ .cnp_interval_ns = 50000, .cnp_scope = XL_CNP_PER_QP,
					     .cnp_dscp = 48, .np_enabled = 1, .rp_enabled = 1,
					     .rp = defaults };
		for (const char *const *k = (const char *const[]){ "np", "rp", "cnp_interval",
				"cnp_scope", "cnp_dscp", "variant", "g", "alpha_first", "k", "t",
				"t_dec", "b", "f", "clamp", "r_ai", "r_hai", "min_rate", NULL }; *k; k++)
			if (strcmp(*k, cases[i].key) &&
			    host_field(&cfg.host, *k) != host_field(&want, *k))
				fail_msg("%s: %s is %llu, want the default %llu", what, *k,
					 host_field(&cfg.host, *k), host_field(&want, *k));
		xl_config_free(&cfg);
	}
}

/* xl_config_warn: a host port whose rate is at most twice min_rate is
 * said (FILE:LINE of its [port]), anything else is not. */
static void test_host_min_rate_warning(void **state)
{
	static const struct { const char *text; int warnings; const char *line; } cases[] = {
		/* the paper variant's 100M floor on a 100M NIC: no room at all */
		{ "[xdpleaf]\nmode = host\n[port eth0]\nrate = 100M\n", 1,
		  ":3: warning: port eth0's rate 100M is at most twice min_rate 100M: "
		  "DCQCN cannot cut its flows to half their rate" },
		/* 200M: the first cut (to 100M) is exactly the floor */
		{ "[xdpleaf]\nmode = host\n[port eth0]\nrate = 200M\n", 1, ":3: warning: " },
		{ "[xdpleaf]\nmode = host\n[port eth0]\nrate = 201M\n", 0, NULL },
		{ "[xdpleaf]\nmode = host\n[port eth0]\nrate = 100G\n", 0, NULL },
		{ "[xdpleaf]\nmode = host\n[port eth0]\nrate = 100M\n[dcqcn]\nmin_rate = 1M\n", 0, NULL },
		/* the nvidia variant's floor is 1M */
		{ "[xdpleaf]\nmode = host\n[port eth0]\nrate = 100M\n[dcqcn]\nvariant = nvidia\n", 0, NULL },
		/* no RP, nothing to cut */
		{ "[xdpleaf]\nmode = host\n[port eth0]\nrate = 100M\n[dcqcn]\nrp = no\n", 0, NULL },
		{ "[xdpleaf]\nmode = host\n[port a0]\nrate = 100G\n[port b0]\nrate = 150M\n", 1,
		  ":5: warning: port b0's rate 150M" },
		/* leaf mode has no min_rate */
		{ "[port s1]\nrole = downlink\nrate = 100M\n", 0, NULL },
	};
	char err[256], path[64], *buf;
	struct xl_config cfg;
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n;

		if (load_text(cases[i].text, false, &cfg, err, sizeof(err), path, sizeof(path)))
			fail_msg("case %zu: %s", i, err);
		stderr_capture_start();
		n = xl_config_warn(&cfg, path);
		buf = stderr_capture_end();
		len = strlen(buf);
		if (n != cases[i].warnings)
			fail_msg("case %zu: %d warnings, want %d: %s", i, n, cases[i].warnings, buf);
		assert_int_equal(len == 0, cases[i].warnings == 0);
		if (cases[i].line && (strncmp(buf, path, strlen(path)) ||
				      !strstr(buf, cases[i].line)))
			fail_msg("case %zu: '%s' lacks '%s%s'", i, buf, path, cases[i].line);
		free(buf);
		xl_config_free(&cfg);
	}
}

/* Host mode against leaf mode, the variants' own keys, and the checks made
 * once the file is read; each with its exact line. */
static void test_host_rules(void **state)
{
#define H "[xdpleaf]\nmode = host\n"
#define P "[port eth0]\nrate = 100G\n"
	static const struct { const char *text, *err; } cases[] = {
		/* accepted (err NULL) */
		{ H P, NULL },
		{ H P "[dcqcn]\n", NULL },
		{ P "[xdpleaf]\nmode = host\n", NULL },
		{ P "[dcqcn]\nvariant = nvidia\n[xdpleaf]\nmode = host\n", NULL },
		{ "\xef\xbb\xbf[ xdpleaf ]\r\n\tmode=host   # a GPU host\r\n" P, NULL },
		{ "[xdpleaf]\nmalformed = drop\nmode = host ; comment\n" P, NULL },
		{ H "[port eth0]\nrole = downlink\nrate = 100G\n", NULL },
		{ H P "[port eth1]\nrate = 25G\n[port eth2]\nrate = 400G\n[port eth3]\nrate = 1G\n", NULL },
		{ H "[port eth0]\n[dcqcn]\nrp = no\n", NULL },
		{ H "[port eth0]\n[dcqcn]\nrp = no\nnp = no\n", NULL },
		{ H "[port eth0]\nrate = 10M\n[dcqcn]\nrp = no\n", NULL }, /* min_rate not checked */
		{ H "[port eth0]\nrate = 100M\n", NULL },                  /* = paper's min_rate */
		{ H "[port eth0]\nrate = 1M\n[dcqcn]\nvariant = nvidia\n", NULL },
		{ H P "[dcqcn]\nvariant = paper\nb = 0\nclamp = no\n", NULL },
		{ H P "[dcqcn]\nt_dec = 8us\nalpha_first = 1\nvariant = nvidia\n", NULL },
		{ "[xdpleaf]\nmode = leaf\n[port s1]\n", NULL },
		/* rejected: leaf sections and keys in host mode */
		{ H P "[group g]\n", ":5: [group] is not used in host mode" },
		{ H P "[route 10.0.0.0/8]\nport = eth0\n", ":5: [route] is not used in host mode" },
		{ H P "[class rdma]\ndscp = 26\n", ":5: [class] is not used in host mode" },
		{ H P "[class cnp]\ndscp = 46\n", ":5: [class] is not used in host mode" },
		{ "[class rdma]\ndscp = 26\n" H P, ":1: [class] is not used in host mode" },
		{ H P "role = uplink\n", ":5: role = uplink is not used in host mode" },
		{ H P "group = g\n", ":5: group is not used in host mode (a host's [port] takes rate)" },
		{ H P "nexthop4 = 10.0.0.1\n", ":5: nexthop4 is not used in host mode" },
		{ H P "nexthop6 = fd00::1\n", ":5: nexthop6 is not used in host mode" },
		{ H P "gamma = 0.9\n", ":5: gamma is not used in host mode" },
		{ H P "bulk_gamma = 0.9\n", ":5: bulk_gamma is not used in host mode" },
		{ H P "buffer = 1M\n", ":5: buffer is not used in host mode" },
		{ H P "overflow = mark\n", ":5: overflow is not used in host mode" },
		{ P "overflow = mark\n" H, ":3: overflow is not used in host mode" },
		{ H P "speed = 100G\n",
		  ":5: unknown key 'speed' in [port] section (allowed in host mode: role, rate)" },
		{ H P "[port eth1]\nrate = 1G\n[port eth2]\nrate = 1G\n[port eth3]\nrate = 1G\n"
		  "[port eth4]\nrate = 1G\n", ":11: too many ports for host mode (max 4)" },
		{ H P "[vlan 5]\n", ":5: unknown section type 'vlan' (allowed: xdpleaf, port, dcqcn in host mode)" },
		{ H "[port eth0]\nrate = 100G\nrate = 100G\n", ":5: duplicate key 'rate' (first at line 4)" },
		/* rejected: [dcqcn] in leaf mode, whatever the order */
		{ "[port s1]\n[dcqcn]\n", ":2: [dcqcn] needs mode = host (set it in [xdpleaf])" },
		{ "[xdpleaf]\nmode = leaf\n[port s1]\n[dcqcn]\nnp = yes\n", ":4: [dcqcn] needs mode = host" },
		{ "[dcqcn]\n[xdpleaf]\nmode = leaf\n[port s1]\n", ":1: [dcqcn] needs mode = host" },
		{ "[xdpleaf]\nmode = Host\n[port s1]\n", ":2: invalid mode 'Host' (allowed: leaf, host)" },
		{ "[xdpleaf]\nMode = host\n[port s1]\n", ":2: unknown key 'Mode' in [xdpleaf] section" },
		/* only the first [xdpleaf] counts, and a second one is an error */
		{ "[xdpleaf]\n[port s1]\n[xdpleaf]\nmode = host\n",
		  ":3: duplicate section [xdpleaf] (first at line 1)" },
		{ H "mode = leaf\n" P, ":3: duplicate key 'mode' (first at line 2)" },
		/* rejected: [dcqcn] itself */
		{ H P "[dcqcn main]\n", ":5: section [dcqcn] takes no name" },
		{ H P "[dcqcn]\n[dcqcn]\n", ":6: duplicate section [dcqcn] (first at line 5)" },
		{ H P "[dcqcn]\ng = 1/256\ng = 1/128\n", ":7: duplicate key 'g' (first at line 6)" },
		{ H P "[dcqcn]\ng =\n", ":6: key 'g' has no value" },
		{ H P "[dcqcn]\nvariant = hpcc\n", ":6: invalid variant 'hpcc' (allowed: paper, nvidia)" },
		{ H P "[dcqcn]\nkmin = 5K\n", ":6: unknown key 'kmin' in [dcqcn] section (allowed: variant, np, rp, "
		  "cnp_interval, cnp_scope, cnp_dscp, cnp_port_rate, g, alpha_first, k, t, t_dec, b, f, clamp, r_ai, r_hai, min_rate)" },
		{ H P "[dcqcn]\nrate = 100G\n", ":6: unknown key 'rate' in [dcqcn] section" },
		/* rejected: a key of the other variant, at the first of them */
		{ H P "[dcqcn]\nvariant = nvidia\nb = 10000000\n",
		  ":7: b is not used by the nvidia variant (remove b, or set variant = paper)" },
		{ H P "[dcqcn]\nclamp = yes\nb = 0\nvariant = nvidia\n",
		  ":6: clamp is not used by the nvidia variant" },
		{ H P "[dcqcn]\nalpha_first = 1\n",
		  ":6: alpha_first is not used by the paper variant, the default (remove alpha_first, or set variant = nvidia)" },
		{ H P "[dcqcn]\nvariant = paper\nt_dec = 4us\n",
		  ":7: t_dec is not used by the paper variant (remove t_dec, or set variant = nvidia)" },
		/* ... before a later section's mistakes */
		{ H P "[dcqcn]\nvariant = nvidia\nb = 1000000\n[port eth1]\nrole = bad\n",
		  ":7: b is not used by the nvidia variant" },
		/* rejected once the file is read: rates */
		{ H "[port eth0]\n", ":3: port eth0 has no rate: the RP (rp = yes, the default) needs the port's "
		  "line rate (set rate = the link speed, e.g. 100G, or rp = no)" },
		{ H P "[port eth1]\n[dcqcn]\nrp = yes\n", ":5: port eth1 has no rate: the RP (rp = yes) needs" },
		{ "[port eth0]\n[dcqcn]\nnp = yes\n" H, ":1: port eth0 has no rate" },
		{ H "[port eth0]\nrate = 50M\n",
		  ":3: port eth0's rate 50M is below min_rate 100M (the paper variant's default; set a lower min_rate in [dcqcn])" },
		{ H P "[port eth1]\nrate = 2.5G\n[dcqcn]\nmin_rate = 10G\nvariant = nvidia\n",
		  ":8: min_rate 10G is above port eth1's rate 2.5G" },
		{ H "[port eth0]\nrate = 1000001\n[dcqcn]\nmin_rate = 1000002\n",
		  ":6: min_rate 1.000002M is above port eth0's rate 1.000001M" },
		/* a missing rate comes before the interface check */
		{ H "[port nosuchif0]\n", ":3: port nosuchif0 has no rate" },
	};
#undef H
#undef P
	struct xl_config cfg;
	char what[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(what, sizeof(what), "case %zu", i);
		if (load_case(cases[i].text, cases[i].err, &cfg, what))
			xl_config_free(&cfg);
	}
}

/* ---- the key table (config/key_table.h): what every row promises ---- */

/* A configuration in which key k of its section is read and acts: the
 * section with "KEY = value" on line 2 (or 3 for [class], after dscp),
 * plus what that section needs (a rate, an uplink, a mode that uses the
 * key, host mode, the variant). */
static void key_text(const struct xl_key_def *k, const char *value, char *buf, size_t len)
{
	const char *mode = "hash";

	switch (k->sect) {
	case S_XDPLEAF:
		snprintf(buf, len, "[xdpleaf]\n%s = %s\n[port s1]\n", k->name, value);
		break;
	case S_PORT:
		snprintf(buf, len, "[port u1]\n%s = %s\nrole = uplink\ngroup = g\n"
			 "nexthop4 = 10.0.0.1\nrate = 1G\n[group g]\n", k->name, value);
		break;
	case S_GROUP:
		for (__u32 m = 0; m < XL_LB_MODES; m++)
			if (xl_key_acts(k, m, XL_SPRAY_FREE)) {
				mode = xl_lb_mode_names[m];
				break;
			}
		snprintf(buf, len, "[group g]\n%s = %s\nlb_mode = %s\n[port u1]\nrole = uplink\n"
			 "group = g\nnexthop4 = 10.0.0.1\n", k->name, value, mode);
		break;
	case S_CLASS:
		snprintf(buf, len, "[port s1]\n[class c]\ndscp = 10\n%s = %s\n", k->name, value);
		break;
	case S_DCQCN:
		snprintf(buf, len, "[dcqcn]\n%s = %s\nvariant = %s\n[xdpleaf]\nmode = host\n"
			 "[port eth0]\nrate = 100G\n", k->name, value,
			 k->flags & KF_NVIDIA_ONLY ? "nvidia" : "paper");
		break;
	default:
		buf[0] = 0;
	}
}

/* The struct key k's section set in cfg (key_text's configuration). */
static const void *key_obj(const struct xl_key_def *k, const struct xl_config *cfg)
{
	switch (k->sect) {
	case S_XDPLEAF: return cfg;
	case S_PORT: return &cfg->ports[0];
	case S_GROUP: return &cfg->groups[0];
	case S_CLASS: return &cfg->classes[cfg->n_classes - 1].wred;
	case S_DCQCN: return &cfg->host;
	default: return NULL;
	}
}

static __u64 key_value(const struct xl_key_def *k, const void *obj)
{
	const char *f = (const char *)obj + k->off;

	return xl_key_size(k) == 8 ? *(const __u64 *)f : *(const __u32 *)f;
}

/* A number as the key's type writes it. */
static void key_number(const struct xl_key_def *k, __u64 v, char *buf, size_t len)
{
	snprintf(buf, len, "%llu%s", (unsigned long long)v, k->type == T_DURATION ? "ns" : "");
}

/* Every key with a range: both ends are read and stored, one past either
 * end is an error at the key's line; no other table needs the range. */
static void test_keys_ranges(void **state)
{
	char text[512], v[32], what[96];
	struct xl_config cfg;
	int n = 0;

	(void)state;
	for (int i = 0; i < K_COUNT; i++) {
		const struct xl_key_def *k = &xl_keys[i];
		__u64 ends[2] = { k->lo, k->hi };

		if (k->type != T_UINT && k->type != T_COUNT && k->type != T_DURATION)
			continue;
		n++;
		for (int e = 0; e < 2; e++) {
			key_number(k, ends[e], v, sizeof(v));
			key_text(k, v, text, sizeof(text));
			snprintf(what, sizeof(what), "%s = %s", k->name, v);
			assert_true(load_case(text, NULL, &cfg, what));
			assert_true(key_value(k, key_obj(k, &cfg)) == ends[e]);
			xl_config_free(&cfg);
			if (e == 0 && !k->lo)
				continue;
			key_number(k, e ? k->hi + 1 : k->lo - 1, v, sizeof(v));
			key_text(k, v, text, sizeof(text));
			snprintf(what, sizeof(what), "%s = %s", k->name, v);
			load_case(text, k->sect == S_CLASS ? ":4: " : ":2: ", &cfg, what);
		}
	}
	assert_true(n >= 14);
}

/* Every row is whole: a default inside its range (a choice among the
 * words), a map field wide enough for every value the key takes, a docs
 * values column that states the range the parser applies. */
static void test_keys_rows(void **state)
{
	char lo[32], hi[32];

	(void)state;
	for (int i = 0; i < K_COUNT; i++) {
		const struct xl_key_def *k = &xl_keys[i];
		__u64 max = k->type == T_CHOICE ? k->n_choices - 1 :
			    k->type == T_YES_NO ? 1 : k->hi;

		assert_non_null(k->name);
		if (k->type == T_CHOICE)
			assert_true(k->dflt < k->n_choices);
		if (k->sect != S_DCQCN && (k->type == T_UINT || k->type == T_COUNT ||
					   k->type == T_DURATION))
			assert_true(k->dflt >= k->lo && k->dflt <= k->hi);
		if (k->type == T_BYTES)
			assert_true(k->dflt >= k->lo);
		if (k->map) {
			assert_true(k->map_size == 1 || k->map_size == 4 || k->map_size == 8 ||
				    (k->type == T_ADDR4 && k->map_size == 4) ||
				    (k->type == T_ADDR6 && k->map_size == 16));
			if (k->map_size == 1)
				assert_true(max <= 0xff);
			if (k->map_size == 4 && k->type != T_ADDR4)
				assert_true(xl_key_size(k) == 4 || max <= 0xffffffffULL);
			assert_true(!k->flag_off || !k->map_flag_size ||
				    k->map_flag_size == 1 || k->map_flag_size == 4);
		}
		if (k->lb_modes || k->flags & (KF_SAFE_MOVES | KF_JSON_IF_USED))
			assert_int_equal(k->sect, S_GROUP);
		if (k->flags & (KF_UPLINK_ONLY | KF_NEEDS_RATE))
			assert_int_equal(k->sect, S_PORT);
		if (k->type == T_UINT || k->type == T_COUNT) {
			/* "LO..HI", or "LO (what it means)..HI" */
			char lo2[40];

			snprintf(lo, sizeof(lo), "%llu..", (unsigned long long)k->lo);
			snprintf(lo2, sizeof(lo2), "%llu (", (unsigned long long)k->lo);
			snprintf(hi, sizeof(hi), "..%llu", (unsigned long long)k->hi);
			if ((!strstr(k->doc_values, lo) && !strstr(k->doc_values, lo2)) ||
			    !strstr(k->doc_values, hi))
				fail_msg("%s: docs values '%s' do not say %s%s", k->name,
					 k->doc_values, lo, hi);
		}
		if (k->type == T_DURATION) {
			xl_fmt_duration(lo, sizeof(lo), k->lo);
			xl_fmt_duration(hi, sizeof(hi), k->hi);
			if (!strstr(k->doc_values, lo) || !strstr(k->doc_values, hi))
				fail_msg("%s: docs values '%s' do not say %s..%s", k->name,
					 k->doc_values, lo, hi);
		}
	}
}

/* A section's keys at their defaults are the table's, and what the loader
 * copies into the maps (xl_keys_fill) is what the configuration says:
 * field by field as the loader wrote it by hand before the table. */
static void test_keys_defaults_fill(void **state)
{
	static const char *const texts[] = {
		/* every default */
		"[port u1]\nrole = uplink\ngroup = g\nnexthop4 = 10.0.0.1\n[group g]\n"
		"[class c]\ndscp = 10\n",
		/* something else in every key the maps take */
		"[xdpleaf]\nmalformed = drop\npfc_watchdog = 1ms\nevent_rate = 7\n"
		"mark_event_sample = 9\n"
		"[port u1]\nrole = uplink\ngroup = g\nnexthop4 = 10.0.0.1\nnexthop6 = fd00::1\n"
		"rate = 10G\ngamma = 0.5\nbuffer = 64K\noverflow = mark\nline_overhead = 30\n"
		"psn_tracking = yes\n"
		"[group g]\nlb_mode = spray\nspray_reorder = safe\npath_skew = 40us\n",
		"[port u1]\nrole = uplink\ngroup = g\nnexthop6 = fd00::1\n"
		"[group g]\nlb_mode = flowlet\nflowlet_timeout = 3ms\n",
	};
	struct xl_config cfg;

	(void)state;
	for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
		const struct xl_cfg_port *cp;
		const struct xl_cfg_group *cg;
		struct xl_port p = {};
		struct xl_group g = {};
		struct xl_settings st = {};
		struct xl_event_cfg ev = {};

		assert_true(load_case(texts[t], NULL, &cfg, texts[t]));
		cp = &cfg.ports[0];
		cg = &cfg.groups[0];
		if (t == 0) {
			for (int i = 0; i < K_COUNT; i++) {
				const struct xl_key_def *k = &xl_keys[i];
				const void *obj = key_obj(k, &cfg);

				if (k->sect == S_DCQCN || k->sect == S_ROUTE || !xl_key_size(k) ||
				    (k->sect == S_PORT && k->off == offsetof(struct xl_cfg_port, role)))
					continue;
				if (xl_key_is_flag(k))
					assert_int_equal(xl_key_flag_yes(k, (__u32)key_value(k, obj)),
							 k->dflt);
				else if (k->flags & KF_LOADER_FILLS || k->off ==
					 offsetof(struct xl_cfg_port, buffer_bytes))
					continue; /* the buffer follows the rate */
				else
					assert_true(key_value(k, obj) == k->dflt);
				if (k->flags & KF_AUTO)
					assert_true(*(const bool *)((const char *)obj + k->flag_off));
			}
		}
		xl_keys_fill(XL_OBJ_PORT, cp, &p);
		xl_keys_fill(XL_OBJ_GROUP, cg, &g);
		xl_keys_fill(XL_OBJ_SETTINGS, &cfg, &st);
		xl_keys_fill(XL_OBJ_EVENT_CFG, &cfg, &ev);
		/* every key the table sends to a map, as the configuration has it */
		for (int i = 0; i < K_COUNT; i++) {
			const struct xl_key_def *k = &xl_keys[i];
			const void *map = k->map == XL_OBJ_PORT ? (const void *)&p :
					  k->map == XL_OBJ_GROUP ? (const void *)&g :
					  k->map == XL_OBJ_SETTINGS ? (const void *)&st :
								      (const void *)&ev;

			if (!k->map || k->flags & KF_LOADER_FILLS || !xl_key_size(k))
				continue;
			if (xl_key_map_value(k, map) != key_value(k, key_obj(k, &cfg)))
				fail_msg("%s: map %llu, config %llu", k->name,
					 (unsigned long long)xl_key_map_value(k, map),
					 (unsigned long long)key_value(k, key_obj(k, &cfg)));
		}
		/* and field by field, as the loader wrote it by hand before */
		assert_int_equal(p.role, cp->role);
		assert_int_equal(p.has_nexthop4, cp->has_nexthop4);
		assert_int_equal(p.has_nexthop6, cp->has_nexthop6);
		assert_memory_equal(p.nexthop4, cp->nexthop4, 4);
		assert_memory_equal(p.nexthop6, cp->nexthop6, 16);
		assert_true(p.line_rate_bps == cp->rate_bps);
		assert_int_equal(p.gamma_ppm, cp->gamma_ppm);
		assert_int_equal(p.overflow, cp->overflow);
		assert_int_equal(p.line_overhead, cp->line_overhead);
		assert_int_equal(p.psn_tracking, (__u8)cp->psn_tracking);
		assert_int_equal(p.buffer_bytes, 0); /* the loader's */
		assert_int_equal(g.lb_mode, cg->lb_mode);
		assert_true(g.flowlet_timeout_ns == cg->flowlet_timeout_ns);
		assert_int_equal(g.flowlet_auto, cg->flowlet_auto);
		assert_int_equal(g.path_skew_ns, cg->path_skew_ns);
		assert_int_equal(g.spray_reorder, cg->spray_reorder);
		assert_int_equal(st.malformed, cfg.malformed);
		assert_true(st.pfc_watchdog_ns == cfg.pfc_watchdog_ns);
		assert_int_equal(ev.rate, cfg.event_rate);
		assert_int_equal(ev.mark_sample, cfg.mark_event_sample);
		if (t == 1) {
			assert_int_equal(p.psn_tracking, 1);
			assert_int_equal(p.overflow, XL_OVERFLOW_MARK);
			assert_int_equal(g.spray_reorder, XL_SPRAY_SAFE);
			assert_int_equal(g.path_skew_ns, 40000);
			assert_int_equal(ev.mark_sample, 9);
		}
		xl_config_free(&cfg);
	}
}

static char json_buf[1024];

/* The JSON of o without the names not in keep: what a test of the
 * fields it knows compares (a new key's field may come anywhere). */
static const char *json_only(json_object *o, const char *const *keep)
{
	json_object *c = NULL;

	json_object_deep_copy(o, &c, NULL);
	json_object_object_foreach(o, name, v) {
		bool kept = false;

		(void)v;
		for (const char *const *k = keep; *k; k++)
			kept |= !strcmp(*k, name);
		if (!kept)
			json_object_object_del(c, name);
	}
	snprintf(json_buf, sizeof(json_buf), "%s",
		 json_object_to_json_string_ext(c, JSON_C_TO_STRING_PLAIN));
	json_object_put(c);
	return json_buf;
}

/* Every key the table sends to map kind m is in o under its JSON name
 * (KF_JSON_IF_USED ones only where used: not checked). */
static void assert_all_shown(enum xl_map_obj m, json_object *o)
{
	for (int i = 0; i < K_COUNT; i++) {
		const struct xl_key_def *k = &xl_keys[i];

		if (k->map != m || k->flags & KF_JSON_IF_USED ||
		    k->type == T_ADDR4 || k->type == T_ADDR6)
			continue;
		if (!json_object_object_get_ex(o, k->json ? k->json : k->name, NULL))
			fail_msg("%s is not in the JSON", k->name);
	}
}

/* Settings as stats --json has always shown a group's (name, lb_mode,
 * flowlet_timeout_ns, flowlet_timeout_auto, path_skew_ns, spray_reorder
 * with spray only, in that order), every other key's too, and as status
 * shows them in text. */
static void test_keys_json(void **state)
{
	static const char *const group_fields[] = {
		"name", "lb_mode", "flowlet_timeout_ns", "flowlet_timeout_auto",
		"path_skew_ns", "spray_reorder", NULL };
	static const char *const port_fields[] = {
		"role", "nexthop4", "nexthop6", "line_rate_bps", "gamma_ppm", "buffer_bytes",
		"overflow", "line_overhead_bytes", "psn_tracking", NULL };
	struct xl_group g = { .lb_mode = XL_LB_SPRAY, .flowlet_timeout_ns = 50000,
			      .flowlet_auto = 1, .path_skew_ns = 25000,
			      .spray_reorder = XL_SPRAY_SAFE };
	struct xl_port p = { .role = XL_ROLE_UPLINK, .has_nexthop4 = 1,
			     .nexthop4 = { 10, 0, 0, 1 }, .line_rate_bps = 1000000000,
			     .gamma_ppm = 950000, .buffer_bytes = 250000,
			     .overflow = XL_OVERFLOW_DROP, .line_overhead = 24 };
	json_object *o = json_object_new_object();
	char text[256];

	(void)state;
	json_object_object_add(o, "name", json_object_new_string("spine"));
	xl_keys_json(XL_OBJ_GROUP, &g, o);
	assert_string_equal(json_only(o, group_fields),
			    "{\"name\":\"spine\",\"lb_mode\":\"spray\",\"flowlet_timeout_ns\":50000,"
			    "\"flowlet_timeout_auto\":true,\"path_skew_ns\":25000,"
			    "\"spray_reorder\":\"safe\"}");
	assert_all_shown(XL_OBJ_GROUP, o);
	json_object_put(o);
	g.lb_mode = XL_LB_FLOWLET;
	g.flowlet_auto = 0;
	g.flowlet_timeout_ns = 3000000;
	o = json_object_new_object();
	xl_keys_json(XL_OBJ_GROUP, &g, o);
	assert_string_equal(json_only(o, group_fields),
			    "{\"lb_mode\":\"flowlet\",\"flowlet_timeout_ns\":3000000,"
			    "\"flowlet_timeout_auto\":false,\"path_skew_ns\":25000}");
	json_object_put(o);
	g.lb_mode = 9; /* a newer dataplane's mode */
	o = json_object_new_object();
	xl_keys_json(XL_OBJ_GROUP, &g, o);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "lb_mode")),
			    "unknown");
	json_object_put(o);
	g.lb_mode = XL_LB_FLOWLET;
	g.flowlet_auto = 1;
	xl_keys_text(XL_OBJ_GROUP, &g, text, sizeof(text));
	assert_true(!strncmp(text, "lb_mode flowlet, flowlet_timeout 3ms (auto), path_skew 25us",
			     strlen("lb_mode flowlet, flowlet_timeout 3ms (auto), path_skew 25us")));
	assert_null(strstr(text, "spray_reorder"));
	/* a port: what status --json adds; a name already there is kept */
	o = json_object_new_object();
	json_object_object_add(o, "role", json_object_new_string("uplink"));
	xl_keys_json(XL_OBJ_PORT, &p, o);
	assert_string_equal(json_only(o, port_fields),
			    "{\"role\":\"uplink\",\"nexthop4\":\"10.0.0.1\","
			    "\"line_rate_bps\":1000000000,\"gamma_ppm\":950000,"
			    "\"buffer_bytes\":250000,\"overflow\":\"drop\","
			    "\"line_overhead_bytes\":24,\"psn_tracking\":false}");
	assert_all_shown(XL_OBJ_PORT, o);
	json_object_put(o);
	xl_keys_text(XL_OBJ_PORT, &p, text, sizeof(text));
	assert_non_null(strstr(text, "role uplink, nexthop4 10.0.0.1, rate 1G, gamma 0.95, "));
	assert_non_null(strstr(text, "overflow drop"));
}

/* The table reads and writes a map struct's fields byte-wise, so a copy
 * at any address serves (a BPF map value a caller keeps in a byte buffer,
 * a field not aligned for its width): at every misalignment 1..7, the
 * fill, every value, every flag and the JSON are the aligned struct's.
 * Under the sanitizer build (make test-asan) a typed load or store of
 * any width here fails the test. */
static void test_keys_unaligned(void **state)
{
	static const char *const text =
		"[xdpleaf]\nmalformed = drop\npfc_watchdog = 1ms\nevent_rate = 7\n"
		"[port u1]\nrole = uplink\ngroup = g\nnexthop4 = 10.0.0.1\nnexthop6 = fd00::1\n"
		"rate = 10G\ngamma = 0.5\noverflow = mark\nline_overhead = 30\npsn_tracking = yes\n"
		"[group g]\nlb_mode = flowlet\nflowlet_timeout = auto\npath_skew = 40us\n";
	static const struct { enum xl_map_obj m; size_t size; } maps[] = {
		{ XL_OBJ_PORT, sizeof(struct xl_port) },
		{ XL_OBJ_GROUP, sizeof(struct xl_group) },
		{ XL_OBJ_SETTINGS, sizeof(struct xl_settings) },
		{ XL_OBJ_EVENT_CFG, sizeof(struct xl_event_cfg) },
	};
	union any_map { struct xl_port p; struct xl_group g; struct xl_settings s;
			struct xl_event_cfg e; };
	_Alignas(8) char aligned[sizeof(union any_map)], buf[sizeof(union any_map) + 8];
	char want[1024];
	struct xl_config cfg;
	int checked = 0;

	(void)state;
	assert_true(load_case(text, NULL, &cfg, text));
	for (size_t m = 0; m < sizeof(maps) / sizeof(maps[0]); m++) {
		const void *obj = maps[m].m == XL_OBJ_PORT ? (const void *)&cfg.ports[0] :
				  maps[m].m == XL_OBJ_GROUP ? (const void *)&cfg.groups[0] :
							      (const void *)&cfg;
		json_object *o;

		assert_true(maps[m].size <= sizeof(aligned));
		memset(aligned, 0, sizeof(aligned));
		xl_keys_fill(maps[m].m, obj, aligned);
		o = json_object_new_object();
		xl_keys_json(maps[m].m, aligned, o);
		snprintf(want, sizeof(want), "%s", json_object_to_json_string(o));
		json_object_put(o);
		for (size_t off = 1; off < 8; off++) {
			char *p = buf + off;

			memset(buf, 0, sizeof(buf));
			xl_keys_fill(maps[m].m, obj, p);
			assert_memory_equal(p, aligned, maps[m].size);
			for (int i = 0; i < K_COUNT; i++) {
				const struct xl_key_def *k = &xl_keys[i];

				if (k->map != maps[m].m)
					continue;
				assert_true(xl_key_map_value(k, p) == xl_key_map_value(k, aligned));
				assert_int_equal(xl_key_map_flag(k, p), xl_key_map_flag(k, aligned));
				checked++;
			}
			o = json_object_new_object();
			xl_keys_json(maps[m].m, p, o);
			assert_string_equal(json_object_to_json_string(o), want);
			json_object_put(o);
		}
	}
	/* the fill did copy: a value of each width is the configuration's */
	memset(aligned, 0, sizeof(aligned));
	xl_keys_fill(XL_OBJ_PORT, &cfg.ports[0], aligned);
	assert_true(xl_key_map_value(&xl_keys[K_RATE], aligned) == 10000000000ULL);
	assert_int_equal(xl_key_map_value(&xl_keys[K_LINE_OVERHEAD], aligned), 30);
	assert_int_equal(xl_key_map_value(&xl_keys[K_PSN_TRACKING], aligned), 1);
	assert_true(xl_key_map_flag(&xl_keys[K_NH6], aligned));
	memset(aligned, 0, sizeof(aligned));
	xl_keys_fill(XL_OBJ_GROUP, &cfg.groups[0], aligned);
	assert_true(xl_key_map_flag(&xl_keys[K_FLOWLET_TIMEOUT], aligned));
	assert_int_equal(xl_key_map_value(&xl_keys[K_PATH_SKEW], aligned), 40000);
	assert_true(checked >= 7 * 12);
	xl_config_free(&cfg);
}

/* "unknown key" lists a section's keys in table order (the leaf-only ones
 * not in a host's [port]). */
static void test_keys_allowed(void **state)
{
	static const struct { enum xl_sect sect; bool host; const char *text; } cases[] = {
		{ S_XDPLEAF, false, "[xdpleaf]\nbogus = 1\n[port s1]\n" },
		{ S_PORT, false, "[port s1]\nbogus = 1\n" },
		{ S_PORT, true, "[xdpleaf]\nmode = host\n[port s1]\nbogus = 1\n" },
		{ S_GROUP, false, "[group g]\nbogus = 1\n" },
		{ S_ROUTE, false, "[route 10.0.0.0/8]\nbogus = 1\n" },
		{ S_CLASS, false, "[class c]\nbogus = 1\n" },
		{ S_DCQCN, true, "[xdpleaf]\nmode = host\n[dcqcn]\nbogus = 1\n" },
	};
	char want[512], list[400], got[400];
	struct xl_config cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = 0;

		list[0] = 0;
		for (int k = 0; k < K_COUNT; k++)
			if (xl_keys[k].sect == cases[i].sect &&
			    !(cases[i].host && xl_keys[k].flags & KF_LEAF_ONLY))
				n += snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "",
					      xl_keys[k].name);
		xl_keys_list(cases[i].sect, cases[i].host, got, sizeof(got));
		assert_string_equal(got, list);
		snprintf(want, sizeof(want), "unknown key 'bogus' in [%s] section (allowed%s: %s)",
			 xl_sect_names[cases[i].sect],
			 cases[i].host && cases[i].sect == S_PORT ? " in host mode" : "", list);
		load_case(cases[i].text, want, &cfg, cases[i].text);
	}
}

#define BAD_TEST(n) { "bad/" #n, test_bad_fixture, NULL, NULL, "bad/" #n ".conf" },
#define GOOD_TEST(n) { "good/" #n, test_good_fixture, NULL, NULL, "good/" #n ".conf" },

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_lists_complete),
		GOOD_FILES(GOOD_TEST)
		cmocka_unit_test(test_good_minimal),
		cmocka_unit_test(test_good_leaf),
		cmocka_unit_test(test_good_ecn_leaf),
		cmocka_unit_test(test_default_buffer),
		cmocka_unit_test(test_good_style),
		cmocka_unit_test(test_good_edge_prefixes),
		cmocka_unit_test(test_good_lb_modes),
		cmocka_unit_test(test_good_reorder),
		cmocka_unit_test(test_good_host_paper),
		cmocka_unit_test(test_good_host_nvidia),
		cmocka_unit_test(test_good_host_np_only),
		BAD_FILES(BAD_TEST)
		cmocka_unit_test(test_prefix_ok),
		cmocka_unit_test(test_prefix_bad),
		cmocka_unit_test(test_interfaces),
		cmocka_unit_test(test_cannot_open),
		cmocka_unit_test(test_error_after_routes),
		cmocka_unit_test(test_many_routes),
		cmocka_unit_test(test_text_forms),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_port_queue_values),
		cmocka_unit_test(test_class_values),
		cmocka_unit_test(test_dscp_values),
		cmocka_unit_test(test_roce_class),
		cmocka_unit_test(test_class_rules),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_lb_values),
		cmocka_unit_test(test_lb_rules),
		cmocka_unit_test(test_q32),
		cmocka_unit_test(test_uint),
		cmocka_unit_test(test_dcqcn_values),
		cmocka_unit_test(test_host_rules),
		cmocka_unit_test(test_host_min_rate_warning),
		cmocka_unit_test(test_keys_ranges),
		cmocka_unit_test(test_keys_rows),
		cmocka_unit_test(test_keys_defaults_fill),
		cmocka_unit_test(test_keys_json),
		cmocka_unit_test(test_keys_unaligned),
		cmocka_unit_test(test_keys_allowed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
