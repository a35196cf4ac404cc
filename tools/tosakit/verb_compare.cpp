// tosakit compare A.npz B.npz [--tolerance 0.99,0.9] [--excepts a,b] [--dequantize MODEL_int8.mlir]
//                 [--html REPORT.html]
// TPU-MLIR's npz_tool compare (docs/QUANTIZATION.md "## Comparing"): exit 1 when any tensor is below tolerance.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/file_io.h"
#include "tosakit/compare.h"
#include "tosakit/inspect.h"
#include "tosakit/model_io.h"
#include "tosakit/npz.h"
#include "tosakit/quantize.h"
#include "verbs.h"

namespace tosakit::cli {

namespace {

struct CompareArgs {
  std::string a, b;
  std::string tolerance = "0.99,0.9";
  std::vector<std::string> excepts;
  std::string dequantize;
  std::string html;
};

// The parameters a quantized model records (a .spv's in its OUT.spv.qparams.json sidecar).
Result<std::map<std::string, TensorQuantParams>> modelQuantParams(const std::string& path) {
  auto m = loadModelWithQuantParams(path);
  if (!m) return m.status();
  auto params = recordedQuantParams(**m);
  if (params.empty())
    return Status::invalid(path + ": records no quantization parameters (not a tosakit quantize output?)");
  return params;
}

int compareVerb(const CompareArgs& args) {
  CompareOptions opts;
  if (Status s = parseTolerance(args.tolerance, opts.minCosine, opts.minEuclidean).withContext("--tolerance"); !s)
    return report(s);
  for (const auto& e : args.excepts) opts.excepts.insert(e);
  if (!args.dequantize.empty()) {
    auto p = modelQuantParams(args.dequantize);
    if (!p) return report(p.status());
    opts.quantParams = std::move(*p);
  }
  auto a = npy::readNpz(args.a);
  if (!a) return report(a.status());
  auto b = npy::readNpz(args.b);
  if (!b) return report(b.status());
  CompareReport r = compareTensors(*a, *b, opts);
  if (r.rows.empty()) return report(Status::invalid(args.a + " and " + args.b + " have no tensor name in common"));
  size_t failed = 0;
  std::printf("%-40s %12s %12s %10s %12s\n", "tensor", "cosine", "euclidean", "SQNR(dB)", "max|A-B|");
  for (const auto& row : r.rows) {
    failed += row.pass ? 0 : 1;
    if (!row.note.empty()) {
      std::printf("%-40s %s  FAIL\n", row.name.c_str(), row.note.c_str());
      continue;
    }
    std::printf("%-40s %12.6f %12.6f %10.2f %12.6g%s%s\n", row.name.c_str(), row.cosine, row.euclidean, row.sqnr,
                row.maxAbsDiff, row.dequantized ? "  (dequantized)" : "", row.pass ? "" : "  BELOW TOLERANCE");
  }
  std::printf("%zu of %zu tensors within tolerance %s (cosine,euclidean); %zu only in %s, %zu only in %s\n",
              r.rows.size() - failed, r.rows.size(), args.tolerance.c_str(), r.onlyInA.size(), args.a.c_str(),
              r.onlyInB.size(), args.b.c_str());
  if (!args.html.empty())
    if (Status s = writeFileAtomic(args.html, compareReportHtml(r, args.a, args.b, opts)); !s) return report(s);
  return failed == 0 ? kExitOk : kExitSpecError;
}

}  // namespace

VerbAction addCompareVerb(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare two .npz result sets tensor by tensor (cosine, euclidean, SQNR, max |A-B|)");
  cmd->add_option("a", args->a, "First .npz (e.g. the float model's --dump-intermediates)")->required();
  cmd->add_option("b", args->b, "Second .npz (e.g. the quantized model's)")->required();
  cmd->add_option("--tolerance", args->tolerance, "Minimum cosine,euclidean similarity (default 0.99,0.9)");
  cmd->add_option("--excepts", args->excepts, "Tensor names to leave out (comma-separated)")->delimiter(',');
  cmd->add_option("--dequantize", args->dequantize,
                  "Quantized model whose recorded scales/zero points dequantize integer tensors");
  cmd->add_option("--html", args->html, "Write a self-contained HTML report (table and similarity plot)");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return compareVerb(*args);
  };
}

}  // namespace tosakit::cli
