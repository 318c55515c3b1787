// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The exporter's HTTP side and its life: options, the listening socket,
 * libmicrohttpd serving / and /metrics, and a clean exit on SIGINT or
 * SIGTERM. A thread reads the pinned maps anew through the readers
 * (instance/readers.h) every --interval and a scrape serves the latest
 * text (observe/snapshot.h), so the exporter outlives unloads, loads and
 * upgrades of the instances it watches, and a scrape costs a copy
 * however big their tables. Connections are limited in number, per
 * address and in idle time, and served by a pool of threads, so that
 * clients that never finish a request cannot keep Prometheus out. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <json-c/json.h>
#include <microhttpd.h>
#include "base/log.h"
#include "base/cli.h"
#include "instance/opt_instance.h"
#include "instance/pins.h"
#include "instance/readers.h"
#include "observe/exporter.h"
#include "observe/log_limit.h"
#include "observe/metrics.h"
#include "observe/prom.h"
#include "observe/snapshot.h"

#define DEFAULT_LISTEN "127.0.0.1:9435"
#define DEFAULT_TOP_FLOWS 10
#define DEFAULT_INTERVAL_MS 1000
#define MAX_INSTANCES 256

/* The HTTP server's bounds. A Prometheus holds one connection per
 * target and sends its request at once; a client that holds many, or
 * sends a request a line at a time, must not use up the server. */
#define CONN_MAX 4096       /* connections at once, fewer if the open-file limit is lower */
#define CONN_PER_ADDRESS 64 /* of them from one client address */
#define CONN_IDLE_S 10      /* a connection silent this long is closed */
#define CONN_MEMORY 16384   /* bytes for a connection's request headers */
#define SERVE_THREADS 2     /* requests served at once */
#define SPARE_FDS 128       /* open files kept for the reads of the maps */

struct exporter {
	const struct xl_readers *readers;
	char (*named)[XL_INSTANCE_MAX]; /* --instance, or NULL: all */
	int n_named;
	int top_flows;
	struct xl_snapshot *snap;
};

static const char intro[] =
	"Serve Prometheus metrics (text format 0.0.4) of xdpleaf instances at\n"
	"http://ADDR:PORT/metrics until SIGINT or SIGTERM (then exit 0). The\n"
	"pinned maps are read every --interval and a scrape serves the latest\n"
	"read: an instance loaded, unloaded or upgraded meanwhile is exported as\n"
	"it is at the next read, without a restart; one that is not loaded is\n"
	"not exported (not an error). After a read comes a pause of at least\n"
	"five times its duration (a big flow table: seconds). Only reads maps.\n"
	"At most 4096 connections (fewer under a low open-file limit: the start\n"
	"line says), 64 from one address, closed after 10 s idle; stderr at\n"
	"most one line a second. Needs root, or CAP_BPF and CAP_NET_ADMIN.\n"
	"Metrics: docs/metrics.md, docs/operations.md.";

/* ADDR:PORT into a socket address; 0, or -1 after saying why. */
static int parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon, *port_s;
	char *end;
	long port;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		colon = close && close[1] == ':' ? close + 1 : NULL;
		if (colon && (size_t)(close - s - 1) < sizeof(host))
			snprintf(host, sizeof(host), "%.*s", (int)(close - s - 1), s + 1);
		else
			colon = NULL;
	} else {
		colon = strrchr(s, ':');
		if (colon && (size_t)(colon - s) < sizeof(host) && !memchr(s, ':', colon - s))
			snprintf(host, sizeof(host), "%.*s", (int)(colon - s), s);
		else
			colon = NULL;
	}
	port_s = colon ? colon + 1 : "";
	errno = 0;
	port = strtol(port_s, &end, 10);
	if (!colon || !isdigit((unsigned char)port_s[0]) || *end || errno ||
	    port > 65535)
		goto bad;
	if (s[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((__u16)port);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			goto bad;
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((__u16)port);
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			goto bad;
		*len = sizeof(*a);
	}
	return 0;
bad:
	xl_err("--listen '%s': want ADDR:PORT, ADDR a "
	       "numeric IPv4 address or an IPv6 one in brackets ([::1]:9435), "
	       "PORT 0..65535 (0: any free port)", s);
	return -1;
}

static void addr_text(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(s6->sin6_port));
	} else {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(s4->sin_port));
	}
}

/* The listening socket, bound here rather than by libmicrohttpd so that
 * a port in use is reported as such and port 0's choice is known. */
