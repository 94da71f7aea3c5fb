# cmake -DIN=src.cc -DOUT=edited.cc -DFROM=NewBloomFilterPolicy \
#       -DFUNCTION=ns::Fn -DHEADER=h.h -P swap_policy.cmake
#
# Copies one of LevelDB's test sources with every creation of LevelDB's
# built-in policy, FROM(N) (plain or leveldb::-qualified), replaced by
# FUNCTION(N), and HEADER (which declares it) included first. FROM is
# NewBloomFilterPolicy in the C++ tests, where FUNCTION is
# blockbloom::NewLevelDBFilterPolicy from blockbloom/leveldb.h (default mode)
# or the accurate encoding's wrapper from accurate_policy.h (--mode=accurate),
# each returning a `const leveldb::FilterPolicy*` the caller deletes; and
# leveldb_filterpolicy_create_bloom in the C API test (db/c_test.c), where
# FUNCTION is blockbloom_leveldb_filterpolicy_create from blockbloom/c.h or
# accurate_c_policy.h's wrapper, each returning a leveldb_filterpolicy_t*
# the test destroys with leveldb_filterpolicy_destroy. So nothing else
# changes. Fails if the file creates no built-in policy or if any mention of
# FROM is left (a new upstream spelling must be looked at, not silently
# kept).
foreach(var IN ITEMS IN OUT FROM FUNCTION HEADER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "swap_policy.cmake: -D${var}= is required")
  endif()
endforeach()
file(READ "${IN}" text)
string(REGEX MATCHALL "${FROM}" before "${text}")
list(LENGTH before count)
string(REGEX REPLACE "([^A-Za-z0-9_])(leveldb::)?${FROM}[ ]*\\("
       "\\1${FUNCTION}(" text "${text}")
string(REGEX MATCHALL "${FROM}" after "${text}")
if(count EQUAL 0 OR after)
  message(FATAL_ERROR "${IN}: expected ${FROM}( calls to swap;"
                      " found ${count}, left unswapped: ${after}")
endif()
# Written only when the text changes, so that a re-configure does not
# rebuild the tests.
file(WRITE "${OUT}.tmp"
     "/* Edited copy: ${FROM} -> ${FUNCTION}\n"
     "   (${count} calls; blockbloom's tests/leveldb/leveldb_upstream/swap_policy.cmake). */\n"
     "#include \"${HEADER}\"\n"
     "#line 1 \"${IN}\"\n"
     "${text}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
message(STATUS "swap_policy: ${IN}: ${count} ${FROM} calls -> ${FUNCTION}")
