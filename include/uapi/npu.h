/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * npu: accelerator memory driver, user API.
 *
 * Conventions (Documentation/uapi.rst):
 *  - every argument struct starts with __u32 size, filled by the caller
 *    with sizeof(struct) as it knows it; the kernel accepts a shorter
 *    struct down to the first release's size and a longer one whose
 *    extra bytes are zero (else -E2BIG);
 *  - every flags field is checked against its mask (-EINVAL);
 *  - padding and reserved fields must be zero (-EINVAL);
 *  - pointers travel as __u64;
 *  - an unknown ioctl number returns -ENOTTY;
 *  - a context serves only the process that opened it (its mm): an ioctl
 *    from another process, such as a child after fork, returns -EPERM.
 *
 * One open file of /dev/npuN is one context on device N: handles,
 * reservations, registrations and streams belong to it and are released
 * when it is closed. Once the device's PCI carrier is removed, every
 * ioctl returns -ENODEV.
 */
#ifndef _UAPI_NPU_H
#define _UAPI_NPU_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define NPU_DRIVER_VERSION	0x00010400	/* 1.4.0: major << 16 | minor << 8 | patch */

#define NPU_TYPE		0xCE
#define NPU_CMD_BASE		0x80

enum {
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
};

/* Device capabilities reported by GET_INFO. */
#define NPU_CAP_IOMMU		(1U << 0)	/* host DMA is translated by an IOMMU domain */
#define NPU_CAP_PCI_CARRIER	(1U << 1)	/* simulated NPU sits on a PCI function */

/* Page sizes the device MMU and the allocator support. */
#define NPU_PAGE_4K		(1ULL << 12)
#define NPU_PAGE_2M		(1ULL << 21)
#define NPU_PAGE_1G		(1ULL << 30)

/* Longest SoC name GET_INFO reports, its NUL included. */
#define NPU_SOC_NAME_LEN	32

/**
 * struct npu_get_info - describe the device behind this file
 * @size: sizeof(struct npu_get_info); a caller's shorter struct (down to
 *        @va_end, the first release's) gets only the fields it holds
 * @flags: must be 0
 * @device_index: N of /dev/npuN
 * @driver_version: NPU_DRIVER_VERSION of the running module
 * @caps: NPU_CAP_* bits
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
 */
struct npu_get_info {
	__u32 size;
	__u32 flags;
	__u32 device_index;
	__u32 driver_version;
	__u32 caps;
	__u32 __reserved;
	__u64 mem_total;
	__u64 mem_used;
	__u64 page_sizes;
	__u64 va_start;
	__u64 va_end;
	__u32 tgid;
	__u32 num_devices;
	__u32 pci_domain;
	__u16 pci_bus;
	__u16 pci_devfn;
	__u32 cube_cores;
	__u32 vector_cores;
	__u8 uuid[16];
	char soc_name[NPU_SOC_NAME_LEN];
	__u64 mem_peak;
	__u64 clock_ns;
};

#define NPU_IOCTL_GET_INFO	_IO(NPU_TYPE, NPU_CMD_GET_INFO)

/**
 * struct npu_mem_alloc - allocate a physical handle in device memory
 * @size: sizeof(struct npu_mem_alloc)
 * @flags: must be 0
 * @length: bytes, a non-zero multiple of @page_size
 * @page_size: NPU_PAGE_4K, NPU_PAGE_2M or NPU_PAGE_1G: the granule the
 *             memory is allocated and mapped in
 * @handle: out, non-zero, valid in this context only
 * @__reserved: must be 0
 *
 * Errors: -EINVAL bad size/page size/flags, -ENOMEM device memory or the
 * context's ctx_mem_limit exhausted, -ENOSPC the context has max_handles.
 */
struct npu_mem_alloc {
	__u32 size;
	__u32 flags;
	__u64 length;
	__u64 page_size;
	__u32 handle;
	__u32 __reserved;
};

#define NPU_IOCTL_MEM_ALLOC	_IO(NPU_TYPE, NPU_CMD_MEM_ALLOC)

/**
 * struct npu_mem_free - drop this context's reference to a handle
 * @size: sizeof(struct npu_mem_free)
 * @handle: from MEM_ALLOC
 *
 * The memory itself is freed when its last mapping is gone.
 * Errors: -ENOENT unknown handle.
 */
struct npu_mem_free {
	__u32 size;
	__u32 handle;
};

#define NPU_IOCTL_MEM_FREE	_IO(NPU_TYPE, NPU_CMD_MEM_FREE)

/**
 * struct npu_va_range - a device virtual address range
 * @size: sizeof(struct npu_va_range)
 * @flags: must be 0
 * @addr: start, 4 KiB aligned, inside [va_start, va_end)
 * @length: bytes, a non-zero multiple of 4 KiB (ignored by VA_RELEASE,
 *          which takes the range that starts at @addr)
 *
 * VA_RESERVE errors: -EINVAL misaligned/zero/wrapping/outside the window,
 * -EADDRINUSE overlaps a reservation or a mapped host registration.
 * VA_RELEASE errors: -ENOENT no reservation starts at @addr, -EBUSY still
 * has mappings.
 */
