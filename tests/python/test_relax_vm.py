"""Tests of the Relax VM (stage 5): hand-built executables (calls, If, Goto, constants), the
binary format (round trip, truncation / corruption fuzz), argument errors, set_input /
invoke_stateful / get_outputs, time_evaluator, profile, and the whole path — compile a model,
run it in the VM, compare with relax.interpret and NumPy, export_library, load it in a fresh
process and from the C++ deploy program."""
import os
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax
from minitvm.relax.interpreter import ShapeTuple

from conftest import REPO_ROOT, requires_global

# ---- hand-built executables ------------------------------------------------------------------

REG, IMM, CONST, FUNC = 0, 1, 2, 3
VM_REG = -2
VOID = -1


class ExecBuilder:
    """Writes VM functions instruction by instruction (what code generation does)."""

    def __init__(self):
        self.funcs = []  # [name, kind, start, end, num_args, regs, params]
        self.index = {}
        self.consts = []
        self.instrs = []

    def f(self, name):
        """The table index of packed function ``name`` (added when new)."""
        if name not in self.index:
            self.index[name] = len(self.funcs)
            self.funcs.append([name, 0, 0, 0, 0, 0, []])
        return self.index[name]

    def c(self, value):
        self.consts.append(value)
        return len(self.consts) - 1

    def declare(self, name, params):
        self.index[name] = len(self.funcs)
        self.funcs.append([name, 1, 0, 0, len(params), 0, list(params)])
        return self.index[name]

    def define(self, idx, num_regs, code):
        entry = self.funcs[idx]
        entry[2] = len(self.instrs)
        self.instrs += code
        entry[3] = len(self.instrs)
        entry[5] = num_regs

    @staticmethod
    def call(func, args, dst):
        flat = [1, dst, func]
        for kind, value in args:
            flat += [kind, value]
        return flat

    def build(self):
        return tvm.get_global_func("relax_vm.ExecutableFromParts")(
            self.funcs, self.consts, self.instrs
        )


@pytest.fixture(scope="module", autouse=True)
def _needs_vm():
    requires_global("relax_vm.ExecutableFromParts")


@tvm.register_func("test_relax_vm.iadd", override=True)
def _iadd(a, b):
    return a + b


@tvm.register_func("test_relax_vm.ilt", override=True)
def _ilt(a, b):
    return int(a < b)


@tvm.register_func("test_relax_vm.add_dps", override=True)
def _add_dps(a, b, out):
    out.copyfrom(a.numpy() + b.numpy())


def _loop_program():
    """sum(n) = 0 + 1 + ... + (n-1) with a backward Goto; pick(c, a, b) with If;
    twice(n) = 2 * sum(n), a VM function calling another."""
    b = ExecBuilder()
    call = ExecBuilder.call
    pick = b.declare("pick", ["c", "a", "b"])
    b.define(pick, 5, [
        call(b.f("vm.builtin.read_if_cond"), [(REG, 0)], 3),
        [4, 3, 3],
        call(b.f("vm.builtin.copy"), [(REG, 1)], 4),
        [3, 2],
        call(b.f("vm.builtin.copy"), [(REG, 2)], 4),
        [2, 4],
    ])
    total = b.declare("sum", ["n"])
    iadd, ilt = b.f("test_relax_vm.iadd"), b.f("test_relax_vm.ilt")
    b.define(total, 4, [
        call(b.f("vm.builtin.copy"), [(IMM, 0)], 1),
        call(b.f("vm.builtin.copy"), [(IMM, 0)], 2),
        call(ilt, [(REG, 2), (REG, 0)], 3),
        [4, 3, 4],
        call(iadd, [(REG, 1), (REG, 2)], 1),
        call(iadd, [(REG, 2), (IMM, 1)], 2),
        [3, -4],
        [2, 1],
    ])
    twice = b.declare("twice", ["n"])
    b.define(twice, 3, [
        call(total, [(REG, 0)], 1),
        call(iadd, [(REG, 1), (REG, 1)], 2),
        [2, 2],
    ])
    return b.build()


