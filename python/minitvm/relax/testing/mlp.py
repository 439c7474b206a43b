"""A multi-layer perceptron workload (stage 4): flatten, then ``Linear`` + ``ReLU`` layers and a
final ``Linear`` (the course MLP with the defaults: 784 → 128 → 10)."""
from ..frontend import nn
from ._common import make_workload

__all__ = ["MLP", "get_workload"]


class MLP(nn.Module):
    """``Flatten``, then ``fc1``...``fcN`` with ReLU between them."""

    def __init__(self, in_features=784, hidden_units=(128,), num_classes=10, dtype=None):
        sizes = [in_features] + list(hidden_units) + [num_classes]
        self.flatten = nn.Flatten()
        for i in range(len(sizes) - 1):
            setattr(self, f"fc{i + 1}", nn.Linear(sizes[i], sizes[i + 1], dtype=dtype))
        self.num_layers = len(sizes) - 1

    def forward(self, x):
        x = self.flatten(x)
        for i in range(self.num_layers):
            x = getattr(self, f"fc{i + 1}")(x)
            if i + 1 < self.num_layers:
                x = nn.op.relu(x)
        return x


def get_workload(batch_size=1, num_classes=10, image_shape=(1, 28, 28), hidden_units=(128,),
                 dtype="float32", seed=0):
    """``(mod, params)``: ``main(data (batch_size, *image_shape), fc1.weight, fc1.bias, ...)``
    → (batch_size, num_classes); params by name (``fc1.weight`` (128, 784), ...), seeded."""
    in_features = 1
    for d in image_shape:
        in_features *= int(d)
    model = MLP(in_features, hidden_units, num_classes)
    return make_workload(model, (batch_size, *image_shape), dtype, seed)
