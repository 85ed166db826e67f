// SPDX-License-Identifier: GPL-2.0
/*
 * tests/vendor_examples_test.c - the vendor's own runtime examples
 * (hicann/runtime example/, listed in tests/vendor/examples.list), built
 * by tools/vendor-examples with their own CMakeLists.txt against our
 * headers and libacl, run as they are: each must exit 0 and print the
 * lines its README shows (its results, its success line), in order.
 *
 * The builds are in /tests/vendor/NAME/ in the guest (build/tests/vendor/,
 * which make check fills with `make vendor-examples` before the VM boots):
 * a `status` of "built COMMIT" and the binary `main`, or "skip REASON"
 * (no vendor tree: a SKIP here) or "fail REASON" (a failure here, with
 * the end of build.log). The device kernels are host stand-ins
 * (tests/vendor/kernel_standins.cpp); ErrorOP's is a real DMA fault.
 */
#include "harness.h"

#define VENDOR_DIR	"/tests/vendor/"
#define MAX_LINES	16

FIXTURE(example) { int unused; };
FIXTURE_SETUP(example) { }
FIXTURE_TEARDOWN(example) { }

/*
 * @in_order: lines (substrings of lines) the output holds in this order;
 * @anywhere: lines it holds somewhere (other threads' lines, whose place
 * is not fixed); @never: substrings no line may hold; @faults: the example
 * launches ErrorOP (DMA faults in the kernel log are expected).
 */
FIXTURE_VARIANT(example) {
	const char *name;		/* of tests/vendor/examples.list */
	const char *in_order[MAX_LINES];
	const char *anywhere[MAX_LINES];
	const char *never[MAX_LINES];
	bool faults;
};

/* A variant named as the example in tests/vendor/examples.list; its fields follow. */
#define VENDOR_EXAMPLE(vname) FIXTURE_VARIANT_ADD(example, vname) { .name = #vname,

/* 1_basic_features/stream/1_stream_with_failure_mode */
VENDOR_EXAMPLE(stream_failure_mode)
	.in_order = {
		"[INFO]  Assigning task without failure mode.",
		"[ERROR]  Operation failed: aclrtSynchronizeStream(stream) returned error code ",
		"[INFO]  Without failure mode, the result is 2.",
		"[INFO]  Assigning task with failure mode.",
		"[ERROR]  Operation failed: aclrtSynchronizeStream(stream) returned error code ",
		"[INFO]  After set failure mode, the current result is: 1.",
		"[INFO]  aclrtStreamAbort returned 0.",
		"[INFO]  aclrtSynchronizeStream(after abort) returned ",
		"[INFO]  Resource cleanup completed.",
		"[INFO]  Run the stream_with_failure_mode sample successfully.",
	},
	.never = { "returned error code 0" },
	.faults = true,
};

/* 2_advanced_features/callback/0_simple_callback: main() returns 0 whatever happens */
VENDOR_EXAMPLE(simple_callback)
	.in_order = {
		"[INFO]  This callback before task, result: user data is: 520.",
		"[INFO]  Hostfunc executed in subscribed thread, user data is: 520.",
		"[INFO]  This callback after task and loop five times, result: user data is: 520.",
		"[INFO]  This callback after task and loop five times, result: user data is: 520.",
		"[INFO]  This callback after task and loop five times, result: user data is: 520.",
		"[INFO]  This callback after task and loop five times, result: user data is: 520.",
		"[INFO]  This callback after task and loop five times, result: user data is: 520.",
		"[INFO]  After assigning the task, the current int is: 1.",
	},
	.anywhere = {
		"[INFO]  After begin a task, launch one hostfunc and five callbacks.",
		"[INFO]  Report callback thread exit",
		"[INFO]  Hostfunc processing thread exit",
	},
	.never = { "[ERROR]", "kernel stand-in:" },
};

/* 2_advanced_features/callback/1_callback_hostfunc */
VENDOR_EXAMPLE(callback_hostfunc)
	.in_order = {
		"[INFO]  Hostfunc callback!!!",
		"[INFO]  After assigning the task through the created stream, the current result is: 1.",
		"[INFO]  Resource cleanup completed.",
	},
	.never = { "[ERROR]", "kernel stand-in:" },
};

