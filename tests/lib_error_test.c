// SPDX-License-Identifier: MIT
/*
 * libacl's error layer on its own (lib/error.c is compiled into this
 * program): what acl_ret() and acl_ret_quiet() record for each kind of
 * result. The behaviour seen through the API is in lib_api_test.c.
 */
#include "../lib/error.c"

#include "harness.h"

static aclError peek(void)
{
	return aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
}

TEST(success_records_nothing)
{
	acl_errf(-EINVAL, "a reason of a step whose failure was handled");
	EXPECT_EQ(ACL_SUCCESS, acl_ret("f", 0));
	EXPECT_EQ(ACL_SUCCESS, acl_ret("f", 5));
	EXPECT_NULL(aclGetRecentErrMsg());
	EXPECT_EQ(ACL_SUCCESS, peek());
	/* the reason went with the success */
	EXPECT_EQ(ACL_ERROR_RT_FAILURE, acl_ret("g", -EIO));
	EXPECT_STREQ("g: device command faulted", aclGetRecentErrMsg());
}

TEST(acl_layer_param_sets_message_only)
{
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, acl_ret("f", acl_errf(-EINVAL, "x must not be NULL")));
	EXPECT_STREQ("f: x must not be NULL", aclGetRecentErrMsg());
	EXPECT_EQ(ACL_SUCCESS, peek());
}

TEST(runtime_failure_sets_both)
{
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, acl_ret("f", acl_errf(ACLI_ERTPARAM, "bad value")));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, peek());
	EXPECT_STREQ("f: bad value", aclGetRecentErrMsg());
	/* no reason recorded: the table's */
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, acl_ret("g", ACLI_ENOCTX));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, peek());
	EXPECT_STREQ("g: no current device: call aclrtSetDevice first", aclGetRecentErrMsg());
	/* an errno without an entry */
	EXPECT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, acl_ret("h", -EXDEV));
	EXPECT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_STREQ("h: internal error 18 (EXDEV)", aclGetRecentErrMsg());
}

TEST(quiet_result_records_nothing)
{
	acl_errf(ACLI_ENOCTX, "no context");
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, acl_ret_quiet("f", ACLI_ENOCTX));
	EXPECT_EQ(ACL_SUCCESS, peek());
	EXPECT_NULL(aclGetRecentErrMsg());
	EXPECT_EQ(ACL_SUCCESS, acl_ret_quiet("f", 0));
	/* its reason is dropped, not left for the next failure */
	EXPECT_EQ(ACL_ERROR_RT_FAILURE, acl_ret("g", -EIO));
	EXPECT_STREQ("g: device command faulted", aclGetRecentErrMsg());
	/* and it leaves what earlier failures recorded */
	EXPECT_EQ(ACL_ERROR_RT_FAILURE, acl_ret_quiet("h", ACLI_ETASKFAULT));
	EXPECT_EQ(ACL_ERROR_RT_FAILURE, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_EQ(ACL_ERROR_RT_FAILURE, acl_ret("i", -EIO));
	EXPECT_EQ(ACL_ERROR_RT_STREAM_NO_CB_REG, acl_ret_quiet("j", ACLI_ENOCBREG));
	EXPECT_EQ(ACL_ERROR_RT_FAILURE, peek());
	EXPECT_STREQ("i: device command faulted", aclGetRecentErrMsg());
}

/* Which failures become the last error: the runtime's, unless marked (CANN's layers). */
TEST(last_error_by_layer_and_site)
{
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	/* the acl layer's codes: never */
	EXPECT_EQ(ACL_ERROR_UNINITIALIZE, acl_ret("a", ACLI_EUNINIT));
	EXPECT_EQ(ACL_ERROR_INVALID_FILE, acl_ret("a", ACLI_EFILE));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, acl_ret("a", -EINVAL));
	EXPECT_EQ(ACL_SUCCESS, peek());
	/* 207000: only when its site says so */
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, acl_ret("b", ACLI_ERTNOTSUPP));
	EXPECT_EQ(ACL_SUCCESS, peek());
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, acl_ret("b", acl_setlast(ACLI_ERTNOTSUPP)));
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	/* other runtime codes: unless their site says not */
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, acl_ret("c", acl_nolast(ACLI_ERTPARAM)));
	EXPECT_EQ(ACL_SUCCESS, peek());
	/* the mark is the one failure's: the next is judged by its code */
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, acl_ret("c", ACLI_ERTPARAM));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	acl_nolast(0);
	EXPECT_EQ(ACL_SUCCESS, acl_ret("d", 0));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, acl_ret("d", ACLI_ENOCTX));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	/* a handled step's mark goes with its reason */
	acl_setlast(acl_errf(ACLI_ERTNOTSUPP, "handled"));
	acl_err_clear();
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, acl_ret("e", ACLI_ERTNOTSUPP));
	EXPECT_EQ(ACL_SUCCESS, peek());
	(void)aclGetRecentErrMsg();
}

TEST(long_reason_is_cut_to_one_line)
{
	char reason[2000];
	const char *msg;

	memset(reason, 'r', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	EXPECT_EQ(ACL_ERROR_RT_FAILURE, acl_ret("f", -EIO));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, acl_ret("g", acl_errf(-EINVAL, "%s", reason)));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	/* one line holds at most ACL_LINE_MAX - 1 bytes */
	EXPECT_EQ(ACL_LINE_MAX - 1 + strlen("\nf: device command faulted"), strlen(msg));
	EXPECT_EQ(0, strncmp(msg, "g: rrr", 6));
	EXPECT_STREQ("\nf: device command faulted", strchr(msg, '\n'));
}

TEST(oldest_lines_go_first)
{
	const char *msg;
	char want[16];
	int i, n;

	for (i = 0; i < 1000; i++)
		acl_ret("f", acl_errf(-EINVAL, "%04d", i));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_LT(strlen(msg), (size_t)ACL_MSG_MAX);
	/* "f: NNNN\n" is 8 bytes: as many whole lines as fit, newest first */
	n = ACL_MSG_MAX / 8;
	EXPECT_EQ((size_t)n * 8 - 1, strlen(msg));
	for (i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "f: %04d", 999 - i);
		EXPECT_EQ(0, strncmp(msg + 8 * i, want, 7));
	}
}

TEST_HARNESS_MAIN
