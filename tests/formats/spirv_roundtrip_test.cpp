// SPIR-V TOSA.001000.1 round trip: every conformance model.mlir (upstream MLIR 22 syntax, imported by the
// MLIR importer) whose ops all have an instruction must come back from SPIR-V identical (ir::modulesEqual).
// Models that cannot be expressed must fail with a clear Unsupported error naming the op. Each SPIR-V module
// read back also goes SPIR-V -> .tosa -> SPIR-V (src/formats/tosafb) and must give the same words.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "formats/spirv/spirv_io.h"
#include "formats/spirv/spirv_tosa_table.h"
#include "formats/tosafb/tosafb_io.h"
#include "tosakit/model_io.h"

namespace tosakit {
namespace {

namespace fs = std::filesystem;
const fs::path kVectors = TOSAKIT_CONFORMANCE_DIR;

// Why a model legitimately has no SPIR-V form: an op without an instruction, or a non-constant operand where
// the instruction needs a constant (EXT-DYNAMIC models).
bool mappable(const ir::ValueType& t) {
  // The spec's type mapping: bool, i8, i16, i32, i48, fp16, fp32, bf16, fp8; shape_t as i32 tensors.
  static const std::set<DType> ok = {DType::Bool, DType::I8,   DType::I16,  DType::I32,     DType::I48,
                                     DType::FP16, DType::FP32, DType::BF16, DType::FP8E4M3, DType::FP8E5M2};
  if (t.isShape()) return true;
  if (!ok.count(t.dtype)) return false;
  for (int64_t d : t.dims)
    if (d < 0) return false;
  return true;
}

bool expressible(const ir::Module& m, std::string& why) {
  for (const auto& f : m.functions) {
    for (const ir::Value* v : f->inputs())
      if (!mappable(v->type) || v->type.isShape()) {
        why = "input type " + v->type.toString();
        return false;
      }
    for (const ir::ValueType& t : f->resultTypes)
      if (t.isShape()) {
        why = "shape-typed output";
        return false;
      }
    for (const auto& op : f->body.ops)
      for (const ir::Value* v : op->results)
        if (!mappable(v->type)) {
          why = "type " + v->type.toString();
          return false;
        }
  }
  for (const auto& f : m.functions)
    for (const auto& op : f->body.ops) {
      if (op->name == "func.return" || op->name == "tosa.const" || op->name == "tosa.const_shape") continue;
      const spirv::SpvInstrDesc* d = spirv::instrByIrName(op->name);
      if (!d) {
        why = op->name + " has no instruction";
        return false;
      }
      bool variadic = d->operands.back().kind == spirv::SpvOperandKind::TensorList;
      size_t want = d->operands.size() - size_t(d->numAttrs);
      if (variadic ? op->operands.empty() : op->operands.size() != want) {
        why = op->name + " malformed (operand count)";  // negative tests MLIR only parses unverified
        return false;
      }
      for (size_t k = 0; k < op->operands.size(); ++k) {
        size_t slot = std::min(size_t(d->numAttrs) + k, d->operands.size() - 1);
        const ir::Operation* def = op->operands[k]->definingOp;
        if (d->operands[slot].mustBeConstant &&
            (!def || (def->name != "tosa.const" && def->name != "tosa.const_shape"))) {
          why = op->name + " operand " + d->operands[slot].name + " not constant";
          return false;
        }
      }
    }
  return true;
}

TEST(SpirvRoundTrip, ConformanceModels) {
  ASSERT_TRUE(fs::is_directory(kVectors))
      << kVectors << ": conformance vectors not unpacked (target conformance_vectors)";
  std::vector<fs::path> models;
  for (auto& group : fs::directory_iterator(kVectors))
    if (group.is_directory())
      for (auto& t : fs::directory_iterator(group.path()))
        if (fs::exists(t.path() / "model.mlir")) models.push_back(t.path() / "model.mlir");
  std::sort(models.begin(), models.end());
  ASSERT_GT(models.size(), 1000u);
  std::set<std::string> covered;
  int roundTripped = 0, inexpressible = 0, unimportable = 0;
  for (const fs::path& p : models) {
    auto m = loadModel(p.string());
    if (!m) {
      ++unimportable;
      continue;
    }  // negative tests MLIR rejects
    std::string why;
    bool ok = expressible(**m, why);
    auto bin = spirv::encodeSpirv(**m);
    if (!ok) {
      ++inexpressible;
      ASSERT_FALSE(bin.isOk()) << p << ": " << why << " but export succeeded";
      if (why.find("malformed") == std::string::npos) {
        EXPECT_EQ(bin.status().code(), StatusCode::Unsupported) << p << ": " << bin.status().message();
      }
      continue;
    }
    ASSERT_TRUE(bin.isOk()) << p << ": " << bin.status().message();
    auto back = spirv::decodeSpirv(bin->words.data(), bin->words.size(), p.string() + ".spv", bin->sidecar);
    ASSERT_TRUE(back.isOk()) << p << ": " << back.status().message();
    std::string diff;
    ASSERT_TRUE(ir::modulesEqual(**m, **back, &diff)) << p << ": " << diff << "\n"
                                                      << ir::printModule(**m) << "---\n"
                                                      << ir::printModule(**back);
    auto fb = tosafb::encodeTosa(**back);
    ASSERT_TRUE(fb.isOk()) << p << ": " << fb.status().message();
    auto viaTosa = tosafb::decodeTosa(fb->bytes.data(), fb->bytes.size(), p.string() + ".tosa");
    ASSERT_TRUE(viaTosa.isOk()) << p << ": " << viaTosa.status().message();
    auto again = spirv::encodeSpirv(**viaTosa);
    ASSERT_TRUE(again.isOk()) << p << ": " << again.status().message();
    EXPECT_EQ(again->words, bin->words) << p << ": SPIR-V -> .tosa -> SPIR-V differs";
    ++roundTripped;
    for (const auto& op : (*m)->functions[0]->body.ops) covered.insert(op->name);
  }
  // Every instruction with a conformance model is exercised.
  std::vector<std::string> missing;
  for (const auto& d : spirv::tosaInstructions())
    if (!covered.count(d.irName)) missing.push_back(d.irName);
  EXPECT_TRUE(missing.empty()) << "instructions never round-tripped: " << ::testing::PrintToString(missing);
  std::cout << "round-tripped " << roundTripped << ", inexpressible " << inexpressible << ", not importable "
            << unimportable << "\n";
  EXPECT_GT(roundTripped, 1000);
}

}  // namespace
}  // namespace tosakit
