"use strict";
// The page's one script. It works on what the page holds (no request
// leaves it): it recomputes SLO attainment and goodput from the embedded
// per-request figures as the reader moves the TTFT and TPOT bounds, and
// lets every chart be saved as SVG or PNG. The page reads fully without it.
(() => {
  const $ = (id) => document.getElementById(id);

  // --- SLO explorer -------------------------------------------------------
  // A request is good when it succeeded, met the SLO's other conditions
  // (flags bit 2), and its TTFT and TPOT (whole microseconds, rounded up,
  // so that "<= a whole number of microseconds" is exact) are within the
  // bounds; a value a request does not have holds vacuously, as in goodput.
  const raw = $("goodput-requests");
  const data = raw ? JSON.parse(raw.textContent) : null;
  const fmtMs = (us) => {
    // Milliseconds with up to three decimals: exact for whole microseconds,
    // and a form goodput analyze --slo reads.
    const whole = Math.trunc(us / 1000), frac = Math.abs(us % 1000);
    let s = String(whole);
    if (us < 0 && whole === 0) s = "-0";
    if (frac) s += "." + String(frac).padStart(3, "0").replace(/0+$/, "");
    return s + "ms";
  };
  const recompute = () => {
    if (!data) return null;
    const bounds = {};
    for (const m of ["ttft", "tpot"]) {
      const el = $("slo-" + m);
      if (!el) continue;
      const v = Math.round(Number(el.value));
      const off = v > Number(el.max) - Number(el.dataset.step || 0) / 2;
      bounds[m] = off ? null : v;
      $("slo-" + m + "-v").textContent = off ? "no bound" : fmtMs(v);
    }
    let good = 0, tokens = 0;
    const n = data.flags.length;
    for (let i = 0; i < n; i++) {
      const f = data.flags[i];
      if ((f & 3) !== 3) continue;
      const t = data.ttft_us[i], p = data.tpot_us[i];
      if (bounds.ttft != null && t != null && t > bounds.ttft) continue;
      if (bounds.tpot != null && p != null && p > bounds.tpot) continue;
      good++;
      tokens += data.tokens[i];
    }
    const total = data.total;
    const att = total > 0 ? good / total : 0;
    const parts = [];
    if (bounds.ttft != null) parts.push("ttft<=" + fmtMs(bounds.ttft));
    if (bounds.tpot != null) parts.push("tpot<=" + fmtMs(bounds.tpot));
    parts.push(...data.other);
    const expr = parts.length ? parts.join(",") : "none";
    const scale = data.stride > 1 ? data.stride : 1;
    $("slo-expr").textContent = expr;
    $("slo-attainment").textContent = (100 * att).toFixed(2) + "% (" + good * scale + " of " + total * scale + " requests)";
    $("slo-goodput").textContent = data.window_s > 0 ? (tokens * scale / data.window_s).toFixed(2) + " tok/s" : "n/a";
    $("slo-request-goodput").textContent = data.window_s > 0 ? (good * scale / data.window_s).toFixed(2) + " req/s" : "n/a";
    return { expr, good, total, attainment: att };
  };
  if (data) {
    for (const m of ["ttft", "tpot"]) {
      const el = $("slo-" + m);
      if (el) el.addEventListener("input", recompute);
    }
    const box = $("slo-tuning");
    if (box) box.classList.add("live");
  }

  // --- Chart export -------------------------------------------------------
  const css = (document.querySelector("style") || { textContent: "" }).textContent;
  const chartSVG = (fig) => {
    const svg = fig.querySelector("svg.chart");
    const copy = svg.cloneNode(true);
    const vb = svg.viewBox.baseVal;
    copy.setAttribute("width", vb.width);
    copy.setAttribute("height", vb.height);
    copy.setAttribute("font-family", "Liberation Sans, DejaVu Sans, Arial, sans-serif");
    const style = document.createElementNS("http://www.w3.org/2000/svg", "style");
    style.textContent = css + "\nsvg.chart { background: #fff; }";
    copy.insertBefore(style, copy.firstChild);
    const bg = document.createElementNS("http://www.w3.org/2000/svg", "rect");
    bg.setAttribute("width", "100%");
    bg.setAttribute("height", "100%");
    bg.setAttribute("fill", "#fff");
    copy.insertBefore(bg, style.nextSibling);
    return new XMLSerializer().serializeToString(copy);
  };
  const svgURL = (fig) => "data:image/svg+xml;charset=utf-8," + encodeURIComponent(chartSVG(fig));
  const chartPNG = (fig, scale = 2) => new Promise((resolve, reject) => {
    const vb = fig.querySelector("svg.chart").viewBox.baseVal;
    const img = new Image();
    img.onload = () => {
      const c = document.createElement("canvas");
      c.width = Math.ceil(vb.width * scale);
      c.height = Math.ceil(vb.height * scale);
      const g = c.getContext("2d");
      g.fillStyle = "#fff";
      g.fillRect(0, 0, c.width, c.height);
      g.drawImage(img, 0, 0, c.width, c.height);
      resolve(c.toDataURL("image/png"));
    };
    img.onerror = () => reject(new Error("the chart could not be drawn as an image"));
    img.src = svgURL(fig);
  });
  const save = (name, url) => {
    const a = document.createElement("a");
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
  };
  const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60) || "chart";
  document.querySelectorAll("figure.chart").forEach((fig) => {
    const cap = fig.querySelector("figcaption");
    if (!cap || !fig.querySelector("svg.chart")) return;
    const name = slug(cap.textContent);
    const bar = document.createElement("span");
    bar.className = "export";
    for (const kind of ["SVG", "PNG"]) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = kind;
      b.title = "save this chart as " + kind;
      b.addEventListener("click", () => {
        if (kind === "SVG") save(name + ".svg", svgURL(fig));
        else chartPNG(fig).then((u) => save(name + ".png", u));
      });
      bar.appendChild(b);
    }
    cap.appendChild(bar);
  });

  window.goodput = { recompute, chartSVG, chartPNG };
})();