struct npu_va_range {
	__u32 size;
	__u32 flags;
	__u64 addr;
	__u64 length;
};

#define NPU_IOCTL_VA_RESERVE	_IO(NPU_TYPE, NPU_CMD_VA_RESERVE)
#define NPU_IOCTL_VA_RELEASE	_IO(NPU_TYPE, NPU_CMD_VA_RELEASE)

/* MAP flags */
#define NPU_MAP_PEERS		(1U << 0)	/* RW for peers that enabled it (since 1.3) */
#define NPU_MAP_FLAGS_MASK	NPU_MAP_PEERS

/**
 * struct npu_map - map a whole physical handle at a reserved address
 * @size: sizeof(struct npu_map)
 * @flags: 0 or NPU_MAP_PEERS (since 1.3)
 * @addr: device VA inside one reservation, aligned to the handle's page size
 * @length: must equal the handle's length
 * @offset: must be 0
 * @handle: from MEM_ALLOC
 * @__reserved: must be 0
 *
 * The mapping starts with no access (NPU_ACCESS_NONE): SET_ACCESS grants it.
 * A peer device's DMA engine reaches it only where SET_ACCESS granted
 * that device, or, with NPU_MAP_PEERS, read-write from every context on
 * another device that PEER_ENABLE'd this one (no grant needed; GET_ACCESS
 * answers NPU_ACCESS_READWRITE for every peer device); either way only
 * while that context's peer access is enabled.
 * A handle may be mapped at several addresses; each mapping keeps it alive.
 * Errors: -ENOENT unknown handle or no reservation holds the range,
 * -EINVAL size/offset/alignment, -EADDRINUSE overlaps a mapping.
 */
struct npu_map {
	__u32 size;
	__u32 flags;
	__u64 addr;
	__u64 length;
	__u64 offset;
	__u32 handle;
	__u32 __reserved;
};

#define NPU_IOCTL_MAP		_IO(NPU_TYPE, NPU_CMD_MAP)

/**
 * struct npu_unmap - remove the mapping that starts at @addr
 * @size: sizeof(struct npu_unmap)
 * @flags: must be 0
 * @addr: start of a mapping made with MAP
 *
 * Errors: -ENOENT no mapping starts at @addr.
 */
struct npu_unmap {
	__u32 size;
	__u32 flags;
	__u64 addr;
};

#define NPU_IOCTL_UNMAP		_IO(NPU_TYPE, NPU_CMD_UNMAP)

/* Device access rights; the values are aclrtMemAccessFlags'. */
#define NPU_ACCESS_NONE		0x0
#define NPU_ACCESS_READ		0x1
#define NPU_ACCESS_READWRITE	0x3

/**
 * struct npu_access - set or read a device's access to mapped memory
 * @size: sizeof(struct npu_access)
 * @flags: must be 0
 * @addr: SET_ACCESS: start, 4 KiB aligned; GET_ACCESS: any byte of a
 *        mapping
 * @length: SET_ACCESS: non-zero multiple of 4 KiB; every byte must be
 *          mapped, and the range must cover whole mappings; GET_ACCESS: 0
 * @device: the device the rights are for: this file's device, or a peer
 *          device whose DMA engine may then reach the memory
 * @access: NPU_ACCESS_* (in for SET_ACCESS, out for GET_ACCESS)
 *
 * Errors: -ENOENT some of the range is not mapped, -EINVAL bad access
 * value, a range cutting a mapping, or a peer device for host memory,
 * -EACCES READWRITE on a read-only host registration, -ENODEV no such
 * device.
 */
struct npu_access {
	__u32 size;
	__u32 flags;
	__u64 addr;
	__u64 length;
	__u32 device;
	__u32 access;
};

#define NPU_IOCTL_SET_ACCESS	_IO(NPU_TYPE, NPU_CMD_SET_ACCESS)
#define NPU_IOCTL_GET_ACCESS	_IO(NPU_TYPE, NPU_CMD_GET_ACCESS)

/* HOST_REGISTER flags */
#define NPU_HOST_READONLY	(1U << 0)	/* pin without write; device writes fault */
#define NPU_HOST_MAPPED		(1U << 1)	/* also map at @dev_addr for the device */
#define NPU_HOST_FLAGS_MASK	(NPU_HOST_READONLY | NPU_HOST_MAPPED)

/* Longest registration: 1 TiB (2^28 pages). */
#define NPU_HOST_MAX_LENGTH	(1ULL << 40)

