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
#include <vector>

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

// conv1 (1x1, 2 -> 3 channels with very different weight ranges) -> relu -> conv2 (1x1, 3 -> 2); the numpy
// oracle's bias correction hard-codes the same weights.
inline const char* kConvReluConv = R"(func.func @main(%x: tensor<1x4x4x2xf32> loc("x")) -> tensor<1x4x4x2xf32> {
  %w1 = "tosa.const"() <{values = dense<[[[[8.0, -4.0]]], [[[0.05, 0.1]]], [[[1.0, -0.5]]]]> : tensor<3x1x1x2xf32>}> : () -> tensor<3x1x1x2xf32>
  %b1 = "tosa.const"() <{values = dense<[0.5, 0.01, -0.25]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %w2 = "tosa.const"() <{values = dense<[[[[0.1, 2.0, -1.0]]], [[[-0.2, 3.0, 0.5]]]]> : tensor<2x1x1x3xf32>}> : () -> tensor<2x1x1x3xf32>
  %b2 = "tosa.const"() <{values = dense<[0.0, 0.1]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c1 = tosa.conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32> loc("conv1")
  %r = tosa.clamp %c1 {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> loc("relu")
  %c2 = tosa.conv2d %r, %w2, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("conv2")
  return %c2 : tensor<1x4x4x2xf32>
}
)";

// Deterministic float32[1,4,4,2] samples in [-2, 2] for kConvReluConv, as DIR/s<k>.npy (npy writer passed in so
// this header needs no library).
template <typename WriteNpy>
void writeConvSamples(const std::string& dir, int n, uint64_t seed, WriteNpy&& writeNpy) {
  uint64_t s = seed;
  for (int k = 0; k < n; ++k) {
    std::vector<double> v(32);
    for (double& x : v) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      x = double(int64_t(s >> 40) % 2001 - 1000) / 500.0;
    }
    writeNpy(dir + "/s" + std::to_string(k) + ".npy", v);
  }
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
