// Issue 13: hostile input never crashes tosakit. Small files that declare enormous tensors (the issue's two
// inputs, and the same trick through every reader) must give exit 4 and one clear line naming the file, the
// op and the shape, with no output file; --max-memory lowers the budget (an oversized request injected into
// each verb); an allocation failure that still happens is exit 6 "internal error", never an abort.
// The hostile files live in tests/fuzz/regressions/ (also replayed by every fuzzer; make_onnx_seeds.py writes
// the .onnx ones). Expected sizes are hand calculations: 100000 * 100000 * 100 = 1e12 elements; as float32
// 4e12 bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_util.h"
#include "formats/npy/npy.h"

namespace fs = std::filesystem;

namespace {

using tosakit::testing::CmdResult;
using tosakit::testing::runTool;

const std::string kRegressions = std::string(TOSAKIT_SOURCE_DIR) + "/tests/fuzz/regressions/";

// Runs a shell command line (for `ulimit`), output and exit code as runTool.
CmdResult runShell(const std::string& line) {
  std::string cmd = "sh -c '" + line + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

class HostileInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
        ("tosakit_hostile_" + std::to_string(::getpid()) + "_" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    // A well-formed model: y = abs(x) over f32[2,2], and y = x + c with a 2x2 i32 constant.
    write("abs.mlir", R"(func.func @main(%x: tensor<2x2xf32> loc("x")) -> tensor<2x2xf32> {
  %y = tosa.abs %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
)");
    write("add.mlir", R"(func.func @main(%x: tensor<2x2xi32> loc("x")) -> tensor<2x2xi32> {
  %c = "tosa.const"() <{values = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
  %y = tosa.add %x, %c : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  return %y : tensor<2x2xi32>
}
)");
    ASSERT_TRUE(tosakit::npy::writeNpy(path("x.npy"),
                                       tosakit::Tensor::fromDoubles(tosakit::DType::FP32, {2, 2}, {1, -2, 3, -4})));
    ASSERT_TRUE(
        tosakit::npy::writeNpy(path("xi.npy"), tosakit::Tensor::fromInts(tosakit::DType::I32, {2, 2}, {1, 2, 3, 4})));
    ASSERT_TRUE(tosakit::npy::writeNpy(path("x1.npy"), tosakit::Tensor::fromDoubles(tosakit::DType::FP32, {1}, {1})));
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) { std::ofstream(path(name)) << text; }
  bool exists(const std::string& name) const { return fs::exists(dir_ / name); }
  fs::path dir_;
};

// Exit 4 and exactly one line "tosakit: <kind>: ..." containing every `needle`.
void expectBadInput(const CmdResult& r, const std::vector<std::string>& needles, const std::string& what) {
  EXPECT_EQ(r.exitCode, 4) << what << "\n" << r.out;
  EXPECT_EQ(r.out.rfind("tosakit: ", 0), 0u) << what << "\n" << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << what << ": not one line\n" << r.out;
  for (const auto& n : needles)
    EXPECT_NE(r.out.find(n), std::string::npos) << what << ": no '" << n << "' in\n" << r.out;
}

// ---- the issue's first input through every verb that loads an .mlir model ----

TEST_F(HostileInput, IssueSplatConstantIsBadInputInEveryVerb) {
  const std::string f = kRegressions + "splat_4tb.mlir";  // 215 bytes: dense<0.0> : tensor<100000x100000x100xf32>
  const std::vector<std::string> needles = {"splat_4tb.mlir:2:", "tosa.const", "fp32[100000x100000x100]",
                                            "4000000000000 bytes", "--max-memory"};
  expectBadInput(runTool("validate " + f), needles, "validate");
  expectBadInput(runTool("run " + f + " -o " + path("out.npz")), needles, "run");
  expectBadInput(runTool("convert " + f + " " + path("out.mlir")), needles, "convert .mlir");
  expectBadInput(runTool("convert " + f + " " + path("out.spv")), needles, "convert .spv");
  expectBadInput(runTool("gen-data --model " + f + " -o " + path("gen.npz")), needles, "gen-data");
  expectBadInput(runTool("check --model " + f + " --result " + path("x.npy") + " --reference " + path("x.npy")),
                 needles, "check");
  for (const char* out : {"out.npz", "out.mlir", "out.spv", "out.spv.npz", "gen.npz"}) EXPECT_FALSE(exists(out)) << out;
}

TEST_F(HostileInput, DenseResourceAndBoolSplatAreCheckedBeforeMaterializing) {
  // The blob holds one float; the type claims 1e12 of them. The size is judged before the blob is read.
  expectBadInput(runTool("validate " + kRegressions + "resource_4tb.mlir"),
                 {"resource_4tb.mlir:2:", "dense_resource<blob>", "fp32[100000x100000x100]"}, "dense_resource");
  // i1 is stored one byte per element: 1e12 bytes.
  expectBadInput(runTool("validate " + kRegressions + "splat_bool_huge.mlir"),
                 {"splat_bool_huge.mlir:2:", "bool[100000x100000x100]", "1000000000000 bytes"}, "i1 splat");
}

// ---- sizes that only the backend allocates: the level check first, then the memory budget ----

TEST_F(HostileInput, HugeOpResultIsALevelErrorThenOverTheBudget) {
  const std::string f = kRegressions + "tile_result_4tb.mlir";
  auto r = runTool("run " + f + " --input x=" + path("x1.npy") + " -o " + path("out.npz"));
  EXPECT_EQ(r.exitCode, 1) << r.out;  // level 8K: tensor_size must be below 2^31 (spec 1.7)
  EXPECT_NE(r.out.find("MAX_LOG2_SIZE"), std::string::npos) << r.out;
  // Level none lifts the limit: the reference backend refuses to allocate the result.
  expectBadInput(runTool("run " + f + " --level none --input x=" + path("x1.npy") + " -o " + path("out.npz")),
                 {"tosa.tile", "result 0", "fp32[1000000000000]"}, "run --level none");
  EXPECT_FALSE(exists("out.npz"));
}

TEST_F(HostileInput, HugeVariableIsOverTheBudget) {
  auto r = runTool("run " + kRegressions + "variable_4tb.mlir --backend ref --level none --extension variable -o " +
                   path("out.npz"));
  expectBadInput(r, {"tosa.variable @v", "fp32[100000x100000x100]"}, "variable");
  EXPECT_FALSE(exists("out.npz"));
}

TEST_F(HostileInput, GenDataRefusesAHugeInput) {
  expectBadInput(runTool("gen-data --model " + kRegressions + "input_4tb.mlir -o " + path("gen.npz")),
                 {"input_4tb.mlir", "input 'x'", "fp32[100000x100000x100]"}, "gen-data");
  EXPECT_FALSE(exists("gen.npz"));
}

// ---- NumPy files ----

TEST_F(HostileInput, NpyHeaderClaimingTerabytesIsBadInput) {
  // 128 bytes: a valid header for <f4 (100000, 100000, 100) and no data.
  expectBadInput(
      runTool("run " + path("abs.mlir") + " --input x=" + kRegressions + "header_4tb.npy -o " + path("out.npz")),
      {"header_4tb.npy", "100000x100000x100"}, "npy header");
  EXPECT_FALSE(exists("out.npz"));
}

TEST_F(HostileInput, DeflatedNpzMemberOverTheBudget) {
  // 4294 bytes on disk, a 1024x1024 float32 member (4 MiB) once inflated; the budget is 1 MiB.
  expectBadInput(runTool("run " + path("abs.mlir") + " --max-memory 1M --inputs " + kRegressions +
                         "deflated_4mb.npz -o " + path("out.npz")),
                 {"deflated_4mb.npz", "member 'x.npy'", "4194432 bytes", "--max-memory"}, "npz member");
  EXPECT_FALSE(exists("out.npz"));
}

// ---- ONNX import: folding at import time, initializers, and the level check of the graph built ----

TEST_F(HostileInput, IssueConstantOfShapeAndOtherFoldsAreBadInput) {
  struct Case {
    const char* file;
    std::vector<std::string> needles;
  };
  const std::vector<Case> cases = {
      {"constantofshape_4tb.onnx", {"ConstantOfShape", "fp32[100000x100000x100]", "4000000000000 bytes"}},
      {"expand_4tb.onnx", {"Expand", "fp32[100000x100000x100]"}},
      {"tile_4tb.onnx", {"Tile", "fp32[1000000000000]"}},        // 2 elements * 5e11 repeats
      {"range_1e12.onnx", {"Range", "1000000000000 elements"}},  // 0..1e12 step 1
      {"resize_huge.onnx", {"Resize"}},                          // scale 1e12 on an axis of 4
      {"initializer_4tb.onnx", {"'w'", "100000x100000x100"}},    // dims claim 1e12 floats, data holds 1
  };
  for (const auto& c : cases) {
    std::vector<std::string> needles = c.needles;
    needles.push_back(c.file);
    expectBadInput(runTool("import " + kRegressions + c.file + " -o " + path("out.mlir")), needles, c.file);
    EXPECT_FALSE(exists("out.mlir")) << c.file;
  }
}

TEST_F(HostileInput, ImportValidatesTheGraphAtLevel8K) {
  // Expand of a run-time input: nothing is allocated at import, but the result (1e12 elements) exceeds
  // MAX_LOG2_SIZE (2^31 - 1 at level 8K), so the graph is refused before it is written.
  const std::string f = kRegressions + "expand_input_4tb.onnx";
  expectBadInput(runTool("import " + f + " -o " + path("out.mlir")),
                 {"expand_input_4tb.onnx", "level 8k", "MAX_LOG2_SIZE", "--level: ", "level none skips"}, "import");
  EXPECT_FALSE(exists("out.mlir"));
  auto r = runTool("import " + f + " --level none -o " + path("out.mlir"));
  EXPECT_EQ(r.exitCode, 0) << r.out;
  EXPECT_TRUE(exists("out.mlir"));
  auto bad = runTool("import " + f + " --level 16k -o " + path("bad.mlir"));
  EXPECT_EQ(bad.exitCode, 4) << bad.out;
  EXPECT_FALSE(exists("bad.mlir"));
}

// ---- SPIR-V: constants and the .spv.npz sidecar under the budget ----

TEST_F(HostileInput, SpirvConstantsAreCheckedAgainstTheBudget) {
  // A 512x512 float32 constant (1 MiB) converted to .spv; read back with a 64 KiB budget.
  write("big.mlir", R"(func.func @main(%x: tensor<512x512xf32> loc("x")) -> tensor<512x512xf32> {
  %c = "tosa.const"() <{values = dense<1.5> : tensor<512x512xf32>}> : () -> tensor<512x512xf32>
  %y = tosa.add %x, %c : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  return %y : tensor<512x512xf32>
}
)");
  auto c = runTool("convert " + path("big.mlir") + " " + path("big.spv"));
  ASSERT_EQ(c.exitCode, 0) << c.out;
  expectBadInput(runTool("validate --max-memory 64K " + path("big.spv")), {"big.spv", "--max-memory"}, "spv");
  expectBadInput(runTool("convert --max-memory 64K " + path("big.spv") + " " + path("back.mlir")),
                 {"big.spv", "--max-memory"}, "spv convert");
  EXPECT_FALSE(exists("back.mlir"));
  EXPECT_EQ(runTool("validate " + path("big.spv")).exitCode, 0);              // the default budget holds it
  EXPECT_EQ(runTool("dis --max-memory 64K " + path("big.spv")).exitCode, 0);  // text only: nothing allocated
}

