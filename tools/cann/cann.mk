# SPDX-License-Identifier: MIT
# tools/cann/cann.mk - the CANN-shaped part of `make install` (cann-install,
# cann-uninstall), included by the top-level Makefile. With libacl's part
# (lib/lib.mk) it lays out under PREFIX what a project written for CANN
# expects of ASCEND_CANN_PACKAGE_PATH / ASCEND_HOME_PATH:
#
#   bin/npu-cc, bin/setenv.bash                the compiler driver; the
#                                              environment (source it)
#   tikcpp/tikcfw/kernel_operator.h, ...       our Ascend C subset
#   tikcpp/ascendc_kernel_cmake/ascendc.cmake  ascendc_library(),
#                                              ascendc_fatbin_library()
#   lib64/libascendcl.so.1, libacl.so, libascendcl.so, libacl_rt.so,
#   libacl_rt_impl.so                          links to LIBDIR's files,
#                                              unless LIBDIR is lib64
#   include/acl/...                            libacl's headers (INCLUDEDIR,
#                                              which must stay PREFIX/include
#                                              for this layout)
#
# These go under PREFIX whatever BINDIR is: setenv.bash, npu-cc and
# ascendc.cmake find each other and the prefix from where they are.
# `make install-check` (tests/install-check) builds a kernel through the
# installed ascendc.cmake.

CANN_LIB64	:= $(PREFIX)/lib64
CANN_KIT_HDRS	:= kernel_operator.h npu_block.h npu_cc.h npu_fatbin.h

.PHONY: cann-install cann-uninstall

cann-install:
	$(INSTALL) -D -m 755 tools/npu-cc $(DESTDIR)$(PREFIX)/bin/npu-cc
	$(INSTALL) -D -m 644 tools/cann/setenv.bash $(DESTDIR)$(PREFIX)/bin/setenv.bash
	$(INSTALL) -D -m 644 tools/cann/ascendc.cmake \
		$(DESTDIR)$(PREFIX)/tikcpp/ascendc_kernel_cmake/ascendc.cmake
	for h in $(CANN_KIT_HDRS); do \
		$(INSTALL) -D -m 644 include/ascendc/$$h $(DESTDIR)$(PREFIX)/tikcpp/tikcfw/$$h || exit 1; done
	if [ "$(abspath $(LIBDIR))" != "$(abspath $(CANN_LIB64))" ]; then \
		$(INSTALL) -d $(DESTDIR)$(CANN_LIB64) && \
		rel=$$(realpath -m --relative-to=$(CANN_LIB64) $(LIBDIR)) && \
		for n in $(LIB_SONAME) $(LIB_LINKS); do \
			ln -sfn $$rel/$$n $(DESTDIR)$(CANN_LIB64)/$$n || exit 1; done; fi

cann-uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,npu-cc setenv.bash) \
	      $(DESTDIR)$(PREFIX)/tikcpp/ascendc_kernel_cmake/ascendc.cmake \
	      $(addprefix $(DESTDIR)$(PREFIX)/tikcpp/tikcfw/,$(CANN_KIT_HDRS))
	if [ "$(abspath $(LIBDIR))" != "$(abspath $(CANN_LIB64))" ]; then \
		rm -f $(addprefix $(DESTDIR)$(CANN_LIB64)/,$(LIB_SONAME) $(LIB_LINKS)); fi
	for d in $(addprefix $(DESTDIR)$(PREFIX)/,tikcpp/ascendc_kernel_cmake tikcpp/tikcfw tikcpp lib64); do \
		if [ -d $$d ]; then rmdir --ignore-fail-on-non-empty $$d || exit 1; fi; done
