// SPDX-License-Identifier: GPL-2.0
/*
 * npu: the commands a stream runs.
 *
 * Each operation is one entry of npu_ops[]: its name (tracepoints), what
 * SUBMIT checks (flags, sizes, operand address spaces, which it resolves:
 * host registrations, pageable spans, the peer context, the awaited
 * stream) and what a turn of it does on the engine. A new kind of command
 * is a new entry.
 */
#include <linux/bitops.h>
#include <linux/indirect_call_wrapper.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <uapi/npu.h>

#include "npu_cmd.h"
#include "npu_dma.h"
#include "npu_drv.h"
#include "npu_host.h"
#include "npu_kernel.h"
#include "npu_model.h"
#include "npu_random.h"
#include "npu_reduce.h"
#include "npu_stream.h"

#define NPU_CMD_USER	(NPU_CMD_DST_USER | NPU_CMD_SRC_USER)
#define NPU_COPY_FLAGS	(NPU_CMD_DST_HOST | NPU_CMD_SRC_HOST | \
			 NPU_CMD_DST_PEER | NPU_CMD_SRC_PEER | NPU_CMD_USER)
/* Another address space for the same operand: at most one of each. */
#define NPU_DST_SPACES	(NPU_CMD_DST_HOST | NPU_CMD_DST_PEER | NPU_CMD_DST_USER)
#define NPU_SRC_SPACES	(NPU_CMD_SRC_HOST | NPU_CMD_SRC_PEER | NPU_CMD_SRC_USER)
/* The destination flags of the one-operand writes. */
#define NPU_DST_FLAGS	(NPU_CMD_DST_HOST | NPU_CMD_DST_USER)

/**
 * struct npu_op - one kind of command
 * @name: for the tracepoints
 * @check: at SUBMIT: 0, or the errno that refuses the command; resolves
 *	the operands into the job
 * @run: a turn of it: 0 or -errno when it is over, else an NPU_RUN_*
 */
struct npu_op {
	const char *name;
	int (*check)(struct npu_context *ctx, struct npu_stream *stream,
		     struct npu_job *job);
	int (*run)(struct npu_stream *stream, struct npu_job *job, u64 *budget);
};

/* Are both bits of @pair set in @flags? */
static bool npu_both(u32 flags, u32 pair)
{
	return (flags & pair) == pair;
}

/* Whole pages of a pageable operand: what pinning it holds. */
static u64 npu_user_span(u64 addr, u64 len)
{
	return PAGE_ALIGN(addr + len) - ALIGN_DOWN(addr, PAGE_SIZE);
}

/*
 * A pageable operand of @len bytes at @addr: not longer than a
 * registration may be, inside the user address space (else -EFAULT, as
 * for an unmapped one). The caller checked that it does not wrap.
 */
static int npu_job_user(struct npu_job *job, u64 addr, u64 len)
{
	u64 end;

	if (len > NPU_HOST_MAX_LENGTH)
		return -EINVAL;
	if (check_add_overflow(addr, len, &end) || end > TASK_SIZE)
		return -EFAULT;
	job->user_pin += npu_user_span(addr, len);
	return 0;
}

/*
 * Check the operands' address ranges, @dst_len and @src_len bytes from
 * their starts, kept in @dst_span/@src_span; take the host registrations.
 * A pageable operand is only counted here (@user_pin); SUBMIT pins it
 * once it has room for it.
 */
static int npu_job_host_spans(struct npu_context *ctx, struct npu_job *job,
			      u64 dst_len, u64 src_len)
{
	struct npu_cmd *cmd = &job->cmd;
	int ret;

	job->dst_span = dst_len;
	job->src_span = src_len;
	if (cmd->flags & NPU_CMD_DST_USER) {
		ret = npu_job_user(job, cmd->dst, dst_len);
		if (ret)
			return ret;
	}
	if (cmd->flags & NPU_CMD_SRC_USER) {
		ret = npu_job_user(job, cmd->src, src_len);
		if (ret)
			return ret;
	}
	if (cmd->flags & NPU_CMD_DST_HOST) {
		job->dst_reg = npu_host_reg_get(ctx, cmd->dst, dst_len);
		if (!job->dst_reg)
			return -ENXIO;
		if (job->dst_reg->flags & NPU_HOST_READONLY)
			return -EACCES;
	}
	if (cmd->flags & NPU_CMD_SRC_HOST) {
		job->src_reg = npu_host_reg_get(ctx, cmd->src, src_len);
		if (!job->src_reg)
			return -ENXIO;
	}
	return 0;
}

/* The same for a command whose operands are @len bytes each. */
static int npu_job_host(struct npu_context *ctx, struct npu_job *job, u64 len)
{
	return npu_job_host_spans(ctx, job, len, len);
}

/* Resolve a COPY's peer fd to another device's context of this process. */
static int npu_job_peer(struct npu_context *ctx, struct npu_job *job)
{
	u64 fd = job->cmd.value;

	if (fd > INT_MAX)
		return -EBADF;
	job->peer = npu_context_get_fd(fd);
	if (!job->peer)
		return -EBADF;
	if (job->peer->npu == ctx->npu)
		return -EBADF;
	if (!test_bit(job->peer->npu->index, &ctx->peers))
		return -EPERM;
	return 0;
}

/*
 * The bytes from the first of @height rows of @width bytes, @pitch apart,
 * to the end of the last, at @addr: into *@span; false if it wraps or the
 * pitch is shorter than a row.
 */
static bool npu_span_2d(u64 addr, u64 width, u64 pitch, u64 height, u64 *span)
{
	u64 end;

	return pitch >= width &&
	       !check_mul_overflow(pitch, height - 1, span) &&
	       !check_add_overflow(*span, width, span) &&
	       !check_add_overflow(addr, *span, &end);
}

