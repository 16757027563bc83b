// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>

#include <filesystem>
#include <fstream>
#include <locale>
#include <stdexcept>
#include <string>
#include <string_view>

/// \file
/// \brief What the output writers share: opening a text file (throwing with its path), checking
/// that everything reached it, and escaping text for XML.

namespace sphad::io::detail {

/// `text` with `&`, `<`, `>`, `"` and `'` replaced by their XML entities: safe in element
/// content and in attribute values.
inline std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

/// Opens `path` for writing, truncating it, with the classic locale (a `.` decimal point);
/// throws `sphad::InvalidArgument` naming `path` when it cannot be opened.
inline std::ofstream open_output(const std::filesystem::path& path, const char* function) {
  std::ofstream out(path, std::ios::out | std::ios::trunc | std::ios::binary);
  SPHAD_REQUIRE(out.is_open(), function, "path",
                sphad::detail::concat("cannot open `", path.string(), "` for writing"));
  out.imbue(std::locale::classic());
  return out;
}

/// Flushes `out` and throws `std::runtime_error` naming `path` when a write failed (a full disk).
inline void
check_output(std::ofstream& out, const std::filesystem::path& path, const char* function) {
  out.flush();
  if (!out.good()) {
    throw std::runtime_error(
        sphad::detail::concat("sphad::", function, ": writing `", path.string(), "` failed"));
  }
}

} // namespace sphad::io::detail
