// SPDX-License-Identifier: GPL-2.0
/*
 * npu_vm_test: device memory, VA reservations, mappings, access rights,
 * and the DMA engine's streams and faults, through the raw ioctls.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "harness.h"
#include "npu_cgroup.h"
#include "npu_util.h"

#define HOST_SIZE	(2 * SZ_2M)

/* Both fixtures: a context, a stream and a registered host buffer. */
#define VM_FIELDS							\
	int fd;								\
	uint32_t stream;						\
	uint64_t total;							\
	char *host

#define VM_SETUP() do {							\
	struct npu_get_info info;					\
									\
	self->fd = npu_open(0);						\
	ASSERT_LE(0, self->fd);						\
	ASSERT_EQ(0, npu_info(self->fd, &info));			\
	self->total = info.mem_total;					\
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->stream));	\
	self->host = npu_host_mem(HOST_SIZE);				\
	ASSERT_NONNULL(self->host);					\
	ASSERT_EQ(0, npu_register(self->fd, self->host, HOST_SIZE, 0, 0)); \
} while (0)

FIXTURE(vm) {
	VM_FIELDS;
};

FIXTURE_SETUP(vm)
{
	VM_SETUP();
}

FIXTURE_TEARDOWN(vm)
{
	npu_expect_dma_faults(false);
	close(self->fd);
}

/* The same, once per page size. */
FIXTURE(pages) {
	VM_FIELDS;
};

FIXTURE_VARIANT(pages) {
	uint64_t page;
	uint64_t len;
};

FIXTURE_VARIANT_ADD(pages, page4k) { .page = SZ_4K, .len = 64 * SZ_4K };
FIXTURE_VARIANT_ADD(pages, page2m) { .page = SZ_2M, .len = 2 * SZ_2M };
FIXTURE_VARIANT_ADD(pages, page1g) { .page = SZ_1G, .len = SZ_1G };

FIXTURE_SETUP(pages)
{
	VM_SETUP();
}

FIXTURE_TEARDOWN(pages)
{
	close(self->fd);
}

/* Allocate @len of device memory in @page pages and map it RW; returns VA. */
static uint64_t map_new(int fd, uint64_t len, uint64_t page, uint32_t *handle)
{
	uint64_t va = npu_reserve_new(fd, len, page);
	struct npu_get_info info;

	if (!va || npu_info(fd, &info) || npu_alloc(fd, len, page, handle) ||
	    npu_map(fd, va, len, *handle) ||
	    npu_set_access(fd, va, len, info.device_index,
			   NPU_ACCESS_READWRITE))
		return 0;
	return va;
}

/* Host -> device -> host through @va; true if the data came back. */
static bool round_trip(int fd, uint32_t stream, char *h, uint64_t va,
		       uint64_t len, int seed)
{
	for (uint64_t i = 0; i < len; i++)
		h[i] = (char)(i * 13 + seed);
	if (npu_run(fd, stream, npu_copy_cmd(va, ptr64(h), len,
					     NPU_CMD_SRC_HOST)))
		return false;
	memset(h, 0, len);
	if (npu_run(fd, stream, npu_copy_cmd(ptr64(h), va, len,
					     NPU_CMD_DST_HOST)))
		return false;
	for (uint64_t i = 0; i < len; i++)
		if (h[i] != (char)(i * 13 + seed))
			return false;
	return true;
}

TEST_F(pages, map_copy_unmap_free)
{
	uint64_t len = variant->len, va;
	uint32_t handle, access;
	struct npu_addr_query q;

	va = map_new(self->fd, len, variant->page, &handle);
	ASSERT_NE(0, va);
	EXPECT_EQ((long long)len, npu_mem_used(self->fd));
	/* Data at the start and at the end of the mapping. */
	uint64_t n = HOST_SIZE < len ? HOST_SIZE : len;

	EXPECT_TRUE(round_trip(self->fd, self->stream, self->host, va, n, 1));
	EXPECT_TRUE(round_trip(self->fd, self->stream, self->host,
			       va + len - n, n, 2));
	ASSERT_EQ(0, npu_get_access(self->fd, va, 0, &access));
	EXPECT_EQ(NPU_ACCESS_READWRITE, access);
	ASSERT_EQ(0, npu_query(self->fd, va + len - 1, &q));
	EXPECT_EQ(NPU_ADDR_DEVICE, q.kind);
	EXPECT_EQ(va, q.base);
	EXPECT_EQ(len, q.length);
	EXPECT_EQ(1, q.mapped);
	EXPECT_EQ(variant->page, q.page_size);
	EXPECT_EQ(NPU_ACCESS_READWRITE, q.access);

	EXPECT_EQ(0, npu_unmap(self->fd, va));
	EXPECT_EQ(0, npu_release(self->fd, va));
	EXPECT_EQ(0, npu_free(self->fd, handle));
	EXPECT_EQ(0, npu_mem_used(self->fd));
}

/* Freed device memory reads back as zeros for its next owner. */
TEST_F(pages, memory_is_zeroed_before_reuse)
{
	uint64_t len = variant->page == SZ_1G ? SZ_2M : variant->len, va;
	uint64_t page = variant->page == SZ_1G ? SZ_2M : variant->page;
	uint32_t handle;
	char *h = self->host;

	va = map_new(self->fd, len, page, &handle);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(va, 0xee, len, 0)));
	ASSERT_EQ(0, npu_unmap(self->fd, va));
	ASSERT_EQ(0, npu_free(self->fd, handle));
	/* The same size again lands on the same (lowest) addresses. */
	ASSERT_EQ(0, npu_alloc(self->fd, len, page, &handle));
	ASSERT_EQ(0, npu_map(self->fd, va, len, handle));
	ASSERT_EQ(0, npu_set_access(self->fd, va, len, 0, NPU_ACCESS_READ));
	memset(h, 0x11, HOST_SIZE);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(ptr64(h), va, len < HOST_SIZE ? len : HOST_SIZE,
					  NPU_CMD_DST_HOST)));
	for (uint64_t i = 0; i < (len < HOST_SIZE ? len : HOST_SIZE); i++)
		ASSERT_EQ(0, h[i]);
}

/* A small deterministic generator, so a failing case can be replayed. */
static uint64_t rnd_next(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state >> 33;
}

/* Submit @n commands in batches of NPU_SUBMIT_MAX_CMDS and wait for all. */
static int run_cmds(int fd, uint32_t stream, struct npu_cmd *cmds, uint32_t n)
{
	for (uint32_t i = 0; i < n; i += NPU_SUBMIT_MAX_CMDS) {
		uint32_t k = n - i < NPU_SUBMIT_MAX_CMDS ? n - i : NPU_SUBMIT_MAX_CMDS;
		int ret = npu_submit(fd, stream, cmds + i, k, NULL);

		if (ret)
			return ret;
	}
	return npu_sync(fd, stream, -1);
}

/*
 * Compare @len bytes at window offset @off with @model, reading them back
 * in pieces of @piece bytes, HOST_SIZE at a time; returns the first
 * differing window offset, -1 if none, -2 if a read failed.
 */
static long long check_window(int fd, uint32_t stream, char *h, uint64_t va,
			      const char *model, uint64_t off, uint64_t len,
			      uint64_t piece)
{
	static struct npu_cmd cmds[HOST_SIZE / SZ_4K + 1];

	while (len) {
		uint64_t n = len < HOST_SIZE ? len : HOST_SIZE, pos = 0;
		uint32_t k = 0;

		memset(h, 0xa5, n);
		while (pos < n) {
			uint64_t m = n - pos < piece ? n - pos : piece;

			cmds[k++] = npu_copy_cmd(ptr64(h + pos), va + off + pos,
						 m, NPU_CMD_DST_HOST);
			pos += m;
		}
		if (run_cmds(fd, stream, cmds, k))
			return -2;
		for (uint64_t i = 0; i < n; i++)
			if (h[i] != model[off + i])
				return (long long)(off + i);
		off += n;
		len -= n;
	}
	return -1;
}

