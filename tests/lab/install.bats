#!/usr/bin/env bats
# What an operator installs: make install / make uninstall (PREFIX,
# DESTDIR) and the Debian package of make deb, installed with dpkg -i and
# purged with dpkg -P. The man pages and the completion must say what the
# commands' own --help says.
#
# The package test installs xdpleaf on this machine for real; it holds
# /tmp/xdpleaf-deb.lock meanwhile, so that two runs take turns, and refuses
# to start where xdpleaf is installed already (it would purge that).

load helpers
bats_require_minimum_version 1.5.0

setup_file() {
	export LAB_SKIP
	LAB_SKIP=$(lab_unavailable)
	[[ -z $LAB_SKIP ]] || return 0
	ensure_bpffs
	export P="xlt$$i"
}

setup() {
	require_lab
	NS=''
	PID=''
	INSTALLED=''
	DEB_LOCKED=''
}

teardown() {
	[[ -z $PID ]] || { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }
	"$XDPLEAF" unload --instance "$P" >/dev/null 2>&1 || true
	[[ -z $NS ]] || ip netns del "$NS" 2>/dev/null || true
	# this run's enabling (named after it), whether or not the purge took it
	rm -f "/etc/systemd/system/multi-user.target.wants/xdpleaf-daemon@$P.service"
	[[ -z $INSTALLED ]] || dpkg -P xdpleaf >/dev/null 2>&1 || true
	[[ -z $DEB_LOCKED ]] || exec 9>&-
}

# make in the tree, as an operator runs it (not as part of make test's own
# make: no jobserver of that one)
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$ROOT" "$@"
}

# The commands `xdpleaf --help` lists, and the models `sim --help` lists.
help_list() { # heading xdpleaf-args...
	local h=$1
	shift
	"$XDPLEAF" "$@" --help | awk -v h="$h" '$0 ~ h "$" { on = 1; next }
		on && /^$/ { exit }
		on && /^  [a-z]/ { print $1 }'
}
commands() { help_list "Commands:"; }
models() { help_list "Models:" sim; }

# The long options a command's --help lists ("  -c, --config FILE",
# "      --no-daemon"), one a line, sorted.
help_options() {
	"$XDPLEAF" "$@" --help | sed -nE 's/^  (-[A-Za-z], |    )--([a-z0-9-]+).*/--\2/p' | sort
}

# What the completion script $1 offers for the words after it (the last
# one being completed), one a line, sorted.
completes() {
	local script=$1
	shift
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_xdpleaf; printf "%s\n" "${COMPREPLY[@]}"' _ "$script" "$@" | sort
}

# Every page of xdpleaf's: xdpleaf, xdpleaf-COMMAND, xdpleaf-sim-MODEL.
pages() {
	echo xdpleaf
	commands | sed 's/^/xdpleaf-/'
	models | sed 's/^/xdpleaf-sim-/'
}

