/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Bring an instance up (validate, load, fill maps, attach, pin) and down. */
#ifndef XL_LOADER_H
#define XL_LOADER_H

#include <stdbool.h>
#include "config.h"

/* All or nothing: on any failure everything done so far is undone and -1
 * returned after printing the reason. */
int xl_load(const struct xl_config *cfg, const char *instance,
	    bool start_watcher);
/* Host mode (DCQCN NP/RP at tc), called by xl_load for mode = host. */
int xl_load_host(const struct xl_config *cfg, const char *instance);

/* Shared by both modes: links attached so far, by pin name. Until pinned
 * they live only as fds, so closing them detaches: that is the rollback. */
struct xl_attach_state {
	struct {
		int fd;
		char name[48];
	} links[2 * XL_MAX_PORTS];
	int n_links;
};
struct bpf_object;
/* The link's pin name: prefix (XL_PIN_LINK_*) + the port's name. */
void xl_attach_add(struct xl_attach_state *st, int fd, const char *prefix,
		   const char *port);
void xl_attach_close(struct xl_attach_state *st);
/* Pin every map, program (prog_NAME) and link under the instance dir. */
int xl_pin_object(struct bpf_object *obj, const struct xl_attach_state *st,
		  const char *instance);
/* Write the `instance` map: this namespace and xdpleaf's version. */
struct bpf_map;
int xl_record_instance(struct bpf_map *map);
/* bpffs is there and the instance is not loaded yet (else says why). */
int xl_check_new_instance(const char *instance);

/* Idempotent: 0 when the instance is gone afterwards, saying whether
 * there was anything to unload. */
int xl_unload(const char *instance);

#endif
