// SPDX-License-Identifier: GPL-2.0
/*
 * bench_batch - many copies as one device submission (issue 12):
 *
 *  a) a batch of 1000 4 KiB H2D copies from pinned host memory
 *     (aclrtMemcpyBatch, one SUBMIT) against 1000 aclrtMemcpy calls of
 *     the same copies. Target: the batch at most 0.3 of the loop's time.
 *  b) a 2D copy of 1000 rows of 4 KiB, pitches 8 KiB, H2D from pinned
 *     memory (aclrtMemcpy2d, one COPY_2D command) against the loop of
 *     aclrtMemcpy per row. Reported, no target.
 *
 * Each repetition times both forms back to back, in one boot; the ratio
 * is the median's.
 *
 * usage: bench_batch [-r REPS] [-n COPIES]
 */
#include "bench.h"

#define COPY		(4 * KiB)
#define PITCH		(8 * KiB)

static int reps = 9;
static size_t n = 1000;

static double time_loop(char *dev, size_t dpitch, char *pin, size_t spitch)
{
	double t0 = now_s();
	size_t i;

	for (i = 0; i < n; i++)
		ACL_CHECK(aclrtMemcpy(dev + i * dpitch, COPY, pin + i * spitch, COPY, ACL_MEMCPY_HOST_TO_DEVICE));
	return now_s() - t0;
}

static double time_batch(void **dsts, void **srcs, size_t *sizes)
{
	aclrtMemcpyBatchAttr attr = {
		.dstLoc = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
		.srcLoc = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_HOST },
	};
	size_t idx = 0, fail;
	double t0 = now_s();

	ACL_CHECK(aclrtMemcpyBatch(dsts, sizes, srcs, sizes, n, &attr, &idx, 1, &fail));
	return now_s() - t0;
}

static double time_2d(char *dev, char *pin)
{
	double t0 = now_s();

	ACL_CHECK(aclrtMemcpy2d(dev, PITCH, pin, PITCH, COPY, n, ACL_MEMCPY_HOST_TO_DEVICE));
	return now_s() - t0;
}

/* Both forms wrote the same bytes: the device holds the pinned rows. */
static void verify(char *dev, size_t dpitch, char *pin, size_t spitch, char *back)
{
	size_t i;

	ACL_CHECK(aclrtMemcpy(back, n * dpitch, dev, n * dpitch, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < n; i++)
		if (memcmp(back + i * dpitch, pin + i * spitch, COPY))
			bench_die("copy %zu differs", i);
}

int main(int argc, char **argv)
{
	double loop[64], batch[64], loop2[64], two[64], r;
	void **dsts, **srcs;
	char *dev, *pin, *back;
	size_t *sizes, i;
	int opt, k;

	while ((opt = getopt(argc, argv, "r:n:")) != -1) {
		switch (opt) {
		case 'r': reps = atoi(optarg); break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [-r REPS] [-n COPIES]\n", argv[0]);
			return 2;
		}
	}
	if (reps < 1 || reps > 64 || !n || n > 4096)
		bench_die("bad arguments");
	bench_start("bench_batch");
	ACL_CHECK(aclrtMalloc((void **)&dev, n * PITCH, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_CHECK(aclrtMemset(dev, n * PITCH, 0, n * PITCH));
	ACL_CHECK(aclrtMallocHost((void **)&pin, n * PITCH));
	back = host_alloc(n * PITCH, 7);
	for (i = 0; i < n * PITCH; i++)
		pin[i] = (char)(i * 131 + (i >> 12));
	dsts = calloc(n, sizeof(*dsts));
	srcs = calloc(n, sizeof(*srcs));
	sizes = calloc(n, sizeof(*sizes));
	if (!dsts || !srcs || !sizes)
		bench_die("out of memory");
	for (i = 0; i < n; i++) {
		dsts[i] = dev + i * COPY;
		srcs[i] = pin + i * COPY;
		sizes[i] = COPY;
	}
	/* warm: the copy stream, the page tables, the device pages */
	time_loop(dev, COPY, pin, COPY);
	time_batch(dsts, srcs, sizes);
	time_2d(dev, pin);

	for (k = 0; k < reps; k++) {
		loop[k] = time_loop(dev, COPY, pin, COPY);
		batch[k] = time_batch(dsts, srcs, sizes);
		loop2[k] = time_loop(dev, PITCH, pin, PITCH);
		two[k] = time_2d(dev, pin);
	}
	ACL_CHECK(aclrtMemset(dev, n * PITCH, 0, n * PITCH));
	time_batch(dsts, srcs, sizes);
	verify(dev, COPY, pin, COPY, back);
	ACL_CHECK(aclrtMemset(dev, n * PITCH, 0, n * PITCH));
	time_2d(dev, pin);
	verify(dev, PITCH, pin, PITCH, back);

	report_ms("a.loop_memcpy_1000x4k", median(loop, reps));
	report_ms("a.batch_1000x4k", median(batch, reps));
	r = median(batch, reps) / median(loop, reps);
	report_info("batch_vs_loop", r, "(aclrtMemcpyBatch of 1000 4 KiB H2D / 1000 aclrtMemcpy)");
	report_ratio("batch_1000x4k_h2d", r, "<=", 0.30);
	report_ms("b.loop_memcpy_rows_1000x4k", median(loop2, reps));
	report_ms("b.memcpy2d_1000x4k", median(two, reps));
	report_info("memcpy2d_vs_row_loop", median(two, reps) / median(loop2, reps),
		    "(aclrtMemcpy2d of 1000 4 KiB rows / aclrtMemcpy per row)");

	free(dsts);
	free(srcs);
	free(sizes);
	ACL_CHECK(aclrtFreeHost(pin));
	ACL_CHECK(aclrtFree(dev));
	bench_end();
	return 0;
}
