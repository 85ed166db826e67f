// SPDX-License-Identifier: GPL-2.0
/*
 * npu_share_test: who may import a shared handle, at the ioctl level.
 *
 * SHARE_SET_PIDS names processes (in the caller's pid namespace), not pid
 * numbers: a number that a process of any uid gets later does not inherit
 * the right to import. The importer's euid must also be the exporter's
 * unless the exporter was privileged (CAP_SYS_ADMIN) when it exported.
 * GET_INFO's tgid is the caller's pid in its own namespace.
 *
 * Runs as root in the VM: the other processes are forked "peers" that open
 * /dev/npu0 first, then drop to another uid, then run the requests the
 * test sends them over a pipe (import, export, set pids, GET_INFO).
 */
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "harness.h"
#include "npu_util.h"

#define UID_A	65534	/* nobody */
#define UID_B	65533

#define MAX_REQ_PIDS	4

enum { OP_IMPORT = 1, OP_EXPORT, OP_SET_PIDS, OP_TGID, OP_IPC_IMPORT, OP_IPC_SHARE_IMPORT,
       OP_IPC_DMABUF, OP_IPC_HOLD, OP_IPC_READ, OP_IPC_DROP };

struct req {
	int32_t op;
	uint32_t flags;		/* OP_EXPORT */
	uint64_t name;		/* OP_IMPORT, OP_SET_PIDS */
	int32_t npids;		/* OP_SET_PIDS */
	int32_t pids[MAX_REQ_PIDS];
};

struct peer {
	pid_t pid;
	int rd;		/* the test reads the peer's replies */
	int wr;		/* the test writes requests */
};

/* Returned by peer_call() when the peer is gone. */
#define PEER_DEAD	(-100000LL)

static int set_pids(int fd, uint64_t name, const int32_t *pids, uint32_t n)
{
	struct npu_share_pids p = {
		.size = sizeof(p), .shareable = name, .pids = ptr64(pids),
		.count = n,
	};

	return npu_ioctl(fd, NPU_IOCTL_SHARE_SET_PIDS, &p);
}

/* Allocate 2 MiB and export it: the name, or 0 (never a name). */
static uint64_t export_new(int fd, uint32_t flags)
{
	struct npu_share_export e = { .size = sizeof(e), .flags = flags };
	int ret = npu_alloc(fd, SZ_2M, SZ_2M, &e.handle);

	if (!ret)
		ret = npu_ioctl(fd, NPU_IOCTL_SHARE_EXPORT, &e);
	if (ret)
		printf("# pid %d: export: %s\n", getpid(), strerror(-ret));
	return ret ? 0 : e.shareable;
}

/* Import @name and free the handle again: 0 or -errno. */
static int import_once(int fd, uint64_t name)
{
	struct npu_share_import imp = { .size = sizeof(imp), .shareable = name };
	int ret = npu_ioctl(fd, NPU_IOCTL_SHARE_IMPORT, &imp);

	if (!ret && npu_free(fd, imp.handle))
		ret = -EBADE;	/* the import gave no usable handle */
	return ret;
}

/*
 * Import IPC key @key (as SHARE_IMPORT if @as_share), map the handle and
 * free it: the import's length, or -errno.
 */
static long long ipc_import_once(int fd, uint64_t key, bool as_share)
{
	struct npu_share_import imp = { .size = sizeof(imp), .shareable = key };
	long long ret;
	uint64_t va;

	ret = npu_ioctl(fd, as_share ? NPU_IOCTL_SHARE_IMPORT : NPU_IOCTL_IPC_IMPORT, &imp);
	if (ret)
		return ret;
	/* the slice maps at its own length only, at offset 0 only */
	va = npu_reserve_new(fd, imp.length + imp.page_size, imp.page_size);
	if (!va || npu_map(fd, va, imp.length + imp.page_size, imp.handle) != -EINVAL ||
	    npu_map(fd, va, imp.length, imp.handle) || npu_unmap(fd, va) ||
	    npu_release(fd, va))
		ret = -EBADE;
	if (npu_free(fd, imp.handle))
		ret = -EBADE;
	return ret ? ret : (long long)imp.length;
}

/* FNV-1a of @n bytes, as a non-negative value (never an -errno). */
static long long bytes_hash(const unsigned char *p, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	while (n--)
		h = (h ^ *p++) * 1099511628211ULL;
	return (long long)(h >> 2);
}

/*
 * Import IPC key @key, export the slice as a dma-buf and read it through
 * a CPU mapping: the hash of its bytes, or -errno.
 */
static long long ipc_dmabuf_hash(int fd, uint64_t key)
{
	struct npu_share_import imp = { .size = sizeof(imp), .shareable = key };
	struct npu_dmabuf_export x = { .size = sizeof(x), .flags = NPU_DMABUF_CLOEXEC };
	long long ret;
	void *p;

	ret = npu_ioctl(fd, NPU_IOCTL_IPC_IMPORT, &imp);
	if (ret)
		return ret;
	x.handle = imp.handle;
	ret = npu_ioctl(fd, NPU_IOCTL_DMABUF_EXPORT, &x);
	npu_free(fd, imp.handle);
	if (ret)
		return ret;
	if (x.length != imp.length) {
		close(x.fd);
		return -EBADE;
	}
	p = mmap(NULL, x.length, PROT_READ, MAP_SHARED, x.fd, 0);
	close(x.fd);
	if (p == MAP_FAILED)
		return -errno;
	ret = bytes_hash(p, x.length);
	munmap(p, x.length);
	return ret;
}

