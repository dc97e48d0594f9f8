#!/usr/bin/env python3
"""Regenerates Tests/References/xnnpack_outputs.json: what LiteRT 2.3.0's XNNPACK delegate outputs
for inputs that the fixtures' XNNPACK outputs do not cover, so that the tests can hold the fast
kernels to XNNPACK bit for bit beyond the one fixture input per model.

- logistic: a LOGISTIC-only model (built here) on a fixed list of inputs: a grid over -96...32,
  a finer grid over -88...-80 (where XNNPACK's sigmoid meets subnormal intermediate results and
  flushes them to zero),
  and special values (signed zeros, infinities, the smallest subnormal, values around the
  cut-off at -87.34).
- hand_landmarks: hand_landmark_full and hand_landmark_lite on their golden-test input
  (Tests/Fixtures/tensors/<model>/input.png as float32, see scripts/make_model_references.py: a
  1x224x224x3 crop of a real photo) transformed
  five ways: mirrored left-right (`mirror`), upside down (`flip`), rotated by 180 degrees
  (`rotate180`), rows and columns swapped (`transpose`), and every value x replaced by the
  float32 difference 1 - x (`inverse`). Tests/InferenceTests/XNNPACKReferenceTests.swift applies
  the same transformations to the same input.

XNNPACK picks its microkernels per CPU, and its f32 sigmoid differs between AVX2 and AVX-512
CPUs; these references are its AVX2 + FMA kernels' (the ones this package's kernels reproduce),
so on a CPU with AVX-512 the script runs under QEMU as an AVX2 + FMA CPU
(scripts/avx2_emulation.py). Every float is stored as its bit pattern, eight hex digits, and each
tensor as one string of them separated by spaces. One thread, LiteRT's default resolver (builtin
+ XNNPACK).

Run through scripts/make_model_references.sh, which sets up Benchmarks/.venv and fetches the models.
"""

import datetime
import json
import platform
import sys
from pathlib import Path

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as schema
from ai_edge_litert.interpreter import Interpreter

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "scripts"))
from avx2_emulation import describe_cpu, run_as_avx2_cpu  # noqa: E402
from make_model_references import FIXTURES, model_input  # noqa: E402

OUTPUT = REPO_ROOT / "Tests" / "References" / "xnnpack_outputs.json"
MODELS = ["hand_landmark_full", "hand_landmark_lite"]


def bits(values):
    """The float32 values as eight-hex-digit bit patterns separated by spaces."""
    return " ".join(f"{v:08x}" for v in np.asarray(values, dtype=np.float32).reshape(-1).view(np.uint32))


def logistic_model(count):
    """A model holding one LOGISTIC of a [1, count] float32 tensor."""
    model = schema.ModelT()
    model.version = 3
    code = schema.OperatorCodeT()
    code.builtinCode = schema.BuiltinOperator.LOGISTIC
    code.deprecatedBuiltinCode = schema.BuiltinOperator.LOGISTIC
    code.version = 1
    model.operatorCodes = [code]
    model.buffers = [schema.BufferT() for _ in range(3)]
    tensors = []
    for index, name in enumerate([b"x", b"y"]):
        tensor = schema.TensorT()
        tensor.shape = [1, count]
        tensor.type = schema.TensorType.FLOAT32
        tensor.buffer = index + 1
        tensor.name = name
        tensors.append(tensor)
    operator = schema.OperatorT()
    operator.opcodeIndex = 0
    operator.inputs = [0]
    operator.outputs = [1]
    subgraph = schema.SubGraphT()
    subgraph.tensors = tensors
    subgraph.inputs = [0]
    subgraph.outputs = [1]
    subgraph.operators = [operator]
    subgraph.name = b"main"
    model.subgraphs = [subgraph]
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def run(model, inputs):
    """Runs a LiteRT interpreter (XNNPACK, one thread) on `inputs`; its outputs in output order."""
    interpreter = Interpreter(**model, num_threads=1)
    interpreter.allocate_tensors()
    for detail, values in zip(interpreter.get_input_details(), inputs):
        interpreter.set_tensor(detail["index"], values.reshape(detail["shape"]))
    interpreter.invoke()
    return [(d["name"], interpreter.get_tensor(d["index"])) for d in interpreter.get_output_details()]


def logistic_inputs():
    """The LOGISTIC inputs listed in the module docstring, float32."""
    specials = [0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 1e-38, -1e-38,
                -87.33654, -87.33655, -87.34, 87.34, 88.8, -88.8]
    values = np.concatenate([
        np.linspace(-96, 32, 257), np.linspace(-88, -80, 257), np.array(specials)]).astype(np.float32)
    return values


def transformed(x, name):
    """The [1, H, W, 3] input `x` transformed as the module docstring says."""
    if name == "mirror":
        return x[:, :, ::-1, :]
    if name == "flip":
        return x[:, ::-1, :, :]
    if name == "rotate180":
        return x[:, ::-1, ::-1, :]
    if name == "transpose":
        return x.transpose(0, 2, 1, 3)
    if name == "inverse":
        return np.float32(1) - x
    raise ValueError(name)


def main():
    run_as_avx2_cpu("make_xnnpack_references.py")
    from importlib.metadata import version
    inputs = logistic_inputs()
    [(_, outputs)] = run({"model_content": logistic_model(inputs.size)}, [inputs])
    result = {
        "producer": {
            "runtime": f"ai-edge-litert {version('ai-edge-litert')} (ai_edge_litert.interpreter.Interpreter), "
                       "default resolver (builtin + XNNPACK), one thread",
            "numpy": np.__version__,
            "python": platform.python_version(),
            "cpu": describe_cpu(),
            "script": "scripts/make_xnnpack_references.py",
            "date": datetime.date.today().isoformat(),
        },
        "logistic": {"input": bits(inputs), "xnnpack": bits(outputs)},
        "hand_landmarks": {},
    }
    tensor_inputs = json.loads((FIXTURES / "inputs.json").read_text())["tensor_inputs"]
    for model in MODELS:
        x = model_input(np, tensor_inputs[model])
        entry = {}
        for name in ["mirror", "flip", "rotate180", "transpose", "inverse"]:
            outputs = run({"model_path": str(REPO_ROOT / "models" / f"{model}.tflite")},
                          [np.ascontiguousarray(transformed(x, name))])
            entry[name] = {output_name: bits(values) for output_name, values in outputs}
        result["hand_landmarks"][model] = entry
    OUTPUT.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {OUTPUT.relative_to(REPO_ROOT)}")


if __name__ == "__main__":
    main()
