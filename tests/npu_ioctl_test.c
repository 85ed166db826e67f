// SPDX-License-Identifier: GPL-2.0
/*
 * npu_ioctl_test: the uapi conventions every ioctl follows - dispatch,
 * struct size negotiation, reserved fields, output zeroing, per-process
 * contexts - and GET_INFO on every device. The size, flags and reserved
 * field tests are generated from one table of every ioctl (NPU_IOCTLS).
 */
#include <limits.h>
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

/* A module parameter's value as text, without the newline; "" if none. */
static void param_text(const char *name, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/module/npu/parameters/%s", name);
	buf[0] = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

/*
 * The fields of driver 1.3: the carrier's PCI address (the function the
 * device node's parent link names), the modelled chip (the module's
 * parameters), a random UUID of each device, the memory peak and the
 * device clock.
 */
TEST(get_info_chip_model_every_device)
{
	struct npu_get_info info[8];
	char soc[64], cube[16], vector[16];
	int n = npu_device_count();

	param_text("soc_name", soc, sizeof(soc));
	param_text("cube_cores", cube, sizeof(cube));
	param_text("vector_cores", vector, sizeof(vector));
	ASSERT_NE(0, soc[0]);
	ASSERT_LE(n, 8);
	for (int i = 0; i < n; i++) {
		struct npu_get_info *in = &info[i];
		char path[64], link[256], want[32], *base;
		static const uint8_t zero[16];
		int fd = npu_open(i);
		uint64_t clock;
		ssize_t len;

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, npu_info(fd, in));
		clock = in->clock_ns;
		EXPECT_STREQ(soc, in->soc_name);
		EXPECT_EQ(strtoul(cube, NULL, 10), in->cube_cores);
		EXPECT_EQ(strtoul(vector, NULL, 10), in->vector_cores);
		EXPECT_LT(0, in->cube_cores);
		EXPECT_LT(0, in->vector_cores);
		/* zero-padded, NUL-terminated */
		for (size_t j = strlen(in->soc_name); j < sizeof(in->soc_name); j++)
			EXPECT_EQ(0, in->soc_name[j]);
		/* RFC 4122 version 4, variant 1 */
		EXPECT_NE(0, memcmp(in->uuid, zero, sizeof(zero)));
		EXPECT_EQ(0x40, in->uuid[6] & 0xf0);
		EXPECT_EQ(0x80, in->uuid[8] & 0xc0);
		for (int j = 0; j < i; j++)
			EXPECT_NE(0, memcmp(in->uuid, info[j].uuid, 16));
		EXPECT_LE(in->mem_used, in->mem_peak);
		EXPECT_LE(in->mem_peak, in->mem_total);

		snprintf(path, sizeof(path), "/sys/class/misc/npu%d/device", i);
		len = readlink(path, link, sizeof(link) - 1);
		ASSERT_LT(0, len);
		link[len] = 0;
		base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		if (in->caps & NPU_CAP_PCI_CARRIER) {
			snprintf(want, sizeof(want), "%04x:%02x:%02x.%x",
				 in->pci_domain, in->pci_bus, in->pci_devfn >> 3,
				 in->pci_devfn & 7);
			EXPECT_STREQ(want, base);
			EXPECT_GE(255, in->pci_bus);
			EXPECT_GE(255, in->pci_devfn);
		} else {
			EXPECT_EQ(0, in->pci_domain);
			EXPECT_EQ(0, in->pci_bus);
			EXPECT_EQ(0, in->pci_devfn);
		}
		TH_LOG("npu%d: %s, %u cube and %u vector cores, carrier %s, peak %llu MiB, clock %llu ms",
		       i, in->soc_name, in->cube_cores, in->vector_cores, base,
		       (unsigned long long)in->mem_peak >> 20,
		       (unsigned long long)in->clock_ns / 1000000);
		/* the same answers again, the clock on */
		ASSERT_EQ(0, npu_info(fd, in));
		EXPECT_LT(clock, in->clock_ns);
		EXPECT_STREQ(soc, in->soc_name);
		close(fd);
	}
}

