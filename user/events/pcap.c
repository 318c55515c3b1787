// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#include <errno.h>
#include <string.h>
#include "base/log.h"
#include "events/pcap.h"

/* The pcap header's magic with nanosecond timestamps, and Ethernet's link
 * type (LINKTYPE_ETHERNET). Written in this host's byte order: readers
 * tell the order from the magic. */
#define PCAP_MAGIC_NS 0xa1b23c4dU
#define PCAP_LINKTYPE_ETHERNET 1

struct pcap_file_header {
	__u32 magic;
	__u16 version_major, version_minor;
	__s32 thiszone;
	__u32 sigfigs, snaplen, linktype;
};

struct pcap_record_header {
	__u32 ts_sec, ts_nsec, caplen, len;
};

FILE *xl_pcap_open(const char *path, __u32 snaplen)
{
	struct pcap_file_header h = { .magic = PCAP_MAGIC_NS, .version_major = 2,
				      .version_minor = 4, .snaplen = snaplen,
				      .linktype = PCAP_LINKTYPE_ETHERNET };
	FILE *f = fopen(path, "wb");

	if (!f) {
		xl_err("%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fwrite(&h, sizeof(h), 1, f) != 1) {
		xl_err("%s: %s", path, strerror(errno));
		fclose(f);
		return NULL;
	}
	return f;
}

int xl_pcap_write(FILE *f, __u64 time_ns, const void *data, __u32 caplen, __u32 len)
{
	struct pcap_record_header r = {
		.ts_sec = (__u32)(time_ns / 1000000000ULL),
		.ts_nsec = (__u32)(time_ns % 1000000000ULL),
		.caplen = caplen,
		.len = len < caplen ? caplen : len,
	};

	if (fwrite(&r, sizeof(r), 1, f) != 1 ||
	    (caplen && fwrite(data, caplen, 1, f) != 1))
		return -1;
	return 0;
}

int xl_pcap_close(FILE *f)
{
	int err = fflush(f) ? -1 : 0;

	if (fclose(f))
		err = -1;
	return err;
}
