// SPDX-License-Identifier: GPL-2.0
/*
 * npu: dma-bufs imported as physical handles (DMABUF_IMPORT).
 *
 * Another driver's buffer - a DRM buffer object, a udmabuf of a memfd, a
 * camera's frame - becomes a handle of the context that maps into the
 * device VA as any other: its entries hold the host DMA addresses the
 * exporter maps the buffer at for the NPU's DMA device, which the engine
 * reaches through the IOMMU as a registration's pages. An npu dma-buf of
 * the same device is device memory instead: its import is a slice of the
 * exported handle (npu_dmabuf_slice()).
 *
 * The attachment is dynamic, as RDMA's umem_dmabuf and amdgpu's are: the
 * buffer is mapped under its reservation lock, and an exporter that moves
 * it calls npu_import_move_notify() (that lock held), which makes every
 * translation through the handle's mappings stale before the move goes
 * on - the VA space's mirror protocol: the engine holds an import's entries
 * as it holds a mirror's, across the access, so the invalidation waits for
 * an access in progress and the next one translates again - and gives
 * the mapping back. The next access finds the handle invalid and has it
 * faulted in off the engine's channels (npu_import_fault(), from the
 * stream's fault work): the buffer is mapped again, the exporter's move
 * waited for, and the entries rewritten. Exporters that cannot move (and
 * every exporter on a kernel without CONFIG_DMABUF_MOVE_NOTIFY, where the
 * core pins at map time) never call it; the handle then keeps its first
 * mapping for its life.
 *
 * Locks, in this order: the context's import_lock (mutex: the list of
 * attachments; held while one is torn down), the dma-buf's reservation
 * lock, the VA space's locks. The exporter calls move_notify with the
 * reservation lock held and possibly from its own eviction, so the
 * invalidation takes only the VA space's mirror lock, under which nothing
 * allocates. The attachment is torn down when the handle is freed or when
 * the context shuts down (its process exits, the carrier goes), whichever
 * comes first, so nothing is DMA-unmapped through a carrier that is gone.
 */
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/jiffies.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include <uapi/npu.h>

#include "npu_devmem.h"
#include "npu_dmabuf.h"
#include "npu_dmabuf_import.h"
#include "npu_drv.h"
#include "npu_host.h"
#include "npu_vm.h"

/* How long a fault waits for the exporter to finish moving the buffer. */
#define NPU_IMPORT_MOVE_TIMEOUT	(10 * HZ)

/* Give the buffer's DMA mapping back; the reservation lock held. */
static void npu_import_unmap_locked(struct npu_import *imp)
{
	dma_resv_assert_held(imp->dmabuf->resv);
	if (!imp->sgt)
		return;
	dma_buf_unmap_attachment(imp->attach, imp->sgt, imp->dir);
	imp->sgt = NULL;
}

/*
 * The exporter is about to move the buffer: no access may reach it where
 * it is from the return on. The VA space makes every translation through
 * the handle's entries stale, waiting for an access in progress; then the
 * mapping goes back.
 */
static void npu_import_move_notify(struct dma_buf_attachment *attach)
{
	struct npu_import *imp = attach->importer_priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	if (imp->dead)
		return;
	imp->moves++;
	npu_vm_import_invalidate(&imp->ctx->vm, imp);
	npu_import_unmap_locked(imp);
}

/* No peer-to-peer: the engine reaches host pages only. */
static const struct dma_buf_attach_ops npu_import_attach_ops = {
	.move_notify = npu_import_move_notify,
};

/*
 * The engine maps 4 KiB entries: every DMA segment must start and end on
 * a page, and together they must be the buffer.
 */
static int npu_import_check_sgt(struct sg_table *sgt, u64 size)
{
	struct scatterlist *sg;
	u64 total = 0;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (!IS_ALIGNED(sg_dma_address(sg) | sg_dma_len(sg), SZ_4K))
			return -EINVAL;
		total += sg_dma_len(sg);
	}
	return total == size ? 0 : -EINVAL;
}

/*
 * Make the handle's translations good again: map the buffer for the NPU
 * if it is not (a move took the mapping), wait for the exporter to finish
 * moving it there (until a signal with @intr: an ioctl then restarts, it
 * has changed nothing; else at most NPU_IMPORT_MOVE_TIMEOUT), and have
 * the VA space rewrite the entries of every mapping of it. The
 * reservation lock held.
 */
