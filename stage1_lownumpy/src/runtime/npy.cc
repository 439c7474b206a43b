/*!
 * \file npy.cc
 * \brief Reading and writing NumPy's `.npy` and `.npz` files (stage 1).
 *
 * A `.npy` file is a magic string, a version, a Python dict literal describing the array
 * (`descr`, `fortran_order`, `shape`) and the raw element bytes. A `.npz` file is a zip
 * archive of `.npy` files; `numpy.savez` stores them uncompressed, so a small zip reader and
 * writer (local headers, central directory, CRC-32) is all that is needed here. Every
 * malformed input is reported as a ValueError naming the file and what is wrong with it.
 */
#include "minitvm/runtime/npy.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include "minitvm/runtime/container.h"
#include "minitvm/runtime/registry.h"

namespace minitvm {
namespace runtime {
namespace {

static_assert(std::endian::native == std::endian::little,
              "npy.cc assumes a little-endian host (the .npy files it writes are little-endian)");

/*! \brief The six magic bytes every .npy file starts with. */
constexpr char kNpyMagic[] = "\x93NUMPY";
constexpr size_t kNpyMagicLen = 6;

// ---- whole-file I/O ------------------------------------------------------------------------

std::string ReadFile(const std::string& path, const char* caller) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    MINITVM_THROW(RuntimeError) << caller << ": cannot open \"" << path << "\" for reading ("
                                << std::strerror(errno) << ")";
  }
  std::ostringstream os;
  os << in.rdbuf();
  if (in.bad()) MINITVM_THROW(RuntimeError) << caller << ": error reading \"" << path << "\"";
  return os.str();
}

void WriteFile(const std::string& path, const std::string& bytes, const char* caller) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    MINITVM_THROW(RuntimeError) << caller << ": cannot open \"" << path << "\" for writing ("
                                << std::strerror(errno) << ")";
  }
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) MINITVM_THROW(RuntimeError) << caller << ": error writing \"" << path << "\"";
}

// ---- dtype descriptors ---------------------------------------------------------------------

/*!
 * \brief The NumPy descriptor of a DataType: "<f4", "|b1", ...
 *
 * NumPy has no bfloat16; we write it as "<V2" (two opaque bytes), which is what NumPy writes
 * for `ml_dtypes.bfloat16`, and read "<V2"/"|V2" back as bfloat16.
 */
std::string DescrOf(DataType t) {
  if (!t.is_scalar()) {
    MINITVM_THROW(ValueError) << "SaveNpy: vector dtype " << t
                              << " has no .npy equivalent (store the lanes as an extra axis)";
  }
  if (t.is_bool()) return "|b1";
  if (t.is_bfloat16()) return "<V2";
  char kind = 0;
  if (t.is_int()) kind = 'i';
  if (t.is_uint()) kind = 'u';
  if (t.is_float()) kind = 'f';
  if (kind == 0 || t.bits() % 8 != 0) {
    MINITVM_THROW(ValueError) << "SaveNpy: dtype " << t << " has no .npy equivalent";
  }
  int bytes = t.bits() / 8;
  return std::string(bytes == 1 ? "|" : "<") + kind + std::to_string(bytes);
}

