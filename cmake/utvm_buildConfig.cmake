# utvm_build CMake package: TensorFlow Lite models -> ahead-of-time C, compiled with your toolchain.
#
#   find_package(Python3 REQUIRED COMPONENTS Interpreter)
#   execute_process(COMMAND "${Python3_EXECUTABLE}" -m utvm_build --cmake-dir
#                   OUTPUT_VARIABLE utvm_build_DIR OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
#   find_package(utvm_build CONFIG REQUIRED)
#   utvm_add_model(kws MODEL ${CMAKE_CURRENT_SOURCE_DIR}/kws.tflite)
#   target_link_libraries(firmware PRIVATE kws)
#
# Documentation: docs/cmake.md. This package only defines functions and targets; it never
# changes global flags.
#
# Variables read:
#   UTVM_BUILD_PYTHON  (cache) the host Python that owns utvm_build and runs the code generator.
#                      Default: Python3_EXECUTABLE, Python_EXECUTABLE, the interpreter of the
#                      environment this package is installed in, or python3 on PATH.
# Variables set:
#   utvm_build_FOUND, utvm_build_VERSION (from the version file), UTVM_BUILD_CRT_DIR.

if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "utvm_build needs CMake 3.20 or newer (this is ${CMAKE_VERSION})")
endif()

# Two layouts: installed from a wheel (<site-packages>/utvm_build/cmake, the Python package is
# the parent) or a source tree (<repo>/cmake, used through add_subdirectory, FetchContent or
# utvm_build_DIR; the Python package is <repo>/utvm_build and the generator runs from there, with
# <repo> put first on PYTHONPATH).
if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../__init__.py")
  get_filename_component(_utvm_pkg_dir "${CMAKE_CURRENT_LIST_DIR}/.." REALPATH)
  set(_utvm_source_root "")
else()
  get_filename_component(_utvm_source_root "${CMAKE_CURRENT_LIST_DIR}/.." REALPATH)
  set(_utvm_pkg_dir "${_utvm_source_root}/utvm_build")
  if(NOT EXISTS "${_utvm_pkg_dir}/__init__.py")
    message(FATAL_ERROR "utvm_build: ${CMAKE_CURRENT_LIST_DIR} is neither inside an installed utvm_build package "
                        "nor in a utvm-build source tree (no ${_utvm_pkg_dir}/__init__.py)")
  endif()
endif()
if(NOT DEFINED utvm_build_VERSION OR utvm_build_VERSION STREQUAL "")
  # Included directly (add_subdirectory, FetchContent): no version file was read.
  include("${CMAKE_CURRENT_LIST_DIR}/utvm_buildConfigVersion.cmake")
  set(utvm_build_VERSION "${PACKAGE_VERSION}")
endif()

# ---- the Python that owns the package (always the host's, never searched in a sysroot) -------
if(NOT UTVM_BUILD_PYTHON)
  set(_utvm_python "")
  if(Python3_EXECUTABLE)
    set(_utvm_python "${Python3_EXECUTABLE}")
  elseif(Python_EXECUTABLE)
    set(_utvm_python "${Python_EXECUTABLE}")
  elseif(_utvm_pkg_dir MATCHES "^(.*)/[Ll]ib/(python[0-9.]+/)?site-packages/utvm_build$")
    # Installed from a wheel: the interpreter of that environment.
    foreach(_utvm_candidate "${CMAKE_MATCH_1}/bin/python3" "${CMAKE_MATCH_1}/bin/python"
                            "${CMAKE_MATCH_1}/python.exe" "${CMAKE_MATCH_1}/Scripts/python.exe")
      if(EXISTS "${_utvm_candidate}")
        set(_utvm_python "${_utvm_candidate}")
        break()
      endif()
    endforeach()
  endif()
  if(NOT _utvm_python)
    find_program(_utvm_python_found NAMES python3 python NO_CMAKE_FIND_ROOT_PATH NO_CACHE)
    set(_utvm_python "${_utvm_python_found}")
  endif()
  if(NOT _utvm_python)
    message(FATAL_ERROR "utvm_build: no Python interpreter found. Set UTVM_BUILD_PYTHON to the Python "
                        "that has utvm-build installed (for example -DUTVM_BUILD_PYTHON=/path/to/venv/bin/python).")
  endif()
  set(UTVM_BUILD_PYTHON "${_utvm_python}" CACHE FILEPATH
      "Host Python interpreter that owns the utvm_build package and runs its code generator")
endif()

# The command that runs the generator: the Python, and in a source tree the tree on PYTHONPATH.
set(_utvm_command "${UTVM_BUILD_PYTHON}")
if(_utvm_source_root)
  set(_utvm_pythonpath "${_utvm_source_root}")
  if(DEFINED ENV{PYTHONPATH} AND NOT "$ENV{PYTHONPATH}" STREQUAL "")
    if(CMAKE_HOST_WIN32)
      string(APPEND _utvm_pythonpath "\\;$ENV{PYTHONPATH}")
    else()
      string(APPEND _utvm_pythonpath ":$ENV{PYTHONPATH}")
    endif()
  endif()
  set(_utvm_command "${CMAKE_COMMAND}" -E env "PYTHONPATH=${_utvm_pythonpath}" "${UTVM_BUILD_PYTHON}")
