"""Cuts a TFLite model into one small model per layer, for timing layer by layer on any runtime.

A layer is one computing operator, and for a convolution the operators our interpreter folds
into it: a PAD that only feeds it, and the ADD and PRELU that follow it on its output alone. The operators that only
turn constants into weights (DEQUANTIZE of float16 filters, DENSIFY of sparse ones) go with every
layer that reads their outputs and are never layers themselves. Each slice keeps the model's
tensors and buffers; its inputs are the tensors its operators read that no operator of it writes
and that hold no constant data, its outputs those it writes that a later operator or the model
reads (or, failing that, its last operator's outputs).

Reads and writes flatbuffers with the schema module LiteRT's wheel ships
(`ai_edge_litert.schema_py_generated`) and the `flatbuffers` package it depends on.
"""
from dataclasses import dataclass

# Operators that only turn constant tensors into weights.
CONSTANT_PRODUCERS = {"DEQUANTIZE", "DENSIFY"}
# The operators our interpreter folds other operators into.
CONVOLUTIONS = {"CONV_2D", "DEPTHWISE_CONV_2D"}
# Operators folded into the convolution whose single-use output they take.
FOLDED_AFTER = {"ADD", "PRELU"}


@dataclass
class Layer:
    """Operators `indices` of subgraph 0 (in model order) under the name `name`, e.g. CONV_2D+ADD."""
    name: str
    indices: list


def _schema():
    from ai_edge_litert import schema_py_generated
    return schema_py_generated


def load_model(path):
    """The model at `path` as the schema's object tree (`ModelT`)."""
    schema = _schema()
    with open(path, "rb") as file:
        return schema.ModelT.InitFromPackedBuf(file.read(), 0)


def _operator_names(model):
    schema = _schema()
    names = {value: key for key, value in vars(schema.BuiltinOperator).items() if not key.startswith("_")}
    result = []
    for operator in model.subgraphs[0].operators:
        code = model.operatorCodes[operator.opcodeIndex]
        result.append(names.get(max(code.builtinCode, code.deprecatedBuiltinCode), "CUSTOM"))
    return result


def layers(model):
    """The model's layers, in execution order."""
    graph = model.subgraphs[0]
    names = _operator_names(model)
    consumers = {}
    for index, operator in enumerate(graph.operators):
        for tensor in operator.inputs:
            consumers.setdefault(tensor, []).append(index)
    computing = [i for i, name in enumerate(names) if name not in CONSTANT_PRODUCERS]
    result = []
    position = 0
    while position < len(computing):
        indices = [computing[position]]
        position += 1
        # A PAD whose only reader is the next operator, a convolution, goes with it.
        if names[indices[0]] == "PAD" and position < len(computing) and names[computing[position]] in CONVOLUTIONS:
            padded = graph.operators[indices[0]].outputs[0]
            if consumers.get(padded, []) == [computing[position]]:
                indices.append(computing[position])
                position += 1
        is_convolution = names[indices[-1]] in CONVOLUTIONS
        while is_convolution and position < len(computing) and names[computing[position]] in FOLDED_AFTER:
            last_output = graph.operators[indices[-1]].outputs[0]
            if consumers.get(last_output, []) != [computing[position]] or last_output in graph.outputs:
                break
            indices.append(computing[position])
            position += 1
        result.append(Layer("+".join(names[i] for i in indices), indices))
    return result


def slice_model(model, layer):
    """The serialized TFLite model of `layer` alone (bytes). `model` is left unchanged."""
    import copy
    import flatbuffers
    sliced = copy.copy(model)
    graph = copy.copy(model.subgraphs[0])
    sliced.subgraphs = [graph] + list(model.subgraphs[1:])
    names = _operator_names(model)
    chosen = set(layer.indices)
    # The layer's operators and, transitively, the constant producers they read from
    # (a DENSIFY can feed a DEQUANTIZE that feeds the convolution).
    needed = set(chosen)
    read = {tensor for i in chosen for tensor in graph.operators[i].inputs}
    grew = True
    while grew:
        grew = False
        for i, operator in enumerate(graph.operators):
            if i not in needed and names[i] in CONSTANT_PRODUCERS and operator.outputs[0] in read:
                needed.add(i)
                read.update(operator.inputs)
                grew = True
    keep = sorted(needed)

    def constant(tensor):
        buffer = graph.tensors[tensor].buffer
        data = model.buffers[buffer].data if buffer < len(model.buffers) else None
        return data is not None and len(data) > 0

    written = {tensor for i in keep for tensor in graph.operators[i].outputs}
    inputs = []
    for i in keep:
        for tensor in graph.operators[i].inputs:
            if tensor >= 0 and tensor not in written and not constant(tensor) and tensor not in inputs:
                inputs.append(tensor)
    later = {tensor for i, operator in enumerate(model.subgraphs[0].operators)
             if i > max(chosen) for tensor in operator.inputs} | set(model.subgraphs[0].outputs)
    outputs = [tensor for i in sorted(chosen) for tensor in graph.operators[i].outputs if tensor in later]
    graph.operators = [model.subgraphs[0].operators[i] for i in keep]
    graph.inputs = inputs
    graph.outputs = outputs or list(model.subgraphs[0].operators[max(chosen)].outputs)
    builder = flatbuffers.Builder(1024)
    builder.Finish(sliced.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def output_shape(model, layer):
    """The shape of the layer's last operator's first output, as a list of ints."""
    graph = model.subgraphs[0]
    return [int(d) for d in graph.tensors[graph.operators[layer.indices[-1]].outputs[0]].shape]
