/* SPDX-License-Identifier: MIT */
/*
 * Frozen facts of the public headers, shared by header_c.c (C11) and
 * header_cxx.cc (C++11): the values and layouts a program built against
 * the CANN headers relies on.  ACL_SA is the language's static assertion,
 * ACL_SA_CONST_INT(x) an integer constant expression that is 1 when x is
 * an object of type const int.  The includer provides printf and strcmp.
 */
#define ACL_SA_EQ(a, b) ACL_SA((a) == (b), #a " == " #b)

/*
 * Error codes, in two lists by their CANN spelling:
 * ACL_CONST_CODES are `static const int` objects of acl_base_rt.h (not
 * macros; constant expressions in C++ only), ACL_MACRO_CODES are the
 * #defines of error_codes/rt_error_codes.h. The macros' values are checked
 * here at compile time, the objects' in C++ only; acl_check_codes() checks
 * every value at run time, that each object is not a macro and that each
 * macro expands to exactly its number.
 */
#define ACL_CONST_CODES(X)							\
	X(ACL_ERROR_NONE, 0)							\
	X(ACL_SUCCESS, 0)							\
	X(ACL_ERROR_INVALID_PARAM, 100000)					\
	X(ACL_ERROR_UNINITIALIZE, 100001)					\
	X(ACL_ERROR_REPEAT_INITIALIZE, 100002)					\
	X(ACL_ERROR_INVALID_FILE, 100003)					\
	X(ACL_ERROR_REPEAT_FINALIZE, 100037)					\
	X(ACL_ERROR_BAD_ALLOC, 200000)						\
	X(ACL_ERROR_API_NOT_SUPPORT, 200001)					\
	X(ACL_ERROR_INVALID_DEVICE, 200002)					\
	X(ACL_ERROR_MEMORY_ADDRESS_UNALIGNED, 200003)				\
	X(ACL_ERROR_INVALID_RESOURCE_HANDLE, 200005)				\
	X(ACL_ERROR_FEATURE_UNSUPPORTED, 200006)				\
	X(ACL_ERROR_STORAGE_OVER_LIMIT, 300000)					\
	X(ACL_ERROR_INTERNAL_ERROR, 500000)					\
	X(ACL_ERROR_FAILURE, 500001)						\
	X(ACL_ERROR_RT_FAILURE, 500003)						\
	X(ACL_ERROR_DRV_FAILURE, 500004)

#define ACL_MACRO_CODES(X)							\
	X(ACL_RT_SUCCESS, 0)							\
	X(ACL_ERROR_RT_PARAM_INVALID, 107000)					\
	X(ACL_ERROR_RT_INVALID_DEVICEID, 107001)				\
	X(ACL_ERROR_RT_CONTEXT_NULL, 107002)					\
	X(ACL_ERROR_RT_STREAM_CONTEXT, 107003)					\
	X(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, 107006)				\
	X(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL, 107007)			\
	X(ACL_ERROR_RT_ADDR_UNALIGNED, 107008)					\
	X(ACL_ERROR_RT_STREAM_SUBSCRIBE, 107011)				\
	X(ACL_ERROR_RT_THREAD_SUBSCRIBE, 107012)				\
	X(ACL_ERROR_RT_STREAM_NO_CB_REG, 107015)				\
	X(ACL_ERROR_RT_INVALID_MEMORY_TYPE, 107016)				\
	X(ACL_ERROR_RT_INVALID_HANDLE, 107017)					\
	X(ACL_ERROR_RT_INVALID_MALLOC_TYPE, 107018)				\
	X(ACL_ERROR_RT_WAIT_TIMEOUT, 107019)					\
	X(ACL_ERROR_RT_TASK_TIMEOUT, 107020)					\
	X(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, 107021)				\
	X(ACL_ERROR_RT_DEVICE_TASK_ABORT, 107022)				\
	X(ACL_ERROR_RT_STREAM_ABORT, 107023)					\
	X(ACL_ERROR_STREAM_CAPTURE_CONFLICT, 107032)				\
	X(ACL_ERROR_STREAM_TASK_GROUP_STATUS, 107033)				\
	X(ACL_ERROR_STREAM_TASK_GROUP_INTR, 107034)				\
	X(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, 207000)				\
	X(ACL_ERROR_RT_MEMORY_ALLOCATION, 207001)				\
	X(ACL_ERROR_RT_MEMORY_FREE, 207002)					\
	X(ACL_ERROR_RT_NO_DEVICE, 207004)					\
	X(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, 207005)				\
	X(ACL_ERROR_RT_NO_PERMISSION, 207006)					\
	X(ACL_ERROR_RT_NO_EVENT_RESOURCE, 207007)				\
	X(ACL_ERROR_RT_NO_STREAM_RESOURCE, 207008)				\
	X(ACL_ERROR_RT_NO_NOTIFY_RESOURCE, 207009)				\
	X(ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED, 207021)				\
	X(ACL_ERROR_RT_INTERNAL_ERROR, 507000)					\
	X(ACL_ERROR_RT_TS_ERROR, 507001)					\
	X(ACL_ERROR_RT_STREAM_NOT_COMPLETE, 507004)				\
	X(ACL_ERROR_RT_EVENT_NOT_COMPLETE, 507006)				\
	X(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, 507007)				\
	X(ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT, 507009)				\
	X(ACL_ERROR_RT_REPORT_TIMEOUT, 507012)					\
	X(ACL_ERROR_RT_IPC_ERROR, 507022)					\
	X(ACL_ERROR_RT_DEV_SETUP_ERROR, 507033)					\
	X(ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, 507035)				\
	X(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, 507046)				\
	X(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, 507047)				\
	X(ACL_ERROR_RT_DRV_INTERNAL_ERROR, 507899)				\
	X(ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT, 507905)				\
	X(ACL_ERROR_SNAPSHOT_LOCK_FAILED, 507906)				\
	X(ACL_ERROR_SNAPSHOT_UNLOCK_FAILED, 507907)				\
	X(ACL_ERROR_SNAPSHOT_BACKUP_FAILED, 507908)				\
	X(ACL_ERROR_SNAPSHOT_RESTORE_FAILED, 507909)				\
	X(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 507910)			\
	X(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, 507911)				\
	X(ACL_ERROR_SNAPSHOT_CALLBACK_FAILED, 507912)				\
	X(ACL_ERROR_SNAPSHOT_REGISTER_CALLBACK_FAILED, 507913)

