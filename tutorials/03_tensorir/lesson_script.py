# Lesson 3, part 2 (Python): TVMScript — TensorIR as text you read and write
# ===========================================================================
#
# Part 1 of this lesson built PrimFuncs with tensor expressions and printed them. What it
# printed is *TVMScript*: TensorIR written with Python syntax. It is not only a printout —
# it is a language. We can write a PrimFunc directly in it, parse it back, and the printed
# text of any IR parses to the same IR again (a "round trip"). Schedules (stage 3) are then
# read as before/after TVMScript.
#
# This part follows the "Blitz course to TensorIR": the vector add B = A + 1, written by hand.
import numpy as np

import minitvm as tvm
import minitvm.script  # noqa: F401  (tvm.script.ir_module, tvm.script.from_source)
from minitvm.driver import build
from minitvm.script import ir as I
from minitvm.script import tir as T

# -----------------------------------------------------------------------------------------
# 1. The course's module, as the course writes it
# -----------------------------------------------------------------------------------------
# A class decorated with `@tvm.script.ir_module` is an IRModule; each `@T.prim_func` method
# is one PrimFunc. Python never runs the method body: the decorator hands the source text to
# the C++ parser, which builds the IR. This is the course's older style — handle parameters
# (`T.handle`, like pointers) turned into buffers by `T.match_buffer`, and no `T.reads` /
# `T.writes` (the parser works them out from the body).


@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def main(a: T.handle, b: T.handle):
        # We exchange data between functions by handles, which are similar to pointers.
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        # Create buffers from handles.
        A = T.match_buffer(a, (8,), dtype="float32")
        B = T.match_buffer(b, (8,), dtype="float32")
        for i in range(8):
            # A block is an abstraction for computation.
            with T.block("B"):
                # Define a spatial block iterator and bind it to value i.
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + 1.0


ir_module = MyModule
print(type(ir_module).__name__)
# Printing gives today's format: buffers in the signature, the inferred T.reads/T.writes,
# the implicit root block as a comment, and the literal 1.0 typed as the buffer's float32.
print(ir_module.script())

# -----------------------------------------------------------------------------------------
# 2. The same module in the current syntax
# -----------------------------------------------------------------------------------------
# `A: T.Buffer((8,), "float32")` declares the buffer in the signature. Both spellings give
# the same IR: structural equality compares the trees (names of variables do not matter).


@I.ir_module
class MyModuleNew:
    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T.func_attr({"tir.noalias": True})
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1.0)


same = tvm.get_global_func("ir.StructuralEqual")(MyModule, MyModuleNew, False)
print("the two spellings are structurally equal:", bool(same))

# -----------------------------------------------------------------------------------------
# 3. Round trip: print, parse, print
# -----------------------------------------------------------------------------------------
# `tvm.script.from_source` parses text. The course printed its output in an older format
# (`T.Buffer[8, "float32"]`, `T.serial(8)`, `-> None`); that text reads too.
course_output = '''# from tvm.script import tir as T
@tvm.script.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer[8, "float32"], B: T.Buffer[8, "float32"]) -> None:
        # function attr dict
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        # body
        # with T.block("root")
        for i in T.serial(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] + T.float32(1)
'''
from_course = tvm.script.from_source(course_output)
print("old course output parses to the same text:", from_course.script() == ir_module.script())
again = tvm.script.from_source(ir_module.script())
print("print(parse(print(m))) == print(m):", again.script() == ir_module.script())

# -----------------------------------------------------------------------------------------
# 4. Run it with the TIR interpreter and compare with NumPy
# -----------------------------------------------------------------------------------------
# target="ref" executes the PrimFunc with the interpreter (target="llvm" compiles; stage 5).
mod = build(ir_module, target="ref")
a = tvm.nd.array(np.arange(8).astype("float32"))
b = tvm.nd.array(np.zeros((8,)).astype("float32"))
mod(a, b)
print(a.numpy())
print(b.numpy())
np.testing.assert_allclose(b.numpy(), a.numpy() + 1, rtol=0, atol=0)

# -----------------------------------------------------------------------------------------
# 5. When the script is wrong
# -----------------------------------------------------------------------------------------
# A mistake is a ParseError that names it and points at it: file, line, column, the line
# itself and a caret. With a decorator, the file and line are those of your .py file.
broken = '''@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = T.foo(A[vi])
'''
try:
    tvm.script.from_source(broken, "my_kernel.py", 6)
except tvm.error.ParseError as err:
    print(err)

print("OK: the course's vector add, written in both TVMScript syntaxes, parses to the same "
      "IR, round-trips through the printer and runs on the interpreter like NumPy")
