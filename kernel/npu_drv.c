// SPDX-License-Identifier: GPL-2.0
/*
 * npu: simulated accelerator memory driver - module, devices, contexts
 * and the ioctl table.
 *
 * Each simulated NPU rides on a PCI function nobody else drives (QEMU's
 * pci-testdev), so host memory is DMA-mapped through that function's real
 * IOMMU domain; with no such function it falls back to a platform device
 * with direct DMA. Every open of /dev/npuN is a context of its own.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/sched/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <uapi/npu.h>
#include <uapi/npu_netlink.h>

#include "npu_aperture.h"
#include "npu_devmem.h"
#include "npu_dmabuf.h"
#include "npu_dmabuf_import.h"
#include "npu_drv.h"
#include "npu_engine.h"
#include "npu_fdinfo.h"
#include "npu_host.h"
#include "npu_mirror.h"
#include "npu_model.h"
#include "npu_netlink.h"
#include "npu_share.h"
#include "npu_stream.h"
#include "npu_submit.h"
#include "npu_uce.h"
#include "npu_vm.h"

static unsigned int num_devices = 1;
module_param(num_devices, uint, 0444);
MODULE_PARM_DESC(num_devices, "Number of simulated NPUs, 1-8 (default 1)");

/* NULL until given: then the chip profile's (npu_resolve_model()). */
static char *mem_size;
module_param(mem_size, charp, 0444);
MODULE_PARM_DESC(mem_size,
		 "Device memory of each NPU, comma-separated, K/M/G suffixes, 64M-1T in 2M steps; the last value repeats (default: the chip profile's, 16G for NPUSim-A1)");

static bool carrier = true;
module_param(carrier, bool, 0444);
MODULE_PARM_DESC(carrier, "Carry NPUs on free pci-testdev functions (default Y)");

/* The longest a simulated reset keeps its device down. */
#define NPU_RESET_MS_MAX	60000

/*
 * How long a device reset keeps the device down once its contexts are
 * stopped and its memory wiped, as a real device reloads its firmware:
 * opens wait that long, and the management plane sees the reset.
 */
static unsigned int reset_ms;
module_param(reset_ms, uint, 0644);
MODULE_PARM_DESC(reset_ms,
		 "Milliseconds a device reset keeps the device down after stopping its contexts, 0-60000 (default 0)");

/*
 * The chip model GET_INFO reports: a name and the compute cores it has.
 * Nothing runs on the cores; programs read the counts to size their work.
 * A name in npu_chip_profiles[] brings that part's core counts and memory
 * size, so that the device queries agree with what programs (torch_npu's
 * SoC table, the vendor's platform files) know of it; cube_cores,
 * vector_cores and mem_size, when given, override the profile.
 */
static char *soc_name = "NPUSim-A1";
module_param(soc_name, charp, 0444);
MODULE_PARM_DESC(soc_name,
		 "Chip model every NPU reports, 1-31 printable ASCII characters; Ascend910B1-B4, Ascend910_9391/9392 and Ascend310B1 bring that part's cores and memory (default NPUSim-A1)");

/* A core count and whether it was given (else the profile decides). */
struct npu_core_param {
	unsigned int count;
	bool given;
};

static int npu_core_param_set(const char *val, const struct kernel_param *kp)
{
	struct npu_core_param *p = kp->arg;
	int ret = kstrtouint(val, 0, &p->count);

	if (!ret)
		p->given = true;
	return ret;
}

static int npu_core_param_get(char *buf, const struct kernel_param *kp)
{
	const struct npu_core_param *p = kp->arg;

	return sysfs_emit(buf, "%u\n", p->count);
}

static const struct kernel_param_ops npu_core_param_ops = {
	.set = npu_core_param_set,
	.get = npu_core_param_get,
};

static struct npu_core_param cube_cores;
module_param_cb(cube_cores, &npu_core_param_ops, &cube_cores, 0444);
MODULE_PARM_DESC(cube_cores, "Cube (AI) cores each NPU models, 1-65535 (default: the chip profile's, 24 for NPUSim-A1)");

static struct npu_core_param vector_cores;
module_param_cb(vector_cores, &npu_core_param_ops, &vector_cores, 0444);
MODULE_PARM_DESC(vector_cores, "Vector cores each NPU models, 1-65535 (default: the chip profile's, 48 for NPUSim-A1)");

/*
 * Parts whose name soc_name may give, with their AI (cube) and vector core
 * counts and HBM size from the vendor's platform files; the first is the
 * simulated chip's own and the profile of any other name.
 */
static const struct npu_chip_profile {
	const char *name;
	u16 cube_cores;
	u16 vector_cores;
	const char *mem_size;
} npu_chip_profiles[] = {
	{ "NPUSim-A1", 24, 48, "16G" },
	{ "Ascend910B1", 24, 48, "64G" },
	{ "Ascend910B2", 24, 48, "64G" },
	{ "Ascend910B3", 20, 40, "64G" },
	{ "Ascend910B4", 20, 40, "32G" },
	{ "Ascend910_9391", 24, 48, "64G" },
	{ "Ascend910_9392", 24, 48, "64G" },
	{ "Ascend310B1", 1, 1, "32G" },
};

static struct npu_device *npu_devices[NPU_MAX_DEVICES];
static atomic64_t npu_next_ctx_id = ATOMIC64_INIT(0);
static u64 npu_mem_sizes[NPU_MAX_DEVICES];

