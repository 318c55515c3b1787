#!/usr/bin/env bats
# The source tree keeps the shape docs/architecture.md describes: user/'s
# shared folders form layers (base/ under config/, netlink/ and instance/,
# which are side by side), each including only itself and the layers
# under it; the rooms include the shared layers and themselves, never
# each other (main.c may include any); the include graph between folders
# has no cycle; and names the BPF side and user space share are written
# only in include/pin_names.h. No lab needed.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)

# The shared folders of user/ and their layer: a folder may include its
# own and those of a lower layer. Every other folder of user/ is a room.
setup() {
	declare -gA LAYER=([base]=0 [config]=1 [netlink]=1 [instance]=1)
	ROOMS="leaf host traffic sim events observe views"
}

# "from to" for every #include "dir/file.h" in user/*/ between two folders
folder_edges() {
	local dir f inc
	cd "$ROOT/user" || return
	for dir in */; do
		dir=${dir%/}
		for f in "$dir"/*.[ch]; do
			while read -r inc; do
				[[ ${inc%%/*} != "$dir" ]] && echo "$dir ${inc%%/*} $f"
			done < <(sed -nE 's|^#include "([a-z_]+/[a-z_0-9]+\.h)".*|\1|p' "$f")
		done
	done
}

@test "layout: the shared layers and the rooms are there" {
	local d
	cd "$ROOT/user"
	# a rule over nothing would pass too
	for d in "${!LAYER[@]}" $ROOMS; do
		[[ -d $d ]] || { echo "user/$d is missing"; false; }
	done
	[[ -f base/cli.c && -f config/config.c && -f netlink/rtnl.c && -f instance/attach.c &&
	   -f leaf/loader.c && -f host/loader.c && -f traffic/gen.c && -f sim/sim.c ]]
	# every folder of user/ is either a layer or a room: a new one is
	# placed on purpose
	for d in */; do
		d=${d%/}
		[[ -n ${LAYER[$d]+x} || " $ROOMS " == *" $d "* ]] ||
			{ echo "user/$d is neither a shared layer nor a room"; false; }
	done
	# the rules below see includes at all
	[[ $(folder_edges | wc -l) -ge 100 ]]
}

@test "layout: a shared layer includes only lower layers; a room only the layers and itself" {
	local from to f bad=
	while read -r from to f; do
		if [[ -n ${LAYER[$from]+x} ]]; then
			[[ -n ${LAYER[$to]+x} && ${LAYER[$to]} -lt ${LAYER[$from]} ]] ||
				bad+="$f includes $to/ (layer $from/ may include only lower layers)"$'\n'
		else
			[[ -n ${LAYER[$to]+x} ]] ||
				bad+="$f includes $to/ (a room includes only the shared layers and itself)"$'\n'
		fi
	done < <(folder_edges)
	echo "$bad"
	[[ -z $bad ]]
}

@test "layout: the include graph between user/ folders has no cycle" {
	local out
	# tsort names a loop on stderr (and still exits 0 on some versions)
	out=$(folder_edges | awk '{ print $1, $2 }' | sort -u | tsort 2>&1 >/dev/null || true)
	echo "$out"
	[[ -z $out ]]
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

@test "layout: user/ reports through base/log.h only, its prefix never written by hand" {
	local bad
	cd "$ROOT"
	# the writes to stderr that would bypass the API; a usage printer
	# takes a FILE * (usage(stderr) is fine), log.c is the API itself
	bad=$(grep -rnE '\b(v?fprintf|fputs|fputc|putc|fwrite) *\([^;]*\bstderr *\)|\bv?fprintf *\( *stderr\b|\bperror *\(|\bv?dprintf *\( *(2|STDERR_FILENO)\b|\b(v?warnx?|v?errx?)\(|#include <err\.h>' \
		user | grep -v '^user/base/log\.c:' || true)
	# messages say neither the program's prefix nor "warning: " themselves
	bad+=$(grep -rnE '\bxl_(err|warn|notice|info|debug)(_at)? *\(([^"]*, *)?"(xdpleaf[ :]|warning: )' user || true)
	bad+=$(grep -rnE '\bxl_log *\([^"]*"(xdpleaf[ :]|warning: )' user || true)
	echo "$bad"
	[[ -z $bad ]]
	# the rule looks at the messages at all
	[[ $(grep -rhoE '\bxl_(err|warn|notice|info|debug|log)(_at)? *\(' user | wc -l) -ge 200 ]]
}

@test "layout: sim/fabric/ reaches the product's code only through its C shims, and nothing reaches back" {
	local bad
	cd "$ROOT"
	[[ -f sim/fabric/fabric.cc && -f sim/fabric/leaf_shim.c && -f sim/fabric/leaf_shim.h &&
	   -f sim/fabric/dcqcn_shim.c && -f sim/fabric/dcqcn_shim.h ]]
	# the C++ side includes ns-3 and the shims' headers, no algorithm header
	bad=$(grep -nE '^#include "' sim/fabric/*.cc | grep -vE '"(ns3/[a-z0-9-]+\.h|(leaf|dcqcn)_shim\.h)"' || true)
	# the shim (C) includes include/ and user/'s headers, as main.c may
	bad+=$(grep -nE '^#include "' sim/fabric/*.c | grep -vE '"([a-z_0-9]+\.h|(base|config|sim)/[a-z_0-9]+\.h)"' || true)
	# include/, bpf/ and user/ never include the simulator
	bad+=$(grep -rnE '^#include "(sim/fabric|(leaf|dcqcn)_shim)' include bpf user || true)
	echo "$bad"
	[[ -z $bad ]]
	# the rules above see the shim's calls into the product at all
	grep -q '"sim/lb_group.h"' sim/fabric/leaf_shim.c
	grep -q '"ecn.h"' sim/fabric/leaf_shim.c
	grep -q '"dcqcn.h"' sim/fabric/dcqcn_shim.c
}
