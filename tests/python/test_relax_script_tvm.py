"""TVM's spellings of the Relax TVMScript entry points (stage 4)."""
import minitvm
from minitvm.script.parser import ir as I
from minitvm.script.parser import relax as R
from minitvm.script.parser import tir as T


def test_parser_package_names_the_script_namespaces():
    import minitvm.script.ir as ir_mod
    import minitvm.script.relax as relax_mod
    import minitvm.script.tir as tir_mod

    assert I is ir_mod
    assert T is tir_mod
    assert R.function is relax_mod.function
    assert R.entry is relax_mod


def test_function_parsed_through_parser_relax():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            y = R.add(x, x)
            return y

    func = Mod["main"]
    assert isinstance(func, minitvm.relax.Function)
    assert len(func.params) == 1
