// .npy / .npz I/O against numpy itself (the oracle): at test time /usr/bin/python3 (Debian python3-numpy) writes
// fixtures with np.save / np.savez / np.savez_compressed / np.lib.format.write_array plus the expected values in
// a text form (floats as float.hex(), exact); tosakit reads them. Conversely tosakit writes files and numpy checks
// them (loaded values, dtype, and the exact bytes np.save would write). Bad-input tests use hand-made bytes.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "formats/npy/npy.h"

namespace fs = std::filesystem;
using tosakit::DType;
using tosakit::Shape;
using tosakit::Status;
using tosakit::StatusCode;
using tosakit::Tensor;
namespace npy = tosakit::npy;

namespace {

constexpr const char* kPython = "/usr/bin/python3";

// Writes the fixtures into argv[1]. Every fixture NAME.npy comes with NAME.txt: the shape on line 1, the
// C-order values on line 2 (ints in decimal, floats as float.hex()).
constexpr const char* kGenerateScript = R"PY(
import os, sys, zipfile
import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(20240601)

def write_txt(name, a):
    flat = np.ascontiguousarray(a).reshape(-1)
    with open(os.path.join(out, name + '.txt'), 'w') as f:
        f.write(' '.join(str(d) for d in a.shape) + '\n')
        if a.dtype.kind == 'f':
            f.write(' '.join(float(v).hex() for v in flat) + '\n')
        else:
            f.write(' '.join(str(int(v)) for v in flat) + '\n')

def sample(code, shape):
    n = int(np.prod(shape))
    kind = np.dtype(code).kind
    if kind == 'b':
        return rng.integers(0, 2, size=shape).astype('?')
    if kind in 'iu':
        info = np.iinfo(np.dtype(code))
        v = rng.integers(info.min, info.max, size=n, endpoint=True, dtype=np.int64 if kind == 'i' else np.uint64)
        v = v.astype(code)
        if n >= 2:
            v[0] = info.min
            v[1] = info.max
        return v.reshape(shape)
    info = np.finfo(np.dtype(code))
    v = rng.standard_normal(n).astype(code) * np.array(100, dtype=code)
    special = [np.nan, np.inf, -np.inf, -0.0, info.smallest_subnormal, info.max, -info.tiny]
    v[:min(n, len(special))] = np.array(special[:n], dtype=code)
    return v.reshape(shape)

def save(name, a, version=None):
    path = os.path.join(out, name + '.npy')
    if version is None:
        np.save(path, a)
    else:
        with open(path, 'wb') as f:
            np.lib.format.write_array(f, a, version=version)
    write_txt(name, a)

codes = ['b1', 'i1', 'i2', 'i4', 'i8', 'u1', 'u2', 'u4', 'f2', 'f4', 'f8']
for code in codes:
    base = sample(code, (2, 3, 4))
    endians = ['<', '>'] if np.dtype(code).itemsize > 1 else ['|']
    for e in endians:
        a = base.astype(e + code)
        for order in ['C', 'F']:
            arr = np.asfortranarray(a) if order == 'F' else np.ascontiguousarray(a)
            tag = {'<': 'le', '>': 'be', '|': 'na'}[e]
            save('%s_%s_%s_v1' % (code, tag, order), arr)
            save('%s_%s_%s_v2' % (code, tag, order), arr, (2, 0))
            save('%s_%s_%s_v3' % (code, tag, order), arr, (3, 0))

# Shapes: scalars, zero-size dimensions, rank 1, rank 5 in Fortran order.
save('shape_scalar_i4', np.array(-123456, dtype='<i4'))
save('shape_scalar_f8', np.array(3.25, dtype='>f8'))
save('shape_scalar_b1', np.array(True))
save('shape_empty_0x3_f4', np.zeros((0, 3), dtype='<f4'))
save('shape_empty_2x0x4_i2', np.zeros((2, 0, 4), dtype='>i2'))
save('shape_empty_0_u1', np.zeros((0,), dtype='u1'))
save('shape_rank1_u2', sample('u2', (5,)))
save('shape_rank5_F_i2', np.asfortranarray(sample('>i2', (2, 1, 3, 1, 2))))

# npz: member order is the keyword order, not sorted.
members = {'zeta': sample('f4', (2, 2)), 'alpha': sample('i1', (3,)), 'mid': sample('>u2', (2, 1, 2))}
np.savez(os.path.join(out, 'plain.npz'), **members)
np.savez_compressed(os.path.join(out, 'compressed.npz'), **members)
for k, v in members.items():
    write_txt('npz.' + k, v)
big = np.arange(20000, dtype='<i4').reshape(100, 200) % 7
np.savez_compressed(os.path.join(out, 'big.npz'), big=big)
write_txt('npz.big', big)
np.savez(os.path.join(out, 'empty.npz'))

# Valid numpy files of dtypes tosakit does not read.
np.save(os.path.join(out, 'unsup_c8.npy'), np.zeros(3, dtype='<c8'))
np.save(os.path.join(out, 'unsup_u8.npy'), np.zeros(3, dtype='<u8'))
np.save(os.path.join(out, 'unsup_str.npy'), np.array(['ab', 'c']))
np.save(os.path.join(out, 'unsup_obj.npy'), np.array([1, 'x'], dtype=object), allow_pickle=True)
np.save(os.path.join(out, 'unsup_rec.npy'), np.zeros(2, dtype=[('a', '<i4'), ('b', '<f4')]))

# A zip with a member that is not .npy, and one whose .npy member is garbage.
with zipfile.ZipFile(os.path.join(out, 'nonnpy.npz'), 'w') as z:
    z.writestr('a.npy', open(os.path.join(out, 'i4_le_C_v1.npy'), 'rb').read())
    z.writestr('readme.txt', 'hello')
with zipfile.ZipFile(os.path.join(out, 'badmember.npz'), 'w', compression=zipfile.ZIP_DEFLATED) as z:
    z.writestr('ok.npy', open(os.path.join(out, 'i4_le_C_v1.npy'), 'rb').read())
    z.writestr('broken.npy', b'\x93NUMPY\x01\x00\xff\x00{')
# Members whose recorded uncompressed size (local header and central directory alike) is a 1 GiB lie.
import struct
for name, method in [('liar_stored.npz', zipfile.ZIP_STORED), ('liar_deflated.npz', zipfile.ZIP_DEFLATED)]:
    path = os.path.join(out, name)
    with zipfile.ZipFile(path, 'w', compression=method) as z:
        z.writestr('x.npy', open(os.path.join(out, 'i4_le_C_v1.npy'), 'rb').read())
    b = bytearray(open(path, 'rb').read())
    struct.pack_into('<I', b, 22, 1 << 30)
    cd = b.index(b'PK\x01\x02')
    struct.pack_into('<I', b, cd + 24, 1 << 30)
    open(path, 'wb').write(b)
)PY";

