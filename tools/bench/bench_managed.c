// SPDX-License-Identifier: GPL-2.0
/*
 * bench_managed - managed memory (aclrtMemAllocManaged: the device
 * reaches host memory through its HMM mirror, faulting pages in).
 *
 *   a) the device reading managed memory after first touch (every page
 *      faulted in already) against the device reading pinned memory
 *      (aclrtMallocHost), 64 MiB each into device memory: throughput
 *      ratio, target >= 0.8 (issue 15);
 *   b) the cost of a first-touch device fault per 4 KiB page (a device
 *      write of fresh managed memory, minus the same write once the pages
 *      are there) against a CPU page fault on the same kind of memory (a
 *      write of one byte per page of fresh managed memory): report,
 *      target <= 3.
 *
 * Operation and baseline are interleaved, ratios are medians of per-round
 * ratios (Documentation/benchmarks.rst, "Method").
 */
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"

static size_t size = 64 * MiB;		/* a) */
static size_t fault_size = 32 * MiB;	/* b), per round */
static int rounds = 9;

static double time_h2d(void *dev, const void *src, size_t n)
{
	double t0 = now_s();

	ACL_CHECK(aclrtMemcpy(dev, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE));
	return now_s() - t0;
}

static int bench_read(void)
{
	double ratio[64], tm[64], tp[64];
	void *dev, *pinned, *managed;
	int r, miss;

	ACL_CHECK(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_CHECK(aclrtMemset(dev, size, 0x11, size));
	ACL_CHECK(aclrtMallocHost(&pinned, size));
	memset(pinned, 0x22, size);
	ACL_CHECK(aclrtMemAllocManaged(&managed, size, ACL_RT_MEM_ATTACH_GLOBAL));
	memset(managed, 0x33, size);
	/* first touch by the device, and a warm-up of both */
	time_h2d(dev, managed, size);
	time_h2d(dev, pinned, size);
	for (r = 0; r < rounds; r++) {
		tm[r] = time_h2d(dev, managed, size);
		tp[r] = time_h2d(dev, pinned, size);
		ratio[r] = tp[r] / tm[r];
	}
	report_gbps("managed_read_64M", size, median(tm, rounds));
	report_gbps("pinned_read_64M", size, median(tp, rounds));
	miss = report_ratio("managed_read_vs_pinned_64M", median(ratio, rounds), ">=", 0.8);
	ACL_CHECK(aclrtFree(managed));
	ACL_CHECK(aclrtFreeHost(pinned));
	ACL_CHECK(aclrtFree(dev));
	return miss;
}

static int bench_fault(void)
{
	size_t pages = fault_size / 4096, off;
	double ratio[64], tdev[64], tcpu[64];
	int r, miss;

	for (r = -1; r < rounds; r++) {
		volatile char *cpu;
		void *m;
		double t0, first, again, c;

		/* the device: fresh memory written, then written again */
		ACL_CHECK(aclrtMemAllocManaged(&m, fault_size, ACL_RT_MEM_ATTACH_GLOBAL));
		t0 = now_s();
		ACL_CHECK(aclrtMemset(m, fault_size, 0x44, fault_size));
		first = now_s() - t0;
		t0 = now_s();
		ACL_CHECK(aclrtMemset(m, fault_size, 0x45, fault_size));
		again = now_s() - t0;
		ACL_CHECK(aclrtFree(m));
		/* the CPU: fresh memory of the same kind, a byte per page */
		ACL_CHECK(aclrtMemAllocManaged(&m, fault_size, ACL_RT_MEM_ATTACH_GLOBAL));
		cpu = m;
		t0 = now_s();
		for (off = 0; off < fault_size; off += 4096)
			cpu[off] = 1;
		c = now_s() - t0;
		ACL_CHECK(aclrtFree(m));
		if (r < 0)
			continue;	/* warm-up */
		tdev[r] = (first - again) / pages;
		tcpu[r] = c / pages;
		ratio[r] = tdev[r] / tcpu[r];
	}
	report_us("device_first_touch_fault_per_4k", median(tdev, rounds));
	report_us("cpu_page_fault_per_4k", median(tcpu, rounds));
	miss = report_ratio("device_fault_vs_cpu_fault_4k", median(ratio, rounds), "<=", 3.0);
	return miss;
}

int main(int argc, char **argv)
{
	int opt, miss = 0;

	while ((opt = getopt(argc, argv, "m:f:r:")) != -1) {
		switch (opt) {
		case 'm': size = (size_t)atoi(optarg) * MiB; break;
		case 'f': fault_size = (size_t)atoi(optarg) * MiB; break;
		case 'r': rounds = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-m READ_MIB] [-f FAULT_MIB] [-r ROUNDS]\n", argv[0]);
			return 2;
		}
	}
	if (!size || fault_size < 4096 || rounds < 1 || rounds > 64)
		bench_die("bad arguments");
	bench_start("bench_managed");
	miss |= bench_read();
	miss |= bench_fault();
	bench_end();
	printf("note bench_managed done: %s\n", miss ? "some targets missed" : "all targets met");
	return 0;
}
