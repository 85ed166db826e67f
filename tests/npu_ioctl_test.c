// SPDX-License-Identifier: GPL-2.0
/*
 * npu_ioctl_test: the uapi conventions every ioctl follows - dispatch,
 * struct size negotiation, reserved fields, output zeroing, per-process
 * contexts - and GET_INFO on every device.
 */
#include <stddef.h>
#include <sys/wait.h>

#include "harness.h"
#include "npu_util.h"

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

TEST(open_close_every_device)
{
	int n = npu_device_count();

	ASSERT_LE(1, n);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < n; i++) {
			int fd = npu_open(i);

			ASSERT_LE(0, fd);
			ASSERT_OK(close(fd));
		}
	}
}

TEST(get_info_every_device)
{
	int n = npu_device_count();

	for (int i = 0; i < n; i++) {
		struct npu_get_info info;
		int fd = npu_open(i);

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, npu_info(fd, &info));
		EXPECT_EQ((uint32_t)i, info.device_index);
		EXPECT_EQ(NPU_DRIVER_VERSION, info.driver_version);
		EXPECT_LE(64ULL << 20, info.mem_total);
		EXPECT_EQ(0, info.mem_total % SZ_2M);
		EXPECT_EQ(NPU_PAGE_4K | NPU_PAGE_2M | NPU_PAGE_1G,
			  info.page_sizes);
		EXPECT_EQ(SZ_2M, info.va_start);
		EXPECT_EQ(1ULL << 47, info.va_end);
		EXPECT_EQ(0, info.caps & ~(NPU_CAP_IOMMU | NPU_CAP_PCI_CARRIER));
		/* An IOMMU domain comes only with a PCI carrier. */
		if (info.caps & NPU_CAP_IOMMU)
			EXPECT_TRUE(info.caps & NPU_CAP_PCI_CARRIER);
		TH_LOG("npu%d: %llu MiB, caps %#x", i,
		       (unsigned long long)info.mem_total >> 20, info.caps);
		close(fd);
	}
}

TEST_F(dev, unknown_ioctl_is_enotty)
{
	struct npu_get_info info = { .size = sizeof(info) };

	/* Below and above the table, another type, size or direction bits. */
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd, _IO(NPU_TYPE, 0x10), &info));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd, _IO(NPU_TYPE, NPU_CMD_BASE - 1),
				     &info));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd,
				     _IO(NPU_TYPE, NPU_CMD_PEER_ENABLE + 1),
				     &info));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd, _IO(NPU_TYPE, 0xff), &info));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd, _IO('X', NPU_CMD_GET_INFO),
				     &info));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd,
				     _IOWR(NPU_TYPE, NPU_CMD_GET_INFO,
					   struct npu_get_info), &info));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd, TCGETS, &info));
}

TEST_F(dev, bad_user_pointer_is_efault)
{
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, NULL));
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO,
				     (void *)16));
}

TEST_F(dev, short_struct_is_einval)
{
	struct npu_get_info info = { 0 };
	struct npu_map map = { 0 };

	info.size = 0;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &info));
	info.size = offsetof(struct npu_get_info, va_end);
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &info));
	/* The 1.0 struct ended at va_end: still accepted, tail untouched. */
	memset(&info, 0, sizeof(info));
	info.size = offsetof(struct npu_get_info, tgid);
	info.tgid = 12345;
	EXPECT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &info));
	EXPECT_EQ(SZ_2M, info.va_start);
	EXPECT_EQ(12345, info.tgid);
	map.size = 4;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MAP, &map));
}

TEST_F(dev, long_struct_needs_zero_tail)
{
	struct {
		struct npu_get_info info;
		uint64_t tail[4];
	} big;

	memset(&big, 0, sizeof(big));
	big.info.size = sizeof(big);
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &big));
	EXPECT_EQ(NPU_DRIVER_VERSION, big.info.driver_version);
	/* The kernel writes back only what it knows. */
	EXPECT_EQ(0, big.tail[0]);
	big.tail[3] = 1;
	EXPECT_EQ(-E2BIG, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &big));
}

