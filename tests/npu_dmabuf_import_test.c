// SPDX-License-Identifier: GPL-2.0
/*
 * tests/npu_dmabuf_import_test.c - other drivers' memory imported into a
 * context (DMABUF_IMPORT, kernel/npu_dmabuf_import.c): the ioctl's
 * checks, and buffers of two real exporters - a vgem dumb buffer
 * allocated through libdrm, and a udmabuf of a memfd - that the NPU's DMA
 * engine writes and reads through a device VA mapping of the imported
 * handle while the exporter's own CPU mapping is compared against a model
 * of the whole buffer, at other offsets and lengths than were written.
 * Then every way the exporter can go away while the device maps the
 * buffer (its fd, its object, its process), the importer's close and
 * exit, read-only imports, what an import is not (device memory, a peer's
 * memory), npu's own dma-bufs, and the cap.
 *
 * The vgem cases need the vgem module (tools/vm-run --kmod vgem), the
 * udmabuf ones CONFIG_UDMABUF (built in on 6.12, absent on Debian's 6.1);
 * each skips without. Whether the dma-buf itself is gone is read from the
 * dma-buf core's debugfs list (/sys/kernel/debug/dma_buf/bufinfo).
 */
#include "harness.h"
#include "npu_nl_util.h"

#include <linux/dma-buf.h>
#include <linux/udmabuf.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <xf86drm.h>

#include "npu_test_exporter.h"

#define BUF_LEN		(256 * SZ_4K)	/* 1 MiB: several DMA segments */
#define BUFINFO		"/sys/kernel/debug/dma_buf/bufinfo"

static int dmabuf_import_full(int fd, struct npu_dmabuf_import *a)
{
	return npu_ioctl(fd, NPU_IOCTL_DMABUF_IMPORT, a);
}

/* Import @dfd of @len bytes with @flags: 0 and *@handle, or -errno. */
static int dmabuf_import(int fd, int dfd, uint64_t len, uint32_t flags,
			 uint32_t *handle)
{
	struct npu_dmabuf_import a = {
		.size = sizeof(a), .flags = flags, .fd = dfd, .length = len,
	};
	int ret = dmabuf_import_full(fd, &a);

	if (!ret && handle)
		*handle = a.handle;
	return ret;
}

/* A handle of npu's own exported as a dma-buf: the fd, or -errno. */
static int npu_export(int fd, uint64_t len, uint64_t page, uint32_t *handle)
{
	struct npu_dmabuf_export e = {
		.size = sizeof(e), .flags = NPU_DMABUF_CLOEXEC,
	};
	int ret = npu_alloc(fd, len, page, &e.handle);

	if (!ret)
		ret = npu_ioctl(fd, NPU_IOCTL_DMABUF_EXPORT, &e);
	if (!ret && handle)
		*handle = e.handle;
	return ret ? ret : e.fd;
}

/* The number after "@key:" in /proc/self/fdinfo/@fd, or -1. */
static long long fdinfo_value(int fd, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return npu_file_value_at(AT_FDCWD, path, key, ':');
}

/* The device name the NPU of @fd DMA-maps host memory for (fdinfo). */
static int npu_dma_dev_name(int fd, char *name, size_t len)
{
	char path[64], line[128];
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "npu-pdev: %63s", name) == 1 ||
		    sscanf(line, "npu-platform: %63s", name) == 1)
			ret = 0;
	}
	fclose(f);
	(void)len;
	return ret;
}

/*
 * What the dma-buf core's debugfs list says of the dma-buf of inode @ino:
 * -1 not listed (released), else how many attachments device @dev has to
 * it; -2 without the list (no debugfs).
 */
static int bufinfo_attached(unsigned long ino, const char *dev)
{
	char line[256], name[64];
	FILE *f = fopen(BUFINFO, "re");
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
			   !strncmp(line + 1, dev, strlen(dev)) &&
			   line[1 + strlen(dev)] == '\n') {
			found++;
		} else if (!strncmp(line, "Total", 5)) {
			in = 0;
		}
	}
	fclose(f);
	return found;
}

static unsigned long inode_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 13 + seed + (i >> 12) * 7);
}

/* Index of the first byte where @a and @b differ, or -1. */
static long long diff_at(const unsigned char *a, const unsigned char *b,
			 size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return (long long)i;
	return -1;
}

/* ---- the exporters ---------------------------------------------------- */

enum exporter_kind { EXP_VGEM, EXP_UDMABUF };

/*
 * One buffer of another driver: its dma-buf fd (@dfd), the exporter's own
 * CPU mapping of it (@cpu: vgem's dumb-buffer mapping through the card, or
 * the memfd under a udmabuf), and what keeps it on the exporter's side.
 */
struct exporter {
	enum exporter_kind kind;
	int dfd;
	unsigned char *cpu;
	uint64_t len;
	int card;		/* vgem */
	uint32_t gem;
	int memfd;		/* udmabuf */
	int dev;
};

/* The vgem card (a DRM device with dumb buffers and PRIME), or -1. */
static int vgem_open(void)
{
	char path[32];
	int i, fd;

	for (i = 0; i < 16; i++) {
		drmVersionPtr v;
		bool is_vgem;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		is_vgem = v && !strcmp(v->name, "vgem");
		drmFreeVersion(v);
		if (is_vgem)
			return fd;
		close(fd);
	}
	return -1;
}

/* A vgem dumb buffer of @len bytes, exported read-write: 0, 1 no vgem, -1. */
static int exporter_vgem(struct exporter *e, uint64_t len)
{
	struct drm_mode_create_dumb c = { .width = 1024, .bpp = 32 };
	struct drm_mode_map_dumb m = { 0 };
	void *p;

	e->card = vgem_open();
	if (e->card < 0)
		return 1;
	c.height = len / 4096;
	if (drmIoctl(e->card, DRM_IOCTL_MODE_CREATE_DUMB, &c) || c.size != len)
		return -1;
	e->gem = c.handle;
	m.handle = c.handle;
	if (drmIoctl(e->card, DRM_IOCTL_MODE_MAP_DUMB, &m))
		return -1;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, e->card,
		 (off_t)m.offset);
	if (p == MAP_FAILED)
		return -1;
	e->cpu = p;
	return drmPrimeHandleToFD(e->card, e->gem, DRM_CLOEXEC | DRM_RDWR,
				  &e->dfd) ? -1 : 0;
}

/* A udmabuf of a sealed memfd of @len bytes: 0, 1 no udmabuf, -1. */
static int exporter_udmabuf(struct exporter *e, uint64_t len)
{
	struct udmabuf_create c = { .flags = UDMABUF_FLAGS_CLOEXEC,
				    .size = len };
	void *p;

	e->dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (e->dev < 0)
		return 1;
	e->memfd = memfd_create("npu-import", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (e->memfd < 0 || ftruncate(e->memfd, len) ||
	    fcntl(e->memfd, F_ADD_SEALS, F_SEAL_SHRINK))
		return -1;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, e->memfd, 0);
	if (p == MAP_FAILED)
		return -1;
	e->cpu = p;
	memset(e->cpu, 0, len);
	c.memfd = e->memfd;
	e->dfd = ioctl(e->dev, UDMABUF_CREATE, &c);
	return e->dfd < 0 ? -1 : 0;
}

