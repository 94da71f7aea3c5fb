// Every BF.* and BB.* command of blockbloom.so against a real redis-server:
// replies, error texts (arity, WRONGTYPE, bad numbers, out-of-range
// options), NONSCALING filters that fill up, BF.INSERT's options, BF.INFO's
// forms, scaling across many layers, and the BB.* commands. One server for
// the whole suite; each test uses its own keys.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/sizing.h"
#include "blockbloom/version.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/redis_module/module_client.h"
#include "tests/redis_module/module_server.h"
#include "tests/redis_module/module_test.h"

namespace blockbloom::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::Ge;
using ::testing::HasSubstr;
using ::testing::Le;
using ::testing::Not;
using ::testing::SizeIs;

class CommandsTest : public ModuleTest {};

TEST_F(CommandsTest, ArityErrorsNameTheLowerCaseCommand) {
  struct Case {
    std::vector<std::string> args;
    std::string name;
  };
  const std::vector<Case> cases = {
      {{"BF.RESERVE", "k", "0.01"}, "bf.reserve"},
      {{"BF.RESERVE", "k", "0.01", "10", "EXPANSION", "2", "NONSCALING", "x"},
       "bf.reserve"},
      {{"BF.ADD", "k"}, "bf.add"},
      {{"BF.ADD", "k", "a", "b"}, "bf.add"},
      {{"BF.MADD", "k"}, "bf.madd"},
      {{"BF.INSERT", "k", "ITEMS"}, "bf.insert"},
      {{"BF.INSERT", "k", "CAPACITY", "10", "ITEMS"}, "bf.insert"},
      {{"BF.EXISTS", "k"}, "bf.exists"},
      {{"BF.EXISTS", "k", "a", "b"}, "bf.exists"},
      {{"BF.MEXISTS", "k"}, "bf.mexists"},
      {{"BF.INFO"}, "bf.info"},
      {{"BF.INFO", "k", "CAPACITY", "SIZE"}, "bf.info"},
      {{"BF.CARD"}, "bf.card"},
      {{"BF.CARD", "k", "x"}, "bf.card"},
      {{"BF.SCANDUMP", "k"}, "bf.scandump"},
      {{"BF.LOADCHUNK", "k", "1"}, "bf.loadchunk"},
      {{"BB.RESERVE", "k", "0.01"}, "bb.reserve"},
      {{"BB.LOAD", "k", "0", "10"}, "bb.load"},
      {{"BB.DUMP", "k"}, "bb.dump"},
      {{"BB.DUMP", "k", "0", "LAYER"}, "bb.dump"},
      {{"BB.MEXISTS", "k"}, "bb.mexists"},
      {{"BB.INFO"}, "bb.info"},
      {{"BB.INFO", "k", "x"}, "bb.info"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(Cmd(c.args), IsErrorText(ArityError(c.name)))
        << ::testing::PrintToString(c.args);
  }
}

TEST_F(CommandsTest, EveryCommandRefusesAStringKeyWithWrongtype) {
  ASSERT_THAT(Cmd({"SET", "str", "v"}), IsStatus("OK"));
  const std::vector<std::vector<std::string>> commands = {
      {"BF.RESERVE", "str", "0.01", "100"},
      {"BF.ADD", "str", "a"},
      {"BF.MADD", "str", "a", "b"},
      {"BF.INSERT", "str", "ITEMS", "a"},
      {"BF.INSERT", "str", "NOCREATE", "ITEMS", "a"},
      {"BF.EXISTS", "str", "a"},
      {"BF.MEXISTS", "str", "a", "b"},
      {"BF.INFO", "str"},
      {"BF.INFO", "str", "CAPACITY"},
      {"BF.CARD", "str"},
      {"BF.SCANDUMP", "str", "0"},
      {"BF.LOADCHUNK", "str", "1", "data"},
      {"BB.RESERVE", "str", "0.01", "100", "SEED", "1"},
      {"BB.LOAD", "str", "0", "4", "data"},
      {"BB.DUMP", "str", "0"},
      {"BB.MEXISTS", "str", "a"},
      {"BB.INFO", "str"},
  };
  for (const auto& command : commands) {
    EXPECT_THAT(Cmd(command), IsErrorText(kWrongType))
        << ::testing::PrintToString(command);
  }
  // The string is untouched.
  EXPECT_THAT(Cmd({"GET", "str"}), IsBulk("v"));
}

TEST_F(CommandsTest, ReserveAddExists) {
  EXPECT_THAT(Cmd({"BF.RESERVE", "r1", "0.01", "1000"}), IsStatus("OK"));
  EXPECT_THAT(Cmd({"TYPE", "r1"}), IsStatus("bb-filter"));
  EXPECT_THAT(Cmd({"BF.RESERVE", "r1", "0.01", "1000"}),
              IsErrorText("ERR item exists"));
  EXPECT_THAT(Cmd({"BF.EXISTS", "r1", "a"}), IsInt(0));
  EXPECT_THAT(Cmd({"BF.ADD", "r1", "a"}), IsInt(1));
  EXPECT_THAT(Cmd({"BF.ADD", "r1", "a"}), IsInt(0));
  EXPECT_THAT(Cmd({"BF.EXISTS", "r1", "a"}), IsInt(1));
  EXPECT_THAT(Cmd({"BF.MADD", "r1", "a", "b", "c", "b"}),
              IsInts(std::vector<long long>{0, 1, 1, 0}));
  EXPECT_THAT(Cmd({"BF.MEXISTS", "r1", "a", "b", "c"}),
              IsInts(std::vector<long long>{1, 1, 1}));
  EXPECT_THAT(Cmd({"BF.CARD", "r1"}), IsInt(3));
  // Binary items (NUL bytes, non-UTF-8) are items like any other.
  const std::string binary("\0\xff\x01z", 4);
  EXPECT_THAT(Cmd({"BF.ADD", "r1", binary}), IsInt(1));
  EXPECT_THAT(Cmd({"BF.EXISTS", "r1", binary}), IsInt(1));
  EXPECT_THAT(Cmd({"BF.ADD", "r1", ""}), IsInt(1));
  EXPECT_THAT(Cmd({"BF.EXISTS", "r1", ""}), IsInt(1));
  // Command names and option words are case-insensitive.
  EXPECT_THAT(Cmd({"bf.reserve", "r2", "0.01", "10", "expansion", "3"}),
              IsStatus("OK"));
  EXPECT_THAT(Cmd({"BF.INFO", "r2", "expansion"}),
              IsInts(std::vector<long long>{3}));
  EXPECT_THAT(Cmd({"bF.rEsErVe", "r3", "0.01", "10", "nonscaling"}),
              IsStatus("OK"));
  EXPECT_THAT(Cmd({"BF.INFO", "r3", "EXPANSION"}).elements,
              ElementsAre(IsNil()));
}

TEST_F(CommandsTest, MissingKeys) {
  EXPECT_THAT(Cmd({"BF.EXISTS", "nokey", "a"}), IsInt(0));
  EXPECT_THAT(Cmd({"BF.MEXISTS", "nokey", "a", "b"}),
              IsInts(std::vector<long long>{0, 0}));
  EXPECT_THAT(Cmd({"BF.CARD", "nokey"}), IsInt(0));
  EXPECT_THAT(Cmd({"BB.MEXISTS", "nokey", "a", "b", "c"}), IsBulk("000"));
  EXPECT_THAT(Cmd({"BF.INFO", "nokey"}), IsErrorText("ERR not found"));
  EXPECT_THAT(Cmd({"BF.INFO", "nokey", "CAPACITY"}),
              IsErrorText("ERR not found"));
  EXPECT_THAT(Cmd({"BB.INFO", "nokey"}), IsErrorText("ERR not found"));
  EXPECT_THAT(Cmd({"BF.SCANDUMP", "nokey", "0"}), IsErrorText("ERR not found"));
  EXPECT_THAT(Cmd({"BB.DUMP", "nokey", "0"}), IsErrorText("ERR not found"));
  // Queries create nothing.
  EXPECT_THAT(Cmd({"EXISTS", "nokey"}), IsInt(0));
}

TEST_F(CommandsTest, ReserveRefusesBadNumbersAndOptions) {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"abc", "100"}, "ERR bad error rate"},
      {{"", "100"}, "ERR bad error rate"},
      {{"nan", "100"}, "ERR bad error rate"},
      {{"inf", "100"}, "ERR bad error rate"},
      {{"0.01x", "100"}, "ERR bad error rate"},
      {{"0", "100"}, "ERR (0 < error rate range < 1)"},
      {{"1", "100"}, "ERR (0 < error rate range < 1)"},
      {{"1.5", "100"}, "ERR (0 < error rate range < 1)"},
      {{"-0.01", "100"}, "ERR (0 < error rate range < 1)"},
      {{"1e-16", "100"}, "ERR error rate must be at least 1e-15"},
      {{"0.01", "abc"}, "ERR bad capacity"},
      {{"0.01", "1.5"}, "ERR bad capacity"},
      {{"0.01", "99999999999999999999999"}, "ERR bad capacity"},
      {{"0.01", "0"}, "ERR (capacity should be larger than 0)"},
      {{"0.01", "-5"}, "ERR (capacity should be larger than 0)"},
      {{"0.01", "100", "EXPANSION"}, "ERR no expansion"},
      {{"0.01", "100", "EXPANSION", "abc"},
       "ERR bad expansion: an integer in [1, 32768]"},
      {{"0.01", "100", "EXPANSION", "0"},
       "ERR bad expansion: an integer in [1, 32768]"},
      {{"0.01", "100", "EXPANSION", "-2"},
       "ERR bad expansion: an integer in [1, 32768]"},
      {{"0.01", "100", "EXPANSION", "32769"},
       "ERR bad expansion: an integer in [1, 32768]"},
      {{"0.01", "100", "EXPANSION", "2", "NONSCALING"},
       "ERR Nonscaling filters cannot expand"},
      {{"0.01", "100", "NONSCALING", "EXPANSION", "2"},
       "ERR Nonscaling filters cannot expand"},
      {{"0.01", "100", "FOO"}, "ERR unknown argument 'FOO'"},
      {{"0.01", "100", "SEED", "1"}, "ERR unknown argument 'SEED'"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"BF.RESERVE", "bad"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    EXPECT_THAT(Cmd(args), IsErrorText(c.error))
        << ::testing::PrintToString(args);
  }
  // Nothing was created by any of them.
  EXPECT_THAT(Cmd({"EXISTS", "bad"}), IsInt(0));
  // The bounds themselves are accepted.
  EXPECT_THAT(Cmd({"BF.RESERVE", "b1", "1e-15", "1"}), IsStatus("OK"));
  EXPECT_THAT(Cmd({"BF.RESERVE", "b2", "0.999", "1", "EXPANSION", "32768"}),
              IsStatus("OK"));
  EXPECT_THAT(Cmd({"BF.RESERVE", "b3", "0.01", "1", "EXPANSION", "1"}),
              IsStatus("OK"));
  for (const char* key : {"b1", "b2", "b3"}) {
    EXPECT_THAT(Cmd({"BF.ADD", key, "x"}), IsInt(1)) << key;
    EXPECT_THAT(Cmd({"BF.ADD", key, "y"}), Not(IsError())) << key;
    EXPECT_THAT(Cmd({"BF.EXISTS", key, "x"}), IsInt(1)) << key;
    EXPECT_THAT(Cmd({"BF.EXISTS", key, "y"}), IsInt(1)) << key;
  }
}

