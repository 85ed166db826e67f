// SPDX-License-Identifier: GPL-2.0
/*
 * npu: host memory registration.
 *
 * User pages are pinned FOLL_LONGTERM (they may sit under DMA for as long
 * as the registration lives), a page of page pointers at a time so that
 * no single pin call grows with the registration; the batches are
 * appended to one scatter-gather table that merges contiguous pages, so a
 * huge folio becomes one segment. The table is DMA-mapped for the NPU's
 * DMA device - through its IOMMU domain when it has one. The pages are
 * charged to the registering user's locked_vm against RLIMIT_MEMLOCK, as
 * iommufd and io_uring do: pins outlive the mm that made them until the
 * context notices that mm is gone, and a per-mm count (pinned_vm, which
 * still feeds VmPin) would restart at zero after exec or in a child.
 *
 * A command's pageable operand (NPU_CMD_DST_USER, NPU_CMD_SRC_USER) is
 * pinned the same way, and charged the same way, into a registration of
 * its own that no tree holds, at SUBMIT and for the command
 * only: the caller decides how long a command stays queued (behind a
 * WAIT_VALUE that never comes true, say), so its pins are long-term pins
 * as much as a registration's. The command's end (completion, fault,
 * cancel) drops the last reference and with it the pins and the charge.
 * max_user_pin (npu_submit.c) bounds them further.
 */
#include <linux/backing-dev.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/swiotlb.h>
#include <linux/wait.h>

#include <uapi/npu.h>

#include "npu_drv.h"
#include "npu_host.h"
#include "npu_trace.h"
#include "npu_vm.h"

/*
 * A coherent mapping that never bounces (npu_host_register_ioctl() refuses
 * the others) has nothing to sync: saying so also lets several contexts
 * map the same pages, which the DMA-API debug code's cacheline tracking
 * refuses for mappings that sync.
 */
#define NPU_HOST_DMA_ATTRS	DMA_ATTR_SKIP_CPU_SYNC

/*
 * Charge @reg to the calling user's locked_vm, within RLIMIT_MEMLOCK unless
 * the caller has CAP_IPC_LOCK, and to its mm's pinned_vm (VmPin). The
 * registration keeps the user_struct, so the charge goes back to the user
 * who paid it, whoever closes the file.
 */
static int npu_host_charge(struct npu_host_reg *reg)
{
	unsigned long npages = reg->size >> PAGE_SHIFT;
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct user_struct *user = current_user();
	long cur = atomic_long_read(&user->locked_vm);

	do {
		if (cur + npages > limit && !capable(CAP_IPC_LOCK))
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, cur + npages));
	reg->user = get_uid(user);
	atomic64_add(npages, &reg->ctx->mm->pinned_vm);
	atomic64_add(reg->size, &reg->ctx->host_pinned);
	atomic64_add(reg->size, &reg->ctx->host_memlock);
	return 0;
}

static void npu_host_uncharge(struct npu_host_reg *reg)
{
	unsigned long npages = reg->size >> PAGE_SHIFT;

	atomic64_sub(reg->size, &reg->ctx->host_memlock);
	atomic64_sub(reg->size, &reg->ctx->host_pinned);
	atomic64_sub(npages, &reg->ctx->mm->pinned_vm);
	atomic_long_sub(npages, &reg->user->locked_vm);
	free_uid(reg->user);
}

static void npu_host_unpin(struct npu_host_reg *reg)
{
	/* A read-only registration or a source operand was only read. */
	bool dirty = !(reg->flags & NPU_HOST_READONLY);
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(&reg->pages.sgt, sg, i) {
		unpin_user_page_range_dirty_lock(sg_page(sg),
						 sg->length >> PAGE_SHIFT,
						 dirty);
		cond_resched();
	}
	sg_free_append_table(&reg->pages);
}

#ifdef NPU_HAVE_OLD_GUP_MUST_UNSHARE
/*
 * Before Linux 6.2, GUP neither broke COW for a read-only long-term pin
 * of a writable private mapping (the zero page, the huge zero page or a
 * file's page-cache page stayed pinned while the process's next write
 * went to a new page the device never saw), nor refused a writable
 * long-term pin of a shared file mapping that the file system writes back
 * (it may write and clean the pages while the device writes them). Do
 * here what newer kernels do in GUP: pin such a read-only batch for write
 * (it reads the same, and it is the page the process will write), refuse
 * such a writable one with -EFAULT as they do. The batch at @addr is
 * clamped to one VMA. A VMA that changes between this look and the pin is
 * the caller's race, as with any pin of memory being remapped.
 */
