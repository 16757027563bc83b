// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>
#include <sphad/math/vec.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

/// \file
/// \brief Initial conditions on lattices, host only: the simple (square/cubic) lattice and the
/// densest packing per dimension (1D uniform, 2D hexagonal, 3D face-centred cubic), each
/// filling a periodic box [0, box)ᵈ, and a seeded jitter.
///
/// The densest lattices follow the reference's sampler: its cell counts, ordering, spacing and
/// achieved box are reproduced exactly (its jitter's random numbers are not: they come from
/// numpy). A lattice that cannot tile the requested box exactly (the hexagonal one needs a
/// height ratio of √3/2 per supercell, the FCC one a cube) keeps the first edge and reports the
/// box it achieved, with `exact` false.

namespace sphad::sampling {

/// Particles on a lattice in the periodic box [0, box)ᵈ.
template <int D>
struct Lattice {
  std::vector<Vec<double, D>> positions;
  double spacing = 0;                  ///< the nearest-neighbour distance
  Vec<double, D> box{};                ///< the periodic box the lattice tiles
  std::array<std::int64_t, D> cells{}; ///< cells per axis (2D: hexagonal supercells of 4
                                       ///< particles; 3D FCC: conventional cells of 4)
  bool exact = true;                   ///< whether `box` is the box that was asked for
};

namespace detail {
inline void check_count(const char* function, const char* argument, std::int64_t n) {
  SPHAD_REQUIRE(n >= 1, function, argument, sphad::detail::concat("must be >= 1 (got ", n, ")"));
}
template <int D>
void check_box(const char* function, const Vec<double, D>& box) {
  for (int a = 0; a < D; ++a) {
    SPHAD_REQUIRE(
        std::isfinite(box[a]) && box[a] > 0, function, "box",
        sphad::detail::concat("entries must be finite and > 0 (got ", box[a], " on axis ", a, ")"));
  }
}
template <int D>
bool same_box(const Vec<double, D>& achieved, const Vec<double, D>& wanted) {
  for (int a = 0; a < D; ++a) {
    if (std::abs(achieved[a] - wanted[a]) > 1e-12 * std::abs(wanted[a])) {
      return false;
    }
  }
  return true;
}

/// 2D: the supercell counts (sx, sy) with 4 sx sy closest to n, sy = round(2 sx/√3) so that
/// the box stays nearly square; the first sx wins ties.
inline std::array<std::int64_t, 2> hexagonal_cells(std::int64_t n) {
  std::array<std::int64_t, 2> best{1, 1};
  std::int64_t best_error = -1;
  const auto last = std::max<std::int64_t>(1, std::int64_t(std::floor(std::sqrt(double(n)))) + 1);
  for (std::int64_t sx = 1; sx <= last; ++sx) {
    const auto sy = std::max<std::int64_t>(1, std::llround(2.0 * double(sx) / std::sqrt(3.0)));
    const std::int64_t error = std::abs(4 * sx * sy - n);
    if (best_error < 0 || error < best_error) {
      best = {sx, sy};
      best_error = error;
    }
  }
  return best;
}
} // namespace detail

/// The simple lattice: `per_axis` particles per axis in the box [0, box)ᵈ, at the cell centres
/// ((i + ½) s_a on axis a, s_a = box_a/per_axis; x varies fastest). `spacing` is the smallest
/// s_a. Throws `InvalidArgument` for per_axis < 1 or a box entry that is not finite and > 0.
template <int D>
Lattice<D> cubic_lattice(std::int64_t per_axis, const Vec<double, D>& box) {
  static_assert(D >= 1 && D <= 3, "sphad::sampling: the dimension D must be 1, 2 or 3");
  constexpr const char* function = "sampling::cubic_lattice";
  detail::check_count(function, "per_axis", per_axis);
  detail::check_box(function, box);
  Lattice<D> out;
  out.box = box;
  out.spacing = box[0] / double(per_axis);
  for (int a = 0; a < D; ++a) {
    out.cells[std::size_t(a)] = per_axis;
    out.spacing = std::min(out.spacing, box[a] / double(per_axis));
  }
  std::int64_t total = 1;
  for (int a = 0; a < D; ++a) {
    total *= per_axis;
  }
  out.positions.resize(std::size_t(total));
  for (std::int64_t i = 0; i < total; ++i) {
    std::int64_t rest = i;
    for (int a = 0; a < D; ++a) {
      out.positions[std::size_t(i)][a] =
          (double(rest % per_axis) + 0.5) * box[a] / double(per_axis);
      rest /= per_axis;
    }
  }
  return out;
}

/// The densest lattice with about `n` particles whose first box edge is box[0]:
/// - 1D: exactly n particles at (i + ½) box₀/n;
/// - 2D: hexagonal, 4 sx sy particles (the count of that form closest to n), spacing
///   a = box₀/(2 sx), achieved box (box₀, √3 a sy);
/// - 3D: face-centred cubic, 4 p³ particles with p = round(∛(n/4)), cubic box of edge box₀,
///   spacing box₀/(p √2).
/// `exact` says whether the achieved box equals `box` (to 1e-12 relative). Throws
/// `InvalidArgument` for n < 1 or a box entry that is not finite and > 0.
template <int D>
Lattice<D> densest_lattice(std::int64_t n, const Vec<double, D>& box) {
  static_assert(D >= 1 && D <= 3, "sphad::sampling: the dimension D must be 1, 2 or 3");
  constexpr const char* function = "sampling::densest_lattice";
  detail::check_count(function, "n", n);
  detail::check_box(function, box);
  Lattice<D> out;
  const double edge = box[0];
  if constexpr (D == 1) {
    out.spacing = edge / double(n);
    out.box[0] = edge;
    out.cells[0] = n;
    out.positions.resize(std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i) {
      out.positions[std::size_t(i)][0] = (double(i) + 0.5) * out.spacing;
    }
  } else if constexpr (D == 2) {
    const auto [sx, sy] = detail::hexagonal_cells(n);
    const double a = edge / double(2 * sx), row = std::sqrt(3.0) * a;
    out.spacing = a;
    out.box = Vec<double, 2>{edge, row * double(sy)};
    out.cells = {sx, sy};
    const double basis[4][2] = {{0, 0}, {a, 0}, {a / 2, row / 2}, {1.5 * a, row / 2}};
    out.positions.reserve(std::size_t(4 * sx * sy));
    for (std::int64_t i = 0; i < sx; ++i) {
      for (std::int64_t j = 0; j < sy; ++j) {
        for (const auto& b : basis) {
          out.positions.push_back(Vec<double, 2>{2 * double(i) * a + b[0], double(j) * row + b[1]});
        }
      }
    }
  } else {
    const auto p = std::max<std::int64_t>(1, std::llround(std::cbrt(double(n) / 4.0)));
    const double b = edge / double(p);
    out.spacing = b / std::sqrt(2.0);
    out.box = Vec<double, 3>{edge, edge, edge};
    out.cells = {p, p, p};
    const double basis[4][3] = {{0, 0, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}};
    out.positions.reserve(std::size_t(4 * p * p * p));
    for (std::int64_t i = 0; i < p; ++i) {
      for (std::int64_t j = 0; j < p; ++j) {
        for (std::int64_t k = 0; k < p; ++k) {
          for (const auto& c : basis) {
            out.positions.push_back(Vec<double, 3>{(double(i) + c[0]) * b, (double(j) + c[1]) * b,
                                                   (double(k) + c[2]) * b});
          }
        }
      }
    }
  }
  out.exact = detail::same_box(out.box, box);
  return out;
}

/// `densest_lattice` with only the first box edge given, `length`: the other edges are what
/// the lattice needs (2D: √3 a sy; 3D: length), and `exact` is true.
template <int D>
Lattice<D> densest_lattice(std::int64_t n, double length) {
  SPHAD_REQUIRE(std::isfinite(length) && length > 0, "sampling::densest_lattice", "length",
                sphad::detail::concat("must be finite and > 0 (got ", length, ")"));
  Vec<double, D> box{};
  for (int a = 0; a < D; ++a) {
    box[a] = length;
  }
  Lattice<D> out = densest_lattice<D>(n, box);
  out.exact = true;
  return out;
}

/// Moves every coordinate by u · amount · spacing with u uniform in [−½, ½), from a generator
/// seeded by `seed` (SplitMix64: the same seed gives the same bits on every platform). Each
/// particle moves at most ½ amount · spacing per axis; positions are not wrapped into the box.
/// Throws `InvalidArgument` for an amount that is not finite and ≥ 0.
template <int D>
void jitter(Lattice<D>& lattice, double amount, std::uint64_t seed) {
  SPHAD_REQUIRE(std::isfinite(amount) && amount >= 0, "sampling::jitter", "amount",
                sphad::detail::concat("must be finite and >= 0 (got ", amount, ")"));
  std::uint64_t state = seed;
  const auto next = [&state] {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  const double scale = amount * lattice.spacing;
  for (auto& x : lattice.positions) {
    for (int a = 0; a < D; ++a) {
      const double u = double(next() >> 11) * 0x1.0p-53 - 0.5;
      x[a] += u * scale;
    }
  }
}

} // namespace sphad::sampling