/* Make a buffer of @kind: 0, or 1 when the exporter is missing, or -1. */
static int exporter_new(struct exporter *e, enum exporter_kind kind,
			uint64_t len)
{
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->dfd = e->card = e->memfd = e->dev = -1;
	e->len = len;
	return kind == EXP_VGEM ? exporter_vgem(e, len) :
				  exporter_udmabuf(e, len);
}

/* Bracket CPU access to the buffer as the dma-buf API asks (while the fd lives). */
static void exporter_sync(struct exporter *e, bool end)
{
	struct dma_buf_sync s = {
		.flags = (end ? DMA_BUF_SYNC_END : DMA_BUF_SYNC_START) |
			 DMA_BUF_SYNC_RW,
	};

	if (e->dfd >= 0)
		ioctl(e->dfd, DMA_BUF_IOCTL_SYNC, &s);
}

/* Everything of the exporter's side goes: mapping, fd, object, device. */
static void exporter_close(struct exporter *e)
{
	if (e->cpu)
		munmap(e->cpu, e->len);
	e->cpu = NULL;
	if (e->dfd >= 0)
		close(e->dfd);
	if (e->gem)
		drmCloseBufferHandle(e->card, e->gem);
	e->gem = 0;
	if (e->card >= 0)
		close(e->card);
	if (e->memfd >= 0)
		close(e->memfd);
	if (e->dev >= 0)
		close(e->dev);
	e->dfd = e->card = e->memfd = e->dev = -1;
}

static const char *const exporter_missing[] = {
	[EXP_VGEM] = "no vgem card (load the vgem module: tools/vm-run --kmod vgem)",
	[EXP_UDMABUF] = "no /dev/udmabuf (CONFIG_UDMABUF)",
};

/* ---- the fixture -------------------------------------------------------- */

/*
 * A device context with a stream and a registered host buffer of the
 * buffer's size (@host), one exporter's buffer of BUF_LEN bytes imported
 * (@handle) and mapped read-write at @va, and the model of the buffer's
 * bytes (@model).
 */
FIXTURE(imp) {
	int fd;
	uint32_t stream, handle;
	uint64_t va;
	unsigned char *host, *model;
	struct exporter e;
	unsigned long ino;
	char dev[64];
};

FIXTURE_VARIANT(imp) {
	enum exporter_kind kind;
};

FIXTURE_VARIANT_ADD(imp, vgem) { .kind = EXP_VGEM };
FIXTURE_VARIANT_ADD(imp, udmabuf) { .kind = EXP_UDMABUF };

FIXTURE_SETUP(imp)
{
	int ret;

	self->e.dfd = self->e.card = self->e.memfd = self->e.dev = -1;
	self->fd = npu_open(0);
	if (self->fd < 0)
		SKIP(return, "no /dev/npu0");
	ret = exporter_new(&self->e, variant->kind, BUF_LEN);
	if (ret > 0)
		SKIP(return, "%s", exporter_missing[variant->kind]);
	ASSERT_EQ(0, ret);
	self->ino = inode_of(self->e.dfd);
	ASSERT_EQ(0, npu_dma_dev_name(self->fd, self->dev, sizeof(self->dev)));
	ASSERT_EQ(0, dmabuf_import(self->fd, self->e.dfd, BUF_LEN, 0,
				   &self->handle));
	self->va = npu_reserve_new(self->fd, BUF_LEN, SZ_2M);
	ASSERT_NE(0, self->va);
	ASSERT_EQ(0, npu_map(self->fd, self->va, BUF_LEN, self->handle));
	ASSERT_EQ(0, npu_set_access(self->fd, self->va, BUF_LEN, 0,
				    NPU_ACCESS_READWRITE));
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->stream));
	self->host = npu_host_mem(BUF_LEN);
	ASSERT_NONNULL(self->host);
	ASSERT_EQ(0, npu_register(self->fd, self->host, BUF_LEN, 0, 0));
	self->model = calloc(1, BUF_LEN);
	ASSERT_NONNULL(self->model);
}

FIXTURE_TEARDOWN(imp)
{
	exporter_close(&self->e);
	if (self->fd >= 0)
		close(self->fd);
	free(self->model);
}

/* The device writes @n bytes of @src (a model-sized buffer) at @off. */
static int dev_write(FIXTURE_DATA(imp) *self, uint64_t off,
		     const unsigned char *src, uint64_t n)
{
	return npu_dev_write(self->fd, self->stream, self->va, self->host, off, src, n);
}

/* The device reads @n bytes at @off into the host buffer at @off. */
static int dev_read(FIXTURE_DATA(imp) *self, uint64_t off, uint64_t n)
{
	return npu_dev_read(self->fd, self->stream, self->va, self->host, off, n);
}

/* Device writes of pieces that start and end off pages; the model follows. */
static int dev_write_pieces(FIXTURE_DATA(imp) *self, unsigned int seed)
{
	static const uint64_t piece[][2] = {
		{ 123, 5000 }, { 3 * SZ_4K + 7, 2 * SZ_4K + 1 },
		{ 100 * SZ_4K - 9, 70 * SZ_4K + 18 }, { BUF_LEN - 999, 999 },
	};
	unsigned char *src = malloc(BUF_LEN);
	unsigned int i;
	int ret = 0;

	if (!src)
		return -ENOMEM;
	fill(src, BUF_LEN, seed);
	for (i = 0; i < sizeof(piece) / sizeof(piece[0]) && !ret; i++) {
		ret = dev_write(self, piece[i][0], src, piece[i][1]);
		memcpy(self->model + piece[i][0], src + piece[i][0],
		       piece[i][1]);
	}
	free(src);
	return ret;
}

/* The exporter's CPU mapping agrees with the model, window by window. */
static long long cpu_check(FIXTURE_DATA(imp) *self)
{
	static const uint64_t win[][2] = {
		{ 0, SZ_4K }, { 1, 3 * SZ_4K }, { 5001, 77 }, { 99 * SZ_4K, 3 * SZ_4K + 5 },
		{ BUF_LEN - 4097, 4097 },
	};
	unsigned int i;
	long long d;

	exporter_sync(&self->e, false);
	for (i = 0; i < sizeof(win) / sizeof(win[0]); i++) {
		d = diff_at(self->model + win[i][0], self->e.cpu + win[i][0],
			    win[i][1]);
		if (d >= 0)
			return (long long)win[i][0] + d;
	}
	d = diff_at(self->model, self->e.cpu, BUF_LEN);
	exporter_sync(&self->e, true);
	return d;
}

/*
 * The device's writes show through the exporter's own CPU mapping, byte
 * for byte, and CPU writes through it reach the device's reads.
 */