static int listen_on(const char *text, struct sockaddr_storage *ss, socklen_t len)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)ss, len) || listen(fd, SOMAXCONN) ||
	    getsockname(fd, (struct sockaddr *)ss, &len)) {
		xl_err("cannot listen on %s: %s", text, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* One read: each instance's documents, turned into the exposition text
 * (malloc'd, *len bytes), with when the read began (began_ns, Unix time)
 * and how long it took. The snapshot thread's xl_snapshot_make. */
static char *read_all(void *ctx, __u64 began_ns, size_t *len)
{
	static char all[MAX_INSTANCES][XL_INSTANCE_MAX];
	const struct exporter *x = ctx;
	char (*names)[XL_INSTANCE_MAX] = x->named;
	int n = x->n_named, k = 0;
	struct xl_scraped *s;
	json_object *read;
	struct timespec t0, t1;
	char *buf = NULL;
	FILE *f;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!names) {
		names = all;
		n = xl_list_instances(all, MAX_INSTANCES);
		if (n < 0)
			n = 0;
	}
	s = calloc(n ? n : 1, sizeof(*s));
	if (!s)
		return NULL;
	for (int i = 0; i < n; i++) {
		struct xl_scraped *e = &s[k];

		e->role = xl_instance_role(names[i]);
		if (e->role == XL_INST_ABSENT)
			continue; /* not loaded (now): not exported */
		snprintf(e->name, sizeof(e->name), "%.31s", names[i]);
		if (e->role == XL_INST_HOST) {
			e->stats = x->readers->host_stats(e->name);
			e->more = x->readers->host_qps(e->name, x->top_flows);
		} else {
			/* interval 0: no wait; rate() of the bytes does the
			 * rest. The flow table is walked once, for the top
			 * flows and its entry count both. */
			e->more = x->readers->leaf_flows(e->name, x->top_flows, 0);
			e->stats = x->readers->leaf_stats_no_flow_table(e->name);
			if (e->stats && e->more)
				json_object_object_add(e->stats, "flow_table", json_object_get(
					json_object_object_get(e->more, "flow_table")));
		}
		e->ok = e->stats && e->more;
		k++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	read = json_object_new_object();
	json_object_object_add(read, "began", json_object_new_double(began_ns / 1e9));
	json_object_object_add(read, "duration", json_object_new_double(
		(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9));
	f = open_memstream(&buf, len);
	if (f) {
		xl_metrics_write(f, s, k, read);
		if (fclose(f)) {
			free(buf);
			buf = NULL;
		}
	}
	json_object_put(read);
	for (int i = 0; i < k; i++) {
		json_object_put(s[i].stats);
		json_object_put(s[i].more);
	}
	free(s);
	return buf;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status,
			     const char *type, char *body, size_t len,
			     enum MHD_ResponseMemoryMode mem)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mem);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

#define TEXT "text/plain; charset=utf-8"

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version,
			      const char *upload_data, size_t *upload_size,
			      void **req_cls)
{
	static char index[] = "xdpleaf exporter: Prometheus metrics at /metrics\n";
	static char not_found[] = "not found: the metrics are at /metrics\n";
	static char no_method[] = "only GET and HEAD\n";
	static char failed[] = "scrape failed: out of memory\n";
	struct exporter *x = cls;
	size_t len;
	char *body;

	(void)version;
	(void)upload_data;
	(void)upload_size;
	(void)req_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, TEXT, no_method,
			     strlen(no_method), MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, TEXT, index, strlen(index),
			     MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, TEXT, not_found,
			     strlen(not_found), MHD_RESPMEM_PERSISTENT);
	body = xl_snapshot_copy(x->snap, &len);
	if (!body)
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, TEXT, failed,
			     strlen(failed), MHD_RESPMEM_PERSISTENT);
	return reply(c, MHD_HTTP_OK, XL_PROM_CONTENT_TYPE, body, len,
		     MHD_RESPMEM_MUST_FREE);
}

/* The command line. */
struct exporter_opts {
	const char *listen;
	struct named {
		char names[MAX_INSTANCES][XL_INSTANCE_MAX];
		int n;
	} named;                /* --instance, each name once */
	__u32 top_flows, interval_ms;
	bool list_metrics;
};

/* --instance NAME, once per name. */
static int add_instance(const char *name, void *field, char *err, size_t len)
{
	struct named *x = field;

	if (xl_opt_instance(name, &(const char *){ NULL }, err, len))
		return -1;
	for (int i = 0; i < x->n; i++)
		if (!strcmp(x->names[i], name))
			return 0;
	if (x->n == MAX_INSTANCES) {
		snprintf(err, len, "at most %d", MAX_INSTANCES);
		return -1;
	}
	snprintf(x->names[x->n++], XL_INSTANCE_MAX, "%s", name);
	return 0;
}

