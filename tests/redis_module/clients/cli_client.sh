#!/usr/bin/env bash
# The module's raw replies as redis-cli prints them (--no-raw: types shown as
# "(integer)", "(error)", "(nil)"), in RESP2 and, for the INFO commands, RESP3
# (redis-cli -3). RedisBloom 2.4 answers BF.INFO with an array in both.
#   cli_client.sh PORT   (or REDIS_PORT)
set -u
port="${1:-${REDIS_PORT:-6379}}"
command -v redis-cli >/dev/null || { echo "SKIP: redis-cli not found"; exit 77; }
K() { redis-cli -h 127.0.0.1 -p "$port" --no-raw "$@" 2>&1; }
K3() { redis-cli -3 -h 127.0.0.1 -p "$port" --no-raw "$@" 2>&1; }
fails=0
checks=0
# chk NAME EXPECTED ACTUAL: exact comparison (spaces around each line ignored:
# redis-cli right-aligns " 1)" when an array has 10 or more elements)
chk() {
  checks=$((checks + 1))
  local want got
  want="$(printf '%s\n' "$2" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')"
  got="$(printf '%s\n' "$3" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')"
  if [ "$want" != "$got" ]; then
    fails=$((fails + 1))
    printf 'FAIL %s\n  want: %s\n  got:  %s\n' "$1" "$(echo "$want" | paste -sd'|')" "$(echo "$got" | paste -sd'|')"
  else
    printf 'ok   %s\n' "$1"
  fi
}
# has NAME PATTERN ACTUAL: grep -E
has() {
  checks=$((checks + 1))
  if printf '%s\n' "$3" | grep -Eq -- "$2"; then printf 'ok   %s\n' "$1"
  else fails=$((fails + 1)); printf 'FAIL %s\n  want /%s/\n  got:  %s\n' "$1" "$2" "$(echo "$3" | paste -sd'|')"; fi
}

K FLUSHALL >/dev/null
has "MODULE LIST names blockbloom" '^blockbloom$' "$(redis-cli -p "$port" MODULE LIST)"

# BF.RESERVE
chk "BF.RESERVE"                    "OK" "$(K BF.RESERVE b 0.01 1000)"
chk "TYPE"                          "bb-filter" "$(K TYPE b)"
chk "BF.RESERVE existing"           "(error) ERR item exists" "$(K BF.RESERVE b 0.01 1000)"
chk "BF.RESERVE bad rate"           "(error) ERR bad error rate" "$(K BF.RESERVE q abc 100)"
chk "BF.RESERVE rate out of range"  "(error) ERR (0 < error rate range < 1)" "$(K BF.RESERVE q 1 100)"
chk "BF.RESERVE bad capacity"       "(error) ERR bad capacity" "$(K BF.RESERVE q 0.01 abc)"
chk "BF.RESERVE capacity 0"         "(error) ERR (capacity should be larger than 0)" "$(K BF.RESERVE q 0.01 0)"
has "BF.RESERVE arity"              "^\(error\) ERR wrong number of arguments for 'bf.reserve' command" "$(K BF.RESERVE q 0.01)"

# BF.ADD / MADD / EXISTS / MEXISTS
chk "BF.ADD new"                    "(integer) 1" "$(K BF.ADD b apple)"
chk "BF.ADD repeat"                 "(integer) 0" "$(K BF.ADD b apple)"
chk "BF.MADD"                       "$(printf '1) (integer) 0\n2) (integer) 1\n3) (integer) 1')" "$(K BF.MADD b apple pear plum)"
chk "BF.EXISTS held"                "(integer) 1" "$(K BF.EXISTS b pear)"
chk "BF.EXISTS missing key"         "(integer) 0" "$(K BF.EXISTS nokey pear)"
chk "BF.MEXISTS"                    "$(printf '1) (integer) 1\n2) (integer) 1')" "$(K BF.MEXISTS b apple plum)"
chk "BF.MEXISTS missing key"        "$(printf '1) (integer) 0\n2) (integer) 0')" "$(K BF.MEXISTS nokey a b)"
has "BF.ADD arity"                  "wrong number of arguments for 'bf.add' command" "$(K BF.ADD b)"
chk "BF.ADD auto-creates"           "(integer) 1" "$(K BF.ADD auto x)"
chk "auto-created capacity"         "1) (integer) 100" "$(K BF.INFO auto CAPACITY)"
chk "auto-created expansion"        "1) (integer) 2" "$(K BF.INFO auto EXPANSION)"

# WRONGTYPE (RedisBloom answers 0 to BF.EXISTS on another type; the module refuses)
K SET str hello >/dev/null
wt="(error) WRONGTYPE Operation against a key holding the wrong kind of value"
chk "BF.EXISTS on a string"         "$wt" "$(K BF.EXISTS str a)"
chk "BF.MEXISTS on a string"        "$wt" "$(K BF.MEXISTS str a)"
chk "BF.ADD on a string"            "$wt" "$(K BF.ADD str a)"
chk "BF.INFO on a string"           "$wt" "$(K BF.INFO str)"
chk "BF.CARD on a string"           "$wt" "$(K BF.CARD str)"
chk "BF.RESERVE on a string"        "$wt" "$(K BF.RESERVE str 0.01 10)"
chk "the string is untouched"       '"hello"' "$(K GET str)"

# BF.INSERT
chk "BF.INSERT creates"             "$(printf '1) (integer) 1\n2) (integer) 1\n3) (integer) 0')" \
                                    "$(K BF.INSERT ins CAPACITY 500 ERROR 0.001 EXPANSION 4 ITEMS a b a)"
