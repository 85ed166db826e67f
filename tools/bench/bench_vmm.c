// SPDX-License-Identifier: GPL-2.0
/*
 * bench_vmm - device memory and virtual memory management (issue "device
 * memory / VMM"), each against a CPU baseline measured in the same run:
 *
 *  a) map cycle: aclrtMemMapNoAccess + aclrtMemSetAccess(READWRITE) +
 *     aclrtUnmapMem of a 2 MiB physical handle at a reservation that is
 *     kept, vs mmap(PROT_NONE, 2 MiB) + mprotect(READ|WRITE) + munmap, no
 *     page touched. Target: ratio <= 1.5. (aclrtMapMem grants read-write
 *     itself: NoAccess keeps the map and the grant timed apart.)
 *  b) D2D copy: aclrtMemcpy DEVICE_TO_DEVICE of 64 MiB (both buffers
 *     written once before) vs memcpy of 64 MiB host to host (warm).
 *     Target: throughput ratio >= 0.9.
 *  c) the map cycle of a) with 10,000 aclrtMalloc(4096, NORMAL_ONLY)
 *     allocations alive vs with 1. Target: ratio <= 1.5. Also reported:
 *     aclrtMalloc+aclrtFree of 4 KiB at the same two points, and both at
 *     1,000 live allocations (to see how the cost scales).
 *
 * usage: bench_vmm [-n CYCLES] [-N LIVE] [-r REPS]
 */
#include <stdbool.h>

#include "bench.h"

#define MAP_SIZE	(2 * MiB)
#define COPY_SIZE	(64 * MiB)

static int cycles = 2000;	/* map cycles per measurement */
static int live_max = 10000;	/* live allocations for c) */
static int copy_reps = 9;	/* repetitions of a 64 MiB copy */

struct vmm_cycle {
	aclrtDrvMemHandle handle;
	void *va;
	aclrtMemAccessDesc desc;
};

static void vmm_cycle_init(struct vmm_cycle *c)
{
	aclrtPhysicalMemProp prop = {
		.handleType = ACL_MEM_HANDLE_TYPE_NONE,
		.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED,
		.memAttr = ACL_HBM_MEM_HUGE,
		.location = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
	};

	memset(c, 0, sizeof(*c));
	ACL_CHECK(aclrtMallocPhysical(&c->handle, MAP_SIZE, &prop, 0));
	ACL_CHECK(aclrtReserveMemAddress(&c->va, MAP_SIZE, 0, NULL, 0));
	c->desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
	c->desc.location.id = 0;
	c->desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
}

static void vmm_cycle_fini(struct vmm_cycle *c)
{
	ACL_CHECK(aclrtReleaseMemAddress(c->va));
	ACL_CHECK(aclrtFreePhysical(c->handle));
}

/*
 * Median times of one map cycle and of its three calls, over @n cycles
 * (each timed on its own). t[0] cycle, t[1] map, t[2] set access, t[3] unmap.
 */
static void acl_map_cycles(struct vmm_cycle *c, int n, double t[4])
{
	double *s[4];
	int i, k;

	for (k = 0; k < 4; k++)
		s[k] = malloc(n * sizeof(double));
	for (i = 0; i < n; i++) {
		double t0, t1, t2, t3;

		t0 = now_s();
		ACL_CHECK(aclrtMemMapNoAccess(c->va, MAP_SIZE, 0, c->handle, 0));
		t1 = now_s();
		ACL_CHECK(aclrtMemSetAccess(c->va, MAP_SIZE, &c->desc, 1));
		t2 = now_s();
		ACL_CHECK(aclrtUnmapMem(c->va));
		t3 = now_s();
		s[0][i] = t3 - t0;
		s[1][i] = t1 - t0;
		s[2][i] = t2 - t1;
		s[3][i] = t3 - t2;
	}
	for (k = 0; k < 4; k++) {
		t[k] = median(s[k], n);
		free(s[k]);
	}
}

