// SPDX-License-Identifier: MIT
/*
 * Device queries (run mode, SoC name, attributes, status, utilization,
 * UUID, PCI bus ids, capabilities) and the device resource limits.
 *
 * Everything a query reports comes from GET_INFO: through the process's
 * context of the device when it is open, else through a context opened
 * for the call and closed again, so queries that name a device by id need
 * no aclrtSetDevice. The simulated chip is described in lib/README.md
 * ("Device queries").
 *
 * Resource limits are per device per process: one entry per device id,
 * valid for the generation of the device's context it was made under
 * (acl_device.gen is bumped at every open and close), so a device opened
 * again starts from the hardware counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "acl_ioctl.h"
#include "context.h"
#include "device.h"
#include "error.h"
#include "query.h"

/*
 * What CANN's platform files (src/platform/platform_config/cann/<SoC>.ini)
 * say of each part, by SoC name as CANN reads them: its NPU architecture
 * (Version NpuArch), its L2 size (SoCInfo l2_size) and AI CPU count
 * (ai_cpu_cnt); and what CANN's runtime does on its chip type
 * (src/runtime/config/<chip>/dev_info_reg.cc), as ACL_SOC_* flags
 * (query.h): the 910B and 910_93 parts (CHIP_910_B_93) have inf/nan mode
 * and bf16 (support_inf_nan, support_bf16, RT_FEATURE_OVERFLOW_MODE) and
 * the stream-ordered CMO tasks (RT_FEATURE_TASK_CMO); the 310B parts
 * (CHIP_MINI_V3) the barrier CMO tasks (RT_FEATURE_TASK_ASYNC_CMO) and
 * neither of those; the 910_93 parts, the A3 super-pod servers, the IPC
 * pid lists across servers (their driver's SET_PID_POD); the 910B, 910_93
 * and 310P (CHIP_DC) parts captured graphs (RT_FEATURE_MODEL_ACL_GRAPH,
 * aclmdlRICapture*); the 910B and 910_93 parts IPC events
 * (RT_FEATURE_IPC_EVENT); the 910B and 910_93 parts the update of a
 * model's random-number task (RT_FEATURE_TASK_DSA_UPDATE), they and the
 * 310P parts that of an AI-core task
 * (RT_FEATURE_MODEL_UPDATE_SQE_TILING_KEY), aclrtTaskUpdateAsync; the
 * 910B and 910_93 parts the NPU float status tasks
 * (RT_FEATURE_DEVICE_FLOAT_STATUS); the 310P parts compute groups
 * (RT_FEATURE_DEVICE_GROUP). The
 * simulated chip is 910B-class. A name not listed has no platform file: the
 * simulated chip's figures and features for the device queries, and no
 * attributes.
 */
static const struct acl_soc_part {
	const char *name;
	int32_t arch;
	int64_t l2;
	int32_t aicpu;
	unsigned int feat;
} acl_soc_parts[] = {
#define A2	(ACL_SOC_INFNAN | ACL_SOC_TASK_CMO | ACL_SOC_SDMA_REDUCE | ACL_SOC_IPC_NOTIFY | \
		 ACL_SOC_RAND_GEN | ACL_SOC_ACL_GRAPH | ACL_SOC_IPC_EVENT | ACL_SOC_DSA_UPDATE | \
		 ACL_SOC_TILING_UPDATE | ACL_SOC_FLOAT_STATUS)
#define A3	(ACL_SOC_INFNAN | ACL_SOC_TASK_CMO | ACL_SOC_POD_IPC | ACL_SOC_SDMA_REDUCE | \
		 ACL_SOC_IPC_NOTIFY | ACL_SOC_RAND_GEN | ACL_SOC_ACL_GRAPH | ACL_SOC_IPC_EVENT | \
		 ACL_SOC_DSA_UPDATE | ACL_SOC_TILING_UPDATE | ACL_SOC_FLOAT_STATUS)