/* Callers of 1.0 and 1.1 get only the fields their struct holds. */
TEST_F(dev, get_info_older_sizes)
{
	const size_t sizes[] = {
		offsetof(struct npu_get_info, tgid),
		offsetof(struct npu_get_info, pci_domain),
	};

	for (size_t i = 0; i < 2; i++) {
		unsigned char buf[sizeof(struct npu_get_info) + 8];
		struct npu_get_info *in = (struct npu_get_info *)buf;

		memset(buf, 0xa5, sizeof(buf));
		memset(buf, 0, sizes[i]);
		in->size = sizes[i];
		ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_GET_INFO, in));
		EXPECT_EQ(NPU_DRIVER_VERSION, in->driver_version);
		EXPECT_EQ(SZ_2M, in->va_start);
		for (size_t j = sizes[i]; j < sizeof(buf); j++)
			EXPECT_EQ(0xa5, buf[j]);
		if (i)
			EXPECT_EQ((uint32_t)getpid(), in->tgid);
	}
}

/* The peak is the most device memory in use at once since the device began. */
TEST_F(dev, get_info_mem_peak)
{
	struct npu_get_info info;
	uint64_t peak0, len;
	uint32_t h;

	ASSERT_EQ(0, npu_info(self->fd, &info));
	peak0 = info.mem_peak;
	ASSERT_EQ(0, info.mem_used);
	/*
	 * Above the peak if there is room (it is not when a test used it
	 * all), in whole 2 MiB pages: the peak may include 4 KiB handles.
	 */
	len = (peak0 + 2 * SZ_2M - 1) & ~(SZ_2M - 1);
	if (len > info.mem_total)
		len = SZ_2M;
	ASSERT_EQ(0, npu_alloc(self->fd, len, SZ_2M, &h));
	ASSERT_EQ(0, npu_info(self->fd, &info));
	EXPECT_EQ(len, info.mem_used);
	EXPECT_EQ(len > peak0 ? len : peak0, info.mem_peak);
	ASSERT_EQ(0, npu_free(self->fd, h));
	ASSERT_EQ(0, npu_info(self->fd, &info));
	EXPECT_EQ(0, info.mem_used);
	EXPECT_EQ(len > peak0 ? len : peak0, info.mem_peak);
	TH_LOG("peak %llu MiB before, %llu MiB after",
	       (unsigned long long)peak0 >> 20,
	       (unsigned long long)info.mem_peak >> 20);
}

TEST_F(dev, unknown_ioctl_is_enotty)
{
	struct npu_get_info info = { .size = sizeof(info) };

	/* Below and above the table, another type, size or direction bits. */
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd, _IO(NPU_TYPE, 0x10), &info));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd, _IO(NPU_TYPE, NPU_CMD_BASE - 1),
				     &info));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd,
				     _IO(NPU_TYPE, NPU_CMD_APERTURE_KERNEL_DONE + 1),
				     &info));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd, _IO(NPU_TYPE, 0xff), &info));
	/* the aperture fd's ioctls are not the device's (since 1.12) */
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd, NPU_IOCTL_APERTURE_KERNEL_WAIT, &info));
	EXPECT_EQ(-ENOTTY, npu_ioctl(self->fd, NPU_IOCTL_APERTURE_KERNEL_DONE, &info));
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

/*
 * Struct size negotiation, generated for every ioctl from one table, as
 * iommufd's selftest does with TEST_LENGTH. Each entry: the ioctl
 * (NPU_IOCTL_<name>), its argument struct, the struct's last field in the
 * release that introduced the ioctl (kernel/npu_drv.c's npu_ioctl_ops[]
 * names the same one), whether the struct has a __reserved and a flags
 * field, and a builder that makes a valid argument (the objects it names
 * included) in a fresh context. Adding an ioctl is adding its line, in
 * command-number order, and usually a builder.
 *
 * For each entry, with the builder's argument and only the size changed:
 *   too_short           0, 4 and first-release size - 1: -EINVAL
 *   first_release_size  the builder's result (0, or the one errno that
 *                       says the size was accepted); nothing written past
 *                       the size
 *   current_size        sizeof(struct): the same
 *   zero_tail           sizeof + 1, sizeof + 8, PAGE_SIZE with zeroes past
 *                       the struct: the same, and the tail stays zero
 *   nonzero_tail        a non-zero byte past the struct: -E2BIG
 *   over_page           PAGE_SIZE + 1, 2 * PAGE_SIZE, UINT32_MAX: -E2BIG
 * and, over the whole table, a non-zero __reserved or an unknown flag bit
 * is -EINVAL. A refused call changes nothing (device memory in use).
 */
#define RSV(s)		offsetof(struct s, __reserved)
#define NORSV(s)	0
#define FLAGS(s)	offsetof(struct s, flags)
#define NOFLAGS(s)	0

