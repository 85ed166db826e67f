// SPDX-License-Identifier: MIT
/*
 * libacl as torch_npu drives it: its runtime calls in its order, as
 * /work/notes/issue22-research.md section C describes them - init
 * (NpuSysCtrl::Initialize), streams with config, the caching allocator
 * with events, expandable segments (reserved with flags 1, mapped without
 * aclrtMemSetAccess, grown and shrunk), a segment shared with a second
 * process, the host allocator and peer access. Each test is one process
 * that starts as torch_npu does. Skips without /dev/npu0 (the peer test
 * without /dev/npu1).
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib_child.h"
#include "lib_util.h"

/* torch_npu's SoC table (NpuVariables.cpp SetSocVersion): anything else stops its init */
static const char *const torch_socs[] = {
	"Ascend910PremiumA", "Ascend910ProA", "Ascend910A", "Ascend910ProB", "Ascend910B",
	"Ascend310P1", "Ascend310P2", "Ascend310P3", "Ascend310P4", "Ascend310P5", "Ascend310P7",
	"Ascend910B1", "Ascend910B2", "Ascend910B2C", "Ascend910B3", "Ascend910B4", "Ascend910B4-1",
	"Ascend310B1", "Ascend310B2", "Ascend310B3", "Ascend310B4",
	"Ascend910_9391", "Ascend910_9392", "Ascend910_9381", "Ascend910_9382", "Ascend910_9372",
	"Ascend910_9362", "Ascend910_9363",
};

static bool torch_knows(const char *soc)
{
	size_t i;

	if (!strncmp(soc, "Ascend950", 9))
		return true;
	for (i = 0; i < sizeof(torch_socs) / sizeof(torch_socs[0]); i++)
		if (!strcmp(soc, torch_socs[i]))
			return true;
	return false;
}

/* A parameter of the loaded npu.ko, newline dropped; -1 without it. */
static int npu_param(const char *name, char *buf, size_t n)
{
	char path[128];
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/sys/module/npu/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, (int)n, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}

/* npu.ko's mem_size for device 0 ("16G", "512M,1G"); 0 if not given. */
static size_t mem_bytes(const char *v)
{
	char *end;
	unsigned long long n = strtoull(v, &end, 10);

	if (end == v)
		return 0;
	switch (*end) {
	case 'K':
		return n << 10;
	case 'M':
		return n << 20;
	case 'G':
		return n << 30;
	case 'T':
		return n << 40;
	case ',':
	case '\0':
		return n;
	default:
		return 0;
	}
}

/*
 * NpuSysCtrl::Initialize (npu_sys_ctrl.cpp:203-312) up to the device:
 * aclInit, aclrtGetDevice before any aclrtSetDevice (a "special state"
 * answer that must not become the last error, or every later failed op
 * would be reported as 107002), aclrtSetDevice, aclrtGetCurrentContext.
 */
static void torch_init_device(int32_t dev)
{
	aclrtContext ctx = NULL;
	int32_t cur = -1;

	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&cur));
	EXPECT_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
	ASSERT_ACL_OK(aclrtSetDevice(dev));
	ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
	ASSERT_NONNULL(ctx);
	ASSERT_ACL_OK(aclrtGetDevice(&cur));
	ASSERT_EQ(dev, cur);
}

#define NEED_NPU(n) do {							\
	if (!have_npu(n))							\
		SKIP(return, "no /dev/npu%d (npu.ko not loaded, or fewer NPUs)", n); \
} while (0)

