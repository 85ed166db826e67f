// SPDX-License-Identifier: GPL-2.0
/*
 * npu: a context's device VA space - reservations, mappings, host
 * registrations, mirrors' entries, and the page tables behind them.
 *
 * This file owns the VA space's locks and every structure they protect:
 * other files ask for named operations (translate an access, insert or
 * find a registration, add a mirror, install or invalidate its entries)
 * and never take the locks themselves. The trees are maple trees keyed by
 * range, so finding, inserting and checking overlaps cost O(log n)
 * however many mappings a context has. libacl also reserves every device
 * VA range PROT_NONE in the process, so a device pointer is never a host
 * pointer.
 *
 * Locks, in this order: @lock (rwsem), then @mirror_lock (rwsem). @lock
 * protects the trees, the page tables' structure and every mapping's
 * state; ioctls that change them hold it for writing, the engine holds it
 * shared while it moves a chunk, so an unmap never races with an access
 * in progress. @mirror_lock protects the mirrors' entries, the DMA
 * mappings they name, @mirror_seq and @mirror_pages; a mirror's
 * invalidation runs inside the core mm (reclaim included) and takes only
 * it, so nothing allocates under it.
 */
#include <linux/maple_tree.h>
#include <linux/mmu_notifier.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include <uapi/npu.h>

#include "npu_aperture.h"
#include "npu_devmem.h"
#include "npu_dma.h"
#include "npu_dmabuf_import.h"
#include "npu_drv.h"
#include "npu_host.h"
#include "npu_mirror.h"
#include "npu_share.h"
#include "npu_trace.h"
#include "npu_vm.h"

/* Per-context caps on what a user can make the kernel hold. */
static unsigned long max_reservations = 65536;
module_param(max_reservations, ulong, 0644);
MODULE_PARM_DESC(max_reservations, "VA_RESERVE reservations per context (default 65536)");

static unsigned long max_mappings = 65536;
module_param(max_mappings, ulong, 0644);
MODULE_PARM_DESC(max_mappings,
		 "Device VA mappings per context (of device memory, registrations and mirrors) past which MAP refuses (default 65536)");

/*
 * Every VA space, for what must reach all of them: an IPC key's death
 * (npu_vm_cpu_zap_all()) and an aperture looking for its process's peer
 * contexts. Taken before any VA space's @lock, never inside one.
 */
static LIST_HEAD(npu_vms);
static DEFINE_MUTEX(npu_vms_lock);

/**
 * struct npu_vm_watch - an accessor's aperture showing a peer's pages
 * @node: in the accessor's @watched, under its @peer_lock
 * @peer_node: in the peer's @watchers, under the peer's @lock
 * @vm: the accessor's VA space, whose aperture inode the peer zaps
 * @peer: the peer context (a reference, until the accessor shuts down)
 */
struct npu_vm_watch {
	struct list_head node;
	struct list_head peer_node;
	struct npu_vm *vm;
	struct npu_context *peer;
};

static void npu_vm_cpu_unmap(struct inode *inode, u64 start, u64 size)
{
	if (inode)
		unmap_mapping_range(inode->i_mapping, start, size, 1);
}

/*
 * CPU mappings of [@start, +@size) through the aperture (every process's;
 * @size 0: all of them) go, and so do those of the apertures of contexts
 * that reach this VA space as a peer (device VAs are one per process, so
 * the same range): the next CPU access translates again. Under @vm's
 * lock for writing, after the change of the translation.
 */
static void npu_vm_cpu_zap_locked(struct npu_vm *vm, u64 start, u64 size)
{
	struct npu_vm_watch *w;

	lockdep_assert_held_write(&vm->lock);
	npu_vm_cpu_unmap(vm->cpu_inode, start, size);
	/* an accessor's inode is set before its first page is mapped */
	list_for_each_entry(w, &vm->watchers, peer_node)
		npu_vm_cpu_unmap(READ_ONCE(w->vm->cpu_inode), start, size);
}

int npu_vm_init(struct npu_vm *vm, unsigned int device)
{
	int ret;

	init_rwsem(&vm->lock);
	mt_init(&vm->reservations);
	mt_init(&vm->mappings);
	mt_init(&vm->host_regs);
	init_rwsem(&vm->mirror_lock);
	vm->device = device;
	INIT_LIST_HEAD(&vm->watchers);
	init_rwsem(&vm->peer_lock);
	INIT_LIST_HEAD(&vm->watched);
	ret = npu_pt_init(&vm->pt);
	if (ret)
		return ret;
	mutex_lock(&npu_vms_lock);
	list_add_tail(&vm->node, &npu_vms);
	mutex_unlock(&npu_vms_lock);
	return 0;
}

/*
 * The context shuts down: no device reaches this VA space from now on
 * (peer copies from other contexts fault), and fdinfo says so.
 */
void npu_vm_kill(struct npu_vm *vm)
{
	down_write(&vm->lock);
	WRITE_ONCE(vm->dead, true);
	/* the whole aperture: a CPU access faults from here on too */
	npu_vm_cpu_zap_locked(vm, 0, 0);
	up_write(&vm->lock);
}

/* Has the context shut down? (fdinfo, netlink: no lock) */
bool npu_vm_dead(const struct npu_vm *vm)
{
	return READ_ONCE(vm->dead);
}

/*
 * Free what is left once the context is gone: no DMA of its own, no
 * ioctl runs, no registration or mirror left. Under the lock for writing:
 * another context's engine may still look at this VA space for a peer
 * copy, and finds it dead before it touches anything.
 */
void npu_vm_release(struct npu_vm *vm)
{
	struct npu_mapping *map, *next;
	struct npu_reservation *resv;
	unsigned long index = 0;
	LIST_HEAD(imports);

	mutex_lock(&npu_vms_lock);
	list_del_init(&vm->node);
	mutex_unlock(&npu_vms_lock);
	down_write(&vm->lock);
	WRITE_ONCE(vm->dead, true);
	mt_for_each(&vm->mappings, map, index, ULONG_MAX) {
		trace_npu_va_unmap(vm, map);
		/* an import's handle is let go after the lock (its free locks) */
		if (map->handle && map->handle->import) {
			list_move(&map->import_node, &imports);
			continue;
		}
		if (map->handle)
			npu_handle_put(map->handle);
		kfree(map);
		cond_resched();
	}
	mtree_destroy(&vm->mappings);
	index = 0;
	mt_for_each(&vm->reservations, resv, index, ULONG_MAX)
		kfree(resv);
	mtree_destroy(&vm->reservations);
	mtree_destroy(&vm->host_regs);
	npu_pt_destroy(&vm->pt);
	up_write(&vm->lock);
	list_for_each_entry_safe(map, next, &imports, import_node) {
		npu_handle_put(map->handle);
		kfree(map);
	}
}

/**
 * npu_vm_range_valid() - a device VA range as every caller must give it
 * @addr: first byte
 * @size: bytes
 * @align: what both must be aligned to
 *
 * Return: whether the range is aligned, non-empty, does not wrap and lies
 * inside the device VA window.
 */
bool npu_vm_range_valid(u64 addr, u64 size, u64 align)
{
	u64 end;

	if (!size || !IS_ALIGNED(addr | size, align))
		return false;
	if (check_add_overflow(addr, size, &end))
		return false;
	return addr >= NPU_VA_START && end <= NPU_VA_END;
}

static int npu_va_insert(struct maple_tree *mt, u64 start, u64 size,
			 void *entry)
{
	int ret = mtree_insert_range(mt, start, start + size - 1, entry,
				     GFP_KERNEL_ACCOUNT);

	return ret == -EEXIST ? -EADDRINUSE : ret;
}

/* The page-table attributes of NPU_ACCESS_* rights. */
static u32 npu_access_attrs(u32 access)
{
	return (access & NPU_ACCESS_READ ? NPU_PT_READ : 0) |
	       (access == NPU_ACCESS_READWRITE ? NPU_PT_WRITE : 0);
}

/* ---- mappings ---------------------------------------------------------- */