// Checks the files tosakit wrote (argv[1]). Exits non-zero with a message on the first mismatch.
constexpr const char* kCheckScript = R"PY(
import io, os, sys, zipfile
import numpy as np

d = sys.argv[1]
fails = []

def expect_npy(name, expected):
    path = os.path.join(d, name)
    got = np.load(path)
    if got.dtype != expected.dtype or got.shape != expected.shape:
        fails.append('%s: dtype/shape %s%s, expected %s%s' % (name, got.dtype, got.shape, expected.dtype, expected.shape))
        return
    if not np.array_equal(got.view(np.uint8) if got.dtype.kind == 'f' else got,
                          expected.view(np.uint8) if expected.dtype.kind == 'f' else expected):
        fails.append('%s: values %r, expected %r' % (name, got, expected))
    buf = io.BytesIO()
    np.save(buf, expected)
    if open(path, 'rb').read() != buf.getvalue():
        fails.append('%s: bytes differ from np.save' % name)

expect_npy('w_bool.npy', np.array([[True, False, True], [False, False, True]]))
expect_npy('w_i8.npy', np.array([-128, -1, 0, 1, 127], dtype='i1'))
expect_npy('w_i16.npy', np.array([-32768, 32767, 7], dtype='<i2'))
expect_npy('w_i32.npy', np.arange(24, dtype='<i4').reshape(2, 3, 4) - 12)
expect_npy('w_i64.npy', np.array([-2**63, 2**63 - 1], dtype='<i8'))
expect_npy('w_u8.npy', np.array([0, 255], dtype='u1'))
expect_npy('w_u16.npy', np.array([0, 65535], dtype='<u2'))
expect_npy('w_u32.npy', np.array([0, 4294967295], dtype='<u4'))
expect_npy('w_fp16.npy', np.array([1.5, -0.0, 65504.0, 2.0**-24], dtype='<f2'))
expect_npy('w_fp32.npy', np.array([[0.1, -2.5], [np.inf, 1e-45]], dtype='<f4'))
expect_npy('w_fp64.npy', np.array([0.1, -np.inf, 5e-324], dtype='<f8'))
expect_npy('w_scalar.npy', np.array(42, dtype='<i4'))
expect_npy('w_empty.npy', np.zeros((123456789012, 0), dtype='<f4'))
expect_npy('w_rank6.npy', np.ones((1, 2, 1, 2, 1, 2), dtype='|i1'))
# Types numpy lacks, by the convention of docs/NUMPY.md.
expect_npy('w_bf16.npy', np.array([0x3f80, 0xc000, 0x7fc0], dtype='<u2'))
expect_npy('w_fp8e4m3.npy', np.array([0x38, 0x7f, 0x80], dtype='u1'))
expect_npy('w_fp8e5m2.npy', np.array([0x3c, 0x7c], dtype='u1'))
expect_npy('w_i4.npy', np.array([-8, -1, 0, 7], dtype='i1'))
expect_npy('w_i48.npy', np.array([-2**47, 2**47 - 1], dtype='<i8'))

for name, method in [('w_stored.npz', zipfile.ZIP_STORED), ('w_deflated.npz', zipfile.ZIP_DEFLATED)]:
    path = os.path.join(d, name)
    z = np.load(path)
    if list(z.keys()) != ['zeta', 'alpha', 'mid']:
        fails.append('%s: keys %r' % (name, list(z.keys())))
        continue
    exp = {'zeta': np.array([[1.0, 2.0], [3.0, 4.0]], dtype='<f4'),
           'alpha': np.array([-1, 2, -3], dtype='i1'),
           'mid': np.arange(1000, dtype='<i4') % 5}
    for k, v in exp.items():
        if z[k].dtype != v.dtype or not np.array_equal(z[k], v):
            fails.append('%s[%s]: %r' % (name, k, z[k]))
    for info in zipfile.ZipFile(path).infolist():
        if info.compress_type != method:
            fails.append('%s: %s compress_type %d' % (name, info.filename, info.compress_type))
z = np.load(os.path.join(d, 'w_empty.npz'))
if len(z.files) != 0:
    fails.append('w_empty.npz: %r' % z.files)

if fails:
    print('\n'.join(fails))
    sys.exit(1)
print('ok')
)PY";

fs::path gDir;

void writeText(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

std::string readText(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<uint8_t> readBytes(const fs::path& p) {
  std::string s = readText(p);
  return std::vector<uint8_t>(s.begin(), s.end());
}

int runPython(const char* script, const std::string& scriptName) {
  fs::path sp = gDir / scriptName;
  writeText(sp, script);
  std::string cmd = std::string(kPython) + " " + sp.string() + " " + gDir.string() + " > " +
      (gDir / (scriptName + ".log")).string() + " 2>&1";
  return std::system(cmd.c_str());
}

// Fixtures are generated once, on first use; a test that needs them fails (not skips) when numpy is missing.
bool generateFixtures(std::string& log) {
  static int state = 0;  // 0: not yet, 1: ok, 2: failed
  static std::string savedLog;
  if (state == 0) {
    gDir = fs::temp_directory_path() / ("tosakit_npy_test_" + std::to_string(::getpid()));
    fs::remove_all(gDir);
    fs::create_directories(gDir);
    int rc = runPython(kGenerateScript, "generate.py");
    savedLog = readText(gDir / "generate.py.log");
    state = rc == 0 ? 1 : 2;
  }
  log = savedLog;
  return state == 1;
}

class CleanupEnvironment : public ::testing::Environment {
 public:
  void TearDown() override {
    if (!gDir.empty()) fs::remove_all(gDir);
  }
};

[[maybe_unused]] auto* const gEnv = ::testing::AddGlobalTestEnvironment(new CleanupEnvironment);

class NpyFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string log;
    ASSERT_TRUE(generateFixtures(log)) << "numpy fixture generation with " << kPython << " failed:\n" << log;
  }
};

