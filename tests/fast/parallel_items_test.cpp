// parallelItems / parallelReduce (src/fast/parallel_items.h), the fast kernels' way to spread work items over
// the OpenMP threads: every item runs exactly once on either path (a plain loop when not parallel or with one
// thread; an OpenMP loop otherwise), a bool body's failures are reported without skipping the other items,
// round robin hands item i to thread i % threads, and the plain loop stays on the calling thread. Expected
// values by hand: item i records i + 1, so the sum over n items is n (n + 1) / 2.
#include "fast/parallel_items.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <vector>

namespace tosakit::testing {
namespace {

using fast::parallelItems;
using fast::parallelReduce;

// Each item's run count and thread, for n items on `threads` threads.
struct Record {
  std::vector<std::atomic<int>> runs;
  std::vector<int> thread;
  explicit Record(int64_t n) : runs(size_t(n)), thread(size_t(n), -1) {}
};

// Restores the OpenMP thread count the other tests run with.
struct ThreadCountGuard {
  const int saved = omp_get_max_threads();
  ~ThreadCountGuard() { omp_set_num_threads(saved); }
};

TEST(FastParallelItems, EveryItemRunsOnceOnBothPaths) {
  ThreadCountGuard guard;
  for (const int threads : {1, 2}) {
    omp_set_num_threads(threads);
    for (const bool parallel : {false, true}) {
      for (const int64_t n : {0, 1, 2, 7, 1000}) {
        Record r(n);
        parallelItems(n, parallel, [&](int64_t i) {
          r.runs[size_t(i)].fetch_add(1);
          r.thread[size_t(i)] = omp_get_thread_num();
        });
        for (int64_t i = 0; i < n; ++i) {
          EXPECT_EQ(r.runs[size_t(i)].load(), 1) << "item " << i << " of " << n;
          // Not parallel, one item, or one thread: the calling thread (number 0 outside a region).
          if (!parallel || n <= 1 || threads == 1) { EXPECT_EQ(r.thread[size_t(i)], 0) << "item " << i; }
        }
      }
    }
  }
}

TEST(FastParallelItems, FailuresAreReportedAndEveryItemStillRuns) {
  ThreadCountGuard guard;
  omp_set_num_threads(2);
  for (const bool parallel : {false, true}) {
    Record r(100);
    const bool ok = parallelItems(100, parallel, [&](int64_t i) {
      r.runs[size_t(i)].fetch_add(1);
      return i != 3 && i != 97;  // two items fail
    });
    EXPECT_FALSE(ok);
    for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(r.runs[size_t(i)].load(), 1) << "item " << i;
    EXPECT_TRUE(parallelItems(100, parallel, [](int64_t) { return true; }));
  }
}

TEST(FastParallelItems, RoundRobinGivesItemIToThreadIModThreads) {
  ThreadCountGuard guard;
  omp_set_num_threads(2);
  if (omp_get_max_threads() < 2) GTEST_SKIP() << "one OpenMP thread";
  Record r(9);
  parallelItems<true>(9, true, [&](int64_t i) { r.thread[size_t(i)] = omp_get_thread_num(); });
  for (int64_t i = 0; i < 9; ++i) EXPECT_EQ(r.thread[size_t(i)], int(i % 2)) << "item " << i;
  // Contiguous blocks otherwise: items 0-4 on thread 0, 5-8 on thread 1 (schedule(static), 9 items).
  parallelItems(9, true, [&](int64_t i) { r.thread[size_t(i)] = omp_get_thread_num(); });
  for (int64_t i = 0; i < 9; ++i) EXPECT_EQ(r.thread[size_t(i)], i < 5 ? 0 : 1) << "item " << i;
}

TEST(FastParallelReduce, SumsAndMaximaOnBothPaths) {
  ThreadCountGuard guard;
  for (const int threads : {1, 2}) {
    omp_set_num_threads(threads);
    for (const bool parallel : {false, true}) {
      for (const int64_t n : {0, 1, 5, 1000}) {
        const int64_t sum = parallelReduce(
            n, parallel, int64_t(0), [](int64_t i) { return i + 1; }, [](int64_t a, int64_t b) { return a + b; });
        EXPECT_EQ(sum, n * (n + 1) / 2) << n << " items, " << threads << " threads";
        const int64_t max = parallelReduce(
            n, parallel, int64_t(-1), [](int64_t i) { return (i * 37) % 101; },
            [](int64_t a, int64_t b) { return a > b ? a : b; });
        int64_t expected = -1;  // by a plain loop
        for (int64_t i = 0; i < n; ++i) expected = std::max(expected, (i * 37) % 101);
        EXPECT_EQ(max, expected) << n << " items";
      }
    }
  }
}

}  // namespace
}  // namespace tosakit::testing
