// SPDX-License-Identifier: GPL-2.0
/*
 * bench_pin - host page-locked memory registration (issue "host
 * page-locked memory"), against the kernel's own pinning paths measured in
 * the same run:
 *
 *  d) aclrtHostRegisterV2(PINNED) + aclrtHostUnregister of 1 GiB of
 *     pre-faulted anonymous memory vs VFIO type1 VFIO_IOMMU_MAP_DMA +
 *     VFIO_IOMMU_UNMAP_DMA of the same memory, on 4 KiB pages
 *     (MADV_NOHUGEPAGE) and on THP (MADV_HUGEPAGE, 2 MiB aligned).
 *     Targets: register+unregister <= 1.3x VFIO map+unmap on both page
 *     sizes; THP registration >= 5x faster than 4 KiB pages.
 *     io_uring IORING_REGISTER_BUFFERS of the same 1 GiB (one iovec) is a
 *     pin-only reference: reported, no target.
 *  f) t(register 8 GiB) / t(register 1 GiB) on THP memory <= 8.5.
 *
 * usage: bench_pin [-r REPS] [-G BIG_GIB] [-m D_MIB] [-s]
 *   -s: skip f; -m: d's size in MiB (default 1024: a smaller one is for
 *   the smoke test, whose figures are not judged; the names say the size)
 */
#include <sys/mman.h>

#include "bench.h"
#include "pinref.h"

static size_t reg_mib = 1024;
static char reg_name[16] = "1GiB";	/* reg_mib, as the figures' names say it */
static int reps = 7;
static int big_gib = 8;
static int skip_big;

struct hostbuf {
	void *base;	/* what mmap returned */
	size_t maplen;
	char *p;	/* 2 MiB aligned */
	size_t len;
};

static void hostbuf_alloc(struct hostbuf *b, size_t len, int thp)
{
	b->maplen = len + 2 * MiB;
	b->base = mmap(NULL, b->maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (b->base == MAP_FAILED)
		bench_die("mmap %zu: %s", b->maplen, strerror(errno));
	b->p = (char *)(((uintptr_t)b->base + 2 * MiB - 1) & ~(uintptr_t)(2 * MiB - 1));
	b->len = len;
	SYS_CHECK(madvise(b->p, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE));
	prefault(b->p, len);
}

static void hostbuf_free(struct hostbuf *b)
{
	SYS_CHECK(munmap(b->base, b->maplen));
}

/* AnonHugePages of the VMAs inside [p, p + len), in bytes. */
static size_t thp_bytes(void *p, size_t len)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + len, s = 0, e = 0;
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	size_t total = 0, kb;
	int in = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a, z;

		if (sscanf(line, "%lx-%lx ", &a, &z) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			s = a;
			e = z;
			in = s < hi && e > lo;
		} else if (in && sscanf(line, "AnonHugePages: %zu kB", &kb) == 1) {
			total += kb * KiB;
		}
	}
	fclose(f);
	return total;
}

static void print_thp_mode(void)
{
	char buf[256] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	printf("note THP enabled: %s\n", buf[0] ? buf : "(unknown)");
}

struct pin_times {
	double reg, unreg;	/* acl */
	double vmap, vunmap;	/* vfio */
	double ureg, uunreg;	/* io_uring */
};

static void acl_reg_once(void *p, size_t len, double *treg, double *tunreg)
{
	double t0 = now_s(), t1;

	ACL_CHECK(aclrtHostRegisterV2(p, len, ACL_HOST_REG_PINNED));
	t1 = now_s();
	ACL_CHECK(aclrtHostUnregister(p));
	*treg = t1 - t0;
	*tunreg = now_s() - t1;
}