TEST_F(HostileInput, SpirvConstantAndSidecarClaimingTerabytes) {
  // const_4tb.spv: a converted 4x5x7 graph constant whose OpTypeTensorARM shape constants were patched to
  // 100000x100000x100 (580 bytes); sidecar_4tb.spv: a well-formed graph whose .spv.npz member header claims
  // the same shape with no data. Both backends refuse before allocating.
  const std::vector<std::string> needles = {"const_4tb.spv", "fp32[100000x100000x100]", "4000000000000 bytes"};
  expectBadInput(runTool("validate " + kRegressions + "const_4tb.spv"), needles, "validate");
  for (const char* backend : {"ref", "fast"}) {
    expectBadInput(runTool("run " + kRegressions + "const_4tb.spv --backend " + backend +
                           " --input x=" + path("x.npy") + " -o " + path("out.npz")),
                   needles, backend);
  }
  expectBadInput(runTool("convert " + kRegressions + "const_4tb.spv " + path("out.mlir")), needles, "convert");
  expectBadInput(runTool("validate " + kRegressions + "sidecar_4tb.spv"),
                 {"sidecar_4tb.spv.npz", "member '0.npy'", "100000x100000x100"}, "sidecar");
  EXPECT_FALSE(exists("out.npz"));
  EXPECT_FALSE(exists("out.mlir"));
}

