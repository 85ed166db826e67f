// SPDX-License-Identifier: GPL-2.0
/*
 * bench_kernel - AI-core kernels (issue 24, piece 12 of
 * Documentation/proposals/aicore.md), with the kernels of
 * bench_kernel_kern.cpp (npu-cc, embedded in this program; their
 * computations are bench_kern.h's, which the program runs too to check
 * every result the kernels wrote):
 *
 *  a) overlap_copy_compute: a pipeline of -n chunks of -c KiB: an H2D
 *     aclrtMemcpyAsync per chunk from aclrtMallocHost memory on stream A,
 *     and a blockDim-1 compute-bound kernel (spin_op) per chunk on stream
 *     B that waits for its chunk's copy (an event recorded on A after the
 *     copy, aclrtStreamWaitEvent on B) and reads it. Against the same
 *     copies alone and the same kernels alone, in the same round:
 *     t(pipeline) / max(t(copies), t(kernels)); the median of the rounds'
 *     ratios. Target: <= 1.15. The kernel's iteration count is calibrated
 *     first so that a chunk's kernel takes about as long as its copy
 *     (within 10% if it can; each per chunk over the chunks back to back,
 *     as they run in the pipeline): the copy engine's worker and the AI
 *     core's thread then each keep one of the guest's two vCPUs busy, and
 *     a pipeline of N balanced stages can at best take (N + 1) / N of
 *     either alone. Every round checks every kernel's result, and the
 *     pipeline runs on new data: a kernel that ran before its copy would
 *     have read the last round's.
 *  b) zero_copy_kernel_vs_copy_then_kernel: a kernel (sum_op, the sum of
 *     every 8-byte word) reading -z MiB of host memory registered with
 *     aclrtHostRegister(ACL_HOST_REGISTER_MAPPED) through its device
 *     address (aclrtHostGetDevicePointer), against an H2D copy of the same
 *     memory into device memory and the same kernel reading that, each
 *     launched and synchronised; also against the kernel alone on device
 *     memory. Reported (info), no target.
 *  c) empty_kernel_launch_vs_host_func: the launch + aclrtSynchronizeStream
 *     of a kernel that only stores one word (store_op, into mapped host
 *     memory, checked after every synchronisation), against the same with
 *     aclrtLaunchHostFunc of a host function that stores the word; per
 *     launch, -l launches a sample, -s samples of each interleaved.
 *     Reported (info), no target; back-to-back launches (one
 *     synchronisation for -l of them) beside it.
 *
 * usage: bench_kernel [-c CHUNK_KIB] [-n CHUNKS] [-r ROUNDS] [-z ZERO_COPY_MIB]
 *                     [-l LAUNCHES] [-s SAMPLES] [-p PARTS]
 * (PARTS: the letters of the parts to run, default abc)
 */
#include <math.h>
#include <stdbool.h>

#include "bench.h"
#include "bench_kern.h"

/* the device binary of bench_kernel_kern.cpp (bench.mk passes its path) */
asm(".pushsection .rodata.bench_kernel,\"a\",@progbits\n\t.balign 64\n"
    "bench_npubin_start:\n\t.incbin \"" BENCH_NPUBIN "\"\nbench_npubin_end:\n\t.popsection");
extern const unsigned char bench_npubin_start[], bench_npubin_end[];

static size_t chunk_kib = 16384;
static int chunks = 16;
static int rounds = 9;
static size_t zc_mib = 16;
static int launches = 50;
static int samples = 11;
static const char *parts = "abc";

static aclrtFuncHandle f_spin, f_sum, f_store;

/* The kernels' argument blocks: every parameter in an 8-byte slot. */
struct spin_args {
	void *src, *out;
	uint64_t words, iters;
};

struct sum_args {
	void *src, *out;
	uint64_t words;
};

struct store_args {
	void *out;
	uint64_t v;
};

static void launch(aclrtFuncHandle f, void *args, size_t len, aclrtStream st)
{
	ACL_CHECK(aclrtLaunchKernelWithHostArgs(f, 1, st, NULL, args, len, NULL, 0));
}

static void launch_spin(void *src, void *out, uint64_t words, uint64_t iters, aclrtStream st)
{
	struct spin_args a = { src, out, words, iters };

	launch(f_spin, &a, sizeof(a), st);
}

static void launch_sum(void *src, void *out, uint64_t words, aclrtStream st)
{
	struct sum_args a = { src, out, words };

	launch(f_sum, &a, sizeof(a), st);
}

