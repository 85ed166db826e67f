// SPDX-License-Identifier: MIT
/*
 * The memory layer's records: ranges in AVL trees by start, so that a
 * lookup by any address inside a range, an insertion and a removal are
 * O(log n) however many allocations the process holds.
 */
#include <errno.h>
#include <stdlib.h>

#include "region.h"

static int acl_height(const struct acl_range *t)
{
	return t ? t->height : 0;
}

static void acl_fix_height(struct acl_range *t)
{
	int a = acl_height(t->child[0]), b = acl_height(t->child[1]);

	t->height = (a > b ? a : b) + 1;
}

/* Rotate @t so that its child on side !@d takes its place; the new root. */
static struct acl_range *acl_rotate(struct acl_range *t, int d)
{
	struct acl_range *c = t->child[!d];

	t->child[!d] = c->child[d];
	c->child[d] = t;
	acl_fix_height(t);
	acl_fix_height(c);
	return c;
}

/* Restore the AVL balance at @t, whose subtrees are balanced; the new root. */
static struct acl_range *acl_balance(struct acl_range *t)
{
	int bal;

	acl_fix_height(t);
	bal = acl_height(t->child[0]) - acl_height(t->child[1]);
	if (bal > 1) {
		if (acl_height(t->child[0]->child[0]) < acl_height(t->child[0]->child[1]))
			t->child[0] = acl_rotate(t->child[0], 0);
		return acl_rotate(t, 1);
	}
	if (bal < -1) {
		if (acl_height(t->child[1]->child[1]) < acl_height(t->child[1]->child[0]))
			t->child[1] = acl_rotate(t->child[1], 1);
		return acl_rotate(t, 0);
	}
	return t;
}

static struct acl_range *acl_insert(struct acl_range *t, struct acl_range *n)
{
	if (!t)
		return n;
	t->child[n->start > t->start] = acl_insert(t->child[n->start > t->start], n);
	return acl_balance(t);
}

/* Take the lowest range out of @t into *@min; the new root. */
static struct acl_range *acl_remove_min(struct acl_range *t, struct acl_range **min)
{
	if (!t->child[0]) {
		*min = t;
		return t->child[1];
	}
	t->child[0] = acl_remove_min(t->child[0], min);
	return acl_balance(t);
}

/* Take the range starting at @start out of @t into *@out; the new root. */
static struct acl_range *acl_remove(struct acl_range *t, uint64_t start, struct acl_range **out)
{
	struct acl_range *m, *right;

	if (!t)
		return NULL;
	if (start != t->start) {
		t->child[start > t->start] = acl_remove(t->child[start > t->start], start, out);
		return acl_balance(t);
	}
	*out = t;
	if (!t->child[0] || !t->child[1])
		return t->child[!t->child[0]];
	right = acl_remove_min(t->child[1], &m);
	m->child[0] = t->child[0];
	m->child[1] = right;
	return acl_balance(m);
}

/* The range with the highest start <= @addr (@up 0), or the lowest >= @addr (@up 1). */
static const struct acl_range *acl_nearest(const struct acl_ranges *rs, uint64_t addr, int up)
{
	const struct acl_range *t = rs->root, *best = NULL;

	while (t) {
		if (t->start == addr)
			return t;
		if ((t->start < addr) != up)
			best = t;
		t = t->child[t->start < addr];
	}
	return best;
}

bool acl_ranges_overlap(const struct acl_ranges *rs, uint64_t start, uint64_t len)
{
	const struct acl_range *below = acl_nearest(rs, start, 0);
	const struct acl_range *above = acl_nearest(rs, start, 1);

	return start + len < start || (below && below->end > start) ||
	       (above && above->start < start + len);
}

int acl_ranges_add(struct acl_ranges *rs, uint64_t start, uint64_t len, void *p)
{
	struct acl_range *n;

	if (acl_ranges_overlap(rs, start, len))
		return -EEXIST;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->start = start;
	n->end = start + len;
	n->p = p;
	n->height = 1;
	rs->root = acl_insert(rs->root, n);
	rs->n++;
	return 0;
}

const struct acl_range *acl_ranges_find(const struct acl_ranges *rs, uint64_t addr)
{
	const struct acl_range *e = acl_nearest(rs, addr, 0);

	return e && addr < e->end ? e : NULL;
}

void *acl_ranges_del(struct acl_ranges *rs, uint64_t start)
{
	struct acl_range *out = NULL;
	void *p;

	rs->root = acl_remove(rs->root, start, &out);
	if (!out)
		return NULL;
	p = out->p;
	free(out);
	rs->n--;
	return p;
}