TEST_F(imp, device_writes_cpu_reads)
{
	struct npu_addr_query q;

	ASSERT_EQ(0, dev_write_pieces(self, 5));
	EXPECT_EQ(-1, cpu_check(self));
	/* a device memset over page boundaries */
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_memset_cmd(self->va + 7 * SZ_4K - 3, 0xa5,
					    SZ_4K + 6, 0)));
	memset(self->model + 7 * SZ_4K - 3, 0xa5, SZ_4K + 6);
	EXPECT_EQ(-1, cpu_check(self));

	/* CPU writes through the exporter: the device reads them elsewhere */
	exporter_sync(&self->e, false);
	memset(self->e.cpu + 2 * SZ_4K - 5, 0x3c, 3 * SZ_4K + 11);
	memset(self->model + 2 * SZ_4K - 5, 0x3c, 3 * SZ_4K + 11);
	self->e.cpu[BUF_LEN - 1] = 0x77;
	self->model[BUF_LEN - 1] = 0x77;
	exporter_sync(&self->e, true);
	ASSERT_EQ(0, dev_read(self, 0, BUF_LEN));
	EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	ASSERT_EQ(0, dev_read(self, SZ_4K / 2 + 1, 5 * SZ_4K + 9));
	EXPECT_EQ(-1, diff_at(self->model + SZ_4K / 2 + 1,
			      self->host + SZ_4K / 2 + 1, 5 * SZ_4K + 9));

	/* what the context says of it */
	EXPECT_EQ(1, fdinfo_value(self->fd, "npu-shares-imported"));
	ASSERT_EQ(0, npu_query(self->fd, self->va + 5, &q));
	EXPECT_EQ(NPU_ADDR_DEVICE, q.kind);
	EXPECT_EQ(1, q.mapped);
	EXPECT_EQ(SZ_4K, q.page_size);
	EXPECT_EQ(NPU_ACCESS_READWRITE, q.access);
	if (bufinfo_attached(self->ino, self->dev) != -2)
		EXPECT_EQ(1, bufinfo_attached(self->ino, self->dev));
}

/* One handle at two addresses: one buffer, two views. */
TEST_F(imp, mapped_twice)
{
	uint64_t va2 = npu_reserve_new(self->fd, BUF_LEN, SZ_2M);

	ASSERT_NE(0, va2);
	ASSERT_EQ(0, npu_map(self->fd, va2, BUF_LEN, self->handle));
	ASSERT_EQ(0, npu_set_access(self->fd, va2, BUF_LEN, 0, NPU_ACCESS_READ));
	ASSERT_EQ(0, dev_write_pieces(self, 9));
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(ptr64(self->host), va2, BUF_LEN,
					  NPU_CMD_DST_HOST)));
	EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	/* the first mapping goes, the second stays */
	ASSERT_EQ(0, npu_unmap(self->fd, self->va));
	ASSERT_EQ(0, npu_free(self->fd, self->handle));
	memset(self->host, 0, BUF_LEN);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(ptr64(self->host), va2, BUF_LEN,
					  NPU_CMD_DST_HOST)));
	EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	EXPECT_EQ(-1, cpu_check(self));
}

/*
 * The exporter goes first - CPU mapping, fd, object, device - while the
 * NPU maps the buffer: the import holds it, the device goes on reading
 * and writing the very pages, and the buffer goes with the last mapping.
 */
TEST_F(imp, exporter_goes_first)
{
	int att;

	ASSERT_EQ(0, dev_write_pieces(self, 11));
	EXPECT_EQ(-1, cpu_check(self));
	exporter_close(&self->e);
	/* nothing of the exporter's is open; the dma-buf lives on */
	att = bufinfo_attached(self->ino, self->dev);
	if (att != -2)
		EXPECT_EQ(1, att);
	ASSERT_EQ(0, dev_read(self, 0, BUF_LEN));
	EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	ASSERT_EQ(0, dev_write_pieces(self, 12));
	ASSERT_EQ(0, dev_read(self, 1, BUF_LEN - 2));
	EXPECT_EQ(-1, diff_at(self->model + 1, self->host + 1, BUF_LEN - 2));
	/* the handle goes; the mapping keeps the buffer */
	ASSERT_EQ(0, npu_free(self->fd, self->handle));
	EXPECT_EQ(0, fdinfo_value(self->fd, "npu-shares-imported"));
	ASSERT_EQ(0, dev_read(self, 0, BUF_LEN));
	EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	/* the mapping goes: so does the buffer, and the device faults there */
	ASSERT_EQ(0, npu_unmap(self->fd, self->va));
	att = bufinfo_attached(self->ino, self->dev);
	if (att != -2)
		EXPECT_EQ(-1, att);
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, dev_read(self, 0, SZ_4K));
	npu_expect_dma_faults(false);
}

/* The importer's context closes first: it detaches; the buffer is the exporter's again. */
TEST_F(imp, importer_closes_first)
{
	int att;

	ASSERT_EQ(0, dev_write_pieces(self, 21));
	ASSERT_EQ(0, close(self->fd));
	self->fd = -1;
	att = bufinfo_attached(self->ino, self->dev);
	if (att != -2)
		EXPECT_EQ(0, att);
	EXPECT_EQ(-1, cpu_check(self));
	/* the exporter goes on using it */
	exporter_sync(&self->e, false);
	memset(self->e.cpu, 0x11, BUF_LEN);
	exporter_sync(&self->e, true);
}

/*
 * The importing process exits (or is killed) with the buffer mapped and
 * nothing undone: its context detaches as its address space goes.
 */
TEST_F(imp, importer_exits)
{
	pid_t pid;
	int st, att;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint32_t h, s;
		uint64_t va;
		int fd = npu_open(0);

		/* a context of its own: the parent's serves the parent only */
		va = npu_reserve_new(fd, BUF_LEN, SZ_2M);
		if (fd < 0 || !va ||
		    dmabuf_import(fd, self->e.dfd, BUF_LEN, 0, &h) ||
		    npu_map(fd, va, BUF_LEN, h) ||
		    npu_set_access(fd, va, BUF_LEN, 0, NPU_ACCESS_READWRITE) ||
		    npu_stream_create(fd, &s) ||
		    npu_run(fd, s, npu_memset_cmd(va + 3, 0x6b, BUF_LEN - 6, 0)))
			_exit(2);
		/* nothing undone: the exit does it */
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_EQ(0, st);
	memset(self->model + 3, 0x6b, BUF_LEN - 6);
	EXPECT_EQ(-1, cpu_check(self));
	att = bufinfo_attached(self->ino, self->dev);
	if (att != -2)
		EXPECT_EQ(1, att);	/* the parent's import only */

	/* killed while its copies run */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint32_t h, s;
		uint64_t va;
		int fd = npu_open(0), i;
		struct npu_cmd c[64];

		va = npu_reserve_new(fd, BUF_LEN, SZ_2M);
		if (fd < 0 || !va ||
		    dmabuf_import(fd, self->e.dfd, BUF_LEN, 0, &h) ||
		    npu_map(fd, va, BUF_LEN, h) ||
		    npu_set_access(fd, va, BUF_LEN, 0, NPU_ACCESS_READWRITE) ||
		    npu_stream_create(fd, &s))
			_exit(2);
		for (i = 0; i < 64; i++)
			c[i] = npu_memset_cmd(va, (uint8_t)i, BUF_LEN, 0);
		for (;;)
			npu_submit(fd, s, c, 64, NULL);
	}
	usleep(200 * 1000);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	att = bufinfo_attached(self->ino, self->dev);
	if (att != -2)
		EXPECT_EQ(1, att);
	/* the parent's import still works */
	ASSERT_EQ(0, dev_write_pieces(self, 23));
	/* the killed child's bytes are unknown: the device's read is the model */
	ASSERT_EQ(0, dev_read(self, 0, BUF_LEN));
	exporter_sync(&self->e, false);
	EXPECT_EQ(-1, diff_at(self->host, self->e.cpu, BUF_LEN));
	exporter_sync(&self->e, true);
}

