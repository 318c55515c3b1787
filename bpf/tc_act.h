/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* tc's verdicts (linux/pkt_cls.h: macros, so not in vmlinux.h). */
#ifndef XL_TC_ACT_H
#define XL_TC_ACT_H

#define XL_TC_ACT_OK 0
#define XL_TC_ACT_SHOT 2
#define XL_TC_ACT_REDIRECT 7

#endif
