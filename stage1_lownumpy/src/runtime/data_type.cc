/*!
 * \file data_type.cc
 * \brief Parsing and printing of DataType and Device names (stage 1).
 */
#include "minitvm/runtime/data_type.h"

#include <cctype>

#include "minitvm/runtime/device.h"
#include "minitvm/runtime/error.h"

namespace minitvm {
namespace runtime {

DataType::DataType(const std::string& text) {
  auto fail = [&]() {
    MINITVM_THROW(ValueError) << "unknown dtype \"" << text
                              << "\" (expected e.g. float32, int64, bool, float32x4)";
  };
  if (text == "void") {
    *this = Void();
    return;
  }
  if (text == "bool") {
    *this = Bool();
    return;
  }
  if (text == "handle") {
    *this = Handle();
    return;
  }
  std::string base = text;
  int lanes = 1;
  size_t x = text.find('x');
  if (x != std::string::npos) {
    std::string lanes_text = text.substr(x + 1);
    if (lanes_text.empty() || lanes_text.size() > 5) fail();
    for (char c : lanes_text) {
      if (!std::isdigit(static_cast<unsigned char>(c))) fail();
    }
    lanes = std::stoi(lanes_text);
    if (lanes < 1 || lanes > 65535) fail();
    base = text.substr(0, x);
    if (base == "bool") {
      *this = Bool(lanes);
      return;
    }
  }
  struct Prefix {
    const char* name;
    int code;
  };
  const Prefix prefixes[] = {
      {"uint", kUInt}, {"int", kInt}, {"float", kFloat}, {"bfloat", kBFloat}};
  for (const Prefix& p : prefixes) {
    std::string name = p.name;
    if (base.rfind(name, 0) != 0) continue;
    std::string bits_text = base.substr(name.size());
    if (bits_text.empty() || bits_text.size() > 2) fail();
    for (char c : bits_text) {
      if (!std::isdigit(static_cast<unsigned char>(c))) fail();
    }
    int bits = std::stoi(bits_text);
    bool ok = false;
    if (p.code == kInt || p.code == kUInt) ok = bits == 8 || bits == 16 || bits == 32 || bits == 64;
    if (p.code == kFloat) ok = bits == 16 || bits == 32 || bits == 64;
    if (p.code == kBFloat) ok = bits == 16;
    if (!ok) fail();
    *this = DataType(p.code, bits, lanes);
    return;
  }
  fail();
}

std::string DataTypeToString(DataType t) {
  if (t.is_void()) return "void";
  std::string base;
  if (t.is_bool()) {
    base = "bool";
  } else if (t.code() == DataType::kHandle) {
    return "handle";
  } else {
    switch (t.code()) {
      case DataType::kInt:
        base = "int";
        break;
      case DataType::kUInt:
        base = "uint";
        break;
      case DataType::kFloat:
        base = "float";
        break;
      case DataType::kBFloat:
        base = "bfloat";
        break;
      default:
        base = "unknown";
    }
    base += std::to_string(t.bits());
  }
  if (t.lanes() > 1) base += "x" + std::to_string(t.lanes());
  return base;
}

std::string DeviceTypeName(int device_type) {
  switch (device_type) {
    case kDLCPU:
      return "cpu";
    case kDLCUDA:
      return "cuda";
    default:
      return "device" + std::to_string(device_type);
  }
}

int DeviceTypeFromName(const std::string& name) {
  if (name == "cpu" || name == "llvm" || name == "ref" || name == "c") return kDLCPU;
  if (name == "cuda" || name == "gpu" || name == "nvptx") return kDLCUDA;
  MINITVM_THROW(ValueError) << "unknown device type \"" << name << "\" (expected cpu or cuda)";
}

}  // namespace runtime
}  // namespace minitvm