/* COPY and COPY_2D: operand spans of @dst_span and @src_span bytes. */
static int npu_check_copy_spans(struct npu_context *ctx, struct npu_job *job,
				u64 dst_span, u64 src_span, u32 op_flags)
{
	struct npu_cmd *cmd = &job->cmd;

	if (cmd->flags & ~(NPU_COPY_FLAGS | op_flags) ||
	    hweight32(cmd->flags & NPU_DST_SPACES) > 1 ||
	    hweight32(cmd->flags & NPU_SRC_SPACES) > 1)
		return -EINVAL;
	if (cmd->flags & (NPU_CMD_DST_PEER | NPU_CMD_SRC_PEER)) {
		int ret = npu_job_peer(ctx, job);

		if (ret)
			return ret;
	} else if (cmd->value) {
		return -EINVAL;
	}
	return npu_job_host_spans(ctx, job, dst_span, src_span);
}

static int npu_check_copy(struct npu_context *ctx, struct npu_stream *stream,
			  struct npu_job *job)
{
	struct npu_cmd *cmd = &job->cmd;
	u64 end;

	if (!cmd->length ||
	    check_add_overflow(cmd->dst, cmd->length, &end) ||
	    check_add_overflow(cmd->src, cmd->length, &end))
		return -EINVAL;
	return npu_check_copy_spans(ctx, job, cmd->length, cmd->length, 0);
}

/* REDUCE: COPY's operands (no pageable one), whole aligned elements. */
static int npu_check_reduce(struct npu_context *ctx, struct npu_stream *stream,
			    struct npu_job *job)
{
	struct npu_cmd *cmd = &job->cmd;
	u32 elem = npu_reduce_elem(cmd->flags);
	u64 end;

	if (!elem || cmd->flags & NPU_CMD_USER || !cmd->length ||
	    !IS_ALIGNED(cmd->length, elem) || !IS_ALIGNED(cmd->dst, elem) ||
	    !IS_ALIGNED(cmd->src, elem) ||
	    check_add_overflow(cmd->dst, cmd->length, &end) ||
	    check_add_overflow(cmd->src, cmd->length, &end))
		return -EINVAL;
	return npu_check_copy_spans(ctx, job, cmd->length, cmd->length,
				    NPU_REDUCE_OP_MASK | NPU_REDUCE_TYPE_MASK);
}

static int npu_check_copy_2d(struct npu_context *ctx, struct npu_stream *stream,
			     struct npu_job *job)
{
	struct npu_cmd *cmd = &job->cmd;
	u64 dst_span, src_span;

	if (!cmd->length || !cmd->height ||
	    cmd->height > NPU_COPY_2D_MAX_HEIGHT ||
	    !npu_span_2d(cmd->dst, cmd->length, cmd->dst_pitch, cmd->height,
			 &dst_span) ||
	    !npu_span_2d(cmd->src, cmd->length, cmd->src_pitch, cmd->height,
			 &src_span))
		return -EINVAL;
	return npu_check_copy_spans(ctx, job, dst_span, src_span, 0);
}

/**
 * struct npu_copy_batch - a COPY_BATCH's copies, read at SUBMIT
 * @n: how many
 * @bytes: all of their lengths, for tracepoints
 * @copy: each copy as a row of the engine's row list, with the
 *	registrations of its host operands (a reference each)
 */
struct npu_copy_batch {
	u32 n;
	u64 bytes;
	struct npu_dma_row copy[];
};

/*
 * The registration of a host operand of @len bytes at @addr: the one the
 * previous copy used if it holds the range too (as a descriptor list's
 * copies mostly lie in one buffer), else a lookup. A reference either way.
 */
static struct npu_host_reg *npu_batch_reg(struct npu_context *ctx,
					  struct npu_host_reg *prev, u64 addr,
					  u64 len)
{
	if (prev && addr >= prev->addr && addr - prev->addr <= prev->size &&
	    len <= prev->size - (addr - prev->addr)) {
		npu_host_reg_hold(prev);
		return prev;
	}
	return npu_host_reg_get(ctx, addr, len);
}

/* Copy @i of a COPY_BATCH, read and checked as a COPY's operands. */
static int npu_batch_read(struct npu_context *ctx, struct npu_job *job,
			  u32 i)
{
	const struct npu_cmd *cmd = &job->cmd;
	struct npu_copy_batch *b = job->batch;
	struct npu_dma_row *c = &b->copy[i];
	struct npu_copy_desc d;
	u64 end;
	int ret;

	ret = copy_struct_from_user(&d, sizeof(d),
				    u64_to_user_ptr(cmd->src + (u64)i * cmd->value),
				    cmd->value);
	if (ret)
		return ret;
	if (!d.length || check_add_overflow(d.dst, d.length, &end) ||
	    check_add_overflow(d.src, d.length, &end))
		return -EINVAL;
	*c = (struct npu_dma_row){ .dst = d.dst, .src = d.src,
				   .len = d.length };
	/* From here on npu_job_free() drops what copy @i holds. */
	b->n = i + 1;
	b->bytes += d.length;
	if (cmd->flags & NPU_CMD_DST_HOST) {
		c->dst_reg = npu_batch_reg(ctx, i ? c[-1].dst_reg : NULL,
					   d.dst, d.length);
		if (!c->dst_reg)
			return -ENXIO;
		if (c->dst_reg->flags & NPU_HOST_READONLY)
			return -EACCES;
	}
	if (cmd->flags & NPU_CMD_SRC_HOST) {
		c->src_reg = npu_batch_reg(ctx, i ? c[-1].src_reg : NULL,
					   d.src, d.length);
		if (!c->src_reg)
			return -ENXIO;
	}
	return 0;
}

static int npu_check_copy_batch(struct npu_context *ctx,
				struct npu_stream *stream, struct npu_job *job)
{
	const struct npu_cmd *cmd = &job->cmd;
	u32 i;
	int ret;

