#!/usr/bin/env python3
"""The physical anchor of the network benchmarks: the same network in PyTorch, timed at the same
batch sizes on the same device, so Burn's figures (`net_bench`) read as a share of what the card
does for this network.

    python3 scripts/torch_anchor.py [--config configs/net-gpu.toml]... [--device cuda|cpu]
        [--batches 1,16,64,256,1024] [--train-batch 256] [--seconds 3]
        [--precision f32,tf32,bf16,f16] [--compile]

The architecture is read from the network config (TOML) and the constants from the Rust
sources (`NUM_PLANES` in nn/src/encoding.rs, `NUM_MOVE_PLANES` in nn/src/policy.rs), so the two
stay the same network: input convolution, residual blocks (optional squeeze-excitation), policy
head (3x3 conv, 1x1 projection to 673 move planes per square, pass logit from pooled
features), value head (WDL) and the optional moves-left and material heads, batch norm after
every convolution. Columns, as net_bench's:
  full pos/s      every policy logit computed and copied to the host;
  heads pos/s     the forward pass without the move projection (what `evaluate_masked` runs on
                  the device), outputs copied to the host;
  train pos/s     one AdamW step on a batch (full policy cross-entropy, WDL cross-entropy, the
                  auxiliary heads' squared errors), in f32 or TF32 (`--precision tf32`), or with
                  bf16/f16 autocast.
Inputs are random 0/1 planes (5% ones), as net_bench's. Prints Markdown tables.
"""
import argparse
import pathlib
import re
import sys
import time

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

ROOT = pathlib.Path(__file__).resolve().parent.parent
SQUARES = 256


def rust_const(path, name, default):
    try:
        m = re.search(rf"pub const {name}: usize = (\d+);", (ROOT / path).read_text())
        return int(m.group(1)) if m else default
    except OSError:
        return default


NUM_PLANES = rust_const("nn/src/encoding.rs", "NUM_PLANES", 121)
NUM_MOVE_PLANES = rust_const("nn/src/policy.rs", "NUM_MOVE_PLANES", 673)


def load_config(path):
    text = pathlib.Path(path).read_text()
    if tomllib:
        return tomllib.loads(text)
    cfg = {}
    for line in text.splitlines():
        m = re.match(r"\s*([a-z_]+)\s*=\s*([^#]+)", line)
        if m:
            v = m.group(2).strip()
            cfg[m.group(1)] = v == "true" if v in ("true", "false") else int(v) if v.isdigit() else v
    return cfg


