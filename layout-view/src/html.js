"use strict";
// The layout views' behaviour: hover a cell for what holds it, hover a basis to highlight what it
// moves, toggle views. The page's data (script#data) holds each layout's in-dims in walk order
// (name, size, bases), its out-dims, and per element the first holder's walk index.
(function () {
  const D = JSON.parse(document.getElementById("data").textContent);
  const info = document.getElementById("info");

  function popcount(x) { let n = 0; while (x) { n += x & 1; x >>>= 1; } return n; }
  // The in-dim values (walk order) of walk index `flat`.
  function hwOf(L, flat) {
    const v = [];
    for (const d of L.ins) { v.push(flat % d[1]); flat = Math.floor(flat / d[1]); }
    return v;
  }
  // The tensor coordinate the layout maps in-dim values `v` to: XOR of the bases of set bits.
  function coordOf(L, v) {
    const c = L.outs.map(() => 0);
    L.ins.forEach((d, i) => d[2].forEach((b, bit) => {
      if ((v[i] >> bit) & 1) b.forEach((x, k) => { c[k] ^= x; });
    }));
    return c;
  }
  // The coordinate of element `idx` (row-major over the out-dims).
  function elemCoord(L, idx) {
    const c = [];
    for (let k = L.outs.length - 1; k >= 0; k--) {
      const s = L.outs[k][1];
      c.unshift(idx % s);
      idx = Math.floor(idx / s);
    }
    return c;
  }
  function swizzleText(L, o) {
    const parts = [];
    L.ins[0][2].forEach((b, bit) => {
      const ones = b.reduce((n, x) => n + popcount(x), 0);
      if (ones > 1 && ((o >> bit) & 1)) parts.push("bit " + bit + " -> (" + b.join(", ") + ")");
    });
    return parts.length
      ? "\nswizzled: offset " + parts.join("; ") + " (a bit that moves several coordinate bits)"
      : "\nno swizzled offset bit is set";
  }
  // A padded layout's offset: `pad` more elements after every `interval` (Triton's
  // paddedLinearLayout), for each pair.
  function padded(L, o) {
    return L.padding.reduce((a, [i, p]) => a + Math.floor(o / i) * p, o);
  }
  function hwText(L, v) {
    const last = v[L.ins.length - 1];
    const blk = L.ins[L.ins.length - 1][1] > 1 ? " (block " + last + ")" : "";
    if (L.kind === "shared" || L.kind === "partitioned") {
      const o = padded(L, v[0]);
      const byte = o * L.bits / 8;
      const part = L.kind === "partitioned" ? "partition " + v[1] + ", " : "";
      return part + "offset " + o + blk + ": byte " + byte + ", bank " + (Math.floor(byte / 4) % L.banks) +
        " of " + L.banks + swizzleText(L, v[0]);
    }
    if (L.kind === "tmem") {
      return "tensor memory row " + v[1] + ", column " + v[0] + blk + ": tcgen05.ld 32x32b gives it to lane " +
        (v[1] % 32) + " of warp " + (Math.floor(v[1] / 32) % 4) + " (mod 4)";
    }
    const b = L.ins[3][1] > 1 ? ", block " + v[3] : "";
    return "thread " + (v[1] + L.ins[1][1] * v[2]) + " (lane " + v[1] + ", warp " + v[2] + b +
      "), register " + v[0];
  }

  function geometry(svg) {
    const g = svg.dataset.grid.split(" ").map(Number);
    return { x0: g[0], y0: g[1], cw: g[2], ch: g[3], rows: g[4], cols: g[5], grids: g[6], stride: g[7] };
  }
  // The cell index under client point (x, y), or -1.
  function cellAt(svg, x, y) {
    const g = geometry(svg);
    const pt = svg.createSVGPoint();
    pt.x = x; pt.y = y;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    const k = Math.floor((p.x - g.x0) / g.stride);
    const col = Math.floor((p.x - g.x0 - k * g.stride) / g.cw);
    const row = Math.floor((p.y - g.y0) / g.ch);
    if (k < 0 || k >= g.grids || col < 0 || col >= g.cols || row < 0 || row >= g.rows) return -1;
    return (k * g.rows + row) * g.cols + col;
  }
  function describe(id, idx) {
    const [key, kind] = D.views[id];
    const L = D.layouts[key];
    if (kind === "hw") {
      const v = hwOf(L, idx);
      return hwText(L, v) + "\nholds element (" + coordOf(L, v).join(", ") + ")";
    }
    let text = "element (" + elemCoord(L, idx).join(", ") + ")";
    const f = L.first[idx];
    text += f < 0 ? ": held by nothing" : "\n" + (D.pair ? (key === "A" ? "source: " : "destination: ") : "") + hwText(L, hwOf(L, f));
    if (L.held[idx] > 1) text += "\nheld " + L.held[idx] + " times (broadcast copies; the first in hardware order is shown)";
    if (D.pair) {
      const other = key === "A" ? "B" : "A";
      const O = D.layouts[other], g = O.first[idx];
      text += "\n" + (other === "A" ? "source: " : "destination: ") + (g < 0 ? "held by nothing" : hwText(O, hwOf(O, g)));
    }
    return text;
  }

  // Highlight, in every view of layout `key`, the cells whose holder has bit `bit` of in-dim `dim`.
  function highlight(key, dim, bit) {
    for (const id in D.views) {
      const svg = document.getElementById(id);
      if (!svg || D.views[id][0] !== key) continue;
      const L = D.layouts[key], kind = D.views[id][1];
      const i = L.ins.findIndex(d => d[0] === dim);
      const g = geometry(svg), per = g.rows * g.cols;
      let d = "";
      const n = kind === "hw" ? L.ins.reduce((a, x) => a * x[1], 1) : L.first.length;
      for (let idx = 0; idx < n; idx++) {
        const flat = kind === "hw" ? idx : L.first[idx];
        if (flat < 0 || i < 0 || !((hwOf(L, flat)[i] >> bit) & 1)) continue;
        const k = Math.floor(idx / per), r = Math.floor((idx % per) / g.cols), c = idx % g.cols;
        d += "M" + (g.x0 + k * g.stride + c * g.cw) + " " + (g.y0 + r * g.ch) + "h" + g.cw + "v" + g.ch + "h-" + g.cw + "z";
      }
      const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
      path.setAttribute("class", "hl");
      path.setAttribute("d", d);
      svg.appendChild(path);
    }
  }
  function unhighlight() { document.querySelectorAll("path.hl").forEach(p => p.remove()); }

  for (const id in D.views) {
    const svg = document.getElementById(id);
    if (!svg) continue;
    svg.addEventListener("mousemove", e => {
      const idx = cellAt(svg, e.clientX, e.clientY);
      if (idx >= 0) info.textContent = describe(id, idx);
    });
  }
  document.querySelectorAll("li.basis").forEach(li => {
    li.addEventListener("mouseenter", () => highlight(li.dataset.layout, li.dataset.dim, Number(li.dataset.bit)));
    li.addEventListener("mouseleave", unhighlight);
  });
  document.querySelectorAll("button[data-toggle]").forEach(b => {
    b.addEventListener("click", () => b.dataset.toggle.split(" ").forEach(id => {
      document.getElementById(id).parentElement.classList.toggle("hidden");
    }));
  });

  // Cycle an SVG's colour schemes (its `g[data-scheme]` groups: fills and legend).
  document.querySelectorAll("button[data-scheme]").forEach(b => {
    b.addEventListener("click", () => {
      const groups = document.getElementById(b.dataset.scheme).querySelectorAll("g[data-scheme]");
      const n = Math.max(...[...groups].map(g => Number(g.dataset.scheme))) + 1;
      const shown = [...groups].find(g => g.getAttribute("display") !== "none");
      const next = (Number(shown.dataset.scheme) + 1) % n;
      groups.forEach(g => g.setAttribute("display", Number(g.dataset.scheme) === next ? "inline" : "none"));
    });
  });

  // `#cell=<svg id>,<row>,<col>[,<grid>]`: hover that cell as a mouse would (for scripts and tests).
  const m = /^#cell=(\w+),(\d+),(\d+)(?:,(\d+))?$/.exec(location.hash);
  if (m) {
    const svg = document.getElementById(m[1]);
    svg.parentElement.classList.remove("hidden");
    const g = geometry(svg);
    const point = () => {
      const r = svg.getBoundingClientRect(), scale = r.width / svg.viewBox.baseVal.width;
      return [r.left + (g.x0 + Number(m[4] || 0) * g.stride + (Number(m[3]) + 0.5) * g.cw) * scale,
        r.top + (g.y0 + (Number(m[2]) + 0.5) * g.ch) * scale];
    };
    // Scroll the cell into view first, as a user would, so that the point hits it.
    const views = document.getElementById("views"), v = views.getBoundingClientRect();
    let [x, y] = point();
    views.scrollLeft += x - v.left - 40;
    views.scrollTop += y - v.top - 40;
    [x, y] = point();
    const target = document.elementFromPoint(x, y) || svg;
    target.dispatchEvent(new MouseEvent("mousemove", { clientX: x, clientY: y, bubbles: true }));
  }
})();