#define NPU_IOCTLS(X)							\
	X(GET_INFO,	   npu_get_info,	va_end,	    RSV,   FLAGS,   b_none) \
	X(MEM_ALLOC,	   npu_mem_alloc,	__reserved, RSV,   FLAGS,   b_mem_alloc) \
	X(MEM_FREE,	   npu_mem_free,	handle,	    NORSV, NOFLAGS, b_mem_free) \
	X(VA_RESERVE,	   npu_va_range,	length,	    NORSV, FLAGS,   b_va_reserve) \
	X(VA_RELEASE,	   npu_va_range,	length,	    NORSV, FLAGS,   b_va_release) \
	X(MAP,		   npu_map,		__reserved, RSV,   FLAGS,   b_map) \
	X(UNMAP,	   npu_unmap,		addr,	    NORSV, FLAGS,   b_unmap) \
	X(SET_ACCESS,	   npu_access,		access,	    NORSV, FLAGS,   b_set_access) \
	X(GET_ACCESS,	   npu_access,		access,	    NORSV, FLAGS,   b_get_access) \
	X(HOST_REGISTER,   npu_host_register,	dev_addr,   NORSV, FLAGS,   b_host_register) \
	X(HOST_UNREGISTER, npu_host_unregister,	addr,	    NORSV, FLAGS,   b_host_unregister) \
	X(ADDR_QUERY,	   npu_addr_query,	host_flags, NORSV, FLAGS,   b_addr_query) \
	X(STREAM_CREATE,   npu_stream_create,	__reserved, RSV,   FLAGS,   b_none) \
	X(STREAM_DESTROY,  npu_stream_destroy,	__reserved, RSV,   FLAGS,   b_stream_destroy) \
	X(SUBMIT,	   npu_submit,		seqno,	    RSV,   FLAGS,   b_submit) \
	X(STREAM_SYNC,	   npu_stream_sync,	seqno,	    NORSV, FLAGS,   b_stream_sync) \
	X(SHARE_EXPORT,	   npu_share_export,	shareable,  RSV,   FLAGS,   b_share_export) \
	X(SHARE_SET_PIDS,  npu_share_pids,	__reserved, RSV,   FLAGS,   b_share_set_pids) \
	X(SHARE_IMPORT,	   npu_share_import,	__reserved, RSV,   FLAGS,   b_share_import) \
	X(PEER_ENABLE,	   npu_peer_enable,	__reserved, RSV,   FLAGS,   b_peer_enable) \
	X(STREAM_SET_MODE, npu_stream_mode,	__reserved, RSV,   FLAGS,   b_stream_set_mode) \
	X(PEER_DISABLE,	   npu_peer_enable,	__reserved, RSV,   FLAGS,   b_peer_disable) \
	X(IPC_EXPORT,	   npu_ipc_export,	key,	    NORSV, FLAGS,   b_ipc_export) \
	X(IPC_SET_PIDS,	   npu_share_pids,	__reserved, RSV,   FLAGS,   b_ipc_set_pids) \
	X(IPC_IMPORT,	   npu_share_import,	page_size,  RSV,   FLAGS,   b_ipc_import) \
	X(IPC_DESTROY,	   npu_ipc_destroy,	key,	    NORSV, FLAGS,   b_ipc_destroy) \
	X(DMABUF_EXPORT,   npu_dmabuf_export,	__reserved, RSV,   FLAGS,   b_dmabuf_export) \
	X(MIRROR_MAP,	   npu_mirror_map,	length,	    NORSV, FLAGS,   b_mirror_map) \
	X(MIRROR_UNMAP,	   npu_mirror_unmap,	addr,	    NORSV, FLAGS,   b_mirror_unmap) \
	X(MEM_UCE_QUERY,   npu_mem_uce_query,	range_size, NORSV, FLAGS,   b_none) \
	X(MEM_REPAIR,	   npu_mem_repair,	repaired,   NORSV, FLAGS,   b_mem_repair) \
	X(DMABUF_IMPORT,   npu_dmabuf_import,	page_size,  NORSV, FLAGS,   b_dmabuf_import) \
	X(MODEL_CREATE,	   npu_model_create,	__reserved, RSV,   FLAGS,   b_model_create) \
	X(MODEL_DESTROY,   npu_model_destroy,	__reserved, RSV,   FLAGS,   b_model_destroy) \
	X(APERTURE_OPEN,   npu_aperture_open,	__reserved, RSV,   FLAGS,   b_none)

