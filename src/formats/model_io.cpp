#include "tosakit/model_io.h"

#include "core/file_io.h"
#include "core/process_memory.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "formats/mlir/mlir_io.h"
#include "formats/spirv/spirv_io.h"
#include "formats/tosafb/tosafb_io.h"

namespace tosakit {

static std::string extensionOf(const std::string& path) { return std::filesystem::path(path).extension().string(); }

static Result<std::unique_ptr<ir::Module>> loadMlir(const std::string& path, std::vector<std::string>* notes) {
  auto verified = mlirio::importMlirFile(path);
  if (verified || verified.status().code() != StatusCode::ParseError) return verified;
  mlirio::ImportOptions unverifiedOptions;
  unverifiedOptions.verify = false;
  auto unverified = mlirio::importMlirFile(path, unverifiedOptions);
  if (!unverified) return verified;  // a syntax error: report MLIR's own message
  if (notes) notes->push_back("upstream MLIR 22 verifier: " + verified.status().message());
  return unverified;
}

Result<std::unique_ptr<ir::Module>> loadModel(const std::string& path, std::vector<std::string>* notes) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status::io(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) return Status::io(path + ": is a directory");
  std::string ext = extensionOf(path);
  Result<std::unique_ptr<ir::Module>> loaded = ext == ".mlir" ? loadMlir(path, notes)
      : ext == ".spv"                                         ? spirv::readSpirv(path)
      : ext == ".tosa"                                        ? tosafb::readTosa(path)
                       : Result<std::unique_ptr<ir::Module>>(Status::invalid(path + ": unknown model format '" + ext +
                                                                             "' (expected .mlir, .spv or .tosa)"));
  // The parser's temporaries (MLIR context, text buffers) are freed by now; without this glibc keeps their pages
  // resident for the rest of the process (~50 MB for resnet18's text).
  returnFreedHeapToOs();
  return loaded;
}

Status saveModel(const ir::Module& m, const std::string& path) {
  std::string ext = extensionOf(path);
  if (ext == ".mlir") {
    auto text = mlirio::exportMlir(m);
    if (!text) return text.status();
    return writeFileAtomic(path, *text);
  }
  if (ext == ".spv") return spirv::writeSpirv(m, path);
  if (ext == ".tosa") return tosafb::writeTosa(m, path);
  return Status::invalid(path + ": unknown model format '" + ext + "' (expected .mlir, .spv or .tosa)");
}

Result<std::string> disassembleModel(const std::string& path) {
  std::string ext = extensionOf(path);
  if (ext == ".spv") return spirv::disassemble(path);
  if (ext == ".tosa") return tosafb::disassembleTosa(path);
  return Status::invalid(path + ": dis reads .spv and .tosa files, not '" + ext + "'");
}

}  // namespace tosakit
