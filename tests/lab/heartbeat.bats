#!/usr/bin/env bats
# The daemon's heartbeat and the instance's kernel memory
# (docs/operations.md, "The daemon" and "Kernel memory"). The lab's leaf1:
# a daemon that beats is reported running; one stopped with SIGSTOP is
# reported not responding (status exits 4, the exporter's age passes the
# limit) while a host's MAC change goes unfollowed, and after SIGCONT all
# is well again. A throwaway namespace P-a with one veth for the rest:
# the notifications of the systemd unit's command line, an instance
# without a heartbeat map (an older build's) and its upgrade, and the
# memory status prints against bpftool's.
#
# The SIGSTOP test sends pings through the lab: run the file under
# flock /tmp/xdpleaf-bench.lock when other lab traffic may run.

# shellcheck disable=SC2154 # $stderr: set by run --separate-stderr
load helpers
bats_require_minimum_version 1.5.0 # run --separate-stderr

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	local tool
	for tool in curl python3; do
		command -v "$tool" >/dev/null || LAB_SKIP=${LAB_SKIP:-"$tool not installed (make deps)"}
	done
	[[ -z $LAB_SKIP ]] || return 0
	ensure_bpffs
	export P="xlt$$h"
	lab_up_ready "$P"
}

setup() {
	require_lab
	NS=
	PIDS=$BATS_TEST_TMPDIR/pids       # processes a test starts, for teardown
	STOPPED=$BATS_TEST_TMPDIR/stopped # a daemon a test stopped: continued
}

teardown() {
	local pid
	[[ -n ${P-} ]] || return 0
	[[ ! -e $STOPPED ]] || kill -CONT "$(<"$STOPPED")" 2>/dev/null || true
	if [[ -e $PIDS ]]; then
		while read -r pid; do
			kill "$pid" 2>/dev/null || true
		done <"$PIDS"
	fi
	"$XDPLEAF" unload --instance "${P}a" >/dev/null 2>&1 || true
	[[ -z $NS ]] || ip netns del "$NS" 2>/dev/null || true
}

teardown_file() {
	[[ -n ${P-} ]] || return 0
	"$LAB" down --prefix "$P" 3>&-
}

xl() {
	in_ns "$P-leaf1" "$XDPLEAF" "$@"
}

# The throwaway namespace P-a with veth xa<->xb, and instance P_a's
# config there: one downlink, every default.
make_ns() {
	NS=$P-a
	ip netns add "$NS"
	ip -n "$NS" link add xa type veth peer name xb
	ip -n "$NS" link set xa up
	ip -n "$NS" link set xb up
	printf '[port xa]\nrole = downlink\n' >"$BATS_TEST_TMPDIR/a.conf"
}

xa() {
	in_ns "$NS" "$XDPLEAF" "$@"
}

# A unix datagram socket at $1 (a path, or an abstract name with a
# leading @) whose messages go to file $2, one a line; returns once it is
# bound.
listen_notify() {
	local ready=$BATS_TEST_TMPDIR/listen.ready
	rm -f "$ready"
	python3 -c '
import socket, sys
name = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + name[1:] if name[0] == "@" else name)
open(sys.argv[3], "w").close()
with open(sys.argv[2], "a") as f:
    while True:
        f.write(s.recv(256).decode() + "\n")
        f.flush()
' "$1" "$2" "$ready" 3>&- &
	echo $! >>"$PIDS"
	poll test -e "$ready"
}

send_notify() { # name message
	python3 -c '
import socket, sys
name = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto(sys.argv[2].encode(), "\0" + name[1:] if name[0] == "@" else name)
' "$1" "$2"
}

lines_at_least() { # file n
	[[ $(wc -l <"$1") -ge $2 ]]
}

beats_at_least() { # n: leaf1's daemon has beaten n times
	[[ $(xl status --json --instance "$P" | jq .daemon.heartbeats) -ge $1 ]]
}

a_beats_at_least() { # n: P_a's
	[[ $(xa status --json --instance "${P}a" | jq .daemon.heartbeats) -ge $1 ]]
}