class NpyBadInput : public NpyFixture {};
class NpyConvention : public NpyFixture {};
class NpyRead : public NpyFixture {};
class NpyWrite : public NpyFixture {};
class NpzBadInput : public NpyFixture {};
class NpzRead : public NpyFixture {};
class NpzWrite : public NpyFixture {};

std::string path(const std::string& name) { return (gDir / name).string(); }

struct Expected {
  Shape shape;
  std::vector<std::string> values;
};

Expected readExpected(const std::string& name) {
  std::ifstream f(gDir / (name + ".txt"));
  Expected e;
  std::string line;
  std::getline(f, line);
  std::istringstream shape(line);
  for (int64_t d; shape >> d;) e.shape.push_back(d);
  std::getline(f, line);
  std::istringstream vals(line);
  for (std::string v; vals >> v;) e.values.push_back(v);
  return e;
}

DType dtypeOfCode(const std::string& code) {
  static const std::pair<const char*, DType> kMap[] = {{"b1", DType::Bool}, {"i1", DType::I8},  {"i2", DType::I16},
                                                       {"i4", DType::I32},  {"i8", DType::I64}, {"u1", DType::U8},
                                                       {"u2", DType::U16},  {"u4", DType::U32}, {"f2", DType::FP16},
                                                       {"f4", DType::FP32}, {"f8", DType::FP64}};
  for (auto& [c, t] : kMap)
    if (code == c) return t;
  ADD_FAILURE() << "unknown code " << code;
  return DType::FP32;
}

// Compares t with NAME.txt written by numpy: shape and every value exactly (floats bit for bit incl. -0 and NaN).
void expectMatches(const Tensor& t, const std::string& name) {
  Expected e = readExpected(name);
  ASSERT_EQ(t.shape(), e.shape) << name;
  ASSERT_EQ(size_t(t.size()), e.values.size()) << name;
  for (int64_t i = 0; i < t.size(); ++i) {
    const std::string& v = e.values[size_t(i)];
    if (tosakit::isFloat(t.dtype())) {
      double want = std::strtod(v.c_str(), nullptr);
      double got = t.getFloat(i);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << name << "[" << i << "]";
      } else {
        EXPECT_EQ(got, want) << name << "[" << i << "] expected " << v;
        EXPECT_EQ(std::signbit(got), std::signbit(want)) << name << "[" << i << "]";
      }
    } else {
      EXPECT_EQ(t.getInt(i), std::stoll(v)) << name << "[" << i << "]";
    }
  }
}

