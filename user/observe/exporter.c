// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The exporter's HTTP side and its life: options, the listening socket,
 * libmicrohttpd serving / and /metrics, and a clean exit on SIGINT or
 * SIGTERM. Every scrape reads the pinned maps anew through the readers
 * (common/readers.h), so the exporter outlives unloads, loads and
 * upgrades of the instances it watches: what is loaded at the scrape is
 * what it serves. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h> /* optarg, optind */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <json-c/json.h>
#include <microhttpd.h>
#include "common/cli.h"
#include "common/pins.h"
#include "common/readers.h"
#include "observe/exporter.h"
#include "observe/metrics.h"
#include "observe/prom.h"

#define DEFAULT_LISTEN "127.0.0.1:9435"
#define DEFAULT_TOP_FLOWS 10
#define MAX_INSTANCES 256

struct exporter {
	const struct xl_readers *readers;
	char (*named)[XL_INSTANCE_MAX]; /* --instance, or NULL: all */
	int n_named;
	int top_flows;
};

enum { OPT_TOP_FLOWS = 256, OPT_LIST_METRICS };
const struct xl_opt xl_exporter_opts[] = {
	XL_OPT("listen", 'l', "ADDR:PORT", "where to serve (default " DEFAULT_LISTEN
	       "): a numeric\nIPv4 address, or IPv6 in brackets ([::1]:9435); "
	       "port 0:\nany free port (the start line names it)"),
	XL_OPT("instance", 'i', "NAME", "export this instance (repeatable; default: "
	       "every\ninstance under " XL_PIN_ROOT ")"),
	XL_OPT("top-flows", OPT_TOP_FLOWS, "N", "export the N busiest leaf flows and "
	       "the first N\nDCQCN RP flows of each instance (default 10)"),
	XL_OPT("list-metrics", OPT_LIST_METRICS, NULL, "print every metric as a "
	       "markdown row\n(name, type, labels, help) and exit"),
	XL_OPT_HELP, XL_OPT_END
};

static const char intro[] =
	"Serve Prometheus metrics (text format 0.0.4) of xdpleaf instances at\n"
	"http://ADDR:PORT/metrics until SIGINT or SIGTERM (then exit 0). Every\n"
	"scrape reads the pinned maps again, so an instance loaded, unloaded or\n"
	"upgraded meanwhile is exported as it is at the scrape, without a restart;\n"
	"one that is not loaded is not exported (not an error). Only reads maps.\n"
	"Needs root, or CAP_BPF and CAP_NET_ADMIN. Metrics: docs/metrics.md.";

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
	fprintf(stderr, "xdpleaf exporter: --listen '%s': want ADDR:PORT, ADDR a "
		"numeric IPv4 address or an IPv6 one in brackets ([::1]:9435), "
		"PORT 0..65535 (0: any free port)\n", s);
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
	    bind(fd, (struct sockaddr *)ss, len) || listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)ss, &len)) {
		fprintf(stderr, "xdpleaf exporter: cannot listen on %s: %s\n", text,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* One scrape: each instance's documents, turned into the exposition
 * text (malloc'd, *len bytes). */
static char *scrape(const struct exporter *x, size_t *len)
{
	static char all[MAX_INSTANCES][XL_INSTANCE_MAX];
	char (*names)[XL_INSTANCE_MAX] = x->named;
	int n = x->n_named, k = 0;
	struct xl_scraped *s;
	char *buf = NULL;
	FILE *f;

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

		e->mode = xl_instance_mode(names[i]);
		if (e->mode == XL_INST_ABSENT)
			continue; /* not loaded (now): not exported */
		snprintf(e->name, sizeof(e->name), "%.31s", names[i]);
		if (e->mode == XL_INST_HOST) {
			e->stats = x->readers->host_stats(e->name);
			e->more = x->readers->host_qps(e->name, x->top_flows);
		} else {
			e->stats = x->readers->leaf_stats(e->name);
			/* interval 0: no wait; rate() of the bytes does the rest */
			e->more = x->readers->leaf_flows(e->name, x->top_flows, 0);
		}
		e->ok = e->stats && e->more;
		k++;
	}
	f = open_memstream(&buf, len);
	if (f) {
		xl_metrics_write(f, s, k);
		if (fclose(f)) {
			free(buf);
			buf = NULL;
		}
	}
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
	const struct exporter *x = cls;
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
	body = scrape(x, &len);
	if (!body)
		return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, TEXT, failed,
			     strlen(failed), MHD_RESPMEM_PERSISTENT);
	return reply(c, MHD_HTTP_OK, XL_PROM_CONTENT_TYPE, body, len,
		     MHD_RESPMEM_MUST_FREE);
}

static int parse_top(const char *s, int *top)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || end == s || errno || v < 1 || v > 100000) {
		fprintf(stderr, "xdpleaf exporter: --top-flows wants a number 1..100000\n");
		return -1;
	}
	*top = (int)v;
	return 0;
}

