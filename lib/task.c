// SPDX-License-Identifier: MIT
/*
 * Tasks, as CANN names a stream's units of work: here each command the
 * library queues on an application's stream (stream.c numbers them and
 * remembers the calling thread's last). On top of that: the calling
 * thread's last task id, the operator and extended information an
 * application caches for that task, profiling markers (aclrtProfTrace)
 * and the restart of a persistent stream's tasks (aclrtPersistentTaskClean).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "context.h"
#include "device.h"
#include "error.h"
#include "slots.h"
#include "stream.h"

/* CANN's limits (api_error.cc): operator information, extended information */
#define ACL_TASK_OP_INFO_MAX	(64 * 1024)
#define ACL_TASK_EXT_INFO_MAX	4096
/* CANN's rtProfTraceUserData: a packed u64 id, u64 model id, u16 tag */
#define ACL_PROF_TRACE_MAX	18

/* Each device's word the profiling markers stamp (never read: there is no profiler). */
static struct acl_slot_kept acl_trace_words[ACL_MAX_DEVICES];

ACL_EXPORT aclError aclrtGetThreadLastTaskId(uint32_t *taskId)
{
	struct acl_task_ref t;

	if (!taskId)
		return acl_ret(__func__, acl_errf(-EINVAL, "taskId must not be NULL"));
	acl_stream_last_task(&t);
	*taskId = t.task;
	return ACL_SUCCESS;
}

/*
 * The stream of the calling thread's last task, with a reference: CANN's
 * checks in its order (a current context, the stream still there, the
 * current context's).
 */
static int acl_task_last_stream(struct acl_task_ref *t, struct acl_stream **out)
{
	struct acl_context *ctx;
	struct acl_stream *s = NULL;
	int ret;

	ret = acl_cur_ctx(&ctx);
	if (ret)
		return ret;
	acl_ctx_put(ctx);
	acl_stream_last_task(t);
	if (t->task != UINT32_MAX)
		s = (struct acl_stream *)acl_obj_get(t->s, ACL_OBJ_STREAM);
	if (s && s->serial != t->serial) {
		/* another stream at the address of a destroyed one */
		acl_stream_put(s);
		s = NULL;
	}
	if (!s)
		return acl_errf(ACLI_EINTERNAL, "the calling thread has queued no task on a stream that still exists");
	if (!acl_ctx_is_current(s->ctx)) {
		acl_stream_put(s);
		return acl_errf(ACLI_ESTREAMCTX, "the calling thread's last task is on a stream of another context");
	}
	*out = s;
	return 0;
}

/* Keep a copy of @len bytes at @p as the operator (@ext: extended) information of the calling thread's last task. */
static int acl_task_cache(bool ext, const void *p, size_t len)
{
	struct acl_task_info *info;
	struct acl_stream *s = NULL;
	struct acl_task_ref t;
	void *copy, *old;
	int ret;

	ret = acl_task_last_stream(&t, &s);
	if (ret)
		return ret;
	copy = malloc(len);
	if (!copy) {
		acl_stream_put(s);
		return acl_errf(-ENOMEM, "out of host memory");
	}
	memcpy(copy, p, len);
	pthread_mutex_lock(&s->lock);
	info = ext ? &s->ext_info : &s->op_info;
	old = info->data;
	info->data = copy;
	info->len = len;
	info->task = t.task;
	pthread_mutex_unlock(&s->lock);
	free(old);
	acl_stream_put(s);
	return 0;
}

/*
 * CANN keeps the information with the task in the ACL graph that captures
 * its stream (and refuses a stream not captured); libacl captures no
 * stream and keeps it with the task's stream.
 */
