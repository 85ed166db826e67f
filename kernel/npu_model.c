// SPDX-License-Identifier: GPL-2.0
/*
 * npu: models (DOC: npu models in the uapi header).
 *
 * A model is an array of steps, each a command as MODEL_CREATE checked
 * it, read-only from then on. A run (an NPU_OP_MODEL command) keeps its
 * own progress: which step, and that step as a job of its own (@sub)
 * that the commands' turns advance as they would a queued command. So a
 * model has no state a run changes, and runs of it may overlap.
 *
 * A step holds what its check resolved and may hold for the model's
 * life: a peer context, a RANDOM's task. Host registrations are not
 * held - a model would keep an UNREGISTER waiting for good - but looked
 * up again when the step starts; one that is gone faults the step.
 *
 * A SWITCH step is the model's own: it reads its index from device
 * memory and sets the step the run goes on at.
 */
#include <linux/kref.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <uapi/npu.h>

#include "npu_cmd.h"
#include "npu_dma.h"
#include "npu_drv.h"
#include "npu_host.h"
#include "npu_kernel.h"
#include "npu_model.h"
#include "npu_obj.h"
#include "npu_stream.h"

/**
 * struct npu_model_step - one command of a model
 * @cmd: the command as checked
 * @dst_span: bytes of a host destination from @cmd.dst (the registration
 *	that holds them is looked up when the step starts)
 * @src_span: the same for a host source
 * @peer: a peer operand's context (a reference), or NULL
 * @random: a RANDOM's task as read and checked, or NULL
 * @kernel: a KERNEL's task as read and checked (its argument blob), or NULL
 * @targets: a SWITCH's step indexes (@cmd.length of them), or NULL
 */
struct npu_model_step {
	struct npu_cmd cmd;
	u64 dst_span;
	u64 src_span;
	struct npu_context *peer;
	struct npu_random_job *random;
	struct npu_kernel_job *kernel;
	u32 *targets;
};

/**
 * struct npu_model - a list of commands the device keeps
 * @ref: held by the context's table and by each run
 * @random: some step is a RANDOM: a run needs a task of its own
 * @kernel: some step is a KERNEL: the same
 * @count: steps
 * @step: the steps, constant after MODEL_CREATE
 */
struct npu_model {
	struct kref ref;
	bool random;
	bool kernel;
	u32 count;
	struct npu_model_step step[] __counted_by(count);
};

/**
 * struct npu_model_run - an NPU_OP_MODEL command's progress
 * @model: the model (a reference)
 * @next: the step running, or the next to run
 * @started: @sub is step @next
 * @begun: a step started (the run's error, if any, is step @next's)
 * @sub: step @next as a command: its progress and its host registrations
 * @random: where a RANDOM step's task is copied for the run, or NULL
 * @kernel: where a KERNEL step's task is copied for the run, or NULL
 */
struct npu_model_run {
	struct npu_model *model;
	u32 next;
	bool started;
	bool begun;
	struct npu_job sub;
	struct npu_random_job *random;
	struct npu_kernel_job *kernel;
};

static void npu_model_free(struct kref *ref)
{
	struct npu_model *model = container_of(ref, struct npu_model, ref);
	u32 i;

	for (i = 0; i < model->count; i++) {
		if (model->step[i].peer)
			npu_context_put(model->step[i].peer);
		kfree(model->step[i].random);
		npu_kernel_job_free(model->step[i].kernel);
		kvfree(model->step[i].targets);
		/* Every put may sleep; a big model is a long loop. */
		if (!(i % 64))
			cond_resched();
	}
	kvfree(model);
}

static void npu_model_put(struct npu_model *model)
{
	kref_put(&model->ref, npu_model_free);
}

static void npu_model_get_obj(void *obj)
{
	struct npu_model *model = obj;

	kref_get(&model->ref);
}

/*
 * A SWITCH of a model of @count steps: its step indexes, read now and
 * charged to the memory cgroup; *@entries counts them against the
 * model's NPU_MODEL_MAX_CMDS.
 */
static int npu_model_switch_init(struct npu_model_step *step,
				 const struct npu_cmd *cmd, u32 count,
				 u64 *entries)
{
	u64 end, i;

	if (cmd->flags || cmd->dst || cmd->dst_pitch || cmd->src_pitch ||
	    cmd->height || !cmd->length || cmd->length > NPU_MODEL_MAX_CMDS ||
	    !IS_ALIGNED(cmd->src, sizeof(u32)) ||
	    check_add_overflow(cmd->src, (u64)sizeof(u32), &end))
		return -EINVAL;
	*entries += cmd->length;
	if (*entries > NPU_MODEL_MAX_CMDS)
		return -EINVAL;
	step->cmd = *cmd;
	step->targets = kvmalloc_array(cmd->length, sizeof(u32),
				       GFP_KERNEL_ACCOUNT);
	if (!step->targets)
		return -ENOMEM;
	if (copy_from_user(step->targets, u64_to_user_ptr(cmd->value),
			   cmd->length * sizeof(u32)))
		return -EFAULT;
	for (i = 0; i < cmd->length; i++)
		if (step->targets[i] > count)
			return -EINVAL;
	return 0;
}

