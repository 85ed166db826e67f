// SPDX-License-Identifier: MIT
/*
 * Sharing physical memory between processes, and peer access between
 * devices.
 *
 * A shareable handle is the driver's random 64-bit name for one exported
 * handle (SHARE_EXPORT); the library remembers it in the exporting
 * acl_handle, which is how aclrtMemSetPidToShareableHandle finds the
 * context that may change its pid list. An import gives a new acl_handle
 * on the device named, with the size and page size SHARE_IMPORT reports.
 *
 * Peer access is per device context: PEER_ENABLE on the current device's
 * file lets its DMA engine reach another device's memory: all of its
 * aclrtMalloc memory (mapped NPU_MAP_PEERS), and VMM mappings that grant
 * it (aclrtMemSetAccess with the peer's id). PEER_DISABLE withdraws it.
 * dev->peers mirrors what is enabled, so copies can explain a refusal and
 * aclrtDevicePeerAccessStatus can answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "acl_ioctl.h"
#include "context.h"
#include "device.h"
#include "error.h"
#include "mm.h"
#include "peer.h"

/* Export @handle under a new name (V1 and V2); @flags are checked already. */
static int acl_share_export(aclrtDrvMemHandle handle, uint64_t flags, uint64_t *shareableHandle)
{
	struct npu_share_export exp = { .size = sizeof(exp) };
	struct acl_handle h;
	int ret;

	ret = acl_mm_handle_info(handle, &h);
	if (ret)
		return ret;
	if (h.imported)
		return acl_errf(-EINVAL, "handle %p was imported: only the exporter's own handle has a shareable handle",
				handle);
	exp.handle = h.id;
	exp.flags = flags == ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION ? NPU_SHARE_ANY_PID : 0;
	ret = acl_ioctl(h.dev->fd, NPU_IOCTL_SHARE_EXPORT, &exp);
	if (ret == -EBUSY)
		return acl_errf(ret, "handle %p was exported already (as %#llx): a handle is exported once",
				handle, (unsigned long long)h.shareable);
	if (ret)
		return ret;
	acl_mm_handle_shared(handle, exp.shareable);
	*shareableHandle = exp.shareable;
	return 0;
}

/*
 * ACL_MEM_HANDLE_TYPE_POSIX: the memory of @h as a dma-buf, its fd in
 * *@out. Read-write, close-on-exec; an fd has no pid list, so both flags
 * mean the same. Any number of exports, imported handles too; closing
 * the fd is the caller's.
 */
static int acl_export_dmabuf(const struct acl_handle *h, uint64_t *out)
{
	struct npu_dmabuf_export arg = {
		.size = sizeof(arg),
		.flags = NPU_DMABUF_CLOEXEC,
		.handle = h->id,
	};
	int ret;

	ret = acl_ioctl(h->dev->fd, NPU_IOCTL_DMABUF_EXPORT, &arg);
	if (ret == -ENOTTY)
		return acl_errf(ACLI_EFEATURE, "the npu driver is older than 1.4: no dma-buf export");
	if (ret == -ENOSPC)
		return acl_errf(ret, "the device context holds max_dmabufs dma-bufs already (close some fds)");
	if (ret == -EMFILE)
		return acl_errf(ret, "no free file descriptor for the dma-buf");
	if (ret)
		return ret;
	*out = (uint64_t)arg.fd;
	return 0;
}

ACL_EXPORT aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
						    uint64_t flags, uint64_t *shareableHandle)
{
	int ret;

	ret = acl_enter(NULL, handle, shareableHandle);
	if (ret)
		goto out;
	/*
	 * CANN: a reserved parameter, fixed to NONE (a 64-bit name). POSIX is
	 * ours: the memory as a dma-buf file descriptor.
	 */
	if (handleType != ACL_MEM_HANDLE_TYPE_NONE && handleType != ACL_MEM_HANDLE_TYPE_POSIX) {
		ret = acl_errf(-EINVAL, "handleType %d must be ACL_MEM_HANDLE_TYPE_NONE (a 64-bit name) or ACL_MEM_HANDLE_TYPE_POSIX (a dma-buf fd)",
			       (int)handleType);
		goto out;
	}
	if (flags != ACL_RT_VMM_EXPORT_FLAG_DEFAULT && flags != ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION) {
		ret = acl_errf(-EINVAL, "flags %#llx must be ACL_RT_VMM_EXPORT_FLAG_DEFAULT or _DISABLE_PID_VALIDATION",
			       (unsigned long long)flags);
		goto out;
	}
	if (handleType == ACL_MEM_HANDLE_TYPE_POSIX) {
		struct acl_handle h;

		ret = acl_mm_handle_info(handle, &h);
		if (!ret)
			ret = acl_export_dmabuf(&h, shareableHandle);
		goto out;
	}
	ret = acl_share_export(handle, flags, shareableHandle);
out:
	return acl_ret(__func__, ret);
}

