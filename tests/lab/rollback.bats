#!/usr/bin/env bats
# A load that fails half-way through attaching leaves nothing behind: the
# ports attached before the failure are detached again and no pins remain.

load helpers

setup() {
	require_lab
	ensure_bpffs
	NS=xlrb$$
	INST=xlrb$$
	ip netns add "$NS"
	# Three veth pairs, both ends in the namespace; ports are the a* ends.
	for i in 0 1 2; do
		ip -n "$NS" link add "a$i" type veth peer name "b$i"
		ip -n "$NS" link set "a$i" up
		ip -n "$NS" link set "b$i" up
	done
	CONFIG=$BATS_TEST_TMPDIR/rb.conf
	# hook = xdp: what fails is an XDP attach (a veth would get tc)
	cat >"$CONFIG" <<-CONF
	[xdpleaf]
	hook = xdp
	[port a0]
	[port a1]
	[port a2]
	[route 10.9.0.0/24]
	port = a0
	[route 10.9.1.0/24]
	port = a1
	[route 10.9.2.0/24]
	port = a2
	CONF
	OTHER_PIN=/sys/fs/bpf/xlrb-other-$$
}

teardown() {
	in_ns "$NS" "$XDPLEAF" unload --instance "$INST" 2>/dev/null || true
	rm -rf "$OTHER_PIN"
	ip netns del "$NS" 2>/dev/null || true
}

@test "attach failure on the last port rolls back the ports before it" {
	# Occupy a2 with another XDP program attached the old (netlink) way.
	mkdir -p "$OTHER_PIN"
	bpftool prog loadall "$ROOT/build/leaf.bpf.o" "$OTHER_PIN"
	in_ns "$NS" bpftool net attach xdpdrv pinned "$OTHER_PIN/xdpleaf_leaf" dev a2
	[ "$(xdp_links "$NS")" = a2 ]

	run in_ns "$NS" "$XDPLEAF" load --config "$CONFIG" --instance "$INST"
	[ "$status" -ne 0 ]
	# attached over netlink: the advice is the ip command that detaches it
	[[ "$output" == *"a2: another XDP program"*"already attached"*"(ip link set dev a2 xdp off)"* ]]

	# a0 and a1 were attached before a2 failed: they must be clean again,
	# and a2 keeps the program it had.
	[ "$(xdp_links "$NS")" = a2 ]
	[ ! -e "/sys/fs/bpf/xdpleaf/$INST" ]
	[ ! -e "/run/xdpleaf/$INST.pid" ]

	# With a2 freed as advised the same config loads on all three ports.
	in_ns "$NS" ip link set dev a2 xdp off
	run in_ns "$NS" "$XDPLEAF" load --config "$CONFIG" --instance "$INST" --no-daemon
	[ "$status" -eq 0 ]
	[ "$(xdp_links "$NS" | sort | tr '\n' ' ')" = "a0 a1 a2 " ]
	run in_ns "$NS" "$XDPLEAF" unload --instance "$INST"
	[ "$status" -eq 0 ]
	[ -z "$(xdp_links "$NS")" ]
}
