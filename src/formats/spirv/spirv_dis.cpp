// spirv-dis-like text: "%id = OpName operands", with TOSA.001000.1 instruction names for OpExtInst.
#include <fstream>
#include <sstream>

#include "core/size_budget.h"
#include "formats/spirv/spirv_defs.h"
#include "formats/spirv/spirv_internal.h"
#include "formats/spirv/spirv_io.h"
#include "formats/spirv/spirv_tosa_table.h"

namespace tosakit::spirv {

namespace {
bool hasTypeAndResult(uint32_t op) {
  switch (op) {
    case OpExtInst:
    case OpConstantTrue:
    case OpConstantFalse:
    case OpConstant:
    case OpConstantComposite:
    case OpConstantNull:
    case OpVariable:
    case OpCompositeExtract:
    case OpGraphConstantARM:
    case OpGraphARM:
    case OpGraphInputARM:
    case OpConstantCompositeReplicateEXT: return true;
    default: return false;
  }
}
bool hasResultOnly(uint32_t op) {
  switch (op) {
    case OpString:
    case OpExtInstImport:
    case OpTypeBool:
    case OpTypeInt:
    case OpTypeFloat:
    case OpTypeArray:
    case OpTypeStruct:
    case OpTypePointer:
    case OpTypeTensorARM:
    case OpTypeGraphARM: return true;
    default: return false;
  }
}
bool hasString(uint32_t op, size_t& at) {
  switch (op) {
    case OpExtension:
    case OpModuleProcessed: at = 0; return true;
    case OpName:
    case OpString:
    case OpExtInstImport:
    case OpGraphEntryPointARM: at = 1; return true;
    case OpDecorateString: at = 2; return true;
    default: return false;
  }
}
}  // namespace

std::string disassembleWords(const uint32_t* words, size_t count) {
  std::ostringstream os;
  auto split = splitInstructions(words, count, "<binary>");
  if (!split) return "; " + split.status().message() + "\n";
  os << "; SPIR-V version " << ((words[1] >> 16) & 0xff) << "." << ((words[1] >> 8) & 0xff) << ", bound " << words[3]
     << "\n";
  for (const Instr& in : *split) {
    size_t k = 0;
    std::ostringstream line;
    if (hasTypeAndResult(in.opcode) && in.ops.size() >= 2) {
      line << "%" << in.ops[1] << " = " << opcodeName(in.opcode) << " %" << in.ops[0];
      k = 2;
    } else if (hasResultOnly(in.opcode) && !in.ops.empty()) {
      line << "%" << in.ops[0] << " = " << opcodeName(in.opcode);
      k = 1;
    } else {
      line << opcodeName(in.opcode);
      if (std::string(opcodeName(in.opcode)) == "Op?") line << in.opcode;
    }
    if (in.opcode == OpExtInst && in.ops.size() >= 4) {
      const SpvInstrDesc* d = instrByNumber(in.ops[3]);
      line << " %" << in.ops[2] << " " << (d ? d->specName : ("<" + std::to_string(in.ops[3]) + ">"));
      k = 4;
      for (; k < in.ops.size(); ++k) {
        std::string n = d && k - 4 < d->operands.size() ? d->operands[k - 4].name
                                                        : (d && !d->operands.empty() ? d->operands.back().name : "");
        line << " " << n << "=%" << in.ops[k];
      }
    }
    size_t strAt = 0;
    bool str = hasString(in.opcode, strAt);
    for (; k < in.ops.size(); ++k) {
      if (str && k == strAt) {
        std::string s;
        size_t next = in.ops.size();
        literalString(in, k, s, &next);
        line << " \"" << s << "\"";
        k = next - 1;
        continue;
      }
      bool isId = !(in.opcode == OpTypeInt || in.opcode == OpTypeFloat || in.opcode == OpConstant ||
                    in.opcode == OpCapability || in.opcode == OpMemoryModel || in.opcode == OpGraphConstantARM ||
                    (in.opcode == OpLine && k > 0) || (in.opcode == OpTypeGraphARM && k == 1) ||
                    (in.opcode == OpTypePointer && k == 1) || (in.opcode == OpVariable && k == 2) ||
                    (in.opcode == OpDecorateString && k == 1) || (in.opcode == OpCompositeExtract && k >= 3));
      line << (isId ? " %" : " ") << in.ops[k];
    }
    os << line.str() << "\n";
  }
  return os.str();
}

Result<std::string> disassemble(const std::string& path) {
  TK_RETURN_IF_ERROR(checkFileSize(path));
  std::ifstream is(path, std::ios::binary);
  if (!is) return Status::io(path + ": cannot open");
  std::ostringstream ss;
  ss << is.rdbuf();
  auto words = wordsFromBytes(ss.str(), path);
  if (!words) return words.status();
  if (Status s = validateSpirv(words->data(), words->size(), path); !s) return s;
  return disassembleWords(words->data(), words->size());
}

}  // namespace tosakit::spirv
