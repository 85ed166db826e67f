// SPDX-License-Identifier: GPL-2.0
/*
 * npu_peer_test: peer access between two NPUs - PEER_ENABLE and
 * PEER_DISABLE, and which mappings a peer's DMA engine reaches: those
 * that grant it with SET_ACCESS, and (since 1.3) every NPU_MAP_PEERS
 * mapping, without a grant. Skips without /dev/npu1.
 */
#include "harness.h"
#include "npu_util.h"

#define LEN	SZ_2M

FIXTURE(peer) {
	int fd[2];
	uint32_t stream;	/* on fd[0] */
	uint8_t *host;		/* LEN, registered on fd[0] */
};

FIXTURE_SETUP(peer)
{
	if (npu_device_count() < 2)
		SKIP(return, "needs two NPUs");
	for (int i = 0; i < 2; i++) {
		self->fd[i] = npu_open(i);
		ASSERT_LE(0, self->fd[i]);
	}
	ASSERT_EQ(0, npu_stream_create(self->fd[0], &self->stream));
	self->host = npu_host_mem(LEN);
	ASSERT_NONNULL(self->host);
	ASSERT_EQ(0, npu_register(self->fd[0], self->host, LEN, 0, 0));
}

FIXTURE_TEARDOWN(peer)
{
	npu_expect_dma_faults(false);
	if (npu_device_count() < 2)
		return;
	close(self->fd[0]);
	close(self->fd[1]);
}

static int peer_ioctl(int fd, unsigned long cmd, uint32_t device)
{
	struct npu_peer_enable p = { .size = sizeof(p), .device = device };

	return npu_ioctl(fd, cmd, &p);
}

/* LEN of device memory mapped on @fd with @flags, read-write for @dev. */
static uint64_t map_flags(int fd, uint32_t dev, uint32_t flags)
{
	uint64_t va = npu_reserve_new(fd, LEN, SZ_2M);
	struct npu_map m = { .size = sizeof(m), .flags = flags, .length = LEN };

	if (!va || npu_alloc(fd, LEN, SZ_2M, &m.handle))
		return 0;
	m.addr = va;
	if (npu_ioctl(fd, NPU_IOCTL_MAP, &m) || npu_free(fd, m.handle) ||
	    npu_set_access(fd, va, LEN, dev, NPU_ACCESS_READWRITE))
		return 0;
	return va;
}

/* A COPY on fd[0]'s stream with fd[1]'s side a peer operand. */
static struct npu_cmd peer_copy(int peer_fd, uint64_t dst, uint64_t src,
				uint32_t flags)
{
	struct npu_cmd c = npu_copy_cmd(dst, src, LEN, flags);

	c.value = peer_fd;
	return c;
}

/*
 * Host -> peer and peer -> host through fd[0]'s engine: 0 and the data
 * back, or the first error.
 */
static int round_trip(int fd0, uint32_t s, int fd1, uint8_t *host,
		      uint64_t peer_va, uint8_t seed)
{
	struct npu_cmd c;
	int ret;

	for (size_t i = 0; i < LEN; i++)
		host[i] = (uint8_t)(i * 7 + seed);
	/* host -> device 0's engine -> device 1's memory: two hops */
	c = peer_copy(fd1, peer_va, ptr64(host), NPU_CMD_DST_PEER |
		      NPU_CMD_SRC_HOST);
	ret = npu_run(fd0, s, c);
	if (ret)
		return ret;
	memset(host, 0, LEN);
	c = peer_copy(fd1, ptr64(host), peer_va, NPU_CMD_SRC_PEER |
		      NPU_CMD_DST_HOST);
	ret = npu_run(fd0, s, c);
	if (ret)
		return ret;
	for (size_t i = 0; i < LEN; i++) {
		if (host[i] != (uint8_t)(i * 7 + seed)) {
			TH_LOG("byte %zu is %#x", i, host[i]);
			return -EILSEQ;
		}
	}
	return 0;
}

