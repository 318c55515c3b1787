#!/usr/bin/env bash
# make deb: the Debian package of debian/, built by dpkg-buildpackage -us
# -uc -b in a copy of this tree under OUT, so that the tree itself gets no
# build files; the .deb (and .buildinfo, .changes) end up in OUT.
#   scripts/deb.sh OUT COMMIT     (COMMIT: what `xdpleaf --version` says)
set -euo pipefail

if (($# != 2)); then
	echo "usage: scripts/deb.sh OUT COMMIT" >&2
	exit 2
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
out=$1 commit=$2
for tool in dpkg-buildpackage dh help2man; do
	command -v "$tool" >/dev/null || {
		echo "deb.sh: $tool not installed (make deps)" >&2
		exit 1
	}
done
version=$(dpkg-parsechangelog -l "$ROOT/debian/changelog" -S Version)
src=$out/src/xdpleaf-$version

rm -rf "$out"
mkdir -p "$src"
# The tree's files as they are now (tracked, changed or new; not what git
# ignores, such as build/); outside git, all but the build directories.
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$ROOT" -c safe.directory="$ROOT" ls-files -z --cached --others --exclude-standard |
		(cd "$ROOT" && while IFS= read -r -d '' f; do
			[[ -e $f ]] && printf '%s\0' "$f"
		done) |
		tar -C "$ROOT" --null -T - -cf - | tar -C "$src" -xf -
else
	tar -C "$ROOT" --exclude=./build --exclude=./build-asan -cf - . | tar -C "$src" -xf -
fi

# -jauto: make -j with every core; the commit passed to the package's make
(cd "$src" && XL_GIT_COMMIT=$commit dpkg-buildpackage -us -uc -b -jauto)
mv "$out"/src/*.deb "$out"/src/*.buildinfo "$out"/src/*.changes "$out"/
rm -rf "$out/src"
ls "$out"/*.deb
