// SPDX-License-Identifier: GPL-2.0
/*
 * uapi_layout_test: freezes the ioctl ABI of include/uapi/npu.h, with no
 * device: every argument struct's size, alignment and first-release size
 * (what the kernel's ioctl table, NPU_IOCTL_OP() in kernel/npu_drv.c,
 * takes as the smallest struct), every field's offset and size, that
 * every 64-bit field is 8-byte aligned and no struct has a hidden hole,
 * the ioctl numbers and the value of every constant.
 *
 * Everything is checked twice: by _Static_assert, so that a change breaks
 * the build, and by a TAP test that prints what it checks. A change that
 * is allowed (DOC: npu uapi conventions - a field appended, a new flag,
 * a new ioctl) is one more line in a table here; a line that must change
 * is an ABI break.
 */
#include <stddef.h>
#include <stdint.h>
#include <linux/ioctl.h>

#include "harness.h"
#include "uapi/npu.h"

#define SIZEOF_FIELD(s, f)	sizeof(((struct s *)0)->f)
#define ALIGNOF_FIELD(s, f)	_Alignof(__typeof__(((struct s *)0)->f))
#define OFFSETOFEND(s, f)	(offsetof(struct s, f) + SIZEOF_FIELD(s, f))

/*
 * Every argument struct (and struct npu_cmd, an element of SUBMIT's
 * array): its size and alignment now. A struct with a 64-bit field is
 * 8-byte aligned (__aligned_u64, on i386 too), the others 4.
 */
#define NPU_STRUCTS(X)					\
	X(npu_get_info,		152, 8)			\
	X(npu_mem_alloc,	 32, 8)			\
	X(npu_mem_free,		  8, 4)			\
	X(npu_va_range,		 24, 8)			\
	X(npu_map,		 40, 8)			\
	X(npu_unmap,		 16, 8)			\
	X(npu_access,		 32, 8)			\
	X(npu_host_register,	 32, 8)			\
	X(npu_host_unregister,	 16, 8)			\
	X(npu_addr_query,	 64, 8)			\
	X(npu_stream_create,	 16, 4)			\
	X(npu_stream_destroy,	 16, 4)			\
	X(npu_submit,		 40, 8)			\
	X(npu_stream_sync,	 56, 8)			\
	X(npu_share_export,	 24, 8)			\
	X(npu_share_pids,	 32, 8)			\
	X(npu_share_import,	 40, 8)			\
	X(npu_peer_enable,	 16, 4)			\
	X(npu_stream_mode,	 24, 8)			\
	X(npu_ipc_export,	 32, 8)			\
	X(npu_ipc_destroy,	 16, 8)			\
	X(npu_dmabuf_export,	 32, 8)			\
	X(npu_mirror_map,	 24, 8)			\
	X(npu_mirror_unmap,	 16, 8)			\
	X(npu_mem_uce_query,	 24, 8)			\
	X(npu_uce_range,	 16, 8)			\
	X(npu_mem_repair,	 32, 8)			\
	X(npu_dmabuf_import,	 32, 8)			\
	X(npu_cmd,		 64, 8)			\
	X(npu_copy_desc,	 24, 8)			\
	X(npu_random,		 56, 8)			\
	X(npu_model_create,	 32, 8)			\
	X(npu_model_destroy,	 16, 4)			\
	X(npu_aperture_open,	 16, 4)			\
	X(npu_kernel,		 72, 8)			\
	X(npu_kernel_wait,	104, 8)			\
	X(npu_kernel_done,	 40, 8)

/*
 * Every ioctl: its nr, its struct, the last field of the first release
 * that had it (NPU_IOCTL_OP()'s _last in kernel/npu_drv.c) and so the
 * smallest size the kernel accepts. SHARE_IMPORT and IPC_IMPORT share a
 * struct that grew in 1.2.0, after SHARE_IMPORT's first release and
 * before IPC_IMPORT's.
 */
