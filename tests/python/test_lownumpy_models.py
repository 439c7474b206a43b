"""lownumpy reference models (stage 1): the MLP against NumPy, the digits check (an MLP
trained with NumPy classifies exactly as well through lownumpy), and ResNet-18,
MobileNet-v1 and the LSTM against PyTorch modules built here from the same weights."""
import numpy as np
import pytest

import minitvm
from minitvm import lownumpy as lnp
from minitvm.lownumpy import models

from test_lownumpy_util import check


def _numpy_params(params):
    return {k: v.numpy() for k, v in params.items()}


def test_mlp_against_numpy():
    params = models.mlp_init_params(784, 128, 10, seed=1)
    p = _numpy_params(params)
    assert p["w0"].shape == (128, 784) and p["b1"].shape == (10,)
    x = np.random.default_rng(0).uniform(0, 1, (4, 784)).astype("float32")
    ref = np.maximum(x @ p["w0"].T + p["b0"], 0) @ p["w1"].T + p["b1"]
    check(models.mlp(x, params), ref, "accumulate")
    check(models.mlp(x, p), ref, "accumulate")  # NumPy parameters work too
    with pytest.raises(minitvm.error.ValueError, match='mlp: missing parameter "b1"'):
        models.mlp(x, {k: v for k, v in p.items() if k != "b1"})


def test_params_are_deterministic_and_load_from_npz(tmp_path):
    a = _numpy_params(models.mlp_init_params(8, 4, 2, seed=3))
    b = _numpy_params(models.mlp_init_params(8, 4, 2, seed=3))
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    np.savez(tmp_path / "mlp.npz", **a)
    loaded = models.load_params(tmp_path / "mlp.npz")
    assert sorted(loaded.keys()) == sorted(a)
    x = np.ones((1, 8), "float32")
    np.testing.assert_array_equal(models.mlp(x, loaded).numpy(), models.mlp(x, a).numpy())


def test_digits_mlp_accuracy_matches_numpy():
    """Train the course MLP shape (64 → 128 → 10) on scikit-learn's digits with NumPy, then
    classify the held-out digits with NumPy and with lownumpy: same accuracy, exactly."""
    datasets = pytest.importorskip("sklearn.datasets")
    digits = datasets.load_digits()
    x = (digits.data / 16.0).astype("float32")
    y = digits.target
    rng = np.random.default_rng(0)
    order = rng.permutation(len(x))  # a seeded shuffle, then 1500 to train and 297 to test
    x_train, y_train = x[order[:1500]], y[order[:1500]]
    x_test, y_test = x[order[1500:]], y[order[1500:]]
    p = _numpy_params(models.mlp_init_params(64, 128, 10, seed=0))
    lr = 0.2
    for _ in range(10):  # plain SGD, mini-batches of 32, softmax cross-entropy
        order = rng.permutation(len(x_train))
        for start in range(0, len(order), 32):
            idx = order[start:start + 32]
            xb, yb = x_train[idx], y_train[idx]
            h = np.maximum(xb @ p["w0"].T + p["b0"], 0)
            logits = h @ p["w1"].T + p["b1"]
            prob = np.exp(logits - logits.max(axis=1, keepdims=True))
            prob /= prob.sum(axis=1, keepdims=True)
            d_logits = prob
            d_logits[np.arange(len(yb)), yb] -= 1
            d_logits /= len(yb)
            d_h = (d_logits @ p["w1"]) * (h > 0)
            p["w1"] -= lr * d_logits.T @ h
            p["b1"] -= lr * d_logits.sum(axis=0)
            p["w0"] -= lr * d_h.T @ xb
            p["b0"] -= lr * d_h.sum(axis=0)
    numpy_logits = np.maximum(x_test @ p["w0"].T + p["b0"], 0) @ p["w1"].T + p["b1"]
    numpy_acc = float((numpy_logits.argmax(axis=1) == y_test).mean())
    lnp_pred = lnp.argmax(models.mlp(x_test, p), axis=1).numpy()
    lnp_acc = float((lnp_pred == y_test).mean())
    assert numpy_acc > 0.9
    assert lnp_acc == numpy_acc


# ---- PyTorch models built from the same weights ------------------------------------------------

