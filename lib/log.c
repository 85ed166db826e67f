// SPDX-License-Identifier: MIT
/*
 * aclAppLog: the application's log lines, through libacl's log. libacl
 * has no log daemon (CANN's dlog); its log is standard error, one write()
 * per line so that lines of concurrent threads do not interleave:
 *
 *   [ERROR] APP(<pid>): <tid> <func>:<file>:<line>: "<body>"
 *
 * The part after "APP(<pid>): " is CANN's line (src/acl/aclrt_impl/log.cpp),
 * limited like it to 1023 bytes, a cut one ending in "...[truncated]".
 * A line is written when its level is at least ASCEND_GLOBAL_LOG_LEVEL
 * (0 debug .. 3 error, the default; 4 or more: none), read at each call.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <acl/acl.h>

#include "error.h"

#define ACL_LOG_LINE_MAX	1024	/* CANN's MAX_LOG_STRING, the NUL included */
#define ACL_LOG_TRUNCATED	"...[truncated]"

/* ASCEND_GLOBAL_LOG_LEVEL, or ERROR when unset or not a number. */
static int acl_log_threshold(void)
{
	const char *env = getenv("ASCEND_GLOBAL_LOG_LEVEL");
	char *end;
	long v;

	if (!env || !*env)
		return ACL_ERROR;
	v = strtol(env, &end, 10);
	if (*end || v < ACL_DEBUG)
		return ACL_ERROR;
	return v > ACL_ERROR + 1 ? ACL_ERROR + 1 : (int)v;
}

static const char *const acl_log_names[] = { "DEBUG", "INFO", "WARNING", "ERROR" };

ACL_EXPORT void aclAppLogWithArgs(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
				  const char *fmt, va_list args)
{
	char body[ACL_LOG_LINE_MAX], msg[ACL_LOG_LINE_MAX], out[ACL_LOG_LINE_MAX + 64];
	int n, head;

	if (!fmt || !func || !file)
		return;
	/* values beyond ERROR are no level: nothing to write */
	if ((unsigned int)logLevel > ACL_ERROR || (int)logLevel < acl_log_threshold())
		return;
	n = vsnprintf(body, sizeof(body), fmt, args);
	if (n < 0)
		return;
	head = snprintf(msg, sizeof(msg), "%ld %s:%s:%u: \"%s\"", (long)syscall(SYS_gettid), func, file,
			line, body);
	if (head < 0)
		return;
	if (n >= ACL_LOG_LINE_MAX - 1 || head >= ACL_LOG_LINE_MAX - 1)
		strcpy(msg + ACL_LOG_LINE_MAX - sizeof(ACL_LOG_TRUNCATED), ACL_LOG_TRUNCATED);
	n = snprintf(out, sizeof(out), "[%s] APP(%d): %s\n", acl_log_names[logLevel], (int)getpid(), msg);
	if (n > 0 && write(STDERR_FILENO, out, (size_t)n < sizeof(out) ? (size_t)n : sizeof(out) - 1) < 0)
		return;	/* nowhere to report it */
}

ACL_EXPORT void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
			  const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	aclAppLogWithArgs(logLevel, func, file, line, fmt, args);
	va_end(args);
}
