/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: the device VA space of a context - reservations and mappings.
 */
#ifndef __NPU_VM_H__
#define __NPU_VM_H__

#include <linux/bits.h>
#include <linux/dma-mapping.h>
#include <linux/list.h>
#include <linux/maple_tree.h>
#include <linux/mm_types.h>
#include <linux/rwsem.h>
#include <linux/types.h>

#include "npu_mmu.h"

/* Devices a board has at most: the size of each mapping's peer rights. */
#define NPU_MAX_DEVICES		8
/* The device VA window every context may reserve in. */
#define NPU_VA_START		SZ_2M
#define NPU_VA_END		BIT_ULL(47)

struct inode;
struct mem_cgroup;
struct npu_context;
struct npu_device;
struct npu_handle;
struct npu_host_reg;
struct npu_import;
struct npu_mirror;

/**
 * struct npu_reservation - a reserved device VA range
 * @start: first byte
 * @size: bytes
 * @owner: the MAPPED host registration whose device VA this is, or NULL
 *	for a VA_RESERVE reservation
 * @mirror: the mirror whose device VA this is, or NULL
 * @mappings: mappings inside it
 */
struct npu_reservation {
	u64 start;
	u64 size;
	struct npu_host_reg *owner;
	struct npu_mirror *mirror;
	unsigned int mappings;
};

/**
 * struct npu_mapping - device VA range backed by device or host memory
 * @start: first byte
 * @size: bytes
 * @access: NPU_ACCESS_* of this device (mirrored in the PTEs)
 * @peer_access: NPU_ACCESS_* of each other device's DMA engine, as
 *	SET_ACCESS granted it
 * @peers: mapped with NPU_MAP_PEERS: every peer device's engine whose
 *	context enabled this device reads and writes it, whatever
 *	@peer_access says
 * @resv: the reservation it lies in
 * @handle: the device memory mapped (holds a reference), or NULL; or an
 *	imported dma-buf (@handle->import), reached through host DMA
 *	addresses
 * @host: the host registration mapped, or NULL
 * @mirror: the mirror of the process's own range it is, or NULL
 * @import_node: in the import's list of mappings, for an imported
 *	dma-buf's handle
 */
struct npu_mapping {
	u64 start;
	u64 size;
	u32 access;
	u8 peer_access[NPU_MAX_DEVICES];
	bool peers;
	struct npu_reservation *resv;
	struct npu_handle *handle;
	struct npu_host_reg *host;
	struct npu_mirror *mirror;
	struct list_head import_node;
};

