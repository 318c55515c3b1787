/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Small generators that give the same sequence for the same seed, unlike
 * the kernel's, so a simulation, a test or a generated traffic pattern
 * reproduces. */
#ifndef XL_RNG_H
#define XL_RNG_H

#include <linux/types.h>

/* xorshift64*. The state must not be 0. */
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

/* splitmix64: a counter stepped by the golden ratio, then mixed. Any
 * state is fine, 0 included, and nearby states give unrelated values, so
 * it also turns a user's seed into independent per-stream states
 * (`xdpleaf gen`: each QP's first PSN and gap draws). */
static inline __u64 xl_splitmix64(__u64 *state)
{
	__u64 z = (*state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

#endif