// Error checks: failed, message starts with "CONTEXT: " and mentions `reason`, one line.
void expectError(const Status& s, const std::string& context, const std::string& reason) {
  ASSERT_FALSE(s.isOk()) << "expected an error about " << reason;
  EXPECT_EQ(s.message().rfind(context + ": ", 0), 0u) << s.message();
  EXPECT_NE(s.message().find(reason), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
}

// Builds a .npy by hand: magic, version, length, header dict padded to 64 bytes (like numpy), data.
std::vector<uint8_t> makeNpy(const std::string& dict, const std::vector<uint8_t>& data, int major = 1, int minor = 0) {
  size_t lenBytes = major == 1 ? 2 : 4;
  std::string header = dict;
  size_t total = 8 + lenBytes + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), uint8_t(minor)};
  for (size_t i = 0; i < lenBytes; ++i) out.push_back(uint8_t(header.size() >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Tensor parseBytes(const std::vector<uint8_t>& b, Status* error = nullptr) {
  auto r = npy::parseNpy(b.data(), b.size(), "mem.npy");
  if (error) *error = r.status();
  return r.isOk() ? *r : Tensor();
}

// 24 bytes: int32 values 1..6 little-endian.
std::vector<uint8_t> i32Data(int n) {
  std::vector<uint8_t> d;
  for (int i = 1; i <= n; ++i) d.insert(d.end(), {uint8_t(i), 0, 0, 0});
  return d;
}

// ------------------------------------------------------------------------------------------------------------
// Reading numpy's files

TEST_F(NpyRead, EveryDtypeEndianOrderVersion) {
  const char* codes[] = {"b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "f2", "f4", "f8"};
  int checked = 0;
  for (std::string code : codes) {
    bool oneByte = code == "b1" || code == "i1" || code == "u1";
    std::vector<std::string> tags = oneByte ? std::vector<std::string>{"na"} : std::vector<std::string>{"le", "be"};
    for (const std::string& tag : tags)
      for (const char* order : {"C", "F"})
        for (const char* version : {"v1", "v2", "v3"}) {
          std::string name = code + "_" + tag + "_" + order + "_" + version;
          SCOPED_TRACE(name);
          auto t = npy::readNpy(path(name + ".npy"));
          ASSERT_TRUE(t.isOk()) << t.status().toString();
          EXPECT_EQ(t->dtype(), dtypeOfCode(code));
          expectMatches(*t, name);
          ++checked;
        }
  }
  EXPECT_EQ(checked, 3 * 2 * 3 + 8 * 2 * 2 * 3);
}

TEST_F(NpyRead, VersionByteIsWhatWeThinkItIs) {
  // Guards the fixture itself: write_array(version=(2,0)/(3,0)) really wrote those versions.
  EXPECT_EQ(readBytes(gDir / "i4_le_C_v1.npy")[6], 1);
  EXPECT_EQ(readBytes(gDir / "i4_le_C_v2.npy")[6], 2);
  EXPECT_EQ(readBytes(gDir / "i4_le_C_v3.npy")[6], 3);
  std::string f = readText(gDir / "i4_be_F_v1.npy");
  EXPECT_NE(f.find("'fortran_order': True"), std::string::npos);
  EXPECT_NE(f.find("'>i4'"), std::string::npos);
}

TEST_F(NpyRead, Shapes) {
  struct Case {
    const char* name;
    DType dtype;
    Shape shape;
  } cases[] = {
      {"shape_scalar_i4", DType::I32, {}},
      {"shape_scalar_f8", DType::FP64, {}},
      {"shape_scalar_b1", DType::Bool, {}},
      {"shape_empty_0x3_f4", DType::FP32, {0, 3}},
      {"shape_empty_2x0x4_i2", DType::I16, {2, 0, 4}},
      {"shape_empty_0_u1", DType::U8, {0}},
      {"shape_rank1_u2", DType::U16, {5}},
      {"shape_rank5_F_i2", DType::I16, {2, 1, 3, 1, 2}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto t = npy::readNpy(path(std::string(c.name) + ".npy"));
    ASSERT_TRUE(t.isOk()) << t.status().toString();
    EXPECT_EQ(t->dtype(), c.dtype);
    EXPECT_EQ(t->shape(), c.shape);
    expectMatches(*t, c.name);
  }
  // Scalars, hand-checked: the generator saved -123456, 3.25 and True.
  EXPECT_EQ(npy::readNpy(path("shape_scalar_i4.npy"))->getInt(0), -123456);
  EXPECT_EQ(npy::readNpy(path("shape_scalar_f8.npy"))->getFloat(0), 3.25);
  EXPECT_EQ(npy::readNpy(path("shape_scalar_b1.npy"))->getInt(0), 1);
}

TEST_F(NpyRead, HandWrittenHeaderVariants) {
  // i32[2,3] = 1..6 under header spellings numpy accepts: native '=' and '|' and no byte order, double
  // quotes, any key order, no trailing comma, Python 2 'L' suffixes, 16-byte alignment of old files.
  const char* dicts[] = {
      "{'descr': '=i4', 'fortran_order': False, 'shape': (2, 3), }",
      "{'descr': '|i4', 'fortran_order': False, 'shape': (2, 3), }",
      "{'descr': 'i4', 'fortran_order': False, 'shape': (2, 3), }",
      "{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (2, 3)}",
      "{'shape': (2,3,), 'fortran_order': False, 'descr': '<i4'}",
      "{'descr':'<i4','fortran_order':False,'shape':(2L, 3L)}",
  };
  for (const char* d : dicts) {
    SCOPED_TRACE(d);
    Status s;
    Tensor t = parseBytes(makeNpy(d, i32Data(6)), &s);
    ASSERT_TRUE(s.isOk()) << s.toString();
    EXPECT_EQ(t.dtype(), DType::I32);
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.toInts(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
  }
  // 16-byte aligned header (numpy < 1.9 wrote these).
  std::string dict = "{'descr': '<i4', 'fortran_order': False, 'shape': (6,), }";
  std::string header = dict + std::string((16 - (10 + dict.size() + 1) % 16) % 16, ' ') + "\n";
  std::vector<uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(header.size()), 0};
  b.insert(b.end(), header.begin(), header.end());
  auto data = i32Data(6);
  b.insert(b.end(), data.begin(), data.end());
  Status s;
  Tensor t = parseBytes(b, &s);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(t.toInts(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST_F(NpyRead, FortranOrderByHand) {
  // Fortran order: memory 1..6 for shape (2, 3) is the columns [1,2], [3,4], [5,6], so the C-order matrix is
  // [[1, 3, 5], [2, 4, 6]].
  Status s;
  Tensor t = parseBytes(makeNpy("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", i32Data(6)), &s);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(t.toInts(), (std::vector<int64_t>{1, 3, 5, 2, 4, 6}));
  // Big-endian int16 0x0102 = 258.
  t = parseBytes(makeNpy("{'descr': '>i2', 'fortran_order': False, 'shape': (1,), }", {0x01, 0x02}), &s);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(t.getInt(0), 258);
}

TEST_F(NpzRead, StoredAndDeflatedKeepOrder) {
  for (const char* file : {"plain.npz", "compressed.npz"}) {
    SCOPED_TRACE(file);
    auto z = npy::readNpz(path(file));
    ASSERT_TRUE(z.isOk()) << z.status().toString();
    ASSERT_EQ(z->size(), 3u);
    EXPECT_EQ((*z)[0].first, "zeta");
    EXPECT_EQ((*z)[1].first, "alpha");
    EXPECT_EQ((*z)[2].first, "mid");
    EXPECT_EQ((*z)[0].second.dtype(), DType::FP32);
    EXPECT_EQ((*z)[1].second.dtype(), DType::I8);
    EXPECT_EQ((*z)[2].second.dtype(), DType::U16);
    for (auto& [name, t] : *z) expectMatches(t, "npz." + name);
  }
  auto big = npy::readNpz(path("big.npz"));
  ASSERT_TRUE(big.isOk()) << big.status().toString();
  ASSERT_EQ(big->size(), 1u);
  EXPECT_EQ((*big)[0].first, "big");
  expectMatches((*big)[0].second, "npz.big");
  auto empty = npy::readNpz(path("empty.npz"));
  ASSERT_TRUE(empty.isOk()) << empty.status().toString();
  EXPECT_TRUE(empty->empty());
}

TEST_F(NpzRead, ParseFromMemory) {
  auto bytes = readBytes(gDir / "compressed.npz");
  auto z = npy::parseNpz(bytes.data(), bytes.size(), "inline.npz");
  ASSERT_TRUE(z.isOk()) << z.status().toString();
  ASSERT_EQ(z->size(), 3u);
  expectMatches((*z)[2].second, "npz.mid");
}

// ------------------------------------------------------------------------------------------------------------
// Bad input

TEST_F(NpyBadInput, UnsupportedDtypesNameFileAndDtype) {
  struct Case {
    const char* file;
    const char* descr;
  } cases[] = {{"unsup_c8.npy", "'<c8'"},
               {"unsup_u8.npy", "'<u8'"},
               {"unsup_str.npy", "'<U2'"},
               {"unsup_obj.npy", "'|O'"},
               {"unsup_rec.npy", "structured"}};
  for (const Case& c : cases) {
    auto t = npy::readNpy(path(c.file));
    expectError(t.status(), path(c.file), c.descr);
    EXPECT_EQ(t.status().code(), StatusCode::Unsupported) << c.file;
  }
}

TEST_F(NpyBadInput, TruncatedFiles) {
  auto good = readBytes(gDir / "i4_le_C_v1.npy");  // 128-byte header + 96 bytes of data
  ASSERT_EQ(good.size(), 128u + 96u);
  for (size_t len : {size_t(0), size_t(3), size_t(7), size_t(9)}) {
    auto r = npy::parseNpy(good.data(), len, "t.npy");
    expectError(r.status(), "t.npy", "truncated");
  }
  auto v2 = readBytes(gDir / "i4_le_C_v2.npy");
  expectError(npy::parseNpy(v2.data(), 11, "t.npy").status(), "t.npy", "truncated");
  // Header cut short: its recorded length runs past the end.
  expectError(npy::parseNpy(good.data(), 60, "t.npy").status(), "t.npy", "exceeds the file size");
  // Data cut short by one byte and by one element; and a byte too many.
  expectError(npy::parseNpy(good.data(), good.size() - 1, "t.npy").status(), "t.npy", "needs 96 bytes");
  expectError(npy::parseNpy(good.data(), good.size() - 4, "t.npy").status(), "t.npy", "needs 96 bytes");
  good.push_back(0);
  expectError(npy::parseNpy(good.data(), good.size(), "t.npy").status(), "t.npy", "needs 96 bytes");
  // Through the file API too: the message names the path.
  fs::path p = gDir / "truncated.npy";
  writeText(p, std::string(reinterpret_cast<const char*>(good.data()), 100));
  expectError(npy::readNpy(p.string()).status(), p.string(), "exceeds the file size");
}

TEST_F(NpyBadInput, BadMagicAndVersion) {
  auto good = makeNpy("{'descr': '<i4', 'fortran_order': False, 'shape': (6,), }", i32Data(6));
  auto bad = good;
  bad[5] = 'Z';
  expectError(npy::parseNpy(bad.data(), bad.size(), "m.npy").status(), "m.npy", "bad magic");
  expectError(npy::parseNpy(bad.data(), 4, "m.npy").status(), "m.npy", "truncated");
  bad = good;
  bad[0] = 'P';
  expectError(npy::parseNpy(bad.data(), 3, "m.npy").status(), "m.npy", "bad magic");
  for (auto [major, minor] : {std::pair{4, 0}, std::pair{1, 1}, std::pair{0, 0}}) {
    bad = good;
    bad[6] = uint8_t(major);
    bad[7] = uint8_t(minor);
    expectError(npy::parseNpy(bad.data(), bad.size(), "m.npy").status(), "m.npy", "unsupported .npy format version");
  }
  std::string text = "just some text, definitely not numpy";
  expectError(npy::parseNpy(reinterpret_cast<const uint8_t*>(text.data()), text.size(), "m.npy").status(), "m.npy",
              "bad magic");
  expectError(npy::readNpy(path("does_not_exist.npy")).status(), path("does_not_exist.npy"), "cannot open");
  expectError(npy::readNpy(gDir.string()).status(), gDir.string(), "is a directory");
}

TEST_F(NpyBadInput, LyingAndHugeShapes) {
  struct Case {
    std::string dict;
    const char* reason;
  } cases[] = {
      // Shape says 7 elements, the data holds 6.
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (7,), }", "needs 28 bytes"},
      {"{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", "needs 48 bytes"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (), }", "needs 4 bytes"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (0,), }", "needs 0 bytes"},
      // Element count overflows int64, with and without a zero dimension.
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", "too large"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 0), }", "too large"},
      // Element count fits but the byte size does not.
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (9223372036854775807,), }", "needs more bytes"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (3037000499, 3037000499), }", "bytes"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (99999999999999999999,), }", "dimension too large"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (-1, 6), }", "negative dimension"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (6, -6), }", "negative dimension"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dict);
    Status s;
    parseBytes(makeNpy(c.dict, i32Data(6)), &s);
    expectError(s, "mem.npy", c.reason);
  }
}

TEST_F(NpyBadInput, GarbageHeaders) {
  struct Case {
    std::string dict;
    const char* reason;
  } cases[] = {
      {"{'descr': '<i4', 'fortran_order': False}", "lacks key 'shape'"},
      {"{'descr': '<i4', 'shape': (6,)}", "lacks key 'fortran_order'"},
      {"{'fortran_order': False, 'shape': (6,)}", "lacks key 'descr'"},
      {"{}", "lacks key"},
      {"", "not a dict"},
      {"['descr', '<i4']", "not a dict"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (6,), 'extra': 1}", "unexpected key 'extra'"},
      {"{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (6,)}", "duplicate key 'descr'"},
      {"{'descr': '<i4', 'fortran_order': 0, 'shape': (6,)}", "True or False"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (6)}", "trailing comma"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': [6]}", "must be a tuple"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (6, x)}", "expected a dimension"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (6 7)}", "expected ',' or ')'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (6,", "expected a dimension"},
      {"{'descr': <i4, 'fortran_order': False, 'shape': (6,)}", "expected a dtype string"},
      {"{'descr: '<i4', 'fortran_order': False, 'shape': (6,)}", "expected ':'"},
      {"{'descr': '<i4' 'fortran_order': False, 'shape': (6,)}", "expected ',' or '}'"},
      {"{'descr': '<i4', 'fortran_order': False, 'shape': (6,)} trailing", "after the header dict"},
      {"{'descr': '<i4, 'fortran_order': False, 'shape': (6,)}", "expected ',' or '}'"},
      {"{'descr': 'int32', 'fortran_order': False, 'shape': (6,)}", "unsupported dtype 'int32'"},
      {"{'descr': '<i3', 'fortran_order': False, 'shape': (6,)}", "unsupported dtype '<i3'"},
      {"{'descr': '<f16', 'fortran_order': False, 'shape': (6,)}", "unsupported dtype '<f16'"},
      {"{'descr': '", "unterminated string"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dict);
    Status s;
    parseBytes(makeNpy(c.dict, i32Data(6)), &s);
    expectError(s, "mem.npy", c.reason);
  }
  // A NUL byte inside the header.
  auto b = makeNpy("{'descr': '<i4', 'fortran_order': False, 'shape': (6,), }", i32Data(6));
  b[20] = 0;
  Status s;
  parseBytes(b, &s);
  expectError(s, "mem.npy", "NUL");
}