/*
 * Integrity against a model of the whole window: host-to-device writes and
 * device-to-device copies of odd lengths at odd offsets that cross pages,
 * 2 MiB granules and (for 1 GiB pages) the rotated backing inside them,
 * then reads page by page and at other offsets and lengths than the
 * writes. A round trip at the offset written hides a misplaced page; a
 * comparison with the model does not. For 1 GiB pages two 8 MiB windows
 * are modelled: the first and the last of the handle.
 */
TEST_F(pages, integrity_against_a_model)
{
	static const struct { uint64_t off, len; } fixed[] = {
		{ SZ_2M - SZ_4K, 2 * SZ_4K },		/* the reviewer's case */
		{ SZ_2M - 1, 2 },
		{ 3 * SZ_2M / 2 + 5, SZ_2M + 3 * SZ_4K },
		{ SZ_4K - 7, 5 * SZ_4K + 14 },
	};
	uint64_t len = variant->len, win = len < 4 * SZ_2M ? len : 4 * SZ_2M;
	uint64_t seed = 0x9e3779b97f4a7c15ULL ^ variant->page, va, st = seed;
	char *h = self->host, *model = malloc(win);
	uint64_t bases[2] = { 0, len - win };
	uint32_t handle;
	long long bad;

	ASSERT_NONNULL(model);
	va = map_new(self->fd, len, variant->page, &handle);
	ASSERT_NE(0, va);
	printf("# seed %#llx, window %llu KiB\n", (unsigned long long)seed,
	       (unsigned long long)(win >> 10));
	for (int w = 0; w < (len > win ? 2 : 1); w++) {
		uint64_t base = va + bases[w];

		/* Fresh memory reads as zeros, as the model starts. */
		memset(model, 0, win);
		bad = check_window(self->fd, self->stream, h, base, model, 0,
				   win, SZ_4K);
		ASSERT_EQ(-1, bad);
		for (int op = 0; op < 48; op++) {
			uint64_t off, n, src;

			if (op < (int)(sizeof(fixed) / sizeof(fixed[0]))) {
				off = fixed[op].off % win;
				n = fixed[op].len;
			} else {
				off = rnd_next(&st) % win;
				n = 1 + rnd_next(&st) % (HOST_SIZE - 1);
			}
			if (n > win - off)
				n = win - off;
			if (op % 3 != 2) {
				for (uint64_t i = 0; i < n; i++)
					h[i] = (char)rnd_next(&st);
				ASSERT_EQ(0, npu_run(self->fd, self->stream,
						     npu_copy_cmd(base + off, ptr64(h), n,
								  NPU_CMD_SRC_HOST)));
				memcpy(model + off, h, n);
				continue;
			}
			/* A device-to-device copy to a disjoint range. */
			src = rnd_next(&st) % win;
			if (n > win - src)
				n = win - src;
			if (src < off + n && off < src + n)
				continue;
			ASSERT_EQ(0, npu_run(self->fd, self->stream,
					     npu_copy_cmd(base + off, base + src, n, 0)));
			memmove(model + off, model + src, n);
		}
		/* Page by page, then at an odd split and offset. */
		bad = check_window(self->fd, self->stream, h, base, model, 0,
				   win, SZ_4K);
		if (bad >= 0)
			printf("# window %d: page-wise read differs at %#llx\n", w, bad);
		ASSERT_EQ(-1, bad);
		bad = check_window(self->fd, self->stream, h, base, model, 1234,
				   win - 1234, 3 * SZ_4K + 17);
		if (bad >= 0)
			printf("# window %d: odd read differs at %#llx\n", w, bad);
		ASSERT_EQ(-1, bad);
	}
	free(model);
	EXPECT_EQ(0, npu_unmap(self->fd, va));
	EXPECT_EQ(0, npu_free(self->fd, handle));
}

TEST_F(vm, alloc_bad_inputs)
{
	uint32_t handle;

	EXPECT_EQ(-EINVAL, npu_alloc(self->fd, 0, SZ_2M, &handle));
	EXPECT_EQ(-EINVAL, npu_alloc(self->fd, SZ_2M + SZ_4K, SZ_2M, &handle));
	EXPECT_EQ(-EINVAL, npu_alloc(self->fd, SZ_2M, 8192, &handle));
	EXPECT_EQ(-EINVAL, npu_alloc(self->fd, SZ_2M, 0, &handle));
	EXPECT_EQ(-EINVAL, npu_alloc(self->fd, SZ_2M, SZ_2M | SZ_4K, &handle));
	EXPECT_EQ(-ENOMEM, npu_alloc(self->fd, self->total + SZ_1G, SZ_1G,
				     &handle));
	EXPECT_EQ(-ENOENT, npu_free(self->fd, 0));
	EXPECT_EQ(-ENOENT, npu_free(self->fd, 12345));
	ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &handle));
	EXPECT_EQ(0, npu_free(self->fd, handle));
	EXPECT_EQ(-ENOENT, npu_free(self->fd, handle));
	EXPECT_EQ(0, npu_mem_used(self->fd));
}

TEST_F(vm, exhaust_device_memory)
{
	uint32_t handles[1024];
	unsigned int n = 0;
	int ret;

	/* Fill it with 1 GiB then 2 MiB handles until it says no. */
	while (n < 1024 &&
	       !(ret = npu_alloc(self->fd, SZ_1G, SZ_1G, &handles[n])))
		n++;
	EXPECT_EQ(-ENOMEM, ret);
	while (n < 1024 &&
	       !(ret = npu_alloc(self->fd, SZ_2M, SZ_2M, &handles[n])))
		n++;
	EXPECT_EQ(-ENOMEM, ret);
	EXPECT_EQ((long long)self->total, npu_mem_used(self->fd));
	while (n)
		EXPECT_EQ(0, npu_free(self->fd, handles[--n]));
	EXPECT_EQ(0, npu_mem_used(self->fd));
}

TEST_F(vm, reserve_bad_inputs)
{
	uint64_t va = npu_hole(4 * SZ_2M, SZ_2M);

	ASSERT_NE(0, va);
	EXPECT_EQ(-EINVAL, npu_reserve(self->fd, va, 0));
	EXPECT_EQ(-EINVAL, npu_reserve(self->fd, va + 1, SZ_2M));
	EXPECT_EQ(-EINVAL, npu_reserve(self->fd, va, SZ_2M + 1));
	EXPECT_EQ(-EINVAL, npu_reserve(self->fd, -SZ_2M, 2 * SZ_2M));
	EXPECT_EQ(-EINVAL, npu_reserve(self->fd, 0, SZ_2M));
	EXPECT_EQ(-EINVAL, npu_reserve(self->fd, SZ_4K, SZ_4K));
	EXPECT_EQ(-EINVAL, npu_reserve(self->fd, (1ULL << 47) - SZ_2M,
				       2 * SZ_2M));
	ASSERT_EQ(0, npu_reserve(self->fd, va, 2 * SZ_2M));
	EXPECT_EQ(-EADDRINUSE, npu_reserve(self->fd, va, 2 * SZ_2M));
	EXPECT_EQ(-EADDRINUSE, npu_reserve(self->fd, va + SZ_2M, 2 * SZ_2M));
	EXPECT_EQ(-EADDRINUSE, npu_reserve(self->fd, va - SZ_2M, 2 * SZ_2M));
	EXPECT_EQ(0, npu_reserve(self->fd, va + 2 * SZ_2M, SZ_2M));
	EXPECT_EQ(-ENOENT, npu_release(self->fd, va + SZ_4K));
	EXPECT_EQ(0, npu_release(self->fd, va));
	EXPECT_EQ(-ENOENT, npu_release(self->fd, va));
	EXPECT_EQ(0, npu_release(self->fd, va + 2 * SZ_2M));
}

