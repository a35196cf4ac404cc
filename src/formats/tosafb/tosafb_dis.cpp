// Readable dump of a .tosa file as the flatbuffer holds it (`tosakit dis model.tosa`): version, regions and
// blocks, tensors with type, shape and the first constant values, operators with their 1.0 attributes,
// inputs, outputs and locations, and tosakit's extension when present.
#include <fstream>
#include <sstream>

#include "core/size_budget.h"
#include "formats/tosafb/tosafb_internal.h"
#include "formats/tosafb/tosafb_io.h"

namespace tosakit::tosafb {

namespace {

constexpr int kShownValues = 8;

std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

std::string names(const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* v) {
  std::string out;
  if (!v) return out;
  for (auto* s : *v) out += (out.empty() ? "" : ", ") + str(s);
  return out;
}

std::string shapeText(const tosa::TosaTensor& t) {
  if (t.is_unranked()) return "*";
  std::string s;
  if (t.shape())
    for (int32_t d : *t.shape()) s += (s.empty() ? "" : "x") + (d < 0 ? std::string("?") : std::to_string(d));
  return s;
}

// First values of a constant, decoded when the data size matches the shape.
std::string valuesText(const tosa::TosaTensor& t) {
  if (!t.data()) return "";
  std::string head = " data " + std::to_string(t.data()->size()) + " B";
  DType dt;
  if (!dtypeToIr(t.type(), dt) || t.is_unranked()) return head;
  Shape dims;
  if (t.shape())
    for (int32_t d : *t.shape()) dims.push_back(d);
  auto n = checkedNumElements(dims);
  if (!n || packedBytes(t.type(), *n) != int64_t(t.data()->size())) return head + " (does not match the shape)";
  int64_t shown = std::min<int64_t>(*n, kShownValues);
  Tensor few(dt, {*n});
  if (!checkAllocation(dt, {*n}, "").isOk()) return head;
  if (!unpackInto(t.data()->data(), t.data()->size(), t.type(), few, "").isOk()) return head;
  std::ostringstream os;
  os << head << " [";
  for (int64_t i = 0; i < shown; ++i) {
    if (i) os << ", ";
    if (isFloat(dt))
      os << few.getFloat(i);
    else
      os << few.getInt(i);
  }
  os << (*n > shown ? ", ...]" : "]");
  return os.str();
}

void dumpBlock(const tosa::TosaBasicBlock& b, std::ostringstream& os) {
  os << "  block " << str(b.name()) << " (" << names(b.inputs()) << ") -> (" << names(b.outputs()) << ")\n";
  if (b.tensors())
    for (const tosa::TosaTensor* t : *b.tensors()) {
      os << "    tensor " << str(t->name()) << ": " << tosa::EnumNameDType(t->type()) << "[" << shapeText(*t) << "]";
      if (t->variable()) os << " variable " << str(t->variable_name());
      os << valuesText(*t) << "\n";
    }
  if (b.shapes())
    for (const tosa::TosaShape* s : *b.shapes()) os << "    shape " << str(s->name()) << ": rank " << s->rank() << "\n";
  if (!b.operators()) return;
  for (const tosa::TosaOperator* op : *b.operators()) {
    const char* name = isValidOp(uint32_t(op->op())) ? tosa::EnumNameOp(op->op()) : "UNKNOWN";
    os << "    " << names(op->outputs()) << " = " << name << "(" << names(op->inputs()) << ")";
    AttrFields f;
    if (fieldsFromFb(*op, f, "").isOk()) {
      std::string a = fieldsToText(op->op(), f);
      if (!a.empty()) os << " {" << a << "}";
    } else {
      os << " {attribute table of another operator}";
    }
    if (op->location() && op->location()->text()) os << "  // " << str(op->location()->text());
    os << "\n";
  }
}

}  // namespace

Result<std::string> disassembleTosaBytes(const uint8_t* data, size_t size, const std::string& file) {
  if (size < 8 || !flatbuffers::BufferHasIdentifier(data, tosa::TosaGraphIdentifier()))
    return Status::parse(file + ": not a TOSA flatbuffer (no \"TOSA\" file identifier at bytes 4-7)");
  flatbuffers::Verifier verifier(data, size, 64, size / 4 + 1024);
  if (!tosa::VerifyTosaGraphBuffer(verifier))
    return Status::parse(file + ": malformed TOSA flatbuffer (an offset, vector or string is out of range)");
  const tosa::TosaGraph* g = tosa::GetTosaGraph(data);
  std::ostringstream os;
  const tosa::Version* v = g->version();
  os << "; TOSA flatbuffer, schema version " << v->_major() << "." << v->_minor() << "." << v->_patch()
     << (v->_draft() ? " (draft)" : "") << ", " << size << " bytes\n";
  if (const tosa::TosakitModule* e = g->tosakit())
    os << "; written by tosakit (extension " << e->format_version() << ", functions: " << names(e->functions())
       << ")\n";
  if (g->regions())
    for (const tosa::TosaRegion* r : *g->regions()) {
      os << "region " << str(r->name()) << "\n";
      if (r->blocks())
        for (const tosa::TosaBasicBlock* b : *r->blocks()) dumpBlock(*b, os);
    }
  return os.str();
}

Result<std::string> disassembleTosa(const std::string& path) {
  TK_RETURN_IF_ERROR(checkFileSize(path));
  std::ifstream is(path, std::ios::binary);
  if (!is) return Status::io(path + ": cannot open file");
  std::ostringstream ss;
  ss << is.rdbuf();
  std::string bytes = ss.str();
  return disassembleTosaBytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), path);
}

}  // namespace tosakit::tosafb
