// SPDX-License-Identifier: MIT
/*
 * libacl on a device: devices and contexts, device memory, copies and
 * memset, host memory, pointer attributes.  Skips without /dev/npu0.
 */
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <uapi/npu.h>

#include "lib_util.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static void *map_anon(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Devices */

TEST(set_get_reset_refcount)
{
	int32_t id = -1;
	void *p;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetDevice(&id));
	EXPECT_EQ(0, id);
	/* a second SetDevice takes a second reference */
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	/* CANN: a reset clears the calling thread's selection, references left or not */
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&id));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	/* the context is gone, and with it the current device */
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&id));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtFree(p));
	/* CANN: a device the process holds no reference on */
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(0));
	/* a new context works, and the old pointer is unknown to it */
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree(p));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtResetDeviceForce(0));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&id));
	ASSERT_ACL_OK(aclFinalize());
}

TEST(finalize_releases_everything)
{
	aclrtStream s;
	int32_t id;
	void *p;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclFinalize());
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtGetDevice(&id));
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&id));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStream(s));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree(p));
}

TEST(device_fd_is_cloexec)
{
	char link[64], target[64];
	int fd, found = 0;

	NEED_DEVICE();
	for (fd = 0; fd < 1024; fd++) {
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strncmp(target, "/dev/npu", 8))
			continue;
		found++;
		EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	}
	EXPECT_EQ(1, found);
}

static void *thread_no_device(void *arg)
{
	int32_t id;

	(void)arg;
	return (void *)(intptr_t)aclrtGetDevice(&id);
}

TEST(new_thread_has_no_current_device)
{
	pthread_t t;
	void *ret;

	NEED_DEVICE();
	ASSERT_EQ(0, pthread_create(&t, NULL, thread_no_device, NULL));
	ASSERT_EQ(0, pthread_join(t, &ret));
	EXPECT_EQ(ACL_ERROR_RT_CONTEXT_NULL, (aclError)(intptr_t)ret);
}

struct attr_probe {
	const void *p[3];
	aclrtPtrAttributes a[3];
	aclError r[3];
};

/* A thread with no current context describes pointers (CANN needs none). */
static void *thread_attributes(void *arg)
{
	struct attr_probe *t = arg;

	for (int i = 0; i < 3; i++)
		t->r[i] = aclrtPointerGetAttributes(t->p[i], &t->a[i]);
	return NULL;
}

/*
 * aclrtMallocHost and registered memory are HOST with location id 0
 * whatever device is current, or with none; device memory names its
 * device either way.
 */
TEST(pointer_attributes_without_context)
{
	static char reg[4096] __attribute__((aligned(4096)));
	struct attr_probe t;
	aclrtPtrAttributes a;
	pthread_t th;
	void *h, *d, *dp;

	NEED_DEVICE();
	if (!have_npu(1))
		SKIP(return, "needs two NPUs");
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtMallocHost(&h, 4096));
	ASSERT_ACL_OK(aclrtHostRegister(reg, sizeof(reg), ACL_HOST_REGISTER_MAPPED, &dp));
	ASSERT_ACL_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtPointerGetAttributes(h, &a));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_HOST, a.location.type);
	EXPECT_EQ(0U, a.location.id);
	/* another device current: still HOST, id 0 */
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtPointerGetAttributes(h, &a));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_HOST, a.location.type);
	EXPECT_EQ(0U, a.location.id);
	ASSERT_ACL_OK(aclrtPointerGetAttributes(reg + 100, &a));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_HOST, a.location.type);
	EXPECT_EQ(0U, a.location.id);
	ASSERT_ACL_OK(aclrtPointerGetAttributes(d, &a));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, a.location.type);
	EXPECT_EQ(1U, a.location.id);
	/* no context at all */
	memset(&t, 0, sizeof(t));
	t.p[0] = h;
	t.p[1] = reg;
	t.p[2] = d;
	ASSERT_EQ(0, pthread_create(&th, NULL, thread_attributes, &t));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_ACL(ACL_SUCCESS, t.r[0]);
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_HOST, t.a[0].location.type);
	EXPECT_EQ(0U, t.a[0].location.id);
	EXPECT_ACL(ACL_SUCCESS, t.r[1]);
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_HOST, t.a[1].location.type);
	EXPECT_ACL(ACL_SUCCESS, t.r[2]);
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, t.a[2].location.type);
	EXPECT_EQ(1U, t.a[2].location.id);
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclrtHostUnregister(reg));
	ASSERT_ACL_OK(aclrtFreeHost(h));
}

