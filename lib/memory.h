/* SPDX-License-Identifier: MIT */
/* Device memory (memory.c), for the other API files. */
#ifndef LIBACL_MEMORY_H
#define LIBACL_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include <acl/acl_rt.h>

struct acl_device;

/* Check an aclrtMallocConfig: @host for aclrtMallocHostWithCfg; *va_flag gets VA_FLAG. */
int acl_malloc_cfg_check(struct acl_device *dev, const aclrtMallocConfig *cfg, bool host,
			 uint32_t *va_flag);

#endif /* LIBACL_MEMORY_H */
