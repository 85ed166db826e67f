// SPDX-License-Identifier: GPL-2.0
/*
 * npu: device VA space - reservations, mappings and access rights.
 *
 * Both live in maple trees keyed by range, so finding, inserting and
 * checking overlaps cost O(log n) however many mappings a context has.
 * libacl also reserves every device VA range PROT_NONE in the process, so
 * a device pointer is never a host pointer.
 */
#include <linux/maple_tree.h>
#include <linux/overflow.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include <uapi/npu.h>

#include "npu_devmem.h"
#include "npu_drv.h"
#include "npu_host.h"
#include "npu_mirror.h"
#include "npu_share.h"
#include "npu_trace.h"
#include "npu_vm.h"

int npu_vm_init(struct npu_vm *vm, unsigned int device)
{
	init_rwsem(&vm->lock);
	mt_init(&vm->reservations);
	mt_init(&vm->mappings);
	mt_init(&vm->host_regs);
	init_rwsem(&vm->mirror_lock);
	vm->device = device;
	return npu_pt_init(&vm->pt);
}

/* Free what is left once the context is gone: no DMA, no ioctl runs. */
void npu_vm_release(struct npu_vm *vm)
{
	struct npu_reservation *resv;
	struct npu_mapping *map;
	unsigned long index = 0;

	mt_for_each(&vm->mappings, map, index, ULONG_MAX) {
		trace_npu_va_unmap(vm, map);
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
	npu_pt_destroy(&vm->pt);
}

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
 * entry's bits) and for peers (the accessor's peer access, then the
 * mapping's rights).
 *
 * Return: NULL, or why the access faults.
 */
const char *npu_vm_translate_locked(struct npu_vm *vm, u64 va,
				    unsigned int device, unsigned long peers,
				    bool write, struct npu_vm_xlate *xl)
{
	struct npu_pt_walk walk;
	int ret;

	lockdep_assert_held(&vm->lock);
	xl->fault = NULL;
	if (device != vm->device) {
		struct npu_mapping *map = mtree_load(&vm->mappings, va);
		u32 need = write ? NPU_ACCESS_READWRITE : NPU_ACCESS_READ;

		if (vm->dead)
			return "peer context closed";
		if (!(peers & BIT(vm->device)))
			return "peer access disabled";
		if (!map || (!map->peers &&
			     (map->peer_access[device] & need) != need))
			return "no peer access";
	}
	ret = npu_pt_walk(&vm->pt, va, &walk);
	if (ret || (device == vm->device &&
		    !(walk.pte & (write ? NPU_PTE_WRITE : NPU_PTE_READ)))) {
		/* Not there yet, or read-only so far: the engine faults it in. */
		if (device == vm->device) {
			struct npu_mapping *map = mtree_load(&vm->mappings, va);

			if (map && map->mirror) {
				xl->fault = map->mirror;
				npu_mirror_get(map->mirror);
				return "mirror fault";
			}
		}
		if (ret)
			return "not mapped";
		return write ? "no write access" : "no read access";
	}
	xl->mirrored = walk.pte & NPU_PTE_MIRROR;
	/* A mirror's run is one DMA mapping: one piece for the engine. */
	if (xl->mirrored) {
		u64 *pte = npu_pt_lookup(&vm->pt, va);
		unsigned int idx = (va >> PAGE_SHIFT) & (NPU_PT_ENTRIES - 1);

		while (++idx < NPU_PT_ENTRIES &&
		       (READ_ONCE(*++pte) & NPU_PTE_MIRROR_TAIL))
			walk.left += PAGE_SIZE;
	}
	xl->addr = walk.addr;
	xl->left = walk.left;
	xl->system = walk.pte & NPU_PTE_SYSTEM;
	xl->huge = walk.leaf >= SZ_2M;
	return NULL;
}

/* A device VA range: aligned, non-empty, not wrapping, inside the window. */
static bool npu_va_range_valid(u64 addr, u64 size, u64 align)
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

static u64 npu_access_pte(u32 access)
{
	return (access & NPU_ACCESS_READ ? NPU_PTE_READ : 0) |
	       (access == NPU_ACCESS_READWRITE ? NPU_PTE_WRITE : 0);
}

int npu_va_reserve_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_va_range *args = arg;
	struct npu_reservation *resv;
	int ret;

	if (args->flags || !npu_va_range_valid(args->addr, args->length, SZ_4K))
		return -EINVAL;
	resv = kzalloc(sizeof(*resv), GFP_KERNEL_ACCOUNT);
	if (!resv)
		return -ENOMEM;
	resv->start = args->addr;
	resv->size = args->length;

	down_write(&ctx->vm.lock);
	ret = npu_va_insert(&ctx->vm.reservations, resv->start, resv->size, resv);
	up_write(&ctx->vm.lock);
	if (ret)
		kfree(resv);
	return ret;
}