/* What the builders share: made once per test, outlives the contexts. */
struct len_env {
	uint64_t va;		/* SZ_2M of free address space, PROT_NONE */
	char *host;		/* one page of anonymous memory */
	int32_t tgid;		/* in the initial pid namespace */
	int ndev;
	struct npu_cmd cmd;
	uint64_t shareable;	/* exported by a child, ANY_PID */
	uint64_t ipc_key;	/* an IPC key of the same child, ANY_PID */
	pid_t exporter;
	int exporter_ack;	/* closing it lets the exporter exit */
};

/* A builder: fill @arg (zeroed) for @fd; the ioctl's answer, or LEN_BROKEN. */
#define LEN_BUILDER(name)						\
	static int name(struct len_env *env __attribute__((unused)),	\
			int fd __attribute__((unused)),			\
			void *arg __attribute__((unused)))

/* A builder's answer when making the objects failed. */
#define LEN_BROKEN	1

struct len_op {
	const char *name;
	unsigned long cmd;
	uint32_t size;		/* sizeof(struct) */
	uint32_t min_size;	/* offsetofend(struct, first release's last) */
	uint32_t reserved;	/* offset of __reserved (a __u32), 0 if none */
	uint32_t flags;		/* offset of flags (a __u32), 0 if none */
	/* fill @arg (zeroed) for @fd: the ioctl's answer, or LEN_BROKEN */
	int (*build)(struct len_env *env, int fd, void *arg);
};

LEN_BUILDER(b_none)
{
	return 0;
}

LEN_BUILDER(b_mem_alloc)
{
	struct npu_mem_alloc *a = arg;

	a->length = SZ_4K;
	a->page_size = SZ_4K;
	return 0;
}

LEN_BUILDER(b_mem_free)
{
	struct npu_mem_free *a = arg;

	return npu_alloc(fd, SZ_4K, SZ_4K, &a->handle) ? LEN_BROKEN : 0;
}

LEN_BUILDER(b_va_reserve)
{
	struct npu_va_range *a = arg;

	a->addr = env->va;
	a->length = SZ_2M;
	return 0;
}

LEN_BUILDER(b_va_release)
{
	struct npu_va_range *a = arg;

	a->addr = env->va;
	return npu_reserve(fd, env->va, SZ_2M) ? LEN_BROKEN : 0;
}

/* Reserve env->va and map a fresh 4 KiB handle at it: 0 or LEN_BROKEN. */
static int len_mapped(struct len_env *env, int fd, uint32_t *handle)
{
	uint32_t h;

	if (npu_reserve(fd, env->va, SZ_2M) || npu_alloc(fd, SZ_4K, SZ_4K, &h))
		return LEN_BROKEN;
	if (handle) {
		*handle = h;
		return 0;
	}
	return npu_map(fd, env->va, SZ_4K, h) ? LEN_BROKEN : 0;
}

LEN_BUILDER(b_map)
{
	struct npu_map *a = arg;

	a->addr = env->va;
	a->length = SZ_4K;
	return len_mapped(env, fd, &a->handle);
}

LEN_BUILDER(b_unmap)
{
	struct npu_unmap *a = arg;

	a->addr = env->va;
	return len_mapped(env, fd, NULL);
}

LEN_BUILDER(b_set_access)
{
	struct npu_access *a = arg;

	a->addr = env->va;
	a->length = SZ_4K;
	a->access = NPU_ACCESS_READWRITE;
	return len_mapped(env, fd, NULL);
}

LEN_BUILDER(b_get_access)
{
	struct npu_access *a = arg;

	a->addr = env->va;
	return len_mapped(env, fd, NULL);
}

LEN_BUILDER(b_host_register)
{
	struct npu_host_register *a = arg;

	a->addr = ptr64(env->host);
	a->length = SZ_4K;
	return 0;
}

LEN_BUILDER(b_host_unregister)
{
	struct npu_host_unregister *a = arg;

	a->addr = ptr64(env->host);
	return npu_register(fd, env->host, SZ_4K, 0, 0) ? LEN_BROKEN : 0;
}

LEN_BUILDER(b_addr_query)
{
	struct npu_addr_query *a = arg;

	a->addr = ptr64(env->host);
	return 0;
}

LEN_BUILDER(b_stream_destroy)
{
	struct npu_stream_destroy *a = arg;

	return npu_stream_create(fd, &a->stream) ? LEN_BROKEN : 0;
}

