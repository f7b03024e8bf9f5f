# utvm_build CMake functions: utvm_add_model(), utvm_add_models() and utvm_add_crt(). Included by
# utvm_buildConfig.cmake, which sets the global properties UTVM_BUILD_PYTHON, UTVM_BUILD_VERSION,
# UTVM_BUILD_PACKAGE_DIR and UTVM_BUILD_CRT_DIR. See docs/cmake.md.
#
# Rules kept here: functions only add to the targets they create (no global flags, no global
# include directories); code generation runs at configure time with the host Python; files are
# rewritten only when their content changes, so a no-op reconfigure recompiles nothing.

include_guard(GLOBAL)
# Functions record the policies in effect where they are defined: use ours, not the caller's.
cmake_policy(PUSH)
cmake_policy(VERSION 3.20)

# _utvm_write_if_changed(<file> <content>): keep the timestamp when the content is unchanged.
function(_utvm_write_if_changed file content)
  if(EXISTS "${file}")
    file(READ "${file}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${file}" "${content}")
endfunction()

# _utvm_flags_from(<fn> <target>...): the runtime and the system library take the usage
# requirements (compile options, definitions, include directories, link options) of these targets,
# as every model that names them does: firmware builds keep their CPU/ABI flags on an interface
# target (Zephyr's zephyr_interface, a project's cpu_flags), not in CMAKE_C_FLAGS.
function(_utvm_flags_from fn)
  foreach(t IN LISTS ARGN)
    if(NOT TARGET "${t}")
      message(FATAL_ERROR "${fn}: FLAGS_FROM ${t} is not a target (define it before this call)")
    endif()
  endforeach()
  get_property(all GLOBAL PROPERTY UTVM_FLAGS_FROM)
  list(APPEND all ${ARGN})
  list(REMOVE_DUPLICATES all)
  set_property(GLOBAL PROPERTY UTVM_FLAGS_FROM "${all}")
  foreach(lib utvm_crt utvm_crt_host utvm_system_lib)
    if(TARGET ${lib})
      get_target_property(type ${lib} TYPE)
      if(NOT type STREQUAL "INTERFACE_LIBRARY")
        target_link_libraries(${lib} PRIVATE ${ARGN})
      endif()
    endif()
  endforeach()
endfunction()

# _utvm_json_list(<out> <json> <key> <prefix>): the strings of the JSON array <key> (missing: none),
# each with <prefix> in front.
function(_utvm_json_list out json key prefix)
  set(items "")
  string(JSON n ERROR_VARIABLE missing LENGTH "${json}" ${key})
  if(NOT missing AND n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON item GET "${json}" ${key} ${i})
      list(APPEND items "${prefix}${item}")
    endforeach()
  endif()
  set(${out} "${items}" PARENT_SCOPE)
endfunction()

# _utvm_derive_target(<out> <out_from> <flags_from targets>): the kernel target named by the -mcpu=
# of CMAKE_C_FLAGS (and its build type variant) or of the FLAGS_FROM targets' compile options,
# when exactly one known CPU is named there; "" otherwise (the generic kernels).
function(_utvm_derive_target out out_from flags_from)
  set(flags "${CMAKE_C_FLAGS}")
  if(CMAKE_BUILD_TYPE)
    string(TOUPPER "${CMAKE_BUILD_TYPE}" bt)
    string(APPEND flags " ${CMAKE_C_FLAGS_${bt}}")
  endif()
  set(where "CMAKE_C_FLAGS")
  foreach(t IN LISTS flags_from)
    if(TARGET "${t}")
      get_target_property(opts "${t}" INTERFACE_COMPILE_OPTIONS)
      if(opts)
        string(APPEND flags " ${opts}")
        string(APPEND where ", ${t}")
      endif()
    endif()
  endforeach()
  string(REGEX MATCHALL "-mcpu=[a-z0-9.+-]+" found "${flags}")
  set(cpus "")
  foreach(f IN LISTS found)
    string(REGEX REPLACE "^-mcpu=([a-z0-9-]+).*" "\\1" cpu "${f}")   # cortex-m33+nodsp -> cortex-m33
    if(f MATCHES "\\+nodsp")
      set(cpu "")
    endif()
    list(APPEND cpus "${cpu}")
  endforeach()
  list(REMOVE_DUPLICATES cpus)
  set(${out} "" PARENT_SCOPE)
  list(LENGTH cpus n)
  if(n EQUAL 1 AND cpus MATCHES "^cortex-m(0plus|3|4|7|33|55)$")
    set(${out} "${cpus}" PARENT_SCOPE)
    set(${out_from} "-mcpu=${cpus} in ${where}" PARENT_SCOPE)
  endif()
endfunction()

