// SPDX-License-Identifier: MIT
/*
 * Task groups of a capture: aclmdlRICaptureTaskGrpBegin and
 * aclmdlRICaptureTaskGrpEnd mark tasks of a capturing stream as a group
 * (its aclrtTaskGrp handle), whose tasks a stream that is not captured
 * later replaces between aclmdlRICaptureTaskUpdateBegin and
 * aclmdlRICaptureTaskUpdateEnd, as many and of the same kinds.
 *
 * As the vendor's (acl layer src/acl/aclrt_impl/model_ri.cpp; runtime
 * api_c_standard_soc.cc and api_c_stream.cc rtsStream*TaskGrp/Update,
 * feature/aclgraph/api_error_aclgraph.cc, v100/api_impl_aclgraph.cc,
 * context_aclgraph.cc Context::Stream*TaskGrp/Update, stream.cc
 * PackingTaskGroup, UpdateTask, AllocTask, IsTaskGroupBreak,
 * launch/aix_stars.cc InternalUpdateTaskPrepare): a group takes kernel
 * launches only (capture_adapt_v100.cc TaskTypeIsSupportTaskGroup: AI
 * core and vector core kernels). A kernel launch on the group's stream
 * while it is open is recorded as any captured launch (kernel.c) and is
 * the group's next task (stream.c acl_stream_capture_kernel(): struct
 * acl_stream grp_kcs, handed to the group at GrpEnd); any other task of
 * its stream is refused with 507009 and one of another stream of its
 * capture, kernels too, with 107034, either invalidating the capture
 * (stream.c's gate). The state of each stream is stream.c's (struct
 * acl_stream grp, under its lock); the groups are their capture's and go
 * with their model (aclmdlRIDestroy), as the vendor's CaptureModel
 * taskGroupList_.
 *
 * An update window takes kernel launches only (507009 for the rest): each
 * replaces the group's next task, counted as the vendor's AllocTask
 * counts it, at its call (a launch more than the group's tasks: 507000,
 * the vendor's RT_ERROR_STREAM_TASKGRP_UPDATE; a launch refused by its
 * own checks first counts for nothing). What a launch replaces, as the
 * vendor's update sets up the task anew from the launch: the function
 * (any kernel of the same kind: npu's are all vector kernels; another
 * kind would be 507000, RT_ERROR_KERNEL_TYPE), the blocks, the launch
 * attributes (timeout) and the argument block, host (copied, its
 * placeholders patched) or device (read where it is at each run). The
 * vendor rewrites the task's SQE on the device with copies queued on the
 * update stream; npu changes the recorded launch in place (kernel.c
 * acl_launch_update()) and makes the model's driver models anew at the
 * launch (model_task.c acl_mtab_change()): the runs queued from then on
 * run the new task, a run queued before runs the old one; nothing is
 * queued on the update stream and the kernel does not run. UpdateEnd
 * with fewer tasks replaced is 507000, and the tasks replaced stay
 * replaced (the vendor's SQEs were rewritten).
 *
 * npu's choices where the vendor is silent or cannot be followed: a
 * printing kernel is no task of a group (its printf area's memset and
 * print step would be tasks of their own: 207000, nothing recorded, not
 * counted); a group is updated once its model is made (a launch while
 * its capture is under way: 107040, counted), not while the model has
 * changes waiting for aclmdlRIUpdate (107040, counted: the new driver
 * models would take them; the vendor's rewrite touches the group's tasks
 * alone), and not for a condition task's sub-model (207000); a handle of
 * a destroyed model is 107017 at UpdateBegin and at a launch of a window
 * begun before (counted); the update stream captured (bound to a model
 * being built) since UpdateBegin: its kernel launches 107027 (107005),
 * not counted (the vendor's InternalUpdateTaskPrepare, after AllocTask).
 *
 * Locks: acl_grp_lock protects the capture lists of groups, and each
 * group's table, closed and sub fields; it is taken around a stream's
 * lock, never inside it, and never around a task table's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include <acl/acl.h>

#include "context.h"
#include "device.h"
#include "error.h"
#include "handle.h"
#include "model_group.h"
#include "model_task.h"
#include "query.h"
#include "snapstate.h"
#include "stream.h"

static pthread_mutex_t acl_grp_lock = PTHREAD_MUTEX_INITIALIZER;

static void acl_grp_release(struct acl_obj *obj)
{
	free(((struct acl_task_grp *)obj)->kcs);
	free(obj);
}

void acl_grps_close(struct acl_capture *cap)
{
	struct acl_task_grp *g, *first;
	struct acl_mtab *tab = NULL;
	unsigned int held = 0;

	/* a stream updating a group holds it: it finds the model gone */
	pthread_mutex_lock(&acl_grp_lock);
	first = cap->grps;
	cap->grps = NULL;
	for (g = first; g; g = g->next) {
		g->closed = true;
		if (g->tab) {
			tab = g->tab;
			held++;
		}
		g->tab = NULL;
	}
	pthread_mutex_unlock(&acl_grp_lock);
	while (held--)
		acl_mtab_put(tab);
	g = first;
	while (g) {
		struct acl_task_grp *next = g->next;

		if (acl_obj_del(&g->obj))
			acl_obj_put(&g->obj);
		g = next;
	}
}