/* Carriers found by the PCI driver; written only while it registers. */
static struct pci_dev *npu_carriers[NPU_MAX_DEVICES];
static unsigned int npu_num_carriers;

static int npu_get_info_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_get_info *args = arg;
	struct npu_device *npu = ctx->npu;

	if (args->flags || args->__reserved)
		return -EINVAL;
	args->device_index = npu->index;
	args->driver_version = NPU_DRIVER_VERSION;
	args->caps = (npu->domain ? NPU_CAP_IOMMU : 0) |
		     (npu->carrier ? NPU_CAP_PCI_CARRIER : 0);
	args->mem_total = npu->mem->size;
	args->mem_used = atomic64_read(&npu->mem->used);
	args->page_sizes = NPU_PAGE_4K | NPU_PAGE_2M | NPU_PAGE_1G;
	args->va_start = NPU_VA_START;
	args->va_end = NPU_VA_END;
	args->tgid = task_tgid_vnr(current);
	args->num_devices = num_devices;
	if (npu->carrier) {
		args->pci_domain = pci_domain_nr(npu->carrier->bus);
		args->pci_bus = npu->carrier->bus->number;
		args->pci_devfn = npu->carrier->devfn;
	} else {
		args->pci_domain = 0;
		args->pci_bus = 0;
		args->pci_devfn = 0;
	}
	args->cube_cores = cube_cores.count;
	args->vector_cores = vector_cores.count;
	memcpy(args->uuid, &npu->uuid, sizeof(args->uuid));
	strscpy_pad(args->soc_name, soc_name, sizeof(args->soc_name));
	args->mem_peak = atomic64_read(&npu->mem->peak);
	args->clock_ns = npu_device_clock(npu);
	return 0;
}

static int npu_peer_enable_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_peer_enable *args = arg;

	if (args->flags || args->__reserved)
		return -EINVAL;
	if (args->device >= num_devices)
		return -ENODEV;
	if (args->device == ctx->npu->index)
		return -EINVAL;
	return test_and_set_bit(args->device, &ctx->peers) ? -EALREADY : 0;
}

static int npu_peer_disable_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_peer_enable *args = arg;

	if (args->flags || args->__reserved)
		return -EINVAL;
	if (args->device >= num_devices)
		return -ENODEV;
	if (args->device == ctx->npu->index)
		return -EINVAL;
	if (!test_and_clear_bit(args->device, &ctx->peers))
		return -ENOENT;
	/* the peer's pages the aperture maps: gone before the return */
	npu_vm_peer_disabled(&ctx->vm);
	return 0;
}

unsigned int npu_device_count(void)
{
	return num_devices;
}

/* Device @index: it exists from module load to unload, unplugged or not. */
struct npu_device *npu_device_lookup(unsigned int index)
{
	return index < num_devices ? npu_devices[index] : NULL;
}

const char *npu_soc_name(void)
{
	return soc_name;
}

/* Every argument struct; NPU_IOCTL_OP() checks that each fits. */
union npu_ioctl_buf {
	struct npu_get_info get_info;
	struct npu_handle_args mem_alloc;
	struct npu_mem_free mem_free;
	struct npu_va_range va_range;
	struct npu_map map;
	struct npu_unmap unmap;
	struct npu_access access;
	struct npu_host_register host_register;
	struct npu_host_unregister host_unregister;
	struct npu_addr_query addr_query;
	struct npu_stream_create_args stream_create;
	struct npu_stream_destroy stream_destroy;
	struct npu_submit submit;
	struct npu_stream_sync stream_sync;
	struct npu_share_export_args share_export;
	struct npu_share_pids share_pids;
	struct npu_handle_args share_import;
	struct npu_peer_enable peer_enable;
	struct npu_stream_mode stream_mode;
	struct npu_share_export_args ipc_export;
	struct npu_ipc_destroy ipc_destroy;
	struct npu_dmabuf_export_args dmabuf_export;
	struct npu_mirror_map mirror_map;
	struct npu_mirror_unmap mirror_unmap;
	struct npu_mem_uce_query uce_query;
	struct npu_mem_repair repair;
	struct npu_model_create_args model_create;
	struct npu_model_destroy model_destroy;
	struct npu_aperture_open_args aperture_open;
};

/* Errors of one ioctl that come with outputs, at most. */
#define NPU_IOCTL_OUT_ERRS	3

/**
 * struct npu_ioctl_op - one entry of the ioctl table
 * @size: the struct as this module knows it
 * @min_size: the struct as the first release knew it
 * @execute: the handler; it gets the struct copied in
 * @out: copy the struct back out on success
 * @out_errs: copy it back out with these errors too (errors that come
 *	with outputs: STREAM_SYNC's -EIO, -EHWPOISON and -ETIME); the unused
 *	entries 0
 * @finish: after a successful @execute, once the struct is copied out
 *	(0) or failed to (-EFAULT): commits what must come last - publishes
 *	the new object or name, fd_install()s the new fd - or undoes
 *	@execute's work. Every creating ioctl has one: reserve, respond,
 *	publish.
 */
struct npu_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	int (*execute)(struct npu_context *ctx, void *arg);
	bool out;
	int out_errs[NPU_IOCTL_OUT_ERRS];
	void (*finish)(struct npu_context *ctx, void *arg, int ret);
};