/**
 * struct npu_host_register - pin user memory and map it for device DMA
 * @size: sizeof(struct npu_host_register)
 * @flags: NPU_HOST_* bits
 * @addr: user address, 4 KiB aligned
 * @length: bytes, non-zero multiple of 4 KiB, no wrap, at most
 *          NPU_HOST_MAX_LENGTH
 * @dev_addr: with NPU_HOST_MAPPED: the device VA to map it at (4 KiB
 *            aligned, may equal @addr); else must be 0
 *
 * Pages are pinned FOLL_LONGTERM and charged to the calling user's
 * RLIMIT_MEMLOCK (locked_vm, as io_uring and iommufd do; they also show in
 * the process's VmPin) unless the caller has CAP_IPC_LOCK. They are
 * released when the process's address space goes, even if the file stays
 * open. A READONLY registration of a writable private mapping pins the
 * process's own copy of each page, so it sees the process's later writes.
 * Errors: -EEXIST overlaps a registration, -EADDRINUSE @dev_addr overlaps
 * device VA in use, -EFAULT unmapped user range, or a writable
 * registration of a shared file mapping that is written back (ext4, xfs;
 * shmem and hugetlbfs are fine), -ENOMEM over RLIMIT_MEMLOCK, -EINVAL bad
 * flags/alignment/size or longer than NPU_HOST_MAX_LENGTH, others as
 * pin_user_pages() answers.
 */
struct npu_host_register {
	__u32 size;
	__u32 flags;
	__u64 addr;
	__u64 length;
	__u64 dev_addr;
};

#define NPU_IOCTL_HOST_REGISTER	_IO(NPU_TYPE, NPU_CMD_HOST_REGISTER)

/**
 * struct npu_host_unregister - unpin a registration
 * @size: sizeof(struct npu_host_unregister)
 * @flags: must be 0
 * @addr: the @addr it was registered with
 *
 * Waits for the commands that name the registration as a host operand
 * (NPU_CMD_SRC_HOST/NPU_CMD_DST_HOST). A command that reaches it through
 * its device VA faults once the mapping is gone, as after UNMAP.
 * Errors: -ENXIO no registration starts at @addr.
 */
struct npu_host_unregister {
	__u32 size;
	__u32 flags;
	__u64 addr;
};

#define NPU_IOCTL_HOST_UNREGISTER _IO(NPU_TYPE, NPU_CMD_HOST_UNREGISTER)

/* ADDR_QUERY kinds */
#define NPU_ADDR_NONE		0	/* neither device VA nor registered */
#define NPU_ADDR_DEVICE		1	/* inside a device VA reservation */
#define NPU_ADDR_HOST		2	/* inside a host registration */
#define NPU_ADDR_MIRROR		3	/* inside a mirror: device VA == host VA (since 1.4) */

/**
 * struct npu_addr_query - what is at an address
 * @size: sizeof(struct npu_addr_query)
 * @flags: must be 0
 * @addr: in, any address
 * @kind: out, NPU_ADDR_*
 * @access: out, NPU_ACCESS_* of this device to the byte at @addr
 * @base: out, start of the reservation or registration
 * @length: out, its length
 * @dev_addr: out, for NPU_ADDR_HOST with NPU_HOST_MAPPED: device VA of
 *            @addr; else 0
 * @page_size: out, the page size of the mapping or registration holding
 *             @addr (4 KiB for host memory); 0 if neither
 * @mapped: out, 1 if @addr is mapped for the device
 * @host_flags: out, NPU_HOST_* of a registration
 *
 * Never fails for an unknown address: it answers NPU_ADDR_NONE.
 */
struct npu_addr_query {
	__u32 size;
	__u32 flags;
	__u64 addr;
	__u32 kind;
	__u32 access;
	__u64 base;
	__u64 length;
	__u64 dev_addr;
	__u64 page_size;
	__u32 mapped;
	__u32 host_flags;
};

#define NPU_IOCTL_ADDR_QUERY	_IO(NPU_TYPE, NPU_CMD_ADDR_QUERY)

/**
 * struct npu_stream_create - create a DMA command queue
 * @size: sizeof(struct npu_stream_create)
 * @flags: must be 0
 * @stream: out, non-zero stream id, allocated cyclically
 * @__reserved: must be 0
 *
 * Errors: -ENOSPC the context has max_streams streams.
 */
struct npu_stream_create {
	__u32 size;
	__u32 flags;
	__u32 stream;
	__u32 __reserved;
};

#define NPU_IOCTL_STREAM_CREATE	_IO(NPU_TYPE, NPU_CMD_STREAM_CREATE)

#define NPU_STREAM_DESTROY_FORCE (1U << 0)	/* abort queued commands, do not wait */

/**
 * struct npu_stream_destroy - destroy a stream
 * @size: sizeof(struct npu_stream_destroy)
 * @flags: 0 (wait for queued commands) or NPU_STREAM_DESTROY_FORCE
 * @stream: from STREAM_CREATE
 * @__reserved: must be 0
 *
 * Errors: -ENOENT unknown stream.
 */
struct npu_stream_destroy {
	__u32 size;
	__u32 flags;
	__u32 stream;
	__u32 __reserved;
};

#define NPU_IOCTL_STREAM_DESTROY _IO(NPU_TYPE, NPU_CMD_STREAM_DESTROY)

