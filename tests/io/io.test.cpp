// SPDX-License-Identifier: MIT
// The output layer: the .vtu and .pvd files' structure and exact bits (NaN, infinities and
// denormals included, decoded by support/vtu.hpp; io/read_vtu.py reads the same files with
// VTK's own reader), what a failed write leaves on disk, CSV text, the progress line under a fake
// clock (broken clocks too), the SVG plot's series, legend, escaping and ticks over any finite
// range, and every error path (it throws sphad::InvalidArgument naming the argument, and writes
// nothing).
#include <sphad/io.hpp>

#include "support/vtu.hpp"
#include "support/xml.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#if defined(__unix__)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

using namespace sphad;
namespace fs = std::filesystem;

namespace {

using V1 = Vec<double, 1>;
using V2 = Vec<double, 2>;
using V3 = Vec<double, 3>;
using V2f = Vec<float, 2>;
using V3f = Vec<float, 3>;
using dlimits = std::numeric_limits<double>;
using flimits = std::numeric_limits<float>;

/// A fresh directory under the system's temporary one, removed with everything in it.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device device;
    const auto ticks = std::chrono::steady_clock::now().time_since_epoch().count();
    path = fs::temp_directory_path() /
           ("sphad_io_test_" + std::to_string(device()) + "_" + std::to_string(ticks));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::int64_t entries() const {
    return std::int64_t(std::distance(fs::directory_iterator(path), fs::directory_iterator()));
  }
};

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::int64_t count(const std::string& text, const std::string& needle) {
  std::int64_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

/// The tag holding `marker`, from `<` to `>`.
std::string tag_of(const std::string& text, const std::string& marker) {
  const auto at = text.find(marker);
  REQUIRE(at != std::string::npos);
  const auto begin = text.rfind('<', at);
  return text.substr(begin, text.find('>', at) - begin + 1);
}

/// The texts of the SVG `<text class="<cls>" ...>` elements, in order.
std::vector<std::string> texts_of_class(const std::string& svg, const std::string& cls) {
  std::vector<std::string> out;
  const std::string marker = "<text class=\"" + cls + "\"";
  for (auto at = svg.find(marker); at != std::string::npos; at = svg.find(marker, at + 1)) {
    const auto begin = svg.find('>', at) + 1;
    out.push_back(svg.substr(begin, svg.find("</text>", begin) - begin));
  }
  return out;
}

/// Calls `call` and checks it throws `sphad::InvalidArgument` whose message holds `text`.
template <class F>
void check_invalid(F&& call, const std::string& text) {
  CHECK_THROWS_AS(call(), InvalidArgument);
  CHECK_THROWS_WITH(call(), Catch::Contains(text));
}

/// Everything written to a temporary file.
std::string contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string out;
  for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) {
    out += char(c);
  }
  return out;
}

/// The bytes of `values` as the file holds them (little-endian, as this host: checked below).
template <class T>
std::vector<unsigned char> bytes_of(const std::vector<T>& values) {
  std::vector<unsigned char> out(values.size() * sizeof(T));
  if (!out.empty()) {
    std::memcpy(out.data(), values.data(), out.size());
  }
  return out;
}

