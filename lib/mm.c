// SPDX-License-Identifier: MIT
/*
 * The memory layer (mm.h): every memory, mapping and registration request
 * of the library, and the records of what they made.
 *
 * aclrtMalloc = allocate a physical handle, reserve VA (aligned to the
 * page size), map it (NPU_MAP_PEERS: every device with peer access to
 * this one reads and writes it), grant read-write, then drop the handle:
 * the mapping keeps the memory alive until aclrtFree unmaps it. IPC
 * imports map their handles the same way. A "mapped" registration of host
 * memory is mapped for the device at a device VA the driver books itself;
 * the library picks that VA as a PROT_NONE reservation of the process
 * address space (so it equals no host pointer), or, with VA_FLAG, uses the
 * host address itself.
 *
 * The records hold everything the driver holds for the device's file: no
 * other part of the library makes a reservation, registration, mapping or
 * mirror, and the driver makes none on its own. So acl_mm_query() answers
 * from them what ADDR_QUERY would, without a system call.
 *
 * Order of a release: the driver first, then the records, then the
 * process's reservation (munmap). While the driver holds a range the
 * records say so (a call racing with the release gets the driver's
 * refusal, not a host copy into a PROT_NONE range), and no address the
 * records name can be handed out by the host allocator meanwhile. A
 * region being released is marked dying: lookups still see it, a second
 * release does not.
 *
 * aclrtMapMem of another device's handle: CANN has one VA space for all
 * devices, npu one per device's file. The mapping is made where the
 * handle's pages are, in the file of the handle's device, at the address
 * the current device reserved: the driver of that device reserves exactly
 * the mapping's range too (a "guest" region, whose process VA is the
 * reservation's), and the records of the reserving device keep only the
 * reservation, whose hole then holds peer memory (copy.c looks for it).
 *
 * Locking: each device's records have a reader-writer lock, taken last
 * (nothing runs under it but the records' own functions, never two of
 * them, and the mmap()s of the CPU's views of VMM mappings); lookups,
 * which every copy makes, share it. acl_vmm_lock, taken
 * before any of them, serialises aclrtMapMem, aclrtUnmapMem,
 * aclrtReleaseMemAddress, the CPU's access (aclrtMemSetAccess with a HOST
 * location) and the teardown of a device's records, so that
 * the checks of one device's records against another's stay true until
 * the change is made. (A new reservation needs no such check: its
 * process VA is its own.)
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "acl_ioctl.h"
#include "device.h"
#include "error.h"
#include "mm.h"
#include "snapstate.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define ACL_HOST_PAGE	4096ULL
#define ACL_VA_PROT	PROT_NONE
#define ACL_VA_FLAGS	(MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)

struct acl_mem_usage {
	uint64_t cur, peak;		/* bytes, as the device allocated them */
};

/* One device's records, in a static slot: a lookup racing with close finds them empty. */
struct acl_mm {
	pthread_rwlock_t lock;		/* protects everything below */
	struct acl_regions r;
	struct list_head handles;	/* acl_handle.node: live physical handles */
	int aperture;			/* the CPU's view of VMM mappings (r.cpu), or -1; acl_vmm_lock */
	struct acl_mem_usage usage[ACL_MEM_KINDS];
};

static struct acl_mm acl_mms[ACL_MAX_DEVICES] = {
	[0 ... ACL_MAX_DEVICES - 1] = {
		.lock = PTHREAD_RWLOCK_INITIALIZER,
		.aperture = -1,
	},
};

static pthread_mutex_t acl_vmm_lock = PTHREAD_MUTEX_INITIALIZER;

static struct acl_mm *acl_mm_of(struct acl_device *dev)
{
	return &acl_mms[dev->id];
}

void acl_mm_open(struct acl_device *dev)
{
	struct acl_mm *m = acl_mm_of(dev);

	pthread_rwlock_wrlock(&m->lock);
	list_init(&m->handles);
	memset(m->usage, 0, sizeof(m->usage));
	pthread_rwlock_unlock(&m->lock);
}

/* Account @delta bytes of @kind on @dev: what aclrtGetMemUsageInfo reports. Lock held. */
static void acl_mm_account_locked(struct acl_mm *m, enum acl_mem_kind kind, int64_t delta)
{
	struct acl_mem_usage *u = &m->usage[kind];

	u->cur += (uint64_t)delta;
	if (u->cur > u->peak)
		u->peak = u->cur;
}

static void acl_mm_account(struct acl_device *dev, enum acl_mem_kind kind, int64_t delta)
{
	struct acl_mm *m = acl_mm_of(dev);

	pthread_rwlock_wrlock(&m->lock);
	acl_mm_account_locked(m, kind, delta);
	pthread_rwlock_unlock(&m->lock);
}

void acl_mm_usage(struct acl_device *dev, enum acl_mem_kind kind, uint64_t *cur, uint64_t *peak)
{
	struct acl_mm *m = acl_mm_of(dev);

	pthread_rwlock_rdlock(&m->lock);
	*cur = m->usage[kind].cur;
	*peak = m->usage[kind].peak;
	pthread_rwlock_unlock(&m->lock);
}

/* Spans (snapshot.c) */

struct acl_span_list {
	struct acl_mm_span *v;
	size_t n, cap;
};

static void acl_span_malloc(struct acl_region *r, void *arg)
{
	struct acl_span_list *l = arg;

	if (r->kind == ACL_REGION_MALLOC && !r->dying && l->n < l->cap)
		l->v[l->n++] = (struct acl_mm_span){ .addr = r->addr, .len = r->len };
}

static void acl_span_map(const struct acl_range *e, void *arg)
{
	struct acl_span_list *l = arg;

	if (l->n < l->cap)
		l->v[l->n++] = (struct acl_mm_span){ .addr = e->start, .len = e->end - e->start, .vmm = true };
}

int acl_mm_spans(struct acl_device *dev, struct acl_mm_span **out, size_t *n)
{
	struct acl_mm *m = acl_mm_of(dev);
	struct acl_span_list l = { NULL, 0, 0 };

	pthread_rwlock_rdlock(&m->lock);
	/* every aclrtMalloc region is in the VA index */
	l.cap = m->r.va.n + m->r.maps.n;
	l.v = calloc(l.cap ? l.cap : 1, sizeof(*l.v));
	if (l.v) {
		acl_regions_each(&m->r, acl_span_malloc, &l);
		acl_ranges_walk(&m->r.maps, acl_span_map, &l);
	}
	pthread_rwlock_unlock(&m->lock);
	if (!l.v)
		return acl_errf(-ENOMEM, "out of host memory");
	*out = l.v;
	*n = l.n;
	return 0;
}

/* Records */

/* Record a region like @tmpl on @dev. */
static int acl_mm_record(struct acl_device *dev, const struct acl_region *tmpl)
{
	struct acl_mm *m = acl_mm_of(dev);
	struct acl_region *r = malloc(sizeof(*r));
	int ret = -ENOMEM;

	if (r) {
		*r = *tmpl;
		pthread_rwlock_wrlock(&m->lock);
		ret = acl_region_add(&m->r, r);
		pthread_rwlock_unlock(&m->lock);
		if (ret)
			free(r);
	}
	if (ret == -EEXIST)
		return acl_errf(ret, "%#llx+%#llx overlaps a range the library recorded already",
				(unsigned long long)tmpl->addr, (unsigned long long)tmpl->len);
	return ret ? acl_errf(ret, "out of host memory") : 0;
}

/*
 * Take the region of @kind (any when < 0) starting at @addr for its
 * release: marked dying, a copy in *@out. -ENOENT if there is none.
 */
static int acl_mm_claim(struct acl_device *dev, uint64_t addr, int kind, struct acl_region *out)
{
	struct acl_mm *m = acl_mm_of(dev);
	struct acl_region *r;
	bool claimed = false;

	pthread_rwlock_wrlock(&m->lock);
	r = acl_region_at(&m->r, addr, kind);
	if (r && !r->dying) {
		r->dying = claimed = true;
		*out = *r;
	}
	pthread_rwlock_unlock(&m->lock);
	return claimed ? 0 : -ENOENT;
}

/*
 * The driver released the claimed region at @addr: forget it (@gone), or
 * it is still there (the release failed; @doubt: half of it, so that
 * lookups ask the driver and it is never released again).
 */
static void acl_mm_settle(struct acl_device *dev, uint64_t addr, bool gone, bool doubt)
{
	struct acl_mm *m = acl_mm_of(dev);
	struct acl_region *r;

	pthread_rwlock_wrlock(&m->lock);
	r = acl_region_at(&m->r, addr, -1);
	if (r && gone)
		acl_region_del(&m->r, r);
	else if (r && doubt)
		r->doubt = true;
	else if (r)
		r->dying = false;
	pthread_rwlock_unlock(&m->lock);
	if (gone)
		free(r);
}

