/* SPDX-License-Identifier: MIT */
/*
 * libacl: the aclrt runtime memory API (devices, streams, events, device
 * and host memory, copies, virtual memory management).
 *
 * Types, enum values and struct layouts follow the CANN acl_rt.h 1.17.
 */
#ifndef ACL_ACL_RT_H
#define ACL_ACL_RT_H

#include <stdint.h>
#include <stddef.h>
#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 17
#define ACL_PATCH_VERSION 0

/* aclrtValueWait conditions */
#define ACL_STREAM_WAIT_VALUE_GEQ 0x00000000U
#define ACL_STREAM_WAIT_VALUE_EQ 0x00000001U
#define ACL_STREAM_WAIT_VALUE_AND 0x00000002U
#define ACL_STREAM_WAIT_VALUE_NOR 0x00000003U

#define ACL_RT_VMM_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x1UL

/* aclrtHostRegisterV2 flags */
#define ACL_HOST_REG_MAPPED 0x2UL
#define ACL_HOST_REG_IOMEMORY 0x4UL
#define ACL_HOST_REG_READONLY 0x8UL
#define ACL_HOST_REG_PINNED 0x10000000UL

typedef void *aclrtDrvMemHandle;

typedef enum aclrtMemcpyKind {
	ACL_MEMCPY_HOST_TO_HOST,
	ACL_MEMCPY_HOST_TO_DEVICE,
	ACL_MEMCPY_DEVICE_TO_HOST,
	ACL_MEMCPY_DEVICE_TO_DEVICE,
	ACL_MEMCPY_DEFAULT,
	ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
	ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
	ACL_MEMCPY_INTER_DEVICE_TO_DEVICE,
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
	ACL_MEM_MALLOC_HUGE_FIRST,
	ACL_MEM_MALLOC_HUGE_ONLY,
	ACL_MEM_MALLOC_NORMAL_ONLY,
	ACL_MEM_MALLOC_HUGE_FIRST_P2P,
	ACL_MEM_MALLOC_HUGE_ONLY_P2P,
	ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
	ACL_MEM_MALLOC_HUGE1G_ONLY,
	ACL_MEM_MALLOC_HUGE1G_ONLY_P2P,
	ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
	ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
	ACL_MEM_ACCESS_USER_SPACE_READONLY = 0x100000,
} aclrtMemMallocPolicy;

typedef enum {
	ACL_HOST_REGISTER_MAPPED = 0,
	ACL_HOST_REGISTER_IOMEMORY = 0x04,
	ACL_HOST_REGISTER_READONLY = 0x08,
} aclrtHostRegisterType;

typedef enum {
	ACL_RT_MEM_ATTR_RSV = 0,
	ACL_RT_MEM_ATTR_MODULE_ID,
	ACL_RT_MEM_ATTR_DEVICE_ID,
	ACL_RT_MEM_ATTR_VA_FLAG,
} aclrtMallocAttrType;

typedef union {
	uint16_t moduleId;
	uint32_t deviceId;
	uint32_t vaFlag;
	uint8_t rsv[8];
} aclrtMallocAttrValue;

typedef struct {
	aclrtMallocAttrType attr;
	aclrtMallocAttrValue value;
} aclrtMallocAttribute;

typedef struct {
	aclrtMallocAttribute *attrs;
	size_t numAttrs;
} aclrtMallocConfig;

typedef enum aclrtMemAttr {
	ACL_DDR_MEM,
	ACL_HBM_MEM,
	ACL_DDR_MEM_HUGE,
	ACL_DDR_MEM_NORMAL,
	ACL_HBM_MEM_HUGE,
	ACL_HBM_MEM_NORMAL,
	ACL_DDR_MEM_P2P_HUGE,
	ACL_DDR_MEM_P2P_NORMAL,
	ACL_HBM_MEM_P2P_HUGE,
	ACL_HBM_MEM_P2P_NORMAL,
	ACL_HBM_MEM_HUGE1G,
	ACL_HBM_MEM_P2P_HUGE1G,
	ACL_MEM_NORMAL,
	ACL_MEM_HUGE,
	ACL_MEM_HUGE1G,
	ACL_MEM_P2P_NORMAL,
	ACL_MEM_P2P_HUGE,
	ACL_MEM_P2P_HUGE1G,
} aclrtMemAttr;

