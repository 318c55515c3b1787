#!/usr/bin/env bats
# xdpleaf load/unload contract: bad configs are refused with FILE:LINE and
# leave nothing behind; load/unload cycles are clean and idempotent.

load helpers
bats_require_minimum_version 1.5.0 # run --separate-stderr

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	if [[ -n $LAB_SKIP ]]; then
		return 0
	fi
	ensure_bpffs
	export I="xlt$$c"
}

# Each test gets a fresh throwaway namespace "$I-cfg" holding leaf1's port
# names as four veth pairs s1<->u1 .. s4<->u4, so lab/leaf1.conf loads.
setup() {
	require_lab
	NS=$I-cfg
	make_cfg_ns
	local n
	for n in 1 2 3 4; do
		ip -n "$NS" link add name "s$n" type veth peer name "u$n"
		ip -n "$NS" link set dev "s$n" up
		ip -n "$NS" link set dev "u$n" up
	done
}

teardown() {
	if [[ -n ${NS:-} ]]; then
		drop_cfg_ns
	fi
}

make_cfg_ns() {
	ip netns add "$NS"
	ip -n "$NS" link set lo up
}

drop_cfg_ns() {
	if [[ -e /run/netns/$NS ]]; then
		in_ns "$NS" "$XDPLEAF" unload --instance "$I" >/dev/null 2>&1 || true
		in_ns "$NS" "$XDPLEAF" unload --instance "${I}b" >/dev/null 2>&1 || true
		ip netns del "$NS"
	fi
}

xl() {
	in_ns "$NS" "$XDPLEAF" "$@"
}

