/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: the generic netlink family "npu" - the management plane.
 */
#ifndef __NPU_NETLINK_H__
#define __NPU_NETLINK_H__

#include <linux/types.h>

struct npu_context;
struct npu_device;

int npu_netlink_init(void);
void npu_netlink_exit(void);
void npu_netlink_fault(struct npu_context *ctx, u32 stream, u64 addr,
		       bool write, bool host, const char *why);
void npu_netlink_reset(struct npu_device *npu, u8 phase, u32 contexts);

#endif /* __NPU_NETLINK_H__ */