/* ---- a) overlap_copy_compute -------------------------------------------- */

struct ovl {
	size_t chunk;			/* bytes */
	uint64_t words;			/* per chunk */
	uint64_t iters;			/* spin_op's, calibrated */
	char *host;			/* chunks * chunk, aclrtMallocHost */
	char *dev;			/* chunks * chunk */
	uint64_t *out;			/* device: a result per chunk */
	uint64_t *res, *exp;		/* host: read back, expected */
	aclrtStream a, b;		/* copies, kernels */
	aclrtEvent *ev;			/* per chunk: its copy is done */
};

/* New data for every chunk: the words spin_op samples, from @seed. */
static void ovl_fill(struct ovl *o, uint64_t seed)
{
	int i;

	for (i = 0; i < chunks; i++) {
		uint64_t *w = (uint64_t *)(o->host + (size_t)i * o->chunk), j;

		for (j = 0; j < o->words; j += BENCH_SPIN_STRIDE_WORDS)
			w[j] = bench_mix(seed << 40 ^ (uint64_t)i << 32 ^ j);
	}
}

/* What the kernels must write for the host's data now. */
static void ovl_expect(struct ovl *o)
{
	int i;

	for (i = 0; i < chunks; i++)
		o->exp[i] = bench_spin((const uint64_t *)(o->host + (size_t)i * o->chunk), o->words, o->iters);
}

static void ovl_clear(struct ovl *o)
{
	ACL_CHECK(aclrtMemset(o->out, chunks * sizeof(uint64_t), 0, chunks * sizeof(uint64_t)));
}

/* The results in o->res against ovl_expect()'s. */
static void ovl_check_res(struct ovl *o, const char *what)
{
	int i;

	for (i = 0; i < chunks; i++)
		if (o->res[i] != o->exp[i])
			bench_die("%s: chunk %d: the result is %#llx, expected %#llx", what, i,
				  (unsigned long long)o->res[i], (unsigned long long)o->exp[i]);
}

/* The kernels' results against ovl_expect()'s. */
static void ovl_check(struct ovl *o, const char *what)
{
	ACL_CHECK(aclrtMemcpy(o->res, chunks * sizeof(uint64_t), o->out, chunks * sizeof(uint64_t),
			      ACL_MEMCPY_DEVICE_TO_HOST));
	ovl_check_res(o, what);
}

static void ovl_copy(struct ovl *o, int i)
{
	size_t off = (size_t)i * o->chunk;

	ACL_CHECK(aclrtMemcpyAsync(o->dev + off, o->chunk, o->host + off, o->chunk,
				   ACL_MEMCPY_HOST_TO_DEVICE, o->a));
}

static void ovl_kernel(struct ovl *o, int i, uint64_t iters)
{
	launch_spin(o->dev + (size_t)i * o->chunk, o->out + i, o->words, iters, o->b);
}

static double ovl_copies(struct ovl *o)
{
	double t0 = now_s();
	int i;

	for (i = 0; i < chunks; i++)
		ovl_copy(o, i);
	ACL_CHECK(aclrtSynchronizeStream(o->a));
	return now_s() - t0;
}

static double ovl_kernels(struct ovl *o)
{
	double t0 = now_s();
	int i;

	for (i = 0; i < chunks; i++)
		ovl_kernel(o, i, o->iters);
	ACL_CHECK(aclrtSynchronizeStream(o->b));
	return now_s() - t0;
}

static double ovl_pipeline(struct ovl *o)
{
	double t0 = now_s();
	int i;

	for (i = 0; i < chunks; i++) {
		ovl_copy(o, i);
		ACL_CHECK(aclrtRecordEvent(o->ev[i], o->a));
		ACL_CHECK(aclrtStreamWaitEvent(o->b, o->ev[i]));
		ovl_kernel(o, i, o->iters);
	}
	ACL_CHECK(aclrtSynchronizeStream(o->b));
	ACL_CHECK(aclrtSynchronizeStream(o->a));
	return now_s() - t0;
}

/* Chunk @i's kernel's computation, on this thread over the host's chunk. */
static void ovl_host_spin(struct ovl *o, int i)
{
	o->res[i] = bench_spin((const uint64_t *)(o->host + (size_t)i * o->chunk), o->words, o->iters);
}

/* The kernels' computations on this thread: their time alone. */
static double ovl_host_computes(struct ovl *o)
{
	double t0 = now_s();
	int i;

	for (i = 0; i < chunks; i++)
		ovl_host_spin(o, i);
	return now_s() - t0;
}

