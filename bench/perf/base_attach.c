// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* base_attach: the stateful minimal forwarder of bench/baselines/ (the
 * yardstick of `make bench`) attached at XDP to real interfaces, for the
 * lab's forwarding-rate benchmark (bench/perf/lab_rate.sh).
 *
 *   base_attach --dev IF [--dev IF ...] --egress IF --dst-mac MAC
 *               [--src-mac MAC] [--flows N] [--generic] [--stdin]
 *
 * Sets the program's read-only data before load (egress_ifindex, src_mac:
 * --src-mac or the egress interface's own address, dst_mac), loads it, puts
 * the egress ifindex into its devmap base_tx, and attaches it to every
 * --dev with a BPF link (native mode; --generic for skb mode). It then
 * prints one line, "base_attach: ready ...", to stderr, and stays until
 * SIGINT, SIGTERM or SIGHUP (or, with --stdin, until its standard input
 * reaches end of file). The links are never pinned: however the process
 * ends, SIGKILL included, the kernel closes them and the program detaches.
 *
 * Exit status: 0 after a signal (or EOF), 2 for bad options, 1 for
 * anything else, always with one line saying what. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <net/if_arp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bench/baselines/stateful.skel.h"

#define PFX "base_attach: "
#define MAX_DEVS 16

static void usage(FILE *f)
{
	fprintf(f,
		"usage: base_attach --dev IF [--dev IF ...] --egress IF --dst-mac MAC\n"
		"                   [--src-mac MAC] [--flows N] [--generic] [--stdin]\n"
		"Attaches the stateful minimal forwarder (bench/baselines/stateful.bpf.c)\n"
		"at XDP to every --dev: it sends every IPv4/UDP packet out of --egress\n"
		"with the Ethernet addresses --src-mac (default: the egress interface's\n"
		"own) > --dst-mac. Prints 'base_attach: ready ...' to stderr once\n"
		"attached, then stays until SIGINT/SIGTERM/SIGHUP (--stdin: also until\n"
		"its standard input is closed); the program detaches when it exits.\n"
		"  --dev IF       interface to attach to (repeatable, at most %d)\n"
		"  --egress IF    where every forwarded packet leaves\n"
		"  --dst-mac MAC  destination MAC written into each packet (the next hop's)\n"
		"  --src-mac MAC  source MAC (default: --egress's address)\n"
		"  --flows N      size of the flow table (LRU hash), 1..16777216 (default 65536)\n"
		"  --generic      attach in generic (skb) mode instead of native\n"
		"  --stdin        also exit when standard input reaches end of file\n",
		MAX_DEVS);
}

static int parse_mac(const char *s, __u8 mac[6])
{
	unsigned int b[6];
	char tail;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5], &tail) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (__u8)b[i];
	return 0;
}

/* The interface's hardware address (Ethernet only). */
static int if_mac(const char *dev, __u8 mac[6])
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = -1;

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) == 0) {
		if (ifr.ifr_hwaddr.sa_family == ARPHRD_ETHER) {
			memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
			ret = 0;
		} else {
			errno = EPROTONOSUPPORT;
		}
	}
	close(fd);
	return ret;
}

