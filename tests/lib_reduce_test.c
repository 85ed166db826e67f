// SPDX-License-Identifier: MIT
/*
 * libacl: aclrtReduceAsync, checked element by element against a host
 * model of every kind and type the simulated chip has (the compiler's
 * float and _Float16 arithmetic, bfloat16 rounded here), with operands
 * whose page boundaries fall elsewhere than each other's, special float
 * values, the vendor's codes for bad input, stream order and operands
 * other than device memory. Skips without /dev/npu0.
 */
#include <math.h>
#include <stdint.h>

#include "float_bits.h"
#include "lib_util.h"

#define SUM	ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM
#define MAX	ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX
#define MIN	ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN
#define EQUAL	ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL

/* Elements per run: three pages and some of 4-byte elements, fewer pages of smaller ones. */
#define NBYTES	(3 * 4096 + 1236)

static const aclDataType types[] = { ACL_INT8, ACL_INT16, ACL_INT32, ACL_FLOAT16, ACL_FLOAT, ACL_BF16 };

static size_t elem_of(aclDataType t)
{
	return t == ACL_INT8 ? 1 : t == ACL_INT32 || t == ACL_FLOAT ? 4 : 2;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* MAX/MIN of two floats as the engine has them: NaN wins, -0 below +0. */
static float pick(float a, float b, bool max, bool *nan)
{
	*nan = isnan(a) || isnan(b);
	if (*nan)
		return a;
	if (a == b)
		return (!!signbit(a) != max) ? a : b;
	return (a > b) == max ? a : b;
}

/* One element of the model: dst OP src, as bits in *@out; true if it must be a NaN. */
static bool model(aclDataType t, aclrtReduceKind k, const void *d, const void *s, void *out)
{
	bool nan = false, max = k == MAX;
	float r;

	switch (t) {
	case ACL_INT8: {
		int8_t a = *(const int8_t *)d, b = *(const int8_t *)s;

		*(int8_t *)out = k == SUM ? (int8_t)(uint8_t)((uint8_t)a + (uint8_t)b) :
				 (a > b) == max ? a : b;
		return false;
	}
	case ACL_INT16: {
		int16_t a = *(const int16_t *)d, b = *(const int16_t *)s;

		*(int16_t *)out = k == SUM ? (int16_t)(uint16_t)((uint16_t)a + (uint16_t)b) :
				  (a > b) == max ? a : b;
		return false;
	}
	case ACL_INT32: {
		int32_t a = *(const int32_t *)d, b = *(const int32_t *)s;

		*(int32_t *)out = k == SUM ? (int32_t)((uint32_t)a + (uint32_t)b) :
				  (a > b) == max ? a : b;
		return false;
	}
	case ACL_FLOAT: {
		float a = *(const float *)d, b = *(const float *)s;

		r = k == SUM ? a + b : pick(a, b, max, &nan);
		memcpy(out, &r, 4);
		return isnan(r) || nan;
	}
	case ACL_FLOAT16: {
		float a = (float)h_of(*(const uint16_t *)d), b = (float)h_of(*(const uint16_t *)s);
		_Float16 h;

		if (k == SUM) {
			h = (_Float16)(a + b);
		} else {
			r = pick(a, b, max, &nan);
			h = (_Float16)r;
		}
		*(uint16_t *)out = h_bits(h);
		return nan || isnan((float)h);
	}
	default: {	/* ACL_BF16 */
		float a = f32_of((uint32_t)*(const uint16_t *)d << 16);
		float b = f32_of((uint32_t)*(const uint16_t *)s << 16);

		r = k == SUM ? a + b : pick(a, b, max, &nan);
		*(uint16_t *)out = k == SUM ? bf16_of(r) : (uint16_t)(f32_bits(r) >> 16);
		return nan || isnan(r);
	}
	}
}

static bool is_nan_bits(aclDataType t, const void *p)
{
	uint16_t h;

	switch (t) {
	case ACL_FLOAT:
		return isnan(*(const float *)p);
	case ACL_FLOAT16:
		memcpy(&h, p, 2);
		return (h & 0x7fff) > 0x7c00;
	case ACL_BF16:
		memcpy(&h, p, 2);
		return (h & 0x7fff) > 0x7f80;
	default:
		return false;
	}
}

/* Random elements of @t, one in eight a special value of a float type. */
static void fill(aclDataType t, void *p, size_t n)
{
	static const uint32_t f32_special[] = {
		0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x00000001, 0x807fffff,
		0x7f7fffff, 0xff7fffff, 0x00800000, 0x3f800000, 0xbf800000, 0x33800000, 0x4b800000,
	};
	static const uint16_t f16_special[] = {
		0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x83ff, 0x7bff, 0xfbff, 0x0400,
		0x3c00, 0xbc00, 0x1400, 0x6400,
	};
	static const uint16_t bf16_special[] = {
		0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x0001, 0x807f, 0x7f7f, 0xff7f, 0x0080,
		0x3f80, 0xbf80, 0x3380, 0x4b80,
	};
	size_t e = elem_of(t), i;

	for (i = 0; i < n / e; i++) {
		uint32_t v = rnd(), sp = rnd() % 8 == 0;

		if (t == ACL_FLOAT && sp)
			v = f32_special[rnd() % 14];
		else if (t == ACL_FLOAT16 && sp)
			v = f16_special[rnd() % 14];
		else if (t == ACL_BF16 && sp)
			v = bf16_special[rnd() % 14];
		memcpy((char *)p + i * e, &v, e);
	}
}

/* Elements of @got that differ from the model of @d OP @s; the first few logged. */
static size_t check(aclDataType t, aclrtReduceKind k, const char *d, const char *s, const char *got,
		    size_t n)
{
	size_t e = elem_of(t), i, bad = 0;
	char want[4];

	for (i = 0; i < n / e; i++) {
		bool nan = model(t, k, d + i * e, s + i * e, want);
		bool ok = nan ? is_nan_bits(t, got + i * e) : !memcmp(want, got + i * e, e);

		if (!ok && bad++ < 4) {
			uint32_t a = 0, b = 0, w = 0, g = 0;

			memcpy(&a, d + i * e, e);
			memcpy(&b, s + i * e, e);
			memcpy(&w, want, e);
			memcpy(&g, got + i * e, e);
			TH_LOG("type %d kind %d element %zu: %#x OP %#x = %#x, want %#x%s", (int)t, (int)k,
			       i, a, b, g, w, nan ? " (a NaN)" : "");
		}
	}
	return bad;
}

/*
 * Every kind and type on device memory: dst and src at offsets whose page
 * boundaries differ, read back whole at another offset.
 */
TEST(every_kind_and_type)
{
	char *dev, *d, *s, *got;
	aclrtStream st;
	size_t ti, dofs = 3 * 4096 - 8, sofs = 8 * 4096 + 1228;
	int k;

	NEED_DEVICE();
	d = malloc(NBYTES);
	s = malloc(NBYTES);
	got = malloc(NBYTES + 64);
	ASSERT_NONNULL(d);
	ASSERT_NONNULL(s);
	ASSERT_NONNULL(got);
	ASSERT_ACL_OK(aclrtMalloc((void **)&dev, 16 * 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	for (ti = 0; ti < sizeof(types) / sizeof(types[0]); ti++) {
		for (k = SUM; k <= MIN; k++) {
			fill(types[ti], d, NBYTES);
			fill(types[ti], s, NBYTES);
			ASSERT_ACL_OK(aclrtMemcpy(dev + dofs, NBYTES, d, NBYTES, ACL_MEMCPY_HOST_TO_DEVICE));
			ASSERT_ACL_OK(aclrtMemcpy(dev + sofs, NBYTES, s, NBYTES, ACL_MEMCPY_HOST_TO_DEVICE));
			ASSERT_ACL_OK(aclrtReduceAsync(dev + dofs, dev + sofs, NBYTES, k, types[ti], st, NULL));
			ASSERT_ACL_OK(aclrtSynchronizeStream(st));
			ASSERT_ACL_OK(aclrtMemcpy(got, NBYTES, dev + dofs, NBYTES, ACL_MEMCPY_DEVICE_TO_HOST));
			EXPECT_EQ(0U, check(types[ti], k, d, s, got, NBYTES));
		}
	}
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(dev));
	free(d);
	free(s);
	free(got);
}

/* Every binary16 and every bfloat16 value as dst, against varied sources. */
TEST(every_half_value)
{
	const size_t n = 65536 * 2;
	aclDataType t[2] = { ACL_FLOAT16, ACL_BF16 };
	uint16_t *d = malloc(n), *s = malloc(n), *got = malloc(n);
	char *dd, *ds;
	aclrtStream st;
	int i, k;
	uint32_t v;

	NEED_DEVICE();
	ASSERT_NONNULL(d);
	ASSERT_NONNULL(s);
	ASSERT_NONNULL(got);
	ASSERT_ACL_OK(aclrtMalloc((void **)&dd, n, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&ds, n, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	for (i = 0; i < 2; i++) {
		for (k = SUM; k <= MIN; k++) {
			for (v = 0; v < 65536; v++) {
				d[v] = (uint16_t)v;
				/* near values too: cancellations and carries */
				s[v] = (uint16_t)(rnd() % 4 ? rnd() : v ^ 0x8000 ^ (rnd() & 3));
			}
			ASSERT_ACL_OK(aclrtMemcpy(dd, n, d, n, ACL_MEMCPY_HOST_TO_DEVICE));
			ASSERT_ACL_OK(aclrtMemcpy(ds, n, s, n, ACL_MEMCPY_HOST_TO_DEVICE));
			ASSERT_ACL_OK(aclrtReduceAsync(dd, ds, n, k, t[i], st, NULL));
			ASSERT_ACL_OK(aclrtSynchronizeStream(st));
			ASSERT_ACL_OK(aclrtMemcpy(got, n, dd, n, ACL_MEMCPY_DEVICE_TO_HOST));
			EXPECT_EQ(0U, check(t[i], k, (char *)d, (char *)s, (char *)got, n));
		}
	}
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(dd));
	ASSERT_ACL_OK(aclrtFree(ds));
	free(d);
	free(s);
	free(got);
}

/* A reduce is a task of its stream: after the copy before it, before the copy after it. */
TEST(stream_order)
{
	float a[1024], b[1024], out[1024];
	char *x, *y, *z;
	aclrtStream st;
	int i;

	NEED_DEVICE();
	for (i = 0; i < 1024; i++) {
		a[i] = (float)i * 0.5f;
		b[i] = (float)(1024 - i) * 0.25f;
	}
	ASSERT_ACL_OK(aclrtMalloc((void **)&x, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&y, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMalloc((void **)&z, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemcpy(y, 4096, b, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtMemset(x, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtMemcpyAsync(z, 4096, a, 4096, ACL_MEMCPY_HOST_TO_DEVICE, st));
	ASSERT_ACL_OK(aclrtMemcpyAsync(x, 4096, z, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, st));
	ASSERT_ACL_OK(aclrtReduceAsync(x, y, 4096, SUM, ACL_FLOAT, st, NULL));
	ASSERT_ACL_OK(aclrtMemcpyAsync(z, 4096, x, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, st));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	ASSERT_ACL_OK(aclrtMemcpy(out, 4096, z, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 1024; i++)
		ASSERT_EQ(f32_bits(a[i] + b[i]), f32_bits(out[i]));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(x));
	ASSERT_ACL_OK(aclrtFree(y));
	ASSERT_ACL_OK(aclrtFree(z));
}

/*
 * Operands as a copy's: registered host memory on either side, the
 * default stream; pageable memory is what the device cannot reach: the
 * task faults, the memory untouched.
 */
TEST(host_operands_and_faults)
{
	int32_t *h, *hs, *pg = malloc(8192), want[2048];
	char *dev;
	int i;

	NEED_DEVICE();
	ASSERT_NONNULL(pg);
	ASSERT_ACL_OK(aclrtMallocHost((void **)&h, 8192));
	ASSERT_ACL_OK(aclrtMallocHost((void **)&hs, 8192));
	ASSERT_ACL_OK(aclrtMalloc((void **)&dev, 8192, ACL_MEM_MALLOC_NORMAL_ONLY));
	for (i = 0; i < 2048; i++) {
		h[i] = i * 3 - 1000;
		hs[i] = 7 - i;
		pg[i] = 5;
		want[i] = h[i] > hs[i] ? h[i] : hs[i];
	}
	ASSERT_ACL_OK(aclrtMemcpy(dev, 8192, hs, 8192, ACL_MEMCPY_HOST_TO_DEVICE));
	/* host dst, device src, on the default stream */
	ASSERT_ACL_OK(aclrtReduceAsync(h, dev, 8192, MAX, ACL_INT32, NULL, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	EXPECT_EQ(0, memcmp(h, want, 8192));
	/* device dst, host src */
	ASSERT_ACL_OK(aclrtReduceAsync(dev + 4, hs + 1, 8188, SUM, ACL_INT32, NULL, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtMemcpy(want, 8192, dev, 8192, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(hs[0], want[0]);
	for (i = 1; i < 2048; i++)
		ASSERT_EQ(hs[i] + hs[i], want[i]);

	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtReduceAsync(pg, dev, 8192, SUM, ACL_INT32, NULL, NULL));
	EXPECT_ACL(ACL_ERROR_RT_FAILURE, aclrtSynchronizeStream(NULL));
	npu_expect_dma_faults(false);
	for (i = 0; i < 2048; i++)
		ASSERT_EQ(5, pg[i]);
	ASSERT_ACL_OK(aclrtFree(dev));
	ASSERT_ACL_OK(aclrtFreeHost(h));
	ASSERT_ACL_OK(aclrtFreeHost(hs));
	free(pg);
}

/* Another device's memory as src, with peer access enabled. */
TEST(peer_operand)
{
	uint16_t v[2048], out[2048];
	char *mine, *theirs;
	int i;

	if (!have_npu(1))
		SKIP(return, "needs /dev/npu1");
	NEED_DEVICE();
	for (i = 0; i < 2048; i++)
		v[i] = (uint16_t)(rnd() & 0x7fff);
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtMalloc((void **)&theirs, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemcpy(theirs, 4096, v, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtMalloc((void **)&mine, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtMemset(mine, 4096, 0x7f, 4096));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(mine, theirs, 4096, MIN, ACL_INT16, NULL, NULL));
	ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ASSERT_ACL_OK(aclrtReduceAsync(mine, theirs, 4096, MIN, ACL_INT16, NULL, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtMemcpy(out, 4096, mine, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < 2048; i++)
		ASSERT_EQ(v[i] < 0x7f7f ? v[i] : 0x7f7f, out[i]);
	ASSERT_ACL_OK(aclrtFree(mine));
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtFree(theirs));
}

/* The vendor's codes, acl layer (100000) before the runtime's. */
TEST(bad_input)
{
	char *dev;
	aclrtStream st, gone;
	int x;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtMalloc((void **)&dev, 8192, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_ACL_OK(aclrtCreateStream(&st));
	ASSERT_ACL_OK(aclrtCreateStream(&gone));
	ASSERT_ACL_OK(aclrtDestroyStream(gone));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(NULL, dev, 4, SUM, ACL_FLOAT, st, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(dev, NULL, 4, SUM, ACL_FLOAT, st, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(dev, dev, 4, SUM, ACL_FLOAT, st, &x));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(dev, dev, 4, SUM, ACL_INT64, st, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(dev, dev, 4, SUM, ACL_DOUBLE, st, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtReduceAsync(dev, dev, 4, SUM, ACL_FLOAT, gone, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReduceAsync(dev, dev, 0, SUM, ACL_FLOAT, st, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtReduceAsync(dev, dev, 4, (aclrtReduceKind)9, ACL_FLOAT, st, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtReduceAsync(dev, dev, 4, (aclrtReduceKind)14, ACL_FLOAT, st, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtReduceAsync(dev, dev, 4 * GiB + 4, SUM, ACL_FLOAT, st, NULL));
	/* the 910B class: no EQUAL, six types */
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtReduceAsync(dev, dev, 4, EQUAL, ACL_FLOAT, st, NULL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtReduceAsync(dev, dev, 4, SUM, ACL_UINT8, st, NULL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtReduceAsync(dev, dev, 4, MAX, ACL_UINT32, st, NULL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtReduceAsync(dev, dev, 4, MIN, ACL_INT4, st, NULL));
	/* alignment to the type, src first; none for bytes */
	EXPECT_ACL(ACL_ERROR_RT_ADDR_UNALIGNED, aclrtReduceAsync(dev, dev + 2, 4, SUM, ACL_FLOAT, st, NULL));
	EXPECT_ACL(ACL_ERROR_RT_ADDR_UNALIGNED, aclrtReduceAsync(dev + 1, dev, 4, SUM, ACL_BF16, st, NULL));
	EXPECT_ACL_OK(aclrtReduceAsync(dev + 1, dev + 4097, 3, SUM, ACL_INT8, st, NULL));
	/* npu's own: whole elements */
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReduceAsync(dev, dev + 8, 6, SUM, ACL_FLOAT, st, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(st));
	ASSERT_ACL_OK(aclrtDestroyStream(st));
	ASSERT_ACL_OK(aclrtFree(dev));
}

TEST_HARNESS_MAIN
