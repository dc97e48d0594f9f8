#!/usr/bin/env python3
"""Finds the first operator of a model whose output MediaPipe's XNNPACK and LiteRT's disagree on.

MediaPipe's graphs run their models with the XNNPACK built into the mediapipe wheel, which is
not LiteRT's: where the two round differently, this package can only match one of them per
model (docs/PIPELINE.md, "Holistic exactness", is how `hand_recrop`'s pointwise depthwise layers
were found). For each operator k in turn, the model is cut after k (operators past k dropped, k's
first output made the model's output) and run on the same inputs by

- MediaPipe: its own InferenceCalculator with `delegate { xnnpack {} }`, fed by
  ImageToTensorCalculator from a 256-pixel-wide image of 0 and 255 values over the whole frame
  (an exact tensor of 0.0 and 1.0), read back exactly through TensorsToLandmarksCalculator
  (four values per landmark, divided by the width 256, a power of two);
- LiteRT: `ai_edge_litert`'s Interpreter (builtin kernels with the XNNPACK delegate), on the
  same 0.0 / 1.0 tensor;

and the bits compared. A difference at a cut is a lead, not a verdict: XNNPACK plans each cut
graph anew (the fusions and kernels around the new output may not be the whole model's, and an
operator on constants alone, such as a DEQUANTIZE of float16 weights, cannot be an output), so
confirm it on the whole model and through the pipeline, as the holistic golden tests confirmed
`hand_recrop`'s. The MediaPipe side runs in a second Python (`--mediapipe-python`, the
virtual environment of scripts/make_references.sh), as the two wheels need different numpy
versions. Models of one `[1, S, S, 3]` input of values in [0, 1], S at most 256 (the hand,
pose and face models and `hand_recrop`).

Usage (in the LiteRT environment, Benchmarks/.venv):
  xnnpack_divergence.py models/hand_recrop.tflite [--images 3] [--last-operator K]
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

MEDIAPIPE_GRAPH = '''
input_stream: "image"
input_stream: "roi"
output_stream: "landmarks"
node {
  calculator: "ImageToTensorCalculator"
  input_stream: "IMAGE:image"
  input_stream: "NORM_RECT:roi"
  output_stream: "TENSORS:tensors"
  options { [mediapipe.ImageToTensorCalculatorOptions.ext] {
    output_tensor_width: %(side)d output_tensor_height: %(side)d keep_aspect_ratio: true
    output_tensor_float_range { min: 0.0 max: 1.0 } } }
}
node {
  calculator: "InferenceCalculator"
  input_stream: "TENSORS:tensors"
  output_stream: "TENSORS:output"
  options { [mediapipe.InferenceCalculatorOptions.ext] {
    model_path: "model.tflite" delegate { xnnpack {} } } }
}
node {
  calculator: "TensorsToLandmarksCalculator"
  input_stream: "TENSORS:output"
  output_stream: "NORM_LANDMARKS:landmarks"
  options { [mediapipe.TensorsToLandmarksCalculatorOptions.ext] {
    num_landmarks: %(landmarks)d input_image_width: %(side)d input_image_height: %(side)d } }
}
'''


class Flatbuffer:
    """The few fields of a .tflite flatbuffer the cut needs, read with `struct` alone."""

    def __init__(self, data):
        self.data = data

    def u32(self, at):
        return struct.unpack_from('<I', self.data, at)[0]

    def field(self, table, slot):
        """The position of field `slot` of the table at `table`, or None when absent."""
        vtable = table - struct.unpack_from('<i', self.data, table)[0]
        if 4 + 2 * slot >= struct.unpack_from('<H', self.data, vtable)[0]:
            return None
        offset = struct.unpack_from('<H', self.data, vtable + 4 + 2 * slot)[0]
        return table + offset if offset else None

    def table(self, at):
        return at + self.u32(at)

    def vector(self, at):
        """(the position of the length word, the element count) of the vector referenced at `at`."""
        start = at + self.u32(at)
        return start, self.u32(start)


def cut_model(data, last):
    """The model with operators 0...last kept and `last`'s first output as the only output;
    also returns that output's element count."""
    fb = Flatbuffer(bytearray(data))
    model = fb.table(0)
    subgraphs, _ = fb.vector(fb.field(model, 2))
    subgraph = fb.table(subgraphs + 4)
    operators, count = fb.vector(fb.field(subgraph, 3))
    if not 0 <= last < count:
        raise SystemExit(f'operator {last} does not exist: the model has {count}')
    operator = fb.table(operators + 4 + 4 * last)
    op_outputs, _ = fb.vector(fb.field(operator, 2))
    tensor = fb.u32(op_outputs + 4)
    outputs, output_count = fb.vector(fb.field(subgraph, 2))
    if output_count < 1:
        raise SystemExit('the model has no output to redirect')
    struct.pack_into('<I', fb.data, outputs + 4, tensor)
    struct.pack_into('<I', fb.data, outputs, 1)
    struct.pack_into('<I', fb.data, operators, last + 1)
    tensors, _ = fb.vector(fb.field(subgraph, 0))
    shape, rank = fb.vector(fb.field(fb.table(tensors + 4 + 4 * tensor), 0))
    elements = 1
    for axis in range(rank):
        elements *= struct.unpack_from('<i', fb.data, shape + 4 + 4 * axis)[0]
    return bytes(fb.data), elements, count