TEST_F(CommandsTest, AnImpossibleCapacityIsRefusedNotAllocated) {
  // 10^18 keys at 1e-15 is far beyond any layer (256 GiB at most).
  const Reply r = Cmd({"BF.RESERVE", "huge", "1e-15", "1000000000000000000"});
  EXPECT_TRUE(r.is_error()) << ::testing::PrintToString(r);
  EXPECT_THAT(Cmd({"EXISTS", "huge"}), IsInt(0));
}

TEST_F(CommandsTest, NonscalingFilterFills) {
  // A fixed seed: which of p, q, r, s collide is then the same every run.
  ASSERT_THAT(Cmd({"BB.RESERVE", "ns", "0.01", "2", "NONSCALING", "SEED", "7"}),
              IsStatus("OK"));
  const Reply madd = Cmd({"BF.MADD", "ns", "p", "q", "r", "s"});
  ASSERT_TRUE(madd.is_array()) << ::testing::PrintToString(madd);
  // [1, 1, error]: the error element at the first item that does not fit,
  // and processing stops there.
  ASSERT_THAT(madd.elements, SizeIs(3));
  EXPECT_THAT(madd.elements[0], IsInt(1));
  EXPECT_THAT(madd.elements[1], IsInt(1));
  EXPECT_THAT(madd.elements[2], IsErrorText("ERR non scaling filter is full"));
  EXPECT_THAT(Cmd({"BF.MEXISTS", "ns", "p", "q"}),
              IsInts(std::vector<long long>{1, 1}));
  EXPECT_THAT(Cmd({"BF.CARD", "ns"}), IsInt(2));
  EXPECT_THAT(Cmd({"BF.ADD", "ns", "t"}),
              IsErrorText("ERR non scaling filter is full"));
  // An item already there is still answered (0), not refused.
  EXPECT_THAT(Cmd({"BF.ADD", "ns", "p"}), IsInt(0));
  EXPECT_THAT(
      Cmd({"BF.INSERT", "ns", "ITEMS", "q", "u", "v"}).elements,
      ElementsAre(IsInt(0), IsErrorText("ERR non scaling filter is full")));
  EXPECT_THAT(Cmd({"BF.INFO", "ns", "FILTERS"}),
              IsInts(std::vector<long long>{1}));
  EXPECT_THAT(Cmd({"BF.CARD", "ns"}), IsInt(2));

  // BF.RESERVE ... NONSCALING behaves the same (random seed).
  ASSERT_THAT(Cmd({"BF.RESERVE", "ns2", "0.001", "100", "NONSCALING"}),
              IsStatus("OK"));
  const std::vector<std::string> items = Items("i", 0, 150);
  const std::vector<long long> added =
      Batched(*client_, "BF.MADD", "ns2", items, 150);
  // Exactly 100 ones (false positives aside: they answer 0 and do not
  // count), then the error element, then nothing.
  ASSERT_FALSE(added.empty());
  EXPECT_EQ(added.back(), -1);
  EXPECT_EQ(Count(added, 1), 100u);
  EXPECT_EQ(Count(added, -1), 1u);
  EXPECT_THAT(Cmd({"BF.CARD", "ns2"}), IsInt(100));
  for (size_t i = 0; i + 1 < added.size(); ++i) {
    if (added[i] == 1) {
      EXPECT_THAT(Cmd({"BF.EXISTS", "ns2", items[i]}), IsInt(1)) << items[i];
    }
  }
}

