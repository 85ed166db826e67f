# SPDX-License-Identifier: MIT
# tools/dcmi/dcmi.mk - libdcmi (Documentation/dcmi.rst), included by
# tools/tools.mk:
#
#   make dcmi         build/lib/libdcmi.so.1, its link name libdcmi.so,
#                     build/lib/dcmi.pc (libnl-3, libnl-genl-3)
#   make dcmi-check   host checks: the exported symbols against
#                     tests/libdcmi.symbols, the header as C99 and C++98
#   dcmi-install, dcmi-uninstall   part of make install / uninstall:
#                     the library and link in LIBDIR, dcmi.pc in
#                     LIBDIR/pkgconfig, dcmi_interface_api.h in INCLUDEDIR
#
# pkg-config runs in the recipes, not when make reads this file: on a
# fresh machine `make demo` reads it before tools/install-deps has put
# libnl in place.

DCMI_OUT	?= $(LIB_OUT)
DCMI_VERSION	:= 1.0.0
DCMI_SONAME	:= libdcmi.so.1
DCMI_LIB	:= $(DCMI_OUT)/$(DCMI_SONAME)
DCMI_HDR	:= tools/dcmi/dcmi_interface_api.h
DCMI_SRCS	:= $(wildcard tools/dcmi/*.c) tools/npu_nl.c
DCMI_CFLAGS	:= -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wmissing-prototypes -fPIC -pthread \
		   -D_GNU_SOURCE -DDCMI_LIB_VERSION='"$(DCMI_VERSION)"' -Iinclude -Itools -Itools/dcmi

.PHONY: dcmi dcmi-check dcmi-install dcmi-uninstall
dcmi: $(DCMI_OUT)/libdcmi.so $(DCMI_OUT)/dcmi.pc

$(DCMI_LIB): $(DCMI_SRCS) $(DCMI_HDR) tools/dcmi/dcmi_internal.h tools/npu_nl.h \
	     tools/dcmi/libdcmi.map include/uapi/npu_netlink.h
	@mkdir -p $(@D)
	$(CC) $(DCMI_CFLAGS) $$(pkg-config --cflags libnl-3.0 libnl-genl-3.0) -shared \
		-Wl,-soname,$(DCMI_SONAME) -Wl,--version-script=tools/dcmi/libdcmi.map \
		-Wl,-z,defs -Wl,-z,now -Wl,-z,relro -o $@ $(DCMI_SRCS) \
		$$(pkg-config --libs libnl-3.0 libnl-genl-3.0)

$(DCMI_OUT)/libdcmi.so: $(DCMI_LIB)
	ln -sfn $(DCMI_SONAME) $@

$(DCMI_OUT)/dcmi.pc: tools/dcmi/dcmi.pc.in tools/dcmi/dcmi.mk $(LIB_OUT)/dirs.stamp
	@mkdir -p $(@D)
	sed -e 's|@prefix@|$(PREFIX)|' -e 's|@libdir@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|' \
	    -e 's|@includedir@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|' \
	    -e 's|@version@|$(DCMI_VERSION)|' $< > $@

# The test program links with -ldcmi and includes the header as a DCMI
# program does (tests/dcmi_api_test.c).
$(TEST_OUT)/dcmi_api_test: $(DCMI_OUT)/libdcmi.so
$(TEST_OUT)/dcmi_api_test: TEST_CFLAGS += -Itools/dcmi
$(TEST_OUT)/dcmi_api_test: TEST_LDLIBS += -L$(DCMI_OUT) -ldcmi

# The exported symbols are an ABI; the header is C99, C++98 and C++11.
dcmi-check: dcmi
	@nm -D --defined-only $(DCMI_LIB) | awk '$$2 != "A" { print $$3 }' | LC_ALL=C sort | \
		diff -u tests/libdcmi.symbols - && \
		echo "dcmi-check: exported symbols match tests/libdcmi.symbols"
	@printf '#include "dcmi_interface_api.h"\nint main(void) { return dcmi_init() == DCMI_OK ? 0 : 1; }\n' | \
		$(CC) -std=c99 -pedantic-errors -Wall -Wextra -Werror -Itools/dcmi -fsyntax-only -x c -
	@printf '#include "dcmi_interface_api.h"\nint main() { return dcmi_init() == DCMI_OK ? 0 : 1; }\n' | \
		$(CXX) -std=c++98 -Wall -Wextra -Werror -Itools/dcmi -fsyntax-only -x c++ -
	@printf '#include "dcmi_interface_api.h"\nint main() { return dcmi_init() == DCMI_OK ? 0 : 1; }\n' | \
		$(CXX) -std=c++11 -pedantic-errors -Wall -Wextra -Werror -Itools/dcmi -fsyntax-only -x c++ -
	@echo "dcmi-check: dcmi_interface_api.h is C99, C++98 (long long as the vendor's) and C++11"
lib-check: dcmi-check

dcmi-install: dcmi
	$(INSTALL) -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	$(INSTALL) -m 755 $(DCMI_LIB) $(DESTDIR)$(LIBDIR)/$(DCMI_SONAME)
	ln -sfn $(DCMI_SONAME) $(DESTDIR)$(LIBDIR)/libdcmi.so
	$(INSTALL) -m 644 $(DCMI_OUT)/dcmi.pc $(DESTDIR)$(LIBDIR)/pkgconfig/dcmi.pc
	$(INSTALL) -m 644 $(DCMI_HDR) $(DESTDIR)$(INCLUDEDIR)/dcmi_interface_api.h

dcmi-uninstall:
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,$(DCMI_SONAME) libdcmi.so pkgconfig/dcmi.pc) \
	      $(DESTDIR)$(INCLUDEDIR)/dcmi_interface_api.h
