// SPDX-License-Identifier: GPL-2.0
/*
 * tests/ascendc/npucc_stub.c - a stand-in for the three libacl entry points
 * npu-cc's host launcher calls (aclrtBinaryLoadFromData,
 * aclrtBinaryGetFunction, aclrtLaunchKernelWithHostArgs), which libacl does
 * not have yet, built as libnpucc_stub.so for npucc_launch_test. It records
 * each call and runs the launch the way the executor will: the device
 * binary from memory (memfd + dlopen), the entry __npu_entry_NAME per
 * block, a block context with a unified buffer and a dump area, a trap
 * (SIGILL) caught and returned as ACL_ERROR_RT_AICORE_TRAP_EXCEPTION.
 * Nothing here is libacl's design; it only lets the host pass be tested
 * end to end before pieces 7-9 land.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "npu_block.h"
#include "npu_fatbin.h"
#include "npucc_stub.h"

#define STUB_INVALID_PARAM	100000	/* ACL_ERROR_INVALID_PARAM */
#define STUB_TRAP		507016	/* ACL_ERROR_RT_AICORE_TRAP_EXCEPTION */
#define STUB_BAD_STREAM		((void *)0xbad)
#define STUB_STREAM_ERROR	507899	/* what a launch on STUB_BAD_STREAM returns */

struct stub_bin {
	void *dl;
	const void *data;
	size_t len;
};

struct stub_func {
	void (*entry)(const void *args);
	char name[NPU_KREC_NAME_MAX];
};

struct npucc_stub_state npucc_stub;

/* the section named `want` of an ELF image, or NULL */
const void *npucc_stub_section(const void *data, size_t len, const char *want, size_t *size)
{
	const Elf64_Ehdr *eh = data;
	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len || eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)((const char *)data + eh->e_shoff);
	const char *names = (const char *)data + sh[eh->e_shstrndx].sh_offset;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (!strcmp(names + sh[i].sh_name, want) && sh[i].sh_offset + sh[i].sh_size <= len) {
			*size = sh[i].sh_size;
			return (const char *)data + sh[i].sh_offset;
		}
	}
	return NULL;
}

int aclrtBinaryLoadFromData(const void *data, size_t length, const void *options, void **binHandle)
{
	size_t nsz;
	char path[64];

	(void)options;
	npucc_stub.loads++;
	npucc_stub.last_data = data;
	npucc_stub.last_len = length;
	if (!data || !binHandle || !npucc_stub_section(data, length, ".note.npu", &nsz))
		return STUB_INVALID_PARAM;
	int fd = memfd_create("npu-device-binary", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, length) != (ssize_t)length) {
		if (fd >= 0)
			close(fd);
		return STUB_INVALID_PARAM;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* the memfd stays open: dlopen knows a library by its path, and a
	 * reused /proc/self/fd/N would return the binary loaded before */
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		close(fd);
		fprintf(stderr, "stub: dlopen: %s\n", dlerror());
		return STUB_INVALID_PARAM;
	}
	struct stub_bin *b = calloc(1, sizeof(*b));
	b->dl = dl;
	b->data = data;
	b->len = length;
	*binHandle = b;
	return 0;
}

int aclrtBinaryGetFunction(void *binHandle, const char *kernelName, void **funcHandle)
{
	struct stub_bin *b = binHandle;
	char sym[NPU_KREC_ENTRY_MAX];

	npucc_stub.lookups++;
	if (!b || !kernelName || !funcHandle || strlen(kernelName) >= NPU_KREC_NAME_MAX)
		return STUB_INVALID_PARAM;
	snprintf(sym, sizeof(sym), "__npu_entry_%s", kernelName);
	void *entry = dlsym(b->dl, sym);
	if (!entry)
		return STUB_INVALID_PARAM;
	struct stub_func *f = calloc(1, sizeof(*f));
	f->entry = (void (*)(const void *))entry;
	snprintf(f->name, sizeof(f->name), "%s", kernelName);
	*funcHandle = f;
	return 0;
}

static sigjmp_buf trap_env;

static void on_sigill(int sig)
{
	(void)sig;
	siglongjmp(trap_env, 1);
}

int aclrtLaunchKernelWithHostArgs(void *funcHandle, uint32_t numBlocks, void *stream, void *cfg, void *hostArgs,
				  size_t argsSize, void *placeHolderArray, size_t placeHolderNum)
{
	struct stub_func *f = funcHandle;
	struct sigaction sa = {0}, old;
	static char dump[4096];
	volatile int ret = 0;

	npucc_stub.launches++;
	snprintf(npucc_stub.name, sizeof(npucc_stub.name), "%s", f ? f->name : "");
	npucc_stub.blocks = numBlocks;
	npucc_stub.stream = stream;
	npucc_stub.args_size = argsSize;
	npucc_stub.extra = cfg != NULL || placeHolderArray != NULL || placeHolderNum != 0;
	memset(npucc_stub.args, 0, sizeof(npucc_stub.args));
	if (hostArgs && argsSize <= sizeof(npucc_stub.args))
		memcpy(npucc_stub.args, hostArgs, argsSize);
	npucc_stub.printed[0] = 0;
	npucc_stub.trap_msg[0] = 0;
	if (!f || !numBlocks || argsSize > sizeof(npucc_stub.args))
		return STUB_INVALID_PARAM;
	if (stream == STUB_BAD_STREAM)
		return STUB_STREAM_ERROR;

	void *ub = aligned_alloc(64, NPU_UB_SIZE);
	sa.sa_handler = on_sigill;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGILL, &sa, &old);
	for (uint32_t b = 0; b < numBlocks && !ret; b++) {
		struct npu_block_ctx ctx;
		npu_block_ctx_init(&ctx, b, numBlocks, ub, dump, sizeof(dump));
		npu_block_current = &ctx;
		if (sigsetjmp(trap_env, 1) == 0) {
			f->entry(npucc_stub.args);
		} else {
			snprintf(npucc_stub.trap_msg, sizeof(npucc_stub.trap_msg), "%s", ctx.trap_msg);
			ret = STUB_TRAP;
		}
		npu_block_current = NULL;
		for (const struct npu_rec *r = npu_rec_first(&ctx); r; r = npu_rec_next(&ctx, r)) {
			if (r->kind != NPU_REC_PRINTF)
				continue;
			size_t used = strlen(npucc_stub.printed);
			snprintf(npucc_stub.printed + used, sizeof(npucc_stub.printed) - used, "[%u] %.*s",
				 r->blk_idx, (int)r->len, npu_rec_payload(r));
		}
	}
	sigaction(SIGILL, &old, NULL);
	free(ub);
	return ret;
}
