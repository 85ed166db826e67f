/* SPDX-License-Identifier: MIT */
/*
 * Settings (sysparam.c) that the opening of a device checks.
 */
#ifndef LIBACL_SYSPARAM_H
#define LIBACL_SYSPARAM_H

#include <stdint.h>

/*
 * 0 if device @id may open with the device limits set
 * (aclrtDeviceSetLimit), else ACLI_EDEVSETUP with the reason: as CANN's
 * device start refuses a stack size above the chip's.
 */
int acl_dev_limits_check_open(int id);

/* The saturation mode kernels run with (aclrtGetDeviceSatMode's answer): ACL_RT_OVERFLOW_MODE_*. */
int acl_sat_mode(void);

/*
 * Bytes of a kernel block's printf area (aclrtDeviceSetLimit's
 * ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 32 KiB unless set).
 */
uint32_t acl_printf_fifo_size(void);

#endif /* LIBACL_SYSPARAM_H */