/* Insert @map into the tree and its reservation; the caller fills the PTEs. */
static int npu_mapping_insert_locked(struct npu_vm *vm, struct npu_mapping *map)
{
	int ret;

	lockdep_assert_held_write(&vm->lock);
	ret = npu_va_insert(&vm->mappings, map->start, map->size, map);
	if (!ret) {
		map->resv->mappings++;
		WRITE_ONCE(vm->nr_mappings, vm->nr_mappings + 1);
	}
	return ret;
}

/* A reservation of its own (a MAPPED registration's, a mirror's)? */
static bool npu_resv_owned(const struct npu_reservation *resv)
{
	return resv->owner || resv->mirror;
}

/*
 * Take @map out of the VA space: its entries (a mirror's are its own to
 * clear first), the tree, and its reservation if it was its own. The
 * caller frees @map and drops what it holds.
 */
static void npu_mapping_remove_locked(struct npu_vm *vm, struct npu_mapping *map,
				      bool traced)
{
	struct npu_reservation *resv = map->resv;

	lockdep_assert_held_write(&vm->lock);
	if (traced)
		trace_npu_va_unmap(vm, map);
	if (!map->mirror)
		npu_pt_unmap(&vm->pt, map->start, map->size);
	npu_vm_cpu_zap_locked(vm, map->start, map->size);
	if (map->handle && map->handle->import)
		list_del_init(&map->import_node);
	mtree_erase(&vm->mappings, map->start);
	resv->mappings--;
	WRITE_ONCE(vm->nr_mappings, vm->nr_mappings - 1);
	if (npu_resv_owned(resv)) {
		mtree_erase(&vm->reservations, resv->start);
		npu_pt_prune(&vm->pt, resv->start, resv->size);
		kfree(resv);
	}
}

/*
 * A mapping with a reservation of its own at [@start, @start + @size):
 * both in their trees, no entries yet. The caller sets what the
 * reservation belongs to in @resv first.
 */
static int npu_mapping_add_owned_locked(struct npu_vm *vm,
					struct npu_reservation *resv,
					struct npu_mapping *map)
{
	int ret;

	lockdep_assert_held_write(&vm->lock);
	map->resv = resv;
	ret = npu_va_insert(&vm->reservations, resv->start, resv->size, resv);
	if (ret)
		return ret;
	ret = npu_mapping_insert_locked(vm, map);
	if (ret)
		mtree_erase(&vm->reservations, resv->start);
	return ret;
}

/* ---- the engine -------------------------------------------------------- */

/*
 * Hold @vm and a @peer VA space (or NULL) for the engine's accesses. Two
 * are taken in address order, so two copies between the same two
 * contexts in opposite directions cannot deadlock.
 */
void npu_vm_read_lock(struct npu_vm *vm, struct npu_vm *peer)
{
	if (peer && vm > peer)
		swap(vm, peer);
	down_read(&vm->lock);
	if (peer)
		down_read_nested(&peer->lock, SINGLE_DEPTH_NESTING);
}

void npu_vm_read_unlock(struct npu_vm *vm, struct npu_vm *peer)
{
	if (peer)
		up_read(&peer->lock);
	up_read(&vm->lock);
}

/*
 * An access through an imported dma-buf's entries, @vm's lock held: good
 * only while the exporter has not moved the buffer, so it is held as a
 * mirror's entries are (@xl->mirrored, npu_vm_mirror_hold()): a move's
 * invalidation clears @valid and moves the mirror sequence under the
 * mirror lock. A stale import is faulted in again (@xl->refault) unless
 * it is dead. Returns NULL or why the access cannot go on.
 */
static const char *npu_vm_import_check(struct npu_handle *handle,
				       struct npu_vm_xlate *xl)
{
	struct npu_import *imp = handle->import;

	/* after @xl->seq's acquire: an invalidation since moved it */
	if (READ_ONCE(imp->valid)) {
		xl->mirrored = true;
		return NULL;
	}
	if (READ_ONCE(imp->dead))
		return "dma-buf import released";
	npu_handle_get(handle);
	xl->refault = handle;
	return "dma-buf moved by its exporter";
}

/**
 * npu_vm_translate_locked() - translate one device access as the MMU does
 * @vm: the VA space @va belongs to
 * @va: device VA
 * @device: the device whose DMA engine makes the access: @vm's own, or a
 *	peer, which reaches only mappings whose peer rights grant it
 * @peers: for a peer, the devices its accessing context enabled
 *	(PEER_ENABLE): @vm's device must be one of them
 * @write: the access writes
 * @xl: out, the translation
 *
 * Every permission is checked here, for the own device (the page-table
 * entry's rights) and for peers (the accessor's peer access, then the
 * mapping's rights), and whether an IPC import's exporter took its
 * memory back. A mirror's entry, and an imported dma-buf's, is good only
 * while the mirror sequence is still @xl->seq: npu_vm_mirror_hold() says.
 *
 * Return: NULL, or why the access faults.
 */
const char *npu_vm_translate_locked(struct npu_vm *vm, u64 va,
				    unsigned int device, unsigned long peers,
				    bool write, struct npu_vm_xlate *xl)
{
	u32 need = write ? NPU_PT_WRITE : NPU_PT_READ;
	struct npu_pt_walk walk;
	const char *why;
	int ret;

	lockdep_assert_held(&vm->lock);
	xl->fault = NULL;
	xl->refault = NULL;
	/*
	 * Before the walk: an invalidation after it moves the value. Pairs
	 * with the release in npu_vm_mirror_clear_locked().
	 */
	xl->seq = smp_load_acquire(&vm->mirror_seq);
	if (device != vm->device) {
		u32 access = write ? NPU_ACCESS_READWRITE : NPU_ACCESS_READ;
		struct npu_mapping *map;

		/* Its trees and tables are being freed or gone: touch nothing. */
		if (vm->dead)
			return "peer context closed";
		if (!(peers & BIT(vm->device)))
			return "peer access disabled";
		map = mtree_load(&vm->mappings, va);
		if (!map || (!map->peers &&
			     (map->peer_access[device] & access) != access))
			return "no peer access";
	}
	ret = npu_pt_walk(&vm->pt, va, &walk);
	if (ret || (device == vm->device && !(walk.attrs & need))) {
		/* Not there yet, or read-only so far: the engine faults it in. */
		if (device == vm->device) {
			struct npu_mapping *map = mtree_load(&vm->mappings, va);

			if (map && map->mirror) {
				xl->fault = map->mirror;
				npu_mirror_get(map->mirror);
				return "mirror fault";
			}
			/* an import's entries that a failed update cleared */
			if (ret && map && map->handle && map->handle->import) {
				why = npu_vm_import_check(map->handle, xl);
				if (why)
					return why;
			}
		}
		if (ret)
			return "not mapped";
		return write ? "no write access" : "no read access";
	}
	xl->mirrored = walk.mirror;
	xl->revocable = walk.attrs & NPU_PT_REVOCABLE;
	if (xl->revocable) {
		struct npu_mapping *map = mtree_load(&vm->mappings, va);

		if (map && map->handle && map->handle->import) {
			why = npu_vm_import_check(map->handle, xl);
			if (why)
				return why;
		} else if (!map || npu_ipc_revoked(map->handle)) {
			return "IPC memory revoked by its exporter";
		}
	}
	xl->addr = walk.addr;
	xl->left = walk.left;
	xl->system = walk.attrs & NPU_PT_SYSTEM;
	xl->huge = walk.leaf >= SZ_2M;
	return NULL;
}

/**
 * npu_vm_mirror_hold() - keep the mirror entries of @vm as they are for an
 *	access through a translation made under mirror sequence @seq
 * @vm: the VA space
 * @seq: npu_vm_xlate.seq of the translation
 *
 * An invalidation waits until npu_vm_mirror_unhold(); the DMA addresses
 * the entries name stay mapped until then.
 *
 * Return: true if held; false (nothing held) if an invalidation came
 * since: translate again.
 */
bool npu_vm_mirror_hold(struct npu_vm *vm, u64 seq)
{
	down_read(&vm->mirror_lock);
	if (vm->mirror_seq == seq)
		return true;
	up_read(&vm->mirror_lock);
	return false;
}

