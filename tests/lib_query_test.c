// SPDX-License-Identifier: MIT
/*
 * libacl: device queries (run mode, SoC name, attributes, status,
 * utilization, UUID, PCI bus ids, capabilities) and the device resource
 * limits. The answers are checked against the npu module's parameters
 * (/sys/module/npu/parameters). Skips without /dev/npu0; the test that
 * reloads the module (a platform device, a removed carrier) runs as root
 * only and puts the module back as it found it.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "lib_util.h"
#include "npu_mod_util.h"

#define PARAMS	"/sys/module/npu/parameters/"

/* A module parameter's text without the newline; "" if none. */
static void param(const char *name, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	buf[0] = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

/* Write @s to @path (sysfs): 0 or -errno. */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : n == (ssize_t)strlen(s) ? 0 : -EIO;
	close(fd);
	return (int)n;
}

static long param_num(const char *name)
{
	char buf[32];

	param(name, buf, sizeof(buf));
	return buf[0] ? strtol(buf, NULL, 10) : -1;
}

/* The L2 size of the module's SoC: the vendor's platform files (SoCInfo l2_size). */
static int64_t soc_l2_size(void)
{
	char soc[64];

	param("soc_name", soc, sizeof(soc));
	if (!strcmp(soc, "Ascend910B4"))
		return 96LL << 20;
	return 192LL << 20;
}

#define NEED_INIT() do {							\
	if (!have_npu(0))							\
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");		\
	ASSERT_ACL_OK(aclInit(NULL));						\
} while (0)

TEST(uninitialised)
{
	aclrtUtilizationInfo u = { 0 };
	aclrtDeviceStatus st;
	aclrtRunMode mode;
	aclrtUuid uuid;
	int64_t v64;
	int32_t v;
	uint32_t u32;
	char bus[16];

	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtGetRunMode(&mode));
	EXPECT_NULL(aclrtGetSocName());
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &v64));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtQueryDeviceStatus(0, &st));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtGetDeviceUtilizationRate(0, &u));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtDeviceGetUuid(0, &uuid));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtDeviceGetPCIBusId(0, bus, sizeof(bus)));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtDeviceGetByPCIBusId("0000:00:02.0", &v));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE,
		   aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &u32));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 1));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtResetDeviceResLimit(0));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtDeviceDisablePeerAccess(1));
	EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtDevicePeerAccessStatus(0, 1, &v));
}

TEST(run_mode)
{
	aclrtRunMode mode = ACL_DEVICE;

	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtGetRunMode(&mode));
	EXPECT_EQ(ACL_HOST, mode);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetRunMode(NULL));
}

/* The module's soc_name, asked without a device set, cached. */
TEST(soc_name)
{
	const char *name, *again;
	char want[64];

	NEED_INIT();
	param("soc_name", want, sizeof(want));
	ASSERT_NE(0, want[0]);
	name = aclrtGetSocName();
	ASSERT_NONNULL(name);
	EXPECT_STREQ(want, name);
	ASSERT_ACL_OK(aclrtSetDevice(0));
	again = aclrtGetSocName();
	EXPECT_EQ(name, again);
	EXPECT_STREQ(want, again);
	TH_LOG("SoC %s", name);
}