TEST_F(NpzBadInput, NotAZip) {
  expectError(npy::readNpz(path("i4_le_C_v1.npy")).status(), path("i4_le_C_v1.npy"),
              "not a valid .npz (zip) file: Not a zip archive (it is a .npy file)");
  expectError(npy::readNpy(path("plain.npz")).status(), path("plain.npz"), "it looks like a zip / .npz archive");
  std::string text = "PK\x03\x04 this is not really a zip archive";
  expectError(npy::parseNpz(reinterpret_cast<const uint8_t*>(text.data()), text.size(), "x.npz").status(), "x.npz",
              "not a valid .npz");
  expectError(npy::parseNpz(nullptr, 0, "x.npz").status(), "x.npz", "not a valid .npz");
  expectError(npy::readNpz(path("missing.npz")).status(), path("missing.npz"), "cannot open");
}

TEST_F(NpzBadInput, MemberNotNpy) {
  auto r = npy::readNpz(path("nonnpy.npz"));
  expectError(r.status(), path("nonnpy.npz"), "member 'readme.txt': not a .npy member");
  r = npy::readNpz(path("badmember.npz"));
  expectError(r.status(), path("badmember.npz"), "member 'broken.npy': ");
}

TEST_F(NpzBadInput, ImpossibleMemberSize) {
  // Checked before allocating: a stored member cannot be larger than its compressed size, a deflated one
  // not more than ~1032 times larger.
  for (const char* file : {"liar_stored.npz", "liar_deflated.npz"}) {
    auto r = npy::readNpz(path(file));
    expectError(r.status(), path(file), "member 'x.npy': claimed size 1073741824 is impossible");
  }
}

