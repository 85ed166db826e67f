// SPDX-License-Identifier: MIT
/*
 * Streams and stream memory operations (aclrtValueWrite/Wait).
 *
 * An aclrtStream is a struct acl_stream *; NULL means the current
 * context's default stream. A stream's kernel queue runs its commands in
 * order; the library adds what CANN has on top: the owning context,
 * flags and priority as created, the failure mode (in STOP mode the
 * first task error is latched for the whole context), and abort, which
 * drops the kernel queue and carries on with a fresh one.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <acl/acl.h>

#include "acl_ioctl.h"
#include "callback.h"
#include "context.h"
#include "device.h"
#include "error.h"
#include "exception.h"
#include "mm.h"
#include "snapstate.h"
#include "stream.h"
#include "streamstate.h"
#include "uce.h"

/* The flags CANN defines; others are ignored, as the vendor does. */
#define ACL_STREAM_KNOWN	(ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | \
				 ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE | \
				 ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY)
/* Streams whose work the host does not track: always COMPLETE. */
#define ACL_STREAM_UNTRACKED	(ACL_STREAM_PERSISTENT | ACL_STREAM_DEVICE_USE_ONLY | \
				 ACL_STREAM_CPU_SCHEDULE)

static uint64_t acl_stream_serial;	/* atomic */

/* The calling thread's last task on a context's stream (aclrtGetThreadLastTaskId). */
static __thread struct acl_task_ref acl_last_task = { .task = UINT32_MAX };

static int acl_stream_wait_on(struct acl_stream *s, uint32_t id, uint64_t seq, int32_t timeout_ms,
			      struct acl_task_fault *keep, bool *kept);
static void acl_stream_flush_exc(struct acl_stream *s);

static int acl_kstream_create(struct acl_device *dev, uint32_t *id)
{
	struct npu_stream_create arg = { .size = sizeof(arg) };
	int ret;

	ret = acl_ioctl(dev->fd, NPU_IOCTL_STREAM_CREATE, &arg);
	if (ret == -ENOSPC)
		return acl_errf(ACLI_ENOSTREAMRES, "no stream left: the context has the driver's max_streams");
	if (!ret)
		*id = arg.stream;
	return ret;
}

static int acl_kstream_destroy(struct acl_device *dev, uint32_t id, bool force)
{
	struct npu_stream_destroy arg = {
		.size = sizeof(arg),
		.flags = force ? NPU_STREAM_DESTROY_FORCE : 0,
		.stream = id,
	};

	return acl_ioctl(dev->fd, NPU_IOCTL_STREAM_DESTROY, &arg);
}

static int acl_kstream_stop_on_fault(struct acl_device *dev, uint32_t id)
{
	struct npu_stream_mode arg = {
		.size = sizeof(arg),
		.stream = id,
		.mode = NPU_STREAM_STOP_ON_FAULT,
	};

	return acl_ioctl(dev->fd, NPU_IOCTL_STREAM_SET_MODE, &arg);
}

static void acl_stream_release(struct acl_obj *obj);

static struct acl_stream *acl_stream_alloc(struct acl_device *dev)
{
	struct acl_stream *s;

	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	/* an internal stream is counted too (its owner's reference), but never listed */
	s->obj.refs = 1;
	s->obj.release = acl_stream_release;
	s->dev = dev;
	s->serial = __atomic_add_fetch(&acl_stream_serial, 1, __ATOMIC_RELAXED);
	s->res_limit[0] = s->res_limit[1] = -1;
	pthread_mutex_init(&s->lock, NULL);
	list_init(&s->node);
	return s;
}

