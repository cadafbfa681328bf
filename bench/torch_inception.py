"""inception_resnet_v2 and inception_v4 as plain PyTorch modules with timm's state_dict keys,
for the CPU peer benchmark (bench/cpu_peer.py) on machines where timm is not installed (Debian
ships PyTorch, not timm). Written from ../shared/reference/architectures.md, not from timm's
source: eager PyTorch, Conv2d without bias + BatchNorm2d(eps=1e-3) + ReLU per conv unit, as a
PyTorch user runs these models. A snapshot loads with load_state_dict(strict=True), so a key or
shape that differs from timm's fails loudly; cpu_peer.py also compares the logits with infer8's.
inception_v3 comes from torchvision (same keys as timm's)."""
import torch
from torch import nn
import torch.nn.functional as F


class CBR(nn.Module):
    """timm ConvNormAct: .conv (no bias) and .bn (eps 1e-3), ReLU after."""

    def __init__(self, cin, cout, k, s=1, p=0):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, s, p, bias=False)
        self.bn = nn.BatchNorm2d(cout, eps=1e-3)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


def seq(*mods):
    return nn.Sequential(*mods)


def avg_pool():
    return nn.AvgPool2d(3, 1, 1, count_include_pad=False)


def max_pool():
    return nn.MaxPool2d(3, 2)


class Branches(nn.Module):
    """Named branches run on the same input, concatenated in the given order."""

    def __init__(self, **branches):
        super().__init__()
        self.order = list(branches)
        for name, mod in branches.items():
            setattr(self, name, mod)

    def forward(self, x):
        return torch.cat([getattr(self, n)(x) for n in self.order], 1)


# ---- inception_resnet_v2 ----

class Residual(Branches):
    """Block35 / Block17 / Block8: out = act(x + scale * conv2d(cat(branches)))."""

    def __init__(self, scale, relu, cat, cout, **branches):
        super().__init__(**branches)
        self.scale, self.relu = scale, relu
        self.conv2d = nn.Conv2d(cat, cout, 1, bias=True)

    def forward(self, x):
        y = x + self.scale * self.conv2d(super().forward(x))
        return F.relu(y) if self.relu else y


def block35():
    return Residual(0.17, True, 128, 320, branch0=CBR(320, 32, 1), branch1=seq(CBR(320, 32, 1), CBR(32, 32, 3, 1, 1)),
                    branch2=seq(CBR(320, 32, 1), CBR(32, 48, 3, 1, 1), CBR(48, 64, 3, 1, 1)))


def block17():
    return Residual(0.10, True, 384, 1088, branch0=CBR(1088, 192, 1),
                    branch1=seq(CBR(1088, 128, 1), CBR(128, 160, (1, 7), 1, (0, 3)), CBR(160, 192, (7, 1), 1, (3, 0))))


def block8(scale=0.20, relu=True):
    return Residual(scale, relu, 448, 2080, branch0=CBR(2080, 192, 1),
                    branch1=seq(CBR(2080, 192, 1), CBR(192, 224, (1, 3), 1, (0, 1)), CBR(224, 256, (3, 1), 1, (1, 0))))


