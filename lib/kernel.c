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

#include "context.h"
#include "device.h"
#include "error.h"
#include "slots.h"

/* Each device's inter-core synchronisation word, kept while it is open. */
static struct acl_slot_kept acl_sync_words[ACL_MAX_DEVICES];

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

/*
 * CANN answers the address of the chip's inter-core (C2C) control area,
 * through which a kernel's cores synchronise. Until the simulated chip
 * has cores, it is a word the device reaches (one of its event pool's),
 * the same for every call until the device closes.
 */
ACL_EXPORT aclError aclrtGetHardwareSyncAddr(void **addr)
{
	struct acl_device *dev;
	uint64_t *word;
	int ret;

	/* the runtime's check: CANN's acl layer makes none */
	ret = acl_check_init();
	if (!ret && !addr)
		ret = acl_errf(ACLI_ERTPARAM, "addr must not be NULL");
	if (!ret)
		ret = acl_cur_dev(&dev);
	if (!ret)
		ret = acl_slot_keep(dev, &dev->slots, &acl_sync_words[dev->id], &word);
	if (ret == -ENOSPC)
		ret = acl_errf(ACLI_ENOEVENTRES, "no device word left for the synchronisation address");
	if (!ret)
		*addr = word;
	return acl_ret(__func__, ret);
}