#define F(f) XL_FIELD(struct exporter_opts, f)
static const struct xl_opt exporter_opts[] = {
	{ "listen", 'l', XL_T_STR, F(listen), "ADDR:PORT", "where to serve (default " DEFAULT_LISTEN
	  "): a numeric\nIPv4 address, or IPv6 in brackets ([::1]:9435); "
	  "port 0:\nany free port (the start line names it)" },
	{ "instance", 'i', XL_T_FUNC, F(named), "NAME", "export this instance (repeatable; default: "
	  "every\ninstance under " XL_PIN_ROOT ")", .parse = add_instance },
	{ "top-flows", 0, XL_T_UINT, F(top_flows), "N", "export the N busiest leaf flows and "
	  "the first N\nDCQCN RP flows of each instance (default 10)", .min = 1, .max = 100000 },
	{ "interval", 0, XL_T_UINT, F(interval_ms), "MS", "read the maps every MS milliseconds, "
	  "100..60000\n(default 1000); a scrape serves the latest read", .min = 100, .max = 60000 },
	{ "list-metrics", 0, XL_T_FLAG, F(list_metrics), NULL, "print every metric as a "
	  "markdown row\n(name, type, labels, help) and exit" },
	XL_OPT_HELP, XL_OPT_END
};

static const struct exporter_opts exporter_defaults = {
	.listen = DEFAULT_LISTEN, .top_flows = DEFAULT_TOP_FLOWS, .interval_ms = DEFAULT_INTERVAL_MS,
};

/* The open-file limit raised, as far as the hard limit allows, to what
 * CONN_MAX connections need; the connections it leaves room for. */
static unsigned conn_limit(void)
{
	struct rlimit r;
	rlim_t want = CONN_MAX + SPARE_FDS;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return 64;
	if (r.rlim_cur < want) {
		r.rlim_cur = r.rlim_max < want ? r.rlim_max : want;
		setrlimit(RLIMIT_NOFILE, &r);
		getrlimit(RLIMIT_NOFILE, &r);
	}
	return r.rlim_cur >= want ? CONN_MAX :
	       r.rlim_cur > SPARE_FDS + 64 ? (unsigned)(r.rlim_cur - SPARE_FDS) : 64;
}

static int exporter_run(const struct xl_cmd_ctx *ctx, void *opts)
{
	const struct exporter_opts *o = opts;
	struct exporter x = {
		.readers = ctx->env, .top_flows = (int)o->top_flows,
		.named = o->named.n ? (char (*)[XL_INSTANCE_MAX])o->named.names : NULL,
		.n_named = o->named.n,
	};
	const char *listen_s = o->listen;
	unsigned interval = o->interval_ms;
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	char where[INET6_ADDRSTRLEN + 16];
	unsigned conns;
	socklen_t len;
	sigset_t stop;
	int fd, sig;

	if (o->list_metrics) {
		xl_metrics_list(stdout);
		return 0;
	}
	if (parse_listen(listen_s, &ss, &len))
		return 2;
	if (x.readers->privileged() || xl_ensure_bpffs())
		return 1;
	conns = conn_limit();
	fd = listen_on(listen_s, &ss, len);
	if (fd < 0)
		return 1;
	/* the signals wait for sigwait() here; the threads started next
	 * (the reads, the stderr limit, libmicrohttpd's) inherit the mask
	 * and never take them */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	/* a shell without job control starts background commands with
	 * SIGINT ignored, and an ignored signal never reaches sigwait() */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	if (xl_log_limit_start()) {
		close(fd);
		return 1;
	}
	x.snap = xl_snapshot_start(interval, read_all, &x);
	if (!x.snap) {
		close(fd);
		xl_log_limit_stop();
		return 1;
	}
	d = MHD_start_daemon(MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
			     (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
			     0, NULL, NULL, handle, &x,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_THREAD_POOL_SIZE, (unsigned)SERVE_THREADS,
			     MHD_OPTION_CONNECTION_LIMIT, conns,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)CONN_PER_ADDRESS,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONN_IDLE_S,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
			     MHD_OPTION_END);
	if (!d) {
		xl_err("cannot start the HTTP server on %s", listen_s);
		close(fd);
		xl_snapshot_stop(x.snap);
		xl_log_limit_stop();
		return 1;
	}
	addr_text(&ss, where, sizeof(where));
	printf("xdpleaf exporter: serving http://%s/metrics (", where);
	if (x.n_named)
		for (int i = 0; i < x.n_named; i++)
			printf("%s%s", i ? ", " : "instances ", x.named[i]);
	else
		printf("every instance under %s", XL_PIN_ROOT);
	printf("), read every %u ms; at most %u connections, %d from one address\n",
	       interval, conns, CONN_PER_ADDRESS);
	fflush(stdout);
	while (sigwait(&stop, &sig))
		;
	MHD_stop_daemon(d); /* closes the listening socket too */
	xl_snapshot_stop(x.snap);
	xl_log_limit_stop();
	printf("xdpleaf exporter: stopped by %s\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
	return 0;
}

const struct xl_cmd xl_exporter_cmd = {
	.name = "exporter", .summary = "serve Prometheus metrics of the loaded instances over HTTP "
				       "('xdpleaf exporter --help')",
	.intro = intro,
	.opts = exporter_opts, XL_CMD_OPTS(struct exporter_opts, &exporter_defaults),
	.run = exporter_run,
};