typedef enum aclrtMemLocationType {
	ACL_MEM_LOCATION_TYPE_HOST = 0,
	ACL_MEM_LOCATION_TYPE_DEVICE,
	ACL_MEM_LOCATION_TYPE_UNREGISTERED,
	ACL_MEM_LOCATION_TYPE_MANAGED,
	ACL_MEM_LOCATION_TYPE_HOST_NUMA = 4,
} aclrtMemLocationType;

typedef struct aclrtMemLocation {
	uint32_t id;
	aclrtMemLocationType type;
} aclrtMemLocation;

typedef struct aclrtMemcpyBatchAttr {
	aclrtMemLocation dstLoc;
	aclrtMemLocation srcLoc;
	uint8_t rsv[16];
} aclrtMemcpyBatchAttr;
/* Managed (unified) memory */
#define ACL_RT_MEM_ATTACH_GLOBAL 0x01U

typedef enum aclrtMemManagedAdviseType {
	ACL_MEM_ADVISE_SET_READ_MOSTLY = 0,
	ACL_MEM_ADVISE_UNSET_READ_MOSTLY,
	ACL_MEM_ADVISE_SET_PREFERRED_LOCATION,
	ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION,
	ACL_MEM_ADVISE_SET_ACCESSED_BY,
	ACL_MEM_ADVISE_UNSET_ACCESSED_BY,
} aclrtMemManagedAdviseType;

typedef enum aclrtMemManagedLocationType {
	ACL_MEM_LOCATIONTYPE_INVALID = 0,
	ACL_MEM_LOCATIONTYPE_DEVICE,
	ACL_MEM_LOCATIONTYPE_HOST,
	ACL_MEM_LOCATIONTYPE_HOST_NUMA,
	ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT,
} aclrtMemManagedLocationType;

typedef enum aclrtMemManagedRangeAttribute {
	ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY = 1,
	ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
	ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
	ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE,
	ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID,
	ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
	ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE,
	ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID,
} aclrtMemManagedRangeAttribute;

typedef struct aclrtMemManagedLocation {
	aclrtMemManagedLocationType type;
	int32_t id;
} aclrtMemManagedLocation;

typedef struct aclrtPtrAttributes {
	aclrtMemLocation location;
	uint32_t pageSize;
	uint32_t rsv[4];
} aclrtPtrAttributes;

typedef enum aclrtMemAllocationType {
	ACL_MEM_ALLOCATION_TYPE_PINNED = 0,
} aclrtMemAllocationType;

typedef enum aclrtMemHandleType {
	ACL_MEM_HANDLE_TYPE_NONE = 0,
	ACL_MEM_HANDLE_TYPE_POSIX = 2,
} aclrtMemHandleType;

typedef struct aclrtPhysicalMemProp {
	aclrtMemHandleType handleType;
	aclrtMemAllocationType allocationType;
	aclrtMemAttr memAttr;
	aclrtMemLocation location;
	uint64_t reserve;
} aclrtPhysicalMemProp;

typedef enum aclrtMemGranularityOptions {
	ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
	ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
	ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF = 0xFFFF,
} aclrtMemGranularityOptions;

typedef enum {
	ACL_RT_MEM_ACCESS_FLAGS_NONE = 0x0,
	ACL_RT_MEM_ACCESS_FLAGS_READ = 0x1,
	ACL_RT_MEM_ACCESS_FLAGS_READWRITE = 0x3,
} aclrtMemAccessFlags;

typedef struct {
	aclrtMemAccessFlags flags;
	aclrtMemLocation location;
	uint8_t rsv[12];
} aclrtMemAccessDesc;

/* Memory queries and V2 shareable handles (runtime spec section 8) */
#define ACL_RT_MEM_TYPE_DEV (0X2U)
#define ACL_RT_MEM_TYPE_DVPP (0X8U)
#define ACL_RT_MEM_TYPE_RSVD (0X10U)