/* A peer's held IPC import (OP_IPC_HOLD .. OP_IPC_DROP). */
static struct {
	uint32_t handle;
	uint64_t va;
	uint64_t length;
} held;

/* Import @key and map it read-write, keeping both: its length, or -errno. */
static long long ipc_hold(int fd, uint64_t key)
{
	struct npu_share_import imp = { .size = sizeof(imp), .shareable = key };
	long long ret = npu_ioctl(fd, NPU_IOCTL_IPC_IMPORT, &imp);

	if (ret)
		return ret;
	held.handle = imp.handle;
	held.length = imp.length;
	held.va = npu_reserve_new(fd, imp.length, imp.page_size);
	if (!held.va || npu_map(fd, held.va, imp.length, imp.handle) ||
	    npu_set_access(fd, held.va, imp.length, 0, NPU_ACCESS_READWRITE))
		return -EBADE;
	return (long long)imp.length;
}

/*
 * Copy [@off, @off + @len) of the held import into host memory through
 * the device (STREAM_SYNC's answer on failure): the bytes' hash, or -errno.
 */
static long long ipc_read(int fd, uint64_t off, uint64_t len)
{
	unsigned char *host = npu_host_mem(len);
	uint32_t stream;
	long long ret;

	if (!host)
		return -ENOMEM;
	ret = npu_stream_create(fd, &stream);
	if (!ret)
		ret = npu_run(fd, stream, npu_copy_cmd(ptr64(host), held.va + off, len,
						       NPU_CMD_DST_USER));
	if (!ret)
		ret = bytes_hash(host, len);
	npu_stream_destroy(fd, stream, 0);
	munmap(host, len);
	return ret;
}

/* Let go of the held import: 0, or -errno of the first step that failed. */
static long long ipc_drop(int fd)
{
	int ret = npu_unmap(fd, held.va);

	ret = ret ?: npu_release(fd, held.va);
	return ret ?: npu_free(fd, held.handle);
}

static long long tgid_of(int fd)
{
	struct npu_get_info info;
	int ret = npu_info(fd, &info);

	return ret ? ret : (long long)info.tgid;
}

static int drop_to(uid_t uid)
{
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
		return -1;
	return geteuid() == uid && getegid() == uid ? 0 : -1;
}

static void peer_serve(int fd, int rd, int wr)
{
	struct req r;
	long long v;

	while (read(rd, &r, sizeof(r)) == sizeof(r)) {
		switch (r.op) {
		case OP_IMPORT:
			v = import_once(fd, r.name);
			break;
		case OP_EXPORT:
			v = (long long)export_new(fd, r.flags);
			break;
		case OP_SET_PIDS:
			v = set_pids(fd, r.name, r.pids, r.npids);
			break;
		case OP_TGID:
			v = tgid_of(fd);
			break;
		case OP_IPC_DMABUF:
			v = ipc_dmabuf_hash(fd, r.name);
			break;
		case OP_IPC_HOLD:
			v = ipc_hold(fd, r.name);
			break;
		case OP_IPC_READ:	/* .name: offset, .flags: length */
			v = ipc_read(fd, r.name, r.flags);
			break;
		case OP_IPC_DROP:
			v = ipc_drop(fd);
			break;
		case OP_IPC_IMPORT:
		case OP_IPC_SHARE_IMPORT:
			v = ipc_import_once(fd, r.name, r.op == OP_IPC_SHARE_IMPORT);
			break;
		default:
			v = -ENOSYS;
		}
		if (write(wr, &v, sizeof(v)) != sizeof(v))
			_exit(12);
	}
}

/*
 * Fork a peer: it opens /dev/npu0 as root, drops to @uid (unless 0) and
 * serves requests until the test closes its pipe. Returns its pid, or -1.
 */
static pid_t peer_start(struct peer *p, uid_t uid)
{
	int req[2], rep[2];

	if (pipe(req))
		return -1;
	if (pipe(rep)) {
		close(req[0]);
		close(req[1]);
		return -1;
	}
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (!p->pid) {
		int fd;

		/* other peers' pipe ends too: each peer sees its own EOF */
		for (fd = 3; fd < 1024; fd++)
			if (fd != req[0] && fd != rep[1])
				close(fd);
		fd = npu_open(0);	/* before dropping privileges */
		if (fd < 0)
			_exit(10);
		if (uid && drop_to(uid))
			_exit(11);
		peer_serve(fd, req[0], rep[1]);
		_exit(0);
	}
	close(req[0]);
	close(rep[1]);
	p->rd = rep[0];
	p->wr = req[1];
	return p->pid;
}

static long long peer_call(struct peer *p, struct req r)
{
	long long v;

	if (write(p->wr, &r, sizeof(r)) != sizeof(r) ||
	    read(p->rd, &v, sizeof(v)) != sizeof(v))
		return PEER_DEAD;
	return v;
}

/* The peer exports a new handle: its name, or 0. */
static uint64_t peer_export(struct peer *p, uint32_t flags)
{
	long long v = peer_call(p, (struct req){ .op = OP_EXPORT,
						 .flags = flags });

	return v == PEER_DEAD ? 0 : (uint64_t)v;
}

static long long peer_import(struct peer *p, uint64_t name)
{
	return peer_call(p, (struct req){ .op = OP_IMPORT, .name = name });
}

