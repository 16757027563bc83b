// SPDX-License-Identifier: MIT
#include <sphad/kernels.hpp>

#include "kernels/kernel_cases.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <typeindex>

using namespace sphad;

TEST_CASE("kernels::dispatch: every id maps to its own type", "[kernels][dispatch]") {
  std::set<std::type_index> types;
  std::set<std::string> names;
  for (const KernelId id : kernels::all_kernel_ids) {
    const KernelId round_trip = kernels::dispatch(id, [&](auto kernel) {
      types.insert(std::type_index(typeid(kernel)));
      return decltype(kernel)::id;
    });
    CHECK(round_trip == id);
    names.insert(kernels::kernel_name(id));
    CHECK(kernels::kernel_id_from_int(static_cast<int>(id)) == id);
  }
  // Two ids sharing a type (the reference's historic bug) would shrink these sets.
  CHECK(types.size() == std::size(kernels::all_kernel_ids));
  CHECK(names.size() == std::size(kernels::all_kernel_ids));
  int visited = 0;
  test::for_each_kernel([&](auto) { ++visited; });
  CHECK(visited == int(std::size(kernels::all_kernel_ids)));
  CHECK(int(KernelId::B8) == 33);
  CHECK(int(KernelId::B7) == 34);
  CHECK(std::string(kernels::kernel_name(KernelId::QuinticSpline)) == "QuinticSpline");
}

TEST_CASE("kernels::dispatch: unknown ids and schemes are rejected",
          "[kernels][dispatch][errors]") {
  for (const int bad : {-1, 3, 19, 22, 29, 37, 43, 50}) {
    INFO("id " << bad);
    CHECK_THROWS_AS(kernels::kernel_id_from_int(bad), InvalidArgument);
    CHECK_THROWS_WITH(kernels::kernel_id_from_int(bad),
                      Catch::Matchers::Contains("sphad::kernels::dispatch: argument `kernel`: "
                                                "unknown KernelId (got " +
                                                std::to_string(bad)));
  }
  CHECK_THROWS_WITH(kernels::kernel_name(static_cast<KernelId>(7)),
                    Catch::Matchers::Contains("unknown KernelId"));
  CHECK_THROWS_WITH(kernels::dispatch(static_cast<SupportScheme>(10), [](auto) { return 0; }),
                    Catch::Matchers::Contains("argument `support_scheme`: unknown SupportScheme"));
  for (const int scheme : {11, 12, 13, 14, 15, 16}) {
    const int back = kernels::dispatch(static_cast<SupportScheme>(scheme),
                                       [](auto s) { return int(decltype(s)::value); });
    CHECK(back == scheme);
  }
}

TEST_CASE("kernels: support radius and neighbour count helpers", "[kernels][properties]") {
  CHECK(kernels::support_from_volume(0.01, 20, 2) == Approx(0.252313252202016).epsilon(1e-14));
  CHECK(kernels::support_from_volume(0.1, 8, 1) == Approx(0.4).epsilon(1e-14));
  CHECK(kernels::support_from_volume(0.001, 50, 3) ==
        Approx(std::cbrt(0.05 * 3 / (4 * pi_v<double>))).epsilon(1e-14));
  CHECK(kernels::neighbours_from_n_h(4, 2) == Approx(50.2654824574367).epsilon(1e-14));
  CHECK(kernels::neighbours_from_n_h(4, 3) == Approx(268.082573106329).epsilon(1e-14));
  CHECK(kernels::neighbours_from_n_h(4, 1) == 8.0);
  CHECK(kernels::n_h_from_neighbours(kernels::neighbours_from_n_h(3.7, 3), 3) ==
        Approx(3.7).epsilon(1e-14));
  // With v = s^d and N = V_d n_h^d the support is h = n_h s.
  CHECK(kernels::support_from_volume(0.05 * 0.05, kernels::neighbours_from_n_h(4, 2), 2) ==
        Approx(0.2).epsilon(1e-14));
  CHECK(kernels::normalization(KernelId::Wendland4, 2) == Approx(9 / pi_v<double>).epsilon(1e-15));
  CHECK(kernels::normalization(KernelId::ViscosityKernel, 2) ==
        Approx(10 / (3 * pi_v<double>)).epsilon(1e-15)); // normalizing
}

TEST_CASE("kernels: property helpers reject bad arguments", "[kernels][properties][errors]") {
  CHECK_THROWS_WITH(kernels::kernel_scale(KernelId::Wendland2, 4),
                    "sphad::kernels::kernel_scale: argument `dim`: must be 1, 2 or 3 (got 4)");
  CHECK_THROWS_WITH(kernels::support_from_volume(-1, 10, 2),
                    Catch::Matchers::Contains("argument `volume`"));
  CHECK_THROWS_WITH(kernels::support_from_volume(1, 0, 2),
                    Catch::Matchers::Contains("argument `neighbours`"));
  CHECK_THROWS_WITH(kernels::neighbours_from_n_h(std::nan(""), 2),
                    Catch::Matchers::Contains("argument `n_h`"));
  CHECK_THROWS_WITH(kernels::n_h_from_neighbours(-3, 2),
                    Catch::Matchers::Contains("argument `neighbours`"));
  CHECK_THROWS_AS(kernels::normalization(KernelId::B7, 0), InvalidArgument);
}
