"""Stage 4: ``relax.testing`` workloads, each run with the reference interpreter and compared
with PyTorch built with the same weights and, for the MLP, ResNet-18 and MobileNet-v1, with
the stage-1 reference models (``lownumpy.models``). Images are small (32x32) to keep the
interpreter fast."""
import numpy as np
import pytest

from minitvm import relax
from minitvm.lownumpy import models
from minitvm.relax.testing import torch_models


def _data(mod, seed=1):
    shape = [int(d) for d in mod["main"].params[0].struct_info.shape.values]
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def _run(mod, params, x):
    return relax.interpret(mod, "main", x, *params.values())


def _check_main_signature(mod, params):
    func = mod["main"]
    names = [p.name_hint for p in func.params]
    assert names[0] == "data"
    assert names[1:] == list(params.keys())
    for p, (name, value) in zip(func.params[1:], params.items()):
        assert [int(d) for d in p.struct_info.shape.values] == list(value.shape), name
    assert relax.analysis.well_formed(mod)


def _torch_out(tmodel, params, x, torch):
    torch_models.load(tmodel, params)
    with torch.no_grad():
        out = tmodel(torch.from_numpy(x))
    if isinstance(out, tuple):
        return tuple(o.numpy() for o in out)
    return out.numpy()


def test_mlp_matches_reference_and_torch(torch):
    mod, params = relax.testing.mlp.get_workload(batch_size=2)
    _check_main_signature(mod, params)
    assert list(params) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert params["fc1.weight"].shape == (128, 784)
    x = _data(mod)
    out = _run(mod, params, x).numpy()
    assert out.shape == (2, 10)
    stage1 = {"w0": params["fc1.weight"], "b0": params["fc1.bias"], "w1": params["fc2.weight"],
              "b1": params["fc2.bias"]}
    ref = models.mlp(x.reshape(2, 784), stage1).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out, _torch_out(torch_models.mlp(), params, x, torch), rtol=1e-4,
                               atol=1e-5)


def test_mlp_deeper_and_seeded():
    mod, params = relax.testing.mlp.get_workload(hidden_units=(64, 32), num_classes=5, seed=3)
    assert list(params)[-2:] == ["fc3.weight", "fc3.bias"]
    _, again = relax.testing.mlp.get_workload(hidden_units=(64, 32), num_classes=5, seed=3)
    _, other = relax.testing.mlp.get_workload(hidden_units=(64, 32), num_classes=5, seed=4)
    np.testing.assert_array_equal(params["fc1.weight"].numpy(), again["fc1.weight"].numpy())
    assert not np.array_equal(params["fc1.weight"].numpy(), other["fc1.weight"].numpy())


