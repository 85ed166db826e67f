// SPDX-License-Identifier: MIT
/*
 * Kernel launches. The simulated chip gets its AI cores (binaries,
 * function handles, launches) with the AI-core work; until then libacl
 * creates no function handle, so every handle a caller passes is one it
 * does not know: CANN's answer for that is ACL_ERROR_RT_INVALID_HANDLE
 * (107017, the last error set; src/runtime/api/api_c_kernel.cc). CANN
 * reads a magic number at the handle's address to tell; libacl keeps its
 * handles in a table and never reads the caller's pointer.
 */
#include <errno.h>

#include <acl/acl.h>

#include "error.h"

ACL_EXPORT aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle, uint32_t numBlocks,
						  aclrtStream stream, aclrtLaunchKernelCfg *cfg, void *hostArgs,
						  size_t argsSize, aclrtPlaceHolderInfo *placeHolderArray,
						  size_t placeHolderNum)
{
	int ret;

	(void)numBlocks, (void)stream, (void)cfg, (void)argsSize, (void)placeHolderArray, (void)placeHolderNum;
	if (!funcHandle)
		ret = acl_errf(-EINVAL, "funcHandle must not be NULL");
	else if (!hostArgs)
		ret = acl_errf(-EINVAL, "hostArgs must not be NULL");
	else
		ret = acl_errf(ACLI_EHANDLE, "funcHandle %p is not a function handle of libacl (it has no kernel binaries yet)",
			       funcHandle);
	return acl_ret(__func__, ret);
}
