// SPDX-License-Identifier: GPL-2.0
/*
 * npu: device memory and physical handles.
 *
 * Device-physical addresses come from the kernel's GPU buddy allocator in
 * 4 KiB chunks; a handle asks for blocks no smaller than its page size, so
 * every block can be mapped with leaves of that size. The bytes behind an
 * address are a host page allocated on the first device write; freeing a
 * handle frees its pages, so the next owner of the addresses reads zeros.
 */
#include <linux/highmem.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sizes.h>

#include <uapi/npu.h>

#include "npu_devmem.h"
#include "npu_dmabuf_import.h"
#include "npu_drv.h"
#include "npu_share.h"

/* Per-context cap on what a user can make the kernel hold. */
static unsigned long long ctx_mem_limit;
module_param(ctx_mem_limit, ullong, 0644);
MODULE_PARM_DESC(ctx_mem_limit,
		 "Bytes of device memory one context may allocate, 0: the whole device (default 0)");

struct npu_devmem *npu_devmem_create(u64 size)
{
	struct npu_devmem *mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	int ret;

	if (!mem)
		return ERR_PTR(-ENOMEM);
	ret = npu_buddy_init(&mem->buddy, size, SZ_4K);
	if (ret) {
		kfree(mem);
		return ERR_PTR(ret);
	}
	mem->size = size;
	mutex_init(&mem->lock);
	xa_init(&mem->backing);
	xa_init(&mem->poison);
	return mem;
}

void npu_devmem_destroy(struct npu_devmem *mem)
{
	npu_buddy_fini(&mem->buddy);
	xa_destroy(&mem->backing);
	xa_destroy(&mem->poison);
	mutex_destroy(&mem->lock);
	kfree(mem);
}

#define NPU_BACKING_ORDER	(21 - PAGE_SHIFT)	/* 2 MiB */

/* Back the page of @index; mem->lock held. */
static struct page *npu_devmem_fill_locked(struct npu_devmem *mem,
					   unsigned long index, bool huge)
{
	unsigned int order = huge ? NPU_BACKING_ORDER : 0;
	unsigned long first = round_down(index, 1UL << order);
	struct page *page;
	void *old;

	lockdep_assert_held(&mem->lock);
	page = xa_load(&mem->backing, index);
	if (page)
		return page;
	/*
	 * Charged to the active memory cgroup (the DMA engine sets the
	 * writer's). Running out is a DMA fault, not a reason to OOM-kill.
	 */
	page = alloc_pages(GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN |
			   __GFP_RETRY_MAYFAIL | (order ? __GFP_COMP : 0),
			   order);
	if (!page)
		return ERR_PTR(-ENOMEM);
	old = xa_store_range(&mem->backing, first, first + (1UL << order) - 1,
			     page, GFP_KERNEL_ACCOUNT);
	if (xa_is_err(old)) {
		__free_pages(page, order);
		return ERR_PTR(xa_err(old));
	}
	atomic_long_add(1L << order, &mem->backing_pages);
	return page;
}

/*
 * Device pages lie in their 2 MiB backing page rotated by an amount that
 * differs from one 2 MiB granule of device memory to the next (repeating
 * every 511 granules) and is never 0: equal offsets of two device buffers,
 * or of a device buffer and a 2 MiB-aligned host buffer, then lie in host
 * pages of different colours modulo 2 MiB. Two operands of one colour
 * evict each other from a direct-mapped TLB (an emulated CPU's has one),
 * which made device-to-device copies several times slower
 * (Documentation/benchmarks.rst). Nothing else sees the layout.
 */
static unsigned long npu_devmem_subpage(unsigned long index,
					unsigned int order)
{
	unsigned long nr = 1UL << order;
	/* 37 is prime to nr - 1: granules nr - 1 apart are the first alike. */
	unsigned long rotation = 1 + (index >> order) * 37 % (nr - 1);

	return (index + rotation) & (nr - 1);
}

/**
 * npu_devmem_page() - the host page behind a device-physical address
 * @mem: device memory
 * @dpa: device-physical address
 * @write: back the page if it is not yet
 * @huge: it belongs to a handle of 2 MiB or larger pages, which owns the
 *	whole 2 MiB around it
 * @span: out, bytes from @dpa on that are contiguous both in device and
 *	in host memory: they lie in one host allocation, in order
 *
 * Return: the page; the shared zero page for a read of a page never
 * written; ERR_PTR(-ENOMEM) if a page for a write cannot be had.
 */