bool little_endian_host() {
  const std::uint32_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

/// A frame's file decoded, required valid.
test::VtuFile read_frame(const fs::path& path) {
  test::VtuFile file = test::read_vtu(read(path));
  INFO(file.problem);
  REQUIRE(file.problem.empty());
  return file;
}

/// The array `name` of section `section`, required present.
const test::VtuArray&
array_of(const test::VtuFile& file, const std::string& section, const std::string& name) {
  const test::VtuArray* array = file.find(section, name);
  INFO(section << " / " << name);
  REQUIRE(array != nullptr);
  return *array;
}

double bits_as_double(std::uint64_t bits) {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
float bits_as_float(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/// Every value a run that blew up (or a careful test) may hand the writers: NaNs (quiet, with
/// the sign bit, with a payload, signalling), the infinities, zeros of both signs, denormals and
/// the extremes.
std::vector<double> hostile_doubles() {
  return {dlimits::quiet_NaN(),
          -dlimits::quiet_NaN(),
          bits_as_double(0x7ff8000000000123ull),
          bits_as_double(0x7ff0000000000001ull),
          dlimits::infinity(),
          -dlimits::infinity(),
          0.0,
          -0.0,
          dlimits::denorm_min(),
          -dlimits::denorm_min(),
          dlimits::min(),
          dlimits::max(),
          -dlimits::max(),
          1.0 / 3.0};
}
std::vector<float> hostile_floats() {
  return {flimits::quiet_NaN(),
          -flimits::quiet_NaN(),
          bits_as_float(0x7fc00123u),
          bits_as_float(0x7f800001u),
          flimits::infinity(),
          -flimits::infinity(),
          0.0f,
          -0.0f,
          flimits::denorm_min(),
          -flimits::denorm_min(),
          flimits::min(),
          flimits::max(),
          -flimits::max(),
          1.0f / 3.0f};
}

/// Whether `call` returns within `seconds`. On POSIX systems it runs in a child process, killed
/// when late: a call that never returns fails the check instead of hanging the tests (and
/// whatever memory it grows goes with the child).
template <class F>
bool returns_within(double seconds, F&& call) {
#if defined(__unix__)
  std::fflush(nullptr);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    try {
      call();
    } catch (...) {
      std::_Exit(2);
    }
    std::_Exit(0);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
#else
  (void)seconds;
  call();
  return true;
#endif
}

/// The attributes of an SVG element that hold numbers (one, or a list in `points`).
bool numeric_attribute(const std::string& name) {
  static const char* const names[] = {
      "x", "y",     "x1",     "y1", "x2",     "y2",           "cx",       "cy",
      "r", "width", "height", "dy", "points", "stroke-width", "font-size"};
  for (const char* n : names) {
    if (name == n) {
      return true;
    }
  }
  return false;
}

/// The first problem of `svg` as a document a viewer draws: not well-formed XML, or a
/// coordinate that is not a finite number of at most 12 characters (`nan`, `inf`, 300 digits).
std::string svg_problem(const std::string& svg) {
  const test::XmlDocument doc = test::parse_xml(svg);
  if (!doc.problem.empty()) {
    return "not well-formed: " + doc.problem;
  }
  for (const auto& element : doc.elements) {
    for (const auto& [key, value] : element.attributes) {
      if (!numeric_attribute(key)) {
        continue;
      }
      std::string list = value;
      for (char& c : list) {
        c = c == ',' ? ' ' : c;
      }
      std::istringstream in(list);
      for (std::string token; in >> token;) {
        char* end = nullptr;
        const double v = std::strtod(token.c_str(), &end);
        if (*end != '\0' || !std::isfinite(v) || token.size() > 12) {
          return "<" + element.name + " " + key + "=\"" + value.substr(0, 60) + "\">";
        }
      }
    }
  }
  return {};
}

} // namespace

TEST_CASE("io: a 2D frame is an UnstructuredGrid of vertices with padded, exact arrays",
          "[io][vtk]") {
  REQUIRE(little_endian_host());
  TempDir dir;
  const std::vector<V2> x{{0.1, 0.2}, {1.0 / 3.0, -2.5}, {1e-20, 7.0}};
  const std::vector<double> rho{1000.0, 999.1234567890123, 1.0 / 7.0};
  const std::vector<V2> v{{1.0, -1.0}, {0.3, 0.0}, {2.0 / 3.0, 5.5}};
  const std::vector<std::int32_t> id{7, -3, 2147483647};
  io::VtuFrame frame(x);
  frame.add("density", rho).add("velocity", v).add("id", Span<const std::int32_t>(id));
  CHECK(frame.size() == 3);
  frame.write(dir.path / "frame.vtu");
  const std::string text = read(dir.path / "frame.vtu");

  CHECK(text.rfind("<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
                   "byte_order=\"LittleEndian\" header_type=\"UInt64\">",
                   0) == 0);
  CHECK(count(text, "NumberOfPoints=\"3\"") == 1);
  CHECK(count(text, "NumberOfCells=\"3\"") == 1);
  CHECK(count(text, "<DataArray") == 7); // 3 point arrays, the points, 3 cell arrays
  CHECK(count(text, "</DataArray>") == 7);
  CHECK(count(text, "format=\"binary\"") == 7);
  CHECK(count(text, "<PointData>") == 1);

  const test::VtuFile file = read_frame(dir.path / "frame.vtu");
  CHECK(file.points == 3);
  CHECK(file.cells == 3);
  const auto& points = array_of(file, "Points", "");
  CHECK(points.type == "Float64");
  CHECK(points.components == 3);
  CHECK(points.bytes == bytes_of(std::vector<double>{0.1, 0.2, 0.0, 1.0 / 3.0, -2.5, 0.0, 1e-20,
                                                     7.0, 0.0})); // padded with zeros

  const auto& density = array_of(file, "PointData", "density");
  CHECK(density.type == "Float64");
  CHECK(density.components == 1);
  CHECK(density.bytes == bytes_of(rho));
  CHECK(tag_of(text, "Name=\"density\"").find("NumberOfComponents") == std::string::npos);

  const auto& velocity = array_of(file, "PointData", "velocity");
  CHECK(velocity.components == 3);
  CHECK(velocity.bytes ==
        bytes_of(std::vector<double>{1.0, -1.0, 0.0, 0.3, 0.0, 0.0, 2.0 / 3.0, 5.5, 0.0}));

  const auto& ids = array_of(file, "PointData", "id");
  CHECK(ids.type == "Int32");
  CHECK(ids.bytes == bytes_of(id));
  const auto& connectivity = array_of(file, "Cells", "connectivity");
  CHECK(connectivity.type == "Int64");
  CHECK(connectivity.bytes == bytes_of(std::vector<std::int64_t>{0, 1, 2}));
  CHECK(array_of(file, "Cells", "offsets").bytes == bytes_of(std::vector<std::int64_t>{1, 2, 3}));
  const auto& types = array_of(file, "Cells", "types");
  CHECK(types.type == "UInt8");
  CHECK(types.bytes == std::vector<unsigned char>{1, 1, 1}); // VTK_VERTEX
}

TEST_CASE("io: float and 1D positions keep their type and are padded to 3 components",
          "[io][vtk]") {
  TempDir dir;
  const std::vector<V3f> xf{{0.1f, 0.2f, 0.3f}, {1.0f / 3.0f, 2.0f, 3.0f}};
  io::VtuFrame(xf).write(dir.path / "f.vtu");
  const test::VtuFile ff = read_frame(dir.path / "f.vtu");
  const auto& pf = array_of(ff, "Points", "");
  CHECK(pf.type == "Float32");
  CHECK(pf.bytes == bytes_of(std::vector<float>{0.1f, 0.2f, 0.3f, 1.0f / 3.0f, 2.0f, 3.0f}));

  const std::vector<V1> x1{{-1.5}, {2.25}};
  io::VtuFrame(x1).write(dir.path / "line.vtu");
  const test::VtuFile f1 = read_frame(dir.path / "line.vtu");
  const auto& p1 = array_of(f1, "Points", "");
  CHECK(p1.type == "Float64");
  CHECK(p1.bytes == bytes_of(std::vector<double>{-1.5, 0, 0, 2.25, 0, 0}));
}

TEST_CASE("io: a frame keeps NaN, infinities, denormals and extremes bit for bit", "[io][vtk]") {
  REQUIRE(little_endian_host());
  TempDir dir;
  const std::vector<double> d = hostile_doubles();
  const std::vector<float> f = hostile_floats();
  const std::size_t n = d.size();
  std::vector<V3> x(n);
  std::vector<V2f> vf(n);
  std::vector<std::int64_t> big(n);
  std::vector<std::int32_t> small(n);
  std::vector<double> x_bits, vf_padded;
  std::vector<float> vf_bits;
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = V3{d[i], d[n - 1 - i], -d[i]};
    vf[i] = V2f{f[i], f[n - 1 - i]};
    big[i] = i % 2 == 0 ? std::numeric_limits<std::int64_t>::min() + std::int64_t(i)
                        : std::numeric_limits<std::int64_t>::max() - std::int64_t(i);
    small[i] = i % 2 == 0 ? std::numeric_limits<std::int32_t>::min() + std::int32_t(i)
                          : std::numeric_limits<std::int32_t>::max() - std::int32_t(i);
    x_bits.insert(x_bits.end(), {d[i], d[n - 1 - i], -d[i]});
    vf_bits.insert(vf_bits.end(), {f[i], f[n - 1 - i], 0.0f});
  }
  io::VtuFrame frame(x);
  frame.add("d", d).add("f", f).add("vf", vf).add("big", big).add("small", small);
  frame.write(dir.path / "blown.vtu");
  const std::string text = read(dir.path / "blown.vtu");
  CHECK(count(text, "nan") == 0);
  CHECK(count(text, "inf") == 0);
  const test::VtuFile file = read_frame(dir.path / "blown.vtu");
  CHECK(array_of(file, "Points", "").bytes == bytes_of(x_bits));
  CHECK(array_of(file, "PointData", "d").bytes == bytes_of(d));
  CHECK(array_of(file, "PointData", "f").bytes == bytes_of(f));
  CHECK(array_of(file, "PointData", "vf").type == "Float32");
  CHECK(array_of(file, "PointData", "vf").bytes == bytes_of(vf_bits));
  CHECK(array_of(file, "PointData", "big").type == "Int64");
  CHECK(array_of(file, "PointData", "big").bytes == bytes_of(big));
  CHECK(array_of(file, "PointData", "small").bytes == bytes_of(small));
}

TEST_CASE("io: a frame of no particles and names with XML specials", "[io][vtk]") {
  TempDir dir;
  io::VtuFrame empty(std::vector<V3>{});
  empty.add("rho", std::vector<double>{});
  empty.write(dir.path / "empty.vtu");
  const test::VtuFile none = read_frame(dir.path / "empty.vtu");
  CHECK(none.points == 0);
  CHECK(array_of(none, "PointData", "rho").bytes.empty());

  io::VtuFrame named(std::vector<V2>{{0.0, 1.0}});
  const std::string name = "a<b & \"c\"\n'd'\t\xc3\xa9";
  named.add(name, std::vector<double>{2.0});
  named.add("bad \x01 utf8 \xff", std::vector<double>{3.0});
  named.write(dir.path / "named.vtu");
  const test::VtuFile file = read_frame(dir.path / "named.vtu");
  CHECK(array_of(file, "PointData", name).at<double>(0) == 2.0); // line break and tab kept
  // Bytes that XML cannot carry become U+FFFD.
  CHECK(array_of(file, "PointData", "bad \xef\xbf\xbd utf8 \xef\xbf\xbd").at<double>(0) == 3.0);
}

TEST_CASE("io: a series writes numbered frames and a .pvd listing each with its time",
          "[io][vtk]") {
  TempDir dir;
  const fs::path out = dir.path / "nested" / "run"; // created by the series
  io::PvdSeries series(out, "tgv");
  const std::vector<V2> x{{0.0, 0.0}, {1.0, 0.5}};
  const std::vector<double> times{0.0, 0.1, 1.25, dlimits::denorm_min(), dlimits::max()};
  for (std::size_t k = 0; k < times.size(); ++k) {
    const auto written = series.write(times[k], io::VtuFrame(x));
    CHECK(written.filename() == "tgv_00000" + std::to_string(k) + ".vtu");
    CHECK(read_frame(written).points == 2);
    // Rewritten after every frame: a run stopped here is viewable.
    CHECK(count(read(series.pvd_path()), "<DataSet") == std::int64_t(k + 1));
  }
  CHECK(series.size() == 5);
  CHECK(series.pvd_path() == out / "tgv.pvd");
  const std::string pvd = read(out / "tgv.pvd");
  CHECK(test::parse_xml(pvd).problem.empty());
  CHECK_THAT(pvd, Catch::Contains("<VTKFile type=\"Collection\""));
  for (std::size_t k = 0; k < times.size(); ++k) {
    const auto tag = tag_of(pvd, "file=\"tgv_00000" + std::to_string(k) + ".vtu\"");
    const auto at = tag.find("timestep=\"") + 10;
    CHECK(std::strtod(tag.substr(at, tag.find('"', at) - at).c_str(), nullptr) == times[k]);
  }
  CHECK(std::distance(fs::directory_iterator(out), fs::directory_iterator()) == 6);
}

TEST_CASE("io: bad frames and series throw naming the argument and write nothing",
          "[io][vtk][errors]") {
  TempDir dir;
  const std::vector<V2> x{{0.0, 0.0}, {1.0, 0.5}, {2.0, 1.0}};
  const std::vector<double> two{1.0, 2.0};
  io::VtuFrame frame(x);
  check_invalid([&] { frame.add("density", two); }, "argument `values`");
  check_invalid([&] { frame.add("density", two); }, "(got 2, expected 3)");
  frame.add("density", std::vector<double>{1.0, 2.0, 3.0});
  check_invalid(
      [&] {
        frame.add("density", std::vector<double>{1.0, 2.0, 3.0});
      },
      "argument `name`: an array named `density` was already added");
  check_invalid([&] { frame.add("", two); }, "argument `name`");
  const fs::path missing = dir.path / "missing" / "f.vtu";
  check_invalid([&] { frame.write(missing); }, "argument `path`");
  check_invalid([&] { frame.write(missing); }, missing.string());

  check_invalid([&] { io::PvdSeries(dir.path, ""); }, "argument `basename`");
  check_invalid([&] { io::PvdSeries(dir.path, "a/b"); }, "argument `basename`");
  check_invalid([&] { io::PvdSeries(dir.path, "run\n"); }, "argument `basename`");
  check_invalid([&] { io::PvdSeries(dir.path, "r\xffun"); }, "argument `basename`");
  std::ofstream(dir.path / "file").put('x');
  check_invalid([&] { io::PvdSeries(dir.path / "file", "run"); }, "argument `directory`");
  CHECK(dir.entries() == 1); // only the file made above

  io::PvdSeries series(dir.path / "series", "run");
  check_invalid([&] { series.write(std::nan(""), frame); }, "argument `time`");
  check_invalid([&] { series.write(-dlimits::infinity(), frame); }, "argument `time`");
  CHECK(series.size() == 0);
  CHECK(fs::is_empty(dir.path / "series"));
}

#if defined(__unix__)
namespace {
/// Files this process writes cannot grow past `bytes` while it lives (RLIMIT_FSIZE: a write
/// past it fails with EFBIG, as on a full disk; the signal it raises is ignored meanwhile).
struct FileSizeLimit {
  rlimit saved{};
  void (*handler)(int);
  explicit FileSizeLimit(rlim_t bytes) {
    REQUIRE(getrlimit(RLIMIT_FSIZE, &saved) == 0);
    handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved;
    limit.rlim_cur = bytes;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &limit) == 0);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, handler);
  }
};
} // namespace