TEST(device_info)
{
	static const aclrtDevAttr simt[] = {
		ACL_DEV_ATTR_WARP_SIZE, ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE,
		ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE, ACL_DEV_ATTR_MAX_GRID_DIM_X,
		ACL_DEV_ATTR_MAX_GRID_DIM_Y, ACL_DEV_ATTR_MAX_GRID_DIM_Z,
		ACL_DEV_ATTR_MAX_BLOCK_PER_GRID, ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK,
		ACL_DEV_ATTR_MAX_BLOCK_DIM_X, ACL_DEV_ATTR_MAX_BLOCK_DIM_Y,
		ACL_DEV_ATTR_MAX_BLOCK_DIM_Z,
	};
	static const aclrtDevAttr zero[] = {
		ACL_DEV_ATTR_SMP_ID,
		ACL_DEV_ATTR_SUPER_POD_SERVER_ID, ACL_DEV_ATTR_SUPER_POD_ID,
		ACL_DEV_ATTR_CUST_OP_PRIVILEGE, ACL_DEV_ATTR_MAINBOARD_ID,
		ACL_DEV_ATTR_IS_VIRTUAL,
	};
	static const int bad[] = { 0, 2, 100, 103, 200, 213, 300, 303, 400, 410, 500, 502, 600, 602, -1 };
	long cube = param_num("cube_cores"), vector = param_num("vector_cores");
	size_t free_mem, total;
	uint32_t count;
	int64_t v = -5;

	NEED_INIT();
	ASSERT_LT(0, cube);
	ASSERT_LT(0, vector);
	ASSERT_ACL_OK(aclrtGetDeviceCount(&count));
	/* no device set */
	for (uint32_t d = 0; d < count; d++) {
		ASSERT_ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_AICPU_CORE_NUM, &v));
		EXPECT_EQ(6, v);
		ASSERT_ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_AICORE_CORE_NUM, &v));
		EXPECT_EQ(cube, v);
		ASSERT_ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_CUBE_CORE_NUM, &v));
		EXPECT_EQ(cube, v);
		ASSERT_ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_VECTOR_CORE_NUM, &v));
		EXPECT_EQ(vector, v);
		for (size_t i = 0; i < sizeof(simt) / sizeof(simt[0]); i++) {
			v = -5;
			EXPECT_ACL_OK(aclrtGetDeviceInfo(d, simt[i], &v));
			EXPECT_EQ(0, v);
		}
		for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++) {
			v = -5;
			EXPECT_ACL_OK(aclrtGetDeviceInfo(d, zero[i], &v));
			EXPECT_EQ(0, v);
		}
		ASSERT_ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_L2_CACHE_SIZE, &v));
		EXPECT_EQ(soc_l2_size(), v);
		ASSERT_ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_PHY_CHIP_ID, &v));
		EXPECT_EQ(d, v);
		/* in no super pod, or an A3 part's: server 0, two dies a chip (lib_chip_test) */
		ASSERT_ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_SUPER_POD_DEVICE_ID, &v));
		EXPECT_EQ(lib_soc_is("Ascend910_93") ? (int64_t)((d / 2) << 18 | (d % 2) << 16 | d) : 0, v);
		ASSERT_ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_NPU_ARCH, &v));
		EXPECT_EQ(2201, v);
		v = -5;
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			   aclrtGetDeviceInfo(d, ACL_DEV_ATTR_HD_CONNECT_TYPE, &v));
		EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			   aclrtGetDeviceInfo(d, ACL_DEV_ATTR_DEVICE_FORM_FACTOR, &v));
		EXPECT_EQ(-5, v);
		/* the memory aclrtGetMemInfo reports */
		ASSERT_ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &v));
		ASSERT_ACL_OK(aclrtSetDevice((int32_t)d));
		ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_mem, &total));
		EXPECT_EQ((int64_t)total, v);
		/* the same with the device set */
		ASSERT_ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_VECTOR_CORE_NUM, &v));
		EXPECT_EQ(vector, v);
		ASSERT_ACL_OK(aclrtResetDevice((int32_t)d));
	}
	/* bad inputs: the runtime layer says 107000 for ids and attrs */
	v = -5;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceInfo(0, ACL_DEV_ATTR_NPU_ARCH, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceInfo(count, ACL_DEV_ATTR_NPU_ARCH, &v));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceInfo(64, ACL_DEV_ATTR_NPU_ARCH, &v));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceInfo(UINT32_MAX, ACL_DEV_ATTR_NPU_ARCH, &v));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceInfo(0, (aclrtDevAttr)bad[i], &v));
	EXPECT_EQ(-5, v);
}

