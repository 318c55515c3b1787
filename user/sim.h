/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* `xdpleaf sim`: the dataplane's algorithms run offline over traces, from
 * the same headers the BPF programs compile. */
#ifndef XL_SIM_H
#define XL_SIM_H

/* argv[0] is the model name ("queue"). */
int xl_sim_queue(int argc, char **argv);
int xl_sim_dcqcn(int argc, char **argv);
int xl_sim_main(int argc, char **argv);

#endif
