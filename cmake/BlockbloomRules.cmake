# The CMake side of the build rules every folder uses, written to mirror
# Bazel's (copts.bzl): each folder's CMakeLists.txt declares the same targets,
# with the same names, sources and dependencies, as the BUILD.bazel beside
# it, the way Abseil's CMake build mirrors its Bazel build.
#
#   blockbloom_cc_library(NAME n [SRCS ...] [HDRS ...] [DEPS ...] [TESTONLY])
#   blockbloom_cc_binary(NAME n SRCS ... [DEPS ...] [LINKSHARED]
#                        [CMAKE_TARGET t] [OUTPUT_NAME o] [DEFINES ...])
#   blockbloom_cc_test(NAME n SRCS ... [DEPS ...] [ARGS ...] [DEFINES ...]
#                      [LABELS ...] [DATA_DIR])
#   blockbloom_package(NAME n DEPS ... [PUBLIC_EXTERNAL ...]
#                      [PRIVATE_EXTERNAL ...])
#
# DEPS mixes Bazel labels of this repository's targets ("//src/core",
# "//tests:test_support", ":layer") and CMake targets of system libraries
# ("absl::status", "hwy::hwy"): a label names the target Bazel names, and the
# check (scripts/check_builds) compares those, label for label, with the
# BUILD.bazel files; system libraries are named at each build's own grain
# (Bazel has one @blockbloom_system//:absl, CMake one target per Abseil
# library) and are not compared.
#
# How labels become CMake targets:
# - a library //P:N is the CMake target blockbloom_N (library names are unique
#   in the repository), a binary or test //P:N is N (or CMAKE_TARGET);
# - the folders of the library (BLOCKBLOOM_LIBRARY_FOLDERS) are OBJECT
#   libraries, packed into the one library users link (blockbloom, declared
#   with blockbloom_package); a binary or test that depends on one of them
#   links that package instead, which holds its objects and their
#   dependencies' (an OBJECT library's objects are only linked into its
#   direct dependents);
# - the installed adapters (BLOCKBLOOM_INSTALLED_ADAPTERS) are shared with
#   BUILD_SHARED_LIBS, static otherwise; every other library (tests', tools',
#   benchmarks', the filter stack's) is always static: nothing installs it,
#   so an installed program must not need it at run time.
#
# Every call also appends the target to the manifest,
# ${CMAKE_BINARY_DIR}/blockbloom_targets.json, that scripts/check_builds
# reads: {label, kind, srcs, hdrs, deps}, paths relative to the repository.

set(BLOCKBLOOM_MANIFEST "${CMAKE_BINARY_DIR}/blockbloom_targets.json.in")
set_property(GLOBAL PROPERTY BLOCKBLOOM_MANIFEST_ENTRIES "")

# The label of NAME in the current folder: //P:N.
function(_blockbloom_label out name)
  file(RELATIVE_PATH package "${PROJECT_SOURCE_DIR}"
       "${CMAKE_CURRENT_SOURCE_DIR}")
  set(${out} "//${package}:${name}" PARENT_SCOPE)
endfunction()

# A label written in DEPS, made absolute: ":x" -> //P:x, "//P" -> //P:<last
# part of P>.
function(_blockbloom_absolute out label)
  if(label MATCHES "^:")
    file(RELATIVE_PATH package "${PROJECT_SOURCE_DIR}"
         "${CMAKE_CURRENT_SOURCE_DIR}")
    set(label "//${package}${label}")
  elseif(NOT label MATCHES ":")
    get_filename_component(last "${label}" NAME)
    set(label "${label}:${last}")
  endif()
  set(${out} "${label}" PARENT_SCOPE)
endfunction()