TEST_F(NpzBadInput, CorruptAndTruncatedZip) {
  auto good = readBytes(gDir / "big.npz");
  // Truncations: the central directory is at the end, so every cut loses it or part of it.
  for (size_t len : {good.size() - 1, good.size() / 2, size_t(30)}) {
    SCOPED_TRACE(len);
    auto r = npy::parseNpz(good.data(), len, "c.npz");
    expectError(r.status(), "c.npz", "");
  }
  // Flip bytes in the middle of the deflated data: inflate or the CRC check must fail.
  auto bad = good;
  for (size_t i = 200; i < 220; ++i) bad[i] ^= 0x5a;
  auto r = npy::parseNpz(bad.data(), bad.size(), "c.npz");
  expectError(r.status(), "c.npz", "member 'big.npy'");
  // Stored member: a flipped data byte is caught by the CRC.
  auto plain = readBytes(gDir / "plain.npz");
  std::string s(plain.begin(), plain.end());
  size_t at = s.find("zeta.npy");
  ASSERT_NE(at, std::string::npos);
  // zeta.npy's data: after the name (8 bytes), the zip64 extra field Python writes (20 bytes) and the 128-byte
  // .npy header.
  plain[at + 8 + 20 + 128 + 2] ^= 1;
  r = npy::parseNpz(plain.data(), plain.size(), "c.npz");
  expectError(r.status(), "c.npz", "member 'zeta.npy'");
}

// ------------------------------------------------------------------------------------------------------------
// Writing: numpy checks what tosakit writes

