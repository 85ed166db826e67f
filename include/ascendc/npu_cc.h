// SPDX-License-Identifier: MIT
/*
 * include/ascendc/npu_cc.h - what npu-cc's generated code stands on: kernel
 * parameter layout, entry trampolines and their metadata records (device
 * pass), the <<<>>> launcher (host pass), and the CPU-debug runner.
 * kernel_operator.h includes it at its end (it uses the traps and the block
 * context from there); npu-cc forces kernel_operator.h into every kernel
 * source (-include), so a source that does not include it still gets both.
 *
 * Parameter layout (the device ABI, Documentation/npu-cc.rst): a kernel's
 * parameters travel in one argument block, each at the next 8-byte boundary
 * after the previous parameter (offset 0 for the first) - the rule of the
 * runtime's aclrtKernelArgsAppend. Every parameter must be trivially
 * copyable; pointers are 8 bytes, so each of the vendor's usual parameters
 * (pointers, int32, float, half) takes one 8-byte slot.
 *
 * Device pass (__NPU_DEVICE__): npu-cc appends NPU_CC_KERNEL(K) for each
 * __global__ kernel K of the source: an exported extern "C" void
 * __npu_entry_K(const void *args) that unpacks the block and calls K, and a
 * struct npu_kernel_rec in section .npu_kernels. A <<<>>> launch reached in
 * device code traps.
 *
 * Host pass (__NPU_HOST__): K<<<blockDim, l2ctrl, stream>>>(args...) is
 * rewritten by npu-cc to ::npu_cc::launch(K, "K", blockDim, l2ctrl,
 * stream)(args...): the launcher converts each argument to K's parameter
 * type (any object pointer is accepted for a GM_ADDR / void* parameter, as
 * the vendor's stub maps uint8_t* to void*), packs the argument block and
 * calls the runtime:
 *	aclrtBinaryLoadFromData(fatbin, size, NULL, &bin)	once per translation unit
 *	aclrtBinaryGetFunction(bin, "K", &func)
 *	aclrtLaunchKernelWithHostArgs(func, blockDim, stream, NULL, block, size, NULL, 0)
 * and returns 0 or the aclError as uint32_t (so static_cast<int32_t>(K<<<...>>>(...))
 * compiles). The three are declared here under their symbol names with
 * pointer-only prototypes (asm labels), so this header needs no acl header
 * and does not clash with acl_rt.h's declarations. The translation unit's
 * device binary is embedded by npu-cc with .incbin between the local labels
 * __npu_fatbin_start and __npu_fatbin_end, and npu-cc defines
 * npu_cc::tu<>::binary() after the source.
 */
#ifndef NPU_ASCENDC_NPU_CC_H
#define NPU_ASCENDC_NPU_CC_H

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

#include "npu_block.h"
#include "npu_fatbin.h"