TEST_CASE("io: a frame whose write fails part way leaves the previous file whole",
          "[io][vtk][errors]") {
  TempDir dir;
  const fs::path path = dir.path / "frame.vtu";
  io::VtuFrame(std::vector<V2>{{1.0, 2.0}}).write(path);
  const std::string before = read(path);
  std::vector<V3> x(4000, V3{0.5, 0.25, 0.125});
  const io::VtuFrame big(x);
  {
    const FileSizeLimit limit(4096); // the new frame needs about 130 kB
    CHECK_THROWS_AS(big.write(path), std::runtime_error);
  }
  CHECK(read(path) == before);
  CHECK_FALSE(fs::exists(dir.path / "frame.vtu.partial"));
  CHECK(dir.entries() == 1);
  big.write(path); // and writes once the disk has room
  CHECK(read_frame(path).points == 4000);

  // The same for the series' collection, the CSV table and the plot.
  io::PvdSeries series(dir.path / "run", "s");
  std::vector<double> column(3000, 1.0 / 3.0);
  io::write_csv(dir.path / "t.csv", {"a"}, {{1.0}});
  io::Plot plot("p", "x", "y");
  plot.line(column, column, "l");
  plot.write_svg(dir.path / "p.svg");
  const std::string csv = read(dir.path / "t.csv");
  const std::string svg = read(dir.path / "p.svg");
  for (int i = 0; i < 300; ++i) {
    series.write(double(i), io::VtuFrame(std::vector<V2>{{1.0, 2.0}}));
  }
  const std::string long_pvd = read(series.pvd_path());
  {
    const FileSizeLimit limit(4096);
    CHECK_THROWS_AS(io::write_csv(dir.path / "t.csv", {"a"}, {column}), std::runtime_error);
    plot.points(column, column, "more");
    CHECK_THROWS_AS(plot.write_svg(dir.path / "p.svg"), std::runtime_error);
    CHECK_THROWS_AS(series.write(400.0, io::VtuFrame(std::vector<V2>{{1.0, 2.0}})),
                    std::runtime_error);
  }
  CHECK(read(dir.path / "t.csv") == csv);
  CHECK(read(dir.path / "p.svg") == svg);
  CHECK(read(series.pvd_path()) == long_pvd);
  CHECK_FALSE(fs::exists(dir.path / "t.csv.partial"));
  CHECK_FALSE(fs::exists(dir.path / "p.svg.partial"));
  CHECK_FALSE(fs::exists(dir.path / "run" / "s.pvd.partial"));
}
#endif

