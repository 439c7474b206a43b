"""minitvm.script.ir_builder (issue 15): TensorIR built by running Python, checked against the
same function parsed from TVMScript (structural equality), and the builder's errors."""
import pytest

import minitvm as tvm
from minitvm import tir
from minitvm.script import ir as I
from minitvm.script import tir as T
from minitvm.script.ir_builder import IRBuilder
from minitvm.script.ir_builder import ir as IB
from minitvm.script.ir_builder import tir as TB


def _equal(built, parsed):
    tvm.ir.assert_structural_equal(built, parsed)


# ---- whole functions: builder == parser ----------------------------------------------------


@T.prim_func
def matmul(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (16, 16), "float32")
    B = T.match_buffer(b, (16, 16), "float32")
    C = T.match_buffer(c, (16, 16), "float32")
    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]


def _build_matmul(name_them=True):
    with IRBuilder() as ib:
        with TB.prim_func():
            TB.func_name("matmul")
            a, b, c = (TB.arg(n, TB.handle()) for n in "abc")
            A, B, C = (TB.match_buffer(h, (16, 16), "float32") for h in (a, b, c))
            if name_them:
                ib.name_many(["A", "B", "C"], [A, B, C])
            with TB.grid(16, 16, 16) as (i, j, k):
                with TB.block("C"):
                    vi, vj, vk = TB.axis.remap("SSR", [i, j, k])
                    if name_them:
                        ib.name_many(["vi", "vj", "vk"], [vi, vj, vk])
                    with TB.init():
                        TB.buffer_store(C, TB.float32(0), [vi, vj])
                    TB.buffer_store(C, C[vi, vj] + A[vi, vk] * B[vj, vk], [vi, vj])
    return ib.get()


def test_matmul_equals_the_parsed_function():
    built = _build_matmul()
    _equal(built, matmul)
    # names do not matter to equality, but they are what prints
    _equal(_build_matmul(name_them=False), matmul)
    assert "vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])" not in built.script()
    assert "C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]" in built.script()
    assert built.attrs["global_symbol"] == "matmul"