# The CMake target that a dependent of `label` links: its own target, or the
# package that holds an OBJECT library. Empty if the target does not exist in
# this configuration (an optional library: the dependent's folder decides
# what to do without it).
function(_blockbloom_link_target out label)
  get_property(target GLOBAL PROPERTY "BLOCKBLOOM_TARGET_${label}")
  get_property(package GLOBAL PROPERTY "BLOCKBLOOM_PACKAGE_${label}")
  if(package)
    set(target "${package}")
  endif()
  set(${out} "${target}" PARENT_SCOPE)
endfunction()

# Splits DEPS into labels (absolute) and CMake targets.
function(_blockbloom_split_deps labels_out cmake_out)
  set(labels "")
  set(cmake "")
  foreach(dep IN LISTS ARGN)
    if(dep MATCHES "^(//|:)")
      _blockbloom_absolute(absolute "${dep}")
      list(APPEND labels "${absolute}")
    else()
      list(APPEND cmake "${dep}")
    endif()
  endforeach()
  set(${labels_out} "${labels}" PARENT_SCOPE)
  set(${cmake_out} "${cmake}" PARENT_SCOPE)
endfunction()

# Sources relative to the repository, for the manifest.
function(_blockbloom_repo_paths out)
  set(paths "")
  foreach(file IN LISTS ARGN)
    get_filename_component(absolute "${file}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    file(RELATIVE_PATH relative "${PROJECT_SOURCE_DIR}" "${absolute}")
    list(APPEND paths "\"${relative}\"")
  endforeach()
  list(JOIN paths ", " joined)
  set(${out} "[${joined}]" PARENT_SCOPE)
endfunction()

function(_blockbloom_record label kind srcs hdrs labels)
  _blockbloom_repo_paths(src_json ${srcs})
  _blockbloom_repo_paths(hdr_json ${hdrs})
  set(dep_list "")
  foreach(dep IN LISTS labels)
    list(APPEND dep_list "\"${dep}\"")
  endforeach()
  list(JOIN dep_list ", " dep_json)
  set_property(GLOBAL APPEND PROPERTY BLOCKBLOOM_MANIFEST_ENTRIES
    "{\"label\": \"${label}\", \"kind\": \"${kind}\", \"srcs\": ${src_json}, \"hdrs\": ${hdr_json}, \"deps\": [${dep_json}]}")
endfunction()

# Links `target` with the labels (as _blockbloom_link_target resolves them)
# and the CMake targets. An OBJECT library links its label dependencies
# themselves: it needs their usage requirements, not their objects.
function(_blockbloom_link target scope object labels)
  foreach(label IN LISTS labels)
    if(object)
      get_property(dep GLOBAL PROPERTY "BLOCKBLOOM_TARGET_${label}")
    else()
      _blockbloom_link_target(dep "${label}")
    endif()
    if(NOT dep)
      message(FATAL_ERROR "${target}: dependency ${label} is not defined "
                          "(declared later, or not built in this "
                          "configuration)")
    endif()
    if(NOT dep STREQUAL target)
      # A library of headers only (the public headers, test fixtures) is
      # not installed: it serves the build tree.
      get_target_property(type ${dep} TYPE)
      if(type STREQUAL "INTERFACE_LIBRARY" AND NOT scope STREQUAL "PRIVATE")
        set(dep "$<BUILD_INTERFACE:${dep}>")
      endif()
      target_link_libraries(${target} ${scope} ${dep})
    endif()
  endforeach()
  if(ARGN)
    target_link_libraries(${target} ${scope} ${ARGN})
  endif()
endfunction()

# Tests' own code (and their fixtures) is compiled at -O1 in optimized
# builds: the code under test is the library's, compiled as users get it,
# and GoogleTest's templates compile 2.4x faster at -O1 than at -O3
# (commands_test.cc: 42 s against 18 s), which is most of a build's time.
# Bazel's tests take the same flags (copts.bzl, TEST_COPTS).
function(_blockbloom_test_copts target)
  if(CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo|MinSizeRel)$")
    target_compile_options(${target} PRIVATE -O1)
  endif()
endfunction()

# PIC: position-independent code, for a static library that a shared object
# links (the Redis module links the filter stack); the library folders are
# always compiled so (the module and the Python extension link blockbloom).
# Not by default: -fPIC reaches globals through the GOT, which costs the
# LevelDB adapter's inlined probe 8 instructions per KeyMayMatch.
function(blockbloom_cc_library)
  cmake_parse_arguments(ARG "TESTONLY;PIC" "NAME" "SRCS;HDRS;DEPS;DEFINES"
                        ${ARGN})
  _blockbloom_label(label ${ARG_NAME})
  _blockbloom_split_deps(labels cmake_deps ${ARG_DEPS})
  set(target blockbloom_${ARG_NAME})
  list(FILTER ARG_SRCS INCLUDE REGEX "\\.(cc|c)$")
  # Headers are included by their path in the repository ("src/core/...",
  # "tests/..."), but the public ones by their path in include/
  # ("blockbloom/filter.h": Bazel's strip_include_prefix = "/include").
  if(CMAKE_CURRENT_SOURCE_DIR STREQUAL "${PROJECT_SOURCE_DIR}/include")
    set(include_dir "${CMAKE_CURRENT_SOURCE_DIR}")
  else()
    set(include_dir "${PROJECT_SOURCE_DIR}")
  endif()
  if(NOT ARG_SRCS)
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE
      $<BUILD_INTERFACE:${include_dir}>)
    set(scope INTERFACE)
    set(object FALSE)
  else()
    if(ARG_NAME IN_LIST BLOCKBLOOM_LIBRARY_FOLDERS)
      add_library(${target} OBJECT ${ARG_SRCS} ${ARG_HDRS})
      set(object TRUE)
    elseif(ARG_NAME IN_LIST BLOCKBLOOM_INSTALLED_ADAPTERS)
      add_library(${target} ${ARG_SRCS} ${ARG_HDRS})
      set(object FALSE)
    else()
      add_library(${target} STATIC ${ARG_SRCS} ${ARG_HDRS})
      set(object FALSE)
    endif()
    target_include_directories(${target} PUBLIC
      $<BUILD_INTERFACE:${include_dir}>)
    target_compile_options(${target} PRIVATE ${BLOCKBLOOM_WARNINGS})
    if(ARG_DEFINES)
      target_compile_definitions(${target} PRIVATE ${ARG_DEFINES})
    endif()
    if(object OR ARG_PIC)
      set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    endif()
    if(ARG_TESTONLY)
      _blockbloom_test_copts(${target})
    endif()
    set(scope PUBLIC)
  endif()
  set_property(GLOBAL PROPERTY "BLOCKBLOOM_TARGET_${label}" ${target})
  _blockbloom_link(${target} ${scope} "${object}" "${labels}" ${cmake_deps})
  _blockbloom_record("${label}" cc_library "${ARG_SRCS}" "${ARG_HDRS}"
                     "${labels}")