/* Stop the peer and reap it: true if it exited cleanly. */
static bool peer_stop(struct peer *p)
{
	int st;

	close(p->wr);
	close(p->rd);
	return waitpid(p->pid, &st, 0) == p->pid && WIFEXITED(st) &&
	       !WEXITSTATUS(st);
}

FIXTURE(share) {
	int fd;
};

FIXTURE_SETUP(share)
{
	self->fd = -1;
	if (geteuid())
		SKIP(return, "needs root (forks peers of other uids)");
	/* a peer that died is a failed call, not a killed test */
	signal(SIGPIPE, SIG_IGN);
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(share)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * The exporter (root) lists process A (uid 65534), which imports; A exits.
 * A new process B of uid 65534 is given A's pid number (ns_last_pid): it is
 * not A, and its import answers like an unknown name.
 */
TEST_F(share, pid_reused_by_another_process_is_refused)
{
	uint64_t name = export_new(self->fd, 0);
	int attempt;

	ASSERT_NE(0, name);
	if (access("/proc/sys/kernel/ns_last_pid", W_OK))
		SKIP(return, "no writable /proc/sys/kernel/ns_last_pid");
	/* a kernel thread may take the number first: try again with a new A */
	for (attempt = 0; attempt < 5; attempt++) {
		struct peer a, b;
		char last[32];
		int32_t p;

		ASSERT_LT(0, peer_start(&a, UID_A));
		p = a.pid;
		ASSERT_EQ(0, set_pids(self->fd, name, &p, 1));
		EXPECT_EQ(0, peer_import(&a, name));
		ASSERT_TRUE(peer_stop(&a));

		snprintf(last, sizeof(last), "%d", p - 1);
		ASSERT_EQ(0, npu_write_file("/proc/sys/kernel/ns_last_pid", last));
		ASSERT_LT(0, peer_start(&b, UID_A));
		if (b.pid != p) {
			TH_LOG("attempt %d: wanted pid %d, got %d", attempt, p,
			       b.pid);
			ASSERT_TRUE(peer_stop(&b));
			continue;
		}
		EXPECT_EQ(-ENOENT, peer_import(&b, name));
		EXPECT_TRUE(peer_stop(&b));
		return;
	}
	SKIP(return, "could not give a new process a listed pid number in 5 attempts");
}

/*
 * An unprivileged exporter (uid 65534): a listed process of another euid
 * (65533) is refused like an unknown name, with or without ANY_PID; a
 * listed process of its own euid imports. A privileged exporter (root)
 * lets any euid import.
 */
TEST_F(share, importer_euid_must_match_unprivileged_exporter)
{
	struct peer e, same, other;
	uint64_t listed, any, root_listed, root_any;
	struct req r = { .op = OP_SET_PIDS, .npids = 2 };
	int32_t p;

	ASSERT_LT(0, peer_start(&e, UID_A));
	ASSERT_LT(0, peer_start(&same, UID_A));
	ASSERT_LT(0, peer_start(&other, UID_B));

	listed = peer_export(&e, 0);
	ASSERT_NE(0, listed);
	r.name = listed;
	r.pids[0] = same.pid;
	r.pids[1] = other.pid;
	ASSERT_EQ(0, peer_call(&e, r));
	EXPECT_EQ(-ENOENT, peer_import(&other, listed));
	EXPECT_EQ(0, peer_import(&same, listed));

	any = peer_export(&e, NPU_SHARE_ANY_PID);
	ASSERT_NE(0, any);
	EXPECT_EQ(-ENOENT, peer_import(&other, any));
	EXPECT_EQ(0, peer_import(&same, any));

	/* root exported: euid does not matter */
	root_listed = export_new(self->fd, 0);
	ASSERT_NE(0, root_listed);
	p = other.pid;
	ASSERT_EQ(0, set_pids(self->fd, root_listed, &p, 1));
	EXPECT_EQ(0, peer_import(&other, root_listed));
	root_any = export_new(self->fd, NPU_SHARE_ANY_PID);
	ASSERT_NE(0, root_any);
	EXPECT_EQ(0, peer_import(&other, root_any));
	EXPECT_EQ(0, peer_import(&same, root_any));

	EXPECT_TRUE(peer_stop(&other));
	EXPECT_TRUE(peer_stop(&same));
	EXPECT_TRUE(peer_stop(&e));
}

static void *wait_on_pipe(void *arg)
{
	int *fds = arg;
	pid_t tid = syscall(SYS_gettid);
	char c;

	if (write(fds[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	while (read(fds[2], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/*
 * SET_PIDS with a number that names no process - a reaped child's pid,
 * pid_max, a thread that is not a process's main thread - is -ESRCH for
 * the whole call: the list stays as it was.
 */
TEST_F(share, set_pids_with_no_such_process_is_esrch)
{
	uint64_t name = export_new(self->fd, 0);
	long long pid_max;
	int32_t list[2];
	struct peer in, out;
	int fds[4], st;
	pthread_t thr;
	pid_t dead, tid;

	ASSERT_NE(0, name);
	ASSERT_LT(0, peer_start(&in, 0));
	ASSERT_LT(0, peer_start(&out, 0));
	list[0] = in.pid;
	ASSERT_EQ(0, set_pids(self->fd, name, list, 1));

	dead = fork();
	ASSERT_LE(0, dead);
	if (!dead)
		_exit(0);
	ASSERT_EQ(dead, waitpid(dead, &st, 0));
	ASSERT_ERRNO(kill(dead, 0), ESRCH);
	pid_max = npu_file_value_at(AT_FDCWD, "/proc/sys/kernel/pid_max",
				    NULL, 0);
	ASSERT_LT(1, pid_max);

	/* fds: the thread writes its tid to [1], waits on [2] */
	ASSERT_EQ(0, pipe(fds));
	ASSERT_EQ(0, pipe(fds + 2));
	ASSERT_EQ(0, pthread_create(&thr, NULL, wait_on_pipe, fds));
	ASSERT_EQ((ssize_t)sizeof(tid), read(fds[0], &tid, sizeof(tid)));
	ASSERT_NE(getpid(), tid);

	list[0] = out.pid;
	list[1] = dead;
	EXPECT_EQ(-ESRCH, set_pids(self->fd, name, list, 2));
	list[1] = (int32_t)pid_max;
	EXPECT_EQ(-ESRCH, set_pids(self->fd, name, list, 2));
	list[1] = tid;
	EXPECT_EQ(-ESRCH, set_pids(self->fd, name, list, 2));
	/* the numbers are checked before the name: still -ESRCH */
	EXPECT_EQ(-ESRCH, set_pids(self->fd, name ^ 1, list, 2));

	ASSERT_EQ(1, write(fds[3], "x", 1));
	ASSERT_EQ(0, pthread_join(thr, NULL));

	/* the list is still [in] */
	EXPECT_EQ(0, peer_import(&in, name));
	EXPECT_EQ(-ENOENT, peer_import(&out, name));

	EXPECT_TRUE(peer_stop(&out));
	EXPECT_TRUE(peer_stop(&in));
}

#define CK(cond) do {								\
	if (!(cond)) {								\
		printf("# pid %d of its namespace: %s:%d: %s is false\n",	\
		       getpid(), __FILE__, __LINE__, #cond);			\
		fflush(stdout);							\
		_exit(3);							\
	}									\
} while (0)

/*
 * Process N1 of a new pid namespace (pid 1 there): GET_INFO says tgid 1;
 * it imports what the test exported for its outer pid; it exports a handle
 * for pid 2 of its namespace, and that process (N2) imports it.
 */
static void ns_init(int from_test)
{
	int fd = npu_open(0), go[2], st;
	uint64_t name, mine;
	int32_t two;
	pid_t n2;

	CK(fd >= 0);
	CK(getpid() == 1);
	CK(tgid_of(fd) == 1);
	CK(read(from_test, &name, sizeof(name)) == sizeof(name));
	CK(import_once(fd, name) == 0);

	mine = export_new(fd, 0);
	CK(mine);
	CK(pipe(go) == 0);
	n2 = fork();
	CK(n2 >= 0);
	if (!n2) {
		char c;

		fd = npu_open(0);
		CK(fd >= 0);
		CK(tgid_of(fd) == 2);
		CK(read(go[0], &c, 1) == 1);
		CK(import_once(fd, mine) == 0);
		_exit(0);
	}
	CK(n2 == 2);
	two = n2;
	CK(set_pids(fd, mine, &two, 1) == 0);
	CK(write(go[1], "x", 1) == 1);
	CK(waitpid(n2, &st, 0) == n2);
	CK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* the namespace's pid 1 is the exporter itself */
	CK(import_once(fd, mine) == -EINVAL);
	_exit(0);
}

/*
 * GET_INFO's tgid is the caller's pid as it knows it: getpid() here, 1 for
 * the first process of a new pid namespace; SET_PIDS resolves numbers in
 * the caller's namespace, so both sides whitelist with the numbers they see.
 */
TEST_F(share, tgid_and_pids_are_in_the_callers_namespace)
{
	int to_ns[2], from_x[2], st;
	uint64_t name = export_new(self->fd, 0);
	pid_t x, n1 = 0;
	int32_t p;
	ssize_t w;

	ASSERT_EQ((long long)getpid(), tgid_of(self->fd));
	ASSERT_NE(0, name);
	ASSERT_EQ(0, pipe(to_ns));
	ASSERT_EQ(0, pipe(from_x));
	x = fork();
	ASSERT_LE(0, x);
	if (!x) {
		pid_t n;

		close(from_x[0]);
		close(to_ns[1]);
		if (unshare(CLONE_NEWPID))
			_exit(4);
		n = fork();
		if (n < 0)
			_exit(5);
		if (!n) {
			close(from_x[1]);
			ns_init(to_ns[0]);
		}
		if (write(from_x[1], &n, sizeof(n)) != sizeof(n))
			_exit(6);
		if (waitpid(n, &st, 0) != n)
			_exit(7);
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 8);
	}
	close(from_x[1]);
	close(to_ns[0]);
	if (read(from_x[0], &n1, sizeof(n1)) != sizeof(n1)) {
		ASSERT_EQ(x, waitpid(x, &st, 0));
		if (WIFEXITED(st) && WEXITSTATUS(st) == 4)
			SKIP(return, "unshare(CLONE_NEWPID): not available");
		ASSERT_TRUE(false);
	}
	/* the test names N1 by the pid it sees */
	p = n1;
	ASSERT_NE(1, p);
	ASSERT_EQ(0, set_pids(self->fd, name, &p, 1));
	/* N1 may have failed already: its status says why, not this write */
	w = write(to_ns[1], &name, sizeof(uint64_t));
	ASSERT_EQ(x, waitpid(x, &st, 0));
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
	EXPECT_EQ((ssize_t)sizeof(uint64_t), w);
}

/* ---- IPC memory keys (IPC_EXPORT, IPC_SET_PIDS, IPC_IMPORT, IPC_DESTROY) ---- */

static int ipc_export(int fd, uint64_t addr, uint64_t length, uint32_t flags,
		      uint64_t *key)
{
	struct npu_ipc_export e = {
		.size = sizeof(e), .flags = flags, .addr = addr, .length = length,
	};
	int ret = npu_ioctl(fd, NPU_IOCTL_IPC_EXPORT, &e);

	*key = ret ? 0 : e.key;
	return ret;
}

static int ipc_destroy(int fd, uint64_t key, uint32_t flags)
{
	struct npu_ipc_destroy d = { .size = sizeof(d), .flags = flags, .key = key };

	return npu_ioctl(fd, NPU_IOCTL_IPC_DESTROY, &d);
}

static int ipc_set_pids(int fd, uint64_t key, const int32_t *pids, uint32_t n)
{
	struct npu_share_pids p = {
		.size = sizeof(p), .shareable = key, .pids = ptr64(pids),
		.count = n,
	};

	return npu_ioctl(fd, NPU_IOCTL_IPC_SET_PIDS, &p);
}

static long long peer_ipc_import(struct peer *p, uint64_t key)
{
	return peer_call(p, (struct req){ .op = OP_IPC_IMPORT, .name = key });
}

/* A mapping of @len bytes of @page pages, read-write: its VA, or 0. */
static uint64_t map_new(int fd, uint64_t len, uint64_t page)
{
	uint64_t va = npu_reserve_new(fd, len, page);
	uint32_t h;

	if (!va || npu_alloc(fd, len, page, &h))
		return 0;
	if (npu_map(fd, va, len, h) || npu_free(fd, h))
		return 0;
	return va;
}

/* fdinfo's count of what @fd exported (names and keys). */
static long long exported(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return npu_file_value_at(AT_FDCWD, path, "npu-shares-exported", ':');
}

/* A copy of @len bytes of @arg in a page of its own, then made read-only. */
static void *read_only_copy(const void *arg, size_t len)
{
	void *p = mmap(NULL, SZ_4K, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, arg, len);
	return mprotect(p, SZ_4K, PROT_READ) ? NULL : p;
}

/*
 * An export whose answer cannot be written back (-EFAULT) names nothing:
 * the name or key is published only after the copy-out, so none exists
 * that its caller never learnt (second kernel review, finding 8). The
 * handle can be exported again; the key does not count against
 * max_ipc_keys.
 */
TEST_F(share, export_that_cannot_answer_publishes_nothing)
{
	struct npu_share_export e = { .size = sizeof(e) };
	struct npu_ipc_export ie = { .size = sizeof(ie), .length = SZ_2M };
	uint64_t va = map_new(self->fd, SZ_2M, SZ_2M), key;
	void *ro;

	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &e.handle));
	ASSERT_EQ(0, exported(self->fd));
	ro = read_only_copy(&e, sizeof(e));
	ASSERT_NONNULL(ro);
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_SHARE_EXPORT, ro));
	EXPECT_EQ(0, exported(self->fd));
	EXPECT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_SHARE_EXPORT, &e));
	EXPECT_NE(0, e.shareable);
	EXPECT_EQ(1, exported(self->fd));
	munmap(ro, SZ_4K);

	ie.addr = va;
	ro = read_only_copy(&ie, sizeof(ie));
	ASSERT_NONNULL(ro);
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_IPC_EXPORT, ro));
	EXPECT_EQ(1, exported(self->fd));
	EXPECT_EQ(0, ipc_export(self->fd, va, SZ_2M, 0, &key));
	EXPECT_EQ(2, exported(self->fd));
	EXPECT_EQ(0, ipc_destroy(self->fd, key, 0));
	munmap(ro, SZ_4K);
	EXPECT_EQ(0, npu_free(self->fd, e.handle));
	EXPECT_EQ(0, exported(self->fd));
}

