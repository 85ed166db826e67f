// SPDX-License-Identifier: MIT
/*
 * libacl: device binaries and kernel functions (aclrtCreateBinary ..
 * aclrtBinaryUnLoad, aclrtBinaryGet*, aclrtGetFunction*, aclrtFunction*,
 * aclrtGetFuncBySymbol, aclrtLaunchKernelWithHostArgs). The binaries are
 * npu-cc's, built with the test (lib/lib.mk) from
 * tests/ascendc/lib_binary_kern.cpp: the linked device binary is embedded
 * here and written to a file for aclrtBinaryLoadFromFile; the host object
 * with its own embedded image is linked in, and its <<<>>> launch loads
 * it with aclrtBinaryLoadFromData. Every call's bad input with the
 * vendor's codes; names, parameters and entry addresses against the
 * kernels' signatures and the dynamic linker's view of the same file; the
 * device image read back; damaged binaries the test makes; unload,
 * context destroy, reset, aclFinalize and fork end the handles; no device memory leaks
 * over load/unload; loads, lookups and unloads from several threads.
 * Skips without /dev/npu0.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>

#include <ascendc/npu_fatbin.h>

#include "lib_child.h"
#include "lib_util.h"

/* the linked device binary, embedded (lib/lib.mk passes its path) */
asm(".pushsection .rodata.lib_binary,\"a\",@progbits\n\t.balign 64\n"
    "kern_start:\n\t.incbin \"" LIB_BINARY_NPUBIN "\"\nkern_end:\n\t.popsection");
extern const unsigned char kern_start[], kern_end[];

/* the host object's (tests/ascendc/lib_binary_kern.cpp) */
const void *lib_binary_image(size_t *len);
uint32_t lib_binary_launch_add(void *x, void *y, void *z, uint32_t n, void *stream);

#define KERN_LEN	((size_t)(kern_end - kern_start))
#define BAD_PARAM	ACL_ERROR_INVALID_PARAM
#define RT_PARAM	ACL_ERROR_RT_PARAM_INVALID
#define HANDLE		ACL_ERROR_RT_INVALID_HANDLE

/* A kernel of lib_binary_kern.cpp: its parameters' offsets and sizes. */
struct kern {
	const char *name;
	size_t n;
	size_t off[4], size[4];
};

static const struct kern kerns[] = {
	{ "add_op", 4, { 0, 8, 16, 24 }, { 8, 8, 8, 4 } },
	{ "noarg_op", 0, { 0 }, { 0 } },
	{ "mixed_op", 4, { 0, 8, 16, 24 }, { 1, 8, 8, 2 } },
};

/* The embedded device binary in a file of its own; the caller unlinks it. */
static void write_file(char *path, const void *p, size_t len)
{
	int fd;

	strcpy(path, "/tmp/lib_binary_XXXXXX");
	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	ASSERT_EQ((ssize_t)len, write(fd, p, len));
	ASSERT_EQ(0, close(fd));
}

static void on_fault(aclrtExceptionInfo *info, void *data)
{
	(void)info, (void)data;
}

/*
 * @call fails with @exp and a message (aclGetRecentErrMsg, which a read
 * empties) that has @sub in it.
 */
#define EXPECT_ACL_MSG(exp, call, sub) do {					\
	aclError __got = (call);						\
	const char *__m = aclGetRecentErrMsg();					\
	bool __has = __m && strstr(__m, (sub));					\
	if (!__has)								\
		TH_LOG("%s: message \"%s\" lacks \"%s\"", #call,		\
		       __m ? __m : "(null)", (sub));				\
	EXPECT_EQ((aclError)(exp), __got);					\
	EXPECT_TRUE(__has);							\
} while (0)

TEST(create_and_load_bad_input)
{
	aclrtBinary d, gone;
	aclrtBinHandle h = NULL;
	int local;

	NEED_DEVICE();
	EXPECT_NULL(aclrtCreateBinary(NULL, 16));
	gone = aclrtCreateBinary(kern_start, KERN_LEN);
	ASSERT_NONNULL(gone);
	ASSERT_ACL_OK(aclrtDestroyBinary(gone));
	EXPECT_ACL(BAD_PARAM, aclrtDestroyBinary(gone));
	EXPECT_ACL(BAD_PARAM, aclrtDestroyBinary(NULL));
	EXPECT_ACL(BAD_PARAM, aclrtDestroyBinary(&local));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryLoad(gone, &h));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryLoad(NULL, &h));
	d = aclrtCreateBinary(kern_start, 0);
	ASSERT_NONNULL(d);
	EXPECT_ACL(BAD_PARAM, aclrtBinaryLoad(d, NULL));
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoad(d, &h));
	ASSERT_ACL_OK(aclrtDestroyBinary(d));
	/* the description keeps the caller's bytes: a load reads them */
	d = aclrtCreateBinary(kern_start, KERN_LEN);
	ASSERT_ACL_OK(aclrtBinaryLoad(d, &h));
	ASSERT_ACL_OK(aclrtDestroyBinary(d));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));

	EXPECT_ACL(BAD_PARAM, aclrtBinaryLoadFromData(NULL, KERN_LEN, NULL, &h));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, NULL));
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromData(kern_start, 0, NULL, &h));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryLoadFromFile(NULL, NULL, &h));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryLoadFromFile("/nonexistent", NULL, NULL));
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromFile("/nonexistent/x.o", NULL, &h));
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromFile("/tmp", NULL, &h));
	/* an x86-64 shared object, but no device binary */
	EXPECT_ACL_MSG(RT_PARAM, aclrtBinaryLoadFromFile("/proc/self/exe", NULL, &h), "no .note.npu");
	EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryUnLoad(&local));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryUnLoad(NULL));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* A load needs a current context (its device gets the image); a bad binary is refused first. */
