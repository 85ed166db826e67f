// SPDX-License-Identifier: MIT
/*
 * include/ascendc/kernel_operator.h - npu's own Ascend C subset, header
 * only, for kernels that npu-cc (tools/npu-cc) builds for the simulated chip
 * or that a host test runs directly (NPU_CPU_DEBUG). Written from the
 * vendor's published API descriptions (asc-devkit docs); no vendor code.
 *
 * What a kernel sees:
 *   - the prelude: __global__ (a marker npu-cc consumes; empty otherwise),
 *     __aicore__ and __gm__ (empty: device memory is plain memory at the
 *     same address, see Documentation/npu-cc.rst), GM_ADDR, half
 *     (_Float16), block_idx / block_num, __NPU_ARCH__ (2201 unless given),
 *     and asm("trap"), which assembles to ud2 (SIGILL) through a macro
 *     defined once per translation unit below;
 *   - AscendC::GetBlockIdx(), GetBlockNum(), printf: read from / written to
 *     the block context of npu_block.h;
 *   - the vector programming model: GlobalTensor, LocalTensor, TPipe, TQue /
 *     TQueBind, TBuf, QuePosition, DataCopy, and the elementwise vector
 *     operations (Add, Sub, Mul, Div, Max, Min, Abs, Exp, Ln, Sqrt, Relu),
 *     the vector-scalar ones (Adds, Muls, Maxs, Mins), Duplicate and Cast
 *     (RoundMode), in the vendor's "first count elements" signatures.
 *
 * Semantics (where the hardware would misbehave, we trap instead):
 *   - TPipe::InitBuffer carves the queue's buffers (each rounded up to 32
 *     bytes) out of the block's 192 KiB unified buffer; past its end ->
 *     trap. A TPipe allocates from offset 0 of the UB.
 *   - DataCopy moves count elements; count * sizeof(T) must be a multiple of
 *     32 bytes (the hardware moves 32-byte blocks) and UB addresses 32-byte
 *     aligned, else trap. Counts beyond a LocalTensor's size trap.
 *   - AllocTensor with every buffer in use, EnQue of a tensor not allocated
 *     from the queue, DeQue of an empty queue, FreeTensor of a buffer not
 *     allocated -> trap.
 *   - Vector ops compute half through float and round the result back to
 *     half with round-to-nearest-even (what numpy's float16 does; float is
 *     wide enough that +,-,*,/,sqrt are then correctly rounded); float in
 *     float; int16/int32 wrap. A floating result that is inf or nan from
 *     finite inputs sets NPU_OVF_FLOAT in the context's overflow word; in
 *     saturation mode (ctx->sat_mode) such a result becomes the largest
 *     finite value of its sign and nan becomes 0 instead. Max/Min/Relu give
 *     nan if an input is nan.
 *   - A trap writes its message into ctx->trap_msg and a NPU_REC_TRAP
 *     record, then executes ud2. Its runner sees SIGILL.
 *
 * Modes (macros): npu-cc defines __NPU_DEVICE__ (device pass) or
 * __NPU_HOST__ (host pass); NPU_CPU_DEBUG (defined by a host test) makes
 * printf without a dump area go to stdout and provides npu_cc::cpu_run(),
 * which runs a kernel's blocks in a loop on the calling thread, each with
 * its own context and unified buffer.
 */
#ifndef NPU_ASCENDC_KERNEL_OPERATOR_H
#define NPU_ASCENDC_KERNEL_OPERATOR_H

#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

#include "npu_block.h"

/* ---- prelude ------------------------------------------------------------ */

#ifndef __NPU_ARCH__
#define __NPU_ARCH__ 2201
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef GM_ADDR
#define GM_ADDR __gm__ uint8_t *
#endif

typedef _Float16 half;

/* asm("trap") in a kernel: the vendor's trap instruction becomes ud2. */
asm(".macro trap\n\tud2\n.endm");

/* The block context's weak default (npu_block.h: the runner's wins). */
extern "C" {
/* default visibility even under -fvisibility=hidden: the runner must be able to interpose it */
__attribute__((weak, visibility("default"))) __thread struct npu_block_ctx *npu_block_current = nullptr;
}