TEST_F(vm, map_bad_inputs)
{
	uint64_t va = npu_reserve_new(self->fd, 4 * SZ_2M, SZ_2M);
	uint64_t other = npu_hole(2 * SZ_2M, SZ_2M);
	struct npu_map m = { .size = sizeof(m) };
	uint32_t handle, h2;

	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_alloc(self->fd, 2 * SZ_2M, SZ_2M, &handle));
	ASSERT_EQ(0, npu_alloc(self->fd, 2 * SZ_2M, SZ_2M, &h2));
	/* Size must be the handle's, offset 0, address aligned to its page. */
	EXPECT_EQ(-EINVAL, npu_map(self->fd, va, SZ_2M, handle));
	EXPECT_EQ(-EINVAL, npu_map(self->fd, va, 4 * SZ_2M, handle));
	EXPECT_EQ(-EINVAL, npu_map(self->fd, va + SZ_4K, 2 * SZ_2M, handle));
	m.addr = va;
	m.length = 2 * SZ_2M;
	m.handle = handle;
	m.offset = SZ_2M;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MAP, &m));
	m.offset = 0;
	m.__reserved = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MAP, &m));
	m.__reserved = 0;
	/* NPU_MAP_PEERS is the one flag. */
	m.flags = NPU_MAP_PEERS << 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MAP, &m));
	m.flags = NPU_MAP_PEERS | 1U << 31;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MAP, &m));
	/* Unknown handle, unreserved VA, running past the reservation. */
	EXPECT_EQ(-ENOENT, npu_map(self->fd, va, 2 * SZ_2M, 999));
	EXPECT_EQ(-ENOENT, npu_map(self->fd, other, 2 * SZ_2M, handle));
	EXPECT_EQ(-ENOENT, npu_map(self->fd, va + 3 * SZ_2M, 2 * SZ_2M,
				   handle));
	/* Overlaps. */
	ASSERT_EQ(0, npu_map(self->fd, va, 2 * SZ_2M, handle));
	EXPECT_EQ(-EADDRINUSE, npu_map(self->fd, va, 2 * SZ_2M, h2));
	EXPECT_EQ(-EADDRINUSE, npu_map(self->fd, va + SZ_2M, 2 * SZ_2M, h2));
	EXPECT_EQ(0, npu_map(self->fd, va + 2 * SZ_2M, 2 * SZ_2M, h2));
	/* Release while mapped; unmap of an inner address; double unmap. */
	EXPECT_EQ(-EBUSY, npu_release(self->fd, va));
	EXPECT_EQ(-ENOENT, npu_unmap(self->fd, va + SZ_2M));
	EXPECT_EQ(0, npu_unmap(self->fd, va));
	EXPECT_EQ(-ENOENT, npu_unmap(self->fd, va));
	EXPECT_EQ(0, npu_unmap(self->fd, va + 2 * SZ_2M));
	EXPECT_EQ(0, npu_release(self->fd, va));
	EXPECT_EQ(0, npu_free(self->fd, handle));
	EXPECT_EQ(0, npu_free(self->fd, h2));
	EXPECT_EQ(0, npu_mem_used(self->fd));
}

/* One handle may be mapped twice; both views see the same bytes. */
TEST_F(vm, handle_mapped_twice)
{
	uint64_t a = npu_reserve_new(self->fd, SZ_2M, SZ_2M);
	uint64_t b = npu_reserve_new(self->fd, SZ_2M, SZ_2M);
	uint32_t handle;

	ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &handle));
	ASSERT_EQ(0, npu_map(self->fd, a, SZ_2M, handle));
	ASSERT_EQ(0, npu_map(self->fd, b, SZ_2M, handle));
	ASSERT_EQ(0, npu_set_access(self->fd, a, SZ_2M, 0, NPU_ACCESS_READWRITE));
	ASSERT_EQ(0, npu_set_access(self->fd, b, SZ_2M, 0, NPU_ACCESS_READ));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(a, 0x3c, SZ_2M, 0)));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(ptr64(self->host), b + SZ_2M - 4096,
					  4096, NPU_CMD_DST_HOST)));
	EXPECT_EQ(0x3c, self->host[0]);
	EXPECT_EQ(0x3c, self->host[4095]);
	EXPECT_EQ(0, npu_free(self->fd, handle));
	EXPECT_EQ(0, npu_unmap(self->fd, a));
	EXPECT_EQ((long long)SZ_2M, npu_mem_used(self->fd));
	EXPECT_EQ(0, npu_unmap(self->fd, b));
	EXPECT_EQ(0, npu_mem_used(self->fd));
}

/* FreePhysical of a mapped handle: the memory lives until the unmap. */
TEST_F(vm, free_while_mapped)
{
	uint32_t handle;
	uint64_t va = map_new(self->fd, 2 * SZ_2M, SZ_2M, &handle);

	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_free(self->fd, handle));
	EXPECT_EQ((long long)(2 * SZ_2M), npu_mem_used(self->fd));
	EXPECT_TRUE(round_trip(self->fd, self->stream, self->host, va,
			       HOST_SIZE, 3));
	EXPECT_EQ(-ENOENT, npu_free(self->fd, handle));
	EXPECT_EQ(0, npu_unmap(self->fd, va));
	EXPECT_EQ(0, npu_mem_used(self->fd));
}

TEST_F(vm, access_bad_inputs)
{
	uint32_t h1, h2, access = 77;
	uint64_t va = npu_reserve_new(self->fd, 4 * SZ_2M, SZ_2M);

	ASSERT_EQ(0, npu_alloc(self->fd, 2 * SZ_2M, SZ_2M, &h1));
	ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &h2));
	ASSERT_EQ(0, npu_map(self->fd, va, 2 * SZ_2M, h1));
	ASSERT_EQ(0, npu_map(self->fd, va + 2 * SZ_2M, SZ_2M, h2));
	/* A new mapping grants nothing. */
	ASSERT_EQ(0, npu_get_access(self->fd, va, 0, &access));
	EXPECT_EQ(NPU_ACCESS_NONE, access);
	EXPECT_EQ(-EINVAL, npu_set_access(self->fd, va, 2 * SZ_2M, 0, 2));
	EXPECT_EQ(-EINVAL, npu_set_access(self->fd, va, 2 * SZ_2M, 0, 7));
	EXPECT_EQ(-EINVAL, npu_set_access(self->fd, va, 0, 0, 1));
	EXPECT_EQ(-EINVAL, npu_set_access(self->fd, va + 1, SZ_2M, 0, 1));
	EXPECT_EQ(-ENODEV, npu_set_access(self->fd, va, 2 * SZ_2M,
					  npu_device_count(), 1));
	/* Unmapped bytes in the range; a range cutting a mapping. */
	EXPECT_EQ(-ENOENT, npu_set_access(self->fd, va, 4 * SZ_2M, 0, 1));
	EXPECT_EQ(-EINVAL, npu_set_access(self->fd, va, SZ_2M, 0, 1));
	EXPECT_EQ(-EINVAL, npu_set_access(self->fd, va + SZ_2M, 2 * SZ_2M,
					  0, 1));
	/* Nothing changed by the refusals. */
	ASSERT_EQ(0, npu_get_access(self->fd, va + 2 * SZ_2M, 0, &access));
	EXPECT_EQ(NPU_ACCESS_NONE, access);
	/* Two whole mappings at once. */
	EXPECT_EQ(0, npu_set_access(self->fd, va, 3 * SZ_2M, 0,
				    NPU_ACCESS_READ));
	ASSERT_EQ(0, npu_get_access(self->fd, va + 2 * SZ_2M, 0, &access));
	EXPECT_EQ(NPU_ACCESS_READ, access);
	EXPECT_EQ(-ENOENT, npu_get_access(self->fd, va + 3 * SZ_2M, 0, &access));
	EXPECT_EQ(-ENODEV, npu_get_access(self->fd, va, npu_device_count(),
					  &access));
	EXPECT_EQ(0, npu_unmap(self->fd, va));
	EXPECT_EQ(-ENOENT, npu_set_access(self->fd, va, 2 * SZ_2M, 0, 1));
}

