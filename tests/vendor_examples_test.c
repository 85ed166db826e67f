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
 * a `status` of "built COMMIT" and the example's programs - `main`, or
 * those examples.list names - or "skip REASON" (no vendor tree: a SKIP
 * here) or "fail REASON" (a failure here, with the end of build.log). The
 * device kernels (example/kernel_func/, built by npu-cc through our
 * ascendc.cmake) run on the simulated AI cores; ErrorOP's trap is an
 * AI-core exception.
 *
 * Besides its lines, a variant checks what the example's run.sh checks:
 * @fp16 compares the FP16 output file the program wrote with the golden
 * one its scripts/gen_data.py made on the host, as its verify_result.py
 * does (numpy.isclose, rtol 1e-3, atol 1e-5, at most 0.1% differing);
 * @equal compares the values after the first ':' of the first lines that
 * hold two keys, as its awk does; @count wants exactly that many lines
 * holding a text.
 *
 * An example of several processes (proc_a and proc_b, which its run.sh
 * starts at once) is a variant with .procs: its programs run at the same
 * time in a working directory of their own, made afresh (run/ in the
 * example's directory, with the .dirs its run.sh makes: they exchange keys
 * and pids through files there), each with its own output, exit status
 * and expected lines; a program marked .before (a precheck) runs alone,
 * to completion, before the others start. .devices makes npu.ko simulate
 * that many devices for the example (a reload, as root), as the
 * examples' fixed device ids need.
 */
#include <ftw.h>
#include <math.h>
#include <poll.h>
#include <sys/prctl.h>

#include "float_bits.h"
#include "harness.h"
#include "npu_mod_util.h"

#define VENDOR_DIR	"/tests/vendor/"
#define MAX_LINES	16
#define MAX_PROCS	4
#define MAX_ARGS	4
#define MAX_DIRS	4
#define OUT_SIZE	(1 << 16)
/* an example's programs are killed after this long (x HARNESS_TIMEOUT_SCALE), before the harness's 120 s */
#define SET_SECS	100

/*
 * One process of a set: @argv[0] is a program the example built (in its
 * directory), the rest its arguments; @in_order, @anywhere and @never
 * are checked against its own output (stdout and stderr), as the
 * variant's are for a single program; @before: run alone, to completion
 * (exit status 0), before the others start together.
 */
struct vendor_proc {
	const char *argv[MAX_ARGS + 1];
	const char *in_order[MAX_LINES];
	const char *anywhere[MAX_LINES];
	const char *never[MAX_LINES];
	bool before;
};

/*
 * Saved module parameters, when .devices made the test reload npu.ko
 * (the teardown puts it back).
 */
FIXTURE(example) {
	struct npu_mod_params saved;
	bool reloaded;
};
FIXTURE_SETUP(example) { }

/*
 * @in_order: lines (substrings of lines) the output holds in this order;
 * @anywhere: lines it holds somewhere (other threads' lines, whose place
 * is not fixed); @never: substrings no line may hold; @faults: the example
 * launches ErrorOP (DMA faults in the kernel log are expected). These
 * are for an example of one program, `main`; an example of several
 * processes has @procs instead (above), @dirs its run.sh makes in the
 * working directory before starting them, and @devices the number of
 * devices its programs use (0: whatever the VM has).
 */
FIXTURE_VARIANT(example) {
	const char *name;		/* of tests/vendor/examples.list */
	const char *in_order[MAX_LINES];
	const char *anywhere[MAX_LINES];
	const char *never[MAX_LINES];
	struct vendor_proc procs[MAX_PROCS];
	const char *dirs[MAX_DIRS];
	int devices;
	bool faults;
	const char *argv[MAX_ARGS + 1];	/* the one program's, when not { "main" } */
	struct { const char *output, *golden; } fp16;
	const char *equal[2];
	struct { const char *line; int n; } count;
};

FIXTURE_TEARDOWN(example)
{
	int ret;

	if (variant->faults)
		npu_expect_dma_faults(false);
	if (!self->reloaded)
		return;
	ret = npu_mod_restore(&self->saved);
	if (ret)
		printf("# teardown: cannot restore npu.ko: %s\n", strerror(-ret));
}

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
	.never = { "[ERROR]" },
};

