// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/ad/dual_view.hpp>
#include <sphad/ad/variable.hpp>
#include <sphad/errors.hpp>
#include <sphad/exec/buffer.hpp>
#include <sphad/exec/copy.hpp>
#include <sphad/exec/host.hpp>
#include <sphad/math/vec.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

/// \file
/// \brief Reverse mode: `Tape<Exec>`, an explicit list of recorded operator launches swept backward
/// in a loop, computing the gradients of `Variable`s (<sphad/ad/variable.hpp>). `sphad::record<Op>`
/// (<sphad/ops/record.hpp>) evaluates an operator and records it.

namespace sphad {

/// How a backward sweep sums each reference particle's adjoints over its pairs. Both sum in a
/// fixed order (no atomics), so the gradients are the same bits on any number of threads; the
/// two orders agree to rounding.
enum class ReferenceSums {
  /// The host: rows cut into chunks fixed by the list (up to 64; fewer for short lists and for
  /// particles out of cell order), each adding into its own window of the references its rows
  /// reach (at most 8 × N_ref scalars per reference-side direction of scratch in all), then
  /// summed over the chunks; the rows of a sweep use at most that many threads. CUDA:
  /// `pair_slots`, its only scheme.
  automatic,
  /// Each pair stores its reference-side adjoints in its own slot (scratch: one scalar per
  /// pair and reference-side direction); each reference sums its slots over the list's entries
  /// grouped by reference, which `record` builds (8 bytes per pair, kept by the tape). Any
  /// number of threads; what the CUDA sweep runs, and on the host the way to test it.
  pair_slots,
};

/// Knobs of a `Tape`, fixed at construction.
struct TapeOptions {
  ReferenceSums reference_sums = ReferenceSums::automatic;
};

/// Knobs of `Tape::backward`.
struct BackwardOptions {
  /// Add this sweep's gradients to those the variables already hold instead of starting from
  /// zero, as every backward does by default.
  bool accumulate = false;
};

template <class Exec>
class Tape;

namespace detail {
struct TapeAccess;

/// Adds in[i] to out[i].
template <class E>
struct AddInto {
  E* out;
  const E* in;
  SPHAD_HOST_DEVICE SPHAD_INLINE void operator()(std::int64_t i) const { out[i] += in[i]; }
};

/// One recorded launch: sweeping it backward adds its inputs' gradients from its output's.
template <class Exec>
struct Record {
  virtual ~Record() = default;
  /// Throws when an input or the output was written after recording.
  virtual void check_versions() const = 0;
  virtual void backward(Tape<Exec>& tape) const = 0;
  /// Bytes this record holds beyond its output (scratch for the backward).
  virtual std::int64_t bytes() const = 0;
};

/// A variable's version when it was recorded, checked again before a sweep.
struct VersionSnapshot {
  std::shared_ptr<VariableState> state;
  std::uint64_t version;
  const char* argument; ///< where the record read it: `queries.positions`, `query_values`, ...
};

/// Appends the snapshot of `view` when it is a variable (other views are not tracked).
template <class View>
void snapshot_version(std::vector<VersionSnapshot>& out, const char* argument, const View& view) {
  if constexpr (is_variable_v<View>) {
    out.push_back({view.state, view.version(), argument});
  }
}

/// Throws naming the first variable written since its snapshot.
inline void check_snapshots(const std::vector<VersionSnapshot>& snapshots) {
  for (const auto& s : snapshots) {
    SPHAD_REQUIRE(s.state->version == s.version, "Tape::backward", s.argument,
                  concat("was written after it was recorded (version ", s.state->version,
                         ", recorded at ", s.version, "); record the launch again"));
  }
}

} // namespace detail

/// A recording of operator launches for reverse mode: explicit, never
/// global. `record<Op>(tape, ...)` evaluates an operator, returns its output as a `Variable`
/// owned by the tape, and — when any input is a `Variable` — appends the launch with its
/// argument views as they are at that moment. `backward` seeds outputs with adjoints and sweeps
/// the records in reverse order (a loop), after which `gradient(v)` holds ∂L/∂v for every
/// variable recorded. One gradient per variable: a variable in several roles (query and
/// reference, Ω of both sides) gets the sum of its roles, counted once.
/// Each sweep starts from zero (unless `accumulate`), so sweeping twice gives the same bits;
/// every gradient is a gather (no atomics), so two runs give the same bits. On CUDA nothing in
/// recording or backward synchronizes (all work is on the tape's stream).
/// @tparam Exec  `exec::host` or `exec::cuda`.
template <class Exec>
class Tape {
public:
  explicit Tape(const Exec& exec = {}, const TapeOptions& options = {})
      : exec_(exec), options_(options) {}
  Tape(const Tape&) = delete;
  Tape& operator=(const Tape&) = delete;