void npu_vm_mirror_unhold(struct npu_vm *vm)
{
	up_read(&vm->mirror_lock);
}

/* ---- the VA ioctls ----------------------------------------------------- */

int npu_va_reserve_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_va_range *args = arg;
	struct npu_reservation *resv;
	struct npu_vm *vm = &ctx->vm;
	int ret;

	if (args->flags || !npu_vm_range_valid(args->addr, args->length, SZ_4K))
		return -EINVAL;
	resv = kzalloc(sizeof(*resv), GFP_KERNEL_ACCOUNT);
	if (!resv)
		return -ENOMEM;
	resv->start = args->addr;
	resv->size = args->length;

	down_write(&vm->lock);
	if (vm->nr_reservations >= READ_ONCE(max_reservations))
		ret = -ENOSPC;
	else
		ret = npu_va_insert(&vm->reservations, resv->start, resv->size,
				    resv);
	if (!ret)
		WRITE_ONCE(vm->nr_reservations, vm->nr_reservations + 1);
	up_write(&vm->lock);
	if (ret)
		kfree(resv);
	return ret;
}

int npu_va_release_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_va_range *args = arg;
	struct npu_reservation *resv;
	struct npu_vm *vm = &ctx->vm;
	int ret = 0;

	if (args->flags)
		return -EINVAL;
	down_write(&vm->lock);
	resv = mtree_load(&vm->reservations, args->addr);
	if (!resv || resv->start != args->addr) {
		ret = -ENOENT;
	} else if (npu_resv_owned(resv) || resv->mappings) {
		ret = -EBUSY;
	} else {
		mtree_erase(&vm->reservations, resv->start);
		WRITE_ONCE(vm->nr_reservations, vm->nr_reservations - 1);
		npu_pt_prune(&vm->pt, resv->start, resv->size);
	}
	up_write(&vm->lock);
	if (!ret)
		kfree(resv);
	return ret;
}

struct npu_map_walk {
	struct npu_vm *vm;
	struct npu_mapping *map;
};

/*
 * An imported dma-buf's mapping: its entries name the buffer's DMA
 * segments as the import maps them now (its reservation lock held).
 */
static int npu_map_import_locked(struct npu_vm *vm, struct npu_mapping *map)
{
	struct sg_table *sgt = map->handle->import->sgt;
	u32 attrs = npu_access_attrs(map->access) | NPU_PT_SYSTEM |
		    NPU_PT_REVOCABLE;
	struct scatterlist *sg;
	u64 va = map->start;
	unsigned int i;
	int ret;

	lockdep_assert_held_write(&vm->lock);
	for_each_sgtable_dma_sg(sgt, sg, i) {
		ret = npu_pt_map(&vm->pt, va, sg_dma_address(sg),
				 sg_dma_len(sg), attrs, NPU_PAGE_1G);
		if (ret) {
			npu_pt_unmap(&vm->pt, map->start, va - map->start);
			return ret;
		}
		va += sg_dma_len(sg);
	}
	return 0;
}

/* One extent of the handle: its entries. */
static int npu_map_extent_locked(void *arg, u64 off, u64 dpa, u64 len)
{
	struct npu_map_walk *w = arg;
	struct npu_mapping *map = w->map;
	int ret;

	ret = npu_pt_map(&w->vm->pt, map->start + off, dpa, len,
			 npu_access_attrs(map->access) |
			 (map->handle->ipc ? NPU_PT_REVOCABLE : 0),
			 map->handle->page_size);
	if (ret)
		npu_pt_unmap(&w->vm->pt, map->start, off);
	return ret;
}

static int npu_map_handle_locked(struct npu_vm *vm, struct npu_mapping *map)
{
	struct npu_map_walk w = { .vm = vm, .map = map };
	int ret;

	lockdep_assert_held_write(&vm->lock);
	if (!map->handle->import)
		return npu_handle_walk(map->handle, npu_map_extent_locked, &w);
	ret = npu_map_import_locked(vm, map);
	if (!ret)
		list_add_tail(&map->import_node, &map->handle->import->mappings);
	return ret;
}

int npu_map_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_map *args = arg;
	struct npu_vm *vm = &ctx->vm;
	struct npu_reservation *resv;
	struct npu_handle *handle;
	struct npu_mapping *map;
	int ret;

	if (args->flags & ~NPU_MAP_FLAGS_MASK || args->__reserved ||
	    args->offset)
		return -EINVAL;
	handle = npu_handle_lookup(ctx, args->handle, NULL);
	if (!handle)
		return -ENOENT;
	ret = -EINVAL;
	if (args->length != handle->size ||
	    !npu_vm_range_valid(args->addr, args->length, handle->page_size))
		goto put_handle;
	/* Another driver's buffer is DMA-mapped for this device only. */
	if (handle->import && (args->flags & NPU_MAP_PEERS))
		goto put_handle;
	ret = -ENOMEM;
	map = kzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	if (!map)
		goto put_handle;
	INIT_LIST_HEAD(&map->import_node);
	map->start = args->addr;
	map->size = args->length;
	map->handle = handle;
	map->peers = args->flags & NPU_MAP_PEERS;
	/* The buffer stays where it is mapped now until the entries are in. */
	if (handle->import) {
		ret = npu_import_map_begin(handle->import);
		if (ret)
			goto free_map;
	}

	down_write(&vm->lock);
	resv = mtree_load(&vm->reservations, map->start);
	if (!resv || npu_resv_owned(resv) ||
	    map->start + map->size > resv->start + resv->size) {
		ret = -ENOENT;
		goto unlock;
	}
	map->resv = resv;
	if (vm->nr_mappings >= READ_ONCE(max_mappings)) {
		ret = -ENOSPC;
		goto unlock;
	}
	ret = npu_mapping_insert_locked(vm, map);
	if (ret)
		goto unlock;
	ret = npu_map_handle_locked(vm, map);
	if (ret)
		npu_mapping_remove_locked(vm, map, false);
	else
		trace_npu_va_map(vm, map);
unlock:
	up_write(&vm->lock);
	if (handle->import)
		npu_import_map_end(handle->import);
	if (!ret)
		return 0;
free_map:
	kfree(map);
put_handle:
	npu_handle_put(handle);
	return ret;
}

int npu_unmap_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_unmap *args = arg;
	struct npu_vm *vm = &ctx->vm;
	struct npu_mapping *map;

	if (args->flags)
		return -EINVAL;
	down_write(&vm->lock);
	map = mtree_load(&vm->mappings, args->addr);
	if (!map || map->start != args->addr || !map->handle) {
		up_write(&vm->lock);
		return -ENOENT;
	}
	npu_mapping_remove_locked(vm, map, true);
	up_write(&vm->lock);

	/* before the free: no new mapping can have this address yet */
	npu_ipc_revoke_mapping(ctx, map);
	npu_handle_put(map->handle);
	kfree(map);
	return 0;
}

int npu_set_access_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_access *args = arg;
	u64 end = args->addr + args->length, va;
	struct npu_vm *vm = &ctx->vm;
	struct npu_mapping *map;
	bool peer;
	int ret = 0;

	if (args->flags)
		return -EINVAL;
	if (args->access != NPU_ACCESS_NONE && args->access != NPU_ACCESS_READ &&
	    args->access != NPU_ACCESS_READWRITE)
		return -EINVAL;
	if (!npu_vm_range_valid(args->addr, args->length, SZ_4K))
		return -EINVAL;
	if (args->device >= npu_device_count())
		return -ENODEV;
	peer = args->device != ctx->npu->index;

	down_write(&vm->lock);
	/* Check the whole range before changing any of it. */
	for (va = args->addr; va < end; va = map->start + map->size) {
		map = mtree_load(&vm->mappings, va);
		if (!map) {
			ret = -ENOENT;
			goto unlock;
		}
		/*
		 * Host memory and other drivers' buffers are DMA-mapped for
		 * their own device only; a mirror's rights are the process's.
		 */
		if (map->start < args->addr || map->start + map->size > end ||
		    (peer && (map->host ||
			      (map->handle && map->handle->import))) ||
		    map->mirror) {
			ret = -EINVAL;
			goto unlock;
		}
		if (args->access == NPU_ACCESS_READWRITE &&
		    ((map->host && (map->host->flags & NPU_HOST_READONLY)) ||
		     (map->handle && map->handle->readonly))) {
			ret = -EACCES;
			goto unlock;
		}
	}
	for (va = args->addr; va < end; va = map->start + map->size) {
		map = mtree_load(&vm->mappings, va);
		if (peer) {
			map->peer_access[args->device] = args->access;
			/* the peers' apertures: a right narrowed, or not */
			npu_vm_cpu_zap_locked(vm, map->start, map->size);
			continue;
		}
		map->access = args->access;
		npu_pt_protect(&vm->pt, map->start, map->size,
			       npu_access_attrs(args->access));
		npu_vm_cpu_zap_locked(vm, map->start, map->size);
	}
	trace_npu_va_set_access(vm, args->addr, args->length, args->device,
				args->access);
