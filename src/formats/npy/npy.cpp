// NumPy .npy / .npz reading and writing (format: numpy/lib/format.py, NEP 1).
//
// A .npy file is: magic "\x93NUMPY", major and minor version bytes, a little-endian header length (2 bytes
// for version 1.0, 4 bytes for 2.0 and 3.0), a Python dict literal describing the array ('descr',
// 'fortran_order', 'shape'), then the raw element bytes. Everything read from a file is untrusted: sizes are
// checked against the bytes actually present before anything is allocated.
#include "formats/npy/npy.h"

#include "core/file_io.h"
#include "core/size_budget.h"

#include <zip.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <set>

namespace tosakit::npy {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;                // numpy's ARRAY_ALIGN
constexpr size_t kGrowthAxisMaxDigits = 21;  // numpy >= 1.23 leaves room to grow the first axis in place

Status parseError(const std::string& context, const std::string& reason) {
  return Status::parse(context + ": " + reason);
}

// ---------------------------------------------------------------------------------------------------------
// dtype descriptors

struct NumpyType {
  DType dtype;
  size_t itemsize;
  bool swap;  // file byte order differs from the host's
};

// Parses a numpy type string such as "<f4", "|b1", ">i2", "=u4" or "i8".
Result<NumpyType> parseDescr(const std::string& descr, const std::string& context) {
  auto unsupported = [&]() -> Status {
    return Status::unsupported(context + ": unsupported dtype '" + descr +
                               "' (tosakit reads bool, int8/16/32/64, uint8/16/32, float16/32/64)");
  };
  std::string s = descr;
  char order = '=';
  if (!s.empty() && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) {
    order = s[0];
    s = s.substr(1);
  }
  static const struct {
    const char* code;
    DType dtype;
    size_t size;
  } kTypes[] = {
      {"b1", DType::Bool, 1}, {"i1", DType::I8, 1},   {"i2", DType::I16, 2},  {"i4", DType::I32, 4},
      {"i8", DType::I64, 8},  {"u1", DType::U8, 1},   {"u2", DType::U16, 2},  {"u4", DType::U32, 4},
      {"f2", DType::FP16, 2}, {"f4", DType::FP32, 4}, {"f8", DType::FP64, 8},
  };
  for (const auto& t : kTypes) {
    if (s != t.code) continue;
    bool fileLittle = order == '<' || ((order == '=' || order == '|') && std::endian::native == std::endian::little);
    bool hostLittle = std::endian::native == std::endian::little;
    return NumpyType{t.dtype, t.size, t.size > 1 && fileLittle != hostLittle};
  }
  return unsupported();
}

std::string descrOf(DType t) {
  switch (t) {
    case DType::Bool: return "|b1";
    case DType::I8: return "|i1";
    case DType::I16: return "<i2";
    case DType::I32: return "<i4";
    case DType::I64: return "<i8";
    case DType::U8: return "|u1";
    case DType::U16: return "<u2";
    case DType::U32: return "<u4";
    case DType::FP16: return "<f2";
    case DType::FP32: return "<f4";
    case DType::FP64: return "<f8";
    default: return "";  // not a numpy dtype: callers convert with toNumpyDType first
  }
}

// ---------------------------------------------------------------------------------------------------------
// Header dict: "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" (any key order, either quote
// style, optional trailing comma, Python 2 'L' suffixes on dimensions).

struct Header {
  std::string descr;
  bool fortranOrder = false;
  Shape shape;
};

class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& context) : s_(text), context_(context) {}

  Result<Header> parse() {
    Header h;
    bool haveDescr = false, haveOrder = false, haveShape = false;
    skipSpace();
    if (!eat('{')) return error("header is not a dict (expected '{')");
    skipSpace();
    while (!eat('}')) {
      std::string key;
      if (Status st = parseString(key, "a quoted key"); !st) return st;
      skipSpace();
      if (!eat(':')) return error("expected ':' after key '" + key + "'");
      skipSpace();
      if (key == "descr") {
        if (haveDescr) return error("duplicate key 'descr'");
        haveDescr = true;
        if (peek() == '[') return Status::unsupported(context_ + ": unsupported dtype: structured (record) array");
        if (Status st = parseString(h.descr, "a dtype string for 'descr'"); !st) return st;
      } else if (key == "fortran_order") {
        if (haveOrder) return error("duplicate key 'fortran_order'");
        haveOrder = true;
        if (Status st = parseBool(h.fortranOrder); !st) return st;
      } else if (key == "shape") {
        if (haveShape) return error("duplicate key 'shape'");
        haveShape = true;
        if (Status st = parseShape(h.shape); !st) return st;
      } else {
        return error("unexpected key '" + key + "' in header");
      }
      skipSpace();
      if (eat(',')) {
        skipSpace();
        continue;
      }
      if (peek() != '}') return error("expected ',' or '}' in header dict");
    }
    skipSpace();
    if (pos_ != s_.size()) return error("unexpected text after the header dict");
    if (!haveDescr) return error("header lacks key 'descr'");
    if (!haveOrder) return error("header lacks key 'fortran_order'");
    if (!haveShape) return error("header lacks key 'shape'");
    return h;
  }

 private:
  Status error(const std::string& reason) const {
    return parseError(context_, "bad header at offset " + std::to_string(pos_) + ": " + reason);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void skipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }

  Status parseString(std::string& out, const char* what) {
    char q = peek();
    if (q != '\'' && q != '"') return error(std::string("expected ") + what);
    size_t end = s_.find(q, pos_ + 1);
    if (end == std::string::npos) return error("unterminated string");
    out = s_.substr(pos_ + 1, end - pos_ - 1);
    if (out.find_first_of("\\\n") != std::string::npos) return error("unsupported escape in string");
    pos_ = end + 1;
    return Status::ok();
  }

  Status parseBool(bool& out) {
    if (s_.compare(pos_, 4, "True") == 0) {
      out = true;
      pos_ += 4;
    } else if (s_.compare(pos_, 5, "False") == 0) {
      out = false;
      pos_ += 5;
    } else {
      return error("'fortran_order' must be True or False");
    }
    return Status::ok();
  }

  // A Python tuple of non-negative ints: "()", "(3,)", "(2, 3)", "(2, 3,)".
  Status parseShape(Shape& out) {
    if (!eat('(')) return error("'shape' must be a tuple");
    skipSpace();
    size_t count = 0;
    bool trailingComma = false;
    while (!eat(')')) {
      if (peek() == '-') return error("negative dimension in shape");
      if (peek() < '0' || peek() > '9') return error("expected a dimension (integer) in shape");
      int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        int digit = peek() - '0';
        if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) return error("dimension too large");
        v = v * 10 + digit;
        ++pos_;
      }
      eat('L');  // Python 2 long literal
      out.push_back(v);
      ++count;
      skipSpace();
      trailingComma = eat(',');
      skipSpace();
      if (!trailingComma && peek() != ')') return error("expected ',' or ')' in shape");
    }
    // "(3)" is the int 3 in Python, not a tuple.
    if (count == 1 && !trailingComma) return error("'shape' must be a tuple (a 1-tuple needs a trailing comma)");
    return Status::ok();
  }

  const std::string& s_;
  const std::string& context_;
  size_t pos_ = 0;
};