TEST_F(CommandsTest, AddsAutoCreateWithTheDefaults) {
  EXPECT_THAT(Cmd({"BF.ADD", "auto1", "a"}), IsInt(1));
  const Reply info = Cmd({"BF.INFO", "auto1"});
  EXPECT_THAT(info.Field("Capacity"), IsInt(100));
  EXPECT_THAT(info.Field("Expansion rate"), IsInt(2));
  EXPECT_THAT(info.Field("Number of filters"), IsInt(1));
  EXPECT_THAT(info.Field("Number of items inserted"), IsInt(1));
  EXPECT_THAT(Cmd({"BF.MADD", "auto2", "a", "b"}),
              IsInts(std::vector<long long>{1, 1}));
  EXPECT_THAT(Cmd({"BF.CARD", "auto2"}), IsInt(2));
  EXPECT_THAT(Cmd({"BF.INSERT", "auto3", "ITEMS", "a"}),
              IsInts(std::vector<long long>{1}));
  EXPECT_THAT(Cmd({"BF.INFO", "auto3", "CAPACITY"}),
              IsInts(std::vector<long long>{100}));
  // Each key gets its own random seed: the same items give different bits.
  EXPECT_THAT(Cmd({"BF.ADD", "auto4", "a"}), IsInt(1));
  EXPECT_NE(BbDumpAll(*client_, "auto1"), BbDumpAll(*client_, "auto4"));
}

