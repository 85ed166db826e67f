/* SPDX-License-Identifier: MIT */
/*
 * libacl: base types, the acl-layer error codes and the data types of the
 * aclrt API (CANN's acl/acl_base_rt.h).
 *
 * Spelling as in CANN, so that programs written against the vendor's
 * headers see the same kind of name: ACL_SUCCESS, ACL_ERROR_NONE, the
 * ACL_ERROR_* codes without _RT_ and, as the one exception, ACL_ERROR_RT_FAILURE
 * are `static const int` objects, not macros (`#ifdef ACL_SUCCESS` is
 * false). In C++ they are constant expressions; in C they are not, so C
 * code cannot use them in case labels, static initialisers or static
 * assertions. ACL_RT_SUCCESS and the runtime codes ACL_ERROR_RT_* are
 * macros, in error_codes/rt_error_codes.h.
 */
#ifndef ACL_ACL_BASE_RT_H
#define ACL_ACL_BASE_RT_H

#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>

#ifndef ACL_FUNC_VISIBILITY
#if defined(_WIN32)
#ifdef FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __declspec(dllexport)
#else
#define ACL_FUNC_VISIBILITY
#endif
#elif defined(__GNUC__)
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define ACL_FUNC_VISIBILITY
#endif
#endif

#ifndef ACL_DEPRECATED
#ifdef __GNUC__
#define ACL_DEPRECATED __attribute__((deprecated))
#define ACL_DEPRECATED_MESSAGE(message) __attribute__((deprecated(message)))
#else
#define ACL_DEPRECATED
#define ACL_DEPRECATED_MESSAGE(message)
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef void *aclrtStream;
/* A task of a model runtime instance (aclmdlRI, acl_rt.h); opaque */
typedef void *aclmdlRITask;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef void *aclrtNotify;
typedef void *aclrtCntNotify;
/* Labels of a model's streams and their device-side lists (acl_rt.h); opaque */
typedef void *aclrtLabel;
typedef void *aclrtLabelList;
/* A shared buffer (aclrtAllocBuf, acl_rt.h); opaque */
typedef void *aclrtMbuf;
/*
 * A custom allocator (acl_rt_allocator.h): its description, the
 * application's allocator object, a block it hands out and an address
 */
typedef void *aclrtAllocatorDesc;
typedef void *aclrtAllocator;
typedef void *aclrtAllocatorBlock;
typedef void *aclrtAllocatorAddr;
/* A task group of a captured model (acl_rt.h); opaque */
typedef void *aclrtTaskGrp;
typedef int aclError;
/* A (data, size) pair: aclCreateDataBuffer; opaque */
typedef struct aclDataBuffer aclDataBuffer;
/* an IEEE 754 binary16 value, as its bit pattern */
typedef uint16_t aclFloat16;

static const int ACL_ERROR_NONE = 0;
static const int ACL_SUCCESS = 0;

/* the acl layer: arguments, initialisation, files */
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_INVALID_FILE = 100003;
static const int ACL_ERROR_PARSE_FILE = 100006;
static const int ACL_ERROR_INVALID_DUMP_CONFIG = 100009;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;
static const int ACL_ERROR_DUMP_NOT_RUN = 100045;

static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;

static const int ACL_ERROR_STORAGE_OVER_LIMIT = 300000;

static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_RT_FAILURE = 500003;
static const int ACL_ERROR_DRV_FAILURE = 500004;

/* Element types; aclDataTypeSize() gives their sizes in bytes. */
typedef enum {
	ACL_DT_UNDEFINED = -1,
	ACL_FLOAT = 0,
	ACL_FLOAT16 = 1,
	ACL_INT8 = 2,
	ACL_INT32 = 3,
	ACL_UINT8 = 4,
	ACL_INT16 = 6,
	ACL_UINT16 = 7,
	ACL_UINT32 = 8,
	ACL_INT64 = 9,
	ACL_UINT64 = 10,
	ACL_DOUBLE = 11,
	ACL_BOOL = 12,
	ACL_STRING = 13,
	ACL_COMPLEX64 = 16,
	ACL_COMPLEX128 = 17,
	ACL_BF16 = 27,
	ACL_INT4 = 29,
	ACL_UINT1 = 30,
	ACL_COMPLEX32 = 33,
	ACL_HIFLOAT8 = 34,
	ACL_FLOAT8_E5M2 = 35,
	ACL_FLOAT8_E4M3FN = 36,
	ACL_FLOAT8_E8M0 = 37,
	ACL_FLOAT6_E3M2 = 38,
	ACL_FLOAT6_E2M3 = 39,
	ACL_FLOAT4_E2M1 = 40,
	ACL_FLOAT4_E1M2 = 41,
} aclDataType;

/*
 * Pure utilities: no aclInit or device needed, thread-safe, and they
 * touch neither the last error nor aclGetRecentErrMsg().
 */
