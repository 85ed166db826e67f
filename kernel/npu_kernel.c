// SPDX-License-Identifier: GPL-2.0
/*
 * npu: kernel launches (DOC: npu kernel launches in the uapi header).
 *
 * The driver does not run kernels; an executor process does, through an
 * aperture fd of the context. An NPU_OP_KERNEL command at the head of its
 * stream becomes a launch on the context's kernel queue and parks the
 * stream, as a WAIT_STREAM does; the executor takes it (KERNEL_WAIT) and
 * reports it over (KERNEL_DONE), which runs the stream's next turn (in
 * its own context when the stream is free), completing the command with
 * what DONE said.
 *
 * A launch has two owners: the command that made it (its struct
 * npu_kernel_job) and, while it is on a list of the queue, the queue.
 * The command's end (completed, dropped, timed out) cancels it: a launch
 * not yet taken leaves the queue; a taken one moves to @cancels, from
 * which WAIT tells the executor, and waits there for its DONE (or its
 * file's release) to be forgotten. A file released with launches taken
 * fails them, so a dead executor leaves no stream parked for good.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <uapi/npu.h>

#include "npu_cmd.h"
#include "npu_drv.h"
#include "npu_engine.h"
#include "npu_kernel.h"
#include "npu_netlink.h"
#include "npu_stream.h"
#include "npu_trace.h"

/*
 * Bytes of argument blobs a context may hold at once: its queued
 * launches' and its models'. Past it SUBMIT and MODEL_CREATE fail with
 * -ENOMEM (the blobs are accounted to the memory cgroup besides).
 */
static unsigned long long max_kernel_args = SZ_64M;
module_param(max_kernel_args, ullong, 0644);
MODULE_PARM_DESC(max_kernel_args,
		 "Bytes of kernel argument blobs a context holds at once (default 64 MiB)");

/* Cancelled taken launches remembered for their DONE, per context. */
#define NPU_KERNEL_MAX_CANCELLED	1024

/**
 * struct npu_kernel_args - an argument blob, read at SUBMIT
 * @ref: held by the command (or model step) and by each launch of it
 * @ctx: the context it is charged to (outlives the blob)
 * @len: bytes
 * @data: the bytes
 */
struct npu_kernel_args {
	struct kref ref;
	struct npu_context *ctx;
	u32 len;
	u8 data[];
};

/* Where a launch is. */
enum npu_launch_state {
	NPU_LAUNCH_QUEUED,	/* on @queue */
	NPU_LAUNCH_TAKEN,	/* on @taken */
	NPU_LAUNCH_CANCELLED,	/* on @cancels or @cancelled */
	NPU_LAUNCH_OVER,	/* on no list: @ret says how it ended */
};

/**
 * struct npu_launch - one run of a KERNEL command, as the executor sees it
 * @ref: the command's, and the queue's while on a list
 * @node: in a list of struct npu_kernels
 * @id: the job id the executor knows it by
 * @state: enum npu_launch_state, under the queue's lock
 * @k: the launch, as checked
 * @args: the blob, or NULL (a reference)
 * @stream: the stream it parks (a reference)
 * @seqno: the command's seqno there
 * @taker: the file whose WAIT took it (no reference: its release
 *	removes every launch that names it)
 * @ret: once over: 0, -EIO, -EHWPOISON
 * @fault_addr: the fault's device VA...
 * @fault_flags: ...and its NPU_FAULT_* bits
 */
struct npu_launch {
	struct kref ref;
	struct list_head node;
	u64 id;
	u32 state;
	struct npu_kernel k;
	struct npu_kernel_args *args;
	struct npu_stream *stream;
	u64 seqno;
	struct file *taker;
	int ret;
	u64 fault_addr;
	u32 fault_flags;
};

/* An aperture file opened for an executor (NPU_APERTURE_EXECUTOR), on @takers. */
struct npu_kernel_taker {
	struct list_head node;
	struct file *file;
};

