// SPDX-License-Identifier: GPL-2.0
/*
 * npu: mirrors - device page faults on the process's own memory.
 *
 * A mirror (MIRROR_MAP) books device VA == user address for a range of
 * the context's mm, watched by an mmu_interval_notifier; its device
 * page-table entries start non-present. When the DMA engine reaches one
 * that is not there (or read-only for a write), it drops the VA space,
 * faults the pages in with hmm_range_fault() as the process would, maps
 * them for the DMA device (its IOMMU) and installs 4 KiB entries under
 * the notifier's sequence, then goes on. An invalidation clears the
 * entries and DMA-unmaps their pages before the core mm goes on, and
 * waits for every access the engine is making through them (the engine
 * holds the VA space's mirror_lock shared around each one and checks
 * that no invalidation came between its translation and the access).
 *
 * Locks: the VA space's lock (rwsem) orders before its mirror_lock
 * (rwsem). The invalidation takes only mirror_lock; it runs inside memory
 * reclaim, so nothing allocates under mirror_lock, and nothing that holds
 * it takes the VA space's lock. Page tables for an entry are allocated
 * beforehand under the VA space's lock (npu_pt_prepare()). The fault
 * itself (hmm_range_fault) runs with neither held.
 *
 * Nothing is pinned, so nothing is charged to RLIMIT_MEMLOCK; the number
 * of entries a context may hold is max_mirror_pages.
 */
#include <linux/bitfield.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/hmm.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/swiotlb.h>

#include <uapi/npu.h>

#include "npu_drv.h"
#include "npu_mirror.h"
#include "npu_mmu.h"
#include "npu_vm.h"

static unsigned long max_mirror_pages = 1UL << 20;
module_param(max_mirror_pages, ulong, 0644);
MODULE_PARM_DESC(max_mirror_pages,
		 "Faulted-in 4 KiB mirror pages a context may hold; a fault past it is a DMA fault (default 1048576: 4 GiB)");

static unsigned int max_mirrors = 1024;
module_param(max_mirrors, uint, 0644);
MODULE_PARM_DESC(max_mirrors, "Mirrors (MIRROR_MAP) per context (default 1024)");

/* Pages one fault brings in at most: the rest of the access, up to this. */
#define NPU_MIRROR_FAULT_PAGES	32

/* Coherent, never bounced (MIRROR_MAP refuses the others): nothing to sync. */
#define NPU_MIRROR_DMA_ATTRS	DMA_ATTR_SKIP_CPU_SYNC

static void npu_mirror_free(struct kref *ref)
{
	kfree(container_of(ref, struct npu_mirror, ref));
}

void npu_mirror_get(struct npu_mirror *mirror)
{
	kref_get(&mirror->ref);
}

void npu_mirror_put(struct npu_mirror *mirror)
{
	kref_put(&mirror->ref, npu_mirror_free);
}

static enum dma_data_direction npu_mirror_dir(bool write)
{
	return write ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE;
}

/*
 * Clear the whole run the entry @pte (of VA @va) belongs to and DMA-unmap
 * it; returns its pages. A run lies inside one last-level table.
 */
static unsigned long npu_mirror_clear_run(struct device *dev, u64 *pte, u64 va)
{
	unsigned int idx = (va >> PAGE_SHIFT) & (NPU_PT_ENTRIES - 1);
	unsigned long i, n;
	u64 *head = pte;

	while ((*head & NPU_PTE_MIRROR_TAIL) && idx--)
		head--;
	n = FIELD_GET(NPU_PTE_MIRROR_RUN, *head) + 1;
	dma_unmap_page_attrs(dev, *head & NPU_PTE_ADDR, n << PAGE_SHIFT,
			     npu_mirror_dir(*head & NPU_PTE_WRITE),
			     NPU_MIRROR_DMA_ATTRS);
	for (i = 0; i < n; i++)
		WRITE_ONCE(head[i], 0);
	return n;
}

/*
 * Clear the entries of [@start, @end) - whole runs, so maybe a few pages
 * on either side too - and DMA-unmap their pages. Neither allocates nor
 * sleeps (some invalidations may not block). Any translation the engine
 * made before is stale from here on: @mirror_seq moves (release, after
 * the entries are gone).
 */