/* 0_quickstart/3_cross_version/0_runtime_compatibility */
VENDOR_EXAMPLE(runtime_compatibility)
	.in_order = {
		"[INFO]  CANN package [runtime] version string: ",
		"[INFO]  CANN package [runtime] version number: ",
		"[INFO]  CANN attribute count: ",
		"[INFO]  Architecture compatibility for ",
		"[INFO]  Device capability ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV: ",
		"[INFO]  [SUCCESS] Runtime compatibility sample completed successfully",
	},
	.never = { "[ERROR]", "[WARN]" },
};

/* 4_reliability/overflow_detection/0_overflow_detection */
VENDOR_EXAMPLE(overflow_detection)
	.in_order = {
		"[INFO]  Device saturation mode switched from ",
		"[INFO]  Overflow switch=1",
		"[INFO]  Overflow status before reset=",
		"[INFO]  Overflow status after reset=0",
		"[INFO]  Overflow detection sample finished successfully.",
	},
	.never = { "[ERROR]", "[WARN]" },
};

/* 3_memory_advanced/allocator/0_custom_allocator */
VENDOR_EXAMPLE(custom_allocator)
	.in_order = {
		"[INFO]  CustomAlloc size=256",
		"[INFO]  CustomAllocAdvise size=128",
		"[INFO]  CustomAlloc size=128",
		"[INFO]  CustomFree invoked",
		"[INFO]  CustomFree invoked",
		"allocCount=2 freeCount=2",
	},
	.never = { "[ERROR]" },
};

/* 2_advanced_features/built_in_task/0_reduce_task: aclrtReduceAsync SUM of floats */
VENDOR_EXAMPLE(reduce_task)
	.in_order = {
		"Reduce SUM result[0] = 2.000000",
		"Reduce SUM result[1] = 4.000000",
		"Reduce SUM result[2] = 6.000000",
		"Reduce SUM result[3] = 8.000000",
		"Sample Run Successfully.",
	},
	.never = { "[ERROR]" },
};

/*
 * 2_advanced_features/model_ri/4_model_sync_external: captured graphs that
 * wait for and record a user's event (ACL_EVENT_WAIT/RECORD_EXTERNAL) at
 * each run, each scenario's data checked by the example.
 */
VENDOR_EXAMPLE(model_sync_external)
	.in_order = {
		"=== Scenario 1: Stream Record + Graph Wait External ===",
		"Check result success.",
		"=== Scenario 2: Graph Record External + Stream Wait ===",
		"Check result success.",
		"=== Scenario 3: Graph1 Record External + Graph2 Wait External ===",
		"Check result success.",
	},
	.never = { "[ERROR]", "failed" },
};

/*
 * 2_advanced_features/built_in_task/1_random_num_task: aclrtRandomNumAsync
 * of each distribution on one counter (the draws themselves are checked
 * bit for bit in npu_random_test); every call returned success.
 */
VENDOR_EXAMPLE(random_num_task)
	.in_order = {
		"Gen normal distribution random num, data type: float",
		"Random result[4] = ",
		"Gen truncated normal distribution random num, data type: BF16",
		"Random result[4] = 0x",
		"Gen uniform distribution random num, data type: FP16",
		"Random result[4] = 0x3",
		"Gen uniform distribution random num, data type: INT32",
		"Random result[4] = ",
		"Gen dropout bitmask, output data type: UINT8",
		"Random result[4] = ",
		"Sample Run Successfully.",
	},
	.never = { "[ERROR]" },
};

/*
 * 2_advanced_features/label/0_simple_label: a model built on a bound
 * persistent stream (aclmdlRIBuildBegin ... BuildEnd) whose switch picks a
 * label by an index in device memory (lib_label_test checks the branches).
 */
VENDOR_EXAMPLE(simple_label)
	.in_order = {
		"[INFO]  Persistent label stream created.",
		"[INFO]  Model runtime instance build started.",
		"[INFO]  Persistent label stream bound to the model runtime instance.",
		"[INFO]  Copied branch index 1 from host to device.",
		"[INFO]  Created label list with 2 labels.",
		"[INFO]  Submitted switch-label task with branch index 1.",
		"[INFO]  Set label 0 on the persistent stream.",
		"[INFO]  Set label 1 on the persistent stream.",
		"[INFO]  Model runtime instance build finished.",
		"[INFO]  Switch label executed successfully with branch index 1.",
		"[INFO]  Run the simple_label sample successfully.",
	},
	.never = { "[ERROR]" },
};