/* The CPU's own: t[0] cycle, t[1] mmap, t[2] mprotect, t[3] munmap. */
static void cpu_map_cycles(int n, double t[4])
{
	double *s[4];
	int i, k;

	for (k = 0; k < 4; k++)
		s[k] = malloc(n * sizeof(double));
	for (i = 0; i < n; i++) {
		double t0, t1, t2, t3;
		void *p;

		t0 = now_s();
		p = mmap(NULL, MAP_SIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			bench_die("mmap: %s", strerror(errno));
		t1 = now_s();
		SYS_CHECK(mprotect(p, MAP_SIZE, PROT_READ | PROT_WRITE));
		t2 = now_s();
		SYS_CHECK(munmap(p, MAP_SIZE));
		t3 = now_s();
		s[0][i] = t3 - t0;
		s[1][i] = t1 - t0;
		s[2][i] = t2 - t1;
		s[3][i] = t3 - t2;
	}
	for (k = 0; k < 4; k++) {
		t[k] = median(s[k], n);
		free(s[k]);
	}
}

/*
 * The map cycle, interleaved with the CPU baseline in rounds so that both
 * see the same machine (TCG timing drifts), after a warm-up.
 */
static int bench_map_cycle(struct vmm_cycle *c)
{
	const int rounds = 5;
	double a[4] = { 0 }, b[4] = { 0 }, ra[rounds][4], rb[rounds][4];
	double sa[rounds], sb[rounds];
	int r, k, n = cycles / rounds;

	acl_map_cycles(c, 50, a);
	cpu_map_cycles(50, b);
	for (r = 0; r < rounds; r++) {
		acl_map_cycles(c, n, ra[r]);
		cpu_map_cycles(n, rb[r]);
	}
	/* median over rounds of each round's median */
	for (k = 0; k < 4; k++) {
		for (r = 0; r < rounds; r++) {
			sa[r] = ra[r][k];
			sb[r] = rb[r][k];
		}
		a[k] = median(sa, rounds);
		b[k] = median(sb, rounds);
	}
	report_us("a.acl_map_cycle", a[0]);
	report_us("a.acl_map", a[1]);
	report_us("a.acl_set_access", a[2]);
	report_us("a.acl_unmap", a[3]);
	report_us("a.cpu_map_cycle", b[0]);
	report_us("a.cpu_mmap", b[1]);
	report_us("a.cpu_mprotect", b[2]);
	report_us("a.cpu_munmap", b[3]);
	return report_ratio("map_cycle", a[0] / b[0], "<=", 1.5);
}

#define SPACER_SIZE	(2 << 20)

/*
 * b) A 64 MiB device-to-device copy against memcpy. With @peer, the
 * destination lives on device 1 and device 0's engine writes it through
 * peer access (issue "sharing and peers": no target, reported as info).
 */
static int bench_d2d(bool peer)
{
	const char *tag = peer ? "b.d2d_peer" : "b.d2d";
	double td[32], th[32], t0;
	void *src, *dst, *spacer;
	char *hsrc, *hdst;
	int i, n = copy_reps > 32 ? 32 : copy_reps;

	ACL_CHECK(aclrtMalloc(&src, COPY_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_CHECK(aclrtMalloc(&spacer, SPACER_SIZE, ACL_MEM_MALLOC_HUGE_ONLY));
	if (peer) {
		/* aclrtMalloc memory: every peer with access enabled reaches it */
		ACL_CHECK(aclrtSetDevice(1));
		ACL_CHECK(aclrtMalloc(&dst, COPY_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
		ACL_CHECK(aclrtSetDevice(0));
	} else {
		ACL_CHECK(aclrtMalloc(&dst, COPY_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	}
	/*
	 * Device pages get host pages when first written: write both, with
	 * a few pages written in between, so that source and destination are
	 * not backed exactly COPY_SIZE apart - the same TLB-aliasing offset
	 * host_alloc() gives the memcpy baseline (bench.h).
	 */
	ACL_CHECK(aclrtMemset(src, COPY_SIZE, 0x5a, COPY_SIZE));
	ACL_CHECK(aclrtMemset(spacer, SPACER_SIZE, 0, SPACER_SIZE));
	ACL_CHECK(aclrtMemset(dst, COPY_SIZE, 0, COPY_SIZE));
	hsrc = host_alloc(COPY_SIZE, 0);
	hdst = host_alloc(COPY_SIZE, 17);	/* bench.h: no TLB aliasing */

	/* warm-up, then interleaved */
	ACL_CHECK(aclrtMemcpy(dst, COPY_SIZE, src, COPY_SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE));
	memcpy(hdst, hsrc, COPY_SIZE);
	for (i = 0; i < n; i++) {
		t0 = now_s();
		ACL_CHECK(aclrtMemcpy(dst, COPY_SIZE, src, COPY_SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE));
		td[i] = now_s() - t0;
		t0 = now_s();
		memcpy(hdst, hsrc, COPY_SIZE);
		__asm__ volatile("" : : "r"(hdst) : "memory");
		th[i] = now_s() - t0;
	}
	printf("raw %s_64MiB %.3f ms\n", tag, median(td, n) * 1e3);
	report_ms("b.memcpy_64MiB", median(th, n));
	printf("raw %s_rate %.3f GB/s\n", tag, COPY_SIZE / median(td, n) / 1e9);
	report_gbps("b.memcpy_rate", COPY_SIZE, median(th, n));
	ACL_CHECK(aclrtFree(src));
	ACL_CHECK(aclrtFree(spacer));
	if (peer)	/* memory is freed on the device that holds it */
		ACL_CHECK(aclrtSetDevice(1));
	ACL_CHECK(aclrtFree(dst));
	if (peer)
		ACL_CHECK(aclrtSetDevice(0));
	/* the ratio of each round, then their median: robust to a busy host */
	for (i = 0; i < n; i++)
		td[i] = th[i] / td[i];
	if (peer) {
		printf("info d2d_peer_vs_memcpy %.3f (npu0 -> npu1 through peer access; no target)\n",
		       median(td, n));
		return 0;
	}
	return report_ratio("d2d_vs_memcpy", median(td, n), ">=", 0.9);
}

/* Median of @n aclrtMalloc(4096) + aclrtFree cycles; out: the two halves. */
static double malloc_free_cycles(int n, double *t_malloc, double *t_free)
{
	double *s = malloc(n * sizeof(double)), *m = malloc(n * sizeof(double));
	double *f = malloc(n * sizeof(double)), r;
	int i;

	for (i = 0; i < n; i++) {
		double t0, t1, t2;
		void *p;

		t0 = now_s();
		ACL_CHECK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
		t1 = now_s();
		ACL_CHECK(aclrtFree(p));
		t2 = now_s();
		s[i] = t2 - t0;
		m[i] = t1 - t0;
		f[i] = t2 - t1;
	}
	r = median(s, n);
	*t_malloc = median(m, n);
	*t_free = median(f, n);
	free(s);
	free(m);
	free(f);
	return r;
}

static int bench_many_mappings(struct vmm_cycle *c)
{
	const int points[] = { 1, 1000, 10000 };
	double cyc[3] = { 0 }, mf[3] = { 0 }, t[4], told[4], tm, tf, t0;
	struct vmm_cycle fresh;
	void **live = calloc(live_max, sizeof(void *));
	int nlive = 0, p, i, miss = 0, n = cycles / 2;
	char name[64];

	if (!live)
		bench_die("out of memory");
	for (p = 0; p < 3; p++) {
		int want = points[p] > live_max ? live_max : points[p];
		int from = nlive;

		if (p && want == nlive) {	/* -N below this point: same as the last */
			cyc[p] = cyc[p - 1];
			mf[p] = mf[p - 1];
			continue;
		}

		t0 = now_s();
		for (; nlive < want; nlive++)
			ACL_CHECK(aclrtMalloc(&live[nlive], 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
		if (nlive > from) {
			snprintf(name, sizeof(name), "c.malloc_avg_%d_to_%d", from, nlive);
			report_us(name, (now_s() - t0) / (nlive - from));
		}
		/*
		 * A reservation and handle made now, after the live
		 * allocations, as an application's next one would be: a
		 * lookup structure that favours old entries cannot hide.
		 */
		vmm_cycle_init(&fresh);
		acl_map_cycles(&fresh, 50, t);	/* warm-up */
		acl_map_cycles(&fresh, n, t);
		vmm_cycle_fini(&fresh);
		cyc[p] = t[0];
		acl_map_cycles(c, n, told);
		snprintf(name, sizeof(name), "c.map_cycle_old_resv_live_%d", nlive);
		report_us(name, told[0]);
		mf[p] = malloc_free_cycles(n / 4, &tm, &tf);
		snprintf(name, sizeof(name), "c.map_cycle_live_%d", nlive);
		report_us(name, t[0]);
		snprintf(name, sizeof(name), "c.map_live_%d", nlive);
		report_us(name, t[1]);
		snprintf(name, sizeof(name), "c.set_access_live_%d", nlive);
		report_us(name, t[2]);
		snprintf(name, sizeof(name), "c.unmap_live_%d", nlive);
		report_us(name, t[3]);
		snprintf(name, sizeof(name), "c.malloc_free_4k_live_%d", nlive);
		report_us(name, mf[p]);
		snprintf(name, sizeof(name), "c.malloc_4k_live_%d", nlive);
		report_us(name, tm);
		snprintf(name, sizeof(name), "c.free_4k_live_%d", nlive);
		report_us(name, tf);
	}
	report_info("map_cycle_1000_vs_1", cyc[1] / cyc[0], "(scaling, no target)");
	report_info("malloc_free_1000_vs_1", mf[1] / mf[0], "(scaling, no target)");
	miss |= report_ratio("map_cycle_10000_vs_1", cyc[2] / cyc[0], "<=", 1.5);
	miss |= report_ratio("malloc_free_10000_vs_1", mf[2] / mf[0], "<=", 1.5);
	t0 = now_s();
	for (i = 0; i < nlive; i++)
		ACL_CHECK(aclrtFree(live[i]));
	report_us("c.free_avg_all", (now_s() - t0) / nlive);
	free(live);
	return miss;
}

int main(int argc, char **argv)
{
	struct vmm_cycle c;
	int opt, miss = 0;

	while ((opt = getopt(argc, argv, "n:N:r:")) != -1) {
		switch (opt) {
		case 'n': cycles = atoi(optarg); break;
		case 'N': live_max = atoi(optarg); break;
		case 'r': copy_reps = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-n CYCLES] [-N LIVE] [-r REPS]\n", argv[0]);
			return 2;
		}
	}
	if (cycles < 20 || live_max < 1 || copy_reps < 1)
		bench_die("bad arguments");
	bench_start("bench_vmm");
	note_cpu_copy_flags();
	vmm_cycle_init(&c);
	miss |= bench_map_cycle(&c);
	miss |= bench_d2d(false);
	if (aclrtDeviceEnablePeerAccess(1, 0) == ACL_SUCCESS)
		bench_d2d(true);
	else
		printf("note no second NPU with peer access: %s\n",
		       aclGetRecentErrMsg());
	miss |= bench_many_mappings(&c);
	vmm_cycle_fini(&c);
	bench_end();
	printf("note bench_vmm done: %s\n", miss ? "some targets missed" : "all targets met");
	return 0;
}
