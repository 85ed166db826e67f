/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: the one place where kernel versions differ. Every difference is
 * decided by a compile probe (conftest.sh writes npu_conftest.h), never
 * by a version number.
 */
#ifndef __NPU_COMPAT_H__
#define __NPU_COMPAT_H__

#include "npu_conftest.h"

/*
 * Configuration the driver cannot do without: 2 MiB device pages are
 * multi-index xarray entries, and a context learns through an MMU
 * notifier that its process's mm is gone.
 */
#if !IS_ENABLED(CONFIG_XARRAY_MULTI)
#error "npu needs CONFIG_XARRAY_MULTI"
#endif
#if !IS_ENABLED(CONFIG_MMU_NOTIFIER)
#error "npu needs CONFIG_MMU_NOTIFIER"
#endif

/*
 * Mirrors (npu_mirror.c) need the HMM mirror, which Kconfig only selects
 * (RDMA's on-demand paging, amdgpu, nouveau, ...): Debian's 6.1 and 6.12
 * have it. Without it MIRROR_MAP answers -EOPNOTSUPP.
 */
#if IS_ENABLED(CONFIG_HMM_MIRROR)
#define NPU_HAVE_HMM 1
#endif

/*
 * The GPU buddy allocator: drm_buddy (a module) on older kernels,
 * gpu_buddy (built in) where it moved out of DRM; its free_list() grew a
 * flags argument on the way.
 */
#ifdef NPU_HAVE_GPU_BUDDY
#include <linux/gpu_buddy.h>
#define npu_buddy			gpu_buddy
#define npu_buddy_block			gpu_buddy_block
#define npu_buddy_init			gpu_buddy_init
#define npu_buddy_fini			gpu_buddy_fini
#define npu_buddy_alloc_blocks		gpu_buddy_alloc_blocks
#define npu_buddy_block_offset		gpu_buddy_block_offset
#define npu_buddy_block_size		gpu_buddy_block_size
static inline void npu_buddy_free_list(struct gpu_buddy *mm,
				       struct list_head *blocks)
{
	gpu_buddy_free_list(mm, blocks, 0);
}
#else
#include <drm/drm_buddy.h>
#define npu_buddy			drm_buddy
#define npu_buddy_block			drm_buddy_block
#define npu_buddy_init			drm_buddy_init
#define npu_buddy_fini			drm_buddy_fini
#define npu_buddy_alloc_blocks		drm_buddy_alloc_blocks
#define npu_buddy_block_offset		drm_buddy_block_offset
#define npu_buddy_block_size		drm_buddy_block_size
static inline void npu_buddy_free_list(struct drm_buddy *mm,
				       struct list_head *blocks)
{
#ifdef NPU_HAVE_DRM_BUDDY_FREE_FLAGS
	drm_buddy_free_list(mm, blocks, 0);
#else
	drm_buddy_free_list(mm, blocks);
#endif
}
#endif

/*
 * The attributes of a generic netlink dump request, parsed by the core:
 * in a struct genl_info where dumps got one, in genl_dumpit_info before.
 */
#include <net/genetlink.h>
static inline struct nlattr **npu_genl_dump_attrs(struct netlink_callback *cb)
{
#ifdef NPU_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/*
 * Multicast groups only CAP_SYS_ADMIN may join: Linux 6.6, and the 6.1.y
 * stable series (Debian's 6.1 has it). Without it the faults group would
 * show every user's processes to anyone.
 */
#ifndef GENL_MCAST_CAP_SYS_ADMIN
#error "npu needs GENL_MCAST_CAP_SYS_ADMIN (Linux 6.6, or a 6.1.y stable kernel that has it)"
#endif

/*
 * Importing a symbol namespace: MODULE_IMPORT_NS() took the bare name,
 * and takes a string literal since Linux 6.13 (where a bare name no
 * longer compiles, and a literal would name another namespace before).
 */
#include <linux/module.h>
#ifdef NPU_HAVE_IMPORT_NS_TOKEN
#define NPU_IMPORT_NS_DMA_BUF()		MODULE_IMPORT_NS(DMA_BUF)
#else
#define NPU_IMPORT_NS_DMA_BUF()		MODULE_IMPORT_NS("DMA_BUF")
#endif

/*
 * The OOM killer sees a process's memory through its mm's RSS counters;
 * device memory counts as shared memory (npu_devmem.c). Since 6.2 the
 * counters are per-CPU counters; before, atomics. Neither kernel exports
 * the helper that also fires the rss_stat tracepoint, so it does not fire.
 */
#include <linux/mm_types.h>
#ifdef NPU_HAVE_PERCPU_RSS_STAT
#include <linux/percpu_counter.h>
static inline void npu_mm_add_shmem(struct mm_struct *mm, long pages)
{
	percpu_counter_add(&mm->rss_stat[MM_SHMEMPAGES], pages);
}
#else
static inline void npu_mm_add_shmem(struct mm_struct *mm, long pages)
{
	atomic_long_add(pages, &mm->rss_stat.count[MM_SHMEMPAGES]);
}
#endif

/* vm_flags became read-only outside the mm's helpers in 6.3. */
#include <linux/mm.h>
#ifdef NPU_HAVE_VM_FLAGS_CLEAR
#define npu_vm_flags_clear(vma, flags)	vm_flags_clear(vma, flags)
#define npu_vm_flags_set(vma, flags)	vm_flags_set(vma, flags)
#else
#define npu_vm_flags_clear(vma, flags)	((vma)->vm_flags &= ~(flags))
#define npu_vm_flags_set(vma, flags)	((vma)->vm_flags |= (flags))
#endif

/*
 * A fault handler that returns VM_FAULT_RETRY has dropped the lock the
 * fault holds. Since 6.4 that may be the VMA's own lock (per-VMA locks)
 * rather than the mmap_lock, and release_fault_lock() knows which;
 * before, it is always the mmap_lock, held for reading.
 */
#ifdef NPU_HAVE_RELEASE_FAULT_LOCK
static inline bool npu_fault_vma_locked(const struct vm_fault *vmf)
{
	return vmf->flags & FAULT_FLAG_VMA_LOCK;
}

static inline void npu_release_fault_lock(struct vm_fault *vmf)
{
	release_fault_lock(vmf);
}
#else
static inline bool npu_fault_vma_locked(const struct vm_fault *vmf)
{
	return false;
}

static inline void npu_release_fault_lock(struct vm_fault *vmf)
{
	mmap_read_unlock(vmf->vma->vm_mm);
}
#endif

#endif /* __NPU_COMPAT_H__ */