	if (cmd->flags & ~(NPU_CMD_DST_HOST | NPU_CMD_SRC_HOST) || cmd->dst ||
	    !cmd->length || cmd->length > NPU_COPY_BATCH_MAX ||
	    cmd->value < NPU_COPY_DESC_SIZE_V1 ||
	    !IS_ALIGNED(cmd->value, sizeof(u64)))
		return -EINVAL;
	if (cmd->value > SZ_4K)	/* bounds the scan for a non-zero tail */
		return -E2BIG;
	job->batch = kvzalloc(struct_size(job->batch, copy, cmd->length),
			      GFP_KERNEL_ACCOUNT);
	if (!job->batch)
		return -ENOMEM;
	job->weight = cmd->length;
	for (i = 0; i < cmd->length; i++) {
		ret = npu_batch_read(ctx, job, i);
		if (ret)
			return ret;
		if (!(i % 64))
			cond_resched();
	}
	return 0;
}

/* The engine's phases of a RANDOM. */
enum npu_random_phase {
	NPU_RANDOM_COUNTER,	/* the counter, read where it is written back */
	NPU_RANDOM_READ,	/* the values given by address */
	NPU_RANDOM_WRITE,	/* the output */
	NPU_RANDOM_STORE,	/* the counter, advanced */
};

#define NPU_RANDOM_ROWS		4
/*
 * Budget bytes an output byte costs: 64 for a uniform one (a Philox block
 * per element), times 4 for the normal ones (a logarithm, a square root
 * and a sine besides) and 8 for a dropout byte (8 blocks). The output is
 * made a slice at a time, so that the VA spaces are let go as often as a
 * copy lets them go.
 */
#define NPU_RANDOM_COST		64
#define NPU_RANDOM_SLICE	SZ_1K

/**
 * struct npu_random_job - a RANDOM's state
 * @arg: the caller's struct npu_random, read at SUBMIT
 * @run: its values, once read, and the output's progress
 * @rows: the values given by address, in struct order
 * @nrows: how many
 * @in: the counter, then what @rows read, in that order
 * @ctr_out: the counter to store back, little-endian
 * @out_len: bytes of output, once the count is known
 * @phase: enum npu_random_phase
 */
struct npu_random_job {
	struct npu_random arg;
	struct npu_random_run run;
	struct npu_dma_row rows[NPU_RANDOM_ROWS];
	u32 nrows;
	u8 in[16 + 4 * sizeof(u64)];
	u8 ctr_out[16];
	u64 out_len;
	u32 phase;
};

/*
 * The output's bytes for @count elements of @func and @elem bytes at
 * @dst, into *@len; false if it would pass 2^64.
 */
static bool npu_random_out_len(u32 func, u32 elem, u64 count, u64 dst,
			       u64 *len)
{
	u64 end;

	if (func == NPU_RANDOM_DROPOUT)
		*len = count / 8 + !!(count % 8);
	else if (check_mul_overflow(count, (u64)elem, len))
		return false;
	return !check_add_overflow(dst, *len, &end);
}

/* A value at a device VA the engine reads first: @len bytes at @addr. */
static int npu_random_row(struct npu_random_job *rj, u64 addr, u64 len)
{
	u64 end;

	if (check_add_overflow(addr, len, &end))
		return -EINVAL;
	rj->rows[rj->nrows++] = (struct npu_dma_row){ .dst = addr, .len = len };
	return 0;
}

/* RANDOM's parameter @i: a value no wider than @elem bytes, or a VA. */
static int npu_random_param(struct npu_random_job *rj, u32 i, u32 elem)
{
	const struct npu_random *a = &rj->arg;

	if (a->flags & (NPU_RANDOM_PARAM0_ADDR << i))
		return npu_random_row(rj, a->param[i], elem);
	return elem < sizeof(u64) && a->param[i] >> (8 * elem) ? -EINVAL : 0;
}

static int npu_check_random(struct npu_context *ctx, struct npu_stream *stream,
			    struct npu_job *job)
{
	const struct npu_cmd *cmd = &job->cmd;
	struct npu_random_job *rj;
	struct npu_random *a;
	u32 elem;
	u64 end;
	int ret;

	if (cmd->flags || cmd->length || cmd->value < NPU_RANDOM_SIZE_V1)
		return -EINVAL;
	if (cmd->value > SZ_4K)
		return -E2BIG;
	rj = kzalloc(sizeof(*rj), GFP_KERNEL_ACCOUNT);
	if (!rj)
		return -ENOMEM;
	job->random = rj;
	a = &rj->arg;
	ret = copy_struct_from_user(a, sizeof(*a), u64_to_user_ptr(cmd->src),
				    cmd->value);
	if (ret)
		return ret;
	elem = npu_random_elem(a->type);
	if (!elem || a->__reserved || a->func > NPU_RANDOM_TRUNCATED_NORMAL ||
	    a->flags & ~(NPU_RANDOM_PARAM0_ADDR | NPU_RANDOM_PARAM1_ADDR |
			 NPU_RANDOM_SEED_ADDR | NPU_RANDOM_COUNT_ADDR))
		return -EINVAL;
	/* the integer types are UNIFORM's only; DROPOUT has one parameter */
	if (a->func != NPU_RANDOM_UNIFORM && a->type < NPU_RANDOM_TYPE_BF16)
		return -EINVAL;
	if (a->func == NPU_RANDOM_DROPOUT &&
	    (a->param[1] || a->flags & NPU_RANDOM_PARAM1_ADDR))
		return -EINVAL;
	if (check_add_overflow(a->counter, (u64)sizeof(rj->ctr_out), &end))
		return -EINVAL;
	ret = npu_random_param(rj, 0, elem);
	if (!ret && a->func != NPU_RANDOM_DROPOUT)
		ret = npu_random_param(rj, 1, elem);
	if (!ret && a->flags & NPU_RANDOM_SEED_ADDR)
		ret = npu_random_row(rj, a->seed, sizeof(u64));
	if (!ret && a->flags & NPU_RANDOM_COUNT_ADDR)
		ret = npu_random_row(rj, a->count, sizeof(u64));
	if (ret || a->flags & NPU_RANDOM_COUNT_ADDR)
		return ret;
	if (!npu_random_out_len(a->func, elem, a->count, cmd->dst, &rj->out_len))
		return -EINVAL;
	return 0;
}

