/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/harness.h - the npu project's test harness (kselftest-like, TAP 13).
 *
 * A test program is one .c file that includes this header once:
 *
 *	#include "harness.h"
 *
 *	TEST(alloc_free) {
 *		int fd = open("/dev/npu0", O_RDWR);
 *		ASSERT_LE(0, fd);
 *		...
 *	}
 *
 *	FIXTURE(dev) { int fd; };
 *	FIXTURE_VARIANT(dev) { size_t size; };		// optional
 *	FIXTURE_VARIANT_ADD(dev, small) { .size = 4096 };
 *	FIXTURE_VARIANT_ADD(dev, large) { .size = 1 << 20 };
 *	FIXTURE_SETUP(dev) { self->fd = open("/dev/npu0", O_RDWR); ASSERT_LE(0, self->fd); }
 *	FIXTURE_TEARDOWN(dev) { close(self->fd); }
 *	TEST_F(dev, map) { ... self->fd ... variant->size ... }
 *
 *	TEST_HARNESS_MAIN
 *
 * Each test (each fixture test once per variant, named fixture.variant.test)
 * runs in its own forked child, in its own process group, with a timeout
 * (30 s by default; TEST_TIMEOUT / TEST_F_TIMEOUT set another; the
 * environment variable HARNESS_TIMEOUT_SCALE multiplies all of them).
 * The child's exit status is the verdict: 0 pass, 1 fail, 4 skip (SKIP()).
 * A child killed by a signal or by the timeout fails, unless the test was
 * declared with TEST_SIGNAL(name, signo) and died of that signal.
 *
 * Output is TAP 13: "TAP version 13", "1..N", then per test "ok N name",
 * "not ok N name" or "ok N name # SKIP reason"; diagnostics are lines
 * starting with "# ". The program exits 0 if no test failed, else 1.
 *
 * Assertions: ASSERT_* stop the test (teardown still runs), EXPECT_* record
 * the failure and continue. Both print file:line, the expressions and their
 * values:
 *	ASSERT_EQ/NE/LT/LE/GT/GE(expected, seen)   compare as C does
 *	ASSERT_TRUE/FALSE(expr), ASSERT_NULL/NONNULL(ptr)
 *	ASSERT_STREQ/STRNE(a, b)
 *	ASSERT_ERRNO(expr, ERR)     expr == -1 && errno == ERR
 *	ASSERT_OK(expr)             expr == 0 (prints errno otherwise)
 * and the EXPECT_ forms of all of them. For context on a failure, print it
 * with TH_LOG() before the assertion.
 *
 * Other helpers:
 *	TH_LOG(fmt, ...)            a "# file:line: ..." diagnostic line
 *	SKIP(statement, fmt, ...)   report a skip with a reason, then run
 *	                            statement (usually return;)
 *	npu_expect_dma_faults(bool) write the kmsg markers that tell the VM log
 *	                            check that npu DMA-fault lines are expected
 *	                            (true) or not any more (false); the harness
 *	                            closes a region left open by a test.
 *
 * Command line of a test program:
 *	-l           list the test names
 *	-t GLOB      run only tests whose name matches GLOB (repeatable)
 *	-T GLOB      do not run tests whose name matches GLOB (repeatable)
 *
 * In the VM (NPU_VM set), the harness also writes "npu-test: PROG: TEST"
 * to /dev/kmsg when a test starts, so kernel-log findings name the test.
 */
#ifndef NPU_TEST_HARNESS_H
#define NPU_TEST_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HARNESS_DEFAULT_TIMEOUT	30
#define HARNESS_SKIP_STATUS	4

/* ------------------------------------------------------------------ */
/* Registry                                                            */
/* ------------------------------------------------------------------ */

struct __th_fixture;

struct __th_variant {
	const char *name;
	const void *data;
	int line;
	int seq;			/* registration order: ties of line */
	struct __th_variant *next;
};

