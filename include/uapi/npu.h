/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * npu: accelerator memory driver, user API.
 *
 * The kernel-doc comments of this file are the reference for every
 * ioctl: its struct's fields, its errors, what each release added.
 * Documentation/uapi.rst pulls them in and adds the concepts.
 */
#ifndef _UAPI_NPU_H
#define _UAPI_NPU_H

#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * DOC: npu uapi conventions
 *
 * One open file of /dev/npuN is one context on device N. Every call on
 * it is an ioctl that takes a pointer to an argument struct. What all of
 * them have in common:
 *
 * - Numbers: every ioctl is _IO(NPU_TYPE, nr), NPU_TYPE 0xCE, nr one of
 *   enum npu_cmd_nr, from NPU_CMD_BASE (0x80) on; NPU_IOCTL_<NAME> is
 *   _IO(NPU_TYPE, NPU_CMD_<NAME>). The number has no direction and no
 *   size bits: the size travels in the struct. Any other number, or one
 *   of these with direction or size bits, is -ENOTTY. A new ioctl takes
 *   the next number; numbers are never reused.
 * - Size-prefixed structs: every argument struct starts with __u32 size,
 *   set by the caller to the struct's size as it knows it. The kernel
 *   accepts a size down to the first release's (the end of the last
 *   field the first release had; shorter is -EINVAL) and up to a page
 *   (4096 bytes; more is -E2BIG); bytes past the struct it knows must be
 *   zero (else -E2BIG), as copy_struct_from_user() checks. Fields a
 *   shorter struct lacks read as zero, and on success the kernel writes
 *   back as many bytes as both know.
 * - Extension rules: no ABI break, new fields or versions only. A struct
 *   grows only at its end, by fields whose zero means what the shorter
 *   struct meant; no field is removed, moved, resized or given another
 *   meaning, and a first release's size stays accepted for good
 *   (tests/uapi_layout_test.c freezes every size, offset and value).
 *   struct npu_cmd, an array element rather than an argument, grows the
 *   same way, its size given in SUBMIT's cmd_size. New behaviour comes
 *   as a new flag bit, field, command op or ioctl, with a new
 *   NPU_DRIVER_VERSION; what cannot be added so would be a new ioctl.
 * - Flags masks: every flags field, and STREAM_SET_MODE's mode, is
 *   checked against its mask, the bits of its enum (NPU_MAP_FLAGS_MASK,
 *   NPU_HOST_FLAGS_MASK, ...): an unknown bit is -EINVAL, never ignored,
 *   so an older module refuses what it cannot do. A value field (an
 *   access right, an op) outside its enum is -EINVAL as well. The
 *   enumerators are C enum (int) constants; the masks are __u32, as the
 *   fields they check. (C++20 deprecates OR-ing enumerators of two enums,
 *   such as NPU_CMD_SRC_HOST | NPU_WAIT_EQ: cast one to __u32 there.)
 * - Reserved fields: __reserved fields, and command fields an op does not
 *   use, must be zero (-EINVAL); a later release may give them a meaning.
 * - 64-bit fields and pointers: every 64-bit field is an __aligned_u64 at
 *   an offset that is a multiple of 8, and every struct's size is a
 *   multiple of 8 (and its alignment 8 where it has a 64-bit field).
 *   User pointers travel as such 64-bit integers (cast through
 *   uintptr_t). So a 32-bit process passes the very bytes a 64-bit one
 *   does, and the driver serves it through compat_ptr_ioctl() with no
 *   translation. The fields were plain __u64 before 1.5, at the same
 *   offsets (the sizes and offsets are the same on x86-64 and i386);
 *   __aligned_u64 keeps that true of fields yet to come, which i386,
 *   where a __u64 is 4-byte aligned, could otherwise place at 4 modulo 8.
 * - Outputs: on success every output field is written, whatever the
 *   caller left in it; on failure nothing is written back, except where
 *   an ioctl's errors say otherwise (STREAM_SYNC's -EIO, -EHWPOISON and
 *   -ETIME, since 1.6).
 * - One process per context: a context serves only the process that
 *   opened it (its mm). An ioctl from another process - a child after
 *   fork, a process the fd was passed to - is -EPERM, before anything is
 *   read.
 * - Carrier removal: once the device's PCI carrier is removed, every
 *   ioctl on a file already open is -ENODEV.
 * - Device reset: once an administrator has reset the device, every ioctl
 *   on a file that was open then is -ESTALE, which nothing else answers
 *   (since 1.7; DOC: npu device reset).
 * - Common errors: besides those above, -EFAULT for a struct, or a buffer
 *   it points to, that cannot be read or written back, and -ENOMEM where
 *   the kernel runs out of memory (what a context makes the kernel hold
 *   is charged to its memory cgroup). A call killed by a signal while it
 *   pins, backs or walks memory may end with -EINTR, which the dying
 *   process never sees. The checks come in this order: the number
 *   (-ENOTTY), the process (-EPERM), the size (-EFAULT, -EINVAL, -E2BIG),
 *   the carrier (-ENODEV), a reset (-ESTALE), then the ioctl's own,
 *   listed with its struct.
 * - All or nothing: a refused call leaves nothing behind, and nothing a
 *   user passes is WARN()ed on. A call that makes something and answers
 *   with its id, name or fd (MEM_ALLOC, STREAM_CREATE, SHARE_EXPORT,
 *   SHARE_IMPORT, IPC_EXPORT, IPC_IMPORT, DMABUF_EXPORT, DMABUF_IMPORT)
 *   publishes it only once the answer is written back: if that fails
 *   (-EFAULT) the thing never existed (since 1.5; DMABUF_EXPORT since 1.4,
 *   DMABUF_IMPORT since 1.7).
 * - Versions: GET_INFO reports the module's NPU_DRIVER_VERSION. A minor
 *   release adds ioctls, fields, flags and ops and changes nothing that
 *   exists; "since 1.x" below says which release added what. A program
 *   that uses something added in 1.x needs a module of 1.x or later, and
 *   libacl refuses a module of another major or of an older minor than
 *   the header it was built with.
 */

/**
 * DOC: npu streams and commands
 *
 * A stream (STREAM_CREATE) is an in-order queue of commands that the
 * device's DMA engine runs: copies, fills, writes and waits, each one
 * struct npu_cmd with an op of enum npu_cmd_op. SUBMIT appends 1 to
 * NPU_SUBMIT_MAX_CMDS commands, all of them or none, and answers the
 * sequence number (seqno) of the last; a stream's seqnos count from 1.
 *
 * What SUBMIT can check, it checks before anything is queued: the op,
 * its flags and fields, host operands (inside one registration, which
 * the command then holds until it completes), peer contexts, pageable
 * operands (pinned for the command). Device addresses are checked when
 * the command runs: an unmapped address or a missing right faults the
 * command. Bytes before the faulting page may have been written, nothing
 * after it is.
 *
 * STREAM_SYNC waits until a seqno completed and reports the first error
 * of the stream up to it that it has not reported yet, once: -EIO a
 * fault, -EHWPOISON a fault on a device page with an uncorrectable
 * memory error (since 1.6), -ETIME a WAIT_STREAM past its limit (since
 * 1.3), -ECANCELED a command dropped unrun (a FORCE destroy, the
 * carrier's removal, or after a fault in NPU_STREAM_STOP_ON_FAULT mode).
 * With -EIO, -EHWPOISON and -ETIME it also says which command it was,
 * the thread that submitted it and, for a fault, the address and the
 * access (since 1.6). A stream runs on
 * after a fault, unless it is in NPU_STREAM_STOP_ON_FAULT mode (since
 * 1.3). When STREAM_SYNC reports a command done, what it held - pins,
 * registrations, its room in the queue - is let go already (since 1.5).
 *
 * A context's streams run side by side; NPU_OP_WAIT_STREAM orders one
 * after a seqno of another, NPU_OP_WAIT_VALUE after a value in memory.
 * The engine gives streams bounded turns, fairly between users and then
 * between a user's streams, so a command waits for at most a turn per
 * engine channel, whatever other users queue (since 1.5). A context has
 * at most max_queued commands not yet complete: SUBMIT waits for room as
 * for a full ring. With NPU_SUBMIT_WAIT (since 1.5) SUBMIT also waits for
 * its commands, on an idle stream running them in the caller's own
 * context.
 */

/**
 * DOC: npu pageable operands
 *
 * With NPU_CMD_DST_USER or NPU_CMD_SRC_USER (since 1.4) a command's
 * destination or source is any memory of the calling process at that
 * user address, registered or not: anonymous, a file's mapping (shared
 * or private), shared anonymous, and read-only mappings as a source.
 * DST_USER is allowed for NPU_OP_COPY, NPU_OP_COPY_2D, NPU_OP_MEMSET,
 * NPU_OP_FILL32, NPU_OP_WRITE_VALUE and NPU_OP_TIMESTAMP, SRC_USER for
 * NPU_OP_COPY, NPU_OP_COPY_2D and NPU_OP_WAIT_VALUE, each instead of the
 * _HOST or _PEER flag of the same operand. The operand needs no
 * alignment beyond the op's own; a COPY_2D operand is pinned over its
 * whole span, the gaps between rows included (they must be mapped too).
 *
 * SUBMIT pins the pages an operand touches as HOST_REGISTER pins a
 * registration: pin_user_pages_fast() with FOLL_LONGTERM, FOLL_WRITE for
 * a destination, charged to the user's RLIMIT_MEMLOCK (unless
 * CAP_IPC_LOCK), shown in VmPin and in the context's pinned bytes
 * (fdinfo, netlink), then DMA-maps them for the device (since 1.5; in
 * 1.4 the pins were short-term and uncharged). The command holds them
 * until it completes, faults or is dropped (FORCE destroy,
 * stop-on-fault, close, exit, carrier removal); then they are unmapped,
 * marked dirty if written, unpinned and uncharged, before STREAM_SYNC
 * reports the command done. The pages a context's queued commands hold
 * so are bounded by the max_user_pin module parameter (bytes, whole pages
 * counted): a SUBMIT whose operands need more than is free waits as for
 * max_queued, one that needs more than the cap by itself is -ENOMEM. A
 * SUBMIT pins only once it has room, so a waiting one holds no pins; one
 * that fails part-way unpins what it pinned and queues nothing.
 *
 * The pins make the command's data the pages', whatever the process does
 * meanwhile: a range another thread unmaps stays pinned and the command
 * completes from or into the old pages. A destination is pinned for
 * write: a private page fork left shared gets the process its own copy
 * first, as a CPU write would. A source in a writable private mapping is
 * the process's own copy too (COW is broken first), never the zero page
 * or a page-cache page that the process's next write leaves behind, so
 * a WAIT_VALUE on pageable memory sees the CPU's later write. A writable
 * pin of a shared mapping of a file that is written back (ext4, xfs;
 * shmem and hugetlbfs are fine) is refused with -EFAULT, as for
 * HOST_REGISTER.
 */

/**
 * DOC: npu sharing
 *
 * Device memory leaves a context in three ways, each with its own name.
 *
 * - A physical handle's name (SHARE_EXPORT): a random 64-bit value that
 *   another process on the same device turns into a handle of its own
 *   with SHARE_IMPORT. A handle has at most one name; it dies when the
 *   exporter frees the handle or closes.
 * - An IPC key (IPC_EXPORT, since 1.4): names a page-aligned range of a
 *   mapping of memory the context allocated; IPC_IMPORT gets a handle to
 *   that range. A range may have any number of keys; a key dies at
 *   IPC_DESTROY, when the exporter unmaps the mapping, or closes, and
 *   then its importers lose the range: every later device access through
 *   their mappings of it faults (since 1.6).
 * - A dma-buf (DMABUF_EXPORT, since 1.4): a file descriptor of the
 *   handle's memory, for other devices' drivers and for mmap().
 *
 * Memory also comes the other way: DMABUF_IMPORT (since 1.7) makes a
 * dma-buf of another driver, or one of npu's own, a handle of the context
 * (DOC: npu dma-buf import).
 *
 * Names and keys are in one table but do not mix: a key is unknown to
 * the SHARE calls and a name to the IPC calls (-ENOENT). Either is
 * imported by a process that SHARE_SET_PIDS or IPC_SET_PIDS listed, or
 * by any process when it was exported with NPU_SHARE_ANY_PID, provided
 * its effective uid is the exporter's at export (any uid when the
 * exporter had CAP_SYS_ADMIN then); never by the exporting process
 * itself (-EINVAL). A name that does not exist and one this process may
 * not import answer the same -ENOENT, so names cannot be probed. The
 * lists hold processes, not numbers: a listed process that exits can no
 * longer import, and a process that gets its number later is not on the
 * list. What was imported keeps the memory alive, whatever the exporter
 * does: it is freed when the last handle, mapping and dma-buf of it in
 * any process are gone.
 */

/**
 * NPU_DRIVER_VERSION - version of the driver this header describes
 *
 * major << 16 | minor << 8 | patch: 1.13.0. GET_INFO reports the running
 * module's.
 */
#define NPU_DRIVER_VERSION	0x00010d00	/* 1.13.0: major << 16 | minor << 8 | patch */

/**
 * NPU_TYPE - the ioctl type (magic) of every npu ioctl
 */
#define NPU_TYPE		0xCE

/**
 * NPU_CMD_BASE - the ioctl nr of the first npu ioctl (GET_INFO)
 */
#define NPU_CMD_BASE		0x80

/**
 * enum npu_cmd_nr - ioctl numbers: the nr of each NPU_IOCTL_*
 * @NPU_CMD_GET_INFO: NPU_IOCTL_GET_INFO, struct npu_get_info
 * @NPU_CMD_MEM_ALLOC: NPU_IOCTL_MEM_ALLOC, struct npu_mem_alloc
 * @NPU_CMD_MEM_FREE: NPU_IOCTL_MEM_FREE, struct npu_mem_free
 * @NPU_CMD_VA_RESERVE: NPU_IOCTL_VA_RESERVE, struct npu_va_range
 * @NPU_CMD_VA_RELEASE: NPU_IOCTL_VA_RELEASE, struct npu_va_range
 * @NPU_CMD_MAP: NPU_IOCTL_MAP, struct npu_map
 * @NPU_CMD_UNMAP: NPU_IOCTL_UNMAP, struct npu_unmap
 * @NPU_CMD_SET_ACCESS: NPU_IOCTL_SET_ACCESS, struct npu_access
 * @NPU_CMD_GET_ACCESS: NPU_IOCTL_GET_ACCESS, struct npu_access
 * @NPU_CMD_HOST_REGISTER: NPU_IOCTL_HOST_REGISTER, struct npu_host_register
 * @NPU_CMD_HOST_UNREGISTER: NPU_IOCTL_HOST_UNREGISTER,
 *	struct npu_host_unregister
 * @NPU_CMD_ADDR_QUERY: NPU_IOCTL_ADDR_QUERY, struct npu_addr_query
 * @NPU_CMD_STREAM_CREATE: NPU_IOCTL_STREAM_CREATE, struct npu_stream_create
 * @NPU_CMD_STREAM_DESTROY: NPU_IOCTL_STREAM_DESTROY,
 *	struct npu_stream_destroy
 * @NPU_CMD_SUBMIT: NPU_IOCTL_SUBMIT, struct npu_submit
 * @NPU_CMD_STREAM_SYNC: NPU_IOCTL_STREAM_SYNC, struct npu_stream_sync
 * @NPU_CMD_SHARE_EXPORT: NPU_IOCTL_SHARE_EXPORT, struct npu_share_export
 * @NPU_CMD_SHARE_SET_PIDS: NPU_IOCTL_SHARE_SET_PIDS, struct npu_share_pids
 * @NPU_CMD_SHARE_IMPORT: NPU_IOCTL_SHARE_IMPORT, struct npu_share_import
 * @NPU_CMD_PEER_ENABLE: NPU_IOCTL_PEER_ENABLE, struct npu_peer_enable
 * @NPU_CMD_STREAM_SET_MODE: NPU_IOCTL_STREAM_SET_MODE,
 *	struct npu_stream_mode (since 1.3)
 * @NPU_CMD_PEER_DISABLE: NPU_IOCTL_PEER_DISABLE, struct npu_peer_enable
 *	(since 1.3)
 * @NPU_CMD_IPC_EXPORT: NPU_IOCTL_IPC_EXPORT, struct npu_ipc_export
 *	(since 1.4)
 * @NPU_CMD_IPC_SET_PIDS: NPU_IOCTL_IPC_SET_PIDS, struct npu_share_pids
 *	(since 1.4)
 * @NPU_CMD_IPC_IMPORT: NPU_IOCTL_IPC_IMPORT, struct npu_share_import
 *	(since 1.4)
 * @NPU_CMD_IPC_DESTROY: NPU_IOCTL_IPC_DESTROY, struct npu_ipc_destroy
 *	(since 1.4)
 * @NPU_CMD_DMABUF_EXPORT: NPU_IOCTL_DMABUF_EXPORT,
 *	struct npu_dmabuf_export (since 1.4)
 * @NPU_CMD_MIRROR_MAP: NPU_IOCTL_MIRROR_MAP, struct npu_mirror_map
 *	(since 1.4)
 * @NPU_CMD_MIRROR_UNMAP: NPU_IOCTL_MIRROR_UNMAP, struct npu_mirror_unmap
 *	(since 1.4)
 * @NPU_CMD_MEM_UCE_QUERY: NPU_IOCTL_MEM_UCE_QUERY, struct npu_mem_uce_query
 *	(since 1.6)
 * @NPU_CMD_MEM_REPAIR: NPU_IOCTL_MEM_REPAIR, struct npu_mem_repair
 *	(since 1.6)
 * @NPU_CMD_DMABUF_IMPORT: NPU_IOCTL_DMABUF_IMPORT, struct npu_dmabuf_import
 *	(since 1.7)
 * @NPU_CMD_MODEL_CREATE: NPU_IOCTL_MODEL_CREATE, struct npu_model_create
 *	(since 1.10)
 * @NPU_CMD_MODEL_DESTROY: NPU_IOCTL_MODEL_DESTROY,
 *	struct npu_model_destroy (since 1.10)
 * @NPU_CMD_APERTURE_OPEN: NPU_IOCTL_APERTURE_OPEN,
 *	struct npu_aperture_open (since 1.11)
 * @NPU_CMD_APERTURE_KERNEL_WAIT: NPU_IOCTL_APERTURE_KERNEL_WAIT,
 *	struct npu_kernel_wait, on an aperture fd only (since 1.12)
 * @NPU_CMD_APERTURE_KERNEL_DONE: NPU_IOCTL_APERTURE_KERNEL_DONE,
 *	struct npu_kernel_done, on an aperture fd only (since 1.12)
 *
 * Numbers are assigned in this order, without gaps, and never reused. The
 * ioctls without a number before 1.3 and 1.4 answer -ENOTTY on modules
 * of those releases.
 */
