"""The IRBuilder and its frames (stage 2), as ``tvm.script.ir_builder.IRBuilder``.

An :class:`IRBuilder` is a stack of open *frames*. ``with IRBuilder() as ib:`` makes ``ib``
the current builder; inside it each ``with T.prim_func():``, ``with T.block("b"):``,
``with T.serial(8) as i:`` ... pushes a frame, the calls made inside (``T.evaluate``,
``T.buffer_store``, ``T.reads``, ...) record statements and facts in the innermost frame, and
leaving the ``with`` builds the node (a For, a BlockRealize, a PrimFunc, ...) and hands it to
the frame below. What is left when the last frame closes is the result, ``ib.get()``.

A statement made with no frame open (``T.evaluate(0)`` directly under the builder) is the
result itself. Outside any builder the ``T.`` calls that record something raise a
``ValueError`` saying so. Errors are minitvm's (``minitvm.error.ValueError`` derives from the
builtin ``ValueError``).
"""
import threading

from ... import error as _error
from ..._ffi import get_global_func

__all__ = ["IRBuilder", "IRBuilderFrame"]

_STATE = threading.local()


def _builder_stack():
    stack = getattr(_STATE, "builders", None)
    if stack is None:
        stack = _STATE.builders = []
    return stack


class IRBuilderFrame:
    """One open scope of an :class:`IRBuilder`. ``with frame:`` pushes it onto the current
    builder; leaving the ``with`` normally runs :meth:`exit_with_scope`, which builds the
    node. A frame may be entered once."""

    #: How the frame is written in messages (``T.block("b")``).
    describe = "frame"

    def __init__(self):
        self._builder = None
        self._callbacks = []

    def enter_with_scope(self):
        """Checks made when the frame opens (subclasses)."""

    def exit_with_scope(self):
        """Build what the frame stands for and add it to the enclosing frame (subclasses)."""

    def enter_value(self):
        """What ``with frame as x`` binds to ``x`` (the frame itself unless overridden)."""
        return self

    def add_callback(self, callback):
        """Call ``callback()`` when the frame is left normally, after it is built."""
        self._callbacks.append(callback)

    def __enter__(self):
        if self._builder is not None:
            raise _error.ValueError(f"{self.describe}: this frame was already entered")
        builder = IRBuilder.current(self.describe)
        self.enter_with_scope()
        self._builder = builder
        builder._frames.append(self)  # pylint: disable=protected-access
        return self.enter_value()

    def __exit__(self, exc_type, exc_value, trace):
        builder = self._builder
        frames = builder._frames  # pylint: disable=protected-access
        if not frames or frames[-1] is not self:
            if exc_type is not None:
                return  # an error left inner frames open; let it propagate
            inner = frames[-1].describe if frames else "none"
            raise _error.ValueError(
                f"IRBuilder: {self.describe} is closed while an inner frame is still open "
                f"(innermost open frame: {inner})")
        frames.pop()
        if exc_type is not None:
            return  # as TVM: a frame left by an exception builds nothing
        self.exit_with_scope()
        for callback in self._callbacks:
            callback()


class IRBuilder:
    """Builds IR with ``with`` frames (see the module docstring)::

        with IRBuilder() as ib:
            with T.prim_func():
                T.func_name("main")
                A = T.arg("A", T.Buffer((8,), "float32"))
                with T.serial(8) as i:
                    T.buffer_store(A, A[i] + 1.0, [i])
        func = ib.get()
    """

    def __init__(self):
        self._frames = []
        self._result = None

    def __enter__(self):
        _builder_stack().append(self)
        return self

    def __exit__(self, exc_type, exc_value, trace):
        stack = _builder_stack()
        if stack and stack[-1] is self:
            stack.pop()
        if exc_type is None and self._frames:
            open_frames = ", ".join(f.describe for f in self._frames)
            self._frames = []
            raise _error.ValueError(
                f"IRBuilder: the builder's scope ends while frames are still open: "
                f"{open_frames} (each frame must be left before the builder)")

    @staticmethod
    def current(what="this call"):
        """The innermost builder in scope; a ValueError when there is none."""
        stack = _builder_stack()
        if not stack:
            raise _error.ValueError(
                f"{what} must be used inside `with IRBuilder() as ib:` (no IRBuilder is in "
                "scope)")
        return stack[-1]

    @staticmethod
    def is_in_scope():
        """Whether some builder is in scope."""
        return bool(_builder_stack())

    @property
    def frames(self):
        """The open frames, outermost first."""
        return list(self._frames)

    def get(self):
        """The IR built: the PrimFunc, IRModule or statement of the outermost frame."""
        if self._frames:
            open_frames = ", ".join(f.describe for f in self._frames)
            raise _error.ValueError(
                f"IRBuilder.get(): frames are still open: {open_frames}; leave every frame "
                "before asking for the result")
        if self._result is None:
            raise _error.ValueError("IRBuilder.get(): nothing has been built yet")
        return self._result

    def _set_result(self, node):
        if self._result is not None:
            raise _error.ValueError(
                "IRBuilder: the builder's result has already been set; build a single "
                "function, module or statement per builder (put several statements inside a "
                "frame)")
        self._result = node

    def find_frame(self, frame_type):
        """The innermost open frame of ``frame_type``, or None."""
        for frame in reversed(self._frames):
            if isinstance(frame, frame_type):
                return frame
        return None

    def last_frame(self, frame_type):
        """The innermost open frame if it is a ``frame_type``, else None."""
        if self._frames and isinstance(self._frames[-1], frame_type):
            return self._frames[-1]
        return None

    @staticmethod
    def name(s, v):
        """Name ``v`` (a Var, a Buffer, an IterVar) ``s``, in place, and return it. Names only
        change how IR prints."""
        return get_global_func("script.ir_builder.Name")(str(s), v)

    @staticmethod
    def name_many(s, vs):
        """Name each of ``vs`` with the matching name of ``s``."""
        if len(s) != len(vs):
            raise _error.ValueError(
                f"IRBuilder.name_many: {len(s)} names for {len(vs)} objects")
        return [IRBuilder.name(i, v) for i, v in zip(s, vs)]