/*! \brief Parse a NumPy descriptor; sets *swap when the data is big-endian. */
DataType DTypeOfDescr(const std::string& descr, bool* swap, const std::string& what) {
  auto fail = [&](const std::string& why) {
    MINITVM_THROW(ValueError) << what << ": unsupported dtype descriptor '" << descr << "' (" << why
                              << ")";
  };
  if (descr.size() < 2) fail("too short");
  char order = descr[0];
  std::string body = descr.substr(1);
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    // NumPy always writes a byte-order character, but "f4" alone is harmless to accept.
    order = '=';
    body = descr;
  }
  char kind = body[0];
  std::string size_text = body.substr(1);
  if (size_text.empty() || size_text.size() > 2 ||
      !std::all_of(size_text.begin(), size_text.end(),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    fail("expected a kind letter and a byte size, e.g. <f4");
  }
  int size = std::stoi(size_text);
  DataType t;
  bool ok = false;
  switch (kind) {
    case 'b':
      ok = size == 1;
      t = DataType::Bool();
      break;
    case 'i':
      ok = size == 1 || size == 2 || size == 4 || size == 8;
      t = DataType::Int(size * 8);
      break;
    case 'u':
      ok = size == 1 || size == 2 || size == 4 || size == 8;
      t = DataType::UInt(size * 8);
      break;
    case 'f':
      ok = size == 2 || size == 4 || size == 8;
      t = DataType::Float(size * 8);
      break;
    case 'V':
      ok = size == 2;  // bfloat16, see DescrOf
      t = DataType::BFloat(16);
      break;
    case 'c':
      fail("complex numbers are not supported");
      break;
    case 'O':
      fail("object arrays cannot be loaded");
      break;
    case 'U':
    case 'S':
      fail("string arrays are not supported");
      break;
    default:
      fail("unknown kind");
  }
  if (!ok) fail("unsupported size for this kind");
  *swap = order == '>' && size > 1;
  return t;
}

// ---- the header: a Python dict literal ----------------------------------------------------

/*! \brief The three fields of a .npy header. */
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

/*!
 * \brief A tiny parser for the one dict literal NumPy writes, e.g.
 * `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.
 */
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& what) : s_(text), what_(what) {}

  NpyHeader Parse() {
    NpyHeader h;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    Expect('{');
    while (true) {
      SkipSpace();
      if (Peek() == '}') {
        ++pos_;
        break;
      }
      std::string key = ParseString();
      Expect(':');
      if (key == "descr") {
        SkipSpace();
        if (Peek() == '[') Fail("structured dtypes (a list as 'descr') are not supported");
        h.descr = ParseString();
        seen_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = ParseBool();
        seen_order = true;
      } else if (key == "shape") {
        h.shape = ParseShape();
        seen_shape = true;
      } else {
        Fail("unexpected key '" + key + "'");
      }
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
      } else if (Peek() != '}') {
        Fail("expected ',' or '}'");
      }
    }
    if (!seen_descr) Fail("missing key 'descr'");
    if (!seen_order) Fail("missing key 'fortran_order'");
    if (!seen_shape) Fail("missing key 'shape'");
    return h;
  }

 private:
  [[noreturn]] void Fail(const std::string& why) {
    std::string shown = s_.substr(0, s_.find_last_not_of(" \t\r\n") + 1).substr(0, 120);
    MINITVM_THROW(ValueError) << what_ << ": malformed .npy header: " << why << " at column "
                              << pos_ << " of \"" << shown << "\"";
  }
  char Peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  void Expect(char c) {
    SkipSpace();
    if (Peek() != c) Fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string ParseString() {
    SkipSpace();
    char quote = Peek();
    if (quote != '\'' && quote != '"') Fail("expected a quoted string");
    size_t end = s_.find(quote, pos_ + 1);
    if (end == std::string::npos) Fail("unterminated string");
    std::string out = s_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return out;
  }
  bool ParseBool() {
    SkipSpace();
    if (s_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (s_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    Fail("expected True or False");
  }
  int64_t ParseInt() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (pos_ == start) Fail("expected a non-negative integer");
    if (pos_ - start > 18) Fail("dimension too large");
    int64_t v = std::stoll(s_.substr(start, pos_ - start));
    if (Peek() == 'L') ++pos_;  // Python 2 long literals, in very old files
    return v;
  }
  std::vector<int64_t> ParseShape() {
    std::vector<int64_t> shape;
    Expect('(');
    while (true) {
      SkipSpace();
      if (Peek() == ')') {
        ++pos_;
        return shape;
      }
      shape.push_back(ParseInt());
      if (shape.size() > 64) Fail("more than 64 dimensions");
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
      } else if (Peek() != ')') {
        Fail("expected ',' or ')' in shape");
      }
    }
  }

  const std::string& s_;
  const std::string& what_;
  size_t pos_ = 0;
};

