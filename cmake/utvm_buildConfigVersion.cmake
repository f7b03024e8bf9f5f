# Version file of the utvm_build CMake package (architecture independent: it provides no
# binaries, only CMake functions that run the code generator and compile with your toolchain).
#
# The version is read from the Python package this file ships in, so the two cannot disagree.
# Compatibility: same major.minor for 0.x releases, same major otherwise.

if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../__init__.py")   # installed: <package>/cmake
  set(_utvm_init "${CMAKE_CURRENT_LIST_DIR}/../__init__.py")
else()                                                   # source tree: <repo>/cmake
  set(_utvm_init "${CMAKE_CURRENT_LIST_DIR}/../utvm_build/__init__.py")
endif()
file(STRINGS "${_utvm_init}" _utvm_version_line
     REGEX "^__version__ *= *[\"'][^\"']+[\"']" LIMIT_COUNT 1)
string(REGEX REPLACE "^__version__ *= *[\"']([^\"']+)[\"'].*" "\\1" PACKAGE_VERSION "${_utvm_version_line}")
unset(_utvm_version_line)
unset(_utvm_init)

if(NOT PACKAGE_VERSION MATCHES "^([0-9]+)\\.([0-9]+)")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
  set(PACKAGE_VERSION "unknown")
  return()
endif()
set(_utvm_major "${CMAKE_MATCH_1}")
set(_utvm_minor "${CMAKE_MATCH_2}")

if(NOT PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
elseif(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(NOT PACKAGE_FIND_VERSION_MAJOR STREQUAL _utvm_major)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(_utvm_major EQUAL 0 AND NOT PACKAGE_FIND_VERSION_MINOR STREQUAL _utvm_minor)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
unset(_utvm_major)
unset(_utvm_minor)
