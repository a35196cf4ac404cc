// Helpers of the calibration tests: a scratch directory and the numpy oracle (tests/quantize/calib_oracle.py,
// run by Debian's /usr/bin/python3).
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace tosakit::testing {

inline std::string runCommand(const std::string& cmd, int* exitCode = nullptr) {
  std::array<char, 4096> buf;
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {};
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int st = pclose(p);
  if (exitCode) *exitCode = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

inline std::string oracle(const std::string& args) {
  int rc = 0;
  std::string out = runCommand("/usr/bin/python3 " TOSAKIT_SOURCE_DIR "/tests/quantize/calib_oracle.py " + args, &rc);
  EXPECT_EQ(rc, 0) << out;
  return out;
}

// Lines "key value" -> map.
inline std::map<std::string, double> keyValues(const std::string& text) {
  std::map<std::string, double> m;
  std::istringstream in(text);
  std::string k;
  double v;
  while (in >> k >> v) m[k] = v;
  return m;
}

class ScratchDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tosakit_calib_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) { std::ofstream(path(name), std::ios::binary) << text; }
  std::filesystem::path dir_;
};

}  // namespace tosakit::testing