def build(torch, cfg):
    nn = torch.nn
    c = cfg["channels"]
    k = cfg.get("input_kernel", 3)

    def conv(cin, cout, kernel):
        return nn.Conv2d(cin, cout, kernel, padding=kernel // 2, bias=False)

    class SE(nn.Module):
        def __init__(self, ch, hidden):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(ch, hidden), nn.Linear(hidden, 2 * ch)

        def forward(self, x):
            b, ch = x.shape[:2]
            g = self.fc2(torch.relu(self.fc1(x.mean((2, 3)))))
            return x * torch.sigmoid(g[:, :ch]).view(b, ch, 1, 1) + g[:, ch:].view(b, ch, 1, 1)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1, self.b1, self.c2, self.b2 = conv(c, c, 3), nn.BatchNorm2d(c), conv(c, c, 3), nn.BatchNorm2d(c)
            se = cfg.get("se_ratio", 0)
            self.se = SE(c, max(1, c // se)) if se else None

        def forward(self, x):
            y = self.b2(self.c2(torch.relu(self.b1(self.c1(x)))))
            if self.se is not None:
                y = self.se(y)
            return torch.relu(y + x)

    class Scalar(nn.Module):
        def __init__(self, outputs):
            super().__init__()
            v, h = cfg["value_channels"], cfg["value_hidden"]
            self.conv, self.bn = conv(c, v, 1), nn.BatchNorm2d(v)
            self.fc1, self.fc2 = nn.Linear(v * SQUARES, h), nn.Linear(h, outputs)

        def forward(self, x):
            h = torch.relu(self.bn(self.conv(x)))
            return self.fc2(torch.relu(self.fc1(h.flatten(1))))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            p = cfg["policy_channels"]
            self.inp, self.inp_bn = conv(NUM_PLANES, c, k), nn.BatchNorm2d(c)
            self.blocks = nn.Sequential(*[Block() for _ in range(cfg["blocks"])])
            self.pconv, self.pbn = conv(c, p, 3), nn.BatchNorm2d(p)
            self.moves = nn.Conv2d(p, NUM_MOVE_PLANES, 1)  # the 1x1 projection, with bias
            self.pass_ = nn.Linear(p, 1)
            self.value = Scalar(3)
            self.moves_left = Scalar(1) if cfg.get("moves_left_head") else None
            self.material = Scalar(1) if cfg.get("material_head") else None

        def heads(self, x):
            x = self.blocks(torch.relu(self.inp_bn(self.inp(x))))
            f = torch.relu(self.pbn(self.pconv(x)))
            out = [f, self.pass_(f.mean((2, 3))), self.value(x)]
            out += [h(x) for h in (self.moves_left, self.material) if h is not None]
            return out

        def forward(self, x):
            f, *rest = self.heads(x)
            # Square-major like the Rust network: [B, 256 * planes].
            moves = self.moves(f).permute(0, 2, 3, 1).reshape(x.shape[0], SQUARES * NUM_MOVE_PLANES)
            return [moves] + rest

    return Net()


def rate(seconds, fn, sync, minimum=2):
    fn()
    sync()
    n, start = 0, time.perf_counter()
    while n < minimum or time.perf_counter() - start < seconds:
        fn()
        n += 1
    sync()
    return n / (time.perf_counter() - start)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", action="append")
    ap.add_argument("--device", default=None, help="cuda or cpu (default: cuda when available)")
    ap.add_argument("--batches", default="1,16,64,256,1024")
    ap.add_argument("--train-batch", type=int, default=256)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--precision", default="f32,tf32,bf16")
    ap.add_argument("--compile", action="store_true", help="torch.compile the model (slow first call)")
    ap.add_argument("--no-train", action="store_true")
    a = ap.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("error: PyTorch is not installed (pip install torch)")
    configs = a.config or [str(ROOT / "configs/net-gpu.toml")]
    dev = torch.device(a.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    try:
        batches = [int(b) for b in a.batches.split(",")]
    except ValueError:
        sys.exit(f"error: --batches {a.batches!r}: expected comma-separated integers")
    precisions = a.precision.split(",")
    for p in precisions:
        if p not in ("f32", "tf32", "bf16", "f16"):
            sys.exit(f"error: --precision {p!r}: expected f32, tf32, bf16 or f16")
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "CPU"
    print(f"PyTorch {torch.__version__} on {dev} ({name}); NUM_PLANES = {NUM_PLANES}, NUM_MOVE_PLANES = {NUM_MOVE_PLANES}")
    n = 2048
    for p in ("f32", "tf32"):
        torch.backends.cuda.matmul.allow_tf32 = p == "tf32"
        x = torch.rand(n, n, device=dev)
        r = rate(a.seconds / 2, lambda: x @ x, sync)
        print(f"{p} matmul ({n}x{n}): {r * 2 * n**3 / 1e9:.1f} GFLOP/s")
    print()
    print("| config | precision | batch | full pos/s | heads pos/s |")
    print("|---|---|---|---|---|")
    train_rows = []
    for path in configs:
        cfg = load_config(path)
        cname = pathlib.Path(path).name
        for p in precisions:
            tf32 = p == "tf32"
            torch.backends.cuda.matmul.allow_tf32 = tf32
            torch.backends.cudnn.allow_tf32 = tf32
            torch.manual_seed(1)
            net = build(torch, cfg).to(dev)
            dtype = {"bf16": torch.bfloat16, "f16": torch.float16}.get(p, torch.float32)
            model = net.eval().to(dtype)
            heads = model.heads
            full = model
            if a.compile:
                full, heads = torch.compile(model), torch.compile(model.heads)
            with torch.inference_mode():
                for b in batches:
                    x = (torch.rand(b, NUM_PLANES, 16, 16, device=dev) < 0.05).to(dtype)
                    f = b * rate(a.seconds, lambda: [t.float().cpu() for t in full(x)], sync)
                    h = b * rate(a.seconds, lambda: [t.float().cpu() for t in heads(x)], sync)
                    print(f"| {cname} | {p} | {b} | {f:.0f} | {h:.0f} |", flush=True)
            if a.no_train:
                continue
            torch.manual_seed(1)
            net = build(torch, cfg).to(dev).train()
            opt = torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-4)
            b = a.train_batch
            x = (torch.rand(b, NUM_PLANES, 16, 16, device=dev) < 0.05).float()
            target = torch.randint(0, SQUARES * NUM_MOVE_PLANES, (b,), device=dev)
            wdl = torch.randint(0, 3, (b,), device=dev)
            aux = torch.randn(b, 1, device=dev)
            autocast = dtype != torch.float32 and dev.type == "cuda"

            def step():
                opt.zero_grad(set_to_none=True)
                with torch.autocast(dev.type, dtype=dtype, enabled=autocast):
                    moves, _pass, value, *rest = net(x)
                    loss = torch.nn.functional.cross_entropy(moves.float(), target)
                    loss = loss + torch.nn.functional.cross_entropy(value.float(), wdl)
                    for r in rest:
                        loss = loss + 0.1 * torch.nn.functional.mse_loss(r.float(), aux)
                loss.backward()
                opt.step()

            train_rows.append((cname, p, b, b * rate(a.seconds, step, sync)))
    if train_rows:
        print("\n| config | precision | train batch | train pos/s |")
        print("|---|---|---|---|")
        for cname, p, b, r in train_rows:
            print(f"| {cname} | {p} | {b} | {r:.0f} |")


if __name__ == "__main__":
    main()
