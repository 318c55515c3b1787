// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xdpleaf: load, inspect and unload the XDP leaf dataplane. One table of
 * commands (base/cli.h): each has its own options struct and table, from
 * which its parsing, --help and completion come, and one signature. */
#include <errno.h>
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
#include "instance/opt_instance.h"
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

static int need_privileges(void)
{
	if (xl_traffic_privileged())
		return 0;
	xl_err("needs root, or CAP_BPF and CAP_NET_ADMIN (try: sudo xdpleaf ...)");
	return -1;
}

/* The state readers of both roles, for the rooms that present it in other
 * forms (instance/readers.h): every command's context (xl_cmd_ctx.env). */
static const struct xl_readers readers = {
	.leaf_stats = xl_leaf_stats_json,
	.leaf_stats_no_flow_table = xl_leaf_stats_no_flow_table_json,
	.leaf_flows = xl_leaf_flows_json,
	.host_stats = xl_host_stats_json,
	.host_qps = xl_host_qps_json,
	.privileged = need_privileges,
};

/* The options of this file's commands, one struct per shape. Each starts
 * with the instance's name, which main() reads for the network namespace
 * check and the lock. */
struct config_opts { const char *instance, *config; bool no_daemon; }; /* load, reload, check */
struct show_opts { const char *instance; bool json; };
struct flows_opts { const char *instance; bool json; __u32 top, interval_ms; }; /* flows, qps */
struct daemon_opts { const char *instance; bool replace; enum xl_log_level log_level; };

static int log_level_opt(const char *v, void *field, char *err, size_t len)
{
	if (xl_log_level_parse(v, field))
		return 0;
	snprintf(err, len, "'%s' is not err, warn, info or debug", v);
	return -1;
}

/* Rows several tables share, written once. */
#define O_CONFIG { "config", 'c', XL_T_STR, XL_FIELD(struct config_opts, config), "FILE", \
		   "configuration file (docs/config.md)", .required = true }
#define O_INSTANCE(S) XL_OPT_INSTANCE(S, instance, "instance name, [A-Za-z0-9_-] (default: default)")
#define O_JSON(S) { "json", 'j', XL_T_FLAG, XL_FIELD(S, json), NULL, "print JSON" }

static const struct xl_opt load_opts[] = {
	O_CONFIG, O_INSTANCE(struct config_opts),
	{ "no-daemon", 0, XL_T_FLAG, XL_FIELD(struct config_opts, no_daemon), NULL,
	  "do not start the instance's daemon "
	  "(run 'xdpleaf daemon' under a service manager instead)" },
	XL_OPT_HELP, XL_OPT_END
};
static const struct xl_opt reload_opts[] = {
	O_CONFIG, O_INSTANCE(struct config_opts), XL_OPT_HELP, XL_OPT_END
};
static const struct xl_opt check_opts[] = { O_CONFIG, XL_OPT_HELP, XL_OPT_END };
static const struct xl_opt help_only[] = { XL_OPT_HELP, XL_OPT_END };
static const struct xl_opt instance_opts[] = {
	O_INSTANCE(struct show_opts), XL_OPT_HELP, XL_OPT_END
};
static const struct xl_opt show_opts[] = {
	O_INSTANCE(struct show_opts), O_JSON(struct show_opts), XL_OPT_HELP, XL_OPT_END
};
static const struct xl_opt flows_opts[] = {
	O_INSTANCE(struct flows_opts),
	{ "top", 'n', XL_T_UINT, XL_FIELD(struct flows_opts, top), "N", "only the N busiest flows",
	  .min = 1, .max = 1000000 },
	{ "interval", 0, XL_T_UINT, XL_FIELD(struct flows_opts, interval_ms), "MS",
	  "rates over MS milliseconds between two "
	  "reads (default 200; 0: the dataplane's last 10 ms window)", .max = 60000 },
	O_JSON(struct flows_opts), XL_OPT_HELP, XL_OPT_END
};
static const struct xl_opt qps_opts[] = {
	O_INSTANCE(struct flows_opts),
	{ "top", 'n', XL_T_UINT, XL_FIELD(struct flows_opts, top), "N",
	  "only the first N flows of each table (NP, RP)", .min = 1, .max = 1000000 },
	O_JSON(struct flows_opts), XL_OPT_HELP, XL_OPT_END
};
static const struct xl_opt daemon_opts[] = {
	O_INSTANCE(struct daemon_opts),
	{ "replace", 0, XL_T_FLAG, XL_FIELD(struct daemon_opts, replace), NULL,
	  "stop the running daemon (e.g. load's) and take its place" },
	{ "log-level", 0, XL_T_FUNC, XL_FIELD(struct daemon_opts, log_level), "err|warn|info|debug",
	  "err, warn, info (default) or debug", .parse = log_level_opt },
	XL_OPT_HELP, XL_OPT_END
};

