// SPDX-License-Identifier: GPL-2.0
/*
 * tests/npu_stress_test.c - concurrency stress: several processes, each
 * with several threads, issue random but well-formed sequences of every
 * ioctl against their own and each other's objects for a bounded time,
 * while the test SIGKILLs workers mid-run and starts new ones.
 *
 * Each worker process opens a few *shared* contexts (two on /dev/npu0,
 * one on /dev/npu1 when there are two NPUs) that all its threads use at
 * once, each ioctl on a dup() of the context's fd made for that call:
 *
 *  - constructive calls (MEM_ALLOC, VA_RESERVE, MAP, HOST_REGISTER with
 *    and without NPU_HOST_MAPPED, STREAM_CREATE, SHARE_EXPORT/IMPORT,
 *    PEER_ENABLE) pick their objects from the worker's tables without
 *    holding them, so they race with each other and with the destructive
 *    calls of other threads: the result must be one of the errors the
 *    uapi documents for the situations the race allows (MAP: 0, -ENOENT,
 *    -EADDRINUSE, -EINVAL; HOST_REGISTER: 0, -EEXIST, -EADDRINUSE; ...);
 *  - destructive calls (MEM_FREE, VA_RELEASE, UNMAP, HOST_UNREGISTER,
 *    STREAM_DESTROY with and without FORCE) first take their object out of
 *    the table, so exactly one thread undoes a given object: they must
 *    succeed (VA_RELEASE may also say -EBUSY);
 *  - SUBMITs of COPY (H2D, D2H, D2D, H2H, peer copies to and from the
 *    other NPU's shared context after PEER_ENABLE), MEMSET, RANDOM (its
 *    counter read and stored back in the same range), WRITE_VALUE,
 *    TIMESTAMP and WAIT_VALUE on several streams reach memory that other
 *    threads unmap, unregister, free and re-map meanwhile: a DMA fault is
 *    allowed then (STREAM_SYNC -EIO), so the whole run is an
 *    expected-fault region (npu_expect_dma_faults()); a quarter of them
 *    go as a model (MODEL_CREATE), run once or twice (NPU_OP_MODEL) and
 *    destroyed at once, the runs outliving it, or left to the close;
 *  - a thread closes a shared context's fd and opens a new one while the
 *    other threads are using dups of it (the last close, and so release()
 *    with DMA in flight, happens in whichever thread closes last).
 *
 * Each thread also runs *verified* sequences in contexts of its own, whose
 * every step has one right answer and whose data is compared: copies
 * through every kind of operand (H2D, D2D, MEMSET, WRITE_VALUE, D2H into a
 * MAPPED registration), freeing handles that mappings still hold, peer
 * copies (and the faults of a missing peer right), faults with exact
 * errors (no access, read-only, unregistered host memory), HOST_UNREGISTER
 * waiting for the copies into it, STREAM_DESTROY waiting for its queue,
 * WAIT_STREAM/WAIT_VALUE ordering, closing a context with DMA in flight,
 * and sharing: a thread exports a handle it filled with a known byte
 * (NPU_SHARE_ANY_PID, or SHARE_SET_PIDS with the other workers' pids) and
 * publishes the name in shared memory; other processes import it (the
 * length and page size must be the exporter's), map it and read the byte
 * back - also after the exporter freed it, closed it or was killed. And
 * another driver's buffer (a udmabuf of a memfd, or npu's dma-buf of the
 * other device) imported (DMABUF_IMPORT), written and read by the engine
 * and compared through the exporter's mapping, the exporter's fds closed
 * early or late, the handle freed before or after its unmap or the
 * context closed with copies through it in flight.
 *
 * IPC signals, as libacl's IPC events and notifies are made: a thread
 * names a 4 KiB page of its memory (IPC_EXPORT), threads of other
 * processes import it and wait on it (WAIT_VALUE), and the exporter
 * writes the token they wait for, or withdraws and frees the page, or is
 * killed or closes its context: each wait passes, times out (a FORCE
 * destroy ends it) or faults (-EIO once), and nothing else happens.
 *
 * AI-core kernel launches (NPU_OP_KERNEL; DOC: npu kernel launches): one
 * racy command in five is a launch on the worker's streams (in models
 * too), its argument blob, dump area and overflow word at device ranges
 * of the context picked as the other commands' are (mapped, a MAPPED
 * registration, or a slot that is neither); half have a timeout. Each
 * shared context has its own VA window and an executor thread, as an
 * application has its AI-core executor: it holds an aperture file of the
 * context (a new one after each reopen) mapped over the window, takes the
 * launches (APERTURE_KERNEL_WAIT, a few at a time, so that cancels come
 * between), checks what it is handed (the func's tag, the fields, the
 * blob), stores the blob at its args_va and writes the dump and overflow
 * words through the aperture while other threads unmap, free, change the
 * access of and unregister what is there, and reports each launch
 * (KERNEL_DONE): done, trapped, or faulted at the address a SIGBUS named
 * - caught in that thread (sigsetjmp), as the real executor does. Now and
 * then it crashes: unmaps its window and closes its file with launches
 * taken, and stays away up to 300 ms. Executor processes (forked by a
 * small spawner the worker started before it grew) get an aperture file
 * of a shared context, take a few launches and SIGKILL themselves with
 * them. So the launches meet executors that die (their taken launches
 * must fail: -EIO, NPU_FAULT_AICORE at 0), none at all (those with a
 * timeout end -ETIME), STREAM_DESTROY with and without FORCE, the reopen
 * and the worker's SIGKILL, queued and taken: STREAM_SYNC may say -EIO
 * (an NPU_FAULT_AICORE fault at an address of the window, or at 0 for a
 * trap or a gone executor) and -ETIME besides what it said before, DONE 0
 * or -ECANCELED, WAIT 0, -EAGAIN or -EPIPE; a SIGBUS or SIGSEGV outside a
 * guarded access fails the run.
 *
 * Verified launches, in a thread's own context with the thread (or a
 * helper thread) as the executor: a MEMSET, a KERNEL whose blob names
 * device memory and a MAPPED registration, and D2H copies queued behind
 * it, on a stream or as a model: the executor writes a pattern into both
 * through the aperture, and the copies, the host's view of the
 * registration and a read through the aperture must show it. Launches
 * with one right answer: a write to an unmapped VA or to a READ mapping
 * (whose page never written reads zeros first), a read of an unmapped VA
 * - a SIGBUS at that address, then STREAM_SYNC -EIO with the address,
 * NPU_FAULT_WRITE as it was, NPU_FAULT_AICORE, the seqno and the tid; a
 * timeout with nobody taking it (-ETIME, and it left the queue); an
 * executor that closes its file with the launch taken (-EIO at 0, and its
 * DONE through another file -ENOENT); FORCE destroys with a launch queued
 * and one taken (one cancel event, DONE -ECANCELED then -ENOENT); the
 * context's close with both (the cancel, then WAIT -EPIPE, and every
 * access through a surviving aperture mapping SIGBUS); an executor
 * process killed with the launch taken.
 *
 * Each thread's verified sequences also copy into a peer context that is
 * closed under the copies (they land or fault; nothing else may happen).
 * Beside the workers run two more processes: a hog, as root, that keeps
 * eight streams fed with long copies for the whole run, and a bystander,
 * as another user (nobody, in the device's group), that opens a context,
 * runs small commands and closes it, over and over: its worst command and
 * its worst close must stay within a bound (the engine's turns are fair
 * between users; no wait in teardown depends on another user's work).
 *
 * At the end, with every worker gone: at least one launch ran, the
 * system's pinned pages (npu_pins_held()) and every device's mem_used
 * are back at their start values, and on a kernel with kmemleak a scan finds no new leak suspect
 * with an npu frame in its backtrace (the guest's /init scans again after
 * unloading npu.ko).
 *
 * Environment:
 *   NPU_STRESS_SECONDS  length of the run (default 20); set, it also runs
 *                       the test on a kernel that is not a debug kernel
 *   NPU_STRESS_SEED     PRNG seed (default: from the clock); printed at the
 *                       start, so a failing run can be replayed (threads
 *                       interleave differently, but each thread issues the
 *                       same operations)
 *   NPU_STRESS_PROCS    worker processes (default 3, at most 8)
 *   NPU_STRESS_THREADS  threads per worker (default 3, at most 8)
 *
 * Without NPU_STRESS_SECONDS the test runs only on a debug kernel (one
 * with kmemleak or lockdep): `make check` runs it there; `make stress`
 * runs a long one on every kernel (Documentation/testing.rst). A failure
 * prints the worker, thread, seed, the call, its errno and the allowed
 * ones, and the thread's last calls (the executor threads are threads 100
 * and up, the executor processes 200).
 *
 * Runs as root in the VM (tools/vm-run -- /tests/npu_stress_test).
 */
#include "harness.h"
#include "npu_util.h"

#include <dirent.h>
#include <grp.h>
#include <linux/udmabuf.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#define SZ_64K		0x10000UL
#define SZ_256K		0x40000UL
#define SZ_1M		0x100000UL
#define SZ_4M		0x400000UL
#define SZ_8M		0x800000UL

#define MAX_PROCS	8
#define MAX_THREADS	8
#define MAX_DEVS	2

/* Per worker process: shared contexts and their tables. */
#define NSC_MAX		3
#define NSLOT		6		/* device VA slots, SLOT_SIZE each */
#define SLOT_SIZE	SZ_8M
#define NHOST		6		/* host buffers */
#define NH		10		/* handles per shared context */
#define NIMP		4		/* imported handles per shared context */
#define NMAP		12		/* mappings per shared context */
#define NSTREAM		4		/* streams per shared context */

/* Shared-memory slots where exporters publish names. */
#define SLOTS_PER_THREAD 4		/* 0, 1: verified exports; 2: racy; */
#define SLOT_SIGNAL	3		/* 3: an IPC signal (v_ipc_signal) */
#define NSHARE		(MAX_PROCS * MAX_THREADS * SLOTS_PER_THREAD)

#define RING		32		/* calls remembered per thread */
#define NERR		134		/* errno buckets; the last is "other" */

/* ------------------------------------------------------------------ */
/* Operations, counters, shared memory                                 */
/* ------------------------------------------------------------------ */

enum {
	OP_OPEN, OP_CLOSE, OP_GET_INFO, OP_ALLOC, OP_FREE, OP_RESERVE,
	OP_RELEASE, OP_MAP, OP_UNMAP, OP_SET_ACCESS, OP_GET_ACCESS,
	OP_REGISTER, OP_UNREGISTER, OP_QUERY, OP_STREAM_CREATE,
	OP_STREAM_DESTROY, OP_SUBMIT, OP_SYNC, OP_EXPORT, OP_SET_PIDS,
	OP_IMPORT, OP_PEER_ENABLE, OP_DATA, OP_DMABUF_IMPORT, OP_DMABUF_EXPORT,
	OP_MODEL_CREATE, OP_MODEL_DESTROY, OP_IPC_EXPORT, OP_IPC_IMPORT,
	OP_IPC_DESTROY, OP_APERTURE_OPEN, OP_KERNEL_WAIT, OP_KERNEL_DONE,
	OP_AP_ACCESS, OP_SPAWN,
	NOPS
};

static const char *const op_names[NOPS] = {
	"OPEN", "CLOSE", "GET_INFO", "MEM_ALLOC", "MEM_FREE", "VA_RESERVE",
	"VA_RELEASE", "MAP", "UNMAP", "SET_ACCESS", "GET_ACCESS",
	"HOST_REGISTER", "HOST_UNREGISTER", "ADDR_QUERY", "STREAM_CREATE",
	"STREAM_DESTROY", "SUBMIT", "STREAM_SYNC", "SHARE_EXPORT",
	"SHARE_SET_PIDS", "SHARE_IMPORT", "PEER_ENABLE", "data check",
	"DMABUF_IMPORT", "DMABUF_EXPORT/udmabuf", "MODEL_CREATE", "MODEL_DESTROY",
	"IPC_EXPORT", "IPC_IMPORT", "IPC_DESTROY", "APERTURE_OPEN",
	"KERNEL_WAIT", "KERNEL_DONE", "aperture access", "executor process",
};

enum {
	SEQ_ROUNDTRIP, SEQ_PEER, SEQ_EXPORT, SEQ_REVOKE, SEQ_IMPORT,
	SEQ_IMPORT_VERIFIED, SEQ_FAULTS, SEQ_CLOSE_INFLIGHT, SEQ_UNREG_WAITS,
	SEQ_DESTROY_WAITS, SEQ_WAITS, SEQ_REOPEN_SHARED, SEQ_PEER_CLOSE,
	SEQ_DMABUF_IMPORT, SEQ_IPC_SIGNAL, SEQ_IPC_WAIT, SEQ_IPC_RELEASED,
	SEQ_KERNEL, SEQ_KERNEL_FAULTS, SEQ_KERNEL_KILLED,
	NSEQ
};

static const char *const seq_names[NSEQ] = {
	"roundtrip", "peer", "export", "revoke", "import",
	"import+verify", "faults", "close-inflight", "unregister-waits",
	"destroy-waits", "stream-waits", "reopen-shared", "peer-close",
	"dmabuf-import", "ipc-signal", "ipc-wait", "ipc-wait-released",
	"kernel", "kernel-faults", "kernel-executor-killed",
};

struct share_slot {
	uint32_t seq;		/* odd while being written */
	uint32_t dev;
	uint64_t name;		/* 0: empty */
	uint64_t length;	/* 0: unknown */
	uint64_t page_size;
	int32_t owner;		/* exporter's tgid */
	int32_t pattern;	/* the byte the memory holds, or -1 */
	uint64_t token;		/* an IPC signal's: the value its page will hold */
};

struct shm {
	int failed;
	int stop;
	double deadline;
	int32_t tgids[MAX_PROCS];
	struct share_slot slots[NSHARE];
	uint64_t ops[NOPS][NERR];
	uint64_t seqs[NSEQ];
	char first_failure[512];
	/* the bystander's figures */
	int by_samples, by_closes, by_error;
	double by_worst_ms, by_worst_close_ms;
	int hog_refills, hog_error;
	/* the executors' figures */
	uint64_t k_submitted, k_jobs, k_faults, k_traps, k_cancels, k_crashes, k_spawned;
};

static struct shm *shm;

static struct {
	int seconds, procs, threads, ndev;
	uint64_t seed;
	bool root;
	double scale;		/* HARNESS_TIMEOUT_SCALE */
	int sup_fd;		/* the supervisor's /dev/npu0: -EPERM in workers */
} cfg;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static const char *errname(int ret)
{
	const char *s;

	if (!ret)
		return "0";
	s = strerrorname_np(-ret);
	return s ? s : "?";
}

/* ------------------------------------------------------------------ */
/* Worker state                                                        */
/* ------------------------------------------------------------------ */

enum { S_FREE, S_RESV, S_HOST, S_BUSY };	/* VA slot of a shared context */
enum { R_NONE, R_REG, R_BUSY };			/* host buffer in a shared context */

struct sctx {
	pthread_mutex_t lock;
	int fd, dev;
	uint64_t base;			/* its VA window: NSLOT slots, SLOT_SIZE each */
	unsigned int gen;		/* bumped by close-and-reopen */
	double spawn_after;		/* no executor process handed out before */
	unsigned int peers;		/* PEER_ENABLE successes, by device bit */
	struct { uint32_t id; uint64_t len, psz; } h[NH];
	int nh;
	struct { uint32_t id; } imp[NIMP];
	int nimp;
	struct { int state; uint64_t len; } slot[NSLOT];
	struct { uint64_t va, len; } map[NMAP];
	int nmap;
	struct { int state; uint32_t flags; int slot; } reg[NHOST];
	struct { uint32_t id; uint64_t seq; } st[NSTREAM];
	int nst;
};

/* Device VA of slot @s of a shared context (its aperture window's). */
#define SLOT_VA(c, s)	((c)->base + (uint64_t)(s) * SLOT_SIZE)
#define WINDOW		((uint64_t)NSLOT * SLOT_SIZE)

static struct {
	int idx, gen;
	int nsc;
	struct sctx sc[NSC_MAX];
	uint8_t *hbuf[NHOST];
	size_t hlen[NHOST];
	int spawn_sock;			/* to the executor spawner, or -1 */
	int exec_stop;			/* the executor threads end */
} W;

static const size_t host_sizes[NHOST] = {
	16 << 10, SZ_64K, SZ_256K, SZ_1M, SZ_2M, SZ_4M,
};

struct ring_ent {
	int op, ret, line;
	int where;		/* shared context index, or -1: an own one */
	uint64_t a, b, c;
};

struct thr {
	int idx;
	int where;		/* what the current call works on (ring_ent) */
	pthread_t tid;
	uint64_t rng;
	struct ring_ent ring[RING];
	unsigned int nring;
	int priv[MAX_DEVS];		/* this thread's own contexts, or -1 */
	bool priv_peer[MAX_DEVS];	/* PEER_ENABLE done in priv[d] */
	uint64_t pv[6];			/* device VAs for the own contexts; 4, 5: IPC signals */
	uint8_t *hsrc, *hdst, *expect;	/* SZ_4M each */
	struct { bool used; int dev; uint32_t handle; uint64_t name; } ex[2];
	struct { int sc; unsigned int gen; uint64_t name; } rex;	/* racy export */
	struct { bool used, written; int dev; uint32_t handle; uint64_t key, token; } sig;

};

static uint64_t rnd(struct thr *t, uint64_t n)
{
	return n ? splitmix(&t->rng) % n : 0;
}

static bool stopping(void)
{
	return __atomic_load_n(&shm->stop, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&shm->failed, __ATOMIC_RELAXED) ||
	       now() >= shm->deadline;
}

static void __attribute__((noreturn, format(printf, 3, 4)))
fail(struct thr *t, int line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	unsigned int i, n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("# FAIL: worker %d (generation %d, pid %d) thread %d, %s:%d: %s\n",
	       W.idx, W.gen, getpid(), t ? t->idx : -1, __FILE__, line, msg);
	printf("# replay: NPU_STRESS_SEED=%#llx NPU_STRESS_SECONDS=%d NPU_STRESS_PROCS=%d NPU_STRESS_THREADS=%d\n",
	       (unsigned long long)cfg.seed, cfg.seconds, cfg.procs, cfg.threads);
	if (t) {
		n = t->nring < RING ? t->nring : RING;
		printf("# thread %d's last %u calls (oldest first):\n", t->idx, n);
		for (i = t->nring - n; i < t->nring; i++) {
			struct ring_ent *e = &t->ring[i % RING];

			printf("#   line %d %s %s(%#llx, %#llx, %#llx) = %s\n", e->line,
			       e->where < 0 ? "own" : e->where == 0 ? "sc0" :
			       e->where == 1 ? "sc1" : "sc2",
			       op_names[e->op], (unsigned long long)e->a,
			       (unsigned long long)e->b, (unsigned long long)e->c,
			       errname(e->ret));
		}
	}
	if (!__atomic_exchange_n(&shm->failed, 1, __ATOMIC_SEQ_CST))
		snprintf(shm->first_failure, sizeof(shm->first_failure),
			 "worker %d gen %d thread %d line %d: %s", W.idx, W.gen,
			 t ? t->idx : -1, line, msg);
	fflush(stdout);
	_exit(1);
}

/*
 * Record a call's result and check it against the errors allowed for it
 * (0 for success, -Exxx): anything else fails the run.
 */
static int allow_(struct thr *t, int op, int ret, const int *set, int n,
		  uint64_t a, uint64_t b, uint64_t c, int line)
{
	char list[160] = "";
	int i, len = 0;

	/* Closing dups is every other call: the ring keeps the rest. */
	if (op != OP_CLOSE || ret)
		t->ring[t->nring++ % RING] = (struct ring_ent){
			.op = op, .ret = ret, .line = line, .where = t->where,
			.a = a, .b = b, .c = c };
	__atomic_fetch_add(&shm->ops[op][-ret >= 0 && -ret < NERR - 1 ? -ret : NERR - 1],
			   1, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		if (set[i] == ret)
			return ret;
	for (i = 0; i < n && len < (int)sizeof(list) - 20; i++)
		len += snprintf(list + len, sizeof(list) - len, "%s%s",
				i ? " " : "", errname(set[i]));
	fail(t, line, "%s(%#llx, %#llx, %#llx) returned %s (%d); allowed here: %s",
	     op_names[op], (unsigned long long)a, (unsigned long long)b,
	     (unsigned long long)c, errname(ret), ret, list);
}

#define ALLOW(t, op, ret, a, b, c, ...)						\
	allow_(t, op, ret, (const int[]){ __VA_ARGS__ },			\
	       sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int),		\
	       (uint64_t)(a), (uint64_t)(b), (uint64_t)(c), __LINE__)

/* A call with exactly one right answer. */
#define EXACT(t, op, ret, want, a, b, c)	ALLOW(t, op, ret, a, b, c, want)

static void seq_done(int seq)
{
	__atomic_fetch_add(&shm->seqs[seq], 1, __ATOMIC_RELAXED);
}

static int dup_fd(struct thr *t, int fd)
{
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);

	if (d < 0)
		fail(t, __LINE__, "dup(%d): %s", fd, strerror(errno));
	return d;
}

static void close_fd(struct thr *t, int fd, int line)
{
	int ret = close(fd) ? -errno : 0;

	allow_(t, OP_CLOSE, ret, (const int[]){ 0 }, 1, fd, 0, 0, line);
}

static int open_dev(struct thr *t, int dev, int line)
{
	int fd = npu_open(dev);

	allow_(t, OP_OPEN, fd < 0 ? -errno : 0, (const int[]){ 0 }, 1, dev,
	       0, 0, line);
	return fd;
}

static void fill_random(struct thr *t, uint8_t *p, size_t len)
{
	uint64_t s = splitmix(&t->rng);
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t v = splitmix(&s);

		memcpy(p + i, &v, 8);
	}
	for (; i < len; i++)
		p[i] = (uint8_t)splitmix(&s);
}

static void check_data(struct thr *t, const uint8_t *got, const uint8_t *want,
		       size_t len, const char *what, int line)
{
	size_t i;

	if (!memcmp(got, want, len)) {
		allow_(t, OP_DATA, 0, (const int[]){ 0 }, 1, len, 0, 0, line);
		return;
	}
	for (i = 0; i < len && got[i] == want[i]; i++)
		;
	t->ring[t->nring++ % RING] = (struct ring_ent){ .op = OP_DATA,
		.ret = -EIO, .line = line, .a = len, .b = i };
	fail(t, line, "%s: %zu bytes differ from byte %zu on (got %#x, want %#x)",
	     what, len, i, got[i], want[i]);
}

static void check_byte(struct thr *t, const uint8_t *got, uint8_t want,
		       size_t len, const char *what, int line)
{
	size_t i;

	for (i = 0; i < len && got[i] == want; i++)
		;
	if (i == len) {
		allow_(t, OP_DATA, 0, (const int[]){ 0 }, 1, len, want, 0, line);
		return;
	}
	fail(t, line, "%s: byte %zu of %zu is %#x, want %#x", what, i, len,
	     got[i], want);
}

/* ------------------------------------------------------------------ */
/* Shared-memory name slots (a seqlock per slot, one writer each)      */
/* ------------------------------------------------------------------ */

static int my_slot(struct thr *t, int k)
{
	return (W.idx * MAX_THREADS + t->idx) * SLOTS_PER_THREAD + k;
}

static void slot_publish(int i, uint64_t name, int dev, uint64_t len,
			 uint64_t psz, int pattern, uint64_t token)
{
	struct share_slot *s = &shm->slots[i];
	uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);

	seq |= 1;	/* a killed predecessor may have left it odd */
	__atomic_store_n(&s->seq, seq, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&s->name, name, __ATOMIC_RELAXED);
	__atomic_store_n(&s->dev, (uint32_t)dev, __ATOMIC_RELAXED);
	__atomic_store_n(&s->length, len, __ATOMIC_RELAXED);
	__atomic_store_n(&s->page_size, psz, __ATOMIC_RELAXED);
	__atomic_store_n(&s->owner, (int32_t)getpid(), __ATOMIC_RELAXED);
	__atomic_store_n(&s->pattern, (int32_t)pattern, __ATOMIC_RELAXED);
	__atomic_store_n(&s->token, token, __ATOMIC_RELAXED);
	__atomic_store_n(&s->seq, seq + 1, __ATOMIC_RELEASE);
}

