// SPDX-License-Identifier: MIT
/*
 * libacl: kernel argument handles (aclrtKernelArgs*) and the launches
 * that are not aclrtLaunchKernelWithHostArgs: aclrtLaunchKernelWithConfig,
 * aclrtLaunchKernel and V2 (arguments in device memory),
 * aclrtLaunchKernelWithArgsArray and the SIMT launches. Every call's bad
 * input with CANN's codes; the block's layout (8-byte boundaries,
 * placeholder data after the parameters) read in the caller's memory of
 * InitByUserMem; the thread's one Init handle; kernels of
 * tests/ascendc/lib_kargs_kern.cpp (built with the test, lib/lib.mk) that
 * really read a placeholder's data, arguments in device memory, and a
 * parameter ParaUpdate changed, and managed memory (aclrtMemAllocManaged)
 * read and written by a kernel as the application's own pages. Launches
 * captured into a model (aclmdlRICaptureBegin .. End, and an explicit
 * build): every run runs them again, in order with the copies around
 * them, with the arguments of the launch call; the model owns their
 * device memory; a fault in a run is the launch's 507015 with its
 * exception; the capture modes; bad input refused, the capture going on;
 * a launch in a task group. Kernel tasks changed by aclmdlRITaskSetParams
 * (every bad input's code; arguments, blocks, function, host or device
 * block), which the runs after aclmdlRIUpdate compute with. Skips the
 * device parts without /dev/npu0.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "lib_util.h"

/* the linked device binary, embedded (lib/lib.mk passes its path) */
asm(".pushsection .rodata.lib_kargs,\"a\",@progbits\n\t.balign 64\n"
    "kern_start:\n\t.incbin \"" LIB_KARGS_NPUBIN "\"\nkern_end:\n\t.popsection");
extern const unsigned char kern_start[], kern_end[];

#define KERN_LEN	((size_t)(kern_end - kern_start))
#define BAD_PARAM	ACL_ERROR_INVALID_PARAM
#define RT_PARAM	ACL_ERROR_RT_PARAM_INVALID
#define HANDLE		ACL_ERROR_RT_INVALID_HANDLE
#define NOT_SUPP	ACL_ERROR_RT_FEATURE_NOT_SUPPORT

/* ph_op's block: its placeholder desc, out, bias (then the placeholder data) */
struct ph_args {
	uint64_t desc;
	void *out;
	int64_t bias;
};

static void load(aclrtBinHandle *h, aclrtFuncHandle *ph, aclrtFuncHandle *small)
{
	ASSERT_EQ(ACL_SUCCESS, aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, h));
	ASSERT_EQ(ACL_SUCCESS, aclrtBinaryGetFunction(*h, "ph_op", ph));
	ASSERT_EQ(ACL_SUCCESS, aclrtBinaryGetFunction(*h, "small_op", small));
}