TEST_F(CommandsTest, InsertOptions) {
  EXPECT_THAT(Cmd({"BF.INSERT", "in1", "CAPACITY", "1000", "ERROR", "0.001",
                   "EXPANSION", "4", "ITEMS", "a", "b", "a"}),
              IsInts(std::vector<long long>{1, 1, 0}));
  EXPECT_THAT(Cmd({"BF.INFO", "in1", "CAPACITY"}),
              IsInts(std::vector<long long>{1000}));
  EXPECT_THAT(Cmd({"BF.INFO", "in1", "EXPANSION"}),
              IsInts(std::vector<long long>{4}));
  const Reply bb = Cmd({"BB.INFO", "in1"});
  ASSERT_EQ(bb.Field("Error rate").type, REDIS_REPLY_STRING)
      << ::testing::PrintToString(bb);
  EXPECT_DOUBLE_EQ(std::stod(bb.Field("Error rate").str), 0.001);
  // Options are ignored once the key exists.
  EXPECT_THAT(Cmd({"BF.INSERT", "in1", "CAPACITY", "5", "ITEMS", "c"}),
              IsInts(std::vector<long long>{1}));
  EXPECT_THAT(Cmd({"BF.INFO", "in1", "CAPACITY"}),
              IsInts(std::vector<long long>{1000}));

  // Lower-case options; NONSCALING (with EXPANSION, which it overrides).
  EXPECT_THAT(Cmd({"BF.INSERT", "in2", "capacity", "2", "nonscaling",
                   "expansion", "3", "items", "x", "y"}),
              IsInts(std::vector<long long>{1, 1}));
  EXPECT_THAT(Cmd({"BF.INFO", "in2", "EXPANSION"}).elements,
              ElementsAre(IsNil()));
  EXPECT_THAT(Cmd({"BF.INSERT", "in2", "ITEMS", "z"}).elements,
              ElementsAre(IsErrorText("ERR non scaling filter is full")));

  // NOCREATE.
  EXPECT_THAT(Cmd({"BF.INSERT", "in3", "NOCREATE", "ITEMS", "a"}),
              IsErrorText("ERR not found"));
  EXPECT_THAT(Cmd({"EXISTS", "in3"}), IsInt(0));
  EXPECT_THAT(Cmd({"BF.INSERT", "in1", "NOCREATE", "ITEMS", "d"}),
              IsInts(std::vector<long long>{1}));

  // Bad options: nothing is created.
  struct Case {
    std::vector<std::string> options;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"CAPACITY", "abc"}, "ERR bad capacity"},
      {{"CAPACITY", "-1"}, "ERR bad capacity"},
      {{"CAPACITY", "0"}, "ERR (capacity should be larger than 0)"},
      {{"ERROR", "abc"}, "ERR bad error rate"},
      {{"ERROR", "0"}, "ERR (0 < error rate range < 1)"},
      {{"ERROR", "1"}, "ERR (0 < error rate range < 1)"},
      {{"EXPANSION", "abc"}, "ERR bad expansion: an integer in [1, 32768]"},
      {{"EXPANSION", "40000"}, "ERR bad expansion: an integer in [1, 32768]"},
      {{"BOGUS"}, "ERR unknown argument 'BOGUS'"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"BF.INSERT", "in4"};
    args.insert(args.end(), c.options.begin(), c.options.end());
    args.push_back("ITEMS");
    args.push_back("a");
    EXPECT_THAT(Cmd(args), IsErrorText(c.error))
        << ::testing::PrintToString(args);
  }
  EXPECT_THAT(Cmd({"BF.INSERT", "in4", "EXPANSION", "0", "ITEMS", "a"}),
              IsErrorWith("expansion"));
  // Items without ITEMS.
  EXPECT_THAT(Cmd({"BF.INSERT", "in4", "a", "b"}),
              IsErrorText("ERR unknown argument 'a'"));
  EXPECT_THAT(Cmd({"EXISTS", "in4"}), IsInt(0));
}

TEST_F(CommandsTest, InfoForms) {
  ASSERT_THAT(Cmd({"BF.RESERVE", "info1", "0.01", "1000", "EXPANSION", "3"}),
              IsStatus("OK"));
  ASSERT_THAT(Cmd({"BF.MADD", "info1", "a", "b", "c"}),
              IsInts(std::vector<long long>{1, 1, 1}));
  const Reply info = Cmd({"BF.INFO", "info1"});
  ASSERT_TRUE(info.is_array());
  ASSERT_THAT(info.elements, SizeIs(10));
  // Names are simple strings, in RedisBloom's order (node-redis reads the
  // values by position).
  const char* names[] = {"Capacity", "Size", "Number of filters",
                         "Number of items inserted", "Expansion rate"};
  for (int i = 0; i < 5; ++i) {
    EXPECT_THAT(info.elements[2 * i], IsStatus(names[i])) << i;
    EXPECT_TRUE(info.elements[2 * i + 1].is_int()) << i;
  }
  EXPECT_THAT(info.elements[1], IsInt(1000));
  // 1000 keys at 1% need ~1.2 KB of bits; Size counts them and bookkeeping.
  EXPECT_THAT(info.elements[3].integer, Ge(1000));
  EXPECT_THAT(info.elements[3].integer, Le(4000));
  EXPECT_THAT(info.elements[5], IsInt(1));
  EXPECT_THAT(info.elements[7], IsInt(3));
  EXPECT_THAT(info.elements[9], IsInt(3));

  // One field, case-insensitive: a one-element array.
  EXPECT_THAT(Cmd({"BF.INFO", "info1", "CAPACITY"}),
              IsInts(std::vector<long long>{1000}));
  EXPECT_THAT(Cmd({"BF.INFO", "info1", "size"}),
              IsInts(std::vector<long long>{info.elements[3].integer}));
  EXPECT_THAT(Cmd({"BF.INFO", "info1", "Filters"}),
              IsInts(std::vector<long long>{1}));
  EXPECT_THAT(Cmd({"BF.INFO", "info1", "ITEMS"}),
              IsInts(std::vector<long long>{3}));
  EXPECT_THAT(Cmd({"BF.INFO", "info1", "EXPANSION"}),
              IsInts(std::vector<long long>{3}));
  EXPECT_THAT(Cmd({"BF.INFO", "info1", "BOGUS"}),
              IsErrorText("ERR Invalid information value"));

  // NONSCALING: Expansion rate is nil, in both forms.
  ASSERT_THAT(Cmd({"BF.RESERVE", "info2", "0.01", "10", "NONSCALING"}),
              IsStatus("OK"));
  const Reply ns = Cmd({"BF.INFO", "info2"});
  ASSERT_THAT(ns.elements, SizeIs(10));
  EXPECT_THAT(ns.elements[8], IsStatus("Expansion rate"));
  EXPECT_THAT(ns.elements[9], IsNil());
  EXPECT_THAT(Cmd({"BF.INFO", "info2", "EXPANSION"}).elements,
              ElementsAre(IsNil()));
}