/**
 * struct npu_kernel_job - a KERNEL command's task (a model step's too)
 * @arg: the caller's struct npu_kernel, read at SUBMIT
 * @args: its blob, or NULL (a reference)
 * @launch: the launch in flight, or NULL (a reference)
 * @deadline: with a timeout, the jiffies it fails at, once @timed
 * @timed: @deadline is set
 */
struct npu_kernel_job {
	struct npu_kernel arg;
	struct npu_kernel_args *args;
	struct npu_launch *launch;
	unsigned long deadline;
	bool timed;
};

static void npu_kernel_args_free(struct kref *ref)
{
	struct npu_kernel_args *a = container_of(ref, struct npu_kernel_args,
						 ref);

	atomic64_sub(a->len, &a->ctx->kernels.args_bytes);
	kvfree(a);
}

static void npu_kernel_args_put(struct npu_kernel_args *a)
{
	if (a)
		kref_put(&a->ref, npu_kernel_args_free);
}

static void npu_launch_free(struct kref *ref)
{
	struct npu_launch *l = container_of(ref, struct npu_launch, ref);

	npu_kernel_args_put(l->args);
	npu_stream_put(l->stream);
	kfree(l);
}

static void npu_launch_put(struct npu_launch *l)
{
	kref_put(&l->ref, npu_launch_free);
}

/* Put every launch on @list (the queue's references), outside the lock. */
static void npu_launch_put_list(struct list_head *list)
{
	struct npu_launch *l, *tmp;

	list_for_each_entry_safe(l, tmp, list, node) {
		list_del(&l->node);
		npu_launch_put(l);
	}
}

/*
 * Cancel @l: not yet taken, it leaves the queue (onto @drop, for the
 * caller to put); taken, its cancel event is queued for WAIT. Past the
 * cap the oldest cancelled launch is forgotten (onto @drop too).
 */
static void npu_launch_cancel_locked(struct npu_kernels *ks,
				     struct npu_launch *l,
				     struct list_head *drop)
{
	struct npu_launch *old;

	switch (l->state) {
	case NPU_LAUNCH_QUEUED:
		l->state = NPU_LAUNCH_OVER;
		list_move_tail(&l->node, drop);
		return;
	case NPU_LAUNCH_TAKEN:
		l->state = NPU_LAUNCH_CANCELLED;
		list_move_tail(&l->node, &ks->cancels);
		if (++ks->nr_cancelled > NPU_KERNEL_MAX_CANCELLED) {
			old = list_first_entry_or_null(&ks->cancelled,
						       struct npu_launch, node);
			if (!old)
				old = list_first_entry(&ks->cancels,
						       struct npu_launch, node);
			old->state = NPU_LAUNCH_OVER;
			list_move_tail(&old->node, drop);
			ks->nr_cancelled--;
		}
		wake_up(&ks->wq);
		return;
	default:
		return;
	}
}

/* A launch's end as the command sees it: cancelled unless it is over. */
static void npu_kernel_job_cancel(struct npu_kernel_job *kj)
{
	struct npu_launch *l = kj->launch;
	struct npu_kernels *ks;
	LIST_HEAD(drop);

	if (!l)
		return;
	ks = &l->stream->ctx->kernels;
	spin_lock(&ks->lock);
	npu_launch_cancel_locked(ks, l, &drop);
	spin_unlock(&ks->lock);
	npu_launch_put_list(&drop);
	kj->launch = NULL;
	npu_launch_put(l);
}

/* The blob of @k, read from the caller and charged to @ctx. */
static int npu_kernel_args_read(struct npu_context *ctx,
				struct npu_kernel_job *kj)
{
	const struct npu_kernel *k = &kj->arg;
	struct npu_kernel_args *a;

	if (!npu_charge64(&ctx->kernels.args_bytes, k->args_len,
			  READ_ONCE(max_kernel_args)))
		return -ENOMEM;
	a = kvmalloc(struct_size(a, data, k->args_len), GFP_KERNEL_ACCOUNT);
	if (!a) {
		atomic64_sub(k->args_len, &ctx->kernels.args_bytes);
		return -ENOMEM;
	}
	kref_init(&a->ref);
	a->ctx = ctx;
	a->len = k->args_len;
	kj->args = a;
	if (copy_from_user(a->data, u64_to_user_ptr(k->args), k->args_len))
		return -EFAULT;
	return 0;
}

