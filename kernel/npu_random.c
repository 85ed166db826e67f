// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's random numbers (NPU_OP_RANDOM): Philox4x32-10 and the
 * distributions the vendor's DSA draws from it, element by element (the
 * uapi header's DOC: npu random numbers says which draw each uses).
 *
 * No FPU in kernel context: the normal distribution's logarithm, square
 * root and sine are fixed point with 28 or 30 fraction bits, and what
 * meets the caller's parameters is npu_float.c's binary32.
 */
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/string.h>

#include "npu_float.h"
#include "npu_random.h"

#define PHILOX_M0	0xd2511f53U
#define PHILOX_M1	0xcd9e8d57U
#define PHILOX_W0	0x9e3779b9U	/* the golden ratio */
#define PHILOX_W1	0xbb67ae85U	/* sqrt(3) - 1 */

#define Q30		BIT_ULL(30)
#define LN2_Q32		0xb17217f8ULL	/* ln 2 * 2^32 */
#define HALF_PI_Q30	1686629713ULL	/* pi / 2 * 2^30 */
#define TRUNC_Q28	(2LL << 28)	/* TRUNCATED_NORMAL's bound, 2 */
#define TRUNC_TRIES	64		/* blocks: 256 draws outside it are never seen */

/**
 * npu_philox() - Philox4x32 with 10 rounds
 * @ctr: the counter, lowest word first
 * @key: the key, low word first
 * @out: the block
 */
void npu_philox(const u32 ctr[4], const u32 key[2], u32 out[4])
{
	u32 c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
	u32 k0 = key[0], k1 = key[1];
	int r;

	for (r = 0; r < 10; r++) {
		u64 p0 = (u64)PHILOX_M0 * c0, p1 = (u64)PHILOX_M1 * c2;

		c0 = (u32)(p1 >> 32) ^ c1 ^ k0;
		c1 = (u32)p1;
		c2 = (u32)(p0 >> 32) ^ c3 ^ k1;
		c3 = (u32)p0;
		k0 += PHILOX_W0;
		k1 += PHILOX_W1;
	}
	out[0] = c0;
	out[1] = c1;
	out[2] = c2;
	out[3] = c3;
}

/* Block @i (tried for the @k-th time) of @r's counter. */
static void npu_random_block(const struct npu_random_run *r, u64 i, u32 k,
			     u32 out[4])
{
	u64 lo = r->ctr[0] + i, hi = r->ctr[1] + (lo < i) + ((u64)k << 32);
	u32 c[4] = { lower_32_bits(lo), upper_32_bits(lo),
		     lower_32_bits(hi), upper_32_bits(hi) };
	u32 key[2] = { lower_32_bits(r->seed), upper_32_bits(r->seed) };

	npu_philox(c, key, out);
}

/* log2(@x) for @x in [1, 2^32], 28 fraction bits: a bit a squaring. */
static u64 npu_log2_q28(u64 x)
{
	int k = fls64(x) - 1, i;
	u64 m = k <= 30 ? x << (30 - k) : x >> (k - 30), frac = 0;

	/* m in [1, 2) with 30 fraction bits */
	for (i = 27; i >= 0; i--) {
		m = (m * m) >> 30;
		if (m >= 2 * Q30) {
			m >>= 1;
			frac |= BIT_ULL(i);
		}
	}
	return (u64)k << 28 | frac;
}

/* 1 - x2 * t / d, all in 30 fraction bits: a step of a Horner series. */
static u64 npu_horner(u64 x2, u64 t, u32 d)
{
	return Q30 - div_u64((x2 * t) >> 30, d);
}

