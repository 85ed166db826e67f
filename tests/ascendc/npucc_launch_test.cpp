// SPDX-License-Identifier: GPL-2.0
/*
 * tests/ascendc/npucc_launch_test.cpp - npu-cc's host pass end to end:
 * scalar_kernels.cpp and vec_kernels.cpp built by npu-cc -c (host objects
 * with their device binaries embedded) and linked with libnpucc_stub.so,
 * which stands in for libacl's binary and launch calls and runs the
 * kernels (npucc_stub.c). Checks what reaches the runtime (one binary load
 * per translation unit, the kernel name, blockDim, stream, the argument
 * block in 8-byte slots), the embedded binary (.note.npu, .npu_kernels
 * records), results, printf records, traps and error propagation.
 * Built and run by make npucc-check (tools/npucc-check).
 */
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "npu_fatbin.h"
#include "npucc_stub.h"
#include "tap.h"

typedef _Float16 half;

namespace npucc_test {
void IncDo(uint32_t blockDim, void *stream, uint32_t *x);
void TrapDo(uint32_t blockDim, void *stream);
void WriteDo(uint32_t blockDim, void *stream, int *devPtr, int value);
void HelloDo(uint32_t blockDim, void *stream);
int32_t AxpyDo(uint32_t blockDim, void *stream, float *a, float *b, float *d, float alpha, uint32_t n);
uint32_t MixedDo(void *stream, float f, int32_t i, void *p, half h, uint8_t c, double d, int64_t l, uint64_t *out);
} // namespace npucc_test
void VecAddHalfDo(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y, uint8_t *z, uint32_t len);
int32_t VecAddFloatDo(uint32_t blockDim, void *stream, float *x, float *y, float *z, uint32_t len);

using namespace npucc_test;

static void *const STREAM = (void *)0x5eed;

TEST(launch_reaches_runtime)
{
	uint32_t x[4] = {1, 2, 3, 4};
	IncDo(3, STREAM, x);
	CHECK(npucc_stub.loads == 1 && npucc_stub.launches == 1, "loads %d launches %d", npucc_stub.loads,
	      npucc_stub.launches);
	CHECK(!strcmp(npucc_stub.name, "inc_op") && npucc_stub.blocks == 3 && npucc_stub.stream == STREAM &&
		      npucc_stub.args_size == 8 && !npucc_stub.extra,
	      "name %s blocks %u size %zu", npucc_stub.name, npucc_stub.blocks, npucc_stub.args_size);
	uint64_t slot0;
	memcpy(&slot0, npucc_stub.args, 8);
	CHECK(slot0 == (uint64_t)(uintptr_t)x, "slot 0 %#llx", (unsigned long long)slot0);
	CHECK(x[0] == 2 && x[2] == 4 && x[3] == 4, "%u %u %u %u", x[0], x[1], x[2], x[3]);
	IncDo(1, STREAM, x);
	CHECK(npucc_stub.loads == 1 && npucc_stub.launches == 2 && x[0] == 3, "the binary is loaded once per TU");
}

TEST(embedded_device_binary)
{
	const void *bin = npucc_stub.last_data;
	size_t size = 0;
	const char *note = (const char *)npucc_stub_section(bin, npucc_stub.last_len, ".note.npu", &size);
	CHECK(note && size == 12 + 4 + sizeof(struct npu_note_desc), "note size %zu", size);
	if (note) {
		struct npu_note_desc d;
		memcpy(&d, note + 16, sizeof(d));
		CHECK(!memcmp(note + 12, "NPU", 4) && d.magic == NPU_NOTE_MAGIC && d.version == NPU_NOTE_VERSION &&
			      !strcmp(d.soc_version, "Ascend910B1"),
		      "note %.4s %#x %u %s", note + 12, d.magic, d.version, d.soc_version);
	}
	const char *recs = (const char *)npucc_stub_section(bin, npucc_stub.last_len, ".npu_kernels", &size);
	CHECK(recs && size == 6 * sizeof(struct npu_kernel_rec), "records %zu bytes", size);
	bool found = false;
	for (size_t off = 0; recs && off < size; off += sizeof(struct npu_kernel_rec)) {
		struct npu_kernel_rec r;
		memcpy(&r, recs + off, sizeof(r));
		CHECK(r.magic == NPU_KREC_MAGIC && r.rec_size == sizeof(r), "record at %zu", off);
		if (strcmp(r.name, "mixed_op"))
			continue;
		found = true;
		static const uint16_t size_of[8] = {4, 4, 8, 2, 1, 8, 8, 8};
		static const uint16_t kind[8] = {NPU_PARAM_FLOAT, NPU_PARAM_INT, NPU_PARAM_POINTER, NPU_PARAM_FLOAT,
						 NPU_PARAM_UINT, NPU_PARAM_FLOAT, NPU_PARAM_INT, NPU_PARAM_POINTER};
		CHECK(r.param_count == 8 && r.args_size == 64 && !strcmp(r.entry, "__npu_entry_mixed_op"), "mixed_op");
		for (unsigned i = 0; i < 8; i++)
			CHECK(r.params[i].offset == 8 * i && r.params[i].size == size_of[i] && r.params[i].kind == kind[i],
			      "param %u: %u %u %u", i, r.params[i].offset, r.params[i].size, r.params[i].kind);
	}
	CHECK(found, "no record of mixed_op");
}

