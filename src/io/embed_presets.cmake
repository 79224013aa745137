# Writes embedded_presets.cpp from the preset JSON files, at build time (ninja's browse.py pattern).
# Run by the add_custom_command in src/CMakeLists.txt, which lists every preset as a dependency,
# so editing one regenerates and recompiles this one file.
#   cmake -DSOURCE_DIR=<project root> -DTEMPLATE=<embedded_presets.cpp.in> -DOUTPUT=<file>
#         -DPRESETS=<relative paths, '|'-separated> -P embed_presets.cmake
foreach(_var SOURCE_DIR TEMPLATE OUTPUT PRESETS)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "embed_presets.cmake: -D${_var}=... is required")
  endif()
endforeach()

# The text goes into R"rfl_json(...)rfl_json"; a file containing the closing delimiter would end
# the literal early.
set(_delimiter ")rfl_json\"")
string(REPLACE "|" ";" _presets "${PRESETS}")
set(_entries "")
foreach(_rel IN LISTS _presets)
  file(READ "${SOURCE_DIR}/${_rel}" _text)
  string(FIND "${_text}" "${_delimiter}" _at)
  if(NOT _at EQUAL -1)
    message(FATAL_ERROR "${_rel} contains the sequence ${_delimiter}, which ends the raw string literal "
                        "it is embedded in; remove it from the file")
  endif()
  # presets/<kind>/<name>.json; the name keeps any inner dots (llama3.1-8b).
  get_filename_component(_kind_dir "${_rel}" DIRECTORY)
  get_filename_component(_kind "${_kind_dir}" NAME)
  get_filename_component(_name "${_rel}" NAME)
  string(REGEX REPLACE "\\.json$" "" _stem "${_name}")
  # The aliases, one a line, read here so that looking one up does not parse every preset at run time.
  # A file whose aliases CMake cannot read (invalid JSON, not an array of plain strings) is left to
  # the run time reader, which names the error.
  set(_aliases "")
  set(_known "true")
  string(JSON _type ERROR_VARIABLE _err TYPE "${_text}" aliases)
  if(_err STREQUAL "NOTFOUND" AND _type STREQUAL "ARRAY")
    string(JSON _count LENGTH "${_text}" aliases)
    if(_count GREATER 0)
      math(EXPR _last "${_count} - 1")
      foreach(_i RANGE ${_last})
        string(JSON _atype TYPE "${_text}" aliases ${_i})
        string(JSON _alias GET "${_text}" aliases ${_i})
        if(NOT _atype STREQUAL "STRING" OR NOT _alias MATCHES "^[-A-Za-z0-9._/+:() ]+$")
          set(_known "false")
        endif()
        string(APPEND _aliases "${_alias}\\n")
      endforeach()
    endif()
  elseif(NOT _err MATCHES "not found")
    set(_known "false")
  endif()
  if(NOT _known)
    set(_aliases "")
  endif()
  string(APPEND _entries "    {\"${_kind}\", \"${_stem}\", \"${_rel}\", R\"rfl_json(${_text})rfl_json\", \"${_aliases}\", ${_known}},\n")
endforeach()

file(READ "${TEMPLATE}" _template)
string(CONFIGURE "${_template}" _cpp @ONLY)
file(WRITE "${OUTPUT}" "${_cpp}")
