// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xdpleaf: load, inspect and unload the XDP leaf dataplane. One table of
 * subcommands; each parses its own options and has its own --help. */
#include <errno.h>
#include <getopt.h> /* optarg, optind */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "base/cli.h"
#include "config/config.h"
#include "config/config_keys.h"
#include "leaf/loader.h"
#include "host/loader.h"
#include "instance/attach.h"
#include "instance/netns.h"
#include "base/output.h"
#include "instance/status.h"
#include "instance/pins.h"
#include "leaf/show.h"
#include "host/show.h"
#include "leaf/flows.h"
#include "leaf/upgrade.h"
#include "leaf/reload.h"
#include "host/reload.h"
#include "host/upgrade.h"
#include "instance/readers.h"
#include "sim/sim.h"
#include "events/events.h"
#include "traffic/traffic.h"
#include "instance/tcx_link.h"
#include "base/version.h"
#include "instance/daemon.h"
#include "instance/inst_lock.h"
#include "instance/heartbeat.h"
#include "base/log.h"
#include "leaf/netlink_watch.h"
#include "host/addr_watch.h"
#include "observe/exporter.h"
#include "views/top.h"
#include "base/completion.h"

/* The state readers of both modes, for the rooms that present it in other
 * forms (instance/readers.h). */
static const struct xl_readers readers = {
	.leaf_stats = xl_leaf_stats_json,
	.leaf_stats_no_flow_table = xl_leaf_stats_no_flow_table_json,
	.leaf_flows = xl_leaf_flows_json,
	.host_stats = xl_host_stats_json,
	.host_qps = xl_host_qps_json,
};

struct opts {
	const char *instance;
	const char *config;
	bool json;
	bool no_daemon;
	bool replace; /* daemon: stop a running daemon and take over */
	enum xl_log_level log_level; /* daemon */
	int top;      /* flows: show the N busiest, 0 = all */
	unsigned interval_ms; /* flows: rates over this long */
};

/* Options several commands take, written once. */
enum { OPT_NO_DAEMON = 256, OPT_REPLACE, OPT_INTERVAL, OPT_LOG_LEVEL };
#define O_CONFIG XL_OPT_REQUIRED("config", 'c', "FILE", "configuration file (docs/config.md)")
#define O_INSTANCE XL_OPT("instance", 'i', "NAME", "instance name, [A-Za-z0-9_-] (default: default)")
#define O_JSON XL_OPT("json", 'j', NULL, "print JSON")

/* One row per command, sim, gen and sink included. */
struct command {
	const char *name;
	const char *summary;
	const char *notes;   /* more for --help, or NULL */
	const struct xl_opt *opts; /* what it takes; --help is made from it */
	/* a command with its own argv (sim, gen, sink: their options and
	 * --help are tables of their own, named in opts for completion) */
	int (*own_argv)(int argc, char **argv);
	const struct xl_cli_cmd *subs; /* the words after it (sim's models) */
	/* a command that needs no loaded instance (load, unload, check) */
	int (*run)(const struct opts *o);
	/* Reads or acts on the instance's interfaces, which only its own
	 * network namespace sees (user/instance/netns.h): refused elsewhere. */
	bool netns_bound;
	/* Changes the instance: runs holding its lock (instance/inst_lock.h),
	 * so that no other such command sees it half made or half gone. */
	bool exclusive;
	/* A command about a loaded instance (run is NULL): each mode's own,
	 * NULL where a mode keeps nothing of the kind (wrong_mode()). */
	int (*leaf)(const struct opts *o);
	int (*host)(const struct opts *o);
	const char *what; /* what the mode without it lacks, for wrong_mode() */
};

static int need_privileges(void)
{
	if (xl_traffic_privileged())
		return 0;
	fprintf(stderr, "xdpleaf: needs root, or CAP_BPF and CAP_NET_ADMIN "
			"(try: sudo xdpleaf ...)\n");
	return -1;
}