TEST(fork_child_starts_without_devices)
{
	int32_t id;
	void *p;
	pid_t pid;
	int status;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		char buf[64] = "child";
		void *q;
		int bad = 0;

		bad |= aclrtGetDevice(&id) != ACL_ERROR_RT_CONTEXT_NULL;
		/* its own context: the parent's allocation is unknown here */
		bad |= aclrtSetDevice(0) != ACL_SUCCESS;
		bad |= aclrtFree(p) != ACL_ERROR_INVALID_PARAM;
		bad |= aclrtMalloc(&q, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS;
		bad |= aclrtMemcpy(q, 4096, buf, sizeof(buf), ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS;
		memset(buf, 0, sizeof(buf));
		bad |= aclrtMemcpy(buf, sizeof(buf), q, sizeof(buf), ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS;
		bad |= strcmp(buf, "child") != 0;
		bad |= aclrtFree(q) != ACL_SUCCESS;
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the parent's context is untouched */
	ASSERT_ACL_OK(aclrtGetDevice(&id));
	EXPECT_ACL_OK(aclrtFree(p));
}

/* Device memory */

FIXTURE(pol) { int unused; };
FIXTURE_VARIANT(pol) {
	aclrtMemMallocPolicy policy;
	size_t size;
	uint32_t page;		/* expected page size */
};
FIXTURE_VARIANT_ADD(pol, huge_first_small) { ACL_MEM_MALLOC_HUGE_FIRST, 100, 4096 };
FIXTURE_VARIANT_ADD(pol, huge_first_large) { ACL_MEM_MALLOC_HUGE_FIRST, 3 * MiB, 2 * MiB };
FIXTURE_VARIANT_ADD(pol, huge_only) { ACL_MEM_MALLOC_HUGE_ONLY, 4096, 2 * MiB };
FIXTURE_VARIANT_ADD(pol, normal_only) { ACL_MEM_MALLOC_NORMAL_ONLY, 5 * MiB, 4096 };
FIXTURE_VARIANT_ADD(pol, huge_first_p2p) { ACL_MEM_MALLOC_HUGE_FIRST_P2P, 2 * MiB, 2 * MiB };
FIXTURE_VARIANT_ADD(pol, huge_only_p2p) { ACL_MEM_MALLOC_HUGE_ONLY_P2P, 1, 2 * MiB };
FIXTURE_VARIANT_ADD(pol, normal_only_p2p) { ACL_MEM_MALLOC_NORMAL_ONLY_P2P, 12345, 4096 };
/*
 * Only a whole value equal to a policy selects a placement: with a modifier
 * bit, or no policy at all, aclrtMalloc takes the default (huge pages
 * first: 4 KiB pages for a small size, 2 MiB from 2 MiB on), no error.
 */
FIXTURE_VARIANT_ADD(pol, low_bw) {
	(aclrtMemMallocPolicy)(ACL_MEM_MALLOC_HUGE_ONLY | ACL_MEM_TYPE_LOW_BAND_WIDTH), 4096, 4096 };
FIXTURE_VARIANT_ADD(pol, high_bw_ro) {
	(aclrtMemMallocPolicy)(ACL_MEM_MALLOC_NORMAL_ONLY | ACL_MEM_TYPE_HIGH_BAND_WIDTH |
			       ACL_MEM_ACCESS_USER_SPACE_READONLY), 3 * MiB, 2 * MiB };
FIXTURE_VARIANT_ADD(pol, not_a_policy) { (aclrtMemMallocPolicy)8, 4096, 4096 };
FIXTURE_VARIANT_ADD(pol, unknown_bit) { (aclrtMemMallocPolicy)0x2000, 2 * MiB, 2 * MiB };
FIXTURE_VARIANT_ADD(pol, top_bit) { (aclrtMemMallocPolicy)0x80000000u, 100, 4096 };
FIXTURE_VARIANT_ADD(pol, both_bandwidths) {
	(aclrtMemMallocPolicy)(ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH), 4096, 4096 };
FIXTURE_VARIANT_ADD(pol, huge1g_with_modifier) {
	(aclrtMemMallocPolicy)(ACL_MEM_MALLOC_HUGE1G_ONLY | ACL_MEM_TYPE_HIGH_BAND_WIDTH), 4096, 4096 };
FIXTURE_SETUP(pol) {}
FIXTURE_TEARDOWN(pol) {}

TEST_F(pol, malloc_copy_free)
{
	aclrtPtrAttributes attr;
	size_t n = variant->size;
	char *host = malloc(n), *back = malloc(n);
	void *dev = NULL, *mapped;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&dev, n, variant->policy));
	ASSERT_NONNULL(dev);
	EXPECT_EQ(0U, (uintptr_t)dev % 64);
	EXPECT_EQ(0U, (uintptr_t)dev % variant->page);
	ASSERT_ACL_OK(aclrtPointerGetAttributes(dev, &attr));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, attr.location.type);
	EXPECT_EQ(0U, attr.location.id);
	EXPECT_EQ(variant->page, attr.pageSize);
	/* the device range is also reserved in the process: no host object can live there */
	mapped = mmap(dev, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	EXPECT_EQ(MAP_FAILED, mapped);
	if (mapped != MAP_FAILED)
		munmap(mapped, 4096);

	fill_pattern(host, n, 7);
	ASSERT_ACL_OK(aclrtMemcpy(dev, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE));
	memset(back, 0, n);
	ASSERT_ACL_OK(aclrtMemcpy(back, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(back, n, 7));
	ASSERT_ACL_OK(aclrtFree(dev));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree(dev));
	free(host);
	free(back);
}

TEST(malloc_huge1g)
{
	size_t free_b, total;
	void *p;
	aclrtPtrAttributes attr;
	aclError r;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total));
	if (free_b < GiB)
		SKIP(return, "device has %zu bytes free, less than 1 GiB", free_b);
	r = aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE1G_ONLY);
	if (r == ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
		SKIP(return, "device has no 1 GiB pages");
	ASSERT_EQ(ACL_SUCCESS, r);
	EXPECT_EQ(0U, (uintptr_t)p % GiB);
	ASSERT_ACL_OK(aclrtPointerGetAttributes(p, &attr));
	EXPECT_EQ((uint32_t)GiB, attr.pageSize);
	ASSERT_ACL_OK(aclrtFree(p));
}

TEST(malloc_with_cfg)
{
	aclrtMallocAttribute attrs[3];
	aclrtMallocConfig cfg = { attrs, 0 };
	void *p;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocWithCfg(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, NULL));
	ASSERT_ACL_OK(aclrtFree(p));
	ASSERT_ACL_OK(aclrtMallocWithCfg(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
	ASSERT_ACL_OK(aclrtFree(p));
	memset(attrs, 0, sizeof(attrs));
	attrs[0].attr = ACL_RT_MEM_ATTR_MODULE_ID;
	attrs[0].value.moduleId = 33;
	attrs[1].attr = ACL_RT_MEM_ATTR_DEVICE_ID;
	attrs[1].value.deviceId = 0;
	cfg.numAttrs = 2;
	ASSERT_ACL_OK(aclrtMallocWithCfg(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
	ASSERT_ACL_OK(aclrtFree(p));
	attrs[1].value.deviceId = 1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocWithCfg(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
	attrs[1].value.deviceId = 0;
	attrs[2].attr = ACL_RT_MEM_ATTR_VA_FLAG;
	attrs[2].value.vaFlag = 1;
	cfg.numAttrs = 3;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocWithCfg(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
	attrs[2].attr = ACL_RT_MEM_ATTR_RSV;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocWithCfg(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
	cfg.attrs = NULL;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocWithCfg(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
}

TEST(free_bad_pointers)
{
	char host[64];
	void *p, *q, *h;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&p, 8192, ACL_MEM_MALLOC_NORMAL_ONLY));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree((char *)p + 4096));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree((char *)p + 1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree(host));
	ASSERT_ACL_OK(aclrtReserveMemAddress(&q, 2 * MiB, 0, NULL, 0));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree(q));
	ASSERT_ACL_OK(aclrtMallocHost(&h, 4096));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree(h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(p));
	ASSERT_ACL_OK(aclrtFreeHost(h));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(q));
	ASSERT_ACL_OK(aclrtFree(p));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree(p));
}

TEST(mem_info)
{
	size_t f0, t0, f1, t1;
	void *p;
	int a;

	NEED_DEVICE();
	for (a = ACL_DDR_MEM; a <= ACL_MEM_P2P_HUGE1G; a++) {
		ASSERT_ACL_OK(aclrtGetMemInfo((aclrtMemAttr)a, &f0, &t0));
		EXPECT_LT(0U, t0);
		EXPECT_LE(f0, t0);
	}
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f0, &t0));
	ASSERT_ACL_OK(aclrtMalloc(&p, 16 * MiB, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f1, &t1));
	EXPECT_EQ(t0, t1);
	EXPECT_LE(f1 + 16 * MiB, f0);
	ASSERT_ACL_OK(aclrtFree(p));
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f1, &t1));
	EXPECT_EQ(f0, f1);
}

TEST(malloc_out_of_memory)
{
	size_t f, t;
	void *p;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t));
	EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION,
		   aclrtMalloc(&p, t + 2 * MiB, ACL_MEM_MALLOC_HUGE_ONLY));
	EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION,
		   aclrtMalloc(&p, t + 2 * MiB, ACL_MEM_MALLOC_HUGE_FIRST));
}

/* Copies */

FIXTURE(cp) { int unused; };
FIXTURE_VARIANT(cp) { size_t size; };
FIXTURE_VARIANT_ADD(cp, one_byte) { 1 };
FIXTURE_VARIANT_ADD(cp, odd) { 4097 };
FIXTURE_VARIANT_ADD(cp, one_half) { 4 * MiB };
FIXTURE_VARIANT_ADD(cp, three_chunks) { 9 * MiB + 123 };
FIXTURE_SETUP(cp) {}
FIXTURE_TEARDOWN(cp) {}