/* Does [@addr, +@len) wrap? */
static bool npu_kernel_wraps(u64 addr, u64 len)
{
	u64 end;

	return check_add_overflow(addr, len, &end);
}

/* The fields of a struct npu_kernel as SUBMIT checks them. */
static int npu_kernel_valid(const struct npu_kernel *k)
{
	bool dev = k->flags & NPU_KERNEL_ARGS_DEVICE;

	if (k->flags & ~NPU_KERNEL_FLAGS_MASK || k->__reserved ||
	    k->core_type > NPU_KERNEL_CORE_MIX ||
	    k->sat_mode > NPU_KERNEL_SAT_INFNAN ||
	    !k->block_dim || k->block_dim > NPU_KERNEL_MAX_BLOCKS ||
	    k->args_len > NPU_KERNEL_MAX_ARGS)
		return -EINVAL;
	/* a user blob only to copy, a device VA wherever one goes */
	if ((dev || !k->args_len) && k->args)
		return -EINVAL;
	if (!dev && k->args_len && !k->args)
		return -EINVAL;
	if (k->args_len && (!k->args_va || !IS_ALIGNED(k->args_va, 8)))
		return -EINVAL;
	if (!k->dump_va != !k->dump_size)
		return -EINVAL;
	if (npu_kernel_wraps(k->args_va, k->args_len) ||
	    npu_kernel_wraps(k->dump_va, (u64)k->dump_size * k->block_dim) ||
	    npu_kernel_wraps(k->overflow_va, sizeof(u64)))
		return -EINVAL;
	return 0;
}

/**
 * npu_kernel_check() - NPU_OP_KERNEL at SUBMIT (and MODEL_CREATE)
 * @ctx: the context
 * @stream: the stream, or NULL for a model's step
 * @job: the command: its task is read into @job->kernel
 *
 * Return: 0, -EINVAL, -E2BIG, -EFAULT, -ENOMEM.
 */
int npu_kernel_check(struct npu_context *ctx, struct npu_stream *stream,
		     struct npu_job *job)
{
	const struct npu_cmd *cmd = &job->cmd;
	struct npu_kernel_job *kj;
	int ret;

	if (cmd->flags || cmd->dst || cmd->length ||
	    cmd->value < NPU_KERNEL_SIZE_V1)
		return -EINVAL;
	if (cmd->value > SZ_4K)
		return -E2BIG;
	kj = kzalloc(sizeof(*kj), GFP_KERNEL_ACCOUNT);
	if (!kj)
		return -ENOMEM;
	/* Owned by the job from here: npu_job_release() frees it. */
	job->kernel = kj;
	ret = copy_struct_from_user(&kj->arg, sizeof(kj->arg),
				    u64_to_user_ptr(cmd->src), cmd->value);
	if (!ret)
		ret = npu_kernel_valid(&kj->arg);
	if (!ret && kj->arg.args_len &&
	    !(kj->arg.flags & NPU_KERNEL_ARGS_DEVICE))
		ret = npu_kernel_args_read(ctx, kj);
	return ret;
}

/* A KERNEL's task, for a model's run to copy a model's into. */
struct npu_kernel_job *npu_kernel_job_alloc(void)
{
	return kzalloc(sizeof(struct npu_kernel_job), GFP_KERNEL_ACCOUNT);
}

/* @src as MODEL_CREATE checked it: where a run of it starts. */
void npu_kernel_job_copy(struct npu_kernel_job *dst,
			 const struct npu_kernel_job *src)
{
	*dst = (struct npu_kernel_job){ .arg = src->arg, .args = src->args };
	if (dst->args)
		kref_get(&dst->args->ref);
}

/**
 * npu_kernel_job_end() - the command is over (or its model step)
 * @kj: its task, or NULL
 *
 * Cancels a launch still in flight and lets go of the blob; @kj stays
 * (a model's run copies the next step into it).
 */
void npu_kernel_job_end(struct npu_kernel_job *kj)
{
	if (!kj)
		return;
	npu_kernel_job_cancel(kj);
	npu_kernel_args_put(kj->args);
	kj->args = NULL;
}