static void npu_mirror_clear_locked(struct npu_context *ctx, u64 start,
				    u64 end)
{
	struct npu_vm *vm = &ctx->vm;
	unsigned long n = 0;
	u64 va = start, *pte;

	lockdep_assert_held_write(&vm->mirror_lock);
	while ((pte = npu_pt_next_leaf(&vm->pt, &va, end))) {
		if (*pte & NPU_PTE_MIRROR)
			n += npu_mirror_clear_run(ctx->npu->dma_dev, pte, va);
		va = ALIGN_DOWN(va, PAGE_SIZE) + PAGE_SIZE;
	}
	if (n) {
		vm->mirror_pages -= n;
		/*
		 * After the cleared entries: pairs with the acquire in
		 * npu_dma_translate() before its walk.
		 */
		smp_store_release(&vm->mirror_seq, vm->mirror_seq + 1);
	}
}

#ifdef NPU_HAVE_HMM
static bool npu_mirror_invalidate(struct mmu_interval_notifier *mni,
				  const struct mmu_notifier_range *range,
				  unsigned long cur_seq)
{
	struct npu_mirror *mirror = container_of(mni, struct npu_mirror,
						 notifier);
	struct npu_vm *vm = &mirror->ctx->vm;
	u64 start = max_t(u64, range->start, mirror->start);
	u64 end = min_t(u64, range->end, mirror->start + mirror->size);

	if (mmu_notifier_range_blockable(range))
		down_write(&vm->mirror_lock);
	else if (!down_write_trylock(&vm->mirror_lock))
		return false;
	mmu_interval_set_seq(mni, cur_seq);
	if (mirror->live && start < end)
		npu_mirror_clear_locked(mirror->ctx, start, end);
	up_write(&vm->mirror_lock);
	return true;
}

static const struct mmu_interval_notifier_ops npu_mirror_ops = {
	.invalidate = npu_mirror_invalidate,
};

static const char *npu_mirror_why(int err)
{
	switch (err) {
	case -EFAULT:
		return "not mapped in the process";
	case -EPERM:
		return "no write access in the process";
	case -ENOSPC:
		return "mirror page limit";
	case -ENOMEM:
		return "out of memory";
	case -ESRCH:
		return "process exited";
	case -ENOENT:
		return "not mapped";
	case -EBUSY:
		return "mirror fault timed out";
	default:
		return "mirror fault failed";
	}
}

/*
 * The pages of a fault, grouped into runs of physically contiguous pages
 * (a huge page's): one DMA mapping and one unmap per run.
 */
struct npu_mirror_runs {
	unsigned int nr;
	u8 first[NPU_MIRROR_FAULT_PAGES];
	u8 pages[NPU_MIRROR_FAULT_PAGES];
	dma_addr_t dma[NPU_MIRROR_FAULT_PAGES];
};

static void npu_mirror_unmap_runs(struct device *dev, bool write,
				  const struct npu_mirror_runs *runs,
				  unsigned int from)
{
	unsigned int j;

	for (j = from; j < runs->nr; j++)
		dma_unmap_page_attrs(dev, runs->dma[j],
				     (size_t)runs->pages[j] << PAGE_SHIFT,
				     npu_mirror_dir(write), NPU_MIRROR_DMA_ATTRS);
}

static int npu_mirror_map_runs(struct device *dev, bool write,
			       const unsigned long *pfns, unsigned long n,
			       struct npu_mirror_runs *runs)
{
	unsigned long i, k;

	runs->nr = 0;
	for (i = 0; i < n; i += k) {
		struct page *page = hmm_pfn_to_page(pfns[i]);
		unsigned int j = runs->nr;

		for (k = 1; i + k < n; k++)
			if (page_to_pfn(hmm_pfn_to_page(pfns[i + k])) !=
			    page_to_pfn(page) + k)
				break;
		runs->dma[j] = dma_map_page_attrs(dev, page, 0, k << PAGE_SHIFT,
						  npu_mirror_dir(write),
						  NPU_MIRROR_DMA_ATTRS);
		if (dma_mapping_error(dev, runs->dma[j])) {
			npu_mirror_unmap_runs(dev, write, runs, 0);
			return -ENOMEM;
		}
		runs->first[j] = i;
		runs->pages[j] = k;
		runs->nr++;
	}
	return 0;
}

/*
 * Install the runs at @va (both locks held) with the access of the fault
 * (@write), replacing what is there; unmap the runs not installed. A run
 * goes in whole or not at all (max_mirror_pages). *@end gets the end of
 * the last run installed.
 */