TEST(device_status)
{
	aclrtDeviceStatus st = ACL_RT_DEVICE_STATUS_END;
	uint32_t count;

	NEED_INIT();
	ASSERT_ACL_OK(aclrtGetDeviceCount(&count));
	for (uint32_t d = 0; d < count; d++) {
		st = ACL_RT_DEVICE_STATUS_END;
		ASSERT_ACL_OK(aclrtQueryDeviceStatus((int32_t)d, &st));
		EXPECT_EQ(ACL_RT_DEVICE_STATUS_NORMAL, st);
	}
	ASSERT_ACL_OK(aclrtSetDevice(0));
	st = ACL_RT_DEVICE_STATUS_END;
	ASSERT_ACL_OK(aclrtQueryDeviceStatus(0, &st));
	EXPECT_EQ(ACL_RT_DEVICE_STATUS_NORMAL, st);
	st = ACL_RT_DEVICE_STATUS_END;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtQueryDeviceStatus(0, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtQueryDeviceStatus(-1, &st));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtQueryDeviceStatus((int32_t)count, &st));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtQueryDeviceStatus(64, &st));
	EXPECT_EQ(ACL_RT_DEVICE_STATUS_END, st);
}

/* Memory utilization is the driver's figure: memory allocated on the device. */
TEST(utilization)
{
	aclrtUtilizationInfo u;
	size_t free_mem, total;
	void *p = NULL;
	int before;

	NEED_INIT();
	memset(&u, 0x5a, sizeof(u));
	u.utilizationExtend = NULL;
	ASSERT_ACL_OK(aclrtGetDeviceUtilizationRate(0, &u));
	EXPECT_EQ(-1, u.cubeUtilization);
	EXPECT_EQ(-1, u.vectorUtilization);
	EXPECT_EQ(-1, u.aicpuUtilization);
	EXPECT_LE(0, u.memoryUtilization);
	EXPECT_GE(100, u.memoryUtilization);
	EXPECT_NULL(u.utilizationExtend);
	before = u.memoryUtilization;
	/* half of the device (lazily backed: it costs nothing) */
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_mem, &total));
	ASSERT_ACL_OK(aclrtMalloc(&p, total / 2, ACL_MEM_MALLOC_HUGE_ONLY));
	ASSERT_ACL_OK(aclrtGetDeviceUtilizationRate(0, &u));
	TH_LOG("memory utilization %d%% before, %d%% with half the device allocated",
	       before, u.memoryUtilization);
	EXPECT_LE(before + 49, u.memoryUtilization);
	ASSERT_ACL_OK(aclrtFree(p));
	ASSERT_ACL_OK(aclrtGetDeviceUtilizationRate(0, &u));
	EXPECT_EQ(before, u.memoryUtilization);

	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceUtilizationRate(0, NULL));
	u.utilizationExtend = (aclrtUtilizationExtendInfo *)&u;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceUtilizationRate(0, &u));
	u.utilizationExtend = NULL;
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetDeviceUtilizationRate(-1, &u));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetDeviceUtilizationRate(64, &u));
}

TEST(uuid)
{
	aclrtUuid a, b, z;
	uint32_t count;

	NEED_INIT();
	memset(&z, 0, sizeof(z));
	ASSERT_ACL_OK(aclrtGetDeviceCount(&count));
	ASSERT_ACL_OK(aclrtDeviceGetUuid(0, &a));
	EXPECT_NE(0, memcmp(&a, &z, sizeof(a)));
	/* the same with the device set, and every time */
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtDeviceGetUuid(0, &b));
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
	if (count > 1) {
		ASSERT_ACL_OK(aclrtDeviceGetUuid(1, &b));
		EXPECT_NE(0, memcmp(&a, &b, sizeof(a)));
	}
	memcpy(&b, &a, sizeof(b));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetUuid(-1, &b));
	/* the id is checked first */
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetUuid(-1, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetUuid(0, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetUuid((int32_t)count, &b));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetUuid(64, &b));
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
}

/* The carrier's address, as /sys/class/misc/npuN/device names it. */
static bool carrier_bdf(int dev, char *buf, size_t len)
{
	char path[64], link[256], *base;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/misc/npu%d/device", dev);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = 0;
	base = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	if (strncmp(base, "npu-sim", 7) == 0)
		return false;
	snprintf(buf, len, "%s", base);
	return true;
}