void acl_grps_ready(struct acl_capture *cap, struct acl_mtab *tab, bool sub)
{
	struct acl_task_grp *g;

	pthread_mutex_lock(&acl_grp_lock);
	for (g = cap->grps; g; g = g->next) {
		g->sub = sub;
		if (!sub && tab) {
			acl_mtab_hold(tab);
			g->tab = tab;
		}
	}
	pthread_mutex_unlock(&acl_grp_lock);
}

int acl_grp_update(struct acl_task_grp *g, int (*fn)(struct acl_capture *cap, void *arg), void (*undo)(void *arg),
		   void *arg)
{
	struct acl_mtab *tab;
	int ret = 0;

	pthread_mutex_lock(&acl_grp_lock);
	tab = g->tab;
	if (g->closed)
		ret = acl_errf(ACLI_EHANDLE, "the model of task group %p was destroyed", g);
	else if (g->sub)
		ret = acl_errf(ACLI_ERTNOTSUPP, "task group %p is of a condition task's sub-model, whose tasks npu runs in its parent's driver models: npu does not update them",
			       g);
	else if (!tab)
		ret = acl_errf(ACLI_EMODELUPDATE, "the model of task group %p is still being captured: its tasks are updated once aclmdlRICaptureEnd made it",
			       g);
	else
		acl_mtab_hold(tab);
	pthread_mutex_unlock(&acl_grp_lock);
	if (ret)
		return ret;
	ret = acl_mtab_change(tab, fn, undo, arg);
	acl_mtab_put(tab);
	return ret;
}

/* After fork (lifecycle.c's child handler): a thread that did not fork may have held it. */
void acl_grps_atfork_child(void)
{
	pthread_mutex_init(&acl_grp_lock, NULL);
}

void acl_grps_forget(struct acl_capture *cap)
{
	struct acl_task_grp *g = cap->grps;

	cap->grps = NULL;
	while (g) {
		struct acl_task_grp *next = g->next;

		free(g->kcs);
		free(g);
		g = next;
	}
}

/*
 * The start of the four calls after the acl layer's NULL checks: the
 * vendor's GLOBAL_STATE_WAIT_IF_LOCKED, the chip (207000, recorded), then
 * the stream's handle (107017).
 */
static int acl_grp_enter(aclrtStream stream, struct acl_stream **s)
{
	acl_snap_gate();
	if (!(acl_chip_features() & ACL_SOC_ACL_GRAPH))
		return acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "the chip has no ACL graphs (the A2, A3 and 310P parts have them)"));
	return acl_stream_resolve(stream, ACL_STREAM_USE, s);
}

/* GrpBegin and GrpEnd: @s must be captured (107029), of the current context (107002, 107003). */
static int acl_grp_captured(struct acl_stream *s)
{
	if (!acl_stream_capture(s, NULL))
		return acl_errf(ACLI_ENOTCAPTURED, "stream %p is not being captured (aclmdlRICaptureBegin)", s);
	return acl_stream_current(s);
}

/*
 * UpdateBegin and UpdateEnd: @s must be a stream of single operators, not
 * captured (107027) nor a model's (a stream bound to a model being built:
 * 107005), of the current context.
 */
static int acl_grp_updater(struct acl_stream *s)
{
	if (acl_stream_capture(s, NULL))
		return acl_errf(ACLI_ESTREAMCAPTURED, "stream %p is being captured: a task group is updated on a stream that is not",
				s);
	if (acl_stream_recording(s))
		return acl_errf(ACLI_ESTREAMMODEL, "stream %p is bound to a model (aclmdlRIBindStream): a task group is updated on a stream of single operators",
				s);
	return acl_stream_current(s);
}