struct __th_test {
	const char *name;
	int line;
	int timeout;
	int signal;			/* expected terminating signal, 0: none */
	void (*fn)(const struct __th_test *t, const struct __th_variant *v);
	struct __th_fixture *fixture;	/* NULL for plain TEST() */
	struct __th_test *next;
};

struct __th_fixture {
	const char *name;
	struct __th_variant *variants;
};

/* Shared (MAP_SHARED) between the runner and a test's child. */
struct __th_shared {
	int failed;
	int skipped;
	int dma_faults_expected;
	char reason[512];
};

static struct __th_test *__th_tests;
static struct __th_shared *__th_sh;
static sigjmp_buf __th_jmp;
static int __th_in_child;
static const char *__th_prog = "test";

static inline void __th_register(struct __th_test *t)
{
	t->next = __th_tests;
	__th_tests = t;
}

static inline void __th_register_variant(struct __th_fixture *f, struct __th_variant *v)
{
	static int seq;

	v->seq = ++seq;
	v->next = f->variants;
	f->variants = v;
}

/* ------------------------------------------------------------------ */
/* Declarations                                                        */
/* ------------------------------------------------------------------ */

#define __TH_CAT2(a, b) a##b
#define __TH_CAT(a, b) __TH_CAT2(a, b)

#define TEST(name)			__TEST_IMPL(name, HARNESS_DEFAULT_TIMEOUT, 0)
#define TEST_TIMEOUT(name, secs)	__TEST_IMPL(name, secs, 0)
#define TEST_SIGNAL(name, signo)	__TEST_IMPL(name, HARNESS_DEFAULT_TIMEOUT, signo)