/* The same, and @kj freed. */
void npu_kernel_job_free(struct npu_kernel_job *kj)
{
	npu_kernel_job_end(kj);
	kfree(kj);
}

/*
 * The AI core fault DONE reported, as a DMA fault is reported: the log,
 * the counters, the netlink event, and the stream's record for
 * STREAM_SYNC.
 */
static void npu_kernel_report(struct npu_stream *stream,
			      const struct npu_launch *l)
{
	struct npu_context *ctx = stream->ctx;
	bool write = l->fault_flags & NPU_FAULT_WRITE;
	const char *why = l->fault_flags & NPU_FAULT_TRAP ? "trap" :
			  l->fault_flags & NPU_FAULT_UCE ?
			  "uncorrectable memory error" :
			  l->taker ? "access fault" : "executor gone";

	dev_err_ratelimited(ctx->npu->misc.this_device,
			    "npu: AI core fault: pid %d (%s) stream %u job %llu %s va %#llx: %s\n",
			    ctx->tgid, ctx->comm, stream->id, l->id,
			    write ? "write" : "read", l->fault_addr, why);
	atomic64_inc(&ctx->faults);
	atomic64_inc(&ctx->npu->faults);
	npu_netlink_fault(ctx, stream->id, l->fault_addr, write, false, why);
	npu_stream_note_fault(stream, l->fault_addr, l->fault_flags);
}

/* @l fails as one whose executor died: -EIO, NPU_FAULT_AICORE at 0. */
static void npu_launch_orphan(struct npu_launch *l)
{
	l->state = NPU_LAUNCH_OVER;
	l->ret = -EIO;
	l->fault_flags = NPU_FAULT_AICORE;
	l->taker = NULL;
}

/* The first turn: a launch on the queue, the executors woken. */
static int npu_kernel_launch(struct npu_stream *stream, struct npu_job *job)
{
	struct npu_kernels *ks = &stream->ctx->kernels;
	struct npu_kernel_job *kj = job->kernel;
	struct npu_launch *l;

	l = kzalloc(sizeof(*l), GFP_KERNEL_ACCOUNT);
	if (!l)
		return -ENOMEM;
	kref_init(&l->ref);
	l->k = kj->arg;
	l->k.args = 0;
	l->args = kj->args;
	if (l->args)
		kref_get(&l->args->ref);
	kref_get(&stream->ref);
	l->stream = stream;
	l->seqno = job->seqno;
	if (kj->arg.timeout_ms && !kj->timed) {
		kj->deadline = jiffies + msecs_to_jiffies(kj->arg.timeout_ms);
		kj->timed = true;
	}
	spin_lock(&ks->lock);
	if (ks->closed) {
		spin_unlock(&ks->lock);
		npu_launch_put(l);
		return -ECANCELED;
	}
	l->id = ++ks->next_id;
	if (ks->orphaned) {
		/* nobody runs kernels any more: it fails as the executor's would */
		npu_launch_orphan(l);
		spin_unlock(&ks->lock);
		kj->launch = l;
		return npu_kernel_run(stream, job, NULL);
	}
	l->state = NPU_LAUNCH_QUEUED;
	kref_get(&l->ref);
	list_add_tail(&l->node, &ks->queue);
	spin_unlock(&ks->lock);
	kj->launch = l;
	atomic64_inc(&ks->launches);
	trace_npu_kernel_launch(stream, l->id, l->seqno, l->k.func,
				l->k.block_dim);
	/* one launch, one executor thread (and every poll()er) */
	wake_up(&ks->wq);
	if (kj->timed) {
		unsigned long now = jiffies;

		npu_stream_poll_after(stream, time_after(kj->deadline, now) ?
				      kj->deadline - now : 0);
	}
	return NPU_RUN_PARKED;
}

/**
 * npu_kernel_run() - a turn of an NPU_OP_KERNEL
 * @stream: the stream
 * @job: the command
 * @budget: unused: a launch moves nothing itself
 *
 * Return: NPU_RUN_PARKED until the launch is over; then 0, -EIO or
 * -EHWPOISON (the fault recorded), -ETIME past its timeout, -ENOMEM.
 */