enum npu_cmd_nr {
	NPU_CMD_GET_INFO = NPU_CMD_BASE,
	NPU_CMD_MEM_ALLOC,
	NPU_CMD_MEM_FREE,
	NPU_CMD_VA_RESERVE,
	NPU_CMD_VA_RELEASE,
	NPU_CMD_MAP,
	NPU_CMD_UNMAP,
	NPU_CMD_SET_ACCESS,
	NPU_CMD_GET_ACCESS,
	NPU_CMD_HOST_REGISTER,
	NPU_CMD_HOST_UNREGISTER,
	NPU_CMD_ADDR_QUERY,
	NPU_CMD_STREAM_CREATE,
	NPU_CMD_STREAM_DESTROY,
	NPU_CMD_SUBMIT,
	NPU_CMD_STREAM_SYNC,
	NPU_CMD_SHARE_EXPORT,
	NPU_CMD_SHARE_SET_PIDS,
	NPU_CMD_SHARE_IMPORT,
	NPU_CMD_PEER_ENABLE,
	NPU_CMD_STREAM_SET_MODE,	/* since 1.3 */
	NPU_CMD_PEER_DISABLE,		/* since 1.3 */
	NPU_CMD_IPC_EXPORT,		/* since 1.4 */
	NPU_CMD_IPC_SET_PIDS,		/* since 1.4 */
	NPU_CMD_IPC_IMPORT,		/* since 1.4 */
	NPU_CMD_IPC_DESTROY,		/* since 1.4 */
	NPU_CMD_DMABUF_EXPORT,		/* since 1.4 */
	NPU_CMD_MIRROR_MAP,		/* since 1.4 */
	NPU_CMD_MIRROR_UNMAP,		/* since 1.4 */
	NPU_CMD_MEM_UCE_QUERY,		/* since 1.6 */
	NPU_CMD_MEM_REPAIR,		/* since 1.6 */
	NPU_CMD_DMABUF_IMPORT,		/* since 1.7 */
	NPU_CMD_MODEL_CREATE,		/* since 1.10 */
	NPU_CMD_MODEL_DESTROY,		/* since 1.10 */
	NPU_CMD_APERTURE_OPEN,		/* since 1.11 */
	NPU_CMD_APERTURE_KERNEL_WAIT,	/* since 1.12, aperture fd */
	NPU_CMD_APERTURE_KERNEL_DONE,	/* since 1.12, aperture fd */
};

/**
 * enum npu_cap - device capabilities, GET_INFO's caps bits
 * @NPU_CAP_IOMMU: host DMA is translated by an IOMMU domain
 * @NPU_CAP_PCI_CARRIER: the simulated NPU sits on a PCI function, whose
 *	address GET_INFO reports (since 1.3); without it, a platform device
 */
enum npu_cap {
	NPU_CAP_IOMMU		= 1U << 0,
	NPU_CAP_PCI_CARRIER	= 1U << 1,
};

/*
 * Page sizes the device MMU and the allocator support: 64-bit values, as
 * the __u64 fields that carry them (GET_INFO's page_sizes is their OR).
 */

/**
 * NPU_PAGE_4K - 4 KiB pages, the granule of every host and VA alignment
 */
#define NPU_PAGE_4K		(1ULL << 12)

/**
 * NPU_PAGE_2M - 2 MiB pages
 */
#define NPU_PAGE_2M		(1ULL << 21)

/**
 * NPU_PAGE_1G - 1 GiB pages
 */
#define NPU_PAGE_1G		(1ULL << 30)

/**
 * NPU_SOC_NAME_LEN - bytes of GET_INFO's soc_name, its NUL included
 */
#define NPU_SOC_NAME_LEN	32

/**
 * struct npu_get_info - NPU_IOCTL_GET_INFO: describe the device behind
 *	this file
 * @size: sizeof(struct npu_get_info); a caller's shorter struct (down to
 *        @va_end, the first release's; 1.0's and 1.1's work) gets only
 *        the fields it holds
 * @flags: must be 0
 * @device_index: N of /dev/npuN
 * @driver_version: NPU_DRIVER_VERSION of the running module
 * @caps: NPU_CAP_* bits (enum npu_cap)
 * @__reserved: must be 0
 * @mem_total: device memory in bytes
 * @mem_used: device memory allocated by all contexts, in bytes
 * @page_sizes: bitmap of supported page sizes (NPU_PAGE_*)
 * @va_start: lowest device virtual address a context may reserve
 * @va_end: one past the highest device virtual address
 * @tgid: the caller's process id in its own pid namespace (getpid()), as
 *        SHARE_SET_PIDS expects it (since driver 1.1; before 1.2.1 the
 *        initial namespace's)
 * @num_devices: NPUs this driver has (since driver 1.1)
 * @pci_domain: PCI domain of the carrier function (since 1.3); 0, as are
 *              @pci_bus and @pci_devfn, when @caps lacks
 *              NPU_CAP_PCI_CARRIER (a platform device)
 * @pci_bus: PCI bus number of the carrier, 0..255 (since 1.3)
 * @pci_devfn: PCI device and function of the carrier, (device << 3) |
 *             function, as Linux's devfn (since 1.3)
 * @cube_cores: cube (AI) cores the device models, the cube_cores module
 *              parameter (since 1.3); nothing runs on them, programs size
 *              their work by them
 * @vector_cores: vector cores it models, the vector_cores module parameter
 *                (since 1.3)
 * @uuid: 16 random bytes (an RFC 4122 version 4 UUID) made when the device
 *        was created, at module load: stable while the module stays
 *        loaded, different for every device (since 1.3)
 * @soc_name: NUL-terminated name of the chip model, the soc_name module
 *            parameter, the rest zero (since 1.3)
 * @mem_peak: the highest @mem_used since the device was created (since
 *            1.3)
 * @clock_ns: the device clock now: nanoseconds since the device was
 *            created (CLOCK_MONOTONIC, as NPU_OP_TIMESTAMP writes it)
 *            (since 1.3)
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: @flags or @__reserved not 0.
 */
struct npu_get_info {
	__u32 size;
	__u32 flags;
	__u32 device_index;
	__u32 driver_version;
	__u32 caps;
	__u32 __reserved;
	__aligned_u64 mem_total;
	__aligned_u64 mem_used;
	__aligned_u64 page_sizes;
	__aligned_u64 va_start;
	__aligned_u64 va_end;
	__u32 tgid;
	__u32 num_devices;
	__u32 pci_domain;
	__u16 pci_bus;
	__u16 pci_devfn;
	__u32 cube_cores;
	__u32 vector_cores;
	__u8 uuid[16];
	char soc_name[NPU_SOC_NAME_LEN];
	__aligned_u64 mem_peak;
	__aligned_u64 clock_ns;
};

#define NPU_IOCTL_GET_INFO	_IO(NPU_TYPE, NPU_CMD_GET_INFO)

/**
 * struct npu_mem_alloc - NPU_IOCTL_MEM_ALLOC: allocate a physical handle
 *	in device memory
 * @size: sizeof(struct npu_mem_alloc)
 * @flags: must be 0
 * @length: bytes, a non-zero multiple of @page_size
 * @page_size: NPU_PAGE_4K, NPU_PAGE_2M or NPU_PAGE_1G: the granule the
 *             memory is allocated and mapped in
 * @handle: out, non-zero, valid in this context only; ids are allocated
 *          cyclically, so a freed handle's id is not the next one's (since
 *          1.5)
 * @__reserved: must be 0
 *
 * Device memory is backed by host pages on its first write, charged to
 * the context's memory cgroup; the bytes allocated count against the
 * ctx_mem_limit module parameter until the memory itself is freed, and
 * (since 1.5) in the process's RssShmem while the context is open.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: @flags or @__reserved not 0, @page_size not one of
 *   NPU_PAGE_*, @length 0 or not a multiple of @page_size.
 * * %-ENOMEM: more than the device's memory, no free device memory in
 *   @page_size blocks, the context's ctx_mem_limit reached, or out of
 *   kernel memory.
 * * %-ENOSPC: the context has max_handles handles, imports included.
 */
struct npu_mem_alloc {
	__u32 size;
	__u32 flags;
	__aligned_u64 length;
	__aligned_u64 page_size;
	__u32 handle;
	__u32 __reserved;
};

#define NPU_IOCTL_MEM_ALLOC	_IO(NPU_TYPE, NPU_CMD_MEM_ALLOC)

/**
 * struct npu_mem_free - NPU_IOCTL_MEM_FREE: drop this context's reference
 *	to a handle
 * @size: sizeof(struct npu_mem_free)
 * @handle: from MEM_ALLOC, SHARE_IMPORT, IPC_IMPORT or DMABUF_IMPORT
 *
 * The memory itself is freed when its last mapping, importer and dma-buf
 * are gone. Freeing a handle revokes its SHARE_EXPORT name.
 *
 * Errors (beyond the common ones):
 *
 * * %-ENOENT: unknown handle.
 */
struct npu_mem_free {
	__u32 size;
	__u32 handle;
};

#define NPU_IOCTL_MEM_FREE	_IO(NPU_TYPE, NPU_CMD_MEM_FREE)

/**
 * struct npu_va_range - NPU_IOCTL_VA_RESERVE, NPU_IOCTL_VA_RELEASE: a
 *	device virtual address range
 * @size: sizeof(struct npu_va_range)
 * @flags: must be 0
 * @addr: start, 4 KiB aligned, inside [va_start, va_end) of GET_INFO
 * @length: bytes, a non-zero multiple of 4 KiB (ignored by VA_RELEASE,
 *          which takes the range that starts at @addr)
 *
 * VA_RESERVE reserves the range for MAP; VA_RELEASE gives a reservation
 * without mappings back.
 *
 * VA_RESERVE errors (beyond the common ones):
 *
 * * %-EINVAL: @flags not 0; @addr or @length not 4 KiB aligned, @length
 *   0, or the range wraps or leaves the window.
 * * %-EADDRINUSE: the range overlaps a reservation, a mirror or the device
 *   VA of an NPU_HOST_MAPPED registration.
 * * %-ENOSPC: the context has max_reservations reservations (since 1.5).
 *
 * VA_RELEASE errors (beyond the common ones):
 *
 * * %-EINVAL: @flags not 0.
 * * %-ENOENT: no reservation starts at @addr.
 * * %-EBUSY: it still has mappings, or it is a mirror's or an
 *   NPU_HOST_MAPPED registration's (MIRROR_UNMAP and HOST_UNREGISTER
 *   release those).
 */
struct npu_va_range {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
};

#define NPU_IOCTL_VA_RESERVE	_IO(NPU_TYPE, NPU_CMD_VA_RESERVE)
#define NPU_IOCTL_VA_RELEASE	_IO(NPU_TYPE, NPU_CMD_VA_RELEASE)

/**
 * enum npu_map_flags - MAP's flags
 * @NPU_MAP_PEERS: read-write for every context on another device that
 *	PEER_ENABLE'd this one, with no SET_ACCESS grant (since 1.3)
 */
enum npu_map_flags {
	NPU_MAP_PEERS		= 1U << 0,
};

#define NPU_MAP_FLAGS_MASK	((__u32)NPU_MAP_PEERS)

/**
 * struct npu_map - NPU_IOCTL_MAP: map a whole physical handle at a
 *	reserved address
 * @size: sizeof(struct npu_map)
 * @flags: 0 or NPU_MAP_PEERS (since 1.3)
 * @addr: device VA inside one reservation, aligned to the handle's page size
 * @length: must equal the handle's length
 * @offset: must be 0
 * @handle: from MEM_ALLOC, SHARE_IMPORT, IPC_IMPORT or DMABUF_IMPORT
 * @__reserved: must be 0
 *
 * The mapping starts with no access (NPU_ACCESS_NONE): SET_ACCESS grants it.
 * A peer device's DMA engine reaches it only where SET_ACCESS granted
 * that device, or, with NPU_MAP_PEERS, read-write from every context on
 * another device that PEER_ENABLE'd this one (no grant needed; GET_ACCESS
 * answers NPU_ACCESS_READWRITE for every peer device, and a peer
 * SET_ACCESS changes nothing); either way only while that context's peer
 * access is enabled.
 * A handle may be mapped at several addresses; each mapping keeps it alive.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: unknown @flags; @offset or @__reserved not 0; @length not
 *   the handle's; @addr not aligned to the handle's page size, or the
 *   range leaves the window; NPU_MAP_PEERS for a DMABUF_IMPORT handle that
 *   is not this device's memory (since 1.7).
 * * %-ENOENT: unknown handle; no reservation holds the whole range, or
 *   the one at @addr is a mirror's or an NPU_HOST_MAPPED registration's.
 * * %-EADDRINUSE: the range overlaps a mapping.
 * * %-ENOSPC: the context has max_mappings mappings of any kind (device
 *   memory, NPU_HOST_MAPPED registrations, mirrors) (since 1.5).
 * * %-EINTR: a DMABUF_IMPORT handle whose buffer its exporter holds or
 *   moves, and a signal came (as for DMABUF_IMPORT; since 1.7).
 * * What a DMABUF_IMPORT handle's exporter answers when its buffer is
 *   mapped again after a move (since 1.7).
 */
struct npu_map {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
	__aligned_u64 offset;
	__u32 handle;
	__u32 __reserved;
};

#define NPU_IOCTL_MAP		_IO(NPU_TYPE, NPU_CMD_MAP)

/**
 * struct npu_unmap - NPU_IOCTL_UNMAP: remove the mapping that starts at
 *	@addr
 * @size: sizeof(struct npu_unmap)
 * @flags: must be 0
 * @addr: start of a mapping made with MAP
 *
 * Commands that reach the range afterwards fault. The IPC keys named in
 * the mapping (IPC_EXPORT) die with it.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: @flags not 0.
 * * %-ENOENT: no mapping made with MAP starts at @addr (a registration's
 *   device VA goes with HOST_UNREGISTER, a mirror with MIRROR_UNMAP).
 */
struct npu_unmap {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
};

#define NPU_IOCTL_UNMAP		_IO(NPU_TYPE, NPU_CMD_UNMAP)

/**
 * enum npu_access_rights - a device's access rights to a mapping; the
 *	values are aclrtMemAccessFlags'
 * @NPU_ACCESS_NONE: no access
 * @NPU_ACCESS_READ: read only
 * @NPU_ACCESS_READWRITE: read and write
 */
enum npu_access_rights {
	NPU_ACCESS_NONE		= 0x0,
	NPU_ACCESS_READ		= 0x1,
	NPU_ACCESS_READWRITE	= 0x3,
};

