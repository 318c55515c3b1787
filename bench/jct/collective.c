// SPDX-License-Identifier: GPL-2.0
/*
 * collective: timed steps of one MPI collective, for the job-completion-time
 * benchmark (bench/jct/run.sh, docs/jct-bench.md).
 *
 *   collective --op allreduce|alltoall --bytes N[K|M] [--steps N] [--warmup N]
 *              [--dev IF] [--progress FILE] [--until FILE]
 *
 * Every step begins with MPI_Barrier; then each rank reads CLOCK_MONOTONIC,
 * runs the collective, and reads it again. The lab's hosts are network
 * namespaces of one machine, so every rank reads the same clock and the
 * step time is (last rank's end) - (first rank's start). After the last
 * step rank 0 gathers every rank's timestamps and prints one JSON object on
 * stdout; nothing is exchanged between the steps but the collective and the
 * barrier.
 *
 * allreduce: MPI_SUM over N/4 floats (a gradient of N bytes); every rank
 * contributes rank + 1, and each step checks the sum. alltoall: every rank
 * sends N/ranks bytes to every rank (N bytes per rank in all), each block
 * tagged with its source and destination and checked.
 *
 * Exit status: 0, 1 on a wrong result or an MPI error, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#define ADDR_LEN 48 /* one rank's "eth0 address", NUL-padded */

enum op { OP_ALLREDUCE, OP_ALLTOALL };

struct opts {
	enum op op;
	uint64_t bytes;
	int steps;
	int warmup;
	const char *dev;
	const char *progress;
	const char *until;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void usage(int rank)
{
	if (rank == 0)
		fprintf(stderr,
			"usage: collective --op allreduce|alltoall --bytes N[K|M] [--steps N]\n"
			"                  [--warmup N] [--dev IF] [--progress FILE] [--until FILE]\n"
			"  --bytes   per rank: the all-reduced vector, or all of one rank's\n"
			"            all-to-all blocks (K, M = 2^10, 2^20)\n"
			"  --steps   measured steps (default 20), after --warmup (default 2)\n"
			"  --dev     the interface whose IPv4 address names a rank (eth0)\n"
			"  --progress rank 0 writes there, before each step's barrier, how\n"
			"            many steps were done (warm-up included): for a driver that\n"
			"            acts at a given step\n"
			"  --until   stop before the first step that finds FILE there (rank 0\n"
			"            looks, outside the timed part), at most --warmup + --steps:\n"
			"            a collective that runs until its driver says\n");
}

/* "4M" -> 4194304; 0 if malformed. */
static uint64_t parse_bytes(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return 0;
	if (*end == 'K' || *end == 'k') {
		v <<= 10;
		end++;
	} else if (*end == 'M' || *end == 'm') {
		v <<= 20;
		end++;
	}
	return *end ? 0 : v;
}

static int parse_count(const char *s, int min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > 1000000)
		return -1;
	return (int)v;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int i;

	*o = (struct opts){ .op = -1, .steps = 20, .warmup = 2, .dev = "eth0" };
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			return -1;
		if (!strcmp(a, "--op")) {
			if (!strcmp(v, "allreduce"))
				o->op = OP_ALLREDUCE;
			else if (!strcmp(v, "alltoall"))
				o->op = OP_ALLTOALL;
			else
				return -1;
		} else if (!strcmp(a, "--bytes")) {
			o->bytes = parse_bytes(v);
		} else if (!strcmp(a, "--steps")) {
			o->steps = parse_count(v, 1);
		} else if (!strcmp(a, "--warmup")) {
			o->warmup = parse_count(v, 0);
		} else if (!strcmp(a, "--dev")) {
			o->dev = v;
		} else if (!strcmp(a, "--progress")) {
			o->progress = v;
		} else if (!strcmp(a, "--until")) {
			o->until = v;
		} else {
			return -1;
		}
		i++;
	}
	if ((int)o->op < 0 || o->bytes == 0 || o->steps < 0 || o->warmup < 0)
		return -1;
	return 0;
}

/* --progress: the number of steps done, written over the file's old
 * content (rank 0, before each step's barrier: outside the timed part).
 * A driver polls it; a failed write only costs the driver its cue. */