namespace npu_cc {

/* ---- traps and records ---------------------------------------------------- */

inline void rec_put(struct npu_block_ctx *ctx, uint16_t kind, const char *text, uint32_t len)
{
	if (!ctx || !ctx->dump)
		return;
	uint32_t need = (uint32_t)sizeof(struct npu_rec) + ((len + 7u) & ~7u);
	if (ctx->dump_used > ctx->dump_size || ctx->dump_size - ctx->dump_used < need) {
		ctx->flags |= NPU_BLOCK_DUMP_LOST;
		return;
	}
	char *at = ctx->dump + ctx->dump_used;
	struct npu_rec rec = {};
	rec.len = len;
	rec.kind = kind;
	rec.blk_idx = ctx->blk_idx;
	std::memcpy(at, &rec, sizeof(rec));
	std::memcpy(at + sizeof(rec), text, len);
	std::memset(at + sizeof(rec) + len, 0, need - sizeof(rec) - len);
	__atomic_store_n(&ctx->dump_used, ctx->dump_used + need, __ATOMIC_RELEASE);
}

[[noreturn]] __attribute__((format(printf, 1, 2), noinline, cold))
inline void trap(const char *fmt, ...)
{
	struct npu_block_ctx *ctx = npu_block_current;
	char local[256];
	char *msg = ctx ? ctx->trap_msg : local;
	va_list ap;

	va_start(ap, fmt);
	int n = std::vsnprintf(msg, 256, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if (n > 255)
		n = 255;
	if (ctx)
		rec_put(ctx, NPU_REC_TRAP, msg, (uint32_t)n);
#ifdef NPU_CPU_DEBUG
	else
		std::fprintf(stderr, "npu trap: %s\n", msg);
#endif
	__builtin_trap(); /* ud2 */
}

/* printf's arguments as C varargs take them: half and float become double. */
template <class T> inline auto vararg(T v)
{
	if constexpr (std::is_same<T, half>::value || std::is_same<T, float>::value)
		return (double)v;
	else
		return v;
}

/* ---- element arithmetic --------------------------------------------------- */

template <class T> struct is_fp : std::integral_constant<bool,
	std::is_same<T, half>::value || std::is_same<T, float>::value> {};

/* the type a T is computed in */
template <class T> using calc_t = typename std::conditional<is_fp<T>::value, float,
	typename std::conditional<std::is_signed<T>::value, int64_t, uint64_t>::type>::type;

template <class T> inline bool finite_in(T v)
{
	if constexpr (is_fp<T>::value)
		return std::isfinite((float)v);
	else
		return true;
}

/* the largest finite value of a floating T (libstdc++ 12 has no numeric_limits<_Float16>) */
template <class T> inline T fp_max()
{
	if constexpr (std::is_same<T, half>::value)
		return (T)65504.0f;
	else
		return std::numeric_limits<T>::max();
}

/* r (computed from inputs all finite if `fin`) stored as a T: rounding, overflow bit, saturation */
template <class T> inline T store(calc_t<T> r, bool fin)
{
	if constexpr (is_fp<T>::value) {
		T v = (T)r; /* round to nearest even */
		if (std::isfinite((float)v) || !fin)
			return v;
		struct npu_block_ctx *ctx = npu_block_current;
		if (ctx)
			ctx->overflow |= NPU_OVF_FLOAT;
		if (ctx && ctx->sat_mode == NPU_SAT_ON) {
			if (std::isnan((float)v))
				return (T)0.0f;
			return v > (T)0.0f ? fp_max<T>() : (T)-fp_max<T>();
		}
		return v;
	} else {
		/* wrap around, as two's complement hardware does */
		return (T)(typename std::make_unsigned<T>::type)(uint64_t)r;
	}
}

} // namespace npu_cc


namespace AscendC {

/* ---- blocks and printf ---------------------------------------------------- */

__aicore__ inline int64_t GetBlockIdx()
{
	struct npu_block_ctx *ctx = npu_block_current;
	return ctx ? (int64_t)ctx->blk_idx : 0;
}

__aicore__ inline int64_t GetBlockNum()
{
	struct npu_block_ctx *ctx = npu_block_current;
	return ctx ? (int64_t)ctx->blk_num : 1;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
/*
 * The text is formatted in the block (vsnprintf, at most 1023 bytes) and
 * kept as one NPU_REC_PRINTF record; the runner prints the records after
 * the launch (the vendor's 910B path prints after a stream synchronisation too).
 * In the device pass it also puts a byte into section .npu_printf: a device
 * binary with that section gets a printf area for its launches (libacl).
 */
template <class... Args> __aicore__ inline void printf(const char *fmt, Args... args)
{
	struct npu_block_ctx *ctx = npu_block_current;
	char buf[1024];
	int n;

#if defined(__NPU_DEVICE__)
	/* the device binary's mark that it prints: its launches get a printf area */
	__asm__ __volatile__(".pushsection .npu_printf,\"a\",@progbits\n\t.byte 1\n\t.popsection");
#endif
	if constexpr (sizeof...(Args) == 0)
		n = std::snprintf(buf, sizeof(buf), fmt);
	else
		n = std::snprintf(buf, sizeof(buf), fmt, ::npu_cc::vararg(args)...);
	if (n < 0)
		return;
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	if (ctx && ctx->dump) {
		::npu_cc::rec_put(ctx, NPU_REC_PRINTF, buf, (uint32_t)n);
		return;
	}
#ifdef NPU_CPU_DEBUG
	std::fwrite(buf, 1, (size_t)n, stdout);
#endif
}
#pragma GCC diagnostic pop

template <class... Args> __aicore__ inline void PRINTF(const char *fmt, Args... args)
{
	AscendC::printf(fmt, args...);
}

/* ---- tensors -------------------------------------------------------------- */

enum class QuePosition : int32_t {
	GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC,
	SPM, SHM, TSCM, C2PIPE2GM, C2PIPE2LOCAL, MAX,
};
using TPosition = QuePosition;

enum class RoundMode : int32_t {
	CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD,
};

template <class T> class GlobalTensor {
public:
	__aicore__ inline GlobalTensor() {}
	__aicore__ inline void SetGlobalBuffer(__gm__ T *buffer, uint64_t bufferSize)
	{
		addr_ = buffer;
		size_ = bufferSize;
	}
	__aicore__ inline void SetGlobalBuffer(__gm__ T *buffer)
	{
		addr_ = buffer;
		size_ = 0;
	}
	__aicore__ inline __gm__ T *GetPhyAddr() const { return addr_; }
	__aicore__ inline __gm__ T *GetPhyAddr(uint64_t offset) const { return addr_ + offset; }
	__aicore__ inline uint64_t GetSize() const { return size_; }
	__aicore__ inline T GetValue(uint64_t offset) const { return addr_[offset]; }
	__aicore__ inline void SetValue(uint64_t offset, T value) { addr_[offset] = value; }
	__aicore__ inline __gm__ T &operator()(uint64_t offset) { return addr_[offset]; }
	__aicore__ inline GlobalTensor operator[](uint64_t offset) const
	{
		GlobalTensor t;
		t.addr_ = addr_ + offset;
		t.size_ = size_ > offset ? size_ - offset : 0;
		return t;
	}

private:
	__gm__ T *addr_ = nullptr;
	uint64_t size_ = 0;
};

/* A view of unified-buffer memory: address and element count (a value type). */
template <class T> class LocalTensor {
public:
	using PrimType = T;
	__aicore__ inline LocalTensor() {}
	__aicore__ inline LocalTensor(T *addr, uint32_t size) : addr_(addr), size_(size) {}
	__aicore__ inline T GetValue(uint32_t index) const
	{
		check(index, "GetValue");
		return addr_[index];
	}
	__aicore__ inline void SetValue(uint32_t index, T value) const
	{
		check(index, "SetValue");
		addr_[index] = value;
	}
	__aicore__ inline T &operator()(uint32_t index) const
	{
		check(index, "operator()");
		return addr_[index];
	}
	__aicore__ inline LocalTensor operator[](uint32_t offset) const
	{
		if (offset > size_)
			::npu_cc::trap("LocalTensor[%u]: past its %u elements", offset, size_);
		return LocalTensor(addr_ + offset, size_ - offset);
	}
	__aicore__ inline uint32_t GetSize() const { return size_; }
	__aicore__ inline void SetSize(uint32_t size) { size_ = size; }
	__aicore__ inline T *GetPhyAddr() const { return addr_; }
	template <class U> __aicore__ inline LocalTensor<U> ReinterpretCast() const
	{
		return LocalTensor<U>((U *)(void *)addr_, (uint32_t)((uint64_t)size_ * sizeof(T) / sizeof(U)));
	}

private:
	void check(uint32_t index, const char *what) const
	{
		if (index >= size_)
			::npu_cc::trap("LocalTensor::%s(%u): past its %u elements", what, index, size_);
	}
	T *addr_ = nullptr;
	uint32_t size_ = 0;
};

class TPipe;

template <QuePosition src, QuePosition dst, int32_t depth, int32_t mask = 0> class TQueBind {
public:
	static constexpr uint32_t MAX_BUFFERS = 32;
	__aicore__ inline TQueBind() {}

	template <class T> __aicore__ inline LocalTensor<T> AllocTensor()
	{
		for (uint32_t i = 0; i < num_; i++) {
			if (!(inuse_ & (1u << i))) {
				inuse_ |= 1u << i;
				return LocalTensor<T>((T *)(void *)(base_ + (size_t)i * len_), bytes_ / (uint32_t)sizeof(T));
			}
		}
		if (num_ == 0)
			::npu_cc::trap("TQue::AllocTensor: the queue has no buffers (TPipe::InitBuffer first)");
		::npu_cc::trap("TQue::AllocTensor: all %u buffers of the queue are in use", num_);
	}

	template <class T> __aicore__ inline bool EnQue(const LocalTensor<T> &tensor)
	{
		uint32_t i = index_of(tensor.GetPhyAddr(), "EnQue");
		if (count_ >= num_)
			::npu_cc::trap("TQue::EnQue: the queue is full (%u tensors)", count_);
		fifo_[(head_ + count_) % MAX_BUFFERS] = (uint8_t)i;
		count_++;
		return true;
	}

	template <class T> __aicore__ inline LocalTensor<T> DeQue()
	{
		if (count_ == 0)
			::npu_cc::trap("TQue::DeQue: the queue is empty");
		uint32_t i = fifo_[head_];
		head_ = (head_ + 1) % MAX_BUFFERS;
		count_--;
		return LocalTensor<T>((T *)(void *)(base_ + (size_t)i * len_), bytes_ / (uint32_t)sizeof(T));
	}

	template <class T> __aicore__ inline void FreeTensor(LocalTensor<T> &tensor)
	{
		uint32_t i = index_of(tensor.GetPhyAddr(), "FreeTensor");
		inuse_ &= ~(1u << i);
	}

	__aicore__ inline bool VacantInQue() const { return count_ < num_; }
	__aicore__ inline bool HasTensorInQue() const { return count_ != 0; }
	__aicore__ inline int32_t GetTensorCountInQue() const { return (int32_t)count_; }

private:
	friend class TPipe;
	uint32_t index_of(const void *addr, const char *what) const
	{
		const uint8_t *p = (const uint8_t *)addr;
		if (num_ == 0 || p < base_ || p >= base_ + (size_t)num_ * len_ || (size_t)(p - base_) % len_)
			::npu_cc::trap("TQue::%s: the tensor is not a buffer of this queue", what);
		uint32_t i = (uint32_t)((size_t)(p - base_) / len_);
		if (!(inuse_ & (1u << i)))
			::npu_cc::trap("TQue::%s: buffer %u is not allocated", what, i);
		return i;
	}
	uint8_t *base_ = nullptr;
	uint32_t len_ = 0;	/* stride: bytes_ rounded up to 32 */
	uint32_t bytes_ = 0;	/* InitBuffer's len */
	uint32_t num_ = 0;
	uint32_t inuse_ = 0;
	uint32_t head_ = 0;
	uint32_t count_ = 0;
	uint8_t fifo_[MAX_BUFFERS] = {};
};

template <QuePosition pos, int32_t depth, int32_t mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {};

template <QuePosition pos = QuePosition::VECCALC> class TBuf {
public:
	__aicore__ inline TBuf() {}
	template <class T> __aicore__ inline LocalTensor<T> Get() const
	{
		if (!base_)
			::npu_cc::trap("TBuf::Get: no buffer (TPipe::InitBuffer first)");
		return LocalTensor<T>((T *)(void *)base_, len_ / (uint32_t)sizeof(T));
	}
	template <class T> __aicore__ inline LocalTensor<T> Get(uint32_t count) const
	{
		if (!base_ || (uint64_t)count * sizeof(T) > len_)
			::npu_cc::trap("TBuf::Get(%u): the buffer holds %u bytes", count, len_);
		return LocalTensor<T>((T *)(void *)base_, count);
	}

private:
	friend class TPipe;
	uint8_t *base_ = nullptr;
	uint32_t len_ = 0;
};

/* Owns the block's unified buffer: InitBuffer carves queues' buffers out of it. */
class TPipe {
public:
	__aicore__ inline TPipe() {}
	template <QuePosition s, QuePosition d, int32_t depth, int32_t mask>
	__aicore__ inline bool InitBuffer(TQueBind<s, d, depth, mask> &que, uint8_t num, uint32_t len)
	{
		if (num == 0 || num > TQueBind<s, d, depth, mask>::MAX_BUFFERS)
			::npu_cc::trap("TPipe::InitBuffer: %u buffers (1 to %u)", num,
				       TQueBind<s, d, depth, mask>::MAX_BUFFERS);
		if (len == 0)
			::npu_cc::trap("TPipe::InitBuffer: buffers of 0 bytes");
		uint32_t each = round32(len);
		que.base_ = carve((uint64_t)each * num, num, len);
		que.len_ = each;
		que.bytes_ = len;
		que.num_ = num;
		que.inuse_ = 0;
		que.head_ = 0;
		que.count_ = 0;
		return true;
	}
	template <QuePosition pos>
	__aicore__ inline bool InitBuffer(TBuf<pos> &buf, uint32_t len)
	{
		buf.base_ = carve(round32(len), 1, len);
		buf.len_ = len;
		return true;
	}
	__aicore__ inline void Reset() { used_ = 0; }
	__aicore__ inline void Destroy() { used_ = 0; }

private:
	static uint32_t round32(uint32_t len) { return (uint32_t)(((uint64_t)len + 31u) & ~(uint64_t)31u); }
	uint8_t *carve(uint64_t bytes, uint32_t num, uint32_t len)
	{
		struct npu_block_ctx *ctx = npu_block_current;
		if (!ctx || !ctx->ub)
			::npu_cc::trap("TPipe::InitBuffer: no unified buffer (no block context)");
		if (bytes > ctx->ub_size - used_)
			::npu_cc::trap("TPipe::InitBuffer: %u x %u bytes need %llu bytes of unified buffer, "
				       "%u of %u are left", num, len, (unsigned long long)bytes,
				       ctx->ub_size - used_, ctx->ub_size);
		uint8_t *p = (uint8_t *)ctx->ub + used_;
		used_ += (uint32_t)bytes;
		return p;
	}
	uint32_t used_ = 0;
};

/* ---- DataCopy -------------------------------------------------------------- */

namespace detail {
template <class T> inline void ub_check(const LocalTensor<T> &t, uint32_t count, const char *what)
{
	if ((uintptr_t)t.GetPhyAddr() % 32)
		::npu_cc::trap("%s: unified buffer address %p is not 32-byte aligned", what,
			       (const void *)t.GetPhyAddr());
	if (count > t.GetSize())
		::npu_cc::trap("%s: %u elements, the local tensor holds %u", what, count, t.GetSize());
}

template <class T> inline void copy_check(uint32_t count)
{
	uint64_t bytes = (uint64_t)count * sizeof(T);
	if (bytes % 32)
		::npu_cc::trap("DataCopy: %u elements are %llu bytes, not a multiple of 32", count,
			       (unsigned long long)bytes);
}
} // namespace detail

template <class T>
__aicore__ inline void DataCopy(const LocalTensor<T> &dst, const GlobalTensor<T> &src, const uint32_t count)
{
	detail::copy_check<T>(count);
	detail::ub_check(dst, count, "DataCopy");
	std::memcpy(dst.GetPhyAddr(), src.GetPhyAddr(), (size_t)count * sizeof(T));
}

template <class T>
__aicore__ inline void DataCopy(const GlobalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count)
{
	detail::copy_check<T>(count);
	detail::ub_check(src, count, "DataCopy");
	std::memcpy(dst.GetPhyAddr(), src.GetPhyAddr(), (size_t)count * sizeof(T));
}

template <class T>
__aicore__ inline void DataCopy(const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint32_t count)
{
	detail::copy_check<T>(count);
	detail::ub_check(dst, count, "DataCopy");
	detail::ub_check(src, count, "DataCopy");
	std::memmove(dst.GetPhyAddr(), src.GetPhyAddr(), (size_t)count * sizeof(T));
}

/* ---- elementwise operations -------------------------------------------- */

namespace detail {
template <class T> inline uint32_t vcount(const LocalTensor<T> &t, int32_t count, const char *what)
{
	if (count < 0)
		::npu_cc::trap("%s: count %d is negative", what, count);
	ub_check(t, (uint32_t)count, what);
	return (uint32_t)count;
}

template <class T, class F>
inline void binary(const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b,
		   int32_t count, const char *what, F f)
{
	uint32_t n = vcount(dst, count, what);
	vcount(a, count, what);
	vcount(b, count, what);
	T *d = dst.GetPhyAddr();
	const T *x = a.GetPhyAddr(), *y = b.GetPhyAddr();
	for (uint32_t i = 0; i < n; i++) {
		T u = x[i], v = y[i];
		d[i] = ::npu_cc::store<T>(f((::npu_cc::calc_t<T>)u, (::npu_cc::calc_t<T>)v),
					  ::npu_cc::finite_in(u) && ::npu_cc::finite_in(v));
	}
}

template <class T, class F>
inline void unary(const LocalTensor<T> &dst, const LocalTensor<T> &a, int32_t count, const char *what, F f)
{
	uint32_t n = vcount(dst, count, what);
	vcount(a, count, what);
	T *d = dst.GetPhyAddr();
	const T *x = a.GetPhyAddr();
	for (uint32_t i = 0; i < n; i++) {
		T u = x[i];
		d[i] = ::npu_cc::store<T>(f((::npu_cc::calc_t<T>)u), ::npu_cc::finite_in(u));
	}
}

template <class C> inline C vmax(C a, C b)
{
	if constexpr (std::is_floating_point<C>::value)
		if (std::isnan(a) || std::isnan(b))
			return a + b;
	return a > b ? a : b;
}

template <class C> inline C vmin(C a, C b)
{
	if constexpr (std::is_floating_point<C>::value)
		if (std::isnan(a) || std::isnan(b))
			return a + b;
	return a < b ? a : b;
}

template <class T> struct fp_only {
	static_assert(::npu_cc::is_fp<T>::value, "this operation takes half or float only");
};
template <class T> struct num_only {
	static_assert(::npu_cc::is_fp<T>::value || std::is_same<T, int16_t>::value ||
			      std::is_same<T, int32_t>::value,
		      "this operation takes half, float, int16_t or int32_t only");
};
} // namespace detail

#define NPU_CC_BINARY(NAME, CHECK, EXPR)                                                        \
	template <class T>                                                                      \
	__aicore__ inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src0,      \
				    const LocalTensor<T> &src1, const int32_t &count)           \
	{                                                                                       \
		(void)sizeof(detail::CHECK<T>);                                                 \
		detail::binary(dst, src0, src1, count, #NAME,                                   \
			       [](::npu_cc::calc_t<T> a, ::npu_cc::calc_t<T> b) { return EXPR; }); \
	}

NPU_CC_BINARY(Add, num_only, (::npu_cc::calc_t<T>)(a + b))
NPU_CC_BINARY(Sub, num_only, (::npu_cc::calc_t<T>)(a - b))
NPU_CC_BINARY(Mul, num_only, (::npu_cc::calc_t<T>)(a * b))
NPU_CC_BINARY(Div, fp_only, (::npu_cc::calc_t<T>)(a / b))
NPU_CC_BINARY(Max, num_only, detail::vmax(a, b))
NPU_CC_BINARY(Min, num_only, detail::vmin(a, b))
#undef NPU_CC_BINARY

#define NPU_CC_UNARY(NAME, CHECK, EXPR)                                                         \
	template <class T>                                                                      \
	__aicore__ inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src,       \
				    const int32_t &count)                                       \
	{                                                                                       \
		(void)sizeof(detail::CHECK<T>);                                                 \
		detail::unary(dst, src, count, #NAME, [](::npu_cc::calc_t<T> a) { return EXPR; }); \
	}

NPU_CC_UNARY(Abs, fp_only, std::fabs(a))
NPU_CC_UNARY(Exp, fp_only, std::exp(a))
NPU_CC_UNARY(Ln, fp_only, std::log(a))
NPU_CC_UNARY(Sqrt, fp_only, std::sqrt(a))
NPU_CC_UNARY(Relu, num_only, detail::vmax(a, (::npu_cc::calc_t<T>)0))
#undef NPU_CC_UNARY

#define NPU_CC_SCALAR(NAME, EXPR)                                                               \
	template <class T>                                                                      \
	__aicore__ inline void NAME(const LocalTensor<T> &dst, const LocalTensor<T> &src,       \
				    const T &scalarValue, const int32_t &count)                 \
	{                                                                                       \
		(void)sizeof(detail::num_only<T>);                                              \
		::npu_cc::calc_t<T> s = (::npu_cc::calc_t<T>)scalarValue;                       \
		bool sfin = ::npu_cc::finite_in(scalarValue);                                   \
		uint32_t n = detail::vcount(dst, count, #NAME);                                 \
		detail::vcount(src, count, #NAME);                                              \
		T *d = dst.GetPhyAddr();                                                        \
		const T *x = src.GetPhyAddr();                                                  \
		for (uint32_t i = 0; i < n; i++) {                                              \
			::npu_cc::calc_t<T> a = (::npu_cc::calc_t<T>)x[i];                      \
			d[i] = ::npu_cc::store<T>((::npu_cc::calc_t<T>)(EXPR),                  \
						  sfin && ::npu_cc::finite_in(x[i]));           \
		}                                                                               \
	}

NPU_CC_SCALAR(Adds, a + s)
NPU_CC_SCALAR(Muls, a * s)
NPU_CC_SCALAR(Maxs, detail::vmax(a, s))
NPU_CC_SCALAR(Mins, detail::vmin(a, s))
#undef NPU_CC_SCALAR

template <class T>
__aicore__ inline void Duplicate(const LocalTensor<T> &dst, const T &scalarValue, const int32_t &count)
{
	uint32_t n = detail::vcount(dst, count, "Duplicate");
	T *d = dst.GetPhyAddr();
	for (uint32_t i = 0; i < n; i++)
		d[i] = scalarValue;
}

/* ---- Cast -------------------------------------------------------------------- */

namespace detail {
/* x rounded to an integer by mode (CAST_NONE and CAST_RINT: to nearest even) */
inline double round_int(double x, RoundMode mode)
{
	switch (mode) {
	case RoundMode::CAST_FLOOR:
		return std::floor(x);
	case RoundMode::CAST_CEIL:
		return std::ceil(x);
	case RoundMode::CAST_ROUND:
		return std::round(x);
	case RoundMode::CAST_TRUNC:
		return std::trunc(x);
	case RoundMode::CAST_ODD: {
		double t = std::trunc(x);
		return (t == x || std::fmod(t, 2.0) != 0.0) ? t : t + (x > 0 ? 1.0 : -1.0);
	}
	default:
		return std::nearbyint(x);
	}
}

/* the neighbour of finite F v towards +inf (up) or -inf */
template <class F> inline F fp_step(F v, bool up)
{
	using U = typename std::conditional<sizeof(F) == 2, uint16_t, uint32_t>::type;
	const U sign = (U)((U)1 << (sizeof(F) * 8 - 1));
	U b;
	std::memcpy(&b, &v, sizeof(b));
	if ((b & (U)~sign) == 0) { /* +-0 */
		b = up ? (U)1 : (U)(sign | 1u);
	} else if (!(b & sign) == up) { /* away from zero */
		b = (U)(b + 1u);
	} else {
		b = (U)(b - 1u);
	}
	std::memcpy(&v, &b, sizeof(b));
	return v;
}

/* x (exact double) to float type F by mode */
template <class F> inline F round_fp(double x, RoundMode mode)
{
	F r = (F)x; /* round to nearest even */
	double rd = (double)r;
	if (std::isnan(x) || std::isinf(x) || rd == x || mode == RoundMode::CAST_NONE ||
	    mode == RoundMode::CAST_RINT)
		return r;
	/* lo < x < hi, the neighbours of x in F (inf beyond the finite range) */
	F lo, hi;
	if (rd > x) {
		hi = r;
		lo = std::isinf(rd) ? ::npu_cc::fp_max<F>() : fp_step(r, false);
	} else {
		lo = r;
		hi = std::isinf(rd) ? (F)-::npu_cc::fp_max<F>() : fp_step(r, true);
	}
	switch (mode) {
	case RoundMode::CAST_FLOOR:
		return lo;
	case RoundMode::CAST_CEIL:
		return hi;
	case RoundMode::CAST_TRUNC:
		return x > 0 ? lo : hi;
	case RoundMode::CAST_ROUND: {
		/* past the finite range, inf stands for max + one ulp (IEEE's overflow threshold) */
		double mx = (double)::npu_cc::fp_max<F>();
		double beyond = mx + (mx - (double)fp_step(::npu_cc::fp_max<F>(), false));
		double dl = x - (std::isinf((double)lo) ? -beyond : (double)lo);
		double dh = (std::isinf((double)hi) ? beyond : (double)hi) - x;
		if (dl == dh)
			return x > 0 ? hi : lo;
		return dl < dh ? lo : hi;
	}
	case RoundMode::CAST_ODD: {
		using U = typename std::conditional<sizeof(F) == 2, uint16_t, uint32_t>::type;
		U b;
		std::memcpy(&b, &lo, sizeof(b));
		return (b & 1u) ? lo : hi;
	}
	default:
		return r;
	}
}

template <class D, class S> inline D cast_one(S v, RoundMode mode)
{
	double x = (double)v;
	if constexpr (::npu_cc::is_fp<D>::value) {
		D r = round_fp<D>(x, mode);
		return ::npu_cc::store<D>((::npu_cc::calc_t<D>)r, !std::isinf(x) && !std::isnan(x));
	} else {
		/* to an integer: rounded by mode, saturated, nan -> 0 */
		if (std::isnan(x))
			return 0;
		double r = round_int(x, mode);
		if (r >= (double)std::numeric_limits<D>::max())
			return std::numeric_limits<D>::max();
		if (r <= (double)std::numeric_limits<D>::lowest())
			return std::numeric_limits<D>::lowest();
		return (D)r;
	}
}
} // namespace detail

template <class D, class S>
__aicore__ inline void Cast(const LocalTensor<D> &dst, const LocalTensor<S> &src, const RoundMode &roundMode,
			    const uint32_t count)
{
	static_assert((::npu_cc::is_fp<D>::value || std::is_integral<D>::value) &&
			      (::npu_cc::is_fp<S>::value || std::is_integral<S>::value),
		      "Cast: half, float and integer types only");
	if (count > 0x7fffffffu)
		::npu_cc::trap("Cast: count %u is too large", count);
	detail::vcount(dst, (int32_t)count, "Cast");
	detail::vcount(src, (int32_t)count, "Cast");
	D *d = dst.GetPhyAddr();
	const S *s = src.GetPhyAddr();
	for (uint32_t i = 0; i < count; i++)
		d[i] = detail::cast_one<D, S>(s[i], roundMode);
}

/* Synchronisation is implicit here: every operation completes before it returns. */
__aicore__ inline void PipeBarrierAll() {}
template <int pipe> __aicore__ inline void PipeBarrier() {}

} // namespace AscendC

/* the vendor's block variables (after everything above, which uses the names as fields) */
#define block_idx (::AscendC::GetBlockIdx())
#define block_num (::AscendC::GetBlockNum())

#include "npu_cc.h"

#endif /* NPU_ASCENDC_KERNEL_OPERATOR_H */
