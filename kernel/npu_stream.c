// SPDX-License-Identifier: GPL-2.0
/*
 * npu: streams.
 *
 * A stream is an in-order queue of commands. The engine (npu_engine.c)
 * gives it turns on its channels; a turn runs the head command, then the
 * next, until the queue is empty or the turn's budget (NPU_STREAM_TURN
 * bytes, each command counting NPU_STREAM_CMD_COST at least) is used, and
 * a long command goes on where it left off next turn. A command that has
 * to wait holds no channel: a WAIT_VALUE not yet true looks again a jiffy
 * later (@poll), a WAIT_STREAM parks the stream on the awaited stream's
 * wait queue until it gets there, and a command that needs a mirror's
 * page, or an imported dma-buf mapped again after its exporter moved it,
 * waits while that is done off the channels (@fault).
 *
 * Stopping a stream (destroy, close, exit, unplug) takes it off the
 * engine, waits for a turn in progress to reach its next chunk, and drops
 * what is left in the stopper's own context: nothing in it waits for
 * another user's work.
 */
#include <linux/kref.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include <uapi/npu.h>

#include "npu_cmd.h"
#include "npu_devmem.h"
#include "npu_dma.h"
#include "npu_dmabuf_import.h"
#include "npu_drv.h"
#include "npu_engine.h"
#include "npu_mirror.h"
#include "npu_model.h"
#include "npu_obj.h"
#include "npu_stream.h"
#include "npu_trace.h"

/* Bytes a turn moves at most, and what a command counts at least. */
#define NPU_STREAM_TURN		SZ_4M

/* How often a WAIT_VALUE at the head of a stream looks again, in jiffies. */
#define NPU_WAIT_POLL		1

static bool npu_stream_turn(struct npu_engine_entity *e);
static int npu_stream_wait_here(struct npu_stream *stream, u64 seqno);

static void npu_stream_free(struct kref *ref)
{
	struct npu_stream *stream = container_of(ref, struct npu_stream, ref);

	kfree(stream->spare);
	kfree(stream);
}

/* A zeroed command for SUBMIT on @stream: its spare if it has one. */
struct npu_job *npu_stream_job_alloc(struct npu_stream *stream)
{
	struct npu_job *job = xchg(&stream->spare, NULL);

	if (!job)
		return kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	memset(job, 0, sizeof(*job));
	return job;
}

void npu_stream_put(struct npu_stream *stream)
{
	kref_put(&stream->ref, npu_stream_free);
}

static void npu_stream_get_obj(void *obj)
{
	kref_get(&((struct npu_stream *)obj)->ref);
}

/* Stream @id of @ctx with a reference, or NULL (none, or being destroyed). */
struct npu_stream *npu_stream_get(struct npu_context *ctx, u32 id)
{
	return npu_obj_get(&ctx->objs, id, BIT(NPU_OBJ_STREAM),
			   npu_stream_get_obj, NULL);
}

/* Has @stream finished the command numbered @seqno? */
bool npu_stream_done(struct npu_stream *stream, u64 seqno)
{
	return atomic64_read_acquire(&stream->completed) >= seqno;
}

/* A WAIT_STREAM's condition: a stream that went away counts as there. */
static bool npu_stream_wait_done(struct npu_stream *other, u64 seqno)
{
	return npu_stream_done(other, seqno) || READ_ONCE(other->aborted);
}

/*
 * The wake-up of a stream parked on @other's wq (npu_stream_wait_for()):
 * @other completed a command or was stopped. Called under @other->wq's
 * lock; the stream gets a turn at once (unless it is stopped).
 */
static int npu_stream_wake(struct wait_queue_entry *waiter, unsigned int mode,
			   int sync, void *key)
{
	struct npu_stream *stream = container_of(waiter, struct npu_stream,
						 waiter);

	if (!npu_stream_wait_done(stream->wait_on, stream->wait_seq))
		return 0;
	list_del_init(&waiter->entry);
	npu_engine_kick(&stream->sched);
	return 1;
}

/* Leave the wq the stream was parked on, if it was (woken or not). */
static void npu_stream_unwait(struct npu_stream *stream)
{
	if (!stream->wait_on)
		return;
	remove_wait_queue(&stream->wait_on->wq, &stream->waiter);
	stream->wait_on = NULL;
}

