"""Write the output directory atomically.

Everything is written into a fresh temporary directory next to the target
and renamed into place only when complete, so an interrupted run leaves
either the previous output or none, never a mix.  (Replacing an existing
directory takes two renames; between them the directory is briefly absent.)
"""

from __future__ import annotations

import os
import shutil
import tempfile

from . import PrepareError

# A directory holding this file is taken to be earlier output, safe to replace.
MARKER = "stats.json"


def lines_file(lines) -> str:
    """File content with one item per line (and a final newline)."""
    lines = list(lines)
    for line in lines:
        if "\n" in line or "\r" in line:
            raise ValueError(f"line contains a line break: {line[:60]!r}")
    return "".join(line + "\n" for line in lines)


def write_atomically(out_dir: str, files: dict[str, str]) -> None:
    """Create ``out_dir`` holding exactly ``files`` (name -> UTF-8 text)."""
    target = os.path.abspath(out_dir)
    parent, name = os.path.split(target)
    if os.path.exists(target):
        if not os.path.isdir(target):
            raise PrepareError(f"{out_dir} exists and is not a directory")
        # Never move away a directory that is not ours (think of --out .).
        if (os.listdir(target) and not os.path.isfile(os.path.join(target, MARKER))) \
                or os.path.commonpath([target, os.getcwd()]) == target:
            raise PrepareError(f"refusing to replace {out_dir}: it is not empty and was not "
                               f"written by this command (no {MARKER})")
    try:
        os.makedirs(parent, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=f".{name}.tmp-", dir=parent)
    except OSError as exc:
        raise PrepareError(f"cannot create a directory in {parent}: {exc.strerror}") from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o777 & ~umask)
        for filename, text in files.items():
            with open(os.path.join(tmp, filename), "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
        old = None
        if os.path.exists(target):
            old = tmp + "-old"
            os.rename(target, old)
        try:
            os.rename(tmp, target)
        except OSError:
            if old is not None:
                os.rename(old, target)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise PrepareError(f"cannot write {out_dir}: {exc.strerror or exc}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
