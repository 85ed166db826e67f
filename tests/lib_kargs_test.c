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
 * read and written by a kernel as the application's own pages. Skips the
 * device parts without /dev/npu0.
 */
#include <pthread.h>
#include <stdint.h>
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

TEST_HARNESS_MAIN