/* The driver's own answer about @addr, for a record in doubt. */
static int acl_mm_ask(struct acl_device *dev, uint64_t addr, struct acl_mem_info *mi)
{
	struct npu_addr_query q = { .size = sizeof(q), .addr = addr };
	int ret;

	ret = acl_ioctl(dev->fd, NPU_IOCTL_ADDR_QUERY, &q);
	if (ret)
		return ret;
	*mi = (struct acl_mem_info){
		.kind = q.kind, .base = q.base, .length = q.length, .dev_addr = q.dev_addr,
		.page_size = q.page_size, .host_flags = q.host_flags, .rkind = -1,
	};
	return 0;
}

/* What the records say of @addr, @m's lock held; true if its record is in doubt. */
static bool acl_mm_lookup_locked(struct acl_mm *m, uint64_t addr, struct acl_mem_info *mi)
{
	const struct acl_range *map;
	struct acl_region *r;
	bool doubt = false;

	*mi = (struct acl_mem_info){ .kind = NPU_ADDR_NONE, .rkind = -1 };
	/* registrations first, as the driver looks (a VA_FLAG one is also device VA) */
	r = acl_region_host(&m->r, addr);
	if (r) {
		mi->kind = NPU_ADDR_HOST;
		mi->base = r->addr;
		mi->length = r->len;
		mi->host_flags = r->host_flags;
		mi->page_size = ACL_HOST_PAGE;
		if (r->host_flags & NPU_HOST_MAPPED)
			mi->dev_addr = (r->dev_va ? r->dev_va : r->addr) + (addr - r->addr);
	} else if ((r = acl_region_va(&m->r, addr, &mi->base, &mi->length))) {
		/* a guest mapping is in another device's reservation: that is its range */
		if (r->guest_of) {
			mi->base = r->guest_base;
			mi->length = r->guest_len;
		}
		mi->kind = r->kind == ACL_REGION_MIRROR ? NPU_ADDR_MIRROR : NPU_ADDR_DEVICE;
		if (r->kind == ACL_REGION_MIRROR) {
			mi->dev_addr = addr;
			mi->page_size = ACL_HOST_PAGE;
		} else if (r->kind == ACL_REGION_VMM) {
			map = acl_ranges_find(&m->r.maps, addr);
			if (map) {
				mi->map_base = map->start;
				mi->map_len = map->end - map->start;
				mi->page_size = ((struct acl_handle *)map->p)->page_size;
			}
		} else {
			/* a mapped registration's device VA maps host pages */
			mi->page_size = r->page_size ? r->page_size : ACL_HOST_PAGE;
		}
	}
	if (r) {
		mi->rkind = r->kind;
		mi->rbase = r->addr;
		mi->rlen = r->len;
		doubt = r->doubt;
	}
	return doubt;
}

int acl_mm_query(struct acl_device *dev, uint64_t addr, struct acl_mem_info *mi)
{
	struct acl_mm *m = acl_mm_of(dev);
	bool doubt;

	pthread_rwlock_rdlock(&m->lock);
	doubt = acl_mm_lookup_locked(m, addr, mi);
	pthread_rwlock_unlock(&m->lock);
	return doubt ? acl_mm_ask(dev, addr, mi) : 0;
}

int acl_mm_query_pair(struct acl_device *dev, uint64_t a, struct acl_mem_info *ma, uint64_t b,
		      struct acl_mem_info *mb)
{
	struct acl_mm *m = acl_mm_of(dev);
	bool doubt_a, doubt_b;
	int ret = 0;

	/* a copy's two sides under one hold of the lock */
	pthread_rwlock_rdlock(&m->lock);
	doubt_a = acl_mm_lookup_locked(m, a, ma);
	doubt_b = acl_mm_lookup_locked(m, b, mb);
	pthread_rwlock_unlock(&m->lock);
	if (doubt_a)
		ret = acl_mm_ask(dev, a, ma);
	if (!ret && doubt_b)
		ret = acl_mm_ask(dev, b, mb);
	return ret;
}

/* Reservations */

void *acl_map_aligned(uint64_t len, uint64_t align, uint64_t skew, int prot, int flags)
{
	uint64_t span = len + (align > ACL_HOST_PAGE ? align : 0) + skew, start, base;
	void *p;

	/* Over-map so that the start fits, then trim both ends. */
	if (span < len) {
		errno = EOVERFLOW;
		return MAP_FAILED;
	}
	p = mmap(NULL, span, prot, flags, -1, 0);
	if (p == MAP_FAILED)
		return p;
	base = (uintptr_t)p;
	start = acl_round_up(base, align) + skew;
	if (start > base)
		munmap(p, start - base);
	if (base + span > start + len)
		munmap((void *)(uintptr_t)(start + len), base + span - (start + len));
	return (void *)(uintptr_t)start;
}

/*
 * Reserve [@len aligned to @align] of process address space, PROT_NONE,
 * inside @dev's VA window; at @at if non-zero (-ENOMEM if it is not free,
 * as the vendor's heap answers an expectPtr it cannot place).
 */
static int acl_proc_va_reserve(struct acl_device *dev, uint64_t len, uint64_t align, uint64_t at,
			       uint64_t *addr)
{
	void *p;

	if (at) {
		p = mmap((void *)(uintptr_t)at, len, ACL_VA_PROT, ACL_VA_FLAGS | MAP_FIXED_NOREPLACE, -1, 0);
		/* kernels before 4.17 treat the flag as a hint and may map elsewhere */
		if (p != MAP_FAILED && p != (void *)(uintptr_t)at) {
			munmap(p, len);
			p = MAP_FAILED;
			errno = EEXIST;
		}
		if (p == MAP_FAILED)
			return acl_errf(-ENOMEM, "cannot reserve %#llx+%#llx: %s",
					(unsigned long long)at, (unsigned long long)len,
					errno == EEXIST ? "the range is in use" : strerror(errno));
	} else {
		p = acl_map_aligned(len, align, 0, ACL_VA_PROT, ACL_VA_FLAGS);
	}
	if (p == MAP_FAILED && errno == EOVERFLOW)
		return acl_errf(-EINVAL, "size %#llx too large", (unsigned long long)len);
	if (p == MAP_FAILED)
		return acl_errf(-ENOMEM, "cannot reserve %#llx bytes of address space: %s",
				(unsigned long long)len, strerror(errno));
	*addr = (uintptr_t)p;
	if (*addr < dev->va_start || *addr + len > dev->va_end) {
		munmap(p, len);
		return acl_errf(-ENOMEM, "address space %#llx+%#llx falls outside device %d's VA window [%#llx, %#llx)",
				(unsigned long long)*addr, (unsigned long long)len, dev->id,
				(unsigned long long)dev->va_start, (unsigned long long)dev->va_end);
	}
	return 0;
}

static void acl_proc_va_release(uint64_t addr, uint64_t len)
{
	munmap((void *)(uintptr_t)addr, len);
}

/* Reserve device VA, mirrored in the process (acl_proc_va_reserve()). */
static int acl_va_reserve(struct acl_device *dev, uint64_t len, uint64_t align, uint64_t at,
			  uint64_t *addr)
{
	struct npu_va_range arg = { .size = sizeof(arg), .length = len };
	uint64_t start;
	int ret;

	ret = acl_proc_va_reserve(dev, len, align, at, &start);
	if (ret)
		return ret;
	arg.addr = start;
	ret = acl_ioctl(dev->fd, NPU_IOCTL_VA_RESERVE, &arg);
	if (ret) {
		acl_proc_va_release(start, len);
		return ret;
	}
	*addr = start;
	return 0;
}

/* Undo acl_va_reserve() on the driver's side (the caller munmaps after it forgot the range). */
static int acl_va_release(struct acl_device *dev, uint64_t addr)
{
	struct npu_va_range arg = { .size = sizeof(arg), .addr = addr };

	return acl_ioctl(dev->fd, NPU_IOCTL_VA_RELEASE, &arg);
}

/* Device memory */

static int acl_handle_drop(struct acl_device *dev, uint32_t handle)
{
	struct npu_mem_free mfree = { .size = sizeof(mfree), .handle = handle };

	return acl_ioctl(dev->fd, NPU_IOCTL_MEM_FREE, &mfree);
}

static int acl_unmap_va(struct acl_device *dev, uint64_t va)
{
	struct npu_unmap unmap = { .size = sizeof(unmap), .addr = va };

	return acl_ioctl(dev->fd, NPU_IOCTL_UNMAP, &unmap);
}

