// SPDX-License-Identifier: GPL-2.0
/*
 * tests/npu_dmabuf_test.c - device memory as a dma-buf (DMABUF_EXPORT,
 * kernel/npu_dmabuf.c): the ioctl's checks, CPU mappings of the fd, a
 * real importer (vgem, through libdrm's PRIME calls), another process
 * that gets the fd over a unix socket, and every close order.
 *
 * The NPU writes and reads the memory with its DMA engine (COPY between
 * a registered host buffer and a device VA mapping of the handle); every
 * other view is compared against a model of the whole buffer, at other
 * offsets and lengths than were written. The vgem tests need the vgem
 * module (tools/vm-run --kmod vgem) and skip without it.
 */
#include "harness.h"
#include "npu_util.h"

#include <dirent.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <xf86drm.h>

#define PARAM_DIR	"/sys/module/npu/parameters/"

static int dmabuf_export_full(int fd, struct npu_dmabuf_export *e)
{
	return npu_ioctl(fd, NPU_IOCTL_DMABUF_EXPORT, e);
}

/* Export @handle with @flags: the fd (>= 0) or -errno. */
static int dmabuf_export(int fd, uint32_t handle, uint32_t flags)
{
	struct npu_dmabuf_export e = {
		.size = sizeof(e), .flags = flags, .handle = handle, .fd = -1,
	};
	int ret = dmabuf_export_full(fd, &e);

	return ret ? ret : e.fd;
}

/* Open file descriptors of this process. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own fd */
}

/* The number after "@key:" in /proc/self/fdinfo/@fd, or -1. */
static long long fdinfo_value(int fd, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return npu_file_value_at(AT_FDCWD, path, key, ':');
}

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + seed + (i >> 12) * 13);
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

/*
 * One device context with a handle of @len bytes in @page_size pages,
 * mapped read-write at @va, a stream, a registered host buffer of the
 * same size (@host) and the model of the handle's bytes (@model).
 */
FIXTURE(dmabuf) {
	int fd;
	uint32_t stream, handle;
	uint64_t va, len;
	unsigned char *host, *model;
	long long used0;
	bool freed;
};

FIXTURE_VARIANT(dmabuf) {
	uint64_t page_size;
	uint64_t len;
};

FIXTURE_VARIANT_ADD(dmabuf, pages_4k) { .page_size = SZ_4K, .len = 64 * SZ_4K };
FIXTURE_VARIANT_ADD(dmabuf, pages_2m) { .page_size = SZ_2M, .len = 2 * SZ_2M };

FIXTURE_SETUP(dmabuf)
{
	self->fd = npu_open(0);
	if (self->fd < 0)
		SKIP(return, "no /dev/npu0");
	self->len = variant->len;
	self->used0 = npu_mem_used(self->fd);
	ASSERT_LE(0, self->used0);
	ASSERT_EQ(0, npu_alloc(self->fd, self->len, variant->page_size,
			       &self->handle));
	self->va = npu_reserve_new(self->fd, self->len, variant->page_size);
	ASSERT_NE(0, self->va);
	ASSERT_EQ(0, npu_map(self->fd, self->va, self->len, self->handle));
	ASSERT_EQ(0, npu_set_access(self->fd, self->va, self->len, 0,
				    NPU_ACCESS_READWRITE));
	ASSERT_EQ(0, npu_stream_create(self->fd, &self->stream));
	self->host = npu_host_mem(self->len);
	ASSERT_NONNULL(self->host);
	ASSERT_EQ(0, npu_register(self->fd, self->host, self->len, 0, 0));
	self->model = calloc(1, self->len);
	ASSERT_NONNULL(self->model);
}

FIXTURE_TEARDOWN(dmabuf)
{
	if (self->fd < 0)
		return;
	close(self->fd);
	free(self->model);
}

/* The device writes @n bytes of @src (a model-sized buffer) at @off. */
static int dev_write(FIXTURE_DATA(dmabuf) *self, uint64_t off,
		     const unsigned char *src, uint64_t n)
{
	return npu_dev_write(self->fd, self->stream, self->va, self->host, off, src, n);
}

/* The device reads @n bytes at @off into the host buffer at @off. */
static int dev_read(FIXTURE_DATA(dmabuf) *self, uint64_t off, uint64_t n)
{
	return npu_dev_read(self->fd, self->stream, self->va, self->host, off, n);
}