LEN_BUILDER(b_submit)
{
	struct npu_submit *a = arg;

	env->cmd = (struct npu_cmd){
		.op = NPU_OP_WRITE_VALUE, .dst = env->va, .value = 42,
	};
	a->count = 1;
	a->cmds = ptr64(&env->cmd);
	if (len_mapped(env, fd, NULL) ||
	    npu_set_access(fd, env->va, SZ_4K, 0, NPU_ACCESS_READWRITE))
		return LEN_BROKEN;
	return npu_stream_create(fd, &a->stream) ? LEN_BROKEN : 0;
}

LEN_BUILDER(b_model_create)
{
	struct npu_model_create *a = arg;

	env->cmd = (struct npu_cmd){
		.op = NPU_OP_WRITE_VALUE, .dst = env->va, .value = 42,
	};
	a->count = 1;
	a->cmds = ptr64(&env->cmd);
	return 0;
}

LEN_BUILDER(b_model_destroy)
{
	struct npu_model_destroy *a = arg;
	struct npu_model_create c = { .size = sizeof(c) };

	b_model_create(env, fd, &c);
	c.size = sizeof(c);
	if (npu_ioctl(fd, NPU_IOCTL_MODEL_CREATE, &c))
		return LEN_BROKEN;
	a->model = c.model;
	return 0;
}

LEN_BUILDER(b_stream_sync)
{
	struct npu_stream_sync *a = arg;

	a->timeout_ms = -1;
	return npu_stream_create(fd, &a->stream) ? LEN_BROKEN : 0;
}

LEN_BUILDER(b_share_export)
{
	struct npu_share_export *a = arg;

	return npu_alloc(fd, SZ_4K, SZ_4K, &a->handle) ? LEN_BROKEN : 0;
}

LEN_BUILDER(b_share_set_pids)
{
	struct npu_share_pids *a = arg;
	struct npu_share_export e = { .size = sizeof(e) };

	if (npu_alloc(fd, SZ_4K, SZ_4K, &e.handle) ||
	    npu_ioctl(fd, NPU_IOCTL_SHARE_EXPORT, &e))
		return LEN_BROKEN;
	a->shareable = e.shareable;
	a->pids = ptr64(&env->tgid);
	a->count = 1;
	return 0;
}

LEN_BUILDER(b_share_import)
{
	struct npu_share_import *a = arg;

	a->shareable = env->shareable;
	return env->shareable ? 0 : LEN_BROKEN;
}

LEN_BUILDER(b_peer_enable)
{
	struct npu_peer_enable *a = arg;

	a->device = 1;
	return env->ndev > 1 ? 0 : -ENODEV;	/* a lone device has no peer */
}

LEN_BUILDER(b_stream_set_mode)
{
	struct npu_stream_mode *a = arg;

	a->mode = NPU_STREAM_STOP_ON_FAULT;
	return npu_stream_create(fd, &a->stream) ? LEN_BROKEN : 0;
}

LEN_BUILDER(b_peer_disable)
{
	struct npu_peer_enable *a = arg, e = { .size = sizeof(e), .device = 1 };

	a->device = 1;
	if (env->ndev < 2)
		return -ENODEV;
	return npu_ioctl(fd, NPU_IOCTL_PEER_ENABLE, &e) ? LEN_BROKEN : 0;
}

/* An IPC key of @fd's first page at env->va, or 0. */
static uint64_t len_ipc_key(struct len_env *env, int fd)
{
	struct npu_ipc_export x = {
		.size = sizeof(x), .addr = env->va, .length = SZ_4K,
	};

	if (len_mapped(env, fd, NULL) || npu_ioctl(fd, NPU_IOCTL_IPC_EXPORT, &x))
		return 0;
	return x.key;
}

LEN_BUILDER(b_ipc_export)
{
	struct npu_ipc_export *a = arg;

	a->addr = env->va;
	a->length = SZ_4K;
	return len_mapped(env, fd, NULL);
}

LEN_BUILDER(b_ipc_set_pids)
{
	struct npu_share_pids *a = arg;

	a->shareable = len_ipc_key(env, fd);
	a->pids = ptr64(&env->tgid);
	a->count = 1;
	return a->shareable ? 0 : LEN_BROKEN;
}

LEN_BUILDER(b_ipc_import)
{
	struct npu_share_import *a = arg;

	a->shareable = env->ipc_key;
	return env->ipc_key ? 0 : LEN_BROKEN;
}

LEN_BUILDER(b_ipc_destroy)
{
	struct npu_ipc_destroy *a = arg;

	a->key = len_ipc_key(env, fd);
	return a->key ? 0 : LEN_BROKEN;
}

