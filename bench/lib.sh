# shellcheck shell=bash
# Shell functions shared by the benchmarks' drivers (bench/*/run.sh,
# bench/perf/lab_rate.sh), over lab/lib.sh, which this sources: sourced,
# never run. The caller sets ROOT (the tree) before it sources this, and
# BENCH_NAME (what its messages begin with). Each is written here once.

# shellcheck source=lab/lib.sh
source "$ROOT/lab/lib.sh"

LAB=$ROOT/lab/lab.sh
# for the benches that source this:
# shellcheck disable=SC2034
PY=/usr/bin/python3      # Debian's; the pyenv python3 on PATH may lack modules
# shellcheck disable=SC2034
PINS=/sys/fs/bpf/xdpleaf # every xdpleaf instance's pins, one folder each

# ---- messages and checks --------------------------------------------------

die() { echo "$BENCH_NAME: $*" >&2; exit 1; }
log() { echo "$BENCH_NAME: $*" >&2; }

need_root() { [[ $EUID -eq 0 ]] || die "must run as root"; }

# need_tools TOOL...: dies unless every TOOL is installed.
need_tools() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null || die "$tool not installed (make deps)"
	done
}

# bench_out DIR: OUT becomes --out's directory or else DIR, created, as an
# absolute path.
bench_out() {
	OUT=${OUT:-$1}
	mkdir -p "$OUT"
	OUT=$(cd "$OUT" && pwd -P)
}

# bps_of RATE: 100M -> 100000000 (lab/lib.sh's rate_bps); a bad rate ends
# the run.
bps_of() {
	rate_bps "$1" || die "bad rate '$1' (a whole number of bit/s >= 1M, e.g. 200M)"
}

# ---- leaf1's configuration ------------------------------------------------

# leaf1_conf RATES [LB_MODE]: lab/leaf1.conf on stdout with each uplink's
# capacity as its rate (RATES: u1..u4's, comma-separated) and its phantom
# queue marking instead of dropping when full (overflow = mark), so that
# only the real link, the lab's TBF, ever drops; and lb_mode LB_MODE if
# given. Everything else is the shipped default (flowlet_timeout auto,
# path_skew auto, the buffer 2 ms of the rate, the default class's ECN
# profile).
leaf1_conf() {
	awk -v rates="$1" -v mode="${2-}" '
		BEGIN { split(rates, R, ",") }
		/^\[port u[1-4]\]/ { print; n = substr($2, 2, 1)
			print "rate = " R[n]; print "overflow = mark"; next }
		/^lb_mode = / && mode != "" { print "lb_mode = " mode; next }
		{ print }' "$ROOT/lab/leaf1.conf"
}

# ---- labs and processes ---------------------------------------------------

# Everything a bench starts goes on exit, also on failure or Ctrl-C:
#   trap bench_cleanup EXIT
#   trap 'exit 130' INT TERM
# Background processes are the shell's jobs: `jobs -p` lists only those
# still running, so no pid that has been reused by another process is
# ever signalled. Each lab of BENCH_LABS (lab_start puts it there) is
# removed by the function BENCH_LAB_DOWN names: lab_remove, or a bench's
# own for labs that hold more (its processes in the hosts, host-mode
# instances), which ends with lab_remove.
BENCH_LABS=()
BENCH_LAB_DOWN=lab_remove

stop_jobs() {
	local pid
	for pid in $(jobs -p); do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}

lab_remove() { # prefix
	"$LAB" down --prefix "$1" >/dev/null 2>&1 || log "warning: lab $1: down failed"
}

bench_cleanup() {
	local p
	stop_jobs
	for p in "${BENCH_LABS[@]}"; do
		"$BENCH_LAB_DOWN" "$p"
	done
	BENCH_LABS=()
}

# lab_start P ARGS...: a fresh lab P (`lab.sh up --prefix P ARGS...`; one
# of that name is removed first), its output indented on stderr, removed
# on exit; dies if it did not come up.
lab_start() {
	local p=$1
	shift
	"$BENCH_LAB_DOWN" "$p"
	BENCH_LABS+=("$p")
	"$LAB" up --prefix "$p" "$@" 2>&1 | sed 's/^/  /' >&2
	[[ -e /run/netns/$p-leaf1 ]] || die "lab $p did not come up"
}

# leaf1_learned P: in xdp mode, after lab_warm_up or pings of one's own,
# wait until leaf1's xdpleaf (instance P) has learned the lab's neighbours
# (lab_wait_neigh); a warning if it has not.
leaf1_learned() {
	lab_wait_neigh "$1" || log "warning: xdpleaf in $1 did not learn every neighbour"
}

# leaf1_snap P [kernel]: the members "map" (leaf1's `xdpleaf stats --json`,
# instance P) and "hook" (where it runs) of a counters snapshot, both null
# where leaf1 forwards in the kernel.
leaf1_snap() {
	printf '"map": '
	if [[ ${2-} == kernel ]]; then
		printf 'null,\n"hook": null'
	else
		in_ns "$1-leaf1" "$XDPLEAF" stats --json --instance "$1"
		printf ',\n"hook": '
		in_ns "$1-leaf1" "$XDPLEAF" status --json --instance "$1" | jq .hook
	fi
}

# wait_ready FILE PID WHAT: until FILE (a process's stderr) says "ready",
# up to 10 s; dies with its last lines if the process ends first.
wait_ready() {
	local file=$1 pid=$2 what=$3 tries=1000
	while ((tries-- > 0)); do
		grep -q 'ready' "$file" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || die "$what ended: $(tail -n 3 "$file")"
		sleep 0.01
	done
	die "$what not ready after 10 s: $(tail -n 3 "$file")"
}