static const struct config_opts config_defaults = { .instance = "default" };
static const struct show_opts show_defaults = { .instance = "default" };
static const struct flows_opts flows_defaults = {
	.instance = "default", .interval_ms = XL_FLOWS_DEFAULT_INTERVAL_MS
};
static const struct daemon_opts daemon_defaults = {
	.instance = "default", .log_level = XL_LOG_INFO
};
#define SHOW XL_CMD_OPTS(struct show_opts, &show_defaults)
#define CONFIG XL_CMD_OPTS(struct config_opts, &config_defaults)
#define FLOWS XL_CMD_OPTS(struct flows_opts, &flows_defaults)

static int cmd_load(const struct xl_cmd_ctx *ctx, void *opts)
{
	const struct config_opts *o = opts;
	char err[XL_ERR_MAX];
	struct xl_config cfg;
	bool host;
	int ret;

	(void)ctx;
	if (need_privileges())
		return -1;
	if (xl_config_load(o->config, true, &cfg, err, sizeof(err))) {
		xl_err_at(NULL, 0, "%s", err);
		return -1;
	}
	xl_config_warn(&cfg, o->config);
	/* the role comes from the config here; everywhere else from the pins */
	host = cfg.node_role == XL_NODE_HOST;
	ret = host ? xl_host_load(&cfg, o->instance) : xl_leaf_load(&cfg, o->instance);
	/* Started once the loader's fds are closed, so the daemon never holds
	 * a link that unload must be able to drop. All or nothing: without
	 * the daemon it asked for, the instance is not left loaded. */
	if (!ret && !o->no_daemon &&
	    xl_daemon_start(o->instance, host ? xl_host_watch : xl_watch)) {
		xl_unload(o->instance);
		ret = -1;
	}
	if (!ret)
		printf("xdpleaf: instance '%s' loaded on %d ports%s\n", o->instance,
		       cfg.n_ports, host ? "" :
		       xl_tcx_ingress_pinned(o->instance) ? " at tc" : " at xdp");
	xl_config_free(&cfg);
	return ret;
}

/* reload: the file validated whole (interfaces too) before anything is
 * written; its role must be the instance's. */
static int reload_with(const struct config_opts *o, bool host)
{
	char err[XL_ERR_MAX];
	struct xl_config cfg;
	int ret;

	if (xl_config_load(o->config, true, &cfg, err, sizeof(err))) {
		xl_err_at(NULL, 0, "%s", err);
		return -1;
	}
	if ((cfg.node_role == XL_NODE_HOST) != host) {
		xl_err("%s is a %s-mode file, instance '%s' is in "
		       "%s mode: unload and load to change the mode", o->config,
		       cfg.node_role == XL_NODE_HOST ? "host" : "leaf", o->instance,
		       host ? "host" : "leaf");
		xl_config_free(&cfg);
		return -1;
	}
	xl_config_warn(&cfg, o->config);
	ret = host ? xl_host_reload(&cfg, o->instance) : xl_leaf_reload(&cfg, o->instance);
	if (!ret)
		printf("xdpleaf: instance '%s' reloaded from %s (counters, flows and "
		       "programs kept)\n", o->instance, o->config);
	xl_config_free(&cfg);
	return ret;
}

