// SPDX-License-Identifier: GPL-2.0
/*
 * tests/npu_module_test.c - loading and unloading npu.ko.
 *
 * Uses the finit_module(2) and delete_module(2) system calls directly (no
 * libkmod). The parameters the module was loaded with are read from
 * /sys/module/npu/parameters/ before any test runs, and every test - and
 * the program once more before it exits, whatever happened - reloads the
 * module with them, so the tests that run after this one find it as it
 * was.
 *
 * Runs as root in the VM (tools/vm-run -- /tests/npu_module_test); the
 * module file is /lib/npu/npu.ko there ($NPU_KO overrides it).
 */
#include "harness.h"
#include "npu_util.h"
#include "npu_mod_util.h"

#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

/* As found when the program started; restored by every test. */
static struct npu_mod_params saved;

/* memparse() of the first size of a mem_size list. */
static uint64_t first_size(const char *list)
{
	char *end;
	uint64_t v = strtoull(list, &end, 0);

	switch (*end) {
	case 'T': case 't': v <<= 10; /* fall through */
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10; break;
	}
	return v;
}

/* ------------------------------------------------------------------ */
/* Kernel log                                                          */
/* ------------------------------------------------------------------ */

/* /dev/kmsg, positioned after the last record. */
static int kmsg_open_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Whether a record written since kmsg_open_end() contains @needle. */
static bool kmsg_find(int fd, const char *needle, char *last, size_t lastlen)
{
	char rec[2048];
	bool found = false;

	if (last && lastlen)
		last[0] = 0;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		char *msg;

		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		msg[strcspn(msg, "\n")] = 0;
		if (strstr(msg, "npu") && last && lastlen) {
			size_t m = strlen(msg);

			if (m >= lastlen)
				m = lastlen - 1;
			memcpy(last, msg, m);
			last[m] = 0;
		}
		if (strstr(msg, needle))
			found = true;
	}
	return found;
}

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */

static int info_of(int index, struct npu_get_info *info)
{
	int fd = npu_open(index), ret;

	if (fd < 0)
		return -errno;
	ret = npu_info(fd, info);
	close(fd);
	return ret;
}

/* QEMU pci-testdev functions (1b36:0005) not claimed by vfio-pci. */
static int free_testdevs(void)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[512], v[32], dv[32], drv[512];
		ssize_t len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", e->d_name);
		if (npu_read_line(path, v, sizeof(v)))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device", e->d_name);
		if (npu_read_line(path, dv, sizeof(dv)))
			continue;
		if (strcmp(v, "0x1b36") || strcmp(dv, "0x0005"))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", e->d_name);
		len = readlink(path, drv, sizeof(drv) - 1);
		if (len > 0) {
			drv[len] = 0;
			if (strstr(drv, "vfio"))
				continue;
		}
		n++;
	}
	closedir(d);
	return n;
}

/*
 * Whether the device /dev/npuN sits on translates DMA through an IOMMU
 * paging domain: the type of its carrier's IOMMU group ("DMA", "DMA-FQ"
 * translate; "identity" does not). -1 if unknown.
 */
static int carrier_translates(int index)
{
	char path[256], type[64];

	snprintf(path, sizeof(path), "/sys/class/misc/npu%d/device/iommu_group/type",
		 index);
	if (npu_read_line(path, type, sizeof(type)))
		return access("/sys/class/misc", F_OK) ? -1 : 0;
	return !strncmp(type, "DMA", 3);
}

/* H2D and D2H through a registration on /dev/npuN: 0 or -errno. */
static int copy_roundtrip(int index)
{
	size_t len = 64 * SZ_4K;
	int fd = npu_open(index), ret;
	unsigned char *a = npu_host_mem(len), *b = npu_host_mem(len);
	struct npu_get_info info;
	uint32_t h, s;
	uint64_t va;

	if (fd < 0 || !a || !b)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++)
		a[i] = (unsigned char)(i * 13 + index);
	ret = npu_info(fd, &info);
	if (!ret)
		ret = npu_alloc(fd, SZ_2M, SZ_2M, &h);
	va = ret ? 0 : npu_reserve_new(fd, SZ_2M, SZ_2M);
	if (!ret && !va)
		ret = -ENOSPC;
	if (!ret)
		ret = npu_map(fd, va, SZ_2M, h);
	if (!ret)
		ret = npu_set_access(fd, va, SZ_2M, info.device_index,
				     NPU_ACCESS_READWRITE);
	if (!ret)
		ret = npu_stream_create(fd, &s);
	if (!ret)
		ret = npu_register(fd, a, len, 0, 0);
	if (!ret)
		ret = npu_register(fd, b, len, 0, 0);
	if (!ret)
		ret = npu_run(fd, s, npu_copy_cmd(va, ptr64(a), len, NPU_CMD_SRC_HOST));
	if (!ret)
		ret = npu_run(fd, s, npu_copy_cmd(ptr64(b), va, len, NPU_CMD_DST_HOST));
	if (!ret && memcmp(a, b, len))
		ret = -EIO;
	close(fd);
	munmap(a, len);
	munmap(b, len);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

FIXTURE(mod) { int fd; };

FIXTURE_SETUP(mod)
{
	self->fd = -1;
	ASSERT_TRUE(saved.valid);
	ASSERT_TRUE(npu_mod_loaded());
	ASSERT_EQ(0, access(npu_ko_path(), R_OK));
}