/**
 * npu_stream_wait_for() - a WAIT_STREAM for @other's command @seqno
 * @stream: the waiting stream, in its turn
 * @other: the awaited stream
 * @seqno: the command
 * @deadline: the jiffies the wait fails at, or NULL
 *
 * Parks @stream on @other's wq: @other's next wake-up after it gets there
 * kicks @stream (and so does the deadline). The check after parking
 * closes the race with a completion in between: @other sets @completed
 * (or @aborted), then a full barrier, then looks for sleepers on its wq;
 * parking joins the wq, then a full barrier, then looks at the value: so
 * either that wake-up finds @stream parked or the second check sees it.
 *
 * Return: 0 once @other got there, -ETIME past @deadline, else
 * NPU_RUN_PARKED.
 */
int npu_stream_wait_for(struct npu_stream *stream, struct npu_stream *other,
			u64 seqno, const unsigned long *deadline)
{
	unsigned long now = jiffies;

	if (npu_stream_wait_done(other, seqno))
		return 0;
	if (deadline && time_after_eq(now, *deadline))
		return -ETIME;
	stream->wait_on = other;
	stream->wait_seq = seqno;
	add_wait_queue(&other->wq, &stream->waiter);
	/* Pairs with the barrier of npu_stream_complete()'s wq_has_sleeper(). */
	smp_mb();
	if (npu_stream_wait_done(other, seqno)) {
		npu_stream_unwait(stream);
		return 0;
	}
	if (deadline)
		npu_stream_poll_after(stream, *deadline - now);
	return NPU_RUN_PARKED;
}

/* Give @stream a turn after @delay jiffies, e.g. to look at a value again. */
void npu_stream_poll_after(struct npu_stream *stream, unsigned long delay)
{
	mod_delayed_work(system_wq, &stream->poll, delay);
}

static void npu_stream_poll_work(struct work_struct *work)
{
	struct npu_stream *stream = container_of(to_delayed_work(work),
						 struct npu_stream, poll);

	npu_engine_kick(&stream->sched);
}

/**
 * npu_stream_want_fault() - the head command needs a mirror's page first,
 *	or an imported dma-buf mapped again
 * @stream: the stream, in its turn
 * @mirror: the mirror (the reference moves to the stream's fault), or NULL
 * @import: or the imported dma-buf's handle (the same), or NULL
 * @va: the byte accessed
 * @len: bytes the access goes on for
 * @write: the access writes
 *
 * The turn ends with NPU_RUN_FAULT_IN; npu_stream_turn() then starts the
 * fault, and the command goes on once the page is in.
 */
void npu_stream_want_fault(struct npu_stream *stream, struct npu_mirror *mirror,
			   struct npu_handle *import, u64 va, u64 len,
			   bool write)
{
	struct npu_stream_fault *f = &stream->fault;

	f->mirror = mirror;
	f->import = import;
	f->va = va;
	f->len = len;
	f->write = write;
	f->done = false;
}

/**
 * npu_stream_note_fault() - the head command met a DMA fault
 * @stream: the stream, in its turn
 * @addr: the address it could not access
 * @flags: how, NPU_FAULT_* bits
 *
 * Kept for npu_stream_complete(), which records it with the command's
 * -EIO or -EHWPOISON for STREAM_SYNC.
 */
void npu_stream_note_fault(struct npu_stream *stream, u64 addr, u32 flags)
{
	stream->dma_addr = addr;
	stream->dma_flags = flags;
}

/*
 * Off the channels: fault the page in (hmm_range_fault() may wait for the
 * process's own file system), or map a moved dma-buf again (which waits
 * for its exporter), then give the stream its turn back. Holds
 * the stream and its context (which keeps the mm) until it is done; the
 * device's unplug waits for it, as for an ioctl.
 */