/*
 * Bytes of one element: 0 for ACL_DT_UNDEFINED and ACL_STRING, 1 for the
 * sub-byte INT4 and UINT1; 8 for any value without a size of its own
 * (FLOAT6_*, FLOAT4_*, unassigned numbers), as CANN.
 */
ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType);
/* Exact; exponent field 31 decodes as a normal exponent (0x7C00 -> 65536). */
ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value);
/* Nearest, ties to even; |x| >= 65520, Inf and NaN saturate to +-65504. */
ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value);

/* aclAppLog levels */
typedef enum {
	ACL_DEBUG = 0,
	ACL_INFO = 1,
	ACL_WARNING = 2,
	ACL_ERROR = 3,
} aclLogLevel;

/*
 * aclrtSetSysParamOpt options. DETERMINISTIC takes 0..3 (off,
 * deterministic, strong consistency, batch consistency), the others 0..1.
 * Recorded and reported: the simulated chip runs no kernels they change.
 */
typedef enum {
	ACL_OPT_DETERMINISTIC = 0,
	ACL_OPT_ENABLE_DEBUG_KERNEL = 1,
	ACL_OPT_STRONG_CONSISTENCY ACL_DEPRECATED_MESSAGE(
		"ACL_OPT_STRONG_CONSISTENCY is deprecated, use ACL_OPT_DETERMINISTIC with value 2 instead") = 2,
	ACL_OPT_ENABLE_KERNEL_EARLY_START = 3
} aclSysParamOpt;

/* CANN attributes: features of the installation and its chip */
typedef enum {
	ACL_CANN_ATTR_UNDEFINED = -1,
	ACL_CANN_ATTR_INF_NAN = 0,
	ACL_CANN_ATTR_BF16 = 1,
	ACL_CANN_ATTR_JIT_COMPILE = 2
} aclCannAttr;

/* aclGetDeviceCapability items */
typedef enum {
	ACL_DEVICE_INFO_UNDEFINED = -1,
	ACL_DEVICE_INFO_AI_CORE_NUM = 0,
	ACL_DEVICE_INFO_VECTOR_CORE_NUM = 1,
	ACL_DEVICE_INFO_L2_SIZE = 2
} aclDeviceInfo;

/*
 * Data buffers: a record of (data, size), nothing allocated behind data
 * and nothing checked (NULL, 0 is a valid buffer). Create returns NULL only
 * when out of memory; Destroy frees the record, not data. The getters of a
 * NULL buffer answer NULL / 0; aclGetDataBufferSize gives the low 32 bits
 * of the size, as CANN. Update of a NULL buffer: ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclDataBuffer *aclCreateDataBuffer(void *data, size_t size);
ACL_FUNC_VISIBILITY aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer);
ACL_FUNC_VISIBILITY aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size);
ACL_FUNC_VISIBILITY void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer);
ACL_DEPRECATED_MESSAGE("aclGetDataBufferSize is deprecated, use aclGetDataBufferSizeV2 instead")
ACL_FUNC_VISIBILITY uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer);
ACL_FUNC_VISIBILITY size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer);

/*
 * An application log line, to libacl's log (stderr): written when
 * logLevel >= ASCEND_GLOBAL_LOG_LEVEL (0 debug .. 3 error, default 3; 4
 * or more: nothing), as "[LEVEL] APP(pid): tid func:file:line: \"body\"".
 * From tid on at most 1023 bytes, as CANN; a longer line is cut and ends
 * in "...[truncated]". NULL func, file or fmt: nothing, silently.
 * aclAppLogWithArgs takes a va_list (CANN exports it without declaring it).
 */
ACL_FUNC_VISIBILITY void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
				   const char *fmt, ...);
ACL_FUNC_VISIBILITY void aclAppLogWithArgs(aclLogLevel logLevel, const char *func, const char *file,
					   uint32_t line, const char *fmt, va_list args);
#define ACL_APP_LOG(level, fmt, ...) aclAppLog(level, __FUNCTION__, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

/*
 * The attributes available here: INF_NAN and BF16 when device 0's SoC is
 * one whose platform file says so (every 910B and 910_93 part) or the
 * simulated chip, JIT_COMPILE never (libacl has no operator compiler).
 * *cannAttrList is the caller's thread's, valid until its next call. No
 * aclInit needed; NULL arguments: ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num);

/* *value = 1 if @cannAttr is available (see above), else 0; another value: ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value);

/*
 * The chip's AI core and vector core counts (what the device reports) and
 * its L2 size (its SoC's, as aclrtGetDeviceInfo reports it), for any existing deviceId;
 * no aclInit or aclrtSetDevice needed beyond the device count. NULL value,
 * deviceId beyond the device count or another item: ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value);

/*
 * CANN also declares aclrtGetSocName() here; libacl declares it once, with
 * the device queries of acl_rt.h.
 */

#ifdef __cplusplus
}
#endif

#endif /* ACL_ACL_BASE_RT_H */
