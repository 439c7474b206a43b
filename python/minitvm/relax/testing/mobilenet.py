"""MobileNet workloads (stage 4).

- v1: the stage-1 reference model's structure and names (``conv0``, ``bn0``,
  ``blocks.<i>.dw``/``dw_bn``/``pw``/``pw_bn``, ``fc``): a 3x3/2 conv, 13 depthwise-separable
  blocks, global average pool, fc; ``width`` scales every channel count.
- v2: torchvision's structure and names (``features.0.0.weight``, ``features.1.conv.0.0...``,
  ``classifier.1.weight``): inverted residual blocks with ReLU6 and linear bottlenecks.
"""
from ... import error as _error
from ..frontend import nn
from ._common import make_workload

__all__ = ["MobileNetV1", "MobileNetV2", "get_workload"]

_V1_BLOCKS = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
              (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]


class _SeparableBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        self.dw = nn.Conv2D(cin, cin, 3, stride=stride, padding=1, groups=cin, bias=False)
        self.dw_bn = nn.BatchNorm2d(cin)
        self.pw = nn.Conv2D(cin, cout, 1, bias=False)
        self.pw_bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        x = nn.op.relu(self.dw_bn(self.dw(x)))
        return nn.op.relu(self.pw_bn(self.pw(x)))


class MobileNetV1(nn.Module):
    """MobileNet-v1 (the stage-1 reference ``lownumpy.models.mobilenet_v1``)."""

    def __init__(self, num_classes=1000, width=1.0):
        def scaled(c):
            return max(1, int(round(c * width)))

        cin = scaled(32)
        self.conv0 = nn.Conv2D(3, cin, 3, stride=2, padding=1, bias=False)
        self.bn0 = nn.BatchNorm2d(cin)
        blocks = []
        for c, s in _V1_BLOCKS:
            blocks.append(_SeparableBlock(cin, scaled(c), s))
            cin = scaled(c)
        self.blocks = nn.ModuleList(blocks)
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = nn.op.relu(self.bn0(self.conv0(x)))
        for b in self.blocks:
            x = b(x)
        x = nn.op.flatten(nn.op.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(x)


def _make_divisible(v, divisor=8):
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def _conv_bn(cin, cout, k, stride=1, groups=1, act=True):
    layers = [nn.Conv2D(cin, cout, k, stride=stride, padding=(k - 1) // 2, groups=groups,
                        bias=False), nn.BatchNorm2d(cout)]
    if act:
        layers.append(nn.ReLU6())
    return nn.Sequential(*layers)


class _InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand_ratio):
        hidden = int(round(cin * expand_ratio))
        self.use_res_connect = stride == 1 and cin == cout
        layers = []
        if expand_ratio != 1:
            layers.append(_conv_bn(cin, hidden, 1))
        layers.append(_conv_bn(hidden, hidden, 3, stride, groups=hidden))
        layers.append(nn.Conv2D(hidden, cout, 1, bias=False))
        layers.append(nn.BatchNorm2d(cout))
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        y = self.conv(x)
        return x + y if self.use_res_connect else y


class MobileNetV2(nn.Module):
    """MobileNet-v2 (torchvision's ``mobilenet_v2`` structure, dropout omitted)."""

    _SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                 (6, 160, 3, 2), (6, 320, 1, 1)]

    def __init__(self, num_classes=1000, width=1.0):
        cin = _make_divisible(32 * width)
        last = _make_divisible(1280 * max(1.0, width))
        features = [_conv_bn(3, cin, 3, 2)]
        for t, c, n, s in self._SETTINGS:
            cout = _make_divisible(c * width)
            for i in range(n):
                features.append(_InvertedResidual(cin, cout, s if i == 0 else 1, t))
                cin = cout
        features.append(_conv_bn(cin, last, 1))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(last, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = nn.op.flatten(nn.op.adaptive_avg_pool2d(x, 1), 1)
        return self.classifier(x)


def get_workload(batch_size=1, num_classes=1000, version=1, image_shape=(3, 224, 224),
                 dtype="float32", seed=0, width=1.0):
    """``(mod, params)``: ``main(data (batch_size, *image_shape), *params)`` → (batch_size,
    num_classes) for MobileNet ``version`` 1 or 2; params by name, seeded."""
    if len(image_shape) != 3 or int(image_shape[0]) != 3:
        raise _error.ValueError(f"mobilenet: image_shape must be (3, H, W), not {image_shape}")
    if version in (1, "v1"):
        model = MobileNetV1(num_classes, width)
    elif version in (2, "v2"):
        model = MobileNetV2(num_classes, width)
    else:
        raise _error.ValueError(f"mobilenet: version must be 1 or 2, not {version!r}")
    return make_workload(model, (batch_size, *image_shape), dtype, seed)