static void npu_stream_fault_work(struct work_struct *work)
{
	struct npu_stream *stream = container_of(work, struct npu_stream,
						 fault.work);
	struct npu_stream_fault *f = &stream->fault;
	struct npu_context *ctx = stream->ctx;
	int idx;
	u64 end;

	if (npu_device_enter(ctx->npu, &idx)) {
		if (f->mirror)
			f->ret = npu_mirror_fault(f->mirror, f->va, f->len,
						  f->write, &end, &f->why);
		else
			f->ret = npu_import_fault(f->import, &f->why);
		npu_device_exit(ctx->npu, idx);
	} else {
		f->ret = -ESRCH;
	}
	if (f->mirror)
		npu_mirror_put(f->mirror);
	else
		npu_handle_put(f->import);
	f->mirror = NULL;
	f->import = NULL;
	f->done = true;
	/* Hands the fields back to the turns, which may start another fault. */
	smp_store_release(&f->pending, false);
	/*
	 * The stream's next turn runs here if it is free, as a synchronous
	 * SUBMIT's does: no hop back to a channel for every fault. The
	 * engine's lock orders the result before the turn that reads it.
	 */
	npu_stream_run_here(stream);
	npu_stream_put(stream);
	npu_context_put(ctx);
}

static void npu_stream_fault_start(struct npu_stream *stream)
{
	stream->fault.pending = true;
	kref_get(&stream->ref);
	npu_context_get(stream->ctx);
	npu_engine_queue_slow(&stream->fault.work);
}

/* Run the head command for a turn: 0 or -errno when it is over, else NPU_RUN_*. */
static int npu_stream_run_head(struct npu_stream *stream, struct npu_job *job,
			       u64 *budget)
{
	struct npu_stream_fault *f = &stream->fault;

	/* Only a turn sets @halted. */
	if (READ_ONCE(stream->aborted) || stream->halted)
		return -ECANCELED;
	/* The fault work kicks the stream when it is done. */
	if (smp_load_acquire(&f->pending))
		return NPU_RUN_PARKED;
	if (f->done) {
		f->done = false;
		/* The process is exiting: its context goes down, no fault. */
		if (f->ret == -ESRCH)
			return -ECANCELED;
		if (f->ret)
			return npu_dma_fault(stream, f->va, false, f->write,
					     f->why);
	}
	if (trace_npu_cmd_complete_enabled() && !job->start)
		job->start = ktime_get_ns();
	return npu_cmd_run(stream, job, budget);
}

/*
 * @job, the head, is over with @ret: release it, record it, let go of its
 * registrations, then tell the waiters - so that when STREAM_SYNC returns,
 * what the command held (pins, registrations, its room in the queue) is
 * let go, and when an UNREGISTER that waited for it returns, the command
 * is recorded complete. Returns the next head, found under the same lock.
 */
static struct npu_job *npu_stream_complete(struct npu_stream *stream,
					   struct npu_job *job, int ret)
{
	u64 seqno = job->seqno;
	struct npu_job *next;
	u64 addr = 0;
	u32 flags = 0;

	/*
	 * The DMA fault its turn met, if it failed of one (an uncorrectable
	 * memory error is one too); taken either way, so that none is left
	 * for the next command.
	 */
	if (ret) {
		if (ret == -EIO || ret == -EHWPOISON) {
			addr = stream->dma_addr;
			flags = stream->dma_flags;
		}
		stream->dma_addr = 0;
		stream->dma_flags = 0;
	}
	spin_lock(&stream->lock);
	list_del(&job->link);
	next = list_first_entry_or_null(&stream->queue, struct npu_job, link);
	/* A dropped command did not run: that is its error too. */
	if (ret && !stream->error) {
		WRITE_ONCE(stream->error, ret);
		stream->error_seq = job->seqno;
		stream->error_tid = job->tid;
		stream->error_step = npu_model_run_step(job->model);
		stream->error_addr = addr;
		stream->error_flags = flags;
	}
	if (ret && ret != -ECANCELED &&
	    (stream->mode & NPU_STREAM_STOP_ON_FAULT)) {
		WRITE_ONCE(stream->halted, true);
		stream->halt_seq = job->seqno;
	}
	spin_unlock(&stream->lock);
	trace_npu_cmd_complete(stream, job, seqno, ret, job->start);
	npu_job_release(job);
	atomic64_set_release(&stream->completed, seqno);
	npu_job_release_host(job);
	/* Kept for the next command (charged to this context's memcg still). */
	if (cmpxchg(&stream->spare, NULL, job))
		kfree(job);
	/*
	 * Wakes STREAM_SYNC and the streams parked on a WAIT_STREAM; its
	 * barrier pairs with theirs between joining @wq and looking again.
	 */
	if (wq_has_sleeper(&stream->wq))
		wake_up_all(&stream->wq);
	return next;
}