endfunction()

# The one library users link (and that is installed): the objects of the
# folder libraries in DEPS. System libraries are named here as they are
# exported: PUBLIC_EXTERNAL those the public headers need, PRIVATE_EXTERNAL
# those the objects need.
function(blockbloom_package)
  cmake_parse_arguments(ARG "" "NAME"
                        "DEPS;PUBLIC_EXTERNAL;PRIVATE_EXTERNAL" ${ARGN})
  _blockbloom_label(label ${ARG_NAME})
  _blockbloom_split_deps(labels cmake_deps ${ARG_DEPS})
  if(ARG_NAME STREQUAL "blockbloom")
    set(target blockbloom)
  else()
    set(target blockbloom_${ARG_NAME})
  endif()
  add_library(${target})
  foreach(dep IN LISTS labels)
    get_property(object GLOBAL PROPERTY "BLOCKBLOOM_TARGET_${dep}")
    # Linking an OBJECT library directly adds its objects; BUILD_INTERFACE
    # keeps it out of the installed package's link interface.
    target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:${object}>)
    set_property(GLOBAL PROPERTY "BLOCKBLOOM_PACKAGE_${dep}" ${target})
  endforeach()
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>)
  target_link_libraries(${target} PUBLIC ${ARG_PUBLIC_EXTERNAL}
                        PRIVATE ${ARG_PRIVATE_EXTERNAL})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  set_property(GLOBAL PROPERTY "BLOCKBLOOM_TARGET_${label}" ${target})
  _blockbloom_record("${label}" cc_library "" "" "${labels}")