class InceptionResnetV2(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.conv2d_1a = CBR(3, 32, 3, 2)
        self.conv2d_2a = CBR(32, 32, 3)
        self.conv2d_2b = CBR(32, 64, 3, 1, 1)
        self.maxpool_3a = max_pool()
        self.conv2d_3b = CBR(64, 80, 1)
        self.conv2d_4a = CBR(80, 192, 3)
        self.maxpool_5a = max_pool()
        self.mixed_5b = Branches(branch0=CBR(192, 96, 1), branch1=seq(CBR(192, 48, 1), CBR(48, 64, 5, 1, 2)),
                                 branch2=seq(CBR(192, 64, 1), CBR(64, 96, 3, 1, 1), CBR(96, 96, 3, 1, 1)),
                                 branch3=seq(avg_pool(), CBR(192, 64, 1)))
        self.repeat = seq(*[block35() for _ in range(10)])
        self.mixed_6a = Branches(branch0=CBR(320, 384, 3, 2),
                                 branch1=seq(CBR(320, 256, 1), CBR(256, 256, 3, 1, 1), CBR(256, 384, 3, 2)),
                                 branch2=max_pool())
        self.repeat_1 = seq(*[block17() for _ in range(20)])
        self.mixed_7a = Branches(branch0=seq(CBR(1088, 256, 1), CBR(256, 384, 3, 2)),
                                 branch1=seq(CBR(1088, 256, 1), CBR(256, 288, 3, 2)),
                                 branch2=seq(CBR(1088, 256, 1), CBR(256, 288, 3, 1, 1), CBR(288, 320, 3, 2)),
                                 branch3=max_pool())
        self.repeat_2 = seq(*[block8() for _ in range(9)])
        self.block8 = block8(1.0, False)
        self.conv2d_7b = CBR(2080, 1536, 1)
        self.classif = nn.Linear(1536, num_classes)

    def forward(self, x):
        for name in ("conv2d_1a", "conv2d_2a", "conv2d_2b", "maxpool_3a", "conv2d_3b", "conv2d_4a", "maxpool_5a",
                     "mixed_5b", "repeat", "mixed_6a", "repeat_1", "mixed_7a", "repeat_2", "block8", "conv2d_7b"):
            x = getattr(self, name)(x)
        return self.classif(x.mean((2, 3)))


# ---- inception_v4 ----

def inception_a():
    return Branches(branch0=CBR(384, 96, 1), branch1=seq(CBR(384, 64, 1), CBR(64, 96, 3, 1, 1)),
                    branch2=seq(CBR(384, 64, 1), CBR(64, 96, 3, 1, 1), CBR(96, 96, 3, 1, 1)),
                    branch3=seq(avg_pool(), CBR(384, 96, 1)))


def inception_b():
    r17, r71 = dict(p=(0, 3)), dict(p=(3, 0))
    return Branches(branch0=CBR(1024, 384, 1),
                    branch1=seq(CBR(1024, 192, 1), CBR(192, 224, (1, 7), **r17), CBR(224, 256, (7, 1), **r71)),
                    branch2=seq(CBR(1024, 192, 1), CBR(192, 192, (7, 1), **r71), CBR(192, 224, (1, 7), **r17),
                                CBR(224, 224, (7, 1), **r71), CBR(224, 256, (1, 7), **r17)),
                    branch3=seq(avg_pool(), CBR(1024, 128, 1)))


class InceptionC(nn.Module):
    def __init__(self):
        super().__init__()
        self.branch0 = CBR(1536, 256, 1)
        self.branch1_0 = CBR(1536, 384, 1)
        self.branch1_1a = CBR(384, 256, (1, 3), 1, (0, 1))
        self.branch1_1b = CBR(384, 256, (3, 1), 1, (1, 0))
        self.branch2_0 = CBR(1536, 384, 1)
        self.branch2_1 = CBR(384, 448, (3, 1), 1, (1, 0))
        self.branch2_2 = CBR(448, 512, (1, 3), 1, (0, 1))
        self.branch2_3a = CBR(512, 256, (1, 3), 1, (0, 1))
        self.branch2_3b = CBR(512, 256, (3, 1), 1, (1, 0))
        self.branch3 = seq(avg_pool(), CBR(1536, 256, 1))

    def forward(self, x):
        b1 = self.branch1_0(x)
        b2 = self.branch2_2(self.branch2_1(self.branch2_0(x)))
        return torch.cat([self.branch0(x), self.branch1_1a(b1), self.branch1_1b(b1), self.branch2_3a(b2),
                          self.branch2_3b(b2), self.branch3(x)], 1)


class InceptionV4(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.features = seq(
            CBR(3, 32, 3, 2), CBR(32, 32, 3), CBR(32, 64, 3, 1, 1),
            Branches(maxpool=max_pool(), conv=CBR(64, 96, 3, 2)),
            Branches(branch0=seq(CBR(160, 64, 1), CBR(64, 96, 3)),
                     branch1=seq(CBR(160, 64, 1), CBR(64, 64, (1, 7), 1, (0, 3)), CBR(64, 64, (7, 1), 1, (3, 0)),
                                 CBR(64, 96, 3))),
            Branches(conv=CBR(192, 192, 3, 2), maxpool=max_pool()),
            *[inception_a() for _ in range(4)],
            Branches(branch0=CBR(384, 384, 3, 2),
                     branch1=seq(CBR(384, 192, 1), CBR(192, 224, 3, 1, 1), CBR(224, 256, 3, 2)),
                     branch2=max_pool()),
            *[inception_b() for _ in range(7)],
            Branches(branch0=seq(CBR(1024, 192, 1), CBR(192, 192, 3, 2)),
                     branch1=seq(CBR(1024, 256, 1), CBR(256, 256, (1, 7), 1, (0, 3)), CBR(256, 320, (7, 1), 1, (3, 0)),
                                 CBR(320, 320, 3, 2)),
                     branch2=max_pool()),
            *[InceptionC() for _ in range(3)])
        self.last_linear = nn.Linear(1536, num_classes)

    def forward(self, x):
        return self.last_linear(self.features(x).mean((2, 3)))


def build(arch):
    if arch == "inception_resnet_v2":
        return InceptionResnetV2()
    if arch == "inception_v4":
        return InceptionV4()
    raise ValueError(f"no plain-PyTorch model for {arch}")
