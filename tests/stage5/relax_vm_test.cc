/*!
 * \file relax_vm_test.cc
 * \brief Tests of the Relax VM runtime (stage 5): executables built by hand (calls, If, Goto,
 * constants, VM-to-VM calls), the builtins, argument checks, set_input / invoke_stateful,
 * profile, and the binary format — round trip plus a fuzz of truncations and byte flips that
 * must all be rejected with a ValueError (or load an equal executable), never crash.
 */
#include <gtest/gtest.h>

#include <random>

#include "minitvm/relax/interpreter.h"
#include "minitvm/relax_vm/build.h"
#include "minitvm/relax_vm/executable.h"
#include "minitvm/relax_vm/vm.h"
#include "minitvm/runtime/registry.h"
#include "minitvm/runtime_cpu/packed_call.h"
#include "minitvm/script/tir_parser.h"
#include "minitvm_test_util.h"

namespace minitvm {
namespace relax_vm {
namespace {

using runtime::Any;
using runtime::Array;
using runtime::DataType;
using runtime::Module;
using runtime::ObjectPtr;
using runtime::PackedFunc;
using testing::MakeArray;
using testing::ToVector;
using A = InstrArg;
using I = Instruction;

// Test helpers registered once: float32 elementwise add (destination-passing and returning),
// int add and less-than, and a counter of calls.
int64_t g_kernel_calls = 0;
const bool kRegistered = [] {
  runtime::Registry::Register("relax_vm_test.add_dps", true)
      .set_body_typed([](NDArray a, NDArray b, NDArray out) {
        ++g_kernel_calls;
        for (int64_t i = 0; i < a.NumElements(); ++i) {
          out.data_as<float>()[i] = a.data_as<float>()[i] + b.data_as<float>()[i];
        }
      });
  runtime::Registry::Register("relax_vm_test.iadd", true).set_body_typed([](int64_t a, int64_t b) {
    return a + b;
  });
  runtime::Registry::Register("relax_vm_test.apply", true)
      .set_body_typed([](PackedFunc f, int64_t x) { return f(x); });
  runtime::Registry::Register("relax_vm_test.ilt", true).set_body_typed([](int64_t a, int64_t b) {
    return static_cast<int64_t>(a < b);
  });
  return true;
}();

/*! \brief Appends VM functions to an executable. */
struct Builder {
  ObjectPtr<ExecutableNode> exec = runtime::make_object<ExecutableNode>();

