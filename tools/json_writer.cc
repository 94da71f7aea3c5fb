#include "tools/json_writer.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace blockbloom::cli {

std::string JsonQuote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
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