static void write_progress(const char *path, int done)
{
	FILE *f;

	if (!path || !(f = fopen(path, "w")))
		return;
	fprintf(f, "%d\n", done);
	fclose(f);
}

/* --until: whether FILE is there, as rank 0 saw it, told to every rank
 * (before the step's barrier: outside the timed part), so that all of
 * them leave the loop at the same step. */
static int until_now(const struct opts *o, int rank)
{
	int stop = 0;

	if (!o->until)
		return 0;
	if (rank == 0)
		stop = access(o->until, F_OK) == 0;
	MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return stop;
}

/* The IPv4 address of dev, which tells which lab host a rank runs in. */
static void dev_addr(const char *dev, char out[ADDR_LEN])
{
	struct ifaddrs *ifa, *p;

	memset(out, 0, ADDR_LEN);
	snprintf(out, ADDR_LEN, "?");
	if (getifaddrs(&ifa))
		return;
	for (p = ifa; p; p = p->ifa_next) {
		if (p->ifa_addr && p->ifa_addr->sa_family == AF_INET &&
		    !strcmp(p->ifa_name, dev)) {
			inet_ntop(AF_INET, &((struct sockaddr_in *)p->ifa_addr)->sin_addr,
				  out, ADDR_LEN);
			break;
		}
	}
	freeifaddrs(ifa);
}

#ifdef MPICH_VERSION
/*
 * MPICH 4.0's ch4:ucx can deadlock in MPI_Finalize: a rank that has closed
 * its UCX endpoints waits, blocked, in a PMI barrier, while another rank's
 * close needs it to make progress (pmodels/mpich#6596, fixed after 4.0;
 * Debian 12's 4.0.2 hung so in every job in the lab). By then every step is
 * done and printed, and the wrong results summed over all ranks: a rank
 * still in MPI_Finalize after FINALIZE_S leaves with the status it would
 * have had.
 */
#define FINALIZE_S 5
static volatile sig_atomic_t exit_status;

static void finalize_stuck(int sig)
{
	(void)sig;
	_exit(exit_status);
}
#endif

static unsigned char block_tag(int src, int dst)
{
	return (unsigned char)(src * 16 + dst + 1);
}

