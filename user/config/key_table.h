/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The configuration's keys: one XL_KEY(ID, fields of struct xl_key_def)
 * each, in the order `xdpleaf keys`, docs/config.md and the "allowed:"
 * lists show them. Included twice, with no guard: by config_keys.h, which
 * makes enum xl_key_id of the IDs, and by config_keys.c, which makes the
 * table xl_keys[] of the fields (the names the fields use, CHOICES(),
 * CFG(), TO_GROUP() ..., the choice words and the ranges, are defined
 * there). struct xl_key_def (config_keys.h) says what each field does.
 *
 * A new key: its row here, its field in the section's struct
 * (config.h) and, if the dataplane reads it, in the map's struct
 * (include/) named by TO_*(); its row in docs/config.md
 * (tests/lab/docs_tables.bats compares), and for a [group] or [port]
 * key a map holds, its exporter gauge's row in docs/metrics.md (`xdpleaf
 * exporter --list-metrics` makes it); tests/unit/test_config.c's
 * table-driven tests check its range, default, map fill and JSON. */

/* [xdpleaf] */
XL_KEY(K_MODE, S_XDPLEAF, "mode", T_CHOICE, CHOICES(modes), CFG(node_role), .dflt = XL_NODE_LEAF)
XL_KEY(K_MALFORMED, S_XDPLEAF, "malformed", T_CHOICE, CHOICES(malformed), CFG(malformed),
       TO_SETTINGS(malformed), .dflt = XL_MALFORMED_PASS)
XL_KEY(K_XDP_MODE, S_XDPLEAF, "xdp_mode", T_CHOICE, CHOICES(xdp_modes), CFG(attach_mode),
       .dflt = XL_ATTACH_NATIVE)
XL_KEY(K_HOOK, S_XDPLEAF, "hook", T_CHOICE, CHOICES(hooks), CFG(hook), .dflt = XL_HOOK_AUTO)
XL_KEY(K_FLOW_TABLE_SIZE, S_XDPLEAF, "flow_table_size", T_COUNT, FLOW_TABLE_MIN, FLOW_TABLE_MAX,
       CFG(flow_table_size), .dflt = XL_FLOW_TABLE_SIZE,
       .doc_default = "`64K` (65536, `XL_FLOW_TABLE_SIZE`)",
       .doc_values = "1K..4M entries (1024..4194304)")
XL_KEY(K_EVENT_RATE, S_XDPLEAF, "event_rate", T_UINT, 0, 1000000, CFG(event_rate),
       TO_EVENT_CFG(rate), .dflt = XL_EVENT_RATE_DEFAULT,
       .doc_default = "`1000` (`XL_EVENT_RATE_DEFAULT`)",
       .doc_values = "0..1000000 events per second (0: no events)")
XL_KEY(K_MARK_EVENT_SAMPLE, S_XDPLEAF, "mark_event_sample", T_UINT, 1, 1000000,
       CFG(mark_event_sample), TO_EVENT_CFG(mark_sample), .dflt = XL_MARK_SAMPLE_DEFAULT,
       .doc_default = "`100` (`XL_MARK_SAMPLE_DEFAULT`)", .doc_values = "1..1000000")
XL_KEY(K_PFC_WATCHDOG, S_XDPLEAF, "pfc_watchdog", T_DURATION, 0, 10000000000ULL,
       CFG(pfc_watchdog_ns), TO_SETTINGS(pfc_watchdog_ns), .dflt = XL_PFC_WATCHDOG_DEFAULT_NS,
       .doc_default = "`200ms` (`XL_PFC_WATCHDOG_DEFAULT_NS`)",
       .doc_values = "a duration, `0ns` (off)..10s")

/* [port] */
XL_KEY(K_ROLE, S_PORT, "role", T_CHOICE, .choices = xl_role_names, .n_choices = 2, PORT(role),
       TO_PORT(role), .dflt = XL_ROLE_DOWNLINK)
XL_KEY(K_PGROUP, S_PORT, "group", T_SPECIAL, .flags = KF_LEAF_ONLY | KF_UPLINK_ONLY,
       .doc_default = "none", .doc_values = "a group name")
XL_KEY(K_NH4, S_PORT, "nexthop4", T_ADDR4, PORT(nexthop4),
       .flag_off = offsetof(struct xl_cfg_port, has_nexthop4), TO_PORT(nexthop4),
       TO_PORT_FLAG(has_nexthop4), .flags = KF_LEAF_ONLY | KF_UPLINK_ONLY, .doc_default = "none",
       .doc_values = "an IPv4 address (`a.b.c.d`)")
XL_KEY(K_NH6, S_PORT, "nexthop6", T_ADDR6, PORT(nexthop6),
       .flag_off = offsetof(struct xl_cfg_port, has_nexthop6), TO_PORT(nexthop6),
       TO_PORT_FLAG(has_nexthop6), .flags = KF_LEAF_ONLY | KF_UPLINK_ONLY, .doc_default = "none",
       .doc_values = "an IPv6 address")
XL_KEY(K_RATE, S_PORT, "rate", T_RATE, PORT(rate_bps), TO_PORT(line_rate_bps),
       .json = "line_rate_bps", .doc_default = "none (unlimited)", .doc_values = "1M..1600G bit/s")
XL_KEY(K_GAMMA, S_PORT, "gamma", T_GAMMA, PORT(gamma_ppm), TO_PORT(gamma_ppm), .dflt = 1000000,
       .json = "gamma_ppm", .flags = KF_LEAF_ONLY | KF_NEEDS_RATE, .doc_default = "`1`",
       .doc_values = "0 < gamma <= 1, at most 6 decimals")
/* the bulk guard's (docs/ecn.md): the loader writes the `guards` map,
 * only where the configuration has a latency class */
XL_KEY(K_BULK_GAMMA, S_PORT, "bulk_gamma", T_GAMMA, PORT(bulk_gamma_ppm),
       .dflt = XL_BULK_GAMMA_DEFAULT_PPM, .json = "bulk_gamma_ppm",
       .flags = KF_LEAF_ONLY | KF_NEEDS_RATE, .doc_default = "`0.95` (`XL_BULK_GAMMA_DEFAULT_PPM`)",
       .doc_values = "0 < bulk_gamma <= 1 (`1`: no guard), at most 6 decimals")
/* the map's buffer is the loader's: at least two of the port's frames */
XL_KEY(K_BUFFER, S_PORT, "buffer", T_BYTES, 2048, PORT(buffer_bytes), TO_PORT(buffer_bytes),
       .dflt = XL_DEFAULT_BUFFER, .json = "buffer_bytes",
       .flags = KF_LEAF_ONLY | KF_NEEDS_RATE | KF_LOADER_FILLS,
       .doc_default = "`1M` (1048576 bytes), or 2 ms of `rate` if that is less, "
		      "but at least two of the port's largest frames (MTU + 18 "
		      "bytes; `xl_default_buffer`, the loader)",
       .doc_values = "2K..256M bytes")
XL_KEY(K_OVERFLOW, S_PORT, "overflow", T_CHOICE, CHOICES(overflows), PORT(overflow),
       TO_PORT(overflow), .dflt = XL_OVERFLOW_DROP, .flags = KF_LEAF_ONLY | KF_NEEDS_RATE)
XL_KEY(K_LINE_OVERHEAD, S_PORT, "line_overhead", T_UINT, 0, 256, PORT(line_overhead),
       TO_PORT(line_overhead), .dflt = XL_DEFAULT_LINE_OVERHEAD, .json = "line_overhead_bytes",
       .flags = KF_LEAF_ONLY | KF_NEEDS_RATE,
       .doc_default = "`24` (`XL_DEFAULT_LINE_OVERHEAD`: Ethernet's "
		      "preamble and delimiter 8, FCS 4, inter-frame gap 12)",
       .doc_values = "0..256 bytes per frame, counted by the phantom "
		     "queue on top of the frame")
XL_KEY(K_VLANS, S_PORT, "vlans", T_SPECIAL, .flags = KF_LEAF_ONLY,
       .doc_default = "none (tagged frames go to the kernel; VID 0, "
		      "priority-tagged, is untagged)",
       .doc_values = "VLAN IDs 1-4094 and ranges, separated by spaces "
		     "and/or commas (`100 200-203`)")
XL_KEY(K_PSN_TRACKING, S_PORT, "psn_tracking", T_YES_NO, PORT(psn_tracking), TO_PORT(psn_tracking),
       .dflt = 0, .flags = KF_LEAF_ONLY)

/* [group]: .lb_modes, the modes a key has an effect with (else it is an
 * error at the key, config_check.c) */
XL_KEY(K_LB_MODE, S_GROUP, "lb_mode", T_CHOICE, .choices = xl_lb_mode_names,
       .n_choices = XL_LB_MODES, GROUP(lb_mode), TO_GROUP(lb_mode), .dflt = XL_LB_HASH)
XL_KEY(K_FLOWLET_TIMEOUT, S_GROUP, "flowlet_timeout", T_DURATION, FLOWLET_TIMEOUT_MIN,
       FLOWLET_TIMEOUT_MAX, GROUP(flowlet_timeout_ns),
       .flag_off = offsetof(struct xl_cfg_group, flowlet_auto), TO_GROUP(flowlet_timeout_ns),
       TO_GROUP_FLAG(flowlet_auto), .dflt = XL_DEFAULT_FLOWLET_TIMEOUT_NS, .flags = KF_AUTO,
       .lb_modes = LB(FLOWLET) | LB(FLOWLET_RANDOM), .json = "flowlet_timeout_ns",
       .json_flag = "flowlet_timeout_auto",
       .doc_default = "`auto` = the longest of `50us` "
		      "(`XL_DEFAULT_FLOWLET_TIMEOUT_NS`), the time the "
		      "slowest member drains its whole buffer, and four of "
		      "the flow's own packet spacings",
       .doc_values = "`auto`, or a duration 1us..1s")
XL_KEY(K_PATH_SKEW, S_GROUP, "path_skew", T_DURATION, 0, PATH_SKEW_MAX, GROUP(path_skew_ns),
       .flag_off = offsetof(struct xl_cfg_group, path_skew_auto), TO_GROUP(path_skew_ns),
       .dflt = XL_DEFAULT_PATH_SKEW_NS, .flags = KF_AUTO | KF_U32 | KF_SAFE_MOVES,
       .lb_modes = LB(FLOWLET) | LB(FLOWLET_RANDOM) | LB(SPRAY), .json = "path_skew_ns",
       .doc_default = "`auto` = `25us` (`XL_DEFAULT_PATH_SKEW_NS`) plus two "
		      "full frames at the rate of the member moved to "
		      "(`xl_auto_skew_ns`)",
       .doc_values = "`auto`, or a duration 0ns..1s (used as it is, for every "
		     "member)")
XL_KEY(K_SPRAY_REORDER, S_GROUP, "spray_reorder", T_CHOICE, .choices = xl_spray_reorder_names,
       .n_choices = XL_SPRAY_REORDERS, GROUP(spray_reorder), TO_GROUP(spray_reorder),
       .dflt = XL_SPRAY_FREE, .lb_modes = LB(SPRAY), .flags = KF_JSON_IF_USED)

/* [route]: no default column in the docs */
XL_KEY(K_RPORT, S_ROUTE, "port", T_SPECIAL, .doc_values = "the IFNAME of a `[port]`")
XL_KEY(K_RGROUP, S_ROUTE, "group", T_SPECIAL, .doc_values = "the NAME of a `[group]`")

/* [class]: struct xl_wred is also the map's (struct xl_class's wred) */
XL_KEY(K_DSCP, S_CLASS, "dscp", T_SPECIAL, .doc_default = "none",
       .doc_values = "DSCP values 0-63, separated by spaces and/or commas "
		     "(`26 27`, `26, 27`)")
XL_KEY(K_KMIN, S_CLASS, "kmin", T_BYTES, 0, WRED(kmin), .dflt = XL_WRED_PAPER_KMIN,
       .doc_default = "`5K`", .doc_values = "0..256M bytes")
XL_KEY(K_KMAX, S_CLASS, "kmax", T_BYTES, 0, WRED(kmax), .dflt = XL_WRED_PAPER_KMAX,
       .doc_default = "`200K`", .doc_values = "0..256M bytes")
XL_KEY(K_PMAX, S_CLASS, "pmax", T_PMAX, WRED(pmax), .dflt = XL_WRED_PAPER_PMAX,
       .doc_default = "`1%`",
       .doc_values = "a fraction `0`..`1` (`0.01`) or a percentage `0%`..`100%` "
		     "(`1%`), at most 6 decimals")
XL_KEY(K_MARK, S_CLASS, "mark", T_NO_FLAG, XL_CLASS_NO_MARK, WRED(flags), .dflt = 1)
XL_KEY(K_DROP, S_CLASS, "drop", T_NO_FLAG, XL_CLASS_NO_DROP, WRED(flags), .dflt = 1)
XL_KEY(K_LATENCY, S_CLASS, "latency", T_FLAG, XL_CLASS_LATENCY, WRED(flags), .dflt = 0)

/* [dcqcn]: the NP's keys, then the RP's (inside struct xl_host_cfg's rp),
 * which is also the map's; defaults per variant (xl_host_defaults) */
XL_KEY(K_VARIANT, S_DCQCN, "variant", T_CHOICE, CHOICES(variants), HOST(rp.variant),
       .doc_default = "-", .doc_nvidia = "-", .doc_values = "`paper`, `nvidia` (default `paper`)")
XL_KEY(K_NP, S_DCQCN, "np", T_YES_NO, HOST(np_enabled), .doc_default = "`yes`")
XL_KEY(K_RP, S_DCQCN, "rp", T_YES_NO, HOST(rp_enabled), .doc_default = "`yes`",
       .doc_nvidia = "`yes`")
XL_KEY(K_CNP_INTERVAL, S_DCQCN, "cnp_interval", T_DURATION, CNP_INTERVAL_MIN, CNP_INTERVAL_MAX,
       HOST(cnp_interval_ns), .doc_default = "`50us` (`XL_CNP_INTERVAL_DEFAULT_NS`)",
       .doc_values = "a duration, 1us..1s")
XL_KEY(K_CNP_SCOPE, S_DCQCN, "cnp_scope", T_CHOICE, CHOICES(cnp_scopes), HOST(cnp_scope),
       .doc_default = "`qp`")
XL_KEY(K_CNP_DSCP, S_DCQCN, "cnp_dscp", T_UINT, 0, 63, HOST(cnp_dscp),
       .doc_default = "`48` (`XL_CNP_DSCP_DEFAULT`)", .doc_values = "0..63")
XL_KEY(K_CNP_PORT_RATE, S_DCQCN, "cnp_port_rate", T_UINT, 0, 100000000, HOST(cnp_port_rate),
       .doc_default = "`100000` (`XL_CNP_PORT_RATE_DEFAULT`)",
       .doc_values = "0 (no cap)..100000000 CNPs per second")
XL_KEY(K_G, S_DCQCN, "g", T_Q32, 0, 0, HOST(rp.g), .doc_default = "`1/256`",
       .doc_nvidia = "`5/1024`", .doc_values = "a fraction, 0 < g < 1")
XL_KEY(K_ALPHA_FIRST, S_DCQCN, "alpha_first", T_Q32, 0, 1, HOST(rp.alpha_first),
       .flags = KF_NVIDIA_ONLY, .doc_default = "-", .doc_nvidia = "`1023/1024`",
       .doc_values = "a fraction, 0 < alpha_first <= 1")
XL_KEY(K_K, S_DCQCN, "k", T_DURATION, DCQCN_TIMER_MIN, DCQCN_TIMER_MAX, HOST(rp.k_ns),
       .doc_default = "`55us`", .doc_nvidia = "`1us`", .doc_values = "a duration, 1ns..1s")
XL_KEY(K_T, S_DCQCN, "t", T_DURATION, DCQCN_T_MIN, DCQCN_TIMER_MAX, HOST(rp.t_ns),
       .doc_default = "`55us`", .doc_nvidia = "`300us`", .doc_values = "a duration, 2ns..1s")
XL_KEY(K_T_DEC, S_DCQCN, "t_dec", T_DURATION, DCQCN_TIMER_MIN, DCQCN_TIMER_MAX, HOST(rp.t_dec_ns),
       .flags = KF_NVIDIA_ONLY, .doc_default = "-", .doc_nvidia = "`4us`",
       .doc_values = "a duration, 1ns..1s")
XL_KEY(K_B, S_DCQCN, "b", T_DCQCN_B, HOST(rp.b_bytes), .flags = KF_PAPER_ONLY,
       .doc_default = "`10000000`", .doc_nvidia = "-",
       .doc_values = "bytes, a plain whole number 0..268435456 (no `K` or `M`)")
XL_KEY(K_F, S_DCQCN, "f", T_UINT, 1, DCQCN_F_MAX, HOST(rp.f), .doc_default = "`5`",
       .doc_nvidia = "`1`", .doc_values = "1..1000")
XL_KEY(K_CLAMP, S_DCQCN, "clamp", T_YES_NO, HOST(rp.clamp), .flags = KF_PAPER_ONLY,
       .doc_default = "`yes`", .doc_nvidia = "-")
XL_KEY(K_R_AI, S_DCQCN, "r_ai", T_RATE, HOST(rp.r_ai), .flags = KF_KEY_PREFIX,
       .doc_default = "`40M`", .doc_nvidia = "`5M`", .doc_values = "a rate, 1M..1600G")
XL_KEY(K_R_HAI, S_DCQCN, "r_hai", T_RATE, HOST(rp.r_hai), .flags = KF_KEY_PREFIX,
       .doc_default = "`200M`", .doc_nvidia = "`50M`", .doc_values = "a rate, 1M..1600G")
XL_KEY(K_MIN_RATE, S_DCQCN, "min_rate", T_RATE, HOST(rp.min_rate), .flags = KF_KEY_PREFIX,
       .doc_default = "`100M`", .doc_nvidia = "`1M`",
       .doc_values = "a rate, 1M..1600G, at most every port's `rate`")