typedef enum {
	ACL_RT_HAC_TYPE_STARS = 0,
	ACL_RT_HAC_TYPE_AICPU,
	ACL_RT_HAC_TYPE_AIC,
	ACL_RT_HAC_TYPE_AIV,
	ACL_RT_HAC_TYPE_PCIEDMA,
	ACL_RT_HAC_TYPE_RDMA,
	ACL_RT_HAC_TYPE_SDMA,
	ACL_RT_HAC_TYPE_DVPP,
	ACL_RT_HAC_TYPE_UDMA,
	ACL_RT_HAC_TYPE_CCU
} aclrtHacType;

typedef enum {
	ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED = 0,
	ACL_RT_HOST_MEM_MAP_SUPPORTED
} aclrtHostMemMapCapability;

typedef enum aclrtMemSharedHandleType {
	ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT = 0x1,
	ACL_MEM_SHARE_HANDLE_TYPE_FABRIC = 0x2,
} aclrtMemSharedHandleType;

typedef struct aclrtMemFabricHandle {
	uint8_t data[128];
} aclrtMemFabricHandle;

typedef struct aclrtMemUsageInfo {
	char name[32];
	uint64_t curMemSize;
	uint64_t memPeakSize;
	size_t reserved[8];
} aclrtMemUsageInfo;

/*
 * Errors (aclrtGetLastError, aclrtGetErrorVerbose): the calling thread's
 * last runtime error, and the latest fault a device reported.
 */
#define ACL_RT_MEM_UCE_INFO_MAX_NUM 20
#define UCE_INFO_RESERVED_SIZE 14
#define MAX_MEM_UCE_INFO_ARRAY_SIZE 128

typedef enum aclrtLastErrLevel {
	ACL_RT_THREAD_LEVEL = 0,
} aclrtLastErrLevel;

typedef enum {
	ACL_RT_NO_ERROR = 0,
	ACL_RT_ERROR_MEMORY = 1,
	ACL_RT_ERROR_L2 = 2,
	ACL_RT_ERROR_AICORE = 3,
	ACL_RT_ERROR_LINK = 4,
	ACL_RT_ERROR_L3_PORT = 5,
	ACL_RT_ERROR_OTHERS = 0xFFFF,
} aclrtErrorType;

typedef enum aclrtAicoreErrorType {
	ACL_RT_AICORE_ERROR_UNKNOWN = 0,
	ACL_RT_AICORE_ERROR_SW = 1,
	ACL_RT_AICORE_ERROR_HW_LOCAL = 2,
} aclrtAicoreErrorType;

/* a device memory range hit by an uncorrectable error */
typedef struct aclrtMemUceInfo {
	void *addr;
	size_t len;
	size_t reserved[UCE_INFO_RESERVED_SIZE];
} aclrtMemUceInfo;

typedef struct {
	size_t arraySize;
	aclrtMemUceInfo memUceInfoArray[ACL_RT_MEM_UCE_INFO_MAX_NUM];
} aclrtMemUceInfoArray;

typedef union aclrtErrorInfoDetail {
	aclrtMemUceInfoArray uceInfo;
	aclrtAicoreErrorType aicoreErrType;
} aclrtErrorInfoDetail;

typedef struct aclrtErrorInfo {
	uint8_t tryRepair;
	uint8_t hasDetail;
	uint8_t reserved[2];
	aclrtErrorType errorType;
	aclrtErrorInfoDetail detail;
} aclrtErrorInfo;

/*
 * The calling thread's last error: the code of its latest failure other
 * than an acl-layer argument rejection (ACL_ERROR_INVALID_PARAM) or a quiet
 * result; 0 if none. Get resets it to 0, Peek leaves it. level must be
 * ACL_RT_THREAD_LEVEL.
 */
ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level);
ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level);
/* The latest fault of device deviceId (process-wide). */
ACL_FUNC_VISIBILITY aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo);

/*
 * Package versions: the Version= line of
 * $ASCEND_HOME_PATH/share/info/<pkgName>/version.info (pkgName e.g.
 * "runtime"; "driver" and "firmware" are found through
 * /etc/ascend_install.info). versionStr holds ACL_PKG_VERSION_MAX_SIZE
 * bytes. The number is major * 10^7 + minor * 10^5 + patch * 10^3, less
 * 300/200/100 plus N for an alpha/beta/rc N suffix: "9.0.0-rc.1" is
 * 89999901.
 */
