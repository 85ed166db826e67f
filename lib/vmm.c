// SPDX-License-Identifier: MIT
/*
 * Virtual memory management: physical handles, VA reservations, maps
 * and access rights, each a thin layer over one driver request.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <acl/acl.h>

#include "device.h"
#include "error.h"
#include "ioctl.h"
#include "memory.h"
#include "region.h"
#include "vmm.h"

#define ACL_VMM_GRANULE		NPU_PAGE_2M

void acl_handles_teardown(struct acl_device *dev)
{
	struct acl_handle *h, *n;
	struct acl_vmap *v;

	/* released handles live only through their mappings */
	while ((v = dev->vmaps)) {
		dev->vmaps = v->next;
		if (v->h->released && !--v->h->maps)
			free(v->h);
		free(v);
	}
	list_for_each_entry_safe(h, n, &dev->handles, node) {
		list_del(&h->node);
		free(h);
	}
}

struct acl_vmap *acl_vmap_find_locked(struct acl_device *dev, uint64_t addr)
{
	struct acl_vmap *v;

	for (v = dev->vmaps; v; v = v->next)
		if (addr >= v->addr && addr - v->addr < v->h->size)
			return v;
	return NULL;
}

/* @h is released and unmapped: its memory is gone. dev->lock held; frees @h. */
static void acl_handle_gone_locked(struct acl_handle *h)
{
	if (!h->imported)
		acl_mem_account_locked(h->dev, ACL_MEM_KIND_PHYSICAL, -(int64_t)h->size);
	free(h);
}

static bool acl_attr_is_p2p(aclrtMemAttr a)
{
	switch (a) {
	case ACL_DDR_MEM_P2P_HUGE:
	case ACL_DDR_MEM_P2P_NORMAL:
	case ACL_HBM_MEM_P2P_HUGE:
	case ACL_HBM_MEM_P2P_NORMAL:
	case ACL_HBM_MEM_P2P_HUGE1G:
	case ACL_MEM_P2P_NORMAL:
	case ACL_MEM_P2P_HUGE:
	case ACL_MEM_P2P_HUGE1G:
		return true;
	default:
		return false;
	}
}

static bool acl_attr_is_1g(aclrtMemAttr a)
{
	return a == ACL_HBM_MEM_HUGE1G || a == ACL_HBM_MEM_P2P_HUGE1G ||
	       a == ACL_MEM_HUGE1G || a == ACL_MEM_P2P_HUGE1G;
}

/* Check every field of @prop; *gran gets its allocation granularity. */
static int acl_prop_check(const aclrtPhysicalMemProp *prop, uint64_t *gran)
{
	int ret;

	if (!prop)
		return acl_errf(-EINVAL, "prop must not be NULL");
	if (prop->handleType != ACL_MEM_HANDLE_TYPE_NONE && prop->handleType != ACL_MEM_HANDLE_TYPE_POSIX)
		return acl_errf(-EINVAL, "prop->handleType %d must be ACL_MEM_HANDLE_TYPE_NONE or _POSIX",
				(int)prop->handleType);
	if (prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED)
		return acl_errf(-EINVAL, "prop->allocationType %d must be ACL_MEM_ALLOCATION_TYPE_PINNED",
				(int)prop->allocationType);
	if ((unsigned int)prop->memAttr > ACL_MEM_P2P_HUGE1G)
		return acl_errf(-EINVAL, "prop->memAttr %d is not an aclrtMemAttr", (int)prop->memAttr);
	if (prop->location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
		return acl_errf(-EINVAL, "prop->location.type %d must be ACL_MEM_LOCATION_TYPE_DEVICE",
				(int)prop->location.type);
	ret = acl_dev_check_id(prop->location.id, "prop->location.id");
	if (ret)
		return ret;
	if (prop->reserve)
		return acl_errf(-EINVAL, "prop->reserve must be 0");
	*gran = acl_attr_is_1g(prop->memAttr) ? NPU_PAGE_1G : NPU_PAGE_2M;
	return 0;
}

ACL_EXPORT aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
						     aclrtMemGranularityOptions option,
						     size_t *granularity)
{
	uint64_t gran;
	int ret;

	ret = acl_enter(NULL, granularity);
	if (ret)
		goto out;
	if (option != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM &&
	    option != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED) {
		ret = acl_errf(-EINVAL, "option %d must be ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM or _RECOMMENDED",
			       (int)option);
		goto out;
	}
	ret = acl_prop_check(prop, &gran);
	if (!ret)
		*granularity = gran;
out:
	return acl_ret(__func__, ret);
}