/* Pageable host memory goes through the staging pipeline. */
TEST_F(cp, pageable)
{
	size_t n = variant->size;
	char *src = malloc(n + 1), *dst = malloc(n + 1);
	void *d1, *d2;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&d1, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&d2, n, ACL_MEM_MALLOC_HUGE_FIRST));
	fill_pattern(src + 1, n, 3);	/* unaligned host address */
	ASSERT_ACL_OK(aclrtMemcpy(d1, n, src + 1, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(d2, n, d1, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
	memset(dst, 0, n + 1);
	ASSERT_ACL_OK(aclrtMemcpy(dst + 1, n, d2, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(dst + 1, n, 3));
	EXPECT_EQ(0, dst[0]);

	/* DEFAULT infers each direction; the other spellings of H2D and D2D */
	fill_pattern(src, n, 9);
	ASSERT_ACL_OK(aclrtMemcpy(d1, n, src, n, ACL_MEMCPY_DEFAULT));
	ASSERT_ACL_OK(aclrtMemcpy(d2, n, d1, n, ACL_MEMCPY_DEFAULT));
	memset(dst, 0, n);
	ASSERT_ACL_OK(aclrtMemcpy(dst, n, d2, n, ACL_MEMCPY_DEFAULT));
	EXPECT_EQ(-1, check_pattern(dst, n, 9));
	fill_pattern(src, n, 11);
	ASSERT_ACL_OK(aclrtMemcpy(d1, n, src, n, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(d2, n, d1, n, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE));
	memset(dst, 0, n);
	ASSERT_ACL_OK(aclrtMemcpy(dst, n, d2, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(dst, n, 11));

	/* async with pageable memory returns after the copy */
	fill_pattern(src, n, 13);
	ASSERT_ACL_OK(aclrtMemcpyAsync(d1, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE, NULL));
	memset(src, 0, n);
	memset(dst, 0, n);
	ASSERT_ACL_OK(aclrtMemcpyAsync(dst, n, d1, n, ACL_MEMCPY_DEVICE_TO_HOST, NULL));
	EXPECT_EQ(-1, check_pattern(dst, n, 13));

	ASSERT_ACL_OK(aclrtFree(d1));
	ASSERT_ACL_OK(aclrtFree(d2));
	free(src);
	free(dst);
}

/*
 * The staging buffer is page-locked memory too. Where RLIMIT_MEMLOCK binds
 * (no CAP_IPC_LOCK) it takes at most a quarter of the limit, and less when
 * other page-locked memory leaves less; below its minimum the copy fails
 * clearly. A forked child drops CAP_IPC_LOCK and reports back.
 */
enum { ST_COPY1, ST_DATA1, ST_PIN1, ST_HOST4M, ST_PIN2, ST_HOST7M, ST_COPY2, ST_DATA2,
       ST_PIN3, ST_COPY3, ST_MSG3, ST_PIN4, ST_NUM };

/* VmPin of /proc/self/status in kB (npu_util.h has one too, but is GPL-2.0). */
static long long vm_pin_kb(void)
{
	char line[128];
	long long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmPin:", 6))
			kb = atoll(line + 6);
	if (f)
		fclose(f);
	return kb;
}

static int drop_cap_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int i = CAP_TO_INDEX(CAP_IPC_LOCK);

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[i].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	data[i].permitted &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	data[i].inheritable &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	return syscall(SYS_capset, &hdr, data);
}

/* A pageable round trip of @n bytes through @d: its aclError, *@ok = data came back. */
static aclError pageable_round_trip(void *d, size_t n, long long *ok)
{
	char *src = malloc(n), *dst = calloc(1, n);
	aclError ret = ACL_ERROR_RT_MEMORY_ALLOCATION;

	*ok = 0;
	if (src && dst) {
		fill_pattern(src, n, 21);
		ret = aclrtMemcpy(d, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE);
		if (ret == ACL_SUCCESS)
			ret = aclrtMemcpy(dst, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST);
		*ok = ret == ACL_SUCCESS && check_pattern(dst, n, 21) == -1;
	}
	free(src);
	free(dst);
	return ret;
}

TEST(staging_fits_rlimit_memlock)
{
	long long r[ST_NUM];
	int res[2], status;
	pid_t pid;

	NEED_DEVICE();
	if (geteuid() != 0)
		SKIP(return, "needs root: it sets the hard RLIMIT_MEMLOCK and drops CAP_IPC_LOCK");
	ASSERT_EQ(0, pipe(res));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct rlimit rl = { .rlim_cur = 8 * MiB, .rlim_max = 8 * MiB };
		const char *msg;
		void *d, *h4, *h7;
		long long ok;

		memset(r, 0xff, sizeof(r));
		/* the staging buffer is what this is about: direct copies use none */
		if (setenv("ACL_NPU_PAGEABLE_COPY", "staged", 1) || setrlimit(RLIMIT_MEMLOCK, &rl) || drop_cap_ipc_lock() ||
		    aclrtSetDevice(0) || aclrtMalloc(&d, 8 * MiB, ACL_MEM_MALLOC_HUGE_FIRST))
			_exit(2);
		/* Debian's default limit: a 2 MiB buffer, 6 MiB left */
		r[ST_COPY1] = pageable_round_trip(d, 5 * MiB + 3, &r[ST_DATA1]);
		r[ST_PIN1] = vm_pin_kb();
		r[ST_HOST4M] = aclrtMallocHost(&h4, 4 * MiB);
		r[ST_PIN2] = vm_pin_kb();
		/* 7 MiB already locked: the buffer shrinks to the 1 MiB left */
		if (aclrtResetDevice(0) || aclrtSetDevice(0) ||
		    aclrtMalloc(&d, 8 * MiB, ACL_MEM_MALLOC_HUGE_FIRST))
			_exit(3);
		r[ST_HOST7M] = aclrtMallocHost(&h7, 7 * MiB);
		r[ST_COPY2] = pageable_round_trip(d, 3 * MiB + 5, &r[ST_DATA2]);
		r[ST_PIN3] = vm_pin_kb();
		/* below the smallest buffer: a clear error, nothing left pinned */
		rl.rlim_cur = 64 * KiB;
		if (aclrtResetDevice(0) || setrlimit(RLIMIT_MEMLOCK, &rl) || aclrtSetDevice(0) ||
		    aclrtMalloc(&d, 8 * MiB, ACL_MEM_MALLOC_HUGE_FIRST))
			_exit(4);
		r[ST_COPY3] = pageable_round_trip(d, MiB, &ok);
		msg = aclGetRecentErrMsg();
		r[ST_MSG3] = msg && strstr(msg, "staging buffer") && strstr(msg, "RLIMIT_MEMLOCK");
		r[ST_PIN4] = vm_pin_kb();
		_exit(write(res[1], r, sizeof(r)) == sizeof(r) ? 0 : 5);
	}
	close(res[1]);
	ASSERT_EQ((ssize_t)sizeof(r), read(res[0], r, sizeof(r)));
	close(res[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	EXPECT_EQ(ACL_SUCCESS, r[ST_COPY1]);
	EXPECT_EQ(1, r[ST_DATA1]);
	EXPECT_EQ(2048, r[ST_PIN1]);
	EXPECT_EQ(ACL_SUCCESS, r[ST_HOST4M]);
	EXPECT_EQ(6144, r[ST_PIN2]);
	EXPECT_EQ(ACL_SUCCESS, r[ST_HOST7M]);
	EXPECT_EQ(ACL_SUCCESS, r[ST_COPY2]);
	EXPECT_EQ(1, r[ST_DATA2]);
	EXPECT_EQ(8192, r[ST_PIN3]);
	EXPECT_EQ(ACL_ERROR_RT_MEMORY_ALLOCATION, r[ST_COPY3]);
	EXPECT_EQ(1, r[ST_MSG3]);
	EXPECT_EQ(0, r[ST_PIN4]);
}

/* Registered host memory is copied by one direct DMA. */
TEST_F(cp, pinned)
{
	size_t n = variant->size;
	aclrtStream s;
	char *hs, *hd;
	void *d;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocHost((void **)&hs, n));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&hd, n));
	EXPECT_EQ(0U, (uintptr_t)hs % 64);
	ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	fill_pattern(hs, n, 5);
	ASSERT_ACL_OK(aclrtMemcpy(d, n, hs, n, ACL_MEMCPY_HOST_TO_DEVICE));
	memset(hd, 0, n);
	ASSERT_ACL_OK(aclrtMemcpy(hd, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(hd, n, 5));

	ASSERT_ACL_OK(aclrtCreateStream(&s));
	fill_pattern(hs, n, 6);
	memset(hd, 0, n);
	ASSERT_ACL_OK(aclrtMemcpyAsync(d, n, hs, n, ACL_MEMCPY_HOST_TO_DEVICE, s));
	ASSERT_ACL_OK(aclrtMemcpyAsync(hd, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	EXPECT_EQ(-1, check_pattern(hd, n, 6));
	ASSERT_ACL_OK(aclrtDestroyStream(s));

	/* host to host between registered buffers */
	fill_pattern(hs, n, 8);
	ASSERT_ACL_OK(aclrtMemcpy(hd, n, hs, n, ACL_MEMCPY_HOST_TO_HOST));
	EXPECT_EQ(-1, check_pattern(hd, n, 8));

	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclrtFreeHost(hs));
	ASSERT_ACL_OK(aclrtFreeHost(hd));
}

TEST(memcpy_kind_must_match)
{
	char host[4096], host2[4096];
	void *d, *d2;

	NEED_DEVICE();
	/* exactly one page: aclrtMalloc would add 32 bytes of padding, a second page */
	ASSERT_ACL_OK(aclrtMallocAlign32(&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc(&d2, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(host, 4096, d, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d, 4096, host, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d, 4096, d2, 4096, ACL_MEMCPY_HOST_TO_HOST));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d, 4096, host, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(host, 4096, host2, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d, 4096, d2, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemcpy(d, 4096, host, 4096, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE));
	/* both on one device */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemcpy(d, 4096, d2, 4096, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE));
	/* the device range must hold count bytes */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(d, 8192, host, 4097, ACL_MEMCPY_HOST_TO_DEVICE));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtMemcpy((char *)d + 4000, 4096, host, 200, ACL_MEMCPY_HOST_TO_DEVICE));
	/* host to host by the CPU */
	fill_pattern(host2, sizeof(host2), 1);
	ASSERT_ACL_OK(aclrtMemcpy(host, 4096, host2, 4096, ACL_MEMCPY_HOST_TO_HOST));
	EXPECT_EQ(-1, check_pattern(host, 4096, 1));
	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclrtFree(d2));
}

TEST(memset_sync_async)
{
	size_t n = 5 * MiB + 3;
	char *h = malloc(n);
	aclrtStream s;
	void *d, *ph;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMemset(d, n, 0x1AB, n));	/* the low byte counts */
	ASSERT_ACL_OK(aclrtMemcpy(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_byte(h, n, 0xAB));
	ASSERT_ACL_OK(aclrtMemset((char *)d + 1, n - 1, 0x11, 100));
	ASSERT_ACL_OK(aclrtMemcpy(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0xAB, (unsigned char)h[0]);
	EXPECT_EQ(-1, check_byte(h + 1, 100, 0x11));
	EXPECT_EQ(-1, check_byte(h + 101, n - 101, 0xAB));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemset(d, n, 0, n + 1));
	/* HUGE_FIRST rounded the allocation to 6 MiB: no byte beyond it */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemset(d, 8 * MiB, 0, 6 * MiB + 1));

	ASSERT_ACL_OK(aclrtCreateStream(&s));
	ASSERT_ACL_OK(aclrtMemsetAsync(d, n, -1, n, s));
	ASSERT_ACL_OK(aclrtSynchronizeStream(s));
	ASSERT_ACL_OK(aclrtMemcpy(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_byte(h, n, 0xFF));
	ASSERT_ACL_OK(aclrtDestroyStream(s));

	/* registered and pageable host memory are set too */
	ASSERT_ACL_OK(aclrtMallocHost(&ph, 8192));
	ASSERT_ACL_OK(aclrtMemset(ph, 8192, 0x5A, 8192));
	EXPECT_EQ(-1, check_byte(ph, 8192, 0x5A));
	ASSERT_ACL_OK(aclrtMemset(h, n, 0x42, 1000));
	EXPECT_EQ(-1, check_byte(h, 1000, 0x42));
	ASSERT_ACL_OK(aclrtFreeHost(ph));
	ASSERT_ACL_OK(aclrtFree(d));
	free(h);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/*
 * A synchronous copy or memset waits inside its SUBMIT (NPU_SUBMIT_WAIT):
 * a signal whose handler does not restart system calls ends that wait
 * with EINTR, and the library must wait on for the queued commands - not
 * lose them, nor queue them twice. The timer runs only during the calls:
 * filling and checking 16 MiB under a signal every 500 us spends the
 * debug kernel's time on signal delivery to code that is not ours.
 */
static void alarms_every(long usec)
{
	struct itimerval it = { { 0, usec }, { 0, usec } };

	setitimer(ITIMER_REAL, &it, NULL);
}

#define UNDER_SIGNALS(call) ({ alarms_every(500); aclError _e = (call); alarms_every(0); _e; })

TEST_TIMEOUT(sync_copies_under_signals, 120)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	size_t n = 16 * MiB;
	char *page = malloc(n), *h;
	void *d;
	int i;

	NEED_DEVICE();
	ASSERT_NONNULL(page);
	ASSERT_ACL_OK(aclrtMallocHost((void **)&h, n));
	ASSERT_ACL_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	alarms = 0;
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, &old));
	for (i = 0; i < 6; i++) {
		fill_pattern(h, n, 40 + i);
		EXPECT_ACL_OK(UNDER_SIGNALS(aclrtMemcpy(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE)));
		memset(h, 0, n);
		EXPECT_ACL_OK(UNDER_SIGNALS(aclrtMemcpy(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST)));
		EXPECT_EQ(-1, check_pattern(h, n, 40 + i));
		/* pageable: direct, then staged in pieces, the last one waited for in its SUBMIT */
		EXPECT_ACL_OK(UNDER_SIGNALS(aclrtMemcpy(page, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST)));
		EXPECT_EQ(-1, check_pattern(page, n, 40 + i));
		ASSERT_EQ(0, setenv("ACL_NPU_PAGEABLE_COPY", "staged", 1));
		EXPECT_ACL_OK(UNDER_SIGNALS(aclrtMemcpy(d, n, page, n, ACL_MEMCPY_HOST_TO_DEVICE)));
		unsetenv("ACL_NPU_PAGEABLE_COPY");
		EXPECT_ACL_OK(UNDER_SIGNALS(aclrtMemcpy(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST)));
		EXPECT_EQ(-1, check_pattern(h, n, 40 + i));
		EXPECT_ACL_OK(UNDER_SIGNALS(aclrtMemset(d, n, 0x60 + i, n)));
		EXPECT_ACL_OK(UNDER_SIGNALS(aclrtMemcpy(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST)));
		EXPECT_EQ(-1, check_byte(h, n, 0x60 + i));
	}
	sigaction(SIGALRM, &old, NULL);
	TH_LOG("%d signals during the copies", (int)alarms);
	EXPECT_LT(0, alarms);
	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclrtFreeHost(h));
	free(page);
}

