/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: kernel launches - NPU_OP_KERNEL and the executor's side of it
 * (DOC: npu kernel launches in the uapi header).
 */
#ifndef __NPU_KERNEL_H__
#define __NPU_KERNEL_H__

#include <linux/list.h>
#include <linux/poll.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

struct file;
struct npu_context;
struct npu_job;
struct npu_kernel_job;
struct npu_stream;

/**
 * struct npu_kernels - a context's kernel queue, which its executor reads
 *	through the aperture (KERNEL_WAIT, KERNEL_DONE)
 * @lock: protects the lists, @nr_cancelled, @next_id, @closed and
 *	@orphaned
 * @queue: launches not yet taken, oldest first
 * @taken: launches an executor took, not yet over
 * @cancels: taken launches cancelled, whose cancel event WAIT has not
 *	yet given, oldest first
 * @cancelled: taken launches cancelled whose event was given, waiting
 *	for their DONE
 * @nr_cancelled: on @cancels and @cancelled together (capped)
 * @next_id: the last launch's id
 * @closed: the context shut down: WAIT answers -EPIPE
 * @takers: the files opened for an executor (NPU_APERTURE_EXECUTOR)
 *	and not yet released (struct npu_kernel_taker)
 * @orphaned: the last of @takers was released: launches fail at once
 *	until another is opened
 * @wq: the executors waiting in WAIT (and poll())
 * @args_bytes: bytes of argument blobs the context holds (capped)
 * @launches: launches queued so far, for fdinfo
 * @busy_ns: core time DONE reported, for fdinfo
 */
struct npu_kernels {
	spinlock_t lock;		/* see above */
	struct list_head queue;
	struct list_head taken;
	struct list_head cancels;
	struct list_head cancelled;
	u32 nr_cancelled;
	u64 next_id;
	bool closed;
	struct list_head takers;
	bool orphaned;
	wait_queue_head_t wq;
	atomic64_t args_bytes;
	atomic64_t launches;
	atomic64_t busy_ns;
};

int npu_kernel_check(struct npu_context *ctx, struct npu_stream *stream,
		     struct npu_job *job);
int npu_kernel_run(struct npu_stream *stream, struct npu_job *job,
		   u64 *budget);
struct npu_kernel_job *npu_kernel_job_alloc(void);
void npu_kernel_job_copy(struct npu_kernel_job *dst,
			 const struct npu_kernel_job *src);
void npu_kernel_job_end(struct npu_kernel_job *kj);
void npu_kernel_job_free(struct npu_kernel_job *kj);

void npu_kernels_init(struct npu_context *ctx);
void npu_kernels_wake(struct npu_context *ctx);
void npu_kernels_shutdown(struct npu_context *ctx);
void npu_kernels_free(struct npu_context *ctx);

long npu_kernel_ioctl(struct npu_context *ctx, struct file *file,
		      unsigned int cmd, void __user *uarg);
__poll_t npu_kernel_poll(struct npu_context *ctx, struct file *file,
			 poll_table *wait);
void npu_kernel_release_file(struct npu_context *ctx, struct file *file);
int npu_kernel_executor_add(struct npu_context *ctx, struct file *file);

#endif /* __NPU_KERNEL_H__ */
