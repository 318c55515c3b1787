/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Wire constants the leaf and host parsers, the CNP builder and the
 * traffic tools share: ethertypes, the IP protocol numbers vmlinux.h does
 * not carry, and RoCEv2's UDP port. Host byte order. (tests/bpf/packets.h
 * spells its own on purpose: the test packet builder is kept independent of
 * the code it checks.) */
#ifndef XL_PROTO_H
#define XL_PROTO_H

#define XL_ETH_ALEN       6
#define XL_ETH_P_IP       0x0800
#define XL_ETH_P_ARP      0x0806
#define XL_ETH_P_8021Q    0x8100
#define XL_ETH_P_8021AD   0x88A8
#define XL_ETH_P_IPV6     0x86DD
#define XL_ETH_P_LLDP     0x88CC
#define XL_ETH_P_MAC_CTRL 0x8808 /* 802.3x PAUSE, 802.1Qbb PFC */

#define XL_IPPROTO_ICMPV6 58
#define XL_IP_MF_OFFSET   0x3fff /* IPv4 MF flag + fragment offset */

#define XL_ROCEV2_PORT    4791  /* IANA: RoCEv2's UDP destination port */

#endif
