// SPDX-License-Identifier: GPL-2.0
/*
 * bench_copy - host <-> device copies (issue "host page-locked memory"):
 *
 *  e) H2D and D2H throughput of aclrtMemcpy for pinned (aclrtMallocHost)
 *     and pageable (malloc) host memory, and plain memcpy host to host,
 *     over 4 KiB..256 MiB (powers of 4), pageable as libacl chooses (direct
 *     from 256 KiB) and forced staged: a table between "table-begin" and
 *     "table-end" lines (run-bench plots it). Targets at 64 MiB: pinned >=
 *     0.9x memcpy; pageable >= 0.9x pinned (each direction). Beside
 *     them, at 64 MiB: copy primitives and a device-free two-thread
 *     pipeline (pipe_copy()), the reference for staged copies.
 *  i) pageable copies forced direct vs forced staged, 4 KiB..4 MiB: the
 *     threshold libacl uses.
 *  g) aclrtMemcpyAsync submit latency (pinned 64 MiB H2D): the call's
 *     time <= 2% of the copy's (submit to synchronize).
 *  h) a 64 MiB pinned MemcpyAsync overlapped with a CPU loop of the same
 *     length, then synchronize: overlap efficiency
 *     (t(copy) + t(cpu) - t(both)) / min(t(copy), t(cpu)), 1 = full overlap,
 *     0 = serialized. Reported, no target.
 *
 * usage: bench_copy [-m MAX_MIB] [-t SECONDS_PER_POINT] [-r REPS]
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "bench.h"

#define TARGET_SIZE	(64 * MiB)

static size_t max_size = 256 * MiB;
static double point_time = 0.3;	/* seconds per table point, roughly */
static int reps = 7;

/*
 * Pageable columns: as libacl chooses by default (ACL_NPU_PAGEABLE_COPY
 * auto: direct from 256 KiB), and forced staged or direct.
 */
enum col {
	C_MEMCPY, C_PIN_H2D, C_PIN_D2H, C_PAGE_H2D, C_PAGE_D2H, C_STAGED_H2D, C_STAGED_D2H, NCOLS,
	/* copy primitives, host to host (bench.h) */
	C_REP_MOVSB = NCOLS, C_REP_MOVSQ, C_U64_LOOP,
	C_HOST_PIPE,	/* the staged copy's shape without a device: pipe_copy() */
	C_DIRECT_H2D, C_DIRECT_D2H,	/* forced direct, for the threshold (i) */
	NPRIMS
};
static const char *const col_name[NCOLS] = {
	"memcpy", "pinned_h2d", "pinned_d2h", "pageable_h2d", "pageable_d2h",
	"staged_h2d", "staged_d2h",
};

/* libacl reads ACL_NPU_PAGEABLE_COPY at every synchronous pageable copy. */
static void pageable_mode(const char *mode)
{
	if (setenv("ACL_NPU_PAGEABLE_COPY", mode, 1))
		bench_die("setenv");
}

struct bufs {
	void *dev;	/* device memory, written once */
	char *pinned;	/* aclrtMallocHost */
	char *page;	/* malloc */
	char *page2;	/* malloc, memcpy's destination */
	char *ring;	/* pipe_copy()'s two halves */
};

/* @cpu < 0: any CPU */
static void pin_to_cpu(pthread_t t, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu >= 0)
		CPU_SET(cpu, &set);
	else
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			CPU_SET(cpu, &set);
	pthread_setaffinity_np(t, sizeof(set), &set);
}

/*
 * The reference for staged copies: the same two-stage pipeline with no
 * device in it. The caller copies PIPE_HALF pieces into one half of a
 * buffer shaped like libacl's staging buffer (as run with CAP_IPC_LOCK)
 * while a thread on the other CPU copies the other half out, as the engine
 * does. What it costs beyond memcpy is what handing data between the two
 * CPUs through a small buffer costs on this host. The threads spin while
 * they wait (the engine sleeps), each on its own CPU, and the drain thread
 * is started per copy, at about the cost of waking the engine.
 */
#define PIPE_HALF	(4 * MiB)