/* NPU_DMABUF_IMPORT_READONLY: the device reads, never writes. */
TEST_F(imp, readonly)
{
	uint32_t h;
	uint64_t va = npu_reserve_new(self->fd, BUF_LEN, SZ_2M);

	ASSERT_NE(0, va);
	ASSERT_EQ(0, dmabuf_import(self->fd, self->e.dfd, BUF_LEN,
				   NPU_DMABUF_IMPORT_READONLY, &h));
	ASSERT_EQ(0, npu_map(self->fd, va, BUF_LEN, h));
	EXPECT_EQ(-EACCES, npu_set_access(self->fd, va, BUF_LEN, 0,
					  NPU_ACCESS_READWRITE));
	ASSERT_EQ(0, npu_set_access(self->fd, va, BUF_LEN, 0, NPU_ACCESS_READ));
	ASSERT_EQ(0, dev_write_pieces(self, 31));
	memset(self->host, 0, BUF_LEN);
	ASSERT_EQ(0, npu_run(self->fd, self->stream,
			     npu_copy_cmd(ptr64(self->host), va, BUF_LEN,
					  NPU_CMD_DST_HOST)));
	EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(self->fd, self->stream,
				npu_memset_cmd(va, 0, SZ_4K, 0)));
	npu_expect_dma_faults(false);
	EXPECT_EQ(-1, cpu_check(self));
	ASSERT_EQ(0, npu_unmap(self->fd, va));
	ASSERT_EQ(0, npu_free(self->fd, h));
}

/* Another driver's buffer is not device memory, nor a peer's to reach. */
TEST_F(imp, not_device_memory)
{
	struct npu_dmabuf_export de = { .size = sizeof(de), .handle = self->handle };
	struct npu_share_export se = { .size = sizeof(se), .handle = self->handle };
	struct npu_ipc_export ie = { .size = sizeof(ie), .addr = self->va,
				     .length = SZ_4K };
	struct npu_mem_repair r = { .size = sizeof(r), .addr = self->va,
				    .length = SZ_4K };
	struct npu_mem_uce_query uq = { .size = sizeof(uq) };
	struct npu_map m = { .size = sizeof(m), .flags = NPU_MAP_PEERS,
			     .length = BUF_LEN, .handle = self->handle };
	uint32_t access = 0;

	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_DMABUF_EXPORT, &de));
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_SHARE_EXPORT, &se));
	EXPECT_EQ(-ENOENT, npu_ioctl(self->fd, NPU_IOCTL_IPC_EXPORT, &ie));
	EXPECT_EQ(-ENOENT, npu_ioctl(self->fd, NPU_IOCTL_MEM_REPAIR, &r));
	ASSERT_EQ(0, npu_ioctl(self->fd, NPU_IOCTL_MEM_UCE_QUERY, &uq));
	EXPECT_EQ(0U, uq.count);
	m.addr = npu_reserve_new(self->fd, BUF_LEN, SZ_2M);
	ASSERT_NE(0, m.addr);
	EXPECT_EQ(-EINVAL, npu_ioctl(self->fd, NPU_IOCTL_MAP, &m));
	if (npu_device_count() > 1) {
		EXPECT_EQ(-EINVAL, npu_set_access(self->fd, self->va, BUF_LEN,
						  1, NPU_ACCESS_READ));
		ASSERT_EQ(0, npu_get_access(self->fd, self->va, 1, &access));
		EXPECT_EQ(NPU_ACCESS_NONE, access);
	}
	EXPECT_EQ(1, fdinfo_value(self->fd, "npu-shares-imported"));
}

/* A peer context's copy never reaches the buffer through this context. */
TEST_F(imp, peer_cannot_reach)
{
	struct npu_peer_enable pe = { .size = sizeof(pe), .device = 0 };
	uint32_t s;
	char *host;
	int fd1;

	if (npu_device_count() < 2)
		SKIP(return, "one device");
	fd1 = npu_open(1);
	ASSERT_LE(0, fd1);
	ASSERT_EQ(0, npu_ioctl(fd1, NPU_IOCTL_PEER_ENABLE, &pe));
	ASSERT_EQ(0, npu_stream_create(fd1, &s));
	host = npu_host_mem(SZ_4K);
	ASSERT_NONNULL(host);
	ASSERT_EQ(0, npu_register(fd1, host, SZ_4K, 0, 0));
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, npu_run(fd1, s,
				(struct npu_cmd){ .op = NPU_OP_COPY,
						  .flags = NPU_CMD_SRC_PEER |
							   NPU_CMD_DST_HOST,
						  .dst = ptr64(host),
						  .src = self->va,
						  .length = SZ_4K,
						  .value = (uint64_t)self->fd }));
	npu_expect_dma_faults(false);
	close(fd1);
}

/* ---- an exporter that moves its buffers --------------------------------- */

/*
 * npu_test_exporter.ko's device (kernel/tests/npu_test_exporter.c; vm-run
 * puts the module in /lib/npu/), loaded here if need be: an fd, or -1.
 */
static int texp_open(void)
{
	int fd = open(NPU_TEXP_DEV, O_RDWR | O_CLOEXEC), ko;

	if (fd >= 0)
		return fd;
	ko = open("/lib/npu/npu_test_exporter.ko", O_RDONLY | O_CLOEXEC);
	if (ko < 0)
		return -1;
	if (syscall(SYS_finit_module, ko, "", 0) && errno != EEXIST) {
		close(ko);
		return -1;
	}
	close(ko);
	return open(NPU_TEXP_DEV, O_RDWR | O_CLOEXEC);
}

/*
 * A buffer of the moving exporter (@dfd) imported (@handle) and mapped
 * read-write at @va, with a stream, a registered host buffer and a model.
 */
FIXTURE(move) {
	int fd, texp, dfd;
	uint32_t stream, handle;
	uint64_t va;
	unsigned char *host, *model;
};