/**
 * struct npu_vm - the device VA space of a context, as its device's MMU
 *	and DMA engine see it (npu_vm.c alone touches its fields)
 * @lock: protects @dead, @reservations, @mappings, @host_regs, @pt and
 *	every mapping's state. Ioctls that change them hold it for writing;
 *	the DMA engine holds it shared while it moves a chunk, so unmap and
 *	unregister never race with an access in progress.
 * @dead: the context shut down: no device reaches this VA space any more
 * @reservations: device VA reservations, keyed by range
 * @mappings: device mappings, keyed by range
 * @host_regs: host registrations, keyed by user address range
 * @pt: device page tables
 * @device: index of the device this VA space belongs to
 * @mirror_lock: protects the mirrors' entries (npu_pt_set_run()), the DMA
 *	mappings they name, @mirror_seq, @mirror_pages, every mirror's
 *	@live (also under @lock to set), and an imported dma-buf's @valid
 *	as a move clears it (set under @lock). Taken
 *	for writing by a mirror's invalidation (inside memory reclaim: no
 *	allocation under it, and never @lock inside it) and by the fault
 *	path after @lock; for reading by the DMA engine around each access
 *	through a mirrored entry or an imported dma-buf's, so an
 *	invalidation waits for it.
 * @mirror_seq: bumped (release) by every mirror invalidation after it
 *	cleared entries: a translation read after an acquire of the old
 *	value is still good while it has not moved
 * @mirror_pages: faulted-in mirror entries, within max_mirror_pages
 * @mirror_cpu: a mirrored page was mapped through the aperture (set under
 *	the mirror hold, never cleared): from then on whatever clears mirror
 *	entries takes the aperture's PTEs of them out too (DOC: npu aperture)
 * @nr_mirrors: mirrors of the context (under @lock), within max_mirrors;
 *	every mirror's @dead is also under @lock
 * @nr_reservations: VA_RESERVE reservations, within max_reservations
 * @nr_mappings: mappings of every kind; MAP refuses past max_mappings
 * @nr_host_regs: host registrations
 * @cpu_inode: the inode every aperture file (npu_aperture.c) of the
 *	context shares, or NULL before the first APERTURE_OPEN; set once
 *	under @lock, before any file of it exists, and held (a reference)
 *	until the context is freed. Whatever removes or narrows a
 *	translation takes its pages out of the inode's mapping under @lock
 *	too (npu_vm_cpu_zap_locked()), and npu_vm_cpu_fault() maps pages
 *	into it under @lock, so no CPU mapping outlives its translation.
 *	A mirror's entries change under @mirror_lock alone too (an
 *	invalidation): the PTEs of a mirrored page are mapped under the
 *	mirror hold as well, and an invalidation takes them out after
 *	it released @mirror_lock, before it returns.
 * @node: in the list of every VA space (npu_vms), from init to release
 * @watchers: the watches (struct npu_vm_watch, @peer_node) of other
 *	contexts whose apertures show this VA space's pages to their
 *	device (peer memory); under @lock, and every zap of this space
 *	zaps their inodes too
 * @peer_lock: an accessor's side of peer memory through its aperture:
 *	protects @watched, @watched_devs and @peers_closed. Held for
 *	reading by a fault through a peer from its peer access check until
 *	the page is mapped, for writing by PEER_DISABLE and the context's
 *	shutdown, which then zap the aperture. Taken before a peer's @lock,
 *	never inside any @lock.
 * @watched: the watches of this context's aperture on peers' VA spaces,
 *	each holding its peer context
 * @watched_devs: devices looked for peer contexts of the process already
 * @peers_closed: shut down: no peer is watched any more
 *
 * The counts change under @lock and are read without it (fdinfo, netlink).
 */
struct npu_vm {
	struct rw_semaphore lock;	/* see above */
	bool dead;
	struct maple_tree reservations;
	struct maple_tree mappings;
	struct maple_tree host_regs;
	struct npu_pt pt;
	unsigned int device;
	struct rw_semaphore mirror_lock;	/* see above */
	u64 mirror_seq;
	unsigned long mirror_pages;
	bool mirror_cpu;
	unsigned int nr_mirrors;
	unsigned long nr_reservations;
	unsigned long nr_mappings;
	unsigned long nr_host_regs;
	struct inode *cpu_inode;
	struct list_head node;
	struct list_head watchers;
	struct rw_semaphore peer_lock;	/* see above */
	struct list_head watched;
	unsigned long watched_devs;
	bool peers_closed;
};

/**
 * struct npu_vm_xlate - the MMU's answer for one device access
 * @addr: device-physical address, or a host DMA address if @system
 * @left: bytes from @addr to the end of the leaf
 * @system: host memory: a MAPPED registration
 * @huge: device memory mapped by a 2 MiB or larger leaf, whose handle
 *	owns whole 2 MiB backing pages
 * @revocable: an IPC import's entry, good only while its exporter keeps
 *	the memory (checked at each translation)
 * @mirrored: through a faulted-in mirror entry: valid only while the VA
 *	space's @mirror_seq is still @seq (npu_vm_mirror_hold())
 * @seq: the VA space's @mirror_seq, read before the walk
 * @fault: on failure, the mirror whose page must be faulted in first (a
 *	reference, npu_mirror_put()), else NULL
 * @refault: on failure, the imported dma-buf's handle whose translations
 *	must be made good again first (its exporter moved it; a reference,
 *	npu_handle_put()), else NULL
 */
struct npu_vm_xlate {
	u64 addr;
	u64 left;
	bool system;
	bool huge;
	bool revocable;
	bool mirrored;
	u64 seq;
	struct npu_mirror *fault;
	struct npu_handle *refault;
};

/**
 * struct npu_mirror_run - physically contiguous pages of a mirror's fault,
 *	one DMA mapping (npu_vm_mirror_install())
 * @dma: its DMA address
 * @first: its first page, counted from the fault's first
 * @pages: its pages, 1..NPU_PT_RUN_MAX
 */
