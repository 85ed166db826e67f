// SPDX-License-Identifier: GPL-2.0
/*
 * npu: the aperture - a context's device VA space seen by CPUs
 * (APERTURE_OPEN; DOC: npu aperture in the uapi header).
 *
 * A GPU shows its VRAM to CPUs through a BAR aperture; npu shows a
 * context's whole device VA space through a file that is mapped at the
 * identity (file offset == address), so that code running on the
 * simulated AI cores dereferences device pointers as they are. The
 * mapping is VM_PFNMAP and starts empty: every page is faulted in by the
 * VA space itself (npu_vm_cpu_fault()), through the engine's translation
 * and rights checks, and taken out again by the VA space whenever a
 * translation changes or goes (npu_vm_cpu_zap_locked()). The PTEs hold
 * no page references; that is sound because every path that frees or
 * repurposes what a translation names removes the translation, and so
 * the PTEs, first.
 *
 * All aperture files of a context share one inode of this file's pseudo
 * file system, so one unmap_mapping_range() on its mapping reaches every
 * process that maps the aperture. The inode lives as long as the context;
 * each file holds the context.
 *
 * A mirrored page (MIRROR_MAP) not faulted in yet is faulted in as the
 * engine's fault does, from the mirror's own process, with the fault's
 * lock dropped, and the access is retried (npu_aperture_mirror_fault()).
 * Its PTE is the mirrored page itself; the mirror's invalidation takes it
 * out before the core mm changes the page (npu_aperture_zap_sync()).
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>
#include <linux/sched/mm.h>
#include <linux/workqueue.h>

#include <uapi/npu.h>

#include "npu_aperture.h"
#include "npu_compat.h"
#include "npu_drv.h"
#include "npu_kernel.h"
#include "npu_mirror.h"
#include "npu_vm.h"

#define NPU_APERTURE_MAGIC	0x6e707561	/* "npua" */

/* Aperture files a context may have at a time (uapi: DOC: npu aperture). */
#define NPU_MAX_APERTURES	16

/* A mirror fault through the aperture brings in the rest of this too. */
#define NPU_APERTURE_FAULT_AHEAD	(16 * PAGE_SIZE)

static struct vfsmount *npu_aperture_mnt;
/* Zaps for mirrors' invalidations (npu_aperture_zap_sync()). */
static struct workqueue_struct *npu_aperture_wq;

static int npu_aperture_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, NPU_APERTURE_MAGIC) ? 0 : -ENOMEM;
}

static struct file_system_type npu_aperture_fs_type = {
	.name = "npu_aperture",
	.init_fs_context = npu_aperture_init_fs_context,
	.kill_sb = kill_anon_super,
};

/*
 * The access needs a page of @mirror faulted in (not there, or read-only
 * for a write). The fault-in takes the mirror's process's mmap_lock
 * (hmm_range_fault()), which need not be the faulting process's (the
 * executor's): never under the fault's own lock. So the lock is dropped
 * first, as a page cache fault drops it to wait for I/O, the page is
 * faulted in as the engine's fault does (npu_mirror_fault()) and the
 * access retried: VM_FAULT_RETRY. A fault that may not drop its lock
 * cannot wait for another process: SIGBUS, as for a failed fault-in (not
 * mapped or not writable in the process, the process gone), which is
 * answered with the lock taken again, as the core mm expects of an error.
 */
static vm_fault_t npu_aperture_mirror_fault(struct npu_context *ctx,
					    struct vm_fault *vmf,
					    struct npu_mirror *mirror)
{
	struct mm_struct *mm = vmf->vma->vm_mm;
	u64 va = (u64)vmf->pgoff << PAGE_SHIFT, done;
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	const char *why;
	int ret;

	if (!(vmf->flags & FAULT_FLAG_ALLOW_RETRY) ||
	    (vmf->flags & FAULT_FLAG_RETRY_NOWAIT)) {
		npu_mirror_put(mirror);
		return VM_FAULT_SIGBUS;
	}
	/* Under the VMA's own lock: again under the mmap_lock, then in. */
	if (npu_fault_vma_locked(vmf)) {
		npu_mirror_put(mirror);
		npu_release_fault_lock(vmf);
		return VM_FAULT_RETRY;
	}
	/* The VMA, its file and so its hold on the context may go now. */
	npu_context_get(ctx);
	npu_release_fault_lock(vmf);
	ret = npu_mirror_fault(mirror, va, NPU_APERTURE_FAULT_AHEAD, write,
			       &done, &why);
	npu_mirror_put(mirror);
	npu_context_put(ctx);
	if (!ret)
		return VM_FAULT_RETRY;
	mmap_read_lock(mm);
	return VM_FAULT_SIGBUS;
}

