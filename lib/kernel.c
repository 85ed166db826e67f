// SPDX-License-Identifier: MIT
/*
 * Kernel launches. The function handles are those of binary.c's loaded
 * binaries (anything else is ACL_ERROR_RT_INVALID_HANDLE, 107017, the
 * last error set, as CANN's api_c_kernel.cc answers: CANN reads a magic
 * number at the handle's address to tell, libacl looks it up in its table
 * and never reads the caller's pointer).
 *
 * A launch is a stream command, NPU_OP_KERNEL (uapi: DOC: npu kernel
 * launches), run by the device's AI-core executor (aicore.c): at a
 * binary's first launch its image goes to the executor (a memfd) with its
 * kernels' entry symbols, and a launch's token is (the binary's id there
 * << 32 | the kernel's index). The argument block (the caller's host
 * arguments, placeholders patched with their device addresses) goes with
 * the command; the executor stores it in the stream's argument ring, in
 * device memory, where the kernel reads it, as the device's launch does.
 * A range of the ring is used again once the launch that had it
 * completed. The kernel runs with the process's saturation mode and sets
 * the context's overflow status. A kernel whose binary prints gets a
 * printf area, and the launch prints its records (kprint.c).
 *
 * On a stream that records a model (a capture, or a stream bound to a
 * model being built) the launch is recorded instead: the recording keeps
 * the block and owns device memory for it (acl_launch_record()). On a
 * stream updating a task group it replaces the group's next task, the
 * recorded launch, and runs not (acl_launch_update(), model_group.c); a
 * kernel task's aclmdlRITaskSetParams changes the recorded launch the
 * same way (acl_kernel_task_set(), model_task.c), and so does
 * aclrtTaskUpdateAsync's AI-core update: a new function and block count,
 * the block as recorded (acl_kernel_task_entry(), random.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <acl/acl.h>

#include "aicore.h"
#include "binary.h"
#include "context.h"
#include "device.h"
#include "error.h"
#include "kargs.h"
#include "kprint.h"
#include "mm.h"
#include "model_group.h"
#include "model_task.h"
#include "slots.h"
#include "stream.h"
#include "sysparam.h"

/* Bytes of a stream's argument ring: 4 blocks of the largest. */
#define ACL_KARGS_RING		(4 * NPU_KERNEL_MAX_ARGS)
#define ACL_KARGS_ALIGN		64

/* Each device's inter-core synchronisation word, kept while it is open. */
static struct acl_slot_kept acl_sync_words[ACL_MAX_DEVICES];

/*
 * @b in its device's executor: its id there, loaded at its first launch,
 * and again at the first launch after the executor was started again.
 */