TEST_CASE("io: a write that cannot open or rename its temporary leaves no .partial behind",
          "[io][vtk][errors]") {
  TempDir dir;
  const io::VtuFrame frame(std::vector<V2>{{1.0, 2.0}, {3.0, 4.0}});
  const fs::path path = dir.path / "frame.vtu";
  frame.write(path);
  const std::string before = read(path);
  // Something else where the temporary goes: the write fails naming it, touching neither.
  fs::create_directory(dir.path / "frame.vtu.partial");
  check_invalid([&] { io::VtuFrame(std::vector<V2>{{5.0, 6.0}}).write(path); }, "argument `path`");
  CHECK(read(path) == before);
  CHECK(fs::is_directory(dir.path / "frame.vtu.partial"));
  fs::remove(dir.path / "frame.vtu.partial");

  // A directory where the file goes: the rename fails, the temporary is removed.
  fs::create_directories(dir.path / "taken.vtu" / "inside");
  CHECK_THROWS_AS(frame.write(dir.path / "taken.vtu"), std::runtime_error);
  CHECK_THROWS_WITH(frame.write(dir.path / "taken.vtu"), Catch::Contains("taken.vtu"));
  CHECK(fs::is_directory(dir.path / "taken.vtu" / "inside"));
  CHECK_FALSE(fs::exists(dir.path / "taken.vtu.partial"));
  CHECK(dir.entries() == 2);
}

