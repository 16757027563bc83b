// SPDX-License-Identifier: MIT
// Search tests shared by the host (search.test.cpp) and CUDA (search.test.cu) executables; the
// including file defines SPHAD_TEST_EXEC. Point sets are made on the host, uploaded, searched
// in the space, and the lists compared on the host with the brute force.
#pragma once

#include <sphad/exec.hpp>
#include <sphad/search.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#ifndef SPHAD_TEST_EXEC
#error "define SPHAD_TEST_EXEC before including search.cases.hpp"
#endif

namespace sphad::test {

using Exec = SPHAD_TEST_EXEC;

/// A point set in host memory and its copy in the space's memory.
template <int D, class T>
struct Cloud {
  std::vector<Vec<T, D>> x;
  std::vector<T> h;
  Buffer<Vec<T, D>, Exec> x_device;
  Buffer<T, Exec> h_device;

  Cloud(const Exec& exec, std::vector<Vec<T, D>> positions, std::vector<T> supports)
      : x(std::move(positions)), h(std::move(supports)), x_device(exec, std::int64_t(x.size())),
        h_device(exec, std::int64_t(h.size())) {
    exec::copy_from_host(exec, x.data(), x_device.data(), x_device.size());
    exec::copy_from_host(exec, h.data(), h_device.data(), h_device.size());
  }
  SearchPoints<D, T> host() const {
    return {{x.data(), std::int64_t(x.size())}, {h.data(), std::int64_t(h.size())}};
  }
  SearchPoints<D, T> device() const {
    return {{x_device.data(), x_device.size()}, {h_device.data(), h_device.size()}};
  }
  T max_support() const { return h.empty() ? T(0) : *std::max_element(h.begin(), h.end()); }
};

/// A list's offsets and neighbours copied to the host (lists compared array by array).
template <class E>
std::vector<std::int64_t> host_offsets(const E& exec, const NeighborList<E>& list) {
  return exec::to_host(exec, list.offsets.data(), list.num_queries + 1);
}
template <class E>
std::vector<std::int32_t> host_neighbors(const E& exec, const NeighborList<E>& list) {
  return exec::to_host(exec, list.neighbors.data(), list.num_pairs);
}

/// Rows of a list as sorted host vectors (the comparison of lists as sets per row).
template <class E>
std::vector<std::vector<std::int32_t>> sorted_rows(const E& exec, const NeighborList<E>& list) {
  const auto offsets = exec::to_host(exec, list.offsets.data(), list.num_queries + 1);
  const auto neighbors = exec::to_host(exec, list.neighbors.data(), list.num_pairs);
  std::vector<std::vector<std::int32_t>> rows(static_cast<std::size_t>(list.num_queries));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].assign(neighbors.begin() + offsets[i], neighbors.begin() + offsets[i + 1]);
    std::sort(rows[i].begin(), rows[i].end());
  }
  return rows;
}

/// A random cloud in the domain [−1, 2)^D with supports spread 10× (log-uniform in
/// [0.05, 0.5]), some points exactly on the domain edges, and periodic coordinates unwrapped by
/// up to ±3 periods.
template <int D, class T>
Cloud<D, T> random_cloud(const Exec& exec, const Domain<D, T>& domain, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Vec<T, D>> x(static_cast<std::size_t>(n));
  std::vector<T> h(x.size());
  for (int i = 0; i < n; ++i) {
    for (int a = 0; a < D; ++a) {
      const T lo = domain.min[a], hi = domain.max[a];
      x[i][a] = i % 7 == 0 ? lo : i % 11 == 0 ? hi : T(lo + (hi - lo) * unit(rng));
      if (domain.periodic[a]) {
        x[i][a] += T(int(unit(rng) * 7) - 3) * (hi - lo);
      }
    }
    h[i] = T(0.05 * std::pow(10.0, unit(rng)));
  }
  return Cloud<D, T>(exec, std::move(x), std::move(h));
}