#define __TEST_IMPL(tname, secs, signo)						\
	static void __th_body_##tname(void);					\
	static void __th_run_##tname(const struct __th_test *t,			\
				     const struct __th_variant *v)		\
	{									\
		(void)t; (void)v;						\
		__th_body_##tname();						\
	}									\
	static struct __th_test __th_test_##tname = {				\
		.name = #tname, .line = __LINE__, .timeout = (secs),		\
		.signal = (signo), .fn = __th_run_##tname,			\
	};									\
	static void __attribute__((constructor)) __th_ctor_##tname(void)	\
	{									\
		__th_register(&__th_test_##tname);				\
	}									\
	static void __th_body_##tname(void)

/*
 * FIXTURE(name) { members };  -- the per-test data, reached as self->member
 * in FIXTURE_SETUP, FIXTURE_TEARDOWN and TEST_F.
 */
#define FIXTURE(fname)								\
	struct __th_variant_##fname;						\
	static struct __th_fixture __th_fixture_##fname = { .name = #fname };	\
	struct __th_data_##fname

#define FIXTURE_DATA(fname)	struct __th_data_##fname
#define FIXTURE_VARIANT(fname)	struct __th_variant_##fname

#define FIXTURE_SETUP(fname)							\
	static void __th_setup_##fname(					\
		struct __th_data_##fname *self __attribute__((unused)),		\
		const struct __th_variant_##fname *variant __attribute__((unused)))

#define FIXTURE_TEARDOWN(fname)							\
	static void __th_teardown_##fname(					\
		struct __th_data_##fname *self __attribute__((unused)),		\
		const struct __th_variant_##fname *variant __attribute__((unused)))

/* FIXTURE_VARIANT_ADD(fixture, name) { .member = value, ... }; */
#define FIXTURE_VARIANT_ADD(fname, vname)					\
	static const struct __th_variant_##fname __th_vdata_##fname##_##vname;	\
	static struct __th_variant __th_var_##fname##_##vname = {		\
		.name = #vname, .data = &__th_vdata_##fname##_##vname,		\
		.line = __LINE__,						\
	};									\
	static void __attribute__((constructor))				\
	__th_vctor_##fname##_##vname(void)					\
	{									\
		__th_register_variant(&__th_fixture_##fname,			\
				      &__th_var_##fname##_##vname);		\
	}									\
	static const struct __th_variant_##fname __th_vdata_##fname##_##vname =

#define TEST_F(fname, tname)	__TEST_F_IMPL(fname, tname, HARNESS_DEFAULT_TIMEOUT, 0)
#define TEST_F_TIMEOUT(fname, tname, secs) __TEST_F_IMPL(fname, tname, secs, 0)
#define TEST_F_SIGNAL(fname, tname, signo) __TEST_F_IMPL(fname, tname, HARNESS_DEFAULT_TIMEOUT, signo)

#define __TEST_F_IMPL(fname, tname, secs, signo)				\
	static void __th_fbody_##fname##_##tname(struct __th_data_##fname *self, \
			const struct __th_variant_##fname *variant);		\
	static void __th_frun_##fname##_##tname(const struct __th_test *t,	\
			const struct __th_variant *v)				\
	{									\
		static struct __th_data_##fname self;				\
		static const struct __th_variant_##fname *variant;		\
		variant = v ? (const struct __th_variant_##fname *)v->data : NULL; \
		(void)t;							\
		memset(&self, 0, sizeof(self));					\
		if (sigsetjmp(__th_jmp, 0) == 0) {				\
			__th_setup_##fname(&self, variant);			\
			if (!__th_sh->skipped && !__th_sh->failed &&		\
			    sigsetjmp(__th_jmp, 0) == 0)			\
				__th_fbody_##fname##_##tname(&self, variant);	\
			if (sigsetjmp(__th_jmp, 0) == 0)			\
				__th_teardown_##fname(&self, variant);		\
		}								\
	}									\
	static struct __th_test __th_ftest_##fname##_##tname = {		\
		.name = #tname, .line = __LINE__, .timeout = (secs),		\
		.signal = (signo), .fn = __th_frun_##fname##_##tname,		\
		.fixture = &__th_fixture_##fname,				\
	};									\
	static void __attribute__((constructor))				\
	__th_fctor_##fname##_##tname(void)					\
	{									\
		__th_register(&__th_ftest_##fname##_##tname);			\
	}									\
	static void __th_fbody_##fname##_##tname(				\
		struct __th_data_##fname *self __attribute__((unused)),		\
		const struct __th_variant_##fname *variant __attribute__((unused)))

/* ------------------------------------------------------------------ */
/* Reporting                                                           */
/* ------------------------------------------------------------------ */

#define TH_LOG(fmt, ...)							\
	__th_log(__FILE__, __LINE__, fmt, ##__VA_ARGS__)

static inline void __attribute__((format(printf, 3, 4)))
__th_log(const char *file, int line, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("# %s:%d: %s\n", file, line, buf);
	fflush(stdout);
}

/* Ends the test (assert == true) or records the failure (EXPECT). */
static inline void __th_fail(bool assert)
{
	if (__th_sh)
		__th_sh->failed = 1;
	fflush(stdout);
	if (assert) {
		if (__th_in_child)
			siglongjmp(__th_jmp, 1);
		exit(1);	/* assertion outside a test */
	}
}

#define SKIP(statement, fmt, ...) do {						\
	if (__th_sh) {								\
		snprintf(__th_sh->reason, sizeof(__th_sh->reason),		\
			 fmt, ##__VA_ARGS__);					\
		__th_sh->skipped = 1;						\
	}									\
	printf("# %s:%d: SKIP: " fmt "\n", __FILE__, __LINE__, ##__VA_ARGS__);	\
	fflush(stdout);								\
	statement;								\
} while (0)

/*
 * Value printing: _Generic picks a printer by the operand's type; the
 * printer gets the value's address, so no conversion of an unrelated type
 * has to compile.
 */
static inline void __th_pr_s(char *b, size_t n, const void *p, size_t sz)
{
	long long v;

	switch (sz) {
	case 1: v = *(const signed char *)p; break;
	case 2: v = *(const short *)p; break;
	case 4: v = *(const int *)p; break;
	default: v = *(const long long *)p; break;
	}
	snprintf(b, n, "%lld (0x%llx)", v, (unsigned long long)v);
}

static inline void __th_pr_u(char *b, size_t n, const void *p, size_t sz)
{
	unsigned long long v;

	switch (sz) {
	case 1: v = *(const unsigned char *)p; break;
	case 2: v = *(const unsigned short *)p; break;
	case 4: v = *(const unsigned int *)p; break;
	default: v = *(const unsigned long long *)p; break;
	}
	snprintf(b, n, "%llu (0x%llx)", v, v);
}

static inline void __th_pr_b(char *b, size_t n, const void *p, size_t sz)
{
	(void)sz;
	snprintf(b, n, "%s", *(const bool *)p ? "true" : "false");
}

static inline void __th_pr_f(char *b, size_t n, const void *p, size_t sz)
{
	snprintf(b, n, "%g", sz == sizeof(float) ? (double)*(const float *)p :
					     *(const double *)p);
}

static inline void __th_pr_p(char *b, size_t n, const void *p, size_t sz)
{
	if (sz == sizeof(void *))
		snprintf(b, n, "%p", *(void *const *)p);
	else
		snprintf(b, n, "<%zu-byte value>", sz);
}

#define __th_printer(x) _Generic((x),						\
	bool: __th_pr_b,							\
	char: __th_pr_s, signed char: __th_pr_s, short: __th_pr_s,		\
	int: __th_pr_s, long: __th_pr_s, long long: __th_pr_s,			\
	unsigned char: __th_pr_u, unsigned short: __th_pr_u,			\
	unsigned int: __th_pr_u, unsigned long: __th_pr_u,			\
	unsigned long long: __th_pr_u,						\
	float: __th_pr_f, double: __th_pr_f,					\
	default: __th_pr_p)

static inline void __th_report_cmp(const char *file, int line, const char *e,
				   const char *op, const char *s,
				   const char *ev, const char *sv)
{
	printf("# %s:%d: Expected %s (%s) %s %s (%s)\n", file, line, e, ev, op, s, sv);
}

#define __TH_CMP(expected, op, seen, assert) do {				\
	__auto_type __e = (expected);						\
	__auto_type __s = (seen);						\
	_Pragma("GCC diagnostic push")						\
	_Pragma("GCC diagnostic ignored \"-Wsign-compare\"")			\
	if (!(__e op __s)) {							\
	_Pragma("GCC diagnostic pop")						\
		char __eb[64], __sb[64];					\
		__th_printer(__e)(__eb, sizeof(__eb), &__e, sizeof(__e));	\
		__th_printer(__s)(__sb, sizeof(__sb), &__s, sizeof(__s));	\
		__th_report_cmp(__FILE__, __LINE__, #expected, #op, #seen,	\
				__eb, __sb);					\
		__th_fail(assert);						\
	}									\
} while (0)

#define __TH_BOOL(expr, want, assert) do {					\
	bool __v = (expr);							\
	if (__v != (want)) {							\
		printf("# %s:%d: Expected %s to be %s\n", __FILE__, __LINE__,	\
		       #expr, (want) ? "true" : "false");			\
		__th_fail(assert);						\
	}									\
} while (0)

#define __TH_PTR(expr, null, assert) do {					\
	const void *__p = (expr);						\
	if ((__p == NULL) != (null)) {						\
		printf("# %s:%d: Expected %s (%p) to be %s\n", __FILE__,	\
		       __LINE__, #expr, __p, (null) ? "NULL" : "non-NULL");	\
		__th_fail(assert);						\
	}									\
} while (0)

#define __TH_STR(a, b, eq, assert) do {						\
	const char *__a = (a), *__b = (b);					\
	if ((strcmp(__a ? __a : "(null)", __b ? __b : "(null)") == 0) != (eq)) { \
		printf("# %s:%d: Expected %s \"%s\" %s %s \"%s\"\n", __FILE__,	\
		       __LINE__, #a, __a ? __a : "(null)", (eq) ? "==" : "!=",	\
		       #b, __b ? __b : "(null)");				\
		__th_fail(assert);						\
	}									\
} while (0)

#define __TH_ERRNO(expr, err, assert) do {					\
	errno = 0;								\
	long long __r = (long long)(expr);					\
	int __en = errno, __want = (err);					\
	if (__r != -1 || __en != __want) {					\
		printf("# %s:%d: Expected %s to fail with %s (%d), got %lld, "	\
		       "errno %s (%d)\n", __FILE__, __LINE__, #expr,		\
		       strerrorname_np(__want) ? strerrorname_np(__want) : "?",	\
		       __want, __r,						\
		       __en && strerrorname_np(__en) ? strerrorname_np(__en) : "0", \
		       __en);							\
		__th_fail(assert);						\
	}									\
} while (0)

