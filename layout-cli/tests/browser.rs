//! The SVG pictures as a browser draws them: `layout --svg` output opened in headless Chromium,
//! screenshotted, and pixels of known cells read back.
//!
//! Needs `chromium` (Debian's package; `.ci/run` installs it and sets `LAYOUT_BROWSER_TESTS=require`
//! so that a missing browser fails there). Elsewhere, without a browser, the test says so and
//! passes.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The browser, or `None` (with a note) where none is installed and none is required.
fn chromium() -> Option<PathBuf> {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Ok(out) = Command::new("which").arg(name).output() {
            if out.status.success() {
                let p = String::from_utf8_lossy(&out.stdout).trim().to_string();
                return Some(PathBuf::from(p));
            }
        }
    }
    assert!(
        std::env::var("LAYOUT_BROWSER_TESTS").as_deref() != Ok("require"),
        "no chromium on PATH: install Debian's `chromium` package (.ci/run does)"
    );
    eprintln!("browser test skipped: no chromium on PATH (apt-get install chromium)");
    None
}

/// Screenshot `file` at `w`x`h` pixels; the RGB pixels, row-major.
fn screenshot(browser: &Path, file: &Path, (w, h): (u32, u32)) -> Vec<[u8; 3]> {
    let png = file.with_extension("png");
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--default-background-color=ffffffff",
        ])
        .arg(format!("--window-size={},{}", w, h))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("file://{}", file.display()))
        .output()
        .expect("run chromium");
    assert!(
        png.exists(),
        "no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let decoder = png::Decoder::new(std::fs::File::open(&png).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (w, h));
    let step = info.line_size / w as usize;
    (0..(w * h) as usize)
        .map(|i| {
            let row = i / w as usize;
            let at = row * info.line_size + (i % w as usize) * step;
            [buf[at], buf[at + 1], buf[at + 2]]
        })
        .collect()
}

/// `hsl(h, s%, l%)` as 8-bit RGB (CSS's conversion).
fn hsl(h: f64, s: f64, l: f64) -> [u8; 3] {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    [r, g, b].map(|v| ((v + m) * 255.0).round() as u8)
}

/// The fill of a `hsl(h,70%,l%)` class as the SVG writes it.
fn parse_fill(svg: &str, class: &str) -> [u8; 3] {
    let start = svg.find(&format!(".{}{{fill:hsl(", class)).expect("class") + class.len() + 11;
    let body = &svg[start..start + svg[start..].find(')').unwrap()];
    let v: Vec<f64> = body
        .split(',')
        .map(|p| p.trim_end_matches('%').parse().unwrap())
        .collect();
    hsl(v[0], v[1] / 100.0, v[2] / 100.0)
}

fn close(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(&x, y)| x.abs_diff(y) <= 3)
}

#[test]
fn svg_cells_have_their_threads_colours_in_chromium() {
    let Some(browser) = chromium() else { return };
    let dir = std::env::temp_dir().join(format!("layout-browser-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg_path = dir.join("blocked.svg");
    // 4x8 f16, one element per thread: T0 at (0, 0), T1 at (0, 1).
    let status = Command::new(env!("CARGO_BIN_EXE_layout"))
        .args([
            "-l",
            "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>",
            "-t",
            "tensor<4x8xf16>",
            "--svg",
            "-o",
        ])
        .arg(&svg_path)
        .status()
        .unwrap();
    assert!(status.success());
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let pixels = screenshot(&browser, &svg_path, (640, 320));
    // Cells start at (32, 36) and are 38x18 here ("T31:0": 5 characters): sample a corner of
    // each, clear of its label.
    let at = |r: u32, c: u32| pixels[((36 + r * 18 + 3) * 640 + 32 + c * 38 + 3) as usize];
    let (t0, t1, t8) = (at(0, 0), at(0, 1), at(1, 0));
    assert_ne!(t0, t1, "threads 0 and 1 share a colour");
    assert!(close(t0, parse_fill(&svg, "c0s0")), "{:?}", t0);
    assert!(close(t1, parse_fill(&svg, "c1s0")), "{:?}", t1);
    assert!(close(t8, parse_fill(&svg, "c8s0")), "{:?}", t8);
    std::fs::remove_dir_all(&dir).ok();
}

/// Run `layout ARGS -o dir/name` and return the file's path and text.
fn layout_to(dir: &Path, name: &str, args: &[&str]) -> (PathBuf, String) {
    let path = dir.join(name);
    let out = Command::new(env!("CARGO_BIN_EXE_layout"))
        .args(args)
        .arg("-o")
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&path).unwrap();
    (path, text)
}

/// Open `file#cell=<view>,<row>,<col>` (the page hovers that cell as a mouse would) and return
/// the text its info panel then shows, read from the DOM Chromium dumps.
fn hover(browser: &Path, file: &Path, cell: &str) -> String {
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1600,1000",
            "--virtual-time-budget=3000",
            "--dump-dom",
        ])
        .arg(format!("file://{}#cell={}", file.display(), cell))
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom.find("<pre id=\"info\">").expect("info panel") + 15;
    let end = start + dom[start..].find("</pre>").unwrap();
    dom[start..end].replace("&gt;", ">")
}

