// SPDX-License-Identifier: MIT
/*
 * Memory queries (runtime spec section 8): what holds an address
 * (aclrtMemGetAddressRange, aclrtCheckMemType), how much memory each kind
 * of allocation uses (aclrtGetMemUsageInfo), and which engines reach
 * host memory mapped to the device (aclrtHostMemMapCapabilities).
 *
 * An address is looked up in the memory layer's records of each open
 * device (reservations and registrations never overlap: each is also
 * reserved in the process): what holds it and which call made it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <acl/acl.h>

#include "context.h"
#include "device.h"
#include "error.h"
#include "mm.h"
#include "query.h"

/* What holds an address. */
enum acl_mem_type {
	ACL_MEMT_NONE,		/* nothing the library allocated */
	ACL_MEMT_MALLOC,	/* an aclrtMalloc* allocation */
	ACL_MEMT_VMM_MAPPED,	/* an aclrtMapMem mapping */
	ACL_MEMT_VMM_RESERVED,	/* an aclrtReserveMemAddress range, not mapped there */
	ACL_MEMT_HOST_ALLOC,	/* an aclrtMallocHost* allocation */
	ACL_MEMT_MANAGED,	/* an aclrtMemAllocManaged allocation (a mirror) */
};

struct acl_mem_range {
	enum acl_mem_type type;
	uint64_t base, len;
};

/* What of a device holds an address, from the memory layer's answer @q about it. */
static void acl_mem_classify(const struct acl_mem_info *q, struct acl_mem_range *out)
{
	out->type = ACL_MEMT_NONE;
	/* every open device mirrors a managed allocation whole (managed.c) */
	if (q->kind == NPU_ADDR_MIRROR) {
		out->type = ACL_MEMT_MANAGED;
		out->base = q->base;
		out->len = q->length;
	} else if (q->kind == NPU_ADDR_DEVICE &&
		   (q->rkind == ACL_REGION_MALLOC || q->rkind == ACL_REGION_IPC)) {
		/* an IPC import is device memory, the range it named */
		out->type = ACL_MEMT_MALLOC;
		out->base = q->rbase;
		out->len = q->rlen;
	} else if (q->kind == NPU_ADDR_DEVICE && q->rkind == ACL_REGION_VMM) {
		out->type = q->map_len ? ACL_MEMT_VMM_MAPPED : ACL_MEMT_VMM_RESERVED;
		out->base = q->map_len ? q->map_base : q->rbase;
		out->len = q->map_len ? q->map_len : q->rlen;
	} else if (q->kind == NPU_ADDR_HOST && q->rkind == ACL_REGION_HOST_ALLOC) {
		out->type = ACL_MEMT_HOST_ALLOC;
		out->base = q->rbase;
		out->len = q->rlen;
	}
	/* else another owner's range (a mapped registration's device VA) */
}

/* What holds @addr on any open device (ACL_MEMT_NONE: nothing). */
static int acl_mem_lookup(uint64_t addr, struct acl_mem_range *out)
{
	struct acl_mem_info q;
	struct acl_device *dev;
	int pos = 0, ret;

	struct acl_mem_range hole = { .type = ACL_MEMT_NONE };

	out->type = ACL_MEMT_NONE;
	while ((dev = acl_dev_iter(&pos))) {
		ret = acl_mm_query(dev, addr, &q);
		if (ret)
			return ret;
		if (q.kind == NPU_ADDR_NONE)
			continue;
		acl_mem_classify(&q, out);
		/* a reservation's hole may hold another device's mapping (mm.c) */
		if (out->type == ACL_MEMT_VMM_RESERVED)
			hole = *out;
		else if (out->type != ACL_MEMT_NONE)
			return 0;
	}
	*out = hole;
	return 0;
}

ACL_EXPORT aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize)
{
	struct acl_mem_range m;
	int ret;

	ret = acl_enter(NULL, ptr);
	if (ret)
		goto out;
	if (!pbase && !psize) {
		ret = acl_errf(ACLI_ERTPARAM, "pbase and psize must not both be NULL");
		goto out;
	}
	ret = acl_mem_lookup((uintptr_t)ptr, &m);
	if (ret)
		goto out;
	if (m.type == ACL_MEMT_NONE || m.type == ACL_MEMT_VMM_RESERVED) {
		ret = acl_errf(ACLI_ERTPARAM, "ptr %p is in no aclrtMalloc* or aclrtMallocHost* allocation and no aclrtMapMem mapping%s",
			       ptr, m.type == ACL_MEMT_VMM_RESERVED ? " (reserved, but not mapped there)" : "");
		goto out;
	}
	if (pbase)
		*pbase = (void *)(uintptr_t)m.base;
	if (psize)
		*psize = m.len;
out:
	return acl_ret(__func__, ret);
}

#define ACL_RT_MEM_TYPE_MASK	(ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_DVPP | ACL_RT_MEM_TYPE_RSVD)

