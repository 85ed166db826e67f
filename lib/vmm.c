// SPDX-License-Identifier: MIT
/*
 * Virtual memory management: physical handles, VA reservations, maps
 * and access rights: the API's checks over the memory layer (mm.c), which
 * makes each request and keeps the handles and mappings.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <acl/acl.h>

#include "context.h"
#include "device.h"
#include "error.h"
#include "mm.h"
#include "snapstate.h"

#define ACL_VMM_GRANULE		NPU_PAGE_2M

static bool acl_attr_is_1g(aclrtMemAttr a)
{
	return a == ACL_HBM_MEM_HUGE1G || a == ACL_HBM_MEM_P2P_HUGE1G ||
	       a == ACL_MEM_HUGE1G || a == ACL_MEM_P2P_HUGE1G;
}

/*
 * The memAttr aclrtMemGetAllocationPropertiesFromHandle reports for a
 * request of @a: the request, whatever pages back it; CANN's table
 * (memory.cpp mapping[]) names device memory of the generic kinds HBM.
 */
static int acl_attr_reported(aclrtMemAttr a)
{
	switch (a) {
	case ACL_MEM_NORMAL:
		return ACL_HBM_MEM_NORMAL;
	case ACL_MEM_HUGE:
		return ACL_HBM_MEM_HUGE;
	case ACL_MEM_HUGE1G:
		return ACL_HBM_MEM_HUGE1G;
	default:
		return a;
	}
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

ACL_EXPORT aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
					const aclrtPhysicalMemProp *prop, uint64_t flags)
{
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
	/*
	 * CANN validates the id only: any device, current or not. Here the
	 * memory lives in the device's context, which some thread's
	 * aclrtSetDevice must have opened (lib/README.md).
	 */
	dev = acl_dev_get((int)prop->location.id);
	if (!dev) {
		ret = acl_errf(ACLI_ENOCTX, "prop->location.id %u: device %u is not set in this process (aclrtSetDevice(%u) in any thread)",
			       prop->location.id, prop->location.id, prop->location.id);
		goto out;
	}
	if (!(dev->page_sizes & gran)) {
		ret = acl_errf(-EOPNOTSUPP, "device %d has no %llu MiB pages", dev->id,
			       (unsigned long long)(gran >> 20));
		goto out;
	}
	ret = acl_mm_handle_alloc(dev, size, gran, acl_attr_reported(prop->memAttr), &h);
	if (!ret)
		*handle = h;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
	int ret;

	ret = acl_enter(NULL, handle);
	if (!ret)
		ret = acl_mm_handle_free(handle);
	return acl_ret(__func__, ret);
}

/*
 * The vendor's reservation heaps (hicann/driver src/ascend_hal/svm/v2):
 * above 512 MiB (DEVMM_LARGE_MEM_THRESHOLD_SIZE) the base heap, in 1 GiB
 * chunks; up to it the reserve heap, in 2 MiB chunks. A reservation is
 * whole chunks, aligned to the chunk.
 */
#define ACL_VMM_LARGE		(512ULL << 20)

static uint64_t acl_reserve_chunk(uint64_t size)
{
	return size > ACL_VMM_LARGE ? NPU_PAGE_1G : ACL_VMM_GRANULE;
}

/*
 * The vendor's expectPtr rule (devmm_mem_address_reserve_addr_size_check()):
 * aligned to the chunk and, up to 512 MiB, to the power of two >= size.
 */
static uint64_t acl_expect_align(uint64_t size)
{
	uint64_t a = acl_reserve_chunk(size);

	while (size <= ACL_VMM_LARGE && a < size)
		a <<= 1;
	return a;
}

/*
 * CANN's remote-map reservations (aclrtReserveMemAddressNoUCMemory: flag
 * bit 9, MEM_RSV_TYPE_REMOTE_MAP) come from the driver's dynamic heap:
 * whole GiBs (DEVMM_HEAP_SIZE), at an address given.
 */