#define __TH_OK(expr, assert) do {						\
	errno = 0;								\
	long long __r = (long long)(expr);					\
	int __en = errno;							\
	if (__r != 0) {								\
		printf("# %s:%d: Expected %s to return 0, got %lld (errno %s)\n", \
		       __FILE__, __LINE__, #expr, __r,				\
		       __en ? strerror(__en) : "0");				\
		__th_fail(assert);						\
	}									\
} while (0)

#define ASSERT_EQ(e, s)		__TH_CMP(e, ==, s, true)
#define ASSERT_NE(e, s)		__TH_CMP(e, !=, s, true)
#define ASSERT_LT(e, s)		__TH_CMP(e, <, s, true)
#define ASSERT_LE(e, s)		__TH_CMP(e, <=, s, true)
#define ASSERT_GT(e, s)		__TH_CMP(e, >, s, true)
#define ASSERT_GE(e, s)		__TH_CMP(e, >=, s, true)
#define ASSERT_TRUE(x)		__TH_BOOL(x, true, true)
#define ASSERT_FALSE(x)		__TH_BOOL(x, false, true)
#define ASSERT_NULL(x)		__TH_PTR(x, true, true)
#define ASSERT_NONNULL(x)	__TH_PTR(x, false, true)
#define ASSERT_STREQ(a, b)	__TH_STR(a, b, true, true)
#define ASSERT_STRNE(a, b)	__TH_STR(a, b, false, true)
#define ASSERT_ERRNO(x, err)	__TH_ERRNO(x, err, true)
#define ASSERT_OK(x)		__TH_OK(x, true)

