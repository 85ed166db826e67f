// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the npu device page tables (kernel/npu_mmu.c), mirror runs
 * included.
 *
 * Built only against a kernel with CONFIG_KUNIT=y (the bench's debug
 * kernel) as npu_mmu_kunit.ko, which links its own copy of npu_mmu.o:
 * the tests need no device and do not touch npu.ko. The suite runs when
 * the module loads; its KTAP report goes to the kernel log and to
 * /sys/kernel/debug/kunit/npu_mmu/results (Documentation/debug-kernel.rst).
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/sizes.h>

#include "npu_mmu.h"

#define RW		(NPU_PT_READ | NPU_PT_WRITE)
/* Not an attribute: expect_walk()'s mark of a leaf larger than 4 KiB. */
#define LEAF		BIT(31)

/* A device VA that starts a fresh level-2 table (512 GiB aligned). */
#define VA0		BIT_ULL(39)
/* Device-physical addresses: 1 GiB aligned, with room below VA0. */
#define PA0		(4ULL << 30)

static int npu_mmu_test_init(struct kunit *test)
{
	struct npu_pt *pt = kunit_kzalloc(test, sizeof(*pt), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pt);
	KUNIT_ASSERT_EQ(test, 0, npu_pt_init(pt));
	test->priv = pt;
	return 0;
}

static void npu_mmu_test_exit(struct kunit *test)
{
	struct npu_pt *pt = test->priv;

	if (!pt)
		return;
	npu_pt_destroy(pt);
	KUNIT_EXPECT_NULL(test, pt->root);
	KUNIT_EXPECT_EQ(test, 0UL, pt->tables);
}

/*
 * Walk @va and check address, attributes (with LEAF for a leaf above
 * 4 KiB) and the bytes left in its leaf.
 */
static void expect_walk(struct kunit *test, u64 va, u64 addr, u32 flags,
			u64 left)
{
	struct npu_pt_walk w = {};

	KUNIT_ASSERT_EQ_MSG(test, 0, npu_pt_walk(test->priv, va, &w),
			    "va %#llx not mapped", va);
	KUNIT_EXPECT_EQ_MSG(test, addr, w.addr, "va %#llx", va);
	KUNIT_EXPECT_EQ_MSG(test, flags,
			    w.attrs | (w.leaf > SZ_4K ? LEAF : 0), "va %#llx", va);
	KUNIT_EXPECT_EQ_MSG(test, left, w.left, "va %#llx", va);
	KUNIT_EXPECT_FALSE_MSG(test, w.mirror, "va %#llx", va);
}

static void expect_unmapped(struct kunit *test, u64 va)
{
	struct npu_pt_walk w = {};

	KUNIT_EXPECT_EQ_MSG(test, -ENOENT, npu_pt_walk(test->priv, va, &w),
			    "va %#llx", va);
}

static void npu_mmu_test_empty(struct kunit *test)
{
	struct npu_pt *pt = test->priv;

	KUNIT_EXPECT_NOT_NULL(test, pt->root);
	KUNIT_EXPECT_EQ(test, 1UL, pt->tables);
	expect_unmapped(test, 0);
	expect_unmapped(test, VA0);
	/* Past the 48-bit VA space: never mapped, no table walked. */
	expect_unmapped(test, 1ULL << 48);
	expect_unmapped(test, U64_MAX);
}

static void npu_mmu_test_map_4k(struct kunit *test)
{
	struct npu_pt *pt = test->priv;
	u64 va = VA0 + SZ_2M + 3 * SZ_4K;

	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0 + 0x5000, SZ_4K, RW,
					    SZ_1G));
	/* root, level 2, level 1 and level 0 tables */
	KUNIT_EXPECT_EQ(test, 4UL, pt->tables);
	expect_walk(test, va, PA0 + 0x5000, RW, SZ_4K);
	expect_walk(test, va + 0x123, PA0 + 0x5123, RW,
		    SZ_4K - 0x123);
	expect_unmapped(test, va - SZ_4K);
	expect_unmapped(test, va + SZ_4K);
}