#define NPU_IOCTL_OP_FINISH(_ioctl, _fn, _struct, _last, _out, _finish)	\
	[_IOC_NR(_ioctl) - NPU_CMD_BASE] = {				\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(_struct) >		\
					  sizeof(union npu_ioctl_buf)),	\
		.min_size = offsetofend(_struct, _last),		\
		.execute = _fn,						\
		.out = _out,						\
		.finish = _finish,					\
	}

#define NPU_IOCTL_OP(_ioctl, _fn, _struct, _last, _out)			\
	NPU_IOCTL_OP_FINISH(_ioctl, _fn, _struct, _last, _out, NULL)

/* An ioctl whose errors (the arguments after @_last) come with outputs too. */
#define NPU_IOCTL_OP_ERR_OUT(_ioctl, _fn, _struct, _last, ...)		\
	[_IOC_NR(_ioctl) - NPU_CMD_BASE] = {				\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(_struct) >		\
					  sizeof(union npu_ioctl_buf)),	\
		.min_size = offsetofend(_struct, _last),		\
		.execute = _fn,						\
		.out = true,						\
		.out_errs = { __VA_ARGS__ },				\
	}

/* Does @op copy its struct back out with error @err (not 0)? */
static bool npu_ioctl_err_out(const struct npu_ioctl_op *op, int err)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(op->out_errs); i++)
		if (op->out_errs[i] == err)
			return true;
	return false;
}

static const struct npu_ioctl_op npu_ioctl_ops[] = {
	NPU_IOCTL_OP(NPU_IOCTL_GET_INFO, npu_get_info_ioctl,
		     struct npu_get_info, va_end, true),
	NPU_IOCTL_OP_FINISH(NPU_IOCTL_MEM_ALLOC, npu_mem_alloc_ioctl,
			    struct npu_mem_alloc, __reserved, true,
			    npu_handle_finish),
	NPU_IOCTL_OP(NPU_IOCTL_MEM_FREE, npu_mem_free_ioctl,
		     struct npu_mem_free, handle, false),
	NPU_IOCTL_OP(NPU_IOCTL_VA_RESERVE, npu_va_reserve_ioctl,
		     struct npu_va_range, length, false),
	NPU_IOCTL_OP(NPU_IOCTL_VA_RELEASE, npu_va_release_ioctl,
		     struct npu_va_range, length, false),
	NPU_IOCTL_OP(NPU_IOCTL_MAP, npu_map_ioctl,
		     struct npu_map, __reserved, false),
	NPU_IOCTL_OP(NPU_IOCTL_UNMAP, npu_unmap_ioctl,
		     struct npu_unmap, addr, false),
	NPU_IOCTL_OP(NPU_IOCTL_SET_ACCESS, npu_set_access_ioctl,
		     struct npu_access, access, false),
	NPU_IOCTL_OP(NPU_IOCTL_GET_ACCESS, npu_get_access_ioctl,
		     struct npu_access, access, true),
	NPU_IOCTL_OP(NPU_IOCTL_HOST_REGISTER, npu_host_register_ioctl,
		     struct npu_host_register, dev_addr, false),
	NPU_IOCTL_OP(NPU_IOCTL_HOST_UNREGISTER, npu_host_unregister_ioctl,
		     struct npu_host_unregister, addr, false),
	NPU_IOCTL_OP(NPU_IOCTL_ADDR_QUERY, npu_addr_query_ioctl,
		     struct npu_addr_query, host_flags, true),
	NPU_IOCTL_OP_FINISH(NPU_IOCTL_STREAM_CREATE, npu_stream_create_ioctl,
			    struct npu_stream_create, __reserved, true,
			    npu_stream_create_finish),
	NPU_IOCTL_OP(NPU_IOCTL_STREAM_DESTROY, npu_stream_destroy_ioctl,
		     struct npu_stream_destroy, __reserved, false),
	NPU_IOCTL_OP(NPU_IOCTL_SUBMIT, npu_submit_ioctl,
		     struct npu_submit, seqno, true),
	NPU_IOCTL_OP_ERR_OUT(NPU_IOCTL_STREAM_SYNC, npu_stream_sync_ioctl,
			     struct npu_stream_sync, seqno, -EIO, -EHWPOISON,
			     -ETIME),
	NPU_IOCTL_OP_FINISH(NPU_IOCTL_SHARE_EXPORT, npu_share_export_ioctl,
			    struct npu_share_export, shareable, true,
			    npu_share_export_finish),
	NPU_IOCTL_OP(NPU_IOCTL_SHARE_SET_PIDS, npu_share_set_pids_ioctl,
		     struct npu_share_pids, __reserved, false),
	NPU_IOCTL_OP_FINISH(NPU_IOCTL_SHARE_IMPORT, npu_share_import_ioctl,
			    struct npu_share_import, __reserved, true,
			    npu_handle_finish),
	NPU_IOCTL_OP(NPU_IOCTL_PEER_ENABLE, npu_peer_enable_ioctl,
		     struct npu_peer_enable, __reserved, false),
	NPU_IOCTL_OP(NPU_IOCTL_STREAM_SET_MODE, npu_stream_set_mode_ioctl,
		     struct npu_stream_mode, __reserved, false),
	NPU_IOCTL_OP(NPU_IOCTL_PEER_DISABLE, npu_peer_disable_ioctl,
		     struct npu_peer_enable, __reserved, false),
	NPU_IOCTL_OP_FINISH(NPU_IOCTL_IPC_EXPORT, npu_ipc_export_ioctl,
			    struct npu_ipc_export, key, true,
			    npu_share_export_finish),
	NPU_IOCTL_OP(NPU_IOCTL_IPC_SET_PIDS, npu_ipc_set_pids_ioctl,
		     struct npu_share_pids, __reserved, false),
	NPU_IOCTL_OP_FINISH(NPU_IOCTL_IPC_IMPORT, npu_ipc_import_ioctl,
			    struct npu_share_import, page_size, true,
			    npu_handle_finish),
	NPU_IOCTL_OP(NPU_IOCTL_IPC_DESTROY, npu_ipc_destroy_ioctl,
		     struct npu_ipc_destroy, key, false),
	NPU_IOCTL_OP_FINISH(NPU_IOCTL_DMABUF_EXPORT, npu_dmabuf_export_ioctl,
			    struct npu_dmabuf_export, __reserved, true,
			    npu_dmabuf_export_finish),
	NPU_IOCTL_OP(NPU_IOCTL_MIRROR_MAP, npu_mirror_map_ioctl,
		     struct npu_mirror_map, length, false),
	NPU_IOCTL_OP(NPU_IOCTL_MIRROR_UNMAP, npu_mirror_unmap_ioctl,
		     struct npu_mirror_unmap, addr, false),
	NPU_IOCTL_OP(NPU_IOCTL_MEM_UCE_QUERY, npu_mem_uce_query_ioctl,
		     struct npu_mem_uce_query, range_size, true),
	NPU_IOCTL_OP(NPU_IOCTL_MEM_REPAIR, npu_mem_repair_ioctl,
		     struct npu_mem_repair, repaired, true),
	NPU_IOCTL_OP_FINISH(NPU_IOCTL_DMABUF_IMPORT, npu_dmabuf_import_ioctl,
			    struct npu_dmabuf_import, page_size, true,
			    npu_handle_finish),
	NPU_IOCTL_OP_FINISH(NPU_IOCTL_MODEL_CREATE, npu_model_create_ioctl,
			    struct npu_model_create, __reserved, true,
			    npu_model_create_finish),
	NPU_IOCTL_OP(NPU_IOCTL_MODEL_DESTROY, npu_model_destroy_ioctl,
		     struct npu_model_destroy, __reserved, false),
	NPU_IOCTL_OP_FINISH(NPU_IOCTL_APERTURE_OPEN, npu_aperture_open_ioctl,
			    struct npu_aperture_open, __reserved, true,
			    npu_aperture_open_finish),
};