TEST(init_sequence)
{
	char param[64];
	aclCANNPackageVersion cann;
	const char *soc;
	int64_t det = -1, cube = 0, vec = 0, l2 = 0;
	uint64_t actual = 0;
	size_t free_b = 0, total = 0;

	NEED_NPU(0);
	torch_init_device(0);
	/* the SoC table */
	soc = aclrtGetSocName();
	ASSERT_NONNULL(soc);
	TH_LOG("SoC %s", soc);
	if (npu_param("soc_name", param, sizeof(param)) == 0 && torch_knows(param)) {
		EXPECT_STREQ(param, soc);
		EXPECT_TRUE(torch_knows(soc));
	} else {
		TH_LOG("npu.ko's soc_name is no torch_npu SoC: its table not checked");
	}
	/* the saturation mode: torch_npu ignores the answer, the symbol must be there */
	EXPECT_ACL_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));
	/* SetDeterministicFromLevel: 0 never set */
	ASSERT_ACL_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &det));
	EXPECT_EQ(0, det);
	ASSERT_ACL_OK(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1));
	ASSERT_ACL_OK(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1));
	ASSERT_ACL_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &det));
	EXPECT_EQ(1, det);
	/* AclrtSetOpExecuteTimeOut(547): V2 in microseconds */
	ASSERT_ACL_OK(aclrtSetOpExecuteTimeOutV2(547ULL * 1000 * 1000, &actual));
	EXPECT_EQ(547ULL * 1000 * 1000, actual);
	/* GetCANNVersion("CANN") picks its code paths: it must answer */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	ASSERT_ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, &cann));
#pragma GCC diagnostic pop
	TH_LOG("CANN version %s", cann.version);
	/* torch.npu.get_device_properties */
	ASSERT_ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &cube));
	ASSERT_ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_VECTOR_CORE_NUM, &vec));
	ASSERT_ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, &l2));
	EXPECT_EQ(192LL << 20, l2);
	if (npu_param("cube_cores", param, sizeof(param)) == 0)
		EXPECT_EQ(atoll(param), cube);
	if (npu_param("vector_cores", param, sizeof(param)) == 0)
		EXPECT_EQ(atoll(param), vec);
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total));
	EXPECT_LE(free_b, total);
	TH_LOG("%lld cube, %lld vector cores, %zu MiB", (long long)cube, (long long)vec, total >> 20);
	/* what the module took, or its profile (Documentation/architecture.rst) */
	if (npu_param("mem_size", param, sizeof(param)) == 0 && mem_bytes(param))
		EXPECT_EQ(mem_bytes(param), total);
	else if (!strcmp(soc, "Ascend910B1"))
		EXPECT_EQ(64ULL << 30, total);
	if (!strcmp(soc, "Ascend910B1")) {
		EXPECT_EQ(24, cube);
		EXPECT_EQ(48, vec);
	}
	/* no failure so far became the last error */
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
}

/*
 * A stream as torch_npu makes each one (AclInterface.cpp:197-233): fast
 * launch and sync, the overflow switch, stop on failure.
 */
static void torch_stream(aclrtStream *s, uint32_t flags)
{
	uint32_t sw = 7;

	ASSERT_ACL_OK(aclrtCreateStreamWithConfig(s, 0, flags));
	ASSERT_NONNULL(*s);
	ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(*s, 1));
	ASSERT_ACL_OK(aclrtGetStreamOverflowSwitch(*s, &sw));
	EXPECT_EQ(1U, sw);
	ASSERT_ACL_OK(aclrtSetStreamFailureMode(*s, ACL_STOP_ON_FAILURE));
}

/*
 * The caching allocator: blocks from aclrtMalloc used on two streams, an
 * event recorded after each use (aclrtCreateEventExWithFlag(SYNC)), the
 * block reused once its event completes; shutdown with
 * aclrtDestroyStreamForce, aclrtResetDevice, aclFinalize.
 */