/* An NPU_MAP_PEERS mapping: read and written by a peer with no grant. */
TEST_F(peer, map_peers_needs_no_grant)
{
	uint64_t va = map_flags(self->fd[1], 1, NPU_MAP_PEERS);
	uint32_t access = 99;

	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_get_access(self->fd[1], va, 0, &access));
	EXPECT_EQ(NPU_ACCESS_READWRITE, access);
	ASSERT_EQ(0, npu_get_access(self->fd[1], va, 1, &access));
	EXPECT_EQ(NPU_ACCESS_READWRITE, access);
	/* peer access must still be enabled */
	{
		struct npu_cmd c = peer_copy(self->fd[1], va, ptr64(self->host),
					     NPU_CMD_DST_PEER | NPU_CMD_SRC_HOST);

		EXPECT_EQ(-EPERM, npu_submit(self->fd[0], self->stream, &c, 1,
					     NULL));
	}
	ASSERT_EQ(0, peer_ioctl(self->fd[0], NPU_IOCTL_PEER_ENABLE, 1));
	EXPECT_EQ(0, round_trip(self->fd[0], self->stream,
				self->fd[1], self->host, va, 1));
	/* a grant of less changes nothing for such a mapping */
	ASSERT_EQ(0, npu_set_access(self->fd[1], va, LEN, 0, NPU_ACCESS_NONE));
	ASSERT_EQ(0, npu_get_access(self->fd[1], va, 0, &access));
	EXPECT_EQ(NPU_ACCESS_READWRITE, access);
	EXPECT_EQ(0, round_trip(self->fd[0], self->stream,
				self->fd[1], self->host, va, 2));
	/* the enable is per direction: device 1's engine cannot reach 0 */
	{
		uint64_t va0 = map_flags(self->fd[0], 0, NPU_MAP_PEERS);
		uint32_t s1;
		struct npu_cmd c = peer_copy(self->fd[0], va0, va,
					     NPU_CMD_DST_PEER);

		ASSERT_NE(0, va0);
		ASSERT_EQ(0, npu_stream_create(self->fd[1], &s1));
		EXPECT_EQ(-EPERM, npu_submit(self->fd[1], s1, &c, 1, NULL));
		ASSERT_EQ(0, peer_ioctl(self->fd[1], NPU_IOCTL_PEER_ENABLE, 0));
		EXPECT_EQ(0, npu_run(self->fd[1], s1, c));
	}
}

/* A mapping without the flag keeps the grant rule. */
TEST_F(peer, plain_mapping_needs_a_grant)
{
	uint64_t va = map_flags(self->fd[1], 1, 0);
	uint32_t access = 99;

	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_get_access(self->fd[1], va, 0, &access));
	EXPECT_EQ(NPU_ACCESS_NONE, access);
	ASSERT_EQ(0, peer_ioctl(self->fd[0], NPU_IOCTL_PEER_ENABLE, 1));
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, round_trip(self->fd[0], self->stream,
				   self->fd[1], self->host, va, 3));
	ASSERT_EQ(0, npu_set_access(self->fd[1], va, LEN, 0, NPU_ACCESS_READ));
	/* read-only for device 0: the write faults */
	EXPECT_EQ(-EIO, round_trip(self->fd[0], self->stream,
				   self->fd[1], self->host, va, 4));
	npu_expect_dma_faults(false);
	ASSERT_EQ(0, npu_set_access(self->fd[1], va, LEN, 0,
				    NPU_ACCESS_READWRITE));
	EXPECT_EQ(0, round_trip(self->fd[0], self->stream,
				self->fd[1], self->host, va, 5));
}

/*
 * PEER_DISABLE withdraws the enable: a submit naming the peer is refused
 * again, a queued peer command that runs afterwards faults, and enabling
 * again restores it.
 */
