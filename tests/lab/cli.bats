#!/usr/bin/env bats
# The command line around one instance: the network namespace it belongs
# to, who holds a port a load wants, routes by group name, one daemon per
# instance, --version, and the exit codes of status and unload.
#
# Tests that load get a throwaway namespace P-a holding leaf1's port names
# as veth pairs s1<->u1 .. s4<->u4 (make_ns), so lab/leaf1.conf loads.
# This shell stays in its own namespace: that is "another namespace".

load helpers
bats_require_minimum_version 1.5.0 # run --separate-stderr

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	ensure_bpffs
	export P="xlt$$x"
}

setup() {
	NS=
	PIDS=$BATS_TEST_TMPDIR/pids # processes a test starts, for teardown
}

teardown() {
	local i pid
	[[ -n ${P-} ]] || return 0
	# unload works from any namespace
	for i in "$P" "${P}b" "${P}h"; do
		"$XDPLEAF" unload --instance "$i" >/dev/null 2>&1 || true
	done
	if [[ -e $PIDS ]]; then
		while read -r pid; do
			kill "$pid" 2>/dev/null || true
		done <"$PIDS"
	fi
	rm -f "/sys/fs/bpf/$P-foreign" "/sys/fs/bpf/$P-prog"
	rmdir "/sys/fs/bpf/xdpleaf/${P}n" 2>/dev/null || true
	# a refused load leaves the lock of an instance directory it did not make
	rm -f "/run/xdpleaf/${P}n.lock"
	ip link del "${P}v1" 2>/dev/null || true
	[[ -z $NS ]] || ip netns del "$NS" 2>/dev/null || true
}

make_ns() {
	require_lab
	NS=$P-a
	ip netns add "$NS"
	ip -n "$NS" link set lo up
	local n
	for n in 1 2 3 4; do
		ip -n "$NS" link add name "s$n" type veth peer name "u$n"
		ip -n "$NS" link set dev "s$n" up
		ip -n "$NS" link set dev "u$n" up
	done
}

xl() {
	in_ns "$NS" "$XDPLEAF" "$@"
}

# Running, and not a zombie waiting to be reaped.
alive() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
	[[ -n $st && ${st:0:1} != Z && ${st:0:1} != X ]]
}

# (bats does not fail a test on a `! cmd` line: these are commands)
gone() {
	! alive "$1"
}

xdp_on() {
	xdp_links "$NS" | grep -qx "$1"
}

no_xdp_on() {
	! xdp_on "$1"
}

# A config holding only port s1, for an instance that occupies it.
s1_conf() {
	local f=$BATS_TEST_TMPDIR/s1.conf
	printf '[port s1]\n[route 10.1.1.0/24]\nport = s1\n' >"$f"
	echo "$f"
}

@test "status, qps and daemon from another netns refuse and print the nsenter line, which works" {
	make_ns
	# shellcheck disable=SC2153 # CONF: set by helpers.bash
	run xl load --config "$CONF" --instance "$P"
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
	local pid
	pid=$(<"/run/xdpleaf/$P.pid")

	run --separate-stderr "$XDPLEAF" status --instance "$P"
	echo "status here: $status, stderr: $stderr"
	[[ $status -eq 1 && $output != *DETACHED* ]]
	[[ $stderr == *"network namespace '$NS'"* ]]
	local line
	line=$(grep -o "nsenter --net=.*" <<<"$stderr")
	[[ $line == "nsenter --net=/run/netns/$NS $XDPLEAF status --instance $P" ]]
	# shellcheck disable=SC2086 # the printed line, as a user pastes it
	run $line
	echo "$output"
	[[ $status -eq 0 && $(grep -c ' attached$' <<<"$output") -eq 8 ]]

	local cmd
	for cmd in qps daemon; do
		# (a daemon that is not refused would run until killed)
		run --separate-stderr timeout 10 "$XDPLEAF" "$cmd" --instance "$P"
		echo "$cmd here: $status, stderr: $stderr"
		[[ $status -eq 1 ]]
		[[ $stderr == *"nsenter --net=/run/netns/$NS $XDPLEAF $cmd --instance $P"* ]]
	done
	# the refused daemon started nothing: load's daemon is still the one
	[[ $(<"/run/xdpleaf/$P.pid") == "$pid" ]]
	alive "$pid"

	# Commands that only read maps are right anywhere; unload detaches
	# in the instance's namespace from here.
	run "$XDPLEAF" stats --json --instance "$P"
	[[ $status -eq 0 && $(jq '.ports | length' <<<"$output") -eq 8 ]]
	run "$XDPLEAF" unload --instance "$P"
	[[ $status -eq 0 && $output == *unloaded* ]]
	poll test -z "$(xdp_links "$NS")"
}