int acl_pid_list_check(const int32_t *pid, size_t n, const char *what, int err)
{
	size_t i;

	if (!n || n > NPU_SHARE_MAX_PIDS)
		return acl_errf(err, "%s %zu must be 1..%d", what, n, NPU_SHARE_MAX_PIDS);
	for (i = 0; i < n; i++) {
		if (pid[i] <= 0)
			return acl_errf(err, "pid[%zu] %d is not a process id (aclrtDeviceGetBareTgid gives one)",
					i, pid[i]);
	}
	return 0;
}

/* Replace the pid list of the name @shareableHandle this process exported (V1 and V2). */
static int acl_share_set_pids(uint64_t shareableHandle, int32_t *pid, size_t pidNum)
{
	struct npu_share_pids arg = { .size = sizeof(arg), .shareable = shareableHandle };
	struct acl_device *dev;
	int ret;

	ret = acl_pid_list_check(pid, pidNum, "pidNum", -EINVAL);
	if (ret)
		return ret;
	dev = acl_mm_handle_exporter(shareableHandle);
	if (!dev)
		return acl_errf(-ENOENT, "shareableHandle %#llx was not exported by this process (or its handle was freed)",
				(unsigned long long)shareableHandle);
	arg.pids = (uintptr_t)pid;
	arg.count = pidNum;
	ret = acl_ioctl(dev->fd, NPU_IOCTL_SHARE_SET_PIDS, &arg);
	if (ret == -ENOENT)
		ret = acl_errf(ret, "shareableHandle %#llx was not exported by this process (or its handle was freed)",
			       (unsigned long long)shareableHandle);
	else if (ret == -ESRCH)
		ret = acl_errf(ret, "one of the %zu pids names no process in this pid namespace (or a thread, not a process): the list is unchanged",
			       pidNum);
	return ret;
}

ACL_EXPORT aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum)
{
	int ret;

	ret = acl_enter(NULL, pid);
	if (!ret)
		ret = acl_share_set_pids(shareableHandle, pid, pidNum);
	return acl_ret(__func__, ret);
}

/* Import the name @shareableHandle onto the open device @dev (V1 and V2). */
static int acl_share_import(struct acl_device *dev, uint64_t shareableHandle, aclrtDrvMemHandle *handle)
{
	struct npu_share_import imp = { .size = sizeof(imp), .shareable = shareableHandle };
	struct acl_handle *h;
	int ret;

	ret = acl_ioctl(dev->fd, NPU_IOCTL_SHARE_IMPORT, &imp);
	if (ret) {
		/* unknown, revoked and not allowed answer alike: names cannot be probed */
		if (ret == -ENOENT)
			acl_errf(ret, "shareableHandle %#llx cannot be imported: no such export, revoked, this process is not on its pid list, or runs as another user than the exporter",
				 (unsigned long long)shareableHandle);
		else if (ret == -EINVAL)
			acl_errf(ret, "shareableHandle %#llx was exported by this process: import it in another one",
				 (unsigned long long)shareableHandle);
		else if (ret == -ENODEV)
			acl_errf(ret, "shareableHandle %#llx was exported on another device than device %d",
				 (unsigned long long)shareableHandle, dev->id);
		return ret;
	}
	ret = acl_mm_handle_import(dev, imp.handle, imp.length, imp.page_size, &h);
	if (!ret)
		*handle = h;
	return ret;
}

ACL_EXPORT aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
						      aclrtDrvMemHandle *handle)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(NULL, handle);
	if (ret)
		goto out;
	ret = acl_dev_check_id(deviceId, "deviceId");
	if (ret)
		goto out;
	/* the handle lives in that device's context: it must be open */
	dev = acl_dev_get(deviceId);
	if (!dev) {
		ret = acl_errf(ACLI_ENOCTX, "device %d is not set in this process: call aclrtSetDevice(%d) first",
			       deviceId, deviceId);
		goto out;
	}
	ret = acl_share_import(dev, shareableHandle, handle);