#define ACL_PKG_VERSION_MAX_SIZE 128
#define ACL_PKG_VERSION_PARTS_MAX_SIZE 64

ACL_FUNC_VISIBILITY aclError aclsysGetVersionStr(char *pkgName, char *versionStr);
ACL_FUNC_VISIBILITY aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum);

/* Contexts, streams, events, callbacks and notifies (CANN 1.17 values) */
#define ACL_STREAM_FAST_LAUNCH 0x00000001U
#define ACL_STREAM_FAST_SYNC 0x00000002U
#define ACL_STREAM_PERSISTENT 0x00000004U
#define ACL_STREAM_HUGE 0x00000008U
#define ACL_STREAM_CPU_SCHEDULE 0x00000010U
#define ACL_STREAM_DEVICE_USE_ONLY 0x00000020U

#define ACL_CONTINUE_ON_FAILURE 0x00000000U
#define ACL_STOP_ON_FAILURE 0x00000001U

#define ACL_EVENT_SYNC 0x00000001U
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002U
#define ACL_EVENT_TIME_LINE 0x00000008U
#define ACL_EVENT_DEVICE_USE_ONLY 0x00000010U
#define ACL_EVENT_EXTERNAL 0x00000020U
#define ACL_EVENT_IPC 0x00000040U

#define ACL_EVENT_RECORD_DEFAULT 0x00000000U
#define ACL_EVENT_RECORD_EXTERNAL 0x00000001U
#define ACL_EVENT_WAIT_DEFAULT 0x00000000U
#define ACL_EVENT_WAIT_EXTERNAL 0x00000001U

#define ACL_IPC_EVENT_HANDLE_SIZE 64U

#define ACL_NOTIFY_DEFAULT 0x00000000U
#define ACL_NOTIFY_DEVICE_USE_ONLY 0x00000001U
#define ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x02UL
#define ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS 0x02UL

typedef enum aclrtStreamStatus {
	ACL_STREAM_STATUS_COMPLETE = 0,
	ACL_STREAM_STATUS_NOT_READY = 1,
	ACL_STREAM_STATUS_RESERVED = 0xFFFF,
} aclrtStreamStatus;

typedef enum aclrtStreamConfigAttr {
	ACL_RT_STREAM_WORK_ADDR_PTR = 0,
	ACL_RT_STREAM_WORK_SIZE = 1,
	ACL_RT_STREAM_FLAG = 2,
	ACL_RT_STREAM_PRIORITY = 3,
} aclrtStreamConfigAttr;

typedef struct aclrtStreamConfigHandle {
	void *workptr;
	size_t workSize;
	size_t flag;
	uint32_t priority;
} aclrtStreamConfigHandle;

typedef enum aclrtEventStatus {
	ACL_EVENT_STATUS_COMPLETE = 0,
	ACL_EVENT_STATUS_NOT_READY = 1,
	ACL_EVENT_STATUS_RESERVED = 2,
} aclrtEventStatus;

typedef enum aclrtEventRecordedStatus {
	ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
	ACL_EVENT_RECORDED_STATUS_COMPLETE = 1,
} aclrtEventRecordedStatus;

typedef enum aclrtEventWaitStatus {
	ACL_EVENT_WAIT_STATUS_COMPLETE = 0,
	ACL_EVENT_WAIT_STATUS_NOT_READY = 1,
	ACL_EVENT_WAIT_STATUS_RESERVED = 0xFFFF,
} aclrtEventWaitStatus;

typedef struct aclrtIpcEventHandle {
	char reserved[ACL_IPC_EVENT_HANDLE_SIZE];
} aclrtIpcEventHandle;

typedef enum aclrtCallbackBlockType {
	ACL_CALLBACK_NO_BLOCK = 0,
	ACL_CALLBACK_BLOCK = 1,
} aclrtCallbackBlockType;

typedef void (*aclrtCallback)(void *userData);
typedef void (*aclrtHostFunc)(void *args);

typedef struct aclrtServerPid {
	uint32_t sdid;
	int32_t *pid;
	size_t num;
} aclrtServerPid;