struct copier {
	int id;
	aclError err;
	long long bad;
};

static void *copier_thread(void *arg)
{
	struct copier *c = arg;
	size_t n = 3 * MiB + c->id * 4096;
	char *h = malloc(n), *b = malloc(n);
	void *d = NULL;
	int i;

	c->bad = -1;
	c->err = aclrtSetDevice(0);
	if (!c->err)
		c->err = aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST);
	for (i = 0; i < 4 && !c->err; i++) {
		fill_pattern(h, n, c->id * 16 + i);
		c->err = aclrtMemcpy(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE);
		if (!c->err)
			c->err = aclrtMemcpy(b, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST);
		if (!c->err && (c->bad = check_pattern(b, n, c->id * 16 + i)) != -1)
			break;
	}
	if (d)
		aclrtFree(d);
	free(h);
	free(b);
	return NULL;
}

TEST_TIMEOUT(threads_copy_concurrently, 120)
{
	struct copier c[4];
	pthread_t t[4];
	int i;

	NEED_DEVICE();
	for (i = 0; i < 4; i++) {
		c[i].id = i;
		ASSERT_EQ(0, pthread_create(&t[i], NULL, copier_thread, &c[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(ACL_SUCCESS, c[i].err);
		EXPECT_EQ(-1, c[i].bad);
	}
}

/* Host memory */

TEST(malloc_host_mapped)
{
	aclrtPtrAttributes attr;
	uint64_t *h;
	void *dp = NULL, *dp2 = NULL;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocHost((void **)&h, 100));
	h[0] = 0;
	ASSERT_ACL_OK(aclrtPointerGetAttributes(h, &attr));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_HOST, attr.location.type);
	EXPECT_EQ(4096U, attr.pageSize);
	ASSERT_ACL_OK(aclrtHostGetDevicePointer(h, &dp, 0));
	ASSERT_NONNULL(dp);
	EXPECT_NE((void *)h, dp);
	/* the device reaches the host pages through the device address */
	ASSERT_ACL_OK(aclrtValueWrite(dp, 0x1122334455667788ULL, 0, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	EXPECT_EQ(0x1122334455667788ULL, h[0]);
	/* registering aclrtMallocHost memory answers its device address */
	ASSERT_ACL_OK(aclrtHostRegister(h, 4096, ACL_HOST_REGISTER_MAPPED, &dp2));
	EXPECT_EQ(dp, dp2);
	EXPECT_ACL(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
		   aclrtHostRegister(h, 4096, ACL_HOST_REGISTER_MAPPED, &dp2));
	ASSERT_ACL_OK(aclrtHostUnregister(h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostUnregister(h));
	ASSERT_ACL_OK(aclrtFreeHost(h));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(h));
}

TEST(malloc_host_with_cfg_va_flag)
{
	aclrtMallocAttribute a = { .attr = ACL_RT_MEM_ATTR_VA_FLAG, .value.vaFlag = 1 };
	aclrtMallocConfig cfg = { &a, 1 };
	char *h, *d;
	void *dp;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocHostWithCfg((void **)&h, 3 * 4096, &cfg));
	ASSERT_ACL_OK(aclrtHostGetDevicePointer(h, &dp, 0));
	EXPECT_EQ((void *)h, dp);
	/* usable as a device address by device-to-device copies */
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	fill_pattern(h, 4096, 4);
	ASSERT_ACL_OK(aclrtMemcpy(d, 4096, h, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
	memset(h, 0, 4096);
	ASSERT_ACL_OK(aclrtMemcpy(h + 4096, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
	EXPECT_EQ(-1, check_pattern(h + 4096, 4096, 4));
	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclrtFreeHost(h));

	a.value.vaFlag = 0;
	ASSERT_ACL_OK(aclrtMallocHostWithCfg((void **)&h, 4096, &cfg));
	ASSERT_ACL_OK(aclrtHostGetDevicePointer(h, &dp, 0));
	EXPECT_NE((void *)h, dp);
	ASSERT_ACL_OK(aclrtFreeHost(h));
	a.value.vaFlag = 2;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocHostWithCfg((void **)&h, 4096, &cfg));
	/* CANN's runtime takes MODULE_ID and VA_FLAG only (api_impl.cc GetMallocHostConfigAttr) */
	a.attr = ACL_RT_MEM_ATTR_DEVICE_ID;
	a.value.deviceId = 5;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocHostWithCfg((void **)&h, 4096, &cfg));
}

TEST(host_register_mapped)
{
	char *mem = map_anon(4 * 4096), *src = malloc(3 * 4096);
	aclrtPtrAttributes attr;
	void *dp = NULL, *dp2 = NULL, *d;

	NEED_DEVICE();
	ASSERT_NONNULL(mem);
	/* a size that is no page multiple covers the pages it touches */
	ASSERT_ACL_OK(aclrtHostRegister(mem, 3 * 4096 - 100, ACL_HOST_REGISTER_MAPPED, &dp));
	ASSERT_NONNULL(dp);
	EXPECT_NE((void *)mem, dp);
	ASSERT_ACL_OK(aclrtHostGetDevicePointer(mem + 4096, &dp2, 0));
	EXPECT_EQ((char *)dp + 4096, dp2);
	ASSERT_ACL_OK(aclrtPointerGetAttributes(mem, &attr));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_HOST, attr.location.type);
	EXPECT_ACL(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
		   aclrtHostRegister(mem, 4096, ACL_HOST_REGISTER_MAPPED, &dp2));
	EXPECT_ACL(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
		   aclrtHostRegisterV2(mem + 8192, 8192, ACL_HOST_REG_PINNED));

	/* direct DMA both ways */
	ASSERT_ACL_OK(aclrtMalloc(&d, 3 * 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	fill_pattern(mem, 3 * 4096, 2);
	ASSERT_ACL_OK(aclrtMemcpy(d, 3 * 4096, mem, 3 * 4096, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(src, 3 * 4096, d, 3 * 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(src, 3 * 4096, 2));
	memset(mem, 0, 3 * 4096);
	ASSERT_ACL_OK(aclrtMemcpy(mem, 3 * 4096, d, 3 * 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(mem, 3 * 4096, 2));
	/* a range leaving the registration still copies (staged) */
	fill_pattern(mem + 4096, 3 * 4096, 3);
	ASSERT_ACL_OK(aclrtMemcpy(d, 3 * 4096, mem + 4096, 3 * 4096, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(src, 3 * 4096, d, 3 * 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(src, 3 * 4096, 3));

	EXPECT_ACL(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, aclrtHostUnregister(mem + 4096));
	EXPECT_ACL(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, aclrtHostUnregister(mem + 3 * 4096));
	EXPECT_ACL(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, aclrtHostUnregister(d));
	ASSERT_ACL_OK(aclrtHostUnregister(mem));
	EXPECT_ACL(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, aclrtHostUnregister(mem));
	/* CANN: 107000 for any address not registered mapped (api_impl.cc HostGetDevicePointer) */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtHostGetDevicePointer(mem, &dp2, 0));
	ASSERT_ACL_OK(aclrtFree(d));
	munmap(mem, 4 * 4096);
	free(src);
}

TEST(host_register_v2_pinned_and_readonly)
{
	char *mem = map_anon(2 * 4096), *ro = map_anon(4096);
	void *dp, *d;
	char buf[4096];

	NEED_DEVICE();
	ASSERT_NONNULL(mem);
	ASSERT_NONNULL(ro);
	ASSERT_ACL_OK(aclrtHostRegisterV2(mem, 2 * 4096, ACL_HOST_REG_PINNED));
	/* pinned without MAPPED: no device address (CANN: 107000) */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtHostGetDevicePointer(mem, &dp, 0));
	ASSERT_ACL_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	fill_pattern(mem, 4096, 12);
	ASSERT_ACL_OK(aclrtMemcpy(d, 4096, mem, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(mem + 4096, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(mem + 4096, 4096, 12));
	ASSERT_ACL_OK(aclrtHostUnregister(mem));
	ASSERT_ACL_OK(aclrtHostRegisterV2(mem, 4096, ACL_HOST_REG_MAPPED | ACL_HOST_REG_PINNED));
	ASSERT_ACL_OK(aclrtHostGetDevicePointer(mem, &dp, 0));
	ASSERT_ACL_OK(aclrtHostUnregister(mem));

	/*
	 * read-only: the device reads it, and copies into it still work.
	 * (Filled first: a read-only pin of never-written anonymous memory
	 * may pin the shared zero page on older kernels.)
	 */
	fill_pattern(ro, 4096, 21);
	ASSERT_ACL_OK(aclrtHostRegister(ro, 4096, ACL_HOST_REGISTER_READONLY, &dp));
	ASSERT_ACL_OK(aclrtMemcpy(d, 4096, ro, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemcpy(buf, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_pattern(buf, 4096, 21));
	ASSERT_ACL_OK(aclrtMemset(d, 4096, 0x77, 4096));
	ASSERT_ACL_OK(aclrtMemcpy(ro, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(-1, check_byte(ro, 4096, 0x77));
	ASSERT_ACL_OK(aclrtHostUnregister(ro));
	ASSERT_ACL_OK(aclrtHostRegisterV2(ro, 4096, ACL_HOST_REG_READONLY | ACL_HOST_REG_MAPPED));
	ASSERT_ACL_OK(aclrtHostUnregister(ro));
	ASSERT_ACL_OK(aclrtFree(d));
	munmap(mem, 2 * 4096);
	munmap(ro, 4096);
}

TEST(host_register_unmapped_memory)
{
	char *mem = map_anon(2 * 4096);
	void *dp;

	NEED_DEVICE();
	ASSERT_NONNULL(mem);
	munmap(mem, 2 * 4096);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(mem, 4096, ACL_HOST_REGISTER_MAPPED, &dp));
}

/* aclrtGetLastError after @code's failure: @code or, for the acl layer's failures, 0. */
#define EXPECT_LAST(want) EXPECT_EQ((aclError)(want), aclrtGetLastError(ACL_RT_THREAD_LEVEL))

/*
 * The vendor's codes for bad types and flags (CANN api_error.cc
 * HostRegister / HostRegisterV2): the runtime layer's, recorded as the
 * last error; the acl layer's NULL and size checks come first and are not.
 */
TEST(host_register_vendor_codes)
{
	char *mem = map_anon(4096);
	const char *msg;
	void *dp;

	NEED_DEVICE();
	ASSERT_NONNULL(mem);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		   aclrtHostRegister(mem, 4096, (aclrtHostRegisterType)0x1, &dp));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  aclrtHostRegister(mem, 4096, (aclrtHostRegisterType)(ACL_HOST_REGISTER_READONLY | 0x100), &dp));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "type 0x108"));
	EXPECT_LAST(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* the acl layer's checks first: no last error */
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(mem, 0, (aclrtHostRegisterType)0x1, &dp));
	EXPECT_LAST(ACL_SUCCESS);

	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(mem, 4096, 0));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(mem, 4096, ACL_HOST_REG_MAPPED | 0x20));
	msg = aclGetRecentErrMsg();
	ASSERT_NONNULL(msg);
	EXPECT_NONNULL(strstr(msg, "aclrtHostRegisterV2: flag 0x22"));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostRegisterV2(NULL, 4096, 0));
	EXPECT_LAST(ACL_SUCCESS);
	/* nothing was registered on the way */
	ASSERT_ACL_OK(aclrtHostRegisterV2(mem, 4096, ACL_HOST_REG_PINNED));
	ASSERT_ACL_OK(aclrtHostUnregister(mem));
	munmap(mem, 4096);
}

/*
 * aclrtHostRegisterV2 of aclrtMallocHost(WithCfg) memory: MAPPED answers
 * the memory's device address (torch_npu's pinned_mem_register path:
 * register, unregister, free); PINNED is refused (CANN's API reference:
 * the flag is for pageable memory), with 507910, this library's choice,
 * recorded as the last error.
 */
TEST(host_register_v2_malloc_host)
{
	aclrtMallocAttribute a = { .attr = ACL_RT_MEM_ATTR_VA_FLAG, .value.vaFlag = 1 };
	aclrtMallocConfig cfg = { &a, 1 };
	void *h, *hv, *dp, *dp2;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMallocHost(&h, 2 * 4096));
	ASSERT_ACL_OK(aclrtHostGetDevicePointer(h, &dp, 0));
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, aclrtHostRegisterV2(h, 4096, ACL_HOST_REG_PINNED));
	EXPECT_LAST(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
	EXPECT_ACL(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
		   aclrtHostRegisterV2(h, 4096, ACL_HOST_REG_PINNED | ACL_HOST_REG_MAPPED));
	EXPECT_ACL(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
		   aclrtHostRegisterV2((char *)h + 4096, 4096, ACL_HOST_REG_PINNED));
	ASSERT_ACL_OK(aclrtHostRegisterV2(h, 2 * 4096, ACL_HOST_REG_MAPPED));
	ASSERT_ACL_OK(aclrtHostGetDevicePointer(h, &dp2, 0));
	EXPECT_EQ(dp, dp2);
	ASSERT_ACL_OK(aclrtHostUnregister(h));
	ASSERT_ACL_OK(aclrtFreeHost(h));

	ASSERT_ACL_OK(aclrtMallocHostWithCfg(&hv, 4096, &cfg));
	ASSERT_ACL_OK(aclrtHostRegisterV2(hv, 4096, ACL_HOST_REG_MAPPED));
	ASSERT_ACL_OK(aclrtHostGetDevicePointer(hv, &dp, 0));
	EXPECT_EQ(hv, dp);
	ASSERT_ACL_OK(aclrtHostUnregister(hv));
	ASSERT_ACL_OK(aclrtFreeHost(hv));
}

/*
 * aclrtMallocHostWithCfg's checks in CANN's order (api_impl.cc
 * HostMallocWithCfg): ptr and size (acl layer, 100000), cfg->attrs NULL
 * whatever numAttrs is (107000), attributes other than MODULE_ID and
 * VA_FLAG (107000), then the context (107002).
 */
TEST(malloc_host_with_cfg_order)
{
	aclrtMallocAttribute attrs[2] = {
		{ .attr = ACL_RT_MEM_ATTR_MODULE_ID, .value.moduleId = 7 },
		{ .attr = ACL_RT_MEM_ATTR_VA_FLAG, .value.vaFlag = 0 },
	};
	aclrtMallocConfig cfg = { NULL, 0 };
	void *h;

	NEED_DEVICE();
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocHostWithCfg(NULL, 4096, &cfg));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocHostWithCfg(&h, 0, &cfg));
	EXPECT_LAST(ACL_SUCCESS);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocHostWithCfg(&h, 4096, &cfg));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	cfg.numAttrs = 2;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocHostWithCfg(&h, 4096, &cfg));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	cfg.attrs = attrs;
	ASSERT_ACL_OK(aclrtMallocHostWithCfg(&h, 4096, &cfg));
	ASSERT_ACL_OK(aclrtFreeHost(h));
	/* attrs but no entries: nothing to check */
	cfg.numAttrs = 0;
	ASSERT_ACL_OK(aclrtMallocHostWithCfg(&h, 4096, &cfg));
	ASSERT_ACL_OK(aclrtFreeHost(h));
	cfg.numAttrs = 2;
	attrs[1].attr = ACL_RT_MEM_ATTR_RSV;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocHostWithCfg(&h, 4096, &cfg));
	EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	attrs[1].attr = ACL_RT_MEM_ATTR_DEVICE_ID;
	attrs[1].value.deviceId = 0;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocHostWithCfg(&h, 4096, &cfg));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocHostWithCfg(&h, 4096, &cfg));
	/* the attributes before the context */
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocHostWithCfg(&h, 4096, &cfg));
	attrs[1].attr = ACL_RT_MEM_ATTR_VA_FLAG;
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtMallocHostWithCfg(&h, 4096, &cfg));
	EXPECT_LAST(ACL_ERROR_RT_CONTEXT_NULL);
	cfg.attrs = NULL;
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocHostWithCfg(&h, 4096, &cfg));
}