int npu_va_release_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_va_range *args = arg;
	struct npu_reservation *resv;
	int ret = 0;

	if (args->flags)
		return -EINVAL;
	down_write(&ctx->vm.lock);
	resv = mtree_load(&ctx->vm.reservations, args->addr);
	if (!resv || resv->start != args->addr) {
		ret = -ENOENT;
	} else if (resv->owner || resv->mappings) {
		ret = -EBUSY;
	} else {
		mtree_erase(&ctx->vm.reservations, resv->start);
		npu_pt_prune(&ctx->vm.pt, resv->start, resv->size);
	}
	up_write(&ctx->vm.lock);
	if (!ret)
		kfree(resv);
	return ret;
}

/* Insert @map into the tree and its reservation; the caller fills the PTEs. */
static int npu_mapping_insert_locked(struct npu_vm *vm, struct npu_mapping *map)
{
	int ret;

	lockdep_assert_held_write(&vm->lock);
	ret = npu_va_insert(&vm->mappings, map->start, map->size, map);
	if (!ret)
		map->resv->mappings++;
	return ret;
}

static void npu_mapping_remove_locked(struct npu_vm *vm, struct npu_mapping *map)
{
	lockdep_assert_held_write(&vm->lock);
	trace_npu_va_unmap(vm, map);
	npu_pt_unmap(&vm->pt, map->start, map->size);
	mtree_erase(&vm->mappings, map->start);
	map->resv->mappings--;
}

static int npu_map_handle_locked(struct npu_vm *vm, struct npu_mapping *map)
{
	struct npu_handle *handle = map->handle;
	/* a slice maps its window of the parent's blocks */
	struct npu_handle *base = handle->parent ?: handle;
	u64 skip = handle->offset, left = handle->size, va = map->start;
	struct npu_buddy_block *block;
	int ret;

	lockdep_assert_held_write(&vm->lock);
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
		ret = npu_pt_map(&vm->pt, va, dpa, size,
				 npu_access_pte(map->access),
				 handle->page_size);
		if (ret) {
			npu_pt_unmap(&vm->pt, map->start, va - map->start);
			return ret;
		}
		va += size;
		left -= size;
		if (!left)
			break;
	}
	return 0;
}

int npu_map_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_map *args = arg;
	struct npu_reservation *resv;
	struct npu_handle *handle;
	struct npu_mapping *map;
	int ret;

	if (args->flags & ~NPU_MAP_FLAGS_MASK || args->__reserved ||
	    args->offset)
		return -EINVAL;
	handle = npu_handle_lookup(ctx, args->handle);
	if (!handle)
		return -ENOENT;
	ret = -EINVAL;
	if (args->length != handle->size ||
	    !npu_va_range_valid(args->addr, args->length, handle->page_size))
		goto put_handle;
	ret = -ENOMEM;
	map = kzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	if (!map)
		goto put_handle;
	map->start = args->addr;
	map->size = args->length;
	map->handle = handle;
	map->peers = args->flags & NPU_MAP_PEERS;

	down_write(&ctx->vm.lock);
	resv = mtree_load(&ctx->vm.reservations, map->start);
	if (!resv || resv->owner || resv->mirror ||
	    map->start + map->size > resv->start + resv->size) {
		ret = -ENOENT;
		goto unlock;
	}
	map->resv = resv;
	ret = npu_mapping_insert_locked(&ctx->vm, map);
	if (ret)
		goto unlock;
	ret = npu_map_handle_locked(&ctx->vm, map);
	if (ret) {
		mtree_erase(&ctx->vm.mappings, map->start);
		resv->mappings--;
	} else {
		trace_npu_va_map(&ctx->vm, map);
	}
unlock:
	up_write(&ctx->vm.lock);
	if (!ret)
		return 0;
	kfree(map);
put_handle:
	npu_handle_put(handle);
	return ret;
}

int npu_unmap_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_unmap *args = arg;
	struct npu_mapping *map;

	if (args->flags)
		return -EINVAL;
	down_write(&ctx->vm.lock);
	map = mtree_load(&ctx->vm.mappings, args->addr);
	if (!map || map->start != args->addr || !map->handle) {
		up_write(&ctx->vm.lock);
		return -ENOENT;
	}
	npu_mapping_remove_locked(&ctx->vm, map);
	up_write(&ctx->vm.lock);

	/* before the free: no new mapping can have this address yet */
	npu_ipc_revoke_mapping(ctx, map);
	npu_handle_put(map->handle);
	kfree(map);
	return 0;
}