static bool slot_read(int i, struct share_slot *out)
{
	struct share_slot *s = &shm->slots[i];
	int tries;

	for (tries = 0; tries < 4; tries++) {
		uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);

		if (seq & 1)
			continue;
		out->name = __atomic_load_n(&s->name, __ATOMIC_RELAXED);
		out->dev = __atomic_load_n(&s->dev, __ATOMIC_RELAXED);
		out->length = __atomic_load_n(&s->length, __ATOMIC_RELAXED);
		out->page_size = __atomic_load_n(&s->page_size, __ATOMIC_RELAXED);
		out->owner = __atomic_load_n(&s->owner, __ATOMIC_RELAXED);
		out->pattern = __atomic_load_n(&s->pattern, __ATOMIC_RELAXED);
		out->token = __atomic_load_n(&s->token, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) == seq)
			return out->name != 0;
	}
	return false;
}

/* A slot some worker's thread may have published a share name in. */
static int rnd_slot(struct thr *t)
{
	int p = rnd(t, cfg.procs), th = rnd(t, cfg.threads);

	return (p * MAX_THREADS + th) * SLOTS_PER_THREAD + rnd(t, SLOT_SIGNAL);
}

/* The IPC signal slot of some worker's thread. */
static int rnd_signal_slot(struct thr *t)
{
	int p = rnd(t, cfg.procs), th = rnd(t, cfg.threads);

	return (p * MAX_THREADS + th) * SLOTS_PER_THREAD + SLOT_SIGNAL;
}

/* The current workers' tgids, for SHARE_SET_PIDS; at least this one. */
static uint32_t worker_pids(int32_t *pids)
{
	uint32_t n = 0;
	int i;

	for (i = 0; i < cfg.procs; i++) {
		int32_t p = __atomic_load_n(&shm->tgids[i], __ATOMIC_RELAXED);

		if (p > 0)
			pids[n++] = p;
	}
	if (!n)
		pids[n++] = getpid();
	return n;
}

static int set_pids(int fd, uint64_t name, const int32_t *pids, uint32_t n)
{
	struct npu_share_pids p = {
		.size = sizeof(p), .shareable = name,
		.pids = ptr64(pids), .count = n,
	};

	return npu_ioctl(fd, NPU_IOCTL_SHARE_SET_PIDS, &p);
}

static int share_export(int fd, uint32_t handle, uint32_t flags,
			uint64_t *name)
{
	struct npu_share_export e = {
		.size = sizeof(e), .flags = flags, .handle = handle,
	};
	int ret = npu_ioctl(fd, NPU_IOCTL_SHARE_EXPORT, &e);

	*name = e.shareable;
	return ret;
}

static int share_import(int fd, uint64_t name, struct npu_share_import *imp)
{
	memset(imp, 0, sizeof(*imp));
	imp->size = sizeof(*imp);
	imp->shareable = name;
	return npu_ioctl(fd, NPU_IOCTL_SHARE_IMPORT, imp);
}

static int peer_enable(int fd, int dev)
{
	struct npu_peer_enable p = { .size = sizeof(p), .device = dev };

	return npu_ioctl(fd, NPU_IOCTL_PEER_ENABLE, &p);
}

static int sync_seq(int fd, uint32_t stream, int32_t timeout, uint64_t seqno)
{
	struct npu_stream_sync s = {
		.size = sizeof(s), .stream = stream, .timeout_ms = timeout,
		.seqno = seqno,
	};

	return npu_ioctl(fd, NPU_IOCTL_STREAM_SYNC, &s);
}

static int sync_out(int fd, uint32_t stream, int32_t timeout, uint64_t seqno,
		    struct npu_stream_sync *o)
{
	*o = (struct npu_stream_sync){
		.size = sizeof(*o), .stream = stream, .timeout_ms = timeout,
		.seqno = seqno,
	};
	return npu_ioctl(fd, NPU_IOCTL_STREAM_SYNC, o);
}

/* ------------------------------------------------------------------ */
/* Kernel launches: the aperture, the executor's protocol              */
/* ------------------------------------------------------------------ */

/*
 * The funcs of the launches this test makes: the high 16 bits say whose
 * (a racy launch on a shared context, a verified one), the low bits what
 * the racy one's executor does (K_*). The executor checks them, and the
 * argument blob, as WAIT hands them out.
 */
#define KFUNC_MASK	0xffff000000000000ULL
#define KFUNC_RACY	0x4b52000000000000ULL	/* "KR" */
#define KFUNC_VERIFIED	0x4b56000000000000ULL	/* "KV" */
#define K_DUMP		0x1	/* a word into each block's dump area */
#define K_OVERFLOW	0x2	/* the overflow word read and written */
#define K_SLOW		0x4	/* runs a few ms */
#define K_TRAP		0x8	/* ends in a trap */
#define K_BITS		0xf
#define KBLOB_MAX	4096	/* racy blobs; every executor's buffer */

static int aperture_open(struct thr *t, int fd, int line)
{
	struct npu_aperture_open a = {
		.size = sizeof(a), .flags = NPU_APERTURE_CLOEXEC, .fd = -1,
	};

	/* at most 16 per context: the executor's, a few executor processes' */
	allow_(t, OP_APERTURE_OPEN, npu_ioctl(fd, NPU_IOCTL_APERTURE_OPEN, &a),
	       (const int[]){ 0 }, 1, fd, a.fd, 0, line);
	return a.fd;
}

/* The aperture of @afd at device VA [@va, +@len): the identity. */
static void ap_map(struct thr *t, int afd, uint64_t va, uint64_t len, int line)
{
	void *p = mmap((void *)(uintptr_t)va, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_FIXED, afd, (off_t)va);

	if (p != (void *)(uintptr_t)va)
		fail(t, line, "mmap of the aperture at %#llx, %#llx bytes: %s",
		     (unsigned long long)va, (unsigned long long)len, strerror(errno));
}

/* Back to a hole (npu_hole()): the aperture's pages there are gone. */
static void ap_unmap(struct thr *t, uint64_t va, uint64_t len, int line)
{
	void *p = mmap((void *)(uintptr_t)va, len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);

	if (p != (void *)(uintptr_t)va)
		fail(t, line, "mmap of a hole over the aperture at %#llx: %s",
		     (unsigned long long)va, strerror(errno));
}

/*
 * Accesses through the aperture that may fault, as the AI-core executor
 * makes them (aicore/guard.c): the SIGBUS (or any SIGSEGV) of the thread
 * that made it is caught and the access given up; outside one such an
 * access a signal ends the worker (it fails the run).
 */
struct gfault {
	int sig, code;
	uint64_t addr;
};

static __thread sigjmp_buf *guard_env;
static __thread struct gfault guard_fault;

static void guard_handler(int sig, siginfo_t *si, void *uc)
{
	static const char msg[] = "# FAIL: SIGBUS or SIGSEGV outside an aperture access\n";

	(void)uc;
	if (!guard_env) {
		__atomic_store_n(&shm->failed, 1, __ATOMIC_SEQ_CST);
		if (write(1, msg, sizeof(msg) - 1) < 0)
			_exit(1);
		signal(sig, SIG_DFL);
		return;		/* the access faults again and kills */
	}
	guard_fault.sig = sig;
	guard_fault.code = si->si_code;
	guard_fault.addr = (uint64_t)(uintptr_t)si->si_addr;
	siglongjmp(*guard_env, 1);
}

static void guard_init(void)
{
	struct sigaction sa = { .sa_sigaction = guard_handler, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, NULL) || sigaction(SIGSEGV, &sa, NULL))
		fail(NULL, __LINE__, "sigaction: %s", strerror(errno));
}

/*
 * @len bytes of @buf to device VA @va through the aperture (@write), or
 * from it: 0, or -EFAULT with the signal in @f.
 */
static int ap_access_(uint64_t va, void *buf, size_t len, bool write,
		      struct gfault *f)
{
	volatile uint64_t *d8 = (volatile uint64_t *)(uintptr_t)va;
	volatile uint8_t *d = (volatile uint8_t *)(uintptr_t)va;
	uint8_t *b = buf;
	sigjmp_buf env;
	size_t i;

	if (sigsetjmp(env, 1)) {
		guard_env = NULL;
		*f = guard_fault;
		return -EFAULT;
	}
	guard_env = &env;
	if (!((va | len) & 7)) {
		for (i = 0; i < len / 8; i++) {
			uint64_t v;

			if (write) {
				memcpy(&v, b + i * 8, 8);
				d8[i] = v;
			} else {
				v = d8[i];
				memcpy(b + i * 8, &v, 8);
			}
		}
	} else {
		for (i = 0; i < len; i++) {
			if (write)
				d[i] = b[i];
			else
				b[i] = d[i];
		}
	}
	guard_env = NULL;
	return 0;
}

/*
 * The same, the outcome counted and checked: a fault is a SIGBUS
 * (BUS_ADRERR, or BUS_MCEERR_AR for a poisoned page) at an address of
 * the range. Returns 0 or -EFAULT.
 */
static int ap_access(struct thr *t, uint64_t va, void *buf, size_t len,
		     bool write, struct gfault *f, int line)
{
	int ret = ap_access_(va, buf, len, write, f);

	allow_(t, OP_AP_ACCESS, ret, (const int[]){ 0, -EFAULT }, 2, va, len,
	       write, line);
	if (ret && (f->sig != SIGBUS ||
		    (f->code != BUS_ADRERR && f->code != BUS_MCEERR_AR) ||
		    f->addr < va || f->addr - va >= len))
		fail(t, line, "%s %#llx, %zu bytes through the aperture: signal %d code %d at %#llx",
		     write ? "write to" : "read of", (unsigned long long)va, len,
		     f->sig, f->code, (unsigned long long)f->addr);
	return ret;
}

/* A fault as KERNEL_DONE reports it: the address, NPU_FAULT_* bits. */
static uint32_t gfault_flags(const struct gfault *f, bool write)
{
	return (write ? NPU_FAULT_WRITE : 0) |
	       (f->code == BUS_MCEERR_AR ? NPU_FAULT_UCE : 0);
}

static int kwait(int afd, struct npu_kernel_wait *w, void *buf, uint32_t len)
{
	*w = (struct npu_kernel_wait){ .size = sizeof(*w), .args_buf = ptr64(buf),
				       .args_buf_len = len };
	return npu_ioctl(afd, NPU_IOCTL_APERTURE_KERNEL_WAIT, w);
}

static int kdone(int afd, uint64_t job, uint32_t status, uint64_t addr,
		 uint32_t flags)
{
	struct npu_kernel_done d = {
		.size = sizeof(d), .status = status, .job = job,
		.fault_addr = addr, .fault_flags = flags, .busy_ns = 1000,
	};

	return npu_ioctl(afd, NPU_IOCTL_APERTURE_KERNEL_DONE, &d);
}

/* Word @j of the pattern of @seed: any piece of it can be made alone. */
static uint64_t pat_word(uint64_t seed, uint64_t j)
{
	uint64_t s = seed ^ (j * 0xd1b54a32d192ed03ULL);

	return splitmix(&s);
}

/* Bytes [@off, +@len) of the pattern of @seed into @p. */
static void pat_fill(uint8_t *p, uint64_t off, size_t len, uint64_t seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		uint64_t w = pat_word(seed, (off + i) / 8);

		p[i] = (uint8_t)(w >> ((off + i) % 8 * 8));
	}
}

/* A racy launch's blob: its seed, then the seed's pattern. */
static void kblob_fill(uint8_t *p, uint32_t len, uint64_t seed)
{
	memcpy(p, &seed, 8);
	pat_fill(p + 8, 8, len - 8, seed);
}

static bool kblob_ok(const uint8_t *p, uint32_t len)
{
	uint8_t want[KBLOB_MAX];
	uint64_t seed;

	if (len < 8 || len > KBLOB_MAX)
		return false;
	memcpy(&seed, p, 8);
	pat_fill(want, 8, len - 8, seed);
	return !memcmp(p + 8, want, len - 8);
}

/*
 * An executor process, made by the worker's spawner (forked before the
 * worker grew, so that forking it is cheap): it holds an aperture file of
 * a context, takes up to @takes launches, reports the first one done if
 * @done_first, and SIGKILLs itself after @ms, the other launches it took
 * not reported - they fail as an executor's that died.
 */
struct spawn_req {
	int ms, takes;
	bool done_first;
	uint64_t seed;
};

/* Hand @afd to an executor process: false if none could be asked. */
static bool spawn_send(struct thr *t, int afd, const struct spawn_req *rq)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)rq, .iov_len = sizeof(*rq) };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	int ret;

	if (W.spawn_sock < 0)
		return false;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &afd, sizeof(int));
	ret = sendmsg(W.spawn_sock, &m, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -errno : 0;
	/* -EAGAIN: the spawner is behind */
	allow_(t, OP_SPAWN, ret, (const int[]){ 0, -EAGAIN }, 2, afd, rq->ms,
	       rq->takes, __LINE__);
	return !ret;
}

/* ------------------------------------------------------------------ */
/* Racy operations on the shared contexts                              */
/* ------------------------------------------------------------------ */

#define LOCK(c)		pthread_mutex_lock(&(c)->lock)
#define UNLOCK(c)	pthread_mutex_unlock(&(c)->lock)

/* Under c->lock: a dup of the context's fd, valid for c->gen. */
static int sc_dup(struct thr *t, struct sctx *c, unsigned int *gen)
{
	*gen = c->gen;
	return dup_fd(t, c->fd);
}

static uint64_t rnd_len(struct thr *t, uint64_t *psz)
{
	if (rnd(t, 3)) {
		*psz = SZ_4K;
		return SZ_4K * (1 + rnd(t, rnd(t, 4) ? 16 : 64));
	}
	*psz = SZ_2M;
	return SZ_2M * (1 + rnd(t, 2));
}

static void r_free(struct thr *t, struct sctx *c);

static void r_alloc(struct thr *t, struct sctx *c)
{
	uint64_t psz, len = rnd_len(t, &psz);
	unsigned int gen;
	uint32_t id = 0;
	bool keep = false, stale;
	int fd, ret;

	LOCK(c);
	if (c->nh >= NH) {
		UNLOCK(c);
		r_free(t, c);
		return;
	}
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	/* The device has room for every worker's tables: no -ENOMEM. */
	ret = npu_alloc(fd, len, psz, &id);
	EXACT(t, OP_ALLOC, ret, 0, len, psz, id);
	LOCK(c);
	stale = c->gen != gen;
	if (!stale && c->nh < NH) {
		c->h[c->nh].id = id;
		c->h[c->nh].len = len;
		c->h[c->nh].psz = psz;
		c->nh++;
		keep = true;
	}
	UNLOCK(c);
	if (!keep && !stale)	/* table filled meanwhile */
		EXACT(t, OP_FREE, npu_free(fd, id), 0, id, 0, 0);
	close_fd(t, fd, __LINE__);
}

static void r_free(struct thr *t, struct sctx *c)
{
	unsigned int gen;
	uint32_t id;
	int fd, i;

	LOCK(c);
	if (!c->nh) {
		UNLOCK(c);
		return;
	}
	i = rnd(t, c->nh);
	id = c->h[i].id;
	c->h[i] = c->h[--c->nh];
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	/* Mapped, exported or being mapped: the handle still goes. */
	EXACT(t, OP_FREE, npu_free(fd, id), 0, id, gen, 0);
	close_fd(t, fd, __LINE__);
}

static void r_reserve(struct thr *t, struct sctx *c)
{
	int s = rnd(t, NSLOT), fd, ret;
	uint64_t len = rnd(t, 2) ? SLOT_SIZE : SZ_2M * (1 + rnd(t, 4));
	unsigned int gen;

	LOCK(c);
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	ret = npu_reserve(fd, SLOT_VA(c, s), len);
	ALLOW(t, OP_RESERVE, ret, SLOT_VA(c, s), len, 0, 0, -EADDRINUSE);
	LOCK(c);
	if (!ret && c->gen == gen) {
		c->slot[s].state = S_RESV;
		c->slot[s].len = len;
	}
	UNLOCK(c);
	close_fd(t, fd, __LINE__);
}

static void r_release(struct thr *t, struct sctx *c)
{
	int s0 = rnd(t, NSLOT), s = -1, i, fd, ret;
	unsigned int gen;

	LOCK(c);
	for (i = 0; i < NSLOT; i++)
		if (c->slot[(s0 + i) % NSLOT].state == S_RESV) {
			s = (s0 + i) % NSLOT;
			break;
		}
	if (s < 0) {
		UNLOCK(c);
		return;
	}
	c->slot[s].state = S_BUSY;
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	ret = npu_release(fd, SLOT_VA(c, s));
	ALLOW(t, OP_RELEASE, ret, SLOT_VA(c, s), gen, 0, 0, -EBUSY);
	LOCK(c);
	if (c->gen == gen && c->slot[s].state == S_BUSY)
		c->slot[s].state = ret ? S_RESV : S_FREE;
	UNLOCK(c);
	close_fd(t, fd, __LINE__);
}

static void r_unmap(struct thr *t, struct sctx *c);

static void r_map(struct thr *t, struct sctx *c)
{
	uint64_t len, psz, va, room;
	unsigned int gen;
	bool keep = false, stale;
	uint32_t id;
	int i, s, fd, ret;

	LOCK(c);
	if (!c->nh || c->nmap >= NMAP) {
		UNLOCK(c);
		if (c->nmap >= NMAP)
			r_unmap(t, c);
		return;
	}
	i = rnd(t, c->nh);
	id = c->h[i].id;
	len = c->h[i].len;
	psz = c->h[i].psz;
	s = rnd(t, NSLOT);
	room = c->slot[s].state == S_RESV ? c->slot[s].len : SLOT_SIZE;
	va = SLOT_VA(c, s);
	if (len < room)
		va += rnd(t, (room - len) / psz + 1) * psz;
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	/*
	 * The handle may be freed, its id reused for another size, the
	 * reservation released, smaller, or a MAPPED registration's; the range
	 * may overlap another mapping.
	 */
	ret = npu_map(fd, va, len, id);
	ALLOW(t, OP_MAP, ret, va, len, id, 0, -ENOENT, -EADDRINUSE, -EINVAL);
	if (!ret) {
		LOCK(c);
		stale = c->gen != gen;
		if (!stale && c->nmap < NMAP) {
			c->map[c->nmap].va = va;
			c->map[c->nmap].len = len;
			c->nmap++;
			keep = true;
		}
		UNLOCK(c);
		if (!keep && !stale)
			EXACT(t, OP_UNMAP, npu_unmap(fd, va), 0, va, 0, 0);
	}
	close_fd(t, fd, __LINE__);
}

static void r_unmap(struct thr *t, struct sctx *c)
{
	unsigned int gen;
	uint64_t va;
	int i, fd;

	LOCK(c);
	if (!c->nmap) {
		UNLOCK(c);
		return;
	}
	i = rnd(t, c->nmap);
	va = c->map[i].va;
	c->map[i] = c->map[--c->nmap];
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	EXACT(t, OP_UNMAP, npu_unmap(fd, va), 0, va, gen, 0);
	close_fd(t, fd, __LINE__);
}

/* Under c->lock: a device range to use - a mapping, a MAPPED registration, or any slot. */
static bool pick_dev_range(struct thr *t, struct sctx *c, uint64_t *va,
			   uint64_t *len, bool *host)
{
	int r = rnd(t, 10), b, i;

	*host = false;
	if (r < 7 && c->nmap) {
		i = rnd(t, c->nmap);
		*va = c->map[i].va;
		*len = c->map[i].len;
		return true;
	}
	if (r < 9) {
		b = rnd(t, NHOST);
		for (i = 0; i < NHOST; i++, b = (b + 1) % NHOST)
			if (c->reg[b].state == R_REG && c->reg[b].slot >= 0) {
				*va = SLOT_VA(c, c->reg[b].slot);
				*len = W.hlen[b];
				*host = true;
				return true;
			}
	}
	if (!rnd(t, 4)) {	/* a slot, mapped or not */
		*va = SLOT_VA(c, rnd(t, NSLOT));
		*len = SZ_64K;
		return true;
	}
	return false;
}

static void r_set_access(struct thr *t, struct sctx *c)
{
	static const uint32_t acc[] = {
		NPU_ACCESS_NONE, NPU_ACCESS_READ, NPU_ACCESS_READWRITE,
	};
	uint32_t dev = c->dev, a = acc[rnd(t, 3)];
	uint64_t va, len;
	unsigned int gen;
	bool host;
	int fd, ret;

	/* Mostly grant: copies should succeed as well as fault. */
	if (rnd(t, 3))
		a = NPU_ACCESS_READWRITE;
	if (cfg.ndev > 1 && !rnd(t, 3))
		dev = !c->dev;
	LOCK(c);
	if (!pick_dev_range(t, c, &va, &len, &host)) {
		UNLOCK(c);
		return;
	}
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	/*
	 * -ENOENT unmapped meanwhile, -EINVAL the range cuts a mapping now
	 * there or names a peer for host memory, -EACCES READWRITE on a
	 * read-only registration.
	 */
	ret = npu_set_access(fd, va, len, dev, a);
	ALLOW(t, OP_SET_ACCESS, ret, va, len, (uint64_t)dev << 8 | a,
	      0, -ENOENT, -EINVAL, -EACCES);
	close_fd(t, fd, __LINE__);
}

static void r_get_access(struct thr *t, struct sctx *c)
{
	uint32_t dev = cfg.ndev > 1 && rnd(t, 2) ? !c->dev : c->dev, a = 0;
	uint64_t va, len;
	unsigned int gen;
	bool host;
	int fd, ret;

	LOCK(c);
	if (!pick_dev_range(t, c, &va, &len, &host)) {
		UNLOCK(c);
		return;
	}
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	va += rnd(t, len / SZ_4K) * SZ_4K;
	ret = npu_get_access(fd, va, dev, &a);
	ALLOW(t, OP_GET_ACCESS, ret, va, dev, a, 0, -ENOENT);
	if (!ret && a != NPU_ACCESS_NONE && a != NPU_ACCESS_READ &&
	    a != NPU_ACCESS_READWRITE)
		fail(t, __LINE__, "GET_ACCESS(%#llx) answered access %#x",
		     (unsigned long long)va, a);
	close_fd(t, fd, __LINE__);
}

static void r_query(struct thr *t, struct sctx *c)
{
	struct npu_addr_query q;
	unsigned int gen;
	uint64_t addr;
	int fd, ret;

	switch (rnd(t, 4)) {
	case 0:
		addr = SLOT_VA(c, rnd(t, NSLOT)) + rnd(t, SLOT_SIZE);
		break;
	case 1: {
		int b = rnd(t, NHOST);

		addr = ptr64(W.hbuf[b]) + rnd(t, W.hlen[b]);
		break;
	}
	case 2:
		addr = rnd(t, 2) ? 0 : ~0ULL;
		break;
	default:
		addr = splitmix(&t->rng);
		break;
	}
	LOCK(c);
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	ret = npu_query(fd, addr, &q);
	EXACT(t, OP_QUERY, ret, 0, addr, q.kind, q.base);
	if (q.kind > NPU_ADDR_HOST || (q.kind && (addr < q.base ||
						   addr - q.base >= q.length)))
		fail(t, __LINE__, "ADDR_QUERY(%#llx): kind %u base %#llx length %#llx",
		     (unsigned long long)addr, q.kind,
		     (unsigned long long)q.base, (unsigned long long)q.length);
	close_fd(t, fd, __LINE__);
}

