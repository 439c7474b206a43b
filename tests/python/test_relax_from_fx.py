"""Stage 4: ``relax.frontend.torch.from_fx`` — torch models traced with
``torch.fx.symbolic_trace``, imported, run with the reference interpreter and compared with
PyTorch (rtol 1e-4)."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax
from minitvm.relax.frontend.torch import from_fx
from minitvm.relax.testing import torch_models

RTOL = 1e-4


def _import_and_compare(torch, model, shapes, atol=1e-5, seed=0, **kwargs):
    from torch import fx

    model = model.eval()
    gm = fx.symbolic_trace(model)
    mod = from_fx(gm, [(s, "float32") for s in shapes], **kwargs)
    assert relax.analysis.well_formed(mod)
    rng = np.random.default_rng(seed)
    xs = [rng.standard_normal(s).astype("float32") for s in shapes]
    extra = []
    if kwargs.get("keep_params_as_input"):
        mod, detached = relax.frontend.detach_params(mod)
        extra = detached["main"]
        assert "params" not in mod["main"].attrs
    out = relax.interpret(mod, "main", *xs, *extra)
    with torch.no_grad():
        ref = model(*[torch.from_numpy(x) for x in xs])
    if isinstance(ref, tuple):
        for o, r in zip(out, ref):
            np.testing.assert_allclose(o.numpy(), r.numpy(), rtol=RTOL, atol=atol)
    else:
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=RTOL, atol=atol)
    return mod


def _randomize_bn(torch, model, seed=0):
    g = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.weight.data = torch.rand(m.num_features, generator=g) + 0.5
            m.bias.data = torch.rand(m.num_features, generator=g) * 0.4 - 0.2
            m.running_mean.data = torch.rand(m.num_features, generator=g) * 0.4 - 0.2
            m.running_var.data = torch.rand(m.num_features, generator=g) + 0.5
    return model


def test_mlp(torch):
    torch.manual_seed(0)

    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(784, 128)
            self.fc2 = torch.nn.Linear(128, 10)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    mod = _import_and_compare(torch, MLP(), [(1, 784)])
    func = mod["main"]
    assert [p.name_hint for p in func.params] == ["inp_0"]
    text = mod.script()
    assert "R.permute_dims(" in text and "R.matmul(inp_0, lv" in text and "R.nn.relu(" in text
    assert "gv: R.Tensor((1, 10), dtype=\"float32\")" in text
    # parameters are constants: nothing but the input is a parameter
    assert text.count("metadata[\"relax.expr.Constant\"]") == 4


def test_resnet18(torch):
    torch.manual_seed(0)
    model = _randomize_bn(torch, torch_models.resnet(18, 10))
    mod = _import_and_compare(torch, model, [(1, 3, 32, 32)], atol=1e-4)
    text = mod.script()
    assert "R.nn.conv2d(" in text and "R.nn.batch_norm(" in text
    assert "R.nn.max_pool2d(" in text and "R.nn.adaptive_avg_pool2d(" in text


def test_resnet18_matches_the_relax_testing_workload(torch):
    """The same network from relax.testing and from PyTorch gives the same numbers."""
    from torch import fx

    wmod, params = relax.testing.resnet.get_workload(num_layers=18, num_classes=10,
                                                     image_shape=(3, 32, 32))
    model = torch_models.load(torch_models.resnet(18, 10), params)
    mod = from_fx(fx.symbolic_trace(model), [((1, 3, 32, 32), "float32")])
    x = np.random.default_rng(2).standard_normal((1, 3, 32, 32)).astype("float32")
    a = relax.interpret(mod, "main", x).numpy()
    b = relax.interpret(wmod, "main", x, *params.values()).numpy()
    np.testing.assert_allclose(a, b, rtol=RTOL, atol=1e-5)


def test_mobilenet_v2_features(torch):
    torch.manual_seed(0)
    model = _randomize_bn(torch, torch_models.mobilenet_v2(10, width=0.5))
    _import_and_compare(torch, model, [(2, 3, 32, 32)], atol=1e-4)


def test_functional_ops_and_methods(torch):
    F = torch.nn.functional

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1, bias=True)
            self.pool = torch.nn.AvgPool2d(2)
            self.drop = torch.nn.Dropout(0.3)

        def forward(self, x, y):
            h = F.relu(self.conv(x))
            h = F.max_pool2d(h, 2, 1, 1)
            h = self.pool(h)
            h = self.drop(h)
            h = h.view(h.size(0), -1)
            h = h + 1.0
            h = h * y
            h -= 0.5
            z = torch.matmul(h, h.t()).reshape(-1)
            s = torch.sigmoid(h).sum(1, keepdim=True) + torch.tanh(h).mean(dim=1).unsqueeze(1)
            c = torch.cat([h.transpose(0, 1).permute(1, 0), s], dim=1)
            return torch.flatten(c), F.softmax(z, dim=0)

    torch.manual_seed(0)
    _import_and_compare(torch, Net(), [(2, 3, 8, 8), (2, 16)])


def test_keep_params_as_input(torch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    from torch import fx

    mod = from_fx(fx.symbolic_trace(model.eval()), [((5, 4), "float32")],
                  keep_params_as_input=True)
    assert len(mod["main"].attrs["params"]) == 4
    _import_and_compare(torch, model, [(5, 4)], keep_params_as_input=True)
    func = mod["main"]
    assert [p.name_hint for p in func.params] == ["inp_0", "0.bias", "0.weight", "2.bias",
                                                  "2.weight"]
    assert int(func.attrs["num_input"]) == 1


def test_layer_norm_embedding_gelu(torch):
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = torch.nn.LayerNorm(6)
            self.act = torch.nn.GELU()
            self.lin = torch.nn.Linear(6, 6)

        def forward(self, x):
            return self.act(self.lin(self.ln(x)))

    torch.manual_seed(0)
    _import_and_compare(torch, Net(), [(2, 3, 6)])


def test_unsupported_operator_names_its_target(torch):
    from torch import fx

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.act = torch.nn.Hardswish()

        def forward(self, x):
            return self.act(torch.sin(x))

    with pytest.raises(ValueError) as info:
        from_fx(fx.symbolic_trace(Net()), [((2, 2), "float32")])
    msg = str(info.value)
    assert "unsupported operator" in msg
    assert "call_function \"sin\"" in msg
    assert "Hardswish" in msg and "module \"act\"" in msg


def test_input_info_count_mismatch(torch):
    from torch import fx

    gm = fx.symbolic_trace(torch.nn.ReLU())
    with pytest.raises(ValueError, match="the graph has 1 inputs"):
        from_fx(gm, [((2,), "float32"), ((2,), "float32")])


def test_imported_module_prints_and_parses_back(torch):
    from torch import fx

    gm = fx.symbolic_trace(torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Flatten()))
    mod = from_fx(gm, [((2, 3, 4), "float32")])
    again = tvm.script.from_source(mod.script())
    assert tvm.ir.structural_equal(mod["main"], again["main"])


@pytest.mark.parametrize("num_layers,batch_first", [(1, False), (2, True)])
def test_lstm(torch, num_layers, batch_first):
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = torch.nn.LSTM(5, 7, num_layers=num_layers, batch_first=batch_first)
            self.reg = torch.nn.Linear(7, 2)

        def forward(self, x):
            # (indexing, not unpacking: unpacking an FX proxy fails on Python 3.11 with
            # torch 1.13)
            res = self.rnn(x)
            return self.reg(res[0]), res[1][0], res[1][1]

    torch.manual_seed(0)
    _import_and_compare(torch, Net(), [(3, 4, 5)])


def test_imported_resnet18_after_legalize_ops(torch, require_global):
    require_global("relax.transform.LegalizeOps")
    from torch import fx

    torch.manual_seed(0)
    model = _randomize_bn(torch, torch_models.resnet(18, 10)).eval()
    mod = from_fx(fx.symbolic_trace(model), [((1, 3, 32, 32), "float32")])
    legal = relax.transform.LegalizeOps()(mod)
    x = np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype("float32")
    out = relax.interpret(legal, "main", x).numpy()
    with torch.no_grad():
        ref = model(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(out, ref, rtol=RTOL, atol=1e-4)