#define NPU_IOCTLS(X)								\
	X(GET_INFO,		0x80, npu_get_info,		va_end,		 64) \
	X(MEM_ALLOC,		0x81, npu_mem_alloc,		__reserved,	 32) \
	X(MEM_FREE,		0x82, npu_mem_free,		handle,		  8) \
	X(VA_RESERVE,		0x83, npu_va_range,		length,		 24) \
	X(VA_RELEASE,		0x84, npu_va_range,		length,		 24) \
	X(MAP,			0x85, npu_map,			__reserved,	 40) \
	X(UNMAP,		0x86, npu_unmap,		addr,		 16) \
	X(SET_ACCESS,		0x87, npu_access,		access,		 32) \
	X(GET_ACCESS,		0x88, npu_access,		access,		 32) \
	X(HOST_REGISTER,	0x89, npu_host_register,	dev_addr,	 32) \
	X(HOST_UNREGISTER,	0x8a, npu_host_unregister,	addr,		 16) \
	X(ADDR_QUERY,		0x8b, npu_addr_query,		host_flags,	 64) \
	X(STREAM_CREATE,	0x8c, npu_stream_create,	__reserved,	 16) \
	X(STREAM_DESTROY,	0x8d, npu_stream_destroy,	__reserved,	 16) \
	X(SUBMIT,		0x8e, npu_submit,		seqno,		 32) \
	X(STREAM_SYNC,		0x8f, npu_stream_sync,		seqno,		 24) \
	X(SHARE_EXPORT,		0x90, npu_share_export,		shareable,	 24) \
	X(SHARE_SET_PIDS,	0x91, npu_share_pids,		__reserved,	 32) \
	X(SHARE_IMPORT,		0x92, npu_share_import,		__reserved,	 24) \
	X(PEER_ENABLE,		0x93, npu_peer_enable,		__reserved,	 16) \
	X(STREAM_SET_MODE,	0x94, npu_stream_mode,		__reserved,	 24) \
	X(PEER_DISABLE,		0x95, npu_peer_enable,		__reserved,	 16) \
	X(IPC_EXPORT,		0x96, npu_ipc_export,		key,		 32) \
	X(IPC_SET_PIDS,		0x97, npu_share_pids,		__reserved,	 32) \
	X(IPC_IMPORT,		0x98, npu_share_import,		page_size,	 40) \
	X(IPC_DESTROY,		0x99, npu_ipc_destroy,		key,		 16) \
	X(DMABUF_EXPORT,	0x9a, npu_dmabuf_export,	__reserved,	 32) \
	X(MIRROR_MAP,		0x9b, npu_mirror_map,		length,		 24) \
	X(MIRROR_UNMAP,		0x9c, npu_mirror_unmap,		addr,		 16) \
	X(MEM_UCE_QUERY,	0x9d, npu_mem_uce_query,	range_size,	 24) \
	X(MEM_REPAIR,		0x9e, npu_mem_repair,		repaired,	 32) \
	X(DMABUF_IMPORT,	0x9f, npu_dmabuf_import,	page_size,	 32) \
	X(MODEL_CREATE,		0xa0, npu_model_create,		__reserved,	 32) \
	X(MODEL_DESTROY,	0xa1, npu_model_destroy,	__reserved,	 16) \
	X(APERTURE_OPEN,	0xa2, npu_aperture_open,	__reserved,	 16)

/*
 * The aperture fd's ioctls (since 1.12): the numbers after the device's,
 * which answers -ENOTTY for them (tests/npu_kernel_test.c), as the
 * aperture does for the device's.
 */
#define NPU_APERTURE_IOCTLS(A)							\
	A(APERTURE_KERNEL_WAIT,	0xa3, npu_kernel_wait,		seqno,		104) \
	A(APERTURE_KERNEL_DONE,	0xa4, npu_kernel_done,		busy_ns,	 40)

