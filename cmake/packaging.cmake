# A Debian package of what install() installs: `cpack -G DEB` in a build directory (the release
# build for a package to ship), or `cmake --build --preset release --target package`.
set(CPACK_VERBATIM_VARIABLES ON)  # values reach cpack as written here, newlines and regexes alike
set(CPACK_PACKAGE_NAME roofline)
set(CPACK_PACKAGE_VENDOR roofline)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
# The extended description: lines under 80 columns (Debian policy 5.6.13).
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "roofline answers the whiteboard questions about a large language model on an\n"
       "accelerator, offline and in milliseconds: parameters, FLOPs per token, KV\n"
       "cache, whether it fits, decode and prefill floors, training memory and time,\n"
       "fleet sizes. Models come from built-in presets or Hugging Face config.json\n"
       "files; every number comes from one cited formula, which --explain prints\n"
       "with its values substituted.")
set(ROOFLINE_PACKAGE_MAINTAINER "roofline maintainers <maintainers@users.noreply.a-seed-55ac7f08.example>"
    CACHE STRING "The Maintainer field of the Debian package")
set(CPACK_PACKAGE_CONTACT "${ROOFLINE_PACKAGE_MAINTAINER}")
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_STRIP_FILES ON)

# Depends: dpkg-shlibdeps reads the binary's shared libraries when it is installed (package
# dpkg-dev); otherwise the list below, from how the binary links: libc always (the build machine's
# glibc is a safe lower bound), libstdc++ and libgcc_s unless ROOFLINE_STATIC_RUNTIME (the release
# preset), libfmt unless ROOFLINE_FMT_HEADER_ONLY (the release preset). The choice is made when
# cpack runs (cmake/cpack_project_config.cmake); `cpack -D ROOFLINE_DEB_SHLIBDEPS=OFF` forces the list.
execute_process(COMMAND getconf GNU_LIBC_VERSION OUTPUT_VARIABLE _glibc OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET)
if(_glibc MATCHES "^glibc ([0-9]+\\.[0-9]+)")
  set(_deps "libc6 (>= ${CMAKE_MATCH_1})")
else()
  set(_deps libc6)
endif()
if(NOT ROOFLINE_STATIC_RUNTIME)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    string(REGEX MATCH "^[0-9]+" _gcc_major "${CMAKE_CXX_COMPILER_VERSION}")
    list(APPEND _deps "libstdc++6 (>= ${_gcc_major})")
  else()
    list(APPEND _deps libstdc++6)
  endif()
  list(APPEND _deps libgcc-s1)
endif()
if(NOT ROOFLINE_FMT_HEADER_ONLY)
  list(APPEND _deps "libfmt${fmt_VERSION_MAJOR}")
endif()
list(JOIN _deps ", " CPACK_ROOFLINE_DEB_DEPENDS)
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_SOURCE_DIR}/cmake/cpack_project_config.cmake)

# A source tarball (cpack --config CPackSourceConfig.cmake): the tree without builds or git; a
# build from it reports the version alone.
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/\\.git" "/build/" "/\\.cache/")
include(CPack)