template <int D, class T>
Cloud<D, T> lattice_cloud(const Exec& exec, int per_axis, T lo, T spacing, T h) {
  std::vector<Vec<T, D>> x;
  const int total = D == 1   ? per_axis
                    : D == 2 ? per_axis * per_axis
                             : per_axis * per_axis * per_axis;
  for (int k = 0; k < total; ++k) {
    Vec<T, D> p{};
    int rest = k;
    for (int a = 0; a < D; ++a) { // axis 0 fastest, as the reference's fixture
      p[a] = lo + spacing / 2 + T(rest % per_axis) * spacing;
      rest /= per_axis;
    }
    x.push_back(p);
  }
  return Cloud<D, T>(exec, x, std::vector<T>(x.size(), h));
}

template <int D>
Domain<D, double> cube(int periodic_pattern) {
  Domain<D, double> domain{Vec<double, D>::filled(-1.0), Vec<double, D>::filled(2.0), {}};
  for (int a = 0; a < D; ++a) {
    domain.periodic[a] = periodic_pattern == 1 || (periodic_pattern == 2 && a % 2 == 0);
  }
  return domain;
}

/// The list built in the space equals the brute force, row by row as sets, with no duplicates.
template <SupportScheme S, int D>
void check_against_brute_force(const Exec& exec,
                               const Cloud<D, double>& queries,
                               const Cloud<D, double>& references,
                               const Domain<D, double>& domain,
                               double skin = 0) {
  SearchOptions<double> options;
  options.skin = skin;
  const auto list =
      build_neighbor_list<S>(exec, queries.device(), references.device(), domain, options);
  const auto expected =
      search::brute_force_neighbor_list<S>(queries.host(), references.host(), domain, skin);
  const auto got = sorted_rows(exec, list);
  const auto want = sorted_rows(exec::host{}, expected);
  CHECK(list.num_pairs == expected.num_pairs);
  bool equal = got == want;
  for (const auto& row : got) {
    equal = equal && std::adjacent_find(row.begin(), row.end()) == row.end();
  }
  CHECK(equal);
}

/// Grid traversal writes each query's neighbours into its row of `out`.
template <SupportScheme S, int D, class T>
struct TraverseInto {
  search::HashGridView<D, T> grid;
  SearchPoints<D, T> queries;
  const std::int64_t* offsets;
  std::int32_t* out;
  SPHAD_HOST_DEVICE void operator()(std::int64_t i) const {
    std::int64_t at = offsets[i];
    const std::int64_t end = offsets[i + 1];
    search::for_each_neighbor<S>(grid, queries.positions[i], queries.supports[i], T(0),
                                 [&](std::int32_t j) {
                                   if (at < end) {
                                     out[at] = j;
                                   }
                                   ++at;
                                 });
  }
};

} // namespace sphad::test

using namespace sphad;
using test::Cloud;
using test::Exec;

TEST_CASE("search: the list equals the brute force for every scheme, dimension, periodicity",
          "[search]") {
  const Exec exec{};
  const auto run = [&](auto scheme, auto d) {
    constexpr SupportScheme S = decltype(scheme)::value;
    constexpr int D = decltype(d)::value;
    const int n = D == 1 ? 60 : D == 2 ? 200 : 300;
    for (int pattern = 0; pattern < 3; ++pattern) { // none, all, mixed periodic axes
      const auto domain = test::cube<D>(pattern);
      INFO("scheme " << int(S) << " D = " << D << " periodic pattern " << pattern);
      const auto cloud = test::random_cloud<D>(exec, domain, n, 100 + pattern);
      const auto other = test::random_cloud<D>(exec, domain, n / 2 + 3, 200 + pattern);
      test::check_against_brute_force<S>(exec, cloud, cloud, domain); // one set, both roles
      test::check_against_brute_force<S>(exec, cloud, other, domain); // distinct sets
      test::check_against_brute_force<S>(exec, other, cloud, domain);
      const auto lattice = test::lattice_cloud<D>(exec, D == 3 ? 6 : 12, -1.0, 0.25, 0.3);
      test::check_against_brute_force<S>(exec, lattice, lattice, domain);
    }
  };
  for (const SupportScheme scheme :
       {SupportScheme::Gather, SupportScheme::Scatter, SupportScheme::MeanSymmetric,
        SupportScheme::KernelMeanSymmetric, SupportScheme::SuperSymmetric,
        SupportScheme::PartialSymmetric}) {
    kernels::dispatch(scheme, [&](auto s) {
      run(s, std::integral_constant<int, 1>{});
      run(s, std::integral_constant<int, 2>{});
      run(s, std::integral_constant<int, 3>{});
    });
  }
}

