/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * npu: the generic netlink family "npu" - the management plane
 * (Documentation/netlink.rst).
 */
#ifndef _UAPI_NPU_NETLINK_H
#define _UAPI_NPU_NETLINK_H

/**
 * DOC: npu netlink conventions
 *
 *  - the family is strict: every request attribute is validated against
 *    the command's policy; an attribute the command does not take, of the
 *    wrong length or type, is -EINVAL with an extended ack message;
 *  - an unknown command is -EOPNOTSUPP;
 *  - the family lives in the initial network namespace only;
 *  - pids are in the requester's pid namespace (PROCESS_GET) or the
 *    initial one (fault events); uids in the requester's user namespace.
 */

#define NPU_GENL_NAME		"npu"
#define NPU_GENL_VERSION	1
#define NPU_GENL_MCGRP_FAULTS	"faults"

/**
 * enum npu_nl_cmd - commands and events
 * @NPU_NL_CMD_UNSPEC: unused
 * @NPU_NL_CMD_DEVICE_GET: doit (NPU_NL_A_DEV_INDEX required) or dump:
 *	one message per device with the NPU_NL_A_DEV_* attributes
 * @NPU_NL_CMD_PROCESS_GET: dump only: one message per context with the
 *	NPU_NL_A_PROC_* attributes and NPU_NL_A_DEV_INDEX. Without
 *	CAP_SYS_ADMIN only contexts opened by the caller's uid are listed.
 * @NPU_NL_CMD_COUNTERS_RESET: doit, CAP_NET_ADMIN: memory peak back to
 *	the memory in use, fault counters to zero; of the device
 *	NPU_NL_A_DEV_INDEX names, or of every device without it
 * @NPU_NL_CMD_FAULT: event on the "faults" group: one DMA fault
 *	(NPU_NL_A_DEV_INDEX, NPU_NL_A_PROC_PID, NPU_NL_A_PROC_COMM and the
 *	NPU_NL_A_FAULT_* attributes)
 * @NPU_NL_CMD_MEM_POISON: doit, CAP_NET_ADMIN: give the device page that
 *	device VA NPU_NL_A_FAULT_ADDR of process NPU_NL_A_PROC_PID (in the
 *	caller's pid namespace) maps on device NPU_NL_A_DEV_INDEX an
 *	uncorrectable error (DOC: npu uncorrectable memory errors in
 *	npu.h); -ESRCH if the process has no context there, -ENOENT if the
 *	address is not device memory it maps (since 1.6)
 * @NPU_NL_CMD_DEVICE_RESET: doit, CAP_SYS_ADMIN: reset device
 *	NPU_NL_A_DEV_INDEX (required; DOC: npu device reset in npu.h):
 *	every context open on it is lost, and the answer comes once their
 *	streams are aborted; the device takes new contexts when the reset
 *	is done (NPU_NL_A_DEV_RESETTING clear again). -EBUSY while a reset
 *	of the device is under way, -ENODEV for a device that does not
 *	exist or whose carrier was removed. Also an event on "faults" at
 *	the reset's beginning and at its end: NPU_NL_A_DEV_INDEX,
 *	NPU_NL_A_RESET_PHASE, NPU_NL_A_RESET_CONTEXTS and NPU_NL_A_DEV_RESETS
 *	(since 1.6)
 * @__NPU_NL_CMD_MAX: one past the last command
 * @NPU_NL_CMD_MAX: the last command
 */
enum npu_nl_cmd {
	NPU_NL_CMD_UNSPEC,
	NPU_NL_CMD_DEVICE_GET,
	NPU_NL_CMD_PROCESS_GET,
	NPU_NL_CMD_COUNTERS_RESET,
	NPU_NL_CMD_FAULT,
	NPU_NL_CMD_MEM_POISON,
	NPU_NL_CMD_DEVICE_RESET,

	__NPU_NL_CMD_MAX,
	NPU_NL_CMD_MAX = __NPU_NL_CMD_MAX - 1
};

/* NPU_NL_A_FAULT_ACCESS */
#define NPU_NL_ACCESS_READ	0
#define NPU_NL_ACCESS_WRITE	1

/* NPU_NL_A_FAULT_SPACE: what the faulting operand addressed */
#define NPU_NL_SPACE_VA		0	/* a device VA */
#define NPU_NL_SPACE_HOST	1	/* a registered host address */

/* NPU_NL_A_RESET_PHASE: which event of a device reset */
#define NPU_NL_RESET_BEGIN	0	/* contexts lost, the device down */
#define NPU_NL_RESET_DONE	1	/* the device takes new contexts */

