/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* An instance's life, shared by both modes' loaders (user/leaf/loader.c,
 * user/host/loader.c): links held until pinned, pinning, the `instance`
 * record, unload. */
#ifndef XL_ATTACH_H
#define XL_ATTACH_H

#include "xdpleaf.h"

/* Links attached so far, by pin name. Until pinned they live only as fds,
 * so closing them detaches: that is the rollback. */
struct xl_attach_state {
	struct {
		int fd;
		char name[48];
	} links[2 * XL_MAX_PORTS];
	int n_links;
};
/* The link's pin name: prefix (XL_PIN_LINK_*) + the port's name. */
void xl_attach_add(struct xl_attach_state *st, int fd, const char *prefix,
		   const char *port);
void xl_attach_close(struct xl_attach_state *st);

/* bpffs is there and the instance is not loaded yet (else says why). */
int xl_check_new_instance(const char *instance);
/* Write the `instance` map: this namespace and xdpleaf's version. */
struct bpf_map;
int xl_record_instance(struct bpf_map *map);
/* Pin every map, program (prog_NAME) and link under the instance dir,
 * which it makes: on a failure it removes that directory, and never one
 * it did not make. */
struct bpf_object;
int xl_pin_object(struct bpf_object *obj, const struct xl_attach_state *st,
		  const char *instance);

/* Idempotent: 0 when the instance's pins are gone afterwards, saying
 * whether there was anything to unload. Unpinning the links detaches.
 * (The instance's daemon is stopped first by the caller: instance/daemon.h.) */
int xl_unload(const char *instance);

#endif
