#!/usr/bin/python3
"""Writes small hand-encoded ONNX models (protobuf wire format, no onnx package needed):
  corpus/onnx/fold_*.onnx      seeds whose constants are folded at import (ConstantOfShape, Expand, Tile, Range,
                               Resize, EyeLike, Concat), to steer the ONNX fuzzer at the import-time folding;
  regressions/*.onnx           the hostile inputs of issue 13: the same ops asked for a 4 TB result.
Run from anywhere: /usr/bin/python3 tests/fuzz/make_onnx_seeds.py"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


class Pb:
    def __init__(self):
        self.b = bytearray()

    def _raw(self, v):
        v &= (1 << 64) - 1  # negative int64 as two's complement, as protobuf does
        while True:
            x = v & 0x7F
            v >>= 7
            self.b.append(x | 0x80 if v else x)
            if not v:
                return

    def _key(self, field, wire):
        self._raw(field << 3 | wire)

    def varint(self, field, v):
        self._key(field, 0)
        self._raw(v)
        return self

    def bytes(self, field, data):
        if isinstance(data, str):
            data = data.encode()
        if isinstance(data, Pb):
            data = bytes(data.b)
        self._key(field, 2)
        self._raw(len(data))
        self.b += data
        return self

    def f32(self, field, f):
        self._key(field, 5)
        self.b += struct.pack("<f", f)
        return self


FLOAT, INT64 = 1, 7


def value_info(name, dims, elem=FLOAT):
    shape = Pb()
    for d in dims:
        shape.bytes(1, Pb().varint(1, d))
    return Pb().bytes(1, name).bytes(2, Pb().bytes(1, Pb().varint(1, elem).bytes(2, shape)))


def tensor(name, dims, values, elem):
    t = Pb()
    for d in dims:
        t.varint(1, d)
    t.varint(2, elem)
    for v in values:
        if elem == FLOAT:
            t.f32(4, v)
        else:
            t.varint(7, v)
    return t.bytes(8, name)


def node(op, inputs, outputs, attrs=()):
    n = Pb()
    for i in inputs:
        n.bytes(1, i)
    for o in outputs:
        n.bytes(2, o)
    n.bytes(3, outputs[0]).bytes(4, op)
    for a in attrs:
        n.bytes(5, a)
    return n


def float_attr(name, f):
    return Pb().bytes(1, name).f32(2, f).varint(20, 1)


def int_attr(name, i):
    return Pb().bytes(1, name).varint(3, i).varint(20, 2)


def model(nodes, initializers, inputs, outputs, opset=13):
    g = Pb()
    for n in nodes:
        g.bytes(1, n)
    g.bytes(2, "g")
    for t in initializers:
        g.bytes(5, t)
    for i in inputs:
        g.bytes(11, i)
    for o in outputs:
        g.bytes(12, o)
    m = Pb().varint(1, 8).bytes(8, Pb().bytes(1, "").varint(2, opset)).bytes(7, g)
    return bytes(m.b)


def constant_of_shape(shape):
    return model([node("ConstantOfShape", ["s"], ["y"])], [tensor("s", [len(shape)], shape, INT64)], [],
                 [value_info("y", shape)])


def expand(shape):
    return model([node("Expand", ["c", "s"], ["y"])],
                 [tensor("c", [1], [2.0], FLOAT), tensor("s", [len(shape)], shape, INT64)], [], [value_info("y", shape)])


def expand_input(shape):  # run-time input: nothing is folded, the level check at import refuses the result
    return model([node("Expand", ["x", "s"], ["y"])], [tensor("s", [len(shape)], shape, INT64)],
                 [value_info("x", [1])], [value_info("y", shape)])


def tile(reps):
    return model([node("Tile", ["c", "r"], ["y"])],
                 [tensor("c", [2], [1.0, 2.0], FLOAT), tensor("r", [1], reps, INT64)], [], [value_info("y", [2 * reps[0]])])


def range_(limit):
    return model([node("Range", ["a", "b", "d"], ["y"])],
                 [tensor("a", [], [0], INT64), tensor("b", [], [limit], INT64), tensor("d", [], [1], INT64)], [],
                 [value_info("y", [limit], INT64)], opset=11)


def resize(scale):
    # Not 4-D, so the matrix form (resizeGeneral) is taken.
    return model([node("Resize", ["x", "", "sc"], ["y"], [Pb().bytes(1, "mode").bytes(4, "linear").varint(20, 3)])],
                 [tensor("sc", [2], [1.0, scale], FLOAT)], [value_info("x", [1, 4])],
                 [value_info("y", [1, int(4 * scale)])])


def eyelike_concat():
    return model([node("EyeLike", ["c"], ["e"]), node("Concat", ["e", "e"], ["y"], [int_attr("axis", 0)])],
                 [tensor("c", [2, 3], [0.0] * 6, FLOAT)], [], [value_info("y", [4, 3])])


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    seeds = {
        "fold_constantofshape.onnx": constant_of_shape([2, 3]),
        "fold_expand.onnx": expand([2, 3]),
        "expand_input.onnx": expand_input([2, 3]),
        "fold_tile.onnx": tile([3]),
        "fold_range.onnx": range_(5),
        "resize_general.onnx": resize(2.0),
        "fold_eyelike_concat.onnx": eyelike_concat(),
    }
    for name, data in seeds.items():
        write(os.path.join(HERE, "corpus", "onnx", name), data)
    huge = [100000, 100000, 100]  # 1e12 elements, 4 TB of float32: issue 13's second input
    hostile = {
        "constantofshape_4tb.onnx": constant_of_shape(huge),
        "expand_4tb.onnx": expand(huge),
        "expand_input_4tb.onnx": expand_input(huge),
        "tile_4tb.onnx": tile([500000000000]),
        "range_1e12.onnx": range_(1000000000000),
        "resize_huge.onnx": resize(1e12),
        # An initializer whose dims claim 1e12 floats while it holds one.
        "initializer_4tb.onnx": model([node("Identity", ["w"], ["y"])], [tensor("w", huge, [1.0], FLOAT)], [],
                                      [value_info("y", huge)]),
    }
    for name, data in hostile.items():
        write(os.path.join(HERE, "regressions", name), data)


if __name__ == "__main__":
    main()