TEST(mixed_parameter_slots)
{
	uint64_t out[8] = {};
	int marker;
	uint32_t ret = MixedDo(STREAM, 2.75f, -77, &marker, (half)-0.5f, 250, -1e-300, INT64_MAX - 1, out);
	CHECK(ret == 0 && npucc_stub.blocks == 2 && npucc_stub.args_size == 64, "ret %u size %zu", ret,
	      npucc_stub.args_size);
	/* the blob as packed by the launcher */
	float f;
	int32_t i;
	void *p;
	half h;
	double d;
	memcpy(&f, npucc_stub.args + 0, 4), memcpy(&i, npucc_stub.args + 8, 4), memcpy(&p, npucc_stub.args + 16, 8);
	memcpy(&h, npucc_stub.args + 24, 2), memcpy(&d, npucc_stub.args + 40, 8);
	CHECK(f == 2.75f && i == -77 && p == &marker && h == (half)-0.5f && npucc_stub.args[32] == 250 && d == -1e-300,
	      "blob");
	/* and as unpacked by the trampoline (the last block wrote out) */
	float fo;
	double dout;
	memcpy(&fo, &out[1], 4), memcpy(&dout, &out[5], 8);
	uint16_t hb;
	memcpy(&hb, &out[3], 2);
	CHECK(out[0] == (uint64_t)(uintptr_t)&marker && fo == 2.75f && (int64_t)out[2] == -77 && hb == 0xb800 &&
		      out[4] == 250 && dout == -1e-300 && (int64_t)out[6] == INT64_MAX - 1 && out[7] == (1ull << 32 | 2),
	      "out %#llx %g %lld %#x %llu %g %#llx", (unsigned long long)out[0], fo, (long long)out[2], hb,
	      (unsigned long long)out[4], dout, (unsigned long long)out[7]);
}

TEST(static_cast_result_and_errors)
{
	float a[4] = {1, 2, 3, 4}, b[4] = {2, 2, 2, 2}, d[4] = {};
	int32_t r = AxpyDo(1, STREAM, a, b, d, 0.25f, 4);
	CHECK(r == 0 && d[3] == 4.5f && npucc_stub.args_size == 40, "ret %d d %g size %zu", r, d[3],
	      npucc_stub.args_size);
	r = AxpyDo(1, (void *)0xbad, a, b, d, 0.25f, 4);
	CHECK(r == 507899, "the runtime's error comes back: %d", r);
}

TEST(printf_and_trap_through_launch)
{
	int mem[3] = {};
	WriteDo(3, STREAM, mem, 42);
	CHECK(mem[0] == 42 && mem[2] == 42, "writes");
	CHECK(std::string(npucc_stub.printed) ==
		      "[0] Source data: 42 of 3\n[1] Source data: 42 of 3\n[2] Source data: 42 of 3\n",
	      "printed '%s'", npucc_stub.printed);
	HelloDo(2, STREAM);
	CHECK(std::string(npucc_stub.printed) == "[0] Hello World\n[1] Hello World\n", "printed '%s'",
	      npucc_stub.printed);
	int before = npucc_stub.launches;
	TrapDo(4, STREAM);
	CHECK(npucc_stub.launches == before + 1 && !strcmp(npucc_stub.name, "trap_op"), "trap launched");
}

TEST(vector_kernels_other_tu)
{
	const uint32_t len = 4 * 512;
	std::vector<half> x(len), y(len), z(len);
	for (uint32_t i = 0; i < len; i++)
		x[i] = (half)(float)i, y[i] = (half)0.25f;
	int loads = npucc_stub.loads;
	VecAddHalfDo(4, STREAM, (uint8_t *)x.data(), (uint8_t *)y.data(), (uint8_t *)z.data(), len);
	CHECK(npucc_stub.loads == loads + 1, "a second TU loads its own binary");
	int bad = 0;
	for (uint32_t i = 0; i < len; i++)
		bad += z[i] != (half)((float)i + 0.25f);
	CHECK(bad == 0 && !npucc_stub.trap_msg[0], "%d wrong; trap '%s'", bad, npucc_stub.trap_msg);
	std::vector<float> xf(len, 1.5f), yf(len, 2.0f), zf(len);
	int32_t r = VecAddFloatDo(4, STREAM, xf.data(), yf.data(), zf.data(), len);
	CHECK(r == 0 && zf[0] == 3.5f && zf[len - 1] == 3.5f, "float add %d %g", r, zf[len - 1]);
	/* len 4 * 8: tiles of 1 half = 2 bytes: DataCopy traps */
	r = VecAddFloatDo(4, STREAM, xf.data(), yf.data(), zf.data(), 4 * 8 * 4 + 4 * 4);
	CHECK(r == 507016 && strstr(npucc_stub.trap_msg, "multiple of 32"), "ret %d trap '%s'", r,
	      npucc_stub.trap_msg);
}

TAP_MAIN
