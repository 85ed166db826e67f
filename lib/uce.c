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

ACL_EXPORT aclError aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize,
				       size_t *retSize)
{
	struct npu_uce_range ranges[ACL_UCE_MAX_RECORDS];
	struct npu_mem_uce_query q = {
		.size = sizeof(q), .ranges = (uintptr_t)ranges, .count = ACL_UCE_MAX_RECORDS,
		.range_size = sizeof(ranges[0]),
	};
	struct acl_device *dev;
	size_t i;
	int ret;

	if (!memUceInfoArray)
		ret = acl_errf(-EINVAL, "memUceInfoArray must not be NULL");
	else if (!retSize)
		ret = acl_errf(-EINVAL, "retSize must not be NULL");
	else
		ret = acl_uce_dev(deviceId, &dev);
	if (!ret)
		ret = acl_ioctl(dev->fd, NPU_IOCTL_MEM_UCE_QUERY, &q);
	if (!ret && arraySize < q.count)
		ret = acl_errf(-EINVAL, "arraySize %zu must be at least %u: the device has that many ranges with errors",
			       arraySize, q.count);
	if (ret)
		return acl_ret(__func__, ret);
	for (i = 0; i < q.count; i++) {
		memset(&memUceInfoArray[i], 0, sizeof(memUceInfoArray[i]));
		memUceInfoArray[i].addr = (void *)(uintptr_t)ranges[i].addr;
		memUceInfoArray[i].len = ranges[i].length;
	}
	*retSize = q.count;
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
	for (i = 0; !ret && i < arraySize; i++) {
		struct npu_mem_repair r = {
			.size = sizeof(r), .addr = (uintptr_t)memUceInfoArray[i].addr,
			.length = memUceInfoArray[i].len,
		};

		ret = acl_ioctl(dev->fd, NPU_IOCTL_MEM_REPAIR, &r);
		if (ret == -ENOENT || ret == -EINVAL)
			ret = acl_errf(ACLI_ERTPARAM, "memUceInfoArray[%zu] (%p, %zu bytes) is not device memory of this process",
				       i, memUceInfoArray[i].addr, memUceInfoArray[i].len);
	}
	return acl_ret(__func__, ret);
}