int npu_kernel_run(struct npu_stream *stream, struct npu_job *job,
		   u64 *budget)
{
	struct npu_kernels *ks = &stream->ctx->kernels;
	struct npu_kernel_job *kj = job->kernel;
	struct npu_launch *l = kj->launch;
	int ret;

	if (!l)
		return npu_kernel_launch(stream, job);
	spin_lock(&ks->lock);
	if (l->state == NPU_LAUNCH_OVER) {
		ret = l->ret;
	} else if (kj->timed && time_after_eq(jiffies, kj->deadline)) {
		ret = -ETIME;
	} else {
		spin_unlock(&ks->lock);
		return NPU_RUN_PARKED;
	}
	spin_unlock(&ks->lock);
	if (ret == -ETIME) {
		npu_kernel_job_cancel(kj);
		return ret;
	}
	if (ret)
		npu_kernel_report(stream, l);
	kj->launch = NULL;
	npu_launch_put(l);
	return ret;
}

/* Is there something for WAIT? */
static bool npu_kernel_ready(struct npu_kernels *ks)
{
	bool ready;

	spin_lock(&ks->lock);
	ready = !list_empty(&ks->cancels) || !list_empty(&ks->queue) ||
		ks->closed;
	spin_unlock(&ks->lock);
	return ready;
}

/* The launch's fields into WAIT's outputs. */
static void npu_kernel_wait_fill(struct npu_kernel_wait *w,
				 const struct npu_launch *l)
{
	const struct npu_kernel *k = &l->k;

	w->event = NPU_KERNEL_EVENT_RUN;
	w->job = l->id;
	w->func = k->func;
	w->block_dim = k->block_dim;
	w->core_type = k->core_type;
	w->kernel_flags = k->flags;
	w->args_len = k->args_len;
	w->args_va = k->args_va;
	w->dump_va = k->dump_va;
	w->dump_size = k->dump_size;
	w->sat_mode = k->sat_mode;
	w->overflow_va = k->overflow_va;
	w->timeout_ms = k->timeout_ms;
	w->stream = l->stream->id;
	w->seqno = l->seqno;
}

/*
 * WAIT failed to hand @l out: back at the head of the queue, if still
 * taken; if cancelled meanwhile, forgotten (onto @drop, for the caller).
 */
static void npu_kernel_untake_locked(struct npu_kernels *ks,
				     struct npu_launch *l,
				     struct list_head *drop)
{
	if (l->state == NPU_LAUNCH_TAKEN) {
		l->state = NPU_LAUNCH_QUEUED;
		l->taker = NULL;
		list_move(&l->node, &ks->queue);
		wake_up(&ks->wq);
	} else if (l->state == NPU_LAUNCH_CANCELLED) {
		/* the executor never knew it: no event, no DONE */
		l->state = NPU_LAUNCH_OVER;
		ks->nr_cancelled--;
		list_move_tail(&l->node, drop);
	}
}

/*
 * One event if there is one: 1 with @w filled, 0 if none, or -errno.
 * A taken launch's blob is copied out with the lock dropped: the launch
 * is already the caller's file's, so a cancel meanwhile queues its event.
 */
static int npu_kernel_take(struct npu_kernels *ks, struct file *file,
			   struct npu_kernel_wait *w)
{
	struct npu_launch *l;
	bool copy;