# utvm_add_crt([CONFIG_BASE <crt_config.h>] [FLAGS_FROM <target>...])
#
# Creates the one C runtime of the build: STATIC library `utvm_crt` (alias `utvm::crt`) and the
# host platform hooks, OBJECT library `utvm_crt_host` (alias `utvm::crt_host`, POSIX; firmware
# supplies its own).
# Both are EXCLUDE_FROM_ALL: they are compiled only when something links them. The runtime is
# compiled with one crt_config.h generated in the build directory: every value is the maximum
# over CONFIG_BASE (default: the CRT's config/crt_config.h) and the crt_config.h of every model
# added with utvm_add_model() in this build. utvm_add_model() calls utvm_add_crt() on first use;
# call it yourself (once, before the first model) only to pass CONFIG_BASE.
function(utvm_add_crt)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "CONFIG_BASE" "FLAGS_FROM")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "utvm_add_crt: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(TARGET utvm_crt)
    message(FATAL_ERROR "utvm_add_crt: the C runtime of this build already exists (one per build; "
                        "utvm_add_model() creates it on first use). Call utvm_add_crt() once, before the first "
                        "utvm_add_model().")
  endif()
  get_property(crt GLOBAL PROPERTY UTVM_BUILD_CRT_DIR)
  if(NOT crt OR NOT EXISTS "${crt}/include/tvm/runtime/c_runtime_api.h")
    # An installation without the runtime sources: models with the "c" interface need none.
    add_library(utvm_crt INTERFACE)
    add_library(utvm::crt ALIAS utvm_crt)
    set_target_properties(utvm_crt PROPERTIES UTVM_CRT_MISSING TRUE)
    return()
  endif()
  if(ARG_CONFIG_BASE)
    get_filename_component(base "${ARG_CONFIG_BASE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  else()
    set(base "${crt}/config/crt_config.h")
  endif()
  if(NOT EXISTS "${base}")
    message(FATAL_ERROR "utvm_add_crt: CONFIG_BASE ${base} does not exist")
  endif()

  # The runtime sources shipped with the package (the platform hooks are separate).
  file(GLOB sources LIST_DIRECTORIES false "${crt}/src/*.c")
  list(FILTER sources EXCLUDE REGEX "/platform_[^/]*\\.c$")
  list(SORT sources)
  set(config_dir "${CMAKE_BINARY_DIR}/utvm_crt_config")

  add_library(utvm_crt STATIC EXCLUDE_FROM_ALL ${sources})
  add_library(utvm::crt ALIAS utvm_crt)
  target_include_directories(utvm_crt PUBLIC "${config_dir}" "${crt}/include" PRIVATE "${crt}/src")
  # An OBJECT library: the platform hooks are linked whole wherever they are listed, so a hook that
  # only a packed model reached through the system library calls (the PROFILE timer) still resolves.
  add_library(utvm_crt_host OBJECT EXCLUDE_FROM_ALL "${crt}/src/platform_host.c")
  add_library(utvm::crt_host ALIAS utvm_crt_host)
  target_link_libraries(utvm_crt_host PUBLIC utvm_crt)
  set_target_properties(utvm_crt PROPERTIES UTVM_CRT_CONFIG_DIR "${config_dir}")
  get_property(flags_from GLOBAL PROPERTY UTVM_FLAGS_FROM)
  _utvm_flags_from(utvm_add_crt ${flags_from} ${ARG_FLAGS_FROM})

  set_property(GLOBAL PROPERTY UTVM_CRT_CONFIG_BASE "${base}")
  set_property(GLOBAL PROPERTY UTVM_CRT_MODEL_CONFIGS "")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${base}")
  # The merged crt_config.h is written once all models are known: at the end of the top-level
  # CMakeLists.txt. Until then it holds the base configuration.
  if(NOT EXISTS "${config_dir}/crt_config.h")
    _utvm_write_crt_config()
  endif()
  cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _utvm_write_crt_config)
endfunction()

# Write <build>/utvm_crt_config/crt_config.h: each TVM_CRT_* value is the maximum over the base
# configuration and every model's include/crt_config.h.
function(_utvm_write_crt_config)
  get_property(base GLOBAL PROPERTY UTVM_CRT_CONFIG_BASE)
  get_property(models GLOBAL PROPERTY UTVM_CRT_MODEL_CONFIGS)
  get_property(names GLOBAL PROPERTY UTVM_CRT_MODEL_NAMES)
  get_target_property(config_dir utvm_crt UTVM_CRT_CONFIG_DIR)
  set(keys "")
  set(headers "${base}" ${models})
  foreach(header IN LISTS headers)
    file(STRINGS "${header}" lines REGEX "^[ \t]*#[ \t]*define[ \t]+TVM_CRT_[A-Z0-9_]+[ \t]+\\(?[0-9]+\\)?[ \t]*(/[*/].*)?$")
    foreach(line IN LISTS lines)
      string(REGEX MATCH "TVM_CRT_[A-Z0-9_]+[ \t]+\\(?([0-9]+)" m "${line}")
      string(REGEX MATCH "^TVM_CRT_[A-Z0-9_]+" key "${m}")
      string(REGEX REPLACE "^TVM_CRT_[A-Z0-9_]+[ \t]+\\(?" "" value "${m}")
      if(NOT DEFINED v_${key})
        list(APPEND keys "${key}")
        set(v_${key} "${value}")
      elseif(value GREATER v_${key})
        set(v_${key} "${value}")
      endif()
    endforeach()
  endforeach()
  if(names)
    list(JOIN names ", " names)
  else()
    set(names "none")
  endif()
  string(CONCAT text "/* Generated by the utvm_build CMake package. Do not edit.\n"
           " * The C runtime configuration of this build: each value is the maximum over the base\n"
           " * configuration and the crt_config.h of every model (models: ${names}). */\n"
           "#ifndef TVM_RUNTIME_CRT_CONFIG_H_\n#define TVM_RUNTIME_CRT_CONFIG_H_\n\n")
  foreach(key IN LISTS keys)
    string(APPEND text "#define ${key} ${v_${key}}\n")
  endforeach()
  string(APPEND text "\n#endif /* TVM_RUNTIME_CRT_CONFIG_H_ */\n")
  _utvm_write_if_changed("${config_dir}/crt_config.h" "${text}")
