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
 * A dma-buf fd (V1's ACL_MEM_HANDLE_TYPE_POSIX, V2's POSIX_FD) goes both
 * ways: out of npu (DMABUF_EXPORT), and in (DMABUF_IMPORT), whoever made
 * it - npu itself or another driver.
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
#include <pthread.h>
#include <stdbool.h>
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
	if (ret == -EINVAL)
		return acl_errf(ret, "the handle was imported from a dma-buf fd (ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD): that fd is the dma-buf");
	if (ret)
		return ret;
	*out = (uint64_t)arg.fd;
	return 0;
}

/*
 * ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD: the dma-buf @fd as a handle of @dev
 * (DMABUF_IMPORT). The driver makes npu's own memory of @dev a handle of
 * that memory (its page size), anything else a buffer the device reaches
 * through host DMA (4 KiB pages). The size is the dma-buf's: lseek()
 * tells it, and the driver checks it.
 */
static int acl_dmabuf_import(struct acl_device *dev, int fd, aclrtDrvMemHandle *handle)
{
	struct npu_dmabuf_import imp = { .size = sizeof(imp), .fd = fd };
	struct npu_mem_free mf = { .size = sizeof(mf) };
	struct acl_handle *h;
	off_t len;
	int ret;

	if (fd < 0)
		return acl_errf(-EBADF, "fd %d is not a file descriptor", fd);
	len = lseek(fd, 0, SEEK_END);
	if (len < 0 && errno == EBADF)
		return acl_errf(-EBADF, "fd %d is not an open file descriptor", fd);
	if (len <= 0)
		return acl_errf(-EINVAL, "fd %d is not a dma-buf (it has no size)", fd);
	imp.length = (uint64_t)len;
	ret = acl_ioctl(dev->fd, NPU_IOCTL_DMABUF_IMPORT, &imp);
	if (ret == -ENOTTY)
		return acl_errf(ACLI_EFEATURE, "the npu driver is older than 1.7: no dma-buf import");
	if (ret == -EBADF)
		return acl_errf(ret, "fd %d is not an open file descriptor", fd);
	if (ret == -EINVAL)
		return acl_errf(ret, "fd %d is not a dma-buf, or its size %lld is not a whole number of 4 KiB pages",
				fd, (long long)len);
	if (ret == -EOPNOTSUPP)
		return acl_errf(ret, "device %d cannot reach another driver's buffer in place (its DMA is not coherent or bounces)",
				dev->id);
	if (ret == -ENOSPC)
		return acl_errf(ret, "the device context holds max_imports imported handles already (npu module parameter)");
	if (ret)
		return ret;
	ret = acl_mm_handle_import(dev, imp.handle, imp.length, imp.page_size, &h);
	if (ret) {
		mf.handle = imp.handle;
		acl_ioctl(dev->fd, NPU_IOCTL_MEM_FREE, &mf);
		return ret;
	}
	*handle = h;
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

int acl_pid_list_check(const int32_t *pid, size_t n, const char *what, int err, bool zeros)
{
	size_t i;

	if (!n || n > NPU_SHARE_MAX_PIDS)
		return acl_errf(err, "%s %zu must be 1..%d", what, n, NPU_SHARE_MAX_PIDS);
	for (i = 0; i < n; i++) {
		if (pid[i] < 0 || (!pid[i] && !zeros))
			return acl_errf(err, "pid[%zu] %d is not a process id (aclrtDeviceGetBareTgid gives one)",
					i, pid[i]);
	}
	return 0;
}

/*
 * When process @pid started (/proc/<pid>/stat, field 22), to tell it from
 * a later process with its number; 0 if it is gone or /proc cannot say.
 */
static uint64_t acl_pid_start(int32_t pid)
{
	char path[32], buf[512], *p;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* the name (field 2) may hold spaces and parentheses: count from its last ')' */
	p = strrchr(buf, ')');
	for (i = 3; p && i <= 22; i++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

static bool acl_pids_have(const struct acl_share_pid *l, uint32_t n, int32_t pid)
{
	while (n--)
		if (l[n].pid == pid)
			return true;
	return false;
}

/*
 * The union of what @old lists (those of its processes still running)
 * and the non-zero @pid: a new list in *@out, *@nout; -ERANGE if all of
 * @pid are 0.
 */
static int acl_pids_union(const struct acl_share_pid *old, uint32_t nold, const int32_t *pid,
			  size_t pidNum, struct acl_share_pid **out, uint32_t *nout)
{
	struct acl_share_pid *l = calloc(nold + pidNum, sizeof(*l));
	uint32_t n = 0, i;
	bool any = false;

	if (!l)
		return acl_errf(-ENOMEM, "out of host memory");
	/* a listed process that exited is off the list, and its number may be another's now */
	for (i = 0; i < nold; i++)
		if (acl_pid_start(old[i].pid) == old[i].start)
			l[n++] = old[i];
	for (i = 0; i < pidNum; i++) {
		/* CANN skips pid 0 entries (devmm_set_pids()) */
		if (!pid[i])
			continue;
		any = true;
		if (!acl_pids_have(l, n, pid[i])) {
			l[n].pid = pid[i];
			l[n++].start = acl_pid_start(pid[i]);
		}
	}
	*out = l;
	*nout = n;
	return any ? 0 : -ERANGE;
}

/* SET_PIDS the @n pids of @l on the name @name, exported by @dev. */
static int acl_share_send_pids(struct acl_device *dev, uint64_t name, const struct acl_share_pid *l, uint32_t n)
{
	struct npu_share_pids arg = { .size = sizeof(arg), .shareable = name, .count = n };
	int32_t *nrs = malloc(n * sizeof(*nrs));
	uint32_t i;
	int ret;

	if (!nrs)
		return acl_errf(-ENOMEM, "out of host memory");
	for (i = 0; i < n; i++)
		nrs[i] = l[i].pid;
	arg.pids = (uintptr_t)nrs;
	ret = acl_ioctl(dev->fd, NPU_IOCTL_SHARE_SET_PIDS, &arg);
	free(nrs);
	return ret;
}

/* Serialises the pid list updates: each reads, extends and sends a list. */
static pthread_mutex_t acl_share_pids_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Add @pid to the pid list of the name @shareableHandle this process
 * exported (V1 and V2). CANN's driver inserts them into the handle's
 * list; npu's SHARE_SET_PIDS replaces the list, so the library sends the
 * union of what it listed before and the new pids.
 */
static int acl_share_set_pids(uint64_t shareableHandle, int32_t *pid, size_t pidNum)
{
	struct acl_share_pid *old = NULL, *l = NULL;
	uint32_t nold = 0, n = 0;
	struct acl_device *dev;
	int ret;

	ret = acl_pid_list_check(pid, pidNum, "pidNum", -EINVAL, true);
	if (ret)
		return ret;
	pthread_mutex_lock(&acl_share_pids_lock);
	dev = acl_mm_handle_exporter(shareableHandle);
	ret = dev ? acl_mm_handle_swap_pids(shareableHandle, &old, &nold) : -ENOENT;
	if (!ret)
		ret = acl_pids_union(old, nold, pid, pidNum, &l, &n);
	if (ret == -ERANGE)
		ret = acl_errf(ACLI_ERTPARAM, "every one of the %zu pids is 0: no process to add", pidNum);
	else if (!ret && n > NPU_SHARE_MAX_PIDS)
		ret = acl_errf(ACLI_ERTPARAM, "the list would hold %u processes, more than the driver's %d",
			       n, NPU_SHARE_MAX_PIDS);
	else if (!ret)
		ret = acl_share_send_pids(dev, shareableHandle, l, n);
	/* the handle keeps the list the driver has: the new one, or else the old one */
	if (!ret)
		acl_mm_handle_swap_pids(shareableHandle, &l, &n);
	else
		acl_mm_handle_swap_pids(shareableHandle, &old, &nold);
	pthread_mutex_unlock(&acl_share_pids_lock);
	free(old);
	free(l);
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

/* SHARE_IMPORT @name in @dev's context: the driver's answer, explained but for -ENODEV. */
static int acl_share_import_on(struct acl_device *dev, uint64_t name, struct npu_share_import *imp)
{
	int ret;

	imp->shareable = name;
	ret = acl_ioctl(dev->fd, NPU_IOCTL_SHARE_IMPORT, imp);
	/* unknown, revoked and not allowed answer alike: names cannot be probed */
	if (ret == -ENOENT)
		acl_errf(ret, "shareableHandle %#llx cannot be imported: no such export, revoked, this process is not on its pid list, or runs as another user than the exporter",
			 (unsigned long long)name);
	else if (ret == -EINVAL)
		acl_errf(ret, "shareableHandle %#llx was exported by this process: import it in another one",
			 (unsigned long long)name);
	return ret;
}

/*
 * Import the name @shareableHandle for the current device @cur (V1 and
 * V2). As in CANN the memory stays on the exporter's device and is peer
 * memory elsewhere: the handle is made in that device's context, which
 * must be open in this process (npu's names do not say their device, the
 * driver answers -ENODEV on the others), and @cur and it get peer access
 * both ways (CANN's EnableP2PWithOtherDevice(), one reference each).
 */
static int acl_share_import(struct acl_device *cur, uint64_t shareableHandle, aclrtDrvMemHandle *handle)
{
	struct npu_share_import imp = { .size = sizeof(imp) };
	struct acl_device *dev = cur;
	struct acl_handle *h;
	int ret, pos = 0;

	/* the current device first: the usual case */
	ret = acl_share_import_on(dev, shareableHandle, &imp);
	while (ret == -ENODEV && (dev = acl_dev_iter(&pos))) {
		if (dev != cur)
			ret = acl_share_import_on(dev, shareableHandle, &imp);
	}
	if (ret == -ENODEV)
		return acl_errf(ACLI_ENOCTX, "shareableHandle %#llx was exported on a device that no thread of this process has set: aclrtSetDevice() it first",
				(unsigned long long)shareableHandle);
	if (ret)
		return ret;
	ret = acl_mm_handle_import(dev, imp.handle, imp.length, imp.page_size, &h);
	if (ret)
		return ret;
	if (dev != cur) {
		ret = acl_peer_enable_pair(cur, dev);
		if (ret) {
			acl_mm_handle_free(h);
			return ret;
		}
	}
	*handle = h;
	return 0;
}

ACL_EXPORT aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
						      aclrtDrvMemHandle *handle)
{
	struct acl_device *cur;
	int ret;

	ret = acl_enter(NULL, handle);
	if (ret)
		goto out;
	/* CANN: the id is validated (107001), and any device will do */
	ret = acl_dev_check_id(deviceId, "deviceId");
	if (!ret)
		ret = acl_cur_dev(&cur);
	if (!ret)
		ret = acl_share_import(cur, shareableHandle, handle);
out:
	return acl_ret(__func__, ret);
}

/*
 * V2's share types: DEFAULT is V1's 64-bit name (a uint64_t at the
 * caller's pointer); FABRIC shares across servers, which needs a fabric
 * between them that the simulated chip does not have. POSIX_FD (ours, a
 * dma-buf fd) is taken care of before this is asked.
 */
static int acl_share_type_check(aclrtMemSharedHandleType shareType)
{
	if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC)
		return acl_errf(ACLI_ERTNOTSUPP, "shareType FABRIC: the simulated chip has no cross-server fabric (use ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT)");
	if (shareType != ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT)
		return acl_errf(ACLI_ERTPARAM, "shareType %d must be ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, _FABRIC or _POSIX_FD",
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
	if (shareType != ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT && shareType != ACL_MEM_SHARE_HANDLE_TYPE_FABRIC &&
	    shareType != ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD) {
		ret = acl_share_type_check(shareType);
		goto out;
	}
	if (flags > ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION) {
		ret = acl_errf(ACLI_ERTPARAM, "flags %#llx must be ACL_RT_VMM_EXPORT_FLAG_DEFAULT or _DISABLE_PID_VALIDATION",
			       (unsigned long long)flags);
		goto out;
	}
	/* ours: a dma-buf fd, as V1's ACL_MEM_HANDLE_TYPE_POSIX, as an int */
	if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD) {
		struct acl_handle h;
		uint64_t fd;
		int v;

		ret = acl_mm_handle_info(handle, &h);
		if (!ret)
			ret = acl_export_dmabuf(&h, &fd);
		if (!ret) {
			v = (int)fd;
			memcpy(shareableHandle, &v, sizeof(v));
		}
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
	/* ours: a dma-buf fd (an int), of npu's memory or another driver's */
	if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD) {
		int fd;

		ret = acl_cur_dev(&dev);
		if (ret)
			goto out;
		memcpy(&fd, shareableHandle, sizeof(fd));
		ret = acl_dmabuf_import(dev, fd, handle);
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
	if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_POSIX_FD) {
		ret = acl_errf(ACLI_ERTPARAM, "a dma-buf fd has no pid list: pass the fd itself to the process (SCM_RIGHTS)");
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

/*
 * Peer access is counted, as CANN's driver counts it (devdrv_ctrl.c: a
 * process's second enable of a pair takes a reference): the driver is
 * asked at the first enable and the last disable.
 */
static pthread_mutex_t acl_peer_lock = PTHREAD_MUTEX_INITIALIZER;

int acl_peer_enable(struct acl_device *dev, int peer)
{
	struct npu_peer_enable arg = { .size = sizeof(arg), .device = (uint32_t)peer };
	int ret = 0;

	pthread_mutex_lock(&acl_peer_lock);
	if (!dev->peer_refs[peer]) {
		ret = acl_ioctl(dev->fd, NPU_IOCTL_PEER_ENABLE, &arg);
		if (ret == -EALREADY)
			ret = 0;
		if (!ret)
			__atomic_or_fetch(&dev->peers, 1ULL << peer, __ATOMIC_RELEASE);
	}
	if (!ret)
		dev->peer_refs[peer]++;
	pthread_mutex_unlock(&acl_peer_lock);
	if (ret == -ENODEV)
		ret = acl_errf(ret, "peerDeviceId %d: the driver has no such device", peer);
	return ret;
}

int acl_peer_disable(struct acl_device *dev, int peer)
{
	struct npu_peer_enable arg = { .size = sizeof(arg), .device = (uint32_t)peer };
	int ret = 0;

	pthread_mutex_lock(&acl_peer_lock);
	if (!dev->peer_refs[peer])
		ret = -ENOENT;
	else if (dev->peer_refs[peer] == 1)
		ret = acl_ioctl(dev->fd, NPU_IOCTL_PEER_DISABLE, &arg);
	if (!ret || ret == -ENOENT)
		dev->peer_refs[peer] -= !!dev->peer_refs[peer];
	if (!dev->peer_refs[peer])
		__atomic_and_fetch(&dev->peers, ~(1ULL << peer), __ATOMIC_RELEASE);
	pthread_mutex_unlock(&acl_peer_lock);
	if (ret == -ENOENT)
		ret = acl_errf(-EINVAL, "device %d has no peer access to device %d enabled (aclrtDeviceEnablePeerAccess)",
			       dev->id, peer);
	else if (ret == -ENODEV)
		ret = acl_errf(ret, "peerDeviceId %d: the driver has no such device", peer);
	return ret;
}

int acl_peer_enable_pair(struct acl_device *a, struct acl_device *b)
{
	int ret;

	ret = acl_peer_enable(a, b->id);
	if (ret)
		goto err;
	ret = acl_peer_enable(b, a->id);
	if (!ret)
		return 0;
	acl_peer_disable(a, b->id);
err:
	return acl_errf(ret, "cannot enable peer access between devices %d and %d", a->id, b->id);
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
	if (!ret)
		ret = acl_peer_enable(dev, peerDeviceId);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
	struct acl_device *dev;
	int ret;

	ret = acl_check_init();
	if (ret)
		goto out;
	ret = acl_peer_args(peerDeviceId, &dev);
	if (!ret)
		ret = acl_peer_disable(dev, peerDeviceId);
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

/*
 * The open device whose aclrtMalloc allocation holds [@p, +@len) (its
 * records: as CANN's driver asks the SVM address of a prefetch), or NULL.
 */
static struct acl_device *acl_malloc_owner(const void *p, size_t len)
{
	uint64_t addr = (uintptr_t)p;
	struct acl_device *dev;
	struct acl_mem_info q;
	int pos = 0;

	while ((dev = acl_dev_iter(&pos))) {
		if (acl_mm_query(dev, addr, &q)) {
			acl_err_clear();
			continue;
		}
		if (q.kind == NPU_ADDR_DEVICE && q.rkind == ACL_REGION_MALLOC)
			return addr + len >= addr && addr + len <= q.base + q.length ? dev : NULL;
	}
	return NULL;
}

/*
 * CANN builds device dstDevId's page table entries for the memory ahead
 * of its first access (drvMemPrefetchToDevice), once peer access is
 * enabled. Here the entries exist from the moment it is: the driver maps
 * every aclrtMalloc allocation into each device with peer access to its
 * device (NPU_MAP_PEERS), later ones as they come. So this checks what
 * the mapping needs and has nothing left to build.
 */
ACL_EXPORT aclError aclrtMemP2PMap(void *devPtr, size_t size, int32_t dstDevId, uint64_t flags)
{
	struct acl_device *cur, *owner, *dst;
	int ret;

	ret = acl_enter(NULL, devPtr);
	if (ret)
		goto out;
	if (!size || flags) {
		ret = acl_errf(-EINVAL, !size ? "size must be non-zero" : "flags %#llx must be 0",
			       (unsigned long long)flags);
		goto out;
	}
	ret = acl_dev_check_id(dstDevId, "dstDevId");
	if (!ret)
		ret = acl_cur_dev(&cur);
	if (ret)
		goto out;
	owner = acl_malloc_owner(devPtr, size);
	if (!owner) {
		ret = acl_errf(ACLI_ERTPARAM, "devPtr %p+%zu is not inside one aclrtMalloc allocation of a device of this process",
			       devPtr, size);
		goto out;
	}
	if (owner->id == dstDevId)
		goto out;
	dst = acl_dev_get(dstDevId);
	if (!dst) {
		ret = acl_errf(ACLI_ENOCTX, "dstDevId %d: device %d is not set in this process (aclrtSetDevice(%d) in any thread)",
			       dstDevId, dstDevId, dstDevId);
		goto out;
	}
	if (!(__atomic_load_n(&dst->peers, __ATOMIC_ACQUIRE) & (1ULL << owner->id)))
		ret = acl_errf(ACLI_ERTPARAM, "device %d has no peer access to device %d: call aclrtDeviceEnablePeerAccess(%d, 0) with device %d current first",
			       dstDevId, owner->id, owner->id, dstDevId);
out:
	return acl_ret(__func__, ret);
}

bool acl_peer_enabled(struct acl_device *dev, struct acl_device *peer)
{
	return __atomic_load_n(&dev->peers, __ATOMIC_ACQUIRE) & (1ULL << peer->id);
}

int acl_no_peer(struct acl_device *e, struct acl_device *peer)
{
	return acl_errf(ACLI_ENOPEER, "device %d has no peer access to device %d: call aclrtDeviceEnablePeerAccess(%d, 0) with device %d current",
			e->id, peer->id, peer->id, e->id);
}
