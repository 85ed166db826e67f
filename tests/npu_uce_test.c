// SPDX-License-Identifier: GPL-2.0
/*
 * npu_uce_test: uncorrectable memory errors at the ioctl level - a page
 * made bad through netlink (MEM_POISON) faults every engine access with
 * -EHWPOISON, STREAM_SYNC names the command, its submitter and the device
 * VA it could not access (NPU_FAULT_UCE), MEM_UCE_QUERY names the
 * context's addresses on it, and MEM_REPAIR gives a healthy page of
 * zeros; for 4 KiB and 2 MiB pages.
 */
#include <sys/syscall.h>
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

/* Sentinels for outputs the kernel must overwrite (or leave alone). */
#define JUNK64	0xa5a5a5a5a5a5a5a5ULL
#define JUNK32	0xa5a5a5a5U

/* STREAM_SYNC of @seqno (0: all) with the 1.6 struct, its outputs junk. */
static int sync_report(int fd, uint32_t stream, uint64_t seqno,
		       struct npu_stream_sync *s)
{
	*s = (struct npu_stream_sync){
		.size = sizeof(*s), .stream = stream, .timeout_ms = -1,
		.seqno = seqno, .error_seqno = JUNK64, .fault_addr = JUNK64,
		.fault_flags = JUNK32, .error_tid = JUNK32,
	};
	return npu_ioctl(fd, NPU_IOCTL_STREAM_SYNC, s);
}

/* Submit @cmd, then STREAM_SYNC it with the 1.6 struct; *@seq its seqno. */
static int run_report(int fd, uint32_t stream, struct npu_cmd cmd,
		      uint64_t *seq, struct npu_stream_sync *s)
{
	int ret = npu_submit(fd, stream, &cmd, 1, seq);

	return ret ? ret : sync_report(fd, stream, *seq, s);
}

static uint32_t my_tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static int set_mode(int fd, uint32_t stream, uint32_t mode)
{
	struct npu_stream_mode m = {
		.size = sizeof(m), .stream = stream, .mode = mode,
	};

	return npu_ioctl(fd, NPU_IOCTL_STREAM_SET_MODE, &m);
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
	struct npu_stream_sync s;
	uint64_t va, i, repaired, seq;
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
	/* a read: the device VA of the bad page's first byte, not a physical address */
	EXPECT_EQ(-EHWPOISON, run_report(fd, stream, npu_copy_cmd(ptr64(back), va, len, NPU_CMD_DST_USER),
					 &seq, &s));
	EXPECT_EQ(seq, s.error_seqno);
	EXPECT_EQ(va + bad, s.fault_addr);
	EXPECT_EQ(NPU_FAULT_UCE, s.fault_flags);
	EXPECT_EQ(my_tid(), s.error_tid);
	/* the bytes before the bad page moved, none after it */
	for (i = 0; i < bad && back[i] == pat(i); i++)
		;
	EXPECT_EQ(bad, i);
	EXPECT_EQ(0xee, back[bad]);
	/* a write into the second bad page, not at its start */
	EXPECT_EQ(-EHWPOISON, run_report(fd, stream, npu_memset_cmd(va + bad + SZ_4K + 8, 1, 8, 0), &seq, &s));
	EXPECT_EQ(seq, s.error_seqno);
	EXPECT_EQ(va + bad + SZ_4K + 8, s.fault_addr);
	EXPECT_EQ(NPU_FAULT_UCE | NPU_FAULT_WRITE, s.fault_flags);
	EXPECT_EQ(my_tid(), s.error_tid);
	npu_expect_dma_faults(false);
	/* reported once: the next sync succeeds and zeroes the outputs */
	EXPECT_EQ(0, sync_report(fd, stream, seq, &s));
	EXPECT_EQ(0U, s.error_seqno);
	EXPECT_EQ(0U, s.fault_addr);
	EXPECT_EQ(0U, s.fault_flags);
	EXPECT_EQ(0U, s.error_tid);
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

/*
 * The bad page's fault in the middle of a submission, as a DMA fault's:
 * STREAM_SYNC names that command (not the last), the stream runs on, a
 * second fault before the sync is not reported, a sync that stops short
 * of the command says nothing, and the 24-byte struct of 1.0 to 1.5 gets
 * the error without the outputs.
 */
TEST_F(uce, sync_names_the_command_like_a_dma_fault)
{
	uint64_t va = npu_map_new_rw(self->fd, SZ_2M, SZ_4K, 0);
	unsigned char *host = npu_host_mem(SZ_4K);
	struct npu_stream_sync s;
	struct npu_cmd cmds[4];
	struct {
		struct npu_stream_sync s;
		uint8_t canary[16];
	} old;
	uint64_t seq;

	ASSERT_NE(0, va);
	ASSERT_NONNULL(host);
	ASSERT_EQ(0, npu_poison(0, getpid(), va + 5 * SZ_4K + 1));
	cmds[0] = npu_memset_cmd(ptr64(host), 0x11, 64, NPU_CMD_DST_USER);
	/* reads from two pages before the bad one on: faults there */
	cmds[1] = npu_copy_cmd(ptr64(host) + 64, va + 3 * SZ_4K + 100, 3 * SZ_4K, NPU_CMD_DST_USER);
	cmds[2] = npu_memset_cmd(ptr64(host) + 128, 0x33, 64, NPU_CMD_DST_USER);
	/* a second fault: the log's, not the answer's */
	cmds[3] = npu_memset_cmd(va + 5 * SZ_4K + 64, 0x44, 64, 0);
	npu_expect_dma_faults(true);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 4, &seq));
	EXPECT_EQ(0, sync_report(self->fd, self->stream, seq - 3, &s));
	EXPECT_EQ(0U, s.error_seqno);
	EXPECT_EQ(0U, s.fault_addr);
	EXPECT_EQ(-EHWPOISON, sync_report(self->fd, self->stream, 0, &s));
	EXPECT_EQ(seq - 2, s.error_seqno);
	EXPECT_EQ(va + 5 * SZ_4K, s.fault_addr);
	EXPECT_EQ(NPU_FAULT_UCE, s.fault_flags);
	EXPECT_EQ(my_tid(), s.error_tid);
	/* the inputs come back as they were */
	EXPECT_EQ(sizeof(s), s.size);
	EXPECT_EQ(self->stream, s.stream);
	EXPECT_EQ(0U, s.seqno);
	/* the stream ran on */
	EXPECT_EQ(0x11, host[0]);
	EXPECT_EQ(0x33, host[128]);
	EXPECT_EQ(0, sync_report(self->fd, self->stream, 0, &s));
	EXPECT_EQ(0U, s.fault_flags);

	/* the 24-byte struct: the error, nothing written past it */
	memset(&old, 0x5a, sizeof(old));
	old.s.size = 24;
	old.s.flags = 0;
	old.s.stream = self->stream;
	old.s.timeout_ms = -1;
	old.s.seqno = 0;
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, &cmds[3], 1, &seq));
	EXPECT_EQ(-EHWPOISON, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, &old.s));
	npu_expect_dma_faults(false);
	EXPECT_EQ(24U, old.s.size);
	EXPECT_EQ(0U, old.s.seqno);
	EXPECT_EQ(-1, npu_check_byte(&old.s.error_seqno, 24, 0x5a));
	EXPECT_EQ(-1, npu_check_byte(old.canary, sizeof(old.canary), 0x5a));
	munmap(host, SZ_4K);
}