/* 2_advanced_features/callback/1_callback_hostfunc */
VENDOR_EXAMPLE(callback_hostfunc)
	.in_order = {
		"[INFO]  Hostfunc callback!!!",
		"[INFO]  After assigning the task through the created stream, the current result is: 1.",
		"[INFO]  Resource cleanup completed.",
	},
	.never = { "[ERROR]" },
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

/* The lines both notify examples print: proc_a's keys, proc_b's import of the memory and its write. */
#define NOTIFY_A_KEYS								\
	"[INFO]  Process A: enable data interaction between device 2 and device 3",			\
	"[INFO]  Process A: get a shareable identifier for IPC memory sharing successfully, shareable identifier = ", \
	"[INFO]  Process A: get a shareable identifier for IPC notify sharing successfully, shareable identifier = "
#define NOTIFY_B_MEMORY								\
	"[INFO]  Process B: enable data interaction between device 3 and device 2",			\
	"[INFO]  Process B: get the shareable identifier for IPC memory sharing successfully, shareable identifier = "
#define NOTIFY_B_WRITE								\
	"[INFO]  Process B: get the shareable identifier for IPC notify sharing successfully, shareable identifier = ", \
	"[INFO]  Process B: write data 123 to the device memory "

/*
 * 2_advanced_features/notify/0_ipc_notify_withpid: two processes on
 * devices 2 and 3 (npu.ko with four devices; proc_b never sets device 2,
 * its imports open it) trade keys and proc_b's pid through files in
 * file/. proc_a lists proc_b's pid for its notify, queues a wait for it
 * and a read of its memory; proc_b, 5 s later, writes 123 there through
 * IPC memory and records the IPC notify. run.sh compares proc_b's
 * "Source data" with proc_a's "Destination data": 123 both.
 */
VENDOR_EXAMPLE(ipc_notify_withpid)
	.devices = 4,
	.dirs = { "file" },
	.procs = {
		{
			.argv = { "proc_a" },
			.in_order = {
				NOTIFY_A_KEYS,
				"[INFO]  Process A: get Process B's pid successfully, Process B's pid = ",
				"[INFO]  Process A: add Process B to the whitelist successfully",
				"Destination data: 123",
			},
			.never = { "[ERROR]" },
		},
		{
			.argv = { "proc_b" },
			.in_order = {
				NOTIFY_B_MEMORY,
				"[INFO]  Process B: get Process B's pid successfully, pid = ",
				NOTIFY_B_WRITE,
			},
			/* DeviceWrite's printf: its launch prints it, before the line above */
			.anywhere = { "Source data: 123" },
			.never = { "[ERROR]" },
		},
	},
};

/*
 * 2_advanced_features/notify/1_ipc_notify_withoutpid: as the one before,
 * the notify exported with DISABLE_PID_VALIDATION (flag 2) instead of a
 * pid list.
 */
VENDOR_EXAMPLE(ipc_notify_withoutpid)
	.devices = 4,
	.dirs = { "file" },
	.procs = {
		{
			.argv = { "proc_a" },
			.in_order = {
				NOTIFY_A_KEYS,
				"Destination data: 123",
			},
			.never = { "[ERROR]", "whitelist" },
		},
		{
			.argv = { "proc_b" },
			.in_order = {
				NOTIFY_B_MEMORY,
				NOTIFY_B_WRITE,
			},
			.anywhere = { "Source data: 123" },
			.never = { "[ERROR]" },
		},
	},
};

/*
 * 2_advanced_features/ipcevent/0_ipcevent: proc_a records an IPC event,
 * exports it (a file), waits for proc_b's flag file; proc_b opens it,
 * waits for the record on its stream, records it in turn, queries it.
 */
VENDOR_EXAMPLE(ipcevent)
	.procs = {
		{
			.argv = { "proc_a" },
			.in_order = {
				"[INFO]  Process A: IPC event created",
				"[INFO]  Process A: event recorded and synchronized",
				"[INFO]  Process A: event status = 1 (1=completed)",
				"[INFO]  Process A: IPC event handle written to ./event_handle.bin",
				"[INFO]  Process A: consumer finished",
				"[INFO]  Process A: cleanup completed",
			},
			.never = { "[ERROR]" },
		},
		{
			.argv = { "proc_b" },
			.in_order = {
				"[INFO]  Process B: IPC event opened",
				"[INFO]  Process B: event received, stream synchronized",
				"[INFO]  Process B: event status = 1 (1=completed)",
				"[INFO]  Process B: cleanup completed",
			},
			.never = { "[ERROR]" },
		},
	},
};