/* sin and cos of 2 pi @w / 2^32, with 30 fraction bits. */
static void npu_sincos_q30(u32 w, s64 *sn, s64 *cs)
{
	u64 g = w & (Q30 - 1), x, x2, s, c;
	bool past = g > Q30 / 2;
	s64 qs, qc;

	/* the angle in its quadrant, at most pi/4 from the nearer axis */
	if (past)
		g = Q30 - g;
	x = (g * HALF_PI_Q30) >> 30;
	x2 = (x * x) >> 30;
	/* Taylor to x^9 and x^10: under 2e-9 at pi/4 */
	s = npu_horner(x2, Q30 - div_u64(x2, 72), 42);
	s = npu_horner(x2, npu_horner(x2, s, 20), 6);
	s = (x * s) >> 30;
	c = npu_horner(x2, Q30 - div_u64(x2, 90), 56);
	c = npu_horner(x2, npu_horner(x2, npu_horner(x2, c, 30), 12), 2);
	if (past)
		swap(s, c);
	switch (w >> 30) {
	case 0:
		qs = s;
		qc = c;
		break;
	case 1:
		qs = c;
		qc = -(s64)s;
		break;
	case 2:
		qs = -(s64)s;
		qc = -(s64)c;
		break;
	default:
		qs = -(s64)c;
		qc = s;
		break;
	}
	*sn = qs;
	*cs = qc;
}

/* sqrt(-2 ln u1), u1 = (@x0 + 1) / 2^32, with 28 fraction bits. */
static s64 npu_normal_radius_q28(u32 x0)
{
	u64 m = U32_MAX - x0, l, v;

	/*
	 * Near u1 = 1, v = -2 ln u1 is too small for 28 fraction bits: with
	 * t = m / 2^32 = 1 - u1 < 2^-12, v = 2t + t^2 (+ under 2^-36 of it),
	 * with 56 bits.
	 */
	if (m < BIT(20))
		return int_sqrt64((m << 25) + ((m * m) >> 8));
	/* -2 ln u1 = 2 ln 2 (32 - log2(x0 + 1)) */
	l = (32ULL << 28) - npu_log2_q28((u64)x0 + 1);
	v = mul_u64_u64_shr(l, LN2_Q32, 31);
	return int_sqrt64(v << 28);
}

/*
 * Box-Muller: the two standard normals of draws @x0 and @x1, with 28
 * fraction bits: sqrt(-2 ln u1) times cos and sin of 2 pi u2.
 */
static void npu_normal_pair_q28(u32 x0, u32 x1, s64 z[2])
{
	s64 r = npu_normal_radius_q28(x0), sn, cs;

	npu_sincos_q30(x1, &sn, &cs);
	z[0] = (r * cs) >> 30;
	z[1] = (r * sn) >> 30;
}

/* Element @i's standard normal, 28 fraction bits. */
static s64 npu_random_z(const struct npu_random_run *r, u64 i)
{
	u32 b[4], k, j;
	s64 z[4];

	for (k = 0; k < TRUNC_TRIES; k++) {
		npu_random_block(r, i, k, b);
		npu_normal_pair_q28(b[0], b[1], z);
		if (r->func == NPU_RANDOM_NORMAL)
			return z[0];
		npu_normal_pair_q28(b[2], b[3], z + 2);
		for (j = 0; j < 4; j++)
			if (abs(z[j]) <= TRUNC_Q28)
				return z[j];
	}
	return 0;
}

/* A parameter of @type as a binary32. */
static u32 npu_random_param_f32(u32 type, u64 bits)
{
	switch (type) {
	case NPU_RANDOM_TYPE_FP16:
		return npu_f16_to_f32(bits);
	case NPU_RANDOM_TYPE_BF16:
		return (u32)bits << 16;
	default:
		return bits;
	}
}

/* u in [0, 1) of a draw, 24 bits of it, as a binary32. */
static u32 npu_unit_f32(u32 x)
{
	return npu_f32_from_fixed(x >> 8, 24);
}

/* Element @i of a float distribution, as a binary32. */
static u32 npu_random_f32(const struct npu_random_run *r, u64 i)
{
	u32 p0 = npu_random_param_f32(r->type, r->param[0]);
	u32 p1 = npu_random_param_f32(r->type, r->param[1]);
	u32 b[4];

	if (r->func == NPU_RANDOM_UNIFORM) {
		npu_random_block(r, i, 0, b);
		/* min + u * (max - min) */
		return npu_f32_add(p0, npu_f32_mul(npu_unit_f32(b[0]),
						   npu_f32_add(p1, p0 ^ F32_SIGN)));
	}
	/* mean + stddev * z */
	return npu_f32_add(p0, npu_f32_mul(p1, npu_f32_from_fixed(npu_random_z(r, i), 28)));
}