namespace npu_cc {

/* ---- parameter layout --------------------------------------------------- */

constexpr uint32_t align8(uint32_t x) { return (x + 7u) & ~7u; }

template <class T> constexpr uint16_t param_kind()
{
	if (std::is_pointer<T>::value)
		return NPU_PARAM_POINTER;
	if (std::is_floating_point<T>::value || std::is_same<T, _Float16>::value)
		return NPU_PARAM_FLOAT;
	if (std::is_enum<T>::value || std::is_same<T, bool>::value)
		return NPU_PARAM_INT;
	if (std::is_integral<T>::value)
		return std::is_signed<T>::value ? NPU_PARAM_INT : NPU_PARAM_UINT;
	return NPU_PARAM_OTHER;
}

template <class... P> struct sig {
	static constexpr uint32_t count = sizeof...(P);
	static constexpr uint32_t size_of[count + 1] = {(uint32_t)sizeof(P)..., 0};
	static constexpr uint16_t kind_of[count + 1] = {param_kind<P>()..., 0};
	static constexpr uint32_t offset(uint32_t i)
	{
		uint32_t o = 0;
		for (uint32_t j = 0; j < i; j++)
			o = align8(o + size_of[j]);
		return o;
	}
	static constexpr uint32_t args_size() { return count ? align8(offset(count - 1) + size_of[count - 1]) : 0; }
	static_assert((... && std::is_trivially_copyable<P>::value),
		      "npu-cc: kernel parameters must be trivially copyable");
	static_assert(count <= NPU_KREC_PARAMS_MAX, "npu-cc: too many kernel parameters");
};

template <class F> struct sig_of;
template <class... P> struct sig_of<void(P...)> {
	using type = sig<P...>;
};

template <class T> inline T load(const unsigned char *p)
{
	T v;
	std::memcpy((void *)&v, p, sizeof(v));
	return v;
}

template <class... P, size_t... I>
inline void invoke_slots(void (*k)(P...), const unsigned char *a, std::index_sequence<I...>)
{
	(void)a;
	k(load<P>(a + sig<P...>::offset((uint32_t)I))...);
}

/* An entry trampoline's body: K's parameters from the argument block. */
template <class... P> inline void invoke(void (*k)(P...), const void *args)
{
	invoke_slots(k, (const unsigned char *)args, std::index_sequence_for<P...>{});
}

/* The metadata record of kernel type F (void(P...)) named name, entry entry. */
template <class F, size_t N, size_t M>
constexpr struct npu_kernel_rec make_rec(const char (&name)[N], const char (&entry)[M])
{
	static_assert(N <= NPU_KREC_NAME_MAX, "npu-cc: kernel name too long");
	static_assert(M <= NPU_KREC_ENTRY_MAX, "npu-cc: kernel name too long");
	using S = typename sig_of<F>::type;
	struct npu_kernel_rec r = {};
	r.magic = NPU_KREC_MAGIC;
	r.version = NPU_KREC_VERSION;
	r.rec_size = (uint16_t)sizeof(struct npu_kernel_rec);
	for (size_t i = 0; i < N; i++)
		r.name[i] = name[i];
	for (size_t i = 0; i < M; i++)
		r.entry[i] = entry[i];
	r.core_type = NPU_CORE_VECTOR;
	r.param_count = S::count;
	r.args_size = S::args_size();
	for (uint32_t i = 0; i < S::count; i++) {
		r.params[i].offset = S::offset(i);
		r.params[i].size = (uint16_t)S::size_of[i];
		r.params[i].kind = S::kind_of[i];
	}
	return r;
}

/* an argument as the kernel's parameter type P: a GM_ADDR / void* takes any pointer */
template <class P, class A> inline P convert(A &&a)
{
	using D = typename std::decay<A>::type;
	using PT = typename std::remove_cv<typename std::remove_pointer<P>::type>::type;
	if constexpr (std::is_pointer<P>::value && std::is_pointer<D>::value &&
		      (std::is_void<PT>::value || std::is_same<PT, uint8_t>::value ||
		       std::is_same<PT, int8_t>::value || std::is_same<PT, char>::value))
		return (P)(const_cast<void *>((const volatile void *)a));
	else
		return a;
}

template <class... P> inline void pack(unsigned char *blob, const P &...v)
{
	uint32_t i = 0;
	(void)blob;
	(void)i;
	(..., (std::memcpy(blob + sig<P...>::offset(i), (const void *)&v, sizeof(P)), i++));
}

} // namespace npu_cc

/* the device pass's per-kernel entry and record (npu-cc appends one per kernel) */
#define NPU_CC_KERNEL(K)                                                                         \
	extern "C" __attribute__((visibility("default"), used)) void __npu_entry_##K(const void *args) \
	{                                                                                        \
		::npu_cc::invoke(K, args);                                                       \
	}                                                                                        \
	__attribute__((section(".npu_kernels"), used, aligned(8))) constexpr struct npu_kernel_rec \
		__npu_krec_##K = ::npu_cc::make_rec<decltype(K)>(#K, "__npu_entry_" #K);