@test "an instance in a namespace without a name is reached through /proc/PID/ns/net; a gone one is named gone" {
	require_lab
	unshare --net sleep 1000 </dev/null >/dev/null 2>&1 3>&- &
	local holder=$!
	echo "$holder" >>"$PIDS"
	# shellcheck disable=SC2016
	poll bash -c '[[ $(readlink /proc/$1/ns/net) != $(readlink /proc/self/ns/net) ]]' _ "$holder"
	ip link add "${P}v1" type veth peer name "${P}v2"
	ip link set "${P}v1" netns "$holder"
	ip link set "${P}v2" netns "$holder"
	nsenter --net="/proc/$holder/ns/net" ip link set "${P}v1" up
	local conf=$BATS_TEST_TMPDIR/unnamed.conf
	printf '[port %s]\n[route 10.9.0.0/24]\nport = %s\n' "${P}v1" "${P}v1" >"$conf"
	run nsenter --net="/proc/$holder/ns/net" "$XDPLEAF" load --config "$conf" \
		--instance "$P" --no-daemon
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }

	local ino
	ino=$(stat -L -c %i "/proc/$holder/ns/net")
	run --separate-stderr "$XDPLEAF" status --instance "$P"
	echo "status here: $status, stderr: $stderr"
	if [[ $status -ne 1 ]]; then
		# (seen once in CI, not understood: say what the check compared)
		echo "this namespace: $(stat -L -c %i /proc/self/ns/net)," \
			"the holder's: $ino"
		nsenter --net="/proc/$holder/ns/net" "$XDPLEAF" status --json \
			--instance "$P" | jq -c '{netns, loaded_by}' || true
		ls -l "/sys/fs/bpf/xdpleaf/$P" || true
	fi
	[[ $status -eq 1 && $stderr == *"network namespace with inode $ino"* ]]
	[[ $stderr == *"nsenter --net=/proc/$holder/ns/net $XDPLEAF status --instance $P"* ]]
	run nsenter --net="/proc/$holder/ns/net" "$XDPLEAF" status --instance "$P"
	[[ $status -eq 0 && $output == *"${P}v1"*attached* ]] || { echo "$output"; return 1; }

	kill "$holder"
	wait "$holder" || true
	run --separate-stderr "$XDPLEAF" status --instance "$P"
	echo "after the namespace went: $status, stderr: $stderr"
	[[ $status -eq 1 && $stderr == *"it is gone"* ]]
	[[ $stderr == *"xdpleaf unload --instance $P"* ]]
	run "$XDPLEAF" unload --instance "$P"
	[[ $status -eq 0 ]]
}

@test "an instance pinned without the netns record (older version) works, without a false alarm" {
	make_ns
	run xl load --config "$CONF" --instance "$P"
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
	rm "/sys/fs/bpf/xdpleaf/$P/instance"
	run --separate-stderr xl status --instance "$P"
	echo "status: $status, stderr: $stderr"
	[[ $status -eq 0 && -z $stderr ]]
	[[ $(grep -c ' attached$' <<<"$output") -eq 8 ]]
	run --separate-stderr "$XDPLEAF" status --instance "$P" --json
	[[ $status -eq 0 && -z $stderr ]]
	[[ $(jq -r '.netns // "none"' <<<"$output") == none ]]
}