static int cmd_check(const struct xl_cmd_ctx *ctx, void *opts)
{
	const struct config_opts *o = opts;
	char err[XL_ERR_MAX];
	struct xl_config cfg;

	(void)ctx;
	if (xl_config_load(o->config, true, &cfg, err, sizeof(err))) {
		xl_err_at(NULL, 0, "%s", err);
		return -1;
	}
	xl_config_warn(&cfg, o->config);
	printf("%s: ok (%d ports, %d groups, %d routes)\n", o->config,
	       cfg.n_ports, cfg.n_groups, cfg.n_routes);
	xl_config_free(&cfg);
	return 0;
}

static int cmd_keys(const struct xl_cmd_ctx *ctx, void *opts)
{
	(void)ctx;
	(void)opts;
	xl_keys_print(stdout);
	return 0;
}

static int cmd_unload(const struct xl_cmd_ctx *ctx, void *opts)
{
	const struct show_opts *o = opts;

	(void)ctx;
	if (need_privileges())
		return -1;
	xl_daemon_stop(o->instance);
	return xl_unload(o->instance);
}

/* The commands about a loaded instance: each role's own code (user/leaf/,
 * user/host/), picked by on_instance() from the instance's pins, called
 * with the options struct S of its command as o. */
#define ROLE_FN(fn, S, call) \
	static int fn(const struct xl_cmd_ctx *ctx, void *opts) \
	{ const S *o = opts; (void)ctx; return call; }
ROLE_FN(leaf_stats, struct show_opts, xl_leaf_stats(o->instance, o->json))
ROLE_FN(host_stats, struct show_opts, xl_host_stats(o->instance, o->json))
ROLE_FN(leaf_routes, struct show_opts, xl_leaf_routes(o->instance, o->json))
ROLE_FN(leaf_neigh, struct show_opts, xl_leaf_neigh(o->instance, o->json))
ROLE_FN(leaf_upgrade, struct show_opts, xl_leaf_upgrade(o->instance))
ROLE_FN(host_upgrade, struct show_opts, xl_host_upgrade(o->instance))
ROLE_FN(leaf_reload, struct config_opts, reload_with(o, false))
ROLE_FN(host_reload, struct config_opts, reload_with(o, true))
ROLE_FN(leaf_flows, struct flows_opts,
	xl_leaf_flows(o->instance, (int)o->top, o->interval_ms, o->json))
ROLE_FN(host_qps, struct flows_opts, xl_host_qps(o->instance, (int)o->top, o->json))
ROLE_FN(leaf_daemon, struct daemon_opts,
	xl_daemon_run(o->instance, o->replace, o->log_level, xl_watch))
ROLE_FN(host_daemon, struct daemon_opts,
	xl_daemon_run(o->instance, o->replace, o->log_level, xl_host_watch))
/* status runs in the instance's namespace: the place to bring back a
 * daemon that died (systemd's Restart= does it for one it runs). */
ROLE_FN(leaf_status, struct show_opts,
	(xl_daemon_revive(o->instance, xl_watch), xl_leaf_status(o->instance, o->json)))
ROLE_FN(host_status, struct show_opts,
	(xl_daemon_revive(o->instance, xl_host_watch), xl_host_status(o->instance, o->json)))

static xl_cmd_fn on_instance, completion_bash;

/* A row of the command table: the command (base/cli.h), and what main()
 * does around it. */
struct command {
	const struct xl_cmd *cmd;
	/* Reads or acts on the instance's interfaces, which only its own
	 * network namespace sees (user/instance/netns.h): refused elsewhere. */
	bool netns_bound;
	/* Changes the instance: runs holding its lock (instance/inst_lock.h),
	 * so that no other such command sees it half made or half gone. */
	bool exclusive;
	/* A command about a loaded instance (cmd's run is on_instance): each
	 * role's own, NULL where a role keeps nothing of the kind
	 * (wrong_role()); what: what the role without it lacks. */
	xl_cmd_fn *leaf, *host;
	const char *what;
};

/* --help's note of the commands that take the instance's lock */
#define STR_(x) #x
#define STR(x) STR_(x)
#define LOCK_NOTE "\n\nload, unload, upgrade and reload of one instance run one at a time: " \
	"while another\nruns, this one waits for it, up to " STR(XL_LOCK_WAIT_S) " s " \
	"(XDPLEAF_LOCK_WAIT=SECONDS), then fails naming\nthe instance and the other's pid " \
	"and command line, having changed nothing."