static struct npu_job *npu_stream_head(struct npu_stream *stream)
{
	struct npu_job *job;

	spin_lock(&stream->lock);
	job = list_first_entry_or_null(&stream->queue, struct npu_job, link);
	spin_unlock(&stream->lock);
	return job;
}

/*
 * One turn: commands from the head on, within a budget. Returns whether
 * the stream has more to do at once (the engine puts it back in line).
 * Only a turn takes commands off a running stream's queue.
 */
static bool npu_stream_run_turn(struct npu_stream *stream)
{
	u64 budget = NPU_STREAM_TURN;
	struct npu_job *job;
	int ret;

	/* Woken, or run for another reason: parked no longer. */
	npu_stream_unwait(stream);
	job = npu_stream_head(stream);
	while (job) {
		if (!budget)
			return true;
		ret = npu_stream_run_head(stream, job, &budget);
		switch (ret) {
		case NPU_RUN_YIELD:
			return true;
		case NPU_RUN_PARKED:
			return false;
		case NPU_RUN_POLL:
			npu_stream_poll_after(stream, NPU_WAIT_POLL);
			return false;
		case NPU_RUN_FAULT_IN:
			npu_stream_fault_start(stream);
			return false;
		}
		job = npu_stream_complete(stream, job, ret);
		budget -= min_t(u64, budget, NPU_STREAM_CMD_COST);
		cond_resched();
	}
	return false;
}

/* A turn, on a channel or in the submitter's context. */
static bool npu_stream_turn(struct npu_engine_entity *e)
{
	return npu_stream_run_turn(container_of(e, struct npu_stream, sched));
}

/**
 * npu_stream_queue() - append SUBMIT's checked and charged commands
 * @stream: the stream
 * @jobs: the commands; emptied on success
 * @seqno: out, the seqno of the last one
 * @wait: the caller waits for them (NPU_SUBMIT_WAIT): on an idle stream
 *	they run in its context
 *
 * Return: 0, or -ENOENT if the stream is stopped (@jobs stay the caller's);
 * with @wait, what STREAM_SYNC would return for *@seqno.
 */
int npu_stream_queue(struct npu_stream *stream, struct list_head *jobs,
		     u64 *seqno, bool wait)
{
	struct npu_job *job;

	spin_lock(&stream->lock);
	if (stream->aborted) {
		spin_unlock(&stream->lock);
		return -ENOENT;
	}
	list_for_each_entry(job, jobs, link) {
		job->seqno = ++stream->submitted;
		job->tid = task_pid_vnr(current);
		trace_npu_cmd_submit(stream, job, job->seqno);
	}
	*seqno = stream->submitted;
	list_splice_tail_init(jobs, &stream->queue);
	spin_unlock(&stream->lock);
	if (wait)
		return npu_stream_wait_here(stream, *seqno);
	/* A stop after the splice drops them if this finds the stream stopped. */
	npu_engine_kick(&stream->sched);
	return 0;
}

/*
 * Stop @stream: no more turns, the one in progress ends at its next chunk,
 * what is queued is dropped here (-ECANCELED). Once @aborted is set under
 * the lock nothing is queued any more; a pending fault finishes on its own
 * and finds the stream stopped. The wake-ups end the waits for this
 * stream: STREAM_SYNC, other streams' WAIT_STREAMs, SUBMITs waiting for
 * room. Unplug and a destroy or close may stop a stream at once: the
 * first does the work, the other waits until it is done, so no command
 * completes twice and neither returns while DMA may still run.
 */
static void npu_stream_stop(struct npu_stream *stream)
{
	struct npu_job *job;
	bool first;

	spin_lock(&stream->lock);
	first = !stream->aborted;
	WRITE_ONCE(stream->aborted, true);
	spin_unlock(&stream->lock);
	if (!first) {
		wait_for_completion(&stream->stopped);
		return;
	}
	npu_engine_stop(&stream->sched);
	cancel_delayed_work_sync(&stream->poll);
	npu_stream_unwait(stream);
	job = npu_stream_head(stream);
	while (job) {
		job = npu_stream_complete(stream, job, -ECANCELED);
		cond_resched();
	}
	wake_up_all(&stream->wq);
	wake_up_all(&stream->ctx->queue_wq);
	complete_all(&stream->stopped);
}