/* Command opcodes */
#define NPU_OP_COPY		1	/* length bytes from src to dst */
#define NPU_OP_MEMSET		2	/* length bytes of (u8)value at dst */
#define NPU_OP_WRITE_VALUE	3	/* u64 value at dst (8-byte aligned) */
#define NPU_OP_WAIT_VALUE	4	/* wait until the u64 at src satisfies NPU_WAIT_* */
/* Wait until stream @src completed seqno @value, or was destroyed. */
#define NPU_OP_WAIT_STREAM	5
/* u64 device clock at dst (8-byte aligned) when the engine runs it (since 1.3) */
#define NPU_OP_TIMESTAMP	6
/* height rows of length bytes, each row at its pitch (since 1.4) */
#define NPU_OP_COPY_2D		7
/* length bytes of the u32 pattern value at dst, both 4-byte aligned (since 1.4) */
#define NPU_OP_FILL32		8
/* Fault [dst, dst + length) of this context's device VA in for reading (since 1.4) */
#define NPU_OP_PREFETCH		9

/*
 * Command flags: address spaces of dst and src for COPY/COPY_2D/MEMSET/
 * FILL32/WRITE_VALUE/TIMESTAMP/WAIT_VALUE
 */
#define NPU_CMD_DST_HOST	(1U << 0)	/* dst is a user address inside a registration */
#define NPU_CMD_SRC_HOST	(1U << 1)	/* src is a user address inside a registration */
/* COPY and COPY_2D only: dst or src is a device VA of the peer context whose fd is @value */
#define NPU_CMD_DST_PEER	(1U << 2)
#define NPU_CMD_SRC_PEER	(1U << 3)
/* WAIT_VALUE conditions (exactly one) */
#define NPU_WAIT_GEQ		(0U << 4)	/* *(u64 *)src >= value */
#define NPU_WAIT_EQ		(1U << 4)
#define NPU_WAIT_AND		(2U << 4)	/* (*src & value) != 0 */
#define NPU_WAIT_NOR		(3U << 4)	/* ~(*src | value) != 0 */
#define NPU_WAIT_COND_MASK	(3U << 4)
/*
 * dst or src is pageable memory of the calling process at that user
 * address (since 1.4): pinned at SUBMIT for the command only; see
 * struct npu_submit. Instead of NPU_CMD_*_HOST/NPU_CMD_*_PEER for the same
 * operand: DST_USER for COPY, COPY_2D, MEMSET, FILL32, WRITE_VALUE and
 * TIMESTAMP, SRC_USER for COPY, COPY_2D and WAIT_VALUE.
 */
#define NPU_CMD_DST_USER	(1U << 6)
#define NPU_CMD_SRC_USER	(1U << 7)

/**
 * struct npu_cmd - one command for a stream
 * @op: NPU_OP_*
 * @flags: NPU_CMD_* / NPU_WAIT_* as the op allows; others must be 0
 * @dst: destination address (device VA unless NPU_CMD_DST_HOST)
 * @src: source address (device VA unless NPU_CMD_SRC_HOST), or a stream id
 * @length: bytes for COPY/MEMSET/FILL32, bytes of each row for COPY_2D;
 *          for WAIT_STREAM a limit in milliseconds (0: none; since 1.3);
 *          0 for the others
 * @value: fill byte, u32 fill pattern (FILL32), value to write or compare,
 *         seqno to wait for, or for a COPY or COPY_2D with NPU_CMD_*_PEER
 *         the fd of the peer context
 * @dst_pitch: COPY_2D: bytes from the start of one destination row to the
 *             next, at least @length; 0 for the other ops (since 1.4)
 * @src_pitch: COPY_2D: the same for the source rows (since 1.4)
 * @height: COPY_2D: rows, 1..NPU_COPY_2D_MAX_HEIGHT; 0 for the other ops
 *          (since 1.4)
 *
 * The struct grew in 1.4 (@dst_pitch, @src_pitch, @height): SUBMIT's
 * @cmd_size says which layout the caller's array has; the 1.3 struct
 * ended at @value (NPU_CMD_SIZE_V1 bytes).
 *
 * NPU_OP_COPY_2D (since 1.4) copies @height rows of @length bytes: row i
 * from @src + i * @src_pitch to @dst + i * @dst_pitch, in one command
 * (one seqno, one completion; a fault fails the whole command, with the
 * rows before it copied). Both pitches must be at least @length, and
 * neither strided span, (@height - 1) * pitch + @length bytes from its
 * start, may wrap. The flags are COPY's: a host operand's whole span must
 * lie inside one registration (else -ENXIO), a peer operand is a device VA
 * of the peer context whose fd is @value.
 *
 * NPU_OP_FILL32 (since 1.4) writes the 32-bit pattern @value (at most
 * U32_MAX), in the CPU's byte order, into @length / 4 consecutive words
 * at @dst. @dst and @length must be 4-byte aligned, @length non-zero;
 * @src must be 0; NPU_CMD_DST_HOST is the only flag.
 *
 * NPU_OP_TIMESTAMP (since 1.3) writes the device clock, nanoseconds since
 * the device was created (CLOCK_MONOTONIC; GET_INFO's @clock_ns reads the
 * same clock), as a __u64 at @dst, read when the engine runs the command,
 * after every earlier command of the stream completed: two of them on a
 * stream time the commands between. @dst is a device VA or, with
 * NPU_CMD_DST_HOST (the only flag), a user address inside a writable
 * registration, 8-byte aligned; @src, @length and @value must be 0.
 *
 * A WAIT_STREAM with a @length limit that is still not satisfied that
 * many milliseconds after it reached the head of its stream fails with
 * -ETIME (STREAM_SYNC reports it as a command's error; the stream goes
 * on, or in NPU_STREAM_STOP_ON_FAULT mode stops) (since 1.3).
 *
 * A WAIT_STREAM that is not satisfied when it reaches the head of its
 * stream holds no worker; the stream it waits for wakes it as soon as it
 * completes the awaited command, or is destroyed or aborted (since 1.3;
 * before, the wait looked again every jiffy). A WAIT_VALUE looks again
 * every jiffy.
 */