ACL_EXPORT aclError aclrtCheckMemType(void **addrList, uint32_t size, uint32_t memType, uint32_t *checkResult,
				      uint32_t reserve)
{
	struct acl_mem_range m;
	struct acl_device *dev;
	uint32_t i, type;
	int ret;

	ret = acl_enter(NULL, addrList, checkResult);
	if (ret)
		goto out;
	/* the runtime's checks come after this (api_error.cc CheckMemType) */
	*checkResult = 0;
	if (reserve) {
		ret = acl_errf(ACLI_ERTPARAM, "reserve %u must be 0", reserve);
		goto out;
	}
	if (!size) {
		ret = acl_errf(ACLI_ERTPARAM, "size must be at least 1");
		goto out;
	}
	if (memType & ~ACL_RT_MEM_TYPE_MASK) {
		ret = acl_errf(ACLI_ERTPARAM, "memType %#x has bits %#x outside ACL_RT_MEM_TYPE_DEV | _DVPP | _RSVD",
			       memType, memType & ~ACL_RT_MEM_TYPE_MASK);
		goto out;
	}
	ret = acl_cur_dev(&dev);
	if (ret)
		goto out;
	*checkResult = 1;
	for (i = 0; i < size; i++) {
		ret = acl_mem_lookup((uintptr_t)addrList[i], &m);
		if (ret)
			goto out;
		/* no DVPP memory here: the simulated chip has no DVPP allocator */
		if (m.type == ACL_MEMT_MALLOC)
			type = ACL_RT_MEM_TYPE_DEV;
		else if (m.type == ACL_MEMT_VMM_MAPPED || m.type == ACL_MEMT_VMM_RESERVED)
			type = ACL_RT_MEM_TYPE_RSVD;
		else
			type = 0;
		if (!(type & memType)) {
			*checkResult = 0;
			break;
		}
	}
out:
	return acl_ret(__func__, ret);
}

/* The components aclrtGetMemUsageInfo lists. */
#define ACL_MEM_COMPONENTS	(ACL_MEM_KINDS + 1)

static const char *const acl_mem_kind_name[ACL_MEM_KINDS] = {
	[ACL_MEM_KIND_MALLOC] = "aclrtMalloc",
	[ACL_MEM_KIND_PHYSICAL] = "aclrtMallocPhysical",
};

ACL_EXPORT aclError aclrtGetMemUsageInfo(int32_t deviceId, aclrtMemUsageInfo *memUsageInfo, size_t inputNum,
					 size_t *outputNum)
{
	struct {
		const char *name;
		uint64_t cur, peak;
	} c[ACL_MEM_COMPONENTS], t;
	struct npu_get_info info;
	struct acl_device *dev;
	size_t i, j, n;
	int ret;

	ret = acl_enter(NULL, memUsageInfo, outputNum);
	if (ret)
		goto out;
	*outputNum = 0;
	if (!inputNum) {
		ret = acl_errf(ACLI_ERTPARAM, "inputNum must be at least 1");
		goto out;
	}
	ret = acl_query_info(deviceId, &info, "deviceId");
	/* the runtime asks the driver through the current context's (api_impl.cc) */
	if (!ret)
		ret = acl_cur_dev(&dev);
	if (ret)
		goto out;
	/* the driver's figure: every process's memory on the device */
	c[0].name = "device";
	c[0].cur = info.mem_used;
	c[0].peak = info.mem_peak;
	/* this process's, by the call that allocated it */
	dev = acl_dev_get(deviceId);
	for (i = 0; i < ACL_MEM_KINDS; i++) {
		c[i + 1].name = acl_mem_kind_name[i];
		c[i + 1].cur = 0;
		c[i + 1].peak = 0;
		if (dev)
			acl_mm_usage(dev, i, &c[i + 1].cur, &c[i + 1].peak);
	}
	/* largest current usage first; equal ones keep their order */
	for (i = 1; i < ACL_MEM_COMPONENTS; i++) {
		t = c[i];
		for (j = i; j > 0 && c[j - 1].cur < t.cur; j--)
			c[j] = c[j - 1];
		c[j] = t;
	}
	n = inputNum < ACL_MEM_COMPONENTS ? inputNum : ACL_MEM_COMPONENTS;
	for (i = 0; i < n; i++) {
		memset(&memUsageInfo[i], 0, sizeof(memUsageInfo[i]));
		snprintf(memUsageInfo[i].name, sizeof(memUsageInfo[i].name), "%s", c[i].name);
		memUsageInfo[i].curMemSize = c[i].cur;
		memUsageInfo[i].memPeakSize = c[i].peak;
	}
	*outputNum = n;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtHostMemMapCapabilities(uint32_t deviceId, aclrtHacType hacType,
						aclrtHostMemMapCapability *capabilities)
{
	int ret;

	ret = acl_enter(NULL, capabilities);
	if (!ret)
		ret = acl_dev_check_id(deviceId, "deviceId");
	if (!ret && (unsigned int)hacType > ACL_RT_HAC_TYPE_CCU)
		ret = acl_errf(ACLI_ERTPARAM, "hacType %u is not an aclrtHacType (0..%d)", (unsigned int)hacType,
			       ACL_RT_HAC_TYPE_CCU);
	if (ret)
		goto out;
	/*
	 * The device's one engine that touches memory is its DMA engine: it
	 * runs every copy and memset (PCIe DMA to the host through the IOMMU,
	 * system DMA within the device). Nothing runs on the modelled cores,
	 * and the chip has no RDMA, UB DMA or collective engine.
	 */
	*capabilities = hacType == ACL_RT_HAC_TYPE_PCIEDMA || hacType == ACL_RT_HAC_TYPE_SDMA ?
			ACL_RT_HOST_MEM_MAP_SUPPORTED : ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED;
out:
	return acl_ret(__func__, ret);
}
