// SPDX-License-Identifier: MIT
// Errors of the distributed layer found on one rank only (the last; rank 0 on one rank): every
// rank throws the same `InvalidArgument`, naming the argument and the rank, instead of the other
// ranks waiting in a collective. A regression here deadlocks: ctest's timeout catches it.
#include <sphad/dist.hpp>
#include <sphad/sim/reduce.hpp>

#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace sphad::test {
namespace {

using V2 = Vec<double, 2>;

/// The message `call` throws as an `InvalidArgument` ("" when it throws none), checked to be the
/// same on every rank.
template <class Call>
std::string agreed_error(const dist::Communicator& comm, Call&& call) {
  std::string text;
  try {
    call();
  } catch (const InvalidArgument& e) {
    text = e.what();
  }
  const auto hashes = comm.all_gather(std::hash<std::string>{}(text));
  for (const auto h : hashes) {
    CHECK(h == hashes[0]);
  }
  return text;
}

/// How the message of a check of `function`'s `argument` starts.
std::string prefix(const std::string& function, const std::string& argument) {
  return "sphad::" + function + ": argument `" + argument + "`: ";
}

/// How a message of a check failing on `rank` ends.
std::string on_rank(int rank) {
  return " (on rank " + std::to_string(rank) + ")";
}

Domain<2, double> unit_box(bool periodic) {
  return {V2::filled(0.0), V2::filled(1.0), {periodic, periodic}};
}

/// Four particles in this rank's slab of `unit_box` (slabs across axis 0).
std::vector<V2> slab_particles(const dist::Communicator& comm) {
  std::vector<V2> x;
  for (int k = 0; k < 4; ++k) {
    x.push_back({(comm.rank() + 0.2 + 0.2 * k) / comm.size(), 0.1 + 0.2 * k});
  }
  return x;
}

template <class E>
Span<const E> view(const std::vector<E>& v) {
  return {v.data(), std::int64_t(v.size())};
}

} // namespace

TEST_CASE("dist: a bad sum over ranks on one rank fails on every rank", "[dist][errors]") {
  const dist::Communicator comm;
  const int last = comm.size() - 1;
  const bool bad = comm.rank() == last;
  Tape<exec::host> tape;
  std::vector<double> one{1.0}, two{1.0, 2.0};
  const Variable<double> good(Span<double>{one.data(), 1});
  SECTION("two elements") {
    const Variable<double> x = bad ? Variable<double>(Span<double>{two.data(), 2}) : good;
    const auto text = agreed_error(comm, [&] { dist::record_all_sum(tape, comm, x); });
    CHECK_THAT(text, Catch::StartsWith(prefix("dist::record_all_sum", "x")) &&
                         Catch::EndsWith(on_rank(last)) &&
                         Catch::Contains("has 2 elements where 1 is needed"));
    const auto plain =
        agreed_error(comm, [&] { dist::all_sum(comm, exec::host{}, bad ? view(two) : view(one)); });
    CHECK_THAT(plain,
               Catch::StartsWith(prefix("dist::all_sum", "x")) && Catch::EndsWith(on_rank(last)));
  }
  SECTION("an empty Variable") {
    const Variable<double> x = bad ? Variable<double>() : good;
    CHECK_THAT(agreed_error(comm, [&] { dist::record_all_sum(tape, comm, x); }),
               Catch::StartsWith(prefix("dist::record_all_sum", "x")) &&
                   Catch::EndsWith(on_rank(last)) && Catch::Contains("empty Variable"));
  }
  SECTION("a Variable of another tape, or of a cleared one") {
    Tape<exec::host> other;
    const auto foreign = dist::record_all_sum(other, comm, good);
    CHECK_THAT(agreed_error(comm, [&] { dist::record_all_sum(tape, comm, bad ? foreign : good); }),
               Catch::StartsWith(prefix("dist::record_all_sum", "x")) &&
                   Catch::EndsWith(on_rank(last)) && Catch::Contains("another tape"));
    other.clear();
    CHECK_THAT(agreed_error(comm, [&] { dist::record_all_sum(tape, comm, bad ? foreign : good); }),
               Catch::StartsWith(prefix("dist::record_all_sum", "x")) &&
                   Catch::EndsWith(on_rank(last)) && Catch::Contains("cleared"));
  }
}