unlock:
	up_write(&vm->lock);
	return ret;
}

int npu_get_access_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_access *args = arg;
	struct npu_vm *vm = &ctx->vm;
	struct npu_mapping *map;
	int ret = 0;

	if (args->flags || args->length)
		return -EINVAL;
	if (args->device >= npu_device_count())
		return -ENODEV;
	down_read(&vm->lock);
	map = mtree_load(&vm->mappings, args->addr);
	if (!map)
		ret = -ENOENT;
	else if (args->device == ctx->npu->index)
		args->access = map->access;
	else if (map->peers)
		args->access = NPU_ACCESS_READWRITE;
	else
		args->access = map->peer_access[args->device];
	up_read(&vm->lock);
	return ret;
}

int npu_addr_query_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_addr_query *args = arg;
	struct npu_addr_query out = { .size = args->size, .addr = args->addr };
	struct npu_vm *vm = &ctx->vm;
	struct npu_reservation *resv;
	struct npu_host_reg *reg;
	struct npu_mapping *map;

	if (args->flags)
		return -EINVAL;

	down_read(&vm->lock);
	reg = mtree_load(&vm->host_regs, out.addr);
	if (reg) {
		out.kind = NPU_ADDR_HOST;
		out.base = reg->addr;
		out.length = reg->size;
		out.host_flags = reg->flags;
		out.page_size = PAGE_SIZE;
		if (reg->mapping) {
			out.mapped = 1;
			out.dev_addr = reg->dev_addr + (out.addr - reg->addr);
			out.access = reg->mapping->access;
		}
		goto unlock;
	}
	resv = mtree_load(&vm->reservations, out.addr);
	if (!resv)
		goto unlock;
	if (resv->mirror) {
		out.kind = NPU_ADDR_MIRROR;
		out.base = resv->start;
		out.length = resv->size;
		out.dev_addr = out.addr;
		out.page_size = PAGE_SIZE;
		out.mapped = 1;
		out.access = NPU_ACCESS_READWRITE;
		goto unlock;
	}
	out.kind = NPU_ADDR_DEVICE;
	out.base = resv->start;
	out.length = resv->size;
	map = mtree_load(&vm->mappings, out.addr);
	if (map) {
		out.mapped = 1;
		out.access = map->access;
		out.page_size = map->handle ? map->handle->page_size : PAGE_SIZE;
	}
unlock:
	up_read(&vm->lock);
	*args = out;
	return 0;
}

/**
 * npu_vm_with_memory() - call @fn with the mapping of device memory that
 *	holds a range, the VA space held
 * @vm: the VA space
 * @addr: first byte
 * @length: bytes, non-zero
 * @fn: gets the mapping; an UNMAP of it waits until @fn returns
 * @arg: for @fn
 *
 * Return: what @fn returns, or -ENOENT if no mapping of a handle of
 * device memory (not host memory, not a mirror, not another driver's
 * dma-buf) holds all of [@addr, @addr + @length).
 */
int npu_vm_with_memory(struct npu_vm *vm, u64 addr, u64 length,
		       int (*fn)(const struct npu_mapping *map, void *arg),
		       void *arg)
{
	struct npu_mapping *map;
	u64 end;
	int ret = -ENOENT;

	if (check_add_overflow(addr, length, &end))
		return -ENOENT;
	down_read(&vm->lock);
	map = mtree_load(&vm->mappings, addr);
	if (map && map->handle && !map->handle->import &&
	    end <= map->start + map->size)
		ret = fn(map, arg);
	up_read(&vm->lock);
	return ret;
}

/**
 * npu_vm_walk_memory() - call @fn with each mapping of device memory
 * @vm: the VA space, held for reading meanwhile
 * @fn: gets each mapping of a handle of device memory (not another
 *	driver's dma-buf) in address order; non-zero stops
 * @arg: for @fn
 *
 * Return: 0, or what @fn returned.
 */
int npu_vm_walk_memory(struct npu_vm *vm,
		       int (*fn)(const struct npu_mapping *map, void *arg),
		       void *arg)
{
	struct npu_mapping *map;
	unsigned long index = 0;
	int ret = 0;

	down_read(&vm->lock);
	mt_for_each(&vm->mappings, map, index, ULONG_MAX) {
		if (map->handle && !map->handle->import)
			ret = fn(map, arg);
		if (ret)
			break;
	}
	up_read(&vm->lock);
	return ret;
}

/* ---- host registrations ------------------------------------------------ */

/* Does a registration overlap [@addr, @addr + @length)? */
bool npu_vm_host_overlaps(struct npu_vm *vm, u64 addr, u64 length)
{
	unsigned long index = addr;
	struct npu_host_reg *reg;

	down_read(&vm->lock);
	reg = mt_find(&vm->host_regs, &index, addr + length - 1);
	up_read(&vm->lock);
	return reg;
}

/* Map a MAPPED registration's DMA segments at its device VA. */
static int npu_vm_map_host_locked(struct npu_vm *vm, struct npu_host_reg *reg)
{
	struct npu_reservation *resv;
	struct npu_mapping *map;
	struct scatterlist *sg;
	u64 va = reg->dev_addr;
	unsigned int i;
	u32 attrs;
	int ret;

	lockdep_assert_held_write(&vm->lock);
	resv = kzalloc(sizeof(*resv), GFP_KERNEL_ACCOUNT);
	map = kzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	ret = -ENOMEM;
	if (!resv || !map)
		goto free;
	resv->start = reg->dev_addr;
	resv->size = reg->size;
	resv->owner = reg;
	map->start = reg->dev_addr;
	map->size = reg->size;
	map->host = reg;
	map->access = reg->flags & NPU_HOST_READONLY ? NPU_ACCESS_READ :
						       NPU_ACCESS_READWRITE;
	ret = npu_mapping_add_owned_locked(vm, resv, map);
	if (ret)
		goto free;

	attrs = npu_access_attrs(map->access) | NPU_PT_SYSTEM;
	for_each_sgtable_dma_sg(&reg->pages.sgt, sg, i) {
		ret = npu_pt_map(&vm->pt, va, sg_dma_address(sg),
				 sg_dma_len(sg), attrs, NPU_PAGE_1G);
		if (ret) {
			npu_mapping_remove_locked(vm, map, false);
			kfree(map);
			return ret;
		}
		va += sg_dma_len(sg);
	}
	reg->mapping = map;
	trace_npu_va_map(vm, map);
	return 0;

free:
	kfree(map);
	kfree(resv);
	return ret;
}

/**
 * npu_vm_host_insert() - add a pinned and DMA-mapped registration
 * @vm: the VA space
 * @reg: the registration; with a @dev_addr, also mapped there
 *
 * Return: 0, -EEXIST an overlap (or -EADDRINUSE at the device VA),
 * -ENOMEM.
 */
