/* SPDX-License-Identifier: MIT */
/*
 * Forked children of the libacl tests: checks that end the child with an
 * exit status (no harness there), and fork/reap with two pipes.
 */
#ifndef NPU_TESTS_LIB_CHILD_H
#define NPU_TESTS_LIB_CHILD_H

#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <acl/acl.h>

#define CK(cond) do {								\
	if (!(cond)) {								\
		printf("# child %d: %s:%d: %s is false\n", getpid(), __FILE__,	\
		       __LINE__, #cond);					\
		fflush(stdout);							\
		_exit(3);							\
	}									\
} while (0)

#define CK_ACL(exp, call) do {							\
	aclError __r = (call);							\
	if (__r != (aclError)(exp)) {						\
		const char *__m = aclGetRecentErrMsg();				\
		printf("# child %d: %s:%d: %s -> %d, want %d: %s\n", getpid(),	\
		       __FILE__, __LINE__, #call, __r, (int)(exp),		\
		       __m ? __m : "(no message)");				\
		fflush(stdout);							\
		_exit(3);							\
	}									\
} while (0)

struct child {
	pid_t pid;
	int rd;		/* test reads what the child writes */
	int wr;		/* test writes what the child reads */
};

/* Fork a child running @fn(rd, wr, arg) and exiting 0 when it returns. */
static inline int spawn(struct child *c, void (*fn)(int rd, int wr, void *arg), void *arg)
{
	int up[2], down[2];

	if (pipe(up) || pipe(down))
		return -1;
	fflush(stdout);
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (!c->pid) {
		close(up[0]);
		close(down[1]);
		fn(down[0], up[1], arg);
		fflush(stdout);
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	c->rd = up[0];
	c->wr = down[1];
	return 0;
}

/* The child's exit status (0: all its checks passed). */
static inline int reap(struct child *c)
{
	int st;

	close(c->wr);
	close(c->rd);
	if (waitpid(c->pid, &st, 0) != c->pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* One value over a pipe of spawn(); a side whose peer died ends. */
static inline void put_u64(int fd, uint64_t v)
{
	if (write(fd, &v, sizeof(v)) != sizeof(v))
		_exit(5);
}

static inline uint64_t get_u64(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		_exit(6);	/* the other side died */
	return v;
}

#endif /* NPU_TESTS_LIB_CHILD_H */