/*
 * 2_advanced_features/ipcevent/1_ipcevent_multi_device: as run.sh with
 * one consumer - the precheck (2 devices needed), then the producer on
 * device 0 and the consumer on device 1, which opens the event there.
 */
VENDOR_EXAMPLE(ipcevent_multi_device)
	.procs = {
		{
			.argv = { "precheck", "2" },
			.before = true,
			.in_order = { "[INFO]  Available device count: " },
			.never = { "[ERROR]" },
		},
		{
			.argv = { "proc_a", "1" },
			.in_order = {
				"[INFO]  Producer: IPC event created on device 0",
				"[INFO]  Producer: event status = 1 (1=completed)",
				"[INFO]  All 1 consumers have finished.",
				"[INFO]  Producer: finished successfully.",
			},
			.never = { "[ERROR]" },
		},
		{
			.argv = { "proc_b", "1", "1" },
			.in_order = {
				"[INFO]  Consumer 1: IPC event opened on device 1",
				"[INFO]  Consumer 1: event received, stream synchronized",
				"[INFO]  Consumer 1: event status = 1 (1=completed)",
				"[INFO]  Consumer 1 (device 1) finished successfully.",
			},
			.never = { "[ERROR]" },
		},
	},
};

/*
 * 3_memory_advanced/host_register/0_simple_zero_copy: add_custom reads and
 * writes MAPPED host memory through its device addresses; the example
 * checks all 16384 sums in the host pages.
 */
VENDOR_EXAMPLE(zero_copy)
	.in_order = {
		"[INFO]  Start to run simple_zero_copy sample.",
		"[INFO]  Registered three Host buffers and obtained their Device mapping addresses.",
		"[INFO]  Verified 16384 FP16 additions through mapped Host memory.",
		"[INFO]  Run the simple_zero_copy sample successfully.",
	},
	.never = { "[ERROR]" },
};

/* 3_memory_advanced/managed_memory/0_uvm_allocate: add_custom on managed memory */
VENDOR_EXAMPLE(uvm_allocate)
	.argv = { "ascendc_kernels_bbit", "simple" },
	.in_order = { "[INFO]  Run the uvm_allocate sample successfully." },
	.never = { "[ERROR]", "[SKIP]" },
	.fp16 = { "output/output_z.bin", "output/golden.bin" },
};

/* 0_quickstart/4_custom_kernel_launch: VectorAddKernel<<<>>> from the example's own source */
VENDOR_EXAMPLE(custom_kernel_launch)
	.in_order = {
		"Custom AscendC kernel <<<>>> call successfully",
		"Synchronize stream successfully",
		"  result[0] = 1.5 (expected: 1.5)",
		"  result[7] = 12.0 (expected: 12.0)",
		"Sample run successfully with <<<>>> kernel call!",
	},
	.never = { "Error at line", "failed" },
};

/* The run.sh of 2_advanced_features/kernel/0_launch_kernel, in each of its modes. */
#define LAUNCH_KERNEL(mode)							\
	.argv = { "ascendc_kernels_bbit", mode },				\
	.in_order = {								\
		"[INFO]  Kernel launch sample runs in " mode " mode.",		\
		"[INFO]  Run the launch_kernel sample successfully.",		\
	},									\
	.never = { "[ERROR]" },							\
	.fp16 = { "output/output_z.bin", "output/golden.bin" },

/* add_custom (8 blocks, TPipe/TQue) from aclrtBinaryLoadFromFile, launched WithConfig */
VENDOR_EXAMPLE(launch_kernel)
	LAUNCH_KERNEL("simple")
};

/* add_custom_tiling: its two tiling arguments are placeholders (AppendPlaceHolder) */
VENDOR_EXAMPLE(launch_kernel_placeholder)
	LAUNCH_KERNEL("placeholder")
};

/* 2_advanced_features/kernel/1_launch_kernel_with_reslimit: 8 blocks' printf */
VENDOR_EXAMPLE(launch_kernel_reslimit)
	.in_order = {
		"[INFO]  Device resource limit type 0 set to 8.",
		"[INFO]  Current device resource limit type 0 is 8.",
		"Hello World",
		"[INFO]  Run the launch_kernel_with_reslimit sample successfully.",
	},
	.never = { "[ERROR]" },
	.count = { "Hello World", 8 },
};