typedef enum aclrtCntNotifyRecordMode {
	ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE = 0,
	ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE = 1,
	ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE = 2,
	ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE = 4,
} aclrtCntNotifyRecordMode;

typedef enum aclrtCntNotifyWaitMode {
	ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE = 0,
	ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE = 1,
	ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE = 2,
	ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE = 3,
	ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE = 4,
} aclrtCntNotifyWaitMode;

typedef struct aclrtCntNotifyRecordInfo {
	aclrtCntNotifyRecordMode mode;
	uint32_t value;
} aclrtCntNotifyRecordInfo;

typedef struct aclrtCntNotifyWaitInfo {
	aclrtCntNotifyWaitMode mode;
	uint32_t value;
	uint32_t timeout;
	uint8_t isClear;
	uint8_t rsv[3];
} aclrtCntNotifyWaitInfo;

/* Devices */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceForce(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);

/* Streams and events */
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event);
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream);

/* Contexts */
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context);
ACL_FUNC_VISIBILITY aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream);
ACL_FUNC_VISIBILITY aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active);

/* Streams beyond the basics */
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode);
ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);
ACL_FUNC_VISIBILITY aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId);
ACL_FUNC_VISIBILITY aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags);
ACL_FUNC_VISIBILITY aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority);
ACL_FUNC_VISIBILITY aclError aclrtStreamAbort(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtStreamStop(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout);

/* Events beyond the basics */
ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);
ACL_DEPRECATED_MESSAGE("aclrtQueryEvent is deprecated, use aclrtQueryEventStatus instead")
ACL_FUNC_VISIBILITY aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status);
ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status);
ACL_FUNC_VISIBILITY aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent);
ACL_FUNC_VISIBILITY aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp);
ACL_FUNC_VISIBILITY aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId);

/* Host functions in stream order */
ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(aclrtCallback fn, void *userData,
						 aclrtCallbackBlockType blockType, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args);

/* Notifies */
ACL_FUNC_VISIBILITY aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag);
ACL_FUNC_VISIBILITY aclError aclrtDestroyNotify(aclrtNotify notify);
ACL_FUNC_VISIBILITY aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId);
ACL_FUNC_VISIBILITY aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num);
ACL_FUNC_VISIBILITY aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num);
ACL_FUNC_VISIBILITY aclError aclrtNotifySetImportPidInterServer(aclrtNotify notify, aclrtServerPid *serverPids,
								size_t num);
ACL_FUNC_VISIBILITY aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyCreate(aclrtCntNotify *cntNotify, uint64_t flag);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyDestroy(aclrtCntNotify cntNotify);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyRecord(aclrtCntNotify cntNotify, aclrtStream stream,
						  aclrtCntNotifyRecordInfo *info);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyWaitWithTimeout(aclrtCntNotify cntNotify, aclrtStream stream,
							   aclrtCntNotifyWaitInfo *info);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyReset(aclrtCntNotify cntNotify, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyGetId(aclrtCntNotify cntNotify, uint32_t *notifyId);

/* Host memory */
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);
ACL_FUNC_VISIBILITY aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg);
ACL_FUNC_VISIBILITY aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type,
					       void **devPtr);
ACL_FUNC_VISIBILITY aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtHostUnregister(void *ptr);

/* Device memory and copies */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
						aclrtMallocConfig *cfg);
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);
ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total);
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
					 aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
					      aclrtMemcpyKind kind, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count);
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
					      aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
					   size_t width, size_t height, aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
						size_t width, size_t height, aclrtMemcpyKind kind,
						aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
					      size_t numBatches, aclrtMemcpyBatchAttr *attrs,
					      size_t *attrsIndexes, size_t numAttrs, size_t *failIndex);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
						   size_t numBatches, aclrtMemcpyBatchAttr *attrs,
						   size_t *attrsIndexes, size_t numAttrs, size_t *failIndex,
						   aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N);
ACL_FUNC_VISIBILITY aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N,
						 aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes);
ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtFreeWithDevSync(void *devPtr);
ACL_FUNC_VISIBILITY aclError aclrtFreeHostWithDevSync(void *hostPtr);
ACL_FUNC_VISIBILITY aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize);
ACL_FUNC_VISIBILITY aclError aclrtGetMemUsageInfo(int32_t deviceId, aclrtMemUsageInfo *memUsageInfo, size_t inputNum,
						  size_t *outputNum);