/**
 * npu_vm_memory_locked() - the mapping of device memory holding a range
 * @vm: VA space, its lock held
 * @addr: first byte
 * @length: bytes, non-zero
 *
 * Return: the mapping of a handle (not host memory) that holds all of
 * [@addr, @addr + @length), or NULL.
 */
struct npu_mapping *npu_vm_memory_locked(struct npu_vm *vm, u64 addr,
					 u64 length)
{
	struct npu_mapping *map;

	lockdep_assert_held(&vm->lock);
	if (addr + length < addr)
		return NULL;
	map = mtree_load(&vm->mappings, addr);
	if (!map || !map->handle || addr + length > map->start + map->size)
		return NULL;
	return map;
}

/* Map a MAPPED registration's DMA segments at its device VA. */
int npu_vm_map_host_locked(struct npu_vm *vm, struct npu_host_reg *reg)
{
	struct npu_reservation *resv;
	struct npu_mapping *map;
	struct scatterlist *sg;
	u64 va = reg->dev_addr, perm;
	unsigned int i;
	int ret;

	lockdep_assert_held_write(&vm->lock);
	resv = kzalloc(sizeof(*resv), GFP_KERNEL_ACCOUNT);
	map = kzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	ret = -ENOMEM;
	if (!resv || !map)
		goto free;
	resv->start = reg->dev_addr;
	resv->size = reg->size;
	map->start = reg->dev_addr;
	map->size = reg->size;
	resv->owner = reg;
	map->resv = resv;
	map->host = reg;
	map->access = reg->flags & NPU_HOST_READONLY ? NPU_ACCESS_READ :
						       NPU_ACCESS_READWRITE;
	ret = npu_va_insert(&vm->reservations, resv->start, resv->size, resv);
	if (ret)
		goto free;
	ret = npu_mapping_insert_locked(vm, map);
	if (ret)
		goto erase_resv;

	perm = npu_access_pte(map->access) | NPU_PTE_SYSTEM;
	for_each_sgtable_dma_sg(&reg->pages.sgt, sg, i) {
		ret = npu_pt_map(&vm->pt, va, sg_dma_address(sg),
				 sg_dma_len(sg), perm, NPU_PAGE_1G);
		if (ret)
			goto unmap;
		va += sg_dma_len(sg);
	}
	reg->mapping = map;
	trace_npu_va_map(vm, map);
	return 0;

unmap:
	npu_pt_unmap(&vm->pt, map->start, va - map->start);
	mtree_erase(&vm->mappings, map->start);
erase_resv:
	mtree_erase(&vm->reservations, resv->start);
free:
	kfree(map);
	kfree(resv);
	return ret;
}

void npu_vm_unmap_host_locked(struct npu_vm *vm, struct npu_host_reg *reg)
{
	struct npu_mapping *map = reg->mapping;
	struct npu_reservation *resv = map->resv;

	lockdep_assert_held_write(&vm->lock);
	npu_mapping_remove_locked(vm, map);
	mtree_erase(&vm->reservations, resv->start);
	npu_pt_prune(&vm->pt, resv->start, resv->size);
	reg->mapping = NULL;
	kfree(map);
	kfree(resv);
}

/**
 * npu_vm_map_mirror_locked() - book device VA [@start, @start + @size) for
 *	@mirror: a reservation and one mapping over it, no entries yet
 * @vm: VA space, its lock held for writing
 * @mirror: the mirror
 * @start: device VA (== user address), 4 KiB aligned
 * @size: bytes, multiple of 4 KiB
 *
 * Return: 0, -EINVAL outside the window, -EADDRINUSE, -ENOMEM.
 */
int npu_vm_map_mirror_locked(struct npu_vm *vm, struct npu_mirror *mirror,
			     u64 start, u64 size)
{
	struct npu_reservation *resv;
	struct npu_mapping *map;
	int ret;

	lockdep_assert_held_write(&vm->lock);
	if (!npu_va_range_valid(start, size, SZ_4K))
		return -EINVAL;
	resv = kzalloc(sizeof(*resv), GFP_KERNEL_ACCOUNT);
	map = kzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	ret = -ENOMEM;
	if (!resv || !map)
		goto free;
	resv->start = start;
	resv->size = size;
	resv->mirror = mirror;
	map->start = start;
	map->size = size;
	map->resv = resv;
	map->mirror = mirror;
	map->access = NPU_ACCESS_READWRITE;
	ret = npu_va_insert(&vm->reservations, start, size, resv);
	if (ret)
		goto free;
	ret = npu_mapping_insert_locked(vm, map);
	if (ret) {
		mtree_erase(&vm->reservations, start);
		goto free;
	}
	trace_npu_va_map(vm, map);
	return 0;
free:
	kfree(map);
	kfree(resv);
	return ret;
}

