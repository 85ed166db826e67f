// SPDX-License-Identifier: GPL-2.0
/*
 * npu_uce_test: uncorrectable memory errors at the ioctl level - a page
 * made bad through netlink (MEM_POISON) faults every engine access with
 * -EHWPOISON, MEM_UCE_QUERY names the context's addresses on it, and
 * MEM_REPAIR gives a healthy page of zeros; for 4 KiB and 2 MiB pages.
 */
#include <sys/wait.h>

#include "harness.h"
#include "npu_nl_util.h"
#include "npu_util.h"

FIXTURE(uce) {
	int fd;
	uint32_t stream;
};

FIXTURE_SETUP(uce)
{
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->stream));
}

FIXTURE_TEARDOWN(uce)
{
	close(self->fd);
}

static int uce_query(int fd, struct npu_uce_range *r, uint32_t *count)
{
	struct npu_mem_uce_query q = {
		.size = sizeof(q), .ranges = ptr64(r), .count = *count,
		.range_size = sizeof(*r),
	};
	int ret = npu_ioctl(fd, NPU_IOCTL_MEM_UCE_QUERY, &q);

	*count = q.count;
	return ret;
}

static int uce_repair(int fd, uint64_t addr, uint64_t len, uint64_t *repaired)
{
	struct npu_mem_repair r = { .size = sizeof(r), .addr = addr, .length = len };
	int ret = npu_ioctl(fd, NPU_IOCTL_MEM_REPAIR, &r);

	if (repaired)
		*repaired = r.repaired;
	return ret;
}

/* Byte @i of the test pattern. */
static unsigned char pat(uint64_t i)
{
	return (unsigned char)(i * 29 + (i >> 12) * 7 + 1);
}

/*
 * A bad page in the middle of a buffer of @page pages: copies through it
 * fault with -EHWPOISON, with the bytes before it moved; copies around it
 * work; the query reports exactly its page, merged with a bad neighbour;
 * the repair gives zeros there and leaves every other byte alone.
 */
static void bad_page(int fd, uint32_t stream, uint64_t page)
{
	const uint64_t len = 2 * page > SZ_2M ? 2 * page : SZ_2M;
	const uint64_t bad = len / 2 + 3 * SZ_4K;
	unsigned char *host = npu_host_mem(len), *back = npu_host_mem(len);
	struct npu_uce_range r[4];
	uint64_t va, i, repaired;
	uint32_t n;

	ASSERT_NONNULL(host);
	ASSERT_NONNULL(back);
	va = npu_map_new_rw(fd, len, page, 0);
	ASSERT_NE(0, va);
	for (i = 0; i < len; i++)
		host[i] = pat(i);
	ASSERT_EQ(0, npu_run(fd, stream, npu_copy_cmd(va, ptr64(host), len, NPU_CMD_SRC_USER)));
	n = 4;
	ASSERT_EQ(0, uce_query(fd, r, &n));
	EXPECT_EQ(0, n);

	ASSERT_EQ(0, npu_poison(0, getpid(), va + bad + 100));
	ASSERT_EQ(0, npu_poison(0, getpid(), va + bad + SZ_4K));	/* a neighbour: one range */
	n = 4;
	ASSERT_EQ(0, uce_query(fd, r, &n));
	ASSERT_EQ(1, n);
	EXPECT_EQ(va + bad, r[0].addr);
	EXPECT_EQ(2 * SZ_4K, r[0].length);
	n = 0;	/* count only */
	EXPECT_EQ(0, uce_query(fd, NULL, &n));
	EXPECT_EQ(1, n);

	npu_expect_dma_faults(true);
	memset(back, 0xee, len);
	EXPECT_EQ(-EHWPOISON, npu_run(fd, stream, npu_copy_cmd(ptr64(back), va, len, NPU_CMD_DST_USER)));
	/* the bytes before the bad page moved, none after it */
	for (i = 0; i < bad && back[i] == pat(i); i++)
		;
	EXPECT_EQ(bad, i);
	EXPECT_EQ(0xee, back[bad]);
	EXPECT_EQ(-EHWPOISON, npu_run(fd, stream, npu_memset_cmd(va + bad + SZ_4K + 8, 1, 8, 0)));
	npu_expect_dma_faults(false);
	/* around it, at other offsets and lengths than written: intact */
	memset(back, 0, len);
	ASSERT_EQ(0, npu_run(fd, stream, npu_copy_cmd(ptr64(back) + 5, va + 5, bad - 5, NPU_CMD_DST_USER)));
	ASSERT_EQ(0, npu_run(fd, stream, npu_copy_cmd(ptr64(back) + bad + 2 * SZ_4K, va + bad + 2 * SZ_4K,
						      len - bad - 2 * SZ_4K, NPU_CMD_DST_USER)));
	for (i = 5; i < len; i++)
		if ((i < bad || i >= bad + 2 * SZ_4K) && back[i] != pat(i))
			break;
	EXPECT_EQ(len, i);

	/* repair: one call for part of the range, one for the rest */
	EXPECT_EQ(0, uce_repair(fd, va + bad, SZ_4K, &repaired));
	EXPECT_EQ(SZ_4K, repaired);
	n = 4;
	ASSERT_EQ(0, uce_query(fd, r, &n));
	ASSERT_EQ(1, n);
	EXPECT_EQ(va + bad + SZ_4K, r[0].addr);
	EXPECT_EQ(0, uce_repair(fd, va, len, &repaired));
	EXPECT_EQ(SZ_4K, repaired);
	EXPECT_EQ(0, uce_repair(fd, va, len, &repaired));
	EXPECT_EQ(0, repaired);
	n = 4;
	ASSERT_EQ(0, uce_query(fd, r, &n));
	EXPECT_EQ(0, n);
	memset(back, 0xee, len);
	ASSERT_EQ(0, npu_run(fd, stream, npu_copy_cmd(ptr64(back), va, len, NPU_CMD_DST_USER)));
	for (i = 0; i < len; i++)
		if (back[i] != (i >= bad && i < bad + 2 * SZ_4K ? 0 : pat(i)))
			break;
	EXPECT_EQ(len, i);
	munmap(host, len);
	munmap(back, len);
}

