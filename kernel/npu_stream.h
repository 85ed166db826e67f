/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: streams - in-order queues of commands, each run by the engine a
 * turn at a time.
 */
#ifndef __NPU_STREAM_H__
#define __NPU_STREAM_H__

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <uapi/npu.h>

#include "npu_engine.h"

/* What a command counts against a turn's budget at least, in bytes. */
#define NPU_STREAM_CMD_COST	SZ_16K

struct npu_context;
struct npu_handle;
struct npu_mirror;

/**
 * struct npu_stream_fault - a mirror's page the head command needs first,
 *	or an imported dma-buf it needs mapped again after a move
 * @work: faults it in, off the engine's channels (npu_engine_queue_slow())
 * @mirror: the mirror (a reference while the fault is pending), or NULL
 * @import: the imported dma-buf's handle (a reference while the fault is
 *	pending), or NULL
 * @va: the byte accessed
 * @len: bytes the access goes on for: a few pages of them come in at once
 * @write: the access writes
 * @ret: what the fault came to, once @done
 * @why: why it failed, for the DMA fault report
 * @done: @ret is there for the head command, which reads it next turn
 * @pending: set by the turn that queues @work, cleared (a release) by
 *	@work once @ret and @done are there; while it is set no turn runs
 *	the head command, and @work owns every other field
 */
struct npu_stream_fault {
	struct work_struct work;
	struct npu_mirror *mirror;
	struct npu_handle *import;
	u64 va;
	u64 len;
	bool write;
	int ret;
	const char *why;
	bool done;
	bool pending;
};

/**
 * struct npu_stream - an in-order queue of commands
 * @ref: held by the context's table, by WAIT_STREAM commands naming it
 *	and by a pending fault
 * @ctx: owner
 * @id: id in the context's table
 * @lock: protects @queue, @submitted, @error and the @error_* fields,
 *	@mode, @halted and @halt_seq
 * @queue: commands not yet completed; the head is the one running
 * @submitted: seqno of the last command queued
 * @completed: seqno of the last command finished
 * @error: first fault not yet reported by STREAM_SYNC, or 0
 * @error_seq: seqno of the command that faulted
 * @error_tid: the thread that submitted it (struct npu_job's @tid)
 * @error_step: for a MODEL command, its step that failed, from 1; else 0
 * @error_addr: for a DMA fault (-EIO, -EHWPOISON), where it faulted...
 * @error_flags: ...and how, NPU_FAULT_* bits
 * @dma_addr: the address of the DMA fault the turn running now met
 *	(npu_stream_note_fault()), which npu_stream_complete() then moves to
 *	@error_addr with the command's -EIO or -EHWPOISON; only turns (and a
 *	stop, once no turn runs) use it...
 * @dma_flags: ...and its NPU_FAULT_* bits
 * @mode: NPU_STREAM_* bits (STREAM_SET_MODE)
 * @halted: a command faulted in NPU_STREAM_STOP_ON_FAULT mode: every
 *	later one is dropped; set once, in a turn
 * @halt_seq: seqno of that command
 * @aborted: set once, under @lock, when the stream or its context goes
 *	away: queued commands are dropped, running ones stop at the next chunk
 * @stopped: completed once the stopper that set @aborted has dropped the
 *	queue; a later stopper waits for it
 * @sched: what the engine schedules; its turn runs the queue
 * @poll: looks again at a WAIT_VALUE at the head, or ends a WAIT_STREAM's
 *	time limit
 * @fault: a mirror or dma-buf fault the head command waits for
 * @wq: woken when @completed moves or @aborted is set
 * @waiter: in @wait_on's @wq while the WAIT_STREAM at the head of this
 *	stream's queue waits for it; its wake-up kicks the stream
 * @wait_on: the stream @waiter waits in, or NULL; only the stream's turn
 *	(and npu_stream_stop() once no turn can run) uses it
 * @wait_seq: the seqno of @wait_on it waits for
 * @spare: a completed command's struct, kept for the next SUBMIT (a
 *	synchronous copy then allocates nothing); owned by whoever
 *	exchanges it out
 */
struct npu_stream {
	struct kref ref;
	struct npu_context *ctx;
	u32 id;
	spinlock_t lock;		/* see above */
	struct list_head queue;
	u64 submitted;
	atomic64_t completed;
	int error;
	u64 error_seq;
	pid_t error_tid;
	u32 error_step;
	u32 error_flags;
	u64 error_addr;
	u64 dma_addr;
	u32 dma_flags;
	u32 mode;
	bool halted;
	u64 halt_seq;
	bool aborted;
	struct completion stopped;
	struct npu_engine_entity sched;
	struct delayed_work poll;
	struct npu_stream_fault fault;
	wait_queue_head_t wq;
	struct wait_queue_entry waiter;
	struct npu_stream *wait_on;
	u64 wait_seq;
	struct npu_job *spare;
};

/**
 * struct npu_stream_create_args - STREAM_CREATE as the ioctl table holds it
 * @uapi: the user's struct
 * @stream: the new stream, its id reserved: npu_ioctl() calls
 *	npu_stream_create_finish() once @uapi is copied out, which publishes
 *	it
 */
struct npu_stream_create_args {
	struct npu_stream_create uapi;
	struct npu_stream *stream;
};

struct npu_stream *npu_stream_get(struct npu_context *ctx, u32 id);
struct npu_job *npu_stream_job_alloc(struct npu_stream *stream);
void npu_stream_put(struct npu_stream *stream);
int npu_stream_queue(struct npu_stream *stream, struct list_head *jobs,
		     u64 *seqno, bool wait);
void npu_stream_want_fault(struct npu_stream *stream, struct npu_mirror *mirror,
			   struct npu_handle *import, u64 va, u64 len,
			   bool write);
void npu_stream_note_fault(struct npu_stream *stream, u64 addr, u32 flags);
int npu_stream_wait_for(struct npu_stream *stream, struct npu_stream *other,
			u64 seqno, const unsigned long *deadline);
void npu_stream_poll_after(struct npu_stream *stream, unsigned long delay);
void npu_stream_run_here(struct npu_stream *stream);
bool npu_stream_done(struct npu_stream *stream, u64 seqno);

void npu_streams_release(struct npu_context *ctx);
void npu_streams_abort(struct npu_context *ctx);

int npu_stream_create_ioctl(struct npu_context *ctx, void *arg);
void npu_stream_create_finish(struct npu_context *ctx, void *arg, int ret);
int npu_stream_destroy_ioctl(struct npu_context *ctx, void *arg);
int npu_stream_sync_ioctl(struct npu_context *ctx, void *arg);
int npu_stream_set_mode_ioctl(struct npu_context *ctx, void *arg);

#endif /* __NPU_STREAM_H__ */
