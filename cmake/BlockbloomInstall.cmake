# Installation of blockbloom: headers, libraries (static, or shared with
# BUILD_SHARED_LIBS=ON), the command-line tool, a CMake package
# (find_package(blockbloom): blockbloom::blockbloom, blockbloom::leveldb,
# blockbloom::rocksdb, blockbloom::redis_client) and pkg-config files
# (blockbloom.pc, blockbloom-leveldb.pc, ...), and the Redis module
# (lib/redis/modules/blockbloom.so). Included from the top-level
# CMakeLists.txt after every target is defined; tests/consumer/run checks the
# installed result.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(BLOCKBLOOM_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/blockbloom")
# The .pc files find the prefix from their own location (${pcfiledir}), so
# that `cmake --install --prefix DIR` gives working files wherever DIR is.
file(RELATIVE_PATH BLOCKBLOOM_PC_TO_PREFIX
     "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" BLOCKBLOOM_PC_TO_PREFIX "${BLOCKBLOOM_PC_TO_PREFIX}")

# blockbloom_install_component(
#   TARGET target COMPONENT name EXPORT_NAME name PC_NAME name
#   DESCRIPTION text
#   HEADERS header...        relative to include/ (e.g. blockbloom/filter.h)
#   REQUIRES pkg...          pkg-config modules the public headers need
#   REQUIRES_PRIVATE pkg...  pkg-config modules needed only to link
#   LIBS flag...             extra link flags of the public interface
#   LIBS_PRIVATE flag...)    extra link flags needed only to link
#
# Installs one library (the core or an adapter) with its headers, its own
# CMake targets file (blockbloom-COMPONENT-targets.cmake, read by
# blockbloomConfig.cmake when present) and its .pc file, so that the install
# logic is written once for all of them. A static library's private
# dependencies are needed by whoever links it: CMake exports them as
# $<LINK_ONLY:...> (blockbloomConfig.cmake finds them), and the .pc file then
# lists them as public (a plain `pkg-config --libs` links).
function(blockbloom_install_component)
  cmake_parse_arguments(ARG "" "TARGET;COMPONENT;EXPORT_NAME;PC_NAME;DESCRIPTION"
                        "HEADERS;REQUIRES;REQUIRES_PRIVATE;LIBS;LIBS_PRIVATE" ${ARGN})
  set_target_properties(${ARG_TARGET} PROPERTIES
    EXPORT_NAME ${ARG_EXPORT_NAME}
    VERSION ${PROJECT_VERSION}
    SOVERSION ${PROJECT_VERSION_MAJOR}
    # A shared adapter finds libblockbloom.so.0 beside itself wherever the
    # prefix is (a RUNPATH is not inherited from the program).
    INSTALL_RPATH "$ORIGIN")
  install(TARGETS ${ARG_TARGET}
    EXPORT blockbloom-${ARG_COMPONENT}-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${ARG_COMPONENT}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT ${ARG_COMPONENT}
            NAMELINK_COMPONENT ${ARG_COMPONENT}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT ${ARG_COMPONENT}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  foreach(header IN LISTS ARG_HEADERS)
    get_filename_component(dir "${header}" DIRECTORY)
    install(FILES "${PROJECT_SOURCE_DIR}/include/${header}"
            DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/${dir}"
            COMPONENT ${ARG_COMPONENT})
  endforeach()
  install(EXPORT blockbloom-${ARG_COMPONENT}-targets
          NAMESPACE blockbloom::
          DESTINATION ${BLOCKBLOOM_INSTALL_CMAKEDIR}
          COMPONENT ${ARG_COMPONENT})

  # pkg-config.
  get_target_property(output_name ${ARG_TARGET} OUTPUT_NAME)
  if(NOT output_name)
    set(output_name ${ARG_TARGET})
  endif()
  get_target_property(type ${ARG_TARGET} TYPE)
  set(requires ${ARG_REQUIRES})
  set(requires_private ${ARG_REQUIRES_PRIVATE})
  set(libs ${ARG_LIBS})
  set(libs_private ${ARG_LIBS_PRIVATE})
  if(type STREQUAL "STATIC_LIBRARY")
    list(APPEND requires ${requires_private})
    list(APPEND libs ${libs_private})
    set(requires_private "")
    set(libs_private "")
  endif()
  list(JOIN requires ", " PC_REQUIRES)
  list(JOIN requires_private ", " PC_REQUIRES_PRIVATE)
  list(JOIN libs " " PC_LIBS)
  list(JOIN libs_private " " PC_LIBS_PRIVATE)
  set(PC_NAME ${ARG_PC_NAME})
  set(PC_DESCRIPTION "${ARG_DESCRIPTION}")
  set(PC_LIB ${output_name})
  configure_file("${PROJECT_SOURCE_DIR}/cmake/blockbloom.pc.in"
                 "${PROJECT_BINARY_DIR}/pkgconfig/${ARG_PC_NAME}.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/pkgconfig/${ARG_PC_NAME}.pc"
          DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig"
          COMPONENT ${ARG_COMPONENT})
endfunction()

# --- The core library. --------------------------------------------------------
file(GLOB BLOCKBLOOM_CORE_HEADERS RELATIVE "${PROJECT_SOURCE_DIR}/include"
     "${PROJECT_SOURCE_DIR}/include/blockbloom/*.h"
     "${PROJECT_SOURCE_DIR}/include/blockbloom/internal/*.h")
list(REMOVE_ITEM BLOCKBLOOM_CORE_HEADERS blockbloom/leveldb.h
     blockbloom/rocksdb.h blockbloom/redis_client.h)
blockbloom_install_component(
  TARGET blockbloom COMPONENT core EXPORT_NAME blockbloom PC_NAME blockbloom
  DESCRIPTION "Cache-line-blocked Bloom filters for storage engines"
  HEADERS ${BLOCKBLOOM_CORE_HEADERS}
  REQUIRES absl_status absl_statusor absl_span
  REQUIRES_PRIVATE absl_strings absl_str_format libhwy libxxhash libzstd)

# --- Adapters, when built. -----------------------------------------------------
# LevelDB has no .pc file in Debian: plain -lleveldb.
if(TARGET blockbloom_leveldb)
  blockbloom_install_component(
    TARGET blockbloom_leveldb COMPONENT leveldb EXPORT_NAME leveldb
    PC_NAME blockbloom-leveldb
    DESCRIPTION "blockbloom filter policy for LevelDB"
    HEADERS blockbloom/leveldb.h
    REQUIRES blockbloom LIBS -lleveldb)
endif()
if(TARGET blockbloom_rocksdb)
  blockbloom_install_component(
    TARGET blockbloom_rocksdb COMPONENT rocksdb EXPORT_NAME rocksdb
    PC_NAME blockbloom-rocksdb
    DESCRIPTION "blockbloom filter policy for RocksDB"
    HEADERS blockbloom/rocksdb.h
    REQUIRES blockbloom rocksdb)
endif()
if(TARGET blockbloom_redis_client)
  blockbloom_install_component(
    TARGET blockbloom_redis_client COMPONENT redis_client
    EXPORT_NAME redis_client PC_NAME blockbloom-redis-client
    DESCRIPTION "blockbloom shared filters in Redis and Redis Cluster"
    HEADERS blockbloom/redis_client.h
    REQUIRES blockbloom absl_time
    REQUIRES_PRIVATE hiredis absl_strings absl_str_format)
endif()

# --- The command-line tool. ----------------------------------------------------
if(TARGET blockbloom_tool)
  # A shared libblockbloom is found beside the tool's bin/ directory.
  file(RELATIVE_PATH BLOCKBLOOM_BIN_TO_LIB
       "/prefix/${CMAKE_INSTALL_BINDIR}" "/prefix/${CMAKE_INSTALL_LIBDIR}")
  set_target_properties(blockbloom_tool PROPERTIES
    INSTALL_RPATH "$ORIGIN/${BLOCKBLOOM_BIN_TO_LIB}")
  install(TARGETS blockbloom_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT tool)
endif()

# --- The Redis module. ---------------------------------------------------------
# blockbloom.so where Redis modules are kept (Debian: /usr/lib/redis/modules),
# for a redis.conf line `loadmodule <prefix>/lib/redis/modules/blockbloom.so`
# (docs/REDIS_MODULE.md). Built when redismodule.h is found (src/redis_module).
set(BLOCKBLOOM_REDIS_MODULE_INSTALL_DIR "lib/redis/modules" CACHE STRING
    "Where `cmake --install` puts the Redis module blockbloom.so, relative to the prefix")
if(TARGET blockbloom_redis_module)
  # With BUILD_SHARED_LIBS the module links libblockbloom.so.0: found in the
  # prefix's library folder wherever the prefix is.
  file(RELATIVE_PATH BLOCKBLOOM_MODULE_TO_LIB
       "/prefix/${BLOCKBLOOM_REDIS_MODULE_INSTALL_DIR}"
       "/prefix/${CMAKE_INSTALL_LIBDIR}")
  set_target_properties(blockbloom_redis_module PROPERTIES
    INSTALL_RPATH "$ORIGIN/${BLOCKBLOOM_MODULE_TO_LIB}")
  # Executable: Redis 7 refuses to load a module file without execute
  # permission ("It does not have execute permissions"), and CMake installs
  # a module library as rw-r--r--.
  install(TARGETS blockbloom_redis_module
          LIBRARY DESTINATION ${BLOCKBLOOM_REDIS_MODULE_INSTALL_DIR}
          COMPONENT redis_module
          PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                      GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endif()

# --- The license. --------------------------------------------------------------
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE"
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT core)

# --- The CMake package. --------------------------------------------------------
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/blockbloomConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cmake/blockbloomConfig.cmake"
  INSTALL_DESTINATION ${BLOCKBLOOM_INSTALL_CMAKEDIR})
# The major version is the SONAME's (SOVERSION above).
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/cmake/blockbloomConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/cmake/blockbloomConfig.cmake"
              "${PROJECT_BINARY_DIR}/cmake/blockbloomConfigVersion.cmake"
        DESTINATION ${BLOCKBLOOM_INSTALL_CMAKEDIR} COMPONENT core)