/* Medians of @reps interleaved rounds of the three pinning paths on @b. */
static void pin_round(struct hostbuf *b, struct vfio_ref *v, int ufd, struct pin_times *pt)
{
	double r[16], u[16], vm[16], vu[16], ur[16], uu[16], t0, t1;
	int i, n = reps > 16 ? 16 : reps;

	memset(pt, 0, sizeof(*pt));
	/* warm-up: page tables of the IOMMU, slab caches, the lib's regions */
	acl_reg_once(b->p, b->len, &r[0], &u[0]);
	if (v->container >= 0) {
		vfio_ref_map(v, b->p, b->len);
		vfio_ref_unmap(v, b->len);
	}
	for (i = 0; i < n; i++) {
		acl_reg_once(b->p, b->len, &r[i], &u[i]);
		if (v->container >= 0) {
			t0 = now_s();
			vfio_ref_map(v, b->p, b->len);
			t1 = now_s();
			vfio_ref_unmap(v, b->len);
			vm[i] = t1 - t0;
			vu[i] = now_s() - t1;
		}
		if (ufd >= 0) {
			t0 = now_s();
			uring_ref_register(ufd, b->p, b->len);
			t1 = now_s();
			uring_ref_unregister(ufd);
			ur[i] = t1 - t0;
			uu[i] = now_s() - t1;
		}
	}
	pt->reg = median(r, n);
	pt->unreg = median(u, n);
	if (v->container >= 0) {
		pt->vmap = median(vm, n);
		pt->vunmap = median(vu, n);
	}
	if (ufd >= 0) {
		pt->ureg = median(ur, n);
		pt->uunreg = median(uu, n);
	}
}

static int bench_register(struct vfio_ref *v, int ufd)
{
	struct pin_times pt[2];
	const char *kind[2] = { "4k", "thp" };
	struct hostbuf b;
	char name[64];
	int k, miss = 0;

	for (k = 0; k < 2; k++) {
		size_t thp;

		hostbuf_alloc(&b, reg_mib * MiB, k);
		thp = thp_bytes(b.p, b.len);
		printf("note d.%s: %zu MiB at %p, AnonHugePages %zu MiB\n", kind[k], reg_mib, b.p, thp >> 20);
		if (k == 1 && thp < b.len / 2)
			printf("note d.thp: WARNING: less than half of the buffer is THP\n");
		if (k == 0 && thp)
			printf("note d.4k: WARNING: MADV_NOHUGEPAGE buffer has THP\n");
		pin_round(&b, v, ufd, &pt[k]);
		hostbuf_free(&b);

		snprintf(name, sizeof(name), "d.%s.acl_register_%s", kind[k], reg_name);
		report_ms(name, pt[k].reg);
		snprintf(name, sizeof(name), "d.%s.acl_unregister_%s", kind[k], reg_name);
		report_ms(name, pt[k].unreg);
		if (v->container >= 0) {
			snprintf(name, sizeof(name), "d.%s.vfio_map_%s", kind[k], reg_name);
			report_ms(name, pt[k].vmap);
			snprintf(name, sizeof(name), "d.%s.vfio_unmap_%s", kind[k], reg_name);
			report_ms(name, pt[k].vunmap);
		}
		if (ufd >= 0) {
			snprintf(name, sizeof(name), "d.%s.uring_register_%s", kind[k], reg_name);
			report_ms(name, pt[k].ureg);
			snprintf(name, sizeof(name), "d.%s.uring_unregister_%s", kind[k], reg_name);
			report_ms(name, pt[k].uunreg);
		}
	}
	for (k = 0; k < 2; k++) {
		if (v->container >= 0) {
			snprintf(name, sizeof(name), "register_vs_vfio_%s", kind[k]);
			miss |= report_ratio(name, (pt[k].reg + pt[k].unreg) / (pt[k].vmap + pt[k].vunmap),
					     "<=", 1.3);
			snprintf(name, sizeof(name), "register_only_vs_vfio_map_%s", kind[k]);
			report_info(name, pt[k].reg / pt[k].vmap, "(split)");
			snprintf(name, sizeof(name), "unregister_vs_vfio_unmap_%s", kind[k]);
			report_info(name, pt[k].unreg / pt[k].vunmap, "(split)");
		} else {
			printf("note register_vs_vfio_%s: SKIPPED, no VFIO container\n", kind[k]);
		}
		if (ufd >= 0) {
			snprintf(name, sizeof(name), "register_vs_uring_%s", kind[k]);
			report_info(name, (pt[k].reg + pt[k].unreg) / (pt[k].ureg + pt[k].uunreg),
				    "(pin-only reference, no target)");
		}
	}
	miss |= report_ratio("register_thp_speedup", pt[0].reg / pt[1].reg, ">=", 5.0);
	report_info("register_unregister_thp_speedup", (pt[0].reg + pt[0].unreg) / (pt[1].reg + pt[1].unreg),
		    "(cycle, no target)");
	if (v->container >= 0)
		report_info("vfio_thp_speedup", pt[0].vmap / pt[1].vmap, "(reference)");
	return miss;
}