// Not run by itself: io/read_vtu.py runs it with SPHAD_IO_VTK_READER_DIR set, then reads what it
// wrote with VTK's own reader (vtkXMLUnstructuredGridReader) and compares every value's bits with
// the `.expected` lists written here.
TEST_CASE("io: frames and a series for VTK's own reader", "[.][vtk_reader]") {
  REQUIRE(little_endian_host());
  const char* where = std::getenv("SPHAD_IO_VTK_READER_DIR");
  if (where == nullptr) {
    return; // run by a filter that matches hidden cases (`~[long]`): nothing to write for
  }
  const fs::path dir = where;
  const auto hex = [](const std::vector<unsigned char>& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (const unsigned char b : bytes) {
      out += digits[b >> 4];
      out += digits[b & 15];
    }
    return out.empty() ? std::string("-") : out;
  };
  const auto text_hex = [&](const std::string& s) {
    return hex(std::vector<unsigned char>(s.begin(), s.end()));
  };
  // <file>.expected: `points <n>`, then `<section> <name, hex> <type> <components> <bytes, hex>`.
  const auto expect = [&](const fs::path& vtu, std::int64_t points,
                          const std::vector<std::tuple<std::string, std::string, std::string, int,
                                                       std::vector<unsigned char>>>& arrays) {
    std::ofstream out(fs::path(vtu).replace_extension(".expected"));
    out << "points " << points << "\n";
    for (const auto& [section, name, type, components, bytes] : arrays) {
      out << section << ' ' << text_hex(name) << ' ' << type << ' ' << components << ' '
          << hex(bytes) << '\n';
    }
    REQUIRE(out.good());
  };

  const std::vector<double> d = hostile_doubles();
  const std::vector<float> f = hostile_floats();
  const std::size_t n = d.size();
  std::vector<V2> x(n);
  std::vector<V3f> vf(n);
  std::vector<std::int64_t> big(n);
  std::vector<std::int32_t> small(n);
  std::vector<double> x_bits;
  std::vector<float> vf_bits;
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = V2{d[i], d[n - 1 - i]};
    vf[i] = V3f{f[i], -f[i], f[n - 1 - i]};
    big[i] = i % 2 == 0 ? std::numeric_limits<std::int64_t>::min() + std::int64_t(i)
                        : std::numeric_limits<std::int64_t>::max() - std::int64_t(i);
    small[i] = i % 2 == 0 ? std::numeric_limits<std::int32_t>::min() + std::int32_t(i)
                          : std::numeric_limits<std::int32_t>::max() - std::int32_t(i);
    x_bits.insert(x_bits.end(), {d[i], d[n - 1 - i], 0.0});
    vf_bits.insert(vf_bits.end(), {f[i], -f[i], f[n - 1 - i]});
  }
  const std::string special = "rho <&> \"'";
  io::VtuFrame frame(x);
  frame.add("d", d).add("f", f).add("vf", vf).add("big", big).add("small", small);
  frame.add(special, d);
  frame.write(dir / "blown.vtu");
  expect(dir / "blown.vtu", std::int64_t(n),
         {{"Points", "", "Float64", 3, bytes_of(x_bits)},
          {"PointData", "d", "Float64", 1, bytes_of(d)},
          {"PointData", "f", "Float32", 1, bytes_of(f)},
          {"PointData", "vf", "Float32", 3, bytes_of(vf_bits)},
          {"PointData", "big", "Int64", 1, bytes_of(big)},
          {"PointData", "small", "Int32", 1, bytes_of(small)},
          {"PointData", special, "Float64", 1, bytes_of(d)}});

  io::VtuFrame empty(std::vector<V3f>{});
  empty.add("rho", std::vector<double>{});
  empty.write(dir / "empty.vtu");
  expect(dir / "empty.vtu", 0,
         {{"Points", "", "Float32", 3, {}}, {"PointData", "rho", "Float64", 1, {}}});

  // series.expected: one `<time bits, hex> <file> <points>` a frame, in order.
  io::PvdSeries series(dir / "series", "run");
  std::ofstream list(dir / "series.expected");
  const std::vector<double> times{0.0, 0.1, dlimits::denorm_min(), -dlimits::max()};
  for (std::size_t k = 0; k < times.size(); ++k) {
    const std::vector<V2> xs(k + 1, V2{double(k), 1.0});
    const auto path = series.write(times[k], io::VtuFrame(xs));
    list << hex(bytes_of(std::vector<double>{times[k]})) << ' ' << path.filename().string() << ' '
         << k + 1 << '\n';
  }
  REQUIRE(list.good());
}

TEST_CASE("io: CSV rows are written at once, with 17 significant digits", "[io][csv]") {
  TempDir dir;
  const fs::path path = dir.path / "energy.csv";
  {
    io::CsvWriter csv(path, {"t", "energy"});
    CHECK(csv.columns() == 2);
    CHECK(read(path) == "t,energy\n");
    csv.row({0.0, 1.0});
    csv.row({0.1, 2.5});
    csv.row(std::vector<double>{-1e-300, 1.0 / 3.0});
    // Flushed: readable while the writer is open.
    CHECK(read(path) == "t,energy\n0,1\n0.10000000000000001,2.5\n"
                        "-1e-300,0.33333333333333331\n");
    check_invalid([&] { csv.row({1.0, 2.0, 3.0}); }, "argument `values`");
    check_invalid([&] { csv.row({1.0}); }, "(got 1, expected 2)");
  }
  CHECK(count(read(path), "\n") == 4); // the failed rows wrote nothing

  io::CsvWriter quoted(dir.path / "q.csv", {"a,b", "say \"hi\"", "c"});
  CHECK(read(dir.path / "q.csv") == "\"a,b\",\"say \"\"hi\"\"\",c\n");
}

TEST_CASE("io: write_csv writes equal columns and rejects unequal ones", "[io][csv][errors]") {
  TempDir dir;
  io::write_csv(dir.path / "c.csv", {"x", "y"}, {{1.0, 2.0, 3.0}, {0.5, 0.25, 0.125}});
  CHECK(read(dir.path / "c.csv") == "x,y\n1,0.5\n2,0.25\n3,0.125\n");

  const fs::path bad = dir.path / "bad.csv";
  check_invalid(
      [&] {
        io::write_csv(bad, {"x", "y"}, {{1.0, 2.0}, {1.0}});
      },
      "argument `columns`: lengths differ");
  check_invalid([&] { io::write_csv(bad, {"x"}, {{1.0}, {1.0}}); }, "argument `header`");
  check_invalid([&] { io::write_csv(bad, {}, {}); }, "argument `header`");
  check_invalid([&] { io::CsvWriter(bad, {}); }, "argument `header`");
  CHECK_FALSE(fs::exists(bad));
  const fs::path missing = dir.path / "no" / "c.csv";
  check_invalid([&] { io::CsvWriter(missing, {"x"}); }, missing.string());
  check_invalid([&] { io::write_csv(missing, {"x"}, {{1.0}}); }, "argument `path`");
}

TEST_CASE("io: the progress line reports rate and ETA at most once per interval",
          "[io][progress]") {
  double now = 100.0;
  const auto clock = [&now] { return now; };
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  io::Progress progress(5000, 1.0, {true, 1.0, file}, clock);
  now = 100.5;
  progress.update(250, 0.05); // within the first interval: silent
  now = 102.0;
  progress.update(1000, 0.2); // 1000 steps in 2 s: 500/s, 4000 left: 8 s
  now = 102.5;
  progress.update(1250, 0.25); // 0.5 s after the last line: silent
  now = 103.0;
  progress.update(1500, 0.3);
  now = 110.0;
  progress.update(5000, 1.0);
  progress.finish();
  progress.finish(); // once only
  progress.update(5000, 1.0);
  CHECK(contents(file) == "step 1000/5000  t = 0.2000/1.0000  500.0 steps/s  ETA 8.0 s\n"
                          "step 1500/5000  t = 0.3000/1.0000  500.0 steps/s  ETA 7.0 s\n"
                          "step 5000/5000  t = 1.0000/1.0000  500.0 steps/s  ETA 0.0 s\n"
                          "done 5000 steps  t = 1.0000  in 10.0 s  500.0 steps/s\n");
  std::fclose(file);
}

