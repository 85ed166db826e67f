// SPDX-License-Identifier: GPL-2.0
/*
 * bench_stream - streams, events and callbacks (issue "CANN programs run
 * unchanged"):
 *
 *  a) event timing: a 64 MiB pinned H2D copy between two records, the
 *     events' elapsed time against the host clock around the same copy as
 *     a synchronous aclrtMemcpy. Target: within 10% (|1 - ratio| <= 0.10).
 *  b) a blocking callback's cost in its stream: the time a stream of
 *     callback + 4 KiB copy pairs takes per pair, against the copy alone.
 *     Reported, no target.
 *  c) a cross-stream event wait: time from the record's command to the
 *     waiting stream's next command completing. Reported, no target.
 *  d) fairness: the latency of one small command (an 8-byte memset and
 *     the stream's synchronisation) while 8 other streams are kept busy
 *     with long device copies, against the same on an idle engine. The
 *     engine gives each stream a bounded turn, so the small command waits
 *     for at most a turn per channel, not for the others' queues (issue
 *     "soundness after the second kernel review"). Reported, no target.
 *
 * usage: bench_stream [-r REPS]
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "bench.h"

#define COPY_SIZE	(64 * MiB)

static int reps = 9;

static void bench_event_timing(void *dev, void *pinned, aclrtStream st)
{
	double ev[64], wall[64], t0, r;
	aclrtEvent a, b;
	float ms;
	int i, n = reps > 64 ? 64 : reps;

	ACL_CHECK(aclrtCreateEvent(&a));
	ACL_CHECK(aclrtCreateEvent(&b));
	/*
	 * The clock around the very work the events bracket, on the same
	 * engine channel: a synchronous aclrtMemcpy runs in the caller's
	 * own context since driver 1.5, on another (virtual) CPU.
	 */
	for (i = 0; i < n; i++) {
		t0 = now_s();
		ACL_CHECK(aclrtRecordEvent(a, st));
		ACL_CHECK(aclrtMemcpyAsync(dev, COPY_SIZE, pinned, COPY_SIZE, ACL_MEMCPY_HOST_TO_DEVICE, st));
		ACL_CHECK(aclrtRecordEvent(b, st));
		ACL_CHECK(aclrtSynchronizeStream(st));
		wall[i] = now_s() - t0;
		ACL_CHECK(aclrtEventElapsedTime(&ms, a, b));
		ev[i] = ms / 1e3;
	}
	report_ms("a.events", median(ev, n));
	report_ms("a.clock", median(wall, n));
	r = median(ev, n) / median(wall, n);
	report_info("event_vs_clock", r, "(events' elapsed time / host clock around the recorded copy, 64 MiB)");
	report_ratio("event_timing_error", fabs(1 - r), "<=", 0.10);
	ACL_CHECK(aclrtDestroyEvent(a));
	ACL_CHECK(aclrtDestroyEvent(b));
}

static void nop_fn(void *arg)
{
	atomic_fetch_add((atomic_int *)arg, 1);
}

static double time_pairs(void *dev, void *pinned, aclrtStream st, int pairs, bool callbacks,
			 atomic_int *count)
{
	double t0 = now_s();
	int i;

	for (i = 0; i < pairs; i++) {
		if (callbacks)
			ACL_CHECK(aclrtLaunchHostFunc(st, nop_fn, count));
		ACL_CHECK(aclrtMemcpyAsync(dev, 4096, pinned, 4096, ACL_MEMCPY_HOST_TO_DEVICE, st));
	}
	ACL_CHECK(aclrtSynchronizeStream(st));
	return (now_s() - t0) / pairs;
}

static void bench_callbacks(void *dev, void *pinned, aclrtStream st)
{
	double plain[16], cb[16];
	atomic_int count = 0;
	int i, n = reps > 16 ? 16 : reps;

	for (i = 0; i < n; i++) {
		plain[i] = time_pairs(dev, pinned, st, 200, false, &count);
		cb[i] = time_pairs(dev, pinned, st, 200, true, &count);
	}
	if (atomic_load(&count) != 200 * n)
		bench_die("callbacks: %d ran, %d launched", atomic_load(&count), 200 * n);
	report_us("b.copy_4k", median(plain, n));
	report_us("b.hostfunc_plus_copy_4k", median(cb, n));
	report_info("hostfunc_cost_us", (median(cb, n) - median(plain, n)) * 1e6,
		    "(a blocking host function's cost in its stream)");
}

