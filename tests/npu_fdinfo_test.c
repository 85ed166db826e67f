// SPDX-License-Identifier: GPL-2.0
/*
 * tests/npu_fdinfo_test.c - /proc/PID/fdinfo/FD of an open /dev/npuN
 * (kernel/npu_fdinfo.c, Documentation/observability.rst).
 *
 * Every key is checked exactly against what the test made the driver
 * hold, and again after it let go; a second process's file is read by
 * another process of the same uid, and refused to another uid as procfs
 * refuses it; a file whose process's mm is gone reads as shut down.
 */
#include <grp.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "harness.h"
#include "npu_util.h"

#define NKEYS	24

/* One fdinfo file: its npu-* keys and their values (as text). */
struct fdinfo {
	int n;
	char key[NKEYS][40];
	char val[NKEYS][64];
};

/* Read /proc/@pid/fdinfo/@fd; 0 or -errno. */
static int fdinfo_read(pid_t pid, int fd, struct fdinfo *fi)
{
	char path[64], line[160];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", pid, fd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	memset(fi, 0, sizeof(*fi));
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');

		if (strncmp(line, "npu-", 4) || !tab || tab[-1] != ':' ||
		    fi->n == NKEYS)
			continue;
		tab[-1] = 0;
		tab[strcspn(tab, "\n")] = 0;
		snprintf(fi->key[fi->n], sizeof(fi->key[0]), "%.39s", line);
		snprintf(fi->val[fi->n], sizeof(fi->val[0]), "%.63s", tab + 1);
		fi->n++;
	}
	fclose(f);
	return 0;
}

static const char *fdinfo_get(const struct fdinfo *fi, const char *key)
{
	int i;

	for (i = 0; i < fi->n; i++)
		if (!strcmp(fi->key[i], key))
			return fi->val[i];
	return NULL;
}

/* What a file should show, besides device, pid and client id. */
struct usage {
	const char *state;
	unsigned long long device_kib, pinned_kib;
	unsigned long handles, streams, models, mappings, reservations, regs;
	unsigned long exported, imported, dmabufs, queued;
	unsigned long long submits;
};

/* Check every key of @fi: the expected ones, each exactly, and no other. */
static void fdinfo_check(const struct fdinfo *fi, int dev_fd, pid_t pid,
			 const struct usage *u)
{
	struct npu_get_info info;
	char want[NKEYS][64], key[NKEYS][40];
	int n = 0, i;

	ASSERT_EQ(0, npu_info(dev_fd, &info));
#define WANT(k, ...) do {						\
	snprintf(key[n], sizeof(key[0]), "%s", k);			\
	snprintf(want[n], sizeof(want[0]), __VA_ARGS__);		\
	n++;								\
} while (0)
	WANT("npu-driver", "npu");
	WANT("npu-device", "%u", info.device_index);
	if (info.caps & NPU_CAP_PCI_CARRIER)
		WANT("npu-pdev", "%04x:%02x:%02x.%u", info.pci_domain,
		     info.pci_bus, info.pci_devfn >> 3, info.pci_devfn & 7);
	else
		WANT("npu-platform", "npu-sim.%u", info.device_index);
	WANT("npu-pid", "%d", pid);
	WANT("npu-client-id", "%s", fdinfo_get(fi, "npu-client-id") ?: "?");
	WANT("npu-state", "%s", u->state);
	WANT("npu-memory-device", "%llu KiB", u->device_kib);
	WANT("npu-memory-host-pinned", "%llu KiB", u->pinned_kib);
	WANT("npu-memory-host-locked", "%llu KiB", u->pinned_kib);
	WANT("npu-handles", "%lu", u->handles);
	WANT("npu-streams", "%lu", u->streams);
	WANT("npu-models", "%lu", u->models);
	WANT("npu-mappings", "%lu", u->mappings);
	WANT("npu-reservations", "%lu", u->reservations);
	WANT("npu-host-registrations", "%lu", u->regs);
	WANT("npu-shares-exported", "%lu", u->exported);
	WANT("npu-shares-imported", "%lu", u->imported);
	WANT("npu-dmabufs", "%lu", u->dmabufs);
	WANT("npu-commands-queued", "%lu", u->queued);
	WANT("npu-submits", "%llu", u->submits);
	WANT("npu-kernel-launches", "0");
	WANT("npu-aicore-busy-ns", "0");