uint32_t ReadLE(const std::string& bytes, size_t pos, int nbytes) {
  uint32_t v = 0;
  for (int i = nbytes - 1; i >= 0; --i) {
    v = (v << 8) | static_cast<uint8_t>(bytes[pos + i]);
  }
  return v;
}

uint64_t ReadLE64(const std::string& bytes, size_t pos) {
  return static_cast<uint64_t>(ReadLE(bytes, pos, 4)) |
         (static_cast<uint64_t>(ReadLE(bytes, pos + 4, 4)) << 32);
}

void ByteSwapElements(char* data, int64_t count, int size) {
  for (int64_t i = 0; i < count; ++i) std::reverse(data + i * size, data + (i + 1) * size);
}

// ---- zip ----------------------------------------------------------------------------------

/*! \brief CRC-32 (the zip/PNG polynomial 0xEDB88320), table driven. */
uint32_t Crc32(const char* data, size_t n) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    crc = table[(crc ^ static_cast<uint8_t>(data[i])) & 0xFF] ^ (crc >> 8);
  }
  return crc ^ 0xFFFFFFFFu;
}

constexpr uint32_t kLocalHeaderSig = 0x04034b50;
constexpr uint32_t kCentralHeaderSig = 0x02014b50;
constexpr uint32_t kEndOfCentralDirSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;

/*! \brief One member of a zip archive, as its central directory describes it. */
struct ZipEntry {
  std::string name;
  uint16_t method = 0;
  uint16_t flags = 0;
  uint32_t crc = 0;
  uint64_t compressed_size = 0;
  uint64_t size = 0;
  uint64_t local_offset = 0;
};

/*! \brief Reads the central directory of a zip archive held in memory. */
class ZipReader {
 public:
  ZipReader(const std::string& bytes, const std::string& path) : b_(bytes), path_(path) {}

  std::vector<ZipEntry> Entries() {
    if (b_.size() < 22)
      Fail("too short to be a zip archive (" + std::to_string(b_.size()) +
           " bytes); is it really a .npz file?");
    // The end-of-central-directory record is the last 22 bytes plus a comment of up to 64 KiB.
    size_t eocd = std::string::npos;
    size_t lowest = b_.size() >= 22 + 65535 ? b_.size() - 22 - 65535 : 0;
    for (size_t p = b_.size() - 22 + 1; p-- > lowest;) {
      if (ReadLE(b_, p, 4) == kEndOfCentralDirSig) {
        eocd = p;
        break;
      }
    }
    if (eocd == std::string::npos) {
      Fail("no zip end-of-central-directory record (not a .npz file, or truncated)");
    }
    uint64_t count = ReadLE(b_, eocd + 10, 2);
    uint64_t cd_size = ReadLE(b_, eocd + 12, 4);
    uint64_t cd_offset = ReadLE(b_, eocd + 16, 4);
    if (count == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_offset == 0xFFFFFFFFu) {
      ReadZip64End(eocd, &count, &cd_size, &cd_offset);
    }
    if (cd_offset > b_.size() || cd_size > b_.size() - cd_offset) {
      Fail("central directory lies outside the file (truncated?)");
    }
    std::vector<ZipEntry> entries;
    size_t p = cd_offset;
    size_t end = cd_offset + cd_size;
    for (uint64_t i = 0; i < count; ++i) {
      if (p + 46 > end || ReadLE(b_, p, 4) != kCentralHeaderSig) {
        Fail("central directory entry " + std::to_string(i) + " is malformed");
      }
      ZipEntry e;
      e.flags = ReadLE(b_, p + 8, 2);
      e.method = ReadLE(b_, p + 10, 2);
      e.crc = ReadLE(b_, p + 16, 4);
      e.compressed_size = ReadLE(b_, p + 20, 4);
      e.size = ReadLE(b_, p + 24, 4);
      size_t name_len = ReadLE(b_, p + 28, 2);
      size_t extra_len = ReadLE(b_, p + 30, 2);
      size_t comment_len = ReadLE(b_, p + 32, 2);
      e.local_offset = ReadLE(b_, p + 42, 4);
      if (p + 46 + name_len + extra_len + comment_len > end) {
        Fail("central directory entry " + std::to_string(i) + " is truncated");
      }
      e.name = b_.substr(p + 46, name_len);
      ApplyZip64Extra(p + 46 + name_len, extra_len, &e);
      entries.push_back(std::move(e));
      p += 46 + name_len + extra_len + comment_len;
    }
    return entries;
  }