FIXTURE_TEARDOWN(mod)
{
	int ret;

	if (self->fd >= 0)
		close(self->fd);
	ret = npu_mod_restore(&saved);
	if (ret)
		printf("# teardown: cannot restore npu.ko: %s\n", strerror(-ret));
}

TEST_F(mod, unload_busy_while_open)
{
	struct npu_get_info info;

	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	/* The open file holds the module. */
	ASSERT_EQ(-EWOULDBLOCK, npu_mod_unload_once());
	ASSERT_EQ(-EAGAIN, npu_mod_unload_once());
	ASSERT_TRUE(npu_mod_loaded());
	ASSERT_EQ(0, npu_info(self->fd, &info));
	EXPECT_EQ(0, info.device_index);

	/* So does an open file with registrations and a stream. */
	unsigned char *buf = npu_host_mem(16 * SZ_4K);
	uint32_t s;

	ASSERT_NONNULL(buf);
	ASSERT_EQ(0, npu_register(self->fd, buf, 16 * SZ_4K, 0, 0));
	ASSERT_EQ(0, npu_stream_create(self->fd, &s));
	ASSERT_EQ(-EWOULDBLOCK, npu_mod_unload_once());
	ASSERT_EQ(0, npu_info(self->fd, &info));

	/* Loading it again while it is loaded. */
	ASSERT_EQ(-EEXIST, npu_mod_load(""));

	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, npu_mod_unload());
	ASSERT_FALSE(npu_mod_loaded());
	ASSERT_TRUE(npu_wait_node(0, false));
	ASSERT_EQ(-ENOENT, npu_mod_unload_once());
}

TEST_TIMEOUT(reload_cycles, 120)
{
	char params[512];
	struct npu_get_info info;
	int translates;

	npu_mod_params_string(&saved, params, sizeof(params));
	for (int cycle = 0; cycle < 3; cycle++) {
		ASSERT_EQ(0, npu_mod_unload());
		ASSERT_FALSE(npu_mod_loaded());
		ASSERT_TRUE(npu_wait_node(0, false));
		ASSERT_EQ(0, npu_mod_load(params));
		ASSERT_TRUE(npu_mod_loaded());
		ASSERT_TRUE(npu_wait_node(0, true));
		ASSERT_EQ(0, info_of(0, &info));
		EXPECT_EQ(0, info.device_index);
		EXPECT_EQ(NPU_DRIVER_VERSION, info.driver_version);
		EXPECT_EQ(first_size(saved.mem_size), info.mem_total);
		EXPECT_EQ(0, info.mem_used);
		translates = carrier_translates(0);
		if (saved.carrier[0] == 'Y' && free_testdevs() > 0) {
			EXPECT_TRUE(info.caps & NPU_CAP_PCI_CARRIER);
			if (translates >= 0)
				EXPECT_EQ(translates, !!(info.caps & NPU_CAP_IOMMU));
		}
		if (cycle == 0)
			TH_LOG("params '%s': caps %#x, carrier group translates: %d",
			       params, info.caps, translates);
		ASSERT_EQ(0, copy_roundtrip(0));
	}
	if (npu_mod_restore(&saved))
		TH_LOG("cannot restore npu.ko");
}

struct bad_param {
	const char *params;
	int err;
	const char *msg;	/* in the kernel log */
};

static const struct bad_param bad_params[] = {
	{ "num_devices=0", -EINVAL, "npu: num_devices=0: must be 1..8" },
	{ "num_devices=9", -EINVAL, "npu: num_devices=9: must be 1..8" },
	{ "num_devices=4294967295", -EINVAL, "must be 1..8" },
	{ "mem_size=1K", -EINVAL,
	  "npu: mem_size '1K': each size must be 64M..1T in steps of 2M" },
	{ "mem_size=abc", -EINVAL, "npu: mem_size 'abc': each size must be" },
	/* 3M is below the 64M minimum (and not a 2M multiple) */
	{ "mem_size=3M", -EINVAL, "npu: mem_size '3M': each size must be" },
	/* in range but not a multiple of 2M */
	{ "mem_size=65M", -EINVAL, "npu: mem_size '65M': each size must be" },
	{ "mem_size=67108865", -EINVAL, "npu: mem_size '67108865'" },
	{ "mem_size=2T", -EINVAL, "npu: mem_size '2T'" },
	{ "mem_size=64MB", -EINVAL, "npu: mem_size '64MB'" },
	{ "mem_size=", -EINVAL, "npu: mem_size '': each size must be" },
	{ "mem_size=64M,,64M", -EINVAL, "npu: mem_size '': each size must be" },
	{ "mem_size=64M,1K", -EINVAL, "npu: mem_size '1K'" },
	{ "mem_size=64M,64M,64M,64M,64M,64M,64M,64M,64M", -EINVAL,
	  "npu: mem_size: more than 8 sizes" },
	{ "mem_size=64M,64M,64M,64M,64M,64M,64M,64M,64M,64M", -EINVAL,
	  "npu: mem_size: more than 8 sizes" },
	{ "soc_name=", -EINVAL,
	  "npu: soc_name: must be 1..31 printable ASCII characters" },
	/* 32 characters: one too many for GET_INFO's 32 bytes with the NUL */
	{ "soc_name=ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", -EINVAL,
	  "npu: soc_name: must be 1..31" },
	{ "soc_name=caf\xc3\xa9", -EINVAL, "npu: soc_name: must be 1..31" },
	{ "cube_cores=0", -EINVAL,
	  "npu: cube_cores=0 vector_cores=48: each must be 1..65535" },
	{ "vector_cores=0", -EINVAL, "npu: cube_cores=24 vector_cores=0" },
	{ "cube_cores=65536", -EINVAL, "npu: cube_cores=65536" },
	{ "vector_cores=4294967295", -EINVAL, "vector_cores=4294967295: each" },
};

