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

/* The device's internal copy streams; the staging buffer comes on first use. */
int acl_copy_open(struct acl_device *dev);
/* Free them; @in_child: after fork, leave the inherited buffer mapped. */
void acl_copy_close(struct acl_device *dev, bool in_child);

#endif /* LIBACL_COPY_H */
