# SPDX-License-Identifier: GPL-2.0
# tests/tests.mk - every tests/*.c is one test program, build/tests/<name>,
# built against include/ and tests/harness.h, and linked with -lacl from
# build/lib when libacl exists (lib/lib.mk). tests/lib_*.c and
# tests/header_*.c are built by lib/lib.mk (make lib-tests), which
# `make tests` includes; tests/link_*.c by the rules at the end.

TEST_OUT	?= $(BUILD)/tests
TEST_SRCS	:= $(filter-out tests/lib_%.c tests/header_%.c tests/link_%.c,$(wildcard tests/*.c))
TEST_BINS	:= $(patsubst tests/%.c,$(TEST_OUT)/%,$(TEST_SRCS))
TEST_CFLAGS	:= -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -pthread \
		   -Iinclude -Itests $(TEST_EXTRA_CFLAGS)
TEST_HDRS	:= $(wildcard tests/*.h include/acl/*.h include/acl/error_codes/*.h include/uapi/*.h)

ifneq ($(wildcard lib/lib.mk),)
TEST_LIB_DEP	:= $(LIB_OUT)/libacl.so
TEST_LDLIBS	:= -L$(LIB_OUT) -Wl,-rpath,'$$ORIGIN/../lib' -lacl -pthread -lm
TEST_EXTRA	:= lib-tests link-tests
else
TEST_LIB_DEP	:=
TEST_LDLIBS	:= -pthread -lm
TEST_EXTRA	:=
endif

.PHONY: tests
tests: $(TEST_BINS) $(TEST_EXTRA)

$(TEST_BINS): $(TEST_OUT)/%: tests/%.c $(TEST_HDRS) $(TEST_LIB_DEP)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -o $@ $< $(TEST_LDLIBS)

ifneq ($(wildcard lib/lib.mk),)
# libacl under the names programs link with: tests/link_names.c linked with
# -lascendcl and with -lacl_rt (the binaries need libascendcl.so.1), and against
# a stub libacl_rt.so (soname libacl_rt.so, kept out of build/tests) so that
# the binary needs libacl_rt.so as one linked against CANN's libraries
# does; at run time each finds libacl. `make lib-check` runs them too.
LINK_BINS	:= $(addprefix $(TEST_OUT)/link_,ascendcl_test acl_rt_test needed_acl_rt_test)
LINK_STUB	:= $(BUILD)/stub/libacl_rt.so
LINK_RPATH	:= -Wl,-rpath,'$$ORIGIN/../lib'

.PHONY: link-tests lib-check-links
link-tests: $(LINK_BINS)

$(LINK_STUB): tests/link_stub.c
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -shared -fPIC -Wl,-soname,libacl_rt.so -o $@ $<

$(TEST_OUT)/link_ascendcl_test: tests/link_names.c $(TEST_HDRS) $(LIB_OUT)/libascendcl.so
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -DLINK_OBJECT='"libascendcl.so.1"' -o $@ $< -L$(LIB_OUT) $(LINK_RPATH) -lascendcl -pthread

$(TEST_OUT)/link_acl_rt_test: tests/link_names.c $(TEST_HDRS) $(LIB_OUT)/libacl_rt.so
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -DLINK_OBJECT='"libascendcl.so.1"' -o $@ $< -L$(LIB_OUT) $(LINK_RPATH) -lacl_rt -pthread

$(TEST_OUT)/link_needed_acl_rt_test: tests/link_names.c $(TEST_HDRS) $(LINK_STUB) $(LIB_OUT)/libacl_rt.so
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -DLINK_OBJECT='"libacl_rt.so"' -o $@ $< -L$(dir $(LINK_STUB)) $(LINK_RPATH) -lacl_rt -pthread

# The NEEDED entries are what each build is about; then each runs on libacl.
lib-check-links: $(LINK_BINS)
	@for t in $(LINK_BINS); do \
		need=$$(readelf -d $$t | sed -n 's/.*(NEEDED).*\[\(lib\(acl\|ascendcl\)[^]]*\)\]/\1/p'); \
		case $$t in *needed_acl_rt*) want=libacl_rt.so ;; *) want=libascendcl.so.1 ;; esac; \
		[ "$$need" = "$$want" ] || { echo "lib-check-links: $$t needs '$$need', not $$want" >&2; exit 1; }; \
		LD_LIBRARY_PATH= $$t || exit 1; \
	done
lib-check: lib-check-links
endif

# The vendor's runtime examples, each built with its own CMakeLists.txt
# against include/ and build/lib into build/tests/vendor/NAME/, for
# tests/vendor_examples_test.c in the VM (tools/vendor-examples; make check
# runs it). Fails when an example does not build; no vendor tree is a skip.
.PHONY: vendor-examples
vendor-examples: lib
	@tools/vendor-examples

# libdrm (vgem: PRIME import, dumb buffers) only for the dma-buf tests.
DRM_CFLAGS	:= $(shell pkg-config --cflags libdrm 2>/dev/null)
DRM_LIBS	:= $(shell pkg-config --libs libdrm 2>/dev/null)
$(TEST_OUT)/npu_dmabuf_test $(TEST_OUT)/npu_dmabuf_import_test: TEST_CFLAGS += $(DRM_CFLAGS)
$(TEST_OUT)/npu_dmabuf_test $(TEST_OUT)/npu_dmabuf_import_test: TEST_LDLIBS += $(DRM_LIBS)

# The device binary tests/npu_aicore_test.c runs in npu-aicore: our test
# kernels through npu-cc (--aicore-only, then --link-fatbin), embedded in
# the test (.incbin). It stays in a subdirectory, which the VM's
# initramfs does not take (run-tests runs every program in /tests).
AICORE_KERNEL_SRCS := $(wildcard tests/ascendc/*_kernels.cpp)
AICORE_KERNELS	:= $(TEST_OUT)/aicore/kernels.npubin
$(AICORE_KERNELS): $(AICORE_KERNEL_SRCS) tools/npu-cc $(wildcard include/ascendc/*.h)
	@mkdir -p $(@D)
	for s in $(AICORE_KERNEL_SRCS); do \
		tools/npu-cc --aicore-only -O2 -c $$s -o $(@D)/$$(basename $$s .cpp).o || exit 1; done
	tools/npu-cc --link-fatbin -o $@ $(patsubst tests/ascendc/%.cpp,$(@D)/%.o,$(AICORE_KERNEL_SRCS))
$(TEST_OUT)/npu_aicore_test: $(AICORE_KERNELS)
$(TEST_OUT)/npu_aicore_test: TEST_CFLAGS += -DAICORE_KERNELS='"$(abspath $(AICORE_KERNELS))"'