@test "load on a port another xdpleaf instance holds names it, and its unload line frees the port" {
	make_ns
	run xl load --config "$(s1_conf)" --instance "${P}b" --no-daemon
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
	run --separate-stderr xl load --config "$CONF" --instance "$P"
	echo "status $status, stderr: $stderr"
	[[ $status -ne 0 ]]
	[[ $stderr == *"s1: held by xdpleaf instance '${P}b'"* ]]
	[[ $stderr == *"xdpleaf unload --instance ${P}b"* && $stderr != *"xdp off"* ]]
	run xl unload --instance "${P}b"
	[[ $status -eq 0 ]]
	poll no_xdp_on s1
	run xl load --config "$CONF" --instance "$P"
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
}

@test "load on a port held by a foreign BPF link says netlink cannot detach it; a netlink one gets the right ip line" {
	make_ns
	# A BPF link nobody's instance owns: an instance's link, pinned
	# elsewhere too, outlives the instance. (XDP's: at tc a foreign
	# program is no obstacle, xdpleaf's runs beside it.)
	local xconf
	xconf=$(conf_at_xdp)
	run xl load --config "$(conf_at_xdp "$(s1_conf)")" --instance "${P}b" --no-daemon
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
	bpftool link pin pinned "/sys/fs/bpf/xdpleaf/${P}b/link_xdp_s1" "/sys/fs/bpf/$P-foreign"
	run xl unload --instance "${P}b"
	[[ $status -eq 0 ]]
	local link
	link=$(bpftool -j link show pinned "/sys/fs/bpf/$P-foreign" | jq .id)
	run --separate-stderr xl load --config "$xconf" --instance "$P"
	echo "status $status, stderr: $stderr"
	[[ $status -ne 0 && $stderr == *"s1: another XDP program"* ]]
	[[ $stderr == *"BPF link (id $link)"* && $stderr == *"cannot detach"* ]]
	[[ $stderr == *"bpftool -f link show id $link"* ]]
	# what it says: netlink does not detach it, removing the pin does
	in_ns "$NS" ip link set dev s1 xdp off 2>/dev/null || true
	xdp_on s1
	rm "/sys/fs/bpf/$P-foreign"
	poll no_xdp_on s1

	# A program attached over netlink in generic mode: `xdp off` would
	# miss it, the advice must name the mode.
	bpftool prog load "$ROOT/build/leaf.bpf.o" "/sys/fs/bpf/$P-prog"
	in_ns "$NS" bpftool net attach xdpgeneric pinned "/sys/fs/bpf/$P-prog" dev s1
	run --separate-stderr xl load --config "$xconf" --instance "$P"
	echo "status $status, stderr: $stderr"
	[[ $status -ne 0 ]]
	[[ $stderr == *"s1: another XDP program"*"already attached"*"(ip link set dev s1 xdpgeneric off)"* ]]
	in_ns "$NS" ip link set dev s1 xdpgeneric off
	run xl load --config "$xconf" --instance "$P"
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
}

@test "routes name the uplink group, in the table and the JSON" {
	make_ns
	run xl load --config "$CONF" --instance "$P" --no-daemon
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
	run xl routes --instance "$P"
	echo "$output"
	[[ $status -eq 0 && $output != *"group 0"* ]]
	grep -qE '^10\.2\.0\.0/16 +group spine$' <<<"$output"
	grep -qE '^fd00:2::/32 +group spine$' <<<"$output"
	grep -qE '^10\.1\.1\.0/24 +port s1$' <<<"$output"
	run xl routes --instance "$P" --json
	[[ $status -eq 0 ]]
	local g
	g=$(jq -c '.routes[] | select(.prefix == "10.2.0.0/16")' <<<"$output")
	echo "$g"
	[[ $(jq -r '.kind + " " + .target + " " + (.group_id | tostring)' <<<"$g") == "group spine 0" ]]
	[[ $(jq -r '.routes[] | select(.prefix == "10.1.1.0/24") | .target' <<<"$output") == s1 ]]
}