static int npu_import_validate_locked(struct npu_import *imp, bool intr)
{
	struct dma_resv *resv = imp->dmabuf->resv;
	struct sg_table *sgt;
	long left;
	int ret;

	dma_resv_assert_held(resv);
	if (imp->dead)
		return -ENODEV;
	if (!imp->sgt) {
		sgt = dma_buf_map_attachment(imp->attach, imp->dir);
		if (IS_ERR(sgt))
			return PTR_ERR(sgt);
		ret = npu_import_check_sgt(sgt, imp->dmabuf->size);
		if (ret) {
			dma_buf_unmap_attachment(imp->attach, sgt, imp->dir);
			return ret;
		}
		imp->sgt = sgt;
	}
	/* The table says where the pages will be; a move may still copy. */
	left = dma_resv_wait_timeout(resv, DMA_RESV_USAGE_KERNEL, intr,
				     intr ? MAX_SCHEDULE_TIMEOUT :
					    NPU_IMPORT_MOVE_TIMEOUT);
	if (left < 0)
		return left;	/* -ERESTARTSYS: the ioctl restarts */
	if (!left)
		return -ETIMEDOUT;
	if (imp->valid)
		return 0;
	return npu_vm_import_update(&imp->ctx->vm, imp);
}

/*
 * Tear the attachment down (the context's import_lock held): no access
 * reaches the buffer any more, its mapping goes back, the NPU detaches.
 */
static void npu_import_kill_locked(struct npu_import *imp)
{
	struct dma_resv *resv = imp->dmabuf->resv;

	lockdep_assert_held(&imp->ctx->import_lock);
	list_del_init(&imp->node);
	dma_resv_lock(resv, NULL);
	WRITE_ONCE(imp->dead, true);
	npu_vm_import_invalidate(&imp->ctx->vm, imp);
	npu_import_unmap_locked(imp);
	dma_resv_unlock(resv);
	dma_buf_detach(imp->dmabuf, imp->attach);
	imp->attach = NULL;
}

/**
 * npu_import_free() - the handle of @imp is freed: its last mapping is
 *	gone, so is every access
 * @imp: the import
 *
 * Called with no lock held (npu_vm_release() drops an import's handle
 * after its lock).
 */
void npu_import_free(struct npu_import *imp)
{
	struct npu_context *ctx = imp->ctx;

	mutex_lock(&ctx->import_lock);
	if (!list_empty(&imp->node))
		npu_import_kill_locked(imp);
	mutex_unlock(&ctx->import_lock);
	dma_buf_put(imp->dmabuf);
	npu_context_put(ctx);
	kfree(imp);
}

/**
 * npu_imports_release() - the context shuts down: detach from every
 *	buffer it imported, while the DMA device is still there
 * @ctx: the context, its streams stopped
 *
 * The handles stay (the file's release frees them), dead: nothing maps
 * them again.
 */
void npu_imports_release(struct npu_context *ctx)
{
	struct npu_import *imp;

	mutex_lock(&ctx->import_lock);
	while ((imp = list_first_entry_or_null(&ctx->imports,
					       struct npu_import, node)))
		npu_import_kill_locked(imp);
	mutex_unlock(&ctx->import_lock);
}

/**
 * npu_import_map_begin() - MAP of an import's handle begins: the buffer
 *	is mapped for the NPU and stays so until npu_import_map_end()
 * @imp: the import
 *
 * Takes the reservation lock, which MAP holds outside the VA space's.
 *
 * Return: 0 with the lock held, or an error without it: -ENODEV killed,
 * -ERESTARTSYS a signal, or what the exporter's map answers.
 */
int npu_import_map_begin(struct npu_import *imp)
{
	struct dma_resv *resv = imp->dmabuf->resv;
	int ret;

	if (dma_resv_lock_interruptible(resv, NULL))
		return -ERESTARTSYS;
	ret = npu_import_validate_locked(imp, true);
	if (ret)
		dma_resv_unlock(resv);
	return ret;
}

void npu_import_map_end(struct npu_import *imp)
{
	dma_resv_unlock(imp->dmabuf->resv);
}

/**
 * npu_import_fault() - an access found the handle's translations stale
 *	(the exporter moved the buffer): make them good again
 * @handle: the import's handle (the caller's reference)
 * @why: out, on failure, why the access faults
 *
 * From the stream's fault work, off the engine's channels.
 *
 * Return: 0, or an error with *@why.
 */