TEST_F(CommandsTest, ScalingGrowsLayersWithoutFalseNegatives) {
  // Layers of 100, 200, 400, 800, 1600, 3200: 6000 items need six.
  ASSERT_THAT(Cmd({"BF.RESERVE", "sc", "0.01", "100", "EXPANSION", "2"}),
              IsStatus("OK"));
  const std::vector<std::string> items = Items("scale:", 0, 6000);
  long long filters = 1;
  long long capacity = 100;
  size_t added = 0;
  for (size_t i = 0; i < items.size(); i += 500) {
    const std::vector<std::string> batch(items.begin() + i,
                                         items.begin() + i + 500);
    const std::vector<long long> r = Batched(*client_, "BF.MADD", "sc", batch);
    ASSERT_EQ(Count(r, -1), 0u);
    added += Count(r, 1);
    const Reply info = Cmd({"BF.INFO", "sc"});
    // Layers only grow, and capacity with them.
    EXPECT_THAT(info.Field("Number of filters").integer, Ge(filters));
    EXPECT_THAT(info.Field("Capacity").integer, Ge(capacity));
    filters = info.Field("Number of filters").integer;
    capacity = info.Field("Capacity").integer;
    EXPECT_THAT(info.Field("Number of items inserted"),
                IsInt(static_cast<long long>(added)));
  }
  EXPECT_GE(filters, 5);
  EXPECT_LE(filters, 7);
  EXPECT_EQ(capacity, 100 * ((1 << filters) - 1));
  // A few adds answer 0 as false positives; most are new.
  EXPECT_GE(added, items.size() * 97 / 100);
  // No false negatives, whichever layer holds an item.
  const std::vector<long long> found =
      Batched(*client_, "BF.MEXISTS", "sc", items);
  EXPECT_EQ(Count(found, 1), items.size());
  // The stack's rate stays below the asked one (tests/redis_module/fpr_test
  // measures it closely; here with room for a 100-key layer's spread).
  const std::vector<long long> absent =
      Batched(*client_, "BF.MEXISTS", "sc", Items("absent:", 0, 20000));
  EXPECT_LE(Count(absent, 1), 20000u / 100 + 60);

  // BB.INFO lists the layers: capacities x2; layer 0 at 0.82 of the rate,
  // then 0.18 of it shared 0.4, 0.24, 0.144, ... (ratio 0.6): the rates add
  // up to less than the asked one.
  const Reply bb = Cmd({"BB.INFO", "sc"});
  EXPECT_NEAR(std::stod(bb.Field("Error rate").str), 0.01, 1e-15);
  const double stack_expected =
      std::stod(bb.Field("Expected false-positive rate").str);
  EXPECT_GT(stack_expected, 0);
  EXPECT_LE(stack_expected, 0.01);
  const Reply bf_error = Cmd({"BF.INFO", "sc", "ERROR"});
  ASSERT_THAT(bf_error.elements, SizeIs(1));
  EXPECT_DOUBLE_EQ(std::stod(bf_error.elements[0].str), stack_expected);
  const Reply layers = bb.Field("Layers");
  ASSERT_EQ(layers.elements.size(), static_cast<size_t>(filters));
  double sum = 0;
  for (size_t i = 0; i < layers.elements.size(); ++i) {
    const Reply& layer = layers.elements[i];
    EXPECT_THAT(layer.Field("Capacity"), IsInt(100LL << i)) << i;
    const double rate = std::stod(layer.Field("Error rate").str);
    const double want =
        i == 0 ? 0.0082
               : 0.0018 * 0.4 * std::pow(0.6, static_cast<double>(i - 1));
    EXPECT_NEAR(rate, want, want * 1e-9) << i;
    sum += rate;
  }
  EXPECT_LT(sum, 0.01);

  // EXPANSION 1: every layer the same capacity.
  ASSERT_THAT(Cmd({"BF.RESERVE", "sc1", "0.01", "50", "EXPANSION", "1"}),
              IsStatus("OK"));
  const std::vector<std::string> more = Items("one:", 0, 300);
  ASSERT_EQ(Count(Batched(*client_, "BF.MADD", "sc1", more), -1), 0u);
  const Reply info1 = Cmd({"BF.INFO", "sc1"});
  EXPECT_GE(info1.Field("Number of filters").integer, 6);
  EXPECT_EQ(info1.Field("Capacity").integer,
            50 * info1.Field("Number of filters").integer);
  EXPECT_EQ(Count(Batched(*client_, "BF.MEXISTS", "sc1", more), 1),
            more.size());
}

