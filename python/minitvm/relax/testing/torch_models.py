"""The ``relax.testing`` networks written in PyTorch (stage 4), for checking the workloads and
for ``from_fx``: same structure, same ``state_dict`` names, no torchvision needed.

``load(torch_module, params)`` copies a workload's ``params`` (name → NDArray) into the torch
module; every function imports PyTorch when called.
"""
import numpy as _np

__all__ = ["mlp", "resnet", "mobilenet_v1", "mobilenet_v2", "lstm", "load"]


def _torch():
    import torch  # pylint: disable=import-outside-toplevel

    return torch


def load(module, params):
    """Copy ``params`` (name → NDArray/array) into ``module`` (strict: every parameter and
    buffer except ``num_batches_tracked``); returns the module in eval mode."""
    torch = _torch()
    state = module.state_dict()
    wanted = {k for k in state if not k.endswith("num_batches_tracked")}
    given = set(params)
    if wanted != given:
        raise KeyError(f"torch_models.load: missing {sorted(wanted - given)}, unexpected "
                       f"{sorted(given - wanted)}")
    new_state = {}
    for k, v in state.items():
        if k in params:
            arr = params[k].numpy() if hasattr(params[k], "numpy") else _np.asarray(params[k])
            new_state[k] = torch.from_numpy(_np.ascontiguousarray(arr))
        else:
            new_state[k] = v
    module.load_state_dict(new_state)
    return module.eval()


def mlp(in_features=784, hidden_units=(128,), num_classes=10):
    """``Flatten`` then ``fc1``...``fcN`` with ReLU between (relax.testing.mlp)."""
    torch = _torch()

    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            sizes = [in_features] + list(hidden_units) + [num_classes]
            self.flatten = torch.nn.Flatten()
            self.n = len(sizes) - 1
            for i in range(self.n):
                setattr(self, f"fc{i + 1}", torch.nn.Linear(sizes[i], sizes[i + 1]))

        def forward(self, x):
            x = self.flatten(x)
            for i in range(self.n):
                x = getattr(self, f"fc{i + 1}")(x)
                if i + 1 < self.n:
                    x = torch.nn.functional.relu(x)
            return x

    return MLP()


def resnet(num_layers=18, num_classes=1000):
    """torchvision's ResNet (basic blocks for 18/34, bottlenecks from 50)."""
    torch = _torch()
    tnn = torch.nn
    layers = {18: ("basic", [2, 2, 2, 2]), 34: ("basic", [3, 4, 6, 3]),
              50: ("bottleneck", [3, 4, 6, 3]), 101: ("bottleneck", [3, 4, 23, 3]),
              152: ("bottleneck", [3, 8, 36, 3])}

    def conv(cin, cout, k, stride=1, padding=0):
        return tnn.Conv2d(cin, cout, k, stride=stride, padding=padding, bias=False)

    class BasicBlock(tnn.Module):
        expansion = 1

        def __init__(self, cin, planes, stride):
            super().__init__()
            self.conv1 = conv(cin, planes, 3, stride, 1)
            self.bn1 = tnn.BatchNorm2d(planes)
            self.relu = tnn.ReLU(inplace=True)
            self.conv2 = conv(planes, planes, 3, 1, 1)
            self.bn2 = tnn.BatchNorm2d(planes)
            self.downsample = None
            if stride != 1 or cin != planes:
                self.downsample = tnn.Sequential(conv(cin, planes, 1, stride),
                                                 tnn.BatchNorm2d(planes))

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            if self.downsample is not None:
                identity = self.downsample(x)
            out += identity
            return self.relu(out)

    class Bottleneck(tnn.Module):
        expansion = 4

        def __init__(self, cin, planes, stride):
            super().__init__()
            self.conv1 = conv(cin, planes, 1)
            self.bn1 = tnn.BatchNorm2d(planes)
            self.conv2 = conv(planes, planes, 3, stride, 1)
            self.bn2 = tnn.BatchNorm2d(planes)
            self.conv3 = conv(planes, planes * 4, 1)
            self.bn3 = tnn.BatchNorm2d(planes * 4)
            self.relu = tnn.ReLU(inplace=True)
            self.downsample = None
            if stride != 1 or cin != planes * 4:
                self.downsample = tnn.Sequential(conv(cin, planes * 4, 1, stride),
                                                 tnn.BatchNorm2d(planes * 4))

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.relu(self.bn2(self.conv2(out)))
            out = self.bn3(self.conv3(out))
            if self.downsample is not None:
                identity = self.downsample(x)
            out += identity
            return self.relu(out)

    class ResNet(tnn.Module):
        def __init__(self):
            super().__init__()
            kind, counts = layers[num_layers]
            block = BasicBlock if kind == "basic" else Bottleneck
            self.conv1 = conv(3, 64, 7, 2, 3)
            self.bn1 = tnn.BatchNorm2d(64)
            self.relu = tnn.ReLU(inplace=True)
            self.maxpool = tnn.MaxPool2d(3, 2, 1)
            cin = 64
            for s, (planes, count) in enumerate(zip([64, 128, 256, 512], counts)):
                blocks = []
                for b in range(count):
                    blocks.append(block(cin, planes, 2 if (s > 0 and b == 0) else 1))
                    cin = planes * block.expansion
                setattr(self, f"layer{s + 1}", tnn.Sequential(*blocks))
            self.avgpool = tnn.AdaptiveAvgPool2d((1, 1))
            self.fc = tnn.Linear(cin, num_classes)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            x = torch.flatten(self.avgpool(x), 1)
            return self.fc(x)

    return ResNet()


