#include "tools/usage.h"

#include <string_view>
#include <utility>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace blockbloom::cli {
namespace {

constexpr size_t kWidth = 78;

// `text` wrapped at kWidth, each line indented by `indent` spaces (lines
// after the first of a paragraph by `hanging`); blank lines in `text`
// separate paragraphs.
std::string Wrap(std::string_view text, size_t indent, size_t hanging) {
  std::string out;
  bool first_paragraph = true;
  for (absl::string_view paragraph :
       absl::StrSplit(absl::string_view(text.data(), text.size()), "\n\n")) {
    if (!first_paragraph) out += "\n";
    first_paragraph = false;
    std::string line(indent, ' ');
    size_t line_indent = indent;
    // Words, with a short flag kept with its value ("-o OUTPUT").
    std::vector<std::string> words;
    bool glue = false;
    for (absl::string_view word :
         absl::StrSplit(paragraph, absl::ByAnyChar(" \n"), absl::SkipEmpty())) {
      if (glue) {
        absl::StrAppend(&words.back(), " ", word);
      } else {
        words.emplace_back(word);
      }
      glue = word.size() == 2 && word[0] == '-' && word[1] != '-';
    }
    for (const std::string& word : words) {
      if (line.size() > line_indent && line.size() + 1 + word.size() > kWidth) {
        absl::StrAppend(&out, line, "\n");
        line_indent = hanging;
        line.assign(hanging, ' ');
      }
      if (line.size() > line_indent) line += ' ';
      absl::StrAppend(&line, word);
    }
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

std::string Wrap(std::string_view text, size_t indent) {
  return Wrap(text, indent, indent);
}

}  // namespace

// What each flag's value looks like in help.
std::string_view ValueName(std::string_view flag) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"bits_per_key", "B"},
      {"fp_rate", "P"},
      {"seed", "S"},
      {"compression", "none|zstd"},
      {"zstd_level", "L"},
      {"encoding", "auto|compact|full"},
      {"input_format", "lines|lenprefixed"},
      {"o", "OUTPUT"},
      {"keys", "N"},
      {"compact_small_filters", "true|false"},
      {"url", "URL"},
      {"name", "NAME"},
      {"shard_bytes", "SIZE"},
      {"expire", "DURATION"},
      {"max_memory", "SIZE"},
      {"password_file", "PATH"},
  };
  for (const auto& [name, value] : kNames) {
    if (name == flag) return value;
  }
  return "VALUE";
}

namespace {

std::string FlagHelp(std::string_view name) {
  const absl::CommandLineFlag* flag =
      absl::FindCommandLineFlag(absl::string_view(name.data(), name.size()));
  if (flag == nullptr) return "";  // cannot happen: the table names flags
  // Short flags take their value after a space (-o OUTPUT), long ones
  // after '=' (both work).
  const bool short_flag = name.size() == 1;
  std::string out =
      absl::StrCat("  ", short_flag ? "-" : "--", std::string(name));
  const std::string default_value = flag->DefaultValue();
  if (default_value != "false") {  // not a bool flag
    absl::StrAppend(&out, short_flag ? " " : "=", std::string(ValueName(name)));
    if (!default_value.empty()) {
      absl::StrAppend(&out, " (default ", default_value, ")");
    }
  }
  out += "\n";
  return out + Wrap(flag->Help(), 6);
}

constexpr char kExitCodes[] =
    "Exit codes:\n"
    "  0  success\n"
    "  1  usage error: unknown command or flag, a flag the command does not\n"
    "     take, a bad value, a missing or extra argument, an OUTPUT that is\n"
    "     the INPUT\n"
    "  2  a file cannot be read, or is not a valid filter (or valid input);\n"
    "     the message names the file and the reason\n"
    "  3  an I/O error writing the output, or an OUTPUT that is refused (a\n"
    "     directory, a block device, a socket); no partial file is left\n"
    "     behind. Also a report that cannot be written to standard output\n"
    "     (a full disk): the message says what was done before\n"
    "  4  a Redis error (blockbloom redis): connection refused or lost, a\n"
    "     timeout, no such shared filter, a wrong seed; the message names the\n"
    "     server or the filter\n";

}  // namespace

std::string CommandHelp(const Command& command) {
  std::string out = Wrap(absl::StrCat("blockbloom ", std::string(command.name),
                                      " ", std::string(command.synopsis)),
                         0, 4);
  absl::StrAppend(&out, "\n", Wrap(command.description, 2));
  if (!command.flags.empty()) {
    out += "\nFlags:\n";
    for (std::string_view flag : command.flags) out += FlagHelp(flag);
  }
  return out;
}

std::string ShortUsage() {
  std::string out =
      "Usage: blockbloom COMMAND [FLAGS] [ARGS]\n"
      "       blockbloom help [COMMAND]   (or blockbloom [COMMAND] --help)\n\n"
      "Commands:\n";
  for (const Command& command : AllCommands()) {
    absl::StrAppendFormat(&out, "  %-7s %s\n", std::string(command.name),
                          std::string(command.summary));
  }
  return out;
}

std::string FullHelp() {
  std::string out =
      "blockbloom: build, inspect, query and benchmark blockbloom filter "
      "files,\nand share them through Redis (cache-line-blocked split Bloom "
      "filters;\nthe file format is docs/FORMAT.md).\n\n";
  out += ShortUsage();
  for (const Command& command : AllCommands()) {
    absl::StrAppend(&out, "\n", CommandHelp(command));
  }
  out += "\n";
  out += kExitCodes;
  out +=
      "\nFlags may come before or after the arguments; -- ends the flags "
      "(for a\nfile named like a flag). absl's --helpfull lists every flag, "
      "--version\nprints the version.\n";
  return out;
}

std::string ExitCodesHelp() { return kExitCodes; }

}  // namespace blockbloom::cli