struct page *npu_devmem_page(struct npu_devmem *mem, u64 dpa, bool write,
			     bool huge, u64 *span)
{
	unsigned long index = dpa >> PAGE_SHIFT;
	struct page *page;

	page = xa_load(&mem->backing, index);
	if (!page && !write) {
		*span = PAGE_SIZE - offset_in_page(dpa);
		return ZERO_PAGE(0);
	}
	if (!page) {
		mutex_lock(&mem->lock);
		page = npu_devmem_fill_locked(mem, index, huge);
		mutex_unlock(&mem->lock);
		if (IS_ERR(page))
			return page;
	}
	if (PageCompound(page)) {
		unsigned int order = compound_order(page);
		unsigned long nr = 1UL << order;
		unsigned long sub = npu_devmem_subpage(index, order);

		/*
		 * Contiguous to the end of the backing page, where the
		 * granule's first pages wrap around, and never past the
		 * granule's own end: the next granule is another page.
		 */
		page = nth_page(page, sub);
		*span = (min(nr - sub, nr - (index & (nr - 1))) << PAGE_SHIFT) -
			offset_in_page(dpa);
	} else {
		*span = PAGE_SIZE - offset_in_page(dpa);
	}
	return page;
}

/**
 * npu_devmem_poison() - give the page at @dpa an uncorrectable error
 * @mem: device memory
 * @dpa: device-physical address in it
 *
 * Return: 0, or -ENOMEM.
 */
int npu_devmem_poison(struct npu_devmem *mem, u64 dpa)
{
	return xa_err(xa_store(&mem->poison, dpa >> PAGE_SHIFT, xa_mk_value(1),
			       GFP_KERNEL_ACCOUNT));
}

/*
 * Bytes from @dpa on, at most @len, before the first page with an
 * uncorrectable error: @len on a healthy device at the cost of one load.
 */
u64 npu_devmem_clean_len(struct npu_devmem *mem, u64 dpa, u64 len)
{
	unsigned long index = dpa >> PAGE_SHIFT;

	if (likely(xa_empty(&mem->poison)) || !len ||
	    !xa_find(&mem->poison, &index, (dpa + len - 1) >> PAGE_SHIFT,
		     XA_PRESENT))
		return len;
	return index == dpa >> PAGE_SHIFT ? 0 : ((u64)index << PAGE_SHIFT) - dpa;
}

/* Has any page of [@dpa, @dpa + @len) an uncorrectable error? */
bool npu_devmem_poisoned(struct npu_devmem *mem, u64 dpa, u64 len)
{
	return npu_devmem_clean_len(mem, dpa, len) != len;
}

/*
 * Repair the page at @dpa if it has an uncorrectable error, as the
 * device's repair does: a healthy page in its place, its bytes zero.
 * Returns whether it had one.
 */
bool npu_devmem_repair(struct npu_devmem *mem, u64 dpa)
{
	struct page *page;
	u64 span;

	dpa &= PAGE_MASK;
	if (!xa_load(&mem->poison, dpa >> PAGE_SHIFT))
		return false;
	/* a page never written reads as zero already: nothing to back */
	page = npu_devmem_page(mem, dpa, false, false, &span);
	if (page != ZERO_PAGE(0))
		clear_highpage(page);
	xa_erase(&mem->poison, dpa >> PAGE_SHIFT);
	return true;
}

/* The memory goes back to the allocator: its bad pages are retired. */
static void npu_devmem_unpoison(struct npu_devmem *mem, u64 dpa, u64 size)
{
	unsigned long index;
	void *entry;

	if (likely(xa_empty(&mem->poison)))
		return;
	xa_for_each_range(&mem->poison, index, entry, dpa >> PAGE_SHIFT,
			  (dpa + size - 1) >> PAGE_SHIFT)
		xa_erase(&mem->poison, index);
}

