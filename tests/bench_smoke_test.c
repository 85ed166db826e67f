// SPDX-License-Identifier: GPL-2.0
/*
 * tests/bench_smoke_test.c - every benchmark program (tools/bench/) runs
 * once, with tiny sizes and NPU_BENCH_SMOKE=1 (no target is judged), and
 * must exit 0 having reported its figures: a benchmark that stopped
 * working fails make check, not the next `make bench`.
 *
 * The programs are in /tests/bench/ in the guest (make tests copies them
 * to build/tests/bench/; tools/mkinitramfs puts them there).
 */
#include "harness.h"

#define BENCH_DIR	"/tests/bench/"

FIXTURE(smoke) { int unused; };
FIXTURE_SETUP(smoke) { }
FIXTURE_TEARDOWN(smoke) { }

FIXTURE_VARIANT(smoke) {
	const char *prog;
	const char *args[12];
};

FIXTURE_VARIANT_ADD(smoke, vmm) {
	.prog = "bench_vmm", .args = { "-n", "20", "-N", "10", "-r", "1" },
};
FIXTURE_VARIANT_ADD(smoke, pin) {
	.prog = "bench_pin", .args = { "-r", "1", "-m", "64", "-s" },
};
FIXTURE_VARIANT_ADD(smoke, copy) {
	.prog = "bench_copy", .args = { "-m", "1", "-t", "0.01", "-r", "1" },
};
FIXTURE_VARIANT_ADD(smoke, stream) {
	.prog = "bench_stream", .args = { "-r", "1" },
};
FIXTURE_VARIANT_ADD(smoke, batch) {
	.prog = "bench_batch", .args = { "-r", "1", "-n", "16" },
};
FIXTURE_VARIANT_ADD(smoke, managed) {
	.prog = "bench_managed", .args = { "-m", "2", "-f", "1", "-r", "1" },
};
FIXTURE_VARIANT_ADD(smoke, latency) {
	.prog = "bench_latency", .args = { "-n", "2", "-s", "3", "-c", "4" },
};
FIXTURE_VARIANT_ADD(smoke, graph) {
	.prog = "bench_graph", .args = { "-t", "20", "-s", "3" },
};
FIXTURE_VARIANT_ADD(smoke, kernel) {
	.prog = "bench_kernel", .args = { "-c", "256", "-n", "4", "-r", "1", "-z", "1", "-l", "3", "-s", "1" },
};

/* Run @v's program; its output (stdout and stderr) into @out. */
static int run_bench(const FIXTURE_VARIANT(smoke) *v, char *out, size_t size)
{
	char path[256];
	const char *argv[14] = { path };
	int pfd[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	snprintf(path, sizeof(path), BENCH_DIR "%s", v->prog);
	for (int i = 0; i < 12 && v->args[i]; i++)
		argv[i + 1] = v->args[i];
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		setenv("NPU_BENCH_SMOKE", "1", 1);
		execv(path, (char **)argv);
		_exit(127);
	}
	close(pfd[1]);
	while (len + 1 < size && (n = read(pfd[0], out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = 0;
	/* drain what did not fit, so the program is not stopped by a full pipe */
	while (read(pfd[0], path, sizeof(path)) > 0)
		;
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* Lines of @out that start with @kind (ratio, info, raw). */
static int count_lines(const char *out, const char *kind)
{
	size_t n = strlen(kind);
	const char *p = out;
	int count = 0;

	while (p && *p) {
		if (!strncmp(p, kind, n) && p[n] == ' ')
			count++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return count;
}

TEST_F_TIMEOUT(smoke, runs, 300)
{
	static char out[1 << 20];
	int status;

	if (access(BENCH_DIR, F_OK))
		SKIP(return, "no %s (make tests builds the benchmarks)", BENCH_DIR);
	status = run_bench(variant, out, sizeof(out));
	if (status)
		printf("%s", out);
	ASSERT_EQ(0, status);
	EXPECT_EQ(NULL, strstr(out, "FATAL"));
	/* it measured something, and judged nothing */
	EXPECT_LT(0, count_lines(out, "raw") + count_lines(out, "info") +
		     count_lines(out, "ratio"));
	EXPECT_EQ(NULL, strstr(out, " PASS\n"));
	EXPECT_EQ(NULL, strstr(out, " MISS\n"));
}

TEST_HARNESS_MAIN