/* NULL pointers and zero sizes: the acl layer's checks, before any handle is looked at */
TEST(null_inputs)
{
	int local = 0;
	aclrtArgsHandle a;
	aclrtParamHandle p;
	size_t sz;
	void *buf;
	dim3 g = { 1, 1, 1 };

	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsGetHandleMemSize(NULL, &sz));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsGetHandleMemSize(&local, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsGetMemSize(NULL, 8, &sz));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsGetMemSize(&local, 8, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsInit(NULL, &a));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsInit(&local, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsInitByUserMem(NULL, &local, &local, 8));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsInitByUserMem(&local, NULL, &local, 8));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsInitByUserMem(&local, &local, NULL, 8));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsInitByUserMem(&local, &local, &local, 0));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsAppend(NULL, &local, 4, &p));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsAppend(&local, NULL, 4, &p));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsAppend(&local, &local, 0, &p));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsAppend(&local, &local, 4, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsAppendPlaceHolder(NULL, &p));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsAppendPlaceHolder(&local, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsGetPlaceHolderBuffer(NULL, &local, 8, &buf));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsGetPlaceHolderBuffer(&local, NULL, 8, &buf));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsGetPlaceHolderBuffer(&local, &local, 0, &buf));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsGetPlaceHolderBuffer(&local, &local, 8, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsParaUpdate(NULL, &local, &local, 4));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsParaUpdate(&local, NULL, &local, 4));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsParaUpdate(&local, &local, NULL, 4));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsParaUpdate(&local, &local, &local, 0));
	EXPECT_ACL(BAD_PARAM, aclrtKernelArgsFinalize(NULL));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernelWithConfig(NULL, 1, NULL, NULL, &local, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernelWithConfig(&local, 0, NULL, NULL, &local, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernelWithConfig(&local, 1, NULL, NULL, NULL, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernelWithConfig(&local, 1, NULL, NULL, &local, &local));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernel(NULL, 1, &local, 8, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernel(&local, 1, NULL, 8, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernelV2(NULL, 1, &local, 8, NULL, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernelV2(&local, 1, NULL, 8, NULL, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernelWithArgsArray(NULL, 1, NULL, NULL, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernelWithArgsArray(&local, 0, NULL, NULL, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchSIMTKernelWithArgsArray(NULL, g, g, 0, NULL, NULL, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchSIMTKernelWithHostArgs(NULL, g, g, 0, NULL, NULL, &local, 8, NULL, 0));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchSIMTKernelWithHostArgs(&local, g, g, 0, NULL, NULL, NULL, 8, NULL, 0));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchSIMTKernelWithHostArgs(&local, g, g, 0, NULL, NULL, &local, 0, NULL, 0));
}

/* handles that are none: 107017, without reading them */
TEST(bad_handles)
{
	aclrtFuncHandle f, small;
	aclrtParamHandle p, q;
	aclrtArgsHandle a;
	aclrtBinHandle h;
	uint64_t local[8] = { 0 };
	size_t sz;
	void *buf;
	dim3 g = { 1, 1, 1 };

	NEED_DEVICE();
	load(&h, &f, &small);
	EXPECT_ACL(HANDLE, aclrtKernelArgsGetHandleMemSize(local, &sz));
	EXPECT_ACL(HANDLE, aclrtKernelArgsGetHandleMemSize(h, &sz));
	EXPECT_ACL(HANDLE, aclrtKernelArgsGetMemSize(local, 8, &sz));
	EXPECT_ACL(HANDLE, aclrtKernelArgsInit(local, &a));
	EXPECT_ACL(HANDLE, aclrtKernelArgsInitByUserMem(local, &a, local, sizeof(local)));
	EXPECT_ACL(HANDLE, aclrtKernelArgsAppend(local, local, 8, &p));
	EXPECT_ACL(HANDLE, aclrtKernelArgsAppendPlaceHolder(local, &p));
	EXPECT_ACL(HANDLE, aclrtKernelArgsFinalize(local));
	EXPECT_ACL(HANDLE, aclrtKernelArgsParaUpdate(local, local, local, 8));
	EXPECT_ACL(HANDLE, aclrtKernelArgsGetPlaceHolderBuffer(local, local, 8, &buf));
	ASSERT_ACL_OK(aclrtKernelArgsInit(f, &a));
	/* a parameter handle is one of its own argument handle */
	EXPECT_ACL(HANDLE, aclrtKernelArgsGetPlaceHolderBuffer(a, local, 8, &buf));
	EXPECT_ACL(HANDLE, aclrtKernelArgsParaUpdate(a, local, local, 8));
	ASSERT_ACL_OK(aclrtKernelArgsAppendPlaceHolder(a, &p));
	EXPECT_ACL(HANDLE, aclrtKernelArgsGetPlaceHolderBuffer(a, (char *)p + 1, 8, &buf));
	ASSERT_ACL_OK(aclrtKernelArgsInitByUserMem(f, local, local + 4, 32));
	ASSERT_ACL_OK(aclrtKernelArgsAppend(local, &sz, 8, &q));
	EXPECT_ACL(HANDLE, aclrtKernelArgsGetPlaceHolderBuffer(local, p, 8, &buf));
	EXPECT_ACL(HANDLE, aclrtKernelArgsParaUpdate(a, q, &sz, 8));
	/* the launches */
	ASSERT_ACL_OK(aclrtKernelArgsFinalize(a));
	EXPECT_ACL(HANDLE, aclrtLaunchKernelWithConfig(local + 1, 1, NULL, NULL, a, NULL));
	EXPECT_ACL(HANDLE, aclrtLaunchKernelWithConfig(f, 1, NULL, NULL, local + 1, NULL));
	EXPECT_ACL(HANDLE, aclrtLaunchKernel(local + 1, 1, local, 8, NULL));
	EXPECT_ACL(HANDLE, aclrtLaunchKernelV2(h, 1, local, 8, NULL, NULL));
	EXPECT_ACL(HANDLE, aclrtLaunchKernelWithArgsArray(local + 1, 1, NULL, NULL, (void **)local));
	EXPECT_ACL(HANDLE, aclrtLaunchSIMTKernelWithArgsArray(local + 1, g, g, 0, NULL, NULL, NULL));
	EXPECT_ACL(HANDLE, aclrtLaunchSIMTKernelWithHostArgs(h, g, g, 0, NULL, NULL, local, 8, NULL, 0));
	/* no npu-cc kernel is a SIMT kernel: CANN's runtime refuses the others */
	EXPECT_ACL(RT_PARAM, aclrtLaunchSIMTKernelWithArgsArray(f, g, g, 0, NULL, NULL, NULL));
	EXPECT_ACL(RT_PARAM, aclrtLaunchSIMTKernelWithHostArgs(f, g, g, 0, NULL, NULL, local, 8, NULL, 0));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	/* an unloaded binary's function is none */
	EXPECT_ACL(HANDLE, aclrtKernelArgsInit(f, &a));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* CANN's layout, read in the caller's memory (InitByUserMem), and the state rules */
TEST(layout)
{
	uint64_t hmem[64], mem[32];
	uint8_t *m = (uint8_t *)mem, c = 0x5a;
	int64_t x = 0x1122334455667788LL, y = -3;
	int16_t s = 7;
	aclrtParamHandle pc, px, pph, ps;
	aclrtFuncHandle f, small, noargs;
	aclrtBinHandle h;
	size_t sz, sz_small;
	void *buf, *buf2;

	NEED_DEVICE();
	load(&h, &f, &small);
	noargs = small;
	/* sizes: CANN's room for 8 system parameters and each parameter's padding */
	ASSERT_ACL_OK(aclrtKernelArgsGetMemSize(f, 100, &sz));
	EXPECT_EQ(100U + 64 + 3 * 8, sz);
	ASSERT_ACL_OK(aclrtKernelArgsGetMemSize(f, 0, &sz));
	EXPECT_EQ(64U + 3 * 8, sz);
	ASSERT_ACL_OK(aclrtKernelArgsGetHandleMemSize(f, &sz));
	ASSERT_ACL_OK(aclrtKernelArgsGetHandleMemSize(noargs, &sz_small));
	EXPECT_GT(sz, 0U);
	EXPECT_EQ(sz, sz_small);	/* both have 3 parameters */
	EXPECT_LE(sz, sizeof(hmem));

	/* small_op(uint8_t c, int64_t *out, int16_t s): 1 byte at 0, then 8 at 8, 2 at 16 */
	memset(mem, 0xee, sizeof(mem));
	ASSERT_ACL_OK(aclrtKernelArgsInitByUserMem(small, hmem, mem, sizeof(mem)));
	ASSERT_ACL_OK(aclrtKernelArgsAppend(hmem, &c, 1, &pc));
	ASSERT_ACL_OK(aclrtKernelArgsAppend(hmem, &x, 8, &px));
	ASSERT_ACL_OK(aclrtKernelArgsAppend(hmem, &s, 2, &ps));
	EXPECT_EQ(c, m[0]);
	EXPECT_EQ(0, memcmp(m + 8, &x, 8));
	EXPECT_EQ(0, memcmp(m + 16, &s, 2));
	EXPECT_EQ(0xee, m[1]);	/* padding untouched */
	/* the kernel's parameters are all taken */
	EXPECT_ACL(RT_PARAM, aclrtKernelArgsAppend(hmem, &c, 1, &pc));
	EXPECT_ACL(RT_PARAM, aclrtKernelArgsAppendPlaceHolder(hmem, &pph));
	/* a plain parameter has no placeholder buffer */
	EXPECT_ACL(RT_PARAM, aclrtKernelArgsGetPlaceHolderBuffer(hmem, px, 8, &buf));
	/* ParaUpdate: the same size only */
	EXPECT_ACL(RT_PARAM, aclrtKernelArgsParaUpdate(hmem, px, &s, 2));
	ASSERT_ACL_OK(aclrtKernelArgsParaUpdate(hmem, px, &y, 8));
	EXPECT_EQ(0, memcmp(m + 8, &y, 8));
	ASSERT_ACL_OK(aclrtKernelArgsFinalize(hmem));
	EXPECT_ACL(NOT_SUPP, aclrtKernelArgsAppend(hmem, &c, 1, &pc));
	/* the buffer's end: 16 bytes hold two parameters, not a third */
	ASSERT_ACL_OK(aclrtKernelArgsInitByUserMem(small, hmem, mem, 16));
	ASSERT_ACL_OK(aclrtKernelArgsAppend(hmem, &c, 1, &pc));
	ASSERT_ACL_OK(aclrtKernelArgsAppend(hmem, &x, 8, &px));
	EXPECT_ACL(RT_PARAM, aclrtKernelArgsAppend(hmem, &s, 1, &ps));

	/* placeholders: 8-byte slots, their data after the parameters */
	memset(mem, 0xee, sizeof(mem));
	ASSERT_ACL_OK(aclrtKernelArgsInitByUserMem(f, hmem, mem, sizeof(mem)));
	ASSERT_ACL_OK(aclrtKernelArgsAppend(hmem, &c, 1, &pc));
	ASSERT_ACL_OK(aclrtKernelArgsAppendPlaceHolder(hmem, &pph));
	ASSERT_ACL_OK(aclrtKernelArgsAppend(hmem, &s, 2, &ps));
	EXPECT_ACL(RT_PARAM, aclrtKernelArgsParaUpdate(hmem, pph, &x, 8));
	ASSERT_ACL_OK(aclrtKernelArgsGetPlaceHolderBuffer(hmem, pph, 5, &buf));
	EXPECT_EQ((void *)(m + 24), buf);	/* c at 0, the slot at 8, s at 16 */
	/* again: new data after the last, at the next 8-byte boundary */
	ASSERT_ACL_OK(aclrtKernelArgsGetPlaceHolderBuffer(hmem, pph, 8, &buf2));
	EXPECT_EQ((void *)(m + 32), buf2);
	EXPECT_ACL(RT_PARAM, aclrtKernelArgsGetPlaceHolderBuffer(hmem, pph, sizeof(mem) - 40 + 1, &buf));
	/* nothing appended after a placeholder's buffer */
	EXPECT_ACL(NOT_SUPP, aclrtKernelArgsAppend(hmem, &c, 1, &pc));
	EXPECT_ACL(NOT_SUPP, aclrtKernelArgsAppendPlaceHolder(hmem, &pph));
	/* ParaUpdate of a plain parameter still goes */
	ASSERT_ACL_OK(aclrtKernelArgsParaUpdate(hmem, ps, &s, 2));
	ASSERT_ACL_OK(aclrtKernelArgsFinalize(hmem));
	ASSERT_ACL_OK(aclrtKernelArgsFinalize(hmem));
	EXPECT_ACL(NOT_SUPP, aclrtKernelArgsGetPlaceHolderBuffer(hmem, pph, 8, &buf));
	EXPECT_ACL(NOT_SUPP, aclrtKernelArgsAppendPlaceHolder(hmem, &pph));
	EXPECT_ACL(NOT_SUPP, aclrtKernelArgsAppend(hmem, &c, 1, &pc));
	/* Init's handle: 64 KiB */
	{
		static uint8_t big[64 * 1024];
		aclrtArgsHandle a;

		ASSERT_ACL_OK(aclrtKernelArgsInit(f, &a));
		ASSERT_ACL_OK(aclrtKernelArgsAppend(a, big, sizeof(big), &pc));
		EXPECT_ACL(RT_PARAM, aclrtKernelArgsAppend(a, &c, 1, &pc));
		/* started again by the next Init: empty */
		ASSERT_ACL_OK(aclrtKernelArgsInit(f, &a));
		EXPECT_ACL_OK(aclrtKernelArgsAppend(a, big, sizeof(big), &pc));
		EXPECT_ACL(RT_PARAM, aclrtKernelArgsAppend(a, &c, 1, &pc));
	}
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

static void *other_thread_init(void *f)
{
	aclrtArgsHandle a = NULL;

	if (aclrtKernelArgsInit(f, &a) != ACL_SUCCESS)
		return NULL;
	return a;
}

/* aclrtKernelArgsInit: the thread's one handle, started again by each Init */
TEST(init_thread_local)
{
	aclrtArgsHandle a, b, t;
	aclrtFuncHandle f, small;
	aclrtParamHandle p;
	aclrtBinHandle h;
	pthread_t th;
	int64_t v = 1;

	NEED_DEVICE();
	load(&h, &f, &small);
	ASSERT_ACL_OK(aclrtKernelArgsInit(f, &a));
	ASSERT_ACL_OK(aclrtKernelArgsAppend(a, &v, 8, &p));
	ASSERT_ACL_OK(aclrtKernelArgsFinalize(a));
	ASSERT_ACL_OK(aclrtKernelArgsInit(small, &b));
	EXPECT_EQ(a, b);
	/* started again: not finalized, no parameters (p is none of it now) */
	EXPECT_ACL(HANDLE, aclrtKernelArgsParaUpdate(b, p, &v, 8));
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelWithConfig(small, 1, NULL, NULL, b, NULL));
	ASSERT_EQ(0, pthread_create(&th, NULL, other_thread_init, f));
	ASSERT_EQ(0, pthread_join(th, &t));
	EXPECT_NE(NULL, t);
	EXPECT_NE(a, t);
	/* the other thread's handle went with it */
	EXPECT_ACL(HANDLE, aclrtKernelArgsFinalize(t));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

static void read_out(int64_t *host, void *dev, aclrtStream stream)
{
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(stream));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpy(host, 32, dev, 32, ACL_MEMCPY_DEVICE_TO_HOST));
}

/*
 * WithConfig: the kernel reads the placeholder's data through the device
 * address the launch wrote into its slot; ParaUpdate changes what the
 * next launch sees (once finalized again).
 */
TEST(launch_with_config)
{
	int64_t data[4] = { 10, 20, 30, 40 }, bias = 5, out[4];
	aclrtParamHandle pph, pout, pbias;
	aclrtFuncHandle f, small;
	aclrtLaunchKernelCfg cfg = { NULL, 0 };
	aclrtArgsHandle a;
	aclrtBinHandle h;
	aclrtStream stream;
	void *dout, *buf;
	int i;

	NEED_DEVICE();
	load(&h, &f, &small);
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtMalloc(&dout, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMemset(dout, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtKernelArgsInit(f, &a));
	ASSERT_ACL_OK(aclrtKernelArgsAppendPlaceHolder(a, &pph));
	ASSERT_ACL_OK(aclrtKernelArgsAppend(a, &dout, 8, &pout));
	ASSERT_ACL_OK(aclrtKernelArgsAppend(a, &bias, 8, &pbias));
	ASSERT_ACL_OK(aclrtKernelArgsGetPlaceHolderBuffer(a, pph, sizeof(data), &buf));
	memcpy(buf, data, sizeof(data));
	/* not finalized */
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelWithConfig(f, 1, stream, NULL, a, NULL));
	ASSERT_ACL_OK(aclrtKernelArgsFinalize(a));
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelWithConfig(f, 65536 * 16, stream, NULL, a, NULL));
	ASSERT_ACL_OK(aclrtLaunchKernelWithConfig(f, 1, stream, &cfg, a, NULL));
	read_out(out, dout, stream);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(data[i] + 5, out[i]);

	/* the data went with the launch: changing the buffer changes the next one only */
	((int64_t *)buf)[0] = 1000;
	bias = -1;
	ASSERT_ACL_OK(aclrtKernelArgsParaUpdate(a, pbias, &bias, 8));
	/* updated since Finalize: no launch */
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelWithConfig(f, 1, stream, NULL, a, NULL));
	ASSERT_ACL_OK(aclrtKernelArgsFinalize(a));
	ASSERT_ACL_OK(aclrtLaunchKernelWithConfig(f, 1, stream, NULL, a, NULL));
	read_out(out, dout, stream);
	EXPECT_EQ(999, out[0]);
	for (i = 1; i < 4; i++)
		EXPECT_EQ(data[i] - 1, out[i]);

	/* InitByUserMem: the same through the caller's memory */
	{
		uint64_t hmem[64], mem[32];

		bias = 100;
		ASSERT_ACL_OK(aclrtKernelArgsInitByUserMem(f, hmem, mem, sizeof(mem)));
		ASSERT_ACL_OK(aclrtKernelArgsAppendPlaceHolder(hmem, &pph));
		ASSERT_ACL_OK(aclrtKernelArgsAppend(hmem, &dout, 8, &pout));
		ASSERT_ACL_OK(aclrtKernelArgsAppend(hmem, &bias, 8, &pbias));
		ASSERT_ACL_OK(aclrtKernelArgsGetPlaceHolderBuffer(hmem, pph, sizeof(data), &buf));
		EXPECT_EQ((void *)(mem + 3), buf);
		memcpy(buf, data, sizeof(data));
		ASSERT_ACL_OK(aclrtKernelArgsFinalize(hmem));
		ASSERT_ACL_OK(aclrtLaunchKernelWithConfig(f, 2, stream, NULL, hmem, NULL));
		read_out(out, dout, stream);
		for (i = 0; i < 4; i++)
			EXPECT_EQ(data[i] + 100, out[i]);
	}
	ASSERT_ACL_OK(aclrtDestroyStream(stream));
	ASSERT_ACL_OK(aclrtFree(dout));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* aclrtLaunchKernel and V2: the block in device memory, read there; WithArgsArray */
TEST(launch_device_args)
{
	int64_t data[4] = { 1, 2, 3, 4 }, out[4], bias = 7;
	struct ph_args blk;
	aclrtFuncHandle f, small;
	aclrtLaunchKernelCfg cfg = { NULL, 0 };
	aclrtBinHandle h;
	aclrtStream stream;
	void *dout, *ddata, *dblk, *arr[3];
	int i;

	NEED_DEVICE();
	load(&h, &f, &small);
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtMalloc(&dout, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&ddata, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dblk, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMemcpy(ddata, 32, data, 32, ACL_MEMCPY_HOST_TO_DEVICE));
	blk.desc = (uint64_t)(uintptr_t)ddata;
	blk.out = dout;
	blk.bias = bias;
	ASSERT_ACL_OK(aclrtMemcpy(dblk, sizeof(blk), &blk, sizeof(blk), ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernel(f, 0, dblk, sizeof(blk), stream));
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernel(f, 1, (char *)dblk + 4, sizeof(blk), stream));
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernel(f, 1, dblk, 64 * 1024 + 1, stream));
	ASSERT_ACL_OK(aclrtLaunchKernel(f, 1, dblk, sizeof(blk), stream));
	read_out(out, dout, stream);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(data[i] + 7, out[i]);

	/* the kernel reads the block where it is: a new block there, a new result */
	blk.bias = 70;
	ASSERT_ACL_OK(aclrtMemcpy(dblk, sizeof(blk), &blk, sizeof(blk), ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtLaunchKernelV2(f, 1, dblk, sizeof(blk), &cfg, stream));
	read_out(out, dout, stream);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(data[i] + 70, out[i]);
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelV2(f, 0, dblk, sizeof(blk), NULL, stream));

	/* WithArgsArray: a pointer to each parameter */
	bias = -1;
	arr[0] = &ddata;
	arr[1] = &dout;
	arr[2] = &bias;
	ASSERT_ACL_OK(aclrtLaunchKernelWithArgsArray(f, 1, stream, NULL, arr));
	read_out(out, dout, stream);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(data[i] - 1, out[i]);
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelWithArgsArray(f, 1, stream, NULL, NULL));
	arr[1] = NULL;
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelWithArgsArray(f, 1, stream, NULL, arr));

	ASSERT_ACL_OK(aclrtDestroyStream(stream));
	ASSERT_ACL_OK(aclrtFree(dout));
	ASSERT_ACL_OK(aclrtFree(ddata));
	ASSERT_ACL_OK(aclrtFree(dblk));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * Managed memory is the application's own pages, which the executor
 * reaches through the aperture: a kernel reads what the application
 * wrote, its writes are in the application's pages (one never touched
 * before too), and the application's next bytes are the next launch's.
 */
TEST(launch_on_managed_memory)
{
	int64_t *m, *o, bias = 5;
	aclrtFuncHandle f, small;
	aclrtBinHandle h;
	aclrtStream stream;
	void *in, *out, *arr[3];
	int i;

	NEED_DEVICE();
	load(&h, &f, &small);
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtMemAllocManaged((void **)&m, 3 * 4096,
					   ACL_RT_MEM_ATTACH_GLOBAL));
	for (i = 0; i < 4; i++)
		m[i] = 10 * i + 1;
	in = m;
	out = (char *)m + 2 * 4096;	/* never touched by the application */
	arr[0] = &in;
	arr[1] = &out;
	arr[2] = &bias;
	ASSERT_ACL_OK(aclrtLaunchKernelWithArgsArray(f, 1, stream, NULL, arr));
	ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
	o = out;
	for (i = 0; i < 4; i++)
		EXPECT_EQ(10 * i + 1 + 5, o[i]);

	/* the application writes again; the kernel writes a touched page */
	for (i = 0; i < 4; i++)
		m[i] = -100 * i;
	out = (char *)m + 4096 + 64;
	o = out;
	memset(o, 0xee, 32);
	bias = 3;
	ASSERT_ACL_OK(aclrtLaunchKernelWithArgsArray(f, 1, stream, NULL, arr));
	ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(-100 * i + 3, o[i]);
	EXPECT_EQ(1 + 5, ((int64_t *)((char *)m + 2 * 4096))[0]);

	ASSERT_ACL_OK(aclrtDestroyStream(stream));
	ASSERT_ACL_OK(aclrtFree(m));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* What the exception callbacks saw of the latest kernel exception. */
static struct {
	int calls, op_calls;
	uint32_t code, op_code;
	aclError args_ret, func_ret;
	void *args, *op_args, *op_data;
	uint32_t args_len, op_args_len;
	aclrtFuncHandle func;
} kexc;

static void kexc_cb(aclrtExceptionInfo *info)
{
	kexc.calls++;
	kexc.code = aclrtGetErrorCodeFromExceptionInfo(info);
	kexc.args = NULL;
	kexc.args_len = 0;
	kexc.args_ret = aclrtGetArgsFromExceptionInfo(info, &kexc.args, &kexc.args_len);
	kexc.func = NULL;
	kexc.func_ret = aclrtGetFuncHandleFromExceptionInfo(info, &kexc.func);
}

static void kexc_op_cb(aclrtExceptionInfo *info, void *data)
{
	kexc.op_calls++;
	kexc.op_data = data;
	kexc.op_code = aclrtGetErrorCodeFromExceptionInfo(info);
	aclrtGetArgsFromExceptionInfo(info, &kexc.op_args, &kexc.op_args_len);
}

/*
 * A kernel's exception names its launch: the device address and length
 * of its arguments and its function handle (CANN's aicoreInfo); the
 * binary's exception callback is called after the process's. A fault
 * with its arguments in device memory (aclrtLaunchKernel) answers that
 * block; a trap with host arguments a block of the stream's ring. In
 * ACL_STOP_ON_FAILURE mode a later task is dropped, and the synchronize
 * answers the trap's 507016, not the drop.
 */
TEST(kernel_exceptions)
{
	int64_t one = 1, blk[2] = { 8, 5 };
	aclrtFuncHandle f, small, trap, fault;
	aclrtBinHandle h;
	aclrtStream stream;
	aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
	void *dblk, *dout;
	int marker = 7, i;

	NEED_DEVICE();
	load(&h, &f, &small);
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "trap_op", &trap));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "fault_op", &fault));
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(kexc_cb));
	ASSERT_ACL_OK(aclrtBinarySetExceptionCallback(h, kexc_op_cb, &marker));
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtMalloc(&dblk, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dout, 4096, ACL_MEM_MALLOC_HUGE_FIRST));

	/* a fault, the arguments in device memory: the stream goes on (CONTINUE mode) */
	ASSERT_ACL_OK(aclrtMemcpy(dblk, sizeof(blk), blk, sizeof(blk), ACL_MEMCPY_HOST_TO_DEVICE));
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtLaunchKernel(fault, 1, dblk, sizeof(blk), stream));
	EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(stream));
	EXPECT_EQ(1, kexc.calls);
	EXPECT_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, kexc.code);
	EXPECT_EQ(ACL_SUCCESS, kexc.args_ret);
	EXPECT_EQ(dblk, kexc.args);
	EXPECT_EQ(sizeof(blk), kexc.args_len);
	EXPECT_EQ(ACL_SUCCESS, kexc.func_ret);
	EXPECT_EQ(fault, kexc.func);
	EXPECT_EQ(1, kexc.op_calls);
	EXPECT_EQ(&marker, kexc.op_data);
	EXPECT_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, kexc.op_code);
	EXPECT_EQ(dblk, kexc.op_args);
	ASSERT_ACL_OK(aclrtSynchronizeStream(stream));

	/* a trap with host arguments, then a later task, in STOP mode */
	ASSERT_ACL_OK(aclrtSetStreamFailureMode(stream, ACL_STOP_ON_FAILURE));
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(trap, 1, stream, NULL, &one, sizeof(one), NULL, 0));
	ASSERT_ACL_OK(aclrtMemsetAsync(dout, 4096, 1, 4096, stream));
	/* a query learns of the trap first (as the example's callback watcher does) */
	for (i = 0; i < 5000; i++) {
		ASSERT_ACL_OK(aclrtStreamQuery(stream, &st));
		if (st == ACL_STREAM_STATUS_COMPLETE)
			break;
		usleep(1000);
	}
	EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
	EXPECT_ACL(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, aclrtSynchronizeStream(stream));
	EXPECT_EQ(2, kexc.calls);
	EXPECT_EQ(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, kexc.code);
	EXPECT_EQ(ACL_SUCCESS, kexc.args_ret);
	EXPECT_NE(NULL, kexc.args);
	EXPECT_NE(dblk, kexc.args);
	EXPECT_EQ(sizeof(one), kexc.args_len);
	EXPECT_EQ(ACL_SUCCESS, kexc.func_ret);
	EXPECT_EQ(trap, kexc.func);
	EXPECT_EQ(2, kexc.op_calls);
	EXPECT_EQ(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, kexc.op_code);
	/* the stream's error stays the trap's */
	EXPECT_ACL(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, aclrtSynchronizeStream(stream));
	EXPECT_EQ(2, kexc.calls);
	npu_expect_dma_faults(false);

	ASSERT_ACL_OK(aclrtExceptionInfoCallbackUnregister(kexc_cb));
	EXPECT_ACL_OK(aclrtDestroyStreamForce(stream));
	EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtFree(dout));
	EXPECT_ACL_OK(aclrtFree(dblk));
	EXPECT_ACL_OK(aclrtResetDeviceForce(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* ---- kernel launches in captured graphs --------------------------------- */

static size_t hbm_free(void)
{
	size_t fr = 0, total = 0;

	if (aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total) != ACL_SUCCESS)
		return 0;
	return fr;
}

/* @n int64 at @dev into @host, after @stream's work */
static void read_n(int64_t *host, const void *dev, int n, aclrtStream stream)
{
	ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
	ASSERT_ACL_OK(aclrtMemcpy(host, 8 * n, dev, 8 * n, ACL_MEMCPY_DEVICE_TO_HOST));
}

static void write_n(void *dev, const int64_t *host, int n)
{
	ASSERT_ACL_OK(aclrtMemcpy(dev, 8 * n, host, 8 * n, ACL_MEMCPY_HOST_TO_DEVICE));
}

/*
 * aclrtLaunchKernelWithHostArgs captured, without and with a placeholder,
 * between copies: every run of the model runs the kernels again, after
 * the copy before them and before the copy after them, with the
 * arguments as they were at the launch call (the caller's block is
 * scribbled over and freed after it).
 */
TEST(capture_host_args_replays)
{
	int64_t in[4], out[4], want[4], data[4] = { 100, 200, 300, 400 };
	struct ph_args *blk;
	unsigned char *pblk;
	aclrtFuncHandle f, small;
	aclrtPlaceHolderInfo ph = { .addrOffset = 0, .dataOffset = sizeof(struct ph_args) };
	aclmdlRICaptureStatus cs;
	aclrtBinHandle h;
	aclrtStream stream, run;
	aclmdlRI m;
	void *dsrc, *din, *dout, *dres, *dout2;
	int r, i;

	NEED_DEVICE();
	load(&h, &f, &small);
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtCreateStream(&run));
	ASSERT_ACL_OK(aclrtMalloc(&dsrc, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&din, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dout, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dres, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dout2, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	blk = malloc(sizeof(*blk));
	pblk = malloc(sizeof(*blk) + sizeof(data));
	ASSERT_NE(NULL, blk);
	ASSERT_NE(NULL, pblk);

	ASSERT_ACL_OK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	/* din = dsrc; dout = din + 5; dres = dout */
	ASSERT_ACL_OK(aclrtMemcpyAsync(din, 32, dsrc, 32, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
	*blk = (struct ph_args){ .desc = (uint64_t)(uintptr_t)din, .out = dout, .bias = 5 };
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, blk, sizeof(*blk), NULL, 0));
	memset(blk, 0xa5, sizeof(*blk));
	free(blk);
	ASSERT_ACL_OK(aclrtMemcpyAsync(dres, 32, dout, 32, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
	/* dout2 = data + 1, data the placeholder's, stored by the model */
	*(struct ph_args *)pblk = (struct ph_args){ .out = dout2, .bias = 1 };
	memcpy(pblk + sizeof(struct ph_args), data, sizeof(data));
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(f, 2, stream, NULL, pblk, sizeof(struct ph_args) + sizeof(data),
						    &ph, 1));
	memset(pblk, 0x5a, sizeof(struct ph_args) + sizeof(data));
	free(pblk);
	ASSERT_ACL_OK(aclmdlRICaptureGetInfo(stream, &cs, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, cs);
	ASSERT_ACL_OK(aclmdlRICaptureEnd(stream, &m));

	for (r = 0; r < 3; r++) {
		for (i = 0; i < 4; i++) {
			in[i] = 1000 * r + 10 * i;
			want[i] = in[i] + 5;
		}
		write_n(dsrc, in, 4);
		ASSERT_ACL_OK(aclrtMemset(dout, 4096, 0, 4096));
		ASSERT_ACL_OK(aclrtMemset(dres, 4096, 0, 4096));
		ASSERT_ACL_OK(aclrtMemset(dout2, 4096, 0, 4096));
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run));
		read_n(out, dres, 4, run);
		for (i = 0; i < 4; i++)
			EXPECT_EQ(want[i], out[i]);
		read_n(out, dout2, 4, run);
		for (i = 0; i < 4; i++)
			EXPECT_EQ(data[i] + 1, out[i]);
	}
	/* two runs queued back to back: the second's copy before sees the first's output */
	ASSERT_ACL_OK(aclrtMemset(dres, 4096, 0, 4096));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, run));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, stream));
	ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
	read_n(out, dres, 4, run);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(want[i], out[i]);

	EXPECT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(stream));
	ASSERT_ACL_OK(aclrtDestroyStream(run));
	ASSERT_ACL_OK(aclrtFree(dsrc));
	ASSERT_ACL_OK(aclrtFree(din));
	ASSERT_ACL_OK(aclrtFree(dout));
	ASSERT_ACL_OK(aclrtFree(dres));
	ASSERT_ACL_OK(aclrtFree(dout2));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * aclrtLaunchKernelWithConfig (an argument handle with a placeholder) and
 * aclrtLaunchKernel and V2 (the block in device memory) captured: the
 * handle's block is the model's as it was at the launch (a ParaUpdate
 * after it changes nothing), a device block is read where it is at each
 * run (a new bias there is the next run's). The kernel task is a KERNEL
 * task with its function and block, which SetParams takes back as
 * GetParams gave them; disabled, it runs no more.
 */
TEST(capture_with_config_and_device_args)
{
	int64_t data[4] = { 10, 20, 30, 40 }, bias = 5, out[4];
	aclrtParamHandle pph, pout, pbias;
	aclrtFuncHandle f, small;
	aclrtArgsHandle a;
	aclrtBinHandle h;
	aclrtStream stream;
	aclmdlRITaskParams tp;
	aclmdlRITaskType type;
	aclmdlRITask tasks[4];
	aclrtStream ms;
	uint32_t n = 1;
	struct ph_args blk;
	aclrtLaunchKernelCfg cfg = { NULL, 0 };
	aclmdlRI m;
	void *dout, *dout2, *dout3, *ddata, *dblk, *buf;
	int r, i;

	NEED_DEVICE();
	load(&h, &f, &small);
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtMalloc(&dout, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dout2, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dout3, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&ddata, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dblk, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	write_n(ddata, data, 4);
	blk = (struct ph_args){ .desc = (uint64_t)(uintptr_t)ddata, .out = dout3, .bias = 11 };
	ASSERT_ACL_OK(aclrtMemcpy((char *)dblk + 64, sizeof(blk), &blk, sizeof(blk), ACL_MEMCPY_HOST_TO_DEVICE));
	blk = (struct ph_args){ .desc = (uint64_t)(uintptr_t)ddata, .out = dout2, .bias = 7 };
	ASSERT_ACL_OK(aclrtMemcpy(dblk, sizeof(blk), &blk, sizeof(blk), ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtKernelArgsInit(f, &a));
	ASSERT_ACL_OK(aclrtKernelArgsAppendPlaceHolder(a, &pph));
	ASSERT_ACL_OK(aclrtKernelArgsAppend(a, &dout, 8, &pout));
	ASSERT_ACL_OK(aclrtKernelArgsAppend(a, &bias, 8, &pbias));
	ASSERT_ACL_OK(aclrtKernelArgsGetPlaceHolderBuffer(a, pph, sizeof(data), &buf));
	memcpy(buf, data, sizeof(data));
	ASSERT_ACL_OK(aclrtKernelArgsFinalize(a));

	ASSERT_ACL_OK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtLaunchKernelWithConfig(f, 1, stream, NULL, a, NULL));
	ASSERT_ACL_OK(aclrtLaunchKernel(f, 1, dblk, sizeof(blk), stream));
	ASSERT_ACL_OK(aclrtLaunchKernelV2(f, 1, (char *)dblk + 64, sizeof(blk), &cfg, stream));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(stream, &m));
	/* changed after the launch: not the model's */
	((int64_t *)buf)[0] = 1000;
	bias = -1;
	ASSERT_ACL_OK(aclrtKernelArgsParaUpdate(a, pbias, &bias, 8));
	ASSERT_ACL_OK(aclrtKernelArgsFinalize(a));

	for (r = 0; r < 2; r++) {
		ASSERT_ACL_OK(aclrtMemset(dout, 4096, 0, 4096));
		ASSERT_ACL_OK(aclrtMemset(dout2, 4096, 0, 4096));
		/* the device block is read at each run */
		blk.bias = 7 + r;
		ASSERT_ACL_OK(aclrtMemcpy(dblk, sizeof(blk), &blk, sizeof(blk), ACL_MEMCPY_HOST_TO_DEVICE));
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, stream));
		read_n(out, dout, 4, stream);
		for (i = 0; i < 4; i++)
			EXPECT_EQ(data[i] + 5, out[i]);
		read_n(out, dout2, 4, stream);
		for (i = 0; i < 4; i++)
			EXPECT_EQ(data[i] + 7 + r, out[i]);
		read_n(out, dout3, 4, stream);
		for (i = 0; i < 4; i++)
			EXPECT_EQ(data[i] + 11, out[i]);
	}

	/* the tasks: two KERNEL tasks, the second's block the caller's device block */
	ASSERT_ACL_OK(aclmdlRIGetStreams(m, &ms, &n));
	n = 4;
	ASSERT_ACL_OK(aclmdlRIGetTasksByStream(ms, tasks, &n));
	ASSERT_EQ(3U, n);
	ASSERT_ACL_OK(aclmdlRITaskGetType(tasks[0], &type));
	EXPECT_EQ(ACL_MODEL_RI_TASK_KERNEL, type);
	ASSERT_ACL_OK(aclmdlRITaskGetParams(tasks[1], &tp));
	EXPECT_EQ(ACL_MODEL_RI_TASK_KERNEL, tp.type);
	EXPECT_EQ(f, tp.kernelTaskParams.funcHandle);
	EXPECT_EQ(dblk, tp.kernelTaskParams.args);
	EXPECT_EQ(sizeof(blk), tp.kernelTaskParams.argsSize);
	EXPECT_EQ(1U, tp.kernelTaskParams.numBlocks);
	ASSERT_ACL_OK(aclmdlRITaskGetParams(tasks[0], &tp));
	EXPECT_NE(NULL, tp.kernelTaskParams.args);
	EXPECT_EQ(8U * 3 + sizeof(data), tp.kernelTaskParams.argsSize);
	/* GetParams' answer taken back: the block in device memory where the model's copy is */
	EXPECT_ACL_OK(aclmdlRITaskSetParams(tasks[0], &tp));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	ASSERT_ACL_OK(aclrtMemset(dout, 4096, 0, 4096));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, stream));
	read_n(out, dout, 4, stream);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(data[i] + 5, out[i]);
	/* disabled: the second kernel runs no more */
	ASSERT_ACL_OK(aclmdlRITaskDisable(tasks[1]));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	ASSERT_ACL_OK(aclrtMemset(dout, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtMemset(dout2, 4096, 0, 4096));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, stream));
	read_n(out, dout, 4, stream);
	EXPECT_EQ(data[3] + 5, out[3]);
	read_n(out, dout2, 4, stream);
	EXPECT_EQ(0, out[0]);

	EXPECT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(stream));
	ASSERT_ACL_OK(aclrtFree(dout));
	ASSERT_ACL_OK(aclrtFree(dout2));
	ASSERT_ACL_OK(aclrtFree(dout3));
	ASSERT_ACL_OK(aclrtFree(ddata));
	ASSERT_ACL_OK(aclrtFree(dblk));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * The argument blocks of captured launches are in device memory the model
 * owns: taken at the capture, given back at aclmdlRIDestroy (after the
 * queued runs), and at the destroy of the model's context with the model
 * still there.
 */
