#!/usr/bin/env bats
# The source tree keeps the shape docs/architecture.md describes: user/'s
# rooms include only user/common/ and themselves (main.c may include any),
# and names the BPF side and user space share are written only in
# include/pin_names.h. No lab needed.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)

@test "layout: each user/ room includes only common/ and itself; common/ only itself" {
	local room f bad=
	cd "$ROOT/user"
	for room in */; do
		room=${room%/}
		for f in "$room"/*.[ch]; do
			while read -r inc; do
				[[ $inc == common/* || $inc == "$room"/* ]] || bad+="$f includes $inc"$'\n'
			done < <(sed -nE 's|^#include "([a-z_]+/[a-z_]+\.h)".*|\1|p' "$f")
		done
	done
	echo "$bad"
	[[ -z $bad ]]
	# and the rooms are there: a rule over nothing would pass too
	[[ -f common/attach.c && -f leaf/loader.c && -f host/loader.c && -f traffic/gen.c && -f sim/sim.c ]]
}

@test "layout: no user/ or BPF test code names a pinned map, program or link by a string literal" {
	local names bad
	cd "$ROOT"
	# every map identifier include/pin_names.h defines
	names=$(sed -nE 's/^#define XL_MAP_[A-Z0-9_]+ +([a-z0-9_]+).*/\1/p' include/pin_names.h)
	[[ $(wc -l <<<"$names") -ge 20 ]]
	bad=$(grep -rnE "\"($(tr '\n' '|' <<<"$names" | sed 's/|$//'))\"" user | grep -E "pin|map" |
		grep -vE 'json_object_object_add' || true)
	bad+=$(grep -rnE '"(link_(xdp|tcx)|prog_(leaf|host|gen|sink))[a-z_]*' user bpf tests/bpf || true)
	bad+=$(grep -rnE 'define XL_TCX_(INGRESS|EGRESS)' user bpf include | grep -v include/pin_names.h || true)
	echo "$bad"
	[[ -z $bad ]]
}
