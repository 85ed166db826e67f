/* SPDX-License-Identifier: MIT */
/*
 * The memory layer's records (mm.c): what the library asked the driver to
 * make on one device, each found by any address inside it in O(log n).
 *
 * - regions: device VA reservations (aclrtMalloc, aclrtReserveMemAddress,
 *   IPC imports, memory pools), registrations of host memory (with the device VA of a
 *   mapped one), managed memory mirrored on the device;
 * - the aclrtMapMem mappings inside VMM reservations.
 *
 * Every device VA reservation is also reserved in the process address
 * space (PROT_NONE, MAP_NORESERVE) before the driver's VA_RESERVE at the
 * same address: the host allocator can then never hand out that range,
 * so no device pointer ever equals a host pointer, and the ranges of one
 * index never overlap. The caller holds the records' lock (mm.c).
 */
#ifndef LIBACL_REGION_H
#define LIBACL_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct acl_device;

enum acl_region_kind {
	ACL_REGION_MALLOC,	/* aclrtMalloc: reservation + one mapping at its start */
	ACL_REGION_VMM,		/* aclrtReserveMemAddress */
	ACL_REGION_HOST_ALLOC,	/* aclrtMallocHost(WithCfg): library-owned host pages */
	ACL_REGION_HOST_REG,	/* aclrtHostRegister(V2): caller-owned host pages */
	ACL_REGION_IPC,		/* aclrtIpcMemImportByKey: reservation + one mapping, as MALLOC */
	ACL_REGION_INTERNAL,	/* the library's own registered pages (staging, word pools) */
	ACL_REGION_MIRROR,	/* managed memory mirrored on the device (MIRROR_MAP) */
	ACL_REGION_POOL,	/* aclrtMemPoolCreate: reservation, 2 MiB pieces mapped on demand */
};

struct acl_region {
	enum acl_region_kind kind;
	uint64_t addr, len;		/* device VA, or host range for HOST_* and INTERNAL */
	uint64_t dev_va, dev_va_len;	/* process VA reserved to map a host region, else 0 */
	uint64_t page_size;		/* MALLOC, IPC, POOL: the memory's page size */
	uint32_t host_flags;		/* NPU_HOST_* of a host region */
	bool user_registered;		/* HOST_ALLOC also passed to aclrtHostRegister */
	bool dying;			/* being released: still there, not to be released again */
	bool doubt;			/* an undo failed half-way: ask the driver about it */
	uint64_t ipc_key;		/* IPC: the driver's key it was imported by */
	uint64_t ipc_serial;		/* IPC: import order, to close the oldest first */
	/*
	 * VMM: a mapping of this device's handle inside the reservation
	 * [@guest_base, +@guest_len) of @guest_of (aclrtMapMem across
	 * devices, mm.c), which owns the process VA; else NULL
	 */
	struct acl_device *guest_of;
	uint64_t guest_base, guest_len;
};

/* Disjoint ranges [start, end), each with its object, in an AVL tree by start. */
struct acl_range {
	uint64_t start, end;
	void *p;
	struct acl_range *child[2];	/* lower, higher starts */
	int height;
};

struct acl_ranges {
	struct acl_range *root;
	size_t n;
};

/* One device's records. */
struct acl_regions {
	struct acl_ranges host;		/* HOST_*, INTERNAL: by host address */
	struct acl_ranges va;		/* MALLOC, VMM, IPC, MIRROR, POOL, mapped host regions' device VA */
	struct acl_ranges maps;		/* aclrtMapMem mappings; p is their struct acl_handle */
	struct acl_ranges cpu;		/* maps' mappings the CPU reaches (mm.c); p is the NPU_ACCESS_* */
};

/* Add [@start, +@len) for @p: 0, -EEXIST (overlap) or -ENOMEM. */
int acl_ranges_add(struct acl_ranges *rs, uint64_t start, uint64_t len, void *p);
/* Does a range overlap [@start, +@len) (or does it wrap)? */
bool acl_ranges_overlap(const struct acl_ranges *rs, uint64_t start, uint64_t len);
/* The range holding @addr, or NULL. */
const struct acl_range *acl_ranges_find(const struct acl_ranges *rs, uint64_t addr);
/* Remove the range starting at @start; its object, or NULL. */
void *acl_ranges_del(struct acl_ranges *rs, uint64_t start);
/* Call @fn on every range's object, in no particular order (it may not change @rs). */
void acl_ranges_each(const struct acl_ranges *rs, void (*fn)(void *p, void *arg), void *arg);
/* Call @fn on every range, by start (it may not change @rs). */
void acl_ranges_walk(const struct acl_ranges *rs, void (*fn)(const struct acl_range *r, void *arg),
		     void *arg);

/* Index @r (allocated by the caller, owned by the records from now on). */
int acl_region_add(struct acl_regions *rs, struct acl_region *r);
/* Unindex @r; the caller frees it. */
void acl_region_del(struct acl_regions *rs, struct acl_region *r);
/* The region of @kind (any when < 0) that starts at @addr, or NULL. */
struct acl_region *acl_region_at(const struct acl_regions *rs, uint64_t addr, int kind);
/* The registration holding host address @addr, or NULL. */
struct acl_region *acl_region_host(const struct acl_regions *rs, uint64_t addr);
/*
 * The region whose device VA holds @addr, or NULL; *@base, *@len get that
 * range (a mapped host region's device VA, else the region itself).
 */
struct acl_region *acl_region_va(const struct acl_regions *rs, uint64_t addr, uint64_t *base,
				 uint64_t *len);

/* Call @fn on every region (it may not change the records). */
void acl_regions_each(const struct acl_regions *rs, void (*fn)(struct acl_region *r, void *arg),
		      void *arg);
/* Forget everything, calling @fn on each region first (it frees it). */
void acl_regions_clear(struct acl_regions *rs, void (*fn)(struct acl_region *r, void *arg),
		       void *arg);

static inline uint64_t acl_round_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

#endif /* LIBACL_REGION_H */
