"""``IndexMap``: a map from buffer indices to new indices, for ``transform_layout``."""
import inspect

from ..._ffi import get_global_func, register_object
from ...runtime import Object

__all__ = ["IndexMap"]


def _make_var(name, dtype="int32"):
    try:
        from .. import Var  # the tir package's Var, when it is there

        return Var(name, dtype)
    except ImportError:
        return get_global_func("tir.Var")(name, dtype)


@register_object("tir.IndexMap")
class IndexMap(Object):
    """A list of variables and the new indices in terms of them.

    Build one from a Python function: ``IndexMap.from_func(lambda i, j: (j // 16, i, j % 16))``.
    """

    def __init__(self, initial_indices, final_indices):
        self.__init_handle_by_constructor__(
            get_global_func("tir.IndexMap"), list(initial_indices), list(final_indices)
        )

    @staticmethod
    def from_func(func, ndim=None, index_dtype="int32"):
        """Call ``func`` with fresh variables (named after its parameters, of ``index_dtype``)
        and record what it returns (one expression or a tuple/list of them)."""
        if isinstance(func, IndexMap):
            return func
        names = list(inspect.signature(func).parameters)
        if ndim is not None and len(names) != ndim:
            if len(names) == 1 and inspect.signature(func).parameters[names[0]].kind == (
                inspect.Parameter.VAR_POSITIONAL
            ):
                names = [f"i{k}" for k in range(ndim)]
        variables = [_make_var(n, index_dtype) for n in names]
        result = func(*variables)
        if not isinstance(result, (list, tuple)):
            result = [result]
        return IndexMap(variables, list(result))

    def map_indices(self, indices):
        """The new indices for concrete indices (not simplified)."""
        return list(get_global_func("tir.IndexMapMapIndices")(self, list(indices)))

    def __str__(self):
        return get_global_func("tir.IndexMapToPython")(self)

    def __repr__(self):
        return f"IndexMap({self})"
