/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Shared setup of the BPF_PROG_TEST_RUN suites: a private network
 * namespace with one TAP device per port, so the devmap and
 * ctx.ingress_ifindex see real ifindexes; the suite's state as the product
 * gets it (a configuration text through the real parser, for the loader's
 * fill functions; neighbours and addresses in the kernel, for the
 * user-space code that copies them into the maps); small map helpers.
 *
 * The devmap (`tx_ports`) only accepts ifindexes of existing devices, and
 * test_run resolves ctx.ingress_ifindex in the caller's netns, so a suite
 * moves itself into a fresh network namespace (unshare) and creates its
 * TAP devices there (open /dev/net/tun, kept open). Everything disappears
 * when the process exits. Needs root.
 *
 * Include after <cmocka.h> (SETUP_CHECK reports with print_error). Static
 * inline functions only: the Makefile compiles just the test_*.c file. */
#ifndef XL_TEST_FIXTURE_H
#define XL_TEST_FIXTURE_H

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/types.h>
#include <linux/if_tun.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "config/config.h"
#include "base/percpu.h"
#include "leaf/fwd_gen.h"
#include "netlink/rtnl.h"
#include "events.h"

/* In a group setup: report and fail the setup. */
#define SETUP_CHECK(cond, ...)                                            \
	do {                                                              \
		if (!(cond)) {                                            \
			print_error("setup: " __VA_ARGS__);               \
			return -1;                                        \
		}                                                         \
	} while (0)

/* A TAP device `name` with MAC `mac`; *fd_out keeps it alive. */
static inline int tap_create(const char *name, const __u8 mac[6],
			     int *fd_out)
{
	struct ifreq ifr;
	int fd, sk, err;

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	/* Same MAC on the device as in `ports`, as the loader would read. */
	sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	memcpy(ifr.ifr_hwaddr.sa_data, mac, 6);
	err = sk < 0 || ioctl(sk, SIOCSIFHWADDR, &ifr) < 0 ? -errno : 0;
	if (sk >= 0)
		close(sk);
	if (err) {
		close(fd);
		return err;
	}
	*fd_out = fd;
	return 0;
}

/* What every fixture suite needs first: root, a private network namespace
 * (so test ports never clash with the host's or another run's), and one TAP
 * device per port for real ifindexes. Prints why and returns -1 on failure;
 * fds[] are -1 for devices not made. */
static inline int fixture_ports(int n, const char *const *names,
				const __u8 (*macs)[6], int *fds, __u32 *ifindex)
{
	int p, err;

	for (p = 0; p < n; p++)
		fds[p] = -1;
	if (geteuid() != 0) {
		fprintf(stderr, "setup: needs root (BPF, netns, tun)\n");
		return -1;
	}
	if (unshare(CLONE_NEWNET)) {
		fprintf(stderr, "setup: unshare(CLONE_NEWNET): %s\n",
			strerror(errno));
		return -1;
	}
	for (p = 0; p < n; p++) {
		err = tap_create(names[p], macs[p], &fds[p]);
		if (err) {
			fprintf(stderr, "setup: tap %s: %s\n", names[p],
				strerror(-err));
			return -1;
		}
		ifindex[p] = if_nametoindex(names[p]);
		if (!ifindex[p]) {
			fprintf(stderr, "setup: if_nametoindex(%s): %s\n",
				names[p], strerror(errno));
			return -1;
		}
	}
	return 0;
}

static inline void fixture_close(int n, int *fds)
{
	for (int p = 0; p < n; p++)
		if (fds[p] >= 0)
			close(fds[p]);
}

/* ---- state the way the product gets it --------------------------------- */

/* Parse a configuration given as text, printf-style, as `xdpleaf load`
 * parses a file: written to a temporary file and read by xl_config_load
 * with the interfaces checked (so the ports must exist: fixture_ports
 * first). The suite then hands cfg to the loader's fill function
 * (xl_leaf_fill_maps, xl_host_fill_maps) and frees it (xl_config_free).
 * 0, or -1 after printing the parser's message and the text. */