/* The driver could not allocate: say so in the caller's units. */
static int acl_mm_alloc_failed(struct acl_device *dev, int ret, uint64_t len)
{
	if (ret == -ENOMEM)
		acl_errf(ret, "cannot allocate %llu bytes on device %d: device memory exhausted",
			 (unsigned long long)len, dev->id);
	return ret;
}

/*
 * Map physical handle @handle (tmpl->len bytes in @page pages) read-write
 * for @dev at fresh device VA (NPU_MAP_PEERS), record it as a region like
 * @tmpl, and free the handle: the mapping holds the memory until it is
 * unmapped. The handle is freed on failure too. *out gets the VA.
 */
static int acl_mm_map_new(struct acl_device *dev, uint32_t handle, const struct acl_region *tmpl,
			  uint64_t *out)
{
	/* CANN: a peer that enabled access reaches aclrtMalloc memory, no grant needed */
	struct npu_map map = { .size = sizeof(map), .flags = NPU_MAP_PEERS, .length = tmpl->len,
			       .handle = handle };
	struct npu_access acc = {
		.size = sizeof(acc),
		.length = tmpl->len,
		.device = dev->id,
		.access = NPU_ACCESS_READWRITE,
	};
	struct acl_region r = *tmpl;
	uint64_t va;
	int ret;

	ret = acl_va_reserve(dev, tmpl->len, tmpl->page_size, 0, &va);
	if (ret) {
		acl_handle_drop(dev, handle);
		return ret;
	}
	map.addr = va;
	ret = acl_ioctl(dev->fd, NPU_IOCTL_MAP, &map);
	/* from here on (or never) the mapping holds the memory */
	acl_handle_drop(dev, handle);
	if (ret)
		goto err_release;
	acc.addr = va;
	ret = acl_ioctl(dev->fd, NPU_IOCTL_SET_ACCESS, &acc);
	if (ret)
		goto err_unmap;
	r.addr = va;
	ret = acl_mm_record(dev, &r);
	if (ret)
		goto err_unmap;
	*out = va;
	return 0;

err_unmap:
	acl_unmap_va(dev, va);
err_release:
	if (!acl_va_release(dev, va))
		acl_proc_va_release(va, tmpl->len);
	return ret;
}

int acl_mm_alloc(struct acl_device *dev, uint64_t len, uint64_t page, uint64_t *va)
{
	struct npu_mem_alloc alloc = { .size = sizeof(alloc), .length = len, .page_size = page };
	struct acl_region r = { .kind = ACL_REGION_MALLOC, .len = len, .page_size = page };
	int ret;

	acl_snap_gate();
	ret = acl_ioctl(dev->fd, NPU_IOCTL_MEM_ALLOC, &alloc);
	if (ret)
		return acl_mm_alloc_failed(dev, ret, len);
	ret = acl_mm_map_new(dev, alloc.handle, &r, va);
	if (!ret)
		acl_mm_account(dev, ACL_MEM_KIND_MALLOC, (int64_t)len);
	return ret;
}

int acl_mm_map_import(struct acl_device *dev, uint32_t handle, uint64_t len, uint64_t page,
		      uint64_t key, uint64_t *va)
{
	static uint64_t serial;		/* import order (atomic) */
	struct acl_region r = {
		.kind = ACL_REGION_IPC,
		.len = len,
		.page_size = page,
		.ipc_key = key,
		.ipc_serial = __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED),
	};

	acl_snap_gate();
	return acl_mm_map_new(dev, handle, &r, va);
}

int acl_mm_free(struct acl_device *dev, uint64_t va, enum acl_region_kind kind)
{
	struct acl_region r;
	int ret;

	acl_snap_gate();
	if (acl_mm_claim(dev, va, kind, &r))
		return -ENOENT;
	ret = acl_unmap_va(dev, va);
	if (ret) {
		acl_mm_settle(dev, va, false, false);
		return ret;
	}
	ret = acl_va_release(dev, va);
	acl_mm_settle(dev, va, !ret, true);
	if (ret)
		return ret;
	acl_proc_va_release(va, r.len);
	if (kind == ACL_REGION_MALLOC)
		acl_mm_account(dev, ACL_MEM_KIND_MALLOC, -(int64_t)r.len);
	return 0;
}

struct acl_ipc_pick {
	uint64_t key;
	struct acl_region *old;
};

static void acl_ipc_pick(struct acl_region *r, void *arg)
{
	struct acl_ipc_pick *p = arg;

	if (r->kind == ACL_REGION_IPC && r->ipc_key == p->key && !r->dying &&
	    (!p->old || r->ipc_serial < p->old->ipc_serial))
		p->old = r;
}

uint64_t acl_mm_ipc_oldest(struct acl_device *dev, uint64_t key)
{
	struct acl_mm *m = acl_mm_of(dev);
	struct acl_ipc_pick p = { .key = key };
	uint64_t addr;

	pthread_rwlock_rdlock(&m->lock);
	acl_regions_each(&m->r, acl_ipc_pick, &p);
	addr = p.old ? p.old->addr : 0;
	pthread_rwlock_unlock(&m->lock);
	return addr;
}

/* Physical handles */

static void acl_handle_free(struct acl_handle *h)
{
	free(h->pids);
	free(h);
}

/* @h is released and unmapped: its memory is gone. Lock held; frees @h. */
static void acl_handle_gone_locked(struct acl_mm *m, struct acl_handle *h)
{
	if (!h->imported)
		acl_mm_account_locked(m, ACL_MEM_KIND_PHYSICAL, -(int64_t)h->size);
	acl_handle_free(h);
}

/* @h, if it is a live handle of @m. Lock held. */
static struct acl_handle *acl_handle_find_locked(struct acl_mm *m, const void *p)
{
	struct acl_handle *h;

	list_for_each_entry(h, &m->handles, node)
		if (h == p)
			return h;
	return NULL;
}

/*
 * The open device whose live handle @p is, with its records write-locked
 * (the caller unlocks), or NULL.
 */
static struct acl_mm *acl_handle_lock(const void *p, struct acl_handle **hp)
{
	struct acl_device *dev;
	int pos = 0;

	while ((dev = acl_dev_iter(&pos))) {
		struct acl_mm *m = acl_mm_of(dev);

		pthread_rwlock_wrlock(&m->lock);
		*hp = acl_handle_find_locked(m, p);
		if (*hp)
			return m;
		pthread_rwlock_unlock(&m->lock);
	}
	return NULL;
}

static int acl_handle_dead(const void *p)
{
	return acl_errf(-EINVAL, "handle %p is not a live aclrtMallocPhysical handle", p);
}

/* List handle @id of @dev; not @imported: aclrtMallocPhysical memory, accounted. */
static int acl_handle_add(struct acl_device *dev, uint32_t id, uint64_t size, uint64_t page,
			  bool imported, int attr, struct acl_handle **out)
{
	struct acl_mm *m = acl_mm_of(dev);
	struct acl_handle *h = calloc(1, sizeof(*h));

	if (!h) {
		acl_handle_drop(dev, id);
		return acl_errf(-ENOMEM, "out of host memory");
	}
	h->dev = dev;
	h->id = id;
	h->size = size;
	h->page_size = page;
	h->imported = imported;
	h->attr = attr;
	pthread_rwlock_wrlock(&m->lock);
	list_add_tail(&h->node, &m->handles);
	if (!imported)
		acl_mm_account_locked(m, ACL_MEM_KIND_PHYSICAL, (int64_t)size);
	pthread_rwlock_unlock(&m->lock);
	*out = h;
	return 0;
}

int acl_mm_handle_alloc(struct acl_device *dev, uint64_t size, uint64_t page, int attr,
			struct acl_handle **out)
{
	struct npu_mem_alloc alloc = { .size = sizeof(alloc), .length = size, .page_size = page };
	int ret;

	acl_snap_gate();
	ret = acl_ioctl(dev->fd, NPU_IOCTL_MEM_ALLOC, &alloc);
	if (ret)
		return acl_mm_alloc_failed(dev, ret, size);
	return acl_handle_add(dev, alloc.handle, size, page, false, attr, out);
}

int acl_mm_handle_import(struct acl_device *dev, uint32_t id, uint64_t size, uint64_t page,
			 struct acl_handle **out)
{
	return acl_handle_add(dev, id, size, page, true, -1, out);
}

