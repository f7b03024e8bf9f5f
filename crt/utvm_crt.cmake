# utvm-build C runtime: CMake integration (target-scoped; never touches global flags).
#
#   include(<crt>/utvm_crt.cmake)
#   utvm_crt_add_library(<target> [CONFIG_DIR <dir with crt_config.h>] [HOST_PLATFORM])
#
# Creates the static library <target> (the runtime; PUBLIC include dirs: crt/include and
# CONFIG_DIR, default crt/config). With HOST_PLATFORM also <target>_host, the POSIX
# implementation of the platform hooks (tests, host runs); firmware supplies its own hooks.
include_guard(GLOBAL)

set(UTVM_CRT_DIR "${CMAKE_CURRENT_LIST_DIR}")
set(UTVM_CRT_SOURCES
    "${UTVM_CRT_DIR}/src/crt_string.c"
    "${UTVM_CRT_DIR}/src/error.c"
    "${UTVM_CRT_DIR}/src/func_registry.c"
    "${UTVM_CRT_DIR}/src/module.c"
    "${UTVM_CRT_DIR}/src/crt_backend_api.c"
    "${UTVM_CRT_DIR}/src/stack_allocator.c"
    "${UTVM_CRT_DIR}/src/tensor_args.c"
    "${UTVM_CRT_DIR}/src/rpc_server.c"     # linked only by a firmware that calls TVMRpcServer_*
    "${UTVM_CRT_DIR}/src/rpc_framing.c")
set(UTVM_CRT_HOST_SOURCES "${UTVM_CRT_DIR}/src/platform_host.c")

function(_utvm_crt_setup_target target config_dir)
  target_include_directories(${target} PUBLIC "${UTVM_CRT_DIR}/include" "${config_dir}")
  target_include_directories(${target} PRIVATE "${UTVM_CRT_DIR}/src")
  set_target_properties(${target} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON
                                             C_EXTENSIONS OFF)
  if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -pedantic)
  endif()
endfunction()

function(utvm_crt_add_library target)
  cmake_parse_arguments(ARG "HOST_PLATFORM" "CONFIG_DIR" "" ${ARGN})
  if(NOT ARG_CONFIG_DIR)
    set(ARG_CONFIG_DIR "${UTVM_CRT_DIR}/config")
  endif()
  get_filename_component(config_dir "${ARG_CONFIG_DIR}" ABSOLUTE)
  if(NOT EXISTS "${config_dir}/crt_config.h")
    message(FATAL_ERROR "utvm_crt_add_library(${target}): no crt_config.h in ${config_dir}")
  endif()
  add_library(${target} STATIC ${UTVM_CRT_SOURCES})
  _utvm_crt_setup_target(${target} "${config_dir}")
  if(ARG_HOST_PLATFORM)
    add_library(${target}_host STATIC ${UTVM_CRT_HOST_SOURCES})
    _utvm_crt_setup_target(${target}_host "${config_dir}")
  endif()
endfunction()
