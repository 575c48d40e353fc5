"""Make the piece model's last block teachable at run time (developer step, needs `onnx`).

    .venv/bin/pip install onnx
    .venv/bin/python -m training.teachable_model vision/models/pieces.onnx

Why: `xqtrack calibrate pieces` adapts the network itself to a set it never met (its last
convolution block and its class head), on a CPU, without PyTorch. That needs three things
from the ONNX file, none of which changes what the model computes:

* an output ``trunk``: the feature maps that enter the last block (N, C, 6, 6), computed once
  per teaching crop so the block can be trained in numpy;
* outputs ``tail.*`` that return the last block's and the heads' weights (Identity nodes), so
  the file stays the single copy of the weights a teaching run starts from.

A taught set is read by running the graph up to ``trunk`` and its own last block in numpy
(`vision.classifier`); the weights stay plain initializers (not overridable graph inputs)
because onnxruntime cannot fold or pre-pack overridable weights, which slowed every plain
read by about 7 %, and plain reads are what every frame of every untaught set pays.

The edit is idempotent: a file that is already teachable is left as it is.
"""
from __future__ import annotations

import argparse
from pathlib import Path

#: teachable weight -> (initializer in the exported graph). Names as `training.train.export_onnx`
#: writes them (PyTorch module paths of `training.model.PieceNet`).
TAIL_INITIALIZERS = {
    "tail.conv.weight": "net.features.6.0.weight",
    "tail.conv.bias": "net.features.6.0.bias",
    "tail.head.weight": "net.head.weight",
    "tail.head.bias": "net.head.bias",
    "tail.offset.weight": "net.offset_head.weight",
    "tail.offset.bias": "net.offset_head.bias",
}


def make_teachable(path: Path, out: Path | None = None) -> bool:
    """Edit the ONNX file in place (or write `out`). Returns False when it already was teachable."""
    import onnx
    from onnx import TensorProto, helper

    m = onnx.load(str(path))
    g = m.graph
    outputs = {o.name for o in g.output}
    if "trunk" in outputs:
        return False
    inits = {i.name: i for i in g.initializer}
    missing = [v for v in TAIL_INITIALIZERS.values() if v not in inits]
    if missing:
        raise SystemExit(f"{path}: no initializers {missing}: not a PieceNet export")
    last_conv = next(n for n in g.node if n.op_type == "Conv" and n.input[1] == TAIL_INITIALIZERS["tail.conv.weight"])
    trunk = last_conv.input[0]
    channels = int(inits[TAIL_INITIALIZERS["tail.conv.weight"]].dims[1])
    # the trunk under a plain name: an Identity keeps the graph's own value name intact
    g.node.append(helper.make_node("Identity", [trunk], ["trunk"], name="trunk_out"))
    g.output.append(helper.make_tensor_value_info("trunk", TensorProto.FLOAT, ["n", channels, 6, 6]))
    for public, name in TAIL_INITIALIZERS.items():
        t = inits[name]
        dims = list(t.dims)
        g.node.append(helper.make_node("Identity", [name], [public], name=public.replace(".", "_") + "_out"))
        g.output.append(helper.make_tensor_value_info(public, t.data_type, dims))
    kept = [(q.key, q.value) for q in m.metadata_props if q.key != "teachable"]   # a retrained file carries its parent's
    del m.metadata_props[:]
    for k, v in kept + [("teachable", ",".join(TAIL_INITIALIZERS))]:
        q = m.metadata_props.add()
        q.key, q.value = k, v
    onnx.checker.check_model(m)
    onnx.save(m, str(out or path))
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", type=Path)
    ap.add_argument("--out", type=Path, default=None, help="write here instead of editing in place")
    a = ap.parse_args(argv)
    changed = make_teachable(a.model, a.out)
    print(f"{a.out or a.model}: {'made teachable' if changed else 'already teachable'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