/* The stream has left its context's table: stop it, drop the table's reference. */
static void npu_stream_remove(void *obj, enum npu_obj_type type, void *arg)
{
	struct npu_stream *stream = obj;

	npu_stream_stop(stream);
	npu_stream_put(stream);
}

/* The stream is published once the answer is copied out. */
int npu_stream_create_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_stream_create_args *a = arg;
	struct npu_stream_create *args = &a->uapi;
	struct npu_stream *stream;
	int ret;

	if (args->flags || args->__reserved)
		return -EINVAL;
	stream = kzalloc(sizeof(*stream), GFP_KERNEL_ACCOUNT);
	if (!stream)
		return -ENOMEM;
	kref_init(&stream->ref);
	stream->ctx = ctx;
	spin_lock_init(&stream->lock);
	INIT_LIST_HEAD(&stream->queue);
	init_completion(&stream->stopped);
	npu_engine_entity_init(&stream->sched, ctx->engine_user,
			       &ctx->npu->busy, npu_stream_turn);
	INIT_DELAYED_WORK(&stream->poll, npu_stream_poll_work);
	INIT_WORK(&stream->fault.work, npu_stream_fault_work);
	init_waitqueue_head(&stream->wq);
	init_waitqueue_func_entry(&stream->waiter, npu_stream_wake);
	/* ids are not reused soon after a destroy: a stale one names no new stream */
	ret = npu_obj_reserve(&ctx->objs, NPU_OBJ_STREAM, &stream->id);
	if (ret) {
		kfree(stream);
		return ret;
	}
	args->stream = stream->id;
	a->stream = stream;
	return 0;
}

/* The ioctl table's finish of STREAM_CREATE. */
void npu_stream_create_finish(struct npu_context *ctx, void *arg, int ret)
{
	struct npu_stream_create_args *a = arg;

	if (!ret) {
		struct npu_stream *stream = a->stream;

		/* the table's reference may go at once: a destroy, a close */
		kref_get(&stream->ref);
		npu_obj_publish(&ctx->objs, stream->id, NPU_OBJ_STREAM, stream);
		/*
		 * A reset or an unplug that aborted the context's streams
		 * before this one was in the table: it is stopped as they
		 * were. Pairs with the barrier of npu_streams_abort().
		 */
		smp_mb();
		if (npu_context_lost(ctx))
			npu_stream_stop(stream);
		npu_stream_put(stream);
		return;
	}
	npu_obj_abort(&ctx->objs, a->stream->id, NPU_OBJ_STREAM);
	kfree(a->stream);
}

/*
 * The stream stays in the table while a destroy without FORCE waits for
 * its queue (as NPU_OBJ_DYING: no lookup finds it), so that unplug's
 * abort reaches it and ends the wait.
 */
int npu_stream_destroy_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_stream_destroy *args = arg;
	struct npu_stream *stream;

	if (args->flags & ~NPU_STREAM_DESTROY_FORCE || args->__reserved)
		return -EINVAL;
	stream = npu_obj_retype(&ctx->objs, args->stream, NPU_OBJ_STREAM,
				NPU_OBJ_DYING, npu_stream_get_obj);
	if (!stream)
		return -ENOENT;
	if (!(args->flags & NPU_STREAM_DESTROY_FORCE)) {
		u64 target;

		spin_lock(&stream->lock);
		target = stream->submitted;
		spin_unlock(&stream->lock);
		/* A fatal signal ends the wait; the stop below then aborts. */
		wait_event_killable(stream->wq,
				    npu_stream_done(stream, target) ||
				    READ_ONCE(stream->aborted));
	}
	/* Unless a shutdown took it out meanwhile. */
	if (npu_obj_remove(&ctx->objs, args->stream, BIT(NPU_OBJ_DYING), stream,
			   NULL))
		npu_stream_remove(stream, NPU_OBJ_DYING, NULL);
	npu_stream_put(stream);
	return 0;
}

