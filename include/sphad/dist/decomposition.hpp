// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/dist/communicator.hpp>
#include <sphad/domain.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/math/periodic.hpp>
#include <sphad/math/vec.hpp>
#include <sphad/search/neighbor_list.hpp>
#include <sphad/search/support_radius.hpp>
#include <sphad/span.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

/// \file
/// \brief `dist::Decomposition`: which rank owns which box of the domain. Slabs of equal
/// thickness (no communication), or recursive coordinate bisection at weighted medians (slabs
/// when the axis is fixed); periodic axes wrap.

namespace sphad::dist {

/// An axis-aligned box [lo, hi) of the domain.
template <int D, class T>
struct Region {
  Vec<T, D> lo;
  Vec<T, D> hi;
};

/// One region per rank, tiling the domain's box. On periodic axes a position is wrapped into
/// [min, max) before it is located; on open axes the box is closed at `max` and a particle
/// outside it belongs to no rank (make the domain cover everywhere particles may go).
template <int D, class T>
struct Decomposition {
  Domain<D, T> domain;
  std::vector<Region<D, T>> regions; ///< [ranks], region r owned by rank r

  int ranks() const { return int(regions.size()); }

  /// x wrapped into [min, max) on the periodic axes (`search::wrap_position`; a wrap that rounds
  /// up to `max` lands on `min`).
  Vec<T, D> wrapped(const Vec<T, D>& position) const {
    Vec<T, D> x = search::wrap_position(domain, position);
    for (int a = 0; a < D; ++a) {
      if (domain.periodic[a] && x[a] >= domain.max[a]) {
        x[a] = domain.min[a];
      }
    }
    return x;
  }

  /// Whether `box` holds the wrapped position x: [lo, hi) per axis, closed at the domain's `max`
  /// on open axes.
  bool contains(const Region<D, T>& box, const Vec<T, D>& x) const {
    for (int a = 0; a < D; ++a) {
      const bool closed_top = !domain.periodic[a] && box.hi[a] == domain.max[a];
      if (!(x[a] >= box.lo[a] && (x[a] < box.hi[a] || (closed_top && x[a] == box.hi[a])))) {
        return false;
      }
    }
    return true;
  }

  /// The rank whose region holds x, or -1 (outside the box on an open axis, or not finite).
  int owner(const Vec<T, D>& position) const {
    const Vec<T, D> x = wrapped(position);
    for (int r = 0; r < ranks(); ++r) {
      if (contains(regions[std::size_t(r)], x)) {
        return r;
      }
    }
    return -1;
  }

