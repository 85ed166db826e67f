// SPDX-License-Identifier: GPL-2.0
/*
 * npu_test_exporter.ko: a dma-buf exporter that moves its buffers, for
 * tests/npu_dmabuf_import_test.c. Not part of npu.ko and never installed
 * (kernel/tests/testkmod.mk builds it for every bench kernel).
 *
 * DMABUF_IMPORT attaches dynamically and must honour an exporter's
 * move_notify, but none of the exporters a test VM has ever moves a
 * buffer (vgem's and udmabuf's pages stay where they are). This one's
 * buffers are dynamic (pin and unpin, mapped under the reservation lock)
 * and move on request: NPU_TEXP_MOVE gives a buffer new pages, calls
 * dma_buf_move_notify() - importers must stop reaching the old pages
 * before it returns - and copies the bytes over, at once or from a work
 * item behind a fence of the reservation (DMA_RESV_USAGE_KERNEL), as a
 * GPU's copy engine would: an importer that maps the buffer again must
 * wait for it, and so does the next move. The pages moved away from are filled with a poison byte
 * and kept, so a device access through a stale translation shows as a
 * changed poison (NPU_TEXP_STAT).
 *
 * On kernels without CONFIG_DMABUF_MOVE_NOTIFY (Debian's) the dma-buf
 * core pins a dynamic exporter's buffer for as long as an importer maps
 * it, and an honest exporter would not move a pinned buffer. This one
 * moves it anyway: what is tested is that the importer gives the mapping
 * back when told, and never touches the old pages again.
 */
#include <linux/dma-buf.h>
#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/highmem.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "npu_compat.h"
#include "npu_test_exporter.h"

NPU_IMPORT_NS_DMA_BUF();

#define TEXP_MAX_SIZE	SZ_64M

/* Pages a buffer moved away from, poisoned, kept until it is released. */
struct texp_old {
	struct list_head node;
	struct page **pages;
};

/*
 * struct texp_buf - one buffer; everything but @npages under the
 * reservation lock of @dmabuf
 */
struct texp_buf {
	struct dma_buf *dmabuf;
	unsigned long npages;
	struct page **pages;
	struct list_head old;
	unsigned int moves;
	unsigned int maps;
	unsigned int pins;
	bool fail_map;
};

/* A move's copy done later, behind a fence. */
struct texp_fence {
	struct dma_fence base;
	spinlock_t lock;	/* the fence's */
	struct delayed_work work;
	struct dma_buf *dmabuf;	/* a reference */
	struct page **from, **to;
	unsigned long npages;
};

static u64 texp_fence_context;
static atomic64_t texp_fence_seqno = ATOMIC64_INIT(0);

static void texp_free_pages(struct page **pages, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		if (pages[i])
			__free_page(pages[i]);
	kvfree(pages);
}

static struct page **texp_alloc_pages(unsigned long n)
{
	struct page **pages = kvcalloc(n, sizeof(*pages), GFP_KERNEL);
	unsigned long i;

	if (!pages)
		return NULL;
	for (i = 0; i < n; i++) {
		pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!pages[i]) {
			texp_free_pages(pages, n);
			return NULL;
		}
	}
	return pages;
}

/* Copy the bytes over, then poison what they left. */
static void texp_copy(struct page **from, struct page **to, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		copy_highpage(to[i], from[i]);
		memset_page(from[i], 0, NPU_TEXP_POISON, PAGE_SIZE);
	}
}

static const char *texp_fence_driver(struct dma_fence *f)
{
	return "npu_test_exporter";
}

static const char *texp_fence_timeline(struct dma_fence *f)
{
	return "move";
}

static const struct dma_fence_ops texp_fence_ops = {
	.get_driver_name = texp_fence_driver,
	.get_timeline_name = texp_fence_timeline,
};

static void texp_fence_work(struct work_struct *work)
{
	struct texp_fence *f = container_of(to_delayed_work(work),
					    struct texp_fence, work);
	struct dma_buf *dmabuf = f->dmabuf;

	texp_copy(f->from, f->to, f->npages);
	dma_fence_signal(&f->base);
	dma_fence_put(&f->base);
	dma_buf_put(dmabuf);
}

static int texp_pin(struct dma_buf_attachment *attach)
{
	struct texp_buf *buf = attach->dmabuf->priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	buf->pins++;
	return 0;
}

static void texp_unpin(struct dma_buf_attachment *attach)
{
	struct texp_buf *buf = attach->dmabuf->priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	buf->pins--;
}

static struct sg_table *texp_map(struct dma_buf_attachment *attach,
				 enum dma_data_direction dir)
{
	struct texp_buf *buf = attach->dmabuf->priv;
	struct sg_table *sgt;
	int ret;