#define ACL_SA_CODE(name, value) ACL_SA((name) == (value), #name " == " #value);
ACL_MACRO_CODES(ACL_SA_CODE)
#ifdef __cplusplus
ACL_CONST_CODES(ACL_SA_CODE)
#endif
/* ACL_SA_CONST_INT(x): x names an object of type const int (includer's) */
#define ACL_SA_CONST(name, value) ACL_SA(ACL_SA_CONST_INT(name), #name " is a static const int");
ACL_CONST_CODES(ACL_SA_CONST)

/* what programs test with the preprocessor */
#if !defined(ACL_ERROR_RT_CONTEXT_NULL) || ACL_ERROR_RT_CONTEXT_NULL != 107002
#error "ACL_ERROR_RT_CONTEXT_NULL must be a macro of value 107002"
#endif
#if !defined(ACL_RT_SUCCESS) || ACL_RT_SUCCESS != 0
#error "ACL_RT_SUCCESS must be a macro of value 0"
#endif
#if defined(ACL_SUCCESS) || defined(ACL_ERROR_INVALID_PARAM) || defined(ACL_ERROR_RT_FAILURE)
#error "the acl-layer codes are static const int, not macros"
#endif

#define ACL_STR(x) #x
#define ACL_XSTR(x) ACL_STR(x)

struct acl_code_row {
	const char *name, *expanded, *want_text;
	long value, want;
	int macro;
};

#define ACL_CONST_ROW(name, v) { #name, ACL_XSTR(name), #v, (long)(name), v, 0 },
#define ACL_MACRO_ROW(name, v) { #name, ACL_XSTR(name), #v, (long)(name), v, 1 },

/* Prints a "# ..." line per wrong code; returns how many are wrong. */
static int acl_check_codes(void)
{
	/* automatic: in C the objects are no constant initialisers */
	const struct acl_code_row rows[] = {
		ACL_CONST_CODES(ACL_CONST_ROW)
		ACL_MACRO_CODES(ACL_MACRO_ROW)
	};
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct acl_code_row *r = &rows[i];

		if (r->value != r->want) {
			printf("# %s is %ld, want %ld\n", r->name, r->value, r->want);
			bad++;
		}
		if (r->macro && strcmp(r->expanded, r->want_text)) {
			printf("# %s must be a macro expanding to %s, is \"%s\"\n", r->name,
			       r->want_text, r->expanded);
			bad++;
		}
		if (!r->macro && strcmp(r->expanded, r->name)) {
			printf("# %s must not be a macro (expands to \"%s\")\n", r->name, r->expanded);
			bad++;
		}
	}
	return bad;
}

/* aclrtMemcpyKind */
ACL_SA_EQ(ACL_MEMCPY_HOST_TO_HOST, 0);
ACL_SA_EQ(ACL_MEMCPY_HOST_TO_DEVICE, 1);
ACL_SA_EQ(ACL_MEMCPY_DEVICE_TO_HOST, 2);
ACL_SA_EQ(ACL_MEMCPY_DEVICE_TO_DEVICE, 3);
ACL_SA_EQ(ACL_MEMCPY_DEFAULT, 4);
ACL_SA_EQ(ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, 5);
ACL_SA_EQ(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, 6);
ACL_SA_EQ(ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, 7);