TEST_F(CommandsTest, BbMexistsIsOneStringOfDigits) {
  ASSERT_THAT(Cmd({"BF.MADD", "bbm", "a", "c"}),
              IsInts(std::vector<long long>{1, 1}));
  const Reply r = Cmd({"BB.MEXISTS", "bbm", "a", "b", "c", "zzz", "a"});
  ASSERT_EQ(r.type, REDIS_REPLY_STRING) << ::testing::PrintToString(r);
  ASSERT_EQ(r.str.size(), 5u);
  EXPECT_EQ(r.str[0], '1');
  EXPECT_EQ(r.str[2], '1');
  EXPECT_EQ(r.str[4], '1');
  // Agrees with BF.MEXISTS item for item, on a larger batch too.
  const std::vector<std::string> items = Items("m", 0, 2000);
  ASSERT_EQ(Count(Batched(*client_, "BF.MADD", "bbm", Items("m", 0, 1000)), -1),
            0u);
  std::vector<std::string> args = {"BB.MEXISTS", "bbm"};
  args.insert(args.end(), items.begin(), items.end());
  const Reply digits = Cmd(args);
  ASSERT_EQ(digits.str.size(), items.size());
  const std::vector<long long> ints =
      Batched(*client_, "BF.MEXISTS", "bbm", items, items.size());
  ASSERT_EQ(ints.size(), items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_EQ(digits.str[i], ints[i] ? '1' : '0') << i;
    if (i < 1000) {
      EXPECT_EQ(digits.str[i], '1') << i;
    }
  }
}

TEST_F(CommandsTest, BbInfo) {
  ASSERT_THAT(Cmd({"BB.RESERVE", "bbi", "0.01", "1000", "EXPANSION", "4",
                   "SEED", "42"}),
              IsStatus("OK"));
  ASSERT_EQ(Count(Batched(*client_, "BF.MADD", "bbi", Items("x", 0, 100)), -1),
            0u);
  const Reply info = Cmd({"BB.INFO", "bbi"});
  ASSERT_TRUE(info.is_array()) << ::testing::PrintToString(info);
  EXPECT_THAT(info.Field("State"), IsStatus("ready"));
  EXPECT_THAT(info.Field("Capacity"), IsInt(1000));
  EXPECT_THAT(info.Field("Number of items inserted"),
              IsInt(Cmd({"BF.CARD", "bbi"}).integer));
  EXPECT_THAT(info.Field("Expansion rate"), IsInt(4));
  const long long reserved = info.Field("Bytes reserved").integer;
  const long long allocated = info.Field("Bytes allocated").integer;
  EXPECT_GE(reserved, 1000 * 9 / 8);
  EXPECT_GT(allocated, 0);
  EXPECT_LE(allocated, reserved);
  const double bits_per_item = std::stod(info.Field("Bits per item").str);
  EXPECT_NEAR(bits_per_item, 8.0 * reserved / 1000, 1e-6);
  const Reply layers = info.Field("Layers");
  ASSERT_THAT(layers.elements, SizeIs(1));
  const Reply& layer = layers.elements[0];
  EXPECT_THAT(layer.Field("Capacity"), IsInt(1000));
  EXPECT_EQ(layer.Field("Blocks").integer * 64, reserved);
  EXPECT_GE(layer.Field("Hashes").integer, 1);
  EXPECT_GE(layer.Field("Bits per lane").integer, 1);
  const double expected =
      std::stod(layer.Field("Expected false-positive rate").str);
  EXPECT_GT(expected, 0);
  EXPECT_LT(expected, 0.01);  // 100 keys in a filter sized for 1000
  // A reserved, empty filter allocates nothing.
  ASSERT_THAT(Cmd({"BF.RESERVE", "bbi2", "0.01", "100000"}), IsStatus("OK"));
  EXPECT_THAT(Cmd({"BB.INFO", "bbi2"}).Field("Bytes allocated"), IsInt(0));
}

// The release that answers: BB.INFO's last pair is Version() (after the
// SIMD target), and MODULE
// LIST's "ver" encodes it as RedisBloom does (major * 10000 + minor * 100 +
// patch: 0.1.0 is 100).
TEST_F(CommandsTest, BbInfoAndModuleListShowTheVersion) {
  ASSERT_THAT(Cmd({"BF.ADD", "ver", "a"}), IsInt(1));
  const Reply info = Cmd({"BB.INFO", "ver"});
  ASSERT_TRUE(info.is_array()) << ::testing::PrintToString(info);
  EXPECT_THAT(info.Field("Module version"), IsBulk(std::string(Version())));
  EXPECT_EQ(info.elements[info.elements.size() - 2].str, "Module version");
  // Before it, the SIMD target the server's probes use (the same rule, and
  // the same environment, as this process).
  EXPECT_THAT(info.Field("SIMD target"), IsStatus(ActiveSimdTarget()));
  EXPECT_EQ(info.elements[info.elements.size() - 4].str, "SIMD target");

  const Reply modules = Cmd({"MODULE", "LIST"});
  ASSERT_TRUE(modules.is_array()) << ::testing::PrintToString(modules);
  bool found = false;
  for (const Reply& module : modules.elements) {
    if (module.Field("name").str != "blockbloom") continue;
    found = true;
    EXPECT_THAT(
        module.Field("ver"),
        IsInt(kVersionMajor * 10000 + kVersionMinor * 100 + kVersionPatch));
  }
  EXPECT_TRUE(found) << ::testing::PrintToString(modules);
}

TEST_F(CommandsTest, BbReserveSeedMakesKeysIdentical) {
  for (const char* key : {"seedA", "seedB"}) {
    ASSERT_THAT(
        Cmd({"BB.RESERVE", key, "0.01", "500", "SEED", "18446744073709551615"}),
        IsStatus("OK"));
    ASSERT_EQ(Count(Batched(*client_, "BF.MADD", key, Items("s", 0, 300)), -1),
              0u);
  }
  const std::string a = BbDumpAll(*client_, "seedA");
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, BbDumpAll(*client_, "seedB"));
  EXPECT_THAT(Cmd({"BB.RESERVE", "seedC", "0.01", "10", "SEED", "abc"}),
              IsErrorText("ERR bad seed: an unsigned 64-bit integer"));
  EXPECT_THAT(Cmd({"BB.RESERVE", "seedC", "0.01", "10", "SEED", "-1"}),
              IsErrorText("ERR bad seed: an unsigned 64-bit integer"));
  EXPECT_THAT(Cmd({"BB.RESERVE", "seedC", "0.01", "10", "SEED",
                   "18446744073709551616"}),
              IsErrorText("ERR bad seed: an unsigned 64-bit integer"));
  EXPECT_THAT(Cmd({"BB.RESERVE", "seedC", "0.01", "10", "SEED"}),
              IsErrorText("ERR bad seed: an unsigned 64-bit integer"));
  EXPECT_THAT(Cmd({"EXISTS", "seedC"}), IsInt(0));
}