/* The device fills the whole handle with a pattern from @seed. */
static int dev_fill(FIXTURE_DATA(dmabuf) *self, unsigned int seed)
{
	fill(self->model, self->len, seed);
	return dev_write(self, 0, self->model, self->len);
}

/* Map @n bytes of the dma-buf @dfd at @off, shared, with @prot. */
static unsigned char *map_buf(int dfd, uint64_t off, uint64_t n, int prot)
{
	void *p = mmap(NULL, n, prot, MAP_SHARED, dfd, (off_t)off);

	return p == MAP_FAILED ? NULL : p;
}

TEST_F(dmabuf, bad_input)
{
	struct npu_dmabuf_export e;
	unsigned char big[sizeof(e) + 8];
	int fds = count_fds();
	pid_t pid;
	int st;

	ASSERT_LT(0, fds);
	/* unknown handles */
	EXPECT_EQ(-ENOENT, dmabuf_export(self->fd, self->handle + 1000, 0));
	EXPECT_EQ(-ENOENT, dmabuf_export(self->fd, 0, 0));
	/* unknown flags, each bit */
	EXPECT_EQ(-EINVAL, dmabuf_export(self->fd, self->handle, 1U << 2));
	EXPECT_EQ(-EINVAL, dmabuf_export(self->fd, self->handle, 1U << 31));
	EXPECT_EQ(-EINVAL, dmabuf_export(self->fd, self->handle, ~0U));
	/* reserved */
	e = (struct npu_dmabuf_export){ .size = sizeof(e), .handle = self->handle,
					.__reserved = 1 };
	EXPECT_EQ(-EINVAL, dmabuf_export_full(self->fd, &e));
	e.__reserved = 1ULL << 63;
	EXPECT_EQ(-EINVAL, dmabuf_export_full(self->fd, &e));
	/* short struct, longer one with a non-zero tail */
	e = (struct npu_dmabuf_export){ .size = sizeof(e) - 8, .handle = self->handle };
	EXPECT_EQ(-EINVAL, dmabuf_export_full(self->fd, &e));
	memset(big, 0, sizeof(big));
	e = (struct npu_dmabuf_export){ .size = sizeof(big), .handle = self->handle };
	memcpy(big, &e, sizeof(e));
	big[sizeof(e) + 3] = 1;
	EXPECT_EQ(-E2BIG, npu_ioctl(self->fd, NPU_IOCTL_DMABUF_EXPORT, big));
	/* an unwritable struct: the dma-buf goes again, no fd appears */
	EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_DMABUF_EXPORT, NULL));
	e = (struct npu_dmabuf_export){ .size = sizeof(e), .handle = self->handle };
	{
		void *ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ASSERT_NE(MAP_FAILED, ro);
		memcpy(ro, &e, sizeof(e));
		ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
		EXPECT_EQ(-EFAULT, npu_ioctl(self->fd, NPU_IOCTL_DMABUF_EXPORT, ro));
		munmap(ro, 4096);
	}
	EXPECT_EQ(fds, count_fds());
	EXPECT_EQ(0, fdinfo_value(self->fd, "npu-dmabufs"));
	/* another process (a child after fork) may not use the context */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(dmabuf_export(self->fd, self->handle, 0) == -EPERM ? 0 : 1);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	/* a freed handle is unknown */
	ASSERT_EQ(0, npu_free(self->fd, self->handle));
	EXPECT_EQ(-ENOENT, dmabuf_export(self->fd, self->handle, 0));
	EXPECT_EQ(fds, count_fds());
}

