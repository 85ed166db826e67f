// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of a context's object table (kernel/npu_obj.c): typed ids,
 * the type kept in two marks and a pointer tag, retyping, removal by type.
 *
 * Built only against a kernel with CONFIG_KUNIT=y (the bench's debug
 * kernel) as npu_obj_kunit.ko, which links its own copy of npu_obj.o.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "npu_obj.h"

/* Objects as the table sees them: addresses, at least 4-byte aligned. */
struct obj {
	u64 payload;
};

static void npu_obj_test_get(void *obj)
{
	struct obj *o = obj;

	o->payload++;
}

/* Every type, bit 2 of which is the pointer tag, is found as itself only. */
static void npu_obj_types(struct kunit *test)
{
	struct npu_objs objs;
	struct obj o[NPU_OBJ_TYPES] = {};
	enum npu_obj_type t, seen;
	u32 id[NPU_OBJ_TYPES];

	npu_objs_init(&objs);
	for (t = 0; t < NPU_OBJ_TYPES; t++) {
		KUNIT_ASSERT_EQ(test, 0, npu_obj_reserve(&objs, t, &id[t]));
		/* reserved: counted, found by no lookup */
		KUNIT_EXPECT_EQ(test, 1UL, npu_obj_count(&objs, BIT(t)));
		KUNIT_EXPECT_NULL(test, npu_obj_get(&objs, id[t], BIT(t),
						    npu_obj_test_get, NULL));
		npu_obj_publish(&objs, id[t], t, &o[t]);
	}
	for (t = 0; t < NPU_OBJ_TYPES; t++) {
		unsigned long others = (BIT(NPU_OBJ_TYPES) - 1) & ~BIT(t);

		KUNIT_EXPECT_PTR_EQ(test, &o[t],
				    npu_obj_get(&objs, id[t], BIT(t),
						npu_obj_test_get, &seen));
		KUNIT_EXPECT_EQ(test, t, seen);
		KUNIT_EXPECT_EQ(test, 1ULL, o[t].payload);
		KUNIT_EXPECT_NULL(test, npu_obj_get(&objs, id[t], others,
						    npu_obj_test_get, NULL));
		KUNIT_EXPECT_TRUE(test, npu_obj_is(&objs, id[t], &o[t]));
		KUNIT_EXPECT_FALSE(test, npu_obj_is(&objs, id[t], &o[(t + 1) %
							       NPU_OBJ_TYPES]));
	}
	/* removal by type: only the model goes */
	KUNIT_EXPECT_NULL(test, npu_obj_remove(&objs, id[NPU_OBJ_MODEL],
					       NPU_OBJ_STREAMS, NULL, NULL));
	KUNIT_EXPECT_PTR_EQ(test, &o[NPU_OBJ_MODEL],
			    npu_obj_remove(&objs, id[NPU_OBJ_MODEL],
					   BIT(NPU_OBJ_MODEL), NULL, &seen));
	KUNIT_EXPECT_EQ(test, NPU_OBJ_MODEL, seen);
	KUNIT_EXPECT_EQ(test, 0UL, npu_obj_count(&objs, BIT(NPU_OBJ_MODEL)));
	KUNIT_EXPECT_FALSE(test, npu_obj_is(&objs, id[NPU_OBJ_MODEL],
					    &o[NPU_OBJ_MODEL]));
	for (t = 0; t < NPU_OBJ_MODEL; t++)
		KUNIT_EXPECT_PTR_EQ(test, &o[t],
				    npu_obj_remove(&objs, id[t], BIT(t), &o[t],
						   NULL));
	npu_objs_destroy(&objs);
}