/*
 * 2_advanced_features/callback/2_callback_exception: ErrorOP's trap is
 * the exception its callback reports (with the kernel's arguments and
 * function); the stream's synchronization fails with the trap's code (the
 * stream is in STOP mode: the callback task after it is dropped), as the
 * example expects.
 */
VENDOR_EXAMPLE(callback_exception)
	.in_order = {
		"[INFO]  Begin an easy task and an error task. The error task will trigger the exception callback.",
		"[INFO]  Exception occurred, callback function.",
		"[INFO]  The error task id is ",
		"[INFO]  The error stream id is ",
		"[INFO]  The error device id is 0.",
		"[INFO]  The error code id is 507016.",
		/*
		 * ErrorOPf has no parameters: npu's launch has no argument
		 * block (no hidden system parameters), and CANN's runtime then
		 * answers argAddr NULL, argsize 0 with success
		 * (GetKernelExceptionDfxInfo sets them only for a block)
		 */
		"[INFO]  Exception args query ret=0, devArgsPtr=(nil), devArgsLen=0",
		"[INFO]  Exception func handle query ret=0, funcHandle=0x",
		"[INFO]  Run the callback_exception sample successfully.",
	},
	/* the main thread's, while the callback prints on its own thread */
	.anywhere = { "[ERROR]  aclrtSynchronizeStream(stream_) returned error code 507016" },
	.faults = true,
};

/* 1_basic_features/memory/1..6: DeviceWrite/DeviceRead around each kind of copy */
#define MEMORY_COPY							\
	.anywhere = { "Source data: 123", "Destination data: 123" },		\
	.never = { "[ERROR]" },							\
	.equal = { "Source data:", "Destination data:" },

VENDOR_EXAMPLE(h2d_sync_memory_copy)
	MEMORY_COPY
};
VENDOR_EXAMPLE(h2d_async_memory_copy)
	MEMORY_COPY
};
VENDOR_EXAMPLE(d2h_sync_memory_copy)
	MEMORY_COPY
};
VENDOR_EXAMPLE(d2h_async_memory_copy)
	MEMORY_COPY
};
VENDOR_EXAMPLE(d2d_sync_memory_copy)
	MEMORY_COPY
};
VENDOR_EXAMPLE(d2d_async_memory_copy)
	MEMORY_COPY
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

/* A running program of an example, its output collected from @fd. */
struct vendor_run {
	pid_t pid;
	int fd;			/* read end of its stdout and stderr; -1 at EOF */
	char *out;		/* OUT_SIZE bytes, NUL-terminated */
	size_t len;
	int status;		/* wait status; -1 if it could not start */
};

/*
 * Start @dir's program @argv[0] with @argv in working directory @cwd
 * (stdout and stderr into a pipe, killed if the test process dies; a
 * kernels library built SHARED sits beside the programs): 0 or -1.
 */
static int start_program(struct vendor_run *r, const char *dir, const char *cwd, const char *const *argv)
{
	char path[256];
	int pfd[2];

	snprintf(path, sizeof(path), "%s/%s", dir, argv[0]);
	r->len = 0;
	r->out[0] = 0;
	r->status = -1;
	r->fd = -1;
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	fflush(stdout);
	r->pid = fork();
	if (r->pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!r->pid) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (chdir(cwd))
			_exit(126);
		setenv("LD_LIBRARY_PATH", dir, 1);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	r->fd = pfd[0];
	return 0;
}

/*
 * Collect the output of @n started programs until each closed it, then
 * their wait statuses; after @secs seconds every one still running is
 * killed (its status says so). 0, or -1 if the deadline passed.
 */
