// SPDX-License-Identifier: GPL-2.0
/*
 * npu: device memory exported as dma-buf.
 *
 * A physical handle's memory can leave the driver as a dma-buf, so other
 * devices (through their drivers' PRIME/dma-buf import) and other
 * processes (the fd passed on) reach the very pages the NPU reads and
 * writes. The dma-buf holds a reference to the handle: the memory stays
 * until the dma-buf is released, whoever lets go first. Device memory is
 * backed lazily (npu_devmem.c); exporting backs every page of the handle
 * first, so importers and the engine never see a page appear or move:
 * pages are dropped only when the handle is freed, which the dma-buf's
 * reference defers.
 *
 * The pages are ordinary cached host memory and the engine reaches them
 * with the CPU, so the device side needs no cache maintenance. Importers
 * get an sg_table of the pages, DMA-mapped for their own device; the fd
 * maps the pages into a process (shared mappings only). The dma-buf keeps
 * the module loaded (its ops' owner) and does not depend on the carrier:
 * after an unplug importers and CPU mappings go on working until closed.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/scatterlist.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include <uapi/npu.h>

#include "npu_compat.h"
#include "npu_devmem.h"
#include "npu_dmabuf.h"
#include "npu_drv.h"

NPU_IMPORT_NS_DMA_BUF();

/* Per-context cap on what a user can make the kernel hold. */
static unsigned int max_dmabufs = 1024;
module_param(max_dmabufs, uint, 0644);
MODULE_PARM_DESC(max_dmabufs, "dma-bufs from DMABUF_EXPORT per context, alive at once (default 1024)");

/**
 * struct npu_dmabuf - what a dma-buf of device memory holds
 * @handle: the memory (a reference)
 * @ctx: the exporting context, whose nr_dmabufs counts this one (a
 *	reference to the struct, not the file)
 * @huge: the handle has 2 MiB or larger pages (backed by 2 MiB pages)
 * @readonly: exported NPU_DMABUF_READONLY: no writable CPU mapping, through
 *	its own fd or an importer's
 *
 * Set before the dma-buf exists and never changed: no lock.
 */
struct npu_dmabuf {
	struct npu_handle *handle;
	struct npu_context *ctx;
	bool huge;
	bool readonly;
};

/*
 * Call @fn for each 4 KiB page of @db's memory from page @first on,
 * @count pages (within the handle), in the handle's order; stop at the
 * first error, or with -EINTR when the caller is killed. Backs a page
 * not yet backed (only the export's own walk meets one: pages stay until
 * the handle goes).
 */
