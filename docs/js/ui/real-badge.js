// The real model's state, the same words and look on every real-model view: what a view shows was
// stored by the build, runs live in this page, or runs live with parts switched off. A view sets
// its badge from what it draws; it says nothing while there is nothing to show.
//
// badge() -> {node, set(state)}: state "stored" | "live" | "live-off" | null (hidden)
// badge.of(pass): the state of a live pass ("live-off" when it ran with a knock-out)
nexttoken.define("ui.real-badge", ["ui"], function (ui) {
  "use strict";
  var WORDS = {
    stored: ["Stored by the build", "measured by the build with transformers; loading the model is not needed"],
    live: ["Live in this page", "computed by the model running in this page"],
    "live-off": ["Live, parts switched off", "computed by the model in this page, with the parts listed below switched off"],
  };

  function badge() {
    var node = ui.el("span", { class: "nt-real-badge", "data-role": "real-badge" });
    var gap = document.createTextNode(""), wrap = ui.el("span", { hidden: true }, [node, gap]);  // the space goes with the badge
    return {
      node: wrap,
      set: function (state) {
        wrap.hidden = !state;
        gap.data = state ? " " : "";
        node.setAttribute("data-state", state || "");
        if (!state) { node.textContent = ""; node.removeAttribute("title"); return; }
        node.textContent = WORDS[state][0];
        node.title = WORDS[state][1];  // a tooltip; the words themselves say the state to everyone
      },
    };
  }
  badge.of = function (pass) {
    var k = pass && pass.knockout;
    return k && ((k.heads || []).length || (k.mlp || []).length) ? "live-off" : "live";
  };
  badge.WORDS = WORDS;
  return badge;
});