static void npu_mmu_test_map_2m(struct kunit *test)
{
	struct npu_pt *pt = test->priv;
	u64 va = VA0 + 5 * SZ_2M;

	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0 + SZ_2M, SZ_2M,
					    NPU_PT_READ, SZ_1G));
	/* A level-1 leaf: no level-0 table. */
	KUNIT_EXPECT_EQ(test, 3UL, pt->tables);
	expect_walk(test, va, PA0 + SZ_2M, LEAF |
		    NPU_PT_READ, SZ_2M);
	expect_walk(test, va + SZ_1M + 8, PA0 + SZ_2M + SZ_1M + 8,
		    LEAF | NPU_PT_READ, SZ_1M - 8);
	expect_unmapped(test, va + SZ_2M);
	expect_unmapped(test, va - 1);
}

static void npu_mmu_test_map_1g(struct kunit *test)
{
	struct npu_pt *pt = test->priv;
	u64 va = VA0 + 3ULL * SZ_1G;

	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0, SZ_1G,
					    RW | NPU_PT_SYSTEM, SZ_1G));
	/* A level-2 leaf: root and one level-2 table. */
	KUNIT_EXPECT_EQ(test, 2UL, pt->tables);
	expect_walk(test, va, PA0, LEAF | RW |
		    NPU_PT_SYSTEM, SZ_1G);
	expect_walk(test, va + SZ_1G - SZ_4K, PA0 + SZ_1G - SZ_4K,
		    LEAF | RW | NPU_PT_SYSTEM, SZ_4K);
	expect_unmapped(test, va + SZ_1G);
}

/* The leaf size follows the alignment of both the VA and the address. */
static void npu_mmu_test_leaf_by_alignment(struct kunit *test)
{
	struct npu_pt *pt = test->priv;
	const u32 leaf2m = LEAF | RW;
	const u32 pte4k = RW;
	u64 va, i;

	/* VA 1 GiB aligned, address only 2 MiB aligned: 512 2 MiB leaves. */
	va = VA0;
	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0 + SZ_2M, SZ_1G, RW,
					    SZ_1G));
	KUNIT_EXPECT_EQ(test, 3UL, pt->tables);
	for (i = 0; i < SZ_1G; i += 97 * SZ_2M)
		expect_walk(test, va + i, PA0 + SZ_2M + i, leaf2m, SZ_2M);

	/*
	 * 8 KiB below a 2 MiB boundary, 2 MiB + 16 KiB long: two 4 KiB
	 * pages, one 2 MiB leaf, two 4 KiB pages.
	 */
	va = VA0 + 2ULL * SZ_1G + SZ_2M - 2 * SZ_4K;
	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0 + 2 * SZ_2M - 2 * SZ_4K,
					    SZ_2M + 4 * SZ_4K, RW, SZ_1G));
	expect_walk(test, va, PA0 + 2 * SZ_2M - 2 * SZ_4K, pte4k, SZ_4K);
	expect_walk(test, va + SZ_4K, PA0 + 2 * SZ_2M - SZ_4K, pte4k, SZ_4K);
	expect_walk(test, va + 2 * SZ_4K, PA0 + 2 * SZ_2M, leaf2m, SZ_2M);
	expect_walk(test, va + 2 * SZ_4K + SZ_2M, PA0 + 3 * SZ_2M, pte4k, SZ_4K);
	expect_walk(test, va + 3 * SZ_4K + SZ_2M, PA0 + 3 * SZ_2M + SZ_4K,
		    pte4k, SZ_4K);
	expect_unmapped(test, va + 4 * SZ_4K + SZ_2M);
	/* New level-2 slot: its level-1 table and two level-0 tables. */
	KUNIT_EXPECT_EQ(test, 6UL, pt->tables);

	/* Same VA alignment, address off by 4 KiB: 4 KiB pages only. */
	va = VA0 + 4ULL * SZ_1G;
	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0 + SZ_4K, SZ_2M, RW,
					    SZ_1G));
	expect_walk(test, va, PA0 + SZ_4K, pte4k, SZ_4K);
	expect_walk(test, va + SZ_2M - SZ_4K, PA0 + SZ_2M, pte4k, SZ_4K);
	KUNIT_EXPECT_EQ(test, 8UL, pt->tables);
}

