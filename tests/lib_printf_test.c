// SPDX-License-Identifier: MIT
/*
 * libacl: kernel printf (lib/kprint.c). The kernels are npu-cc's, from
 * tests/ascendc/lib_printf_kern.cpp (they print) and lib_printf_quiet.cpp
 * (no printf), host objects with their device binaries embedded (lib/lib.mk).
 * A launch of a printing kernel, through the <<<>>> stub or the API,
 * prints its blocks' records on stdout in block order before the launch
 * call returns (CANN's 910B stub: dump workspace, launch, synchronise,
 * print); a trap's reason goes to stderr with the kernel's name; a full
 * printf area loses records with a note on stderr; kernels that do not
 * print print nothing; the printf areas are freed (no device memory
 * growth). Launches captured into a model print at each of its runs; a
 * printing kernel is no task of a task group, and its task takes new
 * arguments only. Skips without /dev/npu0.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lib_util.h"

/* the host objects' (tests/ascendc/lib_printf_kern.cpp, lib_printf_quiet.cpp) */
const void *lib_printf_image(size_t *len);
const void *lib_printf_quiet_image(size_t *len);
uint32_t lib_printf_hello(uint32_t blocks, void *stream);
uint32_t lib_printf_value(uint32_t blocks, void *p, int32_t v, void *stream);
uint32_t lib_printf_quiet(uint32_t blocks, void *p, void *stream);

#define CAP_MAX		(256 * 1024)

/* Output to fd 1 or 2 goes to a temporary file until cap_end(). */
struct cap {
	int fd, saved;
	FILE *f;
	char text[CAP_MAX];
};

static void cap_begin(struct cap *c, int fd)
{
	fflush(stdout);
	fflush(stderr);
	c->fd = fd;
	c->f = tmpfile();
	c->saved = dup(fd);
	if (!c->f || c->saved < 0 || dup2(fileno(c->f), fd) < 0)
		abort();
}

/* What was written, NUL-terminated in c->text. */
static const char *cap_end(struct cap *c)
{
	size_t n;

	fflush(stdout);
	fflush(stderr);
	dup2(c->saved, c->fd);
	close(c->saved);
	rewind(c->f);
	n = fread(c->text, 1, sizeof(c->text) - 1, c->f);
	c->text[n] = '\0';
	fclose(c->f);
	return c->text;
}

/* A run of @m on @stream, synchronised, its printing into @out: the first failure's answer. */
static aclError run_printing(aclmdlRI m, aclrtStream stream, struct cap *out)
{
	aclError r;

	cap_begin(out, 1);
	r = aclmdlRIExecuteAsync(m, stream);
	if (!r)
		r = aclrtSynchronizeStream(stream);
	cap_end(out);
	return r;
}

static size_t hbm_free(void)
{
	size_t fr = 0, total = 0;

	if (aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total) != ACL_SUCCESS)
		return 0;
	return fr;
}

static aclrtFuncHandle get_func(aclrtBinHandle *h, const void *img, size_t len, const char *name)
{
	aclrtFuncHandle f = NULL;

	if (aclrtBinaryLoadFromData(img, len, NULL, h) != ACL_SUCCESS ||
	    aclrtBinaryGetFunction(*h, name, &f) != ACL_SUCCESS)
		return NULL;
	return f;
}

static struct cap out, err;