/*
 * aclrtHostGetDevicePointer of anything but host memory registered
 * mapped: CANN's runtime's 107000, the last error (api_impl.cc
 * HostGetDevicePointer); its NULL and flag checks are the acl layer's.
 */
TEST(host_get_device_pointer_not_mapped)
{
	char *pin = map_anon(4096), stack[64];
	void *dp = NULL, *d, *man;

	NEED_DEVICE();
	ASSERT_NONNULL(pin);
	ASSERT_ACL_OK(aclrtHostRegisterV2(pin, 4096, ACL_HOST_REG_PINNED));
	ASSERT_ACL_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemAllocManaged(&man, 4096, ACL_RT_MEM_ATTACH_GLOBAL));
	void *probes[] = { stack, pin, pin + 100, d, man };
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		aclrtGetLastError(ACL_RT_THREAD_LEVEL);
		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtHostGetDevicePointer(probes[i], &dp, 0));
		EXPECT_LAST(ACL_ERROR_RT_PARAM_INVALID);
	}
	EXPECT_NULL(dp);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer(stack, &dp, 1));
	EXPECT_LAST(ACL_SUCCESS);
	ASSERT_ACL_OK(aclrtFree(man));
	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclrtHostUnregister(pin));
	munmap(pin, 4096);
}

