#!/usr/bin/env bash
# Job-completion-time benchmark: steps of real MPI collectives (Open MPI
# with each of its named algorithms, or MPICH with its own choice; one
# rank in each of the lab's 8 hosts) and of RoCEv2 messages (xdpleaf gen
# under host mode's DCQCN) through each fabric, and one table of their
# step times as ratios to a non-blocking reference measured in the same
# run. docs/jct-bench.md.
#
#   bench/jct/run.sh [--fabrics LIST] [--uplinks LIST] [--ops LIST]
#                        [--sizes LIST] [--steps N] [--warmup N]
#                        [--ecmp-labs N] [--out DIR] [--prefix P]
#                        [--quiet-wait N] [--cell-timeout N] [--host-tcp LIST]
#                        [--host-dcqcn spec|nic|lab] [--roce-qps N] [--hook auto|xdp|tc]
#                        [--capture]
#
# Ops: allreduce (Open MPI's ring), allreduce-segring (segmented ring),
# allreduce-recdbl (recursive doubling), allreduce-rabenseifner
# (reduce-scatter + allgather), alltoall (pairwise), alltoall-linear (all
# peers at once), mpich-allreduce and mpich-alltoall (MPICH, its default
# selection), roce (RoCEv2 steps).
#
# Fabrics: ref (uplinks unlimited, every receiver's link shaped to the
# aggregate uplink capacity / 4: what crosses the fabric, spread perfectly),
# kernel (kernel ECMP in leaf1, one hash per connection as a switch's:
# lab.sh's host_hash; --ecmp-labs fresh labs per uplink set), krepath
# (kernel ECMP with the hosts re-drawing a connection's hash after each
# RTO: lab.sh --host-repath), flowlet, hash, spray (xdpleaf in leaf1 with
# that lb_mode and otherwise only each uplink's rate and overflow = mark),
# static (xdpleaf with each receiver's traffic pinned to one uplink, the best
# such placement: static_config), kstatic (that placement forwarded by
# the kernel: kstatic_routes). Every lab it
# builds, and every process in its hosts, is removed on exit, also on
# failure or Ctrl-C.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
BENCH_NAME=bench_jct
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
XDPLEAF=$ROOT/build/xdpleaf
COLLECTIVE_MPICH=$ROOT/build/bench/collective-mpich
BENCH=$ROOT/bench/jct

FABRICS="ref kernel flowlet hash spray static"
UPLINKS="equal unequal fail"
OPS="allreduce alltoall roce"
SIZES="1M 4M 16M"
STEPS=20
WARMUP=2
ECMP_LABS=3
QUIET_WAIT=60
CELL_TIMEOUT=            # default: 60 s + 1 s per MiB per step
HOST_TCPS="dc as-is"
HOST_TCP=dc # the profile of the cells being run
HOST_DCQCN=spec
ROCE_QPS=1
HOOK=             # the config's: lab/leaf1.conf has none, so auto
CAPTURE=0
OUT=
PREFIX=xlj$$
RATES_equal=100M,100M,100M,100M
RATES_unequal=200M,100M,100M,50M
# degraded: one of four equal uplinks at a quarter of its rate (a link
# that renegotiated down, or lost lanes)
RATES_degraded=100M,100M,100M,25M
# fail: the equal uplinks, and in every cell spine 2 fails (both its links
# down) for FAIL_S seconds in the middle of the measured steps
# shellcheck disable=SC2034 # read by name, as RATES_$set
RATES_fail=$RATES_equal
FAIL_S=1