/**
 * struct npu_access - NPU_IOCTL_SET_ACCESS, NPU_IOCTL_GET_ACCESS: set or
 *	read a device's access to mapped memory
 * @size: sizeof(struct npu_access)
 * @flags: must be 0
 * @addr: SET_ACCESS: start, 4 KiB aligned; GET_ACCESS: any byte of a
 *        mapping
 * @length: SET_ACCESS: non-zero multiple of 4 KiB; every byte must be
 *          mapped, and the range must cover whole mappings; GET_ACCESS: 0
 * @device: the device the rights are for: this file's device, or a peer
 *          device whose DMA engine may then reach the memory
 * @access: NPU_ACCESS_* (enum npu_access_rights): in for SET_ACCESS, out
 *          for GET_ACCESS
 *
 * SET_ACCESS checks the whole range before it changes any of it. Host
 * memory (an NPU_HOST_MAPPED registration) and an imported dma-buf that
 * is not this device's memory take rights for their own device only, a
 * mirror none: its rights are the process's.
 *
 * SET_ACCESS errors (beyond the common ones):
 *
 * * %-EINVAL: @flags not 0; @access not one of enum npu_access_rights;
 *   @addr or @length not 4 KiB aligned, @length 0, or the range wraps or
 *   leaves the window; a mapping that sticks out of the range; a peer
 *   @device for host memory or an imported dma-buf that is not device
 *   memory (since 1.7); a mirror.
 * * %-ENODEV: no device @device.
 * * %-ENOENT: some of the range is not mapped.
 * * %-EACCES: NPU_ACCESS_READWRITE on a read-only registration, or on a
 *   handle imported with NPU_DMABUF_IMPORT_READONLY (since 1.7).
 *
 * GET_ACCESS errors (beyond the common ones):
 *
 * * %-EINVAL: @flags or @length not 0.
 * * %-ENODEV: no device @device.
 * * %-ENOENT: @addr is not mapped.
 */
struct npu_access {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
	__u32 device;
	__u32 access;
};

#define NPU_IOCTL_SET_ACCESS	_IO(NPU_TYPE, NPU_CMD_SET_ACCESS)
#define NPU_IOCTL_GET_ACCESS	_IO(NPU_TYPE, NPU_CMD_GET_ACCESS)

/**
 * enum npu_host_flags - HOST_REGISTER's flags
 * @NPU_HOST_READONLY: pin without write; device writes fault
 * @NPU_HOST_MAPPED: also map the registration at @dev_addr for the device
 */
enum npu_host_flags {
	NPU_HOST_READONLY	= 1U << 0,
	NPU_HOST_MAPPED		= 1U << 1,
};

#define NPU_HOST_FLAGS_MASK	((__u32)(NPU_HOST_READONLY | NPU_HOST_MAPPED))

/**
 * NPU_HOST_MAX_LENGTH - the longest registration: 1 TiB (2^28 pages)
 *
 * Also the longest pageable operand of a command.
 */
#define NPU_HOST_MAX_LENGTH	(1ULL << 40)

/**
 * struct npu_host_register - NPU_IOCTL_HOST_REGISTER: pin user memory and
 *	map it for device DMA
 * @size: sizeof(struct npu_host_register)
 * @flags: NPU_HOST_* bits (enum npu_host_flags)
 * @addr: user address, 4 KiB aligned
 * @length: bytes, non-zero multiple of 4 KiB, no wrap, inside the user
 *          address space, at most NPU_HOST_MAX_LENGTH
 * @dev_addr: with NPU_HOST_MAPPED: the device VA to map it at (4 KiB
 *            aligned, inside the window, may equal @addr); else must be 0
 *
 * Pages are pinned FOLL_LONGTERM and charged to the calling user's
 * RLIMIT_MEMLOCK (locked_vm, as io_uring and iommufd do; they also show in
 * the process's VmPin) unless the caller has CAP_IPC_LOCK, then DMA-mapped
 * for the device (through its IOMMU domain when it has one). They are
 * released when the process's address space goes, even if the file stays
 * open. A READONLY registration of a writable private mapping pins the
 * process's own copy of each page (COW is broken first), so it sees the
 * process's later writes. The same pages may be registered in several
 * contexts and on several NPUs. A MAPPED registration's device VA is a
 * mapping with a reservation of its own, readable and (unless READONLY)
 * writable by this device.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: unknown @flags; @addr or @length not 4 KiB aligned, @length
 *   0 or over NPU_HOST_MAX_LENGTH, or the range wraps or leaves the user
 *   address space; with NPU_HOST_MAPPED a @dev_addr range that is not
 *   aligned or leaves the window, without it a @dev_addr not 0.
 * * %-EOPNOTSUPP: the device would reach the pages only through bounce
 *   buffers (swiotlb) or its DMA is not cache coherent: registered pages
 *   are shared with no syncs, so it must reach the pages themselves.
 * * %-EEXIST: the range overlaps a registration of this context.
 * * %-EADDRINUSE: @dev_addr's range overlaps a reservation, mapping or
 *   mirror.
 * * %-ENOMEM: over RLIMIT_MEMLOCK, or out of memory.
 * * %-EFAULT: some of the range is not mapped, not writable for a
 *   writable registration, or not reachable by GUP (VM_IO, VM_PFNMAP); a
 *   writable registration of a shared mapping of a file that is written
 *   back (ext4, xfs; shmem and hugetlbfs are fine; Linux 6.2+ GUP refuses
 *   it, and npu does on older kernels too).
 * * Others as pin_user_pages() and the DMA mapping answer them.
 */
struct npu_host_register {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
	__aligned_u64 dev_addr;
};

#define NPU_IOCTL_HOST_REGISTER	_IO(NPU_TYPE, NPU_CMD_HOST_REGISTER)

/**
 * struct npu_host_unregister - NPU_IOCTL_HOST_UNREGISTER: unpin a
 *	registration
 * @size: sizeof(struct npu_host_unregister)
 * @flags: must be 0
 * @addr: the @addr it was registered with
 *
 * Waits for the commands that name the registration as a host operand
 * (NPU_CMD_SRC_HOST/NPU_CMD_DST_HOST): when it returns, they are complete
 * (a STREAM_SYNC that polls sees them so). A model's run holds the
 * registration only while one of its commands uses it (DOC: npu models):
 * the wait ends with that command, the run may go on, and a later command
 * of it that names the registration faults. A command that reaches it
 * through its device VA faults once the mapping is gone, as after UNMAP.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: @flags not 0.
 * * %-ENXIO: no registration starts at @addr.
 */
struct npu_host_unregister {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
};

#define NPU_IOCTL_HOST_UNREGISTER _IO(NPU_TYPE, NPU_CMD_HOST_UNREGISTER)

/**
 * enum npu_addr_kind - what ADDR_QUERY found at an address
 * @NPU_ADDR_NONE: neither device VA nor registered
 * @NPU_ADDR_DEVICE: inside a device VA reservation (a MAPPED
 *	registration's device VA included)
 * @NPU_ADDR_HOST: inside a host registration (a user address)
 * @NPU_ADDR_MIRROR: inside a mirror: device VA == host VA (since 1.4)
 */
enum npu_addr_kind {
	NPU_ADDR_NONE		= 0,
	NPU_ADDR_DEVICE		= 1,
	NPU_ADDR_HOST		= 2,
	NPU_ADDR_MIRROR		= 3,
};

/**
 * struct npu_addr_query - NPU_IOCTL_ADDR_QUERY: what is at an address
 * @size: sizeof(struct npu_addr_query)
 * @flags: must be 0
 * @addr: in, any address
 * @kind: out, NPU_ADDR_* (enum npu_addr_kind)
 * @access: out, NPU_ACCESS_* of this device to the byte at @addr
 * @base: out, start of the reservation, registration or mirror
 * @length: out, its length
 * @dev_addr: out, for NPU_ADDR_HOST with NPU_HOST_MAPPED: device VA of
 *            @addr; for NPU_ADDR_MIRROR @addr; else 0
 * @page_size: out, the page size of the mapping, registration or mirror
 *             holding @addr (4 KiB for host memory and mirrors); 0 if
 *             none
 * @mapped: out, 1 if @addr is mapped for the device
 * @host_flags: out, NPU_HOST_* of a registration
 *
 * A registration is looked up first (by user address), then device VA.
 * Inside a mirror: @base and @length the mirror's, @mapped 1, @access
 * NPU_ACCESS_READWRITE.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: @flags not 0.
 *
 * An unknown address is no error: it answers NPU_ADDR_NONE.
 */
struct npu_addr_query {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__u32 kind;
	__u32 access;
	__aligned_u64 base;
	__aligned_u64 length;
	__aligned_u64 dev_addr;
	__aligned_u64 page_size;
	__u32 mapped;
	__u32 host_flags;
};

#define NPU_IOCTL_ADDR_QUERY	_IO(NPU_TYPE, NPU_CMD_ADDR_QUERY)

/**
 * struct npu_stream_create - NPU_IOCTL_STREAM_CREATE: create a command
 *	queue (DOC: npu streams and commands)
 * @size: sizeof(struct npu_stream_create)
 * @flags: must be 0
 * @stream: out, non-zero stream id, allocated cyclically (a destroyed
 *          stream's id is not the next one's)
 * @__reserved: must be 0
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: @flags or @__reserved not 0.
 * * %-ENOSPC: the context has max_streams streams (one being destroyed
 *   counts until it is gone).
 */
struct npu_stream_create {
	__u32 size;
	__u32 flags;
	__u32 stream;
	__u32 __reserved;
};

#define NPU_IOCTL_STREAM_CREATE	_IO(NPU_TYPE, NPU_CMD_STREAM_CREATE)

/**
 * enum npu_stream_destroy_flags - STREAM_DESTROY's flags
 * @NPU_STREAM_DESTROY_FORCE: drop the queued commands (they complete
 *	-ECANCELED), stop the running one at its next chunk, do not wait
 */
enum npu_stream_destroy_flags {
	NPU_STREAM_DESTROY_FORCE = 1U << 0,
};

/**
 * struct npu_stream_destroy - NPU_IOCTL_STREAM_DESTROY: destroy a stream
 * @size: sizeof(struct npu_stream_destroy)
 * @flags: 0 (wait for queued commands) or NPU_STREAM_DESTROY_FORCE
 * @stream: from STREAM_CREATE
 * @__reserved: must be 0
 *
 * Without FORCE the call waits until the commands queued so far
 * completed; the carrier's removal ends the wait (since 1.5), as does a
 * fatal signal, and what is left is dropped. From the call on, the
 * stream id is unknown to every other call.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: unknown @flags, @__reserved not 0.
 * * %-ENOENT: unknown stream (or one being destroyed).
 */
struct npu_stream_destroy {
	__u32 size;
	__u32 flags;
	__u32 stream;
	__u32 __reserved;
};

#define NPU_IOCTL_STREAM_DESTROY _IO(NPU_TYPE, NPU_CMD_STREAM_DESTROY)

/**
 * enum npu_cmd_op - command opcodes, struct npu_cmd's op
 * @NPU_OP_COPY: @length bytes from @src to @dst
 * @NPU_OP_MEMSET: @length bytes of the byte @value at @dst
 * @NPU_OP_WRITE_VALUE: the __u64 @value at @dst
 * @NPU_OP_WAIT_VALUE: wait until the __u64 at @src satisfies the
 *	NPU_WAIT_* condition (enum npu_wait_cond) with @value
 * @NPU_OP_WAIT_STREAM: wait until stream @src completed seqno @value, or
 *	was destroyed
 * @NPU_OP_TIMESTAMP: the device clock as a __u64 at @dst when the engine
 *	runs the command (since 1.3)
 * @NPU_OP_COPY_2D: @height rows of @length bytes, each row at its pitch
 *	(since 1.4)
 * @NPU_OP_FILL32: @length bytes of the 32-bit pattern @value at @dst
 *	(since 1.4)
 * @NPU_OP_PREFETCH: fault [@dst, @dst + @length) of this context's device
 *	VA in for reading (since 1.4)
 * @NPU_OP_COPY_BATCH: the @length copies described by the array of
 *	struct npu_copy_desc at @src, each element @value bytes (since 1.5)
 * @NPU_OP_REDUCE: @dst[i] = @dst[i] OP @src[i] over @length bytes of
 *	elements, OP and the element type in @flags (enum npu_reduce_flags;
 *	since 1.8)
 * @NPU_OP_RANDOM: random numbers at @dst, as struct npu_random at @src
 *	(@value bytes of it) says (since 1.9)
 * @NPU_OP_MODEL: the commands of model @src, in order, as one command
 *	(since 1.10; DOC: npu models)
 * @NPU_OP_SWITCH: in a model only: go on at the step the __u32 at @src
 *	picks from the @length step indexes at @value (since 1.10)
 * @NPU_OP_KERNEL: launch the kernel struct npu_kernel at @src describes
 *	on the AI cores (since 1.12; DOC: npu kernel launches)
 *
 * Fields an op does not name must be 0; @dst_pitch, @src_pitch and
 * @height are COPY_2D's only. Lengths are non-zero where an op takes one,
 * and no operand range may wrap. The flags each op takes are in enum
 * npu_cmd_flags. SUBMIT refuses a command that breaks any of this with
 * -EINVAL.
 *
 * NPU_OP_COPY: @value is 0, or with NPU_CMD_DST_PEER/NPU_CMD_SRC_PEER the
 * fd of the peer context.
 *
 * NPU_OP_MEMSET: @value is a byte, at most 255; @src is 0.
 *
 * NPU_OP_WRITE_VALUE: @dst is 8-byte aligned, @src and @length are 0.
 *
 * NPU_OP_WAIT_VALUE: @src is 8-byte aligned, @dst and @length are 0. The
 * wait reads the value anew every jiffy while it is at the head of its
 * stream.
 *
 * NPU_OP_WAIT_STREAM: @src is another stream of this context (itself:
 * -EINVAL; unknown: -ENOENT at SUBMIT), @dst and @flags are 0. A wait
 * that is not satisfied when it reaches the head of its stream holds no
 * worker; the awaited stream wakes it as soon as it completes the
 * awaited command, or is destroyed, closed or aborted by a carrier
 * removal (since 1.3; before, the wait looked again every jiffy). Since
 * 1.3 @length is a limit in milliseconds (0: none; at most U32_MAX),
 * counted from when the wait reaches the head of its stream: a wait
 * still unsatisfied then fails with -ETIME, which STREAM_SYNC reports as
 * a command's error, and the stream runs on (or stops, in
 * NPU_STREAM_STOP_ON_FAULT mode).
 *
 * NPU_OP_TIMESTAMP (since 1.3) writes the device clock, nanoseconds since
 * the device was created (CLOCK_MONOTONIC; GET_INFO's @clock_ns reads the
 * same clock), as a __u64 at @dst, read when the engine runs the command,
 * after every earlier command of the stream completed: two of them on a
 * stream time the commands between, and a stamp queued behind a wait is
 * later than the wait's release. @dst is 8-byte aligned; @src, @length
 * and @value are 0. A bad device address faults when it runs, as for
 * WRITE_VALUE.
 *
 * NPU_OP_COPY_2D (since 1.4) copies @height rows (1..NPU_COPY_2D_MAX_HEIGHT)
 * of @length bytes: row i from @src + i * @src_pitch to @dst + i *
 * @dst_pitch, in one command (one seqno, one completion; a fault fails
 * the whole command, with the rows before it copied). Both pitches are at
 * least @length (a pitch of exactly @length is a contiguous side), and
 * neither strided span, (@height - 1) * pitch + @length bytes from its
 * start, may wrap. The flags and @value are COPY's; a host operand's
 * whole span lies inside one registration (else -ENXIO).
 *
 * NPU_OP_FILL32 (since 1.4) writes the 32-bit pattern @value (at most
 * U32_MAX), in the CPU's byte order, into @length / 4 consecutive words
 * at @dst; @dst and @length are 4-byte aligned, @src is 0. (A separate
 * op rather than a MEMSET flag: MEMSET's @value is a byte and stays one.)
 *
 * NPU_OP_PREFETCH (since 1.4) translates every page of the range in
 * stream order, faulting mirrored pages in for reading (never-written
 * anonymous pages come in as the zero page; a later device write faults
 * again for the process's own page). It moves no data; an unmapped page
 * faults as any access would. @flags, @src and @value are 0.
 *
 * NPU_OP_COPY_BATCH (since 1.5) is one command for many copies, as a DMA
 * engine's descriptor list is (the vendor's halMemcpyBatch()): @src is
 * the caller's array of @length (1..NPU_COPY_BATCH_MAX) struct
 * npu_copy_desc, each @value bytes (a multiple of 8, at least
 * NPU_COPY_DESC_SIZE_V1; a longer element has a zero tail, else -E2BIG,
 * and more than 4096 is -E2BIG). SUBMIT reads the array (it may be
 * reused once SUBMIT returns) and checks each copy as COPY's: a length of
 * at least 1, no wrap, a host operand inside one registration. The flags
 * NPU_CMD_DST_HOST and NPU_CMD_SRC_HOST apply to every copy; @dst is 0.
 * The copies run in array order, one seqno and one completion for all; a
 * fault ends the command with the copies before it done. It counts as
 * @length commands against max_queued.
 *
 * NPU_OP_REDUCE (since 1.8) is a copy that reduces into its destination,
 * as an SDMA engine does inline (the vendor's aclrtReduceAsync): element
 * by element, @dst[i] becomes @dst[i] OP @src[i]. @flags holds one
 * NPU_REDUCE_OP_* and one NPU_REDUCE_TYPE_* besides COPY's _HOST and
 * _PEER flags (not _USER); @length is a multiple of the element size and
 * @dst and @src are aligned to it; @value is COPY's. Integers are signed
 * and wrap; floats (IEEE binary16 and binary32, bfloat16) add rounding to
 * nearest even, with subnormals; MAX and MIN order -0 below +0, and a NaN
 * operand gives a NaN. A fault ends the command with the elements before
 * it reduced.
 *
 * NPU_OP_RANDOM (since 1.9) generates random numbers into @dst, as the
 * vendor's DSA does for aclrtRandomNumAsync: @src is the caller's struct
 * npu_random, @value bytes of it (at least NPU_RANDOM_SIZE_V1; a longer
 * one has a zero tail, else -E2BIG; more than 4096 is -E2BIG), read at
 * SUBMIT; @flags and @length are 0. @dst, the struct's @counter and any
 * parameter given by address are device VAs of this context, which the
 * engine reads and writes in stream order (DOC: npu random numbers). The
 * engine reads the counter as it would write it, so a counter it cannot
 * store faults before any output is written; a fault ends the command
 * with the elements before it written and the counter as it was.
 *
 * NPU_OP_MODEL (since 1.10) runs model @src (MODEL_CREATE) of this
 * context: its commands, in order, as one command of the stream (one
 * seqno, one completion); @flags, @dst, @length and @value are 0, @src at
 * most U32_MAX (else -EINVAL). An unknown model is -ENOENT at SUBMIT.
 * The command holds the model: a MODEL_DESTROY meanwhile lets it run to
 * its end (DOC: npu models).
 *
 * NPU_OP_SWITCH (since 1.10) is a model's control flow, a jump table the
 * device evaluates (the vendor's label switch): @value is the caller's
 * array of @length (1..NPU_MODEL_MAX_CMDS) __u32 step indexes of the
 * model, read at MODEL_CREATE, each at most the model's count (which is
 * its end); @src is the device VA of a __u32, 4-byte aligned, read when
 * the step runs: the run goes on at step @value[i] for the index i read,
 * the last entry's for an index past the array. @flags and @dst are 0.
 * SUBMIT refuses it (-EINVAL): outside a model there is nowhere to go.
 *
 * NPU_OP_KERNEL (since 1.12) launches a kernel on the AI cores: @src is
 * the caller's struct npu_kernel, @value bytes of it (at least
 * NPU_KERNEL_SIZE_V1; a longer one has a zero tail, else -E2BIG; more
 * than 4096 is -E2BIG), read at SUBMIT with the argument blob it points
 * to; @flags, @dst and @length are 0. The executor that runs kernels
 * takes it through an aperture fd of the context (DOC: npu kernel
 * launches). A model may hold it (read once, at MODEL_CREATE).
 */