TEST_F(HostileInput, FastPlanArenaIsCheckedAsOneRequest) {
  // Three f32[100000] results (400000 bytes each, all live at the end whatever the plan fuses) fit a 1 MiB
  // budget one by one; the fast backend places them in one activation arena of at least 3 * 400000 = 1200000
  // bytes, which does not. The reference backend allocates per value, so it runs.
  write(
      "arena.mlir",
      R"(func.func @main(%x: tensor<100000xf32> loc("x")) -> (tensor<100000xf32>, tensor<100000xf32>, tensor<100000xf32>) {
  %a = tosa.abs %x : (tensor<100000xf32>) -> tensor<100000xf32>
  %b = tosa.floor %x : (tensor<100000xf32>) -> tensor<100000xf32>
  %c = tosa.add %a, %b : (tensor<100000xf32>, tensor<100000xf32>) -> tensor<100000xf32>
  return %a, %b, %c : tensor<100000xf32>, tensor<100000xf32>, tensor<100000xf32>
}
)");
  ASSERT_TRUE(tosakit::npy::writeNpy(
      path("x100k.npy"),
      tosakit::Tensor::fromDoubles(tosakit::DType::FP32, {100000}, std::vector<double>(100000, 0.5))));
  const std::string args =
      path("arena.mlir") + " --max-memory 1M --input x=" + path("x100k.npy") + " -o " + path("out.npz");
  expectBadInput(runTool("run --backend fast " + args), {"the fast backend's activation arena", "--max-memory"},
                 "fast");
  EXPECT_FALSE(exists("out.npz"));
  auto ref = runTool("run --backend ref " + args);
  EXPECT_EQ(ref.exitCode, 0) << ref.out;
}