TEST_F_TIMEOUT(mod, bad_parameters, 120)
{
	char params[512], last[512];
	int kfd, fails = 0;

	ASSERT_EQ(0, npu_mod_unload());
	for (size_t i = 0; i < sizeof(bad_params) / sizeof(bad_params[0]); i++) {
		const struct bad_param *b = &bad_params[i];
		int ret;

		kfd = kmsg_open_end();
		ASSERT_LE(0, kfd);
		ret = npu_mod_load(b->params);
		if (ret != b->err) {
			TH_LOG("'%s': load returned %d (%s), expected %d", b->params,
			       ret, strerror(-ret), b->err);
			fails++;
			if (!ret)
				ASSERT_EQ(0, npu_mod_unload());
		} else if (!kmsg_find(kfd, b->msg, last, sizeof(last))) {
			TH_LOG("'%s': no \"%s\" in the kernel log (last npu line: \"%s\")",
			       b->params, b->msg, last);
			fails++;
		}
		close(kfd);
		/* Nothing of it stays behind. */
		EXPECT_FALSE(npu_mod_loaded());
		EXPECT_NE(0, access("/dev/npu0", F_OK));
	}
	EXPECT_EQ(0, fails);

	/* A bad value for a parameter's type is refused by the kernel. */
	EXPECT_EQ(-EINVAL, npu_mod_load("num_devices=abc"));
	EXPECT_EQ(-EINVAL, npu_mod_load("carrier=maybe"));
	EXPECT_EQ(-EINVAL, npu_mod_load("cube_cores=-1"));
	EXPECT_FALSE(npu_mod_loaded());

	/* A clean load works after all of that. */
	npu_mod_params_string(&saved, params, sizeof(params));
	ASSERT_EQ(0, npu_mod_load(params));
	ASSERT_TRUE(npu_wait_node(0, true));
	ASSERT_EQ(0, copy_roundtrip(0));
}

/* The chip model GET_INFO reports comes from the module parameters. */
TEST_F_TIMEOUT(mod, chip_model_parameters, 60)
{
	static const char *const names[] = {
		"A", "ABCDEFGHIJKLMNOPQRSTUVWXYZ01234", "Sim-NPU_2.0+x",
	};
	struct npu_get_info info;
	char params[512];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ASSERT_EQ(0, npu_mod_unload());
		snprintf(params, sizeof(params),
			 "num_devices=2 mem_size=%s carrier=%s soc_name=%s cube_cores=%zu vector_cores=%zu",
			 saved.mem_size, saved.carrier, names[i],
			 i ? (size_t)65535 : 1, 2 * i + 1);
		ASSERT_EQ(0, npu_mod_load(params));
		for (int n = 0; n < 2; n++) {
			ASSERT_TRUE(npu_wait_node(n, true));
			ASSERT_EQ(0, info_of(n, &info));
			EXPECT_STREQ(names[i], info.soc_name);
			EXPECT_EQ(i ? 65535 : 1, info.cube_cores);
			EXPECT_EQ(2 * i + 1, info.vector_cores);
		}
	}
	/* A reload makes new UUIDs, and the clock starts again. */
	{
		uint64_t created[2];
		uint8_t uuid[16];
		struct timespec ts;

		for (int r = 0; r < 2; r++) {
			if (r) {
				ASSERT_EQ(0, npu_mod_unload());
				npu_mod_params_string(&saved, params, sizeof(params));
				ASSERT_EQ(0, npu_mod_load(params));
				ASSERT_TRUE(npu_wait_node(0, true));
			}
			ASSERT_EQ(0, info_of(0, &info));
			clock_gettime(CLOCK_MONOTONIC, &ts);
			created[r] = ts.tv_sec * 1000000000ULL + ts.tv_nsec -
				     info.clock_ns;
			if (!r)
				memcpy(uuid, info.uuid, sizeof(uuid));
		}
		EXPECT_NE(0, memcmp(uuid, info.uuid, sizeof(uuid)));
		EXPECT_STREQ(saved.soc_name, info.soc_name);
		EXPECT_LT(created[0], created[1]);
	}
}

/*
 * A part's name brings its profile (the vendor's platform files: cores,
 * HBM size); cube_cores, vector_cores and mem_size given override it, and
 * sysfs shows what the module took. Any other name is the simulated
 * chip's profile.
 */