static int npu_host_pin_flags(unsigned long addr, unsigned long *n,
			      unsigned int *gup)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	int ret = 0;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	if (!vma) {
		ret = -EFAULT;
	} else {
		*n = min(*n, (vma->vm_end - addr) >> PAGE_SHIFT);
		if (*gup & FOLL_WRITE) {
			if ((vma->vm_flags & VM_SHARED) && vma->vm_file &&
			    mapping_can_writeback(vma->vm_file->f_mapping))
				ret = -EFAULT;
		} else if (is_cow_mapping(vma->vm_flags) &&
			   (vma->vm_flags & VM_WRITE)) {
			*gup |= FOLL_WRITE;
		}
	}
	mmap_read_unlock(mm);
	return ret;
}
#else
/* GUP itself unshares read-only long-term pins and refuses the others. */
static int npu_host_pin_flags(unsigned long addr, unsigned long *n,
			      unsigned int *gup)
{
	return 0;
}
#endif

/*
 * Pin the pages of @reg, FOLL_LONGTERM: out of ZONE_MOVABLE and CMA first,
 * a read-only pin of a private writable mapping unshares (never the zero
 * page or a page-cache page the process's next write leaves behind), a
 * writable pin of a shared file mapping that is written back is refused.
 */
static int npu_host_pin(struct npu_host_reg *reg)
{
	unsigned long npages = reg->size >> PAGE_SHIFT, done = 0;
	const unsigned long batch_max = PAGE_SIZE / sizeof(struct page *);
	unsigned int gup = FOLL_LONGTERM;
	struct page **batch;
	int ret = 0;

	if (!(reg->flags & NPU_HOST_READONLY))
		gup |= FOLL_WRITE;
	batch = (struct page **)__get_free_page(GFP_KERNEL);
	if (!batch)
		return -ENOMEM;

	while (done < npages) {
		unsigned long addr = reg->addr + (done << PAGE_SHIFT);
		unsigned long n = min(npages - done, batch_max);
		unsigned int flags = gup;
		int pinned;

		ret = npu_host_pin_flags(addr, &n, &flags);
		if (ret)
			break;
		pinned = pin_user_pages_fast(addr, n, flags, batch);
		if (pinned <= 0) {
			ret = pinned ? pinned : -EFAULT;
			break;
		}
		/* The hint is a page count the table may still grow by. */
		ret = sg_alloc_append_table_from_pages(&reg->pages, batch, pinned,
						       0, (u64)pinned << PAGE_SHIFT,
						       ALIGN_DOWN(UINT_MAX, PAGE_SIZE),
						       min(npages - done - pinned,
							   (unsigned long)UINT_MAX),
						       GFP_KERNEL_ACCOUNT);
		if (ret) {
			unpin_user_pages(batch, pinned);
			break;
		}
		done += pinned;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		cond_resched();
	}
	free_page((unsigned long)batch);
	if (ret)
		npu_host_unpin(reg);
	return ret;
}

static void npu_host_reg_destroy(struct npu_host_reg *reg)
{
	struct npu_context *ctx = reg->ctx;

	trace_npu_dma_unmap(reg);
	dma_unmap_sgtable(ctx->npu->dma_dev, &reg->pages.sgt, reg->dir,
			  NPU_HOST_DMA_ATTRS);
	trace_npu_host_unpin(reg);
	npu_host_unpin(reg);
	npu_host_uncharge(reg);
	kfree(reg);
}

/**
 * npu_host_reg_get() - find the registration holding a user range
 * @ctx: context
 * @addr: user address
 * @size: bytes from @addr, all inside one registration
 *
 * Return: the registration with a reference for the command that will
 * use it, or NULL.
 */
struct npu_host_reg *npu_host_reg_get(struct npu_context *ctx, u64 addr,
				      u64 size)
{
	return npu_vm_host_get(&ctx->vm, addr, size);
}