/**
 * enum npu_nl_attr - attributes (one space for every command)
 * @NPU_NL_A_UNSPEC: unused
 * @NPU_NL_A_PAD: padding for 64-bit attributes
 * @NPU_NL_A_DEV_INDEX: u32, N of /dev/npuN (request and reply)
 * @NPU_NL_A_DEV_NAME: string, "npuN"
 * @NPU_NL_A_DEV_CARRIER: string, the carrier's PCI address
 *	("0000:00:05.0") or "platform"
 * @NPU_NL_A_DEV_IOMMU: string, the DMA device's IOMMU domain type:
 *	"none" (no IOMMU), "identity", "dma", "dma-fq", "unmanaged" or "other"
 * @NPU_NL_A_DEV_MEM_TOTAL: u64, bytes of device memory
 * @NPU_NL_A_DEV_MEM_USED: u64, bytes allocated to handles
 * @NPU_NL_A_DEV_MEM_PEAK: u64, the highest MEM_USED since load or reset
 * @NPU_NL_A_DEV_CONTEXTS: u32, open contexts (files) of the device
 * @NPU_NL_A_DEV_PAGE_SIZES: u64, NPU_PAGE_* sizes the device maps
 * @NPU_NL_A_DEV_DRIVER_VERSION: u32, NPU_DRIVER_VERSION
 * @NPU_NL_A_DEV_SOC_NAME: string, the soc_name module parameter
 * @NPU_NL_A_DEV_FAULTS: u64, DMA faults since load or reset
 * @NPU_NL_A_DEV_UNPLUGGED: flag, the carrier is gone
 * @NPU_NL_A_PROC_PID: u32, the opening process (thread group id)
 * @NPU_NL_A_PROC_COMM: string, its name at open
 * @NPU_NL_A_PROC_UID: u32, its real uid at open
 * @NPU_NL_A_PROC_CTX_ID: u64, the context's id, unique until unload
 * @NPU_NL_A_PROC_MEM_DEVICE: u64, bytes of device memory it allocated
 * @NPU_NL_A_PROC_HOST_PINNED: u64, bytes of host memory it has pinned
 * @NPU_NL_A_PROC_HOST_MEMLOCK: u64, of them the bytes charged to the
 *	registering user's locked_vm (RLIMIT_MEMLOCK)
 * @NPU_NL_A_PROC_MAPPINGS: u32, device mappings
 * @NPU_NL_A_PROC_RESERVATIONS: u32, VA reservations
 * @NPU_NL_A_PROC_STREAMS: u32, streams
 * @NPU_NL_A_PROC_EXPORTED: u32, handles it exported (SHARE_EXPORT)
 * @NPU_NL_A_PROC_IMPORTED: u32, handles it imported (SHARE_IMPORT)
 * @NPU_NL_A_PROC_FAULTS: u64, DMA faults of its streams since open or reset
 * @NPU_NL_A_FAULT_STREAM: u32, the stream id
 * @NPU_NL_A_FAULT_ADDR: u64, the faulting address
 * @NPU_NL_A_FAULT_ACCESS: u8, NPU_NL_ACCESS_READ or NPU_NL_ACCESS_WRITE
 * @NPU_NL_A_FAULT_SPACE: u8, NPU_NL_SPACE_VA or NPU_NL_SPACE_HOST
 * @NPU_NL_A_FAULT_REASON: string, why the access failed
 * @NPU_NL_A_DEV_BUSY_NS: u64, nanoseconds in which the DMA engine worked
 *	for the device (some of its commands were moving) since the device
 *	was created: utilisation is its growth over wall time (since 1.6)
 * @NPU_NL_A_DEV_RESETTING: flag, a device reset is under way (since 1.7)
 * @NPU_NL_A_DEV_RESETS: u32, device resets completed since load (since 1.7)
 * @NPU_NL_A_PROC_LOST: flag, a device reset took the context down: its
 *	ioctls answer -ESTALE until it is closed (since 1.7)
 * @NPU_NL_A_RESET_PHASE: u8, NPU_NL_RESET_BEGIN or NPU_NL_RESET_DONE
 *	(since 1.7)
 * @NPU_NL_A_RESET_CONTEXTS: u32, contexts the reset took down (since 1.7)
 * @__NPU_NL_A_MAX: one past the last attribute
 * @NPU_NL_A_MAX: the last attribute
 */
enum npu_nl_attr {
	NPU_NL_A_UNSPEC,
	NPU_NL_A_PAD,
	NPU_NL_A_DEV_INDEX,
	NPU_NL_A_DEV_NAME,
	NPU_NL_A_DEV_CARRIER,
	NPU_NL_A_DEV_IOMMU,
	NPU_NL_A_DEV_MEM_TOTAL,
	NPU_NL_A_DEV_MEM_USED,
	NPU_NL_A_DEV_MEM_PEAK,
	NPU_NL_A_DEV_CONTEXTS,
	NPU_NL_A_DEV_PAGE_SIZES,
	NPU_NL_A_DEV_DRIVER_VERSION,
	NPU_NL_A_DEV_SOC_NAME,
	NPU_NL_A_DEV_FAULTS,
	NPU_NL_A_DEV_UNPLUGGED,
	NPU_NL_A_PROC_PID,
	NPU_NL_A_PROC_COMM,
	NPU_NL_A_PROC_UID,
	NPU_NL_A_PROC_CTX_ID,
	NPU_NL_A_PROC_MEM_DEVICE,
	NPU_NL_A_PROC_HOST_PINNED,
	NPU_NL_A_PROC_HOST_MEMLOCK,
	NPU_NL_A_PROC_MAPPINGS,
	NPU_NL_A_PROC_RESERVATIONS,
	NPU_NL_A_PROC_STREAMS,
	NPU_NL_A_PROC_EXPORTED,
	NPU_NL_A_PROC_IMPORTED,
	NPU_NL_A_PROC_FAULTS,
	NPU_NL_A_FAULT_STREAM,
	NPU_NL_A_FAULT_ADDR,
	NPU_NL_A_FAULT_ACCESS,
	NPU_NL_A_FAULT_SPACE,
	NPU_NL_A_FAULT_REASON,
	NPU_NL_A_DEV_BUSY_NS,
	NPU_NL_A_DEV_RESETTING,
	NPU_NL_A_DEV_RESETS,
	NPU_NL_A_PROC_LOST,
	NPU_NL_A_RESET_PHASE,
	NPU_NL_A_RESET_CONTEXTS,

	__NPU_NL_A_MAX,
	NPU_NL_A_MAX = __NPU_NL_A_MAX - 1
};

#endif /* _UAPI_NPU_NETLINK_H */
