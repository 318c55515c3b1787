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

# leaf1_conf RATES [LB_MODE [OVERFLOW]]: lab/leaf1.conf on stdout with
# each uplink's capacity as its rate (RATES: u1..u4's, comma-separated)
# and its phantom queue marking instead of dropping when full (overflow =
# mark), so that only the real link, the lab's TBF, ever drops; and
# lb_mode LB_MODE if given (not empty). OVERFLOW replaces mark; `default`
# leaves the shipped default (no overflow line). Everything else is the
# shipped default (flowlet_timeout auto, path_skew auto, the buffer 2 ms
# of the rate, the default class's ECN profile).
leaf1_conf() {
	awk -v rates="$1" -v mode="${2-}" -v overflow="${3:-mark}" '
		BEGIN { split(rates, R, ",") }
		/^\[port u[1-4]\]/ { print; n = substr($2, 2, 1)
			print "rate = " R[n]
			if (overflow != "default") print "overflow = " overflow
			next }
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
# on exit; dies if it did not come up. lab_try_start: the same, but
# returns 1 instead, with lab.sh's last lines in LAB_UP_TAIL.
lab_start() {
	lab_try_start "$@" || die "lab $1 did not come up"
}
lab_try_start() {
	local p=$1 log rc=0
	shift
	"$BENCH_LAB_DOWN" "$p"
	BENCH_LABS+=("$p")
	log=$(mktemp)
	"$LAB" up --prefix "$p" "$@" 2>&1 | tee "$log" | sed 's/^/  /' >&2 || rc=$?
	# shellcheck disable=SC2034 # the caller's
	LAB_UP_TAIL=$(tail -n 3 "$log")
	rm -f "$log"
	((rc == 0)) && [[ -e /run/netns/$p-leaf1 ]]
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

# ---- the lab's hosts: TCP profiles, reachability ----------------------------

# The hosts' TCP, per profile ($HOST_TCP, the benches' --host-tcp) in lab
# $P. dc: as datacenter hosts run it and close to bench_balance's TCP
# steps (docs/load-balancing-bench.md): a loss-based congestion control
# instead of this VM's default BBR (which namespaces inherit, and which
# keeps pushing into a full 2 ms buffer); reno, since a namespace may only
# pick an algorithm of tcp_allowed_congestion_control (here reno bbr) and,
# at these sub-3-ms RTTs, cubic runs in its reno-friendly region anyway; a
# minimum RTO of 5 ms, not 200 ms (with 200 ms one tail drop decides a
# step); the window kept between steps, as the library keeps its
# connections warm. ECN as Linux has it: kernel ECMP cannot mark. as-is:
# what the hosts had when the lab came up (a new namespace's: this
# machine's defaults), saved by host_tcp_save, so the profiles alternate
# in one lab. rto5: as-is with only the minimum RTO at 5 ms, the one
# setting docs/jct-bench.md recommends to hosts that keep their congestion
# control.
HOST_TCP_KEYS=(net.ipv4.tcp_congestion_control net.ipv4.tcp_rto_min_us
	net.ipv4.tcp_slow_start_after_idle)
declare -gA HOST_TCP_ASIS
host_tcp_save() {
	local h
	for h in s1 s2 s3 s4 r1 r2 r3 r4; do
		HOST_TCP_ASIS[$h]=$(in_ns "$P-$h" sysctl -n "${HOST_TCP_KEYS[@]}" | paste -sd' ')
	done
}
host_tcp() {
	local h vals
	for h in s1 s2 s3 s4 r1 r2 r3 r4; do
		read -r -a vals <<<"${HOST_TCP_ASIS[$h]}"
		case $HOST_TCP in
		dc) vals=(reno 5000 0) ;;
		rto5) vals[1]=5000 ;;
		esac
		in_ns "$P-$h" sysctl -qw "${HOST_TCP_KEYS[0]}=${vals[0]}" \
			"${HOST_TCP_KEYS[1]}=${vals[1]}" "${HOST_TCP_KEYS[2]}=${vals[2]}"
	done
}