enum npu_cmd_op {
	NPU_OP_COPY		= 1,
	NPU_OP_MEMSET		= 2,
	NPU_OP_WRITE_VALUE	= 3,
	NPU_OP_WAIT_VALUE	= 4,
	NPU_OP_WAIT_STREAM	= 5,
	NPU_OP_TIMESTAMP	= 6,
	NPU_OP_COPY_2D		= 7,
	NPU_OP_FILL32		= 8,
	NPU_OP_PREFETCH		= 9,
	NPU_OP_COPY_BATCH	= 10,
	NPU_OP_REDUCE		= 11,
	NPU_OP_RANDOM		= 12,
	NPU_OP_MODEL		= 13,
	NPU_OP_SWITCH		= 14,
	NPU_OP_KERNEL		= 15,
};

/**
 * enum npu_cmd_flags - a command's address-space flags, struct npu_cmd's
 *	flags (bits 4 and 5 are enum npu_wait_cond, bits 8-15 enum
 *	npu_reduce_flags)
 * @NPU_CMD_DST_HOST: @dst is a user address inside one registration
 *	(writable); for COPY, COPY_2D, REDUCE, MEMSET, FILL32, WRITE_VALUE
 *	and TIMESTAMP; for COPY_BATCH, every copy's @dst
 * @NPU_CMD_SRC_HOST: @src is a user address inside one registration; for
 *	COPY, COPY_2D, REDUCE and WAIT_VALUE; for COPY_BATCH, every copy's
 *	@src
 * @NPU_CMD_DST_PEER: @dst is a device VA of the peer context whose fd is
 *	@value; COPY, COPY_2D and REDUCE only
 * @NPU_CMD_SRC_PEER: the same for @src
 * @NPU_CMD_DST_USER: @dst is pageable memory of the calling process at
 *	that user address, pinned at SUBMIT for the command only (since 1.4;
 *	DOC: npu pageable operands); for the ops DST_HOST is for
 * @NPU_CMD_SRC_USER: the same for @src (since 1.4); for the ops SRC_HOST
 *	is for
 *
 * Without a flag an operand is a device VA of this context. An operand
 * takes at most one of its _HOST, _PEER and _USER flags.
 */
enum npu_cmd_flags {
	NPU_CMD_DST_HOST	= 1U << 0,
	NPU_CMD_SRC_HOST	= 1U << 1,
	NPU_CMD_DST_PEER	= 1U << 2,
	NPU_CMD_SRC_PEER	= 1U << 3,
	NPU_CMD_DST_USER	= 1U << 6,
	NPU_CMD_SRC_USER	= 1U << 7,
};

/**
 * enum npu_wait_cond - WAIT_VALUE's condition, bits 4 and 5 of its flags
 *	(exactly one; the value at @src is read as a __u64)
 * @NPU_WAIT_GEQ: the value at @src is at least @value
 * @NPU_WAIT_EQ: the value at @src equals @value
 * @NPU_WAIT_AND: the value at @src AND @value is not 0
 * @NPU_WAIT_NOR: NOT (the value at @src OR @value) is not 0
 */
enum npu_wait_cond {
	NPU_WAIT_GEQ		= 0U << 4,
	NPU_WAIT_EQ		= 1U << 4,
	NPU_WAIT_AND		= 2U << 4,
	NPU_WAIT_NOR		= 3U << 4,
};

#define NPU_WAIT_COND_MASK	((__u32)(NPU_WAIT_GEQ | NPU_WAIT_EQ | \
					 NPU_WAIT_AND | NPU_WAIT_NOR))

/**
 * enum npu_reduce_flags - REDUCE's operation (bits 8-11 of its flags) and
 *	element type (bits 12-15), one of each (since 1.8)
 * @NPU_REDUCE_OP_SUM: @dst[i] + @src[i]
 * @NPU_REDUCE_OP_MAX: the larger of the two
 * @NPU_REDUCE_OP_MIN: the smaller of the two
 * @NPU_REDUCE_TYPE_INT8: signed 8-bit integers
 * @NPU_REDUCE_TYPE_INT16: signed 16-bit integers
 * @NPU_REDUCE_TYPE_INT32: signed 32-bit integers
 * @NPU_REDUCE_TYPE_FP16: IEEE binary16
 * @NPU_REDUCE_TYPE_FP32: IEEE binary32
 * @NPU_REDUCE_TYPE_BF16: bfloat16 (the top half of a binary32)
 */
enum npu_reduce_flags {
	NPU_REDUCE_OP_SUM	= 0U << 8,
	NPU_REDUCE_OP_MAX	= 1U << 8,
	NPU_REDUCE_OP_MIN	= 2U << 8,
	NPU_REDUCE_TYPE_INT8	= 0U << 12,
	NPU_REDUCE_TYPE_INT16	= 1U << 12,
	NPU_REDUCE_TYPE_INT32	= 2U << 12,
	NPU_REDUCE_TYPE_FP16	= 3U << 12,
	NPU_REDUCE_TYPE_FP32	= 4U << 12,
	NPU_REDUCE_TYPE_BF16	= 5U << 12,
};

#define NPU_REDUCE_OP_MASK	((__u32)0xf << 8)
#define NPU_REDUCE_TYPE_MASK	((__u32)0xf << 12)

/**
 * DOC: npu random numbers
 *
 * NPU_OP_RANDOM is Philox4x32-10 (Salmon et al., SC'11), counter based:
 * element i of a command is a function of the key (@seed, low word
 * first), the 128-bit counter read from @counter (four little-endian
 * 32-bit words, lowest first) plus i, and nothing else, so one command of
 * n elements gives what two commands of n/2 give with the counter carried
 * between them. When the last element is written the engine stores the
 * counter plus @count back at @counter.
 *
 * Element i draws the four words of block counter + i: x0 and x1 are its
 * first two words, x0 also the low word of a 64-bit draw, x1 the high.
 *
 * * UNIFORM: integers min + floor(draw * (max - min) / 2^w) for w-bit
 *   types (a 64-bit draw for 64-bit types): [min, max), and min itself
 *   when max <= min; floats min + u * (max - min) with u = (x0 >> 8) *
 *   2^-24 in [0, 1), computed in binary32 (npu_float.c) and rounded to
 *   the element type (which may round up to max itself).
 * * NORMAL: mean + stddev * z, z = sqrt(-2 ln u1) cos(2 pi u2) (Box-Muller)
 *   with u1 = (x0 + 1) * 2^-32 and u2 = x1 * 2^-32, in fixed point (z
 *   within 2e-7 of its exact value), then binary32.
 * * TRUNCATED_NORMAL: the first z of |z| <= 2 among the block's four
 *   candidates (cos and sin of the pairs x0, x1 and x2, x3), then of
 *   blocks counter + i + k * 2^96 for k = 1, 2, ... (after 64 blocks
 *   without one, which has probability 2^-1100, z = 0).
 * * DROPOUT: bit i (bit i % 8 of byte i / 8) is 1, keep, when u >= ratio,
 *   u as for UNIFORM; the bits of the last byte past @count are 0.
 */

/**
 * enum npu_random_func - what NPU_OP_RANDOM generates (since 1.9)
 * @NPU_RANDOM_DROPOUT: a dropout bitmask, @param[0] the ratio dropped
 * @NPU_RANDOM_UNIFORM: uniform from @param[0] up to @param[1] (floats may
 *	round to @param[1] itself)
 * @NPU_RANDOM_NORMAL: normal, mean @param[0] and deviation @param[1]
 * @NPU_RANDOM_TRUNCATED_NORMAL: the same, within two deviations of the
 *	mean
 */
enum npu_random_func {
	NPU_RANDOM_DROPOUT		= 0,
	NPU_RANDOM_UNIFORM		= 1,
	NPU_RANDOM_NORMAL		= 2,
	NPU_RANDOM_TRUNCATED_NORMAL	= 3,
};

/**
 * enum npu_random_type - NPU_OP_RANDOM's element type (since 1.9); the
 *	ratio's for DROPOUT, whose elements are bits
 * @NPU_RANDOM_TYPE_INT32: signed 32-bit integers (UNIFORM only)
 * @NPU_RANDOM_TYPE_INT64: signed 64-bit integers (UNIFORM only)
 * @NPU_RANDOM_TYPE_UINT32: unsigned 32-bit integers (UNIFORM only)
 * @NPU_RANDOM_TYPE_UINT64: unsigned 64-bit integers (UNIFORM only)
 * @NPU_RANDOM_TYPE_BF16: bfloat16
 * @NPU_RANDOM_TYPE_FP16: IEEE binary16
 * @NPU_RANDOM_TYPE_FP32: IEEE binary32
 *
 * The values are the vendor runtime's rtRandomNumDataType.
 */
enum npu_random_type {
	NPU_RANDOM_TYPE_INT32	= 0,
	NPU_RANDOM_TYPE_INT64	= 1,
	NPU_RANDOM_TYPE_UINT32	= 2,
	NPU_RANDOM_TYPE_UINT64	= 3,
	NPU_RANDOM_TYPE_BF16	= 4,
	NPU_RANDOM_TYPE_FP16	= 5,
	NPU_RANDOM_TYPE_FP32	= 6,
};

/**
 * enum npu_random_flags - which of struct npu_random's values are device
 *	VAs the engine reads the value from when the command runs (since 1.9)
 * @NPU_RANDOM_PARAM0_ADDR: @param[0], a value of the element type
 * @NPU_RANDOM_PARAM1_ADDR: @param[1], the same (not for DROPOUT)
 * @NPU_RANDOM_SEED_ADDR: @seed, a __u64
 * @NPU_RANDOM_COUNT_ADDR: @count, a __u64
 */
enum npu_random_flags {
	NPU_RANDOM_PARAM0_ADDR	= 1U << 0,
	NPU_RANDOM_PARAM1_ADDR	= 1U << 1,
	NPU_RANDOM_SEED_ADDR	= 1U << 2,
	NPU_RANDOM_COUNT_ADDR	= 1U << 3,
};

/**
 * struct npu_random - what an NPU_OP_RANDOM generates (since 1.9)
 * @func: NPU_RANDOM_* (enum npu_random_func)
 * @type: NPU_RANDOM_TYPE_* (enum npu_random_type): BF16, FP16 or FP32,
 *	and for UNIFORM also the integer types
 * @flags: NPU_RANDOM_*_ADDR (enum npu_random_flags)
 * @__reserved: 0
 * @param: the distribution's parameters (enum npu_random_func), each the
 *	bits of a value of @type, zero-extended (not wider than the type),
 *	or with its _ADDR flag a device VA; @param[1] is 0 for DROPOUT
 * @seed: the key, or with NPU_RANDOM_SEED_ADDR a device VA of it
 * @count: elements (bits for DROPOUT), or with NPU_RANDOM_COUNT_ADDR a
 *	device VA of the count; 0 writes nothing but the counter
 * @counter: device VA of the 16-byte counter, read when the command runs
 *	and written back advanced by @count
 *
 * @dst receives @count elements of @type (DROPOUT: (@count + 7) / 8
 * bytes), at any alignment. SUBMIT refuses an unknown @func, @type or
 * flag, a type @func does not take, a parameter value wider than the
 * type, an address range that wraps, and a @count whose elements do not fit in
 * 2^64 bytes, with -EINVAL; a count read from device memory that does so
 * faults the command instead.
 */
struct npu_random {
	__u32 func;
	__u32 type;
	__u32 flags;
	__u32 __reserved;
	__aligned_u64 param[2];
	__aligned_u64 seed;
	__aligned_u64 count;
	__aligned_u64 counter;
};

/**
 * NPU_RANDOM_SIZE_V1 - struct npu_random as 1.9 has it, the least
 *	RANDOM's @value may be
 */
#define NPU_RANDOM_SIZE_V1	56

/**
 * struct npu_cmd - one command for a stream
 * @op: NPU_OP_* (enum npu_cmd_op)
 * @flags: NPU_CMD_* (enum npu_cmd_flags) and NPU_WAIT_* (enum
 *         npu_wait_cond) as the op allows; others must be 0
 * @dst: destination address (device VA unless a DST flag says otherwise)
 * @src: source address (device VA unless a SRC flag says otherwise), a
 *       stream id, COPY_BATCH's array of struct npu_copy_desc,
 *       RANDOM's struct npu_random, or KERNEL's struct npu_kernel
 * @length: bytes for COPY/MEMSET/FILL32/PREFETCH, bytes of each row for
 *          COPY_2D; for WAIT_STREAM a limit in milliseconds (0: none;
 *          since 1.3); copies of a COPY_BATCH; 0 for the others
 * @value: fill byte, u32 fill pattern (FILL32), value to write or compare,
 *         seqno to wait for, for a COPY or COPY_2D with NPU_CMD_*_PEER
 *         the fd of the peer context, COPY_BATCH's element size, or
 *         the size of RANDOM's struct npu_random or KERNEL's struct
 *         npu_kernel
 * @dst_pitch: COPY_2D: bytes from the start of one destination row to the
 *             next, at least @length; 0 for the other ops (since 1.4)
 * @src_pitch: COPY_2D: the same for the source rows (since 1.4)
 * @height: COPY_2D: rows, 1..NPU_COPY_2D_MAX_HEIGHT; 0 for the other ops
 *          (since 1.4)
 *
 * SUBMIT reads an array of these. The struct grew in 1.4 (@dst_pitch,
 * @src_pitch, @height appended): SUBMIT's @cmd_size says which layout the
 * caller's array has, and an element is read as copy_struct_from_user()
 * reads an argument struct; the 1.3 struct ended at @value
 * (NPU_CMD_SIZE_V1 bytes).
 */
