"""``NDArray``: minitvm's n-dimensional array, and ways to make one (TVM's ``tvm.nd``).

An NDArray is a C++ object with the DLPack layout: data pointer, shape, strides (in
elements), dtype, device and byte offset, on 64-byte aligned storage when minitvm allocates
it. There are two ways across the language boundary:

* **copies**: :func:`array` (NumPy or list → new NDArray), :meth:`NDArray.numpy` (→ new
  NumPy array), :meth:`NDArray.copyfrom`, :meth:`NDArray.copyto`;
* **zero-copy** through DLPack: :func:`from_dlpack` takes a NumPy array, a PyTorch tensor,
  anything with ``__dlpack__`` or a raw ``"dltensor"`` capsule and aliases its memory;
  ``numpy.from_dlpack(nd)`` and ``torch.utils.dlpack.from_dlpack(nd.to_dlpack())`` alias an
  NDArray's memory. The owner of the memory stays alive as long as any alias does.
"""
import builtins

import numpy as np

from .. import error
from .._ffi import core
from .._ffi.registry import register_object
from . import _ffi_api
from .data_type import DataType
from .device import Device, cpu
from .object import Object

__all__ = ["NDArray", "array", "empty", "from_dlpack"]

#: The NumPy dtype names that are also minitvm dtype names.
_NUMPY_DTYPES = frozenset(
    ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
     "float16", "float32", "float64"]
)


def _numpy_dtype(dtype):
    """The NumPy dtype of a minitvm dtype name; TypeError when NumPy has none."""
    if str(dtype) in _NUMPY_DTYPES:
        return np.dtype(str(dtype))
    raise error.TypeError(f"NumPy has no dtype for {dtype}")


def _as_host_numpy(value, what):
    """A C-contiguous, native-byte-order NumPy array with a minitvm dtype."""
    try:
        src = np.asarray(value)
    except (builtins.ValueError, builtins.TypeError) as err:  # ragged lists, odd objects
        raise error.ValueError(f"{what}: cannot make an array of {type(value).__name__}: {err}") \
            from err
    if src.dtype.name not in _NUMPY_DTYPES:
        raise error.TypeError(
            f"{what}: NumPy dtype {src.dtype} has no minitvm dtype "
            f"(supported: {', '.join(sorted(_NUMPY_DTYPES))})"
        )
    if not src.dtype.isnative:
        src = src.astype(src.dtype.newbyteorder("="))
    # (np.ascontiguousarray would turn a 0-d array into a 1-d one.)
    return np.asarray(src, order="C")