/* Does STREAM_SYNC's error @err name a command (struct npu_stream_sync's outputs)? */
static bool npu_stream_error_named(int err)
{
	return err == -EIO || err == -EHWPOISON || err == -ETIME;
}

/* A STREAM_SYNC waiting on a stream's @wq for command @target. */
struct npu_stream_syncer {
	struct wait_queue_entry entry;
	struct npu_stream *stream;
	u64 target;
};

/*
 * The wake-up of a STREAM_SYNC: only once its command is done. The
 * stream wakes its wq at every completion; a caller waiting for the last
 * of many commands would otherwise be woken for each, and take a CPU from
 * the engine or an AI core every time.
 */
static int npu_stream_syncer_wake(struct wait_queue_entry *entry,
				  unsigned int mode, int sync, void *key)
{
	struct npu_stream_syncer *w = container_of(entry,
						   struct npu_stream_syncer,
						   entry);

	if (!npu_stream_done(w->stream, w->target))
		return 0;
	return autoremove_wake_function(entry, mode, sync, key);
}

/*
 * As wait_event_interruptible_timeout() for npu_stream_done(@stream,
 * @target), woken by that completion only: the remaining jiffies (at
 * least 1) once done, 0 at the timeout, -ERESTARTSYS on a signal.
 */
static long npu_stream_wait_done_timeout(struct npu_stream *stream,
					 u64 target, long timeout)
{
	struct npu_stream_syncer w = { .stream = stream, .target = target };

	might_sleep();
	/* done already (a synchronous command run here), or a poll: no wq */
	if (npu_stream_done(stream, target))
		return max(timeout, 1L);
	if (!timeout)
		return 0;
	init_wait(&w.entry);
	w.entry.func = npu_stream_syncer_wake;
	for (;;) {
		/* joins @wq with a full barrier before the look: no wake-up lost */
		prepare_to_wait(&stream->wq, &w.entry, TASK_INTERRUPTIBLE);
		if (npu_stream_done(stream, target)) {
			timeout = max(timeout, 1L);
			break;
		}
		/* expired: answered, not interrupted */
		if (!timeout)
			break;
		if (signal_pending(current)) {
			timeout = -ERESTARTSYS;
			break;
		}
		timeout = schedule_timeout(timeout);
	}
	finish_wait(&stream->wq, &w.entry);
	return timeout;
}

/*
 * Wait until @stream completed command @target, for @timeout jiffies:
 * what STREAM_SYNC returns. Only the first fault not yet reported is;
 * with -EIO, -EHWPOISON and -ETIME @out (if not NULL) gets which command
 * it was.
 */
static int npu_stream_sync(struct npu_stream *stream, u64 target, long timeout,
			   struct npu_stream_sync *out)
{
	int ret = 0;

	timeout = npu_stream_wait_done_timeout(stream, target, timeout);
	/*
	 * Not -ERESTARTSYS: a restart would wait the whole relative timeout
	 * again, so a periodic signal would make it endless. The caller
	 * waits on with what is left of its deadline.
	 */
	if (timeout < 0)
		return -EINTR;
	if (!timeout && !npu_stream_done(stream, target))
		return -ETIMEDOUT;
	/* No error since the stream began: no lock (completion orders it). */
	if (!READ_ONCE(stream->error) && !READ_ONCE(stream->halted))
		return 0;
	spin_lock(&stream->lock);
	if (stream->error && stream->error_seq <= target) {
		ret = stream->error;
		WRITE_ONCE(stream->error, 0);
		if (out && npu_stream_error_named(ret)) {
			out->error_seqno = stream->error_seq;
			out->error_tid = stream->error_tid;
			out->error_step = stream->error_step;
			out->fault_addr = stream->error_addr;
			out->fault_flags = stream->error_flags;
		}
	} else if (stream->halted && stream->halt_seq < target) {
		/* Dropped after the fault, which was reported before. */
		ret = -ECANCELED;
	}
	spin_unlock(&stream->lock);
	return ret;
}

/*
 * SUBMIT's NPU_SUBMIT_WAIT for command @seqno, just queued. On an idle
 * stream its turns run here, in the submitter's context, with the very
 * code and order the engine's channels would use (completions, faults,
 * tracepoints): a synchronous copy is one system call, with no wake-up of
 * a channel on another CPU and back. Once the stream must wait (a
 * WAIT_*, a mirror fault), or is not idle, or a signal is pending, the
 * engine takes over and the caller sleeps (or returns -EINTR at once).
 */
