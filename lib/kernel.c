// SPDX-License-Identifier: MIT
/*
 * Kernel launches. The function handles are those of binary.c's loaded
 * binaries (anything else is ACL_ERROR_RT_INVALID_HANDLE, 107017, the
 * last error set, as CANN's api_c_kernel.cc answers: CANN reads a magic
 * number at the handle's address to tell, libacl looks it up in its table
 * and never reads the caller's pointer). The simulated chip has no
 * executor for its AI cores yet: a launch of a valid function answers
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT (recorded as the last error).
 */
#include <errno.h>

#include <acl/acl.h>

#include "binary.h"
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
	struct acl_kfunc *f;
	int ret;

	(void)numBlocks, (void)stream, (void)cfg, (void)argsSize, (void)placeHolderArray, (void)placeHolderNum;
	if (!funcHandle)
		ret = acl_errf(-EINVAL, "funcHandle must not be NULL");
	else if (!hostArgs)
		ret = acl_errf(-EINVAL, "hostArgs must not be NULL");
	else
		ret = acl_kfunc_get(funcHandle, &f);
	if (!ret) {
		ret = acl_setlast(acl_errf(ACLI_ERTNOTSUPP,
					   "kernel %s cannot run: the simulated chip has no AI-core executor yet",
					   f->name));
		acl_kfunc_put(f);
	}
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
