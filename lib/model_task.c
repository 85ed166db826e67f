// SPDX-License-Identifier: MIT
/*
 * The tasks of a built model runtime instance: inspection
 * (aclmdlRIGetStreams, aclmdlRIGetTasksByStream, aclmdlRITaskGetType,
 * aclmdlRITaskGetSeqId, aclmdlRITaskGetParams,
 * aclmdlRIKernelTaskGetAttribute, aclmdlRIDebugPrint,
 * aclmdlRIDebugJsonPrint) and update (aclmdlRITaskSetParams,
 * aclmdlRITaskDisable, aclmdlRIUpdate).
 *
 * A model keeps its recording once built (model.c): the commands its
 * stream or streams recorded, with the host steps between them (EXTERNAL
 * event records and waits, host functions and callbacks). Its task table
 * lists them in launch order, a host step before the command it was
 * recorded in front of, each an
 * aclmdlRITask handle; a task's sequence id is its place in that order,
 * from 0, as the vendor numbers a captured model's tasks. npu runs a
 * model as one sequence (a capture across streams is one list), so a
 * model has one stream: the table's own handle (ACL_OBJ_MODEL_STREAM), which
 * aclmdlRIGetTasksByStream takes; it is no stream of aclrtCreateStream.
 *
 * aclmdlRITaskSetParams changes the recorded command at once - a kernel
 * task's recorded launch in place (kernel.c acl_kernel_task_set()) - and
 * aclmdlRITaskGetParams shows it; aclmdlRITaskDisable marks a task;
 * aclmdlRIUpdate has model.c make new driver models of the recording
 * without the disabled tasks, which the runs queued from then on run. A
 * task group's update (model_group.c) changes a recorded launch and has
 * the driver models made anew at once (acl_mtab_change()), as does
 * aclrtTaskUpdateAsync of a random-number task (acl_mtab_patch()) or a
 * kernel task (acl_mtab_kernel(): its function and blocks, kernel.c
 * acl_kernel_task_entry()).
 * As the vendor's (api_impl.cc, capture_model_utils.cc, memory_task.cc):
 * the table is READY, UPDATING after a change, READY again after the
 * update; a change that fails leaves it FAULT, which takes no change and
 * no update any more (107040); no change while a run of the model is
 * queued and not done (107040); only a captured graph's tasks change.
 *
 * Locks: tab->lock protects the table and, while the table is open (its
 * model not destroyed), the model's recording; model.c's m->lock and a
 * stream's lock may be taken inside it, never around it. No stream is let
 * go under it (model.c's busy hook only polls).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "context.h"
#include "device.h"
#include "error.h"
#include "event.h"
#include "handle.h"
#include "model_task.h"
#include "query.h"
#include "snapstate.h"
#include "stream.h"

enum acl_mtab_status {
	ACL_MTAB_READY,			/* runs as built or last updated */
	ACL_MTAB_UPDATING,		/* changed: aclmdlRIUpdate takes the changes */
	ACL_MTAB_FAULT,			/* a change failed: no more changes nor updates */
};

struct acl_mtask {
	struct acl_obj obj;		/* first: the aclmdlRITask is the object */
	struct acl_mtab *tab;		/* held; constant */
	uint32_t seq;			/* its place in launch order; constant */
	uint32_t at;			/* the recording's command @at, or with @ext its event operation */
	bool ext;			/* a host step: an EXTERNAL event record or wait, a host
					 * function or callback; constant */
	bool off;			/* disabled (aclmdlRITaskDisable); under tab->lock */
};

struct acl_mtab {
	struct acl_obj obj;		/* first: the model's stream (ACL_OBJ_MODEL_STREAM) */
	uint32_t id;			/* the model's aclmdlRIGetId; constant */
	bool built;			/* an explicit build's, not a captured graph; constant */
	bool jumps;			/* condition tasks' jumps (model_cond.c) among its commands; constant */
	struct acl_mtask *tasks;	/* in launch order: tasks[i].seq == i; constant */
	uint32_t n;
	pthread_mutex_t lock;		/* protects the fields below */
	bool closed;			/* the model went: @m, @cap and @ctx are not used any more */
	struct acl_model *m;
	struct acl_capture *cap;	/* the model's recording */
	struct acl_context *ctx;	/* the model's context */
	enum acl_mtab_status status;
};

/* model.c's (atomic: set, always to the same, before its first model) */
static const struct acl_mtab_hooks *acl_mtab_hooks;

void acl_mtab_set_hooks(const struct acl_mtab_hooks *hooks)
{
	__atomic_store_n(&acl_mtab_hooks, hooks, __ATOMIC_RELEASE);
}

static void acl_mtab_release(struct acl_obj *obj)
{
	struct acl_mtab *tab = (struct acl_mtab *)obj;

	free(tab->tasks);
	pthread_mutex_destroy(&tab->lock);
	free(tab);
}

static void acl_mtask_release(struct acl_obj *obj)
{
	acl_mtab_put(((struct acl_mtask *)obj)->tab);
}

void acl_mtab_hold(struct acl_mtab *tab)
{
	acl_obj_hold(&tab->obj);
}

void acl_mtab_put(struct acl_mtab *tab)
{
	if (tab)
		acl_obj_put(&tab->obj);
}

