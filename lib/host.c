// SPDX-License-Identifier: MIT
/*
 * Host memory: page-locked allocations and registrations of caller
 * memory: the API's checks over the memory layer (mm.c), which registers
 * (a "mapped" registration at a device VA of its choosing, or with
 * VA_FLAG at the host address itself) and keeps the records.
 */
#include <errno.h>

#include <acl/acl.h>

#include "context.h"
#include "device.h"
#include "error.h"
#include "mm.h"
#include "stream.h"

#define ACL_HOST_PAGE	4096ULL
#define ACL_HOST_REG_MASK (ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY | \
			   ACL_HOST_REG_PINNED)

/*
 * aclrtMallocHostWithCfg's cfg, checked where CANN's runtime does (before
 * the context): attrs NULL whatever numAttrs says, and any attribute
 * but MODULE_ID and VA_FLAG, are 107000 (api_impl.cc HostMallocWithCfg,
 * GetMallocHostConfigAttr). *@va_flag gets VA_FLAG's value.
 */
static int acl_malloc_host_cfg(const aclrtMallocConfig *cfg, uint32_t *va_flag)
{
	size_t i;

	*va_flag = 0;
	if (!cfg)
		return 0;
	if (!cfg->attrs)
		return acl_errf(ACLI_ERTPARAM, "cfg->attrs must not be NULL (cfg->numAttrs is %zu)", cfg->numAttrs);
	for (i = 0; i < cfg->numAttrs; i++) {
		const aclrtMallocAttribute *a = &cfg->attrs[i];

		if (a->attr == ACL_RT_MEM_ATTR_VA_FLAG)
			*va_flag = a->value.vaFlag;
		else if (a->attr != ACL_RT_MEM_ATTR_MODULE_ID)
			return acl_errf(ACLI_ERTPARAM, "cfg->attrs[%zu]: attr %d must be MODULE_ID or VA_FLAG",
					i, (int)a->attr);
	}
	return 0;
}

static int acl_malloc_host(void **ptr, uint64_t size, const aclrtMallocConfig *cfg)
{
	struct acl_device *dev;
	uint32_t va_flag;
	uint64_t len;
	int ret;

	ret = acl_check_init();
	if (ret)
		return ret;
	if (!ptr)
		return acl_errf(-EINVAL, "ptr must not be NULL");
	if (!size)
		return acl_errf(-EINVAL, "size must be non-zero");
	len = acl_round_up(size, ACL_HOST_PAGE);
	if (len < size)
		return acl_errf(-EINVAL, "size %llu too large", (unsigned long long)size);
	ret = acl_malloc_host_cfg(cfg, &va_flag);
	if (ret)
		return ret;
	ret = acl_cur_dev(&dev);
	if (ret)
		return ret;
	if (va_flag > 1)
		return acl_errf(-EINVAL, "cfg: VA_FLAG value %u must be 0 or 1", va_flag);
	return acl_mm_host_alloc(len, va_flag == 1, ptr);
}

ACL_EXPORT aclError aclrtMallocHost(void **hostPtr, size_t size)
{
	return acl_ret(__func__, acl_malloc_host(hostPtr, size, NULL));
}

ACL_EXPORT aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
	return acl_ret(__func__, acl_malloc_host(ptr, size, cfg));
}

/*
 * aclrtFreeHost; @sync: aclrtFreeHostWithDevSync, which first waits for
 * the current device. The memory is the process's (every open device
 * has it registered): aclrtFreeHost needs no current device, as CANN's
 * HostFree falls back to its process-wide driver.
 */
static int acl_free_host(void *hostPtr, bool sync)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(sync ? &dev : NULL, hostPtr);
	if (!ret && sync)
		ret = acl_dev_sync(dev);
	if (ret)
		return ret;
	ret = acl_mm_host_free(hostPtr);
	if (ret == -ENOENT)
		return acl_errf(-EINVAL, "hostPtr %p is not an aclrtMallocHost allocation (freed already?)",
				hostPtr);
	return ret;
}

ACL_EXPORT aclError aclrtFreeHost(void *hostPtr)
{
	return acl_ret(__func__, acl_free_host(hostPtr, false));
}

ACL_EXPORT aclError aclrtFreeHostWithDevSync(void *hostPtr)
{
	return acl_ret(__func__, acl_free_host(hostPtr, true));
}

/*
 * Register [@ptr, +@size) with the current device; @pinned: V2's
 * ACL_HOST_REG_PINNED, which CANN's API reference (11-02, aclrtHostRegisterV2)
 * makes an error for page-locked memory. Which error its driver gives is
 * not in the open source: this library chooses 507910 (already
 * registered), as the runtime answers a second PINNED registration.
 */