#undef WANT
	EXPECT_EQ(n, fi->n);
	for (i = 0; i < n; i++) {
		const char *seen = fdinfo_get(fi, key[i]);

		if (!seen || strcmp(seen, want[i]))
			TH_LOG("%s: want '%s', seen '%s'", key[i], want[i],
			       seen ?: "(missing)");
		EXPECT_STREQ(want[i], seen ?: "(missing)");
	}
	EXPECT_LT(0, atoll(fdinfo_get(fi, "npu-client-id") ?: "0"));
}

static const struct usage idle = { .state = "active" };

/* A fresh file shows nothing held; every open is a client of its own. */
TEST(open_close)
{
	struct fdinfo a, b;
	int fd = npu_open(0), fd2 = npu_open(0);

	ASSERT_LE(0, fd);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, fdinfo_read(getpid(), fd, &a));
	ASSERT_EQ(0, fdinfo_read(getpid(), fd2, &b));
	fdinfo_check(&a, fd, getpid(), &idle);
	fdinfo_check(&b, fd2, getpid(), &idle);
	EXPECT_STRNE(fdinfo_get(&a, "npu-client-id"),
		     fdinfo_get(&b, "npu-client-id"));
	close(fd2);
	close(fd);
}

static int export(int fd, uint32_t handle, uint64_t *key)
{
	struct npu_share_export e = {
		.size = sizeof(e), .flags = NPU_SHARE_ANY_PID, .handle = handle,
	};
	int ret = npu_ioctl(fd, NPU_IOCTL_SHARE_EXPORT, &e);

	*key = e.shareable;
	return ret;
}

static int import(int fd, uint64_t key, uint32_t *handle)
{
	struct npu_share_import i = { .size = sizeof(i), .shareable = key };
	int ret = npu_ioctl(fd, NPU_IOCTL_SHARE_IMPORT, &i);

	*handle = i.handle;
	return ret;
}

