#!/usr/bin/env bats
# The DCQCN loop closed in the lab (docs/dcqcn.md, "The closed loop in the
# lab"): s1..s4 send 2 QPs each to r1, whose port on leaf2 is emulated at
# 400 Mb/s with a 400 KB buffer and marks the RoCE class (DSCP 26). r1 runs
# the NP (host mode), the senders the RP (paper variant, C = 250M), and
# `xdpleaf gen --rate-map` paces every QP by its published rate.
#
# Phase 1, incast: 8 QPs x C = 2 Gb/s asked for 3 s (a busy machine's
# generators reach less, but far more than the port's 400M: measured
# 500-700M while a full build ran). Every QP must be
# cut (below 90 % of C), r1 must send CNPs and every one of them must reach its sender and be
# matched to a QP (no unknown CNP). Phase 2, no congestion: the same QPs
# capped at 25M each (200 Mb/s in all); every QP's published rate must get
# back to 95 % of C, polled, within a bounded time.

load helpers

C=250M
PORT_RATE=400M # r1's port on leaf2
C_BPS=250000000
PAYLOAD=1400
INCAST_S=3
LIGHT=25M
RECOVER_S=5 # bound on the recovery, from the start of phase 2
PINS=/sys/fs/bpf/xdpleaf

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	ensure_bpffs
	export P="xlt$$q"
	export L2CONF=$BATS_FILE_TMPDIR/leaf2-dcqcn.conf
	export R1CONF=$BATS_FILE_TMPDIR/r1.conf SCONF=$BATS_FILE_TMPDIR/sender.conf
	sed "/^\[port r1\]/,/^role/ s/^role = downlink/role = downlink\nrate = $PORT_RATE\nbuffer = 400K/" \
		"$ROOT/lab/leaf2.conf" >"$L2CONF"
	printf '\n[class roce]\ndscp = 26\nkmin = 5K\nkmax = 200K\npmax = 1%%\n' >>"$L2CONF"
	grep -q "^rate = $PORT_RATE" "$L2CONF"
	printf '[xdpleaf]\nmode = host\n\n[port eth0]\n\n[dcqcn]\nnp = yes\nrp = no\n' >"$R1CONF"
	printf '[xdpleaf]\nmode = host\n\n[port eth0]\nrate = %s\n\n[dcqcn]\nvariant = paper\nnp = no\n' \
		"$C" >"$SCONF"
}

setup() {
	require_lab
	GEN_PIDS=()
	SAMP_PID=
}

teardown() {
	local pid n
	for pid in "${GEN_PIDS[@]}" $SAMP_PID; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${GEN_PIDS[@]}" $SAMP_PID; do
		wait "$pid" 2>/dev/null || true
	done
	for n in r1 s1 s2 s3 s4; do
		[[ -d $PINS/${P}_$n ]] || continue
		if [[ -e /run/netns/$P-$n ]]; then
			in_ns "$P-$n" "$XDPLEAF" unload --instance "${P}_$n" >/dev/null 2>&1 3>&- || true
		fi
		# a host instance's pins are enough to unload it from here
		if [[ -d $PINS/${P}_$n ]]; then
			"$XDPLEAF" unload --instance "${P}_$n" >/dev/null 2>&1 3>&- || true
		fi
	done
	"$LAB" down --prefix "$P" 3>&- || true
}

# One host counter: `xdpleaf stats --json`, or host_stats summed over the
# CPUs with bpftool where this build has no host-mode stats.
host_stat() { # node field
	local j
	if j=$(in_ns "$P-$1" "$XDPLEAF" stats --json --instance "${P}_$1" 2>/dev/null) &&
		jq -e ".counters.$2 != null" <<<"$j" >/dev/null 2>&1; then
		jq ".counters.$2" <<<"$j"
		return
	fi
	bpftool map dump pinned "$PINS/${P}_$1/host_stats" -j |
		jq "[.[0].formatted.values[].value.$2] | add"
}

