// SPDX-License-Identifier: MIT
// A plain step allocates nothing in steady state: this executable replaces malloc, calloc and
// realloc (glibc's, which operator new and the host buffers call) with counting forwarders, and
// runs the Taylor-Green and dam-break steps on a kept `PlainTape`. After the first steps, every
// step that refilters the kept Verlet list makes no allocation on any thread, and neither does a
// step that rebuilds it, after the first rebuild (which sizes the kept grid and row arrays).
#include "taylor_green/taylor_green.hpp"
#include "wall_flows/wall_flows.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>

// Counted through glibc's allocator, and not under a sanitizer (which replaces it).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define SPHAD_UNDER_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SPHAD_UNDER_SANITIZER 1
#endif
#if defined(__GLIBC__) && !defined(SPHAD_UNDER_SANITIZER)
#define SPHAD_COUNT_ALLOCATIONS 1
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
}
namespace {
std::atomic<std::int64_t> allocations{0};
}
extern "C" void* malloc(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
extern "C" void* calloc(std::size_t count, std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}
extern "C" void* realloc(void* p, std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, n);
}

using namespace sphad;

namespace {

struct Counts {
  std::int64_t warm_allocations = 0; ///< the first steps' (sizing the plain tape: proves counting)
  std::int64_t refilter_steps = 0, refilter_allocations = 0;
  std::int64_t first_rebuild_allocations = -1; ///< the first rebuild after the warm steps
  std::int64_t rebuild_steps = 0, rebuild_allocations = 0; ///< the later rebuilds
};

/// Runs `steps` plain steps one rollout call at a time on one plain tape, counting each step's
/// allocations after the first `warm` steps, split by what the list upkeep did.
template <class Case, class Step>
Counts count_steps(Case& c, const Step& step, std::int64_t warm, std::int64_t steps) {
  PlainTape<exec::host> tape(c.exec);
  Counts counts;
  for (std::int64_t k = 0; k < steps; ++k) {
    const std::int64_t before = allocations.load();
    sim::rollout(tape, 1, c.state, c.params, step, k);
    const std::int64_t made = allocations.load() - before;
    if (k < warm) {
      counts.warm_allocations += made;
      continue;
    }
    if (step.cache->last() == NeighborUpdate::refiltered) {
      ++counts.refilter_steps;
      counts.refilter_allocations += made;
    } else if (counts.first_rebuild_allocations < 0) {
      counts.first_rebuild_allocations = made;
    } else {
      ++counts.rebuild_steps;
      counts.rebuild_allocations += made;
    }
  }
  return counts;
}

} // namespace
#endif

TEST_CASE("plain steps allocate nothing in steady state, list rebuilds included",
          "[sim][plain_tape][allocations]") {
#if !defined(SPHAD_COUNT_ALLOCATIONS)
  WARN("allocations are counted through glibc's malloc, without sanitizers: not counted here");
#else
  using namespace sphad;
  SECTION("Taylor-Green") {
    tgv::Setup setup;
    setup.side = 12;
    tgv::Case<exec::host> c{setup, exec::host{}};
    const Counts counts = count_steps(c, c.step(setup.dt()), 3, 40);
    INFO("first rebuild's allocations " << counts.first_rebuild_allocations);
    CHECK(counts.warm_allocations > 0);
    CHECK(counts.refilter_steps >= 20);
    CHECK(counts.rebuild_steps >= 2);
    CHECK(counts.refilter_allocations == 0);
    CHECK(counts.rebuild_allocations == 0);
  }
  SECTION("dam break") {
    const wall_flows::Setup s = wall_flows::dam_break(6);
    wall_flows::Case<exec::host> c{s, exec::host{}};
    const Counts counts = count_steps(c, c.step(s.dt()), 3, 30);
    CHECK(counts.warm_allocations > 0);
    CHECK(counts.refilter_steps >= 20);
    CHECK(counts.refilter_allocations == 0);
    CHECK(counts.rebuild_allocations == 0);
  }
#endif
}
