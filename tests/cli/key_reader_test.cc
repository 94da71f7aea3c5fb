// The tool's key reader (tools/key_reader.h): both input formats, keys that
// span many buffer refills, every buffer size from 1 byte, and truncated
// length-prefixed input.
#include "tools/key_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace blockbloom::cli {
namespace {

// A temporary file holding `data`, open for reading from its start.
class TempInput {
 public:
  explicit TempInput(const std::string& data) : file_(std::tmpfile()) {
    EXPECT_NE(file_, nullptr);
    EXPECT_EQ(std::fwrite(data.data(), 1, data.size(), file_), data.size());
    EXPECT_EQ(std::fflush(file_), 0);
  }
  ~TempInput() { std::fclose(file_); }
  int fd() const {
    ::lseek(fileno(file_), 0, SEEK_SET);
    return fileno(file_);
  }

 private:
  std::FILE* file_;
};

struct ReadResult {
  std::vector<std::string> keys;
  absl::Status status;
};

ReadResult ReadAll(const std::string& data, InputFormat format,
                   size_t buffer_bytes) {
  TempInput input(data);
  KeyReader reader(input.fd(), "test input", format, data.size(), buffer_bytes);
  ReadResult result;
  std::string_view key;
  while (reader.Next(&key)) result.keys.emplace_back(key);
  result.status = reader.status();
  EXPECT_EQ(reader.bytes_read(), data.size());
  return result;
}

std::string LengthPrefixed(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& key : keys) {
    const uint32_t n = static_cast<uint32_t>(key.size());
    const char header[4] = {static_cast<char>(n), static_cast<char>(n >> 8),
                            static_cast<char>(n >> 16),
                            static_cast<char>(n >> 24)};
    out.append(header, 4);
    out += key;
  }
  return out;
}

constexpr size_t kBufferSizes[] = {1, 2,  3,    5,
                                   7, 64, 4096, KeyReader::kDefaultBufferBytes};

TEST(KeyReaderTest, Lines) {
  using Keys = std::vector<std::string>;
  const std::pair<std::string, Keys> cases[] = {
      {"", {}},
      {"\n", {""}},
      {"a", {"a"}},
      {"a\n", {"a"}},
      {"a\nb", {"a", "b"}},
      {"\n\n", {"", ""}},
      {"one\r\ntwo\n\nthree", {"one\r", "two", "", "three"}},
      {std::string("nul\0byte\n", 9), {std::string("nul\0byte", 8)}},
  };
  for (const auto& [data, keys] : cases) {
    for (size_t buffer : kBufferSizes) {
      const ReadResult result = ReadAll(data, InputFormat::kLines, buffer);
      EXPECT_TRUE(result.status.ok()) << result.status;
      EXPECT_EQ(result.keys, keys)
          << "input \"" << data << "\", buffer " << buffer;
    }
  }
}

TEST(KeyReaderTest, LengthPrefixed) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {""},
      {"a", "", "line\nbreak", std::string(300, 'x')},
      {std::string("\0\0\0\0", 4), "z"},
  };
  for (const auto& keys : cases) {
    for (size_t buffer : kBufferSizes) {
      const ReadResult result =
          ReadAll(LengthPrefixed(keys), InputFormat::kLengthPrefixed, buffer);
      EXPECT_TRUE(result.status.ok()) << result.status;
      EXPECT_EQ(result.keys, keys) << "buffer " << buffer;
    }
  }
}

// Keys far longer than the buffer, between short ones, both formats.
TEST(KeyReaderTest, KeysLongerThanTheBuffer) {
  std::string long_key(3 << 20, 'L');
  for (size_t i = 0; i < long_key.size(); i += 4099) long_key[i] = 'M';
  const std::vector<std::string> keys = {"short", long_key, "", long_key + "2",
                                         "end"};
  std::string lines;
  for (const std::string& key : keys) absl::StrAppend(&lines, key, "\n");
  for (size_t buffer : {size_t{4096}, KeyReader::kDefaultBufferBytes}) {
    EXPECT_EQ(ReadAll(lines, InputFormat::kLines, buffer).keys, keys);
    EXPECT_EQ(
        ReadAll(LengthPrefixed(keys), InputFormat::kLengthPrefixed, buffer)
            .keys,
        keys);
  }
}

TEST(KeyReaderTest, TruncatedRecords) {
  const std::string good = LengthPrefixed({"abc", "de"});
  // Every cut inside the second record: in its length, or in its bytes.
  const size_t second = 4 + 3;
  for (size_t cut = second + 1; cut < good.size(); ++cut) {
    for (size_t buffer : kBufferSizes) {
      const ReadResult result =
          ReadAll(good.substr(0, cut), InputFormat::kLengthPrefixed, buffer);
      EXPECT_EQ(result.keys, std::vector<std::string>{"abc"});
      EXPECT_EQ(result.status.code(), absl::StatusCode::kDataLoss);
      EXPECT_NE(result.status.message().find("test input: truncated record 2"),
                absl::string_view::npos)
          << result.status;
    }
  }
  // A length field claiming 4 GiB is not allocated up front.
  const ReadResult huge = ReadAll(std::string("\xff\xff\xff\xff"
                                              "abc",
                                              7),
                                  InputFormat::kLengthPrefixed, 64);
  EXPECT_EQ(huge.status.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(huge.status.message().find("4294967295"), absl::string_view::npos);
}

TEST(KeyReaderTest, OpenErrorsNameTheFile) {
  auto missing = KeyReader::Open("/nonexistent/keys.txt", InputFormat::kLines);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("/nonexistent/keys.txt"),
            absl::string_view::npos);
  auto directory = KeyReader::Open("/", InputFormat::kLines);
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.status().message().find("directory"),
            absl::string_view::npos)
      << directory.status();
}

}  // namespace
}  // namespace blockbloom::cli