static vm_fault_t npu_aperture_fault(struct vm_fault *vmf)
{
	struct npu_context *ctx = vmf->vma->vm_private_data;
	struct npu_mirror *mirror;
	vm_fault_t ret;

	ret = npu_vm_cpu_fault(&ctx->vm, ctx->npu, ctx->memcg, vmf, false,
			       &mirror);
	if (mirror)
		ret = npu_aperture_mirror_fault(ctx, vmf, mirror);
	return ret;
}

/* A write to a page mapped read-only: mapped again, if the right is there. */
static vm_fault_t npu_aperture_pfn_mkwrite(struct vm_fault *vmf)
{
	struct npu_context *ctx = vmf->vma->vm_private_data;

	return npu_vm_cpu_fault(&ctx->vm, ctx->npu, ctx->memcg, vmf, true,
				NULL);
}

/* A moved mapping would no longer be at the identity. */
static int npu_aperture_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static const struct vm_operations_struct npu_aperture_vm_ops = {
	.fault = npu_aperture_fault,
	.pfn_mkwrite = npu_aperture_pfn_mkwrite,
	.mremap = npu_aperture_mremap,
};

static int npu_aperture_mmap(struct file *file, struct vm_area_struct *vma)
{
	/* shared, and never code: nothing runs from device memory */
	if (!(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	/* device VA v at CPU VA v, inside the window every VA lies in */
	if (vma->vm_pgoff != vma->vm_start >> PAGE_SHIFT ||
	    vma->vm_start < NPU_VA_START || vma->vm_end > NPU_VA_END)
		return -EINVAL;
	npu_vm_flags_clear(vma, VM_MAYEXEC);
	npu_vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = file->private_data;
	vma->vm_ops = &npu_aperture_vm_ops;
	return 0;
}

static int npu_aperture_release(struct inode *inode, struct file *file)
{
	struct npu_context *ctx = file->private_data;

	npu_kernel_release_file(ctx, file);
	atomic_long_dec(&ctx->nr_apertures);
	npu_context_put(ctx);
	return 0;
}

/* The executor's protocol (DOC: npu kernel launches): npu_kernel.c. */
static long npu_aperture_ioctl(struct file *file, unsigned int cmd,
			       unsigned long arg)
{
	return npu_kernel_ioctl(file->private_data, file, cmd,
				(void __user *)arg);
}

static __poll_t npu_aperture_poll(struct file *file, poll_table *wait)
{
	return npu_kernel_poll(file->private_data, file, wait);
}

static const struct file_operations npu_aperture_fops = {
	.owner = THIS_MODULE,
	.mmap = npu_aperture_mmap,
	.release = npu_aperture_release,
	.unlocked_ioctl = npu_aperture_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.poll = npu_aperture_poll,
	.llseek = noop_llseek,
};

/*
 * The context's inode, made at its first aperture: attached to the VA
 * space, under its lock, before any file of it exists.
 */
static struct inode *npu_aperture_inode(struct npu_context *ctx)
{
	struct inode *inode = npu_vm_cpu_inode(&ctx->vm), *mine;

	if (inode)
		return inode;
	mine = alloc_anon_inode(npu_aperture_mnt->mnt_sb);
	if (IS_ERR(mine))
		return mine;
	inode = npu_vm_cpu_attach(&ctx->vm, mine);
	if (inode != mine)
		iput(mine);
	return inode;
}

int npu_aperture_open_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_aperture_open_args *a = arg;
	struct npu_aperture_open *args = &a->uapi;
	struct inode *inode;
	struct file *file;
	int ret, fd;

	if (args->flags & ~NPU_APERTURE_FLAGS_MASK || args->__reserved)
		return -EINVAL;
	if (!npu_charge(&ctx->nr_apertures, 1, NPU_MAX_APERTURES))
		return -ENOSPC;
	inode = npu_aperture_inode(ctx);
	ret = PTR_ERR(inode);
	if (IS_ERR(inode))
		goto uncharge;
	/* the file's release puts the module (fops_put()), as anon inodes do */
	ret = -ENODEV;
	if (!try_module_get(THIS_MODULE))
		goto uncharge;
	ihold(inode);
	file = alloc_file_pseudo(inode, npu_aperture_mnt, "[npu_aperture]",
				 O_RDWR, &npu_aperture_fops);
	if (IS_ERR(file)) {
		iput(inode);
		module_put(THIS_MODULE);
		ret = PTR_ERR(file);
		goto uncharge;
	}
	npu_context_get(ctx);
	file->private_data = ctx;
	/* From here the file's release undoes everything above. */
	fd = get_unused_fd_flags(args->flags & NPU_APERTURE_CLOEXEC ?
				 O_CLOEXEC : 0);
	if (fd < 0) {
		fput(file);
		return fd;
	}
	if (args->flags & NPU_APERTURE_EXECUTOR) {
		ret = npu_kernel_executor_add(ctx, file);
		if (ret) {
			put_unused_fd(fd);
			fput(file);
			return ret;
		}
	}
	args->fd = fd;
	a->file = file;
	return 0;

uncharge:
	atomic_long_dec(&ctx->nr_apertures);
	return ret;
}

/* The answer is written back (or could not be): the fd goes in, or away. */
void npu_aperture_open_finish(struct npu_context *ctx, void *arg, int ret)
{
	struct npu_aperture_open_args *a = arg;

	if (ret) {
		put_unused_fd(a->uapi.fd);
		fput(a->file);
		return;
	}
	fd_install(a->uapi.fd, a->file);
}

/* The context is freed: its files and mappings are gone, so is the inode. */
void npu_aperture_free(struct npu_context *ctx)
{
	struct inode *inode = npu_vm_cpu_inode(&ctx->vm);

	if (inode)
		iput(inode);
}

struct npu_aperture_zap {
	struct work_struct work;
	struct completion done;
	struct address_space *mapping;
	u64 start;
	u64 len;
};

static void npu_aperture_zap_work(struct work_struct *work)
{
	struct npu_aperture_zap *zap = container_of(work, struct npu_aperture_zap,
						    work);

	unmap_mapping_range(zap->mapping, zap->start, zap->len, 1);
	complete(&zap->done);
}

/**
 * npu_aperture_zap_sync() - take [@start, + @len) out of every mapping of
 *	a context's aperture, from a mirror's invalidation
 * @inode: the aperture's inode
 * @start: device VA
 * @len: bytes
 *
 * The caller is an mmu notifier callback of the mirror's mm (maybe inside
 * reclaim) and holds none of the VA space's locks. A zap runs the
 * invalidations of each aperture mapping's own mm, which must not nest
 * inside another one (mmu_notifier_invalidate_range_start() is not
 * reentrant): it runs on a worker of a reclaim-safe workqueue and is
 * waited for. The worker takes only the aperture inode's i_mmap_rwsem
 * and the mappings' page-table locks, which nothing holds while it waits
 * for an invalidation, and it allocates nothing but what a zap gathers
 * without blocking. A zap's own invalidation may reach a mirror of the
 * same mm only where the aperture is mapped over the mirror's range,
 * where the mirror has no entries (hmm_range_fault() does not fault the
 * aperture in), so it clears none and waits for no zap.
 */
void npu_aperture_zap_sync(struct inode *inode, u64 start, u64 len)
{
	struct npu_aperture_zap zap = {
		.mapping = inode->i_mapping,
		.start = start,
		.len = len,
	};

	INIT_WORK_ONSTACK(&zap.work, npu_aperture_zap_work);
	init_completion(&zap.done);
	queue_work(npu_aperture_wq, &zap.work);
	wait_for_completion(&zap.done);
	destroy_work_on_stack(&zap.work);
}

int npu_aperture_init(void)
{
	npu_aperture_wq = alloc_workqueue("npu_aperture",
					  WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!npu_aperture_wq)
		return -ENOMEM;
	npu_aperture_mnt = kern_mount(&npu_aperture_fs_type);
	if (IS_ERR(npu_aperture_mnt)) {
		destroy_workqueue(npu_aperture_wq);
		return PTR_ERR(npu_aperture_mnt);
	}
	return 0;
}

void npu_aperture_exit(void)
{
	kern_unmount(npu_aperture_mnt);
	destroy_workqueue(npu_aperture_wq);
}