TEST(capture_args_memory_owned)
{
	int64_t small_out[1], bias = 3;
	aclrtFuncHandle f, small;
	aclrtBinHandle h;
	aclrtContext ctx, def;
	aclrtStream stream;
	size_t before, during, base;
	struct {
		uint8_t c;
		uint8_t pad[7];
		void *out;
		int16_t s;
	} sblk = { .c = 2 };
	aclmdlRI m;
	void *dout;
	int i;

	NEED_DEVICE();
	load(&h, &f, &small);
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtMalloc(&dout, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	sblk.out = dout;
	before = hbm_free();
	ASSERT_NE(0U, before);
	ASSERT_ACL_OK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	/* more than one chunk of the recording's device memory: 64 KiB blocks */
	for (i = 0; i < 8; i++) {
		static int64_t big[8192];

		/* small_op's c = 1, out = dout */
		big[0] = 1;
		big[1] = (int64_t)(uintptr_t)dout;
		ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(small, 1, stream, NULL, big, sizeof(big), NULL, 0));
	}
	sblk.s = (int16_t)bias;
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(small, 1, stream, NULL, &sblk, sizeof(sblk), NULL, 0));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(stream, &m));
	during = hbm_free();
	EXPECT_GT(before, during);
	EXPECT_LE(before - during, 2 * MiB);
	ASSERT_ACL_OK(aclrtMemset(dout, 4096, 0, 4096));
	for (i = 0; i < 4; i++)
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, stream));
	/* the destroy waits for the queued runs, then gives the memory back */
	EXPECT_ACL_OK(aclmdlRIDestroy(m));
	EXPECT_EQ(before, hbm_free());
	read_n(small_out, dout, 1, stream);
	EXPECT_EQ(2 + 3, small_out[0]);
	ASSERT_ACL_OK(aclrtDestroyStream(stream));
	ASSERT_ACL_OK(aclrtFree(dout));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));

	/* a context destroyed with its model: the model's memory goes with it */
	ASSERT_ACL_OK(aclrtGetCurrentContext(&def));
	base = hbm_free();
	ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
	load(&h, &f, &small);
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtMalloc(&dout, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	sblk.out = dout;
	ASSERT_ACL_OK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(small, 1, stream, NULL, &sblk, sizeof(sblk), NULL, 0));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(stream, &m));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, stream));
	ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
	/* a run queued, the model not destroyed */
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, stream));
	EXPECT_ACL_OK(aclrtDestroyContext(ctx));
	ASSERT_ACL_OK(aclrtSetCurrentContext(def));
	ASSERT_ACL_OK(aclrtMemcpy(small_out, 8, dout, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(2 + 3, small_out[0]);
	ASSERT_ACL_OK(aclrtFree(dout));
	EXPECT_EQ(base, hbm_free());
	EXPECT_ACL(HANDLE, aclmdlRIExecuteAsync(m, NULL));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * A kernel that faults in a run of a model: the run's synchronize answers
 * 507015 as for a launch, each run again, and the exception names the
 * kernel and its block (the model's copy, in device memory); a built
 * model's aclmdlRIExecute answers it too.
 */
TEST(capture_fault_in_replay)
{
	int64_t blk[2] = { 8, 5 }, out[4];
	aclrtFuncHandle f, small, fault;
	struct ph_args good;
	aclrtBinHandle h;
	aclrtStream stream, bound;
	aclmdlRI m, b;
	void *dout, *ddata;
	int r;

	NEED_DEVICE();
	load(&h, &f, &small);
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "fault_op", &fault));
	memset(&kexc, 0, sizeof(kexc));
	ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(kexc_cb));
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtMalloc(&dout, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&ddata, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMemset(ddata, 4096, 0, 4096));
	good = (struct ph_args){ .desc = (uint64_t)(uintptr_t)ddata, .out = dout, .bias = 9 };

	ASSERT_ACL_OK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &good, sizeof(good), NULL, 0));
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(fault, 1, stream, NULL, blk, sizeof(blk), NULL, 0));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(stream, &m));
	npu_expect_dma_faults(true);
	for (r = 0; r < 2; r++) {
		ASSERT_ACL_OK(aclrtMemset(dout, 4096, 0, 4096));
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, stream));
		EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(stream));
		EXPECT_EQ(r + 1, kexc.calls);
		EXPECT_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, kexc.code);
		EXPECT_EQ(fault, kexc.func);
		EXPECT_NE(NULL, kexc.args);
		EXPECT_EQ(sizeof(blk), kexc.args_len);
		/* the kernel before it ran */
		read_n(out, dout, 4, stream);
		EXPECT_EQ(9, out[0]);
	}
	ASSERT_ACL_OK(aclrtSynchronizeStream(stream));

	/* a built model: aclmdlRIExecute answers the fault */
	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&bound, 0, ACL_STREAM_PERSISTENT));
	ASSERT_ACL_OK(aclmdlRIBuildBegin(&b, 0));
	ASSERT_ACL_OK(aclmdlRIBindStream(b, bound, 0));
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(fault, 2, bound, NULL, blk, sizeof(blk), NULL, 0));
	ASSERT_ACL_OK(aclmdlRIEndTask(b, bound));
	ASSERT_ACL_OK(aclmdlRIBuildEnd(b, NULL));
	EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, aclmdlRIExecute(b, 10000));
	EXPECT_EQ(3, kexc.calls);
	EXPECT_EQ(fault, kexc.func);
	EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, aclmdlRIExecute(b, 10000));
	npu_expect_dma_faults(false);
	EXPECT_ACL_OK(aclmdlRIUnbindStream(b, bound));
	EXPECT_ACL_OK(aclmdlRIDestroy(b));
	EXPECT_ACL_OK(aclmdlRIDestroy(m));

	ASSERT_ACL_OK(aclrtExceptionInfoCallbackUnregister(kexc_cb));
	EXPECT_ACL_OK(aclrtDestroyStream(bound));
	EXPECT_ACL_OK(aclrtDestroyStream(stream));
	EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtFree(dout));
	EXPECT_ACL_OK(aclrtFree(ddata));
	EXPECT_ACL_OK(aclrtResetDeviceForce(0));
	EXPECT_ACL_OK(aclFinalize());
}