endfunction()

function(blockbloom_cc_binary)
  cmake_parse_arguments(ARG "LINKSHARED;TESTONLY" "NAME;CMAKE_TARGET;OUTPUT_NAME"
                        "SRCS;DEPS;DEFINES" ${ARGN})
  _blockbloom_label(label ${ARG_NAME})
  _blockbloom_split_deps(labels cmake_deps ${ARG_DEPS})
  set(target ${ARG_NAME})
  if(ARG_CMAKE_TARGET)
    set(target ${ARG_CMAKE_TARGET})
  endif()
  if(ARG_LINKSHARED)
    add_library(${target} MODULE ${ARG_SRCS})
  else()
    add_executable(${target} ${ARG_SRCS})
  endif()
  if(ARG_OUTPUT_NAME)
    set_target_properties(${target} PROPERTIES OUTPUT_NAME ${ARG_OUTPUT_NAME})
  endif()
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(${target} PRIVATE ${BLOCKBLOOM_WARNINGS})
  if(ARG_DEFINES)
    target_compile_definitions(${target} PRIVATE ${ARG_DEFINES})
  endif()
  set_property(GLOBAL PROPERTY "BLOCKBLOOM_TARGET_${label}" ${target})
  _blockbloom_link(${target} PRIVATE FALSE "${labels}" ${cmake_deps})
  list(FILTER ARG_SRCS INCLUDE REGEX "\\.(cc|c)$")
  _blockbloom_record("${label}" cc_binary "${ARG_SRCS}" "" "${labels}")
endfunction()

# A cc_test: the binary, and its ctest test of the same name. DATA_DIR
# defines BLOCKBLOOM_TESTDATA_DIR (tests/testdata), as the Bazel tests'
# local_defines do.
function(blockbloom_cc_test)
  cmake_parse_arguments(ARG "DATA_DIR" "NAME"
                        "SRCS;DEPS;ARGS;DEFINES;LABELS" ${ARGN})
  blockbloom_cc_binary(NAME ${ARG_NAME} SRCS ${ARG_SRCS} DEPS ${ARG_DEPS}
                       DEFINES ${ARG_DEFINES})
  _blockbloom_test_copts(${ARG_NAME})
  if(ARG_DATA_DIR)
    target_compile_definitions(${ARG_NAME} PRIVATE
      BLOCKBLOOM_TESTDATA_DIR="${PROJECT_SOURCE_DIR}/tests/testdata")
  endif()
  # The manifest lists it as a test, not a binary.
  get_property(entries GLOBAL PROPERTY BLOCKBLOOM_MANIFEST_ENTRIES)
  list(POP_BACK entries last)
  string(REPLACE "\"kind\": \"cc_binary\"" "\"kind\": \"cc_test\"" last
         "${last}")
  list(APPEND entries "${last}")
  set_property(GLOBAL PROPERTY BLOCKBLOOM_MANIFEST_ENTRIES "${entries}")
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME} ${ARG_ARGS})
  if(ARG_LABELS)
    set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
endfunction()

