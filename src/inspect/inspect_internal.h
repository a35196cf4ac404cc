// Helpers shared by info, cut and graph (src/inspect only).
#pragma once
#include <functional>
#include <string>

#include "core/status.h"
#include "ir/graph.h"
#include "tosakit/inspect.h"

namespace tosakit::inspect {

// Every op of the block, nested regions included, in block order (an op before its regions' ops).
void forEachOp(const ir::Block& block, const std::function<void(const ir::Operation&)>& visit);
bool isTerminator(const ir::Operation& op);  // func.return, tosa.yield
bool isConstant(const ir::Operation& op);    // tosa.const, tosa.const_shape
// The spec argument an operand carries ("input_zp", "weight", ...) from the op tables; empty if unknown.
std::string operandArgName(const ir::Operation& op, size_t operandIndex);

// The function laid out by Graphviz as SVG to inline in HTML (no XML prolog); nodes carry ids "op:NAME",
// "in:NAME", "out:NAME". Refuses more than options.maxLayoutNodes nodes.
Result<std::string> layoutInlineSvg(const ir::Module& module, const GraphOptions& options, const std::string& context);
// The HTML pages' shared viewer: style for #bar/#view, the search box, and the script defining `tkView`
// (pan, zoom, search; tkView.focus(g) zooms to a node).
std::string graphViewStyle();
std::string graphSearchBox();
std::string graphViewScript();

}  // namespace tosakit::inspect