out:
	return acl_ret(__func__, ret);
}

/*
 * V2's share types: DEFAULT is V1's 64-bit name (a uint64_t at the
 * caller's pointer); FABRIC shares across servers, which needs a fabric
 * between them that the simulated chip does not have.
 */
static int acl_share_type_check(aclrtMemSharedHandleType shareType)
{
	if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
		return acl_errf(ACLI_ERTNOTSUPP, "shareType FABRIC: the simulated chip has no cross-server fabric (use ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT)");
	if (shareType != ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT)
		return acl_errf(ACLI_ERTPARAM, "shareType %d must be ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT or _FABRIC",
				(int)shareType);
	return 0;
}

ACL_EXPORT aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
						      aclrtMemSharedHandleType shareType, void *shareableHandle)
{
	uint64_t name;
	int ret;

	ret = acl_enter(NULL, handle, shareableHandle);
	if (ret)
		goto out;
	/* bad values first (107000), then FABRIC, a feature the chip lacks (207000) */
	if (shareType != ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT && shareType != ACL_MEM_SHARE_HANDLE_TYPE_FABRIC) {
		ret = acl_share_type_check(shareType);
		goto out;
	}
	if (flags > ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION) {
		ret = acl_errf(ACLI_ERTPARAM, "flags %#llx must be ACL_RT_VMM_EXPORT_FLAG_DEFAULT or _DISABLE_PID_VALIDATION",
			       (unsigned long long)flags);
		goto out;
	}
	ret = acl_share_type_check(shareType);
	if (!ret)
		ret = acl_share_export(handle, flags, &name);
	/* DEFAULT: a uint64_t at the caller's pointer, which need not be aligned */
	if (!ret)
		memcpy(shareableHandle, &name, sizeof(name));
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle, aclrtMemSharedHandleType shareType,
							uint64_t flags, aclrtDrvMemHandle *handle)
{
	struct acl_device *dev;
	uint64_t name;
	int ret;

	ret = acl_enter(NULL, shareableHandle, handle);
	if (ret)
		goto out;
	if (flags) {
		ret = acl_errf(-EINVAL, "flags %#llx must be 0", (unsigned long long)flags);
		goto out;
	}
	ret = acl_share_type_check(shareType);
	if (!ret)
		ret = acl_cur_dev(&dev);
	if (ret)
		goto out;
	memcpy(&name, shareableHandle, sizeof(name));
	ret = acl_share_import(dev, name, handle);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle, aclrtMemSharedHandleType shareType,
						      int32_t *pid, size_t pidNum)
{
	uint64_t name;
	int ret;

	ret = acl_enter(NULL, shareableHandle, pid);
	if (ret)
		goto out;
	if (!pidNum) {
		ret = acl_errf(-EINVAL, "pidNum must be at least 1");
		goto out;
	}
	ret = acl_share_type_check(shareType);
	if (ret)
		goto out;
	memcpy(&name, shareableHandle, sizeof(name));
	ret = acl_share_set_pids(name, pid, pidNum);
out:
	return acl_ret(__func__, ret);
}

/* GET_INFO through an open device, else through a briefly opened /dev/npuN. */
static int acl_get_info_any(struct npu_get_info *info)
{
	struct acl_device *dev;
	char path[32];
	int pos = 0, id, fd, ret;

	dev = acl_dev_iter(&pos);
	if (dev)
		return acl_ioctl(dev->fd, NPU_IOCTL_GET_INFO, info);
	for (id = 0; id < ACL_MAX_DEVICES; id++) {
		snprintf(path, sizeof(path), "/dev/npu%d", id);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		ret = acl_ioctl(fd, NPU_IOCTL_GET_INFO, info);
		close(fd);
		return ret;
	}
	return acl_errf(ACLI_ENODEVS, "no /dev/npuN device to ask: is the npu module loaded?");
}

ACL_EXPORT aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
	struct npu_get_info info = { .size = sizeof(info) };
	int ret;

	ret = acl_enter(NULL, pid);
	if (ret)
		goto out;
	ret = acl_get_info_any(&info);
	if (!ret)
		*pid = (int32_t)info.tgid;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
	int ret;

	ret = acl_enter(NULL, canAccessPeer);
	if (ret)
		goto out;
	ret = acl_dev_check_id(deviceId, "deviceId");
	if (!ret)
		ret = acl_dev_check_id(peerDeviceId, "peerDeviceId");
	if (ret)
		goto out;
	/* CANN: the two ids must differ */
	if (deviceId == peerDeviceId) {
		ret = acl_errf(-EINVAL, "peerDeviceId %d must differ from deviceId", peerDeviceId);
		goto out;
	}
	/* every device's DMA engine can reach every other's memory */
	*canAccessPeer = 1;