static long npu_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct npu_context *ctx = file->private_data;
	void __user *uarg = (void __user *)arg;
	unsigned int nr = _IOC_NR(cmd);
	const struct npu_ioctl_op *op;
	union npu_ioctl_buf buf;
	u32 size;
	int ret, idx;

	if (_IOC_TYPE(cmd) != NPU_TYPE || _IOC_DIR(cmd) != _IOC_NONE ||
	    _IOC_SIZE(cmd) || nr < NPU_CMD_BASE ||
	    nr >= NPU_CMD_BASE + ARRAY_SIZE(npu_ioctl_ops))
		return -ENOTTY;
	op = &npu_ioctl_ops[nr - NPU_CMD_BASE];
	if (!op->execute)
		return -ENOTTY;
	/* Pins and charges go to the context's mm: no one else may ask. */
	if (current->mm != ctx->mm)
		return -EPERM;

	if (get_user(size, (u32 __user *)uarg))
		return -EFAULT;
	if (size < op->min_size)
		return -EINVAL;
	if (size > PAGE_SIZE)	/* bounds the scan for a non-zero tail */
		return -E2BIG;
	ret = copy_struct_from_user(&buf, op->size, uarg, size);
	if (ret)
		return ret;
	/*
	 * Inside the unplug barrier: once the carrier's remove has set the
	 * flag and waited for the ioctls inside, none can start DMA or pin.
	 */
	if (!npu_device_enter(ctx->npu, &idx))
		return -ENODEV;
	/*
	 * A device reset took the context down: nothing runs in it any
	 * more, and a call the reset interrupted (a wait for the streams it
	 * aborted) says so too. The reset waits for the calls inside the
	 * barrier that saw @lost clear.
	 */
	ret = READ_ONCE(ctx->lost) ? -ESTALE : op->execute(ctx, &buf);
	if (ret && READ_ONCE(ctx->lost))
		ret = -ESTALE;
	npu_device_exit(ctx->npu, idx);
	if (ret && !npu_ioctl_err_out(op, ret))
		return ret;
	/* An error with outputs stays the answer if they cannot be written. */
	if (op->out && copy_to_user(uarg, &buf, min_t(u32, size, op->size)))
		ret = ret ?: -EFAULT;
	if (op->finish)
		op->finish(ctx, &buf, ret);
	return ret;
}

/*
 * Stop everything that holds the process's pages: DMA first, then the
 * imported dma-bufs' attachments and the host registrations (DMA-unmap,
 * unpin, uncharge). Runs once: when the
 * context's mm goes away (exit, exec), when its carrier is removed, or at
 * close, whichever comes first. Pins must not outlive the mm that made
 * them: no one can use them any more, and a file kept open across exec
 * or inherited by a child would otherwise hold them on.
 */
