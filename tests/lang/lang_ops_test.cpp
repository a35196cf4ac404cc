// tosakit::lang operators against independent expected values: tests/lang/bmlang_reference.py writes BMLang's
// formulas out in numpy / exact integers (one .npz per case: operands, parameters p_*, "expected"); each case
// here builds the operator with the C++ API, compiles it (TOSA validation), runs it on the reference backend
// through a Session and compares: integer outputs bit for bit, fp32 within a small tolerance.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>

#include "formats/npy/npy.h"
#include "tosakit/lang.h"

using namespace tosakit;
using lang::Var;

namespace {

// The generated cases live in a directory named by a hash of the generator, made once (ctest runs every test
// in its own process): generated into a private directory, then renamed into place atomically.
std::string caseDir() {
  static const std::string dir = [] {
    const std::string script = std::string(TOSAKIT_SOURCE_DIR) + "/tests/lang/bmlang_reference.py";
    std::ifstream in(script, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string d =
        std::string(TOSAKIT_BINARY_DIR) + "/tests/lang_cases_" + std::to_string(std::hash<std::string>{}(text));
    if (std::filesystem::exists(d)) return d;
    const std::string tmp = d + ".tmp" + std::to_string(::getpid());
    std::string cmd = "/usr/bin/python3 " + script + " " + tmp;
    if (std::system(cmd.c_str()) != 0) return std::string();
    std::error_code ec;
    std::filesystem::rename(tmp, d, ec);
    if (ec) std::filesystem::remove_all(tmp);  // another process made it first
    return d;
  }();
  return dir;
}

struct Case {
  NamedTensors arrays;
  bool has(const std::string& k) const {
    for (auto& [n, t] : arrays)
      if (n == k) return true;
    return false;
  }
  const Tensor& operator[](const std::string& k) const {
    for (auto& [n, t] : arrays)
      if (n == k) return t;
    throw std::runtime_error("case has no array '" + k + "'");
  }
  int64_t i(const std::string& k, size_t at = 0) const { return (*this)[k].getInt(int64_t(at)); }
  double f(const std::string& k, size_t at = 0) const { return (*this)[k].getFloat(int64_t(at)); }
  std::vector<int> ints(const std::string& k) const {
    std::vector<int> v;
    for (int64_t x : (*this)[k].toInts()) v.push_back(int(x));
    return v;
  }
};

class LangCases : public ::testing::TestWithParam<std::string> {
 public:
  static void SetUpTestSuite() { ASSERT_FALSE(caseDir().empty()) << "tests/lang/bmlang_reference.py failed"; }
};

Case load(const std::string& name) {
  auto r = npy::readNpz(caseDir() + "/" + name + ".npz");
  if (!r) throw std::runtime_error(r.status().toString());
  return Case{std::move(*r)};
}

bool startsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

lang::QCalMode mode(const Case& c) { return lang::QCalMode(c.i("p_mode")); }

// Builds the case's operator; inputs it needs at run time go to `in`. Returns the outputs to compare with
// "expected", "expected1", ...
std::vector<Var> build(lang::Graph& g, const std::string& name, const Case& c, NamedTensors& in) {
  auto input = [&](const std::string& arr, const std::string& nm) {
    in.push_back({nm, c[arr]});
    return g.input(nm, c[arr].dtype(), c[arr].shape());
  };
  auto coeffOr = [&](const std::string& arr) { return c.has(arr) ? g.coeff(c[arr]) : Var{}; };
  DType outT = c["expected"].dtype();
  if (startsWith(name, "conv3d")) {
    lang::Conv3dParam p;
    p.pad = c.ints("p_pad");
    p.stride = c.ints("p_stride");
    p.scale = c.f("p_scale");
    p.mode = mode(c);
    p.left_zero_point = int(c.i("p_zp", 0));
    p.right_zero_point = int(c.i("p_zp", 1));
    p.output_zero_point = int(c.i("p_zp", 2));
    return {g.conv3d(input("x", "x"), g.coeff(c["w"]), coeffOr("b"), p, outT)};
  }
  if (startsWith(name, "conv") || startsWith(name, "deconv")) {
    lang::ConvParam p;
    p.pad_h_t = int(c.i("p_pad", 0));
    p.pad_h_b = int(c.i("p_pad", 1));
    p.pad_w_l = int(c.i("p_pad", 2));
    p.pad_w_r = int(c.i("p_pad", 3));
    p.stride_h = int(c.i("p_stride", 0));
    p.stride_w = int(c.i("p_stride", 1));
    p.dh = int(c.i("p_dil", 0));
    p.dw = int(c.i("p_dil", 1));
    p.groups = int(c.i("p_groups"));
    p.scale = c.f("p_scale");
    p.mode = mode(c);
    p.left_zero_point = int(c.i("p_zp", 0));
    p.right_zero_point = int(c.i("p_zp", 1));
    p.output_zero_point = int(c.i("p_zp", 2));
    Var x = input("x", "x");
    if (startsWith(name, "deconv")) return {g.deconv(x, g.coeff(c["w"]), coeffOr("b"), p, outT)};
    return {g.conv(x, g.coeff(c["w"]), coeffOr("b"), p, outT)};
  }
  if (startsWith(name, "matmul")) {
    lang::MatrixMulParam p;
    p.scale = c.f("p_scale");
    p.mode = mode(c);
    p.left_zero_point = int(c.i("p_zp", 0));
    p.right_zero_point = int(c.i("p_zp", 1));
    p.output_zero_point = int(c.i("p_zp", 2));
    // The right matrix is a runtime input in the symmetric integer modes, a coeff otherwise.
    bool rightCoeff = p.mode == lang::QCalMode::HighPrecisionAsymmetric || name == "matmul_high_sym";
    Var r = rightCoeff ? g.coeff(c["w"]) : input("w", "w");
    Var b = name == "matmul_fp32" ? input("b", "b") : coeffOr("b");
    return {g.matrix_mul(input("x", "x"), r, b, p, outT)};
  }
  if (startsWith(name, "fc_int")) {
    lang::FCIntParam p;
    p.izp_val = int(c.i("p_zp", 0));
    p.kzp_val = int(c.i("p_zp", 1));
    p.weight_trans = c.i("p_trans") != 0;
    return {g.fc_int(input("x", "x"), g.coeff(c["w"]), g.coeff(c["b"]), p)};
  }
  if (startsWith(name, "pool_int")) {
    lang::PoolIntParam p;
    p.kernel_h = p.kernel_w = 3;
    p.stride_h = p.stride_w = 2;
    p.pad_h_t = int(c.i("p_pad", 0));
    p.pad_h_b = int(c.i("p_pad", 1));
    p.pad_w_l = int(c.i("p_pad", 2));
    p.pad_w_r = int(c.i("p_pad", 3));
    p.out_ceil_mode = int(c.i("p_ceil"));
    p.is_avg_pooling = c.i("p_avg") != 0;
    p.quant_mode = int(c.i("p_qm"));
    p.scale = int(c.i("p_scale"));
    p.rshift = int(c.i("p_rshift"));
    return {g.pool_int(input("x", "x"), p)};
  }
  if (startsWith(name, "pool_max_") || startsWith(name, "pool_avg_")) {
    lang::PoolParam p;
    p.kernel_h = p.kernel_w = int(c.i("p_k"));
    p.stride_h = p.stride_w = int(c.i("p_s"));
    p.pad_h = int(c.i("p_pad", 0));
    p.pad_h_offset = int(c.i("p_pad", 1) - c.i("p_pad", 0));
    p.pad_w = int(c.i("p_pad", 2));
    p.pad_w_offset = int(c.i("p_pad", 3) - c.i("p_pad", 2));
    p.is_ceil_mode = c.i("p_ceil") != 0;
    p.pooling_type = c.i("p_max") ? lang::PoolType::MAX : lang::PoolType::AVE;
    p.is_ave_count_zero_pad = c.i("p_countpad") != 0;
    p.is_global_pooling = c.i("p_global") != 0;
    return {g.pool(input("x", "x"), p)};
  }
  if (name == "pool_fp32") {
    lang::PoolParam p;
    p.kernel_h = p.kernel_w = 3;
    p.stride_h = p.stride_w = 2;
    p.pad_h = p.pad_w = 1;
    Var x = input("x", "x");
    Var mx = g.pool(x, p);
    p.pooling_type = lang::PoolType::AVE;
    return {mx, g.pool(x, p)};
  }
  // element-wise: x [, y], p_s scalar, p_shift
  static const std::map<std::string, std::function<Var(lang::Graph&, Var, Var, const Case&, DType)>> binary = {
      {"add_", [](lang::Graph& g, Var a, Var b, const Case&, DType t) { return g.add(a, b, t); }},
      {"sub_shift_",
       [](lang::Graph& g, Var a, Var b, const Case& c, DType t) { return g.sub_shift(a, b, int(c.i("p_shift")), t); }},
      {"add_shift_",
       [](lang::Graph& g, Var a, Var b, const Case& c, DType t) { return g.add_shift(a, b, int(c.i("p_shift")), t); }},
      {"mul_shift_",
       [](lang::Graph& g, Var a, Var b, const Case& c, DType t) { return g.mul_shift(a, b, int(c.i("p_shift")), t); }},
      {"sub_", [](lang::Graph& g, Var a, Var b, const Case&, DType t) { return g.sub(a, b, t); }},
      {"mul_", [](lang::Graph& g, Var a, Var b, const Case&, DType t) { return g.mul(a, b, t); }},
      {"max_", [](lang::Graph& g, Var a, Var b, const Case&, DType) { return g.max(a, b); }},
      {"min_", [](lang::Graph& g, Var a, Var b, const Case&, DType) { return g.min(a, b); }},
      {"div_", [](lang::Graph& g, Var a, Var b, const Case&, DType) { return g.div(a, b); }},
      {"arith_lshift_", [](lang::Graph& g, Var a, Var b, const Case&, DType) { return g.arith_lshift(a, b); }},
      {"arith_rshift_", [](lang::Graph& g, Var a, Var b, const Case&, DType) { return g.arith_rshift(a, b); }},
      {"round_rshift_", [](lang::Graph& g, Var a, Var b, const Case&, DType t) { return g.round_rshift(a, b, t); }},
      {"cmp_gt", [](lang::Graph& g, Var a, Var b, const Case&, DType) { return g.gt(a, b); }},
      {"cmp_ge", [](lang::Graph& g, Var a, Var b, const Case&, DType) { return g.ge(a, b); }},
      {"cmp_lt", [](lang::Graph& g, Var a, Var b, const Case&, DType) { return g.lt(a, b); }},
      {"cmp_le", [](lang::Graph& g, Var a, Var b, const Case&, DType) { return g.le(a, b); }},
      {"cmp_eq", [](lang::Graph& g, Var a, Var b, const Case&, DType) { return g.eq(a, b); }},
      {"cmp_ne", [](lang::Graph& g, Var a, Var b, const Case&, DType) { return g.ne(a, b); }},
  };
  // The longest matching prefix names the operator ("add_shift_" before "add_").
  auto longest = [&](const auto& table) {
    auto best = table.end();
    for (auto it = table.begin(); it != table.end(); ++it)
      if (startsWith(name, it->first) && (best == table.end() || it->first.size() > best->first.size())) best = it;
    return best;
  };
  if (auto it = longest(binary); it != binary.end()) {
    Var a = input("x", "x");
    return {it->second(g, a, input("y", "y"), c, outT)};
  }
  static const std::map<std::string, std::function<Var(lang::Graph&, Var, const Case&, DType)>> scalar = {
      {"adds_shift_",
       [](lang::Graph& g, Var a, const Case& c, DType t) {
         return g.adds_shift(a, int(c.i("p_s")), int(c.i("p_shift")), t);
       }},
      {"subs_shift_",
       [](lang::Graph& g, Var a, const Case& c, DType t) {
         return g.subs_shift(a, int(c.i("p_s")), int(c.i("p_shift")), t);
       }},
      {"rsubs_shift_",
       [](lang::Graph& g, Var a, const Case& c, DType t) {
         return g.rsubs_shift(int(c.i("p_s")), a, int(c.i("p_shift")), t);
       }},
      {"muls_shift_",
       [](lang::Graph& g, Var a, const Case& c, DType t) {
         return g.muls_shift(a, int(c.i("p_s")), int(c.i("p_shift")), t);
       }},
      {"adds_", [](lang::Graph& g, Var a, const Case& c, DType t) { return g.adds(a, double(c.i("p_s")), t); }},
      {"subs_", [](lang::Graph& g, Var a, const Case& c, DType t) { return g.subs(a, double(c.i("p_s")), t); }},
      {"rsubs_", [](lang::Graph& g, Var a, const Case& c, DType t) { return g.rsubs(double(c.i("p_s")), a, t); }},
      {"muls_", [](lang::Graph& g, Var a, const Case& c, DType t) { return g.muls(a, double(c.i("p_s")), t); }},
      {"maxs_", [](lang::Graph& g, Var a, const Case& c, DType) { return g.maxs(a, double(c.i("p_s"))); }},
      {"mins_", [](lang::Graph& g, Var a, const Case& c, DType) { return g.mins(a, double(c.i("p_s"))); }},
      {"divs_", [](lang::Graph& g, Var a, const Case& c, DType) { return g.divs(a, c.f("p_s")); }},
      {"rdivs_", [](lang::Graph& g, Var a, const Case& c, DType) { return g.rdivs(c.f("p_s"), a); }},
      {"arith_lshifts_",
       [](lang::Graph& g, Var a, const Case& c, DType) { return g.arith_lshifts(a, int(c.i("p_s"))); }},
      {"arith_rshifts_",
       [](lang::Graph& g, Var a, const Case& c, DType) { return g.arith_rshifts(a, int(c.i("p_s"))); }},
      {"round_rshifts_",
       [](lang::Graph& g, Var a, const Case& c, DType t) { return g.round_rshifts(a, int(c.i("p_s")), t); }},
      {"clamp_", [](lang::Graph& g, Var a, const Case& c, DType) { return g.clamp(a, c.f("p_lo"), c.f("p_hi")); }},
      {"cast_", [](lang::Graph& g, Var a, const Case&, DType t) { return g.cast(a, t); }},
  };
  if (auto it = longest(scalar); it != scalar.end()) return {it->second(g, input("x", "x"), c, outT)};
  if (startsWith(name, "active_")) {
    static const std::map<std::string, lang::ActiveType> acts = {{"tanh", lang::ActiveType::ACTIVE_TANH},
                                                                 {"sigmoid", lang::ActiveType::ACTIVE_SIGMOID},
                                                                 {"relu", lang::ActiveType::ACTIVE_RELU},
                                                                 {"exp", lang::ActiveType::ACTIVE_EXP},
                                                                 {"elu", lang::ActiveType::ACTIVE_ELU},
                                                                 {"sqrt", lang::ActiveType::ACTIVE_SQRT},
                                                                 {"square", lang::ActiveType::ACTIVE_SQUARE},
                                                                 {"rsqrt", lang::ActiveType::ACTIVE_RSQRT},
                                                                 {"absval", lang::ActiveType::ACTIVE_ABSVAL},
                                                                 {"abs", lang::ActiveType::ACTIVE_ABSVAL},
                                                                 {"ln", lang::ActiveType::ACTIVE_LN},
                                                                 {"round", lang::ActiveType::ACTIVE_ROUND},
                                                                 {"ceil", lang::ActiveType::ACTIVE_CEIL},
                                                                 {"floor", lang::ActiveType::ACTIVE_FLOOR},
                                                                 {"sin", lang::ActiveType::ACTIVE_SIN},
                                                                 {"cos", lang::ActiveType::ACTIVE_COS},
                                                                 {"leaky_relu", lang::ActiveType::ACTIVE_LEAKY_RELU}};
    std::string rest = name.substr(7);
    std::string key = rest.substr(0, rest.find("_i"));
    if (rest == "leaky_relu") key = rest;
    Var x = input("x", "x");
    if (key == "leaky_relu") return {g.active_param(x, acts.at(key), {0.1f})};
    return {g.active(x, acts.at(key), outT)};
  }
  if (startsWith(name, "lut_")) return {g.lut(input("x", "x"), g.coeff(c["w"]))};
  if (startsWith(name, "select_"))
    return {g.select(input("x", "x"), input("y", "y"), input("w", "c"), input("b", "d"),
                     name == "select_ge" ? lang::SelectType::GREATER_EQUAL : lang::SelectType::GREATER_THAN)};
  if (name == "condition_select") return {g.condition_select(input("x", "x"), input("w", "c"), g.coeff(c["b"]))};
  if (startsWith(name, "requant_int32")) {
    lang::RequantInt32Param p;
    p.is_mul_shift_pc = p.is_offset_pc = c.i("p_pc") != 0;
    p.multiplier_val = int(c.i("p_mult"));
    p.shift_val = int(c.i("p_shift"));
    p.offset_val = int(c.i("p_offset"));
    p.multiplier_vec = c.ints("p_mult");
    p.shift_vec = c.ints("p_shift");
    p.offset_vec = c.ints("p_offset");
    return {g.requant_int32(input("x", "x"), p, int(c.i("p_mode")), outT)};
  }
  if (startsWith(name, "requant_fp32") || startsWith(name, "dequant")) {
    lang::RequantFp32Param p;
    p.mode = int(c.i("p_mode"));
    p.is_scale_pc = p.is_offset_pc = c.i("p_pc") != 0;
    p.scale_val = float(c.f("p_scale"));
    for (double v : c["p_scale"].toDoubles()) p.scale_vec.push_back(float(v));
    p.offset_val = int(c.f("p_offset"));
    p.offset_fp_val = float(c.f("p_offset"));
    for (double v : c["p_offset"].toDoubles()) {
      p.offset_vec.push_back(int(v));
      p.offset_fp_vec.push_back(float(v));
    }
    if (startsWith(name, "dequant")) return {g.dequant_int_to_fp32(input("x", "x"), p)};
    return {g.requant_fp32_to_int(input("x", "x"), p, outT)};
  }
  // data arrangement
  if (name == "permute") return {g.permute(input("x", "x"), {1, 2, 0})};
  if (name == "tile") return {g.tile(input("x", "x"), {2, 1, 3})};
  if (name == "broadcast") return {g.broadcast(input("x", "x"), {1, 2, 2})};
  if (name == "concat") return {g.concat({input("x", "x"), input("y", "y")}, 1)};
  if (name == "split") {
    auto parts = g.split(input("x", "x"), 1, 2, {1, 2});
    return parts;
  }
  if (startsWith(name, "pad_")) {
    lang::PadType m = name == "pad_reflect" ? lang::PadType::PAD_REFLECT
        : name == "pad_symmetric"           ? lang::PadType::PAD_SYMMETRIC
        : name == "pad_edge"                ? lang::PadType::PAD_EDGE
                                            : lang::PadType::PAD_CONSTANT;
    return {g.pad(input("x", "x"), -4, {2, 1, 1, 2}, m)};
  }
  if (name == "reshape") return {g.reshape(input("x", "x"), {0, 6, -1, 2})};
  if (name == "squeeze") return {g.squeeze(input("x", "x"))};
  if (name == "expand_dims") return {g.expand_dims(input("x", "x"), 1, 2)};
  if (name == "index_select") return {g.index_select(input("x", "x"), 1, input("y", "index"))};
  if (startsWith(name, "reduce_")) {
    lang::ReduceParam p;
    if (name == "reduce_mean") {
      p.method = lang::ReduceMethod::REDUCE_MEAN;
      p.axis_list = {0, -1};
    }
    if (name == "reduce_prod") {
      p.method = lang::ReduceMethod::REDUCE_PROD;
      p.axis_list = {1};
      p.keep_dims = false;
    }
    if (name == "reduce_sum_i8") {
      p.method = lang::ReduceMethod::REDUCE_SUM;
      p.axis_list = {2};
    }
    if (name == "reduce_max_u8") {
      p.method = lang::ReduceMethod::REDUCE_MAX;
      p.axis_list = {1};
      p.keep_dims = false;
    }
    return {g.reduce(input("x", "x"), p)};
  }
  if (startsWith(name, "arg_")) {
    lang::ArgParam p;
    p.axis = name == "arg_min_u8" ? 0 : 1;
    p.method = name == "arg_max" ? 0 : 1;
    return {g.arg(input("x", "x"), p)};
  }
  if (name == "topk1") {
    lang::TopkParam p;
    p.axis = 2;
    return g.topk(input("x", "x"), p);
  }
  if (name == "upsample") return {g.upsample(input("x", "x"), 2)};
  if (name == "interpolate_nearest") return {g.interpolate(input("x", "x"), {6, 8}, {}, {})};
  if (startsWith(name, "interpolate")) {
    lang::InterpolateParam p;
    p.method = lang::InterpolateMode::BILINEAR;
    bool align = name == "interpolate_bilinear_align";
    p.align_corners = align;
    p.half_pixel_centers = !align;
    return {g.interpolate(input("x", "x"), align ? std::vector<int>{5, 7} : std::vector<int>{}, {2.0f, 2.0f}, p)};
  }
  if (name == "softmax") return {g.softmax(input("x", "x"), 1)};
  if (name == "batch_norm") {
    lang::NormParam p;
    return {g.batch_norm(input("x", "x"), input("mean", "mean"), input("var", "var"), g.coeff(c["gamma"]),
                         g.coeff(c["beta"]), p)};
  }
  throw std::runtime_error("no builder for case " + name);
}

void expectMatches(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(dtypeName(got.dtype()), dtypeName(want.dtype())) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  if (isFloat(want.dtype())) {
    for (int64_t i = 0; i < want.size(); ++i) {
      double g = got.getFloat(i), w = want.getFloat(i);
      ASSERT_NEAR(g, w, 2e-5 + 2e-5 * std::fabs(w)) << what << " element " << i;
    }
    return;
  }
  std::vector<int64_t> g = got.toInts(), w = want.toInts();
  for (size_t i = 0; i < w.size(); ++i) ASSERT_EQ(g[i], w[i]) << what << " element " << i;
}

TEST_P(LangCases, MatchesTheBMLangFormula) {
  const std::string name = GetParam();
  Case c = load(name);
  lang::Graph g;
  NamedTensors in;
  std::vector<Var> outs = build(g, name, c, in);
  ASSERT_TRUE(g.status().isOk()) << g.status().toString();
  for (size_t i = 0; i < outs.size(); ++i) g.output(outs[i], "out" + std::to_string(i));
  Status s = g.compile();
  ASSERT_TRUE(s.isOk()) << s.toString();
  auto r = g.run(in);
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  ASSERT_EQ(r->size(), outs.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    std::string key = i == 0    ? (c.has("expected0")          ? "expected0"
                                       : c.has("expected_max") ? "expected_max"
                                                               : "expected")
        : c.has("expected_avg") ? "expected_avg"
                                : "expected" + std::to_string(i);
    expectMatches((*r)[i].second, c[key], name + " output " + std::to_string(i));
  }
}

std::vector<std::string> caseNames(const std::string& prefix) {
  // The names are fixed by the generator; listed here so each is its own test.
  static const std::vector<std::string> all = {"conv_low_i8",
                                               "conv_low_i8_scale_left",
                                               "conv_low_u8_out",
                                               "conv_low_u8_in",
                                               "conv_low_depthwise",
                                               "conv_low_grouped",
                                               "conv_high_sym_bias16",
                                               "conv_high_sym_bias32",
                                               "conv_high_sym_u16",
                                               "conv_high_asym",
                                               "conv_high_asym_u8",
                                               "conv_high_asym_i16",
                                               "conv_fp32",
                                               "deconv_low_i8",
                                               "deconv_low_u8",
                                               "deconv_fp32",
                                               "conv_low_depthwise_m2",
                                               "conv3d_low",
                                               "conv3d_high_sym",
                                               "conv3d_high_asym",
                                               "conv3d_fp32",
                                               "matmul_low",
                                               "matmul_low_left",
                                               "matmul_high_sym",
                                               "matmul_high_sym_b16",
                                               "matmul_high_asym",
                                               "matmul_high_asym_u8",
                                               "matmul_fp32",
                                               "fc_int_i8",
                                               "fc_int_u8",
                                               "pool_int_max_i8",
                                               "pool_int_max_u8",
                                               "pool_int_avg_mode1",
                                               "pool_int_avg_mode1_u8",
                                               "pool_int_avg_mode2",
                                               "pool_fp32",
                                               "pool_max_ceil",
                                               "pool_avg_exclude_pad",
                                               "pool_avg_global",
                                               "conv_low_scale_above_one",
                                               "conv_high_sym_scale_above_one",
                                               "add_i8",
                                               "add_i8_to_i16",
                                               "sub_u8_i8_to_u8",
                                               "mul_i8_to_i16",
                                               "mul_i16_to_i8",
                                               "max_i8",
                                               "min_u8",
                                               "adds_i8",
                                               "subs_u8",
                                               "rsubs_i8_to_i16",
                                               "muls_i8_to_u16",
                                               "maxs_i16",
                                               "mins_u8",
                                               "add_shift_i8",
                                               "sub_shift_u8_i16",
                                               "mul_shift_i8",
                                               "mul_shift_i16_u8",
                                               "adds_shift_i8",
                                               "subs_shift_i16",
                                               "rsubs_shift_u8",
                                               "muls_shift_i8",
                                               "add_fp32",
                                               "mul_fp32",
                                               "div_fp32",
                                               "divs_fp32",
                                               "rdivs_fp32",
                                               "arith_lshift_i32",
                                               "arith_rshift_i32",
                                               "arith_lshift_i16",
                                               "arith_rshifts_u16",
                                               "arith_lshifts_i16",
                                               "arith_rshifts_i32_neg",
                                               "round_rshift_i16_to_i8",
                                               "round_rshifts_u16_to_u8",
                                               "clamp_i8",
                                               "clamp_u8",
                                               "cast_fp32_i8",
                                               "cast_fp32_u8",
                                               "cast_fp32_i32",
                                               "cast_i16_u8",
                                               "cast_u8_fp32",
                                               "cast_u16_i16",
                                               "active_relu_i16_to_i8",
                                               "active_abs_i8",
                                               "active_tanh",
                                               "active_sigmoid",
                                               "active_relu",
                                               "active_exp",
                                               "active_elu",
                                               "active_square",
                                               "active_absval",
                                               "active_round",
                                               "active_ceil",
                                               "active_floor",
                                               "active_sin",
                                               "active_cos",
                                               "active_leaky_relu",
                                               "active_sqrt",
                                               "active_rsqrt",
                                               "active_ln",
                                               "cmp_gt",
                                               "cmp_ge",
                                               "cmp_lt",
                                               "cmp_le",
                                               "cmp_eq",
                                               "cmp_ne",
                                               "lut_i8",
                                               "lut_u8",
                                               "lut_fp32",
                                               "select_gt",
                                               "select_ge",
                                               "condition_select",
                                               "requant_int32_mode0",
                                               "requant_int32_mode0_left",
                                               "requant_int32_mode0_pc",
                                               "requant_int32_mode1",
                                               "requant_int32_mode1_pc",
                                               "requant_int32_mode2",
                                               "requant_int32_mode2_pc",
                                               "requant_fp32_mode0",
                                               "requant_fp32_mode0_pc",
                                               "requant_fp32_mode1",
                                               "dequant_i8",
                                               "dequant_u8_pc",
                                               "dequant_mode1_i16",
                                               "permute",
                                               "tile",
                                               "broadcast",
                                               "concat",
                                               "split",
                                               "pad_constant",
                                               "pad_reflect",
                                               "pad_symmetric",
                                               "pad_edge",
                                               "reshape",
                                               "squeeze",
                                               "expand_dims",
                                               "index_select",
                                               "reduce_mean",
                                               "reduce_prod",
                                               "reduce_sum_i8",
                                               "reduce_max_u8",
                                               "arg_max",
                                               "arg_min",
                                               "arg_min_u8",
                                               "topk1",
                                               "upsample",
                                               "interpolate_bilinear_align",
                                               "interpolate_bilinear_half",
                                               "interpolate_nearest",
                                               "softmax",
                                               "batch_norm"};
  std::vector<std::string> r;
  for (const auto& n : all)
    if (startsWith(n, prefix)) r.push_back(n);
  return r;
}

std::string paramName(const ::testing::TestParamInfo<std::string>& i) { return i.param; }

INSTANTIATE_TEST_SUITE_P(All, LangCases, ::testing::ValuesIn(caseNames("")), paramName);

}  // namespace
