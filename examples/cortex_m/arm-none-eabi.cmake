# Toolchain file: bare-metal Arm Cortex-M with the GNU Arm Embedded toolchain (arm-none-eabi-gcc).
#
#   cmake -S examples/cortex_m -B build/m4  --toolchain $PWD/examples/cortex_m/arm-none-eabi.cmake
#   cmake -S examples/cortex_m -B build/m55 --toolchain $PWD/examples/cortex_m/arm-none-eabi.cmake -DCORTEX_M_CPU=cortex-m55
#
# CORTEX_M_CPU: cortex-m4 (default; hard float, FPv4-SP), cortex-m55 (hard float, MVE) or
# cortex-m0 (Armv6-M, soft float: QEMU's microbit board, the portable kernels).
# Programs (python3, qemu) always come from the host; libraries, headers and packages only from
# the toolchain's sysroot. utvm_build is still found: the project sets utvm_build_DIR explicitly.

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CORTEX_M_CPU "cortex-m4" CACHE STRING "Target CPU: cortex-m4, cortex-m55 or cortex-m0")
set_property(CACHE CORTEX_M_CPU PROPERTY STRINGS cortex-m4 cortex-m55 cortex-m0)
# try_compile() projects re-read this file: give them the same CPU.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CORTEX_M_CPU)

if(CORTEX_M_CPU STREQUAL "cortex-m4")
  set(_cpu_flags "-mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16")
elseif(CORTEX_M_CPU STREQUAL "cortex-m55")
  set(_cpu_flags "-mcpu=cortex-m55 -mfloat-abi=hard")
elseif(CORTEX_M_CPU STREQUAL "cortex-m0")
  set(_cpu_flags "-mcpu=cortex-m0 -mfloat-abi=soft")
else()
  message(FATAL_ERROR "CORTEX_M_CPU must be cortex-m4, cortex-m55 or cortex-m0, not '${CORTEX_M_CPU}'")
endif()

find_program(CMAKE_C_COMPILER arm-none-eabi-gcc REQUIRED)
find_program(CMAKE_ASM_COMPILER arm-none-eabi-gcc REQUIRED)
set(CMAKE_C_FLAGS_INIT "-mthumb ${_cpu_flags} -ffunction-sections -fdata-sections")
set(CMAKE_ASM_FLAGS_INIT "-mthumb ${_cpu_flags}")
# Our own startup code, newlib-nano only for memcpy/memset.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-nostartfiles --specs=nano.specs -Wl,--gc-sections")
# The compiler checks cannot link without a linker script.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
unset(_cpu_flags)

execute_process(COMMAND "${CMAKE_C_COMPILER}" -print-sysroot OUTPUT_VARIABLE _sysroot
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(_sysroot)
  set(CMAKE_FIND_ROOT_PATH "${_sysroot}")
endif()
unset(_sysroot)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