TEST_CASE("dist: a bad view or an empty plan of a recorded exchange on one rank fails on every "
          "rank",
          "[dist][errors]") {
  const dist::Communicator comm;
  const int last = comm.size() - 1;
  const bool bad = comm.rank() == last;
  const exec::host exec;
  const auto decomposition = dist::slabs(unit_box(false), comm.size());
  auto x = slab_particles(comm);
  const dist::HaloPlan<exec::host> halo(comm, exec, decomposition, view(x), 0.3);
  const dist::MigrationPlan<exec::host> move(comm, exec, decomposition, view(x));
  Tape<exec::host> tape;
  std::vector<double> u(x.size(), 1.0);
  std::vector<double> w(std::size_t(halo.extended()), 1.0);
  const Variable<double> owned(Span<double>{u.data(), std::int64_t(u.size())});
  const Variable<double> extended(Span<double>{w.data(), std::int64_t(w.size())});
  SECTION("an empty Variable") {
    CHECK_THAT(
        agreed_error(
            comm, [&] { dist::record_halo_gather(tape, halo, bad ? Variable<double>() : owned); }),
        Catch::StartsWith(prefix("dist::record_halo_gather", "owned")) &&
            Catch::EndsWith(on_rank(last)) && Catch::Contains("empty Variable"));
    CHECK_THAT(agreed_error(comm,
                            [&] {
                              dist::record_halo_scatter_add(tape, halo,
                                                            bad ? Variable<double>() : extended);
                            }),
               Catch::StartsWith(prefix("dist::record_halo_scatter_add", "extended")) &&
                   Catch::EndsWith(on_rank(last)));
    CHECK_THAT(
        agreed_error(comm,
                     [&] { dist::record_migrate(tape, move, bad ? Variable<double>() : owned); }),
        Catch::StartsWith(prefix("dist::record_migrate", "x")) && Catch::EndsWith(on_rank(last)));
  }
  SECTION("a Variable of a cleared tape") {
    Tape<exec::host> other;
    const auto gone = dist::record_halo_gather(other, halo, owned);
    const auto gone_owned = dist::record_migrate(other, move, owned);
    other.clear();
    CHECK_THAT(agreed_error(
                   comm, [&] { dist::record_halo_scatter_add(tape, halo, bad ? gone : extended); }),
               Catch::StartsWith(prefix("dist::record_halo_scatter_add", "extended")) &&
                   Catch::EndsWith(on_rank(last)) && Catch::Contains("cleared"));
    CHECK_THAT(
        agreed_error(comm, [&] { dist::record_halo_gather(tape, halo, bad ? gone_owned : owned); }),
        Catch::StartsWith(prefix("dist::record_halo_gather", "owned")) &&
            Catch::EndsWith(on_rank(last)) && Catch::Contains("cleared"));
  }
  SECTION("an empty plan") {
    const dist::HaloPlan<exec::host> no_halo;
    const dist::MigrationPlan<exec::host> no_move;
    const auto& h = bad ? no_halo : halo;
    const auto& m = bad ? no_move : move;
    std::vector<double> out(std::size_t(halo.extended()));
    CHECK_THAT(
        agreed_error(comm,
                     [&] {
                       dist::halo_gather(exec, h, view(u), Span<double>{out.data(), h.extended()});
                     }),
        Catch::StartsWith(prefix("dist::halo_gather", "plan")) && Catch::EndsWith(on_rank(last)) &&
            Catch::Contains("empty"));
    CHECK_THAT(agreed_error(
                   comm,
                   [&] {
                     dist::halo_scatter_add(exec, h, view(w), Span<double>{out.data(), h.owned()});
                   }),
               Catch::StartsWith(prefix("dist::halo_scatter_add", "plan")) &&
                   Catch::EndsWith(on_rank(last)));
    CHECK_THAT(agreed_error(comm, [&] { dist::record_halo_gather(tape, h, owned); }),
               Catch::StartsWith(prefix("dist::record_halo_gather", "plan")) &&
                   Catch::EndsWith(on_rank(last)));
    CHECK_THAT(agreed_error(comm, [&] { dist::record_halo_scatter_add(tape, h, extended); }),
               Catch::StartsWith(prefix("dist::record_halo_scatter_add", "plan")) &&
                   Catch::EndsWith(on_rank(last)));
    CHECK_THAT(agreed_error(comm, [&] { dist::migrate(exec, m, view(u)); }),
               Catch::StartsWith(prefix("dist::migrate", "plan")) &&
                   Catch::EndsWith(on_rank(last)));
    CHECK_THAT(agreed_error(comm, [&] { dist::record_migrate(tape, m, owned); }),
               Catch::StartsWith(prefix("dist::record_migrate", "plan")) &&
                   Catch::EndsWith(on_rank(last)));
  }
}