/* aclrtMemMallocPolicy */
ACL_SA_EQ(ACL_MEM_MALLOC_HUGE_FIRST, 0);
ACL_SA_EQ(ACL_MEM_MALLOC_HUGE_ONLY, 1);
ACL_SA_EQ(ACL_MEM_MALLOC_NORMAL_ONLY, 2);
ACL_SA_EQ(ACL_MEM_MALLOC_HUGE_FIRST_P2P, 3);
ACL_SA_EQ(ACL_MEM_MALLOC_HUGE_ONLY_P2P, 4);
ACL_SA_EQ(ACL_MEM_MALLOC_NORMAL_ONLY_P2P, 5);
ACL_SA_EQ(ACL_MEM_MALLOC_HUGE1G_ONLY, 6);
ACL_SA_EQ(ACL_MEM_MALLOC_HUGE1G_ONLY_P2P, 7);
ACL_SA_EQ(ACL_MEM_TYPE_LOW_BAND_WIDTH, 0x0100);
ACL_SA_EQ(ACL_MEM_TYPE_HIGH_BAND_WIDTH, 0x1000);
ACL_SA_EQ(ACL_MEM_ACCESS_USER_SPACE_READONLY, 0x100000);

/* aclrtMemAttr */
ACL_SA_EQ(ACL_DDR_MEM, 0);
ACL_SA_EQ(ACL_HBM_MEM, 1);
ACL_SA_EQ(ACL_DDR_MEM_HUGE, 2);
ACL_SA_EQ(ACL_DDR_MEM_NORMAL, 3);
ACL_SA_EQ(ACL_HBM_MEM_HUGE, 4);
ACL_SA_EQ(ACL_HBM_MEM_NORMAL, 5);
ACL_SA_EQ(ACL_DDR_MEM_P2P_HUGE, 6);
ACL_SA_EQ(ACL_DDR_MEM_P2P_NORMAL, 7);
ACL_SA_EQ(ACL_HBM_MEM_P2P_HUGE, 8);
ACL_SA_EQ(ACL_HBM_MEM_P2P_NORMAL, 9);
ACL_SA_EQ(ACL_HBM_MEM_HUGE1G, 10);
ACL_SA_EQ(ACL_HBM_MEM_P2P_HUGE1G, 11);
ACL_SA_EQ(ACL_MEM_NORMAL, 12);
ACL_SA_EQ(ACL_MEM_HUGE, 13);
ACL_SA_EQ(ACL_MEM_HUGE1G, 14);
ACL_SA_EQ(ACL_MEM_P2P_NORMAL, 15);
ACL_SA_EQ(ACL_MEM_P2P_HUGE, 16);
ACL_SA_EQ(ACL_MEM_P2P_HUGE1G, 17);

/* host registration */
ACL_SA_EQ(ACL_HOST_REGISTER_MAPPED, 0);
ACL_SA_EQ(ACL_HOST_REGISTER_IOMEMORY, 0x04);
ACL_SA_EQ(ACL_HOST_REGISTER_READONLY, 0x08);
ACL_SA_EQ(ACL_HOST_REG_MAPPED, 0x2UL);
ACL_SA_EQ(ACL_HOST_REG_IOMEMORY, 0x4UL);
ACL_SA_EQ(ACL_HOST_REG_READONLY, 0x8UL);
ACL_SA_EQ(ACL_HOST_REG_PINNED, 0x10000000UL);

/* malloc config */
ACL_SA_EQ(ACL_RT_MEM_ATTR_RSV, 0);
ACL_SA_EQ(ACL_RT_MEM_ATTR_MODULE_ID, 1);
ACL_SA_EQ(ACL_RT_MEM_ATTR_DEVICE_ID, 2);
ACL_SA_EQ(ACL_RT_MEM_ATTR_VA_FLAG, 3);
ACL_SA_EQ(sizeof(aclrtMallocAttrValue), 8);
ACL_SA_EQ(sizeof(aclrtMallocAttribute), 12);
ACL_SA_EQ(offsetof(aclrtMallocAttribute, value), 4);
ACL_SA_EQ(sizeof(aclrtMallocConfig), 2 * sizeof(void *));
ACL_SA_EQ(offsetof(aclrtMallocConfig, numAttrs), sizeof(void *));

