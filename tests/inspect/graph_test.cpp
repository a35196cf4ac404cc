// tosakit graph on models/default/model.mlir (3 arguments, 5 non-constant ops, 2 results; counted by hand
// from the model text) and on tests/data/mlir/control_flow.mlir (regions as clusters).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "../cli/cli_test_util.h"
#include "tosakit/inspect.h"

namespace fs = std::filesystem;

namespace tosakit {
namespace {

const std::string kSource = TOSAKIT_SOURCE_DIR;
const std::string kModel = kSource + "/models/default/model.mlir";

int countMatches(const std::string& text, const std::string& pattern) {
  std::regex re(pattern);
  return int(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

std::string dotOf(const std::string& path, GraphOptions opts = {}) {
  auto module = loadInspectableModel(path);
  EXPECT_TRUE(module) << module.status().toString();
  auto dot = graphDot(**module, opts);
  EXPECT_TRUE(dot) << dot.status().toString();
  return *dot;
}

TEST(Graph, NodesAndEdgesOfTheDefaultModel) {
  const std::string dot = dotOf(kModel);
  // Nodes: x, xf, y; conv2d, rescale, clamp, conv2d, add; out0, out1. Constants are folded, not nodes.
  EXPECT_EQ(countMatches(dot, R"(\n\s*n\d+ \[label=)"), 10) << dot;
  // Edges: x->conv, conv->rescale, rescale->clamp, xf->conv, conv->add, y->add, clamp->out0, add->out1.
  EXPECT_EQ(countMatches(dot, R"(n\d+ -> n\d+)"), 8) << dot;
  // The int8 conv shows its folded weight (spec argument name and type) and the rescale its multiplier.
  EXPECT_NE(dot.find("weight: tensor<3x3x3x2xi8>"), std::string::npos);
  EXPECT_NE(dot.find("multiplier: tensor<1xi32>"), std::string::npos);
  EXPECT_NE(dot.find("rankdir=TB"), std::string::npos);
}

TEST(Graph, CollapsedConstantsAreOneLinePerOp) {
  GraphOptions opts;
  opts.collapseConstants = true;
  const std::string dot = dotOf(kModel, opts);
  EXPECT_EQ(dot.find("weight: tensor<3x3x3x2xi8>"), std::string::npos);
  // The int8 conv: weight 54 + bias 3 + two zero points.
  EXPECT_NE(dot.find("4 constants, 59 elements"), std::string::npos) << dot;
}

TEST(Graph, RegionsAreClusters) {
  GraphOptions opts;
  opts.function = "count_down";
  const std::string dot = dotOf(kSource + "/tests/data/mlir/control_flow.mlir", opts);
  EXPECT_EQ(countMatches(dot, "subgraph cluster_"), 2) << dot;
  EXPECT_NE(dot.find(": cond\""), std::string::npos);
  EXPECT_NE(dot.find(": body\""), std::string::npos);
}

TEST(Graph, SvgAndHtmlAreWritten) {
  const fs::path dir = fs::path(TOSAKIT_BINARY_DIR) / "inspect-tests" / "graph";
  fs::create_directories(dir);
  for (const std::string ext : {".svg", ".html", ".dot"}) {
    const std::string out = (dir / ("default" + ext)).string();
    fs::remove(out);
    auto r = testing::runTool("graph " + kModel + " -o " + out);
    ASSERT_EQ(r.exitCode, 0) << r.out;
    std::ifstream in(out);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (ext == ".dot") continue;
    // Graphviz wraps every node in <g id="..." class="node">.
    EXPECT_EQ(countMatches(text, R"(class="node")"), 10) << ext;
    EXPECT_EQ(countMatches(text, R"(class="edge")"), 8) << ext;
    if (ext == ".html") {
      EXPECT_EQ(text.find("http://www.w3.org/Graphics/SVG/1.1/DTD"), std::string::npos) << "no doctype inside html";
      EXPECT_EQ(countMatches(text, R"(src=|href="http)"), 0) << "self-contained";
    }
  }
}

TEST(Graph, BadRequestsAreOneLineErrorsWithoutOutput) {
  const fs::path dir = fs::path(TOSAKIT_BINARY_DIR) / "inspect-tests" / "graph";
  fs::create_directories(dir);
  auto r = testing::runTool("graph " + kModel + " -o " + (dir / "g.png").string());
  EXPECT_EQ(r.exitCode, 4) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_FALSE(fs::exists(dir / "g.png"));
  r = testing::runTool("graph " + kModel + " --function nope -o " + (dir / "nope.svg").string());
  EXPECT_EQ(r.exitCode, 4) << r.out;
  EXPECT_FALSE(fs::exists(dir / "nope.svg"));
  // A graph beyond the layout limit is refused before Graphviz runs.
  auto module = loadInspectableModel(kModel);
  ASSERT_TRUE(module);
  GraphOptions opts;
  opts.maxLayoutNodes = 5;
  Status s = writeGraph(**module, (dir / "big.svg").string(), opts);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("10 graph nodes"), std::string::npos) << s.toString();
  EXPECT_FALSE(fs::exists(dir / "big.svg"));
}

}  // namespace
}  // namespace tosakit