TEST(pci_bus_id)
{
	char bus[64], want[64], upper[80];
	uint32_t count;
	int32_t id;

	NEED_INIT();
	ASSERT_ACL_OK(aclrtGetDeviceCount(&count));
	for (uint32_t d = 0; d < count; d++) {
		if (!carrier_bdf((int)d, want, sizeof(want))) {
			EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
				   aclrtDeviceGetPCIBusId((int32_t)d, bus, sizeof(bus)));
			continue;
		}
		memset(bus, 'x', sizeof(bus));
		ASSERT_ACL_OK(aclrtDeviceGetPCIBusId((int32_t)d, bus, sizeof(bus)));
		EXPECT_STREQ(want, bus);
		EXPECT_EQ(12, strlen(bus));
		TH_LOG("device %u: %s", d, bus);
		/* exactly 13 bytes will do */
		memset(bus, 'x', sizeof(bus));
		ASSERT_ACL_OK(aclrtDeviceGetPCIBusId((int32_t)d, bus, 13));
		EXPECT_STREQ(want, bus);
		EXPECT_EQ('x', bus[13]);
		id = -1;
		ASSERT_ACL_OK(aclrtDeviceGetByPCIBusId(want, &id));
		EXPECT_EQ((int32_t)d, id);
		/* the comparison is exact */
		for (size_t i = 0; i <= strlen(want); i++)
			upper[i] = (char)toupper((unsigned char)want[i]);
		if (strcmp(upper, want))
			EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetByPCIBusId(upper, &id));
		snprintf(upper, sizeof(upper), "%s ", want);
		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetByPCIBusId(upper, &id));
		EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetByPCIBusId(want + 5, &id));
		EXPECT_EQ((int32_t)d, id);
	}
	memset(bus, 'x', sizeof(bus));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetPCIBusId(0, bus, 12));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetPCIBusId(0, bus, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetPCIBusId(0, bus, -1));
	EXPECT_EQ('x', bus[0]);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetPCIBusId(0, NULL, 13));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetPCIBusId(-1, bus, 13));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetPCIBusId(-1, NULL, 0));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetPCIBusId(64, bus, 13));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetByPCIBusId(NULL, &id));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetByPCIBusId("0000:00:02.0", NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetByPCIBusId("", &id));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetByPCIBusId("ffff:ff:1f.7", &id));
}

TEST(capability)
{
	int32_t v = -1;

	NEED_INIT();
	ASSERT_ACL_OK(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &v));
	EXPECT_EQ(ACL_DEV_FEATURE_NOT_SUPPORT, v);
	v = -1;
	ASSERT_ACL_OK(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v));
	EXPECT_EQ(ACL_DEV_FEATURE_NOT_SUPPORT, v);
	v = -1;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
		   aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, NULL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceCapability(0, (aclrtDevFeatureType)0, &v));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceCapability(0, (aclrtDevFeatureType)2, &v));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceCapability(0, (aclrtDevFeatureType)22, &v));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID,
		   aclrtGetDeviceCapability(-1, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID,
		   aclrtGetDeviceCapability(64, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v));
	EXPECT_EQ(-1, v);
}