/* locations, VMM */
ACL_SA_EQ(ACL_MEM_LOCATION_TYPE_HOST, 0);
ACL_SA_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, 1);
ACL_SA_EQ(ACL_MEM_LOCATION_TYPE_UNREGISTERED, 2);
ACL_SA_EQ(ACL_MEM_LOCATION_TYPE_MANAGED, 3);
ACL_SA_EQ(ACL_MEM_LOCATION_TYPE_HOST_NUMA, 4);
ACL_SA_EQ(sizeof(aclrtMemLocation), 8);
ACL_SA_EQ(offsetof(aclrtMemLocation, id), 0);
ACL_SA_EQ(offsetof(aclrtMemLocation, type), 4);
ACL_SA_EQ(ACL_MEM_ALLOCATION_TYPE_PINNED, 0);
ACL_SA_EQ(ACL_MEM_HANDLE_TYPE_NONE, 0);
ACL_SA_EQ(ACL_MEM_HANDLE_TYPE_POSIX, 2);
ACL_SA_EQ(sizeof(aclrtPhysicalMemProp), 32);
ACL_SA_EQ(offsetof(aclrtPhysicalMemProp, handleType), 0);
ACL_SA_EQ(offsetof(aclrtPhysicalMemProp, allocationType), 4);
ACL_SA_EQ(offsetof(aclrtPhysicalMemProp, memAttr), 8);
ACL_SA_EQ(offsetof(aclrtPhysicalMemProp, location), 12);
ACL_SA_EQ(offsetof(aclrtPhysicalMemProp, reserve), 24);
ACL_SA_EQ(ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, 0);
ACL_SA_EQ(ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, 1);
ACL_SA_EQ(ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF, 0xFFFF);
ACL_SA_EQ(ACL_RT_MEM_ACCESS_FLAGS_NONE, 0x0);
ACL_SA_EQ(ACL_RT_MEM_ACCESS_FLAGS_READ, 0x1);
ACL_SA_EQ(ACL_RT_MEM_ACCESS_FLAGS_READWRITE, 0x3);
ACL_SA_EQ(sizeof(aclrtMemAccessDesc), 24);
ACL_SA_EQ(offsetof(aclrtMemAccessDesc, flags), 0);
ACL_SA_EQ(offsetof(aclrtMemAccessDesc, location), 4);
ACL_SA_EQ(offsetof(aclrtMemAccessDesc, rsv), 12);
ACL_SA_EQ(sizeof(aclrtPtrAttributes), 28);
ACL_SA_EQ(offsetof(aclrtPtrAttributes, location), 0);
ACL_SA_EQ(offsetof(aclrtPtrAttributes, pageSize), 8);
ACL_SA_EQ(offsetof(aclrtPtrAttributes, rsv), 12);
ACL_SA_EQ(sizeof(aclrtMemcpyBatchAttr), 32);
ACL_SA_EQ(offsetof(aclrtMemcpyBatchAttr, dstLoc), 0);
ACL_SA_EQ(offsetof(aclrtMemcpyBatchAttr, srcLoc), 8);
ACL_SA_EQ(offsetof(aclrtMemcpyBatchAttr, rsv), 16);
ACL_SA_EQ(ACL_RT_VMM_EXPORT_FLAG_DEFAULT, 0x0UL);
ACL_SA_EQ(ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, 0x1UL);

/* memory queries and V2 shareable handles (aclrt-api-runtime.md section 8) */
ACL_SA_EQ(ACL_RT_MEM_TYPE_DEV, 0x2U);
ACL_SA_EQ(ACL_RT_MEM_TYPE_DVPP, 0x8U);
ACL_SA_EQ(ACL_RT_MEM_TYPE_RSVD, 0x10U);
ACL_SA_EQ(ACL_RT_HAC_TYPE_STARS, 0);
ACL_SA_EQ(ACL_RT_HAC_TYPE_AICPU, 1);
ACL_SA_EQ(ACL_RT_HAC_TYPE_AIC, 2);
ACL_SA_EQ(ACL_RT_HAC_TYPE_AIV, 3);
ACL_SA_EQ(ACL_RT_HAC_TYPE_PCIEDMA, 4);
ACL_SA_EQ(ACL_RT_HAC_TYPE_RDMA, 5);
ACL_SA_EQ(ACL_RT_HAC_TYPE_SDMA, 6);
ACL_SA_EQ(ACL_RT_HAC_TYPE_DVPP, 7);
ACL_SA_EQ(ACL_RT_HAC_TYPE_UDMA, 8);
ACL_SA_EQ(ACL_RT_HAC_TYPE_CCU, 9);
ACL_SA_EQ(sizeof(aclrtHacType), 4);
ACL_SA_EQ(ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED, 0);
ACL_SA_EQ(ACL_RT_HOST_MEM_MAP_SUPPORTED, 1);
ACL_SA_EQ(sizeof(aclrtHostMemMapCapability), 4);
ACL_SA_EQ(ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0x1);
ACL_SA_EQ(ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0x2);
ACL_SA_EQ(sizeof(aclrtMemSharedHandleType), 4);
ACL_SA_EQ(sizeof(aclrtMemFabricHandle), 128);
ACL_SA_EQ(sizeof(((aclrtMemUsageInfo *)0)->name), 32);
ACL_SA_EQ(offsetof(aclrtMemUsageInfo, name), 0);
ACL_SA_EQ(offsetof(aclrtMemUsageInfo, curMemSize), 32);
ACL_SA_EQ(offsetof(aclrtMemUsageInfo, memPeakSize), 40);
ACL_SA_EQ(offsetof(aclrtMemUsageInfo, reserved), 48);
ACL_SA_EQ(sizeof(aclrtMemUsageInfo), 48 + 8 * sizeof(size_t));
#ifdef __LP64__
ACL_SA_EQ(sizeof(aclrtMemUsageInfo), 112);
#endif
ACL_SA_EQ(ACL_STREAM_WAIT_VALUE_GEQ, 0);
ACL_SA_EQ(ACL_STREAM_WAIT_VALUE_EQ, 1);
ACL_SA_EQ(ACL_STREAM_WAIT_VALUE_AND, 2);
ACL_SA_EQ(ACL_STREAM_WAIT_VALUE_NOR, 3);

