(function () {
  "use strict";
  // Without scripts every case is still listed and the toggle stays hidden; only the details of
  // cases kept in data blocks (past the first ones with details) need this script.
  var narrow = window.matchMedia("(max-width: 600px)");

  function foldRules(root) {
    // On a narrow screen a case's rule texts start folded: the diff comes first.
    if (!narrow.matches) { return; }
    root.querySelectorAll(".rules-panel details[open]").forEach(function (d) { d.open = false; });
  }

  function fill(details) {
    // The data block holds HTML this page's renderer escaped; it becomes the case's body.
    if (!details.classList.contains("lazy") || details.dataset.filled) { return; }
    var data = details.querySelector("script.body-data");
    var body = details.querySelector("[data-body]");
    if (!data || !body) { return; }
    body.innerHTML = JSON.parse(data.textContent);
    body.querySelectorAll("[data-rule]").forEach(function (text) {
      // A compact case names its rules; their texts are in the spec section of the page.
      var section = document.getElementById(text.dataset.rule);
      var source = section && section.querySelector(".rule-text");
      if (!source) { return; }
      text.replaceChildren.apply(text, Array.from(source.childNodes, function (node) {
        return node.cloneNode(true);
      }));
    });
    details.dataset.filled = "1";
    foldRules(body);
  }

  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (target && target.tagName === "DETAILS" && !target.open) {
      target.open = true;
      target.scrollIntoView();
    }
  }

  document.addEventListener("toggle", function (event) {
    if (event.target.open) { fill(event.target); }
  }, true);
  foldRules(document);
  document.querySelectorAll("details.lazy[open]").forEach(fill);
  window.addEventListener("hashchange", openTarget);
  openTarget();

  var box = document.getElementById("only-failures");
  var label = document.getElementById("filter");
  if (!box || !label) { return; }
  label.hidden = false;
  function apply() { document.body.classList.toggle("only-failures", box.checked); }
  box.addEventListener("change", apply);
  apply();
})();
