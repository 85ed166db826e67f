/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: host memory registrations - pinned user pages mapped for DMA.
 */
#ifndef __NPU_HOST_H__
#define __NPU_HOST_H__

#include <linux/atomic.h>
#include <linux/dma-direction.h>
#include <linux/scatterlist.h>
#include <linux/types.h>

struct npu_context;
struct npu_mapping;
struct user_struct;

/**
 * struct npu_host_reg - one registration
 * @addr: user address
 * @size: bytes
 * @flags: NPU_HOST_* it was registered with
 * @dev_addr: device VA it is mapped at (NPU_HOST_MAPPED), else 0
 * @ctx: the context it belongs to
 * @user: the user charged for the pinned pages (a reference)
 * @pages: the pinned pages, DMA-mapped for the device (pages.sgt)
 * @dir: DMA direction of the mapping
 * @mapping: its device mapping, or NULL (the VA space's to set)
 * @users: one for the context's tree and one for each command using it;
 *	the last one unpins. Unregister waits on the context's host_wq
 *	until only its own is left. A command's pageable operand
 *	(npu_host_pin_user()) is in no tree: the command's is its only one.
 */
struct npu_host_reg {
	u64 addr;
	u64 size;
	u32 flags;
	u64 dev_addr;
	struct npu_context *ctx;
	struct user_struct *user;
	struct sg_append_table pages;
	enum dma_data_direction dir;
	struct npu_mapping *mapping;
	atomic_t users;
};

/**
 * struct npu_host_cursor - where the last DMA address lookup ended, so a
 *	sequential walk over many segments costs O(1) a step
 * @sg: the DMA segment
 * @start: offset in the registration where @sg starts
 */
struct npu_host_cursor {
	struct scatterlist *sg;
	u64 start;
};

struct npu_host_reg *npu_host_reg_get(struct npu_context *ctx, u64 addr,
				      u64 size);
void npu_host_reg_put(struct npu_host_reg *reg);

/* One more user of @reg (a command): npu_host_reg_put() drops it. */
static inline void npu_host_reg_hold(struct npu_host_reg *reg)
{
	atomic_inc(&reg->users);
}

struct npu_host_reg *npu_host_pin_user(struct npu_context *ctx, u64 addr,
				       u64 len, bool write);
int npu_host_dma_addr(struct npu_host_reg *reg, struct npu_host_cursor *cur,
		      u64 offset, u64 *dma, u64 *left);
void npu_host_release(struct npu_context *ctx);
bool npu_host_dma_direct(struct npu_context *ctx);

int npu_host_register_ioctl(struct npu_context *ctx, void *arg);
int npu_host_unregister_ioctl(struct npu_context *ctx, void *arg);

#endif /* __NPU_HOST_H__ */
