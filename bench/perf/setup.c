// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The bench's environment (perf.h): TAP ports in a private network
 * namespace, the leaf and host programs loaded through the loader's own
 * map filling, and the baselines. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "xdpleaf.h"
#include "leaf.skel.h"
#include "host.skel.h"
#include "bench/baselines/stateless.skel.h"
#include "bench/baselines/stateful.skel.h"
#include "config/config.h"
#include "leaf/loader.h"
#include "host/loader.h"
#include "fixture.h"
#include "perf.h"

static const __u8 mac_in[6] = PERF_MAC_IN;

int perf_ports(struct perf *P, const char *conf_text)
{
	const char *names[PERF_MAX_TAPS];
	__u8 macs[PERF_MAX_TAPS][6];
	const char *s = conf_text;

	P->n_taps = 0;
	while ((s = strstr(s, "[port ")) && P->n_taps < PERF_MAX_TAPS) {
		int n = 0;

		s += 6;
		while (s[n] && s[n] != ']' && n < 15)
			n++;
		memcpy(P->tap_name[P->n_taps], s, (size_t)n);
		P->tap_name[P->n_taps][n] = 0;
		names[P->n_taps] = P->tap_name[P->n_taps];
		/* the first port gets the MAC the bench's packets are sent to */
		memcpy(macs[P->n_taps], mac_in, 6);
		macs[P->n_taps][5] = (__u8)(P->n_taps + 1);
		P->n_taps++;
	}
	return fixture_ports(P->n_taps, names, (const __u8 (*)[6])macs, P->tap_fd,
			     P->ifindex);
}

int perf_up(const char *name)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		err = -1;
	ifr.ifr_flags |= IFF_UP | IFF_NOARP;
	if (!err && ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		err = -1;
	close(fd);
	return err;
}

__u32 perf_ifindex(const struct perf *P, const char *name)
{
	for (int i = 0; i < P->n_taps; i++)
		if (!strcmp(P->tap_name[i], name))
			return P->ifindex[i];
	return 0;
}

static int load_config(struct perf *P, const char *conf_text, struct xl_config *cfg)
{
	char err[XL_ERR_MAX];
	FILE *f;

	if (!P->conf_path[0])
		snprintf(P->conf_path, sizeof(P->conf_path), "/tmp/xdpleaf-bench-%d.conf",
			 (int)getpid());
	f = fopen(P->conf_path, "w");
	if (!f || fputs(conf_text, f) < 0 || fclose(f)) {
		fprintf(stderr, "bench: %s: %s\n", P->conf_path, strerror(errno));
		return -1;
	}
	if (xl_config_load(P->conf_path, true, cfg, err, sizeof(err))) {
		fprintf(stderr, "bench: config: %s\n", err);
		return -1;
	}
	return 0;
}

int perf_leaf_config(struct perf *P, const char *conf_text)
{
	struct xl_config cfg;
	int r;

	if (load_config(P, conf_text, &cfg))
		return -1;
	if (!P->leaf) {
		P->leaf = leaf__open();
		if (!P->leaf)
			return -1;
		P->leaf->rodata->nr_cpus = (__u32)libbpf_num_possible_cpus();
		if (bpf_map__set_max_entries(P->leaf->maps.flows, cfg.flow_table_size) ||
		    leaf__load(P->leaf)) {
			fprintf(stderr, "bench: leaf: load: %s\n", strerror(errno));
			xl_config_free(&cfg);
			return -1;
		}
		fixture_fwd_gen_fd = bpf_map__fd(P->leaf->maps.fwd_gen);
	}
	r = xl_leaf_fill_maps(P->leaf, &cfg);
	xl_config_free(&cfg);
	return r;
}

int perf_neigh(struct perf *P, const char *ifname, int family, const __u8 *addr)
{
	struct xl_neigh_key k = { .ifindex = perf_ifindex(P, ifname),
				  .family = family == 4 ? AF_INET : AF_INET6 };
	struct xl_neigh v = { 0 };

	memcpy(k.addr, addr, family == 4 ? 4 : 16);
	memcpy(v.mac, mac_in, 6);
	return map_set(P->leaf->maps.neigh, &k, sizeof(k), &v, sizeof(v));
}