FIXTURE_SETUP(move)
{
	struct npu_texp_create c = { .size = BUF_LEN };

	self->dfd = -1;
	self->texp = texp_open();
	self->fd = npu_open(0);
	if (self->fd < 0 || self->texp < 0)
		SKIP(return, "%s", self->fd < 0 ? "no /dev/npu0" :
		     "no npu_test_exporter.ko (tools/vm-run puts it in /lib/npu/)");
	ASSERT_EQ(0, ioctl(self->texp, NPU_TEXP_CREATE, &c));
	self->dfd = c.fd;
	ASSERT_EQ(0, dmabuf_import(self->fd, self->dfd, BUF_LEN, 0,
				   &self->handle));
	self->va = npu_reserve_new(self->fd, BUF_LEN, SZ_2M);
	ASSERT_NE(0, self->va);
	ASSERT_EQ(0, npu_map(self->fd, self->va, BUF_LEN, self->handle));
	ASSERT_EQ(0, npu_set_access(self->fd, self->va, BUF_LEN, 0,
				    NPU_ACCESS_READWRITE));
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->stream));
	self->host = npu_host_mem(BUF_LEN);
	ASSERT_NONNULL(self->host);
	ASSERT_EQ(0, npu_register(self->fd, self->host, BUF_LEN, 0, 0));
	self->model = calloc(1, BUF_LEN);
	ASSERT_NONNULL(self->model);
}

FIXTURE_TEARDOWN(move)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->dfd >= 0)
		close(self->dfd);
	if (self->texp >= 0)
		close(self->texp);
	free(self->model);
}

static int texp_move(int texp, int dfd, uint32_t flags, uint32_t delay_ms)
{
	struct npu_texp_move m = { .fd = dfd, .flags = flags,
				   .delay_ms = delay_ms };

	return ioctl(texp, NPU_TEXP_MOVE, &m) ? -errno : 0;
}

static int texp_stat(int texp, int dfd, struct npu_texp_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->fd = dfd;
	return ioctl(texp, NPU_TEXP_STAT, st) ? -errno : 0;
}

/* What the exporter's CPU reads of the buffer now: -1 if it is the model. */
static long long texp_check(int texp, int dfd, const unsigned char *model)
{
	unsigned char *buf = malloc(BUF_LEN);
	struct npu_texp_rw rw = { .fd = dfd, .length = BUF_LEN,
				  .ptr = ptr64(buf) };
	long long d = -2;

	if (buf && !ioctl(texp, NPU_TEXP_RW, &rw))
		d = diff_at(model, buf, BUF_LEN);
	free(buf);
	return d;
}

static int move_write(FIXTURE_DATA(move) *self, uint64_t off,
		      const unsigned char *src, uint64_t n)
{
	memcpy(self->host + off, src + off, n);
	memcpy(self->model + off, src + off, n);
	return npu_run(self->fd, self->stream,
		       npu_copy_cmd(self->va + off, ptr64(self->host + off), n,
				    NPU_CMD_SRC_HOST));
}

static int move_read(FIXTURE_DATA(move) *self, uint64_t va)
{
	memset(self->host, 0xee, BUF_LEN);
	return npu_run(self->fd, self->stream,
		       npu_copy_cmd(ptr64(self->host), va, BUF_LEN,
				    NPU_CMD_DST_HOST));
}

/*
 * The exporter moves the buffer: the import gives its mapping back at
 * once (no mapping, no pin left), the next access maps it again where it
 * is, the bytes went with it, and the old pages are never written again.
 */
TEST_F(move, moves_and_never_touches_the_old_pages)
{
	unsigned char *src = malloc(BUF_LEN);
	struct npu_texp_stat st;
	int i;

	ASSERT_NONNULL(src);
	fill(src, BUF_LEN, 41);
	ASSERT_EQ(0, move_write(self, 0, src, BUF_LEN));
	EXPECT_EQ(-1, texp_check(self->texp, self->dfd, self->model));
	ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
	EXPECT_EQ(1U, st.maps);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, texp_move(self->texp, self->dfd, 0, 0));
		ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
		EXPECT_EQ((unsigned int)i + 1, st.moves);
		EXPECT_EQ(0U, st.maps);
		EXPECT_EQ(0U, st.pins);
		/* the access after the move: where the buffer is now */
		ASSERT_EQ(0, move_read(self, self->va));
		EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
		fill(src, BUF_LEN, 50 + i);
		ASSERT_EQ(0, move_write(self, 4095 + i, src, 3 * SZ_4K + 2));
		EXPECT_EQ(-1, texp_check(self->texp, self->dfd, self->model));
		ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
		EXPECT_EQ(1U, st.maps);
		EXPECT_EQ(0ULL, st.stale);
	}
	free(src);
}

/*
 * The exporter copies the bytes later, behind a fence: the import's next
 * access waits for it - reads see the bytes, writes are not overwritten
 * by the copy.
 */
TEST_F(move, next_access_waits_for_the_move)
{
	unsigned char *src = malloc(BUF_LEN);
	struct npu_texp_stat st;

	ASSERT_NONNULL(src);
	fill(src, BUF_LEN, 7);
	ASSERT_EQ(0, move_write(self, 0, src, BUF_LEN));
	ASSERT_EQ(0, texp_move(self->texp, self->dfd, 0, 300));
	ASSERT_EQ(0, move_read(self, self->va));
	EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	ASSERT_EQ(0, texp_move(self->texp, self->dfd, 0, 300));
	fill(src, BUF_LEN, 8);
	ASSERT_EQ(0, move_write(self, 5 * SZ_4K + 1, src, 2 * SZ_4K));
	EXPECT_EQ(-1, texp_check(self->texp, self->dfd, self->model));
	ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
	EXPECT_EQ(2U, st.moves);
	EXPECT_EQ(0ULL, st.stale);
	free(src);
}

/*
 * A move right behind one whose copy is still pending: the exporter
 * copies in order (the second waits for the first's fence), so the bytes
 * arrive and no old page is written after it was left.
 */
TEST_F(move, move_behind_a_pending_copy)
{
	unsigned char *src = malloc(BUF_LEN);
	struct npu_texp_stat st;

	ASSERT_NONNULL(src);
	fill(src, BUF_LEN, 23);
	ASSERT_EQ(0, move_write(self, 0, src, BUF_LEN));
	ASSERT_EQ(0, texp_move(self->texp, self->dfd, 0, 300));
	ASSERT_EQ(0, texp_move(self->texp, self->dfd, 0, 0));
	ASSERT_EQ(0, move_read(self, self->va));
	EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	EXPECT_EQ(-1, texp_check(self->texp, self->dfd, self->model));
	ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
	EXPECT_EQ(2U, st.moves);
	EXPECT_EQ(0ULL, st.stale);
	free(src);
}

struct mover {
	int texp, dfd, moves, err;
};

static void *mover_main(void *arg)
{
	struct mover *m = arg;
	int i;

	for (i = 0; i < m->moves && !m->err; i++) {
		m->err = texp_move(m->texp, m->dfd, 0, i % 3 ? 0 : 5);
		/* spread over several of the engine's round trips */
		usleep(10000 + (i % 5) * 10000);
	}
	return NULL;
}

