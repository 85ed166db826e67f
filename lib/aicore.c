// SPDX-License-Identifier: MIT
/*
 * The AI-core executor of each open device (aicore.h): npu-aicore,
 * started at the first request that needs it with the device context's
 * aperture and a socket, and its address space handshake
 * (aicore_proto.h): every range it reports is reserved PROT_NONE here
 * with MAP_FIXED_NOREPLACE, so that no device VA libacl picks later (each
 * is a reservation of this process) can be one of them; a range that is
 * already ours means another spawn (a new layout), up to
 * ACL_AICORE_TRIES times. The reservations and the arena are kept while
 * the executor lives.
 *
 * An executor that died (a kernel corrupted it, it was killed) is
 * noticed at the next launch or request (its pidfd is readable) and
 * started again: a new epoch, into which each binary is loaded again at
 * its next launch, under the id it had (ids are the binaries' until they
 * are unloaded or the device closes). The launches it had, and those queued meanwhile, fail
 * as AI-core exceptions (the driver's "executor gone").
 *
 * Locking: each device's executor has its own mutex, which serialises
 * its start, its requests (one request, one answer on the socket) and
 * its stop; nothing else is taken under it but the driver's ioctl.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl_ioctl.h"
#include "aicore.h"
#include "aicore_proto.h"
#include "device.h"
#include "error.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define ACL_AICORE_TRIES	8

extern char **environ;

struct acl_aicore {
	pthread_mutex_t lock;		/* protects everything below */
	pid_t pid;			/* 0: not running */
	int pidfd;			/* readable once it died; -1 if the kernel has none */
	uint32_t epoch;			/* which start this is: 1, 2, ... */
	uint32_t ids_since;		/* ids of binaries loaded in later epochs are taken */
	int sock;
	unsigned int gen;		/* the device's gen it was started for */
	unsigned int nresv;
	struct acl_aicore_range resv[ACL_AICORE_RANGES_MAX];
	uint64_t arena;
	/* binary ids given out (acl_aicore_load): bit i of ids[i / 64] */
	uint64_t ids[ACL_AICORE_BINARIES / 64];
};

static struct acl_aicore acl_aicores[ACL_MAX_DEVICES] = {
	[0 ... ACL_MAX_DEVICES - 1] = { .lock = PTHREAD_MUTEX_INITIALIZER, .pidfd = -1 },
};

/*
 * $NPU_AICORE, else npu/npu-aicore beside the loaded libacl - the file
 * itself, not a link to it: a CANN-shaped install's lib64/ may hold only
 * links to LIBDIR (tools/cann/cann.mk).
 */
static const char *acl_aicore_path(char *buf, size_t len)
{
	const char *env = getenv("NPU_AICORE");
	char *real = NULL;
	const char *name, *slash;
	Dl_info info;

	if (env && *env)
		return env;
	if (!dladdr((void *)acl_aicore_path, &info) || !info.dli_fname)
		return "npu-aicore";
	real = realpath(info.dli_fname, NULL);
	name = real ? real : info.dli_fname;
	slash = strrchr(name, '/');
	if (slash)
		snprintf(buf, len, "%.*s/npu/npu-aicore", (int)(slash - name), name);
	free(real);
	return slash ? buf : "npu-aicore";
}

static void acl_aicore_unreserve(struct acl_aicore *ex, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		munmap((void *)(uintptr_t)ex->resv[i].start, ex->resv[i].end - ex->resv[i].start);
}

static void acl_aicore_reap(struct acl_aicore *ex)
{
	close(ex->sock);
	if (ex->pidfd >= 0)
		close(ex->pidfd);
	ex->pidfd = -1;
	kill(ex->pid, SIGKILL);
	/* ECHILD: SIGCHLD ignored, or the application reaped it */
	while (waitpid(ex->pid, NULL, 0) < 0 && errno == EINTR)
		;
	ex->pid = 0;
	ex->sock = -1;
}

static int acl_aicore_recv(struct acl_aicore *ex, void *msg, size_t len, uint32_t type)
{
	ssize_t n;

	do
		n = recv(ex->sock, msg, len, 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len || *(uint32_t *)msg != type)
		return acl_errf(ACLI_EDEVSETUP, "the AI-core executor of pid %d stopped answering", (int)ex->pid);
	return 0;
}