# hosts_warm_up P [kernel]: every host must reach every other host's eth0
# (MPI's ranks connect to each other directly): one ping each way
# resolves every neighbour before the first step, and proves the paths;
# then, unless leaf1 forwards in the kernel, leaf1_learned. Dies naming
# the pairs that got no answer.
HOST_ADDRS=(s1:10.1.1.2 s2:10.1.2.2 s3:10.1.3.2 s4:10.1.4.2
	r1:10.2.1.2 r2:10.2.2.2 r3:10.2.3.2 r4:10.2.4.2)
hosts_warm_up() {
	local a b unreached=()
	for a in "${HOST_ADDRS[@]}"; do
		for b in "${HOST_ADDRS[@]}"; do
			[[ $a == "$b" ]] && continue
			in_ns "$1-${a%%:*}" ping -q -c1 -W2 "${b#*:}" >/dev/null ||
				unreached+=("${a%%:*}->${b%%:*}")
		done
	done
	((${#unreached[@]} == 0)) || die "lab $1: no ping ${unreached[*]}"
	[[ ${2-} == kernel ]] || leaf1_learned "$1"
}

# kill_lab_procs P: every process in lab P's hosts. What a bench starts
# there (mpirun and Open MPI's daemons, or mpiexec and hydra's proxies;
# the agents that started them; the ranks; request/response tools) lives
# in the hosts' namespaces: `ip netns pids` lists exactly those, so
# nothing outside the lab is ever signalled.
kill_lab_procs() {
	local h pids
	for h in s1 s2 s3 s4 r1 r2 r3 r4; do
		[[ -e /run/netns/$1-$h ]] || continue
		pids=$(ip netns pids "$1-$h" 2>/dev/null || true)
		# shellcheck disable=SC2086 # one pid per word
		[[ -z $pids ]] || kill -KILL $pids 2>/dev/null || true
	done
}

# ---- MPI collectives through the lab ------------------------------------------

# build/bench/collective (bench/jct/collective.c), and the script MPI's
# launchers use as their remote shell.
COLLECTIVE=$ROOT/build/bench/collective
MPI_AGENT=$ROOT/bench/jct/mpi_netns_agent.sh
# The lab's hosts in rank order: every ring neighbour is across the fabric.
RANK_HOSTS="s1 r1 s2 r2 s3 r3 s4 r4"

# One rank per lab host, with either library. The launcher runs in s1's
# namespace (its daemons or proxies must reach it over the fabric) and
# starts s1's rank itself; for every other host it starts a daemon (Open
# MPI's orted, hydra's pmi_proxy) through the agent script, which enters
# the namespace that has the host's address (the hostfile lists
# addresses: names would be looked up in a DNS the lab cannot reach, and
# each lookup waits for its timeout). docs/jct-bench.md explains each
# parameter.
write_hostfile() { # file suffix: " slots=1" (Open MPI) or ":1" (hydra)
	local h a
	for h in $RANK_HOSTS; do
		for a in "${HOST_ADDRS[@]}"; do
			[[ ${a%%:*} == "$h" ]] && echo "${a#*:}$2"
		done
	done >"$1"
}

MPI_PARAMS=(
	--mca plm_rsh_agent "$MPI_AGENT" --mca plm_rsh_no_tree_spawn 1
	--mca oob_tcp_if_include eth0 --mca oob_tcp_disable_ipv6_family 1
	--mca btl "tcp,self" --mca btl_tcp_if_include eth0 --mca btl_tcp_disable_family 6
	--mca mpi_yield_when_idle 1
)

# Open MPI's algorithms, named per job through coll_tuned's dynamic rules:
# the op's for its collective, ring (4) and pairwise (2) otherwise, as
# `allreduce` and `alltoall` have always run. The numbers are Open MPI
# 4.1.4's (`ompi_info --param coll tuned --level 9`): allreduce 3
# recursive_doubling, 4 ring, 5 segmented_ring, 6 rabenseifner; alltoall
# 1 linear, 2 pairwise. The segmented ring gets the 1 MiB segments of
# Open MPI's own fixed rules (which switch to it above ranks x 1 MiB):
# the parameter's default, 0, is one segment, which is the plain ring.
# With 8 ranks it segments above 8 MiB per rank (16M: 2 phases, 64M: 8);
# below that the library itself falls back to the plain ring.
ompi_coll_params() { # op -> OMPI_COLL
	local ar=4 aa=2
	OMPI_COLL=()
	case $1 in
	allreduce-segring)
		ar=5
		OMPI_COLL=(--mca coll_tuned_allreduce_algorithm_segmentsize $((1 << 20)))
		;;
	allreduce-recdbl) ar=3 ;;
	allreduce-rabenseifner) ar=6 ;;
	alltoall-linear) aa=1 ;;
	esac
	OMPI_COLL+=(--mca coll_tuned_use_dynamic_rules 1
		--mca coll_tuned_allreduce_algorithm "$ar" --mca coll_tuned_alltoall_algorithm "$aa")
}