#define EXPECT_EQ(e, s)		__TH_CMP(e, ==, s, false)
#define EXPECT_NE(e, s)		__TH_CMP(e, !=, s, false)
#define EXPECT_LT(e, s)		__TH_CMP(e, <, s, false)
#define EXPECT_LE(e, s)		__TH_CMP(e, <=, s, false)
#define EXPECT_GT(e, s)		__TH_CMP(e, >, s, false)
#define EXPECT_GE(e, s)		__TH_CMP(e, >=, s, false)
#define EXPECT_TRUE(x)		__TH_BOOL(x, true, false)
#define EXPECT_FALSE(x)		__TH_BOOL(x, false, false)
#define EXPECT_NULL(x)		__TH_PTR(x, true, false)
#define EXPECT_NONNULL(x)	__TH_PTR(x, false, false)
#define EXPECT_STREQ(a, b)	__TH_STR(a, b, true, false)
#define EXPECT_STRNE(a, b)	__TH_STR(a, b, false, false)
#define EXPECT_ERRNO(x, err)	__TH_ERRNO(x, err, false)
#define EXPECT_OK(x)		__TH_OK(x, false)

/* ------------------------------------------------------------------ */
/* Kernel log markers                                                  */
/* ------------------------------------------------------------------ */

/* One line to /dev/kmsg, in one write(2) (stdio on /dev/kmsg fails). */
static inline int __attribute__((format(printf, 1, 2)))
npu_kmsg(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int fd, n, ret = 0;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	if (n == 0 || buf[n - 1] != '\n')
		buf[n++] = '\n';
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, buf, n) != n)
		ret = -1;
	close(fd);
	return ret;
}

/*
 * Tell the VM log check that "npu: DMA fault" lines are expected from now
 * on (true) or not any more (false).
 */
