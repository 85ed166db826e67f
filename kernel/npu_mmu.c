// SPDX-License-Identifier: GPL-2.0
/*
 * npu: device page tables - build, change and walk them.
 *
 * Callers serialise changes and walks with the VA space's lock (a
 * sleeping lock); the tables themselves carry no lock. Changes to a range
 * of many 4 KiB leaves reschedule between tables: one handle can be
 * gigabytes of them.
 */
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>

#include "npu_mmu.h"

static inline u64 npu_pt_level_size(int level)
{
	return 1ULL << NPU_PT_SHIFT(level);
}

static inline unsigned int npu_pt_index(u64 va, int level)
{
	return (va >> NPU_PT_SHIFT(level)) & (NPU_PT_ENTRIES - 1);
}

static inline u64 *npu_pt_next(u64 pte)
{
	return phys_to_virt(pte & NPU_PTE_ADDR);
}

static inline bool npu_pte_is_table(u64 pte, int level)
{
	return level > 0 && (pte & NPU_PTE_VALID) && !(pte & NPU_PTE_LEAF);
}

/* Is @va the first address past a last-level table's range? */
static inline bool npu_pt_table_end(u64 va)
{
	return !(va & (npu_pt_level_size(1) - 1));
}

static u64 *npu_pt_alloc_table(struct npu_pt *pt)
{
	u64 *table = (u64 *)get_zeroed_page(GFP_KERNEL_ACCOUNT);

	if (table)
		pt->tables++;
	return table;
}

/* Free @table of @level and every table below it. */
static void npu_pt_free_table(struct npu_pt *pt, u64 *table, int level)
{
	unsigned int i;

	if (level > 0) {
		for (i = 0; i < NPU_PT_ENTRIES; i++)
			if (npu_pte_is_table(table[i], level))
				npu_pt_free_table(pt, npu_pt_next(table[i]),
						  level - 1);
	}
	free_page((unsigned long)table);
	pt->tables--;
	if (level == 1)
		cond_resched();
}

int npu_pt_init(struct npu_pt *pt)
{
	pt->tables = 0;
	pt->root = npu_pt_alloc_table(pt);
	return pt->root ? 0 : -ENOMEM;
}

void npu_pt_destroy(struct npu_pt *pt)
{
	if (pt->root)
		npu_pt_free_table(pt, pt->root, NPU_PT_LEVELS - 1);
	pt->root = NULL;
}

/* The entry that maps @va at @level, allocating tables on the way down. */
static u64 *npu_pt_entry_alloc(struct npu_pt *pt, u64 va, int level)
{
	u64 *table = pt->root;
	int l;

	for (l = NPU_PT_LEVELS - 1; l > level; l--) {
		u64 *pte = &table[npu_pt_index(va, l)];

		if (!(*pte & NPU_PTE_VALID)) {
			u64 *next = npu_pt_alloc_table(pt);

			if (!next)
				return NULL;
			/*
			 * Zeroed before it is seen: a mirror invalidation
			 * walks tables under mirror_lock only (npu_pt_leaf()).
			 */
			smp_store_release(pte, virt_to_phys(next) | NPU_PTE_VALID);
		}
		table = npu_pt_next(READ_ONCE(*pte));
	}
	return &table[npu_pt_index(va, level)];
}

/* The largest leaf that fits the alignment of both addresses and @size. */
static int npu_pt_leaf_level(u64 va, u64 addr, u64 size, u64 max_leaf)
{
	int level;

	for (level = 2; level > 0; level--) {
		u64 leaf = npu_pt_level_size(level);

		if (leaf <= max_leaf && size >= leaf &&
		    IS_ALIGNED(va | addr, leaf))
			return level;
	}
	return 0;
}