	spin_lock(&ks->lock);
	l = list_first_entry_or_null(&ks->cancels, struct npu_launch, node);
	if (l) {
		list_move_tail(&l->node, &ks->cancelled);
		*w = (struct npu_kernel_wait){ .size = w->size,
					       .args_buf = w->args_buf,
					       .args_buf_len = w->args_buf_len,
					       .event = NPU_KERNEL_EVENT_CANCEL,
					       .job = l->id };
		spin_unlock(&ks->lock);
		return 1;
	}
	l = list_first_entry_or_null(&ks->queue, struct npu_launch, node);
	if (!l) {
		bool closed = ks->closed;

		spin_unlock(&ks->lock);
		return closed ? -EPIPE : 0;
	}
	copy = l->args && !(l->k.flags & NPU_KERNEL_ARGS_DEVICE);
	if (copy && l->k.args_len > w->args_buf_len) {
		spin_unlock(&ks->lock);
		return -ENOSPC;
	}
	l->state = NPU_LAUNCH_TAKEN;
	l->taker = file;
	list_move_tail(&l->node, &ks->taken);
	kref_get(&l->ref);
	spin_unlock(&ks->lock);
	if (copy && copy_to_user(u64_to_user_ptr(w->args_buf), l->args->data,
				 l->k.args_len)) {
		LIST_HEAD(drop);

		spin_lock(&ks->lock);
		npu_kernel_untake_locked(ks, l, &drop);
		spin_unlock(&ks->lock);
		npu_launch_put_list(&drop);
		npu_launch_put(l);
		return -EFAULT;
	}
	npu_kernel_wait_fill(w, l);
	npu_launch_put(l);
	return 1;
}

static struct npu_kernel_taker *
npu_kernel_taker_find_locked(struct npu_kernels *ks, struct file *file)
{
	struct npu_kernel_taker *t;

	lockdep_assert_held(&ks->lock);
	list_for_each_entry(t, &ks->takers, node)
		if (t->file == file)
			return t;
	return NULL;
}

/**
 * npu_kernel_executor_add() - an aperture file opened for the executor
 * @ctx: the context
 * @file: the new file (APERTURE_OPEN's NPU_APERTURE_EXECUTOR), not yet
 *	installed
 *
 * It is an executor from now on, before its first KERNEL_WAIT: launches
 * queue for it, even right after the last executor went, and when the
 * last such file is released the launches left fail.
 *
 * Return: 0 or -ENOMEM.
 */
int npu_kernel_executor_add(struct npu_context *ctx, struct file *file)
{
	struct npu_kernels *ks = &ctx->kernels;
	struct npu_kernel_taker *t;

	t = kmalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return -ENOMEM;
	t->file = file;
	spin_lock(&ks->lock);
	list_add_tail(&t->node, &ks->takers);
	ks->orphaned = false;
	spin_unlock(&ks->lock);
	return 0;
}

/*
 * Each look is inside the unplug barrier, the sleep between two outside
 * it: a carrier removal or a reset waits for the ioctls inside, and wakes
 * the sleepers (npu_kernels_wake()), whose next look says -ENODEV or
 * -ESTALE.
 */
static int npu_kernel_wait_ioctl(struct npu_context *ctx, struct file *file,
				 struct npu_kernel_wait *w)
{
	struct npu_kernels *ks = &ctx->kernels;
	int ret, idx;

	if (w->flags)
		return -EINVAL;
	for (;;) {
		if (!npu_device_enter(ctx->npu, &idx))
			return -ENODEV;
		ret = READ_ONCE(ctx->lost) ? -ESTALE :
		      npu_kernel_take(ks, file, w);
		npu_device_exit(ctx->npu, idx);
		if (ret)
			return ret < 0 ? ret : 0;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		/*
		 * Exclusive: a launch wakes one of the executor's threads,
		 * not all of them (a woken waiter that fails passes its
		 * wake-up on); shutdown and loss wake every one.
		 */
		ret = wait_event_interruptible_exclusive(ks->wq,
							 npu_kernel_ready(ks) ||
							 npu_context_lost(ctx));
		if (ret)
			return ret;
	}
}

/* A taken launch by id (on @taken, @cancels or @cancelled), or NULL. */
static struct npu_launch *npu_kernel_find_locked(struct npu_kernels *ks,
						 u64 id)
{
	struct list_head *lists[] = { &ks->taken, &ks->cancels,
				      &ks->cancelled };
	struct npu_launch *l;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lists); i++)
		list_for_each_entry(l, lists[i], node)
			if (l->id == id)
				return l;
	return NULL;
}