/* the 310P parts (CHIP_DC): IPC notifies, ACL graphs, the AI-core task update, compute groups */
#define P310	(ACL_SOC_IPC_NOTIFY | ACL_SOC_ACL_GRAPH | ACL_SOC_TILING_UPDATE | ACL_SOC_DEVICE_GROUP)
	{ "NPUSim-A1", 2201, 192LL << 20, 6, A2 },
	{ "Ascend031", 3004, 4LL << 20, 4, 0 },
	{ "Ascend035", 3505, 0, 0, 0 },
	{ "Ascend035A", 3505, 0, 0, 0 },
	{ "Ascend035B", 3505, 0, 0, 0 },
	{ "Ascend310B1", 3002, 4LL << 20, 4, ACL_SOC_ASYNC_CMO },
	{ "Ascend310B2", 3002, 4LL << 20, 4, ACL_SOC_ASYNC_CMO },
	{ "Ascend310B3", 3002, 4LL << 20, 4, ACL_SOC_ASYNC_CMO },
	{ "Ascend310B4", 3002, 4LL << 20, 4, ACL_SOC_ASYNC_CMO },
	{ "Ascend310P1", 2002, 16LL << 20, 8, P310 },
	{ "Ascend310P3", 2002, 16LL << 20, 7, P310 },
	{ "Ascend310P5", 2002, 16LL << 20, 8, P310 },
	{ "Ascend310P7", 2002, 16LL << 20, 8, P310 },
	{ "Ascend910A", 1001, 32LL << 20, 4, ACL_SOC_IPC_NOTIFY },
	{ "Ascend910B", 1001, 32LL << 20, 6, ACL_SOC_IPC_NOTIFY },
	{ "Ascend910PremiumA", 1001, 32LL << 20, 4, ACL_SOC_IPC_NOTIFY },
	{ "Ascend910ProA", 1001, 32LL << 20, 4, ACL_SOC_IPC_NOTIFY },
	{ "Ascend910ProB", 1001, 32LL << 20, 4, ACL_SOC_IPC_NOTIFY },
	{ "Ascend910B1", 2201, 192LL << 20, 6, A2 },
	{ "Ascend910B2", 2201, 192LL << 20, 6, A2 },
	{ "Ascend910B2C", 2201, 192LL << 20, 6, A2 },
	{ "Ascend910B3", 2201, 192LL << 20, 6, A2 },
	{ "Ascend910B4", 2201, 96LL << 20, 6, A2 },
	{ "Ascend910B4-1", 2201, 168LL << 20, 6, A2 },
	{ "Ascend910_9362", 2201, 168LL << 20, 6, A3 },
	{ "Ascend910_9363", 2201, 168LL << 20, 6, A3 },
	{ "Ascend910_9372", 2201, 192LL << 20, 6, A3 },
	{ "Ascend910_9381", 2201, 192LL << 20, 6, A3 },
	{ "Ascend910_9382", 2201, 192LL << 20, 6, A3 },
	{ "Ascend910_9391", 2201, 192LL << 20, 6, A3 },
	{ "Ascend910_9392", 2201, 192LL << 20, 6, A3 },
#undef A2
#undef A3
#undef P310
};

static const struct acl_soc_part *acl_soc_part(const char *soc)
{
	size_t i;

	for (i = 0; i < sizeof(acl_soc_parts) / sizeof(acl_soc_parts[0]); i++)
		if (!strcmp(soc, acl_soc_parts[i].name))
			return &acl_soc_parts[i];
	return NULL;
}

/* A device's figures: its SoC's, or the simulated chip's for a name not listed. */
static const struct acl_soc_part *acl_soc_of(const char *soc)
{
	const struct acl_soc_part *part = acl_soc_part(soc);

	return part ? part : &acl_soc_parts[0];
}


/* Longest "%04x:%02x:%02x.%x" of a 16-bit domain, NUL included. */
#define ACL_PCI_BUS_ID_LEN	13

