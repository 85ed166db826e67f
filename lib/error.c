// SPDX-License-Identifier: MIT
/*
 * The one errno -> aclError table, and the two thread-local records of
 * failures: the messages behind aclGetRecentErrMsg() (every failure) and
 * the last error behind aclrtGetLastError(). As in CANN, only the
 * runtime's failures become the last error, and not those it returns
 * with COND_RETURN_WITH_NOLOG: a code of the acl layer (1000xx, 2000xx,
 * 5000xx but ACL_ERROR_RT_FAILURE) never does, ACL_ERROR_RT_FEATURE_NOT_SUPPORT does not unless
 * its site says acl_setlast(), and any failure whose site says
 * acl_nolast() does not. acl_ret_quiet() touches neither record.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <acl/acl_rt.h>

#include "error.h"

#define ACL_LINE_MAX	512		/* one failure's message */
#define ACL_MSG_MAX	2048		/* the failures not yet taken */

/* reason recorded during the current call */
static __thread char acl_detail[ACL_LINE_MAX];
/* messages of the failed calls, newest first, until aclGetRecentErrMsg() takes them */
static __thread char acl_msg[ACL_MSG_MAX];
/* the copy handed out, valid until the next aclGetRecentErrMsg() */
static __thread char acl_msg_out[ACL_MSG_MAX];
/* the thread's last error: aclrtGetLastError() takes it, aclrtPeekAtLastError() reads it */
static __thread aclError acl_last_err;
/* what the site of the current call's failure said of the last error */
static __thread enum { ACL_LAST_BY_CODE, ACL_LAST_NO, ACL_LAST_YES } acl_last_rule;
/* the code of the current call's ACLI_EUSER failure */
static __thread aclError acl_user_code;

/*
 * The one errno -> aclError table.  It is built on the stack at each call
 * (failures only): the acl-layer codes are static const int, which C does
 * not accept in a static initialiser.
 */