/* aclGetDeviceCapability (torch_npu's device properties): the chip profile */
TEST(acl_device_capability)
{
	long cube = param_num("cube_cores"), vector = param_num("vector_cores");
	uint32_t count, d;
	int64_t v = -1;

	NEED_INIT();
	ASSERT_ACL_OK(aclrtGetDeviceCount(&count));
	/* no device set */
	for (d = 0; d < count; d++) {
		ASSERT_ACL_OK(aclGetDeviceCapability(d, ACL_DEVICE_INFO_AI_CORE_NUM, &v));
		EXPECT_EQ(cube, v);
		ASSERT_ACL_OK(aclGetDeviceCapability(d, ACL_DEVICE_INFO_VECTOR_CORE_NUM, &v));
		EXPECT_EQ(vector, v);
		ASSERT_ACL_OK(aclGetDeviceCapability(d, ACL_DEVICE_INFO_L2_SIZE, &v));
		EXPECT_EQ(soc_l2_size(), v);
	}
	/* the same answer as aclrtGetDeviceInfo */
	ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_L2_CACHE_SIZE, &v));
	EXPECT_EQ(soc_l2_size(), v);
	v = -1;
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetDeviceCapability(count, ACL_DEVICE_INFO_AI_CORE_NUM, &v));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetDeviceCapability(UINT32_MAX, ACL_DEVICE_INFO_L2_SIZE, &v));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetDeviceCapability(0, ACL_DEVICE_INFO_UNDEFINED, &v));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetDeviceCapability(0, (aclDeviceInfo)3, &v));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, NULL));
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_EQ(-1, v);
	ASSERT_ACL_OK(aclFinalize());
}

/* ------------------------------------------------------------------ */
/* Device resource limits                                              */
/* ------------------------------------------------------------------ */

struct limit_arg {
	int32_t dev;
	uint32_t cube;
	aclError ret;
};

/* Another thread, with no current device, reads the limit. */
static void *limit_thread(void *p)
{
	struct limit_arg *a = p;

	a->ret = aclrtGetDeviceResLimit(a->dev, ACL_RT_DEV_RES_CUBE_CORE, &a->cube);
	return NULL;
}

TEST(res_limits)
{
	uint32_t cube = (uint32_t)param_num("cube_cores");
	uint32_t vector = (uint32_t)param_num("vector_cores");
	struct limit_arg arg = { .dev = 0 };
	uint32_t v = 77;
	int64_t info;
	pthread_t t;

	NEED_INIT();
	/* not opened by this process */
	EXPECT_ACL(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_ACL(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 1));
	EXPECT_ACL(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtResetDeviceResLimit(0));
	EXPECT_EQ(77, v);

	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(cube, v);
	ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(vector, v);

	/* 0..count; above it refused, nothing changed */
	ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, cube / 2));
	ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 0));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, cube + 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
		   aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, UINT32_MAX));
	ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(cube / 2, v);
	ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(0, v);
	/* 102 follows the cube limit, 101 and 201 keep the hardware count */
	ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, &info));
	EXPECT_EQ(cube / 2, info);
	ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &info));
	EXPECT_EQ(cube, info);
	ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, &info));
	EXPECT_EQ(vector, info);
	/* per process, any thread */
	ASSERT_EQ(0, pthread_create(&t, NULL, limit_thread, &arg));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(ACL_SUCCESS, arg.ret);
	EXPECT_EQ(cube / 2, arg.cube);
	ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, cube));
	ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(cube, v);
	ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 0));

	/* reset: both types back to the hardware count */
	ASSERT_ACL_OK(aclrtResetDeviceResLimit(0));
	ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(cube, v);
	ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(vector, v);

	/* gone with the device: a new open starts from the hardware count */
	ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 3));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(3, v);	/* one reference left */
	ASSERT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	EXPECT_EQ(vector, v);

	/* bad inputs, in the runtime's order */
	v = 77;
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceResLimit(-1, (aclrtDevResLimitType)5, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetDeviceResLimit(-1, (aclrtDevResLimitType)5, &v));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceResLimit(0, (aclrtDevResLimitType)2, &v));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceResLimit(0, (aclrtDevResLimitType)-1, &v));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceResLimit(64, (aclrtDevResLimitType)2, &v));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetDeviceResLimit(64, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetDeviceResLimit(63, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(77, v);
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDeviceResLimit(-1, (aclrtDevResLimitType)2, 1));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceResLimit(0, (aclrtDevResLimitType)2, 1));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDeviceResLimit(64, ACL_RT_DEV_RES_CUBE_CORE, 1));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDeviceResLimit(-1));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDeviceResLimit(64));
}