static int acl_info_version(const struct npu_get_info *info, const char *what)
{
	/* the fields of 1.3 are zero from an older module */
	if ((info->driver_version >> 16) != (NPU_DRIVER_VERSION >> 16) ||
	    (info->driver_version >> 8) < (NPU_DRIVER_VERSION >> 8))
		return acl_errf(ACLI_EDRV, "%s: driver version %#x, library built for %#x", what,
				info->driver_version, NPU_DRIVER_VERSION);
	return 0;
}

int acl_query_info(int id, struct npu_get_info *info, const char *what)
{
	struct acl_device *dev = acl_dev_get(id);
	char path[32];
	int fd, ret;

	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	snprintf(path, sizeof(path), "/dev/npu%d", id);
	if (dev) {
		ret = acl_ioctl(dev->fd, NPU_IOCTL_GET_INFO, info);
	} else {
		ret = acl_dev_check_id(id, what);
		if (ret)
			return ret;
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			if (ret == -ENOENT || ret == -ENODEV || ret == -ENXIO)
				return acl_errf(-ENODEV, "%s %d: no such device (%s)", what, id,
						strerror(-ret));
			return acl_errf(ACLI_EDRV, "cannot open %s: %s", path, strerror(-ret));
		}
		ret = acl_ioctl(fd, NPU_IOCTL_GET_INFO, info);
		close(fd);
	}
	if (ret == -ENODEV)
		return acl_errf(ret, "%s %d: the device is gone (its carrier was removed)", what, id);
	return ret ? ret : acl_info_version(info, path);
}

ACL_EXPORT aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
	int ret = acl_enter(NULL, runMode);

	/* libacl runs on the host, never on the device's own CPU */
	if (!ret)
		*runMode = ACL_HOST;
	return acl_ret(__func__, ret);
}

/* Device 0's name, fetched once per process; "" until then. */
static pthread_mutex_t acl_soc_lock = PTHREAD_MUTEX_INITIALIZER;
static char acl_soc_name[NPU_SOC_NAME_LEN];

ACL_EXPORT const char *aclrtGetSocName(void)
{
	struct npu_get_info info;
	int ret = acl_check_init();

	if (ret)
		goto out;
	pthread_mutex_lock(&acl_soc_lock);
	if (!acl_soc_name[0]) {
		ret = acl_query_info(0, &info, "device");
		if (!ret && !info.soc_name[0])
			ret = acl_errf(ACLI_EDRV, "the driver reports no SoC name");
		if (!ret)
			memcpy(acl_soc_name, info.soc_name, sizeof(acl_soc_name) - 1);
	}
	pthread_mutex_unlock(&acl_soc_lock);
out:
	acl_ret(__func__, ret);
	return ret ? NULL : acl_soc_name;
}

/* ------------------------------------------------------------------ */
/* Device resource limits                                              */
/* ------------------------------------------------------------------ */

#define ACL_RES_TYPES	2

/* One device's limits in this process, for the context generation @gen. */
struct acl_res {
	bool valid;
	unsigned int gen;
	uint32_t total[ACL_RES_TYPES];	/* hardware counts (GET_INFO) */
	uint32_t limit[ACL_RES_TYPES];
};

static pthread_mutex_t acl_res_lock = PTHREAD_MUTEX_INITIALIZER;	/* protects acl_res */
static struct acl_res acl_res[ACL_MAX_DEVICES];
static pthread_once_t acl_res_atfork_once = PTHREAD_ONCE_INIT;

/* A fork in another thread must not leave the child with the lock held. */
static void acl_res_prepare(void)
{
	pthread_mutex_lock(&acl_res_lock);
}

static void acl_res_parent(void)
{
	pthread_mutex_unlock(&acl_res_lock);
}

static void acl_res_child(void)
{
	pthread_mutex_init(&acl_res_lock, NULL);
}

static void acl_res_atfork(void)
{
	pthread_atfork(acl_res_prepare, acl_res_parent, acl_res_child);
}