TEST_F(CommandsTest, BbDumpWritesAFileTheLibraryReads) {
  ASSERT_THAT(Cmd({"BB.RESERVE", "dump1", "0.01", "2000", "SEED", "99"}),
              IsStatus("OK"));
  const std::vector<std::string> items = Items("d", 0, 1500);
  ASSERT_EQ(Count(Batched(*client_, "BF.MADD", "dump1", items), -1), 0u);
  const std::string file = BbDumpAll(*client_, "dump1");
  ASSERT_FALSE(file.empty());
  absl::StatusOr<Filter> filter = OpenFilter(AsBytes(file));
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_EQ(filter->seed(), 99u);
  EXPECT_EQ(filter->num_keys(),
            static_cast<uint64_t>(Cmd({"BF.CARD", "dump1"}).integer));
  for (const std::string& item : items) {
    ASSERT_TRUE(filter->MayContain(item)) << item;
  }
  // A stale cursor is refused; so is one of no dump.
  EXPECT_THAT(Cmd({"BB.DUMP", "dump1", "12345"}), IsErrorWith("cursor"));
  EXPECT_THAT(Cmd({"BB.DUMP", "dump1", "abc"}), IsErrorText("ERR bad cursor"));
  // A write between chunks stops the dump.
  ASSERT_THAT(Cmd({"BB.RESERVE", "dump2", "0.01", "5000000", "SEED", "1"}),
              IsStatus("OK"));
  ASSERT_THAT(Cmd({"BF.ADD", "dump2", "a"}), IsInt(1));
  const Reply first = Cmd({"BB.DUMP", "dump2", "0"});
  ASSERT_TRUE(first.is_array()) << ::testing::PrintToString(first);
  ASSERT_NE(first.elements[0].integer, 0);
  ASSERT_THAT(Cmd({"BF.ADD", "dump2", "b"}), IsInt(1));
  EXPECT_THAT(
      Cmd({"BB.DUMP", "dump2", std::to_string(first.elements[0].integer)}),
      IsErrorWith("changed"));

  // Several layers: dumped one at a time.
  ASSERT_THAT(Cmd({"BB.RESERVE", "dump3", "0.01", "100", "SEED", "5"}),
              IsStatus("OK"));
  ASSERT_EQ(
      Count(Batched(*client_, "BF.MADD", "dump3", Items("e", 0, 500)), -1), 0u);
  const long long layers =
      Cmd({"BF.INFO", "dump3", "FILTERS"}).elements[0].integer;
  ASSERT_GE(layers, 2);
  EXPECT_THAT(Cmd({"BB.DUMP", "dump3", "0"}), IsErrorWith("LAYER"));
  EXPECT_THAT(Cmd({"BB.DUMP", "dump3", "0", "LAYER", std::to_string(layers)}),
              IsError());
  EXPECT_THAT(Cmd({"BB.DUMP", "dump3", "0", "FOO", "0"}),
              IsErrorWith("syntax"));
  for (long long i = 0; i < layers; ++i) {
    const std::string layer = BbDumpAll(*client_, "dump3", static_cast<int>(i));
    absl::StatusOr<Filter> f = OpenFilter(AsBytes(layer));
    ASSERT_TRUE(f.ok()) << "layer " << i << ": " << f.status();
    EXPECT_EQ(f->seed(), 5u);
  }
}