/* Limits are per device, and a forked child has no device open. */
TEST(res_limits_per_device_and_process)
{
	uint32_t cube = (uint32_t)param_num("cube_cores"), v;
	int status;
	pid_t pid;

	NEED_INIT();
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 1));
	if (have_npu(1)) {
		ASSERT_ACL_OK(aclrtSetDevice(1));
		ASSERT_ACL_OK(aclrtGetDeviceResLimit(1, ACL_RT_DEV_RES_CUBE_CORE, &v));
		EXPECT_EQ(cube, v);
		ASSERT_ACL_OK(aclrtSetDeviceResLimit(1, ACL_RT_DEV_RES_CUBE_CORE, 2));
		ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
		EXPECT_EQ(1, v);
	}
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int bad = aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v) !=
			  ACL_ERROR_RT_DEV_SETUP_ERROR;

		bad |= aclrtSetDevice(0) != ACL_SUCCESS;
		bad |= aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v) != ACL_SUCCESS;
		bad |= v != cube;
		_exit(bad);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(1, v);
	/* aclFinalize closes every device */
	ASSERT_ACL_OK(aclFinalize());
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_ACL(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	EXPECT_EQ(cube, v);
}

/* ------------------------------------------------------------------ */
/* A platform device and a removed carrier (reloads npu.ko, as root)   */
/* ------------------------------------------------------------------ */

static const char *const mod_params[] = {
	"num_devices", "mem_size", "carrier", "soc_name", "cube_cores", "vector_cores",
};

FIXTURE(reload) {
	char saved[512];	/* the parameters the module was loaded with */
	int num_devices;	/* the saved num_devices */
	bool reloaded;
};

/* Load npu.ko with @params, wait for npu0..npu(@n-1), give them to the npu group. */
static int mod_load(const char *params, int n)
{
	int ret = npu_mod_load(params);

	return ret ? ret : npu_mod_nodes_ready(n);
}

FIXTURE_SETUP(reload)
{
	size_t off = 0;

	if (geteuid() || access(npu_ko_path(), R_OK) || !have_npu(1))
		SKIP(return, "needs root, npu.ko (/lib/npu or $NPU_KO) and two NPUs");
	self->num_devices = (int)param_num("num_devices");
	for (size_t i = 0; i < sizeof(mod_params) / sizeof(mod_params[0]); i++) {
		char v[256];

		param(mod_params[i], v, sizeof(v));
		ASSERT_NE(0, v[0]);
		off += snprintf(self->saved + off, sizeof(self->saved) - off, "%s%s=%s",
				i ? " " : "", mod_params[i], v);
	}
}

FIXTURE_TEARDOWN(reload)
{
	int ret;

	if (!self->reloaded)
		return;
	aclFinalize();
	ret = npu_mod_unload();
	if (!ret && write_file("/sys/bus/pci/rescan", "1"))
		ret = -EIO;
	if (!ret)
		ret = mod_load(self->saved, self->num_devices);
	if (ret)
		printf("# teardown: cannot restore npu.ko (%s): %s\n", self->saved, strerror(-ret));
}