struct mode_arg {
	aclrtContext ctx;
	aclrtFuncHandle f;
	aclrtStream capturing, other;
	void *blk;
	aclError on_capturing, on_other, sync_other;
};

/* another thread's launches: on the capturing stream (recorded) and on a stream of its own (run now) */
static void *mode_thread(void *p)
{
	struct mode_arg *a = p;

	aclrtSetCurrentContext(a->ctx);
	a->on_capturing = aclrtLaunchKernelWithHostArgs(a->f, 1, a->capturing, NULL, a->blk, sizeof(struct ph_args),
							NULL, 0);
	a->on_other = aclrtLaunchKernelWithHostArgs(a->f, 1, a->other, NULL, (struct ph_args *)a->blk + 1,
						    sizeof(struct ph_args), NULL, 0);
	a->sync_other = aclrtSynchronizeStream(a->other);
	return NULL;
}

/*
 * The capture modes restrict synchronous calls, not launches: in each
 * mode a launch on the capturing stream is recorded, from the capturing
 * thread and from another, and a launch on a stream not captured runs at
 * once.
 */
TEST(capture_modes)
{
	static const aclmdlRICaptureMode modes[] = {
		ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
		ACL_MODEL_RI_CAPTURE_MODE_RELAXED,
	};
	int64_t data[4] = { 1, 2, 3, 4 }, out[4];
	struct ph_args blk[2];
	struct mode_arg a;
	aclrtFuncHandle f, small;
	aclrtBinHandle h;
	aclrtStream stream, other;
	aclrtContext ctx;
	aclmdlRI m;
	pthread_t t;
	void *ddata, *d1, *d2, *d3;
	unsigned int k;

	NEED_DEVICE();
	load(&h, &f, &small);
	ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtCreateStream(&other));
	ASSERT_ACL_OK(aclrtMalloc(&ddata, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&d1, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&d2, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&d3, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	write_n(ddata, data, 4);
	for (k = 0; k < 3; k++) {
		int64_t mine = 100 * (k + 1);

		ASSERT_ACL_OK(aclrtMemset(d1, 4096, 0, 4096));
		ASSERT_ACL_OK(aclrtMemset(d2, 4096, 0, 4096));
		ASSERT_ACL_OK(aclrtMemset(d3, 4096, 0, 4096));
		blk[0] = (struct ph_args){ .desc = (uint64_t)(uintptr_t)ddata, .out = d1, .bias = mine };
		blk[1] = (struct ph_args){ .desc = (uint64_t)(uintptr_t)ddata, .out = d2, .bias = 7 };
		a = (struct mode_arg){ .ctx = ctx, .f = f, .capturing = stream, .other = other, .blk = blk };
		ASSERT_ACL_OK(aclmdlRICaptureBegin(stream, modes[k]));
		ASSERT_EQ(0, pthread_create(&t, NULL, mode_thread, &a));
		ASSERT_EQ(0, pthread_join(t, NULL));
		EXPECT_ACL_OK(a.on_capturing);
		EXPECT_ACL_OK(a.on_other);
		EXPECT_ACL_OK(a.sync_other);
		/* the capturing thread's own launch */
		blk[0].out = d3;
		ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &blk[0], sizeof(blk[0]), NULL, 0));
		ASSERT_ACL_OK(aclmdlRICaptureEnd(stream, &m));
		/* the other stream's kernel ran; the captured ones did not */
		read_n(out, d2, 4, other);
		EXPECT_EQ(data[0] + 7, out[0]);
		ASSERT_ACL_OK(aclrtMemcpy(out, 8, d1, 8, ACL_MEMCPY_DEVICE_TO_HOST));
		EXPECT_EQ(0, out[0]);
		ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, other));
		read_n(out, d1, 4, other);
		EXPECT_EQ(data[1] + mine, out[1]);
		read_n(out, d3, 4, other);
		EXPECT_EQ(data[2] + mine, out[2]);
		EXPECT_ACL_OK(aclmdlRIDestroy(m));
	}
	ASSERT_ACL_OK(aclrtDestroyStream(stream));
	ASSERT_ACL_OK(aclrtDestroyStream(other));
	ASSERT_ACL_OK(aclrtFree(ddata));
	ASSERT_ACL_OK(aclrtFree(d1));
	ASSERT_ACL_OK(aclrtFree(d2));
	ASSERT_ACL_OK(aclrtFree(d3));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * What a launch refuses it refuses on a capturing stream too, with the
 * same codes, and the capture goes on: its model holds the good launch
 * only.
 */