/* Known allocations show exactly, and go back when freed. */
TEST(accounting)
{
	uint32_t h2m, h4k, s1, s2;
	struct usage u = idle;
	struct fdinfo fi;
	uint64_t va, key, seq;
	uint64_t *host, *mapped;
	int fd = npu_open(0);

	ASSERT_LE(0, fd);
	/* device memory: 2 MiB in 2 MiB pages, 12 KiB in 4 KiB pages */
	ASSERT_EQ(0, npu_alloc(fd, SZ_2M, SZ_2M, &h2m));
	ASSERT_EQ(0, npu_alloc(fd, 3 * SZ_4K, SZ_4K, &h4k));
	u.device_kib = 2048 + 12;
	u.handles = 2;
	ASSERT_EQ(0, fdinfo_read(getpid(), fd, &fi));
	fdinfo_check(&fi, fd, getpid(), &u);

	/* one reservation, both handles mapped in it */
	va = npu_reserve_new(fd, 2 * SZ_2M, SZ_2M);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_map(fd, va, SZ_2M, h2m));
	ASSERT_EQ(0, npu_map(fd, va + SZ_2M, 3 * SZ_4K, h4k));
	u.reservations = 1;
	u.mappings = 2;
	/* host memory: 64 KiB registered, 8 KiB registered and mapped */
	host = npu_host_mem(16 * SZ_4K);
	mapped = npu_host_mem(2 * SZ_4K);
	ASSERT_NONNULL(host);
	ASSERT_NONNULL(mapped);
	ASSERT_EQ(0, npu_register(fd, host, 16 * SZ_4K, 0, 0));
	ASSERT_EQ(0, npu_register(fd, mapped, 2 * SZ_4K, NPU_HOST_MAPPED,
				  npu_hole(2 * SZ_4K, SZ_4K)));
	u.pinned_kib = 64 + 8;
	u.regs = 2;
	u.mappings = 3;
	/* two streams, and an export */
	ASSERT_EQ(0, npu_stream_create(fd, &s1));
	ASSERT_EQ(0, npu_stream_create(fd, &s2));
	u.streams = 2;
	ASSERT_EQ(0, export(fd, h4k, &key));
	u.exported = 1;
	/* a WAIT_VALUE on host memory stays queued until the value is there */
	host[0] = 0;
	{
		struct npu_cmd c = npu_value_cmd(NPU_OP_WAIT_VALUE, ptr64(host),
						 1, NPU_CMD_SRC_HOST | NPU_WAIT_GEQ);

		ASSERT_EQ(0, npu_submit(fd, s1, &c, 1, &seq));
	}
	u.queued = 1;
	u.submits = 1;
	ASSERT_EQ(0, fdinfo_read(getpid(), fd, &fi));
	fdinfo_check(&fi, fd, getpid(), &u);

	__atomic_store_n(&host[0], 1, __ATOMIC_SEQ_CST);
	ASSERT_EQ(0, npu_sync(fd, s1, 10000));
	/* The engine frees a command just after it says it completed. */
	for (int i = 0; i < 1000; i++) {
		ASSERT_EQ(0, fdinfo_read(getpid(), fd, &fi));
		if (!strcmp(fdinfo_get(&fi, "npu-commands-queued") ?: "", "0"))
			break;
		usleep(1000);
	}
	u.queued = 0;
	fdinfo_check(&fi, fd, getpid(), &u);

	/* let go of everything, step by step */
	ASSERT_EQ(0, npu_stream_destroy(fd, s1, 0));
	ASSERT_EQ(0, npu_stream_destroy(fd, s2, 0));
	ASSERT_EQ(0, npu_unregister(fd, mapped));
	ASSERT_EQ(0, npu_unregister(fd, host));
	u.streams = 0;
	u.regs = 0;
	u.pinned_kib = 0;
	u.mappings = 2;
	ASSERT_EQ(0, fdinfo_read(getpid(), fd, &fi));
	fdinfo_check(&fi, fd, getpid(), &u);
	ASSERT_EQ(0, npu_unmap(fd, va));
	ASSERT_EQ(0, npu_unmap(fd, va + SZ_2M));
	ASSERT_EQ(0, npu_release(fd, va));
	ASSERT_EQ(0, npu_free(fd, h2m));
	ASSERT_EQ(0, npu_free(fd, h4k));
	ASSERT_EQ(0, fdinfo_read(getpid(), fd, &fi));
	u = idle;
	u.submits = 1;	/* a count of calls: it never goes down */
	fdinfo_check(&fi, fd, getpid(), &u);
	close(fd);
	munmap(host, 16 * SZ_4K);
	munmap(mapped, 2 * SZ_4K);
}

/*
 * Another process's file: read by a process of the same uid, refused to
 * another uid (procfs asks ptrace_may_access(PTRACE_MODE_READ)); that
 * uid reads its own. An import shows on the importer's side.
 */