def _torch_resnet18(torch, num_classes):
    nn = torch.nn

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.downsample = None
            if stride != 1 or cin != cout:
                self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                                nn.BatchNorm2d(cout))

        def forward(self, x):
            out = torch.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            shortcut = x if self.downsample is None else self.downsample(x)
            return torch.relu(out + shortcut)

    class ResNet18(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            cin = 64
            for i, (cout, stride) in enumerate([(64, 1), (128, 2), (256, 2), (512, 2)]):
                setattr(self, f"layer{i + 1}",
                        nn.Sequential(BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)))
                cin = cout
            self.fc = nn.Linear(512, num_classes)

        def forward(self, x):
            x = self.maxpool(torch.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            x = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
            return self.fc(x)

    return ResNet18()


def _torch_mobilenet_v1(torch, params):
    nn = torch.nn

    def conv_bn(cin, cout, stride, groups):
        k = 3 if groups > 1 or cin == 3 else 1
        return nn.ModuleDict({"conv": nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups,
                                                bias=False), "bn": nn.BatchNorm2d(cout)})

    class MobileNetV1(nn.Module):
        def __init__(self):
            super().__init__()
            strides = [1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1]
            self.stem = conv_bn(3, params["conv0.weight"].shape[0], 2, 1)
            self.blocks = nn.ModuleList()
            for i, s in enumerate(strides):
                cin = params[f"blocks.{i}.dw.weight"].shape[0]
                cout = params[f"blocks.{i}.pw.weight"].shape[0]
                self.blocks.append(nn.ModuleList([conv_bn(cin, cin, s, cin),
                                                  conv_bn(cin, cout, 1, 1)]))
            self.fc = nn.Linear(*params["fc.weight"].shape[::-1])

        def forward(self, x):
            x = torch.relu(self.stem["bn"](self.stem["conv"](x)))
            for dw, pw in self.blocks:
                x = torch.relu(dw["bn"](dw["conv"](x)))
                x = torch.relu(pw["bn"](pw["conv"](x)))
            return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    model = MobileNetV1()
    # Our names → this module's names.
    state = {"fc.weight": params["fc.weight"], "fc.bias": params["fc.bias"]}
    for ours, theirs in [("conv0", "stem.conv"), ("bn0", "stem.bn")]:
        for k, v in params.items():
            if k.startswith(ours + "."):
                state[theirs + k[len(ours):]] = v
    for k, v in params.items():
        if k.startswith("blocks."):
            _, i, part, field = k.split(".", 3)
            j, kind = {"dw": (0, "conv"), "dw_bn": (0, "bn"), "pw": (1, "conv"),
                       "pw_bn": (1, "bn")}[part]
            state[f"blocks.{i}.{j}.{kind}.{field}"] = v
    return model, state


def _load(torch, model, state):
    missing, unexpected = model.load_state_dict(
        {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in state.items()}, strict=False)
    assert not unexpected and all(k.endswith("num_batches_tracked") for k in missing), missing
    return model.eval()


def _assert_close_logits(got, want):
    scale = np.abs(want).max()
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3 * scale)


def test_resnet18_against_torch(torch):
    params = models.resnet18_init_params(num_classes=10, seed=0)
    p = _numpy_params(params)
    assert p["layer3.0.downsample.0.weight"].shape == (256, 128, 1, 1)
    model = _load(torch, _torch_resnet18(torch, 10), p)
    x = lnp.random_uniform((2, 3, 64, 64), -1, 1, seed=1).numpy()
    with torch.no_grad():
        want = model(torch.from_numpy(x)).numpy()
    got = models.resnet18(x, params).numpy()
    assert got.shape == (2, 10)
    _assert_close_logits(got, want)
    # Batch norm folded into the convs: same function.
    folded = models.resnet18_fold_bn(params)
    assert "bn1.weight" not in folded and "layer1.0.conv2.bias" in folded
    _assert_close_logits(models.resnet18(x, folded).numpy(), want)


def test_mobilenet_v1_against_torch(torch):
    params = models.mobilenet_v1_init_params(num_classes=7, width=0.25, seed=2)
    p = _numpy_params(params)
    model, state = _torch_mobilenet_v1(torch, p)
    model = _load(torch, model, state)
    x = lnp.random_uniform((1, 3, 64, 64), -1, 1, seed=3).numpy()
    with torch.no_grad():
        want = model(torch.from_numpy(x)).numpy()
    _assert_close_logits(models.mobilenet_v1(x, params).numpy(), want)
    _assert_close_logits(models.mobilenet_v1(x, models.mobilenet_v1_fold_bn(params)).numpy(), want)


def test_lstm_against_torch(torch):
    params = models.lstm_init_params(input_size=6, hidden_size=8, num_layers=2, seed=4)
    lstm = _load(torch, torch.nn.LSTM(6, 8, num_layers=2), _numpy_params(params))
    x = lnp.random_uniform((5, 3, 6), -1, 1, seed=5).numpy()
    with torch.no_grad():
        want, (h_n, c_n) = lstm(torch.from_numpy(x))
    out, got_h, got_c = models.lstm(x, params)
    check(out, want.numpy(), "accumulate")
    check(got_h, h_n.numpy(), "accumulate")
    check(got_c, c_n.numpy(), "accumulate")


def test_model_errors():
    params = models.resnet18_init_params(num_classes=3)
    with pytest.raises(ValueError, match=r"resnet18: input \(1, 1, 32, 32\) must have 3 channels"):
        models.resnet18(np.zeros((1, 1, 32, 32), "float32"), params)
    with pytest.raises(ValueError, match="model parameters must be float32 or float64"):
        models.mlp_init_params(dtype="int32")