TEST_CASE("dist: bisection rejects an argument that is bad on one rank on every rank",
          "[dist][errors][decomposition]") {
  const dist::Communicator comm;
  const int last = comm.size() - 1;
  const bool bad = comm.rank() == last;
  const auto domain = unit_box(false);
  const auto x = slab_particles(comm);
  const auto call = [&](const Domain<2, double>& d, const std::vector<V2>& p, int axis) {
    return agreed_error(comm, [&] { dist::bisection(comm, d, view(p), {}, axis); });
  };
  SECTION("an axis out of range") {
    CHECK_THAT(call(domain, x, bad ? 2 : 0), Catch::StartsWith(prefix("dist::bisection", "axis")) &&
                                                 Catch::EndsWith(on_rank(last)) &&
                                                 Catch::Contains("got 2"));
  }
  SECTION("an invalid domain") {
    auto inverted = domain;
    inverted.min[1] = 2.0;
    CHECK_THAT(call(bad ? inverted : domain, x, -1),
               Catch::StartsWith(prefix("dist::bisection", "domain")) &&
                   Catch::EndsWith(on_rank(last)) && Catch::Contains("inverted"));
  }
  SECTION("a domain or an axis that differs between ranks") {
    if (comm.size() > 1) {
      auto wider = domain;
      wider.max[0] = 2.0;
      CHECK_THAT(call(bad ? wider : domain, x, -1),
                 Catch::StartsWith(prefix("dist::bisection", "domain")) &&
                     Catch::EndsWith(on_rank(last)) && Catch::Contains("differ"));
      CHECK_THAT(call(domain, x, bad ? 1 : 0),
                 Catch::StartsWith(prefix("dist::bisection", "axis")) &&
                     Catch::EndsWith(on_rank(last)) && Catch::Contains("differ"));
    }
  }
  SECTION("a position outside the domain on an open axis") {
    auto outside = x;
    if (bad) {
      outside.push_back({0.5, 1.25});
    }
    CHECK_THAT(call(domain, outside, -1),
               Catch::StartsWith(prefix("dist::bisection", "positions")) &&
                   Catch::EndsWith(on_rank(last)) &&
                   Catch::Contains("entry 4 at (0.5, 1.25) lies outside the domain"));
    // on a periodic axis it wraps
    CHECK(call(unit_box(true), outside, -1).empty());
  }
  SECTION("a position that is not finite") {
    auto nan = x;
    if (bad) {
      nan[1][0] = std::numeric_limits<double>::quiet_NaN();
    }
    CHECK_THAT(call(unit_box(true), nan, -1),
               Catch::StartsWith(prefix("dist::bisection", "positions")) &&
                   Catch::EndsWith(on_rank(last)) && Catch::Contains("entry 1"));
  }
}

