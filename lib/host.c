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
#include "memory.h"
#include "mm.h"
#include "stream.h"

#define ACL_HOST_PAGE	4096ULL
#define ACL_HOST_REG_MASK (ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY | \
			   ACL_HOST_REG_PINNED)

static int acl_malloc_host(void **ptr, uint64_t size, const aclrtMallocConfig *cfg)
{
	struct acl_device *dev;
	uint32_t va_flag = 0;
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
	ret = acl_cur_dev(&dev);
	if (ret)
		return ret;
	ret = acl_malloc_cfg_check(dev, cfg, true, &va_flag);
	if (ret)
		return ret;
	return acl_mm_host_alloc(dev, len, va_flag == 1, ptr);
}

ACL_EXPORT aclError aclrtMallocHost(void **hostPtr, size_t size)
{
	return acl_ret(__func__, acl_malloc_host(hostPtr, size, NULL));
}

ACL_EXPORT aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
	return acl_ret(__func__, acl_malloc_host(ptr, size, cfg));
}

/* aclrtFreeHost; @sync: aclrtFreeHostWithDevSync, which first waits for the device. */
static int acl_free_host(void *hostPtr, bool sync)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(&dev, hostPtr);
	if (!ret && sync)
		ret = acl_dev_sync(dev);
	if (ret)
		return ret;
	ret = acl_mm_host_free(dev, hostPtr);
	if (ret == -ENOENT)
		return acl_errf(-EINVAL, "hostPtr %p is not an aclrtMallocHost allocation of the current device (freed already?)",
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

static int acl_host_register(void *ptr, uint64_t size, uint32_t kflags, void **devPtr)
{
	struct acl_device *dev;
	uint64_t len, dev_va;
	int ret;

	len = acl_round_up(size, ACL_HOST_PAGE);
	if (len < size)
		return acl_errf(-EINVAL, "size %llu too large", (unsigned long long)size);
	ret = acl_cur_dev(&dev);
	if (ret)
		return ret;
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
	switch (type) {
	case ACL_HOST_REGISTER_MAPPED:
		kflags = NPU_HOST_MAPPED;
		break;
	case ACL_HOST_REGISTER_READONLY:
		kflags = NPU_HOST_MAPPED | NPU_HOST_READONLY;
		break;
	case ACL_HOST_REGISTER_IOMEMORY:
		ret = acl_errf(ACLI_EFEATURE, "type IOMEMORY: registration of device/io memory is not supported by this driver");
		goto out;
	default:
		ret = acl_errf(-EINVAL, "type %d must be ACL_HOST_REGISTER_MAPPED, _IOMEMORY or _READONLY", (int)type);
		goto out;
	}
	ret = acl_host_register(ptr, size, kflags, devPtr);
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
	if (flag & ~ACL_HOST_REG_MASK) {
		ret = acl_errf(-EINVAL, "flag %#x has unknown bits %#lx", flag, flag & ~ACL_HOST_REG_MASK);
		goto out;
	}
	if (!flag) {
		ret = acl_errf(-EINVAL, "flag must contain ACL_HOST_REG_MAPPED, _PINNED or _READONLY");
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
	ret = acl_host_register(ptr, size, kflags, NULL);
out:
	return acl_ret(__func__, ret);
}

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
	switch (q.kind) {
	case NPU_ADDR_HOST:
		if (!(q.host_flags & NPU_HOST_MAPPED) || !q.dev_addr) {
			ret = acl_errf(-EINVAL, "pHost %p is registered without ACL_HOST_REG_MAPPED: it has no device address",
				       pHost);
			break;
		}
		*pDevice = (void *)(uintptr_t)q.dev_addr;
		break;
	case NPU_ADDR_DEVICE:
		ret = acl_errf(-EINVAL, "pHost %p is a device address", pHost);
		break;
	default:
		ret = acl_errf(ACLI_ENOTREG, "pHost %p is not registered host memory of device %d", pHost, dev->id);
		break;
	}
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