/* WAIT's answer could not be written: job @id back to the queue. */
static void npu_kernel_untake_id(struct npu_kernels *ks, u64 id)
{
	struct npu_launch *l;
	LIST_HEAD(drop);

	spin_lock(&ks->lock);
	l = npu_kernel_find_locked(ks, id);
	if (l)
		npu_kernel_untake_locked(ks, l, &drop);
	spin_unlock(&ks->lock);
	npu_launch_put_list(&drop);
}

static int npu_kernel_done_ioctl(struct npu_context *ctx,
				 struct npu_kernel_done *d)
{
	struct npu_kernels *ks = &ctx->kernels;
	struct npu_launch *l;
	bool fault = d->status == NPU_KERNEL_STATUS_FAULT;

	if (d->status > NPU_KERNEL_STATUS_FAULT || d->__reserved ||
	    d->fault_flags & ~NPU_KERNEL_DONE_FAULT_MASK ||
	    (!fault && (d->fault_addr || d->fault_flags)))
		return -EINVAL;
	spin_lock(&ks->lock);
	l = npu_kernel_find_locked(ks, d->job);
	if (!l) {
		spin_unlock(&ks->lock);
		return -ENOENT;
	}
	list_del(&l->node);
	if (l->state == NPU_LAUNCH_CANCELLED) {
		l->state = NPU_LAUNCH_OVER;
		ks->nr_cancelled--;
		spin_unlock(&ks->lock);
		npu_launch_put(l);
		return -ECANCELED;
	}
	l->state = NPU_LAUNCH_OVER;
	l->ret = !fault ? 0 : d->fault_flags & NPU_FAULT_UCE ? -EHWPOISON :
		 -EIO;
	l->fault_addr = d->fault_addr;
	l->fault_flags = fault ? d->fault_flags | NPU_FAULT_AICORE : 0;
	spin_unlock(&ks->lock);
	trace_npu_kernel_done(l->stream, l->id, l->seqno, l->ret, l->fault_addr,
			      l->fault_flags, d->busy_ns);
	atomic64_add(d->busy_ns, &ks->busy_ns);
	/*
	 * The stream goes on here, as the device's own scheduler would
	 * start its next task: no hop to a channel and back per launch.
	 */
	npu_stream_run_here(l->stream);
	npu_launch_put(l);
	return 0;
}

/*
 * The aperture file's ioctls: size-prefixed structs, read and written
 * back as the device file's are. Any process holding the fd may call.
 */
long npu_kernel_ioctl(struct npu_context *ctx, struct file *file,
		      unsigned int cmd, void __user *uarg)
{
	union {
		struct npu_kernel_wait wait;
		struct npu_kernel_done done;
	} buf;
	unsigned int nr = _IOC_NR(cmd), size;
	u32 usize;
	int ret, idx;

	if (_IOC_TYPE(cmd) != NPU_TYPE || _IOC_DIR(cmd) != _IOC_NONE ||
	    _IOC_SIZE(cmd))
		return -ENOTTY;
	if (nr == NPU_CMD_APERTURE_KERNEL_WAIT)
		size = sizeof(buf.wait);
	else if (nr == NPU_CMD_APERTURE_KERNEL_DONE)
		size = sizeof(buf.done);
	else
		return -ENOTTY;
	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < size)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(&buf, size, uarg, usize);
	if (ret)
		return ret;
	if (nr == NPU_CMD_APERTURE_KERNEL_DONE) {
		if (!npu_device_enter(ctx->npu, &idx))
			return -ENODEV;
		ret = READ_ONCE(ctx->lost) ? -ESTALE :
		      npu_kernel_done_ioctl(ctx, &buf.done);
		npu_device_exit(ctx->npu, idx);
		return ret;
	}
	ret = npu_kernel_wait_ioctl(ctx, file, &buf.wait);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &buf, size)) {
		/* a job whose id the caller never learnt goes back to the queue */
		if (buf.wait.event == NPU_KERNEL_EVENT_RUN)
			npu_kernel_untake_id(&ctx->kernels, buf.wait.job);
		return -EFAULT;
	}
	return 0;
}