TEST(no_current_context)
{
	aclrtFuncHandle f;
	aclrtBinHandle h;
	aclrtBinary d;

	if (!have_npu(0))
		SKIP(return, "no /dev/npu0 (npu.ko not loaded)");
	ASSERT_ACL_OK(aclInit(NULL));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h));
	d = aclrtCreateBinary(kern_start, KERN_LEN);
	ASSERT_NONNULL(d);
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtBinaryLoad(d, &h));
	ASSERT_ACL_OK(aclrtDestroyBinary(d));
	EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetFuncBySymbol((void *)lib_binary_launch_add, &f));
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromData(kern_start, 40, NULL, &h));
	EXPECT_ACL_OK(aclFinalize());
}

TEST(load_options)
{
	aclrtBinaryLoadOption op[2];
	aclrtBinaryLoadOptions o = { .options = NULL, .numOpt = 1 };
	char path[64];
	aclrtBinHandle h;

	NEED_DEVICE();
	write_file(path, kern_start, KERN_LEN);
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromData(kern_start, KERN_LEN, &o, &h));
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromFile(path, &o, &h));
	o.options = op;
	o.numOpt = 0;
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, &o, &h));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	o.numOpt = 1;
	memset(op, 0, sizeof(op));
	op[0].type = ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD;
	op[0].value.isLazyLoad = 2;
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromFile(path, &o, &h));
	op[0].value.isLazyLoad = 1;
	ASSERT_ACL_OK(aclrtBinaryLoadFromFile(path, &o, &h));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	op[0].type = ACL_RT_BINARY_LOAD_OPT_MAGIC;
	op[0].value.magic = 0x41415246U;	/* RT_DEV_BINARY_MAGIC_ELF_AIVEC */
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromFile(path, &o, &h));
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, &o, &h));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	op[0].value.magic = ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE;
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, &o, &h));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	op[0].value.magic = 0x41415243U;	/* the AI CPU's: not one of the three */
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromData(kern_start, KERN_LEN, &o, &h));
	op[0].type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE;
	op[0].value.cpuKernelMode = 2;
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromFile(path, &o, &h));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtBinaryLoadFromData(kern_start, KERN_LEN, &o, &h));
	op[0].value.cpuKernelMode = 1;
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromData(kern_start, KERN_LEN, &o, &h));
	EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtBinaryLoadFromFile(path, &o, &h));
	op[0].type = (aclrtBinaryLoadOptionType)4;
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromData(kern_start, KERN_LEN, &o, &h));
	op[0].type = (aclrtBinaryLoadOptionType)0;
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromData(kern_start, KERN_LEN, &o, &h));
	/* every option is checked, the last one too */
	op[0].type = ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD;
	op[0].value.isLazyLoad = 0;
	op[1].type = ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD;
	op[1].value.isLazyLoad = 7;
	o.numOpt = 2;
	EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromData(kern_start, KERN_LEN, &o, &h));
	unlink(path);
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* Check the functions of @h against kerns[] and against the dynamic linker's view of @path. */
static void check_functions(aclrtBinHandle h, const char *path)
{
	void *dl, *bin_addr, *aic, *aiv, *host;
	size_t bin_size, n, off, size, aics, aivs;
	aclrtFuncHandle f, f2;
	aclrtBinHandle back;
	unsigned int i, k;
	char name[64], sym[96];
	int64_t attr;

	ASSERT_ACL_OK(aclrtBinaryGetDevAddress(h, &bin_addr, &bin_size));
	ASSERT_EQ(KERN_LEN, bin_size);
	/* the device image is the file, byte for byte */
	host = malloc(bin_size);
	ASSERT_NONNULL(host);
	ASSERT_ACL_OK(aclrtMemcpy(host, bin_size, bin_addr, bin_size, ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(host, kern_start, bin_size));
	free(host);

	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ASSERT_NONNULL(dl);
	for (i = 0; i < sizeof(kerns) / sizeof(kerns[0]); i++) {
		const struct kern *kn = &kerns[i];
		const ElfW(Sym) *es = NULL;
		Dl_info info;
		void *entry;

		ASSERT_ACL_OK(aclrtBinaryGetFunction(h, kn->name, &f));
		/* the same handle for every lookup */
		ASSERT_ACL_OK(aclrtBinaryGetFunction(h, kn->name, &f2));
		EXPECT_EQ(f, f2);
		ASSERT_ACL_OK(aclrtFunctionGetBinary(f, &back));
		EXPECT_EQ(h, back);
		ASSERT_ACL_OK(aclrtGetFunctionName(f, sizeof(name), name));
		EXPECT_STREQ(kn->name, name);
		ASSERT_ACL_OK(aclrtGetFunctionName(f, (uint32_t)strlen(kn->name) + 1, name));
		EXPECT_ACL(RT_PARAM, aclrtGetFunctionName(f, (uint32_t)strlen(kn->name), name));
		ASSERT_ACL_OK(aclrtFunctionGetParamCount(f, &n));
		EXPECT_EQ(kn->n, n);
		for (k = 0; k < n; k++) {
			ASSERT_ACL_OK(aclrtFunctionGetParamInfo(f, k, &off, &size));
			EXPECT_EQ(kn->off[k], off);
			EXPECT_EQ(kn->size[k], size);
			size = 0;
			ASSERT_ACL_OK(aclrtFunctionGetParamInfo(f, k, NULL, &size));
			EXPECT_EQ(kn->size[k], size);
		}
		EXPECT_ACL(RT_PARAM, aclrtFunctionGetParamInfo(f, n, &off, &size));
		ASSERT_ACL_OK(aclrtGetFunctionAttribute(f, ACL_FUNC_ATTR_KERNEL_TYPE, &attr));
		EXPECT_EQ(ACL_KERNEL_TYPE_VECTOR, attr);
		ASSERT_ACL_OK(aclrtGetFunctionAttribute(f, ACL_FUNC_ATTR_KERNEL_SCHED_MODE, &attr));
		EXPECT_EQ(0, attr);
		ASSERT_ACL_OK(aclrtGetFunctionAttribute(f, ACL_FUNC_ATTR_KERNEL_RATIO, &attr));
		EXPECT_EQ(0, attr);
		ASSERT_ACL_OK(aclrtFunctionGetAvailDynUbufPerBlock(f, 0, &size));
		EXPECT_EQ(0U, size);

		/* the entry: device image + st_value, st_size - as ld.so sees the file */
		snprintf(sym, sizeof(sym), "__npu_entry_%s", kn->name);
		entry = dlsym(dl, sym);
		ASSERT_NONNULL(entry);
		ASSERT_NE(0, dladdr1(entry, &info, (void **)&es, RTLD_DL_SYMENT));
		ASSERT_NONNULL(es);
		ASSERT_ACL_OK(aclrtGetFunctionAddr(f, &aic, &aiv));
		EXPECT_NULL(aic);
		EXPECT_EQ((uintptr_t)bin_addr + ((uintptr_t)entry - (uintptr_t)info.dli_fbase), (uintptr_t)aiv);
		ASSERT_ACL_OK(aclrtGetFunctionSize(f, &aics, &aivs));
		EXPECT_EQ(0U, aics);
		EXPECT_EQ(es->st_size, aivs);
		EXPECT_NE(0U, aivs);
	}
	dlclose(dl);
	/* by tiling key: npu-cc gives every kernel 0, the first one answers */
	ASSERT_ACL_OK(aclrtBinaryGetFunctionByEntry(h, 0, &f));
	ASSERT_ACL_OK(aclrtGetFunctionName(f, sizeof(name), name));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, name, &f2));
	EXPECT_EQ(f, f2);
	EXPECT_ACL(RT_PARAM, aclrtBinaryGetFunctionByEntry(h, 1, &f));
	EXPECT_ACL(RT_PARAM, aclrtBinaryGetFunction(h, "add", &f));
	EXPECT_ACL(RT_PARAM, aclrtBinaryGetFunction(h, "lib_binary_launch_add", &f));
}