/* @dev's entry, made afresh (hardware counts) for a new context generation. */
static int acl_res_get_locked(struct acl_device *dev, struct acl_res **rp)
{
	unsigned int gen = __atomic_load_n(&dev->gen, __ATOMIC_ACQUIRE);
	struct acl_res *r = &acl_res[dev->id];
	struct npu_get_info info = { .size = sizeof(info) };
	int ret;

	if (!r->valid || r->gen != gen) {
		ret = acl_ioctl(dev->fd, NPU_IOCTL_GET_INFO, &info);
		if (ret)
			return ret;
		r->total[ACL_RT_DEV_RES_CUBE_CORE] = info.cube_cores;
		r->total[ACL_RT_DEV_RES_VECTOR_CORE] = info.vector_cores;
		memcpy(r->limit, r->total, sizeof(r->limit));
		r->gen = gen;
		r->valid = true;
	}
	*rp = r;
	return 0;
}

static int acl_res_type_check(int type)
{
	if (type < 0 || type >= ACL_RES_TYPES)
		return acl_errf(ACLI_ERTPARAM, "type %d is not an aclrtDevResLimitType", type);
	return 0;
}

/* Read the limit (@total false) or the hardware count of @type. */
static int acl_res_read(struct acl_device *dev, int type, bool total, uint32_t *value)
{
	struct acl_res *r;
	int ret = acl_res_type_check(type);

	if (ret)
		return ret;
	pthread_once(&acl_res_atfork_once, acl_res_atfork);
	pthread_mutex_lock(&acl_res_lock);
	ret = acl_res_get_locked(dev, &r);
	if (!ret)
		*value = total ? r->total[type] : r->limit[type];
	pthread_mutex_unlock(&acl_res_lock);
	return ret;
}

int acl_dev_res_limit(struct acl_device *dev, int type, uint32_t *value)
{
	return acl_res_read(dev, type, false, value);
}

int acl_dev_res_total(struct acl_device *dev, int type, uint32_t *value)
{
	return acl_res_read(dev, type, true, value);
}

/*
 * The runtime's checks of a device id for the limit calls, in its order:
 * negative, then (after the type, which the caller checks between) no
 * such device, then not opened by this process.
 */
static int acl_res_id_negative(int32_t deviceId)
{
	if (deviceId < 0)
		return acl_errf(-ENODEV, "deviceId %d is not a device id (0..%d)", deviceId,
				ACL_MAX_DEVICES - 1);
	return 0;
}

static int acl_res_dev(int32_t deviceId, struct acl_device **devp)
{
	int ret = acl_dev_check_id(deviceId, "deviceId");

	if (ret)
		return ret;
	*devp = acl_dev_get(deviceId);
	if (!*devp)
		return acl_errf(ACLI_EDEVSETUP, "device %d is not open in this process: call aclrtSetDevice(%d) first",
				deviceId, deviceId);
	return 0;
}