/* @max_leaf caps the leaf size whatever the alignment allows. */
static void npu_mmu_test_max_leaf(struct kunit *test)
{
	struct npu_pt *pt = test->priv;
	u64 va = VA0;

	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0, SZ_1G, RW, SZ_2M));
	expect_walk(test, va, PA0, LEAF | RW, SZ_2M);
	expect_walk(test, va + SZ_1G - 1, PA0 + SZ_1G - 1,
		    LEAF | RW, 1);
	KUNIT_EXPECT_EQ(test, 3UL, pt->tables);

	va = VA0 + SZ_1G;
	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0, 4 * SZ_2M, RW, SZ_4K));
	expect_walk(test, va, PA0, RW, SZ_4K);
	expect_walk(test, va + 3 * SZ_2M + 5 * SZ_4K, PA0 + 3 * SZ_2M + 5 * SZ_4K,
		    RW, SZ_4K);
	/* one more level-1 table and four level-0 tables */
	KUNIT_EXPECT_EQ(test, 8UL, pt->tables);
}

static void npu_mmu_test_unmap(struct kunit *test)
{
	struct npu_pt *pt = test->priv;
	u64 va = VA0;

	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0, SZ_1G, RW, SZ_1G));
	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va + SZ_1G, PA0, SZ_2M, RW, SZ_2M));
	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va + SZ_1G + SZ_2M, PA0,
					    4 * SZ_4K, RW, SZ_4K));
	KUNIT_EXPECT_EQ(test, 4UL, pt->tables);

	/* Unmap clears the leaves but frees no table. */
	npu_pt_unmap(pt, va, SZ_1G);
	expect_unmapped(test, va);
	expect_unmapped(test, va + SZ_1G - SZ_4K);
	expect_walk(test, va + SZ_1G, PA0, LEAF | RW,
		    SZ_2M);

	npu_pt_unmap(pt, va + SZ_1G + SZ_2M + SZ_4K, 2 * SZ_4K);
	expect_walk(test, va + SZ_1G + SZ_2M, PA0, RW, SZ_4K);
	expect_unmapped(test, va + SZ_1G + SZ_2M + SZ_4K);
	expect_unmapped(test, va + SZ_1G + SZ_2M + 2 * SZ_4K);
	expect_walk(test, va + SZ_1G + SZ_2M + 3 * SZ_4K, PA0 + 3 * SZ_4K,
		    RW, SZ_4K);
	KUNIT_EXPECT_EQ(test, 4UL, pt->tables);

	/* Unmapping holes is harmless. */
	npu_pt_unmap(pt, VA0 + 7ULL * SZ_1G, 3ULL * SZ_1G);
	KUNIT_EXPECT_EQ(test, 4UL, pt->tables);
}

