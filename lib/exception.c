// SPDX-License-Identifier: MIT
/*
 * Task exceptions: the application's exception callbacks, their calls
 * when a task fails, and the getters of what the callbacks are handed.
 *
 * As in CANN's runtime, callbacks live in one table of the process: one
 * slot for aclrtSetExceptionInfoCallback and one entry per function
 * registered with aclrtExceptionInfoCallbackRegister. A fault's callbacks
 * are called from a copy of the table, so a callback may (un)register,
 * and an unregistration does not wait for calls under way.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "binary.h"
#include "error.h"
#include "exception.h"

/* CANN's answer for a NULL info, or one without the detail asked for */
#define ACL_EXC_INVALID		0xFFFFFFFFU
/* rtExceptionExpandType_t: what kind of task failed; a DMA task is none */
#define ACL_EXC_TYPE_INVALID	0
#define ACL_EXC_TYPE_AICORE	2	/* RT_EXCEPTION_AICORE: a kernel */

/*
 * aclrtExceptionInfo. The first fields are laid out as CANN's
 * rtExceptionInfo_t, for a program that reads them directly; a kernel's
 * detail (CANN's expandInfo.u.aicoreInfo) is libacl's own, for the getters.
 */
struct rtExceptionInfo {
	uint32_t taskid;
	uint32_t streamid;
	uint32_t tid;
	uint32_t deviceid;
	uint32_t retcode;
	uint32_t type;		/* CANN's expandInfo.type */
	/* a kernel's (type ACL_EXC_TYPE_AICORE): */
	void *args;		/* exceptionArgs.argAddr: its argument block's device address */
	uint32_t args_len;	/* exceptionArgs.argsize */
	void *func;		/* its function (CANN: the binary and kernel name) */
};

#define ACL_EXC_MAX	64	/* registered callbacks at once (CANN: no limit) */

static pthread_mutex_t acl_exc_lock = PTHREAD_MUTEX_INITIALIZER;
/* aclrtSetExceptionInfoCallback's slot */
static aclrtExceptionInfoCallback acl_exc_set;
/* aclrtExceptionInfoCallbackRegister's, in registration order */
static aclrtExceptionInfoCallback acl_exc_cbs[ACL_EXC_MAX];
static unsigned int acl_exc_n;

void acl_exception_report(const struct acl_task_fault *f)
{
	aclrtExceptionInfoCallback snap[ACL_EXC_MAX + 1];
	struct rtExceptionInfo info = {
		.taskid = f->task,
		.streamid = f->stream,
		.tid = f->tid,
		.deviceid = (uint32_t)f->device,
		.retcode = f->code,
		.type = f->kernel ? ACL_EXC_TYPE_AICORE : ACL_EXC_TYPE_INVALID,
		.args = (void *)(uintptr_t)f->args_va,
		.args_len = f->args_len,
		.func = f->func,
	};
	aclrtOpExceptionCallback op_cb = NULL;
	struct acl_kfunc *kf = NULL;
	void *op_data = NULL;
	unsigned int i, n = 0;

	pthread_mutex_lock(&acl_exc_lock);
	if (acl_exc_set)
		snap[n++] = acl_exc_set;
	for (i = 0; i < acl_exc_n; i++)
		snap[n++] = acl_exc_cbs[i];
	pthread_mutex_unlock(&acl_exc_lock);
	for (i = 0; i < n; i++)
		snap[i](&info);
	/*
	 * Then the one of the kernel's binary, as CANN's
	 * OpTaskFailCallbackNotify after the process's: the binary's at the
	 * time of the fault, if it is loaded still.
	 */
	if (!info.func || acl_kfunc_get(info.func, &kf)) {
		acl_err_clear();
		return;
	}
	if (acl_kfunc_exc_callback(kf, &op_cb, &op_data))
		op_cb(&info, op_data);
	acl_kfunc_put(kf);
}

ACL_EXPORT aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
	pthread_mutex_lock(&acl_exc_lock);
	acl_exc_set = callback;
	pthread_mutex_unlock(&acl_exc_lock);
	return ACL_SUCCESS;
}

/* Index of @cb in the registered ones, or -1 (acl_exc_lock held). */
static int acl_exc_find(aclrtExceptionInfoCallback cb)
{
	unsigned int i;

	for (i = 0; i < acl_exc_n; i++)
		if (acl_exc_cbs[i] == cb)
			return (int)i;
	return -1;
}