TEST(capture_bad_input)
{
	int64_t data[4] = { 3, 4, 5, 6 }, out[4], local[8] = { 0 };
	struct ph_args blk;
	aclrtPlaceHolderInfo bad_ph = { .addrOffset = sizeof(blk), .dataOffset = 0 };
	aclrtFuncHandle f, small;
	aclrtParamHandle p;
	aclrtArgsHandle a;
	aclmdlRICaptureStatus cs;
	aclrtBinHandle h;
	aclrtStream stream, ms;
	aclrtTaskGrp grp;
	aclmdlRI m;
	uint32_t n = 1;
	void *ddata, *dout, *dblk;

	NEED_DEVICE();
	load(&h, &f, &small);
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtMalloc(&ddata, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dout, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dblk, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMemset(dout, 4096, 0, 4096));
	write_n(ddata, data, 4);
	blk = (struct ph_args){ .desc = (uint64_t)(uintptr_t)ddata, .out = dout, .bias = 2 };
	ASSERT_ACL_OK(aclrtKernelArgsInit(f, &a));
	ASSERT_ACL_OK(aclrtKernelArgsAppend(a, &blk, 8, &p));

	ASSERT_ACL_OK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernelWithHostArgs(NULL, 1, stream, NULL, &blk, sizeof(blk), NULL, 0));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, NULL, sizeof(blk), NULL, 0));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &blk, sizeof(blk), NULL, 1));
	EXPECT_ACL(HANDLE, aclrtLaunchKernelWithHostArgs(local, 1, stream, NULL, &blk, sizeof(blk), NULL, 0));
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelWithHostArgs(f, 0, stream, NULL, &blk, sizeof(blk), NULL, 0));
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelWithHostArgs(f, 65536, stream, NULL, &blk, sizeof(blk), NULL, 0));
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &blk, 64 * 1024 + 1, NULL, 0));
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &blk, sizeof(blk), &bad_ph, 1));
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernel(f, 1, (char *)dblk + 4, sizeof(blk), stream));
	EXPECT_ACL(HANDLE, aclrtLaunchKernelV2(h, 1, dblk, sizeof(blk), NULL, stream));
	/* an argument handle not finalized */
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelWithConfig(f, 1, stream, NULL, a, NULL));
	EXPECT_ACL(HANDLE, aclrtLaunchKernelWithConfig(f, 1, stream, NULL, local, NULL));
	/* in a task group the same (nothing recorded, the group going on); a good launch is its task */
	ASSERT_ACL_OK(aclmdlRICaptureTaskGrpBegin(stream));
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelWithHostArgs(f, 0, stream, NULL, &blk, sizeof(blk), NULL, 0));
	EXPECT_ACL(HANDLE, aclrtLaunchKernelWithHostArgs(local, 1, stream, NULL, &blk, sizeof(blk), NULL, 0));
	EXPECT_ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &blk, sizeof(blk), NULL, 0));
	ASSERT_ACL_OK(aclmdlRICaptureTaskGrpEnd(stream, &grp));
	EXPECT_NE(NULL, grp);
	ASSERT_ACL_OK(aclmdlRICaptureGetInfo(stream, &cs, NULL));
	EXPECT_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, cs);
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &blk, sizeof(blk), NULL, 0));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(stream, &m));
	ASSERT_ACL_OK(aclmdlRIGetStreams(m, &ms, &n));
	ASSERT_ACL_OK(aclmdlRIGetTasksByStream(ms, NULL, &n));
	EXPECT_EQ(2U, n);
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, stream));
	read_n(out, dout, 4, stream);
	EXPECT_EQ(data[3] + 2, out[3]);
	EXPECT_ACL_OK(aclmdlRIDestroy(m));

	ASSERT_ACL_OK(aclrtDestroyStream(stream));
	ASSERT_ACL_OK(aclrtFree(ddata));
	ASSERT_ACL_OK(aclrtFree(dout));
	ASSERT_ACL_OK(aclrtFree(dblk));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *open_gate(void *gate)
{
	uint64_t one = 1;

	usleep(200 * 1000);
	aclrtSetDevice(0);
	aclrtMemcpy(gate, 8, &one, 8, ACL_MEMCPY_HOST_TO_DEVICE);
	return NULL;
}