def mobilenet_v1(num_classes=1000, width=1.0):
    """MobileNet-v1 with the stage-1 reference's names (relax.testing.mobilenet version 1)."""
    torch = _torch()
    tnn = torch.nn
    blocks_cfg = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1), (512, 1),
                  (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]

    def scaled(c):
        return max(1, int(round(c * width)))

    class Block(tnn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.dw = tnn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False)
            self.dw_bn = tnn.BatchNorm2d(cin)
            self.pw = tnn.Conv2d(cin, cout, 1, bias=False)
            self.pw_bn = tnn.BatchNorm2d(cout)

        def forward(self, x):
            x = torch.relu(self.dw_bn(self.dw(x)))
            return torch.relu(self.pw_bn(self.pw(x)))

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            cin = scaled(32)
            self.conv0 = tnn.Conv2d(3, cin, 3, 2, 1, bias=False)
            self.bn0 = tnn.BatchNorm2d(cin)
            blocks = []
            for c, s in blocks_cfg:
                blocks.append(Block(cin, scaled(c), s))
                cin = scaled(c)
            self.blocks = tnn.ModuleList(blocks)
            self.fc = tnn.Linear(cin, num_classes)

        def forward(self, x):
            x = torch.relu(self.bn0(self.conv0(x)))
            for b in self.blocks:
                x = b(x)
            x = torch.flatten(tnn.functional.adaptive_avg_pool2d(x, 1), 1)
            return self.fc(x)

    return Net()


def mobilenet_v2(num_classes=1000, width=1.0):
    """torchvision's MobileNet-v2 (relax.testing.mobilenet version 2)."""
    torch = _torch()
    tnn = torch.nn

    def make_div(v, d=8):
        new_v = max(d, int(v + d / 2) // d * d)
        return new_v + d if new_v < 0.9 * v else new_v

    def conv_bn(cin, cout, k, stride=1, groups=1):
        return tnn.Sequential(tnn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups,
                                         bias=False), tnn.BatchNorm2d(cout), tnn.ReLU6())

    class InvertedResidual(tnn.Module):
        def __init__(self, cin, cout, stride, t):
            super().__init__()
            hidden = int(round(cin * t))
            self.use_res_connect = stride == 1 and cin == cout
            layers = []
            if t != 1:
                layers.append(conv_bn(cin, hidden, 1))
            layers += [conv_bn(hidden, hidden, 3, stride, hidden),
                       tnn.Conv2d(hidden, cout, 1, bias=False), tnn.BatchNorm2d(cout)]
            self.conv = tnn.Sequential(*layers)

        def forward(self, x):
            return x + self.conv(x) if self.use_res_connect else self.conv(x)

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            cin = make_div(32 * width)
            last = make_div(1280 * max(1.0, width))
            feats = [conv_bn(3, cin, 3, 2)]
            for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                               (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
                cout = make_div(c * width)
                for i in range(n):
                    feats.append(InvertedResidual(cin, cout, s if i == 0 else 1, t))
                    cin = cout
            feats.append(conv_bn(cin, last, 1))
            self.features = tnn.Sequential(*feats)
            self.classifier = tnn.Sequential(tnn.Dropout(0.2), tnn.Linear(last, num_classes))

        def forward(self, x):
            x = self.features(x)
            x = torch.flatten(tnn.functional.adaptive_avg_pool2d(x, 1), 1)
            return self.classifier(x)

    return Net()


def lstm(input_size, hidden_size, num_layers=2):
    """``torch.nn.LSTM`` under the attribute ``lstm``, returning ``(output, h_n, c_n)``."""
    torch = _torch()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(input_size, hidden_size, num_layers)

        def forward(self, x):
            out, (h, c) = self.lstm(x)
            return out, h, c

    return Net()