#if defined(__NPU_HOST__)
namespace npu_cc {
namespace abi {
int bin_load_from_data(const void *data, size_t length, const void *options, void **bin)
	__asm__("aclrtBinaryLoadFromData");
int bin_get_function(void *bin, const char *name, void **func) __asm__("aclrtBinaryGetFunction");
int launch_with_host_args(void *func, uint32_t blockDim, void *stream, void *cfg, void *args,
			  size_t argsSize, void *placeHolders, size_t placeHolderNum)
	__asm__("aclrtLaunchKernelWithHostArgs");
} // namespace abi

namespace {
/*
 * This translation unit's device binary, loaded once: tu<>::binary() is
 * defined after the source by npu-cc when the source launches kernels (a
 * template, so a source without launches neither needs nor misses it).
 */
template <int = 0> struct tu {
	static void *binary(uint32_t *err);
};

template <class... P> struct launcher {
	void (*kernel)(P...);
	const char *name;
	uint32_t block_dim;
	void *stream;

	template <class... A> uint32_t operator()(A &&...a) const
	{
		static_assert(sizeof...(A) == sizeof...(P), "npu-cc: <<<>>> launch with the wrong number of arguments");
		using S = sig<P...>;
		alignas(8) unsigned char blob[S::args_size() ? S::args_size() : 8] = {};
		pack<P...>(blob, convert<P>(std::forward<A>(a))...);
		uint32_t err = 0;
		void *bin = tu<sizeof...(P) * 0>::binary(&err);
		if (!bin)
			return err;
		void *func = nullptr;
		int ret = abi::bin_get_function(bin, name, &func);
		if (ret)
			return (uint32_t)ret;
		return (uint32_t)abi::launch_with_host_args(func, block_dim, stream, nullptr, blob, S::args_size(),
							    nullptr, 0);
	}
};

template <class... P>
inline launcher<P...> launch(void (*kernel)(P...), const char *name, uint32_t blockDim, void *l2ctrl, void *stream)
{
	(void)l2ctrl;
	return launcher<P...>{kernel, name, blockDim, stream};
}

/* the body of tu<>::binary(): load [start, end) once; a failed load is retried by the next launch */
inline void *load_binary(const unsigned char *start, const unsigned char *end, uint32_t *err)
{
	static void *bin;
	static char busy;
	void *b = __atomic_load_n(&bin, __ATOMIC_ACQUIRE);
	if (b)
		return b;
	while (__atomic_test_and_set(&busy, __ATOMIC_ACQUIRE))
		;
	b = __atomic_load_n(&bin, __ATOMIC_ACQUIRE);
	if (!b) {
		int ret = abi::bin_load_from_data(start, (size_t)(end - start), nullptr, &b);
		if (ret) {
			*err = (uint32_t)ret;
			b = nullptr;
		} else {
			__atomic_store_n(&bin, b, __ATOMIC_RELEASE);
		}
	}
	__atomic_clear(&busy, __ATOMIC_RELEASE);
	return b;
}
} // namespace
} // namespace npu_cc
#endif /* __NPU_HOST__ */

#if defined(__NPU_DEVICE__)
namespace npu_cc {
template <class... P> struct device_launcher {
	template <class... A> uint32_t operator()(A &&...) const
	{
		trap("a kernel launch (<<<>>>) in device code");
	}
};

template <class... P>
inline device_launcher<P...> launch(void (*)(P...), const char *, uint32_t, void *, void *)
{
	return device_launcher<P...>{};
}
} // namespace npu_cc
#endif /* __NPU_DEVICE__ */

#if defined(NPU_CPU_DEBUG)
namespace npu_cc {
/*
 * Run kernel k's blockDim blocks one after the other on this thread, each
 * with its own block context and unified buffer (printf goes to stdout).
 */
template <class... P, class... A> inline void cpu_run(uint32_t blockDim, void (*k)(P...), A &&...a)
{
	struct npu_block_ctx *saved = npu_block_current;
	void *ub = std::aligned_alloc(64, NPU_UB_SIZE);
	for (uint32_t b = 0; b < blockDim; b++) {
		struct npu_block_ctx ctx;
		npu_block_ctx_init(&ctx, b, blockDim, ub, nullptr, 0);
		npu_block_current = &ctx;
		k(convert<P>(a)...);
	}
	npu_block_current = saved;
	std::free(ub);
}
} // namespace npu_cc
#endif /* NPU_CPU_DEBUG */

#endif /* NPU_ASCENDC_NPU_CC_H */