TEMPLATE_TEST_CASE("search: the 32x32 periodic lattice has 57 neighbours per particle",
                   "[search]",
                   float,
                   double) {
  // The reference's lattice fixture: [−1, 1]², dx = 0.0625, h = 0.2615089 (h/dx = 4.184).
  const Exec exec{};
  const auto cloud = test::lattice_cloud<2, TestType>(exec, 32, TestType(-1), TestType(0.0625),
                                                      TestType(0.2615089));
  const Domain<2, TestType> domain{{-1, -1}, {1, 1}, {true, true}};
  const auto list = build_neighbor_list(exec, cloud.device(), cloud.device(), domain,
                                        SupportScheme::SuperSymmetric);
  const auto offsets = exec::to_host(exec, list.offsets.data(), list.num_queries + 1);
  bool all57 = true;
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i) {
    all57 = all57 && offsets[i + 1] - offsets[i] == 57;
  }
  CHECK(all57);
  CHECK(list.num_pairs == 57 * 1024);
}

TEST_CASE("search: two builds give identical arrays", "[search]") {
  const Exec exec{};
  const auto domain = test::cube<3>(2);
  const auto cloud = test::random_cloud<3>(exec, domain, 2000, 7);
  const auto a =
      build_neighbor_list<SupportScheme::Gather>(exec, cloud.device(), cloud.device(), domain);
  const auto b =
      build_neighbor_list<SupportScheme::Gather>(exec, cloud.device(), cloud.device(), domain);
  CHECK(test::host_offsets(exec, a) == test::host_offsets(exec, b));
  CHECK(test::host_neighbors(exec, a) == test::host_neighbors(exec, b));
}

TEST_CASE("search: a rebuild over a previous list equals a fresh build", "[search]") {
  // Over an empty list, a list of other sets (smaller and larger) and the same list: the same
  // arrays and metadata as `build_neighbor_list`, for one set in both roles and distinct sets.
  const Exec exec{};
  const auto domain = test::cube<2>(2);
  const auto cloud = test::random_cloud<2>(exec, domain, 600, 31);
  const auto other = test::random_cloud<2>(exec, domain, 250, 32);
  constexpr SupportScheme S = SupportScheme::Scatter;
  NeighborList<Exec> list;
  for (const auto* sets : {&cloud, &other, &cloud, &cloud}) {
    const auto& queries = *sets;
    const auto fresh = build_neighbor_list<S>(exec, queries.device(), other.device(), domain);
    rebuild_neighbor_list<S>(exec, list, queries.device(), other.device(), domain);
    CHECK(list.num_queries == fresh.num_queries);
    CHECK(list.num_pairs == fresh.num_pairs);
    CHECK(list.num_references == fresh.num_references);
    CHECK(list.scheme == fresh.scheme);
    CHECK(list.radius == fresh.radius);
    CHECK(list.offsets.size() == fresh.offsets.size());
    CHECK(list.neighbors.size() == fresh.neighbors.size());
    CHECK(test::host_offsets(exec, list) == test::host_offsets(exec, fresh));
    CHECK(test::host_neighbors(exec, list) == test::host_neighbors(exec, fresh));
    const auto same = build_neighbor_list<S>(exec, cloud.device(), cloud.device(), domain);
    rebuild_neighbor_list<S>(exec, list, cloud.device(), cloud.device(), domain);
    CHECK(test::host_neighbors(exec, list) == test::host_neighbors(exec, same));
  }
}