static int npu_stream_wait_here(struct npu_stream *stream, u64 seqno)
{
	bool more = false;

	if (npu_engine_claim(&stream->sched)) {
		do {
			more = npu_stream_turn(&stream->sched);
		} while (more && !npu_stream_done(stream, seqno) &&
			 !signal_pending(current));
		npu_engine_unclaim(&stream->sched, more);
	} else {
		npu_engine_kick(&stream->sched);
	}
	return npu_stream_sync(stream, seqno, MAX_SCHEDULE_TIMEOUT, NULL);
}

/**
 * npu_stream_run_here() - one turn of @stream in the caller's context
 * @stream: the stream, whose wait just ended
 *
 * For whoever ends what a stream waits for (a fault's worker, an AI
 * core's DONE): the turn runs here if nobody runs the stream, else a
 * kick; what more there is goes to the engine's channels. A turn is
 * bounded, and touches no user memory of the caller's.
 */
void npu_stream_run_here(struct npu_stream *stream)
{
	if (npu_engine_claim(&stream->sched))
		npu_engine_unclaim(&stream->sched,
				   npu_stream_turn(&stream->sched));
	else
		npu_engine_kick(&stream->sched);
}

int npu_stream_sync_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_stream_sync *args = arg;
	struct npu_stream *stream;
	u64 target;
	int ret = 0;

	if (args->flags || args->timeout_ms < -1)
		return -EINVAL;
	/* Outputs: what the caller left in them means nothing. */
	args->error_seqno = 0;
	args->fault_addr = 0;
	args->fault_flags = 0;
	args->error_tid = 0;
	args->error_step = 0;
	args->__reserved = 0;
	stream = npu_stream_get(ctx, args->stream);
	if (!stream)
		return -ENOENT;

	spin_lock(&stream->lock);
	target = args->seqno ? args->seqno : stream->submitted;
	if (target > stream->submitted)
		ret = -EINVAL;
	spin_unlock(&stream->lock);
	if (!ret)
		ret = npu_stream_sync(stream, target, args->timeout_ms < 0 ?
				      MAX_SCHEDULE_TIMEOUT :
				      msecs_to_jiffies(args->timeout_ms), args);
	npu_stream_put(stream);
	return ret;
}

int npu_stream_set_mode_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_stream_mode *args = arg;
	struct npu_stream *stream;
	int ret = 0;

	if (args->flags || args->__reserved ||
	    args->mode & ~NPU_STREAM_MODE_MASK)
		return -EINVAL;
	stream = npu_stream_get(ctx, args->stream);
	if (!stream)
		return -ENOENT;
	spin_lock(&stream->lock);
	/* A mode can be set, not cleared. */
	if (stream->mode & ~args->mode)
		ret = -EINVAL;
	else
		stream->mode = args->mode;
	spin_unlock(&stream->lock);
	npu_stream_put(stream);
	return ret;
}

/* At shutdown: stop every stream first, so no DMA outlives the context. */
void npu_streams_release(struct npu_context *ctx)
{
	npu_obj_remove_each(&ctx->objs, NPU_OBJ_STREAMS, npu_stream_remove,
			    NULL);
}

static void npu_stream_abort(void *obj, void *arg)
{
	npu_stream_stop(obj);
	npu_stream_put(obj);
}

/*
 * Unplug or a device reset: stop every stream's DMA and end the waits for
 * it, those being destroyed included; the streams stay in the table
 * (their ioctls answer -ENODEV or -ESTALE) until shutdown. The caller has
 * set what npu_context_lost() reads: the barrier orders that before the
 * look at the table, as npu_stream_create_finish() orders its publish
 * before its look at the flag, so a stream published meanwhile is
 * stopped by one of the two.
 */
void npu_streams_abort(struct npu_context *ctx)
{
	/* Pairs with the barrier of npu_stream_create_finish(). */
	smp_mb();
	npu_obj_each(&ctx->objs, NPU_OBJ_STREAMS, npu_stream_get_obj,
		     npu_stream_abort, NULL);
}
