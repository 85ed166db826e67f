/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: device page tables.
 *
 * Four levels of 512 64-bit entries translate a 48-bit device VA, as an
 * x86-64 or Arm LPAE MMU would, with leaves of 4 KiB, 2 MiB and 1 GiB.
 * Tables live in system memory; the simulated MMU walks them on every
 * device access. The entry format is npu_mmu.c's alone: callers say what
 * a mapping allows (NPU_PT_*) and get the same back from a walk.
 */
#ifndef __NPU_MMU_H__
#define __NPU_MMU_H__

#include <linux/bits.h>
#include <linux/types.h>

#define NPU_PT_LEVELS		4
#define NPU_PT_BITS		9
#define NPU_PT_ENTRIES		BIT(NPU_PT_BITS)
#define NPU_PT_SHIFT(level)	(PAGE_SHIFT + NPU_PT_BITS * (level))

/* What a mapping lets the device do, and what its addresses are. */
#define NPU_PT_READ		BIT(0)
#define NPU_PT_WRITE		BIT(1)
#define NPU_PT_SYSTEM		BIT(2)	/* host DMA addresses, not device memory */
/* The memory may be taken away (an IPC import): the walker asks first. */
#define NPU_PT_REVOCABLE	BIT(3)

/* Pages of a mirror run at most: what a run's first entry can count. */
#define NPU_PT_RUN_MAX		32

/**
 * struct npu_pt - the page tables of one context
 * @root: the level-3 table
 * @tables: number of table pages, for debugging and tests
 */
struct npu_pt {
	u64 *root;
	unsigned long tables;
};

/**
 * struct npu_pt_walk - result of a translation
 * @addr: device-physical or host DMA address of the VA walked
 * @left: bytes from the VA to the end of the leaf - for a mirror's
 *	entry, to the end of its run (one DMA mapping)
 * @leaf: size of the leaf
 * @attrs: NPU_PT_* of the leaf
 * @mirror: a mirror's entry (npu_pt_set_run())
 */
struct npu_pt_walk {
	u64 addr;
	u64 left;
	u64 leaf;
	u32 attrs;
	bool mirror;
};

/* Called for each mirror run npu_pt_clear_runs() clears. */
typedef void (*npu_pt_run_fn)(void *arg, u64 dma, unsigned long npages,
			      bool write);

int npu_pt_init(struct npu_pt *pt);
void npu_pt_destroy(struct npu_pt *pt);
int npu_pt_map(struct npu_pt *pt, u64 va, u64 addr, u64 size, u32 attrs,
	       u64 max_leaf);
void npu_pt_unmap(struct npu_pt *pt, u64 va, u64 size);
void npu_pt_protect(struct npu_pt *pt, u64 va, u64 size, u32 attrs);
int npu_pt_walk(struct npu_pt *pt, u64 va, struct npu_pt_walk *walk);
void npu_pt_prune(struct npu_pt *pt, u64 va, u64 size);

int npu_pt_prepare(struct npu_pt *pt, u64 va, u64 size);
bool npu_pt_present(struct npu_pt *pt, u64 va);
int npu_pt_set_run(struct npu_pt *pt, u64 va, u64 dma, unsigned int npages,
		   bool write);
unsigned long npu_pt_clear_runs(struct npu_pt *pt, u64 start, u64 end,
				npu_pt_run_fn fn, void *arg);

#endif /* __NPU_MMU_H__ */