void npu_host_reg_put(struct npu_host_reg *reg)
{
	/* The context outlives its registrations; @reg may be gone below. */
	struct npu_context *ctx = reg->ctx;

	if (atomic_dec_and_test(&reg->users))
		npu_host_reg_destroy(reg);
	else if (wq_has_sleeper(&ctx->host_wq))	/* an unregister waits */
		wake_up_all(&ctx->host_wq);
}

/**
 * npu_host_dma_addr() - DMA address of a byte of a registration
 * @reg: registration
 * @cur: lookup cursor, zeroed before the first call
 * @offset: byte offset in the registration
 * @dma: out, its DMA address
 * @left: out, bytes to the end of its DMA segment
 *
 * Return: 0, or -ERANGE past the end.
 */
int npu_host_dma_addr(struct npu_host_reg *reg, struct npu_host_cursor *cur,
		      u64 offset, u64 *dma, u64 *left)
{
	struct scatterlist *sg = cur->sg;
	u64 start = cur->start;

	if (!sg || offset < start) {
		sg = reg->pages.sgt.sgl;
		start = 0;
	}
	for (; sg; sg = sg_next(sg)) {
		u64 len = sg_dma_len(sg);

		if (!len)
			break;
		if (offset < start + len) {
			cur->sg = sg;
			cur->start = start;
			*dma = sg_dma_address(sg) + (offset - start);
			*left = len - (offset - start);
			return 0;
		}
		start += len;
	}
	return -ERANGE;
}

/*
 * Registered pages are shared with the device for as long as they are
 * registered, with no sync points in between, so the device must reach
 * the pages themselves, coherently: a non-coherent device would see stale
 * cache lines, and a mapping that swiotlb bounces a copy. The NPU's DMA
 * mask is 52 bits, so without an IOMMU bouncing happens only when it is
 * forced (swiotlb=force, memory encryption). A command's operand is mapped
 * without syncs as well (NPU_HOST_DMA_ATTRS), so that the same page may
 * be under several mappings at once. Imported dma-bufs are held to the
 * same (npu_dmabuf_import.c).
 */
bool npu_host_dma_direct(struct npu_context *ctx)
{
	return dev_is_dma_coherent(ctx->npu->dma_dev) &&
	       (ctx->npu->domain || !is_swiotlb_force_bounce(ctx->npu->dma_dev));
}

/* Pin @reg's pages and map them for the device. */
static int npu_host_pin_map(struct npu_context *ctx, struct npu_host_reg *reg)
{
	int ret;

	ret = npu_host_pin(reg);
	if (ret)
		return ret;
	trace_npu_host_pin(reg);
	ret = dma_map_sgtable(ctx->npu->dma_dev, &reg->pages.sgt, reg->dir,
			      NPU_HOST_DMA_ATTRS);
	if (ret) {
		trace_npu_host_unpin(reg);
		npu_host_unpin(reg);
		return ret;
	}
	trace_npu_dma_map(reg);
	return 0;
}

/*
 * A registration of [@addr, @addr + @size) of the calling process,
 * charged (RLIMIT_MEMLOCK, VmPin), pinned and DMA-mapped in direction
 * @dir; in no tree yet, with one user.
 */
static struct npu_host_reg *npu_host_reg_create(struct npu_context *ctx,
						u64 addr, u64 size, u32 flags,
						u64 dev_addr,
						enum dma_data_direction dir)
{
	struct npu_host_reg *reg = kzalloc(sizeof(*reg), GFP_KERNEL_ACCOUNT);
	int ret;

	if (!reg)
		return ERR_PTR(-ENOMEM);
	reg->addr = addr;
	reg->size = size;
	reg->flags = flags;
	reg->dev_addr = dev_addr;
	reg->ctx = ctx;
	reg->dir = dir;
	atomic_set(&reg->users, 1);

	ret = npu_host_charge(reg);
	if (ret)
		goto free;
	ret = npu_host_pin_map(ctx, reg);
	if (ret)
		goto uncharge;
	return reg;

uncharge:
	npu_host_uncharge(reg);
free:
	kfree(reg);
	return ERR_PTR(ret);
}