  const Exec& exec() const { return exec_; }
  const TapeOptions& options() const { return options_; }
  /// Whether sweeps sum the references' adjoints from per-pair slots (`ReferenceSums`): always
  /// on CUDA, on request on the host.
  bool uses_pair_slots() const {
    return !std::is_same_v<Exec, exec::host> ||
           options_.reference_sums == ReferenceSums::pair_slots;
  }
  /// Number of recorded launches.
  std::size_t size() const { return records_.size(); }
  /// Bytes the tape holds: outputs and the records' scratch (gradients not counted).
  std::int64_t bytes() const {
    std::int64_t total = 0;
    for (const auto& o : outputs_) {
      total += o->bytes;
    }
    for (const auto& r : records_) {
      total += r->bytes();
    }
    return total;
  }

  ~Tape() { release_outputs(); }

  /// Drops every record, output and gradient. The variables `record` returned are released:
  /// recording or seeding one afterwards throws (an output is only ever recorded on the tape
  /// that made it, so no other tape can read the freed memory).
  void clear() {
    release_outputs();
    records_.clear();
    gradients_.clear();
    outputs_.clear();
    agreements_.clear();
  }

  /// Sweeps backward from `output` with adjoint `seed` ([output.size()], copied).
  template <class E>
  void
  backward(const Variable<E>& output, Span<const E> seed, const BackwardOptions& options = {}) {
    backward(options, Seed<E>{output, seed});
  }

  /// Sweeps backward from a scalar loss: `loss` holds one scalar (a recorded sum, dot or norm:
  /// <sphad/sim/reduce.hpp>), seeded with ∂L/∂loss = 1. Throws `InvalidArgument` naming `loss`
  /// when it holds another number of elements.
  template <class E>
  void backward(const Variable<E>& loss, const BackwardOptions& options = {}) {
    static_assert(std::is_floating_point_v<E>,
                  "sphad::Tape::backward(loss): the loss is a Variable of plain scalars (float "
                  "or double); seed another output with backward(output, seed)");
    checked_together([&] {
      SPHAD_REQUIRE(loss.state != nullptr, "Tape::backward", "loss",
                    "is an empty Variable (default-constructed: it tracks no array); give the "
                    "recorded loss");
      SPHAD_REQUIRE(loss.size() == 1, "Tape::backward", "loss",
                    detail::concat("holds ", loss.size(),
                                   " elements; a loss is one scalar (reduce it with record_sum, "
                                   "record_dot or record_squared_norm, or give a seed)"));
    });
    Buffer<E, Exec> one(exec_, 1);
    exec::fill(exec_, one.data(), 1, E(1));
    backward(options, Seed<E>{loss, Span<const E>{one.data(), 1}});
  }