static int acl_binary_aicore(struct acl_binary *b, uint32_t *id)
{
	const char **entries = NULL;
	uint32_t i, epoch;
	int fd = -1, ret;

	pthread_mutex_lock(&b->lock);
	ret = acl_aicore_epoch(b->dev, &epoch);
	if (ret)
		goto out;
	if (b->aicore_id >= 0 && b->aicore_epoch == epoch) {
		*id = (uint32_t)b->aicore_id;
		goto out;
	}
	if (!__atomic_load_n(&b->loaded, __ATOMIC_ACQUIRE)) {
		ret = acl_errf(ACLI_EHANDLE, "the kernel's binary was unloaded");
		goto out;
	}
	entries = calloc(b->nfuncs, sizeof(*entries));
	fd = memfd_create("npu-binary", MFD_CLOEXEC);
	if (!entries || fd < 0) {
		ret = acl_errf(-ENOMEM, "no memory to hand the binary to the AI-core executor");
		goto out;
	}
	if (write(fd, b->image, b->size) != (ssize_t)b->size) {
		ret = acl_errf(-ENOMEM, "cannot write the binary for the AI-core executor: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < b->nfuncs; i++)
		entries[i] = b->funcs[i].entry;
	ret = acl_aicore_load(b->dev, fd, entries, b->nfuncs, b->aicore_id, b->aicore_epoch, id, &epoch);
	if (!ret) {
		b->aicore_id = (int32_t)*id;
		b->aicore_epoch = epoch;
	}
out:
	pthread_mutex_unlock(&b->lock);
	if (fd >= 0)
		close(fd);
	free(entries);
	return ret;
}

/*
 * A model's steps name binaries by the ids they keep across executors
 * (aicore.c): after an executor died and was started again, a run loads
 * what its launches need first, as a launch would. A binary loaded there
 * already costs a compare; one unloaded since the capture is left to
 * fault on the AI core, as it did before the executor died.
 */
int acl_kcap_ready(struct acl_obj *func, uint32_t epoch)
{
	struct acl_binary *b = ((struct acl_kfunc *)func)->bin;
	uint32_t id;
	bool ready;
	int ret;

	pthread_mutex_lock(&b->lock);
	ready = b->aicore_id >= 0 && b->aicore_epoch == epoch;
	pthread_mutex_unlock(&b->lock);
	if (ready || !__atomic_load_n(&b->loaded, __ATOMIC_ACQUIRE))
		return 0;
	ret = acl_binary_aicore(b, &id);
	return ret == ACLI_EHANDLE ? (acl_err_clear(), 0) : ret;
}

/* The ring of @s, made at its first launch. */
static int acl_kargs_of(struct acl_stream *s, struct acl_kargs **out)
{
	struct acl_kargs *r;
	int ret;

	pthread_mutex_lock(&s->lock);
	r = s->kargs;
	pthread_mutex_unlock(&s->lock);
	if (r) {
		*out = r;
		return 0;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	pthread_mutex_init(&r->lock, NULL);
	r->dev = s->dev;
	r->gen = __atomic_load_n(&s->dev->gen, __ATOMIC_ACQUIRE);
	ret = acl_mm_alloc(s->dev, ACL_KARGS_RING, NPU_PAGE_4K, &r->va);
	if (ret) {
		free(r);
		return ret;
	}
	pthread_mutex_lock(&s->lock);
	if (!s->kargs) {
		s->kargs = r;
		r = NULL;
	}
	*out = s->kargs;
	pthread_mutex_unlock(&s->lock);
	/* another launch was first */
	if (r) {
		acl_mm_free(s->dev, r->va, ACL_REGION_MALLOC);
		free(r);
	}
	return 0;
}

/*
 * A range of @len bytes of @r for the next launch on @s (r->lock held):
 * the launches that used it before must have completed (their errors are
 * kept for the stream's next synchronize).
 */
static int acl_kargs_take_locked(struct acl_stream *s, struct acl_kargs *r, uint32_t len, uint32_t *off)
{
	int ret;

	if (r->head + len > ACL_KARGS_RING)
		r->head = 0;
	while (r->n) {
		uint32_t o = r->slot[r->first].off, l = r->slot[r->first].len;

		/* ranges are handed out in ring order: only the oldest can be in the way */
		if (r->n < ACL_KARGS_SLOTS && (o >= r->head + len || o + l <= r->head))
			break;
		ret = acl_stream_reach(s, r->slot[r->first].id, r->slot[r->first].seq, -1);
		if (ret && ret != -ENOENT)
			return ret;
		r->first = (r->first + 1) % ACL_KARGS_SLOTS;
		r->n--;
	}
	*off = r->head;
	r->head += len;
	return 0;
}

/* Record that the launch with seqno @seq of kernel stream @id uses [@off, +@len) of @r. */
static void acl_kargs_used_locked(struct acl_kargs *r, uint32_t off, uint32_t len, uint32_t id, uint64_t seq)
{
	uint32_t i = (r->first + r->n) % ACL_KARGS_SLOTS;

	r->slot[i].off = off;
	r->slot[i].len = len;
	r->slot[i].id = id;
	r->slot[i].seq = seq;
	r->n++;
}

/* The launch attributes npu acts on: the timeout (ms, 0: none). */
static int acl_launch_cfg(const aclrtLaunchKernelCfg *cfg, uint32_t *timeout_ms)
{
	size_t i;

	*timeout_ms = 0;
	if (!cfg)
		return 0;
	if (cfg->numAttrs && !cfg->attrs)
		return acl_errf(-EINVAL, "cfg->attrs must not be NULL with %zu attributes", cfg->numAttrs);
	for (i = 0; i < cfg->numAttrs; i++) {
		if (cfg->attrs[i].id == ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT)
			*timeout_ms = (uint32_t)cfg->attrs[i].value.timeout * 1000;
		else if (cfg->attrs[i].id == ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US)
			*timeout_ms = (uint32_t)((cfg->attrs[i].value.timeoutUs.timeoutLow +
						  ((uint64_t)cfg->attrs[i].value.timeoutUs.timeoutHigh << 32) + 999) / 1000);
	}
	return 0;
}

/* A recorded launch's placeholders: their slots get the device addresses of their data. */
struct acl_launch_ph {
	const aclrtPlaceHolderInfo *ph;
	size_t n;
};

static void acl_launch_patch(struct acl_kcap *kc, const void *arg)
{
	const struct acl_launch_ph *p = arg;
	size_t i;

	for (i = 0; i < p->n; i++) {
		uint64_t addr = kc->k.args_va + p->ph[i].dataOffset;

		memcpy(kc->blob + p->ph[i].addrOffset, &addr, sizeof(addr));
	}
}

/*
 * The launch @k of @f on @s, which records a model (captured, or bound to
 * a model being built): the recording keeps a copy of the argument block
 * (@args, @len bytes; with @dev the block's device address, which each
 * run reads as it is then) and device memory it owns for it, where each
 * run stores it for the kernel, as the vendor's capture keeps a
 * captured launch's arguments until its model is destroyed. A kernel that
 * prints gets a printf area the recording owns, cleared before each run,
 * and a host step after it that prints the run's records (the vendor's
 * printf thread reads the device's FIFO at each run). ACLI_ENOTCAPTURED
 * if @s records no more: the caller launches.
 */
static int acl_launch_record(struct acl_kfunc *f, struct acl_stream *s, const struct npu_kernel *k,
			     const void *args, size_t len, const aclrtPlaceHolderInfo *ph, size_t nph, bool dev)
{
	struct acl_launch_ph patch = { .ph = ph, .n = nph };
	bool blob = len && !dev;
	struct acl_kprint kp = { 0 };
	struct acl_kcap *kc;
	uint64_t dump = 0;
	int ret;

	kc = calloc(1, sizeof(*kc));
	if (kc && blob) {
		kc->blob = malloc(len);
		if (!kc->blob) {
			free(kc);
			kc = NULL;
		}
	}
	if (!kc)
		return acl_errf(-ENOMEM, "out of host memory for the recording of stream %p", s);
	kc->k = *k;
	acl_obj_hold(&f->obj);
	kc->func = &f->obj;
	kc->args_len = (uint32_t)len;
	if (blob) {
		memcpy(kc->blob, args, len);
		kc->k.args_len = (uint32_t)len;
	} else if (len) {
		kc->args_va = (uintptr_t)args;
	}
	if (f->prints) {
		kp.size = acl_printf_fifo_size();
		kp.blocks = k->block_dim;
		dump = (uint64_t)kp.size * kp.blocks;
		kc->k.dump_size = kp.size;
	}
	ret = acl_stream_capture_kernel(s, kc, dump, &kp.va, nph ? acl_launch_patch : NULL, &patch);
	if (!ret && dump)
		ret = acl_kprint_record(f, s, &kp);
	return ret;
}

/* The command's name of kernel @f, loaded into the executor under binary id @id. */
static uint64_t acl_kfunc_cmd_id(const struct acl_kfunc *f, uint32_t id)
{
	return (uint64_t)id << 32 | (uint64_t)(f - f->bin->funcs);
}

/*
 * npu's limit for a recorded launch @kc that is to run @f over @blocks
 * blocks: a printing kernel's printf area and print step are recorded
 * with the task, so a task that prints, or a function that does, keeps
 * its function and blocks (207000).
 */
static int acl_kcap_prints_keep(const struct acl_kcap *kc, const struct acl_kfunc *f, uint64_t blocks)
{
	if ((f->prints || kc->k.dump_size) && (&f->obj != kc->func || blocks != kc->k.block_dim))
		return acl_errf(ACLI_ERTNOTSUPP, "the kernel task or its new function prints: npu changes no function or block count of a kernel task that prints (its printf area and print step are recorded with it)");
	return 0;
}

/*
 * The command operand @k of a launch of @f over @blocks blocks on device
 * @tdev with @cfg's attributes and the argument block @args (@len bytes),
 * its @nph placeholders inside it; with @dev, @args is the block's device
 * address (8-byte aligned). The launch's checks, its binary in the
 * executor; all of @k but its overflow word and printf area.
 */
static int acl_launch_prep(struct acl_kfunc *f, uint32_t blocks, struct acl_device *tdev,
			   const aclrtLaunchKernelCfg *cfg, const void *args, size_t len,
			   const aclrtPlaceHolderInfo *ph, size_t nph, bool dev, struct npu_kernel *k)
{
	uint32_t id;
	size_t i;
	int ret;

	*k = (struct npu_kernel){ .block_dim = blocks, .core_type = NPU_KERNEL_CORE_VECTOR };
	if (!blocks || blocks > NPU_KERNEL_MAX_BLOCKS)
		return acl_errf(ACLI_ERTPARAM, "numBlocks %u is not in [1, %u]", blocks, NPU_KERNEL_MAX_BLOCKS);
	if (len > NPU_KERNEL_MAX_ARGS)
		return acl_errf(ACLI_ERTPARAM, "argsSize %zu is over %u bytes", len, NPU_KERNEL_MAX_ARGS);
	if (tdev != f->bin->dev)
		return acl_errf(ACLI_ESTREAMCTX, "the stream is of device %d, the kernel's binary of device %d",
				tdev->id, f->bin->dev->id);
	if (dev && len && ((uintptr_t)args % 8))
		return acl_errf(ACLI_ERTPARAM, "argsData %p is not 8-byte aligned", args);
	ret = acl_launch_cfg(cfg, &k->timeout_ms);
	/* the block's room for each placeholder, before anything is taken or recorded */
	for (i = 0; !ret && i < nph; i++) {
		if ((uint64_t)ph[i].addrOffset + sizeof(uint64_t) > len || ph[i].dataOffset > len)
			ret = acl_errf(ACLI_ERTPARAM, "placeholder %zu (addrOffset %u, dataOffset %u) is outside the %zu bytes of arguments",
				       i, ph[i].addrOffset, ph[i].dataOffset, len);
	}
	if (!ret)
		ret = acl_binary_aicore(f->bin, &id);
	if (ret)
		return ret;
	k->func = acl_kfunc_cmd_id(f, id);
	k->sat_mode = acl_sat_mode() == ACL_RT_OVERFLOW_MODE_INFNAN ? NPU_KERNEL_SAT_INFNAN : NPU_KERNEL_SAT_SATURATION;
	if (dev && len) {
		k->flags = NPU_KERNEL_ARGS_DEVICE;
		k->args_len = (uint32_t)len;
		k->args_va = (uintptr_t)args;
	}
	return 0;
}

/*
 * New parameters @nk for the recorded launch @kc: the launch @k of @f
 * with the block @args (@len bytes, copied; with @dev its device
 * address). @kc's overflow word (its model's context's) and printf area
 * stay.
 */
static int acl_kcap_params(const struct acl_kcap *kc, struct acl_kfunc *f, const struct npu_kernel *k,
			   const void *args, size_t len, bool dev, struct acl_kcap *nk)
{
	*nk = (struct acl_kcap){ .k = *k, .args_len = (uint32_t)len };
	nk->k.overflow_va = kc->k.overflow_va;
	nk->k.dump_va = kc->k.dump_va;
	nk->k.dump_size = kc->k.dump_size;
	if (dev) {
		nk->args_va = len ? (uintptr_t)args : 0;
	} else if (len) {
		nk->blob = malloc(len);
		if (!nk->blob)
			return acl_errf(-ENOMEM, "out of host memory for the kernel task's argument block");
		memcpy(nk->blob, args, len);
	}
	acl_obj_hold(&f->obj);
	nk->func = &f->obj;
	return 0;
}

/* A task group's update: the group's task @idx becomes a launch (acl_launch_update()). */
struct acl_grp_change {
	struct acl_task_grp *g;
	uint32_t idx;
	struct acl_device *dev;
	struct acl_kfunc *f;
	const struct npu_kernel *k;
	const void *args;
	size_t len;
	bool devargs;
	struct acl_launch_ph ph;
	struct acl_kcap was;		/* what the task was, once changed */
};

static int acl_grp_change_do(struct acl_capture *cap, void *arg)
{
	struct acl_grp_change *c = arg;
	struct acl_kcap *kc = c->g->kcs[c->idx];
	struct acl_kfunc *old = (struct acl_kfunc *)kc->func;
	int ret;

	/* the vendor's InternalUpdateTaskPrepare: a kernel of the same kind (RT_ERROR_KERNEL_TYPE) */
	if (old->core_type != c->f->core_type)
		return acl_errf(ACLI_EINTERNAL, "task %u of task group %p is a kernel of core type %u, %s one of core type %u",
				c->idx, c->g, old->core_type, c->f->name, c->f->core_type);
	ret = acl_kcap_params(kc, c->f, c->k, c->args, c->len, c->devargs, &c->was);
	if (!ret)
		ret = acl_kcap_set(cap, c->dev, kc, &c->was, c->ph.n ? acl_launch_patch : NULL, &c->ph);
	if (ret)
		acl_kcap_release(&c->was);
	return ret;
}

static void acl_grp_change_undo(void *arg)
{
	struct acl_grp_change *c = arg;

	acl_kcap_swap(c->g->kcs[c->idx], &c->was);
}

/*
 * A launch of @f (its command operand @k) on @s, which updates a task
 * group (aclmdlRICaptureTaskUpdateBegin): it replaces the group's next
 * task, the recorded launch, in place - its function, blocks, attributes
 * and block (a copy; placeholders patched as a recorded launch's are) -
 * and the model's runs queued from then on run it (model_group.c
 * acl_grp_update()). The kernel does not run now. -ENOENT (no message)
 * when @s updates no group any more: the caller launches.
 */
static int acl_launch_update(struct acl_kfunc *f, struct acl_stream *s, const struct npu_kernel *k,
			     const void *args, size_t len, const aclrtPlaceHolderInfo *ph, size_t nph, bool dev)
{
	struct acl_grp_change c = {
		.dev = s->dev, .f = f, .k = k, .args = args, .len = len, .devargs = dev, .ph = { .ph = ph, .n = nph },
	};
	int ret;

	/* a task of a group is the kernel's command alone (acl_stream_capture_kernel()) */
	if (f->prints)
		return acl_errf(ACLI_ERTNOTSUPP, "stream %p updates a task group: kernel %s prints, and npu does not record a kernel that prints in a task group",
				s, f->name);
	ret = acl_stream_grp_next(s, &c.g, &c.idx);
	if (ret)
		return ret;
	ret = acl_grp_update(c.g, acl_grp_change_do, acl_grp_change_undo, &c);
	if (!ret)
		acl_kcap_release(&c.was);
	acl_obj_put(&c.g->obj);
	return ret;
}

int acl_kernel_task_set(struct acl_capture *cap, struct acl_context *ctx, struct acl_kcap *kc,
			const aclmdlRIKernelTaskParams *p)
{
	struct acl_kfunc *f = NULL;
	struct npu_kernel k;
	struct acl_kcap nk;
	int ret;

	/* the vendor's UpdateKernelParams: the handle (NULL 107000), args, argsSize, cfg */
	if (!p->funcHandle)
		return acl_errf(ACLI_ERTPARAM, "params->kernelTaskParams.funcHandle must not be NULL");
	ret = acl_kfunc_get(p->funcHandle, &f);
	if (ret)
		return ret;
	if (!p->args)
		ret = acl_errf(ACLI_ERTPARAM, "params->kernelTaskParams.args must not be NULL");
	else if (!p->argsSize)
		ret = acl_errf(ACLI_ERTPARAM, "params->kernelTaskParams.argsSize must be positive");
	else if (p->cfg && !p->cfg->attrs)
		ret = acl_errf(ACLI_ERTPARAM, "params->kernelTaskParams.cfg->attrs must not be NULL");
	/* then a launch's checks (npu's: the vendor's AicTaskInit takes any numBlocks) */
	if (!ret)
		ret = acl_launch_prep(f, p->numBlocks, ctx->dev, p->cfg, p->args, p->argsSize, NULL, 0, !p->isHostArgs,
				      &k);
	if (!ret)
		ret = acl_kcap_prints_keep(kc, f, p->numBlocks);
	if (!ret)
		ret = acl_kcap_params(kc, f, &k, p->args, p->argsSize, !p->isHostArgs, &nk);
	if (!ret) {
		ret = acl_kcap_set(cap, ctx->dev, kc, &nk, NULL, NULL);
		/* what the task was, or the parameters not taken */
		acl_kcap_release(&nk);
	}
	acl_kfunc_put(f);
	return ret;
}

int acl_kernel_task_entry(struct acl_capture *cap, struct acl_context *ctx, struct acl_kcap *kc,
			  struct acl_kfunc *f, uint64_t blocks, struct acl_kcap *was)
{
	bool dev = kc->k.flags & NPU_KERNEL_ARGS_DEVICE;
	struct npu_kernel k = kc->k;
	uint32_t id;
	int ret;

	if (!blocks || blocks > NPU_KERNEL_MAX_BLOCKS)
		return acl_errf(ACLI_ERTPARAM, "the block count %llu at blockDimAddr is not in [1, %u]",
				(unsigned long long)blocks, NPU_KERNEL_MAX_BLOCKS);
	if (ctx->dev != f->bin->dev)
		return acl_errf(ACLI_ESTREAMCTX, "the model is of device %d, binHandle's binary of device %d",
				ctx->dev->id, f->bin->dev->id);
	ret = acl_kcap_prints_keep(kc, f, blocks);
	if (!ret)
		ret = acl_binary_aicore(f->bin, &id);
	if (ret)
		return ret;
	/* the new function's entry and blocks; the block, attributes and the rest stay */
	k.func = acl_kfunc_cmd_id(f, id);
	k.block_dim = (uint32_t)blocks;
	ret = acl_kcap_params(kc, f, &k, dev ? (const void *)(uintptr_t)kc->args_va : kc->blob, kc->args_len, dev,
			      was);
	if (!ret)
		ret = acl_kcap_set(cap, ctx->dev, kc, was, NULL, NULL);
	if (ret)
		acl_kcap_release(was);
	return ret;
}

/*
 * Launch @f over @blocks blocks on @s with the argument block @args
 * (@len bytes), its @nph placeholders patched with the device addresses
 * of their data in it; with @dev, @args is the block's device address
 * (8-byte aligned), read there by the kernel (no placeholders then).
 * While @s updates a task group, the launch replaces the group's next
 * task instead (acl_launch_update()).
 */
static int acl_launch(struct acl_kfunc *f, uint32_t blocks, struct acl_stream *s, const aclrtLaunchKernelCfg *cfg,
		      const void *args, size_t len, const aclrtPlaceHolderInfo *ph, size_t nph, bool dev)
{
	struct npu_kernel k;
	struct npu_cmd cmd = { .op = NPU_OP_KERNEL, .src = (uintptr_t)&k, .value = sizeof(k) };
	struct acl_kargs *r = NULL;
	struct acl_kprint kp;
	uint32_t sid = 0, off = 0, span;
	uint64_t *ovf, seq = 0;
	uint8_t *blob = NULL;
	size_t i;
	int ret;

	ret = acl_launch_prep(f, blocks, s->dev, cfg, args, len, ph, nph, dev, &k);
	if (!ret && s->ctx)
		ret = acl_ovf_words(s->ctx, &ovf);
	if (ret)
		return ret;
	k.overflow_va = s->ctx ? (uintptr_t)ovf : 0;
	if (acl_stream_grp_updating(s)) {
		ret = acl_launch_update(f, s, &k, args, len, ph, nph, dev);
		if (ret != -ENOENT)
			return ret;
	}
	if (acl_stream_recording(s)) {
		ret = acl_launch_record(f, s, &k, args, len, ph, nph, dev);
		if (ret != ACLI_ENOTCAPTURED)
			return ret;
	}
	if (len && !dev) {
		ret = acl_kargs_of(s, &r);
		if (ret)
			return ret;
	}
	ret = acl_kprint_prepare(f, s, blocks, &kp);
	if (ret)
		return ret;
	k.dump_va = kp.va;
	k.dump_size = kp.va ? kp.size : 0;
	if (!len || dev) {
		ret = acl_stream_submit_at(s, &cmd, 1, &sid, &seq);
		if (!ret)
			acl_stream_note_launch(s, sid, seq, 0, f, len ? (uintptr_t)args : 0, (uint32_t)len);
		return acl_kprint_finish(f, s, &kp, ret, sid, seq);
	}
	blob = malloc(len);
	if (!blob)
		return acl_kprint_finish(f, s, &kp, -ENOMEM, 0, 0);
	memcpy(blob, args, len);
	span = (uint32_t)((len + ACL_KARGS_ALIGN - 1) & ~(size_t)(ACL_KARGS_ALIGN - 1));
	pthread_mutex_lock(&r->lock);
	ret = acl_kargs_take_locked(s, r, span, &off);
	if (ret)
		goto unlock;
	/* a placeholder's slot gets the device address of its data, as the device's launch writes it */
	for (i = 0; i < nph; i++) {
		uint64_t addr = r->va + off + ph[i].dataOffset;

		memcpy(blob + ph[i].addrOffset, &addr, sizeof(addr));
	}
	k.args = (uintptr_t)blob;
	k.args_len = (uint32_t)len;
	k.args_va = r->va + off;
	ret = acl_stream_submit_at(s, &cmd, 1, &sid, &seq);
	if (!ret) {
		acl_kargs_used_locked(r, off, span, sid, seq);
		acl_stream_note_launch(s, sid, seq, 0, f, k.args_va, k.args_len);
	}
unlock:
	pthread_mutex_unlock(&r->lock);
	free(blob);
	return acl_kprint_finish(f, s, &kp, ret, sid, seq);
}

ACL_EXPORT aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle, uint32_t numBlocks,
						  aclrtStream stream, aclrtLaunchKernelCfg *cfg, void *hostArgs,
						  size_t argsSize, aclrtPlaceHolderInfo *placeHolderArray,
						  size_t placeHolderNum)
{
	struct acl_stream *s = NULL;
	struct acl_kfunc *f = NULL;
	int ret;

	if (!funcHandle)
		ret = acl_errf(-EINVAL, "funcHandle must not be NULL");
	else if (!hostArgs)
		ret = acl_errf(-EINVAL, "hostArgs must not be NULL");
	else if (placeHolderNum && !placeHolderArray)
		ret = acl_errf(-EINVAL, "placeHolderArray must not be NULL with %zu placeholders", placeHolderNum);
	else
		ret = acl_kfunc_get(funcHandle, &f);
	if (!ret)
		ret = acl_stream_enter(stream, ACL_STREAM_OWN, &s);
	if (!ret)
		ret = acl_launch(f, numBlocks, s, cfg, hostArgs, argsSize, placeHolderArray, placeHolderNum, false);
	if (s)
		acl_stream_put(s);
	if (f)
		acl_kfunc_put(f);
	return acl_ret(__func__, ret);
}

/*
 * aclrtLaunchKernel(V2): @func with the block @args (@len bytes) where it
 * is, in device memory.
 */
static int acl_launch_dev(aclrtFuncHandle func, uint32_t blocks, const void *args, size_t len,
			  aclrtLaunchKernelCfg *cfg, aclrtStream stream)
{
	struct acl_stream *s = NULL;
	struct acl_kfunc *f = NULL;
	int ret;

	if (!func)
		ret = acl_errf(-EINVAL, "funcHandle must not be NULL");
	else if (!args)
		ret = acl_errf(-EINVAL, "argsData must not be NULL");
	else
		ret = acl_kfunc_get(func, &f);
	if (!ret)
		ret = acl_stream_enter(stream, ACL_STREAM_OWN, &s);
	if (!ret)
		ret = acl_launch(f, blocks, s, cfg, args, len, NULL, 0, true);
	if (s)
		acl_stream_put(s);
	if (f)
		acl_kfunc_put(f);
	return ret;
}

ACL_EXPORT aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
				      size_t argsSize, aclrtStream stream)
{
	return acl_ret(__func__, acl_launch_dev(funcHandle, numBlocks, argsData, argsSize, NULL, stream));
}

ACL_EXPORT aclError aclrtLaunchKernelV2(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData,
					size_t argsSize, aclrtLaunchKernelCfg *cfg, aclrtStream stream)
{
	return acl_ret(__func__, acl_launch_dev(funcHandle, numBlocks, argsData, argsSize, cfg, stream));
}

ACL_EXPORT aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
						aclrtLaunchKernelCfg *cfg, aclrtArgsHandle argsHandle, void *reserve)
{
	aclrtPlaceHolderInfo *ph = NULL;
	struct acl_stream *s = NULL;
	struct acl_kfunc *f = NULL;
	void *blob = NULL;
	size_t len = 0, nph = 0;
	int ret;

	if (!funcHandle)
		ret = acl_errf(-EINVAL, "funcHandle must not be NULL");
	else if (!numBlocks)
		ret = acl_errf(-EINVAL, "numBlocks must be positive");
	else if (!argsHandle)
		ret = acl_errf(-EINVAL, "argsHandle must not be NULL");
	else if (reserve)
		ret = acl_errf(-EINVAL, "reserve is a reserved parameter and must be NULL");
	else
		ret = acl_kfunc_get(funcHandle, &f);
	if (!ret)
		ret = acl_kargs_block(argsHandle, &blob, &len, &ph, &nph);
	if (!ret)
		ret = acl_stream_enter(stream, ACL_STREAM_OWN, &s);
	if (!ret)
		ret = acl_launch(f, numBlocks, s, cfg, blob, len, ph, nph, false);
	if (s)
		acl_stream_put(s);
	if (f)
		acl_kfunc_put(f);
	free(blob);
	free(ph);
	return acl_ret(__func__, ret);
}