LEN_BUILDER(b_dmabuf_export)
{
	struct npu_dmabuf_export *a = arg;

	a->flags = NPU_DMABUF_CLOEXEC;
	return npu_alloc(fd, SZ_4K, SZ_4K, &a->handle) ? LEN_BROKEN : 0;
}

LEN_BUILDER(b_mirror_map)
{
	struct npu_mirror_map *a = arg;

	a->addr = env->va;
	a->length = SZ_2M;
	return 0;
}

LEN_BUILDER(b_mirror_unmap)
{
	struct npu_mirror_map m = { .size = sizeof(m), .addr = env->va,
				    .length = SZ_2M };
	struct npu_mirror_unmap *a = arg;

	a->addr = env->va;
	return npu_ioctl(fd, NPU_IOCTL_MIRROR_MAP, &m) ? LEN_BROKEN : 0;
}

LEN_BUILDER(b_mem_repair)
{
	struct npu_mem_repair *a = arg;

	a->addr = env->va;
	a->length = SZ_4K;
	return len_mapped(env, fd, NULL);
}

/* An npu dma-buf of a 4 KiB handle of this context (the fd stays open). */
LEN_BUILDER(b_dmabuf_import)
{
	struct npu_dmabuf_export e = { .size = sizeof(e),
				       .flags = NPU_DMABUF_CLOEXEC };
	struct npu_dmabuf_import *a = arg;

	if (npu_alloc(fd, SZ_4K, SZ_4K, &e.handle) ||
	    npu_ioctl(fd, NPU_IOCTL_DMABUF_EXPORT, &e))
		return LEN_BROKEN;
	a->fd = e.fd;
	a->length = SZ_4K;
	return 0;
}

#define LEN_OP(_name, _struct, _last, _rsv, _flags, _build) {		\
	.name = #_name, .cmd = NPU_IOCTL_##_name,			\
	.size = sizeof(struct _struct),					\
	.min_size = offsetofend(struct _struct, _last),			\
	.reserved = _rsv(_struct), .flags = _flags(_struct),		\
	.build = _build,						\
},

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif
#ifndef offsetofend
#define offsetofend(t, m)	(offsetof(t, m) + sizeof(((t *)0)->m))
#endif

static const struct len_op len_ops[] = { NPU_IOCTLS(LEN_OP) };

/* The exporter of env->shareable: a child that waits for end-of-file. */
static int len_env_exporter(struct len_env *env)
{
	int to_parent[2], to_child[2];
	char c;

	if (pipe(to_parent) || pipe(to_child))
		return -1;
	env->exporter = fork();
	if (env->exporter < 0)
		return -1;
	if (env->exporter == 0) {
		struct npu_share_export e = {
			.size = sizeof(e), .flags = NPU_SHARE_ANY_PID,
		};
		int fd = npu_open(0);
		struct npu_ipc_export x = {
			.size = sizeof(x), .flags = NPU_SHARE_ANY_PID,
			.addr = env->va, .length = SZ_4K,
		};
		uint64_t keys[2];

		close(to_parent[0]);
		close(to_child[1]);
		if (fd < 0 || npu_alloc(fd, SZ_4K, SZ_4K, &e.handle) ||
		    npu_ioctl(fd, NPU_IOCTL_SHARE_EXPORT, &e) ||
		    npu_reserve(fd, env->va, SZ_2M) ||
		    npu_map(fd, env->va, SZ_4K, e.handle) ||
		    npu_ioctl(fd, NPU_IOCTL_IPC_EXPORT, &x))
			_exit(1);
		keys[0] = e.shareable;
		keys[1] = x.key;
		if (write(to_parent[1], keys, sizeof(keys)) != sizeof(keys))
			_exit(1);
		_exit(read(to_child[0], &c, 1) == 0 ? 0 : 2);
	}
	close(to_parent[1]);
	close(to_child[0]);
	env->exporter_ack = to_child[1];
	{
		uint64_t keys[2] = { 0, 0 };

		if (read(to_parent[0], keys, sizeof(keys)) != sizeof(keys))
			keys[0] = 0;
		env->shareable = keys[0];
		env->ipc_key = keys[1];
	}
	close(to_parent[0]);
	return env->shareable && env->ipc_key ? 0 : -1;
}

static int len_env_init(struct len_env *env, bool exporter)
{
	struct npu_get_info info;
	int fd = npu_open(0);

	memset(env, 0, sizeof(*env));
	env->exporter_ack = -1;
	if (fd < 0 || npu_info(fd, &info))
		return -1;
	close(fd);
	env->tgid = info.tgid;
	env->ndev = info.num_devices;
	env->va = npu_hole(SZ_2M, SZ_2M);
	env->host = npu_host_mem(SZ_4K);
	if (!env->va || !env->host)
		return -1;
	return exporter ? len_env_exporter(env) : 0;
}