# "qp rate cnps" per RP flow of sender n: `xdpleaf qps --json`, or bpftool.
rp_flows() { # sender n
	local j
	if j=$(in_ns "$P-s$1" "$XDPLEAF" qps --json --instance "${P}_s$1" 2>/dev/null) &&
		jq -e '.rp_flows' <<<"$j" >/dev/null 2>&1; then
		jq -r '.rp_flows[] | "\(.qp) \(.published_rate_bps) \(.cnps)"' <<<"$j"
		return
	fi
	jq -rn --argjson f "$(bpftool map dump pinned "$PINS/${P}_s$1/rp_flows" -j)" \
		--argjson r "$(bpftool map dump pinned "$PINS/${P}_s$1/rp_rates" -j)" \
		'$f[].formatted | .key.qp as $q | "\($q) \([$r[].formatted |
		 select(.key.qp == $q)][0].value.rate_bps) \(.value.cnps)"'
}

# "qp rate" per QP of sender n: its published rates.
rates() { # sender n
	rp_flows "$1" | cut -d' ' -f1,2
}

start_gens() { # rate duration-seconds
	local n
	for n in 1 2 3 4; do
		# nsenter execs gen, so $! is gen itself
		nsenter --net="/run/netns/$P-s$n" -- "$XDPLEAF" gen --dev eth0 --dst 10.2.1.2 \
			--qps 2 --size "$PAYLOAD" --rate "$1" --dscp 26 --ecn ect0 \
			--sport-base $((49152 + 16 * n)) --duration "$2s" \
			--rate-map "$PINS/${P}_s$n/rp_rates" \
			>"$BATS_TEST_TMPDIR/gen_$n.out" 2>&1 3>&- &
		GEN_PIDS+=($!)
	done
}

wait_gens() {
	local pid rc=0
	for pid in "${GEN_PIDS[@]}"; do
		wait "$pid" || rc=1
	done
	GEN_PIDS=()
	((rc == 0)) || { cat "$BATS_TEST_TMPDIR"/gen_*.out; return 1; }
}

