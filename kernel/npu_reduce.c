// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's reduce (NPU_OP_REDUCE): dst[i] = dst[i] OP src[i], element
 * by element, as an SDMA engine reduces inline while it copies. The
 * floating point is npu_float.c's: binary16 and bfloat16 add in binary32
 * and round back, which is their correctly rounded sum.
 */
#include <linux/bits.h>
#include <linux/kernel.h>

#include "npu_float.h"
#include "npu_reduce.h"

/* MAX or MIN of two non-NaN floats of sign bit @sign. */
static u32 npu_fpick(u32 a, u32 b, u32 sign, bool max)
{
	bool a_above = npu_float_key(a, sign) > npu_float_key(b, sign);

	return a_above == max ? a : b;
}

static u32 npu_reduce_f32(u32 a, u32 b, u32 op)
{
	if (op == NPU_REDUCE_OP_SUM)
		return npu_f32_add(a, b);
	if (npu_f32_nan(a) || npu_f32_nan(b))
		return (npu_f32_nan(a) ? a : b) | F32_QUIET;
	return npu_fpick(a, b, F32_SIGN, op == NPU_REDUCE_OP_MAX);
}

static u16 npu_reduce_f16(u16 a, u16 b, u32 op)
{
	if (op == NPU_REDUCE_OP_SUM)
		return npu_f32_to_f16(npu_f32_add(npu_f16_to_f32(a),
						  npu_f16_to_f32(b)));
	if (npu_f16_nan(a) || npu_f16_nan(b))
		return (npu_f16_nan(a) ? a : b) | 0x200;
	return npu_fpick(a, b, 0x8000, op == NPU_REDUCE_OP_MAX);
}

static u16 npu_reduce_bf16(u16 a, u16 b, u32 op)
{
	if (op == NPU_REDUCE_OP_SUM)
		return npu_f32_to_bf16(npu_f32_add((u32)a << 16, (u32)b << 16));
	if (npu_bf16_nan(a) || npu_bf16_nan(b))
		return (npu_bf16_nan(a) ? a : b) | 0x40;
	return npu_fpick(a, b, 0x8000, op == NPU_REDUCE_OP_MAX);
}

/*
 * Signed integers, sign-extended from their width: SUM wraps once the
 * caller truncates it back (two's complement, computed unsigned).
 */
static s32 npu_reduce_int(s32 a, s32 b, u32 op)
{
	if (op == NPU_REDUCE_OP_SUM)
		return (s32)((u32)a + (u32)b);
	return (a > b) == (op == NPU_REDUCE_OP_MAX) ? a : b;
}

/**
 * npu_reduce_elem() - the element size of a REDUCE's flags
 * @flags: struct npu_cmd's flags
 *
 * Return: 1, 2 or 4 bytes; 0 if the operation or type is not one there is.
 */
u32 npu_reduce_elem(u32 flags)
{
	if ((flags & NPU_REDUCE_OP_MASK) > NPU_REDUCE_OP_MIN)
		return 0;
	switch (flags & NPU_REDUCE_TYPE_MASK) {
	case NPU_REDUCE_TYPE_INT8:
		return 1;
	case NPU_REDUCE_TYPE_INT16:
	case NPU_REDUCE_TYPE_FP16:
	case NPU_REDUCE_TYPE_BF16:
		return 2;
	case NPU_REDUCE_TYPE_INT32:
	case NPU_REDUCE_TYPE_FP32:
		return 4;
	default:
		return 0;
	}
}

/**
 * npu_reduce_fn() - reduce @n bytes of whole elements of @src into @dst
 * @dst: destination elements, aligned to their size
 * @src: source elements, aligned alike
 * @n: bytes, a multiple of the element size
 * @arg: the command's flags (a u32)
 */
void npu_reduce_fn(void *dst, const void *src, size_t n, void *arg)
{
	u32 flags = *(u32 *)arg, op = flags & NPU_REDUCE_OP_MASK;
	size_t i;

	switch (flags & NPU_REDUCE_TYPE_MASK) {
	case NPU_REDUCE_TYPE_INT8:
		for (i = 0; i < n; i++)
			((s8 *)dst)[i] = npu_reduce_int(((s8 *)dst)[i],
							((const s8 *)src)[i], op);
		break;
	case NPU_REDUCE_TYPE_INT16:
		for (i = 0; i < n / 2; i++)
			((s16 *)dst)[i] = npu_reduce_int(((s16 *)dst)[i],
							 ((const s16 *)src)[i], op);
		break;
	case NPU_REDUCE_TYPE_INT32:
		for (i = 0; i < n / 4; i++)
			((s32 *)dst)[i] = npu_reduce_int(((s32 *)dst)[i],
							 ((const s32 *)src)[i], op);
		break;
	case NPU_REDUCE_TYPE_FP16:
		for (i = 0; i < n / 2; i++)
			((u16 *)dst)[i] = npu_reduce_f16(((u16 *)dst)[i],
							 ((const u16 *)src)[i], op);
		break;
	case NPU_REDUCE_TYPE_FP32:
		for (i = 0; i < n / 4; i++)
			((u32 *)dst)[i] = npu_reduce_f32(((u32 *)dst)[i],
							 ((const u32 *)src)[i], op);
		break;
	case NPU_REDUCE_TYPE_BF16:
		for (i = 0; i < n / 2; i++)
			((u16 *)dst)[i] = npu_reduce_bf16(((u16 *)dst)[i],
							  ((const u16 *)src)[i], op);
		break;
	}
}