// ---- whole-file reads: a file larger than the budget is refused before it is read ----

TEST_F(HostileInput, FileLargerThanTheBudgetIsNotRead) {
  // 2 GiB sparse files (no disk space, zeros): each reader checks the file's size before loading it whole, so a
  // 1 GiB budget refuses them at once instead of reading 2 GiB into memory.
  for (const char* big : {"big.mlir", "big.spv", "big.onnx", "big.npy"}) {
    std::ofstream(path(big)).put('\0');
    fs::resize_file(path(big), uintmax_t(2) << 30);
  }
  const std::vector<std::array<std::string, 3>> cases = {
      // verb, arguments, the file the message names
      {"validate", path("big.mlir"), "big.mlir"},
      {"validate", path("big.spv"), "big.spv"},
      {"dis", path("big.spv"), "big.spv"},
      {"import", path("big.onnx") + " -o " + path("o.mlir"), "big.onnx"},
      {"run", path("abs.mlir") + " --input x=" + path("big.npy") + " -o " + path("o.npz"), "big.npy"},
  };
  for (const auto& [verb, args, file] : cases) {
    expectBadInput(runTool(verb + " --max-memory 1G " + args),
                   {file, "2147483648 bytes (2.0 GiB)", "memory budget of 1.0 GiB", "--max-memory: "},
                   verb + " " + args);
  }
  EXPECT_FALSE(exists("o.mlir"));
  EXPECT_FALSE(exists("o.npz"));
}

// ---- fuzz findings (docs/FUZZING.md "Results"): the crashing input is kept in tests/fuzz/regressions ----

TEST_F(HostileInput, FuzzFindingFuncWithoutFunctionType) {
  // mlir_fuzz: generic-syntax func.func whose function_type attribute name is garbled. The MLIR verifier
  // rejects it, tosakit then loads the module unverified (as for conformance ERROR_IF graphs) and used to
  // dereference the missing attribute (SEGV). Now the func.func's own invariants are checked first.
  auto r = runTool("validate " + kRegressions + "mlir_func_without_function_type.mlir");
  expectBadInput(r, {"mlir_func_without_function_type.mlir:2:3", "func.func", "function_type"}, "validate");
}

TEST_F(HostileInput, FuzzFindingOnnxUndefinedGraphOutput) {
  // onnx_fuzz: an opset-13 model whose graph output names no value passes ONNX 1.12's checker, and its version
  // converter (run for opsets below 17) dereferenced the missing value (SEGV in onnx::graphProtoToGraph). Such
  // models are no longer converted; the importer names the undefined output.
  auto r = runTool("import " + kRegressions + "onnx_undefined_graph_output.onnx -o " + path("out.mlir"));
  expectBadInput(r, {"onnx_undefined_graph_output.onnx", "output '9'"}, "import");
  EXPECT_FALSE(exists("out.mlir"));
}

