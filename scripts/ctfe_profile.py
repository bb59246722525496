#!/usr/bin/env python3
"""Where rustc's const evaluator spends its steps: the const planner's compile-time profile.

rustc logs each frame it pushes and each MIR statement it evaluates when built with its `info`
logs (the release toolchains are):

    RUSTC_LOG=rustc_const_eval::interpret=info CARGO_INCREMENTAL=0 cargo build 2> steps.log
    python3 scripts/ctfe_profile.py steps.log [FUNCTION]

A step is one MIR statement or terminator; a const evaluation's time follows its steps and its
calls (each call pushes a frame, resolves the callee and substitutes its generics), not the
bytes it copies. The report: steps per function, inclusive and exclusive, with the calls made;
with FUNCTION (a suffix of a path, generics dropped), the steps under each function it calls.
"""

import collections
import re
import sys

GENERICS = re.compile(r"::<[^>]*(<[^>]*>[^>]*)*>")


def frames(path):
    """Yield ("frame", stack) when a frame is pushed and ("step", stack) for each step."""
    stack = []
    with open(path, errors="replace") as f:
        for line in f:
            text = line.rstrip("\n")
            depth = (len(text) - len(text.lstrip(" "))) // 2
            if "stack::frame frame=" in text:
                stack = stack[:depth] + [GENERICS.sub("", text.split("frame=", 1)[1])]
                yield "frame", stack
            elif "interpret::step" in text and "executing bb" not in text:
                yield "step", stack[:depth]


def summary(path, top=30):
    inclusive, exclusive, calls = (collections.Counter() for _ in range(3))
    for kind, stack in frames(path):
        if kind == "frame":
            calls[stack[-1]] += 1
        elif stack:
            exclusive[stack[-1]] += 1
            for name in set(stack):
                inclusive[name] += 1
    total = sum(exclusive.values())
    print(f"{total} steps")
    for title, counts in (("inclusive", inclusive), ("exclusive", exclusive)):
        print(f"== {title}")
        for name, n in counts.most_common(top):
            print(f"{n:9d} {100 * n / max(total, 1):5.1f}%  calls={calls[name]:6d}  {name[:110]}")


def children(path, function, top=15):
    under = collections.Counter()
    for kind, stack in frames(path):
        if kind != "step":
            continue
        at = next((i for i, name in enumerate(stack) if name.endswith(function)), None)
        if at is not None:
            under[stack[at + 1] if len(stack) > at + 1 else "(itself)"] += 1
    for name, n in under.most_common(top):
        print(f"{n:9d}  {name[:110]}")


if __name__ == "__main__":
    if len(sys.argv) == 2:
        summary(sys.argv[1])
    elif len(sys.argv) == 3:
        children(sys.argv[1], sys.argv[2])
    else:
        sys.exit(__doc__)