int main(int argc, char **argv)
{
	int rank, size, i, s, total, done, bad = 0, len;
	char lib[MPI_MAX_LIBRARY_VERSION_STRING], addr[ADDR_LEN];
	char *addrs = NULL;
	uint64_t *mine, *all = NULL;
	struct opts o;
	void *sbuf, *rbuf;
	size_t count, block = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	if (parse_opts(argc, argv, &o)) {
		usage(rank);
		MPI_Finalize();
		return 2;
	}
	if (o.op == OP_ALLREDUCE && o.bytes % sizeof(float)) {
		if (rank == 0)
			fprintf(stderr, "collective: --bytes must be a multiple of 4\n");
		MPI_Finalize();
		return 2;
	}
	if (o.op == OP_ALLTOALL && o.bytes % (uint64_t)size) {
		if (rank == 0)
			fprintf(stderr, "collective: --bytes must be a multiple of the %d ranks\n",
				size);
		MPI_Finalize();
		return 2;
	}

	sbuf = malloc(o.bytes);
	rbuf = malloc(o.bytes);
	total = o.warmup + o.steps;
	mine = calloc(2 * (size_t)total, sizeof(*mine));
	if (!sbuf || !rbuf || !mine) {
		fprintf(stderr, "collective: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (o.op == OP_ALLREDUCE) {
		float *f = sbuf;

		count = o.bytes / sizeof(float);
		for (size_t k = 0; k < count; k++)
			f[k] = (float)(rank + 1);
	} else {
		block = o.bytes / (size_t)size;
		count = block;
		for (i = 0; i < size; i++)
			memset((char *)sbuf + (size_t)i * block, block_tag(rank, i), block);
	}
	memset(rbuf, 0, o.bytes); /* touch every page before the first step */

	for (s = 0; s < total; s++) {
		if (rank == 0)
			write_progress(o.progress, s);
		if (until_now(&o, rank))
			break;
		MPI_Barrier(MPI_COMM_WORLD);
		mine[2 * s] = now_ns();
		if (o.op == OP_ALLREDUCE)
			MPI_Allreduce(sbuf, rbuf, (int)count, MPI_FLOAT, MPI_SUM,
				      MPI_COMM_WORLD);
		else
			MPI_Alltoall(sbuf, (int)count, MPI_BYTE, rbuf, (int)count,
				     MPI_BYTE, MPI_COMM_WORLD);
		mine[2 * s + 1] = now_ns();

		/* checked after the clock stopped: not part of the step */
		if (o.op == OP_ALLREDUCE) {
			const float *f = rbuf, want = (float)size * (size + 1) / 2;

			if (f[0] != want || f[count / 2] != want || f[count - 1] != want)
				bad++;
			memset(rbuf, 0, sizeof(float));
		} else {
			for (i = 0; i < size; i++) {
				const unsigned char *b = (unsigned char *)rbuf + (size_t)i * block;

				if (b[0] != block_tag(i, rank) || b[block - 1] != block_tag(i, rank))
					bad++;
			}
		}
	}

	done = s;
	dev_addr(o.dev, addr);
	if (rank == 0) {
		all = malloc(2 * (size_t)total * (size_t)size * sizeof(*all));
		addrs = malloc((size_t)size * ADDR_LEN);
		if (!all || !addrs)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Gather(mine, 2 * total, MPI_UINT64_T, all, 2 * total, MPI_UINT64_T, 0,
		   MPI_COMM_WORLD);
	MPI_Gather(addr, ADDR_LEN, MPI_CHAR, addrs, ADDR_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

	if (rank == 0) {
		MPI_Get_library_version(lib, &len);
		lib[strcspn(lib, "\n,")] = '\0';
		for (char *c = lib; *c; c++) /* MPICH's has a tab: not in a JSON string */
			if ((unsigned char)*c < ' ' || *c == '"' || *c == '\\')
				*c = ' ';
		printf("{\"op\": \"%s\", \"bytes\": %" PRIu64 ", \"ranks\": %d, \"warmup\": %d, "
		       "\"library\": \"%s\", \"wrong_results\": %d,\n \"hosts\": [",
		       o.op == OP_ALLREDUCE ? "allreduce" : "alltoall", o.bytes, size,
		       o.warmup, lib, bad);
		for (i = 0; i < size; i++)
			printf("%s\"%s\"", i ? ", " : "", addrs + (size_t)i * ADDR_LEN);
		printf("],\n \"steps\": [");
		for (s = o.warmup; s < done; s++) {
			uint64_t first = UINT64_MAX, last = 0;

			for (i = 0; i < size; i++) {
				const uint64_t *r = all + (size_t)i * 2 * total;

				if (r[2 * s] < first)
					first = r[2 * s];
				if (r[2 * s + 1] > last)
					last = r[2 * s + 1];
			}
			printf("%s\n  {\"start_ns\": %" PRIu64 ", \"end_ns\": %" PRIu64
			       ", \"time_ns\": %" PRIu64 ", \"rank_start_ns\": [",
			       s > o.warmup ? "," : "", first, last, last - first);
			for (i = 0; i < size; i++)
				printf("%s%" PRIu64, i ? ", " : "",
				       all[(size_t)i * 2 * total + 2 * s]);
			printf("], \"rank_end_ns\": [");
			for (i = 0; i < size; i++)
				printf("%s%" PRIu64, i ? ", " : "",
				       all[(size_t)i * 2 * total + 2 * s + 1]);
			printf("]}");
		}
		printf("\n]}\n");
		fflush(stdout);
		if (bad)
			fprintf(stderr, "collective: %d wrong results\n", bad);
	}
	free(all);
	free(addrs);
	free(mine);
	free(sbuf);
	free(rbuf);
#ifdef MPICH_VERSION
	exit_status = bad ? 1 : 0;
	signal(SIGALRM, finalize_stuck);
	alarm(FINALIZE_S);
#endif
	MPI_Finalize();
	return bad ? 1 : 0;
}