/* Under the lock: a device reset's wipe does not meet a page being freed. */
static void npu_devmem_drop_pages(struct npu_devmem *mem, u64 dpa, u64 size)
{
	unsigned long index, last = (dpa + size - 1) >> PAGE_SHIFT;
	struct page *page;

	mutex_lock(&mem->lock);
	xa_for_each_range(&mem->backing, index, page, dpa >> PAGE_SHIFT, last) {
		unsigned int order = compound_order(page);

		xa_erase(&mem->backing, index);
		__free_pages(page, order);
		atomic_long_sub(1L << order, &mem->backing_pages);
		cond_resched();
	}
	mutex_unlock(&mem->lock);
}

/**
 * npu_devmem_wipe() - a device reset: the contents of the memory are lost
 * @mem: device memory that nothing of its device accesses any more
 *
 * Every page written so far reads as zero from now on. The pages are
 * cleared in place, not freed: a dma-buf exported before the reset, and
 * whoever maps or imports it, holds them until its handle goes. Bad pages
 * stay bad: a reset repairs nothing.
 */
void npu_devmem_wipe(struct npu_devmem *mem)
{
	unsigned long index, i, nr;
	struct page *page;

	mutex_lock(&mem->lock);
	xa_for_each(&mem->backing, index, page) {
		nr = 1UL << compound_order(page);
		for (i = 0; i < nr; i++)
			clear_highpage(nth_page(page, i));
		cond_resched();
	}
	mutex_unlock(&mem->lock);
}

static struct npu_handle *npu_handle_create(struct npu_context *ctx, u64 size,
					    u64 page_size)
{
	struct npu_devmem *mem = ctx->npu->mem;
	u64 limit = READ_ONCE(ctx_mem_limit) ?: mem->size;
	struct npu_handle *handle;
	s64 used, peak;
	int ret;

	if (!npu_charge(&ctx->mem_charged, size, min(limit, mem->size)))
		return ERR_PTR(-ENOMEM);
	handle = kzalloc(sizeof(*handle), GFP_KERNEL_ACCOUNT);
	if (!handle) {
		atomic_long_sub(size, &ctx->mem_charged);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&handle->ref);
	INIT_LIST_HEAD(&handle->blocks);
	handle->mem = mem;
	handle->size = size;
	handle->page_size = page_size;
	handle->owner = ctx;
	npu_context_get(ctx);

	mutex_lock(&mem->lock);
	ret = npu_buddy_alloc_blocks(&mem->buddy, 0, mem->size, size, page_size,
				     &handle->blocks, 0);
	mutex_unlock(&mem->lock);
	if (ret) {
		atomic_long_sub(size, &ctx->mem_charged);
		npu_context_put(ctx);
		kfree(handle);
		/* The buddy says -ENOSPC; for the caller it is memory. */
		return ERR_PTR(ret == -ENOSPC ? -ENOMEM : ret);
	}
	used = atomic64_add_return(size, &mem->used);
	peak = atomic64_read(&mem->peak);
	while (used > peak && !atomic64_try_cmpxchg(&mem->peak, &peak, used))
		;
	spin_lock(&ctx->rss_lock);
	if (!ctx->rss_closed)
		npu_mm_add_shmem(ctx->mm, size >> PAGE_SHIFT);
	spin_unlock(&ctx->rss_lock);
	return handle;
}

/*
 * @size bytes of @owner's device memory are freed: no longer charged to
 * it, nor counted in its process's RSS (unless its file is closed).
 */
static void npu_mem_uncharge(struct npu_context *owner, u64 size)
{
	spin_lock(&owner->rss_lock);
	atomic_long_sub(size, &owner->mem_charged);
	if (!owner->rss_closed)
		npu_mm_add_shmem(owner->mm, -(long)(size >> PAGE_SHIFT));
	spin_unlock(&owner->rss_lock);
}

/**
 * npu_devmem_close() - the context's file is closed
 * @ctx: the context, every handle of its table and mapping released
 *
 * What it allocated and others still hold (imports, dma-bufs) stays
 * charged to it until freed, but no longer counts in its process's RSS:
 * the process may be gone, and its mm's counters must be back at zero
 * before the mm goes.
 */
void npu_devmem_close(struct npu_context *ctx)
{
	spin_lock(&ctx->rss_lock);
	ctx->rss_closed = true;
	npu_mm_add_shmem(ctx->mm,
			 -(atomic_long_read(&ctx->mem_charged) >> PAGE_SHIFT));
	spin_unlock(&ctx->rss_lock);
}

