/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* xorshift64*: a small generator that gives the same sequence for the same
 * seed, unlike the kernel's, so a simulation or a failing test reproduces.
 * The state must not be 0. */
#ifndef XL_RNG_H
#define XL_RNG_H

#include <linux/types.h>

static inline __u64 xl_rand64(__u64 *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1DULL;
}

/* The high half: xorshift64*'s better bits. */
static inline __u32 xl_rand32(__u64 *state)
{
	return (__u32)(xl_rand64(state) >> 32);
}

#endif