struct npu_cmd {
	__u32 op;
	__u32 flags;
	__u64 dst;
	__u64 src;
	__u64 length;
	__u64 value;
	__u64 dst_pitch;
	__u64 src_pitch;
	__u64 height;
};

/* struct npu_cmd as 1.3 knew it, up to @value; SUBMIT's @cmd_size 0 means it */
#define NPU_CMD_SIZE_V1		40

/* Most rows of one COPY_2D (since 1.4) */
#define NPU_COPY_2D_MAX_HEIGHT	(1U << 24)

/* Most commands of one SUBMIT: 256 before 1.4 */
#define NPU_SUBMIT_MAX_CMDS	4096

/**
 * struct npu_submit - queue commands on a stream
 * @size: sizeof(struct npu_submit); the first release's struct ended at
 *        @seqno and still works (its commands are NPU_CMD_SIZE_V1 bytes)
 * @flags: must be 0
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
 * Commands are checked before any is queued; a host operand must lie
 * inside one registration (else -ENXIO) and is held until the command
 * completes. Device addresses are
 * checked when the command runs: a fault fails the command and is
 * reported by STREAM_SYNC.
 * A peer operand (NPU_CMD_DST_PEER/NPU_CMD_SRC_PEER) is a device VA in
 * another context of this process, on another device, named by its fd;
 * it is reached only if PEER_ENABLE allowed that device, both at submit
 * and when the command runs (a PEER_DISABLE in between makes it fault),
 * and the peer's mapping grants this device access (SET_ACCESS with
 * @device = this one, or a mapping made with NPU_MAP_PEERS).
 * With max_queued commands of the context not yet complete, SUBMIT waits
 * for room as a full ring would.
 * A pageable operand (NPU_CMD_DST_USER/NPU_CMD_SRC_USER, since 1.4) is any
 * user memory of the caller: anonymous, file-backed or shared, read-only
 * for a source. SUBMIT pins its pages (not FOLL_LONGTERM: not charged to
 * RLIMIT_MEMLOCK nor shown in VmPin or VmLck) and maps them for the
 * device; the command holds them until it completes, faults or is dropped
 * (FORCE destroy, close, exit, carrier removal), then they are unpinned
 * (marked dirty for a destination). A destination is pinned for write:
 * a private page shared with a child after fork gets its own copy as a
 * CPU write would. The pages stay the command's even if the process
 * unmaps the range meanwhile: the command completes into or from them.
 * The pages the context's queued commands hold this way are bounded by
 * the max_user_pin module parameter (bytes, whole pages counted); a
 * SUBMIT that needs room waits as for max_queued (-EINTR on a signal,
 * -ENOENT once the stream is aborted).
 * Errors: -ENOENT unknown stream, -EINVAL bad command (for a pageable
 * operand also: longer than NPU_HOST_MAX_LENGTH) or @cmd_size, -E2BIG
 * non-zero bytes past the known struct npu_cmd or a @cmd_size over 4096,
 * -ENXIO host operand not registered, -EACCES device write to a
 * read-only registration, -EBADF a peer fd that is not an npu context of
 * this process on another device, -EPERM peer access to that device not
 * enabled, -EINTR a signal while waiting for room, -EFAULT a pageable
 * operand not mapped, beyond the user address space, or (a destination)
 * not writable, -ENOMEM the SUBMIT's pageable operands need more than
 * max_user_pin by themselves, -EOPNOTSUPP the device would reach pageable
 * memory only through bounce buffers (as for HOST_REGISTER).
 */
struct npu_submit {
	__u32 size;
	__u32 flags;
	__u32 stream;
	__u32 count;
	__u64 cmds;
	__u64 seqno;
	__u32 cmd_size;
	__u32 __reserved;
};

#define NPU_IOCTL_SUBMIT	_IO(NPU_TYPE, NPU_CMD_SUBMIT)