/* A retype across the tag bit keeps the object and moves the counts. */
static void npu_obj_retype_tag(struct kunit *test)
{
	struct npu_objs objs;
	struct obj o = {};
	enum npu_obj_type seen;
	u32 id;

	npu_objs_init(&objs);
	KUNIT_ASSERT_EQ(test, 0, npu_obj_reserve(&objs, NPU_OBJ_STREAM, &id));
	npu_obj_publish(&objs, id, NPU_OBJ_STREAM, &o);
	KUNIT_EXPECT_PTR_EQ(test, &o,
			    npu_obj_retype(&objs, id, NPU_OBJ_STREAM,
					   NPU_OBJ_MODEL, npu_obj_test_get));
	KUNIT_EXPECT_EQ(test, 0UL, npu_obj_count(&objs, BIT(NPU_OBJ_STREAM)));
	KUNIT_EXPECT_EQ(test, 1UL, npu_obj_count(&objs, BIT(NPU_OBJ_MODEL)));
	KUNIT_EXPECT_NULL(test, npu_obj_get(&objs, id, NPU_OBJ_STREAMS,
					    npu_obj_test_get, NULL));
	KUNIT_EXPECT_PTR_EQ(test, &o,
			    npu_obj_retype(&objs, id, NPU_OBJ_MODEL,
					   NPU_OBJ_DYING, npu_obj_test_get));
	KUNIT_EXPECT_PTR_EQ(test, &o,
			    npu_obj_get(&objs, id, BIT(NPU_OBJ_DYING),
					npu_obj_test_get, &seen));
	KUNIT_EXPECT_EQ(test, NPU_OBJ_DYING, seen);
	KUNIT_EXPECT_EQ(test, 3ULL, o.payload);
	KUNIT_EXPECT_TRUE(test, npu_obj_is(&objs, id, &o));
	KUNIT_EXPECT_PTR_EQ(test, &o, npu_obj_remove(&objs, id, NPU_OBJ_STREAMS,
						     NULL, NULL));
	npu_objs_destroy(&objs);
}

struct remove_each_arg {
	struct kunit *test;
	unsigned int seen[NPU_OBJ_TYPES];
};

static void npu_obj_test_removed(void *obj, enum npu_obj_type type, void *arg)
{
	struct remove_each_arg *a = arg;
	struct obj *o = obj;

	KUNIT_EXPECT_EQ(a->test, (u64)type, o->payload);
	a->seen[type]++;
}

/* The context's release: every object of the types asked for, with its type. */
static void npu_obj_remove_each_type(struct kunit *test)
{
	struct remove_each_arg a = { .test = test };
	struct obj o[2 * NPU_OBJ_TYPES];
	struct npu_objs objs;
	unsigned int i;
	u32 id;

	npu_objs_init(&objs);
	for (i = 0; i < ARRAY_SIZE(o); i++) {
		enum npu_obj_type t = i % NPU_OBJ_TYPES;

		o[i].payload = t;
		KUNIT_ASSERT_EQ(test, 0, npu_obj_reserve(&objs, t, &id));
		npu_obj_publish(&objs, id, t, &o[i]);
	}
	npu_obj_remove_each(&objs, BIT(NPU_OBJ_MODEL) | BIT(NPU_OBJ_IMPORT),
			    npu_obj_test_removed, &a);
	KUNIT_EXPECT_EQ(test, 2U, a.seen[NPU_OBJ_MODEL]);
	KUNIT_EXPECT_EQ(test, 2U, a.seen[NPU_OBJ_IMPORT]);
	KUNIT_EXPECT_EQ(test, 0U, a.seen[NPU_OBJ_HANDLE]);
	KUNIT_EXPECT_EQ(test, 0UL, npu_obj_count(&objs, BIT(NPU_OBJ_MODEL)));
	KUNIT_EXPECT_EQ(test, 2UL, npu_obj_count(&objs, BIT(NPU_OBJ_HANDLE)));
	npu_obj_remove_each(&objs, BIT(NPU_OBJ_TYPES) - 1, npu_obj_test_removed,
			    &a);
	for (i = 0; i < NPU_OBJ_TYPES; i++)
		KUNIT_EXPECT_EQ(test, 2U, a.seen[i]);
	KUNIT_EXPECT_EQ(test, 0UL, npu_obj_count(&objs, BIT(NPU_OBJ_TYPES) - 1));
	npu_objs_destroy(&objs);
}

static struct kunit_case npu_obj_test_cases[] = {
	KUNIT_CASE(npu_obj_types),
	KUNIT_CASE(npu_obj_retype_tag),
	KUNIT_CASE(npu_obj_remove_each_type),
	{}
};

static struct kunit_suite npu_obj_test_suite = {
	.name = "npu_obj",
	.test_cases = npu_obj_test_cases,
};

kunit_test_suite(npu_obj_test_suite);

MODULE_DESCRIPTION("KUnit tests of the npu context object table");
MODULE_LICENSE("GPL");