/*
 * Moves one after the other while the engine copies into and out of the
 * buffer: every round trip is right, and the old pages stay untouched.
 */
TEST_F_TIMEOUT(move, moves_under_copies, 120)
{
	struct mover m = { .texp = self->texp, .dfd = self->dfd, .moves = 40 };
	unsigned char *src = malloc(BUF_LEN);
	struct npu_texp_stat st;
	unsigned int round = 0;
	pthread_t tid;

	ASSERT_NONNULL(src);
	ASSERT_EQ(0, pthread_create(&tid, NULL, mover_main, &m));
	do {
		uint64_t off = (round * 7919) % (BUF_LEN / 2);

		ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
		fill(src, BUF_LEN, round++);
		ASSERT_EQ(0, move_write(self, off, src, BUF_LEN / 2));
		ASSERT_EQ(0, move_read(self, self->va));
		EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	} while (st.moves < (unsigned int)m.moves && !m.err && round < 10000);
	pthread_join(tid, NULL);
	EXPECT_EQ(0, m.err);
	TH_LOG("%u round trips across %d moves", round, m.moves);
	EXPECT_EQ(-1, texp_check(self->texp, self->dfd, self->model));
	ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
	EXPECT_EQ((unsigned int)m.moves, st.moves);
	EXPECT_EQ(0ULL, st.stale);
	free(src);
}

/*
 * The buffer does not map again after a move: that access is a DMA fault
 * of its command, the next one maps it and goes on.
 */
TEST_F(move, remap_failure_faults_the_access)
{
	unsigned char *src = malloc(BUF_LEN);
	struct npu_texp_stat st;

	ASSERT_NONNULL(src);
	fill(src, BUF_LEN, 17);
	ASSERT_EQ(0, move_write(self, 0, src, BUF_LEN));
	ASSERT_EQ(0, texp_move(self->texp, self->dfd, NPU_TEXP_MOVE_FAIL_MAP, 0));
	npu_expect_dma_faults(true);
	EXPECT_EQ(-EIO, move_read(self, self->va));
	npu_expect_dma_faults(false);
	ASSERT_EQ(0, move_read(self, self->va));
	EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
	EXPECT_EQ(0ULL, st.stale);
	free(src);
}

/*
 * Mappings made after a move, two mappings at once, read-only ones: one
 * fault makes every mapping of the handle good again.
 */
TEST_F(move, every_mapping_follows)
{
	unsigned char *src = malloc(BUF_LEN);
	uint64_t va2 = npu_reserve_new(self->fd, BUF_LEN, SZ_2M);
	uint64_t va3 = npu_reserve_new(self->fd, BUF_LEN, SZ_2M);
	struct npu_texp_stat st;
	uint32_t ro;

	ASSERT_NONNULL(src);
	ASSERT_NE(0, va2);
	ASSERT_NE(0, va3);
	fill(src, BUF_LEN, 27);
	ASSERT_EQ(0, move_write(self, 0, src, BUF_LEN));
	ASSERT_EQ(0, texp_move(self->texp, self->dfd, 0, 0));
	/* mapped after the move: MAP maps the buffer again */
	ASSERT_EQ(0, npu_map(self->fd, va2, BUF_LEN, self->handle));
	ASSERT_EQ(0, npu_set_access(self->fd, va2, BUF_LEN, 0, NPU_ACCESS_READ));
	ASSERT_EQ(0, move_read(self, va2));
	EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	ASSERT_EQ(0, move_read(self, self->va));
	EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	/* a read-only import of the same buffer, mapped, moved, read */
	ASSERT_EQ(0, dmabuf_import(self->fd, self->dfd, BUF_LEN,
				   NPU_DMABUF_IMPORT_READONLY, &ro));
	ASSERT_EQ(0, npu_map(self->fd, va3, BUF_LEN, ro));
	ASSERT_EQ(0, npu_set_access(self->fd, va3, BUF_LEN, 0, NPU_ACCESS_READ));
	ASSERT_EQ(0, texp_move(self->texp, self->dfd, 0, 50));
	ASSERT_EQ(0, move_read(self, va3));
	EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	ASSERT_EQ(0, move_read(self, va2));
	EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	fill(src, BUF_LEN, 28);
	ASSERT_EQ(0, move_write(self, 100, src, SZ_4K));
	ASSERT_EQ(0, move_read(self, va3));
	EXPECT_EQ(-1, diff_at(self->model, self->host, BUF_LEN));
	ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
	EXPECT_EQ(0ULL, st.stale);
	/* unmapped and freed: nothing of the imports maps the buffer */
	ASSERT_EQ(0, npu_unmap(self->fd, va3));
	ASSERT_EQ(0, npu_free(self->fd, ro));
	ASSERT_EQ(0, npu_unmap(self->fd, va2));
	ASSERT_EQ(0, npu_unmap(self->fd, self->va));
	ASSERT_EQ(0, npu_free(self->fd, self->handle));
	ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
	EXPECT_EQ(0U, st.maps);
	EXPECT_EQ(0U, st.pins);
	free(src);
}

/* The context closes with the buffer moved and not yet mapped again, or mapped. */
TEST_F(move, close_after_a_move)
{
	struct npu_texp_stat st;

	ASSERT_EQ(0, texp_move(self->texp, self->dfd, 0, 0));
	ASSERT_EQ(0, close(self->fd));
	self->fd = -1;
	ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
	EXPECT_EQ(0U, st.maps);
	EXPECT_EQ(0U, st.pins);
	EXPECT_EQ(0ULL, st.stale);

	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, dmabuf_import(self->fd, self->dfd, BUF_LEN, 0, NULL));
	ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
	EXPECT_EQ(1U, st.maps);
	ASSERT_EQ(0, close(self->fd));
	self->fd = -1;
	ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
	EXPECT_EQ(0U, st.maps);
	EXPECT_EQ(0U, st.pins);
}

/*
 * A device reset loses the context with its copies into the buffer queued:
 * its attachment goes (no mapping, no pin left), its calls answer -ESTALE,
 * and the buffer is the exporter's as before.
 */
TEST_F(move, device_reset_detaches)
{
	struct npu_texp_stat st;
	struct npu_cmd c[16];
	int i;

	if (getuid())
		SKIP(return, "a device reset needs root (CAP_NET_ADMIN)");
	for (i = 0; i < 16; i++)
		c[i] = npu_copy_cmd(self->va, ptr64(self->host), BUF_LEN,
				    NPU_CMD_SRC_HOST);
	ASSERT_EQ(0, npu_submit(self->fd, self->stream, c, 16, NULL));
	ASSERT_EQ(0, npu_reset_device(0));
	/* the reset's second half shuts the context down */
	for (i = 0; i < 1000; i++) {
		ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
		if (!st.maps && !st.pins)
			break;
		usleep(10000);
	}
	EXPECT_EQ(0U, st.maps);
	EXPECT_EQ(0U, st.pins);
	EXPECT_EQ(-ESTALE, npu_map(self->fd, self->va, BUF_LEN, self->handle));
	EXPECT_EQ(-ESTALE, dmabuf_import(self->fd, self->dfd, BUF_LEN, 0, NULL));
	ASSERT_EQ(0, close(self->fd));
	self->fd = -1;
	/* the exporter moves it on, nothing reaches the old pages */
	ASSERT_EQ(0, texp_move(self->texp, self->dfd, 0, 0));
	ASSERT_EQ(0, texp_stat(self->texp, self->dfd, &st));
	EXPECT_EQ(0ULL, st.stale);
}

