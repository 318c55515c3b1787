#!/usr/bin/python3
# Fill a leaf's pinned flow table through the map, not by traffic, with
# the bpf(2) system call (BPF_MAP_UPDATE_BATCH) through ctypes: no
# bindings needed.
#
#   fill_flows.py PIN N
#       N IPv4 UDP flows 10.x.y.z -> 10.200.0.1, source ports 1..N mod
#       65535 (the key differs in the source address too), flow i with
#       i + 1 packets and 1000 * (i + 1) bytes, no rate (its window is
#       old): the busiest by bytes are the last ones. Prints the number
#       written.
#
# PIN is the flows map's pin (/sys/fs/bpf/xdpleaf/INSTANCE/flows). The
# key and value layouts are struct xl_flow and struct xl_flow_state
# (include/xdpleaf.h); the sizes are checked against the map's.
import ctypes
import os
import platform
import struct
import sys

SYS_BPF = {"x86_64": 321, "aarch64": 280}[platform.machine()]
BPF_OBJ_GET, BPF_OBJ_GET_INFO_BY_FD, BPF_MAP_UPDATE_BATCH = 7, 15, 26
KEY_SIZE, VALUE_SIZE = 44, 128  # struct xl_flow, struct xl_flow_state
PACKETS_OFF, BYTES_OFF = 16, 24  # xl_flow_state.packets, .bytes
CHUNK = 65536

libc = ctypes.CDLL(None, use_errno=True)


def bpf(cmd, attr):
    r = libc.syscall(SYS_BPF, cmd, ctypes.byref(attr), ctypes.sizeof(attr))
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, f"bpf({cmd}): {os.strerror(e)}")
    return r


class ObjGet(ctypes.Structure):
    _fields_ = [("pathname", ctypes.c_uint64), ("bpf_fd", ctypes.c_uint32),
                ("file_flags", ctypes.c_uint32)]


class InfoByFd(ctypes.Structure):
    _fields_ = [("bpf_fd", ctypes.c_uint32), ("info_len", ctypes.c_uint32),
                ("info", ctypes.c_uint64)]


class MapInfo(ctypes.Structure):  # the head of struct bpf_map_info
    _fields_ = [("type", ctypes.c_uint32), ("id", ctypes.c_uint32),
                ("key_size", ctypes.c_uint32), ("value_size", ctypes.c_uint32),
                ("max_entries", ctypes.c_uint32), ("map_flags", ctypes.c_uint32)]


class Batch(ctypes.Structure):
    _fields_ = [("in_batch", ctypes.c_uint64), ("out_batch", ctypes.c_uint64),
                ("keys", ctypes.c_uint64), ("values", ctypes.c_uint64),
                ("count", ctypes.c_uint32), ("map_fd", ctypes.c_uint32),
                ("elem_flags", ctypes.c_uint64), ("flags", ctypes.c_uint64)]


def main(argv):
    if len(argv) != 3 or not argv[2].isdigit():
        sys.exit("usage: fill_flows.py PIN N")
    path, n = argv[1].encode(), int(argv[2])
    name = ctypes.create_string_buffer(path)
    fd = bpf(BPF_OBJ_GET, ObjGet(pathname=ctypes.addressof(name)))
    info = MapInfo()
    bpf(BPF_OBJ_GET_INFO_BY_FD, InfoByFd(bpf_fd=fd, info_len=ctypes.sizeof(info),
                                         info=ctypes.addressof(info)))
    if (info.key_size, info.value_size) != (KEY_SIZE, VALUE_SIZE):
        sys.exit(f"fill_flows.py: {argv[1]}: key/value of {info.key_size}/"
                 f"{info.value_size} bytes, this script writes {KEY_SIZE}/{VALUE_SIZE}")
    keys = ctypes.create_string_buffer(CHUNK * KEY_SIZE)
    vals = ctypes.create_string_buffer(CHUNK * VALUE_SIZE)
    done = 0
    while done < n:
        c = min(CHUNK, n - done)
        for j in range(c):
            i = done + j
            # saddr 10.x.y.z (i + 1 in the low 24 bits), daddr 10.200.0.1,
            # sport, dport 4791, proto 17, family 4
            struct.pack_into("<4s12x4s12xHHBBHI", keys, j * KEY_SIZE,
                             struct.pack(">I", (10 << 24) | (i + 1)),
                             bytes((10, 200, 0, 1)), i % 65535 + 1, 4791, 17, 4, 0, 0)
            struct.pack_into("<QQ", vals, j * VALUE_SIZE + PACKETS_OFF, i + 1,
                             1000 * (i + 1))
        bpf(BPF_MAP_UPDATE_BATCH, Batch(keys=ctypes.addressof(keys),
                                        values=ctypes.addressof(vals), count=c,
                                        map_fd=fd))
        done += c
    os.close(fd)
    print(done)


if __name__ == "__main__":
    main(sys.argv)
