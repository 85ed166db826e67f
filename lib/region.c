// SPDX-License-Identifier: MIT
/* Device VA reservations mirrored in the process, and the region list. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "device.h"
#include "error.h"
#include "ioctl.h"
#include "region.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define ACL_HOST_PAGE	4096ULL
#define ACL_VA_PROT	PROT_NONE
#define ACL_VA_FLAGS	(MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)

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

/* Reserve [@len aligned to @align] of process address space, PROT_NONE. */
static int acl_proc_va_reserve(uint64_t len, uint64_t align, uint64_t hint, uint64_t *addr)
{
	void *p;

	if (hint && !(hint & (align - 1))) {
		p = mmap((void *)(uintptr_t)hint, len, ACL_VA_PROT, ACL_VA_FLAGS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == (void *)(uintptr_t)hint) {
			*addr = hint;
			return 0;
		}
		/* kernels before 4.17 treat the flag as a hint and may map elsewhere */
		if (p != MAP_FAILED)
			munmap(p, len);
	}
	p = acl_map_aligned(len, align, 0, ACL_VA_PROT, ACL_VA_FLAGS);
	if (p == MAP_FAILED && errno == EOVERFLOW)
		return acl_errf(-EINVAL, "size %#llx too large", (unsigned long long)len);
	if (p == MAP_FAILED)
		return acl_errf(-ENOMEM, "cannot reserve %#llx bytes of address space: %s",
				(unsigned long long)len, strerror(errno));
	*addr = (uintptr_t)p;
	return 0;
}

int acl_va_reserve_proc(struct acl_device *dev, uint64_t len, uint64_t align, uint64_t *addr)
{
	uint64_t start = 0;
	int ret;

	ret = acl_proc_va_reserve(len, align, 0, &start);
	if (ret)
		return ret;
	if (start < dev->va_start || start + len > dev->va_end) {
		munmap((void *)(uintptr_t)start, len);
		return acl_errf(-ENOMEM, "address space %#llx+%#llx falls outside device %d's VA window [%#llx, %#llx)",
				(unsigned long long)start, (unsigned long long)len, dev->id,
				(unsigned long long)dev->va_start, (unsigned long long)dev->va_end);
	}
	*addr = start;
	return 0;
}

int acl_va_reserve(struct acl_device *dev, uint64_t len, uint64_t align, uint64_t hint, uint64_t *addr)
{
	struct npu_va_range arg = { .size = sizeof(arg), .length = len };
	uint64_t start = 0;
	int ret;

	ret = acl_proc_va_reserve(len, align, hint, &start);
	if (ret)
		return ret;
	if (start < dev->va_start || start + len > dev->va_end) {
		ret = acl_errf(-ENOMEM, "address space %#llx+%#llx falls outside device %d's VA window [%#llx, %#llx)",
			       (unsigned long long)start, (unsigned long long)len, dev->id,
			       (unsigned long long)dev->va_start, (unsigned long long)dev->va_end);
		goto err_unmap;
	}
	arg.addr = start;
	ret = npu_ioctl(dev->fd, NPU_IOCTL_VA_RESERVE, &arg);
	if (ret)
		goto err_unmap;
	*addr = start;
	return 0;

err_unmap:
	munmap((void *)(uintptr_t)start, len);
	return ret;
}

int acl_va_release(struct acl_device *dev, uint64_t addr, uint64_t len)
{
	struct npu_va_range arg = { .size = sizeof(arg), .addr = addr };
	int ret;

	ret = npu_ioctl(dev->fd, NPU_IOCTL_VA_RELEASE, &arg);
	if (ret)
		return ret;
	munmap((void *)(uintptr_t)addr, len);
	return 0;
}

static struct list_head *acl_region_bucket(struct acl_device *dev, uint64_t addr)
{
	return &dev->regions[(addr >> 12) % ACL_REGION_BUCKETS];
}

void acl_region_link_locked(struct acl_device *dev, struct acl_region *r)
{
	list_add_tail(&r->node, acl_region_bucket(dev, r->addr));
}

int acl_region_add(struct acl_device *dev, const struct acl_region *tmpl)
{
	struct acl_region *r = malloc(sizeof(*r));

	if (!r)
		return acl_errf(-ENOMEM, "out of host memory");
	*r = *tmpl;
	pthread_mutex_lock(&dev->lock);
	acl_region_link_locked(dev, r);
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

struct acl_region *acl_region_find_locked(struct acl_device *dev, uint64_t addr, int kind)
{
	struct acl_region *r;

	list_for_each_entry(r, acl_region_bucket(dev, addr), node)
		if (r->addr == addr && (kind < 0 || (int)r->kind == kind))
			return r;
	return NULL;
}

int acl_region_take(struct acl_device *dev, uint64_t addr, int kind, struct acl_region *out)
{
	struct acl_region *r;

	pthread_mutex_lock(&dev->lock);
	r = acl_region_find_locked(dev, addr, kind);
	if (r)
		list_del(&r->node);
	pthread_mutex_unlock(&dev->lock);
	if (!r)
		return -ENOENT;
	*out = *r;
	free(r);
	return 0;
}

void acl_regions_teardown(struct acl_device *dev, bool unmap)
{
	struct acl_region *r, *n;
	unsigned int i;

	for (i = 0; i < ACL_REGION_BUCKETS; i++) {
		list_for_each_entry_safe(r, n, &dev->regions[i], node) {
			list_del(&r->node);
			if (unmap && r->kind != ACL_REGION_HOST_REG)
				munmap((void *)(uintptr_t)r->addr, r->len);
			if (unmap && r->dev_va)
				munmap((void *)(uintptr_t)r->dev_va, r->dev_va_len);
			free(r);
		}
	}
}

int acl_addr_query(struct acl_device *dev, uint64_t addr, struct npu_addr_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->addr = addr;
	return npu_ioctl(dev->fd, NPU_IOCTL_ADDR_QUERY, q);
}