/**
 * npu_handle_slice() - a handle to part of another handle's memory
 * @parent: the memory; the slice takes a reference
 * @offset: start in @parent, a multiple of its page size
 * @size: bytes, a non-zero multiple of its page size, within @parent
 *
 * Return: the slice with one reference, or ERR_PTR(-ENOMEM).
 */
struct npu_handle *npu_handle_slice(struct npu_handle *parent, u64 offset,
				    u64 size)
{
	struct npu_handle *slice = kzalloc(sizeof(*slice), GFP_KERNEL_ACCOUNT);

	if (!slice)
		return ERR_PTR(-ENOMEM);
	kref_init(&slice->ref);
	INIT_LIST_HEAD(&slice->blocks);
	slice->mem = parent->mem;
	slice->size = size;
	slice->page_size = parent->page_size;
	kref_get(&parent->ref);
	slice->parent = parent;
	slice->offset = offset;
	return slice;
}

/**
 * npu_handle_foreign() - a handle of memory that is not device memory
 * @mem: the device memory of the device it is for (its handles' @mem)
 * @size: bytes, a multiple of 4 KiB
 * @import: what it is (a dma-buf import), freed with the handle
 *
 * Its mappings are 4 KiB pages; it has no blocks and charges nothing.
 *
 * Return: the handle with one reference, or ERR_PTR(-ENOMEM).
 */
struct npu_handle *npu_handle_foreign(struct npu_devmem *mem, u64 size,
				      struct npu_import *import)
{
	struct npu_handle *handle = kzalloc(sizeof(*handle), GFP_KERNEL_ACCOUNT);

	if (!handle)
		return ERR_PTR(-ENOMEM);
	kref_init(&handle->ref);
	INIT_LIST_HEAD(&handle->blocks);
	handle->mem = mem;
	handle->size = size;
	handle->page_size = NPU_PAGE_4K;
	handle->import = import;
	return handle;
}

/**
 * npu_handle_walk() - visit the device-physical extents of a handle
 * @handle: a handle, or a slice: its window of the parent's blocks
 * @fn: gets each extent in order: its offset in @handle, its device-physical
 *	address and its length; a non-zero return stops the walk
 * @arg: for @fn
 *
 * Return: 0, or what @fn returned.
 */
int npu_handle_walk(const struct npu_handle *handle,
		    int (*fn)(void *arg, u64 off, u64 dpa, u64 len), void *arg)
{
	const struct npu_handle *base = handle->parent ?: handle;
	u64 skip = handle->offset, left = handle->size, off = 0;
	struct npu_buddy_block *block;
	int ret;

	npu_handle_for_each_block(base, block) {
		u64 size = npu_buddy_block_size(&base->mem->buddy, block);
		u64 dpa = npu_buddy_block_offset(block);

		if (skip >= size) {
			skip -= size;
			continue;
		}
		dpa += skip;
		size = min(size - skip, left);
		skip = 0;
		ret = fn(arg, off, dpa, size);
		if (ret)
			return ret;
		off += size;
		left -= size;
		if (!left)
			break;
	}
	return 0;
}

static void npu_handle_free(struct kref *ref)
{
	struct npu_handle *handle = container_of(ref, struct npu_handle, ref);
	struct npu_devmem *mem = handle->mem;
	struct npu_buddy_block *block;

	if (handle->import) {
		npu_import_free(handle->import);
		kfree(handle);
		return;
	}
	if (handle->parent) {
		if (handle->ipc)
			npu_ipc_import_release(handle->ipc);
		npu_handle_put(handle->parent);
		kfree(handle);
		return;
	}
	npu_handle_for_each_block(handle, block) {
		u64 dpa = npu_buddy_block_offset(block);
		u64 size = npu_buddy_block_size(&mem->buddy, block);

		npu_devmem_unpoison(mem, dpa, size);
		npu_devmem_drop_pages(mem, dpa, size);
	}
	mutex_lock(&mem->lock);
	npu_buddy_free_list(&mem->buddy, &handle->blocks);
	mutex_unlock(&mem->lock);
	atomic64_sub(handle->size, &mem->used);
	npu_mem_uncharge(handle->owner, handle->size);
	npu_context_put(handle->owner);
	kfree(handle);
}