	dma_resv_assert_held(attach->dmabuf->resv);
	if (buf->fail_map) {
		buf->fail_map = false;
		return ERR_PTR(-ENOMEM);
	}
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table_from_pages(sgt, buf->pages, buf->npages, 0,
					buf->npages << PAGE_SHIFT, GFP_KERNEL);
	if (ret)
		goto free;
	ret = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (ret)
		goto free_table;
	buf->maps++;
	return sgt;

free_table:
	sg_free_table(sgt);
free:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void texp_unmap(struct dma_buf_attachment *attach, struct sg_table *sgt,
		       enum dma_data_direction dir)
{
	struct texp_buf *buf = attach->dmabuf->priv;

	dma_resv_assert_held(attach->dmabuf->resv);
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
	buf->maps--;
}

static void texp_release(struct dma_buf *dmabuf)
{
	struct texp_buf *buf = dmabuf->priv;
	struct texp_old *o, *next;

	list_for_each_entry_safe(o, next, &buf->old, node) {
		texp_free_pages(o->pages, buf->npages);
		kfree(o);
	}
	texp_free_pages(buf->pages, buf->npages);
	kfree(buf);
}

static const struct dma_buf_ops texp_ops = {
	.pin = texp_pin,
	.unpin = texp_unpin,
	.map_dma_buf = texp_map,
	.unmap_dma_buf = texp_unmap,
	.release = texp_release,
};

static int texp_create(struct npu_texp_create __user *uarg)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct npu_texp_create args;
	struct dma_buf *dmabuf;
	struct texp_buf *buf;
	int fd;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (!args.size || args.size > TEXP_MAX_SIZE ||
	    !IS_ALIGNED(args.size, PAGE_SIZE) || args.__pad)
		return -EINVAL;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	INIT_LIST_HEAD(&buf->old);
	buf->npages = args.size >> PAGE_SHIFT;
	buf->pages = texp_alloc_pages(buf->npages);
	if (!buf->pages) {
		kfree(buf);
		return -ENOMEM;
	}
	info.ops = &texp_ops;
	info.size = args.size;
	info.flags = O_RDWR;
	info.priv = buf;
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf)) {
		texp_free_pages(buf->pages, buf->npages);
		kfree(buf);
		return PTR_ERR(dmabuf);
	}
	buf->dmabuf = dmabuf;
	fd = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(dmabuf);
		return fd;
	}
	if (put_user(fd, &uarg->fd))
		return -EFAULT;	/* the fd stays: the test's to close */
	return 0;
}

/* A buffer of this exporter by its fd, with a reference. */
static struct dma_buf *texp_get(int fd)
{
	struct dma_buf *dmabuf = dma_buf_get(fd);

	if (IS_ERR(dmabuf))
		return dmabuf;
	if (dmabuf->ops != &texp_ops) {
		dma_buf_put(dmabuf);
		return ERR_PTR(-EINVAL);
	}
	return dmabuf;
}

/*
 * Lock @dmabuf's reservation after every move's copy: the bytes are where
 * the pages say. Return: 0 locked, or an error unlocked.
 */
static int texp_lock_settled(struct dma_buf *dmabuf)
{
	long left;
	int ret;

	ret = dma_resv_lock_interruptible(dmabuf->resv, NULL);
	if (ret)
		return ret;
	left = dma_resv_wait_timeout(dmabuf->resv, DMA_RESV_USAGE_KERNEL, true,
				     MAX_SCHEDULE_TIMEOUT);
	if (left <= 0) {
		dma_resv_unlock(dmabuf->resv);
		return left ? left : -ETIMEDOUT;
	}
	return 0;
}

static int texp_move(struct npu_texp_move __user *uarg)
{
	struct texp_fence *fence = NULL;
	struct npu_texp_move args;
	struct page **pages = NULL;
	struct texp_old *old;
	struct dma_buf *dmabuf;
	struct texp_buf *buf;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.flags & ~NPU_TEXP_MOVE_FAIL_MAP || args.__pad)
		return -EINVAL;
	dmabuf = texp_get(args.fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	buf = dmabuf->priv;
	ret = -ENOMEM;
	old = kzalloc(sizeof(*old), GFP_KERNEL);
	pages = texp_alloc_pages(buf->npages);
	if (args.delay_ms)
		fence = kzalloc(sizeof(*fence), GFP_KERNEL);
	if (!old || !pages || (args.delay_ms && !fence))
		goto free;

	/*
	 * Moves copy in order, as a copy engine's queue would: this one
	 * starts from where the last one's bytes are, not where they will be.
	 */
	ret = texp_lock_settled(dmabuf);
	if (ret)
		goto free;
	if (fence) {
		ret = dma_resv_reserve_fences(dmabuf->resv, 1);
		if (ret) {
			dma_resv_unlock(dmabuf->resv);
			goto free;
		}
	}
	old->pages = buf->pages;
	list_add(&old->node, &buf->old);
	buf->pages = pages;
	buf->moves++;
	if (args.flags & NPU_TEXP_MOVE_FAIL_MAP)
		buf->fail_map = true;
	/* Importers give their mappings of the old pages back first. */
	dma_buf_move_notify(dmabuf);
	if (fence) {
		spin_lock_init(&fence->lock);
		dma_fence_init(&fence->base, &texp_fence_ops, &fence->lock,
			       texp_fence_context,
			       atomic64_inc_return(&texp_fence_seqno));
		fence->from = old->pages;
		fence->to = pages;
		fence->npages = buf->npages;
		get_dma_buf(dmabuf);
		fence->dmabuf = dmabuf;
		dma_resv_add_fence(dmabuf->resv, &fence->base,
				   DMA_RESV_USAGE_KERNEL);
		/* the reservation has its reference; the work takes this one */
		INIT_DELAYED_WORK(&fence->work, texp_fence_work);
		schedule_delayed_work(&fence->work,
				      msecs_to_jiffies(args.delay_ms));
	} else {
		texp_copy(old->pages, pages, buf->npages);
	}
	dma_resv_unlock(dmabuf->resv);
	dma_buf_put(dmabuf);
	return 0;

free:
	kfree(fence);
	if (pages)
		texp_free_pages(pages, buf->npages);
	kfree(old);
	dma_buf_put(dmabuf);
	return ret;
}