/* fdinfo key @key of @fd, or -1. */
static long long fdinfo_count(int fd, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return npu_file_value_at(AT_FDCWD, path, key, ':');
}

/*
 * Every creating call publishes what it made only once its answer is
 * written back: MEM_ALLOC, STREAM_CREATE and SHARE_IMPORT whose struct is
 * read-only fail with -EFAULT and leave nothing in the table (no handle
 * or stream another thread could find by guessing its id, nothing
 * counted against the caps).
 */
TEST_F(share, creating_calls_that_cannot_answer_leave_nothing)
{
	struct npu_mem_alloc al = { .size = sizeof(al), .length = SZ_2M,
				    .page_size = SZ_2M };
	struct npu_stream_create sc = { .size = sizeof(sc) };
	uint64_t name = export_new(self->fd, NPU_SHARE_ANY_PID);
	int status;
	pid_t pid;
	void *ro;

	ASSERT_NE(0, name);
	ASSERT_EQ(1, fdinfo_count(self->fd, "npu-handles"));
	ro = read_only_copy(&al, sizeof(al));
	ASSERT_NONNULL(ro);
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_MEM_ALLOC, ro));
	munmap(ro, SZ_4K);
	EXPECT_EQ(1, fdinfo_count(self->fd, "npu-handles"));
	EXPECT_EQ((long long)(SZ_2M >> 10), fdinfo_count(self->fd, "npu-memory-device"));

	ro = read_only_copy(&sc, sizeof(sc));
	ASSERT_NONNULL(ro);
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_STREAM_CREATE, ro));
	munmap(ro, SZ_4K);
	EXPECT_EQ(0, fdinfo_count(self->fd, "npu-streams"));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct npu_share_import im = { .size = sizeof(im), .shareable = name };
		int fd = npu_open(0);
		void *p = read_only_copy(&im, sizeof(im));

		if (fd < 0 || !p)
			_exit(2);
		if (npu_ioctl(fd, NPU_IOCTL_SHARE_IMPORT, p) != -EFAULT)
			_exit(3);
		if (fdinfo_count(fd, "npu-handles") != 0 ||
		    fdinfo_count(fd, "npu-shares-imported") != 0)
			_exit(4);
		/* the answer lost, the import is as if it never was: again */
		if (npu_ioctl(fd, NPU_IOCTL_SHARE_IMPORT, &im) || !im.handle ||
		    fdinfo_count(fd, "npu-handles") != 1)
			_exit(5);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
}

