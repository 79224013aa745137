# The version `roofline --version` prints: "0.1.0 (git 926639d)" when built from a git checkout of
# this project, with "-dirty" when tracked files differ from HEAD at configure time; "0.1.0" alone
# outside one (a source tarball) or without git. Configure runs again when HEAD moves: the HEAD file
# (a checkout) and the branch file it names (a commit) are configure dependencies.
function(roofline_git_version out_var)
  set(${out_var} "${PROJECT_VERSION}" PARENT_SCOPE)
  find_package(Git QUIET)
  if(NOT GIT_FOUND)
    return()
  endif()
  macro(_roofline_git out)
    execute_process(COMMAND ${GIT_EXECUTABLE} ${ARGN} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE ${out} RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endmacro()
  # This project's own checkout only: a tarball unpacked inside another repository has none.
  _roofline_git(_top rev-parse --show-toplevel)
  if(NOT _rc EQUAL 0)
    return()
  endif()
  file(REAL_PATH "${_top}" _top)
  file(REAL_PATH "${PROJECT_SOURCE_DIR}" _source)
  if(NOT _top STREQUAL _source)
    return()
  endif()
  _roofline_git(_commit rev-parse --short=7 HEAD)
  if(NOT _rc EQUAL 0 OR _commit STREQUAL "")
    return()  # a repository without a commit yet
  endif()
  _roofline_git(_changes status --porcelain --untracked-files=no)
  if(NOT _changes STREQUAL "")
    string(APPEND _commit "-dirty")
  endif()
  set(${out_var} "${PROJECT_VERSION} (git ${_commit})" PARENT_SCOPE)

  # git-path resolves worktrees (HEAD under .git/worktrees/<name>/, branches in the common dir).
  set(_files)
  _roofline_git(_head rev-parse --git-path HEAD)
  list(APPEND _files "${_head}")
  _roofline_git(_ref symbolic-ref -q HEAD)
  if(_rc EQUAL 0)
    _roofline_git(_ref_file rev-parse --git-path "${_ref}")
    _roofline_git(_packed rev-parse --git-path packed-refs)
    list(APPEND _files "${_ref_file}" "${_packed}")
  endif()
  foreach(_f IN LISTS _files)
    get_filename_component(_f "${_f}" ABSOLUTE BASE_DIR "${PROJECT_SOURCE_DIR}")
    # Only files that exist: a missing configure dependency would reconfigure on every build.
    if(EXISTS "${_f}")
      set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_f}")
    endif()
  endforeach()
endfunction()