static void r_register(struct thr *t, struct sctx *c)
{
	int b = rnd(t, NHOST), s = -1, fd, ret;
	uint32_t flags = rnd(t, 3) ? 0 : NPU_HOST_READONLY;
	uint64_t dev_addr = 0;
	unsigned int gen;

	if (rnd(t, 2)) {
		flags |= NPU_HOST_MAPPED;
		s = rnd(t, NSLOT);
		dev_addr = SLOT_VA(c, s);
	}
	LOCK(c);
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	/* -EEXIST registered already, -EADDRINUSE the slot is in use. */
	ret = npu_register(fd, W.hbuf[b], W.hlen[b], flags, dev_addr);
	if (cfg.root)
		ALLOW(t, OP_REGISTER, ret, ptr64(W.hbuf[b]), flags, dev_addr,
		      0, -EEXIST, -EADDRINUSE);
	else
		ALLOW(t, OP_REGISTER, ret, ptr64(W.hbuf[b]), flags, dev_addr,
		      0, -EEXIST, -EADDRINUSE, -ENOMEM);
	LOCK(c);
	if (!ret && c->gen == gen) {
		c->reg[b].state = R_REG;
		c->reg[b].flags = flags;
		c->reg[b].slot = s;
		if (s >= 0)
			c->slot[s].state = S_HOST;
	}
	UNLOCK(c);
	close_fd(t, fd, __LINE__);
}

static void r_unregister(struct thr *t, struct sctx *c)
{
	int b0 = rnd(t, NHOST), b = -1, i, s, fd;
	unsigned int gen;

	LOCK(c);
	for (i = 0; i < NHOST; i++)
		if (c->reg[(b0 + i) % NHOST].state == R_REG) {
			b = (b0 + i) % NHOST;
			break;
		}
	if (b < 0) {
		UNLOCK(c);
		return;
	}
	c->reg[b].state = R_BUSY;
	s = c->reg[b].slot;
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	/* Waits for the commands that use it as a host operand. */
	EXACT(t, OP_UNREGISTER, npu_unregister(fd, W.hbuf[b]), 0,
	      ptr64(W.hbuf[b]), gen, 0);
	LOCK(c);
	if (c->gen == gen && c->reg[b].state == R_BUSY) {
		c->reg[b].state = R_NONE;
		if (s >= 0 && c->slot[s].state == S_HOST)
			c->slot[s].state = S_FREE;
	}
	UNLOCK(c);
	close_fd(t, fd, __LINE__);
}

static void r_stream_destroy(struct thr *t, struct sctx *c);

static void r_stream_create(struct thr *t, struct sctx *c)
{
	unsigned int gen;
	uint32_t id = 0;
	bool keep = false, stale;
	int fd;

	LOCK(c);
	if (c->nst >= NSTREAM) {
		UNLOCK(c);
		r_stream_destroy(t, c);
		return;
	}
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	EXACT(t, OP_STREAM_CREATE, npu_stream_create(fd, &id), 0, id, gen, 0);
	LOCK(c);
	stale = c->gen != gen;
	if (!stale && c->nst < NSTREAM) {
		c->st[c->nst].id = id;
		c->st[c->nst].seq = 0;
		c->nst++;
		keep = true;
	}
	UNLOCK(c);
	if (!keep && !stale)
		EXACT(t, OP_STREAM_DESTROY,
		      npu_stream_destroy(fd, id, NPU_STREAM_DESTROY_FORCE), 0,
		      id, 0, 0);
	close_fd(t, fd, __LINE__);
}

static void r_stream_destroy(struct thr *t, struct sctx *c)
{
	uint32_t id, flags = rnd(t, 2) ? NPU_STREAM_DESTROY_FORCE : 0;
	unsigned int gen;
	int i, fd;

	LOCK(c);
	if (!c->nst) {
		UNLOCK(c);
		return;
	}
	i = rnd(t, c->nst);
	id = c->st[i].id;
	c->st[i] = c->st[--c->nst];
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	/* Other threads may be submitting to it or syncing it right now. */
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, id, flags), 0, id,
	      flags, gen);
	close_fd(t, fd, __LINE__);
}

/* Under c->lock: a registered (or, rarely, unregistered) host range. */
static int pick_host(struct thr *t, struct sctx *c, uint64_t *addr,
		     uint64_t *len, bool *ro)
{
	int b = rnd(t, NHOST), i;

	for (i = 0; i < NHOST && rnd(t, 8); i++, b = (b + 1) % NHOST)
		if (c->reg[b].state == R_REG)
			break;
	*addr = ptr64(W.hbuf[b]);
	*len = W.hlen[b];
	*ro = c->reg[b].state == R_REG && (c->reg[b].flags & NPU_HOST_READONLY);
	return b;
}

struct operand {
	uint64_t addr, len;
	uint32_t flags;		/* NPU_CMD_*_HOST or _PEER, as a source */
};

/*
 * Under c->lock: a KERNEL command into @cmd, its struct npu_kernel into
 * @k and its blob into @blob (KBLOB_MAX bytes), all read at SUBMIT (at
 * MODEL_CREATE in a model). Its addresses are device ranges of the
 * context as pick_dev_range() gives them - mapped, a MAPPED registration,
 * or a slot that may be neither - so the executor's accesses through the
 * aperture race with the other threads' UNMAP, MEM_FREE, SET_ACCESS and
 * HOST_UNREGISTER. Half of them have a timeout, which they may run out
 * of while no executor takes them.
 */
static void r_kernel_cmd(struct thr *t, struct sctx *c, struct npu_cmd *cmd,
			 struct npu_kernel *k, uint8_t *blob)
{
	uint64_t va, len, behav = 0;
	bool host;

	*k = (struct npu_kernel){
		.block_dim = 1 + rnd(t, rnd(t, 2) ? 2 : 8),
		.core_type = rnd(t, 3), .sat_mode = rnd(t, 2),
	};
	if (rnd(t, 4) && pick_dev_range(t, c, &va, &len, &host) && len >= 8) {
		uint64_t off = rnd(t, len / 8) * 8, room = len - off;

		k->args_len = 8 + rnd(t, (room < KBLOB_MAX ? room : KBLOB_MAX) - 7);
		k->args_va = va + off;
		if (rnd(t, 5)) {
			kblob_fill(blob, k->args_len, splitmix(&t->rng));
			k->args = ptr64(blob);
		} else {
			k->flags = NPU_KERNEL_ARGS_DEVICE;	/* read there */
		}
	}
	if (!rnd(t, 3) && pick_dev_range(t, c, &va, &len, &host) &&
	    len >= 64ULL * k->block_dim) {
		k->dump_size = 64;
		while (k->dump_size < 1024 && 2ULL * k->dump_size * k->block_dim <= len &&
		       rnd(t, 2))
			k->dump_size *= 2;
		k->dump_va = va + rnd(t, (len - (uint64_t)k->dump_size * k->block_dim) / 8 + 1) * 8;
		behav |= K_DUMP;
	}
	if (!rnd(t, 4) && pick_dev_range(t, c, &va, &len, &host) && len >= 8) {
		k->overflow_va = va + rnd(t, len / 8) * 8;
		behav |= K_OVERFLOW;
	}
	if (!rnd(t, 6))
		behav |= K_SLOW;
	if (!rnd(t, 20))
		behav |= K_TRAP;
	if (rnd(t, 2))
		k->timeout_ms = 20 + rnd(t, 500);
	k->func = KFUNC_RACY | behav;
	*cmd = (struct npu_cmd){ .op = NPU_OP_KERNEL, .src = ptr64(k), .value = sizeof(*k) };
}

/*
 * @cmds as a model, run once or twice on @stream: MODEL_CREATE answers
 * one of SUBMIT's answers @set but a stream's -ENOENT; the model is
 * destroyed at once, its runs going on, or left for the context's close.
 * Returns the first run's SUBMIT (checked by the caller against @set), or
 * 0 after a MODEL_CREATE that failed as it may.
 */
static int r_submit_model(struct thr *t, int fd, uint32_t stream, struct npu_cmd *cmds,
			  int n, const int *set, int nset, uint64_t *seqno)
{
	struct npu_model_create mc = {
		.size = sizeof(mc), .count = n, .cmds = ptr64(cmds), .cmd_size = sizeof(*cmds),
	};
	struct npu_model_destroy md = { .size = sizeof(md) };
	struct npu_cmd run = { .op = NPU_OP_MODEL };
	int ret, runs = 1 + rnd(t, 2), r, cset[6], ncset = 0, i;

	for (i = 0; i < nset; i++)
		if (set[i] != -ENOENT)
			cset[ncset++] = set[i];
	ret = npu_ioctl(fd, NPU_IOCTL_MODEL_CREATE, &mc);
	allow_(t, OP_MODEL_CREATE, ret, cset, ncset, n, cmds[0].op << 8 | cmds[0].flags, 0,
	       __LINE__);
	if (ret) {
		*seqno = 0;
		return 0;
	}
	run.src = mc.model;
	ret = npu_submit(fd, stream, &run, 1, seqno);
	for (r = 1; !ret && r < runs; r++)
		ALLOW(t, OP_SUBMIT, npu_submit(fd, stream, &run, 1, seqno), stream, 1,
		      NPU_OP_MODEL << 8, 0, -ENOENT);
	if (rnd(t, 4)) {
		md.model = mc.model;
		EXACT(t, OP_MODEL_DESTROY, npu_ioctl(fd, NPU_IOCTL_MODEL_DESTROY, &md), 0,
		      mc.model, 0, 0);
	}
	return ret;
}

static void r_submit(struct thr *t, struct sctx *c)
{
	struct npu_cmd cmds[6];
	struct npu_random rnds[6];
	struct npu_kernel kern[6];
	uint8_t kblob[6][KBLOB_MAX];
	struct sctx *pc = NULL;
	uint64_t pva = 0, plen = 0, seqno = 0;
	unsigned int gen, pgen = 0;
	int n = rnd(t, 2) ? 1 : 2 + rnd(t, 5), i, fd, pfd = -1, ret, si, nset = 2;
	bool any_host = false, dst_host = false, peer = false;
	int set[6] = { 0, -ENOENT };
	uint32_t stream;

	/* The peer context first: never two contexts' locks at once. */
	if (cfg.ndev > 1 && !rnd(t, 3)) {
		for (i = 0; i < W.nsc; i++)
			if (W.sc[i].dev != c->dev && (!pc || rnd(t, 2)))
				pc = &W.sc[i];
		LOCK(pc);
		if (pc->nmap) {
			i = rnd(t, pc->nmap);
			pva = pc->map[i].va;
			plen = pc->map[i].len;
		} else {
			pva = SLOT_VA(pc, rnd(t, NSLOT));
			plen = SZ_64K;
		}
		pfd = sc_dup(t, pc, &pgen);
		UNLOCK(pc);
	}

	LOCK(c);
	if (!c->nst) {
		UNLOCK(c);
		if (pfd >= 0)
			close_fd(t, pfd, __LINE__);
		r_stream_create(t, c);
		return;
	}
	si = rnd(t, c->nst);
	stream = c->st[si].id;
	for (i = 0; i < n; i++) {
		struct operand d = { 0 }, s = { 0 };
		uint64_t len;
		bool host, ro;
		int kind = rnd(t, 10);

		/* an AI-core kernel launch, one command in five */
		if (!(pfd >= 0 && i == 0) && !rnd(t, 5)) {
			r_kernel_cmd(t, c, &cmds[i], &kern[i], kblob[i]);
			continue;
		}
		/* destination: device range, host range or the peer's */
		if (pfd >= 0 && i == 0 && rnd(t, 2)) {
			d = (struct operand){ pva, plen, NPU_CMD_DST_PEER };
		} else if (rnd(t, 3) || !pick_dev_range(t, c, &d.addr, &d.len, &host)) {
			pick_host(t, c, &d.addr, &d.len, &ro);
			d.flags = NPU_CMD_DST_HOST;
		}
		/* source, for copies */
		if (pfd >= 0 && i == 0 && !(d.flags & NPU_CMD_DST_PEER)) {
			s = (struct operand){ pva, plen, NPU_CMD_SRC_PEER };
		} else if (rnd(t, 2) && pick_dev_range(t, c, &s.addr, &s.len, &host)) {
			s.flags = 0;
		} else {
			pick_host(t, c, &s.addr, &s.len, &ro);
			s.flags = NPU_CMD_SRC_HOST;
		}
		if (pfd >= 0 && i == 0)
			kind = 0;	/* the peer operand goes in a copy */
		len = d.len < s.len ? d.len : s.len;
		if (len > SZ_256K && rnd(t, 4))
			len = SZ_256K;
		len = 1 + rnd(t, len);
		if (kind < 6) {
			uint64_t doff = rnd(t, d.len - len + 1) & ~7ULL;
			uint64_t soff = rnd(t, s.len - len + 1) & ~7ULL;

			cmds[i] = npu_copy_cmd(d.addr + doff, s.addr + soff, len,
					       d.flags | s.flags);
			if ((d.flags | s.flags) & (NPU_CMD_DST_PEER | NPU_CMD_SRC_PEER)) {
				cmds[i].value = pfd;
				peer = true;
			}
			if (s.flags & NPU_CMD_SRC_HOST)
				any_host = true;
		} else if (kind < 8 && !d.flags && d.len >= 16 && rnd(t, 2)) {
			/* read a counter, write numbers, store the counter: all racing unmaps */
			uint32_t func = (uint32_t)rnd(t, 4);

			rnds[i] = (struct npu_random){
				.func = func, .type = NPU_RANDOM_TYPE_FP32,
				.param = { 0, func == NPU_RANDOM_DROPOUT ? 0 : 0x3f800000 },
				.seed = splitmix(&t->rng), .count = len / 4,
				.counter = d.addr + rnd(t, d.len / 16) * 16,
			};
			cmds[i] = (struct npu_cmd){ .op = NPU_OP_RANDOM,
						    .dst = d.addr + rnd(t, d.len - len + 1),
						    .src = ptr64(&rnds[i]),
						    .value = sizeof(rnds[i]) };
		} else if (kind < 8) {
			cmds[i] = npu_memset_cmd(d.addr + (rnd(t, d.len - len + 1)),
						 (uint8_t)rnd(t, 256), len,
						 d.flags & NPU_CMD_DST_HOST);
		} else if (kind < 9) {
			cmds[i] = npu_value_cmd(NPU_OP_WRITE_VALUE,
					    d.addr + (rnd(t, d.len / 8) * 8),
					    splitmix(&t->rng),
					    d.flags & NPU_CMD_DST_HOST);
			/* the same operand rules: a clock instead of a value */
			if (rnd(t, 2)) {
				cmds[i].op = NPU_OP_TIMESTAMP;
				cmds[i].value = 0;
			}
		} else {
			/* true at once, or a fault: never a wait that hangs */
			cmds[i] = npu_value_cmd(NPU_OP_WAIT_VALUE,
					    d.addr + (rnd(t, d.len / 8) * 8), 0,
					    (d.flags & NPU_CMD_DST_HOST ?
					     NPU_CMD_SRC_HOST : 0) | NPU_WAIT_GEQ);
			if (d.flags & NPU_CMD_DST_HOST)
				any_host = true;
			continue;
		}
		if (d.flags & NPU_CMD_DST_HOST)
			any_host = dst_host = true;
	}
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);

	/*
	 * -ENOENT the stream was destroyed, -ENXIO a host operand is not
	 * (wholly) registered, -EACCES a write to a read-only registration,
	 * -EPERM a peer copy before PEER_ENABLE. Never -EBADF: the peer fd is
	 * a dup of a context of this process on the other NPU, held open.
	 */
	if (any_host)
		set[nset++] = -ENXIO;
	if (dst_host)
		set[nset++] = -EACCES;
	if (peer)
		set[nset++] = -EPERM;
	if (!rnd(t, 4))
		ret = r_submit_model(t, fd, stream, cmds, n, set, nset, &seqno);
	else
		ret = npu_submit(fd, stream, cmds, n, &seqno);
	allow_(t, OP_SUBMIT, ret, set, nset, stream, n, cmds[0].op << 8 | cmds[0].flags,
	       __LINE__);
	if (!ret) {
		for (i = 0; i < n; i++)
			if (cmds[i].op == NPU_OP_KERNEL)
				__atomic_fetch_add(&shm->k_submitted, 1, __ATOMIC_RELAXED);
		LOCK(c);
		if (c->gen == gen)
			for (i = 0; i < c->nst; i++)
				if (c->st[i].id == stream && c->st[i].seq < seqno)
					c->st[i].seq = seqno;
		UNLOCK(c);
		if (!rnd(t, 3)) {
			ret = npu_sync(fd, stream, 1000);
			/*
			 * -ECANCELED: another thread force-destroyed it meanwhile;
			 * -ETIME: a launch ran out of its timeout.
			 */
			ALLOW(t, OP_SYNC, ret, stream, 1000, 0,
			      0, -EIO, -ETIMEDOUT, -ENOENT, -ECANCELED, -ETIME);
		}
	}
	close_fd(t, fd, __LINE__);
	if (pfd >= 0)
		close_fd(t, pfd, __LINE__);
}

static void r_sync(struct thr *t, struct sctx *c)
{
	static const int32_t timeouts[] = { 0, 10, 500, -1 };
	int32_t to = timeouts[rnd(t, 4)];
	struct npu_stream_sync o;
	uint64_t seqno = 0;
	unsigned int gen;
	uint32_t stream;
	int i, fd, ret;

	LOCK(c);
	if (!c->nst) {
		UNLOCK(c);
		return;
	}
	i = rnd(t, c->nst);
	stream = c->st[i].id;
	if (rnd(t, 2))
		seqno = c->st[i].seq;
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	ret = sync_out(fd, stream, to, seqno, &o);
	/*
	 * -EINVAL: the id was destroyed and reused by a younger stream;
	 * -ECANCELED: another thread force-destroyed it while this waited;
	 * -ETIME: a launch ran out of its timeout.
	 */
	if (to >= 0 && seqno)
		ALLOW(t, OP_SYNC, ret, stream, to, seqno,
		      0, -EIO, -ENOENT, -ETIMEDOUT, -EINVAL, -ECANCELED, -ETIME);
	else if (to >= 0)
		ALLOW(t, OP_SYNC, ret, stream, to, seqno,
		      0, -EIO, -ENOENT, -ETIMEDOUT, -ECANCELED, -ETIME);
	else if (seqno)
		ALLOW(t, OP_SYNC, ret, stream, to, seqno,
		      0, -EIO, -ENOENT, -EINVAL, -ECANCELED, -ETIME);
	else
		ALLOW(t, OP_SYNC, ret, stream, to, seqno, 0, -EIO, -ENOENT, -ECANCELED,
		      -ETIME);
	/*
	 * A launch's fault is what its executor reported: a write or a read
	 * in the context's window, a trap (at 0), or the executor gone (only
	 * NPU_FAULT_AICORE, at 0). A timeout names no address.
	 */
	if ((ret == -EIO && (o.fault_flags & NPU_FAULT_AICORE) &&
	     ((o.fault_flags & ~(NPU_FAULT_AICORE | NPU_FAULT_WRITE | NPU_FAULT_TRAP)) ||
	      (o.fault_flags & NPU_FAULT_TRAP ? o.fault_addr != 0 :
	       o.fault_addr && (o.fault_addr < c->base ||
				o.fault_addr - c->base >= WINDOW)))) ||
	    (ret == -ETIME && (o.fault_addr || o.fault_flags || !o.error_seqno)))
		fail(t, __LINE__, "STREAM_SYNC(%u) = %s: error_seqno %llu fault_addr %#llx fault_flags %#x (window %#llx)",
		     stream, errname(ret), (unsigned long long)o.error_seqno,
		     (unsigned long long)o.fault_addr, o.fault_flags,
		     (unsigned long long)c->base);
	close_fd(t, fd, __LINE__);
}

static void r_export(struct thr *t, struct sctx *c)
{
	uint32_t id, flags = rnd(t, 2) ? NPU_SHARE_ANY_PID : 0;
	uint64_t name = 0, len = 0, psz = 0;
	unsigned int gen;
	int i, fd, ret;

	LOCK(c);
	if (!c->nh) {
		UNLOCK(c);
		return;
	}
	id = c->h[rnd(t, c->nh)].id;
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	/* -ENOENT freed, -EBUSY exported before, -EINVAL the id is an import now. */
	ret = share_export(fd, id, flags, &name);
	ALLOW(t, OP_EXPORT, ret, id, flags, name, 0, -ENOENT, -EBUSY, -EINVAL);
	if (!ret) {
		int32_t pids[MAX_PROCS];
		uint32_t np;

		if (!flags) {
			np = worker_pids(pids);
			ret = set_pids(fd, name, pids, np);
			/* -ESRCH: a listed worker was killed since (v_export()) */
			ALLOW(t, OP_SET_PIDS, ret, name, np, pids[0], 0, -ENOENT, -ESRCH);
		}
		/* The size the table knows now is the handle's, if it still lives. */
		LOCK(c);
		for (i = 0; i < c->nh && c->gen == gen; i++)
			if (c->h[i].id == id) {
				len = c->h[i].len;
				psz = c->h[i].psz;
			}
		UNLOCK(c);
		slot_publish(my_slot(t, 2), name, c->dev, len, psz, -1, 0);
		t->rex.sc = c - W.sc;
		t->rex.gen = gen;
		t->rex.name = name;
	}
	close_fd(t, fd, __LINE__);
}

static void r_set_pids(struct thr *t)
{
	struct sctx *c;
	int32_t pids[MAX_PROCS];
	unsigned int gen;
	uint32_t np;
	int fd, ret;

	if (!t->rex.name)
		return;
	c = &W.sc[t->rex.sc];
	LOCK(c);
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	np = worker_pids(pids);
	ret = set_pids(fd, t->rex.name, pids, np);
	/*
	 * -ENOENT: freed (revoked) or the context was reopened; -ESRCH (the
	 * pids are resolved first): a listed worker was killed since.
	 */
	if (gen == t->rex.gen)
		ALLOW(t, OP_SET_PIDS, ret, t->rex.name, np, gen, 0, -ENOENT, -ESRCH);
	else
		ALLOW(t, OP_SET_PIDS, ret, t->rex.name, np, gen, -ENOENT, -ESRCH);
	close_fd(t, fd, __LINE__);
}

/* What SHARE_IMPORT may answer for a name read from a slot. */
static int import_set(const struct share_slot *s, int dev, int *set)
{
	set[0] = -ENOENT;	/* revoked, or this process is not allowed */
	if (s->owner == getpid())
		set[1] = -EINVAL;
	else if ((int)s->dev != dev)
		set[1] = -ENODEV;
	else
		set[1] = 0;
	return 2;
}

static void check_import(struct thr *t, const struct share_slot *s,
			 const struct npu_share_import *imp)
{
	if ((s->length && imp->length != s->length) ||
	    (s->page_size && imp->page_size != s->page_size))
		fail(t, __LINE__, "SHARE_IMPORT(%#llx): length %#llx page size %#llx, exported %#llx, %#llx",
		     (unsigned long long)s->name,
		     (unsigned long long)imp->length,
		     (unsigned long long)imp->page_size,
		     (unsigned long long)s->length,
		     (unsigned long long)s->page_size);
}

static void r_free_import(struct thr *t, struct sctx *c);

static void r_import(struct thr *t, struct sctx *c)
{
	struct npu_share_import imp;
	struct share_slot s;
	unsigned int gen;
	bool keep = false, stale;
	int set[2], n, fd, ret;

	if (!slot_read(rnd_slot(t), &s))
		return;
	LOCK(c);
	if (c->nimp >= NIMP) {
		UNLOCK(c);
		r_free_import(t, c);
		return;
	}
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	n = import_set(&s, c->dev, set);
	ret = share_import(fd, s.name, &imp);
	allow_(t, OP_IMPORT, ret, set, n, s.name, s.owner, imp.handle, __LINE__);
	if (!ret) {
		check_import(t, &s, &imp);
		LOCK(c);
		stale = c->gen != gen;
		if (!stale && c->nimp < NIMP) {
			c->imp[c->nimp++].id = imp.handle;
			keep = true;
		}
		UNLOCK(c);
		if (!keep && !stale)
			EXACT(t, OP_FREE, npu_free(fd, imp.handle), 0,
			      imp.handle, 0, 0);
	}
	close_fd(t, fd, __LINE__);
}