/* What device @fd's driver context says of @p: NPU_ADDR_*, *dev_addr its device address. */
static uint32_t addr_kind(int fd, const void *p, uint64_t *dev_addr)
{
	struct npu_addr_query q = { .size = sizeof(q), .addr = (uintptr_t)p };

	if (ioctl(fd, NPU_IOCTL_ADDR_QUERY, &q))
		return ~0U;
	if (dev_addr)
		*dev_addr = q.dev_addr;
	return q.kind == NPU_ADDR_HOST && !(q.host_flags & NPU_HOST_MAPPED) ? ~1U : q.kind;
}

static void *thread_free_host(void *arg)
{
	return (void *)(intptr_t)aclrtFreeHost(arg);
}

/*
 * aclrtMallocHost memory is the process's (CANN: the driver's
 * process-wide pinned heap): registered and mapped with every open
 * device and each device opened later, so every device copies it
 * directly; aclrtFreeHost works from any thread and any device, and
 * every registration counts against RLIMIT_MEMLOCK (VmPin).
 */
TEST(malloc_host_every_device)
{
	uint64_t *h, *h2, da0 = 0, da1 = 0;
	long long pin0, pin1;
	void *dp0, *dp1, *ret;
	int fd0, fd1;
	pthread_t t;

	if (!have_npu(1))
		SKIP(return, "needs two NPUs");
	NEED_DEVICE();
	/* opened later: device 1 registers what device 0 allocated */
	ASSERT_ACL_OK(aclrtMallocHost((void **)&h, 4096));
	ASSERT_ACL_OK(aclrtHostGetDevicePointer(h, &dp0, 0));
	ASSERT_ACL_OK(aclrtSetDevice(1));
	fd0 = lib_npu_fd();
	fd1 = npu_proc_dev_fd("/dev/npu1", -1);
	ASSERT_LE(0, fd0);
	ASSERT_LE(0, fd1);
	EXPECT_EQ(NPU_ADDR_HOST, addr_kind(fd0, h, &da0));
	EXPECT_EQ(NPU_ADDR_HOST, addr_kind(fd1, h, &da1));
	ASSERT_ACL_OK(aclrtHostGetDevicePointer(h, &dp1, 0));
	EXPECT_EQ((uintptr_t)dp1, (uintptr_t)da1);
	EXPECT_EQ((uintptr_t)dp0, (uintptr_t)da0);
	/* device 1's engine writes it through its own mapping */
	h[0] = 0;
	ASSERT_ACL_OK(aclrtValueWrite(dp1, 0x5566778899aabbccULL, 0, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	EXPECT_EQ(0x5566778899aabbccULL, h[0]);

	/* allocated with both open: both have it, each registration charged */
	pin0 = vm_pin_kb();
	ASSERT_ACL_OK(aclrtMallocHost((void **)&h2, 1 * MiB));
	pin1 = vm_pin_kb();
	EXPECT_EQ(2 * 1024, pin1 - pin0);
	EXPECT_EQ(NPU_ADDR_HOST, addr_kind(fd0, h2, NULL));
	EXPECT_EQ(NPU_ADDR_HOST, addr_kind(fd1, h2, NULL));

	/* freed with device 1 current, from a thread without a device */
	ASSERT_ACL_OK(aclrtFreeHost(h));
	/* its two registrations of 4 KiB uncharged */
	EXPECT_EQ(pin1 - 2 * 4, vm_pin_kb());
	EXPECT_EQ(NPU_ADDR_NONE, addr_kind(fd0, h, NULL));
	EXPECT_EQ(NPU_ADDR_NONE, addr_kind(fd1, h, NULL));
	ASSERT_EQ(0, pthread_create(&t, NULL, thread_free_host, h2));
	ASSERT_EQ(0, pthread_join(t, &ret));
	EXPECT_EQ(ACL_SUCCESS, (aclError)(intptr_t)ret);
	EXPECT_EQ(NPU_ADDR_NONE, addr_kind(fd1, h2, NULL));
	EXPECT_EQ(pin0 - 2 * 4, vm_pin_kb());
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(h2));

	/* it lives while a device holds it: device 0 closes, device 1 keeps it */
	ASSERT_ACL_OK(aclrtMallocHost((void **)&h, 4096));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	h[1] = 0;
	ASSERT_ACL_OK(aclrtHostGetDevicePointer(h, &dp1, 0));
	ASSERT_ACL_OK(aclrtValueWrite((char *)dp1 + 8, 42, 0, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	EXPECT_EQ(42U, h[1]);
	ASSERT_ACL_OK(aclrtFreeHost(h));
	/* and goes with the last one */
	ASSERT_ACL_OK(aclrtMallocHost((void **)&h, 4096));
	ASSERT_ACL_OK(aclrtResetDevice(1));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(h));
}

TEST(pointer_attributes)
{
	aclrtPtrAttributes attr;
	char stack[16];
	void *d;

	NEED_DEVICE();
	memset(&attr, 0xff, sizeof(attr));
	ASSERT_ACL_OK(aclrtPointerGetAttributes(stack, &attr));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_UNREGISTERED, attr.location.type);
	EXPECT_EQ(4096U, attr.pageSize);
	EXPECT_EQ(0U, attr.rsv[0] | attr.rsv[1] | attr.rsv[2] | attr.rsv[3]);
	ASSERT_ACL_OK(aclrtMalloc(&d, 3 * MiB, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtPointerGetAttributes((char *)d + MiB + 5, &attr));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, attr.location.type);
	EXPECT_EQ(0U, attr.location.id);
	EXPECT_EQ((uint32_t)(2 * MiB), attr.pageSize);
	ASSERT_ACL_OK(aclrtFree(d));
	ASSERT_ACL_OK(aclrtPointerGetAttributes(d, &attr));
	EXPECT_EQ(ACL_MEM_LOCATION_TYPE_UNREGISTERED, attr.location.type);
}

/*
 * What the library makes of an address (from its own records: copies
 * classify their pointers with them, without asking the driver) is what
 * the driver says of it (ADDR_QUERY on the library's own file): the kind,
 * the range holding it, a mapped registration's device address, the page
 * size - for every kind of memory the library makes, pageable memory, and
 * memory released again.
 */
TEST(records_match_driver)
{
	aclrtMallocAttribute va_flag = { .attr = ACL_RT_MEM_ATTR_VA_FLAG, .value.vaFlag = 1 };
	aclrtMallocConfig cfg = { .attrs = &va_flag, .numAttrs = 1 };
	aclrtPhysicalMemProp prop = prop_for(ACL_HBM_MEM_HUGE);
	char *mem = map_anon(4 * 4096), *pin = map_anon(2 * 4096), *heap = malloc(64), stack[64];
	char *d, *h, *hv, *dp, *vmm, *man;
	aclrtDrvMemHandle handle;
	int fd, i, n = 0;
	uintptr_t probe[40];

	NEED_DEVICE();
	ASSERT_NONNULL(mem);
	ASSERT_NONNULL(pin);
	fd = lib_npu_fd();
	ASSERT_LE(0, fd);
	ASSERT_ACL_OK(aclrtMalloc((void **)&d, 3 * MiB, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&h, 2 * 4096));
	ASSERT_ACL_OK(aclrtMallocHostWithCfg((void **)&hv, 4096, &cfg));
	ASSERT_ACL_OK(aclrtHostRegister(mem, 2 * 4096, ACL_HOST_REGISTER_MAPPED, (void **)&dp));
	ASSERT_ACL_OK(aclrtHostRegisterV2(pin, 4096, ACL_HOST_REG_PINNED));
	ASSERT_ACL_OK(aclrtReserveMemAddress((void **)&vmm, 4 * MiB, 0, NULL, 0));
	ASSERT_ACL_OK(aclrtMallocPhysical(&handle, 2 * MiB, &prop, 0));
	ASSERT_ACL_OK(aclrtMapMem(vmm, 2 * MiB, 0, handle, 0));
	ASSERT_ACL_OK(aclrtMemAllocManaged((void **)&man, 2 * MiB, ACL_RT_MEM_ATTACH_GLOBAL));
	for (i = 0; i < 2; i++) {
		uintptr_t at[] = {
			(uintptr_t)d, (uintptr_t)d + MiB + 5, (uintptr_t)d + 4 * MiB - 1, (uintptr_t)d + 4 * MiB,
			(uintptr_t)h, (uintptr_t)h + 2 * 4096 - 1, (uintptr_t)h + 2 * 4096, (uintptr_t)hv + 7,
			(uintptr_t)mem, (uintptr_t)mem + 4096 + 9, (uintptr_t)mem + 2 * 4096, (uintptr_t)dp,
			(uintptr_t)dp + 2 * 4096 - 1, (uintptr_t)pin + 3, (uintptr_t)pin + 4096,
			(uintptr_t)vmm + 5, (uintptr_t)vmm + 2 * MiB + 5, (uintptr_t)man + MiB,
			(uintptr_t)stack, (uintptr_t)heap, 0, 4096,
		};

		for (n = 0; n < (int)(sizeof(at) / sizeof(at[0])); n++)
			probe[n] = at[n];
		if (i) {
			/* released: the records forget them as the driver does */
			ASSERT_ACL_OK(aclrtHostUnregister(mem));
			ASSERT_ACL_OK(aclrtHostUnregister(pin));
			ASSERT_ACL_OK(aclrtFreeHost(h));
			ASSERT_ACL_OK(aclrtUnmapMem(vmm));
			ASSERT_ACL_OK(aclrtFree(man));
		}
		for (int k = 0; k < n; k++) {
			struct npu_addr_query q = { .size = sizeof(q), .addr = probe[k] };
			aclrtPtrAttributes attr;
			uint32_t want, page;
			void *got = NULL;
			bool mapped;
			aclError r;

			/* NULL is refused before any lookup */
			if (!probe[k])
				continue;
			ASSERT_EQ(0, ioctl(fd, NPU_IOCTL_ADDR_QUERY, &q));
			want = q.kind == NPU_ADDR_MIRROR ? ACL_MEM_LOCATION_TYPE_MANAGED :
			       q.kind == NPU_ADDR_DEVICE ? ACL_MEM_LOCATION_TYPE_DEVICE :
			       q.kind == NPU_ADDR_HOST ? ACL_MEM_LOCATION_TYPE_HOST :
			       ACL_MEM_LOCATION_TYPE_UNREGISTERED;
			page = q.page_size && q.kind == NPU_ADDR_DEVICE ? q.page_size : 4096;
			mapped = q.kind == NPU_ADDR_HOST && (q.host_flags & NPU_HOST_MAPPED);
			ASSERT_ACL_OK(aclrtPointerGetAttributes((void *)probe[k], &attr));
			r = aclrtHostGetDevicePointer((void *)probe[k], &got, 0);
			if (attr.location.type != want || attr.pageSize != page ||
			    (r == ACL_SUCCESS) != mapped || (mapped && (uintptr_t)got != q.dev_addr))
				TH_LOG("round %d, probe %d (%#lx): the driver says kind %u page %llu dev_addr %#llx",
				       i, k, (unsigned long)probe[k], q.kind,
				       (unsigned long long)q.page_size, (unsigned long long)q.dev_addr);
			EXPECT_EQ(want, (uint32_t)attr.location.type);
			EXPECT_EQ(page, attr.pageSize);
			EXPECT_EQ(mapped, r == ACL_SUCCESS);
			if (mapped)
				EXPECT_EQ((uintptr_t)q.dev_addr, (uintptr_t)got);
			if (q.kind == NPU_ADDR_DEVICE && probe[k] >= (uintptr_t)d &&
			    probe[k] < (uintptr_t)d + 4 * MiB) {
				void *base = NULL;
				size_t len = 0;

				ASSERT_ACL_OK(aclrtMemGetAddressRange((void *)probe[k], &base, &len));
				EXPECT_EQ((uintptr_t)q.base, (uintptr_t)base);
				EXPECT_EQ((size_t)q.length, len);
			}
		}
		aclGetRecentErrMsg();
	}
	ASSERT_ACL_OK(aclrtFreePhysical(handle));
	ASSERT_ACL_OK(aclrtReleaseMemAddress(vmm));
	ASSERT_ACL_OK(aclrtFreeHost(hv));
	ASSERT_ACL_OK(aclrtFree(d));
	munmap(mem, 4 * 4096);
	munmap(pin, 2 * 4096);
	free(heap);
}

TEST_HARNESS_MAIN
