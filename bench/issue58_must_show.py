"""Issue 58's "Must show", as one script: PYTHONPATH=build/python /usr/bin/python3 bench/issue58_must_show.py"""
import collections, warnings, torch, traced, numpy as np
warnings.simplefilter("ignore", traced.TracerWarning)
class Branch(torch.nn.Module):
    def forward(self, x):
        y = x * 3
        if x.sum() > 0: y = y * 2
        else: y = y - 1
        return y
class Where(torch.nn.Module):
    def forward(self, x):
        y = x * 3
        return torch.where(x.sum() > 0, y * 2, y - 1)
m = traced.trace(Branch(), torch.ones(4)); c = traced.compile(m)
for name, f in (("interpret", m.interpret), ("compiled", c)):
    try: f(-np.ones(4, np.float32)); print(name, "NO ERROR")
    except traced.Error as e: print(name, "raises:", str(e).splitlines()[0][-110:])
w = traced.trace(Where(), torch.ones(4)); cw = traced.compile(w)
print("where: guards in graph:", "torch._assert" in str(w))
for x in (torch.ones(4), -torch.ones(4)):
    torch.testing.assert_close(w.interpret(x)[0], Where()(x)); torch.testing.assert_close(cw(x), Where()(x))
print("where matches torch interpreted and compiled on ones and minus ones")
class CopyView(torch.nn.Module):
    def forward(self, x, y):
        x = x.clone(); x[2:6].copy_(y); return x
class MulView(torch.nn.Module):
    def forward(self, x):
        x = x.clone(); v = x.view(-1); v.mul_(2); return x + 1
for mod, ins in ((CopyView(), (torch.randn(8), torch.randn(4))), (MulView(), (torch.randn(3, 4),))):
    for mode in ("symbolic", "concrete"):
        tm = traced.trace(mod, *ins, mode=mode)
        torch.testing.assert_close(tm.interpret(*ins)[0], mod(*ins))
        torch.testing.assert_close(traced.compile(tm)(*ins), mod(*ins))
    print(type(mod).__name__, "matches torch, interpreted and compiled, symbolic and concrete")
class KW(torch.nn.Module):
    def forward(self, ids, attention_mask=None):
        return ids * attention_mask
ids, am = torch.randn(2, 3), torch.ones(2, 3)
km = traced.trace(KW(), ids, attention_mask=am)
torch.testing.assert_close(traced.compile(km)(ids, attention_mask=am), KW()(ids, attention_mask=am)); print("keyword args: traced, compiled, match")
def fn(x, w): return torch.relu(x @ w)
fm = traced.trace(fn, torch.randn(2, 3), torch.randn(3, 4)); print("function: graph", fm.root_name, "trace_mode", fm.trace_mode)
NT = collections.namedtuple("NT", "a b")
class Named(torch.nn.Module):
    def forward(self, x): return NT(x + 1, x * 2)
nm = traced.trace(Named(), torch.randn(3)); print("namedtuple outputs:", len(nm.interpret(np.ones(3, np.float32))))
class S(torch.nn.Module):
    def forward(self, x, scale: float = 1.0): return x * scale
sm = traced.trace(S(), torch.ones(3), 2.0, mode="symbolic"); print("python scalar compiled with 3.0:", traced.compile(sm)(torch.ones(3), 3.0))
class J(torch.nn.Module):
    def __init__(self): super().__init__(); self.l = torch.nn.Linear(3, 2)
    def forward(self, x): return torch.relu(self.l(x))
jm = torch.jit.script(J()); x = torch.randn(4, 3)
t = traced.trace(jm, x); torch.testing.assert_close(t.interpret(x)[0], jm(x)); print("jit.script: traced, interpreted, matches")