TEST_F_TIMEOUT(mod, chip_profiles, 90)
{
	static const struct {
		const char *params;
		const char *name;
		unsigned int cube, vector;
		unsigned long long mem;
	} cases[] = {
		{ "soc_name=Ascend910B3", "Ascend910B3", 20, 40, 64ULL << 30 },
		{ "soc_name=Ascend910B1", "Ascend910B1", 24, 48, 64ULL << 30 },
		{ "soc_name=Ascend910B4 cube_cores=8", "Ascend910B4", 8, 40, 32ULL << 30 },
		{ "soc_name=Ascend910B4 vector_cores=24 mem_size=1G", "Ascend910B4", 20, 24,
		  1ULL << 30 },
		/* an explicit value equal to another profile's stays */
		{ "soc_name=Ascend910B3 cube_cores=24", "Ascend910B3", 24, 40, 64ULL << 30 },
		{ "soc_name=ascend910b3", "ascend910b3", 24, 48, 16ULL << 30 },
		{ "soc_name=Ascend910_9392", "Ascend910_9392", 24, 48, 64ULL << 30 },
		{ "soc_name=Ascend310B1", "Ascend310B1", 1, 1, 32ULL << 30 },
	};
	struct npu_get_info info;
	char params[512], val[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_EQ(0, npu_mod_unload());
		snprintf(params, sizeof(params), "num_devices=2 carrier=%s %s", saved.carrier,
			 cases[i].params);
		ASSERT_EQ(0, npu_mod_load(params));
		for (int n = 0; n < 2; n++) {
			ASSERT_TRUE(npu_wait_node(n, true));
			ASSERT_EQ(0, info_of(n, &info));
			EXPECT_STREQ(cases[i].name, info.soc_name);
			EXPECT_EQ(cases[i].cube, info.cube_cores);
			EXPECT_EQ(cases[i].vector, info.vector_cores);
			EXPECT_EQ(cases[i].mem, info.mem_total);
		}
		ASSERT_EQ(0, npu_mod_param("cube_cores", val, sizeof(val)));
		EXPECT_EQ(cases[i].cube, strtoul(val, NULL, 10));
		ASSERT_EQ(0, npu_mod_param("vector_cores", val, sizeof(val)));
		EXPECT_EQ(cases[i].vector, strtoul(val, NULL, 10));
		ASSERT_EQ(0, npu_mod_param("mem_size", val, sizeof(val)));
		EXPECT_EQ(cases[i].mem, strtoull(val, NULL, 10) << (strchr(val, 'G') ? 30 : 0));
		ASSERT_EQ(0, copy_roundtrip(0));
	}
	ASSERT_EQ(0, npu_mod_unload());
	npu_mod_params_string(&saved, params, sizeof(params));
	ASSERT_EQ(0, npu_mod_load(params));
	ASSERT_TRUE(npu_wait_node(0, true));
}

TEST_F_TIMEOUT(mod, two_devices, 60)
{
	char params[512];
	struct npu_get_info info;

	ASSERT_EQ(0, npu_mod_unload());
	snprintf(params, sizeof(params), "num_devices=2 mem_size=%s carrier=%s",
		 saved.mem_size, saved.carrier);
	ASSERT_EQ(0, npu_mod_load(params));
	ASSERT_TRUE(npu_wait_node(0, true));
	ASSERT_TRUE(npu_wait_node(1, true));
	EXPECT_NE(0, access("/dev/npu2", F_OK));
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, info_of(i, &info));
		EXPECT_EQ(i, info.device_index);
		ASSERT_EQ(0, copy_roundtrip(i));
	}
	ASSERT_EQ(0, npu_mod_unload());
	ASSERT_TRUE(npu_wait_node(0, false));
	ASSERT_TRUE(npu_wait_node(1, false));
}

TEST_F_TIMEOUT(mod, per_device_mem_size_and_fallback, 60)
{
	struct npu_get_info info;
	int carriers = saved.carrier[0] == 'Y' ? free_testdevs() : 0;

	char params[128];

	ASSERT_EQ(0, npu_mod_unload());
	/* The last size repeats; devices past the carriers use direct DMA. */
	snprintf(params, sizeof(params), "num_devices=3 mem_size=64M,128M carrier=%s",
		 saved.carrier);
	ASSERT_EQ(0, npu_mod_load(params));
	for (int i = 0; i < 3; i++) {
		ASSERT_TRUE(npu_wait_node(i, true));
		ASSERT_EQ(0, info_of(i, &info));
		EXPECT_EQ(i, info.device_index);
		EXPECT_EQ(i == 0 ? 64ULL << 20 : 128ULL << 20, info.mem_total);
		TH_LOG("npu%d: caps %#x (%d free carriers)", i, info.caps, carriers);
		if (i >= carriers) {
			EXPECT_EQ(0, info.caps & (NPU_CAP_PCI_CARRIER | NPU_CAP_IOMMU));
		}
		ASSERT_EQ(0, copy_roundtrip(i));
	}
	EXPECT_NE(0, access("/dev/npu3", F_OK));
	ASSERT_EQ(0, npu_mod_unload());
	/* The most devices there can be. */
	snprintf(params, sizeof(params), "num_devices=8 mem_size=64M carrier=%s",
		 saved.carrier);
	ASSERT_EQ(0, npu_mod_load(params));
	for (int i = 0; i < 8; i++) {
		ASSERT_TRUE(npu_wait_node(i, true));
		ASSERT_EQ(0, info_of(i, &info));
		EXPECT_EQ(i, info.device_index);
	}
	ASSERT_EQ(0, npu_mod_unload());
	for (int i = 0; i < 8; i++)
		ASSERT_TRUE(npu_wait_node(i, false));
}

struct sync_call {
	int fd;
	uint32_t stream;
	int ret;
};

static void *sync_call(void *p)
{
	struct sync_call *c = p;

	c->ret = npu_sync(c->fd, c->stream, -1);
	return NULL;
}

#define REMOVE_LEN	(64 * SZ_2M / 2)

/*
 * Hot removal of npu1's PCI carrier with DMA in flight and a thread
 * waiting for it: the remove completes, DMA stops, every pin goes, the
 * open file answers -ENODEV to everything and closes cleanly, npu0 is
 * untouched, and the module unloads. The function comes back with a PCI
 * rescan and a reload.
 */
