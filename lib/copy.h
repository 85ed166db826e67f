/* SPDX-License-Identifier: MIT */
#ifndef LIBACL_COPY_H
#define LIBACL_COPY_H

#include <stdbool.h>

struct acl_device;

/*
 * Staging buffer: two halves, one filled by the CPU while the other's DMA
 * runs. A half is ACL_STAGE_HALF_MAX unless RLIMIT_MEMLOCK is tight.
 */
#define ACL_STAGE_HALF_MAX	(4ULL << 20)
#define ACL_STAGE_HALF_MIN	(64ULL << 10)

/* Forget the staging buffer at context teardown; @unmap: also munmap it. */
void acl_stage_teardown(struct acl_device *dev, bool unmap);

#endif /* LIBACL_COPY_H */
