"""The operator constructors registered in C++ as ``"relax.op.<name>"`` (and ``relax.op.nn.*``,
``relax.op.builtin.*``, ``relax.op.memory.*`` through :func:`call`)."""
from ..._ffi import get_global_func, init_api

init_api("relax.op", __name__)

_CACHE = {}


def call(name, *args):
    """Call the global function ``"relax.op.<name>"`` (``name`` may be dotted: ``nn.conv2d``)."""
    f = _CACHE.get(name)
    if f is None:
        f = _CACHE[name] = get_global_func("relax.op." + name)
    return f(*args)