/* kernel_print: exactly N "Hello World" lines, printed when the <<<>>> call returns */
TEST(stub_hello)
{
	char want[256] = "";
	uint32_t r;
	int i;

	NEED_DEVICE();
	for (i = 0; i < 8; i++)
		strcat(want, "Hello World\n");
	cap_begin(&out, 1);
	r = lib_printf_hello(8, NULL);
	cap_end(&out);
	EXPECT_EQ(0U, r);
	EXPECT_STREQ(want, out.text);
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	cap_begin(&out, 1);
	r = lib_printf_hello(1, NULL);
	cap_end(&out);
	EXPECT_EQ(0U, r);
	EXPECT_STREQ("Hello World\n", out.text);
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* an API launch over several blocks: the records in block order */
TEST(api_block_order)
{
	static char want[16384];
	uint64_t n = 3;
	aclError r;
	aclrtStream stream;
	aclrtBinHandle h;
	aclrtFuncHandle f;
	const void *img;
	size_t len;
	int b, i;

	NEED_DEVICE();
	img = lib_printf_image(&len);
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	f = get_func(&h, img, len, "lines_op");
	ASSERT_NE(NULL, f);
	want[0] = '\0';
	for (b = 0; b < 16; b++)
		for (i = 0; i < 3; i++)
			sprintf(want + strlen(want), "block %d of 16 line %d\n", b, i);
	cap_begin(&out, 1);
	r = aclrtLaunchKernelWithHostArgs(f, 16, stream, NULL, &n, sizeof(n), NULL, 0);
	cap_end(&out);
	EXPECT_ACL_OK(r);
	EXPECT_STREQ(want, out.text);
	/* printed before the call returned: the stream has nothing left to print */
	cap_begin(&out, 1);
	r = aclrtSynchronizeStream(stream);
	cap_end(&out);
	EXPECT_ACL_OK(r);
	EXPECT_STREQ("", out.text);
	EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtDestroyStream(stream));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* write_read_value: DeviceWrite through the stub, then aclrtDestroyStreamForce: printed all the same */
TEST(stub_value_then_destroy_force)
{
	int32_t host[4] = { 0 };
	uint32_t r1, r2;
	aclrtStream stream;
	void *p;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtMalloc(&p, sizeof(host), ACL_MEM_MALLOC_HUGE_FIRST));
	cap_begin(&out, 1);
	r1 = lib_printf_value(4, p, 100, stream);
	r2 = aclrtDestroyStreamForce(stream);
	cap_end(&out);
	EXPECT_EQ(0U, r1);
	EXPECT_ACL_OK(r2);
	EXPECT_STREQ("Source data: 100\nSource data: 101\nSource data: 102\nSource data: 103\n", out.text);
	ASSERT_ACL_OK(aclrtMemcpy(host, sizeof(host), p, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(100, host[0]);
	EXPECT_EQ(103, host[3]);
	EXPECT_ACL_OK(aclrtFree(p));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* kernels that do not print print nothing; no device memory stays behind over many launches */
TEST(silent_and_no_growth)
{
	aclrtFuncHandle lines, silent, quiet;
	aclrtBinHandle h, hq;
	uint64_t n = 1;
	size_t len, before, after;
	const void *img;
	void *p;
	int i, nl = 0, r[3];
	const char *c;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&p, 64 * 4, ACL_MEM_MALLOC_HUGE_FIRST));
	img = lib_printf_image(&len);
	lines = get_func(&h, img, len, "lines_op");
	ASSERT_NE(NULL, lines);
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "silent_op", &silent));
	img = lib_printf_quiet_image(&len);
	quiet = get_func(&hq, img, len, "quiet_op");
	ASSERT_NE(NULL, quiet);

	cap_begin(&out, 1);
	r[0] = aclrtLaunchKernelWithHostArgs(silent, 8, NULL, NULL, &p, sizeof(p), NULL, 0);
	r[1] = aclrtLaunchKernelWithHostArgs(quiet, 8, NULL, NULL, &p, sizeof(p), NULL, 0);
	r[2] = aclrtSynchronizeStream(NULL);
	cap_end(&out);
	EXPECT_ACL_OK(r[0]);
	EXPECT_ACL_OK(r[1]);
	EXPECT_ACL_OK(r[2]);
	EXPECT_STREQ("", out.text);

	/* the first launches made the stream's argument ring */
	before = hbm_free();
	EXPECT_NE(0U, before);
	cap_begin(&out, 1);
	for (i = 0; i < 50; i++) {
		if (aclrtLaunchKernelWithHostArgs(lines, 8, NULL, NULL, &n, sizeof(n), NULL, 0))
			r[0]++;
		if (aclrtLaunchKernelWithHostArgs(quiet, 8, NULL, NULL, &p, sizeof(p), NULL, 0))
			r[1]++;
	}
	r[2] = aclrtSynchronizeStream(NULL);
	cap_end(&out);
	EXPECT_EQ(0, r[0]);
	EXPECT_EQ(0, r[1]);
	EXPECT_ACL_OK(r[2]);
	after = hbm_free();
	EXPECT_EQ(before, after);
	for (c = out.text; *c; c++)
		nl += *c == '\n';
	EXPECT_EQ(50 * 8, nl);
	EXPECT_EQ(0, strncmp(out.text, "block 0 of 8 line 0\nblock 1 of 8 line 0\n", 40));
	EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtBinaryUnLoad(hq));
	EXPECT_ACL_OK(aclrtFree(p));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* a trap: the records printed before it on stdout, its reason on stderr, 507016 at the synchronize */
