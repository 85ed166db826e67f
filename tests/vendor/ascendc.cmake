# SPDX-License-Identifier: MIT
#
# tests/vendor/ascendc.cmake - our stand-in for CANN's ascendc.cmake, which
# the vendor's runtime examples include from $ASCENDC_CMAKE_DIR to build
# their device kernels (tools/vendor-examples points it here).
#
#   ascendc_library(<name> STATIC|SHARED <kernel source>...)
#
# The simulated chip runs no AI-core code yet, so the kernel sources are
# not compiled: each must be one of the vendor's example/kernel_func/ files
# that tests/vendor/kernel_standins.cpp stands in for, and the library is
# that file built with the matching NPU_STANDIN_* macros. Like CANN's
# kernel libraries it brings the runtime along: the include directory and
# libascendcl of ASCEND_CANN_PACKAGE_PATH are part of its interface, so an
# example that links only the kernels library links libacl.

include_guard(GLOBAL)

set(NPU_STANDIN_SOURCE "${CMAKE_CURRENT_LIST_DIR}/kernel_standins.cpp")

function(ascendc_library name type)
	if(NOT type MATCHES "^(STATIC|SHARED)$")
		message(FATAL_ERROR "ascendc_library(${name}): type must be STATIC or SHARED, not '${type}'")
	endif()
	if(NOT ARGN)
		message(FATAL_ERROR "ascendc_library(${name}): no kernel sources")
	endif()
	if(NOT ASCEND_CANN_PACKAGE_PATH)
		message(FATAL_ERROR "ascendc_library(${name}): ASCEND_CANN_PACKAGE_PATH is not set")
	endif()
	set(defs "")
	foreach(src IN LISTS ARGN)
		get_filename_component(path "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
		if(NOT EXISTS "${path}")
			message(FATAL_ERROR "ascendc_library(${name}): kernel source ${src} does not exist")
		endif()
		get_filename_component(file "${src}" NAME)
		if(file STREQUAL "easy_OP.cpp")
			list(APPEND defs NPU_STANDIN_EASY_OP)
		elseif(file STREQUAL "error_OP.cpp")
			list(APPEND defs NPU_STANDIN_ERROR_OP)
		elseif(file STREQUAL "long_OP.cpp")
			list(APPEND defs NPU_STANDIN_LONG_OP)
		elseif(file STREQUAL "short_OP.cpp")
			list(APPEND defs NPU_STANDIN_SHORT_OP)
		elseif(file STREQUAL "write_read_value.cpp")
			list(APPEND defs NPU_STANDIN_WRITE_READ_VALUE)
		elseif(file STREQUAL "kernel_print.cpp")
			list(APPEND defs NPU_STANDIN_KERNEL_PRINT)
		else()
			message(FATAL_ERROR "ascendc_library(${name}): no host stand-in for kernel source ${src} "
					    "(tests/vendor/kernel_standins.cpp)")
		endif()
	endforeach()
	list(REMOVE_DUPLICATES defs)

	add_library(${name} ${type} "${NPU_STANDIN_SOURCE}")
	target_compile_definitions(${name} PRIVATE ${defs})
	target_compile_options(${name} PRIVATE -Wall -Wextra -Werror)
	set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
	target_include_directories(${name} PUBLIC "${ASCEND_CANN_PACKAGE_PATH}/include")
	target_link_libraries(${name} PUBLIC "${ASCEND_CANN_PACKAGE_PATH}/lib64/libascendcl.so")
endfunction()