def _add_program():
    """main(x, y): checks of x, a fresh output, a Python kernel in destination-passing style."""
    b = ExecBuilder()
    call = ExecBuilder.call
    main = b.declare("main", ["x", "y"])
    dtype = b.c("float32")
    ctx = b.c("main: argument x")
    b.define(main, 3, [
        call(b.f("vm.builtin.check_tensor_info"), [(REG, 0), (IMM, 1), (CONST, dtype),
                                                   (CONST, ctx)], VOID),
        call(b.f("vm.builtin.match_shape"), [(REG, 0), (CONST, b.c(None)), (IMM, 1), (IMM, 0),
                                             (IMM, 3), (CONST, ctx)], VOID),
        call(b.f("vm.builtin.alloc_tensor_simple"), [(REG, VM_REG), (CONST, b.c(ShapeTuple([3]))),
                                                     (CONST, dtype), (IMM, 0)], 2),
        call(b.f("test_relax_vm.add_dps"), [(REG, 0), (REG, 1), (REG, 2)], VOID),
        [2, 2],
    ])
    return b.build()


def _const_program():
    b = ExecBuilder()
    main = b.declare("main", [])
    values = [
        tvm.nd.array(np.array([[1.5, -2.0], [0.0, 7.25]], "float32")),
        ShapeTuple([4, 0, 7]),
        "hello",
        -42,
        2.5,
    ]
    args = [(CONST, b.c(v)) for v in values] + [(IMM, 99)]
    b.define(main, 1, [ExecBuilder.call(b.f("vm.builtin.make_tuple"), args, 0), [2, 0]])
    return b.build()


def _check_consts(out):
    assert len(out) == 6
    np.testing.assert_array_equal(out[0].numpy(), [[1.5, -2.0], [0.0, 7.25]])
    assert out[1] == (4, 0, 7)
    assert out[2:] == ("hello", -42, 2.5, 99)


def test_calls_if_goto_and_vm_to_vm_calls():
    vm = relax.VirtualMachine(_loop_program(), tvm.cpu())
    assert vm["pick"](1, 7, 9) == 7
    assert vm["pick"](0, 7, 9) == 9
    assert vm["pick"](np.array(True), 7, 9) == 7
    assert vm["pick"](np.array(0, "int32"), 7, 9) == 9
    for n in [0, 1, 2, 10, 57]:
        assert vm["sum"](n) == n * (n - 1) // 2
        assert vm["twice"](n) == n * (n - 1)


def test_python_kernel_and_constants():
    vm = relax.VirtualMachine(_add_program(), tvm.cpu())
    out = vm["main"](np.array([1, 2, 3], "float32"), np.array([10, 20, 30], "float32"))
    np.testing.assert_array_equal(out.numpy(), [11, 22, 33])
    _check_consts(relax.VirtualMachine(_const_program(), tvm.cpu(), memory_cfg="naive")["main"]())


def test_argument_errors_name_the_parameter():
    vm = relax.VirtualMachine(_add_program(), tvm.cpu())
    y = np.ones(3, "float32")
    with pytest.raises(tvm.error.TypeError, match=r"main\(\) expects 2 arguments \(x, y\) but 1"):
        vm["main"](y)
    with pytest.raises(tvm.error.ValueError,
                       match="main: argument x: dimension 0 of the shape must be 3, got 4"):
        vm["main"](np.ones(4, "float32"), y)
    with pytest.raises(tvm.error.ValueError,
                       match="main: argument x: expected a tensor of dtype float32, got float64"):
        vm["main"](np.ones(3, "float64"), y)
    with pytest.raises(tvm.error.TypeError, match="main: argument x: expected a tensor, got int"):
        vm["main"](3, y)
    with pytest.raises(tvm.error.AttributeError, match='no function "nope"'):
        vm["nope"]


