#!/usr/bin/env bats
# xdpleaf exporter (docs/metrics.md) against real instances: the lab's
# leaf1 with queues on s1 and the uplinks and traffic having run, and a
# pair of host-mode instances (P-h's h0 and P-p's p0 over one veth, as in
# host.bats) where the peer's RP has one throttled flow. One exporter
# serves all three for the file; the tests scrape it, check the text with
# promtool, scrape it with a real Prometheus, reload the leaf under it,
# and feed it bad options. Others hold 2,000 slow connections against
# it, and serve a leaf whose flow table holds a million flows.

# shellcheck disable=SC2154 # $stderr: set by run --separate-stderr
load helpers
bats_require_minimum_version 1.5.0 # run --separate-stderr

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	local tool
	for tool in curl promtool prometheus setpriv /usr/bin/python3; do
		command -v "$tool" >/dev/null || LAB_SKIP=${LAB_SKIP:-"$tool not installed (make deps)"}
	done
	[[ -z $LAB_SKIP ]] || return 0
	ensure_bpffs
	export P="xlt$$x"
	export IH="${P}h" IP="${P}p" # host-mode instances: NP on h0, RP on p0
	export NH="$P-h" NP="$P-p"
	# leaf1.conf with a line rate on s1 and the uplinks: their queues
	export CONF_X=$BATS_FILE_TMPDIR/leaf1-queues.conf
	# and a latency class, so the bulk guards on those ports are served too
	{
		sed -e '/^role = uplink/a rate = 1G' -e '/^\[port s1\]/a rate = 1G' \
			"$ROOT/lab/leaf1.conf"
		printf '\n[class inference]\ndscp = 18\nlatency = yes\n'
	} >"$CONF_X"
	"$LAB" up --prefix "$P" --config "$CONF_X" 3>&-
	warm_up "$P"
	# leaf traffic that crosses the uplinks (flows, queues, counters)
	in_ns "$P-s1" ping -q -f -c 500 "$(lab_receiver4 1)" >/dev/null
	host_pair_up
	start_exporter "$BATS_FILE_TMPDIR/exporter" --instance "$P" --instance "$IH" \
		--instance "$IP"
	export EXP_PORT EXP_PID
}

# P-h and P-p joined by h0/p0, both in host mode; the peer sends one
# RoCEv2 packet and then one CE-marked, so h0's NP sends a CNP and p0's RP
# cuts the flow's rate (host.bats's last test).
host_pair_up() {
	local hmac map tries=100 ns
	ip netns add "$NH"
	ip netns add "$NP"
	ip link add h0 netns "$NH" type veth peer name p0 netns "$NP"
	ip -n "$NH" addr add 10.77.0.1/24 dev h0
	ip -n "$NP" addr add 10.77.0.2/24 dev p0
	for ns in "$NH" "$NP"; do
		ip -n "$ns" link set lo up
	done
	ip -n "$NH" link set h0 up
	ip -n "$NP" link set p0 up
	hmac=$(ip -n "$NH" -j link show h0 | jq -r '.[0].address')
	printf '[xdpleaf]\nmode = host\n\n[port h0]\nrate = 100G\n' >"$BATS_FILE_TMPDIR/h.conf"
	printf '[xdpleaf]\nmode = host\n\n[port p0]\nrate = 100G\n' >"$BATS_FILE_TMPDIR/p.conf"
	in_ns "$NH" "$XDPLEAF" load --config "$BATS_FILE_TMPDIR/h.conf" --instance "$IH" >/dev/null
	in_ns "$NP" "$XDPLEAF" load --config "$BATS_FILE_TMPDIR/p.conf" --instance "$IP" >/dev/null
	map=/sys/fs/bpf/xdpleaf/$IP/rp_rates
	# Only the first send goes to the RP's rate map: gen accounts a send
	# after making it, and an account more than K (55 us) after the CNP
	# would run the RP's timers on (Rc recovers), so the rate read below
	# would not be the cut's. The first makes the flow known to the RP.
	in_ns "$NP" "$XDPLEAF" gen --dev p0 --dst 10.77.0.1 --gw-mac "$hmac" --count 1 \
		--afpacket --ecn ect0 --qp-base 0x100 --rate-map "$map" >/dev/null
	in_ns "$NP" "$XDPLEAF" gen --dev p0 --dst 10.77.0.1 --gw-mac "$hmac" --count 1 \
		--afpacket --ecn ce --qp-base 0x100 >/dev/null
	until [[ $("$XDPLEAF" stats --instance "$IP" --json | jq .counters.cnps_received) -ge 1 ]]; do
		((tries-- > 0)) || { echo "the peer's RP got no CNP" >&2; return 1; }
		sleep 0.05
	done
}

