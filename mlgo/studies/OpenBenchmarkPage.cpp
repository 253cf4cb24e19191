// The benchmark's page: one self-contained HTML file, the results embedded as JSON and drawn
// by its own script (leaderboard, per-package chart, headroom, intervals), so the page shows
// exactly what results.json says and needs no network. Every drawn number carries its exact
// value in a data- attribute: tests/open_benchmark_test.py renders the page in Debian's
// chromium-headless-shell and compares the DOM with results.json.
#include "mlgo/studies/OpenBenchmark.h"

#include "llvm/ADT/StringRef.h"

namespace wb::mlgo {

namespace {

constexpr const char *PageHead = R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Inliner policies: the open benchmark</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 10px; text-align: right; }
th:nth-child(2), td:nth-child(2) { text-align: left; }
caption { text-align: left; font-weight: 600; padding-bottom: .4em; }
.neg { color: #a40000; } .pos { color: #005a00; }
.note { color: #555; max-width: 60em; }
svg text { font: 11px system-ui, sans-serif; }
</style>
</head>
<body>
<h1>Inliner policies: the open benchmark</h1>
<p class="note" id="about"></p>
<table id="leaderboard"><caption>Leaderboard: .text reduction against -Oz on packages each policy was not trained on</caption>
<thead><tr><th>#</th><th>policy</th><th>kind</th><th>reduction</th><th>95% interval (modules)</th><th>95% interval (packages)</th><th>worst package</th><th>headroom captured</th><th>modules</th><th>grow</th><th>shrink</th><th>left out</th></tr></thead>
<tbody></tbody></table>
<h2>Per package</h2>
<p class="note">Each package's reduction against -Oz, per policy (bars), beside what the exploration found there (the headroom, outlined).</p>
<div id="per-package"></div>
<h2>Headroom</h2>
<p class="note" id="headroom"></p>
<section id="perf" hidden>
<h2>Performance track: register allocation</h2>
<p class="note" id="perf-about"></p>
<table id="perf-policies"><caption>Change against the baseline, summed over the programs (valgrind's counts)</caption>
<thead><tr><th>policy</th><th>model or settings</th><th>instructions (Ir)</th><th>95% interval (programs)</th><th>data reads (Dr)</th><th>95% interval</th><th>data writes (Dw)</th><th>worst program (Ir)</th><th>slower / faster</th><th>static cost vs data references (Spearman, changed functions)</th></tr></thead>
<tbody></tbody></table>
<table id="perf-programs"><caption>Instructions executed per program (Ir), each policy's change against the baseline</caption>
<thead></thead><tbody></tbody></table>
</section>
<script type="application/json" id="results">
)HTML";

constexpr const char *PageTail = R"HTML(
</script>
<script>
"use strict";
const R = JSON.parse(document.getElementById("results").textContent);
const pct = x => (x === null || x === undefined) ? "–" :
  ((100 * x).toFixed(2) === "-0.00" ? "0.00" : (100 * x).toFixed(2)) + " %";
const el = (tag, attrs, text) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
};
const byName = Object.fromEntries(R.policies.map(p => [p.name, p]));
document.getElementById("about").textContent =
  `${R.corpus.modules} modules of ${R.corpus.packages.length} packages; protocol ${R.protocol.name}: ` +
  `fixed policies judged on every package their model was not trained on, trained policies by ` +
  `cross-validation over ${R.protocol.folds ? R.protocol.folds.folds : 0} folds of whole packages; ` +
  `95% percentile bootstrap intervals (${R.protocol.bootstrap.resamples} resamples) over modules and over packages.`;
const body = document.querySelector("#leaderboard tbody");
R.leaderboard.forEach((name, i) => {
  const p = byName[name], s = p.summary, tr = el("tr", {"data-policy": name});
  const cell = (field, value, text, cls) => {
    const td = el("td", {"data-field": field}, text);
    if (value !== null && value !== undefined) td.setAttribute("data-value", String(value));
    if (cls) td.className = cls;
    tr.appendChild(td);
  };
  cell("rank", i + 1, String(i + 1));
  cell("name", null, name);
  cell("kind", null, p.kind);
  cell("reduction", s.reduction, pct(s.reduction), s.reduction < 0 ? "neg" : "pos");
  cell("ci95", s.ci95.join(" "), pct(s.ci95[0]) + " to " + pct(s.ci95[1]));
  cell("ci95_packages", s.ci95_packages.join(" "), pct(s.ci95_packages[0]) + " to " + pct(s.ci95_packages[1]));
  const w = s.worst_package;
  cell("worst_package", w ? w.reduction : null, w ? `${w.package} ${pct(w.reduction)}` : "–",
       w && w.reduction < 0 ? "neg" : "");
  cell("captured", s.headroom.captured, pct(s.headroom.captured));
  cell("modules", s.modules - s.failed, String(s.modules - s.failed));
  cell("grown", s.grown, String(s.grown));
  cell("shrunk", s.shrunk, String(s.shrunk));
  cell("excluded", p.excluded_packages.length, p.excluded_packages.join(", ") || "–");
  body.appendChild(tr);
});
// The per-package chart: one group per package, one bar per policy, the headroom outlined.
(() => {
  const pkgs = R.corpus.packages, pols = R.leaderboard;
  const colours = ["#3465a4", "#f57900", "#4e9a06", "#75507b", "#c4a000", "#cc0000", "#06989a"];
  const val = (p, k) => { const q = byName[p].packages.find(x => x.package === k); return q ? q.reduction : null; };
  const room = k => { for (const p of pols) { const q = byName[p].packages.find(x => x.package === k);
                                              if (q && q.headroom.headroom !== null) return q.headroom.headroom; } return null; };
  const all = [];
  pkgs.forEach(k => { pols.forEach(p => { const v = val(p, k); if (v !== null) all.push(v); });
                      const h = room(k); if (h !== null) all.push(h); });
  const hi = Math.max(0.005, ...all), lo = Math.min(-0.005, ...all);
  // Wide enough for the bars and for the legend below them (one entry per policy).
  const W = Math.max(60 + pkgs.length * (pols.length * 10 + 12), 60 + pols.length * 120), H = 320, top = 20, bottom = 110;
  const y = v => top + (hi - v) / (hi - lo) * (H - top - bottom);
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("width", W); svg.setAttribute("height", H); svg.setAttribute("role", "img");
  const add = (tag, attrs, text) => { const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text; svg.appendChild(e); return e; };
  add("line", {x1: 50, x2: W, y1: y(0), y2: y(0), stroke: "#000"});
  add("text", {x: 4, y: y(hi) + 10}, pct(hi)); add("text", {x: 4, y: y(lo)}, pct(lo));
  pkgs.forEach((k, i) => {
    const x0 = 60 + i * (pols.length * 10 + 12);
    const h = room(k);
    if (h !== null)
      add("rect", {x: x0 - 2, y: Math.min(y(h), y(0)), width: pols.length * 10 + 4,
                   height: Math.abs(y(h) - y(0)), fill: "none", stroke: "#888", "stroke-dasharray": "3,2",
                   "data-package": k, "data-headroom": String(h)});
    pols.forEach((p, j) => {
      const v = val(p, k);
      if (v === null) return;
      const r = add("rect", {x: x0 + j * 10, y: Math.min(y(v), y(0)), width: 9,
                             height: Math.max(1, Math.abs(y(v) - y(0))), fill: colours[j % colours.length],
                             "data-policy": p, "data-package": k, "data-reduction": String(v)});
      const t = document.createElementNS(NS, "title"); t.textContent = `${p} on ${k}: ${pct(v)}`; r.appendChild(t);
    });
    add("text", {x: x0, y: H - bottom + 14, transform: `rotate(45 ${x0} ${H - bottom + 14})`}, k);
  });
  pols.forEach((p, j) => { add("rect", {x: 60 + j * 120, y: H - 14, width: 10, height: 10, fill: colours[j % colours.length]});
                           add("text", {x: 74 + j * 120, y: H - 5}, p); });
  document.getElementById("per-package").appendChild(svg);
})();
const e = R.exploration;
const hr = document.getElementById("headroom");
hr.setAttribute("data-value", String(e.headroom));
hr.textContent = `The exploration (${e.compilations} compilations, budget ${e.budget} per module, ` +
  `flip order ${e.flip_order}) found ${e.modules_smaller} of ${e.modules} modules smaller than -Oz: ` +
  `${e.best_text_size} bytes of .text against ${e.baseline_text_size}, a headroom of ${pct(e.headroom)}. ` +
  `"Headroom captured" is the share of it a policy took on the modules it was judged on.`;
// The performance track, when the run was given one (results.perf_track).
(() => {
  const P = R.perf_track;
  if (!P) return;
  document.getElementById("perf").hidden = false;
  document.getElementById("perf-about").textContent =
    `${P.programs.length} programs built from pinned Debian sources with each register-allocation policy ` +
    `and run under valgrind (cachegrind); the counts do not vary between runs. Baseline: ${P.baseline}. ` +
    `The programs' outputs are the same under every policy. Sources, inputs and versions are pinned in manifest.json.`;
  const body = document.querySelector("#perf-policies tbody");
  const fmt = x => (x === null || x === undefined) ? "–" : x.toFixed(3);
  const spct = x => (x !== null && x !== undefined && x > 0 ? "+" : "") + pct(x);
  P.policies.forEach(p => {
    const tr = el("tr", {"data-perf-policy": p.label});
    const cell = (field, value, text, cls) => {
      const td = el("td", {"data-field": field}, text);
      if (value !== null && value !== undefined) td.setAttribute("data-value", String(value));
      if (cls) td.className = cls;
      tr.appendChild(td);
    };
    const v = p.versus_baseline, c = p.static_vs_dynamic;
    cell("label", null, p.label);
    cell("policy", null, Object.entries(p.policy).map(([k, x]) => `${k} ${x}`).join(", "));
    if (!v) {
      cell("Ir", p.total.Ir, `${p.total.Ir} (baseline)`);
      cell("ci95_Ir", null, "–");
      cell("Dr", p.total.Dr, `${p.total.Dr} (baseline)`);
      cell("ci95_Dr", null, "–");
      cell("Dw", p.total.Dw, `${p.total.Dw} (baseline)`);
      cell("worst_program", null, "–");
      cell("slower_faster", null, "–");
      cell("spearman", null, "–");
    } else {
      // Fewer instructions is better: a positive change is drawn as a loss.
      const cls = x => x === null ? "" : x > 0 ? "neg" : x < 0 ? "pos" : "";
      cell("Ir", v.total.Ir, spct(v.total.Ir), cls(v.total.Ir));
      cell("ci95_Ir", v.interval_programs.Ir.join(" "), spct(v.interval_programs.Ir[0]) + " to " + spct(v.interval_programs.Ir[1]));
      cell("Dr", v.total.Dr, spct(v.total.Dr), cls(v.total.Dr));
      cell("ci95_Dr", v.interval_programs.Dr.join(" "), spct(v.interval_programs.Dr[0]) + " to " + spct(v.interval_programs.Dr[1]));
      cell("Dw", v.total.Dw, spct(v.total.Dw), cls(v.total.Dw));
      cell("worst_program", v.worst_program_Ir, `${v.worst_program} ${spct(v.worst_program_Ir)}`, cls(v.worst_program_Ir));
      cell("slower_faster", `${v.programs_slower} ${v.programs_faster}`, `${v.programs_slower} / ${v.programs_faster}`);
      cell("spearman", c ? c.spearman_static_vs_data_refs : null,
           c ? `${fmt(c.spearman_static_vs_data_refs)} (${c.functions_changed} of ${c.functions})` : "–");
    }
    body.appendChild(tr);
  });
  const head = el("tr");
  head.appendChild(el("th", {}, "program"));
  P.policies.forEach(p => head.appendChild(el("th", {}, p.label)));
  document.querySelector("#perf-programs thead").appendChild(head);
  const pbody = document.querySelector("#perf-programs tbody");
  P.programs.forEach(g => {
    const tr = el("tr", {"data-perf-program": g});
    tr.appendChild(el("td", {}, g));
    P.policies.forEach(p => {
      const n = p.programs[g].Ir, v = p.versus_baseline;
      const td = el("td", {"data-policy": p.label, "data-value": String(n)},
                    v ? `${n} (${spct(v.per_program[g].Ir)})` : String(n));
      tr.appendChild(td);
    });
    pbody.appendChild(tr);
  });
})();
document.body.setAttribute("data-drawn", "yes");
</script>
</body>
</html>
)HTML";

} // namespace

std::string benchmarkPage(const std::string &ResultsJSON) {
  // "</script" or "<!--" inside the JSON would end or derail the script element: every "<"
  // (only ever inside a JSON string) becomes the escape \u003c, the same string to JSON.parse.
  std::string Safe;
  Safe.reserve(ResultsJSON.size());
  for (char Ch : ResultsJSON)
    if (Ch == '<')
      Safe += "\\u003c";
    else
      Safe += Ch;
  return std::string(PageHead) + Safe + PageTail;
}

} // namespace wb::mlgo
