// tosakit::lang bad input and inexpressible operators: a clear one-line error naming the operator, the right
// Status code, later operators skipped, no crash, no partial file; and compile/save/run round trips.
#include <gtest/gtest.h>

#include <filesystem>

#include "ir/graph.h"
#include "tosakit/lang.h"
#include "tosakit/model_io.h"
#include "tosakit/session.h"

using namespace tosakit;
using lang::Var;

namespace {

Tensor i8(Shape s, int64_t v = 1) {
  Tensor t(DType::I8, s);
  for (int64_t i = 0; i < t.size(); ++i) t.setInt(i, v);
  return t;
}

void expectError(const lang::Graph& g, StatusCode code, const std::string& fragment) {
  Status s = g.status();
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.code(), code) << s.toString();
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.toString();
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << "one line: " << s.toString();
}

TEST(LangErrors, InexpressibleOperatorsAreUnsupportedAndNamed) {
  struct Case {
    const char* op;
    std::function<void(lang::Graph&, Var)> build;
  };
  std::vector<Case> cases = {
      {"where", [](lang::Graph& g, Var x) { g.where(x); }},
      {"sort", [](lang::Graph& g, Var x) { g.sort(x); }},
      {"topk",
       [](lang::Graph& g, Var x) {
         lang::TopkParam p;
         p.k = 2;
         g.topk(x, p);
       }},
      {"deconv",
       [](lang::Graph& g, Var x) {
         lang::ConvParam p;
         p.mode = lang::QCalMode::HighPrecisionAsymmetric;
         g.deconv(x, g.coeff(i8({2, 2, 3, 3})), Var{}, p);
       }},
      {"deconv",
       [](lang::Graph& g, Var x) {
         lang::ConvParam p;
         p.groups = 2;
         g.deconv(x, g.coeff(i8({2, 1, 3, 3})), Var{}, p);
       }},
      {"fc_int",
       [](lang::Graph& g, Var) {
         lang::FCIntParam p;
         p.is_izp_const = false;
         g.fc_int(g.input("f", DType::I8, {1, 2, 3}), g.coeff(i8({3, 4})), Var{}, p);
       }},
      {"arg",
       [](lang::Graph& g, Var) {
         g.arg(g.input("w", DType::I32, {2, 3}), {});
       }},
      {"conv",
       [](lang::Graph& g, Var x) {
         lang::ConvParam p;
         p.mode = lang::QCalMode::HighPrecisionSymmetric;
         g.conv(x, g.coeff(i8({2, 2, 3, 3})), g.coeff(Tensor(DType::FP32, {2})), p);  // fp32 bias
       }},
  };
  for (const Case& c : cases) {
    lang::Graph g;
    Var x = g.input("x", DType::I8, {1, 2, 4, 4});
    c.build(g, x);
    SCOPED_TRACE(c.op);
    expectError(g, StatusCode::Unsupported, std::string(c.op) + ": ");
  }
}