# start_exporter OUT ARGS...: xdpleaf exporter on a free loopback port in
# the background; EXP_PID and EXP_PORT once it says where it serves. Its
# pid goes to a file that teardown stops.
start_exporter() {
	local out=$1 tries=600 # the first read (a big table: seconds) comes first
	shift
	"$XDPLEAF" exporter --listen 127.0.0.1:0 "$@" >"$out.out" 2>"$out.err" 3>&- &
	EXP_PID=$!
	echo "$EXP_PID" >>"$BATS_FILE_TMPDIR/pids"
	until grep -q '^xdpleaf exporter: serving' "$out.out"; do
		((tries-- > 0)) || { cat "$out.err" >&2; return 1; }
		sleep 0.05
	done
	EXP_PORT=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' "$out.out")
	[[ -n $EXP_PORT ]]
}

setup() {
	require_lab
}

# What a test started in the background (its pids in the test's own
# file), and the million-flow leaf, go with the test, also on failure.
teardown() {
	local pid
	if [[ -e $BATS_TEST_TMPDIR/pids ]]; then
		while read -r pid; do
			kill "$pid" 2>/dev/null || true
		done <"$BATS_TEST_TMPDIR/pids"
	fi
	drop_million
}

drop_million() {
	[[ -n ${P-} && -e /run/netns/$P-m ]] || return 0
	in_ns "$P-m" "$XDPLEAF" unload --instance "${P}m" >/dev/null 2>&1 || true
	ip netns del "$P-m"
}

teardown_file() {
	[[ -n ${P-} ]] || return 0
	local pid
	if [[ -e $BATS_FILE_TMPDIR/pids ]]; then
		while read -r pid; do
			kill "$pid" 2>/dev/null || true
		done <"$BATS_FILE_TMPDIR/pids"
	fi
	drop_million
	[[ ! -e /run/netns/$NH ]] || in_ns "$NH" "$XDPLEAF" unload --instance "$IH" >/dev/null 2>&1 || true
	[[ ! -e /run/netns/$NP ]] || in_ns "$NP" "$XDPLEAF" unload --instance "$IP" >/dev/null 2>&1 || true
	ip netns del "$NH" 2>/dev/null || true
	ip netns del "$NP" 2>/dev/null || true
	"$LAB" down --prefix "$P" 3>&-
}

scrape() { # [port]
	curl -sf --max-time 10 "http://127.0.0.1:${1:-$EXP_PORT}/metrics"
}

# When the read a scrape's text comes from began (Unix time, seconds).
read_began() {
	sed -n 's/^xdpleaf_exporter_read_timestamp_seconds //p'
}

# scrape_read_after T [port]: a scrape whose read began after Unix time T
# (the exporter reads every second, a big table less often: up to 30 s).
scrape_read_after() {
	local t=$1 m tries=300
	while ((tries-- > 0)); do
		m=$(scrape "${2:-$EXP_PORT}")
		if awk -v a="$(read_began <<<"$m")" -v t="$t" 'BEGIN { exit !(a > t) }'; then
			echo "$m"
			return 0
		fi
		sleep 0.1
	done
	echo "no read after $t" >&2
	return 1
}

# The metric family names a scrape serves, sorted.
served_names() {
	sed -n 's/^# TYPE \([^ ]*\) .*/\1/p' | sort
}

# The metric names docs/metrics.md's table lists, sorted.
documented_names() {
	# shellcheck disable=SC2016 # the backticks are Markdown's
	sed -n 's/^| `\(xdpleaf_[a-z0-9_]*\)` |.*/\1/p' "$ROOT/docs/metrics.md" | sort
}

# leaf1's s1 rx_packets now.
s1_rx() {
	"$XDPLEAF" stats --json --instance "$P" | jq '.ports[] | select(.name == "s1") | .rx_packets'
}