/* Reserve what HELLO lists: 0, -EAGAIN if a range is ours already. */
static int acl_aicore_reserve(struct acl_aicore *ex, const struct acl_aicore_hello *hello)
{
	unsigned int i;
	void *p;

	for (i = 0; i < hello->nranges; i++) {
		uint64_t start = hello->ranges[i].start, len = hello->ranges[i].end - start;

		p = mmap((void *)(uintptr_t)start, len, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
		if (p != (void *)(uintptr_t)start) {
			if (p != MAP_FAILED)
				munmap(p, len);
			acl_aicore_unreserve(ex, i);
			return -EAGAIN;
		}
		ex->resv[i] = hello->ranges[i];
	}
	ex->nresv = hello->nranges;
	return 0;
}

/* One spawn and handshake with @aperture: 0, -EAGAIN to try again, or an error. */
static int acl_aicore_try(struct acl_aicore *ex, int aperture, uint32_t cores)
{
	struct acl_aicore_arena arena = { .type = ACL_AICORE_ARENA, .cores = cores, .len = ACL_AICORE_ARENA_LEN };
	struct acl_aicore_hello hello;
	char *argv[] = { (char *)"npu-aicore", NULL };
	struct acl_aicore_ready ready;
	posix_spawn_file_actions_t fa;
	char path[PATH_MAX];
	const char *exe;
	int sv[2], ret;
	void *p;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return acl_errf(-errno, "socketpair for the AI-core executor: %s", strerror(errno));
	exe = acl_aicore_path(path, sizeof(path));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, aperture, ACL_AICORE_FD_APERTURE);
	posix_spawn_file_actions_adddup2(&fa, sv[1], ACL_AICORE_FD_SOCKET);
	ret = posix_spawn(&ex->pid, exe, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(sv[1]);
	ex->sock = sv[0];
	if (ret) {
		close(sv[0]);
		ex->pid = 0;
		return acl_errf(ACLI_EDEVSETUP, "cannot start the AI-core executor %s: %s", exe, strerror(ret));
	}
	/* before anyone may reap it: the pid is still the child's */
	ex->pidfd = (int)syscall(SYS_pidfd_open, ex->pid, 0);
	ret = acl_aicore_recv(ex, &hello, sizeof(hello), ACL_AICORE_HELLO);
	if (!ret && (hello.version != ACL_AICORE_VERSION || hello.nranges > ACL_AICORE_RANGES_MAX))
		ret = acl_errf(ACLI_EDEVSETUP, "%s speaks version %u, libacl %u", exe, hello.version,
			       ACL_AICORE_VERSION);
	if (!ret)
		ret = acl_aicore_reserve(ex, &hello);
	if (ret) {
		arena.type = ACL_AICORE_EXIT;
		send(ex->sock, &arena, sizeof(arena), MSG_NOSIGNAL);
		acl_aicore_reap(ex);
		return ret;
	}
	p = mmap(NULL, ACL_AICORE_ARENA_LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		ret = acl_errf(-ENOMEM, "no address space for the AI-core executor's arena");
		goto undo;
	}
	ex->arena = arena.start = (uint64_t)(uintptr_t)p;
	if (send(ex->sock, &arena, sizeof(arena), MSG_NOSIGNAL) != sizeof(arena))
		ret = acl_errf(ACLI_EDEVSETUP, "the AI-core executor of pid %d is gone", (int)ex->pid);
	else
		ret = acl_aicore_recv(ex, &ready, sizeof(ready), ACL_AICORE_READY);
	if (!ret && ready.status)
		ret = acl_errf(ACLI_EDEVSETUP, "the AI-core executor could not set up its address space: %s",
			       strerror(-ready.status));
	if (!ret)
		return 0;
	munmap(p, ACL_AICORE_ARENA_LEN);
undo:
	acl_aicore_unreserve(ex, ex->nresv);
	acl_aicore_reap(ex);
	return ret;
}

static int acl_aicore_start_locked(struct acl_device *dev, struct acl_aicore *ex)
{
	struct npu_get_info info = { .size = sizeof(info) };
	int i, ret, aperture = -1;

	ret = acl_ioctl(dev->fd, NPU_IOCTL_GET_INFO, &info);
	/*
	 * A file of its own, an executor's from its open: launches queue for
	 * it even before its first KERNEL_WAIT (after another executor died,
	 * they would fail at once); when it dies, its release fails them.
	 */
	if (!ret)
		ret = acl_dev_aperture_open(dev, true, &aperture);
	if (ret)
		return ret;
	ret = -EAGAIN;
	for (i = 0; i < ACL_AICORE_TRIES && ret == -EAGAIN; i++)
		ret = acl_aicore_try(ex, aperture, info.vector_cores ? info.vector_cores : 1);
	/* the executor holds its own descriptor of the aperture */
	close(aperture);
	if (ret == -EAGAIN)
		ret = acl_errf(ACLI_EDEVSETUP, "no layout of the AI-core executor fits beside this process (%d tries)",
			       ACL_AICORE_TRIES);
	if (!ret) {
		ex->gen = __atomic_load_n(&dev->gen, __ATOMIC_ACQUIRE);
		ex->epoch++;
	}
	return ret;
}

/* Did the running executor die? */
static bool acl_aicore_dead_locked(struct acl_aicore *ex)
{
	struct pollfd p = { .fd = ex->pidfd, .events = POLLIN };

	return ex->pid && ex->pidfd >= 0 && poll(&p, 1, 0) > 0;
}

/*
 * Stop the executor (if any) and give back its reservations and arena.
 * The binary ids stay taken: each binary keeps its id into the next
 * executor (a captured graph's launches name it).
 */
static void acl_aicore_forget_locked(struct acl_aicore *ex)
{
	if (ex->pid) {
		acl_aicore_reap(ex);
		acl_aicore_unreserve(ex, ex->nresv);
		munmap((void *)(uintptr_t)ex->arena, ACL_AICORE_ARENA_LEN);
		ex->nresv = 0;
	}
}

/* The running executor of @dev, started (again) if need be; ex->lock held on success. */
static int acl_aicore_lock(struct acl_device *dev, struct acl_aicore **out)
{
	struct acl_aicore *ex = &acl_aicores[dev->id];
	int ret = 0;

	pthread_mutex_lock(&ex->lock);
	if (ex->pid && ex->gen != __atomic_load_n(&dev->gen, __ATOMIC_ACQUIRE)) {
		ret = acl_errf(ACLI_ECTXRELEASE, "device %d was closed", dev->id);
	} else {
		if (acl_aicore_dead_locked(ex))
			acl_aicore_forget_locked(ex);
		if (!ex->pid)
			ret = acl_aicore_start_locked(dev, ex);
	}
	if (ret) {
		pthread_mutex_unlock(&ex->lock);
		return ret;
	}
	*out = ex;
	return 0;
}

/* One request to the running executor and its RESULT, with @fd passed along if it is not -1. */
static int acl_aicore_call_locked(struct acl_aicore *ex, const void *req, size_t len, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)req, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct acl_aicore_result res;
	int ret;

	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = &ctl;
		msg.msg_controllen = sizeof(ctl);
		CMSG_FIRSTHDR(&msg)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&msg)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&msg)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&msg)), &fd, sizeof(int));
	}
	if (sendmsg(ex->sock, &msg, MSG_NOSIGNAL) != (ssize_t)len)
		ret = acl_errf(ACLI_EDEVSETUP, "the AI-core executor of pid %d is gone", (int)ex->pid);
	else
		ret = acl_aicore_recv(ex, &res, sizeof(res), ACL_AICORE_RESULT);
	return ret ? ret : res.status;
}

