#include "tools/json_writer.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace blockbloom::cli {

namespace {

// The length of the well-formed UTF-8 sequence at the start of `s`, or 0 and
// the length of its maximal ill-formed prefix in `*bad` (at least 1): the
// Unicode standard's "maximal subpart" (Table 3-7), which is what Python's
// errors="replace" and the WHATWG decoder replace by one U+FFFD each.
size_t Utf8Sequence(std::string_view s, size_t* bad) {
  const auto byte = [&s](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // no overlong forms
    if (lead == 0xF4) high = 0x8F;  // nothing past U+10FFFF
  } else {
    *bad = 1;  // a stray continuation byte, C0, C1, F5-FF
    return 0;
  }
  for (size_t i = 1; i < length; ++i) {
    const bool ok = i < s.size() && byte(i) >= (i == 1 ? low : 0x80) &&
                    byte(i) <= (i == 1 ? high : 0xBF);
    if (!ok) {
      *bad = i;
      return 0;
    }
  }
  return length;
}

}  // namespace

std::string JsonQuote(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      size_t bad = 0;
      const size_t n = Utf8Sequence(s.substr(i), &bad);
      if (n > 0) {
        out.append(s.substr(i, n));
        i += n;
      } else {
        out += "\\ufffd";  // JSON text must be UTF-8
        i += bad;
      }
      continue;
    }
    ++i;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

void JsonObject::Key(std::string_view name) {
  if (body_.size() > 1) body_ += ", ";
  absl::StrAppend(&body_, JsonQuote(name), ": ");
}

void JsonObject::Add(std::string_view name, uint64_t value) {
  Key(name);
  absl::StrAppend(&body_, value);
}

void JsonObject::Add(std::string_view name, int value) {
  Key(name);
  absl::StrAppend(&body_, value);
}

void JsonObject::Add(std::string_view name, double value) {
  Key(name);
  if (std::isfinite(value)) {
    // The shortest text that reads back as the same double.
    char buf[32];
    const auto result = std::to_chars(buf, buf + sizeof(buf), value);
    body_.append(buf, result.ptr);
  } else {
    body_ += "null";
  }
}

void JsonObject::Add(std::string_view name, bool value) {
  Key(name);
  body_ += value ? "true" : "false";
}

void JsonObject::Add(std::string_view name, std::string_view value) {
  Key(name);
  body_ += JsonQuote(value);
}

void JsonObject::AddNull(std::string_view name) {
  Key(name);
  body_ += "null";
}

}  // namespace blockbloom::cli