static void npu_context_shutdown(struct npu_context *ctx)
{
	mutex_lock(&ctx->shutdown_lock);
	if (!ctx->shut) {
		/* Peer copies from other contexts stop reaching this one. */
		npu_vm_kill(&ctx->vm);
		npu_vm_peers_release(&ctx->vm);
		npu_streams_release(ctx);
		npu_kernels_shutdown(ctx);
		npu_models_release(ctx);
		npu_imports_release(ctx);
		npu_mirror_release(ctx);
		npu_host_release(ctx);
		ctx->shut = true;
	}
	mutex_unlock(&ctx->shutdown_lock);
}

static void npu_context_mm_release(struct mmu_notifier *mn,
				   struct mm_struct *mm)
{
	npu_context_shutdown(container_of(mn, struct npu_context, mn));
}

static const struct mmu_notifier_ops npu_context_mn_ops = {
	.release = npu_context_mm_release,
};

static int npu_open(struct inode *inode, struct file *file)
{
	struct npu_device *npu = container_of(file->private_data,
					      struct npu_device, misc);
	struct npu_context *ctx;
	int ret;

	if (!current->mm)
		return -EPERM;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return -ENOMEM;
	kref_init(&ctx->ref);
	ctx->npu = npu;
	ctx->mm = current->mm;
	ctx->tgid = current->tgid;
	get_task_comm(ctx->comm, current);
	ctx->uid = current_uid();
	mutex_init(&ctx->shutdown_lock);
	mutex_init(&ctx->import_lock);
	INIT_LIST_HEAD(&ctx->imports);
	spin_lock_init(&ctx->rss_lock);
	init_waitqueue_head(&ctx->host_wq);
	init_waitqueue_head(&ctx->queue_wq);
	npu_kernels_init(ctx);
	npu_objs_init(&ctx->objs);
	ctx->engine_user = npu_engine_user_get(ctx->uid);
	if (!ctx->engine_user) {
		ret = -ENOMEM;
		goto free;
	}
	ret = npu_vm_init(&ctx->vm, npu->index);
	if (ret)
		goto put_user;
	ctx->mn.ops = &npu_context_mn_ops;
	ret = mmu_notifier_register(&ctx->mn, ctx->mm);
	if (ret)
		goto vm_release;
	mutex_lock(&npu->ctx_lock);
	/* A reset under way: the device takes contexts again once it is done. */
	while (npu->resetting && !npu->unplugged) {
		mutex_unlock(&npu->ctx_lock);
		if (file->f_flags & O_NONBLOCK)
			ret = -EAGAIN;
		else
			ret = wait_event_killable(npu->reset_wq,
						  !READ_ONCE(npu->resetting));
		if (ret)
			goto unregister;
		mutex_lock(&npu->ctx_lock);
	}
	ret = npu->unplugged ? -ENODEV : 0;
	if (!ret) {
		/* under ctx_lock: the list stays in id order */
		ctx->id = atomic64_inc_return(&npu_next_ctx_id);
		list_add_tail(&ctx->node, &npu->contexts);
	}
	mutex_unlock(&npu->ctx_lock);
	if (ret)
		goto unregister;
	ctx->memcg = get_mem_cgroup_from_mm(current->mm);
	ctx->pid = get_task_pid(current, PIDTYPE_TGID);
	mmgrab(ctx->mm);
	file->private_data = ctx;
	return 0;

unregister:
	mmu_notifier_unregister(&ctx->mn, ctx->mm);
vm_release:
	npu_vm_release(&ctx->vm);
put_user:
	npu_engine_user_put(ctx->engine_user);
free:
	kfree(ctx);
	return ret;
}

static void npu_context_free(struct kref *ref)
{
	struct npu_context *ctx = container_of(ref, struct npu_context, ref);

	npu_kernels_free(ctx);
	npu_aperture_free(ctx);
	npu_engine_user_put(ctx->engine_user);
	mem_cgroup_put(ctx->memcg);
	put_pid(ctx->pid);
	mmdrop(ctx->mm);
	kfree(ctx);
}

void npu_context_put(struct npu_context *ctx)
{
	kref_put(&ctx->ref, npu_context_free);
}

/* The last reference to the file is gone: stop DMA, then free in reverse. */
static int npu_release(struct inode *inode, struct file *file)
{
	struct npu_context *ctx = file->private_data;
	struct npu_device *npu = ctx->npu;

	/* Unplug either has shut the context down already or never sees it. */
	mutex_lock(&npu->ctx_lock);
	list_del(&ctx->node);
	mutex_unlock(&npu->ctx_lock);
	/* Runs the shutdown if the mm is still there; waits for one running. */
	mmu_notifier_unregister(&ctx->mn, ctx->mm);
	npu_context_shutdown(ctx);
	/*
	 * A STREAM_CREATE that unplug's shutdown overtook publishes its
	 * stream after it: no command can reach it any more, but it is freed.
	 */
	npu_streams_release(ctx);
	npu_models_release(ctx);
	npu_share_release(ctx);
	npu_vm_release(&ctx->vm);
	npu_handles_release(ctx);
	npu_objs_destroy(&ctx->objs);
	npu_devmem_close(ctx);
	npu_context_put(ctx);
	return 0;
}

static const struct file_operations npu_fops = {
	.owner = THIS_MODULE,
	.open = npu_open,
	.release = npu_release,
	.unlocked_ioctl = npu_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
	.show_fdinfo = npu_show_fdinfo,
};