static int acl_host_register(void *ptr, uint64_t size, uint32_t kflags, bool pinned, void **devPtr)
{
	struct acl_mem_info q;
	struct acl_device *dev;
	uint64_t len, dev_va;
	int ret;

	len = acl_round_up(size, ACL_HOST_PAGE);
	if (len < size)
		return acl_errf(-EINVAL, "size %llu too large", (unsigned long long)size);
	ret = acl_cur_dev(&dev);
	if (ret)
		return ret;
	if (pinned) {
		ret = acl_mm_query(dev, (uintptr_t)ptr, &q);
		if (ret)
			return ret;
		if (q.kind == NPU_ADDR_HOST && q.rkind == ACL_REGION_HOST_ALLOC)
			return acl_errf(-EEXIST, "ptr %p is aclrtMallocHost memory, page-locked already: ACL_HOST_REG_PINNED is for pageable memory",
					ptr);
	}
	ret = acl_mm_host_register(dev, ptr, len, kflags, &dev_va);
	if (!ret && devPtr)
		*devPtr = (void *)(uintptr_t)dev_va;
	return ret;
}

static int acl_host_register_args(void *ptr, uint64_t size)
{
	int ret = acl_check_init();

	if (ret)
		return ret;
	if (!ptr)
		return acl_errf(-EINVAL, "ptr must not be NULL");
	if ((uintptr_t)ptr & (ACL_HOST_PAGE - 1))
		return acl_errf(-EINVAL, "ptr %p must be 4 KiB aligned", ptr);
	if (!size)
		return acl_errf(-EINVAL, "size must be non-zero");
	return 0;
}

ACL_EXPORT aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr)
{
	uint32_t kflags;
	int ret;

	ret = acl_host_register_args(ptr, size);
	if (ret)
		goto out;
	if (!devPtr) {
		ret = acl_errf(-EINVAL, "devPtr must not be NULL");
		goto out;
	}
	/* CANN's runtime (api_error.cc HostRegister): 207000, recorded as the last error */
	if ((uint32_t)type & ~(uint32_t)(ACL_HOST_REGISTER_IOMEMORY | ACL_HOST_REGISTER_READONLY)) {
		ret = acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "type %#x has bits other than ACL_HOST_REGISTER_IOMEMORY and _READONLY",
					   (uint32_t)type));
		goto out;
	}
	if (type & ACL_HOST_REGISTER_IOMEMORY) {
		ret = acl_errf(ACLI_EFEATURE, "type IOMEMORY: registration of device/io memory is not supported by this driver");
		goto out;
	}
	kflags = NPU_HOST_MAPPED | (type & ACL_HOST_REGISTER_READONLY ? NPU_HOST_READONLY : 0);
	ret = acl_host_register(ptr, size, kflags, false, devPtr);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag)
{
	uint32_t kflags = 0;
	int ret;

	ret = acl_host_register_args(ptr, size);
	if (ret)
		goto out;
	/* CANN's runtime (api_error.cc HostRegisterV2): 107000 */
	if (!flag || (flag & ~ACL_HOST_REG_MASK)) {
		ret = acl_errf(ACLI_ERTPARAM, "flag %#x must be a non-empty combination of ACL_HOST_REG_MAPPED, _IOMEMORY, _READONLY and _PINNED",
			       flag);
		goto out;
	}
	if (flag & ACL_HOST_REG_IOMEMORY) {
		ret = acl_errf(ACLI_EFEATURE, "flag IOMEMORY: registration of device/io memory is not supported by this driver");
		goto out;
	}
	if (flag & ACL_HOST_REG_MAPPED)
		kflags |= NPU_HOST_MAPPED;
	if (flag & ACL_HOST_REG_READONLY)
		kflags |= NPU_HOST_READONLY;
	ret = acl_host_register(ptr, size, kflags, flag & ACL_HOST_REG_PINNED, NULL);
out:
	return acl_ret(__func__, ret);
}

/*
 * CANN's runtime answers 107000 for any address without a mapped
 * registration (api_impl.cc HostGetDevicePointer, npu_driver_mem.cc).
 */
ACL_EXPORT aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag)
{
	struct acl_mem_info q;
	struct acl_device *dev;
	int ret;

	ret = acl_enter(NULL, pHost, pDevice);
	if (ret)
		goto out;
	if (flag) {
		ret = acl_errf(-EINVAL, "flag %#x must be 0", flag);
		goto out;
	}
	ret = acl_cur_dev(&dev);
	if (ret)
		goto out;
	ret = acl_mm_query(dev, (uintptr_t)pHost, &q);
	if (ret)
		goto out;
	if (q.kind == NPU_ADDR_HOST && (q.host_flags & NPU_HOST_MAPPED) && q.dev_addr)
		*pDevice = (void *)(uintptr_t)q.dev_addr;
	else if (q.kind == NPU_ADDR_HOST)
		ret = acl_errf(ACLI_ERTPARAM, "pHost %p is registered without ACL_HOST_REG_MAPPED: it has no device address",
			       pHost);
	else if (q.kind == NPU_ADDR_DEVICE || q.kind == NPU_ADDR_MIRROR)
		ret = acl_errf(ACLI_ERTPARAM, "pHost %p is device (or managed) memory, not registered host memory",
			       pHost);
	else
		ret = acl_errf(ACLI_ERTPARAM, "pHost %p is not host memory registered with device %d",
			       pHost, dev->id);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtHostUnregister(void *ptr)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(&dev, ptr);
	if (!ret)
		ret = acl_mm_host_unregister(dev, ptr);
	return acl_ret(__func__, ret);
}
