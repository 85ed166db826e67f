/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: mirrors - ranges of the context's own process that the device
 * reaches at the same addresses, faulted in on demand (HMM).
 */
#ifndef __NPU_MIRROR_H__
#define __NPU_MIRROR_H__

#include <linux/kref.h>
#include <linux/mmu_notifier.h>
#include <linux/types.h>

struct npu_context;

/**
 * struct npu_mirror - one mirrored range
 * @ref: the VA space's mapping holds one, so does each fault in progress
 * @notifier: watches the range in the context's mm
 * @ctx: the context (the mirror never outlives its VA space's entries)
 * @start: first byte: user address and device VA
 * @size: bytes
 * @dead: taken out of the VA space: a fault in progress installs nothing
 * @live: in the VA space, so its range there is its own: until then, and
 *	after, its invalidations touch no entry
 *
 * @dead and @live are the VA space's, set and read under its locks by
 * npu_vm.c alone.
 */
struct npu_mirror {
	struct kref ref;
	struct mmu_interval_notifier notifier;
	struct npu_context *ctx;
	u64 start;
	u64 size;
	bool dead;
	bool live;
};

void npu_mirror_get(struct npu_mirror *mirror);
void npu_mirror_unmap_run(struct npu_mirror *mirror, u64 dma,
			  unsigned long npages, bool write);
void npu_mirror_put(struct npu_mirror *mirror);
int npu_mirror_fault(struct npu_mirror *mirror, u64 va, u64 len, bool write,
		     u64 *done, const char **why);
void npu_mirror_release(struct npu_context *ctx);

int npu_mirror_map_ioctl(struct npu_context *ctx, void *arg);
int npu_mirror_unmap_ioctl(struct npu_context *ctx, void *arg);

#endif /* __NPU_MIRROR_H__ */