# ompi_launch OP HOSTFILE: MPI_LAUNCH becomes the command line of an
# Open MPI job of OP (an op of ompi_coll_params), 8 ranks in RANK_HOSTS
# order, whose hostfile it writes to HOSTFILE; mpi_start starts it.
ompi_launch() {
	write_hostfile "$2" " slots=1"
	ompi_coll_params "$1"
	MPI_LAUNCH=(mpirun.openmpi --allow-run-as-root -np 8 --hostfile "$2"
		--map-by node --bind-to none "${MPI_PARAMS[@]}" "${OMPI_COLL[@]}" "$COLLECTIVE")
}

# mpi_start DIR ARGS...: MPI_LAUNCH with ARGS (the collective's) run from
# s1 of lab $P, in the background: $! is the launcher (nsenter execs it).
# The command line goes to DIR/launch, the collective's JSON to
# DIR/steps.json, the launcher's stderr to DIR/mpirun.err; its daemons'
# temporary files to /tmp/xl-mpi-$P-* (the bench removes them with the
# lab).
mpi_start() {
	local dir=$1
	shift
	printf '%s\n' "${MPI_LAUNCH[*]}" >"$dir/launch" # what ran, for the record
	mkdir -p "/tmp/xl-mpi-$P-s1"
	TMPDIR=/tmp/xl-mpi-$P-s1 XL_MPI_NETNS_PREFIX=$P nsenter --net="/run/netns/$P-s1" -- \
		"${MPI_LAUNCH[@]}" "$@" >"$dir/steps.json" 2>"$dir/mpirun.err" </dev/null &
}

# Hosts of lab P that have a rank running (a `collective` process, or
# `collective-mpich`, whose comm is cut to 15 characters).
hosts_with_rank() {
	local h n=0 pid
	for h in s1 s2 s3 s4 r1 r2 r3 r4; do
		for pid in $(ip netns pids "$P-$h" 2>/dev/null); do
			if [[ $(cat "/proc/$pid/comm" 2>/dev/null) == collective* ]]; then
				n=$((n + 1))
				break
			fi
		done
	done
	echo "$n"
}

# mono_ns: CLOCK_MONOTONIC in ns, the clock of the collective's step
# stamps, after mono_init (once, in the bench's own shell). Bash cannot
# read CLOCK_MONOTONIC and a python start takes ~60 ms here, so the
# clock's offset from CLOCK_REALTIME is read once, and mono_ns is bash's
# own $EPOCHREALTIME (us) less it (a µs reading; NTP's slewing over a run
# is far below that).
mono_init() {
	MONO_OFFSET_NS=$("$PY" -c 'import time
a = time.clock_gettime_ns(time.CLOCK_REALTIME)
m = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
b = time.clock_gettime_ns(time.CLOCK_REALTIME)
print((a + b) // 2 - m)')
}
mono_ns() {
	local t=${EPOCHREALTIME/[.,]/}
	echo $((t * 1000 - MONO_OFFSET_NS))
}