/* Every bad export, destroy and kind mix-up, with its errno. */
TEST_F(share, ipc_export_checks)
{
	uint64_t va = map_new(self->fd, 4 * SZ_4K, SZ_4K);
	uint64_t huge = map_new(self->fd, 2 * SZ_2M, SZ_2M);
	uint64_t key, key2, name;
	void *host = npu_host_mem(SZ_4K);
	struct npu_host_register reg = {
		.size = sizeof(reg), .flags = NPU_HOST_MAPPED,
		.addr = ptr64(host), .length = SZ_4K,
	};
	struct npu_ipc_export e = { .size = sizeof(e) };
	struct peer a;

	ASSERT_NE(0, va);
	ASSERT_NE(0, huge);
	ASSERT_NE(NULL, host);
	EXPECT_EQ(-EINVAL, ipc_export(self->fd, va, SZ_4K, 2, &key));
	EXPECT_EQ(-EINVAL, ipc_export(self->fd, va, 0, 0, &key));
	EXPECT_EQ(-EINVAL, ipc_export(self->fd, va + 1, SZ_4K, 0, &key));
	EXPECT_EQ(-EINVAL, ipc_export(self->fd, va, SZ_4K + 1, 0, &key));
	EXPECT_EQ(-ENOENT, ipc_export(self->fd, va, 5 * SZ_4K, 0, &key));
	EXPECT_EQ(-ENOENT, ipc_export(self->fd, va + SZ_4K, -SZ_4K, 0, &key));
	EXPECT_EQ(-ENOENT, ipc_export(self->fd, SZ_4K, SZ_4K, 0, &key));
	/* a 2 MiB handle is named in 2 MiB pages */
	EXPECT_EQ(-EINVAL, ipc_export(self->fd, huge + SZ_4K, SZ_4K, 0, &key));
	EXPECT_EQ(-EINVAL, ipc_export(self->fd, huge, SZ_4K, 0, &key));
	/* host memory mapped for the device is no device memory */
	reg.dev_addr = npu_hole(SZ_4K, SZ_4K);
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_HOST_REGISTER, &reg));
	EXPECT_EQ(-ENOENT, ipc_export(self->fd, reg.dev_addr, SZ_4K, 0, &key));
	/* a longer struct with a non-zero tail */
	e.size = sizeof(e) + 8;
	EXPECT_EQ(-E2BIG, npu_ioctl(self->fd, NPU_IOCTL_IPC_EXPORT, &(struct {
		struct npu_ipc_export e; uint64_t tail; }){ e, 1 }));

	ASSERT_EQ(0, ipc_export(self->fd, va + SZ_4K, 2 * SZ_4K, 0, &key));
	ASSERT_EQ(0, ipc_export(self->fd, va + SZ_4K, 2 * SZ_4K, 0, &key2));
	EXPECT_NE(0, key);
	EXPECT_NE(key, key2);	/* one range, two keys */
	ASSERT_EQ(0, ipc_export(self->fd, huge + SZ_2M, SZ_2M, 0, &key2));
	/* the exporting process itself */
	{
		struct npu_share_import imp = { .size = sizeof(imp), .shareable = key };

		EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_IPC_IMPORT, &imp));
	}
	/* keys and shareable names do not mix */
	name = export_new(self->fd, NPU_SHARE_ANY_PID);
	ASSERT_NE(0, name);
	EXPECT_EQ(-ENOENT, ipc_destroy(self->fd, name, 0));
	EXPECT_EQ(-ENOENT, set_pids(self->fd, key, (int32_t[]){ getpid() }, 1));
	EXPECT_EQ(-ENOENT, ipc_set_pids(self->fd, name, (int32_t[]){ getpid() }, 1));
	ASSERT_LT(0, peer_start(&a, 0));
	ASSERT_EQ(0, ipc_set_pids(self->fd, key, &a.pid, 1));
	EXPECT_EQ(-ENOENT, peer_call(&a, (struct req){ .op = OP_IPC_SHARE_IMPORT, .name = key }));
	EXPECT_EQ(-ENOENT, peer_ipc_import(&a, name));
	EXPECT_EQ((long long)(2 * SZ_4K), peer_ipc_import(&a, key));
	EXPECT_EQ(-ENOENT, peer_ipc_import(&a, key2));	/* not listed */

	EXPECT_EQ(-EINVAL, ipc_destroy(self->fd, key, 1));
	EXPECT_EQ(0, ipc_destroy(self->fd, key, 0));
	EXPECT_EQ(-ENOENT, ipc_destroy(self->fd, key, 0));
	EXPECT_EQ(-ENOENT, peer_ipc_import(&a, key));
	EXPECT_TRUE(peer_stop(&a));
	EXPECT_EQ(0, npu_unregister(self->fd, host));
	munmap(host, SZ_4K);
}