static inline void npu_expect_dma_faults(bool expected)
{
	if (npu_kmsg("npu-selftest: dma-faults %s",
		     expected ? "expected" : "unexpected") < 0)
		printf("# npu_expect_dma_faults: cannot write /dev/kmsg: %s\n",
		       strerror(errno));
	if (__th_sh)
		__th_sh->dma_faults_expected = expected;
}

/* ------------------------------------------------------------------ */
/* Runner                                                              */
/* ------------------------------------------------------------------ */

struct __th_case {
	const struct __th_test *t;
	const struct __th_variant *v;
	char name[256];
};

static inline int __th_cmp_line(const void *a, const void *b)
{
	const struct __th_test *x = *(const struct __th_test *const *)a;
	const struct __th_test *y = *(const struct __th_test *const *)b;

	return x->line - y->line;
}

static inline int __th_cmp_vline(const void *a, const void *b)
{
	const struct __th_variant *x = *(const struct __th_variant *const *)a;
	const struct __th_variant *y = *(const struct __th_variant *const *)b;

	/* variants made by one macro expansion share a line */
	return x->line != y->line ? x->line - y->line : x->seq - y->seq;
}

static inline double __th_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Runs one case in a child; returns 0 pass, 1 fail, 2 skip. */
static inline int __th_run_case(const struct __th_case *c, double scale)
{
	const struct __th_test *t = c->t;
	double timeout = t->timeout * scale, start = __th_now();
	sigset_t set, old;
	int status = 0;
	bool timed_out = false;
	pid_t pid;

	memset(__th_sh, 0, sizeof(*__th_sh));
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		printf("# fork: %s\n", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return 1;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		setpgid(0, 0);
		__th_in_child = 1;
		if (getenv("NPU_VM"))
			npu_kmsg("npu-test: %s: %s", __th_prog, c->name);
		if (sigsetjmp(__th_jmp, 0) == 0)
			t->fn(t, c->v);
		fflush(stdout);
		fflush(stderr);
		_exit(__th_sh->failed ? 1 :
		      __th_sh->skipped ? HARNESS_SKIP_STATUS : 0);
	}
	setpgid(pid, pid);

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		double left;
		struct timespec ts;

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			printf("# waitpid: %s\n", strerror(errno));
			status = 1 << 8;
			break;
		}
		left = timeout - (__th_now() - start);
		if (left <= 0) {
			timed_out = true;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			break;
		}
		if (left > 1)
			left = 1;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		sigtimedwait(&set, NULL, &ts);
	}
	/* Reap what the test left in its process group. */
	kill(-pid, SIGKILL);
	sigprocmask(SIG_SETMASK, &old, NULL);

	if (__th_sh->dma_faults_expected) {
		npu_kmsg("npu-selftest: dma-faults unexpected");
		__th_sh->dma_faults_expected = 0;
	}

	if (timed_out) {
		printf("# %s: timed out after %.0f s\n", c->name, timeout);
		return 1;
	}
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);

		if (t->signal && sig == t->signal)
			return 0;
		printf("# %s: killed by signal %d (%s)\n", c->name, sig, strsignal(sig));
		return 1;
	}
	if (t->signal) {
		printf("# %s: expected signal %d (%s), exited with %d\n", c->name,
		       t->signal, strsignal(t->signal), WEXITSTATUS(status));
		return 1;
	}
	switch (WEXITSTATUS(status)) {
	case 0:
		return 0;
	case HARNESS_SKIP_STATUS:
		return 2;
	default:
		return 1;
	}
}