struct npu_cmd {
	__u32 op;
	__u32 flags;
	__aligned_u64 dst;
	__aligned_u64 src;
	__aligned_u64 length;
	__aligned_u64 value;
	__aligned_u64 dst_pitch;
	__aligned_u64 src_pitch;
	__aligned_u64 height;
};

/**
 * NPU_CMD_SIZE_V1 - struct npu_cmd as 1.3 knew it, up to @value
 *
 * SUBMIT's cmd_size 0 means it.
 */
#define NPU_CMD_SIZE_V1		40

/**
 * NPU_COPY_2D_MAX_HEIGHT - most rows of one COPY_2D (since 1.4)
 */
#define NPU_COPY_2D_MAX_HEIGHT	(1U << 24)

/**
 * struct npu_copy_desc - one copy of an NPU_OP_COPY_BATCH (since 1.5)
 * @dst: destination: a device VA, or with NPU_CMD_DST_HOST a user address
 *	inside one writable registration
 * @src: source: a device VA, or with NPU_CMD_SRC_HOST a user address
 *	inside one registration
 * @length: bytes, at least 1
 */
struct npu_copy_desc {
	__aligned_u64 dst;
	__aligned_u64 src;
	__aligned_u64 length;
};

/**
 * NPU_COPY_DESC_SIZE_V1 - struct npu_copy_desc as 1.5 knows it
 */
#define NPU_COPY_DESC_SIZE_V1	24

/**
 * NPU_COPY_BATCH_MAX - most copies of one COPY_BATCH (since 1.5)
 *
 * The vendor's limit for a synchronous batch copy, as NPU_SUBMIT_MAX_CMDS.
 */
#define NPU_COPY_BATCH_MAX	4096

/**
 * NPU_SUBMIT_MAX_CMDS - most commands of one SUBMIT: 256 before 1.4
 *
 * The vendor's limit for a synchronous batch copy.
 */
#define NPU_SUBMIT_MAX_CMDS	4096

/**
 * enum npu_submit_flags - SUBMIT's flags
 * @NPU_SUBMIT_WAIT: also wait for the commands, as STREAM_SYNC would
 *	(since 1.5)
 */
enum npu_submit_flags {
	NPU_SUBMIT_WAIT		= 1U << 0,
};

#define NPU_SUBMIT_FLAGS_MASK	((__u32)NPU_SUBMIT_WAIT)

/**
 * struct npu_submit - NPU_IOCTL_SUBMIT: queue commands on a stream
 *	(DOC: npu streams and commands)
 * @size: sizeof(struct npu_submit); the first release's struct ended at
 *        @seqno and still works (its commands are NPU_CMD_SIZE_V1 bytes)
 * @flags: NPU_SUBMIT_WAIT (since 1.5), else 0
 * @stream: from STREAM_CREATE
 * @count: number of commands, 1..NPU_SUBMIT_MAX_CMDS
 * @cmds: user pointer to @count commands of @cmd_size bytes each
 * @seqno: out, sequence number of the last command queued
 * @cmd_size: bytes of each element of @cmds (since 1.4): 0 means
 *            NPU_CMD_SIZE_V1; else a multiple of 8, at least
 *            NPU_CMD_SIZE_V1 and at most 4096. A caller's shorter
 *            struct npu_cmd reads as if the missing fields were 0; a
 *            longer one must have its bytes past sizeof(struct npu_cmd)
 *            zero (else -E2BIG)
 * @__reserved: must be 0
 *
 * Each command is read and checked into its own accounted job; the batch
 * is charged to max_queued as a whole before any is queued: all or none.
 * A host operand must lie inside one registration and is held until the
 * command completes; device addresses are checked when the command runs.
 * A peer operand (NPU_CMD_DST_PEER/NPU_CMD_SRC_PEER) is a device VA in
 * another context of this process, on another device, named by its fd;
 * it is reached only if PEER_ENABLE allowed that device, both at submit
 * and when the command runs (a PEER_DISABLE in between makes it fault),
 * and the peer's mapping grants this device access (SET_ACCESS with
 * @device = this one, or a mapping made with NPU_MAP_PEERS).
 * With max_queued commands of the context not yet complete, or with the
 * pages of its pageable operands over max_user_pin, SUBMIT waits for
 * room as a full ring would (DOC: npu pageable operands).
 * Every SUBMIT that reaches the driver's checks counts in the file's
 * npu-submits fdinfo key, refused ones too.
 *
 * With NPU_SUBMIT_WAIT (since 1.5) SUBMIT also waits for its commands,
 * as STREAM_SYNC for @seqno would, and returns what that would: 0, or
 * -EIO, -ETIME, -ECANCELED for a command of the stream up to @seqno. On a
 * stream with nothing queued or running the commands run in the caller's
 * own context (a synchronous copy is one system call, with no wake-up of
 * the engine and back); otherwise, or once they must wait, the caller
 * sleeps. A signal ends the wait with -EINTR: the commands stay queued
 * and run; STREAM_SYNC waits for them. As for any error, @seqno is then
 * not written back.
 *
 * Errors (beyond the common ones); nothing is queued, but for the
 * NPU_SUBMIT_WAIT errors said so:
 *
 * * %-EINVAL: unknown @flags, @__reserved not 0, @count 0 or over
 *   NPU_SUBMIT_MAX_CMDS, @cmd_size under NPU_CMD_SIZE_V1 or not a
 *   multiple of 8; a command its op does not allow (enum npu_cmd_op,
 *   enum npu_cmd_flags: an unknown op, a flag the op does not take, two
 *   address spaces for one operand, a field it does not use not 0, a
 *   zero length, a misaligned operand, a wrapping range, a WAIT_STREAM
 *   on its own stream, a pageable operand longer than
 *   NPU_HOST_MAX_LENGTH).
 * * %-E2BIG: @cmd_size over 4096, or non-zero bytes past the struct
 *   npu_cmd the kernel knows; the same for a COPY_BATCH's elements and a
 *   RANDOM's struct npu_random.
 * * %-EFAULT: @cmds, a COPY_BATCH's array or a RANDOM's struct cannot be
 *   read; a pageable
 *   operand not mapped, beyond
 *   the user address space, not reachable by GUP (VM_IO, VM_PFNMAP), or
 *   (a destination) not writable, or a writable shared mapping of a file
 *   that is written back.
 * * %-ENOENT: unknown stream (or one being destroyed); the stream of a
 *   WAIT_STREAM unknown; the model of an NPU_OP_MODEL unknown (since
 *   1.10); the stream was aborted (FORCE destroy, carrier
 *   removal) while SUBMIT waited for room.
 * * %-ENXIO: a host operand (NPU_CMD_DST_HOST/NPU_CMD_SRC_HOST) not inside
 *   one registration.
 * * %-EACCES: NPU_CMD_DST_HOST into a read-only registration.
 * * %-EBADF: a peer fd that is not an npu context of this process on
 *   another device.
 * * %-EPERM: peer access to that device not enabled (PEER_ENABLE).
 * * %-EINTR: a signal while waiting for room; with NPU_SUBMIT_WAIT also
 *   a signal while waiting for the commands, which are then queued.
 * * %-ENOMEM: pageable operands over RLIMIT_MEMLOCK (since 1.5) or
 *   needing more than max_user_pin by themselves; commands counting more
 *   than max_queued by themselves (a COPY_BATCH counts its copies; since
 *   1.5); or out of memory.
 * * %-EOPNOTSUPP: a pageable operand, and the device would reach pageable
 *   memory only through bounce buffers or is not cache coherent (as for
 *   HOST_REGISTER).
 * * %-EIO, %-EHWPOISON, %-ETIME, %-ECANCELED: with NPU_SUBMIT_WAIT, the
 *   commands were queued and STREAM_SYNC for @seqno would have said so.
 */
struct npu_submit {
	__u32 size;
	__u32 flags;
	__u32 stream;
	__u32 count;
	__aligned_u64 cmds;
	__aligned_u64 seqno;
	__u32 cmd_size;
	__u32 __reserved;
};

#define NPU_IOCTL_SUBMIT	_IO(NPU_TYPE, NPU_CMD_SUBMIT)

/**
 * enum npu_fault_flags - how a faulting command touched STREAM_SYNC's
 *	@fault_addr (since 1.6)
 * @NPU_FAULT_WRITE: the access wrote (else it read)
 * @NPU_FAULT_HOST: @fault_addr is a host address, of a registration or a
 *	pageable operand (else a device VA)
 * @NPU_FAULT_UCE: the device page at @fault_addr (a device VA) has an
 *	uncorrectable memory error: STREAM_SYNC's -EHWPOISON (DOC: npu
 *	uncorrectable memory errors)
 * @NPU_FAULT_AICORE: a kernel (NPU_OP_KERNEL) faulted on an AI core at
 *	@fault_addr, a device VA, or 0 if the executor had none (since 1.12;
 *	DOC: npu kernel launches)
 * @NPU_FAULT_TRAP: with NPU_FAULT_AICORE: the kernel trapped (a trap or
 *	an illegal instruction) (since 1.12)
 */
enum npu_fault_flags {
	NPU_FAULT_WRITE = 1U << 0,
	NPU_FAULT_HOST = 1U << 1,
	NPU_FAULT_UCE = 1U << 2,
	NPU_FAULT_AICORE = 1U << 3,
	NPU_FAULT_TRAP = 1U << 4,
};

/**
 * struct npu_stream_sync - NPU_IOCTL_STREAM_SYNC: wait for a stream
 * @size: sizeof(struct npu_stream_sync)
 * @flags: must be 0
 * @stream: from STREAM_CREATE
 * @timeout_ms: -1 waits forever, 0 polls
 * @seqno: wait until this command completed; 0 means all queued so far
 * @error_seqno: out (since 1.6): the seqno of the command whose error is
 *	reported (-EIO, -EHWPOISON, -ETIME), else 0
 * @fault_addr: out (since 1.6): the address that command could not
 *	access (-EIO, -EHWPOISON), else 0
 * @fault_flags: out (since 1.6): how it accessed it, NPU_FAULT_* bits
 *	(enum npu_fault_flags; -EIO, -EHWPOISON), else 0
 * @error_tid: out (since 1.6): the thread that submitted that command, by
 *	its id in the submitter's pid namespace (what gettid() returned
 *	there; -EIO, -EHWPOISON, -ETIME), else 0
 * @error_step: out (since 1.13): when that command is an NPU_OP_MODEL
 *	run, its step that failed, counted from 1 (the index in
 *	MODEL_CREATE's @cmds plus 1: which KERNEL of a model faulted, for
 *	one); 0 for any other command, or a run dropped before its first
 *	step
 * @__reserved: out, 0
 *
 * Returns 0 once every command up to @seqno completed and none of them
 * has an error not yet reported. Otherwise it reports the first such
 * error, once (the device log names every fault), and then clears it: a
 * later sync of the same seqno returns 0 - except on a stream in
 * NPU_STREAM_STOP_ON_FAULT mode, where every sync past the fault's seqno
 * says -ECANCELED again.
 *
 * The outputs are written back on success (all 0) and, unlike other
 * failures, with -EIO, -EHWPOISON and -ETIME, which name one command:
 * which one, who submitted it and, for a fault, where (since 1.6). The
 * values the caller passes in them are ignored; a struct of 1.0 to 1.5
 * (24 bytes) gets none of them and works as before, one of 1.6 to 1.12
 * (48 bytes) all but @error_step.
 *
 * Errors (beyond the common ones):
 *
 * * %-EIO: a command up to @seqno faulted; @error_seqno, @fault_addr,
 *   @fault_flags and @error_tid say which, where and whose. A KERNEL's
 *   fault has NPU_FAULT_AICORE (since 1.12).
 * * %-EHWPOISON: a command up to @seqno touched a device page with an
 *   uncorrectable memory error (since 1.6); the same outputs as for
 *   -EIO, @fault_addr the device VA of the first byte it could not
 *   access and @fault_flags with NPU_FAULT_UCE.
 * * %-ETIME: a command up to @seqno was a WAIT_STREAM that ran out of its
 *   limit (since 1.3), or a KERNEL that ran out of its @timeout_ms (since
 *   1.12); @error_seqno and @error_tid say which and whose.
 * * %-ECANCELED: a command up to @seqno was dropped unrun (FORCE destroy,
 *   carrier removal, or after a fault in NPU_STREAM_STOP_ON_FAULT mode).
 * * %-ETIMEDOUT: @timeout_ms passed first.
 * * %-EINTR: a signal; never restarted (the timeout is relative): call
 *   again with what is left of the timeout.
 * * %-ENOENT: unknown stream.
 * * %-EINVAL: @flags not 0, @timeout_ms below -1, or a @seqno not yet
 *   submitted.
 */
struct npu_stream_sync {
	__u32 size;
	__u32 flags;
	__u32 stream;
	__s32 timeout_ms;
	__aligned_u64 seqno;
	__aligned_u64 error_seqno;
	__aligned_u64 fault_addr;
	__u32 fault_flags;
	__u32 error_tid;
	__u32 error_step;
	__u32 __reserved;
};

#define NPU_IOCTL_STREAM_SYNC	_IO(NPU_TYPE, NPU_CMD_STREAM_SYNC)

/**
 * enum npu_share_flags - SHARE_EXPORT's and IPC_EXPORT's flags
 * @NPU_SHARE_ANY_PID: no pid list: any process may import (its effective
 *	uid is still checked)
 */
enum npu_share_flags {
	NPU_SHARE_ANY_PID	= 1U << 0,
};

/**
 * struct npu_share_export - NPU_IOCTL_SHARE_EXPORT: make a physical
 *	handle importable by others (DOC: npu sharing)
 * @size: sizeof(struct npu_share_export)
 * @flags: NPU_SHARE_ANY_PID or 0
 * @handle: from MEM_ALLOC in this context
 * @__reserved: must be 0
 * @shareable: out, a random 64-bit name for the handle, never 0
 *
 * A handle is exported at most once. The name stays valid until the
 * exporting context frees the handle (or closes); memory already imported
 * lives on while any importer holds it.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: unknown @flags, @__reserved not 0, or a handle this context
 *   imported (only the allocating process names its memory).
 * * %-ENOENT: unknown handle.
 * * %-EBUSY: already exported.
 */
struct npu_share_export {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 __reserved;
	__aligned_u64 shareable;
};

#define NPU_IOCTL_SHARE_EXPORT	_IO(NPU_TYPE, NPU_CMD_SHARE_EXPORT)

/**
 * NPU_SHARE_MAX_PIDS - most processes one SET_PIDS call, and an IPC key's
 *	whole list, may name
 */
#define NPU_SHARE_MAX_PIDS	1024

/**
 * struct npu_share_pids - NPU_IOCTL_SHARE_SET_PIDS (and
 *	NPU_IOCTL_IPC_SET_PIDS): set which processes may import
 * @size: sizeof(struct npu_share_pids)
 * @flags: must be 0
 * @shareable: from SHARE_EXPORT in this context
 * @pids: user pointer to @count __s32 process ids, in the caller's pid
 *        namespace (as getpid() and GET_INFO's tgid give them)
 * @count: 1..NPU_SHARE_MAX_PIDS
 * @__reserved: must be 0
 *
 * Replaces the list. Each id is resolved when this call runs, and the list
 * holds those processes, not their numbers: a listed process that exits
 * can no longer import, and a process that gets its number later is not
 * on the list.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: @flags or @__reserved not 0, @count 0 or over
 *   NPU_SHARE_MAX_PIDS, or a pid <= 0.
 * * %-EFAULT: @pids cannot be read.
 * * %-ESRCH: an id names no process (none, or a thread that is not its
 *   process's main thread); nothing changed.
 * * %-ENOENT: not a name this context exported with SHARE_EXPORT.
 */
struct npu_share_pids {
	__u32 size;
	__u32 flags;
	__aligned_u64 shareable;
	__aligned_u64 pids;
	__u32 count;
	__u32 __reserved;
};

#define NPU_IOCTL_SHARE_SET_PIDS _IO(NPU_TYPE, NPU_CMD_SHARE_SET_PIDS)