def test_resnet18_matches_reference_and_torch(torch):
    mod, params = relax.testing.resnet.get_workload(num_layers=18, num_classes=10,
                                                    image_shape=(3, 32, 32))
    _check_main_signature(mod, params)
    assert "layer2.0.downsample.0.weight" in params and "bn1.running_var" in params
    x = _data(mod)
    out = _run(mod, params, x).numpy()
    assert out.shape == (1, 10)
    ref = models.resnet18(x, params).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    tout = _torch_out(torch_models.resnet(18, 10), params, x, torch)
    np.testing.assert_allclose(out, tout, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("num_layers", [34, 50])
def test_resnet_deeper_matches_torch(torch, num_layers):
    mod, params = relax.testing.resnet.get_workload(num_layers=num_layers, num_classes=10,
                                                    image_shape=(3, 32, 32))
    _check_main_signature(mod, params)
    x = _data(mod)
    out = _run(mod, params, x).numpy()
    tout = _torch_out(torch_models.resnet(num_layers, 10), params, x, torch)
    scale = np.abs(tout).max()
    np.testing.assert_allclose(out, tout, rtol=1e-4, atol=1e-5 * scale)


def test_resnet_bad_depth():
    with pytest.raises(ValueError, match="num_layers must be one of"):
        relax.testing.resnet.get_workload(num_layers=20)


def test_mobilenet_v1_matches_reference_and_torch(torch):
    mod, params = relax.testing.mobilenet.get_workload(version=1, num_classes=10,
                                                       image_shape=(3, 32, 32), width=0.5)
    _check_main_signature(mod, params)
    x = _data(mod)
    out = _run(mod, params, x).numpy()
    ref = models.mobilenet_v1(x, params).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    tout = _torch_out(torch_models.mobilenet_v1(10, 0.5), params, x, torch)
    np.testing.assert_allclose(out, tout, rtol=1e-4, atol=1e-5)


def test_mobilenet_v2_matches_torch(torch):
    mod, params = relax.testing.mobilenet.get_workload(version=2, num_classes=10,
                                                       image_shape=(3, 32, 32), batch_size=2)
    _check_main_signature(mod, params)
    assert "features.1.conv.0.0.weight" in params and "classifier.1.weight" in params
    x = _data(mod)
    out = _run(mod, params, x).numpy()
    assert out.shape == (2, 10)
    tout = _torch_out(torch_models.mobilenet_v2(10), params, x, torch)
    np.testing.assert_allclose(out, tout, rtol=1e-4, atol=1e-5)


def test_mobilenet_bad_version():
    with pytest.raises(ValueError, match="version must be 1 or 2"):
        relax.testing.mobilenet.get_workload(version=3)


def test_lstm_matches_reference_and_torch(torch):
    mod, params = relax.testing.lstm.get_workload(iterations=5, num_hidden=8, batch_size=2,
                                                  input_size=6, num_layers=2)
    _check_main_signature(mod, params)
    assert list(params)[:4] == ["lstm.weight_ih_l0", "lstm.weight_hh_l0", "lstm.bias_ih_l0",
                                "lstm.bias_hh_l0"]
    x = _data(mod)
    out, h, c = _run(mod, params, x)
    assert out.shape == (5, 2, 8) and h.shape == (2, 2, 8)
    stage1 = {k.split(".", 1)[1]: v for k, v in params.items()}
    r_out, r_h, r_c = models.lstm(x, stage1)
    np.testing.assert_allclose(out.numpy(), r_out.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), r_h.numpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(c.numpy(), r_c.numpy(), rtol=1e-4, atol=1e-6)
    t_out, t_h, t_c = _torch_out(torch_models.lstm(6, 8, 2), params, x, torch)
    np.testing.assert_allclose(out.numpy(), t_out, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(c.numpy(), t_c, rtol=1e-4, atol=1e-6)


def test_float64_workload():
    mod, params = relax.testing.mlp.get_workload(dtype="float64")
    assert params["fc1.weight"].dtype == "float64"
    x = _data(mod).astype("float64")
    out = _run(mod, params, x)
    assert out.dtype == "float64"


def test_bad_dtype():
    with pytest.raises(ValueError, match="dtype must be float32 or float64"):
        relax.testing.mlp.get_workload(dtype="int8")


@pytest.mark.parametrize("name,kwargs", [("resnet", {"num_layers": 18}),
                                         ("mobilenet", {"version": 2}), ("lstm", {})])
def test_workload_prints_and_parses_back(name, kwargs):
    import minitvm as tvm

    mod, _ = getattr(relax.testing, name).get_workload(**kwargs)
    text = mod.script()
    again = tvm.script.from_source(text)
    assert tvm.ir.structural_equal(mod["main"], again["main"])
    assert again.script() == text


def test_full_size_resnet18_shapes():
    mod, params = relax.testing.resnet.get_workload(num_layers=18)
    func = mod["main"]
    assert [int(d) for d in func.params[0].struct_info.shape.values] == [1, 3, 224, 224]
    assert sum(int(np.prod(v.shape)) for k, v in params.items()
               if "running" not in k) == 11689512  # torchvision's resnet18 parameter count


@pytest.mark.parametrize("name,kwargs", [
    ("mlp", {}),
    ("resnet", {"num_layers": 18, "num_classes": 10, "image_shape": (3, 32, 32)}),
    ("mobilenet", {"version": 2, "width": 0.5, "num_classes": 10, "image_shape": (3, 32, 32)}),
    ("lstm", {"iterations": 3, "num_hidden": 8}),
])
def test_workload_after_legalize_ops_matches(require_global, name, kwargs):
    """Every op the workloads emit has a legalization; the legalized module computes the same."""
    require_global("relax.transform.LegalizeOps")
    mod, params = getattr(relax.testing, name).get_workload(**kwargs)
    legal = relax.transform.LegalizeOps()(mod)
    x = _data(mod)
    before = _run(mod, params, x)
    after = _run(legal, params, x)
    before = before if isinstance(before, tuple) else (before,)
    after = after if isinstance(after, tuple) else (after,)
    for b, a in zip(before, after):
        scale = max(1.0, float(np.abs(b.numpy()).max()))
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5 * scale)