#define ACL_VMM_DYN_CHUNK	NPU_PAGE_1G

/* aclrtReserveMemAddress, or with @no_uc aclrtReserveMemAddressNoUCMemory. */
static int acl_reserve(void **virPtr, size_t size, size_t alignment, void *expectPtr, uint64_t flags,
		       bool no_uc)
{
	uint64_t va, len, chunk = acl_reserve_chunk(size), want = (uintptr_t)expectPtr;
	struct acl_device *dev;
	int ret;

	ret = acl_enter(NULL, virPtr);
	if (ret)
		return ret;
	if (!size)
		return acl_errf(-EINVAL, "size must be non-zero");
	/* CANN: 1 is kept for compatibility with the early interface and means what 0 does */
	if (flags > 1)
		return acl_errf(-EINVAL, "flags %#llx must be 0 or 1", (unsigned long long)flags);
	/* from here the runtime's checks (107000), as the vendor's driver makes them */
	if (alignment)
		return acl_errf(ACLI_ERTPARAM, "alignment %zu must be 0 (a reserved parameter)", alignment);
	len = acl_round_up(size, chunk);
	if (len < size)
		return acl_errf(ACLI_ERTPARAM, "size %zu too large", size);
	if (want & (acl_expect_align(size) - 1))
		return acl_errf(ACLI_ERTPARAM, "expectPtr %p must be aligned to %llu MiB for size %zu", expectPtr,
				(unsigned long long)(acl_expect_align(size) >> 20), size);
	if (no_uc && !want)
		return acl_errf(ACLI_ERTNOTSUPP, "expectPtr must name the address: this reservation is made at a given address only");
	if (no_uc && size % ACL_VMM_DYN_CHUNK)
		return acl_errf(ACLI_ERTPARAM, "size %zu must be a multiple of 1 GiB", size);
	ret = acl_cur_dev(&dev);
	if (ret)
		return ret;
	ret = acl_mm_reserve(dev, len, chunk, want, &va);
	if (!ret)
		*virPtr = (void *)(uintptr_t)va;
	return ret;
}

ACL_EXPORT aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
					   uint64_t flags)
{
	return acl_ret(__func__, acl_reserve(virPtr, size, alignment, expectPtr, flags, false));
}

/*
 * Memory the vendor keeps away from operators that bypass the L2 cache
 * (AUTO_USE_UC_MEMORY): the simulated chip has no cache, so it is an
 * ordinary reservation, made where expectPtr says.
 */
ACL_EXPORT aclError aclrtReserveMemAddressNoUCMemory(void **virPtr, size_t size, size_t alignment, void *expectPtr,
						     uint64_t flags)
{
	return acl_ret(__func__, acl_reserve(virPtr, size, alignment, expectPtr, flags, true));
}

ACL_EXPORT aclError aclrtReleaseMemAddress(void *virPtr)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(&dev, virPtr);
	if (!ret)
		ret = acl_mm_release(dev, (uintptr_t)virPtr);
	return acl_ret(__func__, ret);
}

/*
 * aclrtMapMem and aclrtMemMapNoAccess: the acl layer's checks (100000),
 * then the driver's (offset: 107000, vendor devmm_mem_map_para_check()).
 */
static int acl_map_checked(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
			   uint64_t flags, bool owner_rw)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(NULL, virPtr, handle);
	if (ret)
		return ret;
	if (!size)
		return acl_errf(-EINVAL, "size must be non-zero");
	if (flags)
		return acl_errf(-EINVAL, "flags %#llx must be 0", (unsigned long long)flags);
	if (offset)
		return acl_errf(ACLI_ERTPARAM, "offset %zu must be 0: a handle is mapped whole", offset);
	/* the reservation is the current device's; the handle any device's (lib/README.md) */
	ret = acl_cur_dev(&dev);
	if (ret)
		return ret;
	return acl_mm_map(dev, (uintptr_t)virPtr, size, handle, owner_rw);
}