TEST_F_TIMEOUT(mod, carrier_removed_with_dma_in_flight, 300)
{
	char link[256], path[300], *bdf;
	unsigned char *host = npu_host_mem(REMOVE_LEN);
	struct sync_call c = { .ret = 1 };
	struct npu_cmd cmds[16];
	struct npu_get_info info;
	long long pins0 = npu_pins_held();
	uint64_t va, *flag;
	uint32_t handle, s2, s3;
	pthread_t t;
	ssize_t n;
	int fd0;

	ASSERT_NONNULL(host);
	self->fd = npu_open(1);
	if (self->fd < 0)
		SKIP(return, "no /dev/npu1");
	ASSERT_EQ(0, npu_info(self->fd, &info));
	if (!(info.caps & NPU_CAP_PCI_CARRIER))
		SKIP(return, "npu1 has no PCI carrier");
	n = readlink("/sys/class/misc/npu1/device", link, sizeof(link) - 1);
	ASSERT_LT(0, n);
	link[n] = 0;
	bdf = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	TH_LOG("npu1 rides on %s", bdf);

	/* DMA in flight: long copies from pinned memory, a blocked wait. */
	va = npu_hole(REMOVE_LEN, SZ_2M);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_reserve(self->fd, va, REMOVE_LEN));
	ASSERT_EQ(0, npu_alloc(self->fd, REMOVE_LEN, SZ_2M, &handle));
	ASSERT_EQ(0, npu_map(self->fd, va, REMOVE_LEN, handle));
	ASSERT_EQ(0, npu_set_access(self->fd, va, REMOVE_LEN, 1, NPU_ACCESS_READWRITE));
	ASSERT_EQ(0, npu_register(self->fd, host, REMOVE_LEN, 0, 0));
	ASSERT_LT(pins0, npu_pins_held());
	ASSERT_EQ(0, npu_stream_create(self->fd, &c.stream));
	for (int i = 0; i < 16; i++)
		cmds[i] = npu_copy_cmd(va, ptr64(host), REMOVE_LEN, NPU_CMD_SRC_HOST);
	ASSERT_EQ(0, npu_submit(self->fd, c.stream, cmds, 16, NULL));
	flag = (uint64_t *)host;
	ASSERT_EQ(0, npu_stream_create(self->fd, &s2));
	cmds[0] = (struct npu_cmd){ .op = NPU_OP_WAIT_VALUE, .flags = NPU_CMD_SRC_HOST,
				    .src = ptr64(flag), .value = ~0ULL };
	ASSERT_EQ(0, npu_submit(self->fd, s2, cmds, 1, NULL));
	/* and a stream parked on a WAIT_STREAM for the blocked one */
	ASSERT_EQ(0, npu_stream_create(self->fd, &s3));
	cmds[1] = (struct npu_cmd){ .op = NPU_OP_WAIT_STREAM, .src = s2,
				    .value = 1 };
	ASSERT_EQ(0, npu_submit(self->fd, s3, &cmds[1], 1, NULL));
	/* and copies faulting a mirror's pages in (DMA-mapped, never pinned) */
	{
		char *m = (char *)(uintptr_t)npu_hole(8 * SZ_2M, SZ_2M);
		struct npu_mirror_map mm = { .size = sizeof(mm), .addr = ptr64(m),
					     .length = 8 * SZ_2M };
		uint32_t s4;

		ASSERT_NE(NULL, m);
		ASSERT_EQ(m, mmap(m, 8 * SZ_2M, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
		memset(m, 0x6d, 8 * SZ_2M);
		ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_MIRROR_MAP, &mm));
		ASSERT_EQ(0, npu_stream_create(self->fd, &s4));
		for (int i = 0; i < 16; i++)
			cmds[i] = npu_copy_cmd(va, ptr64(m) + (i & 3) * 2 * SZ_2M,
					       2 * SZ_2M, 0);
		ASSERT_EQ(0, npu_submit(self->fd, s4, cmds, 16, NULL));
	}
	c.fd = self->fd;
	ASSERT_EQ(0, pthread_create(&t, NULL, sync_call, &c));
	usleep(100 * 1000);

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", bdf);
	ASSERT_OK(npu_write_file(path, "1"));
	ASSERT_EQ(0, pthread_join(t, NULL));
	TH_LOG("the waiting STREAM_SYNC returned %d", c.ret);
	EXPECT_TRUE(c.ret == -ECANCELED || c.ret == -ENODEV);
	EXPECT_EQ(pins0, npu_pins_held());
	EXPECT_TRUE(npu_wait_node(1, false));

	EXPECT_EQ(-ENODEV, npu_info(self->fd, &info));
	EXPECT_EQ(-ENODEV, npu_submit(self->fd, s2, cmds, 1, NULL));
	EXPECT_EQ(-ENODEV, npu_sync(self->fd, s2, 0));
	EXPECT_EQ(-ENODEV, npu_alloc(self->fd, SZ_2M, SZ_2M, &handle));
	EXPECT_EQ(-ENODEV, npu_register(self->fd, host, SZ_4K, 0, 0));
	EXPECT_EQ(-ENODEV, npu_stream_create(self->fd, &s2));
	/* fdinfo still reads: unplugged, nothing pinned, no stream left */
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", self->fd);
	EXPECT_EQ(0, npu_file_value_at(AT_FDCWD, path, "npu-memory-host-pinned", ':'));
	EXPECT_EQ(0, npu_file_value_at(AT_FDCWD, path, "npu-streams", ':'));
	EXPECT_EQ(REMOVE_LEN >> 10,
		  npu_file_value_at(AT_FDCWD, path, "npu-memory-device", ':'));
	{
		char buf[2048] = "";
		int ffd = open(path, O_RDONLY | O_CLOEXEC);

		ASSERT_LE(0, ffd);
		EXPECT_LT(0, read(ffd, buf, sizeof(buf) - 1));
		close(ffd);
		EXPECT_NONNULL(strstr(buf, "npu-state:\tunplugged\n"));
		EXPECT_NONNULL(strstr(buf, "npu-pdev:\t"));
	}

	/* The other NPU goes on. */
	fd0 = npu_open(0);
	ASSERT_LE(0, fd0);
	ASSERT_EQ(0, npu_register(fd0, host, SZ_4K, 0, 0));
	ASSERT_EQ(0, npu_stream_create(fd0, &s2));
	ASSERT_EQ(0, npu_run(fd0, s2, npu_memset_cmd(ptr64(host), 0x5a, SZ_4K,
						      NPU_CMD_DST_HOST)));
	EXPECT_EQ(0x5a, host[SZ_4K - 1]);
	close(fd0);

	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(pins0, npu_pins_held());
	ASSERT_EQ(0, npu_mod_unload());
	ASSERT_OK(npu_write_file("/sys/bus/pci/rescan", "1"));
	/* The teardown loads the module again, with npu1 on its carrier. */
}

