/* SPDX-License-Identifier: MIT */
#ifndef LIBACL_MEMORY_H
#define LIBACL_MEMORY_H

#include <stdint.h>

#include <acl/acl_rt.h>

#include "device.h"

/* Check an aclrtMallocConfig: @host for aclrtMallocHostWithCfg; *va_flag gets VA_FLAG. */
int acl_malloc_cfg_check(struct acl_device *dev, const aclrtMallocConfig *cfg, bool host,
			 uint32_t *va_flag);

/*
 * Account @delta bytes of @kind on @dev (memquery.c): what
 * aclrtGetMemUsageInfo reports. The _locked form with dev->lock held.
 */
void acl_mem_account(struct acl_device *dev, enum acl_mem_kind kind, int64_t delta);
void acl_mem_account_locked(struct acl_device *dev, enum acl_mem_kind kind, int64_t delta);

#endif /* LIBACL_MEMORY_H */
