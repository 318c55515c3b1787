// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xdpleaf: load, inspect and unload the XDP leaf dataplane. One table of
 * subcommands; each parses its own options and has its own --help. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "config.h"
#include "loader.h"
#include "netns.h"
#include "pins.h"
#include "show.h"
#include "host_show.h"
#include "flows.h"
#include "sim.h"
#include "traffic.h"
#include "version.h"
#include "watcher.h"

struct opts {
	const char *instance;
	const char *config;
	bool json;
	bool no_watch;
	bool replace; /* watch: stop a running watcher and take over */
	int top;      /* flows: show the N busiest, 0 = all */
};

struct command {
	const char *name;
	int (*run)(const struct opts *o);
	const char *args;    /* options this command takes, for usage */
	const char *summary;
	bool needs_config;
	bool has_json;
	/* Reads or acts on the instance's interfaces, which only its own
	 * network namespace sees (user/netns.h): refused elsewhere. */
	bool netns_bound;
	const char *notes;   /* more for --help, or NULL */
};

static int need_privileges(void)
{
	if (xl_traffic_privileged())
		return 0;
	fprintf(stderr, "xdpleaf: needs root, or CAP_BPF and CAP_NET_ADMIN "
			"(try: sudo xdpleaf ...)\n");
	return -1;
}