/*
 * The reference: the same pipeline with each chunk's computation on this
 * thread (once its copy's event is reached) instead of on the AI core.
 */
static double ovl_host_pipeline(struct ovl *o)
{
	double t0 = now_s();
	int i;

	for (i = 0; i < chunks; i++) {
		ovl_copy(o, i);
		ACL_CHECK(aclrtRecordEvent(o->ev[i], o->a));
	}
	for (i = 0; i < chunks; i++) {
		ACL_CHECK(aclrtSynchronizeEvent(o->ev[i]));
		ovl_host_spin(o, i);
	}
	ACL_CHECK(aclrtSynchronizeStream(o->a));
	return now_s() - t0;
}

/* Per chunk: the median of @n runs of the copies alone (over the chunks). */
static double ovl_copy_per_chunk(struct ovl *o, int n)
{
	double t[8];
	int i;

	for (i = 0; i < n && i < 8; i++)
		t[i] = ovl_copies(o) / chunks;
	return median(t, i);
}

/* Per chunk: the median of @n runs of the kernels alone with @iters iterations. */
static double ovl_kernel_per_chunk(struct ovl *o, uint64_t iters, int n)
{
	uint64_t keep = o->iters;
	double t[8];
	int i;

	o->iters = iters;
	for (i = 0; i < n && i < 8; i++)
		t[i] = ovl_kernels(o) / chunks;
	o->iters = keep;
	return median(t, i);
}

/*
 * The cost of one bench_mix step on this thread: the same code the kernel
 * runs, on the same (virtual) CPUs, timed without any launch around it.
 */
static double spin_per_iteration(void)
{
	uint64_t k = 1 << 14, sink = 0;
	double t[3], t0;
	int i;

	for (;;) {
		for (i = 0; i < 3; i++) {
			t0 = now_s();
			sink += bench_spin(NULL, 0, k);
			t[i] = now_s() - t0;
		}
		if (median(t, 3) >= 0.02 || k >= (1ull << 36))
			break;
		k *= 4;
	}
	__asm__ volatile("" : : "r"(sink));
	return median(t, 3) / (double)k;
}

/*
 * spin_op's iteration count for a kernel as long as a chunk's copy, each
 * timed as in the pipeline (all chunks back to back, per chunk): the
 * kernel's fixed cost (no iterations) measured, the cost of an
 * iteration taken from this thread (a difference of two kernel timings is
 * too noisy under a busy host), then the count corrected on the kernel's
 * own time, up to 4 times, until within 10%.
 */
static void ovl_calibrate(struct ovl *o)
{
	double copy, base, t, per, x;
	int tries;

	copy = ovl_copy_per_chunk(o, 3);
	base = ovl_kernel_per_chunk(o, 0, 3);
	per = spin_per_iteration();
	x = (copy - base) / per;
	o->iters = x > 0 ? (uint64_t)x : 0;
	for (tries = 0; tries < 4; tries++) {
		t = ovl_kernel_per_chunk(o, o->iters, 3);
		if (fabs(t / copy - 1) <= 0.10)
			break;
		x = (double)o->iters + (copy - t) / per;
		o->iters = x > 0 ? (uint64_t)x : 0;
	}
	report_us("a.copy_per_chunk", copy);
	report_us("a.kernel_no_iterations_per_chunk", base);
	report_us("a.kernel_per_chunk", t);
	printf("note a: chunk %zu KiB, %d chunks, spin_op %llu iterations (%.2f ns each on a host thread)\n",
	       (size_t)(o->chunk / KiB), chunks, (unsigned long long)o->iters, per * 1e9);
	report_info("a.kernel_vs_copy_per_chunk", t / copy,
		    "(calibrated: a chunk's kernel / its copy, each stage alone, back to back)");
	if (fabs(t / copy - 1) > 0.20)
		printf("note a: a chunk's kernel and copy differ by more than 20%%%s\n",
		       base > copy ? ": a kernel without iterations already takes longer than the copy" : "");
	fflush(stdout);
}

