/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the libacl tests (tests/lib_*.c), on top of harness.h.
 *
 * ASSERT_ACL(expected, call) checks the aclError of @call; every failure
 * must also leave a message for aclGetRecentErrMsg() that starts with the
 * API's name, which the macro checks (and prints on a mismatch).
 */
#ifndef NPU_TESTS_LIB_UTIL_H
#define NPU_TESTS_LIB_UTIL_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "harness.h"
#include "npu_proc.h"

#define KiB	(1024ULL)
#define MiB	(1024ULL * KiB)
#define GiB	(1024ULL * MiB)

static inline bool __acl_msg_ok(const char *call, const char *msg)
{
	size_t n = strcspn(call, "( ");

	return msg && !strncmp(msg, call, n) && msg[n] == ':';
}

#define __ACL_CHECK(exp, call, assert) do {					\
	aclError __want = (exp);						\
	aclError __got = (call);						\
	const char *__msg = __got != ACL_SUCCESS ? aclGetRecentErrMsg() : NULL;	\
	if (__got != __want)							\
		TH_LOG("%s -> %d, want %d: %s", #call, __got, __want,		\
		       __msg ? __msg : "(no message)");				\
	else if (__got != ACL_SUCCESS && !__acl_msg_ok(#call, __msg))		\
		TH_LOG("%s failed as expected but its message is \"%s\"",	\
		       #call, __msg ? __msg : "(null)");			\
	if (assert) {								\
		ASSERT_EQ(__want, __got);					\
		if (__got != ACL_SUCCESS)					\
			ASSERT_TRUE(__acl_msg_ok(#call, __msg));		\
	} else {								\
		EXPECT_EQ(__want, __got);					\
		if (__got != ACL_SUCCESS)					\
			EXPECT_TRUE(__acl_msg_ok(#call, __msg));		\
	}									\
} while (0)

#define ASSERT_ACL(exp, call)	__ACL_CHECK(exp, call, true)
#define EXPECT_ACL(exp, call)	__ACL_CHECK(exp, call, false)
#define ASSERT_ACL_OK(call)	__ACL_CHECK(ACL_SUCCESS, call, true)
#define EXPECT_ACL_OK(call)	__ACL_CHECK(ACL_SUCCESS, call, false)

static inline bool have_npu(int n)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/npu%d", n);
	return access(path, F_OK) == 0;
}

/* The library's file of /dev/npu0, found through /proc/self/fd; -1 if none. */
static inline int lib_npu_fd(void)
{
	return npu_proc_dev_fd("/dev/npu0", -1);
}

/* Initialised library with device 0 current; skips without /dev/npu0. */
#define NEED_DEVICE() do {							\
	if (!have_npu(0))							\
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");		\
	ASSERT_ACL_OK(aclInit(NULL));						\
	ASSERT_ACL_OK(aclrtSetDevice(0));					\
} while (0)

/* npu.ko's soc_name (the chip profile), "" if the module is not loaded. */
static inline void lib_soc_name(char *buf, size_t len)
{
	FILE *f = fopen("/sys/module/npu/parameters/soc_name", "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

/* Does npu.ko's soc_name start with @prefix ("Ascend310B": the 310B class)? */
static inline bool lib_soc_is(const char *prefix)
{
	char soc[64];

	lib_soc_name(soc, sizeof(soc));
	return !strncmp(soc, prefix, strlen(prefix));
}

/*
 * Is npu.ko's chip 910B-class, as libacl takes it: a 910B or 910_93 part,
 * or a name CANN has no platform file for (the simulated chip)? CANN's
 * other parts (310B, 310P, 910A, ...) start "Ascend" and lack some calls.
 */
static inline bool lib_soc_910b_class(void)
{
	char soc[64];

	lib_soc_name(soc, sizeof(soc));
	/* "Ascend910B" alone is an older training part (NPU architecture 1001) */
	return (!strncmp(soc, "Ascend910B", 10) && soc[10]) || !strncmp(soc, "Ascend910_93", 12) ||
	       strncmp(soc, "Ascend", 6);
}

/* A physical-memory prop on device 0 with @attr. */
static inline aclrtPhysicalMemProp prop_for(aclrtMemAttr attr)
{
	aclrtPhysicalMemProp p = {
		.handleType = ACL_MEM_HANDLE_TYPE_NONE,
		.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED,
		.memAttr = attr,
		.location = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
	};
	return p;
}

/* Access @flags for location 0 of @type (device 0, or the host). */
static inline aclrtMemAccessDesc access_desc(aclrtMemLocationType type, aclrtMemAccessFlags flags)
{
	aclrtMemAccessDesc d;

	memset(&d, 0, sizeof(d));
	d.flags = flags;
	d.location.type = type;
	d.location.id = 0;
	return d;
}

/* Read-write access for device 0. */
static inline aclrtMemAccessDesc rw_desc(void)
{
	return access_desc(ACL_MEM_LOCATION_TYPE_DEVICE, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
}

static inline void fill_pattern(void *p, size_t n, unsigned int seed)
{
	unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++)
		c[i] = (unsigned char)(i * 131 + seed + (i >> 12));
}

/* Device bytes [@off, +@len) of @va equal @model's. */
static inline bool dev_range_matches(const char *va, const char *model, size_t off, size_t len)
{
	char *back = malloc(len);
	bool ok;

	ok = back && aclrtMemcpy(back, len, va + off, len, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS &&
	     !memcmp(back, model + off, len);
	free(back);
	return ok;
}

/* Index of the first byte that differs from the pattern, or -1. */
static inline long long check_pattern(const void *p, size_t n, unsigned int seed)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i] != (unsigned char)(i * 131 + seed + (i >> 12)))
			return (long long)i;
	return -1;
}

static inline long long check_byte(const void *p, size_t n, unsigned char v)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i] != v)
			return (long long)i;
	return -1;
}

/* All tasks of @m's one stream into @t (at most @max); their number. */
static inline uint32_t model_tasks(aclmdlRI m, aclmdlRITask *t, uint32_t max)
{
	aclrtStream ms = NULL;
	uint32_t n = 1;

	if (aclmdlRIGetStreams(m, &ms, &n) || n != 1)
		return 0;
	n = max;
	if (aclmdlRIGetTasksByStream(ms, t, &n))
		return 0;
	return n;
}

/*
 * The end of a capture on @s whose steps answered @e: the graph into
 * *@m, or, after a failed step, the capture ended and its graph dropped
 * (@e is the answer).
 */
static inline aclError capture_finish(aclrtStream s, aclError e, aclmdlRI *m)
{
	aclmdlRI dead = NULL;

	if (!e)
		return aclmdlRICaptureEnd(s, m);
	aclmdlRICaptureEnd(s, &dead);
	aclmdlRIDestroy(dead);
	return e;
}

/* A host function of a graph's run that destroys the graph (aclmdlRIDestroy of d->m in d->ctx): its answer. */
struct destroy_own {
	aclrtContext ctx;
	aclmdlRI m;
	aclError ret;
	int calls;
};

static inline void hf_destroy_own(void *arg)
{
	struct destroy_own *d = arg;

	d->calls++;
	d->ret = aclrtSetCurrentContext(d->ctx);
	if (!d->ret)
		d->ret = aclmdlRIDestroy(d->m);
}

#endif /* NPU_TESTS_LIB_UTIL_H */
