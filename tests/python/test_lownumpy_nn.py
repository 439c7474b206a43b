"""lownumpy matrix and neural-network operators (stage 1) against NumPy references written
here and against PyTorch (conv2d, conv2d_transpose, pooling, batch_norm, layer_norm,
softmax, the LSTM cell). Float results use the "accumulate" tolerances of
test_lownumpy_util.TOL (float32: rtol 1e-4, atol 1e-4; float64: 1e-10)."""
import zlib

import numpy as np
import pytest

from minitvm import lownumpy as lnp

from test_lownumpy_util import FLOATS, INTS, check, fortran, random_array, strided


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


# ---- matmul and linear -------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((2, 3), (3, 4)), ((3,), (3, 2)), ((2, 3), (3,)), ((4,), (4,)), ((5, 2, 3), (3, 4)),
    ((2, 1, 2, 3), (4, 3, 5)), ((1, 3), (2, 3, 1)), ((0, 3), (3, 2)), ((2, 0), (0, 3)),
    ((2, 3, 1), (2, 1, 4)),
]


@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_matmul(dtype):
    rng = _rng("matmul" + dtype)
    for sa, sb in MATMUL_SHAPES:
        a, b = random_array(rng, sa, dtype), random_array(rng, sb, dtype)
        check(lnp.matmul(a, b), np.asarray(np.matmul(a, b)).astype(dtype), "accumulate")
    a, b = random_array(rng, (3, 4), dtype), random_array(rng, (4, 5), dtype)
    check(lnp.matmul(fortran(a), strided(b)), a @ b, "accumulate")


def test_matmul_errors():
    with pytest.raises(ValueError, match=r"matmul: contracted dimensions differ: lhs \(2, 3\)"):
        lnp.matmul(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="matmul: batch dimensions of"):
        lnp.matmul(np.ones((2, 2, 3)), np.ones((3, 3, 2)))
    with pytest.raises(ValueError, match="matmul: operands must have at least 1 dimension"):
        lnp.matmul(np.ones(()), np.ones((2,)))


@pytest.mark.parametrize("dtype", FLOATS)
def test_linear(dtype):
    rng = _rng("linear" + dtype)
    for xs in [(4, 5), (5,), (2, 3, 5), (0, 5)]:
        x = random_array(rng, xs, dtype)
        w, b = random_array(rng, (3, 5), dtype), random_array(rng, (3,), dtype)
        check(lnp.linear(x, w, b), x @ w.T + b, "accumulate")
        check(lnp.linear(strided(x), fortran(w)), x @ w.T, "accumulate")
    with pytest.raises(ValueError, match=r"linear: bias \(4,\) must have shape \(3,\)"):
        lnp.linear(np.ones((2, 5), dtype), np.ones((3, 5), dtype), np.ones(4, dtype))


# ---- conv2d ----------------------------------------------------------------------------------

