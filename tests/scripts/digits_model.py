#!/usr/bin/python3
"""digits_model.py OUT_DIR
Trains a small CNN on sklearn's handwritten digits (load_digits: 1797 8x8 images, fixed split and seeds) with
PyTorch and writes, for the quantization end-to-end test (tests/scripts/digits_quantize.sh):
  OUT_DIR/digits.onnx          the trained model (input 'input' Nx1x8x8 float32, output 'logits' Nx10)
  OUT_DIR/calib/NNN.npz        200 training samples for calibration (key 'input')
  OUT_DIR/test.npz             the held-out images ('input', N x 1 x 8 x 8 float32), OUT_DIR/test_labels.npy
  OUT_DIR/sample.npz           one held-out sample, OUT_DIR/float_torch.txt PyTorch's held-out accuracy
Pixels are scaled to [0, 1] (load_digits gives 0..16)."""
import os
import sys

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split


class DigitsNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 16, 3, padding=1)
        self.bn1 = torch.nn.BatchNorm2d(16)
        self.conv2 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(2)
        self.conv3 = torch.nn.Conv2d(32, 32, 3, padding=1)
        self.gap = torch.nn.AdaptiveAvgPool2d(1)
        self.fc1 = torch.nn.Linear(32, 32)
        self.fc2 = torch.nn.Linear(32, 10)

    def forward(self, x):
        x = torch.relu(self.bn1(self.conv1(x)))
        x = self.pool(torch.nn.functional.silu(self.conv2(x)))
        y = torch.relu(self.conv3(x))
        x = self.gap(x + y)  # a residual add and an average pool
        x = torch.flatten(x, 1)
        x = torch.sigmoid(self.fc1(x)) * x  # a sigmoid (table) and a two-tensor multiply
        return self.fc2(x)


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "calib"), exist_ok=True)
    torch.manual_seed(0)
    np.random.seed(0)
    torch.use_deterministic_algorithms(True)
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    y = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.4, random_state=0, stratify=y)
    model = DigitsNet()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    gen = torch.Generator().manual_seed(1)
    for _epoch in range(30):
        model.train()
        perm = torch.randperm(len(xt), generator=gen)
        for i in range(0, len(xt), 32):
            idx = perm[i:i + 32]
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        acc = float((model(torch.from_numpy(x_test)).argmax(1).numpy() == y_test).mean())
        torch.onnx.export(model, torch.from_numpy(x_test[:1]), os.path.join(out, "digits.onnx"), opset_version=13,
                          input_names=["input"], output_names=["logits"], do_constant_folding=True,
                          dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})
    for i in range(200):
        np.savez(os.path.join(out, "calib", f"{i:03d}.npz"), input=x_train[i:i + 1])
    np.savez(os.path.join(out, "test.npz"), input=x_test)
    np.save(os.path.join(out, "test_labels.npy"), y_test)
    np.savez(os.path.join(out, "sample.npz"), input=x_test[:1])
    with open(os.path.join(out, "float_torch.txt"), "w") as f:
        f.write(f"{acc:.6f}\n")
    print(f"digits CNN: held-out accuracy {acc * 100:.2f}% on {len(y_test)} images (PyTorch)")


if __name__ == "__main__":
    main()