/* errors */
ACL_SA_EQ(ACL_RT_THREAD_LEVEL, 0);
ACL_SA_EQ(sizeof(aclrtLastErrLevel), 4);
ACL_SA_EQ(ACL_RT_NO_ERROR, 0);
ACL_SA_EQ(ACL_RT_ERROR_MEMORY, 1);
ACL_SA_EQ(ACL_RT_ERROR_L2, 2);
ACL_SA_EQ(ACL_RT_ERROR_AICORE, 3);
ACL_SA_EQ(ACL_RT_ERROR_LINK, 4);
ACL_SA_EQ(ACL_RT_ERROR_L3_PORT, 5);
ACL_SA_EQ(ACL_RT_ERROR_OTHERS, 0xFFFF);
ACL_SA_EQ(sizeof(aclrtErrorType), 4);
ACL_SA_EQ(ACL_RT_AICORE_ERROR_UNKNOWN, 0);
ACL_SA_EQ(ACL_RT_AICORE_ERROR_SW, 1);
ACL_SA_EQ(ACL_RT_AICORE_ERROR_HW_LOCAL, 2);
ACL_SA_EQ(sizeof(aclrtAicoreErrorType), 4);
ACL_SA_EQ(ACL_RT_MEM_UCE_INFO_MAX_NUM, 20);
ACL_SA_EQ(UCE_INFO_RESERVED_SIZE, 14);
ACL_SA_EQ(MAX_MEM_UCE_INFO_ARRAY_SIZE, 128);
ACL_SA_EQ(sizeof(aclrtMemUceInfo), sizeof(void *) + 15 * sizeof(size_t));
ACL_SA_EQ(offsetof(aclrtMemUceInfo, addr), 0);
ACL_SA_EQ(offsetof(aclrtMemUceInfo, len), sizeof(void *));
ACL_SA_EQ(offsetof(aclrtMemUceInfo, reserved), sizeof(void *) + sizeof(size_t));
ACL_SA_EQ(sizeof(aclrtMemUceInfoArray), sizeof(size_t) + 20 * sizeof(aclrtMemUceInfo));
ACL_SA_EQ(offsetof(aclrtMemUceInfoArray, memUceInfoArray), sizeof(size_t));
ACL_SA_EQ(sizeof(aclrtErrorInfoDetail), sizeof(aclrtMemUceInfoArray));
ACL_SA_EQ(offsetof(aclrtErrorInfo, tryRepair), 0);
ACL_SA_EQ(offsetof(aclrtErrorInfo, hasDetail), 1);
ACL_SA_EQ(offsetof(aclrtErrorInfo, reserved), 2);
ACL_SA_EQ(offsetof(aclrtErrorInfo, errorType), 4);
ACL_SA_EQ(offsetof(aclrtErrorInfo, detail), 8);
ACL_SA_EQ(sizeof(aclrtErrorInfo), 8 + sizeof(aclrtErrorInfoDetail));
#ifdef __LP64__
/* the byte counts of the spec (LP64) */
ACL_SA_EQ(sizeof(aclrtMemUceInfo), 128);
ACL_SA_EQ(sizeof(aclrtMemUceInfoArray), 2568);
ACL_SA_EQ(sizeof(aclrtErrorInfoDetail), 2568);
ACL_SA_EQ(sizeof(aclrtErrorInfo), 2576);
#endif

