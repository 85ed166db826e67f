# SPDX-License-Identifier: MIT
#
# ascendc.cmake - npu's CANN-shaped CMake support for AI-core kernels,
# installed as <prefix>/tikcpp/ascendc_kernel_cmake/ascendc.cmake (the
# directory bin/setenv.bash exports as ASCENDC_CMAKE_DIR). A project
# written for CANN includes it unchanged:
#
#   include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)
#   ascendc_library(<name> STATIC|SHARED <kernel source>...)
#       a library of host objects: each source's kernels are built for the
#       simulated AI cores and embedded, and `kernel<<<blockDim, l2ctrl,
#       stream>>>(args)` launches them. Its users get the runtime's
#       include directory and libascendcl with it.
#   ascendc_fatbin_library(<name> <kernel source>...)
#       a device binary, ${CMAKE_INSTALL_PREFIX}/fatbin/<name>/<name>.o,
#       linked at build time, for aclrtBinaryLoadFromFile.
#   ascendc_compile_definitions(<target> ...), ascendc_compile_options(...),
#   ascendc_include_directories(...): as target_compile_definitions and
#       friends, for a kernel target.
#
# Every kernel source is compiled through <prefix>/bin/npu-cc, as the
# target's CXX compiler launcher; SOC_VERSION (the CMake variable, else the
# environment's) names the chip the device binaries are built for. The
# runtime comes from ASCEND_CANN_PACKAGE_PATH when the project sets it,
# else from this prefix.

include_guard(GLOBAL)
include(GNUInstallDirs)

get_filename_component(NPU_CANN_PREFIX "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
set(NPU_CC "${NPU_CANN_PREFIX}/bin/npu-cc")
if(NOT EXISTS "${NPU_CC}")
	message(FATAL_ERROR "ascendc.cmake: no npu-cc at ${NPU_CC} (is this file in <prefix>/tikcpp/ascendc_kernel_cmake?)")
endif()

function(_npu_runtime_prefix out)
	if(ASCEND_CANN_PACKAGE_PATH)
		set(${out} "${ASCEND_CANN_PACKAGE_PATH}" PARENT_SCOPE)
	else()
		set(${out} "${NPU_CANN_PREFIX}" PARENT_SCOPE)
	endif()
endfunction()

function(_npu_soc_flag out)
	set(soc "${SOC_VERSION}")
	if(NOT soc)
		set(soc "$ENV{SOC_VERSION}")
	endif()
	if(soc)
		set(${out} "--soc-version=${soc}" PARENT_SCOPE)
	else()
		set(${out} "" PARENT_SCOPE)
	endif()
endfunction()

# A target whose C++ sources npu-cc compiles.
function(_npu_kernel_target fn name)
	if(NOT ARGN)
		message(FATAL_ERROR "${fn}(${name}): no kernel sources")
	endif()
	foreach(src IN LISTS ARGN)
		get_filename_component(path "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
		if(NOT EXISTS "${path}")
			message(FATAL_ERROR "${fn}(${name}): kernel source ${src} does not exist")
		endif()
	endforeach()
	_npu_soc_flag(soc)
	set_target_properties(${name} PROPERTIES
		CXX_COMPILER_LAUNCHER "${NPU_CC}"
		POSITION_INDEPENDENT_CODE ON)
	set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CXX)
	if(soc)
		target_compile_options(${name} PRIVATE "${soc}")
	endif()
endfunction()

function(ascendc_library name type)
	if(NOT type MATCHES "^(STATIC|SHARED)$")
		message(FATAL_ERROR "ascendc_library(${name}): type must be STATIC or SHARED, not '${type}'")
	endif()
	add_library(${name} ${type} ${ARGN})
	_npu_kernel_target(ascendc_library ${name} ${ARGN})
	_npu_runtime_prefix(rt)
	target_include_directories(${name} PUBLIC "${rt}/include")
	target_link_libraries(${name} PUBLIC "${rt}/lib64/libascendcl.so")
	install(TARGETS ${name}
		LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
		ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
		RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()

function(ascendc_fatbin_library name)
	add_library(${name} OBJECT ${ARGN})
	_npu_kernel_target(ascendc_fatbin_library ${name} ${ARGN})
	target_compile_options(${name} PRIVATE --aicore-only)
	_npu_soc_flag(soc)
	set(dir "${CMAKE_INSTALL_PREFIX}/fatbin/${name}")
	set(out "${dir}/${name}.o")
	add_custom_command(OUTPUT "${out}"
		COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
		COMMAND "${NPU_CC}" ${soc} --link-fatbin -o "${out}" "$<TARGET_OBJECTS:${name}>"
		DEPENDS "$<TARGET_OBJECTS:${name}>"
		COMMAND_EXPAND_LISTS VERBATIM
		COMMENT "npu-cc: linking device binary ${out}")
	add_custom_target(${name}_fatbin ALL DEPENDS "${out}")
endfunction()

function(ascendc_compile_definitions name)
	target_compile_definitions(${name} ${ARGN})
endfunction()

function(ascendc_compile_options name)
	target_compile_options(${name} ${ARGN})
endfunction()

function(ascendc_include_directories name)
	target_include_directories(${name} ${ARGN})
endfunction()