@T.prim_func
def two_blocks(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    Bb = T.alloc_buffer((8, 8))
    for i in T.serial(8):
        for j in T.vectorized(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                vj = T.axis.spatial(8, j)
                T.reads(A[vi, vj])
                T.writes(Bb[vi, vj])
                T.block_attr({"meta": 1})
                Bb[vi, vj] = A[vi, vj] * T.float32(2)
    for i in T.parallel(8):
        for j in T.unroll(8):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.where(i < 8)
                C[vi, vj] = Bb[vi, vj] + T.float32(1)


def test_root_alloc_buffer_loops_and_block_facts():
    with IRBuilder() as ib:
        with TB.prim_func():
            TB.func_name("two_blocks")
            A = TB.arg("A", TB.Buffer((8, 8), "float32"))
            C = TB.arg("C", TB.Buffer((8, 8), "float32"))
            Bb = ib.name("Bb", TB.alloc_buffer((8, 8)))
            with TB.serial(8) as i:
                with TB.vectorized(8) as j:
                    with TB.block("B"):
                        vi = TB.axis.spatial(8, i)
                        vj = TB.axis.spatial(8, j)
                        TB.reads(A[vi, vj])
                        TB.writes(Bb[vi, vj])
                        TB.block_attr({"meta": 1})
                        TB.buffer_store(Bb, A[vi, vj] * TB.float32(2), [vi, vj])
            with TB.parallel(8) as i:
                with TB.unroll(8) as j:
                    with TB.block("C"):
                        vi, vj = TB.axis.remap("SS", [i, j])
                        TB.where(i < 8)
                        TB.buffer_store(C, Bb[vi, vj] + TB.float32(1), [vi, vj])
    _equal(ib.get(), two_blocks)


@T.prim_func
def control_flow(A: T.Buffer((16,), "float32"), n: T.int32):
    T.func_attr({"tir.noalias": True})
    with T.LetStmt(n * 2) as m:
        if m < 8:
            A[0] = T.float32(1)
        else:
            A[1] = T.float32(2)
    with T.allocate([4], "float32", "local") as p:
        T.evaluate(p)
    with T.decl_buffer((4,), "float32") as D:
        D[0] = T.float32(0)
    with T.attr(A.data, "pragma_x", 1):
        T.evaluate(0)
    assert n > 0, "n must be positive"
    while n > 100:
        T.evaluate(1)
    for t in T.thread_binding(4, thread="threadIdx.x"):
        A[t] = T.float32(0)


def test_statements_let_if_allocate_attr_assert_while_thread_binding():
    with IRBuilder() as ib:
        with TB.prim_func():
            TB.func_name("control_flow")
            A = TB.arg("A", TB.Buffer((16,), "float32"))
            n = TB.arg("n", TB.int32())
            TB.func_attr({"tir.noalias": True})
            with TB.LetStmt(n * 2) as m:
                with TB.If(m < 8):
                    with TB.Then():
                        TB.buffer_store(A, 1.0, [0])
                    with TB.Else():
                        TB.buffer_store(A, 2.0, [1])
            with TB.allocate([4], "float32", "local") as p:
                TB.evaluate(p)
            with TB.decl_buffer((4,), "float32") as D:
                TB.buffer_store(D, 0.0, [0])
            with TB.attr(A.data, "pragma_x", 1):
                TB.evaluate(0)
            with TB.Assert(n > 0, "n must be positive"):
                with TB.While(n > 100):
                    TB.evaluate(1)
                with TB.thread_binding(4, thread="threadIdx.x") as t:
                    TB.buffer_store(A, 0.0, [t])
    _equal(ib.get(), control_flow)


@T.prim_func
def launch(A: T.Buffer((64,), "float32")):
    bx = T.env_thread("blockIdx.x")
    tx = T.env_thread("threadIdx.x")
    T.launch_thread(bx, 8)
    T.launch_thread(tx, 8)
    A[bx * 8 + tx] = T.float32(0)


def test_env_thread_and_launch_thread():
    with IRBuilder() as ib:
        with TB.prim_func():
            TB.func_name("launch")
            A = TB.arg("A", TB.Buffer((64,), "float32"))
            bx = TB.env_thread("blockIdx.x")
            tx = TB.env_thread("threadIdx.x")
            with TB.launch_thread(bx, 8):
                with TB.launch_thread(tx, 8):
                    TB.buffer_store(A, 0.0, [bx * 8 + tx])
    _equal(ib.get(), launch)


@I.ir_module
class Module:
    @T.prim_func
    def add_one(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = A[i] + T.float32(1)

    @T.prim_func(private=True)
    def zero(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(0)


def test_ir_module_with_two_functions():
    def body(A, value):
        with TB.serial(4) as i:
            TB.buffer_store(A, value(A, i), [i])

    with IRBuilder() as ib:
        with IB.ir_module():
            with TB.prim_func():
                TB.func_name("add_one")
                body(TB.arg("A", TB.Buffer((4,), "float32")), lambda A, i: A[i] + 1.0)
            with TB.prim_func(is_private=True):
                TB.func_name("zero")
                body(TB.arg("A", TB.Buffer((4,), "float32")), lambda A, i: TB.float32(0))
    mod = ib.get()
    assert isinstance(mod, tvm.IRModule)
    _equal(mod, Module)


def test_decl_and_def_function():
    with IRBuilder() as ib:
        with IB.ir_module():
            gv = IB.decl_function("f", Module["zero"])
            assert gv.name_hint == "f"
            IB.def_function("f", Module["add_one"])
    assert ib.get()["f"].same_as(Module["add_one"])


def test_sblock_aliases_in_the_builder():
    with IRBuilder() as ib:
        with TB.prim_func():
            TB.func_name("f")
            A = TB.arg("A", TB.Buffer((8,), "float32"))
            with TB.serial(8) as i:
                with TB.sblock("B"):
                    vi = TB.axis.spatial(8, i)
                    TB.buffer_store(A, 0.0, [vi])

    @T.prim_func
    def f(A: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                A[vi] = T.float32(0)

    _equal(ib.get(), f)


# ---- statements as results -----------------------------------------------------------------


def test_a_single_statement_is_the_result():
    with IRBuilder() as ib:
        TB.evaluate(0)
    assert isinstance(ib.get(), tir.Evaluate)
    with IRBuilder() as ib:
        with TB.serial(10):
            TB.evaluate(1)
            TB.evaluate(2)
    loop = ib.get()
    assert isinstance(loop, tir.For) and isinstance(loop.body, tir.SeqStmt)
    assert len(loop.body) == 2


def test_block_outside_a_function_keeps_the_detect_access_annotation():
    with IRBuilder() as ib:
        with TB.block("b"):
            TB.reads()
            TB.evaluate(0)
    block = ib.get().block
    assert int(block.annotations["tir.script_parsing_detect_access"]) == 2


def test_buffer_slicing_gives_regions():
    buf = tir.decl_buffer((16, 32), "float32", name="X")
    region = buf[0:4, 8]
    assert isinstance(region, tir.BufferRegion)
    assert [int(r.extent) for r in region.region] == [4, 1]
    assert [int(r.min) for r in region.region] == [0, 8]
    full = buf[:, 2:]
    assert [int(r.extent) for r in full.region] == [16, 30]


def test_name_renames_in_place():
    v = TB.int32()
    assert IRBuilder.name("width", v).same_as(v)
    assert v.name == "width"
    buf = TB.Buffer((4,), "float32")
    IRBuilder.name("Q", buf)
    assert buf.name == "Q" and buf.data.name == "Q"


def test_dtype_functions():
    assert isinstance(TB.int32(), tir.Var) and TB.int64().dtype == "int64"
    assert int(TB.int16(3)) == 3 and TB.int16(3).dtype == "int16"
    x = tir.Var("x", "int32")
    assert TB.float32(x).dtype == "float32"
    assert TB.bool(True).dtype == "bool"


# ---- errors --------------------------------------------------------------------------------


def test_statement_outside_any_builder_is_an_error():
    with pytest.raises(ValueError, match=r"T.evaluate must be used inside `with IRBuilder\(\)"):
        TB.evaluate(0)
    with pytest.raises(ValueError, match="no IRBuilder is in scope"):
        with TB.prim_func():
            pass


def test_frame_left_open_is_an_error():
    with pytest.raises(ValueError, match=r"frames are still open: T.prim_func\(\)"):
        with IRBuilder() as ib:
            TB.prim_func().__enter__()
            ib.get()
    with pytest.raises(ValueError, match=r"scope ends while frames are still open: "
                                         r'T.block\("b"\)'):
        with IRBuilder():
            TB.block("b").__enter__()


def test_get_before_anything_is_built():
    with IRBuilder() as ib:
        with pytest.raises(ValueError, match="nothing has been built yet"):
            ib.get()
        TB.evaluate(0)
        with pytest.raises(ValueError, match="result has already been set"):
            TB.evaluate(1)


def test_misplaced_calls():
    with IRBuilder():
        with pytest.raises(ValueError, match=r"T.reads must be called inside `with T.block"):
            TB.reads()
        with pytest.raises(ValueError, match=r"T.arg must be called inside `with T.prim_func"):
            TB.arg("x", TB.int32())
        with pytest.raises(ValueError, match=r"T.Else\(\): the else branch must follow"):
            with TB.If(TB.int32() > 0):
                with TB.Else():
                    pass
    with IRBuilder():
        with pytest.raises(ValueError, match="T.axis.spatial must be called directly inside"):
            with TB.prim_func():
                TB.axis.spatial(8, 0)
    with IRBuilder():
        with pytest.raises(ValueError, match=r"T.func_name: duplicate name"):
            with TB.prim_func():
                TB.func_name("a")
                TB.func_name("b")
    with IRBuilder():
        with pytest.raises(ValueError, match="needs a name"):
            with IB.ir_module():
                with TB.prim_func():
                    TB.evaluate(0)
    with IRBuilder():
        with pytest.raises(ValueError, match="not a parameter of the function"):
            with TB.prim_func():
                TB.match_buffer(TB.handle(), (4,))