struct pipe_state {
	char *ring, *dst;
	size_t n;
	atomic_size_t filled;	/* bytes the caller has put in the ring */
	atomic_size_t drained;	/* bytes the drain thread has taken out */
};

static void *pipe_drain(void *arg)
{
	struct pipe_state *p = arg;
	size_t off, len;

	for (off = 0; off < p->n; off += len) {
		len = p->n - off < PIPE_HALF ? p->n - off : PIPE_HALF;
		while (atomic_load_explicit(&p->filled, memory_order_acquire) < off + len)
			;
		memcpy(p->dst + off, p->ring + (off / PIPE_HALF % 2) * PIPE_HALF, len);
		atomic_store_explicit(&p->drained, off + len, memory_order_release);
	}
	return NULL;
}

static void pipe_copy(char *ring, char *dst, const char *src, size_t n)
{
	struct pipe_state p = { .ring = ring, .dst = dst, .n = n };
	size_t off, len;
	pthread_t t;

	int cpu = sched_getcpu();
	cpu_set_t was;

	pthread_getaffinity_np(pthread_self(), sizeof(was), &was);
	pin_to_cpu(pthread_self(), cpu);
	if (pthread_create(&t, NULL, pipe_drain, &p))
		bench_die("pthread_create");
	pin_to_cpu(t, cpu ? 0 : 1);
	for (off = 0; off < n; off += len) {
		len = n - off < PIPE_HALF ? n - off : PIPE_HALF;
		/* this half is free once the drain is done with its last piece */
		while (off >= 2 * PIPE_HALF &&
		       atomic_load_explicit(&p.drained, memory_order_acquire) < off - PIPE_HALF)
			;
		memcpy(ring + (off / PIPE_HALF % 2) * PIPE_HALF, src + off, len);
		atomic_store_explicit(&p.filled, off + len, memory_order_release);
	}
	pthread_join(t, NULL);
	pthread_setaffinity_np(pthread_self(), sizeof(was), &was);
}