/*
 * In NPU_STREAM_STOP_ON_FAULT mode the bad page stops the stream as a
 * DMA fault does: -EHWPOISON with the outputs once, then -ECANCELED for
 * what was queued behind it and what comes later.
 */
TEST_F(uce, stop_on_fault_mode_stops_at_the_bad_page)
{
	uint64_t va = npu_map_new_rw(self->fd, SZ_2M, SZ_4K, 0);
	unsigned char *host = npu_host_mem(SZ_4K);
	struct npu_stream_sync s;
	struct npu_cmd cmds[3];
	uint64_t seq;

	ASSERT_NE(0, va);
	ASSERT_NONNULL(host);
	ASSERT_EQ(0, set_mode(self->fd, self->stream, NPU_STREAM_STOP_ON_FAULT));
	ASSERT_EQ(0, npu_poison(0, getpid(), va + SZ_4K));
	cmds[0] = npu_memset_cmd(ptr64(host), 0x11, 64, NPU_CMD_DST_USER);
	cmds[1] = npu_copy_cmd(va + SZ_4K + 512, ptr64(host), 64, NPU_CMD_SRC_USER);
	cmds[2] = npu_memset_cmd(ptr64(host) + 128, 0x33, 64, NPU_CMD_DST_USER);
	npu_expect_dma_faults(true);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 3, &seq));
	EXPECT_EQ(-EHWPOISON, sync_report(self->fd, self->stream, 0, &s));
	npu_expect_dma_faults(false);
	EXPECT_EQ(seq - 1, s.error_seqno);
	EXPECT_EQ(va + SZ_4K + 512, s.fault_addr);
	EXPECT_EQ(NPU_FAULT_UCE | NPU_FAULT_WRITE, s.fault_flags);
	EXPECT_EQ(my_tid(), s.error_tid);
	EXPECT_EQ(0x11, host[0]);
	EXPECT_EQ(0, host[128]);
	/* dropped commands name none */
	EXPECT_EQ(-ECANCELED, sync_report(self->fd, self->stream, 0, &s));
	EXPECT_EQ(JUNK64, s.error_seqno);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, &cmds[2], 1, &seq));
	EXPECT_EQ(-ECANCELED, npu_sync(self->fd, self->stream, -1));
	EXPECT_EQ(0, host[128]);
	munmap(host, SZ_4K);
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
