/* SPDX-License-Identifier: MIT */
/*
 * Managed memory (aclrtMemAllocManaged): anonymous host memory that every
 * open device mirrors at the same address (the driver's MIRROR_MAP).
 */
#ifndef LIBACL_MANAGED_H
#define LIBACL_MANAGED_H

struct acl_device;

/* @dev was just opened (dev->lock held): mirror every managed range on it. */
int acl_managed_dev_opened(struct acl_device *dev);

/*
 * aclrtFree of @ptr: 1 when it was a managed allocation (now freed), 0 when
 * it is no managed memory, a negative errno when it points inside one.
 */
int acl_managed_free(void *ptr);

/* After fork, in the child. */
void acl_managed_forget(void);

#endif /* LIBACL_MANAGED_H */