/* Every field of every struct, in declaration order: offset and size. */
#define NPU_FIELDS(X) \
	X(npu_get_info, size,                      0,   4) \
	X(npu_get_info, flags,                     4,   4) \
	X(npu_get_info, device_index,              8,   4) \
	X(npu_get_info, driver_version,           12,   4) \
	X(npu_get_info, caps,                     16,   4) \
	X(npu_get_info, __reserved,               20,   4) \
	X(npu_get_info, mem_total,                24,   8) \
	X(npu_get_info, mem_used,                 32,   8) \
	X(npu_get_info, page_sizes,               40,   8) \
	X(npu_get_info, va_start,                 48,   8) \
	X(npu_get_info, va_end,                   56,   8) \
	X(npu_get_info, tgid,                     64,   4) \
	X(npu_get_info, num_devices,              68,   4) \
	X(npu_get_info, pci_domain,               72,   4) \
	X(npu_get_info, pci_bus,                  76,   2) \
	X(npu_get_info, pci_devfn,                78,   2) \
	X(npu_get_info, cube_cores,               80,   4) \
	X(npu_get_info, vector_cores,             84,   4) \
	X(npu_get_info, uuid,                     88,  16) \
	X(npu_get_info, soc_name,                104,  32) \
	X(npu_get_info, mem_peak,                136,   8) \
	X(npu_get_info, clock_ns,                144,   8) \
	X(npu_mem_alloc, size,                     0,   4) \
	X(npu_mem_alloc, flags,                    4,   4) \
	X(npu_mem_alloc, length,                   8,   8) \
	X(npu_mem_alloc, page_size,               16,   8) \
	X(npu_mem_alloc, handle,                  24,   4) \
	X(npu_mem_alloc, __reserved,              28,   4) \
	X(npu_mem_free, size,                      0,   4) \
	X(npu_mem_free, handle,                    4,   4) \
	X(npu_va_range, size,                      0,   4) \
	X(npu_va_range, flags,                     4,   4) \
	X(npu_va_range, addr,                      8,   8) \
	X(npu_va_range, length,                   16,   8) \
	X(npu_map, size,                           0,   4) \
	X(npu_map, flags,                          4,   4) \
	X(npu_map, addr,                           8,   8) \
	X(npu_map, length,                        16,   8) \
	X(npu_map, offset,                        24,   8) \
	X(npu_map, handle,                        32,   4) \
	X(npu_map, __reserved,                    36,   4) \
	X(npu_unmap, size,                         0,   4) \
	X(npu_unmap, flags,                        4,   4) \
	X(npu_unmap, addr,                         8,   8) \
	X(npu_access, size,                        0,   4) \
	X(npu_access, flags,                       4,   4) \
	X(npu_access, addr,                        8,   8) \
	X(npu_access, length,                     16,   8) \
	X(npu_access, device,                     24,   4) \
	X(npu_access, access,                     28,   4) \
	X(npu_host_register, size,                 0,   4) \
	X(npu_host_register, flags,                4,   4) \
	X(npu_host_register, addr,                 8,   8) \
	X(npu_host_register, length,              16,   8) \
	X(npu_host_register, dev_addr,            24,   8) \
	X(npu_host_unregister, size,               0,   4) \
	X(npu_host_unregister, flags,              4,   4) \
	X(npu_host_unregister, addr,               8,   8) \
	X(npu_addr_query, size,                    0,   4) \
	X(npu_addr_query, flags,                   4,   4) \
	X(npu_addr_query, addr,                    8,   8) \
	X(npu_addr_query, kind,                   16,   4) \
	X(npu_addr_query, access,                 20,   4) \
	X(npu_addr_query, base,                   24,   8) \
	X(npu_addr_query, length,                 32,   8) \
	X(npu_addr_query, dev_addr,               40,   8) \
	X(npu_addr_query, page_size,              48,   8) \
	X(npu_addr_query, mapped,                 56,   4) \
	X(npu_addr_query, host_flags,             60,   4) \
	X(npu_stream_create, size,                 0,   4) \
	X(npu_stream_create, flags,                4,   4) \
	X(npu_stream_create, stream,               8,   4) \
	X(npu_stream_create, __reserved,          12,   4) \
	X(npu_stream_destroy, size,                0,   4) \
	X(npu_stream_destroy, flags,               4,   4) \
	X(npu_stream_destroy, stream,              8,   4) \
	X(npu_stream_destroy, __reserved,         12,   4) \
	X(npu_cmd, op,                             0,   4) \
	X(npu_cmd, flags,                          4,   4) \
	X(npu_cmd, dst,                            8,   8) \
	X(npu_cmd, src,                           16,   8) \
	X(npu_cmd, length,                        24,   8) \
	X(npu_cmd, value,                         32,   8) \
	X(npu_cmd, dst_pitch,                     40,   8) \
	X(npu_cmd, src_pitch,                     48,   8) \
	X(npu_cmd, height,                        56,   8) \
	X(npu_copy_desc, dst,                      0,   8) \
	X(npu_copy_desc, src,                      8,   8) \
	X(npu_copy_desc, length,                  16,   8) \
	X(npu_random, func,                        0,   4) \
	X(npu_random, type,                        4,   4) \
	X(npu_random, flags,                       8,   4) \
	X(npu_random, __reserved,                 12,   4) \
	X(npu_random, param,                      16,  16) \
	X(npu_random, seed,                       32,   8) \
	X(npu_random, count,                      40,   8) \
	X(npu_random, counter,                    48,   8) \
	X(npu_submit, size,                        0,   4) \
	X(npu_submit, flags,                       4,   4) \
	X(npu_submit, stream,                      8,   4) \
	X(npu_submit, count,                      12,   4) \
	X(npu_submit, cmds,                       16,   8) \
	X(npu_submit, seqno,                      24,   8) \
	X(npu_submit, cmd_size,                   32,   4) \
	X(npu_submit, __reserved,                 36,   4) \
	X(npu_stream_sync, size,                   0,   4) \
	X(npu_stream_sync, flags,                  4,   4) \
	X(npu_stream_sync, stream,                 8,   4) \
	X(npu_stream_sync, timeout_ms,            12,   4) \
	X(npu_stream_sync, seqno,                 16,   8) \
	X(npu_stream_sync, error_seqno,           24,   8) \
	X(npu_stream_sync, fault_addr,            32,   8) \
	X(npu_stream_sync, fault_flags,           40,   4) \
	X(npu_stream_sync, error_tid,             44,   4) \
	X(npu_stream_sync, error_step,            48,   4) \
	X(npu_stream_sync, __reserved,            52,   4) \
	X(npu_share_export, size,                  0,   4) \
	X(npu_share_export, flags,                 4,   4) \
	X(npu_share_export, handle,                8,   4) \
	X(npu_share_export, __reserved,           12,   4) \
	X(npu_share_export, shareable,            16,   8) \
	X(npu_share_pids, size,                    0,   4) \
	X(npu_share_pids, flags,                   4,   4) \
	X(npu_share_pids, shareable,               8,   8) \
	X(npu_share_pids, pids,                   16,   8) \
	X(npu_share_pids, count,                  24,   4) \
	X(npu_share_pids, __reserved,             28,   4) \
	X(npu_share_import, size,                  0,   4) \
	X(npu_share_import, flags,                 4,   4) \
	X(npu_share_import, shareable,             8,   8) \
	X(npu_share_import, handle,               16,   4) \
	X(npu_share_import, __reserved,           20,   4) \
	X(npu_share_import, length,               24,   8) \
	X(npu_share_import, page_size,            32,   8) \
	X(npu_peer_enable, size,                   0,   4) \
	X(npu_peer_enable, flags,                  4,   4) \
	X(npu_peer_enable, device,                 8,   4) \
	X(npu_peer_enable, __reserved,            12,   4) \
	X(npu_stream_mode, size,                   0,   4) \
	X(npu_stream_mode, flags,                  4,   4) \
	X(npu_stream_mode, stream,                 8,   4) \
	X(npu_stream_mode, mode,                  12,   4) \
	X(npu_stream_mode, __reserved,            16,   8) \
	X(npu_ipc_export, size,                    0,   4) \
	X(npu_ipc_export, flags,                   4,   4) \
	X(npu_ipc_export, addr,                    8,   8) \
	X(npu_ipc_export, length,                 16,   8) \
	X(npu_ipc_export, key,                    24,   8) \
	X(npu_ipc_destroy, size,                   0,   4) \
	X(npu_ipc_destroy, flags,                  4,   4) \
	X(npu_ipc_destroy, key,                    8,   8) \
	X(npu_dmabuf_export, size,                 0,   4) \
	X(npu_dmabuf_export, flags,                4,   4) \
	X(npu_dmabuf_export, handle,               8,   4) \
	X(npu_dmabuf_export, fd,                  12,   4) \
	X(npu_dmabuf_export, length,              16,   8) \
	X(npu_dmabuf_export, __reserved,          24,   8) \
	X(npu_mirror_map, size,                    0,   4) \
	X(npu_mirror_map, flags,                   4,   4) \
	X(npu_mirror_map, addr,                    8,   8) \
	X(npu_mirror_map, length,                 16,   8) \
	X(npu_mirror_unmap, size,                  0,   4) \
	X(npu_mirror_unmap, flags,                 4,   4) \
	X(npu_mirror_unmap, addr,                  8,   8) \
	X(npu_mem_uce_query, size,                 0,   4) \
	X(npu_mem_uce_query, flags,                4,   4) \
	X(npu_mem_uce_query, ranges,               8,   8) \
	X(npu_mem_uce_query, count,               16,   4) \
	X(npu_mem_uce_query, range_size,          20,   4) \
	X(npu_uce_range, addr,                     0,   8) \
	X(npu_uce_range, length,                   8,   8) \
	X(npu_mem_repair, size,                    0,   4) \
	X(npu_mem_repair, flags,                   4,   4) \
	X(npu_mem_repair, addr,                    8,   8) \
	X(npu_mem_repair, length,                 16,   8) \
	X(npu_mem_repair, repaired,               24,   8) \
	X(npu_dmabuf_import, size,                 0,   4) \
	X(npu_dmabuf_import, flags,                4,   4) \
	X(npu_dmabuf_import, fd,                   8,   4) \
	X(npu_dmabuf_import, handle,              12,   4) \
	X(npu_dmabuf_import, length,              16,   8) \
	X(npu_dmabuf_import, page_size,           24,   8) \
	X(npu_model_create, size,                  0,   4) \
	X(npu_model_create, flags,                 4,   4) \
	X(npu_model_create, count,                 8,   4) \
	X(npu_model_create, cmd_size,             12,   4) \
	X(npu_model_create, cmds,                 16,   8) \
	X(npu_model_create, model,                24,   4) \
	X(npu_model_create, __reserved,           28,   4) \
	X(npu_model_destroy, size,                 0,   4) \
	X(npu_model_destroy, model,                4,   4) \
	X(npu_model_destroy, flags,                8,   4) \
	X(npu_model_destroy, __reserved,          12,   4) \
	X(npu_aperture_open, size,                 0,   4) \
	X(npu_aperture_open, flags,                4,   4) \
	X(npu_aperture_open, fd,                   8,   4) \
	X(npu_aperture_open, __reserved,          12,   4) \
	X(npu_kernel, func,                        0,   8) \
	X(npu_kernel, block_dim,                   8,   4) \
	X(npu_kernel, core_type,                  12,   4) \
	X(npu_kernel, flags,                      16,   4) \
	X(npu_kernel, args_len,                   20,   4) \
	X(npu_kernel, args,                       24,   8) \
	X(npu_kernel, args_va,                    32,   8) \
	X(npu_kernel, dump_va,                    40,   8) \
	X(npu_kernel, dump_size,                  48,   4) \
	X(npu_kernel, sat_mode,                   52,   4) \
	X(npu_kernel, overflow_va,                56,   8) \
	X(npu_kernel, timeout_ms,                 64,   4) \
	X(npu_kernel, __reserved,                 68,   4) \
	X(npu_kernel_wait, size,                   0,   4) \
	X(npu_kernel_wait, flags,                  4,   4) \
	X(npu_kernel_wait, args_buf,               8,   8) \
	X(npu_kernel_wait, args_buf_len,          16,   4) \
	X(npu_kernel_wait, event,                 20,   4) \
	X(npu_kernel_wait, job,                   24,   8) \
	X(npu_kernel_wait, func,                  32,   8) \
	X(npu_kernel_wait, block_dim,             40,   4) \
	X(npu_kernel_wait, core_type,             44,   4) \
	X(npu_kernel_wait, kernel_flags,          48,   4) \
	X(npu_kernel_wait, args_len,              52,   4) \
	X(npu_kernel_wait, args_va,               56,   8) \
	X(npu_kernel_wait, dump_va,               64,   8) \
	X(npu_kernel_wait, dump_size,             72,   4) \
	X(npu_kernel_wait, sat_mode,              76,   4) \
	X(npu_kernel_wait, overflow_va,           80,   8) \
	X(npu_kernel_wait, timeout_ms,            88,   4) \
	X(npu_kernel_wait, stream,                92,   4) \
	X(npu_kernel_wait, seqno,                 96,   8) \
	X(npu_kernel_done, size,                   0,   4) \
	X(npu_kernel_done, status,                 4,   4) \
	X(npu_kernel_done, job,                    8,   8) \
	X(npu_kernel_done, fault_addr,            16,   8) \
	X(npu_kernel_done, fault_flags,           24,   4) \
	X(npu_kernel_done, __reserved,            28,   4) \
	X(npu_kernel_done, busy_ns,               32,   8)