TEST(other_process)
{
	int ready[2], done[2], fd, status;
	struct usage u = idle;
	uint64_t msg[2];
	struct fdinfo fi;
	uint32_t handle;
	char path[64];
	pid_t child;

	if (geteuid())
		SKIP(return, "needs root (setuid to another user)");
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(done));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		uint32_t h;
		uint64_t key = 0;
		void *host = npu_host_mem(4 * SZ_4K);
		int cfd = npu_open(0);
		char c;

		if (cfd < 0 || !host || npu_alloc(cfd, 2 * SZ_2M, SZ_2M, &h) ||
		    npu_register(cfd, host, 4 * SZ_4K, 0, 0) ||
		    export(cfd, h, &key))
			_exit(1);
		msg[0] = cfd;
		msg[1] = key;
		if (write(ready[1], msg, sizeof(msg)) != sizeof(msg))
			_exit(1);
		_exit(read(done[0], &c, 1) == 1 ? 0 : 1);
	}
	ASSERT_EQ((ssize_t)sizeof(msg), read(ready[0], msg, sizeof(msg)));
	u.device_kib = 4096;
	u.pinned_kib = 16;
	u.handles = 1;
	u.regs = 1;
	u.exported = 1;

	fd = npu_open(0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fdinfo_read(child, msg[0], &fi));
	fdinfo_check(&fi, fd, child, &u);

	/* the import counts for the importer, the memory for its owner */
	ASSERT_EQ(0, import(fd, msg[1], &handle));
	ASSERT_EQ(0, fdinfo_read(getpid(), fd, &fi));
	{
		struct usage mine = idle;

		mine.handles = 1;
		mine.imported = 1;
		fdinfo_check(&fi, fd, getpid(), &mine);
	}

	/* another uid: refused; its own file it reads */
	{
		pid_t other = fork();

		ASSERT_LE(0, other);
		if (!other) {
			gid_t gid = NPU_GID;
			int ofd, ret;

			if (setgroups(1, &gid) || setgid(65534) || setuid(65534))
				_exit(10);
			snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", child,
				 (int)msg[0]);
			if (open(path, O_RDONLY) >= 0 || errno != EACCES)
				_exit(11);
			ofd = npu_open(0);
			if (ofd < 0)
				_exit(12);
			ret = fdinfo_read(getpid(), ofd, &fi);
			if (ret)
				_exit(13);
			if (atoi(fdinfo_get(&fi, "npu-pid") ?: "0") != getpid())
				_exit(14);
			_exit(0);
		}
		ASSERT_EQ(other, waitpid(other, &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}

	ASSERT_EQ(1, write(done[1], "x", 1));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* the exporter is gone; the imported memory stays ours to free */
	ASSERT_EQ(0, fdinfo_read(getpid(), fd, &fi));
	{
		struct usage mine = idle;

		mine.handles = 1;
		mine.imported = 1;
		fdinfo_check(&fi, fd, getpid(), &mine);
	}
	ASSERT_EQ(0, npu_free(fd, handle));
	close(fd);
}

/*
 * A file whose process's mm is gone (the opener exited; a child it forked
 * keeps the file): shut down, no host memory, device memory still held.
 */
