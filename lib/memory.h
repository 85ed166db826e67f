/* SPDX-License-Identifier: MIT */
#ifndef LIBACL_MEMORY_H
#define LIBACL_MEMORY_H

#include <stdint.h>

#include <acl/acl_rt.h>

#include "device.h"

struct acl_region;

/*
 * Map physical handle @handle (tmpl->len bytes in @page pages) read-write
 * for @dev at fresh device VA (NPU_MAP_PEERS), record it as a region like
 * @tmpl, and free the handle: the mapping holds the memory until it is
 * unmapped. The handle is freed on failure too. *out gets the VA.
 */
int acl_dev_map_handle(struct acl_device *dev, uint32_t handle, const struct acl_region *tmpl,
		       uint64_t page, uint64_t *out);

/* Check an aclrtMallocConfig: @host for aclrtMallocHostWithCfg; *va_flag gets VA_FLAG. */
int acl_malloc_cfg_check(struct acl_device *dev, const aclrtMallocConfig *cfg, bool host,
			 uint32_t *va_flag);

/* Unmap region @r (taken from the device's index) and release its VA. */
int acl_dev_unmap_region(struct acl_device *dev, const struct acl_region *r);

/*
 * Account @delta bytes of @kind on @dev (memquery.c): what
 * aclrtGetMemUsageInfo reports. The _locked form with dev->lock held.
 */
void acl_mem_account(struct acl_device *dev, enum acl_mem_kind kind, int64_t delta);
void acl_mem_account_locked(struct acl_device *dev, enum acl_mem_kind kind, int64_t delta);

#endif /* LIBACL_MEMORY_H */
