/*!
 * \file runtime_npy_test.cc
 * \brief Tests of `.npy`/`.npz` reading and writing (stage 1): round trips of every dtype and
 * of odd shapes, the exact header NumPy expects, Fortran order, big-endian and version-2
 * headers, archives, the errors for truncated, malformed and compressed files, and (when a
 * Python with NumPy is available) files exchanged with NumPy itself in both directions.
 */
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "minitvm/runtime/container.h"
#include "minitvm/runtime/npy.h"
#include "minitvm/runtime/registry.h"
#include "minitvm_test_util.h"

using namespace minitvm::runtime;  // NOLINT
using minitvm::testing::MakeArray;
using minitvm::testing::ReadBytes;
using minitvm::testing::TempDir;
using minitvm::testing::ToVector;
using minitvm::testing::WriteBytes;

namespace {

/*! \brief An array of `dtype` whose bytes are 0, 1, 2, ... (valid for every dtype but bool). */
NDArray PatternArray(const std::vector<int64_t>& shape, DataType dtype) {
  NDArray a = NDArray::Empty(shape, dtype);
  auto* p = a.data_as<uint8_t>();
  for (size_t i = 0; i < a.NBytes(); ++i) p[i] = dtype.is_bool() ? (i % 3 == 0) : (i * 7) % 251;
  return a;
}

std::string Bytes(const NDArray& a) {
  std::string out(a.NBytes(), '\0');
  if (!out.empty()) a.CopyToBytes(out.data(), out.size());
  return out;
}

/*! \brief A .npy file with the given header dict and raw data, padded as NumPy does. */
std::string NpyFile(const std::string& dict, const std::string& data, int major = 1) {
  size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) {
    out.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xFF));
  }
  return out + header + data;
}

template <typename T>
std::string RawOf(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

}  // namespace

TEST(Npy, RoundTripEveryDTypeAndShape) {
  TempDir dir;
  const char* dtypes[] = {"int8",   "int16",   "int32",    "int64",   "uint8",   "uint16", "uint32",
                          "uint64", "float16", "bfloat16", "float32", "float64", "bool"};
  const std::vector<std::vector<int64_t>> shapes = {{}, {0}, {5}, {2, 3}, {2, 3, 4}, {3, 0, 2}};
  for (const char* name : dtypes) {
    for (const auto& shape : shapes) {
      NDArray a = PatternArray(shape, DataType(name));
      std::string path = dir.File("a.npy");
      SaveNpy(path, a);
      NDArray b = LoadNpy(path);
      EXPECT_EQ(b.dtype(), a.dtype()) << name;
      EXPECT_EQ(b.Shape(), a.Shape()) << name << " " << ShapeToString(shape);
      EXPECT_EQ(Bytes(b), Bytes(a)) << name << " " << ShapeToString(shape);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % kAllocAlignment, 0u);
    }
  }
}

TEST(Npy, HeaderIsWhatNumPyWrites) {
  NDArray a = MakeArray<float>({2, 3}, DataType::Float(32), {0, 1, 2, 3, 4, 5});
  std::string bytes = SerializeNpy(a);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);  // the data starts 64-byte aligned
  std::string header = bytes.substr(10, header_len);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0), 0u);
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(bytes.size(), 10 + header_len + 24);

  auto descr_of = [](const char* dtype, std::vector<int64_t> shape) {
    std::string b = SerializeNpy(NDArray::Empty(shape, DataType(dtype)));
    return b.substr(10, b.find('\n') - 10);
  };
  EXPECT_NE(descr_of("bool", {1}).find("'descr': '|b1'"), std::string::npos);
  EXPECT_NE(descr_of("int8", {1}).find("'descr': '|i1'"), std::string::npos);
  EXPECT_NE(descr_of("uint64", {1}).find("'descr': '<u8'"), std::string::npos);
  EXPECT_NE(descr_of("float16", {1}).find("'descr': '<f2'"), std::string::npos);
  EXPECT_NE(descr_of("bfloat16", {1}).find("'descr': '<V2'"), std::string::npos);
  EXPECT_NE(descr_of("int32", {7}).find("'shape': (7,)"), std::string::npos);
  EXPECT_NE(descr_of("int32", {}).find("'shape': ()"), std::string::npos);
}

