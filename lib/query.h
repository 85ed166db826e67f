/* SPDX-License-Identifier: MIT */
/*
 * Device queries and the device resource limits (query.c), for the rest
 * of the library.
 */
#ifndef LIBACL_QUERY_H
#define LIBACL_QUERY_H

#include <stdint.h>

struct acl_device;
struct npu_get_info;

/*
 * GET_INFO of device @id: through the open device if some thread set it,
 * else through a context of its own, opened for this call. -ENODEV (with
 * the reason naming @what) if there is no such device, or the device is
 * gone (its carrier was removed).
 */
int acl_query_info(int id, struct npu_get_info *info, const char *what);

/* NPU architecture of device @id's SoC, by CANN's platform files (2201: 910B-class). */
#define ACL_ARCH_910B	2201
int acl_soc_arch(int id, int32_t *arch);

/*
 * The device limit of @type (an aclrtDevResLimitType) of the open device
 * @dev: the hardware count until aclrtSetDeviceResLimit sets one, again
 * after aclrtResetDeviceResLimit, and for every new open of the device.
 * Returns 0, ACLI_ERTPARAM for an unknown @type, or the driver's error.
 */
int acl_dev_res_limit(struct acl_device *dev, int type, uint32_t *value);

/* The hardware count of @type on @dev (what a limit may go up to). */
int acl_dev_res_total(struct acl_device *dev, int type, uint32_t *value);

#endif /* LIBACL_QUERY_H */