ACL_EXPORT aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value)
{
	struct acl_device *dev;
	int ret;

	ret = acl_enter(NULL, value);
	if (!ret)
		ret = acl_res_id_negative(deviceId);
	if (!ret)
		ret = acl_res_type_check((int)type);
	if (!ret)
		ret = acl_res_dev(deviceId, &dev);
	if (!ret)
		ret = acl_dev_res_limit(dev, (int)type, value);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value)
{
	struct acl_device *dev;
	struct acl_res *r;
	int ret;

	ret = acl_check_init();
	if (!ret)
		ret = acl_res_id_negative(deviceId);
	if (!ret)
		ret = acl_res_type_check((int)type);
	if (!ret)
		ret = acl_res_dev(deviceId, &dev);
	if (ret)
		goto out;
	pthread_once(&acl_res_atfork_once, acl_res_atfork);
	pthread_mutex_lock(&acl_res_lock);
	ret = acl_res_get_locked(dev, &r);
	if (!ret && value > r->total[type])
		ret = acl_errf(ACLI_ERTPARAM, "value %u is above the device's %u %s cores", value,
			       r->total[type], type == ACL_RT_DEV_RES_CUBE_CORE ? "cube" : "vector");
	else if (!ret)
		r->limit[type] = value;
	pthread_mutex_unlock(&acl_res_lock);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtResetDeviceResLimit(int32_t deviceId)
{
	struct acl_device *dev;
	struct acl_res *r;
	int ret;

	ret = acl_check_init();
	if (!ret)
		ret = acl_res_id_negative(deviceId);
	if (!ret)
		ret = acl_res_dev(deviceId, &dev);
	if (ret)
		goto out;
	pthread_once(&acl_res_atfork_once, acl_res_atfork);
	pthread_mutex_lock(&acl_res_lock);
	ret = acl_res_get_locked(dev, &r);
	if (!ret)
		memcpy(r->limit, r->total, sizeof(r->limit));
	pthread_mutex_unlock(&acl_res_lock);
out:
	return acl_ret(__func__, ret);
}

/* ------------------------------------------------------------------ */
/* Device attributes, status, identity                                 */
/* ------------------------------------------------------------------ */

ACL_EXPORT aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
	struct npu_get_info info;
	struct acl_device *dev;
	uint32_t cube;
	int ret;

	ret = acl_enter(NULL, value);
	if (ret)
		goto out;
	/* the runtime says 107000 here, not 107001 */
	if (deviceId >= ACL_MAX_DEVICES || acl_dev_check_id(deviceId, "deviceId")) {
		ret = acl_errf(ACLI_ERTPARAM, "deviceId %u: no such device", deviceId);
		goto out;
	}
	ret = acl_query_info((int)deviceId, &info, "deviceId");
	if (ret)
		goto out;
	switch (attr) {
	case ACL_DEV_ATTR_AICPU_CORE_NUM:
		*value = acl_soc_of(info.soc_name)->aicpu;
		break;
	case ACL_DEV_ATTR_AICORE_CORE_NUM:
		*value = info.cube_cores;
		break;
	case ACL_DEV_ATTR_CUBE_CORE_NUM:
		/* the runtime's platform table, which the device limit rewrites */
		dev = acl_dev_get((int)deviceId);
		cube = info.cube_cores;
		if (dev) {
			ret = acl_dev_res_limit(dev, ACL_RT_DEV_RES_CUBE_CORE, &cube);
			if (ret)
				goto out;
		}
		*value = cube;
		break;
	case ACL_DEV_ATTR_VECTOR_CORE_NUM:
		*value = info.vector_cores;
		break;
	case ACL_DEV_ATTR_WARP_SIZE:
	case ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE:
	case ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE:
	case ACL_DEV_ATTR_MAX_GRID_DIM_X:
	case ACL_DEV_ATTR_MAX_GRID_DIM_Y:
	case ACL_DEV_ATTR_MAX_GRID_DIM_Z:
	case ACL_DEV_ATTR_MAX_BLOCK_PER_GRID:
	case ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK:
	case ACL_DEV_ATTR_MAX_BLOCK_DIM_X:
	case ACL_DEV_ATTR_MAX_BLOCK_DIM_Y:
	case ACL_DEV_ATTR_MAX_BLOCK_DIM_Z:
		/* no SIMT on this chip */
		*value = 0;
		break;
	case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE:
		*value = (int64_t)info.mem_total;
		break;
	case ACL_DEV_ATTR_L2_CACHE_SIZE:
		*value = acl_soc_of(info.soc_name)->l2;
		break;
	case ACL_DEV_ATTR_PHY_CHIP_ID:
		*value = info.device_index;
		break;
	case ACL_DEV_ATTR_SUPER_POD_DEVICE_ID:
		/* the A3 parts are in the simulated super pod (query.h); the others in none */
		*value = (acl_soc_of(info.soc_name)->feat & ACL_SOC_POD_IPC) ?
			 ACL_POD_SDID(info.device_index) : 0;
		break;
	case ACL_DEV_ATTR_SMP_ID:
	case ACL_DEV_ATTR_SUPER_POD_SERVER_ID:
	case ACL_DEV_ATTR_SUPER_POD_ID:
	case ACL_DEV_ATTR_CUST_OP_PRIVILEGE:
	case ACL_DEV_ATTR_MAINBOARD_ID:
	case ACL_DEV_ATTR_IS_VIRTUAL:
		/* one chip per card, server and pod 0, no custom-op privilege */
		*value = 0;
		break;
	case ACL_DEV_ATTR_HD_CONNECT_TYPE:
	case ACL_DEV_ATTR_DEVICE_FORM_FACTOR:
		/* the runtime answers these on the 950 only */
		ret = acl_errf(ACLI_ERTNOTSUPP, "attr %d is reported by Ascend 950 chips only", (int)attr);
		break;
	case ACL_DEV_ATTR_NPU_ARCH:
		*value = acl_soc_of(info.soc_name)->arch;
		break;
	default:
		ret = acl_errf(ACLI_ERTPARAM, "attr %d is not an aclrtDevAttr", (int)attr);
		break;
	}
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus)
{
	struct npu_get_info info;
	int ret;

	ret = acl_enter(NULL, deviceStatus);
	if (!ret)
		ret = acl_dev_check_range(deviceId, "deviceId");
	if (ret)
		goto out;
	ret = acl_query_info(deviceId, &info, "deviceId");
	if ((ret == -ENODEV || ret == -ESTALE) && acl_dev_get(deviceId)) {
		/* an open device whose carrier went away, or that was reset since */
		acl_err_clear();
		*deviceStatus = ACL_RT_DEVICE_STATUS_ABNORMAL;
		ret = 0;
	} else if (!ret) {
		*deviceStatus = ACL_RT_DEVICE_STATUS_NORMAL;
	}
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo)
{
	struct npu_get_info info;
	int ret;

	ret = acl_enter(NULL, utilizationInfo);
	if (ret)
		goto out;
	if (utilizationInfo->utilizationExtend) {
		ret = acl_errf(-EINVAL, "utilizationInfo->utilizationExtend must be NULL");
		goto out;
	}
	ret = acl_query_info(deviceId, &info, "deviceId");
	if (ret)
		goto out;
	/* no kernel runs on the modelled cores: nothing to measure */
	utilizationInfo->cubeUtilization = -1;
	utilizationInfo->vectorUtilization = -1;
	utilizationInfo->aicpuUtilization = -1;
	/* the driver's real figure: device memory allocated, all processes */
	utilizationInfo->memoryUtilization =
		info.mem_total ? (int32_t)(info.mem_used * 100 / info.mem_total) : -1;
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid)
{
	struct npu_get_info info;
	int ret;

	ret = acl_check_init();
	if (!ret)
		ret = acl_res_id_negative(deviceId);
	if (!ret && !uuid)
		ret = acl_errf(-EINVAL, "uuid must not be NULL");
	if (!ret)
		ret = acl_query_info(deviceId, &info, "deviceId");
	if (!ret)
		memcpy(uuid->bytes, info.uuid, sizeof(uuid->bytes));
	return acl_ret(__func__, ret);
}

