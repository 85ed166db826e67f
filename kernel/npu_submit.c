// SPDX-License-Identifier: GPL-2.0
/*
 * npu: SUBMIT - commands read, checked, charged, their pageable operands
 * pinned, and queued on a stream, all of them or none; with
 * NPU_SUBMIT_WAIT also waited for (run in the caller's context on an idle
 * stream).
 */
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include <uapi/npu.h>

#include "npu_cmd.h"
#include "npu_drv.h"
#include "npu_host.h"
#include "npu_stream.h"
#include "npu_submit.h"

static unsigned int max_queued = 65536;
module_param(max_queued, uint, 0644);
MODULE_PARM_DESC(max_queued,
		 "Commands queued and not yet completed per context, at least one full SUBMIT (default 65536)");

/*
 * Bytes of pageable user memory (NPU_CMD_DST_USER, NPU_CMD_SRC_USER) a
 * context's queued commands may hold pinned at once, counted in whole
 * pages. A SUBMIT waits for room as for max_queued; one that needs more
 * than the cap by itself fails with -ENOMEM. The pins are charged to
 * RLIMIT_MEMLOCK besides (npu_host_pin_user()).
 */
static unsigned long long max_user_pin = SZ_256M;
module_param(max_user_pin, ullong, 0644);
MODULE_PARM_DESC(max_user_pin,
		 "Bytes of pageable memory a context's commands hold pinned at once (default 256 MiB)");

static bool npu_queue_room(struct npu_context *ctx, struct npu_stream *stream,
			   long count, long cap, bool *charged)
{
	if (READ_ONCE(stream->aborted))
		return true;
	*charged = npu_charge(&ctx->queued, count, cap);
	return *charged;
}

/*
 * Make room for @count more queued commands in @ctx, as a full ring would:
 * wait until enough earlier ones completed. The stream's abort (destroy,
 * close, unplug) ends the wait; whether the room was taken is what the
 * wait's last look found: an abort after it is the queueing's to see,
 * under the stream's lock. More than the cap by itself (COPY_BATCH's
 * copies count each) never fits: -ENOMEM.
 */
static int npu_queue_charge(struct npu_context *ctx, struct npu_stream *stream,
			    long count)
{
	long cap = max(READ_ONCE(max_queued), NPU_SUBMIT_MAX_CMDS);
	bool charged = false;
	int ret;

	if (count > cap)
		return -ENOMEM;
	ret = wait_event_interruptible(ctx->queue_wq,
				       npu_queue_room(ctx, stream, count, cap,
						      &charged));
	if (ret)
		return ret;
	return charged ? 0 : -ENOENT;
}

static bool npu_user_pin_room(struct npu_context *ctx,
			      struct npu_stream *stream, u64 bytes, u64 cap,
			      bool *charged)
{
	if (READ_ONCE(stream->aborted))
		return true;
	*charged = npu_charge64(&ctx->user_pinned, bytes, cap);
	return *charged;
}

/*
 * Make room for @bytes more of pinned pageable memory in @ctx: wait until
 * earlier commands let go of enough, as npu_queue_charge() waits. More
 * than the cap by itself never fits: -ENOMEM.
 */
static int npu_user_pin_charge(struct npu_context *ctx,
			       struct npu_stream *stream, u64 bytes)
{
	u64 cap = READ_ONCE(max_user_pin);
	bool charged = false;
	int ret;

	if (bytes > cap)
		return -ENOMEM;
	ret = wait_event_interruptible(ctx->queue_wq,
				       npu_user_pin_room(ctx, stream, bytes,
							 cap, &charged));
	if (ret)
		return ret;
	return charged ? 0 : -ENOENT;
}

/* Pin a pageable operand (a destination for write). */
static int npu_job_pin_one(struct npu_context *ctx, struct npu_host_reg **reg,
			   u64 addr, u64 len, bool write)
{
	struct npu_host_reg *pin = npu_host_pin_user(ctx, addr, len, write);

	if (IS_ERR(pin))
		return PTR_ERR(pin);
	*reg = pin;
	return 0;
}

