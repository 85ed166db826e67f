// SPDX-License-Identifier: GPL-2.0
/*
 * harness_test - self-test of tests/harness.h.
 *
 * The "inner_*" tests below are deliberately broken (failing assertions,
 * crashes, timeouts, skips). The outer tests run this same binary again with
 * HARNESS_TEST_INNER=1 and "-t inner_xxx", capture its TAP output, and check
 * that every kind of failure is reported as "not ok" with file:line and
 * values, and that the exit status follows. A harness that silently passed
 * broken tests fails here.
 */
#include "harness.h"

#include <sys/stat.h>

/* ------------------------------------------------------------------ */
/* Inner tests: only run with HARNESS_TEST_INNER=1                     */
/* ------------------------------------------------------------------ */

TEST(inner_pass)
{
	ASSERT_EQ(1, 1);
	EXPECT_TRUE(1);
}

TEST(inner_assert_eq_fail)
{
	int two = 2;

	ASSERT_EQ(1, two);
	printf("INNER: after failed assert\n");
}

TEST(inner_expect_fail)
{
	unsigned long big = 7;

	EXPECT_GT(5, big);
	printf("INNER: still running after EXPECT\n");
}

TEST(inner_skip)
{
	SKIP(return, "no device %d here", 7);
	printf("INNER: after skip\n");
}

TEST(inner_segv)
{
	raise(SIGSEGV);
}

TEST(inner_exit_nonzero)
{
	exit(3);
}

TEST_TIMEOUT(inner_timeout, 1)
{
	sleep(20);
}

TEST_SIGNAL(inner_signal_ok, SIGABRT)
{
	abort();
}

TEST_SIGNAL(inner_signal_missing, SIGABRT)
{
}

TEST(inner_errno_ok)
{
	ASSERT_ERRNO(close(-1), EBADF);
}

TEST(inner_errno_bad)
{
	ASSERT_ERRNO(close(-1), ENOENT);
}

TEST(inner_errno_success)
{
	int fd = open("/", O_RDONLY);

	ASSERT_ERRNO(fd, EBADF);
}

TEST(inner_null_fail)
{
	int x;

	ASSERT_NULL(&x);
}

TEST(inner_streq_fail)
{
	ASSERT_STREQ("abc", "abd");
}

FIXTURE(inner_fx) {
	int value;
};

FIXTURE_VARIANT(inner_fx) {
	int want;
	const char *tag;
};

FIXTURE_VARIANT_ADD(inner_fx, a) {
	.want = 1, .tag = "a",
};

FIXTURE_VARIANT_ADD(inner_fx, b) {
	.want = 2, .tag = "b",
};

FIXTURE_SETUP(inner_fx)
{
	self->value = 1;
}

FIXTURE_TEARDOWN(inner_fx)
{
	printf("INNER: teardown %s value=%d\n", variant->tag, self->value);
}

TEST_F(inner_fx, check)
{
	ASSERT_EQ(variant->want, self->value);
	self->value = 42;
}

FIXTURE(inner_skipfx) {
	int unused;
};

FIXTURE_SETUP(inner_skipfx)
{
	SKIP(return, "setup skips");
}

FIXTURE_TEARDOWN(inner_skipfx)
{
	printf("INNER: skipfx teardown\n");
}

TEST_F(inner_skipfx, body)
{
	printf("INNER: skipfx body ran\n");
}

/* ------------------------------------------------------------------ */
/* Outer tests                                                          */
/* ------------------------------------------------------------------ */

struct run {
	int status;	/* exit status, or 128 + signal */
	char out[65536];
};

static struct run r;

/* Runs this binary with HARNESS_TEST_INNER=1 and the given filter. */
static void run_inner(const char *filter)
{
	int p[2];
	size_t n = 0;
	pid_t pid;
	int st;

	memset(&r, 0, sizeof(r));
	ASSERT_OK(pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		setenv("HARNESS_TEST_INNER", "1", 1);
		unsetenv("HARNESS_TIMEOUT_SCALE");
		execl("/proc/self/exe", "harness_test", "-t", filter, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		ssize_t k = read(p[0], r.out + n, sizeof(r.out) - 1 - n);

		if (k <= 0)
			break;
		n += k;
	}
	close(p[0]);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	printf("# ---- inner output for '%s' (exit %d):\n", filter, r.status);
	for (char *l = strtok(r.out, "\n"); l; l = strtok(NULL, "\n")) {
		printf("#   | %s\n", l);
		l[strlen(l)] = '\n';	/* strtok ate it: restore */
	}
	r.out[n] = '\0';
}

static bool has(const char *needle)
{
	return strstr(r.out, needle) != NULL;
}

static int count_lines(const char *prefix)
{
	int c = 0;

	for (const char *l = r.out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, prefix, strlen(prefix)) == 0)
			c++;
	return c;
}

TEST(pass_is_ok)
{
	run_inner("inner_pass");
	EXPECT_EQ(0, r.status);
	EXPECT_TRUE(has("TAP version 13\n"));
	EXPECT_TRUE(has("\n1..1\n"));
	EXPECT_TRUE(has("\nok 1 inner_pass\n"));
	EXPECT_EQ(0, count_lines("not ok"));
}