/* IPC_SET_PIDS adds to the list; SHARE_SET_PIDS replaces it. */
TEST_F(share, ipc_set_pids_adds)
{
	uint64_t va = map_new(self->fd, SZ_2M, SZ_2M), key;
	struct peer a, b;
	int32_t *many;
	int i;

	ASSERT_NE(0, va);
	ASSERT_EQ(0, ipc_export(self->fd, va, SZ_2M, 0, &key));
	ASSERT_LT(0, peer_start(&a, 0));
	ASSERT_LT(0, peer_start(&b, 0));
	EXPECT_EQ(-ENOENT, peer_ipc_import(&a, key));
	ASSERT_EQ(0, ipc_set_pids(self->fd, key, &a.pid, 1));
	EXPECT_EQ((long long)SZ_2M, peer_ipc_import(&a, key));
	EXPECT_EQ(-ENOENT, peer_ipc_import(&b, key));
	ASSERT_EQ(0, ipc_set_pids(self->fd, key, &b.pid, 1));
	EXPECT_EQ((long long)SZ_2M, peer_ipc_import(&a, key));
	EXPECT_EQ((long long)SZ_2M, peer_ipc_import(&b, key));
	/* 2 listed: 1022 more fit, 1023 do not, and leave the list as it was */
	many = calloc(NPU_SHARE_MAX_PIDS, sizeof(*many));
	ASSERT_NE(NULL, many);
	for (i = 0; i < NPU_SHARE_MAX_PIDS; i++)
		many[i] = a.pid;
	EXPECT_EQ(-ENOSPC, ipc_set_pids(self->fd, key, many, NPU_SHARE_MAX_PIDS - 1));
	EXPECT_EQ(0, ipc_set_pids(self->fd, key, many, NPU_SHARE_MAX_PIDS - 2));
	EXPECT_EQ(-ENOSPC, ipc_set_pids(self->fd, key, many, 1));
	EXPECT_EQ((long long)SZ_2M, peer_ipc_import(&b, key));
	free(many);
	EXPECT_TRUE(peer_stop(&b));
	EXPECT_TRUE(peer_stop(&a));
}