static void r_free_import(struct thr *t, struct sctx *c)
{
	unsigned int gen;
	uint32_t id;
	int i, fd;

	LOCK(c);
	if (!c->nimp) {
		UNLOCK(c);
		return;
	}
	i = rnd(t, c->nimp);
	id = c->imp[i].id;
	c->imp[i] = c->imp[--c->nimp];
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	EXACT(t, OP_FREE, npu_free(fd, id), 0, id, gen, 1);
	close_fd(t, fd, __LINE__);
}

static void r_peer_enable(struct thr *t, struct sctx *c)
{
	int dev = !c->dev, fd, ret;
	unsigned int gen;

	if (cfg.ndev < 2)
		return;
	LOCK(c);
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	ret = peer_enable(fd, dev);
	ALLOW(t, OP_PEER_ENABLE, ret, dev, gen, 0, 0, -EALREADY);
	LOCK(c);
	if (!ret && c->gen == gen) {
		if (c->peers & 1U << dev) {
			UNLOCK(c);
			fail(t, __LINE__, "PEER_ENABLE(%d) succeeded twice in one context", dev);
		}
		c->peers |= 1U << dev;
	}
	UNLOCK(c);
	close_fd(t, fd, __LINE__);
}

static void r_info(struct thr *t, struct sctx *c)
{
	struct npu_get_info info;
	unsigned int gen;
	int fd;

	LOCK(c);
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	EXACT(t, OP_GET_INFO, npu_info(fd, &info), 0, c->dev, info.mem_used, 0);
	if ((int)info.device_index != c->dev ||
	    (int)info.num_devices != cfg.ndev || info.mem_used > info.mem_total)
		fail(t, __LINE__, "GET_INFO: device %u of %u, mem_used %llu of %llu",
		     info.device_index, info.num_devices,
		     (unsigned long long)info.mem_used,
		     (unsigned long long)info.mem_total);
	close_fd(t, fd, __LINE__);
}

/*
 * Give a host buffer new pages, or drop some, under whatever registrations
 * pin the old ones: they keep their pages (and DMA goes on to them) until
 * unregistered; the pins must still all come back.
 */
static void r_remap(struct thr *t)
{
	int b = rnd(t, NHOST);
	size_t off, len;
	void *p;

	if (rnd(t, 2)) {
		p = mmap(W.hbuf[b], W.hlen[b], PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p != W.hbuf[b])
			fail(t, __LINE__, "mmap(MAP_FIXED) over a host buffer: %s",
			     strerror(errno));
		if (W.hlen[b] >= SZ_2M)
			madvise(p, W.hlen[b], MADV_HUGEPAGE);
		memset(p, 0x3c, W.hlen[b]);
	} else {
		/* part of a huge page, maybe: the pinned folio is split */
		off = rnd(t, W.hlen[b] / SZ_4K) * SZ_4K;
		len = SZ_4K * (1 + rnd(t, (W.hlen[b] - off) / SZ_4K));
		if (madvise(W.hbuf[b] + off, len, MADV_DONTNEED))
			fail(t, __LINE__, "madvise(MADV_DONTNEED): %s", strerror(errno));
		memset(W.hbuf[b] + off, 0x3c, len);
	}
}

static void sc_reset_locked(struct sctx *c)
{
	int i;

	c->nh = c->nimp = c->nmap = c->nst = 0;
	c->peers = 0;
	for (i = 0; i < NSLOT; i++)
		c->slot[i].state = S_FREE;
	for (i = 0; i < NHOST; i++) {
		c->reg[i].state = R_NONE;
		c->reg[i].slot = -1;
	}
}

/*
 * Close the context's fd while other threads use dups of it, and put a
 * fresh context in its place: the old one is released by whichever
 * thread closes its last dup, with whatever DMA it has in flight.
 */
static void r_reopen(struct thr *t, struct sctx *c)
{
	int old, fd = open_dev(t, c->dev, __LINE__);

	LOCK(c);
	old = c->fd;
	c->fd = fd;
	c->gen++;
	sc_reset_locked(c);
	UNLOCK(c);
	close_fd(t, old, __LINE__);
	seq_done(SEQ_REOPEN_SHARED);
}

/*
 * Hand an aperture file of the context to an executor process (struct
 * spawn_req), which takes a few of its launches and dies with them: they
 * fail (-EIO, NPU_FAULT_AICORE at 0). One per context and 1.5 s at most,
 * so that the context's apertures stay under 16.
 */
static void r_spawn_exec(struct thr *t, struct sctx *c)
{
	struct spawn_req rq = {
		.ms = 20 + rnd(t, 400), .takes = 1 + rnd(t, 3),
		.done_first = rnd(t, 2), .seed = splitmix(&t->rng),
	};
	unsigned int gen;
	int fd, afd;

	LOCK(c);
	if (W.spawn_sock < 0 || now() < c->spawn_after) {
		UNLOCK(c);
		return;
	}
	c->spawn_after = now() + 1.5;
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	afd = aperture_open(t, fd, __LINE__);
	close_fd(t, fd, __LINE__);
	if (spawn_send(t, afd, &rq))
		__atomic_fetch_add(&shm->k_spawned, 1, __ATOMIC_RELAXED);
	close_fd(t, afd, __LINE__);
}

static void racy_op(struct thr *t)
{
	int i = rnd(t, W.nsc), r = rnd(t, 1005);
	struct sctx *c = &W.sc[i];

	t->where = i;

	if (r < 70)
		r_alloc(t, c);
	else if (r < 110)
		r_free(t, c);
	else if (r < 160)
		r_reserve(t, c);
	else if (r < 190)
		r_release(t, c);
	else if (r < 290)
		r_map(t, c);
	else if (r < 340)
		r_unmap(t, c);
	else if (r < 420)
		r_set_access(t, c);
	else if (r < 440)
		r_get_access(t, c);
	else if (r < 460)
		r_query(t, c);
	else if (r < 520)
		r_register(t, c);
	else if (r < 560)
		r_unregister(t, c);
	else if (r < 585)
		r_stream_create(t, c);
	else if (r < 605)
		r_stream_destroy(t, c);
	else if (r < 850)
		r_submit(t, c);
	else if (r < 920)
		r_sync(t, c);
	else if (r < 935)
		r_export(t, c);
	else if (r < 945)
		r_set_pids(t);
	else if (r < 970)
		r_import(t, c);
	else if (r < 980)
		r_free_import(t, c);
	else if (r < 988)
		r_peer_enable(t, c);
	else if (r < 992)
		r_info(t, c);
	else if (r < 996)
		r_remap(t);
	else if (r < 1000)
		r_reopen(t, c);
	else
		r_spawn_exec(t, c);
}

/* ------------------------------------------------------------------ */
/* The executors of the shared contexts                                */
/* ------------------------------------------------------------------ */

/*
 * Each shared context has an executor thread, as an application has its
 * AI-core executor: it holds an aperture file of the context (a new one
 * after each reopen), mapped over the context's VA window, takes the
 * launches (KERNEL_WAIT; up to EXEC_PEND at once, a slow one held up to
 * 60 ms before it runs, so that cancels come between), does what each one's func says through the aperture - the
 * blob stored at @args_va, or read there for NPU_KERNEL_ARGS_DEVICE, a
 * word into each block's dump area, the overflow word - and reports it
 * (KERNEL_DONE): done, or faulted where a SIGBUS said, or trapped. Now and
 * then it "crashes": unmaps the window and closes its file with launches
 * taken (they fail), and is gone for up to 300 ms (launches with a
 * timeout run out of it meanwhile).
 */
#define EXEC_PEND	4

struct sexec {
	struct thr t;			/* the checks' and the ring's */
	struct sctx *c;
	int afd;			/* or -1: down */
	unsigned int gen;		/* of the context it serves */
	double down_until;
	int npend;
	struct npu_kernel_wait pend[EXEC_PEND];
	double hold[EXEC_PEND];		/* a K_SLOW launch runs after this */
	uint8_t buf[EXEC_PEND][KBLOB_MAX];
	uint8_t scratch[KBLOB_MAX];
};

static struct sexec *execs[NSC_MAX];
static pthread_t exec_tids[NSC_MAX];

/* Is [@va, +@len) in the context's window? (Every launch's VA must be.) */
static bool in_window(const struct sctx *c, uint64_t va, uint64_t len)
{
	return va >= c->base && len <= WINDOW && va - c->base <= WINDOW - len;
}

/* What WAIT handed out is what a thread of this worker submitted. */
static void exec_check_job(struct sexec *e, const struct npu_kernel_wait *w,
			   const uint8_t *blob)
{
	struct thr *t = &e->t;
	struct sctx *c = e->c;
	bool dev = w->kernel_flags & NPU_KERNEL_ARGS_DEVICE;

	if ((w->func & KFUNC_MASK) != KFUNC_RACY || (w->func & ~KFUNC_MASK & ~K_BITS) ||
	    !w->job || !w->block_dim || w->block_dim > 8 ||
	    w->core_type > NPU_KERNEL_CORE_MIX || w->sat_mode > NPU_KERNEL_SAT_INFNAN ||
	    w->kernel_flags & ~NPU_KERNEL_FLAGS_MASK || w->timeout_ms > 520 ||
	    w->args_len > KBLOB_MAX || (w->args_len && w->args_len < 8) ||
	    (w->args_len && !in_window(c, w->args_va, w->args_len)) ||
	    (!w->args_len && w->args_va) || (!w->dump_va != !w->dump_size) ||
	    (w->dump_va && !in_window(c, w->dump_va, (uint64_t)w->dump_size * w->block_dim)) ||
	    (w->overflow_va && !in_window(c, w->overflow_va, 8)) ||
	    (w->args_len && !dev && !kblob_ok(blob, w->args_len)))
		fail(t, __LINE__, "KERNEL_WAIT handed out job %llu func %#llx blocks %u core %u flags %#x args %u at %#llx dump %#llx+%u overflow %#llx timeout %u: not a launch this worker made (window %#llx)",
		     (unsigned long long)w->job, (unsigned long long)w->func, w->block_dim,
		     w->core_type, w->kernel_flags, w->args_len,
		     (unsigned long long)w->args_va, (unsigned long long)w->dump_va,
		     w->dump_size, (unsigned long long)w->overflow_va, w->timeout_ms,
		     (unsigned long long)c->base);
}

/* Run a taken launch through the aperture and report it. */
static void exec_run(struct sexec *e, const struct npu_kernel_wait *w,
		     uint8_t *blob)
{
	struct thr *t = &e->t;
	uint64_t fault_va = 0, word;
	uint32_t fflags = 0, status = NPU_KERNEL_STATUS_OK, b;
	struct gfault f;
	int ret = 0;

	if (w->args_len) {
		/* the blob stored where the kernel gets it, or read from there */
		if (w->kernel_flags & NPU_KERNEL_ARGS_DEVICE)
			ret = ap_access(t, w->args_va, e->scratch, w->args_len, false, &f,
					__LINE__);
		else
			ret = ap_access(t, w->args_va, blob, w->args_len, true, &f, __LINE__);
		if (ret)
			fflags = gfault_flags(&f, !(w->kernel_flags & NPU_KERNEL_ARGS_DEVICE));
	}
	for (b = 0; !ret && (w->func & K_DUMP) && b < w->block_dim; b++) {
		word = w->job << 8 | b;
		ret = ap_access(t, w->dump_va + (uint64_t)b * w->dump_size, &word, 8, true,
				&f, __LINE__);
		if (ret)
			fflags = gfault_flags(&f, true);
	}
	if (!ret && (w->func & K_OVERFLOW)) {
		ret = ap_access(t, w->overflow_va, &word, 8, false, &f, __LINE__);
		if (ret) {
			fflags = gfault_flags(&f, false);
		} else {
			word = 0;
			ret = ap_access(t, w->overflow_va, &word, 8, true, &f, __LINE__);
			if (ret)
				fflags = gfault_flags(&f, true);
		}
	}
	if (ret) {
		status = NPU_KERNEL_STATUS_FAULT;
		fault_va = f.addr;
		__atomic_fetch_add(&shm->k_faults, 1, __ATOMIC_RELAXED);
	} else if (w->func & K_TRAP) {
		status = NPU_KERNEL_STATUS_FAULT;
		fflags = NPU_FAULT_TRAP;
		__atomic_fetch_add(&shm->k_traps, 1, __ATOMIC_RELAXED);
	}
	if (w->func & K_SLOW)
		usleep(1000 + rnd(t, 20000));
	/* -ECANCELED: destroyed, closed or timed out meanwhile */
	ret = kdone(e->afd, w->job, status, fault_va, fflags);
	ALLOW(t, OP_KERNEL_DONE, ret, w->job, status, fault_va, 0, -ECANCELED);
}

/* Remove pending launch @i (its blob too). */
static void exec_drop(struct sexec *e, int i)
{
	e->npend--;
	if (i == e->npend)
		return;
	e->pend[i] = e->pend[e->npend];
	e->hold[i] = e->hold[e->npend];
	memcpy(e->buf[i], e->buf[e->npend], KBLOB_MAX);
}

/* Run the pending launches not held any longer (@all: every one). */
static void exec_run_pending(struct sexec *e, bool all)
{
	double t0 = now();
	int i;

	for (i = 0; i < e->npend; ) {
		if (!all && e->hold[i] > t0) {
			i++;
			continue;
		}
		exec_run(e, &e->pend[i], e->buf[i]);
		exec_drop(e, i);
	}
}

/* A cancel event: a launch of this executor's is DONE -ECANCELED. */
static void exec_cancel(struct sexec *e, uint64_t job)
{
	struct thr *t = &e->t;
	int i;

	__atomic_fetch_add(&shm->k_cancels, 1, __ATOMIC_RELAXED);
	for (i = 0; i < e->npend; i++) {
		if (e->pend[i].job != job)
			continue;
		EXACT(t, OP_KERNEL_DONE, kdone(e->afd, job, NPU_KERNEL_STATUS_OK, 0, 0),
		      -ECANCELED, job, 0, 1);
		exec_drop(e, i);
		return;
	}
	/*
	 * An executor process's: any aperture file of the context may
	 * report it (-ECANCELED), unless that file is gone (-ENOENT).
	 */
	if (rnd(t, 2))
		ALLOW(t, OP_KERNEL_DONE, kdone(e->afd, job, NPU_KERNEL_STATUS_OK, 0, 0),
		      job, 0, 2, -ECANCELED, -ENOENT);
}

/* Map a new aperture file of the context's current generation. */
static void exec_attach(struct sexec *e)
{
	struct thr *t = &e->t;
	struct sctx *c = e->c;
	unsigned int gen;
	int fd, afd;

	LOCK(c);
	fd = sc_dup(t, c, &gen);
	UNLOCK(c);
	afd = aperture_open(t, fd, __LINE__);
	close_fd(t, fd, __LINE__);
	if (fcntl(afd, F_SETFL, O_NONBLOCK))
		fail(t, __LINE__, "fcntl(O_NONBLOCK): %s", strerror(errno));
	ap_map(t, afd, c->base, WINDOW, __LINE__);
	e->afd = afd;
	e->gen = gen;
}

/* Its launches reported, the window unmapped, the file closed. */
static void exec_detach(struct sexec *e)
{
	exec_run_pending(e, true);
	ap_unmap(&e->t, e->c->base, WINDOW, __LINE__);
	close_fd(&e->t, e->afd, __LINE__);
	e->afd = -1;
}

static void *exec_main(void *arg)
{
	struct sexec *e = arg;
	struct thr *t = &e->t;
	struct sctx *c = e->c;
	struct npu_kernel_wait w;
	unsigned int gen;
	int ret;

	while (!__atomic_load_n(&W.exec_stop, __ATOMIC_RELAXED)) {
		struct pollfd p;

		LOCK(c);
		gen = c->gen;
		UNLOCK(c);
		/* reopened: the old context's launches are cancelled */
		if (e->afd >= 0 && gen != e->gen)
			exec_detach(e);
		if (e->afd < 0) {
			if (now() < e->down_until) {
				usleep(5000);
				continue;
			}
			exec_attach(e);
		}
		if (e->npend == EXEC_PEND) {
			exec_run_pending(e, true);
			continue;
		}
		if (e->npend && rnd(t, 2))
			exec_run_pending(e, false);
		p = (struct pollfd){ .fd = e->afd, .events = POLLIN };
		ret = poll(&p, 1, e->npend ? 2 : 20);
		if (ret <= 0 || !(p.revents & POLLIN)) {
			exec_run_pending(e, false);
			if (p.revents & POLLHUP)	/* shut down: reopened soon */
				usleep(2000);
			continue;
		}
		/* -EAGAIN: an executor process took it; -EPIPE: shut down */
		ret = kwait(e->afd, &w, e->buf[e->npend], KBLOB_MAX);
		ALLOW(t, OP_KERNEL_WAIT, ret, e->afd, w.job, w.event, 0, -EAGAIN, -EPIPE);
		if (ret)
			continue;
		if (w.event == NPU_KERNEL_EVENT_CANCEL) {
			exec_cancel(e, w.job);
			continue;
		}
		if (w.event != NPU_KERNEL_EVENT_RUN)
			fail(t, __LINE__, "KERNEL_WAIT: event %u", w.event);
		exec_check_job(e, &w, e->buf[e->npend]);
		/* a slow one is held a while: its cancel may come first */
		e->hold[e->npend] = w.func & K_SLOW ? now() + (1 + rnd(t, 60)) / 1000.0 : 0;
		e->pend[e->npend++] = w;
		__atomic_fetch_add(&shm->k_jobs, 1, __ATOMIC_RELAXED);
		if (!rnd(t, 40)) {
			/* a crash: what it took fails, what is queued waits */
			ap_unmap(t, c->base, WINDOW, __LINE__);
			close_fd(t, e->afd, __LINE__);
			e->afd = -1;
			e->npend = 0;
			e->down_until = now() + (20 + rnd(t, 280)) / 1000.0;
			__atomic_fetch_add(&shm->k_crashes, 1, __ATOMIC_RELAXED);
		}
	}
	if (e->afd >= 0)
		exec_detach(e);
	return NULL;
}

static void exec_start(int i)
{
	struct sexec *e = calloc(1, sizeof(*e));

	if (!e)
		fail(NULL, __LINE__, "no memory");
	e->t.idx = 100 + i;	/* executors are "thread 100" and up */
	e->t.where = i;
	e->t.rng = cfg.seed ^ ((uint64_t)W.gen << 40) ^ ((uint64_t)W.idx << 20) ^ (0x100 + i);
	e->c = &W.sc[i];
	e->afd = -1;
	execs[i] = e;
	if (pthread_create(&exec_tids[i], NULL, exec_main, e))
		fail(&e->t, __LINE__, "pthread_create");
}

/* ---- the executor processes ---- */

static void __attribute__((noreturn)) exec_proc_main(int afd, const struct spawn_req *rq)
{
	struct thr t = { .idx = 200, .where = -1, .rng = rq->seed };
	double end = now() + rq->ms / 1000.0;
	static uint8_t buf[KBLOB_MAX];
	struct npu_kernel_wait w;
	int taken = 0, ret;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (fcntl(afd, F_SETFL, O_NONBLOCK))
		fail(&t, __LINE__, "fcntl(O_NONBLOCK): %s", strerror(errno));
	while (taken < rq->takes && now() < end) {
		struct pollfd p = { .fd = afd, .events = POLLIN };

		if (poll(&p, 1, 10) <= 0 || !(p.revents & POLLIN))
			continue;
		ret = kwait(afd, &w, buf, sizeof(buf));
		ALLOW(&t, OP_KERNEL_WAIT, ret, afd, w.job, w.event, 0, -EAGAIN, -EPIPE);
		if (ret || w.event != NPU_KERNEL_EVENT_RUN)
			continue;
		if (!taken++ && rq->done_first)
			ALLOW(&t, OP_KERNEL_DONE, kdone(afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0),
			      w.job, 0, 0, 0, -ECANCELED);
	}
	while (now() < end)
		usleep(5000);
	raise(SIGKILL);
	_exit(1);
}

/*
 * The spawner: forked by the worker before it grew, it forks an executor
 * process for each aperture file the worker sends it (at most 4 alive; a
 * file past that is closed unused) and ends with the worker.
 */
static void __attribute__((noreturn)) spawner_main(int sock, pid_t worker)
{
	int alive = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != worker)
		_exit(0);
	for (;;) {
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct spawn_req rq;
		struct iovec iov = { .iov_base = &rq, .iov_len = sizeof(rq) };
		struct msghdr m = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct pollfd p = { .fd = sock, .events = POLLIN };
		struct cmsghdr *cm;
		ssize_t n;
		int afd = -1;
		pid_t pid;

		while (waitpid(-1, NULL, WNOHANG) > 0)
			alive--;
		if (poll(&p, 1, 50) <= 0)
			continue;
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
		if (n <= 0)
			_exit(0);	/* the worker is gone */
		cm = CMSG_FIRSTHDR(&m);
		if (cm && cm->cmsg_type == SCM_RIGHTS)
			memcpy(&afd, CMSG_DATA(cm), sizeof(int));
		if (afd < 0 || n != sizeof(rq))
			fail(NULL, __LINE__, "the spawner got %zd bytes, fd %d", n, afd);
		if (alive >= 4) {
			close(afd);
			continue;
		}
		pid = fork();
		if (!pid) {
			close(sock);
			exec_proc_main(afd, &rq);
		}
		close(afd);
		if (pid > 0)
			alive++;
	}
}

/* ------------------------------------------------------------------ */
/* Verified sequences in the thread's own contexts                     */
/* ------------------------------------------------------------------ */

static int priv_fd(struct thr *t, int dev)
{
	if (t->priv[dev] < 0) {
		t->priv[dev] = open_dev(t, dev, __LINE__);
		t->priv_peer[dev] = false;
	}
	return t->priv[dev];
}

/* Close an own context: its exports are revoked with it. */
static void priv_close(struct thr *t, int dev)
{
	int i;

	if (t->priv[dev] < 0)
		return;
	close_fd(t, t->priv[dev], __LINE__);
	t->priv[dev] = -1;
	t->priv_peer[dev] = false;
	for (i = 0; i < 2; i++)
		if (t->ex[i].used && t->ex[i].dev == dev)
			t->ex[i].used = false;	/* the slot keeps a dead name */
	if (t->sig.used && t->sig.dev == dev)
		t->sig.used = false;		/* and a dead key */
}

static int rnd_dev(struct thr *t)
{
	return cfg.ndev > 1 ? rnd(t, 2) : 0;
}

/* Allocate, reserve at @va, map, grant READWRITE: every step succeeds. */
static uint32_t dev_setup(struct thr *t, int fd, int dev, uint64_t va,
			  uint64_t len, uint64_t psz)
{
	uint32_t h = 0;

	EXACT(t, OP_ALLOC, npu_alloc(fd, len, psz, &h), 0, len, psz, h);
	EXACT(t, OP_RESERVE, npu_reserve(fd, va, len), 0, va, len, 0);
	EXACT(t, OP_MAP, npu_map(fd, va, len, h), 0, va, len, h);
	EXACT(t, OP_SET_ACCESS, npu_set_access(fd, va, len, dev, NPU_ACCESS_READWRITE),
	      0, va, len, dev);
	return h;
}

static void dev_teardown(struct thr *t, int fd, uint64_t va, uint32_t h)
{
	EXACT(t, OP_UNMAP, npu_unmap(fd, va), 0, va, 0, 0);
	if (h)
		EXACT(t, OP_FREE, npu_free(fd, h), 0, h, 0, 0);
	EXACT(t, OP_RELEASE, npu_release(fd, va), 0, va, 0, 0);
}

static uint32_t stream_new(struct thr *t, int fd)
{
	uint32_t s = 0;

	EXACT(t, OP_STREAM_CREATE, npu_stream_create(fd, &s), 0, s, 0, 0);
	return s;
}

static void run_ok(struct thr *t, int fd, uint32_t s, struct npu_cmd *cmds,
		   int n, int line)
{
	uint64_t seqno = 0;

	allow_(t, OP_SUBMIT, npu_submit(fd, s, cmds, n, &seqno),
	       (const int[]){ 0 }, 1, s, n, cmds[0].op, line);
	allow_(t, OP_SYNC, sync_seq(fd, s, -1, seqno), (const int[]){ 0 }, 1,
	       s, seqno, 0, line);
}

