"""The ```python blocks of docs/API.md's "## Python" section run as written (in order, one namespace), in a
scratch directory where `models/` is the repository's."""
import os
import re

from conftest import SOURCE_DIR


def python_blocks():
    text = (SOURCE_DIR / "docs/API.md").read_text()
    start = text.index("\n## Python\n")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end >= 0 else len(text)]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_api_doc_python_snippets_run(tmp_path, monkeypatch):
    blocks = python_blocks()
    assert len(blocks) >= 4
    os.symlink(SOURCE_DIR / "models", tmp_path / "models")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__api_doc__"}
    for i, block in enumerate(blocks):
        exec(compile(block, f"docs/API.md python block {i + 1}", "exec"), namespace)