@register_object("runtime.NDArray")
class NDArray(Object):
    """An n-dimensional array (see the module docstring).

    ``str(a)`` is ``str(a.numpy())``, so ``print(a)`` prints like NumPy.
    """

    def _meta(self):
        return core.ndarray_meta(self)

    @property
    def shape(self):
        """The shape, a tuple of ints."""
        return self._meta()[0]

    @property
    def strides(self):
        """The strides in elements, a tuple of ints (compact row-major unless a view)."""
        return self._meta()[1]

    @property
    def dtype(self):
        """The element type, a :class:`DataType` (a str such as ``"float32"``)."""
        return self._meta()[2]

    @property
    def device(self):
        """The :class:`Device` the data lives on."""
        return self._meta()[3]

    @property
    def ndim(self):
        """The number of dimensions."""
        return len(self.shape)

    @property
    def is_contiguous(self):
        """True when the elements are compact and row-major."""
        return bool(_ffi_api.NDArrayIsContiguous(self))

    def numpy(self):
        """A new NumPy array with a copy of the contents."""
        src = self if self.device.device_type == Device.kDLCPU else self.copyto(cpu(0))
        return np.array(core.ndarray_numpy_view(src), copy=True, order="C")

    def asnumpy(self):
        """The old name of :meth:`numpy`."""
        return self.numpy()

    def numpy_view(self):
        """A writable NumPy array that aliases this array's memory (cpu only; minitvm-only).

        Unlike ``numpy.from_dlpack``, which NumPy 1.x makes read-only, writes through the
        view are seen by the NDArray. The view keeps the NDArray alive.
        """
        return core.ndarray_numpy_view(self)

    def __array__(self, dtype=None):
        out = self.numpy()
        return out if dtype is None else out.astype(dtype)

    def copyfrom(self, source):
        """Copy ``source`` (an NDArray, a NumPy array or a list) into this array; returns self.

        Shapes must match exactly (ValueError otherwise). An NDArray source must have the
        same dtype; NumPy data is cast when the cast keeps its kind (float64 → float32, int
        → float), and refused otherwise (float → int needs an explicit ``astype``).
        """
        if isinstance(source, NDArray):
            core.ndarray_copy_from_to(source, self)
            return self
        target = _numpy_dtype(self.dtype)
        src = np.asarray(source)
        if src.shape != self.shape:
            raise error.ValueError(
                f"copyfrom: the source has shape {src.shape} but the array has shape {self.shape}"
            )
        if src.dtype != target:
            if not np.can_cast(src.dtype, target, casting="same_kind"):
                raise error.ValueError(
                    f"copyfrom: cannot copy {src.dtype} data into a {self.dtype} array without "
                    f"changing its kind; convert it first (source.astype('{self.dtype}'))"
                )
            src = src.astype(target)
        core.ndarray_copy_from_numpy(self, _as_host_numpy(src, "copyfrom"))
        return self

    def copyto(self, target):
        """Copy into an NDArray (returned) or to a new array on a :class:`Device`."""
        if isinstance(target, NDArray):
            core.ndarray_copy_from_to(self, target)
            return target
        if isinstance(target, Device):
            return _ffi_api.NDArrayCopyToDevice(self, target)
        raise error.TypeError(f"copyto: expected an NDArray or a Device, not {type(target).__name__}")

    def __setitem__(self, index, value):
        if not (isinstance(index, slice) and index == slice(None)):
            raise error.ValueError("NDArray only supports a[:] = value (a full copy)")
        if isinstance(value, (int, float, bool, np.number, np.bool_)):
            value = _check_scalar_fits(value, self.dtype)
            value = np.full(self.shape, value, dtype=_numpy_dtype(self.dtype))
        self.copyfrom(value)

    def to_dlpack(self):
        """A ``"dltensor"`` capsule aliasing this array (the consumer renames it on use)."""
        return core.ndarray_to_dlpack(self)

    def __dlpack__(self, stream=None):  # pylint: disable=unused-argument
        """DLPack protocol: a capsule aliasing this array. ``stream`` is accepted and ignored
        (minitvm runs device work on the default stream and synchronises)."""
        return core.ndarray_to_dlpack(self)

    def __dlpack_device__(self):
        """DLPack protocol: ``(device_type, device_id)``."""
        dev = self.device
        return (dev.device_type, dev.device_id)

    def __repr__(self):
        if self.handle is None:
            return "<minitvm.nd.NDArray (empty handle)>"
        body = repr(self.numpy()) if self.device.device_type == Device.kDLCPU else "..."
        return f"<minitvm.nd.NDArray shape={self.shape}, {self.device}>\n{body}"

    def __str__(self):
        return str(self.numpy())

    def _repr_html_(self):
        """Jupyter's rich display: a header (shape, dtype, device) over NumPy's text of the
        values (summarised with "..." when large, as NumPy does)."""
        import html  # pylint: disable=import-outside-toplevel

        if self.handle is None:
            return "<pre>&lt;minitvm.nd.NDArray (empty handle)&gt;</pre>"
        on_cpu = self.device.device_type == Device.kDLCPU
        body = html.escape(repr(self.numpy())) if on_cpu else "(on the device: .numpy() copies it)"
        head = html.escape(f"minitvm.nd.NDArray shape={self.shape} dtype={self.dtype} {self.device}")
        return (
            f'<div class="minitvm-ndarray"><div style="font-family:monospace;font-weight:bold">'
            f"{head}</div><pre>{body}</pre></div>"
        )

    def __deepcopy__(self, memo):
        return self.copyto(self.device)

    def __copy__(self):
        # As numpy.ndarray: a copy of the data, never a second handle to the same memory
        # (writes through the copy must not change the original).
        return self.copyto(self.device)