chk "BF.INSERT options kept"        "$(printf '1) (integer) 500')" "$(K BF.INFO ins CAPACITY)"
chk "BF.INSERT NOCREATE missing"    "(error) ERR not found" "$(K BF.INSERT none NOCREATE ITEMS a)"
has "BF.INSERT without items"       "wrong number of arguments" "$(K BF.INSERT ins ITEMS)"

# NONSCALING full
K BF.RESERVE ns 0.01 2 NONSCALING >/dev/null
K BF.ADD ns n1 >/dev/null; K BF.ADD ns n2 >/dev/null
chk "full NONSCALING BF.ADD"        "(error) ERR non scaling filter is full" "$(K BF.ADD ns n3)"
K BF.RESERVE ns2 0.01 2 NONSCALING >/dev/null
chk "full NONSCALING BF.MADD"       "$(printf '1) (integer) 1\n2) (integer) 1\n3) (error) ERR non scaling filter is full')" \
                                    "$(K BF.MADD ns2 p q r s)"

# BF.INFO, RESP2 and RESP3
info_want="$(printf '1) Capacity\n2) (integer) 1000\n3) Size\n4) (integer) SIZE\n5) Number of filters\n6) (integer) 1\n7) Number of items inserted\n8) (integer) 3\n9) Expansion rate\n10) (integer) 2')"
got="$(K BF.INFO b)"
size="$(printf '%s\n' "$got" | sed -n 4p | sed 's/.*(integer) //')"
chk "BF.INFO (RESP2)"               "${info_want/SIZE/$size}" "$got"
chk "BF.INFO (RESP3: still an array)" "${info_want/SIZE/$size}" "$(K3 BF.INFO b)"
chk "BF.INFO NONSCALING expansion"  "10) (nil)" "$(K BF.INFO ns | tail -1)"
chk "BF.INFO NONSCALING (RESP3)"    "10) (nil)" "$(K3 BF.INFO ns | tail -1)"
chk "BF.INFO CAPACITY"              "1) (integer) 1000" "$(K BF.INFO b CAPACITY)"
chk "BF.INFO size"                  "1) (integer) $size" "$(K BF.INFO b size)"
chk "BF.INFO FILTERS"               "1) (integer) 1" "$(K BF.INFO b FILTERS)"
chk "BF.INFO ITEMS"                 "1) (integer) 3" "$(K BF.INFO b ITEMS)"
chk "BF.INFO EXPANSION"             "1) (integer) 2" "$(K BF.INFO b EXPANSION)"
chk "BF.INFO ITEMS (RESP3)"         "1) (integer) 3" "$(K3 BF.INFO b ITEMS)"
chk "BF.INFO EXPANSION nonscaling"  "1) (nil)" "$(K BF.INFO ns EXPANSION)"
has "BF.INFO bad field"             "^\(error\) " "$(K BF.INFO b BOGUS)"
chk "BF.INFO missing key"           "(error) ERR not found" "$(K BF.INFO nokey)"

# BF.CARD
chk "BF.CARD"                       "(integer) 3" "$(K BF.CARD b)"
chk "BF.CARD missing key"           "(integer) 0" "$(K BF.CARD nokey)"

# BF.SCANDUMP: the first reply, and the end marker
has "BF.SCANDUMP 0 -> iterator"     '^1\) \(integer\) [1-9][0-9]*$' "$(K BF.SCANDUMP b 0 | head -1)"
chk "BF.SCANDUMP missing key"       "(error) ERR not found" "$(K BF.SCANDUMP nokey 0)"
has "BF.LOADCHUNK bad iterator"     '^\(error\) ' "$(K BF.LOADCHUNK new abc data)"

# Command flags and key positions (COMMAND INFO): writes deny OOM, reads are fast
flags() { redis-cli -p "$port" COMMAND INFO "$1" | paste -sd' '; }
for c in bf.reserve bf.add bf.madd bf.insert bf.loadchunk; do
  has "$c flags write denyoom"      '(^| )write( |$).*denyoom|denyoom.* write( |$)' "$(flags "$c")"
done
for c in bf.exists bf.mexists bf.info bf.card bf.scandump; do
  has "$c flags readonly"           '(^| )readonly( |$)' "$(flags "$c")"
done
has "bf.exists is fast"             '(^| )fast( |$)' "$(flags bf.exists)"
has "bf.add key at 1"               '^bf\.add -?[0-9]+ .* 1 1 1( |$)' "$(flags bf.add)"

# BB.*
chk "BB.RESERVE SEED"               "OK" "$(K BB.RESERVE bb 0.01 1000 SEED 42)"
K BF.MADD bb a b >/dev/null
chk "BB.MEXISTS"                    '"11"' "$(K BB.MEXISTS bb a b)"
chk "BB.MEXISTS missing key"        '"000"' "$(K BB.MEXISTS nokey a b c)"
has "BB.INFO state ready"           '^"?ready"?$' "$(redis-cli -p "$port" BB.INFO bb | grep -A1 -x State | tail -1)"
has "BB.INFO (RESP3) state ready"   'ready' "$(K3 BB.INFO bb)"
has "BB.DUMP 0 -> cursor"           '^1\) \(integer\) [0-9]+$' "$(K BB.DUMP bb 0 | head -1)"

echo "$((checks - fails)) of $checks checks passed"
[ "$fails" -eq 0 ]