/* poll() of an aperture file: EPOLLIN when WAIT has something. */
__poll_t npu_kernel_poll(struct npu_context *ctx, struct file *file,
			 poll_table *wait)
{
	struct npu_kernels *ks = &ctx->kernels;
	__poll_t mask = 0;

	poll_wait(file, &ks->wq, wait);
	spin_lock(&ks->lock);
	if (!list_empty(&ks->cancels) || !list_empty(&ks->queue))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (ks->closed)
		mask |= EPOLLHUP;
	spin_unlock(&ks->lock);
	return mask;
}

/*
 * An aperture file is released: the launches it took and did not report
 * fail (-EIO, NPU_FAULT_AICORE at 0), as if the executor's cores had
 * faulted, and its cancelled ones are forgotten. If it was the last file
 * opened for an executor, the queued launches fail too, and later ones
 * at once, until another is opened: a dead executor leaves no stream
 * waiting.
 */
void npu_kernel_release_file(struct npu_context *ctx, struct file *file)
{
	struct npu_kernels *ks = &ctx->kernels;
	struct npu_kernel_taker *t;
	struct npu_launch *l, *tmp;
	LIST_HEAD(failed);
	LIST_HEAD(drop);

	spin_lock(&ks->lock);
	t = npu_kernel_taker_find_locked(ks, file);
	if (t)
		list_del(&t->node);
	list_for_each_entry_safe(l, tmp, &ks->taken, node) {
		if (l->taker != file)
			continue;
		npu_launch_orphan(l);
		list_move_tail(&l->node, &failed);
	}
	/* the last executor is gone: what it would have taken fails too */
	if (t && list_empty(&ks->takers)) {
		ks->orphaned = true;
		list_for_each_entry_safe(l, tmp, &ks->queue, node) {
			npu_launch_orphan(l);
			list_move_tail(&l->node, &failed);
		}
	}
	list_for_each_entry_safe(l, tmp, &ks->cancels, node) {
		if (l->taker == file) {
			l->state = NPU_LAUNCH_OVER;
			ks->nr_cancelled--;
			list_move_tail(&l->node, &drop);
		}
	}
	list_for_each_entry_safe(l, tmp, &ks->cancelled, node) {
		if (l->taker == file) {
			l->state = NPU_LAUNCH_OVER;
			ks->nr_cancelled--;
			list_move_tail(&l->node, &drop);
		}
	}
	spin_unlock(&ks->lock);
	list_for_each_entry(l, &failed, node) {
		trace_npu_kernel_done(l->stream, l->id, l->seqno, l->ret, 0,
				      l->fault_flags, 0);
		npu_engine_kick(&l->stream->sched);
	}
	npu_launch_put_list(&failed);
	npu_launch_put_list(&drop);
	kfree(t);
}

void npu_kernels_init(struct npu_context *ctx)
{
	struct npu_kernels *ks = &ctx->kernels;

	spin_lock_init(&ks->lock);
	INIT_LIST_HEAD(&ks->queue);
	INIT_LIST_HEAD(&ks->taken);
	INIT_LIST_HEAD(&ks->cancels);
	INIT_LIST_HEAD(&ks->cancelled);
	INIT_LIST_HEAD(&ks->takers);
	init_waitqueue_head(&ks->wq);
}

/* The device was reset or its carrier removed: the waiters look again. */
void npu_kernels_wake(struct npu_context *ctx)
{
	wake_up_all(&ctx->kernels.wq);
}

/* The context shut down, its streams stopped: WAIT answers -EPIPE. */
void npu_kernels_shutdown(struct npu_context *ctx)
{
	struct npu_kernels *ks = &ctx->kernels;

	spin_lock(&ks->lock);
	ks->closed = true;
	spin_unlock(&ks->lock);
	wake_up_all(&ks->wq);
}

/* The context is freed: no file is left, nor any launch but forgotten ones. */
void npu_kernels_free(struct npu_context *ctx)
{
	struct npu_kernels *ks = &ctx->kernels;
	LIST_HEAD(drop);

	list_splice_init(&ks->queue, &drop);
	list_splice_init(&ks->taken, &drop);
	list_splice_init(&ks->cancels, &drop);
	list_splice_init(&ks->cancelled, &drop);
	npu_launch_put_list(&drop);
}