TEST(trap_reason)
{
	aclrtStream stream;
	aclrtBinHandle h;
	aclrtFuncHandle f;
	const void *img;
	uint64_t none = 0;
	aclError r;
	size_t len;

	NEED_DEVICE();
	img = lib_printf_image(&len);
	f = get_func(&h, img, len, "trap_op");
	ASSERT_NE(NULL, f);
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	npu_expect_dma_faults(true);
	cap_begin(&out, 1);
	cap_begin(&err, 2);
	r = aclrtLaunchKernelWithHostArgs(f, 2, stream, NULL, &none, sizeof(none), NULL, 0);
	cap_end(&err);
	cap_end(&out);
	EXPECT_ACL_OK(r);
	EXPECT_STREQ("before the trap 0\nbefore the trap 1\n", out.text);
	EXPECT_STREQ("kernel trap_op, block 1: trap: test trap of block 1\n", err.text);
	EXPECT_ACL(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, aclrtSynchronizeStream(stream));
	EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtDestroyStream(stream));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* a printf area of aclrtDeviceSetLimit's size: what does not fit is lost, with a note */
TEST(area_full)
{
	static char want[8192];
	aclrtBinHandle h;
	aclrtFuncHandle f;
	const void *img;
	uint64_t n = 20;
	aclError r;
	size_t len;
	int b, i;

	NEED_DEVICE();
	img = lib_printf_image(&len);
	f = get_func(&h, img, len, "flood_op");
	ASSERT_NE(NULL, f);
	ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 1024));
	/* 1016 bytes of records per block: 8 of 16 + 104 bytes */
	want[0] = '\0';
	for (b = 0; b < 2; b++)
		for (i = 0; i < 8; i++)
			sprintf(want + strlen(want), "%03d %096d\n", i, 0);
	cap_begin(&out, 1);
	cap_begin(&err, 2);
	r = aclrtLaunchKernelWithHostArgs(f, 2, NULL, NULL, &n, sizeof(n), NULL, 0);
	cap_end(&err);
	cap_end(&out);
	EXPECT_ACL_OK(r);
	EXPECT_STREQ(want, out.text);
	EXPECT_STREQ("kernel flood_op, block 0: printf output lost: its 1024-byte printf area is full (aclrtDeviceSetLimit ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE)\n"
		     "kernel flood_op, block 1: printf output lost: its 1024-byte printf area is full (aclrtDeviceSetLimit ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE)\n",
		     err.text);
	EXPECT_ACL_OK(aclrtSynchronizeStream(NULL));
	EXPECT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 32768));
	EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * Launches captured into a model, through the <<<>>> stub and the API:
 * nothing runs or prints at the call; each run of the model prints its
 * kernels' records, in launch and block order, by the time the run's
 * synchronize returns (the vendor's graphs print at each run); a kernel
 * that does not print prints nothing; the model's printf areas are given
 * back at its destroy.
 */
TEST(capture_prints_each_run)
{
	static char want[4096];
	int32_t host[4] = { 0 }, q[4];
	aclrtBinHandle h;
	aclrtFuncHandle lines;
	aclrtStream stream;
	uint64_t n = 2;
	const void *img;
	size_t len, before;
	aclmdlRI m;
	uint32_t r1, r2;
	aclError r3;
	void *p, *pq;
	int run, b, i;

	NEED_DEVICE();
	img = lib_printf_image(&len);
	lines = get_func(&h, img, len, "lines_op");
	ASSERT_NE(NULL, lines);
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtMalloc(&p, sizeof(host), ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&pq, sizeof(q), ACL_MEM_MALLOC_HUGE_FIRST));
	/* the binaries loaded by a first launch of each */
	ASSERT_EQ(0U, lib_printf_quiet(4, pq, stream));
	cap_begin(&out, 1);
	ASSERT_EQ(0U, lib_printf_value(1, p, 0, stream));
	cap_end(&out);
	ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
	before = hbm_free();

	cap_begin(&out, 1);
	ASSERT_ACL_OK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	r1 = lib_printf_value(4, p, 100, stream);
	r2 = lib_printf_quiet(4, pq, stream);
	r3 = aclrtLaunchKernelWithHostArgs(lines, 2, stream, NULL, &n, sizeof(n), NULL, 0);
	n = 9;
	ASSERT_ACL_OK(aclmdlRICaptureEnd(stream, &m));
	cap_end(&out);
	EXPECT_EQ(0U, r1);
	EXPECT_EQ(0U, r2);
	EXPECT_ACL_OK(r3);
	EXPECT_STREQ("", out.text);
	EXPECT_GT(before, hbm_free());

	want[0] = '\0';
	for (i = 0; i < 4; i++)
		sprintf(want + strlen(want), "Source data: %d\n", 100 + i);
	for (b = 0; b < 2; b++)
		for (i = 0; i < 2; i++)
			sprintf(want + strlen(want), "block %d of 2 line %d\n", b, i);
	for (run = 0; run < 3; run++) {
		ASSERT_ACL_OK(aclrtMemset(p, sizeof(host), 0, sizeof(host)));
		ASSERT_ACL_OK(aclrtMemset(pq, sizeof(q), 0, sizeof(q)));
		cap_begin(&out, 1);
		r3 = aclmdlRIExecuteAsync(m, stream);
		if (!r3)
			r3 = aclrtSynchronizeStream(stream);
		cap_end(&out);
		EXPECT_ACL_OK(r3);
		EXPECT_STREQ(want, out.text);
		ASSERT_ACL_OK(aclrtMemcpy(host, sizeof(host), p, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(100, host[0]);
		EXPECT_EQ(103, host[3]);
		ASSERT_ACL_OK(aclrtMemcpy(q, sizeof(q), pq, sizeof(q), ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(5, q[3]);
	}
	EXPECT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_EQ(before, hbm_free());
	EXPECT_ACL_OK(aclrtFree(p));
	EXPECT_ACL_OK(aclrtFree(pq));
	EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtDestroyStream(stream));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * A printing kernel and task changes (npu's limits): no task of a task
 * group (207000 at the capture, nothing recorded; 207000 in an update
 * window, not counted); aclmdlRITaskSetParams changes its arguments
 * (the same function and blocks: the next runs print the new values) and
 * nothing else (207000, the model staying updatable), nor makes a kernel
 * task that did not print one that prints.
 */
TEST(printing_kernel_task_changes)
{
	struct {
		void *p;
		int32_t v;
		int32_t pad;
	} va = { .v = 100 };
	void *qa[1];
	aclmdlRICaptureStatus cs;
	aclmdlRITaskParams prm;
	aclmdlRITaskType type;
	aclmdlRITask t[8], kt[2];
	aclrtBinHandle h, hq;
	aclrtFuncHandle value, quiet;
	aclrtStream stream, up, ms;
	aclrtTaskGrp g;
	int32_t host[4];
	const void *img;
	uint32_t n = 1, i, nk = 0;
	size_t len;
	aclmdlRI m;
	aclError r;
	void *p, *pq;

	NEED_DEVICE();
	img = lib_printf_image(&len);
	value = get_func(&h, img, len, "value_op");
	ASSERT_NE(NULL, value);
	img = lib_printf_quiet_image(&len);
	quiet = get_func(&hq, img, len, "quiet_op");
	ASSERT_NE(NULL, quiet);
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtCreateStream(&up));
	ASSERT_ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&pq, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	va.p = p;
	qa[0] = pq;

	cap_begin(&out, 1);
	ASSERT_ACL_OK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	r = aclrtLaunchKernelWithHostArgs(value, 2, stream, NULL, &va, sizeof(va), NULL, 0);
	ASSERT_ACL_OK(aclmdlRICaptureTaskGrpBegin(stream));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtLaunchKernelWithHostArgs(value, 2, stream, NULL, &va, sizeof(va), NULL, 0));
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(quiet, 2, stream, NULL, qa, sizeof(qa), NULL, 0));
	ASSERT_ACL_OK(aclmdlRICaptureTaskGrpEnd(stream, &g));
	ASSERT_ACL_OK(aclmdlRICaptureGetInfo(stream, &cs, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, cs);
	ASSERT_ACL_OK(aclmdlRICaptureEnd(stream, &m));
	cap_end(&out);
	EXPECT_ACL_OK(r);
	EXPECT_STREQ("", out.text);

	/* the kernel tasks: the printing one, the group's */
	ASSERT_ACL_OK(aclmdlRIGetStreams(m, &ms, &n));
	n = 8;
	ASSERT_ACL_OK(aclmdlRIGetTasksByStream(ms, t, &n));
	for (i = 0; i < n; i++) {
		ASSERT_ACL_OK(aclmdlRITaskGetType(t[i], &type));
		if (type == ACL_MODEL_RI_TASK_KERNEL && nk < 2)
			kt[nk++] = t[i];
	}
	ASSERT_EQ(2U, nk);

	/* its arguments change: the next runs print the new values */
	memset(&prm, 0, sizeof(prm));
	prm.type = ACL_MODEL_RI_TASK_KERNEL;
	va.v = 200;
	prm.kernelTaskParams = (aclmdlRIKernelTaskParams){
		.funcHandle = value, .args = &va, .isHostArgs = 1, .argsSize = sizeof(va), .numBlocks = 2,
	};
	EXPECT_ACL_OK(aclmdlRITaskSetParams(kt[0], &prm));
	/* its blocks, its function: npu's 207000 */
	prm.kernelTaskParams.numBlocks = 3;
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskSetParams(kt[0], &prm));
	prm.kernelTaskParams = (aclmdlRIKernelTaskParams){
		.funcHandle = quiet, .args = qa, .isHostArgs = 1, .argsSize = sizeof(qa), .numBlocks = 2,
	};
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskSetParams(kt[0], &prm));
	/* a task that did not print does not begin to */
	prm.kernelTaskParams = (aclmdlRIKernelTaskParams){
		.funcHandle = value, .args = &va, .isHostArgs = 1, .argsSize = sizeof(va), .numBlocks = 2,
	};
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskSetParams(kt[1], &prm));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	ASSERT_ACL_OK(aclrtMemset(p, 4096, 0, 4096));
	EXPECT_ACL_OK(run_printing(m, stream, &out));
	EXPECT_STREQ("Source data: 200\nSource data: 201\n", out.text);
	ASSERT_ACL_OK(aclrtMemcpy(host, sizeof(host), p, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(201, host[1]);

	/* an update window: a printing kernel 207000, not counted */
	ASSERT_ACL_OK(aclmdlRICaptureTaskUpdateBegin(up, g));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtLaunchKernelWithHostArgs(value, 2, up, NULL, &va, sizeof(va), NULL, 0));
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(quiet, 3, up, NULL, qa, sizeof(qa), NULL, 0));
	EXPECT_ACL_OK(aclmdlRICaptureTaskUpdateEnd(up));
	ASSERT_ACL_OK(aclrtMemset(pq, 4096, 0, 4096));
	EXPECT_ACL_OK(run_printing(m, stream, &out));
	ASSERT_ACL_OK(aclrtMemcpy(host, sizeof(host), pq, sizeof(host), ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(5, host[2]);
	EXPECT_EQ(0, host[3]);

	EXPECT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_ACL_OK(aclrtFree(p));
	EXPECT_ACL_OK(aclrtFree(pq));
	EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtBinaryUnLoad(hq));
	EXPECT_ACL_OK(aclrtDestroyStream(stream));
	EXPECT_ACL_OK(aclrtDestroyStream(up));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

TEST_HARNESS_MAIN