TEST(streams_allocator_events)
{
	const size_t n = 4 * MiB;
	aclrtStream s1, s2, sync_s;
	aclrtEvent ev1, ev2;
	aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
	char *host = malloc(n), *back = malloc(n);
	void *blk, *blk2;

	NEED_NPU(0);
	ASSERT_NONNULL(host);
	ASSERT_NONNULL(back);
	torch_init_device(0);
	torch_stream(&s1, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC);
	torch_stream(&s2, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC);
	torch_stream(&sync_s, ACL_STREAM_FAST_SYNC);

	ASSERT_ACL_OK(aclrtMalloc(&blk, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&blk2, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ev1, ACL_EVENT_SYNC));
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ev2, ACL_EVENT_SYNC));
	/* never recorded: complete */
	ASSERT_ACL_OK(aclrtQueryEventStatus(ev1, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);

	/* the block written on s1, copied on s2 after s1's event */
	fill_pattern(host, n, 3);
	ASSERT_ACL_OK(aclrtMemcpyAsync(blk, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE, s1));
	ASSERT_ACL_OK(aclrtRecordEvent(ev1, s1));
	ASSERT_ACL_OK(aclrtStreamWaitEvent(s2, ev1));
	ASSERT_ACL_OK(aclrtMemcpyAsync(blk2, n, blk, n, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
	/* recordStream: the block is free for reuse once s2's event completes */
	ASSERT_ACL_OK(aclrtRecordEvent(ev2, s2));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(ev2));
	ASSERT_ACL_OK(aclrtQueryEventStatus(ev2, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
	ASSERT_ACL_OK(aclrtQueryEventStatus(ev1, &st));
	EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
	/* reused: overwritten on s1 while blk2 keeps the first contents */
	ASSERT_ACL_OK(aclrtMemsetAsync(blk, n, 0x5a, n, s1));
	ASSERT_ACL_OK(aclrtRecordEvent(ev1, s1));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(ev1));
	ASSERT_ACL_OK(aclrtMemcpyAsync(back, n, blk2, n, ACL_MEMCPY_DEVICE_TO_HOST, sync_s));
	ASSERT_ACL_OK(aclrtSynchronizeStreamWithTimeout(sync_s, 10000));
	EXPECT_EQ(-1, check_pattern(back, n, 3));
	ASSERT_ACL_OK(aclrtMemcpy(back, n, blk, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_byte(back, n, 0x5a));

	/* emptyCache and shutdown */
	ASSERT_ACL_OK(aclrtSynchronizeDevice());
	ASSERT_ACL_OK(aclrtFree(blk));
	ASSERT_ACL_OK(aclrtFree(blk2));
	ASSERT_ACL_OK(aclrtDestroyEvent(ev1));
	ASSERT_ACL_OK(aclrtDestroyEvent(ev2));
	ASSERT_ACL_OK(aclrtDestroyStreamForce(s1));
	ASSERT_ACL_OK(aclrtDestroyStreamForce(s2));
	ASSERT_ACL_OK(aclrtDestroyStreamForce(sync_s));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
	free(host);
	free(back);
}

/*
 * An expandable segment (NPUCachingAllocator.cpp:355-604): a reservation
 * of max_handles segments, ceil(1.125 * total / segment), made with flags
 * 1; a physical handle per slot mapped with aclrtMapMem and no
 * aclrtMemSetAccess.
 */
#define SEG		(20 * MiB)	/* kLargeBuffer's segment */
#define SEG_SLOTS	8		/* the slots these tests touch */

struct segment {
	char *base;
	size_t max_handles;
	aclrtDrvMemHandle h[SEG_SLOTS];
};

static aclrtPhysicalMemProp torch_prop(int32_t dev)
{
	aclrtPhysicalMemProp p = prop_for(ACL_HBM_MEM_HUGE);

	p.location.id = (uint32_t)dev;
	return p;
}

static void seg_create(struct segment *s)
{
	size_t free_b, total;

	memset(s, 0, sizeof(*s));
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total));
	s->max_handles = (size_t)((1.125 * (double)total + SEG - 1) / SEG);
	ASSERT_LE((size_t)SEG_SLOTS, s->max_handles);
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&s->base, SEG * s->max_handles, 0, NULL, 1));
	ASSERT_NONNULL(s->base);
}

/* Map slots [first, first + n): a handle from the pool @reuse, else a new one. */
static void seg_map(struct segment *s, int first, int n,
		    aclrtDrvMemHandle reuse)
{
	aclrtPhysicalMemProp p;
	int32_t dev = -1;
	int i;

	ASSERT_ACL_OK(aclrtGetDevice(&dev));
	p = torch_prop(dev);
	for (i = first; i < first + n; i++) {
		if (reuse) {
			s->h[i] = reuse;
			reuse = NULL;
		} else {
			ASSERT_ACL_OK(aclrtMallocPhysical(&s->h[i], SEG, &p, 0));
		}
		ASSERT_ACL_OK(aclrtMapMem(s->base + (size_t)i * SEG, SEG, 0, s->h[i], 0));
	}
}

