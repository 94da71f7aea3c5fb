// The concurrent mode: threads adding and querying at once never see a false
// negative for a key whose Add happened before the query, and the whole
// thing is data-race free (scripts/test runs this under ThreadSanitizer).
// Sizes are small: TSan makes every access ~10x slower. No timing here.
#include <atomic>
#include <barrier>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "blockbloom/bloom_filter.h"
#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace blockbloom {
namespace {

BloomFilter MakeConcurrent(uint64_t capacity, uint64_t seed) {
  BloomFilterOptions options;
  options.seed = seed;
  options.concurrent = true;
  absl::StatusOr<BloomFilter> f = BloomFilter::Create(capacity, 0.01, options);
  EXPECT_TRUE(f.ok()) << f.status();
  return *std::move(f);
}

std::string Key(int thread, int i) { return absl::StrCat("t", thread, "-", i); }

// Two threads each add their own keys, publishing progress with a release
// store; each checks its own keys right after adding and the other's keys up
// to the progress it acquired. Every check must pass (the documented
// guarantee: Add happens-before the query => found).
TEST(ConcurrentFilterTest, TwoThreadsAddAndQueryWithNoFalseNegatives) {
  constexpr int kPerThread = 20'000;
  BloomFilter f = MakeConcurrent(2 * kPerThread, 1);
  std::atomic<int> progress[2] = {0, 0};
  std::atomic<int> failures{0};
  auto worker = [&](int me) {
    const int other = 1 - me;
    for (int i = 0; i < kPerThread; ++i) {
      const std::string key = Key(me, i);
      f.Add(key);
      if (!f.MayContain(key)) failures.fetch_add(1);
      progress[me].store(i + 1, std::memory_order_release);
      // Query a key of the other thread that is published as added.
      const int done = progress[other].load(std::memory_order_acquire);
      if (done > 0) {
        const int j = (i * 7919) % done;
        if (!f.MayContain(Key(other, j))) failures.fetch_add(1);
        if (!f.MayContain(Key(other, done - 1))) failures.fetch_add(1);
      }
    }
  };
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  EXPECT_EQ(failures.load(), 0);
  for (int t = 0; t < 2; ++t) {
    for (int i = 0; i < kPerThread; ++i) ASSERT_TRUE(f.MayContain(Key(t, i)));
  }
  // Every distinct key was counted once (less false positives at add time).
  EXPECT_GT(f.num_insertions(), 2 * kPerThread * 0.98);
  EXPECT_LE(f.num_insertions(), 2u * kPerThread);
}

// Threads add the SAME key at the same moment, round after round: a key
// that was absent before its round is reported new by at least one of them
// (each bit is set by exactly one fetch_or), possibly by several (they split
// its bits), and num_insertions() counts every true answer.
TEST(ConcurrentFilterTest, RacingAddsOfTheSameKey) {
  constexpr int kThreads = 3;
  constexpr int kRounds = 1'000;
  BloomFilter f = MakeConcurrent(kRounds, 2);
  std::atomic<int> new_count[kRounds] = {};
  std::barrier sync(kThreads + 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r) {
        sync.arrive_and_wait();
        if (f.Add(Key(9, r))) new_count[r].fetch_add(1);
        sync.arrive_and_wait();
      }
    });
  }
  int total = 0;
  for (int r = 0; r < kRounds; ++r) {
    const bool present_before = f.MayContain(Key(9, r));
    sync.arrive_and_wait();  // the threads add
    sync.arrive_and_wait();  // and are done
    ASSERT_TRUE(f.MayContain(Key(9, r)));
    const int n = new_count[r].load();
    if (present_before) {
      ASSERT_EQ(n, 0) << r;
    } else {
      ASSERT_GE(n, 1) << r;
    }
    ASSERT_LE(n, kThreads);
    total += n;
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(f.num_insertions(), static_cast<uint64_t>(total));
  // The bits do not depend on who won: those of a sequential filter.
  BloomFilterOptions options;
  options.seed = 2;
  absl::StatusOr<BloomFilter> sequential =
      BloomFilter::Create(kRounds, 0.01, options);
  ASSERT_TRUE(sequential.ok());
  for (int r = 0; r < kRounds; ++r) sequential->Add(Key(9, r));
  EXPECT_THAT(f.bits(), ::testing::ElementsAreArray(sequential->bits()));
}

// Adds, batch adds, queries, batch queries, statistics, merges into the
// filter and serialization all at once: TSan checks the lack of races; the
// end state must hold every key.
TEST(ConcurrentFilterTest, EveryConcurrentOperationAtOnce) {
  constexpr int kPerThread = 4'000;
  BloomFilter f = MakeConcurrent(4 * kPerThread, 3);
  BloomFilterOptions other_options;
  other_options.seed = 3;
  absl::StatusOr<BloomFilter> other =
      BloomFilter::Create(4 * kPerThread, 0.01, other_options);
  ASSERT_TRUE(other.ok());
  for (int i = 0; i < kPerThread; ++i) other->Add(Key(7, i));

  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  threads.emplace_back([&] {  // single adds
    for (int i = 0; i < kPerThread; ++i) f.Add(Key(0, i));
  });
  threads.emplace_back([&] {  // batch adds
    std::vector<std::string> keys;
    for (int i = 0; i < kPerThread; ++i) keys.push_back(Key(1, i));
    std::vector<std::string_view> views(keys.begin(), keys.end());
    for (size_t start = 0; start < views.size(); start += 100) {
      f.AddBatch(absl::MakeConstSpan(views).subspan(start, 100));
    }
  });
  threads.emplace_back([&] {  // merge, then statistics and snapshots
    ASSERT_TRUE(f.Merge(*other).ok());
    while (!stop.load()) {
      EXPECT_LE(f.EstimatedFpRate(), 1.0);
      EXPECT_LE(f.ApproximateCount(), 100u * kPerThread);
      absl::StatusOr<std::string> bytes = f.Serialize();
      ASSERT_TRUE(bytes.ok());
      absl::StatusOr<Filter> read = OpenFilter(AsBytes(*bytes));
      ASSERT_TRUE(read.ok());
      absl::StatusOr<BloomFilter> copy = f.Clone();
      ASSERT_TRUE(copy.ok());
      // The merged keys happened before: they are in every snapshot.
      EXPECT_TRUE(read->MayContain(Key(7, 11)));
      EXPECT_TRUE(copy->MayContain(Key(7, 12)));
    }
  });
  threads.emplace_back([&] {  // single and batch queries
    std::vector<std::string> keys;
    for (int i = 0; i < 64; ++i) keys.push_back(Key(0, i));
    std::vector<std::string_view> views(keys.begin(), keys.end());
    bool results[64];
    while (!stop.load()) {
      f.MayContain(Key(1, 5));
      f.MayContainBatch(views, absl::MakeSpan(results, 64));
      f.num_insertions();
    }
  });
  threads[0].join();
  threads[1].join();
  stop.store(true);
  threads[2].join();
  threads[3].join();
  for (int t : {0, 1, 7}) {
    for (int i = 0; i < kPerThread; ++i) ASSERT_TRUE(f.MayContain(Key(t, i)));
  }
}

}  // namespace
}  // namespace blockbloom