ACL_FUNC_VISIBILITY aclError aclrtCheckMemType(void **addrList, uint32_t size, uint32_t memType, uint32_t *checkResult,
					       uint32_t reserve);
ACL_FUNC_VISIBILITY aclError aclrtHostMemMapCapabilities(uint32_t deviceId, aclrtHacType hacType,
							 aclrtHostMemMapCapability *capabilities);

/* Managed (unified) memory */
ACL_FUNC_VISIBILITY aclError aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtMemManagedAdvise(const void *const ptr, uint64_t size,
						   aclrtMemManagedAdviseType advise,
						   aclrtMemManagedLocation location);
ACL_FUNC_VISIBILITY aclError aclrtMemManagedPrefetchAsync(const void *ptr, size_t size,
							  aclrtMemManagedLocation location, uint32_t flags,
							  aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemManagedGetAttr(aclrtMemManagedRangeAttribute attribute, const void *ptr,
						    size_t size, void *data, size_t dataSize);

/* Virtual memory management */
ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
							      aclrtMemGranularityOptions option,
							      size_t *granularity);
ACL_FUNC_VISIBILITY aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
						 const aclrtPhysicalMemProp *prop, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtFreePhysical(aclrtDrvMemHandle handle);
ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment,
						    void *expectPtr, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtReleaseMemAddress(void *virPtr);
ACL_FUNC_VISIBILITY aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
					 uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtUnmapMem(void *virPtr);
ACL_FUNC_VISIBILITY aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count);
ACL_FUNC_VISIBILITY aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag);
ACL_FUNC_VISIBILITY aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle,
								       aclrtPhysicalMemProp *prop);

/* Sharing and peers */
ACL_FUNC_VISIBILITY aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle,
							     aclrtMemHandleType handleType, uint64_t flags,
							     uint64_t *shareableHandle);
ACL_FUNC_VISIBILITY aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
							       aclrtDrvMemHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid,
							     size_t pidNum);
ACL_FUNC_VISIBILITY aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
							       aclrtMemSharedHandleType shareType,
							       void *shareableHandle);
ACL_FUNC_VISIBILITY aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle,
								 aclrtMemSharedHandleType shareType, uint64_t flags,
								 aclrtDrvMemHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle,
							       aclrtMemSharedHandleType shareType, int32_t *pid,
							       size_t pidNum);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetBareTgid(int32_t *pid);
ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId,
						      int32_t peerDeviceId);
ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);

/* IPC memory: aclrtMalloc memory shared with other processes by a key */
#define ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x1UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS 0x1UL

typedef enum aclrtIpcMemAttrType {
	ACL_RT_IPC_MEM_ATTR_ACCESS_LINK = 0,
} aclrtIpcMemAttrType;

#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_SIO 0
#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_HCCS 1
#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_ONE_PORT_PATH 2
#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_MULTI_PORT_PATH 3

ACL_FUNC_VISIBILITY aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len,
						     uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemClose(const char *key);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemSetAttr(const char *key, aclrtIpcMemAttrType type, uint64_t attr);

/* Device queries and resource limits */
typedef enum aclrtRunMode {
	ACL_DEVICE = 0,
	ACL_HOST = 1,
} aclrtRunMode;