@test "heartbeat: the daemon beats; status (text, --json) and stats --json give its age, within the limit" {
	local j pid b0 t0 ms
	j=$(xl status --json --instance "$P")
	pid=$(jq .daemon_pid <<<"$j")
	((pid > 0))
	b0=$(jq .daemon.heartbeats <<<"$j")
	t0=$(date +%s%N)
	poll beats_at_least $((b0 + 3))
	ms=$((($(date +%s%N) - t0) / 1000000))
	note "3 heartbeats in $ms ms"
	run --separate-stderr xl status --json --instance "$P"
	[[ $status -eq 0 ]]
	jq -e --argjson pid "$pid" '.daemon | .state == "running" and .pid == $pid and
		.heartbeat_pid == $pid and .stopped == false and
		.heartbeat_age_seconds >= 0 and .heartbeat_age_seconds <= .heartbeat_limit_seconds and
		.heartbeat_limit_seconds == 5' <<<"$output"
	run --separate-stderr xl status --instance "$P"
	[[ $status -eq 0 ]]
	grep -qE "^program id [0-9]+, daemon running, pid $pid, heartbeat [0-9]+\.[0-9] s ago$" <<<"$output" ||
		{ echo "$output"; return 1; }
	# the exporter's source
	stats_json "$P" | jq -e '.daemon.heartbeat_age_seconds | type == "number" and . <= 5'
}

# Last of the lab's: it changes s1's MAC for good.
@test "heartbeat: SIGSTOP: status says NOT RESPONDING and exits 4 within the limit + 5 s, the exporter's age passes it, a MAC change goes unfollowed; SIGCONT heals all" {
	local pid new=02:de:ad:00:00:02 t0 ms st out=$BATS_TEST_TMPDIR/status tries loss exp port m
	in_ns "$P-r1" ping -q -c3 -i 0.2 -W1 10.1.1.2 >/dev/null
	pid=$(xl status --json --instance "$P" | jq .daemon.pid)
	((pid > 0))
	run --separate-stderr xl status --instance "$P"
	[[ $status -eq 0 ]]
	kill -STOP "$pid"
	echo "$pid" >"$STOPPED"
	t0=$(date +%s%N)
	while :; do
		st=0
		xl status --instance "$P" >"$out" 2>&1 || st=$?
		((st != 4)) || break
		((st == 0)) || { cat "$out"; return 1; }
		(($(date +%s%N) - t0 < 10000000000)) ||
			{ echo "status still says:"; cat "$out"; return 1; }
		sleep 0.1
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	note "daemon stopped (SIGSTOP): status exits 4 after $ms ms (limit 5 s): $(grep -o 'last heartbeat [0-9.]* s ago' "$out")"
	grep -qE "^program id [0-9]+, daemon NOT RESPONDING, pid $pid \(process stopped\): last heartbeat [0-9]+\.[0-9] s ago \(limit 5 s\)" "$out" ||
		{ cat "$out"; return 1; }
	run --separate-stderr xl status --json --instance "$P"
	[[ $status -eq 4 ]]
	jq -e --argjson pid "$pid" '.daemon | .state == "not responding" and .pid == $pid and
		.stopped == true and .heartbeat_age_seconds > 5' <<<"$output"
	# the exporter serves the age
	exp=$BATS_TEST_TMPDIR/exporter
	"$XDPLEAF" exporter --listen 127.0.0.1:0 --instance "$P" >"$exp.out" 2>"$exp.err" 3>&- &
	echo $! >>"$PIDS"
	poll grep -q '^xdpleaf exporter: serving' "$exp.out" || { cat "$exp.err"; return 1; }
	port=$(sed -n 's|.*http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' "$exp.out")
	m=$(curl -sf --max-time 10 "http://127.0.0.1:$port/metrics" |
		sed -n "s/^xdpleaf_daemon_heartbeat_age_seconds{instance=\"$P\"} //p")
	note "exporter: xdpleaf_daemon_heartbeat_age_seconds{instance=\"$P\"} $m"
	awk -v m="$m" 'BEGIN { exit !(m > 5) }'
	# what it means: s1's new MAC is not followed, r1 -> s1 is lost
	ip -n "$P-s1" link set dev eth0 address "$new"
	loss=$(in_ns "$P-r1" ping -q -c 10 -i 0.1 -W 1 10.1.1.2 | grep -o '[0-9.]*% packet loss' || true)
	note "s1's MAC changed while the daemon is stopped: r1 -> s1 $loss"
	[[ $loss == "100% packet loss" ]]
	kill -CONT "$pid"
	rm "$STOPPED"
	poll xl status --instance "$P" >/dev/null
	run --separate-stderr xl status --json --instance "$P"
	[[ $status -eq 0 ]]
	jq -e '.daemon | .state == "running" and .heartbeat_age_seconds <= 5' <<<"$output"
	# and the daemon follows the MAC again (neigh.bats: within 10 s)
	t0=$(date +%s%N)
	tries=300
	until in_ns "$P-r1" ping -q -c1 -W0.2 10.1.1.2 >/dev/null 2>&1; do
		((tries-- > 0)) || { echo "s1 not reachable 60 s after SIGCONT"; return 1; }
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	note "after SIGCONT: r1 -> s1 again after $ms ms"
	((ms <= 10000))
}