// Product of the dimensions, or nullopt if it (ignoring zero dimensions) does not fit in int64, so that
// later shape arithmetic cannot overflow either.
std::optional<int64_t> checkedElementCount(const Shape& shape) {
  int64_t product = 1;
  bool zero = false;
  for (int64_t d : shape) {
    if (d == 0) {
      zero = true;
      continue;
    }
    if (product > std::numeric_limits<int64_t>::max() / d) return std::nullopt;
    product *= d;
  }
  return zero ? 0 : product;
}

void byteSwap(uint8_t* p, size_t n) {
  for (size_t i = 0; i < n / 2; ++i) std::swap(p[i], p[n - 1 - i]);
}

// Copies the file's elements into a C-order tensor: reorders Fortran-order data and fixes byte order.
void copyElements(const uint8_t* src, const NumpyType& nt, bool fortranOrder, Tensor& t) {
  const size_t item = nt.itemsize;
  const int64_t n = t.size();
  uint8_t* dst = t.data();
  const Shape& shape = t.shape();
  const int rank = t.rank();
  if (n == 0) return;
  if (!fortranOrder || rank <= 1) {
    std::memcpy(dst, src, size_t(n) * item);
  } else {
    // Walk the C-order index (last axis fastest) and keep the matching Fortran offset (first axis fastest).
    std::vector<int64_t> fstride(static_cast<size_t>(rank), 0), index(static_cast<size_t>(rank), 0);
    int64_t stride = 1;
    for (int d = 0; d < rank; ++d) {
      fstride[size_t(d)] = stride;
      stride *= shape[size_t(d)];
    }
    int64_t foff = 0;
    for (int64_t c = 0; c < n; ++c) {
      std::memcpy(dst + size_t(c) * item, src + size_t(foff) * item, item);
      for (int d = rank - 1; d >= 0; --d) {
        size_t du = size_t(d);
        if (++index[du] < shape[du]) {
          foff += fstride[du];
          break;
        }
        foff -= (shape[du] - 1) * fstride[du];
        index[du] = 0;
      }
    }
  }
  if (nt.swap)
    for (int64_t i = 0; i < n; ++i) byteSwap(dst + size_t(i) * item, item);
  if (t.dtype() == DType::Bool)  // numpy bools are 0/1; normalise any other nonzero byte
    for (int64_t i = 0; i < n; ++i) dst[i] = dst[i] ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------------
// Files

Result<std::vector<uint8_t>> readFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Status::io(path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::io(path + ": cannot open: " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  std::streamoff len = in.tellg();
  if (len < 0) return Status::io(path + ": cannot determine file size");
  in.seekg(0, std::ios::beg);
  TK_RETURN_IF_ERROR(checkAllocationBytes(int64_t(len), path));
  std::vector<uint8_t> buf(static_cast<size_t>(len));
  if (len > 0 && !in.read(reinterpret_cast<char*>(buf.data()), len)) return Status::io(path + ": read failed");
  return buf;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// .npy

Result<Tensor> parseNpy(const uint8_t* data, size_t size, const std::string& context) {
  const std::string truncated = "truncated file (" + std::to_string(size) + " bytes, no complete .npy preamble)";
  const size_t magicBytes = std::min(size, kMagicLen);
  if (magicBytes > 0 && std::memcmp(data, kMagic, magicBytes) != 0) {
    bool zip = size >= 2 && data[0] == 'P' && data[1] == 'K';
    return parseError(
        context,
        zip ? "bad magic (not a .npy file; it looks like a zip / .npz archive)" : "bad magic (not a .npy file)");
  }
  if (size < kMagicLen + 2) return parseError(context, truncated);
  const int major = data[6], minor = data[7];
  size_t lenBytes;
  if (major == 1 && minor == 0) {
    lenBytes = 2;
  } else if ((major == 2 || major == 3) && minor == 0) {
    lenBytes = 4;
  } else {
    return parseError(context,
                      "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
  }
  const size_t prefix = kMagicLen + 2 + lenBytes;
  if (size < prefix) return parseError(context, truncated);
  uint64_t headerLen = 0;
  for (size_t i = 0; i < lenBytes; ++i) headerLen |= uint64_t(data[kMagicLen + 2 + i]) << (8 * i);
  if (headerLen > size - prefix)
    return parseError(
        context,
        "header length " + std::to_string(headerLen) + " exceeds the file size (" + std::to_string(size) + " bytes)");
  // Version 1.0/2.0 headers are latin1, 3.0 utf8; the dict's syntax is ASCII in both.
  std::string text(reinterpret_cast<const char*>(data + prefix), size_t(headerLen));
  if (text.find('\0') != std::string::npos) return parseError(context, "bad header: contains a NUL byte");
  auto header = HeaderParser(text, context).parse();
  if (!header) return header.status();
  auto nt = parseDescr(header->descr, context);
  if (!nt) return nt.status();

  auto count = checkedElementCount(header->shape);
  if (!count) return parseError(context, "shape (" + shapeToString(header->shape) + ") is too large");
  const uint64_t available = size - prefix - headerLen;
  const uint64_t elements = uint64_t(*count);
  if (elements > available / nt->itemsize || elements * nt->itemsize != available) {
    std::string expected = elements > std::numeric_limits<uint64_t>::max() / nt->itemsize
        ? std::string("more")
        : std::to_string(elements * nt->itemsize);
    return parseError(context,
                      "data is " + std::to_string(available) + " bytes but shape (" + shapeToString(header->shape) +
                          ") of '" + header->descr + "' needs " + expected + " bytes");
  }
  TK_RETURN_IF_ERROR(checkAllocation(nt->dtype, header->shape, context));
  Tensor t(nt->dtype, header->shape);
  copyElements(data + prefix + headerLen, *nt, header->fortranOrder, t);
  return t;
}

Result<Tensor> readNpy(const std::string& path) {
  auto bytes = readFile(path);
  if (!bytes) return bytes.status();
  return parseNpy(bytes->data(), bytes->size(), path);
}

std::vector<uint8_t> serializeNpy(const Tensor& tensor) {
  Tensor t = toNumpyDType(tensor);
  // Exactly what numpy.save writes (numpy/lib/format.py _write_array_header and _wrap_header): keys sorted,
  // repr of each value, spare room to grow the first axis, padded with spaces and a newline so the data
  // starts at a multiple of 64.
  const Shape& shape = t.shape();
  std::string shapeRepr = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) shapeRepr += ", ";
    shapeRepr += std::to_string(shape[i]);
  }
  if (shape.size() == 1) shapeRepr += ",";
  shapeRepr += ")";
  std::string header = "{'descr': '" + descrOf(t.dtype()) + "', 'fortran_order': False, 'shape': " + shapeRepr + ", }";
  if (!shape.empty()) header += std::string(kGrowthAxisMaxDigits - std::to_string(shape[0]).size(), ' ');

  // Version 1.0 unless the header does not fit its 2-byte length (as numpy does).
  int major = 1;
  size_t lenBytes = 2;
  size_t hlen = header.size() + 1;  // + newline
  size_t padLen = kAlign - (kMagicLen + 2 + lenBytes + hlen) % kAlign;
  if (hlen + padLen > 0xffff) {
    major = 2;
    lenBytes = 4;
    padLen = kAlign - (kMagicLen + 2 + lenBytes + hlen) % kAlign;
  }
  header += std::string(padLen, ' ') + "\n";

  std::vector<uint8_t> out(kMagic, kMagic + kMagicLen);
  out.push_back(uint8_t(major));
  out.push_back(0);
  for (size_t i = 0; i < lenBytes; ++i) out.push_back(uint8_t(header.size() >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  // Storage is little-endian on little-endian hosts; swap otherwise.
  size_t start = out.size();
  out.insert(out.end(), t.data(), t.data() + t.byteSize());
  if (std::endian::native != std::endian::little) {
    size_t item = storageBytes(t.dtype());
    for (size_t i = start; i + item <= out.size(); i += item) byteSwap(out.data() + i, item);
  }
  return out;
}

Status writeNpy(const std::string& path, const Tensor& t) { return writeFileAtomic(path, serializeNpy(t)); }

// ---------------------------------------------------------------------------------------------------------
// .npz

namespace {

struct ZipArchiveCloser {
  void operator()(zip_t* z) const { zip_discard(z); }
};
struct ZipFileCloser {
  void operator()(zip_file_t* f) const { zip_fclose(f); }
};

// Deflate cannot compress better than about 1032:1; a larger claimed ratio is a lie (or a zip bomb).
constexpr uint64_t kMaxDeflateRatio = 1032;

}  // namespace

Result<NamedTensors> parseNpz(const uint8_t* data, size_t size, const std::string& context) {
  // The smallest zip is its 22-byte end-of-central-directory record (libzip would accept 0 bytes as empty).
  if (size < 22)
    return parseError(context, "not a valid .npz (zip) file: too short (" + std::to_string(size) + " bytes)");
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(data, size, 0, &err);
  if (!src) {
    Status s = parseError(context, std::string("cannot read zip: ") + zip_error_strerror(&err));
    zip_error_fini(&err);
    return s;
  }
  zip_t* raw = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
  if (!raw) {
    zip_source_free(src);
    bool isNpy = size >= kMagicLen && std::memcmp(data, kMagic, kMagicLen) == 0;
    Status s = parseError(context,
                          std::string("not a valid .npz (zip) file: ") + zip_error_strerror(&err) +
                              (isNpy ? " (it is a .npy file)" : ""));
    zip_error_fini(&err);
    return s;
  }
  zip_error_fini(&err);
  std::unique_ptr<zip_t, ZipArchiveCloser> za(raw);

  NamedTensors out;
  std::set<std::string> seen;
  zip_int64_t entries = zip_get_num_entries(za.get(), 0);
  for (zip_int64_t i = 0; i < entries; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za.get(), zip_uint64_t(i), 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME))
      return parseError(context, "cannot read entry " + std::to_string(i) + ": " + zip_strerror(za.get()));
    std::string member = st.name;
    std::string where = context + ": member '" + member + "'";
    const std::string ext = ".npy";
    if (member.size() <= ext.size() || member.compare(member.size() - ext.size(), ext.size(), ext) != 0)
      return parseError(where, "not a .npy member (an .npz holds only NAME.npy files)");
    std::string name = member.substr(0, member.size() - ext.size());
    if (!seen.insert(name).second) return parseError(where, "duplicate member");
    if (!(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_COMP_SIZE) || !(st.valid & ZIP_STAT_COMP_METHOD))
      return parseError(where, "entry lacks size information");
    if (st.comp_method != ZIP_CM_STORE && st.comp_method != ZIP_CM_DEFLATE)
      return Status::unsupported(where + ": unsupported compression method " + std::to_string(st.comp_method) +
                                 " (stored and deflated are supported)");
    // Check the claimed sizes against the archive before allocating anything.
    if (st.comp_size > size) return parseError(where, "compressed size exceeds the archive size");
    uint64_t limit = st.comp_method == ZIP_CM_STORE ? st.comp_size : st.comp_size * kMaxDeflateRatio + 1024;
    if (st.size > limit) return parseError(where, "claimed size " + std::to_string(st.size) + " is impossible");

    if (st.size > uint64_t(INT64_MAX))
      return parseError(where, "claimed size " + std::to_string(st.size) + " is impossible");
    TK_RETURN_IF_ERROR(checkAllocationBytes(int64_t(st.size), where));  // deflate can expand 1000-fold
    std::unique_ptr<zip_file_t, ZipFileCloser> zf(zip_fopen_index(za.get(), zip_uint64_t(i), 0));
    if (!zf) return parseError(where, std::string("cannot open: ") + zip_strerror(za.get()));
    std::vector<uint8_t> bytes(size_t(st.size));
    size_t got = 0;
    while (got < bytes.size()) {
      zip_int64_t n = zip_fread(zf.get(), bytes.data() + got, bytes.size() - got);
      if (n < 0) return parseError(where, std::string("corrupt data: ") + zip_file_strerror(zf.get()));
      if (n == 0) break;
      got += size_t(n);
    }
    if (got != bytes.size()) return parseError(where, "corrupt data: shorter than its recorded size");
    // Reading to the end makes libzip verify the CRC and exposes data beyond the recorded size.
    uint8_t extra;
    zip_int64_t n = zip_fread(zf.get(), &extra, 1);
    if (n < 0) return parseError(where, std::string("corrupt data: ") + zip_file_strerror(zf.get()));
    if (n > 0) return parseError(where, "corrupt data: longer than its recorded size");

    auto t = parseNpy(bytes.data(), bytes.size(), where);
    if (!t) return t.status();
    out.emplace_back(std::move(name), std::move(*t));
  }
  return out;
}

Result<NamedTensors> readNpz(const std::string& path) {
  auto bytes = readFile(path);
  if (!bytes) return bytes.status();
  return parseNpz(bytes->data(), bytes->size(), path);
}

Status writeNpz(const std::string& path, const NamedTensors& tensors, bool compress) {
  std::set<std::string> names;
  for (const auto& [name, t] : tensors) {
    if (name.empty()) return Status::invalid(path + ": cannot write a tensor with an empty name");
    if (!names.insert(name).second) return Status::invalid(path + ": tensor name '" + name + "' appears twice");
  }
  if (tensors.empty()) {
    // libzip does not create an empty archive; write the 22-byte end-of-central-directory record numpy writes.
    std::vector<uint8_t> empty = {'P', 'K', 5, 6};
    empty.resize(22, 0);
    return writeFileAtomic(path, empty);
  }

  const std::string tmp = temporaryPathFor(path);
  int errorCode = 0;
  zip_t* za = zip_open(tmp.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &errorCode);
  if (!za) {
    zip_error_t err;
    zip_error_init_with_code(&err, errorCode);
    Status s = Status::io(path + ": cannot write: " + zip_error_strerror(&err));
    zip_error_fini(&err);
    return s;
  }
  auto fail = [&](const std::string& what) {
    Status s = Status::io(path + ": " + what + ": " + zip_strerror(za));
    zip_discard(za);
    std::remove(tmp.c_str());
    return s;
  };
  // The buffers must live until zip_close() has written them.
  std::vector<std::vector<uint8_t>> buffers;
  buffers.reserve(tensors.size());
  for (const auto& [name, t] : tensors) {
    buffers.push_back(serializeNpy(t));
    const std::vector<uint8_t>& b = buffers.back();
    zip_source_t* src = zip_source_buffer(za, b.data(), b.size(), 0);
    if (!src) return fail("cannot add '" + name + "'");
    zip_int64_t idx = zip_file_add(za, (name + ".npy").c_str(), src, ZIP_FL_ENC_UTF_8);
    if (idx < 0) {
      zip_source_free(src);
      return fail("cannot add '" + name + "'");
    }
    if (zip_set_file_compression(za, zip_uint64_t(idx), compress ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0) != 0)
      return fail("cannot set compression of '" + name + "'");
  }
  if (zip_close(za) != 0) return fail("write failed");
  return commitTemporaryFile(tmp, path);
}

// ---------------------------------------------------------------------------------------------------------
// dtype convention

namespace {

// Same bytes and shape, another dtype of the same storage size.
Tensor retype(const Tensor& t, DType to) {
  Tensor out(to, t.shape());
  if (t.byteSize()) std::memcpy(out.data(), t.data(), t.byteSize());
  return out;
}

}  // namespace

Tensor toNumpyDType(const Tensor& t) {
  switch (t.dtype()) {
    case DType::BF16: return retype(t, DType::U16);
    case DType::FP8E4M3:
    case DType::FP8E5M2: return retype(t, DType::U8);
    case DType::I4: return retype(t, DType::I8);    // stored sign-extended in one byte
    case DType::I48: return retype(t, DType::I64);  // stored sign-extended in eight bytes
    default: return t;
  }
}

Result<Tensor> adaptToDType(const Tensor& t, DType want, const std::string& what) {
  if (t.dtype() == want) return t;
  auto rangeChecked = [&](DType to) -> Result<Tensor> {
    const int64_t lo = dtypeMin(to), hi = dtypeMax(to);
    for (int64_t i = 0; i < t.size(); ++i) {
      int64_t v = t.getInt(i);
      if (v < lo || v > hi)
        return Status::invalid(what + ": value " + std::to_string(v) + " at index " + std::to_string(i) +
                               " is outside the " + std::string(dtypeName(to)) + " range [" + std::to_string(lo) +
                               ", " + std::to_string(hi) + "]");
    }
    return retype(t, to);
  };
  DType have = t.dtype();
  if (have == DType::U16 && want == DType::BF16) return retype(t, want);
  if (have == DType::U8 && (want == DType::FP8E4M3 || want == DType::FP8E5M2)) return retype(t, want);
  if (have == DType::I8 && want == DType::I4) return rangeChecked(want);
  if (have == DType::I64 && want == DType::I48) return rangeChecked(want);
  return Status::invalid(what + ": dtype " + std::string(dtypeName(have)) + " does not match expected " +
                         std::string(dtypeName(want)));
}

const Tensor* findTensor(const NamedTensors& tensors, const std::string& name) {
  for (const auto& [n, t] : tensors)
    if (n == name) return &t;
  return nullptr;
}

}  // namespace tosakit::npy