/* "dddd:bb:dd.f" of device @id into @buf, or ACLI_ERTNOTSUPP off PCI. */
static int acl_pci_bus_id(int id, char *buf, size_t len)
{
	struct npu_get_info info;
	int ret = acl_query_info(id, &info, "deviceId");

	if (ret)
		return ret;
	if (!(info.caps & NPU_CAP_PCI_CARRIER))
		return acl_errf(ACLI_ERTNOTSUPP, "device %d is a platform device, not on PCIe", id);
	if ((size_t)snprintf(buf, len, "%04x:%02x:%02x.%x", info.pci_domain, info.pci_bus,
			     info.pci_devfn >> 3, info.pci_devfn & 7) >= len)
		return acl_errf(ACLI_ERTPARAM, "len %zu is too short for device %d's bus id", len, id);
	return 0;
}

ACL_EXPORT aclError aclrtDeviceGetPCIBusId(int32_t deviceId, char *pciBusId, int32_t len)
{
	char buf[32];
	int ret;

	ret = acl_check_init();
	if (!ret)
		ret = acl_res_id_negative(deviceId);
	if (!ret && !pciBusId)
		ret = acl_errf(-EINVAL, "pciBusId must not be NULL");
	if (!ret && len < ACL_PCI_BUS_ID_LEN)
		ret = acl_errf(ACLI_ERTPARAM, "len %d must be at least %d", len, ACL_PCI_BUS_ID_LEN);
	if (!ret)
		ret = acl_pci_bus_id(deviceId, buf, sizeof(buf));
	if (!ret && strlen(buf) >= (size_t)len)
		ret = acl_errf(ACLI_ERTPARAM, "len %d is too short for \"%s\"", len, buf);
	if (!ret)
		memcpy(pciBusId, buf, strlen(buf) + 1);
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtDeviceGetByPCIBusId(const char *pciBusId, int32_t *deviceId)
{
	char buf[32];
	int ret, id;

	ret = acl_enter(NULL, pciBusId, deviceId);
	if (ret)
		goto out;
	for (id = 0; id < ACL_MAX_DEVICES; id++) {
		if (acl_dev_check_id(id, "deviceId") || acl_pci_bus_id(id, buf, sizeof(buf)))
			continue;
		/* exactly the form aclrtDeviceGetPCIBusId writes: lowercase */
		if (!strcmp(buf, pciBusId)) {
			acl_err_clear();
			*deviceId = id;
			goto out;
		}
	}
	ret = acl_errf(ACLI_ERTPARAM, "no device has PCI bus id \"%.32s\"", pciBusId);
out:
	return acl_ret(__func__, ret);
}

ACL_EXPORT aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType,
					     int32_t *value)
{
	int ret;

	ret = acl_enter(NULL, value);
	if (ret)
		goto out;
	if (devFeatureType != ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV &&
	    devFeatureType != ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV) {
		ret = acl_errf(ACLI_ERTPARAM, "devFeatureType %d is not an aclrtDevFeatureType",
			       (int)devFeatureType);
		goto out;
	}
	ret = acl_dev_check_id(deviceId, "deviceId");
	if (ret)
		goto out;
	/* no task scheduler CPU, no memory queues on this chip */
	*value = ACL_DEV_FEATURE_NOT_SUPPORT;
out:
	return acl_ret(__func__, ret);
}