# An alias, as Bazel's alias(): //P:NAME stands for ACTUAL. CMake also gets
# blockbloom::NAME when the alias is at the root (the public names).
function(blockbloom_alias)
  cmake_parse_arguments(ARG "" "NAME;ACTUAL" "" ${ARGN})
  _blockbloom_label(label ${ARG_NAME})
  _blockbloom_absolute(actual "${ARG_ACTUAL}")
  get_property(target GLOBAL PROPERTY "BLOCKBLOOM_TARGET_${actual}")
  get_property(package GLOBAL PROPERTY "BLOCKBLOOM_PACKAGE_${actual}")
  if(NOT target)
    return()  # not built in this configuration
  endif()
  set_property(GLOBAL PROPERTY "BLOCKBLOOM_TARGET_${label}" ${target})
  if(package)
    set_property(GLOBAL PROPERTY "BLOCKBLOOM_PACKAGE_${label}" ${package})
  endif()
  set_property(GLOBAL APPEND PROPERTY BLOCKBLOOM_MANIFEST_ENTRIES
    "{\"label\": \"${label}\", \"kind\": \"alias\", \"actual\": \"${actual}\"}")
endfunction()

# Writes the manifest (called once, at the end of the top-level file).
function(blockbloom_write_manifest)
  get_property(entries GLOBAL PROPERTY BLOCKBLOOM_MANIFEST_ENTRIES)
  list(JOIN entries ",\n  " body)
  file(WRITE "${CMAKE_BINARY_DIR}/blockbloom_targets.json"
       "[\n  ${body}\n]\n")
endfunction()

# A test run by a program of this repository or a script, with arguments,
# as Bazel's sh_test: PROGRAM is the label of a cc_binary (run through
# tests/bazel/run.sh in Bazel: the smoke runs of examples and benchmarks);
# SCRIPT a file of this folder that Bazel runs itself, with the targets of
# DATA (labels) beside it and ENV in its environment.
function(blockbloom_sh_test)
  cmake_parse_arguments(ARG "" "NAME;PROGRAM;SCRIPT" "ARGS;LABELS;DATA;ENV"
                        ${ARGN})
  _blockbloom_label(label ${ARG_NAME})
  set(data "")
  if(ARG_PROGRAM)
    _blockbloom_absolute(program "${ARG_PROGRAM}")
    get_property(command GLOBAL PROPERTY "BLOCKBLOOM_TARGET_${program}")
    if(NOT command)
      message(FATAL_ERROR "${label}: ${program} is not defined")
    endif()
    list(APPEND data "${program}")
  else()
    set(command "${CMAKE_CURRENT_SOURCE_DIR}/${ARG_SCRIPT}")
  endif()
  foreach(dep IN LISTS ARG_DATA)
    _blockbloom_absolute(absolute "${dep}")
    list(APPEND data "${absolute}")
  endforeach()
  add_test(NAME ${ARG_NAME} COMMAND ${command} ${ARG_ARGS})
  if(ARG_LABELS)
    set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${ARG_LABELS}")
  endif()
  if(ARG_ENV)
    set_tests_properties(${ARG_NAME} PROPERTIES ENVIRONMENT "${ARG_ENV}")
  endif()
  set(data_json "")
  foreach(dep IN LISTS data)
    list(APPEND data_json "\"${dep}\"")
  endforeach()
  list(JOIN data_json ", " data_json)
  set_property(GLOBAL APPEND PROPERTY BLOCKBLOOM_MANIFEST_ENTRIES
    "{\"label\": \"${label}\", \"kind\": \"sh_test\", \"data\": [${data_json}]}")
endfunction()

# Whether `label` names a target of this configuration (optional libraries
# and the tests' fixtures are not always built).
function(blockbloom_defined out)
  set(result TRUE)
  foreach(label IN LISTS ARGN)
    _blockbloom_absolute(absolute "${label}")
    get_property(target GLOBAL PROPERTY "BLOCKBLOOM_TARGET_${absolute}")
    if(NOT target)
      set(result FALSE)
    endif()
  endforeach()
  set(${out} ${result} PARENT_SCOPE)
endfunction()
