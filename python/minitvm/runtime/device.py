"""``Device``: where memory lives, a device type (cpu = 1, cuda = 2, as in DLPack) and an id.

``minitvm.cpu()``, ``minitvm.cuda(0)`` and ``minitvm.device("cuda", 0)`` make one;
``dev.exist`` asks C++ whether it is there. Devices cross the FFI by value.
"""
import operator

from .. import error
from .._ffi import core
from . import _ffi_api

__all__ = ["Device", "cpu", "cuda", "device"]

_TYPE_NAMES = {}
# The device types of DLPack's DLDeviceType (dlpack.h), the only values a Device may carry.
_DLPACK_DEVICE_TYPES = frozenset({1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13})


def _type_name(device_type):
    name = _TYPE_NAMES.get(device_type)
    if name is None:
        name = _TYPE_NAMES[device_type] = _ffi_api.DeviceTypeName(device_type)
    return name


def _checked_int(what, value, lowest):
    """``value`` as an int in [lowest, 2**31) (DLPack keeps both fields in an int32)."""
    try:
        number = operator.index(value)
    except TypeError as err:
        raise error.TypeError(f"Device: {what} must be an int, not {value!r}") from err
    if not lowest <= number < 2**31:
        raise error.ValueError(f"Device: {what} must be in [{lowest}, 2**31), not {number}")
    return number


class Device:
    """A device: ``device_type`` (1 = cpu, 2 = cuda) and ``device_id``."""

    __slots__ = ("device_type", "device_id")

    kDLCPU = 1
    kDLCUDA = 2

    def __init__(self, device_type, device_id=0):
        self.device_type = _checked_int("device_type", device_type, 1)
        if self.device_type not in _DLPACK_DEVICE_TYPES:
            raise error.ValueError(
                f"Device: device_type {self.device_type} is not a DLPack device type "
                f"(one of {sorted(_DLPACK_DEVICE_TYPES)}; 1 = cpu, 2 = cuda)")
        self.device_id = _checked_int("device_id", device_id, 0)

    @property
    def exist(self):
        """Whether the device is present (a cuda device needs a GPU and a stage-5 build)."""
        return bool(_ffi_api.DeviceExists(self))

    def sync(self):
        """Wait for all work queued on the device."""
        _ffi_api.DeviceSynchronize(self)

    def __eq__(self, other):
        return (
            isinstance(other, Device)
            and self.device_type == other.device_type
            and self.device_id == other.device_id
        )

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self.device_type, self.device_id))

    def __repr__(self):
        return f"{_type_name(self.device_type)}({self.device_id})"

    def __dlpack_device__(self):
        return (self.device_type, self.device_id)


def cpu(dev_id=0):
    """The cpu device (there is one; the id is kept for symmetry)."""
    return Device(Device.kDLCPU, dev_id)


def cuda(dev_id=0):
    """CUDA GPU ``dev_id``."""
    return Device(Device.kDLCUDA, dev_id)


def device(dev_type, dev_id=0):
    """A device by name (``"cpu"``, ``"llvm"``, ``"cuda"``, ``"gpu"``) or type number."""
    if isinstance(dev_type, Device):
        return dev_type
    if isinstance(dev_type, str):
        dev_type = _ffi_api.DeviceTypeFromName(dev_type)
    return Device(dev_type, dev_id)


core.set_hooks(device_class=Device)