static void len_env_fini(struct len_env *env)
{
	if (env->exporter > 0) {
		close(env->exporter_ack);
		waitpid(env->exporter, NULL, 0);
	}
}

#define LEN_CANARY	0xa5

/* The argument: three pages, so that sizes over a page are readable. */
static unsigned char *len_buf(void)
{
	static unsigned char *buf;

	if (!buf)
		buf = npu_host_mem(3 * getpagesize());
	return buf;
}

/*
 * Build @op's argument in a fresh context, give it @size and a byte @poke
 * (if non-zero) at offset @at past the struct, and issue it. *@want gets
 * the builder's answer. Checks that nothing past min(@size, sizeof) was
 * written, and that a refused call left device memory as it was.
 */
static int len_call(struct len_env *env,
		    const struct len_op *op, uint32_t size, uint32_t at,
		    unsigned char poke, int *want)
{
	unsigned char *buf = len_buf();
	size_t span = 3 * getpagesize(), keep;
	long long used;
	int fd = npu_open(0), ret = -EBADF;

	*want = LEN_BROKEN;
	if (fd < 0 || !buf) {
		TH_LOG("%s: no context or buffer", op->name);
		goto out;
	}
	memset(buf, 0, span);
	*want = op->build(env, fd, buf);
	if (*want == LEN_BROKEN) {
		TH_LOG("%s: building the argument failed", op->name);
		goto out;
	}
	/*
	 * Past @size the canary (the kernel reads the size field, the first
	 * __u32, whatever @size says), zeroes from the struct's end up to
	 * @size, and the poke.
	 */
	keep = size < sizeof(uint32_t) ? sizeof(uint32_t) :
	       size < span ? size : span;
	memset(buf + keep, LEN_CANARY, span - keep);
	*(uint32_t *)buf = size;
	if (poke)
		buf[op->size + at] = poke;
	used = npu_mem_used(fd);
	ret = npu_ioctl(fd, op->cmd, buf);
	for (size_t i = keep < op->size ? keep : op->size; i < span; i++) {
		unsigned char expect = i >= keep ? LEN_CANARY :
				       poke && i == op->size + at ? poke : 0;

		if (buf[i] != expect) {
			TH_LOG("%s size %u: byte %zu changed to %#x",
			       op->name, size, i, buf[i]);
			ret = -EILSEQ;
			break;
		}
	}
	if (ret && used != npu_mem_used(fd)) {
		TH_LOG("%s size %u: refused (%d), yet device memory in use went from %lld to %lld",
		       op->name, size, ret, used, npu_mem_used(fd));
		ret = -EILSEQ;
	}
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The call must answer @expect, or (@expect == 1) what the builder said. */
#define LEN_EXPECT(expect, size, at, poke) do {				\
	int _want, _ret = len_call(&self->env, variant->op,	\
				   (size), (at), (poke), &_want);	\
	ASSERT_NE(LEN_BROKEN, _want);					\
	if ((expect) != 1)						\
		_want = (expect);					\
	if (_ret != _want)						\
		TH_LOG("%s with size %u: %d (%s), expected %d (%s)",	\
		       variant->op->name, (unsigned int)(size), _ret,	\
		       strerror(-_ret), _want, strerror(-_want));	\
	EXPECT_EQ(_want, _ret);						\
} while (0)
#define LEN_WORKS	1

FIXTURE(len) {
	struct len_env env;
};

FIXTURE_VARIANT(len) {
	const struct len_op *op;
};

