#!/usr/bin/env bash
# The ns-3 fabric simulator's cells for one fabric size: each collective
# through the reference and every fabric, then results.json and a table of
# step times as ratios to the reference (report.py). docs/fabric-sim.md.
#
#   bench/fabric/run.sh [--hosts N | --lab] [--uplinks equal|unequal|R1,R2,...]
#                       [--fabrics LIST] [--ops LIST] [--bytes SIZE]
#                       [--steps N] [--seed N] [--ecmp-seeds N] [--degrade F]
#                       [--transport tcp|roce] [--dcqcn KEY=VALUE,...]
#                       [--out DIR] [--json]
#
# --hosts N: N/H leaves of H hosts (H = 8, 16 from 1,024 hosts on), as many
# spines as hosts per leaf (1:1), 100G links with 2 ms buffers, DCTCP.
# --lab: the lab's size and shaping (8 hosts, 2 leaves, 4 spines, 100M
# uplinks, 2 ms buffers, Linux Reno with a 5 ms minimum RTO: bench-jct's
# dc hosts). --ecmp-seeds N: ecmp and hash with seeds SEED..SEED+N-1,
# each a draw of hashes (bench-jct's --ecmp-labs). --degrade F: that share
# of the leaf-spine links at half rate (the reference's host ports at
# each leaf's remaining aggregate). --transport roce: the collectives over
# the RoCE-like transport (UDP, go-back-N, xdpleaf's DCQCN) instead of
# TCP; --dcqcn: its DCQCN parameters over the [dcqcn] defaults (e.g.
# bench-jct's nic profile at the lab's rates: min_rate=1M,r_ai=1M,r_hai=5M).
# Every cell runs under nice.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
SIM=$ROOT/build/sim-fabric/xdpleaf-fabric
HOSTS=16
LAB=0
UPLINKS=equal
FABRICS="ref ecmp hash flowlet flowlet-random spray"
OPS="allreduce alltoall"
BYTES=4M
STEPS=5
SEED=1
ECMP_SEEDS=1
DEGRADE=0
TRANSPORT=tcp
DCQCN=
OUT=
JSON=0

die() {
	echo "run.sh: $*" >&2
	exit 2
}

usage() {
	sed -n '6,10p' "${BASH_SOURCE[0]}" | sed 's/^#  //' >&2
	exit 2
}

while (($#)); do
	case $1 in
	--hosts) HOSTS=${2:?--hosts needs a value}; shift 2 ;;
	--lab) LAB=1; HOSTS=8; shift ;;
	--uplinks) UPLINKS=${2:?--uplinks needs a value}; shift 2 ;;
	--fabrics) FABRICS=${2//,/ }; shift 2 ;;
	--ops) OPS=${2//,/ }; shift 2 ;;
	--bytes) BYTES=${2:?--bytes needs a value}; shift 2 ;;
	--steps) STEPS=${2:?--steps needs a value}; shift 2 ;;
	--seed) SEED=${2:?--seed needs a value}; shift 2 ;;
	--ecmp-seeds) ECMP_SEEDS=${2:?--ecmp-seeds needs a value}; shift 2 ;;
	--degrade) DEGRADE=${2:?--degrade needs a value}; shift 2 ;;
	--transport) TRANSPORT=${2:?--transport needs a value}; shift 2 ;;
	--dcqcn) DCQCN=${2:?--dcqcn needs a value}; shift 2 ;;
	--out) OUT=${2:?--out needs a value}; shift 2 ;;
	--json) JSON=1; shift ;;
	-h | --help) usage ;;
	*) die "unknown option '$1'" ;;
	esac
done
[[ -x $SIM ]] || die "$SIM is missing: make sim-fabric"
[[ $HOSTS =~ ^[0-9]+$ && $STEPS =~ ^[0-9]+$ && $SEED =~ ^[0-9]+$ && $ECMP_SEEDS =~ ^[1-9][0-9]*$ ]] ||
	die "--hosts, --steps, --seed and --ecmp-seeds take whole numbers"
[[ $DEGRADE =~ ^(0|1|0?\.[0-9]+)$ ]] || die "--degrade: a fraction 0..1 (e.g. 0.1)"
[[ $FABRICS == *ref* ]] || die "--fabrics must include ref: every ratio is to it"
[[ $TRANSPORT == tcp || $TRANSPORT == roce ]] || die "--transport: tcp or roce, not '$TRANSPORT'"
[[ -z $DCQCN || $TRANSPORT == roce ]] || die "--dcqcn needs --transport roce"
bytes=$(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import benchlib; print(benchlib.size_bytes(sys.argv[2]))' \
	"$ROOT/bench" "$BYTES") || die "--bytes: bad size '$BYTES' (e.g. 4M, 65536)"

if ((LAB)); then
	spines=4
	case $UPLINKS in
	equal) rates=100M,100M,100M,100M ;;
	unequal) rates=200M,100M,100M,50M ;;
	*) rates=$UPLINKS ;;
	esac
	args=(--lab --leaves=2 --spines=4 --hostsPerLeaf=4 --uplinkRates="$rates" --tcp=reno)
else
	per=8
	((HOSTS >= 1024)) && per=16
	((HOSTS >= 2 * per && HOSTS % per == 0)) || die "--hosts: a multiple of $per, at least $((2 * per))"
	spines=$per
	case $UPLINKS in
	equal) rates= ;;
	unequal) die "--uplinks unequal is the lab's set: give --lab, or rates per spine" ;;
	*) rates=$UPLINKS ;;
	esac
	args=(--leaves=$((HOSTS / per)) --spines="$spines" --hostsPerLeaf="$per" --tcp=dctcp)
	[[ -z $rates ]] || args+=(--uplinkRates="$rates")
fi
args+=(--degrade="$DEGRADE" --transport="$TRANSPORT")
[[ -z $DCQCN ]] || args+=(--dcqcn="$DCQCN")
set_name=$UPLINKS
[[ $DEGRADE == 0 ]] || set_name+=-degraded$DEGRADE
[[ $TRANSPORT == tcp ]] || set_name+=-$TRANSPORT
[[ -z $DCQCN ]] || set_name+=-dcqcn
OUT=${OUT:-$ROOT/build/sim-fabric/hosts$HOSTS-$set_name-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT/cells"
for op in $OPS; do
	for f in $FABRICS; do
		seeds=$SEED
		[[ $f != ecmp && $f != hash ]] || seeds=$(seq "$SEED" $((SEED + ECMP_SEEDS - 1)))
		for s in $seeds; do
			echo "run.sh: $HOSTS hosts, $op $BYTES, $f, seed $s" >&2
			nice -n 19 "$SIM" "${args[@]}" --fabric="$f" --collective="$op" --bytes="$bytes" \
				--steps="$STEPS" --seed="$s" --out="$OUT/cells/$op-$f-$s.json" ||
				die "cell $op $f seed $s failed"
		done
	done
done
python3 "$ROOT/bench/fabric/report.py" "$OUT" "$set_name" >&2
if ((JSON)); then
	cat "$OUT/results.json"
else
	cat "$OUT/table.txt"
fi