  /*! \brief The stored bytes of an entry, CRC-checked; ValueError if compressed. */
  std::string Data(const ZipEntry& e) {
    std::string what = "entry \"" + e.name + "\"";
    if (e.flags & 1) Fail(what + " is encrypted");
    if (e.method != 0) {
      Fail(what + " is compressed (zip method " + std::to_string(e.method) +
           "); minitvm reads only uncompressed archives: save with np.savez, not "
           "np.savez_compressed");
    }
    size_t p = e.local_offset;
    if (p > b_.size() || b_.size() - p < 30 || ReadLE(b_, p, 4) != kLocalHeaderSig) {
      Fail(what + " has no valid local header (truncated or corrupt archive)");
    }
    uint64_t start = p + 30 + ReadLE(b_, p + 26, 2) + ReadLE(b_, p + 28, 2);
    if (e.compressed_size != e.size) Fail(what + " has different stored and uncompressed sizes");
    if (start > b_.size() || e.size > b_.size() - start) {
      Fail(what + " is truncated: needs " + std::to_string(e.size) + " bytes");
    }
    std::string data = b_.substr(start, e.size);
    if (Crc32(data.data(), data.size()) != e.crc) {
      Fail(what + " fails its CRC-32 check (corrupt archive)");
    }
    return data;
  }

 private:
  [[noreturn]] void Fail(const std::string& why) {
    MINITVM_THROW(ValueError) << "LoadNpz: \"" << path_ << "\": " << why;
  }

  void ReadZip64End(size_t eocd, uint64_t* count, uint64_t* cd_size, uint64_t* cd_offset) {
    if (eocd < 20 || ReadLE(b_, eocd - 20, 4) != kZip64LocatorSig) {
      if (*count == 0xFFFF && *cd_size != 0xFFFFFFFFu && *cd_offset != 0xFFFFFFFFu) return;
      Fail("zip64 end record locator is missing");
    }
    uint64_t rec = ReadLE64(b_, eocd - 20 + 8);
    if (rec > b_.size() || b_.size() - rec < 56 || ReadLE(b_, rec, 4) != kZip64EndSig) {
      Fail("zip64 end record is malformed");
    }
    *count = ReadLE64(b_, rec + 32);
    *cd_size = ReadLE64(b_, rec + 40);
    *cd_offset = ReadLE64(b_, rec + 48);
  }

  /*! \brief Sizes and offsets that do not fit 32 bits live in the zip64 extra field (0x0001). */
  void ApplyZip64Extra(size_t p, size_t len, ZipEntry* e) {
    size_t end = p + len;
    while (p + 4 <= end) {
      uint32_t id = ReadLE(b_, p, 2);
      uint32_t size = ReadLE(b_, p + 2, 2);
      if (p + 4 + size > end) Fail("entry \"" + e->name + "\" has a truncated extra field");
      if (id == 0x0001) {
        size_t q = p + 4;
        auto next = [&](uint64_t* field) {
          if (q + 8 > p + 4 + size) Fail("entry \"" + e->name + "\" has a short zip64 field");
          *field = ReadLE64(b_, q);
          q += 8;
        };
        if (e->size == 0xFFFFFFFFu) next(&e->size);
        if (e->compressed_size == 0xFFFFFFFFu) next(&e->compressed_size);
        if (e->local_offset == 0xFFFFFFFFu) next(&e->local_offset);
      }
      p += 4 + size;
    }
  }