/* A command that must fault: SUBMIT succeeds, the SYNC says -EIO once. */
static void run_fault(struct thr *t, int fd, uint32_t s, struct npu_cmd cmd,
		      int line)
{
	allow_(t, OP_SUBMIT, npu_submit(fd, s, &cmd, 1, NULL),
	       (const int[]){ 0 }, 1, s, cmd.op, cmd.dst, line);
	allow_(t, OP_SYNC, npu_sync(fd, s, -1), (const int[]){ -EIO }, 1, s,
	       cmd.dst, cmd.src, line);
	allow_(t, OP_SYNC, npu_sync(fd, s, -1), (const int[]){ 0 }, 1, s,
	       cmd.dst, 1, line);
}

/*
 * H2D, D2D, MEMSET, WRITE_VALUE and D2H (to a MAPPED registration's
 * device VA or as a host operand) in one submit; the result is compared.
 */
static void v_roundtrip(struct thr *t)
{
	int dev = rnd_dev(t), fd = priv_fd(t, dev);
	uint64_t psz, len = rnd(t, 2) ? rnd_len(t, &psz) :
				       (psz = SZ_4K, SZ_4K * (1 + rnd(t, 1024)));
	uint64_t va0 = t->pv[0], va1 = t->pv[1], va2 = t->pv[2], seqno = 0;
	uint64_t moff = rnd(t, len), mlen = 1 + rnd(t, len - moff);
	uint64_t woff = rnd(t, len / 8) * 8, wval = splitmix(&t->rng);
	uint32_t ro = rnd(t, 2) ? NPU_HOST_READONLY : 0, s;
	bool mapped = rnd(t, 2), early_free = rnd(t, 3) == 0;
	uint8_t mbyte = rnd(t, 256);
	struct npu_addr_query q;
	struct npu_cmd cmds[5];
	uint32_t h1, h2, a = 0;

	h1 = dev_setup(t, fd, dev, va0, len, psz);
	h2 = dev_setup(t, fd, dev, va1, len, psz);
	EXACT(t, OP_QUERY, npu_query(fd, va1 + len - 1, &q), 0, va1, 0, 0);
	if (q.kind != NPU_ADDR_DEVICE || !q.mapped || q.base != va1 ||
	    q.length != len || q.page_size != psz ||
	    q.access != NPU_ACCESS_READWRITE)
		fail(t, __LINE__, "ADDR_QUERY(%#llx): kind %u mapped %u base %#llx length %#llx page %#llx access %u",
		     (unsigned long long)va1, q.kind, q.mapped,
		     (unsigned long long)q.base, (unsigned long long)q.length,
		     (unsigned long long)q.page_size, q.access);
	EXACT(t, OP_GET_ACCESS, npu_get_access(fd, va0, dev, &a), 0, va0, a, 0);
	if (a != NPU_ACCESS_READWRITE)
		fail(t, __LINE__, "GET_ACCESS after SET_ACCESS READWRITE: %u", a);
	/* Mappings keep freed handles' memory. */
	if (early_free) {
		EXACT(t, OP_FREE, npu_free(fd, h1), 0, h1, 0, 0);
		EXACT(t, OP_FREE, npu_free(fd, h2), 0, h2, 0, 0);
		h1 = h2 = 0;
	}
	fill_random(t, t->hsrc, len);
	memset(t->hdst, 0xa5, len);
	EXACT(t, OP_REGISTER, npu_register(fd, t->hsrc, len, ro, 0), 0,
	      ptr64(t->hsrc), len, ro);
	EXACT(t, OP_REGISTER, npu_register(fd, t->hdst, len,
					   mapped ? NPU_HOST_MAPPED : 0,
					   mapped ? va2 : 0),
	      0, ptr64(t->hdst), len, mapped);
	s = stream_new(t, fd);
	cmds[0] = npu_copy_cmd(va0, ptr64(t->hsrc), len, NPU_CMD_SRC_HOST);
	cmds[1] = npu_copy_cmd(va1, va0, len, 0);
	cmds[2] = npu_memset_cmd(va1 + moff, mbyte, mlen, 0);
	cmds[3] = npu_value_cmd(NPU_OP_WRITE_VALUE, va1 + woff, wval, 0);
	cmds[4] = mapped ? npu_copy_cmd(va2, va1, len, 0) :
			   npu_copy_cmd(ptr64(t->hdst), va1, len, NPU_CMD_DST_HOST);
	EXACT(t, OP_SUBMIT, npu_submit(fd, s, cmds, 5, &seqno), 0, s, 5, len);
	if (seqno != 5)
		fail(t, __LINE__, "SUBMIT of 5 commands to a new stream: seqno %llu",
		     (unsigned long long)seqno);
	EXACT(t, OP_SYNC, npu_sync(fd, s, -1), 0, s, len, 0);
	memcpy(t->expect, t->hsrc, len);
	memset(t->expect + moff, mbyte, mlen);
	memcpy(t->expect + woff, &wval, 8);
	check_data(t, t->hdst, t->expect, len, "H2D+D2D+MEMSET+WRITE_VALUE+D2H", __LINE__);

	if (!rnd(t, 5)) {	/* leave it all to close */
		priv_close(t, dev);
		seq_done(SEQ_ROUNDTRIP);
		return;
	}
	EXACT(t, OP_RELEASE, npu_release(fd, va0), -EBUSY, va0, 0, 0);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s, 0), 0, s, 0, 0);
	dev_teardown(t, fd, va0, h1);
	dev_teardown(t, fd, va1, h2);
	EXACT(t, OP_UNREGISTER, npu_unregister(fd, t->hsrc), 0, ptr64(t->hsrc), 0, 0);
	EXACT(t, OP_UNREGISTER, npu_unregister(fd, t->hdst), 0, ptr64(t->hdst), 0, 0);
	EXACT(t, OP_UNREGISTER, npu_unregister(fd, t->hdst), -ENXIO, ptr64(t->hdst), 0, 0);
	EXACT(t, OP_UNMAP, npu_unmap(fd, va0), -ENOENT, va0, 0, 0);
	seq_done(SEQ_ROUNDTRIP);
}

/* A peer copy in each direction, and the fault of a missing peer right. */
static void v_peer(struct thr *t)
{
	int a = rnd(t, 2), b = !a, fa = priv_fd(t, a), fb = priv_fd(t, b);
	uint64_t psz, len = rnd_len(t, &psz), va = t->pv[0], vb = t->pv[1];
	uint8_t byte = 1 + rnd(t, 255);
	uint32_t ha, hb, sa, sb;
	struct npu_cmd c;

	EXACT(t, OP_PEER_ENABLE, peer_enable(fa, b),
	      t->priv_peer[a] ? -EALREADY : 0, b, 0, 0);
	t->priv_peer[a] = true;
	ha = dev_setup(t, fa, a, va, len, psz);
	hb = dev_setup(t, fb, b, vb, len, psz);
	sa = stream_new(t, fa);
	sb = stream_new(t, fb);
	c = npu_memset_cmd(vb, byte, len, 0);
	run_ok(t, fb, sb, &c, 1, __LINE__);
	/* b's mapping grants a READ only: a may read it, not write it. */
	EXACT(t, OP_SET_ACCESS, npu_set_access(fb, vb, len, a, NPU_ACCESS_READ),
	      0, vb, len, a);
	c = npu_copy_cmd(va, vb, len, NPU_CMD_SRC_PEER);
	c.value = fb;
	run_ok(t, fa, sa, &c, 1, __LINE__);
	c = npu_copy_cmd(vb, va, SZ_4K, NPU_CMD_DST_PEER);
	c.value = fb;
	run_fault(t, fa, sa, c, __LINE__);
	EXACT(t, OP_REGISTER, npu_register(fa, t->hdst, len, 0, 0), 0,
	      ptr64(t->hdst), len, 0);
	c = npu_copy_cmd(ptr64(t->hdst), va, len, NPU_CMD_DST_HOST);
	run_ok(t, fa, sa, &c, 1, __LINE__);
	check_byte(t, t->hdst, byte, len, "peer copy", __LINE__);
	/* With the right taken back, a read faults too. */
	EXACT(t, OP_SET_ACCESS, npu_set_access(fb, vb, len, a, NPU_ACCESS_NONE),
	      0, vb, len, a);
	c = npu_copy_cmd(va, vb, SZ_4K, NPU_CMD_SRC_PEER);
	c.value = fb;
	run_fault(t, fa, sa, c, __LINE__);
	EXACT(t, OP_UNREGISTER, npu_unregister(fa, t->hdst), 0, ptr64(t->hdst), 0, 0);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fa, sa, 0), 0, sa, 0, 0);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fb, sb, 0), 0, sb, 0, 0);
	dev_teardown(t, fa, va, ha);
	dev_teardown(t, fb, vb, hb);
	seq_done(SEQ_PEER);
}

/* Revoke an own export: free the handle; the name is gone. */
static void v_revoke(struct thr *t, int k)
{
	int fd = t->priv[t->ex[k].dev];
	int32_t pid = getpid();

	EXACT(t, OP_FREE, npu_free(fd, t->ex[k].handle), 0, t->ex[k].handle, 0, 0);
	EXACT(t, OP_SET_PIDS, set_pids(fd, t->ex[k].name, &pid, 1), -ENOENT,
	      t->ex[k].name, 1, 0);
	t->ex[k].used = false;
	seq_done(SEQ_REVOKE);
}

/* Fill a handle with one byte, export it, publish the name. */
static void v_export(struct thr *t)
{
	int k = rnd(t, 2), dev = rnd_dev(t), fd;
	uint64_t psz, len = rnd_len(t, &psz), va = t->pv[3], name = 0, again;
	uint32_t flags = rnd(t, 2) ? NPU_SHARE_ANY_PID : 0, h, s;
	uint8_t byte = 1 + rnd(t, 255);
	struct npu_cmd c;

	if (t->ex[k].used)
		v_revoke(t, k);
	fd = priv_fd(t, dev);
	h = dev_setup(t, fd, dev, va, len, psz);
	s = stream_new(t, fd);
	c = npu_memset_cmd(va, byte, len, 0);
	run_ok(t, fd, s, &c, 1, __LINE__);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s, 0), 0, s, 0, 0);
	dev_teardown(t, fd, va, 0);
	EXACT(t, OP_EXPORT, share_export(fd, h, flags, &name), 0, h, flags, name);
	EXACT(t, OP_EXPORT, share_export(fd, h, flags, &again), -EBUSY, h, flags, 0);
	if (!flags) {
		int32_t pids[MAX_PROCS];
		uint32_t np = worker_pids(pids);

		/*
		 * A listed worker may be killed (and reaped) after its pid was
		 * read: the driver then finds no process for it (-ESRCH) and
		 * leaves the list unchanged (since issue 14's pid whitelist).
		 */
		ALLOW(t, OP_SET_PIDS, set_pids(fd, name, pids, np), name, np, 0, 0, -ESRCH);
	}
	t->ex[k].used = true;
	t->ex[k].dev = dev;
	t->ex[k].handle = h;
	t->ex[k].name = name;
	slot_publish(my_slot(t, k), name, dev, len, psz, byte, 0);
	seq_done(SEQ_EXPORT);
}

/* Import a published name; if it names filled memory, read it back. */
static void v_import(struct thr *t)
{
	struct npu_share_import imp;
	struct share_slot s;
	int set[2], n, dev, fd, ret;
	uint64_t va = t->pv[2];
	struct npu_cmd c;
	uint32_t st;

	if (!slot_read(rnd_slot(t), &s))
		return;
	dev = rnd(t, 5) ? (int)s.dev : rnd_dev(t);
	fd = priv_fd(t, dev);
	n = import_set(&s, dev, set);
	ret = share_import(fd, s.name, &imp);
	allow_(t, OP_IMPORT, ret, set, n, s.name, s.owner, dev, __LINE__);
	seq_done(SEQ_IMPORT);
	if (ret)
		return;
	check_import(t, &s, &imp);
	/* Only the exporter's own size is known to fit the buffers. */
	if (s.pattern >= 0 && imp.length <= SZ_4M) {
		uint64_t none;

		EXACT(t, OP_EXPORT, share_export(fd, imp.handle, 0, &none),
		      -EINVAL, imp.handle, 0, 0);
		EXACT(t, OP_RESERVE, npu_reserve(fd, va, imp.length), 0, va,
		      imp.length, 0);
		EXACT(t, OP_MAP, npu_map(fd, va, imp.length, imp.handle), 0,
		      va, imp.length, imp.handle);
		/* The exporter may be gone by now: the memory is not. */
		EXACT(t, OP_FREE, npu_free(fd, imp.handle), 0, imp.handle, 0, 0);
		EXACT(t, OP_SET_ACCESS, npu_set_access(fd, va, imp.length, dev,
						       NPU_ACCESS_READ),
		      0, va, imp.length, dev);
		EXACT(t, OP_REGISTER, npu_register(fd, t->hdst, imp.length, 0, 0),
		      0, ptr64(t->hdst), imp.length, 0);
		memset(t->hdst, 0, imp.length);
		st = stream_new(t, fd);
		c = npu_copy_cmd(ptr64(t->hdst), va, imp.length, NPU_CMD_DST_HOST);
		run_ok(t, fd, st, &c, 1, __LINE__);
		check_byte(t, t->hdst, s.pattern, imp.length, "imported memory", __LINE__);
		/* READ only: a write through it faults. */
		run_fault(t, fd, st, npu_memset_cmd(va, 0, 8, 0), __LINE__);
		EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, st, 0), 0, st, 0, 0);
		EXACT(t, OP_UNREGISTER, npu_unregister(fd, t->hdst), 0,
		      ptr64(t->hdst), 0, 0);
		dev_teardown(t, fd, va, 0);
		seq_done(SEQ_IMPORT_VERIFIED);
	} else {
		EXACT(t, OP_FREE, npu_free(fd, imp.handle), 0, imp.handle, 0, 0);
	}
}

/*
 * IPC signals: a 4 KiB page of device memory named by IPC_EXPORT, which
 * other processes import and wait on (WAIT_VALUE) until its exporter
 * writes the token (WRITE_VALUE) - what libacl's IPC events and notifies
 * are. A call moves this thread's signal a step: made and published,
 * written, then (one time in three) withdrawn - IPC_DESTROY or not - and
 * freed, which revokes it. The supervisor's kills and the context closes revoke it too, with
 * waits queued on it in other processes.
 */
static int ipc_export(int fd, uint64_t addr, uint64_t len, uint64_t *key)
{
	struct npu_ipc_export e = {
		.size = sizeof(e), .flags = NPU_SHARE_ANY_PID, .addr = addr,
		.length = len,
	};
	int ret = npu_ioctl(fd, NPU_IOCTL_IPC_EXPORT, &e);

	*key = e.key;
	return ret;
}

static int ipc_destroy(int fd, uint64_t key)
{
	struct npu_ipc_destroy d = { .size = sizeof(d), .key = key };

	return npu_ioctl(fd, NPU_IOCTL_IPC_DESTROY, &d);
}

static void v_ipc_signal(struct thr *t)
{
	uint64_t va = t->pv[4];
	struct npu_cmd c;
	uint32_t s;
	int fd;

	if (!t->sig.used) {
		t->sig.dev = rnd_dev(t);
		fd = priv_fd(t, t->sig.dev);
		t->sig.handle = dev_setup(t, fd, t->sig.dev, va, SZ_4K, SZ_4K);
		s = stream_new(t, fd);
		c = npu_memset_cmd(va, 0, SZ_4K, 0);
		run_ok(t, fd, s, &c, 1, __LINE__);
		EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s, 0), 0, s, 0, 0);
		EXACT(t, OP_IPC_EXPORT, ipc_export(fd, va, SZ_4K, &t->sig.key), 0, va, SZ_4K, 0);
		t->sig.token = splitmix(&t->rng) | 1;
		t->sig.used = true;
		t->sig.written = false;
		slot_publish(my_slot(t, SLOT_SIGNAL), t->sig.key, t->sig.dev, SZ_4K, SZ_4K, -1,
			     t->sig.token);
	} else if (!t->sig.written) {
		fd = priv_fd(t, t->sig.dev);
		s = stream_new(t, fd);
		c = npu_value_cmd(NPU_OP_WRITE_VALUE, va, t->sig.token, 0);
		run_ok(t, fd, s, &c, 1, __LINE__);
		EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s, 0), 0, s, 0, 0);
		t->sig.written = true;
	} else if (!rnd(t, 3)) {
		fd = priv_fd(t, t->sig.dev);
		if (rnd(t, 2))
			EXACT(t, OP_IPC_DESTROY, ipc_destroy(fd, t->sig.key), 0, t->sig.key, 0, 0);
		dev_teardown(t, fd, va, t->sig.handle);
		EXACT(t, OP_IPC_DESTROY, ipc_destroy(fd, t->sig.key), -ENOENT, t->sig.key, 0, 0);
		t->sig.used = false;
	}
	seq_done(SEQ_IPC_SIGNAL);
}

/*
 * Import another worker's signal and wait for its token: the wait passes
 * (the token was or is written), times out (then a FORCE destroy ends
 * it), or faults (revoked: -EIO once); nothing else may happen.
 */
static void v_ipc_wait(struct thr *t)
{
	struct npu_share_import imp = { .size = sizeof(imp) };
	uint64_t va = t->pv[5];
	struct share_slot sl;
	struct npu_cmd c;
	int fd, ret;
	uint32_t s;

	if (!slot_read(rnd_signal_slot(t), &sl) || sl.owner == getpid())
		return;
	fd = priv_fd(t, sl.dev);
	imp.shareable = sl.name;
	ret = npu_ioctl(fd, NPU_IOCTL_IPC_IMPORT, &imp);
	/* dead, or another thread of this process holds an import of it */
	ALLOW(t, OP_IPC_IMPORT, ret, sl.name, sl.owner, sl.dev, 0, -ENOENT, -EINVAL);
	seq_done(SEQ_IPC_WAIT);
	if (ret)
		return;
	if (imp.length != SZ_4K || imp.page_size != SZ_4K)
		fail(t, __LINE__, "IPC_IMPORT of a signal: length %llu page size %llu",
		     (unsigned long long)imp.length, (unsigned long long)imp.page_size);
	EXACT(t, OP_RESERVE, npu_reserve(fd, va, SZ_4K), 0, va, SZ_4K, 0);
	EXACT(t, OP_MAP, npu_map(fd, va, SZ_4K, imp.handle), 0, va, SZ_4K, imp.handle);
	EXACT(t, OP_SET_ACCESS, npu_set_access(fd, va, SZ_4K, sl.dev, NPU_ACCESS_READ),
	      0, va, SZ_4K, sl.dev);
	s = stream_new(t, fd);
	c = npu_value_cmd(NPU_OP_WAIT_VALUE, va, sl.token, NPU_WAIT_EQ);
	EXACT(t, OP_SUBMIT, npu_submit(fd, s, &c, 1, NULL), 0, s, 1, 0);
	ret = npu_sync(fd, s, 20 + (int)rnd(t, 200));
	ALLOW(t, OP_SYNC, ret, s, sl.name, 0, 0, -ETIMEDOUT, -EIO);
	if (!ret)
		seq_done(SEQ_IPC_RELEASED);
	else if (ret == -EIO)
		EXACT(t, OP_SYNC, npu_sync(fd, s, -1), 0, s, sl.name, 1);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s, ret == -ETIMEDOUT ?
						     NPU_STREAM_DESTROY_FORCE : 0),
	      0, s, 0, 0);
	dev_teardown(t, fd, va, imp.handle);
}

/* Faults and refusals with exactly one right answer. */
static void v_faults(struct thr *t)
{
	int dev = rnd_dev(t), fd = priv_fd(t, dev);
	uint64_t va = t->pv[0], len = SZ_64K, seqno = 0;
	uint32_t h = 0, s, s2;
	struct npu_cmd c;

	EXACT(t, OP_ALLOC, npu_alloc(fd, len, SZ_4K, &h), 0, len, 0, h);
	EXACT(t, OP_RESERVE, npu_reserve(fd, va, len), 0, va, len, 0);
	EXACT(t, OP_RESERVE, npu_reserve(fd, va + SZ_4K, SZ_4K), -EADDRINUSE, va, 0, 0);
	EXACT(t, OP_MAP, npu_map(fd, va, len, h), 0, va, len, h);
	EXACT(t, OP_MAP, npu_map(fd, va, len, h), -EADDRINUSE, va, len, h);
	s = stream_new(t, fd);
	/* A new mapping has no access; then READ only; then READWRITE. */
	run_fault(t, fd, s, npu_memset_cmd(va, 1, len, 0), __LINE__);
	EXACT(t, OP_SET_ACCESS, npu_set_access(fd, va, len, dev, NPU_ACCESS_READ),
	      0, va, len, 0);
	run_fault(t, fd, s, npu_value_cmd(NPU_OP_WRITE_VALUE, va + 8, 1, 0), __LINE__);
	EXACT(t, OP_SET_ACCESS, npu_set_access(fd, va, SZ_4K, dev, NPU_ACCESS_READ),
	      -EINVAL, va, SZ_4K, 0);
	EXACT(t, OP_SET_ACCESS, npu_set_access(fd, va + len, SZ_4K, dev,
					       NPU_ACCESS_READ),
	      -ENOENT, va + len, SZ_4K, 0);
	EXACT(t, OP_SET_ACCESS, npu_set_access(fd, va, len, dev, NPU_ACCESS_READWRITE),
	      0, va, len, 0);
	c = npu_memset_cmd(va, 2, len, 0);
	run_ok(t, fd, s, &c, 1, __LINE__);
	/* Unreserved device VA: faults. Unregistered host memory: refused. */
	run_fault(t, fd, s, npu_copy_cmd(va, t->pv[1], SZ_4K, 0), __LINE__);
	c = npu_copy_cmd(va, ptr64(t->hsrc), SZ_4K, NPU_CMD_SRC_HOST);
	EXACT(t, OP_SUBMIT, npu_submit(fd, s, &c, 1, NULL), -ENXIO, s, 0, 0);
	EXACT(t, OP_REGISTER, npu_register(fd, t->hsrc, SZ_64K, NPU_HOST_READONLY, 0),
	      0, ptr64(t->hsrc), SZ_64K, 1);
	EXACT(t, OP_REGISTER, npu_register(fd, t->hsrc + SZ_4K, SZ_4K, 0, 0),
	      -EEXIST, ptr64(t->hsrc), SZ_4K, 0);
	c = npu_copy_cmd(va, ptr64(t->hsrc), SZ_64K + SZ_4K, NPU_CMD_SRC_HOST);
	EXACT(t, OP_SUBMIT, npu_submit(fd, s, &c, 1, NULL), -ENXIO, s, 1, 0);
	c = npu_copy_cmd(ptr64(t->hsrc), va, SZ_4K, NPU_CMD_DST_HOST);
	EXACT(t, OP_SUBMIT, npu_submit(fd, s, &c, 1, NULL), -EACCES, s, 2, 0);
	c = npu_copy_cmd(va, ptr64(t->hsrc), SZ_64K, NPU_CMD_SRC_HOST);
	EXACT(t, OP_SUBMIT, npu_submit(fd, s, &c, 1, &seqno), 0, s, 3, 0);
	EXACT(t, OP_SYNC, sync_seq(fd, s, -1, seqno + 1), -EINVAL, s, seqno + 1, 0);
	EXACT(t, OP_SYNC, sync_seq(fd, s, -1, seqno), 0, s, seqno, 0);
	/* Another stream waits for this one, then this one goes. */
	s2 = stream_new(t, fd);
	c = (struct npu_cmd){ .op = NPU_OP_WAIT_STREAM, .src = s, .value = seqno };
	run_ok(t, fd, s2, &c, 1, __LINE__);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s, NPU_STREAM_DESTROY_FORCE),
	      0, s, 1, 0);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s, 0), -ENOENT, s, 0, 0);
	EXACT(t, OP_SYNC, npu_sync(fd, s, 0), -ENOENT, s, 0, 0);
	c = npu_memset_cmd(va, 3, len, 0);
	EXACT(t, OP_SUBMIT, npu_submit(fd, s, &c, 1, NULL), -ENOENT, s, 0, 0);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s2, 0), 0, s2, 0, 0);
	EXACT(t, OP_UNREGISTER, npu_unregister(fd, t->hsrc), 0, ptr64(t->hsrc), 0, 0);
	EXACT(t, OP_RELEASE, npu_release(fd, va + SZ_4K), -ENOENT, va + SZ_4K, 0, 0);
	dev_teardown(t, fd, va, h);
	EXACT(t, OP_FREE, npu_free(fd, h), -ENOENT, h, 0, 0);
	seq_done(SEQ_FAULTS);
}

