// Shared by the .tosa reader, writer and dump: the operator table, the 1.0 attribute fields and the data
// packing. Includes the flatc-generated header: include only from src/formats/tosafb/*.cpp.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"
#include "tosa_generated.h"

namespace tosakit::tosafb {

// Version written into files (the serialization schema this mapping follows).
constexpr int32_t kVersionMajor = 1, kVersionMinor = 0, kVersionPatch = 0;
// Version of tosakit's extension fields (TosakitModule.format_version).
constexpr uint32_t kExtensionVersion = 1;

// The attribute fields of the 1.0 tables, one struct for all operators (defaults as the schema's).
struct AttrFields {
  int32_t axis = 0;
  uint32_t nanMode = 0;
  std::vector<int32_t> kernel, stride, pad, dilation, outPad, perms;
  uint32_t accType = 0;
  bool localBound = false, inverse = false, round = false;
  bool scale32 = false, perChannel = false, inputUnsigned = false, outputUnsigned = false;
  uint32_t roundingMode = 0, resizeMode = 0;
  std::vector<uint8_t> minVal, maxVal, implAttrs;
  std::string operatorName, domainName;
  std::string branch0, branch1;  // cond_if then/else, while_loop cond/body region names
};

// "tosa.conv2d" for Op_CONV2D; "" for UNKNOWN and out-of-range values.
std::string irNameOf(tosa::Op op);
// Op for an IR name; Op_UNKNOWN when the 1.0 schema has no operator of that name.
tosa::Op opOfIrName(const std::string& irName);
bool isValidOp(uint32_t op);

// Schema DType <-> IR element type (SHAPE: shape values, I64).
bool dtypeToIr(tosa::DType t, DType& out);
bool dtypeFromIr(DType t, tosa::DType& out);

// Bytes `count` elements of `t` take packed (INT4 two per byte, INT48 six bytes, SHAPE eight).
int64_t packedBytes(tosa::DType t, int64_t count);
// Packs a tensor of tosakit's storage into the schema's layout (`asShape`: int64 shape data).
std::vector<uint8_t> packTensor(const Tensor& t, tosa::DType as);
// Unpacks data of `t` (its dtype/shape already set) from `bytes`; ParseError when the size does not match.
Status unpackInto(const uint8_t* bytes, size_t size, tosa::DType as, Tensor& t, const std::string& what);

// 1.0 attribute table of an operator -> fields. ParseError when the union holds another operator's table.
Status fieldsFromFb(const tosa::TosaOperator& op, AttrFields& f, const std::string& where);
// Fields -> the operator's attribute table (union value = op value).
flatbuffers::Offset<void> fieldsToFb(flatbuffers::FlatBufferBuilder& fbb, tosa::Op op, const AttrFields& f);
// IR attributes -> fields (what the IR holds in another form is left at the default; the writer's diff keeps
// it). `elem` is the element type of the op's first operand (clamp's min_val/max_val).
void fieldsFromIr(const ir::Operation& op, tosa::Op code, DType elem, AttrFields& f);
// Fields -> IR attributes as the MLIR 22 TOSA dialect spells them (default-valued nan_mode/local_bound
// omitted, as the MLIR importer does).
Status irFromFields(tosa::Op code, const AttrFields& f, DType elem, std::map<std::string, ir::Attribute>& out,
                    const std::string& where);

// tosakit extension attributes.
flatbuffers::Offset<tosa::TosakitAttr> encodeExtAttr(flatbuffers::FlatBufferBuilder& fbb, const std::string& key,
                                                     const ir::Attribute& a);
Result<ir::Attribute> decodeExtAttr(const tosa::TosakitAttr& a, const std::string& where);

// One-line text of the fields an operator's table has ("axis=1 nan_mode=PROPAGATE"), for the dump.
std::string fieldsToText(tosa::Op code, const AttrFields& f);

}  // namespace tosakit::tosafb
