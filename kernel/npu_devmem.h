/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: device memory - the allocator, lazily backed pages, and the
 * physical handles that own allocations.
 */
#ifndef __NPU_DEVMEM_H__
#define __NPU_DEVMEM_H__

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/xarray.h>

#include <uapi/npu.h>

#include "npu_compat.h"
#include "npu_obj.h"

struct npu_context;
struct npu_device;
struct npu_import;
struct npu_ipc_import;
struct npu_share;

/**
 * struct npu_devmem - the memory of one simulated NPU
 * @size: bytes of device memory
 * @lock: protects @buddy, and serialises filling, emptying and wiping
 *	@backing
 * @buddy: allocator of device-physical addresses
 * @used: bytes allocated to handles
 * @peak: the highest @used has been
 * @backing: device page frame number -> struct page, filled on first
 *	write, so an idle 16 GiB device costs nothing. Memory of handles
 *	with 2 MiB or larger pages is backed by 2 MiB compound pages (one
 *	multi-index entry), so the engine moves up to 2 MiB per lookup.
 *	Lookups are lock-free.
 * @backing_pages: 4 KiB pages in @backing
 * @poison: device pages with an uncorrectable error (UCE), by page frame
 *	number: injected by an administrator (NPU_NL_CMD_MEM_POISON), gone
 *	when repaired (NPU_IOCTL_MEM_REPAIR) or when the memory is freed
 *	(the device retires the page). The engine's accesses to them fault.
 */
struct npu_devmem {
	u64 size;
	struct mutex lock;		/* see above */
	struct npu_buddy buddy;
	atomic64_t used;
	atomic64_t peak;
	struct xarray backing;
	atomic_long_t backing_pages;
	struct xarray poison;
};

/**
 * struct npu_handle - a physical allocation in device memory
 * @ref: held by the context's handle table and by each mapping
 * @mem: the device memory it lives in
 * @size: bytes
 * @page_size: granule it was allocated (and is mapped) in
 * @blocks: buddy blocks, each aligned to @page_size
 * @share: its export, or NULL (protected by npu_share_lock)
 * @owner: the context that allocated it, charged for @size until the
 *	memory is freed (a reference to the struct, not the file); NULL for
 *	a slice
 * @parent: a slice (IPC_IMPORT) is a window of another handle's memory:
 *	that handle (a reference), or NULL. A slice has no @blocks of its
 *	own and charges nothing; its @parent does
 * @offset: where a slice starts in @parent, a multiple of @page_size
 * @ipc: a slice's import of its IPC key, which says whether the exporter
 *	has revoked it (npu_ipc_revoked())
 * @import: another driver's dma-buf (DMABUF_IMPORT) that this handle is,
 *	or NULL: such a handle has no @blocks, no @owner and no @parent; its
 *	mappings reach the buffer through host DMA addresses
 * @readonly: imported with NPU_DMABUF_IMPORT_READONLY: no mapping of it
 *	is ever writable
 * @dmabuf: made by DMABUF_IMPORT (either kind): not exported as a dma-buf
 *	again, its importer holds the dma-buf already (and a re-export could
 *	widen what a read-only one allows)
 */
struct npu_handle {
	struct kref ref;
	struct npu_devmem *mem;
	u64 size;
	u64 page_size;
	struct list_head blocks;
	struct npu_share *share;
	struct npu_context *owner;
	struct npu_handle *parent;
	u64 offset;
	struct npu_ipc_import *ipc;
	struct npu_import *import;
	bool readonly;
	bool dmabuf;
};

/**
 * struct npu_handle_args - MEM_ALLOC, SHARE_IMPORT, IPC_IMPORT or
 *	DMABUF_IMPORT as the ioctl table holds it
 * @alloc: the user's struct for MEM_ALLOC...
 * @import: ...or for SHARE_IMPORT and IPC_IMPORT...
 * @dmabuf: ...or for DMABUF_IMPORT
 * @handle: the new handle, its id reserved: npu_ioctl() calls
 *	npu_handle_finish() once the struct is copied out, which publishes it
 * @id: its id
 * @type: NPU_OBJ_HANDLE or NPU_OBJ_IMPORT
 */
struct npu_handle_args {
	union {
		struct npu_mem_alloc alloc;
		struct npu_share_import import;
		struct npu_dmabuf_import dmabuf;
	};
	struct npu_handle *handle;
	u32 id;
	enum npu_obj_type type;
};

struct npu_devmem *npu_devmem_create(u64 size);
void npu_devmem_destroy(struct npu_devmem *mem);
struct page *npu_devmem_page(struct npu_devmem *mem, u64 dpa, bool write,
			     bool huge, u64 *span);

int npu_handle_walk(const struct npu_handle *handle,
		    int (*fn)(void *arg, u64 off, u64 dpa, u64 len), void *arg);
int npu_devmem_poison(struct npu_devmem *mem, u64 dpa);
u64 npu_devmem_clean_len(struct npu_devmem *mem, u64 dpa, u64 len);
bool npu_devmem_poisoned(struct npu_devmem *mem, u64 dpa, u64 len);
bool npu_devmem_repair(struct npu_devmem *mem, u64 dpa);
void npu_devmem_wipe(struct npu_devmem *mem);

struct npu_handle *npu_handle_slice(struct npu_handle *parent, u64 offset,
				    u64 size);
struct npu_handle *npu_handle_foreign(struct npu_devmem *mem, u64 size,
				      struct npu_import *import);
struct npu_handle *npu_handle_lookup(struct npu_context *ctx, u32 id,
				     bool *imported);
bool npu_handle_is(struct npu_context *ctx, u32 id,
		   const struct npu_handle *handle);
void npu_handle_put(struct npu_handle *handle);

/* One more reference to @handle, which the caller holds one of already. */
static inline void npu_handle_get(struct npu_handle *handle)
{
	kref_get(&handle->ref);
}

int npu_handle_new_id(struct npu_context *ctx, struct npu_handle_args *a,
		      u32 *id);
void npu_handle_finish(struct npu_context *ctx, void *arg, int ret);
void npu_handles_release(struct npu_context *ctx);
void npu_devmem_close(struct npu_context *ctx);

/* Visit each device-physical extent of @handle in order. */
#define npu_handle_for_each_block(handle, block) \
	list_for_each_entry(block, &(handle)->blocks, link)

int npu_mem_alloc_ioctl(struct npu_context *ctx, void *arg);
int npu_mem_free_ioctl(struct npu_context *ctx, void *arg);

#endif /* __NPU_DEVMEM_H__ */
