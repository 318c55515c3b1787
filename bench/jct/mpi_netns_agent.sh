#!/bin/sh
# The MPI launchers' "remote shell" for the lab: Open MPI's mpirun starts
# its daemon (orted) on a host, and MPICH's hydra its proxy
# (hydra_pmi_proxy), by running `AGENT [OPTIONS] HOST COMMAND...`, as it
# would run ssh or rsh.
# In the lab a host is a network namespace of this machine, so this script
# finds the namespace and runs COMMAND there, in a shell, as sshd would:
# `nsenter --net` (not `ip netns exec`, which also makes a new mount
# namespace and remounts /sys). Everything the daemon starts (the MPI
# ranks) inherits the namespace. docs/jct-bench.md.
#
# HOST is the host's address (what the hostfile lists: no name lookups, so
# nothing waits for a DNS server the lab cannot reach), and the namespace
# is the one of lab $XL_MPI_NETNS_PREFIX (namespaces PREFIX-*) that has it.
# Every lab uses the same addresses, hence the prefix. HOST may also be a
# namespace's name.
#
# The daemon's temporary files go to /tmp/xl-mpi-NETNS (its own per host);
# the caller removes them.
#
# Used through mpirun's `--mca plm_rsh_agent THIS_SCRIPT` and hydra's
# `-launcher rsh -launcher-exec THIS_SCRIPT` (bench/jct/run.sh).
set -eu
while [ $# -gt 0 ]; do
	case $1 in
	-*) shift ;; # ssh options mpirun may add: nothing to do with them
	*) break ;;
	esac
done
[ $# -ge 2 ] || { echo "mpi_netns_agent: usage: $0 ADDRESS|NETNS COMMAND..." >&2; exit 2; }
host=$1
shift
if [ -e "/run/netns/$host" ]; then
	ns=$host
else
	prefix=${XL_MPI_NETNS_PREFIX:?mpi_netns_agent: set XL_MPI_NETNS_PREFIX to the lab prefix}
	ns=
	for n in $(ip netns list | awk -v p="$prefix-" 'index($1, p) == 1 { print $1 }'); do
		if ip -n "$n" -4 -o addr show | awk '{ sub("/.*", "", $4); print $4 }' |
			grep -qxF "$host"; then
			ns=$n
			break
		fi
	done
	[ -n "$ns" ] || { echo "mpi_netns_agent: no namespace $prefix-* has address $host" >&2; exit 1; }
fi
# Each host its own temporary directory: the daemons all run on one
# machine under one host name, and in a shared /tmp Open MPI's session
# directories (/tmp/ompi.HOSTNAME.UID/...) of different "hosts" collide
# (a daemon now and then vanished at start-up and the job waited for it).
tmp=/tmp/xl-mpi-$ns
mkdir -p "$tmp"
exec nsenter --net="/run/netns/$ns" -- env TMPDIR="$tmp" /bin/sh -c "$*"