@test "exporter: promtool check metrics passes on the leaf after traffic and on host-mode instances" {
	local m key
	m=$(scrape)
	promtool check metrics <<<"$m"
	# the leaf: its traffic, queues, flows and uplinks are there
	grep -Eq "^xdpleaf_port_rx_packets_total\{instance=\"$P\",port=\"s1\",role=\"downlink\"\} [1-9][0-9]{2,}$" <<<"$m"
	grep -Eq "^xdpleaf_queue_enqueue_length_bytes_bucket\{instance=\"$P\",port=\"u[1-4]\",class=\"default\",le=\"\+Inf\"\} [1-9]" <<<"$m"
	grep -Eq "^xdpleaf_flow_bytes_total\{instance=\"$P\",src=\"10\.1\.1\.2\",dst=\"10\.2\.1\.2\",proto=\"1\"" <<<"$m"
	grep -q "^xdpleaf_group_info{instance=\"$P\",group=\"spine\",lb_mode=\"flowlet\"} 1$" <<<"$m"
	# the groups' and ports' settings, made from the key table: u1 at its
	# 1 Gbit/s (125,000,000 bytes/s), gamma 1, the loader's 250,000-byte
	# buffer, overflow drop; the group's auto path skew; each as stats --json
	# has it
	grep -q "^xdpleaf_port_info{instance=\"$P\",port=\"u1\",role=\"uplink\",overflow=\"drop\"} 1$" <<<"$m"
	grep -q "^xdpleaf_port_line_rate_bytes_per_second{instance=\"$P\",port=\"u1\",role=\"uplink\"} 125000000$" <<<"$m"
	grep -q "^xdpleaf_port_gamma_ratio{instance=\"$P\",port=\"u1\",role=\"uplink\"} 1$" <<<"$m"
	grep -q "^xdpleaf_port_buffer_bytes{instance=\"$P\",port=\"u1\",role=\"uplink\"} 250000$" <<<"$m"
	grep -q "^xdpleaf_port_psn_tracking{instance=\"$P\",port=\"s1\",role=\"downlink\"} [01]$" <<<"$m"
	key=$("$XDPLEAF" stats --json --instance "$P" | jq '.groups[0].path_skew_ns')
	((key > 0))
	sed -n "s/^xdpleaf_group_path_skew_seconds{instance=\"$P\",group=\"spine\"} //p" <<<"$m" |
		awk -v n="$key" '{ v = $1 } END { d = v * 1e9 - n; exit !(NR == 1 && d < 0.5 && d > -0.5) }'
	# each class's marking profile as the port applies it: at 1 Gbit/s the
	# default buffer is 2 ms, 250,000 bytes, so the roce class's Kmax of
	# 200 KiB is fitted to half of it (Kmin scaled alike); default's is not
	grep -q "^xdpleaf_queue_mark_min_bytes{instance=\"$P\",port=\"u1\",class=\"roce\"} 3125$" <<<"$m"
	grep -q "^xdpleaf_queue_mark_max_bytes{instance=\"$P\",port=\"u1\",class=\"roce\"} 125000$" <<<"$m"
	grep -q "^xdpleaf_queue_mark_max_bytes{instance=\"$P\",port=\"u1\",class=\"default\"} 204800$" <<<"$m"
	grep -Eq "^xdpleaf_queue_mark_max_probability\{instance=\"$P\",port=\"u1\",class=\"default\"\} 0\.01(0*[0-9]*)?$" <<<"$m"
	# the bulk guard's step at 0.95 x 1 Gbit/s: two 1,518-byte frames,
	# more than 20 us of its drain (2,375 bytes)
	grep -Eq "^xdpleaf_queue_guard_mark_bytes\{[^}]*port=\"u1\"[^}]*\} 3036$" <<<"$m"
	# each uplink's averages, the 10 ms one and the held load too, and
	# its flow count (stats --json rate_slow_bps, held_load_bps, flows)
	for key in u1 u2 u3 u4; do
		grep -Eq "^xdpleaf_uplink_slow_rate_bytes_per_second\{[^}]*port=\"$key\"[^}]*\} [0-9]" <<<"$m" ||
			{ echo "no slow rate for $key"; return 1; }
		grep -Eq "^xdpleaf_uplink_held_load_bytes_per_second\{[^}]*port=\"$key\"[^}]*\} [0-9]" <<<"$m" ||
			{ echo "no held load for $key"; return 1; }
		grep -Eq "^xdpleaf_uplink_flows\{[^}]*port=\"$key\"[^}]*\} [0-9]+$" <<<"$m" ||
			{ echo "no flow count for $key"; return 1; }
	done
	[[ $("$XDPLEAF" stats --json --instance "$P" |
		jq '[.ports[] | select(.role == "uplink") | has("rate_slow_bps") and has("held_load_bps") and has("flows")] | all') == true ]]
	grep -q "^xdpleaf_up{instance=\"$P\",mode=\"leaf\"} 1$" <<<"$m"
	# every reason stats --json names is a reason label
	for key in $("$XDPLEAF" stats --json --instance "$P" | jq -r '.ports[0].reasons | keys[]'); do
		grep -q "^xdpleaf_port_reason_packets_total{instance=\"$P\",port=\"[a-z0-9]*\",role=\"[a-z]*\",reason=\"$key\"} " <<<"$m" ||
			{ echo "reason $key not exported"; return 1; }
	done
	# the host pair: every counter of host stats --json, and the RP's flow
	for key in $("$XDPLEAF" stats --json --instance "$IP" | jq -r '.counters | keys[]'); do
		grep -q "^xdpleaf_host_${key}_total{instance=\"$IP\"} " <<<"$m" ||
			{ echo "host counter $key not exported"; return 1; }
	done
	grep -q "^xdpleaf_host_cnps_sent_total{instance=\"$IH\"} 1$" <<<"$m"
	grep -q "^xdpleaf_host_cnps_received_total{instance=\"$IP\"} 1$" <<<"$m"
	# 50 Gbit/s after the CNP (host.bats), in bytes per second
	grep -q "^xdpleaf_rp_current_rate_bytes_per_second{instance=\"$IP\",remote=\"10.77.0.1\",qp=\"256\"} 6250000000$" <<<"$m"
	grep -q "^xdpleaf_rp_published_rate_bytes_per_second{instance=\"$IP\",remote=\"10.77.0.1\",qp=\"256\"} 6250000000$" <<<"$m"
	grep -q "^xdpleaf_up{instance=\"$IH\",mode=\"host\"} 1$" <<<"$m"
	note "exporter: $(grep -vc '^#' <<<"$m") samples of $(served_names <<<"$m" | wc -l) families, promtool check metrics: ok"
}