/*
 * f) register time on THP memory at 1, 2, 4 ... big_gib GiB of one buffer,
 * to see how it scales. Each size is registered reps times, interleaved;
 * the ratio uses each size's minimum: the work is deterministic and a busy
 * host only adds time, more often to a long run than to a short one, which
 * biases a ratio of medians upwards. Medians are reported too.
 */
static int bench_register_big(void)
{
	size_t big = (size_t)big_gib * GiB, thp;
	double t[8][16], mn[8], md[8], u;
	struct hostbuf b;
	int i, k, nsz = 0, n = reps > 16 ? 16 : reps;
	size_t sz[8];
	char name[64];

	/* 1, 2, 4, ... GiB below big, then big */
	for (sz[0] = GiB; sz[nsz] < big && nsz < 6; nsz++)
		sz[nsz + 1] = sz[nsz] * 2 < big ? sz[nsz] * 2 : big;
	nsz++;
	hostbuf_alloc(&b, big, 1);
	thp = thp_bytes(b.p, b.len);
	printf("note f: %d GiB at %p, AnonHugePages %zu MiB\n", big_gib, b.p, thp >> 20);
	acl_reg_once(b.p, GiB, &t[0][0], &u);	/* warm-up */
	acl_reg_once(b.p, big, &t[0][0], &u);
	for (i = 0; i < n; i++)
		for (k = 0; k < nsz; k++)
			acl_reg_once(b.p, sz[k], &t[k][i], &u);
	hostbuf_free(&b);
	for (k = 0; k < nsz; k++) {
		mn[k] = minimum(t[k], n);
		md[k] = median(t[k], n);
		snprintf(name, sizeof(name), "f.register_%zuGiB_thp_min", (size_t)(sz[k] / GiB));
		report_ms(name, mn[k]);
		snprintf(name, sizeof(name), "f.register_%zuGiB_thp_median", (size_t)(sz[k] / GiB));
		report_ms(name, md[k]);
		snprintf(name, sizeof(name), "register_%zuG_per_GiB_vs_1G", (size_t)(sz[k] / GiB));
		if (k)
			report_info(name, mn[k] / (double)(sz[k] / GiB) / mn[0], "(1 = linear)");
	}
	report_info("register_big_vs_1G_median", md[nsz - 1] / md[0], "(ratio of medians)");
	snprintf(name, sizeof(name), "register_%dG_vs_1G", big_gib);
	return report_ratio(name, mn[nsz - 1] / mn[0], "<=", 8.5 * big_gib / 8);
}

int main(int argc, char **argv)
{
	struct vfio_ref v;
	int opt, ufd, miss = 0;

	while ((opt = getopt(argc, argv, "r:G:m:s")) != -1) {
		switch (opt) {
		case 'r': reps = atoi(optarg); break;
		case 'G': big_gib = atoi(optarg); break;
		case 'm': reg_mib = strtoul(optarg, NULL, 0); break;
		case 's': skip_big = 1; break;
		default:
			fprintf(stderr, "usage: %s [-r REPS] [-G BIG_GIB] [-m D_MIB] [-s]\n", argv[0]);
			return 2;
		}
	}
	if (reps < 1 || big_gib < 2 || reg_mib < 2 || reg_mib % 2 || reg_mib > 1024)
		bench_die("bad arguments");
	if (reg_mib < 1024)
		snprintf(reg_name, sizeof(reg_name), "%zuMiB", reg_mib);
	bench_start("bench_pin");
	print_thp_mode();
	vfio_ref_open(&v);
	ufd = uring_ref_open();
	miss |= bench_register(&v, ufd);
	if (ufd >= 0)
		close(ufd);
	vfio_ref_close(&v);
	if (!skip_big)
		miss |= bench_register_big();
	bench_end();
	printf("note bench_pin done: %s\n", miss ? "some targets missed" : "all targets met");
	return 0;
}