/*
 * CANN reads these from the SoC's platform table, not per device; ours
 * are the device's GET_INFO counts (the chip profile's) and its SoC's L2
 * size, as aclrtGetDeviceInfo reports them.
 */
ACL_EXPORT aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value)
{
	struct npu_get_info info;
	unsigned int count;
	int ret = 0;

	if (!value) {
		ret = acl_errf(-EINVAL, "value must not be NULL");
		goto out;
	}
	count = acl_dev_count();
	if (!count) {
		ret = acl_errf(ACLI_ENODEVS, "no /dev/npuN device: is the npu module loaded?");
		goto out;
	}
	if (deviceId >= count) {
		ret = acl_errf(-EINVAL, "deviceId %u is beyond the %u devices", deviceId, count);
		goto out;
	}
	if ((unsigned int)deviceInfo > ACL_DEVICE_INFO_L2_SIZE) {
		ret = acl_errf(-EINVAL, "deviceInfo %d must be ACL_DEVICE_INFO_AI_CORE_NUM, _VECTOR_CORE_NUM or _L2_SIZE",
			       (int)deviceInfo);
		goto out;
	}
	ret = acl_query_info((int)deviceId, &info, "deviceId");
	if (ret)
		goto out;
	if (deviceInfo == ACL_DEVICE_INFO_L2_SIZE)
		*value = acl_soc_of(info.soc_name)->l2;
	else
		*value = deviceInfo == ACL_DEVICE_INFO_AI_CORE_NUM ? info.cube_cores : info.vector_cores;
out:
	return acl_ret(__func__, ret);
}

int acl_soc_arch(int id, int32_t *arch)
{
	struct npu_get_info info;
	int ret;

	ret = acl_query_info(id, &info, "device");
	if (!ret)
		*arch = acl_soc_of(info.soc_name)->arch;
	return ret;
}

