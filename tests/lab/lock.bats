#!/usr/bin/env bats
# Commands that change one instance (load, unload, upgrade, reload) run one
# at a time (user/instance/inst_lock.c): two of them started together end in
# a state one of them alone would have left, and the one refused says why,
# naming the instance. No traffic: programs on veths in a throwaway
# namespace only.

load helpers

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	ensure_bpffs
}

setup() {
	require_lab
	NS=xlk$$n$BATS_TEST_NUMBER
	INST=xlk$$i$BATS_TEST_NUMBER
	PIN=/sys/fs/bpf/xdpleaf/$INST
	HOLDER=
	ip netns add "$NS"
	local i
	for i in 0 1; do
		ip -n "$NS" link add "a$i" type veth peer name "b$i"
		ip -n "$NS" link set "a$i" up
		ip -n "$NS" link set "b$i" up
	done
	CONFIG=$BATS_TEST_TMPDIR/lock.conf
	cat >"$CONFIG" <<-CONF
	[port a0]
	[port a1]
	[route 10.9.0.0/24]
	port = a0
	[route 10.9.1.0/24]
	port = a1
	CONF
}

teardown() {
	kill_left_running HOLDER
	[[ -n ${INST-} ]] || return 0
	"$XDPLEAF" unload --instance "$INST" >/dev/null 2>&1 || true
	rm -f "/run/xdpleaf/$INST.lock"
	ip netns del "$NS" 2>/dev/null || true
}

xl() {
	in_ns "$NS" "$XDPLEAF" "$@"
}

# race "CMD1 ARGS" "CMD2 ARGS": both xdpleaf commands started together in
# the namespace; their exit codes in RC1, RC2, their output (stdout and
# stderr) in OUT1, OUT2.
race() {
	local d=$BATS_TEST_TMPDIR p1 p2
	# shellcheck disable=SC2086 # the commands' words
	xl $1 >"$d/1.out" 2>&1 3>&- &
	p1=$!
	# shellcheck disable=SC2086
	xl $2 >"$d/2.out" 2>&1 3>&- &
	p2=$!
	RC1=0 RC2=0
	wait "$p1" || RC1=$?
	wait "$p2" || RC2=$?
	OUT1=$(<"$d/1.out") OUT2=$(<"$d/2.out")
}

# Whether the instance is loaded whole: status says so with every port
# attached and its daemon running, the pins are there, and the pinned
# program has one tcx link per port. Prints what is wrong otherwise.
loaded_whole() {
	local js prog
	js=$(xl status --json --instance "$INST") || { echo "status: not loaded"; return 1; }
	[[ $(jqv "$js" '.loaded') == true ]] || { echo "status: loaded = false"; return 1; }
	[[ $(jqv "$js" '[.ports[] | select(.attached)] | length') == 2 ]] ||
		{ echo "status: not both ports attached: $js"; return 1; }
	kill -0 "$(jqv "$js" '.daemon_pid')" 2>/dev/null || { echo "status: no daemon"; return 1; }
	[[ -e $PIN/link_tcx_in_a0 && -e $PIN/link_tcx_in_a1 && -e $PIN/prog_leaf_tc ]] ||
		{ echo "pins missing: $(find "$PIN" -mindepth 1 -printf '%f ' 2>&1)"; return 1; }
	prog=$(jqv "$js" '.prog_id')
	[[ $(tcx_links_of "$prog") == 2 ]] || { echo "program $prog has $(tcx_links_of "$prog") tcx links, not 2"; return 1; }
}

# Whether nothing of the instance is left: no pins, status exits 3, no
# daemon on file, no lock file.
gone_whole() {
	local rc=0
	[[ ! -e $PIN ]] || { echo "pins left: $(find "$PIN" -mindepth 1 -printf '%f ')"; return 1; }
	xl status --instance "$INST" >/dev/null 2>&1 || rc=$?
	((rc == 3)) || { echo "status exits $rc, not 3"; return 1; }
	[[ ! -e /run/xdpleaf/$INST.pid ]] || { echo "pid file left"; return 1; }
	[[ ! -e /run/xdpleaf/$INST.lock ]] || { echo "lock file left"; return 1; }
}

@test "20 pairs of concurrent loads: each ends with one loaded, the other refused by name" {
	local pair broken=0 other=0 why win lose
	for pair in $(seq 20); do
		race "load --config $CONFIG --instance $INST" "load --config $CONFIG --instance $INST"
		win=$OUT1 lose=$OUT2
		((RC1 == 0)) || { win=$OUT2 lose=$OUT1; }
		why=
		if ((RC1 == 0 && RC2 == 0)); then
			why="both said loaded"
		elif ((RC1 != 0 && RC2 != 0)); then
			why="both failed"
		elif [[ $win != *"instance '$INST' loaded on 2 ports"* ]]; then
			why="the winner did not say loaded"
		else
			why=$(loaded_whole) && why=
		fi
		if [[ -n $why ]]; then
			broken=$((broken + 1))
		elif [[ $lose != *"instance '$INST' is already loaded"* ]]; then
			# refused, but by something other than the check (main
			# without the lock: "a0: held by xdpleaf instance ...")
			other=$((other + 1))
			why="the loser was refused otherwise"
		fi
		if [[ -n $why ]]; then
			echo "pair $pair: $why"
			echo "first (exit $RC1): $OUT1"
			echo "second (exit $RC2): $OUT2"
		fi
		xl unload --instance "$INST" >/dev/null
		why=$(gone_whole) || { echo "pair $pair, after unload: $why"; return 1; }
	done
	note "concurrent load pairs: $broken of 20 broken, $other refused other than as already loaded"
	((broken == 0 && other == 0))
}