# Nothing of instance $I may remain: pins, XDP programs, daemon.
# Prints what it found and fails if anything is left.
assert_clean() {
	local left=()
	[[ ! -e /sys/fs/bpf/xdpleaf/$I ]] || left+=("pins /sys/fs/bpf/xdpleaf/$I")
	local links
	links=$(xdp_links "$NS" | tr '\n' ' ')
	[[ -z $links ]] || left+=("XDP on $links")
	local n_xdp
	n_xdp=$(in_ns "$NS" bpftool -j net | jq '[.[].xdp[]?] | length')
	[[ $n_xdp -eq 0 ]] || left+=("bpftool net: $n_xdp xdp programs")
	local pidfile=/run/xdpleaf/$I.pid pid
	if [[ -e $pidfile ]]; then
		pid=$(<"$pidfile")
		if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
			left+=("daemon pid $pid still running")
		else
			left+=("stale pid file $pidfile")
		fi
	fi
	if ((${#left[@]})); then
		printf 'left behind: %s\n' "${left[@]}"
		return 1
	fi
}

# Pins, attached program ids and daemon pid: equal before and after a
# refused load means the refused load changed nothing.
snapshot() {
	find "/sys/fs/bpf/xdpleaf/$I" 2>/dev/null | sort
	ip -n "$NS" -j link show | jq -c '[.[] | {ifname, prog: .xdp.prog.id}]'
	bpftool -j link show | jq -c '[.[] | select(.type == 11) | .id]'
	cat "/run/xdpleaf/$I.pid" 2>/dev/null || true
}

@test "every bad config is refused with FILE:LINE: message and leaves nothing" {
	local dir=$ROOT/tests/configs/bad f first line want err rc bad=() count=0
	local -a files=("$dir"/*.conf)
	[[ -e ${files[0]} ]] || { echo "no configs in $dir"; return 1; }
	err=$BATS_TEST_TMPDIR/stderr
	for f in "${files[@]}"; do
		count=$((count + 1))
		IFS= read -r first <"$f"
		if [[ ! $first =~ ^#\ expect:\ ([0-9]+):\ (.*)$ ]]; then
			bad+=("$(basename "$f"): first line is not '# expect: LINE: text'")
			continue
		fi
		line=${BASH_REMATCH[1]} want=${BASH_REMATCH[2]}
		# A fresh namespace per file holding only lo: the files name
		# `lo` for a port that must exist. ("# needs: interfaces" marks
		# errors only found when interfaces are checked, which load
		# always does.)
		drop_cfg_ns
		make_cfg_ns
		rc=0
		xl load --config "$f" --instance "$I" >/dev/null 2>"$err" || rc=$?
		if ((rc == 0)); then
			bad+=("$(basename "$f"): load succeeded")
		elif ! grep -qF "$f:$line:" "$err"; then
			bad+=("$(basename "$f"): stderr lacks '$f:$line:': $(<"$err")")
		elif ! grep -qF -- "$want" "$err"; then
			bad+=("$(basename "$f"): stderr lacks '$want': $(<"$err")")
		elif ! assert_clean >"$BATS_TEST_TMPDIR/clean"; then
			bad+=("$(basename "$f"): $(<"$BATS_TEST_TMPDIR/clean")")
		fi
	done
	echo "checked $count bad configs"
	if ((${#bad[@]})); then
		printf 'FAILED %s\n' "${bad[@]}"
		return 1
	fi
	((count >= 10)) || { echo "only $count bad configs, want >= 10"; return 1; }
}

# Ports on which the kernel runs instance $I's program: XDP (ip link) and
# tcx links of its program.
kernel_attached() {
	local id
	id=$(xl status --json --instance "$I" | jq .prog_id)
	echo $(($(xdp_links "$NS" | wc -l) + $(tcx_links_of "$id")))
}

@test "load then unload leaves nothing behind, at either hook; auto (the default) is tc on veths" {
	local conf hook id pid tries
	for hook in auto xdp; do
		# shellcheck disable=SC2153 # CONF: set by helpers.bash
		conf=$CONF
		[[ $hook == auto ]] || conf=$(conf_at_xdp)
		run xl load --config "$conf" --instance "$I"
		[[ $status -eq 0 ]] || { echo "$output"; return 1; }
		echo "$hook: $output"
		[[ -d /sys/fs/bpf/xdpleaf/$I ]] || { echo "no pins after load"; return 1; }
		id=$(xl status --json --instance "$I" | jq .prog_id)
		if [[ $hook == auto ]]; then
			[[ $output == *"hook = auto: tc (s1 is a veth)"*"loaded on 8 ports at tc"* ]]
			[[ $(xl status --json --instance "$I" | jq -r .hook) == tc ]]
			[[ $(tcx_links_of "$id") -eq 8 && -z $(xdp_links "$NS") ]]
		else
			[[ $output == *"loaded on 8 ports at xdp"* ]]
			[[ $(xdp_links "$NS" | wc -l) -eq 8 && $(tcx_links_of "$id") -eq 0 ]] ||
				{ echo "XDP on: $(xdp_links "$NS")"; return 1; }
		fi
		pid=$(cat "/run/xdpleaf/$I.pid")
		kill -0 "$pid" || { echo "daemon $pid not running"; return 1; }

		run xl unload --instance "$I"
		[[ $status -eq 0 ]] || { echo "$output"; return 1; }
		# The daemon may take a moment to exit after its signal.
		tries=50
		while kill -0 "$pid" 2>/dev/null && ((tries-- > 0)); do sleep 0.1; done
		assert_clean
		[[ $(tcx_links_of "$id") -eq 0 ]]
	done
}

@test "hook = auto: xdp_mode asks for XDP; a driver without native XDP (ifb) gets tc; two leaves never share a port" {
	# xdp_mode set, hook not: XDP, on veths too
	local conf=$BATS_TEST_TMPDIR/xdp-mode.conf
	sed 's/^mode = leaf$/&\nxdp_mode = native/' "$CONF" >"$conf"
	run xl load --config "$conf" --instance "$I"
	[[ $status -eq 0 && $output == *"at xdp"* ]] || { echo "$output"; return 1; }
	[[ $(xdp_links "$NS" | wc -l) -eq 8 ]]
	# a second leaf on s1 is refused at tc as well, naming the first
	local one=$BATS_TEST_TMPDIR/s1.conf
	printf '[xdpleaf]\nhook = tc\n[port s1]\n[route 10.1.1.0/24]\nport = s1\n' >"$one"
	run --separate-stderr xl load --config "$one" --instance "${I}b" --no-daemon
	[[ $status -ne 0 && $stderr == *"s1: held by xdpleaf instance '$I' (at XDP)"* ]] ||
		{ echo "$stderr"; return 1; }
	xl unload --instance "$I" >/dev/null
	assert_clean

	# ifb: no native XDP (and not a veth): auto falls back to tc
	ip -n "$NS" link add d0 type ifb
	ip -n "$NS" link set d0 up
	conf=$BATS_TEST_TMPDIR/ifb.conf
	printf '[port d0]\n[route 10.9.0.0/24]\nport = d0\n' >"$conf"
	run xl load --config "$conf" --instance "$I" --no-daemon
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
	[[ $output == *"hook = auto: tc (a port's driver has no native XDP)"*"at tc"* ]] ||
		{ echo "$output"; return 1; }
	[[ $(tcx_links_of "$(xl status --json --instance "$I" | jq .prog_id)") -eq 1 ]]
	[[ -z $(xdp_links "$NS") ]]
	# ... where hook = xdp says why it cannot
	xl unload --instance "$I" >/dev/null
	run --separate-stderr xl load --config "$(conf_at_xdp "$conf")" --instance "$I" --no-daemon
	[[ $status -ne 0 && $stderr == *"d0: native XDP not supported"* ]] || { echo "$stderr"; return 1; }
	assert_clean
}

@test "load on an already loaded instance is refused and changes nothing" {
	run xl load --config "$CONF" --instance "$I"
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
	local before after
	before=$(snapshot)
	run --separate-stderr xl load --config "$CONF" --instance "$I"
	echo "second load: status $status, stderr: $stderr"
	[[ $status -ne 0 ]]
	[[ $stderr == *"$I"* && $stderr == *already* ]]
	after=$(snapshot)
	[[ $before == "$after" ]] || { diff <(echo "$before") <(echo "$after"); return 1; }
	run xl unload --instance "$I"
	[[ $status -eq 0 ]]
}

@test "unload twice, and unload of an instance never loaded, exit 0" {
	run xl unload --instance "$I"
	[[ $status -eq 0 ]] || { echo "never loaded: $output"; return 1; }
	run xl load --config "$CONF" --instance "$I"
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
	run xl unload --instance "$I"
	[[ $status -eq 0 ]] || { echo "first: $output"; return 1; }
	run xl unload --instance "$I"
	[[ $status -eq 0 ]] || { echo "second: $output"; return 1; }
	assert_clean
}

@test "load as non-root fails with a clear message" {
	# lab/leaf1.conf is world-readable (bats' temp dirs are not), so
	# the error must be about privileges, not about reading the file.
	run --separate-stderr in_ns "$NS" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$XDPLEAF" load --config "$CONF" --instance "$I"
	echo "status $status, stderr: $stderr"
	[[ $status -ne 0 ]]
	grep -qiE 'root|permission|privilege|CAP_' <<<"$stderr"
	assert_clean
}

@test "load with a missing interface names it" {
	local conf=$BATS_TEST_TMPDIR/missing.conf
	sed 's/^\[port u4\]/[port xlgone4]/' "$CONF" >"$conf"
	run --separate-stderr xl load --config "$conf" --instance "$I"
	echo "status $status, stderr: $stderr"
	[[ $status -ne 0 ]]
	[[ $stderr == *xlgone4* ]]
	[[ $stderr == *"$conf:"* ]]
	assert_clean
}

@test "host mode: a port at most twice min_rate loads with a warning (check, load); at 100G none" {
	local conf=$BATS_TEST_TMPDIR/host.conf warn
	printf '[xdpleaf]\nmode = host\n\n[port s1]\nrate = 100M\n' >"$conf"
	warn="$conf:4: warning: port s1's rate 100M is at most twice min_rate 100M: DCQCN cannot cut its flows to half their rate (set a lower min_rate in [dcqcn]; docs/dcqcn.md)"
	run --separate-stderr xl check --config "$conf"
	echo "check: status $status, stderr: $stderr"
	[[ $status -eq 0 && $stderr == "$warn" ]]
	run --separate-stderr xl load --config "$conf" --instance "$I"
	echo "load: status $status, stderr: $stderr"
	[[ $status -eq 0 && $stderr == "$warn" ]]
	xl status --instance "$I" >/dev/null
	xl unload --instance "$I" >/dev/null
	assert_clean
	printf '[xdpleaf]\nmode = host\n\n[port s1]\nrate = 100G\n' >"$conf"
	run --separate-stderr xl check --config "$conf"
	[[ $status -eq 0 && -z $stderr ]]
}

@test "under 'ip netns exec' (private /sys, no host bpffs) load refuses and says why" {
	run --separate-stderr ip netns exec "$NS" "$XDPLEAF" load --config "$CONF" --instance "$I"
	echo "status $status, stderr: $stderr"
	[[ $status -ne 0 ]]
	[[ $stderr == *"nsenter --net"* ]]
	assert_clean
}

# unshare -m CMD...: xdpleaf run in the lab's network namespace and a mount
# namespace of its own whose /sys/fs/bpf is not the host's bpffs: PRE (a
# shell line) runs first there.
in_private_mounts() {
	local pre=$1
	shift
	nsenter --net="/run/netns/$NS" -- unshare -m sh -c "$pre && exec \"\$@\"" sh "$XDPLEAF" "$@"
}

@test "where /sys/fs/bpf is not the host's bpffs (unshare -m), load, status and unload refuse and say why" {
	local pre
	# none, and a private empty one where the host's was
	for pre in "umount /sys/fs/bpf" "umount /sys/fs/bpf && mount -t bpf bpf /sys/fs/bpf"; do
		run --separate-stderr in_private_mounts "$pre" load --config "$CONF" --instance "$I"
		echo "$pre: status $status, stderr: $stderr"
		[[ $status -eq 1 && $stderr == *"is not the host's bpffs"* ]]
		assert_clean
	done
	# a live instance is neither "not loaded" there nor unloaded from there
	xl load --config "$CONF" --instance "$I" >/dev/null
	local cmd
	for cmd in status unload; do
		run --separate-stderr in_private_mounts "umount /sys/fs/bpf" "$cmd" --instance "$I"
		echo "$cmd: status $status, stderr: $stderr"
		[[ $status -eq 1 && $stderr == *"is not the host's bpffs"* ]]
	done
	[[ -d /sys/fs/bpf/xdpleaf/$I && $(kernel_attached) -eq 8 ]]
	xl unload --instance "$I" >/dev/null
	assert_clean
}

# The defaults that follow from a port's rate and MTU, as the loader writes
# them into the maps: each uplink's phantom buffer (2 ms of its rate, at
# least two of its largest frames) and the reorder-free rule's margin for a
# move onto it (path_skew = auto: 25 us + two largest frames, with their
# line overhead, at its rate); an explicit path_skew is used as it is. u4
# has a 9000-byte MTU.
@test "rate and MTU defaults: buffer 2 ms of the rate, per-member skew 25us + two frames, floor a whole buffer" {
	local conf=$BATS_TEST_TMPDIR/rates.conf s want
	ip -n "$NS" link set dev u4 mtu 9000
	awk '/^\[port u[1-4]\]/ { print; split("200M,100M,100M,50M", R, ",")
		print "rate = " R[substr($2, 2, 1)]; print "overflow = mark"; next } { print }' \
		"$CONF" >"$conf"
	xl load --config "$conf" --instance "$I" >/dev/null
	s=$(xl stats --json --instance "$I")
	# 2 ms of 200M, 100M, 100M; 50M: 12,500 bytes, below two 9018-byte frames
	[[ $(jq -c '[.ports[] | select(.role == "uplink") | .queue.buffer_bytes]' <<<"$s") == "[50000,25000,25000,18036]" ]]
	# Ethernet's line overhead, unless set
	[[ $(jq -c '[.ports[] | select(.role == "uplink") | .queue.line_overhead_bytes]' <<<"$s") == "[24,24,24,24]" ]]
	# 25,000 ns + 2 x (1518 (or 9018) + 24) bytes x 8 at the member's rate
	want="[148360,271720,271720,2918440]"
	[[ $(jq -c '.groups[0].members | map(.skew_ns)' <<<"$s") == "$want" ]] || {
		echo "skew_ns: $(jq -c '.groups[0].members | map(.skew_ns)' <<<"$s"), want $want"
		return 1
	}
	[[ $(jq '.groups[0].path_skew_ns' <<<"$s") == 25000 ]]
	# flowlet_timeout = auto: the slowest member's whole buffer, u4's
	# 18,036 bytes at 50 Mbit/s
	[[ $(jq '.groups[0].flowlet_timeout_ns' <<<"$s") == 2885760 ]]
	[[ $(jq '.groups[0].flowlet_timeout_auto' <<<"$s") == true ]]
	# status shows the settings as the maps hold them: the group's, each
	# port's (the [group] and [port] keys, config/key_table.h)
	s=$(xl status --json --instance "$I")
	[[ $(jq -c '.groups[0] | [.name, .lb_mode, .flowlet_timeout_ns, .flowlet_timeout_auto, .path_skew_ns, .members]' <<<"$s") == \
		'["spine","flowlet",2885760,true,25000,["u1","u2","u3","u4"]]' ]]
	[[ $(jq -c '[.ports[] | select(.role == "uplink") | .buffer_bytes]' <<<"$s") == "[50000,25000,25000,18036]" ]]
	[[ $(jq -c '[.ports[] | select(.role == "uplink") | .overflow] | unique' <<<"$s") == '["mark"]' ]]
	xl status --instance "$I" | grep -qx "group spine: lb_mode flowlet, flowlet_timeout 2885760ns (auto), path_skew 25us; members u1 u2 u3 u4"
	xl unload --instance "$I" >/dev/null
	sed -i 's/^lb_mode = flowlet$/lb_mode = flowlet\npath_skew = 40us\nflowlet_timeout = 3ms/' "$conf"
	xl load --config "$conf" --instance "$I" >/dev/null
	s=$(xl stats --json --instance "$I")
	[[ $(jq -c '.groups[0].members | map(.skew_ns)' <<<"$s") == "[40000,40000,40000,40000]" ]]
	[[ $(jq -c '.groups[0] | [.flowlet_timeout_ns, .flowlet_timeout_auto]' <<<"$s") == "[3000000,false]" ]]
}
