// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/plain_tape.hpp>
#include <sphad/ad/tape.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/exec/transform_reduce.hpp>
#include <sphad/pairloop/field_maps.hpp>
#include <sphad/pairloop/reverse/gradient_targets.hpp>
#include <sphad/pairloop/reverse/leaf_algebra.hpp>

#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

/// \file
/// \brief `record_map`: a row-wise function out[i] = f(inputs at i) evaluated and recorded on
/// a `Tape`, its backward the function itself on dual numbers (local forward mode per row);
/// `record_reduce`: the sum of such rows, with the same backward.

namespace sphad {

namespace sim::detail {

/// Views read together, element by element (a tuple for device code): `apply(f, i)` is
/// f(v0[i], v1[i], ...).
template <class... Views>
struct ViewPack;
template <>
struct ViewPack<> {
  template <class F, class... Read>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto apply(const F& f, std::int64_t, const Read&... read) const {
    return f(read...);
  }
};
template <class Head, class... Tail>
struct ViewPack<Head, Tail...> {
  Head head;
  ViewPack<Tail...> tail;
  template <class F, class... Read>
  SPHAD_HOST_DEVICE SPHAD_INLINE auto apply(const F& f, std::int64_t i, const Read&... read) const {
    return tail.apply(f, i, read..., head[i]);
  }
};
inline ViewPack<> make_pack() {
  return {};
}
template <class Head, class... Tail>
ViewPack<Head, Tail...> make_pack(const Head& head, const Tail&... tail) {
  return {head, make_pack(tail...)};
}

/// out[i] = f(inputs at i).
template <class F, class Pack, class Out>
struct MapPrimal {
  F f;
  Pack views;
  Out* out;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i) const {
    out[i] = views.apply(f, i);
  }
};

/// Row i of a map's backward: f on the seeded inputs, contracted with ȳ at i · `ybar_stride`
/// (1 for a map; 0 for a sum over the rows, whose one adjoint every row reads), added at i (to
/// at most N targets, one per `Variable` input).
template <int K, class S, class F, class Pack, class OutPrimal, int N>
struct MapAdjoint {
  F f;
  Pack views;
  const OutPrimal* ybar;
  std::int64_t ybar_stride;
  pairloop::GradientTargets<S, N> targets;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i) const {
    S g[K] = {};
    pairloop::add_directions(g, ybar[i * ybar_stride], views.apply(f, i));
    targets.add(i, g);
  }
};

/// One recorded row-wise map over `rows` rows: out[i] = f(inputs at i) (`ybar_stride` 1), or
/// their sum out[0] = Σ_i f(inputs at i) (`ybar_stride` 0).
template <class Exec, class F, class OutPrimal, class... Views>
struct MapRecord final : sphad::detail::Record<Exec> {
  using S = scalar_of_t<OutPrimal>;
  F f;
  std::tuple<Views...> inputs;
  Variable<OutPrimal> output;
  std::int64_t rows;
  std::int64_t ybar_stride;
  std::vector<sphad::detail::VersionSnapshot> snapshots;

  MapRecord(const F& function,
            const std::tuple<Views...>& views,
            Variable<OutPrimal> out,
            std::int64_t num_rows,
            std::int64_t stride)
      : f(function), inputs(views), output(std::move(out)), rows(num_rows), ybar_stride(stride) {
    std::apply(
        [&](const auto&... v) { (sphad::detail::snapshot_version(snapshots, "inputs", v), ...); },
        inputs);
    sphad::detail::snapshot_version(snapshots, "output", output);
  }
  void check_versions() const override { sphad::detail::check_snapshots(snapshots); }
  std::int64_t bytes() const override { return std::int64_t(sizeof(*this)); }
  void backward(Tape<Exec>& tape) const override {
    constexpr int K = (pairloop::seeded_leaves<Views>() + ... + 0);
    if constexpr (K > 0) {
      constexpr int N = pairloop::variables_v<Views...>;
      pairloop::Seeder<K, S, Exec, N> seeder{tape};
      // Braces evaluate left to right: the inputs take their directions in order.
      const auto seeded = std::apply(
          [&](const auto&... v) { return std::tuple<decltype(seeder(v))...>{seeder(v)...}; },
          inputs);
      const auto pack = std::apply([](const auto&... v) { return make_pack(v...); }, seeded);
      exec::for_each_index(tape.exec(), rows,
                           MapAdjoint<K, S, F, std::remove_const_t<decltype(pack)>, OutPrimal, N>{
                               f, pack,
                               sphad::detail::TapeAccess::gradient_slot(tape, output, true).data(),
                               ybar_stride, seeder.targets});
    }
  }
};

/// Row i's term of a recorded sum: f(inputs at i).
template <class F, class Pack>
struct RowTerm {
  F f;
  Pack views;
  SPHAD_HOST_DEVICE SPHAD_INLINE auto operator()(std::int64_t i) const { return views.apply(f, i); }
};

