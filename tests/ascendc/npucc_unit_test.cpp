// SPDX-License-Identifier: GPL-2.0
/*
 * tests/ascendc/npucc_unit_test.cpp - kernel_operator.h on the host
 * (NPU_CPU_DEBUG): our kernels of vec_kernels.cpp and scalar_kernels.cpp
 * called directly on host buffers, block by block, and each vector
 * operation against an independent reference (half rounding by integer
 * arithmetic, not by the compiler's _Float16) on edge values: zeros,
 * subnormals, the largest half, inf, nan, overflow. Traps (ud2) are
 * SIGILL, caught here, with their message in the block context.
 * Built and run by make npucc-check (tools/npucc-check).
 */
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

#include "kernel_operator.h"
#include "tap.h"

using namespace AscendC;

extern "C" void vec_add_half(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t len, uint32_t tiles);
extern "C" void vec_add_float(float *x, float *y, float *z, uint32_t len, uint32_t tiles);
extern "C" void ub_overflow(uint32_t bytes);
extern "C" void copy_count(GM_ADDR src, uint32_t count);
extern "C" void deque_empty();
extern "C" void inc_op(uint32_t *x);
extern "C" void trap_op();
extern "C" void write_op(int *devPtr, int value);
extern "C" void hello_op();
extern "C" void axpy_op(float *a, float *b, float *d, float alpha, uint32_t n);
extern "C" void mixed_op(float f, int32_t i, GM_ADDR p, half h, uint8_t c, double d, int64_t l, uint64_t *out);

/* ---- reference arithmetic ------------------------------------------------ */

/* the bits of a value as another type of the same size */
template <class To, class From> static To bits(From v)
{
	static_assert(sizeof(To) == sizeof(From), "sizes");
	To t;
	memcpy(&t, &v, sizeof(t));
	return t;
}

static uint32_t f2u(float f) { return bits<uint32_t>(f); }
static float u2f(uint32_t u) { return bits<float>(u); }
static uint16_t h2u(half h) { return bits<uint16_t>(h); }
static half u2h(uint16_t u) { return bits<half>(u); }

/* binary16 -> binary32, exactly, by fields */
static float ref_h2f(uint16_t h)
{
	uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
	if (e == 31)
		return u2f(s | 0x7f800000u | (m << 13));
	if (e == 0)
		return (s ? -1.0f : 1.0f) * std::ldexp((float)m, -24);
	return u2f(s | ((e + 112) << 23) | (m << 13));
}

/* binary32 -> binary16, round to nearest even, by integer arithmetic */
static uint16_t ref_f2h(float f)
{
	uint32_t x = f2u(f), s = (x >> 16) & 0x8000u, e = (x >> 23) & 255, m = x & 0x7fffffu;
	if (e == 255)
		return (uint16_t)(s | 0x7c00u | (m ? 0x200u : 0));
	int32_t he = (int32_t)e - 127 + 15;
	if (he >= 31)
		return (uint16_t)(s | 0x7c00u);
	/* value = mant * 2^(max(e,1) - 150); the half's significand counts units of
	 * 2^(he - 25) when normal, 2^-24 when subnormal: drop `shift` bits */
	uint64_t mant = e ? (m | 0x800000u) : m;
	int32_t emin1 = e ? (int32_t)e : 1;
	int32_t shift = he > 0 ? 13 : 126 - emin1;
	if (shift > 40)
		return (uint16_t)s;
	uint64_t q = mant >> shift, rem = mant & ((1ull << shift) - 1), halfway = 1ull << (shift - 1);
	if (rem > halfway || (rem == halfway && (q & 1)))
		q++;
	if (he <= 0)
		return (uint16_t)(s | q); /* a carry to 1024 is the smallest normal's encoding */
	uint32_t bits = (uint32_t)(he << 10) + (uint32_t)(q - 1024); /* q == 2048 carries into he */
	if (bits >= 0x7c00u)
		return (uint16_t)(s | 0x7c00u);
	return (uint16_t)(s | bits);
}