TEST(load_from_file_and_data)
{
	aclrtBinHandle hf, hd;
	char path[64];

	NEED_DEVICE();
	write_file(path, kern_start, KERN_LEN);
	ASSERT_ACL_OK(aclrtBinaryLoadFromFile(path, NULL, &hf));
	check_functions(hf, path);
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &hd));
	EXPECT_NE(hf, hd);
	check_functions(hd, path);
	ASSERT_ACL_OK(aclrtBinaryUnLoad(hf));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(hd));
	unlink(path);
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

TEST(function_bad_input)
{
	aclrtFuncHandle f, gone_f;
	aclrtBinHandle h, gone;
	void *a, *b;
	size_t s, s2;
	int64_t attr;
	char name[64];
	int local;

	NEED_DEVICE();
	/* h first: the gone binary's memory is not reused for it */
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "add_op", &f));
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &gone));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(gone, "add_op", &gone_f));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(gone));

	/* binaries */
	EXPECT_ACL(BAD_PARAM, aclrtBinaryGetDevAddress(NULL, &a, &s));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryGetDevAddress(h, &a, NULL));
	EXPECT_ACL(RT_PARAM, aclrtBinaryGetDevAddress(h, NULL, &s));
	EXPECT_ACL(HANDLE, aclrtBinaryGetDevAddress(gone, &a, &s));
	EXPECT_ACL(HANDLE, aclrtBinaryGetDevAddress(&local, &a, &s));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryGetGlobal(NULL, "x", &a, &s));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryGetGlobal(h, NULL, &a, &s));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryGetGlobal(h, "x", NULL, NULL));
	EXPECT_ACL(HANDLE, aclrtBinaryGetGlobal(gone, "x", &a, &s));
	EXPECT_ACL(ACL_ERROR_RT_SYMBOL_NOT_FOUND, aclrtBinaryGetGlobal(h, "x", &a, NULL));
	EXPECT_ACL(ACL_ERROR_RT_SYMBOL_NOT_FOUND, aclrtBinaryGetGlobal(h, "add_op", NULL, &s));
	EXPECT_ACL(BAD_PARAM, aclrtBinarySetExceptionCallback(NULL, on_fault, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtBinarySetExceptionCallback(h, NULL, NULL));
	EXPECT_ACL(HANDLE, aclrtBinarySetExceptionCallback(gone, on_fault, NULL));
	EXPECT_ACL_OK(aclrtBinarySetExceptionCallback(h, on_fault, &local));
	EXPECT_ACL_OK(aclrtBinarySetExceptionCallback(h, on_fault, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryGetFunction(NULL, "add_op", &f));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryGetFunction(h, NULL, &f));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryGetFunction(h, "add_op", NULL));
	EXPECT_ACL(HANDLE, aclrtBinaryGetFunction(gone, "add_op", &f));
	EXPECT_ACL(HANDLE, aclrtBinaryGetFunction(f, "add_op", &f));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryGetFunctionByEntry(NULL, 0, &f));
	EXPECT_ACL(BAD_PARAM, aclrtBinaryGetFunctionByEntry(h, 0, NULL));
	EXPECT_ACL(HANDLE, aclrtBinaryGetFunctionByEntry(gone, 0, &f));
	EXPECT_ACL(BAD_PARAM, aclrtGetFuncBySymbol(NULL, &f));
	EXPECT_ACL(BAD_PARAM, aclrtGetFuncBySymbol((void *)lib_binary_launch_add, NULL));
	EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICE_FUNCTION, aclrtGetFuncBySymbol((void *)lib_binary_launch_add, &b));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "add_op", &f));

	/* functions: a binary handle is no function, and a function no binary */
	EXPECT_ACL(BAD_PARAM, aclrtGetFunctionName(f, sizeof(name), NULL));
	EXPECT_ACL(RT_PARAM, aclrtGetFunctionName(NULL, sizeof(name), name));
	EXPECT_ACL(HANDLE, aclrtGetFunctionName(gone_f, sizeof(name), name));
	EXPECT_ACL(HANDLE, aclrtGetFunctionName(h, sizeof(name), name));
	EXPECT_ACL(RT_PARAM, aclrtGetFunctionName(f, 0, name));
	EXPECT_ACL(BAD_PARAM, aclrtGetFunctionAddr(NULL, &a, &b));
	EXPECT_ACL(BAD_PARAM, aclrtGetFunctionAddr(f, NULL, &b));
	EXPECT_ACL(BAD_PARAM, aclrtGetFunctionAddr(f, &a, NULL));
	EXPECT_ACL(HANDLE, aclrtGetFunctionAddr(gone_f, &a, &b));
	EXPECT_ACL(RT_PARAM, aclrtGetFunctionSize(NULL, &s, &s2));
	EXPECT_ACL(RT_PARAM, aclrtGetFunctionSize(f, NULL, &s2));
	EXPECT_ACL(RT_PARAM, aclrtGetFunctionSize(f, &s, NULL));
	EXPECT_ACL(HANDLE, aclrtGetFunctionSize(gone_f, &s, &s2));
	EXPECT_ACL(HANDLE, aclrtGetFunctionSize(&local, &s, &s2));
	EXPECT_ACL(BAD_PARAM, aclrtGetFunctionAttribute(NULL, ACL_FUNC_ATTR_KERNEL_TYPE, &attr));
	EXPECT_ACL(BAD_PARAM, aclrtGetFunctionAttribute(f, ACL_FUNC_ATTR_KERNEL_TYPE, NULL));
	EXPECT_ACL(HANDLE, aclrtGetFunctionAttribute(gone_f, ACL_FUNC_ATTR_KERNEL_TYPE, &attr));
	EXPECT_ACL(RT_PARAM, aclrtGetFunctionAttribute(f, (aclrtFuncAttribute)0, &attr));
	EXPECT_ACL(RT_PARAM, aclrtGetFunctionAttribute(f, (aclrtFuncAttribute)4, &attr));
	EXPECT_ACL(RT_PARAM, aclrtFunctionGetBinary(NULL, &a));
	EXPECT_ACL(RT_PARAM, aclrtFunctionGetBinary(f, NULL));
	EXPECT_ACL(HANDLE, aclrtFunctionGetBinary(gone_f, &a));
	EXPECT_ACL(HANDLE, aclrtFunctionGetBinary(h, &a));
	EXPECT_ACL(BAD_PARAM, aclrtFunctionGetParamCount(NULL, &s));
	EXPECT_ACL(BAD_PARAM, aclrtFunctionGetParamCount(f, NULL));
	EXPECT_ACL(HANDLE, aclrtFunctionGetParamCount(gone_f, &s));
	EXPECT_ACL(BAD_PARAM, aclrtFunctionGetParamInfo(NULL, 0, &s, &s2));
	EXPECT_ACL(BAD_PARAM, aclrtFunctionGetParamInfo(f, 0, NULL, NULL));
	EXPECT_ACL(HANDLE, aclrtFunctionGetParamInfo(gone_f, 0, &s, &s2));
	EXPECT_ACL(RT_PARAM, aclrtFunctionGetParamInfo(f, 4, &s, &s2));
	EXPECT_ACL(BAD_PARAM, aclrtFunctionGetAvailDynUbufPerBlock(NULL, 0, &s));
	EXPECT_ACL(BAD_PARAM, aclrtFunctionGetAvailDynUbufPerBlock(f, 0, NULL));
	EXPECT_ACL(BAD_PARAM, aclrtFunctionGetAvailDynUbufPerBlock(f, 1, &s));
	EXPECT_ACL(HANDLE, aclrtFunctionGetAvailDynUbufPerBlock(gone_f, 0, &s));
	EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* The section header named @name of the image @p (the test's own reading). */
static Elf64_Shdr *section(unsigned char *p, const char *name)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)p;
	Elf64_Shdr *sh = (Elf64_Shdr *)(p + eh->e_shoff);
	const char *names = (const char *)p + sh[eh->e_shstrndx].sh_offset;
	int i;

	for (i = 0; i < eh->e_shnum; i++)
		if (!strcmp(names + sh[i].sh_name, name))
			return &sh[i];
	return NULL;
}

