# cmake -DIN=c_test.c -DOUT=edited.c -DFUNCTION=fn -DHEADER=h.h \
#       -P swap_c_policy.cmake
#
# swap_policy.cmake for LevelDB's C API test (db/c_test.c): copies it with
# every leveldb_filterpolicy_create_bloom(N) replaced by FUNCTION(N) and
# HEADER (which declares it) included first: blockbloom's
# blockbloom_leveldb_filterpolicy_create from blockbloom/c.h for the default
# mode, the accuracy mode's wrapper from accurate_c_policy.h for
# --mode=accurate. Each returns a leveldb_filterpolicy_t* that the test
# destroys with leveldb_filterpolicy_destroy, so nothing else changes.
# Fails if the file creates no built-in policy or if any mention of
# leveldb_filterpolicy_create_bloom is left.
foreach(var IN ITEMS IN OUT FUNCTION HEADER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "swap_c_policy.cmake: -D${var}= is required")
  endif()
endforeach()
file(READ "${IN}" text)
string(REGEX MATCHALL "leveldb_filterpolicy_create_bloom" before "${text}")
list(LENGTH before count)
string(REGEX REPLACE "([^A-Za-z0-9_])leveldb_filterpolicy_create_bloom[ ]*\\("
       "\\1${FUNCTION}(" text "${text}")
string(REGEX MATCHALL "leveldb_filterpolicy_create_bloom" after "${text}")
if(count EQUAL 0 OR after)
  message(FATAL_ERROR "${IN}: expected leveldb_filterpolicy_create_bloom("
                      " calls to swap; found ${count}, left unswapped: ${after}")
endif()
file(WRITE "${OUT}.tmp"
     "/* Edited copy: leveldb_filterpolicy_create_bloom -> ${FUNCTION}\n"
     "   (${count} calls; blockbloom's tests/engines/leveldb_upstream/swap_c_policy.cmake). */\n"
     "#include \"${HEADER}\"\n"
     "#line 1 \"${IN}\"\n"
     "${text}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
message(STATUS "swap_c_policy: ${IN}: ${count} leveldb_filterpolicy_create_bloom calls -> ${FUNCTION}")