@test "daemon refuses beside load's daemon, naming its pid; --replace takes over and says so" {
	make_ns
	run xl load --config "$CONF" --instance "$P"
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
	local old
	old=$(<"/run/xdpleaf/$P.pid")
	alive "$old"

	# (a daemon that is not refused would run until killed)
	run --separate-stderr timeout 10 nsenter --net="/run/netns/$NS" -- \
		"$XDPLEAF" daemon --instance "$P"
	echo "status $status, stderr: $stderr"
	[[ $status -eq 1 && $stderr == *"pid $old"* && $stderr == *"--replace"* ]]
	alive "$old"
	[[ $(<"/run/xdpleaf/$P.pid") == "$old" ]]

	local log=$BATS_TEST_TMPDIR/daemon.log new
	# nsenter execs xdpleaf: $! is the daemon's pid
	nsenter --net="/run/netns/$NS" -- "$XDPLEAF" daemon --replace --instance "$P" \
		</dev/null >"$log" 2>&1 3>&- &
	new=$!
	echo "$new" >>"$PIDS"
	# shellcheck disable=SC2016
	poll bash -c '[[ $(cat "$1") == "$2" ]]' _ "/run/xdpleaf/$P.pid" "$new"
	poll grep -q "replaced the daemon pid $old" "$log"
	gone "$old"
	run xl status --instance "$P"
	[[ $output == *"daemon running, pid $new"* ]] || { echo "$output"; return 1; }
	# unload stops the foreground daemon too
	run xl unload --instance "$P"
	[[ $status -eq 0 ]]
	wait "$new" || true
	gone "$new"
	[[ ! -e /run/xdpleaf/$P.pid ]]
}

@test "--version prints the version and the commit; status --json carries both" {
	make_ns
	run "$XDPLEAF" --version
	echo "$output"
	[[ $status -eq 0 ]]
	[[ $output =~ ^xdpleaf\ ([0-9]+\.[0-9]+\.[0-9]+)\ \(git\ ([0-9a-f]{7,}(-dirty)?|unknown)\)$ ]]
	local version=${BASH_REMATCH[1]} commit=${BASH_REMATCH[2]}
	# built from this checkout: a commit of it, not "unknown"
	if [[ -e $ROOT/.git ]]; then
		git -c safe.directory="$ROOT" -C "$ROOT" cat-file -e "${commit%-dirty}^{commit}"
	fi
	run xl load --config "$CONF" --instance "$P" --no-daemon
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
	run xl status --instance "$P" --json
	[[ $(jq -r '.version, .git_commit, .loaded_by.version, .loaded_by.git_commit, .netns.name' <<<"$output" | tr '\n' ' ') == \
		"$version $commit $version $commit $NS " ]] || { echo "$output"; return 1; }
}

@test "the Makefile's commit: a hash, -dirty with local changes, unknown outside git" {
	local d=$BATS_TEST_TMPDIR/mk
	mkdir -p "$d/scripts"
	cp "$ROOT/Makefile" "$d/"
	cp "$ROOT/scripts/install.mk" "$d/scripts/" # the Makefile includes it
	make -s -C "$d" build/build_version.h
	grep -qx '#define XL_GIT_COMMIT "unknown"' "$d/build/build_version.h"
	git -C "$d" init -q
	git -C "$d" add Makefile
	git -C "$d" -c user.name=t -c user.email=t@t commit -qm t
	make -s -C "$d" build/build_version.h
	grep -qx "#define XL_GIT_COMMIT \"$(git -C "$d" rev-parse --short HEAD)\"" "$d/build/build_version.h"
	local hash
	hash=$(git -C "$d" rev-parse --short HEAD)
	echo "# local change" >>"$d/Makefile"
	make -s -C "$d" build/build_version.h
	grep -qx "#define XL_GIT_COMMIT \"$hash-dirty\"" "$d/build/build_version.h"
	# a user's clone built by root (sudo make): git calls that "dubious
	# ownership" and refuses unless told the directory is safe
	if ((EUID == 0)); then
		git -C "$d" checkout -q Makefile
		chown -R nobody "$d"
		make -s -C "$d" build/build_version.h
		grep -qx "#define XL_GIT_COMMIT \"$hash\"" "$d/build/build_version.h"
	fi
}