/* A command of this file: a row of its own (a compound literal). */
#define CMD(...) &(const struct xl_cmd){ __VA_ARGS__ }

static const struct xl_cmd *const completion_shells[] = {
	CMD(.name = "bash", .summary = "the bash completion script", .opts = help_only,
	    .run = completion_bash),
	NULL
};

static const struct command commands[] = {
	{ .cmd = CMD(.name = "load", .summary = "validate FILE, attach (leaf: at each port's XDP or tc "
	      "ingress, config `hook`, by default tc on veths and XDP elsewhere; host: the "
	      "DCQCN tc programs), pin state, start the instance's daemon",
	      .opts = load_opts, CONFIG, .run = cmd_load,
	      .notes = "A port another XDP program holds is refused with its holder: "
		       "an xdpleaf instance\n(and its unload line), or another "
		       "program and how to detach it. Warnings of the file\n"
		       "(FILE:LINE: warning: ..., as check prints them) go to stderr; "
		       "it loads all the same." LOCK_NOTE),
	  .exclusive = true },
	{ .cmd = CMD(.name = "unload", .summary = "detach and remove everything of the instance "
	      "(idempotent)", .opts = instance_opts, SHOW, .run = cmd_unload,
	      .notes = "Exits 0, saying so, when there is nothing to unload. Works "
		       "from any network\nnamespace: the pins are the same in all." LOCK_NOTE),
	  .exclusive = true },
	{ .cmd = CMD(.name = "check", .summary = "validate FILE (and that its interfaces exist) "
	      "without loading", .opts = check_opts, CONFIG, .run = cmd_check,
	      .notes = "A setting that is valid but unlikely to do what was meant (a host "
		       "port whose\nrate is at most twice min_rate) is said on stderr, "
		       "FILE:LINE: warning: ...,\nas load and reload say it; the file is "
		       "still ok (exit 0).") },
	{ .cmd = CMD(.name = "keys", .summary = "every configuration key by section: its default "
	      "and values", .opts = help_only, .run = cmd_keys,
	      .notes = "One markdown row per key, as docs/config.md's tables have them (a "
		       "test\nchecks the docs against it): key, default (for [dcqcn] the "
		       "paper and the\nnvidia variant's), values.") },
	{ .cmd = CMD(.name = "upgrade", .summary = "replace the instance's programs with this build's, "
	      "keeping every map (flows, rates, queues, counters)",
	      .opts = instance_opts, SHOW, .run = on_instance,
	      .notes = "Each link switches atomically (bpf_link_update): no packet goes "
		       "unprocessed.\nA map whose layout this build changed is refused, by "
		       "name, before anything\nchanges (then unload and load). The daemon "
		       "runs on." LOCK_NOTE),
	  .leaf = leaf_upgrade, .host = host_upgrade, .what = "programs", .exclusive = true },
	{ .cmd = CMD(.name = "reload", .summary = "apply a changed FILE to the running instance: "
	      "routes, groups, rates, classes, settings; counters and flows kept",
	      .opts = reload_opts, CONFIG, .run = on_instance,
	      .notes = "FILE is validated whole first: a refused file changes nothing. "
		       "Its ports must\nbe the loaded ones (same order and roles) and "
		       "flow_table_size the same;\nfor other changes unload and load. "
		       "Entries are rewritten one by one: a packet\nsees each entry old "
		       "or new; none is lost." LOCK_NOTE),
	  .netns_bound = true, .leaf = leaf_reload, .host = host_reload,
	  .what = "configuration", .exclusive = true },
	{ .cmd = CMD(.name = "status", .summary = "whether the instance is loaded, attached ports, "
	      "its daemon (started again if it died) and its heartbeat, its maps' kernel memory",
	      .opts = show_opts, SHOW, .run = on_instance,
	      .notes = "Exit status: 0 loaded, 3 not loaded, 4 loaded but its daemon "
		       "not responding (its\nprocess alive, its heartbeat older than "
		       XL_HEARTBEAT_LIMIT_TEXT ": stopped or hung), 1 error,\n"
		       "including running it in another network namespace than the "
		       "one the instance\nwas loaded in (it prints the nsenter line "
		       "to use), 2 bad usage. --json also has\nthis xdpleaf's version "
		       "and git_commit, and loaded_by and netns of the instance."),
	  .netns_bound = true, .leaf = leaf_status, .host = host_status },
	{ .cmd = CMD(.name = "stats", .summary = "leaf: per-port packet, byte, verdict, reason and "
	      "queue counters; host: DCQCN counters",
	      .opts = show_opts, SHOW, .run = on_instance),
	  .leaf = leaf_stats, .host = host_stats },
	{ .cmd = CMD(.name = "routes", .summary = "the routes the dataplane forwards by",
	      .opts = show_opts, SHOW, .run = on_instance,
	      .notes = "A route's target is a port or an uplink group, by name; "
		       "--json adds the map's\nkey (ifindex or group_id)."),
	  .leaf = leaf_routes, .what = "routes" },
	{ .cmd = CMD(.name = "neigh", .summary = "next-hop MACs learned from the kernel's neighbour "
	      "table", .opts = show_opts, SHOW, .run = on_instance),
	  .leaf = leaf_neigh, .what = "neighbour table" },
	{ .cmd = CMD(.name = "flows", .summary = "flows by rate, with their uplink, flowlets and moves",
	      .opts = flows_opts, FLOWS, .run = on_instance),
	  .leaf = leaf_flows, .what = "flow table" },
	{ .cmd = CMD(.name = "qps", .summary = "host mode: DCQCN state per QP, NP (most CE first) "
	      "and RP (lowest rate first)", .opts = qps_opts, FLOWS, .run = on_instance),
	  .netns_bound = true, .host = host_qps, .what = "DCQCN state per QP" },
	{ .cmd = CMD(.name = "daemon", .summary = "run the instance's daemon in the foreground (load "
	      "starts one in the background)",
	      .opts = daemon_opts, XL_CMD_OPTS(struct daemon_opts, &daemon_defaults),
	      .run = on_instance,
	      .notes = "Leaf: mirrors neighbours and uplinks' links, re-validates the "
		       "neighbours the\nfast path uses. Host: keeps the ports' addresses "
		       "(host_addrs) current. The\ndataplane forwards without it; a new "
		       "one adopts the pinned state. For a\nservice manager, after load "
		       "--no-daemon: the unit xdpleaf-daemon@NAME that\nmake install and "
		       "the Debian package install (docs/operations.md). While\nanother "
		       "daemon of the instance runs, it refuses and names its pid;\n"
		       "--replace stops it and takes its place. Logs to stderr, with the "
		       "syslog\npriority under systemd. Runs until the instance is unloaded."),
	  .netns_bound = true, .leaf = leaf_daemon, .host = host_daemon },
	{ .cmd = &xl_events_cmd },
	{ .cmd = &xl_exporter_cmd },
	{ .cmd = &xl_top_cmd },
	{ .cmd = &xl_sim_cmd },
	{ .cmd = &xl_gen_cmd },
	{ .cmd = &xl_sink_cmd },
	{ .cmd = CMD(.name = "completion", .summary = "the bash completion script of these commands "
	      "('xdpleaf completion --help')",
	      .intro = "Writes the bash completion script of xdpleaf to stdout: its "
		       "commands, sim's\nmodels, each one's options and their values "
		       "(files, interfaces, loaded\ninstances, words such as "
		       "flowlet|hash), from the tables the commands parse\nwith. make "
		       "install installs it (share/bash-completion/completions/xdpleaf);"
		       "\nto try it in a shell: source <(xdpleaf completion bash)\nShells:",
	      .subs = completion_shells, .sub_noun = "shell") },
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* `xdpleaf completion bash`: written from the table above, so it offers
 * exactly the commands, words and options there are. */
static int completion_bash(const struct xl_cmd_ctx *ctx, void *opts)
{
	const struct xl_cmd *cmds[N_COMMANDS + 1];

	(void)ctx;
	(void)opts;
	for (size_t i = 0; i < N_COMMANDS; i++)
		cmds[i] = commands[i].cmd;
	cmds[N_COMMANDS] = NULL;
	xl_completion_bash(stdout, "xdpleaf", cmds, XL_PIN_ROOT);
	return 0;
}

static const struct command *row_of(const struct xl_cmd *c)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i].cmd == c)
			return &commands[i];
	return NULL;
}

