#!/usr/bin/env python3
"""Writes the TFLite schema's builtin operator codes, options-union type codes and option tables as Swift.

The numbers and names come from TensorFlow Lite's schema (`enum BuiltinOperator : int32`,
`union BuiltinOptions` and its member tables of tensorflow/compiler/mlir/lite/schema/schema.fbs),
read from the FlatBuffers compiler's Python output of it that the ai-edge-litert wheel ships
(`ai_edge_litert/schema_py_generated.py`). The wheel version is pinned below and recorded in the
generated files together with the SHA-256 of the schema module they were made from.

Writes
  Sources/FlatBufferReader/BuiltinOperator.swift       BuiltinOperator: one constant per code, names
  Sources/FlatBufferReader/BuiltinOptionsType.swift    BuiltinOptionsType: one constant per member
  Sources/FlatBufferReader/BuiltinOptionsFields.swift  BuiltinOptionsFields: each member table's
                                                       fields (id, schema name, type, default)

A table's fields come from flatc's accessors: the vtable offset each reads gives the field id
(offset 4 + 2 * id), the number type it reads gives the Swift type, and the value it returns when
the field is absent gives the schema default. The schema's snake_case field names are the
accessors' names split before each capital that starts a word (`DilationWFactor` is
`dilation_w_factor`). Python's output does not say which `byte` fields hold an enum, so the
generated fields are plain integers; the code that reads one as an enum checks its range.

Usage:
  scripts/generate_schema_codes.py [--schema PATH] [--check]

--schema names the schema module (default: the one of the `ai_edge_litert` package this Python
imports, which must be version 2.3.0). --check writes nothing and exits with status 1 when a
generated file differs from what it would write (scripts/check_schema_codes.sh runs it).
"""

import argparse
import hashlib
import importlib.util
import pathlib
import re
import sys

WHEEL = "ai-edge-litert"
WHEEL_VERSION = "2.3.0"
ROOT = pathlib.Path(__file__).resolve().parent.parent
OUTPUT_DIR = ROOT / "Sources" / "FlatBufferReader"

SWIFT_KEYWORDS = {
    "as", "break", "case", "catch", "class", "continue", "default", "defer", "do", "else", "enum",
    "extension", "fallthrough", "false", "for", "func", "guard", "if", "import", "in", "init",
    "inout", "internal", "is", "let", "nil", "operator", "private", "protocol", "public", "repeat",
    "rethrows", "return", "self", "static", "struct", "subscript", "super", "switch", "throw",
    "throws", "true", "try", "typealias", "var", "where", "while",
}


def schema_path(argument):
    """The schema module to read: `argument`, or the installed wheel's (checking its version)."""
    if argument:
        return pathlib.Path(argument)
    from importlib import metadata

    try:
        version = metadata.version(WHEEL)
    except metadata.PackageNotFoundError:
        sys.exit(f"{WHEEL} is not installed for {sys.executable}: pip install {WHEEL}=={WHEEL_VERSION}")
    if version != WHEEL_VERSION:
        sys.exit(f"{WHEEL} {version} is installed, the generated files record {WHEEL_VERSION}")
    spec = importlib.util.find_spec("ai_edge_litert")
    return pathlib.Path(spec.origin).parent / "schema_py_generated.py"


def class_constants(source, name):
    """The `NAME = value` lines of `class name(object):` in flatc's Python output, in order."""
    match = re.search(rf"^class {name}\(object\):\n((?:    \w+ = -?\d+\n)+)", source, re.MULTILINE)
    if not match:
        sys.exit(f"no class {name} in the schema module")
    return [(key, int(value)) for key, value in re.findall(r"^    (\w+) = (-?\d+)$", match.group(1), re.MULTILINE)]


def swift_identifier(words):
    """lowerCamelCase of `words`, backquoted when it is a Swift keyword."""
    name = words[0].lower() + "".join(
        word.upper() if word[0].isdigit() else word[0].upper() + word[1:].lower() for word in words[1:])
    return f"`{name}`" if name in SWIFT_KEYWORDS else name


def operator_identifier(schema_name):
    """`CONV_2D` -> `conv2D`, `RELU_N1_TO_1` -> `reluN1To1`."""
    return swift_identifier(schema_name.split("_"))


def options_identifier(table_name):
    """`Conv2DOptions` -> `conv2D`, `LSHProjectionOptions` -> `lshProjection`, `SVDFOptions` -> `svdf`:
    the table name without `Options`, its leading capitals lower-cased (all but the last when a
    lower-case letter follows them)."""
    stem = table_name[: -len("Options")] if table_name.endswith("Options") else table_name
    run = len(re.match(r"[A-Z]*", stem).group(0))
    if run > 1 and run < len(stem) and stem[run].islower():
        run -= 1
    name = stem[:max(run, 1)].lower() + stem[max(run, 1):]
    return f"`{name}`" if name in SWIFT_KEYWORDS else name