int npu_vm_host_insert(struct npu_vm *vm, struct npu_host_reg *reg)
{
	int ret;

	down_write(&vm->lock);
	ret = mtree_insert_range(&vm->host_regs, reg->addr,
				 reg->addr + reg->size - 1, reg,
				 GFP_KERNEL_ACCOUNT);
	if (!ret && reg->dev_addr) {
		ret = npu_vm_map_host_locked(vm, reg);
		if (ret)
			mtree_erase(&vm->host_regs, reg->addr);
	}
	if (!ret)
		WRITE_ONCE(vm->nr_host_regs, vm->nr_host_regs + 1);
	up_write(&vm->lock);
	return ret;
}

/**
 * npu_vm_host_get() - the registration holding a user range, for a command
 * @vm: the VA space
 * @addr: user address
 * @size: bytes from @addr, all inside one registration
 *
 * Return: the registration with a user's reference (npu_host_reg_put()),
 * or NULL.
 */
struct npu_host_reg *npu_vm_host_get(struct npu_vm *vm, u64 addr, u64 size)
{
	struct npu_host_reg *reg;

	down_read(&vm->lock);
	reg = mtree_load(&vm->host_regs, addr);
	if (reg && addr + size <= reg->addr + reg->size)
		npu_host_reg_hold(reg);
	else
		reg = NULL;
	up_read(&vm->lock);
	return reg;
}

/**
 * npu_vm_host_remove() - take a registration out of the VA space
 * @vm: the VA space
 * @addr: where it starts, or with @any any registration
 * @any: the first one there is (for the context's shutdown)
 *
 * No command finds it afterwards; its device mapping is gone.
 *
 * Return: it, with the tree's reference now the caller's, or NULL.
 */
struct npu_host_reg *npu_vm_host_remove(struct npu_vm *vm, u64 addr, bool any)
{
	unsigned long index = 0;
	struct npu_host_reg *reg;

	down_write(&vm->lock);
	if (any)
		reg = mt_find(&vm->host_regs, &index, ULONG_MAX);
	else
		reg = mtree_load(&vm->host_regs, addr);
	if (reg && (any || reg->addr == addr)) {
		mtree_erase(&vm->host_regs, reg->addr);
		WRITE_ONCE(vm->nr_host_regs, vm->nr_host_regs - 1);
		if (reg->mapping) {
			npu_mapping_remove_locked(vm, reg->mapping, true);
			kfree(reg->mapping);
			reg->mapping = NULL;
		}
	} else {
		reg = NULL;
	}
	up_write(&vm->lock);
	return reg;
}

/* ---- imported dma-bufs ------------------------------------------------- */

/**
 * npu_vm_import_update() - make the entries of every mapping of an
 *	imported dma-buf name where the buffer is mapped now, and the
 *	translations through them good
 * @vm: the VA space of the importing context
 * @imp: the import, mapped (@imp->sgt), its reservation lock held
 *
 * Return: 0, or -ENOMEM: the entries are then cleared and the import
 * stays stale, so the next access tries again.
 */
int npu_vm_import_update(struct npu_vm *vm, struct npu_import *imp)
{
	struct npu_mapping *map;
	int ret = 0;

	down_write(&vm->lock);
	list_for_each_entry(map, &imp->mappings, import_node) {
		npu_pt_unmap(&vm->pt, map->start, map->size);
		if (!ret)
			ret = npu_map_import_locked(vm, map);
	}
	WRITE_ONCE(imp->valid, !ret);
	up_write(&vm->lock);
	return ret;
}

/**
 * npu_vm_import_invalidate() - an imported dma-buf moves: translations
 *	through its entries are stale from the return on
 * @vm: the VA space of the importing context
 * @imp: the import, its reservation lock held
 *
 * Waits for an access in progress through the entries (the engine holds
 * them as it holds a mirror's, npu_vm_mirror_hold()). Takes only the
 * mirror lock and allocates nothing: the exporter may move the buffer to
 * reclaim memory. The entries stay, unused, until npu_vm_import_update()
 * rewrites them.
 */
void npu_vm_import_invalidate(struct npu_vm *vm, struct npu_import *imp)
{
	down_write(&vm->mirror_lock);
	if (imp->valid) {
		WRITE_ONCE(imp->valid, false);
		/* after @valid: pairs with npu_vm_translate_locked()'s acquire */
		smp_store_release(&vm->mirror_seq, vm->mirror_seq + 1);
	}
	up_write(&vm->mirror_lock);
}

/* ---- the aperture: CPU accesses ---------------------------------------- */

/**
 * npu_vm_cpu_inode() - the aperture's inode, or NULL before the first
 * @vm: the VA space
 */
struct inode *npu_vm_cpu_inode(struct npu_vm *vm)
{
	struct inode *inode;

	down_read(&vm->lock);
	inode = vm->cpu_inode;
	up_read(&vm->lock);
	return inode;
}

/**
 * npu_vm_cpu_attach() - make @inode the aperture's, unless one is already:
 *	from now on, translations that change take their pages out of its
 *	mapping
 * @vm: the VA space
 * @inode: a new inode; the VA space takes over its reference if it
 *	becomes the aperture's
 *
 * Return: the aperture's inode: @inode, or the one there was (the caller
 * then puts @inode).
 */
struct inode *npu_vm_cpu_attach(struct npu_vm *vm, struct inode *inode)
{
	down_write(&vm->lock);
	if (!vm->cpu_inode)
		WRITE_ONCE(vm->cpu_inode, inode);
	inode = vm->cpu_inode;
	up_write(&vm->lock);
	return inode;
}

/* Let go of what a failed translation holds (npu_vm_translate_locked()). */
static void npu_vm_xlate_put(struct npu_vm_xlate *xl)
{
	if (xl->fault)
		npu_mirror_put(xl->fault);
	if (xl->refault)
		npu_handle_put(xl->refault);
	xl->fault = NULL;
	xl->refault = NULL;
}

/*
 * Translate a CPU access at @va as @device's engine would: writable if a
 * write is allowed (and the CPU mapping may write), else for reading if
 * @write is not asked. @vm is the aperture's own VA space (@device its
 * own), or a peer's with the accessor's @peers. Return: NULL with
 * *@writable, or why it faults (with @xl->fault, the mirror whose page
 * the access needs faulted in).
 */
static const char *npu_vm_cpu_translate_locked(struct npu_vm *vm, u64 va,
					       unsigned int device,
					       unsigned long peers,
					       bool write, bool may_write,
					       bool *writable,
					       struct npu_vm_xlate *xl)
{
	const char *why = "no write access";
	struct npu_mapping *map;

	*writable = false;
	if (may_write) {
		why = npu_vm_translate_locked(vm, va, device, peers, true, xl);
		*writable = !why;
	}
	if (why && !write) {
		/* a read-only mirror entry, say: good for a read */
		npu_vm_xlate_put(xl);
		why = npu_vm_translate_locked(vm, va, device, peers, false, xl);
	}
	/*
	 * Not through the aperture yet: another driver's dma-buf, which its
	 * exporter may move at any time without @vm's lock. A mirror's
	 * entry is mapped under the mirror hold; an IPC import's revocation
	 * takes every VA space's lock and zaps (npu_vm_cpu_zap_all()).
	 */
	if (!why && xl->revocable) {
		map = mtree_load(&vm->mappings, va);
		if (map && map->handle && map->handle->import)
			why = "not reachable through the aperture";
	}
	return why;
}

/* apply_to_page_range()'s: the PTE's table is all that is asked for. */
static int npu_vm_cpu_pte_table(pte_t *pte, unsigned long addr, void *data)
{
	return 0;
}

/*
 * Map a mirrored page: the page the engine would DMA to, the IOMMU's
 * answer for the entry's DMA address, under the mirror hold of the
 * translation, so that an invalidation that clears the entry waits for
 * the PTE and then takes it out (npu_vm_mirror_invalidate()). Nothing
 * allocates under the hold (an invalidation inside reclaim waits for
 * it): the PTE's table is made first.
 */