def test_wrong_device_is_named():
    vm = relax.VirtualMachine(_add_program(), [tvm.cpu(1)])
    # cpu(1) is the VM's device; the host cpu(0) is not added (a CPU is there already)
    with pytest.raises(tvm.error.ValueError, match="argument x is on cpu\\(0\\) but the VM runs"):
        vm["main"](np.ones(3, "float32"), np.ones(3, "float32"))


def test_missing_packed_function_is_named_at_init():
    b = ExecBuilder()
    main = b.declare("main", [])
    b.define(main, 1, [ExecBuilder.call(b.f("test_relax_vm.not_registered"), [], 0), [2, 0]])
    with pytest.raises(tvm.error.ValueError, match='"test_relax_vm.not_registered"'):
        relax.VirtualMachine(b.build(), tvm.cpu())


def test_malformed_hand_built_executable():
    b = ExecBuilder()
    main = b.declare("main", [])
    b.define(main, 1, [[2, 5]])
    with pytest.raises(tvm.error.ValueError, match="result register 5 is out of range"):
        b.build()
    b = ExecBuilder()
    main = b.declare("main", [])
    b.define(main, 1, [[3, 7], [2, 0]])
    with pytest.raises(tvm.error.ValueError, match="goto jumps to 7"):
        b.build()


def test_stateful_interface():
    vm = relax.VirtualMachine(_add_program(), tvm.cpu())
    vm.set_input("main", np.array([1, 2, 3], "float32"), y=np.array([1, 1, 1], "float32"))
    vm.invoke_stateful("main")
    np.testing.assert_array_equal(vm.get_outputs("main").numpy(), [2, 3, 4])
    with pytest.raises(tvm.error.TypeError, match="no parameter 'z'"):
        vm.set_input("main", z=1)
    cvm = relax.VirtualMachine(_const_program(), tvm.cpu())
    cvm.set_input("main")
    cvm.invoke_stateful("main")
    _check_consts(cvm.get_outputs("main"))
    timer = cvm.time_evaluator("invoke_stateful", tvm.cpu(), number=2, repeat=3)
    res = timer("main")
    assert len(res.results) == 3 and res.mean > 0
    res = vm.time_evaluator("main", tvm.cpu(), number=1)(np.ones(3, "float32"),
                                                         np.ones(3, "float32"))
    assert res.mean > 0
    vm.save_function("main", "main_saved", np.ones(3, "float32"), np.ones(3, "float32"))
    np.testing.assert_array_equal(vm["main_saved"]().numpy(), [2, 2, 2])
    assert vm.time_evaluator("main_saved", tvm.cpu(), number=2)().mean > 0


def test_profile_table():
    vm = relax.VirtualMachine(_add_program(), tvm.cpu(), profile=True)
    report = vm.profile("main", np.ones(3, "float32"), np.ones(3, "float32"))
    text = report.table()
    for part in ["Name", "Calls", "Time (us)", "Percent", "test_relax_vm.add_dps",
                 "vm.builtin.check_tensor_info", "Total (main)"]:
        assert part in text, text


# ---- serialisation ---------------------------------------------------------------------------


def test_bytes_and_file_round_trip(tmp_path):
    for ex in [_const_program(), _loop_program(), _add_program()]:
        data = ex.save_to_bytes()
        assert data[:8] == b"MTVMEXEC"
        again = relax.Executable.load_from_bytes(data)
        assert again.save_to_bytes() == data
        path = tmp_path / "ex.bin"
        ex.save_to_file(path)
        assert relax.Executable.load_from_file(path).save_to_bytes() == data
    loaded = relax.Executable.load_from_bytes(_const_program().save_to_bytes())
    _check_consts(relax.VirtualMachine(loaded, tvm.cpu())["main"]())