/* The one-operand writes: a destination of @len bytes, @value up to @max. */
static int npu_check_write(struct npu_context *ctx, struct npu_job *job,
			   u64 len, u64 max)
{
	struct npu_cmd *cmd = &job->cmd;
	u64 end;

	if (cmd->flags & ~NPU_DST_FLAGS || npu_both(cmd->flags, NPU_DST_FLAGS) ||
	    cmd->src || cmd->value > max ||
	    check_add_overflow(cmd->dst, len, &end))
		return -EINVAL;
	return npu_job_host(ctx, job, len);
}

static int npu_check_memset(struct npu_context *ctx, struct npu_stream *stream,
			    struct npu_job *job)
{
	if (!job->cmd.length)
		return -EINVAL;
	return npu_check_write(ctx, job, job->cmd.length, U8_MAX);
}

static int npu_check_fill32(struct npu_context *ctx, struct npu_stream *stream,
			    struct npu_job *job)
{
	struct npu_cmd *cmd = &job->cmd;

	if (!cmd->length || !IS_ALIGNED(cmd->dst | cmd->length, sizeof(u32)))
		return -EINVAL;
	return npu_check_write(ctx, job, cmd->length, U32_MAX);
}

static int npu_check_write_value(struct npu_context *ctx,
				 struct npu_stream *stream, struct npu_job *job)
{
	struct npu_cmd *cmd = &job->cmd;

	if (cmd->length || !IS_ALIGNED(cmd->dst, sizeof(u64)))
		return -EINVAL;
	return npu_check_write(ctx, job, sizeof(u64), U64_MAX);
}

static int npu_check_timestamp(struct npu_context *ctx,
			       struct npu_stream *stream, struct npu_job *job)
{
	struct npu_cmd *cmd = &job->cmd;

	if (cmd->length || !IS_ALIGNED(cmd->dst, sizeof(u64)))
		return -EINVAL;
	return npu_check_write(ctx, job, sizeof(u64), 0);
}

static int npu_check_wait_value(struct npu_context *ctx,
				struct npu_stream *stream, struct npu_job *job)
{
	struct npu_cmd *cmd = &job->cmd;

	if (cmd->flags & ~(NPU_CMD_SRC_HOST | NPU_CMD_SRC_USER |
			   NPU_WAIT_COND_MASK) ||
	    npu_both(cmd->flags, NPU_CMD_SRC_HOST | NPU_CMD_SRC_USER) ||
	    cmd->dst || cmd->length || !IS_ALIGNED(cmd->src, sizeof(u64)))
		return -EINVAL;
	return npu_job_host(ctx, job, sizeof(u64));
}

static int npu_check_wait_stream(struct npu_context *ctx,
				 struct npu_stream *stream, struct npu_job *job)
{
	struct npu_cmd *cmd = &job->cmd;

	if (cmd->flags || cmd->dst || cmd->length > U32_MAX ||
	    cmd->src == stream->id || cmd->src > U32_MAX)
		return -EINVAL;
	job->wait = npu_stream_get(ctx, cmd->src);
	return job->wait ? 0 : -ENOENT;
}

static int npu_check_prefetch(struct npu_context *ctx,
			      struct npu_stream *stream, struct npu_job *job)
{
	struct npu_cmd *cmd = &job->cmd;
	u64 end;

	if (cmd->flags || cmd->src || cmd->value || !cmd->length ||
	    check_add_overflow(cmd->dst, cmd->length, &end))
		return -EINVAL;
	return 0;
}

/* The operands of @job as the engine reaches them. */
static void npu_cmd_operands(struct npu_stream *stream, struct npu_job *job,
			     struct npu_dma_operand *dst,
			     struct npu_dma_operand *src)
{
	const struct npu_cmd *cmd = &job->cmd;

	*dst = (struct npu_dma_operand){
		.addr = cmd->dst, .reg = job->dst_reg, .write = true,
		.ctx = cmd->flags & NPU_CMD_DST_PEER ? job->peer : stream->ctx,
	};
	*src = (struct npu_dma_operand){
		.addr = cmd->src, .reg = job->src_reg,
		.ctx = cmd->flags & NPU_CMD_SRC_PEER ? job->peer : stream->ctx,
	};
}

/* One operand, @len bytes of it from where the last turn left off. */
static int npu_run_one(struct npu_stream *stream, struct npu_job *job,
		       const struct npu_dma_operand *op, u64 len, npu_dma_fn fn,
		       void *arg, u64 *budget)
{
	const struct npu_dma_shape shape = { .width = len, .height = 1 };

	return npu_dma_move(stream, job, op, NULL, &shape, fn, arg, budget);
}

/* The destination alone, @len bytes of it: the one-operand writes. */
static int npu_run_dst(struct npu_stream *stream, struct npu_job *job,
		       u64 len, npu_dma_fn fn, void *arg, u64 *budget)
{
	struct npu_dma_operand dst, src;

	npu_cmd_operands(stream, job, &dst, &src);
	return npu_run_one(stream, job, &dst, len, fn, arg, budget);
}

static int npu_run_copy(struct npu_stream *stream, struct npu_job *job,
			u64 *budget)
{
	const struct npu_cmd *cmd = &job->cmd;
	const struct npu_dma_shape shape = {
		.width = cmd->length,
		.height = cmd->op == NPU_OP_COPY_2D ? cmd->height : 1,
		.dst_pitch = cmd->dst_pitch, .src_pitch = cmd->src_pitch,
	};
	struct npu_dma_operand dst, src;

	npu_cmd_operands(stream, job, &dst, &src);
	return npu_dma_move(stream, job, &dst, &src, &shape, npu_dma_copy, NULL,
			    budget);
}

