/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: device page-table format.
 *
 * Four levels of 512 64-bit entries (9 bits each) translate a 48-bit
 * device VA, as an x86-64 or Arm LPAE MMU would. Level 0 entries map
 * 4 KiB; level 1 and level 2 entries are either a pointer to the next
 * table or, with NPU_PTE_LEAF, a 2 MiB or 1 GiB leaf. Tables live in
 * system memory; the simulated MMU walks them on every device access.
 */
#ifndef __NPU_MMU_H__
#define __NPU_MMU_H__

#include <linux/bits.h>
#include <linux/types.h>

#define NPU_PT_LEVELS		4
#define NPU_PT_BITS		9
#define NPU_PT_ENTRIES		BIT(NPU_PT_BITS)
#define NPU_PT_SHIFT(level)	(PAGE_SHIFT + NPU_PT_BITS * (level))

#define NPU_PTE_VALID		BIT_ULL(0)
#define NPU_PTE_LEAF		BIT_ULL(1)	/* a leaf above level 0 */
#define NPU_PTE_READ		BIT_ULL(2)
#define NPU_PTE_WRITE		BIT_ULL(3)
#define NPU_PTE_SYSTEM		BIT_ULL(4)	/* address is a host DMA address */
#define NPU_PTE_MIRROR		BIT_ULL(5)	/* a faulted-in page of a mirror */
/*
 * A mirror maps physically contiguous pages with one DMA mapping (a run,
 * inside one last-level table): its first entry holds the page count - 1,
 * the others are tails.
 */
#define NPU_PTE_MIRROR_TAIL	BIT_ULL(6)
#define NPU_PTE_MIRROR_RUN	GENMASK_ULL(11, 7)
#define NPU_PTE_ADDR		GENMASK_ULL(51, 12)
#define NPU_PTE_PERM		(NPU_PTE_READ | NPU_PTE_WRITE)

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
 * @pte: the leaf entry's flags
 * @left: bytes from the VA to the end of the leaf
 * @leaf: size of the leaf
 */
struct npu_pt_walk {
	u64 addr;
	u64 pte;
	u64 left;
	u64 leaf;
};

int npu_pt_init(struct npu_pt *pt);
void npu_pt_destroy(struct npu_pt *pt);
int npu_pt_map(struct npu_pt *pt, u64 va, u64 addr, u64 size, u64 flags,
	       u64 max_leaf);
void npu_pt_unmap(struct npu_pt *pt, u64 va, u64 size);
void npu_pt_protect(struct npu_pt *pt, u64 va, u64 size, u64 perm);
int npu_pt_walk(struct npu_pt *pt, u64 va, struct npu_pt_walk *walk);
void npu_pt_prune(struct npu_pt *pt, u64 va, u64 size);
int npu_pt_prepare(struct npu_pt *pt, u64 va, u64 size);
u64 *npu_pt_lookup(struct npu_pt *pt, u64 va);
u64 *npu_pt_next_leaf(struct npu_pt *pt, u64 *va, u64 end);

#endif /* __NPU_MMU_H__ */