  /// Sweeps backward from several outputs at once. Throws `InvalidArgument` before any work
  /// when a seed's size differs from its output's or when a recorded variable was written after
  /// recording (the gradients are then left as they were). A tape holding records whose sweep
  /// communicates (the distributed layer's) makes these checks collective: a failure on one rank
  /// throws on every rank. A seed may be a view of this tape's
  /// own gradient memory (`gradient(output)` of an earlier sweep): it is copied before the
  /// gradients are zeroed.
  template <class... E>
  void backward(const BackwardOptions& options, const Seed<E>&... seeds) {
    const auto check_seed = [&](const auto& seed) {
      SPHAD_REQUIRE(seed.output.state != nullptr, "Tape::backward", "seed",
                    "the output is an empty Variable");
      detail::require_on_tape(*seed.output.state, this, "Tape::backward", "seed");
      SPHAD_REQUIRE(knows(seed.output), "Tape::backward", "seed",
                    "the output was not recorded on this tape (its gradients would all be zero)");
      SPHAD_REQUIRE(seed.adjoint.size() == seed.output.size(), "Tape::backward", "seed",
                    detail::concat("has ", seed.adjoint.size(), " entries for an output of ",
                                   seed.output.size()));
    };
    checked_together([&] {
      (check_seed(seeds), ...);
      for (const auto& r : records_) {
        r->check_versions();
      }
    });
    // Each seed's adjoint, copied when it lies in gradient memory that the zeroing below
    // overwrites.
    const auto stable = [&](const auto& seed) {
      using E1 = std::remove_const_t<std::remove_pointer_t<decltype(seed.adjoint.data())>>;
      Buffer<E1, Exec> copy;
      if (in_gradient_memory(seed.adjoint.data(), seed.adjoint.size())) {
        copy = Buffer<E1, Exec>(exec_, seed.adjoint.size());
        exec::copy(exec_, seed.adjoint.data(), copy.data(), copy.size());
      }
      return copy;
    };
    auto copies = std::make_tuple(stable(seeds)...);
    for (auto& [state, slot] : gradients_) {
      if (!options.accumulate || slot->is_output) {
        slot->zero(exec_);
      }
    }
    const auto add_seed = [&](const auto& seed, const auto& copy) {
      const auto g = gradient_slot(seed.output);
      using E1 = std::remove_pointer_t<decltype(g.data())>;
      const E1* adjoint = copy.size() > 0 ? copy.data() : seed.adjoint.data();
      exec::for_each_index(exec_, g.size(), detail::AddInto<E1>{g.data(), adjoint});
    };
    std::apply([&](const auto&... copy) { (add_seed(seeds, copy), ...); }, copies);
    for (auto r = records_.rbegin(); r != records_.rend(); ++r) {
      (*r)->backward(*this);
    }
  }

  /// ∂L/∂v after the last sweep ([v.size()], in the tape's memory; valid until the next
  /// `backward` or `clear`). Throws when `v` was never recorded on this tape.
  template <class E>
  Span<const E> gradient(const Variable<E>& v) const {
    return recorded_gradient(v, "Tape::gradient");
  }

  /// Copies ∂L/∂v of the last sweep into `out` ([v.size()], caller memory on the tape's space;
  /// stream-ordered, no synchronization): a gradient the caller owns, which `clear` and the
  /// next sweep leave alone. Throws naming `v` (never recorded here) or `out` (another size).
  template <class E>
  void copy_gradient(const Variable<E>& v, Span<E> out) const {
    const Span<const E> g = recorded_gradient(v, "Tape::copy_gradient");
    require_same_size(out, g, "Tape::copy_gradient");
    exec::copy(exec_, g.data(), out.data(), g.size());
  }

  /// Adds ∂L/∂v of the last sweep to `out` (an optimiser's running sum, several tapes' shares of
  /// one parameter): as `copy_gradient`, element by element out[i] += ∂L/∂v_i.
  template <class E>
  void add_gradient(const Variable<E>& v, Span<E> out) const {
    const Span<const E> g = recorded_gradient(v, "Tape::add_gradient");
    require_same_size(out, g, "Tape::add_gradient");
    exec::for_each_index(exec_, g.size(), detail::AddInto<E>{out.data(), g.data()});
  }

private:
  /// The gradient array of `v`; throws naming `v` when it was never recorded here.
  template <class E>
  Span<const E> recorded_gradient(const Variable<E>& v, const char* function) const {
    const auto it = gradients_.find(v.state.get());
    SPHAD_REQUIRE(it != gradients_.end(), function, "v",
                  "was not recorded on this tape (give it to record<Op> as an input)");
    const auto* slot = static_cast<const Slot<E>*>(it->second.get());
    return {slot->values.data(), slot->values.size()};
  }
  template <class E>
  static void require_same_size(Span<E> out, Span<const E> gradient, const char* function) {
    SPHAD_REQUIRE(
        out.size() == gradient.size(), function, "out",
        detail::concat("has ", out.size(), " elements for a variable of ", gradient.size()));
  }

