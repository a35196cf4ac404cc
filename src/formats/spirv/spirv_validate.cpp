// Structural validation of a SPIR-V graph module: header, word counts, operand counts, id definitions and
// uses, graph structure (SPV_ARM_graph validation rules). Semantic checks (types per the TOSA tables) are
// done by the reader while it builds the IR.
#include <map>
#include <set>

#include "formats/spirv/spirv_defs.h"
#include "formats/spirv/spirv_internal.h"
#include "formats/spirv/spirv_io.h"

namespace tosakit::spirv {

namespace {

// Operand layout of an opcode: whether operand 0 is a result type, where the result id is, min/max operand
// counts, and which operands are ids (`idFrom`..end, or listed).
struct Layout {
  uint32_t opcode;
  const char* name;
  int resultType;        // operand index of the result type id, -1 none
  int result;            // operand index of the result id, -1 none
  int minOps, maxOps;    // maxOps -1 = unbounded
  std::vector<int> ids;  // operand indices that are ids used (must be defined before, unless forward)
  int idsFrom;           // all operands from this index are ids (-1 none)
  bool forward;          // ids may be defined later (names, decorations, entry points)
};

const std::vector<Layout>& layouts() {
  static const std::vector<Layout> t = {
      {OpNop, "OpNop", -1, -1, 0, 0, {}, -1, false},
      {OpName, "OpName", -1, -1, 2, -1, {0}, -1, true},
      {OpString, "OpString", -1, 0, 2, -1, {}, -1, false},
      {OpLine, "OpLine", -1, -1, 3, 3, {0}, -1, false},
      {OpNoLine, "OpNoLine", -1, -1, 0, 0, {}, -1, false},
      {OpExtension, "OpExtension", -1, -1, 1, -1, {}, -1, false},
      {OpExtInstImport, "OpExtInstImport", -1, 0, 2, -1, {}, -1, false},
      {OpExtInst, "OpExtInst", 0, 1, 4, -1, {2}, 4, false},
      {OpMemoryModel, "OpMemoryModel", -1, -1, 2, 2, {}, -1, false},
      {OpCapability, "OpCapability", -1, -1, 1, 1, {}, -1, false},
      {OpTypeBool, "OpTypeBool", -1, 0, 1, 1, {}, -1, false},
      {OpTypeInt, "OpTypeInt", -1, 0, 3, 3, {}, -1, false},
      {OpTypeFloat, "OpTypeFloat", -1, 0, 2, 3, {}, -1, false},
      {OpTypeArray, "OpTypeArray", -1, 0, 3, 3, {1, 2}, -1, false},
      {OpTypeStruct, "OpTypeStruct", -1, 0, 1, -1, {}, 1, false},
      {OpTypePointer, "OpTypePointer", -1, 0, 3, 3, {2}, -1, false},
      {OpConstantTrue, "OpConstantTrue", 0, 1, 2, 2, {}, -1, false},
      {OpConstantFalse, "OpConstantFalse", 0, 1, 2, 2, {}, -1, false},
      {OpConstant, "OpConstant", 0, 1, 3, 4, {}, -1, false},
      {OpConstantComposite, "OpConstantComposite", 0, 1, 2, -1, {}, 2, false},
      {OpConstantNull, "OpConstantNull", 0, 1, 2, 2, {}, -1, false},
      {OpVariable, "OpVariable", 0, 1, 3, 4, {}, -1, false},
      {OpDecorate, "OpDecorate", -1, -1, 2, -1, {0}, -1, true},
      {OpDecorateString, "OpDecorateString", -1, -1, 3, -1, {0}, -1, true},
      {OpCompositeExtract, "OpCompositeExtract", 0, 1, 4, -1, {2}, -1, false},
      {OpModuleProcessed, "OpModuleProcessed", -1, -1, 1, -1, {}, -1, false},
      {OpSource, "OpSource", -1, -1, 2, -1, {}, -1, false},
      {OpSourceExtension, "OpSourceExtension", -1, -1, 1, -1, {}, -1, false},
      {OpTypeTensorARM, "OpTypeTensorARM", -1, 0, 2, 4, {}, 1, false},
      {OpGraphConstantARM, "OpGraphConstantARM", 0, 1, 3, 3, {}, -1, false},
      {OpGraphEntryPointARM, "OpGraphEntryPointARM", -1, -1, 2, -1, {0}, -1, true},
      {OpGraphARM, "OpGraphARM", 0, 1, 2, 2, {}, -1, false},
      {OpGraphInputARM, "OpGraphInputARM", 0, 1, 3, 4, {}, 2, false},
      {OpGraphSetOutputARM, "OpGraphSetOutputARM", -1, -1, 2, 3, {}, 0, false},
      {OpGraphEndARM, "OpGraphEndARM", -1, -1, 0, 0, {}, -1, false},
      {OpTypeGraphARM, "OpTypeGraphARM", -1, 0, 3, -1, {}, 2, false},
      {OpConstantCompositeReplicateEXT, "OpConstantCompositeReplicateEXT", 0, 1, 3, 3, {}, 2, false},
  };
  return t;
}

const Layout* layoutOf(uint32_t opcode) {
  for (const auto& l : layouts())
    if (l.opcode == opcode) return &l;
  return nullptr;
}

}  // namespace

const char* opcodeName(uint32_t opcode) {
  const Layout* l = layoutOf(opcode);
  return l ? l->name : "Op?";
}

bool literalString(const Instr& in, size_t first, std::string& out, size_t* next) {
  out.clear();
  for (size_t i = first; i < in.ops.size(); ++i) {
    for (int k = 0; k < 4; ++k) {
      char c = char((in.ops[i] >> (8 * k)) & 0xff);
      if (c == 0) {
        if (next) *next = i + 1;
        return true;
      }
      out += c;
    }
  }
  return false;
}

Result<std::vector<Instr>> splitInstructions(const uint32_t* words, size_t count, const std::string& file) {
  auto err = [&](size_t w, const std::string& why) {
    return Status::parse(file + ": word " + std::to_string(w) + ": " + why);
  };
  if (count < 5) return err(0, "too short for a SPIR-V header (" + std::to_string(count) + " words)");
  if (words[0] != kMagic) return err(0, "bad magic number");
  uint32_t version = words[1];
  if ((version & 0xff0000ff) != 0 || version > kVersion16 || version < 0x00010000)
    return err(1, "unsupported SPIR-V version");
  if (words[3] == 0 || words[3] > (1u << 22)) return err(3, "bad id bound " + std::to_string(words[3]));
  if (words[4] != 0) return err(4, "reserved schema word is not 0");
  std::vector<Instr> out;
  size_t i = 5;
  while (i < count) {
    uint32_t wc = words[i] >> 16;
    if (wc == 0) return err(i, "instruction word count 0");
    if (i + wc > count) return err(i, "instruction runs past the end of the file");
    Instr in;
    in.opcode = words[i] & 0xffff;
    in.offset = i;
    in.ops.assign(words + i + 1, words + i + wc);
    out.push_back(std::move(in));
    i += wc;
  }
  return out;
}

Status validateSpirv(const uint32_t* words, size_t count, const std::string& file) {
  auto split = splitInstructions(words, count, file);
  if (!split) return split.status();
  const std::vector<Instr>& instrs = *split;
  uint32_t bound = words[3];
  auto err = [&](const Instr& in, const std::string& why) {
    return Status::parse(file + ": word " + std::to_string(in.offset) + ": " + opcodeName(in.opcode) + ": " + why);
  };
  std::vector<uint8_t> defined(bound, 0);
  std::map<uint32_t, uint32_t> defOpcode;
  // Forward references are checked at the end.
  std::vector<std::pair<const Instr*, uint32_t>> forwardUses;
  std::set<std::string> entryNames;
  bool inGraph = false;
  bool inputsAllowed = false;
  bool sawOutput = false;
  std::set<uint32_t> inputIdx, outputIdx;
  for (const Instr& in : instrs) {
    const Layout* l = layoutOf(in.opcode);
    if (!l) return err(in, "unsupported opcode " + std::to_string(in.opcode));
    int n = int(in.ops.size());
    if (n < l->minOps || (l->maxOps >= 0 && n > l->maxOps)) return err(in, "wrong operand count " + std::to_string(n));
    auto use = [&](uint32_t id, bool forward) -> Status {
      if (id == 0 || id >= bound)
        return err(in, "id " + std::to_string(id) + " out of range (bound " + std::to_string(bound) + ")");
      if (forward) {
        forwardUses.emplace_back(&in, id);
        return Status::ok();
      }
      if (!defined[id]) return err(in, "id %" + std::to_string(id) + " used before its definition");
      return Status::ok();
    };
    if (l->resultType >= 0)
      if (Status s = use(in.ops[size_t(l->resultType)], false); !s) return s;
    for (int k : l->ids)
      if (Status s = use(in.ops[size_t(k)], l->forward); !s) return s;
    if (l->idsFrom >= 0)
      for (size_t k = size_t(l->idsFrom); k < in.ops.size(); ++k)
        if (Status s = use(in.ops[k], l->forward); !s) return s;
    if (in.opcode == OpGraphEntryPointARM) {
      std::string name;
      size_t next = 0;
      if (!literalString(in, 1, name, &next)) return err(in, "unterminated name");
      if (!entryNames.insert(name).second) return err(in, "duplicate entry point name '" + name + "'");
      for (size_t k = next; k < in.ops.size(); ++k)
        if (Status s = use(in.ops[k], true); !s) return s;
    }
    if (in.opcode == OpName || in.opcode == OpString || in.opcode == OpExtension || in.opcode == OpExtInstImport ||
        in.opcode == OpModuleProcessed) {
      std::string s;
      size_t first = (in.opcode == OpExtension || in.opcode == OpModuleProcessed) ? 0 : 1;
      if (!literalString(in, first, s)) return err(in, "unterminated string");
    }
    if (l->result >= 0) {
      uint32_t id = in.ops[size_t(l->result)];
      if (id == 0 || id >= bound)
        return err(in, "result id " + std::to_string(id) + " out of range (bound " + std::to_string(bound) + ")");
      if (defined[id]) return err(in, "id %" + std::to_string(id) + " defined twice");
      defined[id] = 1;
      defOpcode[id] = in.opcode;
    }
    // Graph structure.
    switch (in.opcode) {
      case OpGraphARM:
        if (inGraph) return err(in, "graph inside a graph");
        inGraph = true;
        inputsAllowed = true;
        sawOutput = false;
        inputIdx.clear();
        outputIdx.clear();
        break;
      case OpGraphInputARM:
        if (!inGraph || !inputsAllowed) return err(in, "must immediately follow OpGraphARM or OpGraphInputARM");
        if (!inputIdx.insert(in.ops[2]).second) return err(in, "duplicate input index");
        break;
      case OpGraphSetOutputARM:
        if (!inGraph) return err(in, "outside a graph");
        sawOutput = true;
        if (!outputIdx.insert(in.ops[1]).second) return err(in, "duplicate output index");
        inputsAllowed = false;
        break;
      case OpGraphEndARM:
        if (!inGraph) return err(in, "outside a graph");
        if (!sawOutput) return err(in, "graph has no OpGraphSetOutputARM");
        inGraph = false;
        break;
      case OpExtInst:
      case OpCompositeExtract:
        if (!inGraph) return err(in, "outside a graph");
        if (sawOutput) return err(in, "after OpGraphSetOutputARM (outputs must end the graph)");
        inputsAllowed = false;
        break;
      case OpLine:
      case OpNoLine:
      case OpNop: break;
      default:
        if (inGraph) return err(in, "not allowed inside a graph");
    }
    if (in.opcode == OpLine && defOpcode[in.ops[0]] != OpString) return err(in, "file operand is not an OpString");
  }
  if (inGraph) return Status::parse(file + ": word " + std::to_string(count) + ": graph without OpGraphEndARM");
  for (auto& [in, id] : forwardUses)
    if (!defined[id]) return err(*in, "id %" + std::to_string(id) + " is never defined");
  if (entryNames.empty()) return Status::parse(file + ": word 5: no OpGraphEntryPointARM");
  return Status::ok();
}

Result<std::vector<uint32_t>> wordsFromBytes(const std::string& bytes, const std::string& file) {
  if (bytes.size() % 4 != 0)
    return Status::parse(file + ": word " + std::to_string(bytes.size() / 4) + ": size " +
                         std::to_string(bytes.size()) + " is not a multiple of 4");
  std::vector<uint32_t> w(bytes.size() / 4);
  for (size_t i = 0; i < w.size(); ++i)
    for (int k = 0; k < 4; ++k) w[i] |= uint32_t(uint8_t(bytes[i * 4 + size_t(k)])) << (8 * k);
  if (!w.empty() && w[0] == 0x03022307) {
    for (uint32_t& x : w) x = (x >> 24) | ((x >> 8) & 0xff00) | ((x << 8) & 0xff0000) | (x << 24);
  }
  return w;
}

}  // namespace tosakit::spirv