static int npu_run_reduce(struct npu_stream *stream, struct npu_job *job,
			  u64 *budget)
{
	u32 flags = job->cmd.flags;
	const struct npu_dma_shape shape = {
		.width = job->cmd.length, .height = 1,
		.elem = npu_reduce_elem(flags),
	};
	struct npu_dma_operand dst, src;

	npu_cmd_operands(stream, job, &dst, &src);
	return npu_dma_move(stream, job, &dst, &src, &shape, npu_reduce_fn,
			    &flags, budget);
}

/*
 * The copies in array order, as the engine walks a descriptor list: one
 * row each, from where the last turn left off (@job->row the copy).
 */
static int npu_run_copy_batch(struct npu_stream *stream, struct npu_job *job,
			      u64 *budget)
{
	const struct npu_dma_shape shape = { .height = job->batch->n,
					     .rows = job->batch->copy };
	const struct npu_dma_operand dst = { .write = true, .ctx = stream->ctx };
	const struct npu_dma_operand src = { .ctx = stream->ctx };

	return npu_dma_move(stream, job, &dst, &src, &shape, npu_dma_copy, NULL,
			    budget);
}

static void npu_set_fn(void *dst, const void *src, size_t n, void *arg)
{
	memset(dst, *(u8 *)arg, n);
}

static int npu_run_memset(struct npu_stream *stream, struct npu_job *job,
			  u64 *budget)
{
	u8 fill = job->cmd.value;

	return npu_run_dst(stream, job, job->cmd.length, npu_set_fn, &fill,
			   budget);
}

/* FILL32: @dst and @n are 4-byte aligned (pieces end at pages or the end). */
static void npu_fill32_fn(void *dst, const void *src, size_t n, void *arg)
{
	memset32(dst, *(u32 *)arg, n / sizeof(u32));
}

static int npu_run_fill32(struct npu_stream *stream, struct npu_job *job,
			  u64 *budget)
{
	u32 fill = job->cmd.value;

	return npu_run_dst(stream, job, job->cmd.length, npu_fill32_fn, &fill,
			   budget);
}

static void npu_write_fn(void *dst, const void *src, size_t n, void *arg)
{
	WRITE_ONCE(*(u64 *)dst, *(u64 *)arg);
}

static int npu_run_write_value(struct npu_stream *stream, struct npu_job *job,
			       u64 *budget)
{
	return npu_run_dst(stream, job, sizeof(u64), npu_write_fn,
			   &job->cmd.value, budget);
}

/* The device clock as the engine gets here. */
static int npu_run_timestamp(struct npu_stream *stream, struct npu_job *job,
			     u64 *budget)
{
	u64 stamp = npu_device_clock(stream->ctx->npu);

	return npu_run_dst(stream, job, sizeof(u64), npu_write_fn, &stamp,
			   budget);
}

/* WAIT_VALUE reads through its only operand into *arg. */
static void npu_read_fn(void *mem, const void *unused, size_t n, void *arg)
{
	*(u64 *)arg = READ_ONCE(*(u64 *)mem);
}

/*
 * The value in one piece: npu_cmd_load()'s reads are aligned to their
 * size, so no page or chunk splits one, and a read a turn's end
 * interrupts starts again from its first byte.
 */
static void npu_load_fn(void *mem, const void *unused, size_t n, void *arg)
{
	memcpy(arg, mem, n);
}

/**
 * npu_cmd_load() - read a value of @stream's context for a model's step
 * @stream: the stream running the step
 * @job: the step (its progress)
 * @addr: a device VA, aligned to @len
 * @len: bytes, at most 8
 * @val: out, the value (little-endian bytes, zero-extended)
 * @budget: the turn's
 *
 * Return: 0, a fault, or an NPU_RUN_* to come back for.
 */
int npu_cmd_load(struct npu_stream *stream, struct npu_job *job, u64 addr,
		 u32 len, u64 *val, u64 *budget)
{
	const struct npu_dma_operand src = { .addr = addr, .ctx = stream->ctx };
	__le64 v = 0;
	int ret;

	job->row = 0;
	job->col = 0;
	ret = npu_run_one(stream, job, &src, len, npu_load_fn, &v, budget);
	*val = le64_to_cpu(v);
	return ret;
}

static bool npu_wait_done(u64 cur, const struct npu_cmd *cmd)
{
	switch (cmd->flags & NPU_WAIT_COND_MASK) {
	case NPU_WAIT_GEQ:
		return cur >= cmd->value;
	case NPU_WAIT_EQ:
		return cur == cmd->value;
	case NPU_WAIT_AND:
		return cur & cmd->value;
	default:
		return ~(cur | cmd->value);
	}
}

/* A WAIT_VALUE: 0 once the value is there, NPU_RUN_POLL before, or a fault. */
static int npu_run_wait_value(struct npu_stream *stream, struct npu_job *job,
			      u64 *budget)
{
	struct npu_dma_operand dst, src;
	u64 cur;
	int ret;

	npu_cmd_operands(stream, job, &dst, &src);
	/* every look reads the value anew */
	job->row = 0;
	job->col = 0;
	ret = npu_run_one(stream, job, &src, sizeof(u64), npu_read_fn, &cur,
			  budget);
	if (ret)
		return ret;
	return npu_wait_done(cur, &job->cmd) ? 0 : NPU_RUN_POLL;
}

/*
 * A WAIT_STREAM: parks the stream until the awaited one gets there. A
 * wait with a limit (@length ms) fails with -ETIME once it has been at
 * the head that long.
 */