/* A free binary id of @ex, marked used: -ENOSPC if none. */
static int acl_aicore_id_get(struct acl_aicore *ex, uint32_t *id)
{
	uint32_t i;

	for (i = 0; i < ACL_AICORE_BINARIES; i++) {
		if (!(ex->ids[i / 64] & (1ULL << (i % 64)))) {
			ex->ids[i / 64] |= 1ULL << (i % 64);
			*id = i;
			return 0;
		}
	}
	return -ENOSPC;
}

static void acl_aicore_id_put(struct acl_aicore *ex, uint32_t id)
{
	ex->ids[id / 64] &= ~(1ULL << (id % 64));
}

int acl_aicore_epoch(struct acl_device *dev, uint32_t *epoch)
{
	struct acl_aicore *ex;
	int ret = acl_aicore_lock(dev, &ex);

	if (!ret) {
		*epoch = ex->epoch;
		pthread_mutex_unlock(&ex->lock);
	}
	return ret;
}

int acl_aicore_load(struct acl_device *dev, int fd, const char *const *entries, uint32_t n, int32_t had,
		    uint32_t had_epoch, uint32_t *id, uint32_t *epoch)
{
	struct acl_aicore_load *req;
	struct acl_aicore *ex;
	uint32_t i;
	bool reused;
	int ret;

	if (!n || n > ACL_AICORE_ENTRIES)
		return acl_errf(-EINVAL, "a binary of %u kernels: the executor takes 1..%u", n, ACL_AICORE_ENTRIES);
	req = calloc(1, sizeof(*req));
	if (!req)
		return -ENOMEM;
	ret = acl_aicore_lock(dev, &ex);
	if (ret) {
		free(req);
		return ret;
	}
	reused = had >= 0 && had_epoch > ex->ids_since;
	if (reused) {
		*id = (uint32_t)had;
	} else if (acl_aicore_id_get(ex, id)) {
		ret = acl_errf(ACLI_ERESALLOC, "device %d's executor holds %u binaries already", dev->id,
			       ACL_AICORE_BINARIES);
		goto out;
	}
	req->type = ACL_AICORE_LOAD;
	req->id = *id;
	req->nentries = n;
	for (i = 0; i < n; i++)
		snprintf(req->entries[i], sizeof(req->entries[i]), "%s", entries[i]);
	ret = acl_aicore_call_locked(ex, req, sizeof(*req), fd);
	if (ret > -ACLI_ERR_BASE && ret < 0)
		ret = acl_errf(ret, "the AI-core executor cannot load the binary: %s", strerror(-ret));
	if (ret && !reused)
		acl_aicore_id_put(ex, *id);
	*epoch = ex->epoch;
out:
	pthread_mutex_unlock(&ex->lock);
	free(req);
	return ret;
}