TEST_CASE("io: the progress line formats long ETAs and small times", "[io][progress]") {
  double now = 0.0;
  const auto clock = [&now] { return now; };
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  now = 2.0;
  io::Progress minutes(100000, 2.0, {true, 0.0, file}, [] { return 0.0; });
  minutes.update(1000, 0.02); // 500/s, 99000 left: 198 s
  io::Progress hours(10000000, 1e-5, {true, 0.0, file}, [&] { return now - 2.0; });
  now = 4.0;
  hours.update(1000, 5e-6); // 500/s, 9999000 left: 19998 s = 5 h 33 min 18 s
  CHECK(contents(file) ==
        "step 1000/100000  t = 0.0200/2.0000  -- steps/s  ETA --\n"
        "step 1000/10000000  t = 5.0000e-06/1.0000e-05  500.0 steps/s  ETA 5 h 33 min\n");
  std::fclose(file);

  file = std::tmpfile();
  REQUIRE(file != nullptr);
  now = 0.0;
  io::Progress p(100000, 2.0, {true, 0.0, file}, clock);
  now = 2.0;
  p.update(1000, 0.02);
  CHECK(contents(file) == "step 1000/100000  t = 0.0200/2.0000  500.0 steps/s  ETA 3 min 18 s\n");
  std::fclose(file);
}

TEST_CASE("io: a disabled progress prints nothing; bad options throw", "[io][progress]") {
  double now = 0.0;
  const auto clock = [&now] { return now; };
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  io::Progress quiet(10, 1.0, {false, 0.0, file}, clock);
  for (int step = 1; step <= 10; ++step) {
    now += 5.0;
    quiet.update(step, 0.1 * step);
  }
  quiet.finish();
  CHECK(contents(file).empty());
  io::Progress no_stream(10, 1.0, {false, 1.0, nullptr}); // nothing to print to: allowed
  no_stream.update(1, 0.1);
  no_stream.finish();

  check_invalid([&] { io::Progress(0, 1.0, {true, 1.0, file}, clock); }, "argument `total_steps`");
  check_invalid(
      [&] {
        io::Progress(10, std::nan(""), {true, 1.0, file}, clock);
      },
      "argument `t_end`");
  check_invalid(
      [&] {
        io::Progress(10, 1.0, {true, -1.0, file}, clock);
      },
      "argument `options.interval_seconds`");
  check_invalid(
      [&] {
        io::Progress(10, 1.0, {true, 1.0, nullptr}, clock);
      },
      "argument `options.stream`");
  check_invalid([&] { io::Progress(10, 1.0, {true, 1.0, file}, nullptr); }, "argument `seconds`");
  CHECK(contents(file).empty());
  std::fclose(file);
}

TEST_CASE("io: linear ticks follow the 1-2-5 rule, log ticks the decades", "[io][svg]") {
  const auto unit = io::detail::linear_ticks(0.0, 1.0);
  CHECK(unit.labels == std::vector<std::string>{"0", "0.2", "0.4", "0.6", "0.8", "1"});
  CHECK(unit.values[3] == 0.6);
  CHECK(unit.lo == 0.0);
  CHECK(unit.hi == 1.0);
  CHECK(io::detail::linear_ticks(-3.0, 47.0).labels ==
        std::vector<std::string>{"-10", "0", "10", "20", "30", "40", "50"});
  CHECK(io::detail::linear_ticks(0.0012, 0.0087).labels ==
        std::vector<std::string>{"0", "0.002", "0.004", "0.006", "0.008", "0.01"});
  CHECK(io::detail::linear_ticks(0.05, 0.93).labels ==
        std::vector<std::string>{"0", "0.2", "0.4", "0.6", "0.8", "1"});
  CHECK(io::detail::linear_ticks(0.0, 3.5).labels ==
        std::vector<std::string>{"0", "0.5", "1", "1.5", "2", "2.5", "3", "3.5"});
  CHECK(io::detail::linear_ticks(2.0, 2.0).values.size() >= 2); // an empty range widens

  const auto decades = io::detail::decade_ticks(1e-3, 0.9);
  CHECK(decades.values == std::vector<double>{1e-3, 1e-2, 1e-1, 1.0});
  CHECK_THAT(decades.labels[0], Catch::Contains(">-3</tspan>"));
  CHECK(io::detail::decade_ticks(1e-16, 1.0).values.size() == 9); // every 2nd of 16 decades
}

TEST_CASE("io: an SVG plot draws each series, a legend, escaped text and nice ticks", "[io][svg]") {
  TempDir dir;
  std::vector<double> t, decay, noisy, fit;
  for (int i = 0; i <= 10; ++i) {
    t.push_back(0.1 * i);
    decay.push_back(0.93 - 0.088 * i);
    noisy.push_back(0.92 - 0.087 * i);
    fit.push_back(0.9 - 0.085 * i);
  }
  io::Plot plot("Energy <decay> & \"more\"", "t", "E/E0");
  plot.line(t, decay, "analytic").points(t, noisy, "SPH 100²").line(t, fit, "fit a<b");
  const fs::path path = dir.path / "decay.svg";
  plot.write_svg(path);
  const std::string svg = read(path);
  CHECK(svg == plot.svg());
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK_THAT(svg, Catch::Contains("width=\"800\" height=\"500\""));
  CHECK(count(svg, "<polyline") == 2);
  CHECK(count(svg, "<circle") == 11 + 1); // the points and their legend mark
  CHECK_THAT(svg, Catch::Contains(">Energy &lt;decay&gt; &amp; &quot;more&quot;</text>"));
  CHECK(count(svg, "<decay>") == 0);
  CHECK(texts_of_class(svg, "legend") ==
        std::vector<std::string>{"analytic", "SPH 100²", "fit a&lt;b"});
  CHECK_THAT(svg, Catch::Contains(">E/E0</text>"));
  CHECK(texts_of_class(svg, "x-tick") ==
        std::vector<std::string>{"0", "0.2", "0.4", "0.6", "0.8", "1"});
  CHECK(texts_of_class(svg, "y-tick") ==
        std::vector<std::string>{"0", "0.2", "0.4", "0.6", "0.8", "1"});
  // Distinct colours: the two polylines' strokes differ.
  CHECK(tag_of(svg, "<polyline").find("#1f77b4") != std::string::npos);
  CHECK(tag_of(svg.substr(svg.find("<polyline") + 1), "<polyline").find("#2ca02c") !=
        std::string::npos);
  CHECK(count(svg, "<text") == count(svg, "</text>"));
}

