# Finds the RocksDB the adapter builds against and makes it one target,
# blockbloom_rocksdb_engine, that everything using RocksDB links
# (${BLOCKBLOOM_ROCKSDB_LIB} names it).
#
# Where from, first found wins (CMAKE_PREFIX_PATH is searched before the
# system's paths by each):
#   1. pkg-config's rocksdb.pc (Debian's, or one under CMAKE_PREFIX_PATH);
#   2. RocksDB's own CMake package (RocksDBConfig.cmake, as `cmake --install`
#      of RocksDB writes it, vcpkg and Conan too): its library file;
#   3. librocksdb and rocksdb/filter_policy.h on the search paths.
# The headers' version (rocksdb/version.h) picks the adapter's mirror of
# RocksDB's internal classes (src/rocksdb/filter_bits.h).
#
# RTTI: RocksDB's CMake builds Release without it (USE_RTTI=AUTO adds
# -fno-rtti); distributions build with it. A class derived from a RocksDB
# class and compiled with RTTI refers to its base's typeinfo, which a
# library built without RTTI does not define: the link fails. So if the
# library has no `typeinfo for rocksdb::FilterPolicy`, everything that uses
# RocksDB is compiled with -fno-rtti too (the adapter needs no RTTI: it
# recognises its own policies by name).
include(CheckCXXSourceCompiles)

function(blockbloom_find_rocksdb)
  if(TARGET blockbloom_rocksdb_engine)
    set(BLOCKBLOOM_HAVE_ROCKSDB_ENGINE ON PARENT_SCOPE)
    return()
  endif()
  set(include_hint "")
  set(lib_hint "")
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(BLOCKBLOOM_ROCKSDB_PC QUIET rocksdb)
    if(BLOCKBLOOM_ROCKSDB_PC_FOUND)
      set(include_hint ${BLOCKBLOOM_ROCKSDB_PC_INCLUDE_DIRS}
                       ${BLOCKBLOOM_ROCKSDB_PC_INCLUDEDIR})
      set(lib_hint ${BLOCKBLOOM_ROCKSDB_PC_LIBRARY_DIRS}
                   ${BLOCKBLOOM_ROCKSDB_PC_LIBDIR})
    endif()
  endif()
  if(NOT include_hint)
    find_package(RocksDB CONFIG QUIET)
    foreach(t RocksDB::rocksdb-shared RocksDB::rocksdb)
      if(TARGET ${t} AND NOT include_hint)
        get_target_property(dirs ${t} INTERFACE_INCLUDE_DIRECTORIES)
        if(dirs)
          set(include_hint ${dirs})
        endif()
        foreach(config RELEASE NONE RELWITHDEBINFO DEBUG "")
          if(config)
            get_target_property(location ${t} IMPORTED_LOCATION_${config})
          else()
            get_target_property(location ${t} IMPORTED_LOCATION)
          endif()
          if(location)
            get_filename_component(dir "${location}" DIRECTORY)
            list(APPEND lib_hint "${dir}")
            break()
          endif()
        endforeach()
      endif()
    endforeach()
  endif()
  find_path(BLOCKBLOOM_ROCKSDB_INCLUDE rocksdb/filter_policy.h
            HINTS ${include_hint})
  find_library(BLOCKBLOOM_ROCKSDB_LIBRARY rocksdb HINTS ${lib_hint})
  if(NOT BLOCKBLOOM_ROCKSDB_INCLUDE OR NOT BLOCKBLOOM_ROCKSDB_LIBRARY)
    return()
  endif()

  file(STRINGS "${BLOCKBLOOM_ROCKSDB_INCLUDE}/rocksdb/version.h" lines
       REGEX "^#define ROCKSDB_(MAJOR|MINOR|PATCH) ")
  set(version "")
  foreach(part MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*#define ROCKSDB_${part} ([0-9]+).*" "\\1" n
           "${lines}")
    list(APPEND version ${n})
  endforeach()
  string(REPLACE ";" "." version "${version}")

  # The library's RTTI, by linking a reference to a RocksDB typeinfo.
  set(CMAKE_REQUIRED_INCLUDES "${BLOCKBLOOM_ROCKSDB_INCLUDE}")
  set(CMAKE_REQUIRED_LIBRARIES "${BLOCKBLOOM_ROCKSDB_LIBRARY}")
  set(CMAKE_REQUIRED_QUIET ON)
  unset(BLOCKBLOOM_ROCKSDB_HAS_RTTI CACHE)
  check_cxx_source_compiles([[
#include <rocksdb/filter_policy.h>
#include <typeinfo>
int main() { return typeid(rocksdb::FilterPolicy).name()[0] == 0; }
]] BLOCKBLOOM_ROCKSDB_HAS_RTTI)

  add_library(blockbloom_rocksdb_engine INTERFACE IMPORTED GLOBAL)
  set_target_properties(blockbloom_rocksdb_engine PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${BLOCKBLOOM_ROCKSDB_INCLUDE}"
    INTERFACE_LINK_LIBRARIES "${BLOCKBLOOM_ROCKSDB_LIBRARY}")
  set(note "")
  if(NOT BLOCKBLOOM_ROCKSDB_HAS_RTTI)
    set_property(TARGET blockbloom_rocksdb_engine
                 PROPERTY INTERFACE_COMPILE_OPTIONS -fno-rtti)
    set(note ", built without RTTI: its users compile with -fno-rtti")
  endif()
  set(BLOCKBLOOM_ROCKSDB_LIB blockbloom_rocksdb_engine CACHE INTERNAL
      "the RocksDB target" FORCE)
  set(BLOCKBLOOM_ROCKSDB_VERSION "${version}" PARENT_SCOPE)
  set(BLOCKBLOOM_ROCKSDB_RTTI_NOTE "${note}" PARENT_SCOPE)
  set(BLOCKBLOOM_HAVE_ROCKSDB_ENGINE ON PARENT_SCOPE)
endfunction()
