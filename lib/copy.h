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

/*
 * Synchronous copies between pageable host memory and device memory of at
 * least ACL_DIRECT_MIN bytes are direct (NPU_CMD_*_USER: the driver pins
 * the pages for the copy), ACL_DIRECT_PIECE per command; smaller ones are
 * staged (measured: Documentation/benchmarks.rst, bench_copy i).
 */
#define ACL_DIRECT_MIN		(256ULL << 10)
#define ACL_DIRECT_PIECE	(32ULL << 20)

/* ACL_NPU_PAGEABLE_COPY, aclInit's {"pageableCopy":{"mode":...}} */
enum {
	ACL_PAGEABLE_AUTO,	/* direct from ACL_DIRECT_MIN, staged below */
	ACL_PAGEABLE_STAGED,	/* always staged, as CANN does */
	ACL_PAGEABLE_DIRECT,	/* always direct (where the driver pins) */
};

/* "auto", "staged", "direct" -> ACL_PAGEABLE_*, else -EINVAL. */
int acl_copy_mode_parse(const char *s);
/* The mode aclInit's config set (ACL_PAGEABLE_AUTO if none). */
void acl_copy_config(int mode);

/* The device's internal copy streams; the staging buffer comes on first use. */
int acl_copy_open(struct acl_device *dev);
/* Free them; @in_child: after fork, leave the inherited buffer mapped. */
void acl_copy_close(struct acl_device *dev, bool in_child);

#endif /* LIBACL_COPY_H */
