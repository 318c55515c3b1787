#!/usr/bin/env bash
# Lab fabric for xdpleaf: 4 senders -> leaf1 -> 4 spines -> leaf2 -> 4 receivers,
# every node its own network namespace, joined by veth pairs.
#
#   lab.sh up|down|status [--prefix P] [--mode xdp|kernel] [--config FILE]
#                         [--hook auto|xdp|tc] [--leaf2-config FILE]
#                         [--uplink-rates R1,R2,R3,R4] [--receiver-rate R]
#                         [--host-repath] [--switch-queues single|class]
#                         [--latency-dscp LIST]
#
# All namespaces are named P-<node> so parallel runs with different prefixes
# never clash. Topology and addressing: docs/lab.md.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
XDPLEAF=${XDPLEAF:-$ROOT/build/xdpleaf}
STATE_DIR=/run/xdpleaf-lab
HOSTS=(1 2 3 4)

die() { echo "lab.sh: $*" >&2; exit 1; }
log() { echo "lab.sh: $*" >&2; }

usage() {
	cat >&2 <<EOF
usage: $0 up|down|status [--prefix P] [--mode xdp|kernel] [--config FILE]
                         [--hook auto|xdp|tc] [--leaf2-config FILE]
                         [--uplink-rates R1,R2,R3,R4] [--receiver-rate R]
                         [--host-repath] [--switch-queues single|class]
                         [--latency-dscp LIST]
  --prefix P     namespace prefix and xdpleaf instance name (default xl)
  --mode M       xdp: load xdpleaf in leaf1 (default); kernel: kernel ECMP only
  --config FILE  xdpleaf config for leaf1 (default lab/leaf1.conf)
  --hook H       (xdp mode) load leaf1's config with \`hook = H\` in place of
                 its own (default: the config's; lab/leaf1.conf says none,
                 so auto, which is tc on the lab's veths)
  --leaf2-config FILE
                 also run xdpleaf in leaf2 with FILE (instance P_leaf2), e.g.
                 lab/leaf2.conf; without it leaf2 forwards in the kernel
  --uplink-rates R1,R2,R3,R4
                 (up, either mode) give the spine->leaf2 links a real capacity:
                 spine N's 'up' gets a TBF qdisc at RN bit/s (e.g. 200M, 2.5G:
                 K/M/G = 10^3/10^6/10^9), burst max(2 frames, RN x 1ms),
                 limit RN x 2ms (a 2 ms buffer: it queues and tail-drops as a
                 switch port would). Without it the links are unlimited.
                 Uplinks that should match must get the same rates in leaf1's
                 config (see docs/load-balancing-bench.md)
  --receiver-rate R
                 (up, either mode) give every receiver's link a capacity of R
                 toward the receiver: a TBF as above on leaf2's port rN. With
                 unlimited uplinks, the non-blocking reference of
                 docs/jct-bench.md: what crosses the fabric to rN is limited
                 to R, however it is spread over the uplinks
  --host-repath  (up) leave the hosts' net.core.txrehash at Linux's 1: the
                 kernel's ECMP in a router then moves a TCP connection to
                 another path after each of its RTOs (what a fabric hashing
                 IPv6 flow labels gets). Default 0: one hash per connection,
                 as a switch's ECMP hashing the 5-tuple (docs/lab.md)
  --switch-queues Q
                 (up) the queues of the links --uplink-rates and
                 --receiver-rate shape: single (default), the TBF above, one
                 queue; class, the same TBF taking from two queues of its
                 buffer each: the latency DSCPs' served with strict
                 priority, everything else the bulk queue
  --latency-dscp LIST
                 (with --switch-queues class) the DSCPs of the latency
                 queue, comma-separated, 0-63 (default 18, AF21)
EOF
	exit 2
}

# shellcheck source=lab/lib.sh
source "$ROOT/lab/lib.sh"

ns_exists() { [[ -e /run/netns/$1 ]]; }

# Namespaces belonging to this prefix. The trailing dash keeps prefix "xl"
# from matching another run's "xlt123-...".
lab_namespaces() {
	ip netns list | awk '{print $1}' | grep -E "^${PREFIX}-" | sort || true
}