  const std::string& b_;
  const std::string& path_;
};

void PutLE(std::string* out, uint64_t v, int nbytes) {
  for (int i = 0; i < nbytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

/*! \brief Build an uncompressed zip archive (no zip64: every offset must fit 32 bits). */
std::string WriteZip(const std::vector<std::pair<std::string, std::string>>& members,
                     const std::string& path) {
  constexpr uint64_t kLimit = 0xFFFFFFFFu;
  // DOS date 1980-01-01 00:00: fixed, so that the same arrays give the same bytes.
  constexpr uint16_t kDosTime = 0, kDosDate = (0 << 9) | (1 << 5) | 1;
  if (members.size() >= 0xFFFF) {
    MINITVM_THROW(ValueError) << "SaveNpz: \"" << path << "\": too many arrays (" << members.size()
                              << ")";
  }
  std::string out;
  std::string central;
  for (const auto& [name, data] : members) {
    uint64_t offset = out.size();
    if (data.size() >= kLimit || offset >= kLimit || name.size() > 0xFFFF) {
      MINITVM_THROW(ValueError) << "SaveNpz: \"" << path
                                << "\": archives over 4 GiB are not supported";
    }
    uint32_t crc = Crc32(data.data(), data.size());
    auto common = [&](std::string* h) {
      PutLE(h, 20, 2);  // version needed to extract: 2.0
      PutLE(h, 0, 2);   // flags
      PutLE(h, 0, 2);   // method: stored
      PutLE(h, kDosTime, 2);
      PutLE(h, kDosDate, 2);
      PutLE(h, crc, 4);
      PutLE(h, data.size(), 4);  // compressed size
      PutLE(h, data.size(), 4);  // uncompressed size
      PutLE(h, name.size(), 2);
      PutLE(h, 0, 2);  // extra field length
    };
    PutLE(&out, kLocalHeaderSig, 4);
    common(&out);
    out += name;
    out += data;

    PutLE(&central, kCentralHeaderSig, 4);
    PutLE(&central, 20, 2);  // version made by
    common(&central);
    PutLE(&central, 0, 2);  // comment length
    PutLE(&central, 0, 2);  // disk number
    PutLE(&central, 0, 2);  // internal attributes
    PutLE(&central, 0, 4);  // external attributes
    PutLE(&central, offset, 4);
    central += name;
  }
  uint64_t cd_offset = out.size();
  if (cd_offset + central.size() >= kLimit) {
    MINITVM_THROW(ValueError) << "SaveNpz: \"" << path
                              << "\": archives over 4 GiB are not supported";
  }
  out += central;
  PutLE(&out, kEndOfCentralDirSig, 4);
  PutLE(&out, 0, 2);  // this disk
  PutLE(&out, 0, 2);  // disk with the central directory
  PutLE(&out, members.size(), 2);
  PutLE(&out, members.size(), 2);
  PutLE(&out, central.size(), 4);
  PutLE(&out, cd_offset, 4);
  PutLE(&out, 0, 2);  // comment length
  return out;
}

/*! \brief The arrays of an archive in archive order (what Python's Map keeps). */
std::vector<std::pair<std::string, NDArray>> LoadNpzOrdered(const std::string& path) {
  std::string bytes = ReadFile(path, "LoadNpz");
  ZipReader zip(bytes, path);
  std::vector<std::pair<std::string, NDArray>> out;
  for (const ZipEntry& e : zip.Entries()) {
    // numpy.savez names members "<key>.npy"; other members (directories, notes) hold no array.
    constexpr std::string_view kSuffix = ".npy";
    if (e.name.size() < kSuffix.size() ||
        e.name.compare(e.name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
      continue;
    }
    std::string key = e.name.substr(0, e.name.size() - kSuffix.size());
    out.emplace_back(key, ParseNpy(zip.Data(e), "entry \"" + e.name + "\" of \"" + path + "\""));
  }
  return out;
}

void SaveNpzOrdered(const std::string& path,
                    const std::vector<std::pair<std::string, NDArray>>& arrays) {
  std::vector<std::pair<std::string, std::string>> members;
  for (const auto& [key, array] : arrays) {
    if (key.empty()) MINITVM_THROW(ValueError) << "SaveNpz: \"" << path << "\": empty array name";
    if (!array.defined()) {
      MINITVM_THROW(ValueError) << "SaveNpz: \"" << path << "\": array \"" << key << "\" is None";
    }
    members.emplace_back(key + ".npy", SerializeNpy(array));
  }
  WriteFile(path, WriteZip(members, path), "SaveNpz");
}

}  // namespace

// ---- public API ---------------------------------------------------------------------------

NDArray ParseNpy(const std::string& bytes, const std::string& what) {
  auto fail = [&](const std::string& why) { MINITVM_THROW(ValueError) << what << ": " << why; };
  if (bytes.size() < 10 || bytes.compare(0, kNpyMagicLen, kNpyMagic, kNpyMagicLen) != 0) {
    if (bytes.size() < kNpyMagicLen) {
      fail("truncated: " + std::to_string(bytes.size()) + " bytes is too short for a .npy file");
    }
    if (bytes.compare(0, kNpyMagicLen, kNpyMagic, kNpyMagicLen) != 0) {
      fail("not a .npy file (the magic string \\x93NUMPY is missing)");
    }
    fail("truncated: the header length is missing");
  }
  int major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = ReadLE(bytes, 8, 2);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) fail("truncated: the header length is missing");
    header_len = ReadLE(bytes, 8, 4);
    header_start = 12;
  } else {
    fail("unsupported .npy format version " + std::to_string(major) + "." +
         std::to_string(static_cast<uint8_t>(bytes[7])));
  }
  if (header_len > bytes.size() - header_start) {
    fail("truncated: the header says it is " + std::to_string(header_len) + " bytes but only " +
         std::to_string(bytes.size() - header_start) + " follow");
  }
  std::string header_text = bytes.substr(header_start, header_len);
  NpyHeader h = HeaderParser(header_text, what).Parse();
  bool swap = false;
  DataType dtype = DTypeOfDescr(h.descr, &swap, what);

  // The element count, guarding against shapes whose size overflows. The product of the
  // non-zero dimensions is bounded too: strides are computed from it even when a zero
  // dimension makes the array empty.
  uint64_t count = 1, nonzero = 1;
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / 8;
  for (int64_t d : h.shape) {
    if (d == 0) {
      count = 0;
      continue;
    }
    if (nonzero > limit / static_cast<uint64_t>(d)) {
      fail("shape " + ShapeToString(h.shape) + " is too large");
    }
    nonzero *= static_cast<uint64_t>(d);
    count *= static_cast<uint64_t>(d);
  }
  uint64_t nbytes = count * dtype.bytes();
  size_t data_start = header_start + header_len;
  uint64_t available = bytes.size() - data_start;
  if (nbytes > available) {
    fail("truncated: shape " + ShapeToString(h.shape) + " of " + h.descr + " needs " +
         std::to_string(nbytes) + " data bytes but only " + std::to_string(available) +
         " are present");
  }

  // Fortran order stores the reversed shape in C order; read it so, then transpose.
  std::vector<int64_t> stored_shape = h.shape;
  if (h.fortran_order) std::reverse(stored_shape.begin(), stored_shape.end());
  NDArray stored = NDArray::Empty(stored_shape, dtype);
  stored.CopyFromBytes(bytes.data() + data_start, static_cast<size_t>(nbytes));
  if (swap) ByteSwapElements(stored.data_as<char>(), static_cast<int64_t>(count), dtype.bytes());
  if (!h.fortran_order || h.shape.size() < 2) return stored;
  std::vector<int64_t> strides = CompactStrides(stored_shape);
  std::reverse(strides.begin(), strides.end());
  NDArray transposed = stored.CreateStridedView(h.shape, strides, 0);
  NDArray out = NDArray::Empty(h.shape, dtype);
  out.CopyFrom(transposed);
  return out;
}