@test "load racing unload: loaded whole or gone whole, as the outputs say" {
	local round broken=0 why loaded=0
	for round in $(seq 10); do
		race "load --config $CONFIG --instance $INST" "unload --instance $INST"
		if ((RC1 != 0 || RC2 != 0)); then
			why="load exits $RC1, unload $RC2"
		elif [[ $OUT2 == *"is not loaded; nothing to unload"* ]]; then
			# unload first, then load
			loaded=$((loaded + 1))
			why=$(loaded_whole) && why=
		elif [[ $OUT2 == *"instance '$INST' unloaded"* ]]; then
			why=$(gone_whole) && why=
		else
			why="unload said neither"
		fi
		if [[ -n $why ]]; then
			broken=$((broken + 1))
			echo "round $round: $why"
			echo "load (exit $RC1): $OUT1"
			echo "unload (exit $RC2): $OUT2"
		fi
		xl unload --instance "$INST" >/dev/null
		why=$(gone_whole) || { echo "round $round, after unload: $why"; return 1; }
	done
	note "load racing unload: $broken of 10 inconsistent ($loaded ended loaded)"
	((broken == 0))
}

# A loaded instance, a command racing its unload: unload always ends with
# it gone whole; the other ran whole before it or is refused by name.
race_unload() { # "COMMAND ARGS" (--instance follows) DONE_TEXT COMMAND
	local round broken=0 why
	for round in $(seq 10); do
		xl load --config "$CONFIG" --instance "$INST" >/dev/null
		race "$1 --instance $INST" "unload --instance $INST"
		why=
		if ((RC2 != 0)) || [[ $OUT2 != *"instance '$INST' unloaded"* ]]; then
			why="unload exits $RC2"
		elif ! { ((RC1 == 0)) && [[ $OUT1 == *"$2"* ]]; } &&
			! { ((RC1 == 1)) && [[ ${OUT1##*$'\n'} == "xdpleaf $3: instance '$INST' is not loaded" ]]; }; then
			why="$3 exits $RC1, neither done nor refused as not loaded"
		else
			why=$(gone_whole) && why=
		fi
		if [[ -n $why ]]; then
			broken=$((broken + 1))
			echo "round $round: $why"
			echo "$3 (exit $RC1): $OUT1"
			echo "unload (exit $RC2): $OUT2"
		fi
		xl unload --instance "$INST" >/dev/null
		why=$(gone_whole) || { echo "round $round, after unload: $why"; return 1; }
	done
	note "$3 racing unload: $broken of 10 inconsistent"
	((broken == 0))
}

@test "reload racing unload: gone whole; reload done before it or refused as not loaded" {
	race_unload "reload --config $CONFIG" "instance '$INST' reloaded" reload
}

@test "upgrade racing unload: gone whole; upgrade done before it or refused as not loaded" {
	race_unload upgrade "instance '$INST' upgraded" upgrade
}

# hold_lock: a holder that never finishes, HOLDER: a process that takes
# the instance's lock and sleeps (itself, so that killing it frees it).
hold_lock() {
	mkdir -p /run/xdpleaf
	python3 -c 'import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
time.sleep(60)' "/run/xdpleaf/$INST.lock" 3>&- &
	HOLDER=$!
	poll grep -q "FLOCK .* $HOLDER " /proc/locks
}

release_lock() {
	kill "$HOLDER"
	wait "$HOLDER" || true
	HOLDER=
}

@test "a command held up past XDPLEAF_LOCK_WAIT fails naming the instance and the holder, changing nothing" {
	local why
	hold_lock
	run env XDPLEAF_LOCK_WAIT=1 nsenter --net="/run/netns/$NS" -- \
		"$XDPLEAF" load --config "$CONFIG" --instance "$INST"
	echo "$output"
	[[ $status -eq 1 ]]
	[[ $output == *"instance '$INST' is busy: pid $HOLDER ("*"python3 -c import fcntl"*"waited 1 s"* ]]
	[[ ! -e $PIN ]]
	run env XDPLEAF_LOCK_WAIT=x "$XDPLEAF" unload --instance "$INST"
	[[ $status -eq 1 && $output == *"XDPLEAF_LOCK_WAIT"*"'x'"* ]]
	# once it is done the same load goes through
	release_lock
	run xl load --config "$CONFIG" --instance "$INST"
	[[ $status -eq 0 ]] || { echo "$output"; return 1; }
	why=$(loaded_whole) || { echo "$why"; return 1; }
	[[ -e /run/xdpleaf/$INST.lock ]]
	run xl unload --instance "$INST"
	[[ $status -eq 0 ]]
	why=$(gone_whole) || { echo "$why"; return 1; }
}

@test "status restarts a dead daemon only while no command holds the instance" {
	local old js
	xl load --config "$CONFIG" --instance "$INST" >/dev/null
	old=$(<"/run/xdpleaf/$INST.pid")
	kill -9 "$old"
	# shellcheck disable=SC2016 # $1 is the inner bash's
	poll bash -c '! kill -0 "$1" 2>/dev/null' _ "$old"
	hold_lock
	js=$(xl status --json --instance "$INST")
	# the holder sees to the daemon: status leaves it
	[[ $(jqv "$js" '.daemon_pid') == 0 ]] || { echo "$js"; return 1; }
	[[ $(<"/run/xdpleaf/$INST.pid") == "$old" ]]
	release_lock
	js=$(xl status --json --instance "$INST")
	kill -0 "$(jqv "$js" '.daemon_pid')"
	[[ $(jqv "$js" '.daemon_pid') != "$old" ]]
}