int acl_mm_handle_free(const void *p)
{
	struct acl_handle *h;
	struct acl_device *dev;
	struct acl_mm *m;
	uint32_t id;

	acl_snap_gate();
	m = acl_handle_lock(p, &h);
	if (!m)
		return acl_handle_dead(p);
	/* one free per aclrtMemRetainAllocationHandle before the last one */
	if (h->retains) {
		h->retains--;
		pthread_rwlock_unlock(&m->lock);
		return 0;
	}
	list_del(&h->node);
	dev = h->dev;
	id = h->id;
	/* a mapped handle lives on, in the kernel and here, until its mappings go */
	if (h->maps)
		h->released = true;
	else
		acl_handle_gone_locked(m, h);
	pthread_rwlock_unlock(&m->lock);
	return acl_handle_drop(dev, id);
}

int acl_mm_handle_info(const void *p, struct acl_handle *copy)
{
	struct acl_handle *h;
	struct acl_mm *m;

	m = acl_handle_lock(p, &h);
	if (!m)
		return acl_handle_dead(p);
	*copy = *h;
	pthread_rwlock_unlock(&m->lock);
	return 0;
}

void acl_mm_handle_shared(const void *p, uint64_t name)
{
	struct acl_handle *h;
	struct acl_mm *m;

	m = acl_handle_lock(p, &h);
	if (m) {
		h->shareable = name;
		pthread_rwlock_unlock(&m->lock);
	}
}

struct acl_device *acl_mm_handle_exporter(uint64_t name)
{
	struct acl_device *dev;
	struct acl_handle *h;
	int pos = 0;

	if (!name)
		return NULL;
	while ((dev = acl_dev_iter(&pos))) {
		struct acl_mm *m = acl_mm_of(dev);
		bool found = false;

		pthread_rwlock_rdlock(&m->lock);
		list_for_each_entry(h, &m->handles, node)
			found |= h->shareable == name;
		pthread_rwlock_unlock(&m->lock);
		if (found)
			return dev;
	}
	return NULL;
}

int acl_mm_handle_swap_pids(uint64_t name, struct acl_share_pid **pids, uint32_t *n)
{
	struct acl_device *dev;
	int pos = 0;

	while (name && (dev = acl_dev_iter(&pos))) {
		struct acl_mm *m = acl_mm_of(dev);
		struct acl_share_pid *old;
		struct acl_handle *h;
		uint32_t nold;

		pthread_rwlock_wrlock(&m->lock);
		list_for_each_entry(h, &m->handles, node) {
			if (h->shareable != name)
				continue;
			old = h->pids;
			nold = h->npids;
			h->pids = *pids;
			h->npids = *n;
			*pids = old;
			*n = nold;
			pthread_rwlock_unlock(&m->lock);
			return 0;
		}
		pthread_rwlock_unlock(&m->lock);
	}
	return -ENOENT;
}

int acl_mm_handle_retain(uint64_t va, struct acl_handle **out)
{
	const struct acl_range *e;
	struct acl_device *dev;
	int ret = 0, pos = 0;

	/* mappings never overlap across devices: each is reserved in the process */
	while ((dev = acl_dev_iter(&pos))) {
		struct acl_mm *m = acl_mm_of(dev);
		struct acl_handle *h;

		pthread_rwlock_wrlock(&m->lock);
		e = acl_ranges_find(&m->r.maps, va);
		h = e ? e->p : NULL;
		if (e && e->start != va)
			ret = acl_errf(ACLI_ERTPARAM, "virPtr %#llx is inside the aclrtMapMem mapping at %#llx, not its start",
				       (unsigned long long)va, (unsigned long long)e->start);
		else if (h && h->released)
			ret = acl_errf(ACLI_ERTPARAM, "the handle mapped at virPtr %#llx was freed with aclrtFreePhysical: only the mapping holds the memory now",
				       (unsigned long long)va);
		else if (h)
			h->retains++;
		if (h && !ret)
			*out = h;
		pthread_rwlock_unlock(&m->lock);
		if (e)
			return ret;
	}
	return acl_errf(ACLI_ERTPARAM, "virPtr %#llx is not the start of an aclrtMapMem mapping",
			(unsigned long long)va);
}

/* VMM reservations and mappings */

/*
 * Does a device other than @dev record VA in [@va, +@len)? Reservations
 * never overlap across devices (each is the process's too): only a guest
 * mapping in a reservation of @dev can. acl_vmm_lock held.
 */
static bool acl_vmm_guest_overlap(struct acl_device *dev, uint64_t va, uint64_t len)
{
	struct acl_device *other;
	bool hit = false;
	int pos = 0;

	while (!hit && (other = acl_dev_iter(&pos))) {
		struct acl_mm *m = acl_mm_of(other);

		if (other == dev)
			continue;
		pthread_rwlock_rdlock(&m->lock);
		hit = acl_ranges_overlap(&m->r.va, va, len);
		pthread_rwlock_unlock(&m->lock);
	}
	return hit;
}

/* The guest region of another device's handle holding @va in a reservation of @dev, or NULL. */
static struct acl_region *acl_vmm_guest_find_locked(struct acl_mm *m, struct acl_device *dev,
						    uint64_t va)
{
	uint64_t base, len;
	struct acl_region *r = acl_region_va(&m->r, va, &base, &len);

	return r && r->kind == ACL_REGION_VMM && r->guest_of == dev ? r : NULL;
}

struct acl_device *acl_mm_home(struct acl_device *dev, uint64_t va)
{
	struct acl_device *other;
	bool hit = false;
	int pos = 0;

	while (!hit && (other = acl_dev_iter(&pos))) {
		struct acl_mm *m = acl_mm_of(other);

		pthread_rwlock_rdlock(&m->lock);
		hit = other != dev && acl_vmm_guest_find_locked(m, dev, va);
		pthread_rwlock_unlock(&m->lock);
		if (hit)
			return other;
	}
	return dev;
}

/*
 * Make room for a mapping of a handle of @home at [@va, +@len) inside a
 * reservation of @dev: a hole there, no other device's mapping, and the
 * range reserved in @home's file. acl_vmm_lock held.
 */
static int acl_vmm_guest_reserve(struct acl_device *dev, struct acl_device *home, uint64_t va,
				 uint64_t len, struct acl_region *guest)
{
	struct npu_va_range arg = { .size = sizeof(arg), .addr = va, .length = len };
	struct acl_mm *m = acl_mm_of(dev);
	struct acl_region *r;
	uint64_t base, rlen;
	int ret = 0;

	/* a reservation of a device being closed (its records not yet cleared) is gone */
	if (__atomic_load_n(&dev->fd, __ATOMIC_ACQUIRE) < 0)
		return -ENOENT;
	pthread_rwlock_rdlock(&m->lock);
	r = acl_region_va(&m->r, va, &base, &rlen);
	if (!r || r->kind != ACL_REGION_VMM || r->guest_of || r->dying || len > base + rlen - va)
		ret = -ENOENT;
	else if (acl_ranges_overlap(&m->r.maps, va, len))
		ret = -EADDRINUSE;
	else
		*guest = (struct acl_region){
			.kind = ACL_REGION_VMM, .addr = va, .len = len,
			.guest_of = dev, .guest_base = base, .guest_len = rlen,
		};
	pthread_rwlock_unlock(&m->lock);
	if (!ret && acl_vmm_guest_overlap(dev, va, len))
		ret = -EADDRINUSE;
	if (!ret)
		ret = acl_ioctl(home->fd, NPU_IOCTL_VA_RESERVE, &arg);
	return ret;
}

/* Undo a mapping at @va of @home's file (and its guest reservation there). */
static void acl_vmm_undo(struct acl_device *home, uint64_t va, bool guest)
{
	acl_unmap_va(home, va);
	if (guest)
		acl_va_release(home, va);
}

/* Record @h's new mapping at [@va, +@len), as the guest region @guest if not NULL. */
static int acl_vmm_record_locked(struct acl_mm *m, struct acl_handle *h, uint64_t va, uint64_t len,
				 const struct acl_region *guest)
{
	struct acl_region *r = NULL;
	int ret;

	if (guest) {
		r = malloc(sizeof(*r));
		if (!r)
			return -ENOMEM;
		*r = *guest;
		ret = acl_region_add(&m->r, r);
		if (ret) {
			free(r);
			return ret;
		}
	}
	ret = acl_ranges_add(&m->r.maps, va, len, h);
	if (ret && r) {
		acl_region_del(&m->r, r);
		free(r);
	}
	return ret;
}