static int npu_dmabuf_walk(struct npu_dmabuf *db, u64 first, u64 count,
			   int (*fn)(struct page *page, void *priv), void *priv)
{
	struct npu_handle *handle = db->handle;
	/* a slice (IPC_IMPORT) is a window of its parent's blocks */
	struct npu_handle *owner = handle->parent ?: handle;
	struct npu_devmem *mem = handle->mem;
	struct npu_buddy_block *block;
	u64 start = handle->offset + (first << PAGE_SHIFT);
	u64 end = start + (count << PAGE_SHIFT);
	u64 off = 0, pos, bsize, base, span;
	struct page *page;
	int ret;

	npu_handle_for_each_block(owner, block) {
		if (off >= end)
			break;
		bsize = npu_buddy_block_size(&mem->buddy, block);
		base = npu_buddy_block_offset(block);
		pos = start > off ? start - off : 0;
		for (; pos < bsize && off + pos < end; pos += PAGE_SIZE) {
			page = npu_devmem_page(mem, base + pos, true, db->huge,
					       &span);
			if (IS_ERR(page))
				return PTR_ERR(page);
			ret = fn(page, priv);
			if (ret)
				return ret;
			if (pos & (SZ_2M - 1))
				continue;
			/* long walks of big handles: killable, preemptible */
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
		off += bsize;
	}
	return 0;
}

static int npu_dmabuf_nop(struct page *page, void *priv)
{
	return 0;
}

/* Collects pages into an array. */
struct npu_dmabuf_pages {
	struct page **pages;
	unsigned long n;
};

static int npu_dmabuf_collect(struct page *page, void *priv)
{
	struct npu_dmabuf_pages *p = priv;

	p->pages[p->n++] = page;
	return 0;
}

static struct sg_table *npu_dmabuf_map(struct dma_buf_attachment *attach,
				       enum dma_data_direction dir)
{
	struct npu_dmabuf *db = attach->dmabuf->priv;
	u64 npages = db->handle->size >> PAGE_SHIFT;
	struct npu_dmabuf_pages p = { };
	struct sg_table *sgt;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL_ACCOUNT);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	p.pages = kvmalloc_array(npages, sizeof(*p.pages), GFP_KERNEL);
	if (!p.pages) {
		ret = -ENOMEM;
		goto free_sgt;
	}
	ret = npu_dmabuf_walk(db, 0, npages, npu_dmabuf_collect, &p);
	if (!ret && p.n != npages)
		ret = -EIO;	/* never: the blocks cover the handle */
	if (ret)
		goto free_pages;
	/* Segments no longer than the importing device takes. */
	ret = sg_alloc_table_from_pages_segment(sgt, p.pages, npages, 0,
						db->handle->size,
						dma_get_max_seg_size(attach->dev),
						GFP_KERNEL_ACCOUNT);
	if (ret)
		goto free_pages;
	ret = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (ret)
		goto free_table;
	kvfree(p.pages);
	return sgt;

free_table:
	sg_free_table(sgt);
free_pages:
	kvfree(p.pages);
free_sgt:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void npu_dmabuf_unmap(struct dma_buf_attachment *attach,
			     struct sg_table *sgt, enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
}

/* Maps pages one after the other into a VMA. */
struct npu_dmabuf_remap {
	struct vm_area_struct *vma;
	unsigned long addr;
};

static int npu_dmabuf_remap_page(struct page *page, void *priv)
{
	struct npu_dmabuf_remap *r = priv;
	int ret;

	ret = remap_pfn_range(r->vma, r->addr, page_to_pfn(page), PAGE_SIZE,
			      r->vma->vm_page_prot);
	r->addr += PAGE_SIZE;
	return ret;
}

/*
 * A CPU mapping of the fd (the dma-buf core has checked that it lies
 * inside the buffer). remap_pfn_range() makes it VM_PFNMAP | VM_IO |
 * VM_DONTEXPAND | VM_DONTDUMP: no struct page games, no growing with
 * mremap, not in core dumps. The mapping holds the dma-buf's file and so
 * the memory. A private mapping would need copy-on-write of device
 * memory: refused.
 */
static int npu_dmabuf_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct npu_dmabuf *db = dmabuf->priv;
	struct npu_dmabuf_remap r = { .vma = vma, .addr = vma->vm_start };

	/* VM_SHARED is gone from a shared mapping of a read-only file */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	/*
	 * An importer's dma_buf_mmap() maps through its own file, whose mode
	 * says nothing of ours: a read-only buffer is refused writable and
	 * cannot be made writable later (mprotect).
	 */
	if (db->readonly) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		npu_vm_flags_clear(vma, VM_MAYWRITE);
	}
	if (vma->vm_pgoff + vma_pages(vma) > db->handle->size >> PAGE_SHIFT)
		return -EINVAL;
	return npu_dmabuf_walk(db, vma->vm_pgoff, vma_pages(vma),
			       npu_dmabuf_remap_page, &r);
}

/* The last fd, mapping and importer are gone. */
static void npu_dmabuf_release(struct dma_buf *dmabuf)
{
	struct npu_dmabuf *db = dmabuf->priv;

	npu_handle_put(db->handle);
	atomic_long_dec(&db->ctx->nr_dmabufs);
	npu_context_put(db->ctx);
	kfree(db);
}

static const struct dma_buf_ops npu_dmabuf_ops = {
	.map_dma_buf = npu_dmabuf_map,
	.unmap_dma_buf = npu_dmabuf_unmap,
	.release = npu_dmabuf_release,
	.mmap = npu_dmabuf_mmap,
};

