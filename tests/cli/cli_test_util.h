// Runs the tosakit binary under test and captures its exit code and output (stdout + stderr).
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace tosakit::testing {

struct CmdResult {
  int exitCode;
  std::string out;
};

inline CmdResult runTool(const std::string& args) {
  std::string cmd = std::string(TOSAKIT_TOOL) + " " + args + " 2>&1";
  std::array<char, 4096> buf;
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

}  // namespace tosakit::testing