/* The one place that tells an instance's role, from its pins. */
static int wrong_role(const struct command *c, const char *instance, enum xl_inst_role role)
{
	bool host = role == XL_INST_HOST;
	const char *name = c->cmd->name;

	char list[512] = "";
	size_t len = 0;

	for (size_t i = 0; i < N_COMMANDS && len < sizeof(list); i++)
		if (host ? commands[i].host : commands[i].leaf)
			len += (size_t)snprintf(list + len, sizeof(list) - len, " %s",
						commands[i].cmd->name);
	xl_err("instance '%s' is in %s mode (mode = %s), which keeps no %s: %s is for "
	       "%s-mode instances (mode = %s). Commands for this instance:%s", instance,
	       host ? "host" : "leaf", host ? "host" : "leaf", c->what, name,
	       host ? "leaf" : "host", host ? "leaf" : "host", list);
	return -1;
}

/* The run of every command about a loaded instance: its row's leaf or
 * host function, by the instance's role. */
static int on_instance(const struct xl_cmd_ctx *ctx, void *opts)
{
	const struct command *c = row_of(ctx->cmd);
	const char *instance = *(const char *const *)opts;
	enum xl_inst_role role;
	xl_cmd_fn *fn;

	if (!c) { /* on_instance is the run of commands[]' rows only */
		xl_err("not a command about an instance");
		return -1;
	}
	/* pinned maps are opened with the same privileges as loading */
	if (need_privileges() || xl_ensure_bpffs() || xl_check_pin_dirs(instance))
		return -1;
	role = xl_instance_role(instance);
	if (role == XL_INST_ABSENT) {
		if (!strcmp(c->cmd->name, "status"))
			return xl_status_not_loaded(instance, ((const struct show_opts *)opts)->json);
		xl_err("instance '%s' is not loaded", instance);
		return -1;
	}
	fn = role == XL_INST_HOST ? c->host : c->leaf;
	return fn ? fn(ctx, opts) : wrong_role(c, instance, role);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: xdpleaf COMMAND [OPTIONS]\n\n"
		   "An XDP leaf-switch dataplane. Commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-11s %s\n", commands[i].cmd->name, commands[i].cmd->summary);
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

