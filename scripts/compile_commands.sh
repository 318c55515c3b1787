#!/usr/bin/env bash
# compile_commands.sh DIR: read "FILE<TAB>COMMAND" lines (the Makefile's
# compile_commands.json target writes them from its own flags) and print a
# JSON compilation database, every entry run from DIR.
set -euo pipefail

dir=${1:?usage: compile_commands.sh DIR}
awk -F'\t' -v dir="$dir" '
function esc(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return s }
BEGIN { print "[" }
NF == 2 {
	gsub(/ +/, " ", $2)
	if (n++) print ","
	printf "  { \"directory\": \"%s\", \"file\": \"%s\",\n    \"command\": \"%s\" }", esc(dir), esc($1), esc($2)
}
END { print ""; print "]" }'