/**
 * npu_pt_map() - map [@va, @va + @size) to @addr
 * @pt: page tables
 * @va: device VA, 4 KiB aligned; the range must be unmapped
 * @addr: device-physical or DMA address, 4 KiB aligned
 * @size: bytes, multiple of 4 KiB
 * @flags: NPU_PTE_READ/WRITE/SYSTEM
 * @max_leaf: largest leaf to use
 *
 * Uses the largest leaves the alignment allows. Tables left empty by an
 * earlier unmap where a larger leaf now goes are freed.
 *
 * Return: 0; -EINVAL for a misaligned @addr or @size; -ERANGE if the
 * addresses do not fit an entry's 52 bits (never truncated); -ENOMEM.
 */
int npu_pt_map(struct npu_pt *pt, u64 va, u64 addr, u64 size, u64 flags,
	       u64 max_leaf)
{
	u64 done = 0, end;

	if (!IS_ALIGNED(addr | size, PAGE_SIZE))
		return -EINVAL;
	if (check_add_overflow(addr, size, &end) ||
	    end > NPU_PTE_ADDR + PAGE_SIZE)
		return -ERANGE;

	while (done < size) {
		int level = npu_pt_leaf_level(va + done, addr + done,
					      size - done, max_leaf);
		u64 *pte = npu_pt_entry_alloc(pt, va + done, level);

		if (!pte) {
			npu_pt_unmap(pt, va, done);
			return -ENOMEM;
		}
		if (npu_pte_is_table(*pte, level))
			npu_pt_free_table(pt, npu_pt_next(*pte), level - 1);
		*pte = ((addr + done) & NPU_PTE_ADDR) | flags | NPU_PTE_VALID |
		       (level ? NPU_PTE_LEAF : 0);
		done += npu_pt_level_size(level);
		if (npu_pt_table_end(va + done))
			cond_resched();
	}
	return 0;
}

/*
 * Visit the leaf that maps @va: returns its entry (NULL if unmapped) and
 * sets *@step to the bytes from @va to the end of the leaf or hole.
 */
static u64 *npu_pt_leaf(struct npu_pt *pt, u64 va, u64 *step, int *levelp)
{
	u64 *table = pt->root;
	int level;

	for (level = NPU_PT_LEVELS - 1; ; level--) {
		u64 *pte = &table[npu_pt_index(va, level)];
		u64 leaf = npu_pt_level_size(level);

		u64 entry = smp_load_acquire(pte);	/* npu_pt_entry_alloc() */

		*step = leaf - (va & (leaf - 1));
		*levelp = level;
		if (!(entry & NPU_PTE_VALID))
			return NULL;
		if (!level || (entry & NPU_PTE_LEAF))
			return pte;
		table = npu_pt_next(entry);
	}
}

/* Rewrite every leaf in [@va, @va + @size): clear @clear bits, set @set. */
static void npu_pt_update(struct npu_pt *pt, u64 va, u64 size, u64 clear,
			  u64 set)
{
	u64 end = va + size;
	int level;

	while (va < end) {
		u64 step, *pte = npu_pt_leaf(pt, va, &step, &level);

		if (pte)
			*pte = (*pte & ~clear) | set;
		va += step;
		if (npu_pt_table_end(va))
			cond_resched();
	}
}

void npu_pt_unmap(struct npu_pt *pt, u64 va, u64 size)
{
	npu_pt_update(pt, va, size, ~0ULL, 0);
}

void npu_pt_protect(struct npu_pt *pt, u64 va, u64 size, u64 perm)
{
	npu_pt_update(pt, va, size, NPU_PTE_PERM, perm);
}

/**
 * npu_pt_walk() - translate one device VA as the MMU does
 * @pt: page tables
 * @va: device VA
 * @walk: out: address, leaf flags and bytes left in the leaf
 *
 * Return: 0, or -ENOENT if @va is not mapped.
 */
int npu_pt_walk(struct npu_pt *pt, u64 va, struct npu_pt_walk *walk)
{
	u64 step, *pte;
	int level;

	if (va >= (1ULL << NPU_PT_SHIFT(NPU_PT_LEVELS)))
		return -ENOENT;
	pte = npu_pt_leaf(pt, va, &step, &level);
	if (!pte)
		return -ENOENT;
	walk->leaf = npu_pt_level_size(level);
	walk->pte = *pte & ~NPU_PTE_ADDR;
	walk->addr = (*pte & NPU_PTE_ADDR) + (va & (walk->leaf - 1));
	walk->left = step;
	return 0;
}