static aclError acl_code_of(int err, const char **what)
{
	const struct {
		int err;
		aclError code;
		const char *what;	/* reason when the failing step left none */
	} map[] = {
		{ -EINVAL,	ACL_ERROR_INVALID_PARAM,		"invalid argument" },
		{ -ENOMEM,	ACL_ERROR_RT_MEMORY_ALLOCATION,		"out of memory" },
		{ -EEXIST,	ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "host memory already registered" },
		{ -ENXIO,	ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,	"host memory not registered" },
		{ -EADDRINUSE,	ACL_ERROR_INVALID_PARAM,		"address range already in use" },
		{ -ENOENT,	ACL_ERROR_INVALID_PARAM,		"no such object" },
		{ -EBUSY,	ACL_ERROR_INVALID_PARAM,		"object still in use" },
		{ -EFAULT,	ACL_ERROR_INVALID_PARAM,		"bad address" },
		{ -EACCES,	ACL_ERROR_INVALID_PARAM,		"access denied" },
		{ -ETIMEDOUT,	ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,	"timed out" },
		{ -EIO,		ACL_ERROR_RT_FAILURE,			"device command faulted" },
		{ -EOPNOTSUPP,	ACL_ERROR_RT_FEATURE_NOT_SUPPORT,	"not supported by the device" },
		{ -ENODEV,	ACL_ERROR_RT_INVALID_DEVICEID,		"invalid device id" },
		{ -ENOTTY,	ACL_ERROR_DRV_FAILURE,			"driver does not know the request" },
		{ -E2BIG,	ACL_ERROR_DRV_FAILURE,			"driver rejected the request layout" },
		{ -EPERM,	ACL_ERROR_RT_CONTEXT_NULL,		"context belongs to another process" },
		{ -EALREADY,	ACL_ERROR_INVALID_PARAM,		"already enabled" },
		{ -ENOSPC,	ACL_ERROR_RT_MEMORY_ALLOCATION,		"a per-context limit of the driver was reached (npu module parameters)" },
		{ -ECANCELED,	ACL_ERROR_RT_FAILURE,			"commands were dropped before they ran (stream destroyed or device removed)" },
		{ -ESRCH,	ACL_ERROR_INVALID_PARAM,		"no such process" },
		{ -ESTALE,	ACL_ERROR_RT_LOST_HEARTBEAT,		"the device was reset (npu-smi set -t reset) and the process's context on it is lost: aclrtResetDevice and aclrtSetDevice again, or aclFinalize and aclInit, to use it" },
		{ -EMFILE,	ACL_ERROR_RT_MEMORY_ALLOCATION,		"out of file descriptors" },
		{ -EBADF,	ACL_ERROR_INVALID_PARAM,		"not an open file descriptor" },
		{ ACLI_EREPEAT_INIT,	ACL_ERROR_REPEAT_INITIALIZE,	"aclInit was already called" },
		{ ACLI_EREPEAT_FINALIZE, ACL_ERROR_REPEAT_FINALIZE,	"aclFinalize was already called" },
		{ ACLI_EUNINIT,	ACL_ERROR_UNINITIALIZE,			"aclInit has not been called" },
		{ ACLI_ENOCTX,	ACL_ERROR_RT_CONTEXT_NULL,		"no current device: call aclrtSetDevice first" },
		{ ACLI_ENOTREG,	ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,	"host memory not registered" },
		{ ACLI_ENOTSUPP, ACL_ERROR_API_NOT_SUPPORT,		"not implemented yet" },
		{ ACLI_EFEATURE, ACL_ERROR_FEATURE_UNSUPPORTED,		"not supported by this driver" },
		{ ACLI_ENODEVS,	ACL_ERROR_RT_NO_DEVICE,			"no npu device found" },
		{ ACLI_EDRV,	ACL_ERROR_DRV_FAILURE,			"driver unusable" },
		{ ACLI_ENOPEER,	ACL_ERROR_INVALID_PARAM,		"peer access is not enabled" },
		{ ACLI_ERTPARAM, ACL_ERROR_RT_PARAM_INVALID,		"invalid value" },
		{ ACLI_EHANDLE,	ACL_ERROR_RT_INVALID_HANDLE,		"not a live handle of that type" },
		{ ACLI_ESTREAMCTX, ACL_ERROR_RT_STREAM_CONTEXT,		"the stream belongs to another context" },
		{ ACLI_ESTREAMSUB, ACL_ERROR_RT_STREAM_SUBSCRIBE,	"stream subscription state is wrong" },
		{ ACLI_ETHREADSUB, ACL_ERROR_RT_THREAD_SUBSCRIBE,	"thread subscription state is wrong" },
		{ ACLI_ENOCBREG, ACL_ERROR_RT_STREAM_NO_CB_REG,		"the stream has no subscribed report thread" },
		{ ACLI_ECTXRELEASE, ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,	"context released or not held" },
		{ ACLI_EREPORTTIMEOUT, ACL_ERROR_RT_REPORT_TIMEOUT,	"no callback arrived in time" },
		{ ACLI_EEVENTTIMEOUT, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,	"event did not complete in time" },
		{ ACLI_ETIMESTAMP, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "the event has no timestamp" },
		{ ACLI_EINTERNAL, ACL_ERROR_RT_INTERNAL_ERROR,		"runtime state error" },
		{ ACLI_ESTREAMABORT, ACL_ERROR_RT_STREAM_ABORT,		"the stream is being aborted" },
		{ ACLI_EWAITTIMEOUT, ACL_ERROR_RT_WAIT_TIMEOUT,		"internal wait timed out" },
		{ ACLI_ETASKTIMEOUT, ACL_ERROR_RT_TASK_TIMEOUT,		"a device task timed out" },
		{ ACLI_EDEVSETUP, ACL_ERROR_RT_DEV_SETUP_ERROR,		"the process has not opened the device" },
		{ ACLI_ENOSTREAMRES, ACL_ERROR_RT_NO_STREAM_RESOURCE,	"no stream left" },
		{ ACLI_ENOEVENTRES, ACL_ERROR_RT_NO_EVENT_RESOURCE,	"no event left" },
		{ ACLI_ENONOTIFYRES, ACL_ERROR_RT_NO_NOTIFY_RESOURCE,	"no notify left" },
		{ ACLI_ERTNOTSUPP, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,	"not supported by the simulated chip" },
		{ ACLI_EFILE,	ACL_ERROR_INVALID_FILE,			"file missing or unreadable" },
		{ ACLI_ETASKFAULT, ACL_ERROR_RT_FAILURE,			"a task of the stream failed" },
		{ ACLI_EVERSION, ACL_ERROR_INTERNAL_ERROR,		"version string not understood" },
		{ ACLI_ENOPERM,	ACL_ERROR_RT_NO_PERMISSION,		"not permitted" },
		{ ACLI_ENOTSET,	ACL_ERROR_RT_SYSPARAMOPT_NOT_SET,	"the option was never set" },
		{ ACLI_EDUMPNOTRUN, ACL_ERROR_DUMP_NOT_RUN,		"aclmdlInitDump has not been called" },
		{ ACLI_EPARSEFILE, ACL_ERROR_PARSE_FILE,		"the file cannot be parsed" },
		{ ACLI_EDUMPCFG, ACL_ERROR_INVALID_DUMP_CONFIG,		"the dump configuration is not valid" },
		{ ACLI_ENOTCAPTURED, ACL_ERROR_RT_STREAM_NOT_CAPTURED,	"the stream is not being captured" },
		{ ACLI_ESTATE,	ACL_ERROR_INTERNAL_ERROR,		"acl state error" },
		{ ACLI_EOVERLIMIT, ACL_ERROR_RT_OVER_LIMIT,		"over the limit" },
		{ ACLI_EDRVERR,	ACL_ERROR_RT_DRV_INTERNAL_ERROR,	"driver internal error" },
		{ ACLI_EFAILURE, ACL_ERROR_FAILURE,			"the operation failed" },
		{ ACLI_EMEMUCE, ACL_ERROR_RT_DEVICE_MEM_ERROR,		"device memory error" },
		{ ACLI_ELINKTYPE, ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED,	"the devices have no such link" },
		{ ACLI_EEXCINFO, (aclError)0xFFFFFFFFU,			"the exception information has no such detail" },
		{ ACLI_EDEVTASKABORT, ACL_ERROR_RT_DEVICE_TASK_ABORT,	"the device's tasks are being aborted" },
		{ ACLI_ESNAPLOCKTIME, ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT,	"the process's device work did not drain in time" },
		{ ACLI_ESNAPLOCK, ACL_ERROR_SNAPSHOT_LOCK_FAILED,	"the process is locked already" },
		{ ACLI_ESNAPUNLOCK, ACL_ERROR_SNAPSHOT_UNLOCK_FAILED,	"the process is not locked" },
		{ ACLI_ESNAPBACKUP, ACL_ERROR_SNAPSHOT_BACKUP_FAILED,	"snapshot backup failed" },
		{ ACLI_ESNAPRESTORE, ACL_ERROR_SNAPSHOT_RESTORE_FAILED,	"snapshot restore failed" },
		{ ACLI_ESNAPCB,	ACL_ERROR_SNAPSHOT_CALLBACK_FAILED,	"a snapshot callback failed" },
		{ ACLI_ESNAPCBREG, ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED, "the callback is registered for that stage already" },
		{ ACLI_ESTREAMMODEL, ACL_ERROR_RT_STREAM_MODEL,		"no CMO task carried that barrier id" },
		{ ACLI_EUNALIGNED, ACL_ERROR_RT_ADDR_UNALIGNED,		"an address is not aligned as the task needs" },
		{ ACLI_ERESALLOC, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,	"no id of that kind left" },
		{ ACLI_ESTREAMCAPTURED, ACL_ERROR_RT_STREAM_CAPTURED,	"the stream is being captured" },
		{ ACLI_ECAPMODE, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,	"a capture mode forbids this call now" },
		{ ACLI_ECAPBLOCK, ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC, "a capture mode forbids this call, which runs synchronously here" },
		{ ACLI_EMODELCAPTURED, ACL_ERROR_RT_MODEL_CAPTURED,	"the model is still being captured" },
		{ ACLI_EMODELCTX, ACL_ERROR_RT_MODEL_CONTEXT,		"the model belongs to another context" },
		{ ACLI_ECAPTHREAD, ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD, "the capture was begun by another thread" },
		{ ACLI_ECAPINVALID, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, "the capture was invalidated" },
		{ ACLI_EMODELEXEC, ACL_ERROR_RT_MODEL_EXECUTE,		"the model cannot be executed" },
		{ ACLI_ENOMODELRES, ACL_ERROR_RT_NO_MODEL_RESOURCE,	"no model left" },
		{ ACLI_ELABELCTX, ACL_ERROR_RT_LABEL_CONTEXT,		"the label belongs to another context" },
		{ ACLI_ECAPDEP, ACL_ERROR_RT_CAPTURE_DEPENDENCY,	"a captured wait for work that was not captured" },
		{ ACLI_ECAPUNJOINED, ACL_ERROR_RT_STREAM_UNJOINED,	"a stream of the capture was not joined back to its origin" },
		{ ACLI_ECAPIMPLICIT, ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT, "the default stream cannot join a capture" },
		{ ACLI_ECAPCONFLICT, ACL_ERROR_STREAM_CAPTURE_CONFLICT,	"the stream belongs to another capture" },
		{ ACLI_ECAPUNMATCHED, ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED, "the capture was begun on another stream" },
		{ ACLI_EARRAYSHORT, ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY, "the array is too short" },
		{ ACLI_EMODELUPDATE, ACL_ERROR_RT_MODEL_UPDATE_FAILED, "the model cannot be updated" },
		{ ACLI_EMODELRUNNING, ACL_ERROR_RT_MODEL_RUNNING,	"the model is still running" },
		{ ACLI_ETASKGRPSTATUS, ACL_ERROR_STREAM_TASK_GROUP_STATUS, "the stream's task group state does not allow it" },
		{ ACLI_ETASKGRPINTR, ACL_ERROR_STREAM_TASK_GROUP_INTR, "a task of another stream interrupted a task group" },
		{ ACLI_ETASKTYPE, ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, "a task group takes no task of this kind" },
		{ ACLI_EGROUPNOTCREATE, ACL_ERROR_RT_GROUP_NOT_CREATE, "no such compute group on the device" },
		{ ACLI_ESYMBOL,	ACL_ERROR_RT_SYMBOL_NOT_FOUND,		"the binary has no such global symbol" },
		{ ACLI_EDEVFUNC, ACL_ERROR_RT_INVALID_DEVICE_FUNCTION,	"no kernel function for that symbol" },
		{ ACLI_EAICORE, ACL_ERROR_RT_AICORE_EXCEPTION,	"a kernel faulted on an AI core" },
		{ ACLI_EAICORETRAP, ACL_ERROR_RT_AICORE_TRAP_EXCEPTION,	"a kernel trapped on an AI core" },
	};
	size_t i;

	if (err == ACLI_EUSER) {
		*what = "a callback of the application failed";
		return acl_user_code;
	}

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (map[i].err == err) {
			*what = map[i].what;
			return map[i].code;
		}
	}
	*what = NULL;
	return ACL_ERROR_RT_INTERNAL_ERROR;
}

