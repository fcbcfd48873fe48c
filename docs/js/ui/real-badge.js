// The real model's state, the same words and look on every real-model view: what a view shows was
// stored by the build, runs live in this page, or runs live with parts switched off. A view sets
// its badge from what it draws; it says nothing while there is nothing to show.
//
// badge() -> {node, set(state)}: state "stored" | "live" | "live-off" | null (hidden)
// badge.of(pass): the state of a live pass ("live-off" when it ran with a knock-out)
// badge.needsModel(what, before, meanwhile): a link to a live state, on any real view: the one line
// to say (it needs the model), and a button put before `before` that presses the panel's Load
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
  badge.needsModel = function (what, before, meanwhile) {
    var ask = document.querySelector('.nt-demo[data-demo="real-ask"]'), copies;
    try { copies = JSON.parse((ask && ask.getAttribute("data-models")) || "{}"); } catch (e) { copies = {}; }
    var line = "This link " + what + ", which needs the model: ";
    meanwhile = meanwhile || "the stored prompt shows meanwhile";
    if (!ask) return line + "it loads on the page this view comes from (linked below); " + meanwhile + ".";
    if (!copies.smollm2) return line + "this copy of the site does not hold it, so " + meanwhile.replace(/ meanwhile$/, "") + ".";
    var go = ui.button("Load the model and run it", function () {  // the panel builds as it comes on screen
      go.remove();
      ask.scrollIntoView();
      (function press(tries) {
        var load = ask.querySelector("[data-role=ask-load]");
        if (load && !load.disabled) load.click(); else if (tries) setTimeout(function () { press(tries - 1); }, 100);
      })(50);
    }, { primary: true });
    go.setAttribute("data-role", "link-load");
    before.parentNode.insertBefore(go, before);
    return line + "load it (the button below, or Load above) to see it; " + meanwhile + ".";
  };
  badge.WORDS = WORDS;
  return badge;
});