static int npu_mirror_install_locked(struct npu_context *ctx, u64 va,
				     bool write, struct npu_mirror_runs *runs,
				     u64 *end)
{
	struct npu_vm *vm = &ctx->vm;
	unsigned long limit = READ_ONCE(max_mirror_pages);
	u64 flags = NPU_PTE_READ | NPU_PTE_SYSTEM | NPU_PTE_MIRROR |
		    (write ? NPU_PTE_WRITE : 0);
	unsigned int j, k;

	lockdep_assert_held_write(&vm->lock);
	lockdep_assert_held_write(&vm->mirror_lock);
	for (j = 0; j < runs->nr; j++) {
		u64 addr = va + ((u64)runs->first[j] << PAGE_SHIFT);
		u64 size = (u64)runs->pages[j] << PAGE_SHIFT;
		u64 *pte = npu_pt_lookup(&vm->pt, addr);

		/* npu_pt_prepare() made the table; a run is inside it */
		if (!pte)
			break;
		npu_mirror_clear_locked(ctx, addr, addr + size);
		if (vm->mirror_pages + runs->pages[j] > limit)
			break;
		for (k = 0; k < runs->pages[j]; k++)
			WRITE_ONCE(pte[k], (runs->dma[j] + ((u64)k << PAGE_SHIFT)) |
				   flags | NPU_PTE_VALID |
				   (k ? NPU_PTE_MIRROR_TAIL :
				    FIELD_PREP(NPU_PTE_MIRROR_RUN, runs->pages[j] - 1)));
		vm->mirror_pages += runs->pages[j];
		*end = addr + size;
	}
	npu_mirror_unmap_runs(ctx->npu->dma_dev, write, runs, j);
	/* the first page is the one the access needs */
	return j ? 0 : -ENOSPC;
}

/**
 * npu_mirror_fault() - fault the page at @va of @mirror in for the device
 * @mirror: the mirror (the caller holds a reference)
 * @va: device VA == user address of the byte accessed
 * @len: bytes the access goes on for from @va: up to
 *	NPU_MIRROR_FAULT_PAGES pages of them (inside one 2 MiB table and the
 *	mirror) come in at once
 * @write: fault for writing (breaks COW, needs a writable mapping)
 * @done: out, on success, the end of the range faulted in (past @va)
 * @why: out, on failure, why, for the DMA fault report
 *
 * Called with no lock held: hmm_range_fault() may invalidate this very
 * range (COW), whose callback takes the VA space's mirror_lock. The
 * entries get the access of the fault: a read fault installs read-only
 * entries (mapped DMA_TO_DEVICE), a write fault writable ones.
 *
 * Return: 0 once the entry for @va is installed (it may be invalidated
 * again before the engine uses it: the engine then faults again); -EFAULT
 * not mapped, -EPERM written but not writable, -ENOSPC max_mirror_pages,
 * -ENOMEM, -ESRCH the process is gone, -ENOENT the mirror was unmapped,
 * -EBUSY invalidations kept racing for HMM_RANGE_DEFAULT_TIMEOUT.
 */