/* Queue a lot of DMA and close the context under it. */
static void v_close_inflight(struct thr *t)
{
	int dev = rnd_dev(t), fd = priv_fd(t, dev), i, n = 8 + rnd(t, 56);
	uint64_t va = t->pv[0], len = SZ_4M;
	struct npu_cmd cmds[64];
	bool mapped = rnd(t, 2);
	uint32_t s, h;

	h = dev_setup(t, fd, dev, va, len, SZ_2M);
	EXACT(t, OP_REGISTER, npu_register(fd, t->hsrc, len,
					   mapped ? NPU_HOST_MAPPED : 0,
					   mapped ? t->pv[1] : 0),
	      0, ptr64(t->hsrc), len, mapped);
	s = stream_new(t, fd);
	for (i = 0; i < n; i++)
		cmds[i] = rnd(t, 2) ?
			npu_copy_cmd(va, ptr64(t->hsrc), len, NPU_CMD_SRC_HOST) :
			npu_copy_cmd(ptr64(t->hsrc), va, len, NPU_CMD_DST_HOST);
	EXACT(t, OP_SUBMIT, npu_submit(fd, s, cmds, n, NULL), 0, s, n, 0);
	if (rnd(t, 2))
		EXACT(t, OP_FREE, npu_free(fd, h), 0, h, 0, 0);
	priv_close(t, dev);
	seq_done(SEQ_CLOSE_INFLIGHT);
}

/* HOST_UNREGISTER returns only after the copies into it are done. */
static void v_unregister_waits(struct thr *t)
{
	int dev = rnd_dev(t), fd = priv_fd(t, dev), i, n = 2 + rnd(t, 14);
	uint64_t psz, len = rnd_len(t, &psz), va = t->pv[0], piece;
	uint8_t byte = 1 + rnd(t, 255);
	struct npu_cmd c, cmds[16];
	uint32_t s, h;

	h = dev_setup(t, fd, dev, va, len, psz);
	s = stream_new(t, fd);
	c = npu_memset_cmd(va, byte, len, 0);
	run_ok(t, fd, s, &c, 1, __LINE__);
	memset(t->hdst, 0, len);
	EXACT(t, OP_REGISTER, npu_register(fd, t->hdst, len, 0, 0), 0,
	      ptr64(t->hdst), len, 0);
	piece = len / n & ~7ULL;
	for (i = 0; i < n; i++) {
		uint64_t off = i * piece, l = i == n - 1 ? len - off : piece;

		cmds[i] = npu_copy_cmd(ptr64(t->hdst) + off, va + off, l,
				       NPU_CMD_DST_HOST);
	}
	EXACT(t, OP_SUBMIT, npu_submit(fd, s, cmds, n, NULL), 0, s, n, 0);
	EXACT(t, OP_UNREGISTER, npu_unregister(fd, t->hdst), 0, ptr64(t->hdst), 0, 0);
	check_byte(t, t->hdst, byte, len, "copies before HOST_UNREGISTER returned", __LINE__);
	EXACT(t, OP_SYNC, npu_sync(fd, s, 0), 0, s, 0, 0);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s, 0), 0, s, 0, 0);
	dev_teardown(t, fd, va, h);
	seq_done(SEQ_UNREG_WAITS);
}

/* STREAM_DESTROY waits for its queue; with FORCE it may cut it short. */
static void v_destroy_waits(struct thr *t)
{
	int dev = rnd_dev(t), fd = priv_fd(t, dev), i;
	uint64_t psz, len = rnd_len(t, &psz), va = t->pv[0];
	uint8_t b1 = 1 + rnd(t, 255), b2 = b1 ^ 0xff;
	struct npu_cmd c, cmds[8];
	uint32_t s1, s2, h;

	h = dev_setup(t, fd, dev, va, len, psz);
	EXACT(t, OP_REGISTER, npu_register(fd, t->hdst, len, 0, 0), 0,
	      ptr64(t->hdst), len, 0);
	s1 = stream_new(t, fd);
	s2 = stream_new(t, fd);
	for (i = 0; i < 8; i++)
		cmds[i] = npu_memset_cmd(va, i == 7 ? b1 : (uint8_t)i, len, 0);
	EXACT(t, OP_SUBMIT, npu_submit(fd, s1, cmds, 8, NULL), 0, s1, 8, 0);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s1, 0), 0, s1, 0, 0);
	c = npu_copy_cmd(ptr64(t->hdst), va, len, NPU_CMD_DST_HOST);
	run_ok(t, fd, s2, &c, 1, __LINE__);
	check_byte(t, t->hdst, b1, len, "memset before STREAM_DESTROY returned", __LINE__);

	s1 = stream_new(t, fd);
	c = npu_memset_cmd(va, b2, len, 0);
	EXACT(t, OP_SUBMIT, npu_submit(fd, s1, &c, 1, NULL), 0, s1, 1, 0);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s1, NPU_STREAM_DESTROY_FORCE),
	      0, s1, 1, 0);
	c = npu_copy_cmd(ptr64(t->hdst), va, len, NPU_CMD_DST_HOST);
	run_ok(t, fd, s2, &c, 1, __LINE__);
	for (i = 0; i < (int)len; i++)
		if (t->hdst[i] != b1 && t->hdst[i] != b2)
			fail(t, __LINE__, "after a forced destroy byte %d is %#x, not %#x or %#x",
			     i, t->hdst[i], b1, b2);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s2, 0), 0, s2, 0, 0);
	EXACT(t, OP_UNREGISTER, npu_unregister(fd, t->hdst), 0, ptr64(t->hdst), 0, 0);
	dev_teardown(t, fd, va, h);
	seq_done(SEQ_DESTROY_WAITS);
}

/* WAIT_STREAM and WAIT_VALUE order two streams. */
static void v_waits(struct thr *t)
{
	int dev = rnd_dev(t), fd = priv_fd(t, dev);
	uint64_t len = SZ_2M, va = t->pv[0], flag = va + len - 8, seqno = 0;
	uint64_t token = splitmix(&t->rng) | 1;
	uint8_t byte = 1 + rnd(t, 255);
	struct npu_cmd a[2], b[2];
	uint32_t s1, s2, h;

	h = dev_setup(t, fd, dev, va, len, rnd(t, 2) ? SZ_2M : SZ_4K);
	EXACT(t, OP_REGISTER, npu_register(fd, t->hdst, len, 0, 0), 0,
	      ptr64(t->hdst), len, 0);
	s1 = stream_new(t, fd);
	s2 = stream_new(t, fd);
	/* s2 waits for a value s1 writes after its memset */
	b[0] = npu_value_cmd(NPU_OP_WAIT_VALUE, flag, token, NPU_WAIT_EQ);
	b[1] = npu_copy_cmd(ptr64(t->hdst), va, len - 8, NPU_CMD_DST_HOST);
	EXACT(t, OP_SUBMIT, npu_submit(fd, s2, b, 2, NULL), 0, s2, 2, 0);
	a[0] = npu_memset_cmd(va, byte, len - 8, 0);
	a[1] = npu_value_cmd(NPU_OP_WRITE_VALUE, flag, token, 0);
	EXACT(t, OP_SUBMIT, npu_submit(fd, s1, a, 2, &seqno), 0, s1, 2, 0);
	EXACT(t, OP_SYNC, npu_sync(fd, s2, -1), 0, s2, 0, 0);
	check_byte(t, t->hdst, byte, len - 8, "copy after WAIT_VALUE", __LINE__);
	/* s2 waits for s1's next memset by its seqno */
	a[0] = npu_memset_cmd(va, byte ^ 0x5a, len - 8, 0);
	EXACT(t, OP_SUBMIT, npu_submit(fd, s1, a, 1, &seqno), 0, s1, 1, 0);
	b[0] = (struct npu_cmd){ .op = NPU_OP_WAIT_STREAM, .src = s1, .value = seqno };
	EXACT(t, OP_SUBMIT, npu_submit(fd, s2, b, 2, NULL), 0, s2, 2, 0);
	EXACT(t, OP_SYNC, npu_sync(fd, s2, -1), 0, s2, 0, 0);
	check_byte(t, t->hdst, byte ^ 0x5a, len - 8, "copy after WAIT_STREAM", __LINE__);
	/* A wait for a seqno s1 never reaches ends when s1 is destroyed. */
	b[0] = (struct npu_cmd){ .op = NPU_OP_WAIT_STREAM, .src = s1,
				 .value = seqno + 1000 };
	EXACT(t, OP_SUBMIT, npu_submit(fd, s2, b, 2, NULL), 0, s2, 2, 1);
	EXACT(t, OP_SYNC, npu_sync(fd, s2, 0), -ETIMEDOUT, s2, 0, 0);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s1, rnd(t, 2) ?
						     NPU_STREAM_DESTROY_FORCE : 0),
	      0, s1, 0, 0);
	EXACT(t, OP_SYNC, npu_sync(fd, s2, -1), 0, s2, 0, 0);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s2, 0), 0, s2, 0, 0);
	EXACT(t, OP_UNREGISTER, npu_unregister(fd, t->hdst), 0, ptr64(t->hdst), 0, 0);
	dev_teardown(t, fd, va, h);
	seq_done(SEQ_WAITS);
}

/*
 * Peer copies into a context of the other device that is closed while
 * they run: each lands or faults (the sync says 0 or -EIO), and the
 * stream goes on working (second kernel review: the engine read the
 * peer's freed VA space).
 */
static void v_peer_close(struct thr *t)
{
	int a = rnd(t, 2), b = !a, fa = priv_fd(t, a), fc, i, n = 8 + rnd(t, 24);
	uint64_t vc = t->pv[1], len = 64 * SZ_4K;
	struct npu_cmd cmds[32];
	uint32_t sa, h;
	int ret;

	EXACT(t, OP_PEER_ENABLE, peer_enable(fa, b),
	      t->priv_peer[a] ? -EALREADY : 0, b, 0, 0);
	t->priv_peer[a] = true;
	fc = open_dev(t, b, __LINE__);
	EXACT(t, OP_RESERVE, npu_reserve(fc, vc, len), 0, vc, len, 0);
	for (i = 0; i < 64; i++) {
		struct npu_map m = {
			.size = sizeof(m), .flags = NPU_MAP_PEERS,
			.addr = vc + i * SZ_4K, .length = SZ_4K,
		};

		EXACT(t, OP_ALLOC, npu_alloc(fc, SZ_4K, SZ_4K, &h), 0, SZ_4K, 0, 0);
		m.handle = h;
		EXACT(t, OP_MAP, npu_ioctl(fc, NPU_IOCTL_MAP, &m), 0, m.addr, SZ_4K, h);
		EXACT(t, OP_FREE, npu_free(fc, h), 0, h, 0, 0);
	}
	EXACT(t, OP_REGISTER, npu_register(fa, t->hsrc, len, 0, 0), 0,
	      ptr64(t->hsrc), len, 0);
	sa = stream_new(t, fa);
	for (i = 0; i < n; i++) {
		cmds[i] = i & 1 ?
			npu_copy_cmd(ptr64(t->hsrc), vc, len,
				     NPU_CMD_SRC_PEER | NPU_CMD_DST_HOST) :
			npu_copy_cmd(vc, ptr64(t->hsrc), len,
				     NPU_CMD_DST_PEER | NPU_CMD_SRC_HOST);
		cmds[i].value = fc;
	}
	EXACT(t, OP_SUBMIT, npu_submit(fa, sa, cmds, n, NULL), 0, sa, n, 0);
	usleep(rnd(t, 3000));
	close_fd(t, fc, __LINE__);
	ret = sync_seq(fa, sa, -1, 0);
	allow_(t, OP_SYNC, ret, (const int[]){ 0, -EIO }, 2, sa, n, 0, __LINE__);
	/* the stream is as good as before */
	cmds[0] = npu_memset_cmd(ptr64(t->hsrc), 0x6e, SZ_4K, NPU_CMD_DST_HOST);
	run_ok(t, fa, sa, cmds, 1, __LINE__);
	check_byte(t, t->hsrc, 0x6e, SZ_4K, "memset after the peer closed", __LINE__);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fa, sa, 0), 0, sa, 0, 0);
	EXACT(t, OP_UNREGISTER, npu_unregister(fa, t->hsrc), 0, ptr64(t->hsrc), 0, 0);
	seq_done(SEQ_PEER_CLOSE);
}

/*
 * Another driver's buffer imported (DMABUF_IMPORT): a udmabuf of a memfd,
 * or without udmabuf an npu dma-buf of the other device (or this one),
 * whose CPU view is the memfd's (the dma-buf's) mapping. The engine
 * writes and reads it through a mapping of the handle, the CPU view is
 * compared; the exporter's fds go at a random point, and the sequence
 * ends by freeing the handle before or after the unmap, or by closing the
 * context with copies through the buffer in flight.
 */
static void v_dmabuf_import(struct thr *t)
{
	int dev = rnd_dev(t), fd = priv_fd(t, dev), ufd, mfd = -1, dfd, i, n;
	uint64_t len = SZ_4K * (1 + rnd(t, 512)), va = t->pv[0];
	uint64_t off = rnd(t, len), wlen = 1 + rnd(t, len - off);
	bool close_early = rnd(t, 2);
	struct npu_dmabuf_import a = { .size = sizeof(a), .length = len };
	struct npu_cmd cmds[16];
	uint8_t byte = rnd(t, 256), *cpu;
	uint32_t s, h;

	ufd = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (ufd >= 0) {
		struct udmabuf_create c = { .flags = UDMABUF_FLAGS_CLOEXEC,
					    .size = len };

		mfd = memfd_create("stress-import", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (mfd < 0 || ftruncate(mfd, len) ||
		    fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK))
			fail(t, __LINE__, "memfd: %s", strerror(errno));
		c.memfd = mfd;
		dfd = ioctl(ufd, UDMABUF_CREATE, &c);
		allow_(t, OP_DMABUF_EXPORT, dfd < 0 ? -errno : 0,
		       (const int[]){ 0 }, 1, len, mfd, 0, __LINE__);
		close(ufd);
		cpu = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	} else {
		/* npu's own of another device goes through host DMA too */
		int edev = cfg.ndev > 1 ? !dev : dev, efd = priv_fd(t, edev);
		struct npu_dmabuf_export e = { .size = sizeof(e),
					       .flags = NPU_DMABUF_CLOEXEC };

		EXACT(t, OP_ALLOC, npu_alloc(efd, len, SZ_4K, &e.handle), 0,
		      len, SZ_4K, e.handle);
		EXACT(t, OP_DMABUF_EXPORT, npu_ioctl(efd, NPU_IOCTL_DMABUF_EXPORT, &e),
		      0, e.handle, len, 0);
		EXACT(t, OP_FREE, npu_free(efd, e.handle), 0, e.handle, 0, 0);
		dfd = e.fd;
		cpu = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
	}
	if (cpu == MAP_FAILED)
		fail(t, __LINE__, "mmap of the exporter's buffer: %s", strerror(errno));
	memset(cpu, 0x11, len);

	a.fd = dfd;
	EXACT(t, OP_DMABUF_IMPORT, npu_ioctl(fd, NPU_IOCTL_DMABUF_IMPORT, &a), 0,
	      dfd, len, a.handle);
	h = a.handle;
	if (close_early) {	/* the handle holds the buffer */
		close(dfd);
		if (mfd >= 0)
			close(mfd);
		dfd = mfd = -1;
	}
	EXACT(t, OP_RESERVE, npu_reserve(fd, va, len), 0, va, len, 0);
	EXACT(t, OP_MAP, npu_map(fd, va, len, h), 0, va, len, h);
	EXACT(t, OP_SET_ACCESS, npu_set_access(fd, va, len, dev, NPU_ACCESS_READWRITE),
	      0, va, len, dev);
	fill_random(t, t->hsrc, len);
	EXACT(t, OP_REGISTER, npu_register(fd, t->hsrc, len, 0, 0), 0,
	      ptr64(t->hsrc), len, 0);
	s = stream_new(t, fd);
	cmds[0] = npu_copy_cmd(va, ptr64(t->hsrc), len, NPU_CMD_SRC_HOST);
	cmds[1] = npu_memset_cmd(va + off, byte, wlen, 0);
	cmds[2] = npu_copy_cmd(ptr64(t->hsrc), va, len, NPU_CMD_DST_HOST);
	run_ok(t, fd, s, cmds, 3, __LINE__);
	memcpy(t->expect, t->hsrc, len);
	check_data(t, cpu, t->expect, len, "imported dma-buf through its exporter's view",
		   __LINE__);
	memset(t->expect + off, byte, wlen);
	check_data(t, t->hsrc, t->expect, len, "imported dma-buf read back", __LINE__);

	switch (rnd(t, 3)) {
	case 0:	/* freed while mapped, then unmapped */
		EXACT(t, OP_FREE, npu_free(fd, h), 0, h, 0, 0);
		EXACT(t, OP_UNMAP, npu_unmap(fd, va), 0, va, 0, 0);
		EXACT(t, OP_RELEASE, npu_release(fd, va), 0, va, 0, 0);
		EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s, 0), 0, s, 0, 0);
		EXACT(t, OP_UNREGISTER, npu_unregister(fd, t->hsrc), 0, ptr64(t->hsrc), 0, 0);
		break;
	case 1:	/* unmapped, then freed */
		EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s, 0), 0, s, 0, 0);
		dev_teardown(t, fd, va, h);
		EXACT(t, OP_UNREGISTER, npu_unregister(fd, t->hsrc), 0, ptr64(t->hsrc), 0, 0);
		break;
	default: /* closed with copies through the buffer in flight */
		n = 2 + rnd(t, 14);
		for (i = 0; i < n; i++)
			cmds[i] = rnd(t, 2) ?
				npu_copy_cmd(va, ptr64(t->hsrc), len, NPU_CMD_SRC_HOST) :
				npu_copy_cmd(ptr64(t->hsrc), va, len, NPU_CMD_DST_HOST);
		EXACT(t, OP_SUBMIT, npu_submit(fd, s, cmds, n, NULL), 0, s, n, 0);
		priv_close(t, dev);
		break;
	}
	munmap(cpu, len);
	if (dfd >= 0)
		close(dfd);
	if (mfd >= 0)
		close(mfd);
	seq_done(SEQ_DMABUF_IMPORT);
}

/*
 * AI-core kernel launches in an own context, the thread (or a helper
 * thread) its executor through an aperture file mapped over the
 * sequence's device VAs: a launch whose blob names device memory and a
 * MAPPED registration, into which the executor writes patterns through
 * the aperture; the copies queued behind the launch read them back (D2H).
 */
#define PAT_B		0x5a5a5a5a5a5a5a5aULL	/* the registration's pattern: seed ^ this */

struct vblob {
	uint64_t seed, va0, va1, len;
};

/* The verified launch's blob: where to write and what, then a tail. */
static void vblob_fill(uint8_t *p, uint32_t blen, const struct vblob *b)
{
	memcpy(p, b, sizeof(*b));
	pat_fill(p + sizeof(*b), sizeof(*b), blen - sizeof(*b), b->seed ^ 1);
}

struct vexec {
	struct thr ht;		/* a helper thread's own */
	struct thr *t;		/* whose the checks are: &ht or the caller */
	int afd;
	uint32_t stream;
	uint64_t seqno;		/* the launch's */
	struct npu_kernel k;	/* as submitted */
	uint8_t blob[KBLOB_MAX];	/* as submitted */
	uint8_t buf[KBLOB_MAX];
	uint8_t chunk[SZ_4K];
};

/* An access through the aperture that must not fault. */
static void ap_ok(struct thr *t, uint64_t va, void *buf, size_t len, bool write,
		  int line)
{
	struct gfault f;

	if (ap_access(t, va, buf, len, write, &f, line))
		fail(t, line, "%s %#llx, %zu bytes through the aperture: SIGBUS at %#llx",
		     write ? "write to" : "read of", (unsigned long long)va, len,
		     (unsigned long long)f.addr);
}

/* WAIT for the next event of a blocking aperture fd, 10 s at most. */
static void kwait_for(struct thr *t, int afd, struct npu_kernel_wait *w, void *buf,
		      int line)
{
	struct pollfd p = { .fd = afd, .events = POLLIN };

	if (poll(&p, 1, (int)(10000 * cfg.scale)) != 1)
		fail(t, line, "no KERNEL_WAIT event within %.0f s", 10 * cfg.scale);
	allow_(t, OP_KERNEL_WAIT, kwait(afd, w, buf, KBLOB_MAX), (const int[]){ 0 }, 1,
	       afd, w->job, w->event, line);
}

/* KERNEL_WAIT with nothing there: -EAGAIN. */
static void kwait_none(struct thr *t, int afd, int line)
{
	struct npu_kernel_wait w;
	uint8_t buf[64];
	int fl = fcntl(afd, F_GETFL);

	fcntl(afd, F_SETFL, fl | O_NONBLOCK);
	allow_(t, OP_KERNEL_WAIT, kwait(afd, &w, buf, sizeof(buf)),
	       (const int[]){ -EAGAIN }, 1, afd, w.job, w.event, line);
	fcntl(afd, F_SETFL, fl);
}

/* Take the launch, check it, write the patterns its blob names, report it. */
static void v_exec_pattern(struct vexec *v)
{
	struct thr *t = v->t;
	struct npu_kernel_wait w;
	struct vblob b;
	uint64_t off;

	kwait_for(t, v->afd, &w, v->buf, __LINE__);
	if (w.event != NPU_KERNEL_EVENT_RUN || !w.job || w.func != v->k.func ||
	    w.block_dim != v->k.block_dim || w.core_type != v->k.core_type ||
	    w.sat_mode != v->k.sat_mode || w.kernel_flags || w.args_len != v->k.args_len ||
	    w.args_va != v->k.args_va || w.dump_va || w.dump_size || w.overflow_va ||
	    w.timeout_ms || w.stream != v->stream || w.seqno != v->seqno)
		fail(t, __LINE__, "KERNEL_WAIT: event %u job %llu func %#llx blocks %u core %u sat %u flags %#x args %u at %#llx stream %u seqno %llu; submitted func %#llx blocks %u core %u sat %u args %u at %#llx stream %u seqno %llu",
		     w.event, (unsigned long long)w.job, (unsigned long long)w.func,
		     w.block_dim, w.core_type, w.sat_mode, w.kernel_flags, w.args_len,
		     (unsigned long long)w.args_va, w.stream, (unsigned long long)w.seqno,
		     (unsigned long long)v->k.func, v->k.block_dim, v->k.core_type,
		     v->k.sat_mode, v->k.args_len, (unsigned long long)v->k.args_va,
		     v->stream, (unsigned long long)v->seqno);
	check_data(t, v->buf, v->blob, w.args_len, "the blob KERNEL_WAIT handed out", __LINE__);
	/* as the executor does: the blob where the kernel reads it */
	ap_ok(t, w.args_va, v->buf, w.args_len, true, __LINE__);
	memcpy(&b, v->buf, sizeof(b));
	for (off = 0; off < b.len; off += SZ_4K) {
		pat_fill(v->chunk, off, SZ_4K, b.seed);
		ap_ok(t, b.va0 + off, v->chunk, SZ_4K, true, __LINE__);
		pat_fill(v->chunk, off, SZ_4K, b.seed ^ PAT_B);
		ap_ok(t, b.va1 + off, v->chunk, SZ_4K, true, __LINE__);
	}
	EXACT(t, OP_KERNEL_DONE, kdone(v->afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0), 0,
	      w.job, 0, 0);
}

