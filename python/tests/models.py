"""The models the tests trace (random weights, no download)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision


class Call(nn.Module):
    """A module whose forward calls `fn` on its inputs: one op under test."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


class Fn1(nn.Module):
    """A module calling `fn` on its one input."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, a):
        return self.fn(a)


class Fn2(Fn1):
    """The same on two inputs."""

    def forward(self, a, b):
        return self.fn(a, b)


class SimpleModule(nn.Module):
    """Seed 000's SimpleModule, in PyTorch."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 5)
        self.param = nn.Parameter(torch.tensor([1.0]))

    def forward(self, x):
        x = x + torch.tensor([1.0])
        x = F.relu(x)
        return self.linear(x + self.param)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class BoxHead(nn.Module):
    """Seed 001's detection box branch: relu(conv(x) * scale) / stride."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 4, 3, padding=1)
        self.register_buffer("scale", torch.tensor([1.5]))
        self.register_buffer("stride", torch.tensor([8.0]))

    def forward(self, x):
        return F.relu(self.conv(x) * self.scale) / self.stride


def randomize_batchnorm(model):
    """Running statistics and affine parameters away from their initial
    values, so that a wrongly loaded or skipped BatchNorm shows."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.modules.batchnorm._BatchNorm):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.5, 0.5)
    return model


def real_models():
    """name -> (module in eval mode, example input)."""
    return {
        "simple_module": (SimpleModule().eval(), torch.zeros(3, 4)),
        "mlp": (MLP().eval(), torch.randn(8, 16)),
        "resnet18": (torchvision.models.resnet18().eval(),
                     torch.randn(1, 3, 224, 224)),
        "mobilenet_v2": (torchvision.models.mobilenet_v2().eval(),
                         torch.randn(1, 3, 224, 224)),
        "transformer_encoder_layer": (
            nn.TransformerEncoderLayer(64, 4, 128, batch_first=True).eval(),
            torch.randn(2, 7, 64)),
    }