def images(count, side):
    """`count` deterministic `side` × `side` RGB images of 0 and 255: blocks of 1, 16 and 32
    pixels in turn."""
    import numpy as np
    rng = np.random.default_rng(7)
    result = []
    for i in range(count):
        block = [1, 16, 32][i % 3]
        small = rng.integers(0, 2, (side // block, side // block, 3))
        result.append((np.kron(small, np.ones((block, block, 1))) * 255).astype(np.uint8))
    return np.stack(result)


def mediapipe_side(folder, side, elements):
    """Runs in the mediapipe environment: `folder/model.tflite` on `folder/images.npy`, writes
    `folder/mediapipe.npy` (one row of `elements` float32 values per image)."""
    import numpy as np
    from google.protobuf import text_format
    from mediapipe.framework import calculator_pb2
    from mediapipe.framework.formats import rect_pb2
    from mediapipe.python import packet_creator, packet_getter
    from mediapipe.python._framework_bindings import calculator_graph, image_frame, resource_util
    resource_util.set_resource_dir(folder)
    config = text_format.Parse(
        MEDIAPIPE_GRAPH % {'side': side, 'landmarks': elements // 4}, calculator_pb2.CalculatorGraphConfig())
    rows = []
    graph = calculator_graph.CalculatorGraph(graph_config=config)
    graph.observe_output_stream('landmarks', lambda name, packet: rows.append(packet_getter.get_proto(packet)))
    graph.start_run()
    whole = rect_pb2.NormalizedRect(x_center=0.5, y_center=0.5, width=1.0, height=1.0, rotation=0.0)
    for i, pixels in enumerate(np.load(os.path.join(folder, 'images.npy'))):
        image = packet_creator.create_image_frame(image_format=image_frame.ImageFormat.SRGB, data=pixels)
        graph.add_packet_to_input_stream('image', image.at(i + 1))
        graph.add_packet_to_input_stream('roi', packet_creator.create_proto(whole).at(i + 1))
    graph.close()
    values = [[v for l in row.landmark for v in (l.x * side, l.y * side, l.z * side, l.visibility)] for row in rows]
    np.save(os.path.join(folder, 'mediapipe.npy'), np.array(values, dtype=np.float32))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('model', nargs='?', help='a .tflite file of one [1, S, S, 3] input in [0, 1]')
    parser.add_argument('--images', type=int, default=3, help='inputs compared per operator (default: 3)')
    parser.add_argument('--last-operator', type=int, help='compare operators 0...K only (default: all)')
    parser.add_argument('--mediapipe-python', default='Benchmarks/.venv-mediapipe/bin/python',
                        help="the Python with mediapipe==0.10.21 (default: %(default)s)")
    parser.add_argument('--mediapipe-side', nargs=3, metavar=('FOLDER', 'SIDE', 'ELEMENTS'), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mediapipe_side:
        folder, side, elements = args.mediapipe_side
        return mediapipe_side(folder, int(side), int(elements))
    if not args.model:
        parser.error('a model is required')
    if args.images < 1:
        parser.error('--images must be at least 1')

    import numpy as np
    from ai_edge_litert.interpreter import Interpreter
    data = open(args.model, 'rb').read()
    side = Interpreter(model_content=data).get_input_details()[0]['shape'][1]
    if side > 256 or side % 32:
        raise SystemExit(f'the input is {side} pixels wide; this script takes multiples of 32 up to 256')
    _, _, count = cut_model(data, 0)
    last = count - 1 if args.last_operator is None else args.last_operator
    with tempfile.TemporaryDirectory() as folder:
        pixels = images(args.images, side)
        np.save(os.path.join(folder, 'images.npy'), pixels)
        tensors = pixels.astype(np.float32) / np.float32(255)
        for k in range(last + 1):
            cut, elements, _ = cut_model(data, k)
            if elements % 4:
                print(f'operator {k}: {elements} values, not a multiple of 4: skipped')
                continue
            with open(os.path.join(folder, 'model.tflite'), 'wb') as file:
                file.write(cut)
            run = subprocess.run(
                [args.mediapipe_python, os.path.abspath(__file__), '--mediapipe-side', folder, str(side), str(elements)],
                capture_output=True, text=True)
            if run.returncode != 0:
                print(f'operator {k}: MediaPipe failed ({run.returncode}): {run.stderr.strip().splitlines()[-1:]}')
                continue
            theirs = np.load(os.path.join(folder, 'mediapipe.npy'))
            interpreter = Interpreter(model_content=cut, num_threads=1)
            interpreter.allocate_tensors()
            ours = []
            for tensor in tensors:
                interpreter.set_tensor(interpreter.get_input_details()[0]['index'], tensor[None])
                interpreter.invoke()
                ours.append(interpreter.get_tensor(interpreter.get_output_details()[0]['index']).reshape(-1).copy())
            ours = np.array(ours, dtype=np.float32)
            equal = ours.view(np.uint32) == theirs.view(np.uint32)
            print(json.dumps({'operator': k, 'values': elements, 'bitIdenticalShare': round(float(equal.mean()), 6),
                              'largestDifference': float(np.abs(ours - theirs).max())}))
            if not equal.all():
                print(f'operator {k} is the first whose output differs')
                return
    print(f'operators 0...{last}: MediaPipe\'s XNNPACK and LiteRT\'s agree bit for bit')


if __name__ == '__main__':
    sys.exit(main())