TEST_F(dev, flags_and_reserved_must_be_zero)
{
	struct npu_get_info info = { .size = sizeof(info), .flags = 1 };
	struct npu_mem_alloc alloc = {
		.size = sizeof(alloc), .length = SZ_2M, .page_size = SZ_2M,
	};
	struct npu_stream_create sc = { .size = sizeof(sc), .__reserved = 1 };
	struct npu_addr_query q = { .size = sizeof(q), .flags = 2 };

	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &info));
	info.flags = 0;
	info.__reserved = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &info));
	alloc.flags = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MEM_ALLOC, &alloc));
	alloc.flags = 0;
	alloc.__reserved = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MEM_ALLOC, &alloc));
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_STREAM_CREATE, &sc));
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_ADDR_QUERY, &q));
	/* Nothing was allocated by the refused calls. */
	EXPECT_EQ(0, npu_mem_used(self->fd));
}

TEST_F(dev, outputs_are_overwritten)
{
	struct npu_get_info info;
	struct npu_addr_query q;

	memset(&info, 0xa5, sizeof(info));
	info.size = sizeof(info);
	info.flags = 0;
	info.__reserved = 0;
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, &info));
	EXPECT_EQ(0, info.device_index);
	EXPECT_EQ(0, info.mem_used);
	EXPECT_EQ(SZ_2M, info.va_start);

	memset(&q, 0xa5, sizeof(q));
	q.size = sizeof(q);
	q.flags = 0;
	q.addr = 0x1000;
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_ADDR_QUERY, &q));
	EXPECT_EQ(NPU_ADDR_NONE, q.kind);
	EXPECT_EQ(0, q.base);
	EXPECT_EQ(0, q.length);
	EXPECT_EQ(0, q.dev_addr);
	EXPECT_EQ(0, q.page_size);
	EXPECT_EQ(0, q.mapped);
	EXPECT_EQ(0, q.access);
	EXPECT_EQ(0, q.host_flags);
}

/*
 * SHARE_IMPORT reports the memory's length and page size; a caller with the
 * first release's struct (ending at __reserved) still imports, and nothing
 * past its size is written. The exporter is a forked child.
 */
