/* SPDX-License-Identifier: MIT */
/*
 * Settings (sysparam.c) that the opening of a device checks.
 */
#ifndef LIBACL_SYSPARAM_H
#define LIBACL_SYSPARAM_H

/*
 * 0 if device @id may open with the device limits set
 * (aclrtDeviceSetLimit), else ACLI_EDEVSETUP with the reason: as CANN's
 * device start refuses a stack size above the chip's.
 */
int acl_dev_limits_check_open(int id);

#endif /* LIBACL_SYSPARAM_H */
