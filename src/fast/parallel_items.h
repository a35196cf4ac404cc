// parallelItems: the fast backend's one way to spread a kernel's work items over the OpenMP threads. Only for
// the kernels' .cpp files, which are compiled with OpenMP.
#pragma once
#include <omp.h>

#include <cstdint>
#include <type_traits>

namespace tosakit::fast {

// body(i) for every i in [0, n): spread over the OpenMP threads when `parallel` and there are several, else in
// a plain loop on the calling thread. An OpenMP region whose if() clause is false still costs ~250 ns here
// (libgomp starts a team of one), and a region with one item wakes the other threads for nothing: a small int8
// model runs ~90 steps. A body returning bool reports success: the result is whether every item succeeded
// (all items run either way, as with a reduction). kRoundRobin: item i goes to thread i % threads
// (schedule(static, 1)), else each thread takes one contiguous block (schedule(static)).
template <bool kRoundRobin = false, typename Body>
inline bool parallelItems(int64_t n, bool parallel, Body&& body) {
  constexpr bool kVoid = std::is_void_v<std::invoke_result_t<Body&, int64_t>>;
  const auto run = [&](int64_t i) {
    if constexpr (kVoid) {
      body(i);
      return true;
    } else {
      return bool(body(i));
    }
  };
  if (!parallel || n <= 1 || omp_get_max_threads() <= 1) {
    bool ok = true;
    for (int64_t i = 0; i < n; ++i) ok &= run(i);
    return ok;
  }
  int bad = 0;
  if constexpr (kRoundRobin) {
#pragma omp parallel for schedule(static, 1) reduction(| : bad)
    for (int64_t i = 0; i < n; ++i) bad |= int(!run(i));
  } else {
#pragma omp parallel for schedule(static) reduction(| : bad)
    for (int64_t i = 0; i < n; ++i) bad |= int(!run(i));
  }
  return !bad;
}

// combine(... combine(init, body(0)) ..., body(n - 1)) in some order (combine associative and commutative),
// with parallelItems' policy: spread over the threads when `parallel` and there are several, else a plain loop.
template <typename T, typename Body, typename Combine>
inline T parallelReduce(int64_t n, bool parallel, T init, Body&& body, Combine&& combine) {
  if (!parallel || n <= 1 || omp_get_max_threads() <= 1) {
    T acc = init;
    for (int64_t i = 0; i < n; ++i) acc = combine(acc, body(i));
    return acc;
  }
  T acc = init;
#pragma omp parallel
  {
    T local = init;
#pragma omp for schedule(static) nowait
    for (int64_t i = 0; i < n; ++i) local = combine(local, body(i));
#pragma omp critical(tosakit_fast_parallel_reduce)
    acc = combine(acc, local);
  }
  return acc;
}

}  // namespace tosakit::fast
