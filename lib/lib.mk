# SPDX-License-Identifier: MIT
# lib/lib.mk - libacl, included by the top-level Makefile.
#
#   make lib        build/lib/libascendcl.so.1, the link names libacl.so,
#                   libascendcl.so and libacl_rt.so, and build/lib/acl.pc
#   make lib-tests  build/tests/lib_*, header_c, header_cxx (TAP programs)
#   make lib-check  the host checks: headers as C and C++, the frozen
#                   exported-symbol list, the layering (at most
#                   LIB_MAX_CYCLES two-file cycles, tools/lib-cycles),
#                   acl.pc, an install into a scratch DESTDIR, and the
#                   library tests (tests that need /dev/npuN skip without it)
#   make lib-install, lib-uninstall   what `make install` / `make uninstall`
#                   do for libacl (DESTDIR, PREFIX, LIBDIR, INCLUDEDIR, DATADIR)
#   make lib-clean
#
# Variables: CC, CXX, PREFIX, LIBDIR, INCLUDEDIR (acl.pc), DATADIR
# (compiled in), DESTDIR, LIB_EXTRA_CFLAGS.

LIB_OUT		?= build/lib
# share/ beside lib/, as an install lays them out: libacl finds its own
# info/runtime/version.info there when run from the build tree.
LIB_SHARE_OUT	?= $(patsubst %/,%,$(dir $(LIB_OUT)))/share
LIB_TEST_OUT	?= build/tests
PREFIX		?= /usr/local
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
DATADIR		?= $(PREFIX)/share
CXX		?= c++
INSTALL		?= install

LIB_VERSION	:= 1.0.0
LIB_SONAME	:= libascendcl.so.1
# Names a program links with (-lacl, -lascendcl, -lacl_rt, -lacl_rt_impl:
# CANN's examples use the last three), each a symlink to the soname, so the
# program records libascendcl.so.1. libacl_rt.so also serves binaries linked
# against CANN's own libacl_rt.so, whose soname is that name.
LIB_LINKS	:= libacl.so libascendcl.so libacl_rt.so libacl_rt_impl.so
LIB_WARN	:= -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
LIB_CFLAGS	:= -std=gnu11 -O2 -g $(LIB_WARN) -fPIC -fvisibility=hidden -pthread \
		   -D_GNU_SOURCE -Iinclude -Ilib $(LIB_EXTRA_CFLAGS)