@test "DCQCN loop: incast cuts every QP, CNPs all matched, rates recover after" {
	local n qp r line t0 now elapsed
	"$LAB" up --prefix "$P" --leaf2-config "$L2CONF" 3>&-
	in_ns "$P-r1" "$XDPLEAF" load --config "$R1CONF" --instance "${P}_r1" >/dev/null 3>&-
	for n in 1 2 3 4; do
		in_ns "$P-s$n" "$XDPLEAF" load --config "$SCONF" --instance "${P}_s$n" >/dev/null 3>&-
	done
	# next hops resolved both ways (data and CNPs) before the traffic
	for n in 1 2 3 4; do
		in_ns "$P-s$n" ping -q -c1 -W2 10.2.1.2 >/dev/null
		in_ns "$P-r1" ping -q -c1 -W2 "10.1.$n.2" >/dev/null
	done
	wait_neigh_learned "$P"

	# Phase 1: the incast. bench/dcqcn/sample.py reads every QP's
	# published rate every 10 ms (bpftool per sample would cost too much
	# CPU); the lowest per QP comes from its rates.csv.
	local samp=$BATS_TEST_TMPDIR/sample
	/usr/bin/python3 "$ROOT/bench/dcqcn/sample.py" --out "$samp" \
		--leaf "$PINS/${P}_leaf2" --port r1 --queue-every 10 --rate-every 10 \
		--max-seconds 30 --rp "s1=$PINS/${P}_s1" --rp "s2=$PINS/${P}_s2" \
		--rp "s3=$PINS/${P}_s3" --rp "s4=$PINS/${P}_s4" \
		2>"$BATS_TEST_TMPDIR/sample.err" 3>&- &
	SAMP_PID=$!
	local tries=100
	until grep -q ready "$BATS_TEST_TMPDIR/sample.err"; do
		((tries-- > 0)) || { cat "$BATS_TEST_TMPDIR/sample.err"; return 1; }
		sleep 0.05
	done
	start_gens "$C" "$INCAST_S"
	wait_gens
	kill -TERM "$SAMP_PID"
	wait "$SAMP_PID"
	SAMP_PID=
	declare -A low=()
	while read -r qp r; do
		low[$qp]=$r
	done < <(awk -F, 'NR > 1 { k = $2 "/" $3; if (!(k in m) || $4 < m[k]) m[k] = $4 }
		END { for (k in m) print k, m[k] }' "$samp/rates.csv")

	local sent recv unknown matched
	sent=$(host_stat r1 cnps_sent)
	note "r1 (NP): CE seen $(host_stat r1 ce_seen), CNPs sent $sent," \
		"suppressed $(host_stat r1 cnps_suppressed)"
	((sent > 0)) || { echo "r1 sent no CNP"; return 1; }
	line=
	for n in 1 2 3 4; do
		recv=$(host_stat "s$n" cnps_received)
		unknown=$(host_stat "s$n" cnps_unknown)
		matched=$(rp_flows "$n" | awk '{ m += $3 } END { print m + 0 }')
		line+=" s$n: received $recv matched $matched unknown $unknown;"
		((recv > 0)) || { echo "s$n received no CNP"; return 1; }
		((unknown == 0)) || { echo "s$n: $unknown CNPs matched no QP"; return 1; }
		((matched == recv)) || { echo "s$n: received $recv CNPs, matched $matched"; return 1; }
	done
	note "senders (RP):$line"
	line=
	((${#low[@]} == 8)) || { echo "expected 8 QPs, saw: ${!low[*]}"; return 1; }
	for qp in "${!low[@]}"; do
		line+=" $qp $((low[$qp] / 1000000))M"
		((low[$qp] * 10 < C_BPS * 9)) ||
			{ echo "QP $qp never cut below 90 % of C: lowest ${low[$qp]}"; return 1; }
	done
	note "lowest published rate during the incast (C = $C):$line"
	line=
	for n in 1 2 3 4; do
		while read -r qp r; do
			line+=" s$n/$qp $((r / 1000000))M"
		done < <(rates "$n")
	done
	note "published rates when the incast ended:$line"

	# Phase 2: no congestion. Poll until every QP is back at >= 95 % of C.
	declare -A back=()
	start_gens "$LIGHT" $((RECOVER_S + 3))
	t0=$(date +%s%N)
	while ((${#back[@]} < 8)); do
		now=$(date +%s%N)
		elapsed=$(((now - t0) / 1000000))
		for n in 1 2 3 4; do
			while read -r qp r; do
				[[ -n $qp && -z ${back[s$n/$qp]:-} ]] || continue
				((r * 100 >= C_BPS * 95)) && back[s$n/$qp]=$elapsed
			done < <(rates "$n")
		done
		((elapsed < RECOVER_S * 1000)) || break
		((${#back[@]} == 8)) || sleep 0.1
	done
	for n in "${GEN_PIDS[@]}"; do
		kill -INT "$n" 2>/dev/null || true
	done
	wait_gens
	line=
	for qp in "${!back[@]}"; do
		line+=" $qp ${back[$qp]}ms"
	done
	note "back at >= 95 % of C after phase 2 started (polled, ~0.2 s resolution):$line"
	((${#back[@]} == 8)) || {
		echo "only ${#back[@]} of 8 QPs recovered within ${RECOVER_S}s:"
		for n in 1 2 3 4; do rates "$n"; done
		return 1
	}
	unknown=0
	for n in 1 2 3 4; do
		unknown=$((unknown + $(host_stat "s$n" cnps_unknown)))
	done
	((unknown == 0)) || { echo "$unknown unknown CNPs in phase 2"; return 1; }
}