TEST(mm_gone)
{
	int ready[2], done[2], status;
	struct usage u = idle;
	struct fdinfo fi;
	pid_t child, holder = 0;
	int msg[2];

	/* The holder becomes our child when the opener exits. */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(done));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		void *host = npu_host_mem(4 * SZ_4K);
		int cfd = open("/dev/npu0", O_RDWR);	/* kept across fork */
		uint32_t h, s;
		pid_t gc;

		if (cfd < 0 || !host || npu_alloc(cfd, SZ_2M, SZ_2M, &h) ||
		    npu_register(cfd, host, 4 * SZ_4K, 0, 0) ||
		    npu_stream_create(cfd, &s))
			_exit(1);
		gc = fork();
		if (gc < 0)
			_exit(1);
		if (!gc) {
			char c;

			close(ready[1]);
			_exit(read(done[0], &c, 1) == 1 ? 0 : 1);
		}
		msg[0] = cfd;
		msg[1] = gc;
		_exit(write(ready[1], msg, sizeof(msg)) == sizeof(msg) ? 0 : 1);
	}
	ASSERT_EQ((ssize_t)sizeof(msg), read(ready[0], msg, sizeof(msg)));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	holder = msg[1];

	/* The opener's mm went at its exit, before waitpid returned. */
	ASSERT_EQ(0, fdinfo_read(holder, msg[0], &fi));
	u.state = "shut-down";
	u.device_kib = 2048;
	u.handles = 1;
	{
		int fd = npu_open(0);

		ASSERT_LE(0, fd);
		/* the opener's pid, as long as the file holds its struct pid */
		fdinfo_check(&fi, fd, child, &u);
		close(fd);
	}
	ASSERT_EQ(1, write(done[1], "x", 1));
	ASSERT_EQ(holder, waitpid(holder, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * fdinfo read over and over while the opener exits (and its context
 * shuts down, releasing registrations and streams): every read is
 * whole, host memory reads either all there or none, and the last one
 * says shut-down. For KASAN and lockdep on the debug kernel.
 */
#define RACE_LEN	(16 * SZ_2M)

TEST_TIMEOUT(mm_exit_race, 120)
{
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	for (int round = 0; round < 20; round++) {
		int ready[2], done[2], msg[2], status, reads = 0;
		struct fdinfo fi;
		const char *state;
		pid_t child;

		ASSERT_EQ(0, pipe(ready));
		ASSERT_EQ(0, pipe(done));
		child = fork();
		ASSERT_LE(0, child);
		if (!child) {
			/* big enough that unpinning takes a while */
			void *host = npu_host_mem(RACE_LEN);
			int cfd = open("/dev/npu0", O_RDWR);
			uint32_t s;
			pid_t gc;
			char c;

			if (cfd < 0 || !host ||
			    npu_register(cfd, host, RACE_LEN / 2, 0, 0) ||
			    npu_register(cfd, (char *)host + RACE_LEN / 2,
					 RACE_LEN / 2, 0, 0) ||
			    npu_stream_create(cfd, &s))
				_exit(1);
			gc = fork();
			if (gc < 0)
				_exit(1);
			if (!gc)
				_exit(read(done[0], &c, 1) == 1 ? 0 : 1);
			msg[0] = cfd;
			msg[1] = gc;
			if (write(ready[1], msg, sizeof(msg)) != sizeof(msg))
				_exit(1);
			usleep((round % 5) * 1000);
			_exit(0);
		}
		ASSERT_EQ((ssize_t)sizeof(msg), read(ready[0], msg, sizeof(msg)));
		do {
			const char *pinned;

			ASSERT_EQ(0, fdinfo_read(msg[1], msg[0], &fi));
			reads++;
			ASSERT_EQ(22, fi.n);	/* every key, each time */
			pinned = fdinfo_get(&fi, "npu-memory-host-pinned");
			ASSERT_NONNULL(pinned);
			state = fdinfo_get(&fi, "npu-state");
			ASSERT_NONNULL(state);
			if (!strcmp(state, "active"))
				EXPECT_EQ(RACE_LEN >> 10, atoll(pinned));
		} while (strcmp(state, "shut-down") &&
			 waitpid(child, &status, WNOHANG) == 0);
		if (waitpid(child, &status, WNOHANG) == 0)
			ASSERT_EQ(child, waitpid(child, &status, 0));
		ASSERT_EQ(0, fdinfo_read(msg[1], msg[0], &fi));
		EXPECT_STREQ("shut-down", fdinfo_get(&fi, "npu-state") ?: "");
		EXPECT_STREQ("0 KiB", fdinfo_get(&fi, "npu-memory-host-pinned") ?: "");
		EXPECT_STREQ("0", fdinfo_get(&fi, "npu-streams") ?: "");
		ASSERT_EQ(1, write(done[1], "x", 1));
		ASSERT_EQ(msg[1], waitpid(msg[1], &status, 0));
		close(ready[0]);
		close(ready[1]);
		close(done[0]);
		close(done[1]);
		if (!round || round == 19)
			TH_LOG("round %d: %d reads", round, reads);
	}
}

TEST_HARNESS_MAIN