static void npu_mmu_test_protect(struct kunit *test)
{
	struct npu_pt *pt = test->priv;
	const u32 leaf = LEAF;
	u64 va = VA0;

	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0, 2 * SZ_2M,
					    RW | NPU_PT_SYSTEM, SZ_2M));
	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va + 2 * SZ_2M, PA0,
					    8 * SZ_4K, RW, SZ_4K));

	/* Protect touches the permission bits only, leaf by leaf. */
	npu_pt_protect(pt, va + SZ_2M, SZ_2M + 2 * SZ_4K, NPU_PT_READ);
	expect_walk(test, va, PA0, leaf | RW | NPU_PT_SYSTEM, SZ_2M);
	expect_walk(test, va + SZ_2M, PA0 + SZ_2M,
		    leaf | NPU_PT_READ | NPU_PT_SYSTEM, SZ_2M);
	expect_walk(test, va + 2 * SZ_2M, PA0, NPU_PT_READ,
		    SZ_4K);
	expect_walk(test, va + 2 * SZ_2M + SZ_4K, PA0 + SZ_4K,
		    NPU_PT_READ, SZ_4K);
	expect_walk(test, va + 2 * SZ_2M + 2 * SZ_4K, PA0 + 2 * SZ_4K,
		    RW, SZ_4K);

	npu_pt_protect(pt, va, 2 * SZ_2M + 8 * SZ_4K, 0);
	expect_walk(test, va, PA0, leaf | NPU_PT_SYSTEM, SZ_2M);
	expect_walk(test, va + 2 * SZ_2M + 7 * SZ_4K, PA0 + 7 * SZ_4K,
		    0, SZ_4K);

	/* Protecting unmapped VA maps nothing. */
	npu_pt_protect(pt, va + 4 * SZ_2M, SZ_2M, RW);
	expect_unmapped(test, va + 4 * SZ_2M);
	KUNIT_EXPECT_EQ(test, 4UL, pt->tables);
}

/* Prune frees exactly the tables that lie wholly inside the range. */
static void npu_mmu_test_prune(struct kunit *test)
{
	struct npu_pt *pt = test->priv;
	u64 va = VA0;

	/* Two level-0 tables under one level-1 table. */
	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0, 2 * SZ_4K, RW, SZ_4K));
	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va + SZ_2M, PA0, SZ_4K, RW, SZ_4K));
	KUNIT_EXPECT_EQ(test, 5UL, pt->tables);

	/* Part of a level-0 table's span: nothing to free. */
	npu_pt_unmap(pt, va, SZ_4K);
	npu_pt_prune(pt, va, SZ_4K);
	KUNIT_EXPECT_EQ(test, 5UL, pt->tables);
	expect_walk(test, va + SZ_4K, PA0 + SZ_4K, RW, SZ_4K);

	/* A level-0 table's whole span: that table goes. */
	npu_pt_unmap(pt, va + SZ_2M, SZ_2M);
	npu_pt_prune(pt, va + SZ_2M, SZ_2M);
	KUNIT_EXPECT_EQ(test, 4UL, pt->tables);
	expect_unmapped(test, va + SZ_2M);
	expect_walk(test, va + SZ_4K, PA0 + SZ_4K, RW, SZ_4K);

	/* A level-2 entry's whole span: the level-1 and level-0 tables. */
	npu_pt_unmap(pt, va, SZ_1G);
	npu_pt_prune(pt, va, SZ_1G);
	KUNIT_EXPECT_EQ(test, 2UL, pt->tables);

	/* Everything: back to the root alone. */
	npu_pt_prune(pt, 0, 1ULL << 48);
	KUNIT_EXPECT_EQ(test, 1UL, pt->tables);
	expect_unmapped(test, va + SZ_4K);

	/* The tables come back when needed. */
	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0, SZ_4K, RW, SZ_4K));
	KUNIT_EXPECT_EQ(test, 4UL, pt->tables);
	expect_walk(test, va, PA0, RW, SZ_4K);
}

/* Prune of a range sharing tables with live mappings keeps them. */
static void npu_mmu_test_prune_keeps_live(struct kunit *test)
{
	struct npu_pt *pt = test->priv;
	u64 va = VA0;

	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0, SZ_2M, RW, SZ_4K));
	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va + SZ_2M, PA0, SZ_2M, RW, SZ_2M));
	KUNIT_EXPECT_EQ(test, 4UL, pt->tables);
	npu_pt_unmap(pt, va, SZ_2M);
	/* The level-1 table also holds the live 2 MiB leaf. */
	npu_pt_prune(pt, va, SZ_2M);
	KUNIT_EXPECT_EQ(test, 3UL, pt->tables);
	expect_walk(test, va + SZ_2M, PA0, LEAF | RW,
		    SZ_2M);
	expect_unmapped(test, va);
}

