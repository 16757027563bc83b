// SPDX-FileCopyrightText: The sphad authors
// SPDX-License-Identifier: MIT
#pragma once

#include <sphad/config.hpp>

#include <sphad/errors.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <locale>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

/// \file
/// \brief What the output writers share: writing a whole file through a temporary renamed over
/// it, opening a text file (throwing with its path), checking that everything reached it,
/// escaping text for XML, and base64 for VTK's binary data arrays.

namespace sphad::io::detail {

/// `text` made safe in XML element content and attribute values: `&`, `<`, `>`, `"` and `'`
/// become entities; tab, line feed and carriage return become character references (an
/// attribute value keeps them: a parser would turn them into spaces). What XML cannot carry
/// becomes U+FFFD: each byte that is not part of valid UTF-8, and each character XML 1.0
/// forbids (the other control characters, U+FFFE, U+FFFF). `replaced`, when given, tells
/// whether anything was.
inline std::string xml_escape(std::string_view text, bool* replaced = nullptr) {
  static constexpr const char* replacement = "\xef\xbf\xbd"; // U+FFFD
  std::string out;
  out.reserve(text.size());
  bool any = false;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      switch (b) {
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
      case '\t':
        out += "&#9;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default:
        if (b < 0x20) {
          out += replacement;
          any = true;
        } else {
          out += char(b);
        }
      }
      ++i;
      continue;
    }
    // A multi-byte sequence: its length from the lead byte, then continuation bytes; overlong
    // forms, surrogates and code points past U+10FFFF are not UTF-8.
    const std::size_t length = b >= 0xC2 && b <= 0xDF   ? 2
                               : b >= 0xE0 && b <= 0xEF ? 3
                               : b >= 0xF0 && b <= 0xF4 ? 4
                                                        : 0;
    std::uint32_t c = length == 2 ? b & 0x1Fu : length == 3 ? b & 0x0Fu : b & 0x07u;
    bool valid = length != 0 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k) {
      const auto t = static_cast<unsigned char>(text[i + k]);
      valid = (t & 0xC0) == 0x80;
      c = (c << 6) | (t & 0x3Fu);
    }
    valid = valid && !(length == 3 && c < 0x800) && !(length == 4 && c < 0x10000) &&
            !(c >= 0xD800 && c <= 0xDFFF) && c <= 0x10FFFF;
    if (!valid || c == 0xFFFE || c == 0xFFFF) {
      out += replacement;
      any = true;
      i += valid ? length : 1; // a forbidden character at once, a bad sequence byte by byte
      continue;
    }
    out.append(text.data() + i, length);
    i += length;
  }
  if (replaced != nullptr) {
    *replaced = any;
  }
  return out;
}

/// Whether XML carries `text` as it is: UTF-8 of characters XML 1.0 allows (`xml_escape`
/// replaces nothing).
inline bool is_xml_text(std::string_view text) {
  bool replaced = false;
  xml_escape(text, &replaced);
  return !replaced;
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

/// Writes a whole file: `write(out)` fills `<path>.partial`, which is then renamed over `path`,
/// so `path` holds either its previous content or all of the new one, never a part. When
/// anything fails the `.partial` file is removed and the error thrown: `sphad::InvalidArgument`
/// naming `path` when the temporary cannot be opened (something else, e.g. a directory, stands
/// there: left alone), `std::runtime_error` when writing or the rename fails.
template <class Write>
void write_file(const std::filesystem::path& path, const char* function, Write&& write) {
  auto partial = path;
  partial += ".partial";
  std::ofstream out = open_output(partial, function);
  try {
    write(out);
    check_output(out, partial, function);
    out.close();
    if (out.fail()) {
      throw std::runtime_error(
          sphad::detail::concat("sphad::", function, ": writing `", partial.string(), "` failed"));
    }
    std::error_code error;
    std::filesystem::rename(partial, path, error);
    if (error) {
      throw std::runtime_error(sphad::detail::concat("sphad::", function, ": cannot replace `",
                                                     path.string(), "` (", error.message(), ")"));
    }
  } catch (...) {
    if (out.is_open()) {
      out.close();
    }
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw;
  }
}

/// Writes bytes to a stream as base64 (RFC 4648, with padding), in one run however many `put`s
/// feed it; `finish` writes the last group.
class Base64Writer {
public:
  explicit Base64Writer(std::ostream& out) : out_(out) {}

  void put(const unsigned char* bytes, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      group_[held_++] = bytes[i];
      if (held_ == 3) {
        emit(3);
      }
    }
  }
  void finish() {
    if (held_ > 0) {
      for (std::size_t k = held_; k < 3; ++k) {
        group_[k] = 0;
      }
      emit(held_);
    }
    out_.write(buffer_.data(), std::streamsize(buffer_.size()));
    buffer_.clear();
  }

private:
  void emit(std::size_t bytes) {
    static constexpr char digits[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const std::uint32_t v = (std::uint32_t(group_[0]) << 16) | (std::uint32_t(group_[1]) << 8) |
                            std::uint32_t(group_[2]);
    buffer_ += digits[(v >> 18) & 63];
    buffer_ += digits[(v >> 12) & 63];
    buffer_ += bytes > 1 ? digits[(v >> 6) & 63] : '=';
    buffer_ += bytes > 2 ? digits[v & 63] : '=';
    held_ = 0;
    if (buffer_.size() >= 4096) {
      out_.write(buffer_.data(), std::streamsize(buffer_.size()));
      buffer_.clear();
    }
  }

  std::ostream& out_;
  unsigned char group_[3] = {0, 0, 0};
  std::size_t held_ = 0;
  std::string buffer_;
};

} // namespace sphad::io::detail