/* CANN: the handle's device reads and writes the mapping at once (torch_npu relies on it). */
ACL_EXPORT aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
				uint64_t flags)
{
	return acl_ret(__func__, acl_map_checked(virPtr, size, offset, handle, flags, true));
}

ACL_EXPORT aclError aclrtMemMapNoAccess(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
					uint64_t flags)
{
	return acl_ret(__func__, acl_map_checked(virPtr, size, offset, handle, flags, false));
}

ACL_EXPORT aclError aclrtUnmapMem(void *virPtr)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(&dev, virPtr);
	if (!ret)
		ret = acl_mm_unmap(dev, (uintptr_t)virPtr);
	return acl_ret(__func__, ret);
}

/*
 * A location of aclrtMemSetAccess/GetAccess: a device, or the host (the
 * CPU of the process, id 0 as the vendor's driver requires:
 * devmm_access_location_check(), DRV_ERROR_INVALID_VALUE).
 */
static int acl_location_check(const aclrtMemLocation *loc, const char *what)
{
	if (loc->type == ACL_MEM_LOCATION_TYPE_HOST) {
		if (loc->id)
			return acl_errf(ACLI_ERTPARAM, "%s.id %u must be 0 for ACL_MEM_LOCATION_TYPE_HOST", what,
					loc->id);
		return 0;
	}
	if (loc->type != ACL_MEM_LOCATION_TYPE_DEVICE)
		return acl_errf(-EINVAL, "%s.type %d must be ACL_MEM_LOCATION_TYPE_DEVICE or _HOST", what,
				(int)loc->type);
	/* another device's id grants (or reads) that device's peer access */
	return acl_dev_check_id(loc->id, what);
}

/*
 * A HOST location makes the CPU reach the mappings at their own address
 * (READ, READWRITE) or no longer (NONE): acl_mm_set_cpu_access().
 */
ACL_EXPORT aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count)
{
	struct acl_device *cur, *dev;
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
	ret = acl_cur_dev(&cur);
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
	/* device access changes: not while the process is locked for a snapshot */
	acl_snap_gate();
	/* a mapping of another device's handle is that device's to change */
	dev = acl_mm_home(cur, (uintptr_t)virPtr);
	for (i = 0; i < count && !ret; i++) {
		snprintf(what, sizeof(what), "desc[%zu].location", i);
		if (desc[i].location.type == ACL_MEM_LOCATION_TYPE_HOST)
			ret = acl_mm_set_cpu_access(cur, (uintptr_t)virPtr, size, desc[i].flags);
		else
			ret = acl_mm_set_access(dev, (uintptr_t)virPtr, size, desc[i].location.id,
						desc[i].flags, what);
	}
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(&dev, virPtr, location, flag);
	if (!ret)
		ret = acl_location_check(location, "location");
	/* HOST: what the last aclrtMemSetAccess for it granted, NONE before any */
	if (!ret && location->type == ACL_MEM_LOCATION_TYPE_HOST)
		ret = acl_mm_get_cpu_access(dev, (uintptr_t)virPtr, flag);
	else if (!ret)
		ret = acl_mm_get_access(acl_mm_home(dev, (uintptr_t)virPtr), (uintptr_t)virPtr,
					location->id, flag);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle)
{
	struct acl_handle *h;
	int ret;

	ret = acl_enter(NULL, virPtr, handle);
	if (!ret)
		ret = acl_mm_handle_retain((uintptr_t)virPtr, &h);
	if (!ret)
		*handle = h;
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle, aclrtPhysicalMemProp *prop)
{
	struct acl_handle copy, *h = &copy;
	int ret;

	ret = acl_enter(NULL, handle, prop);
	if (!ret)
		ret = acl_mm_handle_info(handle, &copy);
	if (ret)
		goto out;
	memset(prop, 0, sizeof(*prop));
	prop->handleType = ACL_MEM_HANDLE_TYPE_NONE;
	prop->allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
	if (h->attr >= 0)
		prop->memAttr = (aclrtMemAttr)h->attr;
	/* an import was not requested here: its page size tells */
	else if (h->page_size == NPU_PAGE_1G)
		prop->memAttr = ACL_HBM_MEM_HUGE1G;
	else if (h->page_size == NPU_PAGE_2M)
		prop->memAttr = ACL_HBM_MEM_HUGE;
	else
		prop->memAttr = ACL_HBM_MEM_NORMAL;
	prop->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	prop->location.id = (uint32_t)h->dev->id;
out:
	return acl_ret(__func__, ret);
}

