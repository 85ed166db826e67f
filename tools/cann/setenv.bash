# SPDX-License-Identifier: MIT
#
# <prefix>/bin/setenv.bash - source it (`source <prefix>/bin/setenv.bash`)
# for the environment a CANN project expects from npu installed in
# <prefix> (tools/cann/cann.mk): the package path, the Ascend C CMake
# directory, the chip kernels are built for, the libraries and tools.
# Sourcing it again changes nothing.

_npu_prefix=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export ASCEND_HOME_PATH="$_npu_prefix"
export ASCEND_INSTALL_PATH="$_npu_prefix"
export ASCEND_TOOLKIT_HOME="$_npu_prefix"
export ASCENDC_CMAKE_DIR="$_npu_prefix/tikcpp/ascendc_kernel_cmake"
# the class of the default simulated chip (aclrtCheckArchCompatibility
# decides which devices a binary built for it runs on)
export SOC_VERSION="${SOC_VERSION:-Ascend910B1}"
case ":${LD_LIBRARY_PATH:-}:" in
*":$_npu_prefix/lib64:"*) ;;
*) export LD_LIBRARY_PATH="$_npu_prefix/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
esac
case ":$PATH:" in
*":$_npu_prefix/bin:"*) ;;
*) export PATH="$_npu_prefix/bin:$PATH" ;;
esac
unset _npu_prefix
