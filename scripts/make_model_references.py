#!/usr/bin/env python3
"""Regenerates Tests/Fixtures/tensors/manifest.json and the reference outputs beside it: what
LiteRT 2.3.0 outputs for each model's real input (Tests/Fixtures/tensors/<model>/input.png, cut by
scripts/make_fixtures.py), with its reference kernels and with XNNPACK.

- The input is the PNG's 8-bit RGB pixels as float32 NHWC: pixel / 255, or pixel / 127.5 - 1 for
  pose_detection (its [-1, 1] range), each one IEEE float32 division (and subtraction).
- Reference kernels (OpResolverType.BUILTIN_REF): every output stored whole,
  tensors/<model>/ref_out<K>_<name>.bin, raw little-endian float32.
- XNNPACK (the default resolver, one thread), as an AVX2 + FMA CPU without AVX-512 runs it
  (scripts/avx2_emulation.py): each output's FNV-1a 64 hash of its float32 bytes, which the fast
  kernels must reproduce bit for bit, and its largest difference from the reference kernels (how
  far two correct implementations differ: the golden tests' tolerance).
- The model facts the reader tests check: size, SHA-256, input and output tensors, and the count
  of each operator the reference resolver runs.

Run through scripts/make_model_references.sh (it sets up Benchmarks/.venv with LiteRT).
"""
import datetime
import hashlib
import json
import platform
import sys
from collections import Counter
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "scripts"))
from avx2_emulation import describe_cpu, run_as_avx2_cpu  # noqa: E402
from fnv1a import fnv1a64  # noqa: E402

SCRIPT = "make_model_references.py"
FIXTURES = REPO_ROOT / "Tests" / "Fixtures"
MODELS = ["pose_detection", "pose_landmark_full", "palm_detection_full", "palm_detection_lite",
          "hand_landmark_full", "hand_landmark_lite", "face_detection_short_range",
          "face_detection_full_range_sparse", "face_landmark", "hand_recrop"]



def model_input(np, entry):
    """The float32 [1, side, side, 3] input of a tensor_inputs entry of inputs.json."""
    from sample_clips import import_pillow
    pixels = np.asarray(import_pillow().open(FIXTURES / entry["file"]).convert("RGB"), dtype=np.float32)
    if entry["range"] == [-1, 1]:
        values = pixels / np.float32(127.5) - np.float32(1)
    else:
        values = pixels / np.float32(255)
    return np.ascontiguousarray(values.reshape(1, *pixels.shape), dtype=np.float32)


def run(interpreter_class, resolver, path, x):
    interpreter = interpreter_class(model_path=str(path), num_threads=1, experimental_op_resolver_type=resolver)
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    interpreter.invoke()
    outputs = [(d["name"], d["index"], interpreter.get_tensor(d["index"]).copy())
               for d in interpreter.get_output_details()]
    return interpreter, outputs


def main():
    run_as_avx2_cpu(SCRIPT)
    import numpy as np
    from importlib.metadata import version
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    inputs = json.loads((FIXTURES / "inputs.json").read_text())["tensor_inputs"]
    models = {}
    for model in MODELS:
        print(f"{SCRIPT}: {model}", file=sys.stderr)
        path = REPO_ROOT / "models" / f"{model}.tflite"
        if not path.exists():
            sys.exit(f"{SCRIPT}: missing {path}: run models/fetch_models.sh")
        x = model_input(np, inputs[model])
        reference, reference_outputs = run(Interpreter, OpResolverType.BUILTIN_REF, path, x)
        _, xnnpack_outputs = run(Interpreter, OpResolverType.AUTO, path, x)
        input_detail = reference.get_input_details()[0]
        data = path.read_bytes()
        outputs = []
        for k, ((name, index, ref), (_, _, xnn)) in enumerate(zip(reference_outputs, xnnpack_outputs)):
            relative = f"tensors/{model}/ref_out{k}_{name}.bin"
            ref.astype("<f4").tofile(FIXTURES / relative)
            outputs.append({
                "name": name, "index": int(index), "shape": [int(d) for d in ref.shape],
                "reference_file": relative,
                "xnnpack_fnv1a64": fnv1a64(xnn.astype("<f4").tobytes()),
                "xnnpack_vs_reference_max_abs": float(np.abs(xnn.astype(np.float64) - ref).max()),
            })
        operators = Counter(op["op_name"] for op in reference._get_ops_details())
        models[model] = {
            "model": {"file": f"models/{model}.tflite", "from": "PyPI mediapipe==0.10.21 wheel",
                      "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
                      "input": {"name": input_detail["name"], "index": int(input_detail["index"]),
                                "shape": [int(d) for d in input_detail["shape"]]},
                      "outputs": [{"name": o["name"], "index": o["index"], "shape": o["shape"]} for o in outputs],
                      "ops_builtin_ref": dict(sorted(operators.items())),
                      "num_ops": sum(operators.values())},
            "input": inputs[model],
            "outputs": outputs,
        }
    manifest = {
        "schema": "landmarker-fixtures/model-tensors/1",
        "producer": {
            "runtime": f"ai-edge-litert {version('ai-edge-litert')} (ai_edge_litert.interpreter.Interpreter), "
                       "one thread; reference kernels: OpResolverType.BUILTIN_REF; "
                       "XNNPACK: OpResolverType.AUTO (builtin + XNNPACK delegate)",
            "cpu": describe_cpu(),
            "numpy": np.__version__, "python": platform.python_version(),
            "script": f"scripts/{SCRIPT}", "date": datetime.date.today().isoformat(),
        },
        "bin_format": "raw little-endian float32, C order (NHWC for images), shape as listed",
        "models": models,
    }
    (FIXTURES / "tensors" / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{SCRIPT}: wrote {(FIXTURES / 'tensors' / 'manifest.json').relative_to(REPO_ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