static void *v_exec_thread(void *arg)
{
	v_exec_pattern(arg);
	return NULL;
}

/*
 * MEMSET, KERNEL, then D2H copies of what the kernel wrote (device memory,
 * the MAPPED registration by its device VA, the blob at @args_va): on a
 * stream, or as a model run once; the executor this thread after the
 * SUBMIT or a helper thread meanwhile.
 */
static void v_kernel(struct thr *t)
{
	int dev = rnd_dev(t), fd = priv_fd(t, dev), mode = rnd(t, 3), afd;
	uint64_t len = SZ_4K * (1 + rnd(t, rnd(t, 2) ? 16 : 256));
	uint64_t psz = rnd(t, 3) ? SZ_4K : SZ_2M, alen = (len + SZ_4K + psz - 1) & ~(psz - 1);
	uint64_t va0 = t->pv[0], va1 = t->pv[1], seqno = 0, off;
	uint32_t blen = 32 + 8 * rnd(t, (KBLOB_MAX - 32) / 8 + 1), s, h;
	struct npu_model_create mc = { .size = sizeof(mc), .count = 5 };
	struct npu_model_destroy md = { .size = sizeof(md) };
	struct vblob b = { .seed = splitmix(&t->rng), .va0 = va0, .va1 = va1, .len = len };
	struct vexec *v = calloc(1, sizeof(*v));
	bool helper = rnd(t, 2), model_left = false;
	struct npu_cmd cmds[5];
	struct gfault f;
	pthread_t tid;

	if (!v)
		fail(t, __LINE__, "no memory");
	h = dev_setup(t, fd, dev, va0, alen, psz);
	memset(t->hdst, 0xee, len);
	EXACT(t, OP_REGISTER, npu_register(fd, t->hdst, len, NPU_HOST_MAPPED, va1), 0,
	      ptr64(t->hdst), len, va1);
	memset(t->hsrc, 0, 2 * len + SZ_4K);
	EXACT(t, OP_REGISTER, npu_register(fd, t->hsrc, 2 * len + SZ_4K, 0, 0), 0,
	      ptr64(t->hsrc), 2 * len + SZ_4K, 0);
	afd = aperture_open(t, fd, __LINE__);
	ap_map(t, afd, va0, alen, __LINE__);
	ap_map(t, afd, va1, len, __LINE__);
	s = stream_new(t, fd);

	vblob_fill(v->blob, blen, &b);
	v->t = helper ? &v->ht : t;
	v->ht = (struct thr){ .idx = t->idx, .where = -1, .rng = splitmix(&t->rng) };
	v->afd = afd;
	v->stream = s;
	v->k = (struct npu_kernel){
		.func = KFUNC_VERIFIED, .block_dim = 1 + rnd(t, 4),
		.core_type = rnd(t, 3), .sat_mode = rnd(t, 2),
		.args_len = blen, .args = ptr64(v->buf), .args_va = va0 + len,
	};
	memcpy(v->buf, v->blob, blen);
	cmds[0] = npu_memset_cmd(va0, 0xee, len, 0);
	cmds[1] = (struct npu_cmd){ .op = NPU_OP_KERNEL, .src = ptr64(&v->k),
				    .value = sizeof(v->k) };
	cmds[2] = npu_copy_cmd(ptr64(t->hsrc), va0, len, NPU_CMD_DST_HOST);
	cmds[3] = npu_copy_cmd(ptr64(t->hsrc) + len, va1, len, NPU_CMD_DST_HOST);
	cmds[4] = npu_copy_cmd(ptr64(t->hsrc) + 2 * len, va0 + len, blen, NPU_CMD_DST_HOST);
	if (mode == 2) {
		struct npu_cmd run = { .op = NPU_OP_MODEL };

		mc.cmds = ptr64(cmds);
		mc.cmd_size = sizeof(cmds[0]);
		EXACT(t, OP_MODEL_CREATE, npu_ioctl(fd, NPU_IOCTL_MODEL_CREATE, &mc), 0,
		      5, NPU_OP_KERNEL, 0);
		run.src = mc.model;
		EXACT(t, OP_SUBMIT, npu_submit(fd, s, &run, 1, &seqno), 0, s, 1,
		      NPU_OP_MODEL << 8);
		v->seqno = seqno;	/* a model's steps are its run's */
		md.model = mc.model;
		model_left = rnd(t, 2);
		if (!model_left)	/* the run goes on without it */
			EXACT(t, OP_MODEL_DESTROY, npu_ioctl(fd, NPU_IOCTL_MODEL_DESTROY, &md),
			      0, mc.model, 0, 0);
	} else {
		EXACT(t, OP_SUBMIT, npu_submit(fd, s, cmds, 5, &seqno), 0, s, 5, NPU_OP_KERNEL);
		v->seqno = seqno - 3;
	}
	/* read at SUBMIT (MODEL_CREATE): what the caller does with it since is its own */
	memset(v->buf, 0, blen);
	if (helper && pthread_create(&tid, NULL, v_exec_thread, v))
		fail(t, __LINE__, "pthread_create");
	if (!helper)
		v_exec_pattern(v);
	EXACT(t, OP_SYNC, npu_sync(fd, s, -1), 0, s, seqno, len);
	if (helper)
		pthread_join(tid, NULL);

	pat_fill(t->expect, 0, len, b.seed);
	check_data(t, t->hsrc, t->expect, len, "device memory a launch wrote, read back by D2H",
		   __LINE__);
	off = rnd(t, len / SZ_4K) * SZ_4K;
	ap_ok(t, va0 + off, v->chunk, SZ_4K, false, __LINE__);
	check_data(t, v->chunk, t->expect + off, SZ_4K,
		   "device memory a launch wrote, read through the aperture", __LINE__);
	pat_fill(t->expect, 0, len, b.seed ^ PAT_B);
	check_data(t, t->hdst, t->expect, len,
		   "a MAPPED registration a launch wrote, as the host sees it", __LINE__);
	check_data(t, t->hsrc + len, t->expect, len,
		   "a MAPPED registration a launch wrote, read back by D2H", __LINE__);
	check_data(t, t->hsrc + 2 * len, v->blob, blen, "the blob at args_va, read back by D2H",
		   __LINE__);

	if (!rnd(t, 5)) {
		/* closed under its aperture: every access is SIGBUS, WAIT -EPIPE */
		struct npu_kernel_wait w;

		priv_close(t, dev);
		allow_(t, OP_AP_ACCESS, ap_access_(va0 + off, v->chunk, 8, false, &f),
		       (const int[]){ -EFAULT }, 1, va0 + off, 8, 0, __LINE__);
		if (f.sig != SIGBUS || f.addr != va0 + off)
			fail(t, __LINE__, "a read through the aperture of a closed context: signal %d at %#llx",
			     f.sig, (unsigned long long)f.addr);
		EXACT(t, OP_KERNEL_WAIT, kwait(afd, &w, v->buf, KBLOB_MAX), -EPIPE, afd, 0, 0);
	} else {
		if (model_left)
			EXACT(t, OP_MODEL_DESTROY, npu_ioctl(fd, NPU_IOCTL_MODEL_DESTROY, &md),
			      0, mc.model, 0, 0);
		EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s, 0), 0, s, 0, 0);
		EXACT(t, OP_UNREGISTER, npu_unregister(fd, t->hdst), 0, ptr64(t->hdst), 0, 0);
		EXACT(t, OP_UNREGISTER, npu_unregister(fd, t->hsrc), 0, ptr64(t->hsrc), 0, 0);
		dev_teardown(t, fd, va0, h);
	}
	ap_unmap(t, va0, alen, __LINE__);
	ap_unmap(t, va1, len, __LINE__);
	close_fd(t, afd, __LINE__);
	free(v);
	seq_done(SEQ_KERNEL);
}

/* A launch's fault as STREAM_SYNC must report it, once. */
static void sync_fault(struct thr *t, int fd, uint32_t s, int want, uint64_t seqno,
		       uint64_t addr, uint32_t flags, int line)
{
	struct npu_stream_sync o;

	allow_(t, OP_SYNC, sync_out(fd, s, -1, 0, &o), (const int[]){ want }, 1, s,
	       seqno, addr, line);
	if (o.error_seqno != seqno || o.fault_addr != addr || o.fault_flags != flags ||
	    (pid_t)o.error_tid != gettid())
		fail(t, line, "STREAM_SYNC = %s: error_seqno %llu fault_addr %#llx fault_flags %#x tid %u; want %llu %#llx %#x %d",
		     errname(want), (unsigned long long)o.error_seqno,
		     (unsigned long long)o.fault_addr, o.fault_flags, o.error_tid,
		     (unsigned long long)seqno, (unsigned long long)addr, flags, gettid());
	allow_(t, OP_SYNC, npu_sync(fd, s, -1), (const int[]){ 0 }, 1, s, seqno, 1, line);
}

static uint64_t submit_kernel(struct thr *t, int fd, uint32_t s,
			      const struct npu_kernel *k, int line)
{
	struct npu_cmd c = { .op = NPU_OP_KERNEL, .src = ptr64(k), .value = sizeof(*k) };
	uint64_t seqno = 0;

	allow_(t, OP_SUBMIT, npu_submit(fd, s, &c, 1, &seqno), (const int[]){ 0 }, 1, s,
	       NPU_OP_KERNEL, k->timeout_ms, line);
	return seqno;
}

/*
 * Launches with exactly one right answer, in an own context: accesses
 * through the aperture that fault (an unmapped VA, a write to a READ
 * mapping: SIGBUS at that address, reported by DONE) or not, a timeout
 * with no executor, an executor that closes its file with the launch
 * taken, FORCE destroys of a stream with a launch queued and one with a
 * launch taken, and (sometimes) the context's close with both.
 */
static void v_kernel_faults(struct thr *t)
{
	int dev = rnd_dev(t), fd = priv_fd(t, dev), afd, i, n = 1 + rnd(t, 3);
	uint64_t va = t->pv[0], len = 4 * 32 * 1024, seqno, job;
	struct npu_kernel k = { .func = KFUNC_VERIFIED, .block_dim = 1 };
	uint32_t h1 = 0, h2 = 0, s, s1, s2;
	struct npu_kernel_wait w;
	uint8_t buf[KBLOB_MAX];
	struct gfault f;

	/* [0, 32K) READWRITE, [32K, 64K) READ, [64K, 128K) reserved only */
	EXACT(t, OP_RESERVE, npu_reserve(fd, va, len), 0, va, len, 0);
	EXACT(t, OP_ALLOC, npu_alloc(fd, len / 4, SZ_4K, &h1), 0, len / 4, 0, h1);
	EXACT(t, OP_ALLOC, npu_alloc(fd, len / 4, SZ_4K, &h2), 0, len / 4, 0, h2);
	EXACT(t, OP_MAP, npu_map(fd, va, len / 4, h1), 0, va, len / 4, h1);
	EXACT(t, OP_MAP, npu_map(fd, va + len / 4, len / 4, h2), 0, va + len / 4, len / 4, h2);
	EXACT(t, OP_SET_ACCESS, npu_set_access(fd, va, len / 4, dev, NPU_ACCESS_READWRITE),
	      0, va, len / 4, dev);
	EXACT(t, OP_SET_ACCESS, npu_set_access(fd, va + len / 4, len / 4, dev,
					       NPU_ACCESS_READ),
	      0, va + len / 4, len / 4, dev);
	EXACT(t, OP_FREE, npu_free(fd, h1), 0, h1, 0, 0);
	EXACT(t, OP_FREE, npu_free(fd, h2), 0, h2, 0, 0);
	s = stream_new(t, fd);
	afd = aperture_open(t, fd, __LINE__);
	ap_map(t, afd, va, len, __LINE__);

	for (i = 0; i < n; i++) {
		int kind = rnd(t, 4);
		bool write = kind != 2;
		uint64_t addr = kind == 0 ? va + rnd(t, len / 4 / 8) * 8 :
				kind == 3 ? va + len / 4 + rnd(t, len / 4 / 8) * 8 :
				va + len / 2 + rnd(t, len / 2 / 8) * 8;
		uint64_t word = splitmix(&t->rng), got = ~0ULL;
		int ret;

		seqno = submit_kernel(t, fd, s, &k, __LINE__);
		kwait_for(t, afd, &w, buf, __LINE__);
		if (w.event != NPU_KERNEL_EVENT_RUN || w.stream != s || w.seqno != seqno)
			fail(t, __LINE__, "KERNEL_WAIT: event %u stream %u seqno %llu, want a run of %u, %llu",
			     w.event, w.stream, (unsigned long long)w.seqno, s,
			     (unsigned long long)seqno);
		if (kind == 3) {
			/* a READ mapping's page never written reads zeros */
			ap_ok(t, addr, &got, 8, false, __LINE__);
			if (got)
				fail(t, __LINE__, "a page never written read %#llx through the aperture",
				     (unsigned long long)got);
		}
		ret = ap_access(t, addr, write ? &word : (void *)&got, 8, write, &f, __LINE__);
		allow_(t, OP_AP_ACCESS, ret, (const int[]){ kind ? -EFAULT : 0 }, 1, addr,
		       kind, 0, __LINE__);
		if (ret && f.addr != addr)
			fail(t, __LINE__, "SIGBUS at %#llx for an access at %#llx",
			     (unsigned long long)f.addr, (unsigned long long)addr);
		EXACT(t, OP_KERNEL_DONE, kdone(afd, w.job, ret ? NPU_KERNEL_STATUS_FAULT :
					       NPU_KERNEL_STATUS_OK,
					       ret ? addr : 0, ret ? gfault_flags(&f, write) : 0),
		      0, w.job, addr, kind);
		if (ret)
			sync_fault(t, fd, s, -EIO, seqno, addr,
				   (write ? NPU_FAULT_WRITE : 0) | NPU_FAULT_AICORE, __LINE__);
		else
			EXACT(t, OP_SYNC, npu_sync(fd, s, -1), 0, s, seqno, 0);
	}

	/* not taken in time: -ETIME, and it left the queue */
	k.timeout_ms = 20 + rnd(t, 60);
	seqno = submit_kernel(t, fd, s, &k, __LINE__);
	sync_fault(t, fd, s, -ETIME, seqno, 0, 0, __LINE__);
	kwait_none(t, afd, __LINE__);
	k.timeout_ms = 0;

	if (rnd(t, 2)) {
		/* the executor's file goes with the launch taken: it fails */
		seqno = submit_kernel(t, fd, s, &k, __LINE__);
		kwait_for(t, afd, &w, buf, __LINE__);
		ap_unmap(t, va, len, __LINE__);
		close_fd(t, afd, __LINE__);
		sync_fault(t, fd, s, -EIO, seqno, 0, NPU_FAULT_AICORE, __LINE__);
		afd = aperture_open(t, fd, __LINE__);
		ap_map(t, afd, va, len, __LINE__);
		EXACT(t, OP_KERNEL_DONE, kdone(afd, w.job, NPU_KERNEL_STATUS_OK, 0, 0), -ENOENT,
		      w.job, 0, 0);
	}
	if (rnd(t, 2)) {
		/* FORCE destroys: the queued launch is dropped, the taken one cancelled */
		s1 = stream_new(t, fd);
		s2 = stream_new(t, fd);
		submit_kernel(t, fd, s1, &k, __LINE__);
		kwait_for(t, afd, &w, buf, __LINE__);
		job = w.job;
		submit_kernel(t, fd, s2, &k, __LINE__);
		EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s2, NPU_STREAM_DESTROY_FORCE),
		      0, s2, 1, 0);
		EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s1, NPU_STREAM_DESTROY_FORCE),
		      0, s1, 1, 0);
		kwait_for(t, afd, &w, buf, __LINE__);
		if (w.event != NPU_KERNEL_EVENT_CANCEL || w.job != job)
			fail(t, __LINE__, "KERNEL_WAIT after a FORCE destroy: event %u job %llu, want a cancel of %llu",
			     w.event, (unsigned long long)w.job, (unsigned long long)job);
		kwait_none(t, afd, __LINE__);
		EXACT(t, OP_KERNEL_DONE, kdone(afd, job, NPU_KERNEL_STATUS_OK, 0, 0), -ECANCELED,
		      job, 0, 0);
		EXACT(t, OP_KERNEL_DONE, kdone(afd, job, NPU_KERNEL_STATUS_OK, 0, 0), -ENOENT,
		      job, 0, 1);
	}
	if (!rnd(t, 3)) {
		/* the context's close: the taken launch cancelled, then -EPIPE */
		submit_kernel(t, fd, s, &k, __LINE__);
		kwait_for(t, afd, &w, buf, __LINE__);
		job = w.job;
		s2 = stream_new(t, fd);
		submit_kernel(t, fd, s2, &k, __LINE__);
		priv_close(t, dev);
		kwait_for(t, afd, &w, buf, __LINE__);
		if (w.event != NPU_KERNEL_EVENT_CANCEL || w.job != job)
			fail(t, __LINE__, "KERNEL_WAIT after the close: event %u job %llu, want a cancel of %llu",
			     w.event, (unsigned long long)w.job, (unsigned long long)job);
		EXACT(t, OP_KERNEL_WAIT, kwait(afd, &w, buf, KBLOB_MAX), -EPIPE, afd, 0, 0);
		EXACT(t, OP_KERNEL_DONE, kdone(afd, job, NPU_KERNEL_STATUS_OK, 0, 0), -ECANCELED,
		      job, 0, 2);
	} else {
		EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s, 0), 0, s, 0, 0);
		EXACT(t, OP_UNMAP, npu_unmap(fd, va), 0, va, 0, 0);
		EXACT(t, OP_UNMAP, npu_unmap(fd, va + len / 4), 0, va + len / 4, 0, 0);
		EXACT(t, OP_RELEASE, npu_release(fd, va), 0, va, 0, 0);
	}
	ap_unmap(t, va, len, __LINE__);
	close_fd(t, afd, __LINE__);
	seq_done(SEQ_KERNEL_FAULTS);
}

/*
 * An executor process takes the launch and is killed with it: -EIO with
 * NPU_FAULT_AICORE at 0 - or, if it never took it (the spawner had four
 * alive, or was slow), the launch's timeout.
 */
static void v_kernel_killed(struct thr *t)
{
	int dev = rnd_dev(t), fd = priv_fd(t, dev), afd, ret;
	struct npu_kernel k = {
		.func = KFUNC_VERIFIED, .block_dim = 1,
		.timeout_ms = (uint32_t)(2000 * cfg.scale),
	};
	struct spawn_req rq = {
		.ms = 50 + rnd(t, 200), .takes = 1, .seed = splitmix(&t->rng),
	};
	struct npu_stream_sync o;
	uint64_t seqno;
	uint32_t s;
	bool sent;

	s = stream_new(t, fd);
	seqno = submit_kernel(t, fd, s, &k, __LINE__);
	afd = aperture_open(t, fd, __LINE__);
	sent = spawn_send(t, afd, &rq);
	close_fd(t, afd, __LINE__);
	ret = sync_out(fd, s, -1, 0, &o);
	if (sent)
		ALLOW(t, OP_SYNC, ret, s, seqno, 0, -EIO, -ETIME);
	else
		EXACT(t, OP_SYNC, ret, -ETIME, s, seqno, 0);
	if (o.error_seqno != seqno || o.fault_addr ||
	    o.fault_flags != (ret == -EIO ? NPU_FAULT_AICORE : 0))
		fail(t, __LINE__, "STREAM_SYNC = %s: error_seqno %llu fault_addr %#llx fault_flags %#x; want %llu",
		     errname(ret), (unsigned long long)o.error_seqno,
		     (unsigned long long)o.fault_addr, o.fault_flags,
		     (unsigned long long)seqno);
	EXACT(t, OP_SYNC, npu_sync(fd, s, -1), 0, s, seqno, 1);
	EXACT(t, OP_STREAM_DESTROY, npu_stream_destroy(fd, s, 0), 0, s, 0, 0);
	seq_done(SEQ_KERNEL_KILLED);
}

static void verified_op(struct thr *t)
{
	int r = rnd(t, 122);

	t->where = -1;
	if (r < 20)
		v_roundtrip(t);
	else if (r < 32 && cfg.ndev > 1)
		v_peer(t);
	else if (r < 44)
		v_export(t);
	else if (r < 64)
		v_import(t);
	else if (r < 72)
		v_faults(t);
	else if (r < 80)
		v_close_inflight(t);
	else if (r < 88)
		v_unregister_waits(t);
	else if (r < 92)
		v_destroy_waits(t);
	else if (r < 96 && cfg.ndev > 1)
		v_peer_close(t);
	else if (r < 98)
		v_dmabuf_import(t);
	else if (r < 100)
		v_waits(t);
	else if (r < 103)
		v_ipc_signal(t);
	else if (r < 110)
		v_ipc_wait(t);
	else if (r < 117)
		v_kernel(t);
	else if (r < 121)
		v_kernel_faults(t);
	else
		v_kernel_killed(t);
}

/* ------------------------------------------------------------------ */
/* Worker processes                                                    */
/* ------------------------------------------------------------------ */

static uint8_t *host_buffer(size_t len)
{
	void *p = npu_hole_anon(len);

	if (!p)
		return NULL;
	if (len >= SZ_2M)
		madvise(p, len, MADV_HUGEPAGE);
	memset(p, 0x3c, len);
	return p;
}

static void *thread_main(void *arg)
{
	struct thr *t = arg;

	while (!stopping()) {
		if (rnd(t, 100) < 6)
			verified_op(t);
		else
			racy_op(t);
	}
	return NULL;
}

static void __attribute__((noreturn)) worker_main(int idx, int gen)
{
	struct thr *th = calloc(cfg.threads, sizeof(*th));
	struct npu_get_info info;
	int i, j, k, ret;

	W.idx = idx;
	W.gen = gen;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* The supervisor's context is not this process's. */
	ret = npu_info(cfg.sup_fd, &info);
	if (ret != -EPERM)
		fail(NULL, __LINE__, "GET_INFO on the parent's fd after fork: %s, want EPERM",
		     errname(ret));
	close(cfg.sup_fd);
	if (!th)
		fail(NULL, __LINE__, "calloc");
	guard_init();
	/* the executor processes' spawner, while this process is small */
	W.spawn_sock = -1;
	{
		pid_t self = getpid(), pid;
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
			fail(NULL, __LINE__, "socketpair: %s", strerror(errno));
		fflush(stdout);
		pid = fork();
		if (!pid) {
			close(sv[0]);
			spawner_main(sv[1], self);
		}
		if (pid < 0)
			fail(NULL, __LINE__, "fork: %s", strerror(errno));
		close(sv[1]);
		W.spawn_sock = sv[0];
	}

	for (i = 0; i < NSC_MAX; i++) {
		W.sc[i].base = npu_hole(WINDOW, SZ_2M);
		if (!W.sc[i].base)
			fail(NULL, __LINE__, "no address space for VA slots");
	}
	for (i = 0; i < NHOST; i++) {
		W.hlen[i] = host_sizes[i];
		W.hbuf[i] = host_buffer(W.hlen[i]);
		if (!W.hbuf[i])
			fail(NULL, __LINE__, "no memory for host buffers");
	}
	W.nsc = cfg.ndev > 1 ? 3 : 2;
	for (i = 0; i < W.nsc; i++) {
		struct sctx *c = &W.sc[i];

		pthread_mutex_init(&c->lock, NULL);
		c->dev = i == 2 ? 1 : 0;
		c->fd = npu_open(c->dev);
		if (c->fd < 0)
			fail(NULL, __LINE__, "open /dev/npu%d: %s", c->dev, strerror(errno));
		sc_reset_locked(c);
	}
	for (i = 0; i < cfg.threads; i++) {
		struct thr *t = &th[i];
		uint64_t s = cfg.seed ^ ((uint64_t)gen << 40) ^ ((uint64_t)idx << 20) ^ i;

		t->idx = i;
		t->rng = splitmix(&s);
		for (j = 0; j < MAX_DEVS; j++)
			t->priv[j] = -1;
		for (j = 0; j < (int)(sizeof(t->pv) / sizeof(t->pv[0])); j++) {
			t->pv[j] = npu_hole(SZ_8M, SZ_2M);
			if (!t->pv[j])
				fail(t, __LINE__, "no address space");
		}
		t->hsrc = host_buffer(SZ_4M);
		t->hdst = host_buffer(SZ_4M);
		t->expect = malloc(SZ_4M);
		if (!t->hsrc || !t->hdst || !t->expect)
			fail(t, __LINE__, "no memory");
		/* What a killed predecessor published is stale: clear it. */
		for (k = 0; k < SLOTS_PER_THREAD; k++)
			slot_publish(my_slot(t, k), 0, 0, 0, 0, -1, 0);
	}
	for (i = 0; i < W.nsc; i++)
		exec_start(i);
	__atomic_store_n(&shm->tgids[idx], getpid(), __ATOMIC_RELAXED);
	for (i = 0; i < cfg.threads; i++)
		if (pthread_create(&th[i].tid, NULL, thread_main, &th[i]))
			fail(&th[i], __LINE__, "pthread_create");
	for (i = 0; i < cfg.threads; i++)
		pthread_join(th[i].tid, NULL);
	/* the executors last: a thread's last sync may wait for a launch */
	__atomic_store_n(&W.exec_stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < W.nsc; i++)
		pthread_join(exec_tids[i], NULL);
	fflush(stdout);
	/* Everything still open goes with the process. */
	_exit(0);
}