struct acl_mtab *acl_mtab_new(struct acl_model *m, struct acl_capture *cap, struct acl_context *ctx,
			      uint32_t id, bool built)
{
	struct acl_mtab *tab = calloc(1, sizeof(*tab));
	uint32_t i, j = 0, n = 0;

	if (tab)
		tab->tasks = calloc(cap->n + cap->next + 1, sizeof(*tab->tasks));
	if (!tab || !tab->tasks) {
		free(tab);
		return NULL;
	}
	pthread_mutex_init(&tab->lock, NULL);
	tab->m = m;
	tab->cap = cap;
	tab->ctx = ctx;
	tab->id = id;
	tab->built = built;
	/* the event operations recorded after the first i commands, then command i */
	for (i = 0; i <= cap->n; i++) {
		for (; j < cap->next && cap->ext[j].at == i; j++)
			tab->tasks[n++] = (struct acl_mtask){ .tab = tab, .at = j, .ext = true };
		if (i < cap->n)
			tab->tasks[n++] = (struct acl_mtask){ .tab = tab, .at = i };
	}
	tab->n = n;
	for (i = 0; i < n; i++)
		tab->tasks[i].seq = i;
	/* a SWITCH no label made is a condition task's (a graph has one kind or the other) */
	for (i = 0; !cap->nsw && i < cap->n; i++)
		tab->jumps |= cap->cmds[i].op == NPU_OP_SWITCH;
	/* listed, and the model's reference; each task holds one */
	acl_obj_add(&tab->obj, ACL_OBJ_MODEL_STREAM, acl_mtab_release);
	acl_obj_hold(&tab->obj);
	for (i = 0; i < n; i++) {
		acl_obj_hold(&tab->obj);
		acl_obj_add(&tab->tasks[i].obj, ACL_OBJ_MODEL_TASK, acl_mtask_release);
	}
	return tab;
}

/* Is a run of @tab's model queued and not done (tab->lock held, open)? */
static bool acl_mtab_busy(struct acl_mtab *tab)
{
	/* a table exists: model.c set its hooks */
	return __atomic_load_n(&acl_mtab_hooks, __ATOMIC_ACQUIRE)->busy(tab->m);
}

void acl_mtab_close(struct acl_mtab *tab)
{
	uint32_t i;

	if (!tab)
		return;
	pthread_mutex_lock(&tab->lock);
	tab->closed = true;
	pthread_mutex_unlock(&tab->lock);
	for (i = 0; i < tab->n; i++)
		if (acl_obj_del(&tab->tasks[i].obj))
			acl_obj_put(&tab->tasks[i].obj);
	if (acl_obj_del(&tab->obj))
		acl_obj_put(&tab->obj);
}

void acl_mtab_forget(struct acl_mtab *tab)
{
	if (!tab)
		return;
	free(tab->tasks);
	pthread_mutex_destroy(&tab->lock);
	free(tab);
}

/* The chip has ACL graphs, else 207000, recorded (the runtime's chip check). */
static int acl_mtask_chip(void)
{
	if (acl_chip_features() & ACL_SOC_ACL_GRAPH)
		return 0;
	return acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "the chip has no ACL graphs (the A2, A3 and 310P parts have them)"));
}

/* @task as a live task, with a reference (acl_obj_put), or 107017; NULL: 107000. */
static int acl_mtask_get(aclmdlRITask task, struct acl_mtask **out)
{
	struct acl_mtask *t = NULL;

	if (!task)
		return acl_errf(ACLI_ERTPARAM, "task must not be NULL");
	t = (struct acl_mtask *)acl_obj_get(task, ACL_OBJ_MODEL_TASK);
	if (!t)
		return acl_errf(ACLI_EHANDLE, "task %p is not a live task of a model runtime instance (aclmdlRIGetTasksByStream; its model destroyed?)",
				task);
	*out = t;
	return 0;
}

/* Lock @t's table, whose model must still be there (else 107017, unlocked). */
static int acl_mtask_lock(struct acl_mtask *t)
{
	pthread_mutex_lock(&t->tab->lock);
	if (!t->tab->closed)
		return 0;
	pthread_mutex_unlock(&t->tab->lock);
	return acl_errf(ACLI_EHANDLE, "the model of task %p was destroyed meanwhile", t);
}

/* @t's command (under tab->lock, open), or NULL for an event operation. */
static struct npu_cmd *acl_mtask_cmd(const struct acl_mtask *t)
{
	return t->ext ? NULL : &t->tab->cap->cmds[t->at];
}

/* @t's aclmdlRITaskType (under tab->lock, open). */
static aclmdlRITaskType acl_mtask_type(const struct acl_mtask *t)
{
	const struct npu_cmd *cmd = acl_mtask_cmd(t);

	/* a host function or callback is a task of no type of its own, as the vendor's */
	if (!cmd && t->tab->cap->ext[t->at].host)
		return ACL_MODEL_RI_TASK_DEFAULT;
	if (!cmd)
		return t->tab->cap->ext[t->at].record ? ACL_MODEL_RI_TASK_EVENT_RECORD : ACL_MODEL_RI_TASK_EVENT_WAIT;
	if (cmd->op == NPU_OP_WRITE_VALUE)
		return ACL_MODEL_RI_TASK_VALUE_WRITE;
	if (cmd->op == NPU_OP_WAIT_VALUE)
		return ACL_MODEL_RI_TASK_VALUE_WAIT;
	if (cmd->op == NPU_OP_KERNEL)
		return ACL_MODEL_RI_TASK_KERNEL;
	return ACL_MODEL_RI_TASK_DEFAULT;
}

/*
 * The start of the getters of a task: the runtime's NULL checks, task
 * then @out (named @name), both 107000, then the handle (107017).
 */
static int acl_mtask_enter(aclmdlRITask task, const void *out, const char *name, struct acl_mtask **t)
{
	if (task && !out)
		return acl_errf(ACLI_ERTPARAM, "%s must not be NULL", name);
	return acl_mtask_get(task, t);
}