int acl_errf(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(acl_detail, sizeof(acl_detail), fmt, ap);
	va_end(ap);
	return err;
}

void acl_err_clear(void)
{
	acl_detail[0] = '\0';
	acl_last_rule = ACL_LAST_BY_CODE;
}

void acl_err_hold(struct acl_err_held *h)
{
	_Static_assert(sizeof(h->detail) == sizeof(acl_detail), "acl_err_held holds one reason");
	memcpy(h->detail, acl_detail, sizeof(h->detail));
	h->rule = acl_last_rule;
	acl_err_clear();
}

void acl_err_resume(const struct acl_err_held *h)
{
	memcpy(acl_detail, h->detail, sizeof(acl_detail));
	acl_last_rule = h->rule;
}

int acl_nolast(int err)
{
	acl_last_rule = ACL_LAST_NO;
	return err;
}

int acl_user_err(aclError code)
{
	acl_user_code = code;
	acl_last_rule = ACL_LAST_NO;
	return ACLI_EUSER;
}

int acl_setlast(int err)
{
	acl_last_rule = ACL_LAST_YES;
	return err;
}

/* Does failure @code become the last error, by its site's word or its layer? */
static bool acl_sets_last(aclError code)
{
	if (acl_last_rule != ACL_LAST_BY_CODE)
		return acl_last_rule == ACL_LAST_YES;
	/*
	 * The runtime's codes are 107xxx, 207xxx and 507xxx, and libacl's
	 * ACL_ERROR_RT_FAILURE for a device task's fault; the others are the
	 * acl layer's.
	 */
	if (code == ACL_ERROR_RT_FAILURE)
		return true;
	return (code / 1000) % 100 == 7 && code != ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}