def _resign(data):
    """Recompute the FNV-1a checksum so that a corrupted payload reaches the parser."""
    length = int.from_bytes(data[12:20], "little")
    h = 14695981039346656037
    for byte in data[20:20 + length]:
        h = ((h ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return data[:20 + length] + h.to_bytes(8, "little")


def test_corruption_fuzz():
    rng = random.Random(14)
    good = _const_program().save_to_bytes()
    for n in sorted(set(rng.randrange(len(good)) for _ in range(60))) + [0, 8, 19, 20]:
        with pytest.raises(tvm.error.ValueError, match="truncated|magic"):
            relax.Executable.load_from_bytes(good[:n])
    for _ in range(150):
        bad = bytearray(good)
        pos = rng.randrange(len(bad))
        bad[pos] ^= rng.randrange(1, 256)
        with pytest.raises(tvm.error.ValueError):
            relax.Executable.load_from_bytes(bytes(bad))
    loaded = rejected = 0
    for _ in range(300):
        bad = bytearray(good)
        pos = rng.randrange(20, len(bad) - 8)
        bad[pos] ^= 1 << rng.randrange(8)
        bad = _resign(bytes(bad))
        try:
            ex = relax.Executable.load_from_bytes(bad)
        except tvm.error.ValueError:
            rejected += 1
        else:
            loaded += 1
            assert ex.save_to_bytes() == bad
    assert rejected > 0
    with pytest.raises(tvm.error.ValueError, match="checksum mismatch"):
        bad = bytearray(good)
        bad[30] ^= 4
        relax.Executable.load_from_bytes(bytes(bad))


def test_load_from_file_errors(tmp_path):
    with pytest.raises(tvm.error.ValueError, match="no such file"):
        relax.Executable.load_from_file(tmp_path / "missing.bin")
    p = tmp_path / "bad.bin"
    p.write_bytes(b"MTVMEXEC\x01\x00")
    with pytest.raises(tvm.error.ValueError, match="bad.bin: .*truncated"):
        relax.Executable.load_from_file(p)


# ---- compiled models -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mlp():
    requires_global("relax.build")
    from minitvm.relax.testing import mlp as mlp_testing  # pylint: disable=import-outside-toplevel

    mod, params = mlp_testing.get_workload(batch_size=2, hidden_units=(32,))
    ex = tvm.compile(mod, "llvm")
    return mod, params, ex


def _mlp_numpy(x, params):
    p = [v.numpy() for v in params.values()]
    h = np.maximum(x.reshape(x.shape[0], -1) @ p[0].T + p[1], 0)
    return h @ p[2].T + p[3]


def test_mlp_end_to_end(mlp):
    mod, params, ex = mlp
    assert isinstance(ex, relax.Executable)
    assert "main" in ex.as_text() and "Instructions" in ex.stats()
    vm = relax.VirtualMachine(ex, tvm.cpu())
    rng = np.random.default_rng(0)
    x = rng.random((2, 1, 28, 28), dtype="float32")
    out = vm["main"](tvm.nd.array(x), *params.values())
    ref = relax.interpret(mod, "main", x, *params.values())
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out.numpy(), _mlp_numpy(x, params), rtol=1e-4, atol=1e-4)
    with pytest.raises(tvm.error.ValueError, match="main: argument data"):
        vm["main"](np.zeros((3, 1, 28, 28), "float32"), *params.values())
    with pytest.raises(tvm.error.TypeError, match=r"main\(\) expects 5 arguments"):
        vm["main"](x)
    report = vm.profile("main", x, *params.values())
    assert "matmul" in report and "Total (main)" in report


def test_hot_path_keeps_results_and_reports_like_the_builtins():
    """The VM runs the argument checks and allocations inline and hands the pooled tensors of a
    statically planned call out again (vm.h): a result the caller still holds is never reused,
    every call is right, and a failing inline check raises the builtin's own error. The MLP at
    batch 1, -mcpu=native, also covers the dot-product kernels of the small last layer."""
    requires_global("relax.build")
    from minitvm.relax.testing import mlp as mlp_testing  # pylint: disable=import-outside-toplevel

    mod, params = mlp_testing.get_workload(batch_size=1, hidden_units=(256,))
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm -mcpu=native"), tvm.cpu())
    f = vm["main"]
    weights = list(params.values())
    rng = np.random.default_rng(3)
    xs = [rng.random((1, 1, 28, 28), dtype="float32") for _ in range(6)]
    held = [f(tvm.nd.array(x), *weights) for x in xs[:3]]  # held: each its own storage
    for _ in range(3):  # dropped at once: the pooled storage and views come back
        for x in xs:
            np.testing.assert_allclose(f(tvm.nd.array(x), *weights).numpy(),
                                       _mlp_numpy(x, params), rtol=1e-4, atol=1e-4)
    for x, out in zip(xs, held):
        np.testing.assert_allclose(out.numpy(), _mlp_numpy(x, params), rtol=1e-4, atol=1e-4)
    assert len({id(o) for o in held}) == 3
    x = tvm.nd.array(xs[0])
    with pytest.raises(tvm.error.ValueError, match="main: argument data: expected a tensor of "
                                                   "dtype float32, got float64"):
        f(tvm.nd.array(xs[0].astype("float64")), *weights)
    with pytest.raises(tvm.error.ValueError, match="expected a tensor of rank 4, got rank 2"):
        f(tvm.nd.array(np.zeros((1, 784), "float32")), *weights)
    with pytest.raises(tvm.error.ValueError, match="dimension 1 of the shape must be 784, got 783"):
        f(x, tvm.nd.array(np.zeros((256, 783), "float32")), *weights[1:])
    with pytest.raises(tvm.error.TypeError, match="expected a tensor, got int"):
        f(x, 3, *weights[1:])
    np.testing.assert_allclose(f(x, *weights).numpy(), _mlp_numpy(xs[0], params), rtol=1e-4,
                               atol=1e-4)


def test_relax_build_with_bound_params(mlp):
    mod, params, _ = mlp
    ex = relax.build(mod, "llvm", params={k: v.numpy() for k, v in params.items()})
    vm = relax.VirtualMachine(ex, tvm.cpu())
    x = np.random.default_rng(1).random((2, 1, 28, 28), dtype="float32")
    np.testing.assert_allclose(vm["main"](x).numpy(), _mlp_numpy(x, params), rtol=1e-4,
                               atol=1e-4)
    # the weights are constants now, and survive the bytes round trip
    again = relax.Executable.load_from_bytes(ex.save_to_bytes())
    again.import_module(ex.imported_modules[0])
    np.testing.assert_allclose(relax.VirtualMachine(again, tvm.cpu())["main"](x).numpy(),
                               _mlp_numpy(x, params), rtol=1e-4, atol=1e-4)


def test_symbolic_shapes_if_and_call_dps_packed():
    requires_global("relax.build")
    from minitvm.script import ir as I, relax as R, tir as T  # pylint: disable=import-outside-toplevel

    @tvm.register_func("test_relax_vm.add_one", override=True)
    def _add_one(x, out):
        out.copyfrom(x.numpy() + 1)

    @I.ir_module
    class Mod:  # pylint: disable=too-few-public-methods
        @R.function
        def main(x: R.Tensor(("n", 4), "float32"), c: R.Tensor((), "bool")):
            n = T.int64()
            if c:
                y = R.call_dps_packed("test_relax_vm.add_one", (x,),
                                      out_sinfo=R.Tensor((n, 4), "float32"))
            else:
                y = R.add(x, x)
            z = R.multiply(y, R.const(2.0, "float32"))
            return (z, R.shape([n * 2, 4]))

    vm = relax.VirtualMachine(tvm.compile(Mod, "llvm"), tvm.cpu())
    for n in [1, 3, 8]:
        x = np.arange(4 * n, dtype="float32").reshape(n, 4)
        z, shape = vm["main"](x, np.array(True))
        np.testing.assert_array_equal(z.numpy(), (x + 1) * 2)
        assert shape == (2 * n, 4)
        z, _ = vm["main"](x, np.array(False))
        np.testing.assert_array_equal(z.numpy(), x * 4)
    with pytest.raises(tvm.error.ValueError, match="main: argument x: dimension 1"):
        vm["main"](np.zeros((3, 5), "float32"), np.array(True))


def test_export_library_and_load_in_a_fresh_process(mlp, tmp_path):
    mod, params, ex = mlp
    lib = tmp_path / "model.so"
    ex.export_library(lib)
    x = np.random.default_rng(2).random((2, 1, 28, 28), dtype="float32")
    np.save(tmp_path / "x.npy", x)
    names = []
    for i, v in enumerate(params.values()):
        np.save(tmp_path / f"p{i}.npy", v.numpy())
        names.append(str(tmp_path / f"p{i}.npy"))
    expected = _mlp_numpy(x, params)
    script = textwrap.dedent(f"""
        import numpy as np
        import minitvm as tvm
        from minitvm import relax
        ex = tvm.runtime.load_module({str(lib)!r})
        assert isinstance(ex, relax.Executable), type(ex)
        vm = relax.VirtualMachine(ex, tvm.cpu())
        args = [np.load(p) for p in {names!r}]
        out = vm["main"](np.load({str(tmp_path / "x.npy")!r}), *args)
        np.save({str(tmp_path / "out.npy")!r}, out.numpy())
        print("OK")
    """)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(REPO_ROOT, "python")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                       timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), expected, rtol=1e-4, atol=1e-4)

    deploy = os.path.join(os.environ["MINITVM_BUILD_DIR"], "bin", "vm_deploy_main")
    if not os.path.exists(deploy):
        pytest.skip("vm_deploy_main is not built")
    r = subprocess.run([deploy, str(lib), "main", str(tmp_path / "cpp.npy"),
                        str(tmp_path / "x.npy")] + names, capture_output=True, text=True,
                       timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    assert "OK: ran main" in r.stdout
    np.testing.assert_allclose(np.load(tmp_path / "cpp.npy"), expected, rtol=1e-4, atol=1e-4)


def test_corrupted_library_is_rejected(mlp, tmp_path):
    _, _, ex = mlp
    lib = tmp_path / "model.so"
    ex.export_library(lib)
    data = lib.read_bytes()
    (tmp_path / "cut.so").write_bytes(data[: len(data) // 2])
    with pytest.raises(tvm.error.ValueError, match="cut.so"):
        tvm.runtime.load_module(tmp_path / "cut.so")
    # corrupt the embedded executable (its bytes start after the magic "MTVMEXEC")
    pos = data.find(b"MTVMEXEC")
    assert pos > 0
    bad = bytearray(data)
    bad[pos + 40] ^= 0x55
    (tmp_path / "bad.so").write_bytes(bytes(bad))
    with pytest.raises(tvm.error.ValueError, match="bad.so: the file was damaged after export"):
        tvm.runtime.load_module(tmp_path / "bad.so")
    # without the file's checksum trailer (24 bytes) the executable's own checksum catches it
    (tmp_path / "bad.so").write_bytes(bytes(bad[:-24]))
    with pytest.raises(tvm.error.ValueError, match="bad.so: .*checksum mismatch"):
        tvm.runtime.load_module(tmp_path / "bad.so")


@pytest.mark.parametrize("name", ["resnet", "mobilenet", "lstm"])
def test_models_match_the_interpreter(name):
    requires_global("relax.build")
    from minitvm.relax import testing  # pylint: disable=import-outside-toplevel

    if name == "lstm":
        mod, params = testing.lstm.get_workload()
    else:
        mod, params = getattr(testing, name).get_workload(image_shape=(3, 32, 32),
                                                          num_classes=10)
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    shape = [int(d) for d in mod["main"].params[0].struct_info.shape]
    x = np.random.default_rng(3).random(shape, dtype="float32")
    out = vm["main"](x, *params.values())
    ref = relax.interpret(mod, "main", x, *params.values())
    out, ref = (out[0], ref[0]) if isinstance(ref, tuple) else (out, ref)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-4, atol=1e-4)