/* The hash of @len bytes from byte @from on of fill_pattern(@seed)'s pattern. */
static long long bytes_hash_of_pattern(uint64_t from, unsigned int seed, uint64_t len)
{
	unsigned char *p = malloc(len);
	long long h;
	uint64_t i;

	if (!p)
		return -ENOMEM;
	for (i = 0; i < len; i++)
		p[i] = (unsigned char)((from + i) * seed + ((from + i) >> 12) * 13);
	h = bytes_hash(p, len);
	free(p);
	return h;
}

/* Fill [@va, @va + @len) of @fd with the pattern of @seed: its bytes' hash. */
static long long fill_pattern(int fd, uint64_t va, uint64_t len, unsigned int seed)
{
	unsigned char *host = npu_host_mem(len);
	uint32_t stream;
	long long ret;
	uint64_t i;

	if (!host)
		return -ENOMEM;
	for (i = 0; i < len; i++)
		host[i] = (unsigned char)(i * seed + (i >> 12) * 13);
	ret = npu_stream_create(fd, &stream);
	if (!ret)
		ret = npu_run(fd, stream, npu_copy_cmd(va, ptr64(host), len, NPU_CMD_SRC_USER));
	npu_stream_destroy(fd, stream, 0);
	ret = ret ?: bytes_hash(host, len);
	munmap(host, len);
	return ret;
}

/* How an exporter ends its key in ipc_key_death_revokes_the_imports. */
enum key_death { BY_DESTROY, BY_UNMAP, BY_CLOSE };

/*
 * A key dies (@how) while a peer holds it imported and mapped: as on the
 * vendor's device the importer loses the pages - its reads fault from then
 * on - while its handle and mapping stay until it lets go. New imports
 * fail. The memory goes when the last of exporter and importer let go.
 */
static void key_death_revokes(int fd0,
			      enum key_death how)
{
	const uint64_t len = 4 * SZ_4K, off = SZ_4K, n = 2 * SZ_4K;
	long long used0 = npu_mem_used(fd0);
	int fd = how == BY_CLOSE ? npu_open(0) : fd0;
	uint64_t va, key;
	long long hash;
	struct peer a;