/*
 * A dma-buf of npu1's memory outlives its carrier's removal and its
 * context: a CPU mapping made before goes on reading and writing the
 * same bytes, a new one can be made, and the dma-buf (its fd, then its
 * mapping alone) keeps the module loaded until it is gone.
 */
TEST_F_TIMEOUT(mod, dmabuf_outlives_carrier_removal, 120)
{
	struct npu_dmabuf_export e = { .size = sizeof(e), .fd = -1 };
	char link[256], path[300], *bdf;
	struct npu_get_info info;
	unsigned char *p, *q;
	uint32_t handle, s;
	uint64_t va;
	ssize_t n;
	int dfd;

	self->fd = npu_open(1);
	if (self->fd < 0)
		SKIP(return, "no /dev/npu1");
	ASSERT_EQ(0, npu_info(self->fd, &info));
	if (!(info.caps & NPU_CAP_PCI_CARRIER))
		SKIP(return, "npu1 has no PCI carrier");
	n = readlink("/sys/class/misc/npu1/device", link, sizeof(link) - 1);
	ASSERT_LT(0, n);
	link[n] = 0;
	bdf = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;

	va = npu_reserve_new(self->fd, SZ_2M, SZ_2M);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_alloc(self->fd, SZ_2M, SZ_2M, &handle));
	ASSERT_EQ(0, npu_map(self->fd, va, SZ_2M, handle));
	ASSERT_EQ(0, npu_set_access(self->fd, va, SZ_2M, 1, NPU_ACCESS_READWRITE));
	ASSERT_EQ(0, npu_stream_create(self->fd, &s));
	ASSERT_EQ(0, npu_run(self->fd, s, npu_memset_cmd(va, 0x6b, SZ_2M, 0)));
	e.handle = handle;
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_DMABUF_EXPORT, &e));
	dfd = e.fd;
	p = mmap(NULL, SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
	ASSERT_NE(MAP_FAILED, (void *)p);

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", bdf);
	ASSERT_OK(npu_write_file(path, "1"));
	EXPECT_TRUE(npu_wait_node(1, false));
	EXPECT_EQ(-ENODEV, npu_ioctl(self->fd, NPU_IOCTL_DMABUF_EXPORT, &e));
	EXPECT_EQ(0x6b, p[0]);
	EXPECT_EQ(0x6b, p[SZ_2M - 1]);
	p[4096] = 0x11;
	close(self->fd);
	self->fd = -1;
	q = mmap(NULL, SZ_4K, PROT_READ, MAP_SHARED, dfd, SZ_4K);
	ASSERT_NE(MAP_FAILED, (void *)q);
	EXPECT_EQ(0x11, q[0]);
	EXPECT_EQ(0x6b, q[1]);
	munmap(q, SZ_4K);

	/* the fd holds the module, then the mapping alone does */
	EXPECT_EQ(-EWOULDBLOCK, npu_mod_unload_once());
	ASSERT_EQ(0, close(dfd));
	EXPECT_EQ(-EWOULDBLOCK, npu_mod_unload_once());
	EXPECT_EQ(0x6b, p[SZ_2M / 2]);
	ASSERT_EQ(0, munmap(p, SZ_2M));
	ASSERT_EQ(0, npu_mod_unload());
	ASSERT_OK(npu_write_file("/sys/bus/pci/rescan", "1"));
	/* The teardown loads the module again, with npu1 on its carrier. */
}

/* Attachments of PCI device @bdf to the dma-buf of inode @ino, -1 if unlisted. */
static int bufinfo_attached(unsigned long ino, const char *bdf)
{
	FILE *f = fopen("/sys/kernel/debug/dma_buf/bufinfo", "re");
	char line[256], name[64];
	int found = -1, in = 0;
	unsigned long i;

	if (!f)
		return -2;
	while (fgets(line, sizeof(line), f)) {
		unsigned int flags, mode;
		size_t size;
		long count;

		if (sscanf(line, "%zu\t%x\t%x\t%ld\t%63s\t%lu", &size, &flags,
			   &mode, &count, name, &i) == 6) {
			in = i == ino;
			if (in)
				found = 0;
		} else if (in && line[0] == '\t' &&
			   !strncmp(line + 1, bdf, strlen(bdf)) &&
			   line[1 + strlen(bdf)] == '\n') {
			found++;
		}
	}
	fclose(f);
	return found;
}

