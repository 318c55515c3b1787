#!/usr/bin/env bash
# Install the build and test dependencies that are missing (Debian 12, apt).
# Silent and fast when everything is there; `apt-get update` only runs when
# something actually has to be installed.
set -euo pipefail

PACKAGES=(
	# build
	clang llvm libbpf-dev libelf-dev zlib1g-dev bpftool libinih-dev
	libjson-c-dev libmnl-dev pkg-config make gcc libc6-dev linux-libc-dev
	# the exporter's HTTP server
	libmicrohttpd-dev
	# xdpleaf top's terminal
	libncurses-dev
	# unit tests
	libcmocka-dev
	# make lint and make format-check (tests/lint.sh, run by make test)
	shellcheck clang-format
	# lab tests and demo (ping and sysctl are not in a minimal image)
	iproute2 procps ethtool iperf3 bats jq iputils-ping python3-scapy tshark
	# xdpleaf top under a terminal (tests/lab/top.bats)
	tmux
	# MPI collectives through the lab (make bench-jct, tests/lab/jct.bats):
	# mpirun and mpicc; MPICH beside it (--ops mpich-*: mpiexec.mpich,
	# mpicc.mpich), the other library with its own algorithm choice
	openmpi-bin libopenmpi-dev mpich libmpich-dev
	# request/response latency beside them (make bench-mixed,
	# tests/lab/mixed.bats): sockperf's ping-pong with every sample
	# logged; qperf's tcp_lat for a quick mean by hand (it has no
	# percentiles)
	sockperf qperf
	# the exporter's tests: promtool and a Prometheus server to scrape it
	prometheus curl
	# the benchmarks' plots (bench/plot.py)
	gnuplot-nox
	# the ns-3 fabric simulator (make sim-fabric, docs/fabric-sim.md): ns-3
	# 3.37's headers and libraries, the C++ compiler; libns3-dev's
	# pkg-config files name libgsl's and libsqlite3's .so files
	libns3-dev g++ libgsl-dev libsqlite3-dev
	# systemd-analyze verify of the shipped unit (tests/lab/cli.bats)
	systemd
	# make install's man pages, make deb (tests/lab/install.bats)
	help2man debhelper
)

missing=()
for pkg in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[[ $status == installed ]] || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $EUID -ne 0 ]]; then
	echo "deps.sh: missing packages: ${missing[*]}" >&2
	echo "deps.sh: must run as root to install them (sudo make deps)" >&2
	exit 1
fi

echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# tshark's postinst asks whether non-root users may capture; answer it up
# front so the install never waits for input.
echo 'wireshark-common wireshark-common/install-setuid boolean false' |
	debconf-set-selections
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