/*
 * CANN's launch by parameter: args[i] points to parameter i's bytes,
 * placed at its offset of the kernel's argument block (the binary's
 * parameter records: npu-cc's kernels all have them).
 */
ACL_EXPORT aclError aclrtLaunchKernelWithArgsArray(void *func, uint32_t numBlocks, aclrtStream stream,
						   aclrtLaunchKernelCfg *cfg, void **args)
{
	struct acl_stream *s = NULL;
	struct acl_kfunc *f = NULL;
	uint8_t *blob = NULL;
	uint32_t i;
	int ret;

	if (!func)
		ret = acl_errf(-EINVAL, "func must not be NULL");
	else if (!numBlocks)
		ret = acl_errf(-EINVAL, "numBlocks must be positive");
	else
		ret = acl_stream_enter(stream, ACL_STREAM_OWN, &s);
	if (!ret)
		ret = acl_kfunc_get(func, &f);
	if (!ret && f->param_count && !args)
		ret = acl_errf(ACLI_ERTPARAM, "args must not be NULL for a kernel of %u parameters", f->param_count);
	if (!ret && f->args_size) {
		blob = calloc(1, f->args_size);
		if (!blob)
			ret = -ENOMEM;
	}
	for (i = 0; !ret && i < f->param_count; i++) {
		if (!args[i])
			ret = acl_errf(ACLI_ERTPARAM, "args[%u] must not be NULL", i);
		else
			memcpy(blob + f->params[i].offset, args[i], f->params[i].size);
	}
	if (!ret)
		ret = acl_launch(f, numBlocks, s, cfg, blob, f->args_size, NULL, 0, false);
	if (s)
		acl_stream_put(s);
	if (f)
		acl_kfunc_put(f);
	free(blob);
	return acl_ret(__func__, ret);
}

