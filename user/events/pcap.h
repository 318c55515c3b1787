/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* A pcap file (the classic format, nanosecond timestamps, Ethernet) that
 * tshark, tcpdump and Wireshark read: the events' packet bytes. */
#ifndef XL_PCAP_H
#define XL_PCAP_H

#include <stdio.h>
#include <linux/types.h>

/* Create path and write the file header for frames cut at snaplen; NULL
 * after printing why. */
FILE *xl_pcap_open(const char *path, __u32 snaplen);
/* One frame: time in ns since the epoch, caplen bytes kept of a frame of
 * len. 0, or -1 on a write error (errno). */
int xl_pcap_write(FILE *f, __u64 time_ns, const void *data, __u32 caplen, __u32 len);
/* Flush and close; 0, or -1 on a write error. */
int xl_pcap_close(FILE *f);

#endif