/* A larger leaf over tables emptied by unmap frees those tables. */
static void npu_mmu_test_map_over_empty_tables(struct kunit *test)
{
	struct npu_pt *pt = test->priv;
	u64 va = VA0;

	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0, 3 * SZ_2M, RW, SZ_4K));
	/* root, level 2, level 1, three level 0 */
	KUNIT_EXPECT_EQ(test, 6UL, pt->tables);
	npu_pt_unmap(pt, va, 3 * SZ_2M);
	KUNIT_EXPECT_EQ(test, 6UL, pt->tables);

	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0, 3 * SZ_2M, RW, SZ_2M));
	KUNIT_EXPECT_EQ(test, 3UL, pt->tables);
	expect_walk(test, va + SZ_2M, PA0 + SZ_2M,
		    LEAF | RW, SZ_2M);

	npu_pt_unmap(pt, va, 3 * SZ_2M);
	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va, PA0, SZ_1G, RW, SZ_1G));
	/* The level-1 table went too. */
	KUNIT_EXPECT_EQ(test, 2UL, pt->tables);
	expect_walk(test, va + SZ_2M, PA0 + SZ_2M,
		    LEAF | RW, SZ_1G - SZ_2M);
}

/*
 * An entry holds address bits 51..12: an address beyond them (or not
 * 4 KiB aligned) is refused, never truncated into someone else's page.
 */
static void npu_mmu_test_addr_beyond_52_bits(struct kunit *test)
{
	struct npu_pt *pt = test->priv;

	KUNIT_EXPECT_EQ(test, -ERANGE, npu_pt_map(pt, VA0, BIT_ULL(52), SZ_4K,
						  RW | NPU_PT_SYSTEM, SZ_1G));
	KUNIT_EXPECT_EQ(test, -ERANGE, npu_pt_map(pt, VA0, BIT_ULL(52) - SZ_4K,
						  2 * SZ_4K, RW, SZ_1G));
	KUNIT_EXPECT_EQ(test, -ERANGE, npu_pt_map(pt, VA0, U64_MAX & ~0xfffULL,
						  SZ_4K, RW, SZ_1G));
	KUNIT_EXPECT_EQ(test, -EINVAL, npu_pt_map(pt, VA0, PA0 + 8, SZ_4K,
						  RW, SZ_1G));
	expect_unmapped(test, VA0);
	KUNIT_EXPECT_EQ(test, 1UL, pt->tables);
	/* The highest page that fits is mapped as it is. */
	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, VA0, BIT_ULL(52) - SZ_4K,
					    SZ_4K, RW, SZ_1G));
	expect_walk(test, VA0, BIT_ULL(52) - SZ_4K, RW, SZ_4K);
}

/* Destroy frees every table, whatever is still mapped (checked in exit). */
static void npu_mmu_test_destroy_mapped(struct kunit *test)
{
	struct npu_pt *pt = test->priv;
	u64 i;

	for (i = 0; i < 8; i++)
		KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, VA0 + i * SZ_1G + i * SZ_4K,
						    PA0, 3 * SZ_4K, RW, SZ_1G));
	/* 8 level-1 tables, 8 level-0 tables below them */
	KUNIT_EXPECT_EQ(test, 18UL, pt->tables);
}

/* What npu_pt_clear_runs() handed back, run by run. */
struct cleared_runs {
	int n;
	u64 dma[4];
	unsigned long npages[4];
	bool write[4];
};