# A namespace with loopback up and DAD off, so IPv6 addresses on the links
# created next are usable immediately instead of "tentative" for ~2 s.
make_ns() {
	local ns=$PREFIX-$1
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	in_ns "$ns" sysctl -qw net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.all.accept_dad=0
}

# veth pair created directly inside both namespaces, so the fixed short
# names (eth0, s1, u1, ...) never meet in the root namespace.
make_link() {
	local ns_a=$PREFIX-$1 if_a=$2 ns_b=$PREFIX-$3 if_b=$4
	ip link add name "$if_a" netns "$ns_a" type veth peer name "$if_b" netns "$ns_b"
	ip -n "$ns_a" link set dev "$if_a" up
	ip -n "$ns_b" link set dev "$if_b" up
}

addr() {
	local ns=$PREFIX-$1 dev=$2 v4=$3 v6=$4
	ip -n "$ns" addr add "$v4" dev "$dev"
	ip -n "$ns" -6 addr add "$v6" dev "$dev" nodad
}

router() {
	in_ns "$PREFIX-$1" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv6.conf.all.forwarding=1
}

# ethtool -K, quietly: veth reports "Actual changes" noise on stdout.
offload() {
	local ns=$PREFIX-$1 dev=$2
	shift 2
	in_ns "$ns" ethtool -K "$dev" "$@" >/dev/null
}

# Poll (no fixed sleep) until every interface of a namespace reports
# LOWER_UP, i.e. its veth peer is up too.
wait_links_up() {
	local ns=$1 tries=100
	while ((tries-- > 0)); do
		if ! ip -n "$ns" -o link show up | grep -v ' lo:' |
			grep -qv 'LOWER_UP'; then
			return 0
		fi
		sleep 0.05
	done
	die "links in $ns did not come up: $(ip -n "$ns" -br link)"
}

# A switch's ECMP hashes a packet's headers, so a connection keeps its
# path for life. A router namespace's ECMP takes instead the hash the
# sending socket gave the packet (a veth carries it from host to router),
# which Linux draws anew after each RTO (net.core.txrehash): a colliding
# connection that times out moves, as no IPv4 switch can move it
# (measured: docs/lab.md, "veth facts"). So the hosts keep one random hash
# per connection, a draw per connection as a switch's, unless
# --host-repath.
host_hash() {
	local n h rehash=0
	((!HOST_REPATH)) || rehash=1
	for n in "${HOSTS[@]}"; do
		for h in s r; do
			in_ns "$PREFIX-$h$n" sysctl -qw net.core.txrehash=$rehash
		done
	done
}