/**
 * npu_context_get_fd() - the context behind an fd of this process
 * @fd: file descriptor
 *
 * The reference keeps the struct, not the file: closing the file still
 * releases the context, and holders see @dead.
 *
 * Return: the context with a reference (npu_context_put()), or NULL if @fd
 * is not an npu file opened by the calling process.
 */
struct npu_context *npu_context_get_fd(int fd)
{
	struct file *file = fget(fd);
	struct npu_context *ctx;

	if (!file)
		return NULL;
	ctx = file->f_op == &npu_fops ? file->private_data : NULL;
	if (ctx && ctx->mm == current->mm)
		kref_get(&ctx->ref);
	else
		ctx = NULL;
	fput(file);
	return ctx;
}

static int npu_carrier_probe(struct pci_dev *pdev,
			     const struct pci_device_id *id)
{
	int ret;

	if (npu_num_carriers >= num_devices)
		return -ENODEV;	/* leave it to someone else, e.g. vfio-pci */
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	pci_set_master(pdev);
	/* A device page-table entry holds 52 address bits (npu_pt_map() refuses more). */
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(52));
	if (ret)
		return ret;
	dma_set_max_seg_size(&pdev->dev, UINT_MAX);
	npu_carriers[npu_num_carriers++] = pci_dev_get(pdev);
	return 0;
}

/*
 * The carrier is going away (hot unplug, sysfs remove, module unload)
 * while files may be open and DMA in flight. As drm_dev_unplug() does:
 * mark the NPU unplugged, wait until no ioctl runs, then stop every
 * context's DMA and release its host memory while the DMA device still
 * exists; the device node goes, open files get -ENODEV from then on and
 * keep only their device memory until they close.
 */
static void npu_device_unplug(struct npu_device *npu)
{
	struct npu_context *ctx;

	/*
	 * Stop the streams first: that ends the ioctls that wait for them
	 * (STREAM_SYNC, STREAM_DESTROY, HOST_UNREGISTER, SUBMIT), so the
	 * grace period below ends too.
	 */
	mutex_lock(&npu->ctx_lock);
	WRITE_ONCE(npu->unplugged, true);
	list_for_each_entry(ctx, &npu->contexts, node) {
		npu_streams_abort(ctx);
		npu_kernels_wake(ctx);
	}
	mutex_unlock(&npu->ctx_lock);
	synchronize_srcu(&npu->unplug_srcu);

	mutex_lock(&npu->ctx_lock);
	list_for_each_entry(ctx, &npu->contexts, node)
		npu_context_shutdown(ctx);
	mutex_unlock(&npu->ctx_lock);
	misc_deregister(&npu->misc);
	dev_info(npu->misc.this_device, "carrier %s removed\n",
		 pci_name(npu->carrier));
}

/**
 * npu_device_reset() - reset @npu, as a hot reset of a real device would
 * @npu: the device
 *
 * Every context open on the device is lost: its streams are aborted here
 * (a running copy stops at its next chunk, queued commands are dropped,
 * the waits for them end) and every ioctl on it answers -ESTALE from now
 * on. npu_device_reset_work() does the rest, off the caller: it waits for
 * the ioctls in flight, releases the lost contexts' host memory, wipes the
 * device's memory and keeps the device down for reset_ms; opens wait
 * until then. The lost contexts keep their device memory (its contents
 * gone) until their files close. DOC: npu device reset in uapi/npu.h.
 *
 * Return: 0, the reset under way; -EBUSY if one is already, -ENODEV if
 * the carrier was removed.
 */
int npu_device_reset(struct npu_device *npu)
{
	struct npu_context *ctx;
	u32 lost = 0;

	mutex_lock(&npu->ctx_lock);
	if (npu->unplugged || npu->resetting) {
		mutex_unlock(&npu->ctx_lock);
		return npu->unplugged ? -ENODEV : -EBUSY;
	}
	WRITE_ONCE(npu->resetting, true);
	list_for_each_entry(ctx, &npu->contexts, node) {
		WRITE_ONCE(ctx->lost, true);
		lost++;
	}
	/* The flag first: a stream published meanwhile stops either way. */
	list_for_each_entry(ctx, &npu->contexts, node) {
		npu_streams_abort(ctx);
		npu_kernels_wake(ctx);
	}
	npu->reset_lost = lost;
	mutex_unlock(&npu->ctx_lock);
	dev_info(npu->misc.this_device, "reset: %u context(s) lost\n", lost);
	npu_netlink_reset(npu, NPU_NL_RESET_BEGIN, lost);
	queue_work(system_unbound_wq, &npu->reset_work);
	return 0;
}

/*
 * The reset's second half. No context joins the list while @resetting is
 * set, so every listed one is lost; those that close meanwhile shut
 * themselves down.
 */