/*
 * Check @cmd, a step of a model of @count, as SUBMIT would and keep what
 * a model may hold of it; what it may not (host registrations) is
 * dropped again.
 */
static int npu_model_step_init(struct npu_context *ctx,
			       struct npu_model_step *step,
			       const struct npu_cmd *cmd, u32 count, u64 *entries)
{
	struct npu_job job = { .cmd = *cmd };
	int ret;

	if (cmd->op == NPU_OP_SWITCH)
		return npu_model_switch_init(step, cmd, count, entries);
	/* A seqno of another stream, pinned pages, a nest: nothing to repeat. */
	if (cmd->op == NPU_OP_WAIT_STREAM || cmd->op == NPU_OP_COPY_BATCH ||
	    cmd->op == NPU_OP_MODEL ||
	    cmd->flags & (NPU_CMD_DST_USER | NPU_CMD_SRC_USER))
		return -EINVAL;
	/* No stream: the one check that names one (WAIT_STREAM's) is refused above. */
	ret = npu_cmd_check(ctx, NULL, &job);
	if (!ret) {
		step->cmd = job.cmd;
		step->dst_span = job.dst_span;
		step->src_span = job.src_span;
		swap(step->peer, job.peer);
		swap(step->random, job.random);
		swap(step->kernel, job.kernel);
	}
	npu_job_release(&job);
	npu_job_release_host(&job);
	return ret;
}

/*
 * The model is published once the answer is copied out. Its id is
 * reserved first, so that a context at max_models reads nothing.
 */
int npu_model_create_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_model_create_args *a = arg;
	struct npu_model_create *args = &a->uapi;
	struct npu_model *model;
	struct npu_cmd cmd;
	u32 cmd_size, i;
	u64 entries = 0;
	int ret;

	if (args->flags || args->__reserved || !args->count ||
	    args->count > NPU_MODEL_MAX_CMDS)
		return -EINVAL;
	ret = npu_cmd_size(args->cmd_size, &cmd_size);
	if (ret)
		return ret;
	model = kvzalloc(struct_size(model, step, args->count),
			 GFP_KERNEL_ACCOUNT);
	if (!model)
		return -ENOMEM;
	kref_init(&model->ref);
	model->count = args->count;
	ret = npu_obj_reserve(&ctx->objs, NPU_OBJ_MODEL, &args->model);
	if (ret) {
		npu_model_put(model);
		return ret;
	}
	for (i = 0; i < model->count; i++) {
		ret = npu_cmd_read(&cmd, args->cmds, cmd_size, i);
		if (!ret)
			ret = npu_model_step_init(ctx, &model->step[i], &cmd,
						  model->count, &entries);
		if (ret)
			goto fail;
		model->random |= !!model->step[i].random;
		model->kernel |= !!model->step[i].kernel;
		/* A long list is a long loop: preemptible, and killable. */
		if (!(i % 32)) {
			cond_resched();
			if (fatal_signal_pending(current)) {
				ret = -EINTR;
				goto fail;
			}
		}
	}
	a->model = model;
	return 0;
fail:
	npu_obj_abort(&ctx->objs, args->model, NPU_OBJ_MODEL);
	npu_model_put(model);
	return ret;
}

/* The ioctl table's finish of MODEL_CREATE. */
void npu_model_create_finish(struct npu_context *ctx, void *arg, int ret)
{
	struct npu_model_create_args *a = arg;

	if (!ret) {
		npu_obj_publish(&ctx->objs, a->uapi.model, NPU_OBJ_MODEL,
				a->model);
		return;
	}
	npu_obj_abort(&ctx->objs, a->uapi.model, NPU_OBJ_MODEL);
	npu_model_put(a->model);
}

int npu_model_destroy_ioctl(struct npu_context *ctx, void *arg)
{
	struct npu_model_destroy *args = arg;
	struct npu_model *model;

	if (args->flags || args->__reserved)
		return -EINVAL;
	model = npu_obj_remove(&ctx->objs, args->model, BIT(NPU_OBJ_MODEL),
			       NULL, NULL);
	if (!model)
		return -ENOENT;
	npu_model_put(model);
	return 0;
}

static void npu_model_remove(void *obj, enum npu_obj_type type, void *arg)
{
	npu_model_put(obj);
}

/*
 * The context's shutdown, after its streams stopped: the table's models
 * go, and with them the peer contexts they hold.
 */
void npu_models_release(struct npu_context *ctx)
{
	npu_obj_remove_each(&ctx->objs, BIT(NPU_OBJ_MODEL), npu_model_remove,
			    NULL);
}

/* NPU_OP_MODEL at SUBMIT: the model, and a run's state for it. */
int npu_model_check(struct npu_context *ctx, struct npu_stream *stream,
		    struct npu_job *job)
{
	const struct npu_cmd *cmd = &job->cmd;
	struct npu_model_run *run;
	struct npu_model *model;