/*
 * A graph with kernels owns their blocks: its destroy waits for its queued
 * runs, which use them (a run held back by a value wait ends first, its
 * kernel done); from a host function of its own run the destroy would
 * wait for itself: ACL_ERROR_RT_MODEL_RUNNING, the model staying and the
 * run going on (the vendor polls its running graph at its destroy and
 * answers the same).
 */
TEST(capture_destroy_waits_for_runs)
{
	struct destroy_own d = { 0 };
	struct ph_args blk;
	int64_t data[4] = { 5, 6, 7, 8 }, out[4];
	aclrtFuncHandle f, small;
	aclrtBinHandle h;
	aclrtStream stream, run;
	pthread_t t;
	double t0;
	void *ddata, *dout, *dout2, *gate;

	NEED_DEVICE();
	load(&h, &f, &small);
	ASSERT_ACL_OK(aclrtGetCurrentContext(&d.ctx));
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtCreateStream(&run));
	ASSERT_ACL_OK(aclrtMalloc(&ddata, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dout, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dout2, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&gate, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMemset(gate, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtMemset(dout, 4096, 0, 4096));
	write_n(ddata, data, 4);

	blk = (struct ph_args){ .desc = (uint64_t)(uintptr_t)ddata, .out = dout, .bias = 1 };
	ASSERT_ACL_OK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &blk, sizeof(blk), NULL, 0));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(stream, &d.m));
	ASSERT_ACL_OK(aclrtValueWait(gate, 1, ACL_STREAM_WAIT_VALUE_EQ, run));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(d.m, run));
	ASSERT_EQ(0, pthread_create(&t, NULL, open_gate, gate));
	t0 = now_s();
	ASSERT_ACL_OK(aclmdlRIDestroy(d.m));
	EXPECT_GE(now_s() - t0, 0.2);
	ASSERT_EQ(0, pthread_join(t, NULL));
	read_n(out, dout, 4, run);
	EXPECT_EQ(data[2] + 1, out[2]);

	/* a host function of the run destroys its own graph: refused, the run goes on */
	ASSERT_ACL_OK(aclrtMemset(dout, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtMemset(dout2, 4096, 0, 4096));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &blk, sizeof(blk), NULL, 0));
	ASSERT_ACL_OK(aclrtLaunchHostFunc(stream, hf_destroy_own, &d));
	blk.out = dout2;
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &blk, sizeof(blk), NULL, 0));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(stream, &d.m));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(d.m, run));
	read_n(out, dout2, 4, run);
	EXPECT_EQ(1, d.calls);
	EXPECT_EQ(ACL_ERROR_RT_MODEL_RUNNING, d.ret);
	EXPECT_EQ(data[3] + 1, out[3]);
	read_n(out, dout, 4, run);
	EXPECT_EQ(data[0] + 1, out[0]);
	/* it stayed: it goes now */
	ASSERT_ACL_OK(aclmdlRIDestroy(d.m));

	EXPECT_ACL_OK(aclrtDestroyStream(stream));
	EXPECT_ACL_OK(aclrtDestroyStream(run));
	EXPECT_ACL_OK(aclrtFree(ddata));
	EXPECT_ACL_OK(aclrtFree(dout));
	EXPECT_ACL_OK(aclrtFree(dout2));
	EXPECT_ACL_OK(aclrtFree(gate));
	EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* ---- aclmdlRITaskSetParams of kernel tasks ------------------------------ */