@test "heartbeat: the systemd unit's command line says READY=1, WATCHDOG=1 each beat and STOPPING=1 to NOTIFY_SOCKET; load's daemon says nothing" {
	local unit=$ROOT/scripts/xdpleaf-daemon@.service.in cmd pid sock=$BATS_TEST_TMPDIR/notify
	local msgs=$BATS_TEST_TMPDIR/notify.msgs abs="@${P}-notify" amsgs=$BATS_TEST_TMPDIR/abstract.msgs
	make_ns
	grep -qx 'Type=notify' "$unit"
	grep -qx 'WatchdogSec=5' "$unit"
	xa load --config "$BATS_TEST_TMPDIR/a.conf" --instance "${P}a" --no-daemon >/dev/null
	listen_notify "$sock" "$msgs"
	cmd=$(sed -n "s|^ExecStart=@SBINDIR@/xdpleaf ||p" "$unit" | sed "s/%i/${P}a/g")
	[[ -n $cmd ]]
	# shellcheck disable=SC2086 # the unit's words
	NOTIFY_SOCKET=$sock nsenter --net="/run/netns/$NS" -- "$XDPLEAF" $cmd </dev/null \
		>/dev/null 2>"$BATS_TEST_TMPDIR/unit.log" 3>&- &
	pid=$!
	echo "$pid" >>"$PIDS"
	poll lines_at_least "$msgs" 3
	[[ $(sed -n 1p "$msgs") == READY=1 ]] || { cat "$msgs"; return 1; }
	[[ $(sed -n '2,$p' "$msgs" | sort -u) == WATCHDOG=1 ]] || { cat "$msgs"; return 1; }
	xa status --json --instance "${P}a" |
		jq -e --argjson pid "$pid" '.daemon.heartbeat_pid == $pid and .daemon.heartbeats >= 2'
	kill -TERM "$pid"
	wait "$pid"
	[[ $(tail -n1 "$msgs") == STOPPING=1 ]] || { cat "$msgs"; return 1; }
	note "unit's daemon to NOTIFY_SOCKET: $(sort "$msgs" | uniq -c | xargs)"
	# load's background daemon is no service: it leaves NOTIFY_SOCKET be
	xa unload --instance "${P}a" >/dev/null
	listen_notify "$abs" "$amsgs"
	NOTIFY_SOCKET=$abs xa load --config "$BATS_TEST_TMPDIR/a.conf" --instance "${P}a" >/dev/null
	# (it beat 3 times: READY and WATCHDOGs would have been sent by now)
	poll a_beats_at_least 3
	# a marker of ours behind anything it sent: once the marker is read, so is that
	send_notify "$abs" MARK
	poll grep -q MARK "$amsgs"
	[[ $(cat "$amsgs") == MARK ]] || { cat "$amsgs"; return 1; }
}

@test "heartbeat: an instance without the map (an older build's) is no error; upgrade creates it and replaces the daemon, which beats" {
	local pin old new j
	make_ns
	xa load --config "$BATS_TEST_TMPDIR/a.conf" --instance "${P}a" >/dev/null
	pin=/sys/fs/bpf/xdpleaf/${P}a/heartbeat
	[[ -e $pin ]]
	rm "$pin"
	run --separate-stderr xa status --instance "${P}a"
	[[ $status -eq 0 ]]
	grep -q "daemon running, pid [0-9]*, no heartbeat (the instance was loaded by a build without one: xdpleaf upgrade adds it)$" <<<"$output" ||
		{ echo "$output"; return 1; }
	run --separate-stderr xa status --json --instance "${P}a"
	[[ $status -eq 0 ]]
	old=$(jq .daemon.pid <<<"$output")
	jq -e '.daemon | .state == "running" and .heartbeat_age_seconds == null' <<<"$output"
	# stats --json too: the exporter then has no sample of it
	xa stats --json --instance "${P}a" | jq -e '.daemon.heartbeat_age_seconds == null'
	run --separate-stderr xa upgrade --instance "${P}a"
	[[ $status -eq 0 ]] || { echo "$stderr"; return 1; }
	[[ -e $pin ]]
	new=$(sed -n "s/^xdpleaf: instance '${P}a': its daemon (pid $old) was an older build's; replaced by this build's, pid \([0-9]*\)$/\1/p" <<<"$output")
	[[ -n $new && $new -ne $old ]] || { echo "$output"; return 1; }
	j=$(xa status --json --instance "${P}a")
	jq -e --argjson pid "$new" '.daemon | .state == "running" and .pid == $pid and
		.heartbeat_pid == $pid and .heartbeat_age_seconds <= 5' <<<"$j"
}