/**
 * struct npu_share_import - NPU_IOCTL_SHARE_IMPORT (and
 *	NPU_IOCTL_IPC_IMPORT): take a handle another process exported
 * @size: sizeof(struct npu_share_import); SHARE_IMPORT's first release's
 *        struct ended at @__reserved and still works, without @length and
 *        @page_size (added in 1.2.0); IPC_IMPORT's ends at @page_size
 * @flags: must be 0
 * @shareable: from the exporter
 * @handle: out, a handle in this context to the same memory
 * @__reserved: must be 0
 * @length: out, the memory's size in bytes (as NPU_IOCTL_MEM_ALLOC made it)
 * @page_size: out, its NPU_PAGE_* granule
 *
 * A process may import if it is one SHARE_SET_PIDS listed (or the name was
 * exported with NPU_SHARE_ANY_PID) and its effective uid is the exporter's
 * at export; any uid may when the exporter had CAP_SYS_ADMIN then. The
 * handle is mapped and freed as any handle, and keeps the memory alive
 * while it or a mapping of it exists.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: @flags or @__reserved not 0, or the exporting process
 *   itself.
 * * %-ENOENT: no such name, revoked, an IPC key, or this process is not
 *   allowed (the same answer, so names cannot be probed).
 * * %-ENODEV: exported from another device.
 * * %-ENOSPC: the context has max_handles handles or max_imports imports.
 */
struct npu_share_import {
	__u32 size;
	__u32 flags;
	__aligned_u64 shareable;
	__u32 handle;
	__u32 __reserved;
	__aligned_u64 length;
	__aligned_u64 page_size;
};

#define NPU_IOCTL_SHARE_IMPORT	_IO(NPU_TYPE, NPU_CMD_SHARE_IMPORT)

/**
 * struct npu_peer_enable - NPU_IOCTL_PEER_ENABLE, NPU_IOCTL_PEER_DISABLE:
 *	let this context's DMA engine reach a peer device's memory
 * @size: sizeof(struct npu_peer_enable)
 * @flags: must be 0
 * @device: the peer device index
 * @__reserved: must be 0
 *
 * PEER_ENABLE lets this context's commands name contexts of @device
 * (NPU_CMD_DST_PEER/NPU_CMD_SRC_PEER). PEER_DISABLE (since 1.3) withdraws
 * it: later SUBMITs naming a context of that device get -EPERM, and
 * queued peer commands that run afterwards fault ("peer access
 * disabled"): the engine checks the enable on every peer access. Closing
 * the context forgets both.
 *
 * PEER_ENABLE errors (beyond the common ones):
 *
 * * %-EINVAL: @flags or @__reserved not 0, or @device is this device.
 * * %-ENODEV: no device @device.
 * * %-EALREADY: enabled before.
 *
 * PEER_DISABLE errors (beyond the common ones):
 *
 * * %-EINVAL: @flags or @__reserved not 0, or @device is this device.
 * * %-ENODEV: no device @device.
 * * %-ENOENT: not enabled (never, or disabled since).
 */
struct npu_peer_enable {
	__u32 size;
	__u32 flags;
	__u32 device;
	__u32 __reserved;
};

#define NPU_IOCTL_PEER_ENABLE	_IO(NPU_TYPE, NPU_CMD_PEER_ENABLE)
#define NPU_IOCTL_PEER_DISABLE	_IO(NPU_TYPE, NPU_CMD_PEER_DISABLE)

/**
 * enum npu_stream_mode_flags - a stream's mode bits (STREAM_SET_MODE)
 * @NPU_STREAM_STOP_ON_FAULT: drop every command after a fault (since 1.3)
 */
enum npu_stream_mode_flags {
	NPU_STREAM_STOP_ON_FAULT = 1U << 0,
};

#define NPU_STREAM_MODE_MASK	((__u32)NPU_STREAM_STOP_ON_FAULT)

/**
 * struct npu_stream_mode - NPU_IOCTL_STREAM_SET_MODE: set a stream's mode
 *	(since 1.3)
 * @size: sizeof(struct npu_stream_mode)
 * @flags: must be 0
 * @stream: from STREAM_CREATE
 * @mode: the stream's new mode, NPU_STREAM_* bits (enum
 *        npu_stream_mode_flags); a new stream has none
 * @__reserved: must be 0
 *
 * A mode can be set, not cleared: @mode must include every bit the stream
 * has (setting the same mode again is 0).
 * With NPU_STREAM_STOP_ON_FAULT, once a command of the stream faults,
 * every later command of the stream, queued already or submitted later,
 * is dropped unrun and counts as -ECANCELED: STREAM_SYNC reports the fault
 * (-EIO) first, then -ECANCELED for every seqno after the fault's. A fault
 * counts if its command completes after this call. Streams waiting for
 * it go on (its dropped commands complete).
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: @flags or @__reserved not 0, unknown @mode bits, or a bit
 *   the stream has missing from @mode.
 * * %-ENOENT: unknown stream.
 */
struct npu_stream_mode {
	__u32 size;
	__u32 flags;
	__u32 stream;
	__u32 mode;
	__aligned_u64 __reserved;
};

#define NPU_IOCTL_STREAM_SET_MODE _IO(NPU_TYPE, NPU_CMD_STREAM_SET_MODE)

/**
 * struct npu_ipc_export - NPU_IOCTL_IPC_EXPORT: name a range of mapped
 *	device memory (since 1.4; DOC: npu sharing)
 * @size: sizeof(struct npu_ipc_export)
 * @flags: NPU_SHARE_ANY_PID or 0
 * @addr: device VA of the range's start, inside one mapping of memory this
 *        context allocated (MEM_ALLOC), aligned to its page size
 * @length: bytes, a non-zero multiple of the page size, inside the mapping
 * @key: out, a random 64-bit name for the range, never 0
 *
 * IPC memory: another process on the device imports the range by @key
 * (IPC_IMPORT) - if IPC_SET_PIDS listed it or @flags waived the list, and
 * it has the exporter's effective uid (any uid when the exporter had
 * CAP_SYS_ADMIN), as for SHARE_EXPORT. A range may be named several
 * times, each a key of its own. The key dies at IPC_DESTROY, when the
 * exporter unmaps the mapping it was made from, or when the exporting
 * context closes. Its importers then lose the range (since 1.6; before,
 * it lived on while any importer mapped it), as on the vendor's device:
 * their handles and mappings stay until they let go, but every device
 * access through them faults ("IPC memory revoked by its exporter"); the
 * memory is freed once the last importer let go.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: unknown @flags, @length 0, @addr or @length not aligned to
 *   the mapping's page size, or memory this context imported.
 * * %-ENOENT: no mapping of this context's device memory holds the whole
 *   range (unmapped, host memory, a mirror, wrapping).
 * * %-ENOSPC: the context holds max_ipc_keys keys.
 */
struct npu_ipc_export {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
	__aligned_u64 key;
};

#define NPU_IOCTL_IPC_EXPORT	_IO(NPU_TYPE, NPU_CMD_IPC_EXPORT)

/**
 * NPU_IOCTL_IPC_SET_PIDS - add processes to an IPC key's list (since 1.4)
 *
 * Takes struct npu_share_pids with @shareable an IPC_EXPORT key of this
 * context. Unlike SHARE_SET_PIDS it adds to the key's list, resolving the
 * ids as SHARE_SET_PIDS does.
 *
 * Errors (beyond the common ones): those of SHARE_SET_PIDS, with
 *
 * * %-ENOENT: not a live IPC key of this context.
 * * %-ENOSPC: the list would hold more than NPU_SHARE_MAX_PIDS processes
 *   in all; it stays as it was.
 */
#define NPU_IOCTL_IPC_SET_PIDS	_IO(NPU_TYPE, NPU_CMD_IPC_SET_PIDS)

/**
 * NPU_IOCTL_IPC_IMPORT - take a handle to a range another process named
 *	(since 1.4)
 *
 * Takes struct npu_share_import with @shareable an IPC_EXPORT key: the
 * new handle is a slice of the exporter's memory, @length and @page_size
 * the range's. It maps only whole, at offset 0, like any handle, and
 * counts against max_handles and max_imports. Its accesses fault once the
 * key dies (see struct npu_ipc_export; since 1.6). A process holds at most
 * one import of a key at a time (since 1.6): it may import the key again
 * once it freed the handle.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: @flags or @__reserved not 0, the exporting process itself,
 *   or a process that holds an import of the key already.
 * * %-ENOENT: no such key, destroyed, a SHARE_EXPORT name, or this process
 *   may not import it (one answer, so keys cannot be probed).
 * * %-ENODEV: a key of another device.
 * * %-ENOSPC: the context has max_handles handles or max_imports imports.
 */
#define NPU_IOCTL_IPC_IMPORT	_IO(NPU_TYPE, NPU_CMD_IPC_IMPORT)

/**
 * struct npu_ipc_destroy - NPU_IOCTL_IPC_DESTROY: withdraw an IPC key
 *	(since 1.4)
 * @size: sizeof(struct npu_ipc_destroy)
 * @flags: must be 0
 * @key: from IPC_EXPORT in this context
 *
 * Later imports fail; the key's importers lose the range (see struct
 * npu_ipc_export).
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: @flags not 0.
 * * %-ENOENT: not a live key of this context.
 */
struct npu_ipc_destroy {
	__u32 size;
	__u32 flags;
	__aligned_u64 key;
};

#define NPU_IOCTL_IPC_DESTROY	_IO(NPU_TYPE, NPU_CMD_IPC_DESTROY)

/**
 * enum npu_dmabuf_flags - DMABUF_EXPORT's flags (since 1.4)
 * @NPU_DMABUF_CLOEXEC: the new fd is close-on-exec
 * @NPU_DMABUF_READONLY: the file is opened read-only: no CPU mapping of
 *	it is writable, through its own fd or an importer's (the latter
 *	since 1.5)
 */
enum npu_dmabuf_flags {
	NPU_DMABUF_CLOEXEC	= 1U << 0,
	NPU_DMABUF_READONLY	= 1U << 1,
};

#define NPU_DMABUF_FLAGS_MASK	((__u32)(NPU_DMABUF_CLOEXEC | NPU_DMABUF_READONLY))

/**
 * struct npu_dmabuf_export - NPU_IOCTL_DMABUF_EXPORT: export a physical
 *	handle as a dma-buf (since 1.4; DOC: npu sharing)
 * @size: sizeof(struct npu_dmabuf_export)
 * @flags: NPU_DMABUF_* bits (enum npu_dmabuf_flags)
 * @handle: a handle of this context, from MEM_ALLOC, SHARE_IMPORT or
 *          IPC_IMPORT
 * @fd: out, a new file descriptor of the dma-buf
 * @length: out, the dma-buf's size: the handle's length
 * @__reserved: must be 0
 *
 * The dma-buf is the handle's memory, the same pages the device reads and
 * writes through every mapping of the handle; it holds a reference to the
 * memory, which stays while the dma-buf lives, whatever the context does
 * (MEM_FREE, close) and in whatever order the two go. Every page of the
 * handle is backed with host memory when it is exported. A handle from
 * IPC_IMPORT cannot be exported (since 1.6): its exporter may take the
 * memory back, which a dma-buf's users could not be told. Nor can a
 * DMABUF_IMPORT handle (since 1.7): its importer holds the dma-buf
 * already, and another driver's buffer is no device memory. A handle may be
 * exported any number of times, each a dma-buf of its own; a context holds at
 * most max_dmabufs dma-bufs at a time (they count until their last fd,
 * mapping and importer are gone, even after the context closed). The fd
 * enters the caller's table only once the struct is written back.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: unknown @flags or @__reserved not 0; a DMABUF_IMPORT
 *   handle (since 1.7).
 * * %-ENOENT: unknown handle.
 * * %-EPERM: a handle from IPC_IMPORT (since 1.6).
 * * %-ENOSPC: the context holds max_dmabufs dma-bufs.
 * * %-EMFILE: no free fd.
 * * %-ENOMEM: no host memory to back the handle.
 */
struct npu_dmabuf_export {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__s32 fd;
	__aligned_u64 length;
	__aligned_u64 __reserved;
};

#define NPU_IOCTL_DMABUF_EXPORT	_IO(NPU_TYPE, NPU_CMD_DMABUF_EXPORT)

/**
 * enum npu_mirror_flags - MIRROR_MAP's flags (since 1.4)
 * @NPU_MIRROR_POPULATE: fault the whole range in for reading before the
 *	call returns
 */
enum npu_mirror_flags {
	NPU_MIRROR_POPULATE	= 1U << 0,
};

#define NPU_MIRROR_FLAGS_MASK	((__u32)NPU_MIRROR_POPULATE)

/**
 * struct npu_mirror_map - NPU_IOCTL_MIRROR_MAP: mirror a range of the
 *	process for the device (since 1.4)
 * @size: sizeof(struct npu_mirror_map)
 * @flags: NPU_MIRROR_* bits (enum npu_mirror_flags)
 * @addr: user address, 4 KiB aligned, inside the device VA window
 *        (GET_INFO @va_start..@va_end)
 * @length: bytes, a non-zero multiple of 4 KiB, no wrap, inside the window
 *          and the user address space
 *
 * The range becomes device VA @addr..@addr + @length of this context, the
 * same addresses as in the process: the device reaches whatever the
 * process has mapped there, coherently, with no registration and no pin.
 * Entries start non-present; the DMA engine faults pages in as the
 * process would (a write fault for a write, breaking COW) and the kernel
 * invalidates them whenever the process's mapping changes (munmap,
 * mprotect, madvise, mremap, migration, reclaim, fork, exit), so the
 * device never reaches a page the process no longer has there. A page
 * the process cannot access the same way (unmapped, PROT_NONE, a write to
 * a read-only mapping) is a DMA fault of the command. Mirrored pages are
 * not pinned and not charged to RLIMIT_MEMLOCK or VmPin; a context holds
 * at most max_mirror_pages (module parameter) faulted-in pages, past
 * which a fault is a DMA fault ("mirror page limit"), and at most
 * max_mirrors mirrors. Peers never reach a mirror, and SET_ACCESS refuses
 * it: its rights are the process's (GET_ACCESS answers read-write for
 * its own device, VA_RELEASE is -EBUSY, MAP into it -ENOENT). Closing the
 * file or the process's exit ends every mirror.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: unknown @flags; @addr or @length not 4 KiB aligned, @length
 *   0, or the range wraps or leaves the window or the user address space.
 * * %-EOPNOTSUPP: the kernel has no HMM mirror (CONFIG_HMM_MIRROR), or the
 *   device's DMA is not coherent or would bounce (as for HOST_REGISTER).
 * * %-EADDRINUSE: the range overlaps a reservation, mapping or mirror.
 * * %-ENOSPC: the context has max_mirrors mirrors.
 * * With NPU_MIRROR_POPULATE, after which the mirror is gone again:
 *   %-EFAULT a page not mapped readable, %-ENOSPC max_mirror_pages,
 *   %-ENOMEM, %-EBUSY the range kept changing while it was faulted in,
 *   %-ENOENT another thread unmapped the mirror meanwhile.
 */
struct npu_mirror_map {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
};

#define NPU_IOCTL_MIRROR_MAP	_IO(NPU_TYPE, NPU_CMD_MIRROR_MAP)

/**
 * struct npu_mirror_unmap - NPU_IOCTL_MIRROR_UNMAP: end a mirror
 *	(since 1.4)
 * @size: sizeof(struct npu_mirror_unmap)
 * @flags: must be 0
 * @addr: the @addr it was mapped with
 *
 * Commands reaching it afterwards fault as after UNMAP.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: @flags not 0.
 * * %-ENOENT: no mirror starts at @addr.
 */
struct npu_mirror_unmap {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
};

#define NPU_IOCTL_MIRROR_UNMAP	_IO(NPU_TYPE, NPU_CMD_MIRROR_UNMAP)

/**
 * DOC: npu uncorrectable memory errors
 *
 * A page of device memory may have an uncorrectable error (UCE): an
 * administrator gives it one with the netlink family's
 * NPU_NL_CMD_MEM_POISON (a test's, or a program's recovery drill). Every
 * access of the engine to the page then faults: the command fails and
 * STREAM_SYNC reports -EHWPOISON (other faults are -EIO), naming the
 * command, its submitter and the device VA of the first byte it could
 * not access, with NPU_FAULT_UCE in its @fault_flags; the bytes before
 * the page may have been moved, none after it. The process learns
 * which of its device addresses are affected with MEM_UCE_QUERY and
 * repairs them with MEM_REPAIR: a healthy page takes the bad one's place,
 * its bytes zero, as the vendor's repair remaps the page (the data is
 * lost). Freeing the memory retires the page too.
 */

/**
 * struct npu_uce_range - a range of device VA with uncorrectable errors
 * @addr: first byte, page aligned
 * @length: bytes, whole pages
 */
struct npu_uce_range {
	__aligned_u64 addr;
	__aligned_u64 length;
};