/**
 * npu_host_pin_user() - pin a command's pageable operand until it ends
 * @ctx: context of the calling process (current->mm is ctx->mm)
 * @addr: user address of the operand
 * @len: its bytes, non-zero, @addr + @len not wrapping
 * @write: the device writes it (FOLL_WRITE: breaks COW as a CPU write
 *	would, and fails on a read-only mapping)
 *
 * The pages from @addr's page to the end of @len's are pinned and charged
 * as a registration's are (RLIMIT_MEMLOCK, VmPin, the context's pinned
 * bytes) and DMA-mapped for the device; the registration made for them is
 * in no tree: the caller's reference is the only one, and
 * npu_host_reg_put() of it unmaps, dirties a destination, unpins and
 * uncharges. The engine walks it as any registration.
 *
 * Return: the registration, or ERR_PTR(): -EFAULT some page is not mapped
 * (or not writable for @write, or a shared mapping of a file that is
 * written back) or lies beyond the user address space, -EOPNOTSUPP the
 * device would reach it only through bounce buffers, -ENOMEM over
 * RLIMIT_MEMLOCK or out of memory, -EINTR a fatal signal.
 */
struct npu_host_reg *npu_host_pin_user(struct npu_context *ctx, u64 addr,
				       u64 len, bool write)
{
	u64 start = ALIGN_DOWN(addr, PAGE_SIZE), end;

	if (check_add_overflow(addr, len, &end) || end > TASK_SIZE)
		return ERR_PTR(-EFAULT);
	if (!npu_host_dma_direct(ctx))
		return ERR_PTR(-EOPNOTSUPP);
	return npu_host_reg_create(ctx, start, PAGE_ALIGN(end) - start,
				   write ? 0 : NPU_HOST_READONLY, 0,
				   write ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
}

int npu_host_register_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_host_register *args = arg;
	struct npu_host_reg *reg;
	u64 end;
	int ret;

	if (args->flags & ~NPU_HOST_FLAGS_MASK)
		return -EINVAL;
	if (!args->length || !IS_ALIGNED(args->addr | args->length, SZ_4K) ||
	    args->length > NPU_HOST_MAX_LENGTH ||
	    check_add_overflow(args->addr, args->length, &end) ||
	    end > TASK_SIZE)
		return -EINVAL;
	if (args->flags & NPU_HOST_MAPPED) {
		if (!npu_vm_range_valid(args->dev_addr, args->length, SZ_4K))
			return -EINVAL;
	} else if (args->dev_addr) {
		return -EINVAL;
	}
	/* Refuse a device that cannot reach the pages before pinning. */
	if (!npu_host_dma_direct(ctx))
		return -EOPNOTSUPP;

	/* Refuse an overlap before pinning anything. */
	if (npu_vm_host_overlaps(&ctx->vm, args->addr, args->length))
		return -EEXIST;

	reg = npu_host_reg_create(ctx, args->addr, args->length, args->flags,
				  args->flags & NPU_HOST_MAPPED ? args->dev_addr : 0,
				  args->flags & NPU_HOST_READONLY ? DMA_TO_DEVICE :
								    DMA_BIDIRECTIONAL);
	if (IS_ERR(reg))
		return PTR_ERR(reg);
	ret = npu_vm_host_insert(&ctx->vm, reg);
	if (ret)
		npu_host_reg_destroy(reg);
	return ret;
}

int npu_host_unregister_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_host_unregister *args = arg;
	struct npu_host_reg *reg;

	if (args->flags)
		return -EINVAL;
	/* No new command finds it after this. */
	reg = npu_vm_host_remove(&ctx->vm, args->addr, false);
	if (!reg)
		return -ENXIO;

	/*
	 * Wait for the commands using it. A fatal signal stops the wait; the
	 * last command then unpins.
	 */
	wait_event_killable(ctx->host_wq, atomic_read(&reg->users) == 1);
	npu_host_reg_put(reg);
	return 0;
}

/* At shutdown, after every stream has stopped: nothing uses them any more. */
void npu_host_release(struct npu_context *ctx)
{
	struct npu_host_reg *reg;

	while ((reg = npu_vm_host_remove(&ctx->vm, 0, true))) {
		npu_host_reg_put(reg);
		cond_resched();
	}
}
