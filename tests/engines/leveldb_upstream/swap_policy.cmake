# cmake -DIN=src.cc -DOUT=edited.cc -P swap_policy.cmake
#
# Copies one of LevelDB's test sources with every creation of LevelDB's
# built-in policy, NewBloomFilterPolicy(N) (plain or leveldb::-qualified),
# replaced by blockbloom::NewLevelDBFilterPolicy(N), and blockbloom's header
# included first. Both return a `const leveldb::FilterPolicy*` the caller
# deletes, so nothing else changes. Fails if the file creates no built-in
# policy or if any mention of NewBloomFilterPolicy is left (a new upstream
# spelling must be looked at, not silently kept).
file(READ "${IN}" text)
string(REGEX MATCHALL "NewBloomFilterPolicy" before "${text}")
list(LENGTH before count)
string(REGEX REPLACE "([^A-Za-z0-9_])(leveldb::)?NewBloomFilterPolicy[ ]*\\("
       "\\1blockbloom::NewLevelDBFilterPolicy(" text "${text}")
string(REGEX MATCHALL "NewBloomFilterPolicy" after "${text}")
if(count EQUAL 0 OR after)
  message(FATAL_ERROR "${IN}: expected NewBloomFilterPolicy( calls to swap;"
                      " found ${count}, left unswapped: ${after}")
endif()
# Written only when the text changes, so that a re-configure does not
# rebuild the tests.
file(WRITE "${OUT}.tmp"
     "// Edited copy: NewBloomFilterPolicy -> blockbloom::NewLevelDBFilterPolicy\n"
     "// (${count} calls; blockbloom's tests/engines/leveldb_upstream/swap_policy.cmake).\n"
     "#include \"blockbloom/leveldb.h\"\n"
     "#line 1 \"${IN}\"\n"
     "${text}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
message(STATUS "swap_policy: ${IN}: ${count} NewBloomFilterPolicy calls swapped")