TEST_CASE("dist: bisection weighs integers up to the int64 limit exactly and rejects larger sums",
          "[dist][errors][decomposition]") {
  const dist::Communicator comm;
  const int last = comm.size() - 1;
  constexpr std::int64_t big = std::int64_t(1) << 60;
  const auto domain = unit_box(false);
  // One particle per rank at the centre of its slab.
  const std::vector<V2> x{{(comm.rank() + 0.5) / comm.size(), 0.5}};
  SECTION("a total that fits, products that do not") {
    // Rank 0's particle weighs 5·2^60, the others' 2^60 / ranks: the total fits in an int64, but
    // (weight below a cut) × (ranks in the box) does not.
    const std::vector<std::int64_t> w{comm.rank() == 0 ? 5 * big : big / comm.size()};
    const auto d = dist::bisection(comm, domain, view(x), view(w), 0);
    // Rank 0's particle alone holds more than half the weight: the cut lies just above it (on
    // two ranks rank 1 owns the other particle).
    if (comm.size() <= 2) {
      CHECK(d.owner(x[0]) == comm.rank());
    }
  }
  SECTION("a total past the int64 limit over the ranks") {
    const std::vector<std::int64_t> w{comm.rank() == last ? std::numeric_limits<std::int64_t>::max()
                                                          : big};
    const std::vector<std::int64_t> both{big, std::numeric_limits<std::int64_t>::max()};
    const std::vector<V2> two{x[0], x[0]};
    const auto text = agreed_error(comm, [&] {
      if (comm.size() > 1) {
        dist::bisection(comm, domain, view(x), view(w), 0);
      } else {
        dist::bisection(comm, domain, view(two), view(both), 0);
      }
    });
    CHECK_THAT(text, Catch::StartsWith(prefix("dist::bisection", "weights")) &&
                         Catch::EndsWith(on_rank(last)) &&
                         Catch::Contains("sum past 9223372036854775807"));
  }
}

TEST_CASE("dist: plans reject a decomposition that is bad or differs on one rank on every rank",
          "[dist][errors][decomposition]") {
  const dist::Communicator comm;
  const int last = comm.size() - 1;
  const bool bad = comm.rank() == last;
  const exec::host exec;
  const auto decomposition = dist::slabs(unit_box(false), comm.size());
  const auto x = slab_particles(comm);
  const auto plans = [&](const dist::Decomposition<2, double>& d) {
    const auto halo =
        agreed_error(comm, [&] { dist::HaloPlan<exec::host>(comm, exec, d, view(x), 0.1); });
    const auto move =
        agreed_error(comm, [&] { dist::MigrationPlan<exec::host>(comm, exec, d, view(x)); });
    CHECK_THAT(halo, Catch::StartsWith(prefix("dist::HaloPlan", "decomposition")) &&
                         Catch::EndsWith(on_rank(last)));
    CHECK_THAT(move, Catch::StartsWith(prefix("dist::MigrationPlan", "decomposition")) &&
                         Catch::EndsWith(on_rank(last)));
    return halo;
  };
  SECTION("another decomposition on one rank") {
    if (comm.size() > 1) {
      // The same domain cut across the other axis: every position still lies in some region.
      auto across = dist::slabs(unit_box(false), comm.size(), 1);
      CHECK_THAT(plans(bad ? across : decomposition), Catch::Contains("differs from rank 0's"));
      auto other = decomposition;
      other.domain.periodic[1] = true;
      CHECK_THAT(plans(bad ? other : decomposition), Catch::Contains("differs from rank 0's"));
    }
  }
  SECTION("a region that is not finite, a domain that is invalid") {
    auto broken = decomposition;
    broken.regions[0].hi[1] = std::numeric_limits<double>::quiet_NaN();
    CHECK_THAT(plans(bad ? broken : decomposition), Catch::Contains("region 0"));
    auto inverted = decomposition;
    inverted.domain.min[1] = 2.0;
    CHECK_THAT(plans(bad ? inverted : decomposition), Catch::Contains("inverted"));
  }
  SECTION("more positions than 32-bit indices address") {
    // Never read: the count is checked first.
    const Span<const V2> huge{x.data(), std::int64_t(INT32_MAX) + 1};
    const auto text = agreed_error(comm, [&] {
      dist::MigrationPlan<exec::host>(comm, exec, decomposition, bad ? huge : view(x));
    });
    CHECK_THAT(text, Catch::StartsWith(prefix("dist::MigrationPlan", "positions")) &&
                         Catch::EndsWith(on_rank(last)) && Catch::Contains("2147483648 entries"));
  }
}

