#!/usr/bin/env python3
"""Reads an nmt checkpoint's values without torch: the standard library (zipfile, pickle) and numpy.

TorchScript is deprecated upstream and a future torch may refuse torch.jit.load; a checkpoint stays
readable without it. The archive is a zip; its data.pkl is a pickle whose objects are modules
(their attributes a dict) and whose tensors are torch._utils._rebuild_tensor_v2 over storages kept
as the zip records data/<key> (little-endian, C order). This script unpickles that with a few
stand-ins, returns every entry by its dotted name (as the digests table names them) and checks each
against its SHA-256 digest (docs/checkpoints.md), code records included.

    python3 scripts/reference/checkpoint_values.py CHECKPOINT     # verifies and prints a summary

From Python: values = read_checkpoint_values(path) -> {"format_version": 3, "model_config": "...",
"source_spm": uint8 array, "model.encoder.rnn.weight_ih_l0": float32 array, ...}.
"""
import hashlib
import io
import json
import pickle
import sys
import zipfile

import numpy as np

STORAGE_DTYPES = {"FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
                  "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
                  "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_}


class ScriptObject:
    """Any pickled TorchScript object (a module): its attributes."""

    def __setstate__(self, state):
        self.__dict__.update(state)


def rebuild_tensor(storage, offset, size, stride, *unused):
    """torch._utils._rebuild_tensor_v2 as numpy: a view of the storage, copied to C order."""
    if not size:
        return storage[offset].copy()
    strides = [s * storage.itemsize for s in stride]
    return np.lib.stride_tricks.as_strided(storage[offset:], shape=size, strides=strides).copy()


def read_checkpoint_values(path):
    """{dotted entry name: value} of the archive at `path` (ints, strings, numpy arrays), and
    {record name: bytes} of its code records ("code/...", "constants.pkl")."""
    with zipfile.ZipFile(path) as archive:
        records = {info.filename.split("/", 1)[-1]: info.filename for info in archive.infolist()}

        class Unpickler(pickle.Unpickler):
            def find_class(self, module, name):
                if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
                    return rebuild_tensor
                if module == "torch" and name in STORAGE_DTYPES:
                    return name
                if (module, name) == ("collections", "OrderedDict"):
                    return dict
                if module == "torch.jit._pickle":  # container type tags, build_intlist, ...: the value itself
                    return lambda value, *unused: value
                if module.startswith("__torch__"):
                    return ScriptObject
                raise pickle.UnpicklingError(f"{path}: unexpected global {module}.{name}")

            def persistent_load(self, pid):
                _, storage_type, key, _, _ = pid
                return np.frombuffer(archive.read(records[f"data/{key}"]), dtype=STORAGE_DTYPES[storage_type])

        root = Unpickler(io.BytesIO(archive.read(records["data.pkl"]))).load()
        code = {name: archive.read(full) for name, full in records.items()
                if name.startswith("code/") or name == "constants.pkl"}
    values = {}

    def walk(obj, prefix):
        for name, value in vars(obj).items():
            if isinstance(value, ScriptObject):
                walk(value, prefix + name + ".")
            else:
                values[prefix + name] = value
    walk(root, "")
    return values, code


def digest_bytes(value):
    """The bytes a digest covers (docs/checkpoints.md): a tensor's, a string's UTF-8, an int's decimal text."""
    if isinstance(value, np.ndarray):
        return np.ascontiguousarray(value).tobytes()
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bool):
        return b"true" if value else b"false"
    return str(value).encode("utf-8")


def verify(path, values, code):
    stored = json.loads(values["digests"])
    entries = {name: digest_bytes(value) for name, value in values.items() if name != "digests"}
    if values.get("format_version", 0) >= 3:
        entries.update(code)
    for name, data in entries.items():
        if name not in stored:
            raise SystemExit(f"{path}: entry {name} has no checksum")
        if hashlib.sha256(data).hexdigest() != stored[name]:
            raise SystemExit(f"{path}: entry {name} does not match its SHA-256 checksum")
    missing = set(stored) - set(entries)
    if missing:
        raise SystemExit(f"{path}: entries missing: {sorted(missing)[:3]}")


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    values, code = read_checkpoint_values(argv[1])
    verify(argv[1], values, code)
    config = json.loads(values["model_config"])
    parameters = sum(v.size for k, v in values.items() if k.startswith("model."))
    print(f"{argv[1]}: format {values['format_version']}, {config['attention']} attention, "
          f"{config['decoder_style']} decoder, {parameters} parameters, {len(values)} entries and "
          f"{len(code)} code records verified")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