static void bench_overlap(void)
{
	double *rc = calloc(rounds, sizeof(double)), *rk = calloc(rounds, sizeof(double));
	double *rp = calloc(rounds, sizeof(double)), *ratio = calloc(rounds, sizeof(double));
	double *rh = calloc(rounds, sizeof(double)), *rhp = calloc(rounds, sizeof(double));
	double *href = calloc(rounds, sizeof(double));
	struct ovl o = { .chunk = chunk_kib * KiB };
	size_t total = o.chunk * chunks;
	int r, i;

	if (!rc || !rk || !rp || !ratio || !rh || !rhp || !href)
		bench_die("out of memory");
	o.words = o.chunk / 8;
	o.res = calloc(chunks, sizeof(uint64_t));
	o.exp = calloc(chunks, sizeof(uint64_t));
	o.ev = calloc(chunks, sizeof(aclrtEvent));
	if (!o.res || !o.exp || !o.ev)
		bench_die("out of memory");
	ACL_CHECK(aclrtMallocHost((void **)&o.host, total));
	memset(o.host, 0, total);
	ACL_CHECK(aclrtMalloc((void **)&o.dev, total, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_CHECK(aclrtMalloc((void **)&o.out, chunks * sizeof(uint64_t), ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_CHECK(aclrtCreateStream(&o.a));
	ACL_CHECK(aclrtCreateStream(&o.b));
	for (i = 0; i < chunks; i++)
		ACL_CHECK(aclrtCreateEvent(&o.ev[i]));

	/* device pages exist after their first write */
	ovl_fill(&o, 0);
	ovl_copies(&o);
	ovl_calibrate(&o);
	ovl_expect(&o);
	ovl_clear(&o);
	ovl_kernels(&o);
	ovl_check(&o, "calibrated kernels");

	/* round -1 warms up */
	for (r = -1; r < rounds; r++) {
		double c, k, p, h, hp;

		ovl_fill(&o, 2 * r + 2);
		ovl_expect(&o);
		c = ovl_copies(&o);
		ovl_clear(&o);
		k = ovl_kernels(&o);
		ovl_check(&o, "kernels alone");
		/* new data: a kernel that ran before its copy reads the old */
		ovl_fill(&o, 2 * r + 3);
		ovl_expect(&o);
		ovl_clear(&o);
		p = ovl_pipeline(&o);
		ovl_check(&o, "pipeline");
		/* the reference, host compute instead of kernels, on the same data */
		h = ovl_host_computes(&o);
		ovl_check_res(&o, "host computes");
		memset(o.res, 0, chunks * sizeof(uint64_t));
		hp = ovl_host_pipeline(&o);
		ovl_check_res(&o, "host pipeline");
		if (r < 0)
			continue;
		rc[r] = c;
		rk[r] = k;
		rp[r] = p;
		rh[r] = h;
		rhp[r] = hp;
		ratio[r] = p / (c > k ? c : k);
		href[r] = hp / (c > h ? c : h);
	}
	report_ms("a.copies_alone", median(rc, rounds));
	report_ms("a.kernels_alone", median(rk, rounds));
	report_ms("a.pipeline", median(rp, rounds));
	report_info("a.kernels_vs_copies_alone", median(rk, rounds) / median(rc, rounds),
		    "(all kernels alone / all copies alone)");
	report_ms("a.host_computes_alone", median(rh, rounds));
	report_ms("a.host_pipeline", median(rhp, rounds));
	report_info("a.best_possible", (chunks + 1.0) / chunks,
		    "(a pipeline of balanced stages: (chunks + 1) / chunks)");
	report_info("a.overlap_copy_host_compute", median(href, rounds),
		    "(reference: the computation on a host thread instead of the AI core, same ratio)");
	if (median(href, rounds) > 1.15)
		printf("note a: the pipeline with host compute misses 1.15 too: this boot's two vCPUs "
		       "did not run in parallel (a busy host?)\n");
	report_ratio("overlap_copy_compute", median(ratio, rounds), "<=", 1.15);

	for (i = 0; i < chunks; i++)
		ACL_CHECK(aclrtDestroyEvent(o.ev[i]));
	ACL_CHECK(aclrtDestroyStream(o.a));
	ACL_CHECK(aclrtDestroyStream(o.b));
	ACL_CHECK(aclrtFree(o.out));
	ACL_CHECK(aclrtFree(o.dev));
	ACL_CHECK(aclrtFreeHost(o.host));
	free(o.res);
	free(o.exp);
	free(o.ev);
	free(rc);
	free(rk);
	free(rp);
	free(ratio);
	free(rh);
	free(rhp);
	free(href);
}

/* ---- b) zero_copy_kernel_vs_copy_then_kernel ----------------------------- */

/* sum_op's result in @out (device memory) against @exp; @out cleared after. */
static void zc_check(uint64_t *out, uint64_t exp, const char *what)
{
	uint64_t got;

	ACL_CHECK(aclrtMemcpy(&got, sizeof(got), out, sizeof(got), ACL_MEMCPY_DEVICE_TO_HOST));
	if (got != exp)
		bench_die("%s: the kernel's sum is %#llx, expected %#llx", what, (unsigned long long)got,
			  (unsigned long long)exp);
	ACL_CHECK(aclrtMemset(out, sizeof(got), 0, sizeof(got)));
}

static void bench_zero_copy(void)
{
	double *tz = calloc(rounds, sizeof(double)), *tc = calloc(rounds, sizeof(double));
	double *td = calloc(rounds, sizeof(double)), *rz = calloc(rounds, sizeof(double));
	double *rd = calloc(rounds, sizeof(double)), t0;
	size_t size = zc_mib * MiB, page;
	uint64_t words = size / 8, *host, exp;
	void *alias, *alias2, *dev, *out;
	aclrtStream st;
	int r;

	if (!tz || !tc || !td || !rz || !rd)
		bench_die("out of memory");
	host = host_alloc(size, 5);
	ACL_CHECK(aclrtHostRegister(host, size, ACL_HOST_REGISTER_MAPPED, &alias));
	ACL_CHECK(aclrtHostGetDevicePointer(host, &alias2, 0));
	if (alias != alias2)
		bench_die("aclrtHostGetDevicePointer: %p, aclrtHostRegister said %p", alias2, alias);
	ACL_CHECK(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_CHECK(aclrtMalloc(&out, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_CHECK(aclrtMemset(out, 64, 0, 64));
	ACL_CHECK(aclrtCreateStream(&st));
	ACL_CHECK(aclrtMemcpy(dev, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE));

	for (r = -1; r < rounds; r++) {
		double z, c, d;

		/* new data each round: a word of every page */
		for (page = 0; page < size / 4096; page++)
			host[page * 512 + (unsigned int)(r + 1) % 512] = bench_mix((uint64_t)r << 32 ^ page);
		exp = bench_sum(host, words);

		t0 = now_s();
		launch_sum(alias, out, words, st);
		ACL_CHECK(aclrtSynchronizeStream(st));
		z = now_s() - t0;
		zc_check(out, exp, "zero copy");

		t0 = now_s();
		ACL_CHECK(aclrtMemcpyAsync(dev, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE, st));
		launch_sum(dev, out, words, st);
		ACL_CHECK(aclrtSynchronizeStream(st));
		c = now_s() - t0;
		zc_check(out, exp, "copy then kernel");

		t0 = now_s();
		launch_sum(dev, out, words, st);
		ACL_CHECK(aclrtSynchronizeStream(st));
		d = now_s() - t0;
		zc_check(out, exp, "kernel on device memory");
		if (r < 0)
			continue;
		tz[r] = z;
		tc[r] = c;
		td[r] = d;
		rz[r] = z / c;
		rd[r] = z / d;
	}
	printf("note b: %zu MiB, %d rounds\n", zc_mib, rounds);
	report_ms("b.zero_copy_kernel", median(tz, rounds));
	report_ms("b.copy_then_kernel", median(tc, rounds));
	report_ms("b.kernel_device_memory", median(td, rounds));
	report_info("zero_copy_kernel_vs_copy_then_kernel", median(rz, rounds),
		    "(sum_op over mapped host memory / H2D copy + sum_op over device memory; < 1: zero copy is faster)");
	report_info("zero_copy_kernel_vs_device_kernel", median(rd, rounds),
		    "(sum_op over mapped host memory / over device memory: the cost of reading host memory)");

	ACL_CHECK(aclrtDestroyStream(st));
	ACL_CHECK(aclrtFree(out));
	ACL_CHECK(aclrtFree(dev));
	ACL_CHECK(aclrtHostUnregister(host));
	free(tz);
	free(tc);
	free(td);
	free(rz);
	free(rd);
}

/* ---- c) empty_kernel_launch_vs_host_func --------------------------------- */

struct store_slot {
	volatile uint64_t *slot;
	uint64_t v;
};

static void store_fn(void *arg)
{
	struct store_slot *s = arg;

	*s->slot = s->v;
}

static uint64_t store_value;

/* @n launches of the kernel (or host function), each synchronised unless @burst. */
static double time_stores(bool kernel, bool burst, volatile uint64_t *slot, void *slot_dev, aclrtStream st, int n)
{
	static struct store_slot hs[4096];
	double t0 = now_s(), t;
	int i;

	for (i = 0; i < n; i++) {
		store_value++;
		if (kernel) {
			struct store_args a = { slot_dev, store_value };

			launch(f_store, &a, sizeof(a), st);
		} else {
			hs[i].slot = slot;
			hs[i].v = store_value;
			ACL_CHECK(aclrtLaunchHostFunc(st, store_fn, &hs[i]));
		}
		if (burst && i + 1 < n)
			continue;
		ACL_CHECK(aclrtSynchronizeStream(st));
		if (*slot != store_value)
			bench_die("%s: the word is %#llx after the synchronisation, expected %#llx",
				  kernel ? "store_op" : "host function", (unsigned long long)*slot,
				  (unsigned long long)store_value);
	}
	t = now_s() - t0;
	return t / n;
}

static void bench_launch(void)
{
	double *k = calloc(samples, sizeof(double)), *h = calloc(samples, sizeof(double));
	double *kb = calloc(samples, sizeof(double)), *hb = calloc(samples, sizeof(double));
	volatile uint64_t *slot;
	aclrtStream st;
	void *page, *dev;
	int s;

	if (!k || !h || !kb || !hb)
		bench_die("out of memory");
	page = host_alloc(4096, 9);
	ACL_CHECK(aclrtHostRegister(page, 4096, ACL_HOST_REGISTER_MAPPED, &dev));
	slot = page;
	ACL_CHECK(aclrtCreateStream(&st));
	/* warm */
	time_stores(true, false, slot, dev, st, 2);
	time_stores(false, false, slot, dev, st, 2);
	for (s = 0; s < samples; s++) {
		k[s] = time_stores(true, false, slot, dev, st, launches);
		h[s] = time_stores(false, false, slot, dev, st, launches);
		kb[s] = time_stores(true, true, slot, dev, st, launches);
		hb[s] = time_stores(false, true, slot, dev, st, launches);
	}
	report_us("c.kernel_launch_sync", median(k, samples));
	report_us("c.host_func_launch_sync", median(h, samples));
	report_us("c.kernel_back_to_back", median(kb, samples));
	report_us("c.host_func_back_to_back", median(hb, samples));
	report_info("empty_kernel_launch_vs_host_func", median(k, samples) / median(h, samples),
		    "(launch + synchronize of a one-store kernel / of a one-store aclrtLaunchHostFunc)");
	report_info("empty_kernel_back_to_back_vs_host_func", median(kb, samples) / median(hb, samples),
		    "(per launch, one synchronize after all)");

	ACL_CHECK(aclrtDestroyStream(st));
	ACL_CHECK(aclrtHostUnregister(page));
	free(k);
	free(h);
	free(kb);
	free(hb);
}

int main(int argc, char **argv)
{
	aclrtBinHandle bin;
	int opt;

	while ((opt = getopt(argc, argv, "c:n:r:z:l:s:p:")) != -1) {
		switch (opt) {
		case 'p': parts = optarg; break;
		case 'c': chunk_kib = strtoull(optarg, NULL, 0); break;
		case 'n': chunks = atoi(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'z': zc_mib = strtoull(optarg, NULL, 0); break;
		case 'l': launches = atoi(optarg); break;
		case 's': samples = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-c CHUNK_KIB] [-n CHUNKS] [-r ROUNDS] [-z ZERO_COPY_MIB] "
				"[-l LAUNCHES] [-s SAMPLES] [-p PARTS]\n", argv[0]);
			return 2;
		}
	}
	if (chunk_kib < 4 || chunk_kib % 4 || chunks < 1 || rounds < 1 || zc_mib < 1 || launches < 1 ||
	    launches > 4096 || samples < 1)
		bench_die("bad arguments");
	bench_start("bench_kernel");
	ACL_CHECK(aclrtBinaryLoadFromData(bench_npubin_start, (size_t)(bench_npubin_end - bench_npubin_start),
					  NULL, &bin));
	ACL_CHECK(aclrtBinaryGetFunction(bin, "spin_op", &f_spin));
	ACL_CHECK(aclrtBinaryGetFunction(bin, "sum_op", &f_sum));
	ACL_CHECK(aclrtBinaryGetFunction(bin, "store_op", &f_store));

	if (strchr(parts, 'a'))
		bench_overlap();
	if (strchr(parts, 'b'))
		bench_zero_copy();
	if (strchr(parts, 'c'))
		bench_launch();

	ACL_CHECK(aclrtBinaryUnLoad(bin));
	bench_end();
	return 0;
}