ACL_EXPORT aclError aclrtCacheLastTaskOpInfo(const void *const infoPtr, const size_t infoSize)
{
	int ret;

	ret = acl_enter(NULL, infoPtr);
	if (!ret && !infoSize)
		ret = acl_errf(-EINVAL, "infoSize must be greater than 0");
	else if (!ret && infoSize > ACL_TASK_OP_INFO_MAX)
		ret = acl_errf(ACLI_ERTPARAM, "infoSize %zu must be at most %d", infoSize, ACL_TASK_OP_INFO_MAX);
	if (!ret)
		ret = acl_task_cache(false, infoPtr, infoSize);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtCacheLastTaskExtendInfo(const char *const extendInfoPtr, const size_t infoSize)
{
	int ret;

	/* the runtime's checks: CANN's acl layer makes none */
	ret = acl_check_init();
	if (!ret && !extendInfoPtr)
		ret = acl_errf(ACLI_ERTPARAM, "extendInfoPtr must not be NULL");
	else if (!ret && !infoSize)
		ret = acl_errf(ACLI_ERTPARAM, "infoSize must not be 0");
	/* more is cut, as CANN does */
	if (!ret)
		ret = acl_task_cache(true, extendInfoPtr,
				     infoSize > ACL_TASK_EXT_INFO_MAX ? ACL_TASK_EXT_INFO_MAX : infoSize);
	return acl_ret(__func__, ret);
}

/*
 * CANN cleans a persistent stream of a loaded model whose queue is
 * stopped: the queue's head and tail go back to 0, and its next task is
 * the first again. libacl has no models; a PERSISTENT stream is what a
 * model would bind, and its queue must have run dry.
 */
ACL_EXPORT aclError aclrtPersistentTaskClean(aclrtStream stream)
{
	struct acl_context *ctx;
	struct acl_stream *s;
	void *op = NULL, *ext = NULL;
	uint32_t id;
	uint64_t seq;
	int ret;

	ret = acl_check_init();
	if (!ret && !stream)
		ret = acl_errf(ACLI_ERTPARAM, "stream must not be NULL");
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_USE, &s);
	if (ret)
		goto out;
	if (!(s->flags & ACL_STREAM_PERSISTENT)) {
		ret = acl_errf(ACLI_EINTERNAL, "stream %p is not ACL_STREAM_PERSISTENT: only a persistent stream's tasks are cleaned",
			       stream);
		goto put;
	}
	ret = acl_cur_ctx(&ctx);
	if (ret)
		goto put;
	acl_ctx_put(ctx);
	if (!acl_ctx_is_current(s->ctx)) {
		ret = acl_errf(ACLI_ESTREAMCTX, "stream %p belongs to another context than the current one", stream);
		goto put;
	}
	acl_stream_point(s, &id, &seq);
	if (!acl_stream_reached(s, id, seq)) {
		ret = acl_errf(ACLI_EINTERNAL, "tasks of stream %p are still queued or running: its queue must be idle",
			       stream);
		goto put;
	}
	pthread_mutex_lock(&s->lock);
	if (s->id == id && s->last_seq == seq) {
		s->task_base = seq;
		s->task_base_id = id;
		op = s->op_info.data;
		ext = s->ext_info.data;
		memset(&s->op_info, 0, sizeof(s->op_info));
		memset(&s->ext_info, 0, sizeof(s->ext_info));
	} else {
		ret = acl_errf(ACLI_EINTERNAL, "a task was queued on stream %p meanwhile", stream);
	}
	pthread_mutex_unlock(&s->lock);
	free(op);
	free(ext);
put:
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}

/*
 * A profiling marker: one task in the stream's order, the device clock
 * stamped into a word of the device when the stream reaches it. CANN's
 * marker carries the caller's id, model id and tag to its profiler;
 * libacl has no profiler, so the data is checked for its length only.
 */
ACL_EXPORT aclError aclrtProfTrace(void *userdata, int32_t length, aclrtStream stream)
{
	struct npu_cmd cmd = { .op = NPU_OP_TIMESTAMP, .flags = NPU_CMD_DST_HOST };
	struct acl_stream *s;
	uint64_t *word;
	int ret;

	ret = acl_enter(NULL, userdata);
	if (!ret && (length <= 0 || length > ACL_PROF_TRACE_MAX))
		ret = acl_errf(ACLI_ERTPARAM, "length %d must be in (0, %d]: a marker's id, model id and tag",
			       length, ACL_PROF_TRACE_MAX);
	if (!ret)
		ret = acl_stream_resolve(stream, ACL_STREAM_OWN, &s);
	if (ret)
		goto out;
	ret = acl_slot_keep(s->dev, &s->dev->slots, &acl_trace_words[s->dev->id], &word);
	if (ret == -ENOSPC)
		ret = acl_errf(ACLI_ENOEVENTRES, "no device word left for the profiling marker");
	if (!ret) {
		cmd.dst = (uintptr_t)word;
		/* on a recording stream: the marker at each run of the model (the vendor's too) */
		ret = acl_stream_launch(s, &cmd, 1);
	}
	acl_stream_put(s);
out:
	return acl_ret(__func__, ret);
}
