"""ResNet workloads (stage 4): ResNet-18/34 (basic blocks) and 50/101/152 (bottlenecks), with
torchvision's structure and parameter names (``conv1.weight``, ``bn1.running_mean``,
``layer1.0.conv1.weight``, ``layer2.0.downsample.0.weight``, ``fc.bias``), inference batch
norm, NCHW."""
from ... import error as _error
from ..frontend import nn
from ._common import make_workload

__all__ = ["ResNet", "BasicBlock", "Bottleneck", "get_workload"]

_LAYERS = {
    18: ("basic", [2, 2, 2, 2]),
    34: ("basic", [3, 4, 6, 3]),
    50: ("bottleneck", [3, 4, 6, 3]),
    101: ("bottleneck", [3, 4, 23, 3]),
    152: ("bottleneck", [3, 8, 36, 3]),
}


def _conv(cin, cout, k, stride=1, padding=0):
    return nn.Conv2D(cin, cout, k, stride=stride, padding=padding, bias=False)


class BasicBlock(nn.Module):
    """Two 3x3 conv-bn pairs and a shortcut (a 1x1 conv-bn when the shape changes)."""

    expansion = 1

    def __init__(self, cin, planes, stride=1):
        self.conv1 = _conv(cin, planes, 3, stride, 1)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = _conv(planes, planes, 3, 1, 1)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or cin != planes:
            self.downsample = nn.Sequential(_conv(cin, planes, 1, stride), nn.BatchNorm2d(planes))

    def forward(self, x):
        y = nn.op.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        shortcut = x if self.downsample is None else self.downsample(x)
        return nn.op.relu(y + shortcut)


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (carrying the stride, as torchvision), 1x1 expand (x4), shortcut."""

    expansion = 4

    def __init__(self, cin, planes, stride=1):
        out = planes * 4
        self.conv1 = _conv(cin, planes, 1)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = _conv(planes, planes, 3, stride, 1)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = _conv(planes, out, 1)
        self.bn3 = nn.BatchNorm2d(out)
        self.downsample = None
        if stride != 1 or cin != out:
            self.downsample = nn.Sequential(_conv(cin, out, 1, stride), nn.BatchNorm2d(out))

    def forward(self, x):
        y = nn.op.relu(self.bn1(self.conv1(x)))
        y = nn.op.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        shortcut = x if self.downsample is None else self.downsample(x)
        return nn.op.relu(y + shortcut)


class ResNet(nn.Module):
    """Stem (7x7/2 conv, bn, relu, 3x3/2 max pool), four stages, global average pool, fc."""

    def __init__(self, num_layers=18, num_classes=1000):
        if num_layers not in _LAYERS:
            raise _error.ValueError(f"resnet: num_layers must be one of {sorted(_LAYERS)}, not "
                                    f"{num_layers}")
        kind, counts = _LAYERS[num_layers]
        block = BasicBlock if kind == "basic" else Bottleneck
        self.conv1 = _conv(3, 64, 7, 2, 3)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        cin = 64
        for s, (planes, count) in enumerate(zip([64, 128, 256, 512], counts)):
            blocks = []
            for b in range(count):
                stride = 2 if (s > 0 and b == 0) else 1
                blocks.append(block(cin, planes, stride))
                cin = planes * block.expansion
            setattr(self, f"layer{s + 1}", nn.Sequential(*blocks))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(self.flatten(self.avgpool(x)))


def get_workload(batch_size=1, num_classes=1000, num_layers=18, image_shape=(3, 224, 224),
                 dtype="float32", seed=0):
    """``(mod, params)``: ``main(data (batch_size, *image_shape), *params)`` → (batch_size,
    num_classes) for ResNet-``num_layers`` (18, 34, 50, 101, 152); params by torchvision name,
    seeded."""
    if len(image_shape) != 3 or int(image_shape[0]) != 3:
        raise _error.ValueError(f"resnet: image_shape must be (3, H, W), not {image_shape}")
    model = ResNet(num_layers, num_classes)
    return make_workload(model, (batch_size, *image_shape), dtype, seed)
