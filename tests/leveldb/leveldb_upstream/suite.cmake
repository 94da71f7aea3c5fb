# Included by CMakeLists.txt with -DLU_SUITE=ON: LevelDB 1.23's whole test
# suite with a filter policy as the default of every leveldb::Options.
#
# LevelDB's tests open most of their DBs (and tables, repairs, the C API's
# options) with a default-constructed Options, whose filter_policy is
# nullptr: bloom_test and db_test are the only ones that ever read a filter.
# Here util/options.cc is edited so that Options() sets
#   filter_policy = leveldb::SuiteDefaultFilterPolicy();
# a function each program links from suite_default_policy.cc, built four
# ways (one target per variant):
#   <test>_blockbloom  blockbloom::NewLevelDBFilterPolicy(10), and
#                      bloom_test/db_test swapped as in the default mode
#   <test>_accurate    the same with the accurate encoding (accurate_policy.h)
#   <test>             LevelDB's NewBloomFilterPolicy(10), pristine sources
#                      (a failure here is LevelDB's with any filter, not ours)
#   <test>_none        nullptr: upstream's own behaviour
# A test that sets its own filter_policy (db_test's kFilter configuration,
# c_test) still gets its own. The edited library is this build folder's
# only LevelDB; it cannot serve the default mode's programs (they do not
# define the function), hence a build folder of its own.
#
# Targets suite_blockbloom, suite_accurate, suite_builtin and suite_none
# build every program of one variant; suite_tests.txt lists the programs'
# base names, in LevelDB's order, for the runner.

# The programs LevelDB's own CMakeLists.txt declares with leveldb_test()
# (read from it, so that a test upstream adds is not silently left out),
# minus the Windows-only one.
file(STRINGS "${LEVELDB_SOURCE_DIR}/CMakeLists.txt" decls
     REGEX "^[ ]*leveldb_test\\(\"[^\"]+\"\\)")
set(suite_sources)
foreach(decl IN LISTS decls)
  string(REGEX REPLACE ".*leveldb_test\\(\"([^\"]+)\"\\).*" "\\1" src "${decl}")
  if(NOT src MATCHES "env_windows_test")
    list(APPEND suite_sources "${src}")
  endif()
endforeach()
list(LENGTH suite_sources suite_count)
if(suite_count LESS 20)
  message(FATAL_ERROR "found only ${suite_count} leveldb_test() declarations"
                      " in ${LEVELDB_SOURCE_DIR}/CMakeLists.txt")
endif()
message(STATUS "LevelDB suite: ${suite_count} test programs")

# util/options.cc, edited: the constructor also sets the default policy.
# Fails if 1.23's constructor is not found as expected (another release
# must be looked at, not silently run without the policy).
set(options_in "${LEVELDB_SOURCE_DIR}/util/options.cc")
set(options_out "${EDITED}/util/options.cc")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${options_in}")
file(READ "${options_in}" text)
set(ctor "Options::Options() : comparator(BytewiseComparator()), env(Env::Default()) {}")
string(FIND "${text}" "${ctor}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${options_in}: Options' constructor is not `${ctor}`")
endif()
string(REPLACE "${ctor}"
       "Options::Options() : comparator(BytewiseComparator()), env(Env::Default()) {\n  filter_policy = SuiteDefaultFilterPolicy();\n}"
       text "${text}")
file(WRITE "${options_out}.tmp"
     "// Edited copy: Options() sets filter_policy to the program's default\n"
     "// (blockbloom's tests/leveldb/leveldb_upstream/suite.cmake).\n"
     "namespace leveldb {\n"
     "class FilterPolicy;\n"
     "const FilterPolicy* SuiteDefaultFilterPolicy();\n"
     "}  // namespace leveldb\n"
     "#line 1 \"${options_in}\"\n"
     "${text}")
file(COPY_FILE "${options_out}.tmp" "${options_out}" ONLY_IF_DIFFERENT)
file(REMOVE "${options_out}.tmp")
get_target_property(leveldb_sources leveldb SOURCES)
list(FIND leveldb_sources "util/options.cc" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the leveldb target has no util/options.cc to replace")
endif()
list(REMOVE_ITEM leveldb_sources "util/options.cc")
set_property(TARGET leveldb PROPERTY SOURCES ${leveldb_sources} "${options_out}")

# The default policy, one object library per variant.
set(variants ${swapped_variants} builtin none)
foreach(variant IN LISTS variants)
  add_library(suite_policy_${variant} OBJECT
              "${CMAKE_CURRENT_SOURCE_DIR}/suite_default_policy.cc")
  set_target_properties(suite_policy_${variant} PROPERTIES CXX_STANDARD 20)
  string(TOUPPER "${variant}" upper)
  target_compile_definitions(suite_policy_${variant} PRIVATE
                             LU_SUITE_POLICY_${upper}=1)
  target_link_libraries(suite_policy_${variant} PUBLIC leveldb)
endforeach()
foreach(variant IN LISTS swapped_variants)
  target_link_libraries(suite_policy_${variant} PUBLIC lu_policy_${variant})
endforeach()

set(names)
foreach(variant IN LISTS variants)
  add_custom_target(suite_${variant})
endforeach()
foreach(src IN LISTS suite_sources)
  get_filename_component(name "${src}" NAME_WE)
  list(APPEND names ${name})
  foreach(variant IN LISTS variants)
    set(program_source "${LEVELDB_SOURCE_DIR}/${src}")
    if(variant IN_LIST swapped_variants)
      set(target ${name}_${variant})
      # The tests that create LevelDB's policy themselves get ours there too.
      file(READ "${program_source}" program_text)
      if(program_text MATCHES "NewBloomFilterPolicy")
        swap_policy(${variant} ${src})
        set(program_source "${EDITED}/${variant}/${src}")
      endif()
    elseif(variant STREQUAL "builtin")
      set(target ${name})
    else()
      set(target ${name}_none)
    endif()
    leveldb_program(${target} SOURCES "${program_source}")
    target_link_libraries(${target} PRIVATE suite_policy_${variant})
    add_dependencies(suite_${variant} ${target})
  endforeach()
endforeach()
string(REPLACE ";" "\n" names_text "${names}")
file(WRITE "${PROJECT_BINARY_DIR}/suite_tests.txt" "${names_text}\n")