/**
 * struct npu_stream_sync - wait for a stream
 * @size: sizeof(struct npu_stream_sync)
 * @flags: must be 0
 * @stream: from STREAM_CREATE
 * @timeout_ms: -1 waits forever, 0 polls
 * @seqno: wait until this command completed; 0 means all queued so far
 *
 * Returns 0, or -EIO if a command up to @seqno faulted (the first fault
 * not yet reported is reported once; the device log names every one),
 * -ETIME in the same way if it was a WAIT_STREAM that ran out of its
 * limit (since 1.3),
 * -ECANCELED if one was dropped unrun (FORCE destroy, carrier removal,
 * or, on a stream in NPU_STREAM_STOP_ON_FAULT mode, any command after the
 * fault, once the fault was reported: every such sync says so again),
 * -ETIMEDOUT, -EINTR on a signal (never restarted: call again with what
 * is left of the timeout), -ENOENT unknown stream, -EINVAL a @seqno not
 * yet submitted.
 */
struct npu_stream_sync {
	__u32 size;
	__u32 flags;
	__u32 stream;
	__s32 timeout_ms;
	__u64 seqno;
};

#define NPU_IOCTL_STREAM_SYNC	_IO(NPU_TYPE, NPU_CMD_STREAM_SYNC)

/* SHARE_EXPORT flags */
#define NPU_SHARE_ANY_PID	(1U << 0)	/* no pid list (euid still checked) */

/**
 * struct npu_share_export - make a physical handle importable by others
 * @size: sizeof(struct npu_share_export)
 * @flags: NPU_SHARE_ANY_PID or 0
 * @handle: from MEM_ALLOC in this context
 * @__reserved: must be 0
 * @shareable: out, a random 64-bit name for the handle
 *
 * A handle is exported at most once. The name stays valid until the
 * exporting context frees the handle (or closes); memory already imported
 * lives on while any importer holds it.
 * Errors: -ENOENT unknown handle, -EBUSY already exported, -EINVAL a
 * handle this context imported.
 */
struct npu_share_export {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__u32 __reserved;
	__u64 shareable;
};

#define NPU_IOCTL_SHARE_EXPORT	_IO(NPU_TYPE, NPU_CMD_SHARE_EXPORT)

#define NPU_SHARE_MAX_PIDS	1024

/**
 * struct npu_share_pids - set which processes may import
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
 * on the list. Errors: -EINVAL bad count or a pid <= 0; -ESRCH an id names
 * no process (none, or a thread that is not its process's main thread),
 * and nothing changed; -ENOENT not exported by this context.
 */
struct npu_share_pids {
	__u32 size;
	__u32 flags;
	__u64 shareable;
	__u64 pids;
	__u32 count;
	__u32 __reserved;
};

#define NPU_IOCTL_SHARE_SET_PIDS _IO(NPU_TYPE, NPU_CMD_SHARE_SET_PIDS)

/**
 * struct npu_share_import - take a handle another process exported
 * @size: sizeof(struct npu_share_import); the first release's struct ended
 *        at @__reserved and still works, without @length and @page_size
 * @flags: must be 0
 * @shareable: from the exporter
 * @handle: out, a handle in this context to the same memory
 * @__reserved: must be 0
 * @length: out, the memory's size in bytes (as NPU_IOCTL_MEM_ALLOC made it)
 * @page_size: out, its NPU_PAGE_* granule
 *
 * A process may import if it is one SHARE_SET_PIDS listed (or the name was
 * exported with NPU_SHARE_ANY_PID) and its effective uid is the exporter's
 * at export; any uid may when the exporter had CAP_SYS_ADMIN then.
 * Errors: -ENOENT no such name, revoked, or this process is not allowed
 * (the same answer, so names cannot be probed), -EINVAL the exporting
 * process itself, -ENODEV exported from another device.
 */
struct npu_share_import {
	__u32 size;
	__u32 flags;
	__u64 shareable;
	__u32 handle;
	__u32 __reserved;
	__u64 length;
	__u64 page_size;
};

#define NPU_IOCTL_SHARE_IMPORT	_IO(NPU_TYPE, NPU_CMD_SHARE_IMPORT)

/**
 * struct npu_peer_enable - let this device's DMA engine reach a peer's memory
 * @size: sizeof(struct npu_peer_enable)
 * @flags: must be 0
 * @device: the peer device index
 * @__reserved: must be 0
 *
 * The same struct serves PEER_DISABLE (since 1.3), which withdraws what
 * PEER_ENABLE allowed: later SUBMITs naming a context of that device get
 * -EPERM, and queued peer commands that run afterwards fault ("peer
 * access disabled"). Closing the context forgets both.
 * PEER_ENABLE errors: -ENODEV no such device, -EINVAL the device itself,
 * -EALREADY enabled before.
 * PEER_DISABLE errors: -ENODEV no such device, -EINVAL the device itself,
 * -ENOENT not enabled (never, or disabled since).
 */
struct npu_peer_enable {
	__u32 size;
	__u32 flags;
	__u32 device;
	__u32 __reserved;
};

#define NPU_IOCTL_PEER_ENABLE	_IO(NPU_TYPE, NPU_CMD_PEER_ENABLE)
#define NPU_IOCTL_PEER_DISABLE	_IO(NPU_TYPE, NPU_CMD_PEER_DISABLE)