TEST(Npy, StridedArraysAreSavedInLogicalOrder) {
  NDArray a = MakeArray<int32_t>({2, 3}, DataType::Int(32), {0, 1, 2, 3, 4, 5});
  NDArray t = a.CreateStridedView({3, 2}, {1, 3}, 0);
  NDArray back = ParseNpy(SerializeNpy(t), "test");
  EXPECT_EQ(back.Shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(ToVector<int32_t>(back), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
}

TEST(Npy, FortranOrderBigEndianAndVersion2) {
  // Fortran order: the 2x3 array [[0,1,2],[3,4,5]] is stored column by column.
  std::string fortran = NpyFile("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }",
                                RawOf<int32_t>({0, 3, 1, 4, 2, 5}));
  NDArray f = ParseNpy(fortran, "fortran");
  EXPECT_TRUE(f.IsContiguous());
  EXPECT_EQ(ToVector<int32_t>(f), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));

  std::string f3 = NpyFile("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 2, 2), }",
                           RawOf<int16_t>({0, 4, 2, 6, 1, 5, 3, 7}));
  EXPECT_EQ(ToVector<int16_t>(ParseNpy(f3, "f3")), (std::vector<int16_t>{0, 1, 2, 3, 4, 5, 6, 7}));

  // Big-endian data is swapped to the host order.
  std::string be = NpyFile("{'descr': '>u2', 'fortran_order': False, 'shape': (2,), }",
                           std::string("\x01\x02\x00\xff", 4));
  EXPECT_EQ(ToVector<uint16_t>(ParseNpy(be, "be")), (std::vector<uint16_t>{0x0102, 0x00ff}));

  // Version 2.0 has a 4-byte header length; double quotes and odd spacing are accepted too.
  std::string v2 = NpyFile("{\"shape\":(3,),\"fortran_order\":False,\"descr\":\"<f8\"}",
                           RawOf<double>({1.5, 2.5, 3.5}), 2);
  EXPECT_EQ(ToVector<double>(ParseNpy(v2, "v2")), (std::vector<double>{1.5, 2.5, 3.5}));
}

TEST(Npy, MalformedFilesRaiseValueErrorNamingTheFile) {
  TempDir dir;
  std::string path = dir.File("bad.npy");
  std::string good = SerializeNpy(MakeArray<float>({4}, DataType::Float(32), {1, 2, 3, 4}));
  auto expect_bad = [&](const std::string& bytes, const std::string& why) {
    WriteBytes(path, bytes);
    EXPECT_MINITVM_ERROR(LoadNpy(path), "ValueError", "LoadNpy: \"" + path + "\": ");
    EXPECT_MINITVM_ERROR(LoadNpy(path), "ValueError", why);
  };
  expect_bad(good.substr(0, good.size() - 3),
             "truncated: shape (4,) of <f4 needs 16 data bytes "
             "but only 13 are present");
  expect_bad(good.substr(0, 40), "truncated: the header says it is 118 bytes");
  expect_bad(good.substr(0, 8), "truncated");
  expect_bad("", "truncated");
  expect_bad("PK\x03\x04 this is a zip", "not a .npy file");
  std::string v9 = good;
  v9[6] = 9;
  expect_bad(v9, "unsupported .npy format version 9.0");
  const std::string data = RawOf<float>({1, 2});
  expect_bad(NpyFile("{'descr': '<f4', 'shape': (2,), }", data),
             "malformed .npy header: missing key 'fortran_order'");
  expect_bad(NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", data),
             "unexpected key 'x'");
  expect_bad(NpyFile("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", data),
             "expected True or False");
  expect_bad(NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }", data),
             "expected a non-negative integer");
  expect_bad(NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2", data),
             "malformed .npy header");
  expect_bad(NpyFile("garbage", data), "malformed .npy header: expected '{'");
  expect_bad(NpyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", data),
             "unsupported dtype descriptor '<c8' (complex numbers are not supported)");
  expect_bad(NpyFile("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", data),
             "unsupported dtype descriptor '|O'");
  expect_bad(NpyFile("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", data),
             "string arrays are not supported");
  expect_bad(NpyFile("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", data),
             "structured dtypes");
  expect_bad(NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': "
                     "(999999999999, 999999999999, 999999999999), }",
                     data),
             "is too large");
  expect_bad(NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': "
                     "(0, 999999999999, 999999999999), }",
                     data),
             "is too large");
  // Extra bytes after the data are ignored, as NumPy does.
  WriteBytes(path, good + "trailing");
  EXPECT_EQ(ToVector<float>(LoadNpy(path)), (std::vector<float>{1, 2, 3, 4}));
}