/*
 * Put the message of a failure in front of those not yet taken, newest
 * first, one per line. When they do not all fit, the oldest lines go
 * (whole lines only); one line alone is truncated. Truncation is fine:
 * the message is for humans.
 */
static void __acl_printf(1, 2) acl_msg_push(const char *fmt, ...)
{
	char line[ACL_LINE_MAX];
	size_t n, keep, old = strlen(acl_msg);
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = len < 0 ? 0 : (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1;
	line[n] = '\0';

	/* room for "line\nold" and the NUL */
	keep = sizeof(acl_msg) - 2 - n;
	if (old <= keep) {
		keep = old;
	} else {
		while (keep && acl_msg[keep] != '\n')
			keep--;
	}
	if (keep) {
		memmove(acl_msg + n + 1, acl_msg, keep);
		acl_msg[n] = '\n';
		acl_msg[n + 1 + keep] = '\0';
	} else {
		acl_msg[n] = '\0';
	}
	memcpy(acl_msg, line, n);
}

aclError acl_ret(const char *api, int err)
{
	aclError code;
	const char *what;

	if (err >= 0) {
		acl_err_clear();
		return ACL_SUCCESS;
	}
	code = acl_code_of(err, &what);
	if (acl_detail[0])
		what = acl_detail;
	if (what)
		acl_msg_push("%s: %s", api, what);
	else
		acl_msg_push("%s: internal error %d (%s)", api, -err,
			     strerrorname_np(-err) ?: "unknown errno");
	if (acl_sets_last(code))
		acl_last_err = code;
	acl_err_clear();
	return code;
}

aclError acl_ret_quiet(const char *api, int err)
{
	const char *what;

	(void)api;
	acl_err_clear();
	return err >= 0 ? ACL_SUCCESS : acl_code_of(err, &what);
}

ACL_EXPORT const char *aclGetRecentErrMsg(void)
{
	if (!acl_msg[0])
		return NULL;
	memcpy(acl_msg_out, acl_msg, sizeof(acl_msg_out));
	acl_msg[0] = '\0';
	return acl_msg_out;
}

static int acl_check_level(aclrtLastErrLevel level)
{
	if (level != ACL_RT_THREAD_LEVEL)
		return acl_errf(-EINVAL, "level %d must be ACL_RT_THREAD_LEVEL (0)", (int)level);
	return 0;
}

ACL_EXPORT aclError aclrtGetLastError(aclrtLastErrLevel level)
{
	aclError code = acl_last_err;
	int ret = acl_check_level(level);

	if (ret)
		return acl_ret(__func__, ret);
	acl_last_err = ACL_SUCCESS;
	return code;
}

ACL_EXPORT aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
	int ret = acl_check_level(level);

	if (ret)
		return acl_ret(__func__, ret);
	return acl_last_err;
}
