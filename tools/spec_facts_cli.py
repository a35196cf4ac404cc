"""The command line shared by the spec-table generators: extract (spec text -> facts JSON, a maintainer step),
emit (facts -> C++), check (the checked-in C++ is what emit makes from the checked-in facts; a ctest)."""
import difflib
import sys


def check(tool, emit, facts_path, generated_path):
    """0 when the generated file equals emit(facts); else prints the start of the diff and returns 1."""
    want = emit(facts_path)
    have = open(generated_path, encoding="utf-8").read()
    if want == have:
        print("%s: matches %s" % (generated_path, facts_path))
        return 0
    diff = list(difflib.unified_diff(have.splitlines(), want.splitlines(), generated_path, "emit", lineterm=""))
    print("\n".join(diff[:40]))
    print("%s differs from what tools/%s emits from %s (%d diff lines)" % (generated_path, tool, facts_path, len(diff)))
    return 1


def main(tool, extract_facts, emit, generated_ext):
    """extract_facts(spec_path) returns the facts JSON text; emit(facts_path) the generated source."""
    usage = "usage: %s extract SPEC.txt | emit FACTS.json | check FACTS.json GENERATED.%s" % (tool, generated_ext)
    if len(sys.argv) < 3:
        raise SystemExit(usage)
    verb = sys.argv[1]
    if verb == "extract":
        sys.stdout.write(extract_facts(sys.argv[2]))
    elif verb == "emit":
        sys.stdout.write(emit(sys.argv[2]))
    elif verb == "check" and len(sys.argv) == 4:
        sys.exit(check(tool, emit, sys.argv[2], sys.argv[3]))
    else:
        raise SystemExit(usage)