/* @fn(@t, @arg) with @t's table locked, its model there; then @t is put. */
static int acl_mtask_locked(struct acl_mtask *t, int (*fn)(struct acl_mtask *t, void *arg), void *arg)
{
	int ret = acl_mtask_lock(t);

	if (!ret) {
		ret = fn(t, arg);
		pthread_mutex_unlock(&t->tab->lock);
	}
	acl_obj_put(&t->obj);
	return ret;
}

static int acl_mtask_get_type(struct acl_mtask *t, void *type)
{
	*(aclmdlRITaskType *)type = acl_mtask_type(t);
	return 0;
}

ACL_EXPORT aclError aclmdlRITaskGetType(aclmdlRITask task, aclmdlRITaskType *type)
{
	struct acl_mtask *t = NULL;
	int ret;

	ret = acl_check_init();
	if (!ret)
		ret = acl_mtask_chip();
	if (!ret)
		ret = acl_mtask_enter(task, type, "type", &t);
	if (!ret)
		ret = acl_mtask_locked(t, acl_mtask_get_type, type);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRITaskGetSeqId(aclmdlRITask task, uint32_t *id)
{
	struct acl_mtask *t = NULL;
	int ret;

	ret = acl_check_init();
	if (!ret)
		ret = acl_mtask_enter(task, id, "id", &t);
	if (ret)
		return acl_ret(__func__, ret);
	if (t->tab->built)
		ret = acl_errf(ACLI_ERTNOTSUPP, "task %p is of a model of aclmdlRIBuildBegin: only a captured graph's tasks have sequence ids",
			       t);
	else
		*id = t->seq;
	acl_obj_put(&t->obj);
	return acl_ret(__func__, ret);
}

/* @t's parameters into @out (under tab->lock, open): 107000 for a DEFAULT task. */
static int acl_mtask_params(struct acl_mtask *t, void *out)
{
	aclmdlRITaskParams *params = out;
	aclmdlRITaskType type = acl_mtask_type(t);
	const struct npu_cmd *cmd = acl_mtask_cmd(t);

	if (type == ACL_MODEL_RI_TASK_DEFAULT)
		return acl_errf(ACLI_ERTPARAM, "task %p is a DEFAULT task (a copy, memset, reduce, random, label switch, host function or callback), which has no parameters to get",
				t);
	memset(params, 0, sizeof(*params));
	params->type = type;
	if (!cmd) {
		struct acl_event *ev = (struct acl_event *)t->tab->cap->ext[t->at].event;

		if (type == ACL_MODEL_RI_TASK_EVENT_RECORD) {
			params->eventRecordTaskParams.event = ev;
			params->eventRecordTaskParams.eventFlag = ev->flags;
			params->eventRecordTaskParams.recordFlag = ACL_EVENT_RECORD_EXTERNAL;
		} else {
			params->eventWaitTaskParams.event = ev;
			params->eventWaitTaskParams.eventFlag = ev->flags;
			params->eventWaitTaskParams.waitFlag = ACL_EVENT_WAIT_EXTERNAL;
		}
	} else if (type == ACL_MODEL_RI_TASK_KERNEL) {
		const struct acl_kcap *kc = (const struct acl_kcap *)(uintptr_t)cmd->src;

		/* as the vendor's: the block where the kernel reads it, in device memory */
		params->kernelTaskParams.funcHandle = kc->func;
		params->kernelTaskParams.args = (void *)(uintptr_t)kc->args_va;
		params->kernelTaskParams.isHostArgs = 0;
		params->kernelTaskParams.argsSize = kc->args_len;
		params->kernelTaskParams.numBlocks = kc->k.block_dim;
		/* its task group, the op information SetParams gave (the vendor's shape information) */
		params->taskGrp = kc->grp;
		params->opInfoPtr = kc->opinfo;
		params->opInfoSize = kc->opinfo_len;
	} else if (type == ACL_MODEL_RI_TASK_VALUE_WRITE) {
		params->valueWriteTaskParams.devAddr = (void *)(uintptr_t)cmd->dst;
		params->valueWriteTaskParams.value = cmd->value;
	} else {
		params->valueWaitTaskParams.devAddr = (void *)(uintptr_t)cmd->src;
		params->valueWaitTaskParams.value = cmd->value;
		params->valueWaitTaskParams.flag = acl_wait_flag(cmd->flags);
	}
	return 0;
}

ACL_EXPORT aclError aclmdlRITaskGetParams(aclmdlRITask task, aclmdlRITaskParams *params)
{
	struct acl_mtask *t = NULL;
	int ret;

	ret = acl_check_init();
	if (!ret)
		ret = acl_mtask_enter(task, params, "params", &t);
	if (!ret)
		ret = acl_mtask_locked(t, acl_mtask_params, params);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRIKernelTaskGetAttribute(aclmdlRITask task, aclrtLaunchKernelAttrId attrId,
						   aclrtLaunchKernelAttrValue *attrValue)
{
	struct acl_mtask *t = NULL;
	int ret;

	ret = acl_enter(NULL, task, attrValue);
	if (!ret)
		ret = acl_mtask_get(task, &t);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_mtask_lock(t);
	if (ret) {
		acl_obj_put(&t->obj);
		return acl_ret(__func__, ret);
	}
	if (acl_mtask_type(t) != ACL_MODEL_RI_TASK_KERNEL) {
		ret = acl_errf(ACLI_ERTPARAM, "task %p is no kernel task (attribute %d): check aclmdlRITaskGetType first", t,
			       (int)attrId);
	} else {
		ret = acl_errf(ACLI_ERTNOTSUPP, "attribute %d of kernel task %p: npu answers no attributes of a kernel task",
			       (int)attrId, t);
	}
	pthread_mutex_unlock(&t->tab->lock);
	acl_obj_put(&t->obj);
	return acl_ret(__func__, ret);
}

/*
 * Can the table of @t change (under tab->lock, open)? The vendor's
 * CheckCaptureModelForUpdate: a captured graph's (207000), not FAULT nor
 * queued to run and not done (107040).
 */
static int acl_mtab_changeable(struct acl_mtab *tab)
{
	if (tab->built)
		return acl_errf(ACLI_ERTNOTSUPP, "model %u is of aclmdlRIBuildBegin: only a captured graph is updated", tab->id);
	if (acl_mtab_busy(tab))
		return acl_errf(ACLI_EMODELUPDATE, "model %u is queued to run and has not finished: synchronize its streams first",
				tab->id);
	if (tab->status == ACL_MTAB_FAULT)
		return acl_errf(ACLI_EMODELUPDATE, "model %u cannot be updated: a change of its tasks failed before", tab->id);
	return 0;
}

/* @devAddr for a value write (@write) or wait of @tab's model: its command flags, or 107000. */
static int acl_mtask_addr(struct acl_mtab *tab, void *devAddr, bool write, uint32_t *flags)
{
	*flags = 0;
	if (!devAddr || ((uintptr_t)devAddr & 7))
		return acl_errf(ACLI_ERTPARAM, "devAddr %p must be a non-NULL, 8-byte aligned address", devAddr);
	return acl_value_addr(tab->ctx->dev, devAddr, write, ACLI_ERTPARAM, flags);
}

/*
 * The kernel task @t takes @params (under tab->lock, open, UPDATING): the
 * vendor's UpdateKernelParams - taskGrp must be NULL (107000), then the
 * kernel's parameters (kernel.c) - and then its op information, a copy of
 * opInfoPtr's opInfoSize bytes (either NULL or 0: none), as the vendor
 * keeps a task's shape information (GetParams answers it).
 */
static int acl_mtask_set_kernel(struct acl_mtask *t, const aclmdlRITaskParams *params)
{
	struct acl_kcap *kc = (struct acl_kcap *)(uintptr_t)acl_mtask_cmd(t)->src;
	void *info = NULL;
	int ret;

	if (params->taskGrp)
		return acl_errf(ACLI_ERTPARAM, "params->taskGrp must be NULL (aclmdlRITaskGetParams answers a kernel task's group)");
	if (params->opInfoPtr && params->opInfoSize) {
		info = malloc(params->opInfoSize);
		if (!info)
			return acl_errf(-ENOMEM, "out of host memory for the task's op information");
		memcpy(info, params->opInfoPtr, params->opInfoSize);
	}
	ret = acl_kernel_task_set(t->tab->cap, t->tab->ctx, kc, &params->kernelTaskParams);
	if (ret) {
		free(info);
		return ret;
	}
	free(kc->opinfo);
	kc->opinfo = info;
	kc->opinfo_len = info ? params->opInfoSize : 0;
	/* new parameters: it runs again */
	t->off = false;
	return 0;
}

/* @t becomes the value write or wait @params says (under tab->lock, open, UPDATING). */
static int acl_mtask_set(struct acl_mtask *t, const aclmdlRITaskParams *params)
{
	struct npu_cmd *cmd = acl_mtask_cmd(t);
	bool write = params->type == ACL_MODEL_RI_TASK_VALUE_WRITE;
	uint32_t flags;
	void *addr;
	int ret;

	if (acl_mtask_type(t) == ACL_MODEL_RI_TASK_KERNEL && params->type == ACL_MODEL_RI_TASK_KERNEL)
		return acl_mtask_set_kernel(t, params);
	if (acl_mtask_type(t) == ACL_MODEL_RI_TASK_KERNEL)
		return acl_errf(ACLI_ERTPARAM, "task %p is a kernel task: params->type %d must be ACL_MODEL_RI_TASK_KERNEL (1)", t,
				(int)params->type);
	if (params->type == ACL_MODEL_RI_TASK_KERNEL)
		return acl_errf(ACLI_ERTPARAM, "task %p is no kernel task: it cannot become one", t);
	if (params->type != ACL_MODEL_RI_TASK_VALUE_WRITE && params->type != ACL_MODEL_RI_TASK_VALUE_WAIT)
		return acl_errf(ACLI_ERTPARAM, "params->type %d must be ACL_MODEL_RI_TASK_KERNEL (1), _VALUE_WRITE (5) or _VALUE_WAIT (6)",
				(int)params->type);
	if (acl_mtask_type(t) == ACL_MODEL_RI_TASK_DEFAULT)
		return acl_errf(ACLI_ERTPARAM, "task %p is a DEFAULT task, whose parameters cannot be set", t);
	if (params->taskGrp || params->opInfoPtr || params->opInfoSize)
		return acl_errf(ACLI_ERTPARAM, "params->taskGrp and params->opInfoPtr must be NULL, params->opInfoSize 0");
	addr = write ? params->valueWriteTaskParams.devAddr : params->valueWaitTaskParams.devAddr;
	if (!write && params->valueWaitTaskParams.flag > ACL_STREAM_WAIT_VALUE_NOR)
		return acl_errf(ACLI_ERTPARAM, "params->valueWaitTaskParams.flag %u must be ACL_STREAM_WAIT_VALUE_GEQ/EQ/AND/NOR (0..3)",
				params->valueWaitTaskParams.flag);
	ret = acl_mtask_addr(t->tab, addr, write, &flags);
	if (ret)
		return ret;
	if (!cmd)
		return acl_errf(ACLI_ERTNOTSUPP, "task %p is an EXTERNAL event record or wait, which npu cannot turn into a value write or wait",
				t);
	if (write) {
		*cmd = (struct npu_cmd){ .op = NPU_OP_WRITE_VALUE, .flags = flags, .dst = (uintptr_t)addr,
					 .value = params->valueWriteTaskParams.value };
	} else {
		*cmd = (struct npu_cmd){ .op = NPU_OP_WAIT_VALUE, .flags = acl_wait_cond(params->valueWaitTaskParams.flag),
					 .src = (uintptr_t)addr, .value = params->valueWaitTaskParams.value };
	}
	/* new parameters: it runs again */
	t->off = false;
	return 0;
}

/*
 * A change of @task (TaskSetParams with @params, else TaskDisable): the
 * vendor's order after the NULL checks: the table changeable, UPDATING,
 * then the change, whose failure leaves the table FAULT.
 */
static int acl_mtask_change(aclmdlRITask task, const aclmdlRITaskParams *params)
{
	struct acl_mtask *t = NULL;
	int ret;

	ret = acl_mtask_get(task, &t);
	if (ret)
		return ret;
	ret = acl_mtask_lock(t);
	if (ret)
		goto put;
	ret = acl_mtab_changeable(t->tab);
	if (ret)
		goto unlock;
	t->tab->status = ACL_MTAB_UPDATING;
	if (params) {
		ret = acl_mtask_set(t, params);
		/* npu's own refusal (an event turned into a value task) is no fault of the table */
		if (ret && ret != ACLI_ERTNOTSUPP)
			t->tab->status = ACL_MTAB_FAULT;
	} else if (acl_mtask_type(t) == ACL_MODEL_RI_TASK_DEFAULT) {
		t->tab->status = ACL_MTAB_FAULT;
		ret = acl_errf(ACLI_ERTPARAM, "task %p is a DEFAULT task, which cannot be disabled", t);
	} else if (t->tab->jumps) {
		/* npu's limit, no fault of the table: the jumps count the commands */
		ret = acl_errf(ACLI_ERTNOTSUPP, "the model of task %p has condition tasks, whose jumps npu cannot move over a disabled task",
			       t);
	} else {
		t->off = true;
	}
unlock:
	pthread_mutex_unlock(&t->tab->lock);
put:
	acl_obj_put(&t->obj);
	return ret;
}

ACL_EXPORT aclError aclmdlRITaskSetParams(aclmdlRITask task, aclmdlRITaskParams *params)
{
	int ret;

	ret = acl_check_init();
	if (!ret)
		acl_snap_gate();
	if (!ret && task && !params)
		ret = acl_errf(ACLI_ERTPARAM, "params must not be NULL");
	if (!ret)
		ret = acl_mtask_change(task, params);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRITaskDisable(aclmdlRITask task)
{
	int ret;

	ret = acl_check_init();
	if (!ret)
		acl_snap_gate();
	if (!ret)
		ret = acl_mtask_change(task, NULL);
	return acl_ret(__func__, ret);
}

/* The model behind @modelRI: its table (held) or NULL; NULL handle: 107000. */
static int acl_mtab_lookup(aclmdlRI modelRI, struct acl_mtab **tab)
{
	const struct acl_mtab_hooks *hooks = __atomic_load_n(&acl_mtab_hooks, __ATOMIC_ACQUIRE);
	int ret;

	*tab = NULL;
	/* no model was ever made: none is live */
	if (modelRI && !hooks)
		return acl_errf(ACLI_EHANDLE, "modelRI %p is not a live model runtime instance", modelRI);
	ret = modelRI ? hooks->lookup(modelRI, tab) : 0;
	if (!ret && !modelRI)
		ret = acl_errf(ACLI_ERTPARAM, "modelRI must not be NULL");
	return ret;
}

/* New driver models of @tab's recording, its disabled tasks left out (tab->lock held, open). */
static int acl_mtab_rebuild(struct acl_mtab *tab)
{
	bool *off;
	uint32_t i;
	int ret;

	off = calloc(tab->cap->n + tab->cap->next + 1, sizeof(*off));
	if (!off)
		return acl_errf(-ENOMEM, "out of host memory");
	for (i = 0; i < tab->n; i++)
		off[tab->tasks[i].ext ? tab->cap->n + tab->tasks[i].at : tab->tasks[i].at] = tab->tasks[i].off;
	/* a table exists: model.c set its hooks */
	ret = __atomic_load_n(&acl_mtab_hooks, __ATOMIC_ACQUIRE)->rebuild(tab->m, off);
	free(off);
	return ret;
}

/* aclmdlRIUpdate of @tab: the changes become the model's (tab->lock held, open). */
static int acl_mtab_update(struct acl_mtab *tab)
{
	int ret;

	if (tab->status == ACL_MTAB_READY)
		return 0;
	if (tab->status != ACL_MTAB_UPDATING)
		return acl_errf(ACLI_EMODELUPDATE, "model %u cannot be updated: a change of its tasks failed", tab->id);
	ret = acl_mtab_rebuild(tab);
	/*
	 * the vendor's: a failed update leaves the model FAULT; it runs as
	 * before. A run being queued meanwhile (107040) is no failure of it.
	 */
	tab->status = ret == ACLI_EMODELUPDATE ? ACL_MTAB_UPDATING : ret ? ACL_MTAB_FAULT : ACL_MTAB_READY;
	return ret;
}

int acl_mtab_of_stream(aclrtStream stream, struct acl_mtab **tab)
{
	struct acl_obj *other;

	*tab = (struct acl_mtab *)acl_obj_get(stream, ACL_OBJ_MODEL_STREAM);
	if (*tab)
		return 0;
	other = acl_obj_get(stream, ACL_OBJ_STREAM);
	if (!other)
		return acl_errf(ACLI_EHANDLE, "stream %p is not a live stream", stream);
	acl_obj_put(other);
	return 0;
}

/* Task @id of @tab: its command, if one of @op, into *@cmd; else 107000 (tab->lock held, open). */
static int acl_mtab_cmd_of(struct acl_mtab *tab, uint32_t id, uint32_t op, struct npu_cmd **cmd)
{
	if (id >= tab->n)
		return acl_errf(ACLI_ERTPARAM, "taskId %u: the model's stream has %u tasks (aclmdlRIGetTasksByStream)",
				id, tab->n);
	*cmd = acl_mtask_cmd(&tab->tasks[id]);
	if (!*cmd || (*cmd)->op != op)
		return acl_errf(ACLI_ERTPARAM, "task %u of the model's stream is not a%s task, the kind updated", id,
				op == NPU_OP_KERNEL ? " kernel (AI-core)" : " random-number");
	return 0;
}

/* Are none of @tab's changes waiting for aclmdlRIUpdate (tab->lock held)? 107040 if some are. */
static int acl_mtab_settled(struct acl_mtab *tab)
{
	if (tab->status != ACL_MTAB_READY)
		return acl_errf(ACLI_EMODELUPDATE, "model %u has changes of its tasks that aclmdlRIUpdate did not take%s",
				tab->id, tab->status == ACL_MTAB_FAULT ? " (a change failed)" : ": update it first");
	return 0;
}

/* Can @tab's tasks change at once (tab->lock held, open)? 107040 if not. */
static int acl_mtab_patchable(struct acl_mtab *tab)
{
	if (acl_mtab_busy(tab))
		return acl_errf(ACLI_EMODELUPDATE, "model %u is queued to run and has not finished: synchronize its streams first",
				tab->id);
	return acl_mtab_settled(tab);
}

int acl_mtab_change(struct acl_mtab *tab, int (*fn)(struct acl_capture *cap, void *arg), void (*undo)(void *arg),
		    void *arg)
{
	unsigned int tries;
	int ret;

	pthread_mutex_lock(&tab->lock);
	if (tab->closed)
		ret = acl_errf(ACLI_EHANDLE, "model %u was destroyed meanwhile", tab->id);
	else
		ret = acl_mtab_settled(tab);
	if (!ret)
		ret = fn(tab->cap, arg);
	if (ret)
		goto unlock;
	/*
	 * A run being queued by another thread takes the parts all old or
	 * all new (107040 from the rebuild): it is done soon, try again
	 */
	ret = acl_mtab_rebuild(tab);
	for (tries = 0; ret == ACLI_EMODELUPDATE && tries < 1000; tries++) {
		acl_err_clear();
		usleep(1000);
		ret = acl_mtab_rebuild(tab);
	}
	if (ret)
		undo(arg);
unlock:
	pthread_mutex_unlock(&tab->lock);
	return ret;
}

int acl_mtab_patch(struct acl_mtab *tab, uint32_t id, uint32_t op, int (*fn)(struct npu_cmd *cmd, void *arg),
		   void *arg)
{
	struct npu_cmd *cmd = NULL, old;
	void *saved = NULL;
	size_t size;
	int ret;

	if (!tab)
		return acl_errf(ACLI_ERTPARAM, "taskStream is no model's stream (aclmdlRIGetStreams names them)");
	pthread_mutex_lock(&tab->lock);
	if (tab->closed) {
		ret = acl_errf(ACLI_EHANDLE, "model %u of taskStream was destroyed meanwhile", tab->id);
		goto unlock;
	}
	ret = acl_mtab_cmd_of(tab, id, op, &cmd);
	if (ret || !fn)
		goto unlock;
	ret = acl_mtab_patchable(tab);
	if (ret)
		goto unlock;
	size = acl_cmd_host_operand(cmd);
	saved = size ? malloc(size) : NULL;
	if (size && !saved) {
		ret = acl_errf(-ENOMEM, "out of host memory");
		goto unlock;
	}
	old = *cmd;
	if (size)
		memcpy(saved, (const void *)(uintptr_t)cmd->src, size);
	ret = fn(cmd, arg);
	if (!ret)
		ret = acl_mtab_rebuild(tab);
	if (ret) {
		/* the model runs as before: its recording says so again */
		*cmd = old;
		if (size)
			memcpy((void *)(uintptr_t)cmd->src, saved, size);
	}
	free(saved);
unlock:
	pthread_mutex_unlock(&tab->lock);
	return ret;
}

int acl_mtab_kernel(struct acl_mtab *tab, uint32_t id, struct acl_kfunc *f, uint64_t blocks)
{
	struct acl_kcap was, *kc;
	struct npu_cmd *cmd;
	int ret;

	if (!tab)
		return acl_errf(ACLI_ERTPARAM, "taskStream is no model's stream (aclmdlRIGetStreams names them)");
	pthread_mutex_lock(&tab->lock);
	if (tab->closed)
		ret = acl_errf(ACLI_EHANDLE, "model %u of taskStream was destroyed meanwhile", tab->id);
	else
		ret = acl_mtab_cmd_of(tab, id, NPU_OP_KERNEL, &cmd);
	if (ret || !f)
		goto unlock;
	ret = acl_mtab_patchable(tab);
	if (ret)
		goto unlock;
	kc = (struct acl_kcap *)(uintptr_t)cmd->src;
	ret = acl_kernel_task_entry(tab->cap, tab->ctx, kc, f, blocks, &was);
	if (ret)
		goto unlock;
	ret = acl_mtab_rebuild(tab);
	/* the model runs as before: its recording says so again */
	if (ret)
		acl_kcap_swap(kc, &was);
	acl_kcap_release(&was);
unlock:
	pthread_mutex_unlock(&tab->lock);
	return ret;
}

ACL_EXPORT aclError aclmdlRIUpdate(aclmdlRI modelRI)
{
	struct acl_mtab *tab = NULL;
	int ret;

	ret = acl_check_init();
	if (!ret)
		ret = acl_mtab_lookup(modelRI, &tab);
	if (ret)
		return acl_ret(__func__, ret);
	if (!tab)
		return acl_ret(__func__, acl_errf(ACLI_EMODELUPDATE, "model %p is not built yet (capturing, or its capture failed)",
						  modelRI));
	pthread_mutex_lock(&tab->lock);
	if (tab->closed)
		ret = acl_errf(ACLI_EHANDLE, "model %p was destroyed meanwhile", modelRI);
	else if (tab->built)
		ret = acl_errf(ACLI_ERTNOTSUPP, "model %p is of aclmdlRIBuildBegin: only a captured graph is updated", modelRI);
	else if (tab->status != ACL_MTAB_READY && acl_mtab_busy(tab))
		ret = acl_errf(ACLI_EMODELUPDATE, "model %p is queued to run and has not finished: synchronize its streams first",
			       modelRI);
	else
		ret = acl_mtab_update(tab);
	pthread_mutex_unlock(&tab->lock);
	acl_mtab_put(tab);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams)
{
	struct acl_context *ctx;
	struct acl_mtab *tab = NULL;
	uint32_t i, n;
	int ret;

	ret = acl_check_init();
	if (!ret)
		ret = acl_mtask_chip();
	if (!ret && modelRI)
		ret = acl_mtab_lookup(modelRI, &tab);
	if (!ret && !numStreams)
		ret = acl_errf(ACLI_ERTPARAM, "numStreams must not be NULL");
	if (!ret && !modelRI)
		ret = acl_errf(ACLI_ERTPARAM, "modelRI must not be NULL");
	if (!ret)
		ret = acl_cur_ctx(&ctx);
	if (ret) {
		acl_mtab_put(tab);
		return acl_ret(__func__, ret);
	}
	if (tab && tab->ctx != ctx)
		ret = acl_errf(ACLI_EMODELCTX, "model %p belongs to another context than the current one", modelRI);
	acl_ctx_put(ctx);
	n = tab ? 1 : 0;
	if (!ret && streams) {
		for (i = 0; i < *numStreams; i++)
			streams[i] = i < n ? (aclrtStream)tab : NULL;
		if (*numStreams < n) {
			ret = acl_errf(ACLI_EARRAYSHORT, "numStreams %u is less than the model's %u streams", *numStreams, n);
		}
		*numStreams = *numStreams < n ? *numStreams : n;
	} else if (!ret) {
		*numStreams = n;
	}
	acl_mtab_put(tab);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRIGetTasksByStream(aclrtStream stream, aclmdlRITask *tasks, uint32_t *numTasks)
{
	struct acl_mtab *tab = NULL;
	struct acl_obj *other;
	uint32_t i, n;
	int ret;

	ret = acl_check_init();
	if (!ret)
		ret = acl_mtask_chip();
	if (ret)
		return acl_ret(__func__, ret);
	if (stream) {
		tab = (struct acl_mtab *)acl_obj_get(stream, ACL_OBJ_MODEL_STREAM);
		other = tab ? NULL : acl_obj_get(stream, ACL_OBJ_STREAM);
		if (!tab && !other)
			return acl_ret(__func__, acl_errf(ACLI_EHANDLE, "stream %p is not a live stream", stream));
		if (other)
			acl_obj_put(other);
	}
	if (!stream)
		ret = acl_errf(ACLI_ERTPARAM, "stream must not be NULL");
	else if (!numTasks)
		ret = acl_errf(ACLI_ERTPARAM, "numTasks must not be NULL");
	else if (!tab)
		ret = acl_errf(ACLI_ERTPARAM, "stream %p is not a model's stream (aclmdlRIGetStreams names them)", stream);
	if (ret)
		goto out;
	n = tab->n;
	if (!tasks) {
		*numTasks = n;
		goto out;
	}
	for (i = 0; i < *numTasks; i++)
		tasks[i] = i < n ? (aclmdlRITask)&tab->tasks[i] : NULL;
	if (*numTasks < n)
		ret = acl_errf(ACLI_EARRAYSHORT, "numTasks %u is less than the %u tasks of the model's stream", *numTasks, n);
	*numTasks = *numTasks < n ? *numTasks : n;
out:
	if (tab)
		acl_obj_put(&tab->obj);
	return acl_ret(__func__, ret);
}

/* The vendor's name of @t's task type (its DOT and JSON prints), under tab->lock, open. */
static const char *acl_mtask_name(const struct acl_mtask *t)
{
	static const char *const names[] = {
		[NPU_OP_COPY] = "MEMCPY_ASYNC",
		[NPU_OP_MEMSET] = "MEMSET",
		[NPU_OP_WRITE_VALUE] = "MEM_WRITE_VALUE",
		[NPU_OP_WAIT_VALUE] = "MEM_WAIT_VALUE",
		[NPU_OP_COPY_2D] = "MEMCPY_2D",
		[NPU_OP_FILL32] = "MEMSET_D32",
		[NPU_OP_COPY_BATCH] = "MEMCPY_BATCH",
		[NPU_OP_REDUCE] = "REDUCE_ASYNC",
		[NPU_OP_RANDOM] = "RANDOM_NUM",
		[NPU_OP_SWITCH] = "LABEL_SWITCH",
		[NPU_OP_PREFETCH] = "CMO",
		[NPU_OP_TIMESTAMP] = "PROFILER_TRACE_EX",
		[NPU_OP_KERNEL] = "KERNEL_AIVEC",
	};
	const struct npu_cmd *cmd = acl_mtask_cmd(t);

	if (!cmd && t->tab->cap->ext[t->at].host)
		return "HOST_FUNC";
	if (!cmd)
		return t->tab->cap->ext[t->at].record ? "CAPTURE_RECORD" : "CAPTURE_WAIT";
	if (cmd->op < sizeof(names) / sizeof(names[0]) && names[cmd->op])
		return names[cmd->op];
	return "OTHER";
}

/* One task as the vendor's trace event (DebugJsonPrint), @verbose with its operands. */
static void acl_mtask_json(FILE *f, const struct acl_mtask *t, bool verbose, bool last)
{
	const struct npu_cmd *cmd = acl_mtask_cmd(t);
	const char *name = acl_mtask_name(t);

	fprintf(f, "{\"name\":\"%s\",\"pid\":\"%d aclGraph\",\"tid\":\"stream0\",\"ts\":%" PRIu32
		",\"dur\":1,\"ph\":\"X\",\"args\":{\"Model Id\":%" PRIu32 ",\"Stream Id\":0,\"Task Id\":%" PRIu32
		",\"Task Type\":\"%s\",\"Disabled\":%s",
		name, (int)getpid(), 2 * t->seq, t->tab->id, t->seq, name, t->off ? "true" : "false");
	if (verbose && cmd)
		fprintf(f, ",\"ExtendInfo\":\"dst=%#" PRIx64 " src=%#" PRIx64 " length=%" PRIu64 " value=%#" PRIx64
			" flags=%#" PRIx32 "\"",
			(uint64_t)cmd->dst, (uint64_t)cmd->src, (uint64_t)cmd->length, (uint64_t)cmd->value, cmd->flags);
	else if (verbose && t->tab->cap->ext[t->at].host)
		fprintf(f, ",\"ExtendInfo\":\"host=%p\"", (void *)t->tab->cap->ext[t->at].host);
	else if (verbose)
		fprintf(f, ",\"ExtendInfo\":\"event=%p\"", (void *)t->tab->cap->ext[t->at].event);
	fprintf(f, "}}%s\n", last ? "" : ",");
}

/* The start of the debug prints: the model's table (held), or NULL (none yet). */
static int acl_mtab_debug_enter(aclmdlRI modelRI, const char *path, bool json, struct acl_mtab **tab)
{
	int ret = json ? acl_enter(NULL, modelRI, path) : acl_enter(NULL, modelRI);

	if (!ret)
		ret = acl_mtask_chip();
	if (!ret)
		ret = acl_mtab_lookup(modelRI, tab);
	return ret;
}

ACL_EXPORT aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags)
{
	struct acl_mtab *tab = NULL;
	uint32_t i;
	FILE *f;
	int ret;

	ret = acl_mtab_debug_enter(modelRI, path, true, &tab);
	if (ret)
		return acl_ret(__func__, ret);
	f = fopen(path, "w");
	if (!f) {
		ret = acl_errf(ACLI_ERTPARAM, "path %s cannot be opened for writing: %s", path, strerror(errno));
		goto out;
	}
	fprintf(f, "[\n");
	if (tab) {
		pthread_mutex_lock(&tab->lock);
		for (i = 0; !tab->closed && i < tab->n; i++)
			acl_mtask_json(f, &tab->tasks[i], flags & ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE, i + 1 == tab->n);
		pthread_mutex_unlock(&tab->lock);
	}
	fprintf(f, "]\n");
	if (fclose(f))
		ret = acl_errf(ACLI_ERTPARAM, "path %s could not be written: %s", path, strerror(errno));
out:
	acl_mtab_put(tab);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRIDebugPrint(aclmdlRI modelRI)
{
	struct acl_mtab *tab = NULL;
	uint32_t i;
	int ret;

	ret = acl_mtab_debug_enter(modelRI, NULL, false, &tab);
	if (ret)
		return acl_ret(__func__, ret);
	if (!tab) {
		aclAppLog(ACL_INFO, __func__, __FILE__, __LINE__, "model %p: not built, no tasks", modelRI);
		return ACL_SUCCESS;
	}
	pthread_mutex_lock(&tab->lock);
	aclAppLog(ACL_INFO, __func__, __FILE__, __LINE__, "model print begin, model_id=%u, tasks=%u", tab->id, tab->n);
	for (i = 0; !tab->closed && i < tab->n; i++)
		aclAppLog(ACL_INFO, __func__, __FILE__, __LINE__, "model_id=%u stream 0 task %u: %s%s", tab->id, i,
			  acl_mtask_name(&tab->tasks[i]), tab->tasks[i].off ? " (disabled)" : "");
	aclAppLog(ACL_INFO, __func__, __FILE__, __LINE__, "model print end, model_id=%u", tab->id);
	pthread_mutex_unlock(&tab->lock);
	acl_mtab_put(tab);
	return ACL_SUCCESS;
}