TEST_F(peer, disable_withdraws_the_enable)
{
	uint64_t va = map_flags(self->fd[1], 1, NPU_MAP_PEERS);
	uint64_t *flag = (uint64_t *)self->host;
	struct npu_cmd c[2];

	ASSERT_NE(0, va);
	EXPECT_EQ(-ENOENT, peer_ioctl(self->fd[0], NPU_IOCTL_PEER_DISABLE, 1));
	ASSERT_EQ(0, peer_ioctl(self->fd[0], NPU_IOCTL_PEER_ENABLE, 1));
	EXPECT_EQ(-EALREADY, peer_ioctl(self->fd[0], NPU_IOCTL_PEER_ENABLE, 1));
	EXPECT_EQ(0, round_trip(self->fd[0], self->stream,
				self->fd[1], self->host, va, 6));
	EXPECT_EQ(0, peer_ioctl(self->fd[0], NPU_IOCTL_PEER_DISABLE, 1));
	EXPECT_EQ(-ENOENT, peer_ioctl(self->fd[0], NPU_IOCTL_PEER_DISABLE, 1));
	c[0] = peer_copy(self->fd[1], va, ptr64(self->host),
			 NPU_CMD_DST_PEER | NPU_CMD_SRC_HOST);
	EXPECT_EQ(-EPERM, npu_submit(self->fd[0], self->stream, c, 1, NULL));

	/* queued while enabled, run after the disable */
	ASSERT_EQ(0, peer_ioctl(self->fd[0], NPU_IOCTL_PEER_ENABLE, 1));
	*flag = 0;
	c[0] = npu_value_cmd(NPU_OP_WAIT_VALUE, ptr64(flag), 1,
			     NPU_CMD_SRC_HOST | NPU_WAIT_EQ);
	c[1] = peer_copy(self->fd[1], va, ptr64(self->host + SZ_4K),
			 NPU_CMD_DST_PEER | NPU_CMD_SRC_HOST);
	c[1].length = SZ_4K;
	ASSERT_EQ(0, npu_submit(self->fd[0], self->stream, c, 2, NULL));
	EXPECT_EQ(0, peer_ioctl(self->fd[0], NPU_IOCTL_PEER_DISABLE, 1));
	npu_expect_dma_faults(true);
	__atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
	EXPECT_EQ(-EIO, npu_sync(self->fd[0], self->stream, -1));
	npu_expect_dma_faults(false);

	ASSERT_EQ(0, peer_ioctl(self->fd[0], NPU_IOCTL_PEER_ENABLE, 1));
	EXPECT_EQ(0, round_trip(self->fd[0], self->stream,
				self->fd[1], self->host, va, 7));
	/* each context has its own: a second one on device 0 has none */
	{
		int fd = npu_open(0);
		uint32_t s;

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, npu_stream_create(fd, &s));
		c[0] = peer_copy(self->fd[1], va, va, NPU_CMD_DST_PEER);
		EXPECT_EQ(-EPERM, npu_submit(fd, s, c, 1, NULL));
		EXPECT_EQ(-ENOENT, peer_ioctl(fd, NPU_IOCTL_PEER_DISABLE, 1));
		close(fd);
	}
}

/*
 * Mappings of 4 KiB handles in a row, each one a translation for a peer:
 * a big tree that takes its release a while to free.
 */
#define CLOSE_MAPS	2048
#define CLOSE_LEN	(CLOSE_MAPS * SZ_4K)
/*
 * Once the peer is closed each copy faults at its first page: many short
 * copies keep the engine translating through the peer's release.
 */
#define CLOSE_COPIES	NPU_SUBMIT_MAX_CMDS
#define CLOSE_SUBMITS	4

/*
 * @fd (npu1) gets CLOSE_MAPS mappings of one 4 KiB handle each, in a row,
 * read-write for every peer (NPU_MAP_PEERS): its tree of mappings is big,
 * and a copy through it translates once per page. 0 on failure.
 */