static int finish_programs(struct vendor_run *r, int n, int secs)
{
	struct timespec now, end;
	int ret = 0, i, open;
	char sink[256];

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += secs;
	for (;;) {
		struct pollfd pfd[MAX_PROCS];
		int ms;

		for (i = 0, open = 0; i < n; i++) {
			pfd[i].fd = r[i].fd;
			pfd[i].events = POLLIN;
			open += r[i].fd >= 0;
		}
		if (!open)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (int)((end.tv_sec - now.tv_sec) * 1000 + (end.tv_nsec - now.tv_nsec) / 1000000);
		if (ms <= 0) {
			ret = -1;
			for (i = 0; i < n; i++)
				if (r[i].fd >= 0)
					kill(r[i].pid, SIGKILL);
			break;
		}
		if (poll(pfd, n, ms) < 0 && errno != EINTR)
			return -1;
		for (i = 0; i < n; i++) {
			ssize_t got;

			if (r[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (r[i].len + 1 < OUT_SIZE)
				got = read(r[i].fd, r[i].out + r[i].len, OUT_SIZE - 1 - r[i].len);
			else
				got = read(r[i].fd, sink, sizeof(sink));	/* the rest is dropped */
			if (got > 0 && r[i].len + 1 < OUT_SIZE) {
				r[i].len += got;
				r[i].out[r[i].len] = 0;
			} else if (got <= 0 && (got == 0 || errno != EINTR)) {
				close(r[i].fd);
				r[i].fd = -1;
			}
		}
	}
	for (i = 0; i < n; i++) {
		if (r[i].fd >= 0) {
			close(r[i].fd);
			r[i].fd = -1;
		}
		if (waitpid(r[i].pid, &r[i].status, 0) != r[i].pid)
			r[i].status = -1;
	}
	return ret;
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

/* @out as diagnostics, each line indented under @who. */
static void print_output(const char *who, const char *out)
{
	printf("# %s:\n", who);
	for (const char *l = out, *e; *l; l = e + 1) {
		e = strchr(l, '\n');
		if (!e)
			e = l + strlen(l) - 1;
		printf("#   %.*s\n", (int)(e - l + (e[0] != '\n')), l);
	}
}

/* @who's wait status @st is a clean exit, and @out holds the lines it should. */
static void check_program(const char *who, int st, const char *out, const char *const *in_order,
			  const char *const *anywhere, const char *const *never)
{
	const char *at = out;

	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st))
		TH_LOG("%s: %s %d", who, st != -1 && WIFSIGNALED(st) ? "killed by signal" : "exit status",
		       st == -1 ? -1 : WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	EXPECT_NE(-1, st);
	EXPECT_TRUE(st != -1 && WIFEXITED(st));
	EXPECT_EQ(0, st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	for (int i = 0; i < MAX_LINES && in_order[i]; i++) {
		const char *p = find_line(at, in_order[i]);

		if (!p)
			TH_LOG("%s: missing (in this order): \"%s\"", who, in_order[i]);
		EXPECT_NONNULL(p);
		if (p)
			at = p + strlen(in_order[i]);
	}
	for (int i = 0; i < MAX_LINES && anywhere[i]; i++) {
		if (!find_line(out, anywhere[i]))
			TH_LOG("%s: missing: \"%s\"", who, anywhere[i]);
		EXPECT_NONNULL(find_line(out, anywhere[i]));
	}
	for (int i = 0; i < MAX_LINES && never[i]; i++) {
		if (strstr(out, never[i]))
			TH_LOG("%s: unexpected: \"%s\"", who, never[i]);
		EXPECT_NULL(strstr(out, never[i]));
	}
}

/* @path's contents (malloc'ed) and length; NULL if unreadable. */
static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc(n + 1);
		if (buf && fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = n;
	}
	fclose(f);
	return buf;
}

/* verify_result.py: FP16 @output against @golden (both in @dir), numpy.isclose's rule. */
static void check_fp16(const char *dir, const char *output, const char *golden)
{
	char opath[256], gpath[256];
	size_t olen = 0, glen = 0, n, bad = 0;
	uint16_t *o, *g;

	snprintf(opath, sizeof(opath), "%s/%s", dir, output);
	snprintf(gpath, sizeof(gpath), "%s/%s", dir, golden);
	o = read_file(opath, &olen);
	g = read_file(gpath, &glen);
	if (!o || !g)
		TH_LOG("cannot read %s", !o ? opath : gpath);
	EXPECT_TRUE(o && g);
	if (o && g) {
		if (olen != glen || !glen || glen % 2)
			TH_LOG("%s has %zu bytes, %s %zu", output, olen, golden, glen);
		EXPECT_TRUE(olen == glen && glen && !(glen % 2));
		n = olen == glen ? glen / 2 : 0;
		for (size_t i = 0; i < n; i++) {
			float a = (float)h_of(o[i]), b = (float)h_of(g[i]);

			if (isnan(a) && isnan(b))
				continue;
			if (!(fabsf(a - b) <= 1e-5f + 1e-3f * fabsf(b))) {
				if (bad < 8)
					TH_LOG("%s[%zu] = %g, golden %g", output, i, a, b);
				bad++;
			}
		}
		printf("# %s: %zu of %zu FP16 values differ from %s\n", output, bad, n, golden);
		EXPECT_LE(bad * 1000, n);
	}
	free(o);
	free(g);
}

/* run.sh's awk: the value after the first ':' of the first line holding @key, trimmed. */
static bool field_after(const char *out, const char *key, char *buf, size_t size)
{
	const char *p = strstr(out, key), *end;

	if (!p)
		return false;
	p = strchr(p, ':');
	end = strchr(p, '\n');
	if (!end)
		end = p + strlen(p);
	for (p++; p < end && *p == ' '; p++)
		;
	while (end > p && end[-1] == ' ')
		end--;
	snprintf(buf, size, "%.*s", (int)(end - p), p);
	return true;
}

/* What the variant's run.sh checks beyond the lines: files, fields, counts. */
static void check_results(const FIXTURE_VARIANT(example) *variant, const char *dir, const char *out)
{
	char a[64], b[64];
	int n = 0;

	if (variant->fp16.output)
		check_fp16(dir, variant->fp16.output, variant->fp16.golden);
	if (variant->equal[0]) {
		bool got = field_after(out, variant->equal[0], a, sizeof(a)) &&
			   field_after(out, variant->equal[1], b, sizeof(b));

		if (!got || !*a || strcmp(a, b))
			TH_LOG("\"%s\" and \"%s\" differ: \"%s\", \"%s\"", variant->equal[0], variant->equal[1],
			       got ? a : "?", got ? b : "?");
		EXPECT_TRUE(got && *a && !strcmp(a, b));
	}
	if (variant->count.line) {
		for (const char *p = out; (p = strstr(p, variant->count.line)); p++)
			n++;
		if (n != variant->count.n)
			TH_LOG("\"%s\" %d times, not %d", variant->count.line, n, variant->count.n);
		EXPECT_EQ(variant->count.n, n);
	}
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* @cwd made afresh, with the subdirectories @dirs: 0 or -errno. */
static int fresh_dir(const char *cwd, const char *const *dirs)
{
	char path[320];

	if (nftw(cwd, rm_entry, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		return -errno;
	if (mkdir(cwd, 0755))
		return -errno;
	for (int i = 0; i < MAX_DIRS && dirs[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", cwd, dirs[i]);
		if (mkdir(path, 0755))
			return -errno;
	}
	return 0;
}

/* /dev/npu0 .. npu(@n - 1) all exist. */
static bool have_devices(int n)
{
	char path[32];

	for (int d = 0; d < n; d++) {
		snprintf(path, sizeof(path), "/dev/npu%d", d);
		if (access(path, F_OK))
			return false;
	}
	return true;
}

/*
 * npu.ko with at least @n devices: as it is, or reloaded (as root) with
 * its other parameters and num_devices=@n, @self->saved for the teardown.
 * 0, 1 (a SKIP: not root), or -errno.
 */
static int want_devices(struct __th_data_example *self, int n)
{
	struct npu_mod_params more;
	char params[512];
	int ret;

	if (have_devices(n))
		return 0;
	if (geteuid() || access(npu_ko_path(), R_OK))
		return 1;
	if (npu_mod_read_params(&self->saved))
		return -ENOENT;
	more = self->saved;
	snprintf(more.num_devices, sizeof(more.num_devices), "%d", n);
	npu_mod_params_string(&more, params, sizeof(params));
	self->reloaded = true;
	ret = npu_mod_unload();
	if (!ret)
		ret = npu_mod_load(params);
	if (!ret)
		ret = npu_mod_nodes_ready(n);
	return ret;
}

/* How long an example's programs may run: SET_SECS, scaled as the harness's timeouts. */
static int set_secs(void)
{
	const char *scale = getenv("HARNESS_TIMEOUT_SCALE");

	return (int)(SET_SECS * (scale && atof(scale) > 1 ? atof(scale) : 1));
}

/* Run a variant's process set in @dir: its .before programs, then the rest at once. */
static void run_set(const FIXTURE_VARIANT(example) *variant, const char *dir)
{
	static char outs[MAX_PROCS][OUT_SIZE];
	struct vendor_run r[MAX_PROCS];
	int secs = set_secs();
	int idx[MAX_PROCS], n = 0, late, i, ret;
	char cwd[192], who[64];

	snprintf(cwd, sizeof(cwd), "%s/run", dir);
	ret = fresh_dir(cwd, variant->dirs);
	if (ret)
		TH_LOG("cannot make %s afresh: %s", cwd, strerror(-ret));
	ASSERT_EQ(0, ret);
	printf("# working directory %s\n", cwd);
	for (i = 0; i < MAX_PROCS && variant->procs[i].argv[0]; i++)
		r[i].out = outs[i];
	/* the .before programs one at a time, then the others together */
	for (i = 0; i < MAX_PROCS && variant->procs[i].argv[0]; i++) {
		if (!variant->procs[i].before)
			continue;
		ASSERT_EQ(0, start_program(&r[i], dir, cwd, variant->procs[i].argv));
		ret = finish_programs(&r[i], 1, secs);
		idx[n++] = i;
		if (ret || r[i].status) {
			TH_LOG("%s did not finish with exit status 0: the others do not start",
			       variant->procs[i].argv[0]);
			break;
		}
	}
	late = n;
	if (i == MAX_PROCS || !variant->procs[i].argv[0]) {
		for (i = 0; i < MAX_PROCS && variant->procs[i].argv[0]; i++) {
			if (variant->procs[i].before)
				continue;
			if (start_program(&r[i], dir, cwd, variant->procs[i].argv)) {
				TH_LOG("cannot start %s: %s", variant->procs[i].argv[0], strerror(errno));
				break;
			}
			idx[n++] = i;
		}
		if (n > late) {
			struct vendor_run set[MAX_PROCS];

			for (i = late; i < n; i++)
				set[i - late] = r[idx[i]];
			ret = finish_programs(set, n - late, secs);
			for (i = late; i < n; i++)
				r[idx[i]] = set[i - late];
			if (ret)
				TH_LOG("killed after %d s: its processes waited for each other too long", secs);
			EXPECT_EQ(0, ret);
		}
	}
	for (i = 0; i < n; i++) {
		const struct vendor_proc *p = &variant->procs[idx[i]];

		snprintf(who, sizeof(who), "%s (pid %d)", p->argv[0], (int)r[idx[i]].pid);
		print_output(who, r[idx[i]].out);
	}
	for (i = 0; i < n; i++) {
		const struct vendor_proc *p = &variant->procs[idx[i]];

		check_program(p->argv[0], r[idx[i]].status, r[idx[i]].out, p->in_order, p->anywhere, p->never);
	}
	/* every program ran */
	for (i = 0; i < MAX_PROCS && variant->procs[i].argv[0]; i++) {
		bool ran = false;

		for (int k = 0; k < n; k++)
			ran |= idx[k] == i;
		if (!ran)
			TH_LOG("%s did not run", variant->procs[i].argv[0]);
		EXPECT_TRUE(ran);
	}
}

TEST_F_TIMEOUT(example, runs, 120)
{
	static char out[OUT_SIZE];
	const char *const main_argv[] = { "main", NULL };
	const char *const *argv = variant->argv[0] ? variant->argv : main_argv;
	char dir[128], path[256], status[512];
	struct vendor_run r = { .out = out };
	int ret;

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
	printf("# vendor commit %s: %s/%s\n", status + 6, dir,
	       variant->procs[0].argv[0] ? "{set of processes}" : argv[0]);
	if (variant->devices) {
		ret = want_devices(self, variant->devices);
		if (ret == 1)
			SKIP(return, "needs %d devices: load npu.ko with num_devices=%d, or run as root",
			     variant->devices, variant->devices);
		if (ret)
			TH_LOG("cannot load npu.ko with %d devices: %s", variant->devices, strerror(-ret));
		ASSERT_EQ(0, ret);
	}

	if (variant->faults)
		npu_expect_dma_faults(true);
	if (variant->procs[0].argv[0]) {
		run_set(variant, dir);
		return;
	}
	/* one program, in the example's directory (the teardown ends expected faults) */
	if (variant->fp16.output) {
		/* what an earlier run wrote must not pass for this one's */
		snprintf(path, sizeof(path), "%s/%s", dir, variant->fp16.output);
		unlink(path);
	}
	ASSERT_EQ(0, start_program(&r, dir, dir, argv));
	if (finish_programs(&r, 1, set_secs()))
		TH_LOG("%s killed after %d s", argv[0], set_secs());
	print_output(argv[0], out);
	check_program(argv[0], r.status, out, variant->in_order, variant->anywhere, variant->never);
	check_results(variant, dir, out);
}

TEST_HARNESS_MAIN