std::string SerializeNpy(const NDArray& array) {
  if (!array.defined()) MINITVM_THROW(ValueError) << "SaveNpy: the array is None";
  std::string descr = DescrOf(array.dtype());
  // A compact host copy when the array is strided or lives on a device.
  NDArray host = array;
  if (array.device().device_type != kDLCPU || !array.IsContiguous()) host = array.CopyTo(CPU());

  std::string dict = "{'descr': '" + descr +
                     "', 'fortran_order': False, 'shape': " + ShapeToString(host.Shape()) + ", }";
  // Pad with spaces and a final newline so the data starts on a 64-byte boundary.
  size_t prefix = 10;
  size_t total = prefix + dict.size() + 1;
  int major = 1;
  if (total + (64 - total % 64) % 64 - prefix > 0xFFFF) {
    major = 2;
    prefix = 12;
    total = prefix + dict.size() + 1;
  }
  dict.append((64 - total % 64) % 64, ' ');
  dict.push_back('\n');

  std::string out(kNpyMagic, kNpyMagicLen);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  PutLE(&out, dict.size(), major == 1 ? 2 : 4);
  out += dict;
  size_t data_pos = out.size();
  out.resize(data_pos + host.NBytes());
  if (host.NBytes() > 0) host.CopyToBytes(out.data() + data_pos, host.NBytes());
  return out;
}