  int64_t F(const std::string& name) { return exec->GetOrAddPackedFunc(name); }
  int64_t C(Any v) {
    exec->constants.push_back(v);
    return static_cast<int64_t>(exec->constants.size()) - 1;
  }
  /*! \brief Declare VM function `name` (its code comes with Define). */
  int64_t Declare(const std::string& name, std::vector<std::string> params) {
    VMFuncInfo f;
    f.kind = VMFuncInfo::Kind::kVMFunc;
    f.name = name;
    f.num_args = static_cast<int64_t>(params.size());
    f.param_names = std::move(params);
    exec->func_table.push_back(f);
    int64_t idx = static_cast<int64_t>(exec->func_table.size()) - 1;
    exec->func_map[name] = idx;
    return idx;
  }
  void Define(int64_t idx, int64_t num_regs, const std::vector<Instruction>& code) {
    VMFuncInfo& f = exec->func_table[idx];
    f.start_instr = static_cast<int64_t>(exec->instructions.size());
    exec->instructions.insert(exec->instructions.end(), code.begin(), code.end());
    f.end_instr = static_cast<int64_t>(exec->instructions.size());
    f.register_file_size = num_regs;
  }
  Module VM(int alloc = 2, runtime::Device dev = runtime::CPU()) const {
    Module vm = VirtualMachineCreate(exec);
    vm["vm_initialization"](static_cast<int64_t>(dev.device_type),
                            static_cast<int64_t>(dev.device_id), alloc);
    return vm;
  }
};

NDArray Vec(std::vector<float> v) {
  return MakeArray<float>({static_cast<int64_t>(v.size())}, DataType::Float(32), v);
}

/*! \brief main(x, y): out = alloc_tensor_simple; add_dps(x, y, out); return out. */
Builder AddProgram() {
  Builder b;
  int64_t main = b.Declare("main", {"x", "y"});
  int64_t shape = b.C(relax::ShapeTuple({3}));
  int64_t dtype = b.C(runtime::String("float32"));
  b.Define(main, 3,
           {I::Call(b.F("vm.builtin.check_tensor_info"),
                    {A::Register(0), A::Immediate(1), A::ConstIdx(dtype),
                     A::ConstIdx(b.C(runtime::String("main: argument x")))},
                    I::kVoidRegister),
            I::Call(b.F("vm.builtin.match_shape"),
                    {A::Register(0), A::ConstIdx(b.C(Any())), A::Immediate(1), A::Immediate(0),
                     A::Immediate(3), A::ConstIdx(b.C(runtime::String("main: argument x")))},
                    I::kVoidRegister),
            I::Call(b.F("vm.builtin.alloc_tensor_simple"),
                    {A::Register(I::kVMRegister), A::ConstIdx(shape), A::ConstIdx(dtype),
                     A::Immediate(0)},
                    2),
            I::Call(b.F("relax_vm_test.add_dps"), {A::Register(0), A::Register(1), A::Register(2)},
                    I::kVoidRegister),
            I::Ret(2)});
  return b;
}

TEST(RelaxVM, CallsAPackedKernel) {
  Module vm = AddProgram().VM();
  NDArray out = vm["main"](Vec({1, 2, 3}), Vec({10, 20, 30})).cast<NDArray>();
  EXPECT_EQ(ToVector<float>(out), (std::vector<float>{11, 22, 33}));
  EXPECT_EQ(vm->kind(), "relax.VirtualMachine");
  EXPECT_EQ(vm->FunctionNames(), std::vector<std::string>{"main"});
}

TEST(RelaxVM, WrongArgumentsFailBeforeAnyKernel) {
  Module vm = AddProgram().VM();
  g_kernel_calls = 0;
  EXPECT_MINITVM_ERROR(vm["main"](Vec({1, 2, 3})), "TypeError",
                       "main() expects 2 arguments (x, y) but 1 was given");
  EXPECT_MINITVM_ERROR(vm["main"](Vec({1, 2}), Vec({1, 2})), "ValueError",
                       "main: argument x: dimension 0 of the shape must be 3, got 2");
  NDArray i32 = MakeArray<int32_t>({3}, DataType::Int(32), {1, 2, 3});
  EXPECT_MINITVM_ERROR(vm["main"](i32, Vec({1, 2, 3})), "ValueError",
                       "main: argument x: expected a tensor of dtype float32, got int32");
  NDArray m = MakeArray<float>({1, 3}, DataType::Float(32), {1, 2, 3});
  EXPECT_MINITVM_ERROR(vm["main"](m, Vec({1, 2, 3})), "ValueError",
                       "expected a tensor of rank 1, got rank 2");
  EXPECT_MINITVM_ERROR(vm["main"](int64_t{3}, Vec({1, 2, 3})), "TypeError",
                       "main: argument x: expected a tensor, got int");
  EXPECT_EQ(g_kernel_calls, 0);
  // A VM on cpu(1): arrays on cpu(0) are on the wrong device.
  Module vm1 = AddProgram().VM(2, runtime::CPU(1));
  EXPECT_MINITVM_ERROR(vm1["main"](Vec({1, 2, 3}), Vec({1, 2, 3})), "ValueError",
                       "main: argument x is on cpu(0) but the VM runs on cpu(1)");
  EXPECT_EQ(g_kernel_calls, 0);
}

TEST(RelaxVM, IfGotoAndLoops) {
  Builder b;
  // pick(c, a, b): if c then a else b
  int64_t pick = b.Declare("pick", {"c", "a", "b"});
  b.Define(pick, 5,
           {I::Call(b.F("vm.builtin.read_if_cond"), {A::Register(0)}, 3), I::If(3, 3),
            I::Call(b.F("vm.builtin.copy"), {A::Register(1)}, 4), I::Goto(2),
            I::Call(b.F("vm.builtin.copy"), {A::Register(2)}, 4), I::Ret(4)});
  // sum(n): acc = 0; i = 0; while i < n: acc += i; i += 1 — a backward Goto.
  int64_t sum = b.Declare("sum", {"n"});
  int64_t iadd = b.F("relax_vm_test.iadd"), ilt = b.F("relax_vm_test.ilt");
  b.Define(sum, 4,
           {I::Call(b.F("vm.builtin.copy"), {A::Immediate(0)}, 1),  // acc
            I::Call(b.F("vm.builtin.copy"), {A::Immediate(0)}, 2),  // i
            I::Call(ilt, {A::Register(2), A::Register(0)}, 3),      // loop head
            I::If(3, 4), I::Call(iadd, {A::Register(1), A::Register(2)}, 1),
            I::Call(iadd, {A::Register(2), A::Immediate(1)}, 2), I::Goto(-4), I::Ret(1)});
  // twice(n): a VM function calling another twice, and passing a function as a value.
  int64_t twice = b.Declare("twice", {"n"});
  b.Define(twice, 3,
           {I::Call(sum, {A::Register(0)}, 1), I::Call(iadd, {A::Register(1), A::Register(1)}, 2),
            I::Ret(2)});
  // apply_sum(n) = apply(sum, n): a VM function passed as a value to a packed function.
  int64_t apply_sum = b.Declare("apply_sum", {"n"});
  b.Define(apply_sum, 2,
           {I::Call(b.F("relax_vm_test.apply"), {A::FuncIdx(sum), A::Register(0)}, 1), I::Ret(1)});
  Module vm = b.VM();
  EXPECT_EQ(vm["apply_sum"](int64_t{10}).cast<int64_t>(), 45);
  EXPECT_EQ(vm["pick"](int64_t{1}, int64_t{7}, int64_t{9}).cast<int64_t>(), 7);
  EXPECT_EQ(vm["pick"](int64_t{0}, int64_t{7}, int64_t{9}).cast<int64_t>(), 9);
  NDArray t = MakeArray<uint8_t>({}, DataType::Bool(), {1});
  EXPECT_EQ(vm["pick"](t, int64_t{7}, int64_t{9}).cast<int64_t>(), 7);
  for (int64_t n : {0, 1, 5, 100}) {
    EXPECT_EQ(vm["sum"](n).cast<int64_t>(), n * (n - 1) / 2) << n;
    EXPECT_EQ(vm["twice"](n).cast<int64_t>(), n * (n - 1)) << n;
  }
}

Builder ConstantsProgram() {
  Builder b;
  int64_t main = b.Declare("main", {});
  std::vector<A> args;
  args.push_back(A::ConstIdx(b.C(Vec({1.5f, -2.0f, 3.25f}))));
  args.push_back(A::ConstIdx(b.C(relax::ShapeTuple({4, 0, 7}))));
  args.push_back(A::ConstIdx(b.C(runtime::String("hello"))));
  args.push_back(A::ConstIdx(b.C(int64_t{-42})));
  args.push_back(A::ConstIdx(b.C(2.5)));
  args.push_back(A::ConstIdx(b.C(DataType::Float(16))));
  args.push_back(A::ConstIdx(b.C(true)));
  args.push_back(A::ConstIdx(b.C(Array<Any>({Any(int64_t{1}), Any(runtime::String("x"))}))));
  args.push_back(A::ConstIdx(b.C(MakeArray<int64_t>({2, 2}, DataType::Int(64), {1, 2, 3, 4}))));
  args.push_back(A::Immediate(99));
  b.Define(main, 1, {I::Call(b.F("vm.builtin.make_tuple"), args, 0), I::Ret(0)});
  return b;
}

void CheckConstantsResult(const Any& out) {
  auto t = out.cast<Array<Any>>();
  ASSERT_EQ(t.size(), 10u);
  EXPECT_EQ(ToVector<float>(t[0].cast<NDArray>()), (std::vector<float>{1.5f, -2.0f, 3.25f}));
  EXPECT_EQ(t[1].cast<relax::ShapeTuple>().values(), (std::vector<int64_t>{4, 0, 7}));
  EXPECT_EQ(t[2].cast<std::string>(), "hello");
  EXPECT_EQ(t[3].cast<int64_t>(), -42);
  EXPECT_EQ(t[4].cast<double>(), 2.5);
  EXPECT_EQ(t[5].cast<DataType>(), DataType::Float(16));
  EXPECT_TRUE(t[6].is_bool() && t[6].cast<bool>());
  EXPECT_EQ(t[7].cast<Array<Any>>()[1].cast<std::string>(), "x");
  EXPECT_EQ(ToVector<int64_t>(t[8].cast<NDArray>()), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(t[9].cast<int64_t>(), 99);
}

TEST(RelaxVM, Constants) { CheckConstantsResult(ConstantsProgram().VM()["main"]()); }

TEST(RelaxVM, SerialisationRoundTrip) {
  for (Builder b : {ConstantsProgram(), AddProgram()}) {
    std::string bytes = b.exec->SaveToBytes();
    EXPECT_EQ(bytes.substr(0, 8), "MTVMEXEC");
    auto loaded = ExecutableNode::LoadFromBytes(bytes);
    EXPECT_EQ(loaded->SaveToBytes(), bytes);
    EXPECT_EQ(loaded->func_table.size(), b.exec->func_table.size());
    EXPECT_EQ(loaded->func_map, b.exec->func_map);
    EXPECT_EQ(loaded->instructions.size(), b.exec->instructions.size());
    EXPECT_EQ(loaded->func_table[0].param_names, b.exec->func_table[0].param_names);
  }
  auto loaded = ExecutableNode::LoadFromBytes(ConstantsProgram().exec->SaveToBytes());
  Module vm = VirtualMachineCreate(loaded);
  vm["vm_initialization"](int64_t{1}, int64_t{0}, int64_t{1});
  CheckConstantsResult(vm["main"]());
  // Through the executable's own functions, as the C++ deploy path does.
  Module ex(AddProgram().exec);
  Module vm2 = ex["vm_load_executable"]().cast<Module>();
  vm2["vm_initialization"](int64_t{1}, int64_t{0}, int64_t{2});
  EXPECT_EQ(ToVector<float>(vm2["main"](Vec({1, 1, 1}), Vec({2, 2, 2})).cast<NDArray>()),
            (std::vector<float>{3, 3, 3}));
}

TEST(RelaxVM, LoadRejectsBadHeaders) {
  std::string good = ConstantsProgram().exec->SaveToBytes();
  EXPECT_MINITVM_ERROR(ExecutableNode::LoadFromBytes(""), "ValueError",
                       "truncated executable: 0 bytes");
  EXPECT_MINITVM_ERROR(ExecutableNode::LoadFromBytes("hello world, not an executable"),
                       "ValueError", "not a minitvm VM executable");
  EXPECT_MINITVM_ERROR(ExecutableNode::LoadFromBytes(good.substr(0, 12)), "ValueError",
                       "truncated executable");
  EXPECT_MINITVM_ERROR(ExecutableNode::LoadFromBytes(good.substr(0, good.size() - 1)), "ValueError",
                       "truncated executable");
  EXPECT_MINITVM_ERROR(ExecutableNode::LoadFromBytes(good + "x"), "ValueError",
                       "unexpected bytes after the checksum");
  std::string v2 = good;
  v2[8] = 2;
  EXPECT_MINITVM_ERROR(ExecutableNode::LoadFromBytes(v2), "ValueError",
                       "unsupported executable format version 2");
  std::string flipped = good;
  flipped[40] ^= 0x10;
  EXPECT_MINITVM_ERROR(ExecutableNode::LoadFromBytes(flipped), "ValueError", "checksum mismatch");
}

/*! \brief Recompute the checksum of `bytes` (so a flipped payload byte reaches the parser). */
std::string Resign(std::string bytes) {
  uint64_t length;
  std::memcpy(&length, bytes.data() + 12, 8);
  uint64_t h = 14695981039346656037ull;
  for (uint64_t i = 0; i < length; ++i) {
    h ^= static_cast<unsigned char>(bytes[20 + i]);
    h *= 1099511628211ull;
  }
  std::memcpy(bytes.data() + 20 + length, &h, 8);
  return bytes;
}

/*! \brief Load `bytes`: true when it loaded, false on a ValueError; anything else fails. */
bool TryLoad(const std::string& bytes, std::string* resaved) {
  try {
    auto exec = ExecutableNode::LoadFromBytes(bytes);
    *resaved = exec->SaveToBytes();
    return true;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), "ValueError") << e.what();
    return false;
  }
}

TEST(RelaxVM, FuzzTruncationsAndByteFlips) {
  std::mt19937_64 rng(20261125);
  for (Builder b : {ConstantsProgram(), AddProgram()}) {
    const std::string good = b.exec->SaveToBytes();
    std::string resaved;
    // Every truncation is rejected.
    for (size_t n = 0; n < good.size(); ++n) {
      EXPECT_FALSE(TryLoad(good.substr(0, n), &resaved)) << "truncated to " << n;
    }
    // Raw flips: every byte is covered by the magic, version, length or checksum.
    for (int trial = 0; trial < 400; ++trial) {
      std::string bad = good;
      size_t pos = rng() % bad.size();
      bad[pos] = static_cast<char>(bad[pos] ^ static_cast<char>(1 + rng() % 255));
      EXPECT_FALSE(TryLoad(bad, &resaved)) << "flip at byte " << pos;
    }
    // Flips with a recomputed checksum reach the parser: rejected, or an executable that
    // passes the structural check and saves to exactly the loaded bytes.
    int loaded = 0, rejected = 0;
    for (int trial = 0; trial < 3000; ++trial) {
      std::string bad = good;
      int flips = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < flips; ++f) {
        size_t pos = 20 + rng() % (good.size() - 28);
        bad[pos] = static_cast<char>(bad[pos] ^ static_cast<char>(1 << (rng() % 8)));
      }
      bad = Resign(bad);
      if (TryLoad(bad, &resaved)) {
        ++loaded;
        EXPECT_EQ(resaved, bad);
      } else {
        ++rejected;
      }
    }
    EXPECT_GT(rejected, 0);
    // Random garbage after a valid header.
    for (int trial = 0; trial < 300; ++trial) {
      std::string bad = good;
      for (size_t i = 20; i + 8 < bad.size(); ++i) bad[i] = static_cast<char>(rng());
      TryLoad(Resign(bad), &resaved);
    }
  }
}

TEST(RelaxVM, MalformedExecutablesAreRejected) {
  Builder b = AddProgram();
  b.exec->instructions.back() = I::Ret(7);
  EXPECT_MINITVM_ERROR(VirtualMachineCreate(b.exec), "ValueError",
                       "result register 7 is out of range (the function has 3 registers)");
  Builder g = AddProgram();
  g.exec->instructions.push_back(I::Goto(-100));
  g.exec->func_table[0].end_instr += 1;
  EXPECT_MINITVM_ERROR(VirtualMachineCreate(g.exec), "ValueError", "goto jumps to");
  Builder c = AddProgram();
  c.exec->instructions[2].args[1] = A::ConstIdx(1000);
  EXPECT_MINITVM_ERROR(VirtualMachineCreate(c.exec), "ValueError", "constant 1000 out of range");
  // A function that is missing everywhere is named at initialisation.
  Builder m;
  int64_t main = m.Declare("main", {});
  m.Define(main, 1, {I::Call(m.F("no.such.kernel"), {}, 0), I::Ret(0)});
  EXPECT_MINITVM_ERROR(m.VM(), "ValueError", "\"no.such.kernel\"");
  // Calling before initialisation, and unknown functions.
  Module vm = VirtualMachineCreate(AddProgram().exec);
  EXPECT_MINITVM_ERROR(vm["main"](Vec({1, 2, 3}), Vec({1, 2, 3})), "ValueError", "not initialised");
  EXPECT_FALSE(vm.GetFunction("nope").has_value());
}

TEST(RelaxVM, StatefulCalls) {
  Module vm = AddProgram().VM();
  vm["set_input"]("main", Vec({1, 2, 3}), Vec({1, 1, 1}));
  vm["invoke_stateful"]("main");
  EXPECT_EQ(vm["get_output_arity"]("main").cast<int64_t>(), -1);
  EXPECT_EQ(ToVector<float>(vm["get_output"]("main").cast<NDArray>()),
            (std::vector<float>{2, 3, 4}));
  EXPECT_MINITVM_ERROR(vm["set_input"]("main", Vec({1, 2, 3})), "TypeError", "expects 2");
  EXPECT_MINITVM_ERROR(vm["invoke_stateful"]("nope"), "AttributeError", "no function \"nope\"");
  Module cvm = ConstantsProgram().VM();
  cvm["set_input"]("main");
  cvm["invoke_stateful"]("main");
  EXPECT_EQ(cvm["get_output_arity"]("main").cast<int64_t>(), 10);
  EXPECT_EQ(cvm["get_output"]("main", int64_t{3}).cast<int64_t>(), -42);
  EXPECT_EQ(cvm["get_output_arity"]("main", int64_t{7}).cast<int64_t>(), 2);
  EXPECT_EQ(vm["get_function_arity"]("main").cast<int64_t>(), 2);
  EXPECT_EQ(vm["get_function_param_name"]("main", int64_t{1}).cast<std::string>(), "y");
}

TEST(RelaxVM, ProfileAndTimeEvaluator) {
  Module vm = AddProgram().VM();
  std::string table = vm["profile"]("main", Vec({1, 2, 3}), Vec({1, 1, 1})).cast<std::string>();
  EXPECT_NE(table.find("relax_vm_test.add_dps"), std::string::npos) << table;
  EXPECT_NE(table.find("vm.builtin.alloc_tensor_simple"), std::string::npos) << table;
  EXPECT_NE(table.find("Percent"), std::string::npos) << table;
  EXPECT_NE(table.find("Total (main)"), std::string::npos) << table;
  Module cvm = ConstantsProgram().VM();
  auto times =
      runtime::TimeEvaluate(cvm["main"], runtime::PackedArgs(nullptr, 0), runtime::CPU(), 3, 2, 0);
  ASSERT_EQ(times.size(), 2u);
  EXPECT_GT(times[0], 0.0);
}

TEST(RelaxVM, StorageAndShapeBuiltins) {
  // main(x: (n, 2)): heap; match_shape stores n; shape (n*2,) by heap_binop; storage + view.
  Builder b;
  int64_t main = b.Declare("main", {"x"});
  int64_t ctx = b.C(runtime::String("main: argument x"));
  b.Define(
      main, 8,
      {I::Call(b.F("vm.builtin.alloc_shape_heap"), {A::Register(I::kVMRegister), A::Immediate(2)},
               1),
       I::Call(b.F("vm.builtin.match_shape"),
               {A::Register(0), A::Register(1), A::Immediate(2), A::Immediate(1), A::Immediate(0),
                A::Immediate(0), A::Immediate(2), A::ConstIdx(ctx)},
               I::kVoidRegister),
       I::Call(b.F("vm.builtin.heap_binop"),
               {A::Register(1), A::Immediate(2), A::Immediate(1), A::Immediate(1), A::Immediate(0),
                A::Immediate(0), A::Immediate(2)},
               I::kVoidRegister),
       I::Call(b.F("vm.builtin.make_shape"),
               {A::Register(1), A::Immediate(1), A::Immediate(1), A::Immediate(1)}, 2),
       I::Call(b.F("vm.builtin.alloc_storage"),
               {A::Register(I::kVMRegister), A::ConstIdx(b.C(relax::ShapeTuple({64}))),
                A::Immediate(0), A::ConstIdx(b.C(runtime::String("float32"))),
                A::ConstIdx(b.C(runtime::String("global")))},
               3),
       I::Call(b.F("vm.builtin.reshape"), {A::Register(0), A::Register(2)}, 4),
       I::Call(b.F("vm.builtin.shape_of"), {A::Register(4)}, 5),
       I::Call(b.F("vm.builtin.alloc_tensor"),
               {A::Register(3), A::Immediate(16), A::Register(2),
                A::ConstIdx(b.C(runtime::String("float32")))},
               6),
       I::Call(b.F("vm.builtin.make_tuple"), {A::Register(4), A::Register(5), A::Register(6)}, 7),
       I::Ret(7)});
  Module vm = b.VM();
  NDArray x = MakeArray<float>({3, 2}, DataType::Float(32), {1, 2, 3, 4, 5, 6});
  auto out = vm["main"](x).cast<Array<Any>>();
  EXPECT_EQ(out[0].cast<NDArray>().Shape(), (std::vector<int64_t>{6}));
  EXPECT_EQ(out[1].cast<relax::ShapeTuple>().values(), (std::vector<int64_t>{6}));
  EXPECT_EQ(out[2].cast<NDArray>().Shape(), (std::vector<int64_t>{6}));
  EXPECT_MINITVM_ERROR(
      vm["main"](MakeArray<float>({2, 3}, DataType::Float(32), {1, 2, 3, 4, 5, 6})), "ValueError",
      "main: argument x: dimension 1 of the shape must be 2, got 3");
  // n = 20: the tensor (40 floats at offset 16) no longer fits in the 64-byte storage.
  NDArray big = NDArray::Empty({20, 2}, DataType::Float(32));
  EXPECT_MINITVM_ERROR(vm["main"](big), "ValueError", "needs 160 bytes, but the storage has 64");
}

TEST(RelaxVM, PooledAllocatorReusesFreeStorage) {
  Allocator pooled(runtime::CPU(), AllocatorType::kPooled);
  NDArray a = pooled.Alloc(128);
  void* first = a->data;
  NDArray b = pooled.Alloc(128);
  EXPECT_NE(b->data, first);  // a is still held
  a = NDArray();
  NDArray c = pooled.Alloc(128);
  EXPECT_EQ(c->data, first);  // a's storage came back
  EXPECT_EQ(pooled.PooledBytes(), 256);
  Allocator naive(runtime::CPU(), AllocatorType::kNaive);
  EXPECT_EQ(naive.Alloc(16)->shape[0], 16);
  EXPECT_EQ(naive.PooledBytes(), 0);
}

TEST(RelaxVM, PooledAllocatorKeepsViewsWithoutHoldingStorage) {
  Allocator pooled(runtime::CPU(), AllocatorType::kPooled);
  NDArray s = pooled.Alloc(64);
  NDArray v = pooled.View(s, 16, {2, 3}, DataType::Float(32));
  EXPECT_EQ(v.Shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(static_cast<char*>(v.data()), static_cast<char*>(s.data()) + 16);
  const runtime::Object* first = v.get();
  // Held by the caller: asked again, a new view; and the storage is busy for Alloc.
  NDArray w = pooled.View(s, 16, {2, 3}, DataType::Float(32));
  EXPECT_NE(w.get(), first);
  s = NDArray();
  EXPECT_NE(pooled.Alloc(64)->data, v->data);
  // Released: the storage is free again although the pool keeps its views, and the same view
  // (same offset, shape, dtype) comes back; another shape or offset gets a view of its own.
  v = NDArray();
  w = NDArray();
  NDArray again = pooled.Alloc(64);
  EXPECT_EQ(again->data, static_cast<const runtime::NDArrayNode*>(first)->data);
  EXPECT_EQ(pooled.View(again, 16, {2, 3}, DataType::Float(32)).get(), first);
  EXPECT_NE(pooled.View(again, 0, {2, 3}, DataType::Float(32)).get(), first);
  EXPECT_NE(pooled.View(again, 16, {3, 2}, DataType::Float(32)).get(), first);
  // A naive allocator keeps nothing.
  Allocator naive(runtime::CPU(), AllocatorType::kNaive);
  NDArray ns = naive.Alloc(64);
  NDArray nv = naive.View(ns, 0, {4}, DataType::Float(32));
  EXPECT_EQ(nv->use_count(), 1);
  EXPECT_NE(naive.View(ns, 0, {4}, DataType::Float(32)).get(), nv.get());
}

TEST(RelaxVM, HeapBinopFloorSemantics) {
  PackedFunc binop = runtime::Registry::GetOrThrow("vm.builtin.heap_binop");
  NDArray heap = MakeArray<int64_t>({2}, DataType::Int(64), {0, 0});
  auto run = [&](int64_t op, int64_t a, int64_t b) {
    binop(heap, op, int64_t{0}, int64_t{0}, a, int64_t{0}, b);
    return heap.data_as<int64_t>()[0];
  };
  EXPECT_EQ(run(3, -7, 2), -4);
  EXPECT_EQ(run(4, -7, 2), 1);
  EXPECT_EQ(run(3, 7, -2), -4);
  EXPECT_EQ(run(5, 3, -1), -1);
  EXPECT_EQ(run(6, 3, -1), 3);
  EXPECT_MINITVM_ERROR(run(3, 1, 0), "ValueError", "by zero");
  EXPECT_MINITVM_ERROR(
      binop(heap, int64_t{0}, int64_t{5}, int64_t{0}, int64_t{1}, int64_t{0}, int64_t{1}),
      "ValueError", "shape heap slot 5 out of range");
}

// ---- compiled end to end: parse, Build (LegalizeOps, lowering, LLVM, CodeGenVM), export ------

constexpr const char* kScript = R"(
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), "float32"), w: R.Tensor((8, 4), "float32"),
             b: R.Tensor((4,), "float32")):
        with R.dataflow():
            h = R.matmul(x, w)
            y = R.nn.relu(R.add(h, b))
            R.output(y)
        return y
)";

