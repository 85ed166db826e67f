/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: the generic netlink family "npu" - the management plane.
 */
#ifndef __NPU_NETLINK_H__
#define __NPU_NETLINK_H__

#include <linux/types.h>

struct npu_context;

int npu_netlink_init(void);
void npu_netlink_exit(void);
void npu_netlink_fault(struct npu_context *ctx, u32 stream, u64 addr,
		       bool write, bool host, const char *why);

#endif /* __NPU_NETLINK_H__ */