int acl_stream_new(struct acl_device *dev, struct acl_stream **out)
{
	struct acl_stream *s = acl_stream_alloc(dev);
	int ret;

	if (!s)
		return acl_errf(-ENOMEM, "out of host memory");
	ret = acl_kstream_create(dev, &s->id);
	if (ret) {
		acl_stream_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

int acl_stream_kill(struct acl_stream *s, bool force)
{
	return acl_kstream_destroy(s->dev, s->id, force);
}

void acl_stream_free(struct acl_stream *s)
{
	if (!s)
		return;
	acl_cbq_free(s->cbq);
	free(s->op_info.data);
	free(s->ext_info.data);
	free(s->allocator);
	if (s->kargs) {
		/* gone with the device's file if it closed since */
		if (s->kargs->gen == __atomic_load_n(&s->kargs->dev->gen, __ATOMIC_ACQUIRE) &&
		    acl_mm_free(s->kargs->dev, s->kargs->va, ACL_REGION_MALLOC))
			acl_err_clear();
		pthread_mutex_destroy(&s->kargs->lock);
		free(s->kargs);
	}
	if (s->klog) {
		pthread_mutex_destroy(&s->klog->lock);
		free(s->klog);
	}
	free(s->grp_kcs);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static void acl_stream_release(struct acl_obj *obj)
{
	acl_stream_free((struct acl_stream *)obj);
}

void acl_stream_put(struct acl_stream *s)
{
	acl_obj_put(&s->obj);
}

int acl_stream_create(struct acl_context *ctx, uint32_t flags, uint32_t priority, bool is_default,
		      struct acl_stream **out)
{
	struct acl_stream *s;
	int ret;

	ret = acl_stream_new(ctx->dev, &s);
	if (ret)
		return ret;
	s->ctx = ctx;
	s->is_default = is_default;
	s->flags = flags;
	s->priority = priority;
	pthread_mutex_lock(&ctx->lock);
	if (ctx->dying) {
		pthread_mutex_unlock(&ctx->lock);
		acl_kstream_destroy(ctx->dev, s->id, true);
		acl_stream_free(s);
		return acl_errf(ACLI_ECTXRELEASE, "the context is being destroyed");
	}
	list_add_tail(&s->node, &ctx->streams);
	pthread_mutex_unlock(&ctx->lock);
	acl_obj_add(&s->obj, ACL_OBJ_STREAM, acl_stream_release);
	*out = s;
	return 0;
}

int acl_stream_teardown(struct acl_stream *s, bool force)
{
	struct acl_task_grp *grp;
	uint32_t id;
	int ret;

	acl_obj_del(&s->obj);
	pthread_mutex_lock(&s->lock);
	__atomic_store_n(&s->dead, true, __ATOMIC_RELEASE);
	id = s->id;
	/* a group it updated can be updated by another stream again */
	grp = s->grp_upd;
	s->grp_upd = NULL;
	s->grp = ACL_GRP_NONE;
	pthread_mutex_unlock(&s->lock);
	if (grp) {
		__atomic_store_n(&grp->updating, false, __ATOMIC_RELEASE);
		acl_obj_put(&grp->obj);
	}
	if (force) {
		acl_cbq_drop(s);
	} else {
		/*
		 * The driver unlists a stream before it waits for it, and the
		 * watcher waits by the stream's id: let every task, callbacks
		 * included, run while the id still answers.
		 */
		acl_stream_wait_on(s, id, 0, -1, NULL, NULL);
		acl_err_clear();
		acl_cbq_drain(s);
	}
	acl_stream_flush_exc(s);
	ret = acl_kstream_destroy(s->dev, id, force);
	if (ret == -ENODEV || ret == -ESTALE) {
		/* the device was removed or reset: its streams went with it */
		acl_err_clear();
		ret = 0;
	}
	acl_cbq_stop(s);
	acl_stream_put(s);
	return ret;
}

void acl_stream_forget(struct acl_stream *s)
{
	list_del(&s->node);
	acl_cbq_forget(s->cbq);
	s->cbq = NULL;
	free(s->op_info.data);
	free(s->ext_info.data);
	free(s->grp_kcs);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int acl_stream_resolve(aclrtStream stream, unsigned int use, struct acl_stream **out)
{
	struct acl_context *ctx;
	struct acl_stream *s;
	int ret;

	/* work queued on a stream, or its management: not while the process is locked */
	if (use & ACL_STREAM_OWN)
		acl_snap_gate();
	if (!stream) {
		ret = acl_cur_ctx(&ctx);
		if (ret)
			return ret;
		/* the table, not the context, keeps it alive: it may be going */
		s = (struct acl_stream *)acl_obj_get(ctx->default_stream, ACL_OBJ_STREAM);
		acl_ctx_put(ctx);
		if (!s)
			return acl_errf(ACLI_ENOCTX, "the current context is being destroyed");
		*out = s;
		return 0;
	}
	s = (struct acl_stream *)acl_obj_get(stream, ACL_OBJ_STREAM);
	if (!s)
		return acl_errf(ACLI_EHANDLE, "stream %p is not a live stream (destroyed, or its context or device released?)",
				stream);
	ret = (use & ACL_STREAM_OWN) ? acl_stream_current(s) : 0;
	if (ret) {
		acl_stream_put(s);
		return ret;
	}
	*out = s;
	return 0;
}

int acl_stream_current(struct acl_stream *s)
{
	struct acl_context *ctx;
	int ret;

	if (acl_ctx_is_current(s->ctx))
		return 0;
	ret = acl_cur_ctx(&ctx);
	if (ret)
		return ret;
	acl_ctx_put(ctx);
	return acl_errf(ACLI_ESTREAMCTX, "stream %p belongs to another context than the current one", s);
}

int acl_stream_enter(aclrtStream stream, unsigned int use, struct acl_stream **out)
{
	int ret = acl_check_init();

	return ret ? ret : acl_stream_resolve(stream, use, out);
}

/* The error latched for @s's context by a STOP-mode stream, or 0. */
static int acl_stream_sticky(struct acl_stream *s)
{
	int err = s->ctx ? __atomic_load_n(&s->ctx->sticky, __ATOMIC_ACQUIRE) : 0;

	return err ? acl_errf(err, "an earlier task of this context failed and a stream of it is in ACL_STOP_ON_FAILURE mode") : 0;
}

uint32_t acl_stream_id(struct acl_stream *s)
{
	return __atomic_load_n(&s->id, __ATOMIC_ACQUIRE);
}

/*
 * Is kernel stream @id of @s gone by the library's own doing (an abort
 * replaced it, or the stream is being destroyed)? Then a cancel or an
 * unknown id is no task error of the application's.
 */
static bool acl_stream_gone(struct acl_stream *s, uint32_t id)
{
	return __atomic_load_n(&s->aborting, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&s->dead, __ATOMIC_ACQUIRE) || acl_stream_id(s) != id;
}

uint32_t acl_stream_task_id(const struct acl_stream *s, uint64_t seq)
{
	uint64_t base = s->task_base_id == s->id ? s->task_base : 0;

	return (uint32_t)(seq - 1 - base);
}

void acl_stream_last_task(struct acl_task_ref *out)
{
	*out = acl_last_task;
}

/*
 * A task @s (capturing) cannot record: refused, and the capture is
 * invalidated, as the vendor's is when a task cannot be captured (under
 * s->lock).
 */
static int acl_stream_capture_refuse(struct acl_stream *s)
{
	if (s->capture->build)
		return acl_errf(ACLI_ERTNOTSUPP, "stream %p is bound to a model being built, and libacl cannot record this task yet (it records kernel launches, copies and memsets of device or registered host memory, 2D, batch and descriptor copies, value writes and waits, notifies, reduce and random tasks, CMO tasks, prefetches, profiling markers, pool allocations, host functions and callbacks, labels and label switches)",
				s);
	s->capture->invalid = true;
	return acl_errf(ACLI_ERTNOTSUPP, "stream %p is being captured, and libacl cannot capture this task yet (it captures kernel launches, copies and memsets of device or registered host memory, 2D, batch and descriptor copies, value writes and waits, notifies, reduce and random tasks, CMO tasks, prefetches, profiling markers, pool allocations, host functions and callbacks, events, labels and label switches): the capture is invalidated (aclmdlRICaptureEnd answers 507903)",
			s);
}

/* 0 if @s's recording takes more (under s->lock); else why not. */
static int acl_stream_capture_valid_locked(struct acl_stream *s)
{
	if (s->capture->ended)
		return acl_errf(ACLI_ERTPARAM, "the tasks of stream %p for its model were ended by aclmdlRIEndTask: it takes no more until it is unbound (aclmdlRIUnbindStream)",
				s);
	if (!s->capture->invalid)
		return 0;
	return acl_errf(ACLI_ECAPINVALID, "the capture of stream %p was invalidated by a task it could not capture: end it (aclmdlRICaptureEnd)",
			s);
}

/*
 * Task groups at a task of @s (under s->lock), the vendor's AllocTask,
 * PackingTaskGroup and IsTaskGroupBreak: a stream updating a group takes
 * only kernel launches (they replace the group's tasks: kernel.c), anything
 * else is 507009; while a group is open in @s's capture, a task of @s
 * joins it (a @kernel launch: acl_stream_capture_kernel() lists it; 507009
 * for the rest) and a task of another of its streams interrupts it
 * (107034). A refusal invalidates the capture, and GrpEnd answers it.
 */
static int acl_stream_grp_gate_locked(struct acl_stream *s, bool kernel)
{
	struct acl_capture *c = s->capture;
	int err;

	if (s->grp == ACL_GRP_UPDATE)
		return acl_errf(ACLI_ETASKTYPE, "stream %p updates a task group (aclmdlRICaptureTaskUpdateBegin): only kernel launches, which replace the group's tasks, are taken until aclmdlRICaptureTaskUpdateEnd",
				s);
	if (!c || c->build || (s->grp != ACL_GRP_SAMPLE && !__atomic_load_n(&c->grp_open, __ATOMIC_ACQUIRE)))
		return 0;
	if (s->grp == ACL_GRP_SAMPLE && kernel)
		return 0;
	if (s->grp == ACL_GRP_SAMPLE)
		err = acl_errf(ACLI_ETASKTYPE, "stream %p records a task group (aclmdlRICaptureTaskGrpBegin), which takes kernel launches only: the capture is invalidated",
			       s);
	else
		err = acl_errf(ACLI_ETASKGRPINTR, "a task group is open on another stream of the capture of stream %p: its tasks go on that stream until aclmdlRICaptureTaskGrpEnd; the capture is invalidated",
			       s);
	c->invalid = true;
	__atomic_store_n(&c->grp_err, err, __ATOMIC_RELEASE);
	return err;
}

int acl_stream_grp_begin(struct acl_stream *s)
{
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	if (s->grp != ACL_GRP_NONE)
		ret = acl_errf(ACLI_ETASKGRPSTATUS, "stream %p %s a task group already", s,
			       s->grp == ACL_GRP_SAMPLE ? "records" : "updates");
	else if (!s->capture || s->capture->build)
		ret = acl_errf(ACLI_ENOTCAPTURED, "stream %p is not being captured (aclmdlRICaptureBegin)", s);
	if (!ret) {
		s->grp = ACL_GRP_SAMPLE;
		s->grp_n = 0;
		__atomic_add_fetch(&s->capture->grp_open, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int acl_stream_grp_end(struct acl_stream *s, int *err, struct acl_capture **cap, struct acl_kcap ***kcs,
		       uint32_t *n)
{
	struct acl_capture *c;
	int ret = 0;

	*err = 0;
	*cap = NULL;
	*kcs = NULL;
	*n = 0;
	pthread_mutex_lock(&s->lock);
	c = s->capture;
	if (s->grp != ACL_GRP_SAMPLE)
		ret = acl_errf(ACLI_ETASKGRPSTATUS, "stream %p records no task group (aclmdlRICaptureTaskGrpBegin)", s);
	else if (!c || c->build)
		ret = acl_errf(ACLI_ENOTCAPTURED, "stream %p is not being captured (aclmdlRICaptureBegin)", s);
	if (!ret) {
		s->grp = ACL_GRP_NONE;
		__atomic_sub_fetch(&c->grp_open, 1, __ATOMIC_RELEASE);
		*err = __atomic_load_n(&c->grp_err, __ATOMIC_ACQUIRE);
		if (!*err && c->invalid)
			*err = ACLI_ECAPINVALID;
		*cap = c;
		/* the group's launches: the caller's array now */
		*kcs = s->grp_kcs;
		*n = s->grp_n;
		s->grp_kcs = NULL;
		s->grp_n = s->grp_cap = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int acl_stream_grp_update(struct acl_stream *s, struct acl_task_grp *g)
{
	bool idle = false;
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	/* a destroyed stream would hold @g, and its update window, for good */
	if (__atomic_load_n(&s->dead, __ATOMIC_ACQUIRE))
		ret = acl_errf(ACLI_EHANDLE, "stream %p is being destroyed", s);
	else if (s->grp != ACL_GRP_NONE)
		ret = acl_errf(ACLI_ETASKGRPSTATUS, "stream %p %s a task group already", s,
			       s->grp == ACL_GRP_SAMPLE ? "records" : "updates");
	/* set under s->lock: the stream's teardown or UpdateEnd, which clear it, see it set */
	else if (!__atomic_compare_exchange_n(&g->updating, &idle, true, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		ret = acl_errf(ACLI_ETASKGRPSTATUS, "task group %p is being updated (by this or another stream)", g);
	if (!ret) {
		acl_obj_hold(&g->obj);
		g->updated = 0;
		s->grp_upd = g;
		s->grp = ACL_GRP_UPDATE;
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int acl_stream_grp_next(struct acl_stream *s, struct acl_task_grp **g, uint32_t *idx)
{
	struct acl_task_grp *grp;
	int ret = 0;

	*g = NULL;
	pthread_mutex_lock(&s->lock);
	grp = s->grp_upd;
	if (s->grp != ACL_GRP_UPDATE) {
		ret = -ENOENT;
	} else if (s->capture) {
		/* the vendor's InternalUpdateTaskPrepare */
		ret = s->capture->build ?
		      acl_errf(ACLI_ESTREAMMODEL, "stream %p updates a task group and is bound to a model (aclmdlRIBindStream): a task group is updated on a stream of single operators",
			       s) :
		      acl_errf(ACLI_ESTREAMCAPTURED, "stream %p updates a task group and is being captured: a task group is updated on a stream that is not",
			       s);
	} else if (grp->updated >= grp->ntasks) {
		/* the vendor's RT_ERROR_STREAM_TASKGRP_UPDATE: ACL_ERROR_RT_INTERNAL_ERROR */
		ret = acl_errf(ACLI_EINTERNAL, "task group %p has %u tasks, all of them replaced already in this update: a launch more is refused",
			       grp, grp->ntasks);
	} else {
		*idx = grp->updated++;
		acl_obj_hold(&grp->obj);
		*g = grp;
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

bool acl_stream_grp_updating(struct acl_stream *s)
{
	bool up;

	pthread_mutex_lock(&s->lock);
	up = s->grp == ACL_GRP_UPDATE;
	pthread_mutex_unlock(&s->lock);
	return up;
}

int acl_stream_grp_update_end(struct acl_stream *s, struct acl_task_grp **g)
{
	int ret = 0;

	*g = NULL;
	pthread_mutex_lock(&s->lock);
	if (s->grp != ACL_GRP_UPDATE) {
		ret = acl_errf(ACLI_ETASKGRPSTATUS, "stream %p updates no task group (aclmdlRICaptureTaskUpdateBegin)", s);
	} else {
		*g = s->grp_upd;
		s->grp_upd = NULL;
		s->grp = ACL_GRP_NONE;
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/*
 * The host memory at @cmd->src the driver reads when it makes a model of
 * @cmd (MODEL_CREATE): its size, 0 if none. A random task's parameters
 * are the one such operand a recording holds (a model takes no
 * COPY_BATCH: a batch is recorded as its copies; a label switch's
 * targets are model.c's, made at each build; host memory a copy or a
 * value task reaches is a registration, looked up when it runs; a kernel
 * launch's struct npu_kernel and argument block are its struct acl_kcap,
 * which the recording owns as a whole: acl_stream_capture_kernel()).
 */
size_t acl_cmd_host_operand(const struct npu_cmd *cmd)
{
	return cmd->op == NPU_OP_RANDOM ? cmd->value : 0;
}

static void acl_capture_free_kernels(struct acl_capture *cap, bool forget);

/*
 * The recorded @cmd (@c's) points at a copy of its host operand that @c
 * owns: the caller's (a local of the call that recorded it) is gone when
 * the model is made, and again when it is made anew. ACL_OPERAND_NOTE
 * zeroed bytes follow it.
 */
static int acl_capture_own(struct acl_capture *c, struct npu_cmd *cmd)
{
	size_t size = acl_cmd_host_operand(cmd);
	uint32_t cap;
	void **v, *p;

	if (!size)
		return 0;
	if (c->nowned == c->owned_cap) {
		cap = c->owned_cap ? 2 * c->owned_cap : 4;
		v = realloc(c->owned, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->owned = v;
		c->owned_cap = cap;
	}
	p = calloc(1, size + ACL_OPERAND_NOTE);
	if (!p)
		return -ENOMEM;
	memcpy(p, (const void *)(uintptr_t)cmd->src, size);
	cmd->src = (uintptr_t)p;
	c->owned[c->nowned++] = p;
	return 0;
}

void acl_capture_free_owned(struct acl_capture *cap)
{
	uint32_t i;

	for (i = 0; i < cap->nowned; i++)
		free(cap->owned[i]);
	free(cap->owned);
	cap->owned = NULL;
	cap->nowned = cap->owned_cap = 0;
	/* after fork: the kernels' host memory (acl_capture_free() let go of the rest first) */
	acl_capture_free_kernels(cap, true);
}

/* Device memory a recording takes at a time for its kernels (more for a larger block or printf area). */
#define ACL_CAP_DMEM_CHUNK	(256 * 1024)
#define ACL_CAP_DMEM_ALIGN	64

static void acl_capture_free_kernels(struct acl_capture *cap, bool forget)
{
	struct acl_kcap *kc;
	uint32_t i;

	while ((kc = cap->kcaps)) {
		cap->kcaps = kc->next;
		if (!forget) {
			acl_kcap_free(kc);
			continue;
		}
		free(kc->blob);
		free(kc->opinfo);
		free(kc);
	}
	/* gone with the device's file if it closed since (or after fork: the parent's) */
	for (i = 0; !forget && i < cap->ndmem; i++)
		if (cap->dmem_gen == __atomic_load_n(&cap->dmem_dev->gen, __ATOMIC_ACQUIRE) &&
		    acl_mm_free(cap->dmem_dev, cap->dmem[i].va, ACL_REGION_MALLOC))
			acl_err_clear();
	free(cap->dmem);
	cap->dmem = NULL;
	cap->ndmem = cap->dmem_cap = 0;
}

bool acl_capture_owns_dmem(struct acl_capture *cap)
{
	return cap->ndmem;
}

/* @len bytes of @c's device memory (under s->lock): 0, or -ENOSPC when no chunk holds them. */
static int acl_capture_dmem_take(struct acl_capture *c, uint64_t len, uint64_t *va)
{
	uint32_t i;

	for (i = 0; i < c->ndmem; i++) {
		struct acl_capture_dmem *d = &c->dmem[i];

		if (d->len - d->used >= len) {
			*va = d->va + d->used;
			d->used += (len + ACL_CAP_DMEM_ALIGN - 1) & ~(uint64_t)(ACL_CAP_DMEM_ALIGN - 1);
			if (d->used > d->len)
				d->used = d->len;
			return 0;
		}
	}
	return -ENOSPC;
}

/* The chunk @va (@len bytes) of @dev becomes @c's (under the recording's lock): 0 or -ENOMEM. */
static int acl_capture_dmem_add(struct acl_device *dev, struct acl_capture *c, uint64_t va, uint64_t len)
{
	struct acl_capture_dmem *v;

	if (c->ndmem == c->dmem_cap) {
		v = realloc(c->dmem, (c->dmem_cap ? 2 * c->dmem_cap : 4) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->dmem = v;
		c->dmem_cap = c->dmem_cap ? 2 * c->dmem_cap : 4;
	}
	if (!c->ndmem) {
		c->dmem_dev = dev;
		c->dmem_gen = __atomic_load_n(&dev->gen, __ATOMIC_ACQUIRE);
	}
	c->dmem[c->ndmem++] = (struct acl_capture_dmem){ .va = va, .len = len };
	return 0;
}

static int acl_stream_record_locked(struct acl_stream *s, const struct npu_cmd *cmds, uint32_t n, bool kernel);

/* Room for one more launch in the task group @s records (under s->lock). */
static int acl_stream_grp_room_locked(struct acl_stream *s)
{
	struct acl_kcap **v;
	uint32_t cap;

	if (s->grp_n < s->grp_cap)
		return 0;
	cap = s->grp_cap ? 2 * s->grp_cap : 8;
	v = realloc(s->grp_kcs, cap * sizeof(*v));
	if (!v)
		return acl_errf(-ENOMEM, "out of host memory for the task group of stream %p", s);
	s->grp_kcs = v;
	s->grp_cap = cap;
	return 0;
}

/* Bytes of a recording's device memory a launch's host block of @len bytes takes (none without @blob). */
static uint64_t acl_kcap_span(bool blob, uint64_t len)
{
	return blob ? (len + ACL_CAP_DMEM_ALIGN - 1) & ~(uint64_t)(ACL_CAP_DMEM_ALIGN - 1) : 0;
}

/* A new chunk of device memory for a recording that needs @need bytes more. */
static uint64_t acl_capture_chunk_len(uint64_t need)
{
	return need > ACL_CAP_DMEM_CHUNK ? (need + NPU_PAGE_4K - 1) & ~(uint64_t)(NPU_PAGE_4K - 1) : ACL_CAP_DMEM_CHUNK;
}

/*
 * @kc's host block is stored at @va at each run: its command reads it
 * there, and @patch(@kc, @arg) points its placeholders there.
 */
static void acl_kcap_place(struct acl_kcap *kc, uint64_t va, void (*patch)(struct acl_kcap *kc, const void *arg),
			   const void *arg)
{
	kc->k.args = (uintptr_t)kc->blob;
	kc->k.args_va = va;
	kc->args_va = va;
	if (patch)
		patch(kc, arg);
}

int acl_stream_capture_kernel(struct acl_stream *s, struct acl_kcap *kc, uint64_t dump, uint64_t *dump_va,
			      void (*patch)(struct acl_kcap *kc, const void *arg), const void *arg)
{
	bool blob = kc->k.args_len && !(kc->k.flags & NPU_KERNEL_ARGS_DEVICE);
	uint64_t span = acl_kcap_span(blob, kc->k.args_len);
	uint64_t need = span + dump, chunk = 0, chunk_len = 0, va = 0;
	struct npu_cmd cmds[2] = { 0 };
	struct acl_capture *c;
	uint32_t n = 0;
	int ret;

	for (;;) {
		pthread_mutex_lock(&s->lock);
		c = s->capture;
		if (!c)
			ret = ACLI_ENOTCAPTURED;
		else
			ret = acl_stream_capture_valid_locked(s);
		/*
		 * A task group's task is the kernel's command alone: a printing
		 * kernel's memset and print step would be tasks of their own
		 * (npu's limit, nothing recorded, the capture going on)
		 */
		if (!ret && dump && s->grp == ACL_GRP_SAMPLE)
			ret = acl_errf(ACLI_ERTNOTSUPP, "stream %p records a task group: npu does not record a kernel that prints (its printf area's memset and print step are tasks of their own) in a task group",
				       s);
		if (!ret && s->grp == ACL_GRP_SAMPLE)
			ret = acl_stream_grp_room_locked(s);
		if (!ret && chunk) {
			ret = acl_capture_dmem_add(s->dev, c, chunk, chunk_len);
			if (!ret)
				chunk = 0;
		}
		if (!ret && need)
			ret = acl_capture_dmem_take(c, need, &va);
		if (ret != -ENOSPC)
			break;
		pthread_mutex_unlock(&s->lock);
		/* a chunk of its own: outside s->lock (the allocation may wait for a snapshot) */
		chunk_len = acl_capture_chunk_len(need);
		ret = acl_mm_alloc(s->dev, chunk_len, NPU_PAGE_4K, &chunk);
		if (ret) {
			chunk = 0;
			pthread_mutex_lock(&s->lock);
			break;
		}
	}
	if (!ret) {
		if (blob) {
			kc->room_va = va;
			kc->room = (uint32_t)span;
			acl_kcap_place(kc, va, patch, arg);
		}
		if (dump) {
			kc->k.dump_va = va + span;
			*dump_va = va + span;
			/* each run's printf records from an empty area */
			cmds[n++] = (struct npu_cmd){ .op = NPU_OP_MEMSET, .dst = va + span, .length = dump };
		}
		cmds[n++] = (struct npu_cmd){ .op = NPU_OP_KERNEL, .src = (uintptr_t)&kc->k, .value = sizeof(kc->k) };
		ret = acl_stream_record_locked(s, cmds, n, true);
	}
	if (!ret) {
		kc->next = c->kcaps;
		c->kcaps = kc;
		/* the open group's next task (room made above) */
		if (s->grp == ACL_GRP_SAMPLE)
			s->grp_kcs[s->grp_n++] = kc;
		kc = NULL;
	}
	pthread_mutex_unlock(&s->lock);
	if (chunk && acl_mm_free(s->dev, chunk, ACL_REGION_MALLOC))
		acl_err_clear();
	if (kc)
		acl_kcap_free(kc);
	return ret;
}

void acl_kcap_release(struct acl_kcap *kc)
{
	if (kc->func)
		acl_obj_put(kc->func);
	free(kc->blob);
	kc->func = NULL;
	kc->blob = NULL;
}

void acl_kcap_free(struct acl_kcap *kc)
{
	acl_kcap_release(kc);
	free(kc->opinfo);
	free(kc);
}

/* Exchange the launches of @a and @b: each keeps its place, group and opInfo. */
void acl_kcap_swap(struct acl_kcap *a, struct acl_kcap *b)
{
	struct acl_kcap t = *a;

	*a = *b;
	*b = t;
	/* swapped back: what is the task's, not the launch's */
#define ACL_KCAP_KEEP(f)	do { t.f = a->f; a->f = b->f; b->f = t.f; } while (0)
	ACL_KCAP_KEEP(next);
	ACL_KCAP_KEEP(grp);
	ACL_KCAP_KEEP(opinfo);
	ACL_KCAP_KEEP(opinfo_len);
#undef ACL_KCAP_KEEP
}

int acl_kcap_set(struct acl_capture *cap, struct acl_device *dev, struct acl_kcap *kc, struct acl_kcap *nk,
		 void (*patch)(struct acl_kcap *kc, const void *arg), const void *arg)
{
	bool blob = nk->args_len && !(nk->k.flags & NPU_KERNEL_ARGS_DEVICE);
	uint64_t span = acl_kcap_span(blob, nk->args_len);
	uint64_t va = kc->room_va, chunk = 0, chunk_len;
	uint32_t room = kc->room;
	int ret = 0;

	/* the launch's own room if the block fits, else more of the recording's memory */
	if (span > kc->room) {
		room = (uint32_t)span;
		ret = acl_capture_dmem_take(cap, span, &va);
	}
	if (ret == -ENOSPC) {
		chunk_len = acl_capture_chunk_len(span);
		ret = acl_mm_alloc(dev, chunk_len, NPU_PAGE_4K, &chunk);
		if (!ret) {
			ret = acl_capture_dmem_add(dev, cap, chunk, chunk_len);
			if (ret && acl_mm_free(dev, chunk, ACL_REGION_MALLOC))
				acl_err_clear();
		}
		if (!ret)
			ret = acl_capture_dmem_take(cap, span, &va);
		if (ret)
			return ret == -ENOMEM ? acl_errf(-ENOMEM, "out of memory for the kernel task's argument block") :
						ret;
	}
	nk->room = room;
	nk->room_va = va;
	if (blob) {
		nk->k.args_len = nk->args_len;
		acl_kcap_place(nk, va, patch, arg);
	}
	acl_kcap_swap(kc, nk);
	return 0;
}

/* Record @n commands (a @kernel launch's) in @s's capture (under s->lock). */
static int acl_stream_record_locked(struct acl_stream *s, const struct npu_cmd *cmds, uint32_t n, bool kernel)
{
	struct acl_capture *c = s->capture;
	struct npu_cmd *v;
	uint32_t cap, i;
	int ret;

	ret = acl_stream_capture_valid_locked(s);
	if (!ret)
		ret = acl_stream_grp_gate_locked(s, kernel);
	if (ret)
		return ret;
	if (n > NPU_MODEL_MAX_CMDS - c->n) {
		c->invalid = true;
		return acl_errf(ACLI_EOVERLIMIT, "the capture of stream %p holds %u commands, a model at most %u: the capture is invalidated",
				s, c->n, NPU_MODEL_MAX_CMDS);
	}
	if (c->n + n > c->cap) {
		cap = c->cap ? c->cap : 16;
		while (cap < c->n + n)
			cap = cap > NPU_MODEL_MAX_CMDS / 2 ? NPU_MODEL_MAX_CMDS : 2 * cap;
		v = realloc(c->cmds, (size_t)cap * sizeof(*v));
		if (!v) {
			c->invalid = true;
			return acl_errf(-ENOMEM, "out of host memory for the capture of stream %p: the capture is invalidated",
					s);
		}
		c->cmds = v;
		c->cap = cap;
	}
	memcpy(&c->cmds[c->n], cmds, (size_t)n * sizeof(*cmds));
	for (i = 0; i < n; i++) {
		if (acl_capture_own(c, &c->cmds[c->n + i])) {
			/* the copies made so far stay the recording's, freed with it */
			c->invalid = true;
			return acl_errf(-ENOMEM, "out of host memory for the capture of stream %p: the capture is invalidated",
					s);
		}
	}
	c->n += n;
	s->recorded++;
	return 0;
}

/* Append @e to what @s records (@e's references the recording's, even on failure). */
static int acl_stream_capture_step(struct acl_stream *s, struct acl_capture_ext e)
{
	struct acl_capture_ext *v;
	struct acl_capture *c;
	int ret;

	pthread_mutex_lock(&s->lock);
	c = s->capture;
	ret = c ? acl_stream_capture_valid_locked(s) :
		  acl_errf(ACLI_ENOTCAPTURED, "stream %p is not being captured (aclmdlRICaptureBegin)", s);
	if (!ret)
		ret = acl_stream_grp_gate_locked(s, false);
	if (!ret && c->next == c->ext_cap) {
		v = realloc(c->ext, (c->ext_cap ? 2 * c->ext_cap : 4) * sizeof(*v));
		if (v) {
			c->ext = v;
			c->ext_cap = c->ext_cap ? 2 * c->ext_cap : 4;
		} else {
			c->invalid = true;
			ret = acl_errf(-ENOMEM, "out of host memory for the capture of stream %p: the capture is invalidated",
				       s);
		}
	}
	if (!ret) {
		e.at = c->n;
		c->ext[c->next++] = e;
		/* a task, for the fork and join checks (an event operation is none) */
		if (e.host)
			s->recorded++;
	}
	pthread_mutex_unlock(&s->lock);
	if (ret && e.event)
		acl_obj_put(e.event);
	if (ret)
		acl_host_step_free(e.host, false);
	return ret;
}

int acl_stream_capture_ext(struct acl_stream *s, struct acl_obj *event, bool record)
{
	acl_obj_hold(event);
	return acl_stream_capture_step(s, (struct acl_capture_ext){ .record = record, .event = event });
}

int acl_stream_capture_host(struct acl_stream *s, struct acl_host_step *h)
{
	return acl_stream_capture_step(s, (struct acl_capture_ext){ .host = h });
}

/* Make room for one more switch in @s's recording (under s->lock). */
static int acl_stream_switch_room_locked(struct acl_stream *s)
{
	struct acl_capture *c = s->capture;
	struct acl_capture_switch *v;

	if (c->nsw < c->sw_cap)
		return 0;
	v = realloc(c->sw, (c->sw_cap ? 2 * c->sw_cap : 4) * sizeof(*v));
	if (!v)
		return acl_errf(-ENOMEM, "out of host memory for the recording of stream %p", s);
	c->sw = v;
	c->sw_cap = c->sw_cap ? 2 * c->sw_cap : 4;
	return 0;
}

/* ACLI_ESTREAMMODEL unless @s records (under s->lock), then whether it takes more. */
static int acl_stream_recording_locked(struct acl_stream *s)
{
	if (!s->capture)
		return acl_errf(ACLI_ESTREAMMODEL, "stream %p is not bound to a model (aclmdlRIBindStream) nor being captured (aclmdlRICaptureBegin)",
				s);
	return acl_stream_capture_valid_locked(s);
}

int acl_stream_capture_mark(struct acl_stream *s, uint64_t *serial, uint32_t *at)
{
	int ret;

	pthread_mutex_lock(&s->lock);
	ret = acl_stream_recording_locked(s);
	if (!ret) {
		*serial = s->capture->serial;
		*at = s->capture->n;
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int acl_stream_capture_switch(struct acl_stream *s, const struct npu_cmd *cmd, struct acl_obj *list)
{
	struct acl_capture *c;
	int ret;

	pthread_mutex_lock(&s->lock);
	ret = acl_stream_recording_locked(s);
	if (!ret)
		ret = acl_stream_switch_room_locked(s);
	if (!ret)
		ret = acl_stream_record_locked(s, cmd, 1, false);
	if (!ret) {
		c = s->capture;
		acl_obj_hold(list);
		c->sw[c->nsw++] = (struct acl_capture_switch){ .at = c->n - 1, .list = list };
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int acl_stream_capture_finish(struct acl_stream *s, struct acl_capture *cap)
{
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	/* the vendor's RT_ERROR_STREAM_INVALID and RT_ERROR_MODEL_ENDGRAPH */
	if (s->capture != cap)
		ret = acl_errf(ACLI_EINTERNAL, "stream %p is not bound to the model", s);
	else if (cap->ended)
		ret = acl_errf(ACLI_EINTERNAL, "the tasks of stream %p for its model were ended already", s);
	else
		cap->ended = true;
	pthread_mutex_unlock(&s->lock);
	return ret;
}

void acl_capture_free(struct acl_capture *cap)
{
	uint32_t i;

	for (i = 0; i < cap->next; i++) {
		if (cap->ext[i].event)
			acl_obj_put(cap->ext[i].event);
		acl_host_step_free(cap->ext[i].host, false);
	}
	for (i = 0; i < cap->nsw; i++)
		acl_obj_put(cap->sw[i].list);
	acl_capture_free_kernels(cap, false);
	acl_capture_free_owned(cap);
	free(cap->ext);
	free(cap->cmds);
	free(cap->sw);
	cap->ext = NULL;
	cap->cmds = NULL;
	cap->sw = NULL;
	cap->n = cap->cap = cap->next = cap->ext_cap = cap->nsw = cap->sw_cap = 0;
}

int acl_stream_uncapturable(struct acl_stream *s)
{
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	if (s->capture)
		ret = acl_stream_capture_refuse(s);
	else if (s->grp == ACL_GRP_UPDATE)
		ret = acl_stream_grp_gate_locked(s, false);
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int acl_stream_launch_at(struct acl_stream *s, struct npu_cmd *cmds, uint32_t n, uint32_t *id, uint64_t *seq)
{
	uint64_t at = 0;
	int ret;

	pthread_mutex_lock(&s->lock);
	if (s->capture)
		ret = acl_stream_record_locked(s, cmds, n, false);
	else
		ret = acl_stream_submit_locked(s, cmds, n, &at);
	if (id)
		*id = s->id;
	pthread_mutex_unlock(&s->lock);
	if (seq)
		*seq = at;
	return ret;
}

int acl_stream_launch(struct acl_stream *s, struct npu_cmd *cmds, uint32_t n)
{
	return acl_stream_launch_at(s, cmds, n, NULL, NULL);
}

/*
 * The captures under way (not builds), for the streams that join them by
 * an event. acl_cap_lock protects the list and each live capture's
 * members; it is taken before any s->lock.
 */
static pthread_mutex_t acl_cap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct acl_capture *acl_caps_live;
static unsigned int acl_caps_nlive;	/* atomic: the list's length, for records outside captures */

int acl_stream_capture_begin(struct acl_stream *s, struct acl_capture *cap)
{
	static uint64_t serial;		/* atomic: the last recording's */
	int ret = 0;

	pthread_mutex_lock(&acl_cap_lock);
	pthread_mutex_lock(&s->lock);
	if (s->capture) {
		ret = acl_errf(ACLI_ESTREAMCAPTURED, "stream %p is %s already", s,
			       s->capture->build ? "bound to a model being built" : "being captured");
	} else {
		cap->serial = __atomic_add_fetch(&serial, 1, __ATOMIC_RELAXED);
		s->capture = cap;
		if (!cap->build) {
			cap->origin = s;
			cap->live_next = acl_caps_live;
			acl_caps_live = cap;
			__atomic_add_fetch(&acl_caps_nlive, 1, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_unlock(&acl_cap_lock);
	return ret;
}

/* @s's entry among @cap's members, or NULL (the origin has none; under acl_cap_lock). */
static struct acl_capture_member *acl_capture_member_of(struct acl_capture *cap, struct acl_stream *s)
{
	uint32_t i;

	for (i = 0; i < cap->nmembers; i++)
		if (cap->members[i].s == s)
			return &cap->members[i];
	return NULL;
}

int acl_stream_plain_event(struct acl_stream *s)
{
	return acl_errf(ACLI_ERTNOTSUPP, "stream %p is being captured: an event not made by aclrtCreateEventExWithFlag is recorded or waited for in a capture only with the EXTERNAL flag (the capture goes on)",
			s);
}

int acl_stream_capture_fork(struct acl_stream *s, struct acl_obj *event, bool ok, uint64_t *serial)
{
	struct acl_capture_member *mb;
	struct acl_obj *old = NULL;
	int ret = 0;

	*serial = 0;
	/* no capture under way (the common case): the stream's lock alone, as any record */
	if (!__atomic_load_n(&acl_caps_nlive, __ATOMIC_ACQUIRE)) {
		bool begun;

		pthread_mutex_lock(&s->lock);
		/* a capture begun since goes the long way */
		begun = s->capture && !s->capture->build;
		if (s->capture && !begun)
			ret = acl_stream_capture_refuse(s);
		pthread_mutex_unlock(&s->lock);
		if (!begun)
			return ret;
	}
	pthread_mutex_lock(&acl_cap_lock);
	pthread_mutex_lock(&s->lock);
	if (!s->capture)
		goto out;
	if (s->capture->build) {
		ret = acl_stream_capture_refuse(s);
		goto out;
	}
	if (!ok) {
		ret = acl_stream_plain_event(s);
		goto out;
	}
	ret = acl_stream_capture_valid_locked(s);
	if (!ret)
		ret = acl_stream_grp_gate_locked(s, false);
	if (ret)
		goto out;
	mb = acl_capture_member_of(s->capture, s);
	if (mb) {
		old = mb->last;
		acl_obj_hold(event);
		*mb = (struct acl_capture_member){ .s = s, .last = event, .at = s->recorded };
	}
	*serial = s->capture->serial;
out:
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_unlock(&acl_cap_lock);
	if (old)
		acl_obj_put(old);
	return ret;
}

/* @s joins @cap (under acl_cap_lock, @s not recording). */
static int acl_capture_add_member(struct acl_capture *cap, struct acl_stream *s)
{
	struct acl_capture_member *v;

	if (cap->nmembers == cap->members_cap) {
		v = realloc(cap->members, (cap->members_cap ? 2 * cap->members_cap : 4) * sizeof(*v));
		if (!v)
			return acl_errf(-ENOMEM, "out of host memory for the capture of stream %p", (void *)cap->origin);
		cap->members = v;
		cap->members_cap = cap->members_cap ? 2 * cap->members_cap : 4;
	}
	acl_obj_hold(&s->obj);
	cap->members[cap->nmembers++] = (struct acl_capture_member){ .s = s };
	pthread_mutex_lock(&s->lock);
	s->capture = cap;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

int acl_stream_capture_join(struct acl_stream *s, uint64_t serial, struct acl_obj *event)
{
	struct acl_capture *cap, *cur;
	uint32_t i;
	int ret = 0;

	pthread_mutex_lock(&acl_cap_lock);
	for (cap = acl_caps_live; cap && cap->serial != serial; cap = cap->live_next)
		;
	if (!cap) {
		pthread_mutex_unlock(&acl_cap_lock);
		return -ENOENT;
	}
	pthread_mutex_lock(&s->lock);
	cur = s->capture;
	if (!ret && cur && cur != cap)
		ret = acl_errf(ACLI_ECAPCONFLICT, "stream %p %s, not the capture event %p was recorded in",
			       s, cur->build ? "is bound to a model being built" : "belongs to another capture",
			       (void *)event);
	if (!ret && cur)
		ret = acl_stream_capture_valid_locked(s);
	pthread_mutex_unlock(&s->lock);
	if (!ret && !cur && s->is_default)
		ret = acl_errf(ACLI_ECAPIMPLICIT, "the default stream cannot join the capture event %p was recorded in",
			       (void *)event);
	if (!ret && !cur && (s->flags & ACL_STREAM_DEVICE_USE_ONLY))
		ret = acl_errf(ACLI_EINTERNAL, "stream %p is ACL_STREAM_DEVICE_USE_ONLY, which cannot join a capture", s);
	if (!ret && !cur)
		ret = acl_capture_add_member(cap, s);
	if (!ret) {
		struct acl_capture_member *mb = acl_capture_member_of(cap, s);

		/* the recorder of @event is waited for; a wait is a task of @s */
		for (i = 0; i < cap->nmembers; i++) {
			if (cap->members[i].last != event)
				continue;
			cap->members[i].waited = true;
			if (s == cap->origin)
				cap->members[i].joined = true;
		}
		if (mb && mb->last != event)
			mb->at = UINT64_MAX;
	}
	pthread_mutex_unlock(&acl_cap_lock);
	return ret;
}

bool acl_stream_capture_origin(struct acl_stream *s)
{
	bool origin;

	pthread_mutex_lock(&s->lock);
	origin = s->capture && s->capture->origin == s;
	pthread_mutex_unlock(&s->lock);
	return origin;
}

/* @cap's members leave it (under acl_cap_lock): their entries into *@out (the caller puts them). */
static int acl_capture_check_locked(struct acl_capture *cap)
{
	bool joined = false;
	uint32_t i;

	for (i = 0; i < cap->nmembers; i++) {
		struct acl_capture_member *mb = &cap->members[i];

		if (!mb->last || mb->at != acl_stream_recorded(mb->s))
			return acl_errf(ACLI_ECAPUNJOINED, "stream %p joined the capture of stream %p, and its last task is no event record: record an event on it and wait for that event on the origin stream",
					(void *)mb->s, (void *)cap->origin);
		if (!mb->waited)
			return acl_errf(ACLI_ECAPUNJOINED, "the last record on stream %p, which joined the capture of stream %p, has no wait for it in the capture",
					(void *)mb->s, (void *)cap->origin);
		joined |= mb->joined;
	}
	if (cap->nmembers && !joined)
		return acl_errf(ACLI_ECAPUNJOINED, "the streams that joined the capture of stream %p were not joined back: the origin stream waits for none of their last records",
				(void *)cap->origin);
	return 0;
}

int acl_capture_close(struct acl_capture *cap, bool check)
{
	struct acl_capture_member *members;
	struct acl_capture **pp;
	uint32_t n, i;
	int ret = 0;

	pthread_mutex_lock(&acl_cap_lock);
	for (pp = &acl_caps_live; *pp && *pp != cap; pp = &(*pp)->live_next)
		;
	if (!*pp) {
		pthread_mutex_unlock(&acl_cap_lock);
		return 0;
	}
	*pp = cap->live_next;
	__atomic_sub_fetch(&acl_caps_nlive, 1, __ATOMIC_RELEASE);
	if (check)
		ret = acl_capture_check_locked(cap);
	members = cap->members;
	n = cap->nmembers;
	cap->members = NULL;
	cap->nmembers = cap->members_cap = 0;
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&members[i].s->lock);
		if (members[i].s->capture == cap) {
			members[i].s->capture = NULL;
			/* a group left open ends with the capture (CaptureEnd answered 107033) */
			if (members[i].s->grp == ACL_GRP_SAMPLE)
				members[i].s->grp = ACL_GRP_NONE;
		}
		pthread_mutex_unlock(&members[i].s->lock);
	}
	pthread_mutex_unlock(&acl_cap_lock);
	for (i = 0; i < n; i++) {
		if (members[i].last)
			acl_obj_put(members[i].last);
		acl_stream_put(members[i].s);
	}
	free(members);
	return ret;
}

void acl_captures_forget(void)
{
	/* the parent's captures are not the child's; the lock may be held by a thread that is gone */
	pthread_mutex_init(&acl_cap_lock, NULL);
	acl_caps_live = NULL;
	acl_caps_nlive = 0;
}

struct acl_capture *acl_stream_capture_end(struct acl_stream *s, const struct acl_capture *cap)
{
	struct acl_capture *cur;

	pthread_mutex_lock(&s->lock);
	cur = s->capture;
	if (cur && (cap ? cur != cap : cur->build))
		cur = NULL;
	if (cur) {
		s->capture = NULL;
		if (s->grp == ACL_GRP_SAMPLE)
			s->grp = ACL_GRP_NONE;
	}
	pthread_mutex_unlock(&s->lock);
	return cur;
}

bool acl_stream_capture_ended(struct acl_stream *s, const struct acl_capture *cap)
{
	bool ended;

	pthread_mutex_lock(&s->lock);
	ended = s->capture == cap && cap->ended;
	pthread_mutex_unlock(&s->lock);
	return ended;
}

struct acl_capture *acl_stream_capture(struct acl_stream *s, bool *invalid)
{
	struct acl_capture *cap;

	pthread_mutex_lock(&s->lock);
	cap = s->capture && !s->capture->build ? s->capture : NULL;
	if (invalid)
		*invalid = cap && cap->invalid;
	pthread_mutex_unlock(&s->lock);
	return cap;
}

uint64_t acl_stream_recorded(struct acl_stream *s)
{
	uint64_t n;

	pthread_mutex_lock(&s->lock);
	n = s->recorded;
	pthread_mutex_unlock(&s->lock);
	return n;
}

struct acl_capture *acl_stream_recording(struct acl_stream *s)
{
	struct acl_capture *cap;

	pthread_mutex_lock(&s->lock);
	cap = s->capture;
	pthread_mutex_unlock(&s->lock);
	return cap;
}

int acl_stream_not_capturing(struct acl_stream *s, const char *what)
{
	if (!acl_stream_capture(s, NULL))
		return 0;
	return acl_errf(ACLI_ESTREAMCAPTURED, "stream %p is being captured: %s it is refused until aclmdlRICaptureEnd",
			s, what);
}

int acl_stream_submit_locked(struct acl_stream *s, struct npu_cmd *cmds, uint32_t n, uint64_t *seq)
{
	struct npu_submit arg = {
		.size = sizeof(arg),
		.count = n,
		.cmds = (uintptr_t)cmds,
		.cmd_size = sizeof(*cmds),
	};
	int ret;

	if (s->capture)
		return acl_stream_capture_refuse(s);
	if (s->grp == ACL_GRP_UPDATE)
		return acl_stream_grp_gate_locked(s, false);
	/* CANN: an aborting device's contexts fail with that first */
	ret = s->ctx ? acl_dev_aborting(s->dev) : 0;
	if (!ret)
		ret = acl_stream_sticky(s);
	if (ret)
		return ret;
	if (__atomic_load_n(&s->aborting, __ATOMIC_ACQUIRE))
		return acl_errf(ACLI_ESTREAMABORT, "the stream is being aborted: the task is dropped");
	arg.stream = s->id;
	ret = acl_ioctl(s->dev->fd, NPU_IOCTL_SUBMIT, &arg);
	/* the queue went away under an abort */
	if (ret == -ENOENT && acl_stream_gone(s, arg.stream))
		return acl_errf(ACLI_ESTREAMABORT, "the stream was aborted: the task is dropped");
	if (!ret)
		s->last_seq = arg.seqno;
	if (!ret && seq)
		*seq = arg.seqno;
	/* the application's tasks, as CANN counts them: its streams' commands */
	if (!ret && s->ctx)
		acl_last_task = (struct acl_task_ref){
			.s = s, .serial = s->serial, .sid = s->id, .seq = arg.seqno,
			.task = acl_stream_task_id(s, arg.seqno),
		};
	return ret;
}

int acl_stream_submit_at(struct acl_stream *s, struct npu_cmd *cmds, uint32_t n, uint32_t *id,
			 uint64_t *seq)
{
	int ret;

	pthread_mutex_lock(&s->lock);
	ret = acl_stream_submit_locked(s, cmds, n, seq);
	if (id)
		*id = s->id;
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int acl_stream_submit(struct acl_stream *s, struct npu_cmd *cmds, uint32_t n, uint64_t *seq)
{
	return acl_stream_submit_at(s, cmds, n, NULL, seq);
}

void acl_stream_note_dep(struct acl_stream *s, uint32_t sid, uint64_t seq)
{
	unsigned int i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->ndeps && s->deps[i].sid != sid; i++)
		;
	if (i == s->ndeps) {
		/* full: the oldest entry goes */
		if (s->ndeps == ACL_STREAM_DEPS) {
			memmove(&s->deps[0], &s->deps[1], sizeof(s->deps[0]) * (ACL_STREAM_DEPS - 1));
			i = --s->ndeps;
		}
		s->deps[s->ndeps++] = (struct acl_stream_dep){ .sid = sid };
	}
	if (seq > s->deps[i].seq)
		s->deps[i].seq = seq;
	pthread_mutex_unlock(&s->lock);
}

bool acl_stream_depends(struct acl_stream *s, uint32_t sid, uint64_t seq)
{
	bool after = false;
	unsigned int i;

	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->ndeps; i++)
		if (s->deps[i].sid == sid && s->deps[i].seq >= seq)
			after = true;
	pthread_mutex_unlock(&s->lock);
	return after;
}

static void (*acl_stream_sync_hook)(struct acl_device *dev);

void acl_stream_set_sync_hook(void (*fn)(struct acl_device *dev))
{
	__atomic_store_n(&acl_stream_sync_hook, fn, __ATOMIC_RELEASE);
}

/* A synchronize of the API succeeded on @dev: tell whoever asked. */
static void acl_stream_synced(struct acl_device *dev)
{
	void (*fn)(struct acl_device *dev) = __atomic_load_n(&acl_stream_sync_hook, __ATOMIC_ACQUIRE);

	if (fn)
		fn(dev);
}

void acl_stream_point(struct acl_stream *s, uint32_t *id, uint64_t *seq)
{
	pthread_mutex_lock(&s->lock);
	*id = s->id;
	*seq = s->last_seq;
	pthread_mutex_unlock(&s->lock);
}

int64_t acl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * STREAM_SYNC for @seq of kernel stream @id: the driver's answer; with
 * -EIO, -EHWPOISON and -ETIME, *@rep says which command failed, whose
 * and where.
 */
static int acl_kstream_sync(struct acl_device *dev, uint32_t id, uint64_t seq, int32_t timeout_ms,
			    struct npu_stream_sync *rep)
{
	struct npu_stream_sync arg = {
		.size = sizeof(arg),
		.stream = id,
		.timeout_ms = timeout_ms,
		.seqno = seq,
	};
	int64_t deadline = acl_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	int ret;

	/*
	 * A signal ends the driver's wait with -EINTR: wait on until the
	 * deadline, not for the whole timeout again, or a periodic signal
	 * would keep a bounded wait from ever timing out.
	 */
	while ((ret = acl_ioctl_once(dev->fd, NPU_IOCTL_STREAM_SYNC, &arg)) == -EINTR) {
		if (timeout_ms >= 0) {
			int64_t left = deadline - acl_now_ms();

			arg.timeout_ms = left > 0 ? (int32_t)left : 0;
		}
	}
	if (rep)
		*rep = arg;
	return ret;
}

/* What a wait for commands of @dev returned (STREAM_SYNC, or SUBMIT's), explained. */
static int acl_wait_result(struct acl_device *dev, int ret, int32_t timeout_ms)
{
	if (ret == -ETIMEDOUT)
		return acl_errf(ret, "stream did not complete within %d ms", timeout_ms);
	if (ret == -EIO) {
		/* for aclrtGetErrorVerbose: the device's latest fault */
		__atomic_add_fetch(&dev->faults, 1, __ATOMIC_RELAXED);
		return acl_errf(ACLI_ETASKFAULT, "a task of the stream faulted (DMA fault: see the kernel log)");
	}
	if (ret == -EHWPOISON) {
		__atomic_store_n(&dev->mem_error, true, __ATOMIC_RELAXED);
		__atomic_add_fetch(&dev->faults, 1, __ATOMIC_RELAXED);
		return acl_errf(ACLI_EMEMUCE, "a task of the stream touched device memory with an uncorrectable error (aclrtGetMemUceInfo, aclrtMemUceRepair)");
	}
	if (ret == -ETIME)
		return acl_errf(ACLI_ETASKTIMEOUT, "a wait of the stream ran out of its limit (aclrtStreamWaitEventWithTimeout)");
	if (ret == -ECANCELED)
		return acl_errf(ret, "tasks of the stream were dropped unrun (an earlier fault in ACL_STOP_ON_FAILURE mode, or the device was removed)");
	return ret;
}

/* A fault's reason with what the driver said of it (STREAM_SYNC's report, driver 1.6): @err. */
static int acl_fault_reason(int err, const struct npu_stream_sync *rep, const char *what, unsigned long long n)
{
	const char *access = rep->fault_flags & NPU_FAULT_WRITE ? "write to" : "read from";

	if (!rep->error_seqno)
		return err;
	if (err == ACLI_EMEMUCE)
		return acl_errf(err, "%s %llu of the stream touched device memory with an uncorrectable error: %s device address %#llx (aclrtGetMemUceInfo, aclrtMemUceRepair)",
				what, n, access, (unsigned long long)rep->fault_addr);
	if (err != ACLI_ETASKFAULT)
		return err;
	if (rep->fault_flags & NPU_FAULT_AICORE) {
		if (rep->fault_flags & NPU_FAULT_TRAP)
			return acl_errf(ACLI_EAICORETRAP, "%s %llu of the stream: a kernel trapped on an AI core", what, n);
		return acl_errf(ACLI_EAICORE, "%s %llu of the stream: a kernel faulted on an AI core: %s device address %#llx",
				what, n, access, (unsigned long long)rep->fault_addr);
	}
	return acl_errf(err, "%s %llu of the stream faulted: DMA %s %s address %#llx (see the kernel log)", what, n,
			access, rep->fault_flags & NPU_FAULT_HOST ? "host" : "device",
			(unsigned long long)rep->fault_addr);
}

int acl_stream_wait(struct acl_device *dev, uint32_t id, uint64_t seq, int32_t timeout_ms)
{
	struct npu_stream_sync rep;
	int ret = acl_kstream_sync(dev, id, seq, timeout_ms, &rep);

	ret = acl_wait_result(dev, ret, timeout_ms);
	return acl_fault_reason(ret, &rep, "command", rep.error_seqno);
}

int acl_dev_aborting(struct acl_device *dev)
{
	if (!__atomic_load_n(&dev->task_abort, __ATOMIC_ACQUIRE))
		return 0;
	return acl_errf(ACLI_EDEVTASKABORT, "the tasks of device %d are being aborted (aclrtDeviceTaskAbort)",
			dev->id);
}

void acl_stream_note_launch(struct acl_stream *s, uint32_t sid, uint64_t seq, uint32_t step, void *func,
			    uint64_t args_va, uint32_t args_len)
{
	struct acl_klog *l = __atomic_load_n(&s->klog, __ATOMIC_ACQUIRE);
	uint32_t i;

	if (!l) {
		/* without memory for it, the launch's exception only lacks its detail */
		l = calloc(1, sizeof(*l));
		if (!l)
			return;
		pthread_mutex_init(&l->lock, NULL);
		pthread_mutex_lock(&s->lock);
		if (!s->klog) {
			__atomic_store_n(&s->klog, l, __ATOMIC_RELEASE);
			l = NULL;
		}
		pthread_mutex_unlock(&s->lock);
		if (l) {
			pthread_mutex_destroy(&l->lock);
			free(l);
		}
		l = s->klog;
	}
	pthread_mutex_lock(&l->lock);
	i = l->next;
	l->next = (i + 1) % ACL_KLOG_SLOTS;
	l->rec[i].sid = sid;
	l->rec[i].seq = seq;
	l->rec[i].step = step;
	l->rec[i].func = func;
	l->rec[i].args_va = args_va;
	l->rec[i].args_len = args_va ? args_len : 0;
	pthread_mutex_unlock(&l->lock);
}

/*
 * The launch record of command @seq of kernel stream @sid of @s into @f,
 * if it is still kept: of its step @step if it is a model run (0: the
 * driver named none, and the run's first kernel is taken).
 */
static void acl_stream_find_launch(struct acl_stream *s, uint32_t sid, uint64_t seq, uint32_t step,
				   struct acl_task_fault *f)
{
	struct acl_klog *l = __atomic_load_n(&s->klog, __ATOMIC_ACQUIRE);
	unsigned int i, best = ACL_KLOG_SLOTS;

	if (!l || !seq)
		return;
	pthread_mutex_lock(&l->lock);
	for (i = 0; i < ACL_KLOG_SLOTS; i++) {
		if (l->rec[i].seq != seq || l->rec[i].sid != sid)
			continue;
		if (l->rec[i].step == step) {
			best = i;
			break;
		}
		if (!step && (best == ACL_KLOG_SLOTS || l->rec[i].step < l->rec[best].step))
			best = i;
	}
	if (best < ACL_KLOG_SLOTS) {
		f->func = l->rec[best].func;
		f->args_va = l->rec[best].args_va;
		f->args_len = l->rec[best].args_len;
	}
	pthread_mutex_unlock(&l->lock);
}

/* What a task failure's library error @err (acl_fault_err()'s) says happened. */
static const char *acl_fault_what(int err)
{
	return err == ACLI_ETASKTIMEOUT ? "it ran out of its limit" :
	       err == ACLI_EMEMUCE ? "an uncorrectable device memory error" :
	       err == ACLI_EAICORE ? "a kernel faulted on an AI core" :
	       err == ACLI_EAICORETRAP ? "a kernel trapped on an AI core" :
					 "DMA fault: see the kernel log";
}

/* The library's error for a task failure STREAM_SYNC reported (-EIO, -EHWPOISON, -ETIME). */
static int acl_fault_err(int ret, const struct npu_stream_sync *rep)
{
	if (ret == -EHWPOISON)
		return ACLI_EMEMUCE;
	if (ret == -ETIME)
		return ACLI_ETASKTIMEOUT;
	if (rep->fault_flags & NPU_FAULT_AICORE)
		return rep->fault_flags & NPU_FAULT_TRAP ? ACLI_EAICORETRAP : ACLI_EAICORE;
	return ACLI_ETASKFAULT;
}

/*
 * acl_stream_wait() for kernel stream @id of @s. A fault of a context's
 * stream (a DMA fault, or a bad device page), which the driver reports
 * now and once, is an exception for the callbacks, called here (before
 * the API call returns, as CANN calls them while it reclaims the task,
 * and before the reason of the error is recorded: their calls would
 * clear it) - or, with @keep, handed to the caller (*@kept) to keep for
 * later. None while the device's tasks are being aborted (CANN calls none
 * then). Its task id is aclrtGetThreadLastTaskId's (acl_stream_task_id();
 * read without s->lock, which a caller may hold: it moves only with
 * aclrtPersistentTaskClean, on an idle stream).
 */
static int acl_stream_wait_on(struct acl_stream *s, uint32_t id, uint64_t seq, int32_t timeout_ms,
			      struct acl_task_fault *keep, bool *kept)
{
	struct npu_stream_sync rep;
	int ret = acl_kstream_sync(s->dev, id, seq, timeout_ms, &rep);
	bool fault = ret == -EIO || ret == -EHWPOISON;
	uint32_t task = fault ? acl_stream_task_id(s, rep.error_seqno) : 0;
	struct acl_task_fault exc = {
		.device = s->dev->id,
		.stream = id,
		.task = task,
		.tid = rep.error_tid,
		/*
		 * CANN: an SDMA task's exception is TS "memcpy exception";
		 * one on a page with a UCE "sdma poison error", whose
		 * runtime code is the device memory error's
		 */
		.code = ret == -EHWPOISON ? ACL_ERROR_RT_DEVICE_MEM_ERROR : ACL_ERROR_RT_TS_ERROR,
	};

	/* a kernel's: the AI core's exception, as CANN reports it, with its launch */
	if (ret == -EIO && (rep.fault_flags & NPU_FAULT_AICORE)) {
		exc.code = rep.fault_flags & NPU_FAULT_TRAP ? ACL_ERROR_RT_AICORE_TRAP_EXCEPTION :
			   ACL_ERROR_RT_AICORE_EXCEPTION;
		exc.kernel = true;
		acl_stream_find_launch(s, id, rep.error_seqno, rep.error_step, &exc);
	}
	/*
	 * In STOP mode the commands after it are dropped, and a wait past it
	 * is told only that (-ECANCELED): keep the fault's error, the
	 * stream's error from now on, as CANN's stream error code - before
	 * the callbacks run, which other waiters may not wait for.
	 */
	if ((fault || ret == -ETIME) && __atomic_load_n(&s->stop_on_failure, __ATOMIC_RELAXED))
		__atomic_store_n(&s->stop_fault, (uint64_t)id << 32 | (uint32_t)-acl_fault_err(ret, &rep),
				 __ATOMIC_RELEASE);
	bool due = fault && s->ctx && !__atomic_load_n(&s->dev->task_abort, __ATOMIC_ACQUIRE);

	if (keep) {
		*keep = exc;
		*kept = due;
	} else if (due) {
		acl_exception_report(&exc);
	}
	ret = acl_wait_result(s->dev, ret, timeout_ms);
	return acl_fault_reason(ret, &rep, "task", task);
}

/* Hand over the exception a poll kept (acl_stream_reached()), if any. */
static void acl_stream_flush_exc(struct acl_stream *s)
{
	struct acl_task_fault exc;
	bool due;

	pthread_mutex_lock(&s->lock);
	due = s->exc_due;
	exc = s->exc;
	s->exc_due = false;
	pthread_mutex_unlock(&s->lock);
	if (due)
		acl_exception_report(&exc);
}

/*
 * Commands of kernel stream @id of @s were dropped unrun (-ECANCELED, not
 * by the library): after a fault in STOP mode that fault's error, as
 * CANN's synchronize answers the stream's error code (a trap 507016, not
 * a later task's state); else (the device went) ACLI_ETASKFAULT.
 */
static int acl_stream_dropped(struct acl_stream *s, uint32_t id)
{
	uint64_t f = __atomic_load_n(&s->stop_fault, __ATOMIC_ACQUIRE);
	int tries = 20;

	/*
	 * The waiter the driver told of the fault may be on its way back
	 * from STREAM_SYNC still: give it a moment (20 ms at most) to note it.
	 */
	while ((!f || (uint32_t)(f >> 32) != id) && __atomic_load_n(&s->stop_on_failure, __ATOMIC_RELAXED) &&
	       tries--) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
		f = __atomic_load_n(&s->stop_fault, __ATOMIC_ACQUIRE);
	}
	acl_err_clear();
	if (f && (uint32_t)(f >> 32) == id)
		return acl_errf(-(int)(uint32_t)f, "a task of the stream failed (%s) and the later ones were dropped unrun (ACL_STOP_ON_FAILURE)",
				acl_fault_what(-(int)(uint32_t)f));
	return acl_errf(ACLI_ETASKFAULT, "tasks of the stream were dropped unrun (an earlier fault in ACL_STOP_ON_FAILURE mode, or the device was removed)");
}

/* Does SUBMIT's error @err come from the wait for its commands (they were queued)? */
static bool acl_submit_waited(int err)
{
	return err == -EIO || err == -EHWPOISON || err == -ETIME || err == -ECANCELED;
}

int acl_stream_submit_wait(struct acl_stream *s, struct npu_cmd *cmds, uint32_t n, bool *queued)
{
	struct npu_submit arg = {
		.size = sizeof(arg),
		.flags = NPU_SUBMIT_WAIT,
		.count = n,
		.cmds = (uintptr_t)cmds,
		.cmd_size = sizeof(*cmds),
	};
	uint64_t seq;
	int ret;

	pthread_mutex_lock(&s->lock);
	arg.stream = s->id;
	/* no one else submits to an internal stream: this is the seqno it gets */
	seq = s->last_seq + n;
	*queued = false;
	for (;;) {
		ret = acl_ioctl_once(s->dev->fd, NPU_IOCTL_SUBMIT, &arg);
		if (ret != -EINTR) {
			*queued = !ret || acl_submit_waited(ret);
			break;
		}
		/*
		 * A signal, while SUBMIT waited for room (nothing queued:
		 * submit again) or for the commands (queued: wait on).
		 * STREAM_SYNC tells them apart: a seqno not given out yet is
		 * -EINVAL.
		 */
		ret = acl_kstream_sync(s->dev, arg.stream, seq, -1, NULL);
		if (ret != -EINVAL) {
			*queued = true;
			break;
		}
		acl_err_clear();
	}
	if (*queued)
		s->last_seq = seq;
	pthread_mutex_unlock(&s->lock);
	return acl_wait_result(s->dev, ret, -1);
}

/* Errors of a stream's tasks (as opposed to the wait's own). */
static bool acl_task_error(int err)
{
	return err == ACLI_ETASKFAULT || err == ACLI_EMEMUCE || err == ACLI_ETASKTIMEOUT ||
	       err == ACLI_EAICORE || err == ACLI_EAICORETRAP;
}

/* A task error of @s seen now: latched for the context in STOP mode. */
static void acl_stream_task_error(struct acl_stream *s, int err)
{
	int none = 0;

	if (s->ctx && s->stop_on_failure)
		__atomic_compare_exchange_n(&s->ctx->sticky, &none, err, false, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED);
}

static int acl_stream_take_fault(struct acl_stream *s)
{
	int err;

	/* a poll saw the fault: its exception is due now, before the error */
	acl_stream_flush_exc(s);
	pthread_mutex_lock(&s->lock);
	err = s->fault;
	s->fault = 0;
	pthread_mutex_unlock(&s->lock);
	return err ? acl_errf(err, "a task of the stream failed (%s)", acl_fault_what(err)) : 0;
}

int acl_stream_wait_seq(struct acl_stream *s, uint32_t id, uint64_t seq, int32_t timeout_ms)
{
	int ret;

	ret = acl_dev_aborting(s->dev);
	if (!ret)
		ret = acl_stream_sticky(s);
	if (ret)
		return ret;
	if (__atomic_load_n(&s->aborting, __ATOMIC_ACQUIRE))
		return acl_errf(ACLI_ESTREAMABORT, "the stream is being aborted");
	ret = acl_stream_wait_on(s, id, seq, timeout_ms, NULL, NULL);
	/*
	 * A fault a callback's watcher met meanwhile (or before) is this
	 * synchronize's answer - once the stream got there, not before.
	 */
	if (!ret)
		ret = acl_stream_take_fault(s);
	if ((ret == -ENOENT || ret == -ECANCELED) && acl_stream_gone(s, id)) {
		/* aborted (a sync racing with it sees that) or replaced since */
		ret = acl_dev_aborting(s->dev);
		if (ret)
			return ret;
		if (__atomic_load_n(&s->aborting, __ATOMIC_ACQUIRE))
			return acl_errf(ACLI_ESTREAMABORT, "the stream was aborted while it was waited for");
		acl_err_clear();
		return 0;
	}
	if (ret == -ECANCELED)
		ret = acl_stream_dropped(s, id);
	if (acl_task_error(ret))
		acl_stream_task_error(s, ret);
	return ret;
}

/*
 * acl_stream_reach(); a fault's exception goes to the callbacks @now, or
 * is kept for the next synchronize of @s (the caller may hold library
 * locks a callback's calls would take).
 */
static int acl_stream_reach_as(struct acl_stream *s, uint32_t id, uint64_t seq, int32_t timeout_ms, bool now)
{
	struct acl_task_fault exc;
	bool due = false;
	int ret;

	if (!seq)
		return 0;
	ret = acl_stream_wait_on(s, id, seq, timeout_ms, now ? NULL : &exc, &due);
	acl_err_clear();
	if (ret == -ECANCELED || ret == -ENOENT)
		ret = acl_stream_gone(s, id) ? -ENOENT : ret == -ECANCELED ? acl_stream_dropped(s, id) : ret;
	if (acl_task_error(ret)) {
		/* the next synchronize reports it: a query must not swallow it */
		pthread_mutex_lock(&s->lock);
		if (!s->fault)
			s->fault = ret;
		/* one kept at a time, as the error (a second one is the log's) */
		if (due && !now && !s->exc_due) {
			s->exc = exc;
			s->exc_due = true;
		}
		pthread_mutex_unlock(&s->lock);
		acl_stream_task_error(s, ret);
		ret = 0;
	}
	return ret;
}

void acl_stream_keep_fault(struct acl_stream *s, int err)
{
	pthread_mutex_lock(&s->lock);
	if (!s->fault)
		s->fault = err;
	pthread_mutex_unlock(&s->lock);
	acl_stream_task_error(s, err);
}

int acl_stream_reach(struct acl_stream *s, uint32_t id, uint64_t seq, int32_t timeout_ms)
{
	return acl_stream_reach_as(s, id, seq, timeout_ms, true);
}

bool acl_stream_reached(struct acl_stream *s, uint32_t id, uint64_t seq)
{
	return acl_stream_reach_as(s, id, seq, 0, false) != -ETIMEDOUT;
}

int acl_stream_sync(struct acl_stream *s, int32_t timeout_ms)
{
	uint32_t id;
	uint64_t seq;

	acl_stream_point(s, &id, &seq);
	return acl_stream_wait_seq(s, id, 0, timeout_ms);
}

/* Milliseconds left until @deadline (acl_now_ms()), at least 0 (a poll); -1 for none. */
static int32_t acl_ms_left(int64_t deadline)
{
	int64_t left;

	if (deadline < 0)
		return -1;
	left = deadline - acl_now_ms();
	return left <= 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int32_t)left;
}

/*
 * Everything queued on @s so far done by @deadline (-1: none): 0 or
 * -ETIMEDOUT; a task error stays for the stream's next synchronize.
 */
static int acl_stream_drain(struct acl_stream *s, int64_t deadline)
{
	uint32_t id;
	uint64_t seq;
	int ret;

	acl_stream_point(s, &id, &seq);
	ret = acl_stream_reach(s, id, seq, acl_ms_left(deadline));
	return ret == -ENOENT ? 0 : ret;
}

int acl_ctx_each_stream(struct acl_context *ctx, int (*fn)(struct acl_stream *s, void *arg), void *arg)
{
	struct acl_stream **v = NULL, *s;
	size_t n = 0, i;
	int ret = 0, err;

	pthread_mutex_lock(&ctx->lock);
	list_for_each_entry(s, &ctx->streams, node)
		n++;
	v = calloc(n ? n : 1, sizeof(*v));
	if (v) {
		n = 0;
		list_for_each_entry(s, &ctx->streams, node) {
			acl_obj_hold(&s->obj);
			v[n++] = s;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	if (!v)
		return acl_errf(-ENOMEM, "out of host memory");
	for (i = 0; i < n; i++) {
		err = fn(v[i], arg);
		if (err && (!ret || err == -ETIMEDOUT))
			ret = err;
		acl_stream_put(v[i]);
	}
	free(v);
	return ret;
}

int acl_dev_each_stream(struct acl_device *dev, int (*fn)(struct acl_stream *s, void *arg), void *arg)
{
	struct acl_context *ctx;
	struct acl_context **ctxs = NULL;
	size_t n = 0, i;
	int ret = 0, err;

	/* Every context of the device; waiting must not hold the device lock. */
	pthread_mutex_lock(&dev->lock);
	list_for_each_entry(ctx, &dev->contexts, node)
		n++;
	ctxs = calloc(n ? n : 1, sizeof(*ctxs));
	if (!ctxs) {
		pthread_mutex_unlock(&dev->lock);
		return acl_errf(-ENOMEM, "out of host memory");
	}
	n = 0;
	list_for_each_entry(ctx, &dev->contexts, node) {
		acl_obj_hold(&ctx->obj);
		ctxs[n++] = ctx;
	}
	pthread_mutex_unlock(&dev->lock);
	for (i = 0; i < n; i++) {
		err = acl_ctx_each_stream(ctxs[i], fn, arg);
		if (err && (!ret || err == -ETIMEDOUT))
			ret = err;
		acl_ctx_put(ctxs[i]);
	}
	free(ctxs);
	return ret;
}

/* A walk of streams that wait until one deadline: once it passed, the rest are skipped. */
struct acl_sync_walk {
	int64_t deadline;		/* acl_now_ms(); -1: none */
	bool keep;			/* a task error stays for the stream's next synchronize */
	bool timed_out;
};

static int acl_stream_sync_step(struct acl_stream *s, void *arg)
{
	struct acl_sync_walk *w = arg;
	int err;

	if (w->timed_out)
		return 0;
	err = w->keep ? acl_stream_drain(s, w->deadline) : acl_stream_sync(s, acl_ms_left(w->deadline));
	w->timed_out = err == -ETIMEDOUT;
	return err;
}

/* Wait for every stream of @ctx. */
int acl_ctx_sync_streams(struct acl_context *ctx)
{
	struct acl_sync_walk w = { .deadline = -1 };

	return acl_ctx_each_stream(ctx, acl_stream_sync_step, &w);
}

/*
 * Every stream of every context of @dev until @deadline (-1: none): the
 * first error, or -ETIMEDOUT at once when the time is up.
 */
static int acl_dev_sync_until(struct acl_device *dev, int64_t deadline, bool keep)
{
	struct acl_sync_walk w = { .deadline = deadline, .keep = keep };

	return acl_dev_each_stream(dev, acl_stream_sync_step, &w);
}

int acl_dev_sync(struct acl_device *dev)
{
	return acl_dev_sync_until(dev, -1, false);
}

int acl_dev_drain_until(struct acl_device *dev, int64_t deadline)
{
	return acl_dev_sync_until(dev, deadline, true);
}

/*
 * CANN refuses a device synchronize while a stream of the current context
 * captures (107027): the captured work never runs until executed.
 */
static int acl_ctx_not_capturing(void)
{
	struct acl_context *ctx;
	bool capturing;
	int ret;

	ret = acl_cur_ctx(&ctx);
	if (ret)
		return ret;
	pthread_mutex_lock(&ctx->lock);
	capturing = !list_empty(&ctx->captures);
	pthread_mutex_unlock(&ctx->lock);
	acl_ctx_put(ctx);
	return capturing ? acl_errf(ACLI_ESTREAMCAPTURED, "a stream of the current context is being captured: synchronizing the device is refused until aclmdlRICaptureEnd") : 0;
}

ACL_EXPORT aclError aclrtSynchronizeDevice(void)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter_dev(&dev);
	if (!ret)
		ret = acl_ctx_not_capturing();
	if (!ret)
		ret = acl_dev_sync(dev);
	if (!ret)
		acl_stream_synced(dev);
	return acl_ret(__func__, ret);
}

/*
 * A synchronize's timeout, as CANN checks it: -1 waits forever, > 0 is
 * milliseconds; its acl layer refuses < -1 (unrecorded as the last
 * error), its runtime 0.
 */
static int acl_sync_timeout_check(int32_t timeout)
{
	if (timeout < -1)
		return acl_nolast(acl_errf(ACLI_ERTPARAM, "timeout %d must be -1 (forever) or > 0 milliseconds",
					   timeout));
	if (!timeout)
		return acl_errf(ACLI_ERTPARAM, "timeout 0 must be -1 (forever) or > 0 milliseconds");
	return 0;
}

ACL_EXPORT aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
	struct acl_device *dev;
	int ret = acl_check_init();

	if (!ret)
		ret = acl_sync_timeout_check(timeout);
	if (!ret)
		ret = acl_cur_dev(&dev);
	if (!ret)
		ret = acl_ctx_not_capturing();
	if (!ret)
		ret = acl_dev_sync_until(dev, timeout < 0 ? -1 : acl_now_ms() + timeout, false);
	if (ret == -ETIMEDOUT)
		ret = acl_errf(ret, "the device's streams did not complete within %d ms", timeout);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDeviceL2CacheFlush(void *rsv)
{
	struct npu_get_info info = { .size = sizeof(info) };
	struct acl_device *dev;
	int ret = acl_check_init();

	if (!ret && rsv)
		ret = acl_errf(-EINVAL, "rsv must be NULL");
	if (!ret)
		ret = acl_cur_dev(&dev);
	if (ret)
		goto out;
	/*
	 * The engine writes device memory directly: no cache holds data back.
	 * What is left of a flush is a device that answers.
	 */
	ret = acl_ioctl(dev->fd, NPU_IOCTL_GET_INFO, &info);
	if (ret == -ENODEV)
		ret = acl_errf(ret, "device %d is gone (its carrier was removed)", dev->id);
out:
	return acl_ret(__func__, ret);
}

int acl_stream_make(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
	struct acl_context *ctx;
	struct acl_stream *s;
	int ret;

	ret = acl_enter(NULL, stream);
	if (ret)
		return ret;
	flag &= ACL_STREAM_KNOWN;
	if ((flag & ACL_STREAM_DEVICE_USE_ONLY) && flag != ACL_STREAM_DEVICE_USE_ONLY)
		return acl_errf(ACLI_ERTPARAM, "ACL_STREAM_DEVICE_USE_ONLY cannot be combined with other flags (%#x)",
				flag);
	/* CANN reads it as a signed int: a negative one is the highest priority */
	if ((int32_t)priority < 0)
		priority = 0;
	else if (priority > ACL_STREAM_PRIO_LEAST)
		priority = ACL_STREAM_PRIO_LEAST;
	ret = acl_cur_ctx(&ctx);
	if (ret)
		return ret;
	ret = acl_stream_create(ctx, flag, priority, false, &s);
	acl_ctx_put(ctx);
	if (ret)
		return ret;
	*stream = s;
	acl_stream_state_notify(s, ACL_RT_STREAM_STATE_CREATE_POST);
	return 0;
}

ACL_EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
	return acl_ret(__func__, acl_stream_make(stream, 0, 0));
}

ACL_EXPORT aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
	return acl_ret(__func__, acl_stream_make(stream, priority, flag));
}

static int acl_stream_destroy(aclrtStream stream, bool force)
{
	struct acl_context *ctx;
	struct acl_stream *s;
	bool mine = false;
	int ret;

	ret = acl_enter(NULL, stream);
	if (ret)
		return ret;
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		return ret;
	ctx = s->ctx;
	if (s->is_default) {
		acl_stream_put(s);
		return acl_errf(ACLI_ERTPARAM, "stream %p is a context's default stream and cannot be destroyed",
				stream);
	}
	ret = acl_stream_not_capturing(s, "destroying");
	if (ret) {
		acl_stream_put(s);
		return ret;
	}
	/* Unlink first so no other call finds it while the kernel waits. */
	pthread_mutex_lock(&ctx->lock);
	if (!list_empty(&s->node)) {
		list_del(&s->node);
		list_init(&s->node);
		mine = true;
	}
	pthread_mutex_unlock(&ctx->lock);
	if (mine) {
		/* still live for the callbacks: teardown unlists it */
		acl_stream_state_notify(s, ACL_RT_STREAM_STATE_DESTROY_PRE);
		ret = acl_stream_teardown(s, force);
	}
	else
		ret = acl_errf(ACLI_EHANDLE, "stream %p is being destroyed by another thread", stream);
	acl_stream_put(s);
	return ret;
}

ACL_EXPORT aclError aclrtDestroyStream(aclrtStream stream)
{
	return acl_ret(__func__, acl_stream_destroy(stream, false));
}

ACL_EXPORT aclError aclrtDestroyStreamForce(aclrtStream stream)
{
	return acl_ret(__func__, acl_stream_destroy(stream, true));
}

static int acl_sync_stream(aclrtStream stream, int32_t timeout)
{
	struct acl_stream *s;
	int ret;

	ret = acl_stream_enter(stream, ACL_STREAM_USE, &s);
	if (ret)
		return ret;
	ret = acl_stream_not_capturing(s, "synchronizing");
	if (!ret)
		ret = acl_stream_sync(s, timeout);
	if (!ret)
		acl_stream_synced(s->dev);
	acl_stream_put(s);
	return ret;
}

ACL_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
	return acl_ret(__func__, acl_sync_stream(stream, -1));
}

ACL_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
	int ret = acl_check_init();

	if (!ret)
		ret = acl_sync_timeout_check(timeout);
	if (!ret)
		ret = acl_sync_stream(stream, timeout);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
	struct acl_stream *s;
	uint32_t id;
	uint64_t seq;
	int ret;

	ret = acl_enter(NULL, status);
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_USE, &s);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_stream_not_capturing(s, "querying");
	if (ret) {
		acl_stream_put(s);
		return acl_ret(__func__, ret);
	}
	acl_stream_point(s, &id, &seq);
	/* no lock held: a fault's exception is due at once */
	*status = (s->flags & ACL_STREAM_UNTRACKED) || acl_stream_reach(s, id, seq, 0) != -ETIMEDOUT ?
		  ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
	acl_stream_put(s);
	return ACL_SUCCESS;
}

/* A stream query taking the NULL (default) stream, for the getters below. */
static int acl_stream_getter(aclrtStream stream, const void *out, struct acl_stream **s)
{
	int ret = acl_enter(NULL, out);

	return ret ? ret : acl_stream_resolve(stream, ACL_STREAM_USE, s);
}

ACL_EXPORT aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
	struct acl_stream *s;
	int ret = acl_stream_getter(stream, streamId, &s);

	if (!ret) {
		pthread_mutex_lock(&s->lock);
		*streamId = (int32_t)s->id;
		pthread_mutex_unlock(&s->lock);
		acl_stream_put(s);
	}
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
	struct acl_stream *s;
	int ret = acl_stream_getter(stream, flags, &s);

	if (!ret) {
		*flags = s->flags;
		acl_stream_put(s);
	}
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
	struct acl_stream *s;
	int ret = acl_stream_getter(stream, priority, &s);

	if (!ret) {
		*priority = __atomic_load_n(&s->priority, __ATOMIC_RELAXED);
		acl_stream_put(s);
	}
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority)
{
	if (leastPriority)
		*leastPriority = ACL_STREAM_PRIO_LEAST;
	if (greatestPriority)
		*greatestPriority = 0;
	return ACL_SUCCESS;
}

int acl_stream_set_failure_mode(aclrtStream stream, uint64_t mode)
{
	struct acl_stream *s;
	bool stop = mode & ACL_STOP_ON_FAILURE;
	int ret;

	/* CANN takes NULL only on chips with a device control queue; ours has none */
	if (!stream)
		return acl_errf(ACLI_ERTPARAM, "stream must not be NULL: the default stream's failure mode is fixed on this chip");
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		return ret;
	pthread_mutex_lock(&s->lock);
	if (s->flags & ACL_STREAM_DEVICE_USE_ONLY)
		ret = acl_errf(ACLI_ERTNOTSUPP, "a DEVICE_USE_ONLY stream has no failure mode");
	else if (s->stop_on_failure && !stop)
		ret = acl_errf(ACLI_ERTNOTSUPP, "a stream in ACL_STOP_ON_FAILURE mode cannot go back to ACL_CONTINUE_ON_FAILURE");
	else if (stop && !s->stop_on_failure)
		ret = acl_kstream_stop_on_fault(s->dev, s->id);
	if (!ret && stop)
		s->stop_on_failure = true;
	pthread_mutex_unlock(&s->lock);
	acl_stream_put(s);
	return ret;
}

ACL_EXPORT aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
	int ret = acl_check_init();

	if (!ret)
		ret = acl_stream_set_failure_mode(stream, mode);
	return acl_ret(__func__, ret);
}

/* Recorded and reported: no task of the simulated chip checks overflow yet. */
ACL_EXPORT aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
	struct acl_stream *s;
	int ret = 0;

	if (flag > 1)
		ret = acl_errf(-EINVAL, "flag %u must be 0 (off) or 1 (on)", flag);
	if (!ret)
		ret = acl_stream_enter(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	/* CANN's SetStreamOverflowSwitch: not in a capture */
	ret = acl_stream_not_capturing(s, "setting the overflow switch of");
	if (!ret)
		__atomic_store_n(&s->overflow_switch, flag, __ATOMIC_RELAXED);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
	struct acl_stream *s;
	int ret;

	ret = acl_enter(NULL, flag);
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	*flag = __atomic_load_n(&s->overflow_switch, __ATOMIC_RELAXED);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

int acl_stream_abort(struct acl_stream *s)
{
	uint32_t id = 0;
	int ret;

	/*
	 * The kernel queue is dropped first (running copies stop at their next
	 * chunk; a submitter the full queue holds in SUBMIT, under s->lock,
	 * comes back), then a fresh one takes its place: waits on the old one
	 * end, and callbacks queued behind it are discarded.
	 */
	__atomic_store_n(&s->aborting, true, __ATOMIC_RELEASE);
	acl_kstream_destroy(s->dev, acl_stream_id(s), true);
	acl_err_clear();
	pthread_mutex_lock(&s->lock);
	/* a destroy took it meanwhile: no fresh queue for a dead stream */
	if (s->dead) {
		pthread_mutex_unlock(&s->lock);
		__atomic_store_n(&s->aborting, false, __ATOMIC_RELEASE);
		return 0;
	}
	ret = acl_kstream_create(s->dev, &id);
	if (!ret && s->stop_on_failure)
		ret = acl_kstream_stop_on_fault(s->dev, id);
	if (!ret) {
		__atomic_store_n(&s->id, id, __ATOMIC_RELEASE);
		s->last_seq = 0;
		s->fault = 0;
		/* the waits were queued on the old kernel stream */
		s->ndeps = 0;
		s->exc_due = false;
	}
	pthread_mutex_unlock(&s->lock);
	__atomic_store_n(&s->aborting, false, __ATOMIC_RELEASE);
	return ret;
}

ACL_EXPORT aclError aclrtStreamAbort(aclrtStream stream)
{
	struct acl_stream *s;
	int ret;

	ret = acl_check_init();
	if (!ret && !stream)
		ret = acl_errf(ACLI_ERTPARAM, "stream must not be NULL");
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	ret = acl_stream_abort(s);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

/*
 * The device's latest fault, process-wide. A task that touched a bad
 * page makes it a memory UCE until repaired, as CANN's device fault type
 * HBM_UCE_ERROR (GetErrorVerbose: the driver's UCE ranges as the detail,
 * tryRepair 1). A DMA fault (a task touching memory its mapping does not
 * allow) is not one of CANN's kinds (memory UCE, L2, AI Core, link): it
 * is reported as ACL_RT_ERROR_OTHERS without detail, and nothing can be
 * repaired.
 */
ACL_EXPORT aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(NULL, errorInfo);
	if (!ret)
		ret = acl_dev_check_id(deviceId, "deviceId");
	if (ret)
		return acl_ret(__func__, ret);
	memset(errorInfo, 0, sizeof(*errorInfo));
	errorInfo->errorType = ACL_RT_NO_ERROR;
	dev = acl_dev_get(deviceId);
	if (dev && __atomic_load_n(&dev->mem_error, __ATOMIC_RELAXED)) {
		ret = acl_uce_detail(dev, &errorInfo->detail.uceInfo);
		if (ret)
			return acl_ret(__func__, ret);
		errorInfo->errorType = ACL_RT_ERROR_MEMORY;
		errorInfo->tryRepair = 1;
		errorInfo->hasDetail = 1;
	} else if (dev && __atomic_load_n(&dev->faults, __ATOMIC_RELAXED)) {
		errorInfo->errorType = ACL_RT_ERROR_OTHERS;
	}
	return ACL_SUCCESS;
}

/*
 * CANN's order: the pointer (acl layer), tryRepair, the device id, the
 * device open in this process, then the type: NO_ERROR clears the record;
 * a memory UCE is repaired by the driver (MemUceErrorResume), the ranges
 * of the detail if hasDetail says there is one (CANN's acl layer copies
 * them only then; none is the driver's 107000), and a success clears the
 * record; any other type 107000.
 */
ACL_EXPORT aclError aclrtRepairError(int32_t deviceId, const aclrtErrorInfo *errorInfo)
{
	struct acl_device *dev = NULL;
	int ret;

	ret = acl_enter(NULL, errorInfo);
	if (!ret && !errorInfo->tryRepair)
		ret = acl_errf(ACLI_ERTPARAM, "errorInfo->tryRepair is 0: it must be 1 to repair");
	if (!ret)
		ret = acl_dev_check_id(deviceId, "deviceId");
	if (!ret) {
		dev = acl_dev_get(deviceId);
		if (!dev)
			ret = acl_errf(ACLI_EDEVSETUP, "device %d is not open in this process: nothing to repair",
				       deviceId);
	}
	if (ret)
		return acl_ret(__func__, ret);
	switch (errorInfo->errorType) {
	case ACL_RT_NO_ERROR:
		break;
	case ACL_RT_ERROR_MEMORY: {
		const aclrtMemUceInfoArray *uce = &errorInfo->detail.uceInfo;
		size_t n = errorInfo->hasDetail ? uce->arraySize : 0;

		/* the array holds ACL_RT_MEM_UCE_INFO_MAX_NUM (CANN reads past it) */
		if (n > ACL_RT_MEM_UCE_INFO_MAX_NUM)
			n = ACL_RT_MEM_UCE_INFO_MAX_NUM;
		ret = acl_uce_repair(dev, uce->memUceInfoArray, n, "errorInfo->detail.uceInfo.memUceInfoArray");
		break;
	}
	default:
		ret = acl_errf(ACLI_ERTPARAM, "errorType %d cannot be repaired (only ACL_RT_NO_ERROR and ACL_RT_ERROR_MEMORY)",
			       (int)errorInfo->errorType);
		break;
	}
	/* the device has no fault any more (CANN: its fault type NO_ERROR) */
	if (!ret) {
		__atomic_store_n(&dev->mem_error, false, __ATOMIC_RELAXED);
		__atomic_store_n(&dev->faults, 0, __ATOMIC_RELAXED);
	}
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtStreamStop(aclrtStream stream)
{
	struct acl_stream *s;
	int ret;

	ret = acl_check_init();
	if (!ret && !stream)
		ret = acl_errf(ACLI_ERTPARAM, "stream must not be NULL");
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (!ret) {
		acl_stream_put(s);
		/* CANN: only chips with the STARS scheduler */
		ret = acl_errf(ACLI_ERTNOTSUPP, "the simulated chip has no STARS scheduler: use aclrtStreamAbort");
	}
	return acl_ret(__func__, ret);
}

/* Stream memory operations */

/* The NPU_WAIT_* of each ACL_STREAM_WAIT_VALUE_* (0..ACL_STREAM_WAIT_VALUE_NOR). */
static const uint32_t acl_wait_conds[] = {
	[ACL_STREAM_WAIT_VALUE_GEQ] = NPU_WAIT_GEQ,
	[ACL_STREAM_WAIT_VALUE_EQ] = NPU_WAIT_EQ,
	[ACL_STREAM_WAIT_VALUE_AND] = NPU_WAIT_AND,
	[ACL_STREAM_WAIT_VALUE_NOR] = NPU_WAIT_NOR,
};

uint32_t acl_wait_cond(uint32_t flag)
{
	return acl_wait_conds[flag];
}

uint32_t acl_wait_flag(uint32_t cond)
{
	uint32_t i;

	for (i = 0; i < sizeof(acl_wait_conds) / sizeof(acl_wait_conds[0]); i++)
		if (acl_wait_conds[i] == cond)
			return i;
	return 0;
}

int acl_value_addr(struct acl_device *dev, void *devAddr, bool host_ok, int err, uint32_t *cmd_flags)
{
	struct acl_mem_info q;
	int ret;

	ret = acl_mm_query(dev, (uintptr_t)devAddr, &q);
	if (ret)
		return ret;
	if (q.kind == NPU_ADDR_DEVICE)
		return 0;
	if (q.kind == NPU_ADDR_HOST && host_ok) {
		*cmd_flags = NPU_CMD_DST_HOST;
		return 0;
	}
	return acl_errf(err, "devAddr %p is not device memory of device %d%s", devAddr, dev->id,
			host_ok ? " nor registered host memory" : "");
}

ACL_EXPORT aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
	struct npu_cmd cmd = { .op = NPU_OP_WRITE_VALUE, .value = value };
	struct acl_stream *s;
	int ret;

	ret = acl_enter(NULL, devAddr);
	if (ret)
		goto out;
	if ((uintptr_t)devAddr & 7) {
		ret = acl_errf(-EINVAL, "devAddr %p must be 8-byte aligned", devAddr);
		goto out;
	}
	if (flag) {
		ret = acl_errf(-EINVAL, "flag %#x must be 0", flag);
		goto out;
	}
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	ret = acl_value_addr(s->dev, devAddr, true, -EINVAL, &cmd.flags);
	cmd.dst = (uintptr_t)devAddr;
	if (!ret)
		ret = acl_stream_launch(s, &cmd, 1);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
	struct npu_cmd cmd = { .op = NPU_OP_WAIT_VALUE, .value = value };
	struct acl_stream *s;
	uint32_t host = 0;
	int ret;

	ret = acl_enter(NULL, devAddr);
	if (ret)
		goto out;
	if ((uintptr_t)devAddr & 7) {
		ret = acl_errf(-EINVAL, "devAddr %p must be 8-byte aligned", devAddr);
		goto out;
	}
	if (flag > ACL_STREAM_WAIT_VALUE_NOR) {
		ret = acl_errf(-EINVAL, "flag %u must be ACL_STREAM_WAIT_VALUE_GEQ/EQ/AND/NOR (0..3)", flag);
		goto out;
	}
	ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	/* the device polls a device address: no host operand for WAIT_VALUE */
	ret = acl_value_addr(s->dev, devAddr, false, -EINVAL, &host);
	cmd.flags = acl_wait_cond(flag);
	cmd.src = (uintptr_t)devAddr;
	if (!ret)
		ret = acl_stream_launch(s, &cmd, 1);
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}