/*
 * Every constant but the ioctl numbers (NPU_IOCTLS above), with its value.
 * NPU_DRIVER_VERSION is not frozen: it moves with every release (below).
 */
#define NPU_CONSTANTS(X)					\
	X(NPU_TYPE,			0xCE)			\
	X(NPU_CMD_BASE,			0x80)			\
	X(NPU_CAP_IOMMU,		0x1)			\
	X(NPU_CAP_PCI_CARRIER,		0x2)			\
	X(NPU_PAGE_4K,			0x1000ULL)		\
	X(NPU_PAGE_2M,			0x200000ULL)		\
	X(NPU_PAGE_1G,			0x40000000ULL)		\
	X(NPU_SOC_NAME_LEN,		32)			\
	X(NPU_MAP_PEERS,		0x1)			\
	X(NPU_MAP_FLAGS_MASK,		0x1)			\
	X(NPU_ACCESS_NONE,		0x0)			\
	X(NPU_ACCESS_READ,		0x1)			\
	X(NPU_ACCESS_READWRITE,		0x3)			\
	X(NPU_HOST_READONLY,		0x1)			\
	X(NPU_HOST_MAPPED,		0x2)			\
	X(NPU_HOST_FLAGS_MASK,		0x3)			\
	X(NPU_HOST_MAX_LENGTH,		0x10000000000ULL)	\
	X(NPU_ADDR_NONE,		0)			\
	X(NPU_ADDR_DEVICE,		1)			\
	X(NPU_ADDR_HOST,		2)			\
	X(NPU_ADDR_MIRROR,		3)			\
	X(NPU_STREAM_DESTROY_FORCE,	0x1)			\
	X(NPU_OP_COPY,			1)			\
	X(NPU_OP_MEMSET,		2)			\
	X(NPU_OP_WRITE_VALUE,		3)			\
	X(NPU_OP_WAIT_VALUE,		4)			\
	X(NPU_OP_WAIT_STREAM,		5)			\
	X(NPU_OP_TIMESTAMP,		6)			\
	X(NPU_OP_COPY_2D,		7)			\
	X(NPU_OP_FILL32,		8)			\
	X(NPU_OP_PREFETCH,		9)			\
	X(NPU_OP_COPY_BATCH,		10)			\
	X(NPU_OP_REDUCE,		11)			\
	X(NPU_OP_RANDOM,		12)			\
	X(NPU_OP_MODEL,			13)			\
	X(NPU_OP_SWITCH,		14)			\
	X(NPU_OP_KERNEL,		15)			\
	X(NPU_RANDOM_DROPOUT,		0)			\
	X(NPU_RANDOM_UNIFORM,		1)			\
	X(NPU_RANDOM_NORMAL,		2)			\
	X(NPU_RANDOM_TRUNCATED_NORMAL,	3)			\
	X(NPU_RANDOM_TYPE_INT32,	0)			\
	X(NPU_RANDOM_TYPE_INT64,	1)			\
	X(NPU_RANDOM_TYPE_UINT32,	2)			\
	X(NPU_RANDOM_TYPE_UINT64,	3)			\
	X(NPU_RANDOM_TYPE_BF16,		4)			\
	X(NPU_RANDOM_TYPE_FP16,		5)			\
	X(NPU_RANDOM_TYPE_FP32,		6)			\
	X(NPU_RANDOM_PARAM0_ADDR,	0x1)			\
	X(NPU_RANDOM_PARAM1_ADDR,	0x2)			\
	X(NPU_RANDOM_SEED_ADDR,		0x4)			\
	X(NPU_RANDOM_COUNT_ADDR,	0x8)			\
	X(NPU_RANDOM_SIZE_V1,		56)			\
	X(NPU_CMD_DST_HOST,		0x1)			\
	X(NPU_CMD_SRC_HOST,		0x2)			\
	X(NPU_CMD_DST_PEER,		0x4)			\
	X(NPU_CMD_SRC_PEER,		0x8)			\
	X(NPU_CMD_DST_USER,		0x40)			\
	X(NPU_CMD_SRC_USER,		0x80)			\
	X(NPU_WAIT_GEQ,			0x00)			\
	X(NPU_WAIT_EQ,			0x10)			\
	X(NPU_WAIT_AND,			0x20)			\
	X(NPU_WAIT_NOR,			0x30)			\
	X(NPU_WAIT_COND_MASK,		0x30)			\
	X(NPU_CMD_SIZE_V1,		40)			\
	X(NPU_COPY_2D_MAX_HEIGHT,	0x1000000)		\
	X(NPU_SUBMIT_MAX_CMDS,		4096)			\
	X(NPU_COPY_DESC_SIZE_V1,	24)			\
	X(NPU_COPY_BATCH_MAX,		4096)			\
	X(NPU_MODEL_MAX_CMDS,		0x100000)		\
	X(NPU_SUBMIT_WAIT,		0x1)			\
	X(NPU_SUBMIT_FLAGS_MASK,	0x1)			\
	X(NPU_SHARE_ANY_PID,		0x1)			\
	X(NPU_SHARE_MAX_PIDS,		1024)			\
	X(NPU_STREAM_STOP_ON_FAULT,	0x1)			\
	X(NPU_FAULT_WRITE,		0x1)			\
	X(NPU_FAULT_HOST,		0x2)			\
	X(NPU_FAULT_UCE,		0x4)			\
	X(NPU_FAULT_AICORE,		0x8)			\
	X(NPU_FAULT_TRAP,		0x10)			\
	X(NPU_STREAM_MODE_MASK,		0x1)			\
	X(NPU_DMABUF_CLOEXEC,		0x1)			\
	X(NPU_DMABUF_READONLY,		0x2)			\
	X(NPU_DMABUF_FLAGS_MASK,	0x3)			\
	X(NPU_MIRROR_POPULATE,		0x1)			\
	X(NPU_MIRROR_FLAGS_MASK,	0x1)			\
	X(NPU_DMABUF_IMPORT_READONLY,	0x1)			\
	X(NPU_DMABUF_IMPORT_FLAGS_MASK,	0x1)			\
	X(NPU_APERTURE_CLOEXEC,		0x1)			\
	X(NPU_APERTURE_EXECUTOR,	0x2)			\
	X(NPU_APERTURE_FLAGS_MASK,	0x3)			\
	X(NPU_KERNEL_ARGS_DEVICE,	0x1)			\
	X(NPU_KERNEL_FLAGS_MASK,	0x1)			\
	X(NPU_KERNEL_CORE_VECTOR,	0)			\
	X(NPU_KERNEL_CORE_CUBE,		1)			\
	X(NPU_KERNEL_CORE_MIX,		2)			\
	X(NPU_KERNEL_SAT_SATURATION,	0)			\
	X(NPU_KERNEL_SAT_INFNAN,	1)			\
	X(NPU_KERNEL_MAX_ARGS,		0x10000)		\
	X(NPU_KERNEL_MAX_BLOCKS,	65535)			\
	X(NPU_KERNEL_SIZE_V1,		72)			\
	X(NPU_KERNEL_EVENT_RUN,		1)			\
	X(NPU_KERNEL_EVENT_CANCEL,	2)			\
	X(NPU_KERNEL_STATUS_OK,		0)			\
	X(NPU_KERNEL_STATUS_FAULT,	1)			\
	X(NPU_KERNEL_DONE_FAULT_MASK,	0x15)