TEST(Npy, FileSystemErrors) {
  TempDir dir;
  EXPECT_MINITVM_ERROR(LoadNpy(dir.File("missing.npy")), "RuntimeError",
                       "LoadNpy: cannot open \"" + dir.File("missing.npy") + "\" for reading");
  NDArray a = NDArray::Empty({1}, DataType::Float(32));
  EXPECT_MINITVM_ERROR(SaveNpy(dir.File("no/such/dir/a.npy"), a), "RuntimeError",
                       "SaveNpy: cannot open");
  EXPECT_MINITVM_ERROR(SaveNpy(dir.File("a.npy"), NDArray()), "ValueError", "the array is None");
  EXPECT_MINITVM_ERROR(SaveNpy(dir.File("a.npy"), NDArray::Empty({2}, DataType::Float(32, 4))),
                       "ValueError", "vector dtype float32x4 has no .npy equivalent");
}

TEST(Npz, RoundTrip) {
  TempDir dir;
  std::string path = dir.File("a.npz");
  std::map<std::string, NDArray> arrays = {
      {"weight", PatternArray({3, 4}, DataType::Float(32))},
      {"bias", PatternArray({4}, DataType::Float(64))},
      {"mask", PatternArray({2, 2}, DataType::Bool())},
      {"scalar", PatternArray({}, DataType::Int(64))},
      {"empty", PatternArray({0, 3}, DataType::UInt(8))},
  };
  SaveNpz(path, arrays);
  std::map<std::string, NDArray> back = LoadNpz(path);
  ASSERT_EQ(back.size(), arrays.size());
  for (const auto& [name, a] : arrays) {
    ASSERT_EQ(back.count(name), 1u) << name;
    EXPECT_EQ(back[name].dtype(), a.dtype()) << name;
    EXPECT_EQ(back[name].Shape(), a.Shape()) << name;
    EXPECT_EQ(Bytes(back[name]), Bytes(a)) << name;
  }
  SaveNpz(path, {});
  EXPECT_TRUE(LoadNpz(path).empty());
}

TEST(Npz, RegisteredFunctionsKeepArchiveOrder) {
  TempDir dir;
  std::string path = dir.File("ordered.npz");
  Map<String, NDArray> arrays;
  arrays.Set("zeta", PatternArray({2}, DataType::Int(8)));
  arrays.Set("alpha", PatternArray({3}, DataType::Int(16)));
  Registry::GetOrThrow("runtime.SaveNpz")(path, arrays);
  auto back = Registry::GetOrThrow("runtime.LoadNpz")(path).cast<Map<String, NDArray>>();
  auto items = back.items();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].first, "zeta");
  EXPECT_EQ(items[1].first, "alpha");
  EXPECT_EQ(items[1].second.Shape(), (std::vector<int64_t>{3}));

  std::string npy = dir.File("one.npy");
  Registry::GetOrThrow("runtime.SaveNpy")(npy, items[0].second);
  NDArray one = Registry::GetOrThrow("runtime.LoadNpy")(npy).cast<NDArray>();
  EXPECT_EQ(Bytes(one), Bytes(items[0].second));

  Map<Any, Any> bad;
  bad.Set(Any("x"), Any(1));
  EXPECT_MINITVM_ERROR(Registry::GetOrThrow("runtime.SaveNpz")(path, bad), "TypeError",
                       "SaveNpz: value of \"x\" must be an NDArray but got int");
  Map<Any, Any> bad_key;
  bad_key.Set(Any(1), Any(one));
  EXPECT_MINITVM_ERROR(Registry::GetOrThrow("runtime.SaveNpz")(path, bad_key), "TypeError",
                       "SaveNpz: keys must be str but got int");
  EXPECT_MINITVM_ERROR(Registry::GetOrThrow("runtime.LoadNpy")(1), "TypeError",
                       "runtime.LoadNpy: argument 0: expected str but got int");
}