build_fabric() {
	local n node end
	for node in leaf1 leaf2 "${HOSTS[@]/#/s}" "${HOSTS[@]/#/sp}" "${HOSTS[@]/#/r}"; do
		make_ns "$node"
	done
	router leaf1
	router leaf2
	host_hash
	# fib_multipath_hash_policy=1 hashes on the L4 5-tuple (of a packet
	# with no socket hash: host_hash), the ECMP baseline xdpleaf's hash
	# mode is compared against.
	for node in leaf1 leaf2; do
		in_ns "$PREFIX-$node" sysctl -qw net.ipv4.fib_multipath_hash_policy=1 \
			net.ipv6.fib_multipath_hash_policy=1
	done

	for n in "${HOSTS[@]}"; do
		router "sp$n"
		make_link "s$n" eth0 leaf1 "s$n"
		make_link leaf1 "u$n" "sp$n" down
		make_link "sp$n" up leaf2 "u$n"
		make_link leaf2 "r$n" "r$n" eth0

		addr "s$n" eth0 "10.1.$n.2/24" "fd00:1:$n::2/64"
		addr leaf1 "s$n" "10.1.$n.1/24" "fd00:1:$n::1/64"
		addr leaf1 "u$n" "10.254.$n.1/24" "fd00:254:$n::1/64"
		addr "sp$n" down "10.254.$n.2/24" "fd00:254:$n::2/64"
		addr "sp$n" up "10.253.$n.1/24" "fd00:253:$n::1/64"
		addr leaf2 "u$n" "10.253.$n.2/24" "fd00:253:$n::2/64"
		addr leaf2 "r$n" "10.2.$n.1/24" "fd00:2:$n::1/64"
		addr "r$n" eth0 "10.2.$n.2/24" "fd00:2:$n::2/64"

		ip -n "$PREFIX-s$n" route add default via "10.1.$n.1"
		ip -n "$PREFIX-s$n" -6 route add default via "fd00:1:$n::1"
		ip -n "$PREFIX-r$n" route add default via "10.2.$n.1"
		ip -n "$PREFIX-r$n" -6 route add default via "fd00:2:$n::1"

		ip -n "$PREFIX-sp$n" route add 10.1.0.0/16 via "10.254.$n.1" dev down
		ip -n "$PREFIX-sp$n" -6 route add fd00:1::/32 via "fd00:254:$n::1" dev down
		ip -n "$PREFIX-sp$n" route add 10.2.0.0/16 via "10.253.$n.2" dev up
		ip -n "$PREFIX-sp$n" -6 route add fd00:2::/32 via "fd00:253:$n::2" dev up

		# Every veth end gets GRO on and TX checksumming (with it TSO)
		# off:
		# - an XDP_REDIRECT into a veth is dropped unless the target's
		#   peer runs NAPI, which GRO on (or an XDP program) enables;
		# - a veth whose sending end has TSO on hands forwarded skbs to
		#   the per-CPU backlog of whichever CPU sent them instead of
		#   its NAPI ring (veth_skb_is_eligible_for_gro), so a flow
		#   forwarded from both CPUs in turn arrives reordered: kernel
		#   forwarding and hook = tc counted 1-31 reordered segments per
		#   all-reduce cell that way, 0 with TSO off (docs/lab.md). A
		#   NIC keeps a flow in one queue;
		# - XDP turns a CHECKSUM_PARTIAL skb into a frame without its
		#   "finish the checksum later" note, so senders must put the
		#   full checksum in the packet themselves.
		for end in "s$n eth0" "r$n eth0" "sp$n down" "sp$n up" \
			"leaf1 s$n" "leaf1 u$n" "leaf2 r$n" "leaf2 u$n"; do
			# shellcheck disable=SC2086 # "namespace device"
			offload $end gro on tx off
		done
	done

	# Kernel ECMP over the four uplinks on both leaves. On leaf1 this is
	# the whole dataplane in kernel mode and the slow path in xdp mode.
	local nh4_1=() nh6_1=() nh4_2=() nh6_2=()
	for n in "${HOSTS[@]}"; do
		nh4_1+=(nexthop via "10.254.$n.2" dev "u$n")
		nh6_1+=(nexthop via "fd00:254:$n::2" dev "u$n")
		nh4_2+=(nexthop via "10.253.$n.1" dev "u$n")
		nh6_2+=(nexthop via "fd00:253:$n::1" dev "u$n")
	done
	ip -n "$PREFIX-leaf1" route add 10.2.0.0/16 "${nh4_1[@]}"
	ip -n "$PREFIX-leaf1" -6 route add fd00:2::/32 "${nh6_1[@]}"
	ip -n "$PREFIX-leaf2" route add 10.1.0.0/16 "${nh4_2[@]}"
	ip -n "$PREFIX-leaf2" -6 route add fd00:1::/32 "${nh6_2[@]}"

	local ns
	while read -r ns; do
		wait_links_up "$ns"
	done < <(lab_namespaces)
}

# --uplink-rates: TBF shaping of each spine's egress toward leaf2
# (shape_link, lab/lib.sh, has the sizes and why).