/* blocks_op(out, v): out[b] = v + numBlocks for each block b */
struct blocks_args {
	void *out;
	int64_t v;
};

/* A model on @stream: ph_op (data at @ddata, into @dout, bias 1), blocks_op over 2 blocks (into @dout2, 100). */
static aclmdlRI kernel_model(aclrtStream stream, aclrtFuncHandle f, aclrtFuncHandle blocks, void *ddata, void *dout,
			     void *dout2, aclmdlRITask *t)
{
	struct ph_args a = { .desc = (uint64_t)(uintptr_t)ddata, .out = dout, .bias = 1 };
	struct blocks_args b = { dout2, 100 };
	aclrtStream ms = NULL;
	aclmdlRI m = NULL;
	uint32_t n = 1;

	if (aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_RELAXED) ||
	    aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &a, sizeof(a), NULL, 0) ||
	    aclrtLaunchKernelWithHostArgs(blocks, 2, stream, NULL, &b, sizeof(b), NULL, 0) ||
	    aclmdlRICaptureEnd(stream, &m) || aclmdlRIGetStreams(m, &ms, &n))
		return NULL;
	n = 2;
	if (aclmdlRIGetTasksByStream(ms, t, &n) || n != 2)
		return NULL;
	return m;
}

/* Run @m on @stream, its outputs @dout and @dout2 zeroed first. */
static void run_zeroed(aclmdlRI m, aclrtStream stream, void *dout, void *dout2)
{
	ASSERT_ACL_OK(aclrtMemset(dout, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtMemset(dout2, 4096, 0, 4096));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, stream));
	ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
}

/* blocks_op's output at @out: @blocks blocks of @v, the next word 0 */
static void expect_blocks(const void *out, uint32_t blocks, int64_t v, aclrtStream stream)
{
	int64_t o[9];

	read_n(o, out, blocks + 1, stream);
	for (uint32_t i = 0; i < blocks; i++)
		EXPECT_EQ(v + blocks, o[i]);
	EXPECT_EQ(0, o[blocks]);
}

/*
 * aclmdlRITaskSetParams on kernel tasks, as the vendor's UpdateKernelParams:
 * each bad input's code (on a model of its own: a failed change leaves it
 * FAULT, 107040 from then on); new arguments, blocks, a function of
 * another kernel, a block in device memory (read where it is at each run),
 * op information kept and answered by GetParams; the runs take them at
 * aclmdlRIUpdate, not before; a disabled task runs again with new ones.
 */