def _check_scalar_fits(value, dtype):
    """``value`` when an array of ``dtype`` can hold it exactly; ValueError otherwise (NaN or
    infinity or a fraction into an integer array, an integer outside the dtype's range)."""
    target = np.dtype(_numpy_dtype(dtype))
    if target.kind in "iub":
        if isinstance(value, (float, np.floating)):
            if not np.isfinite(value) or float(value) != int(value):
                raise error.ValueError(
                    f"a[:] = {value!r}: a {dtype} array cannot hold {value!r} (only whole numbers)"
                )
            value = int(value)
        value = int(value)
        if target.kind == "b":
            if value not in (0, 1):
                raise error.ValueError(f"a[:] = {value!r}: a bool array holds only 0/1/True/False")
        else:
            info = np.iinfo(target)
            if not info.min <= value <= info.max:
                raise error.ValueError(
                    f"a[:] = {value!r}: value {value} out of range for {dtype} "
                    f"([{info.min}, {info.max}])"
                )
    return value


def empty(shape, dtype="float32", device=None):
    """A new uninitialised array. ``shape`` is an int or a sequence of ints; ``dtype`` a
    dtype name (or NumPy dtype); ``device`` defaults to ``cpu(0)``. Negative dimensions and
    unknown dtypes raise ValueError."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    if not isinstance(shape, (list, tuple)):
        try:
            shape = tuple(shape)
        except TypeError as err:
            raise error.TypeError(
                f"nd.empty: shape must be an int or a sequence of ints, not {shape!r}"
            ) from err
    dims = [d.item() if isinstance(d, np.integer) else d for d in shape]
    if not isinstance(dtype, str):
        if dtype is None:
            raise error.TypeError("nd.empty: dtype must be a dtype name such as 'float32', not None")
        try:
            dtype = np.dtype(dtype).name
        except builtins.TypeError as err:
            raise error.TypeError(f"nd.empty: {dtype!r} is not a dtype") from err
    return _ffi_api.NDArrayEmpty(dims, dtype, device if device is not None else cpu(0))


def array(arr, device=None):
    """A new NDArray with a copy of ``arr`` (a NumPy array, a list or an NDArray).

    Non-contiguous and non-native-byte-order NumPy arrays are copied correctly; the dtype
    is NumPy's (so a list of Python floats gives float64).
    """
    if isinstance(arr, NDArray):
        return arr.copyto(device if device is not None else arr.device)
    src = _as_host_numpy(arr, "nd.array")
    out = empty(src.shape, src.dtype.name, device)
    core.ndarray_copy_from_numpy(out, src)
    return out


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def from_dlpack(obj):
    """An NDArray aliasing the memory of ``obj`` without copying.

    ``obj`` is anything with ``__dlpack__`` (NumPy arrays, PyTorch tensors, NDArrays) or a
    ``"dltensor"`` capsule. A capsule can be consumed once: it is renamed
    ``"used_dltensor"``, and passing it again raises ValueError. Strided tensors give strided
    NDArrays; a tensor whose first element is not aligned to its element size is refused.
    """
    if _is_capsule(obj):
        capsule = obj
    elif hasattr(obj, "__dlpack__"):
        try:
            capsule = obj.__dlpack__()
        except (BufferError, RuntimeError, TypeError, ValueError) as err:
            raise error.ValueError(
                f"from_dlpack: {type(obj).__name__} cannot export this tensor through DLPack: {err}"
            ) from err
    else:
        raise error.TypeError(
            f"from_dlpack expects an object with __dlpack__ or a DLPack capsule, "
            f"not {type(obj).__name__}"
        )
    return core.ndarray_from_dlpack(capsule)