/* The MMU enforces the access flags: a write through READ faults. */
TEST_F(vm, access_is_enforced)
{
	uint32_t handle;
	uint64_t va = map_new(self->fd, SZ_2M, SZ_2M, &handle);
	char *h = self->host;

	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(va, 0x42, SZ_2M, 0)));
	ASSERT_EQ(0, npu_set_access(self->fd, va, SZ_2M, 0, NPU_ACCESS_READ));
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				npu_memset_cmd(va, 0x99, SZ_2M, 0)));
	memset(h, 0x99, 4096);
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				npu_copy_cmd(va, ptr64(h), 4096,
					     NPU_CMD_SRC_HOST)));
	/* NONE: not even a read. */
	ASSERT_EQ(0, npu_set_access(self->fd, va, SZ_2M, 0, NPU_ACCESS_NONE));
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				npu_copy_cmd(ptr64(h), va, 4096,
					     NPU_CMD_DST_HOST)));
	npu_expect_dma_faults(false);
	/* Nothing was written by the faulting commands. */
	ASSERT_EQ(0, npu_set_access(self->fd, va, SZ_2M, 0, NPU_ACCESS_READ));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(ptr64(h), va, 4096, NPU_CMD_DST_HOST)));
	for (int i = 0; i < 4096; i++)
		ASSERT_EQ(0x42, h[i]);
}

TEST_F(vm, unmapped_address_faults)
{
	uint64_t va = npu_reserve_new(self->fd, SZ_2M, SZ_2M);
	uint64_t seq;
	struct npu_cmd cmds[2];

	ASSERT_NE(0, va);
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				npu_memset_cmd(va, 1, 4096, 0)));
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				npu_memset_cmd(0x1000, 1, 4096, 0)));
	/* Beyond what four levels translate. */
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				npu_memset_cmd(1ULL << 60, 1, 4096, 0)));
	/* A wrapping range never reaches the engine. */
	EXPECT_EQ(-EINVAL, npu_run(self->fd, self->stream,
				   npu_memset_cmd(-4096ULL, 1, 4096, 0)));
	/* The fault is reported once; the stream goes on. */
	cmds[0] = npu_memset_cmd(va, 1, 4096, 0);
	cmds[1] = npu_memset_cmd(ptr64(self->host), 7, 4096, NPU_CMD_DST_HOST);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 2, &seq));
	EXPECT_EQ(-EIO, npu_sync(self->fd, self->stream, -1));
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, -1));
	npu_expect_dma_faults(false);
	EXPECT_EQ(7, self->host[4095]);
}

/* A copy crossing from a mapping into a hole faults at the hole. */
TEST_F(vm, copy_running_off_a_mapping_faults)
{
	uint64_t va = npu_reserve_new(self->fd, 2 * SZ_2M, SZ_2M);
	uint32_t handle;

	ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &handle));
	ASSERT_EQ(0, npu_map(self->fd, va, SZ_2M, handle));
	ASSERT_EQ(0, npu_set_access(self->fd, va, SZ_2M, 0, NPU_ACCESS_READWRITE));
	memset(self->host, 0x5e, 8192);
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				npu_copy_cmd(va + SZ_2M - 4096, ptr64(self->host),
					     8192, NPU_CMD_SRC_HOST)));
	npu_expect_dma_faults(false);
	/* The part inside the mapping was written before the fault. */
	memset(self->host, 0, 8192);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(ptr64(self->host), va + SZ_2M - 4096,
					  4096, NPU_CMD_DST_HOST)));
	EXPECT_EQ(0x5e, self->host[0]);
}

/* Device-to-device copies, crossing page and leaf boundaries. */
TEST_F(vm, d2d_copy)
{
	uint32_t h1, h2;
	uint64_t src = map_new(self->fd, 2 * SZ_2M, SZ_2M, &h1);
	uint64_t dst = map_new(self->fd, 64 * SZ_4K, SZ_4K, &h2);
	char *h = self->host;

	ASSERT_NE(0, src);
	ASSERT_NE(0, dst);
	for (uint64_t i = 0; i < HOST_SIZE; i++)
		h[i] = (char)(i * 7);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(src + SZ_2M - 100000, ptr64(h), 200000,
					  NPU_CMD_SRC_HOST)));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(dst + 123, src + SZ_2M - 100000,
					  200000, 0)));
	memset(h, 0, HOST_SIZE);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(ptr64(h), dst + 123, 200000,
					  NPU_CMD_DST_HOST)));
	for (int i = 0; i < 200000; i++)
		ASSERT_EQ((char)(i * 7), h[i]);
}

static char pattern(uint64_t i)
{
	return (char)(i * 31 + (i >> 12));
}

/*
 * Long device-to-device copies between 2 MiB-page handles, at offsets that
 * are word-aligned but not block-aligned and at odd ones, with tails, and
 * across 2 MiB backing pages (whose device pages are rotated): what the
 * engine moves in 64-byte blocks and byte-wise must all land, and nothing
 * next to the range.
 */
TEST_F(vm, d2d_copy_long_runs)
{
	static const struct { uint64_t src, dst, len; } cases[] = {
		{ 8, SZ_2M - 4096 - 24, 3 * SZ_2M / 2 + 77 },	/* words */
		{ 5, SZ_2M - 1000, 3 * SZ_2M / 2 + 3 },		/* bytes */
		{ 0, SZ_2M, 3 * SZ_2M / 2 },			/* whole pages */
	};
	uint32_t h1, h2;
	uint64_t src = map_new(self->fd, 4 * SZ_2M, SZ_2M, &h1);
	uint64_t dst = map_new(self->fd, 4 * SZ_2M, SZ_2M, &h2);
	char *h = self->host;

	ASSERT_NE(0, src);
	ASSERT_NE(0, dst);
	for (uint64_t i = 0; i < HOST_SIZE; i++)
		h[i] = pattern(i);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(src, ptr64(h), HOST_SIZE, NPU_CMD_SRC_HOST)));
	for (unsigned int c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t s = cases[c].src, d = cases[c].dst, len = cases[c].len;

		ASSERT_EQ(0, npu_run(self->fd, self->stream,
				     npu_memset_cmd(dst, 0, 4 * SZ_2M, 0)));
		ASSERT_EQ(0, npu_run(self->fd, self->stream,
				     npu_copy_cmd(dst + d, src + s, len, 0)));
		/* Read back with 64 bytes of margin on either side. */
		memset(h, 0x77, HOST_SIZE);
		ASSERT_EQ(0, npu_run(self->fd, self->stream,
				     npu_copy_cmd(ptr64(h), dst + d - 64, len + 128,
						  NPU_CMD_DST_HOST)));
		for (uint64_t i = 0; i < 64; i++) {
			ASSERT_EQ(0, h[i]);
			ASSERT_EQ(0, h[64 + len + i]);
		}
		for (uint64_t i = 0; i < len; i++)
			ASSERT_EQ(pattern(s + i), h[64 + i]);
	}
}