static void one_copy(struct bufs *b, int c, size_t n)
{
	switch (c) {
	case C_MEMCPY:
		memcpy(b->page2, b->page, n);
		__asm__ volatile("" : : "r"(b->page2) : "memory");
		break;
	case C_PIN_H2D:
		ACL_CHECK(aclrtMemcpy(b->dev, n, b->pinned, n, ACL_MEMCPY_HOST_TO_DEVICE));
		break;
	case C_PIN_D2H:
		ACL_CHECK(aclrtMemcpy(b->pinned, n, b->dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
		break;
	case C_PAGE_H2D:
	case C_STAGED_H2D:
	case C_DIRECT_H2D:
		pageable_mode(c == C_PAGE_H2D ? "auto" : c == C_STAGED_H2D ? "staged" : "direct");
		ACL_CHECK(aclrtMemcpy(b->dev, n, b->page, n, ACL_MEMCPY_HOST_TO_DEVICE));
		break;
	case C_PAGE_D2H:
	case C_STAGED_D2H:
	case C_DIRECT_D2H:
		pageable_mode(c == C_PAGE_D2H ? "auto" : c == C_STAGED_D2H ? "staged" : "direct");
		ACL_CHECK(aclrtMemcpy(b->page, n, b->dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
		break;
	case C_REP_MOVSB:
		copy_rep_movsb_pages(b->page2, b->page, n);
		break;
	case C_REP_MOVSQ:
		copy_rep_movsq_pages(b->page2, b->page, n);
		break;
	case C_U64_LOOP:
		copy_u64_loop(b->page2, b->page, n);
		break;
	case C_HOST_PIPE:
		pipe_copy(b->ring, b->page2, b->page, n);
		break;
	default:
		break;
	}
}

/*
 * Time columns cols[0..ncols) at size n, interleaved: round r copies once
 * with every column, so that all columns see the same host (a busy host's
 * slow phases hit them alike). t[c][r] gets the seconds; returns the rounds
 * (3..MAX_ROUNDS, as many as fit point_time after a warm-up).
 */
#define MAX_ROUNDS 101

static int time_rounds(struct bufs *b, const int *cols, int ncols, size_t n, double t[][MAX_ROUNDS],
		       int min_rounds)
{
	double t0, est = 0;
	int c, r, k;

	for (c = 0; c < ncols; c++) {
		t0 = now_s();
		one_copy(b, cols[c], n);
		est += now_s() - t0;
	}
	k = est > 0 ? (int)(point_time / est) : MAX_ROUNDS;
	if (k < min_rounds)
		k = min_rounds;
	if (k > MAX_ROUNDS)
		k = MAX_ROUNDS;
	for (r = 0; r < k; r++)
		for (c = 0; c < ncols; c++) {
			t0 = now_s();
			one_copy(b, cols[c], n);
			t[c][r] = now_s() - t0;
		}
	return k;
}

/* Median over rounds of t[a][r] / t[b][r]: a ratio robust to slow phases. */
static double paired_ratio(double t[][MAX_ROUNDS], int a, int bb, int k)
{
	double q[MAX_ROUNDS];
	int r;

	for (r = 0; r < k; r++)
		q[r] = t[a][r] / t[bb][r];
	return median(q, k);
}

static int bench_table(struct bufs *b)
{
	static const int cols[NCOLS] = { C_MEMCPY, C_PIN_H2D, C_PIN_D2H, C_PAGE_H2D, C_PAGE_D2H,
					 C_STAGED_H2D, C_STAGED_D2H };
	static double t[NPRIMS][MAX_ROUNDS];
	size_t n;
	int c, k, miss = 0;

	printf("table-begin bytes");
	for (c = 0; c < NCOLS; c++)
		printf(" %s_GBps", col_name[c]);
	printf("\n");
	for (n = 4 * KiB; n <= max_size; n *= 4) {
		k = time_rounds(b, cols, NCOLS, n, t, 3);
		printf("table %zu", n);
		for (c = 0; c < NCOLS; c++)
			printf(" %.4f", n / median(t[c], k) / 1e9);
		printf("\n");
		fflush(stdout);
	}
	printf("table-end\n");

	/*
	 * The targets at 64 MiB: more rounds, ratios of the same round. Then
	 * where a gap to memcpy goes: the copy primitives the simulated engine
	 * may run (bench.h), on the same host buffers.
	 */
	{
		static const int all[] = {
			C_MEMCPY, C_PIN_H2D, C_PIN_D2H, C_PAGE_H2D, C_PAGE_D2H, C_STAGED_H2D,
			C_STAGED_D2H, C_REP_MOVSB, C_REP_MOVSQ, C_U64_LOOP, C_HOST_PIPE,
		};
		static const char *const prim[] = {
			"rep_movsb_4k", "rep_movsq_4k", "u64_loop", "host_pipeline",
		};
		char name[64];
		double tt[NPRIMS][MAX_ROUNDS];

		k = time_rounds(b, all, C_HOST_PIPE + 1, TARGET_SIZE, tt, 7);
		printf("note e: 64 MiB, %d interleaved rounds\n", k);
		for (c = 0; c <= C_HOST_PIPE; c++) {
			snprintf(name, sizeof(name), "e.%s_64MiB", c < NCOLS ? col_name[c] : prim[c - NCOLS]);
			report_gbps(name, TARGET_SIZE, median(tt[c], k));
		}
		for (c = C_REP_MOVSB; c < C_HOST_PIPE; c++) {
			snprintf(name, sizeof(name), "%s_vs_memcpy_64M", prim[c - C_REP_MOVSB]);
			report_info(name, paired_ratio(tt, C_MEMCPY, c, k), "(copy primitive reference)");
		}
		report_info("host_pipeline_vs_memcpy_64M", paired_ratio(tt, C_MEMCPY, C_HOST_PIPE, k),
			    "(two threads through 2 x 4 MiB, no device: a staged copy's reference)");
		report_info("staged_h2d_vs_host_pipeline_64M",
			    paired_ratio(tt, C_HOST_PIPE, C_STAGED_H2D, k), "(1 = as fast as the bound)");
		report_info("staged_d2h_vs_host_pipeline_64M",
			    paired_ratio(tt, C_HOST_PIPE, C_STAGED_D2H, k), "(1 = as fast as the bound)");
		/* the staged path's figure, the old target's, beside the direct one */
		report_info("staged_h2d_vs_pinned_64M", paired_ratio(tt, C_PIN_H2D, C_STAGED_H2D, k),
			    "(ACL_NPU_PAGEABLE_COPY=staged, CANN's mechanism; was the pageable figure)");
		report_info("staged_d2h_vs_pinned_64M", paired_ratio(tt, C_PIN_D2H, C_STAGED_D2H, k),
			    "(ACL_NPU_PAGEABLE_COPY=staged)");
		miss |= report_ratio("pinned_h2d_vs_memcpy_64M", paired_ratio(tt, C_MEMCPY, C_PIN_H2D, k), ">=", 0.9);
		miss |= report_ratio("pinned_d2h_vs_memcpy_64M", paired_ratio(tt, C_MEMCPY, C_PIN_D2H, k), ">=", 0.9);
		/* the default path at 64 MiB is direct: the driver pins for the copy */
		miss |= report_ratio("pageable_h2d_vs_pinned_64M", paired_ratio(tt, C_PIN_H2D, C_PAGE_H2D, k), ">=", 0.9);
		miss |= report_ratio("pageable_d2h_vs_pinned_64M", paired_ratio(tt, C_PIN_D2H, C_PAGE_D2H, k), ">=", 0.9);
	}
	return miss;
}

/*
 * i) Where direct pageable copies start to pay: forced direct vs forced
 * staged, interleaved, 4 KiB..4 MiB (libacl's ACL_DIRECT_MIN comes from
 * here). info i.staged_vs_direct_*: t(staged) / t(direct), > 1 where
 * direct is faster.
 */
static void bench_threshold(struct bufs *b)
{
	static const int cols[4] = { C_STAGED_H2D, C_DIRECT_H2D, C_STAGED_D2H, C_DIRECT_D2H };
	static double t[4][MAX_ROUNDS];
	char name[64];
	size_t n;
	int k;

	for (n = 4 * KiB; n <= 4 * MiB && n <= max_size; n *= 2) {
		k = time_rounds(b, cols, 4, n, t, 9);
		snprintf(name, sizeof(name), "i.staged_vs_direct_h2d_%lluK", (unsigned long long)(n / KiB));
		report_info(name, paired_ratio(t, 0, 1, k), "(> 1: direct is faster)");
		snprintf(name, sizeof(name), "i.staged_vs_direct_d2h_%lluK", (unsigned long long)(n / KiB));
		report_info(name, paired_ratio(t, 2, 3, k), "(> 1: direct is faster)");
		snprintf(name, sizeof(name), "i.direct_h2d_%lluK", (unsigned long long)(n / KiB));
		report_us(name, median(t[1], k));
		snprintf(name, sizeof(name), "i.staged_h2d_%lluK", (unsigned long long)(n / KiB));
		report_us(name, median(t[0], k));
	}
	pageable_mode("auto");
}

/*
 * The guest's own cost of waking a thread on the other CPU and back (two
 * pipes, one thread per vCPU): what a submit (waking the engine's worker)
 * and a synchronize (woken by it) pay at least. Under TCG on a busy host
 * this is where milliseconds go.
 */
static int ping[2], pong[2];

static void *pong_thread(void *arg)
{
	char c;

	(void)arg;
	while (read(ping[0], &c, 1) == 1 && c)
		if (write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

static double wakeup_roundtrip(int n)
{
	double s[201], t0;
	pthread_t th;
	char c = 1;
	int i;

	if (n > 201)
		n = 201;
	SYS_CHECK(pipe(ping));
	SYS_CHECK(pipe(pong));
	if (pthread_create(&th, NULL, pong_thread, NULL))
		bench_die("pthread_create");
	pin_to_cpu(th, 1);
	pin_to_cpu(pthread_self(), 0);
	for (i = 0; i < n; i++) {
		t0 = now_s();
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			bench_die("ping-pong: %s", strerror(errno));
		s[i] = now_s() - t0;
	}
	c = 0;
	if (write(ping[1], &c, 1) != 1)
		bench_die("ping-pong: %s", strerror(errno));
	pthread_join(th, NULL);
	pin_to_cpu(pthread_self(), -1);
	close(ping[0]);
	close(ping[1]);
	close(pong[0]);
	close(pong[1]);
	return median(s, n);
}

/* g) the MemcpyAsync call vs the whole copy, both directions. */
static int bench_submit(struct bufs *b, aclrtStream st)
{
	double sub[2][32], all[2][32], t0, t1, ms[2], ma[2];
	int i, d, n = reps > 32 ? 32 : reps;

	for (d = 0; d < 2; d++) {
		void *dst = d ? (void *)b->pinned : b->dev;
		void *src = d ? b->dev : (void *)b->pinned;
		aclrtMemcpyKind kind = d ? ACL_MEMCPY_DEVICE_TO_HOST : ACL_MEMCPY_HOST_TO_DEVICE;

		ACL_CHECK(aclrtMemcpyAsync(dst, TARGET_SIZE, src, TARGET_SIZE, kind, st));
		ACL_CHECK(aclrtSynchronizeStream(st));
		for (i = 0; i < n; i++) {
			t0 = now_s();
			ACL_CHECK(aclrtMemcpyAsync(dst, TARGET_SIZE, src, TARGET_SIZE, kind, st));
			t1 = now_s();
			ACL_CHECK(aclrtSynchronizeStream(st));
			sub[d][i] = t1 - t0;
			all[d][i] = now_s() - t0;
		}
		ms[d] = median(sub[d], n);
		ma[d] = median(all[d], n);
	}
	/* the call alone: a 4 KiB copy leaves the engine nothing to do */
	for (i = 0; i < n; i++) {
		t0 = now_s();
		ACL_CHECK(aclrtMemcpyAsync(b->dev, 4096, b->pinned, 4096, ACL_MEMCPY_HOST_TO_DEVICE, st));
		sub[0][i] = now_s() - t0;
		ACL_CHECK(aclrtSynchronizeStream(st));
	}
	report_us("g.submit_h2d_4KiB", median(sub[0], n));
	/* a synchronous 4 KiB copy: one submit, one wait, next to the guest's wakeups */
	for (i = 0; i < n; i++) {
		t0 = now_s();
		ACL_CHECK(aclrtMemcpy(b->dev, 4096, b->pinned, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
		all[0][i] = now_s() - t0;
	}
	report_us("g.sync_copy_4KiB", median(all[0], n));
	t0 = wakeup_roundtrip(200);
	report_us("g.cpu_wakeup_roundtrip", t0);
	report_info("sync_copy_4KiB_vs_wakeup_roundtrip", median(all[0], n) / t0,
		    "(~1: a small copy costs what two cross-CPU wakeups cost)");
	report_us("g.submit_h2d_64MiB", ms[0]);
	report_ms("g.copy_h2d_64MiB", ma[0]);
	report_us("g.submit_d2h_64MiB", ms[1]);
	report_ms("g.copy_d2h_64MiB", ma[1]);
	report_info("submit_latency_d2h", ms[1] / ma[1], "(fraction of the copy, D2H)");
	return report_ratio("submit_latency_h2d", ms[0] / ma[0], "<=", 0.02);
}

static uint64_t cpu_sink;

/* CPU work that stays in registers (no memory traffic to compete with DMA). */
static void cpu_work(uint64_t iters)
{
	uint64_t x = cpu_sink | 1, i;

	for (i = 0; i < iters; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	cpu_sink = x;
}

static double time_async_copy(struct bufs *b, aclrtStream st)
{
	double t0 = now_s();

	ACL_CHECK(aclrtMemcpyAsync(b->dev, TARGET_SIZE, b->pinned, TARGET_SIZE, ACL_MEMCPY_HOST_TO_DEVICE, st));
	ACL_CHECK(aclrtSynchronizeStream(st));
	return now_s() - t0;
}

static double time_cpu_work(uint64_t iters)
{
	double t0 = now_s();

	cpu_work(iters);
	return now_s() - t0;
}

/* h) overlap of an async copy with CPU work of about the copy's length. */
static void bench_overlap(struct bufs *b, aclrtStream st)
{
	double tc[32], tk[32], tb[32], t0, mc, mk, mb, eff;
	uint64_t iters = 1 << 16;
	int i, n = reps > 32 ? 32 : reps;

	/* the copy's time now, then CPU work of the same length (two passes) */
	for (i = 0; i < 3; i++)
		tc[i] = time_async_copy(b, st);
	mc = median(tc, 3);
	while ((t0 = time_cpu_work(iters)) < mc / 8 && iters < (1ULL << 40))
		iters *= 2;
	iters = (uint64_t)(iters * (mc / t0));
	for (i = 0; i < 3; i++)
		tk[i] = time_cpu_work(iters);
	iters = (uint64_t)(iters * (mc / median(tk, 3)));

	for (i = 0; i < n; i++) {
		tc[i] = time_async_copy(b, st);
		tk[i] = time_cpu_work(iters);
		t0 = now_s();
		ACL_CHECK(aclrtMemcpyAsync(b->dev, TARGET_SIZE, b->pinned, TARGET_SIZE,
					   ACL_MEMCPY_HOST_TO_DEVICE, st));
		cpu_work(iters);
		ACL_CHECK(aclrtSynchronizeStream(st));
		tb[i] = now_s() - t0;
	}
	mc = median(tc, n);
	mk = median(tk, n);
	mb = median(tb, n);
	eff = (mc + mk - mb) / (mc < mk ? mc : mk);
	report_ms("h.copy_alone", mc);
	report_ms("h.cpu_alone", mk);
	report_ms("h.both", mb);
	report_info("overlap_efficiency", eff, "(1 = full overlap, 0 = serialized; no target)");
	report_info("overlap_both_vs_sum", mb / (mc + mk), "(0.5 = ideal for equal halves)");
	if (eff < 0.7)
		printf("note h: the guest's two vCPUs did not run in parallel: pipelined copies "
		       "(pageable) and latencies are not meaningful in this run (a busy host?)\n");
}

int main(int argc, char **argv)
{
	size_t alloc;
	struct bufs b;
	aclrtStream st;
	int opt, miss = 0;

	while ((opt = getopt(argc, argv, "m:t:r:")) != -1) {
		switch (opt) {
		case 'm': max_size = (size_t)atoi(optarg) * MiB; break;
		case 't': point_time = atof(optarg); break;
		case 'r': reps = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-m MAX_MIB] [-t SECONDS] [-r REPS]\n", argv[0]);
			return 2;
		}
	}
	if (max_size < 4 * KiB || point_time <= 0 || reps < 1)
		bench_die("bad arguments");
	bench_start("bench_copy");
	note_cpu_copy_flags();
	alloc = max_size > TARGET_SIZE ? max_size : TARGET_SIZE;
	ACL_CHECK(aclrtMalloc(&b.dev, alloc, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_CHECK(aclrtMemset(b.dev, alloc, 0x11, alloc));
	ACL_CHECK(aclrtMallocHost((void **)&b.pinned, alloc));
	/* pageable: anonymous memory as malloc gives it, placed apart (bench.h) */
	b.page = host_alloc(alloc, 0);
	b.page2 = host_alloc(alloc, 17);
	b.ring = host_alloc(2 * PIPE_HALF, 37);
	memset(b.pinned, 0x22, alloc);
	ACL_CHECK(aclrtCreateStream(&st));

	miss |= bench_table(&b);
	bench_threshold(&b);
	miss |= bench_submit(&b, st);
	bench_overlap(&b, st);

	ACL_CHECK(aclrtDestroyStream(st));
	ACL_CHECK(aclrtFreeHost(b.pinned));
	ACL_CHECK(aclrtFree(b.dev));
	bench_end();
	printf("note bench_copy done: %s\n", miss ? "some targets missed" : "all targets met");
	return 0;
}