static const char *mac_str(const __u8 m[6], char buf[18])
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4],
		 m[5]);
	return buf;
}

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf's warnings (a verifier log on failure) help; its debug
	 * chatter does not. */
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "egress", required_argument, NULL, 'e' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "src-mac", required_argument, NULL, 's' },
		{ "flows", required_argument, NULL, 'f' },
		{ "generic", no_argument, NULL, 'g' },
		{ "stdin", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *devs[MAX_DEVS], *egress = NULL;
	unsigned int ifindex[MAX_DEVS];
	int links[MAX_DEVS], ndev = 0, nlinks = 0, c, err, ret = 1, sfd = -1;
	__u8 src[6], dst[6];
	bool have_src = false, have_dst = false, generic = false, use_stdin = false;
	unsigned long flows = 0;
	unsigned int eg_ifindex;
	struct base_stateful *skel = NULL;
	sigset_t sigs, old;
	char b1[18], b2[18];

	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (ndev == MAX_DEVS) {
				fprintf(stderr, PFX "at most %d --dev\n", MAX_DEVS);
				return 2;
			}
			devs[ndev++] = optarg;
			break;
		case 'e':
			egress = optarg;
			break;
		case 'm':
			if (parse_mac(optarg, dst)) {
				fprintf(stderr, PFX "--dst-mac '%s': not a MAC address "
					"(six hex bytes: 02:00:00:00:00:01)\n", optarg);
				return 2;
			}
			have_dst = true;
			break;
		case 's':
			if (parse_mac(optarg, src)) {
				fprintf(stderr, PFX "--src-mac '%s': not a MAC address "
					"(six hex bytes: 02:00:00:00:00:01)\n", optarg);
				return 2;
			}
			have_src = true;
			break;
		case 'f': {
			char *end;

			errno = 0;
			flows = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || flows < 1 || flows > (1UL << 24)) {
				fprintf(stderr, PFX "--flows '%s': a number, 1..16777216\n",
					optarg);
				return 2;
			}
			break;
		}
		case 'g':
			generic = true;
			break;
		case 'i':
			use_stdin = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PFX "unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!ndev || !egress || !have_dst) {
		fprintf(stderr, PFX "needs %s\n", !ndev ? "--dev IF (where to attach)" :
			!egress ? "--egress IF (where packets leave)" :
			"--dst-mac MAC (the next hop's address)");
		usage(stderr);
		return 2;
	}
	if (geteuid() != 0) {
		fprintf(stderr, PFX "needs root (BPF programs and XDP attachment)\n");
		return 1;
	}
	eg_ifindex = if_nametoindex(egress);
	if (!eg_ifindex) {
		fprintf(stderr, PFX "--egress: no interface '%s' in this network namespace\n",
			egress);
		return 1;
	}
	if (!have_src && if_mac(egress, src)) {
		fprintf(stderr, PFX "--egress %s: cannot read its MAC address (%s); "
			"give --src-mac\n", egress, strerror(errno));
		return 1;
	}
	for (int i = 0; i < ndev; i++) {
		ifindex[i] = if_nametoindex(devs[i]);
		if (!ifindex[i]) {
			fprintf(stderr, PFX "--dev: no interface '%s' in this network "
				"namespace\n", devs[i]);
			return 1;
		}
		for (int j = 0; j < i; j++) {
			if (ifindex[j] == ifindex[i]) {
				fprintf(stderr, PFX "--dev %s given twice\n", devs[i]);
				return 2;
			}
		}
	}

	libbpf_set_print(quiet_print);
	skel = base_stateful__open();
	if (!skel) {
		fprintf(stderr, PFX "opening the BPF program: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->egress_ifindex = eg_ifindex;
	memcpy((void *)skel->rodata->src_mac, src, 6);
	memcpy((void *)skel->rodata->dst_mac, dst, 6);
	if (flows && (err = bpf_map__set_max_entries(skel->maps.base_flows, (__u32)flows))) {
		fprintf(stderr, PFX "--flows %lu: %s\n", flows, strerror(-err));
		goto out;
	}
	err = base_stateful__load(skel);
	if (err) {
		fprintf(stderr, PFX "loading the BPF program: %s\n", strerror(-err));
		goto out;
	}
	{
		__u32 k = eg_ifindex, v = eg_ifindex;

		if (bpf_map_update_elem(bpf_map__fd(skel->maps.base_tx), &k, &v, BPF_ANY)) {
			fprintf(stderr, PFX "putting %s (ifindex %u) into the devmap base_tx: "
				"%s\n", egress, eg_ifindex, strerror(errno));
			goto out;
		}
	}

	/* Block the signals that end us before attaching, so none is lost
	 * between attaching and waiting; a signalfd takes them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, &old);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0) {
		fprintf(stderr, PFX "signalfd: %s\n", strerror(errno));
		goto out_sig;
	}
	for (int i = 0; i < ndev; i++) {
		LIBBPF_OPTS(bpf_link_create_opts, lo,
			    .flags = generic ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE);
		int l = bpf_link_create(bpf_program__fd(skel->progs.base_stateful),
					(int)ifindex[i], BPF_XDP, &lo);

		if (l < 0) {
			err = errno;
			if (err == EBUSY || err == EEXIST)
				fprintf(stderr, PFX "%s already has an XDP program (`ip link "
					"show dev %s` names it; detach it, or unload the "
					"xdpleaf instance that holds it)\n", devs[i], devs[i]);
			else if (err == EOPNOTSUPP && !generic)
				fprintf(stderr, PFX "%s has no native XDP; try --generic\n",
					devs[i]);
			else
				fprintf(stderr, PFX "attaching to %s: %s\n", devs[i],
					strerror(err));
			goto out_sig;
		}
		links[nlinks++] = l;
	}
	fprintf(stderr, PFX "ready: base_stateful on");
	for (int i = 0; i < ndev; i++)
		fprintf(stderr, " %s", devs[i]);
	fprintf(stderr, " (%s mode), out of %s (ifindex %u), %s > %s\n",
		generic ? "generic" : "native", egress, eg_ifindex, mac_str(src, b1),
		mac_str(dst, b2));
	fflush(stderr);

	for (;;) {
		struct pollfd p[2] = { { .fd = sfd, .events = POLLIN },
				       { .fd = STDIN_FILENO, .events = POLLIN } };
		int n = poll(p, use_stdin ? 2 : 1, -1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, PFX "poll: %s\n", strerror(errno));
			goto out_sig;
		}
		if (p[0].revents) {
			struct signalfd_siginfo si;

			/* consume it: unblocked later, it would kill us */
			if (read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
				fprintf(stderr, PFX "reading the signal: %s\n", strerror(errno));
			break;
		}
		if (use_stdin && p[1].revents) {
			char buf[256];
			ssize_t r = read(STDIN_FILENO, buf, sizeof(buf));

			if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
				break;
		}
	}
	ret = 0;
out_sig:
	for (int i = 0; i < nlinks; i++)
		close(links[i]); /* detaches: the links are not pinned */
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
out:
	base_stateful__destroy(skel);
	return ret;
}