TEST(LangErrors, BadOperandsAreInvalidArgumentsNamingTheOperator) {
  struct Case {
    const char* fragment;
    std::function<void(lang::Graph&, Var)> build;
  };
  std::vector<Case> cases = {
      {"add: shapes",
       [](lang::Graph& g, Var x) {
         g.add(x, g.input("y", DType::I8, {1, 2, 3, 4}));
       }},
      {"add: operands mix",
       [](lang::Graph& g, Var x) {
         g.add(x, g.input("y", DType::FP32, {1, 2, 4, 4}));
       }},
      {"conv: the weight must be a coeff",
       [](lang::Graph& g, Var x) {
         g.conv(x, g.input("w", DType::I8, {2, 2, 3, 3}), Var{}, {});
       }},
      {"conv: LowPrecisionSymmetric requires zero points 0",
       [](lang::Graph& g, Var x) {
         lang::ConvParam p;
         p.left_zero_point = 3;
         g.conv(x, g.coeff(i8({2, 2, 3, 3})), Var{}, p);
       }},
      {"conv: LowPrecisionSymmetric output must be i8 or u8",
       [](lang::Graph& g, Var x) {
         g.conv(x, g.coeff(i8({2, 2, 3, 3})), Var{}, {}, DType::I16);
       }},
      {"conv: scale must be positive",
       [](lang::Graph& g, Var x) {
         lang::ConvParam p;
         p.scale = 0;
         g.conv(x, g.coeff(i8({2, 2, 3, 3})), Var{}, p);
       }},
      {"reshape: cannot infer the -1 dimension",
       [](lang::Graph& g, Var x) {
         g.reshape(x, {5, -1, 3});
       }},
      {"reshape: element count changes",
       [](lang::Graph& g, Var x) {
         g.reshape(x, {5, 7});
       }},
      {"permute: order repeats",
       [](lang::Graph& g, Var x) {
         g.permute(x, {0, 1, 1, 2});
       }},
      {"lut: the table has 10 entries", [](lang::Graph& g, Var x) { g.lut(x, g.coeff(i8({10}))); }},
      {"div: div takes fp32", [](lang::Graph& g, Var x) { g.div(x, x); }},
      {"arith_lshift: shifted tensor must be i32", [](lang::Graph& g, Var x) { g.arith_lshift(x, x); }},
      {"requant_int32: input must be i32", [](lang::Graph& g, Var x) { g.requant_int32(x, {}, 0, DType::I8); }},
      {"requant_int32: mode must be",
       [](lang::Graph& g, Var) {
         g.requant_int32(g.input("z", DType::I32, {1, 2}), {}, 7, DType::I8);
       }},
      {"split: dimension 2 does not split", [](lang::Graph& g, Var x) { g.split(x, 1, 3); }},
      {"input: element type i48", [](lang::Graph& g, Var) { g.input("bad", DType::I48, {1}); }},
      {"input: input name 'x' used twice", [](lang::Graph& g, Var) { g.input("x", DType::I8, {1}); }},
      {"pad: reflect padding",
       [](lang::Graph& g, Var x) {
         g.pad(x, 0, {0, 0, 0, 0, 4, 0, 0, 0}, lang::PadType::PAD_REFLECT);
       }},
      {"squeeze: axis 1 has size 2", [](lang::Graph& g, Var x) { g.squeeze(x, {1}); }},
      {"index_select: index 9 outside",
       [](lang::Graph& g, Var x) {
         g.index_select(x, 3, g.coeff(Tensor::fromInts(DType::I32, {2}, {0, 9})));
       }},
      {"concat: no tensors", [](lang::Graph& g, Var) { g.concat({}, 0); }},
  };
  for (const Case& c : cases) {
    lang::Graph g;
    Var x = g.input("x", DType::I8, {1, 2, 4, 4});
    c.build(g, x);
    SCOPED_TRACE(c.fragment);
    expectError(g, StatusCode::InvalidArgument, c.fragment);
  }
}

TEST(LangErrors, FirstErrorIsKeptAndLaterOperatorsAreSkipped) {
  lang::Graph g;
  Var x = g.input("x", DType::I8, {1, 4});
  Var bad = g.where(x);
  EXPECT_EQ(bad.id, Var::kError);
  Var later = g.add(bad, x);  // skipped: no second error
  EXPECT_EQ(later.id, Var::kError);
  g.reshape(x, {3, 3});  // a second, independent error: the first one stays
  g.output(later, "y");
  expectError(g, StatusCode::Unsupported, "where: ");
  EXPECT_EQ(g.module(), nullptr);
  EXPECT_FALSE(g.compile().isOk());
  EXPECT_FALSE(g.run({{"x", i8({1, 4})}}).isOk());
  const std::string path = testing::TempDir() + "/lang_error_graph.mlir";
  std::filesystem::remove(path);
  EXPECT_FALSE(g.save(path).isOk());
  EXPECT_FALSE(std::filesystem::exists(path)) << "no partial output";
}

TEST(LangErrors, HandleOfAnotherGraphIsAnError) {
  lang::Graph g;
  g.input("x", DType::I8, {1, 4});
  g.active(Var{57}, lang::ActiveType::ACTIVE_RELU);
  expectError(g, StatusCode::InvalidArgument, "active: unknown tensor handle 57");
}

