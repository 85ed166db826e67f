// SPDX-License-Identifier: MIT
/*
 * Sharing and peer access.  Not implemented yet: each call fails with
 * ACL_ERROR_API_NOT_SUPPORT and says so, never a silent success.
 */
#include <acl/acl.h>

#include "device.h"
#include "error.h"

static int acl_not_yet(const char *what)
{
	int ret = acl_check_init();

	if (ret)
		return ret;
	return acl_errf(ACLI_ENOTSUPP, "%s is not implemented yet", what);
}

ACL_EXPORT aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
						    uint64_t flags, uint64_t *shareableHandle)
{
	(void)handle; (void)handleType; (void)flags; (void)shareableHandle;
	return acl_ret(__func__, acl_not_yet("exporting physical memory to other processes"));
}

ACL_EXPORT aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
						      aclrtDrvMemHandle *handle)
{
	(void)shareableHandle; (void)deviceId; (void)handle;
	return acl_ret(__func__, acl_not_yet("importing physical memory from other processes"));
}

ACL_EXPORT aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum)
{
	(void)shareableHandle; (void)pid; (void)pidNum;
	return acl_ret(__func__, acl_not_yet("allowing processes to import a shareable handle"));
}

ACL_EXPORT aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
	(void)pid;
	return acl_ret(__func__, acl_not_yet("the bare tgid for shareable handles"));
}

ACL_EXPORT aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
	(void)canAccessPeer; (void)deviceId; (void)peerDeviceId;
	return acl_ret(__func__, acl_not_yet("peer device access"));
}

ACL_EXPORT aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
	(void)peerDeviceId; (void)flags;
	return acl_ret(__func__, acl_not_yet("peer device access"));
}