/*
 * CPU access to VMM mappings (aclrtMemSetAccess with a HOST location):
 * the device's aperture (DOC: npu aperture) mapped over the mapping at
 * the identity, MAP_FIXED over the reservation's own PROT_NONE range (a
 * reservation is always the process's too, so no one else's mapping can
 * be there), and that PROT_NONE range put back when the access goes. The
 * aperture checks every access against the device's own right too. One
 * aperture file per device's file (acl_mm.aperture), opened at the first
 * grant and closed with the records.
 */

/* Make [@va, +@len) the reservation's PROT_NONE range again. */
static void acl_cpu_revoke(uint64_t va, uint64_t len)
{
	void *p = (void *)(uintptr_t)va;

	/* if even that fails (no memory for a VMA), no access is left, and the range stays ours */
	if (mmap(p, len, ACL_VA_PROT, ACL_VA_FLAGS | MAP_FIXED, -1, 0) == MAP_FAILED)
		mprotect(p, len, PROT_NONE);
}

/* Forget the CPU's access to the mapping at @va, its range put back if @revoke. Lock held. */
static void acl_cpu_forget_locked(struct acl_mm *m, uint64_t va, bool revoke)
{
	const struct acl_range *c = acl_ranges_find(&m->r.cpu, va);
	uint64_t len;

	if (!c || c->start != va)
		return;
	len = c->end - c->start;
	acl_ranges_del(&m->r.cpu, va);
	if (revoke)
		acl_cpu_revoke(va, len);
}

/* The CPU's @access to the mapping [@va, +@len) (checked whole). Lock held. */
static int acl_cpu_grant_locked(struct acl_mm *m, uint64_t va, uint64_t len, uint32_t access)
{
	int prot = access == NPU_ACCESS_READWRITE ? PROT_READ | PROT_WRITE : PROT_READ;
	void *p = (void *)(uintptr_t)va;
	int ret;

	if (access == NPU_ACCESS_NONE) {
		acl_cpu_forget_locked(m, va, true);
		return 0;
	}
	/* a new protection maps the aperture again, over itself */
	if (mmap(p, len, prot, MAP_SHARED | MAP_FIXED, m->aperture, (off_t)va) == MAP_FAILED) {
		ret = errno;
		return acl_errf(ret == ENOMEM ? -ENOMEM : ACLI_EDRVERR,
				"cannot map the aperture over %#llx+%#llx for the CPU: %s",
				(unsigned long long)va, (unsigned long long)len, strerror(ret));
	}
	acl_cpu_forget_locked(m, va, false);
	ret = acl_ranges_add(&m->r.cpu, va, len, (void *)(uintptr_t)access);
	if (ret) {
		acl_cpu_revoke(va, len);
		return acl_errf(-ENOMEM, "out of host memory");
	}
	return 0;
}

int acl_mm_set_cpu_access(struct acl_device *dev, uint64_t va, uint64_t len, uint32_t access)
{
	const struct acl_range *e;
	struct acl_device *home;
	struct acl_mm *m;
	uint64_t at;
	int ret = 0;

	acl_snap_gate();
	pthread_mutex_lock(&acl_vmm_lock);
	/* a mapping of another device's handle is seen through that device's aperture */
	home = acl_mm_home(dev, va);
	m = acl_mm_of(home);
	if (access != NPU_ACCESS_NONE && m->aperture < 0)
		ret = acl_dev_aperture_open(home, false, &m->aperture);
	if (ret)
		goto out;
	pthread_rwlock_wrlock(&m->lock);
	/* whole mappings, one after the other, from @va to its end: all checked first */
	if (!len || va + len < va)
		ret = -EINVAL;
	for (at = va; !ret && at - va < len; at = e->end) {
		e = acl_ranges_find(&m->r.maps, at);
		if (!e || e->start != at || e->end - va > len)
			ret = -EINVAL;
		if (ret)
			break;
	}
	for (at = va; !ret && at - va < len; at = e->end) {
		e = acl_ranges_find(&m->r.maps, at);
		ret = acl_cpu_grant_locked(m, at, e->end - at, access);
	}
	pthread_rwlock_unlock(&m->lock);
out:
	pthread_mutex_unlock(&acl_vmm_lock);
	if (ret == -EINVAL)
		ret = acl_errf(ret, "virPtr %#llx+%llu must cover whole aclrtMapMem mappings of device %d, one after the other",
			       (unsigned long long)va, (unsigned long long)len, home->id);
	return ret;
}

int acl_mm_get_cpu_access(struct acl_device *dev, uint64_t va, uint64_t *access)
{
	struct acl_mm *m;
	const struct acl_range *c;
	int ret = 0;

	pthread_mutex_lock(&acl_vmm_lock);
	m = acl_mm_of(acl_mm_home(dev, va));
	pthread_rwlock_rdlock(&m->lock);
	if (!acl_ranges_find(&m->r.maps, va))
		ret = -ENOENT;
	c = acl_ranges_find(&m->r.cpu, va);
	if (!ret)
		*access = c ? (uint64_t)(uintptr_t)c->p : NPU_ACCESS_NONE;
	pthread_rwlock_unlock(&m->lock);
	pthread_mutex_unlock(&acl_vmm_lock);
	if (ret)
		ret = acl_errf(ret, "virPtr %#llx is not in an aclrtMapMem mapping", (unsigned long long)va);
	return ret;
}

/*
 * Forget the mapping at @va of @m's device; a released handle goes with
 * its last one. Returns whether it was a guest (its range reserved too).
 */
static bool acl_vmm_forget_locked(struct acl_mm *m, uint64_t va)
{
	struct acl_handle *h = acl_ranges_del(&m->r.maps, va);
	struct acl_region *r = acl_region_at(&m->r, va, ACL_REGION_VMM);
	bool guest = r && r->guest_of;

	/* the CPU's view goes with the mapping */
	acl_cpu_forget_locked(m, va, true);

	if (guest) {
		acl_region_del(&m->r, r);
		free(r);
	}
	if (h && !--h->maps && h->released)
		acl_handle_gone_locked(m, h);
	return guest;
}

int acl_mm_reserve(struct acl_device *dev, uint64_t len, uint64_t align, uint64_t at,
		   uint64_t *va)
{
	struct acl_region r = { .kind = ACL_REGION_VMM, .len = len };
	int ret;

	acl_snap_gate();
	ret = acl_va_reserve(dev, len, align, at, &r.addr);
	if (ret)
		return ret;
	ret = acl_mm_record(dev, &r);
	if (ret) {
		if (!acl_va_release(dev, r.addr))
			acl_proc_va_release(r.addr, len);
		return ret;
	}
	*va = r.addr;
	return 0;
}

int acl_mm_release(struct acl_device *dev, uint64_t va)
{
	struct acl_region r = { .guest_of = NULL };
	int ret;

	acl_snap_gate();
	pthread_mutex_lock(&acl_vmm_lock);
	if (acl_mm_claim(dev, va, ACL_REGION_VMM, &r) || r.guest_of) {
		pthread_mutex_unlock(&acl_vmm_lock);
		if (r.guest_of)
			acl_mm_settle(dev, va, false, false);
		return acl_errf(-EINVAL, "virPtr %#llx is not an address reserved by aclrtReserveMemAddress",
				(unsigned long long)va);
	}
	/* the driver refuses while mappings remain; other devices' are for the records to say */
	ret = acl_vmm_guest_overlap(dev, va, r.len) ? -EBUSY : acl_va_release(dev, va);
	acl_mm_settle(dev, va, !ret, false);
	pthread_mutex_unlock(&acl_vmm_lock);
	if (ret == -EBUSY)
		return acl_errf(ret, "virPtr %#llx still has mappings: aclrtUnmapMem them first",
				(unsigned long long)va);
	if (!ret)
		acl_proc_va_release(va, r.len);
	return ret;
}

/*
 * Is @va in a reservation of the library's own (a memory pool's)? The
 * driver would map a handle there too: aclrtMapMem must not. Lock held.
 */
static bool acl_mm_foreign_va_locked(struct acl_mm *m, uint64_t va)
{
	uint64_t base, len;
	struct acl_region *r = acl_region_va(&m->r, va, &base, &len);

	return r && r->kind == ACL_REGION_POOL;
}

