// SPDX-License-Identifier: GPL-2.0
/*
 * tests/npu_kmod_test.c - `npu-smi module load|unload|status` (libkmod).
 *
 * Runs the tool as a separate program (fork + exec, its stdout and stderr
 * captured) and checks its exit codes (man/npu-smi.1), its messages and
 * what the kernel then has: npu.ko loaded through libkmod from
 * /lib/npu/npu.ko with --devices 2, status, unload refused while another
 * process holds /dev/npu0 and done after, bad parameters, not root.
 *
 * The tool is $NPU_SMI, else /usr/bin/npu-smi; the test skips without
 * one.
 * The guest's /init has loaded npu.ko: every test unloads it first, and
 * its teardown - and the program before it exits - reloads it with the
 * parameters it had (finit_module(2), not the tool under test) and gives
 * the nodes to the group npu again, as tests/npu_module_test.c does.
 *
 * Runs as root in the VM (tools/vm-run -- /tests/npu_kmod_test); the
 * module file is /lib/npu/npu.ko there ($NPU_KO overrides it).
 */
#include "harness.h"
#include "npu_util.h"
#include "npu_mod_util.h"
/* the tool's exit codes (npu-smi(1)) */
#include "../tools/npu_smi.h"

#include <grp.h>
#include <sys/stat.h>
#include <sys/syscall.h>

/* As found when the program started; restored after every test. */
static struct npu_mod_params saved;

static const char *tool_path(void)
{
	static const char *const paths[] = { "/usr/bin/npu-smi" };
	const char *p = getenv("NPU_SMI");

	if (p && *p)
		return p;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (!access(paths[i], X_OK))
			return paths[i];
	return NULL;
}

/*
 * Run the tool with `module` and @args (NULL-terminated), as nobody when
 * @drop; its stdout and stderr into @out. Returns its exit status, or -1.
 */
