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
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>

#include <uapi/npu.h>

#include "npu_aperture.h"
#include "npu_compat.h"
#include "npu_drv.h"
#include "npu_kernel.h"
#include "npu_vm.h"

#define NPU_APERTURE_MAGIC	0x6e707561	/* "npua" */

/* Aperture files a context may have at a time (uapi: DOC: npu aperture). */
#define NPU_MAX_APERTURES	16

static struct vfsmount *npu_aperture_mnt;

static int npu_aperture_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, NPU_APERTURE_MAGIC) ? 0 : -ENOMEM;
}

static struct file_system_type npu_aperture_fs_type = {
	.name = "npu_aperture",
	.init_fs_context = npu_aperture_init_fs_context,
	.kill_sb = kill_anon_super,
};

static vm_fault_t npu_aperture_fault(struct vm_fault *vmf)
{
	struct npu_context *ctx = vmf->vma->vm_private_data;

	return npu_vm_cpu_fault(&ctx->vm, ctx->npu, ctx->memcg, vmf, false);
}

/* A write to a page mapped read-only: mapped again, if the right is there. */
static vm_fault_t npu_aperture_pfn_mkwrite(struct vm_fault *vmf)
{
	struct npu_context *ctx = vmf->vma->vm_private_data;

	return npu_vm_cpu_fault(&ctx->vm, ctx->npu, ctx->memcg, vmf, true);
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

int npu_aperture_init(void)
{
	npu_aperture_mnt = kern_mount(&npu_aperture_fs_type);
	return PTR_ERR_OR_ZERO(npu_aperture_mnt);
}

void npu_aperture_exit(void)
{
	kern_unmount(npu_aperture_mnt);
}
