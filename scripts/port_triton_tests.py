#!/usr/bin/env python3
"""Translate Triton's C++ layout unit tests into Rust tests that keep Triton's test names.

    python3 scripts/port_triton_tests.py TRITON/unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp \
        > layout-core/tests/triton_conversions.rs

The translation is mechanical: `auto x = ...;` becomes `let x = ...;`, brace lists of integers become
slices, `LinearLayout({...}, {...})` becomes the `ll!` macro (tests/common), and EXPECT_EQ becomes
assert_eq!. Tests that use features outside layout-core's scope (tensor memory, scale layouts,
ds_read_tr, chooseShemLayoutForRegToRegConversion) are listed in SKIPPED and left out; the generated
file names them in its header. Triton's source is not copied into this repository: run this on a
checkout of Triton.
"""
import re
import sys

SKIPPED = {
    # Tensor memory and scale layouts (Blackwell/AMD-only encodings not covered by layout-core).
    "TensorMemory_blockM_64": "tensor memory encoding",
    "TensorMemory_blockM_128": "tensor memory encoding",
    "TensorMemory_CTASplit": "tensor memory encoding",
    "SM120DotScaledScaleLayout": "scale layout generator",
    "ChooseShmemLayout": "chooseShemLayoutForRegToRegConversion (a conversion helper, not an encoding)",
    "ChooseShmemLayout_Empty": "chooseShemLayoutForRegToRegConversion",
    "ChooseShmemLayout_Multidim": "chooseShemLayoutForRegToRegConversion",
    "MFMA16_dot_op_lhs_trans_fp4_mn_packed": "ds_read_tr fp4 layout (chooseDsReadTrLayout)",
    "MFMA16_dot_op_rhs_trans_fp4_mn_packed": "ds_read_tr fp4 layout (chooseDsReadTrLayout)",
    "MFMA32_dot_op_lhs_trans_fp4_mn_packed": "ds_read_tr fp4 layout (chooseDsReadTrLayout)",
    "MFMA32_dot_op_rhs_tran_fp4_mn_packeds": "ds_read_tr fp4 layout (chooseDsReadTrLayout)",
    "NvmmaSharedToLinearLayout_TMAModeIndependence": "TMA im2col mode",
}


# Expectations where the Triton 3.9 wheel (what the differential suite checks against) differs from
# the source snapshot these tests come from: 3.9 drops blocked register bases that the shape
# clamps to zero (verified with to_linear_layout on triton==3.9.0).
OVERRIDES = {
    "Blocked4D": [('{S("register"), {{0, 0, 0, 0}, {0, 0, 0, 0}}}', '{S("register"), {}}')],
}


def matching(s, i, open_c, close_c):
    depth = 0
    for j in range(i, len(s)):
        if s[j] == open_c:
            depth += 1
        elif s[j] == close_c:
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced")


def protect_calls(body, name, macro):
    """Turn NAME(...) into MACRO!(...) and keep its inside verbatim (protected from brace rewriting)."""
    out, i, saved = "", 0, []
    pat = re.compile(r"\b" + re.escape(name) + r"\(")
    while True:
        m = pat.search(body, i)
        if not m:
            out += body[i:]
            break
        start = m.end() - 1
        end = matching(body, start, "(", ")")
        out += body[i:m.start()] + f"{macro}!(@@{len(saved)}@@)"
        saved.append(body[start + 1:end])
        i = end + 1
    return out, saved


def rewrite_calls(body, name, rewrite):
    """Replace each call `name(args)` (not a method or qualified call) by rewrite(args_text)."""
    out, i = "", 0
    pat = re.compile(r"(?<![\w.:])" + name + r"\(")
    while True:
        m = pat.search(body, i)
        if not m:
            return out + body[i:]
        start = m.end() - 1
        end = matching(body, start, "(", ")")
        out += body[i:m.start()] + rewrite(body[start + 1:end])
        i = end + 1


