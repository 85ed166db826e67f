// SPDX-License-Identifier: GPL-2.0
/*
 * tests/ascendc/vec_kernels.cpp - our own kernels in the vendor's vector
 * style (TPipe, TQue, GlobalTensor, DataCopy, Add, ...) for make npucc-check:
 * built by npu-cc in both modes, and run on host buffers by
 * npucc_unit_test.cpp (NPU_CPU_DEBUG). Written for these tests; the
 * constructs are those of the vendor's example/kernel_func/add_custom.cpp
 * and kernel_add.cpp.
 */
#include "kernel_operator.h"

using namespace AscendC;

namespace {
constexpr int32_t BUFFER_NUM = 2;

/* z = x + y over blockDim blocks of len/blockDim elements, in tiles */
template <class T> class VecAdd {
public:
	__aicore__ inline VecAdd() {}
	__aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t len, uint32_t tiles)
	{
		blockLen = len / GetBlockNum();
		tileNum = tiles;
		tileLen = blockLen / tiles / BUFFER_NUM;
		xGm.SetGlobalBuffer((__gm__ T *)x + blockLen * GetBlockIdx(), blockLen);
		yGm.SetGlobalBuffer((__gm__ T *)y + blockLen * GetBlockIdx(), blockLen);
		zGm.SetGlobalBuffer((__gm__ T *)z + blockLen * GetBlockIdx(), blockLen);
		pipe.InitBuffer(inX, BUFFER_NUM, tileLen * sizeof(T));
		pipe.InitBuffer(inY, BUFFER_NUM, tileLen * sizeof(T));
		pipe.InitBuffer(outZ, BUFFER_NUM, tileLen * sizeof(T));
	}
	__aicore__ inline void Process()
	{
		for (int32_t i = 0; i < (int32_t)(tileNum * BUFFER_NUM); i++) {
			LocalTensor<T> xl = inX.AllocTensor<T>();
			LocalTensor<T> yl = inY.AllocTensor<T>();
			DataCopy(xl, xGm[i * tileLen], tileLen);
			DataCopy(yl, yGm[i * tileLen], tileLen);
			inX.EnQue(xl);
			inY.EnQue(yl);
			LocalTensor<T> a = inX.DeQue<T>();
			LocalTensor<T> b = inY.DeQue<T>();
			LocalTensor<T> c = outZ.AllocTensor<T>();
			Add(c, a, b, tileLen);
			outZ.EnQue<T>(c);
			inX.FreeTensor(a);
			inY.FreeTensor(b);
			LocalTensor<T> o = outZ.DeQue<T>();
			DataCopy(zGm[i * tileLen], o, tileLen);
			outZ.FreeTensor(o);
		}
	}

private:
	TPipe pipe;
	TQue<QuePosition::VECIN, BUFFER_NUM> inX, inY;
	TQue<QuePosition::VECOUT, BUFFER_NUM> outZ;
	GlobalTensor<T> xGm, yGm, zGm;
	uint32_t blockLen = 0, tileNum = 0, tileLen = 0;
};
} // namespace

extern "C" __global__ __aicore__ void vec_add_half(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t len, uint32_t tiles)
{
	VecAdd<half> op;
	op.Init(x, y, z, len, tiles);
	op.Process();
}

extern "C" __global__ __aicore__ void vec_add_float(__gm__ float *x, __gm__ float *y, __gm__ float *z,
						   uint32_t len, uint32_t tiles)
{
	VecAdd<float> op;
	op.Init((GM_ADDR)x, (GM_ADDR)y, (GM_ADDR)z, len, tiles);
	op.Process();
}

/* asks for more unified buffer than there is: traps in InitBuffer */
extern "C" __global__ __aicore__ void ub_overflow(uint32_t bytes)
{
	TPipe pipe;
	TQue<QuePosition::VECIN, 1> q;
	pipe.InitBuffer(q, 2, bytes);
}

/* a DataCopy of count elements (traps unless count * sizeof(half) % 32 == 0) */
extern "C" __global__ __aicore__ void copy_count(GM_ADDR src, uint32_t count)
{
	TPipe pipe;
	TBuf<QuePosition::VECCALC> buf;
	pipe.InitBuffer(buf, 4096);
	GlobalTensor<half> g;
	g.SetGlobalBuffer((__gm__ half *)src, 2048);
	LocalTensor<half> l = buf.Get<half>();
	DataCopy(l, g, count);
}

/* DeQue of a queue nothing was put into */
extern "C" __global__ __aicore__ void deque_empty()
{
	TPipe pipe;
	TQue<QuePosition::VECOUT, 1> q;
	pipe.InitBuffer(q, 1, 64);
	LocalTensor<float> t = q.DeQue<float>();
	t.SetValue(0, 1.0f);
}

#ifndef NPU_CPU_DEBUG
/* host wrappers as the vendor writes them */
void VecAddHalfDo(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y, uint8_t *z, uint32_t len)
{
	vec_add_half<<<blockDim, nullptr, stream>>>(x, y, z, len, 4);
}

int32_t VecAddFloatDo(uint32_t blockDim, void *stream, float *x, float *y, float *z, uint32_t len)
{
	return static_cast<int32_t>(vec_add_float<<<blockDim, nullptr, stream>>>(x, y, z, len, 4));
}
#endif
