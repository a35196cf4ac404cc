#!/usr/bin/python3
"""docs/API.md's C++ blocks are runnable: each ```cpp block of the C++ part (before "## Python") must be, line
for line, one `// [snippet:NAME]` ... `// [end]` region of an examples/cpp/*.cpp program, which ctest builds
and runs (example.cpp.quantized_net). Usage: check_api_doc.py docs/API.md examples/cpp"""
import pathlib
import re
import sys


def main():
    doc = pathlib.Path(sys.argv[1]).read_text()
    cpp_part = doc.split("\n## Python", 1)[0]
    blocks = [b.rstrip("\n") for b in re.findall(r"```cpp\n(.*?)```", cpp_part, re.S)]
    regions = {}
    for src in sorted(pathlib.Path(sys.argv[2]).glob("*.cpp")):
        for name, body in re.findall(r"^[ \t]*// \[snippet:([\w-]+)\]\n(.*?)^[ \t]*// \[end\]", src.read_text(), re.S | re.M):
            regions[f"{src.name}:{name}"] = body.rstrip("\n")
    if not blocks:
        sys.exit("check_api_doc: no ```cpp blocks in the C++ part of " + sys.argv[1])
    missing = [b for b in blocks if b not in regions.values()]
    for b in missing:
        print("check_api_doc: this docs/API.md block is not a snippet region of examples/cpp:\n" + b, file=sys.stderr)
    if missing:
        sys.exit(1)
    print(f"check_api_doc: {len(blocks)} C++ blocks, each a region of {', '.join(sorted(regions))}")


if __name__ == "__main__":
    main()
