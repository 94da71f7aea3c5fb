# cmake -DIN=src.cc -DOUT=edited.cc -DFUNCTION=ns::Fn -DHEADER=h.h \
#       -P swap_policy.cmake
#
# Copies one of LevelDB's test sources with every creation of LevelDB's
# built-in policy, NewBloomFilterPolicy(N) (plain or leveldb::-qualified),
# replaced by FUNCTION(N), and HEADER (which declares it) included first:
# blockbloom::NewLevelDBFilterPolicy from blockbloom/leveldb.h for the
# default mode, the accuracy mode's wrapper from accurate_policy.h for
# --mode=accurate (CMakeLists.txt). Each returns a
# `const leveldb::FilterPolicy*` the caller deletes, so nothing else changes.
# Fails if the file creates no built-in policy or if any mention of
# NewBloomFilterPolicy is left (a new upstream spelling must be looked at,
# not silently kept).
foreach(var IN ITEMS IN OUT FUNCTION HEADER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "swap_policy.cmake: -D${var}= is required")
  endif()
endforeach()
file(READ "${IN}" text)
string(REGEX MATCHALL "NewBloomFilterPolicy" before "${text}")
list(LENGTH before count)
string(REGEX REPLACE "([^A-Za-z0-9_])(leveldb::)?NewBloomFilterPolicy[ ]*\\("
       "\\1${FUNCTION}(" text "${text}")
string(REGEX MATCHALL "NewBloomFilterPolicy" after "${text}")
if(count EQUAL 0 OR after)
  message(FATAL_ERROR "${IN}: expected NewBloomFilterPolicy( calls to swap;"
                      " found ${count}, left unswapped: ${after}")
endif()
# Written only when the text changes, so that a re-configure does not
# rebuild the tests.
file(WRITE "${OUT}.tmp"
     "// Edited copy: NewBloomFilterPolicy -> ${FUNCTION}\n"
     "// (${count} calls; blockbloom's tests/engines/leveldb_upstream/swap_policy.cmake).\n"
     "#include \"${HEADER}\"\n"
     "#line 1 \"${IN}\"\n"
     "${text}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
message(STATUS "swap_policy: ${IN}: ${count} NewBloomFilterPolicy calls -> ${FUNCTION}")