/* ------------------------------------------------------------------ */
/* The hog and the bystander                                           */
/* ------------------------------------------------------------------ */

#define HOG_STREAMS	8
#define HOG_BATCH	8
/* The bystander's worst command and close, times the timeout scale. */
#define BYSTANDER_BOUND_MS	3000

/*
 * Keeps HOG_STREAMS streams of one context fed with 4 MiB device copies
 * until the end: whenever a stream is down to one batch, another goes in.
 */
static void __attribute__((noreturn)) hog_main(void)
{
	uint64_t va = npu_hole(SZ_8M, SZ_2M), last[HOG_STREAMS];
	struct npu_cmd cmds[HOG_BATCH];
	uint32_t s[HOG_STREAMS], h;
	int fd = npu_open(0), i, k;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (fd < 0 || !va || npu_alloc(fd, SZ_8M, SZ_2M, &h) ||
	    npu_reserve(fd, va, SZ_8M) || npu_map(fd, va, SZ_8M, h) ||
	    npu_set_access(fd, va, SZ_8M, 0, NPU_ACCESS_READWRITE))
		goto fail;
	for (i = 0; i < HOG_BATCH; i++)
		cmds[i] = npu_copy_cmd(va + SZ_4M, va, SZ_4M, 0);
	for (k = 0; k < HOG_STREAMS; k++) {
		if (npu_stream_create(fd, &s[k]) ||
		    npu_submit(fd, s[k], cmds, HOG_BATCH, NULL) ||
		    npu_submit(fd, s[k], cmds, HOG_BATCH, &last[k]))
			goto fail;
	}
	while (!stopping()) {
		for (k = 0; k < HOG_STREAMS; k++) {
			if (sync_seq(fd, s[k], 0, last[k] - HOG_BATCH))
				continue;
			if (npu_submit(fd, s[k], cmds, HOG_BATCH, &last[k]))
				goto fail;
			__atomic_add_fetch(&shm->hog_refills, 1, __ATOMIC_RELAXED);
		}
		usleep(10000);
	}
	/* the close drops what is still queued */
	close(fd);
	_exit(0);
fail:
	__atomic_store_n(&shm->hog_error, errno ? errno : EIO, __ATOMIC_RELAXED);
	_exit(1);
}

static void by_worst(double *worst, double ms)
{
	if (ms > *worst)
		*worst = ms;
}

/*
 * As another user: open a context, time small commands on it, time its
 * close (one command still queued), over and over until the end.
 */
static void __attribute__((noreturn)) bystander_main(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (setgroups(1, (gid_t[]){ NPU_GID }) || setgid(65534) || setuid(65534))
		goto fail;
	while (!stopping()) {
		uint64_t va = npu_hole(SZ_2M, SZ_2M);
		int fd = npu_open(0), ret, i;
		struct npu_cmd c;
		uint32_t s, h;
		double t0;

		if (fd < 0 || !va || npu_stream_create(fd, &s) ||
		    npu_alloc(fd, SZ_2M, SZ_2M, &h) || npu_reserve(fd, va, SZ_2M) ||
		    npu_map(fd, va, SZ_2M, h) ||
		    npu_set_access(fd, va, SZ_2M, 0, NPU_ACCESS_READWRITE))
			goto fail;
		for (i = 0; i < 8 && !stopping(); i++) {
			c = npu_value_cmd(NPU_OP_WRITE_VALUE, va + 8 * i, i, 0);
			t0 = now();
			ret = npu_run(fd, s, c);
			if (ret) {
				errno = -ret;
				goto fail;
			}
			by_worst(&shm->by_worst_ms, (now() - t0) * 1e3);
			__atomic_add_fetch(&shm->by_samples, 1, __ATOMIC_RELAXED);
			usleep(20000);
		}
		c = npu_memset_cmd(va, 0x42, SZ_2M, 0);
		if (npu_submit(fd, s, &c, 1, NULL))
			goto fail;
		t0 = now();
		close(fd);
		by_worst(&shm->by_worst_close_ms, (now() - t0) * 1e3);
		__atomic_add_fetch(&shm->by_closes, 1, __ATOMIC_RELAXED);
		munmap((void *)(uintptr_t)va, SZ_2M);
	}
	_exit(0);
fail:
	__atomic_store_n(&shm->by_error, errno ? errno : EIO, __ATOMIC_RELAXED);
	_exit(1);
}

static pid_t spawn_fn(void (*fn)(void))
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		fn();
	return pid;
}

/* ------------------------------------------------------------------ */
/* The supervisor                                                      */
/* ------------------------------------------------------------------ */

static int env_int(const char *name, int def, int min, int max)
{
	const char *s = getenv(name);
	int v = s && *s ? atoi(s) : def;

	return v < min ? min : v > max ? max : v;
}

static bool debug_kernel(void)
{
	return !access("/sys/kernel/debug/kmemleak", F_OK) ||
	       !access("/proc/lockdep", F_OK);
}

static double timeout_scale(void)
{
	const char *s = getenv("HARNESS_TIMEOUT_SCALE");

	return s && atof(s) > 0 ? atof(s) : 1.0;
}

static pid_t spawn(int idx, int gen)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		worker_main(idx, gen);
	return pid;
}

/* Print what a stuck process's tasks are doing (root, CONFIG_STACKTRACE). */
static void dump_stacks(pid_t pid)
{
	char path[320], buf[4096];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		int fd;
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stack", pid, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n : 0] = 0;
		printf("# task %s of pid %d:\n", de->d_name, pid);
		for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
			printf("#   %s\n", l);
	}
	closedir(d);
}

/* Wait up to @secs for @pid; 0 and its status, or -1 if it is still there. */
static int wait_child(pid_t pid, int *status, double secs)
{
	double end = now() + secs;

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 0;
		if (now() > end)
			return -1;
		usleep(20000);
	}
}

static bool status_ok(int status, bool killed)
{
	if (killed)
		return (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) ||
		       (WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void print_counts(void)
{
	uint64_t total = 0;
	int op, e, s;

	for (op = 0; op < NOPS; op++) {
		char line[512];
		uint64_t sum = 0;
		int len = 0;

		for (e = 0; e < NERR; e++)
			sum += shm->ops[op][e];
		if (!sum)
			continue;
		total += sum;
		len = snprintf(line, sizeof(line), "%s %llu:", op_names[op],
			       (unsigned long long)sum);
		for (e = 0; e < NERR && len < (int)sizeof(line) - 40; e++)
			if (shm->ops[op][e])
				len += snprintf(line + len, sizeof(line) - len,
						" %s %llu", !e ? "ok" : e == NERR - 1 ?
						"other" : errname(-e),
						(unsigned long long)shm->ops[op][e]);
		printf("#   %s\n", line);
	}
	printf("#   verified sequences:");
	for (s = 0; s < NSEQ; s++)
		printf(" %s %llu", seq_names[s], (unsigned long long)shm->seqs[s]);
	printf("\n#   %llu calls in all\n", (unsigned long long)total);
}

static uint64_t count_ops(void)
{
	uint64_t total = 0;
	int op, e;

	for (op = 0; op < NOPS; op++)
		for (e = 0; e < NERR; e++)
			total += shm->ops[op][e];
	return total;
}

/* ---- kmemleak ---- */

#define KMEMLEAK	"/sys/kernel/debug/kmemleak"

static char *read_all(const char *path)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

/*
 * kmemleak's suspects: "unreferenced object 0x..." blocks, each with the
 * allocating task and time ("comm ..., pid N, jiffies J") and a backtrace.
 */
struct leak {
	unsigned long long addr, jiffies;
	const char *text;
	size_t len;
	bool npu;		/* an npu.ko frame in the backtrace */
};

static int parse_leaks(char *report, struct leak *out, int max)
{
	const char *key = "unreferenced object 0x";
	char *p = report ? strstr(report, key) : NULL;
	int n = 0;

	while (p && n < max) {
		char *next = strstr(p + 1, key), *j;
		size_t len = next ? (size_t)(next - p) : strlen(p);

		out[n].addr = strtoull(p + strlen(key), NULL, 16);
		j = memmem(p, len, "jiffies ", 8);
		out[n].jiffies = j ? strtoull(j + 8, NULL, 10) : 0;
		out[n].text = p;
		out[n].len = len;
		out[n].npu = memmem(p, len, "[npu]", 5) != NULL;
		n++;
		p = next;
	}
	return n;
}

/* The kernel's jiffies now (root: /proc/timer_list), or 0. */
static unsigned long long jiffies_now(void)
{
	char *s = read_all("/proc/timer_list"), *j;
	unsigned long long v = 0;

	j = s ? strstr(s, "\njiffies: ") : NULL;
	if (j)
		v = strtoull(j + 10, NULL, 10);
	free(s);
	return v;
}

#define MAX_LEAKS	4096
static struct leak leaks[MAX_LEAKS];

/*
 * Scan, and count the suspects with an npu frame that were allocated
 * since @since (jiffies); -1 if kmemleak cannot scan. Leaks of earlier
 * tests in the same boot are older and not counted here (the guest's
 * /init reports every leak after the run anyway).
 */
static int kmemleak_new_npu(unsigned long long since)
{
	int n = 0, i, found = 0, other = 0, scan, shown = 0;
	char *rep = NULL;

	/* kmemleak reports only objects older than 5 s. */
	sleep(6);
	for (scan = 0; scan < 2; scan++) {
		free(rep);
		if (npu_write_file(KMEMLEAK, "scan"))
			return -1;
		rep = read_all(KMEMLEAK);
		n = parse_leaks(rep, leaks, MAX_LEAKS);
		found = other = 0;
		for (i = 0; i < n; i++) {
			if ((long long)(leaks[i].jiffies - since) < 0)
				continue;
			if (leaks[i].npu)
				found++;
			else
				other++;
		}
		/* One scan can miss a pointer in motion: a second confirms. */
		if (!found)
			break;
	}
	printf("# kmemleak: %d suspects in all, %d allocated during the run: %d with an npu frame, %d without (not counted)\n",
	       n, found + other, found, other);
	for (i = 0; i < n && shown < 5; i++)
		if (leaks[i].npu && (long long)(leaks[i].jiffies - since) >= 0) {
			printf("# kmemleak: %.*s\n", (int)leaks[i].len, leaks[i].text);
			shown++;
		}
	free(rep);
	return found;
}

/*
 * Wait until every worker has set itself up (its host buffers, contexts
 * and threads: seconds on a debug kernel) and published its tgid, so
 * that the run's seconds and its kills are all spent on calls. False
 * when one failed or ended meanwhile, or none was ready in time.
 */
static bool workers_ready(const pid_t *pids, double scale)
{
	double start = now();
	siginfo_t si;
	int i;

	for (;;) {
		for (i = 0; i < cfg.procs && __atomic_load_n(&shm->tgids[i], __ATOMIC_RELAXED); i++)
			;
		if (i == cfg.procs) {
			printf("# workers ready after %.1f s\n", now() - start);
			return true;
		}
		/* an ended worker stays for the caller to reap (WNOWAIT) */
		for (i = 0; i < cfg.procs; i++) {
			si.si_pid = 0;
			if (!waitid(P_PID, pids[i], &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid) {
				printf("# worker %d (pid %d) ended while setting up\n", i, pids[i]);
				return false;
			}
		}
		if (__atomic_load_n(&shm->failed, __ATOMIC_RELAXED))
			return false;
		if (now() - start > 120 * scale) {
			printf("# the workers were not set up within %.0f s\n", 120 * scale);
			return false;
		}
		usleep(50000);
	}
}

TEST(concurrent_random_ioctls)
{
	long long pins0, pins1, used0[MAX_DEVS], used1[MAX_DEVS];
	struct { pid_t pid; int gen; } kids[MAX_PROCS];
	pid_t pids[MAX_PROCS];
	int fds[MAX_DEVS], i, d, status, nkilled = 0, gens = 0;
	unsigned long long jiffies0 = 0;
	double scale = timeout_scale(), t0, next_kill, grace;
	pid_t hog, bystander;
	bool failed = false, kmemleak;
	uint64_t srng, per_proc;
	struct npu_get_info info;

	if (!getenv("NPU_STRESS_SECONDS") && !debug_kernel())
		SKIP(return, "not a debug kernel (no kmemleak or lockdep): `make stress` or NPU_STRESS_SECONDS=N runs it anywhere");
	cfg.ndev = npu_device_count();
	if (!cfg.ndev)
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	if (cfg.ndev > MAX_DEVS)
		cfg.ndev = MAX_DEVS;
	cfg.seconds = env_int("NPU_STRESS_SECONDS", 20, 1, 1 << 20);
	cfg.procs = env_int("NPU_STRESS_PROCS", 3, 1, MAX_PROCS);
	cfg.threads = env_int("NPU_STRESS_THREADS", 3, 1, MAX_THREADS);
	cfg.root = geteuid() == 0;
	cfg.scale = scale;
	if (getenv("NPU_STRESS_SEED") && *getenv("NPU_STRESS_SEED"))
		cfg.seed = strtoull(getenv("NPU_STRESS_SEED"), NULL, 0);
	else
		cfg.seed = (uint64_t)time(NULL) << 20 ^ (uint64_t)getpid();
	printf("# seed %#llx: %d s, %d workers x %d threads, %d NPUs (replay: NPU_STRESS_SEED=%#llx)\n",
	       (unsigned long long)cfg.seed, cfg.seconds, cfg.procs, cfg.threads,
	       cfg.ndev, (unsigned long long)cfg.seed);
	srng = cfg.seed;

	for (d = 0; d < cfg.ndev; d++) {
		fds[d] = npu_open(d);
		ASSERT_LE(0, fds[d]);
		ASSERT_EQ(0, npu_info(fds[d], &info));
		used0[d] = info.mem_used;
		/*
		 * Worst case held at once per worker: its shared tables
		 * (handles and imports of up to 4 MiB each), each thread's
		 * sequences (under 16 MiB) and two exports; killed workers'
		 * memory is freed before their successors start.
		 */
		per_proc = (uint64_t)NSC_MAX * (NH + NIMP) * SZ_4M +
			   (uint64_t)cfg.threads * 6 * SZ_4M;
		if (cfg.procs * per_proc * 2 > info.mem_total)
			SKIP(return, "npu%d has %llu MiB, the run may need %llu MiB",
			     d, (unsigned long long)(info.mem_total >> 20),
			     (unsigned long long)(cfg.procs * per_proc * 2 >> 20));
	}
	cfg.sup_fd = fds[0];
	pins0 = npu_pins_held();
	kmemleak = !access(KMEMLEAK, W_OK);
	if (kmemleak) {
		jiffies0 = jiffies_now();
		if (!jiffies0) {
			TH_LOG("no jiffies in /proc/timer_list: the kmemleak check is left to /init");
			kmemleak = false;
		}
	}

	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, (void *)shm);
	memset(shm, 0, sizeof(*shm));
	for (i = 0; i < NSHARE; i++)
		shm->slots[i].pattern = -1;

	npu_expect_dma_faults(true);
	/* no deadline until the workers are ready (stopping() reads it) */
	shm->deadline = now() + 1e9;
	for (i = 0; i < cfg.procs; i++) {
		kids[i].gen = gens++;
		kids[i].pid = spawn(i, kids[i].gen);
		ASSERT_LT(0, kids[i].pid);
		pids[i] = kids[i].pid;
	}
	hog = spawn_fn(hog_main);
	ASSERT_LT(0, hog);
	bystander = cfg.root ? spawn_fn(bystander_main) : 0;
	ASSERT_LE(0, bystander);
	failed = !workers_ready(pids, scale);
	t0 = now();
	__atomic_store(&shm->deadline, &(double){ t0 + cfg.seconds }, __ATOMIC_SEQ_CST);
	next_kill = t0 + 1 + splitmix(&srng) % 4000 / 1000.0;
	if (next_kill > t0 + cfg.seconds * 0.6)
		next_kill = t0 + cfg.seconds * 0.4;

	/* Run: SIGKILL a worker now and then and start another in its place. */
	while (!failed && now() < shm->deadline) {
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p > 0) {
			for (i = 0; i < cfg.procs && kids[i].pid != p; i++)
				;
			printf("# worker %d (pid %d) ended before the deadline: %s %d\n",
			       i, p, WIFSIGNALED(status) ? "signal" : "status",
			       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			if (i < cfg.procs)
				kids[i].pid = 0;
			failed = true;
			break;
		}
		if (__atomic_load_n(&shm->failed, __ATOMIC_RELAXED)) {
			failed = true;
			break;
		}
		if (now() >= next_kill && now() < shm->deadline - 1) {
			i = splitmix(&srng) % cfg.procs;
			kill(kids[i].pid, SIGKILL);
			if (wait_child(kids[i].pid, &status, 30 * scale)) {
				printf("# worker %d (pid %d) did not die of SIGKILL within %.0f s: stuck in the kernel\n",
				       i, kids[i].pid, 30 * scale);
				dump_stacks(kids[i].pid);
				failed = true;
				break;
			}
			if (!status_ok(status, true)) {
				printf("# worker %d (pid %d) failed before its SIGKILL\n",
				       i, kids[i].pid);
				kids[i].pid = 0;
				failed = true;
				break;
			}
			__atomic_store_n(&shm->tgids[i], 0, __ATOMIC_RELAXED);
			nkilled++;
			kids[i].gen = gens++;
			kids[i].pid = spawn(i, kids[i].gen);
			ASSERT_LT(0, kids[i].pid);
			next_kill = now() + 1 + splitmix(&srng) % 5000 / 1000.0;
		}
		usleep(50000);
	}
	__atomic_store_n(&shm->stop, 1, __ATOMIC_SEQ_CST);

	/* Every worker stops by itself at the deadline; one that does not is stuck. */
	grace = (30 + cfg.seconds / 10.0) * scale;
	for (i = 0; i < cfg.procs; i++) {
		if (!kids[i].pid)
			continue;
		if (failed)
			kill(kids[i].pid, SIGKILL);
		if (wait_child(kids[i].pid, &status, grace)) {
			printf("# worker %d (pid %d) did not finish within %.0f s of the end: stuck?\n",
			       i, kids[i].pid, grace);
			dump_stacks(kids[i].pid);
			kill(kids[i].pid, SIGKILL);
			if (wait_child(kids[i].pid, &status, grace))
				printf("# worker %d (pid %d) survives SIGKILL\n", i, kids[i].pid);
			failed = true;
			continue;
		}
		if (!status_ok(status, failed)) {
			printf("# worker %d (pid %d) ended with %s %d\n", i, kids[i].pid,
			       WIFSIGNALED(status) ? "signal" : "status",
			       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			failed = true;
		}
	}
	for (i = 0; i < 2; i++) {
		pid_t p = i ? bystander : hog;

		if (!p)
			continue;
		if (wait_child(p, &status, grace)) {
			printf("# the %s (pid %d) did not finish within %.0f s of the end\n",
			       i ? "bystander" : "hog", p, grace);
			dump_stacks(p);
			kill(p, SIGKILL);
			wait_child(p, &status, grace);
			failed = true;
		} else if (status && !failed) {
			printf("# the %s ended with status %#x (errno %d)\n",
			       i ? "bystander" : "hog", status,
			       i ? shm->by_error : shm->hog_error);
			failed = true;
		}
	}
	npu_expect_dma_faults(false);
	printf("# ran %.1f s: %d workers killed and replaced, %llu calls\n",
	       now() - t0, nkilled, (unsigned long long)count_ops());
	printf("# hog refilled its streams %d times; another user ran %d commands, worst %.1f ms, and %d closes, worst %.1f ms\n",
	       shm->hog_refills, shm->by_samples, shm->by_worst_ms, shm->by_closes,
	       shm->by_worst_close_ms);
	printf("# %llu launches submitted; executors ran %llu: %llu faulted (SIGBUS), %llu trapped; %llu cancels, %llu crashes, %llu executor processes\n",
	       (unsigned long long)shm->k_submitted, (unsigned long long)shm->k_jobs, (unsigned long long)shm->k_faults,
	       (unsigned long long)shm->k_traps, (unsigned long long)shm->k_cancels,
	       (unsigned long long)shm->k_crashes, (unsigned long long)shm->k_spawned);
	print_counts();
	if (shm->first_failure[0])
		printf("# first failure: %s\n", shm->first_failure);
	EXPECT_FALSE(failed);
	EXPECT_EQ(0, shm->failed);

	/* Nothing left behind: pins and device memory as before the run. */
	for (i = 0; i < 50; i++) {
		pins1 = npu_pins_held();
		if (pins1 == pins0)
			break;
		usleep(100000);
	}
	EXPECT_EQ(pins0, pins1);
	for (d = 0; d < cfg.ndev; d++) {
		for (i = 0; i < 50; i++) {
			used1[d] = npu_mem_used(fds[d]);
			if (used1[d] == used0[d])
				break;
			usleep(100000);
		}
		if (used1[d] != used0[d])
			TH_LOG("npu%d: mem_used %lld before the run, %lld after", d,
			       used0[d], used1[d]);
		EXPECT_EQ(used0[d], used1[d]);
		close(fds[d]);
	}
	if (kmemleak)
		EXPECT_EQ(0, kmemleak_new_npu(jiffies0));
	if (failed)
		return;
	/* A run that did next to nothing proves nothing. */
	EXPECT_LT(100, count_ops());
	EXPECT_LT(0, shm->seqs[SEQ_ROUNDTRIP] + shm->seqs[SEQ_IMPORT] +
		     shm->seqs[SEQ_EXPORT] + shm->seqs[SEQ_FAULTS]);
	if (cfg.seconds >= 5 && !failed)
		EXPECT_LT(0, nkilled);
	/* the executors ran launches */
	EXPECT_LT(0, shm->k_jobs);
	/* the hog's streams were fed, and they starved no one */
	EXPECT_LT(0, shm->hog_refills);
	if (cfg.root) {
		EXPECT_LT(0, shm->by_samples);
		EXPECT_LT(0, shm->by_closes);
		EXPECT_GT(BYSTANDER_BOUND_MS * scale, shm->by_worst_ms);
		EXPECT_GT(BYSTANDER_BOUND_MS * scale, shm->by_worst_close_ms);
	}
}

/*
 * The harness's timeouts are fixed at compile time; this test's length
 * comes from the environment: the workers' setup (at most 120 s), the
 * run, the end of the workers, the checks (two kmemleak scans), all scaled
 * by HARNESS_TIMEOUT_SCALE.
 */
int main(int argc, char **argv)
{
	__th_test_concurrent_random_ioctls.timeout =
		env_int("NPU_STRESS_SECONDS", 20, 1, 1 << 20) + 300;
	return harness_run(argc, argv);
}