static int npu_run_wait_stream(struct npu_stream *stream, struct npu_job *job,
			       u64 *budget)
{
	const struct npu_cmd *cmd = &job->cmd;

	if (cmd->length && !job->timed) {
		job->deadline = jiffies + msecs_to_jiffies(cmd->length);
		job->timed = true;
	}
	return npu_stream_wait_for(stream, job->wait, cmd->value,
				   job->timed ? &job->deadline : NULL);
}

/* PREFETCH only translates, faulting mirrored pages in for reading. */
static void npu_touch_fn(void *mem, const void *unused, size_t n, void *arg)
{
}

static int npu_run_prefetch(struct npu_stream *stream, struct npu_job *job,
			    u64 *budget)
{
	struct npu_dma_operand dst, src;

	npu_cmd_operands(stream, job, &dst, &src);
	dst.write = false;
	return npu_run_one(stream, job, &dst, job->cmd.length, npu_touch_fn,
			   NULL, budget);
}

/* @n bytes between the engine and a buffer, @off into it (and on by @n). */
struct npu_bytes {
	u8 *buf;
	u64 off;
};

static void npu_get_fn(void *mem, const void *unused, size_t n, void *arg)
{
	struct npu_bytes *b = arg;

	memcpy(b->buf + b->off, mem, n);
	b->off += n;
}

static void npu_put_fn(void *mem, const void *unused, size_t n, void *arg)
{
	struct npu_bytes *b = arg;

	memcpy(mem, b->buf + b->off, n);
	b->off += n;
}

/* @n little-endian bytes at *@p, and *@p past them. */
static u64 npu_le_bytes(const u8 **p, u32 n)
{
	u64 v = 0;
	u32 i;

	for (i = 0; i < n; i++)
		v |= (u64)(*p)[i] << (8 * i);
	*p += n;
	return v;
}

/* RANDOM's values as read: the run set up, the counter to store made. */
static int npu_random_start(struct npu_stream *stream, struct npu_job *job)
{
	struct npu_random_job *rj = job->random;
	const struct npu_random *a = &rj->arg;
	struct npu_random_run *r = &rj->run;
	u32 elem = npu_random_elem(a->type), i;
	const u8 *p = rj->in;
	u64 lo, hi;

	r->func = a->func;
	r->type = a->type;
	r->ctr[0] = npu_le_bytes(&p, sizeof(u64));
	r->ctr[1] = npu_le_bytes(&p, sizeof(u64));
	for (i = 0; i < 2; i++)
		r->param[i] = a->flags & (NPU_RANDOM_PARAM0_ADDR << i) ?
			      npu_le_bytes(&p, elem) : a->param[i];
	r->seed = a->flags & NPU_RANDOM_SEED_ADDR ?
		  npu_le_bytes(&p, sizeof(u64)) : a->seed;
	r->count = a->flags & NPU_RANDOM_COUNT_ADDR ?
		   npu_le_bytes(&p, sizeof(u64)) : a->count;
	if (!npu_random_out_len(r->func, elem, r->count, job->cmd.dst,
				&rj->out_len))
		return npu_dma_fault(stream, a->count, false, false,
				     "a random count whose output wraps");
	lo = r->ctr[0] + r->count;
	hi = r->ctr[1] + (lo < r->count);
	for (i = 0; i < 8; i++) {
		rj->ctr_out[i] = lo >> (8 * i);
		rj->ctr_out[8 + i] = hi >> (8 * i);
	}
	return 0;
}

/* The next phase of a RANDOM, from its first byte. */
static void npu_random_next(struct npu_job *job)
{
	job->random->phase++;
	job->row = 0;
	job->col = 0;
}

/* Budget bytes a byte of @func's output costs. */
static u64 npu_random_cost(u32 func)
{
	switch (func) {
	case NPU_RANDOM_DROPOUT:
		return NPU_RANDOM_COST * 8;
	case NPU_RANDOM_UNIFORM:
		return NPU_RANDOM_COST;
	default:
		return NPU_RANDOM_COST * 4;
	}
}

/* The output, a slice at a time, from where the last turn left it. */
static int npu_random_write(struct npu_stream *stream, struct npu_job *job,
			    u64 *budget)
{
	struct npu_random_job *rj = job->random;
	const struct npu_dma_operand op = { .addr = job->cmd.dst,
					    .ctx = stream->ctx, .write = true };
	u64 cost = npu_random_cost(rj->run.func), slice, left;
	int ret;

	if (!rj->out_len)
		return 0;
	do {
		slice = min_t(u64, *budget / cost, NPU_RANDOM_SLICE);
		if (!slice)
			return NPU_RUN_YIELD;
		left = slice;
		rj->run.off = job->col;
		ret = npu_run_one(stream, job, &op, rj->out_len, npu_random_fn,
				  &rj->run, &left);
		*budget -= min(*budget, (slice - left) * cost);
	} while (ret == NPU_RUN_YIELD);
	return ret;
}

/*
 * A RANDOM: reads its counter (through a writable operand: a counter the
 * engine could not store back faults before any output is written) and
 * the values given by address, writes the output, then stores the counter
 * advanced, in one turn (it is written whole or, faulting, not at all
 * unless its pages change meanwhile); each phase from where the last turn
 * left it.
 */