/* The flags masks: __u32, as the fields they check. */
#define NPU_MASKS(X)						\
	X(NPU_MAP_FLAGS_MASK)					\
	X(NPU_HOST_FLAGS_MASK)					\
	X(NPU_WAIT_COND_MASK)					\
	X(NPU_SUBMIT_FLAGS_MASK)				\
	X(NPU_STREAM_MODE_MASK)					\
	X(NPU_DMABUF_FLAGS_MASK)				\
	X(NPU_MIRROR_FLAGS_MASK)				\
	X(NPU_DMABUF_IMPORT_FLAGS_MASK)				\
	X(NPU_APERTURE_FLAGS_MASK)				\
	X(NPU_KERNEL_FLAGS_MASK)				\
	X(NPU_KERNEL_DONE_FAULT_MASK)

/* ---- the same, at compile time -------------------------------------- */

#define STRUCT_ASSERT(s, size, align)						\
	_Static_assert(sizeof(struct s) == (size), "sizeof(struct " #s ")");	\
	_Static_assert(_Alignof(struct s) == (align), "alignment of " #s);	\
	_Static_assert(sizeof(struct s) % 8 == 0, #s ": size not a multiple of 8");
NPU_STRUCTS(STRUCT_ASSERT)

#define IOCTL_ASSERT(name, nr, s, last, first)					\
	_Static_assert(NPU_CMD_##name == (nr), "NPU_CMD_" #name);		\
	_Static_assert(NPU_IOCTL_##name == _IO(NPU_TYPE, (nr)), "NPU_IOCTL_" #name); \
	_Static_assert(_IOC_DIR(NPU_IOCTL_##name) == _IOC_NONE &&		\
		       _IOC_SIZE(NPU_IOCTL_##name) == 0, "NPU_IOCTL_" #name ": _IO"); \
	_Static_assert(OFFSETOFEND(s, last) == (first), "first size of " #name); \
	_Static_assert(offsetof(struct s, size) == 0 &&				\
		       SIZEOF_FIELD(s, size) == 4, #s ": size first");
NPU_IOCTLS(IOCTL_ASSERT)
NPU_APERTURE_IOCTLS(IOCTL_ASSERT)

#define FIELD_ASSERT(s, f, off, size)						\
	_Static_assert(offsetof(struct s, f) == (off) && SIZEOF_FIELD(s, f) == (size), \
		       "layout of " #s "." #f);					\
	_Static_assert((size) != 8 || ((off) % 8 == 0 && ALIGNOF_FIELD(s, f) == 8), \
		       #s "." #f ": 64-bit field not 8-byte aligned");
NPU_FIELDS(FIELD_ASSERT)

#define CONSTANT_ASSERT(name, value)	_Static_assert((name) == (value), #name);
NPU_CONSTANTS(CONSTANT_ASSERT)

#define MASK_ASSERT(name)	_Static_assert(_Generic((name), __u32: 1, default: 0), \
					       #name " is not __u32");
NPU_MASKS(MASK_ASSERT)

/* 64-bit values, as the __u64 fields that carry them */
_Static_assert(sizeof(NPU_PAGE_4K) == 8 && sizeof(NPU_PAGE_2M) == 8 &&
	       sizeof(NPU_PAGE_1G) == 8 && sizeof(NPU_HOST_MAX_LENGTH) == 8,
	       "page sizes and NPU_HOST_MAX_LENGTH are 64-bit");
/* struct npu_cmd's first release ended at value */
_Static_assert(OFFSETOFEND(npu_cmd, value) == NPU_CMD_SIZE_V1, "NPU_CMD_SIZE_V1");
_Static_assert(sizeof(struct npu_copy_desc) == NPU_COPY_DESC_SIZE_V1, "NPU_COPY_DESC_SIZE_V1");
_Static_assert(sizeof(struct npu_random) == NPU_RANDOM_SIZE_V1, "NPU_RANDOM_SIZE_V1");
_Static_assert(sizeof(struct npu_kernel) == NPU_KERNEL_SIZE_V1, "NPU_KERNEL_SIZE_V1");
/* the wait condition does not share bits with the address-space flags */
_Static_assert(((NPU_CMD_DST_HOST | NPU_CMD_SRC_HOST | NPU_CMD_DST_PEER |
		 NPU_CMD_SRC_PEER | NPU_CMD_DST_USER | NPU_CMD_SRC_USER) &
		NPU_WAIT_COND_MASK) == 0, "command flags and wait condition overlap");
/* one major, releases only go forward */
_Static_assert(NPU_DRIVER_VERSION >> 16 == 1 && NPU_DRIVER_VERSION >= 0x00010600,
	       "NPU_DRIVER_VERSION");

/* ---- the tables, for the TAP tests ---------------------------------- */

struct layout_struct {
	const char *name;
	size_t size, align, want_size, want_align;
};

struct layout_ioctl {
	const char *name, *type, *last;
	unsigned long value, nr, want_nr;
	size_t first, want_first;
};

struct layout_field {
	const char *type, *name;
	size_t off, size, align, want_off, want_size;
};

struct layout_constant {
	const char *name;
	unsigned long long value, want;
};

#define STRUCT_ROW(s, sz, al)	{ #s, sizeof(struct s), _Alignof(struct s), sz, al },
static const struct layout_struct structs[] = { NPU_STRUCTS(STRUCT_ROW) };

#define IOCTL_ROW(name, nr_, s, l, first_)					\
	{ "NPU_IOCTL_" #name, #s, #l, NPU_IOCTL_##name, NPU_CMD_##name, nr_,	\
	  OFFSETOFEND(s, l), first_ },
static const struct layout_ioctl ioctls[] = { NPU_IOCTLS(IOCTL_ROW) };
static const struct layout_ioctl aperture_ioctls[] = { NPU_APERTURE_IOCTLS(IOCTL_ROW) };

#define FIELD_ROW(s, f, o, sz)							\
	{ #s, #f, offsetof(struct s, f), SIZEOF_FIELD(s, f), ALIGNOF_FIELD(s, f), o, sz },
static const struct layout_field fields[] = { NPU_FIELDS(FIELD_ROW) };

#define CONSTANT_ROW(name, v)	{ #name, (unsigned long long)(name), v },
static const struct layout_constant constants[] = { NPU_CONSTANTS(CONSTANT_ROW) };

#define N(a)	(sizeof(a) / sizeof((a)[0]))

static const struct layout_struct *find_struct(const char *name)
{
	for (size_t i = 0; i < N(structs); i++)
		if (!strcmp(structs[i].name, name))
			return &structs[i];
	return NULL;
}

TEST(struct_sizes)
{
	for (size_t i = 0; i < N(structs); i++) {
		const struct layout_struct *s = &structs[i];

		printf("# struct %-20s %3zu bytes, aligned %zu\n", s->name, s->size, s->align);
		EXPECT_EQ(s->want_size, s->size);
		EXPECT_EQ(s->want_align, s->align);
		EXPECT_EQ(0, s->size % 8);
	}
}

TEST(first_release_sizes)
{
	for (size_t i = 0; i < N(ioctls); i++) {
		const struct layout_ioctl *c = &ioctls[i];
		const struct layout_struct *s = find_struct(c->type);

		printf("# %-26s struct %-19s first release up to %-10s %3zu of %3zu bytes\n",
		       c->name, c->type, c->last, c->first, s ? s->size : 0);
		EXPECT_EQ(c->want_first, c->first);
		ASSERT_NONNULL(s);
		EXPECT_LE(c->first, s->size);
		EXPECT_EQ(0, c->first % 4);
	}
	printf("# struct %-19s first release up to %-10s %3zu of %3zu bytes (NPU_CMD_SIZE_V1)\n",
	       "npu_cmd", "value", (size_t)OFFSETOFEND(npu_cmd, value), sizeof(struct npu_cmd));
	EXPECT_EQ(NPU_CMD_SIZE_V1, OFFSETOFEND(npu_cmd, value));
}

TEST(ioctl_numbers)
{
	for (size_t i = 0; i < N(ioctls); i++) {
		const struct layout_ioctl *c = &ioctls[i];

		printf("# %-26s %#06lx: _IO(%#x, %#lx)\n", c->name, c->value,
		       (unsigned int)_IOC_TYPE(c->value), c->nr);
		EXPECT_EQ(c->want_nr, c->nr);
		EXPECT_EQ(NPU_CMD_BASE + i, c->nr);	/* consecutive, none skipped */
		EXPECT_EQ(NPU_TYPE, _IOC_TYPE(c->value));
		EXPECT_EQ(c->nr, _IOC_NR(c->value));
		EXPECT_EQ(_IOC_NONE, _IOC_DIR(c->value));
		EXPECT_EQ(0, _IOC_SIZE(c->value));
#if _IOC_NONE == 0U
		EXPECT_EQ((NPU_TYPE << 8) | c->nr, c->value);
#endif
	}
}

/* The aperture's: numbered on from the device's, frozen the same way. */
TEST(aperture_ioctls)
{
	for (size_t i = 0; i < N(aperture_ioctls); i++) {
		const struct layout_ioctl *c = &aperture_ioctls[i];
		const struct layout_struct *s = find_struct(c->type);

		printf("# %-26s %#06lx: _IO(%#x, %#lx), struct %s from %zu bytes\n", c->name,
		       c->value, (unsigned int)_IOC_TYPE(c->value), c->nr, c->type, c->first);
		EXPECT_EQ(c->want_nr, c->nr);
		EXPECT_EQ(NPU_CMD_BASE + N(ioctls) + i, c->nr);
		EXPECT_EQ(NPU_TYPE, _IOC_TYPE(c->value));
		EXPECT_EQ(_IOC_NONE, _IOC_DIR(c->value));
		EXPECT_EQ(0, _IOC_SIZE(c->value));
		EXPECT_EQ(c->want_first, c->first);
		ASSERT_NONNULL(s);
		EXPECT_EQ(s->size, c->first);	/* 1.12 knows all of it */
	}
}

TEST(field_offsets)
{
	for (size_t i = 0; i < N(fields); i++) {
		const struct layout_field *f = &fields[i];

		printf("# %s.%s: offset %zu, %zu bytes\n", f->type, f->name, f->off, f->size);
		EXPECT_EQ(f->want_off, f->off);
		EXPECT_EQ(f->want_size, f->size);
	}
}

TEST(u64_fields_aligned)
{
	size_t n = 0;

	for (size_t i = 0; i < N(fields); i++) {
		const struct layout_field *f = &fields[i];

		if (f->size != 8)
			continue;
		n++;
		printf("# %s.%s: offset %zu, aligned %zu\n", f->type, f->name, f->off, f->align);
		EXPECT_EQ(0, f->off % 8);
		EXPECT_EQ(8, f->align);
	}
	EXPECT_LT(0, n);
}

/*
 * The fields, in declaration order, cover each struct from its start to
 * its end: no padding the compiler adds (it would differ between ABIs
 * and could leak kernel stack bytes), and no field missing from the table.
 */
TEST(no_holes)
{
	for (size_t i = 0; i < N(structs); i++) {
		const struct layout_struct *s = &structs[i];
		size_t end = 0, n = 0;

		for (size_t j = 0; j < N(fields); j++) {
			const struct layout_field *f = &fields[j];

			if (strcmp(f->type, s->name))
				continue;
			EXPECT_EQ(end, f->off);
			end = f->off + f->size;
			n++;
		}
		printf("# struct %-20s %2zu fields, %3zu of %3zu bytes\n", s->name, n, end, s->size);
		EXPECT_EQ(s->size, end);
	}
}

TEST(constants)
{
	for (size_t i = 0; i < N(constants); i++) {
		const struct layout_constant *k = &constants[i];

		printf("# %-26s %#llx\n", k->name, k->value);
		EXPECT_EQ(k->want, k->value);
	}
	printf("# %-26s %#x (%u.%u.%u)\n", "NPU_DRIVER_VERSION", NPU_DRIVER_VERSION,
	       NPU_DRIVER_VERSION >> 16, (NPU_DRIVER_VERSION >> 8) & 0xff,
	       NPU_DRIVER_VERSION & 0xff);
	EXPECT_EQ(1, NPU_DRIVER_VERSION >> 16);
	EXPECT_LE(0x00010600, NPU_DRIVER_VERSION);
}

TEST(masks_are_u32)
{
#define MASK_CHECK(name)							\
	printf("# %-26s %#x, __u32\n", #name, name);				\
	EXPECT_EQ(1, _Generic((name), __u32: 1, default: 0));
	NPU_MASKS(MASK_CHECK)
}

TEST_HARNESS_MAIN