/*
 * The links between devices a mapping may go over (CANN: SIO between the
 * dies of a 910_93 package, HCCS between chips, UB on the 950). The
 * simulated devices are separate chips of the 910B class, joined by one
 * kind of link, which stands for HCCS: a mapping takes that one only.
 */
static int acl_link_check(uint32_t link, const char *what)
{
	if (link != ACL_RT_MEM_ACCESS_LINK_HCCS)
		return acl_errf(ACLI_ELINKTYPE, "%s %u: the simulated devices are joined by HCCS (%u) only", what,
				link, (unsigned int)ACL_RT_MEM_ACCESS_LINK_HCCS);
	return 0;
}

/*
 * CANN's loop (ApiImpl::MemMapSelectedLink): each aclrtMapMem mapping from
 * virPtrSrc on, whole, until size is covered, is mapped again at the
 * same offset from virPtrDst (its handle retained meanwhile), over the
 * link chosen. What was mapped before a failure stays mapped, as there.
 */
ACL_EXPORT aclError aclrtMemMapSelectedLink(void *virPtrDst, size_t size, void *virPtrSrc, uint32_t linkIdx)
{
	uint64_t done = 0, hsize;
	struct acl_device *dev;
	struct acl_handle *h;
	int ret;

	ret = acl_enter(NULL, virPtrDst, virPtrSrc);
	if (ret)
		goto out;
	if (!size || linkIdx > ACL_RT_MEM_LINK_IDX_1) {
		ret = acl_errf(-EINVAL, !size ? "size must be non-zero" : "linkIdx %u must be 0 (SIO) or 1 (HCCS)",
			       linkIdx);
		goto out;
	}
	ret = acl_cur_dev(&dev);
	while (!ret && done < size) {
		ret = acl_mm_handle_retain((uintptr_t)virPtrSrc + done, &h);
		if (ret)
			break;
		hsize = h->size;
		ret = acl_link_check(linkIdx == ACL_RT_MEM_LINK_IDX_1 ? ACL_RT_MEM_ACCESS_LINK_HCCS :
				     ACL_RT_MEM_ACCESS_LINK_SIO, "linkIdx");
		if (!ret)
			ret = acl_mm_map(dev, (uintptr_t)virPtrDst + done, hsize, h, true);
		/* the retain only held it for the map (dropping one cannot fail) */
		if (acl_mm_handle_free(h) && !ret)
			acl_err_clear();
		done += hsize;
	}
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMemMapSetLink(aclrtDrvMemHandle handle, aclrtMemLinkType adviceLink)
{
	struct acl_handle copy;
	int ret;

	ret = acl_enter(NULL, handle);
	if (!ret && (unsigned int)adviceLink > ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH)
		ret = acl_errf(ACLI_ERTPARAM, "adviceLink %d is not an aclrtMemLinkType", (int)adviceLink);
	if (!ret)
		ret = acl_mm_handle_info(handle, &copy);
	/* CANN answers an unknown link without recording it */
	if (!ret)
		ret = acl_link_check(adviceLink, "adviceLink");
	if (ret == ACLI_ELINKTYPE)
		acl_nolast(ret);
	return acl_ret(__func__, ret);
}
