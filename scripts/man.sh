#!/usr/bin/env bash
# The man pages, written by Debian's help2man from the commands' own --help,
# so that a page says what its command says: xdpleaf(8), xdpleaf-COMMAND(8)
# for each command `xdpleaf --help` lists, and xdpleaf-sim-MODEL(8) for each
# model `xdpleaf sim --help` lists.
#   scripts/man.sh XDPLEAF OUTDIR      (make man: build/man/)
# help2man reads a synopsis from "Usage:" lines only, of one line each:
# --help-of gives it each command's help so (the usage line capitalised and
# joined), the rest as the command prints it.
set -euo pipefail

if [[ ${1-} == --help-of ]]; then # --help-of XDPLEAF [WORD...] --help
	shift
	"$@" | awk 'NR == 1 && /^usage:/ { u = "Usage:" substr($0, 7); next }
		u != "" && /^ +[^ ]/ { sub(/^ +/, " "); u = u $0; next }
		u != "" { print u; u = "" }
		{ print }
		END { if (u != "") print u }'
	exit
fi

if (($# != 2)); then
	echo "usage: scripts/man.sh XDPLEAF OUTDIR" >&2
	exit 2
fi
xdpleaf=$1 out=$2
self=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)/man.sh
command -v help2man >/dev/null || {
	echo "man.sh: help2man not installed (make deps)" >&2
	exit 1
}
# "xdpleaf 0.1.0 (git 4ff2d3a)" -> "0.1.0 (git 4ff2d3a)"
version=$("$xdpleaf" --version)
version=${version#xdpleaf }

# page NAME SUMMARY SEEALSO WORD...: NAME.8 from `xdpleaf WORD... --help`,
# with a SEE ALSO section of the pages named in SEEALSO
page() {
	local name=$1 summary=$2 see=$3 inc=$out/$1.h2m
	shift 3
	local w sep=
	{
		echo '[SEE ALSO]'
		for w in $see; do
			printf '%s.BR %s (8)' "$sep" "$w"
			sep=$',\n'
		done
		echo
	} >"$inc"
	help2man --no-info --section=8 --source="xdpleaf ${version%% *}" \
		--version-string="$name $version" --name="$summary" --include="$inc" \
		--output="$out/$name.8.tmp" "$self --help-of $xdpleaf $*"
	rm "$inc"
	mv "$out/$name.8.tmp" "$out/$name.8"
}

# The "  WORD  summary" lines of a list in a command's --help, from the
# line ending in $2 ("Commands:", "Models:") to the first blank one.
list() { # help heading
	awk -v h="$2" 'index($0, h) && substr($0, length($0) - length(h) + 1) == h { on = 1; next }
		on && /^$/ { exit }
		on && /^  [a-z]/ { w = $1; sub(/^ +[^ ]+ +/, ""); print w "\t" $0 }' <<<"$1"
}

mkdir -p "$out"
rm -f "$out"/*.8
help=$("$xdpleaf" --help)
commands=$(list "$help" "Commands:")
models=$(list "$("$xdpleaf" sim --help)" "Models:")
page xdpleaf "$(sed -n 's/^An \(.*\)\. Commands:$/an \1/p' <<<"$help")" \
	"$(cut -f1 <<<"$commands" | sed 's/^/xdpleaf-/' | tr '\n' ' ')"
while IFS=$'\t' read -r cmd summary; do
	# without its pointer to the --help the page is made of
	page "xdpleaf-$cmd" "${summary% (\'xdpleaf "$cmd" --help\')}" xdpleaf "$cmd"
done <<<"$commands"
while IFS=$'\t' read -r model summary; do
	page "xdpleaf-sim-$model" "$summary" "xdpleaf-sim xdpleaf" sim "$model"
done <<<"$models"
