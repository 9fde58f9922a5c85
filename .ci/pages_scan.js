// What a page shows, for .ci/pages_check.py (evaluated in the page once it has loaded and
// MathJax, where the page has it, has typeset). Returns plain data; the checker judges it.
// options.overflow: also list the tables wider than the column they sit in (the site's pages).
async (options) => {
  const text = (node) => (node.textContent || "").replace(/\s+/g, " ").trim();
  // images: lazy ones are made eager and every image is given the chance to decode first
  const images = [...document.images];
  images.forEach((img) => { img.loading = "eager"; });
  await Promise.all(images.map((img) => img.decode().catch(() => null)));
  const brokenImages = images
    .filter((img) => img.getAttribute("src") !== null && !(img.complete && img.naturalWidth > 0))
    .map((img) => img.getAttribute("src") || "(empty src)");

  // tables: at least one data cell with text (a header row alone is an empty table)
  const emptyTables = [...document.querySelectorAll("table")]
    .filter((t) => ![...t.querySelectorAll("td")].some((td) => text(td) !== ""))
    .map((t) => {
      const where = t.closest("section[id], [id]");
      return (t.querySelector("caption") ? text(t.querySelector("caption")) : "") ||
             (where ? `in #${where.id}` : text(t).slice(0, 80) || "(no text at all)");
    });

  // tables a reader must scroll sideways to read, at this window size
  const wideTables = !options.overflow ? [] : [...document.querySelectorAll("table")]
    .filter((t) => t.offsetParent !== null)
    .map((t) => [t, t.closest(".table-wrapper") || t.parentElement])
    .filter(([t, box]) => t.scrollWidth > box.clientWidth + 2)
    .map(([t, box]) => `${text(t.querySelector("th, td") || t).slice(0, 40)} (${t.scrollWidth} px in ${box.clientWidth} px)`);

  // formulas: Sphinx writes .math elements; MathJax puts an mjx-container in each one
  const maths = [...document.querySelectorAll(".math")];
  const untypeset = maths.filter((m) => !m.querySelector("mjx-container")).map(text);
  // a TeX error: MathJax's own list of formulas names the source; the DOM is the fallback
  const mathErrors = [];
  const doc = window.MathJax && MathJax.startup && MathJax.startup.document;
  for (const item of (doc && doc.math) ? doc.math : []) {
    let error = null;
    if (item.root && item.root.walkTree) {
      item.root.walkTree((node) => {
        if (!error && node.isKind && node.isKind("merror")) error = node.attributes.get("data-mjx-error") || "error";
      });
    }
    if (error) mathErrors.push(`${error}: ${item.math}`);
  }
  if (!mathErrors.length) {
    document.querySelectorAll("mjx-merror").forEach((m) => mathErrors.push(m.getAttribute("data-mjx-error") || text(m)));
  }

  // LaTeX left as text: outside formulas, code and scripts
  const skip = "pre, code, kbd, samp, script, style, textarea, .math, mjx-container, .highlight";
  const latex = /\$[^$\s][^$\n]*\\[A-Za-z]+[^$\n]*\$|\\(frac|epsilon|varepsilon|alpha|beta|gamma|delta|Delta|sigma|Sigma|theta|lambda|infty|sqrt|sum|prod|le|ge|mathbb|mathrm|operatorname|lvert|rvert|bigl|bigr|cdot|text|begin|end|pi|psi|mu|eta|rho|tau|zeta|partial|log|exp|min|max|sup|inf)(?![A-Za-z])/;
  const rawLatex = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest(skip)) continue;
    const found = node.textContent.match(latex);
    if (found) rawLatex.push(node.textContent.trim().slice(0, 120));
  }

  const links = [...document.querySelectorAll("a[href]")].map((a) => a.href);
  const ids = [...document.querySelectorAll("[id]")].map((n) => n.id)
    .concat([...document.querySelectorAll("a[name]")].map((a) => a.name));
  return { formulas: maths.length, images: images.length, brokenImages, emptyTables, wideTables, untypeset, mathErrors, rawLatex, links, ids };
}