TEST_CASE("search: a rebuild from bad input leaves the list as it was", "[search][errors]") {
  const Exec exec{};
  const auto domain = test::cube<2>(1);
  const auto cloud = test::random_cloud<2>(exec, domain, 80, 33);
  auto list =
      build_neighbor_list<SupportScheme::Gather>(exec, cloud.device(), cloud.device(), domain);
  const auto offsets = test::host_offsets(exec, list);
  const auto neighbors = test::host_neighbors(exec, list);
  auto nan_x = cloud.x;
  nan_x[3][0] = std::nan("");
  const Cloud<2, double> bad(exec, nan_x, cloud.h);
  CHECK_THROWS_WITH(rebuild_neighbor_list<SupportScheme::Gather>(exec, list, bad.device(),
                                                                 cloud.device(), domain),
                    Catch::Matchers::Contains("sphad::rebuild_neighbor_list: argument `queries`"));
  SearchOptions<double> negative_skin;
  negative_skin.skin = -1;
  CHECK_THROWS_WITH(rebuild_neighbor_list<SupportScheme::Gather>(
                        exec, list, cloud.device(), cloud.device(), domain, negative_skin),
                    Catch::Matchers::Contains("argument `options.skin`"));
  CHECK(test::host_offsets(exec, list) == offsets);
  CHECK(test::host_neighbors(exec, list) == neighbors);
}

TEST_CASE("search: grid traversal visits the list's neighbours in the same order", "[search]") {
  const Exec exec{};
  const auto domain = test::cube<2>(2);
  const auto cloud = test::random_cloud<2>(exec, domain, 500, 9);
  const auto other = test::random_cloud<2>(exec, domain, 300, 10);
  constexpr SupportScheme S = SupportScheme::MeanSymmetric;
  const auto list = build_neighbor_list<S>(exec, cloud.device(), other.device(), domain);
  const auto grid = search::build_search_grid<S>(exec, cloud.device(), other.device(), domain);
  Buffer<std::int32_t, Exec> visited(exec, list.num_pairs);
  exec::for_each_index(exec, list.num_queries,
                       test::TraverseInto<S, 2, double>{grid.view(), cloud.device(),
                                                        list.offsets.data(), visited.data()});
  CHECK(exec::to_host(exec, visited.data(), visited.size()) ==
        exec::to_host(exec, list.neighbors.data(), list.num_pairs));
}

TEST_CASE("search: the capacity variant flags overflow and is complete otherwise", "[search]") {
  const Exec exec{};
  const auto domain = test::cube<2>(1);
  const auto cloud = test::random_cloud<2>(exec, domain, 400, 11);
  constexpr SupportScheme S = SupportScheme::Gather;
  const auto list = build_neighbor_list<S>(exec, cloud.device(), cloud.device(), domain);
  SearchOptions<double> options;
  options.max_support = cloud.max_support();
  for (const std::int64_t capacity : {list.num_pairs, list.num_pairs - 1, list.num_pairs + 10}) {
    INFO("capacity " << capacity);
    Buffer<std::int64_t, Exec> offsets(exec, list.num_queries + 1);
    Buffer<std::int32_t, Exec> neighbors(exec, std::max<std::int64_t>(capacity, 1));
    Buffer<int, Exec> overflow(exec, 1);
    exec::fill(exec, overflow.data(), 1, -1);
    build_neighbor_list_into<S>(exec, cloud.device(), cloud.device(), domain, options,
                                offsets.data(), neighbors.data(), capacity, overflow.data());
    const int flag = exec::to_host(exec, overflow.data(), 1)[0];
    CHECK(flag == (capacity < list.num_pairs ? 1 : 0));
    CHECK(exec::to_host(exec, offsets.data(), offsets.size()) ==
          exec::to_host(exec, list.offsets.data(), list.num_queries + 1));
    if (flag == 0) {
      const auto got = exec::to_host(exec, neighbors.data(), list.num_pairs);
      CHECK(got == exec::to_host(exec, list.neighbors.data(), list.num_pairs));
    }
  }
}

