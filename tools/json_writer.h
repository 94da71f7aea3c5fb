// A one-line JSON object writer, enough for the tool's reports:
//
//   JsonObject json;
//   json.Add("queried", n);
//   json.Add("file", "out.bbf");
//   std::puts(json.str().c_str());   // {"queried": 3, "file": "out.bbf"}
//
// Field order is insertion order. Doubles that are not finite become null.
#ifndef BLOCKBLOOM_TOOLS_JSON_WRITER_H_
#define BLOCKBLOOM_TOOLS_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace blockbloom::cli {

class JsonObject {
 public:
  void Add(std::string_view name, uint64_t value);
  void Add(std::string_view name, int value);
  void Add(std::string_view name, double value);
  void Add(std::string_view name, bool value);
  void Add(std::string_view name, std::string_view value);
  void Add(std::string_view name, const char* value) {
    Add(name, std::string_view(value));
  }
  void AddNull(std::string_view name);

  // The object, without a trailing newline.
  std::string str() const { return body_ + "}"; }

 private:
  void Key(std::string_view name);
  std::string body_ = "{";
};

// `s` as a JSON string literal, quotes included: valid JSON (UTF-8) for any
// bytes. UTF-8 passes through unchanged, control characters are escaped, and
// bytes that are not UTF-8 (a file name in another encoding) become U+FFFD,
// one per maximal ill-formed sequence (as Python's errors="replace").
std::string JsonQuote(std::string_view s);

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_JSON_WRITER_H_