void npu_handle_put(struct npu_handle *handle)
{
	kref_put(&handle->ref, npu_handle_free);
}

static void npu_handle_get_obj(void *obj)
{
	kref_get(&((struct npu_handle *)obj)->ref);
}

/**
 * npu_handle_lookup() - the handle @id names in @ctx, with a reference
 * @ctx: context
 * @id: handle id
 * @imported: out, whether it came from an import (or NULL)
 *
 * Return: the handle (npu_handle_put()), or NULL if @ctx has no such one.
 */
struct npu_handle *npu_handle_lookup(struct npu_context *ctx, u32 id,
				     bool *imported)
{
	enum npu_obj_type type;
	struct npu_handle *handle;

	handle = npu_obj_get(&ctx->objs, id, NPU_OBJ_HANDLES,
			     npu_handle_get_obj, &type);
	if (handle && imported)
		*imported = type == NPU_OBJ_IMPORT;
	return handle;
}

/* Does @id of @ctx still name @handle? */
bool npu_handle_is(struct npu_context *ctx, u32 id,
		   const struct npu_handle *handle)
{
	return npu_obj_is(&ctx->objs, id, handle);
}

/**
 * npu_handle_new_id() - reserve an id for a new handle of @ctx
 * @ctx: context
 * @a: the creating ioctl's arguments: @a->handle (whose reference the
 *	table takes over once published; dropped on failure) and @a->type
 *	are set; the id goes to @a->id and to *@id (the user's struct)
 * @id: where the answer carries the id
 *
 * The handle is published by npu_handle_finish() once the answer is
 * copied out: until then no lookup finds it.
 *
 * Return: 0, or -ENOSPC at max_handles or max_imports.
 */
int npu_handle_new_id(struct npu_context *ctx, struct npu_handle_args *a,
		      u32 *id)
{
	int ret = npu_obj_reserve(&ctx->objs, a->type, &a->id);

	if (ret) {
		npu_handle_put(a->handle);
		return ret;
	}
	*id = a->id;
	return 0;
}

/*
 * The ioctl table's finish of MEM_ALLOC, SHARE_IMPORT, IPC_IMPORT and
 * DMABUF_IMPORT.
 */
void npu_handle_finish(struct npu_context *ctx, void *arg, int ret)
{
	struct npu_handle_args *a = arg;

	if (!ret) {
		npu_obj_publish(&ctx->objs, a->id, a->type, a->handle);
		return;
	}
	npu_obj_abort(&ctx->objs, a->id, a->type);
	npu_handle_put(a->handle);
}

/*
 * A handle leaves the context's table: its name goes too if this context
 * exported it; the table's reference is dropped.
 */
static void npu_handle_drop(void *obj, enum npu_obj_type type, void *arg)
{
	struct npu_handle *handle = obj;

	npu_share_revoke(arg, handle);
	npu_handle_put(handle);
}

void npu_handles_release(struct npu_context *ctx)
{
	npu_obj_remove_each(&ctx->objs, NPU_OBJ_HANDLES, npu_handle_drop, ctx);
}

static bool npu_page_size_valid(u64 page_size)
{
	return page_size == NPU_PAGE_4K || page_size == NPU_PAGE_2M ||
	       page_size == NPU_PAGE_1G;
}

int npu_mem_alloc_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_handle_args *a = arg;
	struct npu_mem_alloc *args = &a->alloc;

	if (args->flags || args->__reserved)
		return -EINVAL;
	if (!npu_page_size_valid(args->page_size) || !args->length ||
	    !IS_ALIGNED(args->length, args->page_size))
		return -EINVAL;
	if (args->length > ctx->npu->mem->size)
		return -ENOMEM;

	a->handle = npu_handle_create(ctx, args->length, args->page_size);
	if (IS_ERR(a->handle))
		return PTR_ERR(a->handle);
	a->type = NPU_OBJ_HANDLE;
	return npu_handle_new_id(ctx, a, &args->handle);
}

int npu_mem_free_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_mem_free *args = arg;
	struct npu_handle *handle;

	handle = npu_obj_remove(&ctx->objs, args->handle, NPU_OBJ_HANDLES,
				NULL, NULL);
	if (!handle)
		return -ENOENT;
	npu_handle_drop(handle, NPU_OBJ_HANDLE, ctx);
	return 0;
}
