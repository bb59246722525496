//! The `layout` binary end to end: Triton's output format, JSON modes, and bad input (a message
//! and exit status 2, never a panic).

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn layout(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_layout"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(s) = stdin {
        child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}
fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

const BLOCKED_1D: &str =
    "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [8], warpsPerCTA = [4], order = [0]}>";

const SMEM_1D: &str = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>";

/// Triton's DumpLayoutTest.SimpleBlocked, both views.
#[test]
fn simple_blocked_matches_triton() {
    let o = layout(&["-l", BLOCKED_1D, "-t", "tensor<4xi32>"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "Print layout attribute: {}\n{}",
            BLOCKED_1D,
            "[ T0:0| T4:0| T8:0|T12:0|T16:0|T20:0|T24:0|T28:0,  T1:0| T5:0| T9:0|T13:0|T17:0|T21:0|T25:0|T29:0,  T2:0| T6:0|T10:0|T14:0|T18:0|T22:0|T26:0|T30:0,  T3:0| T7:0|T11:0|T15:0|T19:0|T23:0|T27:0|T31:0]\n"
        )
    );
    // Triton's single-dash spelling works too.
    let o = layout(
        &["-l", BLOCKED_1D, "-t", "tensor<4xi32>", "-use-hw-view"],
        None,
    );
    let warp = "(0), (1), (2), (3), (0), (1), (2), (3)\n";
    assert_eq!(
        stdout(&o),
        format!(
            "Print layout attribute: {}\nWarp0:\n{w}Warp1:\n{w}Warp2:\n{w}Warp3:\n{w}",
            BLOCKED_1D,
            w = warp
        )
    );
}

/// Triton's DumpLayoutTest.Simple1DShared.
#[test]
fn simple_1d_shared_matches_triton() {
    let l = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 4, order = [0]}>";
    let o = layout(&["-l", l, "-t", "tensor<32xf16>"], None);
    let want = "[( 0),( 1),( 2),( 3),( 4),( 5),( 6),( 7),( 8),( 9),(10),(11),(12),(13),(14),(15),(16),(17),(18),(19),(20),(21),(22),(23),(24),(25),(26),(27),(28),(29),(30),(31)]\n";
    assert_eq!(
        stdout(&o),
        format!("Print layout attribute: {}\n{}", l, want)
    );
}

#[test]
fn json_has_bases_in_triton_order() {
    let l = "#ttg.blocked<{sizePerThread = [4, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>";
    let o = layout(&["-l", l, "-t", "tensor<64x16xf16>", "--json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o).trim(),
        r#"{"bases":{"register":[[0,1],[1,0],[2,0]],"lane":[[0,2],[0,4],[4,0],[8,0],[16,0]],"warp":[[0,8],[32,0]],"block":[]},"out_dims":[["dim0",64],["dim1",16]]}"#
    );
    let o = layout(
        &[
            "-l",
            "#ttg.swizzled_shared<{vec = 1, perPhase = 2, maxPhase = 4, order = [1, 0]}>",
            "-t",
            "tensor<4x4xf16>",
            "--json",
        ],
        None,
    );
    assert!(
        stdout(&o).starts_with(r#"{"bases":{"offset":"#),
        "{}",
        stdout(&o)
    );
}

#[test]
fn jsonl_answers_every_line_and_goes_on_after_errors() {
    let input = format!(
        "{}\n{}\n\n{}\n",
        serde_json::json!({"layout": BLOCKED_1D, "tensor": "tensor<4xi32>"}),
        serde_json::json!({"layout": "#ttg.blocked<{sizePerThread = [1]}>", "tensor": "tensor<4xi32>"}),
        "not json"
    );
    let o = layout(&["--jsonl"], Some(&input));
    // Every line is answered, and the failures make the status 2 with a message saying so.
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("2 of 3 requests failed") && stderr(&o).contains("input line 2"),
        "{}",
        stderr(&o)
    );
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[0]["bases"]["lane"],
        serde_json::json!([[1], [2], [0]])
    );
    assert!(
        lines[1]["error"]
            .as_str()
            .unwrap()
            .contains("missing the required key 'threadsPerWarp'"),
        "{}",
        lines[1]
    );
    assert!(lines[2]["error"].as_str().unwrap().contains("invalid JSON"));
}

#[test]
fn jsonl_without_failures_succeeds() {
    let line = serde_json::json!({"layout": BLOCKED_1D, "tensor": "tensor<4xi32>"});
    let o = layout(&["--jsonl"], Some(&format!("{}\n{}\n", line, line)));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 2);
    assert_eq!(stderr(&o), "");
}

/// A file to read with `-i`, in a directory of its own.
fn input_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("layout-cli-test-{}-{}", std::process::id(), name));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// An `-i` file without layouts is an error that says so and what to give instead, whether it
/// is empty or has only aliases that are no layouts (a memory space, locations).
#[test]
fn input_file_without_layouts_is_status_2() {
    let texts = [
        ("empty.ttgir", ""),
        (
            "no-layouts.ttgir",
            "#loc = loc(\"k.py\":3:0)\n#smem = #ttg.shared_memory\nmodule {\n} loc(#loc)\n",
        ),
    ];
    for (name, text) in texts {
        let path = input_file(name, text);
        let o = layout(&["-i", path.to_str().unwrap(), "-t", "tensor<4xi32>"], None);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("defines no layouts") && err.contains("-l") && !err.contains("skipping"),
            "{}",
            err
        );
        assert_eq!(stdout(&o), "");
        std::fs::remove_dir_all(path.parent().unwrap()).ok();
    }
}