/* Stream modes (STREAM_SET_MODE) */
#define NPU_STREAM_STOP_ON_FAULT (1U << 0)	/* drop every command after a fault */
#define NPU_STREAM_MODE_MASK	NPU_STREAM_STOP_ON_FAULT

/**
 * struct npu_stream_mode - set a stream's mode (since 1.3)
 * @size: sizeof(struct npu_stream_mode)
 * @flags: must be 0
 * @stream: from STREAM_CREATE
 * @mode: the stream's new mode, NPU_STREAM_* bits; a new stream has none
 * @__reserved: must be 0
 *
 * A mode can be set, not cleared: @mode must include every bit the stream
 * has (setting the same mode again is 0).
 * With NPU_STREAM_STOP_ON_FAULT, once a command of the stream faults,
 * every later command of the stream, queued already or submitted later,
 * is dropped unrun and counts as -ECANCELED: STREAM_SYNC reports the fault
 * (-EIO) first, then -ECANCELED for every seqno after the fault's. A fault
 * counts if its command completes after this call.
 * Errors: -ENOENT unknown stream, -EINVAL unknown mode bits or a bit the
 * stream has missing from @mode.
 */
struct npu_stream_mode {
	__u32 size;
	__u32 flags;
	__u32 stream;
	__u32 mode;
	__u64 __reserved;
};

#define NPU_IOCTL_STREAM_SET_MODE _IO(NPU_TYPE, NPU_CMD_STREAM_SET_MODE)

/**
 * struct npu_ipc_export - name a range of mapped device memory (since 1.4)
 * @size: sizeof(struct npu_ipc_export)
 * @flags: NPU_SHARE_ANY_PID or 0
 * @addr: device VA of the range's start, inside one mapping of memory this
 *        context allocated (MEM_ALLOC), aligned to its page size
 * @length: bytes, a non-zero multiple of the page size, inside the mapping
 * @key: out, a random 64-bit name for the range, never 0
 *
 * IPC memory: another process on the device imports the range by @key
 * (IPC_IMPORT) - if SET_PIDS listed it (IPC_SET_PIDS, which adds to the
 * list) or @flags waived the list, and it has the exporter's effective uid
 * (any uid when the exporter had CAP_SYS_ADMIN), as for SHARE_EXPORT. A
 * range may be named several times, each a key of its own. The key dies
 * at IPC_DESTROY, when the exporter unmaps the mapping it was made from,
 * or when the exporting context closes; memory already imported lives on
 * while any importer maps it. A context holds at most max_ipc_keys keys.
 * Errors: -EINVAL bad flags, alignment or length, or memory this context
 * imported; -ENOENT no mapping of this context's device memory holds the
 * whole range; -ENOSPC max_ipc_keys reached.
 */
struct npu_ipc_export {
	__u32 size;
	__u32 flags;
	__u64 addr;
	__u64 length;
	__u64 key;
};

#define NPU_IOCTL_IPC_EXPORT	_IO(NPU_TYPE, NPU_CMD_IPC_EXPORT)

/*
 * IPC_SET_PIDS (since 1.4) takes struct npu_share_pids with @shareable an
 * IPC_EXPORT key of this context: it adds the processes to the key's list
 * (at most NPU_SHARE_MAX_PIDS in all, else -ENOSPC), resolved as
 * SHARE_SET_PIDS resolves them. Errors as SHARE_SET_PIDS's.
 *
 * IPC_IMPORT (since 1.4) takes struct npu_share_import with @shareable an
 * IPC_EXPORT key: @handle is a new handle of this context to the named
 * range, @length and @page_size its size and granule. It counts against
 * max_imports, is mapped and freed as any handle, and keeps the range's
 * memory while it or a mapping of it exists. Errors: -ENOENT no such key,
 * destroyed, or this process may not import it (one answer, so keys
 * cannot be probed); -EINVAL the exporting process itself; -ENODEV a key
 * of another device; -ENOSPC max_handles or max_imports reached.
 */
#define NPU_IOCTL_IPC_SET_PIDS	_IO(NPU_TYPE, NPU_CMD_IPC_SET_PIDS)
#define NPU_IOCTL_IPC_IMPORT	_IO(NPU_TYPE, NPU_CMD_IPC_IMPORT)

/**
 * struct npu_ipc_destroy - withdraw an IPC key (since 1.4)
 * @size: sizeof(struct npu_ipc_destroy)
 * @flags: must be 0
 * @key: from IPC_EXPORT in this context
 *
 * Later imports fail; memory already imported stays.
 * Errors: -ENOENT not a live key of this context.
 */
struct npu_ipc_destroy {
	__u32 size;
	__u32 flags;
	__u64 key;
};

#define NPU_IOCTL_IPC_DESTROY	_IO(NPU_TYPE, NPU_CMD_IPC_DESTROY)
/* DMABUF_EXPORT flags (since 1.4) */
#define NPU_DMABUF_CLOEXEC	(1U << 0)	/* the new fd is close-on-exec */
#define NPU_DMABUF_READONLY	(1U << 1)	/* the file is opened read-only */
#define NPU_DMABUF_FLAGS_MASK	(NPU_DMABUF_CLOEXEC | NPU_DMABUF_READONLY)