TEST_F(dev, share_import_reports_length_and_page_size)
{
	const size_t old_size = offsetof(struct npu_share_import, length);
	struct npu_share_import imp;
	int to_parent[2], to_child[2], status;
	uint64_t shareable = 0;
	char ack = 'a';
	pid_t pid;

	ASSERT_EQ(0, pipe(to_parent));
	ASSERT_EQ(0, pipe(to_child));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct npu_share_export e = {
			.size = sizeof(e), .flags = NPU_SHARE_ANY_PID,
		};
		int fd = npu_open(0);

		close(to_parent[0]);
		close(to_child[1]);
		if (fd < 0 || npu_alloc(fd, 3 * SZ_2M, SZ_2M, &e.handle) ||
		    npu_ioctl(fd, NPU_IOCTL_SHARE_EXPORT, &e))
			_exit(1);	/* the parent reads end-of-file */
		/* the name lives until the exporter's context goes */
		if (write(to_parent[1], &e.shareable, sizeof(e.shareable)) !=
		    sizeof(e.shareable) || read(to_child[0], &ack, 1) != 1)
			_exit(2);
		_exit(0);
	}
	/* the ends the child holds: its exit is end-of-file either way */
	close(to_parent[1]);
	close(to_child[0]);
	ASSERT_EQ((ssize_t)sizeof(shareable),
		  read(to_parent[0], &shareable, sizeof(shareable)));
	ASSERT_NE(0, shareable);

	/* bad input: exact errors, nothing imported */
	memset(&imp, 0, sizeof(imp));
	imp.size = sizeof(imp);
	imp.shareable = shareable;
	imp.flags = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_SHARE_IMPORT, &imp));
	imp.flags = 0;
	imp.__reserved = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_SHARE_IMPORT, &imp));
	imp.__reserved = 0;
	imp.size = offsetof(struct npu_share_import, __reserved);
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_SHARE_IMPORT, &imp));
	imp.size = sizeof(imp);
	imp.shareable = shareable ^ 1;
	EXPECT_EQ(-ENOENT, npu_ioctl(self->fd, NPU_IOCTL_SHARE_IMPORT, &imp));
	EXPECT_EQ(0, imp.handle);

	memset(&imp, 0xa5, sizeof(imp));
	imp.size = sizeof(imp);
	imp.flags = 0;
	imp.__reserved = 0;
	imp.shareable = shareable;
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_SHARE_IMPORT, &imp));
	EXPECT_NE(0, imp.handle);
	EXPECT_EQ(3 * SZ_2M, imp.length);
	EXPECT_EQ(SZ_2M, imp.page_size);
	EXPECT_EQ(0, npu_free(self->fd, imp.handle));

	memset(&imp, 0xa5, sizeof(imp));
	imp.size = old_size;
	imp.flags = 0;
	imp.__reserved = 0;
	imp.shareable = shareable;
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_SHARE_IMPORT, &imp));
	EXPECT_NE(0, imp.handle);
	EXPECT_EQ(0xa5a5a5a5a5a5a5a5ULL, imp.length);
	EXPECT_EQ(0xa5a5a5a5a5a5a5a5ULL, imp.page_size);
	EXPECT_EQ(0, npu_free(self->fd, imp.handle));
	/* the exporter's own handle still holds the memory */
	EXPECT_EQ((long long)(3 * SZ_2M), npu_mem_used(self->fd));

	ASSERT_EQ(1, write(to_child[1], &ack, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(0, npu_mem_used(self->fd));
}

/* A context serves the process that opened it; a forked child gets EPERM. */
TEST_F(dev, other_process_is_eperm)
{
	uint32_t handle;
	pid_t pid;
	int status;

	ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &handle));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct npu_get_info info;
		uint32_t h2;
		int bad = 0;

		bad |= npu_info(self->fd, &info) != -EPERM;
		bad |= npu_free(self->fd, handle) != -EPERM;
		bad |= npu_alloc(self->fd, SZ_2M, SZ_2M, &h2) != -EPERM;
		/* An unknown ioctl is still unknown. */
		bad |= npu_ioctl(self->fd, _IO(NPU_TYPE, 1), &info) != -ENOTTY;
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The child's exit closed its copy of the fd: the handle survives. */
	EXPECT_EQ((long long)SZ_2M, npu_mem_used(self->fd));
	EXPECT_EQ(0, npu_free(self->fd, handle));
	EXPECT_EQ(0, npu_mem_used(self->fd));
}

/* Handles are per context: another open of the same device cannot use them. */
TEST_F(dev, handles_are_per_context)
{
	int other = npu_open(0);
	uint32_t handle;
	uint64_t va;

	ASSERT_LE(0, other);
	ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &handle));
	EXPECT_EQ(-ENOENT, npu_free(other, handle));
	va = npu_reserve_new(other, SZ_2M, SZ_2M);
	ASSERT_NE(0, va);
	EXPECT_EQ(-ENOENT, npu_map(other, va, SZ_2M, handle));
	/* ...nor its reservations. */
	EXPECT_EQ(-ENOENT, npu_release(self->fd, va));
	EXPECT_EQ(0, npu_release(other, va));
	EXPECT_EQ(0, npu_free(self->fd, handle));
	close(other);
}

/* Closing the file releases everything the context held. */
TEST_F(dev, close_releases_everything)
{
	int fd = npu_open(0);
	uint32_t handle, stream;
	uint64_t va;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, npu_alloc(fd, 4 * SZ_2M, SZ_2M, &handle));
	va = npu_reserve_new(fd, 4 * SZ_2M, SZ_2M);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_map(fd, va, 4 * SZ_2M, handle));
	ASSERT_EQ(0, npu_set_access(fd, va, 4 * SZ_2M, 0, NPU_ACCESS_READWRITE));
	ASSERT_EQ(0, npu_alloc(fd, SZ_2M, SZ_2M, &handle));
	ASSERT_EQ(0, npu_stream_create(fd, &stream));
	ASSERT_EQ(0, npu_run(fd, stream, npu_memset_cmd(va, 1, 4 * SZ_2M, 0)));
	EXPECT_EQ((long long)(5 * SZ_2M), npu_mem_used(self->fd));
	close(fd);
	EXPECT_EQ(0, npu_mem_used(self->fd));
}

TEST_HARNESS_MAIN