NDArray LoadNpy(const std::string& path) {
  return ParseNpy(ReadFile(path, "LoadNpy"), "LoadNpy: \"" + path + "\"");
}

void SaveNpy(const std::string& path, const NDArray& array) {
  WriteFile(path, SerializeNpy(array), "SaveNpy");
}

std::map<std::string, NDArray> LoadNpz(const std::string& path) {
  std::map<std::string, NDArray> out;
  for (auto& [key, array] : LoadNpzOrdered(path)) out[key] = array;
  return out;
}

void SaveNpz(const std::string& path, const std::map<std::string, NDArray>& arrays) {
  SaveNpzOrdered(path, {arrays.begin(), arrays.end()});
}

MINITVM_REGISTER_GLOBAL("runtime.LoadNpy").set_body_typed([](std::string path) {
  return LoadNpy(path);
});
MINITVM_REGISTER_GLOBAL("runtime.SaveNpy").set_body_typed([](std::string path, NDArray array) {
  SaveNpy(path, array);
});
// The Map keeps the archive's order, as numpy's NpzFile.files does.
MINITVM_REGISTER_GLOBAL("runtime.LoadNpz").set_body_typed([](std::string path) {
  Map<String, NDArray> out;
  for (auto& [key, array] : LoadNpzOrdered(path)) out.Set(String(key), array);
  return out;
});
MINITVM_REGISTER_GLOBAL("runtime.SaveNpz")
    .set_body_typed([](std::string path, Map<String, NDArray> arrays) {
      if (!arrays.defined()) MINITVM_THROW(ValueError) << "SaveNpz: the arrays are None";
      std::vector<std::pair<std::string, NDArray>> items;
      for (const auto& kv : arrays->data) {
        auto key = kv.first.try_cast<String>();
        auto value = kv.second.try_cast<NDArray>();
        if (!key) {
          MINITVM_THROW(TypeError) << "SaveNpz: keys must be str but got " << kv.first.type_name();
        }
        if (!value || !value->defined()) {
          MINITVM_THROW(TypeError) << "SaveNpz: value of \"" << key->str()
                                   << "\" must be an NDArray but got " << kv.second.type_name();
        }
        items.emplace_back(key->str(), *value);
      }
      SaveNpzOrdered(path, items);
    });

}  // namespace runtime
}  // namespace minitvm