@test "status exits 3 when not loaded (table and JSON); unload exits 0 either way, saying which" {
	make_ns
	run --separate-stderr xl status --instance "$P"
	[[ $status -eq 3 && $output == *"not loaded"* ]]
	run --separate-stderr xl status --instance "$P" --json
	[[ $status -eq 3 && $(jq .loaded <<<"$output") == false ]]
	run xl unload --instance "$P"
	[[ $status -eq 0 && $output == *"nothing to unload"* ]]
	run xl load --config "$CONF" --instance "$P" --no-daemon
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
	run xl status --instance "$P"
	[[ $status -eq 0 ]]
	run xl unload --instance "$P"
	[[ $status -eq 0 && $output == *"'$P' unloaded"* ]]
	run xl status --instance "$P"
	[[ $status -eq 3 ]]
}

@test "an instance directory another user made is refused, by load, status and unload, with why" {
	make_ns
	cat >"$BATS_TEST_TMPDIR/leaf.conf" <<-EOF
		[xdpleaf]
		xdp_mode = generic
		[port s1]
	EOF
	mkdir -p /sys/fs/bpf/xdpleaf
	mkdir "/sys/fs/bpf/xdpleaf/${P}n"
	chown 65534 "/sys/fs/bpf/xdpleaf/${P}n"
	run --separate-stderr xl load --config "$BATS_TEST_TMPDIR/leaf.conf" --instance "${P}n"
	echo "$stderr"
	[[ $status -eq 1 ]]
	[[ $stderr == *"refusing to use the pins: /sys/fs/bpf/xdpleaf/${P}n is owned by uid 65534"* ]]
	# nothing attached, nothing pinned inside
	[[ -z $(xdp_links "$NS") ]]
	[[ -z $(ls -A "/sys/fs/bpf/xdpleaf/${P}n") ]]
	run --separate-stderr xl status --instance "${P}n"
	[[ $status -eq 1 && $stderr == *"owned by uid 65534"* ]]
	run --separate-stderr xl unload --instance "${P}n"
	[[ $status -eq 1 && $stderr == *"owned by uid 65534"* ]]
	[[ -d "/sys/fs/bpf/xdpleaf/${P}n" ]]
}

@test "the shipped systemd unit passes systemd-analyze verify, and its command line takes over as the daemon" {
	local unit=$ROOT/scripts/xdpleaf-daemon@.service.in dir=$BATS_TEST_TMPDIR/units cmd pid
	make_ns
	mkdir -p "$dir"
	# as make install writes it (tests/lab/install.bats), for build/xdpleaf
	sed "s|@SBINDIR@/xdpleaf|$XDPLEAF|" "$unit" >"$dir/xdpleaf-daemon@.service"
	run systemd-analyze verify "$dir/xdpleaf-daemon@$P.service"
	echo "$output"
	[[ $status -eq 0 && -z $output ]]
	grep -qx 'Restart=always' "$unit"
	# ExecStart as systemd would run it (%i: the instance), after load
	cmd=$(sed -n "s|^ExecStart=@SBINDIR@/xdpleaf ||p" "$unit" | sed "s/%i/$P/g")
	run xl load --config "$CONF" --instance "$P" --no-daemon
	[[ $status -eq 0 ]]
	# shellcheck disable=SC2086 # the unit's words
	nsenter --net="/run/netns/$NS" -- "$XDPLEAF" $cmd </dev/null \
		>/dev/null 2>"$BATS_TEST_TMPDIR/unit.log" 3>&- &
	pid=$!
	echo "$pid" >>"$PIDS"
	# shellcheck disable=SC2016
	poll bash -c '[[ $(cat "$1" 2>/dev/null) == "$2" ]]' _ "/run/xdpleaf/$P.pid" "$pid"
	run xl status --instance "$P"
	[[ $output == *"daemon running, pid $pid"* ]] || { echo "$output"; return 1; }
	xl unload --instance "$P"
	wait "$pid"
	grep -q "info: instance '$P': daemon exits (SIGTERM)" "$BATS_TEST_TMPDIR/unit.log"
}