static int cmd_load(const struct opts *o)
{
	char err[XL_ERR_MAX];
	struct xl_config cfg;
	int ret;

	if (need_privileges())
		return -1;
	if (xl_config_load(o->config, true, &cfg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	/* host mode has no neighbours or uplinks to watch */
	ret = xl_load(&cfg, o->instance, !o->no_watch && cfg.mode == XL_MODE_LEAF);
	if (!ret)
		printf("xdpleaf: instance '%s' loaded on %d ports\n",
		       o->instance, cfg.n_ports);
	xl_config_free(&cfg);
	return ret;
}

static int cmd_check(const struct opts *o)
{
	char err[XL_ERR_MAX];
	struct xl_config cfg;

	if (xl_config_load(o->config, true, &cfg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	printf("%s: ok (%d ports, %d groups, %d routes)\n", o->config,
	       cfg.n_ports, cfg.n_groups, cfg.n_routes);
	xl_config_free(&cfg);
	return 0;
}

static int cmd_unload(const struct opts *o)
{
	if (need_privileges())
		return -1;
	return xl_unload(o->instance);
}

/* Commands about forwarding state, which a host instance does not keep. */
static int leaf_only(const char *instance, const char *cmd)
{
	if (xl_instance_mode(instance) != XL_INST_HOST)
		return 0;
	fprintf(stderr, "xdpleaf %s: instance '%s' is in host mode, which keeps "
			"no %s; see 'xdpleaf qps' and 'xdpleaf stats'\n", cmd,
		instance, !strcmp(cmd, "flows") ? "flow table" : "neighbours or uplinks");
	return -1;
}

static int cmd_watch(const struct opts *o)
{
	if (need_privileges() || xl_ensure_bpffs())
		return -1;
	if (!xl_instance_exists(o->instance)) {
		fprintf(stderr, "xdpleaf: instance '%s' is not loaded\n",
			o->instance);
		return -1;
	}
	if (leaf_only(o->instance, "watch"))
		return -1;
	return xl_watcher_run(o->instance, o->replace);
}

/* Read commands open pinned maps, which needs the same privileges. */
#define READ_CMD(fn, show)                                  \
	static int fn(const struct opts *o)                 \
	{                                                   \
		if (need_privileges() || xl_ensure_bpffs()) \
			return -1;                          \
		return show(o->instance, o->json);          \
	}
READ_CMD(cmd_status, xl_show_status)
READ_CMD(cmd_stats, xl_show_stats)
READ_CMD(cmd_routes, xl_show_routes)
READ_CMD(cmd_neigh, xl_show_neigh)

static int cmd_flows(const struct opts *o)
{
	if (need_privileges() || xl_ensure_bpffs() ||
	    leaf_only(o->instance, "flows"))
		return -1;
	return xl_show_flows(o->instance, o->top, o->json);
}

/* Host mode's per-QP DCQCN state (user/host_show.c). */
static int cmd_qps(const struct opts *o)
{
	if (need_privileges() || xl_ensure_bpffs())
		return -1;
	return xl_show_qps(o->instance, o->top, o->json);
}

static const struct command commands[] = {
	{ "load", cmd_load, "--config FILE [--instance NAME] [--no-watch]",
	  "validate FILE, attach (leaf: XDP on its ports and the netlink "
	  "watcher; host: the DCQCN tc programs), pin state",
	  .needs_config = true,
	  .notes = "A port another program holds is refused with its holder: "
		   "an xdpleaf instance\n(and its unload line), or another "
		   "program and how to detach it." },
	{ "unload", cmd_unload, "[--instance NAME]",
	  "detach and remove everything of the instance (idempotent)",
	  .notes = "Exits 0, saying so, when there is nothing to unload. Works "
		   "from any network\nnamespace: the pins are the same in all." },
	{ "check", cmd_check, "--config FILE",
	  "validate FILE (and that its interfaces exist) without loading",
	  .needs_config = true },
	{ "status", cmd_status, "[--instance NAME] [--json]",
	  "whether the instance is loaded, attached ports, watcher",
	  .has_json = true, .netns_bound = true,
	  .notes = "Exit status: 0 loaded, 3 not loaded, 1 error, including "
		   "running it in another\nnetwork namespace than the one the "
		   "instance was loaded in (it prints the\nnsenter line to "
		   "use), 2 bad usage. --json also has this xdpleaf's version "
		   "and\ngit_commit, and loaded_by and netns of the instance." },
	{ "stats", cmd_stats, "[--instance NAME] [--json]",
	  "leaf: per-port packet, byte, verdict, reason and queue counters; "
	  "host: DCQCN counters", .has_json = true },
	{ "routes", cmd_routes, "[--instance NAME] [--json]",
	  "the routes the dataplane forwards by", .has_json = true,
	  .notes = "A route's target is a port or an uplink group, by name; "
		   "--json adds the map's\nkey (ifindex or group_id)." },
	{ "neigh", cmd_neigh, "[--instance NAME] [--json]",
	  "next-hop MACs learned from the kernel's neighbour table",
	  .has_json = true },
	{ "flows", cmd_flows, "[--instance NAME] [--top N] [--json]",
	  "flows by rate, with their uplink, flowlets and moves",
	  .has_json = true },
	{ "qps", cmd_qps, "[--instance NAME] [--top N] [--json]",
	  "host mode: DCQCN state per QP, NP (most CE first) and RP (lowest "
	  "rate first)", .has_json = true, .netns_bound = true },
	{ "watch", cmd_watch, "[--instance NAME] [--replace]",
	  "run the netlink watcher (neighbours, uplink links) in the "
	  "foreground (load starts one)", .netns_bound = true,
	  .notes = "For a service manager, after load --no-watch. While "
		   "another watcher of the\ninstance runs (e.g. the one load "
		   "started), watch refuses and names its pid;\n--replace stops "
		   "it and takes its place. Runs until the instance is unloaded."
		   },
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: xdpleaf COMMAND [OPTIONS]\n\n"
		   "An XDP leaf-switch dataplane. Commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-8s %s\n", "sim", "run the dataplane's algorithms offline "
		   "('xdpleaf sim --help')");
	fprintf(f, "  %-8s %s\n", "gen", "send RoCEv2 traffic ('xdpleaf gen --help')");
	fprintf(f, "  %-8s %s\n", "sink", "count received RoCEv2 traffic per QP "
		   "('xdpleaf sink --help')");
	fprintf(f, "\n'xdpleaf COMMAND --help' for a command's options. The "
		   "default instance is 'default'.\nRun it in the network "
		   "namespace of the ports: nsenter --net=/run/netns/NS xdpleaf "
		   "... (not 'ip netns exec', which hides /sys/fs/bpf).\nstatus, "
		   "qps and watch run in another one refuse and print that line.\n"
		   "Exit status: 0 done, 1 error, 2 bad usage, 3 not loaded "
		   "(status).\n'xdpleaf --version': the version and git commit "
		   "it was built from.\n");
}

static void command_usage(FILE *f, const struct command *c)
{
	fprintf(f, "usage: xdpleaf %s %s\n\n%s.\n\n", c->name, c->args,
		c->summary);
	if (c->notes)
		fprintf(f, "%s\n\n", c->notes);
	if (c->needs_config)
		fprintf(f, "  -c, --config FILE    configuration file "
			   "(docs/config.md)\n");
	if (strstr(c->args, "--instance"))
		fprintf(f, "  -i, --instance NAME  instance name, "
			   "[A-Za-z0-9_-] (default: default)\n");
	if (c->has_json)
		fprintf(f, "  -j, --json           print JSON\n");
	if (strstr(c->args, "--top") && c->run == cmd_qps)
		fprintf(f, "  -n, --top N          only the first N flows of each "
			   "table (NP, RP)\n");
	else if (strstr(c->args, "--top"))
		fprintf(f, "  -n, --top N          only the N busiest flows\n");
	if (strstr(c->args, "--no-watch"))
		fprintf(f, "      --no-watch       do not start the neighbour "
			   "watcher\n");
	if (strstr(c->args, "--replace"))
		fprintf(f, "      --replace        stop the running watcher "
			   "(e.g. load's) and take its place\n");
	fprintf(f, "  -h, --help           this text\n");
}

static int parse_opts(const struct command *c, int argc, char **argv,
		      struct opts *o)
{
	static const struct option long_opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "instance", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-watch", no_argument, NULL, 'W' },
		{ "replace", no_argument, NULL, 'R' },
		{ "top", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "c:i:jn:h", long_opts, NULL)) != -1) {
		switch (ch) {
		case 'c': o->config = optarg; break;
		case 'i': o->instance = optarg; break;
		case 'j': o->json = true; break;
		case 'W': o->no_watch = true; break;
		case 'R': o->replace = true; break;
		case 'n': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || v < 1 || v > 1000000) {
				fprintf(stderr, "xdpleaf %s: --top wants a number 1..1000000\n",
					c->name);
				return -1;
			}
			o->top = (int)v;
			break;
		}
		case 'h': command_usage(stdout, c); exit(0);
		default: command_usage(stderr, c); return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "xdpleaf %s: unexpected argument '%s'\n",
			c->name, argv[optind]);
		return -1;
	}
	/* Options a command does not take are errors, not silently ignored. */
	if ((o->json && !c->has_json) || (o->config && !c->needs_config) ||
	    (o->no_watch && !strstr(c->args, "--no-watch")) ||
	    (o->replace && !strstr(c->args, "--replace")) ||
	    (o->top && !strstr(c->args, "--top")) ||
	    (o->instance && !strstr(c->args, "--instance"))) {
		fprintf(stderr, "xdpleaf %s: option not supported here\n",
			c->name);
		command_usage(stderr, c);
		return -1;
	}
	if (c->needs_config && !o->config) {
		fprintf(stderr, "xdpleaf %s: --config FILE is required\n", c->name);
		return -1;
	}
	if (!o->instance)
		o->instance = "default";
	if (!xl_instance_name_ok(o->instance)) {
		fprintf(stderr, "xdpleaf: bad instance name '%s': use 1-31 of "
				"[A-Za-z0-9_-]\n", o->instance);
		return -1;
	}
	return 0;
}

static int quiet_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG && !getenv("XDPLEAF_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int main(int argc, char **argv)
{
	struct opts o = {};
	int ret;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("xdpleaf %s (git %s)\n", xl_version, xl_git_commit);
		return 0;
	}
	libbpf_set_print(quiet_libbpf);
	/* sim takes its own options per model and needs no privileges. */
	if (!strcmp(argv[1], "sim"))
		return xl_sim_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "gen"))
		return xl_gen_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "sink"))
		return xl_sink_main(argc - 1, argv + 1);
	for (size_t i = 0; i < N_COMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		if (parse_opts(&commands[i], argc - 1, argv + 1, &o))
			return 2;
		if (commands[i].netns_bound &&
		    xl_netns_check(o.instance, commands[i].name, argc, argv))
			return 1;
		ret = commands[i].run(&o);
		return ret == XL_EXIT_NOT_LOADED ? ret : ret ? 1 : 0;
	}
	fprintf(stderr, "xdpleaf: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