LIB_SRCS	:= $(wildcard lib/*.c)
LIB_OBJS	:= $(patsubst lib/%.c,$(LIB_OUT)/obj/%.o,$(LIB_SRCS))
ACL_HDRS	:= $(wildcard include/acl/*.h include/acl/error_codes/*.h)
LIB_HDRS	:= $(wildcard lib/*.h) $(ACL_HDRS) include/uapi/npu.h include/ascendc/npu_fatbin.h

LIB_TEST_SRCS	:= $(wildcard tests/lib_*.c)
LIB_TEST_BINS	:= $(patsubst tests/%.c,$(LIB_TEST_OUT)/%,$(LIB_TEST_SRCS)) \
		   $(LIB_TEST_OUT)/header_c $(LIB_TEST_OUT)/header_cxx
LIB_TEST_CFLAGS	:= -std=gnu11 -O1 -g -Wall -Wextra -Werror -pthread -D_GNU_SOURCE \
		   -Iinclude -Itests
LIB_TEST_LDFLAGS := -L$(LIB_OUT) -Wl,-rpath,'$$ORIGIN/../lib' -lacl -pthread

.PHONY: lib lib-tests lib-check lib-check-symbols lib-check-headers lib-check-cycles lib-check-pc \
	lib-check-install lib-install lib-uninstall lib-clean

LIB_VERSION_INFO := $(LIB_SHARE_OUT)/info/runtime/version.info

lib: $(addprefix $(LIB_OUT)/,$(LIB_LINKS)) $(LIB_OUT)/acl.pc $(LIB_VERSION_INFO)

$(LIB_OUT)/obj/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c -o $@ $<

# The install directories are built in: DATADIR and LIB_VERSION into
# version.o (aclsysGetVersion* without ASCEND_HOME_PATH), PREFIX, LIBDIR and
# INCLUDEDIR into acl.pc. The stamp changes only when one of them does.
LIB_DIRS	:= $(PREFIX) $(LIBDIR) $(INCLUDEDIR) $(DATADIR)
$(LIB_OUT)/dirs.stamp: lib-dirs-force
	@mkdir -p $(@D)
	@echo '$(LIB_DIRS)' | cmp -s - $@ || echo '$(LIB_DIRS)' >$@
.PHONY: lib-dirs-force
$(LIB_OUT)/obj/version.o: $(LIB_OUT)/dirs.stamp lib/lib.mk
$(LIB_OUT)/obj/version.o: LIB_CFLAGS += -DACL_DATADIR='"$(DATADIR)"' -DACL_LIB_VERSION='"$(LIB_VERSION)"'

$(LIB_OUT)/$(LIB_SONAME): $(LIB_OBJS) lib/libacl.map
	$(CC) -shared -pthread -Wl,-soname,$(LIB_SONAME) -Wl,--version-script=lib/libacl.map \
		-Wl,-z,defs -Wl,-z,now -Wl,-z,relro -o $@ $(LIB_OBJS)

$(addprefix $(LIB_OUT)/,$(LIB_LINKS)): $(LIB_OUT)/$(LIB_SONAME)
	ln -sfn $(LIB_SONAME) $@

# libdir and includedir relative to ${prefix} when under PREFIX.
$(LIB_OUT)/acl.pc: lib/acl.pc.in lib/lib.mk $(LIB_OUT)/dirs.stamp
	@mkdir -p $(@D)
	sed -e 's|@prefix@|$(PREFIX)|' -e 's|@libdir@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
	    -e 's|@includedir@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' \
	    -e 's|@version@|$(LIB_VERSION)|' $< > $@

# What aclsysGetVersionStr("runtime") answers, from the build tree and
# installed (DATADIR/info/runtime/version.info).
$(LIB_VERSION_INFO): lib/lib.mk
	@mkdir -p $(@D)
	printf 'Version=%s\n' '$(LIB_VERSION)' > $@

lib-tests: $(LIB_TEST_BINS)

# The API tests link as CANN's own examples do, with -lascendcl: every
# aclrt function they call is reached under the vendor's library name.
$(LIB_TEST_OUT)/lib_%: tests/lib_%.c tests/harness.h $(wildcard tests/lib_*.h) $(addprefix $(LIB_OUT)/,$(LIB_LINKS))
	@mkdir -p $(@D)
	$(CC) $(LIB_TEST_CFLAGS) -o $@ $< $(subst -lacl ,-lascendcl ,$(LIB_TEST_LDFLAGS))

# Test kernels through npu-cc, at test-build time: tests/ascendc/lib_T_kern.cpp
# gives $(LIB_TEST_OUT)/lib_T/kern.npubin (a linked device binary, which a
# test embeds with .incbin) and kern.host.o (a host object with its image
# embedded, whose <<<>>> launches load it with aclrtBinaryLoadFromData);
# lib_T_quiet.cpp gives quiet.host.o. The intermediates stay in a
# subdirectory, which the VM's initramfs does not take.
LIB_NPUCC_DEPS	:= tools/npu-cc $(wildcard include/ascendc/*.h)

# The recipe of a linked device binary X.npubin from one source: its device
# object X.dev.o beside it (tools/bench/bench.mk's kernels use it too).
define NPUCC_NPUBIN
	@mkdir -p $(@D)
	tools/npu-cc --aicore-only -Wall -Werror -c $< -o $(@:.npubin=.dev.o)
	tools/npu-cc --link-fatbin -o $@ $(@:.npubin=.dev.o)
endef

$(LIB_TEST_OUT)/lib_%/kern.npubin: tests/ascendc/lib_%_kern.cpp $(LIB_NPUCC_DEPS)
	$(NPUCC_NPUBIN)

$(LIB_TEST_OUT)/lib_%/kern.host.o: tests/ascendc/lib_%_kern.cpp $(LIB_NPUCC_DEPS)
	@mkdir -p $(@D)
	tools/npu-cc -Wall -Werror -O2 -c $< -o $@

$(LIB_TEST_OUT)/lib_%/quiet.host.o: tests/ascendc/lib_%_quiet.cpp $(LIB_NPUCC_DEPS)
	@mkdir -p $(@D)
	tools/npu-cc -Wall -Werror -O2 -c $< -o $@

# lib_binary_test: its binary embedded (written to a file for
# aclrtBinaryLoadFromFile) and its host object linked in.
LIB_BIN_DIR	:= $(LIB_TEST_OUT)/lib_binary
$(LIB_TEST_OUT)/lib_binary_test: tests/lib_binary_test.c tests/harness.h $(wildcard tests/lib_*.h) \
		$(addprefix $(LIB_OUT)/,$(LIB_LINKS)) $(LIB_BIN_DIR)/kern.npubin $(LIB_BIN_DIR)/kern.host.o
	@mkdir -p $(@D)
	$(CC) $(LIB_TEST_CFLAGS) -DLIB_BINARY_NPUBIN='"$(abspath $(LIB_BIN_DIR)/kern.npubin)"' -o $@ $< \
		$(LIB_BIN_DIR)/kern.host.o -ldl $(subst -lacl ,-lascendcl ,$(LIB_TEST_LDFLAGS))

# lib_kargs_test and lib_model_group_test: the lib_kargs binary embedded.
LIB_KARGS_DIR	:= $(LIB_TEST_OUT)/lib_kargs
$(LIB_TEST_OUT)/lib_kargs_test $(LIB_TEST_OUT)/lib_model_group_test: $(LIB_TEST_OUT)/%: tests/%.c tests/harness.h \
		$(wildcard tests/lib_*.h) $(addprefix $(LIB_OUT)/,$(LIB_LINKS)) $(LIB_KARGS_DIR)/kern.npubin
	@mkdir -p $(@D)
	$(CC) $(LIB_TEST_CFLAGS) -DLIB_KARGS_NPUBIN='"$(abspath $(LIB_KARGS_DIR)/kern.npubin)"' -o $@ $< \
		-lpthread $(subst -lacl ,-lascendcl ,$(LIB_TEST_LDFLAGS))

# lib_task_update_test: the lib_task_update binary embedded.
LIB_TASK_UPDATE_DIR	:= $(LIB_TEST_OUT)/lib_task_update
$(LIB_TEST_OUT)/lib_task_update_test: tests/lib_task_update_test.c tests/harness.h $(wildcard tests/lib_*.h) \
		$(addprefix $(LIB_OUT)/,$(LIB_LINKS)) $(LIB_TASK_UPDATE_DIR)/kern.npubin
	@mkdir -p $(@D)
	$(CC) $(LIB_TEST_CFLAGS) -DLIB_TASK_UPDATE_NPUBIN='"$(abspath $(LIB_TASK_UPDATE_DIR)/kern.npubin)"' -o $@ $< \
		-lpthread $(subst -lacl ,-lascendcl ,$(LIB_TEST_LDFLAGS))

# lib_printf_test: host objects of printing kernels (kern) and of none (quiet).
LIB_PRINTF_OBJS	:= $(LIB_TEST_OUT)/lib_printf/kern.host.o $(LIB_TEST_OUT)/lib_printf/quiet.host.o
$(LIB_TEST_OUT)/lib_printf_test: tests/lib_printf_test.c tests/harness.h $(wildcard tests/lib_*.h) \
		$(addprefix $(LIB_OUT)/,$(LIB_LINKS)) $(LIB_PRINTF_OBJS)
	@mkdir -p $(@D)
	$(CC) $(LIB_TEST_CFLAGS) -o $@ $< $(LIB_PRINTF_OBJS) $(subst -lacl ,-lascendcl ,$(LIB_TEST_LDFLAGS))

# The public headers must compile as strict C and C++, with the frozen
# layouts checked by static assertions; the programs just report TAP.
$(LIB_TEST_OUT)/header_c: tests/header_c.c tests/header_checks.h $(ACL_HDRS) $(LIB_OUT)/libacl.so
	@mkdir -p $(@D)
	$(CC) -std=c11 -pedantic-errors -Wall -Wextra -Werror -Iinclude -o $@ $< $(LIB_TEST_LDFLAGS)

$(LIB_TEST_OUT)/header_cxx: tests/header_cxx.cc tests/header_checks.h $(ACL_HDRS) $(LIB_OUT)/libacl.so
	@mkdir -p $(@D)
	$(CXX) -std=c++11 -pedantic-errors -Wall -Wextra -Werror -Iinclude -o $@ $< $(LIB_TEST_LDFLAGS)

lib-check-headers: $(LIB_TEST_OUT)/header_c $(LIB_TEST_OUT)/header_cxx
	$(CC) -std=c99 -pedantic-errors -Wall -Wextra -Werror -Iinclude -fsyntax-only -x c tests/header_c.c -DHEADER_ONLY
	$(CXX) -std=c++98 -Wall -Wextra -Werror -Iinclude -fsyntax-only -x c++ tests/header_cxx.cc -DHEADER_ONLY
	LD_LIBRARY_PATH=$(LIB_OUT) $(LIB_TEST_OUT)/header_c
	LD_LIBRARY_PATH=$(LIB_OUT) $(LIB_TEST_OUT)/header_cxx

# The exported symbols are an ABI: any change must update tests/libacl.symbols.
lib-check-symbols: $(LIB_OUT)/libacl.so
	@nm -D --defined-only $(LIB_OUT)/$(LIB_SONAME) | awk '$$2 != "A" { sub(/@.*/, "", $$3); print $$3 }' | \
		LC_ALL=C sort | diff -u tests/libacl.symbols - && \
		echo "lib-check-symbols: exported symbols match tests/libacl.symbols"
	@test "$$(readelf -d $(LIB_OUT)/$(LIB_SONAME) | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" = $(LIB_SONAME) || \
		{ echo "lib-check-symbols: soname is not $(LIB_SONAME)" >&2; exit 1; }