  // ---- for record<Op> and record_map (<sphad/ops/record.hpp>), through detail::TapeAccess ----
  friend struct detail::TapeAccess;

  /// Runs `checks` (which throw `InvalidArgument`); when records whose sweep communicates asked
  /// for it, each of their agreements then learns whether this process failed and throws on
  /// every process when any did, so that none is left waiting in the sweep's first exchange.
  template <class Checks>
  void checked_together(Checks&& checks) const {
    if (agreements_.empty()) {
      checks();
      return;
    }
    std::string error;
    bool failed = false;
    try {
      checks();
    } catch (const InvalidArgument& e) {
      failed = true;
      error = e.what();
    }
    for (const auto& agreement : agreements_) {
      agreement.second(failed ? &error : nullptr);
    }
    if (failed) {
      throw InvalidArgument(error);
    }
  }

  /// Adds `agree` (one per `key`: a communicator) to the agreements run before every sweep.
  void agree_before_sweep(std::uintptr_t key, std::function<void(const std::string*)> agree) {
    for (const auto& agreement : agreements_) {
      if (agreement.first == key) {
        return;
      }
    }
    agreements_.emplace_back(key, std::move(agree));
  }

  /// Whether `v` (not empty) is an output of this tape or an input recorded on it.
  template <class E>
  bool knows(const Variable<E>& v) const {
    return v.state->owner == this || gradients_.count(v.state.get()) > 0;
  }

  /// A new output of n elements owned by the tape.
  template <class E>
  Variable<E> make_output(std::int64_t n) {
    auto owned = std::make_unique<Output<E>>(exec_, n);
    Variable<E> v(Span<E>{owned->values.data(), n});
    v.state->owner = this;
    owned->state = v.state;
    outputs_.push_back(std::move(owned));
    return v;
  }

  /// The gradient (adjoint) array of `v`, created zeroed on first use.
  template <class E>
  Span<E> gradient_slot(const Variable<E>& v, bool is_output = false) {
    auto& slot = gradients_[v.state.get()];
    if (!slot) {
      auto created = std::make_unique<Slot<E>>(exec_, v.size(), v.state);
      created->zero(exec_);
      slot = std::move(created);
    }
    slot->is_output = slot->is_output || is_output;
    auto* typed = static_cast<Slot<E>*>(slot.get());
    return {typed->values.data(), typed->values.size()};
  }

  void push(std::unique_ptr<detail::Record<Exec>> record) { records_.push_back(std::move(record)); }

  /// n uninitialized elements of E for one backward step, valid until the next call. On the
  /// host one block is kept and grown (kept across sweeps and `clear`: a fresh large
  /// allocation faults its pages in again on every sweep); on CUDA `keep` receives a
  /// stream-ordered allocation (pooled, and safe inside stream capture).
  template <class E>
  E* workspace(std::int64_t n, Buffer<E, Exec>& keep) {
    if constexpr (std::is_same_v<Exec, exec::host>) {
      (void)keep;
      const std::int64_t blocks = (n * std::int64_t(sizeof(E)) + 15) / 16;
      if (workspace_.size() < blocks) {
        workspace_ = Buffer<WorkspaceBlock, Exec>(exec_, blocks);
      }
      static_assert(alignof(E) <= 16, "sphad::Tape::workspace: over-aligned element");
      return reinterpret_cast<E*>(workspace_.data());
    } else {
      keep = Buffer<E, Exec>(exec_, n);
      return keep.data();
    }
  }

  void release_outputs() {
    for (const auto& o : outputs_) {
      o->state->released = true;
    }
  }