/* unmapHandles: synchronize, unmap each slot, free its handle unless kept */
static void seg_unmap(struct segment *s, int first, int n,
		      aclrtDrvMemHandle *keep)
{
	int i;

	ASSERT_ACL_OK(aclrtSynchronizeDevice());
	for (i = first; i < first + n; i++) {
		ASSERT_ACL_OK(aclrtUnmapMem(s->base + (size_t)i * SEG));
		if (keep && i == first)
			*keep = s->h[i];
		else
			ASSERT_ACL_OK(aclrtFreePhysical(s->h[i]));
		s->h[i] = NULL;
	}
}

/* The segment's [off, off + len) equals the model's. */
static long long seg_diff(struct segment *s, const char *model,
			  size_t off, size_t len)
{
	char *back = malloc(len);
	long long at = -1;
	size_t i;

	if (!back)
		return -2;
	memset(back, 0xee, len);
	EXPECT_ACL_OK(aclrtMemcpy(back, len, s->base + off, len, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < len; i++)
		if (back[i] != model[off + i]) {
			at = (long long)(off + i);
			break;
		}
	free(back);
	return at;
}

TEST(expandable_segments)
{
	static const struct {
		size_t off, len;
	} reads[] = {
		{ 0, 1 }, { 1, 4095 }, { SEG - 3, 7 }, { SEG - 4096, 2 * SEG + 4096 },
		{ 2 * SEG + 12345, 999 }, { 3 * SEG - 1, 1 }, { 4097, 3 * SEG - 4097 },
	};
	const size_t size = SEG_SLOTS * SEG;
	char *model = malloc(size), *chunk = malloc(size);
	aclrtDrvMemHandle pooled = NULL;
	aclrtPtrAttributes attr;
	struct segment s;
	aclrtStream st;
	size_t i;
	void *probe = NULL;

	NEED_NPU(0);
	ASSERT_NONNULL(model);
	ASSERT_NONNULL(chunk);
	torch_init_device(0);
	/* the allocator config's probe (NPUAllocatorConfig.cpp:313-323) */
	ASSERT_ACL_OK(aclrtReserveMemAddress(&probe, 512, 0, NULL, 1));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(probe));
	torch_stream(&st, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC);

	seg_create(&s);
	TH_LOG("reserved %zu segments of 20 MiB", s.max_handles);
	/* grow to 3 segments, fill them across the boundaries in stream order */
	seg_map(&s, 0, 3, NULL);
	ASSERT_ACL_OK(aclrtPointerGetAttributes(s.base + SEG, &attr));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, attr.location.type);
	fill_pattern(model, 3 * SEG, 11);
	ASSERT_ACL_OK(aclrtMemcpyAsync(s.base, 3 * SEG, model, 3 * SEG, ACL_MEMCPY_HOST_TO_DEVICE, st));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	EXPECT_EQ(-1, seg_diff(&s, model, 0, 3 * SEG));

	/* grow by two more; a block that straddles old and new */
	seg_map(&s, 3, 2, NULL);
	fill_pattern(chunk, 2 * SEG, 12);
	memcpy(model + 2 * SEG + SEG / 2, chunk, 2 * SEG);
	ASSERT_ACL_OK(aclrtMemcpy(s.base + 2 * SEG + SEG / 2, 2 * SEG, chunk, 2 * SEG,
				  ACL_MEMCPY_HOST_TO_DEVICE));
	/* the new tail, then a device-side move into it */
	memset(model + 4 * SEG + SEG / 2, 0x3c, SEG / 2);
	ASSERT_ACL_OK(aclrtMemsetAsync(s.base + 4 * SEG + SEG / 2, SEG / 2, 0x3c, SEG / 2, st));
	memmove(model + 4 * SEG, model + 100, SEG / 4);
	ASSERT_ACL_OK(aclrtMemcpyAsync(s.base + 4 * SEG, SEG / 4, s.base + 100, SEG / 4,
				       ACL_MEMCPY_DEVICE_TO_DEVICE, st));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	EXPECT_EQ(-1, seg_diff(&s, model, 0, 5 * SEG));

	/* map(): exactly 207001 is the allocator's out-of-memory, which it survives */
	{
		aclrtPhysicalMemProp p = torch_prop(0);
		aclrtDrvMemHandle big = NULL;
		size_t free_b, total;

		ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total));
		EXPECT_EQ(ACL_ERROR_RT_MEMORY_ALLOCATION,
			  aclrtMallocPhysical(&big, (total / SEG + 1) * SEG, &p, 0));
		EXPECT_NULL(big);
		EXPECT_EQ(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	}

	/* shrink: the last two slots go, one handle kept in the pool */
	seg_unmap(&s, 3, 2, &pooled);
	ASSERT_NONNULL(pooled);
	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		if (seg_diff(&s, model, reads[i].off, reads[i].len) != -1)
			TH_LOG("read %zu at %zu", reads[i].len, reads[i].off);
		EXPECT_EQ(-1, seg_diff(&s, model, reads[i].off, reads[i].len));
	}

	/* grow again at another offset: the pooled handle plus a new one */
	seg_map(&s, 5, 2, pooled);
	fill_pattern(chunk, 2 * SEG, 13);
	memcpy(model + 5 * SEG, chunk, 2 * SEG);
	ASSERT_ACL_OK(aclrtMemcpy(s.base + 5 * SEG, 2 * SEG, chunk, 2 * SEG, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_EQ(-1, seg_diff(&s, model, 5 * SEG, 2 * SEG));
	EXPECT_EQ(-1, seg_diff(&s, model, 0, 3 * SEG));

	/* destroy: unmap everything, release the reservation */
	seg_unmap(&s, 5, 2, NULL);
	seg_unmap(&s, 0, 3, NULL);
	ASSERT_ACL_OK(aclrtReleaseMemAddress(s.base));
	ASSERT_ACL_OK(aclrtDestroyStreamForce(st));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
	free(model);
	free(chunk);
}

/* ---- a segment shared with a second process (NPUCachingAllocator.cpp:461-496) ---- */

#define IPC_SLOTS	3

/*
 * The importer (fromShared) on device 0: torch_npu's init, a fresh
 * reservation, each shareable handle imported onto its device and mapped
 * without aclrtMemSetAccess; it reads the exporter's data and writes its
 * own. The exporter may sit on another device (*@arg): the handles are
 * that device's memory, mapped into device 0's reservation; here that
 * device must be set too (lib/README.md: npu's names do not say their
 * device).
 */
static void importer(int rd, int wr, void *arg)
{
	int32_t exp_dev = *(int32_t *)arg, cur = -1;
	char *base = NULL, *buf = malloc(SEG);
	aclrtDrvMemHandle h[IPC_SLOTS];
	uint64_t sh;
	int i;

	CK(buf);
	CK_ACL(ACL_SUCCESS, aclInit(NULL));
	CK_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&cur));
	CK(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL) == ACL_SUCCESS);
	if (exp_dev)
		CK_ACL(ACL_SUCCESS, aclrtSetDevice(exp_dev));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(0));
	put_u64(wr, (uint64_t)getpid());
	CK_ACL(ACL_SUCCESS, aclrtReserveMemAddress((void **)&base, (size_t)IPC_SLOTS * SEG, 0, NULL, 1));
	for (i = 0; i < IPC_SLOTS; i++) {
		sh = get_u64(rd);
		CK_ACL(ACL_SUCCESS, aclrtMemImportFromShareableHandle(sh, 0, &h[i]));
		CK_ACL(ACL_SUCCESS, aclrtMapMem(base + (size_t)i * SEG, SEG, 0, h[i], 0));
	}
	for (i = 0; i < IPC_SLOTS; i++) {
		CK_ACL(ACL_SUCCESS, aclrtMemcpy(buf, SEG, base + (size_t)i * SEG, SEG,
						ACL_MEMCPY_DEVICE_TO_HOST));
		CK(check_pattern(buf, SEG, 40 + i) == -1);
	}
	/* the same memory: the exporter sees this */
	fill_pattern(buf, SEG, 50);
	CK_ACL(ACL_SUCCESS, aclrtMemcpy(base + SEG / 2, SEG, buf, SEG, ACL_MEMCPY_HOST_TO_DEVICE));
	CK_ACL(ACL_SUCCESS, aclrtSynchronizeDevice());
	put_u64(wr, 1);
	CK(get_u64(rd) == 2);
	/* release: synchronize, unmap, free, as the segment's destructor does */
	CK_ACL(ACL_SUCCESS, aclrtSynchronizeDevice());
	for (i = 0; i < IPC_SLOTS; i++) {
		CK_ACL(ACL_SUCCESS, aclrtUnmapMem(base + (size_t)i * SEG));
		CK_ACL(ACL_SUCCESS, aclrtFreePhysical(h[i]));
	}
	CK_ACL(ACL_SUCCESS, aclrtReleaseMemAddress(base));
	CK(aclrtGetLastError(ACL_RT_THREAD_LEVEL) == ACL_SUCCESS);
	CK_ACL(ACL_SUCCESS, aclrtResetDevice(0));
	if (exp_dev)
		CK_ACL(ACL_SUCCESS, aclrtResetDevice(exp_dev));
	CK_ACL(ACL_SUCCESS, aclFinalize());
	free(buf);
}

