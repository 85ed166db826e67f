// SPDX-License-Identifier: GPL-2.0
/*
 * npu: device page tables - build, change and walk them.
 *
 * Callers serialise changes and walks with the VA space's lock (a
 * sleeping lock); the tables themselves carry no lock. Changes to a range
 * of many 4 KiB leaves reschedule between tables: one handle can be
 * gigabytes of them.
 */
#include <linux/bitfield.h>
#include <linux/build_bug.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>

#include "npu_mmu.h"

/*
 * The entry format. Level 0 entries map 4 KiB; level 1 and level 2
 * entries are either a pointer to the next table or, with NPU_PTE_LEAF, a
 * 2 MiB or 1 GiB leaf. An entry holds a device-physical address, or with
 * NPU_PTE_SYSTEM a host DMA address, and the access the device has.
 */
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
#define NPU_PTE_REVOCABLE	BIT_ULL(52)	/* software: ask the mapping */
#define NPU_PTE_PERM		(NPU_PTE_READ | NPU_PTE_WRITE)

static_assert(NPU_PT_RUN_MAX == (NPU_PTE_MIRROR_RUN >> 7) + 1);

/* The entry bits of NPU_PT_* attributes, and back. */
static u64 npu_pte_bits(u32 attrs)
{
	return (attrs & NPU_PT_READ ? NPU_PTE_READ : 0) |
	       (attrs & NPU_PT_WRITE ? NPU_PTE_WRITE : 0) |
	       (attrs & NPU_PT_SYSTEM ? NPU_PTE_SYSTEM : 0) |
	       (attrs & NPU_PT_REVOCABLE ? NPU_PTE_REVOCABLE : 0);
}

static u32 npu_pte_attrs(u64 pte)
{
	return (pte & NPU_PTE_READ ? NPU_PT_READ : 0) |
	       (pte & NPU_PTE_WRITE ? NPU_PT_WRITE : 0) |
	       (pte & NPU_PTE_SYSTEM ? NPU_PT_SYSTEM : 0) |
	       (pte & NPU_PTE_REVOCABLE ? NPU_PT_REVOCABLE : 0);
}

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
			 * walks tables under its mirror lock only (npu_pt_leaf()).
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
 * @attrs: NPU_PT_*
 * @max_leaf: largest leaf to use
 *
 * Uses the largest leaves the alignment allows. Tables left empty by an
 * earlier unmap where a larger leaf now goes are freed.
 *
 * Return: 0; -EINVAL for a misaligned @addr or @size; -ERANGE if the
 * addresses do not fit an entry's 52 bits (never truncated); -ENOMEM.
 */
