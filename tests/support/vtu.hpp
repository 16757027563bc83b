// SPDX-License-Identifier: MIT
// A reader of the `.vtu` files io::VtuFrame writes, independent of the writer: parses the XML
// (support/xml.hpp), checks the header attributes, decodes every DataArray's inline base64
// (a UInt64 byte count, then the little-endian data) and checks its size against the type, the
// components and the point count. The io tests and the `output` fuzz target compare the bytes
// it returns with the values written.
#pragma once

#include "support/xml.hpp"

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace sphad::test {

/// One decoded DataArray.
struct VtuArray {
  std::string section; ///< the enclosing element: `PointData`, `Points` or `Cells`
  std::string name;    ///< its `Name` (empty for the points)
  std::string type;    ///< `Float64`, `Int32`, ...
  int components = 1;
  std::vector<unsigned char> bytes; ///< the data, little-endian, without the header

  /// Element `i` as T (T's size must match the type's).
  template <class T>
  T at(std::int64_t i) const {
    T value;
    std::memcpy(&value, bytes.data() + std::size_t(i) * sizeof(T), sizeof(T));
    return value;
  }
  std::int64_t size_in(std::size_t element_size) const {
    return std::int64_t(bytes.size() / element_size);
  }
};

/// A decoded file: `problem` is empty when it is a valid frame.
struct VtuFile {
  std::string problem;
  std::int64_t points = -1;
  std::int64_t cells = -1;
  std::vector<VtuArray> arrays; ///< in file order
  XmlDocument xml;

  const VtuArray* find(std::string_view section, std::string_view name) const {
    for (const auto& a : arrays) {
      if (a.section == section && a.name == name) {
        return &a;
      }
    }
    return nullptr;
  }
};

/// The bytes of base64 text (whitespace around it ignored); false when it is not base64.
inline bool decode_base64(std::string_view text, std::vector<unsigned char>& out) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\n' || text.front() == '\t' ||
                           text.front() == '\r')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\t' ||
                           text.back() == '\r')) {
    text.remove_suffix(1);
  }
  if (text.size() % 4 != 0) {
    return false;
  }
  const auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') {
      return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
      return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
      return c - '0' + 52;
    }
    return c == '+' ? 62 : c == '/' ? 63 : -1;
  };
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int pad = 0;
    if (last && text[i + 3] == '=') {
      pad = text[i + 2] == '=' ? 2 : 1;
    }
    std::uint32_t group = 0;
    for (int k = 0; k < 4; ++k) {
      const int v = k >= 4 - pad ? 0 : value(text[i + std::size_t(k)]);
      if (v < 0) {
        return false;
      }
      group = (group << 6) | std::uint32_t(v);
    }
    out.push_back((unsigned char)(group >> 16));
    if (pad < 2) {
      out.push_back((unsigned char)(group >> 8));
    }
    if (pad < 1) {
      out.push_back((unsigned char)group);
    }
  }
  return true;
}

/// Reads a `.vtu` file's text.
inline VtuFile read_vtu(std::string_view text) {
  VtuFile file;
  file.xml = parse_xml(text);
  if (!file.xml.problem.empty()) {
    file.problem = "not well-formed XML: " + file.xml.problem;
    return file;
  }
  const auto& elements = file.xml.elements;
  const XmlElement& root = elements[0];
  if (root.name != "VTKFile" || root.attribute("type") != "UnstructuredGrid" ||
      root.attribute("version") != "1.0" || root.attribute("byte_order") != "LittleEndian" ||
      root.attribute("header_type") != "UInt64") {
    file.problem = "the root is not a version 1.0 little-endian UnstructuredGrid with UInt64 "
                   "headers";
    return file;
  }
  static const std::map<std::string, std::size_t> sizes{
      {"Float64", 8}, {"Float32", 4}, {"Int64", 8}, {"Int32", 4}, {"UInt8", 1}};
  int pieces = 0;
  for (const auto& e : elements) {
    if (e.name == "Piece") {
      ++pieces;
      file.points = std::stoll(e.attribute("NumberOfPoints"));
      file.cells = std::stoll(e.attribute("NumberOfCells"));
    }
    if (e.name != "DataArray") {
      continue;
    }
    VtuArray array;
    array.section = e.parent >= 0 ? elements[std::size_t(e.parent)].name : "";
    array.name = e.attribute("Name");
    array.type = e.attribute("type");
    array.components =
        e.has("NumberOfComponents") ? std::stoi(e.attribute("NumberOfComponents")) : 1;
    const auto size = sizes.find(array.type);
    if (size == sizes.end() || e.attribute("format") != "binary") {
      file.problem = "array `" + array.name + "`: not a binary array of a known type";
      return file;
    }
    std::vector<unsigned char> raw;
    if (!decode_base64(e.text, raw) || raw.size() < 8) {
      file.problem = "array `" + array.name + "`: not base64 with a header";
      return file;
    }
    std::uint64_t count = 0;
    for (int k = 7; k >= 0; --k) {
      count = (count << 8) | raw[std::size_t(k)];
    }
    array.bytes.assign(raw.begin() + 8, raw.end());
    const auto elements_expected =
        std::uint64_t(array.section == "Cells" ? file.cells : file.points) *
        std::uint64_t(array.components);
    if (count != array.bytes.size() || count != elements_expected * size->second) {
      file.problem = "array `" + array.name + "`: the header says " + std::to_string(count) +
                     " bytes, the data holds " + std::to_string(array.bytes.size()) +
                     ", the type and sizes need " +
                     std::to_string(elements_expected * size->second);
      return file;
    }
    file.arrays.push_back(std::move(array));
  }
  if (pieces != 1) {
    file.problem = "not one Piece";
  }
  return file;
}

} // namespace sphad::test