# flatc's Python number types and the Swift types a field of each holds.
SCALAR_TYPES = {
    "Bool": "Bool", "Int8": "Int8", "Uint8": "UInt8", "Int16": "Int16", "Uint16": "UInt16",
    "Int32": "Int32", "Uint32": "UInt32", "Int64": "Int64", "Uint64": "UInt64", "Float32": "Float",
    "Float64": "Double",
}


def snake_case(accessor):
    """`DilationWFactor` -> `dilation_w_factor`, `PotScaleInt16` -> `pot_scale_int16`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", accessor).lower()


def field_identifier(accessor):
    """`DilationWFactor` -> `dilationWFactor`, backquoted when it is a Swift keyword."""
    name = accessor[0].lower() + accessor[1:]
    return f"`{name}`" if name in SWIFT_KEYWORDS else name


def swift_literal(value, swift_type):
    """A Python default (`0`, `1`, `True`, `0.0`) as a Swift literal of `swift_type`."""
    if swift_type == "Bool":
        return {"True": "true", "False": "false", "0": "false", "1": "true"}[value]
    if swift_type in ("Float", "Double"):
        return repr(float(value))
    return str(int(value))


def table_fields(source, table):
    """The fields of `table Name` as (accessor, id, declaration) in id order: a Swift
    `OptionsField<T>`, `OptionsVectorField<T>` or `OptionsStringField` expression."""
    match = re.search(rf"^class {table}\(object\):\n(.*?)(?=^def {table}Start\()", source, re.MULTILINE | re.DOTALL)
    if not match:
        sys.exit(f"no class {table} in the schema module")
    fields = []
    for method in re.finditer(r"^    def (\w+)\(self(, j)?\):\n(.*?)(?=^    #|\Z)", match.group(1), re.MULTILINE | re.DOTALL):
        accessor, indexed, body = method.groups()
        offset = re.search(r"self\._tab\.Offset\((\d+)\)", body)
        if not offset or accessor.endswith(("AsNumpy", "Length", "IsNone")):
            continue
        field_id = (int(offset.group(1)) - 4) // 2
        name = snake_case(accessor)
        read = re.search(r"self\._tab\.Get\(flatbuffers\.number_types\.(\w+)Flags", body)
        if indexed:
            if not read or read.group(1) not in SCALAR_TYPES:
                sys.exit(f"{table}.{accessor}: only vectors of scalars are supported")
            declaration = f'OptionsVectorField<{SCALAR_TYPES[read.group(1)]}>({field_id}, "{name}")'
        elif "self._tab.String(" in body:
            declaration = f'OptionsStringField({field_id}, "{name}")'
        elif read and read.group(1) in SCALAR_TYPES:
            swift_type = SCALAR_TYPES[read.group(1)]
            default = swift_literal(re.findall(r"^        return (.+)$", body, re.MULTILINE)[-1], swift_type)
            declaration = f'OptionsField<{swift_type}>({field_id}, "{name}", default: {default})'
        else:
            sys.exit(f"{table}.{accessor}: a field of a kind this script does not know (a table?)")
        fields.append((accessor, field_id, declaration))
    # Deprecated fields have no accessor: their ids are missing, never repeated.
    if len({field_id for _, field_id, _ in fields}) != len(fields):
        sys.exit(f"{table}: two accessors read the same field id")
    return sorted(fields, key=lambda field: field[1])


def wrapped(prefix, items, suffix, indent):
    """`prefix` + `items` joined by ", " + `suffix`, wrapped to lines of at most 120 characters."""
    lines, line = [], prefix
    for index, item in enumerate(items):
        piece = item + (", " if index < len(items) - 1 else suffix)
        if len(line) + len(piece.rstrip()) > 120 and line.strip():
            lines.append(line.rstrip())
            line = indent + piece
        else:
            line += piece
    lines.append(line)
    return "\n".join(lines) + "\n"


def header(digest):
    return (
        f"// Generated by scripts/generate_schema_codes.py from the TFLite schema as the {WHEEL} {WHEEL_VERSION}\n"
        f"// wheel ships it (ai_edge_litert/schema_py_generated.py, SHA-256 {digest[:16]}…).\n"
        "// Do not edit: run the script; scripts/check_schema_codes.sh checks the file is current.\n\n")


def builtin_operator_swift(operators, digest):
    lines = [header(digest)]
    lines.append(
        "/// A builtin operator code (`enum BuiltinOperator : int32` in the TFLite schema), e.g. `CONV_2D`.\n"
        "/// An operator code's builtin is `max(deprecated_builtin_code, builtin_code)`; codes the schema\n"
        "/// does not name are kept and print as `BUILTIN_<n>`.\n"
        "public struct BuiltinOperator: RawRepresentable, Hashable, Sendable, CustomStringConvertible {\n"
        "    public let rawValue: Int32\n\n"
        "    public init(rawValue: Int32) {\n"
        "        self.rawValue = rawValue\n"
        "    }\n\n"
        "    /// The schema name, e.g. `CONV_2D`, or `BUILTIN_<n>` for a code the schema does not name.\n"
        "    public var description: String {\n"
        "        if let name = Self.names[rawValue] { return name }\n"
        "        return \"BUILTIN_\\(rawValue)\"\n"
        "    }\n\n")
    for name, value in operators:
        lines.append(f"    public static let {operator_identifier(name)} = BuiltinOperator(rawValue: {value})\n")
    lines.append("\n    private static let names: [Int32: String] = [\n")
    for name, value in operators:
        lines.append(f"        {value}: \"{name}\",\n")
    lines.append("    ]\n}\n")
    return "".join(lines)


def options_type_swift(members, digest):
    lines = [header(digest)]
    lines.append(
        "/// Type codes of `union BuiltinOptions` in the TFLite schema: the options table an operator\n"
        "/// carries in `Operator.builtin_options`, named after the table without its `Options` suffix\n"
        "/// (`Conv2DOptions` is `conv2D`). 0 (NONE) means no table.\n"
        "public enum BuiltinOptionsType {\n")
    for name, value in members:
        if name == "NONE":
            continue
        lines.append(f"    /// `{name}`.\n")
        lines.append(f"    public static let {options_identifier(name)}: UInt8 = {value}\n")
    last_name, last_value = members[-1]
    lines.append(f"    /// The last member ({last_name}); larger codes are invalid.\n")
    lines.append(f"    public static let lastKnown: UInt8 = {last_value}\n")
    lines.append("}\n")
    return "".join(lines)


def options_fields_swift(source, members, digest):
    lines = [header(digest)]
    lines.append(
        "/// The fields of the option tables of `union BuiltinOptions` in the TFLite schema, one namespace per\n"
        "/// table that has fields, named after the table without its `Options` suffix (`Conv2DOptions` is\n"
        "/// `Conv2D`): each field's id (vtable slot), schema name, type and schema default, which\n"
        "/// `OptionsTable` reads by and the verifier checks the tables against (`members`).\n"
        "public enum BuiltinOptionsFields {\n")
    schemas = []
    for table, code in members:
        if table == "NONE":
            continue
        fields = table_fields(source, table)
        if not fields:
            continue
        stem = table[: -len("Options")] if table.endswith("Options") else table
        lines.append(f"    /// `table {table}` (`BuiltinOptionsType.{options_identifier(table)}`).\n")
        lines.append(f"    public enum {stem} {{\n")
        for accessor, _, declaration in fields:
            lines.append(f"        public static let {field_identifier(accessor)} = {declaration}\n")
        lines.append(wrapped(
            f'        static let schema = TableSchema("{table}", [',
            [f"{field_identifier(accessor)}.schema" for accessor, _, _ in fields], "])", " " * 12))
        lines.append("    }\n\n")
        schemas.append((options_identifier(table), stem))
    lines.append(
        "    /// The verifier's schema of each member table with fields, by type code; a member without\n"
        "    /// fields is checked as a table alone.\n"
        "    static let members: [UInt8: TableSchema] = [\n")
    for identifier, stem in schemas:
        lines.append(f"        BuiltinOptionsType.{identifier}: {stem}.schema,\n")
    lines.append("    ]\n}\n")
    return "".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schema", help="path of schema_py_generated.py")
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    arguments = parser.parse_args()

    path = schema_path(arguments.schema)
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    source = data.decode("utf-8")
    operators = class_constants(source, "BuiltinOperator")
    members = class_constants(source, "BuiltinOptions")
    if [value for _, value in members] != list(range(len(members))):
        sys.exit("union BuiltinOptions is not numbered 0, 1, 2, ...")

    outputs = {
        OUTPUT_DIR / "BuiltinOperator.swift": builtin_operator_swift(operators, digest),
        OUTPUT_DIR / "BuiltinOptionsType.swift": options_type_swift(members, digest),
        OUTPUT_DIR / "BuiltinOptionsFields.swift": options_fields_swift(source, members, digest),
    }
    stale = []
    for output, text in outputs.items():
        current = output.read_text(encoding="utf-8") if output.exists() else None
        if current == text:
            continue
        if arguments.check:
            stale.append(output.relative_to(ROOT))
        else:
            output.write_text(text, encoding="utf-8")
            print(f"wrote {output.relative_to(ROOT)}")
    if stale:
        names = ", ".join(str(name) for name in stale)
        sys.exit(f"{names} differ from the schema: run scripts/generate_schema_codes.py")


if __name__ == "__main__":
    main()