/// The repository's `examples/kernel.ttgir`, which README's CLI examples read.
const KERNEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/kernel.ttgir");

/// A whole TTGIR dump with debug locations: the location aliases and the memory space are not
/// layouts and are passed over silently; a layout of another rank than the tensor is skipped
/// with a note when every alias is printed.
#[test]
fn kernel_dump_with_locations() {
    let o = layout(&["-i", KERNEL, "-t", "tensor<64x64xf16>"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let printed: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("Print layout attribute: #"))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        printed,
        ["blocked", "blocked1", "mma", "shared", "shared1"],
        "{}",
        stderr(&o)
    );
    assert_eq!(
        stderr(&o).trim(),
        "skipping #blocked2: rank mismatch: the layout has rank 1 (CGA rank 1), the tensor shape [64, 64] rank 2"
    );
    // Named, it is an error instead; a tensor no layout fits is one too.
    let o = layout(
        &[
            "-i",
            KERNEL,
            "-t",
            "tensor<64x64xf16>",
            "--alias-names",
            "blocked2",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = layout(&["-i", KERNEL, "-t", "tensor<4x4x4xf16>"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no layout of the input file fits this tensor"),
        "{}",
        stderr(&o)
    );
    // Both of its convert_layouts plan.
    for (src, dst, tensor) in [
        ("#mma", "#blocked1", "tensor<64x64xf16>"),
        (
            "#ttg.slice<{dim = 1, parent = #mma}>",
            "#blocked2",
            "tensor<64xf32>",
        ),
    ] {
        let o = layout(&["-i", KERNEL, "-l", src, "--to", dst, "-t", tensor], None);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stdout(&o).starts_with("conversion of "), "{}", stdout(&o));
    }
}

/// `layout ... | head -1`: the reader goes away after one line of a long output; `layout` stops
/// quietly (no panic, no "Broken pipe"), in every output mode.
#[test]
fn closed_stdout_ends_quietly() {
    use std::io::{BufRead, BufReader};
    let big = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
    let line = serde_json::json!({"layout": big, "tensor": "tensor<256x256xf16>"}).to_string();
    let requests = input_file("requests.jsonl", &format!("{}\n", line).repeat(2000));
    let runs: [(&[&str], Option<&std::path::Path>); 3] = [
        (&["-l", big, "-t", "tensor<256x256xf16>", "--table"], None),
        (
            &["-l", big, "-t", "tensor<256x256xf16>", "--use-hw-view"],
            None,
        ),
        (&["--jsonl"], Some(&requests)),
    ];
    for (args, input) in runs {
        let stdin = match input {
            Some(p) => Stdio::from(std::fs::File::open(p).unwrap()),
            None => Stdio::null(),
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_layout"))
            .args(args)
            .stdin(stdin)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(!first.is_empty(), "{:?}", args);
        // The reader is dropped here: the pipe is closed with most of the output unwritten.
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{:?}: {}", args, stderr(&o));
        assert_eq!(stderr(&o), "", "{:?}", args);
    }
    std::fs::remove_dir_all(requests.parent().unwrap()).ok();
}

/// The CLI examples of README.md, run as written from the repository root (in a scratch copy of
/// it holding `examples/`, so that `-o picture.tex` lands there): each must succeed and print
/// something, with no optional-syntax brackets to edit out first. The first example's layout is
/// also one `layout!` accepts (a whole warp of lanes).
#[cfg(unix)]
#[test]
fn readme_cli_examples_run_as_written() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = readme
        .split("### The CLI")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README.md has a section '### The CLI'");
    let prefix = "cargo run -p layout-cli --";
    // The lines of its ```sh blocks that run the CLI (the others are comments).
    let commands: Vec<&str> = section
        .split("```sh\n")
        .skip(1)
        .flat_map(|block| block.split("```").next().unwrap().lines())
        .filter(|l| !l.starts_with('#') && l.contains(prefix))
        .collect();
    assert!(commands.len() >= 10, "{:?}", commands);
    let dir = std::env::temp_dir().join(format!("layout-cli-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(root.join("examples"), dir.join("examples")).unwrap();
    std::os::unix::fs::symlink(root.join("fixtures"), dir.join("fixtures")).unwrap();
    let bin = format!("'{}'", env!("CARGO_BIN_EXE_layout"));
    for cmd in &commands {
        assert!(!cmd.contains(" [-"), "optional-syntax brackets in: {}", cmd);
        let o = Command::new("sh")
            .arg("-c")
            .arg(cmd.replace(prefix, &bin))
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}\n{}", cmd, stderr(&o));
        let wrote = cmd.contains(" -o ");
        assert!(wrote || !o.stdout.is_empty(), "{}: no output", cmd);
    }
    assert!(dir.join("picture.tex").exists());
    assert!(dir.join("explain/index.html").exists());
    std::fs::remove_dir_all(&dir).ok();

    let first = commands[0];
    let quoted: Vec<&str> = first.split('\'').skip(1).step_by(2).collect();
    let [l, t] = quoted[..] else {
        panic!("the first example is -l '...' -t '...': {}", first)
    };
    let attr = layout_core::parse::parse_attribute(l, &Default::default()).unwrap();
    let ty = layout_core::parse::parse_tensor_type(t, &Default::default()).unwrap();
    if let Err(e) = layout_core::spec::solve_attr(&attr, &ty.shape, None) {
        panic!(
            "README's first CLI layout is no valid layout! one: {}",
            e.message
        );
    }
}

#[test]
fn alias_file_selected_names_and_output_file() {
    let dir = std::env::temp_dir().join(format!("layout-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("k.ttgir");
    std::fs::write(
        &input,
        "#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [8], warpsPerCTA = [4], order = [0]}>\n\
         #shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 4, order = [0]}>\n\
         module {\n}\n",
    )
    .unwrap();
    let out = dir.join("out.txt");
    let o = layout(
        &[
            "-i",
            input.to_str().unwrap(),
            "-t",
            "tensor<4xi32>",
            "-alias-names=blocked",
            "-o",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with(&format!(
            "Print layout attribute: #blocked = {}\n[ T0:0|",
            BLOCKED_1D
        )),
        "{}",
        text
    );
    let o = layout(
        &["-i", input.to_str().unwrap(), "-t", "tensor<4xi32>"],
        None,
    );
    let all = stdout(&o);
    assert!(
        all.contains("#blocked = ") && all.contains("#shared = "),
        "{}",
        all
    );
    let o = layout(
        &[
            "-i",
            input.to_str().unwrap(),
            "-t",
            "tensor<4xi32>",
            "--alias-names",
            "mma",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("can't find the layout attribute #mma"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_is_a_message_and_status_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["-l", BLOCKED_1D], "must specify the tensor type"),
        (&["-l", BLOCKED_1D, "-t", "tensor<4x>"], "in the tensor type"),
        (&["-l", "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [8], warpsPerCTA = [4], ordr = [0]}>", "-t", "tensor<4xi32>"], "did you mean 'order'?"),
        (&["-l", "#ttg.blocekd<{}>", "-t", "tensor<4xi32>"], "did you mean 'blocked'?"),
        (&["-l", "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [8], warpsPerCTA = [4], order = [0]", "-t", "tensor<4xi32>"], "line 1, column"),
        (&["-l", "#mma", "-t", "tensor<4xi32>"], "unknown alias '#mma'"),
        (&["-l", "#ttg.blocked<{sizePerThread = [3], threadsPerWarp = [8], warpsPerCTA = [4], order = [0]}>", "-t", "tensor<4xi32>"], "power of two"),
        (&["-l", BLOCKED_1D, "-t", "tensor<6xi32>"], "power of 2"),
        (&["-i", "/nonexistent/file.ttgir", "-t", "tensor<4xi32>"], "could not open input file"),
        (&["--no-such-flag"], "unexpected argument"),
        (&["-l", BLOCKED_1D, "-t", "tensor<4xi32>", "--table", "--json"], "cannot be used with"),
        (&["-l", BLOCKED_1D, "-t", "tensor<131072xi32>", "--table"], "draw a smaller tensor"),
        (&["-l", BLOCKED_1D, "-t", "tensor<64xf32>", "--strategy", "shared"], "--to"),
        (&["-l", SMEM_1D, "--to", SMEM_1D, "-t", "tensor<64xf32>"], "both layouts are shared"),
        (&["-l", BLOCKED_1D, "--to", "#ttg.blocked<{}>", "-t", "tensor<64xf32>"], "in the layout (--to)"),
        (&["-l", BLOCKED_1D, "--to", BLOCKED_1D, "-t", "tensor<64xf32>", "--strategy", "sideways"], "invalid value 'sideways'"),
        (&["-l", BLOCKED_1D, "--to", BLOCKED_1D, "-t", "tensor<64xf32>", "--target", "sm_75"], "unknown --target 'sm_75'"),
        (&["-l", BLOCKED_1D, "--to", BLOCKED_1D, "-t", "tensor<64xf32>", "--target", "spirv_16"], "target spirv_16 has 16"),
    ];
    for (args, want) in cases {
        let o = layout(args, None);
        assert_eq!(o.status.code(), Some(2), "{:?}: {}", args, stderr(&o));
        assert!(
            stderr(&o).contains(want),
            "{:?}: expected '{}' in: {}",
            args,
            want,
            stderr(&o)
        );
        assert!(!stderr(&o).contains("panicked"), "{:?}", args);
    }
}

/// `--table`: CuTe's print_layout grid; `--latex`: a TikZ picture coloured by bank for shared
/// layouts (here a 128-byte swizzle of f16: eight 16-byte chunks of a row on distinct banks).
#[test]
fn table_and_latex_pictures() {
    let o = layout(&["-l", BLOCKED_1D, "-t", "tensor<4xi32>", "--table"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "4 tensor; cell = T<thread>:<register>; 4 of 4 elements have several holders (the first is shown)\n\
         \x20      0      1      2      3  \n\
         \x20  +------+------+------+------+\n\
         0  | T0:0 | T1:0 | T2:0 | T3:0 |\n\
         \x20  +------+------+------+------+\n"
    );
    let nvmma =
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>";
    let o = layout(&["-l", nvmma, "-t", "tensor<8x64xf16>", "--latex"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tex = stdout(&o);
    assert!(tex.contains("\\begin{tikzpicture}") && tex.ends_with("\\end{document}\n"));
    assert_eq!(tex.matches("\\node[fill=").count(), 8 * 64);
    // Row 1 starts at offset 72: element 0 of chunk 9, bank (72 * 16 / 32) % 32 = 4.
    assert!(
        tex.contains("\\node[fill=c4s0] at (1,0) {72};"),
        "{}",
        &tex[..400]
    );
}

/// `layout -l src --to dst -t tensor --json`, which must succeed, parsed.
fn plan_json(src: &str, dst: &str, tensor: &str) -> serde_json::Value {
    let o = layout(&["-l", src, "--to", dst, "-t", tensor, "--json"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

/// `--to`: the plan `convert!` would emit, as text or JSON.
#[test]
fn conversion_plans() {
    let rows = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>";
    let cols = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>";
    let v = plan_json(rows, cols, "tensor<64x64xf16>");
    assert_eq!(v["strategy"], "SharedMemory");
    assert_eq!(v["element_bits"], 16);
    assert_eq!(v["shared_bytes"], 64 * 64 * 2);
    assert_eq!(v["vector"], 8);
    assert_eq!(
        (v["write_conflicts"].as_u64(), v["read_conflicts"].as_u64()),
        (Some(0), Some(0))
    );
    // Each side's instruction, as PTX names it.
    assert_eq!(v["store"]["instruction"], "st.shared.v4.b32");
    assert_eq!(
        v["load"]["instruction"],
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"
    );
    assert_eq!(
        (
            v["store"]["count"].as_u64(),
            v["store"]["elements"].as_u64()
        ),
        (Some(4), Some(8))
    );
    let o = layout(&["-l", rows, "--to", cols, "-t", "tensor<64x64xf16>"], None);
    assert!(
        stdout(&o).contains(
            "  per thread: 4 stores of 8 elements (st.shared.v4.b32)\n  per thread: 4 loads of 8 elements (ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16)\n"
        ),
        "{}",
        stdout(&o)
    );
    // Lanes that read the same source (every warp holds the whole source): a gather, as
    // Triton 3.9 emits it (two shuffles, one select), in singular where it is one.
    let two = "#ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>";
    let one = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>";
    let o = layout(&["-l", two, "--to", one, "-t", "tensor<64xf32>"], None);
    assert_eq!(
        stdout(&o),
        "conversion of 32-bit elements: warp shuffles (lanes reading the same source)\n  per thread: 2 shuffles, 1 select\n"
    );
    // One register bit swapped with one lane bit: shuffles.
    let a = "#ttg.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [], block = []}>";
    let b = "#ttg.linear<{register = [[0, 1], [1, 0]], lane = [[0, 4], [0, 8], [0, 2], [2, 0], [4, 0]], warp = [], block = []}>";
    let o = layout(&["-l", a, "--to", b, "-t", "tensor<8x16xf32>"], None);
    assert_eq!(
        stdout(&o),
        "conversion of 32-bit elements: warp shuffles\n  per thread: 2 shuffles, 6 selects\n"
    );
    let o = layout(
        &[
            "-l",
            a,
            "--to",
            b,
            "-t",
            "tensor<8x16xf32>",
            "--strategy",
            "shared",
        ],
        None,
    );
    assert!(
        stdout(&o).starts_with("conversion of 32-bit elements: shared memory\n"),
        "{}",
        stdout(&o)
    );
    // A store into a shared layout.
    let smem =
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>";
    let o = layout(&["-l", rows, "--to", smem, "-t", "tensor<64x64xf16>"], None);
    assert!(
        stdout(&o).starts_with(
            "store to shared memory of 16-bit elements\n  per thread: 8 stores of 4 elements (st.shared.v2.b32)\n"
        ),
        "{}",
        stdout(&o)
    );
}

/// `--to` between layouts of a 2-CTA cluster that split the tensor differently: distributed
/// shared memory and cluster barriers (Triton 3.9 emits the same counts); a target without
/// cluster memory refuses, naming it.
#[test]
fn cluster_conversion_plans() {
    let rows = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]}>";
    let cols = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1], CTAsPerCGA = [1, 2], CTASplitNum = [1, 2], CTAOrder = [0, 1]}>";
    let v = plan_json(rows, cols, "tensor<64x64xf32>");
    assert_eq!(v["barrier"], "Cluster");
    assert_eq!(
        (v["stores"].as_u64(), v["loads"].as_u64()),
        (Some(16), Some(16))
    );
    // Each CTA's buffer holds its half of the tensor.
    assert_eq!(v["shared_bytes"], 64 * 64 * 4 / 2);
    let o = layout(&["-l", rows, "--to", cols, "-t", "tensor<64x64xf32>"], None);
    assert!(
        stdout(&o).ends_with(
            "  barriers: 2 (cluster: data moves between CTAs through distributed shared memory)\n"
        ),
        "{}",
        stdout(&o)
    );
    let args = [
        "-l",
        rows,
        "--to",
        cols,
        "-t",
        "tensor<64x64xf32>",
        "--target",
        "spirv_32",
    ];
    let o = layout(&args, None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("target spirv_32 has no cluster shared memory"),
        "{}",
        stderr(&o)
    );
}

/// `--target`: sm_90 stores this MMA accumulator with `stmatrix` (4 instead of 8 plain stores),
/// sm_80 has no `stmatrix`, and a Vulkan target has no matrix instructions at all.
#[test]
fn target_plans_use_only_its_instructions() {
    let acc = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>";
    let smem =
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>";
    let stores = |target: &str| {
        let args = [
            "-l",
            acc,
            "--to",
            smem,
            "-t",
            "tensor<64x64xf16>",
            "--json",
            "--target",
            target,
        ];
        let o = layout(&args, None);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
        v["stores"].as_u64()
    };
    let (hopper, ampere, vulkan) = (stores("sm_90"), stores("sm_80"), stores("spirv_32"));
    assert!(hopper < ampere, "{:?} {:?}", hopper, ampere);
    assert_eq!(ampere, vulkan);
}

const COLUMNS: &str = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>";

#[test]
fn conflicts_reports_each_instruction_per_phase() {
    // A column of 32 floats per warp into an unswizzled row-major buffer: every lane's word is in
    // bank 0 (rows are 128 bytes), 32 wavefronts per store; the XOR swizzle spreads them.
    let plain = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>";
    let o = layout(
        &[
            "conflicts",
            "-l",
            plain,
            "--access",
            COLUMNS,
            "-t",
            "tensor<32x32xf32>",
            "--store",
        ],
        None,
    );
    let text = stdout(&o);
    assert!(
        text.starts_with("store of tensor<32x32xf32>: 8 x st.shared.b32 per thread; per warp 256 wavefronts, ideal 8: 248 bank conflicts"),
        "{}",
        text
    );
    assert!(
        text.contains("lanes 0-31: 32 wavefronts; bank 0 holds the words at bytes [0, 128, 256,")
    );
    let swizzled = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 32, order = [1, 0]}>";
    let o = layout(
        &[
            "conflicts",
            "-l",
            swizzled,
            "--access",
            COLUMNS,
            "-t",
            "tensor<32x32xf32>",
            "--json",
        ],
        None,
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    for side in v["sides"].as_array().unwrap() {
        assert_eq!(side["conflicts"], 0, "{}", side);
        assert_eq!(side["wavefronts"], side["ideal"]);
    }
    assert_eq!(v["sides"][0]["op"], "store");
    assert_eq!(
        v["sides"][1]["instructions"][0]["phases"][0]["lanes"],
        serde_json::json!([0, 31])
    );
}

#[test]
fn conflicts_refuses_layouts_given_the_wrong_way_round() {
    let o = layout(
        &[
            "conflicts",
            "-l",
            COLUMNS,
            "--access",
            COLUMNS,
            "-t",
            "tensor<32x32xf32>",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("give the shared layout with -l and the distributed one with --access")
    );
}

/// Whole modules as Triton 3.9 writes them (locations, `#smem = #ttg.shared_memory`), from
/// `scripts/triton_tutorial_ttgir.py`.
#[test]
fn whole_triton_dumps_are_read() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/ttgir");
    let cases = [
        ("vector_add", "tensor<1024xf32>", "blocked"),
        ("softmax", "tensor<1024xf32>", "blocked"),
        ("matmul", "tensor<128x128xf16>", "mma"),
        ("matmul", "tensor<128x32xf16>", "shared"),
    ];
    for (file, tensor, alias) in cases {
        let path = format!("{}/{}.ttgir", dir, file);
        assert!(std::fs::read_to_string(&path).unwrap().contains("#loc"));
        let o = layout(&["-i", &path, "-t", tensor, "--alias-names", alias], None);
        assert!(o.status.success(), "{}: {}", file, stderr(&o));
        assert!(stdout(&o).starts_with(&format!("Print layout attribute: #{} = #ttg.", alias)));
    }
}

const TTGIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/ttgir/");

#[test]
fn explain_names_each_op_by_result_and_source_line_dearest_first() {
    let f = format!("{}matmul_sm80.ttgir", TTGIR);
    let out = layout(&["explain", &f], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(
            "5 ops that move tensors between layouts or tensor memory, planned for sm_80"
        ),
        "{}",
        text
    );
    // The epilogue's convert_layout costs most; its result and kernel line lead.
    assert!(text.contains("\n1. %10 (triton_tutorial_ttgir.py:37): ttg.convert_layout #mma -> #blocked1 (128x128xf16)"), "{}", text);
    assert!(text.contains("%acc_43 (triton_tutorial_ttgir.py:35): ttg.local_load #shared -> #ttg.dot_op<{opIdx = 0"), "{}", text);
    assert!(
        text.contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16"),
        "{}",
        text
    );
    let out = layout(&["explain", &f, "--json"], None);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let ops = v["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 5);
    assert_eq!(ops[0]["result"], "%10");
    assert_eq!(ops[0]["source"]["line"], 37);
    assert_eq!(ops[0]["plan"]["strategy"], "SharedMemory");
    let weights: Vec<u64> = ops.iter().map(|o| o["weight"].as_u64().unwrap()).collect();
    assert!(weights.windows(2).all(|w| w[0] >= w[1]), "{:?}", weights);
}

#[test]
fn explain_html_writes_an_index_linking_each_conversion() {
    let dir = std::env::temp_dir().join(format!("explain-{}", std::process::id()));
    let f = format!("{}attention_pipelined.ttgir", TTGIR);
    let out = layout(
        &["explain", &f, "--html", "-o", dir.to_str().unwrap()],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
    // Two allocations without a value move nothing and get no page; the other three do.
    assert_eq!(index.matches("<a href=\"op").count(), 3, "{}", index);
    let page = std::fs::read_to_string(dir.join("op1.html")).unwrap();
    assert!(page.contains("%8 (triton_tutorial_ttgir.py:84)") && page.contains("id=\"dst\""));
    std::fs::remove_dir_all(&dir).ok();
    // Bad input: a message and status 2.
    let out = layout(&["explain", "/no/such.ttgir"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("could not open /no/such.ttgir"));
    let bad = input_file(
        "bad.ttgir",
        "%1 = ttg.convert_layout %0 : tensor<4xf32, #nope> -> tensor<4xf32>\n",
    );
    let out = layout(&["explain", bad.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("line 1: ttg.convert_layout:"),
        "{}",
        stderr(&out)
    );
    let out = layout(&["explain", &f, "--html"], None);
    assert_eq!(out.status.code(), Some(2), "--html needs -o");
    // A file that is no dump at all: status 2, not "0 ops".
    let prose = input_file("notes.txt", "Some notes about layouts.\n");
    let out = layout(&["explain", prose.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("is no TTGIR module"),
        "{}",
        stderr(&out)
    );
}

/// The README's picture is what `layout --svg` draws today.
#[test]
fn readme_picture_is_current() {
    let out = layout(
        &[
            "-l",
            "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>",
            "-t",
            "tensor<16x16xf16>",
            "--svg",
        ],
        None,
    );
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/mma-16x16.svg");
    assert!(
        stdout(&out) == std::fs::read_to_string(file).unwrap(),
        "docs/mma-16x16.svg is stale: rewrite it with the command in this test (-o docs/mma-16x16.svg)"
    );
}

/// `--reduce` and `--scan` print the plan `Tile::reduce` / `Tile::scan` would run: a reduction
/// within a warp costs butterflies only; one across warps stages through shared memory between
/// barriers; the JSON carries the integer fields; bad dims and shared layouts are errors.
#[test]
fn reduce_and_scan_plans_and_costs() {
    let wide = "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [1, 0]}>";
    let o = layout(
        &[
            "-l",
            wide,
            "-t",
            "tensor<16x64xf32>",
            "--reduce",
            "0",
            "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // Dim 0: 2 registers, then 8 lanes (3 butterflies) for each of the 4 remaining registers.
    assert_eq!(
        (
            v["shuffles"].as_u64(),
            v["barriers"].as_u64(),
            v["shared_bytes"].as_u64()
        ),
        (Some(12), Some(0), Some(0))
    );
    let o = layout(
        &[
            "-l",
            wide,
            "-t",
            "tensor<16x64xf32>",
            "--reduce",
            "1",
            "--json",
        ],
        None,
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // Dim 1: 2 lane bits and 2 warp bits, 2 registers left: 4 shuffles, then one 8-byte store
    // and load of each warp's partials and 4 more shuffles across the warps: Triton 3.9's count
    // for this reduction too (8 shfl, st.shared.v2, ld.shared.v2, 256 bytes, 1 barrier).
    let got = ["shuffles", "stores", "loads", "barriers", "shared_bytes"].map(|k| v[k].as_u64());
    assert_eq!(got, [8, 1, 1, 1, 256].map(Some));
    let o = layout(
        &["-l", wide, "-t", "tensor<16x64xf16>", "--scan", "1"],
        None,
    );
    assert!(
        stdout(&o).contains(
            "register bit 0, lane bit 0, lane bit 1, warp bit 0, warp bit 1, register bit 2"
        ),
        "{}",
        stdout(&o)
    );
    for (args, want) in [
        (
            &["-l", wide, "-t", "tensor<16x64xf32>", "--reduce", "2"][..],
            "the tensor has 2 dims",
        ),
        (
            &["-l", SMEM_1D, "-t", "tensor<64xf32>", "--scan", "0"][..],
            "distributed layout",
        ),
        (
            &[
                "-l",
                wide,
                "-t",
                "tensor<16x64xf32>",
                "--reduce",
                "1",
                "--to",
                wide,
            ][..],
            "cannot be used with",
        ),
        (
            &[
                "-l",
                wide,
                "-t",
                "tensor<16x64xi32>",
                "--scan",
                "1",
                "--combine",
                "max",
            ][..],
            "a scan takes none",
        ),
        (
            &["-l", wide, "-t", "tensor<16x64xi32>", "--combine", "max"][..],
            "give the dim with --reduce",
        ),
        (
            &[
                "-l",
                wide,
                "-t",
                "tensor<16x64xf32>",
                "--reduce",
                "1",
                "--combine",
                "xor",
            ][..],
            "combine integers",
        ),
    ] {
        let o = layout(args, None);
        assert_eq!(o.status.code(), Some(2), "{:?}", args);
        assert!(stderr(&o).contains(want), "{:?}: {}", args, stderr(&o));
    }
}

/// A reduction of integers of at most 32 bits over a whole warp takes one `redux.sync` per
/// output register (the JSON's `redux` field) in place of five shuffles, as Triton lowers
/// `tl.sum` of `i32`; floats, 64-bit integers, a custom combiner and a partial warp do not.
#[test]
fn whole_warp_integer_reductions_count_redux_sync() {
    let row = "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>";
    let run = |ty: &str, extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["-l", row, "-t", ty, "--reduce", "1", "--json"];
        args.extend_from_slice(extra);
        let o = layout(&args, None);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    let v = run("tensor<4x64xi32>", &[]);
    assert_eq!(
        (v["redux"].as_u64(), v["shuffles"].as_u64()),
        (Some(1), Some(0))
    );
    let v = run("tensor<4x64xi8>", &["--combine", "min"]);
    assert_eq!(v["redux"].as_u64(), Some(1));
    assert_eq!(v["combine"].as_str(), Some("min"));
    let v = run("tensor<4x64xui32>", &["--combine", "max"]);
    assert_eq!(v["redux"].as_u64(), Some(1));
    for (ty, extra) in [
        ("tensor<4x64xf32>", &[][..]),
        ("tensor<4x64xi64>", &[][..]),
        ("tensor<4x64xi32>", &["--combine", "custom"][..]),
    ] {
        let v = run(ty, extra);
        assert_eq!(v.get("redux"), None, "{} {:?}", ty, extra);
        assert!(v["shuffles"].as_u64().unwrap() >= 5);
    }
    let part = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
    let o = layout(
        &[
            "-l",
            part,
            "-t",
            "tensor<16x32xi32>",
            "--reduce",
            "1",
            "--json",
        ],
        None,
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!((v.get("redux"), v["shuffles"].as_u64()), (None, Some(3)));
}

/// Blackwell's tensor-memory layouts print as JSON with in-dims `row, col, block` (Triton's
/// bases), as text (each element's row and column, or each row's elements) and as pictures
/// (cells `R<row>:C<column>`, coloured by row: the lane a `tcgen05.ld` gives it to); `--to`,
/// which plans register and shared-memory moves, says why it does not apply.
#[test]
fn tensor_memory_layouts_print_as_json_text_and_pictures() {
    let tmem = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>";
    let o = layout(&["-l", tmem, "-t", "tensor<128x8xf16>", "--json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        v["bases"]["col"],
        serde_json::json!([[0, 1], [0, 2], [0, 4]])
    );
    assert_eq!(v["bases"]["row"].as_array().unwrap().len(), 7);
    let o = layout(&["-l", tmem, "-t", "tensor<128x8xf16>"], None);
    assert!(stdout(&o).contains("[[  R0:C0,   R0:C1,"), "{}", stdout(&o));
    let o = layout(
        &["-l", tmem, "-t", "tensor<128x8xf16>", "--use-hw-view"],
        None,
    );
    assert!(
        stdout(&o).contains("rows 96-127 (warps 3 mod 4):\nR96: (96,0),"),
        "{}",
        stdout(&o)
    );
    let o = layout(&["-l", tmem, "-t", "tensor<128x8xf16>", "--table"], None);
    assert!(
        stdout(&o).contains("\n 33  |  R33:C0 |  R33:C1 |"),
        "{}",
        stdout(&o)
    );
    // Row 33 is lane 1 of warp 1: thread colour 1, second shade, as thread 33 would be.
    let o = layout(&["-l", tmem, "-t", "tensor<128x8xf16>", "--latex"], None);
    assert!(
        stdout(&o).contains("\\node[fill=c1s1] at (33,2) {R33:C2};"),
        "{}",
        stdout(&o)
    );
    let o = layout(
        &[
            "-l",
            tmem,
            "-t",
            "tensor<128x8xf16>",
            "--svg",
            "--colour-by",
            "warp",
        ],
        None,
    );
    assert!(
        stdout(&o).contains("warp (mod 4) that reaches the row"),
        "{}",
        stderr(&o)
    );
    for (args, want) in [
        (
            &[
                "-l",
                tmem,
                "-t",
                "tensor<128x8xf16>",
                "--svg",
                "--colour-by",
                "bank",
            ][..],
            "a tensor-memory layout has no banks",
        ),
        (
            &["-l", tmem, "-t", "tensor<128x8xf16>", "--to", BLOCKED_1D][..],
            "tensor-memory",
        ),
    ] {
        let o = layout(args, None);
        assert_eq!(o.status.code(), Some(2), "{:?}", args);
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
    }
}

/// `--target` gives a picture its banks: gfx950's 64 put offset 32 (f32) in bank 32, a darker
/// shade of bank 0's hue, where sm_90's 32 banks put it in bank 0 itself.
#[test]
fn pictures_colour_banks_of_the_target() {
    let smem = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>";
    let args = |target: &'static str| -> Vec<&'static str> {
        let mut a = vec!["-l", smem, "-t", "tensor<2x64xf32>", "--latex"];
        if !target.is_empty() {
            a.extend(["--target", target]);
        }
        a
    };
    let tex = |target| stdout(&layout(&args(target), None));
    assert!(tex("").contains("\\node[fill=c0s0] at (0,32) {32};"));
    assert!(tex("sm_90").contains("\\node[fill=c0s0] at (0,32) {32};"));
    assert!(tex("gfx950").contains("\\node[fill=c0s1] at (0,32) {32};"));
    let o = layout(
        &[
            "-l",
            smem,
            "-t",
            "tensor<2x64xf32>",
            "--svg",
            "--target",
            "gfx950",
        ],
        None,
    );
    assert!(
        stdout(&o).contains("4-byte banks, 64 of them"),
        "{}",
        stderr(&o)
    );
    // A view that draws no banks and plans nothing says --target does nothing there.
    let o = layout(
        &["-l", smem, "-t", "tensor<2x64xf32>", "--target", "gfx950"],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("this view uses neither"),
        "{}",
        stderr(&o)
    );
}

/// `--cute` prints CuTe's notation (CuTe's SW128 atom for halves, as CuTe prints it), `-l`
/// reads it back, and a layout with no CuTe form is status 2 with the reason.
#[test]
fn cute_notation_both_ways() {
    let nvmma =
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>";
    let o = layout(&["-l", nvmma, "-t", "tensor<8x64xf16>", "--cute"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "Sw<3,4,3> o smem_ptr[16b](unset) o (8,64):(64,1)\n"
    );
    let json = |l: &str| {
        stdout(&layout(
            &["-l", l, "-t", "tensor<8x64xf16>", "--json"],
            None,
        ))
    };
    assert_eq!(
        json(nvmma),
        json("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)")
    );
    let mma = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>";
    let o = layout(&["-l", mma, "-t", "tensor<16x8xf32>", "--cute"], None);
    assert_eq!(
        stdout(&o),
        "tv(((4,8),(2,2)):((32,1),(16,8)))\n",
        "{}",
        stderr(&o)
    );
    let broadcast = "#ttg.linear<{register = [[0, 1]], lane = [[1, 1], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [], block = []}>";
    let o = layout(&["-l", broadcast, "-t", "tensor<32x2xf32>", "--cute"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("both move index bit 5"),
        "{}",
        stderr(&o)
    );
    let o = layout(&["-l", "(4,2):(1,2)", "-t", "tensor<4x2xf16>"], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("not linear over GF(2)"),
        "{}",
        stderr(&o)
    );
}

/// `--tmem-reg`: the registers a tcgen05.ld fills, as Gluon's get_tmem_reg_layout gives them.
#[test]
fn tensor_memory_loads_in_registers() {
    let tmem = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>";
    let o = layout(
        &[
            "-l",
            tmem,
            "-t",
            "tensor<128x64xf16>",
            "--tmem-reg",
            "16x256b",
            "--json",
        ],
        None,
    );
    assert_eq!(
        stdout(&o),
        "{\"bases\":{\"register\":[[0,1],[0,2],[8,0],[0,16],[0,32],[16,0]],\"lane\":[[0,4],[0,8],[1,0],[2,0],[4,0]],\"warp\":[[32,0],[64,0]],\"block\":[]},\"out_dims\":[[\"dim0\",128],[\"dim1\",64]]}\n",
        "{}",
        stderr(&o)
    );
    let o = layout(
        &[
            "-l",
            tmem,
            "-t",
            "tensor<128x4xf32>",
            "--tmem-reg",
            "16x256b",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("narrower message"), "{}", stderr(&o));
    let o = layout(
        &[
            "-l",
            BLOCKED_1D,
            "-t",
            "tensor<128xf32>",
            "--tmem-reg",
            "32x32b",
        ],
        None,
    );
    assert!(
        stderr(&o).contains("needs a #ttng.tensor_memory_encoding"),
        "{}",
        stderr(&o)
    );
}

/// A padded shared layout keeps its padding in JSON, in pictures (padded offsets) and in
/// `--to`'s plan (accesses no wider than the pads keep aligned).
#[test]
fn padding_is_data() {
    let padded = "#ttg.padded_shared<[8:+2] {order = [1, 0], shape = [4, 16]}>";
    let o = layout(&["-l", padded, "-t", "tensor<4x16xf16>", "--json"], None);
    assert!(
        stdout(&o).ends_with(",\"padding\":[[8,2]]}\n"),
        "{}",
        stdout(&o)
    );
    let o = layout(&["-l", padded, "-t", "tensor<4x16xf16>", "--table"], None);
    assert!(stdout(&o).contains("|  7 | 10 | 11 |"), "{}", stdout(&o));
    let blocked = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>";
    let o = layout(
        &[
            "-l",
            blocked,
            "--to",
            padded,
            "-t",
            "tensor<4x16xf16>",
            "--json",
        ],
        None,
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (v["vector"].as_u64(), v["shared_bytes"].as_u64()),
        (Some(2), Some((64 + 7 * 2) * 2)),
        "{}",
        v
    );
}

/// gfx1250's partitioned shared layout as text: memory order, each partition's buffer after the
/// previous one's (pieces 0 and 2 in partition 0, 1 and 3 in partition 1).
#[test]
fn partitioned_shared_prints_partition_by_partition() {
    let p = "#ttg.partitioned_shared<{numPartitions = 2, numGroups = 2, partitionDim = 0, partitionLayout = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>}>";
    let o = layout(&["-l", p, "-t", "tensor<8x2xf16>", "--use-hw-view"], None);
    let text = stdout(&o);
    assert!(
        text.contains("Partition: 0:\nOffset: 0 -> (0,0)"),
        "{}",
        text
    );
    assert!(text.contains("Offset: 4 -> (4,0)"), "{}", text);
    assert!(
        text.contains("Partition: 1:\nOffset: 0 -> (2,0)"),
        "{}",
        text
    );
    // The pictures label each element with its partition and offset there.
    let o = layout(&["-l", p, "-t", "tensor<8x2xf16>", "--table"], None);
    let text = stdout(&o);
    assert!(text.contains("cell = P<partition>:<offset>"), "{}", text);
    assert!(text.contains("2  | P1:0 | P1:1 |"), "{}", text);
    assert!(text.contains("4  | P0:4 | P0:5 |"), "{}", text);
    let o = layout(&["-l", p, "-t", "tensor<8x2xf16>", "--svg"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(">P1:0</text>"), "{}", stdout(&o));
}
