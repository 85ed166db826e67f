/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: uncorrectable memory errors seen through a context's mappings.
 */
#ifndef __NPU_UCE_H__
#define __NPU_UCE_H__

#include <linux/types.h>

struct npu_context;

int npu_mem_uce_query_ioctl(struct npu_context *ctx, void *arg);
int npu_mem_repair_ioctl(struct npu_context *ctx, void *arg);
int npu_uce_poison(struct npu_context *ctx, u64 va);

#endif /* __NPU_UCE_H__ */
