/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/bench/bench.h - the benchmarks' shared helpers: a clock, medians,
 * error checks and the report lines that tools/bench/run-bench collects.
 *
 * Every tools/bench/bench_NAME.c is one program (tools/bench/bench.mk); what they
 * share lives here as static inline functions.
 *
 * Report lines (one per line on stdout, parsed by run-bench):
 *   ratio <name> <value> target <op> <value> PASS|MISS   a target of an issue
 *   info <name> <value> [words]                          reported, no target
 *   raw <name> <value> <unit>                            a measured time/rate
 *   note <text>                                          anything else
 */
#ifndef NPU_BENCH_H
#define NPU_BENCH_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/utsname.h>

#include <acl/acl.h>

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline void bench_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "bench: FATAL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

/* An aclrt call that must succeed. */
#define ACL_CHECK(call)							\
	do {								\
		aclError e_ = (call);					\
		if (e_ != ACL_SUCCESS)					\
			bench_die("%s:%d: %s = %d (%s)", __FILE__,	\
				  __LINE__, #call, e_,			\
				  aclGetRecentErrMsg());		\
	} while (0)

/* A libc/syscall call that must not return -1. */
#define SYS_CHECK(call)							\
	do {								\
		if ((long)(call) == -1)					\
			bench_die("%s:%d: %s: %s", __FILE__, __LINE__,	\
				  #call, strerror(errno));		\
	} while (0)

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of @n samples (left in their order: pairs stay pairs). */
static inline double median(const double *v, size_t n)
{
	double *w = malloc(n * sizeof(*w)), m;

	if (!w)
		bench_die("out of memory");
	memcpy(w, v, n * sizeof(*w));
	qsort(w, n, sizeof(*w), bench_cmp_double);
	m = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
	free(w);
	return m;
}

static inline double minimum(const double *v, size_t n)
{
	double m = v[0];
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

static inline double maximum(const double *v, size_t n)
{
	double m = v[0];
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

/*
 * Smoke mode (NPU_BENCH_SMOKE=1, tests/bench_smoke_test.c in make check):
 * the program runs once with tiny sizes so that a broken benchmark fails
 * CI; its figures mean nothing, so no target is judged.
 */
static inline int bench_smoke(void)
{
	const char *s = getenv("NPU_BENCH_SMOKE");

	return s && *s && strcmp(s, "0");
}

/* Print a target: @op is "<=" or ">=". Returns 1 on a miss. */
static inline int report_ratio(const char *name, double value, const char *op, double target)
{
	int pass = op[0] == '<' ? value <= target : value >= target;

	if (bench_smoke()) {
		printf("ratio %s %.3f target %s %.2f smoke\n", name, value, op, target);
		fflush(stdout);
		return 0;
	}
	printf("ratio %s %.3f target %s %.2f %s\n", name, value, op, target, pass ? "PASS" : "MISS");
	fflush(stdout);
	return !pass;
}

static inline void report_info(const char *name, double value, const char *what)
{
	printf("info %s %.3f %s\n", name, value, what ? what : "");
	fflush(stdout);
}

/* A time in seconds, printed in microseconds. */
static inline void report_us(const char *name, double seconds)
{
	printf("raw %s %.1f us\n", name, seconds * 1e6);
	fflush(stdout);
}

static inline void report_ms(const char *name, double seconds)
{
	printf("raw %s %.3f ms\n", name, seconds * 1e3);
	fflush(stdout);
}

static inline void report_gbps(const char *name, double bytes, double seconds)
{
	printf("raw %s %.3f GB/s\n", name, bytes / seconds / 1e9);
	fflush(stdout);
}

/* aclInit + device 0, and the banner naming the program and kernel. */
static inline void bench_start(const char *prog)
{
	struct utsname u;

	uname(&u);
	printf("note %s on %s (%s), pid %d\n", prog, u.release, u.machine, (int)getpid());
	fflush(stdout);
	ACL_CHECK(aclInit(NULL));
	ACL_CHECK(aclrtSetDevice(0));
}

static inline void bench_end(void)
{
	ACL_CHECK(aclrtResetDevice(0));
	ACL_CHECK(aclFinalize());
}

/* Touch every 4 KiB page of [p, p + len) for writing. */
static inline void prefault(void *p, size_t len)
{
	volatile char *c = p;
	size_t off;

	for (off = 0; off < len; off += 4096)
		c[off] = (char)off;
}

/*
 * Host buffers for copy baselines. Under QEMU TCG every guest memory
 * access goes through a direct-mapped software TLB indexed by virtual page
 * number: a source and destination whose addresses differ by a multiple of
 * its size evict each other on every access and copy several times slower
 * (measured: glibc memcpy 0.55 vs 1.3 GB/s, rep movsb 0.014 vs 0.24 GB/s).
 * A baseline must not be handicapped that way, so each buffer starts
 * @skew_pages pages past a 2 MiB boundary (give each buffer of a pair a
 * different skew), is THP-eligible, and is written once (warm).
 */
static inline void *host_alloc(size_t len, unsigned int skew_pages)
{
	size_t span = len + 2 * MiB + (size_t)skew_pages * 4096;
	char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *q;

	if (p == MAP_FAILED)
		bench_die("mmap %zu: %s", span, strerror(errno));
	q = (char *)(((uintptr_t)p + 2 * MiB - 1) & ~(uintptr_t)(2 * MiB - 1));
	q += (size_t)skew_pages * 4096;
	memset(q, 0x5a, len);
	return q;
}

/*
 * The copy primitives a simulated DMA engine can use, as user code, one
 * 4 KiB page at a time like the engine: the guest kernel's memcpy() is
 * `rep movsb` on CPUs with ERMS (Linux 6.1) or an unrolled 8-byte mov loop
 * without FSRM (6.12); copy_page() is `rep movsq` (REP_GOOD) or unrolled
 * moves. Under TCG the emulated instruction mix decides copy speed.
 */
static inline void copy_rep_movsb_pages(void *dst, const void *src, size_t len)
{
	size_t off;

	for (off = 0; off < len; off += 4096) {
		void *d = (char *)dst + off;
		const void *s = (const char *)src + off;
		size_t n = len - off < 4096 ? len - off : 4096;

		__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	}
}

static inline void copy_rep_movsq_pages(void *dst, const void *src, size_t len)
{
	size_t off;

	for (off = 0; off + 4096 <= len; off += 4096) {
		void *d = (char *)dst + off;
		const void *s = (const char *)src + off;
		size_t n = 4096 / 8;

		__asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	}
}

static inline void copy_u64_loop(void *dst, const void *src, size_t len)
{
	size_t off;

	for (off = 0; off + 64 <= len; off += 64) {
		uint64_t *d = (uint64_t *)((char *)dst + off);
		const uint64_t *s = (const uint64_t *)((const char *)src + off);
		uint64_t a = s[0], b = s[1], c = s[2], e = s[3];
		uint64_t f = s[4], g = s[5], h = s[6], i = s[7];

		d[0] = a; d[1] = b; d[2] = c; d[3] = e;
		d[4] = f; d[5] = g; d[6] = h; d[7] = i;
		__asm__ volatile("" : : : "memory");	/* no memcpy() idiom */
	}
}

/* Print the CPU facts that pick the guest kernel's memcpy and copy_page. */
static inline void note_cpu_copy_flags(void)
{
	char line[8192], vendor[64] = "?";
	FILE *f = fopen("/proc/cpuinfo", "r");
	int erms = 0, fsrm = 0, rep_good = 0, avx2 = 0, got = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && got < 2) {
		if (!strncmp(line, "vendor_id", 9)) {
			sscanf(line, "vendor_id : %63s", vendor);
			got++;
		} else if (!strncmp(line, "flags", 5)) {
			erms = !!strstr(line, " erms");
			fsrm = !!strstr(line, " fsrm");
			rep_good = !!strstr(line, " rep_good");
			avx2 = !!strstr(line, " avx2");
			got++;
		}
	}
	fclose(f);
	printf("note cpu: %s erms=%d fsrm=%d rep_good=%d avx2=%d\n", vendor, erms, fsrm, rep_good, avx2);
}

#endif /* NPU_BENCH_H */