/* A command of the table: parse, then (netns_bound) refuse another
 * network namespace and (exclusive) take the instance's lock, run. */
static int run_command(const struct command *c, int argc, char **argv)
{
	struct xl_cmd_ctx ctx = { c->cmd, c->cmd->name, argc, argv, &readers };
	const char *instance;
	int lock = -1, ret;
	void *opts;

	if (c->cmd->subs || (!c->netns_bound && !c->exclusive))
		return xl_cmd_main(c->cmd, c->cmd->name, argc - 1, argv + 1, &ctx);
	opts = calloc(1, c->cmd->opts_size);
	if (!opts)
		return 1;
	ret = xl_cmd_parse(c->cmd, c->cmd->name, argc - 1, argv + 1, opts);
	if (ret) {
		free(opts);
		return ret == XL_PARSE_HELP ? 0 : 2;
	}
	instance = *(const char *const *)opts;
	/* held from before the command first looks at the pins until its
	 * changes are done */
	if ((c->netns_bound && xl_netns_check(instance, argc, argv)) ||
	    (c->exclusive && (need_privileges() ||
			      (lock = xl_inst_lock(instance)) < 0))) {
		free(opts);
		return 1;
	}
	ret = c->cmd->run(&ctx, opts);
	xl_inst_unlock(lock, instance);
	free(opts);
	return ret < 0 ? 1 : ret;
}

/* libbpf's messages ("libbpf: ...") as the command's or the daemon's */
static int libbpf_to_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	xl_vlog(level == LIBBPF_WARN ? XL_LOG_WARN :
		level == LIBBPF_INFO ? XL_LOG_INFO : XL_LOG_DEBUG, fmt, ap);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("xdpleaf %s (git %s)\n", xl_version, xl_git_commit);
		return 0;
	}
	libbpf_set_print(libbpf_to_log);
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].cmd->name))
			return run_command(&commands[i], argc, argv);
	xl_err("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}