int perf_host_config(struct perf *P, const char *conf_text)
{
	struct xl_config cfg;
	int r;

	if (load_config(P, conf_text, &cfg))
		return -1;
	if (!P->host) {
		P->host = host__open_and_load();
		if (!P->host) {
			fprintf(stderr, "bench: host: load: %s\n", strerror(errno));
			xl_config_free(&cfg);
			return -1;
		}
	}
	r = xl_host_fill_maps(P->host, &cfg);
	xl_config_free(&cfg);
	return r;
}

int perf_baselines(struct perf *P, const char *egress, __u32 flows)
{
	__u32 out = perf_ifindex(P, egress);

	base_stateless__destroy(P->stateless);
	base_stateful__destroy(P->stateful);
	P->stateless = base_stateless__open();
	P->stateful = base_stateful__open();
	if (!out || !P->stateless || !P->stateful)
		return -1;
	/* the same rewrite as the leaf's: to the ingress port's MAC (paths.c) */
	P->stateless->rodata->egress_ifindex = out;
	P->stateful->rodata->egress_ifindex = out;
	memcpy((void *)P->stateless->rodata->dst_mac, mac_in, 6);
	memcpy((void *)P->stateful->rodata->dst_mac, mac_in, 6);
	if (bpf_map__set_max_entries(P->stateful->maps.base_flows, flows) ||
	    base_stateless__load(P->stateless) || base_stateful__load(P->stateful)) {
		fprintf(stderr, "bench: baselines: load: %s\n", strerror(errno));
		return -1;
	}
	return map_set(P->stateless->maps.base_tx, &out, 4, &out, 4) ||
	       map_set(P->stateful->maps.base_tx, &out, 4, &out, 4);
}

void perf_close(struct perf *P)
{
	leaf__destroy(P->leaf);
	host__destroy(P->host);
	base_stateless__destroy(P->stateless);
	base_stateful__destroy(P->stateful);
	fixture_close(P->n_taps, P->tap_fd);
	if (P->conf_path[0])
		unlink(P->conf_path);
	memset(P, 0, sizeof(*P));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double perf_median(double *v, int n)
{
	if (n <= 0)
		return -1;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double perf_measure(int prog_fd, const __u8 *pkt, size_t len, __u32 ifindex,
		    int is_xdp, int repeat, int batches, const struct perf_vary *vary,
		    int *verdict)
{
	double *d = calloc((size_t)batches, sizeof(*d));
	__u8 buf[PKT_MAX];
	double med;
	int n = 0;

	if (!d || len > sizeof(buf)) {
		free(d);
		return -1;
	}
	for (int i = 0; i < batches; i++) {
		struct xdp_md xctx = { .ingress_ifindex = ifindex, .data_end = (__u32)len };
		struct __sk_buff sctx = { .ingress_ifindex = ifindex, .ifindex = ifindex };
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = buf, .data_size_in = (__u32)len,
			    .repeat = repeat);

		if (is_xdp) {
			o.ctx_in = &xctx;
			o.ctx_size_in = sizeof(xctx);
		} else {
			o.ctx_in = &sctx;
			o.ctx_size_in = sizeof(sctx);
		}
		memcpy(buf, pkt, len);
		if (vary && vary->mod && vary->off + 3 <= len) {
			__u32 v = (vary->start + (__u32)i) % vary->mod;

			buf[vary->off] = (__u8)(v >> 16);
			buf[vary->off + 1] = (__u8)(v >> 8);
			buf[vary->off + 2] = (__u8)v;
		}
		if (bpf_prog_test_run_opts(prog_fd, &o))
			continue;
		*verdict = (int)o.retval;
		d[n++] = o.duration;
	}
	med = perf_median(d, n);
	free(d);
	return med;
}