/* A segment of device @dev shared with an importer on device 0. */
static void segment_ipc_from(int32_t dev)
{
	char *model = malloc(IPC_SLOTS * SEG);
	struct child c;
	struct segment s;
	uint64_t sh[IPC_SLOTS], pid, ack = 0;
	int32_t pids[1];
	int i;

	ASSERT_NONNULL(model);
	/* the importer starts libacl afresh, before this process opens anything */
	ASSERT_EQ(0, spawn(&c, importer, &dev));
	torch_init_device(dev);
	seg_create(&s);
	seg_map(&s, 0, IPC_SLOTS, NULL);
	for (i = 0; i < IPC_SLOTS; i++)
		fill_pattern(model + (size_t)i * SEG, SEG, 40 + i);
	ASSERT_ACL_OK(aclrtMemcpy(s.base, IPC_SLOTS * SEG, model, IPC_SLOTS * SEG, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_EQ((ssize_t)sizeof(pid), read(c.rd, &pid, sizeof(pid)));
	/*
	 * share(): torch_npu exports every handle with pid validation off; one
	 * handle here goes the validated way, its list naming the importer.
	 */
	for (i = 0; i < IPC_SLOTS - 1; i++)
		ASSERT_ACL_OK(aclrtMemExportToShareableHandle(s.h[i], ACL_MEM_HANDLE_TYPE_NONE,
							      ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
							      &sh[i]));
	ASSERT_ACL_OK(aclrtMemExportToShareableHandle(s.h[i], ACL_MEM_HANDLE_TYPE_NONE,
						      ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &sh[i]));
	pids[0] = (int32_t)pid;
	ASSERT_ACL_OK(aclrtMemSetPidToShareableHandle(sh[i], pids, 1));
	for (i = 0; i < IPC_SLOTS; i++)
		put_u64(c.wr, sh[i]);
	ASSERT_EQ((ssize_t)sizeof(ack), read(c.rd, &ack, sizeof(ack)));
	ASSERT_EQ(1U, ack);
	/* the importer's write, across the boundary of slots 0 and 1 */
	fill_pattern(model + SEG / 2, SEG, 50);
	EXPECT_EQ(-1, seg_diff(&s, model, 0, IPC_SLOTS * SEG));
	put_u64(c.wr, 2);
	EXPECT_EQ(0, reap(&c));
	seg_unmap(&s, 0, IPC_SLOTS, NULL);
	ASSERT_ACL_OK(aclrtReleaseMemAddress(s.base));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	ASSERT_ACL_OK(aclrtResetDevice(dev));
	ASSERT_ACL_OK(aclFinalize());
	free(model);
}

TEST(segment_ipc)
{
	NEED_NPU(0);
	segment_ipc_from(0);
}

/* torch_npu's importer on another device than the exporter (issue 22 B.18) */
TEST(segment_ipc_across_devices)
{
	NEED_NPU(1);
	segment_ipc_from(1);
}

/*
 * The host allocator (CachingHostAllocator.cpp:248-345): pinned memory
 * with the host address as device address (VA_FLAG 1; only 207000 falls
 * back to aclrtMallocHost), registered MAPPED under pinned_mem_register,
 * used by non-blocking copies after aclrtPointerGetAttributes says HOST.
 */
TEST(host_allocator)
{
	const size_t n = 2 * MiB + 4096;
	aclrtMallocAttribute a = { .attr = ACL_RT_MEM_ATTR_VA_FLAG, .value = { .vaFlag = 1 } };
	aclrtMallocConfig cfg = { .attrs = &a, .numAttrs = 1 };
	aclrtPtrAttributes attr;
	aclrtStream st;
	aclrtEvent ev;
	void *p = NULL, *q = NULL, *dev = NULL;

	NEED_NPU(0);
	torch_init_device(0);
	torch_stream(&st, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC);
	ASSERT_ACL_OK(aclrtMallocHostWithCfg(&p, n, &cfg));
	ASSERT_NONNULL(p);
	/* pinned_mem_register */
	ASSERT_ACL_OK(aclrtHostRegisterV2(p, n, ACL_HOST_REG_MAPPED));
	ASSERT_ACL_OK(aclrtMallocHost(&q, n));
	ASSERT_ACL_OK(aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtPointerGetAttributes(p, &attr));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_HOST, attr.location.type);
	ASSERT_ACL_OK(aclrtPointerGetAttributes(q, &attr));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_HOST, attr.location.type);
	/* non-blocking copies out of the pinned block, an event for its reuse */
	ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
	fill_pattern(p, n, 61);
	ASSERT_ACL_OK(aclrtMemcpyAsync(dev, n, p, n, ACL_MEMCPY_HOST_TO_DEVICE, st));
	ASSERT_ACL_OK(aclrtMemcpyAsync(q, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST, st));
	ASSERT_ACL_OK(aclrtRecordEvent(ev, st));
	ASSERT_ACL_OK(aclrtSynchronizeEvent(ev));
	EXPECT_EQ(-1, check_pattern(q, n, 61));
	ASSERT_ACL_OK(aclrtDestroyEvent(ev));
	/* free: the blocks go back to the system */
	ASSERT_ACL_OK(aclrtHostUnregister(p));
	ASSERT_ACL_OK(aclrtFreeHost(p));
	ASSERT_ACL_OK(aclrtFreeHost(q));
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtDestroyStreamForce(st));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclFinalize());
}