/*
 * npu1 imports npu0's dma-buf (DMABUF_IMPORT: host DMA through npu1's
 * carrier) and copies into it when its carrier goes: the shutdown detaches
 * the import while the carrier still exists, the copies are dropped, and
 * the buffer is npu0's as before.
 */
TEST_F_TIMEOUT(mod, dmabuf_import_detached_at_carrier_removal, 120)
{
	struct npu_dmabuf_export e = { .size = sizeof(e), .fd = -1 };
	struct npu_dmabuf_import a = { .size = sizeof(a), .length = SZ_2M };
	char link[256], path[300], *bdf;
	struct npu_cmd c[32];
	struct npu_get_info info;
	unsigned char *host;
	uint32_t s, i;
	uint64_t va;
	struct stat st;
	ssize_t n;
	int fd0, att;

	fd0 = npu_open(0);
	self->fd = npu_open(1);
	if (fd0 < 0 || self->fd < 0)
		SKIP(return, "no /dev/npu1");
	ASSERT_EQ(0, npu_info(self->fd, &info));
	if (!(info.caps & NPU_CAP_PCI_CARRIER))
		SKIP(return, "npu1 has no PCI carrier");
	n = readlink("/sys/class/misc/npu1/device", link, sizeof(link) - 1);
	ASSERT_LT(0, n);
	link[n] = 0;
	bdf = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;

	ASSERT_EQ(0, npu_alloc(fd0, SZ_2M, SZ_2M, &e.handle));
	ASSERT_EQ(0, npu_ioctl(fd0, NPU_IOCTL_DMABUF_EXPORT, &e));
	ASSERT_EQ(0, fstat(e.fd, &st));
	a.fd = e.fd;
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_DMABUF_IMPORT, &a));
	EXPECT_EQ(SZ_4K, a.page_size);
	att = bufinfo_attached(st.st_ino, bdf);
	if (att != -2)
		EXPECT_EQ(1, att);
	va = npu_reserve_new(self->fd, SZ_2M, SZ_2M);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_map(self->fd, va, SZ_2M, a.handle));
	ASSERT_EQ(0, npu_set_access(self->fd, va, SZ_2M, 1, NPU_ACCESS_READWRITE));
	host = npu_host_mem(SZ_2M);
	ASSERT_NONNULL(host);
	memset(host, 0x3e, SZ_2M);
	ASSERT_EQ(0, npu_register(self->fd, host, SZ_2M, 0, 0));
	ASSERT_EQ(0, npu_stream_create(self->fd, &s));
	for (i = 0; i < 32; i++)
		c[i] = npu_copy_cmd(va, ptr64(host), SZ_2M, NPU_CMD_SRC_HOST);
	ASSERT_EQ(0, npu_submit(self->fd, s, c, 32, NULL));

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", bdf);
	ASSERT_OK(npu_write_file(path, "1"));
	EXPECT_TRUE(npu_wait_node(1, false));
	EXPECT_EQ(-ENODEV, npu_ioctl(self->fd, NPU_IOCTL_DMABUF_IMPORT, &a));
	att = bufinfo_attached(st.st_ino, bdf);
	if (att != -2)
		EXPECT_EQ(0, att);
	close(self->fd);
	self->fd = -1;
	/* npu0's memory is npu0's: it maps and holds what the copies left */
	{
		unsigned char *p = mmap(NULL, SZ_2M, PROT_READ, MAP_SHARED, e.fd, 0);

		ASSERT_NE(MAP_FAILED, (void *)p);
		EXPECT_TRUE(p[0] == 0x3e || p[0] == 0);
		munmap(p, SZ_2M);
	}
	close(e.fd);
	close(fd0);
	ASSERT_EQ(0, npu_mod_unload());
	ASSERT_OK(npu_write_file("/sys/bus/pci/rescan", "1"));
	/* The teardown loads the module again, with npu1 on its carrier. */
}

/*
 * A process with a stream whose WAIT_VALUE never comes true, in a context
 * of /dev/npu@index: then a STREAM_SYNC(-1) of it (@destroy false) or a
 * STREAM_DESTROY without FORCE (@destroy true). What the call returned
 * goes to @wr as an int once it returns.
 */
static pid_t blocked_waiter(int index, bool destroy, int wr)
{
	pid_t pid = fork();
	uint64_t *flag;
	uint32_t s;
	int fd, ret;

	if (pid)
		return pid;
	flag = (uint64_t *)npu_host_mem(SZ_4K);
	fd = npu_open(index);
	if (!flag || fd < 0 || npu_register(fd, flag, SZ_4K, 0, 0) ||
	    npu_stream_create(fd, &s))
		_exit(2);
	{
		struct npu_cmd c = npu_value_cmd(NPU_OP_WAIT_VALUE, ptr64(flag), 1,
						 NPU_CMD_SRC_HOST | NPU_WAIT_GEQ);

		if (npu_submit(fd, s, &c, 1, NULL))
			_exit(3);
	}
	ret = destroy ? npu_stream_destroy(fd, s, 0) : npu_sync(fd, s, -1);
	if (write(wr, &ret, sizeof(ret)) != sizeof(ret))
		_exit(4);
	_exit(0);
}

