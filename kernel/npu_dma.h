/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: the DMA engine of the simulated board - streams of commands run
 * by kernel workers.
 */
#ifndef __NPU_DMA_H__
#define __NPU_DMA_H__

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

struct npu_context;

/**
 * struct npu_stream - an in-order queue of commands
 * @ref: held by the context's table and by WAIT_STREAM commands naming it
 * @ctx: owner
 * @id: id in the context's table
 * @lock: protects @queue, @submitted, @error, @error_seq, @mode, @halted
 *	and @halt_seq
 * @queue: commands not yet started
 * @submitted: seqno of the last command queued
 * @completed: seqno of the last command finished
 * @error: first fault not yet reported by STREAM_SYNC, or 0
 * @error_seq: seqno of the command that faulted
 * @mode: NPU_STREAM_* bits (STREAM_SET_MODE)
 * @halted: a command faulted in NPU_STREAM_STOP_ON_FAULT mode: every
 *	later one is dropped; set once, by the worker
 * @halt_seq: seqno of that command
 * @aborted: set once, under @lock, when the stream or its context goes
 *	away: queued commands are dropped, running ones stop at the next chunk
 * @work: runs the queue, or looks again later at a WAIT_VALUE at its head
 * @wq: woken when @completed moves or @aborted is set
 * @waiter: in @wait_on's @wq while the WAIT_STREAM at the head of this
 *	stream's queue waits for it; its wake-up runs @work
 * @wait_on: the stream @waiter waits in, or NULL; only the worker (and
 *	npu_stream_stop() once the worker is done) uses it
 * @wait_seq: the seqno of @wait_on it waits for
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
	u32 mode;
	bool halted;
	u64 halt_seq;
	bool aborted;
	struct delayed_work work;
	wait_queue_head_t wq;
	struct wait_queue_entry waiter;
	struct npu_stream *wait_on;
	u64 wait_seq;
};

int npu_dma_init(void);
void npu_dma_exit(void);
void npu_streams_release(struct npu_context *ctx);
void npu_streams_abort(struct npu_context *ctx);

int npu_stream_create_ioctl(struct npu_context *ctx, void *arg);
int npu_stream_destroy_ioctl(struct npu_context *ctx, void *arg);
int npu_submit_ioctl(struct npu_context *ctx, void *arg);
int npu_stream_sync_ioctl(struct npu_context *ctx, void *arg);
int npu_stream_set_mode_ioctl(struct npu_context *ctx, void *arg);

#endif /* __NPU_DMA_H__ */