static int run_tool(bool drop, char *out, size_t outlen, ...)
{
	const char *argv[16] = { tool_path(), "module" };
	int argc = 2, pfd[2], status;
	size_t used = 0;
	va_list ap;
	pid_t pid;

	va_start(ap, outlen);
	while (argc < 15 && (argv[argc] = va_arg(ap, const char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	out[0] = 0;
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		if (drop && (setgroups(0, NULL) || setgid(65534) || setuid(65534)))
			_exit(120);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t n = read(pfd[0], out + used, outlen - 1 - used);

		if (n <= 0)
			break;
		used += n;
		if (used == outlen - 1)
			break;
	}
	out[used] = 0;
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	printf("# npu-smi module %s%s%s%s -> %d\n", argv[2] ? argv[2] : "",
	       argv[3] ? " " : "", argv[3] ? argv[3] : "", argc > 4 ? " ..." : "",
	       WEXITSTATUS(status));
	return WEXITSTATUS(status);
}

/* `module status`'s "refcount: N", or -1. */
static int status_refcount(char *out, size_t len)
{
	const char *r;

	if (run_tool(false, out, len, "status", NULL) != NPU_SMI_EXIT_OK)
		return -1;
	r = strstr(out, "refcount: ");
	return r ? atoi(r + 10) : -1;
}

/* A child that holds /dev/npu0 open until it is killed; its pid or -1. */
static pid_t hold_device(void)
{
	int pfd[2];
	pid_t pid;
	char c;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd = npu_open(0);

		close(pfd[0]);
		c = fd >= 0 ? 'y' : 'n';
		if (write(pfd[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	if (pid < 0 || read(pfd[0], &c, 1) != 1 || c != 'y') {
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		pid = -1;
	}
	close(pfd[0]);
	return pid;
}

FIXTURE(kmod) { char out[8192]; pid_t holder; };

FIXTURE_SETUP(kmod)
{
	self->holder = -1;
	if (!tool_path())
		SKIP(return, "no npu-smi in /usr/bin (make tools)");
	ASSERT_TRUE(saved.valid);
	ASSERT_TRUE(npu_mod_loaded());
	ASSERT_EQ(0, access(npu_ko_path(), R_OK));
}

FIXTURE_TEARDOWN(kmod)
{
	int ret;

	if (self->holder > 0) {
		kill(self->holder, SIGKILL);
		waitpid(self->holder, NULL, 0);
	}
	ret = npu_mod_restore(&saved);
	if (ret)
		printf("# teardown: cannot restore npu.ko: %s\n", strerror(-ret));
}

TEST_F_TIMEOUT(kmod, load_two_devices, 60)
{
	char val[64];
	struct npu_get_info info;
	int fd;

	ASSERT_EQ(0, npu_mod_unload());
	ASSERT_FALSE(npu_mod_loaded());
	ASSERT_EQ(NPU_SMI_EXIT_OK, run_tool(false, self->out, sizeof(self->out), "load",
				    "--path", npu_ko_path(), "--devices", "2", NULL));
	TH_LOG("%s", self->out);
	ASSERT_TRUE(npu_mod_loaded());
	ASSERT_TRUE(npu_wait_node(0, true));
	ASSERT_TRUE(npu_wait_node(1, true));
	ASSERT_EQ(0, npu_mod_param("num_devices", val, sizeof(val)));
	EXPECT_STREQ("2", val);
	for (int i = 0; i < 2; i++) {
		fd = npu_open(i);
		ASSERT_LE(0, fd);
		EXPECT_EQ(0, npu_info(fd, &info));
		EXPECT_EQ(i, (int)info.device_index);
		EXPECT_EQ(2, (int)info.num_devices);
		close(fd);
	}
	/* A second load: already loaded. */
	EXPECT_EQ(NPU_SMI_EXIT_EXIST, run_tool(false, self->out, sizeof(self->out), "load",
				       "--path", npu_ko_path(), NULL));
	EXPECT_NONNULL(strstr(self->out, "already loaded"));
}

TEST_F_TIMEOUT(kmod, status_refcount_and_parameters, 60)
{
	char pid[32];
	int fd, r0, r;

	ASSERT_EQ(0, npu_mod_unload());
	ASSERT_EQ(NPU_SMI_EXIT_OK, run_tool(false, self->out, sizeof(self->out), "load",
				    "--path", npu_ko_path(), "--devices", "2",
				    "--param", "soc_name=KmodTest", NULL));
	ASSERT_TRUE(npu_wait_node(1, true));
	r0 = status_refcount(self->out, sizeof(self->out));
	TH_LOG("status:\n%s", self->out);
	ASSERT_EQ(0, r0);
	EXPECT_NONNULL(strstr(self->out, "state: live"));
	EXPECT_NONNULL(strstr(self->out, "holders: none"));
	EXPECT_NONNULL(strstr(self->out, "num_devices=2"));
	EXPECT_NONNULL(strstr(self->out, "soc_name=KmodTest"));
	EXPECT_NONNULL(strstr(self->out, "/dev/npu0 /dev/npu1"));

	fd = npu_open(0);
	ASSERT_LE(0, fd);
	r = status_refcount(self->out, sizeof(self->out));
	EXPECT_EQ(r0 + 1, r);
	snprintf(pid, sizeof(pid), "pid %d ", getpid());
	EXPECT_NONNULL(strstr(self->out, pid));
	close(fd);
	for (int i = 0; i < 100 && r != r0; i++) {
		usleep(50 * 1000);
		r = status_refcount(self->out, sizeof(self->out));
	}
	EXPECT_EQ(r0, r);

	/* Not loaded: status says so, with its own exit code. */
	ASSERT_EQ(0, npu_mod_unload());
	EXPECT_EQ(NPU_SMI_EXIT_NOENT, run_tool(false, self->out, sizeof(self->out), "status", NULL));
	EXPECT_NONNULL(strstr(self->out, "state: not loaded"));
}

TEST_F_TIMEOUT(kmod, unload_refused_while_held, 60)
{
	char pid[32];
	int rc;

	ASSERT_EQ(0, npu_mod_unload());
	ASSERT_EQ(NPU_SMI_EXIT_OK, run_tool(false, self->out, sizeof(self->out), "load",
				    "--path", npu_ko_path(), "--devices", "2", NULL));
	ASSERT_TRUE(npu_wait_node(0, true));
	self->holder = hold_device();
	ASSERT_LT(0, self->holder);

	EXPECT_EQ(NPU_SMI_EXIT_BUSY, run_tool(false, self->out, sizeof(self->out), "unload", NULL));
	TH_LOG("%s", self->out);
	EXPECT_NONNULL(strstr(self->out, "in use"));
	snprintf(pid, sizeof(pid), "pid %d ", self->holder);
	EXPECT_NONNULL(strstr(self->out, pid));
	EXPECT_TRUE(npu_mod_loaded());

	kill(self->holder, SIGKILL);
	waitpid(self->holder, NULL, 0);
	self->holder = -1;
	/* The holder's file is released as it exits; allow for that. */
	rc = NPU_SMI_EXIT_BUSY;
	for (int i = 0; i < 50 && rc == NPU_SMI_EXIT_BUSY; i++) {
		rc = run_tool(false, self->out, sizeof(self->out), "unload", NULL);
		if (rc == NPU_SMI_EXIT_BUSY)
			usleep(100 * 1000);
	}
	EXPECT_EQ(NPU_SMI_EXIT_OK, rc);
	EXPECT_FALSE(npu_mod_loaded());
	EXPECT_TRUE(npu_wait_node(0, false));
	EXPECT_EQ(NPU_SMI_EXIT_NOENT, run_tool(false, self->out, sizeof(self->out), "unload", NULL));
	EXPECT_NONNULL(strstr(self->out, "not loaded"));
}

TEST_F_TIMEOUT(kmod, bad_parameters, 60)
{
	ASSERT_EQ(0, npu_mod_unload());

	/* Refused by the kernel: its message is shown. */
	EXPECT_EQ(NPU_SMI_EXIT_BADPARAM, run_tool(false, self->out, sizeof(self->out), "load",
					  "--path", npu_ko_path(), "--devices", "9", NULL));
	TH_LOG("%s", self->out);
	EXPECT_NONNULL(strstr(self->out, "kernel: npu: num_devices=9: must be 1..8"));
	EXPECT_FALSE(npu_mod_loaded());
	EXPECT_EQ(NPU_SMI_EXIT_BADPARAM, run_tool(false, self->out, sizeof(self->out), "load",
					  "--path", npu_ko_path(), "--mem-size", "1K", NULL));
	EXPECT_NONNULL(strstr(self->out, "mem_size '1K'"));
	EXPECT_FALSE(npu_mod_loaded());

	/* Refused by the tool: npu.ko has no such parameter. */
	EXPECT_EQ(NPU_SMI_EXIT_BADPARAM, run_tool(false, self->out, sizeof(self->out), "load",
					  "--path", npu_ko_path(), "--param", "no_such=1", NULL));
	EXPECT_NONNULL(strstr(self->out, "no parameter 'no_such'"));
	EXPECT_FALSE(npu_mod_loaded());

	/* Usage errors and missing files. */
	EXPECT_EQ(NPU_SMI_EXIT_USAGE, run_tool(false, self->out, sizeof(self->out), "load",
				       "--devices", "two", NULL));
	EXPECT_EQ(NPU_SMI_EXIT_USAGE, run_tool(false, self->out, sizeof(self->out), "frobnicate", NULL));
	EXPECT_EQ(NPU_SMI_EXIT_NOENT, run_tool(false, self->out, sizeof(self->out), "load",
				       "--path", "/lib/npu/no-such.ko", NULL));
	EXPECT_FALSE(npu_mod_loaded());
}

TEST_F_TIMEOUT(kmod, not_root, 60)
{
	/* Loaded and unused: only the missing privilege stops the unload. */
	EXPECT_EQ(NPU_SMI_EXIT_OK, run_tool(true, self->out, sizeof(self->out), "status", NULL));
	EXPECT_EQ(NPU_SMI_EXIT_PERM, run_tool(true, self->out, sizeof(self->out), "unload", NULL));
	TH_LOG("%s", self->out);
	EXPECT_NONNULL(strstr(self->out, "not permitted"));
	EXPECT_TRUE(npu_mod_loaded());

	ASSERT_EQ(0, npu_mod_unload());
	EXPECT_EQ(NPU_SMI_EXIT_PERM, run_tool(true, self->out, sizeof(self->out), "load",
				      "--path", npu_ko_path(), "--devices", "2", NULL));
	EXPECT_NONNULL(strstr(self->out, "not permitted"));
	EXPECT_FALSE(npu_mod_loaded());
}

int main(int argc, char **argv)
{
	int ret, r2;

	if (npu_mod_read_params(&saved))
		printf("# npu.ko is not loaded (no %s/parameters): tests will fail\n", NPU_MOD_SYSFS);
	ret = harness_run(argc, argv);
	r2 = npu_mod_restore(&saved);
	if (saved.valid && r2) {
		printf("# cannot reload npu.ko with its parameters: %s\n", strerror(-r2));
		ret = 1;
	}
	return ret;
}
