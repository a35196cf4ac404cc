// Text form of discardable attributes. Exact for every kind: floats in hexadecimal (%a), tensors as the hex of
// their raw little-endian storage.
#include "formats/spirv/spirv_attr_text.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace tosakit::spirv {
namespace {

using K = ir::Attribute::Kind;

std::string joinInts(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

bool parseInt(const std::string& s, int64_t& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  out = int64_t(v);
  return true;
}

bool parseInts(const std::string& s, std::vector<int64_t>& out) {
  out.clear();
  if (s.empty()) return true;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    int64_t v = 0;
    if (!parseInt(item, v)) return false;
    out.push_back(v);
  }
  return true;
}

std::string hexBytes(const uint8_t* p, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::string shapeText(const Shape& s) {
  if (s.empty()) return "-";
  std::string t;
  for (size_t i = 0; i < s.size(); ++i) t += (i ? "x" : "") + std::to_string(s[i]);
  return t;
}

bool parseShape(const std::string& s, Shape& out) {
  out.clear();
  if (s == "-") return true;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, 'x')) {
    int64_t v = 0;
    if (!parseInt(item, v) || v < 0 || v > (int64_t(1) << 24)) return false;
    out.push_back(v);
  }
  return !out.empty();
}

// "KIND" or "KIND:DTYPE" and the payload after it.
struct Parts {
  std::string key, kind, dtype, payload;
};

Result<Parts> split(const std::string& text) {
  std::string rest = text.substr(std::strlen(kAttrPrefix));
  Parts p;
  size_t sp = rest.find(' ');
  if (sp == std::string::npos || sp == 0) return Status::parse("attribute text without a kind: '" + text + "'");
  p.key = rest.substr(0, sp);
  rest = rest.substr(sp + 1);
  sp = rest.find(' ');
  std::string kind = sp == std::string::npos ? rest : rest.substr(0, sp);
  p.payload = sp == std::string::npos ? "" : rest.substr(sp + 1);
  size_t colon = kind.find(':');
  p.kind = kind.substr(0, colon);
  if (colon != std::string::npos) p.dtype = kind.substr(colon + 1);
  return p;
}

}  // namespace

Result<std::string> encodeAttrText(const std::string& key, const ir::Attribute& a) {
  if (key.empty() || key.find_first_of(" \n\t") != std::string::npos || key.find('\0') != std::string::npos)
    return Status::unsupported("attribute key '" + key + "' is empty or has white space");
  std::string head = kAttrPrefix + key + " ";
  std::string dt(dtypeName(a.dtype));
  switch (a.kind) {
    case K::Bool: return head + "bool " + (a.b ? "1" : "0");
    case K::Int: return head + "int:" + dt + " " + std::to_string(a.i);
    case K::Float: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%a", a.f);
      return head + "float:" + dt + " " + buf;
    }
    case K::String:
    case K::Enum:
    case K::Symbol: {
      if (a.s.find('\0') != std::string::npos)
        return Status::unsupported("attribute '" + key + "': a string with a NUL character has no SPIR-V form");
      const char* kind = a.kind == K::String ? "string " : a.kind == K::Enum ? "enum " : "symbol ";
      return head + kind + a.s;
    }
    case K::Type: return head + "type:" + dt;
    case K::IntArray: return head + "ints:" + dt + " " + joinInts(a.ints);
    case K::BoolArray: return head + "bools " + joinInts(a.ints);
    case K::Tensor: {
      if (!a.tensor) return Status::invalid("attribute '" + key + "': dense attribute without a tensor");
      const Tensor& t = *a.tensor;
      return head + "tensor:" + std::string(dtypeName(t.dtype())) + " " + shapeText(t.shape()) + " " +
          hexBytes(reinterpret_cast<const uint8_t*>(t.data()), t.byteSize());
    }
  }
  return Status::internal("unknown attribute kind");
}

Result<std::pair<std::string, ir::Attribute>> decodeAttrText(const std::string& text) {
  auto parts = split(text);
  if (!parts) return parts.status();
  const Parts& p = *parts;
  auto bad = [&](const std::string& why) { return Status::parse("attribute '" + p.key + "': " + why); };
  DType dt = DType::I64;
  if (!p.dtype.empty()) {
    auto d = parseDType(p.dtype);
    if (!d) return bad("unknown element type '" + p.dtype + "'");
    dt = *d;
  }
  auto done = [&](ir::Attribute a) { return std::make_pair(p.key, std::move(a)); };
  if (p.kind == "bool") {
    if (p.payload != "0" && p.payload != "1") return bad("bool payload must be 0 or 1");
    return done(ir::Attribute::boolean(p.payload == "1"));
  }
  if (p.kind == "int") {
    int64_t v = 0;
    if (p.dtype.empty() || !parseInt(p.payload, v)) return bad("malformed integer");
    return done(ir::Attribute::integer(v, dt));
  }
  if (p.kind == "float") {
    char* end = nullptr;
    double v = std::strtod(p.payload.c_str(), &end);
    if (p.dtype.empty() || p.payload.empty() || *end != '\0') return bad("malformed float");
    return done(ir::Attribute::floating(v, dt));
  }
  if (p.kind == "string") return done(ir::Attribute::string(p.payload));
  if (p.kind == "enum") return done(ir::Attribute::enumCase(p.payload));
  if (p.kind == "symbol") return done(ir::Attribute::symbol(p.payload));
  if (p.kind == "type") {
    if (p.dtype.empty()) return bad("type without an element type");
    return done(ir::Attribute::type(dt));
  }
  if (p.kind == "ints" || p.kind == "bools") {
    std::vector<int64_t> v;
    if (!parseInts(p.payload, v)) return bad("malformed integer list");
    if (p.kind == "bools") return done(ir::Attribute::boolArray(std::move(v)));
    if (p.dtype.empty()) return bad("integer array without an element type");
    return done(ir::Attribute::intArray(std::move(v), dt));
  }
  if (p.kind == "tensor") {
    size_t sp = p.payload.find(' ');
    Shape shape;
    if (p.dtype.empty() || sp == std::string::npos || !parseShape(p.payload.substr(0, sp), shape))
      return bad("malformed tensor shape");
    int64_t elems = 1;
    for (int64_t d : shape) {
      elems *= d;
      if (elems > (int64_t(1) << 24)) return bad("tensor larger than 2^24 elements");
    }
    std::string hex = p.payload.substr(sp + 1);
    Tensor t(dt, shape);
    if (hex.size() != 2 * t.byteSize()) return bad("tensor data has the wrong length");
    auto* out = reinterpret_cast<uint8_t*>(t.data());
    for (size_t i = 0; i < t.byteSize(); ++i) {
      int hi = hexDigit(hex[2 * i]), lo = hexDigit(hex[2 * i + 1]);
      if (hi < 0 || lo < 0) return bad("tensor data is not hexadecimal");
      out[i] = uint8_t(hi * 16 + lo);
    }
    return done(ir::Attribute::dense(std::move(t)));
  }
  return bad("unknown kind '" + p.kind + "'");
}

}  // namespace tosakit::spirv
