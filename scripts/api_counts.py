#!/usr/bin/env python3
"""What kernel code spells: per file of `kernels/src` at a commit, the lines of code (not blank,
not comments) and the generic arguments written out (each argument of a turbofish `::<..>`, and
each argument written in a `Tile<..>` or `TileOf<..>` type), with the totals.

    python3 scripts/api_counts.py [COMMIT ...]   # default: the working tree
"""
import re
import subprocess
import sys


def files(commit):
    if commit is None:
        out = subprocess.run(["git", "ls-files", "kernels/src"], capture_output=True, text=True, check=True).stdout
        return {p: open(p).read() for p in out.split() if p.endswith(".rs")}
    out = subprocess.run(["git", "ls-tree", "-r", "--name-only", commit, "kernels/src"], capture_output=True, text=True, check=True).stdout
    return {p: subprocess.run(["git", "show", f"{commit}:{p}"], capture_output=True, text=True, check=True).stdout for p in out.split() if p.endswith(".rs")}


def code_lines(src):
    lines = []
    for line in src.splitlines():
        s = line.strip()
        if s and not s.startswith("//"):
            lines.append(line)
    return lines


def top_level_args(text):
    """The comma-separated arguments of `text` (the inside of `<..>`), nesting respected."""
    depth, n, seen = 0, 0, False
    for c in text:
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        elif c == "," and depth == 0:
            n += 1
            seen = False
            continue
        if not c.isspace():
            seen = True
    return n + (1 if seen else 0)


def angle_groups(src, start_pattern):
    """The insides of the `<..>` groups that follow each match of `start_pattern`."""
    for m in re.finditer(start_pattern, src):
        i, depth = m.end(), 1
        j = i
        while j < len(src) and depth:
            if src[j] == "<":
                depth += 1
            elif src[j] == ">" and src[j - 1] != "-":
                depth -= 1
            j += 1
        yield src[i : j - 1]


def generic_args(src):
    code = "\n".join(code_lines(src))
    turbofish = sum(top_level_args(g) for g in angle_groups(code, r"::<"))
    tiles = sum(top_level_args(g) for g in angle_groups(code, r"\bTile(?:Of)?<"))
    return turbofish + tiles


def main():
    commits = sys.argv[1:] or [None]
    for commit in commits:
        fs = files(commit)
        print(f"## {commit or 'working tree'}")
        print("| file | lines of code | generic arguments |")
        print("|---|---|---|")
        tl = tg = 0
        for p in sorted(fs):
            l, g = len(code_lines(fs[p])), generic_args(fs[p])
            tl, tg = tl + l, tg + g
            print(f"| {p} | {l} | {g} |")
        print(f"| total | {tl} | {tg} |")


if __name__ == "__main__":
    main()
