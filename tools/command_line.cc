#include "tools/command_line.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "tools/commands.h"
#include "tools/flags.h"
#include "tools/usage.h"

namespace blockbloom::cli {
namespace {

// absl's own flags, accepted with every command and left to absl.
constexpr std::string_view kAbslFlags[] = {"flagfile", "fromenv", "tryfromenv",
                                           "undefok"};

bool IsHelpFlag(std::string_view arg) {
  return arg == "-h" || arg == "--help" || arg == "-help" ||
         arg == "--helpshort" || arg == "-helpshort";
}

absl::CommandLineFlag* Find(std::string_view name) {
  return absl::FindCommandLineFlag(absl::string_view(name.data(), name.size()));
}

std::string Dashes(std::string_view name) {
  return name.size() == 1 ? "-" : "--";
}

// What a flag's values look like, for "expected ..." messages.
std::string Expected(const absl::CommandLineFlag& flag) {
  if (flag.IsOfType<double>()) return "a number";
  if (flag.IsOfType<uint64_t>()) return "a whole number, 0 or more";
  if (flag.IsOfType<int>()) return "a whole number";
  if (flag.IsOfType<bool>()) return "true or false";
  if (flag.IsOfType<ByteSize>()) return "a size such as 4096, 512M or 4G";
  if (flag.IsOfType<absl::Duration>()) {
    return "a duration such as 90s, 30m, 24h or inf";
  }
  return "a valid value";
}

// Optimal string alignment distance (Levenshtein with transpositions).
size_t Distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1,
                                     std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// The flags `command` takes (all of the tool's if it is not a command).
std::vector<std::string_view> CandidateFlags(const std::string& command) {
  std::vector<std::string_view> names;
  const Command* c = FindCommand(command);
  for (const Command& each : AllCommands()) {
    if (c != nullptr && &each != c) continue;
    for (std::string_view flag : each.flags) {
      if (std::find(names.begin(), names.end(), flag) == names.end()) {
        names.push_back(flag);
      }
    }
  }
  return names;
}

std::string UnknownFlag(std::string_view typed, std::string_view name,
                        const std::string& command) {
  std::string message = absl::StrCat("unknown flag ", std::string(typed));
  const std::string suggestion = SuggestFlag(name, CandidateFlags(command));
  if (!suggestion.empty()) {
    absl::StrAppend(&message, " (did you mean ", Dashes(suggestion), suggestion,
                    "?)");
  }
  return message;
}

}  // namespace

std::string SuggestFlag(std::string_view typed,
                        const std::vector<std::string_view>& candidates) {
  std::string normal =
      absl::AsciiStrToLower(absl::string_view(typed.data(), typed.size()));
  std::replace(normal.begin(), normal.end(), '-', '_');
  std::string best;
  size_t best_distance = 3;  // at most two slips
  for (std::string_view candidate : candidates) {
    const size_t d = Distance(normal, candidate);
    // Short names need a closer match: "q" is not a slip for "o".
    if (d < best_distance &&
        2 * d < std::max(normal.size(), candidate.size())) {
      best = std::string(candidate);
      best_distance = d;
    }
  }
  return best;
}

ScannedCommandLine ScanCommandLine(int argc, char** argv) {
  ScannedCommandLine out;
  std::vector<std::string> positional;
  // Unknown flags and bad values are reported once the command is known.
  std::string unknown_typed, unknown_name, bad_value;
  bool flags_ended = false;
  out.args.emplace_back(argc > 0 ? argv[0] : "blockbloom");
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (flags_ended || arg.size() < 2 || arg[0] != '-') {
      out.args.push_back(arg);
      positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_ended = true;
      out.args.push_back(arg);
      continue;
    }
    if (IsHelpFlag(arg)) {
      out.help = true;
      continue;
    }
    if (arg == "--version" || arg == "-version") {
      out.version = true;
      continue;
    }
    const std::string_view body =
        std::string_view(arg).substr(arg[1] == '-' ? 2 : 1);
    const size_t eq = body.find('=');
    std::string name(body.substr(0, eq));
    absl::CommandLineFlag* flag = Find(name);
    if (flag == nullptr && name.rfind("no", 0) == 0) {
      absl::CommandLineFlag* negated = Find(name.substr(2));
      if (negated != nullptr && negated->IsOfType<bool>()) {
        // --nofoo: absl's spelling of --foo=false.
        out.given.push_back(name.substr(2));
        out.args.push_back(arg);
        continue;
      }
    }
    if (flag == nullptr) {
      if (unknown_typed.empty()) {
        unknown_typed = std::string(arg.substr(0, arg.find('=')));
        unknown_name = name;
      }
      continue;
    }
    out.given.push_back(name);
    if (std::find(std::begin(kAbslFlags), std::end(kAbslFlags), name) !=
        std::end(kAbslFlags)) {
      out.args.push_back(arg);
      continue;
    }
    std::string value;
    if (eq != std::string_view::npos) {
      value = std::string(body.substr(eq + 1));
    } else if (flag->IsOfType<bool>()) {
      out.args.push_back(arg);
      continue;
    } else if (i + 1 < argc) {
      value = argv[++i];  // "-o OUTPUT": the next argument, whatever it is
    } else {
      if (bad_value.empty()) {
        bad_value = absl::StrCat(
            Dashes(name), name, " needs a value (", Dashes(name), name,
            name.size() == 1 ? " " : "=", std::string(ValueName(name)), ")");
      }
      continue;
    }
    std::string error;
    if (!flag->ParseFrom(value, &error) && bad_value.empty()) {
      // absl says "Illegal value 'x' specified for flag 'f'[; reason]".
      const size_t reason = error.find("; ");
      bad_value = absl::StrCat(
          Dashes(name), name, "=", value, ": expected ", Expected(*flag),
          reason == std::string::npos ? "" : " (",
          reason == std::string::npos ? "" : error.substr(reason + 2),
          reason == std::string::npos ? "" : ")");
    }
    out.args.push_back(absl::StrCat("--", name, "=", value));
  }
  if (!positional.empty()) {
    out.command = positional[0];
    if (out.command == "help" && positional.size() > 1) {
      out.command = positional[1];
    }
  }
  if (!unknown_typed.empty()) {
    out.error = UnknownFlag(unknown_typed, unknown_name, out.command);
  } else if (!bad_value.empty()) {
    out.error = bad_value;
  }
  return out;
}

}  // namespace blockbloom::cli