enum damage {
	D_SHORT_HEADER, D_TRUNCATED, D_MAGIC, D_TEXT, D_CLASS, D_MACHINE, D_TYPE, D_NO_NOTE, D_NOTE_MAGIC,
	D_NOTE_SOC, D_REC_MAGIC, D_REC_VERSION, D_REC_SIZE, D_REC_NAME, D_REC_ENTRY, D_REC_PARAM, D_OVERLAP,
	D_OUTSIDE, D_SHTAB_OUTSIDE, D_NO_DYNSYM, D_KERNELS_SIZE, D_DAMAGES
};

/* what the message must say for each */
static const char *const damage_msgs[] = {
	"the ELF header is truncated", "is outside the file", "no ELF magic", "no ELF magic",
	"not a 64-bit little-endian ELF", "not x86-64", "not a shared object", "no .note.npu",
	".note.npu: magic", "soc_version is not NUL-terminated", "record 0: magic", "record 0: magic",
	"record 1: magic", "record 2: its name or entry", "entry __npu_entry_none is not in .dynsym",
	"does not fit its argument block", "sections overlap", "is outside the file",
	"the section table (offset", ".dynsym is no symbol table", "not a whole number",
};

/* A copy of the embedded binary with @d done to it; its length in *@len. */
static unsigned char *damaged(enum damage d, size_t *len)
{
	unsigned char *p = malloc(KERN_LEN);
	struct npu_kernel_rec *r;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)p;
	Elf64_Shdr *note, *kr, *sym;
	char *name;

	memcpy(p, kern_start, KERN_LEN);
	*len = KERN_LEN;
	note = section(p, ".note.npu");
	kr = section(p, ".npu_kernels");
	sym = section(p, ".dynsym");
	r = (struct npu_kernel_rec *)(p + kr->sh_offset);
	switch (d) {
	case D_SHORT_HEADER:	*len = 40; break;
	case D_TRUNCATED:	*len = KERN_LEN / 2; break;
	case D_MAGIC:		p[1] = 'X'; break;
	case D_TEXT:		memcpy(p, "hello, world\n", 14); *len = 14; break;
	case D_CLASS:		p[EI_CLASS] = ELFCLASS32; break;
	case D_MACHINE:		eh->e_machine = EM_AARCH64; break;
	case D_TYPE:		eh->e_type = ET_EXEC; break;
	case D_NO_NOTE:
		name = (char *)p + ((Elf64_Shdr *)(p + eh->e_shoff))[eh->e_shstrndx].sh_offset + note->sh_name;
		name[6] = 'x';		/* .note.xpu */
		break;
	case D_NOTE_MAGIC:	p[note->sh_offset + 16] ^= 1; break;
	case D_NOTE_SOC:	memset(p + note->sh_offset + 24, 'A', NPU_NOTE_SOC_MAX); break;
	case D_REC_MAGIC:	r->magic ^= 1; break;
	case D_REC_VERSION:	r->version = 2; break;
	case D_REC_SIZE:	r[1].rec_size = 100; break;
	case D_REC_NAME:	memset(r[2].name, 'A', sizeof(r[2].name)); break;
	case D_REC_ENTRY:	strcpy(r[1].entry, "__npu_entry_none"); break;
	case D_REC_PARAM:	r[0].params[0].offset = r[0].args_size; r[0].param_count = 1; break;
	case D_OVERLAP:		kr->sh_offset = sym->sh_offset + 8; break;
	case D_OUTSIDE:		sym->sh_offset = KERN_LEN - 8; break;
	case D_SHTAB_OUTSIDE:	eh->e_shoff = KERN_LEN - 64; break;
	case D_NO_DYNSYM:	sym->sh_type = SHT_PROGBITS; break;
	case D_KERNELS_SIZE:	kr->sh_size -= 8; break;
	case D_DAMAGES:		break;
	}
	return p;
}

