// ONNX lowerings: sequences. TOSA has no sequence type, so a sequence lives only at import: an OVal holding
// its element OVals (each a constant or a TOSA value). Positions must be constants (the backend runner binds
// them), so every SequenceAt/Insert/Erase resolves while importing and ConcatFromSequence/SplitToSequence
// become ordinary Concat/Split lowerings. A sequence reaching a graph output or a run-time position is
// Unsupported.
#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

using Elements = std::vector<OVal>;

void setSequence(Importer& im, const NodeProto& n, Elements elems, DType dtype) {
  OVal v;
  v.dtype = dtype;
  v.seq = std::make_shared<const Elements>(std::move(elems));
  im.setOut(n, 0, std::move(v));
}

Result<const Elements*> sequenceInput(Importer& im, const NodeProto& n, int i) {
  const OVal& v = im.val(n, i);
  if (!v.isSequence()) return Status::invalid("input '" + n.input(i) + "' is not a sequence");
  return v.seq.get();
}

// A position operand: a constant scalar in [-len, len] (`len` allowed when `insert`), normalized.
Result<int64_t> positionInput(Importer& im, const NodeProto& n, int i, int64_t len, bool insert) {
  auto p = im.constInput(n, i, "position");
  if (!p) return p.status();
  if ((*p)->size() != 1) return Status::invalid("position must be a scalar");
  const int64_t raw = (*p)->getInt(0);
  const int64_t pos = raw < 0 ? raw + len : raw;
  if (pos < 0 || pos > len || (!insert && pos == len))
    return Status::invalid("position " + std::to_string(raw) + " is out of range for a sequence of length " +
                           std::to_string(len));
  return pos;
}

Status opSequenceEmpty(Importer& im, const NodeProto& n) {
  auto dt = dtypeFromOnnx(int32_t(im.attrInt(n, "dtype", 1 /*FLOAT*/)), "SequenceEmpty dtype");
  if (!dt) return dt.status();
  setSequence(im, n, {}, *dt);
  return Status::ok();
}

Status opSequenceConstruct(Importer& im, const NodeProto& n) {
  Elements elems;
  for (int i = 0; i < n.input_size(); ++i) {
    const OVal& v = im.val(n, i);
    if (v.isSequence()) return Status::invalid("SequenceConstruct input '" + n.input(i) + "' is a sequence");
    if (v.dtype != im.val(n, 0).dtype) return Status::invalid("SequenceConstruct inputs differ in element type");
    elems.push_back(v);
  }
  setSequence(im, n, std::move(elems), im.val(n, 0).dtype);
  return Status::ok();
}

Status opSequenceInsert(Importer& im, const NodeProto& n) {
  auto s = sequenceInput(im, n, 0);
  if (!s) return s.status();
  Elements elems = **s;
  const OVal& t = im.val(n, 1);
  if (t.isSequence()) return Status::invalid("SequenceInsert tensor '" + n.input(1) + "' is a sequence");
  int64_t pos = int64_t(elems.size());
  if (im.hasInput(n, 2)) {
    auto p = positionInput(im, n, 2, int64_t(elems.size()), /*insert=*/true);
    if (!p) return p.status();
    pos = *p;
  }
  elems.insert(elems.begin() + pos, t);
  setSequence(im, n, std::move(elems), t.dtype);
  return Status::ok();
}

Status opSequenceErase(Importer& im, const NodeProto& n) {
  auto s = sequenceInput(im, n, 0);
  if (!s) return s.status();
  Elements elems = **s;
  if (elems.empty()) return Status::invalid("SequenceErase of an empty sequence");
  int64_t pos = int64_t(elems.size()) - 1;
  if (im.hasInput(n, 1)) {
    auto p = positionInput(im, n, 1, int64_t(elems.size()), /*insert=*/false);
    if (!p) return p.status();
    pos = *p;
  }
  elems.erase(elems.begin() + pos);
  setSequence(im, n, std::move(elems), im.val(n, 0).dtype);
  return Status::ok();
}

Status opSequenceAt(Importer& im, const NodeProto& n) {
  auto s = sequenceInput(im, n, 0);
  if (!s) return s.status();
  auto p = positionInput(im, n, 1, int64_t((*s)->size()), /*insert=*/false);
  if (!p) return p.status();
  im.setOut(n, 0, (**s)[size_t(*p)]);
  return Status::ok();
}

Status opSequenceLength(Importer& im, const NodeProto& n) {
  auto s = sequenceInput(im, n, 0);
  if (!s) return s.status();
  im.setConst(n, 0, Tensor::fromInts(DType::I64, {}, {int64_t((*s)->size())}));
  return Status::ok();
}

// Binds each element to a fresh value name (for a synthetic node reading them).
std::vector<std::string> bindElements(Importer& im, const NodeProto& n, const Elements& elems) {
  std::vector<std::string> names;
  for (size_t k = 0; k < elems.size(); ++k) {
    names.push_back(n.output(0) + "#element" + std::to_string(k));
    im.vals[names.back()] = elems[k];
  }
  return names;
}

