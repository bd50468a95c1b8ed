

# --- mlx-lm drop-in (ksearch export --format mlx-lm) ---------------------------------------------
# patch(model) replaces the per-time-step prefill loop of every Mamba block of an mlx-lm model
# (mlx_lm/models/mamba.py, MambaBlock._process_sequence) by the kernel above when a call brings more
# than one token; single-token decode keeps mlx-lm's own step. The block's projections,
# convolution and caches are mlx-lm's; only the scan changes. The scan runs in float32 (the
# dtype the kernel was verified in); y and the cached state come back in the activations' dtype.
import types

import mlx.nn as nn
from mlx_lm.models import mamba as _mamba
from mlx_lm.models.activations import swiglu as _swiglu


def _prefill(self, x, conv_cache, state_cache):
    if x.shape[1] == 1:
        return _mamba.MambaBlock._process_sequence(self, x, conv_cache, state_cache)
    xz = self.in_proj(x)
    x, z = xz.split(indices_or_sections=2, axis=-1)
    K = self.conv_kernel_size
    if conv_cache is not None:
        x_full = mx.concatenate([conv_cache, x], axis=1)
    else:
        x_full = mx.pad(x, [(0, 0), (K - 1, 0), (0, 0)])
    conv_out = self.conv1d(x_full)
    new_conv_cache = x_full[:, -(K - 1) :, :]
    x = nn.silu(conv_out)
    A = -mx.exp(self.A_log)
    delta, B, C = mx.split(
        self.x_proj(x),
        [self.time_step_rank, self.time_step_rank + self.ssm_state_size],
        axis=-1,
    )
    if self.use_bcdt_rms:
        eps = self.args.mixer_rms_eps
        delta = mx.fast.rms_norm(delta, weight=None, eps=eps)
        B = mx.fast.rms_norm(B, weight=None, eps=eps)
        C = mx.fast.rms_norm(C, weight=None, eps=eps)
    delta = self.dt_proj(delta)  # softplus is applied in the kernel
    y, new_state = {{FUNCTION}}(x, delta, A, B, C, self.D, state_cache)
    y = y.astype(x.dtype)
    z = self.out_proj(_swiglu(z, y))
    return z, (new_conv_cache, new_state.astype(x.dtype))


def patch(model):
    """Makes every mlx-lm Mamba block of `model` run its prefill through the kernel; returns how many."""
    blocks = [m for m in model.modules() if isinstance(m, _mamba.MambaBlock)]
    for block in blocks:
        block._process_sequence = types.MethodType(_prefill, block)
    return len(blocks)


def unpatch(model):
    """Restores mlx-lm's own prefill loop in every Mamba block of `model`."""
    for m in model.modules():
        if isinstance(m, _mamba.MambaBlock) and "_process_sequence" in m.__dict__:
            del m.__dict__["_process_sequence"]