TEST_F(HostileInput, FuzzFindingOnnxInputNameNotUtf8) {
  // onnx_fuzz: an unused graph input named "va\xECue1" (not UTF-8) made the JSON list of unused inputs
  // (tosakit.onnx_unused_inputs) throw nlohmann::json::type_error out of the importer. Invalid bytes are now
  // replaced (U+FFFD) and the model imports.
  auto r = runTool("import " + kRegressions + "onnx_unused_input_not_utf8.onnx -o " + path("out.mlir"));
  EXPECT_EQ(r.exitCode, 0) << r.out;
  EXPECT_TRUE(exists("out.mlir"));
}

TEST_F(HostileInput, FuzzFindingOnnxScanWithEmptyInputName) {
  // onnx_fuzz: a Scan whose first input name is empty (an omitted optional input, which Scan-9+ does not
  // have) made the lowering read a value that does not exist: std::out_of_range escaped the importer.
  auto r = runTool("import " + kRegressions + "onnx_scan_empty_input.onnx -o " + path("out.mlir"));
  expectBadInput(r, {"onnx_scan_empty_input.onnx", "(Scan)", "missing or empty input name"}, "import");
  EXPECT_FALSE(exists("out.mlir"));
}

TEST_F(HostileInput, FuzzFindingOnnxPReluWithOneInput) {
  // onnx_fuzz: a PRelu with one input (IR version 1126, so ONNX 1.12's checker is skipped) made the lowering
  // read input 1 past the end of the node's input list (heap-buffer-overflow). Importer::val() now checks the
  // index. The mutated model has other faults too (a graph output that names no value is what is reported).
  auto r = runTool("import " + kRegressions + "onnx_prelu_one_input.onnx -o " + path("out.mlir"));
  expectBadInput(r, {"onnx_prelu_one_input.onnx"}, "import");
  EXPECT_FALSE(exists("out.mlir"));
}

TEST_F(HostileInput, FuzzFindingOnnxConvZeroStride) {
  // onnx_fuzz (found by the CI run's fuzz smoke): a Conv with strides [2, 0] passes ONNX 1.12's checker (it does
  // not read attribute values) and its shape inference divided by the zero stride: SIGFPE inside libonnx, the
  // process killed. strides/dilations/kernel_shape are now checked positive before any ONNX inference.
  auto r = runTool("import " + kRegressions + "onnx_conv_zero_stride.onnx -o " + path("out.mlir"));
  expectBadInput(r, {"onnx_conv_zero_stride.onnx", "(Conv)", "'strides' must be positive, got 0"}, "import");
  EXPECT_FALSE(exists("out.mlir"));
}

TEST_F(HostileInput, FuzzFindingOnnxShapeInferenceSegv) {
  // onnx_fuzz: an EyeLike whose value types are malformed passes ONNX 1.12's checker, and its shape inference
  // dereferenced a missing shape (SEGV in onnx::propagateShape; the CLI died with exit 139). tosakit no longer
  // runs ONNX's shape inference (the lowerings compute every shape); the input is reported unsupported.
  auto r = runTool("import " + kRegressions + "onnx_eyelike_bad_type.onnx -o " + path("out.mlir"));
  EXPECT_EQ(r.exitCode, 5) << r.out;
  EXPECT_NE(r.out.find("onnx_eyelike_bad_type.onnx: input 'x': only tensor inputs are supported"), std::string::npos)
      << r.out;
  EXPECT_FALSE(exists("out.mlir"));
}

// ---- an oversized request injected into each verb through --max-memory ----

// The verbs `tosakit --help` lists (so a new verb is caught by the per-verb tests below).
std::vector<std::string> registeredVerbs() {
  auto help = runTool("--help");
  std::vector<std::string> verbs;
  size_t at = help.out.find("Subcommands:");
  if (at == std::string::npos) return verbs;
  std::istringstream lines(help.out.substr(at));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line)) {  // "  run      Run a function ..."
    std::istringstream words(line);
    std::string verb;
    if (line.rfind("  ", 0) == 0 && words >> verb) verbs.push_back(verb);
  }
  return verbs;
}