typedef enum {
	ACL_DEV_ATTR_AICPU_CORE_NUM = 1,
	ACL_DEV_ATTR_AICORE_CORE_NUM = 101,
	ACL_DEV_ATTR_CUBE_CORE_NUM = 102,
	ACL_DEV_ATTR_VECTOR_CORE_NUM = 201,
	ACL_DEV_ATTR_WARP_SIZE = 202,
	ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE = 203,
	ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE = 204,
	ACL_DEV_ATTR_LOCAL_MEM_PER_VECTOR_CORE = 204,	/* deprecated spelling */
	ACL_DEV_ATTR_MAX_GRID_DIM_X = 205,
	ACL_DEV_ATTR_MAX_GRID_DIM_Y = 206,
	ACL_DEV_ATTR_MAX_GRID_DIM_Z = 207,
	ACL_DEV_ATTR_MAX_BLOCK_PER_GRID = 208,
	ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK = 209,
	ACL_DEV_ATTR_MAX_BLOCK_DIM_X = 210,
	ACL_DEV_ATTR_MAX_BLOCK_DIM_Y = 211,
	ACL_DEV_ATTR_MAX_BLOCK_DIM_Z = 212,
	ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE = 301,
	ACL_DEV_ATTR_L2_CACHE_SIZE = 302,
	ACL_DEV_ATTR_SMP_ID = 401,
	ACL_DEV_ATTR_PHY_CHIP_ID = 402,
	ACL_DEV_ATTR_SUPER_POD_DEVICE_ID = 403,
	ACL_DEV_ATTR_SUPER_POD_DEVIDE_ID = 403,	/* the vendor's older spelling */
	ACL_DEV_ATTR_SUPER_POD_SERVER_ID = 404,
	ACL_DEV_ATTR_SUPER_POD_ID = 405,
	ACL_DEV_ATTR_CUST_OP_PRIVILEGE = 406,
	ACL_DEV_ATTR_MAINBOARD_ID = 407,
	ACL_DEV_ATTR_HD_CONNECT_TYPE = 408,
	ACL_DEV_ATTR_DEVICE_FORM_FACTOR = 409,
	ACL_DEV_ATTR_IS_VIRTUAL = 501,
	ACL_DEV_ATTR_NPU_ARCH = 601,
} aclrtDevAttr;

typedef enum {
	ACL_RT_DEVICE_STATUS_NORMAL = 0,
	ACL_RT_DEVICE_STATUS_ABNORMAL = 1,
	ACL_RT_DEVICE_STATUS_END = 0xFFFF,
} aclrtDeviceStatus;

typedef enum {
	ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV = 1,
	ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV = 21,
} aclrtDevFeatureType;

#define ACL_DEV_FEATURE_SUPPORT 0x00000001
#define ACL_DEV_FEATURE_NOT_SUPPORT 0x00000000

#define ACL_HOST_DEVICE_CONNECT_TYPE_PCIE 0
#define ACL_HOST_DEVICE_CONNECT_TYPE_HCCS 1
#define ACL_HOST_DEVICE_CONNECT_TYPE_UB 2

#define ACL_DEVICE_FORM_FACTOR_POD 0
#define ACL_DEVICE_FORM_FACTOR_A_K 1
#define ACL_DEVICE_FORM_FACTOR_A_X 2
#define ACL_DEVICE_FORM_FACTOR_PCIE_CARD 3

typedef struct aclrtUtilizationExtendInfo aclrtUtilizationExtendInfo;

typedef struct aclrtUtilizationInfo {
	int32_t cubeUtilization;
	int32_t vectorUtilization;
	int32_t aicpuUtilization;
	int32_t memoryUtilization;
	aclrtUtilizationExtendInfo *utilizationExtend;
} aclrtUtilizationInfo;

typedef struct aclrtUuid {
	char bytes[16];
} aclrtUuid;

typedef enum {
	ACL_RT_DEV_RES_CUBE_CORE = 0,
	ACL_RT_DEV_RES_VECTOR_CORE = 1,
} aclrtDevResLimitType;

ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode);
ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value);
ACL_FUNC_VISIBILITY aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceUtilizationRate(int32_t deviceId,
							   aclrtUtilizationInfo *utilizationInfo);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetPCIBusId(int32_t deviceId, char *pciBusId, int32_t len);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetByPCIBusId(const char *pciBusId, int32_t *deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType,
						      int32_t *value);
ACL_FUNC_VISIBILITY aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);
ACL_FUNC_VISIBILITY aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value);
ACL_FUNC_VISIBILITY aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value);
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceResLimit(int32_t deviceId);

/* Stream resource limits */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value);
ACL_FUNC_VISIBILITY aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t *value);
ACL_FUNC_VISIBILITY aclError aclrtResetStreamResLimit(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtUseStreamResInCurrentThread(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value);

#ifdef __cplusplus
}
#endif

#endif /* ACL_ACL_RT_H */