TEST(failed_assert_is_not_ok)
{
	run_inner("inner_assert_eq_fail");
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(has("\nnot ok 1 inner_assert_eq_fail"));
	EXPECT_TRUE(has("harness_test.c:"));
	EXPECT_TRUE(has("Expected 1 (1 (0x1)) == two (2 (0x2))"));
	EXPECT_FALSE(has("INNER: after failed assert"));
}

TEST(failed_expect_continues)
{
	run_inner("inner_expect_fail");
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(has("\nnot ok 1 inner_expect_fail"));
	EXPECT_TRUE(has("Expected 5 (5 (0x5)) > big (7 (0x7))"));
	EXPECT_TRUE(has("INNER: still running after EXPECT"));
}

TEST(skip_is_reported)
{
	run_inner("inner_skip");
	EXPECT_EQ(0, r.status);
	EXPECT_TRUE(has("\nok 1 inner_skip # SKIP no device 7 here\n"));
	EXPECT_FALSE(has("INNER: after skip"));
}

TEST(crash_is_not_ok)
{
	run_inner("inner_segv");
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(has("\nnot ok 1 inner_segv"));
	EXPECT_TRUE(has("killed by signal 11"));
}

TEST(exit_code_is_not_ok)
{
	run_inner("inner_exit_nonzero");
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(has("\nnot ok 1 inner_exit_nonzero"));
}

TEST_TIMEOUT(timeout_is_not_ok, 15)
{
	time_t t0 = time(NULL);

	run_inner("inner_timeout");
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(has("\nnot ok 1 inner_timeout"));
	EXPECT_TRUE(has("timed out after 1 s"));
	EXPECT_GT(10, time(NULL) - t0);
}

TEST(expected_signal)
{
	run_inner("inner_signal_*");
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(has("\nok 1 inner_signal_ok\n"));
	EXPECT_TRUE(has("\nnot ok 2 inner_signal_missing"));
}

TEST(errno_helper)
{
	run_inner("inner_errno_*");
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(has("\nok 1 inner_errno_ok\n"));
	EXPECT_TRUE(has("\nnot ok 2 inner_errno_bad"));
	EXPECT_TRUE(has("to fail with ENOENT (2), got -1, errno EBADF (9)"));
	EXPECT_TRUE(has("\nnot ok 3 inner_errno_success"));
}

TEST(pointer_and_string_asserts)
{
	run_inner("inner_[ns]*_fail");
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(has("\nnot ok 1 inner_null_fail"));
	EXPECT_TRUE(has("to be NULL"));
	EXPECT_TRUE(has("\nnot ok 2 inner_streq_fail"));
	EXPECT_TRUE(has("== \"abd\" \"abd\""));
}

TEST(fixture_variants_and_teardown)
{
	run_inner("inner_fx.*");
	EXPECT_EQ(1, r.status);
	EXPECT_TRUE(has("\n1..2\n"));
	EXPECT_TRUE(has("\nok 1 inner_fx.a.check\n"));
	EXPECT_TRUE(has("\nnot ok 2 inner_fx.b.check"));
	EXPECT_TRUE(has("INNER: teardown a value=42"));
	/* teardown runs after a failed assertion too */
	EXPECT_TRUE(has("INNER: teardown b value=1"));
}

TEST(skip_in_setup)
{
	run_inner("inner_skipfx.*");
	EXPECT_EQ(0, r.status);
	EXPECT_TRUE(has("\nok 1 inner_skipfx.body # SKIP setup skips\n"));
	EXPECT_FALSE(has("INNER: skipfx body ran"));
	EXPECT_TRUE(has("INNER: skipfx teardown"));
}

TEST_TIMEOUT(whole_inner_suite, 20)
{
	int oks, noks, plan = -1;
	const char *p;

	run_inner("inner_*");
	EXPECT_EQ(1, r.status);
	oks = count_lines("ok ");
	noks = count_lines("not ok ");
	p = strstr(r.out, "\n1..");
	ASSERT_NONNULL(p);
	plan = atoi(p + 4);
	EXPECT_EQ(plan, oks + noks);
	EXPECT_EQ(11, noks);
}

TEST(comparisons_pass)
{
	size_t sz = 3;
	long neg = -1;
	char buf[4] = "abc";
	void *mp = MAP_FAILED;
	unsigned long long u64 = 1ULL << 40;

	ASSERT_EQ(3, sz);
	ASSERT_LT(neg, 0);
	ASSERT_GE(sz, 3);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(MAP_FAILED, mp);
	ASSERT_EQ(1ULL << 40, u64);
	ASSERT_STREQ("abc", buf);
	ASSERT_STRNE("abd", buf);
	ASSERT_NULL(NULL);
	ASSERT_NONNULL(buf);
	ASSERT_TRUE(sz);
	ASSERT_FALSE(0);
	ASSERT_OK(access("/", F_OK));
	EXPECT_ERRNO(access("/nonexistent/x", F_OK), ENOENT);
}

int main(int argc, char **argv)
{
	char *args[] = { argv[0], "-T", "inner_*", NULL };

	if (getenv("HARNESS_TEST_INNER"))
		return harness_run(argc, argv);
	if (argc > 1)
		return harness_run(argc, argv);
	return harness_run(3, args);
}
