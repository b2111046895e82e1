// SPDX-FileCopyrightText: 2026 The EMST plugin developers
// SPDX-License-Identifier: BSD-3-Clause
//
// What the command-line programs (emst, emst_benchmark) share: how they walk their arguments,
// their usage errors (exit status 2) and their integer options.
#pragma once

#include <cerrno>
#include <cstdlib>
#include <string>

namespace emstcli
{

/// A mistake in the command line: the program prints it with its usage text and exits with 2.
struct UsageError
{
  std::string message;
};

/// The most CPU threads --threads accepts: more than the hardware threads of any machine these
/// programs run on (oversubscribing only slows the run down), and far below the counts at which
/// the OpenMP runtime fails (libgomp crashes creating 100000 threads). Both help texts say 1024.
constexpr int MaxThreads = 1024;

/// A whole decimal number in [lowest, highest]; else a UsageError naming the option and the range.
inline int parseInteger(const std::string& option, const std::string& text, int lowest, int highest)
{
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < lowest || value > highest)
  {
    throw UsageError{ option + " needs an integer from " + std::to_string(lowest) + " to " +
      std::to_string(highest) + ", got '" + text + "'" };
  }
  return static_cast<int>(value);
}

/// The thread count of --threads: 0 (the OpenMP default) to MaxThreads.
inline int parseThreads(const std::string& text)
{
  return parseInteger("--threads", text, 0, MaxThreads);
}

/// Walks argv, taking "--name=value" and "--name value" alike.
class Arguments
{
public:
  Arguments(int argc, char** argv)
    : Count(argc)
    , Values(argv)
  {
  }

  /// Moves to the next argument; false after the last.
  bool next()
  {
    if (++this->At >= this->Count)
    {
      return false;
    }
    this->Arg = this->Values[this->At];
    const std::size_t eq = this->Arg.find('=');
    this->HasInlineValue = this->Arg.rfind("--", 0) == 0 && eq != std::string::npos;
    this->Name = this->HasInlineValue ? this->Arg.substr(0, eq) : this->Arg;
    this->InlineValue = this->HasInlineValue ? this->Arg.substr(eq + 1) : std::string();
    return true;
  }

  /// The whole argument.
  const std::string& arg() const { return this->Arg; }
  /// The option's name: the part before '=' of "--name=value", else the whole argument.
  const std::string& name() const { return this->Name; }
  /// The option's value: after '=', else the next argument (consumed); a UsageError when none.
  std::string value()
  {
    if (this->HasInlineValue)
    {
      return this->InlineValue;
    }
    if (this->At + 1 >= this->Count)
    {
      throw UsageError{ this->Name + " needs a value" };
    }
    return this->Values[++this->At];
  }

private:
  int Count;
  char** Values;
  int At = 0; ///< argv[0] is the program
  std::string Arg;
  std::string Name;
  std::string InlineValue;
  bool HasInlineValue = false;
};

} // namespace emstcli
