"""A perceiver resampler from the vision tower's patch grid to a fixed number of LLM-width tokens.

Why: MiniCPM-o 4.5 feeds its SigLIP patches to the LLM through one cross-attention layer with 64
learned queries (its `Resampler`), not a pooled grid and an MLP. With `model.vision.projector:
resampler` our `vision_proj` has 4.5's structure and parameter names (query, kv_proj, attn, ln_q,
ln_kv, ln_post, proj), so 4.5's `resampler.*` tensors load into it one to one
(model/minicpmo_weights.py). The computation follows 4.5's model code (OpenBMB/MiniCPM-o-Demo
28b60cfb, MiniCPMO45/modeling_minicpmo.py, `Resampler.forward`): keys and values are the
layer-normed, projected patches, the keys also carry a fixed 2-D sine-cosine position embedding of
the patch's (row, column), queries are the layer-normed learned queries, then ln_post and `proj`.
Our frames are full squares, so no key is padding.
"""
from __future__ import annotations

import torch
from torch import nn

LN_EPS = 1e-6          # 4.5's norm_layer: LayerNorm(eps=1e-6)


def sincos_1d(dim: int, pos: torch.Tensor) -> torch.Tensor:
    """[..., dim]: sin of pos x frequencies then cos of the same (frequencies 10000^(-i/(dim/2)))."""
    if dim % 2:
        raise ValueError(f"sine-cosine embedding needs an even width, got {dim}")
    omega = 1.0 / 10000 ** (torch.arange(dim // 2, dtype=torch.float64) / (dim / 2.0))
    out = pos.to(torch.float64)[..., None] * omega
    return torch.cat([out.sin(), out.cos()], dim=-1)


def sincos_2d(dim: int, rows: int, cols: int) -> torch.Tensor:
    """[rows * cols, dim] for patches in row-major order: the first half encodes the column, the
    second half the row (4.5's grid puts the width coordinate first)."""
    r, c = torch.meshgrid(torch.arange(rows), torch.arange(cols), indexing="ij")
    emb = torch.cat([sincos_1d(dim // 2, c), sincos_1d(dim // 2, r)], dim=-1)
    return emb.reshape(rows * cols, dim).float()


class Resampler(nn.Module):
    """[F, P, kv_dim] patches of a rows x cols grid -> [F, num_queries, dim]."""

    def __init__(self, num_queries: int, dim: int, num_heads: int, kv_dim: int):
        super().__init__()
        if dim % num_heads:
            raise ValueError(f"resampler width {dim} is not a multiple of its {num_heads} heads")
        self.dim = dim
        self.query = nn.Parameter(torch.randn(num_queries, dim) * 0.02)
        # 4.5 has no kv_proj parameters when the tower is already as wide as the LLM
        self.kv_proj = nn.Linear(kv_dim, dim, bias=False) if kv_dim != dim else nn.Identity()
        self.attn = nn.MultiheadAttention(dim, num_heads)
        self.ln_q = nn.LayerNorm(dim, eps=LN_EPS)
        self.ln_kv = nn.LayerNorm(dim, eps=LN_EPS)
        self.ln_post = nn.LayerNorm(dim, eps=LN_EPS)
        self.proj = nn.Parameter(dim ** -0.5 * torch.randn(dim, dim))

    def forward(self, x: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
        n, p, _ = x.shape
        if p != rows * cols:
            raise ValueError(f"{p} patches per frame but a {rows} x {cols} grid")
        kv = self.ln_kv(self.kv_proj(x)).transpose(0, 1)                       # [P, F, d]
        pos = sincos_2d(self.dim, rows, cols).to(device=kv.device, dtype=kv.dtype)[:, None]
        q = self.ln_q(self.query)[:, None].expand(-1, n, -1)                   # [Q, F, d]
        out = self.attn(q, kv + pos, kv, need_weights=False)[0].transpose(0, 1)   # [F, Q, d]
        return self.ln_post(out) @ self.proj
