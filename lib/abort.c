// SPDX-License-Identifier: MIT
/*
 * aclrtDeviceTaskAbort and its callbacks (aclrtSetDeviceTaskAbortCallback).
 *
 * CANN's steps (ContextManage::DeviceTaskAbort): the device enters the
 * abort state and every queue of its contexts is dropped, the PRE
 * callbacks run, the tasks are killed, the POST callbacks run, then the
 * device is cleaned: its state and its contexts' failure errors cleared.
 * Here dropping is aclrtStreamAbort's work on every stream of every
 * context on the device - the driver's FORCE destroy, running copies
 * stopping at their next chunk, and a fresh kernel queue in its place -
 * so the kill is done with it. A step that fails or runs past the
 * timeout ends the call there, the device left in the abort state, as in
 * CANN; a later abort that completes leaves it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <acl/acl.h>

#include "context.h"
#include "device.h"
#include "error.h"
#include "list.h"
#include "stream.h"

/* CANN's TASK_ABORT_TIMEOUT_MAX: 36 minutes, in milliseconds */
#define ACL_ABORT_TIMEOUT_MAX	(36U * 60U * 1000U)

/* A registered callback. */
struct acl_abort_cb {
	struct list_head node;		/* in acl_abort_cbs, sorted by name */
	char *name;
	aclrtDeviceTaskAbortCallback fn;
	void *args;
};

/* A callback to call, copied out of the list. */
struct acl_abort_call {
	aclrtDeviceTaskAbortCallback fn;
	void *args;
};

static pthread_mutex_t acl_abort_cb_lock = PTHREAD_MUTEX_INITIALIZER;
/* by name, as CANN's std::map: that is the order they are called in */
static struct list_head acl_abort_cbs = LIST_HEAD_INIT(acl_abort_cbs);
/* one abort at a time (CANN: the context manager's lock) */
static pthread_mutex_t acl_abort_lock = PTHREAD_MUTEX_INITIALIZER;

static void acl_abort_cb_free(struct acl_abort_cb *cb)
{
	free(cb->name);
	free(cb);
}

static int acl_abort_cb_set(const char *name, aclrtDeviceTaskAbortCallback fn, void *args)
{
	struct acl_abort_cb *cb = NULL, *it;
	struct list_head *at = &acl_abort_cbs;
	int ret = 0, cmp;

	if (fn) {
		cb = calloc(1, sizeof(*cb));
		if (cb)
			cb->name = strdup(name);
		if (!cb || !cb->name) {
			free(cb);
			return acl_errf(-ENOMEM, "no memory for a callback registration");
		}
		cb->fn = fn;
		cb->args = args;
	}
	pthread_mutex_lock(&acl_abort_cb_lock);
	list_for_each_entry(it, &acl_abort_cbs, node) {
		cmp = strcmp(it->name, name);
		if (cmp < 0)
			continue;
		if (!cmp) {
			if (!fn) {
				/* NULL: the name's registration goes */
				list_del(&it->node);
				acl_abort_cb_free(it);
			} else {
				ret = acl_errf(ACLI_ERTPARAM, "regName \"%s\" is registered already", name);
			}
			goto out;
		}
		at = &it->node;
		break;
	}
	/* none under that name: insert before the first one after it */
	if (fn) {
		list_add_tail(&cb->node, at);
		cb = NULL;
	}
out:
	pthread_mutex_unlock(&acl_abort_cb_lock);
	if (cb)
		acl_abort_cb_free(cb);
	return ret;
}

ACL_EXPORT aclError aclrtSetDeviceTaskAbortCallback(const char *regName, aclrtDeviceTaskAbortCallback callback,
						    void *args)
{
	int ret = regName ? 0 : acl_errf(-EINVAL, "regName must not be NULL");

	if (!ret)
		ret = acl_abort_cb_set(regName, callback, args);
	return acl_ret(__func__, ret);
}

static int64_t acl_abort_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* An abort under way: its device and time budget. */
struct acl_abort {
	struct acl_device *dev;
	int64_t start;			/* acl_abort_now_ms() */
	uint32_t timeout;		/* ms, 0: none */
};

/* What is left of the abort's budget (0: none given), or a timeout error. */
static int acl_abort_left(const struct acl_abort *a, const char *step, uint32_t *left)
{
	int64_t used = acl_abort_now_ms() - a->start;

	*left = 0;
	if (!a->timeout)
		return 0;
	if (used > a->timeout)
		return acl_errf(ACLI_EWAITTIMEOUT, "the abort of device %d ran past its %u ms (%s)", a->dev->id,
				a->timeout, step);
	/* the callbacks read 0 as "no limit": what little is left is 1 ms */
	*left = used < a->timeout ? a->timeout - (uint32_t)used : 1;
	return 0;
}