static inline bool __th_match(const char *name, char **globs, int n)
{
	for (int i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return true;
	return false;
}

static inline int harness_run(int argc, char **argv)
{
	struct __th_test **tv;
	struct __th_case *cases;
	char **inc, **exc;
	int ninc = 0, nexc = 0, ntests = 0, ncases = 0, n = 0, opt;
	int pass = 0, fail = 0, skip = 0;
	bool list = false;
	double scale = 1.0;
	const char *s;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 0 && argv[0]) {
		s = strrchr(argv[0], '/');
		__th_prog = s ? s + 1 : argv[0];
	}
	inc = calloc(argc + 1, sizeof(*inc));
	exc = calloc(argc + 1, sizeof(*exc));
	optind = 1;
	while ((opt = getopt(argc, argv, "lt:T:h")) != -1) {
		switch (opt) {
		case 'l': list = true; break;
		case 't': inc[ninc++] = optarg; break;
		case 'T': exc[nexc++] = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-l] [-t GLOB]... [-T GLOB]...\n", __th_prog);
			return 2;
		}
	}
	s = getenv("HARNESS_TIMEOUT_SCALE");
	if (s && atof(s) > 0)
		scale = atof(s);

	for (struct __th_test *t = __th_tests; t; t = t->next)
		ntests++;
	tv = calloc(ntests + 1, sizeof(*tv));
	for (struct __th_test *t = __th_tests; t; t = t->next)
		tv[n++] = t;
	qsort(tv, ntests, sizeof(*tv), __th_cmp_line);

	/* Expand fixtures into their variants. */
	for (int i = 0; i < ntests; i++) {
		int nv = 0;

		if (tv[i]->fixture)
			for (struct __th_variant *v = tv[i]->fixture->variants; v; v = v->next)
				nv++;
		ncases += nv ? nv : 1;
	}
	cases = calloc(ncases + 1, sizeof(*cases));
	n = 0;
	for (int i = 0; i < ntests; i++) {
		const struct __th_test *t = tv[i];
		struct __th_variant *vv[256];
		int nv = 0;

		if (t->fixture)
			for (struct __th_variant *v = t->fixture->variants;
			     v && nv < 256; v = v->next)
				vv[nv++] = v;
		qsort(vv, nv, sizeof(vv[0]), __th_cmp_vline);
		for (int j = 0; j < (nv ? nv : 1); j++) {
			struct __th_case *c = &cases[n];

			c->t = t;
			c->v = nv ? vv[j] : NULL;
			if (!t->fixture)
				snprintf(c->name, sizeof(c->name), "%s", t->name);
			else if (!nv)
				snprintf(c->name, sizeof(c->name), "%s.%s",
					 t->fixture->name, t->name);
			else
				snprintf(c->name, sizeof(c->name), "%s.%s.%s",
					 t->fixture->name, vv[j]->name, t->name);
			if (ninc && !__th_match(c->name, inc, ninc))
				continue;
			if (nexc && __th_match(c->name, exc, nexc))
				continue;
			n++;
		}
	}
	ncases = n;

	if (list) {
		for (int i = 0; i < ncases; i++)
			printf("%s\n", cases[i].name);
		return 0;
	}

	__th_sh = mmap(NULL, sizeof(*__th_sh), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (__th_sh == MAP_FAILED) {
		printf("Bail out! mmap: %s\n", strerror(errno));
		return 1;
	}

	printf("TAP version 13\n");
	printf("1..%d\n", ncases);
	printf("# %s: %d tests\n", __th_prog, ncases);
	for (int i = 0; i < ncases; i++) {
		double t0 = __th_now();
		int r;

		printf("# RUN %s\n", cases[i].name);
		r = __th_run_case(&cases[i], scale);
		switch (r) {
		case 0:
			pass++;
			printf("ok %d %s\n", i + 1, cases[i].name);
			break;
		case 2:
			skip++;
			printf("ok %d %s # SKIP %s\n", i + 1, cases[i].name,
			       __th_sh->reason[0] ? __th_sh->reason : "(no reason)");
			break;
		default:
			fail++;
			printf("not ok %d %s # %.2f s\n", i + 1, cases[i].name,
			       __th_now() - t0);
			break;
		}
	}
	printf("# %s: %d passed, %d failed, %d skipped\n", __th_prog, pass, fail, skip);
	fflush(stdout);
	free(cases);
	free(tv);
	free(inc);
	free(exc);
	return fail ? 1 : 0;
}

#define TEST_HARNESS_MAIN							\
	int main(int argc, char **argv)						\
	{									\
		return harness_run(argc, argv);					\
	}

#endif /* NPU_TEST_HARNESS_H */