/* package versions */
ACL_SA_EQ(ACL_PKG_VERSION_MAX_SIZE, 128);
ACL_SA_EQ(ACL_PKG_VERSION_PARTS_MAX_SIZE, 64);

/* aclDataType */
ACL_SA_EQ(sizeof(aclDataType), 4);
ACL_SA_EQ(ACL_DT_UNDEFINED, -1);
ACL_SA_EQ(ACL_FLOAT, 0);
ACL_SA_EQ(ACL_FLOAT16, 1);
ACL_SA_EQ(ACL_INT8, 2);
ACL_SA_EQ(ACL_INT32, 3);
ACL_SA_EQ(ACL_UINT8, 4);
ACL_SA_EQ(ACL_INT16, 6);
ACL_SA_EQ(ACL_UINT16, 7);
ACL_SA_EQ(ACL_UINT32, 8);
ACL_SA_EQ(ACL_INT64, 9);
ACL_SA_EQ(ACL_UINT64, 10);
ACL_SA_EQ(ACL_DOUBLE, 11);
ACL_SA_EQ(ACL_BOOL, 12);
ACL_SA_EQ(ACL_STRING, 13);
ACL_SA_EQ(ACL_COMPLEX64, 16);
ACL_SA_EQ(ACL_COMPLEX128, 17);
ACL_SA_EQ(ACL_BF16, 27);
ACL_SA_EQ(ACL_INT4, 29);
ACL_SA_EQ(ACL_UINT1, 30);
ACL_SA_EQ(ACL_COMPLEX32, 33);
ACL_SA_EQ(ACL_HIFLOAT8, 34);
ACL_SA_EQ(ACL_FLOAT8_E5M2, 35);
ACL_SA_EQ(ACL_FLOAT8_E4M3FN, 36);
ACL_SA_EQ(ACL_FLOAT8_E8M0, 37);
ACL_SA_EQ(ACL_FLOAT6_E3M2, 38);
ACL_SA_EQ(ACL_FLOAT6_E2M3, 39);
ACL_SA_EQ(ACL_FLOAT4_E2M1, 40);
ACL_SA_EQ(ACL_FLOAT4_E1M2, 41);

/* aclFloat16: the 16 bits of an IEEE binary16, unsigned */
ACL_SA_EQ(sizeof(aclFloat16), 2);
ACL_SA((aclFloat16)-1 > 0, "aclFloat16 is unsigned");

/* handle types are plain pointers */
ACL_SA_EQ(sizeof(aclrtNotify), sizeof(void *));
ACL_SA_EQ(sizeof(aclrtCntNotify), sizeof(void *));
ACL_SA_EQ(sizeof(aclrtStream), sizeof(void *));
ACL_SA_EQ(sizeof(aclrtEvent), sizeof(void *));
ACL_SA_EQ(sizeof(aclrtContext), sizeof(void *));
ACL_SA_EQ(sizeof(aclrtDrvMemHandle), sizeof(void *));
ACL_SA_EQ(sizeof(aclError), sizeof(int));

