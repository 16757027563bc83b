// SPDX-License-Identifier: MIT
// A small XML well-formedness checker and reader for the files sphad writes (SVG, VTK XML): the
// text is UTF-8 of XML characters only, tags nest and balance, names are XML names, attributes
// are quoted and unique, every `&` starts a valid entity or character reference, one root.
// Enough XML to judge a writer's output (no DTD, no namespaces resolved); the io tests and the
// `output` fuzz target use it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sphad::test {

/// One element: its name, its attributes (values decoded and normalised as an XML parser gives
/// them) and the character data directly inside it (decoded).
struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::string text;
  int parent = -1; ///< index of the enclosing element, -1 for the root

  bool has(std::string_view key) const {
    for (const auto& [k, v] : attributes) {
      if (k == key) {
        return true;
      }
    }
    return false;
  }
  /// The value of attribute `key`, empty when absent.
  std::string attribute(std::string_view key) const {
    for (const auto& [k, v] : attributes) {
      if (k == key) {
        return v;
      }
    }
    return {};
  }
};

/// A parsed document: `problem` is empty when the text is well-formed, else it says what is
/// wrong first (and `elements` holds what was read before).
struct XmlDocument {
  std::string problem;
  std::vector<XmlElement> elements; ///< in document order
};

namespace detail {

inline void append_utf8(std::string& out, std::uint32_t c) {
  if (c < 0x80) {
    out += char(c);
  } else if (c < 0x800) {
    out += char(0xC0 | (c >> 6));
    out += char(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += char(0xE0 | (c >> 12));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  } else {
    out += char(0xF0 | (c >> 18));
    out += char(0x80 | ((c >> 12) & 0x3F));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  }
}

/// Whether `c` is an XML 1.0 Char.
inline bool xml_char(std::uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

} // namespace detail

/// The first reason `text` is not UTF-8 of XML characters, or "" when it is.
inline std::string xml_text_problem(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b = std::uint8_t(text[i]);
    std::uint32_t c = 0;
    std::size_t length = 1;
    if (b < 0x80) {
      c = b;
    } else if (b >= 0xC2 && b <= 0xDF) {
      c = b & 0x1F;
      length = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      c = b & 0x0F;
      length = 3;
    } else if (b >= 0xF0 && b <= 0xF4) {
      c = b & 0x07;
      length = 4;
    } else {
      return "invalid UTF-8 lead byte at " + std::to_string(i);
    }
    if (i + length > text.size()) {
      return "truncated UTF-8 sequence at " + std::to_string(i);
    }
    for (std::size_t k = 1; k < length; ++k) {
      const auto t = std::uint8_t(text[i + k]);
      if ((t & 0xC0) != 0x80) {
        return "invalid UTF-8 continuation at " + std::to_string(i + k);
      }
      c = (c << 6) | (t & 0x3F);
    }
    const bool overlong = (length == 3 && c < 0x800) || (length == 4 && c < 0x10000);
    if (overlong || (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) {
      return "invalid UTF-8 sequence at " + std::to_string(i);
    }
    if (!detail::xml_char(c)) {
      return "a character not allowed in XML (U+" + std::to_string(c) + " decimal) at " +
             std::to_string(i);
    }
    i += length;
  }
  return {};
}

/// Parses `text` as an XML document (an optional declaration, comments and processing
/// instructions, one root element; no DTD).
inline XmlDocument parse_xml(std::string_view text) {
  XmlDocument doc;
  doc.problem = xml_text_problem(text);
  if (!doc.problem.empty()) {
    return doc;
  }
  const std::size_t n = text.size();
  std::size_t pos = 0;
  const auto fail = [&](const std::string& what) {
    doc.problem = what + " at " + std::to_string(pos);
    return doc;
  };
  const auto starts = [&](std::string_view s) { return text.substr(pos, s.size()) == s; };
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  const auto skip_space = [&] {
    while (pos < n && space(text[pos])) {
      ++pos;
    }
  };
  const auto name_start = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':' ||
           std::uint8_t(c) >= 0x80;
  };
  const auto name_char = [&](char c) {
    return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
  };
  const auto read_name = [&]() -> std::string {
    if (pos >= n || !name_start(text[pos])) {
      return {};
    }
    const std::size_t begin = pos;
    while (pos < n && name_char(text[pos])) {
      ++pos;
    }
    return std::string(text.substr(begin, pos - begin));
  };
  // Decodes character data or an attribute value (no `<`), entities included; false when an
  // `&` starts no valid reference.
  const auto decode = [](std::string_view raw, bool attribute, std::string& out) {
    for (std::size_t i = 0; i < raw.size(); ++i) {
      const char c = raw[i];
      if (c != '&') {
        out += attribute && (c == '\t' || c == '\n' || c == '\r') ? ' ' : c;
        continue;
      }
      const std::size_t end = raw.find(';', i);
      if (end == std::string_view::npos) {
        return false;
      }
      const std::string_view ref = raw.substr(i + 1, end - i - 1);
      if (ref == "amp") {
        out += '&';
      } else if (ref == "lt") {
        out += '<';
      } else if (ref == "gt") {
        out += '>';
      } else if (ref == "quot") {
        out += '"';
      } else if (ref == "apos") {
        out += '\'';
      } else if (ref.size() >= 2 && ref[0] == '#') {
        const bool hex = ref[1] == 'x';
        const std::string_view digits = ref.substr(hex ? 2 : 1);
        if (digits.empty() || digits.size() > 8) {
          return false;
        }
        std::uint32_t value = 0;
        for (const char d : digits) {
          std::uint32_t v = 0;
          if (d >= '0' && d <= '9') {
            v = std::uint32_t(d - '0');
          } else if (hex && d >= 'a' && d <= 'f') {
            v = std::uint32_t(d - 'a' + 10);
          } else if (hex && d >= 'A' && d <= 'F') {
            v = std::uint32_t(d - 'A' + 10);
          } else {
            return false;
          }
          value = value * (hex ? 16 : 10) + v;
        }
        if (!detail::xml_char(value)) {
          return false;
        }
        detail::append_utf8(out, value);
      } else {
        return false;
      }
      i = end;
    }
    return true;
  };

  if (starts("<?xml")) {
    const std::size_t end = text.find("?>", pos);
    if (end == std::string_view::npos) {
      return fail("an unterminated XML declaration");
    }
    pos = end + 2;
  }
  std::vector<int> open;
  bool root_done = false;
  while (pos < n) {
    if (text[pos] != '<') {
      const std::size_t end = std::min(text.find('<', pos), n);
      const std::string_view raw = text.substr(pos, end - pos);
      if (open.empty()) {
        for (const char c : raw) {
          if (!space(c)) {
            return fail("text outside the root element");
          }
        }
      } else {
        if (raw.find("]]>") != std::string_view::npos) {
          return fail("`]]>` in character data");
        }
        if (!decode(raw, false, doc.elements[std::size_t(open.back())].text)) {
          return fail("an invalid entity or character reference");
        }
      }
      pos = end;
      continue;
    }
    if (starts("<!--")) {
      const std::size_t end = text.find("--", pos + 4);
      if (end == std::string_view::npos || text.substr(end, 3) != "-->") {
        return fail("a comment not closed by `-->` (or holding `--`)");
      }
      pos = end + 3;
      continue;
    }
    if (starts("<?")) {
      const std::size_t end = text.find("?>", pos);
      if (end == std::string_view::npos) {
        return fail("an unterminated processing instruction");
      }
      pos = end + 2;
      continue;
    }
    if (starts("<![CDATA[")) {
      const std::size_t end = text.find("]]>", pos);
      if (open.empty() || end == std::string_view::npos) {
        return fail("a CDATA section outside an element or unterminated");
      }
      doc.elements[std::size_t(open.back())].text += text.substr(pos + 9, end - pos - 9);
      pos = end + 3;
      continue;
    }
    if (starts("<!")) {
      return fail("a DTD or unknown markup declaration");
    }
    if (starts("</")) {
      pos += 2;
      const std::string name = read_name();
      skip_space();
      if (name.empty() || pos >= n || text[pos] != '>') {
        return fail("a malformed end tag");
      }
      if (open.empty() || doc.elements[std::size_t(open.back())].name != name) {
        return fail("the end tag `" + name + "` closes no open element of that name");
      }
      ++pos;
      open.pop_back();
      root_done = open.empty();
      continue;
    }
    // A start tag.
    if (root_done) {
      return fail("a second root element");
    }
    ++pos;
    XmlElement element;
    element.name = read_name();
    element.parent = open.empty() ? -1 : open.back();
    if (element.name.empty()) {
      return fail("a tag without a valid name");
    }
    bool closed = false;
    while (true) {
      const std::size_t before = pos;
      skip_space();
      if (pos >= n) {
        return fail("an unterminated start tag");
      }
      if (text[pos] == '>') {
        ++pos;
        break;
      }
      if (starts("/>")) {
        pos += 2;
        closed = true;
        break;
      }
      if (pos == before) {
        return fail("no space before an attribute");
      }
      const std::string key = read_name();
      if (key.empty()) {
        return fail("an attribute without a valid name");
      }
      skip_space();
      if (pos >= n || text[pos] != '=') {
        return fail("attribute `" + key + "` without `=`");
      }
      ++pos;
      skip_space();
      if (pos >= n || (text[pos] != '"' && text[pos] != '\'')) {
        return fail("attribute `" + key + "` not quoted");
      }
      const char quote = text[pos++];
      const std::size_t end = text.find(quote, pos);
      if (end == std::string_view::npos) {
        return fail("attribute `" + key + "` not closed");
      }
      const std::string_view raw = text.substr(pos, end - pos);
      if (raw.find('<') != std::string_view::npos) {
        return fail("`<` in the value of attribute `" + key + "`");
      }
      if (element.has(key)) {
        return fail("attribute `" + key + "` given twice");
      }
      std::string value;
      if (!decode(raw, true, value)) {
        return fail("an invalid entity in attribute `" + key + "`");
      }
      element.attributes.emplace_back(key, std::move(value));
      pos = end + 1;
    }
    doc.elements.push_back(std::move(element));
    if (closed) {
      root_done = open.empty();
    } else {
      open.push_back(int(doc.elements.size()) - 1);
    }
  }
  if (!open.empty()) {
    return fail("element `" + doc.elements[std::size_t(open.back())].name + "` not closed");
  }
  if (doc.elements.empty()) {
    return fail("no root element");
  }
  return doc;
}

} // namespace sphad::test