static void npu_device_reset_work(struct work_struct *work)
{
	struct npu_device *npu = container_of(work, struct npu_device,
					      reset_work);
	struct npu_context *ctx;
	u32 lost;

	/* The ioctls that saw a context before it was lost end first. */
	synchronize_srcu(&npu->unplug_srcu);
	mutex_lock(&npu->ctx_lock);
	list_for_each_entry(ctx, &npu->contexts, node)
		npu_context_shutdown(ctx);
	mutex_unlock(&npu->ctx_lock);
	/* Nothing of the device moves any more: its memory is lost. */
	npu_devmem_wipe(npu->mem);
	msleep(min_t(unsigned int, READ_ONCE(reset_ms), NPU_RESET_MS_MAX));

	mutex_lock(&npu->ctx_lock);
	WRITE_ONCE(npu->resetting, false);
	npu->resets++;
	lost = npu->reset_lost;
	mutex_unlock(&npu->ctx_lock);
	wake_up_all(&npu->reset_wq);
	dev_info(npu->misc.this_device, "reset done\n");
	npu_netlink_reset(npu, NPU_NL_RESET_DONE, lost);
}

static void npu_carrier_remove(struct pci_dev *pdev)
{
	unsigned int i;

	for (i = 0; i < num_devices; i++)
		if (npu_devices[i] && npu_devices[i]->carrier == pdev)
			npu_device_unplug(npu_devices[i]);
}

static const struct pci_device_id npu_carrier_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT, 0x0005) },	/* QEMU pci-testdev */
	{ }
};

static struct pci_driver npu_carrier_driver = {
	.name = "npu",
	.id_table = npu_carrier_ids,
	.probe = npu_carrier_probe,
	.remove = npu_carrier_remove,
	.driver.suppress_bind_attrs = true,
};

static const char *npu_iommu_type_name(struct iommu_domain *domain)
{
	if (!domain)
		return "none";
	switch (domain->type) {
	case IOMMU_DOMAIN_IDENTITY:
		return "identity";
	case IOMMU_DOMAIN_DMA:
		return "dma";
	case IOMMU_DOMAIN_DMA_FQ:
		return "dma-fq";
	case IOMMU_DOMAIN_UNMANAGED:
		return "unmanaged";
	default:
		return "other";
	}
}

static int npu_device_dma_setup(struct npu_device *npu)
{
	struct iommu_domain *domain;

	if (npu->index < npu_num_carriers) {
		npu->carrier = npu_carriers[npu->index];
		npu->dma_dev = &npu->carrier->dev;
	} else {
		npu->pdev = platform_device_register_simple("npu-sim",
							    npu->index, NULL, 0);
		if (IS_ERR(npu->pdev))
			return PTR_ERR(npu->pdev);
		npu->dma_dev = &npu->pdev->dev;
		dma_coerce_mask_and_coherent(npu->dma_dev, DMA_BIT_MASK(52));
		dma_set_max_seg_size(npu->dma_dev, UINT_MAX);
	}
	domain = iommu_get_domain_for_dev(npu->dma_dev);
	npu->iommu = npu_iommu_type_name(domain);
	if (domain && (domain->type & __IOMMU_DOMAIN_PAGING))
		npu->domain = domain;
	return 0;
}

static void npu_device_destroy(struct npu_device *npu)
{
	/* The netlink family is gone: no reset starts any more. */
	flush_work(&npu->reset_work);
	if (!npu->unplugged)
		misc_deregister(&npu->misc);
	put_device(npu->misc.this_device);
	cleanup_srcu_struct(&npu->unplug_srcu);
	npu_devmem_destroy(npu->mem);
	if (npu->pdev)
		platform_device_unregister(npu->pdev);
	kfree(npu);
}

static struct npu_device *npu_device_create(unsigned int index, u64 size)
{
	struct npu_device *npu = kzalloc(sizeof(*npu), GFP_KERNEL);
	int ret;

	if (!npu)
		return ERR_PTR(-ENOMEM);
	npu->index = index;
	npu->created_ns = ktime_get_ns();
	npu_busy_init(&npu->busy);
	uuid_gen(&npu->uuid);
	snprintf(npu->name, sizeof(npu->name), "npu%u", index);
	mutex_init(&npu->ctx_lock);
	INIT_LIST_HEAD(&npu->contexts);
	init_waitqueue_head(&npu->reset_wq);
	INIT_WORK(&npu->reset_work, npu_device_reset_work);
	ret = init_srcu_struct(&npu->unplug_srcu);
	if (ret)
		goto free;
	ret = npu_device_dma_setup(npu);
	if (ret)
		goto cleanup_srcu;
	npu->mem = npu_devmem_create(size);
	if (IS_ERR(npu->mem)) {
		ret = PTR_ERR(npu->mem);
		goto unregister_pdev;
	}
	npu->misc.minor = MISC_DYNAMIC_MINOR;
	npu->misc.name = npu->name;
	npu->misc.fops = &npu_fops;
	npu->misc.parent = npu->dma_dev;
	/* Users of the device are in the group the udev rule names. */
	npu->misc.mode = 0660;
	ret = misc_register(&npu->misc);
	if (ret)
		goto destroy_mem;
	/* Fault reports name it until the NPU goes, unplugged or not. */
	get_device(npu->misc.this_device);
	dev_info(npu->misc.this_device, "%llu MiB device memory, DMA %s\n",
		 size >> 20, npu->domain ? "through the IOMMU" : "direct");
	return npu;

destroy_mem:
	npu_devmem_destroy(npu->mem);
unregister_pdev:
	if (npu->pdev)
		platform_device_unregister(npu->pdev);
cleanup_srcu:
	cleanup_srcu_struct(&npu->unplug_srcu);
free:
	kfree(npu);
	return ERR_PTR(ret);
}