TEST_F(vm, write_and_wait_value)
{
	uint32_t handle, s2;
	uint64_t va = map_new(self->fd, SZ_2M, SZ_2M, &handle);

	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_stream_create(self->fd, &s2));
	/* s2 waits for the value s1 writes later. */
	struct npu_cmd wait = npu_value_cmd(NPU_OP_WAIT_VALUE, va + 8, 5,
					NPU_WAIT_EQ);
	ASSERT_EQ(0, npu_submit(self->fd, s2, &wait, 1, NULL));
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, s2, 50));
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, s2, 0));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_value_cmd(NPU_OP_WRITE_VALUE, va + 8, 5, 0)));
	EXPECT_EQ(0, npu_sync(self->fd, s2, 5000));
	/* GEQ, AND and NOR conditions on the value now there. */
	EXPECT_EQ(0, npu_run(self->fd, s2, npu_value_cmd(NPU_OP_WAIT_VALUE, va + 8,
						     3, NPU_WAIT_GEQ)));
	EXPECT_EQ(0, npu_run(self->fd, s2, npu_value_cmd(NPU_OP_WAIT_VALUE, va + 8,
						     4, NPU_WAIT_AND)));
	EXPECT_EQ(0, npu_run(self->fd, s2, npu_value_cmd(NPU_OP_WAIT_VALUE, va + 8,
						     2, NPU_WAIT_NOR)));
	/* A host value written by the device. */
	EXPECT_EQ(0, npu_run(self->fd, s2,
			     npu_value_cmd(NPU_OP_WRITE_VALUE, ptr64(self->host),
				       0x1122334455667788ULL, NPU_CMD_DST_HOST)));
	EXPECT_EQ(0x1122334455667788ULL, *(uint64_t *)self->host);
	EXPECT_EQ(0, npu_stream_destroy(self->fd, s2, 0));
}

TEST_F(vm, wait_stream_orders_streams)
{
	uint32_t handle, s2;
	uint64_t va = map_new(self->fd, SZ_2M, SZ_2M, &handle), seq;
	struct npu_cmd cmds[2];

	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_stream_create(self->fd, &s2));
	/* s1: wait for a value, then write 1; s2: wait for s1, then copy. */
	cmds[0] = npu_value_cmd(NPU_OP_WAIT_VALUE, va, 1, NPU_WAIT_EQ);
	cmds[1] = npu_memset_cmd(va + 4096, 0x61, 4096, 0);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, 2, &seq));
	cmds[0] = (struct npu_cmd){ .op = NPU_OP_WAIT_STREAM,
				    .src = self->stream, .value = seq };
	cmds[1] = npu_copy_cmd(ptr64(self->host), va + 4096, 4096,
			       NPU_CMD_DST_HOST);
	ASSERT_EQ(0, npu_submit(self->fd, s2, cmds, 2, NULL));
	EXPECT_EQ(-ETIMEDOUT, npu_sync(self->fd, s2, 50));
	EXPECT_EQ(0, self->host[0]);
	/* A third stream releases the first. */
	uint32_t s3;

	ASSERT_EQ(0, npu_stream_create(self->fd, &s3));
	ASSERT_EQ(0, npu_run(self->fd, s3,
			     npu_value_cmd(NPU_OP_WRITE_VALUE, va, 1, 0)));
	EXPECT_EQ(0, npu_sync(self->fd, s2, 5000));
	EXPECT_EQ(0x61, self->host[0]);
}

TEST_F(vm, stream_bad_inputs)
{
	struct npu_cmd c = npu_memset_cmd(ptr64(self->host), 1, 4096,
					  NPU_CMD_DST_HOST);
	struct npu_stream_sync sync = { .size = sizeof(sync),
					.stream = self->stream };
	struct npu_cmd many[NPU_SUBMIT_MAX_CMDS + 1];
	char *plain = npu_host_mem(SZ_4K);

	EXPECT_EQ(-ENOENT, npu_submit(self->fd, 999, &c, 1, NULL));
	EXPECT_EQ(-ENOENT, npu_sync(self->fd, 999, 0));
	EXPECT_EQ(-ENOENT, npu_stream_destroy(self->fd, 999, 0));
	EXPECT_EQ(-EINVAL, npu_stream_destroy(self->fd, self->stream, 2));
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 0, NULL));
	for (int i = 0; i <= NPU_SUBMIT_MAX_CMDS; i++)
		many[i] = c;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, many,
				      NPU_SUBMIT_MAX_CMDS + 1, NULL));
	EXPECT_EQ(0, npu_submit(self->fd, self->stream, many,
				NPU_SUBMIT_MAX_CMDS, NULL));
	EXPECT_EQ(-EFAULT, npu_submit(self->fd, self->stream,
				      (struct npu_cmd *)8, 1, NULL));
	/* Each command's own rules. */
	c.op = 0;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c.op = 99;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = npu_memset_cmd(ptr64(self->host), 1, 4096, NPU_CMD_DST_HOST);
	c.value = 256;
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = npu_memset_cmd(ptr64(self->host), 1, 0, NPU_CMD_DST_HOST);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = npu_memset_cmd(ptr64(self->host), 1, 4096, 1U << 7);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = npu_copy_cmd(-4096ULL, 0x10000, 8192, 0);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = npu_value_cmd(NPU_OP_WRITE_VALUE, ptr64(self->host) + 4, 1,
		      NPU_CMD_DST_HOST);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = npu_value_cmd(NPU_OP_WAIT_VALUE, ptr64(self->host) + 4, 1,
		      NPU_CMD_SRC_HOST);
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = (struct npu_cmd){ .op = NPU_OP_WAIT_STREAM, .src = self->stream };
	EXPECT_EQ(-EINVAL, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c.src = 999;
	EXPECT_EQ(-ENOENT, npu_submit(self->fd, self->stream, &c, 1, NULL));
	/* Host operands must lie in one registration. */
	c = npu_memset_cmd(ptr64(plain), 1, 4096, NPU_CMD_DST_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));
	c = npu_memset_cmd(ptr64(self->host) + HOST_SIZE - 4096, 1, 8192,
			   NPU_CMD_DST_HOST);
	EXPECT_EQ(-ENXIO, npu_submit(self->fd, self->stream, &c, 1, NULL));
	/* Sync: a seqno not yet submitted, a bad timeout, flags. */
	sync.seqno = 1ULL << 40;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, &sync));
	sync.seqno = 0;
	sync.timeout_ms = -2;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, &sync));
	sync.timeout_ms = 0;
	sync.flags = 1;
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_STREAM_SYNC, &sync));
	EXPECT_EQ(0, npu_sync(self->fd, self->stream, -1));
}

/* DestroyForce drops queued work that would never finish. */
TEST_F(vm, destroy_force_aborts)
{
	uint32_t handle, s2;
	uint64_t va = map_new(self->fd, SZ_2M, SZ_2M, &handle);
	struct npu_cmd cmds[2] = {
		npu_value_cmd(NPU_OP_WAIT_VALUE, va, 1, NPU_WAIT_EQ),
		npu_memset_cmd(ptr64(self->host), 9, 4096, NPU_CMD_DST_HOST),
	};

	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_stream_create(self->fd, &s2));
	ASSERT_EQ(0, npu_submit(self->fd, s2, cmds, 2, NULL));
	EXPECT_EQ(0, npu_stream_destroy(self->fd, s2, NPU_STREAM_DESTROY_FORCE));
	EXPECT_EQ(-ENOENT, npu_sync(self->fd, s2, 0));
	EXPECT_EQ(0, self->host[0]);
	/* The registration the dropped command held is free again. */
	EXPECT_EQ(0, npu_unregister(self->fd, self->host));
}