  /// The distance from x to region r: the nearest periodic image on the periodic axes.
  T distance(const Vec<T, D>& x, int r) const {
    T sum = 0;
    for (int a = 0; a < D; ++a) {
      const T lo = regions[r].lo[a];
      const T hi = regions[r].hi[a];
      T d = 0;
      if (domain.periodic[a]) {
        Vec<T, D> offset{};
        offset[a] = x[a] - T(0.5) * (lo + hi);
        Vec<bool, D> axis{};
        axis[a] = true;
        d = std::max(std::abs(minimum_image(offset, domain.extent(), axis)[a]) - T(0.5) * (hi - lo),
                     T(0));
      } else {
        d = std::max({lo - x[a], x[a] - hi, T(0)});
      }
      sum += d * d;
    }
    return std::sqrt(sum);
  }
};

/// "(x, y, z)" for messages.
template <int D, class T>
std::string describe(const Vec<T, D>& x) {
  std::string out = "(";
  for (int a = 0; a < D; ++a) {
    out += sphad::detail::concat(a > 0 ? ", " : "", x[a]);
  }
  return out + ")";
}

namespace detail {

/// A 64-bit FNV-1a hash of values' bytes, to compare small host values across ranks.
class Fingerprint {
public:
  template <class V>
  void add(V value) {
    static_assert(std::is_trivially_copyable_v<V>, "Fingerprint: a trivially copyable value");
    if constexpr (std::is_floating_point_v<V>) {
      value = value == V(0) ? V(0) : value; // -0 and +0 alike
    }
    unsigned char bytes[sizeof(V)];
    std::memcpy(bytes, &value, sizeof(V));
    for (const unsigned char b : bytes) {
      hash_ = (hash_ ^ b) * 0x100000001b3ull;
    }
  }
  template <int D, class T>
  void add(const Vec<T, D>& v) {
    for (int a = 0; a < D; ++a) {
      add(v[a]);
    }
  }
  template <int D, class T>
  void add(const Domain<D, T>& domain) {
    add(domain.min);
    add(domain.max);
    for (int a = 0; a < D; ++a) {
      add(domain.periodic[a] ? 1 : 0);
    }
  }
  std::uint64_t value() const { return hash_; }

private:
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

/// Collective: throws naming `decomposition` of `function` on every rank when, on any rank, it
/// has another number of regions than ranks, an invalid domain or a region whose bounds are not
/// finite or inverted, or differs from rank 0's (compared by a hash of its domain and regions).
template <int D, class T>
void require_decomposition(const Communicator& comm,
                           const Decomposition<D, T>& decomposition,
                           const char* function) {
  constexpr const char* argument = "decomposition";
  comm.require_all_pass([&] {
    SPHAD_REQUIRE(decomposition.ranks() == comm.size(), function, argument,
                  sphad::detail::concat("has ", decomposition.ranks(), " regions for ", comm.size(),
                                        " ranks"));
    validate_domain(decomposition.domain, function, argument);
    for (int r = 0; r < decomposition.ranks(); ++r) {
      const auto& box = decomposition.regions[std::size_t(r)];
      for (int a = 0; a < D; ++a) {
        SPHAD_REQUIRE(std::isfinite(box.lo[a]) && std::isfinite(box.hi[a]) &&
                          box.lo[a] <= box.hi[a],
                      function, argument,
                      sphad::detail::concat("region ", r,
                                            " has bounds that are not finite or are "
                                            "inverted (axis ",
                                            a, ": got [", box.lo[a], ", ", box.hi[a], "])"));
      }
    }
  });
  Fingerprint mine;
  mine.add(decomposition.domain);
  for (const auto& box : decomposition.regions) {
    mine.add(box.lo);
    mine.add(box.hi);
  }
  const auto all = comm.all_gather(mine.value());
  comm.require_all(mine.value() == all[0], function, argument, [] {
    return std::string("differs from rank 0's (another domain or other regions): build it from "
                       "the same arguments on every rank");
  });
}

/// Whether a + b overflows for non-negative int64 values.
inline bool sum_overflows(std::int64_t a, std::int64_t b) {
  return b > std::numeric_limits<std::int64_t>::max() - a;
}

/// Whether a·b ≥ c·d for non-negative int64 a, c and int b, d ≥ 0, without overflow: each
/// product as (high, low) = the value's bits above and below 32.
inline bool product_at_least(std::int64_t a, int b, std::int64_t c, int d) {
  const auto wide = [](std::int64_t x, int y) {
    const std::uint64_t u = std::uint64_t(x);
    const std::uint64_t v = std::uint64_t(y);
    const std::uint64_t low = (u & 0xffffffffull) * v; // < 2^63
    return std::make_pair((u >> 32) * v + (low >> 32), low & 0xffffffffull);
  };
  return wide(a, b) >= wide(c, d);
}

} // namespace detail

/// Collective: the owning rank of each of this rank's positions (host memory). Throws
/// `InvalidArgument` on every rank when any rank has a `decomposition` that is invalid or differs
/// from rank 0's (`detail::require_decomposition`), or a position that lies in no region (not
/// finite, or outside the domain on an open axis), naming `decomposition` or `positions`.
template <int D, class T>
std::vector<int> owners(const Communicator& comm,
                        const Decomposition<D, T>& decomposition,
                        const std::vector<Vec<T, D>>& x,
                        const char* function) {
  detail::require_decomposition(comm, decomposition, function);
  std::vector<int> out(x.size());
  std::int64_t bad = -1;
  for (std::size_t i = 0; i < x.size(); ++i) {
    out[i] = decomposition.owner(x[i]);
    bad = bad < 0 && out[i] < 0 ? std::int64_t(i) : bad;
  }
  comm.require_all(bad < 0, function, "positions", [&] {
    return sphad::detail::concat("entry ", bad, " at ", describe(x[std::size_t(bad)]),
                                 " lies outside every rank's region (not finite, or outside the "
                                 "domain on an open axis)");
  });
  return out;
}

/// This rank's positions read to the host, and the rank owning each.
template <int D, class T>
struct Located {
  std::vector<Vec<T, D>> x;
  std::vector<int> owner;
};

/// Collective, for the plans: checks that no rank has more `positions` than 32-bit indices
/// address, reads them (in `exec`'s memory) to the host and locates them (`owners`, which checks
/// `decomposition`). Throws on every rank naming `decomposition` or `positions`.
template <class Exec, int D, class T>
Located<D, T> locate(const Communicator& comm,
                     const Exec& exec,
                     const Decomposition<D, T>& decomposition,
                     Span<const Vec<T, D>> positions,
                     const char* function) {
  comm.require_all(positions.size() <= std::numeric_limits<std::int32_t>::max(), function,
                   "positions", [&] {
                     return sphad::detail::concat("has ", positions.size(),
                                                  " entries, more than 32-bit indices address (",
                                                  std::numeric_limits<std::int32_t>::max(), ")");
                   });
  // host sync: a plan is built on the host, once per rebuild or migration
  std::vector<Vec<T, D>> x = exec::to_host(exec, positions.data(), positions.size());
  std::vector<int> owner = owners(comm, decomposition, x, function);
  return {std::move(x), std::move(owner)};
}

/// Each query's pair count in a neighbour list (its row length), on the host: the weights of a
/// `bisection` that balances the pair work. One read of the list's offsets.
template <class Exec>
std::vector<std::int64_t> pair_weights(const Exec& exec, const NeighborList<Exec>& list) {
  // host sync: the offsets are read once to weigh the particles
  const auto offsets = exec::to_host(exec, list.offsets.data(), list.offsets.size());
  std::vector<std::int64_t> out(offsets.size() > 0 ? offsets.size() - 1 : 0);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = offsets[i + 1] - offsets[i];
  }
  return out;
}

/// `ranks` slabs of equal thickness along `axis` (no communication).
template <int D, class T>
Decomposition<D, T> slabs(const Domain<D, T>& domain, int ranks, int axis = 0) {
  SPHAD_REQUIRE(ranks >= 1, "dist::slabs", "ranks",
                sphad::detail::concat("must be at least 1 (got ", ranks, ")"));
  SPHAD_REQUIRE(axis >= 0 && axis < D, "dist::slabs", "axis",
                sphad::detail::concat("must lie in [0, ", D, ") (got ", axis, ")"));
  validate_domain(domain, "dist::slabs", "domain");
  Decomposition<D, T> out{domain, {}};
  const T lo = domain.min[axis];
  const T extent = domain.max[axis] - lo;
  for (int r = 0; r < ranks; ++r) {
    Region<D, T> region{domain.min, domain.max};
    region.lo[axis] = r == 0 ? lo : lo + extent * T(r) / T(ranks);
    region.hi[axis] = r + 1 == ranks ? domain.max[axis] : lo + extent * T(r + 1) / T(ranks);
    out.regions.push_back(region);
  }
  return out;
}

/// Collective: recursive coordinate bisection of the domain over the communicator's ranks.
/// Each box with k > 1 ranks is cut across `axis` (-1: its longest axis) where the weight of
/// the particles below the cut reaches ⌊k/2⌋/k of the box's weight, and its ranks split
/// ⌊k/2⌋ : ⌈k/2⌉; with a fixed axis the result is slabs holding equal weight. `positions`:
/// this rank's particles (host memory, any rank may hold any particles); `weights`: one per
/// particle (e.g. its pair count, `pair_weights`), or empty for one each. Weights are integers,
/// so the sums, and the cuts, are the same bits on every rank and every run. A box without
/// weight is cut in proportion to its ranks. Throws `InvalidArgument` on every rank when any rank
/// has an invalid `domain` or `axis` or one that differs from rank 0's, a position not finite or
/// outside the domain on an open axis (`positions`), or `weights` of the wrong size, negative, or
/// summing over all ranks past the int64 limit.
template <int D, class T>
Decomposition<D, T> bisection(const Communicator& comm,
                              const Domain<D, T>& domain,
                              Span<const Vec<T, D>> positions,
                              Span<const std::int64_t> weights = {},
                              int axis = -1) {
  constexpr const char* function = "dist::bisection";
  constexpr std::int64_t most = std::numeric_limits<std::int64_t>::max();
  comm.require_all_pass([&] {
    validate_domain(domain, function, "domain");
    SPHAD_REQUIRE(
        axis >= -1 && axis < D, function, "axis",
        sphad::detail::concat("must be -1 (longest) or lie in [0, ", D, ") (got ", axis, ")"));
  });
  // The same domain and axis on every rank (else each rank would cut other boxes).
  struct Arguments {
    std::uint64_t domain;
    int axis;
  };
  detail::Fingerprint print;
  print.add(domain);
  const auto all = comm.all_gather(Arguments{print.value(), axis});
  const bool same_domain = all[0].domain == print.value();
  comm.require_all(same_domain && all[0].axis == axis, function, same_domain ? "axis" : "domain",
                   [&] {
                     return same_domain ? sphad::detail::concat("differs from rank 0's (got ", axis,
                                                                ", rank 0 has ", all[0].axis, ")")
                                        : std::string("differs from rank 0's: pass the same "
                                                      "domain on every rank");
                   });
  const std::int64_t n = positions.size();
  std::int64_t local = weights.size() > 0 ? 0 : n; // this rank's total weight
  comm.require_all_pass([&] {
    for (std::int64_t i = 0; i < n; ++i) {
      for (int a = 0; a < D; ++a) {
        const T c = positions[i][a];
        SPHAD_REQUIRE(
            std::isfinite(double(c)), function, "positions",
            sphad::detail::concat("entry ", i, " at ", describe(positions[i]), " is not finite"));
        SPHAD_REQUIRE(domain.periodic[a] || (c >= domain.min[a] && c <= domain.max[a]), function,
                      "positions",
                      sphad::detail::concat("entry ", i, " at ", describe(positions[i]),
                                            " lies outside the domain on open axis ", a, " ([",
                                            domain.min[a], ", ", domain.max[a], "])"));
      }
    }
    SPHAD_REQUIRE(weights.size() == 0 || weights.size() == n, function, "weights",
                  sphad::detail::concat("has ", weights.size(), " entries for ", n, " positions"));
    for (std::int64_t i = 0; i < weights.size(); ++i) {
      SPHAD_REQUIRE(weights[i] >= 0, function, "weights",
                    sphad::detail::concat("entry ", i, " is negative (got ", weights[i], ")"));
      SPHAD_REQUIRE(
          !detail::sum_overflows(local, weights[i]), function, "weights",
          sphad::detail::concat("entries 0 to ", i, " sum past ", most, " (the int64 limit)"));
      local += weights[i];
    }
  });
  // The running totals in rank order: every sum of weights below fits once the total does.
  const auto locals = comm.all_gather(local);
  std::int64_t running = 0;
  bool fits = true;
  for (int r = 0; r <= comm.rank(); ++r) {
    fits = fits && !detail::sum_overflows(running, locals[std::size_t(r)]);
    running = fits ? running + locals[std::size_t(r)] : running;
  }
  comm.require_all(fits, function, "weights", [&] {
    return sphad::detail::concat("with the lower ranks' weights these sum past ", most,
                                 " (the int64 limit)");
  });
  Decomposition<D, T> out{domain, std::vector<Region<D, T>>(std::size_t(comm.size()))};
  std::vector<Vec<T, D>> x(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    x[std::size_t(i)] = out.wrapped(positions[i]);
  }
  const auto weight = [&](std::int64_t i) { return weights.size() > 0 ? weights[i] : 1; };
  struct Group {
    Region<D, T> box;
    int first, count; // ranks [first, first + count)
  };
  std::vector<Group> groups{{Region<D, T>{domain.min, domain.max}, 0, comm.size()}};
  while (true) {
    std::vector<Group> splitting;
    std::vector<Group> next;
    for (const auto& g : groups) {
      (g.count > 1 ? splitting : next).push_back(g);
    }
    if (splitting.empty()) {
      break;
    }
    const std::size_t m = splitting.size();
    std::vector<int> axes(m);
    std::vector<T> lo(m), hi(m);
    for (std::size_t g = 0; g < m; ++g) {
      int longest = 0;
      const Vec<T, D> extent = splitting[g].box.hi - splitting[g].box.lo;
      for (int a = 1; a < D; ++a) {
        longest = extent[a] > extent[longest] ? a : longest;
      }
      axes[g] = axis >= 0 ? axis : longest;
      lo[g] = splitting[g].box.lo[axes[g]];
      hi[g] = splitting[g].box.hi[axes[g]];
    }
    // The weight below each group's candidate cut, and each group's total (the last m entries).
    const auto below = [&](const std::vector<T>& cuts) {
      std::vector<std::int64_t> sums(2 * m, 0);
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::size_t g = 0; g < m; ++g) {
          if (out.contains(splitting[g].box, x[std::size_t(i)])) {
            sums[m + g] += weight(i);
            sums[g] += x[std::size_t(i)][axes[g]] < cuts[g] ? weight(i) : 0;
            break;
          }
        }
      }
      return comm.all_sum(sums);
    };
    std::vector<T> cut(m);
    const std::vector<std::int64_t> totals = below(lo);
    // Bisection on the cut: the least cut (to 2^-60 of the box) with enough weight below it.
    std::vector<T> a = lo, b = hi;
    for (int iteration = 0; iteration < 60; ++iteration) {
      for (std::size_t g = 0; g < m; ++g) {
        cut[g] = T(0.5) * (a[g] + b[g]);
      }
      const auto sums = below(cut);
      for (std::size_t g = 0; g < m; ++g) {
        const int left = splitting[g].count / 2;
        // weight below ≥ left/count of the total, in integers (the products may pass 2^63)
        const bool enough =
            detail::product_at_least(sums[g], splitting[g].count, totals[m + g], left);
        (enough ? b[g] : a[g]) = cut[g];
      }
    }
    for (std::size_t g = 0; g < m; ++g) {
      const Group& parent = splitting[g];
      const int left = parent.count / 2;
      const T split =
          totals[m + g] > 0 ? b[g] : lo[g] + (hi[g] - lo[g]) * T(left) / T(parent.count);
      Group low = parent, high = parent;
      low.box.hi[axes[g]] = split;
      low.count = left;
      high.box.lo[axes[g]] = split;
      high.first = parent.first + left;
      high.count = parent.count - left;
      next.push_back(low);
      next.push_back(high);
    }
    groups = next;
  }
  for (const auto& g : groups) {
    out.regions[std::size_t(g.first)] = g.box;
  }
  return out;
}

} // namespace sphad::dist