@test "make install (DESTDIR) installs the command, its unit, a man page per command, completion and docs; make uninstall removes exactly those" {
	local stage=$BATS_TEST_TMPDIR/stage p=/usr/local f files page cmd opt words
	# others' files in the same directories, which uninstall must leave
	mkdir -p "$stage$p/sbin" "$stage$p/share/man/man8"
	touch "$stage$p/sbin/other" "$stage$p/share/man/man8/other.8"
	run mk install DESTDIR="$stage"
	((status == 0)) || { echo "$output"; return 1; }

	[[ -x $stage$p/sbin/xdpleaf ]]
	[[ $("$stage$p/sbin/xdpleaf" --version) == "$("$XDPLEAF" --version)" ]]
	# the unit runs the installed command (its path without DESTDIR)
	grep -qx "ExecStart=$p/sbin/xdpleaf daemon --replace --instance %i --log-level info" \
		"$stage$p/lib/systemd/system/xdpleaf-daemon@.service"
	[[ -f $stage$p/share/bash-completion/completions/xdpleaf ]]
	for f in README.md LICENSE docs/operations.md docs/config.md docs/img/scale-flows.png \
		examples/leaf1.conf; do
		[[ -f $stage$p/share/doc/xdpleaf/$f ]] || { echo "no doc $f"; return 1; }
	done
	# a page per command and sim model, each with its command's options
	for page in $(pages); do
		f=$stage$p/share/man/man8/$page.8
		[[ -f $f ]] || { echo "no page $page"; return 1; }
		grep -A1 '^\.SH NAME' "$f" | grep -q "^$page \\\\- " || { echo "$page: NAME"; return 1; }
		cmd=${page#xdpleaf}
		cmd=${cmd//-/ }
		# shellcheck disable=SC2086 # the command's words
		for opt in $(help_options $cmd); do
			grep -qF -- "${opt//-/\\-}" "$f" || { echo "$page lacks $opt"; return 1; }
		done
	done
	(($(pages | wc -l) >= 22))
	# a command's notes whole (a 512-byte buffer cut daemon's at "Logs to stderr, w")
	grep -q 'Runs until the instance is unloaded\.$' "$stage$p/share/man/man8/xdpleaf-daemon.8"
	note "installed: $(find "$stage" -type f | wc -l) files, $(pages | wc -l) man pages"

	# the completion offers each command's options as its --help lists them
	f=$stage$p/share/bash-completion/completions/xdpleaf
	[[ $(completes "$f" xdpleaf "") == "$( (commands; echo --help; echo --version) | sort)" ]]
	for cmd in $(commands); do
		[[ $cmd == sim || $cmd == completion ]] && continue
		words=$(completes "$f" xdpleaf "$cmd" --)
		[[ $words == "$(help_options "$cmd")" ]] || {
			echo "$cmd: completes"; echo "$words"; echo "help:"; help_options "$cmd"; return 1
		}
	done
	[[ $(completes "$f" xdpleaf sim "") == "$( (models; echo --help) | sort)" ]]
	for cmd in $(models); do
		[[ $(completes "$f" xdpleaf sim "$cmd" --) == "$(help_options sim "$cmd")" ]]
	done
	[[ $(completes "$f" xdpleaf completion "") == "$(printf '%s\n' --help bash)" ]]
	# values: a value's words, files, interfaces
	[[ $(completes "$f" xdpleaf sim flowlet --mode "") == "$(printf '%s\n' flowlet flowlet-random hash)" ]]
	[[ $(completes "$f" xdpleaf load -c "$ROOT/lab/leaf") == "$(printf '%s\n' "$ROOT"/lab/leaf*.conf)" ]]
	[[ $(completes "$f" xdpleaf gen --dev l) == *lo* ]]

	run mk uninstall DESTDIR="$stage"
	((status == 0)) || { echo "$output"; return 1; }
	files=$(cd "$stage" && find . ! -type d | sort)
	[[ $files == "$(printf '%s\n' ".$p/sbin/other" ".$p/share/man/man8/other.8")" ]] ||
		{ echo "left: $files"; return 1; }
}

@test "make install PREFIX= (no DESTDIR): the unit names PREFIX's binary and passes systemd-analyze verify" {
	local p=$BATS_TEST_TMPDIR/prefix unit
	run mk install PREFIX="$p"
	((status == 0)) || { echo "$output"; return 1; }
	unit=$p/lib/systemd/system/xdpleaf-daemon@.service
	grep -q "^ExecStart=$p/sbin/xdpleaf daemon " "$unit"
	if command -v systemd-analyze >/dev/null; then
		run systemd-analyze verify "${unit%@.service}@$P.service"
		[[ $status -eq 0 && -z $output ]] || { echo "$output"; return 1; }
	fi
	[[ $("$p/sbin/xdpleaf" --version) == "$("$XDPLEAF" --version)" ]]
	run mk uninstall PREFIX="$p"
	((status == 0))
	[[ -z $(find "$p" ! -type d) ]]
}

@test "make deb: dpkg -i installs it, its unit runs the daemon of a loaded instance, dpkg -P leaves nothing" {
	local deb version arch files tree t0 secs cmd n page unit=/lib/systemd/system/xdpleaf-daemon@.service
	local wants=/etc/systemd/system/multi-user.target.wants
	exec 9>/tmp/xdpleaf-deb.lock
	flock -w 900 9
	DEB_LOCKED=1
	if dpkg-query -W -f '${db:Status-Status}' xdpleaf 2>/dev/null | grep -qvx not-installed; then
		echo "xdpleaf is installed on this machine (dpkg -s xdpleaf): this test would purge it"
		return 1
	fi
	if compgen -G "/etc/systemd/system/*.wants/xdpleaf-daemon@*" >/dev/null; then
		echo "xdpleaf-daemon@ instances are enabled here: purging the test's package would disable them"
		return 1
	fi

	tree=$(GIT_OPTIONAL_LOCKS=0 git -C "$ROOT" status --porcelain --untracked-files=all)
	t0=$SECONDS
	run mk deb
	secs=$((SECONDS - t0))
	((status == 0)) || { echo "$output" | tail -40; return 1; }
	version=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
	arch=$(dpkg --print-architecture)
	deb=$ROOT/build/deb/xdpleaf_${version}_$arch.deb
	[[ -f $deb ]]
	note "make deb: ${secs} s, $(stat -c %s "$deb") bytes"
	# one version: the changelog's is the command's
	[[ $("$XDPLEAF" --version) == "xdpleaf $version "* ]]
	# the tree itself got nothing: no file git would see came or changed
	[[ $(GIT_OPTIONAL_LOCKS=0 git -C "$ROOT" status --porcelain --untracked-files=all) == "$tree" ]]

	INSTALLED=1
	run dpkg -i "$deb"
	((status == 0)) || { echo "$output"; return 1; }
	files=$(dpkg -L xdpleaf)
	for f in /usr/sbin/xdpleaf "$unit" /usr/share/bash-completion/completions/xdpleaf \
		/usr/share/doc/xdpleaf/copyright /usr/share/doc/xdpleaf/examples/leaf1.conf; do
		grep -qx "$f" <<<"$files" || { echo "not installed: $f"; return 1; }
	done
	for page in $(pages); do
		grep -qx "/usr/share/man/man8/$page.8.gz" <<<"$files" || { echo "no page $page"; return 1; }
	done
	# built from this tree's commit (make deb passes it to the copy, which has no .git)
	[[ $(/usr/sbin/xdpleaf --version) =~ ^xdpleaf\ $version\ \(git\ ([0-9a-f]{7,})(-dirty)?\)$ ]]
	git -c safe.directory="$ROOT" -C "$ROOT" cat-file -e "${BASH_REMATCH[1]}^{commit}"
	grep -q '^ExecStart=/usr/sbin/xdpleaf daemon ' "$unit"
	if command -v systemd-analyze >/dev/null; then
		run systemd-analyze verify "/lib/systemd/system/xdpleaf-daemon@$P.service"
		[[ $status -eq 0 && -z $output ]] || { echo "$output"; return 1; }
	fi
	# a template: enabled for no instance
	! compgen -G "/etc/systemd/system/*.wants/xdpleaf-daemon@*" || false

	# A host with a config (the package's example, on leaf1's port names):
	# load it with the installed command, then the unit's ExecStart as
	# systemd runs it (%i: the instance) becomes the instance's daemon.
	NS=$P-a
	ip netns add "$NS"
	for n in 1 2 3 4; do
		ip -n "$NS" link add name "s$n" type veth peer name "u$n"
		ip -n "$NS" link set dev "s$n" up
		ip -n "$NS" link set dev "u$n" up
	done
	in_ns "$NS" /usr/sbin/xdpleaf load --no-daemon --instance "$P" \
		--config /usr/share/doc/xdpleaf/examples/leaf1.conf
	cmd=$(sed -n 's/^ExecStart=//p' "$unit" | sed "s/%i/$P/g")
	# shellcheck disable=SC2086 # the unit's words
	nsenter --net="/run/netns/$NS" -- $cmd </dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/unit.log" 3>&- &
	PID=$!
	# shellcheck disable=SC2016
	poll bash -c '[[ $(cat "$1" 2>/dev/null) == "$2" ]]' _ "/run/xdpleaf/$P.pid" "$PID"
	run in_ns "$NS" /usr/sbin/xdpleaf status --instance "$P"
	[[ $output == *"daemon running, pid $PID"* ]] || { echo "$output"; cat "$BATS_TEST_TMPDIR/unit.log"; return 1; }
	# the installed completion knows the loaded instance
	[[ $(completes /usr/share/bash-completion/completions/xdpleaf xdpleaf status --instance "$P") == "$P" ]]
	in_ns "$NS" /usr/sbin/xdpleaf unload --instance "$P"
	wait "$PID"
	PID=
	grep -q "instance '$P': daemon exits" "$BATS_TEST_TMPDIR/unit.log"
	# an operator's enabling, which purge takes back
	systemctl enable "xdpleaf-daemon@$P.service" 2>/dev/null
	[[ -L $wants/xdpleaf-daemon@$P.service ]]

	run dpkg -P xdpleaf
	((status == 0)) || { echo "$output"; return 1; }
	INSTALLED=
	while read -r f; do
		[[ -d $f ]] && continue # directories others share (/usr/sbin)
		[[ ! -e $f && ! -L $f ]] || { echo "left after purge: $f"; return 1; }
	done <<<"$files"
	[[ -z $(find /usr/share/doc/xdpleaf /var/lib/dpkg/info -maxdepth 1 -name 'xdpleaf*' 2>/dev/null) ]]
	[[ ! -L $wants/xdpleaf-daemon@$P.service ]]
	run dpkg-query -W -f '${db:Status-Status}' xdpleaf
	[[ $status -ne 0 || $output == not-installed ]]
}