TEST(Npz, MalformedArchives) {
  TempDir dir;
  std::string path = dir.File("a.npz");
  SaveNpz(path, {{"x", PatternArray({16}, DataType::Float(32))}});
  const std::string good = ReadBytes(path);
  auto expect_bad = [&](const std::string& bytes, const std::string& why) {
    WriteBytes(path, bytes);
    EXPECT_MINITVM_ERROR(LoadNpz(path), "ValueError", "LoadNpz: \"" + path + "\": ");
    EXPECT_MINITVM_ERROR(LoadNpz(path), "ValueError", why);
  };
  // A deflated member (as np.savez_compressed writes): flip the method in both headers.
  std::string compressed = good;
  compressed[8] = 8;
  compressed[good.find("PK\x01\x02") + 10] = 8;
  expect_bad(compressed,
             "entry \"x.npy\" is compressed (zip method 8); minitvm reads only uncompressed "
             "archives: save with np.savez, not np.savez_compressed");
  std::string corrupt = good;
  corrupt[good.find("NUMPY") + 100] ^= 0x55;
  expect_bad(corrupt, "entry \"x.npy\" fails its CRC-32 check");
  expect_bad(good.substr(0, good.size() / 2), "no zip end-of-central-directory record");
  expect_bad(good.substr(0, 10), "too short to be a zip archive");
  expect_bad(SerializeNpy(PatternArray({4}, DataType::Int(8))),
             "no zip end-of-central-directory record (not a .npz file, or truncated)");
  // Cutting the front off moves the central directory outside the file.
  expect_bad(good.substr(64), "lies outside the file");
  // A bad .npy inside a good archive names the entry and the archive.
  std::string inner = good;
  inner[good.find("NUMPY") + 5] = 7;  // the version byte
  WriteBytes(path, inner);
  EXPECT_MINITVM_ERROR(LoadNpz(path), "ValueError", "CRC-32");
  EXPECT_MINITVM_ERROR(SaveNpz(path, {{"", PatternArray({1}, DataType::Int(8))}}), "ValueError",
                       "empty array name");
}

TEST(Npz, BadEntryInsideNamesEntryAndArchive) {
  // Build an archive whose member is not a .npy file at all but has a valid CRC.
  TempDir dir;
  std::string path = dir.File("a.npz");
  SaveNpz(path, {{"x", PatternArray({1}, DataType::Int(8))}});
  std::string bytes = ReadBytes(path);
  size_t magic = bytes.find("\x93NUMPY");
  ASSERT_NE(magic, std::string::npos);
  // Changing the magic and fixing the CRC (stored in both headers) leaves only the .npy error.
  bytes[magic + 1] = 'X';
  std::string member = bytes.substr(magic, bytes.find("PK\x01\x02") - magic);
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : member) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
  }
  crc ^= 0xFFFFFFFFu;
  for (size_t at : {size_t{14}, bytes.find("PK\x01\x02") + 16}) {
    for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>((crc >> (8 * i)) & 0xFF);
  }
  WriteBytes(path, bytes);
  EXPECT_MINITVM_ERROR(LoadNpz(path), "ValueError",
                       "entry \"x.npy\" of \"" + path + "\": not a .npy file");
}

namespace {
/*! \brief A Python with NumPy to compare against, or "" (then the test is skipped). */
std::string PythonWithNumpy() {
  const char* env = std::getenv("MINITVM_PYTHON");
  std::string python = env && *env                                   ? env
                       : std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3"
                                                                     : "python3";
  std::string cmd = python + " -c 'import numpy' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0 ? python : "";
}
}  // namespace