/**
 * struct npu_mem_uce_query - NPU_IOCTL_MEM_UCE_QUERY: which device
 *	addresses of this context have uncorrectable errors (since 1.6;
 *	DOC: npu uncorrectable memory errors)
 * @size: sizeof(struct npu_mem_uce_query)
 * @flags: must be 0
 * @ranges: user pointer to an array of @count entries, or 0 with @count 0
 * @count: in, the entries @ranges holds; out, the ranges there are (at
 *         most NPU_UCE_MAX_RANGES): the first min(in, out) are written
 * @range_size: sizeof(struct npu_uce_range)
 *
 * The ranges are this context's mappings of device memory (its own or
 * imported) over bad pages, in address order, adjacent pages merged.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: @flags not 0, or @range_size not sizeof(struct
 *   npu_uce_range) while @count is not 0.
 */
struct npu_mem_uce_query {
	__u32 size;
	__u32 flags;
	__aligned_u64 ranges;
	__u32 count;
	__u32 range_size;
};

/* Ranges MEM_UCE_QUERY reports at most: the vendor's records per device. */
#define NPU_UCE_MAX_RANGES	128

#define NPU_IOCTL_MEM_UCE_QUERY	_IO(NPU_TYPE, NPU_CMD_MEM_UCE_QUERY)

/**
 * struct npu_mem_repair - NPU_IOCTL_MEM_REPAIR: repair the bad pages of
 *	a range (since 1.6; DOC: npu uncorrectable memory errors)
 * @size: sizeof(struct npu_mem_repair)
 * @flags: must be 0
 * @addr: device VA, inside one mapping of device memory of this context
 * @length: bytes, non-zero
 * @repaired: out, bytes of bad pages repaired (0: none had an error)
 *
 * Each page of the range with an uncorrectable error becomes a healthy
 * page whose bytes are zero; the others are left as they are.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: @flags not 0, or @length 0.
 * * %-ENOENT: no mapping of device memory of this context holds the whole
 *   range.
 */
struct npu_mem_repair {
	__u32 size;
	__u32 flags;
	__aligned_u64 addr;
	__aligned_u64 length;
	__aligned_u64 repaired;
};

#define NPU_IOCTL_MEM_REPAIR	_IO(NPU_TYPE, NPU_CMD_MEM_REPAIR)

/**
 * DOC: npu device reset
 *
 * An administrator resets a device with the netlink family's
 * NPU_NL_CMD_DEVICE_RESET (`npu-smi set -t reset -i N`), as a real
 * device's hot reset, which loses all the device held (since 1.7):
 *
 * - Every context open on the device is lost. Its streams are aborted
 *   before the request is answered: a running command stops at its next
 *   chunk, queued ones are dropped. Every ioctl on it from then on is
 *   -ESTALE, a call the reset interrupted included (a STREAM_SYNC, a
 *   SUBMIT that waits); closing the file is all that is left to do.
 * - Its host memory goes once the calls in flight have ended, as when
 *   the process exits: host registrations are unpinned and uncharged,
 *   mirrors end; peer copies of other devices' contexts that reach it
 *   fault.
 * - Its device memory (handles, mappings, reservations) stays allocated,
 *   and charged to it (ctx_mem_limit, the process's RSS, GET_INFO's
 *   mem_used), until the file is closed; the names it exported
 *   (SHARE_EXPORT, IPC_EXPORT) import no more (-ENOENT, as revoked ones).
 * - The contents of all the device's memory are lost: every byte reads
 *   as zero after the reset, through a dma-buf exported before it (and
 *   whoever maps or imports that) too. Bad pages stay bad.
 * - While the reset is under way (the netlink family's
 *   NPU_NL_A_DEV_RESETTING; the reset_ms module parameter keeps it under
 *   way that long), open() of the device waits for its end (-EAGAIN with
 *   O_NONBLOCK). Then the device takes new contexts, which work as on a
 *   device just loaded.
 */

/**
 * DOC: npu dma-buf import
 *
 * DMABUF_IMPORT (since 1.7) turns a dma-buf into a physical handle of the
 * context: a buffer of another driver (a DRM buffer object, a udmabuf of a
 * memfd, a camera's or another accelerator's buffer) that the device then
 * reads and writes in place, without a copy. The handle is an import
 * (counted against max_handles and max_imports) and is mapped, given
 * access, unmapped and freed as any other: MAP at a 4 KiB aligned
 * address of a reservation, SET_ACCESS, UNMAP, MEM_FREE, and closing the
 * context. A dma-buf of npu's own (DMABUF_EXPORT) of the same device is
 * the exported device memory itself: the handle maps it in its own page
 * size, as SHARE_IMPORT's would.
 *
 * Any other buffer (another driver's, or npu's of another device) the
 * device reaches through the DMA addresses its exporter maps it at for
 * this device, as a registration's pages (DMA coherent, never bounced:
 * the device's DMA must allow it as for HOST_REGISTER), and only this
 * device does: a peer device's engine never reaches it, so SET_ACCESS
 * for a peer device and MAP's NPU_MAP_PEERS refuse it. It is not device
 * memory either: MEM_UCE_QUERY, MEM_REPAIR and IPC_EXPORT do not see it.
 * No import is exported again as a dma-buf (DMABUF_EXPORT): its importer
 * holds the dma-buf already.
 *
 * The import holds a reference to the dma-buf: the exporter closing its
 * fd, freeing its object or exiting leaves the buffer in place until the
 * handle and every mapping of it are gone; nothing is freed under the
 * device. The attachment is dynamic: an exporter that moves the buffer
 * (dma_buf_move_notify()) first has every translation of the device
 * through it invalidated, waiting for an access in progress; the next
 * access maps the buffer again where it is then, waits for the exporter's
 * move to complete and goes on. An access never reaches the place the
 * buffer left. Should the buffer not map again, the access is a DMA fault
 * of its command. There is no implicit synchronisation: the device does
 * not wait for the exporter's fences (other than a move's) and adds none
 * of its own, so the program orders the device's commands and the
 * exporter's users itself (STREAM_SYNC before the exporter reads,
 * DMA_BUF_IOCTL_SYNC around CPU access through the exporter's mapping).
 * When the context's process exits, the device is reset (DOC: npu device
 * reset) or the carrier is removed, the attachment goes.
 */

/**
 * enum npu_dmabuf_import_flags - DMABUF_IMPORT's flags (since 1.7)
 * @NPU_DMABUF_IMPORT_READONLY: the device only reads the buffer: it is
 *	mapped for DMA towards the device, and no mapping of the handle is
 *	ever writable (SET_ACCESS with NPU_ACCESS_READWRITE is -EACCES)
 */
enum npu_dmabuf_import_flags {
	NPU_DMABUF_IMPORT_READONLY	= 1U << 0,
};

#define NPU_DMABUF_IMPORT_FLAGS_MASK	((__u32)NPU_DMABUF_IMPORT_READONLY)

/**
 * struct npu_dmabuf_import - NPU_IOCTL_DMABUF_IMPORT: make a dma-buf a
 *	physical handle of this context (since 1.7; DOC: npu dma-buf import)
 * @size: sizeof(struct npu_dmabuf_import)
 * @flags: NPU_DMABUF_IMPORT_* bits (enum npu_dmabuf_import_flags)
 * @fd: a dma-buf file descriptor of the calling process; it stays the
 *      caller's (close it whenever: the handle holds the buffer)
 * @handle: out, non-zero, valid in this context only
 * @length: the dma-buf's size in bytes, a non-zero multiple of 4 KiB: the
 *          caller states what it expects (lseek(@fd, 0, SEEK_END) tells)
 * @page_size: out, the granule the handle maps in: NPU_PAGE_4K, or an
 *             npu dma-buf's exported handle's page size
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: unknown @flags; @length 0, not a multiple of 4 KiB, or not
 *   the dma-buf's size; @fd is open but not a dma-buf; the exporter maps
 *   the buffer in pieces that are not 4 KiB aligned.
 * * %-EBADF: @fd is not an open file descriptor.
 * * %-EOPNOTSUPP: the device's DMA is not coherent or would bounce (as for
 *   HOST_REGISTER).
 * * %-ENOSPC: the context has max_handles handles or max_imports imports.
 * * %-EINTR: a signal came while the exporter held the buffer or had
 *   not finished moving it (the call restarts where the signal's handler
 *   allows, SA_RESTART).
 * * What the exporter answers when the device attaches to the buffer or
 *   maps it (-EBUSY: it cannot place the buffer where this device reaches
 *   it, -ENOMEM, ...).
 */
struct npu_dmabuf_import {
	__u32 size;
	__u32 flags;
	__s32 fd;
	__u32 handle;
	__aligned_u64 length;
	__aligned_u64 page_size;
};

#define NPU_IOCTL_DMABUF_IMPORT	_IO(NPU_TYPE, NPU_CMD_DMABUF_IMPORT)

/**
 * DOC: npu models
 *
 * A model (since 1.10) is a list of commands the device keeps and runs as
 * a unit, as the vendor's device runs a captured graph (aclmdlRI): built
 * once by MODEL_CREATE from what a runtime recorded, run any number of
 * times by one NPU_OP_MODEL command each, on any stream of the context.
 * Running a model of a thousand commands is one small command to SUBMIT:
 * no command is read or checked again (a run allocates only its own
 * progress).
 *
 * A model's commands are COPY, MEMSET, WRITE_VALUE, WAIT_VALUE, TIMESTAMP,
 * COPY_2D, FILL32, PREFETCH, REDUCE and RANDOM with the fields and flags
 * SUBMIT allows them, but not NPU_CMD_DST_USER or NPU_CMD_SRC_USER (a
 * model holds no pageable memory pinned), and NPU_OP_SWITCH, which only
 * a model has. MODEL_CREATE checks each as SUBMIT would and reads what it
 * points to (a RANDOM's struct npu_random, a SWITCH's step indexes) once.
 * When the model runs, its commands run one after the other, but where a
 * SWITCH sends the run elsewhere (a loop runs until a SWITCH leaves it,
 * the stream is destroyed with NPU_STREAM_DESTROY_FORCE or the file is
 * closed; a STREAM_DESTROY without FORCE, or SUBMIT with NPU_SUBMIT_WAIT,
 * waits for it until a signal); a WAIT_VALUE waits as it would on its own;
 * the first command that fails ends the run with its error, which
 * STREAM_SYNC reports for the NPU_OP_MODEL command, with the commands
 * before it done.
 *
 * What a model names is looked up anew each time a command of it runs,
 * never held: device addresses as for any command, and a host operand's
 * registration too. So the memory a model names may be freed, unmapped or
 * unregistered while the model lives; a run that then reaches it faults
 * (-EIO; for a host operand no longer inside a registration, the fault's
 * address is that host address with NPU_FAULT_HOST), and a run after the
 * memory is back reaches the new memory at that address. A peer operand's
 * context is held by the model from MODEL_CREATE to its destruction, and
 * PEER_ENABLE is checked at each run, as for any peer command.
 *
 * A model is the context's, named by an id from the context's id space,
 * valid in this context only. MODEL_DESTROY takes the id away at once; an
 * NPU_OP_MODEL queued or running keeps the model until it completes.
 * Several runs of one model may be queued or run at once on different
 * streams: the commands are only read by a run, which keeps its own
 * progress. A context holds at most max_models models (module parameter,
 * default 4096), each of 1..NPU_MODEL_MAX_CMDS commands whose SWITCH
 * tables hold at most NPU_MODEL_MAX_CMDS entries together, accounted to
 * its memory cgroup; closing the file destroys them all.
 */

/**
 * NPU_MODEL_MAX_CMDS - most commands of one model (since 1.10)
 */
#define NPU_MODEL_MAX_CMDS	(1U << 20)

/**
 * struct npu_model_create - NPU_IOCTL_MODEL_CREATE: make a model of a list
 *	of commands (since 1.10; DOC: npu models)
 * @size: sizeof(struct npu_model_create)
 * @flags: must be 0
 * @count: number of commands, 1..NPU_MODEL_MAX_CMDS
 * @cmd_size: bytes of each element of @cmds, as SUBMIT's @cmd_size (0
 *            means NPU_CMD_SIZE_V1)
 * @cmds: user pointer to @count commands; read once, reusable at return
 * @model: out, non-zero, valid in this context only
 * @__reserved: must be 0
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: unknown @flags, @__reserved not 0, @count 0 or over
 *   NPU_MODEL_MAX_CMDS, a bad @cmd_size; a command SUBMIT would refuse
 *   with -EINVAL, or one a model cannot hold (WAIT_STREAM, COPY_BATCH,
 *   MODEL, a pageable operand); a SWITCH with a field not 0 that it does
 *   not use, @length 0 or over NPU_MODEL_MAX_CMDS, @src not 4-byte
 *   aligned, or a step index past @count; SWITCH tables of more than
 *   NPU_MODEL_MAX_CMDS entries together.
 * * %-E2BIG, %-EFAULT, %-ENXIO, %-EACCES, %-EBADF, %-EPERM: as SUBMIT's
 *   for a command; -EFAULT also for a SWITCH's array that cannot be
 *   read.
 * * %-ENOSPC: the context has max_models models, or every id is taken
 *   (before any command is read).
 * * %-ENOMEM: out of memory (the commands are accounted to the memory
 *   cgroup).
 * * %-EINTR: a fatal signal while the commands were read.
 */
struct npu_model_create {
	__u32 size;
	__u32 flags;
	__u32 count;
	__u32 cmd_size;
	__aligned_u64 cmds;
	__u32 model;
	__u32 __reserved;
};

#define NPU_IOCTL_MODEL_CREATE	_IO(NPU_TYPE, NPU_CMD_MODEL_CREATE)

/**
 * struct npu_model_destroy - NPU_IOCTL_MODEL_DESTROY: take a model's id
 *	away (since 1.10; DOC: npu models)
 * @size: sizeof(struct npu_model_destroy)
 * @model: from MODEL_CREATE
 * @flags: must be 0
 * @__reserved: must be 0
 *
 * Runs queued or running go on to their end; the model is freed after the
 * last. Errors (beyond the common ones): %-EINVAL unknown @flags or
 * @__reserved not 0, %-ENOENT no such model in this context (destroyed
 * already, or never one).
 */
struct npu_model_destroy {
	__u32 size;
	__u32 model;
	__u32 flags;
	__u32 __reserved;
};

#define NPU_IOCTL_MODEL_DESTROY	_IO(NPU_TYPE, NPU_CMD_MODEL_DESTROY)

/**
 * DOC: npu aperture
 *
 * The aperture (since 1.11) is the context's device VA space seen by a
 * CPU, as a GPU's BAR aperture shows its VRAM: APERTURE_OPEN answers a
 * file descriptor that any process holding it may mmap() (MAP_SHARED
 * only, never PROT_EXEC), but only at the identity: the mapping's file
 * offset must be its own address, so device VA v is CPU VA v. That is
 * where the simulated device's AI cores run kernels: a kernel
 * dereferences a device pointer and reaches exactly what the device's
 * engine would.
 *
 * Every CPU access goes through the translation and the rights checks of
 * the device's own engine. A page is mapped at its first access:
 * read-only where the mapping's access (SET_ACCESS) grants only reads,
 * writable where writes are allowed. The first access to a device page
 * never written backs it, a read too (it reads zeros), and charges it to
 * the context's memory cgroup, as the engine's first write does. What
 * the engine could not reach, the CPU cannot either: an unmapped VA, a
 * write without the right, a device page with an uncorrectable error
 * (BUS_MCEERR_AR where the kernel handles memory failures), a device
 * page no memory can back, the VA space of a context that shut down -
 * each is SIGBUS at that address, and nothing is touched. Mapped pages
 * follow every change: an UNMAP, a SET_ACCESS, a HOST_UNREGISTER (and so
 * a MEM_FREE's last mapping, the context's shutdown) takes them out of
 * every aperture mapping before it returns, so the next access
 * translates again. A page that turns bad while a CPU has it mapped
 * stays reachable until then (1.11).
 *
 * Through the aperture a CPU reaches device memory of the context
 * (MEM_ALLOC, SHARE_IMPORT, IPC_IMPORT, and a DMABUF_IMPORT of an npu
 * dma-buf of the same device, which is that memory), host memory
 * registered with a device VA (NPU_HOST_MAPPED) and mirrors (MIRROR_MAP).
 * An IPC import is reachable until its exporter revokes the key
 * (IPC_DESTROY, the free or unmap of the memory, the exporter's exit):
 * every page of it leaves every aperture before that returns, and later
 * accesses are SIGBUS. Not yet (SIGBUS, as an access the device cannot
 * make): other drivers' dma-bufs.
 *
 * Peers' memory (since 1.12): an address the context maps nothing at is
 * looked up in the other contexts of the context's process (same mm) on
 * the devices it enabled (PEER_ENABLE), as the device's engine reaches
 * them: with the mapping's peer right (SET_ACCESS with this device,
 * NPU_MAP_PEERS), from the peer's device memory. Such a page leaves the
 * aperture when the peer's mapping or its rights change, at the
 * PEER_DISABLE, and when either context shuts down; the next access
 * translates again. A peer's mirrors are not reached through another
 * device's aperture.
 *
 * A mirror's page is the context's process's own page, reached as the
 * engine reaches it: a page not faulted in for the device (or only for
 * reading, for a write) is faulted in from that process, as the engine's
 * fault does (as for NPU_OP_PREFETCH, a read of an anonymous page never
 * written brings in the zero page, a write the process's own page), and
 * the access is retried; what the engine would fault on, the CPU gets
 * SIGBUS for (not mapped in the process, written but not writable
 * there, the process gone). Mapped pages follow the process:
 * whatever makes the device's entry go (munmap, mprotect, MADV_DONTNEED,
 * COW, migration, reclaim, MIRROR_UNMAP) takes the page out of every
 * aperture mapping before it completes, so a CPU never reaches a page
 * the process no longer has there. The fault-in waits for the process's
 * own mm, so it is made only by a fault that may drop its lock and be
 * retried (a user access is); any other fails as an access the device
 * cannot make (the kernel's own fault-in for a futex: -EFAULT).
 *
 * The file holds the context, not its memory: after the context shuts
 * down (its process exits, it is closed, the carrier goes) every access
 * is SIGBUS. A context has at most 16 aperture files at a time (each
 * counts until its last fd and mapping are gone). mremap() cannot move
 * an aperture mapping (-EINVAL) nor grow it; fork() copies it like any
 * shared mapping, and core dumps leave it out.
 */