TEST(damaged_binaries)
{
	aclrtBinHandle h = NULL;
	char path[64];
	unsigned char *p;
	size_t len;
	int d;

	NEED_DEVICE();
	for (d = 0; d < D_DAMAGES; d++) {
		p = damaged(d, &len);
		EXPECT_ACL_MSG(RT_PARAM, aclrtBinaryLoadFromData(p, len, NULL, &h), damage_msgs[d]);
		write_file(path, p, len);
		EXPECT_ACL(RT_PARAM, aclrtBinaryLoadFromFile(path, NULL, &h));
		unlink(path);
		free(p);
	}
	EXPECT_NULL(h);
	/* the undamaged copy loads: the damage was what failed */
	p = damaged(D_DAMAGES, &len);
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(p, len, NULL, &h));
	free(p);
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* Every call on a binary and its function after the binary ended. */
static void expect_gone(aclrtBinHandle h, aclrtFuncHandle f)
{
	char args[32] = { 0 }, name[16];
	size_t s, s2;
	void *a, *b;

	EXPECT_ACL(HANDLE, aclrtBinaryGetFunction(h, "add_op", &a));
	EXPECT_ACL(HANDLE, aclrtBinaryGetDevAddress(h, &a, &s));
	EXPECT_ACL(HANDLE, aclrtBinaryUnLoad(h));
	EXPECT_ACL(HANDLE, aclrtGetFunctionName(f, sizeof(name), name));
	EXPECT_ACL(HANDLE, aclrtGetFunctionAddr(f, &a, &b));
	EXPECT_ACL(HANDLE, aclrtFunctionGetParamInfo(f, 0, &s, &s2));
	EXPECT_ACL(HANDLE, aclrtLaunchKernelWithHostArgs(f, 1, NULL, NULL, args, sizeof(args), NULL, 0));
}

TEST(unload_and_context_end)
{
	size_t free0, free1, total, s;
	aclrtContext c1, c2;
	aclrtFuncHandle f;
	aclrtBinHandle h;
	void *a;
	int i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "add_op", &f));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	expect_gone(h, f);

	/* a context's binaries end with it; another context's stay */
	ASSERT_ACL_OK(aclrtCreateContext(&c1, 0));
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "add_op", &f));
	ASSERT_ACL_OK(aclrtCreateContext(&c2, 0));
	ASSERT_ACL_OK(aclrtDestroyContext(c1));
	expect_gone(h, f);
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h));
	ASSERT_ACL_OK(aclrtSetCurrentContext(c2));
	ASSERT_ACL_OK(aclrtBinaryGetDevAddress(h, &a, &s));
	ASSERT_ACL_OK(aclrtDestroyContext(c2));
	expect_gone(h, f);

	/* the primary context's go with aclrtResetDevice; no device memory stays behind */
	ASSERT_ACL_OK(aclrtSetDevice(0));
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
	for (i = 0; i < 50; i++) {
		ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h));
		ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "mixed_op", &f));
		ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	}
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
	EXPECT_EQ(free0, free1);
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h));
	ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
	EXPECT_GT(free0, free1);
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "mixed_op", &f));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtResetDevice(0));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	expect_gone(h, f);
	/* and with aclFinalize */
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "mixed_op", &f));
	ASSERT_ACL_OK(aclFinalize());
	ASSERT_ACL_OK(aclInit(NULL));
	ASSERT_ACL_OK(aclrtSetDevice(0));
	expect_gone(h, f);
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* The forked child's view of the parent's binary h and function f. */
struct fork_args {
	aclrtBinHandle h;
	aclrtFuncHandle f;
};