/* Byte @j of a dropout bitmask: elements 8j..8j+7. */
static u8 npu_random_mask_byte(const struct npu_random_run *r, u64 j)
{
	u32 ratio = npu_float_key(npu_random_param_f32(r->type, r->param[0]),
				  F32_SIGN);
	u64 first = j * 8, i, end = first;
	u8 byte = 0;
	u32 b[4];

	if (first < r->count)
		end += min_t(u64, r->count - first, 8);
	for (i = first; i < end; i++) {
		npu_random_block(r, i, 0, b);
		if (npu_float_key(npu_unit_f32(b[0]), F32_SIGN) >= ratio)
			byte |= BIT(i % 8);
	}
	return byte;
}

/**
 * npu_random_elem() - bytes of one element of @type
 * @type: NPU_RANDOM_TYPE_*
 *
 * Return: 2, 4 or 8; 0 for an unknown type.
 */
u32 npu_random_elem(u32 type)
{
	switch (type) {
	case NPU_RANDOM_TYPE_BF16:
	case NPU_RANDOM_TYPE_FP16:
		return 2;
	case NPU_RANDOM_TYPE_INT32:
	case NPU_RANDOM_TYPE_UINT32:
	case NPU_RANDOM_TYPE_FP32:
		return 4;
	case NPU_RANDOM_TYPE_INT64:
	case NPU_RANDOM_TYPE_UINT64:
		return 8;
	default:
		return 0;
	}
}

/* Element @i of @r (byte @i of a bitmask), little-endian into @out. */
static void npu_random_one(const struct npu_random_run *r, u64 i, u8 out[8])
{
	u64 v, span = r->param[1] - r->param[0];
	u32 b[4], k;

	if (r->func == NPU_RANDOM_DROPOUT) {
		out[0] = npu_random_mask_byte(r, i);
		return;
	}
	switch (r->type) {
	case NPU_RANDOM_TYPE_INT32:
	case NPU_RANDOM_TYPE_UINT32:
		npu_random_block(r, i, 0, b);
		span = (u32)span;
		if ((r->type == NPU_RANDOM_TYPE_INT32 ?
		     (s32)r->param[1] <= (s32)r->param[0] :
		     (u32)r->param[1] <= (u32)r->param[0]))
			span = 0;
		v = r->param[0] + (((u64)b[0] * span) >> 32);
		break;
	case NPU_RANDOM_TYPE_INT64:
	case NPU_RANDOM_TYPE_UINT64:
		npu_random_block(r, i, 0, b);
		if ((r->type == NPU_RANDOM_TYPE_INT64 ?
		     (s64)r->param[1] <= (s64)r->param[0] :
		     r->param[1] <= r->param[0]))
			span = 0;
		v = r->param[0] + mul_u64_u64_shr((u64)b[1] << 32 | b[0], span, 64);
		break;
	case NPU_RANDOM_TYPE_FP16:
		v = npu_f32_to_f16(npu_random_f32(r, i));
		break;
	case NPU_RANDOM_TYPE_BF16:
		v = npu_f32_to_bf16(npu_random_f32(r, i));
		break;
	default:
		v = npu_random_f32(r, i);
		break;
	}
	for (k = 0; k < 8; k++)
		out[k] = v >> (8 * k);
}

/**
 * npu_random_fn() - an npu_dma_fn writing the next @n bytes of output
 * @dst: where they go
 * @unused: no second operand
 * @n: bytes
 * @arg: the struct npu_random_run; its @off says where the output is,
 *	and moves on by @n
 *
 * A piece may start or end inside an element: only its bytes are written.
 */
void npu_random_fn(void *dst, const void *unused, size_t n, void *arg)
{
	struct npu_random_run *r = arg;
	u32 size = r->func == NPU_RANDOM_DROPOUT ? 1 : npu_random_elem(r->type);
	u8 *out = dst, buf[8];

	while (n) {
		u32 skip, take;
		u64 i = div_u64_rem(r->off, size, &skip);

		take = min_t(u64, size - skip, n);
		npu_random_one(r, i, buf);
		memcpy(out, buf + skip, take);
		out += take;
		r->off += take;
		n -= take;
	}
}