#define LEN_VARIANT(_name, ...)						\
	FIXTURE_VARIANT_ADD(len, _name) {				\
		.op = &len_ops[NPU_CMD_##_name - NPU_CMD_BASE],		\
	};
NPU_IOCTLS(LEN_VARIANT)

FIXTURE_SETUP(len)
{
	ASSERT_EQ(0, len_env_init(&self->env,
				  variant->op->cmd == NPU_IOCTL_SHARE_IMPORT ||
				  variant->op->cmd == NPU_IOCTL_IPC_IMPORT));
}

FIXTURE_TEARDOWN(len)
{
	len_env_fini(&self->env);
}

TEST_F(len, too_short)
{
	LEN_EXPECT(-EINVAL, 0, 0, 0);
	LEN_EXPECT(-EINVAL, sizeof(uint32_t), 0, 0);
	LEN_EXPECT(-EINVAL, variant->op->min_size - 1, 0, 0);
}

TEST_F(len, first_release_size)
{
	LEN_EXPECT(LEN_WORKS, variant->op->min_size, 0, 0);
}

TEST_F(len, current_size)
{
	LEN_EXPECT(LEN_WORKS, variant->op->size, 0, 0);
}

TEST_F(len, zero_tail)
{
	LEN_EXPECT(LEN_WORKS, variant->op->size + 1, 0, 0);
	LEN_EXPECT(LEN_WORKS, variant->op->size + 8, 0, 0);
	LEN_EXPECT(LEN_WORKS, getpagesize(), 0, 0);
}

TEST_F(len, nonzero_tail)
{
	uint32_t size = variant->op->size, page = getpagesize();

	LEN_EXPECT(-E2BIG, size + 8, 0, 1);
	LEN_EXPECT(-E2BIG, size + 8, 7, 0x80);
	LEN_EXPECT(-E2BIG, page, page - size - 1, 1);
}

TEST_F(len, over_page)
{
	LEN_EXPECT(-E2BIG, getpagesize() + 1, 0, 0);
	LEN_EXPECT(-E2BIG, 2 * getpagesize(), 0, 0);
	LEN_EXPECT(-E2BIG, UINT32_MAX, 0, 0);
}

/* The table names every ioctl, in order, and the next number is unknown. */
TEST(length_table_covers_every_ioctl)
{
	struct npu_get_info info = { .size = sizeof(info) };
	int fd = npu_open(0);

	ASSERT_LE(0, fd);
	for (size_t i = 0; i < ARRAY_SIZE(len_ops); i++) {
		EXPECT_EQ(NPU_CMD_BASE + i, _IOC_NR(len_ops[i].cmd));
		EXPECT_LE(len_ops[i].min_size, len_ops[i].size);
		EXPECT_EQ(0, len_ops[i].size % sizeof(uint64_t));
	}
	EXPECT_EQ(-ENOTTY, npu_ioctl(fd, _IO(NPU_TYPE, NPU_CMD_BASE +
					      ARRAY_SIZE(len_ops)), &info));
	close(fd);
}

FIXTURE(lenall) {
	struct len_env env;
};

FIXTURE_SETUP(lenall)
{
	ASSERT_EQ(0, len_env_init(&self->env, true));
}

FIXTURE_TEARDOWN(lenall)
{
	len_env_fini(&self->env);
}

/* Set the __u32 at @off of a valid argument to each of @vals: -EINVAL. */
static void len_field_nonzero(struct len_env *env, const char *what,
			      bool flags)
{
	static const uint32_t vals[] = { 1, 1U << 31 };
	int checked = 0;

	for (size_t i = 0; i < ARRAY_SIZE(len_ops); i++) {
		const struct len_op *op = &len_ops[i];
		uint32_t off = flags ? op->flags : op->reserved;

		if (!off)
			continue;
		for (size_t v = 0; v < ARRAY_SIZE(vals); v++) {
			unsigned char *buf = len_buf();
			int fd = npu_open(0), ret;
			long long used;

			ASSERT_LE(0, fd);
			ASSERT_NONNULL(buf);
			memset(buf, 0, op->size);
			ASSERT_NE(LEN_BROKEN, op->build(env, fd, buf));
			*(uint32_t *)buf = op->size;
			/* a flags bit no mask has (bit 0 is valid for some) */
			if (!flags || vals[v] != 1)
				*(uint32_t *)(buf + off) = vals[v];
			else
				*(uint32_t *)(buf + off) |= 1U << 30;
			used = npu_mem_used(fd);
			ret = npu_ioctl(fd, op->cmd, buf);
			if (ret != -EINVAL)
				TH_LOG("%s with %s %#x: %d (%s)", op->name, what,
				       *(uint32_t *)(buf + off), ret,
				       strerror(-ret));
			EXPECT_EQ(-EINVAL, ret);
			EXPECT_EQ(used, npu_mem_used(fd));
			close(fd);
		}
		checked++;
	}
	TH_LOG("%s: %d ioctls", what, checked);
	EXPECT_LT(0, checked);
}

TEST_F(lenall, reserved_must_be_zero)
{
	len_field_nonzero(&self->env, "__reserved", false);
}

TEST_F(lenall, unknown_flags_are_einval)
{
	len_field_nonzero(&self->env, "flags", true);
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
