/* SPDX-License-Identifier: MIT */
/*
 * Address ranges the library manages per device: device VA reservations
 * (aclrtMalloc, aclrtReserveMemAddress) and host memory (aclrtMallocHost,
 * aclrtHostRegister*).
 *
 * Every device VA reservation is also reserved in the process address
 * space (PROT_NONE, MAP_NORESERVE) before the driver's VA_RESERVE at the
 * same address: the host allocator can then never hand out that range,
 * so no device pointer ever equals a host pointer.
 */
#ifndef LIBACL_REGION_H
#define LIBACL_REGION_H

#include <stdbool.h>
#include <stdint.h>

#include <uapi/npu.h>

#include "list.h"

struct acl_device;

enum acl_region_kind {
	ACL_REGION_MALLOC,	/* aclrtMalloc: reservation + one mapping at its start */
	ACL_REGION_VMM,		/* aclrtReserveMemAddress */
	ACL_REGION_HOST_ALLOC,	/* aclrtMallocHost(WithCfg): library-owned host pages */
	ACL_REGION_HOST_REG,	/* aclrtHostRegister(V2): caller-owned host pages */
	ACL_REGION_IPC,		/* aclrtIpcMemImportByKey: reservation + one mapping, as MALLOC */
};

struct acl_region {
	struct list_head node;		/* in dev->regions */
	enum acl_region_kind kind;
	uint64_t addr, len;		/* device VA, or host range for HOST_* */
	uint64_t dev_va, dev_va_len;	/* process VA reserved to map a host region, else 0 */
	uint32_t host_flags;		/* NPU_HOST_* of a host region */
	bool user_registered;		/* HOST_ALLOC also passed to aclrtHostRegister */
	uint64_t ipc_key;		/* IPC: the driver's key it was imported by */
	uint64_t ipc_serial;		/* IPC: import order, to close the oldest first */
};

/*
 * Reserve @len bytes of device VA aligned to @align (a power of two >=
 * 4 KiB), at @hint if non-zero and free, mirrored in the process.
 */
int acl_va_reserve(struct acl_device *dev, uint64_t len, uint64_t align, uint64_t hint, uint64_t *addr);
/*
 * Reserve @len bytes of process address space (4 KiB aligned) inside the
 * device window, for a mapped host registration: the driver books that
 * device VA itself, so there is no VA_RESERVE; undo with munmap().
 */
int acl_va_reserve_proc(struct acl_device *dev, uint64_t len, uint64_t align, uint64_t *addr);

/*
 * mmap() @len bytes that start @skew bytes past an @align boundary, with
 * @prot and @flags (anonymous); what was mapped beyond is unmapped again.
 * MAP_FAILED with errno set on failure (EOVERFLOW: @len too large).
 */
void *acl_map_aligned(uint64_t len, uint64_t align, uint64_t skew, int prot, int flags);
/* Undo acl_va_reserve(). */
int acl_va_release(struct acl_device *dev, uint64_t addr, uint64_t len);

/* Link @r into the device's index; dev->lock held. */
void acl_region_link_locked(struct acl_device *dev, struct acl_region *r);
/* Allocate and link a region (dev->lock taken inside). */
int acl_region_add(struct acl_device *dev, const struct acl_region *tmpl);
/* Find the region of @kind (or any kind when < 0) starting at @addr; dev->lock held. */
struct acl_region *acl_region_find_locked(struct acl_device *dev, uint64_t addr, int kind);
/* Unlink the region starting at @addr of @kind into *out (dev->lock taken inside). */
int acl_region_take(struct acl_device *dev, uint64_t addr, int kind, struct acl_region *out);

/* Drop everything at context teardown; @unmap: also munmap what the library mapped. */
void acl_regions_teardown(struct acl_device *dev, bool unmap);

/* What the driver says about @addr on @dev. */
int acl_addr_query(struct acl_device *dev, uint64_t addr, struct npu_addr_query *q);

static inline uint64_t acl_round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

#endif /* LIBACL_REGION_H */