/*
 * The SIMT launches: CANN's runtime takes only SIMT kernels
 * (CheckSimtArgsArray: RT_ERROR_INVALID_VALUE otherwise) and npu-cc
 * makes none, so a function is ACL_ERROR_RT_PARAM_INVALID, anything
 * else ACL_ERROR_RT_INVALID_HANDLE.
 */
static int acl_launch_simt(void *func)
{
	struct acl_kfunc *f;
	int ret;

	ret = acl_kfunc_get(func, &f);
	if (ret)
		return ret;
	ret = acl_errf(ACLI_ERTPARAM, "kernel %s is not a SIMT kernel (npu-cc makes none)", f->name);
	acl_kfunc_put(f);
	return ret;
}

ACL_EXPORT aclError aclrtLaunchSIMTKernelWithArgsArray(void *func, dim3 gridDim, dim3 blockDim, size_t dynUbufSize,
						       aclrtStream stream, aclrtLaunchKernelCfg *cfg, void **args)
{
	int ret;

	(void)gridDim, (void)blockDim, (void)dynUbufSize, (void)stream, (void)cfg, (void)args;
	if (!func)
		ret = acl_errf(-EINVAL, "func must not be NULL");
	else
		ret = acl_launch_simt(func);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtLaunchSIMTKernelWithHostArgs(void *func, dim3 gridDim, dim3 blockDim, size_t dynUbufSize,
						      aclrtStream stream, aclrtLaunchKernelCfg *cfg, void *hostArgs,
						      size_t argsSize, aclrtPlaceHolderInfo *placeHolderArray,
						      size_t placeHolderNum)
{
	int ret;

	(void)gridDim, (void)blockDim, (void)dynUbufSize, (void)stream, (void)cfg;
	(void)placeHolderArray, (void)placeHolderNum;
	if (!func)
		ret = acl_errf(-EINVAL, "func must not be NULL");
	else if (!hostArgs)
		ret = acl_errf(-EINVAL, "hostArgs must not be NULL");
	else if (!argsSize)
		ret = acl_errf(-EINVAL, "argsSize must be positive");
	else
		ret = acl_launch_simt(func);
	return acl_ret(__func__, ret);
}

/*
 * CANN answers the address of the chip's inter-core (C2C) control area,
 * through which a kernel's cores synchronise. Until the simulated chip
 * has cores, it is a word the device reaches (one of its event pool's),
 * the same for every call until the device closes.
 */
ACL_EXPORT aclError aclrtGetHardwareSyncAddr(void **addr)
{
	struct acl_device *dev;
	uint64_t *word;
	int ret;

	/* the runtime's check: CANN's acl layer makes none */
	ret = acl_check_init();
	if (!ret && !addr)
		ret = acl_errf(ACLI_ERTPARAM, "addr must not be NULL");
	if (!ret)
		ret = acl_cur_dev(&dev);
	if (!ret)
		ret = acl_slot_keep(dev, &dev->slots, &acl_sync_words[dev->id], &word);
	if (ret == -ENOSPC)
		ret = acl_errf(ACLI_ENOEVENTRES, "no device word left for the synchronisation address");
	if (!ret)
		*addr = word;
	return acl_ret(__func__, ret);
}