static void fork_child_fn(int rd, int wr, void *arg)
{
	struct fork_args *a = arg;
	aclrtFuncHandle cf;
	aclrtBinHandle ch;
	size_t n;

	(void)rd, (void)wr;
	CK_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryGetFunction(a->h, "add_op", &cf));
	CK_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtFunctionGetParamCount(a->f, &n));
	CK_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinaryUnLoad(a->h));
	CK_ACL(ACL_SUCCESS, aclrtSetDevice(0));
	CK_ACL(ACL_SUCCESS, aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &ch));
	CK_ACL(ACL_SUCCESS, aclrtBinaryGetFunction(ch, "mixed_op", &cf));
	CK_ACL(ACL_SUCCESS, aclrtFunctionGetParamCount(cf, &n));
	CK(n == 4);
	CK_ACL(ACL_SUCCESS, aclrtBinaryUnLoad(ch));
	CK_ACL(ACL_SUCCESS, aclFinalize());
}

/* After fork the child holds none of the parent's binaries; it loads its own; the parent's stay. */
TEST(fork_child)
{
	struct fork_args a;
	struct child c;
	size_t n;
	void *p;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &a.h));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(a.h, "add_op", &a.f));
	ASSERT_EQ(0, spawn(&c, fork_child_fn, &a));
	EXPECT_EQ(0, reap(&c));
	ASSERT_ACL_OK(aclrtFunctionGetParamCount(a.f, &n));
	EXPECT_EQ(4U, n);
	ASSERT_ACL_OK(aclrtBinaryGetDevAddress(a.h, &p, &n));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(a.h));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* add_op's argument block: three pointers and n, each in an 8-byte slot */
struct add_args {
	void *x, *y, *z;
	uint64_t n;
};

/* add_op's operands of @a->n floats: x = i, y = @ys * i + @yo (also in @hx, @hy), z = 0. */
static int add_setup(struct add_args *a, float *hx, float *hy, float ys, float yo)
{
	size_t len = a->n * sizeof(float);
	uint64_t i;

	for (i = 0; i < a->n; i++) {
		hx[i] = (float)i;
		hy[i] = ys * (float)i + yo;
	}
	if (aclrtMalloc(&a->x, len, ACL_MEM_MALLOC_HUGE_FIRST) || aclrtMalloc(&a->y, len, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtMalloc(&a->z, len, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtMemcpy(a->x, len, hx, len, ACL_MEMCPY_HOST_TO_DEVICE) ||
	    aclrtMemcpy(a->y, len, hy, len, ACL_MEMCPY_HOST_TO_DEVICE) || aclrtMemset(a->z, len, 0, len))
		return -1;
	return 0;
}

static int add_teardown(struct add_args *a)
{
	return aclrtFree(a->x) || aclrtFree(a->y) || aclrtFree(a->z) ? -1 : 0;
}

/*
 * Kernels run on the device's AI cores over device memory: through
 * aclrtLaunchKernelWithHostArgs, and through a host object's <<<>>>
 * (which loads its embedded image from data first), in stream order with
 * the copies around them; bad input gets the vendor's codes.
 */
TEST(launch)
{
	enum { N = 4096 };
	static float hx[N], hy[N], hz[N];
	struct add_args a = { .n = N };
	char args[32] = { 0 };
	aclrtStream stream;
	aclrtFuncHandle f;
	aclrtBinHandle h;
	const void *img;
	size_t len;
	int local, i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_EQ(0, add_setup(&a, hx, hy, 0.25f, 3.0f));
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "add_op", &f));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernelWithHostArgs(NULL, 1, NULL, NULL, args, sizeof(args), NULL, 0));
	EXPECT_ACL(BAD_PARAM, aclrtLaunchKernelWithHostArgs(f, 1, NULL, NULL, NULL, sizeof(args), NULL, 0));
	EXPECT_ACL(HANDLE, aclrtLaunchKernelWithHostArgs(&local, 1, NULL, NULL, args, sizeof(args), NULL, 0));
	EXPECT_ACL(HANDLE, aclrtLaunchKernelWithHostArgs(h, 1, NULL, NULL, args, sizeof(args), NULL, 0));
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelWithHostArgs(f, 0, stream, NULL, &a, sizeof(a), NULL, 0));
	EXPECT_ACL(RT_PARAM, aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &a, 64 * 1024 + 1, NULL, 0));

	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &a, sizeof(a), NULL, 0));
	ASSERT_ACL_OK(aclrtMemcpyAsync(hz, N * 4, a.z, N * 4, ACL_MEMCPY_DEVICE_TO_HOST, stream));
	ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
	for (i = 0; i < N && hz[i] == hx[i] + hy[i]; i++)
		;
	EXPECT_EQ(N, i);

	/* the host object's <<<>>>: its own image, loaded from data, on the default stream */
	img = lib_binary_image(&len);
	EXPECT_GT(len, 0U);
	EXPECT_EQ(0, memcmp(img, "\177ELF", 4));
	ASSERT_ACL_OK(aclrtMemset(a.z, N * 4, 0, N * 4));
	EXPECT_EQ(ACL_SUCCESS, lib_binary_launch_add(a.y, a.y, a.z, N, NULL));
	ASSERT_ACL_OK(aclrtSynchronizeStream(NULL));
	ASSERT_ACL_OK(aclrtMemcpy(hz, N * 4, a.z, N * 4, ACL_MEMCPY_DEVICE_TO_HOST));
	for (i = 0; i < N && hz[i] == hy[i] + hy[i]; i++)
		;
	EXPECT_EQ(N, i);
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	/* an unloaded binary's function is no handle */
	EXPECT_ACL(HANDLE, aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &a, sizeof(a), NULL, 0));
	ASSERT_ACL_OK(aclrtDestroyStream(stream));
	ASSERT_EQ(0, add_teardown(&a));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/*
 * A kernel that touches memory the device does not have is an AI-core
 * exception of its stream (507015), the application's memory untouched,
 * and the stream goes on.
 */