# (docs/metrics.md's rows against --list-metrics: tests/lab/docs_tables.bats,
# no lab needed; this test checks what a scrape serves.)
@test "exporter: docs/metrics.md lists exactly the metrics served" {
	local served documented
	served=$(scrape | served_names)
	documented=$(documented_names)
	[[ -n $documented ]]
	diff <(echo "$documented") <(echo "$served") ||
		{ echo "< documented only, > served only"; return 1; }
}

@test "exporter: docs/prometheus.yml passes promtool; the dashboard is JSON and uses served metrics only" {
	local names n
	promtool check config "$ROOT/docs/prometheus.yml"
	jq -e '.panels | length > 0' "$ROOT/docs/grafana-dashboard.json" >/dev/null
	# shellcheck disable=SC2016 # the backticks are Markdown's
	names=$("$XDPLEAF" exporter --list-metrics | sed -n 's/^| `\([a-z0-9_]*\)` .*/\1/p')
	n=0
	# shellcheck disable=SC2013 # metric names: one word each
	for m in $(grep -oE 'xdpleaf_[a-z0-9_]+' "$ROOT/docs/grafana-dashboard.json" \
		"$ROOT/docs/prometheus.yml" | cut -d: -f2 | sort -u); do
		grep -qx "${m%_bucket}" <<<"$names" || grep -qx "${m%_count}" <<<"$names" ||
			{ echo "$m is no metric the exporter serves"; return 1; }
		n=$((n + 1))
	done
	((n >= 10))
}

@test "exporter: a real Prometheus scraping it sees the traffic, as stats --json counts it" {
	local dir=$BATS_TEST_TMPDIR port tries=300 before after_ping a b v q res
	port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	mkdir -p "$dir/tsdb"
	# honor_labels: the exporter's instance label (the xdpleaf instance)
	# stays instance instead of becoming exported_instance
	cat >"$dir/prometheus.yml" <<-EOF
		global:
		  scrape_interval: 1s
		scrape_configs:
		  - job_name: xdpleaf
		    honor_labels: true
		    static_configs:
		      - targets: ['127.0.0.1:$EXP_PORT']
	EOF
	prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/tsdb" \
		--web.listen-address="127.0.0.1:$port" --log.level=warn \
		>"$dir/prometheus.log" 2>&1 3>&- &
	echo $! >>"$BATS_FILE_TMPDIR/pids"
	until curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null; do
		((tries-- > 0)) || { cat "$dir/prometheus.log"; return 1; }
		sleep 0.1
	done
	before=$(s1_rx)
	in_ns "$P-s1" ping -q -f -c 1000 "$(lab_receiver4 1)" >/dev/null
	after_ping=$(s1_rx)
	((after_ping - before >= 1000))
	q="xdpleaf_port_rx_packets_total{instance=\"$P\",port=\"s1\"}"
	query() {
		curl -sfG --max-time 5 --data-urlencode "query=$q" "http://127.0.0.1:$port/api/v1/query"
	}
	# until a scrape after the ping has reached Prometheus
	tries=300
	until v=$(query | jq -r '.data.result[0].value[1] // 0') && ((v >= after_ping)); do
		((tries-- > 0)) || { echo "Prometheus has $v, stats said $after_ping"; cat "$dir/prometheus.log"; return 1; }
		sleep 0.1
	done
	# the value Prometheus holds lies between the maps read before and
	# after the query (it is one scrape old at most)
	a=$(s1_rx)
	res=$(query)
	b=$(s1_rx)
	v=$(jq -r '.data.result[0].value[1]' <<<"$res")
	echo "before the ping $before, after it $after_ping; maps $a, Prometheus $v, maps $b"
	((after_ping <= v && v <= b))
	((v - before >= 1000))
	note "Prometheus query $q: $(jq -c . <<<"$res")"
	note "s1 rx_packets: before ping $before, after $after_ping, maps around the query $a..$b, Prometheus $v"
}