/* Parse mem_size into one size per device, or say what is wrong. */
static int npu_parse_mem_sizes(void)
{
	char *list, *cur, *tok, *end;
	unsigned int i = 0;
	u64 size = 0;

	list = kstrdup(mem_size ? mem_size : "", GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	cur = list;
	while (i < NPU_MAX_DEVICES && (tok = strsep(&cur, ","))) {
		size = memparse(tok, &end);
		if (!*tok || *end || size < SZ_64M || size > SZ_1T ||
		    !IS_ALIGNED(size, SZ_2M)) {
			pr_err("npu: mem_size '%s': each size must be 64M..1T in steps of 2M\n",
			       tok);
			kfree(list);
			return -EINVAL;
		}
		npu_mem_sizes[i++] = size;
	}
	kfree(list);
	if (cur) {
		pr_err("npu: mem_size: more than %d sizes\n", NPU_MAX_DEVICES);
		return -EINVAL;
	}
	for (; i < NPU_MAX_DEVICES; i++)
		npu_mem_sizes[i] = size;
	return 0;
}

/* What soc_name's profile gives that no parameter did; sysfs shows the result. */
static void npu_resolve_model(void)
{
	const struct npu_chip_profile *p = &npu_chip_profiles[0];
	unsigned int i;

	for (i = 0; soc_name && i < ARRAY_SIZE(npu_chip_profiles); i++)
		if (!strcmp(soc_name, npu_chip_profiles[i].name))
			p = &npu_chip_profiles[i];
	if (!cube_cores.given)
		cube_cores.count = p->cube_cores;
	if (!vector_cores.given)
		vector_cores.count = p->vector_cores;
	/* A string literal: the param code frees only what it allocated. */
	if (!mem_size)
		mem_size = (char *)p->mem_size;
}

/* The chip model's parameters, or say what is wrong. */
static int npu_check_model(void)
{
	size_t len = soc_name ? strlen(soc_name) : 0, i;

	for (i = 0; i < len; i++)
		if (soc_name[i] < 0x20 || soc_name[i] > 0x7e)
			break;
	if (!len || len >= NPU_SOC_NAME_LEN || i < len) {
		pr_err("npu: soc_name: must be 1..%d printable ASCII characters\n",
		       NPU_SOC_NAME_LEN - 1);
		return -EINVAL;
	}
	if (!cube_cores.count || cube_cores.count > U16_MAX ||
	    !vector_cores.count || vector_cores.count > U16_MAX) {
		pr_err("npu: cube_cores=%u vector_cores=%u: each must be 1..%u\n",
		       cube_cores.count, vector_cores.count, U16_MAX);
		return -EINVAL;
	}
	return 0;
}

static void npu_put_carriers(void)
{
	while (npu_num_carriers)
		pci_dev_put(npu_carriers[--npu_num_carriers]);
}

static void npu_destroy_devices(void)
{
	unsigned int i;

	for (i = 0; i < num_devices; i++) {
		if (npu_devices[i])
			npu_device_destroy(npu_devices[i]);
		npu_devices[i] = NULL;
	}
}

static int __init npu_init(void)
{
	unsigned int i;
	int ret;

	/* The device MMU and the uapi alignments are 4 KiB pages. */
	BUILD_BUG_ON(PAGE_SIZE != SZ_4K);

	if (!num_devices || num_devices > NPU_MAX_DEVICES) {
		pr_err("npu: num_devices=%u: must be 1..%d\n", num_devices,
		       NPU_MAX_DEVICES);
		return -EINVAL;
	}
	npu_resolve_model();
	ret = npu_parse_mem_sizes();
	if (ret)
		return ret;
	ret = npu_check_model();
	if (ret)
		return ret;
	ret = npu_engine_init();
	if (ret)
		return ret;
	ret = npu_aperture_init();
	if (ret)
		goto engine_exit;
	if (carrier) {
		ret = pci_register_driver(&npu_carrier_driver);
		if (ret)
			goto aperture_exit;
	}
	for (i = 0; i < num_devices; i++) {
		npu_devices[i] = npu_device_create(i, npu_mem_sizes[i]);
		if (IS_ERR(npu_devices[i])) {
			ret = PTR_ERR(npu_devices[i]);
			npu_devices[i] = NULL;
			pr_err("npu: cannot create npu%u: %d\n", i, ret);
			goto destroy;
		}
	}
	/* Last: requests find every device created. */
	ret = npu_netlink_init();
	if (ret)
		goto destroy;
	return 0;

destroy:
	if (carrier)
		pci_unregister_driver(&npu_carrier_driver);
	npu_destroy_devices();
	npu_put_carriers();
aperture_exit:
	npu_aperture_exit();
engine_exit:
	npu_engine_exit();
	return ret;
}

static void __exit npu_exit(void)
{
	/* First: no request runs once the devices start going. */
	npu_netlink_exit();
	/* Carried NPUs are unplugged first, the others destroyed as they are. */
	if (carrier)
		pci_unregister_driver(&npu_carrier_driver);
	/* Every file is closed: this waits for the mirror faults still running. */
	npu_engine_exit();
	npu_destroy_devices();
	npu_put_carriers();
	npu_aperture_exit();
}

module_init(npu_init);
module_exit(npu_exit);

MODULE_DESCRIPTION("Simulated NPU memory driver: pinned host memory, device VMM and DMA");
MODULE_LICENSE("GPL");
MODULE_DEVICE_TABLE(pci, npu_carrier_ids);