/* The pid of this process's AI-core executor (a child named npu-aicore), or -1. */
static pid_t executor_pid(void)
{
	struct dirent *de;
	pid_t found = -1;
	DIR *d = opendir("/proc");

	while (d && (de = readdir(d))) {
		char path[64], comm[32] = "";
		int ppid = -1, pid = atoi(de->d_name);
		FILE *f;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		/* pid (comm) state ppid */
		if (fscanf(f, "%*d (%31[^)]) %*c %d", comm, &ppid) == 2 && ppid == getpid() &&
		    !strcmp(comm, "npu-aicore"))
			found = pid;
		fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * z zeroed, then add_op @f launched on @stream (or @graph, a capture of
 * such a launch, run there), z read back: how many of the @n sums are
 * right; -1 if a call failed.
 */
static int add_run_checked(aclrtFuncHandle f, aclmdlRI graph, aclrtStream stream, struct add_args *a, float *hz,
			   const float *hx, const float *hy, int n)
{
	int i;

	if (aclrtMemset(a->z, (size_t)n * 4, 0, (size_t)n * 4) ||
	    (graph ? aclmdlRIExecuteAsync(graph, stream) :
		     aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, a, sizeof(*a), NULL, 0)) ||
	    aclrtMemcpyAsync(hz, (size_t)n * 4, a->z, (size_t)n * 4, ACL_MEMCPY_DEVICE_TO_HOST, stream) ||
	    aclrtSynchronizeStream(stream))
		return -1;
	for (i = 0; i < n && hz[i] == hx[i] + hy[i]; i++)
		;
	return i;
}

static int add_checked(aclrtFuncHandle f, aclrtStream stream, struct add_args *a, float *hz, const float *hx,
		       const float *hy, int n)
{
	return add_run_checked(f, NULL, stream, a, hz, hx, hy, n);
}

/*
 * An executor that dies (killed here; a kernel that corrupts it) is
 * started again at the next launch, which runs: each binary is loaded
 * into the new one, and unloads after that find their binary there.
 * A binary keeps its id into the new executor: a graph captured before
 * the death names its kernels by it, and its first run after the death
 * loads the binary again itself; later runs find it - not another
 * binary's that took the id meanwhile (h2, loaded, launched and unloaded
 * in between).
 */
TEST(executor_dies_and_starts_again)
{
	enum { N = 1024 };
	static float hx[N], hy[N], hz[N];
	struct add_args a = { .n = N };
	aclrtFuncHandle f, f2;
	aclrtBinHandle h, h2;
	aclmdlRI graph;
	aclrtStream stream;
	pid_t first, second;
	int status;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_EQ(0, add_setup(&a, hx, hy, 2.0f, 1.0f));
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "add_op", &f));
	EXPECT_EQ(N, add_checked(f, stream, &a, hz, hx, hy, N));
	ASSERT_ACL_OK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &a, sizeof(a), NULL, 0));
	ASSERT_ACL_OK(aclmdlRICaptureEnd(stream, &graph));
	first = executor_pid();
	ASSERT_LT(0, first);
	ASSERT_EQ(0, kill(first, SIGKILL));
	ASSERT_EQ(first, waitpid(first, &status, 0));
	/* the graph first: its run loads what its launch needs into the new executor */
	EXPECT_EQ(N, add_run_checked(NULL, graph, stream, &a, hz, hx, hy, N));
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h2));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h2, "add_op", &f2));
	EXPECT_EQ(N, add_checked(f2, stream, &a, hz, hx, hy, N));
	second = executor_pid();
	EXPECT_LT(0, second);
	EXPECT_NE(first, second);
	EXPECT_EQ(N, add_checked(f, stream, &a, hz, hx, hy, N));
	EXPECT_ACL_OK(aclrtBinaryUnLoad(h2));
	EXPECT_EQ(N, add_run_checked(NULL, graph, stream, &a, hz, hx, hy, N));
	EXPECT_ACL_OK(aclmdlRIDestroy(graph));
	EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
	ASSERT_ACL_OK(aclrtDestroyStream(stream));
	ASSERT_EQ(0, add_teardown(&a));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

/* half_add_op of 16 copies of @a and of @b: the sums (raw halves) in @z, and the context's status word 0. */
static uint64_t half_add(aclrtFuncHandle f, aclrtStream stream, struct add_args *a, void *status, uint16_t x,
			 uint16_t y, uint16_t *z)
{
	uint16_t hx[16], hy[16];
	uint64_t words[8] = { ~0ull };
	int i;

	for (i = 0; i < 16; i++) {
		hx[i] = x;
		hy[i] = y;
	}
	if (aclrtMemcpy(a->x, sizeof(hx), hx, sizeof(hx), ACL_MEMCPY_HOST_TO_DEVICE) ||
	    aclrtMemcpy(a->y, sizeof(hy), hy, sizeof(hy), ACL_MEMCPY_HOST_TO_DEVICE) ||
	    aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, a, sizeof(*a), NULL, 0) ||
	    aclrtGetOverflowStatus(status, sizeof(words), stream) ||
	    aclrtMemcpyAsync(z, 32, a->z, 32, ACL_MEMCPY_DEVICE_TO_HOST, stream) ||
	    aclrtMemcpyAsync(words, sizeof(words), status, sizeof(words), ACL_MEMCPY_DEVICE_TO_HOST, stream) ||
	    aclrtSynchronizeStream(stream))
		return ~0ull;
	return words[0];
}