@test "exporter: survives unload and load of the instance; a scrape after the next read serves the new one" {
	local m rx_old rx_new tries=100
	m=$(scrape)
	grep -q "^xdpleaf_up{instance=\"$P\",mode=\"leaf\"} 1$" <<<"$m"
	rx_old=$(sed -n "s/^xdpleaf_port_rx_packets_total{instance=\"$P\",port=\"s1\",role=\"downlink\"} //p" <<<"$m")
	((rx_old >= 500))
	in_ns "$P-leaf1" "$XDPLEAF" unload --instance "$P"
	m=$(scrape_read_after "$(date +%s.%N)")
	[[ $(grep -c "instance=\"$P\"" <<<"$m") -eq 0 ]]
	grep -q "^xdpleaf_up{instance=\"$IH\",mode=\"host\"} 1$" <<<"$m"
	in_ns "$P-leaf1" "$XDPLEAF" load --config "$CONF_X" --instance "$P"
	in_ns "$P-s1" ping -q -c 3 -i 0.2 "$(lab_receiver4 1)" >/dev/null || true
	m=$(scrape_read_after "$(date +%s.%N)")
	kill -0 "$EXP_PID" # the same exporter, never restarted
	grep -q "^xdpleaf_up{instance=\"$P\",mode=\"leaf\"} 1$" <<<"$m"
	rx_new=$(sed -n "s/^xdpleaf_port_rx_packets_total{instance=\"$P\",port=\"s1\",role=\"downlink\"} //p" <<<"$m")
	# new maps: counting from zero again, and counting
	((rx_new >= 3 && rx_new < rx_old))
	promtool check metrics <<<"$m"
	note "exporter across unload/load: s1 rx_packets $rx_old before, $rx_new after the reload"
}

@test "exporter: bad options, a port in use and no root are refused with a message; nothing changes" {
	run --separate-stderr "$XDPLEAF" exporter --listen nonsense
	[[ $status -eq 2 ]]
	grep -q "^xdpleaf exporter: --listen 'nonsense': want ADDR:PORT" <<<"$stderr"
	run --separate-stderr "$XDPLEAF" exporter --listen 127.0.0.1:99999
	[[ $status -eq 2 ]]
	grep -q "PORT 0..65535" <<<"$stderr"
	run --separate-stderr "$XDPLEAF" exporter --listen ::1:9435
	[[ $status -eq 2 ]]
	grep -q "IPv6 one in brackets" <<<"$stderr"
	run --separate-stderr "$XDPLEAF" exporter --top-flows 0
	[[ $status -eq 2 ]]
	grep -q "^xdpleaf exporter: --top-flows: 0 is out of range 1..100000$" <<<"$stderr"
	for bad in 99 60001; do
		run --separate-stderr "$XDPLEAF" exporter --interval "$bad"
		[[ $status -eq 2 ]]
		grep -q "^xdpleaf exporter: --interval: $bad is out of range 100..60000$" <<<"$stderr"
	done
	for bad in 1s ""; do
		run --separate-stderr "$XDPLEAF" exporter --interval "$bad"
		[[ $status -eq 2 ]]
		grep -q "^xdpleaf exporter: --interval: '$bad' is not a whole number$" <<<"$stderr"
	done
	run --separate-stderr "$XDPLEAF" exporter --instance 'bad/name'
	[[ $status -eq 2 ]]
	grep -q "bad instance name" <<<"$stderr"
	run --separate-stderr "$XDPLEAF" exporter --listen "127.0.0.1:$EXP_PORT"
	[[ $status -eq 1 ]]
	grep -q "cannot listen on 127.0.0.1:$EXP_PORT: Address already in use" <<<"$stderr"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$XDPLEAF" exporter --listen 127.0.0.1:0
	[[ $status -eq 1 ]]
	grep -q "needs root" <<<"$stderr"
	# the running exporter serves as before
	scrape | grep -q "^xdpleaf_up{instance=\"$P\",mode=\"leaf\"} 1$"
}