parse_uplink_rates() {
	local IFS=, r bps
	local -a rates
	read -r -a rates <<<"$UPLINK_RATES"
	((${#rates[@]} == ${#HOSTS[@]})) ||
		die "--uplink-rates needs ${#HOSTS[@]} rates, comma-separated (e.g. 200M,200M,200M,200M)"
	UPLINK_BPS=()
	for r in "${rates[@]}"; do
		bps=$(rate_bps "$r") ||
			die "--uplink-rates: bad rate '$r' (a whole number of bit/s >= 1M, e.g. 200M, 2.5G)"
		UPLINK_BPS+=("$bps")
	done
}

# A shaped link of the lab (lab/lib.sh) with the queues --switch-queues
# chose: shape NS DEV BPS.
shape() {
	if [[ $SWITCH_QUEUES == class ]]; then
		shape_link_classes "$1" "$2" "$3" "$LATENCY_DSCP"
	else
		shape_link "$1" "$2" "$3"
	fi
}

# What `up` says about a shaped link's queues.
queues_said() {
	if [[ $SWITCH_QUEUES == class ]]; then
		echo "TBF over 2 queues, latency DSCPs $LATENCY_DSCP first"
	else
		echo TBF
	fi
}

shape_uplinks() {
	local i
	for i in "${!HOSTS[@]}"; do
		shape "$PREFIX-sp${HOSTS[i]}" up "${UPLINK_BPS[i]}"
	done
	log "uplinks shaped: ${UPLINK_RATES//,/ } bit/s ($(queues_said) on spine 'up', buffer ${TBF_BUFFER_US}us)"
}

# --receiver-rate: leaf2's port toward each receiver at RECV_BPS. Not the
# hosts' own eth0: a TBF in the sending host's stack, and one at both
# ends, made TCP steps slower (and reordered) than the shaped fabrics
# they are the reference of (docs/jct-bench.md).
shape_receivers() {
	local n
	for n in "${HOSTS[@]}"; do
		shape "$PREFIX-leaf2" "r$n" "$RECV_BPS"
	done
	log "receiver links shaped: $RECV_RATE bit/s ($(queues_said) on leaf2's rN, buffer ${TBF_BUFFER_US}us)"
}

cmd_up() {
	[[ -z $(lab_namespaces) && ! -e $STATE_FILE ]] ||
		die "lab '$PREFIX' already exists; run: $0 down --prefix $PREFIX"
	if [[ $MODE == xdp ]]; then
		[[ -x $XDPLEAF ]] || die "$XDPLEAF not found; run make first"
		[[ -r $CONFIG ]] || die "cannot read config $CONFIG"
	fi
	# State first, so `down` after a failure here knows what to undo.
	mkdir -p "$STATE_DIR"
	printf 'MODE=%s\nCONFIG=%s\nUPLINK_RATES=%s\nRECV_RATE=%s\nSWITCH_QUEUES=%s\nLATENCY_DSCP=%s\n' \
		"$MODE" "$CONFIG" "$UPLINK_RATES" "$RECV_RATE" "$SWITCH_QUEUES" \
		"$LATENCY_DSCP" >"$STATE_FILE"
	STATE_MODE=$MODE
	# A half-built fabric is useless: tear it down if anything fails
	# (set -e exits the script, so the EXIT trap is where to catch it).
	UP_DONE=0
	trap '[[ $UP_DONE == 1 ]] || { log "up failed, cleaning up"; cmd_down; }' EXIT

	build_fabric
	[[ -z $UPLINK_RATES ]] || shape_uplinks
	[[ -z $RECV_RATE ]] || shape_receivers
	if [[ $MODE == xdp ]]; then
		ensure_bpffs
		if [[ -n $HOOK ]]; then
			conf_with_hook "$CONFIG" "$HOOK" >"$STATE_DIR/$PREFIX.hook.conf"
			CONFIG=$STATE_DIR/$PREFIX.hook.conf
		fi
		# stdin from /dev/null: the daemon xdpleaf leaves running
		# must not hold our terminal.
		in_ns "$PREFIX-leaf1" "$XDPLEAF" load --config "$CONFIG" \
			--instance "$PREFIX" </dev/null
	fi
	if [[ -n $CONFIG2 ]]; then
		ensure_bpffs
		in_ns "$PREFIX-leaf2" "$XDPLEAF" load --config "$CONFIG2" \
			--instance "${PREFIX}_leaf2" </dev/null
	fi
	UP_DONE=1
	log "lab '$PREFIX' up ($MODE mode)"
	rm -f "$STATE_DIR/$PREFIX.hook.conf"
}

# Stop what still runs in a namespace (an `iperf3 -s -D` started by hand,
# say): `ip netns del` only drops the name, and such a process would live
# on, holding the namespace, with nothing left to reach it by. TERM, then
# KILL whatever has not exited within about a second.
stop_ns_procs() { # namespace
	local pids tries=20
	pids=$(ip netns pids "$1" 2>/dev/null) || return 0
	[[ -n $pids ]] || return 0
	# shellcheck disable=SC2086 # one pid per word
	kill -TERM $pids 2>/dev/null || true
	while ((tries-- > 0)); do
		pids=$(ip netns pids "$1" 2>/dev/null) || return 0
		[[ -n $pids ]] || return 0
		sleep 0.05
	done
	log "warning: $1: killing what did not stop: $(tr '\n' ' ' <<<"$pids")"
	# shellcheck disable=SC2086
	kill -KILL $pids 2>/dev/null || true
}

cmd_down() {
	# Unload before the namespace goes away so pins and the daemon are
	# removed by xdpleaf itself; ignore failures, the namespaces go anyway.
	if ns_exists "$PREFIX-leaf1" && [[ -x $XDPLEAF ]] &&
		[[ ${STATE_MODE:-xdp} == xdp || -d /sys/fs/bpf/xdpleaf/$PREFIX ]]; then
		in_ns "$PREFIX-leaf1" "$XDPLEAF" unload --instance "$PREFIX" ||
			log "warning: xdpleaf unload --instance $PREFIX failed"
	fi
	if ns_exists "$PREFIX-leaf2" && [[ -x $XDPLEAF ]] &&
		[[ -d /sys/fs/bpf/xdpleaf/${PREFIX}_leaf2 ]]; then
		in_ns "$PREFIX-leaf2" "$XDPLEAF" unload --instance "${PREFIX}_leaf2" ||
			log "warning: xdpleaf unload --instance ${PREFIX}_leaf2 failed"
	fi
	local ns
	while read -r ns; do
		[[ -n $ns ]] || continue
		stop_ns_procs "$ns"
		ip netns del "$ns"
	done < <(lab_namespaces)
	rm -f "$STATE_FILE" "$STATE_DIR/$PREFIX.hook.conf"
	if [[ -d /sys/fs/bpf/xdpleaf/$PREFIX ]]; then
		log "warning: /sys/fs/bpf/xdpleaf/$PREFIX left behind by xdpleaf"
	fi
	return 0
}

cmd_status() {
	local nss
	nss=$(lab_namespaces)
	if [[ -z $nss ]]; then
		echo "lab '$PREFIX': down"
		return 0
	fi
	echo "lab '$PREFIX': ${STATE_MODE:-unknown} mode"
	echo "namespaces:"
	# shellcheck disable=SC2001 # indents every line of the list
	sed 's/^/  /' <<<"$nss"
	local rates n queues
	# a lab from before --switch-queues recorded none: it had one queue
	queues=$(sed -n 's/^SWITCH_QUEUES=//p' "$STATE_FILE" 2>/dev/null || true)
	if [[ ${queues:-single} == class ]]; then
		echo "switch queues: class (latency DSCPs $(sed -n 's/^LATENCY_DSCP=//p' "$STATE_FILE"))"
	else
		echo "switch queues: single"
	fi
	rates=$(sed -n 's/^UPLINK_RATES=//p' "$STATE_FILE" 2>/dev/null || true)
	if [[ -n $rates ]]; then
		echo "uplinks shaped ($rates):"
		for n in "${HOSTS[@]}"; do
			ns_exists "$PREFIX-sp$n" || continue
			echo "  sp$n up: $(in_ns "$PREFIX-sp$n" tc qdisc show dev up root)"
		done
	fi
	rates=$(sed -n 's/^RECV_RATE=//p' "$STATE_FILE" 2>/dev/null || true)
	if [[ -n $rates ]] && ns_exists "$PREFIX-leaf2"; then
		echo "receiver links shaped ($rates):"
		for n in "${HOSTS[@]}"; do
			echo "  leaf2 r$n: $(in_ns "$PREFIX-leaf2" tc qdisc show dev "r$n" root)"
		done
	fi
	if [[ ${STATE_MODE:-} == xdp ]] && ns_exists "$PREFIX-leaf1"; then
		echo "xdpleaf on leaf1:"
		# exits 3 when not loaded, which it has just said
		in_ns "$PREFIX-leaf1" "$XDPLEAF" status --instance "$PREFIX" || true
	fi
	if [[ -d /sys/fs/bpf/xdpleaf/${PREFIX}_leaf2 ]]; then
		echo "xdpleaf on leaf2:"
		in_ns "$PREFIX-leaf2" "$XDPLEAF" status --instance "${PREFIX}_leaf2"
	fi
}

main() {
	[[ $# -ge 1 ]] || usage
	local cmd=$1
	shift
	PREFIX=xl
	MODE=xdp
	CONFIG=$ROOT/lab/leaf1.conf
	CONFIG2=
	HOOK=
	UPLINK_RATES=
	RECV_RATE=
	HOST_REPATH=0
	SWITCH_QUEUES=single
	LATENCY_DSCP=
	while [[ $# -gt 0 ]]; do
		case $1 in
		--prefix) PREFIX=${2:?--prefix needs a value}; shift 2 ;;
		--mode) MODE=${2:?--mode needs a value}; shift 2 ;;
		--config) CONFIG=${2:?--config needs a value}; shift 2 ;;
		--hook) HOOK=${2:?--hook needs a value}; shift 2 ;;
		--leaf2-config) CONFIG2=${2:?--leaf2-config needs a value}; shift 2 ;;
		--uplink-rates) UPLINK_RATES=${2:?--uplink-rates needs a value}; shift 2 ;;
		--receiver-rate) RECV_RATE=${2:?--receiver-rate needs a value}; shift 2 ;;
		--host-repath) HOST_REPATH=1; shift ;;
		--switch-queues) SWITCH_QUEUES=${2:?--switch-queues needs a value}; shift 2 ;;
		--latency-dscp) LATENCY_DSCP=${2:?--latency-dscp needs a value}; shift 2 ;;
		*) usage ;;
		esac
	done
	# The prefix names namespaces, a state file and the xdpleaf instance:
	# keep it to characters that are safe in all three.
	[[ $PREFIX =~ ^[A-Za-z0-9_]{1,20}$ ]] ||
		die "bad prefix '$PREFIX' (letters, digits, _; at most 20)"
	[[ $MODE == xdp || $MODE == kernel ]] || die "bad mode '$MODE'"
	[[ -z $HOOK || $HOOK =~ ^(auto|xdp|tc)$ ]] || die "bad hook '$HOOK' (auto, xdp or tc)"
	case $SWITCH_QUEUES in
	single)
		[[ -z $LATENCY_DSCP ]] ||
			die "--latency-dscp needs --switch-queues class (single has one queue)"
		;;
	class)
		[[ -n $UPLINK_RATES || -n $RECV_RATE ]] ||
			die "--switch-queues class needs --uplink-rates or --receiver-rate (the queues are those links')"
		LATENCY_DSCP=${LATENCY_DSCP:-18}
		dscp_list "$LATENCY_DSCP" ||
			die "--latency-dscp: bad list '$LATENCY_DSCP' (DSCPs 0-63, comma-separated, e.g. 18 or 18,46)"
		;;
	*) die "bad --switch-queues '$SWITCH_QUEUES' (single or class)" ;;
	esac
	[[ $EUID -eq 0 ]] || die "must run as root"
	[[ -z $UPLINK_RATES ]] || parse_uplink_rates
	if [[ -n $RECV_RATE ]]; then
		RECV_BPS=$(rate_bps "$RECV_RATE") ||
			die "--receiver-rate: bad rate '$RECV_RATE' (a whole number of bit/s >= 1M, e.g. 100M, 112.5M)"
	fi

	STATE_FILE=$STATE_DIR/$PREFIX.env
	STATE_MODE=
	if [[ -r $STATE_FILE ]]; then
		STATE_MODE=$(sed -n 's/^MODE=//p' "$STATE_FILE")
	fi

	case $cmd in
	up) cmd_up ;;
	down) cmd_down ;;
	status) cmd_status ;;
	*) usage ;;
	esac
}

main "$@"