/*
 * Call every callback for @stage, in name order, from a copy of the list;
 * the first non-zero answer stops them and is the abort's result (CANN
 * passes it on as the runtime's error: the last error too).
 */
static int acl_abort_notify(const struct acl_abort *a, aclrtDeviceTaskAbortStage stage, const char *step)
{
	struct acl_abort_call *calls;
	struct acl_abort_cb *it;
	size_t n = 0, i;
	uint32_t left;
	int32_t code;
	int ret;

	ret = acl_abort_left(a, step, &left);
	if (ret)
		return ret;
	pthread_mutex_lock(&acl_abort_cb_lock);
	list_for_each_entry(it, &acl_abort_cbs, node)
		n++;
	calls = calloc(n ? n : 1, sizeof(*calls));
	if (calls) {
		i = 0;
		list_for_each_entry(it, &acl_abort_cbs, node)
			calls[i++] = (struct acl_abort_call){ it->fn, it->args };
	}
	pthread_mutex_unlock(&acl_abort_cb_lock);
	if (!calls)
		return acl_errf(-ENOMEM, "no memory to call the abort callbacks");
	for (i = 0; i < n && !ret; i++) {
		code = calls[i].fn(a->dev->id, stage, left, calls[i].args);
		if (code)
			ret = acl_errf(acl_setlast(acl_user_err(code)), "the %s callback %p of device %d's abort failed with %d",
				       stage == ACL_RT_DEVICE_TASK_ABORT_PRE ? "PRE" : "POST", (void *)calls[i].fn,
				       a->dev->id, (int)code);
	}
	free(calls);
	return ret;
}

static int acl_abort_stream(struct acl_stream *s, void *arg)
{
	(void)arg;
	return acl_stream_abort(s);
}

/* CANN's clean: the context's failure error (the STOP-mode latch) goes. */
static int acl_abort_clean(struct acl_stream *s, void *arg)
{
	(void)arg;
	if (s->ctx)
		__atomic_store_n(&s->ctx->sticky, 0, __ATOMIC_RELEASE);
	return 0;
}

/* Does any context of this process live on @dev (CANN: 107002 if none)? */
static int acl_abort_has_context(struct acl_device *dev)
{
	bool any;

	pthread_mutex_lock(&dev->lock);
	any = !list_empty(&dev->contexts);
	pthread_mutex_unlock(&dev->lock);
	return any ? 0 : acl_errf(ACLI_ENOCTX, "no context of this process is on device %d: nothing to abort",
				  dev->id);
}

static int acl_abort_run(struct acl_abort *a)
{
	uint32_t left;
	int ret;

	ret = acl_abort_has_context(a->dev);
	if (ret)
		return ret;
	__atomic_store_n(&a->dev->task_abort, true, __ATOMIC_RELEASE);
	ret = acl_dev_each_stream(a->dev, acl_abort_stream, NULL);
	if (!ret)
		ret = acl_abort_notify(a, ACL_RT_DEVICE_TASK_ABORT_PRE, "dropping the queues");
	if (!ret)
		ret = acl_abort_notify(a, ACL_RT_DEVICE_TASK_ABORT_POST, "the PRE callbacks");
	if (!ret)
		ret = acl_abort_left(a, "the POST callbacks", &left);
	if (ret)
		return ret;
	acl_dev_each_stream(a->dev, acl_abort_clean, NULL);
	__atomic_store_n(&a->dev->task_abort, false, __ATOMIC_RELEASE);
	return 0;
}

/*
 * CANN's checks, in its order: the timeout, the device id (both recorded
 * as the last error), then a context on the device. No aclInit needed:
 * without it no device is open (107002).
 */
ACL_EXPORT aclError aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout)
{
	struct acl_abort a = { .start = acl_abort_now_ms(), .timeout = timeout };
	int ret = 0;

	if (timeout > ACL_ABORT_TIMEOUT_MAX)
		ret = acl_errf(ACLI_ERTPARAM, "timeout %u ms is more than %u ms (36 minutes)", timeout,
			       ACL_ABORT_TIMEOUT_MAX);
	if (!ret)
		ret = acl_dev_check_id(deviceId, "deviceId");
	if (ret)
		return acl_ret(__func__, ret);
	pthread_mutex_lock(&acl_abort_lock);
	a.dev = acl_dev_get(deviceId);
	if (a.dev)
		ret = acl_abort_run(&a);
	else
		ret = acl_errf(ACLI_ENOCTX, "device %d is not open in this process: nothing to abort", deviceId);
	pthread_mutex_unlock(&acl_abort_lock);
	return acl_ret(__func__, ret);
}