TEST(LangErrors, MissingRequiredOperandIsAnError) {
  lang::Graph g;
  g.add(g.input("x", DType::I8, {1, 4}), Var{});
  expectError(g, StatusCode::InvalidArgument, "add: a required tensor is missing");
}

TEST(LangErrors, CompileSaveRunReportBadUse) {
  lang::Graph g;
  Var x = g.input("x", DType::I8, {1, 4});
  EXPECT_EQ(g.compile().code(), StatusCode::InvalidArgument);  // no outputs yet
  g.output(g.adds(x, 3), "y");
  ASSERT_TRUE(g.compile().isOk());
  // Run: a missing input, a wrong dtype, a wrong shape, an unknown name.
  EXPECT_FALSE(g.run({}).isOk());
  EXPECT_FALSE(g.run({{"x", Tensor(DType::I16, {1, 4})}}).isOk());
  EXPECT_FALSE(g.run({{"x", i8({1, 5})}}).isOk());
  EXPECT_FALSE(g.run({{"x", i8({1, 4})}, {"nope", i8({1, 4})}}).isOk());
  // Save: an unknown extension and a missing directory fail without leaving a file.
  EXPECT_FALSE(g.save(testing::TempDir() + "/lang_graph.txt").isOk());
  EXPECT_FALSE(std::filesystem::exists(testing::TempDir() + "/lang_graph.txt"));
  EXPECT_FALSE(g.save(testing::TempDir() + "/no/such/dir/g.mlir").isOk());
}

// The saved model, loaded back from MLIR text and from SPIR-V, computes what the graph computes.
TEST(LangRoundTrip, SavedModelsRunTheSame) {
  lang::Graph g;
  Var x = g.input("x", DType::U8, {1, 2, 3, 3});
  lang::ConvParam p;
  p.scale = 0.01;
  p.mode = lang::QCalMode::HighPrecisionAsymmetric;
  p.left_zero_point = 128;
  p.right_zero_point = 3;
  p.output_zero_point = 120;
  Tensor w(DType::I8, {2, 2, 3, 3});
  for (int64_t i = 0; i < w.size(); ++i) w.setInt(i, (i * 37) % 23 - 11);
  Var y = g.conv(x, g.coeff(w), g.coeff(Tensor::fromInts(DType::I32, {2}, {100, -200})), p, DType::U8);
  g.output(y, "y");
  ir::TargetEnv intOnly;
  intOnly.profiles = {"pro_int"};
  Status cs = g.compile(intOnly);
  ASSERT_TRUE(cs.isOk()) << cs.toString();
  Tensor in(DType::U8, {1, 2, 3, 3});
  for (int64_t i = 0; i < in.size(); ++i) in.setInt(i, (i * 53) % 256);
  auto direct = g.run({{"x", in}});
  ASSERT_TRUE(direct.isOk()) << direct.status().toString();
  EXPECT_EQ((*direct)[0].second.dtype(), DType::U8);
  for (const char* ext : {".mlir", ".spv"}) {
    const std::string path = testing::TempDir() + "/lang_roundtrip" + ext;
    ASSERT_TRUE(g.save(path).isOk()) << ext;
    auto m = loadModel(path);
    ASSERT_TRUE(m.isOk()) << m.status().toString();
    auto s = Session::create(std::move(*m));
    ASSERT_TRUE(s.isOk()) << s.status().toString();
    Tensor bits(DType::I8, in.shape());  // the TOSA graph takes u8 as i8 bit patterns
    for (int64_t i = 0; i < in.size(); ++i) bits.setInt(i, in.getInt(i));
    RunResult r;
    ASSERT_TRUE((*s)->run({{"x", bits}}, r).isOk()) << ext;
    const Tensor& got = r.outputs[0].second;
    for (int64_t i = 0; i < got.size(); ++i) EXPECT_EQ(got.getInt(i) & 0xff, (*direct)[0].second.getInt(i)) << ext;
  }
}

}  // namespace