int acl_mm_map(struct acl_device *dev, uint64_t va, uint64_t len, const void *p, bool owner_rw)
{
	struct npu_map map = { .size = sizeof(map), .addr = va, .length = len };
	struct acl_region guest;
	struct acl_device *home;
	struct acl_handle *h;
	struct acl_mm *m;
	int ret = 0;

	acl_snap_gate();
	pthread_mutex_lock(&acl_vmm_lock);
	m = acl_handle_lock(p, &h);
	if (!m) {
		pthread_mutex_unlock(&acl_vmm_lock);
		return acl_handle_dead(p);
	}
	/* the mapping is made where the pages are: in the handle's device's file */
	home = h->dev;
	if (len != h->size)
		ret = acl_errf(-EINVAL, "size %llu must equal the handle's size %llu",
			       (unsigned long long)len, (unsigned long long)h->size);
	else if (va & (h->page_size - 1))
		ret = acl_errf(-EINVAL, "virPtr %#llx must be aligned to the handle's page size %llu",
			       (unsigned long long)va, (unsigned long long)h->page_size);
	else if (home == dev && acl_mm_foreign_va_locked(m, va))
		ret = -ENOENT;
	/* counted before the request: a free meanwhile keeps the handle */
	if (!ret)
		h->maps++;
	map.handle = h->id;
	pthread_rwlock_unlock(&m->lock);
	if (ret)
		goto out;

	if (home != dev)
		ret = acl_vmm_guest_reserve(dev, home, va, len, &guest);
	if (!ret) {
		ret = acl_ioctl(home->fd, NPU_IOCTL_MAP, &map);
		if (ret && home != dev)
			acl_va_release(home, va);
	}
	/* in a reservation of @dev (the driver said so): over another device's mapping? */
	if (!ret && home == dev && acl_vmm_guest_overlap(dev, va, len)) {
		acl_vmm_undo(dev, va, false);
		ret = -EADDRINUSE;
	}
	/* a mapping starts with no access: the owner's grant makes it aclrtMapMem's */
	if (!ret && owner_rw) {
		ret = acl_mm_set_access(home, va, len, home->id, NPU_ACCESS_READWRITE, "the handle's device");
		if (ret)
			acl_vmm_undo(home, va, home != dev);
	}
	pthread_rwlock_wrlock(&m->lock);
	if (!ret) {
		ret = acl_vmm_record_locked(m, h, va, len, home != dev ? &guest : NULL);
		if (ret) {
			pthread_rwlock_unlock(&m->lock);
			acl_vmm_undo(home, va, home != dev);
			pthread_rwlock_wrlock(&m->lock);
			ret = acl_errf(-ENOMEM, "out of host memory");
		}
	}
	if (ret && !--h->maps && h->released)
		acl_handle_gone_locked(m, h);
	pthread_rwlock_unlock(&m->lock);
out:
	pthread_mutex_unlock(&acl_vmm_lock);
	if (ret == -ENOENT)
		ret = acl_errf(ret, "virPtr %#llx+%llu is not inside one aclrtReserveMemAddress range of device %d",
			       (unsigned long long)va, (unsigned long long)len, dev->id);
	else if (ret == -EADDRINUSE)
		ret = acl_errf(ret, "virPtr %#llx+%llu overlaps an existing mapping",
			       (unsigned long long)va, (unsigned long long)len);
	else if (ret == -EBUSY)
		ret = acl_errf(ret, "handle %p is mapped already", p);
	return ret;
}

int acl_mm_unmap(struct acl_device *dev, uint64_t va)
{
	struct acl_device *home;
	struct acl_mm *m;
	bool guest;
	int ret;

	acl_snap_gate();
	pthread_mutex_lock(&acl_vmm_lock);
	home = acl_mm_home(dev, va);
	m = acl_mm_of(home);
	ret = acl_unmap_va(home, va);
	if (!ret) {
		pthread_rwlock_wrlock(&m->lock);
		guest = acl_vmm_forget_locked(m, va);
		pthread_rwlock_unlock(&m->lock);
		/* a guest's own reservation, whichever device was current */
		if (guest)
			acl_va_release(home, va);
	}
	pthread_mutex_unlock(&acl_vmm_lock);
	if (ret == -ENOENT)
		return acl_errf(ret, "virPtr %#llx is not the start of an aclrtMapMem mapping",
				(unsigned long long)va);
	return ret;
}

int acl_mm_set_access(struct acl_device *dev, uint64_t va, uint64_t len, uint32_t device,
		      uint32_t access, const char *what)
{
	struct npu_access acc = {
		.size = sizeof(acc),
		.addr = va,
		.length = len,
		.device = device,
		.access = access,
	};
	int ret;

	ret = acl_ioctl(dev->fd, NPU_IOCTL_SET_ACCESS, &acc);
	if (ret == -ENOENT)
		ret = acl_errf(ret, "virPtr %#llx+%llu is not entirely mapped", (unsigned long long)va,
			       (unsigned long long)len);
	else if (ret == -EINVAL && device != (uint32_t)dev->id)
		ret = acl_errf(ret, "virPtr %#llx+%llu must be 4 KiB aligned and cover whole mappings of device memory (host memory is reachable by its own device only, not device %u)",
			       (unsigned long long)va, (unsigned long long)len, device);
	else if (ret == -EINVAL)
		ret = acl_errf(ret, "virPtr %#llx+%llu must be 4 KiB aligned and cover whole mappings",
			       (unsigned long long)va, (unsigned long long)len);
	else if (ret == -ENODEV)
		ret = acl_errf(ret, "%s.id %u: the driver has no such device", what, device);
	return ret;
}

int acl_mm_get_access(struct acl_device *dev, uint64_t va, uint32_t device, uint64_t *access)
{
	struct npu_access acc = { .size = sizeof(acc), .addr = va, .device = device };
	int ret;

	ret = acl_ioctl(dev->fd, NPU_IOCTL_GET_ACCESS, &acc);
	if (ret == -ENOENT)
		ret = acl_errf(ret, "virPtr %#llx is not mapped", (unsigned long long)va);
	else if (ret == -ENODEV)
		ret = acl_errf(ret, "location.id %u: the driver has no such device", device);
	if (!ret)
		*access = acc.access;
	return ret;
}

/* Memory pools */

/* The page size of a pool's chunks on @dev: 2 MiB where the device has them. */
static uint64_t acl_pool_page(struct acl_device *dev)
{
	return (dev->page_sizes & NPU_PAGE_2M) ? NPU_PAGE_2M : NPU_PAGE_4K;
}

int acl_mm_pool_reserve(struct acl_device *dev, uint64_t len, uint64_t *va)
{
	struct acl_region r = { .kind = ACL_REGION_POOL, .len = len, .page_size = acl_pool_page(dev) };
	int ret;

	ret = acl_va_reserve(dev, len, ACL_MM_POOL_CHUNK, 0, &r.addr);
	if (ret)
		return ret;
	ret = acl_mm_record(dev, &r);
	if (ret) {
		if (!acl_va_release(dev, r.addr))
			acl_proc_va_release(r.addr, len);
		return ret;
	}
	*va = r.addr;
	return 0;
}

void acl_mm_pool_unback(struct acl_device *dev, uint64_t va, uint64_t len)
{
	uint64_t off;

	/* each chunk's mapping holds its memory: unmapping frees it */
	for (off = 0; off < len; off += ACL_MM_POOL_CHUNK)
		acl_unmap_va(dev, va + off);
}

int acl_mm_pool_back(struct acl_device *dev, uint64_t va, uint64_t len)
{
	struct npu_mem_alloc alloc = {
		.size = sizeof(alloc),
		.length = ACL_MM_POOL_CHUNK,
		.page_size = acl_pool_page(dev),
	};
	struct npu_map map = { .size = sizeof(map), .flags = NPU_MAP_PEERS, .length = ACL_MM_POOL_CHUNK };
	uint64_t off;
	int ret = 0;

	/* a handle per chunk, so that any chunk can go back alone */
	for (off = 0; off < len; off += ACL_MM_POOL_CHUNK) {
		ret = acl_ioctl(dev->fd, NPU_IOCTL_MEM_ALLOC, &alloc);
		if (ret) {
			acl_mm_alloc_failed(dev, ret, len);
			break;
		}
		map.addr = va + off;
		map.handle = alloc.handle;
		ret = acl_ioctl(dev->fd, NPU_IOCTL_MAP, &map);
		acl_handle_drop(dev, alloc.handle);
		if (ret)
			break;
	}
	if (!ret)
		ret = acl_mm_set_access(dev, va, len, dev->id, NPU_ACCESS_READWRITE, "the pool's device");
	if (ret)
		acl_mm_pool_unback(dev, va, off < len ? off : len);
	return ret;
}

int acl_mm_pool_release(struct acl_device *dev, uint64_t va)
{
	struct acl_region r;
	int ret;

	if (acl_mm_claim(dev, va, ACL_REGION_POOL, &r))
		return acl_errf(-ENOENT, "no pool reservation at %#llx", (unsigned long long)va);
	ret = acl_va_release(dev, va);
	acl_mm_settle(dev, va, !ret, false);
	if (!ret)
		acl_proc_va_release(va, r.len);
	return ret;
}