/// Throws naming `argument` of `function` when an input is an empty `Variable`, one another tape
/// owns (a recording tape), or a view whose size is not n (before the tape changes).
template <class T, class... Views>
void check_row_inputs(const T& tape,
                      std::int64_t n,
                      const char* function,
                      const char* argument,
                      const Views&... inputs) {
  SPHAD_REQUIRE(n >= 0, function, "n", sphad::detail::concat("negative (got ", n, ")"));
  [[maybe_unused]] const auto check = [&](const auto& input) {
    sphad::detail::require_readable(input, tape, function, argument);
    SPHAD_REQUIRE(
        input.size() == n, function, argument,
        sphad::detail::concat("an input has ", input.size(), " entries for ", n, " rows"));
  };
  (check(inputs), ...);
}

/// `record_map` (`Sum` false: out[i] = f(inputs at i)) and `record_reduce` (`Sum` true:
/// out[0] = Σ_i f(inputs at i)): the checks, the evaluation, and (on a recording tape) the map's
/// record, whose rows read ȳ at i or all read the sum's one adjoint (stride 0).
template <bool Sum, class F, class T, class... Views>
auto record_rows(
    T& tape, std::int64_t n, const F& f, const char* function, const Views&... inputs) {
  check_row_inputs(tape, n, function, "inputs", inputs...);
  const auto plain = make_pack(pairloop::Untracked{}(inputs)...);
  using Pack = std::remove_const_t<decltype(plain)>;
  using Out = std::remove_cv_t<std::remove_reference_t<decltype(plain.apply(f, 0))>>;
  auto out = sphad::detail::make_output<Out>(tape, Sum ? 1 : n);
  Out* const y = const_cast<Out*>(out.data());
  if constexpr (Sum) {
    exec::transform_reduce(tape.exec(), n, RowTerm<F, Pack>{f, plain}, y);
  } else {
    exec::for_each_index(tape.exec(), n, MapPrimal<F, Pack, Out>{f, plain, y});
  }
  if constexpr (!is_plain_tape_v<T> && (is_variable_v<Views> || ...)) {
    using Exec = std::decay_t<decltype(tape.exec())>;
    sphad::detail::TapeAccess::push(tape,
                                    std::make_unique<MapRecord<Exec, F, Out, Views...>>(
                                        f, std::tuple<Views...>(inputs...), out, n, Sum ? 0 : 1));
  }
  return out;
}

} // namespace sim::detail

/// Reverse mode for a row-wise function: out[i] = f(inputs[0][i], inputs[1][i], ...) for i in
/// [0, n), recorded on `tape` when any input is a `Variable`, the output returned as a
/// `Variable` owned by the tape. `f` is a function object callable on host and device
/// (`SPHAD_HOST_DEVICE`) and generic over the scalar type: its backward evaluates it on dual
/// numbers seeded with one direction per scalar of the `Variable` inputs (the same local forward
/// mode as `record<Op>`), so one definition serves the primal and its derivatives. Inputs are
/// views ([n] each): `Variable`s, `Span`s (constants). This is how the correction pipelines'
/// per-particle steps (a reciprocal, a small solve) are recorded. Throws `InvalidArgument`
/// naming `inputs` when a view's size is not n, before the tape changes.
template <class F, class Exec, class... Views>
auto record_map(Tape<Exec>& tape, std::int64_t n, const F& f, const Views&... inputs) {
  return sim::detail::record_rows<false>(tape, n, f, "record_map", inputs...);
}
/// `record_map` on a plain tape: the same evaluation, nothing recorded; the output a `Variable`
/// in the plain tape's reused memory (valid until its `reset()`).
template <class F, class Exec, class... Views>
auto record_map(PlainTape<Exec>& tape, std::int64_t n, const F& f, const Views&... inputs) {
  return sim::detail::record_rows<false>(tape, n, f, "record_map", inputs...);
}

/// Reverse mode for a sum over rows: out[0] = Σ_{i < n} f(inputs[0][i], inputs[1][i], ...), one
/// element, recorded on `tape` when any input is a `Variable` (the output a `Variable` owned by
/// the tape; a plain scalar output is a loss `Tape::backward(loss)` seeds with 1). `f` and the
/// inputs are `record_map`'s, and so is the backward — a sum is a map whose rows share one
/// adjoint: row i's inputs get ȳ · ∂f/∂x_i. The sum runs in an order fixed by n
/// (`exec::transform_reduce`): the same bits on any number of threads; on CUDA nothing
/// synchronizes. Dual-number views as inputs give the forward mode of the same sum. Throws
/// `InvalidArgument` naming `inputs` when a view's size is not n, before the tape changes. The
/// named sums a loss is made of (`record_sum`, `record_dot`, ...) are in <sphad/sim/reduce.hpp>.
template <class F, class Exec, class... Views>
auto record_reduce(Tape<Exec>& tape, std::int64_t n, const F& f, const Views&... inputs) {
  return sim::detail::record_rows<true>(tape, n, f, "record_reduce", inputs...);
}
/// `record_reduce` on a plain tape: the same sum, nothing recorded; the output a `Variable` of
/// one element in the plain tape's reused memory.
template <class F, class Exec, class... Views>
auto record_reduce(PlainTape<Exec>& tape, std::int64_t n, const F& f, const Views&... inputs) {
  return sim::detail::record_rows<true>(tape, n, f, "record_reduce", inputs...);
}

} // namespace sphad
