/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Shared setup of the BPF_PROG_TEST_RUN suites: a private network
 * namespace with one TAP device per port, so the devmap and
 * ctx.ingress_ifindex see real ifindexes, and small map helpers.
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
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common/percpu.h"
#include "leaf/fwd_gen.h"
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