ACL_EXPORT aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream)
{
	struct acl_stream *s;
	int ret;

	ret = acl_enter(NULL, stream);
	if (!ret)
		ret = acl_grp_enter(stream, &s);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_grp_captured(s);
	if (!ret)
		ret = acl_stream_grp_begin(s);
	acl_stream_put(s);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle)
{
	struct acl_capture *cap;
	struct acl_task_grp *g;
	struct acl_kcap **kcs;
	struct acl_stream *s;
	uint32_t i, n;
	int ret, err = 0;

	ret = acl_enter(NULL, stream, handle);
	if (!ret)
		ret = acl_grp_enter(stream, &s);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_grp_captured(s);
	if (ret)
		goto out;
	*handle = NULL;
	g = calloc(1, sizeof(*g));
	if (!g) {
		ret = acl_errf(-ENOMEM, "out of host memory");
		goto out;
	}
	/*
	 * The capture's list under acl_grp_lock: no model teardown takes it
	 * meanwhile. The capture is the one the group ends in, read under
	 * s->lock with the state change (a capture ended since is still its
	 * model's, which drops the groups under acl_grp_lock when destroyed).
	 */
	pthread_mutex_lock(&acl_grp_lock);
	ret = acl_stream_grp_end(s, &err, &cap, &kcs, &n);
	if (!ret && !err) {
		/* its tasks: the kernel launches the stream recorded since GrpBegin */
		g->kcs = kcs;
		g->ntasks = n;
		kcs = NULL;
		for (i = 0; i < n; i++)
			g->kcs[i]->grp = g;
		acl_obj_add(&g->obj, ACL_OBJ_TASK_GRP, acl_grp_release);
		g->next = cap->grps;
		cap->grps = g;
		*handle = g;
		g = NULL;
	}
	pthread_mutex_unlock(&acl_grp_lock);
	free(kcs);
	free(g);
	/* the vendor's: the group is dropped, and the reason its capture failed is the answer */
	if (!ret && err == ACLI_ECAPINVALID)
		ret = acl_errf(err, "the capture of stream %p was invalidated: the task group is dropped", s);
	else if (!ret && err)
		ret = acl_errf(err, "a task of the task group of stream %p was refused (see that task's failure): the group is dropped",
			       s);
out:
	acl_stream_put(s);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle)
{
	struct acl_task_grp *g;
	struct acl_stream *s;
	int ret;

	ret = acl_enter(NULL, stream, handle);
	if (!ret)
		ret = acl_grp_enter(stream, &s);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_grp_updater(s);
	if (ret)
		goto out;
	/* the vendor takes the handle as it is; npu answers one of a destroyed model */
	g = (struct acl_task_grp *)acl_obj_get(handle, ACL_OBJ_TASK_GRP);
	if (!g) {
		ret = acl_errf(ACLI_EHANDLE, "handle %p is not a live task group (aclmdlRICaptureTaskGrpEnd; its model destroyed?)",
			       handle);
		goto out;
	}
	/* the vendor checks the stream's state first, then the group's: the same 107033 */
	ret = acl_stream_grp_update(s, g);
	acl_obj_put(&g->obj);
out:
	acl_stream_put(s);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream)
{
	struct acl_task_grp *g = NULL;
	struct acl_stream *s;
	int ret;

	ret = acl_enter(NULL, stream);
	if (!ret)
		ret = acl_grp_enter(stream, &s);
	if (ret)
		return acl_ret(__func__, ret);
	ret = acl_grp_updater(s);
	if (!ret)
		ret = acl_stream_grp_update_end(s, &g);
	acl_stream_put(s);
	if (!g)
		return acl_ret(__func__, ret);
	/*
	 * The vendor's RT_ERROR_STREAM_TASKGRP_UPDATE (context_aclgraph.cc
	 * StreamEndTaskUpdate): fewer tasks than the group's (the window
	 * ends anyway). errcode_manage.cc maps it to
	 * ACL_ERROR_RT_INTERNAL_ERROR, 507000: ACLI_EINTERNAL, not the
	 * driver's 507899 (ACLI_EDRVERR).
	 */
	if (g->updated != g->ntasks)
		ret = acl_errf(ACLI_EINTERNAL, "task group %p has %u tasks, of which %u were updated", g, g->ntasks,
			       g->updated);
	__atomic_store_n(&g->updating, false, __ATOMIC_RELEASE);
	acl_obj_put(&g->obj);
	return acl_ret(__func__, ret);
}