@test "exporter: with no instance loaded it serves build_info and its own read only; without --instance every one; IPv6; SIGINT and SIGTERM exit 0" {
	local m port pid
	start_exporter "$BATS_TEST_TMPDIR/none" --instance "${P}none"
	m=$(scrape "$EXP_PORT")
	promtool check metrics <<<"$m"
	[[ $(grep -vc '^#' <<<"$m") -eq 3 ]]
	grep -q '^xdpleaf_build_info{version="[^"]*",git_commit="[^"]*"} 1$' <<<"$m"
	grep -Eq '^xdpleaf_exporter_read_timestamp_seconds [0-9]+(\.[0-9]+)?$' <<<"$m"
	grep -Eq '^xdpleaf_exporter_read_duration_seconds [0-9]' <<<"$m"
	# the index points at /metrics
	curl -sf "http://127.0.0.1:$EXP_PORT/" | grep -q '/metrics'
	[[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$EXP_PORT/nope") == 404 ]]
	kill -INT "$EXP_PID"
	wait "$EXP_PID"
	grep -q "stopped by SIGINT" "$BATS_TEST_TMPDIR/none.out"
	# without --instance: every instance (others' too), on IPv6 loopback,
	# stopped by SIGTERM
	"$XDPLEAF" exporter --listen '[::1]:0' >"$BATS_TEST_TMPDIR/v6.out" 2>&1 3>&- &
	pid=$!
	echo "$pid" >>"$BATS_FILE_TMPDIR/pids"
	local tries=100
	until port=$(sed -n 's|.*http://\[::1\]:\([0-9]*\)/metrics.*|\1|p' "$BATS_TEST_TMPDIR/v6.out") && [[ -n $port ]]; do
		((tries-- > 0)) || { cat "$BATS_TEST_TMPDIR/v6.out"; return 1; }
		sleep 0.05
	done
	m=$(curl -sfg "http://[::1]:$port/metrics")
	grep -q "^xdpleaf_up{instance=\"$P\",mode=\"leaf\"} 1$" <<<"$m"
	grep -q "^xdpleaf_up{instance=\"$IH\",mode=\"host\"} 1$" <<<"$m"
	grep -q "^xdpleaf_up{instance=\"$IP\",mode=\"host\"} 1$" <<<"$m"
	kill -TERM "$pid"
	wait "$pid"
	grep -q "stopped by SIGTERM" "$BATS_TEST_TMPDIR/v6.out"
}

# slow_hold OUT N SRC...: slow_clients.py holds N connections to the
# exporter at EXP_PORT from the addresses SRC (in turn), adding a header
# line to each every second, for at most 60 s; in the background
# (SLOW_PID), its lines into OUT. Returns once the connections are made,
# with their number in CONNECTED.
slow_hold() {
	local out=$1 n=$2 tries=300
	shift 2
	/usr/bin/python3 "$ROOT/tests/lab/slow_clients.py" 127.0.0.1 "$EXP_PORT" "$n" 1 60 "$@" \
		>"$out" 2>&1 3>&- &
	SLOW_PID=$!
	echo "$SLOW_PID" >>"$BATS_TEST_TMPDIR/pids"
	until CONNECTED=$(sed -n 's/^connected //p' "$out") && [[ -n $CONNECTED ]]; do
		# shellcheck disable=SC2015 # either failing (out of tries, or the clients died) ends it
		((tries-- > 0)) && kill -0 "$SLOW_PID" 2>/dev/null || { cat "$out" >&2; return 1; }
		sleep 0.1
	done
}

# slow_open OUT: the connections the slow client still holds, as its next
# round (a second at most from now) finds them.
slow_open() {
	local out=$1 rounds tries=100
	rounds=$(grep -c '^round' "$out" || true)
	until (($(grep -c '^round' "$out" || true) > rounds)); do
		((tries-- > 0)) || { cat "$out" >&2; return 1; }
		sleep 0.05
	done
	sed -n 's/^round [0-9]*: open //p' "$out" | tail -1
}

# timed_scrape FILE: scrape into FILE; prints "CODE SECONDS".
timed_scrape() {
	curl -s -o "$1" --max-time 10 -w '%{http_code} %{time_total}' \
		"http://127.0.0.1:$EXP_PORT/metrics" || true
}

# The bound of the scrape tests, from the issue: a scrape answered within
# 1 s. A scrape copies the last read's text, a few ms here.
assert_fast_scrape() { # "CODE SECONDS"
	[[ ${1% *} == 200 ]] || { echo "scrape: HTTP ${1% *}"; return 1; }
	awk -v t="${1#* }" 'BEGIN { exit !(t < 1.0) }' || { echo "scrape took ${1#* } s"; return 1; }
}

# The exporter's stderr in FILE once the lines held back at the end of
# a storm are reported: every line shown, and how many it held back.
held_back() {
	sed -n 's/^xdpleaf exporter: \([0-9]*\) more lines\{0,1\} not shown.*/\1/p' "$1" |
		awk '{ s += $1 } END { print s + 0 }'
}

@test "exporter: 2,000 slow connections from 50 addresses are held open, a scrape is answered within 1 s meanwhile, and their end costs a few stderr lines" {
	local srcs=() i r max=0 open shown held tries=100
	start_exporter "$BATS_TEST_TMPDIR/exp" --instance "$P"
	echo "$EXP_PID" >>"$BATS_TEST_TMPDIR/pids"
	for i in $(seq 50); do srcs+=("127.1.0.$i"); done
	slow_hold "$BATS_TEST_TMPDIR/slow" 2000 "${srcs[@]}"
	((CONNECTED == 2000))
	for i in 1 2 3 4 5; do
		r=$(timed_scrape "$BATS_TEST_TMPDIR/m")
		assert_fast_scrape "$r"
		grep -q "^xdpleaf_up{instance=\"$P\",mode=\"leaf\"} 1$" "$BATS_TEST_TMPDIR/m"
		max=$(awk -v a="$max" -v b="${r#* }" 'BEGIN { print (b > a ? b : a) }')
	done
	# they were there all along: every one still open after the scrapes
	open=$(slow_open "$BATS_TEST_TMPDIR/slow")
	((open == 2000))
	kill "$SLOW_PID"
	wait "$SLOW_PID" || true
	# 2,000 requests left unfinished: libmicrohttpd says so of each, the
	# exporter writes one line and then the count of the rest
	until (($(held_back "$BATS_TEST_TMPDIR/exp.err") + $(grep -vc 'more lines\{0,1\} not shown' "$BATS_TEST_TMPDIR/exp.err") >= 2000)); do
		((tries-- > 0)) || { cat "$BATS_TEST_TMPDIR/exp.err"; return 1; }
		sleep 0.1
	done
	shown=$(wc -l <"$BATS_TEST_TMPDIR/exp.err")
	held=$(held_back "$BATS_TEST_TMPDIR/exp.err")
	cat "$BATS_TEST_TMPDIR/exp.err"
	((shown <= 6))
	note "exporter: 2,000 slow connections held from 50 addresses; 5 scrapes, the slowest $max s (bound 1 s); their end: $shown stderr lines, $held more held back"
}

@test "exporter: of 2,000 slow connections from one address 64 are held, the rest closed at once; a scrape from another is answered within 1 s" {
	local r open tries=100
	start_exporter "$BATS_TEST_TMPDIR/exp" --instance "$P"
	echo "$EXP_PID" >>"$BATS_TEST_TMPDIR/pids"
	slow_hold "$BATS_TEST_TMPDIR/slow" 2000 127.0.0.2
	((CONNECTED == 2000)) # made: in the exporter's accept queue at least
	open=$(slow_open "$BATS_TEST_TMPDIR/slow")
	((open == 64))
	r=$(timed_scrape "$BATS_TEST_TMPDIR/m")
	assert_fast_scrape "$r"
	grep -q "^xdpleaf_up{instance=\"$P\",mode=\"leaf\"} 1$" "$BATS_TEST_TMPDIR/m"
	kill "$SLOW_PID"
	wait "$SLOW_PID" || true
	until grep -q 'more lines\{0,1\} not shown' "$BATS_TEST_TMPDIR/exp.err" &&
		(($(held_back "$BATS_TEST_TMPDIR/exp.err") + $(grep -vc 'more lines\{0,1\} not shown' "$BATS_TEST_TMPDIR/exp.err") >= 2000)); do
		((tries-- > 0)) || { cat "$BATS_TEST_TMPDIR/exp.err"; return 1; }
		sleep 0.1
	done
	cat "$BATS_TEST_TMPDIR/exp.err"
	(($(wc -l <"$BATS_TEST_TMPDIR/exp.err") <= 8))
	note "exporter: 2,000 connections from one address: $open held, a scrape from another in ${r#* } s; $(wc -l <"$BATS_TEST_TMPDIR/exp.err") stderr lines"
}

# CPU seconds the exporter's reading thread (observe/snapshot.h) has used.
read_cpu() { # pid
	local t
	for t in /proc/"$1"/task/*; do
		[[ $(cat "$t/comm") == exporter-read ]] || continue
		awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($14 + $15) / hz }' "$t/stat"
		return 0
	done
	return 1
}

@test "exporter: with 1,048,576 flows in the table a scrape is answered within 1 s, and a read of the table takes under 1 s of CPU" {
	local ns=$P-m inst=${P}m conf=$BATS_TEST_TMPDIR/million.conf n m r t began prev=
	local reads=0 scrapes=0 max=0 c0 c1 wall tries=1200 top
	ip netns add "$ns"
	ip -n "$ns" link add d0 type veth peer name d0p
	ip -n "$ns" link add u0 type veth peer name u0p
	for n in d0 d0p u0 u0p; do ip -n "$ns" link set "$n" up; done
	printf '%s\n' '[xdpleaf]' 'mode = leaf' 'flow_table_size = 1088K' '' '[port d0]' \
		'role = downlink' '' '[port u0]' 'role = uplink' 'group = g' 'nexthop4 = 10.254.1.2' \
		'' '[group g]' '' '[route 10.1.0.0/16]' 'port = d0' '' '[route 10.2.0.0/16]' \
		'group = g' >"$conf"
	in_ns "$ns" "$XDPLEAF" load --config "$conf" --instance "$inst" >/dev/null
	# through the map, not by traffic: flow i has 1000 (i + 1) bytes. A
	# table a little bigger than the flows: a full LRU table evicts
	# before it is full (a CPU's share of the free entries runs out)
	n=$(/usr/bin/python3 "$ROOT/tests/lab/fill_flows.py" "/sys/fs/bpf/xdpleaf/$inst/flows" 1048576)
	((n == 1048576))
	start_exporter "$BATS_TEST_TMPDIR/exp" --instance "$inst"
	echo "$EXP_PID" >>"$BATS_TEST_TMPDIR/pids"
	m=$(scrape)
	promtool check metrics <<<"$m"
	grep -q "^xdpleaf_flow_table_entries{instance=\"$inst\"} 1048576$" <<<"$m"
	grep -q "^xdpleaf_flow_table_capacity{instance=\"$inst\"} 1114112$" <<<"$m"
	# the top 10 of a million by rate (0 for all: no window is recent),
	# then bytes: the last ten written
	top=$(sed -n "s/^xdpleaf_flow_bytes_total{instance=\"$inst\",.*} //p" <<<"$m" | sort -n | tr '\n' ' ')
	[[ $top == "1048567000 1048568000 1048569000 1048570000 1048571000 1048572000 1048573000 1048574000 1048575000 1048576000 " ]]
	# scrape every 0.1 s until two more reads are out: each read takes
	# longer than that, so scrapes fall while a read runs. The reading
	# thread's CPU time between the two is one read's.
	while ((reads < 2)); do
		((tries-- > 0)) || { echo "$reads reads in 120 s"; return 1; }
		r=$(timed_scrape "$BATS_TEST_TMPDIR/m")
		assert_fast_scrape "$r"
		scrapes=$((scrapes + 1))
		max=$(awk -v a="$max" -v b="${r#* }" 'BEGIN { print (b > a ? b : a) }')
		began=$(read_began <"$BATS_TEST_TMPDIR/m")
		if [[ -n $prev && $began != "$prev" ]]; then
			reads=$((reads + 1))
			((reads == 1)) && c0=$(read_cpu "$EXP_PID")
			((reads == 2)) && c1=$(read_cpu "$EXP_PID")
		fi
		prev=$began
		sleep 0.1
	done
	t=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.2f", b - a }')
	wall=$(sed -n 's/^xdpleaf_exporter_read_duration_seconds //p' "$BATS_TEST_TMPDIR/m")
	# the issue's bound, 1 s for the scan at 1 M flows: a read is
	# 0.3-0.5 s of CPU on this 2-core VM (about 2x headroom); its wall
	# time grows with what else runs on the machine
	awk -v t="$t" 'BEGIN { exit !(t < 1.0) }' || { echo "a read took $t s of CPU"; return 1; }
	note "exporter, 1,048,576 flows: $scrapes scrapes over 2 reads, the slowest $max s (bound 1 s); a read $t s of CPU, $wall s wall"
}