def np_conv2d(x, w, b=None, strides=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    """A NumPy reference: pad, then for each kernel tap add a strided slice times the weights."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (dh, dw), (pt, pl, pb, pr) = strides, dilation, padding
    xp = np.pad(x.astype("float64"), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = w[g * og:(g + 1) * og].astype("float64")
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                           j * dw:j * dw + sw * (ow - 1) + 1:sw]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, ws[:, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out.astype(x.dtype)


# (x shape, w shape, strides, padding (4), dilation, groups)
CONV_CASES = [
    ((1, 3, 7, 7), (4, 3, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((2, 3, 8, 9), (5, 3, 3, 2), (2, 1), (1, 1, 1, 1), (1, 1), 1),
    ((1, 4, 9, 9), (4, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 4),  # depthwise
    ((1, 4, 10, 8), (6, 2, 3, 3), (1, 2), (2, 0, 1, 3), (2, 1), 2),  # asymmetric pad, dilation
    ((1, 2, 5, 5), (3, 2, 1, 1), (3, 3), (0, 0, 0, 0), (1, 1), 1),
    ((1, 1, 3, 3), (2, 1, 5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 1),  # kernel larger than image
    ((0, 2, 4, 4), (3, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),  # empty batch
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_conv2d_against_numpy(case, dtype):
    xs, ws, st, pad, dil, groups = CONV_CASES[case]
    rng = _rng(f"conv{case}{dtype}")
    x, w = random_array(rng, xs, dtype), random_array(rng, ws, dtype)
    b = random_array(rng, (ws[0],), dtype)
    want = np_conv2d(x, w, b, st, pad, dil, groups)
    check(lnp.conv2d(x, w, b, st, pad, dil, groups), want, "accumulate")
    check(lnp.conv2d(strided(x), fortran(w), b, st, pad, dil, groups), want, "accumulate")


@pytest.mark.parametrize("case", range(len(CONV_CASES) - 1))
def test_conv2d_against_torch(torch, case):
    xs, ws, st, pad, dil, groups = CONV_CASES[case]
    if pad[0] != pad[2] or pad[1] != pad[3]:
        pytest.skip("torch.nn.functional.conv2d pads symmetrically")
    rng = _rng(f"torchconv{case}")
    x, w = random_array(rng, xs, "float32"), random_array(rng, ws, "float32")
    b = random_array(rng, (ws[0],), "float32")
    want = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w),
                                      torch.from_numpy(b), st, pad[:2], dil, groups).numpy()
    check(lnp.conv2d(x, w, b, st, pad[:2], dil, groups), want, "accumulate")


def test_conv2d_errors():
    x = np.ones((1, 3, 5, 5), "float32")
    with pytest.raises(ValueError, match=r"conv2d: input \(1, 3, 5, 5\) and weight \(4, 2, 3, 3\)"):
        lnp.conv2d(x, np.ones((4, 2, 3, 3), "float32"))
    with pytest.raises(ValueError, match="conv2d: input must have 4 dimensions"):
        lnp.conv2d(x[0], np.ones((4, 3, 3, 3), "float32"))
    with pytest.raises(ValueError, match="does not fit the padded input"):
        lnp.conv2d(x, np.ones((4, 3, 7, 7), "float32"))
    with pytest.raises(ValueError, match=r"conv2d: dilation \(0,\) must be at least 1"):
        lnp.conv2d(x, np.ones((4, 3, 3, 3), "float32"), dilation=0)
    with pytest.raises(ValueError, match="conv2d: groups must be positive"):
        lnp.conv2d(x, np.ones((4, 3, 3, 3), "float32"), groups=0)
    with pytest.raises(ValueError, match="conv2d: operands have different dtypes"):
        lnp.conv2d(x, np.ones((4, 3, 3, 3), "float64"))


# (x shape, w shape (IOHW), strides, padding, output_padding, dilation, groups)
CONVT_CASES = [
    ((1, 3, 4, 4), (3, 2, 3, 3), 1, 0, 0, 1, 1),
    ((2, 4, 5, 3), (4, 3, 3, 2), 2, 1, 1, 1, 1),
    ((1, 4, 3, 3), (4, 1, 3, 3), 2, 1, 0, 1, 4),
    ((1, 2, 4, 5), (2, 3, 2, 3), (2, 3), (1, 0), (1, 2), (2, 1), 1),
    ((1, 4, 3, 3), (4, 2, 4, 4), 3, 2, 1, 2, 2),
]


def np_conv2d_transpose(x, w, b, strides, padding, output_padding, dilation, groups):
    """A NumPy reference: every input pixel scatters its value times the kernel into the
    (uncropped) output, which is then cropped by the padding."""
    two = lambda v: (v, v) if isinstance(v, int) else tuple(v)  # noqa: E731
    (sh, sw), (ph, pw), (oph, opw), (dh, dw) = map(two, (strides, padding, output_padding,
                                                      dilation))
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    full_h = (h - 1) * sh + dh * (kh - 1) + 1 + oph
    full_w = (wd - 1) * sw + dw * (kw - 1) + 1 + opw
    out = np.zeros((n, og * groups, full_h + ph, full_w + pw))
    cg = c // groups
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg].astype("float64")
        ws = w[g * cg:(g + 1) * cg].astype("float64")
        for i in range(kh):
            for j in range(kw):
                contrib = np.einsum("nchw,co->nohw", xs, ws[:, :, i, j])
                out[:, g * og:(g + 1) * og, i * dh:i * dh + sh * (h - 1) + 1:sh,
                    j * dw:j * dw + sw * (wd - 1) + 1:sw] += contrib
    out = out[:, :, ph:ph + full_h - 2 * ph, pw:pw + full_w - 2 * pw]
    return (out + b.reshape(1, -1, 1, 1)).astype(x.dtype)


@pytest.mark.parametrize("case", range(len(CONVT_CASES)))
def test_conv2d_transpose_against_numpy(case):
    xs, ws, st, pad, opad, dil, groups = CONVT_CASES[case]
    rng = _rng(f"np_convt{case}")
    x, w = random_array(rng, xs, "float64"), random_array(rng, ws, "float64")
    b = random_array(rng, (ws[1] * groups,), "float64")
    want = np_conv2d_transpose(x, w, b, st, pad, opad, dil, groups)
    check(lnp.conv2d_transpose(x, fortran(w), b, st, pad, opad, dil, groups), want, "accumulate")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", range(len(CONVT_CASES)))
def test_conv2d_transpose_against_torch(torch, case, dtype):
    xs, ws, st, pad, opad, dil, groups = CONVT_CASES[case]
    rng = _rng(f"convt{case}{dtype}")
    x, w = random_array(rng, xs, dtype), random_array(rng, ws, dtype)
    b = random_array(rng, (ws[1] * groups,), dtype)
    want = torch.nn.functional.conv_transpose2d(
        torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), st, pad, opad, groups,
        dil).numpy()
    check(lnp.conv2d_transpose(strided(x), w, b, st, pad, opad, dil, groups), want, "accumulate")


# ---- pooling -----------------------------------------------------------------------------------

# (x shape, kernel, stride, padding, dilation, ceil_mode)
POOL_CASES = [
    ((1, 2, 6, 6), 2, None, 0, 1, False),
    ((2, 3, 7, 9), 3, 2, 1, 1, False),
    ((1, 2, 7, 7), 3, 2, 1, 1, True),
    ((1, 1, 8, 5), (3, 2), (2, 1), (1, 0), 1, True),
    ((1, 2, 9, 9), 3, 2, 1, 2, False),
    ((1, 1, 6, 6), 4, 3, 2, 1, True),
]


def np_pool2d(x, kind, k, s, p, d, ceil, count_include_pad=True):
    """A NumPy reference for max/avg pooling: the window of each output position, clipped."""
    two = lambda v: (v, v) if isinstance(v, int) else tuple(v)  # noqa: E731
    (kh, kw), (ph, pw), (dh, dw) = two(k), two(p), two(d)
    sh, sw = two(s) if s is not None else (kh, kw)
    n, c, h, w = x.shape

    def out_size(size, k, s, p, d):
        span = size + 2 * p - d * (k - 1) - 1
        o = (-(-span // s) if ceil else span // s) + 1
        return o - 1 if ceil and (o - 1) * s >= size + p else o

    oh, ow = out_size(h, kh, sh, ph, dh), out_size(w, kw, sw, pw, dw)
    out = np.zeros((n, c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            rows = [i * sh - ph + a * dh for a in range(kh)]
            cols = [j * sw - pw + b * dw for b in range(kw)]
            rows_in = [r for r in rows if 0 <= r < h]
            cols_in = [q for q in cols if 0 <= q < w]
            win = x[:, :, rows_in][:, :, :, cols_in]
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                # count_include_pad counts the window clipped to the padded input.
                padded = (min(rows[-1], h + ph - 1) - rows[0] + 1) * (
                    min(cols[-1], w + pw - 1) - cols[0] + 1)
                divisor = padded if count_include_pad else len(rows_in) * len(cols_in)
                out[:, :, i, j] = win.sum(axis=(2, 3)) / divisor
    return out


@pytest.mark.parametrize("case", range(len(POOL_CASES)))
def test_pool2d_against_numpy(case):
    xs, k, s, p, d, ceil = POOL_CASES[case]
    x = random_array(_rng(f"np_pool{case}"), xs, "float64")
    check(lnp.max_pool2d(fortran(x), k, s, p, d, ceil), np_pool2d(x, "max", k, s, p, d, ceil))
    if d == 1:
        for cip in (True, False):
            check(lnp.avg_pool2d(x, k, s, p, ceil, cip), np_pool2d(x, "avg", k, s, p, 1, ceil, cip),
                  "accumulate")
    xi = random_array(_rng(f"np_pool_int{case}"), xs, "int32", -50, 50)
    check(lnp.max_pool2d(xi, k, s, p, d, ceil), np_pool2d(xi, "max", k, s, p, d, ceil))


@pytest.mark.parametrize("out_size", [1, (3, 2), (5, 7)])
def test_adaptive_avg_pool2d_against_numpy(out_size):
    x = random_array(_rng(f"np_adaptive{out_size}"), (2, 3, 7, 5), "float64")
    oh, ow = (out_size, out_size) if isinstance(out_size, int) else out_size
    want = np.zeros((2, 3, oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, r1 = (i * 7) // oh, -(-((i + 1) * 7) // oh)
            c0, c1 = (j * 5) // ow, -(-((j + 1) * 5) // ow)
            want[:, :, i, j] = x[:, :, r0:r1, c0:c1].mean(axis=(2, 3))
    check(lnp.adaptive_avg_pool2d(strided(x), out_size), want, "accumulate")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", range(len(POOL_CASES)))
def test_max_pool2d_against_torch(torch, case, dtype):
    xs, k, s, p, d, ceil = POOL_CASES[case]
    x = random_array(_rng(f"maxpool{case}"), xs, dtype)
    want = torch.nn.functional.max_pool2d(torch.from_numpy(x), k, s, p, d, ceil).numpy()
    check(lnp.max_pool2d(strided(x), k, s, p, d, ceil), want)


@pytest.mark.parametrize("count_include_pad", [True, False])
@pytest.mark.parametrize("case", range(len(POOL_CASES)))
def test_avg_pool2d_against_torch(torch, case, count_include_pad):
    xs, k, s, p, d, ceil = POOL_CASES[case]
    if d != 1:
        pytest.skip("avg_pool2d has no dilation")
    for dtype in FLOATS:
        x = random_array(_rng(f"avgpool{case}"), xs, dtype)
        want = torch.nn.functional.avg_pool2d(torch.from_numpy(x), k, s, p, ceil,
                                              count_include_pad).numpy()
        check(lnp.avg_pool2d(strided(x), k, s, p, ceil, count_include_pad), want, "accumulate")


@pytest.mark.parametrize("out_size", [1, 2, (3, 2), (5, 7), (4, 4)])
def test_adaptive_avg_pool2d_against_torch(torch, out_size):
    for dtype in FLOATS:
        x = random_array(_rng(f"adaptive{out_size}"), (2, 3, 7, 5), dtype)
        want = torch.nn.functional.adaptive_avg_pool2d(torch.from_numpy(x), out_size).numpy()
        check(lnp.adaptive_avg_pool2d(fortran(x), out_size), want, "accumulate")


def test_max_pool2d_int_and_nan():
    x = np.arange(16, dtype="int32").reshape(1, 1, 4, 4)
    check(lnp.max_pool2d(x, 2), np.array([[[[5, 7], [13, 15]]]], "int32"))
    y = np.ones((1, 1, 2, 2), "float32")
    y[0, 0, 1, 0] = np.nan
    assert np.isnan(lnp.max_pool2d(y, 2).numpy()).all()


def test_pool_errors():
    x = np.ones((1, 1, 4, 4), "float32")
    with pytest.raises(ValueError, match=r"max_pool2d: padding \(2,\) must be at most half"):
        lnp.max_pool2d(x, 2, 2, 2)
    with pytest.raises(ValueError, match=r"avg_pool2d: window \(5,\) does not fit input"):
        lnp.avg_pool2d(x, 5)
    with pytest.raises(ValueError, match=r"max_pool2d: pool_size \(0,\) must be at least 1"):
        lnp.max_pool2d(x, 0)
    with pytest.raises(ValueError, match="adaptive_avg_pool2d: output_size takes 1 or 2 values"):
        lnp.adaptive_avg_pool2d(x, (1, 2, 3))


# ---- normalisation -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_batch_norm(torch, dtype):
    rng = _rng("bn" + dtype)
    x = random_array(rng, (2, 4, 3, 5), dtype)
    g, b, m = (random_array(rng, (4,), dtype) for _ in range(3))
    v = random_array(rng, (4,), dtype, 0.5, 2.0)
    want = torch.nn.functional.batch_norm(*(torch.from_numpy(t) for t in (x, m, v, g, b)),
                                          training=False, eps=1e-5).numpy()
    check(lnp.batch_norm(strided(x), g, b, m, v), want, "accumulate")
    # Any axis, against NumPy.
    x2 = random_array(rng, (3, 5, 4), dtype)
    ref = (x2 - m) / np.sqrt(v + 1e-3) * g + b
    check(lnp.batch_norm(x2, g, b, m, v, axis=-1, epsilon=1e-3), ref.astype(dtype), "accumulate")
    with pytest.raises(ValueError, match=r"batch_norm: moving_var has shape \(3,\)"):
        lnp.batch_norm(x, g, b, m, v[:3])


@pytest.mark.parametrize("dtype", FLOATS)
def test_layer_norm(torch, dtype):
    rng = _rng("ln" + dtype)
    x = random_array(rng, (2, 3, 4, 5), dtype)
    g, b = random_array(rng, (4, 5), dtype), random_array(rng, (4, 5), dtype)
    want = torch.nn.functional.layer_norm(torch.from_numpy(x), (4, 5), torch.from_numpy(g),
                                          torch.from_numpy(b), 1e-5).numpy()
    check(lnp.layer_norm(strided(x), g, b, (-2, -1)), want, "accumulate")
    # Leading and non-adjacent axes, against NumPy; gamma/beta optional.
    for axes in [(0,), (1, 3), (3, 0)]:
        mean = x.mean(axis=axes, keepdims=True)
        var = x.var(axis=axes, keepdims=True)
        ref = ((x - mean) / np.sqrt(var + 1e-5)).astype(dtype)
        check(lnp.layer_norm(fortran(x), None, None, axes), ref, "accumulate")
    with pytest.raises(ValueError, match=r"layer_norm: gamma has shape \(5,\) but must have"):
        lnp.layer_norm(x, g[0], b, (-2, -1))


@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax(torch, dtype):
    rng = _rng("softmax" + dtype)
    x = random_array(rng, (3, 4, 5), dtype, -10, 10)
    for axis in [0, 1, -1]:
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        ref = e / e.sum(axis=axis, keepdims=True)
        check(lnp.softmax(strided(x), axis), ref.astype(dtype), "accumulate")
        check(lnp.log_softmax(x, axis), np.log(ref).astype(dtype), "accumulate")
        t = torch.from_numpy(x)
        check(lnp.softmax(x, axis), torch.softmax(t, axis).numpy(), "accumulate")
        check(lnp.log_softmax(x, axis), torch.log_softmax(t, axis).numpy(), "accumulate")
    big = np.array([1000.0, 1000.0, -1000.0], dtype)
    check(lnp.softmax(big), np.array([0.5, 0.5, 0.0], dtype))
    with pytest.raises(ValueError, match="softmax: axis 3 is out of range"):
        lnp.softmax(x, 3)


# ---- the LSTM cell -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_lstm_cell(torch, dtype):
    rng = _rng("lstm" + dtype)
    n, i, h = 3, 4, 5
    x, h0, c0 = (random_array(rng, s, dtype, -1, 1) for s in [(n, i), (n, h), (n, h)])
    w_ih, w_hh = random_array(rng, (4 * h, i), dtype, -1, 1), random_array(rng, (4 * h, h), dtype,
                                                                           -1, 1)
    b_ih, b_hh = random_array(rng, (4 * h,), dtype, -1, 1), random_array(rng, (4 * h,), dtype,
                                                                          -1, 1)
    # NumPy reference, gate order i, f, g, o.
    gates = x @ w_ih.T + b_ih + h0 @ w_hh.T + b_hh
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    ig, fg, gg, og = np.split(gates, 4, axis=1)
    c1 = sig(fg) * c0 + sig(ig) * np.tanh(gg)
    h1 = sig(og) * np.tanh(c1)
    got_h, got_c = lnp.lstm_cell(strided(x), h0, fortran(c0), w_ih, w_hh, b_ih, b_hh)
    check(got_h, h1.astype(dtype), "accumulate")
    check(got_c, c1.astype(dtype), "accumulate")
    cell = torch.nn.LSTMCell(i, h).to(getattr(torch, dtype))
    with torch.no_grad():
        for name, value in [("weight_ih", w_ih), ("weight_hh", w_hh), ("bias_ih", b_ih),
                            ("bias_hh", b_hh)]:
            getattr(cell, name).copy_(torch.from_numpy(value))
        th, tc = cell(torch.from_numpy(x), (torch.from_numpy(h0), torch.from_numpy(c0)))
    check(got_h, th.numpy(), "accumulate")
    check(got_c, tc.numpy(), "accumulate")
    with pytest.raises(ValueError, match=r"lstm_cell: w_hh has shape \(20, 4\)"):
        lnp.lstm_cell(x, h0, c0, w_ih, w_ih)