TEST(RelaxVM, BuildRunExportAndLoad) {
  IRModule mod = script::ParseModule(kScript, "mod.py");
  Module ex = Build(mod, Any("llvm"));
  EXPECT_EQ(ex->kind(), "relax.Executable");
  ASSERT_EQ(ex->imports.size(), 1u);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uni(-1, 1);
  auto random = [&](std::vector<int64_t> shape) {
    NDArray a = NDArray::Empty(shape, DataType::Float(32));
    for (int64_t i = 0; i < a.NumElements(); ++i) a.data_as<float>()[i] = uni(rng);
    return a;
  };
  NDArray w = random({8, 4}), bias = random({4});
  testing::TempDir dir;
  ExportLibrary(ex, dir.File("model.so"));
  Module loaded = runtime_cpu::LoadLibraryModule(dir.File("model.so"));
  EXPECT_EQ(loaded->kind(), "relax.Executable");
  for (Module m : {ex, loaded}) {
    Module vm = m["vm_load_executable"]().cast<Module>();
    vm["vm_initialization"](int64_t{kDLCPU}, int64_t{0}, int64_t{2});
    for (int64_t n : {1, 5}) {
      NDArray x = random({n, 8});
      NDArray out = vm["main"](x, w, bias).cast<NDArray>();
      NDArray ref = relax::Interpret(mod, "main", {x, w, bias}).cast<NDArray>();
      ASSERT_EQ(out.Shape(), ref.Shape());
      std::vector<float> o = ToVector<float>(out), r = ToVector<float>(ref);
      for (size_t i = 0; i < o.size(); ++i) EXPECT_NEAR(o[i], r[i], 1e-5) << i;
    }
    EXPECT_MINITVM_ERROR(vm["main"](random({2, 7}), w, bias), "ValueError",
                         "main: argument x: dimension 1 of the shape must be 8, got 7");
  }
  // A library whose embedded executable is corrupted is refused with the file's name.
  std::string bytes = testing::ReadBytes(dir.File("model.so"));
  size_t at = bytes.find("MTVMEXEC");
  ASSERT_NE(at, std::string::npos);
  bytes[at + 40] ^= 0x21;
  testing::WriteBytes(dir.File("bad.so"), bytes);
  EXPECT_MINITVM_ERROR(runtime_cpu::LoadLibraryModule(dir.File("bad.so")), "ValueError",
                       "bad.so: the file was damaged after export");
  // Without the file's checksum trailer (24 bytes), the executable's own checksum catches it.
  testing::WriteBytes(dir.File("bad.so"), bytes.substr(0, bytes.size() - 24));
  EXPECT_MINITVM_ERROR(runtime_cpu::LoadLibraryModule(dir.File("bad.so")), "ValueError",
                       "bad.so: LoadFromBytes: checksum mismatch");
}

}  // namespace
}  // namespace relax_vm
}  // namespace minitvm
