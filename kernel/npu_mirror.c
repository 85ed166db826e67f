// SPDX-License-Identifier: GPL-2.0
/*
 * npu: mirrors - device page faults on the process's own memory.
 *
 * A mirror (MIRROR_MAP) books device VA == user address for a range of
 * the context's mm, watched by an mmu_interval_notifier; its device
 * entries start non-present. When the DMA engine reaches one that is not
 * there (or read-only for a write), the stream's fault runs off the
 * engine's channels (npu_stream.c): npu_mirror_fault() looks the pages up
 * with hmm_range_fault() as the process's own access would, maps them for
 * the DMA device (its IOMMU), and has the VA space install them under the
 * notifier's sequence (npu_vm_mirror_install()); the loop is test_hmm's
 * dmirror_range_fault(). An invalidation has the VA space clear the
 * entries and DMA-unmap their pages (npu_mirror_unmap_run()) before the
 * core mm goes on.
 *
 * This file keeps what every HMM user keeps: the notifier, the fault loop
 * and the DMA mappings of the pages. The entries, their lock and sequence
 * are the VA space's (npu_vm.c). Nothing is pinned, so nothing is charged
 * to RLIMIT_MEMLOCK; the number of entries a context may hold is
 * max_mirror_pages.
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
/* A run of them is one entry run of the page tables. */
static_assert(NPU_MIRROR_FAULT_PAGES <= NPU_PT_RUN_MAX);

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

/**
 * npu_mirror_unmap_run() - a run of the mirror's entries is gone
 * @mirror: the mirror
 * @dma: the run's DMA address
 * @npages: its pages
 * @write: it was mapped for writing (a write fault's), else for reading
 *
 * The VA space calls it as it clears the entries (npu_vm.c).
 */
void npu_mirror_unmap_run(struct npu_mirror *mirror, u64 dma,
			  unsigned long npages, bool write)
{
	dma_unmap_page_attrs(mirror->ctx->npu->dma_dev, dma, npages << PAGE_SHIFT,
			     npu_mirror_dir(write), NPU_MIRROR_DMA_ATTRS);
}

#ifdef NPU_HAVE_HMM
static bool npu_mirror_invalidate(struct mmu_interval_notifier *mni,
				  const struct mmu_notifier_range *range,
				  unsigned long cur_seq)
{
	struct npu_mirror *mirror = container_of(mni, struct npu_mirror,
						 notifier);
	u64 start = max_t(u64, range->start, mirror->start);
	u64 end = min_t(u64, range->end, mirror->start + mirror->size);

	return npu_vm_mirror_invalidate(&mirror->ctx->vm, mirror, start, end,
					mmu_notifier_range_blockable(range),
					cur_seq);
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
	struct npu_mirror_run run[NPU_MIRROR_FAULT_PAGES];
};

static void npu_mirror_unmap_runs(struct npu_mirror *mirror, bool write,
				  const struct npu_mirror_runs *runs,
				  unsigned int from)
{
	unsigned int j;

	for (j = from; j < runs->nr; j++)
		npu_mirror_unmap_run(mirror, runs->run[j].dma,
				     runs->run[j].pages, write);
}

static int npu_mirror_map_runs(struct npu_mirror *mirror, bool write,
			       const unsigned long *pfns, unsigned long n,
			       struct npu_mirror_runs *runs)
{
	struct device *dev = mirror->ctx->npu->dma_dev;
	unsigned long i, k;

	runs->nr = 0;
	for (i = 0; i < n; i += k) {
		struct page *page = hmm_pfn_to_page(pfns[i]);
		struct npu_mirror_run *run = &runs->run[runs->nr];

		for (k = 1; i + k < n; k++)
			if (page_to_pfn(hmm_pfn_to_page(pfns[i + k])) !=
			    page_to_pfn(page) + k)
				break;
		run->dma = dma_map_page_attrs(dev, page, 0, k << PAGE_SHIFT,
					      npu_mirror_dir(write),
					      NPU_MIRROR_DMA_ATTRS);
		if (dma_mapping_error(dev, run->dma)) {
			npu_mirror_unmap_runs(mirror, write, runs, 0);
			return -ENOMEM;
		}
		run->first = i;
		run->pages = k;
		runs->nr++;
	}
	return 0;
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
 * range (COW), whose callback takes the VA space's mirror lock. The
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
	struct mm_struct *mm = ctx->mm;
	unsigned long pfns[NPU_MIRROR_FAULT_PAGES];
	unsigned long limit = READ_ONCE(max_mirror_pages), timeout;
	struct npu_mirror_runs runs;
	struct hmm_range range = {
		.notifier = &mirror->notifier,
		.hmm_pfns = pfns,
		.default_flags = HMM_PFN_REQ_FAULT |
				 (write ? HMM_PFN_REQ_WRITE : 0),
	};
	u64 start = ALIGN_DOWN(va, PAGE_SIZE), end;
	int ret;