/* The exporter reads both modes' state through readers. */
static int exporter_main(int argc, char **argv)
{
	return xl_exporter_main(argc, argv, &readers, need_privileges);
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
	xl_config_warn(&cfg, o->config, stderr);
	/* the mode comes from the config here; everywhere else from the pins */
	if (cfg.node_role == XL_NODE_HOST)
		ret = xl_host_load(&cfg, o->instance);
	else
		ret = xl_leaf_load(&cfg, o->instance);
	/* Started once the loader's fds are closed, so the daemon never holds
	 * a link that unload must be able to drop. All or nothing: without
	 * the daemon it asked for, the instance is not left loaded. */
	if (!ret && !o->no_daemon &&
	    xl_daemon_start(o->instance, cfg.node_role == XL_NODE_HOST ? xl_host_watch : xl_watch)) {
		xl_unload(o->instance);
		ret = -1;
	}
	if (!ret)
		printf("xdpleaf: instance '%s' loaded on %d ports%s\n", o->instance,
		       cfg.n_ports, cfg.node_role == XL_NODE_HOST ? "" :
		       xl_tcx_ingress_pinned(o->instance) ? " at tc" : " at xdp");
	xl_config_free(&cfg);
	return ret;
}

/* reload: the file validated whole (interfaces too) before anything is
 * written; its mode must be the instance's. */
