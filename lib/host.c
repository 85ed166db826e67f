// SPDX-License-Identifier: MIT
/*
 * Host memory: page-locked allocations and registrations of caller
 * memory.  A "mapped" registration is mapped for the device at a device
 * VA the driver books itself; the library picks that VA as a PROT_NONE
 * reservation of the process address space (so it equals no host
 * pointer), or, with VA_FLAG, uses the host address itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <acl/acl.h>

#include "device.h"
#include "error.h"
#include "ioctl.h"
#include "memory.h"
#include "region.h"

#define ACL_HOST_PAGE	4096ULL
#define ACL_HOST_REG_MASK (ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY | \
			   ACL_HOST_REG_PINNED)

/*
 * Pin [@addr, +@len) for @dev with NPU_HOST_* @kflags.  Mapped: at @addr
 * itself when @identity, else at a fresh device VA; *dev_va gets it.
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

	if ((kflags & NPU_HOST_MAPPED) && !identity) {
		ret = acl_va_reserve_proc(dev, len, ACL_HOST_PAGE, &r.dev_va);
		if (ret)
			return ret;
		r.dev_va_len = len;
		reg.dev_addr = r.dev_va;
	} else if (kflags & NPU_HOST_MAPPED) {
		reg.dev_addr = addr;
	}
	ret = npu_ioctl(dev->fd, NPU_IOCTL_HOST_REGISTER, &reg);
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
	ret = acl_region_add(dev, &r);
	if (ret)
		goto err_unregister;
	if (dev_va)
		*dev_va = (kflags & NPU_HOST_MAPPED) ? reg.dev_addr : 0;
	return 0;

err_unregister:
	npu_ioctl(dev->fd, NPU_IOCTL_HOST_UNREGISTER, &unreg);
err_release:
	if (r.dev_va)
		munmap((void *)(uintptr_t)r.dev_va, r.dev_va_len);
	return ret;
}

/* Undo acl_host_pin() for a region already unlinked. */
static int acl_host_unpin(struct acl_device *dev, const struct acl_region *r)
{
	struct npu_host_unregister unreg = { .size = sizeof(unreg), .addr = r->addr };
	int ret;

	ret = npu_ioctl(dev->fd, NPU_IOCTL_HOST_UNREGISTER, &unreg);
	if (ret)
		return ret;
	if (r->dev_va)
		munmap((void *)(uintptr_t)r->dev_va, r->dev_va_len);
	return 0;
}

static int acl_malloc_host(void **ptr, uint64_t size, const aclrtMallocConfig *cfg)
{
	struct acl_device *dev;
	uint32_t va_flag = 0;
	uint64_t len;
	void *p;
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
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return acl_errf(-ENOMEM, "cannot map %llu bytes of host memory: %s", (unsigned long long)len,
				strerror(errno));
	ret = acl_host_pin(dev, (uintptr_t)p, len, NPU_HOST_MAPPED, va_flag == 1, ACL_REGION_HOST_ALLOC, NULL);
	if (ret) {
		munmap(p, len);
		return ret;
	}
	*ptr = p;
	return 0;
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
	struct acl_region r;
	int ret;

	ret = acl_enter(&dev, hostPtr);
	if (!ret && sync)
		ret = acl_dev_sync(dev);
	if (ret)
		return ret;
	if (acl_region_take(dev, (uintptr_t)hostPtr, ACL_REGION_HOST_ALLOC, &r))
		return acl_errf(-EINVAL, "hostPtr %p is not an aclrtMallocHost allocation of the current device (freed already?)",
				hostPtr);
	ret = acl_host_unpin(dev, &r);
	munmap(hostPtr, r.len);
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
	struct acl_region *r;
	uint64_t len, dev_va;
	int ret;

	len = acl_round_up(size, ACL_HOST_PAGE);
	if (len < size)
		return acl_errf(-EINVAL, "size %llu too large", (unsigned long long)size);
	ret = acl_cur_dev(&dev);
	if (ret)
		return ret;

	/* aclrtMallocHost memory is registered and mapped already: share that */
	pthread_mutex_lock(&dev->lock);
	r = acl_region_find_locked(dev, (uintptr_t)ptr, ACL_REGION_HOST_ALLOC);
	if (r) {
		if (r->user_registered)
			ret = acl_errf(-EEXIST, "ptr %p is registered already", ptr);
		else if (len > r->len)
			ret = acl_errf(-EINVAL, "size %llu exceeds the aclrtMallocHost allocation of %llu bytes",
				       (unsigned long long)size, (unsigned long long)r->len);
		else if ((kflags & NPU_HOST_READONLY))
			ret = acl_errf(ACLI_EFEATURE, "ptr %p is aclrtMallocHost memory, mapped read-write", ptr);
		else
			r->user_registered = true;
		dev_va = r->dev_va ? r->dev_va : r->addr;
	}
	pthread_mutex_unlock(&dev->lock);
	if (r) {
		if (!ret && devPtr)
			*devPtr = (void *)(uintptr_t)dev_va;
		return ret;
	}

	ret = acl_host_pin(dev, (uintptr_t)ptr, len, kflags, false, ACL_REGION_HOST_REG, &dev_va);
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
	struct npu_addr_query q;
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
	ret = acl_addr_query(dev, (uintptr_t)pHost, &q);
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
	struct acl_region *r;
	struct acl_region copy;
	int ret;

	ret = acl_enter(&dev, ptr);
	if (ret)
		goto out;
	pthread_mutex_lock(&dev->lock);
	r = acl_region_find_locked(dev, (uintptr_t)ptr, -1);
	if (!r || r->kind == ACL_REGION_MALLOC || r->kind == ACL_REGION_VMM) {
		ret = acl_errf(ACLI_ENOTREG, "ptr %p is not the start of host memory registered with device %d",
			       ptr, dev->id);
	} else if (r->kind == ACL_REGION_HOST_ALLOC) {
		if (r->user_registered)
			r->user_registered = false;
		else
			ret = acl_errf(-EINVAL, "ptr %p comes from aclrtMallocHost: release it with aclrtFreeHost",
				       ptr);
		r = NULL;
	} else {
		list_del(&r->node);
	}
	pthread_mutex_unlock(&dev->lock);
	if (ret || !r)
		goto out;
	copy = *r;
	ret = acl_host_unpin(dev, &copy);
	if (ret) {
		/* still registered: keep tracking it */
		pthread_mutex_lock(&dev->lock);
		acl_region_link_locked(dev, r);
		pthread_mutex_unlock(&dev->lock);
		goto out;
	}
	free(r);
out:
	return acl_ret(__func__, ret);
}