TEST_F(NpyWrite, NumpyReadsWhatWeWrite) {
  auto w = [](const std::string& name, const Tensor& t) {
    Status s = npy::writeNpy(path(name), t);
    ASSERT_TRUE(s.isOk()) << s.toString();
  };
  w("w_bool.npy", Tensor::fromInts(DType::Bool, {2, 3}, {1, 0, 1, 0, 0, 1}));
  w("w_i8.npy", Tensor::fromInts(DType::I8, {5}, {-128, -1, 0, 1, 127}));
  w("w_i16.npy", Tensor::fromInts(DType::I16, {3}, {-32768, 32767, 7}));
  std::vector<int64_t> v24;
  for (int i = 0; i < 24; ++i) v24.push_back(i - 12);
  w("w_i32.npy", Tensor::fromInts(DType::I32, {2, 3, 4}, v24));
  w("w_i64.npy", Tensor::fromInts(DType::I64, {2}, {INT64_MIN, INT64_MAX}));
  w("w_u8.npy", Tensor::fromInts(DType::U8, {2}, {0, 255}));
  w("w_u16.npy", Tensor::fromInts(DType::U16, {2}, {0, 65535}));
  w("w_u32.npy", Tensor::fromInts(DType::U32, {2}, {0, 4294967295}));
  w("w_fp16.npy", Tensor::fromDoubles(DType::FP16, {4}, {1.5, -0.0, 65504.0, std::ldexp(1.0, -24)}));
  w("w_fp32.npy", Tensor::fromDoubles(DType::FP32, {2, 2}, {0.1, -2.5, INFINITY, 1e-45}));
  w("w_fp64.npy", Tensor::fromDoubles(DType::FP64, {3}, {0.1, -INFINITY, 5e-324}));
  w("w_scalar.npy", Tensor::fromInts(DType::I32, {}, {42}));
  w("w_empty.npy", Tensor(DType::FP32, {123456789012, 0}));
  w("w_rank6.npy", Tensor::fromInts(DType::I8, {1, 2, 1, 2, 1, 2}, std::vector<int64_t>(8, 1)));
  // Types numpy lacks: bit patterns / wider integers (bf16 1.0 = 0x3f80, -2.0 = 0xc000, NaN 0x7fc0;
  // fp8e4m3 1.0 = 0x38, NaN 0x7f, -0 = 0x80; fp8e5m2 1.0 = 0x3c, inf 0x7c).
  w("w_bf16.npy", Tensor::fromInts(DType::BF16, {3}, {0x3f80, 0xc000, 0x7fc0}));
  w("w_fp8e4m3.npy", Tensor::fromInts(DType::FP8E4M3, {3}, {0x38, 0x7f, 0x80}));
  w("w_fp8e5m2.npy", Tensor::fromInts(DType::FP8E5M2, {2}, {0x3c, 0x7c}));
  w("w_i4.npy", Tensor::fromInts(DType::I4, {4}, {-8, -1, 0, 7}));
  w("w_i48.npy", Tensor::fromInts(DType::I48, {2}, {-(int64_t(1) << 47), (int64_t(1) << 47) - 1}));

  std::vector<int64_t> mod5;
  for (int i = 0; i < 1000; ++i) mod5.push_back(i % 5);
  npy::NamedTensors ts = {{"zeta", Tensor::fromDoubles(DType::FP32, {2, 2}, {1, 2, 3, 4})},
                          {"alpha", Tensor::fromInts(DType::I8, {3}, {-1, 2, -3})},
                          {"mid", Tensor::fromInts(DType::I32, {1000}, mod5)}};
  ASSERT_TRUE(npy::writeNpz(path("w_stored.npz"), ts).isOk());
  ASSERT_TRUE(npy::writeNpz(path("w_deflated.npz"), ts, true).isOk());
  ASSERT_TRUE(npy::writeNpz(path("w_empty.npz"), {}).isOk());

  int rc = runPython(kCheckScript, "check.py");
  EXPECT_EQ(rc, 0) << readText(gDir / "check.py.log");
  // No temporary file left behind.
  for (const auto& e : fs::directory_iterator(gDir))
    EXPECT_EQ(e.path().string().find(".tmp-tosakit"), std::string::npos) << e.path();
}

TEST_F(NpyWrite, RoundTripAllDtypes) {
  for (DType t : tosakit::kAllDTypes) {
    SCOPED_TRACE(std::string(tosakit::dtypeName(t)));
    Tensor x(t, {2, 3});
    for (int64_t i = 0; i < 6; ++i) x.setInt(i, i - 3);
    auto bytes = npy::serializeNpy(x);
    EXPECT_EQ(bytes.size() % 64, size_t(x.byteSize()) % 64);  // header is padded to 64 bytes
    auto back = npy::parseNpy(bytes.data(), bytes.size(), "rt");
    ASSERT_TRUE(back.isOk()) << back.status().toString();
    auto adapted = npy::adaptToDType(*back, t, "rt");
    ASSERT_TRUE(adapted.isOk()) << adapted.status().toString();
    EXPECT_TRUE(adapted->identical(x));
  }
}

TEST_F(NpyWrite, FailureLeavesNoFile) {
  Tensor t = Tensor::fromInts(DType::I32, {2}, {1, 2});
  // Directory does not exist.
  std::string p = path("no_such_dir/x.npy");
  expectError(npy::writeNpy(p, t), p, "cannot write");
  EXPECT_FALSE(fs::exists(p));
  EXPECT_FALSE(fs::exists(p + ".tmp-tosakit"));
  // The target is a directory: the rename fails, the directory stays, no temp file remains.
  fs::create_directories(gDir / "is_a_dir.npy");
  expectError(npy::writeNpy(path("is_a_dir.npy"), t), path("is_a_dir.npy"), "rename");
  EXPECT_TRUE(fs::is_directory(gDir / "is_a_dir.npy"));
  EXPECT_FALSE(fs::exists(path("is_a_dir.npy.tmp-tosakit")));
  fs::create_directories(gDir / "is_a_dir.npz");
  expectError(npy::writeNpz(path("is_a_dir.npz"), {{"a", t}}), path("is_a_dir.npz"), "rename");
  EXPECT_FALSE(fs::exists(path("is_a_dir.npz.tmp-tosakit")));
  expectError(npy::writeNpz(path("no_such_dir/x.npz"), {{"a", t}}), path("no_such_dir/x.npz"), "");
  EXPECT_FALSE(fs::exists(path("no_such_dir")));
  // Bad names: duplicates, empty.
  expectError(npy::writeNpz(path("dup.npz"), {{"a", t}, {"a", t}}), path("dup.npz"), "appears twice");
  expectError(npy::writeNpz(path("empty_name.npz"), {{"", t}}), path("empty_name.npz"), "empty name");
  EXPECT_FALSE(fs::exists(path("dup.npz")));
  // An existing file is replaced whole on success.
  ASSERT_TRUE(npy::writeNpy(path("replace.npy"), Tensor::fromInts(DType::I8, {100}, {})).isOk());
  ASSERT_TRUE(npy::writeNpy(path("replace.npy"), t).isOk());
  auto back = npy::readNpy(path("replace.npy"));
  ASSERT_TRUE(back.isOk());
  EXPECT_EQ(back->toInts(), (std::vector<int64_t>{1, 2}));
}

TEST_F(NpzWrite, ReadBackKeepsOrder) {
  npy::NamedTensors ts = {{"z", Tensor::fromInts(DType::BF16, {1}, {0x3f80})},
                          {"a", Tensor::fromInts(DType::I4, {2}, {-8, 7})},
                          {"m", Tensor(DType::FP32, {0, 4})}};
  for (bool compress : {false, true}) {
    ASSERT_TRUE(npy::writeNpz(path("rb.npz"), ts, compress).isOk());
    auto back = npy::readNpz(path("rb.npz"));
    ASSERT_TRUE(back.isOk()) << back.status().toString();
    ASSERT_EQ(back->size(), 3u);
    EXPECT_EQ((*back)[0].first, "z");
    EXPECT_EQ((*back)[0].second.dtype(), DType::U16);  // numpy carrier of bf16
    EXPECT_EQ((*back)[0].second.getInt(0), 0x3f80);
    EXPECT_EQ((*back)[1].first, "a");
    EXPECT_EQ((*back)[1].second.dtype(), DType::I8);
    EXPECT_EQ((*back)[1].second.toInts(), (std::vector<int64_t>{-8, 7}));
    EXPECT_EQ((*back)[2].first, "m");
    EXPECT_EQ((*back)[2].second.shape(), (Shape{0, 4}));
  }
}