TEST_CASE("search: Verlet refilter equals a fresh build until the check fires",
          "[search][verlet]") {
  const Exec exec{};
  const auto domain = test::cube<3>(2);
  const auto before = test::random_cloud<3>(exec, domain, 600, 13);
  constexpr SupportScheme S = SupportScheme::KernelMeanSymmetric;
  const double skin = 0.1;
  const auto verlet = build_verlet_list<S>(exec, before.device(), before.device(), domain, skin);
  CHECK_FALSE(verlet_needs_rebuild(exec, verlet, before.device(), before.device(), domain));

  // Every particle moves less than skin/2 (0.045 at most): the filtered list is exact.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  auto moved_x = before.x;
  for (auto& p : moved_x) {
    Vec<double, 3> step{unit(rng), unit(rng), unit(rng)};
    p += step * (0.045 / std::sqrt(3.0));
  }
  const Cloud<3, double> moved(exec, moved_x, before.h);
  CHECK_FALSE(verlet_needs_rebuild(exec, verlet, moved.device(), moved.device(), domain));
  const auto filtered = filter_verlet_list<S>(exec, verlet, moved.device(), moved.device(), domain);
  const auto fresh = build_neighbor_list<S>(exec, moved.device(), moved.device(), domain);
  CHECK(test::sorted_rows(exec, filtered) == test::sorted_rows(exec, fresh));

  // One particle moving more than skin/2 fires the check, and so does a growing support.
  auto far_x = before.x;
  far_x[17][0] += 0.051;
  const Cloud<3, double> far(exec, far_x, before.h);
  CHECK(verlet_needs_rebuild(exec, verlet, far.device(), far.device(), domain));
  auto grown_h = before.h;
  grown_h[3] *= 1.01;
  const Cloud<3, double> grown(exec, before.x, grown_h);
  CHECK(verlet_needs_rebuild(exec, verlet, grown.device(), grown.device(), domain));
}

TEST_CASE("search: empty sets give empty or all-zero lists", "[search]") {
  const Exec exec{};
  const auto domain = test::cube<2>(0);
  const auto cloud = test::random_cloud<2>(exec, domain, 50, 3);
  const Cloud<2, double> empty(exec, {}, {});
  const auto no_queries =
      build_neighbor_list<SupportScheme::Gather>(exec, empty.device(), cloud.device(), domain);
  CHECK(no_queries.num_queries == 0);
  CHECK(no_queries.num_pairs == 0);
  CHECK(exec::to_host(exec, no_queries.offsets.data(), 1) == std::vector<std::int64_t>{0});
  const auto no_references =
      build_neighbor_list<SupportScheme::Scatter>(exec, cloud.device(), empty.device(), domain);
  CHECK(no_references.num_pairs == 0);
  CHECK(exec::to_host(exec, no_references.offsets.data(), 51) == std::vector<std::int64_t>(51, 0));
}

TEST_CASE("search: bad input is rejected with the argument named", "[search][errors]") {
  const Exec exec{};
  const auto domain = test::cube<2>(1); // L = 3: supports must stay below 1.5
  const auto cloud = test::random_cloud<2>(exec, domain, 40, 4);
  const auto build = [&](const Cloud<2, double>& q, const Domain<2, double>& d,
                         SearchOptions<double> options = {}) {
    return build_neighbor_list<SupportScheme::Gather>(exec, q.device(), cloud.device(), d, options);
  };
  auto nan_x = cloud.x;
  nan_x[5][1] = std::nan("");
  CHECK_THROWS_WITH(build(Cloud<2, double>(exec, nan_x, cloud.h), domain),
                    Catch::Matchers::Contains("sphad::build_neighbor_list: argument `queries`"));
  auto inf_h = cloud.h;
  inf_h[2] = INFINITY;
  CHECK_THROWS_WITH(build(Cloud<2, double>(exec, cloud.x, inf_h), domain),
                    Catch::Matchers::Contains("argument `queries`"));
  auto big_h = cloud.h;
  big_h[1] = 1.5;
  CHECK_THROWS_WITH(build(Cloud<2, double>(exec, cloud.x, big_h), domain),
                    Catch::Matchers::Contains("argument `supports`: reach half the period"));
  auto inverted = domain;
  inverted.max[1] = -2;
  CHECK_THROWS_WITH(build(cloud, inverted), Catch::Matchers::Contains("argument `domain`"));
  auto infinite = domain;
  infinite.min[0] = -INFINITY;
  CHECK_THROWS_WITH(build(cloud, infinite), Catch::Matchers::Contains("must be finite"));
  SearchOptions<double> negative_skin;
  negative_skin.skin = -0.1;
  CHECK_THROWS_WITH(build(cloud, domain, negative_skin),
                    Catch::Matchers::Contains("argument `options.skin`"));
  SearchPoints<2, double> mismatched = cloud.device();
  mismatched.supports = {mismatched.supports.data(), mismatched.supports.size() - 1};
  CHECK_THROWS_WITH(
      build_neighbor_list<SupportScheme::Gather>(exec, mismatched, cloud.device(), domain),
      Catch::Matchers::Contains("argument `queries`: has 40 positions but 39"));
  Buffer<std::int64_t, Exec> offsets(exec, 41);
  Buffer<std::int32_t, Exec> neighbors(exec, 1);
  Buffer<int, Exec> overflow(exec, 1);
  CHECK_THROWS_WITH(build_neighbor_list_into<SupportScheme::Gather>(
                        exec, cloud.device(), cloud.device(), domain, SearchOptions<double>{},
                        offsets.data(), neighbors.data(), 1, overflow.data()),
                    Catch::Matchers::Contains("argument `options.max_support`: is required"));
}