static void record_run(void *arg, u64 dma, unsigned long npages, bool write)
{
	struct cleared_runs *c = arg;

	if (c->n < 4) {
		c->dma[c->n] = dma;
		c->npages[c->n] = npages;
		c->write[c->n] = write;
	}
	c->n++;
}

static void expect_mirror(struct kunit *test, u64 va, u64 addr, u32 attrs,
			  u64 left)
{
	struct npu_pt_walk w = {};

	KUNIT_ASSERT_EQ_MSG(test, 0, npu_pt_walk(test->priv, va, &w),
			    "va %#llx not mapped", va);
	KUNIT_EXPECT_TRUE_MSG(test, w.mirror, "va %#llx", va);
	KUNIT_EXPECT_EQ_MSG(test, addr, w.addr, "va %#llx", va);
	KUNIT_EXPECT_EQ_MSG(test, attrs, w.attrs, "va %#llx", va);
	KUNIT_EXPECT_EQ_MSG(test, left, w.left, "va %#llx", va);
}

/*
 * A mirror's run is one DMA mapping of physically contiguous pages: a
 * walk covers the rest of it, clearing any page of it clears it whole and
 * hands its DMA mapping back once, and nothing else is touched.
 */
static void npu_mmu_test_mirror_runs(struct kunit *test)
{
	struct npu_pt *pt = test->priv;
	struct cleared_runs c = {};
	u64 va = VA0 + SZ_2M;

	/* Runs go only where npu_pt_prepare() made the table. */
	KUNIT_EXPECT_FALSE(test, npu_pt_present(pt, va));
	KUNIT_EXPECT_EQ(test, -ENOENT, npu_pt_set_run(pt, va, PA0, 4, true));
	KUNIT_ASSERT_EQ(test, 0, npu_pt_prepare(pt, va, SZ_2M));
	KUNIT_EXPECT_EQ(test, 4UL, pt->tables);
	KUNIT_EXPECT_FALSE(test, npu_pt_present(pt, va));

	KUNIT_ASSERT_EQ(test, 0, npu_pt_set_run(pt, va, PA0, 4, true));
	KUNIT_ASSERT_EQ(test, 0, npu_pt_set_run(pt, va + 4 * SZ_4K, PA0 + SZ_1G,
						1, false));
	expect_mirror(test, va, PA0, RW | NPU_PT_SYSTEM, 4 * SZ_4K);
	expect_mirror(test, va + SZ_4K + 8, PA0 + SZ_4K + 8,
		      RW | NPU_PT_SYSTEM, 3 * SZ_4K - 8);
	expect_mirror(test, va + 3 * SZ_4K, PA0 + 3 * SZ_4K,
		      RW | NPU_PT_SYSTEM, SZ_4K);
	expect_mirror(test, va + 4 * SZ_4K, PA0 + SZ_1G,
		      NPU_PT_READ | NPU_PT_SYSTEM, SZ_4K);
	KUNIT_EXPECT_TRUE(test, npu_pt_present(pt, va + 3 * SZ_4K));
	KUNIT_EXPECT_FALSE(test, npu_pt_present(pt, va + 5 * SZ_4K));

	/* One page of a run: the whole run goes, handed back once. */
	KUNIT_EXPECT_EQ(test, 4UL, npu_pt_clear_runs(pt, va + 2 * SZ_4K,
						     va + 3 * SZ_4K,
						     record_run, &c));
	KUNIT_EXPECT_EQ(test, 1, c.n);
	KUNIT_EXPECT_EQ(test, PA0, c.dma[0]);
	KUNIT_EXPECT_EQ(test, 4UL, c.npages[0]);
	KUNIT_EXPECT_TRUE(test, c.write[0]);
	expect_unmapped(test, va);
	expect_unmapped(test, va + 3 * SZ_4K);
	expect_mirror(test, va + 4 * SZ_4K, PA0 + SZ_1G,
		      NPU_PT_READ | NPU_PT_SYSTEM, SZ_4K);

	/* Entries that are no mirror's stay. */
	KUNIT_ASSERT_EQ(test, 0, npu_pt_map(pt, va + 8 * SZ_4K, PA0, SZ_4K, RW,
					    SZ_4K));
	c.n = 0;
	KUNIT_EXPECT_EQ(test, 1UL, npu_pt_clear_runs(pt, va, va + SZ_2M,
						     record_run, &c));
	KUNIT_EXPECT_EQ(test, 1, c.n);
	KUNIT_EXPECT_EQ(test, PA0 + SZ_1G, c.dma[0]);
	KUNIT_EXPECT_EQ(test, 1UL, c.npages[0]);
	KUNIT_EXPECT_FALSE(test, c.write[0]);
	expect_walk(test, va + 8 * SZ_4K, PA0, RW, SZ_4K);

	/* The longest run, and one that ends its table. */
	KUNIT_ASSERT_EQ(test, 0, npu_pt_set_run(pt, va + 64 * SZ_4K, PA0,
						NPU_PT_RUN_MAX, true));
	expect_mirror(test, va + 64 * SZ_4K, PA0, RW | NPU_PT_SYSTEM,
		      NPU_PT_RUN_MAX * SZ_4K);
	KUNIT_ASSERT_EQ(test, 0, npu_pt_set_run(pt, va + SZ_2M - 2 * SZ_4K,
						PA0 + SZ_2M, 2, false));
	expect_mirror(test, va + SZ_2M - 2 * SZ_4K, PA0 + SZ_2M,
		      NPU_PT_READ | NPU_PT_SYSTEM, 2 * SZ_4K);
	c.n = 0;
	KUNIT_EXPECT_EQ(test, (unsigned long)NPU_PT_RUN_MAX + 2,
			npu_pt_clear_runs(pt, va + (64 + NPU_PT_RUN_MAX - 1) * SZ_4K,
					  va + SZ_2M, record_run, &c));
	KUNIT_EXPECT_EQ(test, 2, c.n);
	expect_unmapped(test, va + 64 * SZ_4K);
	expect_unmapped(test, va + SZ_2M - SZ_4K);
	/* Clearing cleared entries finds nothing; the tables stay. */
	KUNIT_EXPECT_EQ(test, 0UL, npu_pt_clear_runs(pt, va, va + SZ_2M,
						     record_run, &c));
	KUNIT_EXPECT_EQ(test, 4UL, pt->tables);
}