static void npu_pt_prune_table(struct npu_pt *pt, u64 *table, int level,
			       u64 base, u64 va, u64 end)
{
	u64 size = npu_pt_level_size(level);
	unsigned int i = npu_pt_index(va, level);

	for (; i < NPU_PT_ENTRIES; i++) {
		u64 start = base + (u64)i * size;

		if (start >= end)
			break;
		if (!npu_pte_is_table(table[i], level))
			continue;
		if (va <= start && start + size <= end) {
			npu_pt_free_table(pt, npu_pt_next(table[i]), level - 1);
			table[i] = 0;
		} else {
			npu_pt_prune_table(pt, npu_pt_next(table[i]), level - 1,
					   start, max(va, start),
					   min(end, start + size));
		}
	}
}

/* Free the tables that lie wholly inside an unmapped [@va, @va + @size). */
void npu_pt_prune(struct npu_pt *pt, u64 va, u64 size)
{
	npu_pt_prune_table(pt, pt->root, NPU_PT_LEVELS - 1, 0, va, va + size);
}

/**
 * npu_pt_prepare() - allocate the last-level tables for [@va, @va + @size)
 * @pt: page tables
 * @va: device VA, 4 KiB aligned
 * @size: bytes, multiple of 4 KiB
 *
 * So that npu_pt_set_leaf() can later install 4 KiB leaves there without
 * allocating (under a lock that memory reclaim takes). The range must not
 * hold larger leaves.
 *
 * Return: 0 or -ENOMEM (the tables allocated so far stay, empty).
 */
int npu_pt_prepare(struct npu_pt *pt, u64 va, u64 size)
{
	u64 end = va + size;

	while (va < end) {
		if (!npu_pt_entry_alloc(pt, va, 0))
			return -ENOMEM;
		va = ALIGN_DOWN(va, npu_pt_level_size(1)) + npu_pt_level_size(1);
	}
	return 0;
}

/**
 * npu_pt_lookup() - the level-0 entry for @va, if its table exists
 * @pt: page tables
 * @va: device VA
 *
 * Never allocates (npu_pt_prepare() does).
 *
 * Return: the entry, or NULL if a table on the way is missing or a
 * larger leaf maps @va.
 */
u64 *npu_pt_lookup(struct npu_pt *pt, u64 va)
{
	u64 *table = pt->root, *pte;
	int l;

	if (va >= (1ULL << NPU_PT_SHIFT(NPU_PT_LEVELS)))
		return NULL;
	for (l = NPU_PT_LEVELS - 1; l > 0; l--) {
		u64 entry;

		pte = &table[npu_pt_index(va, l)];
		entry = smp_load_acquire(pte);	/* npu_pt_entry_alloc() */
		if (!npu_pte_is_table(entry, l))
			return NULL;
		table = npu_pt_next(entry);
	}
	return &table[npu_pt_index(va, 0)];
}

/**
 * npu_pt_next_leaf() - the first leaf at or after *@va, below @end
 * @pt: page tables
 * @va: in, where to start; out, the VA the leaf maps (not its start for a
 *	leaf above level 0 that begins before *@va)
 * @end: first byte not to look at
 *
 * Holes are skipped a table at a time; neither allocates nor sleeps.
 *
 * Return: the leaf's entry, or NULL if there is none.
 */
u64 *npu_pt_next_leaf(struct npu_pt *pt, u64 *va, u64 end)
{
	int level;

	while (*va < end && *va < (1ULL << NPU_PT_SHIFT(NPU_PT_LEVELS))) {
		u64 step, *pte = npu_pt_leaf(pt, *va, &step, &level);

		if (pte)
			return pte;
		*va += step;
	}
	return NULL;
}