/*
 * Peer access (NPUPeerToPeerAccess.cpp:39-116): both directions asked,
 * each enabled with its own device current; then a copy between the two
 * devices' memory.
 */
TEST(peer_access)
{
	const size_t n = 3 * MiB;
	char *host = malloc(n), *back = malloc(n);
	int32_t r01 = 0, r10 = 0;
	void *d0, *d1;
	aclrtStream st;

	NEED_NPU(0);
	NEED_NPU(1);
	ASSERT_NONNULL(host);
	ASSERT_NONNULL(back);
	torch_init_device(0);
	ASSERT_ACL_OK(aclrtDeviceCanAccessPeer(&r01, 0, 1));
	ASSERT_ACL_OK(aclrtDeviceCanAccessPeer(&r10, 1, 0));
	ASSERT_EQ(1, r01);
	ASSERT_EQ(1, r10);
	/* NPUGuard(src): enable dst; NPUGuard(dst): enable src */
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(0, 0));
	ASSERT_ACL_OK(aclrtMalloc(&d1, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMalloc(&d0, n, ACL_MEM_MALLOC_HUGE_FIRST));
	torch_stream(&st, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC);
	fill_pattern(host, n, 71);
	ASSERT_ACL_OK(aclrtMemcpy(d0, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE));
	/* device 0 pushes into device 1's memory, in stream order */
	ASSERT_ACL_OK(aclrtMemcpyAsync(d1, n, d0, n, ACL_MEMCPY_DEVICE_TO_DEVICE, st));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	ASSERT_ACL_OK(aclrtSetDevice(1));
	memset(back, 0, n);
	ASSERT_ACL_OK(aclrtMemcpy(back, n, d1, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(back, n, 71));
	/* and device 1 pulls a part back into device 0's */
	ASSERT_ACL_OK(aclrtMemset(d1, n, 0x77, 4096));
	ASSERT_ACL_OK(aclrtMemcpy((char *)d0 + 8192, 4096, d1, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
	ASSERT_ACL_OK(aclrtFree(d1));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	memset(host + 8192, 0x77, 4096);
	ASSERT_ACL_OK(aclrtMemcpy(back, n, d0, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(host, back, n));
	ASSERT_ACL_OK(aclrtFree(d0));
	ASSERT_ACL_OK(aclrtDestroyStreamForce(st));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtResetDevice(1));
	ASSERT_ACL_OK(aclFinalize());
	free(host);
	free(back);
}

TEST_HARNESS_MAIN