TEST_F_TIMEOUT(reload, platform_device_and_removed_carrier, 120)
{
	char params[600], bus[64], path[128], want[64];
	aclrtDeviceStatus st;
	int32_t id;

	/* a third NPU beyond the two pci-testdev carriers: a platform device */
	ASSERT_NONNULL(strstr(self->saved, "carrier=Y"));
	snprintf(params, sizeof(params), "%s num_devices=3", self->saved);
	self->reloaded = true;
	ASSERT_EQ(0, npu_mod_unload());
	ASSERT_EQ(0, mod_load(params, 3));
	if (carrier_bdf(2, bus, sizeof(bus)))
		SKIP(return, "npu2 has a carrier too (%s)", bus);
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtDeviceGetPCIBusId(2, bus, sizeof(bus)));
	ASSERT_ACL_OK(aclrtDeviceGetPCIBusId(1, bus, sizeof(bus)));
	ASSERT_TRUE(carrier_bdf(1, want, sizeof(want)));
	EXPECT_STREQ(want, bus);
	ASSERT_ACL_OK(aclrtDeviceGetByPCIBusId(bus, &id));
	EXPECT_EQ(1, id);
	ASSERT_ACL_OK(aclrtQueryDeviceStatus(2, &st));
	EXPECT_EQ(ACL_RT_DEVICE_STATUS_NORMAL, st);

	/* npu1's carrier goes while this process has it open: ABNORMAL */
	ASSERT_ACL_OK(aclrtSetDevice(1));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", bus);
	ASSERT_EQ(0, write_file(path, "1"));
	st = ACL_RT_DEVICE_STATUS_END;
	ASSERT_ACL_OK(aclrtQueryDeviceStatus(1, &st));
	EXPECT_EQ(ACL_RT_DEVICE_STATUS_ABNORMAL, st);
	ASSERT_ACL_OK(aclrtQueryDeviceStatus(0, &st));
	EXPECT_EQ(ACL_RT_DEVICE_STATUS_NORMAL, st);
	/* gone for a process that does not hold it: no such device */
	ASSERT_ACL_OK(aclrtResetDeviceForce(1));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtQueryDeviceStatus(1, &st));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetByPCIBusId(bus, &id));
	ASSERT_ACL_OK(aclFinalize());
}

/*
 * CANN attributes: INF_NAN and BF16 when the module's SoC is a 910B-class
 * part (or the simulated chip), JIT_COMPILE never; no aclInit needed.
 */
TEST(cann_attributes)
{
	const aclCannAttr *list = NULL;
	int32_t v = -1, want;
	size_t n = 77, i;
	char soc[64];

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	param("soc_name", soc, sizeof(soc));
	want = !strcmp(soc, "NPUSim-A1") || !strncmp(soc, "Ascend910B", 10) ||
	       !strncmp(soc, "Ascend910_93", 12);
	ASSERT_ACL_OK(aclGetCannAttribute(ACL_CANN_ATTR_INF_NAN, &v));
	EXPECT_EQ(want, v);
	ASSERT_ACL_OK(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &v));
	EXPECT_EQ(want, v);
	ASSERT_ACL_OK(aclGetCannAttribute(ACL_CANN_ATTR_JIT_COMPILE, &v));
	EXPECT_EQ(0, v);
	ASSERT_ACL_OK(aclGetCannAttributeList(&list, &n));
	ASSERT_NONNULL(list);
	EXPECT_EQ(want ? 2U : 0U, n);
	for (i = 0; i < n; i++)
		EXPECT_TRUE(list[i] == ACL_CANN_ATTR_INF_NAN || list[i] == ACL_CANN_ATTR_BF16);
	v = -1;
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &v));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetCannAttribute((aclCannAttr)3, &v));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetCannAttribute(ACL_CANN_ATTR_BF16, NULL));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetCannAttributeList(NULL, &n));
	EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetCannAttributeList(&list, NULL));
	EXPECT_EQ(-1, v);
	EXPECT_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
}

/* The NPU architecture of a SoC name against the device's (CANN's platform files). */
TEST(arch_compatibility)
{
	int32_t c = -1;
	char soc[64];

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	param("soc_name", soc, sizeof(soc));
	if (strcmp(soc, "NPUSim-A1") && strncmp(soc, "Ascend910B", 10) && strncmp(soc, "Ascend910_93", 12))
		SKIP(return, "soc_name %s is not a 910B-class chip", soc);
	ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend910B3", &c));
	EXPECT_EQ(1, c);
	ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend910_9391", &c));
	EXPECT_EQ(1, c);
	ASSERT_ACL_OK(aclrtCheckArchCompatibility(soc, &c));
	EXPECT_EQ(1, c);
	ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend310P3", &c));
	EXPECT_EQ(0, c);
	ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend910A", &c));
	EXPECT_EQ(0, c);
	c = -1;
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckArchCompatibility("NoSuchSoC", &c));
	EXPECT_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckArchCompatibility("", &c));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckArchCompatibility(NULL, &c));
	EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckArchCompatibility("Ascend910B1", NULL));
	EXPECT_EQ(-1, c);
}

TEST_HARNESS_MAIN