	ASSERT_LE(0, fd);
	va = npu_map_new_rw(fd, len, SZ_4K, 0);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, ipc_export(fd, va + off, n, NPU_SHARE_ANY_PID, &key));
	ASSERT_LT(0, peer_start(&a, 0));
	/* the import reads the named range, not the exporter's whole handle */
	ASSERT_LT(0, fill_pattern(fd, va, off, 3));
	hash = fill_pattern(fd, va + off, n, 7);
	ASSERT_LT(0, hash);
	EXPECT_EQ((long long)n, peer_call(&a, (struct req){ .op = OP_IPC_HOLD, .name = key }));
	EXPECT_EQ(hash, peer_call(&a, (struct req){ .op = OP_IPC_READ, .flags = n }));
	EXPECT_EQ(bytes_hash_of_pattern(SZ_4K, 7, SZ_4K),
		  peer_call(&a, (struct req){ .op = OP_IPC_READ, .name = SZ_4K, .flags = SZ_4K }));
	/* one import per process at a time */
	EXPECT_EQ(-EINVAL, peer_ipc_import(&a, key));
	npu_expect_dma_faults(true);

	switch (how) {
	case BY_DESTROY:
		EXPECT_EQ(0, ipc_destroy(fd, key, 0));
		break;
	case BY_UNMAP:
		EXPECT_EQ(0, npu_unmap(fd, va));
		EXPECT_EQ(-ENOENT, ipc_destroy(fd, key, 0));
		break;
	case BY_CLOSE:
		close(fd);
		break;
	}
	EXPECT_EQ(-EIO, peer_call(&a, (struct req){ .op = OP_IPC_READ, .flags = n }));
	EXPECT_EQ(-EIO, peer_call(&a, (struct req){ .op = OP_IPC_READ, .name = n - SZ_4K,
						      .flags = SZ_4K }));
	EXPECT_EQ(-ENOENT, peer_ipc_import(&a, key));
	EXPECT_EQ(0, peer_call(&a, (struct req){ .op = OP_IPC_DROP }));
	if (how != BY_CLOSE) {
		if (how == BY_DESTROY)
			EXPECT_EQ(0, npu_unmap(fd, va));
		EXPECT_EQ(0, npu_release(fd, va));
	}
	EXPECT_TRUE(peer_stop(&a));
	EXPECT_EQ(used0, npu_mem_used(fd0));
}

TEST_F(share, ipc_key_destroyed_revokes_the_imports)
{
	key_death_revokes(self->fd, BY_DESTROY);
}

TEST_F(share, ipc_memory_unmapped_revokes_the_imports)
{
	key_death_revokes(self->fd, BY_UNMAP);
}

TEST_F(share, ipc_exporter_closed_revokes_the_imports)
{
	key_death_revokes(self->fd, BY_CLOSE);
}

/*
 * The revoked memory stays allocated until the importer lets go (no page
 * is reused under an access translated just before): the exporter's
 * unmapped and freed memory still counts while the peer holds it.
 */
TEST_F(share, ipc_revoked_memory_is_freed_by_the_last_importer)
{
	long long used0 = npu_mem_used(self->fd);
	uint64_t va = npu_map_new_rw(self->fd, SZ_2M, SZ_2M, 0), key;
	struct peer a;

	ASSERT_NE(0, va);
	ASSERT_EQ(0, ipc_export(self->fd, va, SZ_2M, NPU_SHARE_ANY_PID, &key));
	ASSERT_LT(0, peer_start(&a, 0));
	EXPECT_EQ((long long)SZ_2M, peer_call(&a, (struct req){ .op = OP_IPC_HOLD, .name = key }));
	npu_expect_dma_faults(true);
	EXPECT_EQ(0, npu_unmap(self->fd, va));
	EXPECT_EQ(0, npu_release(self->fd, va));
	EXPECT_EQ(used0 + (long long)SZ_2M, npu_mem_used(self->fd));
	EXPECT_EQ(-EIO, peer_call(&a, (struct req){ .op = OP_IPC_READ, .flags = SZ_4K }));
	EXPECT_EQ(0, peer_call(&a, (struct req){ .op = OP_IPC_DROP }));
	EXPECT_EQ(used0, npu_mem_used(self->fd));
	EXPECT_TRUE(peer_stop(&a));
}

/* Each context holds at most max_ipc_keys keys. */
TEST_F(share, ipc_keys_are_capped)
{
	const char *param = "/sys/module/npu/parameters/max_ipc_keys";
	uint64_t va = map_new(self->fd, SZ_2M, SZ_2M), k[3];

	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_write_file(param, "2"));
	EXPECT_EQ(0, ipc_export(self->fd, va, SZ_2M, 0, &k[0]));
	EXPECT_EQ(0, ipc_export(self->fd, va, SZ_2M, 0, &k[1]));
	EXPECT_EQ(-ENOSPC, ipc_export(self->fd, va, SZ_2M, 0, &k[2]));
	EXPECT_EQ(0, ipc_destroy(self->fd, k[0], 0));
	EXPECT_EQ(0, ipc_export(self->fd, va, SZ_2M, 0, &k[2]));
	EXPECT_EQ(0, npu_write_file(param, "4096"));
}

/*
 * An importer cannot export its slice as a dma-buf: the exporter may take
 * the memory back, which a dma-buf's users could not be told.
 */
TEST_F(share, ipc_slice_does_not_export_as_dmabuf)
{
	uint64_t va = npu_map_new_rw(self->fd, 4 * SZ_4K, SZ_4K, 0), key;
	struct peer a;

	ASSERT_NE(0, va);
	ASSERT_EQ(0, ipc_export(self->fd, va + SZ_4K, 2 * SZ_4K, NPU_SHARE_ANY_PID, &key));
	ASSERT_LT(0, peer_start(&a, 0));
	EXPECT_EQ(-EPERM, peer_call(&a, (struct req){ .op = OP_IPC_DMABUF, .name = key }));
	/* and the refused export left the import free to be taken again */
	EXPECT_EQ((long long)(2 * SZ_4K), peer_ipc_import(&a, key));
	EXPECT_TRUE(peer_stop(&a));
}

TEST_HARNESS_MAIN
