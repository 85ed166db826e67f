// SPDX-License-Identifier: GPL-2.0
/*
 * npu: per-file usage in /proc/PID/fdinfo/FD, in the style of DRM's
 * drm-* keys, so generic tools read what each open file of /dev/npuN
 * holds. Every figure comes from the driver's own accounting; sizes are
 * in KiB, exact (everything is allocated and pinned in 4 KiB pages).
 *
 * procfs holds the file while it shows it, so the context and its
 * device stay; the context may shut down meanwhile (its mm exits, its
 * carrier goes): the figures are counters, each read once.
 */
#include <linux/fs.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/pid.h>
#include <linux/seq_file.h>

#include "npu_drv.h"
#include "npu_fdinfo.h"
#include "npu_vm.h"

/**
 * npu_context_usage() - a snapshot of what a context holds
 * @ctx: the context (its file or a reference keeps it)
 * @u: out
 *
 * Counters only, each read once: no walk, no lock, however much the
 * context holds. After shutdown the host figures are 0 (the registrations
 * and pins are gone).
 */
void npu_context_usage(struct npu_context *ctx, struct npu_context_usage *u)
{
	memset(u, 0, sizeof(*u));
	u->mem_device = atomic_long_read(&ctx->mem_charged);
	u->host_pinned = atomic64_read(&ctx->host_pinned);
	u->host_locked = atomic64_read(&ctx->host_memlock);
	u->handles = npu_obj_count(&ctx->objs, NPU_OBJ_HANDLES);
	u->imports = npu_obj_count(&ctx->objs, BIT(NPU_OBJ_IMPORT));
	u->streams = npu_obj_count(&ctx->objs, NPU_OBJ_STREAMS);
	u->models = npu_obj_count(&ctx->objs, BIT(NPU_OBJ_MODEL));
	u->queued = atomic_long_read(&ctx->queued);
	u->submits = atomic64_read(&ctx->submits);
	u->faults = atomic64_read(&ctx->faults);
	u->launches = atomic64_read(&ctx->kernels.launches);
	u->aicore_busy_ns = atomic64_read(&ctx->kernels.busy_ns);
	u->exports = atomic_long_read(&ctx->nr_exported);
	u->dmabufs = atomic_long_read(&ctx->nr_dmabufs);
	u->mappings = READ_ONCE(ctx->vm.nr_mappings);
	u->reservations = READ_ONCE(ctx->vm.nr_reservations);
	u->host_regs = READ_ONCE(ctx->vm.nr_host_regs);
	u->shut = npu_vm_dead(&ctx->vm);
}

static void npu_fdinfo_kib(struct seq_file *m, const char *key, u64 bytes)
{
	seq_printf(m, "npu-memory-%s:\t%llu KiB\n", key, bytes >> 10);
}

/* The file_operations.show_fdinfo of /dev/npuN. */
void npu_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct npu_context *ctx = file->private_data;
	struct npu_device *npu = ctx->npu;
	struct npu_context_usage u;

	npu_context_usage(ctx, &u);
	seq_printf(m, "npu-driver:\t%s\n", KBUILD_MODNAME);
	seq_printf(m, "npu-device:\t%u\n", npu->index);
	if (npu->carrier)
		seq_printf(m, "npu-pdev:\t%s\n", pci_name(npu->carrier));
	else
		seq_printf(m, "npu-platform:\t%s\n", dev_name(&npu->pdev->dev));
	/* 0 when the process is not visible in the reader's namespace. */
	seq_printf(m, "npu-pid:\t%d\n", pid_vnr(ctx->pid));
	seq_printf(m, "npu-client-id:\t%llu\n", ctx->id);
	seq_printf(m, "npu-state:\t%s\n",
		   READ_ONCE(npu->unplugged) ? "unplugged" :
		   READ_ONCE(ctx->lost) ? "reset" :
		   u.shut ? "shut-down" : "active");
	npu_fdinfo_kib(m, "device", u.mem_device);
	npu_fdinfo_kib(m, "host-pinned", u.host_pinned);
	npu_fdinfo_kib(m, "host-locked", u.host_locked);
	seq_printf(m, "npu-handles:\t%lu\n", u.handles);
	seq_printf(m, "npu-streams:\t%lu\n", u.streams);
	seq_printf(m, "npu-models:\t%lu\n", u.models);
	seq_printf(m, "npu-mappings:\t%lu\n", u.mappings);
	seq_printf(m, "npu-reservations:\t%lu\n", u.reservations);
	seq_printf(m, "npu-host-registrations:\t%lu\n", u.host_regs);
	seq_printf(m, "npu-shares-exported:\t%lu\n", u.exports);
	seq_printf(m, "npu-shares-imported:\t%lu\n", u.imports);
	seq_printf(m, "npu-dmabufs:\t%lu\n", u.dmabufs);
	seq_printf(m, "npu-commands-queued:\t%lu\n", u.queued);
	seq_printf(m, "npu-submits:\t%llu\n", u.submits);
	seq_printf(m, "npu-kernel-launches:\t%llu\n", u.launches);
	seq_printf(m, "npu-aicore-busy-ns:\t%llu\n", u.aicore_busy_ns);
}