// out = Reshape(in, shape) through the Reshape lowering (opset-independent, unlike Squeeze/Unsqueeze).
Status reshapeElement(Importer& im, const std::string& in, const Shape& shape, const std::string& out) {
  OVal sv;
  sv.shape = {int64_t(shape.size())};
  sv.dtype = DType::I64;
  sv.c = std::make_shared<const Tensor>(Tensor::fromInts(DType::I64, sv.shape, shape));
  im.vals[out + "#shape"] = std::move(sv);
  NodeProto r;
  r.set_op_type("Reshape");
  r.add_input(in);
  r.add_input(out + "#shape");
  r.add_output(out);
  return im.lowerSynthetic(r);
}

// ConcatFromSequence: Concat of the elements along axis; new_axis = 1 stacks them (Unsqueeze first).
Status opConcatFromSequence(Importer& im, const NodeProto& n) {
  auto s = sequenceInput(im, n, 0);
  if (!s) return s.status();
  if ((*s)->empty()) return Status::invalid("ConcatFromSequence of an empty sequence");
  const bool newAxis = im.attrInt(n, "new_axis", 0) != 0;
  const int64_t rank = int64_t((*s)->front().shape.size()) + (newAxis ? 1 : 0);
  const int64_t axis = normAxis(im.attrInt(n, "axis", 0), rank);
  if (axis < 0 || axis >= rank) return Status::invalid("ConcatFromSequence axis out of range");
  const std::vector<std::string> names = bindElements(im, n, **s);
  NodeProto concat;
  concat.set_op_type("Concat");
  concat.set_name(n.name());
  for (const auto& name : names) {
    if (!newAxis) {
      concat.add_input(name);
      continue;
    }
    Shape shape = im.vals.at(name).shape;  // with a 1 at `axis`
    shape.insert(shape.begin() + axis, 1);
    TK_RETURN_IF_ERROR(reshapeElement(im, name, shape, name + "#stacked"));
    concat.add_input(name + "#stacked");
  }
  concat.add_output(n.output(0));
  auto* a = concat.add_attribute();
  a->set_name("axis");
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(axis);
  return im.lowerSynthetic(concat);
}

// SplitToSequence: a Split whose outputs form the sequence. Without `split`, parts of size 1; keepdims = 0
// then removes the split axis from each part.
Status opSplitToSequence(Importer& im, const NodeProto& n) {
  const OVal& x = im.val(n, 0);
  const int64_t rank = int64_t(x.shape.size());
  const int64_t axis = normAxis(im.attrInt(n, "axis", 0), rank);
  if (axis < 0 || axis >= rank) return Status::invalid("SplitToSequence axis out of range");
  const int64_t dim = x.shape[size_t(axis)];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (im.hasInput(n, 1)) {
    auto sp = im.constInput(n, 1, "split");
    if (!sp) return sp.status();
    if ((*sp)->rank() == 0) {  // a scalar: equal chunks, the last may be smaller
      const int64_t each = (*sp)->getInt(0);
      if (each <= 0) return Status::invalid("split size " + std::to_string(each) + " must be positive");
      for (int64_t left = dim; left > 0; left -= each) sizes.push_back(std::min(each, left));
    } else {
      sizes = (*sp)->toInts();
    }
  } else {
    sizes.assign(size_t(dim), 1);
    squeeze = im.attrInt(n, "keepdims", 1) == 0;
  }
  NodeProto split;
  split.set_op_type("Split");
  split.set_name(n.name());
  split.add_input(n.input(0));
  std::vector<std::string> parts;
  for (size_t k = 0; k < sizes.size(); ++k) {
    parts.push_back(n.output(0) + "#part" + std::to_string(k));
    split.add_output(parts.back());
  }
  auto* a = split.add_attribute();
  a->set_name("axis");
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(axis);
  auto* sa = split.add_attribute();
  sa->set_name("split");
  sa->set_type(::onnx::AttributeProto::INTS);
  for (int64_t s : sizes) sa->add_ints(s);
  TK_RETURN_IF_ERROR(im.lowerSynthetic(split));
  Elements elems;
  for (const auto& p : parts) {
    if (!squeeze) {
      elems.push_back(im.vals.at(p));
      continue;
    }
    Shape shape = im.vals.at(p).shape;  // without the axis
    shape.erase(shape.begin() + axis);
    TK_RETURN_IF_ERROR(reshapeElement(im, p, shape, p + "#squeezed"));
    elems.push_back(im.vals.at(p + "#squeezed"));
  }
  setSequence(im, n, std::move(elems), x.dtype);
  return Status::ok();
}

}  // namespace

void registerSequenceOps(HandlerTable& t) {
  t["SequenceEmpty"] = opSequenceEmpty;
  t["SequenceConstruct"] = opSequenceConstruct;
  t["SequenceInsert"] = opSequenceInsert;
  t["SequenceErase"] = opSequenceErase;
  t["SequenceAt"] = opSequenceAt;
  t["SequenceLength"] = opSequenceLength;
  t["ConcatFromSequence"] = opConcatFromSequence;
  t["SplitToSequence"] = opSplitToSequence;
}

}  // namespace tosakit::onnx
