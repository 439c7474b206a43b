"""``BaseFunc``: the base of TensorIR PrimFuncs and Relax functions (stage 2), with their
attributes (``"global_symbol"``, ``"tir.noalias"``)."""
from .._ffi import register_object
from .expr import BaseExpr
from . import _ffi_api

__all__ = ["BaseFunc"]


@register_object("ir.BaseFunc")
class BaseFunc(BaseExpr):
    """A function of an IRModule. ``attrs`` is its attribute map."""

    def with_attr(self, attr_key_or_dict, attr_value=None):
        """A copy with one attribute (or a dict of them) set; the function is unchanged."""
        if isinstance(attr_key_or_dict, dict):
            func = self
            for k, v in attr_key_or_dict.items():
                func = _ffi_api.BaseFuncWithAttr(func, k, v)
            return func
        return _ffi_api.BaseFuncWithAttr(self, attr_key_or_dict, attr_value)

    def script(self, **kwargs):
        """The function as TVMScript text."""
        from .module import _as_script  # pylint: disable=import-outside-toplevel

        return _as_script(self)

    def show(self, style=None, black_format=None, **kwargs):
        """Print :meth:`script`, highlighted in a terminal or a notebook (see
        :func:`minitvm.script.highlight.cprint` for ``style`` and ``black_format``)."""
        from ..script.highlight import cprint  # pylint: disable=import-outside-toplevel

        cprint(self.script(**kwargs), style=style, black_format=black_format)

    def _repr_html_(self):
        """The function (PrimFunc or Relax Function) as highlighted TVMScript (Jupyter)."""
        from ..script.highlight import to_html  # pylint: disable=import-outside-toplevel

        return to_html(self.script())