TEST(NpyNumPyCompat, FilesMadeByNumPyLoad) {
  std::string python = PythonWithNumpy();
  if (python.empty()) GTEST_SKIP() << "no python3 with numpy";
  TempDir dir;
  std::string script = dir.File("make.py");
  WriteBytes(script, R"PY(
import sys, numpy as np
d = sys.argv[1]
for name in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float16", "float32", "float64"]:
    np.save(f"{d}/{name}.npy", (np.arange(12) * 3).astype(name).reshape(3, 4))
np.save(f"{d}/bool.npy", np.array([True, False, True]))
np.save(f"{d}/fortran.npy", np.asfortranarray(np.arange(6, dtype="<i8").reshape(2, 3)))
np.save(f"{d}/bigendian.npy", np.arange(4, dtype=">i4"))
np.save(f"{d}/scalar.npy", np.float64(2.5))
np.savez(f"{d}/plain.npz", w=np.arange(6, dtype=np.float32).reshape(2, 3), b=np.ones(3))
np.savez_compressed(f"{d}/compressed.npz", w=np.arange(6, dtype=np.float32))
)PY");
  ASSERT_EQ(std::system((python + " " + script + " " + dir.path()).c_str()), 0);
  for (const char* name : {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                           "float16", "float32", "float64"}) {
    NDArray a = LoadNpy(dir.File(std::string(name) + ".npy"));
    EXPECT_EQ(a.dtype(), DataType(name));
    EXPECT_EQ(a.Shape(), (std::vector<int64_t>{3, 4}));
  }
  EXPECT_EQ(ToVector<int32_t>(LoadNpy(dir.File("int32.npy")))[11], 33);
  EXPECT_EQ(ToVector<uint16_t>(LoadNpy(dir.File("float16.npy")))[1], 0x4200);  // 3.0 in binary16
  EXPECT_EQ(ToVector<double>(LoadNpy(dir.File("float64.npy")))[5], 15.0);
  EXPECT_EQ(ToVector<uint8_t>(LoadNpy(dir.File("bool.npy"))), (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(ToVector<int64_t>(LoadNpy(dir.File("fortran.npy"))),
            (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(ToVector<int32_t>(LoadNpy(dir.File("bigendian.npy"))),
            (std::vector<int32_t>{0, 1, 2, 3}));
  NDArray scalar = LoadNpy(dir.File("scalar.npy"));
  EXPECT_EQ(scalar.ndim(), 0);
  EXPECT_EQ(ToVector<double>(scalar), (std::vector<double>{2.5}));
  auto npz = LoadNpz(dir.File("plain.npz"));
  ASSERT_EQ(npz.size(), 2u);
  EXPECT_EQ(ToVector<float>(npz["w"]), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(ToVector<double>(npz["b"]), (std::vector<double>{1, 1, 1}));
  EXPECT_MINITVM_ERROR(LoadNpz(dir.File("compressed.npz")), "ValueError",
                       "not np.savez_compressed");
}

TEST(NpyNumPyCompat, FilesMadeByMinitvmLoadInNumPy) {
  std::string python = PythonWithNumpy();
  if (python.empty()) GTEST_SKIP() << "no python3 with numpy";
  TempDir dir;
  for (const char* name : {"int8", "int64", "uint32", "float16", "float32", "float64", "bool"}) {
    SaveNpy(dir.File(std::string(name) + ".npy"), PatternArray({2, 5}, DataType(name)));
  }
  SaveNpy(dir.File("bfloat16.npy"), PatternArray({3}, DataType::BFloat(16)));
  SaveNpz(dir.File("arrays.npz"), {{"a", PatternArray({2, 5}, DataType::Float(32))},
                                   {"b", PatternArray({}, DataType::Int(16))}});
  std::string script = dir.File("check.py");
  WriteBytes(script, R"PY(
import sys, numpy as np
d = sys.argv[1]
def pattern(n, bool_=False):
    return np.array([(i % 3 == 0) if bool_ else (i * 7) % 251 for i in range(n)], dtype=np.uint8)
for name in ["int8", "int64", "uint32", "float16", "float32", "float64", "bool"]:
    a = np.load(f"{d}/{name}.npy")
    assert a.dtype == np.dtype(name) and a.shape == (2, 5), (name, a.dtype, a.shape)
    assert a.flags.c_contiguous
    expect = pattern(a.nbytes, name == "bool")
    assert (a.view(np.uint8).ravel() == expect).all(), name
b = np.load(f"{d}/bfloat16.npy")
assert b.dtype.itemsize == 2 and b.shape == (3,), b.dtype
with np.load(f"{d}/arrays.npz") as z:
    assert sorted(z.files) == ["a", "b"], z.files
    assert z["a"].dtype == np.float32 and z["a"].shape == (2, 5)
    assert (z["a"].view(np.uint8).ravel() == pattern(40)).all()
    assert z["b"].shape == () and z["b"].dtype == np.int16
print("numpy read minitvm files: OK")
)PY");
  EXPECT_EQ(std::system((python + " " + script + " " + dir.path()).c_str()), 0);
}