int npu_mirror_fault(struct npu_mirror *mirror, u64 va, u64 len, bool write,
		     u64 *done, const char **why)
{
	struct npu_context *ctx = mirror->ctx;
	struct npu_vm *vm = &ctx->vm;
	struct device *dev = ctx->npu->dma_dev;
	struct mm_struct *mm = ctx->mm;
	unsigned long pfns[NPU_MIRROR_FAULT_PAGES];
	struct npu_mirror_runs runs;
	struct hmm_range range = {
		.notifier = &mirror->notifier,
		.hmm_pfns = pfns,
		.default_flags = HMM_PFN_REQ_FAULT |
				 (write ? HMM_PFN_REQ_WRITE : 0),
	};
	unsigned long timeout, room;
	u64 start = ALIGN_DOWN(va, PAGE_SIZE), end, p;
	int ret;

	/* Up to the end of the access, of the mirror and of the table. */
	end = min3(start + (u64)NPU_MIRROR_FAULT_PAGES * PAGE_SIZE,
		   mirror->start + mirror->size,
		   ALIGN_DOWN(start, SZ_2M) + SZ_2M);
	if (len < end - va)
		end = ALIGN(va + len, PAGE_SIZE);
	/* Not into entries that are there, nor past max_mirror_pages. */
	room = READ_ONCE(max_mirror_pages) - min(READ_ONCE(vm->mirror_pages),
						 READ_ONCE(max_mirror_pages));
	end = min(end, start + max(room, 1UL) * PAGE_SIZE);
	down_read(&vm->lock);
	for (p = start + PAGE_SIZE; p < end; p += PAGE_SIZE) {
		u64 *pte = npu_pt_lookup(&vm->pt, p);

		if (pte && (READ_ONCE(*pte) & NPU_PTE_VALID)) {
			end = p;
			break;
		}
	}
	up_read(&vm->lock);

	if (READ_ONCE(mirror->dead)) {
		ret = -ENOENT;
		goto out_why;
	}
	if (!mmget_not_zero(mm)) {
		ret = -ESRCH;
		goto out_why;
	}
	timeout = jiffies + msecs_to_jiffies(HMM_RANGE_DEFAULT_TIMEOUT);
again:
	range.start = start;
	range.end = end;
	range.notifier_seq = mmu_interval_read_begin(&mirror->notifier);
	mmap_read_lock(mm);
	ret = hmm_range_fault(&range);
	mmap_read_unlock(mm);
	if (ret == -EBUSY && time_before(jiffies, timeout)) {
		cond_resched();
		goto again;
	}
	/* A hole or a read-only page further on: fault only the one needed. */
	if ((ret == -EFAULT || ret == -EPERM) && end - start > PAGE_SIZE) {
		end = start + PAGE_SIZE;
		goto again;
	}
	if (ret)
		goto out;

	ret = npu_mirror_map_runs(dev, write, pfns, (end - start) >> PAGE_SHIFT,
				  &runs);
	if (ret)
		goto out;

	down_write(&vm->lock);
	ret = mirror->dead ? -ENOENT : npu_pt_prepare(&vm->pt, start, end - start);
	if (ret) {
		up_write(&vm->lock);
		npu_mirror_unmap_runs(dev, write, &runs, 0);
		goto out;
	}
	down_write(&vm->mirror_lock);
	if (mmu_interval_read_retry(&mirror->notifier, range.notifier_seq)) {
		up_write(&vm->mirror_lock);
		up_write(&vm->lock);
		npu_mirror_unmap_runs(dev, write, &runs, 0);
		if (time_after(jiffies, timeout)) {
			ret = -EBUSY;
			goto out;
		}
		goto again;
	}
	ret = npu_mirror_install_locked(ctx, start, write, &runs, done);
	up_write(&vm->mirror_lock);
	up_write(&vm->lock);
out:
	/* Never the last put here: the engine's worker must not tear the mm down. */
	mmput_async(mm);
out_why:
	if (ret)
		*why = npu_mirror_why(ret);
	return ret;
}
#else
int npu_mirror_fault(struct npu_mirror *mirror, u64 va, u64 len, bool write,
		     u64 *done, const char **why)
{
	*why = "no HMM mirror in this kernel";
	return -EOPNOTSUPP;
}
#endif

/* Drop a mirror's device entries for good; vm->lock held for writing. */
static void npu_mirror_zap_locked(struct npu_context *ctx,
				  struct npu_mirror *mirror)
{
	struct npu_vm *vm = &ctx->vm;

	lockdep_assert_held_write(&vm->lock);
	/* One that never got into the VA space has no entries to clear. */
	if (!mirror->live)
		return;
	down_write(&vm->mirror_lock);
	npu_mirror_clear_locked(ctx, mirror->start,
				mirror->start + mirror->size);
	mirror->live = false;
	up_write(&vm->mirror_lock);
	npu_pt_prune(&vm->pt, mirror->start, mirror->size);
}

/*
 * The end of a mirror taken out of the VA space: its entries are gone
 * already (npu_mirror_detach()), so no access can reach the pages once
 * the notifier that kept them current is removed.
 */
static void npu_mirror_destroy(struct npu_mirror *mirror)
{
#ifdef NPU_HAVE_HMM
	mmu_interval_notifier_remove(&mirror->notifier);
#endif
	npu_mirror_put(mirror);
}

/*
 * Take the mirror at @addr out of the VA space - only @expect, if not
 * NULL - and clear its entries in the same step, while its notifier still
 * keeps them current: the engine reaches the pages only through them, and
 * a fault checks @dead under the same lock. NULL if there is none.
 */