	if (cmd->flags || cmd->dst || cmd->length || cmd->value ||
	    cmd->src > U32_MAX)
		return -EINVAL;
	run = kzalloc(sizeof(*run), GFP_KERNEL_ACCOUNT);
	if (!run)
		return -ENOMEM;
	/* Owned by the job from here: npu_job_release_host() frees it. */
	job->model = run;
	model = npu_obj_get(&ctx->objs, cmd->src, BIT(NPU_OBJ_MODEL),
			    npu_model_get_obj, NULL);
	if (!model)
		return -ENOENT;
	run->model = model;
	if (model->random) {
		run->random = npu_random_job_alloc();
		if (!run->random)
			return -ENOMEM;
	}
	if (model->kernel) {
		run->kernel = npu_kernel_job_alloc();
		if (!run->kernel)
			return -ENOMEM;
	}
	return 0;
}

/* The step running lets go of its host registrations. */
static void npu_model_step_end(struct npu_model_run *run)
{
	run->started = false;
	npu_job_release_host(&run->sub);
}

/*
 * Make step @run->next the run's @sub: a fresh job of the step's command,
 * with the registrations of its host operands looked up now. Return: 0,
 * or the fault of a host operand that no registration holds any more.
 */
static int npu_model_step_start(struct npu_stream *stream,
				struct npu_model_run *run)
{
	const struct npu_model_step *step = &run->model->step[run->next];
	const struct npu_cmd *cmd = &step->cmd;
	struct npu_context *ctx = stream->ctx;
	struct npu_job *sub = &run->sub;

	memset(sub, 0, sizeof(*sub));
	sub->cmd = *cmd;
	sub->peer = step->peer;
	sub->weight = 1;
	if (step->random) {
		npu_random_job_copy(run->random, step->random);
		sub->random = run->random;
	}
	if (step->kernel) {
		npu_kernel_job_copy(run->kernel, step->kernel);
		sub->kernel = run->kernel;
	}
	run->started = true;
	run->begun = true;
	if (cmd->flags & NPU_CMD_DST_HOST) {
		sub->dst_reg = npu_host_reg_get(ctx, cmd->dst, step->dst_span);
		if (!sub->dst_reg || sub->dst_reg->flags & NPU_HOST_READONLY)
			return npu_dma_fault(stream, cmd->dst, true, true,
					     "no writable registration");
	}
	if (cmd->flags & NPU_CMD_SRC_HOST) {
		sub->src_reg = npu_host_reg_get(ctx, cmd->src, step->src_span);
		if (!sub->src_reg)
			return npu_dma_fault(stream, cmd->src, true, false,
					     "no registration");
	}
	return 0;
}

/* A SWITCH step: its index read, *@next is where the run goes on. */
static int npu_model_switch(struct npu_stream *stream,
			    struct npu_model_run *run, u64 *budget, u32 *next)
{
	const struct npu_model_step *step = &run->model->step[run->next];
	u64 index;
	int ret;

	ret = npu_cmd_load(stream, &run->sub, step->cmd.src, sizeof(u32),
			   &index, budget);
	if (!ret)
		*next = step->targets[min(index, step->cmd.length - 1)];
	return ret;
}

/*
 * A turn of a run: its steps from where it is, each counting as a
 * command against the turn's budget. A step that yields, polls or waits
 * for a fault makes the run do the same, and goes on next turn; the first
 * that fails ends the run with its error.
 */
int npu_model_run(struct npu_stream *stream, struct npu_job *job, u64 *budget)
{
	struct npu_model_run *run = job->model;
	const struct npu_model *model = run->model;
	u32 next;
	int ret;

	while (run->next < model->count) {
		if (!run->started) {
			if (!*budget)
				return NPU_RUN_YIELD;
			ret = npu_model_step_start(stream, run);
			/* a launch names the run's command */
			run->sub.seqno = job->seqno;
			if (ret)
				return ret;
		}
		next = run->next + 1;
		if (model->step[run->next].targets)
			ret = npu_model_switch(stream, run, budget, &next);
		else
			ret = npu_cmd_run(stream, &run->sub, budget);
		if (ret > 0)
			return ret;
		npu_model_step_end(run);
		if (ret)
			return ret;
		run->next = next;
		*budget -= min_t(u64, *budget, NPU_STREAM_CMD_COST);
	}
	return 0;
}

/*
 * The step of @run that ended it with an error, counted from 1 (the step
 * it was at: a failed step ends the run there); 0 if it did not start.
 */
u32 npu_model_run_step(const struct npu_model_run *run)
{
	if (!run || !run->begun)
		return 0;
	return run->next + 1;
}

/* The run's end (completed, failed, dropped or refused at SUBMIT). */
void npu_model_run_free(struct npu_model_run *run)
{
	if (!run)
		return;
	if (run->started)
		npu_model_step_end(run);
	if (run->model)
		npu_model_put(run->model);
	kfree(run->random);
	kfree(run->kernel);
	kfree(run);
}