/* ---- without an exporter of another driver ------------------------------- */

/* An O_PATH fd, a closed one, files that are no dma-buf, wrong sizes. */
TEST(bad_input)
{
	struct npu_dmabuf_import a;
	unsigned char big[sizeof(a) + 8];
	long long imports;
	int fd, dfd, other, ro, st;
	uint32_t h;
	pid_t pid;

	fd = npu_open(0);
	if (fd < 0)
		SKIP(return, "no /dev/npu0");
	dfd = npu_export(fd, 4 * SZ_4K, SZ_4K, &h);
	ASSERT_LE(0, dfd);
	imports = fdinfo_value(fd, "npu-shares-imported");
	ASSERT_EQ(0, imports);

	/* flags, each unknown bit */
	EXPECT_EQ(-EINVAL, dmabuf_import(fd, dfd, 4 * SZ_4K, 1U << 1, NULL));
	EXPECT_EQ(-EINVAL, dmabuf_import(fd, dfd, 4 * SZ_4K, 1U << 31, NULL));
	EXPECT_EQ(-EINVAL, dmabuf_import(fd, dfd, 4 * SZ_4K, ~0U, NULL));
	/* lengths: none, not whole pages, not the buffer's */
	EXPECT_EQ(-EINVAL, dmabuf_import(fd, dfd, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, dmabuf_import(fd, dfd, 4 * SZ_4K - 1, 0, NULL));
	EXPECT_EQ(-EINVAL, dmabuf_import(fd, dfd, 123, 0, NULL));
	EXPECT_EQ(-EINVAL, dmabuf_import(fd, dfd, 3 * SZ_4K, 0, NULL));
	EXPECT_EQ(-EINVAL, dmabuf_import(fd, dfd, 5 * SZ_4K, 0, NULL));
	EXPECT_EQ(-EINVAL, dmabuf_import(fd, dfd, 1ULL << 63, 0, NULL));
	/* fds: none, closed, O_PATH */
	EXPECT_EQ(-EBADF, dmabuf_import(fd, -1, 4 * SZ_4K, 0, NULL));
	EXPECT_EQ(-EBADF, dmabuf_import(fd, INT32_MIN, 4 * SZ_4K, 0, NULL));
	other = dup(dfd);
	ASSERT_LE(0, other);
	close(other);
	EXPECT_EQ(-EBADF, dmabuf_import(fd, other, 4 * SZ_4K, 0, NULL));
	other = open("/dev/null", O_PATH | O_CLOEXEC);
	ASSERT_LE(0, other);
	EXPECT_EQ(-EBADF, dmabuf_import(fd, other, 4 * SZ_4K, 0, NULL));
	close(other);
	/* files that are not dma-bufs: a device, a memfd, npu's own node */
	other = open("/dev/null", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, other);
	EXPECT_EQ(-EINVAL, dmabuf_import(fd, other, 4 * SZ_4K, 0, NULL));
	close(other);
	other = memfd_create("not-a-dmabuf", MFD_CLOEXEC);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, ftruncate(other, 4 * SZ_4K));
	EXPECT_EQ(-EINVAL, dmabuf_import(fd, other, 4 * SZ_4K, 0, NULL));
	close(other);
	EXPECT_EQ(-EINVAL, dmabuf_import(fd, fd, 4 * SZ_4K, 0, NULL));
	/* short struct, longer one with a non-zero tail */
	a = (struct npu_dmabuf_import){ .size = sizeof(a) - 8, .fd = dfd,
					.length = 4 * SZ_4K };
	EXPECT_EQ(-EINVAL, dmabuf_import_full(fd, &a));
	memset(big, 0, sizeof(big));
	a = (struct npu_dmabuf_import){ .size = sizeof(big), .fd = dfd,
					.length = 4 * SZ_4K };
	memcpy(big, &a, sizeof(a));
	big[sizeof(a) + 5] = 1;
	EXPECT_EQ(-E2BIG, npu_ioctl(fd, NPU_IOCTL_DMABUF_IMPORT, big));
	/* an unwritable answer: the handle never existed */
	{
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ASSERT_NE(MAP_FAILED, p);
		a = (struct npu_dmabuf_import){ .size = sizeof(a), .fd = dfd,
						.length = 4 * SZ_4K };
		memcpy(p, &a, sizeof(a));
		ASSERT_EQ(0, mprotect(p, 4096, PROT_READ));
		EXPECT_EQ(-EFAULT, npu_ioctl(fd, NPU_IOCTL_DMABUF_IMPORT, p));
		munmap(p, 4096);
	}
	EXPECT_EQ(0, fdinfo_value(fd, "npu-shares-imported"));
	/* a read-only file of the buffer imports (the importer says how) */
	{
		struct npu_dmabuf_export e = { .size = sizeof(e), .handle = h,
					       .flags = NPU_DMABUF_READONLY };

		ASSERT_EQ(0, npu_ioctl(fd, NPU_IOCTL_DMABUF_EXPORT, &e));
		ro = e.fd;
		EXPECT_EQ(0, dmabuf_import(fd, ro, 4 * SZ_4K,
					   NPU_DMABUF_IMPORT_READONLY, NULL));
		close(ro);
	}
	EXPECT_EQ(1, fdinfo_value(fd, "npu-shares-imported"));
	/* another process may not use the context */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(dmabuf_import(fd, dfd, 4 * SZ_4K, 0, NULL) == -EPERM ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	close(dfd);
	close(fd);
}

/*
 * npu's own dma-buf of this device is device memory: the handle maps it
 * in the exported handle's page size, as SHARE_IMPORT's would; a
 * read-only import is read-only.
 */
TEST(own_dmabuf_same_device)
{
	struct npu_dmabuf_import a = { .size = sizeof(a), .length = SZ_2M };
	uint64_t va, va2;
	uint32_t h, s;
	unsigned char *host;
	int fd, fd2;

	fd = npu_open(0);
	if (fd < 0)
		SKIP(return, "no /dev/npu0");
	a.fd = npu_export(fd, SZ_2M, SZ_2M, &h);
	ASSERT_LE(0, a.fd);
	va = npu_reserve_new(fd, SZ_2M, SZ_2M);
	ASSERT_NE(0, va);
	ASSERT_EQ(0, npu_map(fd, va, SZ_2M, h));
	ASSERT_EQ(0, npu_set_access(fd, va, SZ_2M, 0, NPU_ACCESS_READWRITE));
	ASSERT_EQ(0, npu_stream_create(fd, &s));
	ASSERT_EQ(0, npu_run(fd, s, npu_memset_cmd(va, 0x5e, SZ_2M, 0)));

	/* another context of the device imports it */
	fd2 = npu_open(0);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, dmabuf_import_full(fd2, &a));
	EXPECT_EQ(SZ_2M, a.page_size);
	EXPECT_NE(0U, a.handle);
	va2 = npu_reserve_new(fd2, SZ_2M, SZ_2M);
	ASSERT_NE(0, va2);
	/* 2 MiB pages: a 4 KiB aligned address is not enough */
	EXPECT_EQ(-EINVAL, npu_map(fd2, va2 + SZ_4K, SZ_2M, a.handle));
	ASSERT_EQ(0, npu_map(fd2, va2, SZ_2M, a.handle));
	ASSERT_EQ(0, npu_set_access(fd2, va2, SZ_2M, 0, NPU_ACCESS_READWRITE));
	/* the exporter's context goes; the memory stays */
	close(a.fd);
	close(fd);
	host = npu_host_mem(SZ_2M);
	ASSERT_NONNULL(host);
	ASSERT_EQ(0, npu_register(fd2, host, SZ_2M, 0, 0));
	ASSERT_EQ(0, npu_stream_create(fd2, &s));
	ASSERT_EQ(0, npu_run(fd2, s, npu_copy_cmd(ptr64(host), va2, SZ_2M,
						  NPU_CMD_DST_HOST)));
	EXPECT_EQ(-1, npu_check_byte(host, SZ_2M, 0x5e));
	/* not exported again: the importer has the dma-buf */
	{
		struct npu_dmabuf_export e = { .size = sizeof(e),
					       .handle = a.handle };

		EXPECT_EQ(-EINVAL, npu_ioctl(fd2, NPU_IOCTL_DMABUF_EXPORT, &e));
	}
	/* device memory: MEM_REPAIR finds it (nothing to repair) */
	{
		struct npu_mem_repair r = { .size = sizeof(r), .addr = va2,
					    .length = SZ_4K };

		EXPECT_EQ(0, npu_ioctl(fd2, NPU_IOCTL_MEM_REPAIR, &r));
		EXPECT_EQ(0U, r.repaired);
	}

	/* read-only: no read-write mapping */
	fd = npu_open(0);
	ASSERT_LE(0, fd);
	a.fd = npu_export(fd, SZ_4K, SZ_4K, NULL);
	a.length = SZ_4K;
	a.flags = NPU_DMABUF_IMPORT_READONLY;
	ASSERT_LE(0, a.fd);
	ASSERT_EQ(0, dmabuf_import_full(fd2, &a));
	EXPECT_EQ(SZ_4K, a.page_size);
	va = npu_reserve_new(fd2, SZ_4K, SZ_2M);
	ASSERT_EQ(0, npu_map(fd2, va, SZ_4K, a.handle));
	EXPECT_EQ(-EACCES, npu_set_access(fd2, va, SZ_4K, 0,
					  NPU_ACCESS_READWRITE));
	EXPECT_EQ(0, npu_set_access(fd2, va, SZ_4K, 0, NPU_ACCESS_READ));
	close(a.fd);
	close(fd);
	close(fd2);
}

