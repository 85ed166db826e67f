/* SPDX-License-Identifier: MIT */
/*
 * The memory layer: the one part of libacl that asks the driver for
 * memory, mappings and registrations (MEM_ALLOC, MEM_FREE, VA_RESERVE,
 * VA_RELEASE, MAP, UNMAP, SET_ACCESS, GET_ACCESS, HOST_REGISTER,
 * HOST_UNREGISTER, MIRROR_MAP, MIRROR_UNMAP, ADDR_QUERY), each undone on
 * one path and explained by one set of messages, and that records what
 * they made (region.h), so that the rest of the library learns what an
 * address is without asking the driver (acl_mm_query()). The API files
 * (memory.c, vmm.c, host.c, managed.c, ipc.c, peer.c) check arguments
 * and call it; so do copies (the staging buffer) and slots.c.
 *
 * Functions return 0 or a negative errno with the reason recorded
 * (error.h); -ENOENT for "no such allocation" comes back quietly, for the
 * caller to explain in its API's terms. The requests that make or release
 * device memory, VMM reservations and mappings wait first while the
 * process is locked for a snapshot (snapstate.h).
 */
#ifndef LIBACL_MM_H
#define LIBACL_MM_H

#include <stdbool.h>
#include <stdint.h>

#include <uapi/npu.h>

#include "list.h"
#include "region.h"

struct acl_device;

/* Kinds of device memory the library accounts per device (aclrtGetMemUsageInfo). */
enum acl_mem_kind {
	ACL_MEM_KIND_MALLOC,		/* aclrtMalloc* allocations */
	ACL_MEM_KIND_PHYSICAL,		/* aclrtMallocPhysical handles, until freed and unmapped */
	ACL_MEM_KINDS,
};

/* A process on an exported handle's pid list, and when it started (clock ticks after boot). */
struct acl_share_pid {
	int32_t pid;
	uint64_t start;
};

/* What an aclrtDrvMemHandle points to. */
struct acl_handle {
	struct list_head node;		/* in its device's live handles */
	struct acl_device *dev;
	uint32_t id;			/* kernel handle, valid in dev's context */
	uint64_t size;			/* bytes; an import reports it too */
	uint64_t page_size;
	uint64_t shareable;		/* name from SHARE_EXPORT, 0 if not exported */
	bool imported;			/* from aclrtMemImportFromShareableHandle */
	int attr;			/* aclrtMemAttr to report (the request's); -1: an import */
	/* under the records' lock, the exporter's: the pids listed so far (peer.c) */
	struct acl_share_pid *pids;
	uint32_t npids;
	/* under the records' lock: */
	unsigned int retains;		/* aclrtMemRetainAllocationHandle references left */
	unsigned int maps;		/* its aclrtMapMem mappings */
	bool released;			/* freed (off the list), kept while still mapped */
};

/*
 * What @dev holds at an address, as the driver's ADDR_QUERY would answer
 * it, and which of the library's records says so.
 */
struct acl_mem_info {
	uint32_t kind;			/* NPU_ADDR_* */
	uint64_t base, length;		/* the reservation, registration or mirror */
	uint64_t dev_addr;		/* HOST, mapped: the device VA of the address */
	uint64_t page_size;		/* of what is mapped there (4 KiB: host); 0: nothing */
	uint32_t host_flags;		/* NPU_HOST_* of a registration */
	int rkind;			/* enum acl_region_kind of the record; -1: the driver's */
	uint64_t rbase, rlen;		/* the record's range (a registration: its host range) */
	uint64_t map_base, map_len;	/* VMM: the aclrtMapMem mapping there; map_len 0: none */
};

/* Is @q a hole of a VMM reservation (where another device's mapping may be, mm.c)? */
static inline bool acl_mem_hole(const struct acl_mem_info *q)
{
	return q->rkind == ACL_REGION_VMM && !q->map_len;
}

/*
 * What @dev holds at @addr: from the records, which hold everything the
 * library made on @dev (so an address they do not know is NPU_ADDR_NONE:
 * pageable host memory), or from the driver for a record an undo left in
 * doubt. Never fails for an address the records answer.
 */
int acl_mm_query(struct acl_device *dev, uint64_t addr, struct acl_mem_info *mi);
/* acl_mm_query() of both addresses, at once. */
int acl_mm_query_pair(struct acl_device *dev, uint64_t a, struct acl_mem_info *ma, uint64_t b,
		      struct acl_mem_info *mb);

/* Device memory */

