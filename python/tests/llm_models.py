"""Decoder-only language models written as their reference implementations
are (nanoGPT's GPT-2, Meta's Llama), each with its KV cache as explicit
inputs and outputs, for the sizes-as-values tests and bench/llm.py.

Both take `(ids, k_cache, v_cache)`: `ids` is (B, T) tokens, the caches are
(layers, B, heads, P, head_dim) with P tokens already seen (P may be 0), and
they return `(logits, k_cache', v_cache')` with P + T cached tokens. Every
size the forward computes with is read from its inputs (`T = ids.size(1)`,
`P = k_cache.size(3)`), so one trace with dynamic "seq" and "past" dims
serves prefill (P = 0) and decode (T = 1) alike.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


# -- GPT-2 (nanoGPT) -----------------------------------------------------------

class GPTConfig:
    def __init__(self, vocab=50257, ctx=1024, layers=12, heads=12, dim=768):
        self.vocab, self.ctx, self.layers, self.heads, self.dim = \
            vocab, ctx, layers, heads, dim


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.c_attn = nn.Linear(cfg.dim, 3 * cfg.dim)
        self.c_proj = nn.Linear(cfg.dim, cfg.dim)
        self.heads = cfg.heads
        self.register_buffer(
            "bias", torch.tril(torch.ones(cfg.ctx, cfg.ctx)).view(1, 1, cfg.ctx, cfg.ctx))

    def forward(self, x, k_past, v_past):
        B, T, C = x.size()
        P = k_past.size(2)
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = torch.cat([k_past, k], dim=2)
        v = torch.cat([v_past, v], dim=2)
        S = P + T
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, P:S, :S] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y), k, v


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.c_fc = nn.Linear(cfg.dim, 4 * cfg.dim)
        self.c_proj = nn.Linear(4 * cfg.dim, cfg.dim)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.dim)
        self.attn = CausalSelfAttention(cfg)
        self.ln_2 = nn.LayerNorm(cfg.dim)
        self.mlp = MLP(cfg)

    def forward(self, x, k_past, v_past):
        a, k, v = self.attn(self.ln_1(x), k_past, v_past)
        x = x + a
        x = x + self.mlp(self.ln_2(x))
        return x, k, v


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.wte = nn.Embedding(cfg.vocab, cfg.dim)
        self.wpe = nn.Embedding(cfg.ctx, cfg.dim)
        self.h = nn.ModuleList([Block(cfg) for _ in range(cfg.layers)])
        self.ln_f = nn.LayerNorm(cfg.dim)
        self.lm_head = nn.Linear(cfg.dim, cfg.vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied, as GPT-2's are

    def forward(self, ids, k_cache, v_cache):
        T = ids.size(1)
        P = k_cache.size(3)
        pos = torch.arange(P, P + T, dtype=torch.long)
        x = self.wte(ids) + self.wpe(pos)
        ks, vs = [], []
        for i, block in enumerate(self.h):
            x, k, v = block(x, k_cache[i], v_cache[i])
            ks.append(k)
            vs.append(v)
        logits = self.lm_head(self.ln_f(x))
        return logits, torch.stack(ks), torch.stack(vs)

    def empty_cache(self, batch=1):
        c = self.cfg
        shape = (c.layers, batch, c.heads, 0, c.dim // c.heads)
        return torch.zeros(shape), torch.zeros(shape)


class GPTStaticCache(GPT):
    """GPT-2 with a preallocated cache written in place, as deployments keep
    it (HF's StaticCache): `(ids, attention_mask, k_cache, v_cache)`, the
    caches (layers, B, heads, ctx, head_dim) of the model's whole context,
    `attention_mask` (B, P + T) ones for the P cached and T new tokens. Each
    step writes its T rows at P:P + T (`k_cache[i][:, :, P:S] = k`) and
    attends to the first P + T; it returns `(logits, k_cache, v_cache)`, the
    caches updated. Compiled with `donate=`, the caches are the caller's
    buffers, updated in place (docs/llm.md, "Cache styles")."""

    def forward(self, ids, attention_mask, k_cache, v_cache):
        T = ids.size(1)
        S = attention_mask.size(1)
        P = S - T
        pos = torch.arange(P, S, dtype=torch.long)
        x = self.wte(ids) + self.wpe(pos)
        for i, block in enumerate(self.h):
            attn = block.attn
            h = block.ln_1(x)
            B, _, C = h.size()
            q, k, v = attn.c_attn(h).split(C, dim=2)
            q = q.view(B, T, attn.heads, C // attn.heads).transpose(1, 2)
            k = k.view(B, T, attn.heads, C // attn.heads).transpose(1, 2)
            v = v.view(B, T, attn.heads, C // attn.heads).transpose(1, 2)
            k_cache[i][:, :, P:S] = k
            v_cache[i][:, :, P:S] = v
            keys = k_cache[i][:, :, :S]
            values = v_cache[i][:, :, :S]
            att = (q @ keys.transpose(-2, -1)) * (1.0 / math.sqrt(keys.size(-1)))
            att = att.masked_fill(attn.bias[:, :, P:S, :S] == 0, float("-inf"))
            y = F.softmax(att, dim=-1) @ values
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            x = x + attn.c_proj(y)
            x = x + block.mlp(block.ln_2(x))
        return self.lm_head(self.ln_f(x)), k_cache, v_cache

    def static_cache(self, batch=1):
        c = self.cfg
        shape = (c.layers, batch, c.heads, c.ctx, c.dim // c.heads)
        return torch.zeros(shape), torch.zeros(shape)


# -- Llama ---------------------------------------------------------------------

class LlamaConfig:
    def __init__(self, vocab=32000, ctx=2048, layers=4, heads=8, kv_heads=2,
                 dim=256, hidden=688, eps=1e-5, theta=10000.0):
        self.vocab, self.ctx, self.layers, self.heads = vocab, ctx, layers, heads
        self.kv_heads, self.dim, self.hidden, self.eps, self.theta = \
            kv_heads, dim, hidden, eps, theta


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        x32 = x.float()
        normed = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        return normed.type_as(x) * self.weight


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary(q, k, cos, sin):
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def repeat_kv(x, n):
    """(B, kv_heads, S, D) -> (B, kv_heads * n, S, D), as Llama's repeat_kv."""
    if n == 1:
        return x
    B, H, S, D = x.shape
    return x[:, :, None, :, :].expand(B, H, n, S, D).reshape(B, H * n, S, D)


class LlamaAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.heads, self.kv_heads = cfg.heads, cfg.kv_heads
        self.head_dim = cfg.dim // cfg.heads
        self.q_proj = nn.Linear(cfg.dim, cfg.heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(cfg.dim, cfg.kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(cfg.dim, cfg.kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(cfg.heads * self.head_dim, cfg.dim, bias=False)

    def forward(self, x, cos, sin, mask, k_past, v_past):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.kv_heads, self.head_dim).transpose(1, 2)
        q, k = apply_rotary(q, k, cos, sin)
        k = torch.cat([k_past, k], dim=2)
        v = torch.cat([v_past, v], dim=2)
        n = self.heads // self.kv_heads
        att = torch.matmul(q, repeat_kv(k, n).transpose(2, 3)) / math.sqrt(self.head_dim)
        att = F.softmax(att + mask, dim=-1)
        y = torch.matmul(att, repeat_kv(v, n))
        y = y.transpose(1, 2).reshape(B, T, self.heads * self.head_dim)
        return self.o_proj(y), k, v


class LlamaMLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.gate_proj = nn.Linear(cfg.dim, cfg.hidden, bias=False)
        self.up_proj = nn.Linear(cfg.dim, cfg.hidden, bias=False)
        self.down_proj = nn.Linear(cfg.hidden, cfg.dim, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class LlamaLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.input_layernorm = RMSNorm(cfg.dim, cfg.eps)
        self.self_attn = LlamaAttention(cfg)
        self.post_attention_layernorm = RMSNorm(cfg.dim, cfg.eps)
        self.mlp = LlamaMLP(cfg)

    def forward(self, x, cos, sin, mask, k_past, v_past):
        a, k, v = self.self_attn(self.input_layernorm(x), cos, sin, mask, k_past, v_past)
        x = x + a
        return x + self.mlp(self.post_attention_layernorm(x)), k, v


class Llama(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.embed_tokens = nn.Embedding(cfg.vocab, cfg.dim)
        self.layers = nn.ModuleList([LlamaLayer(cfg) for _ in range(cfg.layers)])
        self.norm = RMSNorm(cfg.dim, cfg.eps)
        self.lm_head = nn.Linear(cfg.dim, cfg.vocab, bias=False)
        head_dim = cfg.dim // cfg.heads
        inv_freq = 1.0 / (cfg.theta ** (torch.arange(0, head_dim, 2).float() / head_dim))
        t = torch.arange(cfg.ctx, dtype=torch.float32)
        freqs = torch.outer(t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def forward(self, ids, k_cache, v_cache):
        T = ids.size(1)
        P = k_cache.size(3)
        S = P + T
        x = self.embed_tokens(ids)
        cos = self.cos_cached[P:S]
        sin = self.sin_cached[P:S]
        mask = torch.full((T, S), float("-inf")).triu(P + 1)
        ks, vs = [], []
        for i, layer in enumerate(self.layers):
            x, k, v = layer(x, cos, sin, mask, k_cache[i], v_cache[i])
            ks.append(k)
            vs.append(v)
        return self.lm_head(self.norm(x)), torch.stack(ks), torch.stack(vs)

    def empty_cache(self, batch=1):
        c = self.cfg
        shape = (c.layers, batch, c.kv_heads, 0, c.dim // c.heads)
        return torch.zeros(shape), torch.zeros(shape)


def randomize(model, seed=0):
    """Random weights everywhere, norms' scales and biases included (a zero
    bias or a unit scale hides mistakes)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() >= 2:
                p.normal_(0.0, 0.02, generator=g)
            else:
                p.uniform_(-0.5, 0.5, generator=g)
                if name.endswith("weight"):
                    p.add_(1.0)
    return model.eval()


def small_gpt(seed=0):
    return randomize(GPT(GPTConfig(vocab=96, ctx=64, layers=2, heads=4, dim=32)), seed)


def small_gpt_static(seed=0):
    return randomize(GPTStaticCache(GPTConfig(vocab=96, ctx=64, layers=2, heads=4, dim=32)), seed)


def small_llama(seed=0):
    return randomize(Llama(LlamaConfig(vocab=96, ctx=64, layers=2, heads=4,
                                       kv_heads=2, dim=32, hidden=64)), seed)