int npu_pt_map(struct npu_pt *pt, u64 va, u64 addr, u64 size, u32 attrs,
	       u64 max_leaf)
{
	u64 flags = npu_pte_bits(attrs), done = 0, end;

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

/* Change the access of every leaf in the range to @attrs' READ and WRITE. */
void npu_pt_protect(struct npu_pt *pt, u64 va, u64 size, u32 attrs)
{
	npu_pt_update(pt, va, size, NPU_PTE_PERM,
		      npu_pte_bits(attrs) & NPU_PTE_PERM);
}

/**
 * npu_pt_walk() - translate one device VA as the MMU does
 * @pt: page tables
 * @va: device VA
 * @walk: out: address, attributes and bytes left in the leaf (or run)
 *
 * A mirror's run is one DMA mapping: the walk covers the rest of it, so
 * the engine moves it as one piece.
 *
 * Return: 0, or -ENOENT if @va is not mapped.
 */
int npu_pt_walk(struct npu_pt *pt, u64 va, struct npu_pt_walk *walk)
{
	u64 step, entry, *pte;
	unsigned int idx;
	int level;

	if (va >= (1ULL << NPU_PT_SHIFT(NPU_PT_LEVELS)))
		return -ENOENT;
	pte = npu_pt_leaf(pt, va, &step, &level);
	if (!pte)
		return -ENOENT;
	entry = READ_ONCE(*pte);
	walk->leaf = npu_pt_level_size(level);
	walk->attrs = npu_pte_attrs(entry);
	walk->mirror = entry & NPU_PTE_MIRROR;
	walk->addr = (entry & NPU_PTE_ADDR) + (va & (walk->leaf - 1));
	walk->left = step;
	if (walk->mirror) {
		idx = npu_pt_index(va, 0);
		while (++idx < NPU_PT_ENTRIES &&
		       (READ_ONCE(*++pte) & NPU_PTE_MIRROR_TAIL))
			walk->left += PAGE_SIZE;
	}
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
 * So that npu_pt_set_run() can later install 4 KiB leaves there without
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

/*
 * npu_pt_lookup() - the level-0 entry for @va, if its table exists
 * @pt: page tables
 * @va: device VA
 *
 * Never allocates (npu_pt_prepare() does).
 *
 * Return: the entry, or NULL if a table on the way is missing or a
 * larger leaf maps @va.
 */
static u64 *npu_pt_lookup(struct npu_pt *pt, u64 va)
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

/*
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
static u64 *npu_pt_next_leaf(struct npu_pt *pt, u64 *va, u64 end)
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

/* Is a page mapped at @va (a 4 KiB entry whose table exists)? */
bool npu_pt_present(struct npu_pt *pt, u64 va)
{
	u64 *pte = npu_pt_lookup(pt, va);

	return pte && (READ_ONCE(*pte) & NPU_PTE_VALID);
}

/**
 * npu_pt_set_run() - map a mirror's run of pages at @va
 * @pt: page tables, prepared for the range (npu_pt_prepare())
 * @va: device VA, 4 KiB aligned; the run lies inside one last-level table
 *	and its entries are clear
 * @dma: the run's DMA address (one mapping of @npages pages)
 * @npages: 1..NPU_PT_RUN_MAX
 * @write: writable, else read-only
 *
 * Allocates nothing: callable under a lock that memory reclaim takes.
 *
 * Return: 0, or -ENOENT if the table is not there.
 */
int npu_pt_set_run(struct npu_pt *pt, u64 va, u64 dma, unsigned int npages,
		   bool write)
{
	u64 flags = NPU_PTE_VALID | NPU_PTE_READ | NPU_PTE_SYSTEM |
		    NPU_PTE_MIRROR | (write ? NPU_PTE_WRITE : 0);
	u64 *pte = npu_pt_lookup(pt, va);
	unsigned int k;

	if (!pte)
		return -ENOENT;
	for (k = 0; k < npages; k++)
		WRITE_ONCE(pte[k], ((dma + ((u64)k << PAGE_SHIFT)) & NPU_PTE_ADDR) |
			   flags | (k ? NPU_PTE_MIRROR_TAIL :
				    FIELD_PREP(NPU_PTE_MIRROR_RUN, npages - 1)));
	return 0;
}

/*
 * Clear the whole run the entry @pte (of VA @va) belongs to; @fn gets its
 * DMA mapping. Returns its pages.
 */
static unsigned long npu_pt_clear_run(u64 *pte, u64 va, npu_pt_run_fn fn,
				      void *arg)
{
	unsigned int idx = npu_pt_index(va, 0);
	unsigned long i, n;
	u64 *head = pte;

	while ((*head & NPU_PTE_MIRROR_TAIL) && idx--)
		head--;
	n = FIELD_GET(NPU_PTE_MIRROR_RUN, *head) + 1;
	fn(arg, *head & NPU_PTE_ADDR, n, *head & NPU_PTE_WRITE);
	for (i = 0; i < n; i++)
		WRITE_ONCE(head[i], 0);
	return n;
}

/**
 * npu_pt_clear_runs() - clear the mirror entries of [@start, @end)
 * @pt: page tables
 * @start: device VA
 * @end: first byte not to clear
 * @fn: gets each run's DMA mapping, as its entries go
 * @arg: for @fn
 *
 * Whole runs go, so maybe a few pages on either side too. Neither
 * allocates nor sleeps; other entries stay.
 *
 * Return: the pages cleared.
 */
unsigned long npu_pt_clear_runs(struct npu_pt *pt, u64 start, u64 end,
				npu_pt_run_fn fn, void *arg)
{
	unsigned long n = 0;
	u64 va = start, *pte;

	while ((pte = npu_pt_next_leaf(pt, &va, end))) {
		if (*pte & NPU_PTE_MIRROR)
			n += npu_pt_clear_run(pte, va, fn, arg);
		va = ALIGN_DOWN(va, PAGE_SIZE) + PAGE_SIZE;
	}
	return n;
}