/**
 * struct npu_dmabuf_export - export a physical handle as a dma-buf (since 1.4)
 * @size: sizeof(struct npu_dmabuf_export)
 * @flags: NPU_DMABUF_* bits
 * @handle: a handle of this context, from MEM_ALLOC or SHARE_IMPORT
 * @fd: out, a new file descriptor of the dma-buf
 * @length: out, the dma-buf's size: the handle's length
 * @__reserved: must be 0
 *
 * The dma-buf is the handle's memory, the same pages the device reads and
 * writes through every mapping of the handle; it holds a reference to the
 * memory, which stays while the dma-buf lives, whatever the context does
 * (MEM_FREE, close) and in whatever order the two go. Other devices map
 * it through dma-buf attachments; the fd maps it for the CPU (mmap
 * MAP_SHARED only, within @length). Every page of the handle is backed
 * with host memory when it is exported. With NPU_DMABUF_READONLY the file
 * is opened O_RDONLY, so no CPU mapping of it can be writable; importing
 * devices get the access their driver asks for. A handle from IPC_IMPORT
 * exports the range its key named. A handle may be exported any number
 * of times, each a dma-buf of its own; a context holds at most
 * max_dmabufs dma-bufs at a time (they count until their last fd and
 * importer are gone, even after the context closed).
 * Errors: -EINVAL unknown flags or @__reserved not 0, -ENOENT unknown
 * handle, -ENOSPC the context holds max_dmabufs dma-bufs, -EMFILE no free
 * fd, -ENOMEM no host memory to back the handle.
 */
struct npu_dmabuf_export {
	__u32 size;
	__u32 flags;
	__u32 handle;
	__s32 fd;
	__u64 length;
	__u64 __reserved;
};

#define NPU_IOCTL_DMABUF_EXPORT	_IO(NPU_TYPE, NPU_CMD_DMABUF_EXPORT)

/* MIRROR_MAP flags */
#define NPU_MIRROR_POPULATE	(1U << 0)	/* fault the range in for reading now */
#define NPU_MIRROR_FLAGS_MASK	NPU_MIRROR_POPULATE

/**
 * struct npu_mirror_map - mirror a range of the process for the device (since 1.4)
 * @size: sizeof(struct npu_mirror_map)
 * @flags: NPU_MIRROR_* bits
 * @addr: user address, 4 KiB aligned, inside the device VA window
 *        (GET_INFO @va_start..@va_end)
 * @length: bytes, a non-zero multiple of 4 KiB, no wrap, inside the window
 *
 * The range becomes device VA @addr..@addr + @length of this context, the
 * same addresses as in the process: the device reaches whatever the
 * process has mapped there, coherently, with no registration and no pin.
 * Entries start non-present; the DMA engine faults pages in as the
 * process would (a write fault for a write, breaking COW) and the kernel
 * invalidates them whenever the process's mapping changes (munmap,
 * mprotect, madvise, migration, reclaim, fork, exit), so the device never
 * reaches a page the process no longer has there. A page the process
 * cannot access the same way (unmapped, PROT_NONE, a write to a read-only
 * mapping) is a DMA fault of the command. Mirrored pages are not pinned
 * and not charged to RLIMIT_MEMLOCK; a context holds at most
 * max_mirror_pages (module parameter) faulted-in pages, past which a
 * fault is a DMA fault ("mirror page limit"), and at most max_mirrors
 * mirrors. Peers never reach a mirror, and SET_ACCESS refuses it: its
 * rights are the process's. With NPU_MIRROR_POPULATE the whole range is
 * faulted in for reading before the call returns.
 * Errors: -EINVAL bad flags, alignment, length or window; -EADDRINUSE
 * overlaps a reservation, mapping or mirror; -ENOSPC max_mirrors reached;
 * -EOPNOTSUPP the kernel has no HMM mirror (CONFIG_HMM_MIRROR) or the
 * device's DMA is not coherent; with NPU_MIRROR_POPULATE also -EFAULT
 * (a page not mapped readable), -ENOSPC (max_mirror_pages) and -ENOMEM,
 * after which the mirror is gone again.
 */
struct npu_mirror_map {
	__u32 size;
	__u32 flags;
	__u64 addr;
	__u64 length;
};

#define NPU_IOCTL_MIRROR_MAP	_IO(NPU_TYPE, NPU_CMD_MIRROR_MAP)

/**
 * struct npu_mirror_unmap - end a mirror (since 1.4)
 * @size: sizeof(struct npu_mirror_unmap)
 * @flags: must be 0
 * @addr: the @addr it was mapped with
 *
 * Commands reaching it afterwards fault as after UNMAP.
 * Errors: -ENOENT no mirror starts at @addr.
 */
struct npu_mirror_unmap {
	__u32 size;
	__u32 flags;
	__u64 addr;
};

#define NPU_IOCTL_MIRROR_UNMAP	_IO(NPU_TYPE, NPU_CMD_MIRROR_UNMAP)

#endif /* _UAPI_NPU_H */