def split_args(inner):
    args, depth, cur = [], 0, ""
    for c in inner:
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        if c == "," and depth == 0:
            args.append(cur)
            cur = ""
        else:
            cur += c
    args.append(cur)
    return args


# C++ overloads and default arguments: the Rust helpers are named by arity.
OVERLOADED = ("mma", "mfma", "wmma", "nvmmaShared", "zeros1D")


def rename_overloads(body):
    for name in OVERLOADED:
        body = rewrite_calls(body, name, lambda a, name=name: f"{name}{len(split_args(a)) if a.strip() else 0}({a})")
    return body


BORROWING = ("toLinearLayout", "dot", "slice", "mfmaDotOp", "wmmaDotOp")


def borrow_args(body):
    """Helpers take encodings by reference: pass bare variables as `&x` so they can be reused."""
    def fix(a):
        bare = re.fullmatch(r"\s*[A-Za-z_]\w*\s*", a) and a.strip() not in ("true", "false")
        return "&" + a.strip() if bare else a
    for name in BORROWING:
        body = rewrite_calls(body, name, lambda inner, name=name: name + "(" + ",".join(fix(a) for a in split_args(inner)) + ")")
    return body


def translate_body(body):
    body = re.sub(r"/\*[^*]*\*/", "", body)
    body = re.sub(r"//[^\n]*", "", body)
    body = re.sub(r"\n\s*\n", "\n", body)
    body = rename_overloads(body)
    body = re.sub(r"\.transposeOuts\(\{([^}]*)\}\)", r".transpose_outs(&[\1]).unwrap()", body)
    body = re.sub(r"SmallVector<SmallVector<unsigned>,\s*\d+>\s*(\w+)\s*=\s*\{(.*)\};", r"let \1: Vec<&[u32]> = vec![\2];", body)
    body = re.sub(r"for \(auto (\w+) : (\w+)\) \{", r"for \1 in \2.iter().copied() {", body)
    body = re.sub(r"\s*SCOPED_TRACE\([^;]*\);", "", body)
    body, lls = protect_calls(body, "LinearLayout", "ll")
    # std::vector<...> x = {...}; loops are rare; leave them for manual review.
    body = re.sub(r"\bauto\s+(\w+)\s*=", r"let \1 =", body)
    body = re.sub(r"\b(?:LinearLayout|[A-Z]\w*Attr)\s+(\w+)\s*=", r"let \1 =", body)
    # Integer brace lists -> slices, innermost first.
    prev = None
    while prev != body:
        prev = body
        body = re.sub(r"\{\s*(-?\d+(?:\s*,\s*-?\d+)*)?\s*\}", lambda m: "&[" + (m.group(1) or "") + "]", body)
    body = body.replace("LinearLayout::", "")
    body = borrow_args(body)
    body = body.replace("EXPECT_THAT(", "assert_eq!(").replace("EXPECT_EQ(", "assert_eq!(")
    body = re.sub(r"\bllvm::to_vector\(", "to_vector(", body)
    for k, v in enumerate(lls):
        body = body.replace(f"@@{k}@@", v)
    return "\n".join(line.rstrip() for line in body.split("\n"))


def main():
    src = open(sys.argv[1]).read()
    tests = re.finditer(r"TEST_F\((\w+),\s*(\w+)\)\s*\{", src)
    print("//! Triton's unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp, ported with the same test")
    print("//! names and expected bases (generated by scripts/port_triton_tests.py, then reviewed).")
    print("//! Left out:")
    for k, v in SKIPPED.items():
        print(f"//! - {k}: {v}")
    print("#![allow(non_snake_case, unused_variables)]\n\nmod common;\nuse common::*;\n")
    for m in tests:
        name = m.group(2)
        start = m.end() - 1
        end = matching(src, start, "{", "}")
        if name in SKIPPED:
            continue
        body = translate_body(src[start + 1:end])
        for old, new in OVERRIDES.get(name, []):
            assert old in body, (name, old)
            body = body.replace(old, new)
        print(f"#[test]\nfn {name}() {{{body}}}\n")


if __name__ == "__main__":
    main()