static void acl_walk(const struct acl_range *t, void (*fn)(const struct acl_range *r, void *arg),
		     void *arg)
{
	for (; t; t = t->child[1]) {
		acl_walk(t->child[0], fn, arg);
		fn(t, arg);
	}
}

void acl_ranges_walk(const struct acl_ranges *rs, void (*fn)(const struct acl_range *r, void *arg),
		     void *arg)
{
	acl_walk(rs->root, fn, arg);
}

struct acl_each {
	void (*fn)(void *p, void *arg);
	void *arg;
};

static void acl_each_one(const struct acl_range *r, void *arg)
{
	const struct acl_each *e = arg;

	e->fn(r->p, e->arg);
}

void acl_ranges_each(const struct acl_ranges *rs, void (*fn)(void *p, void *arg), void *arg)
{
	struct acl_each e = { fn, arg };

	acl_walk(rs->root, acl_each_one, &e);
}

static void acl_free_tree(struct acl_range *t)
{
	while (t) {
		struct acl_range *next = t->child[1];

		acl_free_tree(t->child[0]);
		free(t);
		t = next;
	}
}

static bool acl_region_is_host(const struct acl_region *r)
{
	return r->kind == ACL_REGION_HOST_ALLOC || r->kind == ACL_REGION_HOST_REG ||
	       r->kind == ACL_REGION_INTERNAL;
}

int acl_region_add(struct acl_regions *rs, struct acl_region *r)
{
	int ret;

	if (!acl_region_is_host(r))
		return acl_ranges_add(&rs->va, r->addr, r->len, r);
	ret = acl_ranges_add(&rs->host, r->addr, r->len, r);
	if (!ret && r->dev_va) {
		ret = acl_ranges_add(&rs->va, r->dev_va, r->dev_va_len, r);
		if (ret)
			acl_ranges_del(&rs->host, r->addr);
	}
	return ret;
}

void acl_region_del(struct acl_regions *rs, struct acl_region *r)
{
	if (!acl_region_is_host(r)) {
		acl_ranges_del(&rs->va, r->addr);
		return;
	}
	acl_ranges_del(&rs->host, r->addr);
	if (r->dev_va)
		acl_ranges_del(&rs->va, r->dev_va);
}

struct acl_region *acl_region_at(const struct acl_regions *rs, uint64_t addr, int kind)
{
	const struct acl_range *e = acl_ranges_find(&rs->host, addr);
	struct acl_region *r = e ? e->p : NULL;

	if (!r || r->addr != addr) {
		e = acl_ranges_find(&rs->va, addr);
		r = e ? e->p : NULL;
	}
	/* a mapped host region's device VA is no start of the region */
	if (!r || r->addr != addr || (kind >= 0 && (int)r->kind != kind))
		return NULL;
	return r;
}

struct acl_region *acl_region_host(const struct acl_regions *rs, uint64_t addr)
{
	const struct acl_range *e = acl_ranges_find(&rs->host, addr);

	return e ? e->p : NULL;
}

struct acl_region *acl_region_va(const struct acl_regions *rs, uint64_t addr, uint64_t *base,
				 uint64_t *len)
{
	const struct acl_range *e = acl_ranges_find(&rs->va, addr);

	if (!e)
		return NULL;
	*base = e->start;
	*len = e->end - e->start;
	return e->p;
}

struct acl_region_walk {
	void (*fn)(struct acl_region *r, void *arg);
	void *arg;
};

/* a mapped host region is in both indexes: once is enough */
static void acl_region_walk_va(void *p, void *arg)
{
	struct acl_region_walk *w = arg;

	if (!acl_region_is_host(p))
		w->fn(p, w->arg);
}

static void acl_region_walk_host(void *p, void *arg)
{
	struct acl_region_walk *w = arg;

	w->fn(p, w->arg);
}

void acl_regions_each(const struct acl_regions *rs, void (*fn)(struct acl_region *r, void *arg),
		      void *arg)
{
	struct acl_region_walk w = { fn, arg };

	/* the host index last: @fn may free what it calls */
	acl_ranges_each(&rs->va, acl_region_walk_va, &w);
	acl_ranges_each(&rs->host, acl_region_walk_host, &w);
}

void acl_regions_clear(struct acl_regions *rs, void (*fn)(struct acl_region *r, void *arg),
		       void *arg)
{
	acl_regions_each(rs, fn, arg);
	acl_free_tree(rs->host.root);
	acl_free_tree(rs->va.root);
	acl_free_tree(rs->maps.root);
	acl_free_tree(rs->cpu.root);
	*rs = (struct acl_regions){ .host = { NULL, 0 } };
}