static int npu_run_random(struct npu_stream *stream, struct npu_job *job,
			  u64 *budget)
{
	struct npu_random_job *rj = job->random;
	const struct npu_dma_operand counter = { .addr = rj->arg.counter,
						 .ctx = stream->ctx,
						 .write = true };
	const struct npu_dma_operand values = { .ctx = stream->ctx };
	const struct npu_dma_shape rows = { .height = rj->nrows,
					    .rows = rj->rows };
	struct npu_bytes b = { .buf = rj->in, .off = job->col };
	u64 i;
	int ret;

	switch (rj->phase) {
	case NPU_RANDOM_COUNTER:
		ret = npu_run_one(stream, job, &counter, sizeof(rj->ctr_out),
				  npu_get_fn, &b, budget);
		if (ret)
			return ret;
		npu_random_next(job);
		fallthrough;
	case NPU_RANDOM_READ:
		b.off = sizeof(rj->ctr_out) + job->col;
		for (i = 0; i < job->row; i++)
			b.off += rj->rows[i].len;
		ret = rj->nrows ? npu_dma_move(stream, job, &values, NULL,
					       &rows, npu_get_fn, &b, budget) : 0;
		if (!ret)
			ret = npu_random_start(stream, job);
		if (ret)
			return ret;
		npu_random_next(job);
		fallthrough;
	case NPU_RANDOM_WRITE:
		ret = npu_random_write(stream, job, budget);
		if (ret)
			return ret;
		npu_random_next(job);
		fallthrough;
	default:
		if (!job->col && *budget < sizeof(rj->ctr_out))
			return NPU_RUN_YIELD;
		b = (struct npu_bytes){ .buf = rj->ctr_out, .off = job->col };
		return npu_run_one(stream, job, &counter, sizeof(rj->ctr_out),
				   npu_put_fn, &b, budget);
	}
}

/* A RANDOM's task, for a model's run to copy a model's into. */
struct npu_random_job *npu_random_job_alloc(void)
{
	return kmalloc(sizeof(struct npu_random_job), GFP_KERNEL_ACCOUNT);
}

/* @src as MODEL_CREATE checked it: where a run of it starts. */
void npu_random_job_copy(struct npu_random_job *dst,
			 const struct npu_random_job *src)
{
	*dst = *src;
}

static const struct npu_op npu_ops[] = {
	[NPU_OP_COPY] = { "copy", npu_check_copy, npu_run_copy },
	[NPU_OP_MEMSET] = { "memset", npu_check_memset, npu_run_memset },
	[NPU_OP_WRITE_VALUE] = { "write_value", npu_check_write_value,
				 npu_run_write_value },
	[NPU_OP_WAIT_VALUE] = { "wait_value", npu_check_wait_value,
				npu_run_wait_value },
	[NPU_OP_WAIT_STREAM] = { "wait_stream", npu_check_wait_stream,
				 npu_run_wait_stream },
	[NPU_OP_TIMESTAMP] = { "timestamp", npu_check_timestamp,
			       npu_run_timestamp },
	[NPU_OP_COPY_2D] = { "copy_2d", npu_check_copy_2d, npu_run_copy },
	[NPU_OP_FILL32] = { "fill32", npu_check_fill32, npu_run_fill32 },
	[NPU_OP_PREFETCH] = { "prefetch", npu_check_prefetch,
			      npu_run_prefetch },
	[NPU_OP_COPY_BATCH] = { "copy_batch", npu_check_copy_batch,
				npu_run_copy_batch },
	[NPU_OP_REDUCE] = { "reduce", npu_check_reduce, npu_run_reduce },
	[NPU_OP_RANDOM] = { "random", npu_check_random, npu_run_random },
	[NPU_OP_MODEL] = { "model", npu_model_check, npu_model_run },
	[NPU_OP_KERNEL] = { "kernel", npu_kernel_check, npu_kernel_run },
};

static const struct npu_op *npu_op(u32 op)
{
	return op < ARRAY_SIZE(npu_ops) && npu_ops[op].run ? &npu_ops[op] : NULL;
}

/**
 * npu_cmd_size() - the element size of a command array
 * @cmd_size: as the caller gave it: 0 for NPU_CMD_SIZE_V1
 * @size: out, the element size
 *
 * Return: 0, -EINVAL under NPU_CMD_SIZE_V1 or not a multiple of 8,
 * -E2BIG over 4096 (which bounds the scan for a non-zero tail).
 */
int npu_cmd_size(u32 cmd_size, u32 *size)
{
	*size = cmd_size ? cmd_size : NPU_CMD_SIZE_V1;
	if (*size < NPU_CMD_SIZE_V1 || !IS_ALIGNED(*size, sizeof(u64)))
		return -EINVAL;
	return *size > SZ_4K ? -E2BIG : 0;
}

/*
 * The common case of npu_cmd_read(), an aligned element of this struct's
 * size: eight word loads. A synchronous copy reads one command per call,
 * and copy_from_user() of 64 bytes is a 'rep movsb', which costs more
 * than the loads where string instructions start slowly (and where the
 * bench runs: an emulator moves it a byte at a time).
 */