/*
 * npu's dma-buf of another device is memory the device reaches through
 * host DMA, as another driver's: what device 0 writes there, device 1
 * reads in its own memory.
 */
TEST(own_dmabuf_other_device)
{
	uint64_t va0, va1;
	uint32_t h, s0, s1, hi;
	unsigned char *host0, *host1;
	int fd0, fd1, dfd;
	struct npu_dmabuf_import a = { .size = sizeof(a), .length = SZ_2M };

	if (npu_device_count() < 2)
		SKIP(return, "one device");
	fd0 = npu_open(0);
	fd1 = npu_open(1);
	ASSERT_LE(0, fd0);
	ASSERT_LE(0, fd1);
	dfd = npu_export(fd1, SZ_2M, SZ_2M, &h);
	ASSERT_LE(0, dfd);
	va1 = npu_reserve_new(fd1, SZ_2M, SZ_2M);
	ASSERT_EQ(0, npu_map(fd1, va1, SZ_2M, h));
	ASSERT_EQ(0, npu_set_access(fd1, va1, SZ_2M, 1, NPU_ACCESS_READWRITE));

	a.fd = dfd;
	ASSERT_EQ(0, dmabuf_import_full(fd0, &a));
	EXPECT_EQ(SZ_4K, a.page_size);
	hi = a.handle;
	va0 = npu_reserve_new(fd0, SZ_2M, SZ_2M);
	ASSERT_EQ(0, npu_map(fd0, va0, SZ_2M, hi));
	ASSERT_EQ(0, npu_set_access(fd0, va0, SZ_2M, 0, NPU_ACCESS_READWRITE));
	host0 = npu_host_mem(SZ_2M);
	host1 = npu_host_mem(SZ_2M);
	ASSERT_NONNULL(host0);
	ASSERT_NONNULL(host1);
	fill(host0, SZ_2M, 77);
	ASSERT_EQ(0, npu_register(fd0, host0, SZ_2M, 0, 0));
	ASSERT_EQ(0, npu_register(fd1, host1, SZ_2M, 0, 0));
	ASSERT_EQ(0, npu_stream_create(fd0, &s0));
	ASSERT_EQ(0, npu_stream_create(fd1, &s1));
	ASSERT_EQ(0, npu_run(fd0, s0, npu_copy_cmd(va0 + 5, ptr64(host0 + 5),
						   SZ_2M - 10,
						   NPU_CMD_SRC_HOST)));
	ASSERT_EQ(0, npu_run(fd1, s1, npu_copy_cmd(ptr64(host1), va1, SZ_2M,
						   NPU_CMD_DST_HOST)));
	EXPECT_EQ(-1, diff_at(host0 + 5, host1 + 5, SZ_2M - 10));
	close(dfd);
	close(fd1);
	close(fd0);
}

/* Imports count against max_imports (and max_handles) as SHARE_IMPORT's do. */
TEST(cap)
{
	long long old = npu_param_get("max_imports");
	uint32_t h1, h2;
	int fd, dfd;

	fd = npu_open(0);
	if (fd < 0)
		SKIP(return, "no /dev/npu0");
	ASSERT_LT(0, old);
	dfd = npu_export(fd, SZ_4K, SZ_4K, NULL);
	ASSERT_LE(0, dfd);
	if (npu_param_set("max_imports", 1))
		SKIP(return, "cannot set max_imports (not root?)");
	EXPECT_EQ(0, dmabuf_import(fd, dfd, SZ_4K, 0, &h1));
	EXPECT_EQ(-ENOSPC, dmabuf_import(fd, dfd, SZ_4K, 0, &h2));
	ASSERT_EQ(0, npu_free(fd, h1));
	EXPECT_EQ(0, dmabuf_import(fd, dfd, SZ_4K, 0, &h2));
	EXPECT_EQ(0, npu_param_set("max_imports", old));
	close(dfd);
	close(fd);
}

TEST_HARNESS_MAIN