struct remover {
	const char *path;
	volatile int done;
	int ret;
};

static void *remove_call(void *arg)
{
	struct remover *r = arg;

	r->ret = npu_write_file(r->path, "1");
	r->done = 1;
	return NULL;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Removing npu1's carrier waits for nothing another device or a stream
 * being destroyed does (second kernel review, finding 5): a STREAM_SYNC
 * that never ends on npu0 (the one unplug barrier was shared by every
 * device) and a STREAM_DESTROY without FORCE on npu1 whose stream never
 * drains (the stream left the table before its wait, so unplug's abort
 * missed it). The removal finishes at once; the destroy returns (the
 * unplug aborted its stream); the wait on npu0 goes on.
 */
TEST_F_TIMEOUT(mod, carrier_removal_is_not_held_by_waits, 180)
{
	char link[256], path[300], *bdf;
	struct remover rm = { .path = path };
	struct npu_get_info info;
	int sync_pipe[2], destroy_pipe[2], ret = 99, st;
	pid_t syncer, destroyer;
	pthread_t t;
	double t0, took;

	self->fd = npu_open(1);
	if (self->fd < 0)
		SKIP(return, "no /dev/npu1");
	ASSERT_EQ(0, npu_info(self->fd, &info));
	close(self->fd);
	self->fd = -1;
	if (!(info.caps & NPU_CAP_PCI_CARRIER))
		SKIP(return, "npu1 has no PCI carrier");
	{
		ssize_t n = readlink("/sys/class/misc/npu1/device", link, sizeof(link) - 1);

		ASSERT_LT(0, n);
		link[n] = 0;
	}
	bdf = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", bdf);

	ASSERT_OK(pipe(sync_pipe));
	ASSERT_OK(pipe(destroy_pipe));
	syncer = blocked_waiter(0, false, sync_pipe[1]);
	ASSERT_LT(0, syncer);
	destroyer = blocked_waiter(1, true, destroy_pipe[1]);
	ASSERT_LT(0, destroyer);
	close(sync_pipe[1]);
	close(destroy_pipe[1]);
	usleep(300 * 1000);

	t0 = mono_s();
	ASSERT_EQ(0, pthread_create(&t, NULL, remove_call, &rm));
	while (!rm.done && mono_s() - t0 < 30)
		usleep(10 * 1000);
	took = mono_s() - t0;
	TH_LOG("the removal took %.2f s%s", took, rm.done ? "" : " and was still going");
	EXPECT_TRUE(rm.done);
	/* end the waits so that a removal held by them can finish */
	if (!rm.done) {
		kill(destroyer, SIGKILL);
		kill(syncer, SIGKILL);
	}
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, rm.ret);
	/* the destroy returned by itself; the other device's wait did not */
	EXPECT_EQ((ssize_t)sizeof(ret), read(destroy_pipe[0], &ret, sizeof(ret)));
	EXPECT_EQ(0, ret);
	ASSERT_EQ(destroyer, waitpid(destroyer, &st, 0));
	EXPECT_EQ(0, st);
	EXPECT_EQ(0, waitpid(syncer, &st, WNOHANG));
	kill(syncer, SIGKILL);
	ASSERT_EQ(syncer, waitpid(syncer, &st, 0));
	close(sync_pipe[0]);
	close(destroy_pipe[0]);
	ASSERT_EQ(0, npu_mod_unload());
	ASSERT_OK(npu_write_file("/sys/bus/pci/rescan", "1"));
	/* The teardown loads the module again, with npu1 on its carrier. */
}

TEST_F_TIMEOUT(mod, carrier_off_no_iommu, 60)
{
	char params[512];
	struct npu_get_info info;

	ASSERT_EQ(0, npu_mod_unload());
	snprintf(params, sizeof(params), "num_devices=1 mem_size=%s carrier=0",
		 saved.mem_size);
	ASSERT_EQ(0, npu_mod_load(params));
	ASSERT_TRUE(npu_wait_node(0, true));
	ASSERT_EQ(0, info_of(0, &info));
	EXPECT_EQ(0, info.device_index);
	EXPECT_EQ(0, info.caps & NPU_CAP_IOMMU);
	EXPECT_EQ(0, info.caps & NPU_CAP_PCI_CARRIER);
	/* Host DMA works without the IOMMU too. */
	ASSERT_EQ(0, copy_roundtrip(0));
	ASSERT_EQ(0, npu_mod_unload());
}

int main(int argc, char **argv)
{
	int ret, r2;

	if (npu_mod_read_params(&saved))
		printf("# npu.ko is not loaded (no %s/parameters): tests will fail\n",
		       NPU_MOD_SYSFS);
	else
		printf("# npu.ko parameters: num_devices=%s mem_size=%s carrier=%s soc_name=%s cube_cores=%s vector_cores=%s\n",
		       saved.num_devices, saved.mem_size, saved.carrier,
		       saved.soc_name, saved.cube_cores, saved.vector_cores);
	ret = harness_run(argc, argv);
	/* Whatever happened above (a test killed by its timeout, say). */
	r2 = npu_mod_restore(&saved);
	if (saved.valid && r2) {
		printf("# cannot reload npu.ko with its parameters: %s\n",
		       strerror(-r2));
		ret = 1;
	}
	return ret;
}