static int npu_cmd_read_words(struct npu_cmd *cmd, const void __user *ucmd)
{
	const u64 __user *src = ucmd;
	u64 *dst = (u64 *)cmd;
	unsigned int i;

	BUILD_BUG_ON(sizeof(*cmd) % sizeof(u64));
	might_fault();
	if (!user_access_begin(ucmd, sizeof(*cmd)))
		return -EFAULT;
	for (i = 0; i < sizeof(*cmd) / sizeof(u64); i++)
		unsafe_get_user(dst[i], &src[i], fault);
	user_access_end();
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

/**
 * npu_cmd_read() - read command @i of an array of @cmd_size-byte elements
 * @cmd: out, the command
 * @cmds: user pointer to the array (SUBMIT's, MODEL_CREATE's)
 * @cmd_size: bytes of each element, checked by the caller
 * @i: which one
 *
 * As copy_struct_from_user() reads an argument struct: a shorter element
 * gets zeroes, a longer one must have a zero tail.
 *
 * Return: 0, -EFAULT, -E2BIG.
 */
int npu_cmd_read(struct npu_cmd *cmd, u64 cmds, u32 cmd_size, unsigned int i)
{
	void __user *ucmd = u64_to_user_ptr(cmds + (u64)i * cmd_size);

	if (cmd_size == sizeof(*cmd) &&
	    IS_ALIGNED((unsigned long)ucmd, sizeof(u64)))
		return npu_cmd_read_words(cmd, ucmd);
	return copy_struct_from_user(cmd, sizeof(*cmd), ucmd, cmd_size);
}

/**
 * npu_cmd_check() - what SUBMIT asks of one command
 * @ctx: the submitting context
 * @stream: the stream it goes to
 * @job: the command read from the caller, zeroed otherwise
 *
 * Return: 0 with the operands resolved into @job (npu_job_free() drops
 * them), or -EINVAL, -EFAULT, -E2BIG, -ENOMEM, -ENXIO, -EACCES, -EBADF,
 * -EPERM, -ENOENT.
 */
int npu_cmd_check(struct npu_context *ctx, struct npu_stream *stream,
		  struct npu_job *job)
{
	const struct npu_cmd *cmd = &job->cmd;
	const struct npu_op *op = npu_op(cmd->op);

	if (!op)
		return -EINVAL;
	/* Only COPY_2D has a shape. */
	if (cmd->op != NPU_OP_COPY_2D &&
	    (cmd->dst_pitch || cmd->src_pitch || cmd->height))
		return -EINVAL;
	/* Copies are most of the commands: no retpoline for them. */
	return INDIRECT_CALL_1(op->check, npu_check_copy, ctx, stream, job);
}

/**
 * npu_cmd_run() - a turn of the command at the head of @stream
 * @stream: the stream
 * @job: its head command
 * @budget: bytes the turn may still move
 *
 * Device pages come into being on their first write: they are charged to
 * the memory cgroup of the context whose mapping is written, as if its
 * process had touched them (the engine itself has none).
 *
 * Return: 0 or -errno when the command is over, else an NPU_RUN_*.
 */
int npu_cmd_run(struct npu_stream *stream, struct npu_job *job, u64 *budget)
{
	struct npu_context *written = job->cmd.flags & NPU_CMD_DST_PEER ?
				      job->peer : stream->ctx;
	const struct npu_op *op = npu_op(job->cmd.op);
	struct mem_cgroup *old_memcg;
	int ret;

	old_memcg = set_active_memcg(written->memcg);
	/* Copies are most of the commands: no retpoline for them. */
	ret = INDIRECT_CALL_1(op->run, npu_run_copy, stream, job, budget);
	set_active_memcg(old_memcg);
	return ret;
}

/* The operation's name, for tracepoints. */
const char *npu_cmd_name(u32 op)
{
	const struct npu_op *o = npu_op(op);

	return o ? o->name : "unknown";
}

/* Bytes a command moves or touches, for tracepoints. */
u64 npu_job_bytes(const struct npu_job *job)
{
	const struct npu_cmd *cmd = &job->cmd;

	switch (cmd->op) {
	case NPU_OP_COPY:
	case NPU_OP_MEMSET:
	case NPU_OP_FILL32:
	case NPU_OP_PREFETCH:
	case NPU_OP_REDUCE:
		return cmd->length;
	case NPU_OP_COPY_2D:
		return cmd->length * cmd->height;
	case NPU_OP_COPY_BATCH:
		return job->batch->bytes;
	case NPU_OP_RANDOM:
		return job->random->out_len;
	case NPU_OP_WAIT_STREAM:
	case NPU_OP_MODEL:
	case NPU_OP_KERNEL:
		return 0;
	default:
		return sizeof(u64);
	}
}

/**
 * npu_job_release() - the command's end: completed, dropped or refused
 * @job: the command
 *
 * Drops what it holds but its host operands (npu_job_release_host()); a
 * pageable operand is unpinned here, before its room is given back. The
 * struct itself is the caller's to free (or to reuse:
 * npu_stream_job_alloc()).
 */
void npu_job_release(struct npu_job *job)
{
	kfree(job->random);
	job->random = NULL;
	/* Most commands hold none of these: no calls for them. */
	if (job->kernel) {
		npu_kernel_job_free(job->kernel);
		job->kernel = NULL;
	}
	if (job->wait)
		npu_stream_put(job->wait);
	if (job->peer)
		npu_context_put(job->peer);
	if (job->queued) {
		atomic_long_sub(job->weight, &job->queued->queued);
		if (job->user_pin)
			atomic64_sub(job->user_pin, &job->queued->user_pinned);
		/* Every command ends here: wake only if a SUBMIT waits for room. */
		if (wq_has_sleeper(&job->queued->queue_wq))
			wake_up_all(&job->queued->queue_wq);
	}
}

/**
 * npu_job_release_host() - drop the command's registrations
 * @job: the command, released or not
 *
 * Apart from npu_job_release() because a completed command lets go of
 * them only after it is recorded complete: an UNREGISTER that waited for
 * them then finds the command complete (a STREAM_SYNC poll right after
 * it succeeds). A model's run goes here whole, with the registrations of
 * the step it was in; a step lets go of its own when it ends (so an
 * UNREGISTER may return while the run goes on: a later step that needs
 * the registration faults). Leaves @job without host operands.
 */
void npu_job_release_host(struct npu_job *job)
{
	u32 i;

	if (job->model) {
		npu_model_run_free(job->model);
		job->model = NULL;
	}
	/* a model's step: its task is the run's, the launch and blob the step's */
	if (job->kernel)
		npu_kernel_job_end(job->kernel);
	if (job->batch) {
		for (i = 0; i < job->batch->n; i++) {
			if (job->batch->copy[i].dst_reg)
				npu_host_reg_put(job->batch->copy[i].dst_reg);
			if (job->batch->copy[i].src_reg)
				npu_host_reg_put(job->batch->copy[i].src_reg);
		}
		kvfree(job->batch);
		job->batch = NULL;
	}
	if (job->dst_reg)
		npu_host_reg_put(job->dst_reg);
	if (job->src_reg)
		npu_host_reg_put(job->src_reg);
	job->dst_reg = NULL;
	job->src_reg = NULL;
}

/* A command SUBMIT refused or could not queue: released and freed. */
void npu_job_free(struct npu_job *job)
{
	npu_job_release(job);
	npu_job_release_host(job);
	kfree(job);
}