TEST_F(dmabuf, flags_and_mapping_rules)
{
	struct npu_dmabuf_export e = {
		.size = sizeof(e), .handle = self->handle, .fd = -1,
	};
	unsigned char *p;
	int rw, ro;

	ASSERT_EQ(0, dmabuf_export_full(self->fd, &e));
	rw = e.fd;
	ASSERT_LE(0, rw);
	EXPECT_EQ(self->len, e.length);
	EXPECT_EQ(0, e.__reserved);
	EXPECT_EQ(0, fcntl(rw, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(O_RDWR, fcntl(rw, F_GETFL) & O_ACCMODE);
	EXPECT_EQ((off_t)self->len, lseek(rw, 0, SEEK_END));

	ro = dmabuf_export(self->fd, self->handle,
			   NPU_DMABUF_READONLY | NPU_DMABUF_CLOEXEC);
	ASSERT_LE(0, ro);
	EXPECT_EQ(FD_CLOEXEC, fcntl(ro, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(O_RDONLY, fcntl(ro, F_GETFL) & O_ACCMODE);
	EXPECT_EQ(2, fdinfo_value(self->fd, "npu-dmabufs"));

	/* read-only: no writable mapping, now or later */
	EXPECT_NULL(map_buf(ro, 0, self->len, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	p = map_buf(ro, 0, self->len, PROT_READ);
	ASSERT_NONNULL(p);
	EXPECT_ERRNO(mprotect(p, self->len, PROT_READ | PROT_WRITE), EACCES);
	munmap(p, self->len);

	/* shared mappings only, inside the buffer, never growing */
	p = mmap(NULL, SZ_4K, PROT_READ, MAP_PRIVATE, rw, 0);
	EXPECT_EQ(MAP_FAILED, (void *)p);
	EXPECT_EQ(EINVAL, errno);
	EXPECT_NULL(map_buf(rw, 0, self->len + SZ_4K, PROT_READ));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_NULL(map_buf(rw, self->len, SZ_4K, PROT_READ));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_NULL(map_buf(rw, self->len - SZ_4K, 2 * SZ_4K, PROT_READ));
	EXPECT_EQ(EINVAL, errno);
	p = map_buf(rw, self->len - SZ_4K, SZ_4K, PROT_READ | PROT_WRITE);
	ASSERT_NONNULL(p);
	EXPECT_EQ(MAP_FAILED, mremap(p, SZ_4K, 2 * SZ_4K, 0));
	EXPECT_EQ(EFAULT, errno);
	munmap(p, SZ_4K);

	ASSERT_EQ(0, close(ro));
	ASSERT_EQ(0, close(rw));
	EXPECT_EQ(0, fdinfo_value(self->fd, "npu-dmabufs"));
}

/*
 * The engine's bytes through CPU mappings of the fd at several offsets
 * and lengths, CPU writes through them back through the engine.
 */
TEST_F(dmabuf, cpu_mmap_matches_device)
{
	static const uint64_t offs[] = { 0, SZ_4K, 5 * SZ_4K, 17 * SZ_4K };
	unsigned char *all, *part, *src;
	unsigned int i;
	int dfd;

	ASSERT_EQ(0, dev_fill(self, 3));
	dfd = dmabuf_export(self->fd, self->handle, NPU_DMABUF_CLOEXEC);
	ASSERT_LE(0, dfd);
	all = map_buf(dfd, 0, self->len, PROT_READ | PROT_WRITE);
	ASSERT_NONNULL(all);
	EXPECT_EQ(-1, diff_at(self->model, all, self->len));
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		uint64_t off = offs[i] % self->len, n = self->len - off;

		if (n > 3 * SZ_4K)
			n = 3 * SZ_4K;
		part = map_buf(dfd, off, n, PROT_READ);
		ASSERT_NONNULL(part);
		EXPECT_EQ(-1, diff_at(self->model + off, part, n));
		munmap(part, n);
	}
	/* device writes after the mapping was made show through it */
	src = malloc(self->len);
	ASSERT_NONNULL(src);
	fill(src, self->len, 9);
	ASSERT_EQ(0, dev_write(self, 3 * SZ_4K + 123, src, 2 * SZ_4K + 77));
	memcpy(self->model + 3 * SZ_4K + 123, src + 3 * SZ_4K + 123,
	       2 * SZ_4K + 77);
	free(src);
	EXPECT_EQ(-1, diff_at(self->model, all, self->len));
	/* CPU writes through the fd, unaligned: the engine reads them */
	memset(all + SZ_4K - 5, 0x5a, 2 * SZ_4K + 11);
	memset(self->model + SZ_4K - 5, 0x5a, 2 * SZ_4K + 11);
	all[self->len - 1] = 0x77;
	self->model[self->len - 1] = 0x77;
	ASSERT_EQ(0, dev_read(self, 0, self->len));
	EXPECT_EQ(-1, diff_at(self->model, self->host, self->len));
	ASSERT_EQ(0, dev_read(self, SZ_4K / 2, SZ_4K + 9));
	EXPECT_EQ(-1, diff_at(self->model + SZ_4K / 2, self->host + SZ_4K / 2,
			      SZ_4K + 9));
	munmap(all, self->len);
	ASSERT_EQ(0, close(dfd));
}

/* The vgem card (a render-capable DRM device that imports dma-bufs), or -1. */
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

#define BUFINFO	"/sys/kernel/debug/dma_buf/bufinfo"

/*
 * What the dma-buf core's debugfs list says of the dma-buf @fd: -1 not
 * listed, else the number of attachments of device @dev (0 or more), with
 * *@exp its exporter's name. -2 without the list (no debugfs).
 */
static int bufinfo_attached(int fd, const char *dev, char *exp, size_t explen)
{
	unsigned long ino, want;
	char line[256], name[64];
	FILE *f = fopen(BUFINFO, "re");
	int found = -1, in = 0;
	struct stat st;

	if (!f)
		return -2;
	if (fstat(fd, &st)) {
		fclose(f);
		return -1;
	}
	want = st.st_ino;
	while (fgets(line, sizeof(line), f)) {
		size_t size;
		unsigned int flags, mode;
		long count;

		if (sscanf(line, "%zu\t%x\t%x\t%ld\t%63s\t%lu", &size, &flags,
			   &mode, &count, name, &ino) == 6) {
			in = ino == want;
			if (in) {
				found = 0;
				snprintf(exp, explen, "%s", name);
			}
		} else if (in && line[0] == '\t' && !strncmp(line + 1, dev, strlen(dev)) &&
			   line[1 + strlen(dev)] == '\n') {
			found++;
		} else if (!strncmp(line, "Total", 5)) {
			in = 0;
		}
	}
	fclose(f);
	return found;
}

/* The same open file? (A re-export gives the importer's dma-buf back.) */
static bool same_file(int a, int b)
{
	struct stat sa, sb;

	return !fstat(a, &sa) && !fstat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * Import the fd into vgem (attach and map_dma_buf for vgem's device),
 * check what vgem hands back maps the engine's bytes, and close both in
 * either order, with the handle freed and the context closed first.
 */
TEST_F(dmabuf, vgem_import)
{
	struct drm_mode_map_dumb md;
	uint32_t gem = 0, gem2 = 0;
	unsigned char *p;
	int card, dfd, back, fd2, att;
	char exp[64] = "";

	card = vgem_open();
	if (card < 0)
		SKIP(return, "no vgem card (load the vgem module: tools/vm-run --kmod vgem)");
	ASSERT_EQ(0, dev_fill(self, 41));
	dfd = dmabuf_export(self->fd, self->handle, NPU_DMABUF_CLOEXEC);
	ASSERT_LE(0, dfd);

	/* importer first: import, look, close the GEM handle, then the fd */
	ASSERT_EQ(0, drmPrimeFDToHandle(card, dfd, &gem));
	EXPECT_NE(0U, gem);
	ASSERT_EQ(0, drmPrimeFDToHandle(card, dfd, &gem2));
	EXPECT_EQ(gem, gem2);	/* one GEM object per dma-buf */
	/* DRM maps only its own objects: an import is refused */
	memset(&md, 0, sizeof(md));
	md.handle = gem;
	EXPECT_EQ(-1, drmIoctl(card, DRM_IOCTL_MODE_MAP_DUMB, &md));
	EXPECT_EQ(EINVAL, errno);
	/* the dma-buf core lists vgem's one attachment to our dma-buf */
	att = bufinfo_attached(dfd, "vgem", exp, sizeof(exp));
	if (att == -2) {
		TH_LOG("no %s: attachments not checked", BUFINFO);
	} else {
		EXPECT_EQ(1, att);
		EXPECT_STREQ("npu", exp);
	}
	/* its PRIME export of the object is our dma-buf */
	ASSERT_EQ(0, drmPrimeHandleToFD(card, gem, DRM_CLOEXEC | DRM_RDWR, &back));
	EXPECT_TRUE(same_file(dfd, back));
	p = map_buf(back, SZ_4K, self->len - SZ_4K, PROT_READ);
	ASSERT_NONNULL(p);
	EXPECT_EQ(-1, diff_at(self->model + SZ_4K, p, self->len - SZ_4K));
	munmap(p, self->len - SZ_4K);
	close(back);
	ASSERT_EQ(0, drmCloseBufferHandle(card, gem));
	/* closing the GEM object detached vgem */
	att = bufinfo_attached(dfd, "vgem", exp, sizeof(exp));
	if (att != -2)
		EXPECT_EQ(0, att);
	ASSERT_EQ(0, close(dfd));
	EXPECT_EQ(0, fdinfo_value(self->fd, "npu-dmabufs"));

	/* exporter first: the fd, the handle and the context go before vgem */
	dfd = dmabuf_export(self->fd, self->handle, 0);
	ASSERT_LE(0, dfd);
	ASSERT_EQ(0, drmPrimeFDToHandle(card, dfd, &gem));
	ASSERT_EQ(0, close(dfd));
	ASSERT_EQ(0, npu_free(self->fd, self->handle));
	EXPECT_EQ(1, fdinfo_value(self->fd, "npu-dmabufs"));
	ASSERT_EQ(0, close(self->fd));
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(self->used0 + (long long)self->len, npu_mem_used(self->fd));
	ASSERT_EQ(0, drmPrimeHandleToFD(card, gem, DRM_CLOEXEC, &back));
	p = map_buf(back, 0, self->len, PROT_READ);
	ASSERT_NONNULL(p);
	EXPECT_EQ(-1, diff_at(self->model, p, self->len));
	munmap(p, self->len);
	close(back);
	ASSERT_EQ(0, drmCloseBufferHandle(card, gem));
	/* the last reference went with vgem's object */
	EXPECT_EQ(self->used0, npu_mem_used(self->fd));

	/* a card closed with the import still in it lets go too */
	fd2 = npu_open(0);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, npu_alloc(fd2, SZ_2M, SZ_2M, &self->handle));
	dfd = dmabuf_export(fd2, self->handle, 0);
	ASSERT_LE(0, dfd);
	ASSERT_EQ(0, drmPrimeFDToHandle(card, dfd, &gem));
	close(fd2);
	close(dfd);
	EXPECT_EQ(self->used0 + (long long)SZ_2M, npu_mem_used(self->fd));
	close(card);
	EXPECT_EQ(self->used0, npu_mem_used(self->fd));
}

/* Send @fd over the unix socket @sock (SCM_RIGHTS). */
static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 'f';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

/* An fd from the unix socket @sock, or -1. */
static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

#define PEER_OFF	(SZ_4K + 300)
#define PEER_LEN	(SZ_4K + 1000)

/*
 * The other process: the fd arrives over @sock (it inherited none), the
 * mapping must hold @model; it writes PEER_LEN bytes of 0xc3 at PEER_OFF,
 * says so, and with @keep keeps the fd and mapping until told to go.
 * Exit 0 if all held.
 */
static int peer_main(int sock, const unsigned char *model, uint64_t len,
		     bool keep)
{
	unsigned char *p, go;
	int fd = recv_fd(sock);

	if (fd < 0)
		return 2;
	p = map_buf(fd, 0, len, PROT_READ | PROT_WRITE);
	if (!p)
		return 3;
	if (diff_at(model, p, len) != -1)
		return 4;
	memset(p + PEER_OFF, 0xc3, PEER_LEN);
	if (write(sock, "w", 1) != 1)
		return 5;
	if (keep && read(sock, &go, 1) != 1)
		return 6;
	/* what the parent changed meanwhile shows here too */
	if (keep && p[0] != 0x11)
		return 7;
	munmap(p, len);
	close(fd);
	return 0;
}

TEST_F(dmabuf, other_process_over_unix_socket)
{
	int sv[2], dfd, st;
	char ack;
	pid_t pid;

	ASSERT_EQ(0, dev_fill(self, 77));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(sv[0]);
		close(self->fd);	/* no share in the context */
		_exit(peer_main(sv[1], self->model, self->len, true));
	}
	close(sv[1]);
	/* exported after the fork: the child has it only from the socket */
	dfd = dmabuf_export(self->fd, self->handle, NPU_DMABUF_CLOEXEC);
	ASSERT_LE(0, dfd);
	ASSERT_EQ(0, send_fd(sv[0], dfd));
	/* exporter first: our fd, handle and mapping go while the child maps */
	ASSERT_EQ(0, close(dfd));
	ASSERT_EQ(1, read(sv[0], &ack, 1));
	memset(self->model + PEER_OFF, 0xc3, PEER_LEN);
	ASSERT_EQ(0, dev_read(self, 0, self->len));
	EXPECT_EQ(-1, diff_at(self->model, self->host, self->len));
	ASSERT_EQ(0, dev_read(self, PEER_OFF - 1, PEER_LEN + 2));
	EXPECT_EQ(-1, diff_at(self->model + PEER_OFF - 1,
			      self->host + PEER_OFF - 1, PEER_LEN + 2));
	/* the device's write reaches the child's mapping */
	self->model[0] = 0x11;
	ASSERT_EQ(0, dev_write(self, 0, self->model, 1));
	ASSERT_EQ(0, npu_unmap(self->fd, self->va));
	ASSERT_EQ(0, npu_free(self->fd, self->handle));
	EXPECT_EQ(self->used0 + (long long)self->len, npu_mem_used(self->fd));
	ASSERT_EQ(1, write(sv[0], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	close(sv[0]);
	EXPECT_EQ(self->used0, npu_mem_used(self->fd));
	EXPECT_EQ(0, fdinfo_value(self->fd, "npu-dmabufs"));
}

/* The other process goes first (importer first), then the exporter. */
TEST_F(dmabuf, other_process_closes_first)
{
	int sv[2], dfd, st;
	unsigned char *p;
	char ack;
	pid_t pid;

	ASSERT_EQ(0, dev_fill(self, 78));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(sv[0]);
		close(self->fd);
		_exit(peer_main(sv[1], self->model, self->len, false));
	}
	close(sv[1]);
	dfd = dmabuf_export(self->fd, self->handle, 0);
	ASSERT_LE(0, dfd);
	ASSERT_EQ(0, send_fd(sv[0], dfd));
	ASSERT_EQ(1, read(sv[0], &ack, 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	close(sv[0]);
	memset(self->model + PEER_OFF, 0xc3, PEER_LEN);
	p = map_buf(dfd, 0, self->len, PROT_READ);
	ASSERT_NONNULL(p);
	EXPECT_EQ(-1, diff_at(self->model, p, self->len));
	ASSERT_EQ(0, dev_read(self, PEER_OFF + 7, PEER_LEN - 9));
	EXPECT_EQ(-1, diff_at(self->model + PEER_OFF + 7,
			      self->host + PEER_OFF + 7, PEER_LEN - 9));
	/* the context closes with the fd and its mapping still there */
	ASSERT_EQ(0, close(self->fd));
	self->fd = npu_open(0);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(self->used0 + (long long)self->len, npu_mem_used(self->fd));
	ASSERT_EQ(0, close(dfd));
	/* the mapping holds the dma-buf */
	EXPECT_EQ(self->used0 + (long long)self->len, npu_mem_used(self->fd));
	EXPECT_EQ(-1, diff_at(self->model, p, self->len));
	munmap(p, self->len);
	EXPECT_EQ(self->used0, npu_mem_used(self->fd));
}

/*
 * A handle from SHARE_IMPORT exports too: another process fills and
 * shares memory, goes away, and the dma-buf of the import keeps it.
 */
TEST(imported_handle_exports)
{
	struct npu_share_import imp = { .size = sizeof(imp) };
	int up[2], down[2], fd, dfd, st;
	uint64_t name = 0;
	long long used0;
	unsigned char *p, *model;
	pid_t pid;
	char go;

	fd = npu_open(0);
	if (fd < 0)
		SKIP(return, "no /dev/npu0");
	used0 = npu_mem_used(fd);
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct npu_share_export exp = {
			.size = sizeof(exp), .flags = NPU_SHARE_ANY_PID,
		};
		uint32_t stream;
		uint64_t va;
		int cfd;

		close(fd);
		cfd = npu_open(0);
		va = npu_reserve_new(cfd, SZ_2M, SZ_2M);
		if (cfd < 0 || !va || npu_alloc(cfd, SZ_2M, SZ_2M, &exp.handle) ||
		    npu_map(cfd, va, SZ_2M, exp.handle) ||
		    npu_set_access(cfd, va, SZ_2M, 0, NPU_ACCESS_READWRITE) ||
		    npu_stream_create(cfd, &stream) ||
		    npu_run(cfd, stream, npu_memset_cmd(va, 0x3c, SZ_2M, 0)) ||
		    npu_run(cfd, stream, npu_memset_cmd(va + SZ_2M - 3, 0x4d, 3, 0)) ||
		    npu_ioctl(cfd, NPU_IOCTL_SHARE_EXPORT, &exp))
			_exit(2);
		if (write(up[1], &exp.shareable, 8) != 8 || read(down[0], &go, 1) != 1)
			_exit(3);
		_exit(0);
	}
	ASSERT_EQ(8, read(up[0], &name, 8));
	imp.shareable = name;
	ASSERT_EQ(0, npu_ioctl(fd, NPU_IOCTL_SHARE_IMPORT, &imp));
	dfd = dmabuf_export(fd, imp.handle, NPU_DMABUF_READONLY);
	ASSERT_LE(0, dfd);
	/* the exporter and the import go; the dma-buf keeps the memory */
	ASSERT_EQ(1, write(down[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	ASSERT_EQ(0, npu_free(fd, imp.handle));
	EXPECT_EQ(used0 + (long long)SZ_2M, npu_mem_used(fd));
	p = map_buf(dfd, 0, SZ_2M, PROT_READ);
	ASSERT_NONNULL(p);
	ASSERT_EQ(0, close(dfd));
	model = malloc(SZ_2M);
	ASSERT_NONNULL(model);
	memset(model, 0x3c, SZ_2M - 3);
	memset(model + SZ_2M - 3, 0x4d, 3);
	EXPECT_EQ(-1, diff_at(model, p, SZ_2M));
	free(model);
	munmap(p, SZ_2M);
	EXPECT_EQ(used0, npu_mem_used(fd));
	close(fd);
}

/* max_dmabufs caps the dma-bufs a context holds, freed handles' included. */
TEST_F(dmabuf, cap)
{
	char old[32] = "";
	int a, b, fd, n;

	fd = open(PARAM_DIR "max_dmabufs", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	n = read(fd, old, sizeof(old) - 1);
	close(fd);
	ASSERT_LT(0, n);
	if (npu_write_file(PARAM_DIR "max_dmabufs", "2"))
		SKIP(return, "cannot set max_dmabufs (not root?)");
	a = dmabuf_export(self->fd, self->handle, 0);
	b = dmabuf_export(self->fd, self->handle, 0);
	EXPECT_LE(0, a);
	EXPECT_LE(0, b);
	EXPECT_EQ(-ENOSPC, dmabuf_export(self->fd, self->handle, 0));
	ASSERT_EQ(0, npu_free(self->fd, self->handle));
	EXPECT_EQ(2, fdinfo_value(self->fd, "npu-dmabufs"));
	close(a);
	ASSERT_EQ(0, npu_alloc(self->fd, SZ_4K, SZ_4K, &self->handle));
	a = dmabuf_export(self->fd, self->handle, 0);
	EXPECT_LE(0, a);
	EXPECT_EQ(-ENOSPC, dmabuf_export(self->fd, self->handle, 0));
	close(a);
	close(b);
	EXPECT_EQ(0, fdinfo_value(self->fd, "npu-dmabufs"));
	EXPECT_EQ(0, npu_write_file(PARAM_DIR "max_dmabufs", old));
}

/* A dma-buf keeps npu.ko loaded: its file holds the module. */
TEST_F(dmabuf, module_stays_while_dmabuf_lives)
{
	long long held, after;
	int dfd;

	dfd = dmabuf_export(self->fd, self->handle, 0);
	ASSERT_LE(0, dfd);
	ASSERT_EQ(0, close(self->fd));
	self->fd = -1;
	free(self->model);
	held = npu_file_value_at(AT_FDCWD, "/sys/module/npu/refcnt", NULL, 0);
	ASSERT_LE(1, held);
	/* refused at once (O_NONBLOCK): the dma-buf is a user */
	EXPECT_EQ(-1, syscall(SYS_delete_module, "npu", O_NONBLOCK));
	EXPECT_EQ(EWOULDBLOCK, errno);
	ASSERT_EQ(0, close(dfd));
	after = npu_file_value_at(AT_FDCWD, "/sys/module/npu/refcnt", NULL, 0);
	EXPECT_EQ(held - 1, after);
}

TEST_HARNESS_MAIN