usage() {
	cat >&2 <<EOF
usage: $0 [--fabrics LIST] [--uplinks LIST] [--ops LIST] [--sizes LIST]
          [--steps N] [--warmup N] [--ecmp-labs N] [--out DIR] [--prefix P]
          [--quiet-wait N] [--cell-timeout N] [--host-tcp LIST]
          [--host-dcqcn spec|nic|lab] [--roce-qps N] [--hook auto|xdp|tc]
  --fabrics LIST  of ref kernel krepath flowlet hash spray static kstatic
                  (default: all but krepath and kstatic)
  --uplinks LIST  of equal ($RATES_equal), unequal ($RATES_unequal),
                  degraded ($RATES_degraded) and fail (equal, spine 2 down
                  for ${FAIL_S} s in the middle of every cell; its reference is
                  equal's) (default: equal unequal fail)
  --ops LIST      of (default: allreduce alltoall roce)
                  allreduce  Open MPI, ring (coll_tuned algorithm 4)
                  allreduce-segring  segmented ring (5; 1 MiB segments)
                  allreduce-recdbl  recursive doubling (3)
                  allreduce-rabenseifner  reduce-scatter + allgather (6)
                  alltoall  Open MPI, pairwise (coll_tuned algorithm 2)
                  alltoall-linear  every peer at once (1)
                  mpich-allreduce, mpich-alltoall  MPICH, its own choice
                    of algorithm (docs/jct-bench.md)
                  roce  RoCEv2 steps: every sN sends to rN at the NIC rate,
                    paced by host mode's DCQCN
                  (MPI over TCP, one rank per host)
  --sizes LIST    bytes per rank, K/M = 2^10/2^20, e.g. 64M (default: 1M 4M 16M)
  --steps N       measured steps per cell (default $STEPS), after
  --warmup N      unmeasured ones (default $WARMUP)
  --ecmp-labs N   fresh kernel-ECMP labs per uplink set (default $ECMP_LABS):
                  each draws its own hash placement
  --out DIR       raw data, results.json, table.txt, plots/
                  (default build/bench-jct/<date>)
  --prefix P      lab prefix stem (default xlj<pid>); labs are P<fabric><e|u>
  --quiet-wait N  before each cell wait up to N s (default $QUIET_WAIT) until the
                  CPUs are idle (0: do not wait)
  --cell-timeout N  seconds one mpirun may take (default: 60 + 1 per MiB per
                  step); one that takes longer is stopped and tried once more.
                  (roce jobs have 30 s + 4 x their time at the hosts' rate;
                  one still running then ends with its times recorded as
                  lower bounds, and is not tried again)
  --host-tcp LIST the hosts' TCP profiles, each TCP cell run with each (in
                  the same lab, one after the other): dc: reno, minimum RTO
                  5 ms, no slow start after idle; as-is: the hosts as they
                  come (what the namespaces inherit: here BBR, RTO >= 200 ms);
                  rto5: as-is but a minimum RTO of 5 ms (default: dc as-is).
                  RoCE cells run once, under the first.
  --host-dcqcn D  the roce cells' hosts' DCQCN: spec (default): host mode's
                  defaults, the specification's for 40 Gbit/s NICs (a floor
                  of 100 Mbit/s, all of this lab's NIC rate); nic: its rate
                  steps and floor scaled to the lab's NIC rate as
                  bench-dcqcn's (r_ai 1M, r_hai 5M, min_rate 1 % of it);
                  lab: as nic, and its timers K and T scaled to this lab's
                  round trips (1.1 ms, 20 x the specification's 55 us)
  --roce-qps N    QPs per sender in the roce cells (default $ROCE_QPS, NCCL's and
                  HCCL's default per connection); each sends 1/N of the size
                  at 1/N of the NIC rate
  --hook H        where xdpleaf runs in leaf1 in the xdpleaf fabrics
                  (config \`hook\`; default: lab/leaf1.conf's, which sets
                  none: auto, tc on the lab's veths)
  --capture       record the headers of what every uplink's spine receives
                  from leaf1 and sends on toward leaf2 during each MPI job
                  (down1..4.pcap before the uplink's TBF, up1..4.pcap after
                  it), for bench/jct/uplinks.py and timeline.py; costs CPU
Lists are comma or space separated.
EOF
	exit 2
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--fabrics) FABRICS=${2//,/ }; shift 2 ;;
	--hook) HOOK=$2; shift 2 ;;
	--uplinks) UPLINKS=${2//,/ }; shift 2 ;;
	--ops) OPS=${2//,/ }; shift 2 ;;
	--sizes) SIZES=${2//,/ }; shift 2 ;;
	--steps) STEPS=$2; shift 2 ;;
	--warmup) WARMUP=$2; shift 2 ;;
	--ecmp-labs) ECMP_LABS=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--prefix) PREFIX=$2; shift 2 ;;
	--quiet-wait) QUIET_WAIT=$2; shift 2 ;;
	--cell-timeout) CELL_TIMEOUT=$2; shift 2 ;;
	--host-tcp) HOST_TCPS=${2//,/ }; shift 2 ;;
	--host-dcqcn) HOST_DCQCN=$2; shift 2 ;;
	--roce-qps) ROCE_QPS=$2; shift 2 ;;
	--capture) CAPTURE=1; shift ;;
	*) usage ;;
	esac
done

((!CAPTURE)) || command -v dumpcap >/dev/null ||
	die "--capture needs dumpcap (apt-get install tshark, or make deps)"
need_root
[[ -z $HOOK || $HOOK =~ ^(auto|xdp|tc)$ ]] || die "unknown hook '$HOOK' (auto, xdp or tc)"
for f in $FABRICS; do
	[[ $f =~ ^(ref|kernel|krepath|flowlet|hash|spray|static|kstatic)$ ]] || die "unknown fabric '$f'"
done
for u in $UPLINKS; do
	[[ $u =~ ^(equal|unequal|degraded|fail)$ ]] || die "unknown uplink set '$u'"
done
for o in $OPS; do
	[[ $o =~ ^(allreduce(-segring|-recdbl|-rabenseifner)?|alltoall(-linear)?|mpich-(allreduce|alltoall)|roce)$ ]] ||
		die "unknown op '$o'"
done
for s in $SIZES; do
	[[ $s =~ ^[1-9][0-9]*[KM]?$ ]] || die "bad size '$s' (e.g. 4M)"
done
[[ $STEPS =~ ^[1-9][0-9]*$ ]] || die "--steps: a positive number"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "--warmup: a whole number"
[[ $ECMP_LABS =~ ^[1-9][0-9]*$ ]] || die "--ecmp-labs: a positive number"
[[ $QUIET_WAIT =~ ^[0-9]+$ ]] || die "--quiet-wait: a whole number of seconds"
[[ -z $CELL_TIMEOUT || $CELL_TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "--cell-timeout: a positive number of seconds"
for h in $HOST_TCPS; do
	[[ $h =~ ^(dc|as-is|rto5)$ ]] || die "--host-tcp: a list of dc, as-is and rto5, not '$h'"
done
[[ -n $HOST_TCPS ]] || die "--host-tcp: a list of dc, as-is and rto5"
[[ $HOST_DCQCN =~ ^(spec|nic|lab)$ ]] || die "--host-dcqcn: spec, nic or lab"
[[ $ROCE_QPS =~ ^[1-9][0-9]?$ ]] || die "--roce-qps: 1..99"
if [[ " $OPS " =~ \ roce\  ]]; then
	for s in $SIZES; do
		(($(numfmt --from=iec "$s") % (ROCE_QPS * 4) == 0)) ||
			die "--roce-qps $ROCE_QPS: size $s does not split into $ROCE_QPS messages of whole 4-byte words"
	done
fi
[[ $PREFIX =~ ^[A-Za-z0-9_]{1,14}$ ]] || die "--prefix: letters, digits, _; at most 14"
[[ -x $COLLECTIVE ]] || die "$COLLECTIVE not built (make build/bench/collective)"
if [[ " $OPS " =~ \ mpich- ]]; then
	[[ -x $COLLECTIVE_MPICH ]] || die "$COLLECTIVE_MPICH not built (make build/bench/collective-mpich)"
	command -v mpiexec.mpich >/dev/null || die "mpiexec.mpich not installed (make deps)"
fi
if [[ " $FABRICS " =~ \ (flowlet|hash|spray|static)\  || " $OPS " =~ \ roce\  ]]; then
	[[ -x $XDPLEAF ]] || die "$XDPLEAF not built (run make)"
fi
need_tools mpirun.openmpi ip tc nstat jq nsenter ping awk "$PY"
bench_out "$ROOT/build/bench-jct/$(date +%Y%m%d-%H%M%S)"

# ---- cleanup: our processes by pid, our labs by prefix ------------------

# Every process this script starts in a lab lives in its hosts
# (bench/lib.sh's kill_lab_procs); the launcher itself is also this
# shell's job. On exit (bench/lib.sh's bench_cleanup) each lab goes with
# lab_down.
lab_down() { # prefix
	kill_lab_procs "$1"
	hosts_unload "$1" # roce cells' host mode (its pins outlive the namespaces)
	# the MPI daemons' temporary files (mpi_netns_agent.sh, run_cell)
	rm -rf /tmp/xl-mpi-"$1"-*
	lab_remove "$1"
}
BENCH_LAB_DOWN=lab_down
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

# ---- numbers -----------------------------------------------------------

# Sum of a comma-separated rate list, in bit/s.
sum_bps() {
	local IFS=, r t=0
	for r in $1; do t=$((t + $(bps_of "$r"))); done
	echo "$t"
}

# ---- the lab -----------------------------------------------------------

# The `static` fabric: the best placement a hand could pin, as a reference
# for the balancers. Each uplink is a group of its own (so every packet
# still takes xdpleaf's path), and the traffic to each receiver's /24
# goes to one of them, chosen in turn where it gets the largest share:
# capacity / (receivers there + 1), ties to the first. 200/100/100/50:
# r1, r2 on u1, r3 on u2, r4 on u3 (2/1/1/0); equal uplinks: one each.
# Rates and overflow as every fabric's (bench/lib.sh's leaf1_conf); no
# failover but the dataplane's own.
static_pins() { # rates(comma) > "u-of-r1 u-of-r2 u-of-r3 u-of-r4"
	local r bps=()
	for r in ${1//,/ }; do bps+=("$(bps_of "$r")"); done
	awk -v bps="${bps[*]}" 'BEGIN { split(bps, B, " ")
		for (r = 1; r <= 4; r++) { best = 0
			for (i = 1; i <= 4; i++)
				if (!best || B[i] / (n[i] + 1) > B[best] / (n[best] + 1))
					best = i
			printf "%s%d", (r > 1 ? " " : ""), best; n[best]++ }
		print "" }'
}

static_config() { # rates(comma) > file
	leaf1_conf "$1" | awk -v pins="$(static_pins "$1")" '
		BEGIN { split(pins, pin, " ") }
		/^\[port u[1-4]\]/ { port = substr($2, 2, 1) }
		/^group = spine$/ && port { print "group = u" port; port = 0; next }
		/^\[group spine\]$/ { for (i = 1; i <= 4; i++)
				printf "[group u%d]\nlb_mode = hash\n\n", i
			skip = 1; next }
		skip && /^\[/ { skip = 0 }
		skip { next }
		/^\[route 10\.2\.0\.0\/16\]$/ { getline
			for (r = 1; r <= 4; r++)
				printf "[route 10.2.%d.0/24]\ngroup = u%d\n", r, pin[r]
			next }
		/^\[route fd00:2::\/32\]$/ { print; getline # MPI runs over IPv4
			print "group = u1"; next }
		{ print }'
}

# The `kstatic` fabric: static's placement, forwarded by the kernel (kernel
# mode, leaf1 routing each receiver's /24 via its pinned uplink instead of
# ECMP): static against kstatic is xdpleaf's forwarding path against the
# kernel's, with nothing else different.
kstatic_routes() { # rates(comma)
	local r=0 u
	for u in $(static_pins "$1"); do
		r=$((r + 1))
		ip -n "$P-leaf1" route replace "10.2.$r.0/24" via "10.254.$u.2" dev "u$u"
	done
}

# ref, kernel, krepath and kstatic: leaf1 forwards in the kernel, no
# xdpleaf there.
kernel_fabric() { [[ $FABRIC =~ ^(ref|kernel|krepath|kstatic)$ ]]; }

# Bring a lab up; sets P (its prefix) and FABRIC.
lab_up() { # fabric uplink-set tag
	local fabric=$1 set=$2 tag=$3 rates args conf
	rates=RATES_$set
	rates=${!rates}
	P=$PREFIX$tag${set:0:1}
	FABRIC=$fabric
	case $fabric in
	ref)
		args=(--mode kernel --receiver-rate "$(($(sum_bps "$rates") / 4))")
		;;
	kernel | kstatic)
		args=(--mode kernel --uplink-rates "$rates")
		;;
	krepath) # lab.sh's hosts keep one hash per connection unless told
		args=(--mode kernel --uplink-rates "$rates" --host-repath)
		;;
	*)
		# leaf1's configuration: leaf1_conf's (bench/lib.sh) with lb_mode,
		# or static's
		conf=$OUT/leaf1-$fabric-$set.conf
		if [[ $fabric == static ]]; then
			static_config "$rates"
		else
			leaf1_conf "$rates" "$fabric"
		fi >"$conf"
		args=(--mode xdp --config "$conf" --uplink-rates "$rates")
		[[ -z $HOOK ]] || args+=(--hook "$HOOK")
		;;
	esac
	lab_start "$P" "${args[@]}"
	[[ $fabric != kstatic ]] || kstatic_routes "$rates"
	linkdown_routes
	host_tcp_save
	if kernel_fabric; then hosts_warm_up "$P" kernel; else hosts_warm_up "$P"; fi
}

# A link that lost its carrier must not keep its share of the kernel's
# multipath routes (Linux keeps using it by default): what a routing
# daemon would arrange, and what bench/balance/run.sh sets. In both leaves,
# for every fabric: the kernel forwards all of kernel ECMP's traffic and
# xdpleaf's slow path; without it the failure (--uplinks fail) would leave
# kernel ECMP blackholing the dead spine's share for the whole outage.
linkdown_routes() {
	local leaf n
	for leaf in leaf1 leaf2; do
		for n in all default; do
			in_ns "$P-$leaf" sysctl -qw "net.ipv4.conf.$n.ignore_routes_with_linkdown=1"
		done
		for n in $(ip -n "$P-$leaf" -o link show | awk -F': ' '{print $2}' | sed 's/@.*//'); do
			in_ns "$P-$leaf" sysctl -qw "net.ipv4.conf.$n.ignore_routes_with_linkdown=1" 2>/dev/null || true
		done
	done
}

# ---- measuring ---------------------------------------------------------

# Every counter the report reads, as one JSON object: nstat (absolute, no
# history file: -a -s) in every host, every qdisc's counters in the hosts,
# spines and leaves, xdpleaf's stats in xdp fabrics.
counters() { # file
	local h sep
	{
		printf '{"t": %s,\n"nstat": {' "$(date +%s.%N)"
		sep=
		for h in s1 s2 s3 s4 r1 r2 r3 r4; do
			printf '%s"%s": ' "$sep" "$h"
			in_ns "$P-$h" nstat -asz -j
			sep=,
		done
		printf '},\n"tc": {'
		sep=
		for h in s1 s2 s3 s4 r1 r2 r3 r4 sp1 sp2 sp3 sp4 leaf1 leaf2; do
			printf '%s"%s": ' "$sep" "$h"
			in_ns "$P-$h" tc -s -j qdisc show
			sep=,
		done
		printf '},\n'
		if kernel_fabric; then leaf1_snap "$P" kernel; else leaf1_snap "$P"; fi
		printf '}\n'
	} >"$1"
}

# MPICH (Debian 12: 4.0.2, device ch4:ucx, hydra) with its own choice of
# algorithm (docs/jct-bench.md: Rabenseifner's all-reduce, pairwise
# all-to-all at these sizes). Hydra starts its proxies through the same
# agent (rsh launcher: `AGENT HOST PROXY ARGS...`; the host that is s1's
# own address it forks itself), and -iface eth0 gives them s1's eth0
# address to call back to. UCX, which carries the ranks' data, is held to
# TCP on eth0: the ranks all run on one machine, and its shared memory
# transports would carry the data past the fabric. MPICH's progress loop
# yields the CPU only when the rank is threaded, as Open MPI's
# mpi_yield_when_idle: 8 ranks spinning on 2 CPUs ran 1 MiB all-reduce
# steps in 750-1010 ms, yielding in 330-500 ms (kernel ECMP, no TCP tuning).
MPICH_PARAMS=(
	-launcher rsh -launcher-exec "$MPI_AGENT" -iface eth0
	-genv UCX_TLS "tcp,self" -genv UCX_NET_DEVICES eth0
	-genv MPIR_CVAR_DEFAULT_THREAD_LEVEL MPI_THREAD_MULTIPLE
)

# ---- the uplink failure (--uplinks fail) ----------------------------------

# Spine 2 fails: both its links go down (leaf1's u2 and leaf2's link to
# it lose carrier, as when a spine reboots or its line card dies), so both
# leaves stop using it. Taking only leaf1's side down would leave leaf2
# hashing the return traffic into a spine that cannot deliver it, for as
# long as the lab has no routing protocol to withdraw it: that measures
# the lab, not a balancer. Its static routes go with the links and come
# back with them, as in bench/balance/run.sh's failover.
#
# Each transition is one `ip -batch`, so the spine changes as one unit.
# With one `ip` per link and route (run 7: ~100 ms on this busy machine),
# leaf1 saw u2's carrier back while the spine still had no link or route
# toward leaf2, and what it sent there in between was lost: the lab's
# artefact, not the balancer's. A spine that comes back is announced by
# its routing protocol once it can forward.
#
# What the spine loses with its links (its static routes; its IPv6
# addresses are kept) is saved before the job, so that each transition
# is one process start (the batch), not eight.
fail_prepare() {
	local dev
	for dev in down up; do
		FAIL_ROUTES4[$dev]=$(ip -n "$P-sp2" route show dev "$dev" proto boot)
		FAIL_ROUTES6[$dev]=$(ip -n "$P-sp2" -6 route show dev "$dev" proto boot)
		in_ns "$P-sp2" sysctl -qw "net.ipv6.conf.$dev.keep_addr_on_down=1"
	done
}

link_down() { # dir
	mono_ns >"$1/t_down"
	printf 'link set dev %s down\n' down up | ip -n "$P-sp2" -batch -
	FAIL_STATE=1
}

# Both links up, then every saved route (ip infers each route's family from
# its prefix), in one batch.
link_up() { # dir
	local dev rt
	mono_ns >"$1/t_up"
	{
		printf 'link set dev %s up\n' up down
		for dev in up down; do
			while read -r rt; do
				[[ -z $rt ]] || echo "route replace $rt dev $dev"
			done <<<"${FAIL_ROUTES4[$dev]}
${FAIL_ROUTES6[$dev]}"
		done
	} | ip -n "$P-sp2" -batch -
	FAIL_STATE=2
}
declare -A FAIL_ROUTES4 FAIL_ROUTES6

# The clock and the job's progress (rank 0's, or roce_steps.py's; empty
# until its first step), read once per tick of job_once's watch loop for
# fail_tick and stall_tick.
tick_read() { # dir
	TICK_NOW=$(date +%s%N)
	TICK_STEPS=
	[[ ! -s $1/progress ]] || read -r TICK_STEPS <"$1/progress" || true
}

# Called from job_once's watch loop: down once the job has done WARMUP +
# STEPS / 2 steps (the collective's rank 0 or roce_steps.py writes the
# count to its --progress file), so the outage falls among the measured
# steps however fast the fabric runs them (timed by the reference's steps
# instead, a fabric twice as fast had finished before the link went down:
# 1 MiB RoCE steps did). Up FAIL_S later.
fail_tick() { # dir
	local now=$TICK_NOW steps_done=$TICK_STEPS
	((started)) || return 0
	if ((FAIL_STATE == 0)) && [[ -n $steps_done ]] && ((steps_done >= WARMUP + STEPS / 2)); then
		link_down "$1"
		T_DOWN=$now
	elif ((FAIL_STATE == 1 && now - T_DOWN >= FAIL_S * 1000000000)); then
		link_up "$1"
	fi
}

# Evidence of a stall in a failing cell (runs 18 and 20: one step of
# 1.3 s in 2 of 3 full runs, never in a repeat of the cell alone). The
# job's progress file not moving for 3 x the last step before the failure
# (0.3 s at least) saves, once per job and in the background
# (fail_tick must stay on time), every host's TCP sockets (ss -tin: RTO,
# backoff, retransmits, unacknowledged) and the neighbour tables and
# counters of leaf1, spine 2 and leaf2: stall.txt. fail_arp_start
# records the neighbour resolution around the failure: ARP and ICMP in
# the same three (arp-NODE.pcap, `-i any`, so a link going down does not
# end the capture).
stall_reset() {
	STALL_V=
	STALL_T=0
	STALL_STEP=0
	STALL_SAVED=0
	STALL_PID=
}
stall_tick() { # dir
	local now=$TICK_NOW v=$TICK_STEPS limit
	[[ -n $v ]] || return 0
	if [[ $v != "$STALL_V" ]]; then
		((FAIL_STATE || !STALL_T)) || STALL_STEP=$((now - STALL_T))
		STALL_V=$v
		STALL_T=$now
		return 0
	fi
	((!STALL_SAVED && STALL_STEP && FAIL_STATE)) || return 0
	limit=$((STALL_STEP * 3 > 300000000 ? STALL_STEP * 3 : 300000000))
	((now - STALL_T > limit)) || return 0
	STALL_SAVED=1
	stall_snapshot "$1/stall.txt" "$v" "$((now - STALL_T))" &
	STALL_PID=$!
}
stall_snapshot() { # file step stalled-ns
	local n
	{
		echo "step $2 stalled for $(($3 / 1000000)) ms at monotonic $(mono_ns) ns"
		for n in s1 s2 s3 s4 r1 r2 r3 r4; do
			echo "== $n: ss -tin"
			in_ns "$P-$n" ss -tin
		done
		for n in leaf1 sp2 leaf2; do
			echo "== $n: ip -s neigh"
			in_ns "$P-$n" ip -s neigh
			echo "== $n: nstat -az"
			in_ns "$P-$n" nstat -az
		done
	} >"$1" 2>&1
}
ARP_CAPTURERS=()
fail_arp_start() { # dir
	local n
	ARP_CAPTURERS=()
	command -v dumpcap >/dev/null || return 0
	for n in leaf1 sp2 leaf2; do
		nsenter --net="/run/netns/$P-$n" -- dumpcap -q -P -i any -s 128 -B 4 \
			-f 'arp or icmp' -w "$1/arp-$n.pcap" </dev/null >/dev/null 2>"$1/arp-$n.err" &
		ARP_CAPTURERS+=($!)
	done
	for n in leaf1 sp2 leaf2; do
		poll_file "$1/arp-$n.pcap"
	done
}

# ---- RoCEv2 steps (--ops roce) -------------------------------------------

# Host mode on every host for the roce cells, with its defaults (DCQCN's
# paper variant; NP and RP both on) and one fact of the fabric: the hosts'
# NIC rate, which is what the reference gives each receiver (the aggregate
# uplink capacity / 4). Each sender's gen sends one QP at that rate, or at
# the lower rate its RP publishes after CNPs; with --roce-qps N, N QPs at
# 1/N of it each (gen paces each QP on its own: a NIC whose QPs share its
# line rate in equal parts while all of them send, as they do here).
# --host-dcqcn nic scales the RP's rate steps and floor to that NIC rate
# (the specification's are a 40 Gbit/s NIC's: its 100 Mbit/s floor is all
# of this lab's 100 Mbit/s NIC, so a QP cannot slow down at all), as
# bench/dcqcn/run.sh does: R_AI 1M and R_HAI 5M (the config's least, in
# the paper's ratio) and a floor of 1 % of the NIC rate. --host-dcqcn lab
# also slows its timers K (alpha) and T (increase) from 55 us to 1.1 ms:
# the specification's are for round trips of microseconds, and here a
# round trip through a full uplink buffer is 2 ms (a frame alone takes
# 88 us at 100 Mbit/s), so with 55 us timers a QP cut by a CNP is back at
# full rate before the queue that caused the cut has drained (two QPs on
# one uplink then overflow it; docs/jct-bench.md, "The known bounds").
host_rate() { # uplink set -> bit/s
	local rates=RATES_$1
	echo $(($(sum_bps "${!rates}") / 4))
}
hosts_load() { # dir
	local h rate
	rate=$(host_rate "$SET")
	printf '[xdpleaf]\nmode = host\n\n[port eth0]\nrate = %s\n' "$rate" >"$1/host.conf"
	[[ $HOST_DCQCN == spec ]] ||
		printf '\n[dcqcn]\nr_ai = 1M\nr_hai = 5M\nmin_rate = %s\n' $((rate / 100)) >>"$1/host.conf"
	[[ $HOST_DCQCN != lab ]] || printf 'k = 1100us\nt = 1100us\n' >>"$1/host.conf"
	for h in s1 s2 s3 s4 r1 r2 r3 r4; do
		# (its stderr kept: with --host-dcqcn spec it warns that the
		# floor leaves no room to cut, which this bench knows)
		in_ns "$P-$h" "$XDPLEAF" load --config "$1/host.conf" --instance "${P}_$h" \
			</dev/null >/dev/null 2>>"$1/host-load.err" || return 1
	done
}
# Unloads what hosts_load loaded in lab $1 (any that is there), after
# saving every host's counters (CNPs sent and received) in $2/host-H.json
# if given.
hosts_unload() { # prefix [dir]
	local h
	for h in s1 s2 s3 s4 r1 r2 r3 r4; do
		[[ -e $PINS/${1}_$h ]] || continue
		[[ -z ${2-} ]] || in_ns "$1-$h" "$XDPLEAF" stats --json --instance "${1}_$h" \
			>"$2/host-$h.json" 2>/dev/null || true
		in_ns "$1-$h" "$XDPLEAF" unload --instance "${1}_$h" >/dev/null 2>&1 ||
			log "warning: host mode in $1-$h: unload failed"
	done
}

# One job of STEPS + WARMUP steps: an mpirun of the collective, or for
# roce bench/jct/roce_steps.py (4 senders, a barrier between steps).
job_start() { # op size dir limit-seconds
	: >"$3/progress" # there and empty until the first step (an earlier attempt's gone)
	if [[ $1 == roce ]]; then
		local leaf=()
		kernel_fabric || leaf=(--leaf1-instance "$P")
		"$PY" "$BENCH/roce_steps.py" --xdpleaf "$XDPLEAF" --prefix "$P" --pins "$PINS" \
			--bytes "$(numfmt --from=iec "$2")" --qps "$ROCE_QPS" --rate $(($(host_rate "$SET") / ROCE_QPS)) \
			--steps "$STEPS" --warmup "$WARMUP" --timeout "$4" "${leaf[@]}" \
			--progress "$3/progress" >"$3/steps.json" 2>"$3/mpirun.err" </dev/null &
		return
	fi
	local coll=${1#mpich-}
	coll=${coll%%-*} # the collective: allreduce or alltoall
	if [[ $1 == mpich-* ]]; then
		write_hostfile "$3/hostfile" :1
		MPI_LAUNCH=(mpiexec.mpich -n 8 -f "$3/hostfile" "${MPICH_PARAMS[@]}" "$COLLECTIVE_MPICH")
	else
		ompi_launch "$1" "$3/hostfile"
	fi
	mpi_start "$3" --op "$coll" --bytes "$2" --steps "$STEPS" --warmup "$WARMUP" \
		--progress "$3/progress"
}

# One job, watched: if the 8 ranks are not all running within START_LIMIT
# s (a daemon that never came up: mpirun waits for it forever), or the job
# is not done within its time limit, every host's TCP sockets are saved
# (hang-ss.txt) and the job is stopped.
START_LIMIT=60
job_once() { # op size dir limit-seconds
	local op=$1 size=$2 dir=$3 limit=$4 pid t0 h started=0 why rc=0
	job_start "$@"
	# roce_steps.py ends a job out of time itself, then stops its senders
	# and waits for the sinks to settle: the watchdog is for a hang
	[[ $op != roce ]] || limit=$((limit + 90))
	pid=$! # nsenter execs mpirun: this is mpirun (or roce_steps.py)
	t0=$(date +%s%N)
	FAIL_STATE=0
	stall_reset
	while kill -0 "$pid" 2>/dev/null; do
		why=
		if [[ $SET == fail ]]; then
			tick_read "$dir"
			fail_tick "$dir"
			stall_tick "$dir"
		fi
		if ((!started)); then
			if [[ $op == roce ]] || (($(hosts_with_rank) == 8)); then
				started=1
			elif (($(date +%s%N) - t0 > START_LIMIT * 1000000000)); then
				why="not every rank started within $START_LIMIT s"
			fi
		fi
		if (($(date +%s%N) - t0 > limit * 1000000000)); then
			why="still running after $limit s"
		fi
		if [[ -n $why ]]; then
			for h in s1 s2 s3 s4 r1 r2 r3 r4; do
				echo "== $h"
				in_ns "$P-$h" ss -tinp
			done >"$dir/hang-ss.txt" 2>&1
			log "  $op $size: $why: stopped (sockets in hang-ss.txt)"
			kill -TERM "$pid" 2>/dev/null || true
			sleep 2
			kill_lab_procs "$P"
			break
		fi
		if [[ $SET == fail ]]; then sleep 0.05; else sleep 0.2; fi
	done
	wait "$pid" || rc=$?
	# a stall snapshot still being written
	[[ -z $STALL_PID ]] || wait "$STALL_PID" || true
	# a job that ended with the link still down brings it back
	[[ $SET != fail || $FAIL_STATE != 1 ]] || link_up "$dir"
	echo $((($(date +%s%N) - t0) / 1000000)) >"$dir/mpirun_ms"
	# An MPICH job's exit status is no verdict once its steps are out:
	# collective-mpich's ranks leave MPI_Finalize's deadlock on a timer
	# (collective.c), and a rank gone before hydra answers its PMI barrier
	# makes hydra report an error (2 of 24 MPICH jobs, as-is hosts). Rank 0
	# prints only after every step, and the wrong results summed over all
	# ranks: all steps there with none wrong is a job done.
	echo "$rc" >"$dir/exit_status"
	if ((rc != 0)) && [[ $op == mpich-* ]] && jq -e --argjson n "$STEPS" \
		'(.steps | length) == $n and .wrong_results == 0' "$dir/steps.json" >/dev/null 2>&1; then
		log "  $op $size: mpiexec exited $rc after every step was done and right (MPICH's finalize)"
		rc=0
	fi
	((rc == 0)) && jq -e '.steps | length > 0' "$dir/steps.json" >/dev/null 2>&1
}

# --capture: the data packets from leaf1's side, headers only, at each
# spine twice: arriving on `down` from leaf1 (downN.pcap, before the
# uplink's TBF) and leaving on `up` toward leaf2 (upN.pcap, after it). A
# segment in the first and not in the second was lost in the spine (its
# TBF); one whose bytes an earlier packet on any `down` already carried
# is a retransmission (bench/jct/timeline.py). clock.json pairs the
# captures' clock (CLOCK_REALTIME) with the steps' (CLOCK_MONOTONIC).
CAPTURERS=()
capture_start() { # op dir
	local n dev
	CAPTURERS=()
	((CAPTURE)) && [[ $1 != roce ]] || return 0
	for n in 1 2 3 4; do
		for dev in up down; do
			# nsenter execs dumpcap: $! is the capture itself
			nsenter --net="/run/netns/$P-sp$n" -- dumpcap -q -P -i "$dev" -s 80 -B 64 \
				-f 'tcp and src net 10.1.0.0/16 and greater 200' \
				-w "$2/$dev$n.pcap" </dev/null >/dev/null 2>"$2/$dev$n.err" &
			CAPTURERS+=($!)
		done
	done
	for n in 1 2 3 4; do # capturing once its file has a header
		for dev in up down; do
			poll_file "$2/$dev$n.pcap"
		done
	done
	printf '{"realtime_ns": %s, "monotonic_ns": %s}\n' "$(date +%s%N)" "$(mono_ns)" \
		>"$2/clock.json"
}
# Stop the captures whose pids the named array holds (CAPTURERS,
# ARP_CAPTURERS) and empty it.
captures_stop() { # array-name
	local -n pids=$1
	local pid
	for pid in "${pids[@]}"; do
		kill -INT "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	pids=()
}
poll_file() { # file: wait up to 5 s until it is not empty
	local tries=100
	until [[ -s $1 ]]; do
		((tries-- > 0)) || die "capture did not start: $1"
		sleep 0.05
	done
}

run_cell() { # op size
	local op=$1 size=$2 dir limit mib try mover ok
	dir=$RUN/$op-$size
	rm -rf "$dir"
	mkdir -p "$dir"
	mib=$(($(numfmt --from=iec "$size") >> 20))
	limit=${CELL_TIMEOUT:-$((60 + (STEPS + WARMUP) * (mib > 0 ? mib : 1)))}
	# roce: 30 s and 4 x the job's time at the hosts' rate (frames of
	# 1082 bytes for 1024); a fabric that needs longer (go-back-N on a path
	# that drops most of what it is sent) has its times recorded as lower
	# bounds (roce_steps.py) instead of holding the run for minutes
	[[ $op != roce ]] ||
		limit=$(awk -v b="$(numfmt --from=iec "$size")" -v n=$((STEPS + WARMUP)) 			-v r="$(host_rate "$SET")" 'BEGIN { printf "%d", 30 + 4 * n * b * 8 * 1082 / 1024 / r }')
	[[ $SET != fail ]] || fail_prepare
	for try in 1 2; do
		quiet_gate "$dir" "$QUIET_WAIT"
		counters "$dir/c0.json"
		if [[ $op == roce ]] && ! hosts_load "$dir"; then
			hosts_unload "$P"
			log "  roce $size: host mode did not load: $(tail -2 "$dir/host-load.err")"
			return 1
		fi
		# leaf1's moves during an MPI job (xdp fabrics), for
		# bench/jct/placement.py, with its drops and the uplinks' downs
		# and ups as the daemon saw them; roce_steps.py records its own
		mover=
		if [[ $op != roce ]] && ! kernel_fabric; then
			# the flows an earlier cell left, to tell this job's apart
			in_ns "$P-leaf1" "$XDPLEAF" flows --json --instance "$P" >"$dir/flows0.json"
			nsenter --net="/run/netns/$P-leaf1" -- "$XDPLEAF" events --instance "$P" \
				--kind move,move_refused,link_down,link_up,drop --json >"$dir/moves.jsonl" 2>"$dir/moves.err" </dev/null &
			mover=$!
		fi
		capture_start "$op" "$dir"
		[[ $SET != fail ]] || fail_arp_start "$dir"
		job_once "$op" "$size" "$dir" "$limit" && ok=1 || ok=0
		captures_stop ARP_CAPTURERS
		captures_stop CAPTURERS
		if [[ -n $mover ]]; then
			kill -INT "$mover" 2>/dev/null || true
			wait "$mover" 2>/dev/null || true
		fi
		if ((ok)); then
			[[ $op != roce ]] || hosts_unload "$P" "$dir"
			counters "$dir/c1.json"
			# which flows moved, and how often (xdp fabrics)
			kernel_fabric ||
				in_ns "$P-leaf1" "$XDPLEAF" flows --json --instance "$P" >"$dir/flows.json"
			echo "$try" >"$dir/attempts"
			printf '  %s %s: p50 %s ms\n' "$op" "$size" "$(jq '[.steps[].time_ns] | sort |
				.[(length - 1) / 2 | floor] / 1e6 | . * 10 | round / 10' "$dir/steps.json")" >&2
			return 0
		fi
		kill_lab_procs "$P"
		[[ $op != roce ]] || hosts_unload "$P"
		log "  $op $size failed (attempt $try): $(tail -3 "$dir/mpirun.err")"
		[[ -e $dir/hang-ss.txt ]] && mv "$dir/hang-ss.txt" "$dir/hang-ss-$try.txt"
		cp "$dir/mpirun.err" "$dir/mpirun-$try.err" 2>/dev/null || true
	done
	return 1
}

# One lab, every cell of it: each host TCP profile in turn (RoCE cells,
# which use no TCP, under the first only), results in
# OUT/PROFILE/SET/LABEL/OP-SIZE.
run_lab() { # fabric set tag label
	local op size bad=0 first=1
	log "$4, uplinks $2 ($(eval echo "\$RATES_$2"))"
	lab_up "$1" "$2" "$3"
	SET=$2
	for HOST_TCP in $HOST_TCPS; do
		host_tcp
		RUN=$OUT/$HOST_TCP/$2/$4
		mkdir -p "$RUN"
		printf '{"fabric": "%s", "uplinks": "%s", "label": "%s", "lab": "%s", "rates": "%s", "host_tcp": "%s"}\n' \
			"$1" "$2" "$4" "$P" "$(eval echo "\$RATES_$2")" "$HOST_TCP" >"$RUN/meta.json"
		log "  hosts' TCP: $HOST_TCP"
		for op in $OPS; do
			# gen's RoCE frames have no socket hash: krepath's would be
			# kernel's; and they use no TCP
			[[ $1 != krepath || $op != roce ]] || continue
			[[ $op != roce ]] || ((first)) || continue
			for size in $SIZES; do
				run_cell "$op" "$size" || bad=1
			done
		done
		first=0
	done
	lab_down "$P"
	return "$bad"
}

# ---- the run -----------------------------------------------------------

T_START=$(date +%s)
mono_init # mono_ns: the failure and the captures are timed on the steps' clock
log "results in $OUT"
# what as-is hosts get: this machine's defaults, as a new namespace has them
ip netns add "${PREFIX}probe"
asis=$(in_ns "${PREFIX}probe" sysctl -n "${HOST_TCP_KEYS[@]}" | paste -sd' ' || true)
ip netns del "${PREFIX}probe"
read -r -a asis <<<"$asis"
((${#asis[@]} == 3)) || die "cannot read a new namespace's TCP settings (${HOST_TCP_KEYS[*]})"
cc="${HOST_TCPS// /, }; dc = reno, rto_min 5 ms, no slow start after idle; as-is = ${asis[0]}, rto_min $((asis[1] / 1000)) ms, slow start after idle ${asis[2]}; rto5 = as-is with rto_min 5 ms"
printf '{"fabrics": "%s", "uplinks": "%s", "ops": "%s", "sizes": "%s", "steps": %s, "warmup": %s, "ecmp_labs": %s, "fail_s": %s, "rates_equal": "%s", "rates_unequal": "%s", "rank_hosts": "%s", "tcp_congestion_control": "%s", "host_dcqcn": "%s", "roce_qps": %s, "mpi": "%s", "mpi_params": "%s", "mpich": "%s", "mpich_params": "%s", "cpus": %s}\n' \
	"$FABRICS" "$UPLINKS" "$OPS" "$SIZES" "$STEPS" "$WARMUP" "$ECMP_LABS" "$FAIL_S" \
	"$RATES_equal" "$RATES_unequal" "$RANK_HOSTS" "$cc" "$HOST_DCQCN" "$ROCE_QPS" \
	"$(ompi_info --version 2>/dev/null | head -1)" "${MPI_PARAMS[*]}" \
	"$(mpichversion 2>/dev/null | awk -F'\t+' '/^MPICH (Version|Device)/ { printf "%s%s", (n++ ? " " : "MPICH "), $2 }')" \
	"${MPICH_PARAMS[*]}" "$(nproc)" >"$OUT/setup.json"
if [[ -x $XDPLEAF ]]; then
	# the dataplane measured: the commit it was built from, and the binary
	printf '%s\n%s\n' "$("$XDPLEAF" --version)" "$(sha256sum "$XDPLEAF")" >"$OUT/xdpleaf_version"
fi

FAILED=0
for set in $UPLINKS; do
	for fabric in $FABRICS; do
		case $fabric in
		ref)
			# the failure's reference is equal's
			[[ $set == fail ]] || run_lab ref "$set" n ref || FAILED=1
			;;
		kernel)
			for ((i = 1; i <= ECMP_LABS; i++)); do
				run_lab kernel "$set" "k$i" "kernel-$i" || FAILED=1
			done
			;;
		static) run_lab static "$set" t static || FAILED=1 ;; # s is spray's
		kstatic) run_lab kstatic "$set" K kstatic || FAILED=1 ;;
		krepath) run_lab krepath "$set" p krepath || FAILED=1 ;;
		*) run_lab "$fabric" "$set" "${fabric:0:1}" "$fabric" || FAILED=1 ;;
		esac
	done
done
log "measured in $(($(date +%s) - T_START)) s"
"$PY" "$BENCH/report.py" "$OUT" | tee "$OUT/table.txt"
((FAILED == 0)) || die "some cells failed (see mpirun.err under $OUT)"