static int reload_with(const struct opts *o, bool host)
{
	char err[XL_ERR_MAX];
	struct xl_config cfg;
	int ret;

	if (xl_config_load(o->config, true, &cfg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if ((cfg.node_role == XL_NODE_HOST) != host) {
		fprintf(stderr, "xdpleaf reload: %s is a %s-mode file, instance '%s' is in "
			"%s mode: unload and load to change the mode\n", o->config,
			cfg.node_role == XL_NODE_HOST ? "host" : "leaf", o->instance,
			host ? "host" : "leaf");
		xl_config_free(&cfg);
		return -1;
	}
	xl_config_warn(&cfg, o->config, stderr);
	ret = host ? xl_host_reload(&cfg, o->instance) : xl_leaf_reload(&cfg, o->instance);
	if (!ret)
		printf("xdpleaf: instance '%s' reloaded from %s (counters, flows and "
		       "programs kept)\n", o->instance, o->config);
	xl_config_free(&cfg);
	return ret;
}

static int leaf_reload(const struct opts *o) { return reload_with(o, false); }
static int host_reload(const struct opts *o) { return reload_with(o, true); }

static int cmd_check(const struct opts *o)
{
	char err[XL_ERR_MAX];
	struct xl_config cfg;

	if (xl_config_load(o->config, true, &cfg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	xl_config_warn(&cfg, o->config, stderr);
	printf("%s: ok (%d ports, %d groups, %d routes)\n", o->config,
	       cfg.n_ports, cfg.n_groups, cfg.n_routes);
	xl_config_free(&cfg);
	return 0;
}

static int cmd_keys(const struct opts *o)
{
	(void)o;
	xl_keys_print(stdout);
	return 0;
}

static int cmd_unload(const struct opts *o)
{
	if (need_privileges())
		return -1;
	xl_daemon_stop(o->instance);
	return xl_unload(o->instance);
}

/* The commands about a loaded instance: each mode's own code (user/leaf/,
 * user/host/), picked here and nowhere else by the instance's pins. */
/* status runs in the instance's namespace: the place to bring back a
 * daemon that died (systemd's Restart= does it for one it runs). */
static int leaf_status(const struct opts *o)
{
	xl_daemon_revive(o->instance, xl_watch);
	return xl_leaf_status(o->instance, o->json);
}
static int leaf_stats(const struct opts *o) { return xl_leaf_stats(o->instance, o->json); }
static int leaf_routes(const struct opts *o) { return xl_leaf_routes(o->instance, o->json); }
static int leaf_neigh(const struct opts *o) { return xl_leaf_neigh(o->instance, o->json); }
static int leaf_upgrade(const struct opts *o) { return xl_leaf_upgrade(o->instance); }
static int host_upgrade(const struct opts *o) { return xl_host_upgrade(o->instance); }

static int leaf_flows(const struct opts *o)
{
	return xl_leaf_flows(o->instance, o->top, o->interval_ms, o->json);
}
static int leaf_daemon(const struct opts *o)
{
	return xl_daemon_run(o->instance, o->replace, o->log_level, xl_watch);
}
static int host_daemon(const struct opts *o)
{
	return xl_daemon_run(o->instance, o->replace, o->log_level, xl_host_watch);
}
static int host_status(const struct opts *o)
{
	xl_daemon_revive(o->instance, xl_host_watch);
	return xl_host_status(o->instance, o->json);
}
static int host_stats(const struct opts *o) { return xl_host_stats(o->instance, o->json); }
static int host_qps(const struct opts *o) { return xl_host_qps(o->instance, o->top, o->json); }

/* top takes its own options (user/views/top.c) and the readers; it asks
 * for privileges after --help, which needs none. */
static int cmd_top(int argc, char **argv)
{
	return xl_top_main(argc, argv, &readers, need_privileges);
}

static const struct xl_opt load_opts[] = {
	O_CONFIG, O_INSTANCE,
	XL_OPT("no-daemon", OPT_NO_DAEMON, NULL, "do not start the instance's daemon "
	       "(run 'xdpleaf daemon' under a service manager instead)"),
	XL_OPT_HELP, XL_OPT_END
};
static const struct xl_opt instance_opts[] = { O_INSTANCE, XL_OPT_HELP, XL_OPT_END };
static const struct xl_opt load_opts_reload[] = { O_CONFIG, O_INSTANCE, XL_OPT_HELP, XL_OPT_END };
static const struct xl_opt config_opts[] = { O_CONFIG, XL_OPT_HELP, XL_OPT_END };
static const struct xl_opt help_only[] = { XL_OPT_HELP, XL_OPT_END };
static const struct xl_opt show_opts[] = { O_INSTANCE, O_JSON, XL_OPT_HELP, XL_OPT_END };
static const struct xl_opt flows_opts[] = {
	O_INSTANCE, XL_OPT("top", 'n', "N", "only the N busiest flows"),
	XL_OPT("interval", OPT_INTERVAL, "MS", "rates over MS milliseconds between two "
	       "reads (default 200; 0: the dataplane's last 10 ms window)"),
	O_JSON, XL_OPT_HELP, XL_OPT_END
};
static const struct xl_opt qps_opts[] = {
	O_INSTANCE, XL_OPT("top", 'n', "N", "only the first N flows of each table (NP, RP)"),
	O_JSON, XL_OPT_HELP, XL_OPT_END
};
static const struct xl_opt daemon_opts[] = {
	O_INSTANCE,
	XL_OPT("replace", OPT_REPLACE, NULL, "stop the running daemon (e.g. load's) and take its place"),
	XL_OPT("log-level", OPT_LOG_LEVEL, "LEVEL", "err, warn, info (default) or debug"),
	XL_OPT_HELP, XL_OPT_END
};

static int completion_main(int argc, char **argv);
static const struct xl_cli_cmd completion_shells[] = {
	{ "bash", "the bash completion script", NULL, NULL, NULL }, XL_CLI_END
};

static const struct command commands[] = {
	{ "load", "validate FILE, attach (leaf: at each port's XDP or tc ingress, "
		  "config `hook`, by default tc on veths and XDP elsewhere; host: the "
		  "DCQCN tc programs), pin state, start the instance's daemon",
	  .opts = load_opts, .run = cmd_load, .exclusive = true,
	  .notes = "A port another XDP program holds is refused with its holder: "
		   "an xdpleaf instance\n(and its unload line), or another "
		   "program and how to detach it. Warnings of the file\n"
		   "(FILE:LINE: warning: ..., as check prints them) go to stderr; "
		   "it loads all the same." },
	{ "unload", "detach and remove everything of the instance (idempotent)",
	  .opts = instance_opts, .run = cmd_unload, .exclusive = true,
	  .notes = "Exits 0, saying so, when there is nothing to unload. Works "
		   "from any network\nnamespace: the pins are the same in all." },
	{ "check", "validate FILE (and that its interfaces exist) without loading",
	  .opts = config_opts, .run = cmd_check,
	  .notes = "A setting that is valid but unlikely to do what was meant (a host port whose\n"
		   "rate is at most twice min_rate) is said on stderr, FILE:LINE: warning: ...,\n"
		   "as load and reload say it; the file is still ok (exit 0)." },
	{ "keys", "every configuration key by section: its default and values",
	  .opts = help_only, .run = cmd_keys,
	  .notes = "One markdown row per key, as docs/config.md's tables have them (a test\n"
		   "checks the docs against it): key, default (for [dcqcn] the paper and the\n"
		   "nvidia variant's), values." },
	{ "upgrade", "replace the instance's programs with this build's, keeping every "
		     "map (flows, rates, queues, counters)",
	  .opts = instance_opts, .leaf = leaf_upgrade, .host = host_upgrade,
	  .what = "programs", .exclusive = true,
	  .notes = "Each link switches atomically (bpf_link_update): no packet goes "
		   "unprocessed.\nA map whose layout this build changed is refused, by "
		   "name, before anything\nchanges (then unload and load). The daemon "
		   "runs on." },
	{ "reload", "apply a changed FILE to the running instance: routes, groups, "
		    "rates, classes, settings; counters and flows kept",
	  .opts = load_opts_reload, .netns_bound = true, .leaf = leaf_reload,
	  .host = host_reload, .what = "configuration", .exclusive = true,
	  .notes = "FILE is validated whole first: a refused file changes nothing. "
		   "Its ports must\nbe the loaded ones (same order and roles) and "
		   "flow_table_size the same;\nfor other changes unload and load. "
		   "Entries are rewritten one by one: a packet\nsees each entry old "
		   "or new; none is lost." },
	{ "status", "whether the instance is loaded, attached ports, its daemon "
		    "(started again if it died) and its heartbeat, its maps' kernel memory",
	  .opts = show_opts, .netns_bound = true, .leaf = leaf_status, .host = host_status,
	  .notes = "Exit status: 0 loaded, 3 not loaded, 4 loaded but its daemon "
		   "not responding (its\nprocess alive, its heartbeat older than "
		   XL_HEARTBEAT_LIMIT_TEXT ": stopped or hung), 1 error,\n"
		   "including running it in another network namespace than the "
		   "one the instance\nwas loaded in (it prints the nsenter line "
		   "to use), 2 bad usage. --json also has\nthis xdpleaf's version "
		   "and git_commit, and loaded_by and netns of the instance." },
	{ "stats", "leaf: per-port packet, byte, verdict, reason and queue counters; "
		   "host: DCQCN counters",
	  .opts = show_opts, .leaf = leaf_stats, .host = host_stats },
	{ "routes", "the routes the dataplane forwards by",
	  .opts = show_opts, .leaf = leaf_routes, .what = "routes",
	  .notes = "A route's target is a port or an uplink group, by name; "
		   "--json adds the map's\nkey (ifindex or group_id)." },
	{ "neigh", "next-hop MACs learned from the kernel's neighbour table",
	  .opts = show_opts, .leaf = leaf_neigh, .what = "neighbour table" },
	{ "flows", "flows by rate, with their uplink, flowlets and moves",
	  .opts = flows_opts, .leaf = leaf_flows, .what = "flow table" },
	{ "qps", "host mode: DCQCN state per QP, NP (most CE first) and RP (lowest "
		 "rate first)",
	  .opts = qps_opts, .netns_bound = true, .host = host_qps,
	  .what = "DCQCN state per QP" },
	{ "daemon", "run the instance's daemon in the foreground (load starts one "
		    "in the background)",
	  .opts = daemon_opts, .netns_bound = true, .leaf = leaf_daemon,
	  .host = host_daemon,
	  .notes = "Leaf: mirrors neighbours and uplinks' links, re-validates the "
		   "neighbours the\nfast path uses. Host: keeps the ports' addresses "
		   "(host_addrs) current. The\ndataplane forwards without it; a new "
		   "one adopts the pinned state. For a\nservice manager, after load "
		   "--no-daemon: the unit xdpleaf-daemon@NAME that\nmake install and "
		   "the Debian package install (docs/operations.md). While\nanother "
		   "daemon of the instance runs, it refuses and names its pid;\n"
		   "--replace stops it and takes its place. Logs to stderr, with the "
		   "syslog\npriority under systemd. Runs until the instance is unloaded." },
	{ "events", "stream drop, mark, CNP, PSN, move, link and PFC events "
		    "('xdpleaf events --help')", .own_argv = xl_events_main,
	  .opts = xl_events_opts },
	{ "exporter", "serve Prometheus metrics of the loaded instances over HTTP "
		      "('xdpleaf exporter --help')",
	  .own_argv = exporter_main, .opts = xl_exporter_opts },
	{ "top", "a live view of an instance, refreshed in place ('xdpleaf top --help')",
	  .own_argv = cmd_top, .opts = xl_top_opts },
	{ "sim", "run the dataplane's algorithms offline ('xdpleaf sim --help')",
	  .own_argv = xl_sim_main, .subs = xl_sim_models },
	{ "gen", "send RoCEv2 traffic ('xdpleaf gen --help')", .own_argv = xl_gen_main,
	  .opts = xl_gen_opts },
	{ "sink", "count received RoCEv2 traffic per QP ('xdpleaf sink --help')",
	  .own_argv = xl_sink_main, .opts = xl_sink_opts },
	{ "completion", "the bash completion script of these commands ('xdpleaf "
			"completion --help')",
	  .own_argv = completion_main, .subs = completion_shells },
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* `xdpleaf completion bash`: written from the table above, so it offers
 * exactly the commands, words and options there are. */
static int completion_main(int argc, char **argv)
{
	struct xl_cli_cmd cmds[N_COMMANDS + 1] = { XL_CLI_END };
	bool help = argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));

	if (argc != 2 || strcmp(argv[1], "bash")) {
		FILE *f = help ? stdout : stderr;

		if (argc == 2 && !help)
			fprintf(f, "xdpleaf completion: no completion for '%s': bash is "
				   "the shell there is one for\n", argv[1]);
		fprintf(f, "usage: xdpleaf completion bash\n\n"
			   "Writes the bash completion script of xdpleaf to stdout: its "
			   "commands, sim's\nmodels, each one's options and their values "
			   "(files, interfaces, loaded\ninstances, words such as "
			   "flowlet|hash), from the tables the commands parse\nwith. make "
			   "install installs it (share/bash-completion/completions/xdpleaf);"
			   "\nto try it in a shell: source <(xdpleaf completion bash)\n");
		return help ? 0 : 2;
	}
	for (size_t i = 0; i < N_COMMANDS; i++)
		cmds[i] = (struct xl_cli_cmd){ commands[i].name, commands[i].summary,
					       commands[i].opts, commands[i].subs, NULL };
	cmds[N_COMMANDS] = (struct xl_cli_cmd)XL_CLI_END;
	xl_completion_bash(stdout, "xdpleaf", cmds, XL_PIN_ROOT);
	return 0;
}

/* The one place that decides an instance's mode, from its pins. */
static int wrong_mode(const struct command *c, const char *instance,
		      enum xl_inst_role mode)
{
	bool host = mode == XL_INST_HOST;

	fprintf(stderr, "xdpleaf %s: instance '%s' is in %s mode (mode = %s), "
		"which keeps no %s: %s is for %s-mode instances (mode = %s). "
		"Commands for this instance:", c->name, instance,
		host ? "host" : "leaf", host ? "host" : "leaf", c->what, c->name,
		host ? "leaf" : "host", host ? "leaf" : "host");
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (host ? commands[i].host : commands[i].leaf)
			fprintf(stderr, " %s", commands[i].name);
	fprintf(stderr, "\n");
	return -1;
}

static int run_on_instance(const struct command *c, const struct opts *o)
{
	enum xl_inst_role mode;
	int (*fn)(const struct opts *o);

	/* pinned maps are opened with the same privileges as loading */
	if (need_privileges() || xl_ensure_bpffs() || xl_check_pin_dirs(o->instance))
		return -1;
	mode = xl_instance_role(o->instance);
	if (mode == XL_INST_ABSENT) {
		if (!strcmp(c->name, "status"))
			return xl_status_not_loaded(o->instance, o->json);
		fprintf(stderr, "xdpleaf %s: instance '%s' is not loaded\n",
			c->name, o->instance);
		return -1;
	}
	fn = mode == XL_INST_HOST ? c->host : c->leaf;
	return fn ? fn(o) : wrong_mode(c, o->instance, mode);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: xdpleaf COMMAND [OPTIONS]\n\n"
		   "An XDP leaf-switch dataplane. Commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'xdpleaf COMMAND --help' for a command's options. The "
		   "default instance is 'default'.\nRun it in the network "
		   "namespace of the ports: nsenter --net=/run/netns/NS xdpleaf "
		   "... (not 'ip netns exec', which hides /sys/fs/bpf).\nstatus, "
		   "qps, daemon and reload run in another one refuse and print that line.\n"
		   "Exit status: 0 done, 1 error, 2 bad usage, 3 not loaded "
		   "(status, events, top --once),\n4 daemon not responding (status).\n"
		   "'xdpleaf --version': the version and git commit it was built from.\n"
		   "load, unload, upgrade and reload of one instance run one "
		   "at a time; a second waits\nup to %d s for the first "
		   "(XDPLEAF_LOCK_WAIT=SECONDS).\n", XL_LOCK_WAIT_S);
}

static void command_usage(FILE *f, const struct command *c)
{
	char lock[256] = "";
	size_t len;
	char *intro;

	if (c->exclusive)
		snprintf(lock, sizeof(lock), "\n\nload, unload, upgrade and reload of one "
			 "instance run one at a time: while another\nruns, this one waits "
			 "for it, up to %d s (XDPLEAF_LOCK_WAIT=SECONDS), then fails naming\n"
			 "the instance and the other's pid and command line, having changed "
			 "nothing.", XL_LOCK_WAIT_S);
	/* as long as summary, notes and lock note are (a fixed buffer cut daemon's) */
	len = strlen(c->summary) + (c->notes ? strlen(c->notes) : 0) + strlen(lock) + 4;
	intro = malloc(len);
	if (!intro) {
		xl_opt_usage(f, c->name, c->opts, c->summary);
		return;
	}
	snprintf(intro, len, "%s.%s%s%s", c->summary, c->notes ? "\n\n" : "",
		 c->notes ? c->notes : "", lock);
	xl_opt_usage(f, c->name, c->opts, intro);
	free(intro);
}

static int parse_opts(const struct command *c, int argc, char **argv,
		      struct opts *o)
{
	struct xl_opt_parser p = { .opts = c->opts };
	int ch, err = 0;

	while (!err && (ch = xl_opt_next(&p, argc, argv)) != -1) {
		switch (ch) {
		case 'c': o->config = optarg; break;
		case 'i': o->instance = optarg; break;
		case 'j': o->json = true; break;
		case OPT_NO_DAEMON: o->no_daemon = true; break;
		case OPT_LOG_LEVEL:
			if (!xl_log_level_parse(optarg, &o->log_level)) {
				fprintf(stderr, "xdpleaf %s: --log-level wants err, warn, info "
					"or debug, not '%s'\n", c->name, optarg);
				err = -1;
			}
			break;
		case OPT_REPLACE: o->replace = true; break;
		case OPT_INTERVAL: {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 0 || v > 60000) {
				fprintf(stderr, "xdpleaf %s: --interval wants milliseconds 0..60000\n",
					c->name);
				err = -1;
			}
			o->interval_ms = (unsigned)v;
			break;
		}
		case 'n': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || v < 1 || v > 1000000) {
				fprintf(stderr, "xdpleaf %s: --top wants a number 1..1000000\n",
					c->name);
				err = -1;
			}
			o->top = (int)v;
			break;
		}
		case 'h': command_usage(stdout, c); xl_opt_free(&p); exit(0);
		default: /* getopt said which option */
			xl_opt_usage_line(stderr, c->name, c->opts);
			err = -1;
		}
	}
	xl_opt_free(&p);
	if (err)
		return -1;
	if (optind < argc) {
		fprintf(stderr, "xdpleaf %s: unexpected argument '%s'\n",
			c->name, argv[optind]);
		return -1;
	}
	for (const struct xl_opt *r = c->opts; r->name; r++)
		if (r->required && r->key == 'c' && !o->config) {
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
	char prog[64];
	int lock = -1;
	struct opts o = { .interval_ms = XL_FLOWS_DEFAULT_INTERVAL_MS, .log_level = XL_LOG_INFO };
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
	for (size_t i = 0; i < N_COMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		if (commands[i].own_argv)
			return commands[i].own_argv(argc - 1, argv + 1);
		/* getopt's messages name argv[0]: "xdpleaf CMD: ..." */
		snprintf(prog, sizeof(prog), "xdpleaf %s", argv[1]);
		argv[1] = prog;
		if (parse_opts(&commands[i], argc - 1, argv + 1, &o))
			return 2;
		argv[1] = (char *)commands[i].name; /* as typed, for the nsenter line */
		if (commands[i].netns_bound &&
		    xl_netns_check(o.instance, commands[i].name, argc, argv))
			return 1;
		/* held from before the command first looks at the pins until
		 * its changes are done */
		if (commands[i].exclusive &&
		    (need_privileges() || (lock = xl_inst_lock(o.instance, commands[i].name)) < 0))
			return 1;
		ret = commands[i].run ? commands[i].run(&o) :
					  run_on_instance(&commands[i], &o);
		xl_inst_unlock(lock, o.instance);
		return ret == XL_EXIT_NOT_LOADED || ret == XL_EXIT_DAEMON_STALE ? ret :
		       ret ? 1 : 0;
	}
	fprintf(stderr, "xdpleaf: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