/*
 * Take the mirror starting at @start out of the VA space: no translation
 * finds it afterwards. Its entries are the mirror's to clear. Returns it,
 * or NULL if no mirror starts there.
 */
struct npu_mirror *npu_vm_unmap_mirror_locked(struct npu_vm *vm, u64 start)
{
	struct npu_mapping *map;
	struct npu_reservation *resv;
	struct npu_mirror *mirror;

	lockdep_assert_held_write(&vm->lock);
	map = mtree_load(&vm->mappings, start);
	if (!map || !map->mirror || map->start != start)
		return NULL;
	mirror = map->mirror;
	resv = map->resv;
	trace_npu_va_unmap(vm, map);
	mtree_erase(&vm->mappings, map->start);
	mtree_erase(&vm->reservations, resv->start);
	kfree(map);
	kfree(resv);
	return mirror;
}

int npu_set_access_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_access *args = arg;
	u64 end = args->addr + args->length, va;
	struct npu_mapping *map;
	bool peer;
	int ret = 0;

	if (args->flags)
		return -EINVAL;
	if (args->access != NPU_ACCESS_NONE && args->access != NPU_ACCESS_READ &&
	    args->access != NPU_ACCESS_READWRITE)
		return -EINVAL;
	if (!npu_va_range_valid(args->addr, args->length, SZ_4K))
		return -EINVAL;
	if (args->device >= npu_device_count())
		return -ENODEV;
	peer = args->device != ctx->npu->index;

	down_write(&ctx->vm.lock);
	/* Check the whole range before changing any of it. */
	for (va = args->addr; va < end; va = map->start + map->size) {
		map = mtree_load(&ctx->vm.mappings, va);
		if (!map) {
			ret = -ENOENT;
			goto unlock;
		}
		/*
		 * Host memory is DMA-mapped for its own device only; a mirror's
		 * rights are the process's.
		 */
		if (map->start < args->addr || map->start + map->size > end ||
		    (peer && map->host) || map->mirror) {
			ret = -EINVAL;
			goto unlock;
		}
		if (map->host && (map->host->flags & NPU_HOST_READONLY) &&
		    args->access == NPU_ACCESS_READWRITE) {
			ret = -EACCES;
			goto unlock;
		}
	}
	for (va = args->addr; va < end; va = map->start + map->size) {
		map = mtree_load(&ctx->vm.mappings, va);
		if (peer) {
			map->peer_access[args->device] = args->access;
			continue;
		}
		map->access = args->access;
		npu_pt_protect(&ctx->vm.pt, map->start, map->size,
			       npu_access_pte(args->access));
	}
	trace_npu_va_set_access(&ctx->vm, args->addr, args->length,
				args->device, args->access);
unlock:
	up_write(&ctx->vm.lock);
	return ret;
}

int npu_get_access_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_access *args = arg;
	struct npu_mapping *map;
	int ret = 0;

	if (args->flags || args->length)
		return -EINVAL;
	if (args->device >= npu_device_count())
		return -ENODEV;
	down_read(&ctx->vm.lock);
	map = mtree_load(&ctx->vm.mappings, args->addr);
	if (!map)
		ret = -ENOENT;
	else if (args->device == ctx->npu->index)
		args->access = map->access;
	else if (map->peers)
		args->access = NPU_ACCESS_READWRITE;
	else
		args->access = map->peer_access[args->device];
	up_read(&ctx->vm.lock);
	return ret;
}

int npu_addr_query_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_addr_query *args = arg;
	struct npu_addr_query out = { .size = args->size, .addr = args->addr };
	struct npu_reservation *resv;
	struct npu_host_reg *reg;
	struct npu_mapping *map;

	if (args->flags)
		return -EINVAL;

	down_read(&ctx->vm.lock);
	reg = mtree_load(&ctx->vm.host_regs, out.addr);
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
	resv = mtree_load(&ctx->vm.reservations, out.addr);
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
	map = mtree_load(&ctx->vm.mappings, out.addr);
	if (map) {
		out.mapped = 1;
		out.access = map->access;
		out.page_size = map->handle ? map->handle->page_size : PAGE_SIZE;
	}
unlock:
	up_read(&ctx->vm.lock);
	*args = out;
	return 0;
}