/* device queries and resource limits */
ACL_SA_EQ(ACL_DEVICE, 0);
ACL_SA_EQ(ACL_HOST, 1);
ACL_SA_EQ(ACL_DEV_ATTR_AICPU_CORE_NUM, 1);
ACL_SA_EQ(ACL_DEV_ATTR_AICORE_CORE_NUM, 101);
ACL_SA_EQ(ACL_DEV_ATTR_CUBE_CORE_NUM, 102);
ACL_SA_EQ(ACL_DEV_ATTR_VECTOR_CORE_NUM, 201);
ACL_SA_EQ(ACL_DEV_ATTR_WARP_SIZE, 202);
ACL_SA_EQ(ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE, 203);
ACL_SA_EQ(ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE, 204);
ACL_SA_EQ(ACL_DEV_ATTR_LOCAL_MEM_PER_VECTOR_CORE, 204);
ACL_SA_EQ(ACL_DEV_ATTR_MAX_GRID_DIM_X, 205);
ACL_SA_EQ(ACL_DEV_ATTR_MAX_GRID_DIM_Y, 206);
ACL_SA_EQ(ACL_DEV_ATTR_MAX_GRID_DIM_Z, 207);
ACL_SA_EQ(ACL_DEV_ATTR_MAX_BLOCK_PER_GRID, 208);
ACL_SA_EQ(ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK, 209);
ACL_SA_EQ(ACL_DEV_ATTR_MAX_BLOCK_DIM_X, 210);
ACL_SA_EQ(ACL_DEV_ATTR_MAX_BLOCK_DIM_Y, 211);
ACL_SA_EQ(ACL_DEV_ATTR_MAX_BLOCK_DIM_Z, 212);
ACL_SA_EQ(ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, 301);
ACL_SA_EQ(ACL_DEV_ATTR_L2_CACHE_SIZE, 302);
ACL_SA_EQ(ACL_DEV_ATTR_SMP_ID, 401);
ACL_SA_EQ(ACL_DEV_ATTR_PHY_CHIP_ID, 402);
ACL_SA_EQ(ACL_DEV_ATTR_SUPER_POD_DEVICE_ID, 403);
ACL_SA_EQ(ACL_DEV_ATTR_SUPER_POD_DEVIDE_ID, 403);
ACL_SA_EQ(ACL_DEV_ATTR_SUPER_POD_SERVER_ID, 404);
ACL_SA_EQ(ACL_DEV_ATTR_SUPER_POD_ID, 405);
ACL_SA_EQ(ACL_DEV_ATTR_CUST_OP_PRIVILEGE, 406);
ACL_SA_EQ(ACL_DEV_ATTR_MAINBOARD_ID, 407);
ACL_SA_EQ(ACL_DEV_ATTR_HD_CONNECT_TYPE, 408);
ACL_SA_EQ(ACL_DEV_ATTR_DEVICE_FORM_FACTOR, 409);
ACL_SA_EQ(ACL_DEV_ATTR_IS_VIRTUAL, 501);
ACL_SA_EQ(ACL_DEV_ATTR_NPU_ARCH, 601);
ACL_SA_EQ(sizeof(aclrtDevAttr), 4);
ACL_SA_EQ(ACL_RT_DEVICE_STATUS_NORMAL, 0);
ACL_SA_EQ(ACL_RT_DEVICE_STATUS_ABNORMAL, 1);
ACL_SA_EQ(ACL_RT_DEVICE_STATUS_END, 0xFFFF);
ACL_SA_EQ(ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, 1);
ACL_SA_EQ(ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, 21);
ACL_SA_EQ(ACL_DEV_FEATURE_SUPPORT, 0x00000001);
ACL_SA_EQ(ACL_DEV_FEATURE_NOT_SUPPORT, 0x00000000);
ACL_SA_EQ(ACL_HOST_DEVICE_CONNECT_TYPE_PCIE, 0);
ACL_SA_EQ(ACL_HOST_DEVICE_CONNECT_TYPE_HCCS, 1);
ACL_SA_EQ(ACL_HOST_DEVICE_CONNECT_TYPE_UB, 2);
ACL_SA_EQ(ACL_DEVICE_FORM_FACTOR_POD, 0);
ACL_SA_EQ(ACL_DEVICE_FORM_FACTOR_A_K, 1);
ACL_SA_EQ(ACL_DEVICE_FORM_FACTOR_A_X, 2);
ACL_SA_EQ(ACL_DEVICE_FORM_FACTOR_PCIE_CARD, 3);
ACL_SA_EQ(sizeof(aclrtUtilizationInfo), 24);
ACL_SA_EQ(offsetof(aclrtUtilizationInfo, cubeUtilization), 0);
ACL_SA_EQ(offsetof(aclrtUtilizationInfo, vectorUtilization), 4);
ACL_SA_EQ(offsetof(aclrtUtilizationInfo, aicpuUtilization), 8);
ACL_SA_EQ(offsetof(aclrtUtilizationInfo, memoryUtilization), 12);
ACL_SA_EQ(offsetof(aclrtUtilizationInfo, utilizationExtend), 16);
ACL_SA_EQ(sizeof(aclrtUuid), 16);
ACL_SA_EQ(ACL_RT_DEV_RES_CUBE_CORE, 0);
ACL_SA_EQ(ACL_RT_DEV_RES_VECTOR_CORE, 1);