TEST_F(uce, bad_4k_page_faults_is_reported_and_repaired)
{
	bad_page(self->fd, self->stream, SZ_4K);
}

TEST_F(uce, bad_page_inside_a_2m_page)
{
	bad_page(self->fd, self->stream, SZ_2M);
}

/* Every bad argument, with its errno; unprivileged injection is refused. */
TEST_F(uce, bad_arguments)
{
	struct npu_mem_uce_query q = { .size = sizeof(q) };
	struct npu_uce_range r;
	uint64_t va = npu_map_new_rw(self->fd, SZ_2M, SZ_4K, 0);
	int status;
	pid_t pid;

	ASSERT_NE(0, va);
	q.flags = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MEM_UCE_QUERY, &q));
	q.flags = 0;
	q.count = 1;
	q.ranges = ptr64(&r);
	q.range_size = sizeof(r) + 8;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MEM_UCE_QUERY, &q));
	q.range_size = sizeof(r);
	EXPECT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_MEM_UCE_QUERY, &q));
	EXPECT_EQ(0, q.count);

	EXPECT_EQ(-EINVAL, uce_repair(self->fd, va, 0, NULL));
	EXPECT_EQ(-ENOENT, uce_repair(self->fd, va + SZ_2M, SZ_4K, NULL));
	EXPECT_EQ(-ENOENT, uce_repair(self->fd, va, SZ_2M + SZ_4K, NULL));
	EXPECT_EQ(-ENOENT, uce_repair(self->fd, va + SZ_4K, -SZ_4K, NULL));
	{
		struct npu_mem_repair rp = { .size = sizeof(rp), .flags = 1, .addr = va,
					     .length = SZ_4K };

		EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MEM_REPAIR, &rp));
	}

	EXPECT_EQ(-ENOENT, npu_poison(0, getpid(), va + SZ_2M));	/* not mapped */
	EXPECT_EQ(-ESRCH, npu_poison(0, 0x7ffffff0, va));		/* no such process */
	EXPECT_EQ(-ENODEV, npu_poison(99, getpid(), va));
	{
		/* every attribute is required */
		struct nl_sock_t ns;
		struct nl_req r;

		ASSERT_EQ(0, nl_open(&ns));
		nl_req_init(&r, ns.family, NPU_NL_CMD_MEM_POISON, 0);
		nl_req_put_u32(&r, NPU_NL_A_DEV_INDEX, 0);
		nl_req_put(&r, NPU_NL_A_FAULT_ADDR, &va, sizeof(va));
		EXPECT_EQ(-EINVAL, nl_talk(&ns, &r, NULL, NULL));
		close(ns.fd);
	}
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(setuid(65534) ? 2 : npu_poison(0, getppid(), va) == -EPERM ? 0 : 3);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	/* nothing was made bad by the refused calls */
	q.count = 1;
	EXPECT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_MEM_UCE_QUERY, &q));
	EXPECT_EQ(0, q.count);
}

/* Freeing the memory retires its bad pages: the next allocation is healthy. */
TEST_F(uce, freed_memory_is_healthy_again)
{
	uint64_t va = npu_reserve_new(self->fd, SZ_2M, SZ_2M);
	struct npu_uce_range r;
	uint32_t h, n = 1;

	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &h));
	ASSERT_EQ(0, npu_map(self->fd, va, SZ_2M, h));
	ASSERT_EQ(0, npu_set_access(self->fd, va, SZ_2M, 0, NPU_ACCESS_READWRITE));
	ASSERT_EQ(0, npu_poison(0, getpid(), va));
	ASSERT_EQ(0, uce_query(self->fd, &r, &n));
	EXPECT_EQ(1, n);
	ASSERT_EQ(0, npu_unmap(self->fd, va));
	ASSERT_EQ(0, npu_free(self->fd, h));
	/* the same blocks come back first from the buddy allocator */
	ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &h));
	ASSERT_EQ(0, npu_map(self->fd, va, SZ_2M, h));
	ASSERT_EQ(0, npu_set_access(self->fd, va, SZ_2M, 0, NPU_ACCESS_READWRITE));
	n = 1;
	ASSERT_EQ(0, uce_query(self->fd, &r, &n));
	EXPECT_EQ(0, n);
	EXPECT_EQ(0, npu_run(self->fd, self->stream, npu_memset_cmd(va, 7, SZ_2M, 0)));
}

TEST_HARNESS_MAIN