struct npu_mirror_run {
	dma_addr_t dma;
	u8 first;
	u8 pages;
};

int npu_vm_init(struct npu_vm *vm, unsigned int device);
void npu_vm_kill(struct npu_vm *vm);
bool npu_vm_dead(const struct npu_vm *vm);
void npu_vm_release(struct npu_vm *vm);
bool npu_vm_range_valid(u64 addr, u64 size, u64 align);

/* The engine */
void npu_vm_read_lock(struct npu_vm *vm, struct npu_vm *peer);
void npu_vm_read_unlock(struct npu_vm *vm, struct npu_vm *peer);
const char *npu_vm_translate_locked(struct npu_vm *vm, u64 va,
				    unsigned int device, unsigned long peers,
				    bool write, struct npu_vm_xlate *xl);
bool npu_vm_mirror_hold(struct npu_vm *vm, u64 seq);

/* The aperture: CPU accesses through the device's translation */
struct inode *npu_vm_cpu_inode(struct npu_vm *vm);
struct inode *npu_vm_cpu_attach(struct npu_vm *vm, struct inode *inode);
vm_fault_t npu_vm_cpu_fault(struct npu_vm *vm, struct npu_device *npu,
			    struct mem_cgroup *memcg, struct vm_fault *vmf,
			    bool mkwrite, struct npu_mirror **fault);
void npu_vm_mirror_unhold(struct npu_vm *vm);
void npu_vm_cpu_zap_all(void);
void npu_vm_peer_disabled(struct npu_vm *vm);
void npu_vm_peers_release(struct npu_vm *vm);

/* Host registrations */
bool npu_vm_host_overlaps(struct npu_vm *vm, u64 addr, u64 length);
int npu_vm_host_insert(struct npu_vm *vm, struct npu_host_reg *reg);
struct npu_host_reg *npu_vm_host_get(struct npu_vm *vm, u64 addr, u64 size);
struct npu_host_reg *npu_vm_host_remove(struct npu_vm *vm, u64 addr, bool any);

/* Mirrors */
int npu_vm_mirror_add(struct npu_vm *vm, struct npu_mirror *mirror,
		      unsigned int max);
struct npu_mirror *npu_vm_mirror_remove(struct npu_vm *vm, u64 addr,
					const struct npu_mirror *expect);
struct npu_mirror *npu_vm_mirror_first(struct npu_vm *vm);
bool npu_vm_mirror_invalidate(struct npu_vm *vm, struct npu_mirror *mirror,
			      u64 start, u64 end, bool blockable,
			      unsigned long cur_seq);
int npu_vm_mirror_fault_range(struct npu_vm *vm, struct npu_mirror *mirror,
			      u64 start, u64 *end, unsigned long limit);
int npu_vm_mirror_install(struct npu_vm *vm, struct npu_mirror *mirror, u64 va,
			  u64 end, bool write, const struct npu_mirror_run *runs,
			  unsigned int nr, unsigned long seq,
			  unsigned long limit, u64 *done);

/* Imported dma-bufs */
int npu_vm_import_update(struct npu_vm *vm, struct npu_import *imp);
void npu_vm_import_invalidate(struct npu_vm *vm, struct npu_import *imp);

/* IPC memory */
int npu_vm_walk_memory(struct npu_vm *vm,
		       int (*fn)(const struct npu_mapping *map, void *arg),
		       void *arg);
int npu_vm_with_memory(struct npu_vm *vm, u64 addr, u64 length,
		       int (*fn)(const struct npu_mapping *map, void *arg),
		       void *arg);

/* The ioctls */
int npu_va_reserve_ioctl(struct npu_context *ctx, void *arg);
int npu_va_release_ioctl(struct npu_context *ctx, void *arg);
int npu_map_ioctl(struct npu_context *ctx, void *arg);
int npu_unmap_ioctl(struct npu_context *ctx, void *arg);
int npu_set_access_ioctl(struct npu_context *ctx, void *arg);
int npu_get_access_ioctl(struct npu_context *ctx, void *arg);
int npu_addr_query_ioctl(struct npu_context *ctx, void *arg);

#endif /* __NPU_VM_H__ */
