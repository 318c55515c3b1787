#!/usr/bin/env bats
# The benchmarks' shared helpers, bench/lib.sh and bench/benchlib.py,
# without a lab: leaf1's configuration, rates, waiting for a process,
# the cleanup; the reports' readers.

load helpers

PY=/usr/bin/python3

setup() {
	WORK=$(mktemp -d)
	BENCH_NAME=bench_test
	# shellcheck source=bench/lib.sh
	source "$ROOT/bench/lib.sh"
}

teardown() {
	stop_jobs
	rm -rf "$WORK"
}

# the [port u1] .. [port u4] sections and the group's lb_mode of a config
uplinks_of() {
	awk '/^\[port u/ { p = 1 } /^\[/ && !/^\[port u/ { p = 0 } p' "$1"
}

@test "leaf1_conf: each uplink's rate and overflow = mark; lb_mode only when given" {
	leaf1_conf 200M,100M,100M,50M spray >"$WORK/a.conf"
	[[ $(grep -c '^overflow = mark$' "$WORK/a.conf") == 4 ]]
	[[ $(uplinks_of "$WORK/a.conf" | grep '^rate = ' | paste -sd' ') == "rate = 200M rate = 100M rate = 100M rate = 50M" ]]
	# right after each uplink's header
	[[ $(grep -A1 '^\[port u4\]' "$WORK/a.conf" | tail -1) == "rate = 50M" ]]
	[[ $(grep '^lb_mode = ' "$WORK/a.conf") == "lb_mode = spray" ]]
	leaf1_conf 100G,100G,100G,100G >"$WORK/b.conf"
	[[ $(grep '^lb_mode = ' "$WORK/b.conf") == "$(grep '^lb_mode = ' "$CONF")" ]]
	# nothing else changes
	diff <(grep -v '^rate = \|^overflow = \|^lb_mode = ' "$WORK/a.conf") \
		<(grep -v '^lb_mode = ' "$CONF")
}

@test "leaf1_conf: another overflow, or the shipped default's (no overflow line)" {
	leaf1_conf 100M,100M,100M,100M "" drop >"$WORK/d.conf"
	[[ $(grep -c '^overflow = drop$' "$WORK/d.conf") == 4 ]]
	leaf1_conf 100M,100M,100M,100M "" default >"$WORK/e.conf"
	! grep -q '^overflow' "$WORK/e.conf" || false
	[[ $(grep -c '^rate = 100M$' "$WORK/e.conf") == 4 ]]
	# an empty LB_MODE leaves the config's
	[[ $(grep '^lb_mode = ' "$WORK/e.conf") == "$(grep '^lb_mode = ' "$CONF")" ]]
}

@test "bps_of: rates in bit/s; a bad one ends the run with the bench's name" {
	[[ $(bps_of 2.5G) == 2500000000 ]]
	[[ $(bps_of 100M) == 100000000 ]]
	run bps_of 0.5M
	[[ $status -eq 1 ]]
	[[ $output == "bench_test: bad rate '0.5M'"* ]]
}

@test "wait_ready: returns once the process says ready, dies with its words if it ends" {
	{ sleep 0.2; echo ready >&2; sleep 5; } 2>"$WORK/ok.err" &
	wait_ready "$WORK/ok.err" $! thing
	{ echo "no such device" >&2; } 2>"$WORK/bad.err" &
	local pid=$!
	wait "$pid" || true
	run wait_ready "$WORK/bad.err" "$pid" thing
	[[ $status -eq 1 ]]
	[[ $output == "bench_test: thing ended: no such device" ]]
}

@test "bench_cleanup: stops the jobs still running, takes every lab down its bench's way" {
	downs=()
	my_down() { downs+=("$1"); }
	BENCH_LAB_DOWN=my_down
	BENCH_LABS=(xa xb)
	sleep 30 &
	local pid=$!
	bench_cleanup
	! kill -0 "$pid" 2>/dev/null || false
	[[ ${downs[*]} == "xa xb" ]]
	[[ ${#BENCH_LABS[@]} -eq 0 ]]
}

@test "leaf1_snap: null map and hook where leaf1 forwards in the kernel" {
	[[ $(printf '{'; leaf1_snap xk kernel; printf '}') == '{"map": null,
"hook": null}' ]]
}

@test "benchlib.py: load, json_values, percentile, rate_bps, size_bytes" {
	echo '{"a": 1}' >"$WORK/a.json"
	echo '{"a": ' >"$WORK/bad.json"
	run "$PY" - "$ROOT/bench" "$WORK" <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[1])
import benchlib as b
w = sys.argv[2]
assert b.load(os.path.join(w, "a.json")) == {"a": 1}
assert b.load(os.path.join(w, "bad.json"), {}) == {}
assert b.load(os.path.join(w, "none.json")) is None
assert list(b.json_values('{"t": 1}\n{"t": 2}\n{\n "total": 3\n}\n')) == [{"t": 1}, {"t": 2}, {"total": 3}]
g = b.json_values('{"t": 1} {"t": ')
assert next(g) == {"t": 1}
try:
    next(g)
    raise SystemExit("a cut value must raise")
except ValueError:
    pass
assert b.percentile([5, 1, 4, 2, 3], 50) == 3 and b.percentile([5, 1, 4, 2, 3], 99) == 5
assert b.percentile(list(range(1, 101)), 99) == 99
assert b.rate_bps("200M") == 200000000 and b.rate_bps("2.5G") == 2500000000
for bad in ("0.5M", "1.0000005M", "100m", ""):
    try:
        b.rate_bps(bad)
        raise SystemExit(f"{bad!r} must not parse")
    except ValueError:
        pass
assert b.size_bytes("4M") == 4 << 20 and b.size_bytes("64K") == 64 << 10 and b.size_bytes("7") == 7
snap = {"map": {"ports": [{"name": "u1", "tx_bytes": 5}]}, "tc": {"sp1": [
    {"kind": "tbf", "drops": 3}, {"kind": "fq", "drops": 9}]},
    "nstat": {"s1": {"kernel": {"TcpRetransSegs": 4}}}}
assert b.map_port(snap, "u1")["tx_bytes"] == 5 and b.map_port({"map": None}, "u1") is None
assert b.qdisc_drops(snap, "sp1") == 3 and b.qdisc_drops(snap, "sp2") == 0
c0 = {"nstat": {}}
assert b.nstat_delta(c0, snap, "s1", "TcpRetransSegs") == 4
print("ok")
EOF
	echo "$output"
	[[ $status -eq 0 && $output == ok ]]
}