static inline int fixture_config(struct xl_config *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int fixture_config(struct xl_config *cfg, const char *fmt, ...)
{
	char path[] = "/tmp/xl-test-XXXXXX.conf", err[XL_ERR_MAX], *text = NULL;
	va_list ap;
	int fd, n, rc = -1;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	fd = mkstemps(path, 5);
	if (fd < 0 || write(fd, text, (size_t)n) != n) {
		fprintf(stderr, "setup: %s: %s\n", path, strerror(errno));
		goto out;
	}
	rc = xl_config_load(path, true, cfg, err, sizeof(err));
	if (rc)
		fprintf(stderr, "setup: %s\n--- the configuration:\n%s---\n", err, text);
out:
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	free(text);
	return rc;
}

/* The kernel's tables are written through the product's rtnetlink
 * client (netlink/rtnl.h): xl_rtnl_call sends the request and waits for
 * the acknowledgement, as the product's own requests do. Only the two
 * messages are built here, with libmnl as the client builds its own: the
 * product never writes an address or a permanent neighbour (it mirrors
 * the tables an administrator owns and asks the kernel only to resolve,
 * probe or forget a neighbour), so these writers have no place in rtnl.c. */

/* A new-or-replace request of `type` in buf, its family header (hdr
 * bytes, zeroed) returned for the caller to fill. */
static inline void *fixture_rtnl_new(char *buf, __u16 type, size_t hdr, struct nlmsghdr **nlh)
{
	*nlh = mnl_nlmsg_put_header(buf);
	(*nlh)->nlmsg_type = type;
	(*nlh)->nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
	return mnl_nlmsg_put_extra_header(*nlh, hdr);
}

/* A permanent neighbour entry (family 4 or 6) in the kernel's table, where
 * the product's neighbours come from: the suite then copies the table into
 * its `neigh` map with the loader's and the daemon's own code
 * (xl_neigh_sync, leaf/netlink_watch.h), after the ports are filled. */
static inline int fixture_neigh_add(__u32 ifindex, int family, const __u8 *addr,
				    const __u8 mac[6])
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct ndmsg *nd = fixture_rtnl_new(buf, RTM_NEWNEIGH, sizeof(*nd), &nlh);

	nd->ndm_family = family == 4 ? AF_INET : AF_INET6;
	nd->ndm_ifindex = (int)ifindex;
	nd->ndm_state = NUD_PERMANENT;
	mnl_attr_put(nlh, NDA_DST, family == 4 ? 4 : 16, addr);
	mnl_attr_put(nlh, NDA_LLADDR, 6, mac);
	return xl_rtnl_call(nlh);
}

/* An address (family 4 or 6, prefix plen) on an interface, as an
 * administrator would give a host port: the host loader reads the ports'
 * addresses from the kernel (xl_host_addrs_sync). No duplicate address
 * detection, so it is usable at once. */
static inline int fixture_addr_add(__u32 ifindex, int family, const __u8 *addr,
				   __u8 plen)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa = fixture_rtnl_new(buf, RTM_NEWADDR, sizeof(*ifa), &nlh);

	ifa->ifa_family = family == 4 ? AF_INET : AF_INET6;
	ifa->ifa_prefixlen = plen;
	ifa->ifa_flags = IFA_F_NODAD;
	ifa->ifa_index = ifindex;
	mnl_attr_put(nlh, IFA_LOCAL, family == 4 ? 4 : 16, addr);
	mnl_attr_put(nlh, IFA_ADDRESS, family == 4 ? 4 : 16, addr);
	return xl_rtnl_call(nlh);
}

/* The leaf's fwd_gen map, once a suite that loaded the leaf sets it:
 * every map_set then writes a new generation, as the loader and the
 * daemon do after a change, so that the leaf's caches see the change
 * (bpf/fwd_cache.h). */
static int fixture_fwd_gen_fd = -1;

static inline int map_set(struct bpf_map *map, const void *k, size_t ksz,
			  const void *v, size_t vsz)
{
	int err = bpf_map__update_elem(map, k, ksz, v, vsz, BPF_ANY);

	return err ? err : xl_fwd_changed(fixture_fwd_gen_fd);
}

/* Zero a per-CPU map's value at key on every one of ncpu CPUs. */
static inline int percpu_zero(struct bpf_map *map, __u32 key, size_t vsz,
			      int ncpu)
{
	size_t n = (size_t)ncpu * ((vsz + 7) & ~(size_t)7);
	void *zeros = calloc(1, n);
	int err;

	if (!zeros)
		return -1;
	err = bpf_map_update_elem(bpf_map__fd(map), &key, zeros, BPF_ANY);
	free(zeros);
	return err;
}

/* ---- events (bpf/event_ring.h) ---------------------------------------- */

/* Turn the program's events on (every kind, `rate` per second and CPU,
 * every mark sampled) or off (rate 0). */
static inline int events_enable(struct bpf_map *cfg, __u32 rate)
{
	struct xl_event_cfg c = { .rate = rate, .mark_sample = 1 };
	__u32 zero = 0;

	return map_set(cfg, &zero, 4, &c, sizeof(c));
}

/* The events waiting in a ring, oldest first, at most max. */
struct events_seen {
	struct xl_event ev[64];
	int n;
};

static inline int events_seen_add(void *ctx, void *data, size_t size)
{
	struct events_seen *s = ctx;

	if (size >= sizeof(struct xl_event) && s->n < 64)
		memcpy(&s->ev[s->n++], data, sizeof(struct xl_event));
	return 0;
}

/* Take every event waiting in ring (a BPF_MAP_TYPE_RINGBUF) into s. */
static inline int events_take(struct bpf_map *ring, struct events_seen *s)
{
	struct ring_buffer *rb = ring_buffer__new(bpf_map__fd(ring), events_seen_add, s, NULL);
	int n;

	s->n = 0;
	if (!rb)
		return -1;
	n = ring_buffer__consume(rb);
	ring_buffer__free(rb);
	return n < 0 ? -1 : 0;
}

/* The number of events of this kind in s; *last the last of them. */
static inline int events_of(const struct events_seen *s, __u32 kind,
			    const struct xl_event **last)
{
	int n = 0;

	for (int i = 0; i < s->n; i++)
		if (s->ev[i].h.kind == kind) {
			n++;
			*last = &s->ev[i];
		}
	return n;
}

#endif /* XL_TEST_FIXTURE_H */