/* aclrtMalloc: @len bytes of @page pages, mapped read-write (NPU_MAP_PEERS) at *@va. */
int acl_mm_alloc(struct acl_device *dev, uint64_t len, uint64_t page, uint64_t *va);
/*
 * An IPC import: map handle @handle (@len bytes in @page pages) as
 * aclrtMalloc memory is, recorded with the key @key; the mapping holds
 * the memory, the handle is freed (on failure too).
 */
int acl_mm_map_import(struct acl_device *dev, uint32_t handle, uint64_t len, uint64_t page,
		      uint64_t key, uint64_t *va);
/* Unmap and release the allocation of @kind (MALLOC or IPC) starting at @va; -ENOENT: none. */
int acl_mm_free(struct acl_device *dev, uint64_t va, enum acl_region_kind kind);
/* Start of this process's oldest IPC import of @key on @dev, or 0. */
uint64_t acl_mm_ipc_oldest(struct acl_device *dev, uint64_t key);

/* Physical handles (VMM) */

/* aclrtMallocPhysical: a handle of @size bytes in @page pages, reporting memAttr @attr. */
int acl_mm_handle_alloc(struct acl_device *dev, uint64_t size, uint64_t page, int attr,
			struct acl_handle **out);
/* Adopt handle @id that SHARE_IMPORT gave (freed again on failure). */
int acl_mm_handle_import(struct acl_device *dev, uint32_t id, uint64_t size, uint64_t page,
			 struct acl_handle **out);
/* aclrtFreePhysical of @p: one retain dropped, or the handle freed (kept while mapped). */
int acl_mm_handle_free(const void *p);
/* A copy of the live handle @p, or -EINVAL ("not a live aclrtMallocPhysical handle"). */
int acl_mm_handle_info(const void *p, struct acl_handle *copy);
/* Note that @p was exported as @name (SHARE_EXPORT). */
void acl_mm_handle_shared(const void *p, uint64_t name);
/* The open device holding the handle exported as @name, or NULL. */
struct acl_device *acl_mm_handle_exporter(uint64_t name);
/*
 * Swap the pid list noted on the handle exported as @name with *@pids,
 * *@n (the handle takes the given list, the caller the old one): 0, or
 * -ENOENT (no live handle has that name; nothing swapped).
 */
int acl_mm_handle_swap_pids(uint64_t name, struct acl_share_pid **pids, uint32_t *n);
/* aclrtMemRetainAllocationHandle: the handle mapped at @va, one retain more. */
int acl_mm_handle_retain(uint64_t va, struct acl_handle **out);

/* VMM reservations and mappings */

/* aclrtReserveMemAddress: @len bytes aligned to @align; at @at if non-zero (-ENOMEM: taken). */
int acl_mm_reserve(struct acl_device *dev, uint64_t len, uint64_t align, uint64_t at,
		   uint64_t *va);
/* aclrtReleaseMemAddress. */
int acl_mm_release(struct acl_device *dev, uint64_t va);
/*
 * aclrtMapMem (@owner_rw: read-write for the handle's device at once) or
 * aclrtMemMapNoAccess (no access until acl_mm_set_access()): handle @p
 * whole (@len bytes) at @va of a reservation of @dev. The handle may be
 * another device's: the mapping is made in that device's file.
 */
int acl_mm_map(struct acl_device *dev, uint64_t va, uint64_t len, const void *p, bool owner_rw);
/* aclrtUnmapMem of a mapping in a reservation of @dev. */
int acl_mm_unmap(struct acl_device *dev, uint64_t va);
/*
 * The device whose file holds the mapping at @va of a reservation of
 * @dev: the device of the handle mapped there, else @dev.
 */
struct acl_device *acl_mm_home(struct acl_device *dev, uint64_t va);
/* NPU_ACCESS_* @access of device @device to [@va, +@len); @what names it in messages. */
int acl_mm_set_access(struct acl_device *dev, uint64_t va, uint64_t len, uint32_t device,
		      uint32_t access, const char *what);
int acl_mm_get_access(struct acl_device *dev, uint64_t va, uint32_t device, uint64_t *access);
/*
 * The CPU's (a HOST location's) NPU_ACCESS_* @access to [@va, +@len),
 * whole aclrtMapMem mappings in a reservation of @dev: the device's
 * aperture mapped there at the identity (PROT_READ, or PROT_READ |
 * PROT_WRITE), or, for NPU_ACCESS_NONE, the reservation's PROT_NONE again.
 */