static vm_fault_t npu_vm_cpu_insert_mirrored(struct npu_vm *vm,
					     struct npu_device *npu,
					     struct vm_area_struct *vma,
					     unsigned long addr,
					     const struct npu_vm_xlate *xl,
					     pgprot_t prot)
{
	unsigned long pfn;
	vm_fault_t ret = VM_FAULT_SIGBUS;

	if (apply_to_page_range(vma->vm_mm, addr, PAGE_SIZE,
				npu_vm_cpu_pte_table, NULL))
		return VM_FAULT_OOM;
	/* an invalidation since the translation: the access translates again */
	if (!npu_vm_mirror_hold(vm, xl->seq))
		return VM_FAULT_NOPAGE;
	pfn = PHYS_PFN(npu_dma_host_phys(npu, xl->addr));
	if (pfn) {
		/* seen by every invalidation after the hold: it zaps */
		WRITE_ONCE(vm->mirror_cpu, true);
		ret = vmf_insert_pfn_prot(vma, addr, pfn, prot);
	}
	npu_vm_mirror_unhold(vm);
	return ret;
}

/*
 * One VA space's try at a CPU fault of the aperture of @via: @vm is @via
 * itself, or a peer whose pages @via's device reaches. *@miss: @vm maps
 * nothing at the address (a peer may). @fault: as npu_vm_cpu_fault()'s,
 * for @via's own VA space only (NULL for a peer's: its mirrors are not
 * reached through another device's aperture).
 */
static vm_fault_t npu_vm_cpu_fault_one(struct npu_vm *vm, struct npu_vm *via,
				       unsigned long peers,
				       struct npu_device *npu,
				       struct mem_cgroup *memcg,
				       struct vm_fault *vmf, bool mkwrite,
				       bool *miss, struct npu_mirror **fault)
{
	struct vm_area_struct *vma = vmf->vma;
	bool write = mkwrite || (vmf->flags & FAULT_FLAG_WRITE);
	unsigned long addr = vmf->address & PAGE_MASK;
	u64 va = (u64)vmf->pgoff << PAGE_SHIFT;
	struct inode *inode = READ_ONCE(via->cpu_inode);
	vm_fault_t ret = VM_FAULT_SIGBUS;
	struct mem_cgroup *old_memcg;
	struct npu_vm_xlate xl = {};
	unsigned long pfn;
	bool writable;
	struct page *page;
	pgprot_t prot;
	u64 span;

	*miss = false;
	if (fault)
		*fault = NULL;
	down_read(&vm->lock);
	if (vm->dead || !inode || vma->vm_file->f_mapping != inode->i_mapping)
		goto unlock;
	if (npu_vm_cpu_translate_locked(vm, va, via->device, peers, write,
					vma->vm_flags & VM_WRITE, &writable,
					&xl)) {
		*miss = !mtree_load(&vm->mappings, va);
		if (!xl.fault || !fault)
			goto unlock;
		/* the retried write faults the page in for writing */
		if (mkwrite) {
			zap_vma_ptes(vma, addr, PAGE_SIZE);
			ret = VM_FAULT_NOPAGE;
			goto unlock;
		}
		*fault = xl.fault;
		xl.fault = NULL;
		goto unlock;
	}
	if (mkwrite) {
		zap_vma_ptes(vma, addr, PAGE_SIZE);
		ret = VM_FAULT_NOPAGE;
		goto unlock;
	}
	/* the mapping's own protection: write-protected (pfn_mkwrite) */
	prot = writable ? vm_get_page_prot(vma->vm_flags) : vma->vm_page_prot;
	if (xl.mirrored) {
		/* a peer's invalidations zap only its own aperture */
		if (vm == via)
			ret = npu_vm_cpu_insert_mirrored(vm, npu, vma, addr,
							 &xl, prot);
		goto unlock;
	}
	if (xl.system) {
		pfn = PHYS_PFN(npu_dma_host_phys(npu, xl.addr));
		if (!pfn)
			goto unlock;
	} else {
		/* @npu is @vm's device: a peer's memory is its own */
		ret = VM_FAULT_HWPOISON;
		if (!npu_devmem_clean_len(npu->mem, xl.addr, PAGE_SIZE))
			goto unlock;
		/*
		 * Backed even for a read, charged as the engine's first
		 * write is: the zero page the engine reads instead would
		 * stay mapped when the engine's write backs the page later.
		 */
		old_memcg = set_active_memcg(memcg);
		page = npu_devmem_page(npu->mem, xl.addr, true, xl.huge, &span);
		set_active_memcg(old_memcg);
		ret = VM_FAULT_SIGBUS;
		if (IS_ERR(page))
			goto unlock;
		pfn = page_to_pfn(page);
	}
	ret = vmf_insert_pfn_prot(vma, addr, pfn, prot);
unlock:
	up_read(&vm->lock);
	/* a moved dma-buf: not through the aperture */
	npu_vm_xlate_put(&xl);
	return ret;
}

/*
 * Watch the VA spaces of the process's contexts on the devices in @want
 * that @vm's aperture watches none of yet: from now on their changes zap
 * its pages, and its faults look there.
 */
static void npu_vm_peer_find(struct npu_vm *vm, unsigned long want)
{
	struct npu_context *ctx = container_of(vm, struct npu_context, vm);
	struct npu_vm_watch *w, *tmp, *old;
	unsigned long devs = 0;
	struct npu_vm *pvm;
	LIST_HEAD(found);

	mutex_lock(&npu_vms_lock);
	list_for_each_entry(pvm, &npu_vms, node) {
		struct npu_context *peer = container_of(pvm, struct npu_context,
							vm);

		if (!(want & BIT(pvm->device)) || pvm == vm ||
		    peer->mm != ctx->mm || READ_ONCE(pvm->dead))
			continue;
		w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
		if (!w)
			break;
		/* listed: its file is not released, so it is alive */
		npu_context_get(peer);
		w->peer = peer;
		w->vm = vm;
		list_add_tail(&w->node, &found);
		devs |= BIT(pvm->device);
	}
	mutex_unlock(&npu_vms_lock);

	down_write(&vm->peer_lock);
	list_for_each_entry_safe(w, tmp, &found, node) {
		bool dup = vm->peers_closed;

		list_for_each_entry(old, &vm->watched, node)
			dup |= old->peer == w->peer;
		if (dup)
			continue;
		down_write(&w->peer->vm.lock);
		list_add_tail(&w->peer_node, &w->peer->vm.watchers);
		up_write(&w->peer->vm.lock);
		list_move_tail(&w->node, &vm->watched);
	}
	WRITE_ONCE(vm->watched_devs, vm->watched_devs | devs);
	up_write(&vm->peer_lock);
	list_for_each_entry_safe(w, tmp, &found, node) {
		npu_context_put(w->peer);
		kfree(w);
	}
}

/*
 * A CPU fault at an address @vm maps nothing at: the pages of a peer that
 * @vm's device may reach (PEER_ENABLE, the mapping's peer rights), as
 * its engine reaches them. The peer access is checked, and the page
 * mapped, under @peer_lock (PEER_DISABLE then zaps) and the peer's @lock
 * (its changes then zap: the watch).
 */
static vm_fault_t npu_vm_peer_fault(struct npu_vm *vm, struct vm_fault *vmf,
				    bool mkwrite)
{
	struct npu_context *ctx = container_of(vm, struct npu_context, vm);
	vm_fault_t ret = VM_FAULT_SIGBUS;
	struct npu_vm_watch *w;
	unsigned long peers;
	bool miss = true;

	peers = READ_ONCE(ctx->peers);
	if (!peers)
		return VM_FAULT_SIGBUS;
	if (peers & ~READ_ONCE(vm->watched_devs))
		npu_vm_peer_find(vm, peers);
	down_read(&vm->peer_lock);
	/* after @peer_lock: a PEER_DISABLE before it zaps after */
	peers = READ_ONCE(ctx->peers);
	list_for_each_entry(w, &vm->watched, node) {
		ret = npu_vm_cpu_fault_one(&w->peer->vm, vm, peers,
					   w->peer->npu, w->peer->memcg, vmf,
					   mkwrite, &miss, NULL);
		if (!miss)
			break;
	}
	up_read(&vm->peer_lock);
	return miss ? VM_FAULT_SIGBUS : ret;
}