static void bench_event_wait(void *dev, void *pinned, aclrtStream st)
{
	double lat[64];
	aclrtStream other;
	aclrtEvent e;
	int i, n = reps > 64 ? 64 : reps;

	ACL_CHECK(aclrtCreateStream(&other));
	ACL_CHECK(aclrtCreateEvent(&e));
	for (i = 0; i < n; i++) {
		double t0 = now_s();

		ACL_CHECK(aclrtMemcpyAsync(dev, 4096, pinned, 4096, ACL_MEMCPY_HOST_TO_DEVICE, st));
		ACL_CHECK(aclrtRecordEvent(e, st));
		ACL_CHECK(aclrtStreamWaitEvent(other, e));
		ACL_CHECK(aclrtMemcpyAsync((char *)dev + 4096, 4096, pinned, 4096, ACL_MEMCPY_HOST_TO_DEVICE, other));
		ACL_CHECK(aclrtSynchronizeStream(other));
		lat[i] = now_s() - t0;
	}
	report_us("c.copy_event_wait_copy", median(lat, n));
	ACL_CHECK(aclrtDestroyEvent(e));
	ACL_CHECK(aclrtDestroyStream(other));
}

#define BUSY_STREAMS	8
#define BUSY_COPIES	64

/* Worst of @n small commands on @st, each submitted and waited for. */
static void small_latencies(void *small, aclrtStream st, double *t, int n)
{
	double t0;
	int i;

	for (i = 0; i < n; i++) {
		t0 = now_s();
		ACL_CHECK(aclrtMemsetAsync(small, 8, i, 8, st));
		ACL_CHECK(aclrtSynchronizeStream(st));
		t[i] = now_s() - t0;
		usleep(2000);
	}
}

static void bench_fairness(void *dev, aclrtStream st)
{
	double idle[64], busy[64];
	aclrtStream others[BUSY_STREAMS];
	char *big = dev, *small;
	int i, k, n = reps > 64 ? 64 : reps;

	ACL_CHECK(aclrtMalloc((void **)&small, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	small_latencies(small, st, idle, 2);
	small_latencies(small, st, idle, n);
	for (k = 0; k < BUSY_STREAMS; k++) {
		ACL_CHECK(aclrtCreateStream(&others[k]));
		for (i = 0; i < BUSY_COPIES; i++)
			ACL_CHECK(aclrtMemcpyAsync(big + COPY_SIZE / 2, COPY_SIZE / 2, big,
						   COPY_SIZE / 2, ACL_MEMCPY_DEVICE_TO_DEVICE,
						   others[k]));
	}
	usleep(100000);
	small_latencies(small, st, busy, n);
	for (k = 0; k < BUSY_STREAMS; k++)
		ACL_CHECK(aclrtDestroyStreamForce(others[k]));
	report_us("d.small_cmd_idle", median(idle, n));
	report_us("d.small_cmd_8_busy", median(busy, n));
	report_us("d.small_cmd_8_busy_worst", maximum(busy, n));
	report_info("small_cmd_busy_vs_idle", median(busy, n) / median(idle, n),
		    "(8-byte memset + sync with 8 streams copying 32 MiB pieces / on an idle engine)");
	ACL_CHECK(aclrtFree(small));
}

int main(int argc, char **argv)
{
	aclrtStream st;
	void *dev, *pinned;
	int opt;

	while ((opt = getopt(argc, argv, "r:")) != -1) {
		switch (opt) {
		case 'r': reps = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-r REPS]\n", argv[0]);
			return 2;
		}
	}
	if (reps < 1)
		bench_die("bad arguments");
	bench_start("bench_stream");
	ACL_CHECK(aclrtMalloc(&dev, COPY_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_CHECK(aclrtMemset(dev, COPY_SIZE, 0, COPY_SIZE));
	ACL_CHECK(aclrtMallocHost(&pinned, COPY_SIZE));
	memset(pinned, 0x5a, COPY_SIZE);
	ACL_CHECK(aclrtCreateStream(&st));

	bench_event_timing(dev, pinned, st);
	bench_callbacks(dev, pinned, st);
	bench_event_wait(dev, pinned, st);
	bench_fairness(dev, st);

	ACL_CHECK(aclrtDestroyStream(st));
	ACL_CHECK(aclrtFreeHost(pinned));
	ACL_CHECK(aclrtFree(dev));
	bench_end();
	return 0;
}
