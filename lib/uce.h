/* SPDX-License-Identifier: MIT */
/*
 * Uncorrectable memory errors of a device (uce.c), for the device's
 * fault record (aclrtGetErrorVerbose, aclrtRepairError in stream.c).
 * Calls nothing but the bottom of the library.
 */
#ifndef LIBACL_UCE_H
#define LIBACL_UCE_H

#include <stddef.h>

#include <acl/acl_rt.h>

struct acl_device;

/*
 * The bad ranges of this process on @dev, as aclrtGetErrorVerbose's
 * detail: @out->arraySize all of them, the first
 * ACL_RT_MEM_UCE_INFO_MAX_NUM in its array. 0 or -errno (reason set).
 */
int acl_uce_detail(struct acl_device *dev, aclrtMemUceInfoArray *out);

/*
 * Repair the @n ranges of @info on @dev (@what names the array in
 * messages): 1 to ACL_UCE_MAX_RECORDS ranges of device memory of this
 * process, as the driver's repair takes. 0 or -errno (reason set).
 */
int acl_uce_repair(struct acl_device *dev, const aclrtMemUceInfo *info, size_t n, const char *what);

#endif /* LIBACL_UCE_H */