/* Host memory */

/*
 * Pin [@addr, +@len) for @dev with NPU_HOST_* @kflags as a region of
 * @kind. Mapped: at @addr itself when @identity, else at a fresh device
 * VA; *dev_va gets it.
 */
static int acl_host_pin(struct acl_device *dev, uint64_t addr, uint64_t len, uint32_t kflags,
			bool identity, enum acl_region_kind kind, uint64_t *dev_va)
{
	struct npu_host_register reg = {
		.size = sizeof(reg),
		.flags = kflags,
		.addr = addr,
		.length = len,
	};
	struct npu_host_unregister unreg = { .size = sizeof(unreg), .addr = addr };
	struct acl_region r = { .kind = kind, .addr = addr, .len = len, .host_flags = kflags };
	int ret;

	/* the driver books the device VA itself: no VA_RESERVE */
	if ((kflags & NPU_HOST_MAPPED) && !identity) {
		ret = acl_proc_va_reserve(dev, len, ACL_HOST_PAGE, 0, &r.dev_va);
		if (ret)
			return ret;
		r.dev_va_len = len;
		reg.dev_addr = r.dev_va;
	} else if (kflags & NPU_HOST_MAPPED) {
		reg.dev_addr = addr;
	}
	ret = acl_ioctl(dev->fd, NPU_IOCTL_HOST_REGISTER, &reg);
	if (ret == -EEXIST)
		acl_errf(ret, "ptr %#llx+%#llx overlaps memory registered already", (unsigned long long)addr,
			 (unsigned long long)len);
	else if (ret == -EFAULT)
		acl_errf(ret, "ptr %#llx+%#llx is not mapped in the process", (unsigned long long)addr,
			 (unsigned long long)len);
	else if (ret == -ENOMEM)
		acl_errf(ret, "cannot pin %#llx bytes: over RLIMIT_MEMLOCK?", (unsigned long long)len);
	else if (ret == -EOPNOTSUPP)
		acl_errf(ret, "ptr %#llx+%#llx: the device would reach it only through swiotlb bounce buffers",
			 (unsigned long long)addr, (unsigned long long)len);
	if (ret)
		goto err_release;
	ret = acl_mm_record(dev, &r);
	if (ret)
		goto err_unregister;
	if (dev_va)
		*dev_va = reg.dev_addr;
	return 0;

err_unregister:
	acl_ioctl(dev->fd, NPU_IOCTL_HOST_UNREGISTER, &unreg);
err_release:
	if (r.dev_va)
		acl_proc_va_release(r.dev_va, r.dev_va_len);
	return ret;
}

/* Undo acl_host_pin() for the claimed region @r. */
static int acl_host_unpin(struct acl_device *dev, const struct acl_region *r)
{
	struct npu_host_unregister unreg = { .size = sizeof(unreg), .addr = r->addr };
	int ret;

	ret = acl_ioctl(dev->fd, NPU_IOCTL_HOST_UNREGISTER, &unreg);
	acl_mm_settle(dev, r->addr, !ret, false);
	if (ret)
		return ret;
	if (r->dev_va)
		acl_proc_va_release(r->dev_va, r->dev_va_len);
	return 0;
}

/*
 * aclrtMallocHost memory is the process's, not one device's (CANN takes
 * it from the driver's process-wide pinned heap): each allocation is
 * registered, mapped, with every open device, and with each device as it
 * opens; the pages go when it is freed, or when the last device holding
 * it closes. Every registration pins and charges the pages again: with n
 * devices open an allocation counts n times against RLIMIT_MEMLOCK (the
 * driver charges per registration, Documentation/uapi.rst "Limits").
 *
 * Locking: acl_host_lock protects the list and each allocation's devs;
 * taken after acl_global_lock and a device's lock (a device opening or
 * closing walks the list), before any records' lock.
 */
struct acl_host_alloc {
	struct list_head node;		/* in acl_host_allocs */
	uint64_t addr, len;
	bool identity;			/* VA_FLAG: the device address is the host address */
	uint64_t devs;			/* bit N: registered with device N */
};

static pthread_mutex_t acl_host_lock = PTHREAD_MUTEX_INITIALIZER;
static struct list_head acl_host_allocs = LIST_HEAD_INIT(acl_host_allocs);

/* Undo @a's registration with @dev; 0 also if it had none. acl_host_lock held. */
static int acl_host_alloc_unpin(struct acl_device *dev, struct acl_host_alloc *a)
{
	struct acl_region r;
	int ret;

	if (acl_mm_claim(dev, a->addr, ACL_REGION_HOST_ALLOC, &r))
		return 0;
	ret = acl_host_unpin(dev, &r);
	if (!ret)
		a->devs &= ~(1ULL << dev->id);
	return ret;
}

/* Register @a with @dev unless it is already. acl_host_lock held. */
static int acl_host_alloc_pin(struct acl_device *dev, struct acl_host_alloc *a)
{
	int ret;

	if (a->devs & (1ULL << dev->id))
		return 0;
	ret = acl_host_pin(dev, a->addr, a->len, NPU_HOST_MAPPED, a->identity, ACL_REGION_HOST_ALLOC,
			   NULL);
	if (!ret)
		a->devs |= 1ULL << dev->id;
	return ret;
}

int acl_mm_host_alloc(uint64_t len, bool identity, void **out)
{
	struct acl_host_alloc *a = calloc(1, sizeof(*a));
	struct acl_device *dev;
	int ret = 0, pos = 0;
	void *p;

	if (!a)
		return acl_errf(-ENOMEM, "out of host memory");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		free(a);
		return acl_errf(-ENOMEM, "cannot map %llu bytes of host memory: %s", (unsigned long long)len,
				strerror(errno));
	}
	a->addr = (uintptr_t)p;
	a->len = len;
	a->identity = identity;
	/* under the lock: a device opening meanwhile registers it once listed */
	pthread_mutex_lock(&acl_host_lock);
	while (!ret && (dev = acl_dev_iter(&pos)))
		ret = acl_host_alloc_pin(dev, a);
	if (ret) {
		pos = 0;
		while ((dev = acl_dev_iter(&pos)))
			acl_host_alloc_unpin(dev, a);
	} else {
		list_add_tail(&a->node, &acl_host_allocs);
	}
	pthread_mutex_unlock(&acl_host_lock);
	if (ret) {
		/* pages a failed unregistration left pinned stay mapped */
		if (!a->devs)
			munmap(p, len);
		free(a);
		return ret;
	}
	*out = p;
	return 0;
}

int acl_mm_host_free(void *p)
{
	struct acl_host_alloc *a, *found = NULL;
	struct acl_device *dev;
	int ret = 0, pos = 0;

	pthread_mutex_lock(&acl_host_lock);
	list_for_each_entry(a, &acl_host_allocs, node) {
		if (a->addr == (uintptr_t)p) {
			found = a;
			break;
		}
	}
	if (!found) {
		pthread_mutex_unlock(&acl_host_lock);
		return -ENOENT;
	}
	while (!ret && (dev = acl_dev_iter(&pos)))
		ret = acl_host_alloc_unpin(dev, found);
	/* still registered after a failure: listed, as a device holds the pages */
	if (!ret)
		list_del(&found->node);
	pthread_mutex_unlock(&acl_host_lock);
	if (ret)
		return ret;
	munmap(p, found->len);
	free(found);
	return 0;
}

int acl_mm_host_dev_opened(struct acl_device *dev)
{
	struct acl_host_alloc *a;
	int ret = 0;

	pthread_mutex_lock(&acl_host_lock);
	list_for_each_entry(a, &acl_host_allocs, node) {
		ret = acl_host_alloc_pin(dev, a);
		if (ret)
			break;
	}
	pthread_mutex_unlock(&acl_host_lock);
	return ret;
}

void acl_mm_forget(void)
{
	/* another thread of the parent may have held them at fork */
	pthread_mutex_init(&acl_host_lock, NULL);
	pthread_mutex_init(&acl_vmm_lock, NULL);
}

/*
 * @dev closed (its file released its registrations): the allocations it
 * was the last to hold go, their pages unmapped unless @in_child.
 */
static void acl_host_allocs_closed(struct acl_device *dev, bool in_child)
{
	struct acl_host_alloc *a, *n;

	pthread_mutex_lock(&acl_host_lock);
	list_for_each_entry_safe(a, n, &acl_host_allocs, node) {
		a->devs &= ~(1ULL << dev->id);
		if (a->devs)
			continue;
		list_del(&a->node);
		if (!in_child)
			munmap((void *)(uintptr_t)a->addr, a->len);
		free(a);
	}
	pthread_mutex_unlock(&acl_host_lock);
}