/* A process that exits with mappings and DMA in flight leaves nothing. */
/* Stream ids are allocated cyclically: a destroyed stream's id stays dead. */
TEST_F(vm, stream_ids_are_not_reused_at_once)
{
	uint32_t a, b;

	ASSERT_EQ(0, npu_stream_create(self->fd, &a));
	ASSERT_EQ(0, npu_stream_destroy(self->fd, a, 0));
	ASSERT_EQ(0, npu_stream_create(self->fd, &b));
	EXPECT_NE(a, b);
	EXPECT_EQ(-ENOENT, npu_sync(self->fd, a, 0));
	EXPECT_EQ(0, npu_stream_destroy(self->fd, b, 0));
}

/* A freed handle's id is not the next one's (as for streams). */
TEST_F(vm, handle_ids_are_not_reused_at_once)
{
	uint32_t a, b;

	ASSERT_EQ(0, npu_alloc(self->fd, SZ_4K, SZ_4K, &a));
	ASSERT_EQ(0, npu_free(self->fd, a));
	ASSERT_EQ(0, npu_alloc(self->fd, SZ_4K, SZ_4K, &b));
	EXPECT_NE(a, b);
	EXPECT_EQ(-ENOENT, npu_free(self->fd, a));
	EXPECT_EQ(0, npu_free(self->fd, b));
}

struct blocked_call {
	int fd;
	uint32_t stream;
	struct npu_cmd cmd;
	int ret;
	pid_t tid;
};

static void *sync_thread(void *p)
{
	struct blocked_call *c = p;

	__atomic_store_n(&c->tid, gettid(), __ATOMIC_SEQ_CST);
	c->ret = npu_sync(c->fd, c->stream, -1);
	return NULL;
}

static void *submit_thread(void *p)
{
	struct blocked_call *c = p;

	__atomic_store_n(&c->tid, gettid(), __ATOMIC_SEQ_CST);
	c->ret = npu_submit(c->fd, c->stream, &c->cmd, 1, NULL);
	return NULL;
}

/* Wait until thread @tid sleeps (in the call it was started for). */
static bool thread_sleeps(pid_t *tidp)
{
	for (int i = 0; i < 500; i++) {
		pid_t tid = __atomic_load_n(tidp, __ATOMIC_SEQ_CST);
		char path[64], buf[256], *p;
		FILE *f;

		usleep(10 * 1000);
		if (!tid)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (p && p[1] == ' ' && p[2] == 'S')
			return true;
	}
	return false;
}

/*
 * A FORCE destroy drops what is queued: a STREAM_SYNC waiting for those
 * commands says they did not run, instead of reporting success.
 */
TEST_F(vm, sync_reports_commands_dropped_by_destroy)
{
	uint64_t *flag = (uint64_t *)self->host;
	struct blocked_call c = { .fd = self->fd, .ret = 1 };
	struct npu_cmd cmds[2];
	pthread_t t;

	*flag = 0;
	self->host[SZ_4K] = 0;
	ASSERT_EQ(0, npu_stream_create(self->fd, &c.stream));
	cmds[0] = npu_value_cmd(NPU_OP_WAIT_VALUE, ptr64(flag), 1,
			    NPU_CMD_SRC_HOST | NPU_WAIT_GEQ);
	cmds[1] = npu_memset_cmd(ptr64(self->host + SZ_4K), 0x33, SZ_4K,
				 NPU_CMD_DST_HOST);
	ASSERT_EQ(0, npu_submit(self->fd, c.stream, cmds, 2, NULL));
	ASSERT_EQ(0, pthread_create(&t, NULL, sync_thread, &c));
	ASSERT_TRUE(thread_sleeps(&c.tid));
	ASSERT_EQ(0, npu_stream_destroy(self->fd, c.stream, NPU_STREAM_DESTROY_FORCE));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(-ECANCELED, c.ret);
	EXPECT_EQ(0, self->host[SZ_4K]);
}

/* Per-context caps: module parameters, writable by the administrator. */
static const char *const cap_params[] = {
	"max_handles", "max_imports",
	"max_streams", "max_queued",
	"ctx_mem_limit", "max_reservations",
	"max_mappings",
};

FIXTURE(caps) {
	VM_FIELDS;
	long long saved[sizeof(cap_params) / sizeof(cap_params[0])];
};

FIXTURE_SETUP(caps)
{
	for (unsigned int i = 0; i < sizeof(cap_params) / sizeof(cap_params[0]); i++) {
		self->saved[i] = npu_param_get(cap_params[i]);
		ASSERT_LE(0, self->saved[i]);
	}
	VM_SETUP();
}

FIXTURE_TEARDOWN(caps)
{
	for (unsigned int i = 0; i < sizeof(cap_params) / sizeof(cap_params[0]); i++)
		npu_param_set(cap_params[i], self->saved[i]);
	close(self->fd);
}

TEST_F(caps, handles)
{
	uint32_t h[9];

	ASSERT_OK(npu_param_set(cap_params[0], 8));
	for (int i = 0; i < 8; i++)
		ASSERT_EQ(0, npu_alloc(self->fd, SZ_4K, SZ_4K, &h[i]));
	EXPECT_EQ(-ENOSPC, npu_alloc(self->fd, SZ_4K, SZ_4K, &h[8]));
	EXPECT_EQ((long long)(8 * SZ_4K), npu_mem_used(self->fd));
	ASSERT_EQ(0, npu_free(self->fd, h[3]));
	ASSERT_EQ(0, npu_alloc(self->fd, SZ_4K, SZ_4K, &h[3]));
	/* Another context has its own count. */
	int fd2 = npu_open(0);

	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, npu_alloc(fd2, SZ_4K, SZ_4K, &h[8]));
	close(fd2);
	for (int i = 0; i < 8; i++)
		EXPECT_EQ(0, npu_free(self->fd, h[i]));
	EXPECT_EQ(0, npu_mem_used(self->fd));
}

TEST_F(caps, device_memory)
{
	uint64_t va = npu_reserve_new(self->fd, 4 * SZ_2M, SZ_2M);
	uint32_t h, h2;

	ASSERT_NE(0, va);
	ASSERT_OK(npu_param_set(cap_params[4], 4 * SZ_2M));
	ASSERT_EQ(0, npu_alloc(self->fd, 4 * SZ_2M, SZ_2M, &h));
	EXPECT_EQ(-ENOMEM, npu_alloc(self->fd, SZ_4K, SZ_4K, &h2));
	/* Memory a mapping keeps alive after its handle is freed still counts. */
	ASSERT_EQ(0, npu_map(self->fd, va, 4 * SZ_2M, h));
	ASSERT_EQ(0, npu_free(self->fd, h));
	EXPECT_EQ(-ENOMEM, npu_alloc(self->fd, SZ_4K, SZ_4K, &h2));
	ASSERT_EQ(0, npu_unmap(self->fd, va));
	ASSERT_EQ(0, npu_alloc(self->fd, 4 * SZ_2M, SZ_2M, &h2));
	EXPECT_EQ(0, npu_free(self->fd, h2));
	EXPECT_EQ(0, npu_mem_used(self->fd));
}

TEST_F(caps, streams)
{
	uint32_t s[3];

	/* The fixture's stream is one of them. */
	ASSERT_OK(npu_param_set(cap_params[2], 3));
	ASSERT_EQ(0, npu_stream_create(self->fd, &s[0]));
	ASSERT_EQ(0, npu_stream_create(self->fd, &s[1]));
	EXPECT_EQ(-ENOSPC, npu_stream_create(self->fd, &s[2]));
	ASSERT_EQ(0, npu_stream_destroy(self->fd, s[0], 0));
	EXPECT_EQ(0, npu_stream_create(self->fd, &s[2]));
}