/* --instance NAME, once per name. */
static int add_instance(struct exporter *x, const char *name)
{
	static char names[MAX_INSTANCES][XL_INSTANCE_MAX];

	if (!xl_instance_name_ok(name)) {
		fprintf(stderr, "xdpleaf exporter: bad instance name '%s': use 1-31 of "
				"[A-Za-z0-9_-]\n", name);
		return -1;
	}
	x->named = names;
	for (int i = 0; i < x->n_named; i++)
		if (!strcmp(names[i], name))
			return 0;
	if (x->n_named == MAX_INSTANCES) {
		fprintf(stderr, "xdpleaf exporter: at most %d --instance\n", MAX_INSTANCES);
		return -1;
	}
	snprintf(names[x->n_named++], XL_INSTANCE_MAX, "%s", name);
	return 0;
}

int xl_exporter_main(int argc, char **argv, const struct xl_readers *readers,
		     int (*privileged)(void))
{
	struct exporter x = { .readers = readers, .top_flows = DEFAULT_TOP_FLOWS };
	struct xl_opt_parser p = { .opts = xl_exporter_opts };
	const char *listen_s = DEFAULT_LISTEN;
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	char where[INET6_ADDRSTRLEN + 16];
	socklen_t len;
	sigset_t stop;
	int ch, err = 0, fd, sig;

	while (!err && (ch = xl_opt_next(&p, argc, argv)) != -1) {
		switch (ch) {
		case 'l': listen_s = optarg; break;
		case 'i': err = add_instance(&x, optarg); break;
		case OPT_TOP_FLOWS: err = parse_top(optarg, &x.top_flows); break;
		case OPT_LIST_METRICS: xl_metrics_list(stdout); xl_opt_free(&p); return 0;
		case 'h':
			xl_opt_usage(stdout, "exporter", xl_exporter_opts, intro);
			xl_opt_free(&p);
			return 0;
		default: /* getopt said which option */
			xl_opt_usage_line(stderr, "exporter", xl_exporter_opts);
			err = -1;
		}
	}
	xl_opt_free(&p);
	if (!err && optind < argc) {
		fprintf(stderr, "xdpleaf exporter: unexpected argument '%s'\n", argv[optind]);
		err = -1;
	}
	if (err || parse_listen(listen_s, &ss, &len))
		return 2;
	if (privileged() || xl_ensure_bpffs())
		return 1;
	fd = listen_on(listen_s, &ss, len);
	if (fd < 0)
		return 1;
	/* the signals wait for sigwait() here; libmicrohttpd's thread,
	 * started next, inherits the mask and never takes them */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	/* a shell without job control starts background commands with
	 * SIGINT ignored, and an ignored signal never reaches sigwait() */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	d = MHD_start_daemon(MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
			     (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
			     0, NULL, NULL, handle, &x,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_TIMEOUT, 30U,
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "xdpleaf exporter: cannot start the HTTP server on %s\n",
			listen_s);
		close(fd);
		return 1;
	}
	addr_text(&ss, where, sizeof(where));
	printf("xdpleaf exporter: serving http://%s/metrics (", where);
	if (x.n_named)
		for (int i = 0; i < x.n_named; i++)
			printf("%s%s", i ? ", " : "instances ", x.named[i]);
	else
		printf("every instance under %s", XL_PIN_ROOT);
	printf(")\n");
	fflush(stdout);
	while (sigwait(&stop, &sig))
		;
	MHD_stop_daemon(d); /* closes the listening socket too */
	printf("xdpleaf exporter: stopped by %s\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
	return 0;
}
