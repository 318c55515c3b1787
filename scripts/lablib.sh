# shellcheck shell=bash
# Shell functions shared by scripts/lab.sh, the benchmarks and the lab
# tests (sourced, never run). The caller sets XDPLEAF.

# Run a command inside a lab namespace. nsenter --net keeps our mount
# namespace, so the bpffs at /sys/fs/bpf stays visible (ip netns exec
# would remount /sys and hide the pinned maps).
in_ns() {
	local ns=$1
	shift
	nsenter --net="/run/netns/$ns" -- "$@"
}

# wait_neigh_listed NS INSTANCE ADDR...: wait (up to ~5 s) until the xdpleaf
# instance in namespace NS lists every ADDR in `xdpleaf neigh` (its
# watcher has learned them). 1 if not, with what it lists on stderr.
wait_neigh_listed() {
	local ns=$1 inst=$2 tries=50 out a missing
	shift 2
	while ((tries-- > 0)); do
		out=$(in_ns "$ns" "$XDPLEAF" neigh --instance "$inst" 2>/dev/null || true)
		missing=0
		for a in "$@"; do
			grep -qF "$a" <<<"$out" || missing=1
		done
		((missing == 0)) && return 0
		sleep 0.1
	done
	echo "$inst did not list all of: $*; it has:" >&2
	echo "$out" >&2
	return 1
}