/**
 * enum npu_aperture_flags - APERTURE_OPEN's flags (since 1.11)
 * @NPU_APERTURE_CLOEXEC: the new fd is close-on-exec
 * @NPU_APERTURE_EXECUTOR: the file is for the context's executor (since
 *	1.13): when the last such file is released, the launches left
 *	fail, and later ones at once until another is opened (DOC: npu
 *	kernel launches)
 */
enum npu_aperture_flags {
	NPU_APERTURE_CLOEXEC	= 1U << 0,
	NPU_APERTURE_EXECUTOR	= 1U << 1,
};

#define NPU_APERTURE_FLAGS_MASK	((__u32)(NPU_APERTURE_CLOEXEC | \
					 NPU_APERTURE_EXECUTOR))

/**
 * struct npu_aperture_open - NPU_IOCTL_APERTURE_OPEN: a file of the
 *	context's device VA space for CPUs (since 1.11; DOC: npu aperture)
 * @size: sizeof(struct npu_aperture_open)
 * @flags: NPU_APERTURE_* bits (enum npu_aperture_flags)
 * @fd: out, a new file descriptor of the aperture
 * @__reserved: must be 0
 *
 * The fd enters the caller's table only once the struct is written back.
 *
 * Errors (beyond the common ones):
 *
 * * %-EINVAL: unknown @flags or @__reserved not 0.
 * * %-ENOSPC: the context has 16 aperture files.
 * * %-EMFILE: no free fd.
 */
struct npu_aperture_open {
	__u32 size;
	__u32 flags;
	__s32 fd;
	__u32 __reserved;
};

#define NPU_IOCTL_APERTURE_OPEN	_IO(NPU_TYPE, NPU_CMD_APERTURE_OPEN)

/**
 * DOC: npu kernel launches
 *
 * A kernel launch (since 1.12) is a stream command, NPU_OP_KERNEL, whose
 * struct npu_kernel names the kernel by a token the driver never
 * interprets (the runtime's binary and function), its block count, core
 * type and argument blob. The driver does not run kernels: an executor
 * process of the application does, on its core threads, with the
 * context's aperture mapped (DOC: npu aperture). The protocol between the
 * two is two ioctls on an aperture fd of the context.
 *
 * When the stream reaches a KERNEL command, the driver puts it on the
 * context's kernel queue as a job, wakes one thread waiting in
 * APERTURE_KERNEL_WAIT (since 1.13; 1.12 woke all; a poll() of the fd
 * sees it too), and the stream
 * waits (it holds no channel, as a WAIT_STREAM does; the context's other
 * streams go on). APERTURE_KERNEL_WAIT takes the oldest job: its id, the
 * fields of its struct npu_kernel, the stream and seqno it belongs to,
 * and its argument blob, copied into the executor's buffer. The executor
 * runs the blocks and reports with APERTURE_KERNEL_DONE: success, or a
 * fault (the device VA, NPU_FAULT_WRITE, NPU_FAULT_TRAP, NPU_FAULT_UCE).
 * The command then completes: 0, or -EIO with the fault recorded for
 * STREAM_SYNC (@fault_addr, @fault_flags with NPU_FAULT_AICORE; with
 * NPU_FAULT_UCE -EHWPOISON), and the stream goes on. A launch with a
 * @timeout_ms that is not DONE that long after it reached the head of
 * its stream ends with -ETIME. Streams, events, STOP_ON_FAULT and models
 * treat it as any other command.
 *
 * A stopped stream cancels its launch (a FORCE destroy, the context's
 * close or its process's exit, carrier removal, a reset), and a timeout
 * does too: a job not yet taken is dropped, a taken one is cancelled and
 * the executor is told by a WAIT event (NPU_KERNEL_EVENT_CANCEL with the
 * job's id), after which its DONE answers -ECANCELED. An executor that
 * goes away must not leave a stream waiting for good: every job taken
 * through an aperture file that is released (its last fd closed, as when
 * the executor dies) and not yet DONE fails, -EIO with NPU_FAULT_AICORE
 * and @fault_addr 0. An executor's runtime that opens the executor's file
 * with NPU_APERTURE_EXECUTOR (since 1.13) says more: when the context's
 * last file so opened is released, the jobs still queued fail the same
 * way, and so does every later launch, at once, until another is opened
 * (a new executor: from its open, before its first KERNEL_WAIT, launches
 * queue for it). Files opened without it change nothing of that. An
 * executor stops the blocks of a cancelled job.
 *
 * The blob (at most NPU_KERNEL_MAX_ARGS bytes) is read at SUBMIT (by
 * MODEL_CREATE for a model's launch) and held, accounted to the memory
 * cgroup, until the command completes (the model goes); a context holds
 * at most max_kernel_args bytes of blobs (module parameter, default 64
 * MiB; past it SUBMIT and MODEL_CREATE fail with -ENOMEM). The jobs a
 * context's executor took and that were cancelled are remembered for
 * its DONE up to 1024; past that the oldest is forgotten (its DONE
 * answers -ENOENT).
 */

/**
 * enum npu_kernel_flags - struct npu_kernel's flags (since 1.12)
 * @NPU_KERNEL_ARGS_DEVICE: the argument blob is already at @args_va in
 *	device memory (@args_len bytes); @args is 0 and nothing is copied
 */
enum npu_kernel_flags {
	NPU_KERNEL_ARGS_DEVICE	= 1U << 0,
};

#define NPU_KERNEL_FLAGS_MASK	((__u32)NPU_KERNEL_ARGS_DEVICE)

/**
 * enum npu_kernel_core - the cores a kernel runs on (since 1.12)
 * @NPU_KERNEL_CORE_VECTOR: vector cores (AIV)
 * @NPU_KERNEL_CORE_CUBE: cube cores (AIC)
 * @NPU_KERNEL_CORE_MIX: both (a mixed kernel)
 */
enum npu_kernel_core {
	NPU_KERNEL_CORE_VECTOR	= 0,
	NPU_KERNEL_CORE_CUBE	= 1,
	NPU_KERNEL_CORE_MIX	= 2,
};

/**
 * enum npu_kernel_sat - a kernel's floating-point overflow mode (since 1.12)
 * @NPU_KERNEL_SAT_SATURATION: results saturate
 * @NPU_KERNEL_SAT_INFNAN: results overflow to inf and NaN
 */
enum npu_kernel_sat {
	NPU_KERNEL_SAT_SATURATION = 0,
	NPU_KERNEL_SAT_INFNAN	= 1,
};

/**
 * NPU_KERNEL_MAX_ARGS - the longest argument blob of a launch (since 1.12)
 */
#define NPU_KERNEL_MAX_ARGS	(64U * 1024)

/**
 * NPU_KERNEL_MAX_BLOCKS - the most blocks of a launch (since 1.12)
 */
#define NPU_KERNEL_MAX_BLOCKS	65535U

/**
 * struct npu_kernel - what an NPU_OP_KERNEL launches (since 1.12; DOC:
 *	npu kernel launches)
 * @func: the kernel's token, the runtime's, handed to the executor as is
 * @block_dim: blocks, 1..NPU_KERNEL_MAX_BLOCKS
 * @core_type: NPU_KERNEL_CORE_* (enum npu_kernel_core)
 * @flags: NPU_KERNEL_* bits (enum npu_kernel_flags)
 * @args_len: bytes of the argument blob, at most NPU_KERNEL_MAX_ARGS
 * @args: user pointer to the blob, read at SUBMIT; 0 with
 *	NPU_KERNEL_ARGS_DEVICE or when @args_len is 0
 * @args_va: device VA, 8-byte aligned, where the executor stores the blob
 *	and which the kernel gets (with NPU_KERNEL_ARGS_DEVICE: where it is
 *	already); not 0 when @args_len is not
 * @dump_va: device VA of the printf/dump area, @dump_size bytes per
 *	block, or 0 (then @dump_size is 0)
 * @dump_size: bytes of @dump_va per block
 * @sat_mode: NPU_KERNEL_SAT_* (enum npu_kernel_sat)
 * @overflow_va: device VA of the overflow status words, or 0
 * @timeout_ms: the launch fails with -ETIME this long after it reached
 *	the head of its stream, if not DONE; 0: no limit
 * @__reserved: 0
 *
 * SUBMIT (and MODEL_CREATE) refuse with -EINVAL an unknown flag, core
 * type or mode, @__reserved not 0, @block_dim 0 or over the maximum,
 * @args_len over NPU_KERNEL_MAX_ARGS, @args not 0 where it must be, an
 * @args_va 0 or misaligned where a blob goes, a @dump_size without
 * @dump_va or the other way round, and a range that wraps; -EFAULT for
 * a blob that cannot be read; -ENOMEM past max_kernel_args.
 */
struct npu_kernel {
	__aligned_u64 func;
	__u32 block_dim;
	__u32 core_type;
	__u32 flags;
	__u32 args_len;
	__aligned_u64 args;
	__aligned_u64 args_va;
	__aligned_u64 dump_va;
	__u32 dump_size;
	__u32 sat_mode;
	__aligned_u64 overflow_va;
	__u32 timeout_ms;
	__u32 __reserved;
};

/**
 * NPU_KERNEL_SIZE_V1 - struct npu_kernel as 1.12 has it, the least
 *	KERNEL's @value may be
 */
#define NPU_KERNEL_SIZE_V1	72

/**
 * enum npu_kernel_event - what APERTURE_KERNEL_WAIT answers (since 1.12)
 * @NPU_KERNEL_EVENT_RUN: a job to run, now taken by the caller's file
 * @NPU_KERNEL_EVENT_CANCEL: job @job, taken earlier, is cancelled: stop
 *	it; its DONE answers -ECANCELED. Only @job is set.
 */
enum npu_kernel_event {
	NPU_KERNEL_EVENT_RUN	= 1,
	NPU_KERNEL_EVENT_CANCEL	= 2,
};

/**
 * struct npu_kernel_wait - NPU_IOCTL_APERTURE_KERNEL_WAIT: take the next
 *	kernel job of the context, or a cancel (since 1.12; on an aperture
 *	fd; DOC: npu kernel launches)
 * @size: sizeof(struct npu_kernel_wait)
 * @flags: must be 0
 * @args_buf: user pointer to a buffer for the job's argument blob
 * @args_buf_len: its bytes (NPU_KERNEL_MAX_ARGS holds any blob)
 * @event: out, NPU_KERNEL_EVENT_* (enum npu_kernel_event)
 * @job: out, the job's id (non-zero, unique in the context)
 * @func: out, the launch's struct npu_kernel fields, from here ...
 * @block_dim: out
 * @core_type: out
 * @kernel_flags: out, struct npu_kernel's @flags
 * @args_len: out, bytes of the blob (in @args_buf unless
 *	NPU_KERNEL_ARGS_DEVICE)
 * @args_va: out
 * @dump_va: out
 * @dump_size: out
 * @sat_mode: out
 * @overflow_va: out
 * @timeout_ms: out, ... to here
 * @stream: out, the stream of the command
 * @seqno: out, its seqno there
 *
 * Cancels come first, then jobs, oldest first. Blocks until there is one
 * (a signal: -EINTR, restarted as the signal's SA_RESTART says), unless
 * the file is O_NONBLOCK: then -EAGAIN. poll() says EPOLLIN when one is
 * there (and EPOLLHUP once the context shut down).
 *
 * Errors (beyond the common ones, but not -EPERM: any process holding
 * the fd may call):
 *
 * * %-EINVAL: @flags not 0.
 * * %-ENOSPC: the oldest job's blob is longer than @args_buf_len; it
 *   stays queued.
 * * %-EFAULT: @args_buf cannot be written; the job is not taken.
 * * %-EAGAIN: nothing there and the file is O_NONBLOCK.
 * * %-EPIPE: the context shut down (its file closed, its process exited).
 * * %-EINTR: a signal.
 */
struct npu_kernel_wait {
	__u32 size;
	__u32 flags;
	__aligned_u64 args_buf;
	__u32 args_buf_len;
	__u32 event;
	__aligned_u64 job;
	__aligned_u64 func;
	__u32 block_dim;
	__u32 core_type;
	__u32 kernel_flags;
	__u32 args_len;
	__aligned_u64 args_va;
	__aligned_u64 dump_va;
	__u32 dump_size;
	__u32 sat_mode;
	__aligned_u64 overflow_va;
	__u32 timeout_ms;
	__u32 stream;
	__aligned_u64 seqno;
};

#define NPU_IOCTL_APERTURE_KERNEL_WAIT _IO(NPU_TYPE, NPU_CMD_APERTURE_KERNEL_WAIT)

/**
 * enum npu_kernel_status - how a kernel job ended, APERTURE_KERNEL_DONE's
 *	@status (since 1.12)
 * @NPU_KERNEL_STATUS_OK: every block ran to its end
 * @NPU_KERNEL_STATUS_FAULT: a block faulted: @fault_addr, @fault_flags
 */
enum npu_kernel_status {
	NPU_KERNEL_STATUS_OK	= 0,
	NPU_KERNEL_STATUS_FAULT	= 1,
};

/**
 * NPU_KERNEL_DONE_FAULT_MASK - the NPU_FAULT_* bits a DONE may report
 */
#define NPU_KERNEL_DONE_FAULT_MASK ((__u32)(NPU_FAULT_WRITE | NPU_FAULT_TRAP | \
					    NPU_FAULT_UCE))

/**
 * struct npu_kernel_done - NPU_IOCTL_APERTURE_KERNEL_DONE: a job taken by
 *	APERTURE_KERNEL_WAIT is over (since 1.12; on an aperture fd; DOC:
 *	npu kernel launches)
 * @size: sizeof(struct npu_kernel_done)
 * @status: NPU_KERNEL_STATUS_* (enum npu_kernel_status)
 * @job: the job's id, from WAIT
 * @fault_addr: for a fault, the device VA (0 if none, as for a trap);
 *	else 0
 * @fault_flags: for a fault, NPU_FAULT_WRITE, NPU_FAULT_TRAP and
 *	NPU_FAULT_UCE bits (NPU_KERNEL_DONE_FAULT_MASK); else 0
 * @__reserved: must be 0
 * @busy_ns: core time the job took, nanoseconds summed over its blocks
 *	(accounting only)
 *
 * The command completes: 0, or -EIO (-EHWPOISON with NPU_FAULT_UCE) with
 * @fault_addr and @fault_flags | NPU_FAULT_AICORE for STREAM_SYNC. Any
 * file of the context's apertures may report a job.
 *
 * Errors (beyond the common ones, but not -EPERM):
 *
 * * %-EINVAL: an unknown @status, @fault_flags outside the mask, a
 *   @fault_addr or @fault_flags with NPU_KERNEL_STATUS_OK, @__reserved
 *   not 0.
 * * %-ENOENT: no job of that id was taken (never, or it is over).
 * * %-ECANCELED: the job was cancelled (its WAIT event came or comes):
 *   nothing is recorded.
 */
struct npu_kernel_done {
	__u32 size;
	__u32 status;
	__aligned_u64 job;
	__aligned_u64 fault_addr;
	__u32 fault_flags;
	__u32 __reserved;
	__aligned_u64 busy_ns;
};

#define NPU_IOCTL_APERTURE_KERNEL_DONE _IO(NPU_TYPE, NPU_CMD_APERTURE_KERNEL_DONE)

#endif /* _UAPI_NPU_H */