// ------------------------------------------------------------------------------------------------------------
// dtype convention

TEST_F(NpyConvention, ToNumpyDType) {
  EXPECT_EQ(npy::toNumpyDType(Tensor(DType::BF16, {1})).dtype(), DType::U16);
  EXPECT_EQ(npy::toNumpyDType(Tensor(DType::FP8E4M3, {1})).dtype(), DType::U8);
  EXPECT_EQ(npy::toNumpyDType(Tensor(DType::FP8E5M2, {1})).dtype(), DType::U8);
  EXPECT_EQ(npy::toNumpyDType(Tensor(DType::I4, {1})).dtype(), DType::I8);
  EXPECT_EQ(npy::toNumpyDType(Tensor(DType::I48, {1})).dtype(), DType::I64);
  for (DType t : {DType::Bool, DType::I8, DType::I16, DType::I32, DType::I64, DType::U8, DType::U16, DType::U32,
                  DType::FP16, DType::FP32, DType::FP64})
    EXPECT_EQ(npy::toNumpyDType(Tensor(t, {1})).dtype(), t);
  // Values: i4 -3 stays -3 as int8; i48 -(2^47) stays as int64; bf16 bits unchanged.
  EXPECT_EQ(npy::toNumpyDType(Tensor::fromInts(DType::I4, {1}, {-3})).getInt(0), -3);
  EXPECT_EQ(npy::toNumpyDType(Tensor::fromInts(DType::I48, {1}, {-(int64_t(1) << 47)})).getInt(0), -(int64_t(1) << 47));
  EXPECT_EQ(npy::toNumpyDType(Tensor::fromInts(DType::BF16, {1}, {0xbf80})).getInt(0), 0xbf80);
}

TEST_F(NpyConvention, AdaptToDType) {
  Tensor u16 = Tensor::fromInts(DType::U16, {2}, {0x3f80, 0x7f80});
  auto bf = npy::adaptToDType(u16, DType::BF16, "x");
  ASSERT_TRUE(bf.isOk());
  EXPECT_EQ(bf->dtype(), DType::BF16);
  EXPECT_EQ(bf->getFloat(0), 1.0);  // 0x3f80 = bf16 1.0
  EXPECT_TRUE(std::isinf(bf->getFloat(1)));
  Tensor u8 = Tensor::fromInts(DType::U8, {1}, {0x38});  // 1.0 in e4m3; 0.5 in e5m2 (0 01110 00)
  EXPECT_EQ(npy::adaptToDType(u8, DType::FP8E4M3, "x")->getFloat(0), 1.0);
  EXPECT_EQ(npy::adaptToDType(u8, DType::FP8E5M2, "x")->getFloat(0), 0.5);
  auto i4 = npy::adaptToDType(Tensor::fromInts(DType::I8, {3}, {-8, 0, 7}), DType::I4, "x");
  ASSERT_TRUE(i4.isOk());
  EXPECT_EQ(i4->dtype(), DType::I4);
  EXPECT_EQ(i4->toInts(), (std::vector<int64_t>{-8, 0, 7}));
  expectError(npy::adaptToDType(Tensor::fromInts(DType::I8, {3}, {0, 8, 0}), DType::I4, "in.npy").status(), "in.npy",
              "value 8 at index 1 is outside the i4 range [-8, 7]");
  expectError(npy::adaptToDType(Tensor::fromInts(DType::I8, {1}, {-9}), DType::I4, "in.npy").status(), "in.npy",
              "value -9");
  const int64_t m47 = int64_t(1) << 47;
  auto i48 = npy::adaptToDType(Tensor::fromInts(DType::I64, {2}, {-m47, m47 - 1}), DType::I48, "x");
  ASSERT_TRUE(i48.isOk());
  EXPECT_EQ(i48->dtype(), DType::I48);
  EXPECT_EQ(i48->toInts(), (std::vector<int64_t>{-m47, m47 - 1}));
  expectError(npy::adaptToDType(Tensor::fromInts(DType::I64, {1}, {m47}), DType::I48, "in.npy").status(), "in.npy",
              "outside the i48 range");
  expectError(npy::adaptToDType(Tensor::fromInts(DType::I64, {1}, {-m47 - 1}), DType::I48, "in.npy").status(), "in.npy",
              "outside the i48 range");
  // Same dtype: unchanged.
  Tensor f = Tensor::fromDoubles(DType::FP32, {2}, {1.5, -2});
  EXPECT_TRUE(npy::adaptToDType(f, DType::FP32, "x")->identical(f));
  // Mismatches.
  expectError(npy::adaptToDType(Tensor(DType::I32, {1}), DType::FP32, "in.npy").status(), "in.npy",
              "dtype i32 does not match expected fp32");
  expectError(npy::adaptToDType(Tensor(DType::I16, {1}), DType::BF16, "in.npy").status(), "in.npy",
              "dtype i16 does not match expected bf16");
  expectError(npy::adaptToDType(Tensor(DType::U16, {1}), DType::I16, "in.npy").status(), "in.npy",
              "dtype u16 does not match expected i16");
  expectError(npy::adaptToDType(Tensor(DType::I32, {1}), DType::I48, "in.npy").status(), "in.npy",
              "does not match expected i48");
  expectError(npy::adaptToDType(Tensor(DType::I8, {1}), DType::FP8E4M3, "in.npy").status(), "in.npy",
              "does not match expected fp8e4m3");
}

}  // namespace