out:
	return acl_ret(__func__, ret);
}

/* The checks Enable and Disable share; *devp gets the current device. */
static int acl_peer_args(int32_t peerDeviceId, struct acl_device **devp)
{
	int ret;

	ret = acl_dev_check_id(peerDeviceId, "peerDeviceId");
	if (ret)
		return ret;
	ret = acl_cur_dev(devp);
	if (ret)
		return ret;
	if (peerDeviceId == (*devp)->id)
		return acl_errf(-EINVAL, "peerDeviceId %d is the current device: name another one", peerDeviceId);
	return 0;
}

int acl_peer_enable(struct acl_device *dev, int peer)
{
	struct npu_peer_enable arg = { .size = sizeof(arg), .device = (uint32_t)peer };
	int ret;

	ret = acl_ioctl(dev->fd, NPU_IOCTL_PEER_ENABLE, &arg);
	if (!ret || ret == -EALREADY)
		__atomic_or_fetch(&dev->peers, 1ULL << peer, __ATOMIC_RELEASE);
	return ret;
}

ACL_EXPORT aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
	struct acl_device *dev;
	int ret;

	ret = acl_check_init();
	if (ret)
		goto out;
	/* CANN: a reserved parameter; anything but 0 is a feature it lacks */
	if (flags) {
		ret = acl_errf(ACLI_EFEATURE, "flags %#x must be 0", flags);
		goto out;
	}
	ret = acl_peer_args(peerDeviceId, &dev);
	if (ret)
		goto out;
	ret = acl_peer_enable(dev, peerDeviceId);
	if (ret == -EALREADY)
		ret = acl_errf(ret, "device %d already has peer access to device %d enabled", dev->id,
			       peerDeviceId);
	else if (ret == -ENODEV)
		ret = acl_errf(ret, "peerDeviceId %d: the driver has no such device", peerDeviceId);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
	struct npu_peer_enable arg = { .size = sizeof(arg), .device = (uint32_t)peerDeviceId };
	struct acl_device *dev;
	int ret;

	ret = acl_check_init();
	if (ret)
		goto out;
	ret = acl_peer_args(peerDeviceId, &dev);
	if (ret)
		goto out;
	ret = acl_ioctl(dev->fd, NPU_IOCTL_PEER_DISABLE, &arg);
	if (!ret || ret == -ENOENT)
		__atomic_and_fetch(&dev->peers, ~(1ULL << peerDeviceId), __ATOMIC_RELEASE);
	if (ret == -ENOENT)
		ret = acl_errf(-EINVAL, "device %d has no peer access to device %d enabled (aclrtDeviceEnablePeerAccess)",
			       dev->id, peerDeviceId);
	else if (ret == -ENODEV)
		ret = acl_errf(ret, "peerDeviceId %d: the driver has no such device", peerDeviceId);
out:
	return acl_ret(__func__, ret);
}

/* 0 if @id may be a device id of this API, else ACLI_ERTPARAM naming @what. */
static int acl_peer_id_range(int32_t id, const char *what)
{
	if (id < 0 || id >= ACL_MAX_DEVICES)
		return acl_errf(ACLI_ERTPARAM, "%s %d is not a device id (0..%d)", what, id,
				ACL_MAX_DEVICES - 1);
	return 0;
}

ACL_EXPORT aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(NULL, status);
	if (ret)
		goto out;
	ret = acl_peer_id_range(deviceId, "deviceId");
	if (!ret)
		ret = acl_peer_id_range(peerDeviceId, "peerDeviceId");
	if (!ret)
		ret = acl_dev_check_id(deviceId, "deviceId");
	if (!ret)
		ret = acl_dev_check_id(peerDeviceId, "peerDeviceId");
	if (ret)
		goto out;
	/* enabled in this process: deviceId set, and Enable called with it current */
	dev = acl_dev_get(deviceId);
	*status = dev && (__atomic_load_n(&dev->peers, __ATOMIC_ACQUIRE) & (1ULL << peerDeviceId)) ? 1 : 0;
out:
	return acl_ret(__func__, ret);
}