TEST_F(HostileInput, EveryVerbReportsAnOversizedRequestAsBadInput) {
  // add.mlir's constant is 16 bytes (2x2 i32); an 8-byte budget makes it oversized wherever it is loaded.
  // addf.mlir is the float twin for the quantization verbs; every file any verb reads is larger than 8 bytes.
  ASSERT_EQ(runTool("convert " + path("add.mlir") + " " + path("add.spv")).exitCode, 0);
  write("addf.mlir", R"(func.func @main(%x: tensor<2x2xf32> loc("x")) -> tensor<2x2xf32> {
  %c = "tosa.const"() <{values = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %y = tosa.add %x, %c : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32> loc("y")
  return %y : tensor<2x2xf32>
}
)");
  fs::create_directories(path("data"));
  ASSERT_TRUE(tosakit::npy::writeNpy(path("data/s0.npy"),
                                     tosakit::Tensor::fromDoubles(tosakit::DType::FP32, {2, 2}, {0.5, -1, 2, -3})));
  ASSERT_TRUE(tosakit::npy::writeNpz(
      path("a.npz"), {{"y", tosakit::Tensor::fromDoubles(tosakit::DType::FP32, {2, 2}, {1, 2, 3, 4})}}));
  const std::string m = path("add.mlir"), mf = path("addf.mlir"), data = " --dataset " + path("data");
  // The calibration table qtable reads comes from calibrate itself (a run within the default budget).
  auto cal = runTool("calibrate " + mf + data + " --method minmax -o " + path("cali.txt"));
  ASSERT_EQ(cal.exitCode, 0) << cal.out;
  auto res = runTool("run " + m + " --input x=" + path("xi.npy") + " -o " + path("r.npz"));  // what check judges
  ASSERT_EQ(res.exitCode, 0) << res.out;
  struct VerbCase {
    std::string verb, args, file;  // `file`: the file the message names
    std::vector<std::string> outputs;
  };
  const std::string onnx = std::string(TOSAKIT_SOURCE_DIR) + "/tests/fuzz/corpus/onnx/fold_expand.onnx";
  // export-qdq: a float ONNX model and the calibration of its only input (its MaxPool keeps the input's scale).
  const std::string maxpool = std::string(TOSAKIT_SOURCE_DIR) + "/tests/fuzz/corpus/onnx/maxpool_2d_default.onnx";
  write("mp_cali.txt", "# tosakit calibration table\nx 3.0 -3.0 3.0\n");
  const std::vector<VerbCase> cases = {
      {"validate", m, m, {}},
      {"run", m + " --input x=" + path("xi.npy") + " -o " + path("o.npz"), m, {"o.npz"}},
      {"run", m + " --backend ref --input x=" + path("xi.npy") + " -o " + path("o.npz"), m, {"o.npz"}},
      {"run", m + " --backend fast --input x=" + path("xi.npy") + " -o " + path("o.npz"), m, {"o.npz"}},
      {"convert", m + " " + path("o.mlir"), m, {"o.mlir"}},
      {"convert", path("add.spv") + " " + path("o2.mlir"), "add.spv", {"o2.mlir"}},
      {"dis", path("add.spv"), "add.spv", {}},
      {"gen-data", "--model " + m + " -o " + path("o.npz"), m, {"o.npz"}},
      {"check", "--model " + m + " --result " + path("r.npz") + " --reference " + path("r.npz"), m, {}},
      {"import", onnx + " -o " + path("o.mlir"), "fold_expand.onnx", {"o.mlir"}},
      {"calibrate", mf + data + " --method minmax -o " + path("o.txt"), mf, {"o.txt"}},
      {"qtable", mf + data + " --calibration-table " + path("cali.txt") + " -o " + path("q.txt"), mf, {"q.txt"}},
      {"quantize",
       mf + " --quantize INT8 --calibration-table " + path("cali.txt") + " -o " + path("o.mlir"),
       mf,
       {"o.mlir"}},
      {"quantize", mf + " --quantize BF16 -o " + path("o.spv"), mf, {"o.spv", "o.spv.npz"}},
      {"compare", path("a.npz") + " " + path("a.npz"), "a.npz", {}},
      {"bench", mf + " --warmup 0 --iterations 1", mf, {}},
      {"bench", mf + " --backend ref --warmup 0 --iterations 1", mf, {}},
      {"info", m, m, {}},
      {"cut", m + " --inputs x --outputs out0 -o " + path("c.mlir"), m, {"c.mlir"}},
      {"graph", m + " -o " + path("g.svg"), m, {"g.svg"}},
      {"visual", mf + " " + mf + data + " -o " + path("v.html"), mf, {"v.html"}},
      {"export-qdq",
       maxpool + " --calibration-table " + path("mp_cali.txt") + " -o " + path("o.onnx"),
       "maxpool_2d_default.onnx",
       {"o.onnx"}},
  };
  std::set<std::string> covered = {"version"};  // reads no file: nothing to inject
  for (const auto& c : cases) {
    covered.insert(c.verb);
    // Within the default budget the command works, so the failure below is the budget's.
    auto ok = runTool(c.verb + " " + c.args);
    EXPECT_EQ(ok.exitCode, 0) << c.verb << " " << c.args << "\n" << ok.out;
    for (const auto& o : c.outputs) fs::remove(path(o));
    auto r = runTool(c.verb + " --max-memory 8 " + c.args);
    expectBadInput(r, {c.file, "bytes", "more than the memory budget of 8 bytes", "--max-memory: "},
                   c.verb + " " + c.args);
    for (const auto& o : c.outputs) EXPECT_FALSE(exists(o)) << c.verb << ": " << o;
  }
  const std::vector<std::string> verbs = registeredVerbs();
  EXPECT_EQ(verbs.size(), 18u);  // version validate run convert dis gen-data check import calibrate qtable
                                 // quantize compare bench info cut graph visual export-qdq: a new verb needs a
                                 // case here and below
  for (const auto& v : verbs) EXPECT_TRUE(covered.count(v)) << "verb '" << v << "' has no oversized case";
}