struct acl_handle *acl_handle_lookup(const void *p)
{
	return acl_dev_find(handles, struct acl_handle, p);
}

ACL_EXPORT aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
					const aclrtPhysicalMemProp *prop, uint64_t flags)
{
	struct npu_mem_alloc alloc = { .size = sizeof(alloc) };
	struct acl_device *dev;
	struct acl_handle *h;
	uint64_t gran;
	int ret;

	ret = acl_enter(NULL, handle);
	if (ret)
		goto out;
	if (flags) {
		ret = acl_errf(-EINVAL, "flags %#llx must be 0", (unsigned long long)flags);
		goto out;
	}
	ret = acl_prop_check(prop, &gran);
	if (ret)
		goto out;
	if (!size || size % gran) {
		ret = acl_errf(-EINVAL, "size %zu must be a non-zero multiple of the granularity %llu",
			       size, (unsigned long long)gran);
		goto out;
	}
	ret = acl_cur_dev(&dev);
	if (ret)
		goto out;
	if (prop->location.id != (uint32_t)dev->id) {
		ret = acl_errf(-EINVAL, "prop->location.id %u must be the current device %d",
			       prop->location.id, dev->id);
		goto out;
	}
	if (!(dev->page_sizes & gran)) {
		ret = acl_errf(-EOPNOTSUPP, "device %d has no %llu MiB pages", dev->id,
			       (unsigned long long)(gran >> 20));
		goto out;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		ret = acl_errf(-ENOMEM, "out of host memory");
		goto out;
	}
	alloc.length = size;
	alloc.page_size = gran;
	ret = npu_ioctl(dev->fd, NPU_IOCTL_MEM_ALLOC, &alloc);
	if (ret) {
		free(h);
		if (ret == -ENOMEM)
			acl_errf(ret, "cannot allocate %zu bytes on device %d: device memory exhausted",
				 size, dev->id);
		goto out;
	}
	h->dev = dev;
	h->id = alloc.handle;
	h->size = size;
	h->page_size = gran;
	h->p2p = acl_attr_is_p2p(prop->memAttr);
	pthread_mutex_lock(&dev->lock);
	list_add_tail(&h->node, &dev->handles);
	acl_mem_account_locked(dev, ACL_MEM_KIND_PHYSICAL, (int64_t)size);
	pthread_mutex_unlock(&dev->lock);
	*handle = h;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
	struct npu_mem_free mfree = { .size = sizeof(mfree) };
	struct acl_device *dev;
	struct acl_handle *h;
	int ret;

	ret = acl_enter(NULL, handle);
	if (ret)
		goto out;
	h = acl_handle_lookup(handle);
	if (!h) {
		ret = acl_errf(-EINVAL, "handle %p is not a live aclrtMallocPhysical handle", handle);
		goto out;
	}
	dev = h->dev;
	pthread_mutex_lock(&dev->lock);
	/* one free per aclrtMemRetainAllocationHandle before the last one */
	if (h->retains) {
		h->retains--;
		pthread_mutex_unlock(&dev->lock);
		goto out;
	}
	list_del(&h->node);
	mfree.handle = h->id;
	/* a mapped handle lives on, in the kernel and here, until its mappings go */
	if (h->maps)
		h->released = true;
	else
		acl_handle_gone_locked(h);
	pthread_mutex_unlock(&dev->lock);
	ret = npu_ioctl(dev->fd, NPU_IOCTL_MEM_FREE, &mfree);
out:
	return acl_ret(__func__, ret);
}

static bool acl_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