TEST_CASE("io: log axes use decade ticks and reject non-positive values", "[io][svg][errors]") {
  TempDir dir;
  const std::vector<double> t{0.0, 1.0, 2.0, 3.0}, e{1.0, 0.1, 0.01, 0.002};
  io::Plot plot("decay", "t", "E");
  plot.line(t, e, "E").log_y();
  CHECK(texts_of_class(plot.svg(), "y-tick").size() == 4); // 1e-3 .. 1
  plot.log_x();
  check_invalid([&] { plot.write_svg(dir.path / "log.svg"); }, "argument `xs`");
  check_invalid([&] { plot.svg(); }, "series `E`: not positive at 0");

  io::Plot zero("z", "t", "E");
  zero.points(e, t, "zero").log_y(true);
  check_invalid([&] { zero.write_svg(dir.path / "zero.svg"); }, "argument `ys`");
  check_invalid([&] { io::Plot("m", "x", "y").line(t, {e.data(), 3}, "m"); }, "argument `ys`");
  CHECK(dir.entries() == 0);
  const std::vector<double> bad{1.0, std::nan("")};
  check_invalid(
      [&] {
        io::Plot("m", "x", "y").line(bad, {e.data(), 2}, "nan");
      },
      "argument `xs`: not finite at 1");
}

TEST_CASE("io: CSV spells NaN nan and the infinities inf and -inf; finite values round-trip",
          "[io][csv]") {
  TempDir dir;
  const std::vector<double> values = hostile_doubles();
  io::write_csv(dir.path / "all.csv", {"v"}, {values});
  {
    io::CsvWriter csv(dir.path / "row.csv", {"a", "b", "c", "d"});
    csv.row({-dlimits::quiet_NaN(), -dlimits::infinity(), -0.0, dlimits::denorm_min()});
  }
  CHECK(read(dir.path / "row.csv") == "a,b,c,d\nnan,-inf,-0,4.9406564584124654e-324\n");
  std::istringstream in(read(dir.path / "all.csv"));
  std::string line;
  std::getline(in, line);
  CHECK(line == "v");
  std::vector<std::string> lines;
  while (std::getline(in, line)) {
    lines.push_back(line);
  }
  REQUIRE(lines.size() == values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    INFO(i << ": " << lines[i]);
    if (std::isnan(values[i])) {
      CHECK(lines[i] == "nan"); // whatever its sign and payload
      continue;
    }
    char* end = nullptr;
    const double back = std::strtod(lines[i].c_str(), &end);
    CHECK(*end == '\0');
    CHECK(std::memcmp(&back, &values[i], sizeof back) == 0);
  }
  CHECK(lines[4] == "inf");
  CHECK(lines[5] == "-inf");
}

TEST_CASE("io: a broken clock, a blown-up time or huge figures give a readable progress line",
          "[io][progress]") {
  const double nan = dlimits::quiet_NaN();
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  io::Progress broken(100, 1.0, {true, 0.0, file}, [nan] { return nan; });
  broken.update(10, 0.1);
  broken.finish();
  CHECK(contents(file) == "step 10/100  t = 0.1000/1.0000  -- steps/s  ETA --\n"
                          "done 10 steps  t = 0.1000  in --  -- steps/s\n");
  std::fclose(file);

  double now = 100.0;
  file = std::tmpfile();
  REQUIRE(file != nullptr);
  io::Progress backwards(100, 1.0, {true, 0.0, file}, [&now] { return now; });
  now = 40.0;
  backwards.update(10, 0.1); // before the last line: silent
  backwards.finish();
  now = 100.0;
  io::Progress forever(100, 1.0, {true, 0.0, file}, [&now] { return now; });
  now = dlimits::infinity();
  forever.update(10, 0.1);
  forever.finish();
  CHECK(contents(file) == "done 10 steps  t = 0.1000  in --  -- steps/s\n"
                          "step 10/100  t = 0.1000/1.0000  -- steps/s  ETA --\n"
                          "done 10 steps  t = 0.1000  in --  -- steps/s\n");
  std::fclose(file);

  file = std::tmpfile();
  REQUIRE(file != nullptr);
  now = 0.0;
  io::Progress fast(10000000, 1.0, {true, 0.0, file}, [&now] { return now; });
  now = 1e-12;
  fast.update(1000000, 1e300); // 1e18 steps/s; a time far past t_end
  fast.update(2000000, nan);   // a run that blew up
  fast.update(3000000, -dlimits::infinity());
  now = 1e6;
  io::Progress slow(std::numeric_limits<std::int64_t>::max(), 1e-300, {true, 0.0, file},
                    [&now] { return now - 1e6; });
  now = 2e6;
  slow.update(1, -dlimits::max());
  CHECK(contents(file) ==
        "step 1000000/10000000  t = 1.0000e+300/1.0000  1.000e+18 steps/s  ETA 0.0 s\n"
        "step 2000000/10000000  t = nan/1.0000  2.000e+18 steps/s  ETA 0.0 s\n"
        "step 3000000/10000000  t = -inf/1.0000  3.000e+18 steps/s  ETA 0.0 s\n"
        "step 1/9223372036854775807  t = -1.7977e+308/1.0000e-300  0.0 steps/s  "
        "ETA 1000000000 h 00 min\n");
  std::fclose(file);
}

