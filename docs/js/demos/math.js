// Renders the formulas that pymdownx.arithmatex (generic) leaves as \( \) and \[ \] in
// .arithmatex elements, with the local KaTeX (assets/vendor/katex). Classic script: works from file://.
(function () {
  "use strict";
  function render() {
    if (typeof window.renderMathInElement !== "function") return;
    var nodes = document.querySelectorAll(".arithmatex");
    for (var i = 0; i < nodes.length; i++) {
      window.renderMathInElement(nodes[i], {
        delimiters: [
          { left: "\\(", right: "\\)", display: false },
          { left: "\\[", right: "\\]", display: true }
        ],
        throwOnError: false
      });
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", render);
  else render();
})();
