"""A generation loop for causal language models traced with a growing
sequence (docs/llm.md).

The model's forward takes `(ids, *cache)` and returns `(logits, *cache)`
(or `(ids, attention_mask, *cache)` with a preallocated cache):
`ids` is (batch, T) token ids, each cache tensor holds the P tokens seen so
far along a dim traced as dynamic ("past"), and the returned caches hold
P + T. One compiled module serves the prefill (the whole prompt, P = 0) and
every decode step (T = 1), as `traced.trace(..., dynamic_dims=...)` with
dynamic "seq" and "past" dims makes it.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np
import torch

from .errors import InputError


def empty_cache(compiled, batch: int, skip: int = 1) -> list:
    """Zero-length caches for `compiled` (a CompiledModule): one array per
    input after the ids (and the attention mask, `skip` 2), of the traced
    shapes, with each dynamic dim of a name the ids do not carry (the past)
    at 0 and those the ids carry (a dynamic batch) at the ids' size; a
    preallocated cache (static shape) is all zeros."""
    slots = getattr(compiled, "_dim_slots", None)
    specs = getattr(compiled, "input_specs", None)
    if not specs or slots is None or len(specs) <= skip:
        raise InputError("traced.generate needs a module compiled from a "
                         "trace with ids and cache inputs and dynamic dims "
                         "(docs/llm.md)")
    ids_names = {name: d for d, name in slots[0]}
    caches = []
    for (shape, dtype), dims in zip(specs[skip:], slots[skip:]):
        named = dict(dims)
        size = [batch if named.get(d) in ids_names and ids_names[named[d]] == 0
                else (0 if s == -1 else s) for d, s in enumerate(shape)]
        caches.append(np.zeros(size, dtype=dtype))
    return caches


def generate(model: Any, prompt: Any, max_new_tokens: int, *,
             cache: Optional[Sequence[Any]] = None, top_k: Optional[int] = None,
             temperature: float = 1.0, seed: Optional[int] = None,
             eos_token: Optional[int] = None,
             attention_mask: Optional[bool] = None) -> torch.Tensor:
    """Extends `prompt` ((batch, T) token ids) by `max_new_tokens` tokens:
    greedy (the most likely token; `top_k=None`) or sampled among the
    `top_k` most likely at `temperature` (torch.multinomial with a
    generator seeded by `seed`). `model` is a CompiledModule (its empty
    cache comes from its signature) or any callable of the same convention
    (a traced Module's `interpret`, the torch module) given `cache`. The
    prompt runs once (prefill), then one token a call (decode). Stops early
    when every sequence has produced `eos_token`. Returns the ids, prompt
    included, as a torch int64 tensor.

    A model whose second input is `attention_mask` (None: told by the
    compiled module's input names; True or False says) keeps a
    preallocated cache, `(ids, attention_mask, *cache) -> (logits,
    *cache)` (llm_models.GPTStaticCache, docs/llm.md "KV caches"): each
    call gets a mask of ones over the tokens seen, and the caches start as
    zeros of their traced shapes (compiled with `donate=`, updated in
    place)."""
    ids = torch.as_tensor(np.asarray(prompt), dtype=torch.int64)
    if ids.dim() != 2 or ids.shape[1] == 0:
        raise InputError(f"the prompt must be (batch, T) token ids with T >= 1, "
                         f"got shape {tuple(ids.shape)}")
    if max_new_tokens < 0:
        raise InputError("max_new_tokens must be >= 0")
    if top_k is not None and top_k < 1:
        raise InputError("top_k must be >= 1 (or None for greedy)")
    if temperature <= 0:
        raise InputError("temperature must be positive")
    if attention_mask is None:
        names = getattr(model, "input_names", None) or []
        attention_mask = len(names) > 1 and names[1] == "attention_mask"
    state = list(cache) if cache is not None else \
        empty_cache(model, ids.shape[0], 2 if attention_mask else 1)
    # The mask's dtype is the compiled input's (HF masks are int64), else
    # float32.
    specs = getattr(model, "input_specs", None)
    mask_dtype = specs[1][1] if attention_mask and specs and len(specs) > 1 \
        else np.float32
    generator = torch.Generator().manual_seed(seed) if seed is not None else None
    out = ids
    step = ids
    done = torch.zeros(ids.shape[0], dtype=torch.bool)
    for _ in range(max_new_tokens):
        # (The mask of a preallocated cache: ones over the tokens seen,
        # the new ones included; its length is the model's P + T.)
        mask = (np.ones((ids.shape[0], out.shape[1]), mask_dtype),) \
            if attention_mask else ()
        result = model(step.numpy(), *mask, *state)
        logits, state = result[0], list(result[1:])
        last = torch.as_tensor(np.asarray(logits))[:, -1, :].to(torch.float32)
        if top_k is None:
            token = last.argmax(-1)
        else:
            values, indices = torch.topk(last / temperature,
                                         min(top_k, last.shape[-1]), dim=-1)
            probs = torch.softmax(values, dim=-1)
            token = indices.gather(
                -1, torch.multinomial(probs, 1, generator=generator)).squeeze(-1)
        if eos_token is not None:
            token = torch.where(done, torch.full_like(token, eos_token), token)
            done |= token == eos_token
        step = token[:, None]
        out = torch.cat([out, step], dim=1)
        if eos_token is not None and bool(done.all()):
            break
    return out