/* @path's first line into @buf (newline dropped); -1 if unreadable. */
static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	bool got;

	if (!f)
		return -1;
	got = fgets(buf, size, f) != NULL;
	fclose(f);
	if (!got)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* The compiler's and linker's errors in build log @path as diagnostics (at most @n). */
static void print_errors(const char *path, int n)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (n > 0 && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "error:") && !strstr(line, "undefined reference") &&
		    !strstr(line, "CMake Error"))
			continue;
		printf("#   %s%s", line, strchr(line, '\n') ? "" : "\n");
		n--;
	}
	fclose(f);
}

/* Run @dir's main in @dir; stdout and stderr into @out. The wait status, -1 on errors. */
static int run_example(const char *dir, char *out, size_t size)
{
	char path[256], sink[256];
	int pfd[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/main", dir);
	if (pipe(pfd))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		if (chdir(dir))
			_exit(126);
		/* a kernels library built SHARED sits beside main */
		setenv("LD_LIBRARY_PATH", dir, 1);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (len + 1 < size && (n = read(pfd[0], out + len, size - 1 - len)) > 0)
		len += n;
	out[len] = 0;
	while (read(pfd[0], sink, sizeof(sink)) > 0)
		;
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* Where @line is in @out, from @from on, as a substring of a line; NULL if not. */
static const char *find_line(const char *from, const char *line)
{
	const char *p = strstr(from, line);

	/* a match may not span two lines */
	while (p && memchr(p, '\n', strlen(line)))
		p = strstr(p + 1, line);
	return p;
}

TEST_F_TIMEOUT(example, runs, 120)
{
	static char out[1 << 16];
	char dir[128], path[160], status[512];
	const char *at;
	int st;

	snprintf(dir, sizeof(dir), VENDOR_DIR "%s", variant->name);
	snprintf(path, sizeof(path), "%s/status", dir);
	if (read_line(path, status, sizeof(status)))
		SKIP(return, "not built: %s/status missing (make vendor-examples, which make check runs)", dir);
	if (!strncmp(status, "skip ", 5))
		SKIP(return, "%s", status + 5);
	if (strncmp(status, "built ", 6)) {
		TH_LOG("not built: %s; errors of its build.log:", status);
		snprintf(path, sizeof(path), "%s/build.log", dir);
		print_errors(path, 12);
		ASSERT_STREQ("built", status);
	}
	printf("# vendor commit %s: %s/main\n", status + 6, dir);

	if (variant->faults)
		npu_expect_dma_faults(true);
	st = run_example(dir, out, sizeof(out));
	if (variant->faults)
		npu_expect_dma_faults(false);
	for (char *l = out, *e; *l; l = e + 1) {
		e = strchr(l, '\n');
		if (!e)
			e = l + strlen(l) - 1;
		printf("#   %.*s\n", (int)(e - l + (e[0] != '\n')), l);
	}
	ASSERT_NE(-1, st);
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WIFEXITED(st) ? WEXITSTATUS(st) : -1);

	at = out;
	for (int i = 0; i < MAX_LINES && variant->in_order[i]; i++) {
		const char *p = find_line(at, variant->in_order[i]);

		if (!p)
			TH_LOG("missing (in this order): \"%s\"", variant->in_order[i]);
		EXPECT_NONNULL(p);
		if (p)
			at = p + strlen(variant->in_order[i]);
	}
	for (int i = 0; i < MAX_LINES && variant->anywhere[i]; i++) {
		if (!find_line(out, variant->anywhere[i]))
			TH_LOG("missing: \"%s\"", variant->anywhere[i]);
		EXPECT_NONNULL(find_line(out, variant->anywhere[i]));
	}
	for (int i = 0; i < MAX_LINES && variant->never[i]; i++) {
		if (strstr(out, variant->never[i]))
			TH_LOG("unexpected: \"%s\"", variant->never[i]);
		EXPECT_NULL(strstr(out, variant->never[i]));
	}
}

TEST_HARNESS_MAIN