  /// Whether [data, data + n) overlaps a gradient array of this tape (addresses compared on the
  /// host; device memory is not read).
  template <class E>
  bool in_gradient_memory(const E* data, std::int64_t n) const {
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    const auto end = begin + std::uintptr_t(n) * sizeof(E);
    for (const auto& entry : gradients_) {
      const auto [slot_begin, slot_end] = entry.second->address_range();
      if (begin < slot_end && slot_begin < end) {
        return true;
      }
    }
    return false;
  }

  struct SlotBase {
    explicit SlotBase(std::shared_ptr<detail::VariableState> s) : state(std::move(s)) {}
    virtual ~SlotBase() = default;
    virtual void zero(const Exec& exec) = 0;
    /// [begin, end) of the gradient array, as addresses.
    virtual std::pair<std::uintptr_t, std::uintptr_t> address_range() const = 0;
    std::shared_ptr<detail::VariableState> state; // keeps the key alive
    bool is_output = false;
  };
  template <class E>
  struct Slot final : SlotBase {
    Slot(const Exec& exec, std::int64_t n, std::shared_ptr<detail::VariableState> s)
        : SlotBase(std::move(s)), values(exec, n) {}
    void zero(const Exec& exec) override { exec::fill(exec, values.data(), values.size(), E{}); }
    std::pair<std::uintptr_t, std::uintptr_t> address_range() const override {
      const auto begin = reinterpret_cast<std::uintptr_t>(values.data());
      return {begin, begin + std::uintptr_t(values.size()) * sizeof(E)};
    }
    Buffer<E, Exec> values;
  };
  struct OutputBase {
    virtual ~OutputBase() = default;
    std::int64_t bytes = 0;
    std::shared_ptr<detail::VariableState> state; ///< released when the output is freed
  };
  template <class E>
  struct Output final : OutputBase {
    Output(const Exec& exec, std::int64_t n) : values(exec, n) {
      this->bytes = n * std::int64_t(sizeof(E));
    }
    Buffer<E, Exec> values;
  };

  struct alignas(16) WorkspaceBlock {
    unsigned char bytes[16];
  };

  Exec exec_;
  TapeOptions options_;
  Buffer<WorkspaceBlock, Exec> workspace_;
  std::vector<std::unique_ptr<detail::Record<Exec>>> records_;
  std::vector<std::unique_ptr<OutputBase>> outputs_;
  std::unordered_map<const detail::VariableState*, std::unique_ptr<SlotBase>> gradients_;
  /// Collective checks before a sweep, one per communicator (`checked_together`).
  std::vector<std::pair<std::uintptr_t, std::function<void(const std::string*)>>> agreements_;
};

namespace detail {
/// What `record` and `record_map` use of a tape (its internals, not the public API).
struct TapeAccess {
  template <class E, class Exec>
  static Variable<E> make_output(Tape<Exec>& tape, std::int64_t n) {
    return tape.template make_output<E>(n);
  }
  template <class E, class Exec>
  static Span<E> gradient_slot(Tape<Exec>& tape, const Variable<E>& v, bool is_output = false) {
    return tape.gradient_slot(v, is_output);
  }
  template <class Exec, class R>
  static void push(Tape<Exec>& tape, std::unique_ptr<R> record) {
    tape.push(std::unique_ptr<Record<Exec>>(std::move(record)));
  }
  template <class E, class Exec>
  static E* workspace(Tape<Exec>& tape, std::int64_t n, Buffer<E, Exec>& keep) {
    return tape.workspace(n, keep);
  }
  template <class E, class Exec>
  static bool knows(const Tape<Exec>& tape, const Variable<E>& v) {
    return tape.knows(v);
  }
  /// `agree(error)` runs before every sweep of `tape` with this process's check failure (null
  /// when none) and throws on every process when any failed; one per `key`.
  template <class Exec>
  static void agree_before_sweep(Tape<Exec>& tape,
                                 std::uintptr_t key,
                                 std::function<void(const std::string*)> agree) {
    tape.agree_before_sweep(key, std::move(agree));
  }
};
} // namespace detail

} // namespace sphad