static bool same_half(uint16_t a, uint16_t b)
{
	bool na = (a & 0x7c00) == 0x7c00 && (a & 0x3ff), nb = (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
	return na || nb ? na == nb : a == b;
}

static bool same_float(float a, float b)
{
	return std::isnan(a) || std::isnan(b) ? std::isnan(a) && std::isnan(b) : f2u(a) == f2u(b);
}

/* ---- a block context with a unified buffer and a dump area ------------------- */

struct block {
	struct npu_block_ctx ctx = {};
	std::vector<char> dump;
	void *ub;

	explicit block(uint32_t idx = 0, uint32_t num = 1, uint32_t dump_size = 4096) : dump(dump_size)
	{
		ub = std::aligned_alloc(64, NPU_UB_SIZE);
		npu_block_ctx_init(&ctx, idx, num, ub, dump_size ? dump.data() : nullptr, dump_size);
		npu_block_current = &ctx;
	}
	~block()
	{
		npu_block_current = nullptr;
		std::free(ub);
	}
	std::vector<std::string> records(uint16_t kind) const
	{
		std::vector<std::string> v;
		for (const struct npu_rec *r = npu_rec_first(&ctx); r; r = npu_rec_next(&ctx, r))
			if (r->kind == kind)
				v.emplace_back(npu_rec_payload(r), r->len);
		return v;
	}
};

/* edge values for half operands */
static const uint16_t HALF_EDGES[] = {
	0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3800, 0x3555,
	0x7bff, 0xfbff, 0x7800, 0x4248, 0x7c00, 0xfc00, 0x7e00, 0x5640, 0xc900, 0x1400,
};
static const float FLOAT_EDGES[] = {
	0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 3.0f, 1e-45f, -1e-45f, 1.17549435e-38f, 3.4028235e38f,
	-3.4028235e38f, 1e30f, INFINITY, -INFINITY, NAN, 2.5f, -7.25f, 1e-3f,
};
constexpr int NH = sizeof(HALF_EDGES) / sizeof(HALF_EDGES[0]);
constexpr int NF = sizeof(FLOAT_EDGES) / sizeof(FLOAT_EDGES[0]);

/* ---- the reference rounding itself ------------------------------------------ */

TEST(reference_rounding_agrees_with_fields)
{
	/* every half converts to float and back unchanged, by both paths */
	int bad = 0;
	for (uint32_t u = 0; u < 65536; u++) {
		float f = ref_h2f((uint16_t)u);
		bad += !same_half(ref_f2h(f), (uint16_t)u);
		bad += !same_float(f, (float)u2h((uint16_t)u));
	}
	CHECK(bad == 0, "%d halves do not round-trip", bad);
	/* ties to even, subnormal ties, overflow threshold */
	CHECK(ref_f2h(1.0f + 1.0f / 2048) == 0x3c00, "1+2^-11 -> %#x", ref_f2h(1.0f + 1.0f / 2048));
	CHECK(ref_f2h(1.0f + 3.0f / 2048) == 0x3c02, "1+3*2^-11 -> %#x", ref_f2h(1.0f + 3.0f / 2048));
	CHECK(ref_f2h(65519.0f) == 0x7bff && ref_f2h(65520.0f) == 0x7c00, "overflow threshold");
	CHECK(ref_f2h(std::ldexp(1.0f, -25)) == 0 && ref_f2h(std::ldexp(3.0f, -26)) == 1, "subnormal ties");
}

/* ---- kernels ------------------------------------------------------------------ */

TEST(add_custom_half_bit_exact)
{
	const uint32_t len = 8 * 2048, blocks = 8;
	std::vector<uint16_t> x(len), y(len), z(len, 0xffff);
	uint32_t seed = 12345;
	for (uint32_t i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		x[i] = (uint16_t)(seed >> 8);
		seed = seed * 1103515245u + 12345u;
		y[i] = (uint16_t)(seed >> 8);
		if (i % 97 == 0)
			x[i] = 0x7bff, y[i] = 0x7a00; /* overflow to inf */
	}
	bool trapped = tap::trap_run([&] {
		for (uint32_t b = 0; b < blocks; b++) {
			block blk(b, blocks, 0);
			vec_add_half((GM_ADDR)x.data(), (GM_ADDR)y.data(), (GM_ADDR)z.data(), len, 4);
		}
	});
	CHECK(!trapped, "trapped: %s", npu_block_current ? npu_block_current->trap_msg : "");
	int bad = 0;
	for (uint32_t i = 0; i < len; i++) {
		uint16_t want = ref_f2h(ref_h2f(x[i]) + ref_h2f(y[i]));
		if (!same_half(z[i], want) && bad++ < 5)
			std::printf("# [%u] %#x + %#x = %#x, want %#x\n", i, x[i], y[i], z[i], want);
	}
	CHECK(bad == 0, "%d of %u halves differ", bad, len);
}

TEST(add_float_with_cpu_run)
{
	const uint32_t len = 4 * 1024;
	std::vector<float> x(len), y(len), z(len, -1.0f);
	for (uint32_t i = 0; i < len; i++)
		x[i] = (float)i * 0.37f - 100.0f, y[i] = 1.0f / (float)(i + 1);
	npu_cc::cpu_run(4, vec_add_float, x.data(), y.data(), z.data(), len, 4u);
	int bad = 0;
	for (uint32_t i = 0; i < len; i++)
		bad += !same_float(z[i], x[i] + y[i]);
	CHECK(bad == 0, "%d floats differ", bad);
}

TEST(block_idx_and_block_num)
{
	uint32_t x[6] = {10, 20, 30, 40, 50, 60};
	npu_cc::cpu_run(5, inc_op, x);
	CHECK(x[0] == 11 && x[4] == 51 && x[5] == 60, "%u %u %u", x[0], x[4], x[5]);
	uint64_t out[8] = {};
	{
		block blk(3, 7);
		CHECK(GetBlockIdx() == 3 && GetBlockNum() == 7, "%ld %ld", (long)GetBlockIdx(), (long)GetBlockNum());
		mixed_op(1.5f, -2, (GM_ADDR)out, (half)0.5f, 200, 2.25, -3, out);
	}
	CHECK(out[7] == ((uint64_t)3 << 32 | 7), "%#llx", (unsigned long long)out[7]);
	/* no context: block 0 of 1 */
	CHECK(GetBlockIdx() == 0 && GetBlockNum() == 1, "without a context");
}

TEST(axpy_scalar_kernel)
{
	float a[5] = {1, 2, 3, 4, 5}, b[5] = {1, 1, 2, 2, -1}, d[5] = {};
	npu_cc::cpu_run(1, axpy_op, a, b, d, 0.5f, 5u);
	CHECK(d[0] == 1.5f && d[2] == 4.0f && d[4] == 4.5f, "%g %g %g", d[0], d[2], d[4]);
}

TEST(printf_records)
{
	int mem[4] = {};
	std::vector<std::string> r;
	{
		block blk(2, 3);
		write_op(mem, 7);
		r = blk.records(NPU_REC_PRINTF);
		const struct npu_rec *rec = npu_rec_first(&blk.ctx);
		CHECK(rec && rec->blk_idx == 2 && rec->kind == NPU_REC_PRINTF, "record header");
		CHECK(blk.ctx.dump_used == sizeof(struct npu_rec) + 24, "dump_used %u", blk.ctx.dump_used);
	}
	CHECK(mem[2] == 7, "write %d", mem[2]);
	CHECK(r.size() == 1 && r[0] == "Source data: 7 of 3\n", "record '%s'", r.empty() ? "" : r[0].c_str());
	{
		/* a full dump area drops records and says so */
		block blk(0, 1, 64);
		for (int i = 0; i < 4; i++)
			AscendC::printf("%s %d %f\n", "line", i, (half)1.5f);
		r = blk.records(NPU_REC_PRINTF);
		CHECK(r.size() == 2 && r[1] == "line 1 1.500000\n", "%zu records", r.size());
		CHECK(blk.ctx.flags & NPU_BLOCK_DUMP_LOST, "flags %#x", blk.ctx.flags);
	}
}

TEST(cpu_debug_printf_to_stdout)
{
	/* no dump area in NPU_CPU_DEBUG: the text goes to stdout, block after block */
	int p[2];
	CHECK(pipe(p) == 0, "pipe");
	std::fflush(stdout);
	int saved = dup(1);
	dup2(p[1], 1);
	npu_cc::cpu_run(2, hello_op);
	std::fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(p[1]);
	char buf[128] = {};
	ssize_t n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	CHECK(n > 0 && std::string(buf) == "Hello World\nHello World\n", "stdout '%s'", buf);
}

static std::string trap_of(const std::function<void()> &f, bool *trapped)
{
	block blk;
	*trapped = tap::trap_run(f);
	std::vector<std::string> r = blk.records(NPU_REC_TRAP);
	std::string msg = blk.ctx.trap_msg;
	/* a header trap leaves its message twice; asm("trap") leaves none */
	if (*trapped && (msg.empty() ? !r.empty() : r.size() != 1 || r[0] != msg))
		return "(no matching trap record) " + msg;
	return msg;
}

TEST(asm_trap_is_sigill)
{
	bool t;
	std::string m = trap_of([] { trap_op(); }, &t);
	CHECK(t && m.empty(), "trapped %d msg '%s'", t, m.c_str());
}

TEST(ub_overflow_traps)
{
	bool t;
	std::string m = trap_of([] { ub_overflow(NPU_UB_SIZE / 2); }, &t);
	CHECK(!t, "all of the UB: trapped '%s'", m.c_str());
	m = trap_of([] { ub_overflow(NPU_UB_SIZE / 2 + 1); }, &t);
	CHECK(t && m.find("TPipe::InitBuffer") != std::string::npos && m.find("196608") != std::string::npos,
	      "trapped %d '%s'", t, m.c_str());
}

TEST(misaligned_datacopy_traps)
{
	std::vector<half> src(2048);
	bool t;
	std::string m = trap_of([&] { copy_count((GM_ADDR)src.data(), 16); }, &t);
	CHECK(!t, "32 bytes: trapped '%s'", m.c_str());
	m = trap_of([&] { copy_count((GM_ADDR)src.data(), 48); }, &t);
	CHECK(!t, "96 bytes: trapped '%s'", m.c_str());
	for (uint32_t count : {15u, 8u, 24u, 1u}) {
		m = trap_of([&] { copy_count((GM_ADDR)src.data(), count); }, &t);
		CHECK(t && m.find("DataCopy") != std::string::npos && m.find("multiple of 32") != std::string::npos,
		      "%u halves: trapped %d '%s'", count, t, m.c_str());
	}
	/* a UB address off the 32-byte grid */
	m = trap_of([&] {
		TPipe pipe;
		TBuf<QuePosition::VECCALC> buf;
		pipe.InitBuffer(buf, 1024);
		GlobalTensor<half> g;
		g.SetGlobalBuffer(src.data(), 2048);
		DataCopy(buf.Get<half>()[1], g, 16);
	}, &t);
	CHECK(t && m.find("aligned") != std::string::npos, "trapped %d '%s'", t, m.c_str());
}

TEST(queue_misuse_traps)
{
	bool t;
	std::string m = trap_of([] { deque_empty(); }, &t);
	CHECK(t && m.find("empty") != std::string::npos, "trapped %d '%s'", t, m.c_str());
	m = trap_of([] {
		TPipe pipe;
		TQue<QuePosition::VECIN, 2> q;
		pipe.InitBuffer(q, 2, 64);
		q.AllocTensor<float>();
		q.AllocTensor<float>();
		q.AllocTensor<float>();
	}, &t);
	CHECK(t && m.find("in use") != std::string::npos, "trapped %d '%s'", t, m.c_str());
	m = trap_of([] {
		TPipe pipe;
		TQue<QuePosition::VECIN, 2> q;
		pipe.InitBuffer(q, 2, 64);
		LocalTensor<float> a = q.AllocTensor<float>();
		q.FreeTensor(a);
		q.FreeTensor(a);
	}, &t);
	CHECK(t && m.find("not allocated") != std::string::npos, "trapped %d '%s'", t, m.c_str());
	m = trap_of([] {
		TPipe pipe;
		TQue<QuePosition::VECIN, 1> q;
		pipe.InitBuffer(q, 1, 64);
		LocalTensor<float> a = q.AllocTensor<float>();
		Add(a, a, a, 17);
	}, &t);
	CHECK(t && m.find("16") != std::string::npos, "count past the tensor: trapped %d '%s'", t, m.c_str());
}

/* ---- vector operations against the reference ---------------------------------- */

/* LocalTensors of the block's UB: n elements each at 32-byte aligned offsets */
template <class T> struct ub_vecs {
	TPipe pipe;
	TBuf<QuePosition::VECCALC> b0, b1, b2;
	LocalTensor<T> d, a, b;
	explicit ub_vecs(uint32_t n)
	{
		pipe.InitBuffer(b0, n * sizeof(T));
		pipe.InitBuffer(b1, n * sizeof(T));
		pipe.InitBuffer(b2, n * sizeof(T));
		d = b0.Get<T>(), a = b1.Get<T>(), b = b2.Get<T>();
	}
};

typedef float (*ref2)(float, float);
typedef void (*op2h)(const LocalTensor<half> &, const LocalTensor<half> &, const LocalTensor<half> &,
		     const int32_t &);
typedef void (*op2f)(const LocalTensor<float> &, const LocalTensor<float> &, const LocalTensor<float> &,
		     const int32_t &);

static float nan_max(float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : (a > b ? a : b); }
static float nan_min(float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : (a < b ? a : b); }

static int check_binary_half(const char *name, op2h op, ref2 ref)
{
	block blk;
	ub_vecs<half> v(NH * NH);
	for (int i = 0; i < NH; i++)
		for (int j = 0; j < NH; j++)
			v.a.SetValue(i * NH + j, u2h(HALF_EDGES[i])), v.b.SetValue(i * NH + j, u2h(HALF_EDGES[j]));
	op(v.d, v.a, v.b, NH * NH);
	int bad = 0;
	for (int k = 0; k < NH * NH; k++) {
		uint16_t want = ref_f2h(ref(ref_h2f(h2u(v.a.GetValue(k))), ref_h2f(h2u(v.b.GetValue(k)))));
		uint16_t got = h2u(v.d.GetValue(k));
		if (!same_half(got, want) && bad++ < 3)
			std::printf("# %s(%#x, %#x) = %#x, want %#x\n", name, h2u(v.a.GetValue(k)),
				    h2u(v.b.GetValue(k)), got, want);
	}
	return bad;
}

static int check_binary_float(const char *name, op2f op, ref2 ref)
{
	block blk;
	ub_vecs<float> v(NF * NF);
	for (int i = 0; i < NF; i++)
		for (int j = 0; j < NF; j++)
			v.a.SetValue(i * NF + j, FLOAT_EDGES[i]), v.b.SetValue(i * NF + j, FLOAT_EDGES[j]);
	op(v.d, v.a, v.b, NF * NF);
	int bad = 0;
	for (int k = 0; k < NF * NF; k++) {
		float want = ref(v.a.GetValue(k), v.b.GetValue(k)), got = v.d.GetValue(k);
		if (!same_float(got, want) && bad++ < 3)
			std::printf("# %s(%g, %g) = %g, want %g\n", name, v.a.GetValue(k), v.b.GetValue(k), got, want);
	}
	return bad;
}

TEST(binary_ops_half_and_float)
{
	struct {
		const char *name;
		op2h h;
		op2f f;
		ref2 ref;
	} ops[] = {
		{"Add", Add<half>, Add<float>, [](float a, float b) { return a + b; }},
		{"Sub", Sub<half>, Sub<float>, [](float a, float b) { return a - b; }},
		{"Mul", Mul<half>, Mul<float>, [](float a, float b) { return a * b; }},
		{"Div", Div<half>, Div<float>, [](float a, float b) { return a / b; }},
		{"Max", Max<half>, Max<float>, nan_max},
		{"Min", Min<half>, Min<float>, nan_min},
	};
	for (auto &o : ops) {
		int bad = check_binary_half(o.name, o.h, o.ref);
		CHECK(bad == 0, "%s half: %d wrong", o.name, bad);
		bad = check_binary_float(o.name, o.f, o.ref);
		CHECK(bad == 0, "%s float: %d wrong", o.name, bad);
	}
}

TEST(unary_and_scalar_ops_half)
{
	struct {
		const char *name;
		void (*op)(const LocalTensor<half> &, const LocalTensor<half> &, const int32_t &);
		float (*ref)(float);
	} ops[] = {
		{"Abs", Abs<half>, [](float a) { return std::fabs(a); }},
		{"Exp", Exp<half>, [](float a) { return std::exp(a); }},
		{"Ln", Ln<half>, [](float a) { return std::log(a); }},
		{"Sqrt", Sqrt<half>, [](float a) { return std::sqrt(a); }},
		{"Relu", Relu<half>, [](float a) { return nan_max(a, 0.0f); }},
	};
	for (auto &o : ops) {
		block blk;
		ub_vecs<half> v(NH);
		for (int i = 0; i < NH; i++)
			v.a.SetValue(i, u2h(HALF_EDGES[i]));
		o.op(v.d, v.a, NH);
		int bad = 0;
		for (int i = 0; i < NH; i++) {
			uint16_t want = ref_f2h(o.ref(ref_h2f(HALF_EDGES[i]))), got = h2u(v.d.GetValue(i));
			if (!same_half(got, want) && bad++ < 3)
				std::printf("# %s(%#x) = %#x, want %#x\n", o.name, HALF_EDGES[i], got, want);
		}
		CHECK(bad == 0, "%s: %d wrong", o.name, bad);
	}
	/* vector-scalar and Duplicate */
	block blk;
	ub_vecs<half> v(NH);
	for (int i = 0; i < NH; i++)
		v.a.SetValue(i, u2h(HALF_EDGES[i]));
	half s = u2h(0x3e00); /* 1.5 */
	int bad = 0;
	Adds(v.d, v.a, s, NH);
	for (int i = 0; i < NH; i++)
		bad += !same_half(h2u(v.d.GetValue(i)), ref_f2h(ref_h2f(HALF_EDGES[i]) + 1.5f));
	Muls(v.d, v.a, s, NH);
	for (int i = 0; i < NH; i++)
		bad += !same_half(h2u(v.d.GetValue(i)), ref_f2h(ref_h2f(HALF_EDGES[i]) * 1.5f));
	Maxs(v.d, v.a, s, NH);
	for (int i = 0; i < NH; i++)
		bad += !same_half(h2u(v.d.GetValue(i)), ref_f2h(nan_max(ref_h2f(HALF_EDGES[i]), 1.5f)));
	Mins(v.d, v.a, s, NH);
	for (int i = 0; i < NH; i++)
		bad += !same_half(h2u(v.d.GetValue(i)), ref_f2h(nan_min(ref_h2f(HALF_EDGES[i]), 1.5f)));
	Duplicate(v.d, s, NH);
	for (int i = 0; i < NH; i++)
		bad += h2u(v.d.GetValue(i)) != 0x3e00;
	CHECK(bad == 0, "%d scalar results wrong", bad);
}

TEST(unary_ops_float)
{
	block blk;
	ub_vecs<float> v(NF);
	for (int i = 0; i < NF; i++)
		v.a.SetValue(i, FLOAT_EDGES[i]);
	int bad = 0;
	Exp(v.d, v.a, NF);
	for (int i = 0; i < NF; i++)
		bad += !same_float(v.d.GetValue(i), std::exp(FLOAT_EDGES[i]));
	Sqrt(v.d, v.a, NF);
	for (int i = 0; i < NF; i++)
		bad += !same_float(v.d.GetValue(i), std::sqrt(FLOAT_EDGES[i]));
	Relu(v.d, v.a, NF);
	for (int i = 0; i < NF; i++)
		bad += !same_float(v.d.GetValue(i), nan_max(FLOAT_EDGES[i], 0.0f));
	CHECK(bad == 0, "%d wrong", bad);
}

TEST(int32_ops_wrap)
{
	block blk;
	ub_vecs<int32_t> v(8);
	int32_t a[8] = {INT32_MAX, INT32_MIN, -1, 0, 7, -7, 100000, 3};
	int32_t b[8] = {1, -1, -1, 0, -9, 2, 100000, -3};
	for (int i = 0; i < 8; i++)
		v.a.SetValue(i, a[i]), v.b.SetValue(i, b[i]);
	Add(v.d, v.a, v.b, 8);
	CHECK(v.d.GetValue(0) == INT32_MIN && v.d.GetValue(1) == INT32_MAX && v.d.GetValue(4) == -2,
	      "Add %d %d %d", v.d.GetValue(0), v.d.GetValue(1), v.d.GetValue(4));
	Mul(v.d, v.a, v.b, 8);
	CHECK(v.d.GetValue(6) == (int32_t)(uint32_t)(100000ull * 100000ull) && v.d.GetValue(5) == -14, "Mul %d",
	      v.d.GetValue(6));
	Max(v.d, v.a, v.b, 8);
	CHECK(v.d.GetValue(1) == -1 && v.d.GetValue(4) == 7, "Max");
	Relu(v.d, v.a, 8);
	CHECK(v.d.GetValue(1) == 0 && v.d.GetValue(0) == INT32_MAX, "Relu");
	Adds(v.d, v.a, (int32_t)1, 8);
	CHECK(v.d.GetValue(0) == INT32_MIN, "Adds wrap");
	CHECK(blk.ctx.overflow == 0, "integer ops set no overflow bit");
}

TEST(overflow_bit_and_saturation)
{
	block blk;
	ub_vecs<half> v(16);
	for (int i = 0; i < 16; i++)
		v.a.SetValue(i, u2h(0x7800)), v.b.SetValue(i, u2h(0x7800)); /* 32768 */
	Add(v.d, v.a, v.b, 16);
	CHECK(h2u(v.d.GetValue(0)) == 0x7c00 && (blk.ctx.overflow & NPU_OVF_FLOAT), "inf, bit %#x",
	      blk.ctx.overflow);
	blk.ctx.overflow = 0;
	v.a.SetValue(0, u2h(0x7c00));
	Add(v.d, v.a, v.a, 1); /* inf + inf from an infinite input: no overflow */
	CHECK(blk.ctx.overflow == 0, "inf input set the bit");
	blk.ctx.sat_mode = NPU_SAT_ON;
	v.a.SetValue(0, u2h(0x7800));
	Add(v.d, v.a, v.b, 2);
	CHECK(h2u(v.d.GetValue(0)) == 0x7bff && (blk.ctx.overflow & NPU_OVF_FLOAT), "saturated %#x",
	      h2u(v.d.GetValue(0)));
	Muls(v.d, v.a, (half)-4.0f, 1);
	CHECK(h2u(v.d.GetValue(0)) == 0xfbff, "saturated negative %#x", h2u(v.d.GetValue(0)));
	ub_vecs<float> f(8);
	f.a.SetValue(0, 0.0f);
	Div(f.d, f.a, f.a, 1); /* 0/0 = nan -> 0 when saturating */
	CHECK(f.d.GetValue(0) == 0.0f, "0/0 saturated to %g", f.d.GetValue(0));
}

TEST(cast_round_modes)
{
	block blk;
	TPipe pipe;
	TBuf<QuePosition::VECCALC> fb, hb, ib;
	pipe.InitBuffer(fb, 256), pipe.InitBuffer(hb, 256), pipe.InitBuffer(ib, 256);
	LocalTensor<float> f = fb.Get<float>();
	LocalTensor<half> h = hb.Get<half>();
	LocalTensor<int32_t> n = ib.Get<int32_t>();
	const float tie = 1.0f + 1.0f / 2048, q3 = 1.0f + 3.0f / 4096;
	const float in[] = {tie, -tie, q3, 70000.0f, 1.0f};
	/* expected half bits per mode: NONE RINT FLOOR CEIL ROUND TRUNC ODD */
	const uint16_t want[5][7] = {
		{0x3c00, 0x3c00, 0x3c00, 0x3c01, 0x3c01, 0x3c00, 0x3c01},
		{0xbc00, 0xbc00, 0xbc01, 0xbc00, 0xbc01, 0xbc00, 0xbc01},
		{0x3c01, 0x3c01, 0x3c00, 0x3c01, 0x3c01, 0x3c00, 0x3c01},
		{0x7c00, 0x7c00, 0x7bff, 0x7c00, 0x7c00, 0x7bff, 0x7bff},
		{0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00, 0x3c00},
	};
	for (int m = 0; m < 7; m++) {
		for (int i = 0; i < 5; i++)
			f.SetValue(i, in[i]);
		Cast(h, f, (RoundMode)m, 5);
		for (int i = 0; i < 5; i++)
			CHECK(h2u(h.GetValue(i)) == want[i][m], "float %a mode %d -> %#x, want %#x", in[i], m,
			      h2u(h.GetValue(i)), want[i][m]);
	}
	/* float -> int32 */
	const float fi[] = {2.5f, -2.5f, 3e9f, -3e9f, NAN, 0.49999997f};
	const int32_t wi[6][7] = {
		{2, 2, 2, 3, 3, 2, 3},
		{-2, -2, -3, -2, -3, -2, -3},
		{INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX},
		{INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN},
		{0, 0, 0, 0, 0, 0, 0},
		{0, 0, 0, 1, 0, 0, 1},
	};
	for (int m = 0; m < 7; m++) {
		for (int i = 0; i < 6; i++)
			f.SetValue(i, fi[i]);
		Cast(n, f, (RoundMode)m, 6);
		for (int i = 0; i < 6; i++)
			CHECK(n.GetValue(i) == wi[i][m], "float %g mode %d -> %d, want %d", fi[i], m, n.GetValue(i),
			      wi[i][m]);
	}
	/* half -> float exact; int32 -> half nearest even, overflow */
	for (int i = 0; i < NH; i++)
		h.SetValue(i, u2h(HALF_EDGES[i]));
	Cast(f, h, RoundMode::CAST_NONE, NH);
	int bad = 0;
	for (int i = 0; i < NH; i++)
		bad += !same_float(f.GetValue(i), ref_h2f(HALF_EDGES[i]));
	CHECK(bad == 0, "half -> float: %d wrong", bad);
	n.SetValue(0, 65519), n.SetValue(1, 65520), n.SetValue(2, 2049), n.SetValue(3, -2051);
	blk.ctx.overflow = 0;
	Cast(h, n, RoundMode::CAST_RINT, 4);
	CHECK(h2u(h.GetValue(0)) == 0x7bff && h2u(h.GetValue(1)) == 0x7c00 && h2u(h.GetValue(2)) == 0x6800 &&
		      h2u(h.GetValue(3)) == 0xe802,
	      "int32 -> half %#x %#x %#x %#x", h2u(h.GetValue(0)), h2u(h.GetValue(1)), h2u(h.GetValue(2)),
	      h2u(h.GetValue(3)));
	CHECK(blk.ctx.overflow & NPU_OVF_FLOAT, "65520 -> inf sets the overflow bit");
}

TEST(trampoline_slots_mixed_types)
{
	/* the ArgsAppend rule: each parameter at the next 8-byte boundary */
	using S = npu_cc::sig<float, int32_t, GM_ADDR, half, uint8_t, double, int64_t, uint64_t *>;
	static_assert(S::offset(0) == 0 && S::offset(1) == 8 && S::offset(2) == 16 && S::offset(3) == 24 &&
			      S::offset(4) == 32 && S::offset(5) == 40 && S::offset(7) == 56 && S::args_size() == 64,
		      "slots");
	struct big {
		char c[12];
	};
	using B = npu_cc::sig<uint8_t, big, half>;
	static_assert(B::offset(1) == 8 && B::offset(2) == 24 && B::args_size() == 32, "a 12-byte struct");
	alignas(8) unsigned char blob[64];
	memset(blob, 0xa5, sizeof(blob)); /* padding garbage must not matter */
	uint64_t out[8] = {};
	float f = -1.25f;
	int32_t i = -123456;
	void *p = (void *)0x1122334455667788ull;
	half h = u2h(0x3555);
	uint8_t c = 0xfe;
	double d = 6.5e300;
	int64_t l = INT64_MIN + 5;
	uint64_t *o = out;
	memcpy(blob + 0, &f, 4), memcpy(blob + 8, &i, 4), memcpy(blob + 16, &p, 8), memcpy(blob + 24, &h, 2);
	memcpy(blob + 32, &c, 1), memcpy(blob + 40, &d, 8), memcpy(blob + 48, &l, 8), memcpy(blob + 56, &o, 8);
	npu_cc::invoke(mixed_op, blob);
	float fo;
	double dout;
	memcpy(&fo, &out[1], 4), memcpy(&dout, &out[5], 8);
	CHECK(out[0] == 0x1122334455667788ull && fo == -1.25f && (int64_t)out[2] == -123456 &&
		      (out[3] & 0xffff) == 0x3555 && out[4] == 0xfe && dout == 6.5e300 && (int64_t)out[6] == l,
	      "%#llx %g %lld %#llx %llu %g", (unsigned long long)out[0], fo, (long long)out[2],
	      (unsigned long long)out[3], (unsigned long long)out[4], dout);
	constexpr struct npu_kernel_rec r = npu_cc::make_rec<void(float, int32_t, GM_ADDR, half)>("k", "__npu_entry_k");
	CHECK(r.param_count == 4 && r.params[3].offset == 24 && r.params[3].size == 2 &&
		      r.params[3].kind == NPU_PARAM_FLOAT && r.params[2].kind == NPU_PARAM_POINTER &&
		      r.params[1].kind == NPU_PARAM_INT && r.args_size == 32 && !strcmp(r.entry, "__npu_entry_k"),
	      "record");
}

TAP_MAIN
