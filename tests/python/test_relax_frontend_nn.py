"""Stage 4: ``relax.frontend.nn`` — modules, ``nn.op``, ``nn.spec`` and ``export_tvm``.

Every exported module is run with the reference interpreter and compared with NumPy (or with
PyTorch when it is installed, for the layers whose semantics are PyTorch's).
"""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax
from minitvm.relax.frontend import nn

RNG = np.random.default_rng(0)


def _rand(*shape, dtype="float32"):
    return RNG.standard_normal(shape).astype(dtype)


class MLPModel(nn.Module):
    """The quick start's model."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = self.fc1(x)
        x = self.relu1(x)
        x = self.fc2(x)
        return x


def _export_mlp():
    return MLPModel().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 784), "float32")}})


def test_quick_start_export_names_and_order():
    mod, param_spec = _export_mlp()
    assert [name for name, _ in param_spec] == ["fc1.weight", "fc1.bias", "fc2.weight",
                                                "fc2.bias"]
    assert [tuple(p.shape) for _, p in param_spec] == [(256, 784), (256,), (10, 256), (10,)]
    assert all(p.dtype == "float32" for _, p in param_spec)
    func = mod["forward"]
    assert [p.name_hint for p in func.params] == ["x", "fc1.weight", "fc1.bias", "fc2.weight",
                                                  "fc2.bias"]
    assert int(func.attrs["num_input"]) == 1
    assert relax.analysis.well_formed(mod)


def test_quick_start_printed_form():
    mod, _ = _export_mlp()
    text = mod.script()
    expected_lines = [
        'def forward(x: R.Tensor((1, 784), dtype="float32"), fc1_weight: R.Tensor((256, 784), '
        'dtype="float32"), fc1_bias: R.Tensor((256,), dtype="float32"), fc2_weight: '
        'R.Tensor((10, 256), dtype="float32"), fc2_bias: R.Tensor((10,), dtype="float32")) -> '
        'R.Tensor((1, 10), dtype="float32"):',
        'R.func_attr({"num_input": 1})',
        "with R.dataflow():",
        'permute_dims: R.Tensor((784, 256), dtype="float32") = R.permute_dims(fc1_weight, '
        "axes=None)",
        'matmul: R.Tensor((1, 256), dtype="float32") = R.matmul(x, permute_dims',
        'add: R.Tensor((1, 256), dtype="float32") = R.add(matmul, fc1_bias)',
        'relu: R.Tensor((1, 256), dtype="float32") = R.nn.relu(add)',
        'permute_dims1: R.Tensor((256, 10), dtype="float32") = R.permute_dims(fc2_weight, '
        "axes=None)",
        'matmul1: R.Tensor((1, 10), dtype="float32") = R.matmul(relu, permute_dims1',
        'add1: R.Tensor((1, 10), dtype="float32") = R.add(matmul1, fc2_bias)',
        'gv: R.Tensor((1, 10), dtype="float32") = add1',
        "R.output(gv)",
        "return gv",
    ]
    lines = [ln.strip() for ln in text.splitlines()]
    pos = 0
    for want in expected_lines:
        while pos < len(lines) and not lines[pos].startswith(want):
            pos += 1
        assert pos < len(lines), f"missing (in order): {want}\n{text}"


def test_quick_start_printed_module_parses_back():
    mod, _ = _export_mlp()
    again = tvm.script.from_source(mod.script())
    assert tvm.ir.structural_equal(mod["forward"], again["forward"])


def test_quick_start_runs_in_interpreter():
    mod, param_spec = _export_mlp()
    data = RNG.random((1, 784)).astype("float32")
    params = [RNG.random(tuple(p.shape)).astype("float32") for _, p in param_spec]
    out = relax.interpret(mod, "forward", data, *params).numpy()
    w1, b1, w2, b2 = params
    ref = np.maximum(data @ w1.T + b1, 0) @ w2.T + b2
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_symbolic_batch_dimension():
    mod, _ = MLPModel().export_tvm(spec={"forward": {"x": nn.spec.Tensor(("n", 784),
                                                                         "float32")}})
    text = mod.script()
    assert 'x: R.Tensor(("n", 784), dtype="float32")' in text
    assert 'R.Tensor(("n", 10), dtype="float32")' in text
    _, param_spec = _export_mlp()
    params = [_rand(*p.shape) for _, p in param_spec]
    for n in (1, 3):
        x = _rand(n, 784)
        out = relax.interpret(mod, "forward", x, *params).numpy()
        ref = np.maximum(x @ params[0].T + params[1], 0) @ params[2].T + params[3]
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_several_methods_and_int_spec():
    class M(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(4, 3, bias=False)

        def forward(self, x):
            return self.fc(x)

        def both(self, x, y):
            return self.fc(x), nn.op.relu(y)

    mod, params = M().export_tvm(spec={
        "forward": {"x": nn.spec.Tensor((2, 4), "float32")},
        "both": {"x": nn.spec.Tensor((2, 4), "float32"), "y": nn.spec.Tensor((5,), "float32")},
    })
    assert [n for n, _ in params] == ["fc.weight"]
    assert int(mod["both"].attrs["num_input"]) == 2
    assert [p.name_hint for p in mod["both"].params] == ["x", "y", "fc.weight"]
    x, y, w = _rand(2, 4), _rand(5), _rand(3, 4)
    a, b = relax.interpret(mod, "both", x, y, w)
    np.testing.assert_allclose(a.numpy(), x @ w.T, rtol=1e-5)
    np.testing.assert_allclose(b.numpy(), np.maximum(y, 0))


def test_nested_modules_list_sequential_names():
    class Block(nn.Module):
        def __init__(self):
            self.lin = nn.Linear(8, 8)
            self.norm = nn.LayerNorm(8)

        def forward(self, x):
            return self.norm(nn.op.gelu(self.lin(x)))

    class Net(nn.Module):
        def __init__(self):
            self.blocks = nn.ModuleList([Block(), Block()])
            self.head = nn.Sequential(nn.Linear(8, 4), nn.SiLU(), nn.Dropout(0.1))

        def forward(self, x):
            for b in self.blocks:
                x = b(x)
            return self.head(x)

    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == [
        "blocks.0.lin.weight", "blocks.0.lin.bias", "blocks.0.norm.weight", "blocks.0.norm.bias",
        "blocks.1.lin.weight", "blocks.1.lin.bias", "blocks.1.norm.weight", "blocks.1.norm.bias",
        "head.0.weight", "head.0.bias",
    ]
    mod, params = net.export_tvm(spec={"forward": {"x": nn.spec.Tensor((3, 8), "float32")}})
    assert [n for n, _ in params] == names
    values = [_rand(*p.shape) for _, p in params]
    x = _rand(3, 8)
    out = relax.interpret(mod, "forward", x, *values).numpy()
    from math import erf  # noqa: PLC0415

    gelu = np.vectorize(lambda v: 0.5 * v * (1 + erf(v / np.sqrt(2))))

    def ln(v, g, b):
        mu = v.mean(-1, keepdims=True)
        var = v.var(-1, keepdims=True)
        return (v - mu) / np.sqrt(var + 1e-5) * g + b

    h = x.astype("float64")
    for i in range(2):
        w, b, g, be = values[4 * i:4 * i + 4]
        h = ln(gelu(h @ w.T + b), g, be)
    h = h @ values[8].T + values[9]
    h = h / (1 + np.exp(-h))
    np.testing.assert_allclose(out, h, rtol=1e-4, atol=1e-5)


def test_tensor_operators_and_scalars():
    class M(nn.Module):
        def forward(self, a, b):
            return (a + b) * 2.0 - b / a + 1.0

    mod, params = M().export_tvm(spec={"forward": {"a": nn.spec.Tensor((4,), "float32"),
                                                   "b": nn.spec.Tensor((4,), "float32")}})
    assert params == []
    a = RNG.random(4).astype("float32") + 1
    b = _rand(4)
    out = relax.interpret(mod, "forward", a, b).numpy()
    np.testing.assert_allclose(out, (a + b) * 2 - b / a + 1, rtol=1e-5)


def test_embedding_and_take():
    class M(nn.Module):
        def __init__(self):
            self.emb = nn.Embedding(10, 4)

        def forward(self, ids):
            return self.emb(ids)

    mod, params = M().export_tvm(spec={"forward": {"ids": nn.spec.Tensor((2, 3), "int64")}})
    assert [n for n, _ in params] == ["emb.weight"]
    w = _rand(10, 4)
    ids = np.array([[1, 2, 3], [9, 0, 1]], dtype="int64")
    out = relax.interpret(mod, "forward", ids, w).numpy()
    np.testing.assert_allclose(out, w[ids])


def test_parameter_data_and_load_state_dict():
    m = MLPModel()
    sd = {n: _rand(*p.shape) for n, p in m.named_parameters()}
    m.load_state_dict(sd)
    np.testing.assert_array_equal(m.fc1.weight.data.numpy(), sd["fc1.weight"])
    with pytest.raises(ValueError, match="shape mismatch"):
        m.fc1.bias.data = np.zeros((3,), "float32")
    with pytest.raises(KeyError, match="fc9.weight"):
        m.load_state_dict({"fc9.weight": sd["fc1.weight"]})


# ---- wrong specs ---------------------------------------------------------------------------


def test_spec_missing_input_names_method_and_argument():
    with pytest.raises(ValueError, match=r'method "forward": argument "x" has no spec'):
        MLPModel().export_tvm(spec={"forward": {}})


def test_spec_unknown_argument():
    with pytest.raises(ValueError, match=r'method "forward" has no argument "y"'):
        MLPModel().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 784), "float32"),
                                                "y": nn.spec.Tensor((1,), "float32")}})


def test_spec_bad_dtype():
    with pytest.raises(ValueError, match=r'method "forward", argument "x": unknown dtype "flot32"'):
        MLPModel().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 784), "flot32")}})


def test_spec_unknown_method():
    with pytest.raises(ValueError, match=r'MLPModel has no method "prefill"'):
        MLPModel().export_tvm(spec={"prefill": {"x": nn.spec.Tensor((1, 784), "float32")}})


def test_spec_bad_shape_is_an_inference_error_naming_the_op():
    with pytest.raises(ValueError, match="matmul"):
        MLPModel().export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 785), "float32")}})


def test_spec_invalid_kind():
    with pytest.raises(TypeError, match=r'argument "x": invalid spec'):
        MLPModel().export_tvm(spec={"forward": {"x": (1, 784)[0]}})


def test_op_outside_export_is_an_error():
    t = nn.Tensor.placeholder((2,), "float32", "t")
    with pytest.raises(ValueError, match="no BlockBuilder is active"):
        nn.op.relu(t)


# ---- layers against PyTorch ------------------------------------------------------------------


def _run_layer(layer, x, params_from):
    spec = {"forward": {"x": nn.spec.Tensor(x.shape, "float32")}}
    mod, params = layer.export_tvm(spec=spec)
    values = [params_from[n] for n, _ in params]
    return relax.interpret(mod, "forward", x, *values).numpy()


def _torch_state(tmod):
    return {k: v.detach().numpy().copy() for k, v in tmod.state_dict().items()
            if not k.endswith("num_batches_tracked")}


@pytest.mark.parametrize("stride,padding,groups,bias", [(1, 0, 1, True), (2, 1, 2, False),
                                                        (1, 1, 4, True)])
def test_conv2d_matches_torch(torch, stride, padding, groups, bias):
    torch.manual_seed(0)
    t = torch.nn.Conv2d(4, 8, 3, stride=stride, padding=padding, groups=groups, bias=bias)
    x = _rand(2, 4, 7, 7)
    ours = nn.Conv2D(4, 8, 3, stride=stride, padding=padding, groups=groups, bias=bias)
    out = _run_layer(ours, x, _torch_state(t))
    ref = t(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


def test_cnn_layers_match_torch(torch):
    torch.manual_seed(0)
    tnet = torch.nn.Sequential(
        torch.nn.Conv2d(3, 6, 3, padding=1), torch.nn.BatchNorm2d(6), torch.nn.ReLU(),
        torch.nn.MaxPool2d(3, 2, 1), torch.nn.AvgPool2d(2), torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(), torch.nn.Linear(6, 5),
    ).eval()
    bn = tnet[1]
    bn.running_mean.uniform_(-0.5, 0.5)
    bn.running_var.uniform_(0.5, 1.5)
    bn.weight.data.uniform_(0.5, 1.5)
    bn.bias.data.uniform_(-0.5, 0.5)
    ours = nn.Sequential(
        nn.Conv2D(3, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(3, 2, 1),
        nn.AvgPool2d(2), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(6, 5),
    )
    x = _rand(2, 3, 12, 12)
    out = _run_layer(ours, x, _torch_state(tnet))
    ref = tnet(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("num_layers,batch_first", [(1, False), (2, False), (2, True)])
def test_lstm_matches_torch(torch, num_layers, batch_first):
    torch.manual_seed(0)
    t = torch.nn.LSTM(5, 6, num_layers=num_layers, batch_first=batch_first)
    ours = nn.LSTM(5, 6, num_layers=num_layers, batch_first=batch_first)
    assert [n for n, _ in ours.named_parameters()] == list(_torch_state(t).keys())
    x = _rand(3, 2, 5)
    mod, params = ours.export_tvm(spec={"forward": {"x": nn.spec.Tensor(x.shape, "float32")}})
    state = _torch_state(t)
    out, (h, c) = relax.interpret(mod, "forward", x, *[state[n] for n, _ in params])
    r_out, (r_h, r_c) = t(torch.from_numpy(x))
    np.testing.assert_allclose(out.numpy(), r_out.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h.numpy(), r_h.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(c.numpy(), r_c.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_layer_norm_matches_torch(torch):
    torch.manual_seed(0)
    t = torch.nn.LayerNorm(6)
    t.weight.data.uniform_(0.5, 1.5)
    t.bias.data.uniform_(-0.5, 0.5)
    x = _rand(3, 4, 6)
    out = _run_layer(nn.LayerNorm(6), x, _torch_state(t))
    np.testing.assert_allclose(out, t(torch.from_numpy(x)).detach().numpy(), rtol=1e-4,
                               atol=1e-5)


def test_tuple_int_and_symbolic_parameter_specs():
    class M(nn.Module):
        def __init__(self):
            self.emb = nn.Embedding("vocab", 4)

        def forward(self, ids, pair, n):
            a, b = pair
            return self.emb(ids), a + b

    spec = {"forward": {
        "ids": nn.spec.Tensor(("seq",), "int64"),
        "pair": (nn.spec.Tensor(("seq", 2), "float32"), nn.spec.Tensor(("seq", 2), "float32")),
        "n": nn.spec.Int(),
    }}
    mod, params = M().export_tvm(spec=spec)
    func = mod["forward"]
    assert [p.name_hint for p in func.params] == ["ids", "pair", "n", "emb.weight"]
    assert int(func.attrs["num_input"]) == 3
    assert func.params[2].struct_info.type_key == "relax.ShapeStructInfo"
    w = _rand(7, 4)
    ids = np.array([1, 6, 2], dtype="int64")
    a, b = _rand(3, 2), _rand(3, 2)
    emb, s = relax.interpret(mod, "forward", ids, (a, b), (5,), w)
    np.testing.assert_allclose(emb.numpy(), w[ids])
    np.testing.assert_allclose(s.numpy(), a + b, rtol=1e-6)


def test_failed_export_leaves_parameters_and_model_usable():
    m = MLPModel()
    before = m.fc1.weight._expr  # pylint: disable=protected-access
    with pytest.raises(ValueError):
        m.export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 3), "float32")}})
    assert m.fc1.weight._expr.same_as(before)  # pylint: disable=protected-access
    mod, _ = m.export_tvm(spec={"forward": {"x": nn.spec.Tensor((1, 784), "float32")}})
    assert list(mod.get_global_vars())


def test_lstm_with_initial_state_matches_torch(torch):
    torch.manual_seed(1)
    t = torch.nn.LSTM(3, 4, num_layers=2)

    class M(nn.Module):
        def __init__(self):
            self.lstm = nn.LSTM(3, 4, num_layers=2)

        def forward(self, x, h0, c0):
            out, (h, c) = self.lstm(x, (h0, c0))
            return out, h, c

    shapes = {"x": (2, 5, 3), "h0": (2, 5, 4), "c0": (2, 5, 4)}
    mod, params = M().export_tvm(spec={"forward": {k: nn.spec.Tensor(s, "float32")
                                                   for k, s in shapes.items()}})
    state = {"lstm." + k: v for k, v in _torch_state(t).items()}
    x, h0, c0 = (_rand(*s) for s in shapes.values())
    out, h, c = relax.interpret(mod, "forward", x, h0, c0, *[state[n] for n, _ in params])
    r_out, (r_h, r_c) = t(torch.from_numpy(x), (torch.from_numpy(h0), torch.from_numpy(c0)))
    np.testing.assert_allclose(out.numpy(), r_out.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h.numpy(), r_h.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(c.numpy(), r_c.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_lstm_needs_a_static_sequence_length():
    with pytest.raises(ValueError, match="sequence length must be static"):
        nn.LSTM(3, 4).export_tvm(spec={"forward": {"x": nn.spec.Tensor(("t", 1, 3),
                                                                        "float32")}})


def test_quick_start_after_legalize_ops(require_global):
    require_global("relax.transform.LegalizeOps")
    mod, param_spec = _export_mlp()
    legal = relax.transform.LegalizeOps()(mod)
    assert "R.call_tir(" in legal.script()
    data = RNG.random((1, 784)).astype("float32")
    params = [RNG.random(tuple(p.shape)).astype("float32") for _, p in param_spec]
    np.testing.assert_allclose(relax.interpret(legal, "forward", data, *params).numpy(),
                               relax.interpret(mod, "forward", data, *params).numpy(), rtol=1e-5)