/*
 * The CPU's access goes through a kernel buffer: no user page may fault
 * under the reservation lock (the mm's lock nests outside it).
 */
static int texp_rw(struct npu_texp_rw __user *uarg)
{
	void __user *ptr;
	struct npu_texp_rw args;
	struct dma_buf *dmabuf;
	struct texp_buf *buf;
	u64 pos, end, n;
	u8 *tmp;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	ptr = u64_to_user_ptr(args.ptr);
	if (args.write > 1 || args.length > TEXP_MAX_SIZE)
		return -EINVAL;
	dmabuf = texp_get(args.fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	buf = dmabuf->priv;
	ret = -EINVAL;
	if (check_add_overflow(args.offset, args.length, &end) ||
	    end > (u64)buf->npages << PAGE_SHIFT)
		goto put;
	ret = -ENOMEM;
	tmp = kvmalloc(args.length ?: 1, GFP_KERNEL);
	if (!tmp)
		goto put;
	ret = -EFAULT;
	if (args.write && copy_from_user(tmp, ptr, args.length))
		goto free;
	ret = texp_lock_settled(dmabuf);
	if (ret)
		goto free;
	for (pos = args.offset; pos < end; pos += n) {
		struct page *page = buf->pages[pos >> PAGE_SHIFT];
		u64 off = offset_in_page(pos);

		n = min_t(u64, PAGE_SIZE - off, end - pos);
		if (args.write)
			memcpy_to_page(page, off, tmp + (pos - args.offset), n);
		else
			memcpy_from_page(tmp + (pos - args.offset), page, off, n);
	}
	dma_resv_unlock(dmabuf->resv);
	ret = 0;
	if (!args.write && copy_to_user(ptr, tmp, args.length))
		ret = -EFAULT;
free:
	kvfree(tmp);
put:
	dma_buf_put(dmabuf);
	return ret;
}

static int texp_stat(struct npu_texp_stat __user *uarg)
{
	struct npu_texp_stat args;
	struct dma_buf *dmabuf;
	struct texp_buf *buf;
	struct texp_old *o;
	unsigned long i, j;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	dmabuf = texp_get(args.fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	buf = dmabuf->priv;
	ret = texp_lock_settled(dmabuf);
	if (ret)
		goto put;
	args.stale = 0;
	list_for_each_entry(o, &buf->old, node) {
		for (i = 0; i < buf->npages; i++) {
			u8 *p = kmap_local_page(o->pages[i]);

			for (j = 0; j < PAGE_SIZE; j++)
				args.stale += p[j] != NPU_TEXP_POISON;
			kunmap_local(p);
			cond_resched();
		}
	}
	args.moves = buf->moves;
	args.maps = buf->maps;
	args.pins = buf->pins;
	dma_resv_unlock(dmabuf->resv);
	ret = copy_to_user(uarg, &args, sizeof(args)) ? -EFAULT : 0;
put:
	dma_buf_put(dmabuf);
	return ret;
}

static long texp_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case NPU_TEXP_CREATE:
		return texp_create(uarg);
	case NPU_TEXP_MOVE:
		return texp_move(uarg);
	case NPU_TEXP_RW:
		return texp_rw(uarg);
	case NPU_TEXP_STAT:
		return texp_stat(uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations texp_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = texp_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice texp_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "npu_test_exporter",
	.fops = &texp_fops,
	.mode = 0600,
};

static int __init texp_init(void)
{
	texp_fence_context = dma_fence_context_alloc(1);
	return misc_register(&texp_misc);
}

static void __exit texp_exit(void)
{
	misc_deregister(&texp_misc);
}

module_init(texp_init);
module_exit(texp_exit);
MODULE_DESCRIPTION("npu tests: a dma-buf exporter that moves its buffers");
MODULE_LICENSE("GPL");