/**
 * npu_vm_cpu_fault() - a CPU access through the aperture (DOC: npu
 *	aperture): map the page the device's engine would reach there
 * @vm: the VA space
 * @npu: its device
 * @memcg: charged for a device page the access backs
 * @vmf: the fault; the aperture maps device VA v at CPU VA v
 * @mkwrite: a write to a page mapped read-only (vm_ops->pfn_mkwrite)
 * @fault: out, for a fault (not @mkwrite) at a mirrored page not faulted
 *	in (or only for reading, for a write): the mirror, a reference, for
 *	the caller to fault the page in with the fault's lock dropped
 *	(npu_aperture.c); else NULL
 *
 * The page is mapped under @vm's lock, so a change of the translation
 * after it takes it out again (npu_vm_cpu_zap_locked()). A write to a page mapped
 * read-only is allowed only by taking that page out under the lock, so
 * that the retried write maps it again, writable, with the rights of
 * that moment (a read-only PTE made writable later by the core mm could
 * be a newer one than the rights were checked for); a write to a mirrored
 * page mapped for reading is let through the same way, and its fault
 * then faults the page in for writing. An address @vm maps nothing at is
 * looked up in the process's peer contexts the device may reach
 * (npu_vm_peer_fault()), under the peer's lock: its changes zap this
 * aperture too.
 *
 * Return: VM_FAULT_NOPAGE when the access may go (again), else
 * VM_FAULT_SIGBUS (VM_FAULT_HWPOISON for a device page with an
 * uncorrectable error). A device page that cannot be backed (no memory,
 * the memory cgroup at its limit) is SIGBUS too, as for the engine: a
 * fault, never a reason to retry or to OOM-kill. With *@fault, the
 * return value is not the answer yet.
 */
vm_fault_t npu_vm_cpu_fault(struct npu_vm *vm, struct npu_device *npu,
			    struct mem_cgroup *memcg, struct vm_fault *vmf,
			    bool mkwrite, struct npu_mirror **fault)
{
	vm_fault_t ret;
	bool miss;

	ret = npu_vm_cpu_fault_one(vm, vm, 0, npu, memcg, vmf, mkwrite, &miss,
				   fault);
	if (miss)
		ret = npu_vm_peer_fault(vm, vmf, mkwrite);
	return ret;
}

/**
 * npu_vm_cpu_zap_all() - an IPC key died: no aperture maps its pages any
 *	more (imports of it in any context, and the peers that see them)
 *
 * Each VA space's lock is taken in turn, after the key is marked revoked:
 * a fault that checked it before has mapped its page by then, and it is
 * zapped; any later one sees the revocation. Rare, so the whole of each
 * aperture goes.
 */
void npu_vm_cpu_zap_all(void)
{
	struct npu_vm *vm;

	mutex_lock(&npu_vms_lock);
	list_for_each_entry(vm, &npu_vms, node) {
		down_write(&vm->lock);
		if (!vm->dead)
			npu_vm_cpu_zap_locked(vm, 0, 0);
		up_write(&vm->lock);
		cond_resched();
	}
	mutex_unlock(&npu_vms_lock);
}

/**
 * npu_vm_peer_disabled() - the context's PEER_DISABLE cleared a device:
 *	no page of a peer stays mapped in its aperture
 * @vm: the VA space of the context
 */
void npu_vm_peer_disabled(struct npu_vm *vm)
{
	down_write(&vm->peer_lock);
	npu_vm_cpu_unmap(READ_ONCE(vm->cpu_inode), 0, 0);
	up_write(&vm->peer_lock);
}

/**
 * npu_vm_peers_release() - the context shuts down: its aperture watches no
 *	peer any more and maps none of their pages (after npu_vm_kill())
 * @vm: the VA space of the context
 */
void npu_vm_peers_release(struct npu_vm *vm)
{
	struct npu_vm_watch *w, *tmp;
	LIST_HEAD(gone);

	down_write(&vm->peer_lock);
	vm->peers_closed = true;
	list_for_each_entry(w, &vm->watched, node) {
		down_write(&w->peer->vm.lock);
		list_del(&w->peer_node);
		up_write(&w->peer->vm.lock);
	}
	list_splice_init(&vm->watched, &gone);
	/* a fault through a peer that ran until now */
	npu_vm_cpu_unmap(READ_ONCE(vm->cpu_inode), 0, 0);
	up_write(&vm->peer_lock);
	list_for_each_entry_safe(w, tmp, &gone, node) {
		npu_context_put(w->peer);
		kfree(w);
	}
}

/* ---- mirrors ----------------------------------------------------------- */

/**
 * npu_vm_mirror_add() - book device VA [@mirror->start, + @mirror->size)
 *	for @mirror: a reservation and one mapping over it, no entries yet
 * @vm: the VA space
 * @mirror: the mirror, its notifier watching the range already
 * @max: mirrors the context may have
 *
 * From here its invalidations clear its entries (it is @live).
 *
 * Return: 0, -EINVAL outside the window, -EADDRINUSE, -ENOSPC at @max,
 * -ENOMEM.
 */
int npu_vm_mirror_add(struct npu_vm *vm, struct npu_mirror *mirror,
		      unsigned int max)
{
	struct npu_reservation *resv;
	struct npu_mapping *map;
	int ret;

	if (!npu_vm_range_valid(mirror->start, mirror->size, SZ_4K))
		return -EINVAL;
	resv = kzalloc(sizeof(*resv), GFP_KERNEL_ACCOUNT);
	map = kzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	ret = -ENOMEM;
	if (!resv || !map)
		goto free;
	resv->start = mirror->start;
	resv->size = mirror->size;
	resv->mirror = mirror;
	map->start = mirror->start;
	map->size = mirror->size;
	map->mirror = mirror;
	map->access = NPU_ACCESS_READWRITE;

	down_write(&vm->lock);
	ret = vm->nr_mirrors >= max ? -ENOSPC :
	      npu_mapping_add_owned_locked(vm, resv, map);
	if (!ret) {
		vm->nr_mirrors++;
		down_write(&vm->mirror_lock);
		mirror->live = true;
		up_write(&vm->mirror_lock);
		trace_npu_va_map(vm, map);
	}
	up_write(&vm->lock);
	if (!ret)
		return 0;
free:
	kfree(map);
	kfree(resv);
	return ret;
}

/* npu_pt_clear_runs()'s callback: @arg is the mirror the runs are of. */
static void npu_vm_mirror_unmap_run(void *arg, u64 dma, unsigned long npages,
				    bool write)
{
	npu_mirror_unmap_run(arg, dma, npages, write);
}

/*
 * Clear the mirror entries of [@start, @end) - whole runs, so maybe a few
 * pages on either side too - and DMA-unmap their pages. Neither allocates
 * nor sleeps (some invalidations may not block). Any translation the
 * engine made before is stale from here on: @mirror_seq moves (release,
 * after the entries are gone; npu_vm_translate_locked() acquires it).
 */
static bool npu_vm_mirror_clear_locked(struct npu_vm *vm,
				       struct npu_mirror *mirror, u64 start,
				       u64 end)
{
	unsigned long n;

	lockdep_assert_held_write(&vm->mirror_lock);
	n = npu_pt_clear_runs(&vm->pt, start, end, npu_vm_mirror_unmap_run,
			      mirror);
	if (n) {
		vm->mirror_pages -= n;
		/* after the entries: pairs with npu_vm_translate_locked()'s acquire */
		smp_store_release(&vm->mirror_seq, vm->mirror_seq + 1);
	}
	return n;
}

/*
 * What clearing the entries of [@start, @end) of @mirror may clear: whole
 * runs, so up to a run's pages on either side, inside the mirror.
 */
static void npu_vm_mirror_run_span(const struct npu_mirror *mirror, u64 *start,
				   u64 *end)
{
	u64 slack = (NPU_PT_RUN_MAX - 1) * PAGE_SIZE;

	*start = *start - mirror->start > slack ? *start - slack : mirror->start;
	*end = min(*end + slack, mirror->start + mirror->size);
}