int acl_soc_features(int id, unsigned int *feat)
{
	struct npu_get_info info;
	int ret;

	ret = acl_query_info(id, &info, "device");
	if (!ret)
		*feat = acl_soc_of(info.soc_name)->feat;
	return ret;
}

unsigned int acl_chip_features(void)
{
	unsigned int feat;

	if (acl_soc_features(0, &feat)) {
		acl_err_clear();
		feat = acl_soc_parts[0].feat;
	}
	return feat;
}

/*
 * CANN attributes (CANN: src/acl/utils/cann_info_utils.cpp): INF_NAN and
 * BF16 are the platform file's support_inf_nan and support_bf16 of device
 * 0's SoC; JIT_COMPILE is 0: libacl has no operator compiler. No aclInit
 * is needed, as in CANN.
 */
static int acl_cann_attrs(int32_t avail[3])
{
	const struct acl_soc_part *part;
	struct npu_get_info info;
	int ret;

	ret = acl_query_info(0, &info, "device");
	if (ret)
		return ret;
	part = acl_soc_part(info.soc_name);
	avail[ACL_CANN_ATTR_INF_NAN] = part && (part->feat & ACL_SOC_INFNAN);
	avail[ACL_CANN_ATTR_BF16] = part && (part->feat & ACL_SOC_INFNAN);
	avail[ACL_CANN_ATTR_JIT_COMPILE] = 0;
	return 0;
}

ACL_EXPORT aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num)
{
	static const aclCannAttr all[] = { ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16, ACL_CANN_ATTR_JIT_COMPILE };
	static __thread aclCannAttr list[3];
	int32_t avail[3];
	size_t i, n = 0;
	int ret = 0;

	if (!cannAttrList || !num)
		ret = acl_errf(-EINVAL, "%s must not be NULL", !cannAttrList ? "cannAttrList" : "num");
	if (!ret)
		ret = acl_cann_attrs(avail);
	if (ret)
		return acl_ret(__func__, ret);
	/* the caller's thread's copy: stable until its next call */
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (avail[all[i]])
			list[n++] = all[i];
	*cannAttrList = list;
	*num = n;
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value)
{
	int32_t avail[3];
	int ret = 0;

	if (!value)
		ret = acl_errf(-EINVAL, "value must not be NULL");
	else if ((unsigned int)cannAttr > ACL_CANN_ATTR_JIT_COMPILE)
		ret = acl_errf(-EINVAL, "cannAttr %d is not an aclCannAttr (INF_NAN, BF16, JIT_COMPILE)",
			       (int)cannAttr);
	if (!ret)
		ret = acl_cann_attrs(avail);
	if (!ret)
		*value = avail[cannAttr];
	return acl_ret(__func__, ret);
}

/*
 * CANN: 1 if @socVersion's NPU architecture is the device's (platform
 * files, by name), else 0; a NULL or empty argument, or a name either
 * side has no platform file for, ACL_ERROR_RT_PARAM_INVALID (the
 * runtime's answers, recorded as the last error). The device is device 0,
 * whose SoC the simulated chip (910B-class, 2201) may also be.
 */
ACL_EXPORT aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible)
{
	const struct acl_soc_part *om, *hw;
	struct npu_get_info info;
	int ret = 0;

	if (!socVersion || !canCompatible || !socVersion[0])
		ret = acl_errf(ACLI_ERTPARAM, "%s", !canCompatible ? "canCompatible must not be NULL" :
				"socVersion must name a SoC");
	if (!ret)
		ret = acl_query_info(0, &info, "device");
	if (ret)
		goto out;
	om = acl_soc_part(socVersion);
	hw = acl_soc_part(info.soc_name);
	if (!om || !hw)
		ret = acl_errf(ACLI_ERTPARAM, "SoC version %s is invalid: no platform file names it",
			       om ? info.soc_name : socVersion);
	else
		*canCompatible = om->arch == hw->arch;
out:
	return acl_ret(__func__, ret);
}