static uint64_t map_many(int fd)
{
	uint64_t va = npu_reserve_new(fd, CLOSE_LEN, SZ_2M);

	for (int i = 0; va && i < CLOSE_MAPS; i++) {
		struct npu_map m = {
			.size = sizeof(m), .flags = NPU_MAP_PEERS,
			.addr = va + i * SZ_4K, .length = SZ_4K,
		};

		/* the handles stay: the release frees the mappings fast */
		if (npu_alloc(fd, SZ_4K, SZ_4K, &m.handle) ||
		    npu_ioctl(fd, NPU_IOCTL_MAP, &m))
			return 0;
	}
	return va;
}

/*
 * Peer copies into a context that is being closed: the engine must not
 * read the peer's VA space while its release frees it (second kernel
 * review, finding 1: mtree_load() on a freed tree - KASAN on the debug
 * kernel, an oops and a hung submitter elsewhere). Each round queues
 * copies into a new context of npu1 and closes it at a different moment;
 * every copy either lands or faults (-EIO from the sync), and the
 * submitter's stream goes on working.
 */
TEST_F_TIMEOUT(peer, copies_into_a_context_being_closed, 240)
{
	static struct npu_cmd c[CLOSE_COPIES];
	int faulted = 0, landed = 0;

	ASSERT_EQ(0, peer_ioctl(self->fd[0], NPU_IOCTL_PEER_ENABLE, 1));
	npu_expect_dma_faults(true);
	for (int round = 0; round < 24; round++) {
		int fd1 = npu_open(1), ret;
		uint64_t va;

		ASSERT_LE(0, fd1);
		va = map_many(fd1);
		ASSERT_NE(0, va);
		/* 16 KiB at a time, all over the tree */
		for (int i = 0; i < CLOSE_COPIES; i++) {
			uint64_t pva = va + (i * 4 % CLOSE_MAPS) * SZ_4K;

			c[i] = peer_copy(fd1, pva, ptr64(self->host),
					 i & 1 ? NPU_CMD_SRC_PEER | NPU_CMD_DST_HOST :
						 NPU_CMD_DST_PEER | NPU_CMD_SRC_HOST);
			if (i & 1) {
				c[i].dst = ptr64(self->host);
				c[i].src = pva;
			}
			c[i].length = 4 * SZ_4K;
		}
		for (int k = 0; k < CLOSE_SUBMITS; k++)
			ASSERT_EQ(0, npu_submit(self->fd[0], self->stream, c,
						CLOSE_COPIES, NULL));
		/* from at once to well into the copies */
		usleep((round % 8) * 2000);
		ASSERT_EQ(0, close(fd1));
		ret = npu_sync(self->fd[0], self->stream, 60000);
		if (ret && ret != -EIO)
			TH_LOG("round %d: sync %d", round, ret);
		ASSERT_TRUE(ret == 0 || ret == -EIO);
		faulted += ret == -EIO;
		landed += ret == 0;
	}
	npu_expect_dma_faults(false);
	TH_LOG("%d rounds faulted, %d completed before the close", faulted, landed);
	/* the peer closed under the copies at least once */
	EXPECT_LT(0, faulted);
	{
		uint64_t va = map_flags(self->fd[1], 1, NPU_MAP_PEERS);

		ASSERT_NE(0, va);
		EXPECT_EQ(0, round_trip(self->fd[0], self->stream,
					self->fd[1], self->host, va, 8));
	}
}

TEST_F(peer, enable_disable_bad_inputs)
{
	struct npu_get_info info;

	ASSERT_EQ(0, npu_info(self->fd[0], &info));
	for (int i = 0; i < 2; i++) {
		unsigned long cmd = i ? NPU_IOCTL_PEER_DISABLE :
					NPU_IOCTL_PEER_ENABLE;

		EXPECT_EQ(-EINVAL, peer_ioctl(self->fd[0], cmd, 0));
		EXPECT_EQ(-ENODEV, peer_ioctl(self->fd[0], cmd, info.num_devices));
		EXPECT_EQ(-ENODEV, peer_ioctl(self->fd[0], cmd, 64));
		EXPECT_EQ(-ENODEV, peer_ioctl(self->fd[0], cmd, UINT32_MAX));
	}
}

TEST_HARNESS_MAIN