	/* Up to the end of the access, of the mirror and of the table. */
	end = min3(start + (u64)NPU_MIRROR_FAULT_PAGES * PAGE_SIZE,
		   mirror->start + mirror->size,
		   ALIGN_DOWN(start, SZ_2M) + SZ_2M);
	if (len < end - va)
		end = ALIGN(va + len, PAGE_SIZE);
	/* Not into entries that are there, nor past max_mirror_pages. */
	ret = npu_vm_mirror_fault_range(&ctx->vm, mirror, start, &end, limit);
	if (ret)
		goto out_why;
	if (!mmget_not_zero(mm)) {
		ret = -ESRCH;
		goto out_why;
	}
	range.start = start;
	range.end = end;
	timeout = jiffies + msecs_to_jiffies(HMM_RANGE_DEFAULT_TIMEOUT);
	for (;;) {
		if (time_after(jiffies, timeout)) {
			ret = -EBUSY;
			break;
		}
		range.notifier_seq = mmu_interval_read_begin(&mirror->notifier);
		mmap_read_lock(mm);
		ret = hmm_range_fault(&range);
		mmap_read_unlock(mm);
		if (ret == -EBUSY)
			continue;
		/* A hole or a read-only page further on: only the one needed. */
		if ((ret == -EFAULT || ret == -EPERM) &&
		    range.end - range.start > PAGE_SIZE) {
			range.end = range.start + PAGE_SIZE;
			continue;
		}
		if (ret)
			break;
		ret = npu_mirror_map_runs(mirror, write, pfns,
					  (range.end - range.start) >> PAGE_SHIFT,
					  &runs);
		if (ret)
			break;
		ret = npu_vm_mirror_install(&ctx->vm, mirror, range.start,
					    range.end, write, runs.run, runs.nr,
					    range.notifier_seq, limit, done);
		if (ret >= 0) {
			/* the runs not installed were the fault's to unmap */
			npu_mirror_unmap_runs(mirror, write, &runs, ret);
			ret = 0;
			break;
		}
		npu_mirror_unmap_runs(mirror, write, &runs, 0);
		if (ret != -EAGAIN)
			break;
	}
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

/*
 * The end of a mirror taken out of the VA space: its entries are gone
 * already (npu_vm_mirror_remove()), so no access can reach the pages once
 * the notifier that kept them current is removed.
 */
static void npu_mirror_destroy(struct npu_mirror *mirror)
{
#ifdef NPU_HAVE_HMM
	mmu_interval_notifier_remove(&mirror->notifier);
#endif
	npu_mirror_put(mirror);
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
	if (!npu_vm_range_valid(args->addr, args->length, SZ_4K) ||
	    args->addr + args->length > TASK_SIZE)
		return -EINVAL;
	end = args->addr + args->length;
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
	ret = npu_vm_mirror_add(&ctx->vm, mirror, READ_ONCE(max_mirrors));
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
	if (ret && npu_vm_mirror_remove(&ctx->vm, args->addr, mirror))
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
	mirror = npu_vm_mirror_remove(&ctx->vm, args->addr, NULL);
	if (!mirror)
		return -ENOENT;
	npu_mirror_destroy(mirror);
	return 0;
}

/* At shutdown, after every stream has stopped. */
void npu_mirror_release(struct npu_context *ctx)
{
	struct npu_mirror *mirror, *gone;

	while ((mirror = npu_vm_mirror_first(&ctx->vm))) {
		gone = npu_vm_mirror_remove(&ctx->vm, mirror->start, mirror);
		if (gone)
			npu_mirror_destroy(gone);
		npu_mirror_put(mirror);
	}
}
