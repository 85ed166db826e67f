// SPDX-License-Identifier: MIT
/*
 * Uncorrectable memory errors (UCE): which device addresses of this
 * process lie on bad pages, and their repair (lib/README.md,
 * "Uncorrectable memory errors"), over the driver's MEM_UCE_QUERY and
 * MEM_REPAIR. A task that touches a bad page fails with
 * ACL_ERROR_RT_DEVICE_MEM_ERROR (stream.c); an administrator makes a page
 * bad with the netlink family's MEM_POISON (npu-smi, tests).
 *
 * The checks and codes are CANN's: src/acl/aclrt_impl/event.cpp
 * (aclrtGetMemUceInfoImpl, aclrtMemUceRepairImpl) for the acl layer,
 * src/runtime/api/impl/api_error.cc for the device id.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <acl/acl.h>
#include <uapi/npu.h>

#include "acl_ioctl.h"
#include "device.h"
#include "error.h"
#include "uce.h"

/* CANN's limit of records per device (RT_MAX_RECORD_PA_NUM_PER_DEV). */
#define ACL_UCE_MAX_RECORDS	NPU_UCE_MAX_RANGES

/* Device @id, which this process must have open: its context holds the memory. */
static int acl_uce_dev(int32_t id, struct acl_device **devp)
{
	int ret = acl_check_init();

	if (!ret)
		ret = acl_dev_check_range(id, "deviceId");
	if (ret)
		return ret;
	*devp = acl_dev_get(id);
	if (!*devp)
		return acl_errf(ACLI_ENOCTX, "device %d is not set in this process (aclrtSetDevice): it has no memory there",
				(int)id);
	return 0;
}

/* MEM_UCE_QUERY of @dev into @ranges (ACL_UCE_MAX_RECORDS of them): their number, or -errno. */
static int acl_uce_query(struct acl_device *dev, struct npu_uce_range *ranges)
{
	struct npu_mem_uce_query q = {
		.size = sizeof(q), .ranges = (uintptr_t)ranges, .count = ACL_UCE_MAX_RECORDS,
		.range_size = sizeof(ranges[0]),
	};
	int ret = acl_ioctl(dev->fd, NPU_IOCTL_MEM_UCE_QUERY, &q);

	return ret ? ret : (int)q.count;
}

int acl_uce_detail(struct acl_device *dev, aclrtMemUceInfoArray *out)
{
	struct npu_uce_range ranges[ACL_UCE_MAX_RECORDS];
	int n = acl_uce_query(dev, ranges), i;

	if (n < 0)
		return n;
	memset(out, 0, sizeof(*out));
	out->arraySize = (size_t)n;
	for (i = 0; i < n && i < ACL_RT_MEM_UCE_INFO_MAX_NUM; i++) {
		out->memUceInfoArray[i].addr = (void *)(uintptr_t)ranges[i].addr;
		out->memUceInfoArray[i].len = ranges[i].length;
	}
	return 0;
}

int acl_uce_repair(struct acl_device *dev, const aclrtMemUceInfo *info, size_t n, const char *what)
{
	size_t i;
	int ret = 0;

	/* the driver's check (halMemCtl MEM_REPAIR: 1 to 128), the runtime's 107000 */
	if (!n || n > ACL_UCE_MAX_RECORDS)
		return acl_errf(ACLI_ERTPARAM, "%zu ranges to repair: the device repairs 1 to %d at once", n,
				ACL_UCE_MAX_RECORDS);
	for (i = 0; !ret && i < n; i++) {
		struct npu_mem_repair r = {
			.size = sizeof(r), .addr = (uintptr_t)info[i].addr, .length = info[i].len,
		};

		ret = acl_ioctl(dev->fd, NPU_IOCTL_MEM_REPAIR, &r);
		if (ret == -ENOENT || ret == -EINVAL)
			ret = acl_errf(ACLI_ERTPARAM, "%s[%zu] (%p, %zu bytes) is not device memory of this process", what,
				       i, info[i].addr, info[i].len);
	}
	return ret;
}

ACL_EXPORT aclError aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize,
				       size_t *retSize)
{
	struct npu_uce_range ranges[ACL_UCE_MAX_RECORDS];
	struct acl_device *dev;
	int ret, n = 0, i;

	if (!memUceInfoArray)
		ret = acl_errf(-EINVAL, "memUceInfoArray must not be NULL");
	else if (!retSize)
		ret = acl_errf(-EINVAL, "retSize must not be NULL");
	else
		ret = acl_uce_dev(deviceId, &dev);
	if (!ret) {
		n = acl_uce_query(dev, ranges);
		if (n < 0)
			ret = n;
	}
	if (!ret && arraySize < (size_t)n)
		ret = acl_errf(-EINVAL, "arraySize %zu must be at least %d: the device has that many ranges with errors",
			       arraySize, n);
	if (ret)
		return acl_ret(__func__, ret);
	for (i = 0; i < n; i++) {
		memset(&memUceInfoArray[i], 0, sizeof(memUceInfoArray[i]));
		memUceInfoArray[i].addr = (void *)(uintptr_t)ranges[i].addr;
		memUceInfoArray[i].len = ranges[i].length;
	}
	*retSize = (size_t)n;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclrtMemUceRepair(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize)
{
	static const unsigned char zero[UCE_INFO_RESERVED_SIZE];
	struct acl_device *dev;
	size_t i;
	int ret = 0;

	if (!memUceInfoArray)
		ret = acl_errf(-EINVAL, "memUceInfoArray must not be NULL");
	else if (arraySize > ACL_UCE_MAX_RECORDS)
		ret = acl_errf(-EINVAL, "arraySize %zu must be at most %d", arraySize, ACL_UCE_MAX_RECORDS);
	/* CANN compares the first UCE_INFO_RESERVED_SIZE bytes of each, not the whole array */
	for (i = 0; !ret && i < arraySize; i++)
		if (memcmp(memUceInfoArray[i].reserved, zero, sizeof(zero)))
			ret = acl_errf(-EINVAL, "memUceInfoArray[%zu].reserved must be 0", i);
	if (!ret)
		ret = acl_uce_dev(deviceId, &dev);
	if (!ret)
		ret = acl_uce_repair(dev, memUceInfoArray, arraySize, "memUceInfoArray");
	return acl_ret(__func__, ret);
}