TEST_CASE("io: ticks over a few ulps, over +-DBL_MAX and over denormals are few, finite and "
          "distinct",
          "[io][svg]") {
  const double max = dlimits::max();
  const double tiny = dlimits::denorm_min();
  const auto check = [](const io::detail::Ticks& t, double lo, double hi) {
    INFO("data [" << lo << ", " << hi << "], axis [" << t.lo << ", " << t.hi << "]");
    CHECK(std::isfinite(t.lo));
    CHECK(std::isfinite(t.hi));
    CHECK(t.lo < t.hi);
    CHECK(t.lo <= lo);
    CHECK(hi <= t.hi);
    CHECK(t.values.size() >= 2);
    CHECK(t.values.size() <= 12);
    REQUIRE(t.labels.size() == t.values.size());
    for (std::size_t i = 0; i < t.values.size(); ++i) {
      INFO(t.labels[i]);
      CHECK(std::isfinite(t.values[i]));
      CHECK(t.values[i] >= t.lo);
      CHECK(t.values[i] <= t.hi);
      CHECK(t.labels[i].find("nan") == std::string::npos);
      CHECK(t.labels[i].find("inf") == std::string::npos);
      if (i > 0) {
        CHECK(t.values[i] > t.values[i - 1]);
        CHECK(t.labels[i] != t.labels[i - 1]);
      }
    }
  };
  const std::vector<std::pair<double, double>> linear{{1.0, std::nextafter(1.0, 2.0)},
                                                      {1.0, 1.0 + 4 * dlimits::epsilon()},
                                                      {-1.0, std::nextafter(-1.0, 0.0)},
                                                      {12345.678, std::nextafter(12345.678, 1e9)},
                                                      {1e300, std::nextafter(1e300, max)},
                                                      {-1e308, 1e308},
                                                      {-max, max},
                                                      {max, max},
                                                      {-max, -max},
                                                      {std::nextafter(max, 0.0), max},
                                                      {-max, 0.0},
                                                      {tiny, 2 * tiny},
                                                      {-tiny, tiny},
                                                      {0.0, tiny},
                                                      {-0.0, 0.0},
                                                      {0.0, 0.0},
                                                      {1e-300, 1e-300},
                                                      {dlimits::min(), dlimits::min()},
                                                      {0.0, 1e-310}};
  for (const auto& range : linear) {
    const auto [lo, hi] = range;
    INFO("linear [" << lo << ", " << hi << "]");
    const bool returns =
        returns_within(10.0, [&] { io::detail::linear_ticks(range.first, range.second); });
    CHECK(returns);
    if (returns) {
      check(io::detail::linear_ticks(lo, hi), lo, hi);
    }
  }
  // A range of one value widens around it; a range of a few ulps keeps labels apart.
  CHECK(io::detail::linear_ticks(2.0, 2.0).lo <= 1.0);
  CHECK(io::detail::linear_ticks(2.0, 2.0).hi >= 3.0);

  const std::vector<std::pair<double, double>> decades{{tiny, max},
                                                       {tiny, tiny},
                                                       {max, max},
                                                       {1e-308, 1e308},
                                                       {1e-310, 1e-309},
                                                       {1.0, 1.0},
                                                       {std::nextafter(1.0, 0.0), 1.0}};
  for (const auto& range : decades) {
    const auto [lo, hi] = range;
    INFO("decades [" << lo << ", " << hi << "]");
    const bool returns =
        returns_within(10.0, [&] { io::detail::decade_ticks(range.first, range.second); });
    CHECK(returns);
    if (returns) {
      const auto t = io::detail::decade_ticks(lo, hi);
      check(t, lo, hi);
      CHECK(t.lo > 0.0);
    }
  }
}

TEST_CASE("io: coordinates are numbers of at most a few digits, however far off the canvas",
          "[io][svg]") {
  CHECK(io::detail::svg_number(12.5) == "12.50");
  CHECK(io::detail::svg_number(-0.004) == "-0.00");
  CHECK(io::detail::svg_number(1e308) == "1000000.00");
  CHECK(io::detail::svg_number(-dlimits::max()) == "-1000000.00");
  CHECK(io::detail::svg_number(dlimits::denorm_min()) == "0.00");
}

TEST_CASE("io: any finite data, and any bytes in its text, give a well-formed plot with finite "
          "coordinates",
          "[io][svg]") {
  const double max = dlimits::max();
  const double tiny = dlimits::denorm_min();
  std::vector<double> finite;
  for (const double v : hostile_doubles()) {
    if (std::isfinite(v)) {
      finite.push_back(v);
    }
  }
  const std::vector<std::vector<double>> series{{1.0, std::nextafter(1.0, 2.0), 1.0},
                                                {-max, max},
                                                {max, max, max},
                                                {tiny, 2 * tiny, 3 * tiny},
                                                {0.0, -0.0},
                                                {1e-300, 1e300},
                                                finite};
  for (const auto& ys : series) {
    std::vector<double> xs(ys.size());
    for (std::size_t i = 0; i < xs.size(); ++i) {
      xs[i] = double(i) + 1.0;
    }
    for (const bool log : {false, true}) {
      INFO("series " << ys[0] << " ... (" << ys.size() << " values), log " << log);
      std::vector<double> positive;
      for (const double y : ys) {
        positive.push_back(std::abs(y) > 0.0 ? std::abs(y) : 1.0);
      }
      io::Plot plot("energy", "t", "E");
      plot.line(xs, log ? positive : ys, "line").points(log ? positive : ys, xs, "points");
      plot.log_y(log).log_x(log);
      const bool returns = returns_within(10.0, [&] { plot.svg(); });
      CHECK(returns);
      if (returns) {
        const std::string svg = plot.svg();
        INFO(svg.substr(0, 4000));
        CHECK(svg_problem(svg) == "");
      }
    }
  }

  // Control characters, bytes that are not UTF-8, surrogates and U+FFFF become U+FFFD; line
  // breaks and tabs are written as character references.
  const std::string hostile = std::string("a\0b", 3) + "\x01\x1f <&>\"' \xff\xfe \xed\xa0\x80 "
                                                       "\xef\xbf\xbf \xc0\xaf \r\n\t \xe2\x82";
  io::Plot plot(hostile, hostile, hostile);
  plot.line(std::vector<double>{0.0, 1.0}, std::vector<double>{1.0, 2.0}, hostile);
  const std::string svg = plot.svg();
  CHECK(svg_problem(svg) == "");
  const test::XmlDocument doc = test::parse_xml(svg);
  std::int64_t titles = 0;
  for (const auto& e : doc.elements) {
    if (e.name == "text" && e.text.rfind("a\xef\xbf\xbd", 0) == 0) {
      ++titles;
      CHECK(e.text == "a\xef\xbf\xbd"
                      "b\xef\xbf\xbd\xef\xbf\xbd <&>\"' \xef\xbf\xbd\xef\xbf\xbd "
                      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd "
                      "\xef\xbf\xbd\xef\xbf\xbd \r\n\t \xef\xbf\xbd\xef\xbf\xbd");
    }
  }
  CHECK(titles == 4); // the title, the axes' titles, the legend
}