/* A full queue makes SUBMIT wait for room, as a full ring would. */
TEST_F(caps, queued_commands)
{
	static struct npu_cmd cmds[NPU_SUBMIT_MAX_CMDS];
	uint64_t *flag = (uint64_t *)self->host;
	struct blocked_call c = { .fd = self->fd, .stream = self->stream, .ret = 1 };
	pthread_t t;

	*flag = 0;
	ASSERT_OK(npu_param_set(cap_params[3], 1));	/* at least one SUBMIT's worth */
	cmds[0] = npu_value_cmd(NPU_OP_WAIT_VALUE, ptr64(flag), 1,
			    NPU_CMD_SRC_HOST | NPU_WAIT_GEQ);
	for (int i = 1; i < NPU_SUBMIT_MAX_CMDS; i++)
		cmds[i] = npu_memset_cmd(ptr64(self->host + SZ_4K), i, 64,
					 NPU_CMD_DST_HOST);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, cmds, NPU_SUBMIT_MAX_CMDS, NULL));
	c.cmd = npu_memset_cmd(ptr64(self->host + SZ_4K), 0x77, 64, NPU_CMD_DST_HOST);
	ASSERT_EQ(0, pthread_create(&t, NULL, submit_thread, &c));
	ASSERT_TRUE(thread_sleeps(&c.tid));
	EXPECT_EQ(1, __atomic_load_n(&c.ret, __ATOMIC_SEQ_CST));
	__atomic_store_n(flag, 1, __ATOMIC_SEQ_CST);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, c.ret);
	ASSERT_EQ(0, npu_sync(self->fd, self->stream, -1));
	EXPECT_EQ(0x77, self->host[SZ_4K]);
}

/* SHARE_IMPORT of one name, again and again, is capped too. */
TEST_F(caps, imports)
{
	struct npu_share_export e = { .size = sizeof(e), .flags = NPU_SHARE_ANY_PID };
	int status;
	pid_t pid;

	ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &e.handle));
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_SHARE_EXPORT, &e));
	ASSERT_OK(npu_param_set(cap_params[1], 3));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct npu_share_import im = { .size = sizeof(im), .shareable = e.shareable };
		int fd = npu_open(0), ret;

		if (fd < 0)
			_exit(10);
		for (int i = 0; i < 3; i++)
			if (npu_ioctl(fd, NPU_IOCTL_SHARE_IMPORT, &im))
				_exit(11 + i);
		ret = npu_ioctl(fd, NPU_IOCTL_SHARE_IMPORT, &im);
		_exit(ret == -ENOSPC ? 0 : 20);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	EXPECT_EQ(0, npu_free(self->fd, e.handle));
}

/* VA_RESERVE and MAP: each capped per context, like every other object. */
TEST_F(caps, reservations_and_mappings)
{
	uint64_t va[5];
	uint32_t h;

	ASSERT_OK(npu_param_set(cap_params[5], 4));
	for (int i = 0; i < 4; i++) {
		va[i] = npu_reserve_new(self->fd, SZ_2M, SZ_2M);
		ASSERT_NE(0, va[i]);
	}
	va[4] = npu_hole(SZ_2M, SZ_2M);
	ASSERT_NE(0, va[4]);
	EXPECT_EQ(-ENOSPC, npu_reserve(self->fd, va[4], SZ_2M));
	ASSERT_EQ(0, npu_release(self->fd, va[3]));
	EXPECT_EQ(0, npu_reserve(self->fd, va[4], SZ_2M));
	/* another context has its own count */
	{
		int fd2 = npu_open(0);

		ASSERT_LE(0, fd2);
		EXPECT_EQ(0, npu_reserve(fd2, va[3], SZ_2M));
		close(fd2);
	}

	/* the fixture's registration is not mapped: 2 mappings, no more */
	ASSERT_OK(npu_param_set(cap_params[6], 2));
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &h));
		ASSERT_EQ(0, npu_map(self->fd, va[i], SZ_2M, h));
		ASSERT_EQ(0, npu_free(self->fd, h));
	}
	ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &h));
	EXPECT_EQ(-ENOSPC, npu_map(self->fd, va[2], SZ_2M, h));
	ASSERT_EQ(0, npu_unmap(self->fd, va[0]));
	EXPECT_EQ(0, npu_map(self->fd, va[2], SZ_2M, h));
	EXPECT_EQ(0, npu_free(self->fd, h));
}

/* /proc/self/oom_score, or -1. */
static long long oom_score(void)
{
	return npu_file_value_at(AT_FDCWD, "/proc/self/oom_score", NULL, 0);
}

/*
 * RssShmem of this process in kB, within the slack of the kernel's per-CPU
 * RSS counters (since 6.2 /proc reads them without folding the per-CPU
 * deltas, which a large change folds in): @want when it is within 1 MiB.
 */
static long long shmem_kb_near(long long want)
{
	long long kb = npu_status_kb("RssShmem");

	return kb >= want - 1024 && kb <= want + 1024 ? want : kb;
}

#define EXPECT_SHMEM(want) EXPECT_EQ((want), shmem_kb_near(want))

/*
 * Device memory is host memory here, which no reclaim takes back: the
 * OOM killer must see who holds it. What a context allocates counts as
 * its process's shared memory (RssShmem) until the memory is freed or the
 * context closes, and raises its oom_score (second kernel review: a
 * process holding gigabytes kept its score while others were killed).
 */
TEST_F(vm, device_memory_counts_for_the_oom_killer)
{
	long long shmem0 = npu_status_kb("RssShmem"), score0 = oom_score();
	uint64_t len = 4 * SZ_1G;
	uint32_t h, h2;

	ASSERT_LE(0, shmem0);
	ASSERT_LE(0, score0);
	if (self->total < len + SZ_1G)
		len = self->total / 2 / SZ_2M * SZ_2M;
	ASSERT_EQ(0, npu_alloc(self->fd, len, SZ_2M, &h));
	EXPECT_SHMEM(shmem0 + (long long)(len >> 10));
	EXPECT_LT(score0, oom_score());
	TH_LOG("oom_score %lld -> %lld with %llu MiB of device memory", score0,
	       oom_score(), (unsigned long long)len >> 20);
	/* a second context of the same process adds to it */
	{
		int fd2 = npu_open(0);

		ASSERT_LE(0, fd2);
		ASSERT_EQ(0, npu_alloc(fd2, SZ_2M, SZ_2M, &h2));
		EXPECT_SHMEM(shmem0 + (long long)((len + SZ_2M) >> 10));
		/* its close frees it */
		close(fd2);
	}
	EXPECT_SHMEM(shmem0 + (long long)(len >> 10));
	ASSERT_EQ(0, npu_free(self->fd, h));
	EXPECT_SHMEM(shmem0);
	EXPECT_EQ(score0, oom_score());
	/* and a close frees what is left: nothing stays counted */
	ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &h));
	close(self->fd);
	EXPECT_SHMEM(shmem0);
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
}

TEST_F_TIMEOUT(vm, exit_with_dma_in_flight, 120)
{
	long long before = npu_mem_used(self->fd);
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = npu_open(0);
		uint32_t handle, stream;
		uint64_t va = map_new(fd, 256 * SZ_2M, SZ_2M, &handle);
		struct npu_cmd c[4];

		if (!va || npu_stream_create(fd, &stream))
			_exit(1);
		for (int i = 0; i < 4; i++)
			c[i] = npu_memset_cmd(va, i, 256 * SZ_2M, 0);
		if (npu_submit(fd, stream, c, 4, NULL))
			_exit(2);
		_exit(0);	/* with the copies running */
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(before, npu_mem_used(self->fd));
}