endfunction()

# _utvm_system_lib_add(<target> <name> <generated dir>): adds a packed model to the build's system
# library, STATIC library `utvm_system_lib` (alias `utvm::system_lib`, EXCLUDE_FROM_ALL), created
# with the first packed model. Its one source, <build>/utvm_system_lib/utvm_system_lib.c, holds the
# registry of every packed model's `tvmgen_<name>_run` (and `_profile_read` of a PROFILE model) and
# TVMSystemLibEntryPoint; it is written by `utvm-build syslib` at the end of the top-level
# CMakeLists.txt, when every model is known.
function(_utvm_system_lib_add target name dir profiled)
  if(NOT TARGET utvm_system_lib)
    add_library(utvm_system_lib STATIC EXCLUDE_FROM_ALL "${CMAKE_BINARY_DIR}/utvm_system_lib/utvm_system_lib.c")
    add_library(utvm::system_lib ALIAS utvm_system_lib)
    target_link_libraries(utvm_system_lib PRIVATE utvm_crt)
    get_property(flags_from GLOBAL PROPERTY UTVM_FLAGS_FROM)
    if(flags_from)
      target_link_libraries(utvm_system_lib PRIVATE ${flags_from})
    endif()
    # The runtime calls TVMSystemLibEntryPoint, whose registry references every packed model (which
    # calls the runtime): cycles between static libraries, which CMake resolves by repeating them on
    # the link line.
    target_link_libraries(utvm_crt INTERFACE utvm_system_lib)
    set_property(GLOBAL PROPERTY UTVM_SYSTEM_LIB_MODELS "")
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _utvm_write_system_lib)
  endif()
  target_link_libraries(utvm_system_lib PRIVATE ${target})
  set_property(GLOBAL APPEND PROPERTY UTVM_SYSTEM_LIB_MODELS "${name}" "${dir}")
  if(profiled)
    set_property(GLOBAL APPEND PROPERTY UTVM_SYSTEM_LIB_PROFILED "${name}")
  endif()
endfunction()