TEST_F(CommandsTest, BbLoadsAFilterFile) {
  FilterOptions options;
  options.fp_rate = 0.001;
  options.seed = 1234;
  absl::StatusOr<FilterBuilder> builder = FilterBuilder::Create(options);
  ASSERT_TRUE(builder.ok()) << builder.status();
  const std::vector<std::string> items = Items("file:", 0, 20000);
  for (const std::string& item : items) builder->Add(item);
  absl::StatusOr<Filter> filter = builder->Finish();
  ASSERT_TRUE(filter.ok()) << filter.status();
  absl::StatusOr<std::string> file = SerializeFilter(*filter);
  ASSERT_TRUE(file.ok()) << file.status();

  // In chunks: the byte count until the last, then +OK.
  const size_t half = file->size() / 2;
  EXPECT_THAT(Cmd({"BB.LOAD", "ld", "0", std::to_string(file->size()),
                   file->substr(0, half)}),
              IsInt(static_cast<long long>(half)));
  // Not queryable while loading.
  EXPECT_THAT(Cmd({"BF.EXISTS", "ld", "file:1"}), IsErrorWith("being loaded"));
  EXPECT_THAT(Cmd({"BB.INFO", "ld"}).Field("State"), IsStatus("loading"));
  EXPECT_THAT(Cmd({"BB.LOAD", "ld", std::to_string(half),
                   std::to_string(file->size()), file->substr(half)}),
              IsStatus("OK"));
  EXPECT_EQ(Count(Batched(*client_, "BF.MEXISTS", "ld", items), 1),
            items.size());
  EXPECT_THAT(Cmd({"BF.CARD", "ld"}), IsInt(20000));
  const Reply loaded = Cmd({"BB.INFO", "ld"});
  EXPECT_THAT(loaded.Field("State"), IsStatus("ready"));
  // The file's layer keeps its own expected rate; the stack's rate, left to
  // growth, is that over the first share (as if the file were layer 0).
  const double file_rate = *EstimatedFpRate(filter->shape(), 20000);
  EXPECT_DOUBLE_EQ(
      std::stod(loaded.Field("Layers").elements[0].Field("Error rate").str),
      file_rate);
  EXPECT_NEAR(std::stod(loaded.Field("Error rate").str), file_rate / 0.82,
              1e-12);
  // The loaded filter grows as any other.
  const std::vector<std::string> more = Items("more:", 0, 25000);
  ASSERT_EQ(Count(Batched(*client_, "BF.MADD", "ld", more), -1), 0u);
  EXPECT_THAT(Cmd({"BF.INFO", "ld", "FILTERS"}).elements[0].integer, Ge(2));
  EXPECT_LE(std::stod(Cmd({"BF.INFO", "ld", "ERROR"}).elements[0].str),
            file_rate / 0.82);
  EXPECT_EQ(Count(Batched(*client_, "BF.MEXISTS", "ld", items), 1),
            items.size());
  EXPECT_EQ(Count(Batched(*client_, "BF.MEXISTS", "ld", more), 1), more.size());
  // A key that exists is not loaded over.
  EXPECT_THAT(Cmd({"BB.LOAD", "ld", "0", std::to_string(file->size()), *file}),
              IsErrorWith("item exists"));
  // Options with the first chunk.
  EXPECT_THAT(BbLoadAll(*client_, "ld2", *file, 4096,
                        {"CAPACITY", "50000", "ERROR", "0.002", "NONSCALING"}),
              IsStatus("OK"));
  EXPECT_THAT(Cmd({"BF.INFO", "ld2", "CAPACITY"}),
              IsInts(std::vector<long long>{50000}));
  EXPECT_THAT(Cmd({"BF.INFO", "ld2", "EXPANSION"}).elements,
              ElementsAre(IsNil()));
  EXPECT_EQ(Count(Batched(*client_, "BF.MEXISTS", "ld2", items), 1),
            items.size());
  // ... and only with it.
  EXPECT_THAT(Cmd({"BB.LOAD", "ld3", "0", std::to_string(file->size()),
                   file->substr(0, 10)}),
              IsInt(10));
  EXPECT_THAT(Cmd({"BB.LOAD", "ld3", "10", std::to_string(file->size()),
                   file->substr(10, 10), "NONSCALING"}),
              IsErrorWith("first chunk"));
  EXPECT_THAT(
      Cmd({"BB.LOAD", "ld4", "0", "10", "x", "EXPANSION", "2", "NONSCALING"}),
      IsErrorText("ERR Nonscaling filters cannot expand"));
  EXPECT_THAT(Cmd({"BB.LOAD", "ld4", "0", "10", "x", "BOGUS"}),
              IsErrorText("ERR unknown argument 'BOGUS'"));
  EXPECT_THAT(Cmd({"BB.LOAD", "ld4", "x", "10", "x"}),
              IsErrorText("ERR bad offset"));
  EXPECT_THAT(Cmd({"BB.LOAD", "ld4", "0", "-10", "x"}),
              IsErrorText("ERR bad total size"));
  EXPECT_THAT(Cmd({"EXISTS", "ld4"}), IsInt(0));
}

TEST_F(CommandsTest, ScanDumpAndLoadChunkRoundTrip) {
  ASSERT_THAT(Cmd({"BF.RESERVE", "sd", "0.01", "1000"}), IsStatus("OK"));
  const std::vector<std::string> items = Items("sd:", 0, 5000);
  ASSERT_EQ(Count(Batched(*client_, "BF.MADD", "sd", items), -1), 0u);
  std::string error;
  const auto chunks = ScanDumpAll(*client_, "sd", &error);
  ASSERT_GE(chunks.size(), 2u) << error;
  // The reply with iterator 0 carries no data (clients drop it).
  for (size_t i = 0; i < chunks.size(); ++i) {
    ASSERT_THAT(Cmd({"BF.LOADCHUNK", "sd-copy", std::to_string(chunks[i].first),
                     chunks[i].second}),
                IsStatus("OK"))
        << "chunk " << i;
    if (i + 1 < chunks.size()) {
      EXPECT_THAT(Cmd({"BF.EXISTS", "sd-copy", "sd:1"}),
                  IsErrorWith("being loaded"));
    }
  }
  EXPECT_EQ(Count(Batched(*client_, "BF.MEXISTS", "sd-copy", items), 1),
            items.size());
  EXPECT_THAT(Cmd({"BF.INFO", "sd-copy"}).elements,
              ::testing::ContainerEq(Cmd({"BF.INFO", "sd"}).elements));
  EXPECT_EQ(BbDumpAll(*client_, "sd-copy", 0), BbDumpAll(*client_, "sd", 0));
  EXPECT_THAT(Cmd({"BF.SCANDUMP", "sd", "abc"}),
              IsErrorText("ERR Second argument must be numeric"));
  EXPECT_THAT(Cmd({"BF.SCANDUMP", "sd", "-1"}),
              IsErrorText("ERR Second argument must be numeric"));
  EXPECT_THAT(Cmd({"BF.LOADCHUNK", "sd2", "abc", "x"}),
              IsErrorText("ERR Second argument must be numeric"));
  EXPECT_THAT(Cmd({"BF.SCANDUMP", "sd", "12345"}), IsError());
  // A complete key cannot be loaded into.
  EXPECT_THAT(Cmd({"BF.LOADCHUNK", "sd-copy", std::to_string(chunks[0].first),
                   chunks[0].second}),
              IsErrorWith("item exists"));
}

}  // namespace
}  // namespace blockbloom::testing
