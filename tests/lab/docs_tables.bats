#!/usr/bin/env bats
# The docs' tables that list facts of the code, against the code: the
# configuration keys (docs/config.md, `xdpleaf keys`), the packet reasons
# (docs/architecture.md, XL_REASONS) and the metrics (docs/metrics.md,
# `xdpleaf exporter --list-metrics`). No lab, no root: only the built
# command (make), so they run wherever the unit tests do.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd -P)
XDPLEAF=$ROOT/build/xdpleaf

setup() {
	[[ -x $XDPLEAF ]] || skip "build/xdpleaf not built (run make)"
}

# docs/config.md's part for section $1: its ### heading to the next one.
config_block() {
	awk -v s="$1" '
		/^### / { on = index($0, "### `[" s "]") || index($0, "### `[" s " ") }
		on' "$ROOT/docs/config.md"
}

# The keys a block's key tables name: the first cell of each row of a
# table whose header starts "| key |".
documented_keys() {
	awk '
		/^\| key \|/ { table = 1; next }
		!/^\|/ { table = 0 }
		table && /^\| `/ { split($0, c, "`"); print c[2] }'
}

@test "docs/config.md: every key's row as the parser's table has it, and no key it lacks" {
	local sect row block missing='' extra='' n=0 k
	declare -A keys=()
	while IFS= read -r row; do
		if [[ $row =~ ^\[([a-z]+)\]$ ]]; then
			sect=${BASH_REMATCH[1]}
			block=$(config_block "$sect")
			[[ -n $block ]] || { echo "no section [$sect] in docs/config.md"; return 1; }
			continue
		fi
		n=$((n + 1))
		k=${row#| \`}
		keys[$sect/${k%%\`*}]=1
		grep -qF -- "$row" <<<"$block" || missing+="[$sect] $row"$'\n'
	done < <("$XDPLEAF" keys)
	for sect in xdpleaf port group route class dcqcn; do
		for k in $(config_block "$sect" | documented_keys); do
			[[ -n ${keys[$sect/$k]-} ]] || extra+=" [$sect] $k"
		done
	done
	echo "keys: $n"
	[[ -z $missing ]] || { echo "rows not in docs/config.md (or not as the table has them):"; echo "$missing"; }
	[[ -z $extra ]] || echo "documented, but not a key:$extra"
	[[ -z $missing && -z $extra ]]
	((n >= 40))
}

@test "docs/architecture.md: the Reasons table has a row for every reason in XL_REASONS, and no other" {
	local names documented r missing='' extra=''
	names=$(sed -n '/define XL_REASONS/,/^$/p' "$ROOT/include/xdpleaf.h" |
		grep -oE '^[[:space:]]*X\([A-Z0-9_]+, [a-z0-9_]+\)' | sed -E 's/.*, ([a-z0-9_]+)\)/\1/')
	(($(wc -l <<<"$names") >= 20))
	# the table's first column: one or more `reason`s per row
	# shellcheck disable=SC2016 # backticks of markdown, not a command
	documented=$(sed -n '/^## Reasons/,/^## [^R]/p' "$ROOT/docs/architecture.md" |
		awk -F'|' '/^\| `/ { print $2 }' | grep -oE '`[a-z0-9_]+`' | tr -d '`')
	for r in $names; do
		grep -qx "$r" <<<"$documented" || missing+=" $r"
	done
	for r in $documented; do
		grep -qx "$r" <<<"$names" || extra+=" $r"
	done
	[[ -z $missing ]] || echo "not in docs/architecture.md's Reasons:$missing"
	[[ -z $extra ]] || echo "in docs/architecture.md's Reasons, not in XL_REASONS:$extra"
	[[ -z $missing && -z $extra ]]
}

@test "docs/metrics.md: the metrics table is the exporter's own (name, type, labels, help)" {
	local table
	table=$("$XDPLEAF" exporter --list-metrics)
	(($(grep -c '^| `xdpleaf_' <<<"$table") >= 30))
	diff <(echo "$table") <(grep '^| `xdpleaf_' "$ROOT/docs/metrics.md")
}