int acl_mm_set_cpu_access(struct acl_device *dev, uint64_t va, uint64_t len, uint32_t access);
/* The CPU's NPU_ACCESS_* access to the mapping holding @va of a reservation of @dev. */
int acl_mm_get_cpu_access(struct acl_device *dev, uint64_t va, uint64_t *access);

/* Memory pools (mempool.c) */

/* The piece a pool's memory is backed in: each its own handle, mapped and unmapped alone. */
#define ACL_MM_POOL_CHUNK	(2ULL << 20)

/* Reserve @len bytes (a multiple of ACL_MM_POOL_CHUNK) of device VA for a pool, aligned to it. */
int acl_mm_pool_reserve(struct acl_device *dev, uint64_t len, uint64_t *va);
/*
 * Back [@va, +@len) of a pool's reservation with device memory, a handle
 * per chunk, read-write for @dev (and its peers, as aclrtMalloc memory):
 * all of it, or nothing on failure.
 */
int acl_mm_pool_back(struct acl_device *dev, uint64_t va, uint64_t len);
/* Give the chunks of [@va, +@len) back to the device. */
void acl_mm_pool_unback(struct acl_device *dev, uint64_t va, uint64_t len);
/* Release a pool's reservation (nothing of it backed any more). */
int acl_mm_pool_release(struct acl_device *dev, uint64_t va);

/* Host memory */

/*
 * aclrtMallocHost: @len bytes registered mapped (at their own address if
 * @identity) with every open device, and with each device that opens
 * later (acl_mm_host_dev_opened()), until freed or the last device
 * holding them closes.
 */
int acl_mm_host_alloc(uint64_t len, bool identity, void **out);
/* aclrtFreeHost, from any thread; -ENOENT: no such allocation. */
int acl_mm_host_free(void *p);
/* @dev opened: register every aclrtMallocHost allocation with it. */
int acl_mm_host_dev_opened(struct acl_device *dev);
/* After fork, in the child: the process-wide records' lock is free again. */
void acl_mm_forget(void);
/* aclrtHostRegister(V2) of [@p, +@len), NPU_HOST_* @kflags; *@dev_va its device VA or 0. */
int acl_mm_host_register(struct acl_device *dev, void *p, uint64_t len, uint32_t kflags,
			 uint64_t *dev_va);
/* aclrtHostUnregister. */
int acl_mm_host_unregister(struct acl_device *dev, void *p);
/*
 * Pages of the library's own (the staging buffer, event and notify
 * words, overflow status): @len bytes starting @skew bytes past an @align
 * boundary, registered; with @mapped also a device address, their own
 * (as the device's AI cores reach them). They go with the device
 * (acl_mm_teardown()).
 */
int acl_mm_internal(struct acl_device *dev, uint64_t len, uint64_t align, uint64_t skew, bool mapped,
		    void **out);

/* Managed memory */

/* Mirror [@addr, +@len) on @dev (MIRROR_MAP); -EADDRINUSE if it is already. */
int acl_mm_mirror(struct acl_device *dev, uint64_t addr, uint64_t len);
/* Undo it. */
void acl_mm_unmirror(struct acl_device *dev, uint64_t addr);

/*
 * mmap() @len bytes that start @skew bytes past an @align boundary, with
 * @prot and @flags (anonymous); what was mapped beyond is unmapped again.
 * MAP_FAILED with errno set on failure (EOVERFLOW: @len too large).
 */
void *acl_map_aligned(uint64_t len, uint64_t align, uint64_t skew, int prot, int flags);

/* Device memory the process reaches by address: what a snapshot saves (snapshot.c). */
struct acl_mm_span {
	uint64_t addr, len;
	bool vmm;			/* an aclrtMapMem mapping; else aclrtMalloc memory */
};

/*
 * Every aclrtMalloc allocation and aclrtMapMem mapping of @dev that is not
 * being released: a malloc'ed array in *@out (the caller frees it), *@n
 * entries. IPC imports are the exporter's memory, not listed.
 */
int acl_mm_spans(struct acl_device *dev, struct acl_mm_span **out, size_t *n);

/* This process's memory of @kind on @dev since it opened: current and peak bytes. */
void acl_mm_usage(struct acl_device *dev, enum acl_mem_kind kind, uint64_t *cur, uint64_t *peak);

/* @dev was opened: no records yet. */
void acl_mm_open(struct acl_device *dev);
/*
 * @dev was closed (its file released every kernel object): forget the
 * records and munmap what the library mapped, unless @in_child (after
 * fork the child keeps the mappings as it inherited them).
 */
void acl_mm_teardown(struct acl_device *dev, bool in_child);

#endif /* LIBACL_MM_H */