/* Pin @job's pageable operands, which npu_cmd_check() counted. */
static int npu_job_pin(struct npu_context *ctx, struct npu_job *job)
{
	struct npu_cmd *cmd = &job->cmd;
	int ret = 0;

	if (cmd->flags & NPU_CMD_DST_USER)
		ret = npu_job_pin_one(ctx, &job->dst_reg, cmd->dst,
				      job->dst_span, true);
	if (!ret && cmd->flags & NPU_CMD_SRC_USER)
		ret = npu_job_pin_one(ctx, &job->src_reg, cmd->src,
				      job->src_span, false);
	return ret;
}

/*
 * Read and check every command into @jobs; *@weight: what they count
 * against max_queued, *@user_pin: what they pin.
 */
static int npu_submit_read(struct npu_context *ctx, struct npu_stream *stream,
			   const struct npu_submit *args, u32 cmd_size,
			   struct list_head *jobs, long *weight, u64 *user_pin)
{
	struct npu_job *job;
	struct npu_cmd cmd;
	unsigned int i;
	int ret;

	for (i = 0; i < args->count; i++) {
		/* Read onto the stack: the cheaper usercopy check of the two. */
		ret = npu_cmd_read(&cmd, args->cmds, cmd_size, i);
		if (ret)
			return ret;
		job = npu_stream_job_alloc(stream);
		if (!job)
			return -ENOMEM;
		list_add_tail(&job->link, jobs);
		job->cmd = cmd;
		job->weight = 1;
		ret = npu_cmd_check(ctx, stream, job);
		if (ret)
			return ret;
		*weight += job->weight;
		*user_pin += job->user_pin;
		/* A long batch is a long loop: it stays preemptible. */
		if (i && !(i % 32))
			cond_resched();
	}
	return 0;
}

/*
 * Take room for the commands in @ctx's queue and pin caps, then pin. On
 * failure the jobs charge nothing more (npu_job_free() gives back what
 * they took).
 */
static int npu_submit_charge(struct npu_context *ctx, struct npu_stream *stream,
			     long count, struct list_head *jobs, u64 user_pin)
{
	struct npu_job *job;
	int ret;

	ret = npu_queue_charge(ctx, stream, count);
	if (ret)
		return ret;
	if (user_pin) {
		ret = npu_user_pin_charge(ctx, stream, user_pin);
		if (ret) {
			/* Give the queue's room back; the pins were not charged. */
			list_for_each_entry(job, jobs, link)
				job->user_pin = 0;
			atomic_long_sub(count, &ctx->queued);
			if (wq_has_sleeper(&ctx->queue_wq))
				wake_up_all(&ctx->queue_wq);
			return ret;
		}
	}
	list_for_each_entry(job, jobs, link)
		job->queued = ctx;
	/* Pinned after the room is taken, so that a waiting SUBMIT pins nothing. */
	list_for_each_entry(job, jobs, link) {
		if (!job->user_pin)
			continue;
		ret = npu_job_pin(ctx, job);
		if (ret)
			return ret;
	}
	return 0;
}

int npu_submit_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_submit *args = arg;
	struct npu_stream *stream;
	struct npu_job *job, *tmp;
	LIST_HEAD(jobs);
	u64 user_pin = 0;
	long weight = 0;
	u32 cmd_size;
	int ret;

	atomic64_inc(&ctx->submits);
	if (args->flags & ~NPU_SUBMIT_FLAGS_MASK || args->__reserved || !args->count ||
	    args->count > NPU_SUBMIT_MAX_CMDS)
		return -EINVAL;
	ret = npu_cmd_size(args->cmd_size, &cmd_size);
	if (ret)
		return ret;
	stream = npu_stream_get(ctx, args->stream);
	if (!stream)
		return -ENOENT;
	ret = npu_submit_read(ctx, stream, args, cmd_size, &jobs, &weight,
			      &user_pin);
	if (!ret)
		ret = npu_submit_charge(ctx, stream, weight, &jobs, user_pin);
	if (!ret)
		ret = npu_stream_queue(stream, &jobs, &args->seqno,
				       args->flags & NPU_SUBMIT_WAIT);
	list_for_each_entry_safe(job, tmp, &jobs, link)
		npu_job_free(job);
	npu_stream_put(stream);
	return ret;
}