TEST_F(HostileInput, MaxMemoryValueIsValidated) {
  for (const char* bad : {"lots", "0", "-5", "12X", "1.5G"}) {
    auto r = runTool(std::string("validate --max-memory ") + bad + " " + path("add.mlir"));
    EXPECT_EQ(r.exitCode, 2) << bad << "\n" << r.out;
  }
  for (const char* good : {"1048576", "512K", "64M", "2G", "1T"}) {
    auto r = runTool(std::string("validate --max-memory ") + good + " " + path("add.mlir"));
    EXPECT_EQ(r.exitCode, 0) << good << "\n" << r.out;
  }
  auto help = runTool("run --help");
  EXPECT_NE(help.out.find("--max-memory"), std::string::npos) << help.out;
}

// ---- an allocation that fails anyway is an internal error, never an abort ----

TEST_F(HostileInput, AllocationFailureIsInternalErrorNotAnAbort) {
  // 1e9 float32 = 4 GB: within a 1 TiB budget, so tosakit tries; the address space is capped at 1.5 GB, so
  // operator new throws std::bad_alloc, which main() reports.
  write("four_gb.mlir", R"(func.func @main() -> tensor<1000000000xf32> {
  %0 = "tosa.const"() <{values = dense<1.0> : tensor<1000000000xf32>}> : () -> tensor<1000000000xf32>
  return %0 : tensor<1000000000xf32>
}
)");
  auto r = runShell("ulimit -v 1500000; exec " + std::string(TOSAKIT_TOOL) + " validate --max-memory 1T " +
                    path("four_gb.mlir"));
  EXPECT_EQ(r.exitCode, 6) << r.out;
  EXPECT_NE(r.out.find("tosakit: internal error: out of memory"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
}

TEST_F(HostileInput, EveryVerbTurnsAnAllocationFailureIntoInternalError) {
  // The same injection into every verb: a 1 TiB budget lets each request through, a 1.5 GB address space makes
  // the allocation fail. Model verbs load four_gb.mlir (a 4 GB constant); `run` also allocates a 4 GB tile
  // result in each backend (the fast plan's arena, the reference backend's allocateFor); compare and dis read a
  // 2 GiB file (sparse: no disk space); import and export-qdq fold a 4 TB ConstantOfShape. Each must exit 6
  // with one line, not abort, and leave no output file.
  write("four_gb.mlir", R"(func.func @main(%x: tensor<2x2xf32> loc("x")) -> tensor<1000000000xf32> {
  %0 = "tosa.const"() <{values = dense<1.0> : tensor<1000000000xf32>}> : () -> tensor<1000000000xf32>
  return %0 : tensor<1000000000xf32>
}
)");
  fs::create_directories(path("data"));
  ASSERT_TRUE(tosakit::npy::writeNpy(path("data/s0.npy"),
                                     tosakit::Tensor::fromDoubles(tosakit::DType::FP32, {2, 2}, {0.5, -1, 2, -3})));
  // A 4 GB result the backend allocates (the constant above fails while loading, before any backend runs).
  write("tile_4gb.mlir", R"(func.func @main(%x: tensor<1xf32> loc("x")) -> tensor<1000000000xf32> {
  %m = tosa.const_shape {values = dense<1000000000> : tensor<1xindex>} : () -> !tosa.shape<1>
  %y = tosa.tile %x, %m : (tensor<1xf32>, !tosa.shape<1>) -> tensor<1000000000xf32>
  return %y : tensor<1000000000xf32>
}
)");
  write("cali.txt", "# tosakit calibration table\nx 3.0 -3.0 3.0\n");
  for (const char* big : {"two_gb.npz", "two_gb.spv"}) {
    std::ofstream(path(big)).put('\0');
    fs::resize_file(path(big), uintmax_t(2) << 30);
  }
  const std::string m = path("four_gb.mlir"), data = " --dataset " + path("data");
  struct VerbCase {
    std::string verb, args;
    std::vector<std::string> outputs;
  };
  const std::vector<VerbCase> cases = {
      {"validate", m, {}},
      {"run", m + " --backend ref --input x=" + path("x.npy") + " -o " + path("o.npz"), {"o.npz"}},
      {"run", m + " --backend fast --input x=" + path("x.npy") + " -o " + path("o.npz"), {"o.npz"}},
      {"run",
       path("tile_4gb.mlir") + " --level none --backend ref --input x=" + path("x1.npy") + " -o " + path("o.npz"),
       {"o.npz"}},
      {"run",
       path("tile_4gb.mlir") + " --level none --backend fast --input x=" + path("x1.npy") + " -o " + path("o.npz"),
       {"o.npz"}},
      {"convert", m + " " + path("o.spv"), {"o.spv", "o.spv.npz"}},
      {"dis", path("two_gb.spv"), {}},
      {"gen-data", "--model " + m + " -o " + path("o.npz"), {"o.npz"}},
      {"check", "--model " + m + " --result " + path("x.npy") + " --reference " + path("x.npy"), {}},
      {"import", kRegressions + "constantofshape_4tb.onnx -o " + path("o.mlir"), {"o.mlir"}},
      {"calibrate", m + data + " --method minmax -o " + path("o.txt"), {"o.txt"}},
      {"qtable", m + data + " --calibration-table " + path("cali.txt") + " -o " + path("q.txt"), {"q.txt"}},
      {"quantize", m + " --quantize BF16 -o " + path("o.mlir"), {"o.mlir"}},
      {"compare", path("two_gb.npz") + " " + path("two_gb.npz"), {}},
      {"bench", m + " --warmup 0 --iterations 1", {}},
      {"info", m, {}},
      {"cut", m + " --outputs out0 -o " + path("c.mlir"), {"c.mlir"}},
      {"graph", m + " -o " + path("g.svg"), {"g.svg"}},
      {"visual", m + " " + m + data + " -o " + path("v.html"), {"v.html"}},
      {"export-qdq",
       kRegressions + "constantofshape_4tb.onnx --calibration-table " + path("cali.txt") + " -o " + path("o.onnx"),
       {"o.onnx"}},
  };
  std::set<std::string> covered = {"version"};  // reads no file, allocates nothing sized by input
  for (const auto& c : cases) {
    covered.insert(c.verb);
    const bool importsOnnx = c.verb == "import" || c.verb == "export-qdq";
    const std::string budget = importsOnnx ? " --max-memory 8T " : " --max-memory 1T ";
    auto r = runShell("ulimit -v 1500000; exec " + std::string(TOSAKIT_TOOL) + " " + c.verb + budget + c.args);
    const std::string what = c.verb + " " + c.args;
    EXPECT_EQ(r.exitCode, 6) << what << "\n" << r.out;
    EXPECT_NE(r.out.find("tosakit: internal error: out of memory (std::bad_alloc)"), std::string::npos) << what << "\n"
                                                                                                        << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << what << "\n" << r.out;
    for (const auto& o : c.outputs) EXPECT_FALSE(exists(o)) << what << ": " << o;
  }
  for (const auto& v : registeredVerbs()) EXPECT_TRUE(covered.count(v)) << "verb '" << v << "' has no injected failure";
}

}  // namespace
