/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npu: the commands a stream runs - what each one checks at SUBMIT and
 * does on the engine.
 */
#ifndef __NPU_CMD_H__
#define __NPU_CMD_H__

#include <linux/list.h>
#include <linux/types.h>

#include <uapi/npu.h>

struct npu_context;
struct npu_copy_batch;
struct npu_host_reg;
struct npu_kernel_job;
struct npu_model_run;
struct npu_random_job;
struct npu_stream;

/**
 * struct npu_job - a queued command
 * @link: in the stream's queue (or SUBMIT's list before it is queued)
 * @cmd: the command as submitted
 * @seqno: its sequence number in the stream
 * @dst_reg: host registration of a host destination (holds a user), or
 *	the pins of a pageable one (NPU_CMD_DST_USER)
 * @src_reg: the same for the source
 * @user_pin: bytes of pageable memory it pins (whole pages), charged to
 *	@queued's user_pinned once @queued is set
 * @dst_span: bytes of a host or pageable destination (NPU_CMD_DST_HOST,
 *	NPU_CMD_DST_USER) from @cmd.dst, its rows and the gaps between them
 *	for COPY_2D
 * @src_span: the same for a host or pageable source
 * @batch: a COPY_BATCH's copies, read at SUBMIT
 * @random: a RANDOM's task, read at SUBMIT, and its progress
 * @model: a MODEL's run: the model and where the run is in it
 * @kernel: a KERNEL's task, read at SUBMIT, and its launch
 * @weight: commands it counts as against max_queued: 1, or a
 *	COPY_BATCH's copies
 * @tid: the thread that submitted it, by its id in its own pid namespace
 * @wait: stream a WAIT_STREAM command waits for (holds a reference)
 * @peer: context of a COPY's peer operand (holds a reference), or NULL
 * @queued: the context whose queued count this job is in, once queued
 * @deadline: for a WAIT_STREAM with a limit, the jiffies it fails at, once
 *	@timed (set when it first reaches the head of its stream)
 * @timed: @deadline is set
 * @start: ktime_get_ns() when it first ran, if npu_cmd_complete traces
 * @row: where the next turn goes on: the row of the shape...
 * @col: ...and the byte in it (a command moves a bounded amount a turn)
 */
struct npu_job {
	struct list_head link;
	struct npu_cmd cmd;
	u64 seqno;
	struct npu_host_reg *dst_reg;
	struct npu_host_reg *src_reg;
	u64 user_pin;
	u64 dst_span;
	u64 src_span;
	struct npu_copy_batch *batch;
	struct npu_random_job *random;
	struct npu_model_run *model;
	struct npu_kernel_job *kernel;
	u32 weight;
	pid_t tid;
	struct npu_stream *wait;
	struct npu_context *peer;
	struct npu_context *queued;
	unsigned long deadline;
	bool timed;
	u64 start;
	u64 row;
	u64 col;
};

/*
 * What a turn of a command says besides 0 (done) and -errno (failed):
 * it goes on later.
 */
enum npu_run {
	NPU_RUN_YIELD = 1,	/* the turn's budget is used: more next turn */
	NPU_RUN_POLL,		/* a WAIT_VALUE not yet true: look again soon */
	NPU_RUN_PARKED,		/* a WAIT_STREAM: the awaited stream wakes it */
	NPU_RUN_FAULT_IN,	/* a mirror's page first (the stream's fault) */
};

int npu_cmd_size(u32 cmd_size, u32 *size);
int npu_cmd_read(struct npu_cmd *cmd, u64 cmds, u32 cmd_size, unsigned int i);
int npu_cmd_check(struct npu_context *ctx, struct npu_stream *stream,
		  struct npu_job *job);
int npu_cmd_run(struct npu_stream *stream, struct npu_job *job, u64 *budget);
int npu_cmd_load(struct npu_stream *stream, struct npu_job *job, u64 addr,
		 u32 len, u64 *val, u64 *budget);
const char *npu_cmd_name(u32 op);
u64 npu_job_bytes(const struct npu_job *job);
void npu_job_release(struct npu_job *job);
void npu_job_release_host(struct npu_job *job);
void npu_job_free(struct npu_job *job);

struct npu_random_job *npu_random_job_alloc(void);
void npu_random_job_copy(struct npu_random_job *dst,
			 const struct npu_random_job *src);

#endif /* __NPU_CMD_H__ */