int npu_import_fault(struct npu_handle *handle, const char **why)
{
	struct npu_import *imp = handle->import;
	struct dma_resv *resv = imp->dmabuf->resv;
	int ret;

	dma_resv_lock(resv, NULL);
	ret = npu_import_validate_locked(imp, false);
	dma_resv_unlock(resv);
	switch (ret) {
	case 0:
		break;
	case -ENODEV:
		*why = "dma-buf import released";
		break;
	case -ETIMEDOUT:
		*why = "dma-buf exporter did not finish moving the buffer";
		break;
	default:
		*why = "dma-buf could not be mapped again after a move";
		break;
	}
	return ret;
}

/*
 * A handle that is another driver's buffer: attached to the NPU's DMA
 * device, mapped, in the context's list. Takes over the caller's
 * reference to @dmabuf.
 */
static struct npu_handle *npu_import_create(struct npu_context *ctx,
					    struct dma_buf *dmabuf,
					    bool readonly)
{
	struct npu_handle *handle;
	struct npu_import *imp;
	int ret;

	/* Coherent and never bounced, as a registration's pages. */
	ret = -EOPNOTSUPP;
	if (!npu_host_dma_direct(ctx))
		goto put;
	ret = -ENOMEM;
	imp = kzalloc(sizeof(*imp), GFP_KERNEL_ACCOUNT);
	if (!imp)
		goto put;
	imp->dmabuf = dmabuf;
	imp->dir = readonly ? DMA_TO_DEVICE : DMA_BIDIRECTIONAL;
	imp->ctx = ctx;
	INIT_LIST_HEAD(&imp->node);
	INIT_LIST_HEAD(&imp->mappings);
	handle = npu_handle_foreign(ctx->npu->mem, dmabuf->size, imp);
	if (IS_ERR(handle)) {
		kfree(imp);
		ret = PTR_ERR(handle);
		goto put;
	}
	/* From here the handle's free undoes everything. */
	npu_context_get(ctx);
	imp->attach = dma_buf_dynamic_attach(dmabuf, ctx->npu->dma_dev,
					     &npu_import_attach_ops, imp);
	if (IS_ERR(imp->attach)) {
		ret = PTR_ERR(imp->attach);
		imp->attach = NULL;
		goto put_handle;
	}
	mutex_lock(&ctx->import_lock);
	list_add_tail(&imp->node, &ctx->imports);
	mutex_unlock(&ctx->import_lock);

	ret = -ERESTARTSYS;
	if (dma_resv_lock_interruptible(dmabuf->resv, NULL))
		goto put_handle;
	ret = npu_import_validate_locked(imp, true);
	dma_resv_unlock(dmabuf->resv);
	if (ret)
		goto put_handle;
	return handle;

put_handle:
	npu_handle_put(handle);
	return ERR_PTR(ret);
put:
	dma_buf_put(dmabuf);
	return ERR_PTR(ret);
}

int npu_dmabuf_import_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_handle_args *a = arg;
	struct npu_dmabuf_import *args = &a->dmabuf;
	bool readonly = args->flags & NPU_DMABUF_IMPORT_READONLY;
	struct npu_handle *handle;
	struct dma_buf *dmabuf;

	if (args->flags & ~NPU_DMABUF_IMPORT_FLAGS_MASK)
		return -EINVAL;
	if (!args->length || !IS_ALIGNED(args->length, SZ_4K))
		return -EINVAL;
	/* -EBADF no such fd, -EINVAL not a dma-buf */
	dmabuf = dma_buf_get(args->fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	if (dmabuf->size != args->length) {
		dma_buf_put(dmabuf);
		return -EINVAL;
	}
	/* npu's own memory of this device: a handle of that memory itself */
	handle = npu_dmabuf_slice(dmabuf, ctx->npu->mem);
	if (handle)
		dma_buf_put(dmabuf);
	else
		handle = npu_import_create(ctx, dmabuf, readonly);
	if (IS_ERR(handle))
		return PTR_ERR(handle);
	handle->readonly = readonly;
	handle->dmabuf = true;
	args->page_size = handle->page_size;
	a->handle = handle;
	a->type = NPU_OBJ_IMPORT;
	return npu_handle_new_id(ctx, a, &args->handle);
}