# The layers (lib/README.md): pairs of files calling each other, counted
# from the objects; more than LIB_MAX_CYCLES fails.
LIB_MAX_CYCLES	:= 5
lib-check-cycles: lib
	@tools/lib-cycles -d $(LIB_OUT)/obj $(LIB_MAX_CYCLES)

# A program finds the library and headers through pkg-config.
lib-check-pc: $(LIB_OUT)/acl.pc
	@test "$$(PKG_CONFIG_PATH=$(LIB_OUT) pkg-config --modversion acl)" = $(LIB_VERSION) && \
	 test "$$(PKG_CONFIG_PATH=$(LIB_OUT) pkg-config --libs acl | xargs)" = "-L$(LIBDIR) -lacl" && \
	 echo "lib-check-pc: acl.pc answers version $(LIB_VERSION), -L$(LIBDIR) -lacl"

# make install into a scratch DESTDIR, pkg-config on the result, a
# program built from it; then the same with a real scratch PREFIX (which
# builds libacl apart, in the scratch directory).
lib-check-install: lib tests/install-check tests/link_names.c $(wildcard man/* udev/* etc/modprobe.d/*)
	@MAKE='$(MAKE)' CC='$(CC)' PREFIX='$(PREFIX)' LIBDIR='$(LIBDIR)' INCLUDEDIR='$(INCLUDEDIR)' \
	 DATADIR='$(DATADIR)' LIB_VERSION='$(LIB_VERSION)' BINDIR='$(BINDIR)' MANDIR='$(MANDIR)' \
	 UDEVRULESDIR='$(UDEVRULESDIR)' MODPROBEDIR='$(MODPROBEDIR)' tests/install-check

# Installs what `make lib` built, for PREFIX (under DESTDIR when set): the
# library and its link names in LIBDIR, acl.pc in LIBDIR/pkgconfig, the
# headers (include/acl/**) in INCLUDEDIR, and the runtime's version.info
# in DATADIR/info/runtime/ (ASCEND_HOME_PATH's layout; ldconfig is not run).
LIB_INSTALL_HDRS := $(ACL_HDRS:include/%=%)

lib-install: lib
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(DATADIR)/info/runtime
	$(INSTALL) -m 755 $(LIB_OUT)/$(LIB_SONAME) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	for n in $(LIB_LINKS); do ln -sfn $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/$$n || exit 1; done
	$(INSTALL) -m 644 $(LIB_OUT)/acl.pc $(DESTDIR)$(LIBDIR)/pkgconfig/acl.pc
	for h in $(LIB_INSTALL_HDRS); do \
		$(INSTALL) -D -m 644 include/$$h $(DESTDIR)$(INCLUDEDIR)/$$h || exit 1; done
	$(INSTALL) -m 644 $(LIB_VERSION_INFO) $(DESTDIR)$(DATADIR)/info/runtime/version.info

# Removes exactly those files, then the directories they leave empty.
lib-uninstall:
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,$(LIB_SONAME) $(LIB_LINKS) pkgconfig/acl.pc) \
	      $(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(LIB_INSTALL_HDRS)) \
	      $(DESTDIR)$(DATADIR)/info/runtime/version.info
	for d in $(addprefix $(DESTDIR)$(INCLUDEDIR)/,acl/error_codes acl) \
		 $(addprefix $(DESTDIR)$(DATADIR)/,info/runtime info); do \
		if [ -d $$d ]; then rmdir --ignore-fail-on-non-empty $$d || exit 1; fi; done

lib-check: lib lib-tests lib-check-headers lib-check-symbols lib-check-cycles lib-check-pc lib-check-install
	@fail=0; for t in $(patsubst tests/%.c,$(LIB_TEST_OUT)/%,$(LIB_TEST_SRCS)); do \
		LD_LIBRARY_PATH=$(LIB_OUT) $$t || fail=1; done; exit $$fail

lib-clean:
	rm -rf $(LIB_OUT) $(LIB_TEST_BINS) $(LIB_VERSION_INFO)