/* CANN's acl layer answers NULL with the runtime's code, unrecorded. */
static int acl_exc_check(aclrtExceptionInfoCallback cb)
{
	return cb ? 0 : acl_nolast(acl_errf(ACLI_ERTPARAM, "callback must not be NULL"));
}

ACL_EXPORT aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback)
{
	int ret = acl_exc_check(callback);

	if (ret)
		return acl_ret(__func__, ret);
	pthread_mutex_lock(&acl_exc_lock);
	if (acl_exc_find(callback) < 0) {
		if (acl_exc_n < ACL_EXC_MAX)
			acl_exc_cbs[acl_exc_n++] = callback;
		else
			ret = acl_errf(-ENOMEM, "%d exception callbacks are registered already", ACL_EXC_MAX);
	}
	pthread_mutex_unlock(&acl_exc_lock);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback)
{
	int ret = acl_exc_check(callback), i;

	if (ret)
		return acl_ret(__func__, ret);
	pthread_mutex_lock(&acl_exc_lock);
	i = acl_exc_find(callback);
	if (i >= 0) {
		memmove(&acl_exc_cbs[i], &acl_exc_cbs[i + 1], (acl_exc_n - (unsigned int)i - 1) * sizeof(acl_exc_cbs[0]));
		acl_exc_n--;
	}
	pthread_mutex_unlock(&acl_exc_lock);
	return ACL_SUCCESS;
}

/*
 * A getter's NULL info: CANN reports it as an input error (a message)
 * and answers 0xFFFFFFFF, never the last error.
 */
static bool acl_exc_null(const char *api, const aclrtExceptionInfo *info)
{
	if (info)
		return false;
	acl_ret(api, acl_nolast(acl_errf(ACLI_EEXCINFO, "info must not be NULL")));
	return true;
}

ACL_EXPORT uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return acl_exc_null(__func__, info) ? ACL_EXC_INVALID : info->taskid;
}

ACL_EXPORT uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return acl_exc_null(__func__, info) ? ACL_EXC_INVALID : info->streamid;
}

ACL_EXPORT uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return acl_exc_null(__func__, info) ? ACL_EXC_INVALID : info->tid;
}

ACL_EXPORT uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return acl_exc_null(__func__, info) ? ACL_EXC_INVALID : info->deviceid;
}

ACL_EXPORT uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return acl_exc_null(__func__, info) ? ACL_EXC_INVALID : info->retcode;
}

/* Only a kernel's exception has arguments (CANN: AI Core, AI CPU, fusion). */
ACL_EXPORT aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo *info, void **devArgsPtr,
						  uint32_t *devArgsLen)
{
	int ret = 0;

	if (acl_exc_null(__func__, info))
		return (aclError)ACL_EXC_INVALID;
	if (!devArgsPtr)
		ret = acl_errf(-EINVAL, "devArgsPtr must not be NULL");
	else if (!devArgsLen)
		ret = acl_errf(-EINVAL, "devArgsLen must not be NULL");
	else if (info->type == ACL_EXC_TYPE_AICORE) {
		/* as CANN: what its launch had (NULL and 0 without arguments) */
		*devArgsPtr = info->args;
		*devArgsLen = info->args_len;
	} else {
		ret = acl_nolast(acl_errf(ACLI_EEXCINFO, "the failed task (type %u) is not a kernel: it has no arguments",
					  info->type));
	}
	return acl_ret(__func__, ret);
}

/*
 * Only a kernel's exception has a function: the handle it was launched
 * with; else CANN's runtime answers 107000, recorded.
 */
ACL_EXPORT aclError aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo *info, aclrtFuncHandle *func)
{
	struct acl_kfunc *kf;
	int ret;

	if (acl_exc_null(__func__, info))
		return (aclError)ACL_EXC_INVALID;
	if (!func)
		return acl_ret(__func__, acl_errf(-EINVAL, "func must not be NULL"));
	if (info->type != ACL_EXC_TYPE_AICORE || !info->func) {
		ret = acl_errf(ACLI_ERTPARAM, "the failed task (type %u) is not a kernel launch libacl knows: it has no function handle",
			       info->type);
	} else {
		/* CANN validates the binary: an unloaded one's is 107017 */
		ret = acl_kfunc_get(info->func, &kf);
		if (!ret) {
			*func = info->func;
			acl_kfunc_put(kf);
		}
	}
	return acl_ret(__func__, ret);
}
