// SPDX-License-Identifier: MIT
// The output layer: the .vtu and .pvd files' structure and exact numbers, CSV text, the progress
// line under a fake clock, the SVG plot's series, legend, escaping and ticks, and every error
// path (it throws sphad::InvalidArgument naming the argument, and writes nothing).
#include <sphad/io.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace sphad;
namespace fs = std::filesystem;

namespace {

using V1 = Vec<double, 1>;
using V2 = Vec<double, 2>;
using V3f = Vec<float, 3>;

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

/// The whitespace-separated tokens of the first `<DataArray` whose tag holds `marker`.
std::vector<std::string> data_array(const std::string& text, const std::string& marker) {
  const auto tag = text.find(marker, text.find("<DataArray"));
  REQUIRE(tag != std::string::npos);
  const auto begin = text.find('>', tag) + 1;
  const auto end = text.find("</DataArray>", begin);
  std::istringstream in(text.substr(begin, end - begin));
  std::vector<std::string> tokens;
  for (std::string token; in >> token;) {
    tokens.push_back(token);
  }
  return tokens;
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

} // namespace

TEST_CASE("io: a 2D frame is an UnstructuredGrid of vertices with padded, exact arrays",
          "[io][vtk]") {
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

  CHECK(text.rfind("<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\"", 0) == 0);
  CHECK(count(text, "NumberOfPoints=\"3\"") == 1);
  CHECK(count(text, "NumberOfCells=\"3\"") == 1);
  CHECK(count(text, "<DataArray") == 7); // 3 point arrays, the points, 3 cell arrays
  CHECK(count(text, "</DataArray>") == 7);
  CHECK(count(text, "<PointData>") == 1);

  const auto points = data_array(text, "type=\"Float64\" NumberOfComponents=\"3\"");
  REQUIRE(points.size() == 9);
  CHECK(std::stod(points[0]) == 0.1);
  CHECK(std::stod(points[1]) == 0.2);
  CHECK(std::stod(points[2]) == 0.0); // padded
  CHECK(std::stod(points[3]) == 1.0 / 3.0);
  CHECK(std::stod(points[6]) == 1e-20);
  CHECK(std::stod(points[8]) == 0.0);

  const auto density = data_array(text, "Name=\"density\"");
  REQUIRE(density.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(std::stod(density[i]) == rho[i]);
  }
  CHECK(tag_of(text, "Name=\"density\"").find("NumberOfComponents") == std::string::npos);

  CHECK_THAT(tag_of(text, "Name=\"velocity\""), Catch::Contains("NumberOfComponents=\"3\""));
  const auto velocity = data_array(text, "Name=\"velocity\"");
  REQUIRE(velocity.size() == 9);
  CHECK(std::stod(velocity[3]) == 0.3);
  CHECK(std::stod(velocity[6]) == 2.0 / 3.0);
  CHECK(velocity[2] == "0");
  CHECK(velocity[5] == "0");
  CHECK(velocity[8] == "0");

  CHECK_THAT(tag_of(text, "Name=\"id\""), Catch::Contains("type=\"Int32\""));
  CHECK(data_array(text, "Name=\"id\"") == std::vector<std::string>{"7", "-3", "2147483647"});
  CHECK(data_array(text, "Name=\"connectivity\"") == std::vector<std::string>{"0", "1", "2"});
  CHECK(data_array(text, "Name=\"offsets\"") == std::vector<std::string>{"1", "2", "3"});
  CHECK(data_array(text, "Name=\"types\"") == std::vector<std::string>{"1", "1", "1"});
}

TEST_CASE("io: float and 1D positions keep their type and are padded to 3 components",
          "[io][vtk]") {
  TempDir dir;
  const std::vector<V3f> xf{{0.1f, 0.2f, 0.3f}, {1.0f / 3.0f, 2.0f, 3.0f}};
  io::VtuFrame(xf).write(dir.path / "f.vtu");
  const std::string f = read(dir.path / "f.vtu");
  const auto pf = data_array(f, "type=\"Float32\" NumberOfComponents=\"3\"");
  REQUIRE(pf.size() == 6);
  CHECK(std::stof(pf[0]) == 0.1f);
  CHECK(std::stof(pf[3]) == 1.0f / 3.0f);

  const std::vector<V1> x1{{-1.5}, {2.25}};
  io::VtuFrame(x1).write(dir.path / "line.vtu");
  const auto p1 =
      data_array(read(dir.path / "line.vtu"), "type=\"Float64\" NumberOfComponents=\"3\"");
  CHECK(p1 == std::vector<std::string>{"-1.5", "0", "0", "2.25", "0", "0"});
}

TEST_CASE("io: a series writes numbered frames and a .pvd listing each with its time",
          "[io][vtk]") {
  TempDir dir;
  const fs::path out = dir.path / "nested" / "run"; // created by the series
  io::PvdSeries series(out, "tgv");
  const std::vector<V2> x{{0.0, 0.0}, {1.0, 0.5}};
  const std::vector<double> times{0.0, 0.1, 1.25};
  for (std::size_t k = 0; k < times.size(); ++k) {
    const auto written = series.write(times[k], io::VtuFrame(x));
    CHECK(written.filename() == "tgv_00000" + std::to_string(k) + ".vtu");
    CHECK(fs::exists(written));
    // Rewritten after every frame: a run stopped here is viewable.
    CHECK(count(read(series.pvd_path()), "<DataSet") == std::int64_t(k + 1));
  }
  CHECK(series.size() == 3);
  CHECK(series.pvd_path() == out / "tgv.pvd");
  const std::string pvd = read(out / "tgv.pvd");
  CHECK_THAT(pvd, Catch::Contains("<VTKFile type=\"Collection\""));
  for (std::size_t k = 0; k < times.size(); ++k) {
    const auto tag = tag_of(pvd, "file=\"tgv_00000" + std::to_string(k) + ".vtu\"");
    const auto at = tag.find("timestep=\"") + 10;
    CHECK(std::stod(tag.substr(at, tag.find('"', at) - at)) == times[k]);
  }
  CHECK(std::distance(fs::directory_iterator(out), fs::directory_iterator()) == 4);
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
  std::ofstream(dir.path / "file").put('x');
  check_invalid([&] { io::PvdSeries(dir.path / "file", "run"); }, "argument `directory`");
  CHECK(dir.entries() == 1); // only the file made above

  io::PvdSeries series(dir.path / "series", "run");
  check_invalid([&] { series.write(std::nan(""), frame); }, "argument `time`");
  CHECK(series.size() == 0);
  CHECK(fs::is_empty(dir.path / "series"));
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
        "step 1000/100000  t = 0.0200/2.0000  0.0 steps/s  ETA ?\n"
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