/**
 * npu_vm_mirror_invalidate() - the core mm changes [@start, @end) of
 *	@mirror's range: its entries there go before the change completes
 * @vm: the VA space
 * @mirror: the mirror
 * @start: first byte, inside the mirror
 * @end: first byte past, inside the mirror
 * @blockable: the caller may sleep; else only a trylock is tried
 * @cur_seq: the notifier's new sequence, set under the same lock
 *
 * Waits for the engine's accesses through the entries (they hold the
 * entries: npu_vm_mirror_hold()), and for the aperture's faults that map
 * their pages (npu_vm_cpu_insert_mirrored()). Once a mirrored page was
 * mapped through the aperture, the aperture's PTEs of the entries cleared
 * go too, after the mirror lock is released (a zap takes the aperture
 * mappings' locks and runs their mms' own invalidations): every PTE
 * mapped under the hold was mapped before the entries were cleared, and
 * no fault maps them again once they are gone, so none is left when this
 * returns.
 *
 * Return: false if it could not take the lock, or would have to zap,
 * without blocking.
 */
bool npu_vm_mirror_invalidate(struct npu_vm *vm, struct npu_mirror *mirror,
			      u64 start, u64 end, bool blockable,
			      unsigned long cur_seq)
{
	struct inode *zap = NULL;

	if (blockable)
		down_write(&vm->mirror_lock);
	else if (!down_write_trylock(&vm->mirror_lock))
		return false;
	if (!blockable && vm->mirror_cpu && mirror->live && start < end) {
		up_write(&vm->mirror_lock);
		return false;
	}
	mmu_interval_set_seq(&mirror->notifier, cur_seq);
	if (mirror->live && start < end &&
	    npu_vm_mirror_clear_locked(vm, mirror, start, end) &&
	    vm->mirror_cpu)
		zap = vm->cpu_inode;
	up_write(&vm->mirror_lock);
	if (zap) {
		npu_vm_mirror_run_span(mirror, &start, &end);
		npu_aperture_zap_sync(zap, start, end - start);
	}
	return true;
}

/**
 * npu_vm_mirror_remove() - take the mirror at @addr out of the VA space
 * @vm: the VA space
 * @addr: where it starts
 * @expect: only this mirror, or NULL for any
 *
 * Its entries are cleared and DMA-unmapped in the same step that marks it
 * @dead, while its notifier still keeps them current: the engine reaches
 * the pages only through them, and a fault in progress checks @dead under
 * the same lock.
 *
 * Return: the mirror (the VA space's reference now the caller's), or NULL.
 */
struct npu_mirror *npu_vm_mirror_remove(struct npu_vm *vm, u64 addr,
					const struct npu_mirror *expect)
{
	struct npu_mirror *mirror = NULL;
	struct npu_mapping *map;

	down_write(&vm->lock);
	map = mtree_load(&vm->mappings, addr);
	if (map && map->mirror && map->start == addr &&
	    (!expect || map->mirror == expect)) {
		mirror = map->mirror;
		mirror->dead = true;
		vm->nr_mirrors--;
		down_write(&vm->mirror_lock);
		npu_vm_mirror_clear_locked(vm, mirror, mirror->start,
					   mirror->start + mirror->size);
		mirror->live = false;
		up_write(&vm->mirror_lock);
		npu_mapping_remove_locked(vm, map, true);
		kfree(map);
	}
	up_write(&vm->lock);
	return mirror;
}

/* A mirror of the VA space (a reference: npu_mirror_put()), or NULL. */
struct npu_mirror *npu_vm_mirror_first(struct npu_vm *vm)
{
	struct npu_reservation *resv;
	struct npu_mirror *mirror = NULL;
	unsigned long index = 0;

	down_read(&vm->lock);
	mt_for_each(&vm->reservations, resv, index, ULONG_MAX) {
		if (resv->mirror) {
			mirror = resv->mirror;
			npu_mirror_get(mirror);
			break;
		}
	}
	up_read(&vm->lock);
	return mirror;
}

/**
 * npu_vm_mirror_fault_range() - how far a fault from @start may go
 * @vm: the VA space
 * @mirror: the mirror faulting
 * @start: the page needed
 * @end: in, where the fault would end; out, not past an entry that is
 *	there already, nor past what max_mirror_pages (@limit) leaves room for
 * @limit: entries the context may hold
 *
 * Return: 0, or -ENOENT if the mirror is out of the VA space.
 */
int npu_vm_mirror_fault_range(struct npu_vm *vm, struct npu_mirror *mirror,
			      u64 start, u64 *end, unsigned long limit)
{
	unsigned long room;
	u64 p;

	down_read(&vm->lock);
	/* Dead: its tables may be gone with the context's (npu_vm_release()). */
	if (mirror->dead) {
		up_read(&vm->lock);
		return -ENOENT;
	}
	room = limit - min(READ_ONCE(vm->mirror_pages), limit);
	*end = min(*end, start + max(room, 1UL) * PAGE_SIZE);
	for (p = start + PAGE_SIZE; p < *end; p += PAGE_SIZE) {
		if (npu_pt_present(&vm->pt, p)) {
			*end = p;
			break;
		}
	}
	up_read(&vm->lock);
	return 0;
}

/**
 * npu_vm_mirror_install() - install a fault's runs of pages
 * @vm: the VA space
 * @mirror: the mirror they are of
 * @va: device VA of the fault's first page
 * @end: first byte past the fault
 * @write: the entries are writable (a write fault), else read-only
 * @runs: the runs, DMA-mapped (by the mirror), in order
 * @nr: how many
 * @seq: the notifier sequence the pages were looked up under
 * @limit: entries the context may hold (max_mirror_pages)
 * @done: out, the end of the last run installed
 *
 * Under both locks: the tables are made first (the VA space's lock), then
 * the notifier is asked whether an invalidation came since @seq (none can
 * come while the mirror lock is held) and the runs replace what is there.
 * A run goes in whole or not at all. Runs not installed stay the caller's
 * to DMA-unmap. The entries replaced may be whole runs around the new
 * ones: the aperture's PTEs of them go first, under the VA space's lock
 * that the aperture's faults take too, so no PTE is left of an entry that
 * an invalidation no longer finds.
 *
 * Return: how many runs went in (at least the first, which the access
 * needs), or -ENOENT the mirror is out of the VA space, -EAGAIN an
 * invalidation came (look the pages up again), -ENOSPC @limit, -ENOMEM.
 */
int npu_vm_mirror_install(struct npu_vm *vm, struct npu_mirror *mirror, u64 va,
			  u64 end, bool write, const struct npu_mirror_run *runs,
			  unsigned int nr, unsigned long seq,
			  unsigned long limit, u64 *done)
{
	unsigned int j;
	int ret;

	down_write(&vm->lock);
	ret = mirror->dead ? -ENOENT : npu_pt_prepare(&vm->pt, va, end - va);
	if (ret)
		goto unlock;
	if (vm->mirror_cpu) {
		u64 start = va, last = end;

		npu_vm_mirror_run_span(mirror, &start, &last);
		npu_vm_cpu_zap_locked(vm, start, last - start);
	}
	down_write(&vm->mirror_lock);
	if (mmu_interval_read_retry(&mirror->notifier, seq)) {
		ret = -EAGAIN;
		goto unlock_mirror;
	}
	for (j = 0; j < nr; j++) {
		u64 addr = va + ((u64)runs[j].first << PAGE_SHIFT);
		u64 size = (u64)runs[j].pages << PAGE_SHIFT;

		npu_vm_mirror_clear_locked(vm, mirror, addr, addr + size);
		if (vm->mirror_pages + runs[j].pages > limit)
			break;
		/* npu_pt_prepare() made the table; a run is inside it */
		if (npu_pt_set_run(&vm->pt, addr, runs[j].dma, runs[j].pages,
				   write))
			break;
		vm->mirror_pages += runs[j].pages;
		*done = addr + size;
	}
	ret = j ? j : -ENOSPC;
unlock_mirror:
	up_write(&vm->mirror_lock);
unlock:
	up_write(&vm->lock);
	return ret;
}