const BLOCKED_2W: &str = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]}>";

#[test]
fn html_view_shows_colours_and_what_a_hovered_cell_holds() {
    let Some(browser) = chromium() else { return };
    let dir = std::env::temp_dir().join(format!("layout-html-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (page, html) = layout_to(
        &dir,
        "v.html",
        &["-l", BLOCKED_2W, "-t", "tensor<8x8xf16>", "--html"],
    );
    // The tensor view is the page's first thing, at (0, 0): its cells as in the SVG test.
    let pixels = screenshot(&browser, &page, (1200, 700));
    let at = |r: u32, c: u32| pixels[((36 + r * 18 + 3) * 1200 + 32 + c * 38 + 3) as usize];
    assert_ne!(at(0, 0), at(0, 1), "threads 0 and 1 share a colour");
    assert!(close(at(0, 0), parse_fill(&html, "c0s0")), "{:?}", at(0, 0));
    assert!(close(at(0, 1), parse_fill(&html, "c1s0")), "{:?}", at(0, 1));
    // Element (5, 3): row 5 is warp 1's second row of lanes, so lane 8 + 3, thread 32 + 11.
    let info = hover(&browser, &page, "tensor,5,3");
    assert!(info.contains("element (5, 3)"), "{}", info);
    assert!(
        info.contains("thread 43 (lane 11, warp 1), register 0"),
        "{}",
        info
    );
    // The hardware view: row 43 is thread 43, and its one register holds (5, 3).
    let info = hover(&browser, &page, "hardware,43,0");
    assert!(
        info.contains("thread 43 (lane 11, warp 1), register 0"),
        "{}",
        info
    );
    assert!(info.contains("holds element (5, 3)"), "{}", info);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn html_shows_shared_banks_swizzles_and_conversions() {
    let Some(browser) = chromium() else { return };
    let dir = std::env::temp_dir().join(format!("layout-html-cvt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // vec 1, perPhase 1, maxPhase 8 over 8x8 f32: row r's column c sits at offset 8r + (c ^ r).
    let shared = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 8, order = [1, 0]}>";
    let (page, _) = layout_to(
        &dir,
        "s.html",
        &["-l", shared, "-t", "tensor<8x8xf32>", "--html"],
    );
    let info = hover(&browser, &page, "tensor,3,1");
    // (3, 1) at offset 8*3 + (1^3) = 26: byte 104, bank 26; row bits 0 and 1 swizzle.
    assert!(info.contains("offset 26: byte 104, bank 26"), "{}", info);
    assert!(
        info.contains("swizzled: offset bit 3 -> (1, 1); bit 4 -> (2, 2)"),
        "{}",
        info
    );
    let mma = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
    let (page, html) = layout_to(
        &dir,
        "c.html",
        &[
            "-l",
            mma,
            "--to",
            &BLOCKED_2W.replace("[2, 1]", "[4, 1]"),
            "-t",
            "tensor<32x32xf16>",
            "--html",
        ],
    );
    assert!(html.contains("conversion of 16-bit elements"));
    // (1, 0): in the mma fragment, row 1 is lanes 4-7 (two columns each), register 0; in the
    // blocked layout, lane 8 of warp 0.
    let info = hover(&browser, &page, "dst,1,0");
    assert!(
        info.contains("destination: thread 8 (lane 8, warp 0), register 0"),
        "{}",
        info
    );
    assert!(
        info.contains("source: thread 4 (lane 4, warp 0), register 0"),
        "{}",
        info
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Tensor memory's page: hovering a row says which lane and warp `tcgen05.ld` gives it to; a
/// shared layout's page drawn for gfx950 counts its 64 banks.
#[test]
fn html_shows_tensor_memory_rows_and_the_targets_banks() {
    let Some(browser) = chromium() else { return };
    let dir = std::env::temp_dir().join(format!("layout-html-tmem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tmem = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>";
    let (page, _) = layout_to(
        &dir,
        "t.html",
        &["-l", tmem, "-t", "tensor<128x8xf32>", "--html"],
    );
    let info = hover(&browser, &page, "tensor,33,2");
    assert!(info.contains("element (33, 2)"), "{}", info);
    assert!(
        info.contains(
            "tensor memory row 33, column 2: tcgen05.ld 32x32b gives it to lane 1 of warp 1"
        ),
        "{}",
        info
    );
    let smem = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>";
    let (page, _) = layout_to(
        &dir,
        "s.html",
        &[
            "-l",
            smem,
            "-t",
            "tensor<2x64xf32>",
            "--html",
            "--target",
            "gfx950",
        ],
    );
    let info = hover(&browser, &page, "tensor,0,33");
    assert!(
        info.contains("offset 33: byte 132, bank 33 of 64"),
        "{}",
        info
    );
    std::fs::remove_dir_all(&dir).ok();
}