TEST_CASE("search: a domain whose extent overflows (bounds of +-DBL_MAX) is rejected, not looped "
          "on",
          "[search][errors]") {
  const Exec exec{};
  const auto cloud = test::random_cloud<2>(exec, test::cube<2>(0), 40, 4);
  const double big = std::numeric_limits<double>::max();
  for (const double bound : {big, 1e308}) {
    const Domain<2, double> unbounded{{-bound, -1.0}, {bound, 2.0}, {}};
    const auto message = Catch::Matchers::Contains("argument `domain`: the extent max - min "
                                                   "overflows (axis 0");
    CHECK_THROWS_WITH(
        build_neighbor_list<SupportScheme::Gather>(exec, cloud.device(), cloud.device(), unbounded),
        message);
    CHECK_THROWS_WITH(search::build_search_grid<SupportScheme::Scatter>(exec, cloud.device(),
                                                                        cloud.device(), unbounded),
                      message);
    CHECK_THROWS_WITH(build_verlet_list<SupportScheme::Gather>(exec, cloud.device(), cloud.device(),
                                                               unbounded, 0.1),
                      message);
  }
  // The low-level grid builder does not validate: it lays out one cell instead of looping.
  const Domain<2, double> unbounded{{-big, -big}, {big, big}, {}};
  const auto grid = search::build_hash_grid(exec, cloud.device(), unbounded, 0.5);
  CHECK(grid.layout.num_cells == 1);
}

TEST_CASE("search: negative sizes name the point set", "[search][errors]") {
  const Exec exec{};
  const auto domain = test::cube<2>(0);
  const auto cloud = test::random_cloud<2>(exec, domain, 40, 4);
  auto negative = cloud.device();
  negative.positions = {negative.positions.data(), -2};
  negative.supports = {negative.supports.data(), -2};
  const auto message = Catch::Matchers::Contains("argument `references`: has a negative size");
  CHECK_THROWS_WITH(
      build_neighbor_list<SupportScheme::Gather>(exec, cloud.device(), negative, domain), message);
  const auto verlet =
      build_verlet_list<SupportScheme::Gather>(exec, cloud.device(), cloud.device(), domain, 0.1);
  CHECK_THROWS_WITH(verlet_needs_rebuild(exec, verlet, cloud.device(), negative, domain),
                    Catch::Matchers::Contains("sphad::verlet_needs_rebuild: argument "
                                              "`references`: has a negative size"));
}

TEST_CASE("search: a max_support below a support is rejected (pairs would be missed)",
          "[search][errors]") {
  const Exec exec{};
  const auto domain = test::cube<2>(0);
  const auto cloud = test::random_cloud<2>(exec, domain, 40, 4);
  SearchOptions<double> low;
  low.max_support = 0.9 * cloud.max_support();
  CHECK_THROWS_WITH(
      build_neighbor_list<SupportScheme::Gather>(exec, cloud.device(), cloud.device(), domain, low),
      Catch::Matchers::Contains("argument `options.max_support`: is below a support "
                                "of `queries`"));
  SearchOptions<double> exact;
  exact.max_support = cloud.max_support();
  const auto list = build_neighbor_list<SupportScheme::Gather>(exec, cloud.device(), cloud.device(),
                                                               domain, exact);
  CHECK(list.num_queries == 40);
}