endif()

# ---- check that this Python imports a matching utvm_build (cached while nothing changes) -----
file(TIMESTAMP "${_utvm_pkg_dir}/__init__.py" _utvm_init_time "%s" UTC)
set(_utvm_check_key "${UTVM_BUILD_PYTHON}|${utvm_build_VERSION}|${_utvm_pkg_dir}|${_utvm_init_time}")
if(NOT _UTVM_BUILD_CHECKED STREQUAL _utvm_check_key)
  execute_process(
    COMMAND ${_utvm_command} -c
            "import os, utvm_build, utvm_build.paths as p\ntry: crt = p.crt_dir()\nexcept FileNotFoundError: crt = ''\nprint(utvm_build.__version__); print(os.path.dirname(os.path.realpath(utvm_build.__file__))); print(crt)"
    RESULT_VARIABLE _utvm_rc OUTPUT_VARIABLE _utvm_out ERROR_VARIABLE _utvm_err
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _utvm_rc EQUAL 0)
    string(STRIP "${_utvm_err}" _utvm_err)
    message(FATAL_ERROR "utvm_build ${utvm_build_VERSION} (CMake package in ${CMAKE_CURRENT_LIST_DIR}): "
                        "the Python interpreter\n  ${UTVM_BUILD_PYTHON}\ncannot import utvm_build:\n"
                        "  ${_utvm_err}\nSet UTVM_BUILD_PYTHON (cache variable) to the Python that has utvm-build "
                        "installed, or install it there (from a utvm-build checkout or wheel: ${UTVM_BUILD_PYTHON} -m pip install <checkout or wheel>)")
  endif()
  string(REPLACE "\n" ";" _utvm_out "${_utvm_out}")
  list(APPEND _utvm_out "" "" "")
  list(GET _utvm_out 0 _utvm_py_version)
  list(GET _utvm_out 1 _utvm_py_pkg)
  list(GET _utvm_out 2 _utvm_crt)
  if(NOT _utvm_py_version STREQUAL utvm_build_VERSION)
    message(FATAL_ERROR "utvm_build: version mismatch. This CMake package is utvm_build ${utvm_build_VERSION} "
                        "(${_utvm_pkg_dir}), but\n  ${UTVM_BUILD_PYTHON}\nimports utvm_build ${_utvm_py_version} "
                        "(${_utvm_py_pkg}).\nPoint utvm_build_DIR at `${UTVM_BUILD_PYTHON} -m utvm_build --cmake-dir`, "
                        "or set UTVM_BUILD_PYTHON to the Python that owns ${_utvm_pkg_dir}.")
  endif()
  set(_UTVM_BUILD_CRT_DIR "${_utvm_crt}" CACHE INTERNAL "C runtime sources of utvm_build")
  set(_UTVM_BUILD_CHECKED "${_utvm_check_key}" CACHE INTERNAL "UTVM_BUILD_PYTHON was checked for this key")
endif()
set(UTVM_BUILD_CRT_DIR "${_UTVM_BUILD_CRT_DIR}")

# The generator's identity in the regeneration stamps: its version and the modification times of its
# Python modules and kernel headers, so that generated code follows a changed generator (a
# development checkout, a reinstalled wheel of the same version), not only a changed model.
file(GLOB_RECURSE _utvm_gen_files LIST_DIRECTORIES false "${_utvm_pkg_dir}/*.py" "${_utvm_pkg_dir}/*.h")
list(SORT _utvm_gen_files)
set(_utvm_gen_times "")
foreach(_utvm_f IN LISTS _utvm_gen_files)
  file(TIMESTAMP "${_utvm_f}" _utvm_t "%s" UTC)
  string(APPEND _utvm_gen_times "${_utvm_f} ${_utvm_t}\n")
endforeach()
string(SHA256 _utvm_gen_hash "${_utvm_gen_times}")
string(SUBSTRING "${_utvm_gen_hash}" 0 16 _utvm_gen_hash)

include("${CMAKE_CURRENT_LIST_DIR}/UtvmBuild.cmake")
set_property(GLOBAL PROPERTY UTVM_BUILD_PYTHON "${UTVM_BUILD_PYTHON}")
set_property(GLOBAL PROPERTY UTVM_BUILD_COMMAND "${_utvm_command}")
set_property(GLOBAL PROPERTY UTVM_BUILD_VERSION "${utvm_build_VERSION} (generator ${_utvm_gen_hash})")
set_property(GLOBAL PROPERTY UTVM_BUILD_PACKAGE_DIR "${_utvm_pkg_dir}")
set_property(GLOBAL PROPERTY UTVM_BUILD_CRT_DIR "${UTVM_BUILD_CRT_DIR}")

foreach(_utvm_v _utvm_source_root _utvm_command _utvm_pythonpath _utvm_pkg_dir _utvm_python _utvm_python_found _utvm_candidate _utvm_init_time _utvm_check_key
        _utvm_rc _utvm_out _utvm_err _utvm_py_version _utvm_py_pkg _utvm_crt)
  unset(${_utvm_v})
endforeach()
unset(_utvm_v)
set(utvm_build_FOUND TRUE)