# Write <build>/utvm_system_lib/utvm_system_lib.c with `utvm-build syslib` (which rewrites it only
# when its content changes). Its content depends only on the names, which models are profiled and
# the version: a stamp of those skips the Python start on a no-op reconfigure.
function(_utvm_write_system_lib)
  get_property(models GLOBAL PROPERTY UTVM_SYSTEM_LIB_MODELS)
  get_property(profiled GLOBAL PROPERTY UTVM_SYSTEM_LIB_PROFILED)
  get_property(python GLOBAL PROPERTY UTVM_BUILD_PYTHON)
  get_property(version GLOBAL PROPERTY UTVM_BUILD_VERSION)
  set(file "${CMAKE_BINARY_DIR}/utvm_system_lib/utvm_system_lib.c")
  set(stamp "${CMAKE_BINARY_DIR}/utvm_system_lib/.utvm_system_lib.utvm-stamp")
  set(dirs "")
  set(names "")
  list(LENGTH models n)
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last} 2)
    math(EXPR j "${i} + 1")
    list(GET models ${i} name)
    list(GET models ${j} dir)
    list(APPEND names "${name}")
    list(APPEND dirs "${dir}")
  endforeach()
  string(JOIN "\n" key "utvm_build ${version}" "python ${python}" "models ${models}" "profiled ${profiled}" "")
  set(old_key "")
  if(EXISTS "${stamp}")
    file(READ "${stamp}" old_key)
  endif()
  if(old_key STREQUAL key AND EXISTS "${file}")
    return()
  endif()
  file(REMOVE "${stamp}")
  get_property(command GLOBAL PROPERTY UTVM_BUILD_COMMAND)
  execute_process(COMMAND ${command} -m utvm_build syslib ${dirs} -o "${file}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT rc EQUAL 0)
    string(STRIP "${stderr}" stderr)
    list(JOIN names ", " names)
    message(FATAL_ERROR "utvm_build: writing the system library of the packed models (${names}) failed\n${stderr}")
  endif()
  file(WRITE "${stamp}" "${key}")
endfunction()

# utvm_add_model(<target> MODEL <file.tflite> [NAME <c_name>]
#                [INTERFACE c|packed] [WORKSPACE static|user]
#                [CONSTANTS_SECTION <section>] [WORKSPACE_SECTION <section>]
#                [CONSTANTS_ALIGN <bytes>] [WORKSPACE_ALIGN <bytes>] [IO caller|workspace]
#                [STATE static|user] [PROFILE]
#                [OPTIMIZE <compile options>...] [OUTPUT_DIR <dir>] [FLAGS_FROM <target>...]
#                [TARGET generic|cortex-m0plus|cortex-m3|cortex-m4|cortex-m7|cortex-m33|cortex-m55]
#                [TUNING <tuning.json>])
#
# Generates the model's C at configure time and adds STATIC library <target> (alias
# utvm::<name>) with the generated sources, the generated include directory (PUBLIC) and the C
# runtime utvm::crt (PUBLIC). See docs/cmake.md for every option.
function(utvm_add_model target)
  set(one MODEL NAME INTERFACE WORKSPACE CONSTANTS_SECTION WORKSPACE_SECTION CONSTANTS_ALIGN WORKSPACE_ALIGN IO
          STATE OUTPUT_DIR TARGET TUNING)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "PROFILE" "${one}" "OPTIMIZE;FLAGS_FROM")
  set(fn "utvm_add_model(${target})")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${fn}: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_MODEL)
    message(FATAL_ERROR "${fn}: MODEL <file.tflite> is required")
  endif()
  if(TARGET "${target}")
    message(FATAL_ERROR "${fn}: a target named '${target}' already exists")
  endif()
  get_property(python GLOBAL PROPERTY UTVM_BUILD_PYTHON)
  get_property(version GLOBAL PROPERTY UTVM_BUILD_VERSION)
  get_property(pkg GLOBAL PROPERTY UTVM_BUILD_PACKAGE_DIR)
  get_filename_component(model "${ARG_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${model}" OR IS_DIRECTORY "${model}")
    message(FATAL_ERROR "${fn}: model file not found: ${model}")
  endif()

  # Option values are checked here so that a mistake is one line naming the option.
  # TARGET: given, or derived from an unambiguous -mcpu= in the flags the model is compiled with.
  set(targets generic cortex-m0plus cortex-m3 cortex-m4 cortex-m7 cortex-m33 cortex-m55)
  if(NOT DEFINED ARG_TARGET)
    _utvm_derive_target(ARG_TARGET target_from "${ARG_FLAGS_FROM}")
    if(ARG_TARGET)
      message(STATUS "utvm_build: ${target}: TARGET ${ARG_TARGET} (from ${target_from}; give TARGET to override)")
    else()
      unset(ARG_TARGET)
    endif()
  endif()
  foreach(check "INTERFACE;c;packed" "WORKSPACE;static;user" "IO;caller;workspace" "STATE;static;user"
        "TARGET;${targets}")
    list(POP_FRONT check kw)
    if(DEFINED ARG_${kw} AND NOT ARG_${kw} IN_LIST check)
      list(JOIN check ", " accepted)
      message(FATAL_ERROR "${fn}: ${kw} '${ARG_${kw}}' is not one of: ${accepted}")
    endif()
  endforeach()
  foreach(kw CONSTANTS_ALIGN WORKSPACE_ALIGN)
    if(DEFINED ARG_${kw} AND NOT ARG_${kw} MATCHES "^(1|2|4|8|16|32|64|128|256|512|1024|2048|4096)$")
      message(FATAL_ERROR "${fn}: ${kw} '${ARG_${kw}}' is not a power of two from 1 to 4096")
    endif()
  endforeach()
  foreach(kw CONSTANTS_SECTION WORKSPACE_SECTION)
    if(DEFINED ARG_${kw} AND NOT ARG_${kw} MATCHES "^[A-Za-z0-9._$]*$")
      message(FATAL_ERROR "${fn}: ${kw} '${ARG_${kw}}' is not a section name (letters, digits, '.', '_', '$'; "
                          "\"\" for none)")
    endif()
  endforeach()
  if(DEFINED ARG_NAME AND NOT ARG_NAME STREQUAL "" AND NOT ARG_NAME MATCHES "^[a-z_][a-z0-9_]*$")
    message(FATAL_ERROR "${fn}: NAME '${ARG_NAME}' is not a lowercase C identifier (a-z, 0-9, _)")
  endif()

  # Command line options of `utvm-build compile` (one argument each, so that "" survives).
  set(options "")
  if(DEFINED ARG_NAME AND NOT ARG_NAME STREQUAL "")
    list(APPEND options "--name=${ARG_NAME}")
  endif()
  foreach(kw INTERFACE WORKSPACE CONSTANTS_SECTION WORKSPACE_SECTION CONSTANTS_ALIGN WORKSPACE_ALIGN IO STATE TARGET)
    string(TOLOWER "${kw}" flag)
    string(REPLACE "_" "-" flag "${flag}")
    # An explicitly empty value (CONSTANTS_SECTION "") means "no section attribute".
    list(FIND ARGN "${kw}" given)
    if(DEFINED ARG_${kw} OR given GREATER -1)
      list(APPEND options "--${flag}=${ARG_${kw}}")
    endif()
  endforeach()
  if(ARG_PROFILE)
    list(APPEND options "--profile")
  endif()
  # TUNING: a record of `utvm-build tune` (docs/kernel-guide.md); it applies when its target and
  # compiler (name and version) are this build's, else the generator warns and ignores it.
  set(tuning_key "")
  if(ARG_TUNING)
    get_filename_component(tuning "${ARG_TUNING}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${tuning}" OR IS_DIRECTORY "${tuning}")
      message(FATAL_ERROR "${fn}: TUNING file not found: ${tuning}")
    endif()
    list(APPEND options "--tuning=${tuning}" "--tuning-compiler=${CMAKE_C_COMPILER}")
    file(SHA256 "${tuning}" tuning_sha)
    set(tuning_key "tuning ${tuning_sha} ${CMAKE_C_COMPILER_VERSION}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${tuning}")
  endif()

  if(ARG_OUTPUT_DIR)
    get_filename_component(out "${ARG_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    set(out "${CMAKE_CURRENT_BINARY_DIR}/utvm/${target}")
  endif()
  # One generated directory per model: the generator owns it (docs/output.md), and a second model
  # there would replace the first's sources.
  get_property(owner GLOBAL PROPERTY "UTVM_OUTPUT_DIR_OWNER:${out}")
  if(owner)
    message(FATAL_ERROR "${fn}: OUTPUT_DIR ${out} is already the generated directory of ${owner}; "
                        "give each model its own OUTPUT_DIR")
  endif()
  set_property(GLOBAL PROPERTY "UTVM_OUTPUT_DIR_OWNER:${out}" "${fn}")
  # The stamp lives with CMake's own files, never beside the output (which may be anywhere).
  string(SHA256 out_key "${out}")
  string(SUBSTRING "${out_key}" 0 16 out_key)
  set(stamp "${CMAKE_BINARY_DIR}/CMakeFiles/utvm_build/${target}-${out_key}.stamp")

  # Configure dependencies: the model and the package version (its __init__.py).
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${model}" "${pkg}/__init__.py")

  # Skip the code generator when the model bytes, its file name, the options, the package
  # version and the Python are those of the last successful run and the output is still there.
  file(SHA256 "${model}" sha)
  get_filename_component(model_name "${model}" NAME)
  string(JOIN "\n" key "utvm_build ${version}" "python ${python}" "model ${model_name} ${sha}"
                       "options ${options}" "${tuning_key}" "")
  set(regenerated FALSE)
  set(old_key "")
  if(EXISTS "${stamp}")
    file(READ "${stamp}" old_key)
  endif()
  if(NOT old_key STREQUAL key OR NOT EXISTS "${out}/metadata.json")
    file(REMOVE "${stamp}")
    get_property(command GLOBAL PROPERTY UTVM_BUILD_COMMAND)
    execute_process(COMMAND ${command} -m utvm_build compile "${model}" -o "${out}" --incremental ${options}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
    if(NOT rc EQUAL 0)
      # The generator leaves the previous output as it was (or none): nothing to clean up here.
      string(STRIP "${stderr}" stderr)
      message(FATAL_ERROR "${fn}: code generation failed for ${model}: ${stderr}")
    endif()
    string(STRIP "${stderr}" stderr)
    if(stderr)   # a tuning record for another target or compiler
      message(WARNING "${fn}: ${stderr}")
    endif()
    file(WRITE "${stamp}" "${key}")
    set(regenerated TRUE)
  endif()

  # Everything else comes from metadata.json (the file list depends on the model; never glob).
  file(READ "${out}/metadata.json" meta)
  string(JSON name GET "${meta}" name)
  string(JSON interface GET "${meta}" options interface)
  string(JSON workspace_bytes GET "${meta}" workspace_bytes)
  string(JSON constants_bytes GET "${meta}" constants_bytes)
  _utvm_json_list(sources "${meta}" sources "${out}/")
  _utvm_json_list(includes "${meta}" include_dirs "${out}/")
  if(regenerated)
    message(STATUS "utvm_build: generated ${target} (tvmgen_${name}, ${interface} interface): "
                   "workspace ${workspace_bytes} B, constants ${constants_bytes} B")
  endif()
  if(TARGET "utvm::${name}")
    message(FATAL_ERROR "${fn}: two models are named '${name}' in this build; give one of them NAME <other>")
  endif()

  if(ARG_FLAGS_FROM)
    _utvm_flags_from("${fn}" ${ARG_FLAGS_FROM})
  endif()
  if(NOT TARGET utvm_crt)
    utvm_add_crt()
  endif()
  get_target_property(crt_missing utvm_crt UTVM_CRT_MISSING)
  if(crt_missing AND (ARG_PROFILE OR NOT interface STREQUAL "c"))
    if(ARG_PROFILE)
      set(needs "PROFILE")
    else()
      set(needs "INTERFACE ${interface}")
    endif()
    message(FATAL_ERROR "${fn}: ${needs} needs the C runtime, whose sources are missing from this "
                        "utvm-build installation (`${python} -m utvm_build --crt-dir` fails); reinstall utvm-build.")
  endif()
  get_target_property(crt_config_dir utvm_crt UTVM_CRT_CONFIG_DIR)
  if(crt_missing)
    set(crt_config_dir "")
  endif()
  set_property(GLOBAL APPEND PROPERTY UTVM_CRT_MODEL_NAMES "${name}")
  if(EXISTS "${out}/include/crt_config.h")
    set_property(GLOBAL APPEND PROPERTY UTVM_CRT_MODEL_CONFIGS "${out}/include/crt_config.h")
  endif()

  _utvm_json_list(link_libraries "${meta}" link_libraries "")

  add_library(${target} STATIC ${sources})
  if(link_libraries AND NOT MSVC)
    # libm for the float kernels (expf, ...): part of the C library on MSVC, separate elsewhere.
    target_link_libraries(${target} PUBLIC ${link_libraries})
  endif()
  add_library(utvm::${name} ALIAS ${target})
  # The build's merged crt_config.h comes first: it shadows the per-model copy in include/.
  target_include_directories(${target} PUBLIC ${crt_config_dir} ${includes})
  # The CRT is a static library: with the "c" interface nothing in it is referenced, so the
  # linker takes none of it into the firmware.
  target_link_libraries(${target} PUBLIC utvm::crt)
  if(interface STREQUAL "packed")
    # The build's one system library (utvm_system_lib) defines TVMSystemLibEntryPoint for all
    # packed models; the model's own definition is compiled out.
    string(TOUPPER "tvmgen_${name}_NO_SYSTEM_LIB_ENTRY" no_entry)
    target_compile_definitions(${target} PRIVATE ${no_entry})
    _utvm_system_lib_add(${target} "${name}" "${out}" "${ARG_PROFILE}")
  endif()
  if(ARG_OPTIMIZE)
    target_compile_options(${target} PRIVATE ${ARG_OPTIMIZE})
  endif()
  if(ARG_FLAGS_FROM)
    target_link_libraries(${target} PRIVATE ${ARG_FLAGS_FROM})
  endif()
  set_target_properties(${target} PROPERTIES
    UTVM_MODEL_FILE "${model}"
    UTVM_MODEL_NAME "${name}"
    UTVM_INTERFACE "${interface}"
    UTVM_PROFILE "${ARG_PROFILE}"
    UTVM_GENERATED_DIR "${out}"
    UTVM_METADATA_FILE "${out}/metadata.json"
    UTVM_WORKSPACE_BYTES "${workspace_bytes}"
    UTVM_CONSTANTS_BYTES "${constants_bytes}")
endfunction()


# utvm_add_models(<target> MODELS [<name>=]<file.tflite>... [GROUP <c_name>] [EXCLUSIVE <a,b,...>...]
#                 [INTERFACE c|packed] [CONSTANTS_SECTION <section>] [WORKSPACE_SECTION <section>]
#                 [CONSTANTS_ALIGN <bytes>] [WORKSPACE_ALIGN <bytes>] [IO caller|workspace]
#                 [STATE static|user] [PROFILE] [TARGET <cpu>] [TUNING <tuning.json>]
#                 [OPTIMIZE <compile options>...] [OUTPUT_DIR <dir>] [FLAGS_FROM <target>...])
#
# Several models in one firmware (`utvm-build compile-group`, docs/cmake.md): generates the group
# at configure time and adds STATIC library <target> (aliases utvm::<model name> for each model)
# with every model's sources, the group's shared workspace and the kernels several models call,
# compiled once. Each EXCLUSIVE list names models that never run at the same time: they share one
# workspace pool; every other model gets its own. GROUP (default: <target>) names the group's header
# tvmgen_<group>.h with the combined sizes.
function(utvm_add_models target)
  set(one GROUP INTERFACE CONSTANTS_SECTION WORKSPACE_SECTION CONSTANTS_ALIGN WORKSPACE_ALIGN IO STATE OUTPUT_DIR
          TARGET TUNING)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "PROFILE" "${one}" "MODELS;EXCLUSIVE;OPTIMIZE;FLAGS_FROM")
  set(fn "utvm_add_models(${target})")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${fn}: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_MODELS)
    message(FATAL_ERROR "${fn}: MODELS [<name>=]<file.tflite>... is required")
  endif()
  if(TARGET "${target}")
    message(FATAL_ERROR "${fn}: a target named '${target}' already exists")
  endif()
  if(NOT DEFINED ARG_GROUP)
    set(ARG_GROUP "${target}")
  endif()
  if(NOT ARG_GROUP MATCHES "^[a-z_][a-z0-9_]*$")
    message(FATAL_ERROR "${fn}: GROUP '${ARG_GROUP}' is not a lowercase C identifier (a-z, 0-9, _; "
                        "the target name is the default)")
  endif()
  get_property(python GLOBAL PROPERTY UTVM_BUILD_PYTHON)
  get_property(version GLOBAL PROPERTY UTVM_BUILD_VERSION)
  get_property(pkg GLOBAL PROPERTY UTVM_BUILD_PACKAGE_DIR)

  # The models: absolute paths, NAME= kept.
  set(model_args "")
  set(key_models "")
  foreach(m IN LISTS ARG_MODELS)
    set(prefix "")
    set(file "${m}")
    if(m MATCHES "^([a-z_][a-z0-9_]*)=(.+)$")
      set(prefix "${CMAKE_MATCH_1}=")
      set(file "${CMAKE_MATCH_2}")
    endif()
    get_filename_component(file "${file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${file}" OR IS_DIRECTORY "${file}")
      message(FATAL_ERROR "${fn}: model file not found: ${file}")
    endif()
    list(APPEND model_args "${prefix}${file}")
    file(SHA256 "${file}" sha)
    list(APPEND key_models "${prefix}${file} ${sha}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${pkg}/__init__.py")

  set(targets generic cortex-m0plus cortex-m3 cortex-m4 cortex-m7 cortex-m33 cortex-m55)
  if(NOT DEFINED ARG_TARGET)
    _utvm_derive_target(ARG_TARGET target_from "${ARG_FLAGS_FROM}")
    if(ARG_TARGET)
      message(STATUS "utvm_build: ${target}: TARGET ${ARG_TARGET} (from ${target_from}; give TARGET to override)")
    else()
      unset(ARG_TARGET)
    endif()
  endif()
  foreach(check "INTERFACE;c;packed" "IO;caller;workspace" "STATE;static;user" "TARGET;${targets}")
    list(POP_FRONT check kw)
    if(DEFINED ARG_${kw} AND NOT ARG_${kw} IN_LIST check)
      list(JOIN check ", " accepted)
      message(FATAL_ERROR "${fn}: ${kw} '${ARG_${kw}}' is not one of: ${accepted}")
    endif()
  endforeach()
  set(options "--group=${ARG_GROUP}")
  foreach(e IN LISTS ARG_EXCLUSIVE)
    list(APPEND options "--exclusive=${e}")
  endforeach()
  foreach(kw INTERFACE CONSTANTS_SECTION WORKSPACE_SECTION CONSTANTS_ALIGN WORKSPACE_ALIGN IO STATE TARGET)
    string(TOLOWER "${kw}" flag)
    string(REPLACE "_" "-" flag "${flag}")
    list(FIND ARGN "${kw}" given)
    if(DEFINED ARG_${kw} OR given GREATER -1)
      list(APPEND options "--${flag}=${ARG_${kw}}")
    endif()
  endforeach()
  if(ARG_PROFILE)
    list(APPEND options "--profile")
  endif()
  set(tuning_key "")
  if(ARG_TUNING)   # as utvm_add_model's TUNING, for every model of the group
    get_filename_component(tuning "${ARG_TUNING}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${tuning}" OR IS_DIRECTORY "${tuning}")
      message(FATAL_ERROR "${fn}: TUNING file not found: ${tuning}")
    endif()
    list(APPEND options "--tuning=${tuning}" "--tuning-compiler=${CMAKE_C_COMPILER}")
    file(SHA256 "${tuning}" tuning_sha)
    set(tuning_key "tuning ${tuning_sha} ${CMAKE_C_COMPILER_VERSION}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${tuning}")
  endif()

  if(ARG_OUTPUT_DIR)
    get_filename_component(out "${ARG_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  else()
    set(out "${CMAKE_CURRENT_BINARY_DIR}/utvm/${target}")
  endif()
  get_property(owner GLOBAL PROPERTY "UTVM_OUTPUT_DIR_OWNER:${out}")
  if(owner)
    message(FATAL_ERROR "${fn}: OUTPUT_DIR ${out} is already the generated directory of ${owner}")
  endif()
  set_property(GLOBAL PROPERTY "UTVM_OUTPUT_DIR_OWNER:${out}" "${fn}")
  string(SHA256 out_key "${out}")
  string(SUBSTRING "${out_key}" 0 16 out_key)
  set(stamp "${CMAKE_BINARY_DIR}/CMakeFiles/utvm_build/${target}-${out_key}.stamp")
  string(JOIN "\n" key "utvm_build ${version}" "python ${python}" "models ${key_models}" "options ${options}"
                       "${tuning_key}" "")
  set(old_key "")
  if(EXISTS "${stamp}")
    file(READ "${stamp}" old_key)
  endif()
  set(regenerated FALSE)
  if(NOT old_key STREQUAL key OR NOT EXISTS "${out}/metadata.json")
    file(REMOVE "${stamp}")
    get_property(command GLOBAL PROPERTY UTVM_BUILD_COMMAND)
    execute_process(COMMAND ${command} -m utvm_build compile-group ${model_args} -o "${out}" --incremental ${options}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
    if(NOT rc EQUAL 0)
      string(STRIP "${stderr}" stderr)
      message(FATAL_ERROR "${fn}: code generation failed: ${stderr}")
    endif()
    string(STRIP "${stderr}" stderr)
    if(stderr)   # a tuning record for another target or compiler
      message(WARNING "${fn}: ${stderr}")
    endif()
    file(WRITE "${stamp}" "${key}")
    set(regenerated TRUE)
  endif()

  if(ARG_FLAGS_FROM)
    _utvm_flags_from("${fn}" ${ARG_FLAGS_FROM})
  endif()
  if(NOT TARGET utvm_crt)
    utvm_add_crt()
  endif()
  get_target_property(crt_missing utvm_crt UTVM_CRT_MISSING)
  get_target_property(crt_config_dir utvm_crt UTVM_CRT_CONFIG_DIR)
  if(crt_missing)
    set(crt_config_dir "")
  endif()

  # The group's own sources, then every model's (all from metadata.json: never glob).
  file(READ "${out}/metadata.json" group_meta)
  _utvm_json_list(sources "${group_meta}" sources "${out}/")
  _utvm_json_list(includes "${group_meta}" include_dirs "${out}/")
  _utvm_json_list(link_libraries "${group_meta}" link_libraries "")
  string(JSON ram GET "${group_meta}" ram_bytes)
  string(JSON separate GET "${group_meta}" separate_workspace_bytes)
  string(JSON workspace GET "${group_meta}" workspace_bytes)
  string(JSON n LENGTH "${group_meta}" models)
  math(EXPR last "${n} - 1")
  set(names "")
  set(packed "")
  foreach(i RANGE ${last})
    string(JSON dir GET "${group_meta}" models ${i} dir)
    file(READ "${out}/${dir}/metadata.json" meta)
    string(JSON name GET "${meta}" name)
    string(JSON interface GET "${meta}" options interface)
    if(TARGET "utvm::${name}")
      message(FATAL_ERROR "${fn}: two models are named '${name}' in this build; name one <other>=<file.tflite>")
    endif()
    list(APPEND names "${name}")
    _utvm_json_list(s "${meta}" sources "${out}/${dir}/")
    _utvm_json_list(inc "${meta}" include_dirs "${out}/${dir}/")
    _utvm_json_list(libs "${meta}" link_libraries "")
    list(APPEND sources ${s})
    list(APPEND includes ${inc})
    list(APPEND link_libraries ${libs})
    if(interface STREQUAL "packed")
      list(APPEND packed "${name}" "${out}/${dir}")
    endif()
    set_property(GLOBAL APPEND PROPERTY UTVM_CRT_MODEL_NAMES "${name}")
  endforeach()
  set_property(GLOBAL APPEND PROPERTY UTVM_CRT_MODEL_CONFIGS "${out}/include/crt_config.h")
  list(REMOVE_DUPLICATES link_libraries)
  if(regenerated)
    list(JOIN names ", " shown)
    message(STATUS "utvm_build: generated ${target} (group ${ARG_GROUP}: ${shown}): workspace ${workspace} B "
                   "(each alone ${separate} B), RAM ${ram} B")
  endif()

  add_library(${target} STATIC ${sources})
  foreach(name IN LISTS names)
    add_library(utvm::${name} ALIAS ${target})
  endforeach()
  if(link_libraries AND NOT MSVC)
    target_link_libraries(${target} PUBLIC ${link_libraries})
  endif()
  target_include_directories(${target} PUBLIC ${crt_config_dir} ${includes})
  target_link_libraries(${target} PUBLIC utvm::crt)
  list(LENGTH packed n_packed)
  if(n_packed GREATER 0)
    math(EXPR last "${n_packed} - 1")
    foreach(i RANGE 0 ${last} 2)
      math(EXPR j "${i} + 1")
      list(GET packed ${i} name)
      list(GET packed ${j} dir)
      string(TOUPPER "tvmgen_${name}_NO_SYSTEM_LIB_ENTRY" no_entry)
      target_compile_definitions(${target} PRIVATE ${no_entry})
      _utvm_system_lib_add(${target} "${name}" "${dir}" "${ARG_PROFILE}")
    endforeach()
  endif()
  if(ARG_OPTIMIZE)
    target_compile_options(${target} PRIVATE ${ARG_OPTIMIZE})
  endif()
  if(ARG_FLAGS_FROM)
    target_link_libraries(${target} PRIVATE ${ARG_FLAGS_FROM})
  endif()
  set_target_properties(${target} PROPERTIES
    UTVM_GROUP_NAME "${ARG_GROUP}"
    UTVM_MODEL_NAMES "${names}"
    UTVM_GENERATED_DIR "${out}"
    UTVM_METADATA_FILE "${out}/metadata.json"
    UTVM_WORKSPACE_BYTES "${workspace}"
    UTVM_RAM_BYTES "${ram}")
endfunction()

cmake_policy(POP)