ACL_EXPORT aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
					   uint64_t flags)
{
	struct acl_region r = { .kind = ACL_REGION_VMM };
	struct acl_device *dev;
	uint64_t va;
	int ret;

	ret = acl_enter(NULL, virPtr);
	if (ret)
		goto out;
	if (!size || size % ACL_VMM_GRANULE) {
		ret = acl_errf(-EINVAL, "size %zu must be a non-zero multiple of 2 MiB", size);
		goto out;
	}
	if (alignment && (!acl_is_pow2(alignment) || alignment < ACL_VMM_GRANULE)) {
		ret = acl_errf(-EINVAL, "alignment %zu must be 0 or a power of two >= 2 MiB", alignment);
		goto out;
	}
	if (flags) {
		ret = acl_errf(-EINVAL, "flags %#llx must be 0", (unsigned long long)flags);
		goto out;
	}
	ret = acl_cur_dev(&dev);
	if (ret)
		goto out;
	/* expectPtr is a hint: taken when free and aligned, else ignored */
	ret = acl_va_reserve(dev, size, alignment ? alignment : ACL_VMM_GRANULE, (uintptr_t)expectPtr, &va);
	if (ret)
		goto out;
	r.addr = va;
	r.len = size;
	ret = acl_region_add(dev, &r);
	if (ret) {
		acl_va_release(dev, va, size);
		goto out;
	}
	*virPtr = (void *)(uintptr_t)va;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtReleaseMemAddress(void *virPtr)
{
	struct acl_device *dev;
	struct acl_region *r;
	struct npu_va_range arg = { .size = sizeof(arg), .addr = (uintptr_t)virPtr };
	uint64_t len = 0;
	int ret;

	ret = acl_enter(&dev, virPtr);
	if (ret)
		goto out;
	/* Release in the kernel first: it refuses while mappings remain. */
	pthread_mutex_lock(&dev->lock);
	r = acl_region_find_locked(dev, (uintptr_t)virPtr, ACL_REGION_VMM);
	if (!r) {
		ret = acl_errf(-EINVAL, "virPtr %p is not an address reserved by aclrtReserveMemAddress", virPtr);
	} else {
		ret = npu_ioctl(dev->fd, NPU_IOCTL_VA_RELEASE, &arg);
		if (ret == -EBUSY)
			ret = acl_errf(ret, "virPtr %p still has mappings: aclrtUnmapMem them first", virPtr);
		if (!ret) {
			len = r->len;
			list_del(&r->node);
			free(r);
		}
	}
	pthread_mutex_unlock(&dev->lock);
	if (len)
		munmap(virPtr, len);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
				uint64_t flags)
{
	struct npu_map map = { .size = sizeof(map) };
	struct acl_device *dev;
	struct acl_handle *h;
	struct acl_vmap *v;
	int ret;

	ret = acl_enter(NULL, virPtr, handle);
	if (ret)
		goto out;
	if (flags) {
		ret = acl_errf(-EINVAL, "flags %#llx must be 0", (unsigned long long)flags);
		goto out;
	}
	if (offset) {
		ret = acl_errf(-EINVAL, "offset %zu must be 0: a handle is mapped whole", offset);
		goto out;
	}
	ret = acl_cur_dev(&dev);
	if (ret)
		goto out;
	h = acl_handle_lookup(handle);
	if (!h) {
		ret = acl_errf(-EINVAL, "handle %p is not a live aclrtMallocPhysical handle", handle);
		goto out;
	}
	if (size != h->size) {
		ret = acl_errf(-EINVAL, "size %zu must equal the handle's size %llu", size,
			       (unsigned long long)h->size);
		goto out;
	}
	if (h->dev != dev) {
		ret = acl_errf(-EINVAL, "handle %p belongs to device %d, not the current device %d", handle,
			       h->dev->id, dev->id);
		goto out;
	}
	if ((uintptr_t)virPtr & (h->page_size - 1)) {
		ret = acl_errf(-EINVAL, "virPtr %p must be aligned to the handle's page size %llu", virPtr,
			       (unsigned long long)h->page_size);
		goto out;
	}
	v = malloc(sizeof(*v));
	if (!v) {
		ret = acl_errf(-ENOMEM, "out of host memory");
		goto out;
	}
	map.addr = (uintptr_t)virPtr;
	map.length = size;
	map.handle = h->id;
	ret = npu_ioctl(dev->fd, NPU_IOCTL_MAP, &map);
	if (!ret) {
		v->addr = map.addr;
		v->h = h;
		pthread_mutex_lock(&dev->lock);
		v->next = dev->vmaps;
		dev->vmaps = v;
		h->maps++;
		pthread_mutex_unlock(&dev->lock);
		v = NULL;
	}
	free(v);
	if (ret == -ENOENT)
		ret = acl_errf(ret, "virPtr %p+%zu is not inside one aclrtReserveMemAddress range", virPtr, size);
	else if (ret == -EADDRINUSE)
		ret = acl_errf(ret, "virPtr %p+%zu overlaps an existing mapping", virPtr, size);
	else if (ret == -EBUSY)
		ret = acl_errf(ret, "handle %p is mapped already", handle);
out:
	return acl_ret(__func__, ret);
}

/* Forget the mapping at @addr; a released handle goes with its last one. */
static void acl_vmap_remove(struct acl_device *dev, uint64_t addr)
{
	struct acl_vmap **pv, *v = NULL;

	pthread_mutex_lock(&dev->lock);
	for (pv = &dev->vmaps; *pv; pv = &(*pv)->next) {
		if ((*pv)->addr == addr) {
			v = *pv;
			*pv = v->next;
			if (!--v->h->maps && v->h->released)
				acl_handle_gone_locked(v->h);
			break;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	free(v);
}

ACL_EXPORT aclError aclrtUnmapMem(void *virPtr)
{
	struct npu_unmap unmap = { .size = sizeof(unmap), .addr = (uintptr_t)virPtr };
	struct acl_device *dev;
	int ret;

	ret = acl_enter(&dev, virPtr);
	if (ret)
		goto out;
	ret = npu_ioctl(dev->fd, NPU_IOCTL_UNMAP, &unmap);
	if (ret == -ENOENT)
		ret = acl_errf(ret, "virPtr %p is not the start of an aclrtMapMem mapping", virPtr);
	if (!ret)
		acl_vmap_remove(dev, unmap.addr);
out:
	return acl_ret(__func__, ret);
}

static int acl_location_check(const aclrtMemLocation *loc, const char *what)
{
	if (loc->type == ACL_MEM_LOCATION_TYPE_HOST)
		return acl_errf(ACLI_EFEATURE, "%s.type HOST: the CPU cannot map device memory with this driver",
				what);
	if (loc->type != ACL_MEM_LOCATION_TYPE_DEVICE)
		return acl_errf(-EINVAL, "%s.type %d must be ACL_MEM_LOCATION_TYPE_DEVICE", what, (int)loc->type);
	/* another device's id grants (or reads) that device's peer access */
	return acl_dev_check_id(loc->id, what);
}

ACL_EXPORT aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count)
{
	struct npu_access acc = { .size = sizeof(acc), .addr = (uintptr_t)virPtr, .length = size };
	struct acl_device *dev;
	char what[48];
	size_t i, j;
	int ret;

	ret = acl_enter(NULL, virPtr, desc);
	if (ret)
		goto out;
	if (!size) {
		ret = acl_errf(-EINVAL, "size must be non-zero");
		goto out;
	}
	if (!count) {
		ret = acl_errf(-EINVAL, "count must be at least 1");
		goto out;
	}
	ret = acl_cur_dev(&dev);
	if (ret)
		goto out;
	/* check them all before changing anything */
	for (i = 0; i < count; i++) {
		aclrtMemAccessFlags f = desc[i].flags;

		if (f != ACL_RT_MEM_ACCESS_FLAGS_NONE && f != ACL_RT_MEM_ACCESS_FLAGS_READ &&
		    f != ACL_RT_MEM_ACCESS_FLAGS_READWRITE) {
			ret = acl_errf(-EINVAL, "desc[%zu].flags %#x must be NONE, READ or READWRITE", i,
				       (unsigned int)f);
			goto out;
		}
		for (j = 0; j < sizeof(desc[i].rsv); j++) {
			if (desc[i].rsv[j]) {
				ret = acl_errf(-EINVAL, "desc[%zu].rsv must be zero", i);
				goto out;
			}
		}
		snprintf(what, sizeof(what), "desc[%zu].location", i);
		ret = acl_location_check(&desc[i].location, what);
		if (ret)
			goto out;
	}
	for (i = 0; i < count; i++) {
		acc.device = desc[i].location.id;
		acc.access = desc[i].flags;
		ret = npu_ioctl(dev->fd, NPU_IOCTL_SET_ACCESS, &acc);
		if (ret == -ENOENT)
			ret = acl_errf(ret, "virPtr %p+%zu is not entirely mapped", virPtr, size);
		else if (ret == -EINVAL && acc.device != (uint32_t)dev->id)
			ret = acl_errf(ret, "virPtr %p+%zu must be 4 KiB aligned and cover whole mappings of device memory (host memory is reachable by its own device only, not device %u)",
				       virPtr, size, acc.device);
		else if (ret == -EINVAL)
			ret = acl_errf(ret, "virPtr %p+%zu must be 4 KiB aligned and cover whole mappings",
				       virPtr, size);
		else if (ret == -ENODEV)
			ret = acl_errf(ret, "desc[%zu].location.id %u: the driver has no such device", i,
				       acc.device);
		if (ret)
			goto out;
	}
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag)
{
	struct npu_access acc = { .size = sizeof(acc), .addr = (uintptr_t)virPtr };
	struct acl_device *dev;
	int ret;

	ret = acl_enter(&dev, virPtr, location, flag);
	if (ret)
		goto out;
	ret = acl_location_check(location, "location");
	if (ret)
		goto out;
	acc.device = location->id;
	ret = npu_ioctl(dev->fd, NPU_IOCTL_GET_ACCESS, &acc);
	if (ret == -ENOENT)
		ret = acl_errf(ret, "virPtr %p is not mapped", virPtr);
	else if (ret == -ENODEV)
		ret = acl_errf(ret, "location.id %u: the driver has no such device", acc.device);
	if (!ret)
		*flag = acc.access;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle)
{
	struct acl_device *dev;
	struct acl_vmap *v = NULL;
	int ret, pos = 0;

	ret = acl_enter(NULL, virPtr, handle);
	if (ret)
		goto out;
	/* mappings never overlap across devices: each is reserved in the process */
	while ((dev = acl_dev_iter(&pos))) {
		pthread_mutex_lock(&dev->lock);
		v = acl_vmap_find_locked(dev, (uintptr_t)virPtr);
		if (v && v->addr != (uintptr_t)virPtr)
			ret = acl_errf(ACLI_ERTPARAM, "virPtr %p is inside the aclrtMapMem mapping at %#llx, not its start",
				       virPtr, (unsigned long long)v->addr);
		else if (v && v->h->released)
			ret = acl_errf(ACLI_ERTPARAM, "the handle mapped at virPtr %p was freed with aclrtFreePhysical: only the mapping holds the memory now",
				       virPtr);
		else if (v)
			v->h->retains++;
		if (v && !ret)
			*handle = v->h;
		pthread_mutex_unlock(&dev->lock);
		if (v)
			goto out;
	}
	ret = acl_errf(ACLI_ERTPARAM, "virPtr %p is not the start of an aclrtMapMem mapping", virPtr);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle, aclrtPhysicalMemProp *prop)
{
	struct acl_handle *h;
	int ret;

	ret = acl_enter(NULL, handle, prop);
	if (ret)
		goto out;
	h = acl_handle_lookup(handle);
	if (!h) {
		ret = acl_errf(-EINVAL, "handle %p is not a live aclrtMallocPhysical handle", handle);
		goto out;
	}
	memset(prop, 0, sizeof(*prop));
	prop->handleType = ACL_MEM_HANDLE_TYPE_NONE;
	prop->allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
	/* from the page size the memory really has: a NORMAL memAttr gets 2 MiB pages too */
	if (h->page_size == NPU_PAGE_1G)
		prop->memAttr = h->p2p ? ACL_HBM_MEM_P2P_HUGE1G : ACL_HBM_MEM_HUGE1G;
	else if (h->page_size == NPU_PAGE_2M)
		prop->memAttr = h->p2p ? ACL_HBM_MEM_P2P_HUGE : ACL_HBM_MEM_HUGE;
	else
		prop->memAttr = h->p2p ? ACL_HBM_MEM_P2P_NORMAL : ACL_HBM_MEM_NORMAL;
	prop->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	prop->location.id = (uint32_t)h->dev->id;
out:
	return acl_ret(__func__, ret);
}
