"""The model workloads of ``relax.testing`` compiled with the "zero" and "default" pipelines,
run in the Relax VM, and compared with PyTorch built with the same weights (issue 14's end-to-end
check). Small images keep the test quick; the networks are the full ones."""
import numpy as np
import pytest

import minitvm as tvm
from minitvm import relax

torch = pytest.importorskip("torch")
from minitvm.relax.testing import torch_models  # noqa: E402

PIPELINES = ["zero", "default"]


def _vm_run(mod, params, inputs, pipeline):
    ex = tvm.compile(mod, "llvm", relax_pipeline=pipeline)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    args = [tvm.nd.array(x) for x in inputs] + list(params.values())
    out = vm["main"](*args)
    if isinstance(out, (list, tuple)):
        return [o.numpy() for o in out]
    return out.numpy()


def _torch_run(net, inputs):
    with torch.no_grad():
        out = net(*[torch.from_numpy(x) for x in inputs])
    if isinstance(out, (list, tuple)):
        return [o.numpy() for o in out]
    return out.numpy()


def _close(ours, theirs, rtol=1e-4, atol=1e-5):
    if isinstance(theirs, list):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_mlp(pipeline):
    mod, params = relax.testing.mlp.get_workload(batch_size=4, seed=0)
    data = np.random.default_rng(1).random((4, 1, 28, 28), dtype="float32")
    net = torch_models.load(torch_models.mlp(784, (128,), 10), params)
    _close(_vm_run(mod, params, [data], pipeline), _torch_run(net, [data]))


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_resnet18(pipeline):
    mod, params = relax.testing.resnet.get_workload(
        batch_size=1, num_layers=18, image_shape=(3, 32, 32), num_classes=10, seed=0)
    data = np.random.default_rng(2).random((1, 3, 32, 32), dtype="float32")
    net = torch_models.load(torch_models.resnet(18, num_classes=10), params)
    _close(_vm_run(mod, params, [data], pipeline), _torch_run(net, [data]), atol=1e-4)


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("pipeline", PIPELINES)
def test_mobilenet(pipeline, version):
    mod, params = relax.testing.mobilenet.get_workload(
        batch_size=1, version=version, image_shape=(3, 32, 32), num_classes=10, seed=0,
        width=0.25)
    data = np.random.default_rng(3).random((1, 3, 32, 32), dtype="float32")
    ctor = torch_models.mobilenet_v1 if version == 1 else torch_models.mobilenet_v2
    net = torch_models.load(ctor(num_classes=10, width=0.25), params)
    _close(_vm_run(mod, params, [data], pipeline), _torch_run(net, [data]), atol=1e-4)


@pytest.mark.parametrize("pipeline", PIPELINES)
def test_lstm(pipeline):
    mod, params = relax.testing.lstm.get_workload(iterations=4, num_hidden=16, batch_size=2,
                                                  seed=0)
    data = np.random.default_rng(4).random((4, 2, 16), dtype="float32")
    net = torch_models.load(torch_models.lstm(16, 16, 2), params)
    _close(_vm_run(mod, params, [data], pipeline), _torch_run(net, [data]))