@test "status: the maps' kernel memory, total and largest, is bpftool's memlock; a flow entry takes 240 B" {
	local j total n sum count f b1 b2 per
	make_ns
	xa load --config "$BATS_TEST_TMPDIR/a.conf" --instance "${P}a" >/dev/null
	j=$(xa status --json --instance "${P}a")
	total=$(jq .memory.bytes <<<"$j")
	n=$(jq '.memory.maps | length' <<<"$j")
	sum=0 count=0
	for f in /sys/fs/bpf/xdpleaf/"${P}a"/*; do
		b1=$(bpftool -j map show pinned "$f" 2>/dev/null | jq '.bytes_memlock // empty') || continue
		[[ -n $b1 ]] || continue
		sum=$((sum + b1)) count=$((count + 1))
	done
	echo "status: $total in $n maps; bpftool: $sum in $count"
	((total == sum && n == count && n >= 20))
	# largest first; each map's own figure is bpftool's too
	jq -e '[.memory.maps[].bytes] | . == (sort | reverse)' <<<"$j"
	[[ $(jq -r '.memory.maps[0].name' <<<"$j") == flows ]]
	[[ $(jq .memory.maps[0].bytes <<<"$j") -eq \
		$(bpftool -j map show pinned "/sys/fs/bpf/xdpleaf/${P}a/flows" | jq .bytes_memlock) ]]
	run --separate-stderr xa status --instance "${P}a"
	grep -qE "^kernel memory: [0-9.]+ MiB in $n maps; largest: flows [0-9.]+ MiB \(65536 entries\), [a-z_]+ [0-9.]+ [KM]iB( \([0-9]+ entries\))?, [a-z_]+ [0-9.]+ [KM]iB" <<<"$output" ||
		{ echo "$output"; return 1; }
	note "default instance (one port, $(nproc) CPUs): $(grep '^kernel memory' <<<"$output")"
	note "its maps: $(jq -r '[.memory.maps[] | "\(.name) \(.bytes)"] | join(", ")' <<<"$j")"
	# a flow entry: the flow table's growth from 65536 to 131072 entries;
	# a route: the tries' bytes with 1000 IPv4 and 1000 IPv6 routes
	b1=$(jq .memory.maps[0].bytes <<<"$j")
	xa unload --instance "${P}a" >/dev/null
	{
		printf '[xdpleaf]\nflow_table_size = 131072\n\n[port xa]\nrole = downlink\n'
		for i in $(seq 1 1000); do
			printf '\n[route 10.%d.%d.0/24]\nport = xa\n' $((i / 256)) $((i % 256))
			printf '\n[route fd00:%x::/48]\nport = xa\n' "$i"
		done
	} >"$BATS_TEST_TMPDIR/b.conf"
	xa load --config "$BATS_TEST_TMPDIR/b.conf" --instance "${P}a" --no-daemon >/dev/null
	j=$(xa status --json --instance "${P}a")
	b2=$(jq '.memory.maps[] | select(.name == "flows") | .bytes' <<<"$j")
	per=$(((b2 - b1) / 65536))
	note "a flow entry: $per B ($b1 B at 65536 entries, $b2 B at 131072; the instance $(jq .memory.bytes <<<"$j") B)"
	((per == 240))
	note "1000 routes of each family: $(jq -r '[.memory.maps[] | select(.name | startswith("routes")) | "\(.name) \(.bytes)"] | join(", ")' <<<"$j")"
	jq -e '[.memory.maps[] | select(.name | startswith("routes")) | .bytes > 0] | all and length == 2' <<<"$j"
	# a host instance, every default
	xa unload --instance "${P}a" >/dev/null
	printf '[xdpleaf]\nmode = host\n\n[port xa]\nrate = 100G\n' >"$BATS_TEST_TMPDIR/h.conf"
	xa load --config "$BATS_TEST_TMPDIR/h.conf" --instance "${P}a" --no-daemon >/dev/null 2>&1
	run --separate-stderr xa status --instance "${P}a"
	grep -qE "^kernel memory: [0-9.]+ MiB in [0-9]+ maps; largest: roce_psn " <<<"$output" ||
		{ echo "$output"; return 1; }
	note "host instance (one port): $(grep '^kernel memory' <<<"$output")"
}