TEST_CASE("dist: positions that are not finite on one rank stop every plan on every rank",
          "[dist][errors]") {
  const dist::Communicator comm;
  const int last = comm.size() - 1;
  const bool bad = comm.rank() == last;
  const exec::host exec;
  for (const bool periodic : {false, true}) {
    const auto decomposition = dist::slabs(unit_box(periodic), comm.size());
    for (const double value :
         {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
      auto x = slab_particles(comm);
      if (bad) {
        x[2][1] = value;
      }
      CHECK_THAT(
          agreed_error(
              comm, [&] { dist::MigrationPlan<exec::host>(comm, exec, decomposition, view(x)); }),
          Catch::StartsWith(prefix("dist::MigrationPlan", "positions")) &&
              Catch::EndsWith(on_rank(last)) && Catch::Contains("entry 2"));
      CHECK_THAT(
          agreed_error(
              comm, [&] { dist::HaloPlan<exec::host>(comm, exec, decomposition, view(x), 0.1); }),
          Catch::StartsWith(prefix("dist::HaloPlan", "positions")) &&
              Catch::EndsWith(on_rank(last)) && Catch::Contains("entry 2"));
    }
  }
  SECTION("a width that is not a number on one rank") {
    const auto decomposition = dist::slabs(unit_box(false), comm.size());
    const auto x = slab_particles(comm);
    const double width = bad ? std::numeric_limits<double>::quiet_NaN() : 0.1;
    CHECK_THAT(
        agreed_error(
            comm, [&] { dist::HaloPlan<exec::host>(comm, exec, decomposition, view(x), width); }),
        Catch::StartsWith(prefix("dist::HaloPlan", "width")) && Catch::EndsWith(on_rank(last)) &&
            Catch::Contains("got nan"));
  }
}

TEST_CASE("dist: an exchange past MPI's int counts on one rank fails on every rank",
          "[dist][errors]") {
  const dist::Communicator comm;
  const int last = comm.size() - 1;
  // The last rank sends INT_MAX elements to itself and one to rank 0: only its send offsets
  // pass INT_MAX. Counts only: nothing is allocated or sent.
  std::vector<std::int64_t> sends(std::size_t(comm.size()), 0);
  if (comm.rank() == last) {
    sends[std::size_t(last)] += INT_MAX;
    sends[0] += 1;
  }
  CHECK_THAT(agreed_error(comm,
                          [&] {
                            dist::detail::Pattern(comm, sends, false, "dist::MigrationPlan",
                                                  "positions");
                          }),
             Catch::StartsWith(prefix("dist::MigrationPlan", "positions")) &&
                 Catch::EndsWith(on_rank(last)) && Catch::Contains("MPI's count limit"));
}

TEST_CASE("dist: a sweep whose checks fail on one rank fails on every rank", "[dist][errors]") {
  const dist::Communicator comm;
  const int last = comm.size() - 1;
  const bool bad = comm.rank() == last;
  const exec::host exec;
  const auto decomposition = dist::slabs(unit_box(false), comm.size());
  const auto x = slab_particles(comm);
  const dist::HaloPlan<exec::host> halo(comm, exec, decomposition, view(x), 0.3);
  std::vector<double> u(x.size(), 1.0);
  const Variable<double> owned(Span<double>{u.data(), std::int64_t(u.size())});
  Tape<exec::host> tape;
  const auto extended = dist::record_halo_gather(tape, halo, owned);
  const auto local = record_sum(tape, extended);
  const auto loss = dist::record_all_sum(tape, comm, local);
  SECTION("a recorded array written on one rank") {
    if (bad) {
      owned.write()[0] = 2.0;
    }
    CHECK_THAT(agreed_error(comm, [&] { tape.backward(loss); }),
               Catch::StartsWith(prefix("Tape::backward", "owned")) &&
                   Catch::Contains("was written after it was recorded") &&
                   Catch::EndsWith(on_rank(last)));
  }
  SECTION("a seed of the wrong size on one rank") {
    const std::vector<double> seed(bad ? 2 : 1, 1.0);
    CHECK_THAT(agreed_error(comm, [&] { tape.backward(loss, view(seed)); }),
               Catch::StartsWith(prefix("Tape::backward", "seed")) &&
                   Catch::EndsWith(on_rank(last)));
  }
  SECTION("a good sweep after a failed one") {
    tape.backward(loss);
    CHECK(tape.gradient(owned)[0] >= 1.0);
  }
}

} // namespace sphad::test