/* Many mappings: each is found, and all go away. */
TEST_F_TIMEOUT(vm, ten_thousand_mappings, 120)
{
	enum { N = 10000 };
	uint64_t va = npu_reserve_new(self->fd, N * SZ_4K, SZ_4K);
	static uint32_t handles[N];
	struct npu_addr_query q;

	ASSERT_NE(0, va);
	for (int i = 0; i < N; i++) {
		ASSERT_EQ(0, npu_alloc(self->fd, SZ_4K, SZ_4K, &handles[i]));
		ASSERT_EQ(0, npu_map(self->fd, va + i * SZ_4K, SZ_4K, handles[i]));
		ASSERT_EQ(0, npu_free(self->fd, handles[i]));
	}
	EXPECT_EQ((long long)(N * SZ_4K), npu_mem_used(self->fd));
	ASSERT_EQ(0, npu_set_access(self->fd, va, N * SZ_4K, 0,
				    NPU_ACCESS_READWRITE));
	ASSERT_EQ(0, npu_query(self->fd, va + 5000 * SZ_4K + 5, &q));
	EXPECT_EQ(1, q.mapped);
	EXPECT_EQ(NPU_ACCESS_READWRITE, q.access);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(va, 0x21, N * SZ_4K, 0)));
	for (int i = 0; i < N; i++)
		ASSERT_EQ(0, npu_unmap(self->fd, va + i * SZ_4K));
	EXPECT_EQ(0, npu_release(self->fd, va));
	EXPECT_EQ(0, npu_mem_used(self->fd));
}

/*
 * Device pages come into being when first written, by the DMA worker: they
 * are charged to the memory cgroup of the process that opened the context,
 * a limit turns the write that needs one more page into a DMA fault (not
 * an OOM kill), and closing the context uncharges them.
 */
TEST(device_pages_charge_the_openers_memcg)
{
	const long long mib = 1 << 20, slack = memcg_slack();
	long long base, used, more, end;
	char cg[64], num[32], *host;
	uint32_t handle, stream;
	uint64_t va;
	int fd, ret;

	ret = cg_enter_own(cg, sizeof(cg), "npu-test");
	if (ret == 1)
		SKIP(return, "no cgroup2 memory controller at " CGROOT);
	ASSERT_EQ(0, ret);

	fd = npu_open(0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, npu_stream_create(fd, &stream));
	va = map_new(fd, 32 * SZ_2M, SZ_2M, &handle);
	ASSERT_NE(0, va);
	/* for reading back what the limited write wrote; charged now */
	host = npu_host_mem(3 * SZ_2M);
	ASSERT_NONNULL(host);
	ASSERT_EQ(0, npu_register(fd, host, 3 * SZ_2M, 0, 0));
	TH_LOG("memory.current slack: %lld KiB", slack >> 10);
	base = cg_read(cg, "memory.current", NULL);
	ASSERT_LE(0, base);
	/*
	 * 32 MiB written: 32 MiB charged, plus under 1 MiB of bookkeeping,
	 * give or take the stocks. None would be 0, twice 64 MiB.
	 */
	ASSERT_EQ(0, npu_run(fd, stream, npu_memset_cmd(va, 0x5a, 16 * SZ_2M, 0)));
	used = cg_read(cg, "memory.current", NULL) - base;
	EXPECT_LE(32 * mib - slack, used);
	EXPECT_GT(33 * mib + slack, used);

	/*
	 * Room for two more 2 MiB pages, not three: the third write faults.
	 * The limit is 5 MiB over a reading, which is at least what was
	 * charged then and at most the slack more: the room is 5 MiB to
	 * 5 MiB + slack (under 6 MiB), whatever the stocks hold.
	 */
	ASSERT_GT(mib, slack);
	snprintf(num, sizeof(num), "%lld", base + used + 5 * mib);
	ASSERT_EQ(0, cg_write(cg, "memory.max", num));
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(fd, stream,
				npu_memset_cmd(va + 16 * SZ_2M, 0x5b, 16 * SZ_2M, 0)));
	npu_expect_dma_faults(false);
	/* The counter never passes memory.max; reaching it drained the stocks. */
	more = cg_read(cg, "memory.current", NULL) - base - used;
	EXPECT_EQ(0, cg_write(cg, "memory.max", "max"));
	EXPECT_LE(4 * mib - slack, more);
	EXPECT_GE(5 * mib, more);
	EXPECT_LT(0, cg_read(cg, "memory.events", "max"));
	EXPECT_EQ(0, cg_read(cg, "memory.events", "oom_kill"));
	/*
	 * Exactly two pages were written, so each was charged once (twice
	 * would leave room for one); reading the third allocates nothing.
	 */
	ASSERT_EQ(0, npu_run(fd, stream, npu_copy_cmd(ptr64(host), va + 16 * SZ_2M,
						      3 * SZ_2M, NPU_CMD_DST_HOST)));
	for (uint64_t i = 0; i < 3 * SZ_2M; i += SZ_4K) {
		char want = i < 2 * SZ_2M ? 0x5b : 0;

		if (host[i] != want || host[i + SZ_4K - 1] != want) {
			EXPECT_EQ(want, host[i]);
			TH_LOG("device page at +%#llx", (unsigned long long)i);
			break;
		}
	}

	/* Closing the context frees and uncharges the pages. */
	close(fd);
	end = cg_read(cg, "memory.current", NULL);
	EXPECT_LE(0, end);
	EXPECT_GT(base + mib + slack, end);
	TH_LOG("charged: %lld KiB, then %lld KiB; after close %+lld KiB",
	       used >> 10, more >> 10, (end - base) / 1024);
	munmap(host, 3 * SZ_2M);
	EXPECT_EQ(0, cg_leave(cg));
}

/*
 * Two contexts whose queued peer copies name each other, each stuck behind
 * a wait: closing both files must still release both (no reference cycle).
 */
TEST(peer_copies_do_not_pin_contexts)
{
	int fd[2], i;
	uint32_t handle[2], stream[2];
	uint64_t va[2];

	if (npu_device_count() < 2)
		SKIP(return, "needs two NPUs");
	for (i = 0; i < 2; i++) {
		struct npu_peer_enable pe = { .size = sizeof(pe), .device = !i };

		fd[i] = npu_open(i);
		ASSERT_LE(0, fd[i]);
		va[i] = map_new(fd[i], SZ_2M, SZ_2M, &handle[i]);
		ASSERT_NE(0, va[i]);
		ASSERT_EQ(0, npu_ioctl(fd[i], NPU_IOCTL_PEER_ENABLE, &pe));
		ASSERT_EQ(-EALREADY, npu_ioctl(fd[i], NPU_IOCTL_PEER_ENABLE, &pe));
		ASSERT_EQ(0, npu_set_access(fd[i], va[i], SZ_2M, !i,
					    NPU_ACCESS_READWRITE));
		ASSERT_EQ(0, npu_stream_create(fd[i], &stream[i]));
	}
	/* A peer copy that can run does, in both directions. */
	for (i = 0; i < 2; i++) {
		struct npu_cmd c = npu_copy_cmd(va[!i], va[i], 4096,
						NPU_CMD_DST_PEER);

		c.value = fd[!i];
		ASSERT_EQ(0, npu_run(fd[i], stream[i], c));
	}
	for (i = 0; i < 2; i++) {
		struct npu_cmd c[2] = {
			npu_value_cmd(NPU_OP_WAIT_VALUE, va[i], 1, NPU_WAIT_EQ),
			npu_copy_cmd(va[!i], va[i], 4096, NPU_CMD_DST_PEER),
		};

		c[1].value = fd[!i];
		ASSERT_EQ(0, npu_submit(fd[i], stream[i], c, 2, NULL));
	}
	close(fd[0]);
	close(fd[1]);
	for (i = 0; i < 2; i++) {
		int f = npu_open(i);

		ASSERT_LE(0, f);
		EXPECT_EQ(0, npu_mem_used(f));
		close(f);
	}
}

TEST_HARNESS_MAIN