/*
 * A kernel's float overflow reaches the context's status, in stream
 * order: aclrtGetOverflowStatus after it reads it set, after
 * aclrtResetOverflowStatus clear; a kernel that does not overflow leaves
 * it clear. The device's saturation mode decides what the overflowed
 * result is (inf, or the largest finite half) - the status is set in
 * both.
 */
TEST(kernel_overflow_sets_the_status)
{
	aclrtFloatOverflowMode mode;
	struct add_args a = { .n = 16 };
	aclrtFuncHandle f;
	aclrtBinHandle h;
	aclrtStream stream;
	uint16_t z[16];
	void *status;
	int i;

	NEED_DEVICE();
	ASSERT_ACL_OK(aclrtGetDeviceSatMode(&mode));
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtMalloc(&a.x, 32, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&a.y, 32, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&a.z, 32, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&status, 64, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "half_add_op", &f));
	ASSERT_ACL_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));
	ASSERT_ACL_OK(aclrtResetOverflowStatus(stream));
	/* 1 + 1 = 2: nothing overflows */
	EXPECT_EQ(0ull, (unsigned long long)half_add(f, stream, &a, status, 0x3c00, 0x3c00, z));
	for (i = 0; i < 16; i++)
		EXPECT_EQ(0x4000, z[i]);
	/* 32768 + 32768 = inf */
	EXPECT_NE(0ull, (unsigned long long)half_add(f, stream, &a, status, 0x7800, 0x7800, z) & 1);
	for (i = 0; i < 16; i++)
		EXPECT_EQ(0x7c00, z[i]);
	ASSERT_ACL_OK(aclrtResetOverflowStatus(stream));
	EXPECT_EQ(0ull, (unsigned long long)half_add(f, stream, &a, status, 0x3c00, 0x3c00, z));
	/* saturating: 65504, and the status still says so */
	ASSERT_ACL_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
	EXPECT_NE(0ull, (unsigned long long)half_add(f, stream, &a, status, 0x7800, 0x7800, z) & 1);
	for (i = 0; i < 16; i++)
		EXPECT_EQ(0x7bff, z[i]);
	ASSERT_ACL_OK(aclrtSetDeviceSatMode(mode));
	ASSERT_ACL_OK(aclrtResetOverflowStatus(stream));
	EXPECT_ACL_OK(aclrtBinaryUnLoad(h));
	ASSERT_ACL_OK(aclrtDestroyStream(stream));
	ASSERT_EQ(0, add_teardown(&a));
	ASSERT_ACL_OK(aclrtFree(status));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

TEST(launch_fault)
{
	static float host_z[16];
	struct add_args a = { .n = 16 };
	aclrtStream stream;
	aclrtFuncHandle f;
	aclrtBinHandle h;
	float hz[16];

	NEED_DEVICE();
	npu_expect_dma_faults(true);
	ASSERT_ACL_OK(aclrtCreateStream(&stream));
	ASSERT_ACL_OK(aclrtMalloc(&a.x, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMalloc(&a.y, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMemset(a.x, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtMemset(a.y, 4096, 0, 4096));
	ASSERT_ACL_OK(aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h));
	ASSERT_ACL_OK(aclrtBinaryGetFunction(h, "add_op", &f));
	/* the application's own memory: not the device's */
	a.z = host_z;
	host_z[3] = 42.0f;
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &a, sizeof(a), NULL, 0));
	EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(stream));
	EXPECT_EQ(42.0f, host_z[3]);
	/* the stream goes on */
	ASSERT_ACL_OK(aclrtMalloc(&a.z, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ASSERT_ACL_OK(aclrtMemset(a.x, 4096, 0x3f, 4096));
	ASSERT_ACL_OK(aclrtLaunchKernelWithHostArgs(f, 1, stream, NULL, &a, sizeof(a), NULL, 0));
	ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
	ASSERT_ACL_OK(aclrtMemcpy(hz, sizeof(hz), a.z, sizeof(hz), ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT_EQ(0, memcmp(hz, (unsigned char[64]){ [0 ... 63] = 0x3f }, sizeof(hz)));
	ASSERT_ACL_OK(aclrtBinaryUnLoad(h));
	ASSERT_ACL_OK(aclrtDestroyStream(stream));
	ASSERT_EQ(0, add_teardown(&a));
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

#define THREADS	4
#define ROUNDS	40

static void *load_loop(void *arg)
{
	aclrtFuncHandle f;
	aclrtBinHandle h;
	size_t n;
	long bad = 0;
	int i;

	(void)arg;
	if (aclrtSetDevice(0))
		return (void *)1L;
	for (i = 0; i < ROUNDS; i++) {
		if (aclrtBinaryLoadFromData(kern_start, KERN_LEN, NULL, &h) ||
		    aclrtBinaryGetFunction(h, "add_op", &f) || aclrtFunctionGetParamCount(f, &n) || n != 4 ||
		    aclrtBinaryUnLoad(h))
			bad++;
	}
	aclrtResetDevice(0);
	return (void *)bad;
}

TEST(threads)
{
	pthread_t t[THREADS];
	void *bad;
	int i;

	NEED_DEVICE();
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, load_loop, NULL));
	for (i = 0; i < THREADS; i++) {
		ASSERT_EQ(0, pthread_join(t[i], &bad));
		EXPECT_EQ(0L, (long)bad);
	}
	EXPECT_ACL_OK(aclrtResetDevice(0));
	EXPECT_ACL_OK(aclFinalize());
}

TEST_HARNESS_MAIN