TEST(kernel_task_set_params)
{
	int64_t data[4] = { 10, 20, 30, 40 }, out[4], local[8] = { 0 };
	static uint8_t big[64 * 1024 + 8];
	aclrtFuncHandle f, small, blocks;
	aclrtLaunchKernelCfg nocfg = { NULL, 0 };
	aclmdlRITaskParams p, q;
	aclmdlRITask t[2];
	aclrtBinHandle h;
	aclrtStream stream;
	struct ph_args a;
	struct blocks_args b;
	struct {
		uint8_t c;
		uint8_t pad[7];
		void *out;
		int16_t s;
	} sa = { .c = 3, .s = 4 };
	const char info[] = "shape";
	aclmdlRI m;
	void *ddata, *dout, *dout2, *dblk;
	int c;

	NEED_DEVICE();
	load(&h, &f, &small);
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "blocks_op", &blocks));
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtMalloc(&ddata, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dout, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dout2, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&dblk, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	write_n(ddata, data, 4);
	a = (struct ph_args){ .desc = (uint64_t)(uintptr_t)ddata, .out = dout, .bias = 7 };

	/* bad input: each on a fresh model */
	for (c = 0; c < 12; c++) {
		aclError want = RT_PARAM;

		m = kernel_model(stream, f, blocks, ddata, dout, dout2, t);
		ASSERT_NONNULL(m);
		memset(&p, 0, sizeof(p));
		p.type = ACL_MODEL_RI_TASK_KERNEL;
		p.kernelTaskParams = (aclmdlRIKernelTaskParams){
			.funcHandle = f, .args = &a, .isHostArgs = 1, .argsSize = sizeof(a), .numBlocks = 1,
		};
		q = p;
		switch (c) {
		case 0:
			p.taskGrp = (aclrtTaskGrp)local;
			break;
		case 1:
			p.kernelTaskParams.funcHandle = NULL;
			break;
		case 2:
			p.kernelTaskParams.funcHandle = local;
			want = HANDLE;
			break;
		case 3:
			p.kernelTaskParams.funcHandle = h;
			want = HANDLE;
			break;
		case 4:
			p.kernelTaskParams.args = NULL;
			break;
		case 5:
			p.kernelTaskParams.argsSize = 0;
			break;
		case 6:
			p.kernelTaskParams.numBlocks = 0;
			break;
		case 7:
			p.kernelTaskParams.numBlocks = 65536;
			break;
		case 8:
			p.kernelTaskParams.args = big;
			p.kernelTaskParams.argsSize = 64 * 1024 + 1;
			break;
		case 9:
			p.kernelTaskParams.cfg = &nocfg;
			break;
		case 10:
			p.kernelTaskParams.isHostArgs = 0;
			p.kernelTaskParams.args = (char *)dblk + 4;
			break;
		default:
			p.type = ACL_MODEL_RI_TASK_VALUE_WRITE;
			break;
		}
		EXPECT_ACL(want, aclmdlRITaskSetParams(t[0], &p));
		/* FAULT: no change and no update any more, the model as it was */
		EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRITaskSetParams(t[0], &q));
		EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRIUpdate(m));
		run_zeroed(m, stream, dout, dout2);
		read_n(out, dout, 4, stream);
		EXPECT_EQ(data[1] + 1, out[1]);
		ASSERT_ACL_OK(aclmdlRIDestroy(m));
	}
	/* NULL params, and a task of a destroyed model */
	EXPECT_ACL(RT_PARAM, aclmdlRITaskSetParams(t[0], NULL));
	EXPECT_ACL(HANDLE, aclmdlRITaskSetParams(t[0], &q));

	m = kernel_model(stream, f, blocks, ddata, dout, dout2, t);
	ASSERT_NONNULL(m);
	run_zeroed(m, stream, dout, dout2);
	read_n(out, dout, 4, stream);
	EXPECT_EQ(data[3] + 1, out[3]);
	expect_blocks(dout2, 2, 100, stream);

	/* new arguments (reserved fields are not looked at, as the vendor's), op information */
	a = (struct ph_args){ .desc = (uint64_t)(uintptr_t)ddata, .out = (char *)dout + 512, .bias = 7 };
	memset(&p, 0, sizeof(p));
	p.type = ACL_MODEL_RI_TASK_KERNEL;
	p.opInfoPtr = (void *)info;
	p.opInfoSize = sizeof(info);
	p.rsv0[1] = 5;
	p.kernelTaskParams = (aclmdlRIKernelTaskParams){
		.funcHandle = f, .args = &a, .isHostArgs = 1, .argsSize = sizeof(a), .numBlocks = 1, .rsv = { 9 },
	};
	EXPECT_ACL_OK(aclmdlRITaskSetParams(t[0], &p));
	memset(&a, 0x5a, sizeof(a));
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[0], &q));
	EXPECT_EQ(ACL_MODEL_RI_TASK_KERNEL, q.type);
	EXPECT_TRUE(q.kernelTaskParams.funcHandle == f);
	EXPECT_EQ(0U, q.kernelTaskParams.isHostArgs);
	EXPECT_EQ(sizeof(a), q.kernelTaskParams.argsSize);
	EXPECT_TRUE(q.kernelTaskParams.args != NULL && q.kernelTaskParams.args != (void *)&a);
	EXPECT_EQ(sizeof(info), q.opInfoSize);
	EXPECT_TRUE(q.opInfoPtr && q.opInfoPtr != (void *)info && !memcmp(q.opInfoPtr, info, sizeof(info)));
	EXPECT_NULL(q.taskGrp);
	/* not before the update */
	run_zeroed(m, stream, dout, dout2);
	read_n(out, dout, 4, stream);
	EXPECT_EQ(data[0] + 1, out[0]);
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	run_zeroed(m, stream, dout, dout2);
	read_n(out, dout, 4, stream);
	EXPECT_EQ(0, out[0]);
	read_n(out, (char *)dout + 512, 4, stream);
	for (c = 0; c < 4; c++)
		EXPECT_EQ(data[c] + 7, out[c]);
	expect_blocks(dout2, 2, 100, stream);

	/* more blocks; another kernel's function (its own block) */
	b = (struct blocks_args){ dout2, 200 };
	p.opInfoPtr = NULL;
	p.opInfoSize = 0;
	p.kernelTaskParams = (aclmdlRIKernelTaskParams){
		.funcHandle = blocks, .args = &b, .isHostArgs = 1, .argsSize = sizeof(b), .numBlocks = 5,
	};
	EXPECT_ACL_OK(aclmdlRITaskSetParams(t[1], &p));
	sa.out = dout;
	p.kernelTaskParams = (aclmdlRIKernelTaskParams){
		.funcHandle = small, .args = &sa, .isHostArgs = 1, .argsSize = sizeof(sa), .numBlocks = 1,
	};
	EXPECT_ACL_OK(aclmdlRITaskSetParams(t[0], &p));
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[0], &q));
	EXPECT_TRUE(q.kernelTaskParams.funcHandle == small);
	EXPECT_NULL(q.opInfoPtr);
	EXPECT_EQ(0U, q.opInfoSize);
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[1], &q));
	EXPECT_EQ(5U, q.kernelTaskParams.numBlocks);
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	run_zeroed(m, stream, dout, dout2);
	read_n(out, dout, 2, stream);
	EXPECT_EQ(3 + 4, out[0]);
	EXPECT_EQ(0, out[1]);
	expect_blocks(dout2, 5, 200, stream);

	/* a block in device memory, read where it is at each run; a disabled task runs again with new parameters */
	b = (struct blocks_args){ dout2, 300 };
	ASSERT_ACL_OK(aclrtMemcpy(dblk, sizeof(b), &b, sizeof(b), ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclmdlRITaskDisable(t[1]));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	run_zeroed(m, stream, dout, dout2);
	expect_blocks(dout2, 0, 0, stream);
	p.kernelTaskParams = (aclmdlRIKernelTaskParams){
		.funcHandle = blocks, .args = dblk, .isHostArgs = 0, .argsSize = sizeof(b), .numBlocks = 3,
	};
	EXPECT_ACL_OK(aclmdlRITaskSetParams(t[1], &p));
	ASSERT_ACL_OK(aclmdlRITaskGetParams(t[1], &q));
	EXPECT_TRUE(q.kernelTaskParams.args == dblk);
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	run_zeroed(m, stream, dout, dout2);
	expect_blocks(dout2, 3, 300, stream);
	b.v = 400;
	ASSERT_ACL_OK(aclrtMemcpy(dblk, sizeof(b), &b, sizeof(b), ACL_MEMCPY_HOST_TO_DEVICE));
	run_zeroed(m, stream, dout, dout2);
	expect_blocks(dout2, 3, 400, stream);
	/* and host arguments again */
	b.v = 500;
	p.kernelTaskParams.args = &b;
	p.kernelTaskParams.isHostArgs = 1;
	EXPECT_ACL_OK(aclmdlRITaskSetParams(t[1], &p));
	ASSERT_ACL_OK(aclmdlRIUpdate(m));
	run_zeroed(m, stream, dout, dout2);
	expect_blocks(dout2, 3, 500, stream);

	/* a run queued and not done: 107040, the model staying READY */
	local[0] = 1;
	ASSERT_ACL_OK(aclrtMemset(dblk, 8, 0, 8));
	ASSERT_ACL_OK(aclrtValueWait(dblk, 1, ACL_STREAM_WAIT_VALUE_EQ, stream));
	ASSERT_ACL_OK(aclmdlRIExecuteAsync(m, stream));
	EXPECT_ACL(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRITaskSetParams(t[1], &p));
	ASSERT_ACL_OK(aclrtMemcpy(dblk, 8, local, 8, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
	EXPECT_ACL_OK(aclmdlRITaskSetParams(t[1], &p));

	EXPECT_ACL_OK(aclmdlRIDestroy(m));
	ASSERT_ACL_OK(aclrtDestroyStream(stream));
	ASSERT_ACL_OK(aclrtFree(ddata));
	ASSERT_ACL_OK(aclrtFree(dout));
	ASSERT_ACL_OK(aclrtFree(dout2));
	ASSERT_ACL_OK(aclrtFree(dblk));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

TEST_HARNESS_MAIN
