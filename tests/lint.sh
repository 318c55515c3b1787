#!/usr/bin/env bash
# The tree's own checks, each held at zero findings (HACKING.md, "Checks"):
#   - format: clang-format (.clang-format) on every C file of the tree
#     except those listed in .clang-format-ignore, which predate it; a
#     file not listed, new ones included, must be clean
#   - shellcheck: every shell file (*.sh, *.bash, *.bats and any tracked
#     file whose first line runs sh or bash) at its default severity
#     (style), following sourced files (-x)
#   - analyzer: GCC's -fanalyzer over user/ (`make analyze`)
#
# tests/lint.sh [--tap] [--fix] [CHECK...]   (default: all three)
# --tap prints TAP, one test per check, for tests/run.sh (make test);
# --fix with format rewrites the checked files in place (make format).
# Exits non-zero if a check found anything or could not run.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$ROOT"
BUILD=${BUILD:-build}
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
SHELLCHECK=${SHELLCHECK:-shellcheck}

tap='' fix=''
checks=()
for arg; do
	case $arg in
	--tap) tap=1 ;;
	--fix) fix=1 ;;
	format | shellcheck | analyzer) checks+=("$arg") ;;
	*)
		echo "usage: tests/lint.sh [--tap] [--fix] [format|shellcheck|analyzer]..." >&2
		exit 2
		;;
	esac
done
((${#checks[@]})) || checks=(format shellcheck analyzer)

# The tree's files: in a checkout, git's list of tracked files and of new
# ones it does not ignore (so build output is never checked, and a new file
# is, before its first commit); elsewhere every file under the root.
tree_files() {
	if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -c safe.directory="$ROOT" ls-files --cached --others --exclude-standard |
			sort -u | while IFS= read -r f; do [[ -f $f ]] && echo "$f"; done
	else
		find . -path ./.git -prune -o -path "./$BUILD" -prune -o -path ./build-asan -prune \
			-o -type f -print | sed 's|^\./||' | sort
	fi
}

c_files() { tree_files | grep -E '\.[ch]$' || true; }

shell_files() {
	local f
	while IFS= read -r f; do
		case $f in
		*.sh | *.bash | *.bats) echo "$f" ;;
		*) head -n1 "$f" 2>/dev/null | grep -qE '^#!.*[/ ](ba)?sh( |$)' && echo "$f" ;;
		esac
	done < <(tree_files)
}

# .clang-format-ignore: one path a line, # comments (the format newer
# clang-format reads too, which then skips those files).
ignored() { sed -e 's/#.*//' -e 's/[[:space:]]*$//' .clang-format-ignore 2>/dev/null | grep -v '^$' || true; }

# Each check prints its findings to stdout and a one-line summary as its
# last line; it returns non-zero when it found anything.
check_format() {
	local files=() f n ign out clean=()
	command -v "$CLANG_FORMAT" >/dev/null || { echo "format: $CLANG_FORMAT not found (make deps)"; return 1; }
	ign=$(ignored)
	while IFS= read -r f; do
		grep -qxF "$f" <<<"$ign" || files+=("$f")
	done < <(c_files)
	if [[ -n $fix ]]; then
		"$CLANG_FORMAT" -i "${files[@]}"
		echo "format: rewrote ${#files[@]} files in place"
		return 0
	fi
	out=$("$CLANG_FORMAT" --dry-run -Werror "${files[@]}" 2>&1) || true
	n=$(grep -c 'error: code should be clang-formatted' <<<"$out" || true)
	[[ -z $out ]] || echo "$out"
	# A listed file that is clean now should leave the list, so that it
	# stays clean; a listed file that is gone, too.
	while IFS= read -r f; do
		[[ -z $f ]] && continue
		if [[ ! -f $f ]]; then
			echo "format: note: $f is in .clang-format-ignore but not in the tree: drop it"
		elif "$CLANG_FORMAT" --dry-run -Werror "$f" >/dev/null 2>&1; then
			clean+=("$f")
		fi
	done <<<"$ign"
	for f in "${clean[@]}"; do
		echo "format: note: $f is clean now: drop it from .clang-format-ignore"
	done
	((n == 0)) || echo "format: fix with 'make format' (every file checked) or clang-format -i FILE"
	echo "format: ${#files[@]} files checked ($(grep -c . <<<"$ign") in .clang-format-ignore), $n lines to format" \
		"($("$CLANG_FORMAT" --version | grep -oE 'version [0-9.]+'))"
	((n == 0))
}

check_shellcheck() {
	local files=() f out n
	command -v "$SHELLCHECK" >/dev/null || { echo "shellcheck: $SHELLCHECK not found (make deps)"; return 1; }
	while IFS= read -r f; do files+=("$f"); done < <(shell_files)
	out=$("$SHELLCHECK" -x -f gcc "${files[@]}" 2>&1) || true
	n=$(grep -cE ': (error|warning|note|info|style): ' <<<"$out" || true)
	[[ -z $out ]] || echo "$out"
	echo "shellcheck: ${#files[@]} files checked, $n findings ($("$SHELLCHECK" --version | sed -n 's/^version: /version /p'))"
	((n == 0))
}

check_analyzer() {
	local out rc=0
	# one file per job on every CPU: the analyzer is the slowest check
	out=$(make --no-print-directory -s -k -j"$(nproc)" BUILD="$BUILD" analyze 2>&1) || rc=$?
	grep -v -e '^  ANALYZE ' -e '^$' <<<"$out" || true
	echo "analyzer: gcc -fanalyzer on user/: $(grep -c 'warning:\|error:' <<<"$out" || true) findings" \
		"($(${CC:-cc} --version | head -n1))"
	((rc == 0))
}

run_check() {
	case $1 in
	format) check_format ;;
	shellcheck) check_shellcheck ;;
	analyzer) check_analyzer ;;
	esac
}

rc=0 i=0
[[ -z $tap ]] || echo "1..${#checks[@]}"
for c in "${checks[@]}"; do
	i=$((i + 1))
	if [[ -z $tap ]]; then
		run_check "$c" || rc=1
		continue
	fi
	# TAP: the findings as comments, then the verdict with the summary.
	ok=ok
	out=$(run_check "$c" 2>&1) || { ok="not ok"; rc=1; }
	sed '$d' <<<"$out" | sed 's/^/# /'
	echo "$ok $i - $(tail -n1 <<<"$out")"
done
exit "$rc"