int npu_dmabuf_export_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_dmabuf_export_args *a = arg;
	struct npu_dmabuf_export *args = &a->uapi;
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct mem_cgroup *old_memcg;
	struct dma_buf *dmabuf;
	struct npu_handle *handle;
	struct npu_dmabuf *db;
	int ret, fd;

	if (args->flags & ~NPU_DMABUF_FLAGS_MASK || args->__reserved)
		return -EINVAL;
	handle = npu_handle_lookup(ctx, args->handle, NULL);
	if (!handle)
		return -ENOENT;
	/*
	 * An IPC import's exporter may take its memory back at any time; a
	 * dma-buf's importers and CPU mappings could not be told.
	 */
	ret = -EPERM;
	if (handle->ipc)
		goto put_handle;
	/*
	 * A dma-buf's import: its importer has the dma-buf already (another
	 * driver's buffer is no device memory at all, and a read-only file of
	 * npu's own must not come back writable).
	 */
	ret = -EINVAL;
	if (handle->dmabuf)
		goto put_handle;
	ret = -ENOSPC;
	if (!npu_charge(&ctx->nr_dmabufs, 1, READ_ONCE(max_dmabufs)))
		goto put_handle;
	ret = -ENOMEM;
	db = kzalloc(sizeof(*db), GFP_KERNEL_ACCOUNT);
	if (!db)
		goto uncharge;
	db->handle = handle;
	db->ctx = ctx;
	db->huge = handle->page_size >= SZ_2M;
	db->readonly = args->flags & NPU_DMABUF_READONLY;

	/* Back every page now, charged like the engine's writes are. */
	old_memcg = set_active_memcg(ctx->memcg);
	ret = npu_dmabuf_walk(db, 0, handle->size >> PAGE_SHIFT,
			      npu_dmabuf_nop, NULL);
	set_active_memcg(old_memcg);
	if (ret)
		goto free_db;

	exp_info.ops = &npu_dmabuf_ops;
	exp_info.size = handle->size;
	exp_info.flags = args->flags & NPU_DMABUF_READONLY ? O_RDONLY : O_RDWR;
	exp_info.priv = db;
	npu_context_get(ctx);
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf)) {
		npu_context_put(ctx);
		ret = PTR_ERR(dmabuf);
		goto free_db;
	}
	/* From here the dma-buf's release undoes everything above. */
	fd = get_unused_fd_flags(args->flags & NPU_DMABUF_CLOEXEC ?
				 O_CLOEXEC : 0);
	if (fd < 0) {
		dma_buf_put(dmabuf);
		return fd;
	}
	args->fd = fd;
	args->length = handle->size;
	a->dmabuf = dmabuf;
	return 0;

free_db:
	kfree(db);
uncharge:
	atomic_long_dec(&ctx->nr_dmabufs);
put_handle:
	npu_handle_put(handle);
	return ret;
}

/**
 * npu_dmabuf_slice() - a new handle of the memory an npu dma-buf is
 * @dmabuf: any dma-buf
 * @mem: the device memory the handle must be of
 *
 * The handle is the exported handle's memory itself (a slice of it that
 * holds it), so the importer maps device memory, as SHARE_IMPORT's
 * handle would, rather than its pages through host DMA.
 *
 * Return: the handle with one reference; NULL if @dmabuf is not an npu
 * dma-buf of @mem; ERR_PTR(-ENOMEM).
 */
struct npu_handle *npu_dmabuf_slice(struct dma_buf *dmabuf,
				    struct npu_devmem *mem)
{
	struct npu_handle *handle;

	if (dmabuf->ops != &npu_dmabuf_ops)
		return NULL;
	handle = ((struct npu_dmabuf *)dmabuf->priv)->handle;
	if (handle->mem != mem)
		return NULL;
	/* a slice is a window of its parent's blocks: slice the parent */
	if (handle->parent)
		return npu_handle_slice(handle->parent, handle->offset,
					handle->size);
	return npu_handle_slice(handle, 0, handle->size);
}

/*
 * After the ioctl copied the struct out (@ret 0) or failed to (@ret
 * -EFAULT): the fd goes into the table last, once nothing can fail, or
 * the dma-buf goes.
 */
void npu_dmabuf_export_finish(struct npu_context *ctx, void *arg, int ret)
{
	struct npu_dmabuf_export_args *a = arg;

	if (!ret) {
		fd_install(a->uapi.fd, a->dmabuf->file);
		return;
	}
	put_unused_fd(a->uapi.fd);
	dma_buf_put(a->dmabuf);
}
