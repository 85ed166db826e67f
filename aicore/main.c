// SPDX-License-Identifier: MIT
/*
 * npu-aicore: the process that runs one device context's AI-core kernels
 * (Documentation/proposals/aicore.md). libacl starts it with the
 * context's aperture as fd 3 and a SOCK_SEQPACKET socket as fd 4
 * (lib/aicore_proto.h). Its address space is the device's: the aperture
 * at every address but its own mappings and an arena the application
 * reserved, so a kernel that dereferences a device pointer reaches what
 * the device reaches, and nothing of the application.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <unistd.h>

#include "aicore.h"

static struct acl_aicore_hello aicore_hello;
static struct acl_aicore_range aicore_now[ACL_AICORE_RANGES_MAX];

static void aicore_die(const char *what, int err)
{
	fprintf(stderr, "npu-aicore: %s: %s\n", what, strerror(err));
	exit(1);
}

/*
 * A respawn must get a new layout: drop ADDR_NO_RANDOMIZE (setarch -R,
 * a debugger) inherited from the application and start again.
 */
static void aicore_randomize(char **argv)
{
	int persona = personality(0xffffffff);

	if (persona == -1 || !(persona & ADDR_NO_RANDOMIZE))
		return;
	if (personality((unsigned long)persona & ~ADDR_NO_RANDOMIZE) == -1)
		return;
	execv("/proc/self/exe", argv);
}

static int aicore_send(const void *msg, size_t len)
{
	ssize_t n;

	do
		n = send(ACL_AICORE_FD_SOCKET, msg, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -EIO;
}

/* One message into @buf of @len: its length, 0 at EOF, or -errno. */
static ssize_t aicore_recv(void *buf, size_t len)
{
	ssize_t n;

	do
		n = recv(ACL_AICORE_FD_SOCKET, buf, len, 0);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* HELLO, ARENA, the aperture over the rest, READY. */
static int aicore_handshake(void)
{
	struct acl_aicore_ready ready = { .type = ACL_AICORE_READY };
	struct acl_aicore_arena arena;
	unsigned int n_now;
	ssize_t got;
	int ret;

	aicore_hello.type = ACL_AICORE_HELLO;
	aicore_hello.version = ACL_AICORE_VERSION;
	ret = aicore_own_ranges(aicore_hello.ranges, &aicore_hello.nranges);
	if (ret)
		return ret;
	ret = aicore_send(&aicore_hello, sizeof(aicore_hello));
	if (ret)
		return ret;
	got = aicore_recv(&arena, sizeof(arena));
	if (got <= 0 || arena.type == ACL_AICORE_EXIT)
		exit(0);	/* libacl spawns another, or is gone */
	if (got != sizeof(arena) || arena.type != ACL_AICORE_ARENA)
		return -EPROTO;
	/* nothing new may have appeared: the application reserved exactly what was sent */
	ret = aicore_own_ranges(aicore_now, &n_now);
	if (!ret && !aicore_ranges_within(aicore_now, n_now, aicore_hello.ranges, aicore_hello.nranges))
		ret = -EADDRINUSE;
	if (!ret)
		ret = aicore_cover(ACL_AICORE_FD_APERTURE, aicore_hello.ranges, aicore_hello.nranges,
				   arena.start, arena.len, &ready.covered);
	/* from here on, whatever is mapped lands in the arena: the core threads' stacks too */
	if (!ret)
		ret = aicore_cores_start(arena.cores);
	if (!ret)
		ret = aicore_jobs_start();
	ready.status = ret;
	if (aicore_send(&ready, sizeof(ready)))
		return -EIO;
	return ret;
}

/* One message and, with LOAD, the fd it carries (-1 if none). */
static ssize_t aicore_recv_fd(void *buf, size_t len, int *fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(ACL_AICORE_FD_SOCKET, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	for (c = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL; c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	return n < 0 ? -errno : n;
}

static int aicore_peek_poke(const struct acl_aicore_access *req, ssize_t got, struct acl_aicore_result *res)
{
	struct aicore_fault fault = { 0 };

	if (got != sizeof(*req) || !req->len || req->len > ACL_AICORE_DATA_MAX)
		return -EINVAL;
	if (req->type == ACL_AICORE_POKE)
		memcpy(res->data, req->data, req->len);
	res->status = aicore_access(req->addr, res->data, req->len, req->type == ACL_AICORE_POKE, &fault);
	res->signo = fault.signo;
	res->code = fault.code;
	res->fault_addr = fault.addr;
	res->len = res->status ? 0 : req->len;
	return res->status;
}

static int aicore_binary_msg(const void *req, ssize_t got, int fd)
{
	const struct acl_aicore_load *load = req;
	const struct acl_aicore_binary *unload = req;
	int ret;

	if (load->type == ACL_AICORE_UNLOAD)
		ret = got != sizeof(*unload) || fd >= 0 ? -EINVAL : aicore_binary_unload(unload->id);
	else if (got != sizeof(*load))
		ret = -EINVAL;
	else if (fd < 0)
		ret = -EBADF;
	else
		ret = aicore_binary_load(load, fd);
	if (ret && fd >= 0)
		close(fd);
	return ret;
}

static void aicore_serve(void)
{
	static union {
		uint32_t type;
		struct acl_aicore_access access;
		struct acl_aicore_binary binary;
		struct acl_aicore_load load;
	} req;
	static struct acl_aicore_result res;
	ssize_t got;
	int fd;

	for (;;) {
		memset(&req, 0, sizeof(req));
		got = aicore_recv_fd(&req, sizeof(req), &fd);
		if (got <= 0)
			return;
		memset(&res, 0, sizeof(res));
		res.type = ACL_AICORE_RESULT;
		if (got < (ssize_t)sizeof(req.type)) {
			res.status = -EINVAL;
		} else if (req.type == ACL_AICORE_LOAD || req.type == ACL_AICORE_UNLOAD) {
			res.status = aicore_binary_msg(&req, got, fd);
			fd = -1;
		} else if (req.type == ACL_AICORE_PEEK || req.type == ACL_AICORE_POKE) {
			res.status = aicore_peek_poke(&req.access, fd < 0 ? got : -1, &res);
		} else {
			res.status = -EINVAL;
		}
		if (fd >= 0)
			close(fd);
		if (aicore_send(&res, sizeof(res)))
			return;
	}
}

int main(int argc, char **argv)
{
	int ret;

	(void)argc;
	aicore_randomize(argv);
	if (fcntl(ACL_AICORE_FD_APERTURE, F_GETFD) < 0 || fcntl(ACL_AICORE_FD_SOCKET, F_GETFD) < 0) {
		fprintf(stderr, "npu-aicore: started by libacl only (fd 3: aperture, fd 4: socket)\n");
		return 2;
	}
	/* one malloc arena, made now: later allocations land in the arena's gap */
	mallopt(M_ARENA_MAX, 1);
	free(malloc(1));
	ret = aicore_guard_init();
	if (ret)
		aicore_die("signal handlers", -ret);
	ret = aicore_handshake();
	if (ret)
		aicore_die("address space", -ret);
	aicore_serve();
	return 0;
}