static struct kunit_case npu_mmu_test_cases[] = {
	KUNIT_CASE(npu_mmu_test_empty),
	KUNIT_CASE(npu_mmu_test_map_4k),
	KUNIT_CASE(npu_mmu_test_map_2m),
	KUNIT_CASE(npu_mmu_test_map_1g),
	KUNIT_CASE(npu_mmu_test_leaf_by_alignment),
	KUNIT_CASE(npu_mmu_test_max_leaf),
	KUNIT_CASE(npu_mmu_test_unmap),
	KUNIT_CASE(npu_mmu_test_protect),
	KUNIT_CASE(npu_mmu_test_prune),
	KUNIT_CASE(npu_mmu_test_prune_keeps_live),
	KUNIT_CASE(npu_mmu_test_map_over_empty_tables),
	KUNIT_CASE(npu_mmu_test_destroy_mapped),
	KUNIT_CASE(npu_mmu_test_addr_beyond_52_bits),
	KUNIT_CASE(npu_mmu_test_mirror_runs),
	{}
};

static struct kunit_suite npu_mmu_test_suite = {
	.name = "npu_mmu",
	.init = npu_mmu_test_init,
	.exit = npu_mmu_test_exit,
	.test_cases = npu_mmu_test_cases,
};

kunit_test_suite(npu_mmu_test_suite);

MODULE_DESCRIPTION("KUnit tests of the npu device page tables");
MODULE_LICENSE("GPL");