static struct npu_mirror *npu_mirror_detach(struct npu_context *ctx, u64 addr,
					    const struct npu_mirror *expect)
{
	struct npu_mirror *mirror;
	struct npu_mapping *map;

	down_write(&ctx->vm.lock);
	map = mtree_load(&ctx->vm.mappings, addr);
	if (expect && (!map || map->mirror != expect))
		mirror = NULL;
	else
		mirror = npu_vm_unmap_mirror_locked(&ctx->vm, addr);
	if (mirror) {
		mirror->dead = true;
		ctx->vm.nr_mirrors--;
		npu_mirror_zap_locked(ctx, mirror);
	}
	up_write(&ctx->vm.lock);
	return mirror;
}

int npu_mirror_map_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_mirror_map *args = arg;
	struct npu_mirror *mirror;
	const char *why;
	u64 end, va;
	int ret;

	if (args->flags & ~NPU_MIRROR_FLAGS_MASK)
		return -EINVAL;
	if (!args->length || !IS_ALIGNED(args->addr | args->length, SZ_4K) ||
	    check_add_overflow(args->addr, args->length, &end) ||
	    end > TASK_SIZE || args->addr < NPU_VA_START || end > NPU_VA_END)
		return -EINVAL;
#ifndef NPU_HAVE_HMM
	return -EOPNOTSUPP;
#endif
	/* The device reaches the pages themselves, as for HOST_REGISTER. */
	if (!dev_is_dma_coherent(ctx->npu->dma_dev) ||
	    (!ctx->npu->domain && is_swiotlb_force_bounce(ctx->npu->dma_dev)))
		return -EOPNOTSUPP;

	mirror = kzalloc(sizeof(*mirror), GFP_KERNEL_ACCOUNT);
	if (!mirror)
		return -ENOMEM;
	kref_init(&mirror->ref);
	mirror->ctx = ctx;
	mirror->start = args->addr;
	mirror->size = args->length;
#ifdef NPU_HAVE_HMM
	/* Watching before any fault can use it; until then it clears nothing. */
	ret = mmu_interval_notifier_insert(&mirror->notifier, ctx->mm,
					   mirror->start, mirror->size,
					   &npu_mirror_ops);
	if (ret) {
		kfree(mirror);
		return ret;
	}
#endif
	down_write(&ctx->vm.lock);
	if (ctx->vm.nr_mirrors >= READ_ONCE(max_mirrors))
		ret = -ENOSPC;
	else
		ret = npu_vm_map_mirror_locked(&ctx->vm, mirror, mirror->start,
					       mirror->size);
	if (!ret) {
		ctx->vm.nr_mirrors++;
		down_write(&ctx->vm.mirror_lock);
		mirror->live = true;
		up_write(&ctx->vm.mirror_lock);
	}
	up_write(&ctx->vm.lock);
	if (ret) {
		mirror->dead = true;
		npu_mirror_destroy(mirror);
		return ret;
	}
	if (!(args->flags & NPU_MIRROR_POPULATE))
		return 0;

	/* An unmap from another thread may end it meanwhile. */
	npu_mirror_get(mirror);
	for (va = mirror->start; va < end; ) {
		ret = npu_mirror_fault(mirror, va, end - va, false, &va, &why);
		if (ret)
			break;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	/*
	 * Unless an unmap in between took it out already (the reference
	 * keeps @mirror from being another mirror at the same address).
	 */
	if (ret && npu_mirror_detach(ctx, args->addr, mirror))
		npu_mirror_destroy(mirror);
	npu_mirror_put(mirror);
	return ret;
}

int npu_mirror_unmap_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_mirror_unmap *args = arg;
	struct npu_mirror *mirror;

	if (args->flags)
		return -EINVAL;
	mirror = npu_mirror_detach(ctx, args->addr, NULL);
	if (!mirror)
		return -ENOENT;
	npu_mirror_destroy(mirror);
	return 0;
}

/* At shutdown, after every stream has stopped. */
void npu_mirror_release(struct npu_context *ctx)
{
	struct npu_mapping *map;
	struct npu_mirror *mirror;
	unsigned long index;

	for (;;) {
		mirror = NULL;
		index = 0;
		down_read(&ctx->vm.lock);
		mt_for_each(&ctx->vm.mappings, map, index, ULONG_MAX) {
			if (map->mirror) {
				index = map->start;
				mirror = map->mirror;
				break;
			}
		}
		up_read(&ctx->vm.lock);
		if (!mirror)
			return;
		mirror = npu_mirror_detach(ctx, index, mirror);
		if (mirror)
			npu_mirror_destroy(mirror);
	}
}