/* Streams, events, callbacks, notifies (aclrt-api-runtime.md sections 2-4, 12) */
ACL_SA_EQ(ACL_STREAM_FAST_LAUNCH, 0x1U);
ACL_SA_EQ(ACL_STREAM_FAST_SYNC, 0x2U);
ACL_SA_EQ(ACL_STREAM_PERSISTENT, 0x4U);
ACL_SA_EQ(ACL_STREAM_HUGE, 0x8U);
ACL_SA_EQ(ACL_STREAM_CPU_SCHEDULE, 0x10U);
ACL_SA_EQ(ACL_STREAM_DEVICE_USE_ONLY, 0x20U);
ACL_SA_EQ(ACL_CONTINUE_ON_FAILURE, 0x0U);
ACL_SA_EQ(ACL_STOP_ON_FAILURE, 0x1U);
ACL_SA_EQ(ACL_STREAM_STATUS_COMPLETE, 0);
ACL_SA_EQ(ACL_STREAM_STATUS_NOT_READY, 1);
ACL_SA_EQ(ACL_STREAM_STATUS_RESERVED, 0xFFFF);
ACL_SA_EQ(ACL_RT_STREAM_WORK_ADDR_PTR, 0);
ACL_SA_EQ(ACL_RT_STREAM_WORK_SIZE, 1);
ACL_SA_EQ(ACL_RT_STREAM_FLAG, 2);
ACL_SA_EQ(ACL_RT_STREAM_PRIORITY, 3);
ACL_SA_EQ(sizeof(aclrtStreamConfigHandle), 32);
ACL_SA_EQ(offsetof(aclrtStreamConfigHandle, workptr), 0);
ACL_SA_EQ(offsetof(aclrtStreamConfigHandle, workSize), 8);
ACL_SA_EQ(offsetof(aclrtStreamConfigHandle, flag), 16);
ACL_SA_EQ(offsetof(aclrtStreamConfigHandle, priority), 24);
ACL_SA_EQ(ACL_EVENT_SYNC, 0x1U);
ACL_SA_EQ(ACL_EVENT_CAPTURE_STREAM_PROGRESS, 0x2U);
ACL_SA_EQ(ACL_EVENT_TIME_LINE, 0x8U);
ACL_SA_EQ(ACL_EVENT_DEVICE_USE_ONLY, 0x10U);
ACL_SA_EQ(ACL_EVENT_EXTERNAL, 0x20U);
ACL_SA_EQ(ACL_EVENT_IPC, 0x40U);
ACL_SA_EQ(ACL_EVENT_RECORD_DEFAULT, 0x0U);
ACL_SA_EQ(ACL_EVENT_RECORD_EXTERNAL, 0x1U);
ACL_SA_EQ(ACL_EVENT_WAIT_DEFAULT, 0x0U);
ACL_SA_EQ(ACL_EVENT_WAIT_EXTERNAL, 0x1U);
ACL_SA_EQ(ACL_EVENT_STATUS_COMPLETE, 0);
ACL_SA_EQ(ACL_EVENT_STATUS_NOT_READY, 1);
ACL_SA_EQ(ACL_EVENT_STATUS_RESERVED, 2);
ACL_SA_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, 0);
ACL_SA_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, 1);
ACL_SA_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, 0);
ACL_SA_EQ(ACL_EVENT_WAIT_STATUS_NOT_READY, 1);
ACL_SA_EQ(ACL_EVENT_WAIT_STATUS_RESERVED, 0xFFFF);
ACL_SA_EQ(ACL_IPC_EVENT_HANDLE_SIZE, 64U);
ACL_SA_EQ(sizeof(aclrtIpcEventHandle), 64);
ACL_SA_EQ(sizeof(aclrtEventStatus), 4);
ACL_SA_EQ(ACL_CALLBACK_NO_BLOCK, 0);
ACL_SA_EQ(ACL_CALLBACK_BLOCK, 1);
ACL_SA_EQ(sizeof(aclrtCallbackBlockType), 4);
ACL_SA_EQ(ACL_NOTIFY_DEFAULT, 0x0U);
ACL_SA_EQ(ACL_NOTIFY_DEVICE_USE_ONLY, 0x1U);
ACL_SA_EQ(ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT, 0x0UL);
ACL_SA_EQ(ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION, 0x02UL);
ACL_SA_EQ(ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT, 0x0UL);
ACL_SA_EQ(ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS, 0x02UL);
ACL_SA_EQ(ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 0);
ACL_SA_EQ(ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1);
ACL_SA_EQ(ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE, 2);
ACL_SA_EQ(ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE, 4);
ACL_SA_EQ(ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE, 0);
ACL_SA_EQ(ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 1);
ACL_SA_EQ(ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE, 2);
ACL_SA_EQ(ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, 3);
ACL_SA_EQ(ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE, 4);
ACL_SA_EQ(sizeof(aclrtServerPid), 24);
ACL_SA_EQ(offsetof(aclrtServerPid, sdid), 0);
ACL_SA_EQ(offsetof(aclrtServerPid, pid), 8);
ACL_SA_EQ(offsetof(aclrtServerPid, num), 16);
ACL_SA_EQ(sizeof(aclrtCntNotifyRecordInfo), 8);
ACL_SA_EQ(offsetof(aclrtCntNotifyRecordInfo, value), 4);
ACL_SA_EQ(sizeof(aclrtCntNotifyWaitInfo), 16);
ACL_SA_EQ(offsetof(aclrtCntNotifyWaitInfo, value), 4);
ACL_SA_EQ(offsetof(aclrtCntNotifyWaitInfo, timeout), 8);
ACL_SA_EQ(offsetof(aclrtCntNotifyWaitInfo, isClear), 12);
ACL_SA_EQ(offsetof(aclrtCntNotifyWaitInfo, rsv), 13);