int acl_mm_host_register(struct acl_device *dev, void *p, uint64_t len, uint32_t kflags,
			 uint64_t *dev_va)
{
	struct acl_mm *m = acl_mm_of(dev);
	struct acl_region *r;
	int ret = 0;

	/* aclrtMallocHost memory is registered and mapped already: share that */
	pthread_rwlock_wrlock(&m->lock);
	r = acl_region_at(&m->r, (uintptr_t)p, ACL_REGION_HOST_ALLOC);
	if (r && r->dying)
		r = NULL;
	if (r) {
		if (r->user_registered)
			ret = acl_errf(-EEXIST, "ptr %p is registered already", p);
		else if (len > r->len)
			ret = acl_errf(-EINVAL, "size %llu exceeds the aclrtMallocHost allocation of %llu bytes",
				       (unsigned long long)len, (unsigned long long)r->len);
		else if ((kflags & NPU_HOST_READONLY))
			ret = acl_errf(ACLI_EFEATURE, "ptr %p is aclrtMallocHost memory, mapped read-write", p);
		else
			r->user_registered = true;
		*dev_va = r->dev_va ? r->dev_va : r->addr;
	}
	pthread_rwlock_unlock(&m->lock);
	if (r)
		return ret;
	return acl_host_pin(dev, (uintptr_t)p, len, kflags, false, ACL_REGION_HOST_REG, dev_va);
}

int acl_mm_host_unregister(struct acl_device *dev, void *p)
{
	struct acl_mm *m = acl_mm_of(dev);
	struct acl_region *r, copy;
	int ret = 0;

	pthread_rwlock_wrlock(&m->lock);
	r = acl_region_at(&m->r, (uintptr_t)p, -1);
	if (r && r->kind == ACL_REGION_HOST_ALLOC && !r->dying) {
		if (r->user_registered)
			r->user_registered = false;
		else
			ret = acl_errf(-EINVAL, "ptr %p comes from aclrtMallocHost: release it with aclrtFreeHost",
				       p);
	} else if (!r || r->kind != ACL_REGION_HOST_REG || r->dying) {
		ret = acl_errf(ACLI_ENOTREG, "ptr %p is not the start of host memory registered with device %d",
			       p, dev->id);
	} else {
		r->dying = true;
		copy = *r;
		r = NULL;
	}
	pthread_rwlock_unlock(&m->lock);
	if (ret || r)
		return ret;
	return acl_host_unpin(dev, &copy);
}

int acl_mm_internal(struct acl_device *dev, uint64_t len, uint64_t align, uint64_t skew, bool mapped,
		    void **out)
{
	void *p;
	int ret;

	p = acl_map_aligned(len, align, skew, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
	if (p == MAP_FAILED)
		return acl_errf(-ENOMEM, "cannot map %llu bytes of host memory: %s", (unsigned long long)len,
				strerror(errno));
	ret = acl_host_pin(dev, (uintptr_t)p, len, mapped ? NPU_HOST_MAPPED : 0, true, ACL_REGION_INTERNAL, NULL);
	if (ret) {
		munmap(p, len);
		return ret;
	}
	*out = p;
	return 0;
}

/* Managed memory */

int acl_mm_mirror(struct acl_device *dev, uint64_t addr, uint64_t len)
{
	struct npu_mirror_map mm = { .size = sizeof(mm), .addr = addr, .length = len };
	struct npu_mirror_unmap u = { .size = sizeof(u), .addr = addr };
	struct acl_region r = { .kind = ACL_REGION_MIRROR, .addr = addr, .len = len };
	int ret;

	ret = acl_ioctl(dev->fd, NPU_IOCTL_MIRROR_MAP, &mm);
	if (ret)
		return acl_errf(ret, "cannot mirror managed memory %#llx+%#llx on device %d: %s",
				(unsigned long long)addr, (unsigned long long)len, dev->id,
				strerror(-ret));
	ret = acl_mm_record(dev, &r);
	if (ret)
		acl_ioctl(dev->fd, NPU_IOCTL_MIRROR_UNMAP, &u);
	return ret;
}

void acl_mm_unmirror(struct acl_device *dev, uint64_t addr)
{
	struct npu_mirror_unmap u = { .size = sizeof(u), .addr = addr };
	struct acl_region r;

	if (acl_mm_claim(dev, addr, ACL_REGION_MIRROR, &r))
		return;
	acl_ioctl(dev->fd, NPU_IOCTL_MIRROR_UNMAP, &u);
	/* the memory is the caller's to unmap */
	acl_mm_settle(dev, addr, true, false);
}

/* Device close */

static void acl_region_drop(struct acl_region *r, void *arg)
{
	bool unmap = *(bool *)arg;

	/*
	 * caller-owned and managed memory stays, aclrtMallocHost memory is the
	 * process's (acl_host_allocs_closed()), a guest's VA its reservation's;
	 * what the library mapped goes
	 */
	if (unmap && r->kind != ACL_REGION_HOST_REG && r->kind != ACL_REGION_MIRROR &&
	    r->kind != ACL_REGION_HOST_ALLOC && !r->guest_of)
		munmap((void *)(uintptr_t)r->addr, r->len);
	if (unmap && r->dev_va)
		munmap((void *)(uintptr_t)r->dev_va, r->dev_va_len);
	free(r);
}

/* A mapping goes with the device: a released handle lives only through its mappings. */
static void acl_vmap_drop(void *p, void *arg)
{
	struct acl_handle *h = p;

	(void)arg;
	if (!--h->maps && h->released)
		acl_handle_free(h);
}

static void acl_cpu_drop(const struct acl_range *c, void *arg)
{
	(void)arg;
	acl_cpu_revoke(c->start, c->end - c->start);
}

#define ACL_GUEST_BATCH	32

struct acl_guest_list {
	uint64_t va[ACL_GUEST_BATCH];
	size_t n;
	struct acl_device *of;
};

static void acl_guest_collect(struct acl_region *r, void *arg)
{
	struct acl_guest_list *l = arg;

	if (r->guest_of == l->of && l->n < ACL_GUEST_BATCH)
		l->va[l->n++] = r->addr;
}

/*
 * @dev's reservations went with its file: the mappings other devices made
 * in them go too (their VA is no longer the process's to keep), a batch
 * at a time (no allocation: none may be left behind). acl_vmm_lock held.
 */
static void acl_vmm_guests_drop(struct acl_device *dev)
{
	struct acl_device *home;
	int pos = 0;
	size_t i;

	while ((home = acl_dev_iter(&pos))) {
		struct acl_mm *m = acl_mm_of(home);
		struct acl_guest_list l = { .of = dev };

		if (home == dev)
			continue;
		do {
			l.n = 0;
			pthread_rwlock_rdlock(&m->lock);
			acl_regions_each(&m->r, acl_guest_collect, &l);
			pthread_rwlock_unlock(&m->lock);
			for (i = 0; i < l.n; i++) {
				acl_vmm_undo(home, l.va[i], true);
				pthread_rwlock_wrlock(&m->lock);
				acl_vmm_forget_locked(m, l.va[i]);
				pthread_rwlock_unlock(&m->lock);
			}
		} while (l.n == ACL_GUEST_BATCH);
	}
}

void acl_mm_teardown(struct acl_device *dev, bool in_child)
{
	struct acl_mm *m = acl_mm_of(dev);
	struct acl_handle *h, *n;
	bool unmap = !in_child;

	/* another thread of the parent may have held it at fork */
	if (in_child) {
		pthread_rwlock_init(&m->lock, NULL);
	} else {
		/* no map racing with the teardown of either side of a guest */
		pthread_mutex_lock(&acl_vmm_lock);
		/* a child closes every device: the guests go with their own files */
		acl_vmm_guests_drop(dev);
	}
	pthread_rwlock_wrlock(&m->lock);
	/* the CPU's views in reservations of devices still open go; in a child they stay as inherited */
	if (!in_child)
		acl_ranges_walk(&m->r.cpu, acl_cpu_drop, NULL);
	if (m->aperture >= 0)
		close(m->aperture);
	m->aperture = -1;
	acl_ranges_each(&m->r.maps, acl_vmap_drop, NULL);
	list_for_each_entry_safe(h, n, &m->handles, node) {
		list_del(&h->node);
		acl_handle_free(h);
	}
	acl_regions_clear(&m->r, acl_region_drop, &unmap);
	pthread_rwlock_unlock(&m->lock);
	if (!in_child)
		pthread_mutex_unlock(&acl_vmm_lock);
	acl_host_allocs_closed(dev, in_child);
}
