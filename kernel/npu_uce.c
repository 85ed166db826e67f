// SPDX-License-Identifier: GPL-2.0
/*
 * npu: uncorrectable memory errors (UCE) - which device addresses of a
 * context lie on bad pages, their repair, and an administrator's
 * injection of an error (the netlink family's NPU_NL_CMD_MEM_POISON).
 *
 * The bad pages themselves are the device memory's (npu_devmem.c); the
 * engine faults on them (npu_dma.c). Here they are seen through a
 * context's mappings.
 */
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <uapi/npu.h>

#include "npu_devmem.h"
#include "npu_drv.h"
#include "npu_uce.h"
#include "npu_vm.h"

/* MEM_UCE_QUERY's walk: the ranges found so far. */
struct npu_uce_walk {
	struct npu_devmem *mem;
	u64 va;				/* the mapping being walked */
	struct npu_uce_range *ranges;
	u32 count;
};

/* A bad page at device VA @va: a new range, or the last one grows. */
static int npu_uce_note(struct npu_uce_walk *w, u64 va)
{
	struct npu_uce_range *last = w->count ? &w->ranges[w->count - 1] : NULL;

	if (last && last->addr + last->length == va) {
		last->length += PAGE_SIZE;
		return 0;
	}
	if (w->count == NPU_UCE_MAX_RANGES)
		return 1;	/* as many as are reported */
	w->ranges[w->count++] = (struct npu_uce_range){ va, PAGE_SIZE };
	return 0;
}

/* One extent of a mapped handle: its bad pages, in order. */
static int npu_uce_extent(void *arg, u64 off, u64 dpa, u64 len)
{
	struct npu_uce_walk *w = arg;
	u64 clean;
	int ret;

	while (len) {
		clean = npu_devmem_clean_len(w->mem, dpa, len);
		if (clean == len)
			return 0;
		off += clean;
		dpa += clean;
		len -= clean;
		ret = npu_uce_note(w, w->va + off);
		if (ret)
			return ret;
		off += PAGE_SIZE;
		dpa += PAGE_SIZE;
		len -= PAGE_SIZE;
	}
	return 0;
}

static int npu_uce_mapping(const struct npu_mapping *map, void *arg)
{
	struct npu_uce_walk *w = arg;

	w->va = map->start;
	return npu_handle_walk(map->handle, npu_uce_extent, w);
}

int npu_mem_uce_query_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_mem_uce_query *args = arg;
	struct npu_uce_walk w = { .mem = ctx->npu->mem };
	int ret = 0;

	if (args->flags ||
	    (args->count && args->range_size != sizeof(struct npu_uce_range)))
		return -EINVAL;
	/* the common case: a healthy device, nothing to walk */
	if (!npu_devmem_poisoned(w.mem, 0, w.mem->size)) {
		args->count = 0;
		return 0;
	}
	w.ranges = kcalloc(NPU_UCE_MAX_RANGES, sizeof(*w.ranges), GFP_KERNEL);
	if (!w.ranges)
		return -ENOMEM;
	npu_vm_walk_memory(&ctx->vm, npu_uce_mapping, &w);
	if (copy_to_user(u64_to_user_ptr(args->ranges), w.ranges,
			 array_size(min(args->count, w.count), sizeof(*w.ranges))))
		ret = -EFAULT;
	args->count = w.count;
	kfree(w.ranges);
	return ret;
}

/* MEM_REPAIR's walk: the range asked for, in the mapping's offsets. */
struct npu_repair_walk {
	struct npu_devmem *mem;
	u64 first;
	u64 end;
	u64 repaired;
};

static int npu_repair_extent(void *arg, u64 off, u64 dpa, u64 len)
{
	struct npu_repair_walk *w = arg;
	u64 from = max(off, w->first), to = min(off + len, w->end), at;

	for (at = round_down(from, PAGE_SIZE); at < to; at += PAGE_SIZE)
		if (npu_devmem_repair(w->mem, dpa + (at - off)))
			w->repaired += PAGE_SIZE;
	return off + len >= w->end;
}

static int npu_repair_mapping(const struct npu_mapping *map, void *arg)
{
	struct npu_repair_walk *w = arg;

	w->first -= map->start;
	w->end -= map->start;
	npu_handle_walk(map->handle, npu_repair_extent, w);
	return 0;
}

int npu_mem_repair_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_mem_repair *args = arg;
	struct npu_repair_walk w = {
		.mem = ctx->npu->mem, .first = args->addr,
		.end = args->addr + args->length,
	};
	int ret;

	if (args->flags || !args->length)
		return -EINVAL;
	ret = npu_vm_with_memory(&ctx->vm, args->addr, args->length,
				 npu_repair_mapping, &w);
	args->repaired = w.repaired;
	return ret;
}

/* NPU_NL_CMD_MEM_POISON's walk: the offset of the page in the mapping. */
struct npu_poison_walk {
	struct npu_devmem *mem;
	u64 off;
	int ret;
};

static int npu_poison_extent(void *arg, u64 off, u64 dpa, u64 len)
{
	struct npu_poison_walk *w = arg;

	if (w->off < off || w->off >= off + len)
		return 0;
	w->ret = npu_devmem_poison(w->mem, dpa + (w->off - off));
	return 1;
}

static int npu_poison_mapping(const struct npu_mapping *map, void *arg)
{
	struct npu_poison_walk *w = arg;

	w->off -= map->start;
	npu_handle_walk(map->handle, npu_poison_extent, w);
	return w->ret;
}

/*
 * NPU_NL_CMD_MEM_POISON: the device page that @ctx's VA @va maps gets an
 * uncorrectable error. Returns 0, or -ENOENT if @va is not device memory
 * mapped in @ctx.
 */
int npu_uce_poison(struct npu_context *ctx, u64 va)
{
	struct npu_poison_walk w = {
		.mem = ctx->npu->mem, .off = va, .ret = -ENOENT,
	};

	return npu_vm_with_memory(&ctx->vm, va, 1, npu_poison_mapping, &w);
}