int acl_aicore_unload(struct acl_device *dev, uint32_t id, uint32_t epoch)
{
	struct acl_aicore_binary req = { .type = ACL_AICORE_UNLOAD, .id = id };
	struct acl_aicore *ex = &acl_aicores[dev->id];
	int ret = 0;

	pthread_mutex_lock(&ex->lock);
	/* nothing to unload from an executor that is gone */
	if (ex->pid && ex->epoch == epoch && ex->gen == __atomic_load_n(&dev->gen, __ATOMIC_ACQUIRE) &&
	    !acl_aicore_dead_locked(ex))
		ret = acl_aicore_call_locked(ex, &req, sizeof(req), -1);
	/* its id, unless the device closed since (and all ids went) */
	if (epoch > ex->ids_since)
		acl_aicore_id_put(ex, id);
	pthread_mutex_unlock(&ex->lock);
	return ret;
}

void acl_aicore_stop(struct acl_device *dev, bool in_child)
{
	struct acl_aicore *ex = &acl_aicores[dev->id];

	if (in_child) {
		/* the parent's: drop our end only; its reservations stay as inherited */
		pthread_mutex_init(&ex->lock, NULL);
		if (ex->pid) {
			close(ex->sock);
			if (ex->pidfd >= 0)
				close(ex->pidfd);
		}
		ex->pidfd = -1;
		ex->pid = 0;
		memset(ex->ids, 0, sizeof(ex->ids));
		ex->ids_since = ex->epoch;
		return;
	}
	pthread_mutex_lock(&ex->lock);
	acl_aicore_forget_locked(ex);
	memset(ex->ids, 0, sizeof(ex->ids));
	ex->ids_since = ex->epoch;
	pthread_mutex_unlock(&ex->lock);
}
